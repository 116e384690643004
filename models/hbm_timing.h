// The HBM timing engine: plain C++, no SystemC. Each request (one burst) is scheduled from the
// state of its bank and its channel, so the cost is per request, not per cycle:
//
//   bank:    open row, earliest ACT (tRP after a PRE, end of a refresh), earliest PRE (tRAS
//            after ACT, tRTP after a read, tWR after write data), earliest column (tRCD)
//   channel: tRRD_S/_L and tFAW between ACTs, tCCD_S/_L between column commands, the data bus,
//            a FCFS request queue of queue_depth entries, all-bank refresh every tREFI
//
// A "unit" is a channel, or a pseudo-channel when pseudo_channels = 2: each has its own
// command and data bus and its own banks. Requests to a unit are served first come, first
// served (assumption: no reordering); docs/timing-model.md derives what this predicts.
//
// Host speed (docs/performance.md, "HBM speed"): access_request() schedules all bursts of a
// request in one call; the address is decoded once per run through the lowest mapped field
// (8 bursts with the default mapping) and then stepped by adds; state lives in flat arrays;
// refresh bookkeeping runs only when time leaves the current tREFI window. The results are
// those of the one-burst-at-a-time engine it replaced, cycle for cycle
// (tests/models/test_hbm_timing_equivalence.cpp compares the two).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "models/memory_config.h"

namespace npusim::models {

namespace hbm {
class BankHistory;  // models/hbm/bank_history.h
}

struct HbmAddress {
  uint32_t unit = 0;        // channel * pseudo_channels + pseudo_channel
  uint32_t bank_group = 0;
  uint32_t bank = 0;        // bank index inside its group
  uint32_t column = 0;      // in bursts
  uint32_t row = 0;
  uint32_t offset = 0;      // byte inside the burst
  bool operator==(const HbmAddress& o) const {
    return unit == o.unit && bank_group == o.bank_group && bank == o.bank &&
           column == o.column && row == o.row && offset == o.offset;
  }
};

// Address mapping: the fields of the configured bit order, most significant first, above the
// burst offset. Every field count is a power of two, so decode is shifts and masks.
class HbmAddressMap {
 public:
  explicit HbmAddressMap(const HbmConfig& c);
  HbmAddress decode(uint64_t offset) const;
  uint64_t encode(const HbmAddress& a) const;

 private:
  struct Field {
    AddrField field;
    unsigned shift;
    uint64_t mask;
  };
  std::vector<Field> fields_;  // least significant first
  uint32_t pseudo_channels_;
  uint64_t burst_mask_;
};

enum class RowOutcome { kHit, kMiss, kConflict };

struct BurstTiming {
  uint64_t admit_cycles;  // when the request entered the channel queue
  uint64_t data_cycles;   // first data beat
  uint64_t done_cycles;   // last data beat: the request is complete
  RowOutcome outcome;
};

// A request of one or more bursts: when its last burst completes and, per burst, the state of
// its bank (the MemoryStats row counts).
struct RequestTiming {
  uint64_t done_cycles = 0;  // max(arrival, the latest burst completion)
  uint64_t row_hits = 0, row_misses = 0, row_conflicts = 0;
};

// Bursts per row outcome, indexed by RowOutcome.
struct RowCounts {
  uint64_t n[3] = {0, 0, 0};
  uint64_t hits() const { return n[static_cast<unsigned>(RowOutcome::kHit)]; }
  uint64_t misses() const { return n[static_cast<unsigned>(RowOutcome::kMiss)]; }
  uint64_t conflicts() const { return n[static_cast<unsigned>(RowOutcome::kConflict)]; }
};

class HbmTiming {
 public:
  // Throws std::invalid_argument unless every geometry count is a power of two (the address
  // decode is shifts and masks) and queue_depth >= 1; validate(HbmConfig) checks both.
  explicit HbmTiming(const HbmConfig& c);
  ~HbmTiming();
  HbmTiming(HbmTiming&&) noexcept;
  HbmTiming& operator=(HbmTiming&&) noexcept;

