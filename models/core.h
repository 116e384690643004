// A core that runs host-compiled firmware as a SystemC thread, loosely timed.
//
// Firmware touches the device only through the core: 32-bit loads and stores, block and
// vector reads/writes, compute(cycles) for pure computation, and waits on events (DMA
// completion). Time is therefore emergent from the memory traffic. The core keeps a quantum
// keeper and a DMI cache: where a target grants DMI (the dataram), an access is a memcpy plus
// the granted latency; elsewhere (HBM) it is a b_transport with the local time offset.
//
// The core is also a memory port (allocators/memory_port.h): the allocator models run on it
// unchanged, so their list walks cost what the walks' memory accesses cost.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "models/unwind.h"

namespace npusim::models {

inline constexpr double DEFAULT_CORE_CLOCK_GHZ = 1.4;      // public Neuron docs: GPSIMD cores
inline constexpr uint64_t DEFAULT_CORE_QUANTUM_CYCLES = 1000;  // assumption
inline constexpr uint32_t DEFAULT_CORE_VECTOR_BYTES = 64;  // 512-bit vector unit
// Energy per cycle: active, Horowitz, "Computing's Energy Problem", ISSCC 2014 (45 nm): about
// 70 pJ per instruction of a simple in-order core, overheads included; idle (clock-gated,
// leakage): an assumption, a tenth of that.
inline constexpr double DEFAULT_CORE_ACTIVE_PJ_PER_CYCLE = 70.0;
inline constexpr double DEFAULT_CORE_IDLE_PJ_PER_CYCLE = 7.0;

struct CoreConfig {
  double clock_ghz = DEFAULT_CORE_CLOCK_GHZ;
  uint64_t quantum_cycles = DEFAULT_CORE_QUANTUM_CYCLES;
  uint32_t vector_bytes = DEFAULT_CORE_VECTOR_BYTES;  // width of one vector access
  bool use_dmi = true;
  // Energy of a cycle the core is busy (computing or waiting for a load or store) and of one
  // it is idle (reports only; no effect on timing).
  double active_pj_per_cycle = DEFAULT_CORE_ACTIVE_PJ_PER_CYCLE;
  double idle_pj_per_cycle = DEFAULT_CORE_IDLE_PJ_PER_CYCLE;
  // Host stack of the core's SystemC thread (0: the SystemC default). Host-compiled kernels
  // with large locals need more.
  size_t host_stack_bytes = 0;
};

// A bus error seen by the core: the interconnect answered an error response.
class BusError : public std::runtime_error {
 public:
  BusError(const std::string& core, bool write, uint64_t addr, size_t len,
           tlm::tlm_response_status status);
  bool write() const { return write_; }
  uint64_t addr() const { return addr_; }
  size_t len() const { return len_; }
  tlm::tlm_response_status status() const { return status_; }

 private:
  bool write_;
  uint64_t addr_;
  size_t len_;
  tlm::tlm_response_status status_;
};

struct CoreStats {
  uint64_t loads = 0, stores = 0;  // word accesses
  uint64_t block_reads = 0, block_writes = 0;
  uint64_t bytes_read = 0, bytes_written = 0;
  uint64_t dmi_accesses = 0, bus_transactions = 0;
  uint64_t compute_cycles = 0;
  sc_core::sc_time memory_time = sc_core::SC_ZERO_TIME;   // waiting for loads and stores
  sc_core::sc_time compute_time = sc_core::SC_ZERO_TIME;
  sc_core::sc_time wait_time = sc_core::SC_ZERO_TIME;     // idle: waiting on events
  sc_core::sc_time start = sc_core::SC_ZERO_TIME, end = sc_core::SC_ZERO_TIME;
};

class Core : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<Core> bus;

  using Program = std::function<void(Core&)>;
  // Called when the program ends, normally or by an exception (then `error` is set).
  using ExitHandler = std::function<void(Core&, std::exception_ptr error)>;

  Core(sc_core::sc_module_name name, const CoreConfig& cfg = {});

  // The firmware this core runs; set before sc_start.
  void set_program(Program program) { program_ = std::move(program); }
  void set_exit_handler(ExitHandler h) { on_exit_ = std::move(h); }

  // --- the memory port ---
  // Outside the running program these go through debug transport: no time, no stats.
  // The DMI hit is inline (the allocators' bookkeeping lives in DMI-granted dataram).
  uint32_t load32(uint64_t addr) {
    uint32_t v;
    ++stats_.loads;
    if (__builtin_expect(dmi_hit(addr, 4, hot_.read), 1)) {
      std::memcpy(&v, hot_.ptr + (addr - hot_.lo), 4);
      dmi_done(hot_.read_units);
    } else {
      access(false, addr, &v, 4);
    }
    return v;
  }
  void store32(uint64_t addr, uint32_t v) {
    ++stats_.stores;
    if (__builtin_expect(dmi_hit(addr, 4, hot_.write), 1)) {
      std::memcpy(hot_.ptr + (addr - hot_.lo), &v, 4);
      dmi_done(hot_.write_units);
    } else {
      access(true, addr, &v, 4);
    }
  }
  void read(uint64_t addr, void* dst, size_t n);    // one access of n bytes
  void write(uint64_t addr, const void* src, size_t n);
  void compute(uint64_t cycles);

