// libFuzzer target: the sweep readers. An input whose first character is '{' is a sweep's
// results.jsonl as `npusim report --sweep` reads it (sim/output/sweep_report.cpp); anything
// else is a sweep file as `npusim sweep` plans it (sim/tools/sweep_plan.cpp: parsed, its points
// counted, then expanded). Both either succeed or throw InputError.
#include <sstream>

#include "sim/input/input_error.h"
#include "sim/output/sweep_report.h"
#include "sim/tools/sweep.h"
#include "tests/fuzz/fuzz_input.h"

namespace npusim::sim {
// The embedded default scenario (scenarios/default.yaml), as sim/run/scenario_runner.cpp
// gives it to the program; the fuzzer links the sweep's sources without the simulator.
extern const char* const kDefaultScenario;
const char* default_scenario_text() { return kDefaultScenario; }
}  // namespace npusim::sim

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string t = npusim::fuzz::text(data, size);
  try {
    if (!t.empty() && t[0] == '{') {
      std::istringstream in(t);
      npusim::sim::sweep_data_from_stream(in, "fuzz/results.jsonl", "fuzz");
    } else {
      npusim::sim::sweep::plan_text(t, "fuzz.yaml");
    }
  } catch (const npusim::sim::InputError&) {
  }
  return 0;
}

// The sweep planner links the platform descriptions, and with them libsystemc, which calls
// sc_main from its own main; the fuzzer has libFuzzer's main and never elaborates a model.
extern "C" int sc_main(int, char**) { return 0; }
