// The neuron-gpsimd platform with the firmware layer on its first core: the hardware is a
// platforms::Platform built from the configuration's topology (platforms/neuron_gpsimd.h by
// default, or a profile's `topology:` section), the firmware runs on the topology's first
// core and drives its first DMA engine. The scenario runner builds it from a YAML profile;
// tests and benchmarks build it directly.
#pragma once

#include <exception>
#include <functional>
#include <memory>
#include <optional>

#include <systemc>

#include "firmware/firmware.h"
#include "firmware/kernel_cost_config.h"
#include "models/core.h"
#include "models/dma_engine.h"
#include "models/memory_config.h"
#include "platforms/neuron_gpsimd.h"
#include "platforms/platform.h"

namespace npusim::fw {

// The GPSIMD cores that run custom ops written against the torch API (firmware/torch,
// docs/custom-ops.md): each core has its own dataram (TCM) and firmware; HBM is shared.
struct GpsimdConfig {
  uint32_t cores = 8;                  // public Neuron docs: 8 GPSIMD cores
  uint32_t dma_engines = 16;           // shared out: dma_engines / cores channels per core
  double dma_gibps = 27.0;             // per engine (public Neuron docs)
  // A DMA transfer's fixed cost: descriptor setup, synchronisation, semaphore (public Neuron
  // DMA bandwidth guide: "~1300 ns cross-engine" per transfer).
  double dma_setup_ns = 1300.0;
  // The library's work to start one tensor_to_tcm / tcm_to_tensor transfer (the transfer
  // method's dispatch, descriptor generation on the core): calibrated (docs/kernel-accuracy.md).
  uint64_t tcm_copy_cycles = 1150;
  // A library op (fill, element-wise op; not kernel code): start-up, then per 16-element vector
  // (the public NKI GpSimd instruction cost, 150 + N cycles).
  uint64_t library_op_start_cycles = 150;
  uint64_t library_op_cycles_per_vector = 1;
  uint64_t accessor_cycles = 225;      // standard accessor: the library's work per element access (calibrated, docs/kernel-accuracy.md)
  uint32_t hbm_stack_threshold = 8192; // STACK_SIZE above this: the stack moves to HBM
  uint32_t documented_max_stack = 400 * 1024;
  uint32_t max_streams = 4;            // fast stream accessors per core
  uint64_t host_stack_bytes = 8u << 20;  // host stack of each core thread
  uint64_t tensor_arena_bytes = 1ull << 30;  // HBM for tensors, after the cores' scratch
  // Latency of the fabric between the cores and HBM, per crossing (interconnect cycles of
  // interconnect.clock_ns). Calibrated, see docs/assumptions.md.
  uint64_t fabric_hop_cycles = 20;
  // Budgets of a torch op run (docs/custom-ops.md, "Budgets"; the defaults' reasoning in
  // docs/assumptions.md): a kernel's cycles on its core, and the op run's wall-clock seconds.
  uint64_t cycle_budget = 1'000'000'000'000ull;
  double wall_budget_s = 600;
};

struct NeuronPlatformConfig {
  GpsimdConfig gpsimd_cores;
  KernelCostConfig kernel_cost;  // a torch kernel's own code (the profile's kernel_cost:)
  models::MemoryConfig memory;
  models::CoreConfig core;
  models::DmaConfig dma;
  FirmwareConfig firmware;
  // A profile's own `topology:` (a custom platform such as neuron-dual-core; its memories must
  // include an SRAM and an HBM, the first core runs the firmware). Empty: the built-in
  // neuron-gpsimd description (platforms/neuron_gpsimd.h) with gpsimd_cores.cores cores.
  std::optional<platforms::Topology> topology;
  // A firmware program runs on the management core: its image memory (firmware.image_base,
  // image_size; an SRAM with the dataram's timing) joins the management core's map.
  bool firmware_image = false;

  // The one description: `topology` if given, else the built-in one of this configuration.
  platforms::Topology description() const;
  // What each workload kind builds of it: the management part for Neuron steps
  // (NeuronPlatform), the GPSIMD cores for torch ops (torchrt::GpsimdPlatform; always the
  // built-in description, whose component names the torch runtime relies on).
  platforms::Topology management_topology() const;
  platforms::Topology gpsimd_topology() const;
  // Every parameter section the description names (the GPSIMD cores' core, DMA and fabric
  // sections derived from gpsimd_cores).
  platforms::Parameters parameters() const;

  // The GPSIMD defaults (public Neuron documentation): 1.4 GHz core, 64 KiB local data RAM
  // with 3-cycle latency and 512-bit width.
  static NeuronPlatformConfig gpsimd();
};

class NeuronPlatform : public platforms::Platform {
 public:
  // The first SRAM (dataram), the first HBM and the first interconnect of the topology.
  struct Memories {
    models::Interconnect& interconnect;
    models::Sram& dataram;
    models::Hbm& hbm;
  };

  NeuronPlatform(sc_core::sc_module_name name, const NeuronPlatformConfig& cfg);

  // The management core runs `program` (with its firmware bound, so the device API of
  // neuron_device.h works). A fault stops the simulation; error() then holds it.
  void run(std::function<void(Firmware&)> program);
  std::exception_ptr error() const { return error_; }
  bool finished() const { return core.finished(); }

  Memories memory;
  models::Core& core;
  models::DmaEngine& dma;
  Firmware firmware;

 private:
  std::exception_ptr error_;
};

// Runs the simulation to its end (or the first fault) and rethrows that fault, if any.
void simulate(NeuronPlatform& p);

}  // namespace npusim::fw
