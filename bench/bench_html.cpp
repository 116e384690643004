// Reading a run for the HTML report (sim/output/report_data.h): a trace of 200 000 events like a
// Neuron run's (calls, DMA transfers, heap counters, heap blocks, markers), read with the fast
// line scanner and with a JSON value per line. Items/s = trace events per second.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "sim/output/chrome_trace.h"
#include "sim/output/html_report.h"
#include "sim/output/report_data.h"

using namespace npusim::sim;

namespace {

constexpr int kRounds = 40000;  // 5 events each

struct Files {
  std::string report, trace;
  Files() {
    const auto dir = std::filesystem::temp_directory_path();
    report = (dir / ("npusim_bench_html_" + std::to_string(::getpid()) + ".report.json")).string();
    trace = (dir / ("npusim_bench_html_" + std::to_string(::getpid()) + ".trace.json")).string();
    std::ofstream(report) << R"({"npusim_report_version": 1, "scenario": {"name": "bench"}})";
    ChromeTrace t(trace);
    const int core = t.track("mgmt_core", "firmware calls", 0), dma = t.track("dma", "channel 0", 0);
    const int blocks = t.track("heaps", "blocks", 0);
    for (int i = 0; i < kRounds; ++i) {
      const double ts = i * 0.5;
      t.slice(core, "neuron_dataram_allocate", ts, 0.1, {{"args", "size=1024 align=0"}, {"status", 0}});
      t.slice(dma, "1024 B", ts + 0.1, 0.2, {{"src", "0x100000000"}, {"dst", "0x80440"}, {"len", 1024}});
      t.counter("heaps", "dataram bytes", ts, {{"free_bytes", 60000.0 - i % 64}, {"largest_free", 50000.0}});
      t.instant(blocks, i % 2 ? "free" : "alloc", ts, {{"heap", "dataram"}, {"base", "0x80440"}, {"size", 1024}});
      t.instant(core, "tick", ts + 0.3, {{"step", "bench.yaml:12:9"}});
    }
    t.close();
  }
  ~Files() {
    std::filesystem::remove(report);
    std::filesystem::remove(trace);
  }
};

const Files& files() {
  static const Files f;
  return f;
}

void BM_load_run_data(benchmark::State& state) {
  HtmlLimits lim;
  lim.fast_scan = state.range(0) != 0;
  for (auto _ : state) benchmark::DoNotOptimize(load_run_data(files().report, files().trace, lim));
  state.SetItemsProcessed(state.iterations() * kRounds * 5);
  state.SetLabel(lim.fast_scan ? "fast scanner" : "JSON per line");
}
BENCHMARK(BM_load_run_data)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond);

void BM_html_page(benchmark::State& state) {
  const auto data = load_run_data(files().report, files().trace);
  for (auto _ : state) benchmark::DoNotOptimize(html_report({data}));
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(html_report({data}).size()));
}
BENCHMARK(BM_html_page)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
