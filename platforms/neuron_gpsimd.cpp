#include "platforms/neuron_gpsimd.h"

namespace npusim::platforms {

Topology neuron_gpsimd_topology() {
  Topology t;
  t.name = "neuron-gpsimd";
  // The management core is the only initiator of its engine: a blocking transfer runs in the
  // core's thread when its channel is idle (same result, no channel-thread switches).
  t.components = {{Kind::kInterconnect, "interconnect", "interconnect", 1, "", false},
                  {Kind::kSram, "dataram", "dataram", 1, "", false},
                  {Kind::kHbm, "hbm", "hbm", 1, "", false},
                  {Kind::kCore, "mgmt_core", "core", 1, "", false},
                  {Kind::kDma, "dma", "dma", 1, "", true}};
  t.bindings = {{"interconnect", "dataram"}, {"interconnect", "hbm"}, {"mgmt_core", "interconnect"},
                {"dma", "interconnect"}};
  Region dataram{"interconnect", "dataram", "dataram", {}, {}, 0, 0, false};
  Region hbm{"interconnect", "hbm", "hbm", {}, {}, 0, 0, false};
  Region window{"interconnect", "hbm_window", "hbm", {}, {}, 0, 0, true};
  t.regions = {dataram, hbm, window};
  return t;
}

Parameters neuron_gpsimd_parameters(const models::MemoryConfig& memory, const models::CoreConfig& core,
                                    const models::DmaConfig& dma) {
  Parameters p;
  p.cores["core"] = core;
  p.srams["dataram"] = memory.dataram;
  p.hbms["hbm"] = memory.hbm;
  p.interconnects["interconnect"] = memory.interconnect;
  p.dmas["dma"] = dma;
  return p;
}

}  // namespace npusim::platforms
