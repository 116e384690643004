// HBM energy (models/hbm_energy.h): the per-event figures from the current-based formulas,
// the background from the banks' open/closed history (models/hbm/bank_history.h), the refresh
// term, and the per-unit sums, for both controllers. Times are derived from the defaults (tCK
// 1 ns, BL4, tRCD = CL = tRP = 14, tRAS 34, tRRD_S 4).
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>

#include "models/hbm/bank_history.h"
#include "models/hbm/controller.h"
#include "models/hbm/fcfs.h"
#include "models/hbm/frfcfs.h"
#include "models/hbm_energy.h"
#include "models/memory_config.h"

using namespace npusim::models;

namespace {

uint64_t offset_of(const hbm::Controller& c, uint32_t unit, uint32_t bg, uint32_t bank, uint32_t row) {
  HbmAddress a;
  a.unit = unit, a.bank_group = bg, a.bank = bank, a.row = row;
  return c.address_map().encode(a);
}

hbm::UnitActivity sum(const std::vector<hbm::UnitActivity>& v) {
  hbm::UnitActivity s;
  for (const auto& a : v) {
    s.acts += a.acts, s.reads += a.reads, s.writes += a.writes, s.refreshes += a.refreshes;
    s.bank_refreshes += a.bank_refreshes, s.open_cycles += a.open_cycles, s.cycles += a.cycles;
  }
  return s;
}

}  // namespace

TEST_CASE("hbm energy: per-event energy from DRAMsim3's HBM2 currents", "[hbm][energy]") {
  const HbmConfig c;  // VDD 1.2 V, IDD0 65, IDD2N 40, IDD3N 55, IDD4R 390, IDD4W 500, IDD5AB 250 mA
  const HbmEnergyCosts k = hbm_energy_costs(c);
  // VDD (IDD0 tRC - (IDD3N tRAS + IDD2N tRP)) = 1.2 (65 x 48 - (55 x 34 + 40 x 14))
  CHECK(k.act == Approx(828.0));
  CHECK(k.read == Approx(804.0));    // 1.2 (390 - 55) x 2 cycles
  CHECK(k.write == Approx(1068.0));  // 1.2 (500 - 55) x 2
  // All banks are closed during a refresh: its energy is IDD5AB above precharge standby,
  // 1.2 (250 - 40) x 260 (DRAMsim3 subtracts IDD3N: 60840 pJ, 7.7 % less).
  CHECK(k.refresh == Approx(65520.0));
  CHECK(k.refresh / (1.2 * (250 - 55) * 260) == Approx(210.0 / 195.0));
  CHECK(k.bank_refresh == Approx(1.2 * (93 - 55) * 90));
  CHECK(k.active_standby_mw == Approx(66.0));
  CHECK(k.precharge_standby_mw == Approx(48.0));
  // pJ for any tCK: the same cycles at 0.5 ns take half the energy.
  HbmConfig fast = c;
  fast.tck_ns = 0.5;
  const HbmEnergyCosts h = hbm_energy_costs(fast);
  CHECK(h.act == Approx(414.0));
  CHECK(h.read == Approx(402.0));
  CHECK(h.refresh == Approx(32760.0));
  CHECK(h.active_standby_mw == Approx(66.0));  // power does not depend on it
}

TEST_CASE("hbm energy: components from an activity", "[hbm][energy]") {
  HbmConfig c;
  hbm::UnitActivity a;
  a.acts = 10, a.reads = 20, a.writes = 5, a.refreshes = 2, a.cycles = 10000, a.open_cycles = 4000;
  const HbmEnergy e = hbm_energy(c, a);
  CHECK(e.act == Approx(8280.0));
  CHECK(e.read == Approx(16080.0));
  CHECK(e.write == Approx(5340.0));
  CHECK(e.refresh == Approx(131040.0));
  CHECK(e.act_standby == Approx(4000 * 66.0));
  CHECK(e.pre_standby == Approx(6000 * 48.0));
  CHECK(e.total() == Approx(8280.0 + 16080.0 + 5340.0 + 131040.0 + 264000.0 + 288000.0));
  CHECK(e.average_power_mw() == Approx(e.total() / 10000.0));
}

