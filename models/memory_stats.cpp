#include "models/memory_stats.h"

#include <algorithm>
#include <cmath>

namespace npusim::models {

namespace {
constexpr unsigned kSubBits = 6;  // 64 buckets per octave
constexpr unsigned kExactBits = 12;
static_assert((uint64_t{1} << kExactBits) == LatencyHistogram::kExact);
}  // namespace

size_t LatencyHistogram::bucket(uint64_t v) {
  if (v < kExact) return static_cast<size_t>(v);
  unsigned e = 63 - static_cast<unsigned>(__builtin_clzll(v));  // e >= kExactBits
  const uint64_t sub = (v >> (e - kSubBits)) & ((1u << kSubBits) - 1);
  return static_cast<size_t>(kExact + (e - kExactBits) * (1u << kSubBits) + sub);
}

uint64_t LatencyHistogram::bucket_floor(size_t b) {
  if (b < kExact) return b;
  const uint64_t k = b - kExact;
  const unsigned e = static_cast<unsigned>(k >> kSubBits) + kExactBits;
  const uint64_t sub = k & ((1u << kSubBits) - 1);
  return (uint64_t{1} << e) | (sub << (e - kSubBits));
}

void LatencyHistogram::record_slow(uint64_t v) {
  const size_t b = bucket(v);
  if (b >= bins_.size()) bins_.resize(std::max<size_t>(b + 1, 64), 0);
  ++bins_[b];
  if (v >= kExact) {
    ++big_count_;
    big_sum_ += v;
    big_max_ = std::max(big_max_, v);
    big_min_ = std::min(big_min_, v);
  }
  fast_limit_ = exact_bins();
}

uint64_t LatencyHistogram::count() const {
  uint64_t n = big_count_;
  for (size_t b = 0, e = exact_bins(); b < e; ++b) n += bins_[b];
  return n;
}

double LatencyHistogram::mean() const {
  uint64_t n = big_count_, sum = big_sum_;
  for (size_t b = 0, e = exact_bins(); b < e; ++b) {
    n += bins_[b];
    sum += b * bins_[b];
  }
  return n ? static_cast<double>(sum) / static_cast<double>(n) : 0.0;
}

uint64_t LatencyHistogram::max() const {
  if (big_count_) return big_max_;
  for (size_t b = exact_bins(); b > 0; --b)
    if (bins_[b - 1]) return b - 1;
  return 0;
}

uint64_t LatencyHistogram::min() const {
  for (size_t b = 0, e = exact_bins(); b < e; ++b)
    if (bins_[b]) return b;
  return big_count_ ? big_min_ : 0;
}

uint64_t LatencyHistogram::percentile(double q) const {
  const uint64_t n = count();
  if (n == 0) return 0;
  q = std::clamp(q, 0.0, 1.0);
  uint64_t need = static_cast<uint64_t>(std::ceil(q * static_cast<double>(n)));
  need = std::max<uint64_t>(need, 1);
  const uint64_t lo = min(), hi = max();
  uint64_t seen = 0;
  for (size_t b = 0; b < bins_.size(); ++b) {
    seen += bins_[b];
    if (seen >= need) return std::min(std::max(bucket_floor(b), lo), hi);
  }
  return hi;
}

void LatencyHistogram::merge(const LatencyHistogram& o) {
  if (o.bins_.size() > bins_.size()) bins_.resize(o.bins_.size(), 0);
  for (size_t b = 0; b < o.bins_.size(); ++b) bins_[b] += o.bins_[b];
  big_count_ += o.big_count_;
  big_sum_ += o.big_sum_;
  big_max_ = std::max(big_max_, o.big_max_);
  big_min_ = std::min(big_min_, o.big_min_);
  fast_limit_ = exact_bins();
}

void BandwidthSeries::add(double completion_ns, uint64_t n) {
  // Bounded memory: past kMaxWindows the series coarsens (window doubles, pairs merge).
  constexpr size_t kMaxWindows = size_t{1} << 16;
  double w = completion_ns / window_ns;
  while (w >= static_cast<double>(kMaxWindows)) {
    for (size_t j = 0; j < bytes.size(); ++j)
      bytes[j / 2] = (j % 2 ? bytes[j / 2] : 0) + bytes[j];
    bytes.resize((bytes.size() + 1) / 2);
    window_ns *= 2;
    w = completion_ns / window_ns;
  }
  const size_t i = index_of(completion_ns);
  if (i >= bytes.size()) bytes.resize(i + 1, 0);
  bytes[i] += n;
}

}  // namespace npusim::models
