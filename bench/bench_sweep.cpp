// `npusim sweep` throughput (docs/performance.md): the one-point rate (one `npusim run` process
// of the default scenario, started and reaped) and the rate of a local sweep of the 1000-point
// grid of bench/sweep_1000.yaml with -j 1 and -j 2. Rates are points per wall second
// (items_per_second); the sweep's children do the work, so real time is what counts.
//   bench_sweep --benchmark_filter='BM_one_run|BM_points_serial/1000|BM_sweep/1000/'
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <filesystem>
#include <sstream>

#include "sim/tools/sweep.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using namespace npusim::sim;

// A child's stdout and stderr to /dev/null.
class Quiet {
 public:
  Quiet() {
    posix_spawn_file_actions_init(&fa_);
    posix_spawn_file_actions_addopen(&fa_, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&fa_, 1, 2);
  }
  ~Quiet() { posix_spawn_file_actions_destroy(&fa_); }
  Quiet(const Quiet&) = delete;
  Quiet& operator=(const Quiet&) = delete;
  posix_spawn_file_actions_t* fa() { return &fa_; }

 private:
  posix_spawn_file_actions_t fa_;
};

// Spawns argv, waits for it; false if it did not exit 0.
bool run_child(std::vector<std::string> args, posix_spawn_file_actions_t* fa) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  if (posix_spawn(&pid, argv[0], fa, nullptr, argv.data(), environ) != 0) return false;
  int st = 0;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

// One `npusim run` of the default scenario with its report, as one sweep point runs it.
void BM_one_run(benchmark::State& state) {
  const std::string report = (fs::temp_directory_path() / "npusim_bench_one_run.json").string();
  Quiet quiet;
  for (auto _ : state) {
    if (!run_child({NPUSIM_BINARY, "run", "--report", report}, quiet.fa())) {
      state.SkipWithError("npusim run failed");
      break;
    }
  }
  state.SetItemsProcessed(state.iterations());
}

// The one-point rate of the grid's own points: the first `points` points of the 1000-point grid
// as bare `npusim run --set ... --report R` processes, one after the other, no sweep driver.
// The points differ in work (HBM clock, pool size, DMA channels), so this, not BM_one_run, is
// the rate a sweep of N jobs is held against.
void BM_points_serial(benchmark::State& state) {
  const auto points = static_cast<std::size_t>(state.range(0));
  sweep::Plan plan = sweep::plan_file(NPUSIM_SOURCE_DIR "/bench/sweep_1000.yaml");
  plan.points.resize(std::min(points, plan.points.size()));
  const std::string report = (fs::temp_directory_path() / "npusim_bench_point.json").string();
  Quiet quiet;
  for (auto _ : state) {
    for (const auto& p : plan.points) {
      std::vector<std::string> args{NPUSIM_BINARY, "run"};
      if (p.scenario != "default") args.push_back(p.scenario);
      for (const auto& [k, v] : p.sets) args.insert(args.end(), {"--set", k + "=" + v});
      args.insert(args.end(), {"--report", report});
      if (!run_child(std::move(args), quiet.fa())) {
        state.SkipWithError("a point's npusim run failed");
        break;
      }
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * plan.points.size()));
}

// The first `points` points of the 1000-point grid, `jobs` at a time, into a fresh directory.
void BM_sweep(benchmark::State& state) {
  const auto points = static_cast<std::size_t>(state.range(0));
  const auto jobs = static_cast<unsigned>(state.range(1));
  sweep::Plan plan = sweep::plan_file(NPUSIM_SOURCE_DIR "/bench/sweep_1000.yaml");
  plan.npusim = NPUSIM_BINARY;  // not this benchmark program
  plan.points.resize(std::min(points, plan.points.size()));
  sweep::validate(plan);
  const std::string dir = (fs::temp_directory_path() / "npusim_bench_sweep").string();
  std::size_t failed = 0;
  for (auto _ : state) {
    state.PauseTiming();
    fs::remove_all(dir);
    sweep::write_plan(plan, dir);
    state.ResumeTiming();
    std::ostringstream log;
    const auto s = sweep::run_local(plan, dir, sweep::LocalOptions{jobs, false}, log);
    sweep::collect(dir);
    failed += s.failed;
  }
  if (failed) state.SkipWithError("some points failed");
  fs::remove_all(dir);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * plan.points.size()));
  state.counters["jobs"] = jobs;
}

BENCHMARK(BM_one_run)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_points_serial)->Arg(100)->Arg(1000)->Iterations(1)->UseRealTime()->Unit(benchmark::kSecond);
BENCHMARK(BM_sweep)->Args({100, 1})->Args({100, 2})->Args({1000, 1})->Args({1000, 2})
    ->Iterations(1)->UseRealTime()->Unit(benchmark::kSecond);

}  // namespace
