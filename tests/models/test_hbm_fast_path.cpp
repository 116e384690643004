// The reordering controller's fast path for row hits (models/hbm/frfcfs_hit.cpp)
// must change no result: on random request streams (a core's 4-byte loads at one outstanding,
// a second initiator whose arrivals go back in time, bursts and multi-burst requests, reads
// and writes, refresh edges), every completion, admission, row outcome and refresh count is
// the same with the fast path on and off, and the fast path is taken for many of the hits.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <vector>

#include "models/hbm/frfcfs.h"
#include "models/memory_config.h"
#include "tests/models/hbm_trace.h"

using namespace npusim::models;
using npusim::models::test::check_same;
using npusim::models::test::Trace;
using npusim::models::test::use_ds3_mapping;

namespace {

// Two initiators: a core walking an array in 4-byte loads (each issued when the last one
// completes, now and then jumping elsewhere) and a DMA-like one with requests of 4 B to 2 KiB
// at random gaps, on its own clock that runs behind or ahead of the core's, now and then to
// another row of the core's bank just after the core (256 KiB apart: the row is the top
// address field in both mappings below).
Trace replay(const HbmConfig& cfg, bool fast, uint64_t seed, uint64_t n,
             bool shortcuts = true) {
  hbm::FrFcfsController c(cfg);
  c.set_fast_path(fast);
  c.set_search_shortcuts(shortcuts);
  std::mt19937_64 rng(seed);
  const uint64_t span = uint64_t{1} << 22;  // 4 MiB: rows are reused
  const uint64_t sizes[] = {4, 4, 64, 64, 128, 256, 2048};
  Trace t;
  uint64_t core_at = 0, core_addr = 0, dma_at = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t r = rng();
    uint64_t offset, len, arrival;
    bool write;
    if (r % 4 != 0) {  // the core
      if (r % 97 == 1) core_addr = (rng() % span) & ~uint64_t{3};
      offset = core_addr, len = 4, arrival = core_at, write = (r >> 8) % 5 == 0;
      core_addr = (core_addr + 4) % span;
    } else if (r % 16 == 4) {  // another row of the core's bank, right behind the core
      offset = (core_addr + (uint64_t{256} << 10) * (1 + rng() % 3)) % span;
      len = 64, arrival = core_at, write = (r >> 8) % 2 == 0;
    } else {
      dma_at += rng() % 40;
      if ((r >> 8) % 50 == 0) dma_at = core_at > 200 ? core_at - 200 : 0;  // back in time
      len = sizes[(r >> 16) % 7];
      offset = (rng() % span) & ~(len - 1);
      arrival = dma_at, write = (r >> 24) % 3 == 0;
    }
    const uint64_t done = c.schedule(offset, len, write, arrival, t.rows);
    if (r % 4 != 0) core_at = done + (r >> 32) % 3;
    t.done.push_back(done);
    t.admit.push_back(c.last_admit());
  }
  t.refreshes = c.refreshes();
  t.fast = c.fast_hits();
  t.fast_misses = c.fast_misses();
  return t;
}

}  // namespace

TEST_CASE("hbm controller: the row-hit fast path changes no completion", "[hbm][controller]") {
  struct Case {
    const char* name;
    uint64_t tREFI;
    unsigned pseudo_channels, queue_depth, bank_queue_depth;
    bool ds3_mapping;
    unsigned write_queue_depth = 0, row_hit_cap = 0;
  };
  const Case cases[] = {
      {"default", 3900, 1, 32, 8, false},
      {"no refresh", 0, 1, 32, 8, false},
      {"refresh every 400 cycles", 400, 1, 32, 8, false},
      {"pseudo-channels, small queues", 3900, 2, 4, 1, false},
      {"DRAMsim3 mapping", 3900, 1, 32, 8, true},
      {"DRAMsim3 mapping, refresh every 300, bank queue 2", 300, 2, 8, 2, true},
      // A write buffer: reads, and writes leaving it in a drain, take the fast path.
      {"write buffer 32", 3900, 1, 32, 8, true, 32},
      {"write buffer 8, small queues, refresh every 400", 400, 2, 4, 1, false, 8},
      {"row_hit_cap 4, write buffer 16", 3900, 1, 32, 8, true, 16, 4},
  };
  for (const auto& k : cases) {
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      INFO(k.name << ", seed " << seed);
      HbmConfig cfg;
      cfg.tREFI = k.tREFI;
      cfg.pseudo_channels = k.pseudo_channels;
      cfg.queue_depth = k.queue_depth;
      cfg.bank_queue_depth = k.bank_queue_depth;
      cfg.write_queue_depth = k.write_queue_depth;
      cfg.row_hit_cap = k.row_hit_cap;
      if (k.ds3_mapping)
        use_ds3_mapping(cfg);
      const Trace on = replay(cfg, true, seed, 40000);
      // Off, and off with the search shortcuts off too (the fast path takes some of them).
      for (const bool shortcuts : {true, false}) {
        const Trace off = replay(cfg, false, seed, 40000, shortcuts);
        INFO("shortcuts " << shortcuts);
        check_same(on, off);
        CHECK(on.refreshes == off.refreshes);
        CHECK(off.fast == 0);
        CHECK(off.fast_misses == 0);
      }
      // The comparison means something: thousands of hits took the fast path (40-55 % of
      // them; 5 % with refresh every 300 cycles and a bank queue of 2).
      CHECK(on.fast > 2000);
      // And misses and conflicts the miss path (30-35 % of them, 0.1 % with refresh every 300
      // cycles and a bank queue of 2; none with row_hit_cap, which it leaves to burst()).
      INFO("fast misses " << on.fast_misses << " of " << on.rows.n[1] + on.rows.n[2]);
      if (k.row_hit_cap == 0) CHECK(on.fast_misses > 20);
      else CHECK(on.fast_misses == 0);
    }
  }
}

