// --trace-filter and --trace-max-mb in the Chrome trace writer.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "sim/output/chrome_trace.h"

using namespace npusim::sim;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string temp_path() {
  static int n = 0;
  return (fs::temp_directory_path() /
          ("npusim_trace_control_" + std::to_string(::getpid()) + "_" + std::to_string(n++) + ".json"))
      .string();
}

json load(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  fs::remove(path);
  return json::parse(ss.str());
}

std::set<std::string> names_of(const json& t, const char* ph) {
  std::set<std::string> out;
  for (const auto& e : t["traceEvents"])
    if (e["ph"] == ph) out.insert(e["name"].get<std::string>());
  return out;
}

std::set<std::string> thread_names(const json& t) {
  std::set<std::string> out;
  for (const auto& e : t["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "thread_name") out.insert(e["args"]["name"].get<std::string>());
  return out;
}

}  // namespace

TEST_CASE("trace filter: only matching tracks and counters are written", "[trace]") {
  const std::string p = temp_path();
  {
    ChromeTrace t(p);
    t.set_filter({"dma", "*/firmware calls", "heaps"});
    const int calls = t.track("mgmt_core", "firmware calls");
    const int act = t.track("mgmt_core", "activity");
    const int ch0 = t.track("dma", "channel 0");
    const int ch1 = t.track("dma", "channel 1");
    t.slice(calls, "neuron_hbm_allocate", 1, 2);
    t.slice(act, "busy", 1, 2);
    t.slice(ch0, "transfer 0", 1, 2);
    t.instant(ch1, "done", 3);
    t.counter("heaps", "hbm bytes", 1, {{"used", 64}});
    t.counter("memories", "hbm bandwidth", 1, {{"GB/s", 3}});
    CHECK(t.dropped_by_filter() == 2);
  }
  const json t = load(p);
  CHECK(names_of(t, "X") == std::set<std::string>{"neuron_hbm_allocate", "transfer 0"});
  CHECK(names_of(t, "i") == std::set<std::string>{"done"});
  CHECK(names_of(t, "C") == std::set<std::string>{"hbm bytes"});
  CHECK(thread_names(t) == std::set<std::string>{"firmware calls", "channel 0", "channel 1"});
  CHECK(t["otherData"]["trace_filter"]["dropped_events"] == 2);
  std::set<std::string> processes;
  for (const auto& e : t["traceEvents"])
    if (e["name"] == "process_name") processes.insert(e["args"]["name"].get<std::string>());
  CHECK(processes == std::set<std::string>{"mgmt_core", "dma", "heaps"});  // no "memories"
}

TEST_CASE("trace filter: globs with * and ?", "[trace]") {
  const std::string p = temp_path();
  {
    ChromeTrace t(p);
    t.set_filter({"cluster ?/core*"});
    t.slice(t.track("cluster 0", "core 3"), "a", 0, 1);
    t.slice(t.track("cluster 0", "dm core"), "b", 0, 1);
    t.slice(t.track("cluster 12", "core 1"), "c", 0, 1);
  }
  CHECK(names_of(load(p), "X") == std::set<std::string>{"a"});
}

TEST_CASE("trace max size: events stop at the limit and the trace says so", "[trace]") {
  const std::string p = temp_path();
  uint64_t written = 0, dropped = 0;
  {
    ChromeTrace t(p);
    t.set_max_bytes(100 * 1024);
    const int tr = t.track("core", "calls");
    for (int i = 0; i < 20000; ++i) t.slice(tr, "a_fairly_long_event_name", i, 0.5);
    CHECK(t.truncated());
    written = t.events();
    dropped = t.dropped_by_limit();
  }
  const auto size = fs::file_size(p);
  CHECK(size < 100 * 1024 + 1024);  // the limit, plus the closing record
  CHECK(size > 90 * 1024);
  const json t = load(p);
  CHECK(t["otherData"]["trace_limit"]["truncated"] == true);
  CHECK(t["otherData"]["trace_limit"]["dropped_events"] == dropped);
  CHECK(t["traceEvents"].size() == written);
  CHECK(dropped + names_of(t, "X").size() > 0);
  size_t slices = 0;
  bool said = false;
  for (const auto& e : t["traceEvents"]) {
    slices += e["ph"] == "X";
    said = said || (e["ph"] == "i" && e["name"].get<std::string>().find("--trace-max-mb") != std::string::npos);
  }
  CHECK(said);
  CHECK(slices + dropped == 20000);
}

TEST_CASE("trace max size: no limit, no truncation record", "[trace]") {
  const std::string p = temp_path();
  {
    ChromeTrace t(p);
    const int tr = t.track("core", "calls");
    for (int i = 0; i < 1000; ++i) t.slice(tr, "x", i, 0.5);
    CHECK_FALSE(t.truncated());
  }
  const json t = load(p);
  CHECK_FALSE(t["otherData"].contains("trace_limit"));
  CHECK(names_of(t, "X").size() == 1);
}

TEST_CASE("trace fast args: the same event as with a json object", "[trace]") {
  const std::string a = temp_path(), b = temp_path();
  {
    ChromeTrace t(a);
    const int k = t.track("dma", "channel 0");
    t.slice(k, "4096 B", 1.5, 0.25,
            nlohmann::json{{"src", "0x100000000"}, {"len", 4096}, {"status", -99}, {"call_site", "a \"b\"\n"}});
    t.instant(k, "mark", 2, nlohmann::json{{"step", "s.yaml:3:5"}});
  }
  {
    ChromeTrace t(b);
    const int k = t.track("dma", "channel 0");
    t.slice_fast(k, "4096 B", 1.5, 0.25,
                 {TraceArg::hex("src", 0x100000000ull), TraceArg::uint("len", 4096),
                  TraceArg::integer("status", -99), TraceArg::str("call_site", "a \"b\"\n")});
    t.instant_fast(k, "mark", 2, {TraceArg::str("step", "s.yaml:3:5")});
    t.instant_fast(k, "bare", 3, {});
  }
  json ja = load(a), jb = load(b);
  REQUIRE(jb["traceEvents"].size() == ja["traceEvents"].size() + 1);
  jb["traceEvents"].erase(jb["traceEvents"].size() - 1);
  CHECK(ja == jb);
}

namespace {
std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  fs::remove(path);
  return ss.str();
}
}  // namespace

