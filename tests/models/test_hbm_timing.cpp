// Timing tables for the HBM engine: each row is one request (where, when) and the cycle its
// data completes, derived by hand from the JEDEC constraints in the comment next to it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "models/fast_div.h"
#include "models/hbm_timing.h"

using namespace npusim::models;

namespace {

struct Step {
  const char* what;
  HbmAddress at;
  bool write;
  uint64_t arrival;
  uint64_t done;
  RowOutcome outcome;
};

HbmAddress A(uint32_t unit, uint32_t bg, uint32_t bank, uint32_t row, uint32_t col = 0) {
  HbmAddress a;
  a.unit = unit;
  a.bank_group = bg;
  a.bank = bank;
  a.row = row;
  a.column = col;
  return a;
}

void run(const HbmConfig& c, const std::vector<Step>& steps) {
  HbmTiming t(c);
  for (const auto& s : steps) {
    INFO(s.what);
    const BurstTiming r = t.access(t.address_map().encode(s.at), s.write, s.arrival);
    CHECK(r.done_cycles == s.done);
    CHECK(r.outcome == s.outcome);
  }
}

constexpr auto kHit = RowOutcome::kHit;
constexpr auto kMiss = RowOutcome::kMiss;
constexpr auto kConflict = RowOutcome::kConflict;

}  // namespace

TEST_CASE("hbm timing: idle latencies (closed bank, row hit, row conflict)", "[hbm][timing]") {
  run(HbmConfig{}, {
      {"closed bank: tRCD + CL + BL/2 = 14 + 14 + 2", A(0, 0, 0, 5), false, 0, 30, kMiss},
      {"row hit: CL + BL/2 = 16", A(0, 0, 0, 5, 1), false, 100, 116, kHit},
      {"row conflict: tRP + tRCD + CL + BL/2 = 44", A(0, 0, 0, 6), false, 200, 244, kConflict},
      {"other channel, idle", A(3, 2, 1, 9), false, 200, 230, kMiss},
  });
}

TEST_CASE("hbm timing: tRAS, tRTP and tWR delay the precharge", "[hbm][timing]") {
  run(HbmConfig{}, {
      {"ACT at 0", A(0, 0, 0, 1), false, 0, 30, kMiss},
      {"conflict at 1: PRE at tRAS = 34, ACT 48, RD 62", A(0, 0, 0, 2), false, 1, 78, kConflict},
  });
  run(HbmConfig{}, {
      {"write miss: tRCD + WL + BL/2 = 20", A(0, 0, 0, 1), true, 0, 20, kMiss},
      {"conflict: PRE at data end + tWR = 36 > tRAS", A(0, 0, 0, 2), false, 0, 80, kConflict},
  });
}

TEST_CASE("hbm timing: tRRD_S / tRRD_L and tFAW space the activates", "[hbm][timing]") {
  run(HbmConfig{}, {
      {"ACT 0", A(0, 0, 0, 1), false, 0, 30, kMiss},
      {"other group: ACT at tRRD_S = 4", A(0, 1, 0, 1), false, 0, 34, kMiss},
      {"same group as the last: ACT at 4 + tRRD_L = 10", A(0, 1, 1, 1), false, 0, 40, kMiss},
  });
  const std::vector<Step> five = {
      {"ACT 0", A(0, 0, 0, 1), false, 0, 30, kMiss},
      {"ACT 4", A(0, 1, 0, 1), false, 0, 34, kMiss},
      {"ACT 8", A(0, 2, 0, 1), false, 0, 38, kMiss},
      {"ACT 12", A(0, 3, 0, 1), false, 0, 42, kMiss},
      {"fifth ACT waits for tFAW: 0 + 30, RD 44", A(0, 0, 1, 1), false, 0, 60, kMiss},
  };
  run(HbmConfig{}, five);
  HbmConfig no_faw;
  no_faw.tFAW = 0;
  auto steps = five;
  steps.back() = {"without tFAW: ACT at 12 + tRRD_S = 16", A(0, 0, 1, 1), false, 0, 46, kMiss};
  run(no_faw, steps);
}

TEST_CASE("hbm timing: tCCD_S between bank groups, tCCD_L within one", "[hbm][timing]") {
  run(HbmConfig{}, {
      {"open bg0", A(0, 0, 0, 1), false, 0, 30, kMiss},
      {"open bg1", A(0, 1, 0, 1), false, 0, 34, kMiss},
      {"hit bg0 at 100", A(0, 0, 0, 1, 1), false, 100, 116, kHit},
      {"hit bg1: +tCCD_S", A(0, 1, 0, 1, 1), false, 100, 118, kHit},
      {"hit bg0: +tCCD_S (bg0 free since 104)", A(0, 0, 0, 1, 2), false, 100, 120, kHit},
      {"hit bg0 again: +tCCD_L", A(0, 0, 0, 1, 3), false, 100, 124, kHit},
      {"hit bg0 again: +tCCD_L", A(0, 0, 0, 1, 4), false, 100, 128, kHit},
  });
}