  // Schedules one burst at device offset `offset` arriving at `arrival_cycles`.
  BurstTiming access(uint64_t offset, bool write, uint64_t arrival_cycles);
  // Schedules the bursts covering [offset, offset + len) (len >= 1), all arriving at
  // `arrival_cycles`, in address order. Identical to calling access() for each burst.
  RequestTiming access_request(uint64_t offset, uint64_t len, bool write,
                               uint64_t arrival_cycles) {
    RowCounts rows;
    const uint64_t done = schedule(offset, len, write, arrival_cycles, rows);
    return RequestTiming{done, rows.hits(), rows.misses(), rows.conflicts()};
  }
  // The same, for the model's own use: returns the completion cycle and adds the bursts'
  // row outcomes to `rows` (nothing returned through memory: a struct returned from an
  // out-of-line call is stored in pieces and read back whole, which stalls the reader).
  uint64_t schedule(uint64_t offset, uint64_t len, bool write, uint64_t arrival_cycles,
                    RowCounts& rows);
  const HbmAddressMap& address_map() const { return map_; }
  const HbmConfig& config() const { return cfg_; }
  uint64_t refreshes() const { return refreshes_; }
  // When the first burst of the last scheduled request entered its channel queue.
  uint64_t last_admit() const { return last_admit_; }
  // The bank-state history (models/hbm/bank_history.h) and the column commands of each unit:
  // what its energy is computed from (hbm::FcfsController::activity()).
  const hbm::BankHistory& bank_history() const { return *hist_; }
  uint64_t column_commands(uint32_t unit, bool write) const { return units_[unit].cols[write]; }
  // Where a row still open in `unit` closes: at its next refresh (UINT64_MAX without).
  uint64_t next_refresh(uint32_t unit) const { return units_[unit].win_hi; }
  // The refresh window [start, start + tRFC) of refresh k >= 1 of unit u.
  uint64_t refresh_start(uint32_t unit, uint64_t k) const {
    return refresh_offset(unit) + k * cfg_.tREFI;
  }

