// The HTML report's data: the fast trace scanner, heap blocks, downsampling, bad input, and the
// page's escaping. (The page in a browser: html_tests.cmake.)
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "sim/output/chrome_trace.h"
#include "sim/output/html_report.h"
#include "sim/output/report_data.h"
#include "sim/output/trace_scan.h"

using namespace npusim::sim;
using Json = nlohmann::ordered_json;
namespace fs = std::filesystem;

namespace {

struct TempFile {
  fs::path path;
  explicit TempFile(const std::string& name, const std::string& text = "") {
    path = fs::temp_directory_path() / ("npusim_html_" + std::to_string(getpid()) + "_" + name);
    if (!text.empty()) std::ofstream(path) << text;
  }
  ~TempFile() { fs::remove(path); }
  std::string str() const { return path.string(); }
};

const char* kReport = R"({"npusim_report_version": 1, "scenario": {"name": "t", "file": "t.yaml",
  "description": "</script><script>alert(1)</script>"}, "markers": [{"time_ns": 1, "text": "a"},
  {"time_ns": 2, "text": "b"}, {"time_ns": 3, "text": "c"}]})";

// A trace like a run's: calls, a DMA channel, heap counters, heap blocks, a fault, a marker.
void write_trace(const std::string& path, int calls) {
  ChromeTrace t(path);
  const int core = t.track("mgmt_core", "firmware calls", 0);
  const int dma = t.track("dma", "channel 0", 0);
  const int blocks = t.track("heaps", "blocks", 0);
  const int faults = t.track("faults", "faults and violations", 0);
  t.instant(blocks, "pool", 0.0, {{"heap", "dataram"}, {"base", "0x80000"}, {"size", 4096}});
  for (int i = 0; i < calls; ++i) {
    t.slice(core, "neuron_dataram_allocate", i * 1.0, 0.25, {{"args", "size=64 align=0"}, {"status", 0}});
    t.slice(dma, "64 B", i * 1.0 + 0.5, 0.125);
    t.counter("heaps", "dataram bytes", i * 1.0, {{"free_bytes", 4096.0 - (i % 7) * 64}, {"largest_free", 100.0 + i}});
    t.instant(core, "tick", i * 1.0 + 0.75, {{"step", "t.yaml:8:3"}});
  }
  t.instant(blocks, "alloc", 1.0, {{"heap", "dataram"}, {"base", "0x80010"}, {"size", 64}, {"ptr", "0x80040"}});
  t.instant(blocks, "alloc", 2.0, {{"heap", "dataram"}, {"base", "0x80100"}, {"size", 128}, {"ptr", "0x80100"}});
  t.instant(blocks, "free", 3.0, {{"heap", "dataram"}, {"base", "0x80010"}});
  t.instant(faults, "bad free", 3.5, {{"heap", "dataram"}, {"addr", 0x80010}, {"step", "t.yaml:9:3"}});
  t.instant(core, "tick", 4.0, {{"step", "t.yaml:10:3"}});
  t.set_metadata({{"end_us", calls * 1.0}});
  t.close();
}

}  // namespace

TEST_CASE("scan_event_line reads the events ChromeTrace writes and refuses anything else") {
  ScannedEvent e;
  REQUIRE(scan_event_line(R"({"ph":"X","pid":1,"tid":2,"ts":1.500000,"dur":0.032125,"name":"copy","args":{"len":4096}})", e));
  CHECK(e.ph == 'X');
  CHECK(e.pid == 1);
  CHECK(e.tid == 2);
  CHECK(e.ts == 1.5);
  CHECK(e.dur == 0.032125);
  CHECK(e.name == "copy");
  REQUIRE(scan_event_line(R"({"ph":"C","pid":3,"tid":0,"ts":2.000000,"name":"dataram bytes","args":{"free":61440,"used":4096.5}})", e));
  std::vector<std::pair<std::string_view, double>> args;
  REQUIRE(scan_number_args(e.rest, args));
  REQUIRE(args.size() == 2);
  CHECK(args[0].first == "free");
  CHECK(args[1].second == 4096.5);
  CHECK_FALSE(scan_event_line(R"({"ph":"X","pid":1,"tid":2,"ts":1.5,"dur":1,"name":"a\"b"})", e));  // escape
  CHECK_FALSE(scan_event_line(R"({"ph": "X", "pid": 1, "tid": 2, "ts": 1.5, "name": "a"})", e));    // layout
  CHECK_FALSE(scan_event_line(R"({"ph":"M","pid":1,"tid":0,"name":"process_name"})", e));
  CHECK_FALSE(scan_event_line(R"({"ph":"X","pid":1,"tid":2,"ts":1.5,"name":"no dur"})", e));
  CHECK_FALSE(scan_number_args(R"(,"args":{"a":"text"}})", args));
  CHECK_FALSE(scan_number_args(R"(,"args":{"a":1,"b":{"c":2}}})", args));
}

