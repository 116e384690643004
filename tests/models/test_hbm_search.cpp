// The reordering controller's search shortcuts (models/hbm/frfcfs.h): the ACT and column
// searches skip cycles an earlier search found full. They must change no result: saturated
// streams, where the timelines are full far ahead, give the same completion and admission of
// every request, and the same row outcomes, with the shortcuts on and off.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "models/hbm/frfcfs.h"
#include "models/memory_config.h"
#include "tests/models/hbm_trace.h"

using namespace npusim::models;
using npusim::models::test::check_same;
using npusim::models::test::Trace;
using npusim::models::test::use_ds3_mapping;

namespace {

// Up to 8 requests offered per cycle, held back by a full queue (`npusim traffic
// --issue-width 8`); writes with probability 1 - read_ratio; random offsets, or a stride.
Trace replay(const HbmConfig& cfg, bool shortcuts, uint64_t stride, double read_ratio,
             uint64_t n) {
  hbm::FrFcfsController c(cfg);
  c.set_search_shortcuts(shortcuts);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  Trace t;
  uint64_t cycle = 0, on_cycle = 0;
  for (uint64_t i = 0; i < n; ++i) {
    if (on_cycle == 8) ++cycle, on_cycle = 0;
    const uint64_t offset =
        stride != 0 ? (i * stride) % cfg.size() : (rng() % (cfg.size() / 64)) * 64;
    const bool write = u01(rng) >= read_ratio;
    t.done.push_back(c.schedule(offset, 64, write, cycle, t.rows));
    const uint64_t admit = c.last_admit();
    t.admit.push_back(admit);
    if (admit > cycle) cycle = admit, on_cycle = 0;
    ++on_cycle;
  }
  return t;
}

}  // namespace

namespace {

// Replays the stream with the shortcuts on and off and requires every completion, admission
// and row count equal.
void require_same(const HbmConfig& cfg, uint64_t stride, double read_ratio, uint64_t n = 30000) {
  const Trace on = replay(cfg, true, stride, read_ratio, n);
  const Trace off = replay(cfg, false, stride, read_ratio, n);
  check_same(on, off);
}

HbmConfig ds3_mapping() {
  HbmConfig cfg;
  use_ds3_mapping(cfg);
  return cfg;
}

}  // namespace

TEST_CASE("hbm controller: the search shortcuts change no completion", "[hbm][controller]") {
  struct Case {
    const char* name;
    uint64_t stride;
    double read_ratio;
    bool refresh, write_buffer;
  };
  const Case cases[] = {
      {"random", 0, 1.0, true, false},         {"random, no refresh", 0, 1.0, false, false},
      {"random 2:1 mix", 0, 0.6666667, true, true}, {"random 1:1, no buffer", 0, 0.5, true, false},
      {"seq", 64, 1.0, true, false},           {"seq 2:1 mix", 64, 0.6666667, true, true},
      {"stride 256 B", 256, 1.0, true, false}, {"stride 16 KiB", 16384, 1.0, true, false},
  };
  for (const auto& k : cases) {
    INFO(k.name);
    HbmConfig cfg = ds3_mapping();
    if (!k.refresh) cfg.tREFI = 0;
    if (k.write_buffer) cfg.write_queue_depth = 32;
    require_same(cfg, k.stride, k.read_ratio);
  }
}

