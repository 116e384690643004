// The protocol checker's negative tests: for each rule, a deliberately broken model makes it
// fire, and the test asserts that exactly that rule fired (and how often). The clean runs of
// the real models are in test_protocol_clean.cpp.
#include <catch2/catch.hpp>

#include "broken_models.h"
#include "models/protocol_checker.h"

using namespace npusim::models;
using npusim::test::BrokenTarget;
using npusim::test::PlainInitiator;
using npusim::test::prepare;
using Fault = BrokenTarget::Fault;

namespace {

ProtocolCheckConfig quiet() {
  ProtocolCheckConfig c;
  c.count_in_total = false;  // the violations are the point
  c.max_reports = 1;
  return c;
}

// initiator -> checker -> broken target.
struct Rig {
  PlainInitiator init;
  ProtocolChecker check;
  BrokenTarget target;
  explicit Rig(Fault f, const ProtocolCheckConfig& cfg = quiet(), const char* name = "rig")
      : init(sc_core::sc_gen_unique_name(name)),
        check(sc_core::sc_gen_unique_name("check"), cfg),
        target(sc_core::sc_gen_unique_name("target"), f) {
    init.bus.bind(check.in);
    check.out.bind(target.bus);
  }
  tlm::tlm_response_status write(uint64_t addr, uint32_t v) {
    tlm::tlm_generic_payload t;
    prepare(t, tlm::TLM_WRITE_COMMAND, addr, &v, 4);
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    init.bus->b_transport(t, d);
    return t.get_response_status();
  }
  bool dmi(tlm::tlm_command cmd, uint64_t addr, tlm::tlm_dmi& d) {
    tlm::tlm_generic_payload t;
    uint32_t v = 0;
    prepare(t, cmd, addr, &v, 4);
    d.init();
    return init.bus->get_direct_mem_ptr(t, d);
  }
};

// Exactly `n` violations on `c`, all of rule `r`, the first naming the checker and the rule.
void expect_only(const ProtocolChecker& c, ProtocolRule r, uint64_t n) {
  std::string all;
  for (const auto& v : c.kept()) all += v.message + "\n";
  INFO("rule " << rule_name(r) << "; kept:\n" << all);
  CHECK(c.violations(r) == n);
  CHECK(c.violations() == n);
  REQUIRE_FALSE(c.kept().empty());
  const std::string& m = c.kept().front().message;
  CHECK_THAT(m, Catch::Contains(c.name()) && Catch::Contains(rule_name(r)));
}

}  // namespace

TEST_CASE("protocol: a correct target raises nothing", "[protocol]") {
  Rig r(Fault::kNone);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  CHECK(r.write(8, 0xAB) == tlm::TLM_OK_RESPONSE);
  tlm::tlm_dmi d;
  CHECK(r.dmi(tlm::TLM_WRITE_COMMAND, 8, d));
  CHECK(r.check.violations() == 0);
  CHECK(r.check.calls().b_transport == 1);
  CHECK(r.check.calls().get_direct_mem_ptr == 1);
}

TEST_CASE("protocol: response-incomplete-on-entry", "[protocol]") {
  Rig r(Fault::kNone);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  tlm::tlm_generic_payload t;
  uint32_t v = 0;
  prepare(t, tlm::TLM_READ_COMMAND, 0, &v, 4);
  t.set_response_status(tlm::TLM_OK_RESPONSE);  // left over from an earlier request
  sc_core::sc_time d;
  r.init.bus->b_transport(t, d);
  expect_only(r.check, ProtocolRule::kResponseIncompleteOnEntry, 1);
}

