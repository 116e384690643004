// The frfcfs controller's optional features (docs/timing-model.md, "Controller options"):
// write drain watermarks, row hits that pass an older request in their bank, per-bank
// refresh, the adaptive page policy; and their profile keys. Times from the defaults (tCK
// 1 ns, BL4, tRCD = CL = tRP = 14, tRAS 34, tFAW 30, tRRD_S 4) unless a case says otherwise.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "models/hbm/controller.h"
#include "models/memory_config.h"

using namespace npusim::models;

namespace {

HbmConfig base_config() {
  HbmConfig c;
  c.tREFI = 0;
  c.scheduler = HbmScheduler::kFrFcfs;
  return c;
}

uint64_t feature_at(const hbm::Controller& ctrl, uint32_t unit, uint32_t bg, uint32_t bank,
            uint32_t row, uint32_t column = 0) {
  HbmAddress a;
  a.unit = unit, a.bank_group = bg, a.bank = bank, a.row = row, a.column = column;
  return ctrl.address_map().encode(a);
}

}  // namespace

TEST_CASE("hbm features: a drain stops at the low watermark", "[hbm][features]") {
  // Eight writes to eight banks of channel 0 fill the buffer; the eighth starts the drain.
  // Drained to 0 the eight writes' ACTs come first (tFAW: 0 4 8 12 30 34 38 42), to 4 only
  // the oldest four (0 4 8 12): a read to another bank finds the channel busy for less.
  auto run = [](uint32_t low, RowCounts& rows) {
    HbmConfig cfg = base_config();
    cfg.write_queue_depth = 8;
    cfg.write_low_watermark = low;
    auto c = hbm::make_controller(cfg);
    for (uint32_t i = 0; i < 8; ++i)
      CHECK(c->schedule(feature_at(*c, 0, i % 4, i / 4, 1), 64, true, 0, rows) == 1);
    return c->schedule(feature_at(*c, 0, 0, 3, 1), 64, false, 0, rows);
  };
  RowCounts all, part;
  const uint64_t after_all = run(0, all), after_part = run(4, part);
  CHECK(all.misses() == 8 + 1);   // eight writes drained, and the read
  CHECK(part.misses() == 4 + 1);  // four drained, four left in the buffer
  // The read's ACT: the fifth (30) in a window behind four, the ninth (60) behind eight.
  CHECK(after_part == 30 + 14 + 14 + 2);
  CHECK(after_all >= 60 + 14 + 14 + 2);
}

TEST_CASE("hbm features: a lower high watermark starts the drain earlier", "[hbm][features]") {
  HbmConfig cfg = base_config();
  cfg.write_queue_depth = 16;
  cfg.write_high_watermark = 4;
  auto c = hbm::make_controller(cfg);
  RowCounts rows;
  for (uint32_t i = 0; i < 3; ++i) c->schedule(feature_at(*c, 0, i, 0, 1), 64, true, 0, rows);
  CHECK(rows.misses() == 0);
  c->schedule(feature_at(*c, 0, 3, 0, 1), 64, true, 0, rows);  // the fourth reaches the mark
  CHECK(rows.misses() == 4);
}

TEST_CASE("hbm features: watermarks change a mixed stream's read latency", "[hbm][features]") {
  // A random 2:1 read/write stream, a request every 4 cycles (well below saturation):
  // draining to a low watermark makes shorter, more frequent drains, so the worst read
  // waits behind fewer writes.
  auto worst_read = [](uint32_t low) {
    HbmConfig cfg = base_config();
    cfg.tREFI = 3900;
    cfg.write_queue_depth = 32;
    cfg.write_low_watermark = low;
    auto c = hbm::make_controller(cfg);
    std::mt19937_64 rng(7);
    RowCounts rows;
    uint64_t worst = 0;
    for (uint64_t i = 0; i < 20000; ++i) {
      const uint64_t off = (rng() % (1ull << 30)) & ~uint64_t{63};
      const bool write = i % 3 == 2;
      const uint64_t t = i * 4;
      const uint64_t done = c->schedule(off, 64, write, t, rows);
      if (!write) worst = std::max(worst, done - t);
    }
    return worst;
  };
  const uint64_t drain_all = worst_read(0), drain_half = worst_read(16);
  INFO("worst read latency: drain all " << drain_all << ", to 16 " << drain_half);
  CHECK(drain_half < drain_all);
}

