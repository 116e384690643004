// `npusim run` speed: the embedded default scenario, and a 10-million-step scenario with and
// without full tracing. SystemC elaborates once per process, so run ONE benchmark per process:
//   bench_run --benchmark_filter=BM_default
//   bench_run --benchmark_filter=BM_steps_untraced
//   bench_run --benchmark_filter=BM_steps_traced
#include <benchmark/benchmark.h>

#include <cstdio>
#include <sstream>

#include "sim/input/limits.h"
#include "sim/run/run_observers.h"
#include "sim/run/scenario_runner.h"

using namespace npusim::sim;

namespace {

void run_once(benchmark::State& state, const Scenario& sc, const RunOptions& opt) {
  for (auto _ : state) {
    std::ostringstream out;
    auto r = run_scenario(sc, opt, out, make_observers(opt));
    if (r.exit_code != 0) state.SkipWithError("the scenario failed");
    state.counters["steps"] = r.report["metrics"]["steps"].get<double>();
  }
  state.counters["steps_per_s"] =
      benchmark::Counter(state.counters["steps"], benchmark::Counter::kIsRate);
}

void BM_default(benchmark::State& state) {
  run_once(state, parse_scenario(default_scenario_text(), "default"), RunOptions{});
}
BENCHMARK(BM_default)->Iterations(1)->Unit(benchmark::kMillisecond);

// 10 000 002 steps: above the default --limit steps.
Scenario steps_scenario() {
  limits().steps = 20'000'000;
  return load_scenario_file(NPUSIM_SOURCE_DIR "/bench/steps_10m.yaml");
}

void BM_steps_untraced(benchmark::State& state) { run_once(state, steps_scenario(), RunOptions{}); }
BENCHMARK(BM_steps_untraced)->Iterations(1)->Unit(benchmark::kMillisecond);

void BM_steps_traced(benchmark::State& state) {
  RunOptions opt;
  opt.trace_path = "/tmp/npusim-bench-trace.json";
  opt.vcd_path = "/tmp/npusim-bench.vcd";
  run_once(state, steps_scenario(), opt);
  std::remove(opt.trace_path.c_str());
  std::remove(opt.vcd_path.c_str());
}
BENCHMARK(BM_steps_traced)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
