// Models for the protocol checker's tests: a small memory target that breaks one base-protocol
// rule when told to (and is a correct approximately timed target when not), a plain-socket
// initiator for hand-made payloads and nb_transport, a router that can forget to restore the
// address, and an SC_METHOD initiator.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include <systemc>
#include <tlm>

namespace npusim::test {

// 256 bytes at [0, 256). b_transport and debug transport serve at once; nb_transport_fw
// answers BEGIN_REQ with TLM_ACCEPTED and leaves the phases to the test (send()), as an
// approximately timed target would. DMI: the whole memory, read and write, 1 ns.
class BrokenTarget : public sc_core::sc_module, public tlm::tlm_fw_transport_if<> {
 public:
  enum class Fault {
    kNone,
    kLeaveIncomplete,       // b_transport / nb COMPLETED without a response status
    kChangeAddress,         // b_transport changes the address
    kChangeCommand,
    kChangeDataPointer,
    kChangeLength,
    kChangeByteEnable,
    kChangeStreamingWidth,
    kDmiRangeMissesAddress,  // grants [0x80, 0xFF] for any address
    kDmiDeniedElsewhere,     // denies with the range [0x80, 0xFF] for any address
    kDmiReadOnly,            // grants read access only, whatever the request
    kDmiNullPointer,
    kDmiNegativeLatency,     // a latency computed as 1 ns - 2 ns
    kDebugTooLong,           // transport_dbg returns the length plus one
    kWaitInDebug,            // transport_dbg waits 1 ns
    kNbAcceptedChangesPhase, // BEGIN_REQ -> TLM_ACCEPTED with the phase set to END_REQ
  };

  tlm::tlm_target_socket<> bus;
  Fault fault = Fault::kNone;
  uint8_t mem[256] = {};
  uint64_t last_address = 0;  // the address of the last request served

  explicit BrokenTarget(sc_core::sc_module_name name, Fault f = Fault::kNone)
      : sc_module(name), bus("bus"), fault(f) {
    bus.bind(*this);
  }

  // Serves the request now (the data moves, the response is set).
  void serve(tlm::tlm_generic_payload& t) {
    last_address = t.get_address();
    const uint64_t a = t.get_address() % sizeof mem;
    const unsigned n = std::min<unsigned>(t.get_data_length(), static_cast<unsigned>(sizeof mem - a));
    if (t.is_write()) std::memcpy(mem + a, t.get_data_ptr(), n);
    if (t.is_read()) std::memcpy(t.get_data_ptr(), mem + a, n);
    t.set_response_status(tlm::TLM_OK_RESPONSE);
  }
  // Sends `phase` on the backward path.
  tlm::tlm_sync_enum send(tlm::tlm_generic_payload& t, tlm::tlm_phase phase,
                          tlm::tlm_phase* returned = nullptr) {
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    const tlm::tlm_sync_enum s = bus->nb_transport_bw(t, phase, d);
    if (returned) *returned = phase;
    return s;
  }
  void invalidate(uint64_t start, uint64_t end) { bus->invalidate_direct_mem_ptr(start, end); }

  void b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay) override {
    delay += sc_core::sc_time(1, sc_core::SC_NS);
    if (fault != Fault::kLeaveIncomplete) serve(t);
    switch (fault) {
      case Fault::kChangeAddress: t.set_address(t.get_address() + 4); break;
      case Fault::kChangeCommand: t.set_command(tlm::TLM_IGNORE_COMMAND); break;
      case Fault::kChangeDataPointer: t.set_data_ptr(scratch_); break;
      case Fault::kChangeLength: t.set_data_length(t.get_data_length() / 2); break;
      case Fault::kChangeByteEnable: t.set_byte_enable_ptr(scratch_); t.set_byte_enable_length(4); break;
      case Fault::kChangeStreamingWidth: t.set_streaming_width(1); break;
      default: break;
    }
  }
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& t, tlm::tlm_phase& phase,
                                     sc_core::sc_time&) override {
    if (phase == tlm::BEGIN_REQ) {
      if (fault == Fault::kLeaveIncomplete) return tlm::TLM_COMPLETED;
      last_address = t.get_address();
      if (fault == Fault::kNbAcceptedChangesPhase) phase = tlm::END_REQ;
      return tlm::TLM_ACCEPTED;
    }
    return tlm::TLM_COMPLETED;  // END_RESP
  }
  bool get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi) override {
    dmi.set_dmi_ptr(fault == Fault::kDmiNullPointer ? nullptr : mem);
    dmi.set_start_address(fault == Fault::kDmiRangeMissesAddress || fault == Fault::kDmiDeniedElsewhere ? 0x80 : 0);
    dmi.set_end_address(sizeof mem - 1);
    if (fault == Fault::kDmiReadOnly) dmi.allow_read();
    else dmi.allow_read_write();
    const sc_core::sc_time ns(1, sc_core::SC_NS);
    dmi.set_read_latency(fault == Fault::kDmiNegativeLatency ? ns - 2 * ns : ns);
    dmi.set_write_latency(ns);
    if (fault == Fault::kDmiDeniedElsewhere) {
      dmi.allow_none();
      return false;
    }
    return true;
  }
  unsigned int transport_dbg(tlm::tlm_generic_payload& t) override {
    if (fault == Fault::kWaitInDebug) sc_core::wait(1, sc_core::SC_NS);
    serve(t);
    return t.get_data_length() + (fault == Fault::kDebugTooLong ? 1 : 0);
  }

 private:
  uint8_t scratch_[8] = {};
};

