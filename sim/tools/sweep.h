// `npusim sweep`: many runs of one or more scenarios with different `--set` overrides, one
// `npusim run` process per point (SystemC elaborates once per process). docs/sweep.md.
//
// A sweep file names scenarios and points (a grid and/or a list, repeat, seeds); `plan()`
// expands it into numbered points, `validate()` checks every point's profile in-process before
// anything runs, `run_local()` runs the points with N processes at once, `run_point()` runs one
// (a Slurm array task), `collect()` merges the per-point files into results.csv/.jsonl.
//
// The files read top-down, each calling only those above it: sweep_files.cpp (a point's files:
// where they live, JSON written whole and read back), then sweep_plan.cpp (the sweep file, its
// points and plan.json; it knows nothing of runs), then sweep_validate.cpp, sweep_run.cpp and
// sweep_slurm.cpp (each works from a plan), then sweep_results.cpp (collects what the runs
// left). tests/sweep/layering.cmake checks the order on the compiled objects.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/input/scenario.h"

namespace npusim::sim::sweep {

// Resource requests of the Slurm jobs (`slurm:` in the sweep file).
struct SlurmSpec {
  std::string partition, account, qos, time = "00:30:00", mem;
  unsigned cpus_per_task = 1;
  unsigned max_parallel = 0;       // array throttle (%N); 0: none
  std::vector<std::string> extra;  // more `#SBATCH` options, verbatim
};

// One scenario of a sweep: "default" (the embedded one) or a file path (absolute once planned).
struct SweepScenario {
  std::string path;
  Where at;
  std::string digest;  // of the file's text (a changed scenario reruns its points on resume)
};

struct Point {
  std::size_t index = 0;
  std::string scenario;                                     // as in SweepScenario::path
  std::string scenario_digest;                              // SweepScenario::digest
  std::vector<std::pair<std::string, std::string>> sets;    // --set key=value, in order
  std::vector<Where> set_at;                                // where each value was written
  unsigned rep = 0;                                         // 0 .. repeat-1
  std::optional<std::string> seed;                          // the seed value, if seeds are swept

  nlohmann::ordered_json to_json() const;  // what a point directory's point.json holds
};

// The most points one sweep may have; the sweep file's points are counted before any is made.
inline constexpr std::size_t kMaxSweepPoints = 1'000'000;
// The most values one sweep's points set in all (points times the keys each sets), counted as
// the points are: the plan holds every value with its place in the sweep file.
inline constexpr std::size_t kMaxSweepSettings = 3'000'000;

struct Plan {
  std::string name, sweep_file, npusim, platform;
  // Libraries of custom ops (`plugins:` in the sweep file, then `sweep --plugin`), absolute
  // paths: every point runs with `--plugin` for each.
  std::vector<std::string> plugins;
  bool trace = false, vcd = false;  // per-point outputs besides the report
  std::vector<std::string> keys;    // every overridden key, in first-use order
  bool has_seed = false;
  std::vector<Point> points;
  SlurmSpec slurm;

  nlohmann::ordered_json to_json() const;
  static Plan from_json(const nlohmann::json& j, const std::string& file);
};

// Parses a sweep file and expands its points (scenario paths made absolute, relative to the
// sweep file). Throws InputError naming file, line, column and value.
Plan plan_file(const std::string& path);
Plan plan_text(const std::string& text, const std::string& file);

// Checks every point's platform profile with its overrides in-process (the validation
// `npusim run` does before it simulates); scenarios are parsed once each. A torch_op
// scenario's op must exist among the built-in ops and the plan's plugins (loaded here, as
// `npusim run --plugin` loads them). Throws InputError naming the point, its overrides, the key
// and where it was written.
void validate(const Plan& plan);

// Makes DIR for a sweep's files: a new folder, an empty one, or one that holds a sweep (its
// plan.json). Throws InputError naming `what` (the option) otherwise.
void prepare_sweep_dir(const std::string& dir, const char* what);

// Writes DIR/plan.json (the plan every later step reads back).
void write_plan(const Plan& plan, const std::string& dir);
Plan read_plan(const std::string& dir);

// Whether the point's files in DIR are those of a finished run of exactly this point.
bool point_complete(const std::string& dir, const Point& p);

struct LocalOptions {
  unsigned jobs = 1;
  bool progress = true;  // one progress line on stderr
};
struct Summary {
  std::size_t total = 0, ran = 0, skipped = 0, failed = 0, missing = 0;
  int signal = 0;  // run_local: the SIGINT/SIGTERM that stopped the sweep, 0 if none
  std::string first_failure;  // the first failed point and why ("point 3 (failed): ..."), if any
};

// Runs every incomplete point, `jobs` at a time, then collects. A failed point is recorded
// and does not stop the sweep. SIGINT/SIGTERM stop launching and send the same signal to the
// running points (each in its own process group, so a terminal's Ctrl-C reaches them once, from
// the sweep): they stop at their next step and write a report marked "interrupted", which the
// sweep keeps (status `interrupted`) and runs again on resume. Then it collects what finished.
Summary run_local(const Plan& plan, const std::string& dir, const LocalOptions& opt,
                  std::ostream& log);

// Runs point `index` of DIR's plan (a Slurm array task); returns the point's exit code.
int run_point(const std::string& dir, std::size_t index);

// Merges DIR's point files into DIR/results.csv and DIR/results.jsonl.
Summary collect(const std::string& dir);

// Writes DIR/sweep.sbatch (the array, `chunk` points per task), DIR/collect.sbatch (the
// dependent merge) and DIR/submit.sh. Returns the number of array tasks.
std::size_t emit_slurm(const Plan& plan, const std::string& dir, std::size_t chunk,
                       std::ostream& log);

// This program's own path (/proc/self/exe), for the child runs and the Slurm scripts.
std::string self_exe();

}  // namespace npusim::sim::sweep
