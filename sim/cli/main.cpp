// npusim: the command-line program. Thin: each subcommand lives in its own file.
#include <CLI/CLI.hpp>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <string>
#include <systemc>

#include "models/protocol_checker.h"
#include "sim/cli/commands.h"
#include "sim/cli/cli_errors.h"
#include "sim/output/chrome_trace.h"
#include "sim/output/output_paths.h"
#include "sim/output/vcd_writer.h"
#include "sim/output/version.h"

namespace {

// Whatever escapes a subcommand (a model's logic_error, a bad_alloc, ...) is an internal
// error: the outputs written so far are closed as complete files and the exit code is 3.
int internal_error(const char* what) {
  npusim::sim::ChromeTrace::close_all_open();
  npusim::sim::VcdWriter::close_all_open();
  std::cout.flush();
  std::cerr << "npusim: internal error: " << what << '\n';
  return 3;
}

int run(int argc, char** argv, npusim::sim::Commands& cmds) {
  CLI::App app{"npusim - a cycle-approximate simulator of an accelerator's memory system"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "npusim " + npusim::sim::version_string());
  npusim::sim::register_heap_commands(app, cmds);
  npusim::sim::register_more_commands(app, cmds);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // Bad command lines are bad input: one message shape, exit 2.
    std::cout.flush();
    std::cerr << npusim::sim::cli_error_message(app, argc, argv, e) << '\n'
              << "Run with --help for more information.\n";
    return 2;
  } catch (const std::exception& e) {
    return internal_error(e.what());
  } catch (...) {
    return internal_error("unknown exception");
  }
  return cmds.exit_code;
}

}  // namespace

int main(int argc, char** argv) {
  // SystemC's own info on sc_stop ("Simulation stopped by user.") is not npusim's output.
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  // A reader that goes away (`npusim ... | head`, a FIFO's reader) is a write error like any
  // other, reported with the output it hit, not a silent death that loses the other outputs.
  std::signal(SIGPIPE, SIG_IGN);
  npusim::sim::Commands cmds;
  int rc = run(argc, argv, cmds);
  // Outputs completed on an exception's way out (not bad input): put in place.
  for (const auto& e : npusim::sim::publish_parked_outputs()) {
    std::cerr << "npusim: error: " << e << '\n';
    if (rc == 0 || rc == 1) rc = 2;
  }
  // Standard output that could not be written (a full disk, /dev/full, a closed pipe) is an
  // unwritable output like any other: a message and exit 2, unless the command already
  // failed for a stronger reason.
  std::cout.flush();
  if (!std::cout || !npusim::sim::standard_output_ok()) {
    const int err = errno;
    std::cerr << "npusim: error: cannot write standard output: " << std::strerror(err ? err : EIO) << '\n';
    if (rc == 0 || rc == 1) rc = 2;
  }
  // With NPUSIM_PROTOCOL_CHECKS: a TLM protocol violation fails the run (exit 3).
  return npusim::models::protocol_checked_exit(rc);
}
