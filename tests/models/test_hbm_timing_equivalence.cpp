// The optimised HBM engine against its executable specification (hbm_timing_reference.h, the
// engine before the speed work): the same streams of requests must give the same admission,
// data and completion cycles, row outcomes and refresh counts, burst for burst, over many
// random configurations, mappings and traffic shapes. Simulated time only.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <string>

#include "hbm_timing_reference.h"
#include "models/hbm_timing.h"

using namespace npusim::models;
using npusim::test::ReferenceHbmTiming;

namespace {

struct Rng {
  uint64_t x;
  uint64_t next() {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;  // xorshift64
    return x;
  }
  uint64_t below(uint64_t n) { return next() % n; }
  bool chance(unsigned percent) { return below(100) < percent; }
};

// A valid configuration (validate() accepts it) with small, varied geometry and timings, so
// that refreshes, conflicts, tFAW and queue limits all happen in short streams.
HbmConfig random_config(Rng& r) {
  HbmConfig c;
  c.channels = 1u << r.below(4);
  c.pseudo_channels = 1u << r.below(2);
  c.channel_width_bits = 128;
  c.bank_groups = 1u << r.below(3);
  c.banks_per_group = 1u << r.below(3);
  c.rows = 1u << (2 + r.below(6));
  c.burst_length = 2u << r.below(3);
  c.row_bytes = std::max<uint32_t>(c.burst_bytes(), 1u << (8 + r.below(4)));
  c.tRCD = 1 + r.below(20);
  c.tCL = 1 + r.below(20);
  c.tRP = 1 + r.below(20);
  c.tRAS = c.tRCD + r.below(30);
  c.tCCD_S = c.burst_cycles() + r.below(3);
  c.tCCD_L = c.tCCD_S + r.below(4);
  c.tRRD_S = 1 + r.below(6);
  c.tRRD_L = c.tRRD_S + r.below(4);
  c.tFAW = r.chance(25) ? 0 : c.tRRD_S + r.below(40);
  c.tRTP = 1 + r.below(8);
  c.tWL = r.below(8);
  c.tWR = r.below(20);
  c.tRFC = 1 + r.below(300);
  const uint64_t min_refi = c.tRFC + c.tRP + c.tRCD + c.tCL + c.tCCD_L + c.tWR + 1;
  c.tREFI = r.chance(25) ? 0 : min_refi + r.below(3000);
  c.queue_depth = 1 + static_cast<uint32_t>(r.below(40));
  c.page_policy = r.chance(25) ? PagePolicy::kClosed : PagePolicy::kOpen;
  // A random order of the fields.
  c.mapping = {AddrField::kRow, AddrField::kBank, AddrField::kColumn, AddrField::kBankGroup,
               AddrField::kChannel};
  if (c.pseudo_channels == 2) c.mapping.push_back(AddrField::kPseudoChannel);
  for (size_t i = c.mapping.size(); i > 1; --i) std::swap(c.mapping[i - 1], c.mapping[r.below(i)]);
  c.window_target = c.base;  // the 32-bit window must fit the (small) part
  c.window_size = c.size();
  validate(c);
  return c;
}

std::string describe(const HbmConfig& c) {
  std::string m;
  for (auto f : c.mapping) m += to_string(f) + ",";
  return "ch " + std::to_string(c.channels) + " pc " + std::to_string(c.pseudo_channels) +
         " bg " + std::to_string(c.bank_groups) + " bpg " + std::to_string(c.banks_per_group) +
         " rows " + std::to_string(c.rows) + " row_bytes " + std::to_string(c.row_bytes) +
         " BL " + std::to_string(c.burst_length) + " tREFI " + std::to_string(c.tREFI) +
         " tFAW " + std::to_string(c.tFAW) + " queue " + std::to_string(c.queue_depth) +
         (c.page_policy == PagePolicy::kClosed ? " closed" : " open") + " map " + m;
}

// One stream: requests of 1 byte to several rows, sequential, strided or random, reads and
// writes, arrivals mostly increasing but sometimes earlier than the last one (several
// initiators). Each request is checked burst by burst (access) on one engine pair and as a
// whole (access_request) on another.
void compare(const HbmConfig& c, Rng& r, unsigned requests) {
  INFO(describe(c));
  ReferenceHbmTiming ref(c), ref2(c);
  HbmTiming fast(c), fast2(c);
  const uint64_t size = c.size(), burst = c.burst_bytes();
  uint64_t seq = 0, arrival = 0;
  const uint64_t stride = burst * (1 + r.below(64)) + (r.chance(50) ? c.row_bytes : 0);
  for (unsigned i = 0; i < requests; ++i) {
    uint64_t addr;
    switch (r.below(4)) {
      case 0: addr = r.below(size); break;
      case 1: addr = seq, seq = (seq + stride) % size; break;
      default: addr = seq, seq = (seq + burst * (1 + r.below(4))) % size; break;
    }
    uint64_t len = r.chance(30) ? 1 + r.below(burst) : burst * (1 + r.below(40));
    if (r.chance(5)) len = 1 + r.below(4 * c.row_bytes);
    len = std::min(len, size - addr);
    const bool write = r.chance(40);
    switch (r.below(10)) {
      case 0: arrival += r.below(c.tREFI ? c.tREFI : 5000); break;  // idle gap
      case 1: arrival = arrival > 50 ? arrival - r.below(50) : 0; break;  // earlier initiator
      default: arrival += r.below(8); break;
    }
    INFO("request " << i << " at " << addr << " len " << len << (write ? " write" : " read")
                    << " arrival " << arrival);
    uint64_t done = arrival, hits = 0, misses = 0, conflicts = 0;
    for (uint64_t b = addr & ~(burst - 1); b < addr + len; b += burst) {
      const BurstTiming e = ref.access(b, write, arrival);
      const BurstTiming g = fast.access(b, write, arrival);
      REQUIRE(g.admit_cycles == e.admit_cycles);
      REQUIRE(g.data_cycles == e.data_cycles);
      REQUIRE(g.done_cycles == e.done_cycles);
      REQUIRE(g.outcome == e.outcome);
      const BurstTiming e2 = ref2.access(b, write, arrival);
      done = std::max(done, e2.done_cycles);
      hits += e2.outcome == RowOutcome::kHit;
      misses += e2.outcome == RowOutcome::kMiss;
      conflicts += e2.outcome == RowOutcome::kConflict;
    }
    const RequestTiming q = fast2.access_request(addr, len, write, arrival);
    REQUIRE(q.done_cycles == done);
    REQUIRE(q.row_hits == hits);
    REQUIRE(q.row_misses == misses);
    REQUIRE(q.row_conflicts == conflicts);
    REQUIRE(fast.refreshes() == ref.refreshes());
    REQUIRE(fast2.refreshes() == ref2.refreshes());
  }
}

}  // namespace