TEST_CASE("hbm timing: refresh blocks the channel for tRFC and closes its rows",
          "[hbm][timing]") {
  // Every channel refreshes at 3900, 7800, ... (assumption: all together).
  run(HbmConfig{}, {
      {"open a row", A(0, 0, 0, 1), false, 0, 30, kMiss},
      {"hit that would end after 3900 waits for the refresh: miss at 4160",
       A(0, 0, 0, 1, 1), false, 3890, 4190, kMiss},
      {"arrival inside refresh 2 [7800, 8060)", A(0, 0, 0, 1, 2), false, 7900, 8090, kMiss},
      {"channel 1 refreshes at the same time", A(1, 0, 0, 1), false, 4000, 4190, kMiss},
  });
  HbmTiming t{HbmConfig{}};
  t.access(0, false, 0);
  t.access(0, false, 3900 * 10 + 5);
  CHECK(t.refreshes() == 10);
  HbmConfig off;
  off.tREFI = 0;
  run(off, {{"no refresh: still a hit", A(0, 0, 0, 1), false, 0, 30, kMiss},
            {"", A(0, 0, 0, 1, 1), false, 3890, 3906, kHit}});
}

TEST_CASE("hbm timing: closed-page policy precharges after every access", "[hbm][timing]") {
  HbmConfig c;
  c.page_policy = PagePolicy::kClosed;
  run(c, {
      {"miss", A(0, 0, 0, 1), false, 0, 30, kMiss},
      {"same row later: a miss again, never a conflict", A(0, 0, 0, 1, 1), false, 100, 130,
       kMiss},
      {"soon after: ACT waits for auto-precharge (max(100+34, 114+4)) + tRP = 148",
       A(0, 0, 0, 2), false, 120, 178, kMiss},
  });
}

TEST_CASE("hbm timing: a full channel queue delays admission", "[hbm][timing]") {
  HbmConfig c;
  c.queue_depth = 2;
  run(c, {
      {"first", A(0, 0, 0, 1), false, 0, 30, kMiss},
      {"second", A(0, 1, 0, 1), false, 0, 34, kMiss},
      {"third is admitted when the first completes (30): ACT 30", A(0, 2, 0, 1), false, 0, 60,
       kMiss},
  });
  run(HbmConfig{}, {
      {"first", A(0, 0, 0, 1), false, 0, 30, kMiss},
      {"second", A(0, 1, 0, 1), false, 0, 34, kMiss},
      {"with a deep queue the third activates at 8", A(0, 2, 0, 1), false, 0, 38, kMiss},
  });
}

TEST_CASE("hbm address map: channel-interleaved by default, configurable", "[hbm][map]") {
  HbmConfig c;
  HbmAddressMap m(c);
  REQUIRE(m.decode(0).unit == 0);
  REQUIRE(m.decode(64).unit == 1);          // next burst, next channel
  REQUIRE(m.decode(7 * 64 + 63).unit == 7);
  REQUIRE(m.decode(7 * 64 + 63).offset == 63);
  REQUIRE(m.decode(8 * 64).bank_group == 1);
  REQUIRE(m.decode(32 * 64).column == 1);   // after 8 channels x 4 groups
  REQUIRE(m.decode(1u << 16).bank == 1);
  REQUIRE(m.decode(1u << 18).row == 1);
  REQUIRE(m.decode((16ull << 30) - 1).row == 65535);
  for (uint64_t a : {0ull, 12345ull * 64 + 5, (16ull << 30) - 1, 0x2'0000'1234ull}) {
    REQUIRE(m.encode(m.decode(a)) == a);
  }
  c.mapping = {AddrField::kChannel, AddrField::kRow, AddrField::kBank, AddrField::kBankGroup,
               AddrField::kColumn};
  HbmAddressMap linear(c);
  REQUIRE(linear.decode(64).column == 1);
  REQUIRE(linear.decode(64).unit == 0);
  REQUIRE(linear.decode(2ull << 30).unit == 1);  // channel is the top 3 bits of 16 GiB
  HbmConfig pc;
  pc.pseudo_channels = 2;
  pc.row_bytes = 1024;
  pc.mapping = {AddrField::kRow, AddrField::kBank, AddrField::kColumn, AddrField::kBankGroup,
                AddrField::kPseudoChannel, AddrField::kChannel};
  validate(pc);
  HbmAddressMap pm(pc);
  REQUIRE(pc.burst_bytes() == 32);
  REQUIRE(pm.decode(32).unit == 2);  // channel 1, pseudo-channel 0
  REQUIRE(pm.decode(8 * 32).unit == 1);  // channel 0, pseudo-channel 1
}

