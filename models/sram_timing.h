// SRAM timing (dataram, TCM, TCDM): plain C++. An access occupies one bank per port word it
// touches, one cycle each; words go to banks round-robin (bank = word % banks). A word whose
// bank is still busy waits for it and pays bank_conflict_cycles on top. The access completes
// latency_cycles after its last word started.
#pragma once

#include <cstdint>
#include <vector>

#include "models/memory_config.h"

namespace npusim::models {

struct SramAccess {
  uint64_t done_cycles;
  uint64_t words;
  uint64_t conflicts;
};

class SramTiming {
 public:
  explicit SramTiming(const SramConfig& c);
  SramAccess access(uint64_t offset, uint64_t len, uint64_t arrival_cycles);

 private:
  SramConfig cfg_;
  std::vector<uint64_t> bank_free_;
};

}  // namespace npusim::models