TEST_CASE("hbm controller: no fast path with closed pages or per-bank refresh, one with a write buffer",
          "[hbm][controller]") {
  HbmConfig cfg;
  cfg.write_queue_depth = 16;
  hbm::FrFcfsController buffered(cfg);
  cfg.write_queue_depth = 0;
  cfg.refresh = HbmRefresh::kPerBank;
  hbm::FrFcfsController per_bank(cfg);
  cfg.refresh = HbmRefresh::kAllBank;
  cfg.page_policy = PagePolicy::kClosed;
  hbm::FrFcfsController closed(cfg);
  per_bank.set_fast_path(true);  // asking does not turn it on where it does not apply
  closed.set_fast_path(true);
  RowCounts rows;
  for (uint64_t i = 0; i < 1000; ++i) {
    buffered.schedule(i * 4 % 4096, 4, i % 3 == 0, i * 20, rows);
    per_bank.schedule(i * 4 % 4096, 4, false, i * 20, rows);
    closed.schedule(i * 4 % 4096, 4, false, i * 20, rows);
  }
  CHECK(buffered.fast_hits() > 500);
  CHECK(per_bank.fast_hits() == 0);
  CHECK(closed.fast_hits() == 0);
  CHECK(per_bank.fast_misses() == 0);
  CHECK(closed.fast_misses() == 0);
}

namespace {

// Saturated streams, as bench/bench_hbm_engine.cpp drives them: up to 8 requests offered per
// cycle, a request admitted late holding back the rest, so the transaction queue is full and
// most requests wait at the door and for their bank queue. Runs of sequential requests of
// 64 B to 4 KiB (now and then a jump elsewhere, or a request whose arrival goes back), 1 in
// `write_every` a write. `long_requests`: 64 B to 256 KiB instead (a DMA transfer's bursts
// across the rows of every bank; with the default mapping a bank's row spans 64 KiB).
Trace saturated(const HbmConfig& cfg, bool fast, uint64_t seed, uint64_t n, unsigned write_every,
                bool long_requests = false) {
  hbm::FrFcfsController c(cfg);
  c.set_fast_path(fast);
  std::mt19937_64 rng(seed);
  const uint64_t span = uint64_t{1} << 26;
  const uint64_t short_sizes[] = {64, 64, 64, 128, 512, 2048, 4096};
  const uint64_t long_sizes[] = {64, 2048, 4096, 8192, 24576, 65536, 262144};
  const uint64_t* sizes = long_requests ? long_sizes : short_sizes;
  Trace t;
  uint64_t cycle = 0, on_cycle = 0, addr = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t r = rng();
    if (r % 211 == 0) addr = (rng() % span) & ~uint64_t{63};
    const uint64_t len = sizes[(r >> 8) % 7];
    const bool write = write_every != 0 && (r >> 16) % write_every == 0;
    if (on_cycle == 8) ++cycle, on_cycle = 0;
    const uint64_t arrival = (r >> 24) % 61 == 0 && cycle > 300 ? cycle - 300 : cycle;
    const uint64_t done = c.schedule(addr % span, len, write, arrival, t.rows);
    addr += len;
    if (c.last_admit() > cycle) cycle = c.last_admit(), on_cycle = 0;
    ++on_cycle;
    t.done.push_back(done);
    t.admit.push_back(c.last_admit());
  }
  t.refreshes = c.refreshes();
  t.fast = c.fast_hits();
  t.fast_misses = c.fast_misses();
  return t;
}

}  // namespace

