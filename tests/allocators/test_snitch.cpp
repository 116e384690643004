// The Snitch alloc_v2 model against the documented runtime behaviour (seed 003 and the runtime
// facts of the Snitch issue). Expected values are derived in the tests from the document's
// formulas (often with a differently written but equivalent formula), never copied from the
// model's output.
#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "allocators/memory_port.h"
#include "allocators/snitch/alloc_v2.h"
#include "sim/tools/heap_replay.h"
#include "sim/tools/snitch_replay.h"

using namespace npusim::alloc;
using namespace npusim::alloc::snitch;

namespace {

constexpr uint64_t kTcdm = 0x1000'0000, kTcdmSize = 128 * 1024;
constexpr uint64_t kTwo32 = 0x1'0000'0000ull;

// The smallest multiple of a that is >= x: the meaning of align_up, written without the
// division formula.
uint64_t ref_align(uint64_t x, uint64_t a) {
  return x % a == 0 ? x : x + (a - x % a);
}

// snrt_l1_init's end for a config, from the document: CLS base - 2^LOG2 * cores - 128, where
// the CLS is the top cls_size bytes of the TCDM.
uint64_t ref_l1_end(const SnitchConfig& c) {
  return (c.tcdm_start + c.tcdm_size - c.cls_size) -
         (uint64_t{1} << c.log2_stack_size) * (c.compute_cores + 1) - 128;
}

struct Fx {
  SnitchConfig cfg;
  HostMemory mem;
  explicit Fx(SnitchConfig c = {}) : cfg(c) {
    mem.add_region("tcdm", cfg.tcdm_base(), cfg.tcdm_size);
  }
  CoreAllocator<HostMemory> core(uint32_t idx, TrapPolicy p = TrapPolicy::kStop) {
    return CoreAllocator<HostMemory>(mem, cfg, idx, p);
  }
  uint64_t word64(uint64_t a) {
    return uint64_t{mem.load32(a)} | uint64_t{mem.load32(a + 4)} << 32;
  }
};

}  // namespace

TEST_CASE("snitch: platform defaults are the documented Snitch cluster", "[snitch]") {
  const SnitchConfig c;
  CHECK(c.compute_cores == 8);
  CHECK(c.dm_cores == 1);
  CHECK(c.core_num() == 9);
  CHECK(c.tcdm_start == 0x10000000);
  CHECK(c.tcdm_size == 0x20000);
  CHECK(c.log2_stack_size == 10);
  CHECK(c.stack_size() == 1024);
  CHECK(c.l3_start == 0x80000000);
  CHECK(c.l3_end == kTwo32);
  CHECK(c.startup_l1_bytes == 4);
  CHECK(c.cls_base() == c.tcdm_start + c.tcdm_size - c.cls_size);
  CHECK_NOTHROW(c.validate());
}

TEST_CASE("snitch: l1_init bounds leave the CLS, one stack per core and 128 B", "[snitch]") {
  Fx f;
  auto c = f.core(0);
  c.l1_init();
  const auto s = c.l1_state();
  CHECK(s.base == kTcdm);  // already 8-aligned
  CHECK(s.end == kTcdm + kTcdmSize - f.cfg.cls_size - 9 * 1024 - 128);
  CHECK(s.end == ref_l1_end(f.cfg));
  CHECK(s.next == s.base);
  CHECK(c.check_l1().empty());

  SECTION("every extra core costs one more stack") {
    for (uint32_t n : {1u, 2u, 4u, 16u}) {
      SnitchConfig cfg;
      cfg.compute_cores = n;
      Fx g(cfg);
      auto k = g.core(0);
      k.l1_init();
      CHECK(k.l1_state().end == ref_l1_end(cfg));
      CHECK(ref_l1_end(cfg) == (kTcdm + kTcdmSize - cfg.cls_size) - 1024ull * (n + 1) - 128);
    }
  }
  SECTION("the stack size follows LOG2_STACK_SIZE") {
    SnitchConfig cfg;
    cfg.log2_stack_size = 11;
    Fx g(cfg);
    auto k = g.core(3);
    k.l1_init();
    CHECK(k.l1_state().end == kTcdm + kTcdmSize - cfg.cls_size - 9 * 2048 - 128);
  }
  SECTION("an unaligned TCDM start is aligned up to MIN_CHUNK_SIZE = 8") {
    for (uint32_t start : {0x10000001u, 0x10000003u, 0x10000007u, 0x10000008u, 0x10000009u}) {
      c.l1_init_at(start, s.end);
      CHECK(c.l1_state().base == ref_align(start, 8));
      CHECK(c.l1_state().next == ref_align(start, 8));
    }
  }
  SECTION("the heap ends below every core's TLS (allocator state) and stack") {
    for (uint32_t i = 0; i < f.cfg.core_num(); ++i) {
      CHECK(f.cfg.tls_base(i) >= s.end);
      CHECK(f.cfg.l1_state_addr(i) + kStateBytes <= f.cfg.tcdm_end());
      // The lowest stack byte in use by core i (start.S misaligns each stack by 8 B).
      CHECK(f.cfg.stack_top(i) - f.cfg.stack_size() >= s.end);
    }
  }
}

