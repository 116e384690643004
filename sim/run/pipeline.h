// The one run pipeline of `npusim run`: parse -> build platform -> attach observers -> run the
// workload on the cores -> evaluate expectations -> write summary, report, trace, VCD. The
// workload kinds (Neuron steps: neuron_steps.h, Snitch programs: snitch_programs.h, torch
// ops: torch_ops.cpp) plug into it as a Workload. What every kind shares is written once
// here: the simulation with its Ctrl-C handling (simulate), progress lines (Progress), the
// classification of a fault (classify_fault), expectations and the report's head.
#pragma once

#include <chrono>
#include <cstdint>
#include <exception>
#include <iosfwd>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/unwind.h"
#include "sim/output/progress.h"
#include "sim/run/stop_signal.h"
#include "sim/run/scenario_runner.h"

namespace npusim::sim {

// A fault of the run, classified.
struct Fault {
  std::string kind, message, where;
  uint64_t time_ps = 0;
};

// An error a workload raises in a core's thread; `kind` is what the report calls it.
class RunFault : public std::runtime_error {
 public:
  RunFault(std::string kind, const std::string& msg) : std::runtime_error(msg), kind_(std::move(kind)) {}
  const std::string& kind() const { return kind_; }

 private:
  std::string kind_;
};

// The kind and message of an exception that ended a core's program: a DMA abort, a bus error,
// a firmware fault, a corrupted heap, a RunFault, or anything else ("error").
Fault classify_fault(std::exception_ptr e);

// After catching an exception thrown in a core's thread: models::forget_unwound_frames().
using models::forget_unwound_frames;

// Runs the simulation to its end. run_pipeline holds a StopSignals (stop_signal.h) for the
// whole run: the first SIGINT or SIGTERM sets interrupted(), which the workloads poll at every
// step (and inside long steps at transaction boundaries) and stop with an "interrupted" fault;
// the pipeline then writes every output and returns stop_exit_code() (130 or 143), the report
// marked "interrupted". A second signal ends the process at once.
void simulate();
// The last line of a summary: PASS, FAIL, or INTERRUPTED (SIGINT|SIGTERM).
std::string result_word(int exit_code);
// The summary's closing lines: each expectation of the report ("  expect KEY: EXPECTED -> ok|FAILED
// (actual TEXT)", the actual in the unit of the condition) and the result line.
void write_expectations_and_result(std::ostream& out, const std::vector<nlohmann::ordered_json>& expectations,
                                    int exit_code);

// Progress lines: sim/output/progress.h.

uint64_t to_ps(const sc_core::sc_time& t);

// A workload kind: the pipeline calls these in order.
class Workload {
 public:
  virtual ~Workload() = default;
  // Everything checkable before the simulation (profile, expectation keys, inputs): throws
  // InputError.
  virtual void prepare() = 0;
  // The platform and the observers.
  virtual void build() = 0;
  virtual void attach(std::vector<std::unique_ptr<RunObserver>>& observers) = 0;
  // The programs on the cores, then the simulation.
  virtual void start() = 0;
  virtual void run() { simulate(); }
  // After the simulation: faults, final samples.
  virtual void collect() = 0;
  virtual std::map<std::string, double> metrics() const = 0;
  // Whether the run fails whatever the expectations say (with or without expectations).
  virtual bool fails(bool has_expectations) const = 0;
  // Traces and observers' end, the report and the summary.
  virtual void finish_outputs(const std::map<std::string, double>& metrics) = 0;
  virtual nlohmann::ordered_json report(int exit_code, const std::vector<nlohmann::ordered_json>& expectations) const = 0;
  virtual void summary(std::ostream& out, const nlohmann::ordered_json& report,
                       const std::vector<nlohmann::ordered_json>& expectations, int exit_code) const = 0;
};

RunResult run_pipeline(Workload& w, const std::vector<Expectation>& expect, std::ostream& out,
                       std::vector<std::unique_ptr<RunObserver>> observers);

}  // namespace npusim::sim
