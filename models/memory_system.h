// The memory system of a platform: interconnect -> {dataram, HBM}, from one MemoryConfig.
//
//   region "dataram"    [dataram.base, +dataram.size)     -> dataram, offset 0
//   region "hbm"        [hbm.base, +hbm size)              -> HBM, offset 0
//   region "hbm_window" [hbm.window_base, +window_size)    -> HBM, offset window_target - base
//
// Initiators (cores, DMA engines, traffic generators) bind their socket to `bus()`.
#pragma once

#include <systemc>

#include "models/hbm.h"
#include "models/interconnect.h"
#include "models/memory_config.h"
#include "models/sram.h"

namespace npusim::models {

class MemorySystem : public sc_core::sc_module {
 public:
  static constexpr unsigned kDataramTarget = 0;
  static constexpr unsigned kHbmTarget = 1;

  MemorySystem(sc_core::sc_module_name name, const MemoryConfig& cfg);

  // The interconnect's target socket: bind initiators here.
  Interconnect::BusSocket& bus() { return interconnect.bus; }

  Interconnect interconnect;
  Sram dataram;
  Hbm hbm;
};

}  // namespace npusim::models
