#include "sim/run/scenario_runner.h"

#include "sim/run/neuron_steps.h"
#include "sim/run/pipeline.h"

namespace npusim::sim {

extern const char* const kDefaultScenario;  // generated from scenarios/default.yaml

const char* default_scenario_text() { return kDefaultScenario; }
const char* default_scenario_name() { return "<builtin:scenarios/default.yaml>"; }

RunResult run_scenario(const Scenario& sc, const RunOptions& opt, std::ostream& out,
                       std::vector<std::unique_ptr<RunObserver>> observers) {
  if (sc.torch_op) return run_torch_scenario(sc, opt, out, std::move(observers));
  neuron::NeuronSteps w(sc, opt);
  return run_pipeline(w, sc.expect, out, std::move(observers));
}

}  // namespace npusim::sim
