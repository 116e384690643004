// libFuzzer target: torch_op specs (op, inputs with shape/dtype/init/file, scalars, reference,
// output). The input is the body of a scenario's `torch_op:` key, indented under it, so the
// fuzzer spends its time inside the spec and not on the scenario around it.
#include "sim/input/input_error.h"
#include "sim/input/limits.h"
#include "sim/input/scenario.h"
#include "tests/fuzz/fuzz_input.h"

// The node cap scaled to the fuzzer's 4 KiB inputs: an alias bomb is still found, in
// milliseconds rather than the seconds a million nodes take under the sanitizers.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  npusim::sim::limits().yaml_nodes = 20000;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string doc = "name: fuzz\nplatform: neuron-gpsimd\ntorch_op:\n  ";
  for (char c : npusim::fuzz::text(data, size)) {
    doc += c;
    if (c == '\n') doc += "  ";
  }
  try {
    npusim::sim::parse_scenario(doc, "fuzz.yaml");
  } catch (const npusim::sim::InputError&) {
  }
  return 0;
}
