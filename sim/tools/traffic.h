// `npusim traffic`: characterise a memory. A generator drives a request pattern through the
// interconnect into the dataram or the HBM and measures bandwidth, latency and row hits
// (docs/timing-model.md shows what the numbers should be).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/hbm_energy.h"
#include "models/memory_config.h"

namespace CLI {
class App;
}

namespace npusim::sim {

struct Commands;
// `npusim traffic` (sim/cmd_traffic.cpp); called by register_more_commands.
void register_traffic_command(CLI::App& app, Commands& cmds);

// A bad option value; names the option and the value. Exit code 2.
class TrafficError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct TrafficOptions {
  std::string memory = "hbm";  // hbm | dataram
  std::string pattern = "seq";  // seq | random | stride:BYTES
  uint64_t requests = 100000;
  uint64_t size = 64;          // bytes per request
  uint64_t outstanding = 0;    // 0: as many as the memory queues (HBM: channels x queue_depth)
  std::optional<double> rate;  // requests per memory cycle; none = as fast as possible
  // Requests offered per memory cycle, in address order, stalling while the target queue is
  // full (head-of-line), as a DRAMsim3 driver does; 0 = off. With it, --outstanding 0 means
  // no limit but the memory's queues, and latency counts from the queue's acceptance.
  uint64_t issue_width = 0;
  double read_ratio = 1.0;
  uint64_t seed = 1;
  std::optional<uint64_t> span;  // bytes of the memory the pattern covers (see docs)
  // A memory configuration YAML (docs/memory-config.md), or a neuron-gpsimd platform profile (a
  // built-in name or a file): its memories. Empty: the built-in defaults.
  std::string platform;
  std::vector<models::Override> overrides;
  bool progress = false;  // --progress: the progress line on a pipe too (on a terminal: always)
  bool per_channel = false;  // --per-channel: the HBM energy of each unit too
  bool requests_given = false;  // --requests was on the command line (with --trace: at most)
  // --trace FILE: replay its requests instead of the pattern (sim/tools/traffic_trace.h), in
  // --trace-format (empty: from the file name or its first request line).
  std::string trace, trace_format;
  // --write-trace FILE: the stream the run issues, in --write-trace-format, else
  // --trace-format, else by the name (.stl), else dramsim3.
  std::string write_trace, write_trace_format;
};

// The memories `opt` names (platform and overrides). Throws models::ConfigError, InputError
// (a profile) or TrafficError.
models::MemoryConfig memory_of(const TrafficOptions& opt);

struct TrafficResult {
  std::string memory, pattern;
  uint64_t requests = 0, bytes = 0, outstanding = 0;  // requests: completed
  uint64_t planned = 0;                               // --requests
  std::string interrupted;                            // "SIGINT"/"SIGTERM" if one stopped it early
  double clock_ns = 1.0;  // the memory's clock: latency cycles are counted in it
  double elapsed_ns = 0.0;
  double bandwidth_gbps = 0.0;
  double latency_mean_cycles = 0.0;
  uint64_t latency_p50_cycles = 0, latency_p99_cycles = 0, latency_max_cycles = 0,
           latency_min_cycles = 0;
  // --read-ratio < 1: the reads completed and their own latency (the figures above count every
  // request, a posted write's latency included); none when no read completed.
  std::optional<uint64_t> reads;
  double read_latency_mean_cycles = 0.0;
  uint64_t read_latency_p50_cycles = 0, read_latency_p99_cycles = 0;
  std::optional<double> row_hit_rate;  // HBM only
  uint64_t row_hits = 0, row_misses = 0, row_conflicts = 0, refreshes = 0, bank_conflicts = 0;
  // HBM only: the energy over the run, HBM cycles [0, last completion] (models/hbm_energy.h),
  // summed over units, and each unit's (channel, or pseudo-channel) with --per-channel.
  std::optional<models::HbmEnergy> energy;
  std::vector<models::HbmEnergy> unit_energy;
  uint32_t pseudo_channels = 1;  // units per channel (names the units of unit_energy)
};

// Builds the platform, runs the pattern to completion in one simulation and returns the
// measurements. Under a StopSignals (sim/run/stop_signal.h) a SIGINT/SIGTERM ends the pattern
// at the next request: the result holds the requests completed and names the signal. SystemC elaborates once per process: call at most once. Throws TrafficError
// for bad options and models::ConfigError for a bad configuration.
TrafficResult run_traffic(const TrafficOptions& opt);

void print_text(const TrafficResult& r, std::ostream& out);
void print_json(const TrafficResult& r, std::ostream& out);

}  // namespace npusim::sim
