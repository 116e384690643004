// The HBM controllers behind models/hbm/controller.h: what FR-FCFS reorders that FCFS does
// not, the constraints it must still keep against reservations on both sides, its queues,
// and the profile keys that choose it. Times are derived from the defaults (tCK 1 ns, BL4:
// 2 cycles a burst, tRCD = CL = tRP = 14, tRAS 34, tFAW 30, tRTW 13) with refresh off.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>

#include "models/hbm/controller.h"
#include "models/hbm/frfcfs.h"
#include "models/hbm/timeline.h"
#include "models/memory_config.h"

using namespace npusim::models;

namespace {

HbmConfig no_refresh(HbmScheduler s) {
  HbmConfig c;
  c.tREFI = 0;
  c.scheduler = s;
  return c;
}

uint64_t at(const hbm::Controller& ctrl, uint32_t unit, uint32_t bg, uint32_t bank,
            uint32_t row) {
  HbmAddress a;
  a.unit = unit, a.bank_group = bg, a.bank = bank, a.row = row;
  return ctrl.address_map().encode(a);
}

uint64_t read(hbm::Controller& c, uint64_t offset, uint64_t arrival) {
  RowCounts rows;
  return c.schedule(offset, 64, false, arrival, rows);
}

}  // namespace

TEST_CASE("hbm controller: frfcfs serves an idle bank while an older request waits",
          "[hbm][controller]") {
  for (auto s : {HbmScheduler::kFcfs, HbmScheduler::kFrFcfs}) {
    auto c = hbm::make_controller(no_refresh(s));
    const uint64_t a = read(*c, at(*c, 0, 0, 0, 1), 0);   // opens row 1: 30
    const uint64_t b = read(*c, at(*c, 0, 0, 0, 2), 0);   // conflict: PRE at tRAS 34, 34+14+30
    const uint64_t y = read(*c, at(*c, 0, 1, 0, 7), 0);   // another bank of the same channel
    CHECK(a == 30);
    CHECK(b == 34 + 14 + 14 + 14 + 2);
    if (s == HbmScheduler::kFcfs) {
      CHECK(y > b);  // first come, first served: behind the conflict
    } else {
      // tRRD_S 4 after the first ACT, tRCD + CL + BL/2 = 30; ahead of the conflict.
      CHECK(y == 4 + 30);
    }
  }
}

TEST_CASE("hbm controller: idle latencies are those of fcfs", "[hbm][controller]") {
  auto c = hbm::make_controller(no_refresh(HbmScheduler::kFrFcfs));
  CHECK(read(*c, at(*c, 2, 1, 3, 5), 0) == 30);        // closed bank
  CHECK(read(*c, at(*c, 2, 1, 3, 5), 1000) == 1016);   // row hit: CL + BL/2
  CHECK(read(*c, at(*c, 2, 1, 3, 6), 2000) == 2044);   // conflict: tRP + tRCD + CL + BL/2
}

TEST_CASE("hbm controller: tFAW holds against ACTs granted on both sides", "[hbm][controller]") {
  auto c = hbm::make_controller(no_refresh(HbmScheduler::kFrFcfs));
  // Four ACTs in one channel, one per bank group, tRRD_S apart: 0, 4, 8, 12.
  for (uint32_t g = 0; g < 4; ++g) CHECK(read(*c, at(*c, 0, g, 0, 1), 0) == 30 + 4 * g);
  // A fifth ACT must wait for tFAW after the first: ACT at 30, data done 60.
  CHECK(read(*c, at(*c, 0, 0, 1, 1), 0) == 30 + 30);
  // A request arriving at 0 to another bank: the ACT window [0, 30) is full and 30 is taken
  // (tRRD_S): the next legal ACT is 34 (tRRD_S after 30; the four in (4, 34] are 8, 12, 30).
  const uint64_t d = read(*c, at(*c, 0, 1, 1, 1), 0);
  CHECK(d >= 34 + 30);
}

