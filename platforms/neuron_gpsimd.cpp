#include "platforms/neuron_gpsimd.h"

namespace npusim::platforms {

Topology neuron_gpsimd_topology(const NeuronGpsimdShape& s) {
  const std::string m = kManagementPart, g = kGpsimdPart;
  Topology t;
  t.name = "neuron-gpsimd";
  t.groups = {{"core", s.gpsimd_cores}};
  // Each part keeps the order its components, bindings and regions have always been built
  // in (construction order, an interconnect's target numbers): the traces stay as they were.
  // The management core is the only initiator of its engine: a blocking transfer runs in the
  // core's thread when its channel is idle (same result, no channel-thread switches).
  t.components = {{Kind::kInterconnect, "interconnect", "interconnect", 1, "", false, m},
                  {Kind::kSram, "dataram", "dataram", 1, "", false, m},
                  {Kind::kInterconnect, "hbm_ic", "fabric", 1, "", false, g},
                  {Kind::kHbm, "hbm", "hbm", 1, "", false, ""},
                  {Kind::kCore, "mgmt_core", "core", 1, "", false, m},
                  {Kind::kDma, "dma", "dma", 1, "", true, m},
                  {Kind::kInterconnect, "core{g}_ic", "interconnect", 1, "core", false, g},
                  {Kind::kSram, "core{g}_tcm", "dataram", 1, "core", false, g},
                  {Kind::kCore, "gpsimd{g}", "gpsimd_core", 1, "core", false, g},
                  {Kind::kDma, "core{g}_dma", "gpsimd_dma", 1, "core", false, g}};
  t.bindings = {{"interconnect", "dataram"}, {"interconnect", "hbm"},     {"mgmt_core", "interconnect"},
                {"dma", "interconnect"},     {"hbm_ic", "hbm"},           {"core{g}_ic", "core{g}_tcm"},
                {"core{g}_ic", "hbm_ic"},    {"gpsimd{g}", "core{g}_ic"}, {"core{g}_dma", "core{g}_ic"}};
  const uint64_t hb = s.hbm.base;
  t.regions = {{"interconnect", "dataram", "dataram", {}, {}, 0, 0, false, 0},
               {"interconnect", "hbm", "hbm", {}, {}, 0, 0, false, 0},
               {"interconnect", "hbm_window", "hbm", {}, {}, 0, 0, true, 0},
               {"hbm_ic", "hbm", "hbm", {}, {}, 0, 0, false, 0},
               {"core{g}_ic", "dataram", "core{g}_tcm", {}, {}, 0, 0, false, 0},
               {"core{g}_ic", "hbm", "hbm_ic", hb, s.hbm.size(), 0, hb, false, 0},
               {"core{g}_ic", "hbm_window", "hbm_ic", s.window_base, s.scratch_bytes, 0, hb, false, s.scratch_bytes}};
  return t;
}

Parameters neuron_gpsimd_parameters(const NeuronGpsimdSections& s) {
  Parameters p;
  p.cores["core"] = s.core;
  p.cores["gpsimd_core"] = s.gpsimd_core;
  p.srams["dataram"] = s.memory.dataram;
  p.hbms["hbm"] = s.memory.hbm;
  p.interconnects["interconnect"] = s.memory.interconnect;
  p.interconnects["fabric"] = s.fabric;
  p.dmas["dma"] = s.dma;
  p.dmas["gpsimd_dma"] = s.gpsimd_dma;
  return p;
}

}  // namespace npusim::platforms
