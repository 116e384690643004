// `npusim heap replay`: parsing, output format, wrapper semantics.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sim/tools/heap_replay.h"

using namespace npusim::sim;
using nlohmann::json;

namespace {
std::vector<json> replay(const std::string& text, ReplayOptions opt = {}) {
  std::istringstream in(text);
  const auto ops = parse_ops(in, "t.ops");
  std::ostringstream out;
  REQUIRE(run_heap_replay(opt, ops, "t.ops", out) == 0);
  std::vector<json> v;
  std::istringstream lines(out.str());
  for (std::string l; std::getline(lines, l);) v.push_back(json::parse(l));
  return v;
}
}  // namespace

TEST_CASE("replay: every line carries the documented keys", "[replay]") {
  const auto v = replay("alloc 100 16\nfree_space 1 max\nfree 0x10000000\ninit 0x100 4\n");
  REQUIRE(v.size() == 4);
  for (const auto& j : v) {
    for (const char* k : {"op", "status", "addr", "result", "free_bytes", "allocated_bytes",
                          "unused_bytes", "largest_free", "descriptors_used", "free_list"})
      CHECK(j.contains(k));
  }
  CHECK(v[0]["op"] == "alloc");
  CHECK(v[0]["addr"] == 0x10000000);
  CHECK(v[0]["descriptors_used"] == 2);
  CHECK(v[0]["free_list"] == json::array({json::array({0x10000064, 0x10000 - 100})}));
  CHECK(v[1]["result"] == 0x10000 - 100);
  CHECK(v[2]["status"] == 0);
  CHECK(v[3]["free_bytes"] == 0x100);
  CHECK(v[3]["largest_free"] == 0x100);
}

TEST_CASE("replay: failures are statuses, not errors", "[replay]") {
  const auto v = replay("alloc 0 4\nalloc 8 3\nalloc 0x20000 1\nfree 0\nfree 0x10000004\n");
  CHECK(v[0]["status"] == -98);
  CHECK(v[1]["status"] == -99);
  CHECK(v[2]["status"] == -100);
  CHECK(v[2]["addr"].is_null());
  CHECK(v[3]["status"] == -97);
  CHECK(v[4]["status"] == -97);
}

TEST_CASE("replay: neuron-hbm reports 64-bit device addresses and wrapper status", "[replay]") {
  ReplayOptions o;
  o.allocator = "neuron-hbm";
  const auto v = replay("alloc 64 0\nalloc 0 0\nfree 0x100000240\n", o);
  CHECK(v[0]["addr"] == 0x100000240ull);
  CHECK(v[0]["status"] == 0);
  CHECK(v[1]["status"] == -1);
  CHECK(v[1]["xmem_status"] == -98);
  CHECK(v[2]["status"] == 0);
  CHECK(v[2]["free_list"][0][0] == 0x100000228ull);
}

TEST_CASE("replay: neuron-dataram runs on the documented pool", "[replay]") {
  ReplayOptions o;
  o.allocator = "neuron-dataram";
  const auto v = replay("alloc 4096 0\n", o);
  CHECK(v[0]["addr"] == 0x80440);
  CHECK(v[0]["unused_bytes"] == 0x14);
}

TEST_CASE("replay: header 'none' gives xmem's 64 in-pool descriptors", "[replay]") {
  ReplayOptions o;
  o.header = "none";
  o.pool_size = 0x2000;
  const auto v = replay("alloc 16 1\n", o);
  CHECK(v[0]["addr"] == 0x10000000 + 1032);
  CHECK(v[0]["descriptors_used"] == 3);
}

TEST_CASE("replay: a malformed line names file, line and token", "[replay]") {
  auto err = [](const std::string& text) {
    std::istringstream in(text);
    try {
      parse_ops(in, "bad.ops");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(err("alloc 1 1\n\nallc 1 1\n") == "bad.ops:3: unknown op (expected init, alloc, free or free_space) (at 'allc')");
  CHECK_THAT(err("alloc 12x 4\n"), Catch::Contains("bad.ops:1:") && Catch::Contains("'12x'"));
  CHECK_THAT(err("alloc 1\n"), Catch::Contains("bad.ops:1: 'alloc' takes SIZE ALIGN"));
  CHECK_THAT(err("free_space 1 most\n"), Catch::Contains("(at 'most')"));
  CHECK_THAT(err("alloc 0x100000000 1\n"), Catch::Contains("exceeds"));
  CHECK_THAT(err("alloc -5 1\n"), Catch::Contains("(at '-5')"));
  CHECK(err("# only a comment\n  alloc 1 1 # trailing\n") == "no error");
}

TEST_CASE("replay: impossible layouts are input errors", "[replay]") {
  ReplayOptions o;
  o.pool_base = 0xffff0000;
  o.pool_size = 0x20000;
  std::istringstream in("");
  std::ostringstream out;
  CHECK_THROWS_AS(run_heap_replay(o, parse_ops(in, "x"), "x", out), InputError);
  ReplayOptions dr;
  dr.allocator = "neuron-dataram";
  std::istringstream big("init 0x20000 32\n");  // runs past dataram
  const auto ops = parse_ops(big, "big.ops");
  try {
    run_heap_replay(dr, ops, "big.ops", out);
    FAIL("expected an error");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("big.ops:1:") && Catch::Contains("unmapped"));
  }
}

TEST_CASE("replay: summary reports failures and exhaustion", "[replay]") {
  ReplayOptions o;
  o.blocks = 2;
  o.summary = true;
  std::istringstream in("alloc 16 1\nalloc 16 1\nalloc 16 1\n");
  const auto ops = parse_ops(in, "s.ops");
  std::ostringstream out;
  run_heap_replay(o, ops, "s.ops", out);
  CHECK_THAT(out.str(), Catch::Contains("descriptor exhaustion events"));
  CHECK_THAT(out.str(), Catch::Contains("failed: line 3: alloc 16 align 1 -> -100"));
}
