// What the runs of the Neuron platform (a management core's steps, a torch op on the GPSIMD
// cores) report about their heaps, memories and DMA channels: the JSON report's members, and
// the trace events the HTML report draws from (heap counters and blocks, each memory's
// bandwidth over time and latency distribution). docs/report.md.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "allocators/neuron/neuron_heaps.h"
#include "allocators/neuron/neuron_layout.h"
#include "models/core.h"
#include "models/dma_engine.h"
#include "models/memory_stats.h"
#include "sim/run/heap_blocks.h"

namespace npusim::sim {

// An xmem heap of a firmware as the reports see it: its operations counted, its state sampled
// after each of them.
// Untimed view of device memory through the core (debug transport): a memory port
// (allocators/memory_port.h) for reading heaps without time or statistics.
struct DebugPort {
  models::Core& c;
  uint32_t load32(uint64_t a) {
    uint32_t v;
    c.peek(a, &v, 4);
    return v;
  }
  void store32(uint64_t a, uint32_t v) { c.poke(a, &v, 4); }
  void read(uint64_t a, void* d, size_t n) { c.peek(a, d, n); }
  void write(uint64_t a, const void* s, size_t n) { c.poke(a, s, n); }
  void compute(uint64_t) {}
};

struct HeapTrack {
  bool initialised = false;
  uint64_t peak_used = 0, peak_descriptors = 0, alloc_failures = 0, frees = 0, allocs = 0;
  uint64_t free_errors = 0;
  double worst_fragmentation = 0;
  uint64_t free_bytes = 0, allocated_bytes = 0, largest_free = 0, descriptors = 0;
  uint64_t unused_fw = 0, unused_true = 0, pool_size = 0, num_blocks = 0;
  // An allocation (is_alloc) or a free finished with the wrapper's status (0: done).
  void count_op(bool is_alloc, int status) {
    if (is_alloc) {
      ++allocs;
      if (status != 0) ++alloc_failures;
    } else {
      ++frees;
      if (status != 0) ++free_errors;
    }
  }
};

// Samples heap `id` of the firmware whose bookkeeping `core` reaches (at the addresses of
// `layout`) by debug transport: no time, no statistics. Updates `t`; with observers, sends
// the heap's counters and its blocks (through `blocks`, as heap `name`) at the core's time.
// An uninitialised heap is left alone; a heap that cannot be walked keeps its last values.
void sample_heap(models::Core& core, const alloc::neuron::NeuronLayout& layout, alloc::neuron::HeapId id,
                 const std::string& name, HeapTrack& t, HeapBlockTracker& blocks,
                 std::vector<std::unique_ptr<RunObserver>>& obs, std::optional<uint64_t> now_ps = std::nullopt);

// The report's members: a heap, a memory (statistics of its b_transport traffic), a DMA channel.
nlohmann::ordered_json heap_json(const HeapTrack& t, uint64_t exhaustion_events);
nlohmann::ordered_json memory_json(const models::MemoryStats& s, double clock_ns);
nlohmann::ordered_json channel_json(size_t ch, const models::DmaChannelStats& c);

// At the end of a run, for the HTML report: a memory's latency quantiles and its bytes per
// window of time (RunObserver::memory_bandwidth).
void send_memory_series(const std::string& memory, const models::MemoryStats& s, double clock_ns,
                        uint64_t end_ps, std::vector<std::unique_ptr<RunObserver>>& obs);

}  // namespace npusim::sim
