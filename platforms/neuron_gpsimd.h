// The neuron-gpsimd hardware as one description with a GPSIMD core count: a Neuron device's
// HBM, its management core (with its interconnect, dataram and inline DMA engine, and the
// 32-bit window onto its HBM scratch) and `gpsimd_cores` GPSIMD cores (each with its own
// interconnect, TCM and DMA engine, reaching the HBM through one shared fabric interconnect).
// Like snitch-cluster, the built-in description is this function of the configuration
// (fw::NeuronPlatformConfig builds it with `gpsimd.cores` and the heap layout); a profile's
// own `topology:` replaces it (docs/platforms.md).
//
// The description has two parts (Component::part, select_part), one per workload kind:
//   "management"  interconnect, dataram, mgmt_core, dma (+ hbm): Neuron scenario steps
//   "gpsimd"      hbm_ic, core{g}_ic, core{g}_tcm, gpsimd{g}, core{g}_dma (+ hbm): torch ops
// A run builds the part its workload runs on; the other would sit idle (and the two parts'
// paths to the HBM differ: the management core's interconnect is bound to it directly).
//
// Address map of the management part (interconnect): dataram [dataram.base, + size), hbm
// [hbm.base, + size), hbm_window [hbm.window_base, + window_size) -> hbm.window_target.
// Of GPSIMD core g (core{g}_ic): dataram -> core{g}_tcm, hbm [hbm.base, + size) -> hbm_ic,
// hbm_window [window_base, + scratch_bytes) -> hbm_ic at hbm.base + g * scratch_bytes (its own
// scratch slice); hbm_ic: hbm -> hbm.
#pragma once

#include "models/core.h"
#include "models/dma_engine.h"
#include "models/memory_config.h"
#include "platforms/platform.h"

namespace npusim::platforms {

inline constexpr const char* kManagementPart = "management";
inline constexpr const char* kGpsimdPart = "gpsimd";

struct NeuronGpsimdShape {
  uint32_t gpsimd_cores = 8;  // gpsimd.cores (public Neuron docs: 8)
  models::HbmConfig hbm;      // base and size of the HBM the cores' regions cover
  uint64_t window_base = models::DEFAULT_HBM_WINDOW_BASE;    // heaps.hbm_window
  uint64_t scratch_bytes = models::DEFAULT_HBM_WINDOW_SIZE;  // heaps.hbm_scratch_size, per core
};

// Both parts; select_part(neuron_gpsimd_topology(s), kGpsimdPart) is what a torch run builds.
Topology neuron_gpsimd_topology(const NeuronGpsimdShape& shape = {});

// The parameter sections the description names: core, dataram, hbm, interconnect, dma (the
// management part), gpsimd_core, gpsimd_dma, fabric (the GPSIMD part; dataram, hbm and
// interconnect are shared).
struct NeuronGpsimdSections {
  models::MemoryConfig memory;
  models::CoreConfig core, gpsimd_core;
  models::DmaConfig dma, gpsimd_dma;
  models::InterconnectConfig fabric;
};
Parameters neuron_gpsimd_parameters(const NeuronGpsimdSections& s);

}  // namespace npusim::platforms
