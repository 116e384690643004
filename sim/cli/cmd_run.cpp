// `npusim run [SCENARIO]`: runs a scenario (default: the embedded one) and reports.
#include <CLI/CLI.hpp>
#include <dlfcn.h>

#include <cstdio>
#include <fstream>
#include <iostream>

#include "firmware/neuron_device.h"
#include "sim/cli/commands.h"
#include "sim/input/input_error.h"
#include "sim/input/limits.h"
#include "sim/input/profile_dump.h"
#include "sim/input/snitch_profile.h"
#include "sim/output/html_report.h"
#include "sim/output/json_text.h"
#include "sim/output/output_paths.h"
#include "sim/run/run_observers.h"
#include "sim/run/scenario_runner.h"
#include "sim/run/snitch_run.h"
#include "sim/run/stop_signal.h"
#include <torch/torch.h>

namespace npusim::sim {

namespace {

// Writes the JSON report; returns false (with a message) if the file cannot be written.
bool write_report(const std::string& path, const nlohmann::ordered_json& report) {
  std::ofstream out(path);
  if (!out) {
    std::cerr << "npusim: error: --report: cannot write the report (at '" << path << "')\n";
    return false;
  }
  out << json_text(report, 2) << '\n';
  return static_cast<bool>(out);
}

// The effective profile of a run as YAML (--dump-config); validated by the platform's loader.
std::string effective_profile(const std::string& scenario, const RunOptions& opt) {
  const bool snitch = !scenario.empty() && snitch::is_snitch_scenario(scenario, opt.platform_override);
  ScenarioHead head;
  if (snitch) head = snitch::load_file(scenario);
  else if (scenario.empty()) head = parse_scenario(default_scenario_text(), default_scenario_name());
  else head = load_scenario_file(scenario);
  const std::string platform = opt.platform_override.empty() ? head.platform : opt.platform_override;
  const auto overrides = run_settings(head.set, opt);
  if (snitch) load_snitch_platform(platform, overrides);  // bad values: InputError, exit 2
  else load_platform(platform, overrides);
  return profile_yaml(apply_settings(profile_settings(platform), overrides),
                      "effective profile: " + platform + " with " + std::to_string(overrides.size()) +
                          " override(s) from set: and --set\n(npusim run --platform FILE reads it back)",
                      profile_topology(platform));
}

}  // namespace

void register_run_command(CLI::App& app, Commands& cmds) {
  auto* run = app.add_subcommand("run", "Run a workload scenario (default: the embedded one)");
  struct Args {
    std::string scenario, platform, trace, vcd, report, html;
    std::vector<std::string> sets, plugins, limits;
    bool list_ops = false, dump_config = false, progress = false;
    std::vector<std::string> trace_filter;
    double trace_max_mb = 0;
  };
  auto a = std::make_shared<Args>();
  run->add_option("SCENARIO", a->scenario, "Scenario YAML file (omit for the embedded default)");
  run->add_option("--platform", a->platform, "Platform profile: a built-in name or a YAML file");
  run->add_option("--set", a->sets, "Override a platform value: section.key=value (repeatable)")
      ->allow_extra_args(false);  // one value per --set: never swallow SCENARIO
  run->add_option("--trace", a->trace, "Write a Chrome trace-event JSON file (open in ui.perfetto.dev)");
  run->add_option("--vcd", a->vcd, "Write a VCD waveform file (open in GTKWave)");
  run->add_option("--report", a->report, "Write the JSON report (docs/report.md)");
  run->add_option("--limit", a->limits,
                  "Raise or lower a limit: yaml_nodes|steps|loop_trips|host_bytes|dma_rows|stream_elements=N (repeatable)")
      ->allow_extra_args(false);
  run->add_option("--html", a->html, "Write the self-contained HTML report at the end (docs/report.md)");
  run->add_flag("--list-ops", a->list_ops, "List the registered custom ops and exit");
  run->add_flag("--progress", a->progress,
                "Show progress on stderr even when it is not a terminal (on a terminal: always)");
  run->add_option("--trace-filter", a->trace_filter,
                  "Keep only these trace tracks: globs on process, thread or process/thread, "
                  "comma-separated (docs/traces.md)")
      ->delimiter(',');
  run->add_option("--trace-max-mb", a->trace_max_mb,
                  "Stop adding trace events once the trace reaches this many MB")
      ->check(CLI::PositiveNumber);
  run->add_flag("--dump-config", a->dump_config,
                "Print the effective platform profile (after set: and --set) as YAML that "
                "--platform accepts, and exit");
  run->add_option("--plugin", a->plugins, "Load a shared library of torch-API ops (repeatable; docs/custom-ops.md)")
      ->allow_extra_args(false);
  run->callback([a, &cmds] {
    // SIGINT/SIGTERM: the run stops at its next step and every output below is still written.
    StopSignals stop;
    for (const auto& p : a->plugins) {
      if (dlopen(p.c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr) {
        const char* why = dlerror();
        std::cerr << "npusim: error: --plugin " << p << ": " << (why ? why : "cannot load") << '\n';
        cmds.exit_code = 2;
        return;
      }
    }
    if (a->list_ops) {
      for (const auto& [name, desc] : fw::custom_ops()) std::cout << name << "  " << desc << '\n';
      for (const auto* d : torch::npusim_op::ops())
        std::cout << d->name << "  torch op: kernel " << d->kernel << " (library " << d->library << ")\n";
      return;
    }
    RunOptions opt;
    opt.platform_override = a->platform;
    opt.trace_path = a->trace;
    // The HTML report draws from the trace: without --trace, a temporary one is written.
    const std::string html_trace = !a->html.empty() && a->trace.empty() ? a->html + ".trace.tmp" : "";
    if (!html_trace.empty()) opt.trace_path = html_trace;
    opt.vcd_path = a->vcd;
    opt.report_path = a->report;
    opt.progress = a->progress;
    opt.trace_filter = a->trace_filter;
    opt.trace_max_bytes = static_cast<uint64_t>(a->trace_max_mb * 1e6);
    std::unique_ptr<RunResult> result;
    bool outputs_checked = false;
    try {
      for (const auto& l : a->limits) set_limit(l);
      for (const auto& s : a->sets) {
        const auto eq = s.find('=');
        if (eq == std::string::npos || eq == 0)
          throw InputError("--set", 0, s, "expected section.key=value");
        opt.sets.push_back(Setting{s.substr(0, eq), s.substr(eq + 1), Where{"--set", 0, 0}});
      }
      if (a->dump_config) {
        std::cout << effective_profile(a->scenario, opt);
        return;
      }
      // Every output is checked before anything runs: writable, and no two the same file.
      std::vector<OutputPath> outputs{{"--trace", opt.trace_path}, {"--vcd", opt.vcd_path},
                                      {"--report", opt.report_path}};
      if (!a->scenario.empty() && snitch::is_snitch_scenario(a->scenario, a->platform)) {
        // snitch-cluster scenarios have their own steps and runner (docs/snitch-cluster.md).
        const snitch::Scenario ssc = snitch::load_file(a->scenario);
        check_output_paths(outputs);
        outputs_checked = true;
        result = std::make_unique<RunResult>(snitch::run(ssc, opt, std::cout));
      } else {
        const Scenario sc = a->scenario.empty()
                                ? parse_scenario(default_scenario_text(), default_scenario_name())
                                : load_scenario_file(a->scenario);
        if (sc.torch_op && !sc.torch_op->output.empty())
          outputs.push_back({sc.torch_op->at.str() + ": torch_op output", sc.torch_op->output});
        check_output_paths(outputs);
        outputs_checked = true;
        auto observers = make_observers(opt);  // opens the trace files: errors are bad input
        result = std::make_unique<RunResult>(run_scenario(sc, opt, std::cout, std::move(observers)));
      }
    } catch (const std::runtime_error& e) {  // InputError, or a trace file that cannot be opened
      // Bad input: nothing ran, so no output may pretend to be a result. Files are removed only
      // once they were found to be ours to write (not when two options name one file).
      if (outputs_checked)
        for (const auto& p : {opt.trace_path, opt.vcd_path})
          if (!p.empty()) std::remove(p.c_str());
      std::cerr << "npusim: error: " << e.what() << '\n';
      cmds.exit_code = 2;
      return;
    }
    if (!opt.report_path.empty()) {
      if (write_report(opt.report_path, result->report))
        std::cout << "  report: " << opt.report_path << '\n';
      else
        cmds.exit_code = 2;
    }
    if (!a->html.empty()) {
      try {
        const std::string label = opt.report_path.empty() ? "(npusim run --html)" : opt.report_path;
        auto data = run_data(result->report, label, opt.trace_path);
        if (!html_trace.empty()) data["trace_file"] = "(temporary; --trace keeps it)";
        write_html_file(html_report({data}), a->html);
        std::cout << "  html: " << a->html << " (open it in a browser; it needs no network)\n";
      } catch (const std::exception& e) {
        std::cerr << "npusim: error: " << e.what() << '\n';
        cmds.exit_code = 2;
      }
      if (!html_trace.empty()) std::remove(html_trace.c_str());
    }
    if (!a->trace.empty()) {
      std::cout << "  trace: " << opt.trace_path
                << " (open it at https://ui.perfetto.dev: Open trace file)\n";
      const auto& t = *opt.trace_outcome;
      if (t.truncated)
        std::cout << "  trace truncated at " << a->trace_max_mb << " MB (--trace-max-mb): "
                  << t.dropped_by_limit << " later events are not in the file\n";
      if (!opt.trace_filter.empty())
        std::cout << "  trace filter kept the matching tracks; " << t.dropped_by_filter
                  << " events of other tracks dropped\n";
    }
    if (!opt.vcd_path.empty()) std::cout << "  waveforms: " << opt.vcd_path << " (gtkwave " << opt.vcd_path << ")\n";
    for (const auto& f : result->failed_expectations) std::cerr << "npusim: expectation failed: " << f << '\n';
    if (cmds.exit_code == 0) cmds.exit_code = result->exit_code;
  });
}

}  // namespace npusim::sim
