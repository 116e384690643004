// xmem, the heap manager under the Neuron device library: the public API with the device's
// names (xmem.h of the toolchain). npusim's implementation is firmware/neuron/src/xmem_heap.c,
// a first-fit, address-sorted, immediately coalescing free-list allocator with out-of-band
// 16-byte block descriptors; a program may link its own xmem_heap.c in its place
// (docs/assumptions.md, "The device library in C").
#ifndef NPUSIM_NEURON_XMEM_H
#define NPUSIM_NEURON_XMEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// xmem_status_t.
typedef enum {
  XMEM_OK = 0,
  XMEM_ERR_ALLOC_FAILED = -100,
  XMEM_ERR_ILLEGAL_ALIGN = -99,
  XMEM_ERR_INVALID_ARGS = -98,
  XMEM_ERR_PTR_OUT_OF_BOUNDS = -97,
  XMEM_ERR_POOL_SIZE = -96
} xmem_status_t;

// What xmem_heap_get_free_space measures: the first free block, the free block that ends the
// pool, or the largest free block.
typedef enum {
  XMEM_HEAP_FREE_SPACE_START = 0,
  XMEM_HEAP_FREE_SPACE_END = 1,
  XMEM_HEAP_FREE_SPACE_MAX = 2
} xmem_heap_free_space_qual_t;

// The manager: 88 bytes on the 32-bit device (xmem_mgr.h has its fields). Opaque here.
#define XMEM_HEAP_MGR_SIZE 88
typedef union {
  char _[XMEM_HEAP_MGR_SIZE];
  uint32_t _align;
} xmem_heap_mgr_t;

// Bytes of an external header for num_blocks descriptors: the descriptors, then the
// free-descriptor bit-vector (one bit per descriptor, whole words).
#define XMEM_HEAP_HEADER_SIZE(num_blocks) (16u * (num_blocks) + (((num_blocks) + 31u) / 32u) * 4u)

// Sets up a heap over [buffer, buffer + size). `header` holds num_blocks descriptors and their
// bit-vector; NULL places a header of 64 descriptors at the start of the pool instead.
xmem_status_t xmem_heap_init(xmem_heap_mgr_t *mgr, void *buffer, size_t size, uint32_t num_blocks,
                             void *header);
// First fit: `size` bytes aligned to `align` (a power of two); NULL and *status != XMEM_OK on
// failure.
void *xmem_heap_alloc(xmem_heap_mgr_t *mgr, size_t size, uint32_t align, xmem_status_t *status);
// Frees the block whose aligned pointer is `p` (XMEM_ERR_PTR_OUT_OF_BOUNDS when none is live).
xmem_status_t xmem_heap_free(xmem_heap_mgr_t *mgr, void *p);
// Usable bytes (at alignment `align`) of the free block `qual` names; its first and last byte
// go to *start and *end when they are not NULL.
size_t xmem_heap_get_free_space(xmem_heap_mgr_t *mgr, uint32_t align,
                                xmem_heap_free_space_qual_t qual, void **start, void **end,
                                xmem_status_t *status);

#ifdef __cplusplus
}
#endif

#endif  // NPUSIM_NEURON_XMEM_H
