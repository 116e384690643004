// The Snitch cluster's TCDM as a TLM-2.0 target: a sparse store timed by TcdmTiming (bank
// reservations across all initiators). It grants no DMI on purpose: a core's TCDM access must
// reach the bank model to see conflicts, so every core access is a b_transport (the speed
// cost is in docs/performance.md). The initiator is recognised by Core::current(): a core's
// thread has a core (port width core_port_bytes), anything else is the DMA engine (port width
// dma_port_bytes). Per-initiator statistics and a per-interval conflict series (for traces)
// are kept.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "models/core.h"
#include "models/snitch/tcdm_timing.h"
#include "models/sparse_store.h"

namespace npusim::models {

struct TcdmConfig {
  uint64_t size = 128 * 1024;
  double clock_ns = 1.0;  // the cluster clock; assumption: 1 GHz
  TcdmGeometry geometry;
  uint32_t core_port_bytes = 8;  // a Snitch core's 64-bit TCDM port
  uint32_t dma_port_bytes = 64;  // the DMA engine's 512-bit TCDM port
  uint32_t fill = 0;
  uint64_t series_bin_cycles = 100;  // resolution of the conflict series (traces)
  // Energy per byte accessed (reports only): a 64-bit access to an 8 KB SRAM, 10 pJ
  // (Horowitz, ISSCC 2014, 45 nm); the TCDM's banks are 4 KiB.
  double pj_per_byte = 1.25;
};

struct TcdmInitiatorStats {
  uint64_t accesses = 0, bytes = 0, beats = 0, conflicts = 0, stall_cycles = 0;
};

struct TcdmStats {
  uint64_t reads = 0, writes = 0, bytes = 0, beats = 0, errors = 0;
  uint64_t conflicts = 0, stall_cycles = 0, stale = 0;
  TcdmInitiatorStats dma;                  // every initiator that is not a core
  std::vector<uint64_t> conflicts_by_bin;  // conflicts whose access arrived in bin i
  std::vector<uint64_t> conflicts_by_bank; // per bank: beats that waited for it (first bank of the beat)
};

class Tcdm : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<Tcdm> bus;

  Tcdm(sc_core::sc_module_name name, const TcdmConfig& cfg);

  const TcdmConfig& config() const { return cfg_; }
  const TcdmStats& stats() const { return stats_; }
  // Statistics of the accesses made by core `c` (zeros if it made none).
  TcdmInitiatorStats core_stats(const Core* c) const;
  SparseStore& store() { return store_; }
  const TcdmTiming& timing() const { return timing_; }
  // Bank-conflict stall cycles of the last access (what a core's request waited to be granted).
  uint64_t last_stall_cycles() const { return last_stall_; }

 private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  // Loosely timed: a BEGIN_REQ is served at once, with b_transport's data and delay, and
  // answered TLM_COMPLETED (the base protocol's early completion); no thread is spawned.
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi);
  unsigned transport_dbg(tlm::tlm_generic_payload& trans);

  TcdmConfig cfg_;
  sc_core::sc_time clock_;
  SparseStore store_;
  TcdmTiming timing_;
  TcdmStats stats_;
  std::unordered_map<const Core*, TcdmInitiatorStats> per_core_;
  const Core* last_core_ = nullptr;
  TcdmInitiatorStats* last_stats_ = nullptr;
  uint64_t last_stall_ = 0;
};

}  // namespace npusim::models
