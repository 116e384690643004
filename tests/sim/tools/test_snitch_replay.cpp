// `npusim snitch replay` (sim/tools/snitch_replay.*): one JSON object per op, traps, errors
// naming file, line and token; expected addresses from the document's formulas (snitch_refs.h).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sim/tools/heap_replay.h"
#include "sim/tools/snitch_replay.h"
#include "tests/allocators/snitch_refs.h"

using namespace snitch_refs;

namespace {

using nlohmann::json;
using npusim::sim::InputError;
using npusim::sim::SnitchReplayOptions;

std::vector<json> snitch_replay(const std::string& text, SnitchReplayOptions opt = {}, int expect_rc = 0) {
  std::istringstream in(text);
  std::ostringstream out;
  REQUIRE(npusim::sim::run_snitch_replay(opt, in, "t.ops", out) == expect_rc);
  std::vector<json> v;
  std::istringstream lines(out.str());
  for (std::string l; std::getline(lines, l);) v.push_back(json::parse(l));
  return v;
}

std::string replay_error(const std::string& text, SnitchReplayOptions opt = {}) {
  std::istringstream in(text);
  std::ostringstream out;
  try {
    npusim::sim::run_snitch_replay(opt, in, "t.ops", out);
  } catch (const InputError& e) {
    CHECK(out.str().empty());  // nothing printed for a malformed trace
    return e.what();
  }
  FAIL("no InputError");
  return {};
}

}  // namespace

TEST_CASE("snitch replay: one JSON object per op with the documented keys", "[snitch][replay]") {
  const auto v = snitch_replay(
      "# comment\nalloc 16\n\nalloc 8 3   # trailing comment\n"
      "alloc_core_local 4 8\nupdate_next 0x10000004\nalloc 1\n");
  REQUIRE(v.size() == 5);
  for (const auto& j : v)
    for (const char* k : {"line", "op", "addr", "next", "trap"}) CHECK(j.contains(k));
  CHECK(v[0]["line"] == 2);
  CHECK(v[0]["op"] == "alloc");
  CHECK(v[0]["addr"] == kTcdm + 4);  // after the runtime's barrier allocation
  CHECK(v[0]["next"] == kTcdm + 20);
  CHECK(v[0]["trap"] == false);
  CHECK_FALSE(v[0].contains("trap_info"));
  CHECK(v[1]["line"] == 4);
  CHECK(v[1]["addr"] == ref_align(kTcdm + 20, 3));
  CHECK(v[2]["op"] == "alloc_core_local");
  const uint64_t block = ref_align(ref_align(kTcdm + 20, 3) + 8, 8);
  CHECK(v[2]["addr"] == block);  // core 0
  CHECK(v[2]["next"] == block + 4 * 8);
  CHECK(v[2]["undefined"] == false);
  CHECK(v[3]["op"] == "update_next");
  CHECK(v[3]["addr"].is_null());
  CHECK(v[3]["next"] == 0x10000004);
  CHECK(v[4]["addr"] == 0x10000004);
}

TEST_CASE("snitch replay: core index, DM core and compute core count", "[snitch][replay]") {
  SnitchReplayOptions o;
  o.core_idx = 3;
  auto v = snitch_replay("alloc_core_local 16\n", o);
  CHECK(v[0]["addr"] == kTcdm + 4 + 3 * 16);
  CHECK(v[0]["next"] == kTcdm + 4 + 8 * 16);
  o.core_idx = 8;
  v = snitch_replay("alloc_core_local 16\n", o);
  CHECK(v[0]["undefined"] == true);
  o.compute_cores = 4;
  o.core_idx = 1;
  v = snitch_replay("alloc_core_local 16\n", o);
  CHECK(v[0]["next"] == kTcdm + 4 + 4 * 16);
}

TEST_CASE("snitch replay: traps carry trap_info and the advanced next", "[snitch][replay]") {
  SnitchReplayOptions o;
  o.base = 0x10000000;
  o.end = 0x10000100;
  o.startup_bytes = 0;
  auto v = snitch_replay("alloc 0x100\nalloc 1\nalloc 2\n", o);
  CHECK(v[0]["trap"] == false);  // L1 exact fit
  CHECK(v[1]["trap"] == true);
  CHECK(v[1]["next"] == 0x10000101);
  CHECK(v[1]["trap_info"]["call"] == "snrt_l1_alloc_cluster_local");
  CHECK(v[1]["trap_info"]["size"] == 1);
  CHECK(v[1]["trap_info"]["past_end"] == 1);
  CHECK(v[2]["trap_info"]["past_end"] == 3);  // record policy: the trace goes on

  SECTION("stop_on_trap ends the replay at the trapping line with exit code 1") {
    o.stop_on_trap = true;
    v = snitch_replay("alloc 0x100\nalloc 1\nalloc 2\n", o, 1);
    CHECK(v.size() == 2);
  }
  SECTION("L3: an exact fit traps, past_end 0") {
    SnitchReplayOptions l3;
    l3.allocator = "snitch-l3";
    l3.base = 0x80000003;  // aligned up to 8 by l3_init
    l3.end = 0x80000108;
    v = snitch_replay("alloc 0x100\nalloc 0 16\n", l3);
    CHECK(v[0]["addr"] == 0x80000008);
    CHECK(v[0]["trap"] == true);
    CHECK(v[0]["trap_info"]["call"] == "snrt_l3_alloc_v2");
    CHECK(v[0]["trap_info"]["past_end"] == 0);
  }
  SECTION("L3 defaults: from align_up(_edram, 8) up to 2^32") {
    SnitchReplayOptions l3;
    l3.allocator = "snitch-l3";
    v = snitch_replay("alloc 64\n", l3);
    CHECK(v[0]["addr"] == ref_align(SnitchConfig{}.edram, 8));
  }
}

