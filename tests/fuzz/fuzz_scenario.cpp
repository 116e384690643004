// libFuzzer target for the scenario parsers (neuron-gpsimd and snitch-cluster): any input
// either parses or is rejected with an InputError; nothing else may escape, crash or hang.
#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/input/input_error.h"
#include "sim/input/limits.h"
#include "sim/input/scenario.h"
#include "sim/input/snitch_scenario.h"

// The node cap scaled to the fuzzer's 4 KiB inputs: an alias bomb is still found, in
// milliseconds rather than the seconds a million nodes take under the sanitizers.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  npusim::sim::limits().yaml_nodes = 20000;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    npusim::sim::parse_scenario(text, "fuzz.yaml");
  } catch (const npusim::sim::InputError&) {
  }
  try {
    npusim::sim::snitch::parse(text, "fuzz.yaml");
  } catch (const npusim::sim::InputError&) {
  }
  return 0;
}
