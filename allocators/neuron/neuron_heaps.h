// The Neuron allocator wrappers of allocator.o (libneuroncustomop.a v0.21.2.0): thin
// wrappers around three xmem heaps, reproduced with the firmware's semantics (seed 000 §1,
// §4, §5): align 0 -> 64, status 0 / -1, the HBM host-offset -> 64-bit device address
// translation with carry, *out_ptr written before the status check, 32 descriptors.
//
// The wrapper state (_hbm_scratch_base, _hbm_heap_mgr_base, the three managers) lives in the
// allocator's .bss in device memory, so the translation reads it back from there.
// Pointers are 32-bit device addresses of the management core (uint32_t, never host
// pointers); the firmware shim maps them to void* for custom-op code.
#pragma once

#include <cstdint>

#include "allocators/neuron/neuron_layout.h"
#include "allocators/xmem/xmem_heap.h"

namespace npusim::alloc::neuron {

constexpr uint32_t kDefaultAlign = 64;      // movi a12, 64 / movnez a12, align, align
constexpr uint32_t kLibcDefaultAlign = 64;  // assumption: same pattern as the two wrappers

enum class HeapId { kHbm, kDataram, kLibc };
const char* heap_name(HeapId id);

template <class Port>
class NeuronHeaps {
 public:
  NeuronHeaps(Port& port, const NeuronLayout& layout = {}, xmem::CostModel cost = {})
      : p_(port),
        l_(layout),
        hbm_(port, layout.hbm_mgr(), cost),
        dataram_(port, layout.dataram_mgr(), cost),
        libc_(port, layout.libc_mgr(), cost) {}

  const NeuronLayout& layout() const { return l_; }
  xmem::Heap<Port>& heap(HeapId id) {
    return id == HeapId::kHbm ? hbm_ : id == HeapId::kDataram ? dataram_ : libc_;
  }
  // The xmem status of the most recent wrapper call (the firmware keeps it on the stack).
  int32_t last_xmem_status() const { return last_status_; }

  // init_neuron_hbm_allocator (@0x40): records the 64-bit scratch base and the window's
  // host base in .bss, then xmem_heap_init(&_hbm_heap_mgr, pool, size, 32, header).
  int init_neuron_hbm_allocator() {
    const uint32_t bss = l_.bss();
    p_.store32(bss + NeuronLayout::kBssHbmScratchBase, static_cast<uint32_t>(l_.hbm_scratch));
    p_.store32(bss + NeuronLayout::kBssHbmScratchBase + 4,
               static_cast<uint32_t>(l_.hbm_scratch >> 32));
    p_.store32(bss + NeuronLayout::kBssHbmHeapMgrBase, l_.hbm_window);
    return wrap(hbm_.init(l_.hbm_pool(), l_.hbm_pool_size(), l_.num_blocks, l_.hbm_header()));
  }
  // init_neuron_dataram_allocator (@0x18c): pool 0x4000 at +0x42c, header at +0x3200.
  int init_neuron_dataram_allocator() {
    return wrap(dataram_.init(l_.dataram_pool(), l_.dataram_pool_size, l_.num_blocks,
                              l_.dataram_header()));
  }
  // _init_libc_heap_allocator: the dataram-resident C-runtime arena.
  int init_libc_heap_allocator() {
    return wrap(libc_.init(l_.libc_pool(), l_.libc_pool_size, l_.num_blocks, l_.libc_header()));
  }

  // neuron_hbm_allocate(unsigned, unsigned long long*, unsigned) (@0xb0). On failure
  // *out_addr is not written (the wrapper returns before the stores).
  int neuron_hbm_allocate(uint32_t size, uint64_t* out_addr, uint32_t align) {
    const uint32_t ptr = hbm_.alloc(size, align ? align : kDefaultAlign, &last_status_);
    if (last_status_ != xmem::kOk) return -1;
    *out_addr = hbm_device_address(ptr);
    return 0;
  }
  // neuron_hbm_deallocate (@0x10c). Assumption: takes the 64-bit device address, translates
  // it back to the window pointer and returns 0 / -1 like the allocate.
  int neuron_hbm_deallocate(uint64_t addr) {
    const uint32_t bss = l_.bss();
    const uint64_t base = p_.load32(bss + NeuronLayout::kBssHbmScratchBase) |
                          uint64_t{p_.load32(bss + NeuronLayout::kBssHbmScratchBase + 4)} << 32;
    const uint32_t host = p_.load32(bss + NeuronLayout::kBssHbmHeapMgrBase);
    return wrap(hbm_.free(static_cast<uint32_t>(addr - base) + host));
  }
  // neuron_dataram_allocate(unsigned, void**, unsigned) (@0x1d0): *out_ptr is written with
  // xmem's return value (NULL on failure) before the status is tested.
  int neuron_dataram_allocate(uint32_t size, uint32_t* out_ptr, uint32_t align) {
    *out_ptr = dataram_.alloc(size, align ? align : kDefaultAlign, &last_status_);
    return last_status_ == xmem::kOk ? 0 : -1;
  }
  int neuron_dataram_deallocate(uint32_t ptr) { return wrap(dataram_.free(ptr)); }

  // libc heap. Assumptions (signatures are not in the seed): allocate(size, align) with the
  // wrappers' align-0 -> 64 rule, returning the pointer or 0; deallocate returns 0 / -1;
  // get_alloc_size is the usable size behind the pointer (0 if not allocated);
  // max_free_space is xmem_heap_get_free_space(align 1, MAX).
  uint32_t libc_heap_allocate(uint32_t size, uint32_t align) {
    return libc_.alloc(size, align ? align : kLibcDefaultAlign, &last_status_);
  }
  int libc_heap_deallocate(uint32_t ptr) { return wrap(libc_.free(ptr)); }
  uint32_t libc_heap_get_alloc_size(uint32_t ptr) {
    uint32_t r = 0;
    libc_.walk([&](const xmem::BlockInfo& b) {
      if (!b.free && b.aligned == ptr) r = b.size - (b.aligned - b.buffer);
    });
    return r;
  }
  uint32_t libc_heap_max_free_space() {
    return libc_.get_free_space(1, xmem::FreeSpaceQual::kMax, nullptr, nullptr, &last_status_);
  }

  // The wrapper's translation: hbm_scratch_base + (ptr - _hbm_heap_mgr_base), computed as
  // the firmware does: low word add, carry (saltu) into the high word.
  uint64_t hbm_device_address(uint32_t ptr) {
    const uint32_t bss = l_.bss();
    const uint32_t offset = ptr - p_.load32(bss + NeuronLayout::kBssHbmHeapMgrBase);
    const uint32_t lo0 = p_.load32(bss + NeuronLayout::kBssHbmScratchBase);
    const uint32_t hi0 = p_.load32(bss + NeuronLayout::kBssHbmScratchBase + 4);
    const uint32_t lo = lo0 + offset;
    const uint32_t hi = hi0 + (lo < lo0 ? 1u : 0u);
    return uint64_t{hi} << 32 | lo;
  }

 private:
  int wrap(int32_t status) {
    last_status_ = status;
    return status == xmem::kOk ? 0 : -1;
  }

  Port& p_;
  NeuronLayout l_;
  xmem::Heap<Port> hbm_, dataram_, libc_;
  int32_t last_status_ = 0;
};

}  // namespace npusim::alloc::neuron
