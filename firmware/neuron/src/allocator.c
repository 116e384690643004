// The allocator wrappers of the Neuron device library (allocator.o), with the device's
// semantics: align 0 -> 64, status 0 / -1, 32 descriptors per heap, the HBM pointer ->
// 64-bit device address translation with carry, *out_ptr written before the status test.
// Their state is one object in section .allocator_bss, which the link script places at
// NPUSIM_DATA_SCRATCH + NPUSIM_BSS_OFFSET with the device's offsets (the simulator reads the
// heaps there).
#include "allocator.h"

#include "neuron_internal.h"
#include "xmem_mgr.h"

#define DEFAULT_ALIGN 64u

// allocator.o's .bss.
typedef struct {
  uint32_t _reserved[2];                  // +0x00
  uint32_t _hbm_scratch_base[2];          // +0x08 u64 HBM device address (low word first)
  uint32_t _hbm_heap_mgr_base;            // +0x10 the core's window onto HBM scratch
  xmem_heap_mgr_t _hbm_heap_mgr;          // +0x14
  uint32_t _gap0;                         // +0x6c (nm -S: the next object starts at 0x70)
  xmem_heap_mgr_t _dataram_heap_mgr;      // +0x70
  uint32_t _gap1;                         // +0xc8
  xmem_heap_mgr_t _dataram_libc_heap_mgr; // +0xcc
} allocator_bss_t;

XMEM_STATIC_ASSERT(offsetof(allocator_bss_t, _hbm_scratch_base) == 0x8, "_hbm_scratch_base @0x8");
XMEM_STATIC_ASSERT(offsetof(allocator_bss_t, _hbm_heap_mgr_base) == 0x10, "_hbm_heap_mgr_base @0x10");
XMEM_STATIC_ASSERT(offsetof(allocator_bss_t, _hbm_heap_mgr) == 0x14, "_hbm_heap_mgr @0x14");
XMEM_STATIC_ASSERT(offsetof(allocator_bss_t, _dataram_heap_mgr) == 0x70, "_dataram_heap_mgr @0x70");
XMEM_STATIC_ASSERT(offsetof(allocator_bss_t, _dataram_libc_heap_mgr) == 0xcc, "_dataram_libc_heap_mgr @0xcc");
XMEM_STATIC_ASSERT(sizeof(allocator_bss_t) == 0x124, "allocator.o's .bss is 0x124 bytes");

__attribute__((section(".allocator_bss"), used)) allocator_bss_t __neuron_allocator_bss;
#define S __neuron_allocator_bss

static xmem_status_t last_status;
static int libc_initialised;

#define PTR(a) ((void *)(uintptr_t)(a))

static int wrap(xmem_status_t st) {
  last_status = st;
  return st == XMEM_OK ? 0 : -1;
}

xmem_status_t neuron_last_xmem_status(void) { return last_status; }

int init_neuron_hbm_allocator(void) {
  const unsigned long long scratch = NPUSIM_HBM_SCRATCH;
  S._hbm_scratch_base[0] = (uint32_t)scratch;
  S._hbm_scratch_base[1] = (uint32_t)(scratch >> 32);
  S._hbm_heap_mgr_base = NPUSIM_HBM_WINDOW;
  return wrap(xmem_heap_init(&S._hbm_heap_mgr, PTR(NPUSIM_HBM_WINDOW + NPUSIM_HBM_POOL_OFFSET),
                             (uint32_t)(NPUSIM_HBM_SCRATCH_SIZE - NPUSIM_HBM_POOL_OFFSET),
                             NPUSIM_NUM_BLOCKS, PTR(NPUSIM_DATA_SCRATCH + NPUSIM_HBM_HEADER_OFFSET)));
}

int init_neuron_dataram_allocator(void) {
  return wrap(xmem_heap_init(&S._dataram_heap_mgr, PTR(NPUSIM_DATA_SCRATCH + NPUSIM_DATARAM_POOL_OFFSET),
                             NPUSIM_DATARAM_POOL_SIZE, NPUSIM_NUM_BLOCKS,
                             PTR(NPUSIM_DATA_SCRATCH + NPUSIM_DATARAM_HEADER_OFFSET)));
}

int _init_libc_heap_allocator(void) {
  libc_initialised = 1;
  return wrap(xmem_heap_init(&S._dataram_libc_heap_mgr, PTR(NPUSIM_DATA_SCRATCH + NPUSIM_LIBC_POOL_OFFSET),
                             NPUSIM_LIBC_POOL_SIZE, NPUSIM_NUM_BLOCKS,
                             PTR(NPUSIM_DATA_SCRATCH + NPUSIM_LIBC_HEADER_OFFSET)));
}

int _libc_heap_initialised(void) { return libc_initialised; }

int neuron_hbm_allocate(unsigned size, unsigned long long *out_addr, unsigned align) {
  void *p = xmem_heap_alloc(&S._hbm_heap_mgr, size, align ? align : DEFAULT_ALIGN, &last_status);
  if (last_status != XMEM_OK) return -1;
  // hbm_scratch_base + (p - _hbm_heap_mgr_base): low word, then the carry into the high word.
  const uint32_t offset = (uint32_t)(uintptr_t)p - S._hbm_heap_mgr_base;
  const uint32_t lo0 = S._hbm_scratch_base[0], hi0 = S._hbm_scratch_base[1];
  const uint32_t lo = lo0 + offset;
  const uint32_t hi = hi0 + (lo < lo0 ? 1u : 0u);
  *out_addr = (unsigned long long)hi << 32 | lo;
  return 0;
}

int neuron_hbm_deallocate(unsigned long long addr) {
  const unsigned long long base =
      (unsigned long long)S._hbm_scratch_base[1] << 32 | S._hbm_scratch_base[0];
  const uint32_t host = (uint32_t)(addr - base) + S._hbm_heap_mgr_base;
  return wrap(xmem_heap_free(&S._hbm_heap_mgr, PTR(host)));
}

int neuron_dataram_allocate(unsigned size, void **out_ptr, unsigned align) {
  *out_ptr = xmem_heap_alloc(&S._dataram_heap_mgr, size, align ? align : DEFAULT_ALIGN, &last_status);
  return last_status == XMEM_OK ? 0 : -1;
}

int neuron_dataram_deallocate(void *ptr) { return wrap(xmem_heap_free(&S._dataram_heap_mgr, ptr)); }

void *_libc_heap_allocate(unsigned size, unsigned align) {
  return xmem_heap_alloc(&S._dataram_libc_heap_mgr, size, align ? align : DEFAULT_ALIGN, &last_status);
}

int _libc_heap_deallocate(void *ptr) { return wrap(xmem_heap_free(&S._dataram_libc_heap_mgr, ptr)); }

unsigned _libc_heap_get_alloc_size(void *ptr) {
  const xmem_heap_mgr_struct_t *m = (const xmem_heap_mgr_struct_t *)(const void *)&S._dataram_libc_heap_mgr;
  unsigned r = 0;
  for (const xmem_heap_block_t *b = m->_alloc_list_head._next_block; b != NULL; b = b->_next_block)
    if (b->_aligned_buffer == ptr)
      r = b->_block_size - (unsigned)((uintptr_t)b->_aligned_buffer - (uintptr_t)b->_buffer);
  return r;
}

unsigned _libc_heap_max_free_space(void) {
  return xmem_heap_get_free_space(&S._dataram_libc_heap_mgr, 1, XMEM_HEAP_FREE_SPACE_MAX, NULL, NULL,
                                  &last_status);
}