  // Word-by-word and vector copies of [addr, addr+n): one access per 4 bytes, or per
  // vector_bytes (the data-transfer backends C_MEMCPY and VEC_MEMCPY).
  void read_words(uint64_t addr, void* dst, size_t n);
  void write_words(uint64_t addr, const void* src, size_t n);
  void read_vectors(uint64_t addr, void* dst, size_t n);
  void write_vectors(uint64_t addr, const void* src, size_t n);

  // Waits for an event (e.g. a DMA completion), counted as idle time.
  void wait_for(const sc_core::sc_event& e);
  // Idles for `t` (counted as idle time).
  void idle(const sc_core::sc_time& t);
  // Called when the core goes idle (false) and busy again (true), with the kernel time.
  void set_activity_hook(std::function<void(bool busy, const sc_core::sc_time&)> h) {
    activity_ = std::move(h);
  }
  // A DMI grant covering [addr, addr + n) with read and write access, for code on this core
  // that dereferences the memory itself (the torch runtime's TCM pointers): the cached grant,
  // or one asked of the target now (through the bus socket). Empty if the target refuses.
  std::optional<tlm::tlm_dmi> direct_memory(uint64_t addr, size_t n);
  // Called with every DMI invalidation the core receives, after its own cache dropped it.
  void set_dmi_invalidation_hook(std::function<void(uint64_t start, uint64_t end)> h) {
    on_invalidate_ = std::move(h);
  }
  // Untimed access for inspection (reports, traces): debug transport, no statistics.
  void peek(uint64_t addr, void* dst, size_t n) { debug_access(false, addr, dst, n); }
  void poke(uint64_t addr, const void* src, size_t n) {
    debug_access(true, addr, const_cast<void*>(src), n);
  }
  // Synchronises the local time offset with the kernel.
  void sync();
  // The core's notion of now: kernel time plus the local offset.
  sc_core::sc_time now() const {
    return sc_core::sc_time_stamp() + sc_core::sc_time::from_value(local_);
  }
  sc_core::sc_time period() const { return period_; }
  uint64_t cycles(const sc_core::sc_time& t) const {
    return static_cast<uint64_t>(t / period_ + 0.5);
  }

  // The core whose thread is running now (nullptr outside core threads), or the core a
  // program runner is making an access for (set_acting): several cores stepped by one thread.
  static Core* current();
  static void set_acting(Core* c) { acting_ = c; }

  const CoreConfig& config() const { return cfg_; }
  const CoreStats& stats() const;
  bool running() const { return running_; }
  bool finished() const { return finished_; }

 private:
  void thread();
  void access(bool write, uint64_t addr, void* data, size_t n);
  void bus_access(bool write, uint64_t addr, void* data, size_t n);
  void debug_access(bool write, uint64_t addr, void* data, size_t n);
  void invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end);
  // Loosely timed: time runs ahead of the kernel in `local_` (in time-resolution units) up to
  // the next quantum boundary, then the core yields (a lighter tlm_quantumkeeper).
  void advance(uint64_t units) {
    local_ += units;
    if (local_ >= budget_) sync();
  }
  bool dmi_hit(uint64_t addr, size_t n, bool allowed) const {
    return running_ && allowed && addr >= hot_.lo && addr + n - 1 <= hot_.hi;
  }
  void dmi_done(uint64_t units) {
    ++stats_.dmi_accesses;
    memory_units_ += units;
    advance(units);
  }
  // The DMI grant used last, unpacked for the hot path.
  struct DmiHot {
    uint64_t lo = 1, hi = 0;  // empty
    unsigned char* ptr = nullptr;
    uint64_t read_units = 0, write_units = 0;
    bool read = false, write = false;
  };
  template <class Fn>
  void chunked(uint64_t addr, size_t n, size_t chunk, Fn&& fn);

  CoreConfig cfg_;
  sc_core::sc_time period_;
  uint64_t quantum_ = 0;  // time-resolution units
  uint64_t local_ = 0, budget_ = 0;
  std::vector<tlm::tlm_dmi> dmi_;
  DmiHot hot_;
  tlm::tlm_generic_payload trans_;
  Program program_;
  ExitHandler on_exit_;
  std::function<void(uint64_t, uint64_t)> on_invalidate_;
  std::function<void(bool, const sc_core::sc_time&)> activity_;
  mutable CoreStats stats_;
  uint64_t memory_units_ = 0, compute_units_ = 0;
  CoroutineStack stack_;  // this thread's stack, for AddressSanitizer (unwind.h)
  bool running_ = false, finished_ = false;
  static inline Core* acting_ = nullptr;
};

}  // namespace npusim::models