// A plain-socket initiator: the test builds payloads and calls `bus` directly. Its backward
// path records every phase and answers `answer` (TLM_UPDATED answers BEGIN_RESP with END_RESP,
// and anything else with `updated_phase`).
class PlainInitiator : public sc_core::sc_module, public tlm::tlm_bw_transport_if<> {
 public:
  tlm::tlm_initiator_socket<> bus;
  std::vector<tlm::tlm_phase> received;
  std::vector<uint64_t> received_addresses;
  std::vector<std::pair<uint64_t, uint64_t>> invalidations;
  tlm::tlm_sync_enum answer = tlm::TLM_ACCEPTED;
  tlm::tlm_phase updated_phase = tlm::END_RESP;

  explicit PlainInitiator(sc_core::sc_module_name name) : sc_module(name), bus("bus") {
    bus.bind(*this);
  }
  tlm::tlm_sync_enum send(tlm::tlm_generic_payload& t, tlm::tlm_phase phase,
                          tlm::tlm_phase* returned = nullptr, sc_core::sc_time* delay = nullptr) {
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    const tlm::tlm_sync_enum s = bus->nb_transport_fw(t, phase, delay ? *delay : d);
    if (returned) *returned = phase;
    return s;
  }
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& t, tlm::tlm_phase& phase,
                                     sc_core::sc_time&) override {
    received.push_back(phase);
    received_addresses.push_back(t.get_address());
    if (answer == tlm::TLM_UPDATED) phase = phase == tlm::BEGIN_RESP ? tlm::END_RESP : updated_phase;
    return answer;
  }
  void invalidate_direct_mem_ptr(sc_dt::uint64 s, sc_dt::uint64 e) override {
    invalidations.emplace_back(s, e);
  }
};

// A payload as an initiator sets it up: `len` bytes at `addr` from `data`, status INCOMPLETE.
inline void prepare(tlm::tlm_generic_payload& t, tlm::tlm_command cmd, uint64_t addr, void* data,
                    unsigned len) {
  t.set_command(cmd);
  t.set_address(addr);
  t.set_data_ptr(static_cast<unsigned char*>(data));
  t.set_data_length(len);
  t.set_streaming_width(len);
  t.set_byte_enable_ptr(nullptr);
  t.set_byte_enable_length(0);
  t.set_dmi_allowed(false);
  t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
}

// A router for [base, base + 256) onto one target at 0: it translates the address and, unless
// `restore`, does not put it back on return.
class Router : public sc_core::sc_module,
               public tlm::tlm_fw_transport_if<>,
               public tlm::tlm_bw_transport_if<> {
 public:
  tlm::tlm_target_socket<> in;
  tlm::tlm_initiator_socket<> out;
  uint64_t base;
  bool restore;

  Router(sc_core::sc_module_name name, uint64_t base_, bool restore_)
      : sc_module(name), in("in"), out("out"), base(base_), restore(restore_) {
    in.bind(*this);
    out.bind(*this);
  }
  void b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& d) override {
    const uint64_t a = t.get_address();
    t.set_address(a - base);
    out->b_transport(t, d);
    if (restore) t.set_address(a);
  }
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& t, tlm::tlm_phase& p,
                                     sc_core::sc_time& d) override {
    return out->nb_transport_fw(t, p, d);
  }
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& t, tlm::tlm_dmi& dmi) override {
    const uint64_t a = t.get_address();
    t.set_address(a - base);
    const bool ok = out->get_direct_mem_ptr(t, dmi);
    dmi.set_start_address(dmi.get_start_address() + base);
    dmi.set_end_address(dmi.get_end_address() + base);
    if (restore) t.set_address(a);
    return ok;
  }
  unsigned int transport_dbg(tlm::tlm_generic_payload& t) override {
    const uint64_t a = t.get_address();
    t.set_address(a - base);
    const unsigned n = out->transport_dbg(t);
    if (restore) t.set_address(a);
    return n;
  }
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& t, tlm::tlm_phase& p,
                                     sc_core::sc_time& d) override {
    return in->nb_transport_bw(t, p, d);
  }
  void invalidate_direct_mem_ptr(sc_dt::uint64 s, sc_dt::uint64 e) override {
    in->invalidate_direct_mem_ptr(s + base, e + base);
  }
};

// Sends one write of 4 bytes at `address` from an SC_METHOD at time 0: through b_transport
// (illegal from a method) or nb_transport_fw (legal; the response must come back at once).
class MethodInitiator : public sc_core::sc_module, public tlm::tlm_bw_transport_if<> {
 public:
  tlm::tlm_initiator_socket<> bus;
  bool use_nb;
  uint64_t address;
  uint32_t data = 0x12345678;
  tlm::tlm_generic_payload trans;
  tlm::tlm_sync_enum status = tlm::TLM_ACCEPTED;
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  bool ran = false;

  SC_HAS_PROCESS(MethodInitiator);
  MethodInitiator(sc_core::sc_module_name name, bool nb, uint64_t addr)
      : sc_module(name), bus("bus"), use_nb(nb), address(addr) {
    bus.bind(*this);
    SC_METHOD(run);
  }
  void run() {
    ran = true;
    prepare(trans, tlm::TLM_WRITE_COMMAND, address, &data, 4);
    if (use_nb) {
      tlm::tlm_phase phase = tlm::BEGIN_REQ;
      status = bus->nb_transport_fw(trans, phase, delay);
    } else {
      bus->b_transport(trans, delay);
    }
  }
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload&, tlm::tlm_phase&,
                                     sc_core::sc_time&) override {
    return tlm::TLM_COMPLETED;
  }
  void invalidate_direct_mem_ptr(sc_dt::uint64, sc_dt::uint64) override {}
};

}  // namespace npusim::test
