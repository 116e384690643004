// The shared test initiator for the model tests: blocking reads and writes that return the
// TLM response status (so negative tests simply expect TLM_ADDRESS_ERROR_RESPONSE), debug
// transport, DMI requests, and a record of every DMI invalidation it receives.
//
// Tests call it from sc_main after elaboration (start_simulation() below): the models never
// wait() in b_transport, so no SystemC process is needed to drive them.
#pragma once

#include <cstdint>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

namespace npusim::test {

class TestInitiator : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<TestInitiator> mem;

  explicit TestInitiator(sc_core::sc_module_name name) : sc_module(name), mem("mem") {
    mem.register_invalidate_direct_mem_ptr(this, &TestInitiator::invalidate);
  }

  // `delay` is the initiator's local time offset on entry and the completion offset on exit.
  tlm::tlm_response_status do_read(uint64_t addr, void* data, unsigned len,
                                   sc_core::sc_time& delay, const uint8_t* be = nullptr,
                                   unsigned be_len = 0, unsigned streaming_width = 0) {
    return transport(tlm::TLM_READ_COMMAND, addr, static_cast<uint8_t*>(data), len, delay, be,
                     be_len, streaming_width);
  }
  tlm::tlm_response_status do_write(uint64_t addr, const void* data, unsigned len,
                                    sc_core::sc_time& delay, const uint8_t* be = nullptr,
                                    unsigned be_len = 0, unsigned streaming_width = 0) {
    return transport(tlm::TLM_WRITE_COMMAND, addr,
                     const_cast<uint8_t*>(static_cast<const uint8_t*>(data)), len, delay, be,
                     be_len, streaming_width);
  }
  tlm::tlm_response_status do_read(uint64_t addr, void* data, unsigned len) {
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    return do_read(addr, data, len, d);
  }
  tlm::tlm_response_status do_write(uint64_t addr, const void* data, unsigned len) {
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    return do_write(addr, data, len, d);
  }

  unsigned debug(tlm::tlm_command cmd, uint64_t addr, void* data, unsigned len) {
    tlm::tlm_generic_payload t;
    t.set_command(cmd);
    t.set_address(addr);
    t.set_data_ptr(static_cast<uint8_t*>(data));
    t.set_data_length(len);
    return mem->transport_dbg(t);
  }

  bool get_dmi(uint64_t addr, tlm::tlm_dmi& dmi) {
    tlm::tlm_generic_payload t;
    t.set_command(tlm::TLM_READ_COMMAND);
    t.set_address(addr);
    dmi.init();
    return mem->get_direct_mem_ptr(t, dmi);
  }

  struct Invalidation {
    uint64_t start, end;
  };
  std::vector<Invalidation> invalidations;
  bool last_dmi_allowed = false;

 private:
  tlm::tlm_response_status transport(tlm::tlm_command cmd, uint64_t addr, uint8_t* data,
                                     unsigned len, sc_core::sc_time& delay, const uint8_t* be,
                                     unsigned be_len, unsigned streaming_width) {
    tlm::tlm_generic_payload t;
    t.set_command(cmd);
    t.set_address(addr);
    t.set_data_ptr(data);
    t.set_data_length(len);
    t.set_streaming_width(streaming_width ? streaming_width : len);
    t.set_byte_enable_ptr(const_cast<uint8_t*>(be));
    t.set_byte_enable_length(be_len);
    t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    mem->b_transport(t, delay);
    last_dmi_allowed = t.is_dmi_allowed();
    return t.get_response_status();
  }
  void invalidate(sc_dt::uint64 start, sc_dt::uint64 end) {
    invalidations.push_back({start, end});
  }
};

// Ends elaboration so that sockets can be called from the test body.
inline void start_simulation() { sc_core::sc_start(sc_core::SC_ZERO_TIME); }

}  // namespace npusim::test
