// `npusim run`: builds the platform of a scenario, runs its program (or custom op) on the
// simulated core, checks its expectations and produces the summary, the JSON report and the
// traces.
#pragma once

#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/input/platform_config.h"
#include "sim/input/scenario.h"
#include "sim/output/output_paths.h"

namespace npusim::sim {

struct RunOptions {
  std::string platform_override;    // --platform (else the scenario's)
  std::vector<Setting> sets;        // --set, applied after the scenario's set:
  std::string trace_path, vcd_path, report_path;
  // How messages name the trace: the option, and the path when not trace_path (`run --html`
  // without --trace writes the trace it draws from to a scratch file).
  std::string trace_what = "--trace", trace_shown;
  bool progress = false;            // --progress: progress on stderr even when not a terminal
  std::vector<std::string> trace_filter;  // --trace-filter: tracks to keep (ChromeTrace::set_filter)
  uint64_t trace_max_bytes = 0;           // --trace-max-mb, in bytes (0: no limit)
  // Filled when the trace is closed: whether --trace-max-mb cut it, and what was dropped.
  struct TraceOutcome {
    bool truncated = false;
    uint64_t dropped_by_limit = 0, dropped_by_filter = 0;
    std::vector<std::string> unmatched_filters;  // --trace-filter patterns that matched nothing
  };
  std::shared_ptr<TraceOutcome> trace_outcome = std::make_shared<TraceOutcome>();
  // Errors writing the trace or the VCD (each names the option, the path and the reason): the
  // run goes on, its report and summary are written, and the command reports these (exit 2).
  std::shared_ptr<std::vector<std::string>> output_errors = std::make_shared<std::vector<std::string>>();
  OutputPath trace_output() const { return {trace_what, trace_path, trace_shown}; }
  OutputPath vcd_output() const { return {"--vcd", vcd_path, {}}; }
};

// Time-stamped observations of a run, for traces (all times in picoseconds).
class RunObserver {
 public:
  virtual ~RunObserver() = default;
  virtual void call(const std::string& track, const std::string& name, const std::string& args,
                    uint64_t start_ps, uint64_t end_ps, int status) = 0;
  virtual void transfer(uint32_t channel, uint64_t src, uint64_t dst, uint64_t len,
                        const std::string& call_site, uint64_t start_ps, uint64_t end_ps) = 0;
  virtual void heap(const std::string& heap, uint64_t t_ps, uint64_t free_bytes,
                    uint64_t largest_free, uint64_t descriptors_used) = 0;
  virtual void core_busy(const std::string& core, uint64_t t_ps, bool busy) = 0;
  virtual void instant(const std::string& track, const std::string& name, uint64_t t_ps,
                       const nlohmann::json& args) = 0;
  // A `marker` step ran on `core`: an instant named by its text with {"step": "file:line:col"}.
  // A hot path (a loop of markers): observers that write it may render it once per step.
  virtual void marker(const std::string& core, const Step& step, uint64_t t_ps) {
    instant(core, step.text, t_ps, nlohmann::json{{"step", step.at.str()}});
  }
  // Bytes a memory completed per window of `window_ps`, from time 0 (reported at the end).
  virtual void memory_bandwidth(const std::string& memory, uint64_t window_ps,
                                const std::vector<uint64_t>& bytes) = 0;
  virtual void finish(uint64_t end_ps) = 0;
};

struct RunResult {
  int exit_code = 0;           // 0 expectations hold, 1 some failed (or an unexpected fault)
  nlohmann::ordered_json report;
  std::vector<std::string> failed_expectations;
};

// Summary formatting: "1.50 KiB", "12.345 us".
std::string human_bytes(double bytes);
std::string human_ns(double ns);

// Evaluates `expect` against the run's metrics: one report entry per expectation (appended
// to `report`), a line per failed one (appended to `failed`). Returns whether all hold.
bool evaluate_expectations(const std::vector<Expectation>& expect,
                           const std::map<std::string, double>& metrics,
                           std::vector<nlohmann::ordered_json>& report,
                           std::vector<std::string>& failed);

// The settings of a run in the order they apply: the scenario's `set:`, then --set.
std::vector<Setting> run_settings(const std::vector<std::tuple<std::string, std::string, Where>>& set,
                                  const RunOptions& opt);
// The opening of every runner's JSON report: version, scenario, platform and its overrides.
nlohmann::ordered_json report_head(const std::string& name, const std::string& file,
                                   const std::string& description, const std::string& platform,
                                   const std::vector<Setting>& settings);

// Runs `sc` once (SystemC elaborates once per process: one run per process). Writes the
// summary to `out`. Throws InputError for bad input found before the simulation starts; a
// fault during the run is part of the result, not an exception.
RunResult run_scenario(const Scenario& sc, const RunOptions& opt, std::ostream& out,
                       std::vector<std::unique_ptr<RunObserver>> observers = {});

// A scenario with a torch_op (sim/run/torch_ops.cpp): the op on the GPSIMD cores.
RunResult run_torch_scenario(const Scenario& sc, const RunOptions& opt, std::ostream& out,
                             std::vector<std::unique_ptr<RunObserver>> observers);

// The embedded default scenario (scenarios/default.yaml) and its name.
const char* default_scenario_text();
const char* default_scenario_name();

}  // namespace npusim::sim