TEST_CASE("hbm energy: the background follows the banks' history, not the command counts",
          "[hbm][energy]") {
  // Closed pages: every access opens its bank at its ACT and precharges it at tRAS (34 cycles
  // later; tRTP after the read comes earlier). Two accesses to two banks: the same commands
  // either way, but a bank is open 68 cycles when they are far apart and only 38 when they
  // overlap (ACTs tRRD_S = 4 apart): an estimate from the counts cannot tell the two.
  for (auto sched : {HbmScheduler::kFrFcfs, HbmScheduler::kFcfs}) {
    HbmConfig c;
    c.tREFI = 0;
    c.page_policy = PagePolicy::kClosed;
    c.scheduler = sched;
    auto run = [&](uint64_t second_at) {
      auto ctrl = hbm::make_controller(c);
      RowCounts rows;
      ctrl->schedule(offset_of(*ctrl, 0, 0, 0, 5), 64, false, 0, rows);
      ctrl->schedule(offset_of(*ctrl, 0, 1, 0, 9), 64, false, second_at, rows);
      return ctrl->activity(2000);
    };
    const auto apart = run(1000), together = run(0);
    INFO((sched == HbmScheduler::kFcfs ? "fcfs" : "frfcfs"));
    CHECK(apart[0].acts == 2);
    CHECK(together[0].acts == 2);
    CHECK(apart[0].reads == 2);
    CHECK(together[0].reads == 2);
    CHECK(apart[0].open_cycles == 68);
    CHECK(together[0].open_cycles == 38);
    CHECK(apart[1].open_cycles == 0);  // another channel: nothing
    const HbmEnergy ea = hbm_energy(c, apart[0]), et = hbm_energy(c, together[0]);
    CHECK(ea.act == et.act);
    CHECK(ea.act_standby - et.act_standby == Approx(30 * 66.0));
    CHECK(et.pre_standby - ea.pre_standby == Approx(30 * 48.0));
  }
}

TEST_CASE("hbm energy: a refresh closes the open rows at its start", "[hbm][energy]") {
  // Open pages, refresh every 3900 cycles: a row opened at 100 stays open until the refresh
  // at 3900; a row opened at 5000 until the end of the span (6000).
  for (auto sched : {HbmScheduler::kFrFcfs, HbmScheduler::kFcfs}) {
    HbmConfig c;
    c.scheduler = sched;
    auto ctrl = hbm::make_controller(c);
    RowCounts rows;
    ctrl->schedule(offset_of(*ctrl, 2, 0, 0, 7), 64, false, 100, rows);
    ctrl->schedule(offset_of(*ctrl, 2, 1, 0, 7), 64, false, 5000, rows);
    const auto a = ctrl->activity(6000);
    INFO((sched == HbmScheduler::kFcfs ? "fcfs" : "frfcfs"));
    CHECK(a[2].acts == 2);
    CHECK(a[2].open_cycles == 3800 + 1000);
    CHECK(a[2].refreshes == 1);
    CHECK(a[0].refreshes == 1);  // every channel refreshes, used or not
    CHECK(a[0].open_cycles == 0);
    // Asked for a longer span: the second row closes at the next refresh (7800).
    CHECK(ctrl->activity(10000)[2].open_cycles == 3800 + 2800);
    CHECK(ctrl->activity(10000)[2].refreshes == 2);
    // A third access to the first row after the refresh finds it closed (a miss, an ACT).
    ctrl->schedule(offset_of(*ctrl, 2, 0, 0, 7), 64, false, 6000, rows);
    CHECK(rows.misses() == 3);
    CHECK(ctrl->activity(6100)[2].acts == 3);
    CHECK(ctrl->activity(6100)[2].open_cycles == 3800 + 1100);  // (while bank 1 is open too)
  }
}

