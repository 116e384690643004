// The request streams of `npusim traffic` (sim/traffic.cpp: the same xorshift64* and address
// formulas), for driving an HBM controller directly: bench_hbm_engine and the DRAMsim3
// comparisons (bench/compare_dramsim3.sh, bench/dramsim3/) replay identical streams.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace npusim::bench {

struct HbmRequest {
  uint64_t offset;
  bool write;
};

// pattern: seq | random | stride:BYTES; offsets from 0 inside `span`.
inline std::vector<HbmRequest> hbm_stream(const std::string& pattern, uint64_t n,
                                          double read_ratio, uint64_t seed, uint64_t span,
                                          uint64_t size = 64) {
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  auto next = [&x] {
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    return x * 0x2545F4914F6CDD1Dull;
  };
  const uint64_t slots = span / size;
  const uint64_t stride =
      pattern.rfind("stride:", 0) == 0 ? std::stoull(pattern.substr(7), nullptr, 0) : 0;
  std::vector<HbmRequest> out(n);
  for (uint64_t i = 0; i < n; ++i) {
    const bool read =
        read_ratio >= 1.0 ||
        (read_ratio > 0.0 && static_cast<double>(next() >> 11) * 0x1.0p-53 < read_ratio);
    uint64_t a;
    if (pattern == "seq") {
      a = (i % slots) * size;
    } else if (pattern == "random") {
      a = static_cast<uint64_t>((static_cast<unsigned __int128>(next()) * slots) >> 64) * size;
    } else {
      a = std::min((i * stride) % span, span - size);
    }
    out[i] = HbmRequest{a, !read};
  }
  return out;
}

}  // namespace npusim::bench
