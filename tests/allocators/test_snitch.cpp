// The Snitch alloc_v2 model against the documented runtime behaviour (seed 003 and the runtime
// facts of the Snitch issue). Expected values are derived in the tests from the document's
// formulas (often with a differently written but equivalent formula), never copied from the
// model's output.
#include <algorithm>
#include <catch2/catch.hpp>

#include "allocators/memory_port.h"
#include "allocators/snitch/alloc_v2.h"
#include "tests/allocators/snitch_refs.h"

using namespace npusim::alloc;
using namespace npusim::alloc::snitch;

using namespace snitch_refs;

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
  CoreAllocator<HostMemory> c(f.mem, f.cfg, 0, TrapPolicy::kStop, npusim::alloc::snitch::CostModel{5, 30});
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
