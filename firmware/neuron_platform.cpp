#include "firmware/neuron_platform.h"

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

NeuronPlatform::NeuronPlatform(sc_core::sc_module_name name, const NeuronPlatformConfig& cfg)
    : sc_core::sc_module(name),
      memory("memory", cfg.memory),
      core("mgmt_core", cfg.core),
      dma("dma", cfg.dma),
      firmware(core, &dma, cfg.firmware) {
  core.bus.bind(memory.bus());
  dma.bus.bind(memory.bus());
  // The management core is the only initiator of its engine: a blocking transfer runs in the
  // core's thread when its channel is idle (same result, no channel-thread switches).
  dma.set_inline_execution(true);
}

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
  if (p.error()) std::rethrow_exception(p.error());
}

}  // namespace npusim::fw
