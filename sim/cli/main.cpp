// npusim: the command-line program. Thin: each subcommand lives in its own file.
#include <CLI/CLI.hpp>
#include <iostream>

#include "models/protocol_checker.h"
#include "sim/cli/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"npusim - a cycle-approximate simulator of an accelerator's memory system"};
  app.require_subcommand(1);
  npusim::sim::Commands cmds;
  npusim::sim::register_heap_commands(app, cmds);
  npusim::sim::register_more_commands(app, cmds);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;  // bad command lines are bad input: exit 2
  }
  // With NPUSIM_PROTOCOL_CHECKS: a TLM protocol violation fails the run (exit 3).
  return npusim::models::protocol_checked_exit(cmds.exit_code);
}
