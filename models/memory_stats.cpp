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
  ++count_;
  sum_ += v;
  max_ = std::max(max_, v);
  min_ = std::min(min_, v);
}

uint64_t LatencyHistogram::percentile(double q) const {
  if (count_ == 0) return 0;
  q = std::clamp(q, 0.0, 1.0);
  uint64_t need = static_cast<uint64_t>(std::ceil(q * static_cast<double>(count_)));
  need = std::max<uint64_t>(need, 1);
  uint64_t seen = 0;
  for (size_t b = 0; b < bins_.size(); ++b) {
    seen += bins_[b];
    if (seen >= need) return std::min(std::max(bucket_floor(b), min()), max_);
  }
  return max_;
}

void LatencyHistogram::merge(const LatencyHistogram& o) {
  if (o.bins_.size() > bins_.size()) bins_.resize(o.bins_.size(), 0);
  for (size_t b = 0; b < o.bins_.size(); ++b) bins_[b] += o.bins_[b];
  count_ += o.count_;
  sum_ += o.sum_;
  max_ = std::max(max_, o.max_);
  min_ = std::min(min_, o.min_);
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
