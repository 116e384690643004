// Requests of many bursts: completion cycles and row-outcome counts derived by hand from the
// HBM2 defaults (tRCD 14, CL 14, tRP 14, tRAS 34, tFAW 30, tCCD_S 2, tCCD_L 4, tRRD_S 4,
// tRRD_L 6, tRTP 4, tWL 4, tWR 16, BL/2 = 2, tRFC 260, tREFI 3900), the way
// docs/timing-model.md derives its single-burst figures. They pin the multi-burst path that
// the DMA engine uses (2 KiB requests), so a faster engine that changes a result fails here.
#include <catch2/catch.hpp>

#include <vector>

#include "models/hbm_timing.h"
#include "models/memory_system.h"
#include "test_initiator.h"

using namespace npusim::models;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {

struct Expect {
  uint64_t done, hits, misses, conflicts;
};

void check(HbmTiming& t, uint64_t offset, uint64_t len, bool write, uint64_t arrival,
           const Expect& e) {
  const RequestTiming r = t.access_request(offset, len, write, arrival);
  CHECK(r.done_cycles == e.done);
  CHECK(r.row_hits == e.hits);
  CHECK(r.row_misses == e.misses);
  CHECK(r.row_conflicts == e.conflicts);
}

}  // namespace

TEST_CASE("hbm requests: 2 KiB over 8 channels x 4 bank groups (default mapping)",
          "[hbm][timing][requests]") {
  // A 2 KiB request is 32 bursts: burst i goes to channel i % 8, bank group (i / 8) % 4, bank
  // 0, column = offset / 2 KiB. Each channel serves four bursts, one per bank group; the
  // channels work in parallel, so the request takes as long as one channel's four bursts.
  HbmTiming t{HbmConfig{}};
  SECTION("closed banks, then row hits, then row conflicts (writes)") {
    // All closed: ACTs at 0, 4, 8, 12 (tRRD_S), columns 14, 18, 22, 26, data ends 30 ... 42.
    check(t, 0, 2048, false, 0, {42, 0, 32, 0});
    // Column 1 of the same rows at 100: hits, columns 100, 102, 104, 106 (tCCD_S, other
    // group each time), last data ends 106 + CL + 2 = 122.
    check(t, 2048, 2048, false, 100, {122, 32, 0, 0});
    // Row 1 (offset 1 << 18) at 200, written: PRE at 200 (tRAS and tRTP long over), ACT at
    // 200 + tRP = 214, 218, 222, 226; columns 228 ... 240; write data ends column + tWL + 2:
    // 234, 238, 242, 246.
    check(t, uint64_t{1} << 18, 2048, true, 200, {246, 0, 0, 32});
    // Back to row 0 at 250: each PRE waits for the write recovery of its bank, data end +
    // tWR = 250, 254, 258, 262 (tRAS ends at 248 ...); ACTs tRP later, 264, 268, 272, 276
    // (tRRD_S and tFAW, 30 after the ACTs at 214 ..., do not bind); columns 278 ... 290, data
    // ends 294 ... 306.
    check(t, 0, 2048, false, 250, {306, 0, 0, 32});
  }
  SECTION("4 KiB: two bursts per bank group, the second a hit spaced by tCCD_S and the bus") {
    // Columns 14, 18, 22, 26 open and read the rows (data ends 30, 34, 38, 42); the column-1
    // bursts follow at 28 (tCCD_S after 26), 30, 32, 34: data ends 44, 46, 48, 50.
    check(t, 0, 4096, false, 0, {50, 32, 32, 0});
  }
  SECTION("a misaligned request covers every burst it touches") {
    // 100 bytes from 60: bursts 0 (bytes 60..63), 1 and 2 (up to 159): channels 0, 1, 2.
    check(t, 60, 100, false, 0, {30, 0, 3, 0});
  }
}

