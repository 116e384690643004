// npusim's xmem heap for firmware programs: a first-fit, address-sorted, immediately coalescing
// free-list allocator with out-of-band 16-byte descriptors, written from xmem's documented
// behaviour. It gives exactly what the C++ model allocators/xmem/xmem_heap.h gives (statuses,
// addresses, counters, descriptor use), quirks included: the alignment slack is computed per
// candidate block and kept at the front of the block, a block is split only when the remainder
// exceeds 4 bytes and a descriptor is free, a free matches the aligned pointer, and all sizes
// are the device's 32-bit unsigned arithmetic (size + slack may wrap around).
//
// A program may replace this file with its own xmem_heap.c (npusim cc compiles a source of that
// name instead of this one).
#include "xmem_mgr.h"

typedef xmem_heap_mgr_struct_t mgr_t;
typedef xmem_heap_block_t block_t;

#define TAIL_ADDRESS 0xffffffffu

static uint32_t addr(const void *p) { return (uint32_t)(uintptr_t)p; }
static void *ptr(uint32_t a) { return (void *)(uintptr_t)a; }
static mgr_t *mgr_of(xmem_heap_mgr_t *m) { return (mgr_t *)(void *)m; }

// xmem_find_msbit: the index of the most significant set bit (v != 0).
static uint32_t msbit(uint32_t v) { return 31u - (uint32_t)__builtin_clz(v); }

// xmem_heap_compute_new_size's slack: from the block's own address up to the next multiple of
// 2^shift, computed as ((buf + align - 1) >> shift) << shift.
static uint32_t slack(uint32_t buf, uint32_t align, uint32_t shift) {
  return (((buf + align - 1u) >> shift) << shift) - buf;
}

static void set_block(block_t *b, block_t *next, uint32_t size, uint32_t buf, uint32_t aligned) {
  b->_next_block = next;
  b->_block_size = size;
  b->_buffer = ptr(buf);
  b->_aligned_buffer = ptr(aligned);
}

xmem_status_t xmem_heap_init(xmem_heap_mgr_t *mgr, void *buffer, size_t size, uint32_t num_blocks,
                             void *header) {
  mgr_t *m = mgr_of(mgr);
  if (buffer == NULL) return XMEM_ERR_INVALID_ARGS;
  const uint32_t pool = addr(buffer), sz = (uint32_t)size;
  const int ext = header != NULL;
  const uint32_t nb = ext ? num_blocks : XMEM_HEAP_DEFAULT_NUM_BLOCKS;
  block_t *blocks = (block_t *)(ext ? header : buffer);
  const uint32_t words = (nb + 31u) >> 5;
  uint32_t *bitvec = (uint32_t *)ptr(addr(blocks) + XMEM_HEAP_BLOCK_STRUCT_SIZE * nb);
  const uint16_t hdr_size = (uint16_t)(XMEM_HEAP_BLOCK_STRUCT_SIZE * nb + words * 4u);
  m->_lock = NULL;
  m->_buffer = buffer;
  m->_buffer_size = sz;
  m->_num_blocks = nb;
  m->_blocks = blocks;
  m->_block_free_bitvec = bitvec;
  m->_header_size = hdr_size;
  m->_has_external_header = (uint16_t)ext;

  const uint32_t min_size = ext ? XMEM_HEAP_MIN_ALLOC_SIZE : (uint32_t)hdr_size + XMEM_HEAP_MIN_ALLOC_SIZE;
  if (sz < min_size) return XMEM_ERR_POOL_SIZE;
  if (nb == 0) return XMEM_ERR_INVALID_ARGS;

  block_t *head = &m->_free_list_head, *tail = &m->_free_list_tail, *ahead = &m->_alloc_list_head;
  set_block(head, NULL, 0, 0, 0);
  set_block(tail, NULL, TAIL_ADDRESS, TAIL_ADDRESS, TAIL_ADDRESS);
  ahead->_block_size = 0;
  ahead->_buffer = NULL;
  ahead->_aligned_buffer = NULL;
  m->_allocated_bytes = 0;
  if (ext) {
    // The whole pool is descriptor 0, on the free list.
    set_block(&blocks[0], tail, sz, pool, pool);
    head->_next_block = &blocks[0];
    ahead->_next_block = NULL;
    bitvec[0] = 0xfffffffeu;
    for (uint32_t i = 1; i < words; ++i) bitvec[i] = 0xffffffffu;
    m->_free_bytes = sz;
    m->_unused_bytes = 0;
  } else {
    // Descriptor 0 is the header itself (allocated), descriptor 1 the rest of the pool.
    set_block(&blocks[0], NULL, hdr_size, pool, pool);
    set_block(&blocks[1], tail, sz - hdr_size, pool + hdr_size, pool + hdr_size);
    ahead->_next_block = &blocks[0];
    head->_next_block = &blocks[1];
    bitvec[0] = 0xfffffffcu;
    for (uint32_t i = 1; i < words; ++i) bitvec[i] = 0xffffffffu;
    m->_free_bytes = sz - hdr_size;
    m->_unused_bytes = hdr_size;
    m->_allocated_bytes = hdr_size;
  }
  return XMEM_OK;
}

