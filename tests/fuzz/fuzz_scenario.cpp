// libFuzzer target for the scenario parsers (neuron-gpsimd and snitch-cluster): any input
// either parses or is rejected with an InputError; nothing else may escape, crash or hang.
#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/tools/heap_replay.h"
#include "sim/input/scenario.h"
#include "sim/input/snitch_scenario.h"

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
