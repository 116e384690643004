// Configuration of the memory system: dataram (SRAM), HBM and interconnect.
//
// Two layers, as everywhere in npusim: a YAML file (and `--set key=value` overrides) is parsed
// into a tree whose every field remembers where it came from; validate() turns that into the
// plain structs below, checking ranges and consistency. Errors name the key, the value and the
// file and line (docs/memory-config.md documents every field). The defaults are the DEFAULT_*
// constants here; models/hbm2.yaml spells out the same values and a test keeps them equal.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace npusim::models {

// Bad configuration: names the source (file or "--set"), the line (0 if none), the key and the
// offending value. The program reports it and exits 2.
class ConfigError : public std::runtime_error {
 public:
  ConfigError(std::string file, int line, std::string key, std::string value,
              const std::string& why);
  const std::string& file() const { return file_; }
  int line() const { return line_; }
  const std::string& key() const { return key_; }
  const std::string& value() const { return value_; }

 private:
  std::string file_;
  int line_;
  std::string key_;
  std::string value_;
};

// --- HBM: JEDEC HBM2 at 2 Gb/s per pin (tCK 1 ns, DDR). Timings in tCK cycles. ---
inline constexpr uint64_t DEFAULT_HBM_BASE = 0x1'0000'0000ull;  // neuron_layout hbm_scratch
inline constexpr double DEFAULT_HBM_TCK_NS = 1.0;
inline constexpr uint32_t DEFAULT_HBM_CHANNELS = 8;
inline constexpr uint32_t DEFAULT_HBM_PSEUDO_CHANNELS = 1;  // 1 = legacy mode, 2 = pseudo-channel
inline constexpr uint32_t DEFAULT_HBM_CHANNEL_WIDTH_BITS = 128;
inline constexpr uint32_t DEFAULT_HBM_BANK_GROUPS = 4;
inline constexpr uint32_t DEFAULT_HBM_BANKS_PER_GROUP = 4;
inline constexpr uint32_t DEFAULT_HBM_ROWS = 65536;       // assumption: 16 GiB in total
inline constexpr uint32_t DEFAULT_HBM_ROW_BYTES = 2048;   // HBM2 legacy-mode page size
inline constexpr uint32_t DEFAULT_HBM_BURST_LENGTH = 4;   // BL4
inline constexpr uint64_t DEFAULT_HBM_TRCD = 14;
inline constexpr uint64_t DEFAULT_HBM_TCL = 14;
inline constexpr uint64_t DEFAULT_HBM_TRP = 14;
inline constexpr uint64_t DEFAULT_HBM_TRAS = 34;
inline constexpr uint64_t DEFAULT_HBM_TFAW = 30;
inline constexpr uint64_t DEFAULT_HBM_TRFC = 260;
inline constexpr uint64_t DEFAULT_HBM_TRFCPB = 90;  // an assumption (docs/assumptions.md)
inline constexpr uint64_t DEFAULT_HBM_TREFI = 3900;
inline constexpr uint64_t DEFAULT_HBM_TCCD_S = 2;  // assumption: = burst time (BL4, DDR)
inline constexpr uint64_t DEFAULT_HBM_TCCD_L = 4;  // assumption
inline constexpr uint64_t DEFAULT_HBM_TRRD_S = 4;  // assumption
inline constexpr uint64_t DEFAULT_HBM_TRRD_L = 6;  // assumption
inline constexpr uint64_t DEFAULT_HBM_TRTP = 4;    // assumption
inline constexpr uint64_t DEFAULT_HBM_TWL = 4;     // assumption
inline constexpr uint64_t DEFAULT_HBM_TWR = 16;    // assumption
inline constexpr uint64_t DEFAULT_HBM_TWTR = 6;    // DRAMsim3 HBM2 tWTR_S
inline constexpr uint64_t DEFAULT_HBM_TRTW = 13;   // CL + BL/2 - WL + 1 (DRAMsim3's tRTRS)
inline constexpr uint32_t DEFAULT_HBM_QUEUE_DEPTH = 32;  // per channel; assumption
inline constexpr uint32_t DEFAULT_HBM_BANK_QUEUE_DEPTH = 8;  // per bank (DRAMsim3 cmd_queue_size)
inline constexpr const char* DEFAULT_HBM_SCHEDULER = "frfcfs";
inline constexpr const char* DEFAULT_HBM_ADDRESS_MAPPING = "row,bank,column,bankgroup,channel";
inline constexpr const char* DEFAULT_HBM_PAGE_POLICY = "open";
inline constexpr uint32_t DEFAULT_FILL = 0;  // byte pattern of untouched memory
inline constexpr uint64_t DEFAULT_HBM_WINDOW_BASE = 0x8000'0000ull;  // neuron_layout hbm_window
inline constexpr uint64_t DEFAULT_HBM_WINDOW_SIZE = 64ull << 20;     // assumption: 64 MiB
inline constexpr uint64_t DEFAULT_HBM_WINDOW_TARGET = 0x1'0000'0000ull;  // hbm_scratch
inline constexpr double DEFAULT_STATS_WINDOW_NS = 1000.0;
// The range of stats_window_ns (docs/memory-config.md): a window's cycle count and the series'
// arithmetic stay within 64 bits, and a window is at least the 1 ps time resolution.
inline constexpr double kMinStatsWindowNs = 0.001, kMaxStatsWindowNs = 1e9;
inline constexpr const char* kStatsWindowRange = "must be in [0.001, 1e9] ns (1 ps to 1 s)";
// HBM supply voltage (V) and currents (mA) per unit, for the energy (models/hbm_energy.h):
// DRAMsim3's configs/HBM2_8Gb_x128.ini, section [power] (github.com/umd-memsys/DRAMsim3).
inline constexpr double DEFAULT_HBM_VDD = 1.2;
inline constexpr double DEFAULT_HBM_IDD0 = 65;     // one bank ACT-PRE cycling
inline constexpr double DEFAULT_HBM_IDD2N = 40;    // precharge standby
inline constexpr double DEFAULT_HBM_IDD3N = 55;    // active standby
inline constexpr double DEFAULT_HBM_IDD4R = 390;   // burst read
inline constexpr double DEFAULT_HBM_IDD4W = 500;   // burst write
inline constexpr double DEFAULT_HBM_IDD5AB = 250;  // all-bank refresh
// Per-bank refresh: not in that file; an assumption (docs/assumptions.md): the banks'
// per-bank refreshes in turn take the charge above standby of one all-bank refresh.
inline constexpr double DEFAULT_HBM_IDD5PB = 93;

