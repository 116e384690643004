// `npusim sweep` without running anything: the sweep file's expansion into points, its error
// messages, per-point validation, completeness, the merge into results.csv/.jsonl and the
// Slurm scripts. (Running points as processes: tests/sweep/sweep_cli.sh.)
#include <unistd.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/input/input_error.h"
#include "sim/tools/sweep.h"
#include "sim/tools/sweep_files.h"

using namespace npusim::sim;
using namespace npusim::sim::sweep;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// A fresh scratch folder per test case.
fs::path scratch(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("npusim_test_sweep_" + std::to_string(::getpid())) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The message of the InputError `f` throws.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string sets_of(const Point& p) {
  std::string s;
  for (const auto& [k, v] : p.sets) s += k + "=" + v + " ";
  return s;
}

}  // namespace

TEST_CASE("sweep: a grid is the cartesian product, first key slowest, then the list points") {
  const Plan p = plan_text(
      "name: g\n"
      "grid:\n"
      "  dma.channels: [1, 2]\n"
      "  hbm.tck_ns: [0.5, 0.625, 1.0]\n"
      "points:\n"
      "  - {dma.outstanding: 2}\n",
      "g.yaml");
  REQUIRE(p.points.size() == 7);
  CHECK(sets_of(p.points[0]) == "dma.channels=1 hbm.tck_ns=0.5 ");
  CHECK(sets_of(p.points[1]) == "dma.channels=1 hbm.tck_ns=0.625 ");
  CHECK(sets_of(p.points[3]) == "dma.channels=2 hbm.tck_ns=0.5 ");
  CHECK(sets_of(p.points[6]) == "dma.outstanding=2 ");
  CHECK(p.keys == std::vector<std::string>{"dma.channels", "hbm.tck_ns", "dma.outstanding"});
  for (std::size_t i = 0; i < p.points.size(); ++i) {
    CHECK(p.points[i].index == i);
    CHECK(p.points[i].scenario == "default");
  }
  CHECK(p.name == "g");
  CHECK_FALSE(p.has_seed);
}

TEST_CASE("sweep: repeat and seeds multiply every point, no grid is one point per scenario") {
  const Plan p = plan_text(
      "grid: {dma.channels: [1, 2]}\n"
      "repeat: 2\n"
      "seeds: {key: dma.outstanding, values: [3, 4]}\n",
      "dir/seeded.yaml");
  REQUIRE(p.points.size() == 8);
  CHECK(p.name == "seeded");  // the file's stem
  CHECK(p.has_seed);
  CHECK(sets_of(p.points[0]) == "dma.channels=1 dma.outstanding=3 ");
  CHECK(p.points[0].rep == 0);
  CHECK(p.points[1].rep == 1);
  CHECK(*p.points[2].seed == "4");
  CHECK(sets_of(p.points[7]) == "dma.channels=2 dma.outstanding=4 ");
  CHECK(p.points[7].rep == 1);

  const Plan one = plan_text("repeat: 3\n", "r.yaml");
  REQUIRE(one.points.size() == 3);
  CHECK(one.points[2].sets.empty());
}

TEST_CASE("sweep: scenario paths are relative to the sweep file") {
  const fs::path d = scratch("paths");
  fs::create_directories(d / "sc");
  fs::copy_file(fs::path(NPUSIM_SOURCE_DIR) / "scenarios/default.yaml", d / "sc/a.yaml");
  std::ofstream(d / "s.yaml") << "scenarios: [sc/a.yaml, default]\ngrid: {dma.channels: [1, 2]}\n";
  const Plan p = plan_file((d / "s.yaml").string());
  REQUIRE(p.points.size() == 4);
  CHECK(p.points[0].scenario == (d / "sc/a.yaml").lexically_normal().string());
  CHECK(p.points[2].scenario == "default");
  std::ofstream(d / "m.yaml") << "scenario: nope.yaml\n";
  CHECK_THAT(error_of([&] { plan_file((d / "m.yaml").string()); }),
             Catch::Contains("m.yaml:1:11: scenario file '") && Catch::Contains("nope.yaml' does not exist"));
}

