// Consistency check of an xmem heap in device memory. Included by xmem_heap.h.
//
// Invariants (each failure is one message):
//  - every listed block is a descriptor of blocks[] whose bit says "in use";
//  - the free list is address-sorted, non-overlapping and fully coalesced;
//  - free and allocated blocks tile the pool exactly: no overlap, no gap;
//  - every aligned pointer lies in its block; counters equal the sums of the lists;
//  - descriptors are conserved: in-use bits == blocks on the two lists, no block twice.
#pragma once

#include <algorithm>
#include <cstdio>
#include <set>

#include "xmem_heap.h"

namespace npusim::alloc::xmem {

template <class Port>
std::string Heap<Port>::hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

template <class Port>
std::vector<std::string> Heap<Port>::check() {
  std::vector<std::string> errs;
  const Counters c = counters();
  std::vector<BlockInfo> blocks;
  try {
    walk([&](const BlockInfo& b) { blocks.push_back(b); });
  } catch (const std::exception& e) {  // a list that loops, or leads out of memory
    errs.emplace_back(e.what());
    return errs;
  }
  const uint64_t pool_end = uint64_t{c.buffer} + c.buffer_size;
  uint64_t free_sum = 0, alloc_sum = 0;
  std::set<uint32_t> seen;
  const BlockInfo* prev_free = nullptr;
  for (const auto& b : blocks) {
    const std::string tag = std::string(b.free ? "free" : "allocated") + " block " +
                            hex32(b.desc) + " [" + hex32(b.buffer) + ", +" +
                            std::to_string(b.size) + ")";
    if (b.desc < c.blocks || ((b.desc - c.blocks) & (blk::kSize - 1)) != 0 ||
        b.index >= c.num_blocks)
      errs.push_back(tag + ": descriptor is not an element of blocks[]");
    else if ((ld(c.bitvec + 4 * (b.index >> 5)) >> (b.index & 31)) & 1u)
      errs.push_back(tag + ": descriptor " + std::to_string(b.index) +
                     " is listed but its bit says free");
    if (!seen.insert(b.desc).second) errs.push_back(tag + ": descriptor appears twice");
    if (b.buffer < c.buffer || uint64_t{b.buffer} + b.size > pool_end)
      errs.push_back(tag + ": outside the pool");
    if (b.aligned < b.buffer || (b.size != 0 && b.aligned - b.buffer >= b.size))
      errs.push_back(tag + ": aligned pointer " + hex32(b.aligned) + " outside its block");
    if (b.free) {
      free_sum += b.size;
      if (prev_free != nullptr) {
        const uint64_t prev_end = uint64_t{prev_free->buffer} + prev_free->size;
        if (prev_free->buffer >= b.buffer)
          errs.push_back(tag + ": free list not sorted by address");
        else if (prev_end > b.buffer)
          errs.push_back(tag + ": overlaps the previous free block");
        else if (prev_end == b.buffer)
          errs.push_back(tag + ": not coalesced with the previous free block");
      }
      prev_free = &b;
    } else {
      alloc_sum += b.size;
    }
  }
  if (free_sum != c.free_bytes)
    errs.push_back("free_bytes " + std::to_string(c.free_bytes) + " != sum of free blocks " +
                   std::to_string(free_sum));
  if (alloc_sum != c.allocated_bytes)
    errs.push_back("allocated_bytes " + std::to_string(c.allocated_bytes) +
                   " != sum of allocated blocks " + std::to_string(alloc_sum));
  if (uint64_t{c.free_bytes} + c.allocated_bytes != c.buffer_size)
    errs.push_back("free_bytes + allocated_bytes != pool size " + std::to_string(c.buffer_size));
  if (descriptors_used() != blocks.size())
    errs.push_back("descriptors in use " + std::to_string(descriptors_used()) +
                   " != blocks on the lists " + std::to_string(blocks.size()));
  // Tiling: sorted by address, each block starts where the previous one ended.
  std::vector<BlockInfo> sorted = blocks;
  std::sort(sorted.begin(), sorted.end(),
            [](const BlockInfo& a, const BlockInfo& b) { return a.buffer < b.buffer; });
  uint64_t cursor = c.buffer;
  for (const auto& b : sorted) {
    if (b.buffer < cursor)
      errs.push_back("block at " + hex32(b.buffer) + " overlaps the block before it");
    else if (b.buffer > cursor)
      errs.push_back("gap in the pool at " + hex32(static_cast<uint32_t>(cursor)) +
                     ": no block covers it");
    cursor = std::max<uint64_t>(cursor, uint64_t{b.buffer} + b.size);
  }
  if (cursor != pool_end && errs.empty())
    errs.push_back("blocks end at " + hex32(static_cast<uint32_t>(cursor)) +
                   ", the pool at " + hex32(static_cast<uint32_t>(pool_end)));
  return errs;
}

}  // namespace npusim::alloc::xmem