TEST_CASE("trace labels: the same bytes as instant_fast, first event included", "[trace]") {
  const std::string a = temp_path(), b = temp_path();
  const std::string name = "m \"q\" \xff";  // escaped and not UTF-8: rendered once, the same way
  {
    ChromeTrace t(a);
    const int k = t.track("mgmt_core", "firmware calls", 0);
    const int d = t.track("dma", "channel 0");
    for (double ts : {1.5, 2.5, 123456789.012345, 999999999.999999, 1e9 + 0.5})
      t.instant_fast(k, name, ts, {TraceArg::str("step", "a.yaml:1:2")});
    for (int i = 0; i < 3; ++i) {
      t.instant_fast(k, name, 1.5 + i, {TraceArg::str("step", "a.yaml:1:2")});
      t.slice_fast(d, "4096 B", 1.75 + i, 0.125, {TraceArg::uint("len", 4096)});
    }
  }
  {
    ChromeTrace t(b);
    const int k = t.track("mgmt_core", "firmware calls", 0);
    const int d = t.track("dma", "channel 0");
    const int l = t.label(name, {TraceArg::str("step", "a.yaml:1:2")});
    for (uint64_t ps : {1'500'000ull, 2'500'000ull, 123456789012345ull, 999999999999999ull, 1'000'000'000'500'000ull})
      t.instant_label(k, ps, l);
    for (int i = 0; i < 3; ++i) {
      t.instant_label(k, 1'500'000 + 1'000'000ull * i, l);
      t.slice_fast(d, "4096 B", 1.75 + i, 0.125, {TraceArg::uint("len", 4096)});
    }
    CHECK_THROWS_AS(t.instant_label(k, 1, l + 1), std::invalid_argument);
    CHECK_THROWS_AS(t.instant_label(k + 7, 1, l), std::invalid_argument);
  }
  CHECK(bytes_of(a) == bytes_of(b));
}

TEST_CASE("trace labels: filtered out and cut by the size limit like other events", "[trace]") {
  const std::string p = temp_path();
  {
    ChromeTrace t(p);
    t.set_filter({"dma"});
    const int k = t.track("mgmt_core", "firmware calls", 0);
    const int l = t.label("tick", {});
    for (int i = 0; i < 10; ++i) t.instant_label(k, i, l);
    CHECK(t.dropped_by_filter() == 10);
  }
  CHECK(names_of(load(p), "i").empty());
  const std::string q = temp_path();
  {
    ChromeTrace t(q);
    t.set_max_bytes(200 * 1000);
    const int k = t.track("mgmt_core", "firmware calls", 0);
    const int l = t.label("tick", {TraceArg::str("step", "a.yaml:1:2")});
    for (int i = 0; i < 100000; ++i) t.instant_label(k, i, l);
    CHECK(t.truncated());
    CHECK(t.dropped_by_limit() > 90000);
  }
  const json t = load(q);
  CHECK(t["otherData"]["trace_limit"]["truncated"] == true);
  CHECK(names_of(t, "i").count("tick") == 1);
}