TEST_CASE("protocol: response-set-on-return (b_transport and an nb early completion)",
          "[protocol]") {
  Rig r(Fault::kLeaveIncomplete);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  CHECK(r.write(0, 1) == tlm::TLM_INCOMPLETE_RESPONSE);
  tlm::tlm_generic_payload t;
  uint32_t v = 0;
  prepare(t, tlm::TLM_READ_COMMAND, 0, &v, 4);
  CHECK(r.init.send(t, tlm::BEGIN_REQ) == tlm::TLM_COMPLETED);
  expect_only(r.check, ProtocolRule::kResponseSetOnReturn, 2);
}

TEST_CASE("protocol: dmi-hint-on-entry fires on a reused payload whose hint a target set",
          "[protocol]") {
  Rig r(Fault::kNone);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  tlm::tlm_generic_payload t;
  uint32_t v = 0;
  prepare(t, tlm::TLM_READ_COMMAND, 0, &v, 4);
  sc_core::sc_time d;
  r.init.bus->b_transport(t, d);
  t.set_dmi_allowed(true);  // as a DMI-capable target answers
  t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  r.init.bus->b_transport(t, d);  // reused: the status is reset, the hint is not
  expect_only(r.check, ProtocolRule::kDmiHintOnEntry, 1);
}

TEST_CASE("protocol: attributes-unchanged names each attribute a target changed", "[protocol]") {
  const std::vector<std::pair<Fault, const char*>> faults = {
      {Fault::kChangeCommand, "command"},
      {Fault::kChangeDataPointer, "data pointer"},
      {Fault::kChangeLength, "data length"},
      {Fault::kChangeByteEnable, "byte-enable pointer"},
      {Fault::kChangeStreamingWidth, "streaming width"}};
  std::vector<std::unique_ptr<Rig>> rigs;
  for (const auto& f : faults) rigs.push_back(std::make_unique<Rig>(f.first));
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  for (size_t i = 0; i < faults.size(); ++i) {
    rigs[i]->write(0, 7);
    INFO(faults[i].second);
    // The byte-enable fault also changes the byte-enable length: two findings, one rule.
    expect_only(rigs[i]->check, ProtocolRule::kAttributesUnchanged,
                faults[i].first == Fault::kChangeByteEnable ? 2 : 1);
    CHECK_THAT(rigs[i]->check.kept().front().message, Catch::Contains(faults[i].second));
  }
}

TEST_CASE("protocol: address-restored, by a target and by an interconnect", "[protocol]") {
  Rig changer(Fault::kChangeAddress);
  // initiator -> checker -> router (0x1000 -> 0) -> target: the router forgets the address.
  PlainInitiator init("init");
  ProtocolChecker check("check_router", quiet());
  npusim::test::Router forgetful("forgetful", 0x1000, false);
  BrokenTarget mem("mem");
  init.bus.bind(check.in);
  check.out.bind(forgetful.in);
  forgetful.out.bind(mem.bus);
  // The same with a router that restores it: clean.
  PlainInitiator init2("init2");
  ProtocolChecker check2("check_router2", quiet());
  npusim::test::Router good("good", 0x1000, true);
  BrokenTarget mem2("mem2");
  init2.bus.bind(check2.in);
  check2.out.bind(good.in);
  good.out.bind(mem2.bus);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);

  changer.write(0x10, 1);
  expect_only(changer.check, ProtocolRule::kAddressRestored, 1);
  for (auto* i : {&init, &init2}) {
    tlm::tlm_generic_payload t;
    uint32_t v = 3;
    prepare(t, tlm::TLM_WRITE_COMMAND, 0x1010, &v, 4);
    sc_core::sc_time d;
    i->bus->b_transport(t, d);
    prepare(t, tlm::TLM_READ_COMMAND, 0x1010, &v, 4);
    i->bus->transport_dbg(t);
    prepare(t, tlm::TLM_READ_COMMAND, 0x1010, &v, 4);
    tlm::tlm_dmi dmi;
    CHECK(i->bus->get_direct_mem_ptr(t, dmi));
  }
  expect_only(check, ProtocolRule::kAddressRestored, 3);  // b_transport, debug, DMI
  CHECK_THAT(check.kept().front().message, Catch::Contains("came back as 0x10, sent as 0x1010"));
  CHECK(check2.violations() == 0);
  CHECK(mem2.last_address == 0x10);
}