TEST_CASE("hbm controller: the fast path changes no completion on saturated streams",
          "[hbm][controller]") {
  struct Case {
    const char* name;
    unsigned write_queue_depth, write_every, queue_depth, bank_queue_depth;
    bool ds3_mapping;
  };
  const Case cases[] = {
      {"reads", 0, 0, 32, 8, false},
      {"reads and writes", 0, 3, 32, 8, false},
      {"DRAMsim3 mapping, write buffer 32, 2:1", 32, 3, 32, 8, true},
      {"write buffer 8, queue 8, bank queue 2", 8, 2, 8, 2, true},
      {"write buffer 32, reads", 32, 0, 32, 8, false},
  };
  for (const auto& k : cases) {
    for (uint64_t seed = 1; seed <= 2; ++seed) {
      INFO(k.name << ", seed " << seed);
      HbmConfig cfg;
      cfg.write_queue_depth = k.write_queue_depth;
      cfg.queue_depth = k.queue_depth;
      cfg.bank_queue_depth = k.bank_queue_depth;
      if (k.ds3_mapping)
        use_ds3_mapping(cfg);
      const Trace on = saturated(cfg, true, seed, 20000, k.write_every);
      const Trace off = saturated(cfg, false, seed, 20000, k.write_every);
      check_same(on, off);
      CHECK(on.refreshes == off.refreshes);
      CHECK(off.fast == 0);
      CHECK(off.fast_misses == 0);
      // Most bursts are row hits that wait in the queues: the fast path takes them (and 1-2 %
      // of the misses and conflicts, 25-75 % with a write buffer).
      CHECK(on.fast > on.rows.n[0] / 2);
      INFO("fast " << on.fast << " of hits " << on.rows.n[0]);
      CHECK(on.fast > 0);
      INFO("fast misses " << on.fast_misses << " of " << on.rows.n[1] + on.rows.n[2]);
      CHECK(on.fast_misses > 0);
    }
  }
}

// Long multi-burst requests (8 KiB to 256 KiB: across rows, each unit's bursts behind its
// other bursts of the request) with refresh edges inside them and requests that wait at the
// door and for their bank queues: the multi-burst path (frfcfs_run.cpp) grants what the full
// path does.
TEST_CASE("hbm controller: long multi-burst requests across rows change no completion",
          "[hbm][controller]") {
  struct Case {
    const char* name;
    uint64_t tREFI;
    unsigned write_every, queue_depth, bank_queue_depth, pseudo_channels;
    bool ds3_mapping;
  };
  const Case cases[] = {
      {"reads", 3900, 0, 32, 8, 1, false},
      {"reads and writes, refresh every 400", 400, 2, 32, 8, 1, false},
      {"queue 4, bank queue 1, refresh every 300, pseudo-channels", 300, 3, 4, 1, 2, false},
      {"DRAMsim3 mapping, refresh every 400", 400, 3, 8, 2, 1, true},
  };
  for (const auto& k : cases) {
    INFO(k.name);
    HbmConfig cfg;
    cfg.tREFI = k.tREFI;
    cfg.queue_depth = k.queue_depth;
    cfg.bank_queue_depth = k.bank_queue_depth;
    cfg.pseudo_channels = k.pseudo_channels;
    if (k.ds3_mapping) use_ds3_mapping(cfg);
    const Trace on = saturated(cfg, true, 7, 3000, k.write_every, true);
    const Trace off = saturated(cfg, false, 7, 3000, k.write_every, true);
    check_same(on, off);
    CHECK(on.refreshes == off.refreshes);
    CHECK(on.refreshes > 0);
    CHECK(off.fast == 0);
    CHECK(off.fast_misses == 0);
    // Hundreds of thousands of bursts take the multi-burst path: the comparison covers it
    // (23-98 % of the hits; the fewest with small queues and refresh every 300 cycles).
    INFO("fast " << on.fast << " of hits " << on.rows.n[0]);
    CHECK(on.fast > on.rows.n[0] / 5);
    CHECK(on.fast_misses > 0);  // (0.02-3 % of the misses and conflicts)
  }
}

// A stream that only ever takes the fast path (one row, no refresh: nothing closes it) runs
// for many times the timelines' length: the fast path must move their floor as burst() does,
// or its own reservations fall beyond the horizon (and then constrain nothing). The end of the
// stream also reads them: a burst of another bank of the unit, arriving with the last load,
// is granted exactly as with the fast path off.
TEST_CASE("hbm controller: a long stream of fast-path hits keeps its reservations in range",
          "[hbm][controller]") {
  HbmConfig cfg;
  cfg.tREFI = 0;
  auto run = [&](bool fast) {
    hbm::FrFcfsController c(cfg);
    c.set_fast_path(fast);
    Trace t;
    uint64_t at = 0;
    for (uint64_t i = 0; i < 200000; ++i) {  // 4-byte loads walking one 64-byte burst
      const uint64_t done = c.schedule((i * 4) % 64, 4, false, at, t.rows);
      t.done.push_back(done);
      t.admit.push_back(c.last_admit());
      at = done;
    }
    // Other banks of the unit, arriving with the last load (the column search reads the
    // stream's last reservations; the ACT search the maps).
    for (uint64_t k = 1; k <= 8; ++k) {
      t.done.push_back(c.schedule(k << 16, 64, (k & 1) != 0, at - 40, t.rows));
      t.admit.push_back(c.last_admit());
    }
    t.fast = c.fast_hits();
    CHECK(c.horizon_overflows() == 0);
    return t;
  };
  const Trace on = run(true), off = run(false);
  check_same(on, off);
  CHECK(on.fast >= 199000);
  CHECK(on.done[199999] > uint64_t{3000000});  // millions of cycles: far past any timeline
}