TEST_CASE("snitch: l3_init starts at align_up(_edram, 8) and ends at L3_END", "[snitch]") {
  Fx f;
  auto c = f.core(0);
  c.l3_init();
  CHECK(c.l3_state().base == ref_align(f.cfg.edram, 8));
  CHECK(c.l3_state().end == kTwo32);
  CHECK(c.l3_state().next == c.l3_state().base);
  c.l3_init_at(0x80012345, kTwo32);
  CHECK(c.l3_state().base == 0x80012348);
  CHECK(c.check_l3().empty());
}

TEST_CASE("snitch: state is per core, 64-bit little-endian words at the core's TLS", "[snitch]") {
  Fx f;
  std::vector<CoreAllocator<HostMemory>> cores;
  for (uint32_t i = 0; i < 9; ++i) cores.push_back(f.core(i));
  for (auto& c : cores) c.start_up();
  // Advance only core 2: no other core's state moves.
  cores[2].l1_alloc_cluster_local(100);
  cores[2].l3_alloc(0x1234);
  for (uint32_t i = 0; i < 9; ++i) {
    const uint64_t l1 = f.cfg.l1_state_addr(i), l3 = f.cfg.l3_state_addr(i);
    const uint64_t base = kTcdm;
    INFO("core " << i);
    CHECK(f.word64(l1 + 0) == base);
    CHECK(f.word64(l1 + 8) == ref_l1_end(f.cfg));
    CHECK(f.word64(l1 + 16) == base + 4 + (i == 2 ? 100 : 0));
    CHECK(f.word64(l3 + 8) == kTwo32);
    CHECK(f.mem.load32(l3 + 12) == 1);  // the high word of L3_END = 2^32
    CHECK(f.word64(l3 + 16) == ref_align(f.cfg.edram, 8) + (i == 2 ? 0x1234 : 0));
    // Distinct addresses for distinct cores, and no overlap of the two structs.
    for (uint32_t j = 0; j < i; ++j) CHECK(f.cfg.l1_state_addr(j) != l1);
    CHECK((l3 >= l1 + 24 || l1 >= l3 + 24));
  }
}

TEST_CASE("snitch: the runtime's barrier allocation makes user memory start at base + 4",
          "[snitch]") {
  Fx f;
  auto c = f.core(0);
  c.start_up();
  CHECK(c.l1_next() == kTcdm + 4);
  auto r = c.l1_alloc_cluster_local(16);
  CHECK(r.addr == kTcdm + 4);
  auto r8 = c.l1_alloc_cluster_local(8, 8);
  CHECK(r8.addr == ref_align(kTcdm + 4 + 16, 8));

  SECTION("configurable: 0 means no start-up allocation") {
    SnitchConfig cfg;
    cfg.startup_l1_bytes = 0;
    Fx g(cfg);
    auto k = g.core(0);
    k.start_up();
    CHECK(k.l1_alloc_cluster_local(1).addr == kTcdm);
  }
}

