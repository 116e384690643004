// The GPSIMD cores of the torch ops (runtime.h GpsimdPlatform): the generic builder's platform
// from the GPSIMD part of the neuron-gpsimd description (fw::NeuronPlatformConfig::
// gpsimd_topology, platforms/neuron_gpsimd.h), and each core's firmware.
#include <fmt/format.h>

#include "firmware/torch/runtime.h"

namespace npusim::torchrt {

// --- the multi-core platform ---

namespace {
fw::FirmwareConfig gpsimd_fw_cfg(size_t i, const fw::NeuronPlatformConfig& c) {
  fw::FirmwareConfig f = c.firmware;
  f.layout.hbm_scratch = c.memory.hbm.base + uint64_t{f.layout.hbm_scratch_size} * i;
  return f;
}
}  // namespace

GpsimdPlatform::GpsimdPlatform(sc_core::sc_module_name name, const fw::NeuronPlatformConfig& cfg)
    : platforms::Platform(name, cfg.gpsimd_topology(), cfg.parameters()),
      cfg_(cfg),
      hbm_(Platform::hbm("hbm")) {
  for (size_t i = 0; i < cfg.gpsimd_cores.cores; ++i) {
    PerCore pc{&Platform::core(fmt::format("gpsimd{}", i)), &Platform::dma(fmt::format("core{}_dma", i)),
               &sram(fmt::format("core{}_tcm", i)), nullptr};
    pc.fw = std::make_unique<fw::Firmware>(*pc.core, pc.dma, gpsimd_fw_cfg(i, cfg));
    per_core_.push_back(std::move(pc));
  }
}
GpsimdPlatform::~GpsimdPlatform() = default;
models::Core& GpsimdPlatform::core(size_t i) { return *per_core_.at(i).core; }
models::DmaEngine& GpsimdPlatform::dma(size_t i) { return *per_core_.at(i).dma; }
fw::Firmware& GpsimdPlatform::firmware(size_t i) { return *per_core_.at(i).fw; }
models::Sram& GpsimdPlatform::tcm(size_t i) { return *per_core_.at(i).tcm; }
uint64_t GpsimdPlatform::arena_base() const {
  return cfg_.memory.hbm.base + uint64_t{cfg_.firmware.layout.hbm_scratch_size} * per_core_.size();
}

}  // namespace npusim::torchrt