void *xmem_heap_alloc(xmem_heap_mgr_t *mgr, size_t size, uint32_t align, xmem_status_t *status) {
  mgr_t *m = mgr_of(mgr);
  const uint32_t sz = (uint32_t)size;
  if (align == 0 || (align & (align - 1u)) != 0) {
    *status = XMEM_ERR_ILLEGAL_ALIGN;
    return NULL;
  }
  if (sz == 0) {
    *status = XMEM_ERR_INVALID_ARGS;
    return NULL;
  }
  const uint32_t shift = msbit(align);
  const uint32_t nb = m->_num_blocks;
  block_t *tail = &m->_free_list_tail;
  block_t *prev = &m->_free_list_head;
  block_t *curr = prev->_next_block;
  uint32_t need = sz + slack(addr(curr->_buffer), align, shift);  // may wrap
  // First fit; the tail sentinel's size 0xffffffff ends the walk.
  while (curr->_block_size < need) {
    prev = curr;
    curr = curr->_next_block;
    need = sz + slack(addr(curr->_buffer), align, shift);
  }
  if (curr == tail) {
    *status = XMEM_ERR_ALLOC_FAILED;
    return NULL;
  }
  const uint32_t cbuf = addr(curr->_buffer), csize = curr->_block_size;
  const uint32_t r = cbuf + need - sz;  // the slack stays at the front of the block
  curr->_aligned_buffer = ptr(r);
  m->_unused_bytes += need - sz;

  // xmem_find_leading_zero_one_count: the lowest set bit is the lowest free descriptor.
  uint32_t *bitvec = m->_block_free_bitvec;
  const uint32_t words = (nb + 31u) >> 5;
  uint32_t idx = nb, w = 0;
  for (w = 0; w < words; ++w) {
    if (bitvec[w] != 0) {
      idx = 32u * w + (uint32_t)__builtin_ctz(bitvec[w]);
      break;
    }
  }
  block_t *cnext = curr->_next_block;
  uint32_t taken = csize;
  if (csize - need > XMEM_HEAP_MIN_ALLOC_SIZE && idx < nb) {
    // Split: the remainder gets the free descriptor, in curr's place on the free list.
    bitvec[w] ^= 1u << (idx & 31u);
    block_t *rem = &m->_blocks[idx];
    set_block(rem, cnext, csize - need, cbuf + need, cbuf + need);
    curr->_block_size = need;
    prev->_next_block = rem;
    taken = need;
  } else {
    // The remainder is too small, or every descriptor is in use: the whole block goes.
    prev->_next_block = cnext;
  }
  curr->_next_block = m->_alloc_list_head._next_block;
  m->_alloc_list_head._next_block = curr;
  m->_free_bytes -= taken;
  m->_allocated_bytes += taken;
  *status = XMEM_OK;
  return ptr(r);
}

static void toggle(uint32_t *bitvec, uint32_t idx) { bitvec[idx >> 5] ^= 1u << (idx & 31u); }

