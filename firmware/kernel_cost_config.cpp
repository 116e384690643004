// Defaults of the kernel cost parameters: the neuron-gpsimd profile's values
// (sim/platforms/neuron-gpsimd.yaml, where each is explained; docs/assumptions.md).
#include "firmware/kernel_cost_config.h"

namespace npusim::fw {

namespace {
struct Default {
  double cycles, latency;
};
// In the order of NPUSIM_KC_CATEGORIES.
constexpr Default kDefaults[NPUSIM_KC_COUNT] = {
    {1, 1},    // int
    {1, 2},    // int_mul
    {16, 16},  // int_div
    {1, 4},    // fp_add
    {1, 4},    // fp_mul
    {1, 4},    // fp_fma
    {16, 16},  // fp_div
    {16, 16},  // fp_sqrt
    {1, 1},    // fp_cmp
    {1, 2},    // fp_convert
    {20, 20},  // fp64
    {20, 20},  // math_exp
    {20, 20},  // math_log
    {25, 25},  // math_trig
    {30, 30},  // math_hyp
    {40, 40},  // math_pow
    {30, 30},  // math_other
    {1, 1},    // shuffle
    {1, 1},    // branch
    {4, 4},    // call
    {1, 3},    // tcm_load
    {1, 1},    // tcm_store
    {1, 3},    // stack_load
    {1, 1},    // stack_store
};
}  // namespace

KernelCostConfig::KernelCostConfig() {
  for (int k = 0; k < NPUSIM_KC_COUNT; ++k) {
    cycles[k] = kDefaults[k].cycles;
    latency[k] = kDefaults[k].latency;
  }
}

const char* KernelCostConfig::name(int k) {
  static const char* const names[] = {
#define NPUSIM_KC_NAME(id, n) n,
      NPUSIM_KC_CATEGORIES(NPUSIM_KC_NAME)
#undef NPUSIM_KC_NAME
  };
  return k >= 0 && k < NPUSIM_KC_COUNT ? names[k] : "?";
}

}  // namespace npusim::fw