TEST_CASE("hbm energy: an adaptive page closes at its idle precharge though a refresh follows",
          "[hbm][energy]") {
  // A read at 3700 leaves its row to close 64 cycles after its column command, before the
  // refresh at 3900; the next read to the bank comes during that refresh, so the controller
  // learns of the idle close only then. Its row counts open until the idle precharge, not
  // until the refresh: the two reads count as each alone.
  HbmConfig c;
  c.page_policy = PagePolicy::kAdaptive;
  c.page_idle_cycles = 64;
  auto open_cycles = [&](bool first, bool second) {
    auto ctrl = hbm::make_controller(c);
    RowCounts rows;
    if (first) ctrl->schedule(offset_of(*ctrl, 0, 0, 0, 7), 64, false, 3700, rows);
    if (second) ctrl->schedule(offset_of(*ctrl, 0, 0, 0, 9), 64, false, 3910, rows);
    return ctrl->activity(7000)[0].open_cycles;
  };
  const uint64_t one = open_cycles(true, false), two = open_cycles(false, true);
  CHECK(one > 0);
  CHECK(one < 3900 - 3700);  // closed before the refresh
  CHECK(two > 0);
  CHECK(open_cycles(true, true) == one + two);
}

TEST_CASE("hbm energy: the refresh term of an idle memory", "[hbm][energy]") {
  HbmConfig c;
  auto ctrl = hbm::make_controller(c);
  const auto a = ctrl->activity(10000);  // refreshes at 3900 and 7800 in each of 8 channels
  const HbmEnergyReport r = hbm_energy(c, a);
  CHECK(r.units.size() == 8);
  CHECK(sum(a).refreshes == 16);
  CHECK(r.total.refresh == Approx(16 * 65520.0));
  CHECK(r.total.act_standby == 0);
  CHECK(r.total.pre_standby == Approx(8 * 10000 * 48.0));
  CHECK(r.total.act == 0);
  CHECK(r.total.ns == Approx(10000.0));
  // Per-bank refresh: bank j of 16 refreshes at k tREFI + j tREFI / 16 (k >= 1), for tRFCpb.
  c.refresh = HbmRefresh::kPerBank;
  auto pb = hbm::make_controller(c);
  const auto b = pb->activity(10000);
  uint64_t n = 0;
  for (uint32_t j = 0; j < 16; ++j) n += j * 3900 / 16 + 7800 < 10000 ? 2 : 1;
  CHECK(b[0].bank_refreshes == n);
  CHECK(b[0].refreshes == 0);
  CHECK(hbm_energy(c, b[0]).refresh == Approx(static_cast<double>(n) * hbm_energy_costs(c).bank_refresh));
}

TEST_CASE("hbm energy: per-unit figures add up, and commands match the row outcomes",
          "[hbm][energy]") {
  for (auto sched : {HbmScheduler::kFrFcfs, HbmScheduler::kFcfs}) {
    HbmConfig c;
    c.scheduler = sched;
    c.write_queue_depth = sched == HbmScheduler::kFrFcfs ? 32 : 0;
    auto ctrl = hbm::make_controller(c);
    RowCounts rows;
    std::mt19937_64 rng(7);
    uint64_t t = 0, reads = 0, writes = 0, done = 0;
    for (int i = 0; i < 20000; ++i) {
      const bool w = rng() % 3 == 0;
      const uint64_t off = (rng() % (c.size() / 64)) * 64 % (1ull << 28);
      done = std::max(done, ctrl->schedule(off, 64, w, t, rows));
      (w ? writes : reads)++;
      if (i % 4 == 3) ++t;
    }
    const auto a = ctrl->activity(done);
    const hbm::UnitActivity s = sum(a);
    INFO((sched == HbmScheduler::kFcfs ? "fcfs" : "frfcfs"));
    CHECK(s.reads == reads);
    // Writes still in the write buffer have no column command yet.
    CHECK(s.writes <= writes);
    CHECK(s.writes + 32 * 8 >= writes);
    CHECK(s.acts == rows.misses() + rows.conflicts());
    CHECK(rows.hits() + rows.misses() + rows.conflicts() == s.reads + s.writes);
    for (const auto& u : a) CHECK(u.open_cycles <= u.cycles);
    const HbmEnergyReport r = hbm_energy(c, a);
    HbmEnergy by_hand;
    for (const auto& u : r.units) by_hand += u;
    CHECK(r.total.total() == Approx(by_hand.total()));
    CHECK(r.total.act == Approx(static_cast<double>(s.acts) * 828.0));
    CHECK(r.total.read == Approx(static_cast<double>(s.reads) * 804.0));
    CHECK(r.total.act_standby + r.total.pre_standby ==
          Approx(static_cast<double>(s.open_cycles) * 66.0 +
                 static_cast<double>(s.cycles - s.open_cycles) * 48.0));
  }
}

