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
  Region dataram{"interconnect", "dataram", "dataram", {}, {}, 0, 0, false, 0};
  Region hbm{"interconnect", "hbm", "hbm", {}, {}, 0, 0, false, 0};
  Region window{"interconnect", "hbm_window", "hbm", {}, {}, 0, 0, true, 0};
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

Topology gpsimd_topology(uint32_t cores, const models::HbmConfig& hbm, uint64_t window_base,
                         uint64_t scratch_bytes) {
  Topology t;
  t.name = "neuron-gpsimd-cores";
  t.groups = {{"core", cores}};
  t.components = {{Kind::kInterconnect, "hbm_ic", "fabric", 1, "", false},
                  {Kind::kHbm, "hbm", "hbm", 1, "", false},
                  {Kind::kInterconnect, "core{g}_ic", "interconnect", 1, "core", false},
                  {Kind::kSram, "core{g}_tcm", "dataram", 1, "core", false},
                  {Kind::kCore, "gpsimd{g}", "gpsimd_core", 1, "core", false},
                  {Kind::kDma, "core{g}_dma", "gpsimd_dma", 1, "core", false}};
  t.bindings = {{"hbm_ic", "hbm"},
                {"core{g}_ic", "core{g}_tcm"},
                {"core{g}_ic", "hbm_ic"},
                {"gpsimd{g}", "core{g}_ic"},
                {"core{g}_dma", "core{g}_ic"}};
  t.regions = {{"hbm_ic", "hbm", "hbm", {}, {}, 0, 0, false, 0},
               {"core{g}_ic", "dataram", "core{g}_tcm", {}, {}, 0, 0, false, 0},
               {"core{g}_ic", "hbm", "hbm_ic", hbm.base, hbm.size(), 0, hbm.base, false, 0},
               {"core{g}_ic", "hbm_window", "hbm_ic", window_base, scratch_bytes, 0, hbm.base, false, scratch_bytes}};
  return t;
}

Parameters gpsimd_parameters(const models::MemoryConfig& memory, const models::CoreConfig& core,
                             const models::DmaConfig& dma, const models::InterconnectConfig& fabric) {
  Parameters p;
  p.cores["gpsimd_core"] = core;
  p.srams["dataram"] = memory.dataram;
  p.hbms["hbm"] = memory.hbm;
  p.interconnects["interconnect"] = memory.interconnect;
  p.interconnects["fabric"] = fabric;
  p.dmas["gpsimd_dma"] = dma;
  return p;
}

}  // namespace npusim::platforms
