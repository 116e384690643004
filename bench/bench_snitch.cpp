// snitch-cluster run speed: bench/snitch_9core.yaml, all 9 cores of a cluster streaming
// through the TCDM bank model (target: >= 1 M simulated core memory accesses per host second).
// SystemC elaborates once per process, so run ONE benchmark per process:
//   bench_snitch --benchmark_filter=BM_snitch_9core/
//   bench_snitch --benchmark_filter=BM_snitch_9core_traced
#include <benchmark/benchmark.h>

#include <cstdio>
#include <sstream>

#include "sim/run/snitch_run.h"

using namespace npusim::sim;

namespace {

void run_once(benchmark::State& state, const RunOptions& opt) {
  const auto sc = snitch::load_file(NPUSIM_SOURCE_DIR "/bench/snitch_9core.yaml");
  double accesses = 0, cores = 0;
  for (auto _ : state) {
    std::ostringstream out;
    const auto r = snitch::run(sc, opt, out);
    if (r.exit_code != 0) state.SkipWithError("the scenario failed");
    accesses = r.report["metrics"]["core_accesses"].get<double>();
    cores = static_cast<double>(r.report["cores"].size());
    state.counters["simulated_us"] = r.report["duration_ns"].get<double>() / 1e3;
    state.counters["tcdm_conflicts"] = r.report["metrics"]["tcdm.conflicts"].get<double>();
  }
  state.counters["cores"] = cores;
  state.counters["core_accesses"] = accesses;
  state.counters["core_accesses_per_s"] = benchmark::Counter(accesses, benchmark::Counter::kIsRate);
}

void BM_snitch_9core(benchmark::State& state) { run_once(state, RunOptions{}); }
BENCHMARK(BM_snitch_9core)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_snitch_9core_traced(benchmark::State& state) {
  RunOptions opt;
  opt.trace_path = "/tmp/npusim-bench-snitch-trace.json";
  run_once(state, opt);
  std::remove(opt.trace_path.c_str());
}
BENCHMARK(BM_snitch_9core_traced)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
