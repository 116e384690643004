// `npusim heap replay --allocator snitch-l1|snitch-l3`: a trace of Snitch alloc_v2 calls run
// on one core's exact allocator model, JSON Lines out (docs/snitch-allocator.md).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>

#include "allocators/snitch/snitch_config.h"

namespace npusim::sim {

struct SnitchReplayOptions {
  std::string allocator = "snitch-l1";  // snitch-l1 | snitch-l3
  bool progress = false;                // --progress: a progress line even on a pipe
  uint64_t core_idx = 0;                // 0..compute_cores-1 compute cores, compute_cores = DM
  uint64_t compute_cores = alloc::snitch::SnitchConfig::kDefaultComputeCores;  // + 1 DM core
  // Replaces the address the init function aligns up to 8 (L1: the TCDM start; L3: _edram).
  std::optional<uint64_t> base;
  // Replaces the computed end (L1: CLS base - stacks - 128; L3: SNRT_L3_END_ADDR).
  std::optional<uint64_t> end;
  // L1 only: bytes of the runtime's own first allocation before the trace (the barrier
  // counter); unset means the platform default (4), 0 means none.
  std::optional<uint64_t> startup_bytes;
  // Stop after the first trapping op, as the firmware would (exit code 1); otherwise every
  // trap is recorded in its line and the trace goes on from the advanced next.
  bool stop_on_trap = false;
};

// Parses the whole trace first (nothing is printed for a malformed file), then runs it and
// writes one JSON object per op to `out`. Returns 0, or 1 when stop_on_trap ended the run.
// Throws InputError (sim/tools/heap_replay.h) naming file, line and token for a malformed line, and
// naming "command line" for bad options.
int run_snitch_replay(const SnitchReplayOptions& opt, std::istream& ops, const std::string& file,
                      std::ostream& out);

}  // namespace npusim::sim
