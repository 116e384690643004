// `npusim sweep`: many runs, one process per point, locally (-j N) or as a Slurm job array
// (docs/sweep.md).
#include <CLI/CLI.hpp>
#include <sched.h>
#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <thread>

#include "sim/cli/commands.h"
#include "sim/input/input_error.h"
#include "sim/tools/sweep.h"

namespace npusim::sim {

namespace {

// The cores this process may run on (a Slurm allocation or taskset limits them), at least 1.
unsigned usable_cores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return static_cast<unsigned>(CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

// 0 when every point ran and passed, 1 when one failed or did not run.
int summary_code(const sweep::Summary& s) { return s.failed == 0 && s.missing == 0 ? 0 : 1; }

void print_summary(const std::string& dir, const sweep::Summary& s) {
  std::cout << fmt::format("sweep: {} points: {} ok, {} failed, {} not run; results: {}/results.csv, {}/results.jsonl\n",
                           s.total, s.total - s.failed - s.missing, s.failed, s.missing, dir, dir);
}

}  // namespace

void register_sweep_command(CLI::App& app, Commands& cmds) {
  auto* cmd = app.add_subcommand("sweep", "Run a parameter sweep: one npusim run per point, locally or on Slurm");
  struct Args {
    std::string sweep_file, out, collect;
    std::vector<std::string> emit;
    unsigned jobs = 0;
    std::size_t chunk = 1;
    long long point = -1;
    bool dry_run = false, quiet = false;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("SWEEP", a->sweep_file, "Sweep file (YAML, docs/sweep.md)");
  cmd->add_option("-o,--out", a->out, "Output directory (default: sweep_<name>)");
  cmd->add_option("-j,--jobs", a->jobs, "Points run at once (default: the number of cores)")->check(CLI::Range(1u, 4096u));
  cmd->add_option("--emit", a->emit, "--emit slurm DIR: write a Slurm job array and its collect job to DIR")
      ->expected(2);
  cmd->add_option("--chunk", a->chunk, "With --emit slurm: points per array task")->check(CLI::Range(std::size_t{1}, std::size_t{1} << 40));
  cmd->add_option("--collect", a->collect, "Merge DIR's point results into results.csv and results.jsonl");
  cmd->add_option("--point", a->point, "Run point I of the sweep planned in -o DIR (a Slurm array task)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--dry-run", a->dry_run, "Validate every point and list the count; run nothing");
  cmd->add_flag("-q,--quiet", a->quiet, "No progress line");
  cmd->callback([a, &cmds] {
    try {
      if (!a->collect.empty()) {
        const auto s = sweep::collect(a->collect);
        print_summary(a->collect, s);
        cmds.exit_code = summary_code(s);
        return;
      }
      if (a->point >= 0) {
        if (a->out.empty()) throw InputError("--point", 0, std::to_string(a->point), "needs -o DIR, the sweep's directory");
        cmds.exit_code = sweep::run_point(a->out, static_cast<std::size_t>(a->point));
        return;
      }
      if (a->sweep_file.empty()) throw InputError("npusim sweep", 0, "SWEEP", "give a sweep file (or --collect DIR, or --point I -o DIR)");
      const sweep::Plan plan = sweep::plan_file(a->sweep_file);
      sweep::validate(plan);  // nothing runs unless every point is valid
      if (a->dry_run) {
        std::cout << fmt::format("sweep {}: {} points, all valid\n", plan.name, plan.points.size());
        return;
      }
      if (!a->emit.empty()) {
        if (a->emit[0] != "slurm") throw InputError("--emit", 0, a->emit[0], "unknown target (slurm)");
        sweep::emit_slurm(plan, a->emit[1], a->chunk, std::cout);
        return;
      }
      const std::string dir = a->out.empty() ? "sweep_" + plan.name : a->out;
      sweep::write_plan(plan, dir);
      sweep::LocalOptions opt;
      opt.jobs = a->jobs ? a->jobs : usable_cores();
      opt.progress = !a->quiet;
      const auto ran = sweep::run_local(plan, dir, opt, std::cerr);
      const auto s = sweep::collect(dir);
      print_summary(dir, s);
      cmds.exit_code = ran.signal ? 128 + ran.signal : summary_code(s);  // 130/143 when stopped
    } catch (const std::runtime_error& e) {  // InputError, or a file system error
      std::cerr << "npusim: error: " << e.what() << '\n';
      cmds.exit_code = 2;
    }
  });
}

}  // namespace npusim::sim
