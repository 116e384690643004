// `npusim report REPORT.json [B.json] [--trace TRACE.json]... --html FILE`: the HTML report of
// a run that already happened, or of two runs side by side (docs/report.md); `npusim report
// --sweep DIR --html FILE`: a sweep's metrics against its parameters (docs/sweep.md).
#include <CLI/CLI.hpp>

#include <iostream>

#include "sim/cli/commands.h"
#include "sim/output/html_report.h"
#include "sim/output/output_paths.h"
#include "sim/output/sweep_report.h"

namespace npusim::sim {

void register_report_command(CLI::App& app, Commands& cmds) {
  auto* rep = app.add_subcommand("report", "Write the HTML report of one run, or of two side by side");
  struct Args {
    std::vector<std::string> reports, traces;
    std::string html, sweep;
  };
  auto a = std::make_shared<Args>();
  rep->add_option("REPORT", a->reports, "JSON report(s) of `npusim run --report` (one, or two to compare)")
      ->expected(1, 2);
  rep->add_option("--sweep", a->sweep,
                  "Plot a sweep instead: every metric against every swept parameter (DIR of `npusim sweep -o DIR`)");
  rep->add_option("--trace", a->traces,
                  "Chrome trace of the run (`npusim run --trace`); give it once per report, in order")
      ->allow_extra_args(false);
  rep->add_option("--html", a->html, "Write the self-contained HTML report to FILE")->required();
  rep->callback([a, &cmds] {
    if (!a->sweep.empty()) {
      if (!a->reports.empty() || !a->traces.empty()) {
        std::cerr << "npusim: error: --sweep " << a->sweep << ": give either --sweep DIR or REPORT files, not both\n";
        cmds.exit_code = 2;
        return;
      }
      try {
        check_output_paths({{"--html", a->html, {}}});
        write_sweep_html(a->sweep, a->html);
      } catch (const std::exception& e) {
        std::cerr << "npusim: error: " << e.what() << '\n';
        cmds.exit_code = 2;
        return;
      }
      std::cout << "  html: " << a->html << " (open it in a browser; it needs no network)\n";
      return;
    }
    if (a->reports.empty()) {
      std::cerr << "npusim: error: REPORT is required (or --sweep DIR)\n";
      cmds.exit_code = 2;
      return;
    }
    if (!a->traces.empty() && a->traces.size() != a->reports.size()) {
      std::cerr << "npusim: error: --trace: " << a->traces.size() << " trace(s) for "
                << a->reports.size() << " report(s): give one --trace per report, or none\n";
      cmds.exit_code = 2;
      return;
    }
    std::vector<HtmlRun> runs;
    std::vector<OutputPath> inputs;
    for (size_t i = 0; i < a->reports.size(); ++i) {
      runs.push_back(HtmlRun{a->reports[i], a->traces.empty() ? std::string() : a->traces[i]});
      inputs.push_back({"REPORT", a->reports[i], {}});
      if (!a->traces.empty()) inputs.push_back({"--trace", a->traces[i], {}});
    }
    try {
      check_outputs_not_inputs({{"--html", a->html, {}}}, inputs);
      check_output_paths({{"--html", a->html, {}}});  // before reading what may be large
      write_html_report(runs, a->html);
    } catch (const std::exception& e) {
      std::cerr << "npusim: error: " << e.what() << '\n';
      cmds.exit_code = 2;
      return;
    }
    std::cout << "  html: " << a->html << " (open it in a browser; it needs no network)\n";
  });
}

}  // namespace npusim::sim
