#include "platforms/snitch_cluster.h"

namespace npusim::platforms {

Topology snitch_cluster_topology(const SnitchPlatformConfig& cfg) {
  Topology t;
  t.name = "snitch-cluster";
  t.groups = {{"cluster", cfg.clusters}};
  t.components = {{Kind::kInterconnect, "interconnect", "interconnect", 1, "", false, ""},
                  {Kind::kHbm, "l3", "l3", 1, "", false, ""},
                  {Kind::kTcdm, "tcdm{i}", "tcdm", cfg.clusters, "", false, ""},
                  {Kind::kCore, "c{g}_core{i}", "core", cfg.runtime.compute_cores, "cluster", false, ""},
                  {Kind::kCore, "c{g}_dm", "core", 1, "cluster", false, ""},
                  {Kind::kDma, "c{g}_dma", "dma", 1, "cluster", false, ""}};
  t.bindings = {{"interconnect", "tcdm{i}"}, {"interconnect", "l3"}, {"c{g}_core{i}", "interconnect"},
                {"c{g}_dm", "interconnect"}, {"c{g}_dma", "interconnect"}};
  Region tcdm{"interconnect", "tcdm{i}", "tcdm{i}", cfg.runtime.tcdm_start, cfg.runtime.tcdm_size,
              cfg.runtime.cluster_offset, 0, false, 0};
  Region l3{"interconnect", "l3", "l3", {}, {}, 0, 0, false, 0};
  t.regions = {tcdm, l3};
  return t;
}

Parameters snitch_cluster_parameters(const SnitchPlatformConfig& cfg) {
  Parameters p;
  p.cores["core"] = cfg.core;
  p.tcdms["tcdm"] = cfg.tcdm;
  p.hbms["l3"] = cfg.l3;
  p.dmas["dma"] = cfg.dma;
  p.interconnects["interconnect"] = cfg.interconnect;
  return p;
}

namespace {
std::vector<models::Tcdm*> tcdms_of(const Platform& p) {
  std::vector<models::Tcdm*> v;
  for (const auto& m : p.memories())
    if (m.kind == Kind::kTcdm) v.push_back(&p.tcdm(m.name));
  return v;
}
}  // namespace

SnitchSystem::SnitchSystem(sc_core::sc_module_name name, const SnitchPlatformConfig& cfg)
    : Platform(name, snitch_cluster_topology(cfg), snitch_cluster_parameters(cfg)),
      cfg_(cfg),
      ic_(Platform::interconnect("interconnect")),
      l3_(hbm("l3")),
      tcdms_(tcdms_of(*this)) {}

}  // namespace npusim::platforms
