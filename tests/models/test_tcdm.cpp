// TCDM bank model: hand-computed grant tables (plain C++, no simulation).
#include <catch2/catch.hpp>

#include "models/snitch/tcdm_timing.h"

using npusim::models::TcdmGeometry;
using npusim::models::TcdmTiming;

namespace {
TcdmGeometry snitch() { return TcdmGeometry{32, 8, 1}; }  // 32 banks x 8 B, 1-cycle latency
}  // namespace

TEST_CASE("tcdm: two cores on one bank in one cycle and a third on the next bank") {
  TcdmTiming t(snitch());
  // offset 0 and 256 are both bank 0 ((256 / 8) % 32 == 0); offset 8 is bank 1.
  const auto a = t.access(0, 8, 10, 8);
  const auto b = t.access(256, 8, 10, 8);
  const auto c = t.access(8, 8, 10, 8);
  CHECK(a.first_grant == 10);
  CHECK(a.done == 11);
  CHECK(a.conflicts == 0);
  CHECK(b.first_grant == 11);  // waited one cycle for bank 0
  CHECK(b.done == 12);
  CHECK(b.conflicts == 1);
  CHECK(b.stall_cycles == 1);
  CHECK(c.first_grant == 10);
  CHECK(c.conflicts == 0);
  CHECK(t.bank_of(256) == 0);
  CHECK(t.bank_of(8) == 1);
  CHECK(t.bank_of(8 * 33) == 1);
}

TEST_CASE("tcdm: nine cores on bank 0 in cycle 0 are served one per cycle") {
  TcdmTiming t(snitch());
  // | core | grant | stall |  -> total stall 0 + 1 + ... + 8 = 36, 8 conflicts
  uint64_t stall = 0, conflicts = 0;
  for (uint64_t core = 0; core < 9; ++core) {
    const auto r = t.access(core * 256, 8, 0, 8);
    CHECK(r.first_grant == core);
    CHECK(r.done == core + 1);
    stall += r.stall_cycles;
    conflicts += r.conflicts;
  }
  CHECK(stall == 36);
  CHECK(conflicts == 8);
}

TEST_CASE("tcdm: a request late in host order but early in time sees only real overlaps") {
  TcdmTiming t(snitch());
  // A core that ran ahead takes bank 0 in cycle 20; one behind it asks for cycle 10.
  CHECK(t.access(0, 8, 20, 8).first_grant == 20);
  const auto early = t.access(0, 8, 10, 8);
  CHECK(early.first_grant == 10);
  CHECK(early.conflicts == 0);
  // And for cycle 20 itself it must wait.
  const auto same = t.access(512, 8, 20, 8);
  CHECK(same.first_grant == 21);
  CHECK(same.conflicts == 1);
  CHECK(t.taken(0, 10));
  CHECK(t.taken(0, 20));
  CHECK(t.taken(0, 21));
  CHECK_FALSE(t.taken(0, 22));
}

TEST_CASE("tcdm: DMA beats take 8 banks per cycle and block a core on one of them") {
  TcdmTiming t(snitch());
  // 128 B at offset 0 through the 64 B port: banks 0-7 in cycle 0, banks 8-15 in cycle 1.
  const auto d = t.access(0, 128, 0, 64, true);
  CHECK(d.beats == 2);
  CHECK(d.first_grant == 0);
  CHECK(d.done == 2);
  for (uint32_t b = 0; b < 8; ++b) CHECK(t.taken(b, 0));
  for (uint32_t b = 8; b < 16; ++b) CHECK(t.taken(b, 1));
  CHECK_FALSE(t.taken(16, 0));
  CHECK_FALSE(t.taken(16, 1));
  // A core on bank 9 in cycle 1 waits one cycle; on bank 20 it does not.
  const auto c = t.access(9 * 8, 8, 1, 8);
  CHECK(c.first_grant == 2);
  CHECK(c.conflicts == 1);
  CHECK(t.access(20 * 8, 8, 1, 8).conflicts == 0);
}

TEST_CASE("tcdm: the wide port moves one beat per cycle and waiting for it is no bank conflict") {
  TcdmTiming t(snitch());
  const auto a = t.access(0, 64, 5, 64, true);   // banks 0-7, cycle 5
  const auto b = t.access(64, 64, 5, 64, true);  // banks 8-15: free, but the port is busy
  CHECK(a.first_grant == 5);
  CHECK(b.first_grant == 6);
  CHECK(b.conflicts == 0);
  CHECK(b.port_wait_cycles == 1);
  // Two cores are not limited by the port: banks 16 and 17 in the same cycle.
  CHECK(t.access(16 * 8, 8, 5, 8).first_grant == 5);
  CHECK(t.access(17 * 8, 8, 5, 8).first_grant == 5);
}

TEST_CASE("tcdm: a misaligned core access takes two beats on two banks") {
  TcdmTiming t(snitch());
  const auto r = t.access(4, 8, 0, 8);  // bytes 4..11: bank 0 in cycle 0, bank 1 in cycle 1
  CHECK(r.beats == 2);
  CHECK(r.done == 2);
  CHECK(t.taken(0, 0));
  CHECK(t.taken(1, 1));
  CHECK_FALSE(t.taken(1, 0));
}

TEST_CASE("tcdm: a request older than the window is granted unreserved and counted stale") {
  TcdmTiming t(snitch());
  t.access(0, 8, 2 * TcdmTiming::kWindowCycles, 8);
  const auto r = t.access(0, 8, 0, 8);
  CHECK(r.first_grant == 0);
  CHECK(t.stale() == 1);
  CHECK_FALSE(t.taken(0, 0));
  // The window slides: a cycle one window later reuses the slot without seeing old bits.
  TcdmTiming u(snitch());
  u.access(0, 8, 3, 8);
  CHECK(u.access(0, 8, 3 + TcdmTiming::kWindowCycles, 8).conflicts == 0);
}
