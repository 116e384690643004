// A ring of cycle bits: which cycles of the near future (and the recent past) hold a reserved
// event, for one resource of the reordering controller (ACTs of a unit, column commands of a
// bank group, the data bus). Cycle c is bit c mod size(); the ring covers [floor, floor +
// size()), where floor only moves forward (raise_floor()). Queries and marks outside that range
// see, and leave, nothing: the controller sizes the ring so that they never happen.
// Each 64-cycle word carries the block (cycle / 64) it holds: a word left from an older block
// reads as empty, so moving the floor clears nothing (a unit idle for a long time costs no
// sweep when it is used again).
#pragma once

#include <cstdint>
#include <vector>

namespace npusim::models::hbm {

class Timeline {
 public:
  // `bits` is rounded up to a power of two of at least 128.
  explicit Timeline(uint64_t bits = 128) {
    uint64_t n = 128;
    while (n < bits) n <<= 1;
    words_.assign(n / 64, Word{});
    mask_ = n / 64 - 1;
  }
  uint64_t size() const { return (mask_ + 1) * 64; }
  uint64_t floor() const { return floor_; }
  bool in_range(uint64_t c) const { return c - floor_ < size(); }  // (below: wraps, fails)

  // Forgets every cycle below `f`, a word boundary (a multiple of 64) the caller knows to be
  // at or above the floor.
  void raise_floor(uint64_t f) { floor_ = f; }
  void set(uint64_t c) {
    if (in_range(c)) put(c);
  }
  // set() of a cycle the caller found in range (on this timeline, or on one of the same size
  // whose floor moves with this one's).
  void put(uint64_t c) {
    Word& w = words_[(c >> 6) & mask_];
    // (g++ 12 compiles the select into a branch, which a stream mostly predicts: consecutive
    // marks tend to share a block.)
    const uint64_t keep = w.block == c >> 6 ? w.bits : 0;
    w.bits = keep | uint64_t{1} << (c & 63);
    w.block = c >> 6;
  }
  void set_range(uint64_t lo, uint64_t hi) {
    for (uint64_t c = lo; c < hi; ++c) set(c);
  }
  // The highest marked cycle in [lo, hi), or UINT64_MAX if none.
  uint64_t last_in(uint64_t lo, uint64_t hi) const {
    if (lo < floor_) lo = floor_;
    if (hi > floor_ + size()) hi = floor_ + size();
    while (lo < hi) {
      const uint64_t top = hi - 1;
      const uint64_t word_lo = top & ~uint64_t{63};
      uint64_t w = bits(top);
      w &= ~uint64_t{0} >> (63 - (top & 63));                    // bits <= top
      if (lo > word_lo) w &= ~uint64_t{0} << (lo - word_lo);     // bits >= lo
      if (w != 0) return word_lo + 63 - static_cast<uint64_t>(__builtin_clzll(w));
      if (word_lo <= lo) break;
      hi = word_lo;
    }
    return UINT64_MAX;
  }
  // The marks of block `blk` (cycles [64 blk, 64 blk + 64)), as bits() reads them.
  uint64_t block_bits(uint64_t blk) const { return bits(blk << 6); }
  // The marks of cycles [start, start + 64): bit j is cycle start + j.
  uint64_t bits64(uint64_t start) const {
    const uint64_t off = start & 63;
    const uint64_t lo = bits(start) >> off;
    return off == 0 ? lo : lo | bits(start + 64) << (64 - off);
  }
  bool any(uint64_t lo, uint64_t hi) const { return last_in(lo, hi) != UINT64_MAX; }
  // Appends the marked cycles of [lo, hi), ascending, to out[0..n) (at most `cap`); returns n.
  unsigned collect(uint64_t lo, uint64_t hi, uint64_t* out, unsigned cap) const {
    unsigned n = 0;
    if (lo < floor_) lo = floor_;
    if (hi > floor_ + size()) hi = floor_ + size();
    for (uint64_t c = lo & ~uint64_t{63}; c < hi && n < cap; c += 64) {
      uint64_t w = bits(c);
      if (c < lo) w &= ~uint64_t{0} << (lo - c);
      if (hi - c < 64) w &= (uint64_t{1} << (hi - c)) - 1;
      while (w != 0 && n < cap) {
        out[n++] = c + static_cast<uint64_t>(__builtin_ctzll(w));
        w &= w - 1;
      }
    }
    return n;
  }

 private:
  struct Word {
    uint64_t block = UINT64_MAX;  // cycle / 64 of the bits it holds
    uint64_t bits = 0;
  };
  uint64_t bits(uint64_t c) const {  // the word of cycle c, empty if it holds another block
    const Word& w = words_[(c >> 6) & mask_];
    return w.block == c >> 6 ? w.bits : 0;
  }
  std::vector<Word> words_;
  uint64_t mask_ = 1;
  uint64_t floor_ = 0;
};

}  // namespace npusim::models::hbm
