#include "platforms/energy.h"

#include <algorithm>
#include <cmath>

#include "models/hbm/bank_history.h"
#include "models/hbm_energy.h"

namespace npusim::platforms {

namespace {

double ns_of(const sc_core::sc_time& t) { return t.to_seconds() * 1e9; }

void finish(ComponentEnergy& c, double end_ns) {
  c.pj = 0;
  for (const auto& p : c.parts) c.pj += p.pj;
  c.average_mw = end_ns > 0 ? c.pj / end_ns : 0.0;
}

// bytes per window x pJ per byte / window length = mW.
std::vector<double> byte_power(const models::BandwidthSeries& bw, double pj_per_byte) {
  std::vector<double> mw;
  for (uint64_t b : bw.bytes) mw.push_back(static_cast<double>(b) * pj_per_byte / bw.window_ns);
  return mw;
}

ComponentEnergy hbm_energy(const MemoryRef& m, const models::Hbm& hbm, sc_core::sc_time end) {
  const models::HbmConfig& c = hbm.config();
  models::hbm::ActivitySeries series;
  const uint64_t end_cycles = std::max(hbm.cycles_at(end), hbm.stats().last_completion_cycle);
  const models::HbmEnergyReport r = hbm.energy(end_cycles, &series);
  const models::HbmEnergy& e = r.total;
  ComponentEnergy out{m.name, "hbm", {}, 0, 0, 0, {}};
  out.parts = {{"act", e.act},
               {"read", e.read},
               {"write", e.write},
               {"refresh", e.refresh},
               {"act_standby", e.act_standby},
               {"pre_standby", e.pre_standby}};
  // Over time, per window of the activity series: ACTs and background from the bank-state
  // history, refreshes where they start, and the column commands' energy spread over the
  // bytes each window completed, at the run's average per byte.
  const models::HbmEnergyCosts k = models::hbm_energy_costs(c);
  const models::BandwidthSeries& bw = hbm.stats().bandwidth;
  const double w = series.window_ns;
  const double col_pj_per_byte =
      hbm.stats().bytes() > 0 ? (e.read + e.write) / static_cast<double>(hbm.stats().bytes()) : 0.0;
  const size_t n = static_cast<size_t>(std::max(0.0, std::ceil(ns_of(end) / w)));
  const double units = c.units();
  for (size_t i = 0; i < n && i < (size_t{1} << 17); ++i) {
    const double lo = static_cast<double>(i) * w, hi = std::min(lo + w, e.ns);
    if (hi <= lo) break;
    const double cycles = (hi - lo) / c.tck_ns * units;
    const double open = i < series.open_cycles.size() ? static_cast<double>(series.open_cycles[i]) : 0.0;
    double pj = (i < series.acts.size() ? static_cast<double>(series.acts[i]) : 0.0) * k.act +
                open * c.tck_ns * k.active_standby_mw +
                std::max(0.0, cycles - open) * c.tck_ns * k.precharge_standby_mw;
    if (c.tREFI != 0) {  // refreshes starting in [lo, hi) (all units at once)
      const double refi_ns = static_cast<double>(c.tREFI) * c.tck_ns;
      const auto first = static_cast<uint64_t>(std::ceil(std::max(lo, refi_ns) / refi_ns));
      const auto last = static_cast<uint64_t>(std::ceil(hi / refi_ns));
      if (last > first) pj += static_cast<double>(last - first) * units * k.refresh;
    }
    // (the bandwidth series' windows are as long or, after coarsening, longer)
    if (bw.window_ns > 0) {
      const auto j = static_cast<size_t>(lo / bw.window_ns);
      if (j < bw.bytes.size())
        pj += static_cast<double>(bw.bytes[j]) * col_pj_per_byte * (w / bw.window_ns);
    }
    out.power_mw.push_back(pj / (hi - lo));
  }
  out.window_ns = w;
  return out;
}

}  // namespace

PlatformEnergy platform_energy(const Platform& p, sc_core::sc_time end) {
  PlatformEnergy r;
  r.end_ns = ns_of(end);
  for (const MemoryRef& m : p.memories()) {
    ComponentEnergy c{m.name, kind_name(m.kind), {}, 0, 0, 0, {}};
    if (m.kind == Kind::kHbm) {
      c = hbm_energy(m, *static_cast<const models::Hbm*>(m.module), end);
    } else if (m.kind == Kind::kSram) {
      const auto& s = *static_cast<const models::Sram*>(m.module);
      const double pj_b = s.config().pj_per_byte;
      c.parts = {{"access", static_cast<double>(s.stats().bytes()) * pj_b}};
      c.window_ns = s.stats().bandwidth.window_ns;
      c.power_mw = byte_power(s.stats().bandwidth, pj_b);
    } else if (m.kind == Kind::kTcdm) {
      const auto& t = *static_cast<const models::Tcdm*>(m.module);
      c.parts = {{"access", static_cast<double>(t.stats().bytes) * t.config().pj_per_byte}};
    }
    finish(c, r.end_ns);
    r.components.push_back(std::move(c));
  }
  for (const models::DmaEngine* d : p.dmas()) {
    uint64_t bytes = 0;
    for (const auto& ch : d->channel_stats()) bytes += ch.bytes;
    ComponentEnergy c{d->basename(), "dma", {{"moved", static_cast<double>(bytes) * d->config().pj_per_byte}}, 0, 0, 0, {}};
    finish(c, r.end_ns);
    r.components.push_back(std::move(c));
  }
  for (const models::Interconnect* ic : p.interconnects()) {
    ComponentEnergy c{ic->basename(), "interconnect",
                      {{"hops", static_cast<double>(ic->stats().requests) * ic->config().hop_pj}}, 0, 0, 0, {}};
    finish(c, r.end_ns);
    r.components.push_back(std::move(c));
  }
  for (const models::Core* core : p.cores()) {
    const auto& s = core->stats();
    const models::CoreConfig& cfg = core->config();
    const double busy_ns = std::min(ns_of(s.memory_time + s.compute_time), r.end_ns);
    const double idle_ns = std::max(0.0, r.end_ns - busy_ns);
    ComponentEnergy c{core->basename(), "core",
                      {{"active", busy_ns * cfg.clock_ghz * cfg.active_pj_per_cycle},
                       {"idle", idle_ns * cfg.clock_ghz * cfg.idle_pj_per_cycle}},
                      0, 0, 0, {}};
    finish(c, r.end_ns);
    r.components.push_back(std::move(c));
  }
  for (const auto& c : r.components) r.total_pj += c.pj;
  return r;
}

}  // namespace npusim::platforms
