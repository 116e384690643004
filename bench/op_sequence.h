// The fixed allocation sequence shared by the allocator benchmarks: up to `live` blocks alive,
// sizes 16..1040 bytes, alloc/free 50/50 once warm, seeded. Entry >= 0: allocate into that
// slot; < 0: free slot -entry-1. Ends with every slot freed.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

struct OpSequence {
  std::vector<int> ops;
  std::vector<uint32_t> sizes;
  OpSequence(int n, int live, uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<bool> used(live, false);
    int nused = 0;
    for (int i = 0; i < n; ++i) {
      const bool do_alloc = nused == 0 || (nused < live && rng() % 2 == 0);
      int slot = rng() % live;
      while (used[slot] != !do_alloc) slot = (slot + 1) % live;
      used[slot] = do_alloc;
      nused += do_alloc ? 1 : -1;
      ops.push_back(do_alloc ? slot : -slot - 1);
      sizes.push_back(16 + rng() % 1025);
    }
    for (int s = 0; s < live; ++s)
      if (used[s]) {
        ops.push_back(-s - 1);
        sizes.push_back(0);
      }
  }
  // Runs the sequence on an xmem heap (any port); alignment 16.
  template <class Heap>
  void run(Heap& heap, std::vector<uint32_t>& slot) const {
    for (size_t i = 0; i < ops.size(); ++i) {
      const int op = ops[i];
      if (op >= 0) {
        int32_t st;
        slot[op] = heap.alloc(sizes[i], 16, &st);
      } else {
        heap.free(slot[-op - 1]);
      }
    }
  }
};

inline const OpSequence& standard_sequence() {
  static OpSequence s(4096, 12, 7);  // 12 live blocks: within 32 descriptors
  return s;
}
