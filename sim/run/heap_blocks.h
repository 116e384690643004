// The live blocks of each heap, diffed between samples, as trace events: what the HTML
// report's heap map draws (docs/report.md). Only used when a trace is written.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "models/memory_stats.h"
#include "sim/run/scenario_runner.h"

namespace npusim::sim {

class HeapBlockTracker {
 public:
  struct Block {
    uint64_t base = 0, size = 0, ptr = 0;  // the block [base, base+size); ptr: what the caller got
  };
  // The heap `heap` ([pool_base, pool_base+pool_size)) holds `live` at `t_ps`: each block new
  // since the last call is an "alloc" instant, each one gone a "free" instant, on the trace
  // track heaps/blocks; the first call also sends the pool ("pool").
  void update(const std::string& heap, uint64_t pool_base, uint64_t pool_size,
              const std::vector<Block>& live, uint64_t t_ps,
              std::vector<std::unique_ptr<RunObserver>>& obs);

 private:
  struct HeapState {
    bool announced = false;
    std::map<uint64_t, Block> live;  // by base
  };
  std::map<std::string, HeapState> heaps_;
};

// The latency distribution of a memory as an instant for the HTML report's histogram:
// {count, quantiles_ns: 21 values, the 0 %, 5 %, ..., 100 % quantiles}.
void send_latency_quantiles(const std::string& memory, const models::LatencyHistogram& h,
                            double clock_ns, uint64_t t_ps,
                            std::vector<std::unique_ptr<RunObserver>>& obs);

}  // namespace npusim::sim