TEST_CASE("sweep: a bad sweep file is rejected naming the line, column and value") {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"grid: {dma.channels: [1]}\nrepeats: 2\n", "s.yaml:2:1: unknown key 'repeats' in a sweep"},
      {"grid:\n  dma.channels: 2\n", "s.yaml:2:17: grid key 'dma.channels' takes a non-empty list of values (at '2')"},
      {"grid:\n  dma.channels: [1, 2, 1]\n", "s.yaml:2:24: value '1' of grid key 'dma.channels' is listed twice"},
      {"grid:\n  channels: [1]\n", "s.yaml:2:3: 'channels' is not a platform key"},
      {"repeat: 0\n", "s.yaml:1:9: repeat must be a whole number from 1 to 100000 (at '0')"},
      {"outputs: [report, html5]\n", "s.yaml:1:19: unknown output 'html5' (report, trace, vcd)"},
      {"grid: {dma.channels: [1]}\nseeds: {key: dma.channels, values: [1]}\n", "the seeds key is also swept"},
      {"points:\n  - {dma.channels: 1, dma.channels: 2}\n", "s.yaml:2:"},
      {"slurm: {cpus: 4}\n", "s.yaml:1:9: unknown key 'cpus' in slurm"},
      {"name: a b\n", "s.yaml:1:7: name may hold letters"},
      {"grid: [1, 2]\n", "s.yaml:1:7: grid takes a map"},
  };
  for (const auto& c : cases) {
    const std::string& text = c.first;  // a plain reference: C++17 lambdas cannot capture bindings
    INFO(text);
    CHECK_THAT(error_of([&] { plan_text(text, "s.yaml"); }), Catch::Contains(c.second));
  }
}

TEST_CASE("sweep: validation rejects a point with a bad value, naming the point, key and place") {
  const Plan ok = plan_text("grid:\n  dma.channels: [1, 4]\n  heaps.dataram_pool_size: [0x2000, 0x4000]\n", "s.yaml");
  CHECK_NOTHROW(validate(ok));
  const Plan bad = plan_text("grid:\n  heaps.dataram_pool_size: [0x2000]\n  dma.channels: [1, 0]\n", "s.yaml");
  const std::string e = error_of([&] { validate(bad); });
  CHECK_THAT(e, Catch::StartsWith("s.yaml:3:21: point 1 (default, heaps.dataram_pool_size=0x2000 dma.channels=0) is rejected: must be at least 1 (at 'dma.channels=0')"));
  const Plan unknown = plan_text("points:\n  - {dma.chanels: 2}\n", "s.yaml");
  CHECK_THAT(error_of([&] { validate(unknown); }), Catch::Contains("s.yaml:2:19: point 0 (default, dma.chanels=2) is rejected: unknown key"));
  // A snitch-cluster scenario is checked against its own profile.
  const fs::path d = scratch("snitch");
  std::ofstream(d / "s.yaml") << "scenario: " << NPUSIM_SOURCE_DIR << "/scenarios/snitch/core_local.yaml\n"
                              << "grid: {cluster.clusters: [1, 65]}\n";
  CHECK_THAT(error_of([&] { validate(plan_file((d / "s.yaml").string())); }),
             Catch::Contains("point 1 (core_local.yaml, cluster.clusters=65) is rejected: must be between 1 and 64"));
}

TEST_CASE("sweep: a point is complete only with its own definition, a status and a whole report") {
  const fs::path d = scratch("complete");
  const Plan p = plan_text("grid: {dma.channels: [1, 2]}\n", "c.yaml");
  write_plan(p, d.string());
  const fs::path pd = point_dir(d.string(), 0);
  CHECK(pd == d / "points" / "00000");
  fs::create_directories(pd);
  CHECK_FALSE(point_complete(d.string(), p.points[0]));
  write_json_file((pd / kPointFile).string(), p.points[0].to_json());
  write_json_file((pd / kStatusFile).string(), {{"exit_code", 0}, {"signal", nullptr}, {"host_time_s", 0.1}, {"message", ""}});
  CHECK_FALSE(point_complete(d.string(), p.points[0]));  // no report
  std::ofstream(pd / kReportFile) << "{\"npusim_report_version\": 1, \"outcome\": {\"status\": \"ok\"";  // cut short
  CHECK_FALSE(point_complete(d.string(), p.points[0]));
  std::ofstream(pd / kReportFile) << "{\"npusim_report_version\": 1, \"outcome\": {\"status\": \"ok\"}}";
  CHECK(point_complete(d.string(), p.points[0]));
  CHECK_FALSE(point_complete(d.string(), p.points[1]));  // another point's files
  CHECK(read_plan(d.string()).to_json() == p.to_json());
}