TEST_CASE("hbm timing: the optimised engine equals the reference on the default part",
          "[hbm][timing][equivalence]") {
  Rng r{0x243F6A8885A308D3ull};
  HbmConfig c;
  compare(c, r, 20000);
  c.tREFI = 0;
  compare(c, r, 5000);
  c.page_policy = PagePolicy::kClosed;
  compare(c, r, 5000);
  HbmConfig pc;
  pc.pseudo_channels = 2;
  pc.row_bytes = 1024;
  pc.mapping = {AddrField::kRow, AddrField::kBank, AddrField::kColumn, AddrField::kBankGroup,
                AddrField::kPseudoChannel, AddrField::kChannel};
  validate(pc);
  compare(pc, r, 5000);
}

TEST_CASE("hbm timing: the optimised engine equals the reference on random configurations",
          "[hbm][timing][equivalence]") {
  Rng r{0x13198A2E03707344ull};
  for (int i = 0; i < 300; ++i) {
    const HbmConfig c = random_config(r);
    compare(c, r, 600);
  }
}

TEST_CASE("hbm timing: geometry that is not a power of two is refused", "[hbm][timing]") {
  HbmConfig c;
  c.banks_per_group = 3;
  CHECK_THROWS_AS(HbmTiming{c}, std::invalid_argument);
  c = HbmConfig{};
  c.rows = 1000;
  CHECK_THROWS_AS(HbmTiming{c}, std::invalid_argument);
  c = HbmConfig{};
  c.queue_depth = 0;
  CHECK_THROWS_AS(HbmTiming{c}, std::invalid_argument);
}
