// npusim: the command-line program. Thin: each subcommand lives in its own file.
#include <CLI/CLI.hpp>
#include <iostream>

#include "sim/cli/commands.h"
#include "sim/output/version.h"

int main(int argc, char** argv) {
  CLI::App app{"npusim - a cycle-approximate simulator of an accelerator's memory system"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "npusim " + npusim::sim::version_string());
  npusim::sim::Commands cmds;
  npusim::sim::register_heap_commands(app, cmds);
  npusim::sim::register_more_commands(app, cmds);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;  // bad command lines are bad input: exit 2
  }
  return cmds.exit_code;
}
