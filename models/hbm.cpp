#include "models/hbm.h"

#include <algorithm>

#include "models/payload_access.h"

namespace npusim::models {

namespace {
const HbmConfig& checked(const HbmConfig& c) {
  validate(c);
  return c;
}
}  // namespace

Hbm::Hbm(sc_core::sc_module_name name, const HbmConfig& cfg)
    : sc_module(name),
      bus("bus"),
      cfg_(checked(cfg)),
      tck_(cfg.tck_ns, sc_core::SC_NS),
      tck_value_(tck_.value()),
      tck_div_(tck_value_),
      store_(cfg.size(), cfg.fill),
      controller_(hbm::make_controller(cfg)),
      simc_(sc_core::sc_get_curr_simcontext()) {
  if (tck_value_ == 0) SC_REPORT_FATAL("npusim/hbm", "tCK is below the SystemC time resolution");
  stats_.bandwidth.window_ns = cfg.stats_window_ns;
  for (uint64_t k = 0; tck_value_ != 0 && k < 1024 && k * tck_value_ / tck_value_ == k; ++k)
    latency_.push_back(sc_core::sc_time::from_value(k * tck_value_));
  latency_n_ = latency_.size();
  bus.bind(*this);
}

const MemoryStats& Hbm::stats() const {
  stats_.refreshes = controller_->refreshes();
  stats_.row_hits = rows_.hits();
  stats_.row_misses = rows_.misses();
  stats_.row_conflicts = rows_.conflicts();
  return stats_;
}

void Hbm::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  // What the timing needs, read before the data moves (the compiler would read it again after
  // the copy, which may store anywhere).
  const uint64_t offset = trans.get_address();
  const tlm::tlm_command command = trans.get_command();
  const uint64_t len = trans.get_data_length();
  const uint64_t now = simc_->time_stamp().value();  // sc_time_stamp(), inline
  const uint64_t at = now + delay.value();
  const tlm::tlm_response_status status = access_store(store_, trans, offset);
  trans.set_response_status(status);
  trans.set_dmi_allowed(false);
  if (status != tlm::TLM_OK_RESPONSE) {
    ++stats_.errors;
    return;
  }
  if (command == tlm::TLM_READ_COMMAND || command == tlm::TLM_WRITE_COMMAND) {
    const bool write = command == tlm::TLM_WRITE_COMMAND;
    bool on_edge = false;  // the request arrived on a clock edge
    const uint64_t arrival_cycles = tck_div_.ceil_exact(at, on_edge);
    // One burst per burst-sized piece of [offset, offset + len); the request completes with
    // its last burst.
    const uint64_t done_cycles =
        controller_->schedule(offset, len, write, arrival_cycles, rows_);
    // An initiator that stalls on a full queue (npusim traffic --issue-width) asks when the
    // request was admitted.
    if (__builtin_expect(HbmAdmitExtension::any(), 0)) {
      if (auto* admit = trans.get_extension<HbmAdmitExtension>()) {
        admit->arrival = arrival_cycles;
        admit->admit = std::max(arrival_cycles, controller_->last_admit());
      }
    }
    // Arrived on a clock edge: the new delay is the old one plus the latency, from the table.
    const uint64_t latency = done_cycles - arrival_cycles;
    if (on_edge && latency < latency_n_)
      delay += latency_[latency];
    else
      delay = sc_core::sc_time::from_value(done_cycles * tck_value_ - now);
    if (write) {
      ++stats_.writes;
      stats_.bytes_written += len;
    } else {
      ++stats_.reads;
      stats_.bytes_read += len;
    }
    stats_.latency_cycles.record(done_cycles - arrival_cycles);
    add_bandwidth(done_cycles, len);
    stats_.first_arrival_cycle = std::min(stats_.first_arrival_cycle, arrival_cycles);
    stats_.last_completion_cycle = std::max(stats_.last_completion_cycle, done_cycles);
  }
}

void Hbm::add_bandwidth_slow(uint64_t done, uint64_t bytes) {
  BandwidthSeries& bw = stats_.bandwidth;
  const double tck = cfg_.tck_ns, window = bw.window_ns;
  bw.add(static_cast<double>(done) * tck, bytes);  // may coarsen the windows
  if (bw.window_ns == window) {  // the cached window stays valid: the one before from now on
    bw_lo2_ = bw_lo_, bw_hi2_ = bw_hi_, bw_index2_ = bw_index_;
  } else {
    bw_lo2_ = 1, bw_hi2_ = 0;
  }
  // The cycles that share this completion's window, by the same floating-point formula
  // (monotonic in the cycle): from `done` up to the first cycle of the next window.
  const size_t i = bw.index_of(static_cast<double>(done) * tck);
  auto index = [&](uint64_t c) { return bw.index_of(static_cast<double>(c) * tck); };
  // Start from the estimate of the next window's first cycle, step back while it overshoots
  // and forward while it undershoots; the steps are bounded, and a range that stops short is
  // still right (only the cycles checked to be in window i are in it).
  uint64_t hi = done + 1;
  const double estimate = static_cast<double>(i + 1) * bw.window_ns / tck;
  if (estimate > static_cast<double>(done + 1) && estimate < 1e18) {
    hi = static_cast<uint64_t>(estimate);
    for (int k = 0; k < 64 && hi > done + 1 && index(hi - 1) > i; ++k) --hi;
    if (index(hi - 1) > i) hi = done + 1;
  }
  for (int k = 0; k < 64 && index(hi) == i; ++k) ++hi;
  // And back to the window's first cycle the same way (completions come out of order: one a
  // little earlier than this one most likely shares its window).
  uint64_t lo = done;
  const double first = static_cast<double>(i) * bw.window_ns / tck;
  if (first < static_cast<double>(done)) {
    lo = static_cast<uint64_t>(first);
    for (int k = 0; k < 64 && lo < done && index(lo) < i; ++k) ++lo;
    if (index(lo) != i) lo = done;
  }
  for (int k = 0; k < 64 && lo > 0 && index(lo - 1) == i; ++k) --lo;
  bw_lo_ = lo;
  bw_hi_ = hi;
  bw_index_ = i;
}

tlm::tlm_sync_enum Hbm::nb_transport_fw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                        sc_core::sc_time& delay) {
  if (phase == tlm::BEGIN_REQ) b_transport(trans, delay);
  return tlm::TLM_COMPLETED;
}

bool Hbm::get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi) {
  // Never: timing depends on bank state. The whole memory is denied so the initiator does
  // not ask again.
  dmi.set_start_address(0);
  dmi.set_end_address(store_.size() - 1);
  dmi.allow_none();
  return false;
}

unsigned int Hbm::transport_dbg(tlm::tlm_generic_payload& trans) {
  ++stats_.debug_accesses;
  return debug_access(store_, trans, trans.get_address());
}

}  // namespace npusim::models
