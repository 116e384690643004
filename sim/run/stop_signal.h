// Stopping a long command on SIGINT or SIGTERM, the same way in every runner and tool.
//
// While a StopSignals is alive, the first SIGINT or SIGTERM only records the signal: the run
// polls interrupted() at its step or transaction boundaries, stops there, writes its summary,
// report, trace and VCD (the report says "interrupted": "SIGINT"|"SIGTERM") and exits with
// stop_exit_code() (130 or 143). A second signal ends the process at once with the default
// action. Scopes nest: the outermost one installs the handlers and restores the old ones.
#pragma once

namespace npusim::sim {

class StopSignals {
 public:
  StopSignals();   // the outermost scope clears the recorded signal
  ~StopSignals();  // the outermost scope restores the previous handlers (the signal stays recorded)
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
};

// The first stop signal received (SIGINT or SIGTERM), 0 if none.
int stop_signal();
inline bool interrupted() { return stop_signal() != 0; }
// "SIGINT", "SIGTERM", or "" when no signal came.
const char* stop_signal_name();
// 128 + the signal: the shell's code for a command ended by it (130, 143); 0 when none came.
int stop_exit_code();

}  // namespace npusim::sim