TEST_CASE("hbm energy: the bank-state history is counted as admissions move on", "[hbm][energy]") {
  for (auto sched : {HbmScheduler::kFrFcfs, HbmScheduler::kFcfs}) {
    HbmConfig c;
    c.scheduler = sched;
    auto ctrl = hbm::make_controller(c);
    RowCounts rows;
    uint64_t x = 1, t = 0, done = 0;
    for (int i = 0; i < 200000; ++i) {
      x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
      done = std::max(done, ctrl->schedule(((x * 0x2545F4914F6CDD1Dull) >> 20) * 64 % c.size(), 64, false, t, rows));
      if (i % 8 == 7) ++t;
    }
    const hbm::BankHistory& h = sched == HbmScheduler::kFrFcfs
                                    ? static_cast<hbm::FrFcfsController&>(*ctrl).bank_history()
                                    : static_cast<hbm::FcfsController&>(*ctrl).timing().bank_history();
    INFO((sched == HbmScheduler::kFcfs ? "fcfs" : "frfcfs"));
    // Settled as the unit's admissions move on (they spread evenly over the units), and
    // counted up to the block of the settle point, rows still open or not.
    for (uint32_t u = 0; u < 8; ++u) {
      CHECK(h.settled(u) > ctrl->last_admit() / 2);
      CHECK(h.settled(u) - h.counted(u) < 64);
    }
    const auto a = ctrl->activity(done);
    uint64_t acts = 0;
    for (const auto& u : a) acts += u.acts;
    CHECK(acts == rows.misses() + rows.conflicts());
  }
}

// A unit idle for long between two bursts: the second burst's events lie far past the first
// one's, much further than the history's ring reaches from where its counting stood. The same burst twice, the second a whole number of refresh intervals
// later (the refreshes fall alike, and close every row of the first burst before the second
// comes), counts exactly twice the first one's ACTs and open cycles, window by window shifted
// by the gap.
TEST_CASE("hbm energy: a burst after a long idle counts as the same burst alone", "[hbm][energy]") {
  for (auto sched : {HbmScheduler::kFrFcfs, HbmScheduler::kFcfs}) {
    for (const bool mixed : {false, true}) {
      for (const uint64_t m : {2, 3, 5, 9, 17, 40}) {
        HbmConfig c;
        c.scheduler = sched;
        c.stats_window_ns = 100;  // tREFI is 39 windows
        const uint64_t gap = m * c.tREFI;
        auto burst = [&](hbm::Controller& ctrl, uint64_t from, RowCounts& rows) {
          std::mt19937_64 rng(11);
          uint64_t done = 0;
          for (int i = 0; i < 1600; ++i) {
            const bool w = mixed && rng() % 3 == 0;
            const uint64_t off = (rng() % (c.size() / 64)) * 64;
            done = std::max(done, ctrl.schedule(off, 64, w, from + 500 + i / 8, rows));
          }
          return done;
        };
        auto one = hbm::make_controller(c), two = hbm::make_controller(c);
        RowCounts r1, r2;
        const uint64_t done1 = burst(*one, 0, r1);
        REQUIRE(done1 + 200 < c.tREFI);  // (the refresh at tREFI closes every row)
        burst(*two, 0, r2);
        burst(*two, gap, r2);
        hbm::ActivitySeries s1, s2;
        const auto a1 = one->activity(gap, &s1), a2 = two->activity(2 * gap, &s2);
        INFO((sched == HbmScheduler::kFcfs ? "fcfs" : "frfcfs") << (mixed ? ", 2:1" : "")
                                                                 << ", gap " << m << " tREFI");
        for (size_t u = 0; u < a1.size(); ++u) {
          CHECK(a1[u].open_cycles > 0);
          CHECK(a2[u].acts == 2 * a1[u].acts);
          CHECK(a2[u].open_cycles == 2 * a1[u].open_cycles);
        }
        REQUIRE(s1.window_ns == s2.window_ns);
        const size_t shift = gap / 100;
        std::vector<uint64_t> open(shift + s1.open_cycles.size(), 0), acts(open.size(), 0);
        for (size_t w = 0; w < s1.open_cycles.size(); ++w) {
          open[w] += s1.open_cycles[w], open[w + shift] += s1.open_cycles[w];
          acts[w] += s1.acts[w], acts[w + shift] += s1.acts[w];
        }
        CHECK(s2.open_cycles == open);
        CHECK(s2.acts == acts);
      }
    }
  }
}

