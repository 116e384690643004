#include "models/sram.h"

#include "models/payload_access.h"

#include <algorithm>

namespace npusim::models {

namespace {
uint64_t dmi_page_bytes(uint64_t size) {
  // One DMI region for a small memory; 1 MiB pages for a large one.
  uint64_t p = 4;
  while (p < size && p < (1u << 20)) p <<= 1;
  return p;
}
}  // namespace

Sram::Sram(sc_core::sc_module_name name, const SramConfig& cfg)
    : sc_module(name),
      bus("bus"),
      cfg_(cfg),
      clock_(cfg.clock_ns, sc_core::SC_NS),
      store_((validate(cfg, std::string(name)), cfg.size), cfg.fill, dmi_page_bytes(cfg.size)),
      timing_(cfg) {
  stats_.bandwidth.window_ns = cfg.stats_window_ns;
  bus.register_b_transport(this, &Sram::b_transport);
  bus.register_nb_transport_fw(this, &Sram::nb_transport_fw);
  bus.register_get_direct_mem_ptr(this, &Sram::get_direct_mem_ptr);
  bus.register_transport_dbg(this, &Sram::transport_dbg);
}

void Sram::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  const uint64_t offset = trans.get_address();
  const uint64_t len = trans.get_data_length();
  tlm::tlm_response_status status = tlm::TLM_OK_RESPONSE;
  if (!cfg_.allow_misaligned && len > 0 &&
      offset / cfg_.width_bytes != (offset + len - 1) / cfg_.width_bytes) {
    status = tlm::TLM_GENERIC_ERROR_RESPONSE;  // crosses a port word: misaligned
  } else {
    status = access_store(store_, trans, offset);
  }
  trans.set_response_status(status);
  if (status != tlm::TLM_OK_RESPONSE) {
    ++stats_.errors;
    return;
  }
  if (trans.is_read() || trans.is_write()) {
    const uint64_t clk = clock_.value();
    const sc_core::sc_time arrival = sc_core::sc_time_stamp() + delay;
    const uint64_t arrival_cycles = (arrival.value() + clk - 1) / clk;
    const SramAccess a = timing_.access(offset, len, arrival_cycles);
    const sc_core::sc_time done = sc_core::sc_time::from_value(a.done_cycles * clk);
    delay = done - sc_core::sc_time_stamp();
    if (trans.is_read()) {
      ++stats_.reads;
      stats_.bytes_read += len;
    } else {
      ++stats_.writes;
      stats_.bytes_written += len;
    }
    stats_.bank_conflicts += a.conflicts;
    stats_.latency_cycles.record(a.done_cycles - arrival_cycles);
    stats_.bandwidth.add(done.to_seconds() * 1e9, len);
    stats_.first_arrival_cycle = std::min(stats_.first_arrival_cycle, arrival_cycles);
    stats_.last_completion_cycle = std::max(stats_.last_completion_cycle, a.done_cycles);
  }
  trans.set_dmi_allowed(dmi_enabled_);
}

tlm::tlm_sync_enum Sram::nb_transport_fw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                        sc_core::sc_time& delay) {
  if (phase == tlm::BEGIN_REQ) b_transport(trans, delay);  // never waits
  return tlm::TLM_COMPLETED;
}

bool Sram::get_direct_mem_ptr(tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi) {
  const uint64_t offset = trans.get_address();
  if (!dmi_enabled_ || offset >= cfg_.size) {
    // Denied: tell the initiator not to ask again for this memory (or this address).
    dmi.set_start_address(offset >= cfg_.size ? offset : 0);
    dmi.set_end_address(offset >= cfg_.size ? offset : cfg_.size - 1);
    dmi.allow_none();
    return false;
  }
  uint64_t page_start = 0;
  uint8_t* p = store_.page(offset, &page_start);
  dmi.set_dmi_ptr(p);
  dmi.set_start_address(page_start);
  dmi.set_end_address(std::min(page_start + store_.page_bytes(), cfg_.size) - 1);
  dmi.allow_read_write();
  dmi.set_read_latency(clock_ * static_cast<double>(cfg_.latency_cycles));
  dmi.set_write_latency(clock_ * static_cast<double>(cfg_.latency_cycles));
  ++stats_.dmi_grants;
  return true;
}

unsigned Sram::transport_dbg(tlm::tlm_generic_payload& trans) {
  ++stats_.debug_accesses;
  return debug_access(store_, trans, trans.get_address());
}

void Sram::revoke_dmi() {
  dmi_enabled_ = false;
  bus->invalidate_direct_mem_ptr(0, cfg_.size - 1);
}

}  // namespace npusim::models
