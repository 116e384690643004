// One RV32IMAFD hart: architectural state, an interpreter with a decode cache (each word of the
// program's code decoded once, at load), and a per-register scoreboard for timing. It knows
// nothing of SystemC: every data access, CSR the core does not own, barrier and DMA
// instruction goes to an Env (the program runner, models/rv32/program_runner.h, answers from
// the platform's memory models). The same program gives the same cycles on every run: time is
// the hart's own `cycle`, advanced by its instructions and its memory's answers.
//
// Timing (docs/snitch-programs.md): one instruction issues per cycle, in order. An instruction issues
// at max(cycle, ready(sources)); its result is ready `latency` cycles after issue (the unit's
// latency from Rv32Timing, or the cycle the memory delivers a load's data). A stall is charged
// to the cause of the source that was ready last: a register dependency on a computing unit,
// or the memory target of a load. An access whose request waits for a TCDM bank stalls the
// core for that wait (a bank conflict). Instruction fetch is untimed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/rv32/isa.h"

namespace npusim::models::rv32 {

// Result latencies in cycles: profile parameters (core.* keys); sources in
// docs/assumptions.md. Defaults: the snitch_cluster default configuration.
struct Rv32Timing {
  uint32_t mul = 4;        // a dependent add after mul stalls 3 cycles (Snitch trace walkthrough)
  uint32_t div = 35;       // assumption: Snitch's serial divider, about one bit per cycle
  uint32_t fp32 = 2;       // cfg/default.json timing: fp32 2
  uint32_t fp64 = 3;       // fp64 3
  uint32_t fconv = 2;      // conv 2
  uint32_t fnoncomp = 1;   // noncomp 1
  uint32_t fdiv32 = 11;    // assumption: iterative divide/sqrt unit
  uint32_t fdiv64 = 21;    // assumption
  uint32_t taken_branch_extra = 0;  // assumption: the single-stage core redirects in the issue cycle
};

// Where a memory access went: selects the stall cause (docs/snitch-programs.md).
enum class Target : uint8_t { kTcdm, kL3, kOther, kCount };
inline const char* target_name(Target t) {
  return t == Target::kTcdm ? "tcdm" : t == Target::kL3 ? "l3" : "other";
}

struct HartStats {
  uint64_t instret = 0;
  uint64_t loads = 0, stores = 0;
  uint64_t stall_dependency = 0;                                 // waiting for a unit's result
  uint64_t stall_memory[static_cast<int>(Target::kCount)] = {};  // waiting for a load's data
  uint64_t stall_conflict = 0;                                   // requests waiting for a TCDM bank
  uint64_t stall_barrier = 0;
  uint64_t stall_dma = 0;  // cycles spent polling a busy DMA
  uint64_t stall_total() const {
    uint64_t m = 0;
    for (uint64_t v : stall_memory) m += v;
    return stall_dependency + m + stall_conflict + stall_barrier + stall_dma;
  }
};

// Why run() returned.
enum class Stop : uint8_t {
  kBudget,   // the hart's cycle passed `until`
  kBarrier,  // it executed the barrier CSR (0x7c2): the runner decides when it leaves
  kSync,     // the Env asked the runner to bring the kernel up to the hart's cycle, then retry
  kExit,     // the program ended (exit register written)
  kTrap,     // ecall
  kFault,    // see fault()
  kWfi,
};

struct HartFault {
  std::string kind;     // "illegal instruction", "misaligned access", "bus error", ...
  std::string message;  // one line, without the core/function (the runner adds them)
  uint32_t pc = 0;
  uint32_t word = 0;
};

class Hart;

// Told of every call (jal/jalr writing ra) and return (jalr x0, 0(ra)) when set: the trace's
// function spans.
class CallObserver {
 public:
  virtual ~CallObserver() = default;
  virtual void call(uint32_t target, uint64_t cycle) = 0;
  virtual void ret(uint64_t cycle) = 0;
};

// The world around a hart. Loads and stores return false after setting the hart's fault (or
// asking to stop: Env sets hart.request_stop()).
class Env {
 public:
  struct Answer {
    uint64_t ready = 0;  // cycle the data is available (loads) or the write is done
    uint64_t stall = 0;  // cycles the request waited before it was accepted (bank conflicts)
    Target target = Target::kOther;
  };
  enum class Result : uint8_t { kOk, kFault, kStop, kRetry };

  virtual ~Env() = default;
  virtual Result load(Hart& h, uint32_t addr, uint32_t size, void* data, Answer& a) = 0;
  virtual Result store(Hart& h, uint32_t addr, uint32_t size, const void* data, Answer& a) = 0;
  // Xdma: `a`/`b` are the rs1/rs2 values (imm5 in b for dmcpyi/dmstati); result into *rd.
  virtual Result dma(Hart& h, Op op, uint32_t a, uint32_t b, uint32_t* rd) = 0;
};

class Hart {
 public:
  Hart(uint32_t hartid, const Rv32Timing& timing);