// The same with writes left in the write buffer across the idle: the controller cannot settle
// past the last admission before the idle while they wait (their drain's events may come
// earlier than a new request's), so the second burst's events lie far from where counting
// stands, however long the gap. A read of the second burst drains the waiting writes, and the
// whole run shifts with the gap: every gap of whole refresh intervals counts alike.
TEST_CASE("hbm energy: writes waiting in the buffer across a long idle", "[hbm][energy]") {
  HbmConfig c;
  c.write_queue_depth = 32;
  c.stats_window_ns = 100;
  std::vector<hbm::UnitActivity> first;
  for (const uint64_t m : {2, 3, 5, 7, 9, 13, 17, 40}) {
    const uint64_t gap = m * c.tREFI;
    auto ctrl = hbm::make_controller(c);
    RowCounts rows;
    uint64_t done = 0;
    for (const uint64_t from : {uint64_t{0}, gap}) {
      std::mt19937_64 rng(5);
      for (int i = 0; i < 1200; ++i) {
        const bool w = rng() % 3 != 0;  // writes first, so that some wait at the end
        const uint64_t off = (rng() % (c.size() / 64)) * 64;
        done = std::max(done, ctrl->schedule(off, 64, w && i < 1100, from + 500 + i / 8, rows));
      }
      if (from == 0) REQUIRE(done + 200 < c.tREFI);
    }
    const auto a = ctrl->activity(gap + c.tREFI);
    INFO("gap " << m << " tREFI");
    if (first.empty()) {
      first = a;
      for (const auto& u : a) CHECK(u.open_cycles > 0);
      continue;
    }
    for (size_t u = 0; u < a.size(); ++u) {
      CHECK(a[u].acts == first[u].acts);
      CHECK(a[u].open_cycles == first[u].open_cycles);
    }
  }
}

TEST_CASE("bank history: intervals out of order, settling and the open-cycle union", "[hbm][energy]") {
  hbm::BankHistory h(2, 4, 1.0, 100.0, 14);  // 2 units of 4 banks, windows of 100 cycles
  h.open(0, 1, 50);   // unit 0, bank 1: [50, 120)
  h.open(0, 0, 10);   // unit 0, bank 0: [10, 60), granted after the later one
  h.close(0, 60);
  h.close(1, 120);
  h.close(1, 130);  // closed already: ignored
  h.open(1, 5, 300);   // unit 1, bank 1: open at the end
  h.settle(0, 128);  // counts whole words before 128
  CHECK(h.counted(0) == 128);
  h.settle(1, 400);  // a row open since 300 and on: counted up to the block of 400
  CHECK(h.counted(1) == 384);
  hbm::ActivitySeries series;
  const auto n = h.counts(400, [](uint32_t) { return UINT64_MAX; }, &series);
  CHECK(n[0].acts == 2);
  CHECK(n[0].open_cycles == 110);  // [10, 120)
  CHECK(n[1].acts == 1);
  CHECK(n[1].open_cycles == 100);  // [300, 400)
  CHECK(h.counted(1) == 384);  // counts() leaves the history as it was
  REQUIRE(series.open_cycles.size() == 4);
  CHECK(series.open_cycles[0] == 90);  // [10, 100)
  CHECK(series.open_cycles[1] == 20);  // [100, 120)
  CHECK(series.open_cycles[2] == 0);
  CHECK(series.open_cycles[3] == 100);
  CHECK(series.acts[0] == 2);
  CHECK(series.acts[3] == 1);
  // Closing at a given cycle before the end (after the last settle point).
  CHECK(h.counts(400, [](uint32_t) { return uint64_t{390}; }, nullptr)[1].open_cycles == 90);
  // A row open for long counts as the settle points pass, nothing lost.
  hbm::BankHistory g(1, 4, 1.0, 1000.0, 14);
  g.open(0, 2, 100);
  for (uint64_t s = 1024; s <= 40000; s += 1024) g.settle(0, s);
  CHECK(g.settled(0) - g.counted(0) < 64);
  CHECK(g.counts(50000, [](uint32_t) { return uint64_t{45000}; }, nullptr)[0].open_cycles == 44900);
}

