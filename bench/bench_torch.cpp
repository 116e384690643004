// Host speed of torch-API op runs: the three tutorial ReLU kernels on 1 M floats. SystemC
// elaborates once per process, so run ONE benchmark per process:
//   bench_torch --benchmark_filter=BM_relu_standard
//   bench_torch --benchmark_filter=BM_relu_tcm
//   bench_torch --benchmark_filter=BM_relu_multicore
// bench_torch_unchecked runs the same on the kernels compiled with -DNPUSIM_TCM_CHECK=0 (the
// kernel-cost pass's TCM bounds check off): BM_relu_tcm of the two is what the check costs.
#include <benchmark/benchmark.h>

#include "firmware/torch/runtime.h"

namespace {

namespace tr = npusim::torchrt;

void run(benchmark::State& state, const char* op, bool multicore) {
  auto cfg = npusim::fw::NeuronPlatformConfig::gpsimd();
  cfg.memory.hbm.channels = 16;  // the neuron-gpsimd profile's HBM
  cfg.memory.hbm.tck_ns = 0.625;
  tr::OpSpec s;
  s.op = op;
  s.multicore = multicore;
  const int64_t n = 1 << 20;
  s.tensors = {tr::make_input({n}, torch::kFloat, "random(1)")};
  for (auto _ : state) {
    auto r = tr::run_op(cfg, s);
    if (r.failed) state.SkipWithError(r.fault_message.c_str());
    state.counters["sim_cycles"] = r.duration_ns * r.clock_ghz;
  }
  state.counters["elements_per_s"] = benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsRate);
}

void BM_relu_standard(benchmark::State& s) { run(s, "relu_standard", false); }
void BM_relu_tcm(benchmark::State& s) { run(s, "relu_tcm", false); }
void BM_relu_multicore(benchmark::State& s) { run(s, "relu_multicore", true); }
BENCHMARK(BM_relu_standard)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_relu_tcm)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_relu_multicore)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
