// libFuzzer target: the snitch-cluster scenario parser (steps and integer expressions).
#include "sim/input/snitch_scenario.h"
#include "sim/tools/heap_replay.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    npusim::sim::snitch::parse(npusim::fuzz::text(data, size), "fuzz.yaml");
  } catch (const npusim::sim::InputError&) {
  }
  return 0;
}
