// The frfcfs write drain (write_queue_depth > 0; docs/timing-model.md, "Controller options"):
// a drain moves one write a cycle to its bank queue, the oldest whose queue has room, and no
// read meanwhile; the reads it held back then move one a cycle; a write waits at the door
// while the buffer, with the writes a drain has not moved yet, is full. Times from the
// defaults (tCK 1 ns, BL4, tRCD = CL = 14, tCCD_L 4) with no refresh. The cycle a request
// passes the door (last_admit()) shows when the transaction queue had room, and so when the
// requests before it left it for their bank queues.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>

#include "models/hbm/frfcfs.h"
#include "models/memory_config.h"

using namespace npusim::models;

namespace {

// Bank queues of one request: a write to a bank moves when the one before it has issued its
// column command. Four writes to one bank, row 1: ACT 0, columns 14, 18, 22, 26 (tCCD_L), so
// the drain moves them at 0, 14, 18 and 22.
HbmConfig drain_config(uint32_t depth, uint32_t queue_depth) {
  HbmConfig c;
  c.tREFI = 0;
  c.scheduler = HbmScheduler::kFrFcfs;
  c.write_queue_depth = depth;
  c.bank_queue_depth = 1;
  c.queue_depth = queue_depth;
  return c;
}

uint64_t drain_at(const hbm::Controller& ctrl, uint32_t bg, uint32_t bank, uint32_t row,
            uint32_t column = 0) {
  HbmAddress a;
  a.unit = 0, a.bank_group = bg, a.bank = bank, a.row = row, a.column = column;
  return ctrl.address_map().encode(a);
}

}  // namespace

TEST_CASE("hbm drain: reads that come during a drain wait for it, then move one a cycle",
          "[hbm][drain]") {
  auto c = hbm::make_controller(drain_config(4, 2));
  RowCounts rows;
  // The fourth write fills the buffer and starts the drain (moves at 0, 14, 18, 22).
  for (uint32_t i = 0; i < 4; ++i) CHECK(c->schedule(drain_at(*c, 0, 0, 1, i), 64, true, 0, rows) == 1);
  CHECK(rows.misses() == 1);
  CHECK(rows.hits() == 3);
  // Four reads at cycle 1 to idle banks of other groups. The first two pass the door and wait
  // in the transaction queue: no read enters a bank queue before the drain has moved its last
  // write (22), then one a cycle: 23, 24. The third passes the door when the first leaves the
  // queue (23), the fourth when the second does (24).
  const uint64_t r1 = c->schedule(drain_at(*c, 1, 0, 1), 64, false, 1, rows);
  CHECK(c->last_admit() == 1);
  c->schedule(drain_at(*c, 2, 0, 1), 64, false, 1, rows);
  CHECK(c->last_admit() == 1);
  c->schedule(drain_at(*c, 3, 0, 1), 64, false, 1, rows);
  CHECK(c->last_admit() == 23);  // at once (1) if reads were not held back
  c->schedule(drain_at(*c, 1, 1, 1), 64, false, 1, rows);
  CHECK(c->last_admit() == 24);  // 23 if the held reads all moved at once
  // The first read: ACT at 23 at the earliest, then tRCD + CL + BL/2.
  CHECK(r1 >= 23 + 14 + 14 + 2);
}

TEST_CASE("hbm drain: a write waits while the buffer holds writes the drain has not moved",
          "[hbm][drain]") {
  auto c = hbm::make_controller(drain_config(4, 32));
  RowCounts rows;
  for (uint32_t i = 0; i < 4; ++i) CHECK(c->schedule(drain_at(*c, 0, 0, 1, i), 64, true, 0, rows) == 1);
  // At cycle 1 three of the four still hold their places (they move at 14, 18, 22): one more
  // write gets in at once, the next when the write moving at 14 has left, the next at 19.
  CHECK(c->schedule(drain_at(*c, 1, 0, 1, 0), 64, true, 1, rows) == 2);
  CHECK(c->schedule(drain_at(*c, 1, 0, 1, 1), 64, true, 1, rows) == 16);
  CHECK(c->last_admit() == 15);
  CHECK(c->schedule(drain_at(*c, 1, 0, 1, 2), 64, true, 1, rows) == 20);
  CHECK(c->last_admit() == 19);
}

