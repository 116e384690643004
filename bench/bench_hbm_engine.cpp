// Engine to engine: npusim's HBM controller driven directly, no TLM, as a DRAMsim3 driver
// drives its MemorySystem (bench/compare_dramsim3.sh runs both side by side). The streams are
// those of `npusim traffic` (bench/hbm_streams.h) on the parameters of DRAMsim3's
// HBM2_8Gb_x128.ini (docs/timing-model.md, "Against DRAMsim3"):
//
//   saturated   --issue-width 8: up to 8 requests offered per memory cycle, in order; a
//               request that found its queue full holds back the rest (head-of-line)
//   o1          one request outstanding: the next is offered when the previous completes
//
// Each benchmark replays 100000 requests (20000 at one outstanding); items/s is requests per
// host second, `GBps` the simulated bandwidth (the same workload as the DRAMsim3 run).
#include <benchmark/benchmark.h>

#include <string>

#include "bench/hbm_streams.h"
#include "models/hbm/controller.h"
#include "models/memory_config.h"

namespace {

using npusim::models::HbmConfig;

HbmConfig dramsim3_hbm2() {
  // HBM2_8Gb_x128.ini: 8 channels, 4 x 4 banks, 32768 rows of 2 KiB, BL4; tCCD_S is at least
  // the burst (DRAMsim3 takes max(BL/2, tCCD_S)); rorabgbachco, one rank; a write buffer of
  // trans_queue_size.
  HbmConfig c = npusim::models::load_memory_config(
                    "", "<bench>",
                    {{"hbm.rows", "32768"}, {"hbm.tCCD_S", "2"}, {"hbm.tCCD_L", "2"},
                     {"hbm.tRTP", "4"}, {"hbm.address_mapping", "rorabgbachco"},
                     {"hbm.write_queue_depth", "32"}})
                    .hbm;
  return c;
}

void replay(benchmark::State& state, const std::string& pattern, bool saturated,
            double read_ratio) {
  const HbmConfig cfg = dramsim3_hbm2();
  const uint64_t n = saturated ? 100000 : 20000;
  const uint64_t span = read_ratio < 1.0 ? (1ull << 30) : cfg.size();
  const auto stream = npusim::bench::hbm_stream(pattern, n, read_ratio, 1, span);
  double gbps = 0;
  for (auto _ : state) {
    auto ctrl = npusim::models::hbm::make_controller(cfg);
    npusim::models::RowCounts rows;
    uint64_t cycle = 0, on_cycle = 0, last_done = 0;
    for (const auto& r : stream) {
      if (saturated && on_cycle == 8) ++cycle, on_cycle = 0;
      const uint64_t done = ctrl->schedule(r.offset, 64, r.write, cycle, rows);
      last_done = std::max(last_done, done);
      if (saturated) {
        const uint64_t admit = ctrl->last_admit();
        if (admit > cycle) cycle = admit, on_cycle = 0;
        ++on_cycle;
      } else {
        cycle = done;
      }
    }
    benchmark::DoNotOptimize(rows);
    gbps = static_cast<double>(n * 64) / static_cast<double>(last_done);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
  state.counters["GBps"] = gbps;
}

#define HBM_CASE(name, pattern, saturated, ratio)                            \
  void name(benchmark::State& s) { replay(s, pattern, saturated, ratio); } \
  BENCHMARK(name)->Unit(benchmark::kMillisecond)

HBM_CASE(BM_seq_saturated, "seq", true, 1.0);
HBM_CASE(BM_random_saturated, "random", true, 1.0);
HBM_CASE(BM_stride256_saturated, "stride:256", true, 1.0);
HBM_CASE(BM_stride4k_saturated, "stride:4096", true, 1.0);
HBM_CASE(BM_stride16k_saturated, "stride:16384", true, 1.0);
HBM_CASE(BM_seq_o1, "seq", false, 1.0);
HBM_CASE(BM_random_o1, "random", false, 1.0);
HBM_CASE(BM_stride256_o1, "stride:256", false, 1.0);
HBM_CASE(BM_stride4k_o1, "stride:4096", false, 1.0);
HBM_CASE(BM_stride16k_o1, "stride:16384", false, 1.0);
HBM_CASE(BM_random_mix_saturated, "random", true, 2.0 / 3.0);
HBM_CASE(BM_seq_mix_saturated, "seq", true, 2.0 / 3.0);

}  // namespace

BENCHMARK_MAIN();
