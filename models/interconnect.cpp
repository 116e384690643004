#include "models/interconnect.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace npusim::models {

// b_transport: routed to the region's target with the address translated, and restored.
// The route of the previous access is kept unpacked (bounds, translation, counter, target):
// an access inside it needs no decode and no lookup.
inline void Interconnect::route_blocking(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  ++stats_.requests;
  const uint64_t addr = trans.get_address();
  const uint64_t len = trans.get_data_length();
  delay += hop_;
  const HotRoute& h = hot_;
  if (__builtin_expect(!h.contains(addr, len ? len : 1), 0) && !route_slow(addr, len)) {
    ++stats_.address_errors;
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  ++*h.requests;
  trans.set_address(addr + h.to_target);
  h.target->b_transport(trans, delay);
  trans.set_address(addr);
}

bool Interconnect::route_slow(uint64_t addr, uint64_t len) {
  const Region* r = map_.decode(addr, len);
  if (r == nullptr) return false;
  if (r->target >= blocking_.size()) bind_blocking();
  hot_ = HotRoute{r->base, r->size, r->target_offset - r->base,
                  &stats_.region_requests[region_index(r)], blocking_[r->target]};
  return true;
}

// The forward interface of one initiator's binding: the interconnect's, plus the index.
class Interconnect::Port final : public tlm::tlm_fw_transport_if<> {
 public:
  Port(Interconnect& ic, int index) : ic_(ic), index_(index) {}
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) override {
    ic_.route_blocking(trans, delay);
  }
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay) override {
    return ic_.nb_transport_fw(index_, trans, phase, delay);
  }
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi) override {
    return ic_.get_direct_mem_ptr(trans, dmi);
  }
  unsigned int transport_dbg(tlm::tlm_generic_payload& trans) override {
    return ic_.transport_dbg(trans);
  }

 private:
  Interconnect& ic_;
  int index_;
};

InterconnectBus::InterconnectBus(const char* name, Interconnect& owner)
    : tlm_target_socket(name), owner_(owner) {}

InterconnectBus::~InterconnectBus() = default;

tlm::tlm_fw_transport_if<>& InterconnectBus::get_base_interface() {
  // Called once per initiator binding, in the order of the bindings: the index is the
  // initiator's position in the socket's port.
  ports_.push_back(std::make_unique<Interconnect::Port>(owner_, static_cast<int>(ports_.size())));
  return *ports_.back();
}

Interconnect::Interconnect(sc_core::sc_module_name name, const InterconnectConfig& cfg,
                           const std::vector<Region>& regions)
    : sc_module(name), bus("bus", *this), mem("mem"), cfg_(cfg) {
  validate(cfg);
  hop_ = sc_core::sc_time(cfg.clock_ns, sc_core::SC_NS) * static_cast<double>(cfg.hop_latency_cycles);
  for (const auto& r : regions) add_region(r.name, r.base, r.size, r.target, r.target_offset);
  bus.bind(*this);
  mem.register_invalidate_direct_mem_ptr(this, &Interconnect::invalidate_direct_mem_ptr);
  mem.register_nb_transport_bw(this, &Interconnect::nb_transport_bw);
}

void Interconnect::add_region(const std::string& name, uint64_t base, uint64_t size,
                              unsigned target, uint64_t target_offset) {
  map_.add(Region{name, base, size, target, target_offset});
  stats_.region_requests.assign(map_.regions().size(), 0);
  hot_ = HotRoute{};
}

void Interconnect::end_of_elaboration() {
  bind_blocking();
  if (bus.ports() != static_cast<size_t>(bus.size()))
    throw std::invalid_argument(fmt::format(
        "{}: {} initiators bound to 'bus' but {} bindings seen (bind initiators directly, not "
        "through a hierarchical socket)",
        name(), bus.size(), bus.ports()));
  for (const auto& r : map_.regions()) {
    if (r.target >= static_cast<unsigned>(mem.size()))
      throw std::invalid_argument(fmt::format(
          "{}: region '{}' routes to target {}, but only {} targets are bound to 'mem'", name(),
          r.name, r.target, mem.size()));
  }
}

