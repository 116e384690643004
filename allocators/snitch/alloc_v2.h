// The Snitch runtime's bump allocator (snRuntime alloc_v2.h), modelled exactly: L1
// cluster-local and compute-core-local allocation, L3 allocation, the init bounds, the
// bounds checks that `ecall` when an allocation overruns, and the pointer arithmetic between
// cores and clusters. Source: seed document 003 (alloc_v2.h reference) and the runtime facts
// listed in the Snitch issue; docs/snitch-allocator.md describes the model.
//
// State: each core owns a `snrt_allocator_t {uint64_t base, end, next}` per level in its TLS
// (`__thread`), so every core must make the same calls to stay in step. The model keeps that
// state in device memory through the port, at the address SnitchConfig gives for the core;
// each 64-bit field is two little-endian 32-bit words.
//
// Arithmetic, as compiled for the RV32 Snitch core: uintptr_t and size_t are 32 bits, the
// allocator fields 64 bits. So align_up and every pointer computation wrap modulo 2^32
// (align_up sees the low 32 bits of next), while `next += size` is a 64-bit add that can go
// past 2^32 (which is how an L3 allocation reaching SNRT_L3_END_ADDR = 2^32 traps).
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "allocators/memory_port.h"
#include "allocators/snitch/snitch_config.h"

namespace npusim::alloc::snitch {

// The firmware call a result or a trap belongs to.
enum class Call { kL1ClusterLocal, kL1ComputeCoreLocal, kL3Alloc };

inline const char* call_name(Call c) {
  switch (c) {
    case Call::kL1ClusterLocal:
      return "snrt_l1_alloc_cluster_local";
    case Call::kL1ComputeCoreLocal:
      return "snrt_l1_alloc_compute_core_local";
    case Call::kL3Alloc:
      return "snrt_l3_alloc_v2";
  }
  return "?";
}

// What snrt_l1_alloc_check_bounds / snrt_l3_alloc_check_bounds saw when they executed
// `ecall`. `next` has already advanced: the device state is left exactly so.
struct TrapInfo {
  Call call;
  uint32_t core_idx;
  uint32_t size;       // the size argument
  uint32_t alignment;  // the alignment argument
  uint32_t addr;       // the pointer the call would have returned
  uint64_t next;       // next after the advance
  uint64_t end;
  uint64_t past_end;  // next - end: > 0 for L1; >= 0 for L3 (an exact fit traps with 0)
};

// What to do at the `ecall`: stop (throw AllocTrap, as the firmware would stop in its trap
// handler) or record it in the result and in traps() and go on.
enum class TrapPolicy { kStop, kRecord };

class AllocTrap : public std::runtime_error {
 public:
  explicit AllocTrap(const TrapInfo& t)
      : std::runtime_error(std::string(call_name(t.call)) + " on core " +
                           std::to_string(t.core_idx) + ": ecall, next " + hex(t.next) +
                           (t.call == Call::kL3Alloc ? " >= end " : " > end ") + hex(t.end) +
                           " (size " + std::to_string(t.size) + ", " + std::to_string(t.past_end) +
                           " bytes past end)"),
        info_(t) {}
  const TrapInfo& info() const { return info_; }

 private:
  TrapInfo info_;
};

// align_up with alignment 0 divides by zero on the device (undefined in C; RISC-V divu would
// give all ones and next would become 0). The model refuses before touching any state.
class ZeroAlignment : public std::invalid_argument {
 public:
  explicit ZeroAlignment(Call c)
      : std::invalid_argument(std::string(call_name(c)) +
                              ": alignment 0 divides by zero in snrt_align_up"),
        call_(c) {}
  Call call() const { return call_; }

