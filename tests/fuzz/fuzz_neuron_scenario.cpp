// libFuzzer target: the neuron-gpsimd scenario parser (steps, policies, custom_op, expect).
#include "sim/input/scenario.h"
#include "sim/tools/heap_replay.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    npusim::sim::parse_scenario(npusim::fuzz::text(data, size), "fuzz.yaml");
  } catch (const npusim::sim::InputError&) {
  }
  return 0;
}
