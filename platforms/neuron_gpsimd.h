// The neuron-gpsimd hardware as a topology: the management core with its DMA engine on one
// interconnect in front of the dataram and the HBM (with the core's 32-bit window onto the
// HBM scratch). The built-in profile (sim/platforms/neuron-gpsimd.yaml) carries the same
// description in its `topology:` section; this is the default for C++ users (tests,
// benchmarks) that build the platform without a profile.
#pragma once

#include "models/core.h"
#include "models/dma_engine.h"
#include "models/memory_config.h"
#include "platforms/platform.h"

namespace npusim::platforms {

Topology neuron_gpsimd_topology();

// The GPSIMD cores that run torch-API custom ops: `cores` groups "core" of {core{g}_ic,
// core{g}_tcm (config dataram), gpsimd{g} (config gpsimd_core), core{g}_dma (config
// gpsimd_dma)}, every core interconnect onto one fabric interconnect hbm_ic (config fabric) in
// front of the HBM. Core g's 32-bit window [window_base, + scratch_bytes) maps its own HBM
// scratch slice, at hbm.base + g * scratch_bytes.
Topology gpsimd_topology(uint32_t cores, const models::HbmConfig& hbm, uint64_t window_base,
                         uint64_t scratch_bytes);
Parameters gpsimd_parameters(const models::MemoryConfig& memory, const models::CoreConfig& core,
                             const models::DmaConfig& dma, const models::InterconnectConfig& fabric);

// The parameter sections of a neuron-gpsimd profile, by the names its topology uses:
// core, dataram, hbm, interconnect, dma.
Parameters neuron_gpsimd_parameters(const models::MemoryConfig& memory, const models::CoreConfig& core,
                                    const models::DmaConfig& dma);

}  // namespace npusim::platforms
