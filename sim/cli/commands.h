// Subcommand registration for the npusim program.
#pragma once

namespace CLI {
class App;
}

namespace npusim::sim {

struct Commands {
  int exit_code = 0;
};

// `npusim heap replay`.
void register_heap_commands(CLI::App& app, Commands& cmds);
// `npusim run`.
void register_run_command(CLI::App& app, Commands& cmds);
// `npusim op build` (sim/cli/cmd_op.cpp).
void register_op_command(CLI::App& app, Commands& cmds);
// `npusim op list` under the `op` subcommand (sim/cli/cmd_op_list.cpp).
void register_op_list_command(CLI::App& op, Commands& cmds);
// `npusim schema`.
void register_schema_command(CLI::App& app, Commands& cmds);
// `npusim report` (the HTML report).
void register_report_command(CLI::App& app, Commands& cmds);
// `npusim sweep` (sim/cli/cmd_sweep.cpp).
void register_sweep_command(CLI::App& app, Commands& cmds);
// `npusim cc` (sim/cli/cmd_cc.cpp): builds RV32 programs for the snitch-cluster cores.
void register_cc_command(CLI::App& app, Commands& cmds);
// Subcommands added by later work (traffic, run, check-windows).
void register_more_commands(CLI::App& app, Commands& cmds);

}  // namespace npusim::sim
