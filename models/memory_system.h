// The memory system of a platform: interconnect -> {dataram, HBM}, from one MemoryConfig.
//
//   region "dataram"    [dataram.base, +dataram.size)     -> dataram, offset 0
//   region "hbm"        [hbm.base, +hbm size)              -> HBM, offset 0
//   region "hbm_window" [hbm.window_base, +window_size)    -> HBM, offset window_target - base
//
// Initiators (cores, DMA engines, traffic generators) bind their socket to `bus()`. The
// interconnect's bindings to the memories go through protocol checkers when `checks` is set
// (by default: NPUSIM_PROTOCOL_CHECKS is built in), each knowing its memory's address range.
#pragma once

#include <systemc>

#include "models/hbm.h"
#include "models/interconnect.h"
#include "models/memory_config.h"
#include "models/protocol_checker.h"
#include "models/sram.h"

namespace npusim::models {

class MemorySystem : public sc_core::sc_module {
 public:
  static constexpr unsigned kDataramTarget = 0;
  static constexpr unsigned kHbmTarget = 1;

  MemorySystem(sc_core::sc_module_name name, const MemoryConfig& cfg,
               bool checks = protocol_checks_built_in());

  // The interconnect's target socket: bind initiators here.
  Interconnect::BusSocket& bus() { return interconnect.bus; }

  Interconnect interconnect;
  Sram dataram;
  Hbm hbm;
  ProtocolCheckers checkers;  // interconnect -> dataram, interconnect -> HBM (if inserted)
};

}  // namespace npusim::models
