// A set of cycles of the near future, for the reordering controller's exact search maps
// (models/hbm/frfcfs.h): the cycles where no ACT may go. A ring of 64-cycle words, each
// tagged with the block (cycle / 64) it holds, so a word left from an older block reads as
// empty and nothing is ever cleared. It has no floor: the controller only marks and reads
// cycles within a window narrower than the ring (the timelines' horizon, see the
// FrFcfsController constructor), so a slot never holds a block newer than the one read.
#pragma once

#include <cstdint>
#include <vector>

namespace npusim::models::hbm {

class CycleSet {
 public:
  // `bits` is rounded up to a power of two of at least 128.
  explicit CycleSet(uint64_t bits = 128) {
    uint64_t n = 128;
    while (n < bits) n <<= 1;
    words_.assign(n / 64, Word{});
    mask_ = n / 64 - 1;
  }
  // The marks of block `blk` (cycles [64 blk, 64 blk + 64)): bit j is cycle 64 blk + j.
  uint64_t block(uint64_t blk) const {
    const Word& w = words_[blk & mask_];
    return w.block == blk ? w.bits : 0;
  }
  // Marks cycle c.
  void set(uint64_t c) { put(c >> 6, uint64_t{1} << (c & 63)); }
  // Marks the cycles [lo, hi).
  void set_range(uint64_t lo, uint64_t hi) {
    if (lo >= hi) return;
    const uint64_t last = (hi - 1) >> 6;
    uint64_t blk = lo >> 6, m = ~uint64_t{0} << (lo & 63);
    for (; blk < last; ++blk, m = ~uint64_t{0}) put(blk, m);
    put(last, m & ~uint64_t{0} >> (63 - ((hi - 1) & 63)));
  }

 private:
  struct Word {
    uint64_t block = UINT64_MAX;
    uint64_t bits = 0;
  };
  void put(uint64_t blk, uint64_t m) {
    Word& w = words_[blk & mask_];
    w.bits = (w.block == blk ? w.bits : 0) | m;  // (g++ 12: a branch, not a select)
    w.block = blk;
  }
  std::vector<Word> words_;
  uint64_t mask_ = 1;
};

}  // namespace npusim::models::hbm
