// The energy of a run on a platform (docs/energy.md): every memory, DMA engine, interconnect
// and core over simulated time [0, end], in pJ, from the models' statistics and the energy
// parameters of their configurations:
//
//   HBM           models/hbm_energy.h: ACT, read, write, refresh, active and precharge
//                 standby, from the controller's commands and the banks' open/closed history
//   SRAM, TCDM    bytes accessed (through transactions) x pj_per_byte
//   DMA engine    bytes moved x pj_per_byte (the engine's own; the memories count theirs)
//   interconnect  transactions x hop_pj
//   core          busy cycles (computing or waiting for a load or store) x active_pj_per_cycle
//                 + the other cycles of the run x idle_pj_per_cycle
//
// and the memories' power over time (per statistics window). Plain data; sim/ writes it.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <systemc>

#include "platforms/platform.h"

namespace npusim::platforms {

struct EnergyPart {
  std::string name;  // "act", "read", ... (HBM); "access" (SRAM); "active", "idle" (core)
  double pj = 0;
};

struct ComponentEnergy {
  std::string name;        // the instance: "hbm", "core0_tcm", "mgmt_core", ...
  std::string kind;        // kind_name(): "hbm", "sram", "tcdm", "dma", "interconnect", "core"
  std::vector<EnergyPart> parts;
  double pj = 0;           // the sum of the parts
  double average_mw = 0;   // over the run
  // Memories: power over time, mW per window of window_ns from 0 (empty: none).
  double window_ns = 0;
  std::vector<double> power_mw;
};

struct PlatformEnergy {
  double end_ns = 0;
  std::vector<ComponentEnergy> components;  // memories, DMA engines, interconnects, cores
  double total_pj = 0;
  double average_mw() const { return end_ns > 0 ? total_pj / end_ns : 0.0; }
};

PlatformEnergy platform_energy(const Platform& p, sc_core::sc_time end);

}  // namespace npusim::platforms
