// What the HBM energy accounting costs `npusim traffic` (docs/performance.md, "Energy
// accounting"): requests per second of the sequential and the random stream through TLM, this
// build against another one without the accounting (NPUSIM_BEFORE=path/to/npusim), run as child
// processes in turn (before, after, before, ...) so that a drift of the shared machine's speed
// hits both alike. A rate is the CPU time (user + system, from wait4) of a 2 M-request run
// less that of a 200 k-request run: 1.8 M requests without the start-up. Counters: each
// build's median rate and after/before, the median of the pairs' ratios (the guard: >= 0.95),
// and the ratio of the two builds' fastest rates (a run a busy neighbour slowed is never the
// fastest: on a shared machine it scatters less than the median).
//   NPUSIM_BEFORE=/path/to/old/npusim bench_energy_cost
//   bench_energy_cost --benchmark_filter=random
// NPUSIM_ENERGY_COST_PAIRS (default 3) sets the pairs per stream. Without NPUSIM_BEFORE only
// this build's rates are measured.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "child_cpu.h"

namespace {

// CPU seconds of `npusim traffic --pattern P --requests N` (negative: it failed).
double run_cpu(const std::string& bin, const std::string& pattern, const std::string& requests) {
  return npusim::bench::child_cpu_seconds({bin, "traffic", "--pattern", pattern, "--requests", requests});
}

// Requests per CPU second of 1.8 M requests (a 2 M run less a 200 k run).
double rate(const std::string& bin, const std::string& pattern) {
  const double big = run_cpu(bin, pattern, "2000000"), small = run_cpu(bin, pattern, "200000");
  if (big <= 0 || small < 0 || big <= small) return -1;
  return 1.8e6 / (big - small);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void BM_traffic(benchmark::State& state, const std::string& pattern) {
  const char* before = std::getenv("NPUSIM_BEFORE");
  const char* env = std::getenv("NPUSIM_ENERGY_COST_PAIRS");
  const int pairs = env ? std::max(1, std::atoi(env)) : 3;
  std::vector<double> after_rates, before_rates, ratios;
  for (auto _ : state) {
    for (int i = 0; i < pairs; ++i) {
      double b = 0;
      if (before && *before) {
        b = rate(before, pattern);
        if (b <= 0) {
          state.SkipWithError("NPUSIM_BEFORE's npusim traffic failed");
          return;
        }
        before_rates.push_back(b);
      }
      const double a = rate(NPUSIM_BINARY, pattern);
      if (a <= 0) {
        state.SkipWithError("npusim traffic failed");
        return;
      }
      after_rates.push_back(a);
      if (b > 0) ratios.push_back(a / b);
    }
  }
  state.counters["req_per_s"] = median(after_rates);
  if (!before_rates.empty()) {
    state.counters["before_req_per_s"] = median(before_rates);
    state.counters["after_over_before"] = median(ratios);
    state.counters["fastest_after_over_before"] =
        *std::max_element(after_rates.begin(), after_rates.end()) /
        *std::max_element(before_rates.begin(), before_rates.end());
  }
}

BENCHMARK_CAPTURE(BM_traffic, seq, std::string("seq"))->Iterations(1)->Unit(benchmark::kSecond);
BENCHMARK_CAPTURE(BM_traffic, random, std::string("random"))->Iterations(1)->Unit(benchmark::kSecond);

}  // namespace

BENCHMARK_MAIN();