// --- dataram: the management core's on-core data RAM / TCM. ---
inline constexpr uint64_t DEFAULT_DATARAM_BASE = 0x80000;  // data_transfer.cpp:160 window
inline constexpr uint64_t DEFAULT_DATARAM_SIZE = 0x10000;
inline constexpr double DEFAULT_DATARAM_CLOCK_NS = 1.0;      // assumption: 1 GHz core clock
inline constexpr uint64_t DEFAULT_DATARAM_LATENCY = 1;       // assumption
inline constexpr uint32_t DEFAULT_DATARAM_WIDTH_BYTES = 8;   // assumption: 64-bit port
inline constexpr uint32_t DEFAULT_DATARAM_BANKS = 4;         // assumption
inline constexpr uint64_t DEFAULT_DATARAM_CONFLICT = 1;      // assumption
inline constexpr const char* DEFAULT_DATARAM_MISALIGNED = "allow";

// SRAM access energy per byte: Horowitz, "Computing's Energy Problem", ISSCC 2014 (45 nm):
// a 64-bit access to a 32 KB SRAM costs 20 pJ (the dataram's and a TCM's banks are 16 KiB).
inline constexpr double DEFAULT_SRAM_PJ_PER_BYTE = 2.5;

// --- interconnect ---
inline constexpr double DEFAULT_BUS_CLOCK_NS = 1.0;
inline constexpr uint64_t DEFAULT_BUS_HOP_LATENCY = 2;  // assumption
inline constexpr double DEFAULT_BUS_HOP_PJ = 10.0;      // assumption: per transaction

