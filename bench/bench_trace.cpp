// Cost of writing trace events: Chrome trace-event JSON and VCD. Items/s = events per second.
// Most variants write to /dev/null (formatting and buffering only); the *_file variants write a
// real file in the temp directory (adds the copy into the page cache).
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "sim/output/chrome_trace.h"
#include "sim/output/vcd_writer.h"

using npusim::sim::ChromeTrace;
using npusim::sim::VcdWriter;

namespace {

std::string temp_file(const char* ext) {
  return (std::filesystem::temp_directory_path() /
          ("npusim_bench_" + std::to_string(::getpid()) + ext))
      .string();
}

// A DMA-like slice every 40.5 ns of simulated time, ps-resolution timestamps.
void slices(benchmark::State& state, const std::string& path, bool with_args) {
  ChromeTrace t(path);
  const int k = t.track("dma", "channel 0");
  double ts = 0;
  for (auto _ : state) {
    if (with_args)
      t.slice(k, "copy", ts, 0.032125, {{"src", 0x100000000ull}, {"dst", 0x80000}, {"len", 4096}});
    else
      t.slice(k, "copy", ts, 0.032125);
    ts += 0.0405;
  }
  t.close();
  state.SetItemsProcessed(state.iterations());
}

void BM_chrome_slice(benchmark::State& state) {
  slices(state, "/dev/null", false);
}
void BM_chrome_slice_args(benchmark::State& state) {
  slices(state, "/dev/null", true);
}
// Args built once: the writer's share of the cost (serialising them).
void BM_chrome_slice_prebuilt_args(benchmark::State& state) {
  ChromeTrace t("/dev/null");
  const int k = t.track("dma", "channel 0");
  const nlohmann::json args = {{"src", 0x100000000ull}, {"dst", 0x80000}, {"len", 4096}};
  double ts = 0;
  for (auto _ : state) {
    t.slice(k, "copy", ts, 0.032125, args);
    ts += 0.0405;
  }
  t.close();
  state.SetItemsProcessed(state.iterations());
}
// The observers' fast path: args written straight into the buffer (TraceArg), no json object.
void BM_chrome_slice_fast_args(benchmark::State& state) {
  ChromeTrace t("/dev/null");
  const int k = t.track("dma", "channel 0");
  double ts = 0;
  for (auto _ : state) {
    t.slice_fast(k, "copy", ts, 0.032125,
                 {npusim::sim::TraceArg::hex("src", 0x100000000ull),
                  npusim::sim::TraceArg::hex("dst", 0x80000), npusim::sim::TraceArg::uint("len", 4096)});
    ts += 0.0405;
  }
  t.close();
  state.SetItemsProcessed(state.iterations());
}
// A filter that drops the track: what a filtered-out event still costs.
void BM_chrome_slice_filtered_out(benchmark::State& state) {
  ChromeTrace t("/dev/null");
  t.set_filter({"heaps"});
  const int k = t.track("dma", "channel 0");
  double ts = 0;
  for (auto _ : state) {
    t.slice_fast(k, "copy", ts, 0.032125, {npusim::sim::TraceArg::uint("len", 4096)});
    ts += 0.0405;
  }
  t.close();
  state.SetItemsProcessed(state.iterations());
}
void BM_chrome_slice_file(benchmark::State& state) {
  const std::string path = temp_file(".json");
  slices(state, path, false);
  std::remove(path.c_str());
}

void BM_chrome_counter(benchmark::State& state) {
  ChromeTrace t("/dev/null");
  double ts = 0, v = 0;
  for (auto _ : state) {
    t.counter("heaps", "dataram", ts, {{"free", v}, {"used", 65536 - v}});
    ts += 0.001;
    v += 64;
  }
  t.close();
  state.SetItemsProcessed(state.iterations());
}

void BM_vcd_change(benchmark::State& state) {
  VcdWriter w("/dev/null");
  const auto s = w.integer("heaps.dataram.free_bytes", 32);
  uint64_t t = 0, v = 0;
  for (auto _ : state) {
    w.change(t, s, v & 0xffffffff);
    t += 1000;
    v += 64;
  }
  w.close();
  state.SetItemsProcessed(state.iterations());
}

}  // namespace

BENCHMARK(BM_chrome_slice);
BENCHMARK(BM_chrome_slice_args);
BENCHMARK(BM_chrome_slice_prebuilt_args);
BENCHMARK(BM_chrome_slice_fast_args);
BENCHMARK(BM_chrome_slice_filtered_out);
BENCHMARK(BM_chrome_slice_file)->Iterations(1000000);
BENCHMARK(BM_chrome_counter);
BENCHMARK(BM_vcd_change);
BENCHMARK_MAIN();