TEST_CASE("hbm drain: each cycle the oldest write whose bank queue has room moves",
          "[hbm][drain]") {
  auto c = hbm::make_controller(drain_config(3, 1));
  RowCounts rows;
  // Two writes to bank A, then one to bank B: A's first moves at 0; its second must wait for
  // A's queue (the first's column at 14), so B's moves at 1 and A's second at 14.
  c->schedule(drain_at(*c, 0, 0, 1, 0), 64, true, 0, rows);
  c->schedule(drain_at(*c, 0, 0, 1, 1), 64, true, 0, rows);
  c->schedule(drain_at(*c, 1, 0, 1, 0), 64, true, 0, rows);
  CHECK(rows.misses() + rows.hits() == 3);
  // A read at 2 waits for the drain (last move at 14) and enters its bank queue at 15; the
  // next one passes the door (a queue of one) then. In age order B's write would move at 15,
  // and the read at 16.
  c->schedule(drain_at(*c, 2, 0, 1), 64, false, 2, rows);
  CHECK(c->last_admit() == 2);
  c->schedule(drain_at(*c, 3, 0, 1), 64, false, 2, rows);
  CHECK(c->last_admit() == 15);
}

TEST_CASE("hbm drain: a drain in progress delays the next one; without a buffer nothing waits",
          "[hbm][drain]") {
  auto c = hbm::make_controller(drain_config(4, 32));
  RowCounts rows;
  for (uint32_t i = 0; i < 4; ++i) c->schedule(drain_at(*c, 0, 0, 1, i), 64, true, 0, rows);
  // Four more writes at 1 to bank B get in as the first drain's writes leave (at 1, 15, 19,
  // 23) and fill the buffer again: the second drain moves them after the first one's last
  // move (22), from 23.
  for (uint32_t i = 0; i < 4; ++i) c->schedule(drain_at(*c, 1, 0, 1, i), 64, true, 1, rows);
  CHECK(c->last_admit() == 23);
  CHECK(rows.misses() + rows.hits() == 8);
  const uint64_t r = c->schedule(drain_at(*c, 2, 0, 1), 64, false, 23, rows);
  // B's writes move at 23 (ACT 23, column 37), 37, 41, 45: the read enters at 46.
  CHECK(r >= 46 + 14 + 14 + 2);
  // The same reads without a write buffer are not held (the default profile is unchanged).
  auto plain = hbm::make_controller(drain_config(0, 2));
  for (uint32_t g = 1; g < 4; ++g) plain->schedule(drain_at(*plain, g, 0, 1), 64, false, 1, rows);
  CHECK(plain->last_admit() == 1);
}

TEST_CASE("hbm drain: write-heavy random traffic keeps every reservation inside the horizon",
          "[hbm][drain]") {
  std::mt19937_64 rng(11);
  for (int k = 0; k < 12; ++k) {
    HbmConfig cfg;
    cfg.queue_depth = 1 + static_cast<uint32_t>(rng() % 64);
    cfg.bank_queue_depth = 1 + static_cast<uint32_t>(rng() % 8);
    cfg.write_queue_depth = k == 0 ? 4096 : 1 + static_cast<uint32_t>(rng() % 256);
    if (k % 3 == 1) cfg.write_low_watermark = cfg.write_queue_depth / 2;
    cfg.page_policy = k % 4 == 3 ? PagePolicy::kClosed : PagePolicy::kOpen;
    hbm::FrFcfsController c(cfg);
    RowCounts rows;
    uint64_t t = 0, reads = 0;
    // Two writes a read, to the banks of two bank groups of one channel: drains wait for
    // their bank queues.
    const uint64_t banks_span = uint64_t{2} * cfg.banks_per_group;
    for (int i = 0; i < 20000; ++i) {
      HbmAddress a;
      a.bank_group = static_cast<uint32_t>(rng() % banks_span) / cfg.banks_per_group;
      a.bank = static_cast<uint32_t>(rng() % cfg.banks_per_group);
      a.row = static_cast<uint32_t>(rng() % 64);
      a.column = static_cast<uint32_t>(rng() % 8);
      const bool write = rng() % 3 != 0;
      const uint64_t done = c.schedule(c.address_map().encode(a), 64, write, t, rows);
      REQUIRE(done > t);
      reads += write ? 0 : 1;
      t = std::max(t, c.last_admit()) + (rng() % 3 == 0 ? 1 : 0);
    }
    INFO("case " << k);
    CHECK(c.horizon_overflows() == 0);
    const uint64_t served = rows.hits() + rows.misses() + rows.conflicts();
    CHECK(served >= 20000 - cfg.write_queue_depth);  // writes still buffered are not served
    CHECK(served >= reads);
  }
}
