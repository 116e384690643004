// The completions in flight of `npusim traffic` (sim/tools/traffic_ring.h): the earliest comes
// out first whatever the distance between them, and a completion far ahead (a sparse trace's
// request at cycle 10^12) costs no memory per cycle.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "sim/tools/traffic_ring.h"

using npusim::sim::CompletionRing;

TEST_CASE("completion ring: the earliest first, near and far ahead mixed", "[traffic]") {
  CompletionRing r;
  // As the generator uses it: pops never go back, pushes are at or after the last pop.
  const std::vector<uint64_t> pushed = {5, 1'000'000'000'000ull, 7, 3'000'000, 6, 2'000'000'000ull, 5};
  for (uint64_t c : pushed) r.push(c);
  std::vector<uint64_t> want = pushed;
  std::sort(want.begin(), want.end());
  REQUIRE(r.size() == want.size());
  std::vector<uint64_t> got;
  got.push_back(r.pop());  // 5
  got.push_back(r.pop());  // 5
  r.push(8);               // after the last pop, before the far ones
  want.insert(std::upper_bound(want.begin(), want.end(), 8), 8);
  while (r.size() != 0) got.push_back(r.pop());
  CHECK(got == want);
  // After the far ones: near again.
  r.push(1'000'000'000'010ull);
  r.push(1'000'000'000'001ull);
  CHECK(r.pop() == 1'000'000'000'001ull);
  CHECK(r.pop() == 1'000'000'000'010ull);
}
