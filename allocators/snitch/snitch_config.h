// The Snitch cluster platform as the alloc_v2 allocator sees it: core counts, the TCDM and its
// top-of-memory reservations (CLS, per-core stacks and TLS), the L3 window, the cluster
// offset. Every default lives here, once; a guess carries the word *assumption* and is listed
// in docs/assumptions-snitch.md ("Snitch").
//
// Where the allocator state lives: alloc_v2 keeps `l1_allocator_v2` and `l3_allocator_v2` as
// `__thread` variables, so every core has its own copy in its own TLS block. The runtime's
// start-up code (start.S: init_cls, init_stack, init_tls) places the TLS block of core i just
// below that core's stack top:
//   stack_top(i) = cls_base - 8 - i * (stack_size + 8)     (8 B main return value; stacks
//                                                            misaligned by 8 B per hart)
//   tls_base(i)  = align_down(stack_top(i) - tls_size, 8)
// The allocator structs sit at fixed offsets inside that block (assumption: l1 first, then l3).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace npusim::alloc::snitch {

// MIN_CHUNK_SIZE (alloc.h): the init functions align the heap base up to it.
constexpr uint32_t kMinChunkSize = 8;
// The safety margin snrt_l1_init leaves below the stacks (alloc_v2.h).
constexpr uint32_t kL1SafetyMargin = 128;
// sizeof(snrt_allocator_t) with 64-bit base, end, next (current runtime versions).
constexpr uint32_t kStateBytes = 24;
// Field offsets inside snrt_allocator_t; each field is two little-endian 32-bit words.
namespace state {
constexpr uint32_t kBase = 0;
constexpr uint32_t kEnd = 8;
constexpr uint32_t kNext = 16;
}  // namespace state

struct SnitchConfig {
  // Named defaults. Facts unless marked as an assumption.
  static constexpr uint32_t kDefaultComputeCores = 8;  // compute cores per cluster
  static constexpr uint32_t kDefaultDmCores = 1;       // the DM core, index compute_cores
  static constexpr uint64_t kDefaultTcdmStart = 0x1000'0000;
  static constexpr uint64_t kDefaultTcdmSize = 128 * 1024;
  // Assumption: .cdata + .cbss of a typical kernel (cls_t plus a few cluster globals).
  static constexpr uint64_t kDefaultClsSize = 64;
  static constexpr uint32_t kDefaultLog2StackSize = 10;  // SNRT_LOG2_STACK_SIZE: 1 KiB
  // Assumption: .tdata + .tbss of a typical kernel; it must hold both allocator structs.
  static constexpr uint64_t kDefaultTlsSize = 64;
  static constexpr uint64_t kDefaultL1StateOffset = 0;   // assumption: first __thread variable
  static constexpr uint64_t kDefaultL3StateOffset = 24;  // assumption: right after l1's struct
  static constexpr uint64_t kDefaultL3Start = 0x8000'0000;
  static constexpr uint64_t kDefaultL3End = 0x1'0000'0000;  // SNRT_L3_END_ADDR
  // Assumption: _edram (end of the DRAM sections) after a 1 MiB program image + data.
  static constexpr uint64_t kDefaultEdram = 0x8010'0000;
  // Assumption: SNRT_CLUSTER_OFFSET, the distance between two clusters' TCDMs.
  static constexpr uint64_t kDefaultClusterOffset = 0x4'0000;
  static constexpr uint32_t kDefaultClusterIdx = 0;
  // The runtime's start-up allocates a 4-byte barrier counter with
  // snrt_l1_alloc_cluster_local before main: user allocations start at base + 4.
  static constexpr uint32_t kDefaultStartupL1Bytes = 4;

  uint32_t compute_cores = kDefaultComputeCores;
  uint32_t dm_cores = kDefaultDmCores;
  uint64_t tcdm_start = kDefaultTcdmStart;  // cluster 0's TCDM
  uint64_t tcdm_size = kDefaultTcdmSize;
  uint64_t cls_size = kDefaultClsSize;
  uint32_t log2_stack_size = kDefaultLog2StackSize;
  uint64_t tls_size = kDefaultTlsSize;
  uint64_t l1_state_offset = kDefaultL1StateOffset;
  uint64_t l3_state_offset = kDefaultL3StateOffset;
  uint64_t l3_start = kDefaultL3Start;
  uint64_t l3_end = kDefaultL3End;
  uint64_t edram = kDefaultEdram;
  uint64_t cluster_offset = kDefaultClusterOffset;
  uint32_t cluster_idx = kDefaultClusterIdx;
  uint32_t startup_l1_bytes = kDefaultStartupL1Bytes;

  // snrt_cluster_core_num(): compute cores plus DM cores.
  uint32_t core_num() const { return compute_cores + dm_cores; }
  uint64_t stack_size() const { return uint64_t{1} << log2_stack_size; }
  // This cluster's TCDM (snrt_cluster()->tcdm.mem) and its end.
  uint64_t tcdm_base() const { return tcdm_start + uint64_t{cluster_idx} * cluster_offset; }
  uint64_t tcdm_end() const { return tcdm_base() + tcdm_size; }
  // snrt_cls_base_addr(): the CLS occupies the top of the TCDM.
  uint64_t cls_base() const { return tcdm_end() - cls_size; }
  uint64_t stack_top(uint32_t core_idx) const {
    return cls_base() - 8 - uint64_t{core_idx} * (stack_size() + 8);
  }
  uint64_t tls_base(uint32_t core_idx) const {
    return (stack_top(core_idx) - tls_size) & ~uint64_t{7};
  }
  uint64_t l1_state_addr(uint32_t core_idx) const { return tls_base(core_idx) + l1_state_offset; }
  uint64_t l3_state_addr(uint32_t core_idx) const { return tls_base(core_idx) + l3_state_offset; }

  // Throws std::invalid_argument naming the first field that makes no platform.
  void validate() const {
    auto fail = [](const std::string& why) {
      throw std::invalid_argument("snitch config: " + why);
    };
    if (compute_cores == 0) fail("compute_cores must be at least 1");
    if (dm_cores == 0) fail("dm_cores must be at least 1");
    if (log2_stack_size > 24) fail("log2_stack_size must be at most 24");
    if (tcdm_size == 0) fail("tcdm_size must be positive");
    if (tls_size < kStateBytes || l1_state_offset + kStateBytes > tls_size ||
        l3_state_offset + kStateBytes > tls_size)
      fail("both allocator structs (24 B each) must fit in tls_size");
    if (tls_size >= stack_size()) fail("tls_size must be smaller than a stack");
    if (l1_state_offset < l3_state_offset ? l1_state_offset + kStateBytes > l3_state_offset
                                          : l3_state_offset + kStateBytes > l1_state_offset)
      fail("l1_state_offset and l3_state_offset overlap");
    if (tcdm_end() > 0x1'0000'0000ull) fail("the TCDM must lie in the 32-bit address space");
    // Everything reserved at the top: CLS, 8 B, per-core stacks misaligned by 8 B, margin.
    const uint64_t reserved =
        cls_size + 8 + uint64_t{core_num()} * (stack_size() + 8) + kL1SafetyMargin;
    if (reserved >= tcdm_size)
      fail("CLS, stacks and the 128 B margin do not fit in the TCDM (" + std::to_string(reserved) +
           " >= " + std::to_string(tcdm_size) + " bytes)");
    if (edram > 0xffff'ffffull) fail("edram (_edram) must be a 32-bit address");
  }
};

}  // namespace npusim::alloc::snitch
