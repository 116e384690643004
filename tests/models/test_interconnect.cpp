// Interconnect tests: construction errors, routing, translation, debug, DMI denial.
#include <catch2/catch.hpp>

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