 private:
  Call call_;
};

struct AllocResult {
  uint32_t addr = 0;       // the returned pointer (32-bit device address)
  uint64_t next = 0;       // the allocator's next after the call
  bool trapped = false;    // the bounds check executed `ecall` (TrapPolicy::kRecord)
  bool undefined = false;  // compute-core-local on the DM core: the documented result is undefined
  std::optional<TrapInfo> trap;
};

// One snrt_allocator_t as stored in device memory.
struct AllocatorState {
  uint64_t base = 0, end = 0, next = 0;
};

// snrt_align_up(addr, size) = ((addr + size - 1) / size) * size in uintptr_t (u32) arithmetic:
// a division, so any non-zero alignment works, powers of two or not.
inline uint32_t align_up(uint32_t addr, uint32_t alignment, Call call = Call::kL1ClusterLocal) {
  if (alignment == 0) throw ZeroAlignment(call);
  return static_cast<uint32_t>((addr + alignment - 1u) / alignment * alignment);
}

// snrt_compute_core_local_ptr: ptr + (core_idx - my_core_idx) * size, all u32, so a lower
// core index is a wrapped (negative) offset.
inline uint32_t compute_core_local_ptr(uint32_t ptr, uint32_t core_idx, uint32_t my_core_idx,
                                       uint32_t size) {
  const uint32_t offset = (core_idx - my_core_idx) * size;
  return ptr + offset;
}

// snrt_remote_l1_ptr: ptr + (dst - src) * SNRT_CLUSTER_OFFSET, all u32.
inline uint32_t remote_l1_ptr(uint32_t ptr, uint32_t src_cluster_idx, uint32_t dst_cluster_idx,
                              uint64_t cluster_offset) {
  return ptr + (dst_cluster_idx - src_cluster_idx) * static_cast<uint32_t>(cluster_offset);
}

// snrt_l1_init's heap end, in its uint32_t arithmetic: the top of the TCDM holds the CLS and
// one stack per core (DM core included), and a 128 B safety margin is left below them.
inline uint32_t l1_heap_end(const SnitchConfig& cfg) {
  uint32_t heap_end = static_cast<uint32_t>(cfg.cls_base());
  heap_end -= static_cast<uint32_t>(cfg.stack_size()) * cfg.core_num();
  heap_end -= kL1SafetyMargin;
  return heap_end;
}

// Compute cycles charged to the port for work that is not a memory access (the state
// accesses are charged by the port). Assumption (docs/assumptions-snitch.md): a handful of
// ALU/branch cycles per call plus an iterative divider for align_up's division.
struct CostModel {
  uint64_t call_cycles = 8;     // call, multiply/add, 64-bit compare, branch, return
  uint64_t divide_cycles = 32;  // divu in snrt_align_up
};

// The alloc_v2 allocators of one core. Not copyable state: everything lives in device memory.
template <class Port>
class CoreAllocator {
 public:
  CoreAllocator(Port& port, const SnitchConfig& cfg, uint32_t core_idx,
                TrapPolicy policy = TrapPolicy::kStop, CostModel cost = {})
      : p_(port),
        cfg_(cfg),
        core_(core_idx),
        l1_(cfg.l1_state_addr(core_idx)),
        l3_(cfg.l3_state_addr(core_idx)),
        policy_(policy),
        cost_(cost) {
    cfg_.validate();
    if (core_idx >= cfg_.core_num())
      throw std::invalid_argument("snitch: core_idx " + std::to_string(core_idx) +
                                  " is not a core of a " + std::to_string(cfg_.core_num()) +
                                  "-core cluster");
  }

  uint32_t core_idx() const { return core_; }
  bool is_dm_core() const { return core_ >= cfg_.compute_cores; }
  const SnitchConfig& config() const { return cfg_; }
  uint64_t l1_state_addr() const { return l1_; }
  uint64_t l3_state_addr() const { return l3_; }
  TrapPolicy policy() const { return policy_; }
  void set_policy(TrapPolicy p) { policy_ = p; }

  // snrt_l1_init: end = cls_base - stack_size * core_num - 128 (u32), base =
  // align_up(tcdm start, MIN_CHUNK_SIZE), next = base.
  void l1_init() { l1_init_at(static_cast<uint32_t>(cfg_.tcdm_base()), l1_heap_end(cfg_)); }
  // snrt_l1_init with the start address and heap end given (replay overrides).
  void l1_init_at(uint32_t l1_start, uint64_t heap_end) {
    p_.compute(cost_.call_cycles + cost_.divide_cycles);
    const uint32_t base = align_up(l1_start, kMinChunkSize);
    store_state(l1_, AllocatorState{base, heap_end, base});
  }

  // snrt_l3_init: base = align_up(&_edram, MIN_CHUNK_SIZE), end = SNRT_L3_END_ADDR.
  void l3_init() { l3_init_at(static_cast<uint32_t>(cfg_.edram), cfg_.l3_end); }
  void l3_init_at(uint32_t edram, uint64_t end) {
    p_.compute(cost_.call_cycles + cost_.divide_cycles);
    const uint32_t base = align_up(edram, kMinChunkSize, Call::kL3Alloc);
    store_state(l3_, AllocatorState{base, end, base});
  }

  // What the runtime does before main on every core: both inits, then its own first L1
  // allocation (the barrier counter, SnitchConfig::startup_l1_bytes, alignment 1).
  void start_up() {
    l1_init();
    l3_init();
    if (cfg_.startup_l1_bytes != 0) l1_alloc_cluster_local(cfg_.startup_l1_bytes, 1);
  }