// The history against a per-cycle reference: random intervals, granted out of time order
// within a horizon of the settle point, many overlapping and some apart (cycles with every
// bank closed); half of the ACTs on an open bank conflicts that close its row tRP before, now
// and then two ACTs in one cycle; settled as a controller does;
// with windows of a few cycles and of many blocks, with a tCK that is not a whole ns, and with
// a series long enough to coarsen.
TEST_CASE("bank history: open cycles and series agree with a per-cycle reference", "[hbm][energy]") {
  struct Case {
    double tck, window;
    uint64_t cycles, horizon;
    unsigned gap_every;  // 1 in gap_every steps jumps ahead: every bank closes before it
    // Sparse traffic: steps of up to 1500 cycles, a settle at the step before (as the
    // controllers settle at the previous admission), and bank 0 of each unit seldom touched
    // between the gaps, so its row stays open far behind the new ACTs.
    bool sparse = false;
    // The settle point stays where it was until the events have run this far past it (as
    // across a long idle with writes waiting in a write buffer): events wait long to be
    // counted while far later ones come.
    uint64_t stall = 0;
  };
  const Case cases[] = {
      {1.0, 1000.0, 60000, 300, 40},
      {1.0, 10.0, 40000, 200, 8},
      {0.8333, 100.0, 50000, 500, 20},
      {1.0, 1.0, 200000, 300, 50},  // more than 65536 windows: the series coarsens twice
      {1.0, 100.0, 200000, 300, 50, true},
      {1.0, 100.0, 200000, 300, 6, false, 30000},
  };
  for (const auto& k : cases) {
    INFO("tck " << k.tck << ", window " << k.window << (k.sparse ? ", sparse" : "")
                 << (k.stall != 0 ? ", stalled" : ""));
    const uint32_t units = 2, banks = 8;
    hbm::BankHistory h(units, banks, k.tck, k.window, 14);
    std::vector<std::vector<uint8_t>> open(units, std::vector<uint8_t>(k.cycles + 2000 + 2 * k.horizon));
    std::vector<std::vector<uint8_t>> act(units, std::vector<uint8_t>(open[0].size()));
    std::vector<uint64_t> since(units * banks, 0);
    std::vector<bool> is_open(units * banks, false);
    std::mt19937_64 rng(7);
    auto close = [&](uint32_t b, uint64_t t) {
      if (!is_open[b]) return;
      for (uint64_t c = since[b]; c < t; ++c) open[b / banks][c] = 1;
      is_open[b] = false;
      h.close(b, t);
    };
    uint64_t s = 0, prev = 0, held = 0, last_settle = 0;
    while (s < k.cycles) {
      if (rng() % k.gap_every == 0) {  // every row closes, then nothing for a while
        for (uint32_t b = 0; b < units * banks; ++b) close(b, std::max(since[b], s + rng() % 20));
        s += 100 + rng() % 400;
      }
      for (int e = 0; e < 4; ++e) {  // events anywhere in [s, s + horizon)
        const auto b = static_cast<uint32_t>(rng() % (units * banks));
        const uint64_t t = s + rng() % k.horizon;
        if (k.sparse && b % banks == 0 && rng() % 20 != 0) continue;
        // One ACT a cycle in a unit (tRRD), but now and then two.
        const bool act_ok = act[b / banks][t] == 0 || rng() % 10 == 0;
        if (is_open[b]) {
          if (t < since[b]) continue;
          if (rng() % 2 == 0 && t >= since[b] + 14 && act_ok) {  // a conflict (tRP 14)
            for (uint64_t c = since[b]; c < t - 14; ++c) open[b / banks][c] = 1;
            since[b] = t;
            ++act[b / banks][t];
            h.open(b / banks, b, t, true);
          } else {
            close(b, t);
          }
        } else {
          if (!act_ok) continue;
          is_open[b] = true, since[b] = t;
          ++act[b / banks][t];
          h.open(b / banks, b, t);
        }
      }
      if (k.stall == 0 || s >= held + k.stall) held = s;
      // (a conflict's precharge lies tRP before its ACT)
      const uint64_t p = k.stall != 0 ? held : k.sparse ? prev : s;
      last_settle = p > 20 ? p - 20 : 0;
      for (uint32_t u = 0; u < units; ++u) h.settle(u, last_settle);
      prev = s;
      s += 1 + rng() % (k.sparse ? 1500 : 40);
    }
    const uint64_t end = s + k.horizon;
    std::vector<uint64_t> close_at(units * banks, end);
    for (uint32_t b = 0; b < units * banks; ++b)
      if (is_open[b]) {
        // (not before the last settle point: the cycles before it are counted)
        close_at[b] = std::max(std::min(end, since[b] + rng() % 1000), last_settle);
        for (uint64_t c = since[b]; c < close_at[b]; ++c) open[b / banks][c] = 1;
      }
    hbm::ActivitySeries series;
    const auto n = h.counts(end, [&](uint32_t b) { return close_at[b]; }, &series);
    std::vector<uint64_t> win_open, win_acts;
    for (uint32_t u = 0; u < units; ++u) {
      uint64_t cycles = 0, acts = 0;
      for (uint64_t c = 0; c < end; ++c) {
        if (open[u][c] == 0 && act[u][c] == 0) continue;
        cycles += open[u][c], acts += act[u][c];
        const auto w = static_cast<size_t>(static_cast<double>(c) * k.tck / series.window_ns);
        if (w >= win_open.size()) win_open.resize(w + 1, 0), win_acts.resize(w + 1, 0);
        win_open[w] += open[u][c], win_acts[w] += act[u][c];
      }
      CHECK(n[u].open_cycles == cycles);
      CHECK(n[u].acts == acts);
      CHECK(cycles > 0);
      CHECK(cycles < end);  // some cycles with every bank closed
    }
    CHECK(series.open_cycles == win_open);
    CHECK(series.acts == win_acts);
    if (k.window == 1.0) CHECK(series.window_ns == 4.0);
  }
}

TEST_CASE("hbm: a row whose last data ends at a refresh's start is closed by it", "[hbm][energy]") {
  // A closed-bank read arriving at 3870 ends its data at 3870 + tRCD + CL + BL/2 = 3900, the
  // refresh's start: the refresh precharges it, so the same row after the refresh is a miss
  // (an ACT), and the row was open [3870, 3900).
  for (auto sched : {HbmScheduler::kFrFcfs, HbmScheduler::kFcfs}) {
    HbmConfig c;
    c.scheduler = sched;
    auto ctrl = hbm::make_controller(c);
    RowCounts rows;
    const uint64_t a = offset_of(*ctrl, 1, 2, 3, 77);
    CHECK(ctrl->schedule(a, 64, false, 3870, rows) == 3900);
    ctrl->schedule(a, 64, false, 4200, rows);
    INFO((sched == HbmScheduler::kFcfs ? "fcfs" : "frfcfs"));
    CHECK(rows.hits() == 0);
    CHECK(rows.misses() == 2);
    const auto act = ctrl->activity(4300);
    CHECK(act[1].acts == 2);
    CHECK(act[1].open_cycles == 30 + 100);
  }
}