TEST_CASE("hbm requests: a run of row hits in one bank (column-interleaved mapping)",
          "[hbm][timing][requests]") {
  HbmConfig c;
  c.mapping = {AddrField::kRow, AddrField::kBank, AddrField::kBankGroup, AddrField::kChannel,
               AddrField::kColumn};
  validate(c);
  HbmTiming t{c};
  // 8 bursts in one row of one bank: ACT 0, columns 14, 18, ..., 42 (tCCD_L: same group),
  // the last data ends 42 + 14 + 2 = 58. One miss, seven hits.
  check(t, 0, 512, false, 0, {58, 7, 1, 0});
  // Four writes to the same row at 60: columns 60, 64, 68, 72 (tCCD_L), data ends
  // column + tWL + 2 = 66, 70, 74, 78.
  check(t, 512, 256, true, 60, {78, 4, 0, 0});
  // Another row of that bank at 80: PRE at the write recovery of the last write, 78 + tWR =
  // 94 (later than tRAS = 34 and the last read's tRTP, 42 + 4); ACT 108, column 122, data end
  // 138.
  check(t, uint64_t{1} << 18, 64, false, 80, {138, 0, 0, 1});
  // Closed-page policy: every burst of a request reopens the row. ACT 0, column 14, data end
  // 30, auto-precharge at max(tRAS 34, 14 + tRTP) = 34, next ACT at 34 + tRP = 48, column 62,
  // data end 78; third ACT at max(62 + 4, 48 + 34) + 14 = 96, data end 126.
  c.page_policy = PagePolicy::kClosed;
  HbmTiming closed{c};
  check(closed, 0, 192, false, 0, {126, 0, 3, 0});
}

TEST_CASE("hbm requests: a 2 KiB request that meets the refresh at 3900",
          "[hbm][timing][requests]") {
  HbmTiming t{HbmConfig{}};
  // Arrival 3880. In each channel, bank group 0's burst would end at 3880 + 30 > 3900: it
  // waits for the refresh [3900, 4160) and activates at 4160. The other groups' bursts
  // arrive before the refresh too, but their banks were closed by it (earliest ACT 4160):
  // ACTs 4164, 4168, 4172 (tRRD_S), columns 4178, 4182, 4186, data ends 4194, 4198, 4202.
  check(t, 0, 2048, false, 3880, {4202, 0, 32, 0});
  CHECK(t.refreshes() == 8);  // one per channel
  // A hit in the next window is unaffected: column 1 at 5000, bank group 3 ends 5006 + 16.
  check(t, 2048, 2048, false, 5000, {5022, 32, 0, 0});
}

TEST_CASE("hbm requests: through the interconnect, statistics count every burst",
          "[hbm][requests]") {
  npusim::test::TestInitiator cpu{"cpu"};
  MemorySystem mem{"mem", MemoryConfig{}};
  cpu.mem.bind(mem.bus());
  npusim::test::start_simulation();
  std::vector<uint8_t> buf(4096, 0x5A);
  // 2 KiB write from idle: the memory's 4 bursts per channel as in the read table, but write
  // data ends column + tWL + 2: 20, 24, 28, 32; + the 2 ns hop.
  sc_time d = sc_core::SC_ZERO_TIME;
  REQUIRE(cpu.do_write(DEFAULT_HBM_BASE, buf.data(), 2048, d) == tlm::TLM_OK_RESPONSE);
  CHECK(d == sc_time(2 + 32, SC_NS));
  // Read it back at 100 (arrives at 102): row hits, columns 102 ... 108, last data end 124.
  d = sc_time(100, SC_NS);
  REQUIRE(cpu.do_read(DEFAULT_HBM_BASE, buf.data(), 2048, d) == tlm::TLM_OK_RESPONSE);
  CHECK(d == sc_time(124, SC_NS));
  const MemoryStats& s = mem.hbm.stats();
  CHECK(s.row_misses == 32);
  CHECK(s.row_hits == 32);
  CHECK(s.row_conflicts == 0);
  CHECK(s.latency_cycles.count() == 2);
  CHECK(s.latency_cycles.max() == 32);
  CHECK(s.latency_cycles.min() == 22);
  CHECK(s.bytes_written == 2048);
  CHECK(s.bytes_read == 2048);
}
