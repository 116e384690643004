// The cost of a kernel's own code on a GPSIMD core, by operation category (the profile's
// `kernel_cost:` section, docs/platforms.md; the categories: firmware/torch/kernel_cost_abi.h).
// The runtime prices every annotated kernel with these values when a run starts
// (firmware/torch/kernel_cost.cpp), so a change needs no rebuild of the kernel.
#pragma once

#include <array>
#include <cstdint>

#include "firmware/torch/kernel_cost_abi.h"

namespace npusim::fw {

struct KernelCostConfig {
  // Cycles per operation (a vector operation: per 512 bits), issued one after another.
  std::array<double, NPUSIM_KC_COUNT> cycles{};
  // Cycles from an operation's inputs to its result, on a loop-carried dependency chain.
  std::array<double, NPUSIM_KC_COUNT> latency{};
  // A stack load or store while the kernel's stack is in HBM (STACK_SIZE above
  // gpsimd.hbm_stack_threshold), in place of stack_load / stack_store.
  double hbm_stack_access_cycles = 44;

  KernelCostConfig();
  // The profile's name of category k ("int", "fp_add", ...).
  static const char* name(int k);
};

}  // namespace npusim::fw
