// A request to stop the simulated program early, set by the host program: npusim's run pipeline
// sets it on the first SIGINT or SIGTERM (sim/run/stop_signal.h). Firmware whose calls can run
// long polls it at its call boundaries and ends the program there, so the run's outputs still
// describe everything simulated so far. Header-only: the torch runtime and npusim share one flag.
#pragma once

#include <atomic>
#include <stdexcept>
#include <string>

namespace npusim::fw {

// The signal number of the request (SIGINT, SIGTERM), 0 when none.
inline std::atomic<int> g_stop_request{0};

inline bool stop_requested() { return g_stop_request.load(std::memory_order_relaxed) != 0; }

// Thrown at a call boundary after a stop request; the run reports it as "interrupted".
class StopRequested : public std::runtime_error {
 public:
  explicit StopRequested(const std::string& where)
      : std::runtime_error(where + (where.empty() ? "" : ": ") + "stopped by a stop request (SIGINT/SIGTERM)") {}
};

// Call at every boundary where the program may end early (an API call, a transfer chunk).
inline void throw_if_stop_requested(const char* where = "") {
  if (stop_requested()) throw StopRequested(where);
}

// Set by the host for the length of a run: its progress line, ticked with the simulated time
// (ns) of the core at the boundary. nullptr: nothing to tick.
inline void (*g_boundary_tick)(double sim_ns) = nullptr;

// The one call firmware makes at each call boundary (the torch runtime: every API call): ticks
// the host's progress and ends the program there after SIGINT/SIGTERM.
inline void at_call_boundary(const char* where, double sim_ns) {
  if (g_boundary_tick) g_boundary_tick(sim_ns);
  throw_if_stop_requested(where);
}

}  // namespace npusim::fw
