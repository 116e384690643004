#include <catch2/catch.hpp>

#include <stdexcept>

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
