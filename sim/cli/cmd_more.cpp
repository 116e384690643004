#include "sim/tools/check_windows.h"
#include "sim/cli/commands.h"
#include "sim/tools/traffic.h"

namespace npusim::sim {

// The simulator's own subcommands (traffic, run, check-windows) register here as they land.
void register_more_commands(CLI::App& app, Commands& cmds) {
  register_run_command(app, cmds);
  register_traffic_command(app, cmds);
  register_check_windows_command(app, cmds);
  register_op_command(app, cmds);
  register_schema_command(app, cmds);
  register_report_command(app, cmds);
  register_sweep_command(app, cmds);
  register_cc_command(app, cmds);
}

}  // namespace npusim::sim
