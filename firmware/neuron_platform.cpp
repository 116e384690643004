#include "firmware/neuron_platform.h"
#include "models/unwind.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace npusim::fw {

NeuronPlatformConfig NeuronPlatformConfig::gpsimd() {
  NeuronPlatformConfig c;
  c.core.clock_ghz = 1.4;
  c.memory.dataram.clock_ns = 1.0 / 1.4;
  c.memory.dataram.latency_cycles = 3;
  c.memory.dataram.width_bytes = 64;
  c.memory.dataram.base = c.firmware.layout.data_scratch;
  c.memory.dataram.size = c.firmware.layout.dataram_size;
  c.memory.hbm.window_base = c.firmware.layout.hbm_window;
  c.memory.hbm.window_size = c.firmware.layout.hbm_scratch_size;
  c.memory.hbm.window_target = c.firmware.layout.hbm_scratch;
  c.firmware.local_stack_top = c.firmware.layout.data_scratch + c.firmware.layout.dataram_size;
  return c;
}

platforms::Topology NeuronPlatformConfig::description() const {
  if (topology) return *topology;
  platforms::NeuronGpsimdShape shape;
  shape.gpsimd_cores = gpsimd_cores.cores;
  shape.hbm = memory.hbm;
  shape.window_base = firmware.layout.hbm_window;
  shape.scratch_bytes = firmware.layout.hbm_scratch_size;
  return platforms::neuron_gpsimd_topology(shape);
}

platforms::Topology NeuronPlatformConfig::management_topology() const {
  platforms::Topology t = platforms::select_part(description(), platforms::kManagementPart);
  if (firmware_image && !t.components.empty()) {
    std::string ic;
    for (const auto& c : t.components)
      if (c.kind == platforms::Kind::kInterconnect && ic.empty()) ic = c.name;
    t.components.push_back({platforms::Kind::kSram, "fwmem", "fwmem", 1, "", false, ""});
    t.bindings.push_back({ic, "fwmem"});
    t.regions.push_back({ic, "fwmem", "fwmem", {}, {}, 0, 0, false, 0});
  }
  return t;
}

platforms::Topology NeuronPlatformConfig::gpsimd_topology() const {
  NeuronPlatformConfig builtin = *this;
  builtin.topology.reset();
  return platforms::select_part(builtin.description(), platforms::kGpsimdPart);
}

platforms::Parameters NeuronPlatformConfig::parameters() const {
  platforms::NeuronGpsimdSections s;
  s.memory = memory;
  s.core = core;
  s.dma = dma;
  s.gpsimd_core = core;
  s.gpsimd_core.host_stack_bytes = gpsimd_cores.host_stack_bytes;
  s.gpsimd_dma = dma;
  s.gpsimd_dma.channels = std::max(1u, gpsimd_cores.dma_engines / gpsimd_cores.cores);
  s.gpsimd_dma.bytes_per_ns = gpsimd_cores.dma_gibps * 1.073741824;
  s.gpsimd_dma.setup_cycles = static_cast<uint64_t>(std::llround(gpsimd_cores.dma_setup_ns / dma.clock_ns));
  s.fabric = memory.interconnect;
  s.fabric.hop_latency_cycles = gpsimd_cores.fabric_hop_cycles;
  platforms::Parameters p = platforms::neuron_gpsimd_parameters(s);
  if (firmware_image) {
    models::SramConfig image = memory.dataram;
    image.base = firmware.image_base;
    image.size = firmware.image_size;
    p.srams["fwmem"] = image;
  }
  return p;
}

namespace {

template <class T>
T& first(const std::vector<T*>& v, const char* what) {
  if (v.empty()) throw std::invalid_argument(std::string("a neuron-gpsimd topology needs ") + what);
  return *v.front();
}

models::Sram& first_sram(const platforms::Platform& p) {
  for (const auto& m : p.memories())
    if (m.kind == platforms::Kind::kSram) return p.sram(m.name);
  throw std::invalid_argument("a neuron-gpsimd topology needs an SRAM (the dataram)");
}
models::Hbm& first_hbm(const platforms::Platform& p) {
  for (const auto& m : p.memories())
    if (m.kind == platforms::Kind::kHbm) return p.hbm(m.name);
  throw std::invalid_argument("a neuron-gpsimd topology needs an HBM");
}

}  // namespace

NeuronPlatform::NeuronPlatform(sc_core::sc_module_name name, const NeuronPlatformConfig& cfg)
    : platforms::Platform(name, cfg.management_topology(), cfg.parameters()),
      memory{first(interconnects(), "an interconnect"), first_sram(*this), first_hbm(*this)},
      core(first(cores(), "a core")),
      dma(first(dmas(), "a DMA engine")),
      firmware(core, &dma, cfg.firmware) {}

void NeuronPlatform::run(std::function<void(Firmware&)> program) {
  core.set_program([this, program](models::Core&) {
    bind_to_core(firmware);
    program(firmware);
  });
  core.set_exit_handler([this](models::Core&, std::exception_ptr e) {
    if (e) {
      error_ = e;
      sc_core::sc_stop();
    }
  });
}

void simulate(NeuronPlatform& p) {
  sc_core::sc_start();
  models::main_stack_resume();  // ASan: back on the main stack (models/unwind.h)
  if (p.error()) std::rethrow_exception(p.error());
}

}  // namespace npusim::fw