TEST_CASE("snitch: alignment is a division, so non-powers of two work", "[snitch]") {
  for (uint32_t a : {1u, 3u, 5u, 6u, 7u, 12u, 24u, 100u, 1000u, 4096u}) {
    Fx f;
    auto c = f.core(0);
    c.start_up();
    uint64_t expect_next = kTcdm + 4;
    for (uint32_t size : {1u, 10u, 13u}) {
      const auto r = c.l1_alloc_cluster_local(size, a);
      INFO("alignment " << a << " size " << size);
      CHECK(r.addr == ref_align(expect_next, a));
      CHECK(r.addr % a == 0);
      expect_next = ref_align(expect_next, a) + size;
      CHECK(r.next == expect_next);
    }
  }
  // The default alignment is 1: no padding at all.
  Fx f;
  auto c = f.core(0);
  c.start_up();
  c.l1_alloc_cluster_local(3);
  CHECK(c.l1_alloc_cluster_local(5).addr == kTcdm + 4 + 3);
  const uint32_t first = c.l3_alloc(3).addr;
  CHECK(c.l3_alloc(1).addr == first + 3);
  // The pure function, including u32 wrap-around of addr + a - 1 (device uintptr_t).
  CHECK(align_up(10, 3) == 12);
  CHECK(align_up(12, 3) == 12);
  CHECK(align_up(0xfffffff9u, 16) == 0);  // (0xfffffff9 + 15) mod 2^32 = 8; 8/16*16 = 0
}

TEST_CASE("snitch: alignment 0 is reported, not a crash, and leaves the state alone", "[snitch]") {
  Fx f;
  auto c = f.core(0);
  c.start_up();
  const auto before = c.l1_state();
  CHECK_THROWS_AS(c.l1_alloc_cluster_local(8, 0), ZeroAlignment);
  CHECK_THROWS_AS(c.l1_alloc_compute_core_local(8, 0), ZeroAlignment);
  CHECK_THROWS_AS(c.l3_alloc(8, 0), ZeroAlignment);
  CHECK_THROWS_WITH(c.l3_alloc(8, 0),
                    Catch::Contains("snrt_l3_alloc_v2") && Catch::Contains("alignment 0"));
  CHECK(c.l1_state().next == before.next);
  CHECK(c.traps().empty());
}

TEST_CASE("snitch: L1 bound: ending exactly at end fits, one byte more traps", "[snitch]") {
  Fx f;
  auto c = f.core(0, TrapPolicy::kRecord);
  c.start_up();
  const uint64_t end = c.l1_state().end;
  SECTION("exact fit") {
    c.l1_update_next(static_cast<uint32_t>(end - 64));
    const auto r = c.l1_alloc_cluster_local(64);
    CHECK_FALSE(r.trapped);
    CHECK(r.addr == end - 64);
    CHECK(c.l1_state().next == end);
    CHECK(c.check_l1().empty());
    SECTION("then a zero-size allocation still fits (next == end)") {
      CHECK_FALSE(c.l1_alloc_cluster_local(0).trapped);
    }
    SECTION("then a single byte traps") {
      const auto t = c.l1_alloc_cluster_local(1);
      CHECK(t.trapped);
      REQUIRE(t.trap);
      CHECK(t.trap->past_end == 1);
    }
  }
  SECTION("one byte over") {
    c.l1_update_next(static_cast<uint32_t>(end - 64));
    const auto r = c.l1_alloc_cluster_local(65);
    CHECK(r.trapped);
    REQUIRE(r.trap);
    CHECK(r.trap->call == Call::kL1ClusterLocal);
    CHECK(r.trap->size == 65);
    CHECK(r.trap->past_end == 1);
    CHECK(r.trap->end == end);
    CHECK(r.addr == end - 64);  // the pointer the firmware would have returned
    // next has already advanced when the ecall fires.
    CHECK(c.l1_state().next == end + 1);
    CHECK(c.traps().size() == 1);
    CHECK_FALSE(c.check_l1().empty());
  }
  SECTION("alignment padding counts: the aligned start plus size is compared") {
    c.l1_update_next(static_cast<uint32_t>(end - 70));  // end is 8-aligned here
    REQUIRE(end % 8 == 0);
    const auto r = c.l1_alloc_cluster_local(64, 8);
    CHECK_FALSE(r.trapped);
    CHECK(r.addr == ref_align(end - 70, 8));
    const auto t = c.l1_alloc_cluster_local(1, 8);  // next = end (aligned), + 1
    CHECK(t.trapped);
  }
}