TEST_CASE("snitch replay: malformed lines name file, line and token", "[snitch][replay]") {
  using Catch::Contains;
  CHECK_THAT(replay_error("alloc 8\nfrobnicate 3\n"),
             Contains("t.ops:2:") && Contains("'frobnicate'"));
  CHECK_THAT(replay_error("alloc 8\n\nalloc 0x1g\n"), Contains("t.ops:3:") && Contains("'0x1g'"));
  CHECK_THAT(replay_error("alloc 8 0\n"),
             Contains("t.ops:1:") && Contains("alignment 0") && Contains("'0'"));
  CHECK_THAT(replay_error("alloc\n"), Contains("t.ops:1:") && Contains("SIZE [ALIGN]"));
  CHECK_THAT(replay_error("alloc 1 2 3\n"), Contains("t.ops:1:") && Contains("'3'"));
  CHECK_THAT(replay_error("alloc 0x100000000\n"), Contains("32-bit") && Contains("'0x100000000'"));
  CHECK_THAT(replay_error("update_next\n"), Contains("t.ops:1:") && Contains("ADDR"));
  SnitchReplayOptions l3;
  l3.allocator = "snitch-l3";
  CHECK_THAT(replay_error("alloc 4\nalloc_core_local 4\n", l3),
             Contains("t.ops:2:") && Contains("'alloc_core_local'") && Contains("snitch-l1"));
  CHECK_THAT(replay_error("update_next 0x10\n", l3), Contains("'update_next'"));
}

TEST_CASE("snitch replay: bad options name the command line", "[snitch][replay]") {
  using Catch::Contains;
  SnitchReplayOptions o;
  o.allocator = "snitch-l2";
  CHECK_THAT(replay_error("alloc 1\n", o), Contains("command line") && Contains("'snitch-l2'"));
  o = {};
  o.core_idx = 9;
  CHECK_THAT(replay_error("alloc 1\n", o), Contains("--core-idx") && Contains("'9'"));
  o = {};
  o.compute_cores = 0;
  CHECK_THAT(replay_error("alloc 1\n", o), Contains("--compute-cores"));
  o = {};
  o.compute_cores = 500;
  CHECK_THAT(replay_error("alloc 1\n", o), Contains("--compute-cores"));
  o = {};
  o.base = 0x100000000ull;
  CHECK_THAT(replay_error("alloc 1\n", o), Contains("--base"));
  o = {};
  o.end = 0x100000000ull;  // L1 heap_end_addr is a uint32_t
  CHECK_THAT(replay_error("alloc 1\n", o), Contains("--end"));
  o.allocator = "snitch-l3";  // ...but 2^32 is SNRT_L3_END_ADDR
  CHECK(snitch_replay("alloc 1\n", o).size() == 1);
}

TEST_CASE("snitch replay: the documented example, keys in documented order", "[snitch][replay]") {
  SnitchReplayOptions o;
  o.core_idx = 2;
  std::istringstream in("alloc 16\nalloc_core_local 8 8\nupdate_next 0x10000004\n");
  std::ostringstream out;
  REQUIRE(npusim::sim::run_snitch_replay(o, in, "t.ops", out) == 0);
  // From the formulas: start at TCDM + 4; block at align_up(TCDM + 20, 8); core 2 at +2*8.
  const uint64_t a1 = kTcdm + 4, n1 = a1 + 16, blk = ref_align(n1, 8), n2 = blk + 8 * 8;
  std::ostringstream expect;
  expect << R"({"line":1,"op":"alloc","addr":)" << a1 << R"(,"next":)" << n1 << R"(,"trap":false})"
         << '\n'
         << R"({"line":2,"op":"alloc_core_local","addr":)" << blk + 16 << R"(,"next":)" << n2
         << R"(,"trap":false,"undefined":false})" << '\n'
         << R"({"line":3,"op":"update_next","addr":null,"next":)" << 0x10000004
         << R"(,"trap":false})" << '\n';
  CHECK(out.str() == expect.str());
}
