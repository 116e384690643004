// The xmem heap's allocation and free, written once on an access policy (Checked or Direct,
// xmem_heap.h): first fit over the address-sorted free list with alignment slack, the
// allocated-list unlink, and the sorted insert with two-sided coalescing. Included by
// xmem_heap.h; seed document 000 §2-§3.
#pragma once

#include "xmem_heap.h"

namespace npusim::alloc::xmem {

template <class Port>
template <class A>
bool Heap<Port>::alloc_in(A& a, uint32_t size, uint32_t align, int32_t* status, uint32_t* out) {
  const uint32_t tail = m_ + mgr::kFreeListTail;
  const uint32_t shift = msbit(align);
  const uint32_t nb = a.ld(m_ + mgr::kNumBlocks);
  uint32_t prev = m_ + mgr::kFreeListHead;
  uint32_t curr = a.ld(prev + blk::kNext);
  if (!a.desc(curr)) return false;
  uint32_t cbuf = a.ld(curr + blk::kBuffer);
  uint32_t csize = a.ld(curr + blk::kBlockSize);
  uint32_t need = size + slack(cbuf, align, shift);  // may wrap (u32)
  uint32_t guard = walk_bound(nb);
  uint32_t steps = 0;
  // First fit; the tail sentinel's size 0xffffffff stops the walk.
  while (csize < need) {
    ++steps;
    if (!walk_on<A>(guard, "free list")) return false;
    prev = curr;
    curr = a.ld(curr + blk::kNext);
    if (!a.desc(curr)) return false;
    cbuf = a.ld(curr + blk::kBuffer);
    csize = a.ld(curr + blk::kBlockSize);
    need = size + slack(cbuf, align, shift);
  }
  const uint32_t words = (nb + 31) >> 5;
  if constexpr (A::kMayBail) {
    // Vouch for everything the commit below touches, before its first store: the
    // bit-vector, the descriptor array, and that no store lands on the manager's
    // blocks/num_blocks/bitvec fields before they are read again.
    const uint32_t bitvec = a.ld(m_ + mgr::kBlockFreeBitvec);
    const uint32_t blocks = a.ld(m_ + mgr::kBlocks);
    if (!a.vouch(bitvec, uint64_t{words} * 4) ||
        !a.vouch(blocks, uint64_t{nb} * blk::kSize) ||
        overlaps(curr, blk::kSize, m_ + mgr::kBlocks, 12) ||
        overlaps(bitvec, uint64_t{words} * 4, m_ + mgr::kBlocks, 12))
      return false;
  }
  // The walk's compute is charged in one go: no store inside the loop.
  a.compute(steps * cost_.step_cycles);
  if (curr == tail) {
    *status = kErrAllocFailed;
    *out = 0;
    return true;
  }
  const uint32_t r = cbuf + need - size;  // slack stays at the front of the block
  a.st(curr + blk::kAlignedBuffer, r);
  add(a, mgr::kUnusedBytes, need - size);

  // xmem_find_leading_zero_one_count(bitvec, n, 0, 0): the lowest set bit is the lowest
  // free descriptor; a value >= num_blocks means none is free.
  const uint32_t bitvec = a.ld(m_ + mgr::kBlockFreeBitvec);
  uint32_t idx = nb, word_addr = 0, word = 0;
  for (uint32_t w = 0; w < words; ++w) {
    word_addr = bitvec + 4 * w;
    word = a.ld(word_addr);
    if (word != 0) {
      idx = 32 * w + static_cast<uint32_t>(__builtin_ctz(word));
      break;
    }
  }
  const uint32_t cnext = a.ld(curr + blk::kNext);
  uint32_t taken = csize;
  if (csize - need > kMinAllocSize && idx < nb) {
    a.st(word_addr, word ^ (1u << (idx & 31)));  // xmem_toggle_bitvec: claim it
    const uint32_t rem = a.ld(m_ + mgr::kBlocks) + (idx << blk::kSizeLog2);
    a.st(rem + blk::kNext, cnext);
    a.st(rem + blk::kBlockSize, csize - need);
    a.st(rem + blk::kBuffer, cbuf + need);
    a.st(rem + blk::kAlignedBuffer, cbuf + need);
    a.st(curr + blk::kBlockSize, need);
    a.st(prev + blk::kNext, rem);
    taken = need;
  } else {
    // Remainder too small, or all descriptors in use: the whole block is handed out.
    if (idx >= nb && csize - need > kMinAllocSize) ++descriptor_exhaustion_events_;
    a.st(prev + blk::kNext, cnext);
  }
  const uint32_t ahead = m_ + mgr::kAllocListHead;
  a.st(curr + blk::kNext, a.ld(ahead + blk::kNext));
  a.st(ahead + blk::kNext, curr);
  add(a, mgr::kFreeBytes, 0u - taken);
  add(a, mgr::kAllocatedBytes, taken);
  *status = kOk;
  *out = r;
  return true;
}

template <class Port>
template <class A>
bool Heap<Port>::free_in(A& a, uint32_t ptr, int32_t* result) {
  uint32_t prev = m_ + mgr::kAllocListHead;
  uint32_t block = a.ld(prev + blk::kNext);
  uint32_t guard = walk_bound(a.ld(m_ + mgr::kNumBlocks));
  uint32_t next = 0, steps = 0;
  while (block != 0) {
    ++steps;
    if (!a.desc(block)) return false;
    next = a.ld(block + blk::kNext);
    if (a.ld(block + blk::kAlignedBuffer) == ptr) break;
    if (!walk_on<A>(guard, "alloc list")) return false;
    prev = block;
    block = next;
  }
  a.compute(steps * cost_.step_cycles);
  if (block == 0) {
    *result = kErrPtrOutOfBounds;
    return true;
  }
  a.st(prev + blk::kNext, next);
  const uint32_t bsize = a.ld(block + blk::kBlockSize);
  const uint32_t bbuf = a.ld(block + blk::kBuffer);
  add(a, mgr::kFreeBytes, bsize);
  add(a, mgr::kAllocatedBytes, 0u - bsize);
  // Firmware: _unused_bytes -= (_buffer - _aligned_buffer); in u32 this ADDS the slack.
  add(a, mgr::kUnusedBytes, 0u - (bbuf - ptr));
  // A new step (it stores from its start): on a bail it runs again Checked.
  if (!add_to_free_list(a, block, bbuf, bsize)) add_to_free_list_checked(block, bbuf, bsize);
  *result = kOk;
  return true;
}

// xmem_heap_add_block_to_free_list: sorted insert with two-sided coalescing.
template <class Port>
template <class A>
bool Heap<Port>::add_to_free_list(A& a, uint32_t nb, uint32_t nbuf, uint32_t nsize) {
  if (!a.desc(nb)) return false;
  const uint32_t head = m_ + mgr::kFreeListHead, tail = m_ + mgr::kFreeListTail;
  uint32_t block = head, bbuf = 0;
  uint32_t next = a.ld(head + blk::kNext);
  if (!a.desc(next)) return false;
  uint32_t next_buf = a.ld(next + blk::kBuffer);
  uint32_t guard = walk_bound(a.ld(m_ + mgr::kNumBlocks));
  uint32_t steps = 0;
  while (next_buf < nbuf) {
    ++steps;
    if (!walk_on<A>(guard, "free list")) return false;
    block = next;
    bbuf = next_buf;
    next = a.ld(block + blk::kNext);
    if (!a.desc(next)) return false;
    next_buf = a.ld(next + blk::kBuffer);
  }
  const uint32_t bitvec = a.ld(m_ + mgr::kBlockFreeBitvec);
  const uint32_t blocks = a.ld(m_ + mgr::kBlocks);
  const uint32_t nb_idx = (nb - blocks) >> blk::kSizeLog2;
  const uint32_t next_idx = (next - blocks) >> blk::kSizeLog2;
  // Both bit-vector words this step may toggle, vouched for before its first store.
  if (!a.word(bitvec + 4 * (nb_idx >> 5)) || !a.word(bitvec + 4 * (next_idx >> 5)))
    return false;
  a.compute(steps * cost_.step_cycles);
  bool merged_prev = false;
  if (block != head) {
    const uint32_t bsize = a.ld(block + blk::kBlockSize);
    if (bbuf + bsize == nbuf) {
      toggle(a, bitvec, nb_idx);
      nb = block;
      nbuf = bbuf;
      nsize += bsize;
      a.st(block + blk::kBlockSize, nsize);
      merged_prev = true;
    }
  }
  if (next != tail && nbuf + nsize == next_buf) {
    toggle(a, bitvec, next_idx);
    a.st(nb + blk::kBlockSize, nsize + a.ld(next + blk::kBlockSize));
    a.st(nb + blk::kNext, a.ld(next + blk::kNext));
    if (!merged_prev) a.st(block + blk::kNext, nb);
  } else if (!merged_prev) {
    a.st(nb + blk::kNext, next);
    a.st(block + blk::kNext, nb);
  }
  return true;
}

}  // namespace npusim::alloc::xmem