TEST_CASE("protocol: blocking-from-thread fires for b_transport from an SC_METHOD, not for "
          "nb_transport_fw", "[protocol]") {
  npusim::test::MethodInitiator blocking("blocking", false, 0x10), nb("nb", true, 0x20);
  ProtocolChecker c1("check_blocking", quiet()), c2("check_nb", quiet());
  BrokenTarget t1("t1"), t2("t2");
  blocking.bus.bind(c1.in);
  c1.out.bind(t1.bus);
  nb.bus.bind(c2.in);
  c2.out.bind(t2.bus);
  sc_core::sc_start(1, sc_core::SC_NS);
  REQUIRE(blocking.ran);
  REQUIRE(nb.ran);
  expect_only(c1, ProtocolRule::kBlockingFromThread, 1);
  CHECK_THAT(c1.kept().front().message, Catch::Contains("SC_METHOD 'blocking.run'"));
  CHECK(c2.violations() == 0);
  CHECK(c2.calls().nb_transport_fw == 1);
}

TEST_CASE("protocol: nb-phase-sequence", "[protocol]") {
  Rig a(Fault::kNone), b(Fault::kNone), c(Fault::kNone), d(Fault::kNone), e(Fault::kNone);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  uint32_t v = 0;
  tlm::tlm_generic_payload ta, tb, tc, td, te;
  // a: END_RESP before any BEGIN_RESP.
  prepare(ta, tlm::TLM_READ_COMMAND, 0, &v, 4);
  CHECK(a.init.send(ta, tlm::BEGIN_REQ) == tlm::TLM_ACCEPTED);
  a.init.send(ta, tlm::END_RESP);
  expect_only(a.check, ProtocolRule::kNbPhaseSequence, 1);
  CHECK_THAT(a.check.kept().front().message, Catch::Contains("END_RESP before BEGIN_RESP"));
  // b: the target ends the request twice.
  prepare(tb, tlm::TLM_READ_COMMAND, 0, &v, 4);
  b.init.send(tb, tlm::BEGIN_REQ);
  b.target.send(tb, tlm::END_REQ);
  b.target.send(tb, tlm::END_REQ);
  expect_only(b.check, ProtocolRule::kNbPhaseSequence, 1);
  CHECK_THAT(b.check.kept().front().message, Catch::Contains("a second END_REQ"));
  // c: a second BEGIN_REQ for a transaction in progress.
  prepare(tc, tlm::TLM_READ_COMMAND, 0, &v, 4);
  c.init.send(tc, tlm::BEGIN_REQ);
  c.target.send(tc, tlm::END_REQ);
  c.init.send(tc, tlm::BEGIN_REQ);
  expect_only(c.check, ProtocolRule::kNbPhaseSequence, 1);
  // d: a response for a transaction that was never sent; a target phase on the forward path.
  prepare(td, tlm::TLM_READ_COMMAND, 0, &v, 4);
  td.set_response_status(tlm::TLM_OK_RESPONSE);
  d.target.send(td, tlm::BEGIN_RESP);
  d.init.send(td, tlm::BEGIN_RESP);
  expect_only(d.check, ProtocolRule::kNbPhaseSequence, 2);
  // e: the legal full sequence, and BEGIN_RESP without END_REQ: clean.
  prepare(te, tlm::TLM_READ_COMMAND, 0, &v, 4);
  e.init.send(te, tlm::BEGIN_REQ);
  e.target.send(te, tlm::END_REQ);
  e.target.serve(te);
  e.target.send(te, tlm::BEGIN_RESP);
  e.init.send(te, tlm::END_RESP);
  prepare(te, tlm::TLM_READ_COMMAND, 4, &v, 4);
  e.init.send(te, tlm::BEGIN_REQ);
  e.target.serve(te);
  e.target.send(te, tlm::BEGIN_RESP);
  e.init.send(te, tlm::END_RESP);
  CHECK(e.check.violations() == 0);
  CHECK(e.check.calls().nb_transport_bw == 3);
}

