// The neuron-gpsimd platform assembled in C++: memory system (dataram, HBM, interconnect), the
// management core, the DMA engine and the firmware layer on the core. The scenario runner
// builds it from a YAML profile; tests and benchmarks build it directly.
#pragma once

#include <exception>
#include <functional>
#include <memory>

#include <systemc>

#include "firmware/firmware.h"
#include "models/core.h"
#include "models/dma_engine.h"
#include "models/memory_system.h"

namespace npusim::fw {

struct NeuronPlatformConfig {
  models::MemoryConfig memory;
  models::CoreConfig core;
  models::DmaConfig dma;
  FirmwareConfig firmware;
  // The GPSIMD defaults (public Neuron documentation): 1.4 GHz core, 64 KiB local data RAM
  // with 3-cycle latency and 512-bit width.
  static NeuronPlatformConfig gpsimd();
};

class NeuronPlatform : public sc_core::sc_module {
 public:
  NeuronPlatform(sc_core::sc_module_name name, const NeuronPlatformConfig& cfg);

  // The management core runs `program` (with its firmware bound, so the device API of
  // neuron_device.h works). A fault stops the simulation; error() then holds it.
  void run(std::function<void(Firmware&)> program);
  std::exception_ptr error() const { return error_; }
  bool finished() const { return core.finished(); }

  models::MemorySystem memory;
  models::Core core;
  models::DmaEngine dma;
  Firmware firmware;

 private:
  std::exception_ptr error_;
};

// Runs the simulation to its end (or the first fault) and rethrows that fault, if any.
void simulate(NeuronPlatform& p);

}  // namespace npusim::fw
