#include "models/hbm_energy.h"

#include <algorithm>

namespace npusim::models {

HbmEnergyCosts hbm_energy_costs(const HbmConfig& c) {
  const double v = c.vdd, t = c.tck_ns;
  const auto cyc = [](uint64_t n) { return static_cast<double>(n); };
  HbmEnergyCosts e;
  e.act = v * (c.idd0 * cyc(c.tRAS + c.tRP) - (c.idd3n * cyc(c.tRAS) + c.idd2n * cyc(c.tRP))) * t;
  e.read = v * (c.idd4r - c.idd3n) * cyc(c.burst_cycles()) * t;
  e.write = v * (c.idd4w - c.idd3n) * cyc(c.burst_cycles()) * t;
  e.refresh = v * (c.idd5ab - c.idd2n) * cyc(c.tRFC) * t;
  e.bank_refresh = v * (c.idd5pb - c.idd3n) * cyc(c.tRFCpb) * t;
  e.active_standby_mw = v * c.idd3n;
  e.precharge_standby_mw = v * c.idd2n;
  return e;
}

HbmEnergy& HbmEnergy::operator+=(const HbmEnergy& o) {
  act += o.act, read += o.read, write += o.write, refresh += o.refresh;
  act_standby += o.act_standby, pre_standby += o.pre_standby;
  ns = std::max(ns, o.ns);
  acts += o.acts, reads += o.reads, writes += o.writes, refreshes += o.refreshes;
  cycles += o.cycles, open_cycles += o.open_cycles;
  return *this;
}

HbmEnergy hbm_energy(const HbmConfig& c, const hbm::UnitActivity& a) {
  const HbmEnergyCosts k = hbm_energy_costs(c);
  const auto n = [](uint64_t v) { return static_cast<double>(v); };
  HbmEnergy e;
  e.act = n(a.acts) * k.act;
  e.read = n(a.reads) * k.read;
  e.write = n(a.writes) * k.write;
  e.refresh = n(a.refreshes) * k.refresh + n(a.bank_refreshes) * k.bank_refresh;
  const uint64_t open = std::min(a.open_cycles, a.cycles);
  e.act_standby = n(open) * c.tck_ns * k.active_standby_mw;
  e.pre_standby = n(a.cycles - open) * c.tck_ns * k.precharge_standby_mw;
  e.ns = n(a.cycles) * c.tck_ns;
  e.acts = a.acts, e.reads = a.reads, e.writes = a.writes, e.cycles = a.cycles;
  e.open_cycles = open;
  e.refreshes = n(a.refreshes) + n(a.bank_refreshes) / std::max(1u, c.banks());
  return e;
}

HbmEnergyReport hbm_energy(const HbmConfig& c, const std::vector<hbm::UnitActivity>& activity) {
  HbmEnergyReport r;
  for (const auto& a : activity) {
    r.units.push_back(hbm_energy(c, a));
    r.total += r.units.back();
  }
  return r;
}

}  // namespace npusim::models