  // snrt_l1_alloc_cluster_local.
  AllocResult l1_alloc_cluster_local(uint32_t size, uint32_t alignment = 1) {
    return bump(Call::kL1ClusterLocal, l1_, size, alignment, 0, size);
  }

  // snrt_l1_alloc_compute_core_local: one block of size * compute_cores bytes; this core's
  // variable at offset size * core_idx. On the DM core (core_idx >= compute cores) the
  // result is undefined: the model returns the formula's value and sets `undefined`.
  AllocResult l1_alloc_compute_core_local(uint32_t size, uint32_t alignment = 1) {
    AllocResult r = bump(Call::kL1ComputeCoreLocal, l1_, size, alignment, size * core_,
                         size * cfg_.compute_cores);
    r.undefined = is_dm_core();
    return r;
  }

  // snrt_l3_alloc_v2.
  AllocResult l3_alloc(uint32_t size, uint32_t alignment = 1) {
    return bump(Call::kL3Alloc, l3_, size, alignment, 0, size);
  }

  // snrt_l1_update_next_v2: next = (uint32_t)ptr. No bounds check.
  void l1_update_next(uint32_t ptr) {
    p_.compute(cost_.call_cycles);
    store64(l1_ + state::kNext, ptr);
  }

  // snrt_l1_next_v2 / snrt_l3_next_v2: (void*)next, i.e. its low 32 bits.
  uint32_t l1_next() { return static_cast<uint32_t>(load64(l1_ + state::kNext)); }
  uint32_t l3_next() { return static_cast<uint32_t>(load64(l3_ + state::kNext)); }

  // The full 64-bit structs, as stored.
  AllocatorState l1_state() { return load_state(l1_); }
  AllocatorState l3_state() { return load_state(l3_); }

  // snrt_compute_core_local_ptr, called on this core.
  uint32_t compute_core_local_ptr(uint32_t ptr, uint32_t core_idx, uint32_t size) const {
    return snitch::compute_core_local_ptr(ptr, core_idx, core_, size);
  }
  // snrt_remote_l1_ptr with this platform's cluster offset.
  uint32_t remote_l1_ptr(uint32_t ptr, uint32_t src_cluster_idx, uint32_t dst_cluster_idx) const {
    return snitch::remote_l1_ptr(ptr, src_cluster_idx, dst_cluster_idx, cfg_.cluster_offset);
  }

  // Every trap seen by this model object (both policies), in order.
  const std::vector<TrapInfo>& traps() const { return traps_; }

  // Consistency of one level's state: an empty result means well formed. A bump allocator
  // has no list to walk; what can go wrong is its three fields. After a trap, next beyond
  // end is the documented device state and is reported as such.
  std::vector<std::string> check_l1() { return check(load_state(l1_), false, "l1"); }
  std::vector<std::string> check_l3() { return check(load_state(l3_), true, "l3"); }

 private:
  // The common body of the three allocation calls: align next (u32), return next + offset
  // (u32 pointer arithmetic), advance next by `advance` (64-bit add), check bounds.
  AllocResult bump(Call call, uint64_t st, uint32_t size, uint32_t alignment, uint32_t offset,
                   uint32_t advance) {
    if (alignment == 0) throw ZeroAlignment(call);
    p_.compute(cost_.call_cycles + cost_.divide_cycles);
    const uint64_t old_next = load64(st + state::kNext);
    const uint32_t aligned = align_up(static_cast<uint32_t>(old_next), alignment, call);
    AllocResult r;
    r.addr = aligned + offset;
    r.next = uint64_t{aligned} + advance;
    store64(st + state::kNext, r.next);
    const uint64_t end = load64(st + state::kEnd);
    const bool l3 = call == Call::kL3Alloc;
    // L1 traps when next > end (an allocation ending exactly at end fits); L3 when
    // next >= end (an exact fit traps).
    if (l3 ? r.next >= end : r.next > end) {
      TrapInfo t{call, core_, size, alignment, r.addr, r.next, end, r.next - end};
      traps_.push_back(t);
      if (policy_ == TrapPolicy::kStop) throw AllocTrap(t);
      r.trapped = true;
      r.trap = t;
    }
    return r;
  }

