// HBM energy from a controller's activity (models/hbm/controller.h, UnitActivity), by the
// current-based method of Micron TN-41-01 as DRAMsim3 applies it (configuration.cc,
// InitPowerParams), with the currents and voltage of the profile (HbmConfig: VDD, IDD*):
//
//   ACT (with its precharge)  VDD · (IDD0 · tRC − (IDD3N · tRAS + IDD2N · tRP)) · tCK
//   read burst                VDD · (IDD4R − IDD3N) · BL/2 · tCK
//   write burst               VDD · (IDD4W − IDD3N) · BL/2 · tCK
//   all-bank refresh          VDD · (IDD5AB − IDD2N) · tRFC · tCK
//   per-bank refresh          VDD · (IDD5PB − IDD3N) · tRFCpb · tCK
//   background, per cycle     VDD · IDD3N · tCK while a bank of the unit has a row open
//                             (active standby), VDD · IDD2N · tCK while all are closed
//                             (precharge standby)
//
// V × mA × ns = pJ, so every figure is in pJ for any tCK. Two departures from DRAMsim3, both
// on purpose (docs/energy.md): the background follows the banks' real open/closed history,
// and a refresh subtracts IDD2N, not IDD3N, as every bank is closed while it runs (the
// background then charges IDD2N for those cycles; DRAMsim3 charges IDD2N too, and so counts
// IDD3N − IDD2N of the refresh's current nowhere).
#pragma once

#include <cstdint>
#include <vector>

#include "models/hbm/controller.h"
#include "models/memory_config.h"

namespace npusim::models {

// Energy per event, pJ, and background power, mW, of one unit.
struct HbmEnergyCosts {
  double act = 0, read = 0, write = 0, refresh = 0, bank_refresh = 0;
  double active_standby_mw = 0, precharge_standby_mw = 0;
};
HbmEnergyCosts hbm_energy_costs(const HbmConfig& c);

// Energy of one unit (or a sum), pJ.
struct HbmEnergy {
  double act = 0, read = 0, write = 0, refresh = 0, act_standby = 0, pre_standby = 0;
  double ns = 0;  // the span the energy covers
  // What it was computed from: commands (refreshes: all-bank, or per-bank / banks), the
  // span in cycles and the cycles with a row open (summed over the units of a sum).
  uint64_t acts = 0, reads = 0, writes = 0, cycles = 0, open_cycles = 0;
  double refreshes = 0;
  double total() const { return act + read + write + refresh + act_standby + pre_standby; }
  double average_power_mw() const { return ns > 0 ? total() / ns : 0.0; }  // pJ / ns = mW
  HbmEnergy& operator+=(const HbmEnergy& o);  // components add, the span is the longest
};

HbmEnergy hbm_energy(const HbmConfig& c, const hbm::UnitActivity& a);
// Every unit of `activity` (as Controller::activity returns it), and their sum.
struct HbmEnergyReport {
  std::vector<HbmEnergy> units;
  HbmEnergy total;
};
HbmEnergyReport hbm_energy(const HbmConfig& c, const std::vector<hbm::UnitActivity>& activity);

}  // namespace npusim::models
