// The real models under the protocol checker: core, DMA engine, interconnect, dataram (SRAM),
// HBM and TCDM raise no violation, through b_transport, DMI (with an invalidation), debug
// transport and nb_transport; and nb_transport goes through the interconnect end to end
// without a blocking call, back to the right initiator with its address.
#include <catch2/catch.hpp>

#include <memory>
#include <vector>

#include "broken_models.h"
#include "models/core.h"
#include "models/dma_engine.h"
#include "models/memory_system.h"
#include "models/protocol_checker.h"
#include "models/snitch/tcdm.h"

using namespace npusim::models;
using npusim::test::BrokenTarget;
using npusim::test::MethodInitiator;
using npusim::test::PlainInitiator;
using npusim::test::prepare;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {
constexpr uint64_t kHbm = DEFAULT_HBM_BASE, kDataram = DEFAULT_DATARAM_BASE;

std::string all_messages(const ProtocolCheckers& cs) {
  std::string s;
  for (const auto& c : cs)
    for (const auto& v : c->kept()) s += v.message + "\n";
  return s;
}
}  // namespace

TEST_CASE("protocol: core, DMA, interconnect, dataram and HBM run clean", "[protocol]") {
  MemorySystem mem("mem", MemoryConfig{}, /*checks=*/true);
  Core core("core");
  DmaConfig dc;
  dc.windows = {};
  DmaEngine dma("dma", dc);
  ProtocolCheckers checkers;
  bind_checked(core.bus, mem.bus(), "check_core", checkers, {}, true);
  bind_checked(dma.bus, mem.bus(), "check_dma", checkers, {}, true);
  std::vector<uint32_t> seen;
  core.set_program([&](Core& c) {
    for (uint32_t i = 0; i < 64; ++i) c.store32(kDataram + 4 * i, i * 3);  // bus, then DMI
    for (uint32_t i = 0; i < 16; ++i) c.store32(kHbm + 64 * i, i + 100);
    std::vector<uint8_t> v(256, 0x5A), back(256);
    c.write_vectors(kHbm + 0x1000, v.data(), v.size());
    const uint64_t ticket = dma.submit({kHbm + 0x1000, kDataram + 0x800, 256, 0, "test"}, c.now());
    while (!dma.done(ticket)) c.wait_for(dma.completion_event());
    c.read(kDataram + 0x800, back.data(), back.size());
    CHECK(back == v);
    mem.dataram.revoke_dmi();  // an invalidation through the checkers
    for (uint32_t i = 0; i < 64; ++i) seen.push_back(c.load32(kDataram + 4 * i));
    for (uint32_t i = 0; i < 16; ++i) seen.push_back(c.load32(kHbm + 64 * i));
  });
  sc_core::sc_start();
  REQUIRE(core.finished());
  uint32_t peeked = 0;
  core.peek(kDataram + 8, &peeked, 4);  // debug transport
  CHECK(peeked == 6);
  REQUIRE(seen.size() == 80);
  CHECK(seen[5] == 15);
  CHECK(seen[64 + 3] == 103);

  for (auto& c : mem.checkers) checkers.push_back(std::move(c));
  REQUIRE(checkers.size() == 4);
  INFO(all_messages(checkers));
  for (const auto& c : checkers) {
    INFO(c->name());
    CHECK(c->violations() == 0);
    CHECK(c->calls().b_transport > 0);
  }
  const ProtocolChecker& to_dataram = *checkers[2];
  CHECK(std::string(to_dataram.name()) == "mem.check_dataram");
  CHECK(to_dataram.calls().get_direct_mem_ptr > 0);
  CHECK(to_dataram.calls().invalidate_direct_mem_ptr == 1);
  CHECK(to_dataram.calls().transport_dbg == 1);
  CHECK(checkers[0]->calls().invalidate_direct_mem_ptr == 1);  // reached the core
  CHECK(core.stats().dmi_accesses > 0);
  CHECK(ProtocolChecker::total_violations() == 0);
}

