// `npusim heap replay`: an allocation trace in, the heap's life out (docs/heap-replay.md).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/input/input_error.h"

namespace npusim::sim {

struct ReplayOptions {
  std::string allocator = "xmem";  // xmem | neuron-hbm | neuron-dataram | neuron-libc
  uint64_t pool_base = 0x10000000;
  uint64_t pool_size = 0x10000;
  uint64_t blocks = 32;
  // xmem only: where the manager and the external header live. "after" places the header
  // right after the largest pool the trace initialises and the manager after the header;
  // "none" puts the header at the start of the pool (xmem's 64-descriptor mode).
  std::string header = "after";
  std::optional<uint64_t> header_base;
  std::optional<uint64_t> mgr_base;
  bool summary = false;
  bool progress = false;  // --progress: a progress line on stderr even when it is not a terminal
};

struct ReplayOp {
  enum Kind { kInit, kAlloc, kFree, kFreeSpace } kind;
  int line;
  uint64_t a = 0, b = 0;  // init: pool size, blocks; alloc: size, align; free: addr;
                          // free_space: align, qualifier (0 max, 1 start, 2 end)
};

// A line of a trace file that holds something: its number, its text without the `#` comment
// and its whitespace-separated tokens (never empty).
struct TraceLine {
  int line;
  std::string text;
  std::vector<std::string> tok;
};
std::vector<TraceLine> read_trace_lines(std::istream& in);

// Parses a whole ops file before anything runs; throws InputError.
std::vector<ReplayOp> parse_ops(std::istream& in, const std::string& file);

// Runs the trace and writes JSON Lines (or the summary table) to `out`. Returns the exit
// code: 0. Throws InputError for bad options or a trace that addresses unmapped memory.
int run_heap_replay(const ReplayOptions& opt, const std::vector<ReplayOp>& ops,
                    const std::string& file, std::ostream& out);


}  // namespace npusim::sim