TEST_CASE("snitch: L3 bound: an exact fit at end traps", "[snitch]") {
  Fx f;
  auto c = f.core(0, TrapPolicy::kRecord);
  const uint32_t base = 0x80100000;
  c.l3_init_at(base, base + 0x100);
  SECTION("one byte short of end is fine") {
    CHECK_FALSE(c.l3_alloc(0xff).trapped);
    CHECK(c.check_l3().empty());
  }
  SECTION("exactly to end traps with past_end 0") {
    const auto r = c.l3_alloc(0x100);
    CHECK(r.trapped);
    REQUIRE(r.trap);
    CHECK(r.trap->call == Call::kL3Alloc);
    CHECK(r.trap->past_end == 0);
    CHECK(c.l3_state().next == base + 0x100);
  }
  SECTION("at the real L3_END = 2^32, next is a 64-bit sum and does not wrap to 0") {
    c.l3_init_at(0xffffff00u, kTwo32);
    CHECK_FALSE(c.l3_alloc(0xff).trapped);
    const auto r = c.l3_alloc(1);
    CHECK(r.trapped);
    CHECK(c.l3_state().next == kTwo32);
    CHECK(r.trap->past_end == 0);
    // Quirk: align_up takes a uintptr_t, so it sees next's low 32 bits (0) and stores the
    // 32-bit result back: next wraps to 0 and the following call passes the bounds check.
    const auto r2 = c.l3_alloc(0x10);
    CHECK(r2.addr == 0);
    CHECK(c.l3_state().next == 0x10);
    CHECK_FALSE(r2.trapped);
  }
}

TEST_CASE("snitch: the stop policy throws the trap with next already advanced", "[snitch]") {
  Fx f;
  auto c = f.core(3);  // kStop
  c.start_up();
  const uint64_t end = c.l1_state().end;
  c.l1_update_next(static_cast<uint32_t>(end - 10));
  try {
    c.l1_alloc_cluster_local(20);
    FAIL("no trap");
  } catch (const AllocTrap& t) {
    CHECK(t.info().core_idx == 3);
    CHECK(t.info().size == 20);
    CHECK(t.info().past_end == 10);
    CHECK(t.info().next == end + 10);
    CHECK(std::string(t.what()).find("snrt_l1_alloc_cluster_local") != std::string::npos);
  }
  CHECK(c.l1_state().next == end + 10);
  // Later calls start from the advanced next and trap again.
  CHECK_THROWS_AS(c.l1_alloc_cluster_local(0), AllocTrap);
  CHECK(c.traps().size() == 2);
}

TEST_CASE("snitch: compute-core-local blocks: slice per compute core, DM undefined", "[snitch]") {
  Fx f;
  Cluster<HostMemory> cl(f.mem, f.cfg);
  cl.start_up();
  const uint32_t size = 12, align = 16;
  cl.l1_alloc_cluster_local(5);  // next = base + 9, to make the alignment visible
  const uint64_t block = ref_align(kTcdm + 4 + 5, align);
  const auto rs = cl.l1_alloc_compute_core_local(size, align);
  REQUIRE(rs.size() == 9);
  for (uint32_t i = 0; i < 9; ++i) {
    INFO("core " << i);
    CHECK(rs[i].addr == block + uint64_t{size} * i);
    CHECK(rs[i].next == block + size * 8);  // compute cores only, not the DM core
    CHECK(rs[i].undefined == (i == 8));
    CHECK_FALSE(rs[i].trapped);
  }
  // The compute cores' slices tile the block exactly.
  for (uint32_t i = 0; i + 1 < 8; ++i) CHECK(rs[i].addr + size == rs[i + 1].addr);
  CHECK(rs[7].addr + size == rs[0].next);
  CHECK(cl.check_in_step().empty());

  SECTION("the trap check covers the whole block") {
    const uint64_t end = cl.core(0).l1_state().end;
    cl.l1_update_next(static_cast<uint32_t>(end - 8 * 4));
    for (auto& r : cl.l1_alloc_compute_core_local(4)) CHECK_FALSE(r.trapped);
    cl.l1_update_next(static_cast<uint32_t>(end - 8 * 4 + 1));
    CHECK_THROWS_AS(cl.core(0).l1_alloc_compute_core_local(4), AllocTrap);
  }
}