TEST_CASE("hbm features: watermark keys are read and checked", "[hbm][features]") {
  auto c = load_memory_config("", "<t>",
                              {{"hbm.write_queue_depth", "32"},
                               {"hbm.write_high_watermark", "24"},
                               {"hbm.write_low_watermark", "8"}});
  CHECK(c.hbm.write_high_watermark == 24);
  CHECK(c.hbm.write_low_watermark == 8);
  CHECK(load_memory_config("", "<t>", {}).hbm.write_high_watermark == 0);
  CHECK(load_memory_config("", "<t>", {}).hbm.write_low_watermark == 0);
  CHECK_THROWS_WITH(load_memory_config("", "<t>",
                                       {{"hbm.write_queue_depth", "32"},
                                        {"hbm.write_high_watermark", "33"}}),
                    Catch::Contains("hbm.write_high_watermark") && Catch::Contains("33") &&
                        Catch::Contains("<= hbm.write_queue_depth (32)"));
  CHECK_THROWS_WITH(load_memory_config("", "<t>",
                                       {{"hbm.write_queue_depth", "32"},
                                        {"hbm.write_high_watermark", "16"},
                                        {"hbm.write_low_watermark", "16"}}),
                    Catch::Contains("hbm.write_low_watermark") &&
                        Catch::Contains("< the high watermark (16)"));
  CHECK_THROWS_WITH(load_memory_config("", "<t>",
                                       {{"hbm.write_queue_depth", "32"},
                                        {"hbm.write_low_watermark", "32"}}),
                    Catch::Contains("< the high watermark (32)"));
  CHECK_THROWS_WITH(load_memory_config("", "<t>", {{"hbm.write_low_watermark", "4"}}),
                    Catch::Contains("hbm.write_low_watermark") &&
                        Catch::Contains("hbm.write_queue_depth > 0"));
}

TEST_CASE("hbm features: row hits pass an older conflict of their bank, up to the cap",
          "[hbm][features]") {
  // Row 1 opens (ACT 0, column 14, done 30); a conflict to row 2 precharges at tRAS = 34.
  // Hits on row 1 that arrive after it fit between column 14 and that precharge (tCCD_L 4,
  // tRTP 4): columns 18 22 26 30; the cap counts the row's first column command.
  auto run = [](uint32_t cap) {
    HbmConfig cfg = base_config();
    cfg.row_hit_cap = cap;
    auto c = hbm::make_controller(cfg);
    RowCounts rows;
    std::vector<uint64_t> done;
    done.push_back(c->schedule(feature_at(*c, 0, 0, 0, 1, 0), 64, false, 0, rows));
    done.push_back(c->schedule(feature_at(*c, 0, 0, 0, 2, 0), 64, false, 0, rows));
    for (uint32_t i = 1; i <= 5; ++i)
      done.push_back(c->schedule(feature_at(*c, 0, 0, 0, 1, i), 64, false, 0, rows));
    return done;
  };
  const auto off = run(0), four = run(4), many = run(64);
  for (const auto* d : {&off, &four, &many}) {
    CHECK((*d)[0] == 30);
    CHECK((*d)[1] == 34 + 14 + 14 + 14 + 2);  // the older conflict never moves
  }
  for (size_t i = 2; i < off.size(); ++i) CHECK(off[i] > off[1]);  // behind it, in order
  CHECK(four[2] == 18 + 16);
  CHECK(four[3] == 22 + 16);
  CHECK(four[4] == 26 + 16);
  CHECK(four[5] > four[1]);  // the row has served 4: the cap
  CHECK(many[5] == 30 + 16);
  CHECK(many[6] > many[1]);  // column 34 + tRTP would pass the precharge
}

TEST_CASE("hbm features: per-bank refresh leaves the other banks available",
          "[hbm][features]") {
  // tREFI 3900, tRFC 260, tRFCpb 90, 16 banks: bank j of a unit refreshes at
  // k * 3900 + j * 3900 / 16 (bank 5: 1218).
  auto run = [](HbmRefresh r, uint32_t bg, uint32_t bank, uint64_t t) {
    HbmConfig cfg = base_config();
    cfg.tREFI = 3900;
    cfg.refresh = r;
    auto c = hbm::make_controller(cfg);
    RowCounts rows;
    return c->schedule(feature_at(*c, 0, bg, bank, 1), 64, false, t, rows);
  };
  // Bank 0 during its refresh: all banks until 3900 + 260, or that bank until 3900 + 90.
  CHECK(run(HbmRefresh::kAllBank, 0, 0, 3905) == 3900 + 260 + 30);
  CHECK(run(HbmRefresh::kPerBank, 0, 0, 3905) == 3900 + 90 + 30);
  // Bank 5 (group 1, bank 1) at the same time: blocked by an all-bank refresh, free per bank.
  CHECK(run(HbmRefresh::kAllBank, 1, 1, 3905) == 3900 + 260 + 30);
  CHECK(run(HbmRefresh::kPerBank, 1, 1, 3905) == 3905 + 30);
  // ... until its own turn.
  CHECK(run(HbmRefresh::kPerBank, 1, 1, 3900 + 1218 + 5) == 3900 + 1218 + 90 + 30);
}