void Interconnect::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  route_blocking(trans, delay);
}

void Interconnect::bind_blocking() {
  hot_ = HotRoute{};
  blocking_.clear();
  for (unsigned i = 0; i < mem.size(); ++i) blocking_.push_back(mem[static_cast<int>(i)]);
}

tlm::tlm_sync_enum Interconnect::nb_transport_fw(tlm::tlm_generic_payload& trans,
                                                 tlm::tlm_phase& phase, sc_core::sc_time& delay) {
  return nb_transport_fw(-1, trans, phase, delay);
}

tlm::tlm_sync_enum Interconnect::nb_transport_fw(int initiator, tlm::tlm_generic_payload& trans,
                                                 tlm::tlm_phase& phase, sc_core::sc_time& delay) {
  const tlm::tlm_phase sent = phase;
  auto it = routes_.find(&trans);
  if (sent == tlm::BEGIN_REQ) {
    ++stats_.requests;
    const uint64_t addr = trans.get_address();
    const Region* r = map_.decode(addr, trans.get_data_length());
    delay += hop_;
    if (r == nullptr) {
      ++stats_.address_errors;
      trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      if (it != routes_.end()) routes_.erase(it);
      return tlm::TLM_COMPLETED;  // the base protocol's early completion, with the error
    }
    ++stats_.region_requests[region_index(r)];
    const Route route{initiator, r->target, addr, r->to_target(addr)};
    it = routes_.insert_or_assign(&trans, route).first;
  } else if (it == routes_.end()) {
    return tlm::TLM_COMPLETED;  // not a transaction of ours (END_RESP after the end)
  }
  const Route route = it->second;
  trans.set_address(route.target_address);
  const tlm::tlm_sync_enum status =
      mem[static_cast<int>(route.target)]->nb_transport_fw(trans, phase, delay);
  // The target keeps the transaction (and its address) after TLM_ACCEPTED or END_REQ; the
  // response, an early completion or the end of the response hand it back to the initiator.
  const bool target_holds =
      sent == tlm::BEGIN_REQ && (status == tlm::TLM_ACCEPTED ||
                                 (status == tlm::TLM_UPDATED && phase == tlm::END_REQ));
  if (!target_holds) trans.set_address(route.initiator_address);
  if (status == tlm::TLM_COMPLETED || sent == tlm::END_RESP) routes_.erase(&trans);
  return status;
}

tlm::tlm_sync_enum Interconnect::nb_transport_bw(int, tlm::tlm_generic_payload& trans,
                                                 tlm::tlm_phase& phase, sc_core::sc_time& delay) {
  const auto it = routes_.find(&trans);
  if (it == routes_.end()) {
    SC_REPORT_ERROR("npusim/interconnect",
                    fmt::format("{}: nb_transport_bw for a transaction that is not in flight",
                                name()).c_str());
    return tlm::TLM_COMPLETED;
  }
  const Route route = it->second;
  int initiator = route.initiator;
  if (initiator < 0) {
    if (bus.size() != 1) {
      SC_REPORT_ERROR("npusim/interconnect",
                      fmt::format("{}: a response for a request that was not sent through the "
                                  "bus socket, with {} initiators bound",
                                  name(), bus.size()).c_str());
      return tlm::TLM_COMPLETED;
    }
    initiator = 0;
  }
  const tlm::tlm_phase sent = phase;
  trans.set_address(route.initiator_address);
  const tlm::tlm_sync_enum status = bus[initiator]->nb_transport_bw(trans, phase, delay);
  const bool done = status == tlm::TLM_COMPLETED ||
                    (sent == tlm::BEGIN_RESP && status == tlm::TLM_UPDATED && phase == tlm::END_RESP);
  if (done) routes_.erase(&trans);
  // After END_REQ the target still holds the transaction: its address again.
  else if (sent != tlm::BEGIN_RESP) trans.set_address(route.target_address);
  return status;
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
