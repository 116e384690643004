// Per-model statistics: request and byte counts, a latency histogram (mean, percentiles, max),
// DRAM row outcomes and bandwidth over time. Plain C++; the models fill them, reports read them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace npusim::models {

// Latency histogram in cycles: exact below kExact, then 64 buckets per power of two (relative
// error under 1.6 %). Mean and max are exact.
class LatencyHistogram {
 public:
  static constexpr uint64_t kExact = 4096;

  void record(uint64_t cycles) {
    // Inline fast path: an exact bucket that already exists. Count, sum, minimum and
    // maximum of exact values follow from their buckets when asked for.
    if (__builtin_expect(cycles < fast_limit_, 1)) {
      ++bins_[cycles];
      return;
    }
    record_slow(cycles);
  }
  uint64_t count() const;
  uint64_t max() const;
  uint64_t min() const;  // 0 when empty
  double mean() const;   // 0 when empty
  // The smallest recorded value v such that at least fraction q of the samples are <= v
  // (rounded down to its bucket above kExact). q in [0, 1]; 0 when empty.
  uint64_t percentile(double q) const;
  void merge(const LatencyHistogram& other);

 private:
  void record_slow(uint64_t cycles);
  static size_t bucket(uint64_t v);
  static uint64_t bucket_floor(size_t b);
  size_t exact_bins() const { return bins_.size() < kExact ? bins_.size() : kExact; }

  std::vector<uint64_t> bins_;
  uint64_t fast_limit_ = 0;  // exact_bins()
  // Values >= kExact share buckets: their count, sum, maximum and minimum are kept here.
  uint64_t big_count_ = 0, big_sum_ = 0, big_max_ = 0, big_min_ = UINT64_MAX;
};

// Bytes completed per fixed window of simulated time (the window is the model's
// stats_window_ns; index i covers [i * window, (i + 1) * window)).
struct BandwidthSeries {
  double window_ns = 1000.0;
  std::vector<uint64_t> bytes;
  void add(double completion_ns, uint64_t n);
  // The window a completion at `completion_ns` falls in (before any coarsening by add()).
  size_t index_of(double completion_ns) const {
    const double w = completion_ns / window_ns;
    return w <= 0 ? 0 : static_cast<size_t>(w);
  }
};

struct MemoryStats {
  uint64_t reads = 0, writes = 0;
  uint64_t bytes_read = 0, bytes_written = 0;
  uint64_t errors = 0;       // requests answered with an error response
  uint64_t debug_accesses = 0;
  // DRAM only: per burst, the state of its bank when it arrived.
  uint64_t row_hits = 0, row_misses = 0, row_conflicts = 0;
  uint64_t refreshes = 0;
  // SRAM only: beats that waited for a busy bank.
  uint64_t bank_conflicts = 0;
  uint64_t dmi_grants = 0;
  LatencyHistogram latency_cycles;  // arrival at the model to completion, model clock cycles
  BandwidthSeries bandwidth;
  uint64_t first_arrival_cycle = UINT64_MAX, last_completion_cycle = 0;

  uint64_t requests() const { return reads + writes; }
  uint64_t bytes() const { return bytes_read + bytes_written; }
  double row_hit_rate() const {
    const uint64_t n = row_hits + row_misses + row_conflicts;
    return n ? static_cast<double>(row_hits) / static_cast<double>(n) : 0.0;
  }
};

}  // namespace npusim::models
