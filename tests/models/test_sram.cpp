// SRAM module tests through the shared test initiator and the interconnect.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "models/interconnect.h"
#include "models/sram.h"
#include "models/sram_timing.h"
#include "test_initiator.h"

using namespace npusim::models;
using npusim::test::TestInitiator;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {

// initiator -> interconnect (hop 2 ns) -> dataram at 0x80000 (and an alias window at
// 0x200000 onto dataram offset 0x100, 4 KiB).
struct Bench {
  TestInitiator cpu{"cpu"};
  Interconnect bus;
  Sram ram;
  explicit Bench(const SramConfig& c = SramConfig{})
      : bus("bus", InterconnectConfig{},
            {Region{"dataram", 0x80000, c.size, 0, 0}, Region{"alias", 0x200000, 0x1000, 0, 0x100}}),
        ram("dataram", c) {
    cpu.mem.bind(bus.bus);
    bus.mem.bind(ram.bus);
    npusim::test::start_simulation();
  }
};

}  // namespace

TEST_CASE("sram timing: latency, port words and bank conflicts", "[sram][timing]") {
  struct Row {
    const char* what;
    uint64_t offset, len, arrival, done, conflicts;
  };
  // latency 1, 8-byte port, 4 banks, conflict cost 1; one engine, rows in order.
  const Row rows[] = {
      {"one word", 0, 4, 0, 1, 0},
      {"one word, other bank", 8, 8, 10, 11, 0},
      {"four words, four banks: one per cycle", 0, 32, 20, 24, 0},
      {"misaligned 8 bytes: two words", 4, 8, 40, 42, 0},
      {"bank 0 at 50", 0, 4, 50, 51, 0},
      {"bank 0 again at 50: waits 1 + conflict 1", 32, 4, 50, 53, 1},
      {"bank 1 at 60", 8, 4, 60, 61, 0},
      {"bank 2 at 60: no conflict", 16, 4, 60, 61, 0},
  };
  SramTiming t{SramConfig{}};
  for (const auto& r : rows) {
    INFO(r.what);
    const SramAccess a = t.access(r.offset, r.len, r.arrival);
    CHECK(a.done_cycles == r.done);
    CHECK(a.conflicts == r.conflicts);
  }
}

TEST_CASE("sram timing: the idle-bank shortcut equals the word-by-word schedule", "[sram][timing]") {
  // The word-by-word schedule, written out as the model's definition (sram_timing.h).
  struct Reference {
    SramConfig c;
    std::vector<uint64_t> free;
    explicit Reference(const SramConfig& cfg) : c(cfg), free(cfg.banks, 0) {}
    SramAccess access(uint64_t offset, uint64_t len, uint64_t arrival) {
      if (len == 0) len = 1;
      const uint64_t first = offset / c.width_bytes, last = (offset + len - 1) / c.width_bytes;
      uint64_t start = arrival, conflicts = 0;
      for (uint64_t w = first; w <= last; ++w) {
        if (w != first) ++start;
        uint64_t& f = free[w % c.banks];
        if (f > start) {
          start = f + c.bank_conflict_cycles;
          ++conflicts;
        }
        f = start + 1;
      }
      return SramAccess{start + c.latency_cycles, last - first + 1, conflicts};
    }
  };
  std::mt19937_64 rng(11);
  uint64_t shortcut_taken = 0;
  for (int config = 0; config < 40; ++config) {
    SramConfig c;
    c.banks = 1 + static_cast<uint32_t>(rng() % 33);  // not only powers of two
    c.width_bytes = 1u << (rng() % 7);
    c.latency_cycles = rng() % 5;
    c.bank_conflict_cycles = rng() % 4;
    c.size = 1 << 20;
    SramTiming model(c);
    Reference ref(c);
    uint64_t now = 0;
    for (int i = 0; i < 500; ++i) {
      // Long and short accesses; arrivals that go forward, stay, or go back a little.
      const uint64_t len = rng() % 3 == 0 ? 1 + rng() % 4096 : 1 + rng() % 16;
      const uint64_t offset = rng() % (c.size - len);
      now = rng() % 4 == 0 ? now - std::min<uint64_t>(now, rng() % 20) : now + rng() % 200;
      const uint64_t words = (offset + len - 1) / c.width_bytes - offset / c.width_bytes + 1;
      if (words > c.banks) ++shortcut_taken;
      const SramAccess want = ref.access(offset, len, now);
      const SramAccess got = model.access(offset, len, now);
      INFO("config " << config << " access " << i << " banks " << c.banks << " width "
                     << c.width_bytes << " offset " << offset << " len " << len << " at " << now);
      REQUIRE(got.done_cycles == want.done_cycles);
      REQUIRE(got.words == want.words);
      REQUIRE(got.conflicts == want.conflicts);
    }
  }
  CHECK(shortcut_taken > 1000);  // the long-access path was exercised
}

TEST_CASE("sram: reads and writes through the interconnect, latency and status", "[sram]") {
  Bench b;
  const uint32_t v = 0xCAFEF00D;
  sc_time d = sc_core::SC_ZERO_TIME;
  REQUIRE(b.cpu.do_write(0x80040, &v, 4, d) == tlm::TLM_OK_RESPONSE);
  CHECK(d == sc_time(3, SC_NS));  // hop 2 + latency 1
  uint32_t r = 0;
  d = sc_time(10, SC_NS);
  REQUIRE(b.cpu.do_read(0x80040, &r, 4, d) == tlm::TLM_OK_RESPONSE);
  CHECK(r == v);
  CHECK(d == sc_time(13, SC_NS));
  CHECK(b.cpu.last_dmi_allowed);
  // The alias sees dataram offset 0x100 at 0x200000.
  REQUIRE(b.cpu.do_write(0x200000, &v, 4) == tlm::TLM_OK_RESPONSE);
  uint32_t r2 = 0;
  REQUIRE(b.cpu.do_read(0x80100, &r2, 4) == tlm::TLM_OK_RESPONSE);
  CHECK(r2 == v);
  CHECK(b.ram.stats().writes == 2);
  CHECK(b.ram.stats().reads == 2);
  CHECK(b.ram.stats().bytes() == 16);
}