TEST_CASE("protocol: nb-exclusion (request and response)", "[protocol]") {
  Rig r(Fault::kNone);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  uint32_t v1 = 0, v2 = 0;
  tlm::tlm_generic_payload t1, t2;
  prepare(t1, tlm::TLM_READ_COMMAND, 0, &v1, 4);
  prepare(t2, tlm::TLM_READ_COMMAND, 4, &v2, 4);
  r.init.send(t1, tlm::BEGIN_REQ);
  r.init.send(t2, tlm::BEGIN_REQ);  // t1 has had no END_REQ
  CHECK(r.check.violations(ProtocolRule::kNbExclusion) == 1);
  r.target.serve(t1);
  r.target.serve(t2);
  r.target.send(t1, tlm::BEGIN_RESP);
  r.target.send(t2, tlm::BEGIN_RESP);  // t1 has had no END_RESP
  expect_only(r.check, ProtocolRule::kNbExclusion, 2);
  CHECK_THAT(r.check.kept().back().message, Catch::Contains("awaits END_RESP"));
}

TEST_CASE("protocol: nb-return-phase", "[protocol]") {
  Rig a(Fault::kNbAcceptedChangesPhase), b(Fault::kNone);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  uint32_t v = 0;
  tlm::tlm_generic_payload ta, tb;
  prepare(ta, tlm::TLM_READ_COMMAND, 0, &v, 4);
  a.init.send(ta, tlm::BEGIN_REQ);  // TLM_ACCEPTED, phase changed to END_REQ
  expect_only(a.check, ProtocolRule::kNbReturnPhase, 1);
  // The initiator answers END_REQ with TLM_UPDATED (it has no phase to move to).
  b.init.answer = tlm::TLM_UPDATED;
  b.init.updated_phase = tlm::END_RESP;
  prepare(tb, tlm::TLM_READ_COMMAND, 0, &v, 4);
  b.init.send(tb, tlm::BEGIN_REQ);
  b.target.send(tb, tlm::END_REQ);
  expect_only(b.check, ProtocolRule::kNbReturnPhase, 1);
}

namespace {
// Calls transport_dbg from a thread (a callee that waits needs one).
struct DebugThread : sc_core::sc_module {
  PlainInitiator& init;
  SC_HAS_PROCESS(DebugThread);
  DebugThread(sc_core::sc_module_name n, PlainInitiator& i) : sc_module(n), init(i) {
    SC_THREAD(run);
  }
  void run() {
    tlm::tlm_generic_payload t;
    uint32_t v = 0;
    prepare(t, tlm::TLM_READ_COMMAND, 0, &v, 4);
    init.bus->transport_dbg(t);
  }
};
}  // namespace

TEST_CASE("protocol: non-blocking-no-wait", "[protocol]") {
  Rig r(Fault::kWaitInDebug);
  DebugThread thread("thread", r.init);
  sc_core::sc_start(10, sc_core::SC_NS);
  expect_only(r.check, ProtocolRule::kNonBlockingNoWait, 1);
  CHECK_THAT(r.check.kept().front().message, Catch::Contains("transport_dbg"));
}