enum class PagePolicy { kOpen, kClosed, kAdaptive };  // adaptive: frfcfs only
enum class HbmScheduler { kFrFcfs, kFcfs };  // models/hbm/controller.h

// One field of an HBM device address, from least to most significant bit above the burst.
// all_bank: every bank of every unit at k * tREFI for tRFC. per_bank: bank j of a unit (of
// B) at k * tREFI + j * tREFI / B for tRFCpb, the others stay available.
enum class HbmRefresh { kAllBank, kPerBank };

enum class AddrField { kChannel, kPseudoChannel, kBankGroup, kBank, kColumn, kRow };

struct HbmConfig {
  uint64_t base = DEFAULT_HBM_BASE;
  double tck_ns = DEFAULT_HBM_TCK_NS;
  uint32_t channels = DEFAULT_HBM_CHANNELS;
  uint32_t pseudo_channels = DEFAULT_HBM_PSEUDO_CHANNELS;
  uint32_t channel_width_bits = DEFAULT_HBM_CHANNEL_WIDTH_BITS;
  uint32_t bank_groups = DEFAULT_HBM_BANK_GROUPS;
  uint32_t banks_per_group = DEFAULT_HBM_BANKS_PER_GROUP;
  uint32_t rows = DEFAULT_HBM_ROWS;
  uint32_t row_bytes = DEFAULT_HBM_ROW_BYTES;
  uint32_t burst_length = DEFAULT_HBM_BURST_LENGTH;
  uint64_t tRCD = DEFAULT_HBM_TRCD, tCL = DEFAULT_HBM_TCL, tRP = DEFAULT_HBM_TRP,
           tRAS = DEFAULT_HBM_TRAS, tFAW = DEFAULT_HBM_TFAW, tRFC = DEFAULT_HBM_TRFC,
           tREFI = DEFAULT_HBM_TREFI, tCCD_S = DEFAULT_HBM_TCCD_S, tCCD_L = DEFAULT_HBM_TCCD_L,
           tRRD_S = DEFAULT_HBM_TRRD_S, tRRD_L = DEFAULT_HBM_TRRD_L, tRTP = DEFAULT_HBM_TRTP,
           tWL = DEFAULT_HBM_TWL, tWR = DEFAULT_HBM_TWR, tWTR = DEFAULT_HBM_TWTR,
           tRTW = DEFAULT_HBM_TRTW;
  uint32_t queue_depth = DEFAULT_HBM_QUEUE_DEPTH;  // the transaction queue of a unit
  uint32_t bank_queue_depth = DEFAULT_HBM_BANK_QUEUE_DEPTH;  // frfcfs: command queue per bank
  uint32_t write_queue_depth = 0;  // frfcfs: posted-write buffer per unit; 0 = none
  // frfcfs write drain: starts when the buffer holds write_high_watermark writes (0 = the
  // depth) and stops when write_low_watermark are left (0 = drain all).
  uint32_t write_high_watermark = 0, write_low_watermark = 0;
  // frfcfs: a row hit may pass an older request of its bank (in the time before that one's
  // precharge) while the row has served fewer than row_hit_cap column commands; 0 = never.
  uint32_t row_hit_cap = 0;
  HbmRefresh refresh = HbmRefresh::kAllBank;  // per_bank: frfcfs only
  uint64_t tRFCpb = DEFAULT_HBM_TRFCPB;         // per-bank refresh: one bank busy this long
  uint64_t page_idle_cycles = 64;  // page_policy adaptive: a row idle this long is closed
  HbmScheduler scheduler = HbmScheduler::kFrFcfs;
  // Fields from most to least significant; the burst offset is always the lowest bits.
  std::vector<AddrField> mapping = {AddrField::kRow, AddrField::kBank, AddrField::kColumn,
                                    AddrField::kBankGroup, AddrField::kChannel};
  PagePolicy page_policy = PagePolicy::kOpen;
  uint32_t fill = DEFAULT_FILL;
  uint64_t window_base = DEFAULT_HBM_WINDOW_BASE;
  uint64_t window_size = DEFAULT_HBM_WINDOW_SIZE;
  uint64_t window_target = DEFAULT_HBM_WINDOW_TARGET;
  double stats_window_ns = DEFAULT_STATS_WINDOW_NS;
  // Energy (models/hbm_energy.h): supply voltage (V) and currents (mA) of a unit, under the
  // names of DRAMsim3's [power] section.
  double vdd = DEFAULT_HBM_VDD, idd0 = DEFAULT_HBM_IDD0, idd2n = DEFAULT_HBM_IDD2N,
         idd3n = DEFAULT_HBM_IDD3N, idd4r = DEFAULT_HBM_IDD4R, idd4w = DEFAULT_HBM_IDD4W,
         idd5ab = DEFAULT_HBM_IDD5AB, idd5pb = DEFAULT_HBM_IDD5PB;

