// The cores of one cluster running RV32 programs: one SystemC thread steps every hart of the
// cluster in cycle lockstep (the hart with the lowest cycle next, ties in core order), so a
// program's cycles do not depend on the host. Each hart acts through its platform core's
// `bus` socket (models::Core): every data load and store is a b_transport through the
// interconnect to the TCDM bank model, the L3 (HBM model) or whatever the address map holds,
// with the hart's cycle as the annotated time; the data really moves. The thread yields to
// the kernel every `quantum_cycles` cycles (and whenever a DMA status read must see the
// engine at the hart's time), so the DMA engine and other clusters advance.
//
// The cluster also answers what is not memory: the barrier CSR (0x7c2: every running hart of
// the cluster arrives, all leave `barrier_cycles` after the last arrival), the Xdma
// instructions of the DM core (descriptors to the cluster's DmaEngine), and npusim's host
// interface (PUTCHAR and EXIT registers at `host_base`, like HTIF's tohost: the testbench's,
// not a memory's).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>

#include "models/core.h"
#include "models/dma_engine.h"
#include "models/rv32/elf.h"
#include "models/rv32/hart.h"
#include "models/snitch/tcdm.h"

namespace npusim::models::rv32 {

inline constexpr uint32_t DEFAULT_HOST_BASE = 0x1002'f000;  // npusim's host interface
inline constexpr uint32_t kHostPutchar = 0x00, kHostExit = 0x08, kHostSize = 0x20;
inline constexpr uint64_t DEFAULT_PROGRAM_MAX_CYCLES = 200'000'000;  // assumption: a run's budget

// How a hart ended.
enum class HartEnd { kRunning, kExited, kTrap, kFault, kHung, kBudget, kInterrupted, kIdle };
const char* hart_end_name(HartEnd e);

struct MemoryRange {
  uint64_t base = 0, end = 0;
  Target target = Target::kOther;
  Tcdm* tcdm = nullptr;  // for TCDM ranges: the bank model (conflict stalls)
};

struct ProgramClusterConfig {
  uint32_t cluster = 0;
  uint64_t quantum_cycles = 1000;
  uint64_t barrier_cycles = 8;
  uint64_t max_cycles = DEFAULT_PROGRAM_MAX_CYCLES;
  uint32_t host_base = DEFAULT_HOST_BASE;
  uint32_t dma_queue_depth = 8;  // dmstati 3 (would block) above this many transfers in flight
  Rv32Timing timing;
  std::vector<MemoryRange> ranges;  // how addresses map to stall causes
};

// A function call the hart made, for trace spans (recorded only when enabled).
struct CallSpan {
  uint32_t function = 0;  // entry address
  uint64_t begin = 0, end = 0;  // cycles
  uint32_t depth = 0;
};

struct HartRecord : CallObserver {
  std::string name;       // "c0_core3", "c0_dm"
  uint32_t core_idx = 0;  // in its cluster
  bool dm = false;
  Core* core = nullptr;
  std::unique_ptr<Hart> hart;
  const ElfImage* program = nullptr;
  std::vector<std::string> args;
  uint32_t argc = 0, argv = 0;  // a0, a1 at reset (the loader writes argv into memory)
  HartEnd end = HartEnd::kIdle;
  uint64_t end_cycle = 0;
  std::string output;                 // everything printed
  std::vector<std::pair<uint64_t, std::string>> lines;  // (cycle, line) as printed
  std::string line;                   // the line being printed
  uint64_t lines_dropped = 0;         // lines past the cap (100,000 a core)
  std::string fault_kind, fault_message;  // trap / fault / budget / hung: what and where
  uint32_t fault_pc = 0;
  std::string fault_insn, fault_function;
  // Xdma state of a DM core.
  uint32_t dma_src = 0, dma_dst = 0, dma_sstride = 0, dma_dstride = 0, dma_reps = 1;
  std::vector<std::vector<uint64_t>> transfers;  // per transfer id - 1: its engine tickets
  uint32_t completed = 0;                         // highest id whose transfers all finished
  // Call spans (trace).
  bool trace_calls = false;
  std::vector<CallSpan> spans;
  std::vector<size_t> call_stack;
  uint64_t spans_dropped = 0;
  size_t dropped_depth = 0;  // calls not recorded (over the cap) still open
  // The call chain (function entry addresses, outermost first), kept when track_chain is set
  // (stack-overflow messages), and hooks told of every call and return (before the chain pops).
  bool track_chain = false;
  uint32_t stack_lo = 0, stack_hi = 0;  // the guard armed at reset (Hart::set_stack_guard), 0: none
  std::vector<uint32_t> chain;
  std::vector<uint32_t> call_pcs;  // per chain entry: the address of the call instruction
  uint64_t chain_dropped = 0;  // calls deeper than the chain keeps
  std::function<void(HartRecord&, uint32_t target, uint64_t cycle)> on_call;
  std::function<void(HartRecord&, uint64_t cycle)> on_ret;
  void call(uint32_t target, uint64_t cycle) override;
  void ret(uint64_t cycle) override;
  // Image writes done at the start of the simulation (segments, argv), by debug transport.
  std::vector<std::pair<uint32_t, std::vector<uint8_t>>> preload;
};

class ProgramCluster : public sc_core::sc_module, private Env {
 public:
  ProgramCluster(sc_core::sc_module_name name, const ProgramClusterConfig& cfg, DmaEngine* dma);

