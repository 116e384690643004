#include "models/sram_timing.h"

#include <algorithm>

namespace npusim::models {

SramTiming::SramTiming(const SramConfig& c) : cfg_(c), bank_free_(c.banks, 0) {}

SramAccess SramTiming::access(uint64_t offset, uint64_t len, uint64_t arrival_cycles) {
  if (len == 0) len = 1;
  const uint64_t first = offset / cfg_.width_bytes;
  const uint64_t last = (offset + len - 1) / cfg_.width_bytes;
  uint64_t start = arrival_cycles;
  uint64_t conflicts = 0;
  for (uint64_t w = first; w <= last; ++w) {
    if (w != first) ++start;  // one word per cycle through the port
    uint64_t& free = bank_free_[w % cfg_.banks];
    if (free > start) {
      start = free + cfg_.bank_conflict_cycles;
      ++conflicts;
    }
    free = start + 1;
  }
  return SramAccess{start + cfg_.latency_cycles, last - first + 1, conflicts};
}

}  // namespace npusim::models