  std::vector<std::string> check(const AllocatorState& s, bool l3, const char* level) {
    std::vector<std::string> errs;
    const std::string tag = std::string(level) + " allocator of core " + std::to_string(core_);
    if (s.base % kMinChunkSize != 0)
      errs.push_back(tag + ": base " + hex(s.base) + " not aligned to MIN_CHUNK_SIZE");
    if (s.base > s.end) errs.push_back(tag + ": base " + hex(s.base) + " above end " + hex(s.end));
    if (s.next < s.base)
      errs.push_back(tag + ": next " + hex(s.next) + " below base " + hex(s.base) +
                     " (rewound too far with update_next?)");
    if (l3 ? s.next >= s.end : s.next > s.end)
      errs.push_back(tag + ": next " + hex(s.next) + " past end " + hex(s.end) +
                     (traps_.empty() ? "" : " (state left by a trapped allocation)"));
    return errs;
  }

  uint64_t load64(uint64_t a) {
    const uint64_t lo = p_.load32(a), hi = p_.load32(a + 4);
    return lo | (hi << 32);
  }
  void store64(uint64_t a, uint64_t v) {
    p_.store32(a, static_cast<uint32_t>(v));
    p_.store32(a + 4, static_cast<uint32_t>(v >> 32));
  }
  AllocatorState load_state(uint64_t a) {
    return AllocatorState{load64(a + state::kBase), load64(a + state::kEnd),
                          load64(a + state::kNext)};
  }
  void store_state(uint64_t a, const AllocatorState& s) {
    store64(a + state::kBase, s.base);
    store64(a + state::kEnd, s.end);
    store64(a + state::kNext, s.next);
  }

  Port& p_;
  SnitchConfig cfg_;
  uint32_t core_;
  uint64_t l1_, l3_;
  TrapPolicy policy_;
  CostModel cost_;
  std::vector<TrapInfo> traps_;
};

// All cores of one cluster making the same calls, as the runtime requires ("every core must
// make the same calls to stay in step"). Results are per core, in core order.
template <class Port>
class Cluster {
 public:
  Cluster(Port& port, const SnitchConfig& cfg, TrapPolicy policy = TrapPolicy::kStop,
          CostModel cost = {}) {
    cfg.validate();
    cores_.reserve(cfg.core_num());
    for (uint32_t i = 0; i < cfg.core_num(); ++i) cores_.emplace_back(port, cfg, i, policy, cost);
  }
  size_t size() const { return cores_.size(); }
  CoreAllocator<Port>& core(uint32_t i) { return cores_.at(i); }

  void start_up() {
    for (auto& c : cores_) c.start_up();
  }
  std::vector<AllocResult> l1_alloc_cluster_local(uint32_t size, uint32_t alignment = 1) {
    return each([&](CoreAllocator<Port>& c) { return c.l1_alloc_cluster_local(size, alignment); });
  }
  std::vector<AllocResult> l1_alloc_compute_core_local(uint32_t size, uint32_t alignment = 1) {
    return each(
        [&](CoreAllocator<Port>& c) { return c.l1_alloc_compute_core_local(size, alignment); });
  }
  std::vector<AllocResult> l3_alloc(uint32_t size, uint32_t alignment = 1) {
    return each([&](CoreAllocator<Port>& c) { return c.l3_alloc(size, alignment); });
  }
  void l1_update_next(uint32_t ptr) {
    for (auto& c : cores_) c.l1_update_next(ptr);
  }

  // Empty when every core's L1 and L3 state equals core 0's (the cores are in step).
  std::vector<std::string> check_in_step() {
    std::vector<std::string> errs;
    const AllocatorState l1 = cores_.front().l1_state(), l3 = cores_.front().l3_state();
    for (auto& c : cores_) {
      auto cmp = [&](const AllocatorState& a, const AllocatorState& b, const char* level) {
        if (a.base != b.base || a.end != b.end || a.next != b.next)
          errs.push_back(std::string(level) + " state of core " + std::to_string(c.core_idx()) +
                         " {" + hex(a.base) + ", " + hex(a.end) + ", " + hex(a.next) +
                         "} differs from core 0's {" + hex(b.base) + ", " + hex(b.end) + ", " +
                         hex(b.next) + "}");
      };
      cmp(c.l1_state(), l1, "l1");
      cmp(c.l3_state(), l3, "l3");
    }
    return errs;
  }

 private:
  template <class F>
  std::vector<AllocResult> each(F&& f) {
    std::vector<AllocResult> v;
    v.reserve(cores_.size());
    for (auto& c : cores_) v.push_back(f(c));
    return v;
  }
  std::vector<CoreAllocator<Port>> cores_;
};

}  // namespace npusim::alloc::snitch

#include "allocators/snitch/snitch_check.h"
