// Interconnect: decodes the address map, adds its per-hop latency and routes b_transport,
// DMI requests and debug transport to the target of the region, translating the address
// (addr - base + target_offset). DMI grants are translated back into the initiator's address
// space and clipped to the region; a target's DMI invalidation reaches every initiator, in
// initiator addresses, for every region that maps the invalidated range. Unmapped addresses
// (and accesses that straddle two regions) answer TLM_ADDRESS_ERROR_RESPONSE.
#pragma once

#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>

#include "models/address_map.h"
#include "models/memory_config.h"

namespace npusim::models {

struct InterconnectStats {
  uint64_t requests = 0;
  uint64_t address_errors = 0;
  uint64_t dmi_grants = 0, dmi_denials = 0, dmi_invalidations = 0;
  uint64_t debug_accesses = 0;
  std::vector<uint64_t> region_requests;  // by index in map().regions()
};

// The module is its own forward interface, behind one target socket that any number of
// initiators bind to (which initiator called does not matter to the routing): a plain socket
// saves the multi-socket's callback layer on every access (docs/performance.md).
class Interconnect : public sc_core::sc_module, public tlm::tlm_fw_transport_if<> {
 public:
  using BusSocket = tlm::tlm_target_socket<32, tlm::tlm_base_protocol_types, 0,
                                           sc_core::SC_ONE_OR_MORE_BOUND>;
  BusSocket bus;                                                    // initiators bind here
  tlm_utils::multi_passthrough_initiator_socket<Interconnect> mem;  // targets, in order

  Interconnect(sc_core::sc_module_name name, const InterconnectConfig& cfg,
               const std::vector<Region>& regions = {});

  // Adds a region routed to the target bound at position `target` of `mem`. Throws
  // std::invalid_argument on overlap (naming both regions) or size 0. Before sc_start only.
  void add_region(const std::string& name, uint64_t base, uint64_t size, unsigned target,
                  uint64_t target_offset = 0);
  const AddressMap& map() const { return map_; }
  const InterconnectStats& stats() const { return stats_; }
  sc_core::sc_time hop_latency() const { return hop_; }

  // tlm_fw_transport_if. Loosely timed: nb_transport_fw routes a BEGIN_REQ as b_transport and
  // completes it at once (the base protocol's early completion).
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) override;
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay) override;
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi) override;
  unsigned int transport_dbg(tlm::tlm_generic_payload& trans) override;

 private:
  void invalidate_direct_mem_ptr(int target, sc_dt::uint64 start, sc_dt::uint64 end);
  void end_of_elaboration() override;
  size_t region_index(const Region* r) const { return static_cast<size_t>(r - map_.regions().data()); }

  // The targets' blocking interfaces, looked up once at the end of elaboration (or at the
  // first access, if earlier): a call through `mem[i]` first converts to the virtual base
  // that declares b_transport.
  std::vector<tlm::tlm_blocking_transport_if<>*> blocking_;
  void bind_blocking();

  InterconnectConfig cfg_;
  sc_core::sc_time hop_;
  AddressMap map_;
  InterconnectStats stats_;
};

}  // namespace npusim::models
