#include "models/snitch/tcdm.h"

#include <stdexcept>

#include "models/payload_access.h"

namespace npusim::models {

Tcdm::Tcdm(sc_core::sc_module_name name, const TcdmConfig& cfg)
    : sc_core::sc_module(name),
      bus("bus"),
      cfg_(cfg),
      clock_(cfg.clock_ns, sc_core::SC_NS),
      store_(cfg.size, cfg.fill),
      timing_(cfg.geometry) {
  if (cfg.clock_ns <= 0) throw std::invalid_argument("tcdm clock_ns must be positive");
  if (cfg.core_port_bytes == 0 || cfg.dma_port_bytes == 0 || cfg.series_bin_cycles == 0)
    throw std::invalid_argument("tcdm port widths and series_bin_cycles must be positive");
  stats_.conflicts_by_bank.assign(cfg.geometry.banks, 0);
  bus.register_b_transport(this, &Tcdm::b_transport);
  bus.register_nb_transport_fw(this, &Tcdm::nb_transport_fw);
  bus.register_get_direct_mem_ptr(this, &Tcdm::get_direct_mem_ptr);
  bus.register_transport_dbg(this, &Tcdm::transport_dbg);
}

TcdmInitiatorStats Tcdm::core_stats(const Core* c) const {
  const auto it = per_core_.find(c);
  return it == per_core_.end() ? TcdmInitiatorStats{} : it->second;
}

void Tcdm::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  const uint64_t offset = trans.get_address();
  const uint64_t len = trans.get_data_length();
  trans.set_dmi_allowed(false);
  const tlm::tlm_response_status status = access_store(store_, trans, offset);
  trans.set_response_status(status);
  if (status != tlm::TLM_OK_RESPONSE) {
    ++stats_.errors;
    return;
  }
  if (!trans.is_read() && !trans.is_write()) return;
  const Core* core = Core::current();
  TcdmInitiatorStats* who = &stats_.dma;
  if (core != nullptr) {
    if (core != last_core_) {
      last_core_ = core;
      last_stats_ = &per_core_[core];
    }
    who = last_stats_;
  }
  const uint64_t clk = clock_.value();
  const uint64_t arrival = (sc_core::sc_time_stamp().value() + delay.value() + clk - 1) / clk;
  const TcdmAccessTiming a =
      timing_.access(offset, len, arrival, core ? cfg_.core_port_bytes : cfg_.dma_port_bytes,
                     core == nullptr);
  delay = sc_core::sc_time::from_value(a.done * clk - sc_core::sc_time_stamp().value());
  last_stall_ = a.stall_cycles;
  if (trans.is_read()) ++stats_.reads;
  else ++stats_.writes;
  stats_.bytes += len;
  stats_.beats += a.beats;
  ++who->accesses;
  who->bytes += len;
  who->beats += a.beats;
  if (a.conflicts) {
    stats_.conflicts += a.conflicts;
    stats_.stall_cycles += a.stall_cycles;
    who->conflicts += a.conflicts;
    who->stall_cycles += a.stall_cycles;
    const uint64_t bin = arrival / cfg_.series_bin_cycles;
    if (bin >= stats_.conflicts_by_bin.size()) stats_.conflicts_by_bin.resize(bin + 1, 0);
    stats_.conflicts_by_bin[bin] += a.conflicts;
    stats_.conflicts_by_bank[timing_.bank_of(offset)] += a.conflicts;
  }
  stats_.stale = timing_.stale();
}

tlm::tlm_sync_enum Tcdm::nb_transport_fw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                        sc_core::sc_time& delay) {
  if (phase == tlm::BEGIN_REQ) b_transport(trans, delay);  // never waits
  return tlm::TLM_COMPLETED;
}

bool Tcdm::get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi) {
  // Never: the bank model must see every access.
  dmi.set_start_address(0);
  dmi.set_end_address(cfg_.size - 1);
  dmi.allow_none();
  return false;
}

unsigned Tcdm::transport_dbg(tlm::tlm_generic_payload& trans) {
  return debug_access(store_, trans, trans.get_address());
}

}  // namespace npusim::models
