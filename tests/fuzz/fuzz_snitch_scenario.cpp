// libFuzzer target: the snitch-cluster scenario parser (steps and integer expressions).
#include "sim/input/input_error.h"
#include "sim/input/limits.h"
#include "sim/input/snitch_scenario.h"
#include "tests/fuzz/fuzz_input.h"

// The node cap scaled to the fuzzer's 4 KiB inputs: an alias bomb is still found, in
// milliseconds rather than the seconds a million nodes take under the sanitizers.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  npusim::sim::limits().yaml_nodes = 20000;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    npusim::sim::snitch::parse(npusim::fuzz::text(data, size), "fuzz.yaml");
  } catch (const npusim::sim::InputError&) {
  }
  return 0;
}