  // The code the hart can execute: [base, base + 4 * words.size()), decoded now.
  void set_code(uint32_t base, const std::vector<uint32_t>& words);
  void reset(uint32_t pc, uint64_t cycle);

  // Runs until the hart's cycle passes `until` (at least one instruction if the hart is
  // at or before `until`), or it stops.
  Stop run(uint64_t until, Env& env);

  void set_call_observer(CallObserver* o) { calls_ = o; }
  // The stack guard: the hart runs on the stack [lo, hi). From now on a write of sp (x2) to
  // an address in the kGuardReach bytes below `lo` stops the hart with a "stack overflow"
  // fault (lo 0: no guard; an sp further away is another stack, as during a switch). The
  // lowest sp written below `hi` since then (an overflowing write aside) is the stack's
  // high-water mark (sp_low).
  static constexpr uint32_t kGuardReach = 1u << 20;
  void set_stack_guard(uint32_t lo, uint32_t hi) {
    guard_lo_ = lo;
    sp_low_ = hi;
  }
  uint32_t stack_guard() const { return guard_lo_; }
  uint32_t sp_low() const { return sp_low_; }
  // A barrier arrival leaves at `cycle` (>= the arrival).
  void leave_barrier(uint64_t cycle);

  uint32_t x(unsigned r) const { return x_[r]; }
  void set_x(unsigned r, uint32_t v) {
    if (r) x_[r] = v;
  }
  uint64_t f(unsigned r) const { return f_[r]; }
  uint32_t pc() const { return pc_; }
  uint64_t cycle() const { return cycle_; }
  uint32_t hartid() const { return hartid_; }
  const HartStats& stats() const { return stats_; }
  HartStats& stats() { return stats_; }
  const HartFault& fault() const { return fault_; }
  void set_fault(std::string kind, std::string message);
  // For the Env: the hart stops after the current instruction with `s` (kExit, ...).
  void request_stop(Stop s) { stop_ = s; }
  uint32_t exit_code() const { return exit_code_; }
  void set_exit_code(uint32_t c) { exit_code_ = c; }
  // The instruction at the PC (for fault messages): its word and text.
  uint32_t word_at(uint32_t pc) const;
  std::string text_at(uint32_t pc) const;
  // LR/SC: the reservation (cleared by any store to its word, by any hart: the runner calls
  // clear_reservation on the others).
  bool reserved(uint32_t addr) const { return reservation_valid_ && reservation_ == (addr & ~3u); }
  void clear_reservation() { reservation_valid_ = false; }
  bool has_reservation() const { return reservation_valid_; }

 private:
  struct Slot {
    Insn insn;
    uint8_t s1 = 0, s2 = 0, s3 = 0;  // scoreboard sources (0: none; 1..31 x, 32..63 f)
    uint8_t d = 0;                   // scoreboard destination (0: none)
    uint8_t latency = 1;
  };
  Slot make_slot(const Insn& insn) const;
  const Slot* slot(uint32_t pc) const {
    const uint32_t i = (pc - code_base_) >> 2;
    return (pc & 3) == 0 && i < slots_.size() ? &slots_[i] : nullptr;
  }
  bool csr(const Insn& in, uint32_t src, uint32_t& old);
  bool fp(const Insn& in);
  uint32_t frm(const Insn& in) const { return in.rm == 7 ? (fcsr_ >> 5) & 7 : in.rm; }

  uint32_t hartid_;
  Rv32Timing timing_;
  uint32_t x_[32] = {};
  uint64_t f_[32] = {};
  uint32_t pc_ = 0;
  uint32_t fcsr_ = 0;
  uint64_t cycle_ = 0;       // the cycle the next instruction can issue
  uint64_t ready_[64] = {};  // scoreboard: cycle each register's value is ready
  uint8_t cause_[64] = {};   // what produced it: 0 a unit, 1 + Target a load
  uint32_t code_base_ = 0;
  std::vector<Slot> slots_;
  HartStats stats_;
  HartFault fault_;
  Stop stop_ = Stop::kBudget;
  uint32_t exit_code_ = 0;
  uint32_t reservation_ = 0;
  bool reservation_valid_ = false;
  uint64_t barrier_arrival_ = 0;
  CallObserver* calls_ = nullptr;
  bool dma_busy_polled_ = false;  // the last DMA status read found the engine busy
  uint64_t dma_poll_cycle_ = 0;
  uint32_t guard_lo_ = 0;
  uint32_t sp_low_ = 0xffffffffu;
};

}  // namespace npusim::models::rv32
