#include "models/interconnect.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace npusim::models {

Interconnect::Interconnect(sc_core::sc_module_name name, const InterconnectConfig& cfg,
                           const std::vector<Region>& regions)
    : sc_module(name), bus("bus"), mem("mem"), cfg_(cfg) {
  validate(cfg);
  hop_ = sc_core::sc_time(cfg.clock_ns, sc_core::SC_NS) * static_cast<double>(cfg.hop_latency_cycles);
  for (const auto& r : regions) add_region(r.name, r.base, r.size, r.target, r.target_offset);
  bus.bind(*this);
  mem.register_invalidate_direct_mem_ptr(this, &Interconnect::invalidate_direct_mem_ptr);
}

void Interconnect::add_region(const std::string& name, uint64_t base, uint64_t size,
                              unsigned target, uint64_t target_offset) {
  map_.add(Region{name, base, size, target, target_offset});
  stats_.region_requests.assign(map_.regions().size(), 0);
}

void Interconnect::end_of_elaboration() {
  bind_blocking();
  for (const auto& r : map_.regions()) {
    if (r.target >= static_cast<unsigned>(mem.size()))
      throw std::invalid_argument(fmt::format(
          "{}: region '{}' routes to target {}, but only {} targets are bound to 'mem'", name(),
          r.name, r.target, mem.size()));
  }
}

void Interconnect::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  ++stats_.requests;
  const uint64_t addr = trans.get_address();
  const Region* r = map_.decode(addr, trans.get_data_length());
  delay += hop_;
  if (r == nullptr) {
    ++stats_.address_errors;
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  ++stats_.region_requests[region_index(r)];
  trans.set_address(r->to_target(addr));
  if (__builtin_expect(r->target >= blocking_.size(), 0)) bind_blocking();
  blocking_[r->target]->b_transport(trans, delay);
  trans.set_address(addr);
}

void Interconnect::bind_blocking() {
  blocking_.clear();
  for (unsigned i = 0; i < mem.size(); ++i) blocking_.push_back(mem[static_cast<int>(i)]);
}

tlm::tlm_sync_enum Interconnect::nb_transport_fw(tlm::tlm_generic_payload& trans,
                                                 tlm::tlm_phase& phase, sc_core::sc_time& delay) {
  if (phase == tlm::BEGIN_REQ) b_transport(trans, delay);
  return tlm::TLM_COMPLETED;
}

bool Interconnect::get_direct_mem_ptr(tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi) {
  const uint64_t addr = trans.get_address();
  const Region* r = map_.decode(addr, 1);
  if (r == nullptr) {
    ++stats_.dmi_denials;
    dmi.allow_none();
    dmi.set_start_address(addr);
    dmi.set_end_address(addr);
    return false;
  }
  trans.set_address(r->to_target(addr));
  const bool granted = mem[static_cast<int>(r->target)]->get_direct_mem_ptr(trans, dmi);
  trans.set_address(addr);
  // Translate the target's range back and clip it to the region.
  uint64_t start = dmi.get_start_address(), end = dmi.get_end_address();
  const uint64_t t_first = r->target_offset, t_last = r->target_offset + r->size - 1;
  if (start < t_first) {
    if (granted && dmi.get_dmi_ptr()) dmi.set_dmi_ptr(dmi.get_dmi_ptr() + (t_first - start));
    start = t_first;
  }
  end = std::min<uint64_t>(end, t_last);
  if (end < start) end = start;
  dmi.set_start_address(start - r->target_offset + r->base);
  dmi.set_end_address(end - r->target_offset + r->base);
  if (granted) {
    ++stats_.dmi_grants;
    dmi.set_read_latency(dmi.get_read_latency() + hop_);
    dmi.set_write_latency(dmi.get_write_latency() + hop_);
  } else {
    ++stats_.dmi_denials;
  }
  return granted;
}

unsigned int Interconnect::transport_dbg(tlm::tlm_generic_payload& trans) {
  ++stats_.debug_accesses;
  const uint64_t addr = trans.get_address();
  const Region* r = map_.decode(addr, trans.get_data_length());
  if (r == nullptr) return 0;
  trans.set_address(r->to_target(addr));
  const unsigned n = mem[static_cast<int>(r->target)]->transport_dbg(trans);
  trans.set_address(addr);
  return n;
}

void Interconnect::invalidate_direct_mem_ptr(int target, sc_dt::uint64 start, sc_dt::uint64 end) {
  ++stats_.dmi_invalidations;
  for (const auto& r : map_.regions()) {
    if (r.target != static_cast<unsigned>(target)) continue;
    const uint64_t t_first = r.target_offset, t_last = r.target_offset + r.size - 1;
    if (end < t_first || start > t_last) continue;
    const uint64_t s = std::max<uint64_t>(start, t_first) - r.target_offset + r.base;
    const uint64_t e = std::min<uint64_t>(end, t_last) - r.target_offset + r.base;
    for (int i = 0; i < bus.size(); ++i) bus[i]->invalidate_direct_mem_ptr(s, e);
  }
}

}  // namespace npusim::models
