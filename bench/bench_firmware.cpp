// Firmware on the simulated core, next to its host-side baselines, in one run:
//  - the xmem alloc/free sequence on the management core over TLM (DMI into dataram) versus
//    the same sequence on the host port;
//  - a TensorStream HBM -> dataram -> HBM copy through the 4 KiB bounce buffer with DMA versus
//    a plain memcpy of the same size.
//
// SystemC elaborates once per process, so one platform serves every benchmark: its core runs
// a loop that waits for a request, performs it and goes idle; each benchmark iteration posts
// a request and runs sc_start() until the simulation is idle again.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

#include "allocators/memory_port.h"
#include "allocators/neuron/neuron_heaps.h"
#include "bench/op_sequence.h"
#include "firmware/neuron_platform.h"

using namespace npusim;

namespace {

struct Harness {
  std::unique_ptr<fw::NeuronPlatform> p;
  sc_core::sc_event go;
  std::function<void(fw::Firmware&)> job;
  bool quit = false;

  Harness() {
    auto cfg = fw::NeuronPlatformConfig::gpsimd();
    cfg.firmware.layout.hbm_scratch_size = 0x7ff00000u;  // room for two 1 GiB tensors
    cfg.memory.hbm.window_size = cfg.firmware.layout.hbm_scratch_size;
    p = std::make_unique<fw::NeuronPlatform>("bench", cfg);
    p->run([this](fw::Firmware& f) {
      f.init_neuron_hbm_allocator();
      f.init_neuron_dataram_allocator();
      for (;;) {
        f.core().wait_for(go);
        if (quit) return;
        job(f);
        f.core().sync();
      }
    });
    sc_core::sc_start();  // runs the inits, then idles on `go`
  }
  // Runs `j` on the core; returns when the simulation is idle again.
  void run(std::function<void(fw::Firmware&)> j) {
    job = std::move(j);
    go.notify(sc_core::SC_ZERO_TIME);
    sc_core::sc_start();
  }
};

Harness& harness() {
  static Harness h;
  return h;
}

void BM_xmem_on_core_tlm(benchmark::State& state) {
  auto& h = harness();
  const auto& s = standard_sequence();
  std::vector<uint32_t> slot(12);
  const sc_core::sc_time t0 = sc_core::sc_time_stamp();
  for (auto _ : state) {
    h.run([&](fw::Firmware& f) { s.run(f.heaps().heap(alloc::neuron::HeapId::kDataram), slot); });
  }
  state.SetItemsProcessed(state.iterations() * s.ops.size());
  state.counters["sim_ns_per_op"] =
      (sc_core::sc_time_stamp() - t0).to_seconds() * 1e9 / double(state.iterations() * s.ops.size());
}
BENCHMARK(BM_xmem_on_core_tlm);

void BM_xmem_host_port_same_layout(benchmark::State& state) {
  alloc::HostMemory mem;
  alloc::neuron::NeuronLayout layout;
  alloc::neuron::map_regions(mem, layout);
  alloc::neuron::NeuronHeaps<alloc::HostMemory> heaps(mem, layout);
  heaps.init_neuron_dataram_allocator();
  const auto& s = standard_sequence();
  std::vector<uint32_t> slot(12);
  for (auto _ : state) {
    s.run(heaps.heap(alloc::neuron::HeapId::kDataram), slot);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * s.ops.size());
}
BENCHMARK(BM_xmem_host_port_same_layout);

// The baseline runs first, before the simulation holds a GiB of store pages: after them its
// fresh 2 GiB of buffers sometimes met page reclaim (one run: 1.1 s instead of 80 ms).
void BM_memcpy(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0)) << 20;
  std::vector<char> a(n, 1), b(n, 0);
  for (auto _ : state) {
    std::memcpy(b.data(), a.data(), n);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * n);
}
BENCHMARK(BM_memcpy)->Arg(128)->Arg(1024)->Unit(benchmark::kMillisecond);

void BM_tensor_stream_dma(benchmark::State& state) {
  auto& h = harness();
  const uint64_t n = static_cast<uint64_t>(state.range(0)) << 20;
  // Source and destination are one tensor (copied onto itself): two 1 GiB tensors do not fit
  // the 2 GiB window of the 32-bit management core. The work is the same.
  uint64_t a = 0;
  h.run([&](fw::Firmware& f) { f.neuron_hbm_allocate(static_cast<uint32_t>(n), &a, 0); });
  const uint64_t b = a;
  if (a == 0) {
    state.SkipWithError("HBM allocation failed");
    return;
  }
  // The tensor holds data before the copy, as an input tensor does (and as BM_memcpy's
  // buffers are written before its timed loop): the first touch of host memory for the
  // sparse store is not part of the copy (docs/performance.md measures it separately).
  std::vector<uint32_t> chunk(1 << 18);
  for (uint64_t off = 0; off < n; off += chunk.size() * 4) {
    for (size_t i = 0; i < chunk.size(); ++i) chunk[i] = static_cast<uint32_t>(off / 4 + i);
    h.p->core.poke(a + off, chunk.data(), std::min<uint64_t>(n - off, chunk.size() * 4));
  }
  const sc_core::sc_time t0 = sc_core::sc_time_stamp();
  for (auto _ : state) h.run([&](fw::Firmware& f) { f.tensor_stream_copy(b, a, n); });
  uint32_t probe = 0;
  h.p->core.peek(a + n - 4, &probe, 4);
  if (probe != static_cast<uint32_t>(n / 4 - 1)) state.SkipWithError("the copy changed the tensor");
  state.SetBytesProcessed(state.iterations() * n);
  state.counters["sim_GBps"] = double(n) * double(state.iterations()) /
                               (sc_core::sc_time_stamp() - t0).to_seconds() / 1e9;
  h.run([&](fw::Firmware& f) { f.neuron_hbm_deallocate(a); });
}
BENCHMARK(BM_tensor_stream_dma)->Arg(16)->Arg(128)->Arg(1024)->Unit(benchmark::kMillisecond)->Iterations(2);


}  // namespace
