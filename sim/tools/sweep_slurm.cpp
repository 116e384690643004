// `npusim sweep SWEEP.yaml --emit slurm DIR`: a job array of the points and a dependent
// collect job. The scripts name absolute paths only, so they run from any directory of a
// cluster whose nodes see DIR and the npusim binary at the same paths.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <ostream>

#include "sim/input/input_error.h"
#include "sim/output/output_paths.h"
#include "sim/tools/sweep.h"

namespace npusim::sim::sweep {

namespace fs = std::filesystem;

namespace {

// Single-quoted for sh: safe for any path.
std::string sh_quote(const std::string& s) {
  std::string q = "'";
  for (const char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Slurm's default MaxArraySize is 1001 (indices 0..1000).
constexpr std::size_t kDefaultMaxArraySize = 1001;

void write_script(const std::string& path, const std::string& text) {
  write_output({"--emit", path, {}}, text, 0755);
}

std::string resources(const SlurmSpec& s) {
  std::string r;
  if (!s.partition.empty()) r += fmt::format("#SBATCH --partition={}\n", s.partition);
  if (!s.account.empty()) r += fmt::format("#SBATCH --account={}\n", s.account);
  if (!s.qos.empty()) r += fmt::format("#SBATCH --qos={}\n", s.qos);
  if (!s.mem.empty()) r += fmt::format("#SBATCH --mem={}\n", s.mem);
  for (const auto& e : s.extra) r += fmt::format("#SBATCH {}\n", e);
  return r;
}

}  // namespace

std::size_t emit_slurm(const Plan& plan, const std::string& dir_in, std::size_t chunk, std::ostream& log) {
  if (chunk == 0) throw InputError("--chunk", 0, "0", "must be at least 1");
  const std::string dir = fs::absolute(dir_in).lexically_normal().string();
  // #SBATCH lines are not shell-quoted, and Slurm expands % in --output.
  if (dir.find_first_of(" \t\n%\"'\\") != std::string::npos)
    throw InputError("--emit", 0, dir, "a Slurm sweep directory cannot hold spaces, quotes, '\\' or '%' (#SBATCH --output names it)");
  prepare_sweep_dir(dir, "--emit");
  std::error_code ec;
  fs::create_directories(fs::path(dir) / "slurm", ec);  // Slurm does not create --output directories
  if (ec) throw InputError("--emit", 0, (fs::path(dir) / "slurm").string(), "cannot be created: " + ec.message());
  write_plan(plan, dir);
  const std::size_t n = plan.points.size();
  const std::size_t tasks = (n + chunk - 1) / chunk;
  const std::string qdir = sh_quote(dir), qexe = sh_quote(plan.npusim);
  const SlurmSpec& s = plan.slurm;

  std::string array = fmt::format(
      "#!/bin/bash\n"
      "# npusim sweep '{name}': {n} points, {chunk} per array task ({tasks} tasks).\n"
      "# Written by `npusim sweep --emit slurm`; submit with {dir}/submit.sh (it adds the\n"
      "# dependent collect job). Each task runs its points with `npusim sweep --point I`.\n"
      "#SBATCH --job-name=npusim-{name}\n"
      "#SBATCH --array=0-{last}{throttle}\n"
      "#SBATCH --ntasks=1\n"
      "#SBATCH --cpus-per-task={cpus}\n"
      "#SBATCH --time={time}\n"
      "#SBATCH --output={dir}/slurm/%A_%a.out\n"
      "{res}"
      "set -u\n"
      "NPUSIM=${{NPUSIM:-{exe}}}\n"
      "first=$((SLURM_ARRAY_TASK_ID * {chunk}))\n"
      "last=$((first + {chunk}))\n"
      "[ \"$last\" -gt {n} ] && last={n}\n"
      "rc=0\n"
      "for ((i = first; i < last; i++)); do\n"
      "  \"$NPUSIM\" sweep --point \"$i\" -o {qdir} || rc=$?\n"
      "done\n"
      "exit \"$rc\"\n",
      fmt::arg("name", plan.name), fmt::arg("n", n), fmt::arg("chunk", chunk), fmt::arg("tasks", tasks),
      fmt::arg("dir", dir), fmt::arg("last", tasks - 1),
      fmt::arg("throttle", s.max_parallel ? fmt::format("%{}", s.max_parallel) : std::string()),
      fmt::arg("cpus", s.cpus_per_task), fmt::arg("time", s.time), fmt::arg("res", resources(s)),
      fmt::arg("exe", qexe), fmt::arg("qdir", qdir));

  std::string collect = fmt::format(
      "#!/bin/bash\n"
      "# npusim sweep '{name}': merges the points' results into results.csv and results.jsonl.\n"
      "# Submitted by submit.sh after the array (afterany: failed points are recorded, not lost).\n"
      "#SBATCH --job-name=npusim-{name}-collect\n"
      "#SBATCH --ntasks=1\n"
      "#SBATCH --cpus-per-task=1\n"
      "#SBATCH --time={time}\n"
      "#SBATCH --output={dir}/slurm/collect_%j.out\n"
      "{res}"
      "NPUSIM=${{NPUSIM:-{exe}}}\n"
      "exec \"$NPUSIM\" sweep --collect {qdir}\n",
      fmt::arg("name", plan.name), fmt::arg("time", s.time), fmt::arg("dir", dir),
      fmt::arg("res", resources(s)), fmt::arg("exe", qexe), fmt::arg("qdir", qdir));

  std::string submit = fmt::format(
      "#!/bin/bash\n"
      "# Submits the sweep '{name}': the array of {tasks} tasks, then the collect job that runs\n"
      "# when every task has ended. `submit.sh --wait` returns when the results are merged, with\n"
      "# the collect job's exit code (0: every point ran and passed). Other arguments are passed\n"
      "# to both sbatch calls.\n"
      "set -euo pipefail\n"
      "wait=()\n"
      "args=()\n"
      "for a in \"$@\"; do\n"
      "  if [ \"$a\" = --wait ]; then wait=(--wait); else args+=(\"$a\"); fi\n"
      "done\n"
      "array=$(sbatch --parsable \"${{args[@]+\"${{args[@]}}\"}}\" {qdir}/sweep.sbatch)\n"
      "array=${{array%%;*}}\n"
      "echo \"npusim sweep {name}: array job $array ({tasks} tasks)\"\n"
      "collect=$(sbatch --parsable \"${{wait[@]+\"${{wait[@]}}\"}}\" --dependency=afterany:\"$array\" \\\n"
      "          \"${{args[@]+\"${{args[@]}}\"}}\" {qdir}/collect.sbatch) || rc=$?\n"
      "echo \"npusim sweep {name}: collect job ${{collect%%;*}}; results in {dir}/results.csv\"\n"
      "exit \"${{rc:-0}}\"\n",
      fmt::arg("name", plan.name), fmt::arg("tasks", tasks), fmt::arg("qdir", qdir), fmt::arg("dir", dir));

  write_script((fs::path(dir) / "sweep.sbatch").string(), array);
  write_script((fs::path(dir) / "collect.sbatch").string(), collect);
  write_script((fs::path(dir) / "submit.sh").string(), submit);
  log << fmt::format("sweep {}: {} points in {} array tasks; submit with {}/submit.sh\n", plan.name, n, tasks, dir);
  if (tasks > kDefaultMaxArraySize)
    log << fmt::format("sweep {}: warning: {} array tasks exceed Slurm's default MaxArraySize ({}); "
                       "use --chunk {} or check the cluster's limit (scontrol show config)\n",
                       plan.name, tasks, kDefaultMaxArraySize, (n + kDefaultMaxArraySize - 1) / kDefaultMaxArraySize);
  return tasks;
}

}  // namespace npusim::sim::sweep
