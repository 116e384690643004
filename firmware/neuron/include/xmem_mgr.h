// The xmem heap's bookkeeping as it lies in device memory (xmem_mgr.h of the toolchain): the
// 16-byte block descriptor and the 88-byte manager, with the device's field offsets (the same
// as allocators/xmem/xmem_heap.h, namespaces mgr and blk). Pointers are 32 bits: these
// layouts hold on the 32-bit device and on RV32, which is what the asserts check.
#ifndef NPUSIM_NEURON_XMEM_MGR_H
#define NPUSIM_NEURON_XMEM_MGR_H

#include <stddef.h>
#include <stdint.h>

#include "xmem.h"

#ifdef __cplusplus
extern "C" {
#define XMEM_STATIC_ASSERT(c, m) static_assert(c, m)
#else
#define XMEM_STATIC_ASSERT(c, m) _Static_assert(c, m)
#endif

#define XMEM_HEAP_DEFAULT_NUM_BLOCKS 64
#define XMEM_HEAP_MIN_ALLOC_SIZE 4
#define XMEM_HEAP_BLOCK_STRUCT_SIZE 16
#define XMEM_HEAP_BLOCK_STRUCT_SIZE_LOG2 4

// A block of the free list (address-sorted) or the alloc list (newest first). The buffer is
// [_buffer, _buffer + _block_size); the user's pointer is _aligned_buffer (the alignment slack
// sits at the front).
typedef struct xmem_heap_block_struct {
  struct xmem_heap_block_struct *_next_block;  // +0
  uint32_t _block_size;                        // +4
  void *_buffer;                               // +8
  void *_aligned_buffer;                       // +12
} xmem_heap_block_t;

typedef struct xmem_heap_mgr_struct {
  void *_lock;                          // +0   NULL: no lock (one core)
  void *_buffer;                        // +4   the pool
  uint32_t _buffer_size;                // +8
  uint32_t _free_bytes;                 // +12
  uint32_t _allocated_bytes;            // +16
  uint32_t _unused_bytes;               // +20  alignment slack (and the in-pool header)
  xmem_heap_block_t _free_list_head;    // +24  sentinel: buffer 0, size 0
  xmem_heap_block_t _free_list_tail;    // +40  sentinel: buffer and size 0xffffffff
  xmem_heap_block_t _alloc_list_head;   // +56  sentinel
  xmem_heap_block_t *_blocks;           // +72  descriptor array
  uint32_t _num_blocks;                 // +76
  uint32_t *_block_free_bitvec;         // +80  bit i set: descriptor i is free
  uint16_t _header_size;                // +84
  uint16_t _has_external_header;        // +86
} xmem_heap_mgr_struct_t;

#if UINTPTR_MAX == 0xffffffffu
XMEM_STATIC_ASSERT(sizeof(xmem_heap_block_t) == 16, "xmem_heap_block_t is 16 bytes");
XMEM_STATIC_ASSERT(offsetof(xmem_heap_block_t, _next_block) == 0, "_next_block @0");
XMEM_STATIC_ASSERT(offsetof(xmem_heap_block_t, _block_size) == 4, "_block_size @4");
XMEM_STATIC_ASSERT(offsetof(xmem_heap_block_t, _buffer) == 8, "_buffer @8");
XMEM_STATIC_ASSERT(offsetof(xmem_heap_block_t, _aligned_buffer) == 12, "_aligned_buffer @12");
XMEM_STATIC_ASSERT(sizeof(xmem_heap_mgr_struct_t) == XMEM_HEAP_MGR_SIZE, "the manager is 88 bytes");
XMEM_STATIC_ASSERT(sizeof(xmem_heap_mgr_t) == XMEM_HEAP_MGR_SIZE, "xmem_heap_mgr_t is 88 bytes");
XMEM_STATIC_ASSERT(offsetof(xmem_heap_mgr_struct_t, _lock) == 0, "_lock @0");
XMEM_STATIC_ASSERT(offsetof(xmem_heap_mgr_struct_t, _buffer) == 4, "_buffer @4");
XMEM_STATIC_ASSERT(offsetof(xmem_heap_mgr_struct_t, _buffer_size) == 8, "_buffer_size @8");
XMEM_STATIC_ASSERT(offsetof(xmem_heap_mgr_struct_t, _free_bytes) == 12, "_free_bytes @12");
XMEM_STATIC_ASSERT(offsetof(xmem_heap_mgr_struct_t, _allocated_bytes) == 16, "_allocated_bytes @16");
XMEM_STATIC_ASSERT(offsetof(xmem_heap_mgr_struct_t, _unused_bytes) == 20, "_unused_bytes @20");
XMEM_STATIC_ASSERT(offsetof(xmem_heap_mgr_struct_t, _free_list_head) == 24, "_free_list_head @24");
XMEM_STATIC_ASSERT(offsetof(xmem_heap_mgr_struct_t, _free_list_tail) == 40, "_free_list_tail @40");
XMEM_STATIC_ASSERT(offsetof(xmem_heap_mgr_struct_t, _alloc_list_head) == 56, "_alloc_list_head @56");
XMEM_STATIC_ASSERT(offsetof(xmem_heap_mgr_struct_t, _blocks) == 72, "_blocks @72");
XMEM_STATIC_ASSERT(offsetof(xmem_heap_mgr_struct_t, _num_blocks) == 76, "_num_blocks @76");
XMEM_STATIC_ASSERT(offsetof(xmem_heap_mgr_struct_t, _block_free_bitvec) == 80, "_block_free_bitvec @80");
XMEM_STATIC_ASSERT(offsetof(xmem_heap_mgr_struct_t, _header_size) == 84, "_header_size @84");
XMEM_STATIC_ASSERT(offsetof(xmem_heap_mgr_struct_t, _has_external_header) == 86, "_has_external_header @86");
#endif

#ifdef __cplusplus
}
#endif

#endif  // NPUSIM_NEURON_XMEM_MGR_H