TEST_CASE("load_run_data: the fast scanner and the JSON parser read a trace the same way") {
  TempFile rep("r.json", kReport), tr("t.json");
  write_trace(tr.str(), 50);
  HtmlLimits fast, slow;
  slow.fast_scan = false;
  const Json a = load_run_data(rep.str(), tr.str(), fast), b = load_run_data(rep.str(), tr.str(), slow);
  CHECK(a == b);
  const Json& t = a["trace"];
  CHECK(t["end_us"] == 50.0);
  // Heap blocks: [base, size, t0, t1, live]; the freed block ends at its free, the live one at the end.
  const Json& h = t["heaps"]["dataram"];
  CHECK(h["pool"] == Json::array({0x80000, 4096}));
  CHECK(h["blocks"] == Json::array({0x80010, 64, 1.0, 3.0, 0, 0x80100, 128, 2.0, 50.0, 1}));
  CHECK(h["bad_frees"] == Json::array({Json::array({3.5, 0x80010})}));
  CHECK(t["faults_total"] == 1);
  // The call row holds 50 bars and 51 markers.
  const Json& row = t["rows"][0];
  CHECK(row["name"] == "firmware calls");
  CHECK(row["n"] == 50);
  CHECK(row["s"].size() == 4 * 50);
  CHECK(row["m"].size() == 2 * 51);
}

TEST_CASE("load_run_data downsamples long rows and series, keeping their count and extremes") {
  TempFile rep("r.json", kReport), tr("t.json");
  write_trace(tr.str(), 20000);
  HtmlLimits lim;
  lim.slices_per_row = 100;
  lim.points = 60;
  lim.list = 2;
  const Json d = load_run_data(rep.str(), tr.str(), lim);
  const Json& row = d["trace"]["rows"][0];
  CHECK(row["n"] == 20000);
  REQUIRE(row["s"].size() / 4 <= 2 * 100 + 1);
  CHECK(row["s"].size() / 4 >= 100);  // merged within bins, not into one bar
  uint64_t merged = 0;
  for (size_t i = 3; i < row["s"].size(); i += 4) merged += row["s"][i].get<uint64_t>();
  CHECK(merged == 20000);  // every bar is in one merged bar
  const Json& free = d["trace"]["counters"][0]["series"]["free_bytes"];
  REQUIRE(free.size() / 2 <= 62);
  double lo = 1e18, hi = 0;
  for (size_t i = 1; i < free.size(); i += 2) {
    lo = std::min(lo, free[i].get<double>());
    hi = std::max(hi, free[i].get<double>());
  }
  CHECK(lo == 4096.0 - 6 * 64);  // the minimum and maximum survive
  CHECK(hi == 4096.0);
  // 20000 markers thinned evenly to at most 2 x 2: the last kept one is late in the run.
  const Json& m = row["m"];
  REQUIRE(m.size() / 2 <= 4);
  CHECK(m[m.size() - 2].get<double>() > 10000.0);
  // Tables are cut to the limit and say so.
  CHECK(d["report"]["markers"].size() == 2);
  CHECK(d["truncated"]["markers"] == 3);
}

TEST_CASE("load_run_data names the file, the line and the value of bad input") {
  TempFile bad("bad.json", "{\n  \"npusim_report_version\": 1,\n  \"scenario\": oops\n}\n");
  CHECK_THROWS_WITH(load_run_data(bad.str(), ""), Catch::Contains(bad.str() + ":3:15: not valid JSON: invalid literal (at 'oops')"));
  TempFile other("other.json", "{\"traceEvents\": []}\n");
  CHECK_THROWS_WITH(load_run_data(other.str(), ""), Catch::Contains("not a npusim report"));
  TempFile v2("v2.json", "{\"npusim_report_version\": 2}\n");
  CHECK_THROWS_WITH(load_run_data(v2.str(), ""), Catch::Contains(v2.str() + ": npusim_report_version: this npusim reads version 1 (at '2')"));
  CHECK_THROWS_WITH(load_run_data("/nonexistent/r.json", ""), Catch::Contains("/nonexistent/r.json: the report file does not exist"));
  TempFile rep("r.json", kReport);
  TempFile tr("t.json", "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":1,\"dur\":1,\"name\":\"a\"},\n{\"ph\":\"X\",\"pid\":1,\n");
  CHECK_THROWS_WITH(load_run_data(rep.str(), tr.str()), Catch::Contains(tr.str() + ":3: not a trace event: '{\"ph\":\"X\",\"pid\":1'"));
  TempFile nots("n.json", "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"name\":\"a\"}\n]}\n");
  CHECK_THROWS_WITH(load_run_data(rep.str(), nots.str()), Catch::Contains(nots.str() + ":2: event without a numeric \"ts\""));
}

TEST_CASE("html_report: data cannot close the script element; the page is self-contained") {
  TempFile rep("r.json", kReport);
  const std::string page = html_report({load_run_data(rep.str(), "")});
  CHECK(page.find("<\\/script><script>alert(1)<\\/script>") != std::string::npos);
  // d3, the data, the charts and the page: four scripts, each closed once.
  size_t closes = 0;
  for (size_t p = page.find("</script>"); p != std::string::npos; p = page.find("</script>", p + 1)) ++closes;
  CHECK(closes == 4);
  CHECK(page.find("<script src") == std::string::npos);
  CHECK(page.find("default-src 'none'") != std::string::npos);
  CHECK(page.find("<title>npusim report: t</title>") != std::string::npos);
}
