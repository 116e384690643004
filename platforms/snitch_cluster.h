// The snitch-cluster platform: N Snitch clusters (8 compute cores + 1 DM core each, a banked
// TCDM and a DMA engine per cluster) sharing an L3 memory, behind one interconnect, built by
// the generic builder (platform.h) from snitch_cluster_topology(). The profile is data
// (sim/platforms/snitch-cluster.yaml, read by sim/input/snitch_profile.cpp;
// docs/snitch-cluster.md documents every key); scenarios override it with `set:` and `--set`.
//
// Address map (cluster c, defaults):
//   tcdm<c>  [tcdm.base + c * cluster.cluster_offset, + tcdm.size)  -> TCDM of cluster c
//   l3       [l3.base, l3.end)                                       -> the L3 (HBM model)
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "allocators/snitch/alloc_v2.h"
#include "models/core.h"
#include "models/dma_engine.h"
#include "models/hbm.h"
#include "models/interconnect.h"
#include "models/rv32/hart.h"
#include "models/snitch/tcdm.h"
#include "platforms/platform.h"

namespace npusim::platforms {

struct SnitchPlatformConfig {
  uint32_t clusters = 1;
  uint64_t barrier_cycles = 8;  // assumption: the cluster's hardware barrier round trip
  alloc::snitch::SnitchConfig runtime;  // core counts, TCDM layout, L3 end, cluster offset
  alloc::snitch::CostModel alloc_cost;
  models::CoreConfig core;
  models::TcdmConfig tcdm;
  models::HbmConfig l3;
  models::DmaConfig dma;
  models::InterconnectConfig interconnect;
  // RV32 programs (docs/programs.md): result latencies, and how far a cluster's cores (in
  // lockstep with each other) run ahead of the kernel before they yield.
  models::rv32::Rv32Timing program_timing;
  uint64_t program_quantum_cycles = 1000;  // assumption: speed against DMA-status staleness

  uint32_t cores_per_cluster() const { return runtime.core_num(); }
  uint64_t tcdm_base(uint32_t cluster) const {
    return runtime.tcdm_start + uint64_t{cluster} * runtime.cluster_offset;
  }
  // The allocator's view of cluster `c` (cluster_idx set).
  alloc::snitch::SnitchConfig runtime_of(uint32_t cluster) const {
    auto r = runtime;
    r.cluster_idx = cluster;
    return r;
  }
};

// The description the generic builder wires: interconnect, l3, tcdm{i} (one per cluster),
// then per cluster group: c{g}_core{i} (compute cores), c{g}_dm, c{g}_dma.
Topology snitch_cluster_topology(const SnitchPlatformConfig& cfg);
Parameters snitch_cluster_parameters(const SnitchPlatformConfig& cfg);

// The assembled hardware.
class SnitchSystem : public Platform {
 public:
  SnitchSystem(sc_core::sc_module_name name, const SnitchPlatformConfig& cfg);

  const SnitchPlatformConfig& config() const { return cfg_; }
  uint32_t clusters() const { return cfg_.clusters; }
  models::Core& core(uint32_t cluster, uint32_t idx) {
    return *cores()[cluster * cfg_.cores_per_cluster() + idx];
  }
  models::Tcdm& tcdm(uint32_t cluster) { return *tcdms_[cluster]; }
  models::DmaEngine& dma(uint32_t cluster) { return *dmas()[cluster]; }
  models::Hbm& l3() { return l3_; }
  models::Interconnect& interconnect() { return ic_; }

 private:
  SnitchPlatformConfig cfg_;
  models::Interconnect& ic_;
  models::Hbm& l3_;
  std::vector<models::Tcdm*> tcdms_;
};

}  // namespace npusim::platforms
