#include "sim/run/heap_blocks.h"

#include <fmt/format.h>

namespace npusim::sim {

namespace {
std::string hex(uint64_t v) { return fmt::format("0x{:x}", v); }
}  // namespace

void HeapBlockTracker::update(const std::string& heap, uint64_t pool_base, uint64_t pool_size,
                              const std::vector<Block>& live, uint64_t t_ps,
                              std::vector<std::unique_ptr<RunObserver>>& obs) {
  HeapState& s = heaps_[heap];
  if (!s.announced) {
    s.announced = true;
    for (auto& o : obs)
      o->instant("heaps", "pool", t_ps,
                 nlohmann::json{{"heap", heap}, {"base", hex(pool_base)}, {"size", pool_size}});
  }
  std::map<uint64_t, Block> now;
  for (const Block& b : live) now.emplace(b.base, b);
  // Gone, or replaced by a block of another size at the same base: freed.
  for (const auto& [base, b] : s.live) {
    const auto it = now.find(base);
    if (it != now.end() && it->second.size == b.size && it->second.ptr == b.ptr) continue;
    for (auto& o : obs)
      o->instant("heaps", "free", t_ps, nlohmann::json{{"heap", heap}, {"base", hex(base)}});
  }
  for (const auto& [base, b] : now) {
    const auto it = s.live.find(base);
    if (it != s.live.end() && it->second.size == b.size && it->second.ptr == b.ptr) continue;
    for (auto& o : obs)
      o->instant("heaps", "alloc", t_ps,
                 nlohmann::json{{"heap", heap}, {"base", hex(base)}, {"size", b.size}, {"ptr", hex(b.ptr)}});
  }
  s.live = std::move(now);
}

void send_latency_quantiles(const std::string& memory, const models::LatencyHistogram& h,
                            double clock_ns, uint64_t t_ps,
                            std::vector<std::unique_ptr<RunObserver>>& obs) {
  if (obs.empty() || h.count() == 0) return;
  nlohmann::json q = nlohmann::json::array();
  for (int i = 0; i <= 20; ++i) q.push_back(static_cast<double>(h.percentile(i / 20.0)) * clock_ns);
  for (auto& o : obs)
    o->instant("memories", memory + " latency", t_ps,
               nlohmann::json{{"memory", memory}, {"count", h.count()}, {"quantiles_ns", q}});
}

}  // namespace npusim::sim
