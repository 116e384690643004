#include "models/sram_timing.h"

#include <algorithm>

namespace npusim::models {

SramTiming::SramTiming(const SramConfig& c) : cfg_(c), bank_free_(c.banks, 0) {}

SramAccess SramTiming::access(uint64_t offset, uint64_t len, uint64_t arrival_cycles) {
  if (len == 0) len = 1;
  const uint64_t first = offset / cfg_.width_bytes;
  const uint64_t last = (offset + len - 1) / cfg_.width_bytes;
  const uint64_t words = last - first + 1;
  const uint64_t banks = bank_free_.size();
  uint64_t bank = first % banks;
  if (words > banks) {
    // A long access to idle banks (DMA bursts): word i starts at arrival + i, and a bank it
    // finds busy was last used by word i - banks of this same access, which freed it at
    // arrival + i - banks + 1 <= arrival + i. So no word waits, and only the last `banks`
    // words leave a trace in the bank state. Same result as the loop below.
    bool idle = true;
    for (uint64_t f : bank_free_) idle &= f <= arrival_cycles;
    if (idle) {
      const uint64_t end = arrival_cycles + words - 1;  // start of the last word
      for (uint64_t i = words - banks; i < words; ++i)
        bank_free_[(bank + i) % banks] = arrival_cycles + i + 1;
      return SramAccess{end + cfg_.latency_cycles, words, 0};
    }
  }
  uint64_t start = arrival_cycles;
  uint64_t conflicts = 0;
  for (uint64_t w = first; w <= last; ++w) {
    if (w != first) {
      ++start;  // one word per cycle through the port
      if (++bank == banks) bank = 0;
    }
    uint64_t& free = bank_free_[bank];
    if (free > start) {
      start = free + cfg_.bank_conflict_cycles;
      ++conflicts;
    }
    free = start + 1;
  }
  return SramAccess{start + cfg_.latency_cycles, words, conflicts};
}

}  // namespace npusim::models