TEST_CASE("sweep: collect writes every override, status and metric, failed and missing points are rows") {
  const fs::path d = scratch("collect");
  const Plan p = plan_text("grid: {dma.channels: [1, 2, 4]}\npoints: [{hbm.tck_ns: 1.0}]\n", "c.yaml");
  write_plan(p, d.string());
  auto put = [&](std::size_t i, const json& status, const std::string& report) {
    const fs::path pd = point_dir(d.string(), i);
    fs::create_directories(pd);
    write_json_file((pd / kPointFile).string(), p.points[i].to_json());
    write_json_file((pd / kStatusFile).string(), status);
    if (!report.empty()) std::ofstream(pd / kReportFile) << report;
  };
  put(0, {{"exit_code", 0}, {"signal", nullptr}, {"host_time_s", 0.25}, {"message", ""}},
      R"({"npusim_report_version":1,"outcome":{"status":"ok"},"metrics":{"duration":100.5,"dma.bytes":64}})");
  put(1, {{"exit_code", 2}, {"signal", nullptr}, {"host_time_s", 0.01}, {"message", "bad \"x\", really"}}, "");
  put(2, {{"exit_code", nullptr}, {"signal", 9}, {"host_time_s", 3.0}, {"message", "killed by signal 9 (Killed)"}}, "");
  // point 3 never ran
  const Summary s = collect(d.string());
  CHECK(s.total == 4);
  CHECK(s.ran == 3);
  CHECK(s.failed == 2);
  CHECK(s.missing == 1);
  std::istringstream csv(slurp(d / "results.csv"));
  std::vector<std::string> lines;
  for (std::string l; std::getline(csv, l);) lines.push_back(l);
  REQUIRE(lines.size() == 5);
  CHECK(lines[0] == "point,scenario,rep,dma.channels,hbm.tck_ns,status,exit_code,host_time_s,message,dma.bytes,duration");
  CHECK(lines[1] == "0,default,0,1,,ok,0,0.25,,64,100.5");
  CHECK(lines[2] == "1,default,0,2,,rejected,2,0.01,\"bad \"\"x\"\", really\",,");
  CHECK(lines[3] == "2,default,0,4,,crashed,,3.0,killed by signal 9 (Killed),,");
  CHECK_THAT(lines[4], Catch::StartsWith("3,default,0,,1.0,not_run,,,"));
  std::istringstream jl(slurp(d / "results.jsonl"));
  std::string first;
  std::getline(jl, first);
  const json row = json::parse(first);
  CHECK(row["dma.channels"] == "1");
  CHECK(row["duration"] == 100.5);
  CHECK(row["exit_code"] == 0);
  CHECK(row["host_time_s"] == 0.25);

  // A point directory left by another sweep definition is not this point's result.
  const fs::path pd0 = point_dir(d.string(), 0);
  write_json_file((pd0 / kPointFile).string(), p.points[1].to_json());
  CHECK(collect(d.string()).missing == 2);
  CHECK_THAT(slurp(d / "results.csv"), Catch::Contains("0,default,0,1,,not_run,,,the point directory holds another point"));
}

TEST_CASE("sweep: --emit slurm writes the array (chunks, resources) and an afterany collect job") {
  const fs::path d = scratch("slurm");
  const Plan p = plan_text(
      "name: big\n"
      "grid: {dma.channels: [1, 2, 3, 4, 5, 6, 7]}\n"
      "slurm: {partition: gpu, account: fw, time: \"01:00:00\", mem: 2G, cpus_per_task: 2, max_parallel: 3,\n"
      "        sbatch: [\"--constraint=avx2\"]}\n",
      "big.yaml");
  std::ostringstream log;
  CHECK(emit_slurm(p, (d / "out").string(), 3, log) == 3);
  const std::string a = slurp(d / "out/sweep.sbatch");
  for (const char* want : {"#SBATCH --array=0-2%3\n", "#SBATCH --partition=gpu\n", "#SBATCH --account=fw\n",
                           "#SBATCH --time=01:00:00\n", "#SBATCH --mem=2G\n", "#SBATCH --cpus-per-task=2\n",
                           "#SBATCH --constraint=avx2\n", "first=$((SLURM_ARRAY_TASK_ID * 3))", "[ \"$last\" -gt 7 ] && last=7",
                           "sweep --point \"$i\" -o '"})
    CHECK_THAT(a, Catch::Contains(want));
  CHECK_THAT(a, Catch::Contains("#SBATCH --output=" + (d / "out").string() + "/slurm/%A_%a.out"));
  CHECK(fs::is_directory(d / "out/slurm"));
  CHECK_THAT(slurp(d / "out/collect.sbatch"), Catch::Contains("sweep --collect '" + (d / "out").string() + "'"));
  CHECK_THAT(slurp(d / "out/submit.sh"), Catch::Contains("--dependency=afterany:\"$array\""));
  CHECK(read_plan((d / "out").string()).points.size() == 7);
  CHECK_THAT(error_of([&] { emit_slurm(p, (d / "x").string(), 0, log); }), Catch::Contains("--chunk"));
  CHECK_THAT(error_of([&] { emit_slurm(p, (d / "a b").string(), 1, log); }), Catch::Contains("cannot hold spaces"));
  CHECK_FALSE(fs::exists(d / "a b"));
  // More tasks than Slurm's default MaxArraySize: a warning that names --chunk.
  const Plan many = plan_text("repeat: 1002\n", "many.yaml");
  std::ostringstream warn;
  CHECK(emit_slurm(many, (d / "many").string(), 1, warn) == 1002);
  CHECK_THAT(warn.str(), Catch::Contains("exceed Slurm's default MaxArraySize (1001); use --chunk 2"));
}