TEST_CASE("protocol: nb_transport from an SC_METHOD through the interconnect to dataram, HBM "
          "and TCDM completes at once, with no blocking call", "[protocol][bus]") {
  // An interconnect that served nb_transport_fw with the target's b_transport would fire
  // blocking-from-thread on the checkers between the interconnect and the memories.
  Interconnect ic("ic", InterconnectConfig{});
  SramConfig sc;
  sc.size = 0x1000;
  Sram ram("ram", sc);
  HbmConfig hc;
  Hbm hbm("hbm", hc);
  TcdmConfig tc;
  tc.size = 0x1000;
  Tcdm tcdm("tcdm", tc);
  ic.add_region("ram", 0x1000, 0x1000, 0);
  ic.add_region("hbm", 0x10000, 0x1000, 1);
  ic.add_region("tcdm", 0x20000, 0x1000, 2);
  ProtocolCheckers checkers;
  bind_checked(ic.mem, ram.bus, "check_ram", checkers, {}, true);
  bind_checked(ic.mem, hbm.bus, "check_hbm", checkers, {}, true);
  bind_checked(ic.mem, tcdm.bus, "check_tcdm", checkers, {}, true);
  MethodInitiator to_ram("to_ram", true, 0x1010), to_hbm("to_hbm", true, 0x10040),
      to_tcdm("to_tcdm", true, 0x20020), unmapped("unmapped", true, 0x90000);
  for (auto* m : {&to_ram, &to_hbm, &to_tcdm, &unmapped})
    bind_checked(m->bus, ic.bus, (std::string("check_") + m->basename()).c_str(), checkers, {},
                 true);
  sc_core::sc_start(1, SC_NS);

  for (auto* m : {&to_ram, &to_hbm, &to_tcdm}) {
    INFO(m->name());
    REQUIRE(m->ran);
    CHECK(m->status == tlm::TLM_COMPLETED);
    CHECK(m->trans.get_response_status() == tlm::TLM_OK_RESPONSE);
    CHECK(m->trans.get_address() == m->address);  // the initiator's address again
    CHECK(m->delay > sc_time(2, SC_NS));           // the hop and the memory's latency
  }
  CHECK(unmapped.status == tlm::TLM_COMPLETED);
  CHECK(unmapped.trans.get_response_status() == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  uint32_t v = 0;
  ram.store().read(0x10, &v, 4);
  CHECK(v == 0x12345678);
  hbm.store().read(0x40, &v, 4);
  CHECK(v == 0x12345678);
  tcdm.store().read(0x20, &v, 4);
  CHECK(v == 0x12345678);
  CHECK(ic.nb_in_flight() == 0);
  INFO(all_messages(checkers));
  for (const auto& c : checkers) {
    INFO(c->name());
    CHECK(c->violations() == 0);
  }
  CHECK(checkers[0]->calls().nb_transport_fw == 1);
  CHECK(checkers[0]->calls().b_transport == 0);
}

TEST_CASE("protocol: nb_transport through the interconnect to an approximately timed target "
          "returns each response to its initiator, at the initiator's address",
          "[protocol][bus]") {
  Interconnect ic("ic", InterconnectConfig{});
  BrokenTarget at("at");  // no fault: accepts BEGIN_REQ, the test sends the phases back
  ic.add_region("at", 0x4000, 0x100, 0);
  ProtocolCheckers checkers;
  bind_checked(ic.mem, at.bus, "check_at", checkers, {}, true);
  PlainInitiator a("a"), b("b");
  bind_checked(a.bus, ic.bus, "check_a", checkers, {}, true);
  bind_checked(b.bus, ic.bus, "check_b", checkers, {}, true);
  b.answer = tlm::TLM_UPDATED;  // b ends its response at once (END_RESP on the return path)
  sc_core::sc_start(sc_core::SC_ZERO_TIME);

  uint32_t va = 0, vb = 0xB0B0;
  tlm::tlm_generic_payload ta, tb;
  prepare(ta, tlm::TLM_READ_COMMAND, 0x4010, &va, 4);
  prepare(tb, tlm::TLM_WRITE_COMMAND, 0x4020, &vb, 4);
  sc_time d = sc_core::SC_ZERO_TIME;
  CHECK(a.send(ta, tlm::BEGIN_REQ, nullptr, &d) == tlm::TLM_ACCEPTED);
  CHECK(d == ic.hop_latency());
  CHECK(at.last_address == 0x10);  // translated for the target
  CHECK(ta.get_address() == 0x10);  // and kept while the target holds it
  at.send(ta, tlm::END_REQ);
  CHECK(ta.get_address() == 0x10);
  CHECK(b.send(tb, tlm::BEGIN_REQ) == tlm::TLM_ACCEPTED);
  CHECK(at.last_address == 0x20);
  at.serve(tb);
  at.send(tb, tlm::BEGIN_RESP);  // b answers TLM_UPDATED / END_RESP: done
  CHECK(tb.get_address() == 0x4020);
  at.mem[0x10] = 0x77;
  at.serve(ta);
  CHECK(at.send(ta, tlm::BEGIN_RESP) == tlm::TLM_ACCEPTED);
  CHECK(a.send(ta, tlm::END_RESP) == tlm::TLM_COMPLETED);
  CHECK(ta.get_address() == 0x4010);
  CHECK(va == 0x77);
  CHECK(at.mem[0x20] == 0xB0);

  REQUIRE(a.received.size() == 2);
  CHECK(a.received[0] == tlm::END_REQ);
  CHECK(a.received[1] == tlm::BEGIN_RESP);
  CHECK(a.received_addresses[1] == 0x4010);
  REQUIRE(b.received.size() == 1);
  CHECK(b.received[0] == tlm::BEGIN_RESP);
  CHECK(b.received_addresses[0] == 0x4020);
  CHECK(ic.nb_in_flight() == 0);
  INFO(all_messages(checkers));
  for (const auto& c : checkers) CHECK(c->violations() == 0);
}