// xmem_heap_add_block_to_free_list: sorted insert with two-sided coalescing.
static void add_to_free_list(mgr_t *m, block_t *nb) {
  block_t *head = &m->_free_list_head, *tail = &m->_free_list_tail;
  uint32_t nbuf = addr(nb->_buffer), nsize = nb->_block_size;
  block_t *block = head;
  uint32_t bbuf = 0;
  block_t *next = head->_next_block;
  uint32_t next_buf = addr(next->_buffer);
  while (next_buf < nbuf) {
    block = next;
    bbuf = next_buf;
    next = block->_next_block;
    next_buf = addr(next->_buffer);
  }
  uint32_t *bitvec = m->_block_free_bitvec;
  const uint32_t blocks = addr(m->_blocks);
  const uint32_t nb_idx = (addr(nb) - blocks) >> XMEM_HEAP_BLOCK_STRUCT_SIZE_LOG2;
  const uint32_t next_idx = (addr(next) - blocks) >> XMEM_HEAP_BLOCK_STRUCT_SIZE_LOG2;
  int merged_prev = 0;
  if (block != head && bbuf + block->_block_size == nbuf) {
    // Merge into the previous free block; nb's descriptor is free again.
    toggle(bitvec, nb_idx);
    nsize += block->_block_size;
    nb = block;
    nbuf = bbuf;
    block->_block_size = nsize;
    merged_prev = 1;
  }
  if (next != tail && nbuf + nsize == next_buf) {
    // Absorb the next free block; its descriptor is free again.
    toggle(bitvec, next_idx);
    nb->_block_size = nsize + next->_block_size;
    nb->_next_block = next->_next_block;
    if (!merged_prev) block->_next_block = nb;
  } else if (!merged_prev) {
    nb->_next_block = next;
    block->_next_block = nb;
  }
}

xmem_status_t xmem_heap_free(xmem_heap_mgr_t *mgr, void *p) {
  mgr_t *m = mgr_of(mgr);
  if (p == NULL) return XMEM_ERR_PTR_OUT_OF_BOUNDS;
  block_t *prev = &m->_alloc_list_head;
  block_t *block = prev->_next_block;
  block_t *next = NULL;
  while (block != NULL) {
    next = block->_next_block;
    if (block->_aligned_buffer == p) break;
    prev = block;
    block = next;
  }
  if (block == NULL) return XMEM_ERR_PTR_OUT_OF_BOUNDS;
  prev->_next_block = next;
  const uint32_t bsize = block->_block_size, bbuf = addr(block->_buffer);
  m->_free_bytes += bsize;
  m->_allocated_bytes -= bsize;
  // _unused_bytes -= (_buffer - _aligned_buffer): in 32-bit arithmetic this adds the slack.
  m->_unused_bytes -= bbuf - addr(p);
  add_to_free_list(m, block);
  return XMEM_OK;
}

size_t xmem_heap_get_free_space(xmem_heap_mgr_t *mgr, uint32_t align,
                                xmem_heap_free_space_qual_t qual, void **start, void **end,
                                xmem_status_t *status) {
  mgr_t *m = mgr_of(mgr);
  // align 0 is not defined by xmem (a shift by -1): answered as an illegal alignment.
  if (align == 0) {
    if (status) *status = XMEM_ERR_ILLEGAL_ALIGN;
    return 0;
  }
  // A non-power-of-two alignment uses its most significant bit.
  const uint32_t shift = msbit(align);
  block_t *tail = &m->_free_list_tail;
  block_t *curr = m->_free_list_head._next_block, *prev = NULL;
  uint32_t r = 0, s = 0, e = 0;
#define USABLE(b) ((b)->_block_size - slack(addr((b)->_buffer), align, shift))
#define SPAN(b, n)                                            \
  do {                                                        \
    const uint32_t top = addr((b)->_buffer) + (b)->_block_size; \
    s = top - (n);                                            \
    e = top - 1u;                                             \
  } while (0)
  if (qual == XMEM_HEAP_FREE_SPACE_START && curr != tail) {
    r = USABLE(curr);
    SPAN(curr, r);
  } else {
    while (curr != tail) {
      const uint32_t n = USABLE(curr);
      if (n > r) {
        r = n;
        SPAN(curr, n);
      }
      prev = curr;
      curr = curr->_next_block;
    }
    if (qual == XMEM_HEAP_FREE_SPACE_END && prev != NULL) {
      const uint32_t last = addr(prev->_buffer) + prev->_block_size - 1u;
      if (last == addr(m->_buffer) + m->_buffer_size - 1u) {
        r = USABLE(prev);
        SPAN(prev, r);
      } else {
        r = s = e = 0;
      }
    }
  }
#undef USABLE
#undef SPAN
  if (start) *start = ptr(s);
  if (end) *end = ptr(e);
  if (status) *status = XMEM_OK;
  return r;
}