// The controller options (write watermarks, row_hit_cap, per-bank refresh, the adaptive and
// closed page policies) and timings that take the searches' other branches: tFAW above 64
// cycles (the maps' general neighbour search), no tFAW, small queues, the default mapping.
TEST_CASE("hbm controller: the search shortcuts change no completion under the options",
          "[hbm][controller]") {
  struct Case {
    const char* name;
    uint64_t stride;
    double read_ratio;
    void (*set)(HbmConfig&);
  };
  const Case cases[] = {
      {"watermarks 24/16, random 2:1", 0, 0.6666667,
       [](HbmConfig& c) {
         c.write_queue_depth = 32, c.write_high_watermark = 24, c.write_low_watermark = 16;
       }},
      {"watermarks 24/16, stride 256 B 2:1", 256, 0.6666667,
       [](HbmConfig& c) {
         c.write_queue_depth = 32, c.write_high_watermark = 24, c.write_low_watermark = 16;
       }},
      {"row_hit_cap 4, random 4:1", 0, 0.8, [](HbmConfig& c) { c.row_hit_cap = 4; }},
      {"row_hit_cap 4, stride 256 B 4:1", 256, 0.8, [](HbmConfig& c) { c.row_hit_cap = 4; }},
      {"row_hit_cap 4, seq 2:1, write buffer", 64, 0.6666667,
       [](HbmConfig& c) { c.row_hit_cap = 4, c.write_queue_depth = 32; }},
      {"per-bank refresh, random 4:1", 0, 0.8,
       [](HbmConfig& c) { c.refresh = HbmRefresh::kPerBank; }},
      {"per-bank refresh, stride 4 KiB", 4096, 1.0,
       [](HbmConfig& c) { c.refresh = HbmRefresh::kPerBank; }},
      {"adaptive page, random 4:1", 0, 0.8,
       [](HbmConfig& c) { c.page_policy = PagePolicy::kAdaptive, c.page_idle_cycles = 40; }},
      {"adaptive page, stride 256 B 4:1", 256, 0.8,
       [](HbmConfig& c) { c.page_policy = PagePolicy::kAdaptive, c.page_idle_cycles = 40; }},
      {"closed page, random 1:1", 0, 0.5,
       [](HbmConfig& c) { c.page_policy = PagePolicy::kClosed; }},
      {"tFAW 80, random", 0, 1.0, [](HbmConfig& c) { c.tFAW = 80; }},
      {"tFAW 80, random 2:1, write buffer", 0, 0.6666667,
       [](HbmConfig& c) { c.tFAW = 80, c.write_queue_depth = 32; }},
      {"tFAW 70, tRRD 2 / 3, random", 0, 1.0,
       [](HbmConfig& c) { c.tFAW = 70, c.tRRD_S = 2, c.tRRD_L = 3; }},
      // tFAW 64 and 40: the branch-free neighbour search's sentinels at and below its bound.
      {"tFAW 64, tRRD 2 / 3, random", 0, 1.0,
       [](HbmConfig& c) { c.tFAW = 64, c.tRRD_S = 2, c.tRRD_L = 3; }},
      {"tFAW 40, tRRD 3 / 5, random 2:1", 0, 0.6666667,
       [](HbmConfig& c) { c.tFAW = 40, c.tRRD_S = 3, c.tRRD_L = 5; }},
      {"no tFAW, random", 0, 1.0, [](HbmConfig& c) { c.tFAW = 0; }},
      {"queue 8, bank queue 2, random 2:1", 0, 0.6666667,
       [](HbmConfig& c) { c.queue_depth = 8, c.bank_queue_depth = 2; }},
      {"default mapping, random 2:1, write buffer", 0, 0.6666667,
       [](HbmConfig& c) {
         c.mapping = HbmConfig{}.mapping;
         c.write_queue_depth = 32;
       }},
  };
  for (const auto& k : cases) {
    INFO(k.name);
    HbmConfig cfg = ds3_mapping();
    k.set(cfg);
    require_same(cfg, k.stride, k.read_ratio, 20000);
  }
}

// The ring under the ACT maps: ranges across words, and a word left from an older block reads
// as empty (nothing is cleared when the ring wraps).
TEST_CASE("hbm cycle set: ranges across words and older blocks read as empty", "[hbm][controller]") {
  hbm::CycleSet s(128);  // two words
  s.set_range(60, 70);   // cycles 60..69: the end of block 0, the start of block 1
  CHECK(s.block(0) == ~uint64_t{0} << 60);
  CHECK(s.block(1) == (uint64_t{1} << 6) - 1);
  s.set_range(10, 10);  // empty
  CHECK(s.block(0) == ~uint64_t{0} << 60);
  s.set_range(0, 64);  // a whole word
  CHECK(s.block(0) == ~uint64_t{0});
  // Block 2 takes block 0's word: block 0 now reads as empty, block 2 holds only its mark.
  s.set_range(130, 131);
  CHECK(s.block(2) == uint64_t{1} << 2);
  CHECK(s.block(0) == 0);
  CHECK(s.block(1) == (uint64_t{1} << 6) - 1);
  // 64 cycles across a word (the two-word path at its widest), 64 within one, 65 (the loop).
  hbm::CycleSet r(256);
  r.set_range(100, 164);
  CHECK(r.block(1) == ~uint64_t{0} << 36);
  CHECK(r.block(2) == (uint64_t{1} << 36) - 1);
  r.set_range(192, 256);
  CHECK(r.block(3) == ~uint64_t{0});
  r.set_range(5, 7);  // inside one word, away from its ends
  CHECK(r.block(0) == uint64_t{3} << 5);
  hbm::CycleSet q(256);
  q.set_range(63, 128);
  CHECK(q.block(0) == uint64_t{1} << 63);
  CHECK(q.block(1) == ~uint64_t{0});
  CHECK(q.block(2) == 0);
  // Three words in one call.
  hbm::CycleSet t(256);
  t.set_range(63, 193);
  CHECK(t.block(0) == uint64_t{1} << 63);
  CHECK(t.block(1) == ~uint64_t{0});
  CHECK(t.block(2) == ~uint64_t{0});
  CHECK(t.block(3) == 1);
  // Timeline::put marks as set() does; block_bits reads a block as bits64 does.
  hbm::Timeline tl(256);
  tl.put(70);
  tl.set(71);
  CHECK(tl.block_bits(1) == (uint64_t{3} << 6));
  CHECK(tl.block_bits(1) == tl.bits64(64));
  CHECK(tl.block_bits(5) == 0);  // block 5 shares block 1's word
}
