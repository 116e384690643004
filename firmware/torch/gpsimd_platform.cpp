// The GPSIMD cores of the torch ops (runtime.h GpsimdPlatform): the generic builder's platform
// from platforms::gpsimd_topology, and each core's firmware.
#include <fmt/format.h>

#include <algorithm>

#include "firmware/torch/runtime.h"

namespace npusim::torchrt {

// --- the multi-core platform ---

namespace {
models::CoreConfig gpsimd_core_cfg(const fw::NeuronPlatformConfig& c) {
  models::CoreConfig k = c.core;
  k.host_stack_bytes = c.gpsimd_cores.host_stack_bytes;
  return k;
}
models::DmaConfig gpsimd_dma_cfg(const fw::NeuronPlatformConfig& c) {
  models::DmaConfig d = c.dma;
  d.channels = std::max(1u, c.gpsimd_cores.dma_engines / c.gpsimd_cores.cores);
  d.bytes_per_ns = c.gpsimd_cores.dma_gibps * 1.073741824;
  return d;
}
models::InterconnectConfig fabric_cfg(const fw::NeuronPlatformConfig& c) {
  models::InterconnectConfig i = c.memory.interconnect;
  i.hop_latency_cycles = c.gpsimd_cores.fabric_hop_cycles;
  return i;
}
fw::FirmwareConfig gpsimd_fw_cfg(size_t i, const fw::NeuronPlatformConfig& c) {
  fw::FirmwareConfig f = c.firmware;
  f.layout.hbm_scratch = c.memory.hbm.base + uint64_t{f.layout.hbm_scratch_size} * i;
  return f;
}
}  // namespace

GpsimdPlatform::GpsimdPlatform(sc_core::sc_module_name name, const fw::NeuronPlatformConfig& cfg)
    : platforms::Platform(name,
                          platforms::gpsimd_topology(cfg.gpsimd_cores.cores, cfg.memory.hbm,
                                                     cfg.firmware.layout.hbm_window,
                                                     cfg.firmware.layout.hbm_scratch_size),
                          platforms::gpsimd_parameters(cfg.memory, gpsimd_core_cfg(cfg), gpsimd_dma_cfg(cfg),
                                                       fabric_cfg(cfg))),
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