TEST_CASE("hbm controller: read-to-write turnaround and the data bus", "[hbm][controller]") {
  HbmConfig cfg = no_refresh(HbmScheduler::kFrFcfs);
  auto c = hbm::make_controller(cfg);
  RowCounts rows;
  const uint64_t r = c->schedule(at(*c, 0, 0, 0, 1), 64, false, 0, rows);  // read col at 14
  const uint64_t w = c->schedule(at(*c, 0, 1, 0, 1), 64, true, 0, rows);   // write, ACT at 4
  CHECK(r == 30);
  // Write column at max(4 + tRCD = 18, 14 + tRTW = 27) = 27; data tWL 4 + BL/2 2 later.
  CHECK(w == 27 + 4 + 2);
  cfg.tRTW = 20;
  auto c2 = hbm::make_controller(cfg);
  c2->schedule(at(*c2, 0, 0, 0, 1), 64, false, 0, rows);
  CHECK(c2->schedule(at(*c2, 0, 1, 0, 1), 64, true, 0, rows) == 14 + 20 + 4 + 2);
  // Below CL + BL/2 - tWL = 12 the write's data would meet the read's: 12 is kept.
  cfg.tRTW = 2;
  auto c3 = hbm::make_controller(cfg);
  c3->schedule(at(*c3, 0, 0, 0, 1), 64, false, 0, rows);
  CHECK(c3->schedule(at(*c3, 0, 1, 0, 1), 64, true, 0, rows) == 14 + 12 + 4 + 2);
}

TEST_CASE("hbm controller: a full transaction queue holds the next request at the door",
          "[hbm][controller]") {
  HbmConfig cfg = no_refresh(HbmScheduler::kFrFcfs);
  cfg.queue_depth = 2;
  cfg.bank_queue_depth = 1;
  auto c = hbm::make_controller(cfg);
  // One bank, all rows different: each waits in the bank queue for the one before it.
  uint64_t admits[5];
  for (uint32_t i = 0; i < 5; ++i) {
    read(*c, at(*c, 0, 0, 0, i), 0);
    admits[i] = c->last_admit();
  }
  CHECK(admits[0] == 0);
  CHECK(admits[1] == 0);
  CHECK(admits[2] == 0);   // requests 1 and 2 wait in the transaction queue
  CHECK(admits[3] > 0);    // the queue is full until request 1 enters the bank queue
  CHECK(admits[4] > admits[3]);
}

TEST_CASE("hbm controller: random traffic keeps every reservation inside the horizon",
          "[hbm][controller]") {
  std::mt19937_64 rng(7);
  for (int k = 0; k < 12; ++k) {
    HbmConfig cfg;
    cfg.queue_depth = 1 + static_cast<uint32_t>(rng() % 64);
    cfg.bank_queue_depth = 1 + static_cast<uint32_t>(rng() % 16);
    cfg.page_policy = rng() % 2 ? PagePolicy::kClosed : PagePolicy::kOpen;
    hbm::FrFcfsController c(cfg);
    RowCounts rows;
    uint64_t t = 0;
    for (int i = 0; i < 20000; ++i) {
      const uint64_t off = (rng() % (cfg.size() / 64)) * 64;
      const bool write = rng() % 3 == 0;
      const uint64_t done = c.schedule(off, 64, write, t, rows);
      REQUIRE(done >= t + (write ? cfg.tWL : cfg.tCL) + cfg.burst_cycles());
      t = std::max(t, c.last_admit()) + (rng() % 3 == 0 ? 1 : 0);
    }
    CHECK(c.horizon_overflows() == 0);
    CHECK(rows.hits() + rows.misses() + rows.conflicts() == 20000);
  }
}

TEST_CASE("hbm controller: a saturated sequential stream stays under the peak",
          "[hbm][controller]") {
  auto c = hbm::make_controller(no_refresh(HbmScheduler::kFrFcfs));
  uint64_t last = 0;
  for (uint64_t i = 0; i < 4096; ++i) last = std::max(last, read(*c, i * 64, 0));
  // 8 channels, one 2-cycle burst each at a time: at least 4096 / 8 * 2 cycles.
  CHECK(last >= 4096 / 8 * 2);
  CHECK(last <= 4096 / 8 * 2 + 64);  // and close to it: the row changes hide behind the data
}

