// Interconnect tests: construction errors, routing, translation, debug, DMI denial.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "models/hbm.h"
#include "models/interconnect.h"
#include "models/sram.h"
#include "test_initiator.h"

using namespace npusim::models;
using npusim::test::TestInitiator;

TEST_CASE("interconnect: overlapping regions are rejected at construction", "[bus]") {
  try {
    Interconnect bus("bus", InterconnectConfig{},
                     {Region{"dataram", 0x80000, 0x10000, 0, 0},
                      Region{"hbm_window", 0x8F000, 0x10000, 1, 0}});
    FAIL("overlap accepted");
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    CHECK(msg.find("'hbm_window'") != std::string::npos);
    CHECK(msg.find("'dataram'") != std::string::npos);
  }
}

TEST_CASE("interconnect: routes to several targets, translating; unmapped is an error",
          "[bus]") {
  TestInitiator a("a"), b("b");
  SramConfig small;
  small.size = 0x1000;
  Sram r0("r0", small), r1("r1", small);
  Interconnect bus("bus", InterconnectConfig{});
  bus.add_region("r0", 0x1000, 0x1000, 0);
  bus.add_region("r1", 0x2000, 0x1000, 1);
  bus.add_region("r1_hi", 0x10'0000'0000, 0x800, 1, 0x800);  // upper half of r1, 64-bit
  a.mem.bind(bus.bus);
  b.mem.bind(bus.bus);
  bus.mem.bind(r0.bus);
  bus.mem.bind(r1.bus);
  npusim::test::start_simulation();

  const uint32_t v = 0xBEEF;
  REQUIRE(a.do_write(0x2900, &v, 4) == tlm::TLM_OK_RESPONSE);
  uint32_t r = 0;
  REQUIRE(b.do_read(0x10'0000'0100, &r, 4) == tlm::TLM_OK_RESPONSE);  // r1 offset 0x900
  CHECK(r == v);
  CHECK(a.do_read(0x1FFE, &r, 4) == tlm::TLM_ADDRESS_ERROR_RESPONSE);  // straddles r0/r1
  CHECK(a.do_read(0x3000, &r, 4) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK(a.do_read(0x10'0000'07FE, &r, 4) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK(a.debug(tlm::TLM_READ_COMMAND, 0x10'0000'0100, &r, 4) == 4);
  CHECK(a.debug(tlm::TLM_READ_COMMAND, 0x5000, &r, 4) == 0);
  tlm::tlm_dmi dmi;
  CHECK_FALSE(a.get_dmi(0x5000, dmi));
  REQUIRE(a.get_dmi(0x10'0000'0010, dmi));
  CHECK(dmi.get_start_address() == 0x10'0000'0000);
  CHECK(dmi.get_end_address() == 0x10'0000'07FF);
  // An invalidation of r1 reaches both initiators for both regions that map it.
  r1.revoke_dmi();
  CHECK(a.invalidations.size() == 2);
  CHECK(b.invalidations.size() == 2);
  CHECK(b.invalidations[0].start == 0x2000);
  CHECK(b.invalidations[1].start == 0x10'0000'0000);
  CHECK(b.invalidations[1].end == 0x10'0000'07FF);
  CHECK(bus.stats().address_errors == 3);
  CHECK(bus.stats().region_requests[1] == 1);
}

TEST_CASE("interconnect: a region routed to a missing target fails at elaboration", "[bus]") {
  TestInitiator a("a");
  Interconnect bus("bus", InterconnectConfig{}, {Region{"nowhere", 0, 0x100, 3, 0}});
  SramConfig small;
  small.size = 0x100;
  Sram r0("r0", small);
  a.mem.bind(bus.bus);
  bus.mem.bind(r0.bus);
  REQUIRE_THROWS_WITH(npusim::test::start_simulation(),
                      Catch::Contains("'nowhere'") && Catch::Contains("target 3"));
}

TEST_CASE("interconnect: the cached route of blocking accesses agrees with the address map",
          "[bus]") {
  // Random accesses that hop between adjacent regions, two regions on one target (different
  // translations), an unmapped gap, region ends and straddles: each must reach the target of
  // the region that holds all of it, at the translated address, or answer an address error;
  // the per-region counts follow. The route of the previous access is cached, so the sequence
  // matters: repeats, neighbours, then a jump.
  TestInitiator a("a");
  SramConfig small;
  small.size = 0x1000;
  Sram r0("r0", small), r1("r1", small);
  Interconnect bus("bus", InterconnectConfig{});
  struct Map { uint64_t base, size, offset; unsigned target; };
  const Map regions[] = {{0x1000, 0x1000, 0, 0}, {0x2000, 0x800, 0x800, 1},
                         {0x10'0000'0000, 0x800, 0, 1}};  // sorted by base: indices 0, 1, 2
  for (size_t i = 0; i < 3; ++i)
    bus.add_region("r" + std::to_string(i), regions[i].base, regions[i].size, regions[i].target,
                   regions[i].offset);
  a.mem.bind(bus.bus);
  bus.mem.bind(r0.bus);
  bus.mem.bind(r1.bus);
  npusim::test::start_simulation();

  auto expect = [&](uint64_t addr, uint64_t len) -> int {
    const uint64_t n = len ? len : 1;
    for (int i = 0; i < 3; ++i)
      if (addr >= regions[i].base && addr + n <= regions[i].base + regions[i].size) return i;
    return -1;
  };
  uint64_t x = 0x2545F4914F6CDD1Dull;
  auto rnd = [&](uint64_t n) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    return x % n;
  };
  uint64_t counts[3] = {0, 0, 0}, errors = 0, requests = 0;
  uint64_t addr = 0x1000;
  for (int k = 0; k < 4000; ++k) {
    const uint64_t len = std::vector<uint64_t>{1, 2, 4, 8, 64}[rnd(5)];
    switch (rnd(5)) {
      case 0: break;                                      // the same address again
      case 1: addr += len; break;                         // the next one
      case 2: addr = regions[rnd(3)].base + rnd(0x808) - 4; break;  // around a region
      case 3: addr = 0x2800 + rnd(0x900) - 0x100; break;  // around the gap
      default: addr = regions[rnd(3)].base + regions[rnd(3)].size - rnd(70); break;  // ends
    }
    const int want = expect(addr, len);
    uint8_t data[64], back[64];
    for (uint64_t i = 0; i < len; ++i) data[i] = static_cast<uint8_t>(rnd(256));
    ++requests;
    const tlm::tlm_response_status st = a.do_write(addr, data, static_cast<unsigned>(len));
    if (want < 0) {
      ++errors;
      REQUIRE(st == tlm::TLM_ADDRESS_ERROR_RESPONSE);
      continue;
    }
    REQUIRE(st == tlm::TLM_OK_RESPONSE);
    ++counts[want];
    // The bytes are at the translated address of the region's target.
    Sram& target = regions[want].target == 0 ? r0 : r1;
    target.store().read(addr - regions[want].base + regions[want].offset, back, len);
    REQUIRE(std::memcmp(data, back, len) == 0);
  }
  CHECK(bus.stats().requests == requests);
  CHECK(bus.stats().address_errors == errors);
  for (size_t i = 0; i < 3; ++i) CHECK(bus.stats().region_requests[i] == counts[i]);
  CHECK(errors > 100);
  CHECK(counts[0] > 100);
  CHECK(counts[1] > 100);
  CHECK(counts[2] > 100);
}