  // Adds a hart on `core` running `program` with `args` (argv written at `args_base`).
  // Before sc_start.
  HartRecord& add_hart(const std::string& name, uint32_t core_idx, uint32_t hartid, bool dm, Core& core,
                       const ElfImage& program, std::vector<std::string> args);
  // Asked between quanta; true stops every running hart (Ctrl-C).
  void set_stop_check(std::function<bool()> f) { should_stop_ = std::move(f); }
  // A register block of the platform at [base, base + size) (not a memory): loads and stores
  // there go to `access` (offset from base; it may set the hart's fault, stop it, or return
  // kRetry to have the kernel brought up to the hart's cycle first). Before sc_start.
  using MmioAccess = std::function<Env::Result(HartRecord&, bool write, uint32_t offset, uint32_t size, void* data)>;
  void add_mmio(uint32_t base, uint32_t size, MmioAccess access) {
    mmio_.push_back(Mmio{base, size, std::move(access)});
  }
  void set_line_hook(std::function<void(const HartRecord&, uint64_t cycle, const std::string&)> h) {
    on_line_ = std::move(h);
  }

  std::vector<std::unique_ptr<HartRecord>>& harts() { return harts_; }
  const std::vector<std::unique_ptr<HartRecord>>& harts() const { return harts_; }
  const ProgramClusterConfig& config() const { return cfg_; }
  uint64_t end_cycle() const { return end_cycle_; }
  uint64_t barrier_episodes() const { return barrier_episodes_; }
  bool done() const { return done_; }
  sc_core::sc_time period() const { return period_; }

 private:
  void thread();
  // Env
  Result load(Hart& h, uint32_t addr, uint32_t size, void* data, Answer& a) override;
  Result store(Hart& h, uint32_t addr, uint32_t size, const void* data, Answer& a) override;
  Result dma(Hart& h, Op op, uint32_t a, uint32_t b, uint32_t* rd) override;
  Result access(Hart& h, bool write, uint32_t addr, uint32_t size, void* data, Answer& a);
  Result host(Hart& h, uint32_t offset, uint32_t size, const void* data);
  void end_hart(HartRecord& r, HartEnd e);
  void describe_fault(HartRecord& r, const std::string& kind, const std::string& message);
  void release_barrier_if_complete();
  void update_completed(HartRecord& r);
  HartRecord& record_of(Hart&) { return *harts_[current_]; }

  ProgramClusterConfig cfg_;
  DmaEngine* dma_;
  sc_core::sc_time period_;
  std::vector<std::unique_ptr<HartRecord>> harts_;
  std::vector<uint8_t> waiting_;  // at the barrier
  size_t current_ = 0;
  uint64_t kernel_cycle_ = 0;
  uint64_t end_cycle_ = 0;
  uint64_t barrier_episodes_ = 0;
  bool done_ = false;
  tlm::tlm_generic_payload trans_;
  std::function<bool()> should_stop_;
  struct Mmio {
    uint32_t base, size;
    MmioAccess access;
  };
  std::vector<Mmio> mmio_;
  std::function<void(const HartRecord&, uint64_t, const std::string&)> on_line_;
};

}  // namespace npusim::models::rv32