TEST_CASE("protocol: the DMI rules, one broken grant each", "[protocol]") {
  struct Case {
    Fault fault;
    tlm::tlm_command cmd;
    ProtocolRule rule;
  };
  const std::vector<Case> cases = {
      {Fault::kDmiRangeMissesAddress, tlm::TLM_READ_COMMAND, ProtocolRule::kDmiRange},
      {Fault::kDmiDeniedElsewhere, tlm::TLM_READ_COMMAND, ProtocolRule::kDmiDeniedRange},
      {Fault::kDmiReadOnly, tlm::TLM_WRITE_COMMAND, ProtocolRule::kDmiAccess},
      {Fault::kDmiNullPointer, tlm::TLM_READ_COMMAND, ProtocolRule::kDmiPointer},
      {Fault::kDmiNegativeLatency, tlm::TLM_READ_COMMAND, ProtocolRule::kDmiLatency}};
  std::vector<std::unique_ptr<Rig>> rigs;
  for (const auto& c : cases) rigs.push_back(std::make_unique<Rig>(c.fault));
  ProtocolCheckConfig narrow = quiet();
  narrow.map_last = 0x7F;  // this binding carries [0, 0x80); the target grants 256 bytes
  Rig in_map(Fault::kNone, narrow);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  for (size_t i = 0; i < cases.size(); ++i) {
    tlm::tlm_dmi d;
    rigs[i]->dmi(cases[i].cmd, 0x10, d);
    expect_only(rigs[i]->check, cases[i].rule, 1);
    // The read-only grant is fine for a read.
    if (cases[i].fault == Fault::kDmiReadOnly) {
      rigs[i]->dmi(tlm::TLM_READ_COMMAND, 0x10, d);
      CHECK(rigs[i]->check.violations() == 1);
    }
  }
  tlm::tlm_dmi d;
  in_map.dmi(tlm::TLM_READ_COMMAND, 0x10, d);
  expect_only(in_map.check, ProtocolRule::kDmiInMap, 1);
}

TEST_CASE("protocol: invalidate-range", "[protocol]") {
  Rig r(Fault::kNone);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  r.target.invalidate(0x10, 0x1F);
  r.target.invalidate(0x20, 0x1F);
  expect_only(r.check, ProtocolRule::kInvalidateRange, 1);
  CHECK(r.init.invalidations.size() == 2);  // still forwarded
}

TEST_CASE("protocol: debug-length", "[protocol]") {
  Rig r(Fault::kDebugTooLong);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  tlm::tlm_generic_payload t;
  uint32_t v = 0;
  prepare(t, tlm::TLM_READ_COMMAND, 0, &v, 4);
  CHECK(r.init.bus->transport_dbg(t) == 5);
  expect_only(r.check, ProtocolRule::kDebugLength, 1);
}

TEST_CASE("protocol: a disabled rule is not checked; only counting checkers add to the total",
          "[protocol]") {
  ProtocolCheckConfig off = quiet();
  off.response_set_on_return = false;
  Rig disabled(Fault::kLeaveIncomplete, off);
  ProtocolCheckConfig counting;
  counting.max_reports = 0;
  Rig counted(Fault::kLeaveIncomplete, counting);
  Rig uncounted(Fault::kLeaveIncomplete);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  const uint64_t before = ProtocolChecker::total_violations();
  disabled.write(0, 1);
  counted.write(0, 1);
  uncounted.write(0, 1);
  CHECK(disabled.check.violations() == 0);
  CHECK(counted.check.violations() == 1);
  CHECK(uncounted.check.violations() == 1);
  CHECK(ProtocolChecker::total_violations() == before + 1);
  CHECK_THAT(ProtocolChecker::first_violation(), Catch::Contains(counted.check.name()));
  ProtocolChecker::forget_total();  // made on purpose: the runner must not fail on it
  CHECK(ProtocolChecker::total_violations() == 0);
}

TEST_CASE("protocol: the error policy raises SC_REPORT_ERROR with the message", "[protocol]") {
  ProtocolCheckConfig err = quiet();
  err.policy = ProtocolCheckPolicy::kError;
  Rig r(Fault::kLeaveIncomplete, err);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  CHECK_THROWS_WITH(r.write(0, 1), Catch::Contains("response-set-on-return") &&
                                       Catch::Contains(r.check.name()));
  CHECK(r.check.violations() == 1);
}
