// `npusim run [SCENARIO]`: runs a scenario (default: the embedded one) and reports.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <sys/stat.h>

#include <cmath>
#include <cstdio>
#include <iostream>

#include "firmware/neuron_device.h"
#include "firmware/torch/runtime.h"
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

// --trace-max-mb: a positive, finite number of megabytes (1 MB = 10^6 bytes), at most 10^9 (a
// petabyte; beyond it the bytes would not fit the counter's exactness anyway).
uint64_t trace_max_bytes(const std::string& text) {
  size_t used = 0;
  double mb = 0;
  try {
    mb = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || !std::isfinite(mb))
    throw InputError("--trace-max-mb", 0, text, "expected a number of megabytes, such as 0.5 or 200");
  if (mb <= 0 || mb > 1e9)
    throw InputError("--trace-max-mb", 0, text, "must be more than 0 and at most 1000000000 (a petabyte)");
  return std::max<uint64_t>(1, static_cast<uint64_t>(mb * 1e6));
}

// A --plugin library: a name with a slash is a path; a bare name is a file in the current folder
// if one is there (as a user expects of `--plugin libx.so`), else the system's library search
// (dlopen's). Throws std::runtime_error for a folder.
std::string plugin_path(const std::string& p) {
  struct stat st {};
  const std::string path = p.find('/') == std::string::npos && ::stat(p.c_str(), &st) == 0 ? "./" + p : p;
  if (path.find('/') != std::string::npos && ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw std::runtime_error("is a directory, not a library");
  return path;
}

// The loader's reason without the path it repeats ("PATH: cannot open shared object file: ...");
// a bare name found nowhere says where it was looked for.
std::string plugin_error(const std::string& p, std::string why) {
  for (const std::string& path : {"./" + p, p})
    for (size_t at; (at = why.find(path + ": ")) != std::string::npos;) why.erase(at, path.size() + 2);
  struct stat st {};
  if (p.find('/') == std::string::npos && ::stat(p.c_str(), &st) != 0 && why.find("No such file") != std::string::npos)
    return "no such library in the current folder nor on the system's library path";
  return why;
}

// The effective profile of a run as YAML (--dump-config); validated by the platform's loader.
std::string effective_profile(const std::string& scenario, const RunOptions& opt) {
  const bool snitch_scenario = !scenario.empty() && snitch::is_snitch_scenario(scenario, opt.platform_override);
  ScenarioHead head;
  if (snitch_scenario) head = snitch::load_file(scenario);
  else if (scenario.empty()) head = parse_scenario(default_scenario_text(), default_scenario_name());
  else head = load_scenario_file(scenario);
  const std::string platform = opt.platform_override.empty() ? head.platform : opt.platform_override;
  // The profile is the platform's, whichever family the scenario is (--platform snitch-cluster
  // with the default scenario dumps the snitch-cluster profile).
  const bool snitch = snitch_scenario || is_snitch_platform(platform);
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
    std::string scenario, platform, trace, vcd, report, html, trace_max_mb;
    std::vector<std::string> sets, plugins, limits;
    bool list_ops = false, dump_config = false, progress = false, allow_shadowing = false;
    std::vector<std::string> trace_filter;
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
                  "Raise or lower a limit: yaml_nodes|steps|loop_trips|host_bytes|dma_rows|stream_elements|input_bytes=N (repeatable)")
      ->allow_extra_args(false);
  run->add_option("--html", a->html, "Write the self-contained HTML report at the end (docs/report.md)");
  run->add_flag("--list-ops", a->list_ops, "List the registered custom ops and exit");
  run->add_flag("--progress", a->progress,
                "Show progress on stderr even when it is not a terminal (on a terminal: always)");
  run->add_option("--trace-filter", a->trace_filter,
                  "Keep only these trace tracks: globs on process, thread or process/thread, "
                  "comma-separated (docs/traces.md); needs --trace or --html")
      ->delimiter(',');
  run->add_option("--trace-max-mb", a->trace_max_mb,
                  "Stop adding trace events once the trace reaches this many MB; needs --trace or --html");
  run->add_flag("--dump-config", a->dump_config,
                "Print the effective platform profile (after set: and --set) as YAML that "
                "--platform accepts, and exit");
  run->add_option("--plugin", a->plugins,
                  "Load a shared library of torch-API ops (repeatable; a name without '/' is looked "
                  "for in the current folder first; docs/custom-ops.md)")
      ->allow_extra_args(false);
  run->add_flag("--allow-shadowing", a->allow_shadowing,
                "Let a --plugin op replace the built-in op of its name (always with a warning)");
  run->callback([a, &cmds] {
    // SIGINT/SIGTERM: the run stops at its next step and every output below is still written.
    StopSignals stop;
    RunOptions opt;
    try {
      // Options that only mean something with another one say so instead of being ignored.
      const bool traced = !a->trace.empty() || !a->html.empty();
      if (!a->trace_filter.empty() && !traced)
        throw InputError("--trace-filter", 0, a->trace_filter.front(), "needs --trace (or --html): there is no trace to filter");
      if (!a->trace_max_mb.empty() && !traced)
        throw InputError("--trace-max-mb", 0, a->trace_max_mb, "needs --trace (or --html): there is no trace to limit");
      for (const auto& f : a->trace_filter)
        if (f.empty())
          throw InputError("--trace-filter", 0, "", "an empty pattern matches no track (give globs such as dma,heaps)");
      if (!a->trace_max_mb.empty()) opt.trace_max_bytes = trace_max_bytes(a->trace_max_mb);
      if (a->list_ops || a->dump_config) {
        for (const auto& [flag, value] : {std::pair<const char*, const std::string&>{"--trace", a->trace},
                                          {"--vcd", a->vcd}, {"--report", a->report}, {"--html", a->html}})
          if (!value.empty())
            throw InputError(flag, 0, value,
                             fmt::format("{} writes no run: nothing would be written", a->list_ops ? "--list-ops" : "--dump-config"));
      }
    } catch (const InputError& e) {
      std::cerr << "npusim: error: " << e.what() << '\n';
      cmds.exit_code = 2;
      return;
    }
    // Each plugin's static initialisers run in a probe process first; its registrations are
    // checked (torchrt::load_plugin).
    try {
      torchrt::check_builtin_registry();
    } catch (const std::exception& e) {
      std::cerr << "npusim: error: the built-in ops: " << e.what() << '\n';
      cmds.exit_code = 2;
      return;
    }
    for (const auto& p : a->plugins) {
      std::string why;
      try {
        const std::string path = plugin_path(p);
        for (const auto& w : torchrt::load_plugin(path, a->allow_shadowing).warnings)
          std::cerr << "npusim: warning: --plugin " << p << ": " << w << '\n';
      } catch (const std::exception& e) {
        why = plugin_error(p, e.what());
      }
      if (!why.empty()) {
        std::cerr << "npusim: error: --plugin " << p << ": " << why << '\n';
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
    opt.platform_override = a->platform;
    opt.trace_path = a->trace;
    opt.vcd_path = a->vcd;
    opt.report_path = a->report;
    opt.progress = a->progress;
    opt.trace_filter = a->trace_filter;
    // The HTML report draws from the trace: without --trace, the run writes one to a scratch
    // folder (removed at the end), and messages about it name --html.
    std::unique_ptr<ScratchDir> scratch;
    std::unique_ptr<RunResult> result;
    try {
      for (const auto& l : a->limits) set_limit(l);
      for (const auto& s : a->sets) {
        const auto eq = s.find('=');
        if (eq == std::string::npos || eq == 0)
          throw InputError("--set", 0, s, "expected section.key=value");
        for (const auto& earlier : opt.sets)
          if (earlier.key == s.substr(0, eq) && earlier.value != s.substr(eq + 1))
            throw InputError("--set", 0, s,
                             fmt::format("{} is already set to '{}' by an earlier --set: give a key once",
                                         earlier.key, earlier.value));
        opt.sets.push_back(Setting{s.substr(0, eq), s.substr(eq + 1), Where{"--set", 0, 0}});
      }
      if (a->dump_config) {
        std::cout << effective_profile(a->scenario, opt);
        return;
      }
      // Every output is checked before anything runs: writable, and no two the same file.
      std::vector<OutputPath> outputs{{"--trace", opt.trace_path, {}}, {"--vcd", opt.vcd_path, {}},
                                      {"--report", opt.report_path, {}}, {"--html", a->html, {}}};
      std::vector<OutputPath> inputs{{"SCENARIO", a->scenario, {}}, {"--platform", a->platform, {}}};
      for (const auto& p : a->plugins) inputs.push_back({"--plugin", p, {}});
      check_outputs_not_inputs(outputs, inputs);
      if (!a->scenario.empty() && snitch::is_snitch_scenario(a->scenario, a->platform)) {
        // snitch-cluster scenarios have their own steps and runner (docs/snitch-cluster.md).
        const snitch::Scenario ssc = snitch::load_file(a->scenario);
        check_output_paths(outputs);
        if (!a->html.empty() && a->trace.empty()) {
          scratch = std::make_unique<ScratchDir>(OutputPath{"--html", a->html, {}});
          opt.trace_path = scratch->file("trace.json");
          opt.trace_what = "--html: the run's trace in the temporary folder";
          opt.trace_shown = scratch->dir();
        }
        result = std::make_unique<RunResult>(snitch::run(ssc, opt, std::cout));
      } else {
        const Scenario sc = a->scenario.empty()
                                ? parse_scenario(default_scenario_text(), default_scenario_name())
                                : load_scenario_file(a->scenario);
        if (sc.torch_op && !sc.torch_op->output.empty())
          outputs.push_back({sc.torch_op->at.str() + ": torch_op output", sc.torch_op->output, {}});
        check_output_paths(outputs);
        if (!a->html.empty() && a->trace.empty()) {
          scratch = std::make_unique<ScratchDir>(OutputPath{"--html", a->html, {}});
          opt.trace_path = scratch->file("trace.json");
          opt.trace_what = "--html: the run's trace in the temporary folder";
          opt.trace_shown = scratch->dir();
        }
        auto observers = make_observers(opt);  // opens the trace files: errors are bad input
        result = std::make_unique<RunResult>(run_scenario(sc, opt, std::cout, std::move(observers)));
      }
    } catch (const InputError& e) {
      // Bad input: nothing ran, so no output may pretend to be a result. Outputs opened so far
      // were written to temporary files of ours: they are removed, every destination is as it was.
      discard_parked_outputs();
      std::cerr << "npusim: error: " << e.what() << '\n';
      cmds.exit_code = 2;
      return;
    }
    // A write error (a full disk) is exit 2 unless the run was stopped by a signal (its code
    // says more); the other outputs are still written.
    bool write_failed = false;
    auto output_failed = [&write_failed](const std::string& message) {
      std::cout.flush();
      std::cerr << "npusim: error: " << message << '\n';
      write_failed = true;
    };
    for (const auto& e : *opt.output_errors) output_failed(e);
    if (!opt.report_path.empty()) {
      try {
        write_output({"--report", opt.report_path, {}}, json_text(result->report, 2) + "\n");
        std::cout << "  report: " << opt.report_path << '\n';
      } catch (const InputError& e) {
        output_failed(e.what());
      }
    }
    if (!a->html.empty()) {
      try {
        const std::string label = opt.report_path.empty() ? "(npusim run --html)" : opt.report_path;
        auto data = run_data(result->report, label, opt.trace_path);
        if (scratch) data["trace_file"] = "(temporary; --trace keeps it)";
        write_output({"--html", a->html, {}}, html_report({data}));
        std::cout << "  html: " << a->html << " (open it in a browser; it needs no network)\n";
      } catch (const std::exception& e) {
        output_failed(e.what());
      }
    }
    const auto& t = *opt.trace_outcome;
    if (!a->trace.empty()) {
      std::cout << "  trace: " << opt.trace_path
                << " (open it at https://ui.perfetto.dev: Open trace file)\n";
      if (t.truncated)
        std::cout << "  trace truncated at " << a->trace_max_mb << " MB (--trace-max-mb): "
                  << t.dropped_by_limit << " later events are not in the file\n";
      if (!opt.trace_filter.empty())
        std::cout << "  trace filter kept the matching tracks; " << t.dropped_by_filter
                  << " events of other tracks dropped\n";
    }
    for (const auto& f : t.unmatched_filters)
      std::cerr << "npusim: warning: --trace-filter: '" << f
                << "' matched no track (docs/traces.md names the tracks)\n";
    if (!opt.vcd_path.empty()) std::cout << "  waveforms: " << opt.vcd_path << " (gtkwave " << opt.vcd_path << ")\n";
    for (const auto& f : result->failed_expectations) std::cerr << "npusim: expectation failed: " << f << '\n';
    cmds.exit_code = write_failed && result->exit_code < 128 ? 2 : result->exit_code;
  });
}

}  // namespace npusim::sim