TEST_CASE("hbm features: row_hit_cap, refresh and tRFCpb keys are read and checked",
          "[hbm][features]") {
  auto c = load_memory_config("", "<t>",
                              {{"hbm.row_hit_cap", "4"}, {"hbm.refresh", "per_bank"},
                               {"hbm.tRFCpb", "120"}});
  CHECK(c.hbm.row_hit_cap == 4);
  CHECK(c.hbm.refresh == HbmRefresh::kPerBank);
  CHECK(c.hbm.tRFCpb == 120);
  const auto d = load_memory_config("", "<t>", {}).hbm;
  CHECK(d.row_hit_cap == 0);
  CHECK(d.refresh == HbmRefresh::kAllBank);
  CHECK_THROWS_WITH(load_memory_config("", "<t>", {{"hbm.row_hit_cap", "65"}}),
                    Catch::Contains("hbm.row_hit_cap") && Catch::Contains("[0, 64]"));
  CHECK_THROWS_WITH(load_memory_config("", "<t>", {{"hbm.refresh", "sometimes"}}),
                    Catch::Contains("hbm.refresh") && Catch::Contains("sometimes"));
  CHECK(load_memory_config("", "<t>", {{"hbm.tRFC", "27"}}).hbm.tRFC == 27);  // all_bank
  CHECK_THROWS_WITH(load_memory_config("", "<t>",
                                       {{"hbm.tRFCpb", "300"}, {"hbm.refresh", "per_bank"}}),
                    Catch::Contains("hbm.tRFCpb") && Catch::Contains("<= tRFC (260)"));
  CHECK_THROWS_WITH(load_memory_config("", "<t>",
                                       {{"hbm.refresh", "per_bank"}, {"hbm.scheduler", "fcfs"}}),
                    Catch::Contains("hbm.refresh") && Catch::Contains("frfcfs"));
}

TEST_CASE("hbm features: the adaptive page policy closes a row left idle", "[hbm][features]") {
  // Row 1 of bank 0: ACT 0, column 14, done 30; the row may close at max(tRAS 34, 14 + N).
  auto second = [](PagePolicy p, uint32_t row, uint64_t t) {
    HbmConfig cfg = base_config();
    cfg.page_policy = p;
    cfg.page_idle_cycles = 50;
    auto c = hbm::make_controller(cfg);
    RowCounts rows;
    CHECK(c->schedule(feature_at(*c, 0, 0, 0, 1, 0), 64, false, 0, rows) == 30);
    return c->schedule(feature_at(*c, 0, 0, 0, row, 1), 64, false, t, rows);
  };
  // Another row at 200: a conflict when open (PRE 200, ACT 214), closed at 64 when adaptive.
  CHECK(second(PagePolicy::kOpen, 2, 200) == 200 + 14 + 30);
  CHECK(second(PagePolicy::kAdaptive, 2, 200) == 200 + 30);
  // The same row: a hit when open; adaptive, a hit before 64 and a miss after.
  CHECK(second(PagePolicy::kOpen, 1, 200) == 200 + 16);
  CHECK(second(PagePolicy::kAdaptive, 1, 200) == 200 + 30);
  CHECK(second(PagePolicy::kAdaptive, 1, 40) == 40 + 16);
  // Closed at 64, the bank may activate from 64 + tRP = 78.
  CHECK(second(PagePolicy::kAdaptive, 2, 70) == 78 + 30);
}

TEST_CASE("hbm features: adaptive page policy keys are read and checked", "[hbm][features]") {
  auto c = load_memory_config("", "<t>",
                              {{"hbm.page_policy", "adaptive"}, {"hbm.page_idle_cycles", "100"}});
  CHECK(c.hbm.page_policy == PagePolicy::kAdaptive);
  CHECK(c.hbm.page_idle_cycles == 100);
  CHECK_THROWS_WITH(load_memory_config("", "<t>", {{"hbm.page_idle_cycles", "0"}}),
                    Catch::Contains("hbm.page_idle_cycles"));
  CHECK_THROWS_WITH(load_memory_config("", "<t>", {{"hbm.page_policy", "adaptive"},
                                                   {"hbm.scheduler", "fcfs"}}),
                    Catch::Contains("hbm.page_policy") && Catch::Contains("frfcfs"));
}