TEST_CASE("hbm timeline: marks, ranges and forgetting", "[hbm][controller]") {
  hbm::Timeline t(256);
  t.set(10);
  t.set(70);
  t.set(200);
  CHECK(t.last_in(0, 256) == 200);
  CHECK(t.last_in(0, 200) == 70);
  CHECK(t.last_in(11, 70) == UINT64_MAX);
  CHECK(t.any(10, 11));
  uint64_t out[4];
  CHECK(t.collect(0, 256, out, 4) == 3);
  CHECK(out[1] == 70);
  t.raise_floor(128);  // cycles below 128 are forgotten; 256 + 70 aliases nothing
  CHECK(t.last_in(0, 128) == UINT64_MAX);
  t.set(256 + 70);
  CHECK(t.last_in(128, 384) == 256 + 70);
  CHECK(t.last_in(128, 256) == 200);
}

TEST_CASE("hbm controller: profile keys scheduler, bank_queue_depth and DRAMsim3 names",
          "[hbm][controller][config]") {
  const auto c = load_memory_config("", "<t>", {{"hbm.address_mapping", "rorabgbachco"},
                                                {"hbm.scheduler", "fcfs"},
                                                {"hbm.bank_queue_depth", "4"}});
  CHECK(c.hbm.mapping == std::vector<AddrField>{AddrField::kRow, AddrField::kBankGroup,
                                                 AddrField::kBank, AddrField::kChannel,
                                                 AddrField::kColumn});
  CHECK(c.hbm.scheduler == HbmScheduler::kFcfs);
  CHECK(c.hbm.bank_queue_depth == 4);
  CHECK(load_memory_config("", "<t>", {{"hbm.address_mapping", "rochrababgco"}}).hbm.mapping ==
        std::vector<AddrField>{AddrField::kRow, AddrField::kChannel, AddrField::kBank,
                               AddrField::kBankGroup, AddrField::kColumn});
  CHECK_THROWS_WITH(load_memory_config("", "<t>", {{"hbm.address_mapping", "rorabgbxchco"}}),
                    Catch::Contains("hbm.address_mapping") && Catch::Contains("'bx'"));
  CHECK_THROWS_WITH(load_memory_config("", "<t>", {{"hbm.scheduler", "lifo"}}),
                    Catch::Contains("hbm.scheduler") && Catch::Contains("lifo"));
  CHECK_THROWS_WITH(load_memory_config("", "<t>", {{"hbm.bank_queue_depth", "0"}}),
                    Catch::Contains("hbm.bank_queue_depth"));
  CHECK_THROWS_WITH(load_memory_config("", "<t>", {{"hbm.write_queue_depth", "5000"}}),
                    Catch::Contains("hbm.write_queue_depth"));
}

TEST_CASE("hbm controller: posted writes wait in the write buffer until it is full",
          "[hbm][controller]") {
  HbmConfig cfg = no_refresh(HbmScheduler::kFrFcfs);
  cfg.write_queue_depth = 4;
  auto c = hbm::make_controller(cfg);
  RowCounts rows;
  // Three writes to channel 0: posted, done a cycle after they arrive, nothing scheduled yet.
  for (uint32_t g = 0; g < 3; ++g)
    CHECK(c->schedule(at(*c, 0, g, 0, 1), 64, true, 0, rows) == 1);
  CHECK(rows.hits() + rows.misses() + rows.conflicts() == 0);
  // A read finds the channel idle: it is served at once (3 writes are not more than 8).
  CHECK(c->schedule(at(*c, 0, 0, 1, 1), 64, false, 0, rows) == 30);
  // The fourth write fills the buffer and starts the drain of the four (their ACTs and
  // columns now hold the channel).
  CHECK(c->schedule(at(*c, 0, 3, 0, 1), 64, true, 0, rows) == 1);
  CHECK(rows.misses() == 5);
  // So a read to another bank of the channel now waits behind them (idle it would be 4 + 30).
  CHECK(c->schedule(at(*c, 0, 2, 1, 1), 64, false, 0, rows) > 34);
}
