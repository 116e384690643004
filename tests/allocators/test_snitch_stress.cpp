// The Snitch alloc_v2 model under its invariant checker and seeded random traces: an
// independent reference (the document's formulas, snitch_refs.h) predicts every result.
#include <algorithm>
#include <catch2/catch.hpp>
#include <random>

#include "allocators/snitch/snitch_check.h"
#include "tests/allocators/snitch_refs.h"

using namespace snitch_refs;

// ---- the invariant checker ----

TEST_CASE("snitch checker: reports overlap, out-of-bounds and cut rewinds", "[snitch][check]") {
  AllocationChecker ck(0x1000, 0x2000, false);
  CHECK(ck.add(0x1000, 0x100, false, "a").empty());
  CHECK(ck.add(0x1100, 0x100, false, "b").empty());
  CHECK(ck.add(0x1f00, 0x100, false, "exact fit").empty());  // L1: up to end inclusive
  CHECK(ck.add(0x10f0, 0x20, false, "c").size() == 2);       // overlaps a and b
  CHECK(ck.add(0x0ff0, 0x8, false, "low").size() == 1);
  CHECK(ck.add(0x1ff0, 0x20, false, "high").size() == 2);  // past end and overlaps "exact fit"
  CHECK(ck.add(0x1ff0, 0x20, true, "trapped").empty());
  CHECK(ck.trapped() == 1);
  CHECK(ck.rewind(0x1080).size() == 1);  // cuts "a" [0x1000, 0x1100)
  CHECK(ck.rewind(0x1000).empty());
  CHECK(ck.live().size() == 1);  // "low" below base is still recorded

  AllocationChecker l3(0x1000, 0x2000, true);
  CHECK(l3.add(0x1f00, 0xff, false, "short").empty());
  CHECK(l3.add(0x1fff, 0x1, false, "exact").size() == 1);  // L3: exact fit must trap
}