TEST_CASE("sram: unmapped, out-of-range, empty and burst-mismatched accesses fail cleanly",
          "[sram]") {
  Bench b;
  uint8_t buf[16] = {};
  CHECK(b.cpu.do_read(0x7FFFC, buf, 4) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK(b.cpu.do_read(0x8FFFC, buf, 8) == tlm::TLM_ADDRESS_ERROR_RESPONSE);  // runs off the end
  CHECK(b.cpu.do_write(0x90000, buf, 4) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK(b.cpu.do_read(0x80000, buf, 0) == tlm::TLM_GENERIC_ERROR_RESPONSE);
  sc_time d = sc_core::SC_ZERO_TIME;
  CHECK(b.cpu.do_read(0x80000, buf, 16, d, nullptr, 0, 4) == tlm::TLM_BURST_ERROR_RESPONSE);
  CHECK(b.bus.stats().address_errors == 3);
  CHECK(b.ram.stats().errors == 2);
  CHECK(b.ram.stats().requests() == 0);
}

TEST_CASE("sram: misaligned accesses cost a word each, or fail when configured", "[sram]") {
  SramConfig c;
  c.allow_misaligned = false;
  Bench b(c);
  uint32_t v = 7;
  CHECK(b.cpu.do_write(0x80004, &v, 4) == tlm::TLM_OK_RESPONSE);    // inside one 8-byte word
  CHECK(b.cpu.do_write(0x80006, &v, 4) == tlm::TLM_GENERIC_ERROR_RESPONSE);  // crosses
  CHECK(b.ram.stats().errors == 1);
}

TEST_CASE("sram: DMI grant, translation through an alias, latency, invalidation", "[sram]") {
  Bench b;
  tlm::tlm_dmi dmi;
  REQUIRE(b.cpu.get_dmi(0x80010, dmi));
  CHECK(dmi.get_start_address() == 0x80000);
  CHECK(dmi.get_end_address() == 0x8FFFF);
  CHECK(dmi.is_read_write_allowed());
  CHECK(dmi.get_read_latency() == sc_time(3, SC_NS));  // latency 1 + hop 2
  const uint32_t v = 0x12345678;
  std::memcpy(dmi.get_dmi_ptr() + 0x20, &v, 4);  // a store through DMI...
  uint32_t r = 0;
  REQUIRE(b.cpu.do_read(0x80020, &r, 4) == tlm::TLM_OK_RESPONSE);  // ...seen by b_transport
  CHECK(r == v);

  tlm::tlm_dmi alias;
  REQUIRE(b.cpu.get_dmi(0x200010, alias));
  CHECK(alias.get_start_address() == 0x200000);  // clipped to the alias region
  CHECK(alias.get_end_address() == 0x200FFF);
  CHECK(alias.get_dmi_ptr() == dmi.get_dmi_ptr() + 0x100);

  b.ram.revoke_dmi();
  REQUIRE(b.cpu.invalidations.size() == 2);  // the region and its alias, in cpu addresses
  CHECK(b.cpu.invalidations[0].start == 0x80000);
  CHECK(b.cpu.invalidations[0].end == 0x8FFFF);
  CHECK(b.cpu.invalidations[1].start == 0x200000);
  CHECK(b.cpu.invalidations[1].end == 0x200FFF);
  tlm::tlm_dmi again;
  CHECK_FALSE(b.cpu.get_dmi(0x80010, again));
  CHECK_FALSE(again.is_read_allowed());
  REQUIRE(b.cpu.do_read(0x80020, &r, 4) == tlm::TLM_OK_RESPONSE);
  CHECK_FALSE(b.cpu.last_dmi_allowed);
  b.ram.enable_dmi();
  CHECK(b.cpu.get_dmi(0x80010, again));
  CHECK(b.ram.stats().dmi_grants == 3);
}

TEST_CASE("sram: debug transport and fill pattern", "[sram]") {
  SramConfig c;
  c.fill = 0xDEADBEEF;
  Bench b(c);
  uint32_t r = 0;
  REQUIRE(b.cpu.do_read(0x80008, &r, 4) == tlm::TLM_OK_RESPONSE);
  CHECK(r == 0xDEADBEEF);
  const uint32_t v = 5;
  CHECK(b.cpu.debug(tlm::TLM_WRITE_COMMAND, 0x80008, const_cast<uint32_t*>(&v), 4) == 4);
  CHECK(b.cpu.debug(tlm::TLM_READ_COMMAND, 0x80008, &r, 4) == 4);
  CHECK(r == 5);
  CHECK(b.cpu.debug(tlm::TLM_READ_COMMAND, 0x90000, &r, 4) == 0);  // unmapped
  CHECK(b.ram.stats().requests() == 1);  // debug accesses are not timed requests
}

TEST_CASE("sram: a zero-sized memory is a configuration error", "[sram]") {
  SramConfig c;
  c.size = 0;
  REQUIRE_THROWS_AS(Sram("empty", c), ConfigError);
}
