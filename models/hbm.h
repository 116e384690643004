// HBM: a cycle-approximate HBM2 stack behind a sparse store. Timing comes from the memory
// controller of models/hbm/controller.h (per request, from bank, channel and queue state); a request larger than a burst is split into bursts
// and completes with its last one. No DMI: the latency of an access depends on the state of
// the banks, so every access goes through b_transport.
#pragma once

#include <atomic>
#include <memory>
#include <vector>

#include <systemc>
#include <tlm>

#include "models/fast_div.h"
#include "models/hbm/controller.h"
#include "models/hbm_energy.h"
#include "models/hbm_timing.h"
#include "models/memory_config.h"
#include "models/memory_stats.h"
#include "models/sparse_store.h"

namespace npusim::models {

// Optional, on a payload sent to the HBM: when the request arrived and when it entered its
// unit's transaction queue (HBM clock cycles), set by b_transport. The difference is how long
// a full queue kept it at the door: an initiator that models a head-of-line stall
// (npusim traffic --issue-width) offers its next request no earlier.
// The objects alive are counted: while there are none, b_transport does not look for one on
// the payload (an out-of-line call into the TLM library on every access otherwise).
struct HbmAdmitExtension : tlm::tlm_extension<HbmAdmitExtension> {
  uint64_t arrival = 0, admit = 0;
  HbmAdmitExtension() { live_.fetch_add(1, std::memory_order_relaxed); }
  HbmAdmitExtension(const HbmAdmitExtension& o)
      : tlm::tlm_extension<HbmAdmitExtension>(), arrival(o.arrival), admit(o.admit) {
    live_.fetch_add(1, std::memory_order_relaxed);
  }
  HbmAdmitExtension& operator=(const HbmAdmitExtension& o) {
    arrival = o.arrival, admit = o.admit;
    return *this;
  }
  ~HbmAdmitExtension() override { live_.fetch_sub(1, std::memory_order_relaxed); }
  tlm::tlm_extension_base* clone() const override { return new HbmAdmitExtension(*this); }
  void copy_from(const tlm::tlm_extension_base& e) override {
    const auto& o = static_cast<const HbmAdmitExtension&>(e);
    arrival = o.arrival, admit = o.admit;
  }
  // Some HbmAdmitExtension exists (and so may be on a payload).
  static bool any() { return live_.load(std::memory_order_relaxed) != 0; }

 private:
  static inline std::atomic<unsigned> live_{0};
};

// The module is its own forward interface: a plain target socket bound to it saves the
// simple_target_socket's forwarding layer on every access (docs/performance.md).
class Hbm : public sc_core::sc_module, public tlm::tlm_fw_transport_if<> {
 public:
  tlm::tlm_target_socket<> bus;

  Hbm(sc_core::sc_module_name name, const HbmConfig& cfg);

  const HbmConfig& config() const { return cfg_; }
  // Refreshes are counted up to the latest access; the row counts are copied in here.
  const MemoryStats& stats() const;
  SparseStore& store() { return store_; }
  const hbm::Controller& controller() const { return *controller_; }
  sc_core::sc_time clock() const { return tck_; }
  // The energy of every unit over HBM cycles [0, end_cycles) (models/hbm_energy.h), and the
  // sum; `series`: the ACTs and open cycles per statistics window.
  HbmEnergyReport energy(uint64_t end_cycles, hbm::ActivitySeries* series = nullptr) const {
    return hbm_energy(cfg_, controller_->activity(end_cycles, series));
  }
  // The HBM cycle a simulation time falls in, rounded up (the end of a run that ends there).
  uint64_t cycles_at(sc_core::sc_time t) const { return tck_div_.ceil(t.value()); }

  // tlm_fw_transport_if. Loosely timed: nb_transport_fw completes a request at once (the
  // base protocol's early completion) with the delay of b_transport.
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) override;
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay) override;
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi) override;
  unsigned int transport_dbg(tlm::tlm_generic_payload& trans) override;

 private:

  // Adds a completion at cycle `done` to the bandwidth series; inline while it falls in the
  // window of the last completion that went the slow way, or of the one before it
  // (completions come out of order: near a window's end they alternate between two).
  void add_bandwidth(uint64_t done, uint64_t bytes) {
    if (__builtin_expect(done >= bw_lo_ && done < bw_hi_, 1)) {
      stats_.bandwidth.bytes[bw_index_] += bytes;
      return;
    }
    if (done >= bw_lo2_ && done < bw_hi2_) {
      stats_.bandwidth.bytes[bw_index2_] += bytes;
      return;
    }
    add_bandwidth_slow(done, bytes);
  }
  void add_bandwidth_slow(uint64_t done, uint64_t bytes);

  HbmConfig cfg_;
  sc_core::sc_time tck_;
  uint64_t tck_value_;  // tCK in SystemC time-resolution units
  DivideBy tck_div_;    // by tck_value_
  // latency_[k] = k cycles as an sc_time (sc_time::from_value is an out-of-line call).
  std::vector<sc_core::sc_time> latency_;
  uint64_t latency_n_ = 0;  // latency_.size()
  // The cycles [bw_lo_, bw_hi_) whose completions land in bandwidth window bw_index_, and
  // those of the window cached before it (empty after the series coarsened).
  uint64_t bw_lo_ = 1, bw_hi_ = 0, bw_lo2_ = 1, bw_hi2_ = 0;
  size_t bw_index_ = 0, bw_index2_ = 0;
  SparseStore store_;
  std::unique_ptr<hbm::Controller> controller_;
  RowCounts rows_;  // the row outcomes of every burst
  sc_core::sc_simcontext* simc_;  // the simulation's (sc_time_stamp() without the lookup)
  mutable MemoryStats stats_;
};

}  // namespace npusim::models
