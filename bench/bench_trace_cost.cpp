// What tracing costs a whole `npusim run` (at most 1.5x the untraced host time):
// every shipped scenario, a loop of the default scenario's DMA transfers (bench/dma_loop.yaml)
// and a loop of a million markers (bench/markers_1m.yaml), each run as a child process without
// and with `--trace`, in turn (untraced, traced, untraced, ...), so that a drift of the shared
// machine's speed hits both alike. The time is the child's CPU time (user + system, from
// wait4); the counters give both medians and traced/untraced, the median of the pairs' ratios.
//   bench_trace_cost                                  every scenario
//   bench_trace_cost --benchmark_filter=dma_loop      one of them
// NPUSIM_TRACE_COST_PAIRS (default 5) sets the pairs per scenario; NPUSIM_BIN another npusim
// to measure (an older build, for a before/after).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "child_cpu.h"

namespace {

namespace fs = std::filesystem;

struct Case {
  std::string name;
  std::vector<std::string> args;  // after `npusim run`
};

// CPU seconds of one child run, or a negative value when it could not run or failed (exit 1,
// a failed expectation, still counts as a run).
double run_cpu(std::vector<std::string> args) {
  const char* bin = std::getenv("NPUSIM_BIN");
  args.insert(args.begin(), {bin && *bin ? bin : NPUSIM_BINARY, "run"});
  return npusim::bench::child_cpu_seconds(std::move(args), 1);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void BM_trace_cost(benchmark::State& state, const Case& c) {
  const std::string trace = (fs::temp_directory_path() / ("npusim_trace_cost_" + std::to_string(::getpid()) + ".json")).string();
  const char* env = std::getenv("NPUSIM_TRACE_COST_PAIRS");
  const int pairs = env ? std::max(1, std::atoi(env)) : 5;
  std::vector<double> plain, traced, ratio;
  double total = 0;
  for (auto _ : state) {
    for (int i = 0; i < pairs; ++i) {
      const double a = run_cpu(c.args);
      auto targs = c.args;
      targs.insert(targs.end(), {"--trace", trace});
      const double b = run_cpu(targs);
      if (a <= 0 || b <= 0) {
        state.SkipWithError("npusim run failed");
        fs::remove(trace);
        return;
      }
      plain.push_back(a), traced.push_back(b), ratio.push_back(b / a);
      total += a + b;
    }
    state.SetIterationTime(total);  // CPU seconds of all its runs
  }
  state.counters["trace_MB"] = static_cast<double>(fs::file_size(trace)) / 1e6;
  fs::remove(trace);
  state.counters["untraced_ms"] = median(plain) * 1e3;
  state.counters["traced_ms"] = median(traced) * 1e3;
  state.counters["traced/untraced"] = median(ratio);
}

std::vector<Case> cases() {
  const fs::path src = NPUSIM_SOURCE_DIR;
  std::vector<Case> v;
  for (const char* dir : {"scenarios", "scenarios/snitch"}) {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(src / dir))
      if (e.path().extension() == ".yaml") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      Case c{std::string(dir) == "scenarios" ? f.stem().string() : "snitch/" + f.stem().string(), {}};
      // The two scenarios whose op comes from a plugin built by firmware/torch/CMakeLists.txt.
      if (c.name == "torch_plugin_clamp") c.args = {"--plugin", NPUSIM_PLUGIN_CLAMP};
      if (c.name == "torch_opbuild_negate") c.args = {"--plugin", NPUSIM_PLUGIN_NEGATE};
      c.args.push_back(f.string());
      v.push_back(c);
    }
  }
  v.push_back({"dma_loop", {(src / "bench/dma_loop.yaml").string()}});
  v.push_back({"markers_1m", {(src / "bench/markers_1m.yaml").string()}});
  return v;
}

const bool registered = [] {
  for (const auto& c : cases())
    benchmark::RegisterBenchmark(("BM_trace_cost/" + c.name).c_str(), BM_trace_cost, c)
        ->Iterations(1)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
  return true;
}();

}  // namespace

BENCHMARK_MAIN();