// mimalloc-style stress: a seeded generator drives the whole cluster through the model; an
// independent reference (the document's formulas) predicts every result; every allocation is
// filled with a pattern that is verified before it is released, so an end bound that reached
// into the stacks/TLS (the allocator state) or an overlap shows up.
TEST_CASE("snitch: seeded random cluster trace keeps every invariant", "[snitch][stress]") {
  for (uint32_t seed : {1u, 7u, 42u, 2024u}) {
    INFO("seed " << seed);
    std::mt19937 rng(seed);
    Fx f;
    Cluster<HostMemory> cl(f.mem, f.cfg, TrapPolicy::kRecord);
    cl.start_up();
    const auto s0 = cl.core(0).l1_state();
    const uint64_t end = ref_l1_end(f.cfg);
    REQUIRE(s0.end == end);
    AllocationChecker ck(s0.base, end, false);
    struct Live {
      uint64_t addr, bytes;
      uint8_t pattern;
    };
    std::vector<Live> live;
    std::vector<uint64_t> marks{kTcdm + 4};
    uint64_t ref_next = kTcdm + 4;  // after the barrier allocation
    bool trapped_since_rewind = false;
    uint8_t pat = 1;
    auto fill = [&](uint64_t a, uint64_t n, uint8_t p) {
      std::vector<uint8_t> buf(n, p);
      f.mem.write(a, buf.data(), n);
      live.push_back({a, n, p});
    };
    auto verify = [&] {
      for (const auto& l : live) {
        std::vector<uint8_t> buf(l.bytes);
        f.mem.read(l.addr, buf.data(), l.bytes);
        for (uint64_t i = 0; i < l.bytes; ++i)
          if (buf[i] != l.pattern) FAIL("pattern broken at " << hex(l.addr + i));
      }
    };
    const uint32_t aligns[] = {1, 2, 3, 4, 5, 7, 8, 12, 16, 24, 64};
    for (int step = 0; step < 600; ++step) {
      const uint32_t kind = rng() % 10;
      const uint32_t a = aligns[rng() % (sizeof aligns / sizeof aligns[0])];
      if (kind < 5) {
        const uint32_t size = rng() % 2048;
        const auto rs = cl.l1_alloc_cluster_local(size, a);
        const uint64_t addr = ref_align(ref_next, a);
        ref_next = addr + size;
        for (const auto& r : rs) {
          REQUIRE(r.addr == addr);
          REQUIRE(r.next == ref_next);
          REQUIRE(r.trapped == (ref_next > end));
        }
        const auto errs = ck.add(addr, size, rs[0].trapped, "cluster_local");
        INFO((errs.empty() ? std::string() : errs.front()));
        REQUIRE(errs.empty());
        if (rs[0].trapped)
          trapped_since_rewind = true;
        else
          fill(addr, size, pat++);
      } else if (kind < 8) {
        const uint32_t size = rng() % 256;
        const auto rs = cl.l1_alloc_compute_core_local(size, a);
        const uint64_t block = ref_align(ref_next, a);
        ref_next = block + uint64_t{size} * 8;
        for (uint32_t i = 0; i < rs.size(); ++i) {
          REQUIRE(rs[i].addr == block + uint64_t{size} * i);
          REQUIRE(rs[i].trapped == (ref_next > end));
          REQUIRE(rs[i].undefined == (i == 8));
        }
        const auto errs = ck.add(block, uint64_t{size} * 8, rs[0].trapped, "core_local");
        INFO((errs.empty() ? std::string() : errs.front()));
        REQUIRE(errs.empty());
        if (rs[0].trapped) {
          trapped_since_rewind = true;
        } else {
          for (uint32_t i = 0; i < 8; ++i) fill(rs[i].addr, size, pat++);  // each core's slice
        }
      } else if (kind == 8) {
        marks.push_back(ref_next);  // snrt_l1_next_v2(), kept for a later rewind
      } else {
        const uint64_t m = marks[rng() % marks.size()];
        verify();
        cl.l1_update_next(static_cast<uint32_t>(m));
        ref_next = m;
        const auto errs = ck.rewind(m);
        REQUIRE(errs.empty());
        live.erase(
            std::remove_if(live.begin(), live.end(), [&](const Live& l) { return l.addr >= m; }),
            live.end());
        marks.erase(std::remove_if(marks.begin(), marks.end(), [&](uint64_t x) { return x > m; }),
                    marks.end());
        trapped_since_rewind = false;
      }
      REQUIRE(cl.check_in_step().empty());
      if (!trapped_since_rewind && ref_next <= end) {
        const auto errs = cl.core(0).check_l1();
        INFO((errs.empty() ? std::string() : errs.front()));
        REQUIRE(errs.empty());
      }
      if (pat == 0) pat = 1;
    }
    verify();
    CHECK(ck.checked() > 0);
  }
}

TEST_CASE("snitch: seeded random L3 trace keeps every invariant", "[snitch][stress]") {
  std::mt19937 rng(99);
  Fx f;
  auto c = f.core(1, TrapPolicy::kRecord);
  const uint32_t base = 0x80100000;
  const uint64_t end = base + 0x10000;
  c.l3_init_at(base, end);
  AllocationChecker ck(base, end, true);
  uint64_t ref_next = base;
  int traps = 0;
  for (int i = 0; i < 300; ++i) {
    const uint32_t a = 1 + rng() % 40, size = rng() % 600;
    const auto r = c.l3_alloc(size, a);
    const uint64_t addr = ref_align(ref_next, a);
    ref_next = addr + size;
    REQUIRE(r.addr == addr);
    REQUIRE(r.trapped == (ref_next >= end));
    traps += r.trapped;
    REQUIRE(ck.add(addr, size, r.trapped, "l3").empty());
  }
  CHECK(traps > 0);  // the trace does run past the end
  CHECK(static_cast<size_t>(traps) == c.traps().size());
}
