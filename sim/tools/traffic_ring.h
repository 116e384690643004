// `npusim traffic`'s generator (sim/tools/traffic.cpp): the completions of the requests in
// flight.
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

namespace npusim::sim {

// The completion times of the requests in flight, for the earliest one: a ring of buckets,
// one per clock cycle, with a bitmap of the non-empty ones. The generator only ever asks for
// the earliest completion at or after the latest it took (issue times never go back, and a
// completion is never before its issue), so a cursor moves forward over the bitmap: O(1) per
// request, amortised, where the binary heap it replaced cost O(log outstanding) and 40 % of a
// saturated random run. A completion is kept as its cycle, rounded up: the generator issues on
// clock edges.
class CompletionRing {
 public:
  explicit CompletionRing(uint64_t cycles = 1024) { resize(cycles); }
  size_t size() const { return size_; }
  void push(uint64_t cycle) {
    if (cycle < cursor_) cycle = cursor_;
    while (__builtin_expect(cycle - cursor_ >= count_.size(), 0)) {
      if (count_.size() >= kMaxBuckets) {  // far ahead (a sparse trace): kept aside
        far_.insert(cycle);
        ++size_;
        return;
      }
      grow();
    }
    const uint64_t i = cycle & mask_;
    if (count_[i]++ == 0) bits_[i >> 6] |= uint64_t{1} << (i & 63);
    ++near_;
    ++size_;
  }
  // Removes and returns the earliest cycle (size() > 0).
  uint64_t pop() {
    if (__builtin_expect(near_ == 0, 0)) return pop_far();
    uint64_t c = cursor_;
    for (;;) {
      const uint64_t i = c & mask_;
      const uint64_t w = bits_[i >> 6] & (~uint64_t{0} << (i & 63));
      if (w != 0) {
        const uint64_t j = (i & ~uint64_t{63}) + static_cast<uint64_t>(__builtin_ctzll(w));
        c += j - i;
        if (__builtin_expect(!far_.empty(), 0) && *far_.begin() < c) return pop_far();
        cursor_ = c;
        if (--count_[j] == 0) bits_[j >> 6] &= ~(uint64_t{1} << (j & 63));
        --near_;
        --size_;
        return cursor_;
      }
      c += 64 - (i & 63);  // the next word
    }
  }

 private:
  void resize(uint64_t cycles) {
    uint64_t n = 64;
    while (n < cycles) n <<= 1;
    count_.assign(n, 0);
    bits_.assign(n / 64, 0);
    mask_ = n - 1;
  }
  // Out of line: push() is on the generator's loop, grow() about never.
  __attribute__((noinline)) void grow() {
    std::vector<std::pair<uint64_t, uint32_t>> keep;
    for (uint64_t c = cursor_; c < cursor_ + count_.size(); ++c)
      if (count_[c & mask_] != 0) keep.emplace_back(c, count_[c & mask_]);
    resize(count_.size() * 2);
    for (const auto& [c, n] : keep) {
      count_[c & mask_] = n;
      bits_[(c & mask_) >> 6] |= uint64_t{1} << (c & 63);
    }
  }
  // The earliest of the cycles kept aside; the ring's cursor moves there (the ring's own
  // cycles all lie at or after it).
  __attribute__((noinline)) uint64_t pop_far() {
    const auto it = far_.begin();
    cursor_ = *it;
    far_.erase(it);
    --size_;
    return cursor_;
  }
  // The ring spans at most this many cycles (4 MiB of counts): a completion further ahead of
  // the earliest one goes to far_, so that memory does not grow with the distance in cycles.
  static constexpr uint64_t kMaxBuckets = uint64_t{1} << 20;
  std::multiset<uint64_t> far_;
  size_t near_ = 0;  // in the ring
  std::vector<uint32_t> count_;
  std::vector<uint64_t> bits_;
  uint64_t mask_ = 0, cursor_ = 0;
  size_t size_ = 0;
};

}  // namespace npusim::sim
