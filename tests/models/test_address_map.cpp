#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "models/address_map.h"
#include "models/memory_stats.h"

using npusim::models::AddressMap;
using npusim::models::LatencyHistogram;
using npusim::models::Region;

TEST_CASE("address map: decode, translation and straddling", "[map]") {
  AddressMap m;
  m.add(Region{"hbm", 0x1'0000'0000, 0x4000'0000, 1, 0});
  m.add(Region{"dataram", 0x80000, 0x10000, 0, 0});
  m.add(Region{"window", 0x8000'0000, 0x100'0000, 1, 0x228});
  REQUIRE(m.regions().front().name == "dataram");  // sorted
  const Region* r = m.decode(0x8000'0010, 4);
  REQUIRE(r != nullptr);
  REQUIRE(r->name == "window");
  REQUIRE(r->to_target(0x8000'0010) == 0x238);
  REQUIRE(m.decode(0x8FFFC, 4)->name == "dataram");
  REQUIRE(m.decode(0x8FFFC, 8) == nullptr);  // runs past the end
  REQUIRE(m.decode(0x7FFFF, 1) == nullptr);
  REQUIRE(m.decode(0, 1) == nullptr);
  REQUIRE(m.decode(0x1'4000'0000, 1) == nullptr);
  REQUIRE(m.decode(0x1'3FFF'FFFF, 1)->name == "hbm");
}

TEST_CASE("address map: overlap and empty regions are rejected with both names", "[map]") {
  AddressMap m;
  m.add(Region{"dataram", 0x80000, 0x10000, 0, 0});
  try {
    m.add(Region{"tcm", 0x8F000, 0x2000, 1, 0});
    FAIL("overlap accepted");
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    REQUIRE(msg.find("'tcm'") != std::string::npos);
    REQUIRE(msg.find("'dataram'") != std::string::npos);
    REQUIRE(msg.find("overlaps") != std::string::npos);
  }
  REQUIRE_THROWS_AS(m.add(Region{"empty", 0x100000, 0, 0, 0}), std::invalid_argument);
  REQUIRE_THROWS_AS(m.add(Region{"wrap", ~0ull - 10, 100, 0, 0}), std::invalid_argument);
  m.add(Region{"adjacent", 0x90000, 0x1000, 1, 0});  // touching is fine
  REQUIRE(m.regions().size() == 2);
}

TEST_CASE("latency histogram: exact percentiles below 4096, bounded error above", "[stats]") {
  LatencyHistogram h;
  for (uint64_t v = 1; v <= 100; ++v) h.record(v);
  REQUIRE(h.count() == 100);
  REQUIRE(h.percentile(0.5) == 50);
  REQUIRE(h.percentile(0.99) == 99);
  REQUIRE(h.percentile(1.0) == 100);
  REQUIRE(h.max() == 100);
  REQUIRE(h.mean() == Approx(50.5));
  h.record(1'000'000);
  const uint64_t p = h.percentile(1.0);
  REQUIRE(p <= 1'000'000);
  REQUIRE(p >= 1'000'000 - 1'000'000 / 64);
  LatencyHistogram empty;
  REQUIRE(empty.percentile(0.99) == 0);
}

TEST_CASE("latency histogram: count, mean, min, max and merge against a list of the values",
          "[stats]") {
  // The fast path only bumps a bucket; the summaries come from the buckets (exact values) and
  // the counters of values >= 4096. Compared with the plain list of recorded values.
  uint64_t x = 0x9E3779B97F4A7C15ull;
  auto rnd = [&](uint64_t n) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    return x % n;
  };
  for (int round = 0; round < 20; ++round) {
    LatencyHistogram a, b;
    std::vector<uint64_t> all;
    const int n = static_cast<int>(rnd(3000));
    for (int i = 0; i < n; ++i) {
      const uint64_t v = rnd(10) == 0 ? 4096 + rnd(1'000'000) : (round % 3 ? rnd(300) : rnd(5000));
      (rnd(2) ? a : b).record(v);
      all.push_back(v);
    }
    a.merge(b);
    INFO("round " << round << ", " << all.size() << " values");
    REQUIRE(a.count() == all.size());
    if (all.empty()) {
      CHECK(a.min() == 0);
      CHECK(a.max() == 0);
      CHECK(a.mean() == 0.0);
      continue;
    }
    std::sort(all.begin(), all.end());
    CHECK(a.min() == all.front());
    CHECK(a.max() == all.back());
    double sum = 0;
    for (uint64_t v : all) sum += static_cast<double>(v);
    CHECK(a.mean() == Approx(sum / static_cast<double>(all.size())));
    for (double q : {0.01, 0.5, 0.9, 0.99}) {
      const uint64_t want = all[static_cast<size_t>(std::ceil(q * static_cast<double>(all.size()))) - 1];
      if (want < LatencyHistogram::kExact) CHECK(a.percentile(q) == want);
    }
  }
}