 private:
  static constexpr uint32_t kNoRow = UINT32_MAX;
  // State in flat arrays indexed by unit (and bank or group inside it): one cache line per
  // bank pair, no per-unit vectors to chase.
  struct Bank {
    uint64_t act_ok = 0;  // earliest ACT
    uint64_t pre_ok = 0;  // earliest PRE
    uint64_t col_ok = 0;  // earliest column command
    uint32_t open_row = kNoRow;
  };
  struct Group {
    uint64_t act_ok = 0, col_ok = 0;
  };
  struct Unit {
    uint64_t act_ok_any = 0, col_ok_any = 0, bus_free = 0, last_admit = 0;
    // Cache of the refresh schedule around refreshes_seen = k: while win_lo <= t < win_hi
    // the latest refresh started at or before t is k, which ended at win_end (0 for k = 0).
    // win_hi is refresh k + 1's start (UINT64_MAX without refresh).
    uint64_t win_lo = 0, win_hi = UINT64_MAX, win_end = 0;
    uint64_t queue_base = 0;        // its queue_depth completion times: queue_[queue_base + i]
    unsigned queue_next = 0;        // the oldest of them (FCFS ring)
    unsigned faw_next = 0;          // the oldest entry of faw
    std::array<uint64_t, 4> faw{};  // earliest ACT allowed by each of the last four ACTs
    uint64_t refreshes_seen = 0;    // index of the last refresh applied to the banks
    uint64_t cols[2] = {0, 0};      // read [0] and write [1] column commands
    uint64_t next_settle = 0;       // the bank-state history is settled at this admission
  };
  static constexpr uint64_t kSettle = 1024;
  // The decode and the timing constants, fixed at construction.
  struct Params {
    // Field value = (offset >> shift) & mask; a field absent from the mapping has mask 0.
    unsigned ch_shift = 0, pc_shift = 0, bg_shift = 0, bk_shift = 0, row_shift = 0;
    uint64_t ch_mask = 0, pc_mask = 0, bg_mask = 0, bk_mask = 0, row_mask = 0;
    // Where the fields go in a flat bank index (unit, group, bank in group): the unit is
    // bank >> banks_bits, the flat group index bank >> bpg_bits.
    unsigned ch_pos = 0, pc_pos = 0, bg_pos = 0, banks_bits = 0, bpg_bits = 0;
    // The lowest field that has more than one value: consecutive bursts step through it, so
    // a request is decoded once per run of run_mask + 1 bursts; in a run, each burst adds
    // bank_stride to the flat bank index and row_stride to the row.
    unsigned run_shift = 0;
    uint64_t run_mask = 0;
    uint32_t bank_stride = 0, row_stride = 0;
    uint64_t tRCD = 0, tRP = 0, tRAS = 0, tFAW = 0, tCCD_S = 0, tCCD_L = 0, tRRD_S = 0,
             tRRD_L = 0, tRTP = 0, tWL = 0, tCL = 0, tWR = 0, burst_cycles = 0;
    unsigned queue_depth = 1;
    bool closed_page = false;
  };
  // What the schedule of one burst reads but never writes, for a read and for a write
  // (hot_), copied into a local once per multi-burst request: the state it stores to is
  // uint64_t too, so members would be reloaded after every store (they may alias); a local
  // cannot be. A single burst reads hot_ in place.
  struct Hot {
    uint64_t tRCD, tRP, tRAS, tFAW, tCCD_S, tCCD_L, tRRD_S, tRRD_L;
    uint64_t to_data;   // column to first data: CL or tWL
    uint64_t to_done;   // column to last data: to_data + BL/2
    uint64_t recovery;  // column to the earliest PRE: tRTP, or tWL + BL/2 + tWR after a write
    unsigned queue_depth, banks_bits, bpg_bits;
    bool closed_page;
    unsigned dir;  // 0: read, 1: write
  };
  struct Step {
    uint64_t admit, data, done;
    RowOutcome outcome;
  };

  // schedule() for a request of more than one burst (out of line: its frame would burden
  // the single burst).
  __attribute__((noinline)) uint64_t schedule_bursts(uint64_t offset, uint64_t len, bool write,
                                                     uint64_t arrival_cycles, RowCounts& rows);
  uint64_t refresh_offset(uint32_t unit) const;  // where unit's refresh schedule starts
  // Applies every refresh that started at or before `t`; returns t moved past a refresh that
  // is in progress. The common case (no refresh boundary crossed) is the inline check in
  // step(); this is the rest.
  uint64_t apply_refresh_slow(Unit& u, uint32_t unit, uint64_t t);
  Hot make_hot(bool write) const;
  inline uint32_t bank_index(uint64_t offset) const;  // the flat bank index of a device offset
  uint32_t row_of(uint64_t offset) const {
    return static_cast<uint32_t>((offset >> params_.row_shift) & params_.row_mask);
  }
  // Schedules one burst to flat bank `bank`, row `row`.
  inline Step step(const Hot& k, uint32_t bank, uint32_t row, uint64_t arrival);

  HbmConfig cfg_;
  HbmAddressMap map_;
  Params params_;
  unsigned burst_shift_ = 0;
  std::vector<Unit> units_;
  std::vector<Bank> banks_;     // flat bank index: unit * banks + group * banks_per_group + bank
  std::vector<Group> groups_;   // flat group index: unit * bank_groups + group
  std::vector<uint64_t> queue_;  // unit * queue_depth + i
  Hot hot_[2] = {};               // the constants of a read [0] and of a write [1]
  // The burst (offset >> burst shift) of the last single-burst request, and its decode.
  uint64_t last_burst_ = UINT64_MAX;
  uint32_t last_bank_ = 0, last_row_ = 0;
  uint64_t refreshes_ = 0;
  uint64_t last_admit_ = 0;
  // The banks' open/closed history, for the energy (out of line: this header is everywhere).
  std::unique_ptr<hbm::BankHistory> hist_;
};

}  // namespace npusim::models
