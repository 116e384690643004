// A program's own xmem heap, replacing the Neuron device library's (npusim cc compiles a source
// named xmem_heap.c instead of firmware/neuron/src/xmem_heap.c): a bump allocator that never
// reuses memory, with xmem's public API and statuses. Used by the tests of `npusim cc`.
#include <xmem.h>

// The tests find this symbol in the ELF: the heap is this file's.
int npusim_test_user_xmem_heap = 1;

typedef struct {
  uint32_t next, end, allocated;
} bump_t;

xmem_status_t xmem_heap_init(xmem_heap_mgr_t *mgr, void *buffer, size_t size, uint32_t num_blocks,
                             void *header) {
  (void)num_blocks;
  (void)header;
  if (buffer == NULL) return XMEM_ERR_INVALID_ARGS;
  if (size < 4) return XMEM_ERR_POOL_SIZE;
  bump_t *b = (bump_t *)(void *)mgr;
  b->next = (uint32_t)(uintptr_t)buffer;
  b->end = b->next + (uint32_t)size;
  b->allocated = 0;
  return XMEM_OK;
}

void *xmem_heap_alloc(xmem_heap_mgr_t *mgr, size_t size, uint32_t align, xmem_status_t *status) {
  bump_t *b = (bump_t *)(void *)mgr;
  if (align == 0 || (align & (align - 1)) != 0) {
    *status = XMEM_ERR_ILLEGAL_ALIGN;
    return NULL;
  }
  if (size == 0) {
    *status = XMEM_ERR_INVALID_ARGS;
    return NULL;
  }
  const uint32_t p = (b->next + align - 1) & ~(align - 1);
  if (p < b->next || p + size < p || p + size > b->end) {
    *status = XMEM_ERR_ALLOC_FAILED;
    return NULL;
  }
  b->next = p + (uint32_t)size;
  b->allocated += (uint32_t)size;
  *status = XMEM_OK;
  return (void *)(uintptr_t)p;
}

xmem_status_t xmem_heap_free(xmem_heap_mgr_t *mgr, void *p) {
  (void)mgr;
  return p == NULL ? XMEM_ERR_PTR_OUT_OF_BOUNDS : XMEM_OK;
}

size_t xmem_heap_get_free_space(xmem_heap_mgr_t *mgr, uint32_t align, xmem_heap_free_space_qual_t qual,
                                void **start, void **end, xmem_status_t *status) {
  (void)align;
  (void)qual;
  bump_t *b = (bump_t *)(void *)mgr;
  if (start) *start = (void *)(uintptr_t)b->next;
  if (end) *end = (void *)(uintptr_t)(b->end - 1);
  if (status) *status = XMEM_OK;
  return b->end - b->next;
}