TEST_CASE("snitch: compute_core_local_ptr finds another core's copy, both directions", "[snitch]") {
  Fx f;
  Cluster<HostMemory> cl(f.mem, f.cfg);
  cl.start_up();
  const uint32_t size = 24;
  const auto rs = cl.l1_alloc_compute_core_local(size, 8);
  for (uint32_t me = 0; me < 8; ++me)
    for (uint32_t other = 0; other < 8; ++other)
      CHECK(cl.core(me).compute_core_local_ptr(rs[me].addr, other, size) == rs[other].addr);
  // Negative delta: core 5 looking for core 2 goes down by 3 * size.
  CHECK(compute_core_local_ptr(0x10000100u, 2, 5, 16) == 0x10000100u - 3 * 16);
  // Unsigned 32-bit arithmetic (uintptr_t on RV32): wraps modulo 2^32.
  CHECK(compute_core_local_ptr(0x10u, 0, 1, 0x20) == 0xfffffff0u);
  CHECK(compute_core_local_ptr(0xfffffff0u, 1, 0, 0x20) == 0x10u);
}

TEST_CASE("snitch: remote_l1_ptr moves by whole cluster offsets", "[snitch]") {
  const SnitchConfig cfg;
  const uint64_t off = cfg.cluster_offset;
  const uint32_t p = 0x10000abc;
  CHECK(remote_l1_ptr(p, 0, 3, off) == p + 3 * off);
  CHECK(remote_l1_ptr(p + 3 * off, 3, 1, off) == p + 1 * off);  // negative delta
  CHECK(remote_l1_ptr(p, 2, 2, off) == p);
  CHECK(remote_l1_ptr(p, 1, 0, 0x20000000) == static_cast<uint32_t>(p - 0x20000000u));
  CHECK(remote_l1_ptr(0x10u, 1, 0, 0x20) == 0xfffffff0u);  // u32 wrap
  // The same offset in cluster 2's TCDM as this config sees it.
  Fx f;
  auto c = f.core(0);
  SnitchConfig c2 = cfg;
  c2.cluster_idx = 2;
  CHECK(c.remote_l1_ptr(static_cast<uint32_t>(cfg.tcdm_base() + 0x40), 0, 2) ==
        c2.tcdm_base() + 0x40);
}

TEST_CASE("snitch: update_next rewinds or overrides next, without a bounds check", "[snitch]") {
  Fx f;
  auto c = f.core(0, TrapPolicy::kRecord);
  c.start_up();
  const uint32_t mark = c.l1_next();
  const auto a = c.l1_alloc_cluster_local(100);
  c.l1_update_next(mark);  // rewind: the memory is reused
  CHECK(c.l1_next() == mark);
  CHECK(c.l1_alloc_cluster_local(100).addr == a.addr);
  // Override beyond end: no trap now, the next allocation traps.
  const uint64_t end = c.l1_state().end;
  c.l1_update_next(static_cast<uint32_t>(end + 8));
  CHECK(c.traps().empty());
  CHECK(c.l1_alloc_cluster_local(0).trapped);
  CHECK(c.l1_state().base == kTcdm);  // base and end untouched
  CHECK(c.l1_state().end == end);
}

TEST_CASE("snitch: cores in step, and a diverging core is reported", "[snitch]") {
  Fx f;
  Cluster<HostMemory> cl(f.mem, f.cfg);
  cl.start_up();
  cl.l1_alloc_cluster_local(40, 8);
  cl.l1_alloc_compute_core_local(16);
  cl.l3_alloc(1000, 64);
  CHECK(cl.check_in_step().empty());
  // Cluster-local allocation: every core gets the same address.
  const auto rs = cl.l1_alloc_cluster_local(8);
  for (const auto& r : rs) CHECK(r.addr == rs[0].addr);
  cl.core(4).l1_alloc_cluster_local(4);  // only core 4 calls
  const auto errs = cl.check_in_step();
  REQUIRE(errs.size() == 1);
  CHECK(errs[0].find("core 4") != std::string::npos);
}

