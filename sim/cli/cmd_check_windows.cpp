// `npusim check-windows`: the command line of sim/check_windows.h.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "sim/cli/commands.h"
#include "sim/input/input_error.h"
#include "sim/tools/check_windows.h"

namespace npusim::sim {

void register_check_windows_command(CLI::App& app, Commands& cmds) {
  auto* c = app.add_subcommand(
      "check-windows",
      "Check captured DMA descriptors against address-window rules (exit 1 on a violation)");
  auto opt = std::make_shared<CheckWindowsOptions>();
  c->add_option("DESCRIPTORS_FILE", opt->file,
                "CSV (header naming src,dst,len) or JSON (array of {src,dst,len})")
      ->required();
  c->add_option("--format", opt->format, "csv | json (default: by the file's extension)")
      ->check(CLI::IsMember({"csv", "json"}));
  c->add_option("--window", opt->windows,
                "NAME=LO:HI[@SCOPE_LO:SCOPE_HI]; repeatable; replaces the default rule "
                "dataram_window=0x80000:0x90000@0:0x80000000")
      ->allow_extra_args(false);  // one value per --window: never swallow DESCRIPTORS_FILE
  c->add_flag("--json", opt->json, "One JSON object instead of text");
  c->callback([opt, &cmds] {
    try {
      cmds.exit_code = run_check_windows(*opt, std::cout);
    } catch (const InputError& e) {
      std::cout.flush();
      std::cerr << "npusim: error: " << e.what() << '\n';
      cmds.exit_code = 2;
    }
  });
}

}  // namespace npusim::sim