  // Derived geometry.
  uint32_t units() const { return channels * pseudo_channels; }  // independent command buses
  uint32_t unit_width_bytes() const { return channel_width_bits / 8 / pseudo_channels; }
  uint32_t burst_bytes() const { return unit_width_bytes() * burst_length; }
  uint64_t burst_cycles() const { return burst_length / 2; }  // DDR: two beats per tCK
  uint32_t banks() const { return bank_groups * banks_per_group; }
  uint32_t columns() const { return row_bytes / burst_bytes(); }  // bursts per row
  uint64_t size() const { return uint64_t{units()} * banks() * rows * row_bytes; }
};

struct SramConfig {
  uint64_t base = DEFAULT_DATARAM_BASE;
  uint64_t size = DEFAULT_DATARAM_SIZE;
  double clock_ns = DEFAULT_DATARAM_CLOCK_NS;
  uint64_t latency_cycles = DEFAULT_DATARAM_LATENCY;
  uint32_t width_bytes = DEFAULT_DATARAM_WIDTH_BYTES;
  uint32_t banks = DEFAULT_DATARAM_BANKS;
  uint64_t bank_conflict_cycles = DEFAULT_DATARAM_CONFLICT;
  bool allow_misaligned = true;  // false: an access crossing a port word is an error
  uint32_t fill = DEFAULT_FILL;
  double stats_window_ns = DEFAULT_STATS_WINDOW_NS;
  double pj_per_byte = DEFAULT_SRAM_PJ_PER_BYTE;  // energy of an access, per byte
};

struct InterconnectConfig {
  double clock_ns = DEFAULT_BUS_CLOCK_NS;
  uint64_t hop_latency_cycles = DEFAULT_BUS_HOP_LATENCY;
  double hop_pj = DEFAULT_BUS_HOP_PJ;  // energy of a transaction through it
};

struct MemoryConfig {
  HbmConfig hbm;
  SramConfig dataram;
  InterconnectConfig interconnect;
};

// A `section.key=value` override from the command line.
using Override = std::pair<std::string, std::string>;

// Parses "key=value"; throws ConfigError (source "--set") when there is no '='.
Override parse_override(const std::string& text);

// Loads a YAML configuration (text `yaml` from `file`), applies the overrides in order and
// validates the result. An empty `yaml` means: defaults only. Throws ConfigError.
MemoryConfig load_memory_config(const std::string& yaml, const std::string& file,
                                const std::vector<Override>& overrides = {});
// Reads `path` and calls load_memory_config. Throws ConfigError if it cannot be read.
MemoryConfig load_memory_config_file(const std::string& path,
                                     const std::vector<Override>& overrides = {});

// A key of the memory sections and what it accepts, from the same table the loader uses
// (sim/input/schema.cpp turns it into the profiles' JSON Schema).
struct ConfigKey {
  std::string key;  // "hbm.tRCD"
  enum Kind { kUint, kNumber, kChoice, kChoiceList } kind;
  uint64_t max;                      // kUint
  std::vector<std::string> choices;  // kChoice, kChoiceList (comma-separated)
};
std::vector<ConfigKey> memory_config_keys();

// Validation of a struct built in code (throws ConfigError with file "<code>").
void validate(const HbmConfig& c);
void validate(const SramConfig& c, const std::string& section = "dataram");
void validate(const InterconnectConfig& c);

std::string to_string(AddrField f);

}  // namespace npusim::models
