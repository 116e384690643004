// alloc_v2: the Snitch runtime's per-core bump allocators for L1 (TCDM) and L3, computed
// exactly as npusim's C++ model (allocators/snitch/alloc_v2.h, docs/snitch-allocator.md) so that
// the same calls give the same addresses on every core: uintptr_t and size_t are 32 bits, the
// allocator fields 64 bits; align_up divides; the bounds check runs after `next` advanced and
// executes `ecall` (L1: next > end; L3: next >= end).
//
// The state is thread-local, in sections the link script puts first in the TLS template:
// l1_allocator_v2 at TLS offset 0, l3_allocator_v2 at offset 24 (crt0 points tp at each
// core's TLS block).
#include "snrt.h"

__attribute__((section(".tdata.npusim_alloc_v2.0"), aligned(8))) __thread snrt_allocator_t
    l1_allocator_v2 = {0, 0, 0};
__attribute__((section(".tdata.npusim_alloc_v2.1"), aligned(8))) __thread snrt_allocator_t
    l3_allocator_v2 = {0, 0, 0};

static inline uint32_t align_up(uint32_t addr, uint32_t alignment) {
  return (addr + alignment - 1u) / alignment * alignment;
}

void snrt_l1_init(void) {
  uint32_t heap_end = snrt_cls_base_addr();
  heap_end -= (uint32_t)(1u << SNRT_LOG2_STACK_SIZE) * snrt_cluster_core_num();
  heap_end -= 128;  // safety margin below the stacks
  const uint32_t base = align_up(snrt_l1_start_addr(), MIN_CHUNK_SIZE);
  l1_allocator_v2.base = base;
  l1_allocator_v2.end = heap_end;
  l1_allocator_v2.next = base;
}

void snrt_l3_init(void) {
  const uint32_t base = align_up((uint32_t)(uintptr_t)&_edram, MIN_CHUNK_SIZE);
  l3_allocator_v2.base = base;
  l3_allocator_v2.end = (uint64_t)SNRT_L3_END_ADDR;
  l3_allocator_v2.next = base;
}

// The function names are the runtime's: a trap's PC lies in the function that executed the
// `ecall`, which the simulator reports by its symbol.
void *(snrt_l1_alloc_cluster_local)(size_t size, size_t alignment) {
  snrt_allocator_t *a = &l1_allocator_v2;
  const uint32_t aligned = align_up((uint32_t)a->next, alignment);
  a->next = (uint64_t)aligned + size;
  if (a->next > a->end) __asm__ volatile("ecall");
  return (void *)(uintptr_t)aligned;
}

void *(snrt_l1_alloc_compute_core_local)(size_t size, size_t alignment) {
  snrt_allocator_t *a = &l1_allocator_v2;
  const uint32_t aligned = align_up((uint32_t)a->next, alignment);
  void *ret = (void *)(uintptr_t)(aligned + (uint32_t)size * snrt_cluster_core_idx());
  a->next = (uint64_t)aligned + (uint32_t)size * snrt_cluster_compute_core_num();
  if (a->next > a->end) __asm__ volatile("ecall");
  return ret;
}

void *(snrt_l3_alloc_v2)(size_t size, size_t alignment) {
  snrt_allocator_t *a = &l3_allocator_v2;
  const uint32_t aligned = align_up((uint32_t)a->next, alignment);
  a->next = (uint64_t)aligned + size;
  if (a->next >= a->end) __asm__ volatile("ecall");
  return (void *)(uintptr_t)aligned;
}
