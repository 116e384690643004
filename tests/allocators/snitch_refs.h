// The Snitch tests' references: the document's formulas written independently of the model
// (seed 003), and a fixture with one cluster's TCDM in host memory. Shared by the alloc_v2
// tests (tests/allocators/test_snitch*.cpp) and the replay's (tests/sim/tools/).
#pragma once

#include <cstdint>

#include "allocators/memory_port.h"
#include "allocators/snitch/alloc_v2.h"

namespace snitch_refs {

using namespace npusim::alloc;
using namespace npusim::alloc::snitch;

constexpr uint64_t kTcdm = 0x1000'0000, kTcdmSize = 128 * 1024;
constexpr uint64_t kTwo32 = 0x1'0000'0000ull;

// The smallest multiple of a that is >= x: the meaning of align_up, written without the
// division formula.
inline uint64_t ref_align(uint64_t x, uint64_t a) {
  return x % a == 0 ? x : x + (a - x % a);
}

// snrt_l1_init's end for a config, from the document: CLS base - 2^LOG2 * cores - 128, where
// the CLS is the top cls_size bytes of the TCDM.
inline uint64_t ref_l1_end(const SnitchConfig& c) {
  return (c.tcdm_start + c.tcdm_size - c.cls_size) -
         (uint64_t{1} << c.log2_stack_size) * (c.compute_cores + 1) - 128;
}

struct Fx {
  SnitchConfig cfg;
  HostMemory mem;
  explicit Fx(SnitchConfig c = {}) : cfg(c) {
    mem.add_region("tcdm", cfg.tcdm_base(), cfg.tcdm_size);
  }
  CoreAllocator<HostMemory> core(uint32_t idx, TrapPolicy p = TrapPolicy::kStop) {
    return CoreAllocator<HostMemory>(mem, cfg, idx, p);
  }
  uint64_t word64(uint64_t a) {
    return uint64_t{mem.load32(a)} | uint64_t{mem.load32(a + 4)} << 32;
  }
};

}  // namespace snitch_refs