TEST_CASE("snitch: calls charge compute cycles to the port", "[snitch]") {
  Fx f;
  CoreAllocator<HostMemory> c(f.mem, f.cfg, 0, TrapPolicy::kStop, CostModel{5, 30});
  c.l1_init();
  const uint64_t t0 = f.mem.compute_cycles();
  c.l1_alloc_cluster_local(8, 3);
  CHECK(f.mem.compute_cycles() - t0 == 35);
}

TEST_CASE("snitch: config validation refuses impossible platforms", "[snitch]") {
  SnitchConfig c;
  c.compute_cores = 200;  // 201 KiB of stacks in 128 KiB
  CHECK_THROWS_AS(c.validate(), std::invalid_argument);
  c = SnitchConfig{};
  c.tls_size = 16;  // cannot hold a 24-byte struct
  CHECK_THROWS_AS(c.validate(), std::invalid_argument);
  c = SnitchConfig{};
  c.l3_state_offset = 8;  // overlaps the l1 struct
  CHECK_THROWS_AS(c.validate(), std::invalid_argument);
  Fx f;
  CHECK_THROWS_AS(f.core(9), std::invalid_argument);  // 9 cores: 0..8
}

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

// ---- the replay engine ----

namespace {

using nlohmann::json;
using npusim::sim::InputError;
using npusim::sim::SnitchReplayOptions;

std::vector<json> replay(const std::string& text, SnitchReplayOptions opt = {}, int expect_rc = 0) {
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
  const auto v = replay(
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
  auto v = replay("alloc_core_local 16\n", o);
  CHECK(v[0]["addr"] == kTcdm + 4 + 3 * 16);
  CHECK(v[0]["next"] == kTcdm + 4 + 8 * 16);
  o.core_idx = 8;
  v = replay("alloc_core_local 16\n", o);
  CHECK(v[0]["undefined"] == true);
  o.compute_cores = 4;
  o.core_idx = 1;
  v = replay("alloc_core_local 16\n", o);
  CHECK(v[0]["next"] == kTcdm + 4 + 4 * 16);
}

TEST_CASE("snitch replay: traps carry trap_info and the advanced next", "[snitch][replay]") {
  SnitchReplayOptions o;
  o.base = 0x10000000;
  o.end = 0x10000100;
  o.startup_bytes = 0;
  auto v = replay("alloc 0x100\nalloc 1\nalloc 2\n", o);
  CHECK(v[0]["trap"] == false);  // L1 exact fit
  CHECK(v[1]["trap"] == true);
  CHECK(v[1]["next"] == 0x10000101);
  CHECK(v[1]["trap_info"]["call"] == "snrt_l1_alloc_cluster_local");
  CHECK(v[1]["trap_info"]["size"] == 1);
  CHECK(v[1]["trap_info"]["past_end"] == 1);
  CHECK(v[2]["trap_info"]["past_end"] == 3);  // record policy: the trace goes on

  SECTION("stop_on_trap ends the replay at the trapping line with exit code 1") {
    o.stop_on_trap = true;
    v = replay("alloc 0x100\nalloc 1\nalloc 2\n", o, 1);
    CHECK(v.size() == 2);
  }
  SECTION("L3: an exact fit traps, past_end 0") {
    SnitchReplayOptions l3;
    l3.allocator = "snitch-l3";
    l3.base = 0x80000003;  // aligned up to 8 by l3_init
    l3.end = 0x80000108;
    v = replay("alloc 0x100\nalloc 0 16\n", l3);
    CHECK(v[0]["addr"] == 0x80000008);
    CHECK(v[0]["trap"] == true);
    CHECK(v[0]["trap_info"]["call"] == "snrt_l3_alloc_v2");
    CHECK(v[0]["trap_info"]["past_end"] == 0);
  }
  SECTION("L3 defaults: from align_up(_edram, 8) up to 2^32") {
    SnitchReplayOptions l3;
    l3.allocator = "snitch-l3";
    v = replay("alloc 64\n", l3);
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
  CHECK(replay("alloc 1\n", o).size() == 1);
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
