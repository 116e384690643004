// Where the three Neuron heaps and their bookkeeping live. Every number of the default layout
// is here and nowhere else; docs/assumptions.md explains each guess.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace npusim::alloc::neuron {

struct Range {
  std::string name;
  uint64_t base;
  uint64_t size;
  uint64_t end() const { return base + size; }
};

struct NeuronLayout {
  // data_scratch_map: the dataram region descriptor the inits consume (external symbol in
  // allocator.o). Assumption: it is the start of the DMA-visible dataram window 0x80000.
  uint32_t data_scratch = 0x80000;
  uint32_t dataram_size = 0x10000;  // [0x80000, 0x90000): data_transfer.cpp:160 window

  // allocator.o .bss. The offsets inside it are facts (nm -S); its address is an
  // assumption: inside the 0x42c-byte prefix of dataram that precedes the dataram pool.
  uint32_t bss_offset = 0x300;
  static constexpr uint32_t kBssHbmScratchBase = 0x8;   // u64 _hbm_scratch_base
  static constexpr uint32_t kBssHbmHeapMgrBase = 0x10;  // u32 _hbm_heap_mgr_base
  static constexpr uint32_t kBssHbmHeapMgr = 0x14;      // xmem manager, 0x58 bytes
  static constexpr uint32_t kBssDataramHeapMgr = 0x70;  // xmem manager, 0x58 bytes
  static constexpr uint32_t kBssLibcHeapMgr = 0xcc;     // xmem manager, 0x58 bytes
  static constexpr uint32_t kBssSize = 0xcc + 0x58;

  // HBM scratch: a 64-bit device address (extended_isa::sdk::hbm_scratch) seen by the
  // management core through a 32-bit window whose base is the host base stored in
  // _hbm_heap_mgr_base (the `-1 << 31` = 0x80000000 immediate of init_neuron_hbm_allocator).
  uint64_t hbm_scratch = 0x1'0000'0000ull;  // assumption
  uint32_t hbm_scratch_size = 64u << 20;     // assumption: 64 MiB
  uint32_t hbm_window = 0x80000000u;         // fact: the immediate stored to .bss+0x10
  uint32_t hbm_pool_offset = 0x228;          // fact: pool = scratch + 0x228
  uint32_t hbm_header_offset = 0x0;          // assumption: HBM heap header at dataram + 0

  // Dataram heap (facts: pool 0x4000 at +0x42c, header at +0x3200 -- inside the pool).
  uint32_t dataram_pool_offset = 0x42c;
  uint32_t dataram_pool_size = 0x4000;
  uint32_t dataram_header_offset = 0x3200;

  // libc heap (assumption: 32 KiB after the dataram pool, header right behind it).
  uint32_t libc_pool_offset = 0x4500;
  uint32_t libc_pool_size = 0x8000;
  uint32_t libc_header_offset = 0xc500;

  uint32_t num_blocks = 32;  // fact: movi a13, 32 in every init

  // Derived addresses (device addresses in the management core's 32-bit space).
  uint32_t bss() const { return data_scratch + bss_offset; }
  uint32_t hbm_mgr() const { return bss() + kBssHbmHeapMgr; }
  uint32_t dataram_mgr() const { return bss() + kBssDataramHeapMgr; }
  uint32_t libc_mgr() const { return bss() + kBssLibcHeapMgr; }
  uint32_t hbm_pool() const { return hbm_window + hbm_pool_offset; }
  uint32_t hbm_pool_size() const { return hbm_scratch_size - hbm_pool_offset; }
  uint32_t hbm_header() const { return data_scratch + hbm_header_offset; }
  uint32_t dataram_pool() const { return data_scratch + dataram_pool_offset; }
  uint32_t dataram_header() const { return data_scratch + dataram_header_offset; }
  uint32_t libc_pool() const { return data_scratch + libc_pool_offset; }
  uint32_t libc_header() const { return data_scratch + libc_header_offset; }

  // Every object the heaps place in memory, named.
  std::vector<Range> ranges() const;
};

// Memory-map lint: every overlap between pools, headers and managers, and every dataram
// object outside dataram, one plain sentence each. The default layout yields exactly one
// warning: the dataram heap header lies inside the dataram pool (documented offsets).
std::vector<std::string> lint_layout(const NeuronLayout& layout);

// Named dataram layouts (`heaps.layout` of the profile): "seed" is the documented
// one above (the default), whose dataram heap header lies inside the pool, so only three 4 KiB
// stream buffers fit; "guides" moves the 16 KiB pool to a 64-byte boundary (+0x440) and the
// header behind it (+0x4440), the libc pool after that, so four fit as the public guides say.
// apply_named_layout returns false for an unknown name and leaves `l` alone.
bool apply_named_layout(NeuronLayout& l, const std::string& name);
// The name of the dataram layout of `l`: "seed", "guides", or "custom".
std::string layout_name(const NeuronLayout& l);
}  // namespace npusim::alloc::neuron
namespace npusim::alloc {
class HostMemory;
}
namespace npusim::alloc::neuron {
// Backs a host port with the layout's memories: dataram and the HBM scratch window.
void map_regions(HostMemory& mem, const NeuronLayout& layout);

}  // namespace npusim::alloc::neuron
