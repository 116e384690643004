#include "sim/run/memory_report.h"

#include "allocators/xmem/xmem_heap.h"
#include "sim/run/pipeline.h"

namespace npusim::sim {

namespace {

using Json = nlohmann::ordered_json;

}  // namespace

void sample_heap(models::Core& core, const alloc::neuron::NeuronLayout& l, alloc::neuron::HeapId id,
                 const std::string& name, HeapTrack& t, HeapBlockTracker& blocks,
                 std::vector<std::unique_ptr<RunObserver>>& obs, std::optional<uint64_t> now_ps) {
  using alloc::neuron::HeapId;
  DebugPort port{core};
  const uint32_t mgr = id == HeapId::kHbm ? l.hbm_mgr() : id == HeapId::kDataram ? l.dataram_mgr() : l.libc_mgr();
  alloc::xmem::Heap<DebugPort> h(port, mgr);
  const auto c = h.counters();
  if (c.num_blocks == 0) return;  // not initialised (or init failed)
  t.initialised = true;
  t.free_bytes = c.free_bytes;
  t.allocated_bytes = c.allocated_bytes;
  t.unused_fw = c.unused_bytes;
  t.pool_size = c.buffer_size;
  t.num_blocks = c.num_blocks;
  const uint64_t now = now_ps ? *now_ps : to_ps(core.now());
  try {
    t.largest_free = h.get_free_space(1, alloc::xmem::FreeSpaceQual::kMax);
    t.descriptors = h.descriptors_used();
    t.unused_true = h.true_unused_bytes();
    if (!obs.empty()) {
      std::vector<HeapBlockTracker::Block> live;
      h.walk([&](const alloc::xmem::BlockInfo& b) {
        if (!b.free) live.push_back({b.buffer, b.size, b.aligned});
      });
      blocks.update(name, c.buffer, c.buffer_size, live, now, obs);
    }
  } catch (const std::exception&) {
    // A corrupted heap cannot be walked; the values keep their last good state.
  }
  t.peak_used = std::max<uint64_t>(t.peak_used, c.allocated_bytes);
  t.peak_descriptors = std::max(t.peak_descriptors, t.descriptors);
  if (c.free_bytes > 0)
    t.worst_fragmentation = std::max(t.worst_fragmentation,
                                     1.0 - static_cast<double>(t.largest_free) / c.free_bytes);
  for (auto& o : obs) o->heap(name, now, t.free_bytes, t.largest_free, t.descriptors);
}

Json heap_json(const HeapTrack& t, uint64_t exhaustion_events) {
  return Json{{"pool_size", t.pool_size},
              {"descriptors", t.num_blocks},
              {"allocations", t.allocs},
              {"alloc_failures", t.alloc_failures},
              {"frees", t.frees},
              {"free_errors", t.free_errors},
              {"peak_used", t.peak_used},
              {"descriptors_peak", t.peak_descriptors},
              {"exhaustion_events", exhaustion_events},
              {"worst_fragmentation", t.worst_fragmentation},
              {"final_free_bytes", t.free_bytes},
              {"final_allocated_bytes", t.allocated_bytes},
              {"final_largest_free", t.largest_free},
              {"unused_bytes_firmware", t.unused_fw},
              {"unused_bytes_true", t.unused_true}};
}

Json channel_json(size_t ch, const models::DmaChannelStats& c) {
  const double busy_ns = c.busy.to_seconds() * 1e9;
  return Json{{"channel", ch},
              {"descriptors", c.descriptors},
              {"bytes", c.bytes},
              {"bursts", c.bursts},
              {"rejected", c.rejected},
              {"errors", c.errors},
              {"busy_ns", busy_ns},
              {"throughput_gbps", busy_ns > 0 ? static_cast<double>(c.bytes) / busy_ns : 0.0}};
}

Json memory_json(const models::MemoryStats& s, double clock_ns) {
  return Json{{"reads", s.reads},
              {"writes", s.writes},
              {"bytes", s.bytes()},
              {"errors", s.errors},
              {"latency_mean_ns", s.latency_cycles.mean() * clock_ns},
              {"latency_p99_ns", static_cast<double>(s.latency_cycles.percentile(0.99)) * clock_ns},
              {"latency_max_ns", static_cast<double>(s.latency_cycles.max()) * clock_ns},
              {"row_hits", s.row_hits},
              {"row_misses", s.row_misses},
              {"row_conflicts", s.row_conflicts},
              {"row_hit_rate", s.row_hit_rate()},
              {"bank_conflicts", s.bank_conflicts},
              {"refreshes", s.refreshes}};
}

void send_memory_series(const std::string& memory, const models::MemoryStats& s, double clock_ns,
                        uint64_t end_ps, std::vector<std::unique_ptr<RunObserver>>& obs) {
  send_latency_quantiles(memory, s.latency_cycles, clock_ns, end_ps, obs);
  for (auto& o : obs)
    o->memory_bandwidth(memory, static_cast<uint64_t>(s.bandwidth.window_ns * 1e3 + 0.5), s.bandwidth.bytes);
}

}  // namespace npusim::sim
