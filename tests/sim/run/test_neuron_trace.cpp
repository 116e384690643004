// A Neuron run's trace of marker steps: one instant per run of the step on the firmware-calls
// row, named by its text, with the step's place as args. One simulating TEST_CASE per process.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/run/run_observers.h"
#include "sim/run/scenario_runner.h"

using namespace npusim::sim;
namespace fs = std::filesystem;

TEST_CASE("neuron trace: a marker in a loop is one instant per trip, named and placed") {
  const std::string path =
      (fs::temp_directory_path() / ("npusim_neuron_trace_" + std::to_string(::getpid()) + ".json")).string();
  const auto sc = parse_scenario(R"y(
name: markers
program:
  - loop:
      count: 3
      body:
        - compute: 10
        - marker: "tick \"x\""
  - marker: done
)y", "m.yaml");
  RunOptions opt;
  opt.trace_path = path;
  std::ostringstream out;
  const auto r = run_scenario(sc, opt, out, make_observers(opt));
  REQUIRE(r.exit_code == 0);
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  fs::remove(path);
  const auto t = nlohmann::json::parse(ss.str());
  int pid = -1, tid = -1;
  for (const auto& e : t["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "thread_name" && e["args"]["name"] == "firmware calls")
      pid = e["pid"], tid = e["tid"];
  std::vector<double> ticks;
  int done = 0;
  for (const auto& e : t["traceEvents"]) {
    if (e["ph"] != "i" || e["pid"] != pid || e["tid"] != tid) continue;
    if (e["name"] == "tick \"x\"") {
      CHECK(e["args"] == nlohmann::json{{"step", "m.yaml:8:11"}});
      ticks.push_back(e["ts"].get<double>());
    } else if (e["name"] == "done") {
      CHECK(e["args"] == nlohmann::json{{"step", "m.yaml:9:5"}});
      ++done;
    }
  }
  REQUIRE(ticks.size() == 3);
  CHECK(done == 1);
  CHECK(ticks[0] < ticks[1]);
  CHECK(ticks[1] < ticks[2]);
}
