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
#include "sim/output/output_paths.h"
#include "sim/tools/sweep.h"

namespace npusim::sim {

namespace fs = std::filesystem;

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
  if (!s.first_failure.empty())
    std::cerr << "npusim: sweep: " << (s.failed > 1 ? fmt::format("{} points failed; the first: ", s.failed) : "")
              << s.first_failure << " (results.csv has each point's status and message)\n";
}

}  // namespace

void register_sweep_command(CLI::App& app, Commands& cmds) {
  auto* cmd = app.add_subcommand("sweep", "Run a parameter sweep: one npusim run per point, locally or on Slurm");
  struct Args {
    std::string sweep_file, out, collect, jobs_text, chunk_text, point_text;
    std::vector<std::string> emit, plugins;
    unsigned jobs = 0;
    std::size_t chunk = 1;
    long long point = -1;
    bool dry_run = false, quiet = false;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("SWEEP", a->sweep_file, "Sweep file (YAML, docs/sweep.md)");
  cmd->add_option("-o,--out", a->out, "Output directory (default: sweep_<name>)");
  auto* jobs = cmd->add_option("-j,--jobs", a->jobs_text, "Points run at once (default: the number of cores)");
  cmd->add_option("--emit", a->emit, "--emit slurm DIR: write a Slurm job array and its collect job to DIR")
                   ->expected(1, CLI::detail::expected_max_vector_size);  // counted below, with a message that says what is wrong
  auto* chunk = cmd->add_option("--chunk", a->chunk_text, "With --emit slurm: points per array task");
  cmd->add_option("--collect", a->collect, "Merge DIR's point results into results.csv and results.jsonl");
  auto* point = cmd->add_option("--point", a->point_text, "Run point I of the sweep planned in -o DIR (a Slurm array task)");
  auto* plugin = cmd->add_option("--plugin", a->plugins,
                                 "A library of custom ops (repeatable): every point runs with it, after the "
                                 "sweep file's plugins");
  auto* dry = cmd->add_flag("--dry-run", a->dry_run, "Validate every point and list the count; run nothing");
  auto* quiet = cmd->add_flag("-q,--quiet", a->quiet, "No progress line");
  cmd->callback([a, &cmds, jobs, chunk, point, dry, quiet, plugin] {
    try {
      // Whole numbers in a range, with the value and the range in the message.
      auto whole = [](const char* flag, const std::string& text, uint64_t lo, uint64_t hi) {
        const auto n = parse_number(text);
        if (!n || *n < lo || *n > hi)
          throw InputError(flag, 0, text, fmt::format("expected a whole number from {} to {}", lo, hi));
        return *n;
      };
      if (jobs->count()) a->jobs = static_cast<unsigned>(whole("--jobs", a->jobs_text, 1, 4096));
      if (chunk->count()) a->chunk = whole("--chunk", a->chunk_text, 1, sweep::kMaxSweepPoints);
      if (point->count()) a->point = static_cast<long long>(whole("--point", a->point_text, 0, sweep::kMaxSweepPoints - 1));
      if (!a->emit.empty() && a->emit.size() != 2)
        throw InputError("--emit", 0, a->emit.size() < 2 ? a->emit.back() : a->emit[2],
                         a->emit.size() < 2 ? "takes two values, slurm DIR: the folder is missing"
                                            : "takes two values, slurm DIR: this one is too many (give SWEEP before --emit)");
      // What each mode reads: an option of another mode is an error, not silently ignored.
      const char* mode = !a->collect.empty() ? "--collect" : a->point >= 0 ? "--point" : !a->emit.empty() ? "--emit" : nullptr;
      auto only = [&](const CLI::Option* o, const char* flag, const char* with) {
        if (o->count() > 0)
          throw InputError(flag, 0, flag, fmt::format("is only for {}{}", with, mode ? fmt::format(" (given: {})", mode) : ""));
      };
      if (mode == nullptr || std::string(mode) != "--emit") only(chunk, "--chunk", "--emit slurm DIR");
      if (mode != nullptr) {
        only(jobs, "--jobs", "a local sweep (SWEEP without --emit, --point or --collect)");
        only(quiet, "--quiet", "a local sweep (SWEEP without --emit, --point or --collect)");
        only(dry, "--dry-run", "a sweep file alone (it validates and runs nothing)");
      }
      if (mode != nullptr && std::string(mode) != "--emit")
        only(plugin, "--plugin", "planning a sweep from its file (the plan holds its plugins)");
      if (!a->collect.empty() && (!a->sweep_file.empty() || !a->out.empty() || a->point >= 0 || !a->emit.empty()))
        throw InputError("--collect", 0, a->collect, "takes the sweep's folder alone (no SWEEP, -o, --point or --emit)");
      if (a->point >= 0 && (!a->sweep_file.empty() || !a->emit.empty()))
        throw InputError("--point", 0, a->point_text, "runs a point of the plan in -o DIR: give no SWEEP or --emit");
      if (!a->emit.empty() && !a->out.empty())
        throw InputError("-o", 0, a->out, "is not used with --emit slurm DIR (DIR is the sweep's folder)");
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
      sweep::Plan plan = sweep::plan_file(a->sweep_file);
      for (const auto& l : a->plugins) {  // (after the file's; a path, absolute in the plan)
        std::error_code ec;
        if (!fs::is_regular_file(l, ec)) throw InputError("--plugin", 0, l, "no such library file");
        plan.plugins.push_back(fs::absolute(l).lexically_normal().string());
      }
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
      sweep::prepare_sweep_dir(dir, a->out.empty() ? "npusim sweep" : "-o");
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
