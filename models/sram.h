// SRAM: the on-core dataram / TCM (and the Snitch TCDM). Size, access latency, port width,
// banks and the bank-conflict cost come from SramConfig; timing from SramTiming. Grants DMI
// (per store page) with its access latency, so a core can run at full speed.
#pragma once

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "models/memory_config.h"
#include "models/memory_stats.h"
#include "models/sparse_store.h"
#include "models/sram_timing.h"

namespace npusim::models {

class Sram : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<Sram> bus;

  Sram(sc_core::sc_module_name name, const SramConfig& cfg);

  const SramConfig& config() const { return cfg_; }
  const MemoryStats& stats() const { return stats_; }
  SparseStore& store() { return store_; }
  sc_core::sc_time clock() const { return clock_; }

  // Takes back every DMI pointer handed out (invalidate_direct_mem_ptr over the whole
  // memory) and refuses DMI until enable_dmi(). For tests, and for a future reconfiguration.
  void revoke_dmi();
  void enable_dmi() { dmi_enabled_ = true; }

 private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  // Loosely timed: a BEGIN_REQ is served at once, with b_transport's data and delay, and
  // answered TLM_COMPLETED (the base protocol's early completion); no thread is spawned.
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi);
  unsigned transport_dbg(tlm::tlm_generic_payload& trans);

  SramConfig cfg_;
  sc_core::sc_time clock_;
  SparseStore store_;
  SramTiming timing_;
  MemoryStats stats_;
  bool dmi_enabled_ = true;
};

}  // namespace npusim::models
