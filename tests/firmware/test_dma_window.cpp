// The window rule check itself (plain C++): every case the window rules name.
#include <catch2/catch.hpp>

#include "models/dma_window.h"

using namespace npusim::models;

namespace {
std::vector<WindowFinding> check(uint64_t src, uint64_t dst, uint64_t len) {
  return check_windows({WindowRule{}}, DmaTransfer{src, dst, len});
}
constexpr uint64_t kHbm = 0x1'0000'0000ull;
}  // namespace

TEST_CASE("window rule text is the firmware's assertion", "[window]") {
  CHECK(WindowRule{}.text() == "dram_addr >= 0x80000 && dram_addr < 0x90000");
}

TEST_CASE("window: inside, including a transfer ending exactly at the bound", "[window]") {
  CHECK(check(kHbm, 0x80000, 0x10000).empty());
  CHECK(check(0x8ff00, kHbm, 0x100).empty());
  CHECK(check(kHbm, 0x85000, 0).empty());  // zero length, start inside
}

TEST_CASE("window: fully outside, below and above", "[window]") {
  auto below = check(kHbm, 0x7f000, 0x100);
  REQUIRE(below.size() == 1);
  CHECK(below[0].side == "dst");
  CHECK(below[0].bound == "lower");
  CHECK(below[0].bound_value == 0x80000);
  CHECK_FALSE(below[0].start_inside);
  auto above = check(0x90000, kHbm, 0x100);
  REQUIRE(above.size() == 1);
  CHECK(above[0].side == "src");
  CHECK(above[0].bound == "upper");
  CHECK_FALSE(above[0].start_inside);
}

TEST_CASE("window: start inside, end outside is the case the firmware misses", "[window]") {
  auto f = check(kHbm, 0x8ffff, 2);
  REQUIRE(f.size() == 1);
  CHECK(f[0].start_inside);
  CHECK(f[0].bound == "upper");
  CHECK(f[0].addr == 0x8ffff);
  CHECK(f[0].end == 0x90001);
  CHECK_THAT(f[0].describe(), Catch::Contains("start-only assertion"));
}

TEST_CASE("window: zero length is checked on its start alone", "[window]") {
  CHECK(check(kHbm, 0x90000, 0).size() == 1);
  CHECK(check(kHbm, 0x7ffff, 0).size() == 1);
}

TEST_CASE("window: HBM addresses are out of scope, both sides are checked", "[window]") {
  CHECK(check(kHbm, kHbm + 0x1000, 1 << 20).empty());
  CHECK(check(0x80000000, kHbm, 64).empty());  // the core's HBM window is not dataram
  CHECK(check(0x70000, 0x95000, 16).size() == 2);
}

TEST_CASE("window: a length that wraps the address space is outside", "[window]") {
  auto f = check(kHbm, 0x80000, UINT64_MAX);
  REQUIRE(f.size() == 1);
  CHECK(f[0].end == UINT64_MAX);
}
