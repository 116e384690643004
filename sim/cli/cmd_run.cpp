// `npusim run [SCENARIO]`: runs a scenario (default: the embedded one) and reports.
#include <CLI/CLI.hpp>
#include <dlfcn.h>

#include <cstdio>
#include <fstream>
#include <iostream>

#include "sim/cli/commands.h"
#include "sim/output/html_report.h"
#include "sim/tools/heap_replay.h"
#include "sim/run/run_observers.h"
#include "firmware/neuron_device.h"
#include "sim/run/scenario_runner.h"
#include "sim/run/snitch_run.h"
#include <torch/torch.h>

namespace npusim::sim {

namespace {

// Writes the JSON report; returns false (with a message) if the file cannot be written.
bool write_report(const std::string& path, const nlohmann::ordered_json& report) {
  std::ofstream out(path);
  if (!out) {
    std::cerr << "npusim: cannot write the report to '" << path << "'\n";
    return false;
  }
  out << report.dump(2) << '\n';
  return static_cast<bool>(out);
}

}  // namespace

void register_run_command(CLI::App& app, Commands& cmds) {
  auto* run = app.add_subcommand("run", "Run a workload scenario (default: the embedded one)");
  struct Args {
    std::string scenario, platform, trace, vcd, report, html;
    std::vector<std::string> sets, plugins;
    bool list_ops = false;
  };
  auto a = std::make_shared<Args>();
  run->add_option("SCENARIO", a->scenario, "Scenario YAML file (omit for the embedded default)");
  run->add_option("--platform", a->platform, "Platform profile: a built-in name or a YAML file");
  run->add_option("--set", a->sets, "Override a platform value: section.key=value (repeatable)");
  run->add_option("--trace", a->trace, "Write a Chrome trace-event JSON file (open in ui.perfetto.dev)");
  run->add_option("--vcd", a->vcd, "Write a VCD waveform file (open in GTKWave)");
  run->add_option("--report", a->report, "Write the JSON report (docs/report.md)");
  run->add_option("--html", a->html, "Write the self-contained HTML report at the end (docs/report.md)");
  run->add_flag("--list-ops", a->list_ops, "List the registered custom ops and exit");
  run->add_option("--plugin", a->plugins, "Load a shared library of torch-API ops (repeatable; docs/custom-ops.md)")
      ->allow_extra_args(false);
  run->callback([a, &cmds] {
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
    std::unique_ptr<RunResult> result;
    try {
      for (const auto& s : a->sets) {
        const auto eq = s.find('=');
        if (eq == std::string::npos || eq == 0)
          throw InputError("--set", 0, s, "expected section.key=value");
        opt.sets.push_back(Setting{s.substr(0, eq), s.substr(eq + 1), Where{"--set", 0, 0}});
      }
      if (!a->scenario.empty() && snitch::is_snitch_scenario(a->scenario, a->platform)) {
        // snitch-cluster scenarios have their own steps and runner (docs/snitch-cluster.md).
        const snitch::Scenario ssc = snitch::load_file(a->scenario);
        result = std::make_unique<RunResult>(snitch::run(ssc, opt, std::cout));
      } else {
        const Scenario sc = a->scenario.empty()
                                ? parse_scenario(default_scenario_text(), default_scenario_name())
                                : load_scenario_file(a->scenario);
        auto observers = make_observers(opt);  // opens the trace files: errors are bad input
        result = std::make_unique<RunResult>(run_scenario(sc, opt, std::cout, std::move(observers)));
      }
    } catch (const std::runtime_error& e) {  // InputError, or a trace file that cannot be opened
      // Bad input: nothing ran, so no output may pretend to be a result.
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
    if (!a->trace.empty())
      std::cout << "  trace: " << opt.trace_path
                << " (open it at https://ui.perfetto.dev: Open trace file)\n";
    if (!opt.vcd_path.empty()) std::cout << "  waveforms: " << opt.vcd_path << " (gtkwave " << opt.vcd_path << ")\n";
    for (const auto& f : result->failed_expectations) std::cerr << "npusim: expectation failed: " << f << '\n';
    if (cmds.exit_code == 0) cmds.exit_code = result->exit_code;
  });
}

}  // namespace npusim::sim
