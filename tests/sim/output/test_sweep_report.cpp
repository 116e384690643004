// `npusim report --sweep`: reading a sweep's results.jsonl into the page's data (the page in a
// browser: html_tests.cmake).
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "sim/output/sweep_report.h"

using namespace npusim::sim;
using Json = nlohmann::ordered_json;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& jsonl) {
    path = fs::temp_directory_path() / ("npusim_sweep_report_" + std::to_string(getpid()));
    fs::create_directories(path);
    std::ofstream(path / "results.jsonl") << jsonl;
  }
  ~TempDir() { fs::remove_all(path); }
};

std::string load_error(const std::string& jsonl) {
  TempDir d(jsonl);
  try {
    load_sweep_data(d.path.string());
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no error";
}

const char* kRow0 =
    R"({"point":0,"scenario":"default","rep":0,"seed":7,"hbm.tck_ns":"0.5","status":"ok","exit_code":0,"host_time_s":0.1,"message":"","duration":100.5,"set.status":2,"dma.bytes":null})";
const char* kRow1 =
    R"({"point":1,"scenario":"default","rep":0,"seed":8,"hbm.tck_ns":"1.0","status":"fault","exit_code":1,"host_time_s":0.1,"message":"x","duration":120,"set.status":2,"dma.bytes":64})";

}  // namespace

TEST_CASE("sweep report data: swept keys between rep/seed and status, metrics after message", "[sweep]") {
  TempDir d(std::string(kRow0) + "\n\n" + kRow1 + "\n");
  const Json j = load_sweep_data(d.path.string());
  CHECK(j["params"] == Json::array({"hbm.tck_ns"}));
  CHECK(j["metrics"] == Json::array({"duration", "set.status", "dma.bytes"}));
  REQUIRE(j["points"].size() == 2);
  const auto& p1 = j["points"][1];
  CHECK(p1["point"] == 1);
  CHECK(p1["status"] == "fault");
  CHECK(p1["params"] == Json{{"hbm.tck_ns", "1.0"}});
  CHECK(p1["metrics"]["duration"] == 120);
  CHECK(j["points"][0]["metrics"]["dma.bytes"].is_null());
}

TEST_CASE("sweep report data: bad results.jsonl names the file, line and value", "[sweep]") {
  CHECK_THAT(load_error(std::string(kRow0) + "\n{\"point\":1,\n"),
             Catch::Contains("results.jsonl:2: not a JSON object") && Catch::Contains("{\"point\":1,"));
  CHECK_THAT(load_error("{\"point\":0,\"status\":\"ok\"}\n"), Catch::Contains("results.jsonl:1: no \"message\" member"));
  std::string bad = kRow1;
  bad.replace(bad.find("\"duration\":120"), 14, "\"duration\":\"slow\"");
  CHECK_THAT(load_error(std::string(kRow0) + "\n" + bad + "\n"),
             Catch::Contains("results.jsonl:2: a metric that is not a number (at 'duration=\"slow\"')"));
  std::string other = kRow1;
  other.replace(other.find("\"hbm.tck_ns\""), 12, "\"dma.channels\"");
  CHECK_THAT(load_error(std::string(kRow0) + "\n" + other + "\n"),
             Catch::Contains("results.jsonl:2: its columns differ"));
  CHECK_THAT(load_error(""), Catch::Contains("no points in this file"));
  CHECK_THAT([] {
    try {
      load_sweep_data("/nonexistent-sweep");
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  }(), Catch::Contains("/nonexistent-sweep/results.jsonl: no such sweep directory"));
}
