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

using namespace npusim::models;

namespace {

struct Trace {
  std::vector<uint64_t> done, admit;
  RowCounts rows;
};

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
    HbmConfig cfg;
    // DRAMsim3's rorabgbachco: consecutive bursts share a row, 32 of them, then the channel.
    cfg.mapping = {AddrField::kRow, AddrField::kBankGroup, AddrField::kBank, AddrField::kChannel,
                   AddrField::kColumn};
    if (!k.refresh) cfg.tREFI = 0;
    if (k.write_buffer) cfg.write_queue_depth = 32;
    const Trace on = replay(cfg, true, k.stride, k.read_ratio, 30000);
    const Trace off = replay(cfg, false, k.stride, k.read_ratio, 30000);
    REQUIRE(on.done.size() == off.done.size());
    uint64_t differ = 0;
    for (size_t i = 0; i < on.done.size(); ++i)
      differ += on.done[i] != off.done[i] || on.admit[i] != off.admit[i];
    CHECK(differ == 0);
    for (unsigned r = 0; r < 3; ++r) CHECK(on.rows.n[r] == off.rows.n[r]);
  }
}