TEST_CASE("hbm timing: saturated streams reach the first-principles bandwidths",
          "[hbm][timing]") {
  // Not a speed test: simulated time only. Bytes per simulated ns = GB/s.
  enum Pattern { kSeq, kRandom, kBankRoundRobin };
  auto stream = [](HbmConfig c, Pattern p) {
    HbmTiming t(c);
    uint64_t last = 0, x = 88172645463325252ull;
    const uint64_t n = 200000;
    for (uint64_t i = 0; i < n; ++i) {
      uint64_t addr = i * 64;
      if (p == kRandom) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;  // xorshift64
        addr = (x % (c.size() / 64)) * 64;
      } else if (p == kBankRoundRobin) {
        // Stride 34880: next channel each request; per channel next bank group, next row and
        // a new bank every 4 -- 16 banks in turn, each a new row (docs/timing-model.md).
        addr = (i * 34880) % c.size();
      }
      last = std::max(last, t.access(addr, false, 0).done_cycles);
    }
    return static_cast<double>(n * 64) / static_cast<double>(last);
  };
  HbmConfig no_refresh;
  no_refresh.tREFI = 0;
  const double peak = 8 * 128 / 8 * 2.0;  // 8 channels x 16 bytes x 2 GT/s = 256 GB/s
  CHECK(stream(no_refresh, kSeq) == Approx(peak).epsilon(0.005));
  // Refresh costs tRFC plus the restart of the pipeline after it (tRCD + CL and three more
  // tRRD_S - tCCD_S for the four bank groups' activates): 294 cycles of every tREFI.
  CHECK(stream(HbmConfig{}, kSeq) == Approx(peak * (1 - 294.0 / 3900)).epsilon(0.005));
  const double faw_bound = 8 * 4 * 64 / 30.0;  // 4 ACTs of 64 bytes per tFAW per channel
  CHECK(stream(no_refresh, kBankRoundRobin) == Approx(faw_bound).epsilon(0.01));
  const double random = stream(no_refresh, kRandom);
  CHECK(random < faw_bound);
  CHECK(random > 0.5 * faw_bound);  // FCFS: a bank conflict stalls the requests behind it
}

TEST_CASE("hbm: division by tCK as a multiply equals the division", "[hbm][timing]") {
  uint64_t x = 0x243F6A8885A308D3ull;
  const uint64_t edges[] = {0, 1, 2, 3, 999, 1000, 1001, UINT64_MAX / 2, UINT64_MAX - 1,
                            UINT64_MAX};
  for (uint64_t d : {uint64_t{1}, uint64_t{2}, uint64_t{3}, uint64_t{625}, uint64_t{1000},
                     uint64_t{1} << 32, (uint64_t{1} << 32) + 1, UINT64_MAX / 3, UINT64_MAX}) {
    const DivideBy div(d);
    bool exact = false;
    for (uint64_t n : edges) {
      REQUIRE(div.floor(n) == n / d);
      REQUIRE(div.ceil_exact(n, exact) == n / d + (n % d != 0));
      REQUIRE(exact == (n % d == 0));
    }
    for (uint64_t k : {uint64_t{1}, uint64_t{2}, uint64_t{7}}) {
      // Multiples of d and their neighbours, where a floor is off by one if anywhere.
      if (d > UINT64_MAX / (1000 * k)) continue;
      for (uint64_t m = d * k * 1000, e = m + 3; m != e; ++m) {
        REQUIRE(div.floor(m - 2) == (m - 2) / d);
        REQUIRE(div.ceil_exact(m - 2, exact) == (m - 2) / d + ((m - 2) % d != 0));
        REQUIRE(exact == ((m - 2) % d == 0));
      }
    }
    for (int i = 0; i < 20000; ++i) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      const uint64_t n = x >> (x % 64);
      REQUIRE(div.floor(n) == n / d);
      if (n < UINT64_MAX - d) REQUIRE(div.ceil(n) == (n + d - 1) / d);
      REQUIRE(div.ceil_exact(n, exact) == n / d + (n % d != 0));
      REQUIRE(exact == (n % d == 0));
    }
  }
}
