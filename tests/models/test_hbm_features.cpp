// The frfcfs controller's optional features (docs/timing-model.md, "Controller options"):
// write drain watermarks, row hits that pass an older request in their bank, per-bank
// refresh, the adaptive page policy; and their profile keys. Times from the defaults (tCK
// 1 ns, BL4, tRCD = CL = tRP = 14, tRAS 34, tFAW 30, tRRD_S 4) unless a case says otherwise.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>

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

uint64_t at(const hbm::Controller& ctrl, uint32_t unit, uint32_t bg, uint32_t bank,
            uint32_t row, uint32_t column = 0) {
  HbmAddress a;
  a.unit = unit, a.bank_group = bg, a.bank = bank, a.row = row, a.column = column;
  return ctrl.address_map().encode(a);
}

}  // namespace

TEST_CASE("hbm features: a drain stops at the low watermark", "[hbm][features]") {
  // Eight writes to eight banks of channel 0 fill the buffer; the ninth starts the drain.
  // Drained to 0 the eight writes' ACTs come first (tFAW: 0 4 8 12 30 34 38 42), to 4 only
  // the oldest four (0 4 8 12): a read to another bank finds the channel busy for less.
  auto run = [](uint32_t low, RowCounts& rows) {
    HbmConfig cfg = base_config();
    cfg.write_queue_depth = 8;
    cfg.write_low_watermark = low;
    auto c = hbm::make_controller(cfg);
    for (uint32_t i = 0; i < 9; ++i)
      CHECK(c->schedule(at(*c, 0, i % 4, i / 4, 1), 64, true, 0, rows) == 1);
    return c->schedule(at(*c, 0, 0, 3, 1), 64, false, 0, rows);
  };
  RowCounts all, part;
  const uint64_t after_all = run(0, all), after_part = run(4, part);
  CHECK(all.misses() == 8 + 1);   // eight writes drained, and the read
  CHECK(part.misses() == 4 + 1);  // four drained, five left in the buffer
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
  for (uint32_t i = 0; i < 4; ++i) c->schedule(at(*c, 0, i, 0, 1), 64, true, 0, rows);
  CHECK(rows.misses() == 0);
  c->schedule(at(*c, 0, 0, 1, 1), 64, true, 0, rows);  // the fifth: four reach the mark
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
