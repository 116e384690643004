// Interconnect: decodes the address map, adds its per-hop latency and routes b_transport,
// DMI requests and debug transport to the target of the region, translating the address
// (addr - base + target_offset). DMI grants are translated back into the initiator's address
// space and clipped to the region; a target's DMI invalidation reaches every initiator, in
// initiator addresses, for every region that maps the invalidated range. Unmapped addresses
// (and accesses that straddle two regions) answer TLM_ADDRESS_ERROR_RESPONSE.
//
// nb_transport goes end to end without a blocking call: a BEGIN_REQ is decoded and forwarded
// to the target's nb_transport_fw with the translated address; the target's backward calls
// go to the initiator that sent the request, with the initiator's address. The address is the
// target's while the target holds the transaction (TLM_ACCEPTED, END_REQ) and the initiator's
// again when the response reaches it (BEGIN_RESP, TLM_COMPLETED). The hop latency is added
// once, to the request.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
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

class Interconnect;

// The interconnect's target socket, which any number of initiators bind to. Each binding gets
// its own forward interface that knows the initiator's index (as the multi-socket's binders
// do), so that nb_transport responses go back to the initiator of the request; its
// b_transport is a direct call into the interconnect, so a plain socket's speed is kept
// (docs/performance.md). Initiators bind directly (no hierarchical binding of this socket).
class InterconnectBus
    : public tlm::tlm_target_socket<32, tlm::tlm_base_protocol_types, 0,
                                    sc_core::SC_ONE_OR_MORE_BOUND> {
 public:
  InterconnectBus(const char* name, Interconnect& owner);
  ~InterconnectBus() override;
  tlm::tlm_fw_transport_if<>& get_base_interface() override;
  using tlm_target_socket::get_base_interface;
  size_t ports() const { return ports_.size(); }

 private:
  Interconnect& owner_;
  std::vector<std::unique_ptr<tlm::tlm_fw_transport_if<>>> ports_;
};

class Interconnect : public sc_core::sc_module, public tlm::tlm_fw_transport_if<> {
 public:
  using BusSocket = InterconnectBus;
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
  const InterconnectConfig& config() const { return cfg_; }

  // tlm_fw_transport_if: the calls of the bus's per-initiator interfaces. Called on the module
  // directly, nb_transport_fw does not know its initiator: backward calls then go to the only
  // initiator bound (an error with several).
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) final;
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay) final;
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi) final;
  unsigned int transport_dbg(tlm::tlm_generic_payload& trans) final;
  // nb_transport_fw from the initiator bound at position `initiator` of `bus` (-1: unknown).
  tlm::tlm_sync_enum nb_transport_fw(int initiator, tlm::tlm_generic_payload& trans,
                                     tlm::tlm_phase& phase, sc_core::sc_time& delay);
  // nb_transport transactions in flight (routed, not yet completed).
  size_t nb_in_flight() const { return routes_.size(); }

 private:
  friend class InterconnectBus;
  class Port;  // one initiator's forward interface (interconnect.cpp)
  // b_transport's body, inline in both callers (the module and the ports).
  inline void route_blocking(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  void invalidate_direct_mem_ptr(int target, sc_dt::uint64 start, sc_dt::uint64 end);
  tlm::tlm_sync_enum nb_transport_bw(int target, tlm::tlm_generic_payload& trans,
                                     tlm::tlm_phase& phase, sc_core::sc_time& delay);
  // An nb_transport transaction between its BEGIN_REQ and its end.
  struct Route {
    int initiator;
    unsigned target;
    uint64_t initiator_address, target_address;
  };
  std::unordered_map<const tlm::tlm_generic_payload*, Route> routes_;
  void end_of_elaboration() override;
  size_t region_index(const Region* r) const { return static_cast<size_t>(r - map_.regions().data()); }

  // The targets' blocking interfaces, looked up once at the end of elaboration (or at the
  // first access, if earlier): a call through `mem[i]` first converts to the virtual base
  // that declares b_transport.
  std::vector<tlm::tlm_blocking_transport_if<>*> blocking_;
  void bind_blocking();
  // The region of the last blocking access, unpacked for route_blocking (empty: none yet).
  struct HotRoute {
    uint64_t base = 1, size = 0;
    uint64_t to_target = 0;  // target_offset - base, modulo 2^64
    uint64_t* requests = nullptr;  // its counter in stats_.region_requests
    tlm::tlm_blocking_transport_if<>* target = nullptr;
    bool contains(uint64_t addr, uint64_t len) const {  // as Region::contains
      return addr >= base && len <= size && addr - base <= size - len;
    }
  };
  HotRoute hot_;
  // Decodes [addr, addr + len) into hot_; false for an unmapped or straddling access.
  bool route_slow(uint64_t addr, uint64_t len);

  InterconnectConfig cfg_;
  sc_core::sc_time hop_;
  AddressMap map_;
  InterconnectStats stats_;
};

}  // namespace npusim::models
