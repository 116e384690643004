// Chrome trace-event JSON and VCD writers: parse what they write and check it.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "sim/output/chrome_trace.h"
#include "sim/output/vcd_writer.h"

using namespace npusim::sim;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// A fresh path in the temp directory, removed when the test ends.
struct TempPath {
  fs::path path;
  explicit TempPath(const std::string& ext) {
    static int n = 0;
    path = fs::temp_directory_path() /
           ("npusim_test_" + std::to_string(::getpid()) + "_" + std::to_string(n++) + ext);
  }
  ~TempPath() {
    std::error_code ec;
    fs::remove(path, ec);
  }
  std::string str() const { return path.string(); }
};

std::string trace_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<json> events_where(const json& doc, const std::string& ph) {
  std::vector<json> v;
  for (const auto& e : doc["traceEvents"])
    if (e["ph"] == ph) v.push_back(e);
  return v;
}

// The args.name of the metadata event `what` for (pid, tid).
std::string meta_name(const json& doc, const std::string& what, int pid, int tid) {
  for (const auto& e : doc["traceEvents"])
    if (e["ph"] == "M" && e["name"] == what && e["pid"] == pid && e["tid"] == tid)
      return e["args"]["name"];
  return "<none>";
}

}  // namespace

TEST_CASE("trace: valid JSON with zero events", "[trace]") {
  TempPath p(".json");
  ChromeTrace t(p.str());
  CHECK(t.is_open());
  t.close();
  CHECK_FALSE(t.is_open());
  const json doc = json::parse(trace_text(p.str()));
  CHECK(doc["traceEvents"] == json::array());
  CHECK(doc["displayTimeUnit"] == "ns");
  CHECK(doc["otherData"] == json::object());
  CHECK(t.events() == 0);
}

TEST_CASE("trace: the destructor closes the file", "[trace]") {
  TempPath p(".json");
  {
    ChromeTrace t(p.str());
    t.instant(t.track("p", "t"), "x", 1.0);
  }
  const json doc = json::parse(trace_text(p.str()));
  CHECK(events_where(doc, "i").size() == 1);
}

TEST_CASE("trace: tracks, metadata, slices, instants, counters", "[trace]") {
  TempPath p(".json");
  ChromeTrace t(p.str());
  const int dma0 = t.track("dma", "channel 0");
  const int dma1 = t.track("dma", "channel 1", 7);
  const int core = t.track("core", "mgmt");
  CHECK(dma0 == 0);
  CHECK(dma1 == 1);
  CHECK(core == 2);
  CHECK(t.track("dma", "channel 0") == dma0);   // stable, no new metadata
  CHECK(t.track("core", "channel 0") != dma0);  // same thread name, other process

  t.slice(dma0, "copy", 1.5, 0.25, {{"src", 0x80000}, {"len", 64}});
  t.slice(dma1, "copy", 2.0, 1.0);
  t.instant(core, "window violation", 3.0, {{"bound", "upper"}});
  t.counter("heaps", "dataram", 4.0, {{"free", 1024}, {"used", 512.5}});
  t.set_metadata({{"scenario", "unit"}, {"seed", 1}});
  t.close();

  const json doc = json::parse(trace_text(p.str()));
  CHECK(doc["traceEvents"].size() == t.events());
  CHECK(doc["otherData"] == json({{"scenario", "unit"}, {"seed", 1}}));

  const auto slices = events_where(doc, "X");
  REQUIRE(slices.size() == 2);
  const auto& s0 = slices[0];
  CHECK(s0["name"] == "copy");
  CHECK(s0["ts"].get<double>() == Approx(1.5));
  CHECK(s0["dur"].get<double>() == Approx(0.25));
  CHECK(s0["args"] == json({{"src", 0x80000}, {"len", 64}}));
  CHECK_FALSE(slices[1].contains("args"));
  CHECK(meta_name(doc, "process_name", s0["pid"], 0) == "dma");
  CHECK(meta_name(doc, "thread_name", s0["pid"], s0["tid"]) == "channel 0");
  CHECK(meta_name(doc, "thread_name", slices[1]["pid"], slices[1]["tid"]) == "channel 1");
  CHECK(slices[0]["pid"] == slices[1]["pid"]);
  CHECK(slices[0]["tid"] != slices[1]["tid"]);

  // One process_name per process, one thread_name per track: dma, core, heaps; 4 tracks.
  int process_names = 0, thread_names = 0;
  std::map<int, int> thread_sort;
  for (const auto& e : events_where(doc, "M")) {
    process_names += e["name"] == "process_name";
    thread_names += e["name"] == "thread_name";
    if (e["name"] == "thread_sort_index")
      thread_sort[e["tid"].get<int>()] = e["args"]["sort_index"].get<int>();
    if (e["name"] != "process_name" && e["name"] != "process_sort_index")
      CHECK(e["pid"] != e["tid"]);  // a tid never doubles as a pid
  }
  CHECK(process_names == 3);
  CHECK(thread_names == 4);
  CHECK(thread_sort[slices[0]["tid"].get<int>()] == 0);
  CHECK(thread_sort[slices[1]["tid"].get<int>()] == 7);

  const auto instants = events_where(doc, "i");
  REQUIRE(instants.size() == 1);
  CHECK(instants[0]["s"] == "t");
  CHECK(instants[0]["name"] == "window violation");
  CHECK(instants[0]["args"]["bound"] == "upper");
  CHECK(meta_name(doc, "thread_name", instants[0]["pid"], instants[0]["tid"]) == "mgmt");

  const auto counters = events_where(doc, "C");
  REQUIRE(counters.size() == 1);
  CHECK(counters[0]["name"] == "dataram");
  CHECK(counters[0]["args"] == json({{"free", 1024}, {"used", 512.5}}));
  CHECK(meta_name(doc, "process_name", counters[0]["pid"], 0) == "heaps");
}

TEST_CASE("trace: timestamps keep picoseconds, never use exponents", "[trace]") {
  TempPath p(".json");
  ChromeTrace t(p.str());
  const int k = t.track("p", "t");
  t.slice(k, "a", 1234567.000001, 0.000001);  // 1.234567 s and 1 ps, in us
  t.slice(k, "b", 0.000002, 1e-7);            // 2 ps; 0.1 ps rounds to 0
  t.instant(k, "c", 1e9);                     // 1000 s
  t.instant(k, "d", 12345678901.5);           // 3.4 hours: the general path
  t.instant(k, "e", -1.5);
  t.close();
  const std::string text = trace_text(p.str());
  CHECK(text.find("\"ts\":1234567.000001,\"dur\":0.000001,") != std::string::npos);
  CHECK(text.find("\"ts\":0.000002,\"dur\":0.000000,") != std::string::npos);
  CHECK(text.find("\"ts\":1000000000.000000,") != std::string::npos);
  CHECK(text.find("\"ts\":12345678901.500000,") != std::string::npos);
  CHECK(text.find("\"ts\":-1.500000,") != std::string::npos);
  CHECK(text.find("e+") == std::string::npos);
  CHECK(text.find("e-") == std::string::npos);
  const auto doc = json::parse(text);
  CHECK(events_where(doc, "X")[0]["ts"].get<double>() == 1234567.000001);
}

TEST_CASE("trace: odd names are escaped", "[trace]") {
  TempPath p(".json");
  ChromeTrace t(p.str());
  const std::string proc = "say \"hi\"\\";
  const std::string thread = "line1\nline2\ttab\x01";
  const std::string name = std::string("nul\0byte", 8) + " \xff bad utf8, good: \xc3\xa9";
  const int k = t.track(proc, thread);
  t.slice(k, name, 0, 1, {{"key\"", "v\n"}});
  t.counter(proc, "c\"", 0, {{"series\n", 1}});
  t.close();
  const json doc = json::parse(trace_text(p.str()));
  const auto s = events_where(doc, "X").at(0);
  CHECK(meta_name(doc, "process_name", s["pid"], 0) == proc);
  CHECK(meta_name(doc, "thread_name", s["pid"], s["tid"]) == thread);
  CHECK(s["name"] == std::string("nul\0byte", 8) + " \xef\xbf\xbd bad utf8, good: \xc3\xa9");
  CHECK(s["args"]["key\""] == "v\n");
  const auto c = events_where(doc, "C").at(0);
  CHECK(c["name"] == "c\"");
  CHECK(c["args"]["series\n"] == 1);
}

TEST_CASE("trace: escaping of every UTF-8 class", "[trace]") {
  const auto esc = [](const std::string& s) {
    fmt::memory_buffer b;
    append_json_escaped(b, s);
    return fmt::to_string(b);
  };
  CHECK(esc("plain") == "plain");
  CHECK(esc("\x1f") == "\\u001f");
  CHECK(esc("\xe2\x82\xac") == "\xe2\x82\xac");           // euro sign, 3 bytes
  CHECK(esc("\xf0\x9f\x98\x80") == "\xf0\x9f\x98\x80");   // emoji, 4 bytes
  CHECK(esc("\xc0\xaf") == "\\ufffd\\ufffd");             // overlong
  CHECK(esc("\xed\xa0\x80") == "\\ufffd\\ufffd\\ufffd");  // surrogate
  CHECK(esc("\xe2\x82") == "\\ufffd\\ufffd");             // truncated
}

TEST_CASE("trace: flush makes events reach the file before close", "[trace]") {
  TempPath p(".json");
  ChromeTrace t(p.str());
  const int k = t.track("p", "t");
  for (int i = 0; i < 10; ++i) t.slice(k, "s", i, 1);
  t.flush();
  // Written beside the destination, which appears only once the trace is complete.
  CHECK(!std::filesystem::exists(p.str()));
  const std::string partial = trace_text(t.writing_path());
  CHECK(partial.find("\"ts\":9.000000") != std::string::npos);
  CHECK_THROWS(json::parse(partial));  // no terminator yet
  t.close();
  CHECK(json::parse(trace_text(p.str()))["traceEvents"].size() == 14);  // 4 metadata + 10
}

TEST_CASE("trace: many events stream through the buffer", "[trace]") {
  TempPath p(".json");
  ChromeTrace t(p.str());
  const int k = t.track("p", "t");
  for (int i = 0; i < 20000; ++i) t.slice(k, "slice", i * 0.001, 0.0005, {{"i", i}});
  t.close();
  const json doc = json::parse(trace_text(p.str()));
  const auto slices = events_where(doc, "X");
  REQUIRE(slices.size() == 20000);
  CHECK(slices[19999]["args"]["i"] == 19999);
  CHECK(slices[19999]["ts"].get<double>() == Approx(19.999));
}

TEST_CASE("trace: bad events are rejected before anything is written", "[trace]") {
  TempPath p(".json");
  ChromeTrace t(p.str());
  const int k = t.track("p", "t");
  CHECK_THROWS_AS(t.slice(k + 1, "x", 0, 1), std::invalid_argument);
  CHECK_THROWS_AS(t.slice(-1, "x", 0, 1), std::invalid_argument);
  CHECK_THROWS_AS(t.slice(k, "x", 0, -1), std::invalid_argument);
  CHECK_THROWS_AS(t.slice(k, "x", std::nan(""), 1), std::invalid_argument);
  CHECK_THROWS_AS(t.instant(k, "x", std::numeric_limits<double>::infinity()),
                  std::invalid_argument);
  CHECK_THROWS_AS(t.slice(k, "x", 0, 1, json::array({1})), std::invalid_argument);
  CHECK_THROWS_AS(t.counter("p", "x", 0, {{"a", std::nan("")}}), std::invalid_argument);
  CHECK_THROWS_AS(t.set_metadata(json(3)), std::invalid_argument);
  CHECK_THROWS_WITH(t.slice(k, "named", 0, -1), Catch::Contains("named"));
  t.close();
  const json doc = json::parse(trace_text(p.str()));
  CHECK(doc["traceEvents"].size() == 4);  // the track's metadata only
}

TEST_CASE("trace: an unopenable path names the path", "[trace]") {
  CHECK_THROWS_WITH(ChromeTrace("/nonexistent-dir/x.json"),
                    Catch::Contains("/nonexistent-dir/x.json"));
}

TEST_CASE("trace: close is idempotent and later events are dropped", "[trace]") {
  TempPath p(".json");
  ChromeTrace t(p.str());
  const int k = t.track("p", "t");
  t.slice(k, "before", 0, 1);
  t.close();
  const std::string closed = trace_text(p.str());
  const uint64_t n = t.events();
  t.slice(k, "after", 1, 1);
  t.counter("q", "after", 1, {{"v", 1}});
  t.close();
  t.flush();
  CHECK(t.events() == n);
  CHECK(trace_text(p.str()) == closed);
}

TEST_CASE("trace: close_all_open closes every live trace", "[trace]") {
  TempPath p1(".json"), p2(".json");
  ChromeTrace a(p1.str());
  auto b = std::make_unique<ChromeTrace>(p2.str());
  a.instant(a.track("p", "t"), "x", 0);
  ChromeTrace::close_all_open();
  CHECK_FALSE(a.is_open());
  CHECK_FALSE(b->is_open());
  CHECK(json::parse(trace_text(p1.str()))["traceEvents"].size() == 5);
  CHECK(json::parse(trace_text(p2.str()))["traceEvents"].empty());
  b.reset();                      // unregisters
  ChromeTrace::close_all_open();  // must not touch the destroyed trace
}

// ---------------------------------------------------------------------------------------------
// VCD

namespace {

struct VcdFile {
  std::vector<std::string> header;           // lines up to and including $enddefinitions
  std::vector<std::string> body;             // the rest
  std::map<std::string, std::string> id_of;  // "scope.scope.name" -> id
};

VcdFile parse_vcd(const std::string& text) {
  VcdFile f;
  std::istringstream in(text);
  std::vector<std::string> scopes;
  bool in_header = true;
  for (std::string line; std::getline(in, line);) {
    (in_header ? f.header : f.body).push_back(line);
    if (!in_header) continue;
    std::istringstream w(line);
    std::string kw;
    w >> kw;
    if (kw == "$scope") {
      std::string type, name;
      w >> type >> name;
      scopes.push_back(name);
    } else if (kw == "$upscope") {
      scopes.pop_back();
    } else if (kw == "$var") {
      std::string type, width, id, name;
      w >> type >> width >> id >> name;
      std::string full;
      for (const auto& s : scopes) full += s + ".";
      f.id_of[full + name] = id;
    } else if (kw == "$enddefinitions") {
      in_header = false;
      REQUIRE(scopes.empty());
    }
  }
  return f;
}

}  // namespace

TEST_CASE("vcd: valid with no changes", "[vcd]") {
  TempPath p(".vcd");
  VcdWriter w(p.str());
  w.integer("heaps.dataram.free_bytes", 32);
  w.wire("dma.busy");
  w.real("heaps.dataram.fragmentation");
  w.close();
  const auto f = parse_vcd(trace_text(p.str()));
  CHECK(f.header.at(0) == "$version npusim $end");
  CHECK(f.header.at(1) == "$timescale 1ps $end");
  REQUIRE(f.id_of.size() == 3);
  const std::string fb = f.id_of.at("heaps.dataram.free_bytes");
  const std::string busy = f.id_of.at("dma.busy");
  const std::string frag = f.id_of.at("heaps.dataram.fragmentation");
  CHECK(f.body ==
        std::vector<std::string>{"#0", "$dumpvars", "bx " + fb, "x" + busy, "r0 " + frag, "$end"});
  CHECK(w.changes() == 0);
}

TEST_CASE("vcd: header declares scopes, widths and unique ids", "[vcd]") {
  TempPath p(".vcd");
  VcdWriter w(p.str());
  w.integer("a.x", 8);
  w.wire("b.y");
  w.integer("a.c.z", 1);
  w.real("top");
  w.close();
  const std::string text = trace_text(p.str());
  CHECK(text.find("$scope module a $end\n$var reg 8 ! x [7:0] $end\n"
                  "$scope module c $end\n$var reg 1 # z $end\n$upscope $end\n$upscope $end\n"
                  "$scope module b $end\n$var wire 1 \" y $end\n$upscope $end\n") !=
        std::string::npos);
  CHECK(text.find("$var real 64 $ top $end\n") < text.find("$scope"));
}

TEST_CASE("vcd: identifier codes stay unique past one character", "[vcd]") {
  TempPath p(".vcd");
  VcdWriter w(p.str());
  for (int i = 0; i < 200; ++i) w.wire("s.w" + std::to_string(i));
  w.close();
  const auto f = parse_vcd(trace_text(p.str()));
  std::map<std::string, int> seen;
  for (const auto& [name, id] : f.id_of) {
    ++seen[id];
    for (const char c : id) CHECK((c >= '!' && c <= '~'));
  }
  CHECK(f.id_of.size() == 200);
  CHECK(seen.size() == 200);
}

TEST_CASE("vcd: values only on change, time lines only when time advances", "[vcd]") {
  TempPath p(".vcd");
  VcdWriter w(p.str());
  const auto n = w.integer("h.n", 8);
  const auto b = w.wire("h.b");
  const auto r = w.real("h.r");
  w.change(0, n, 5);
  w.change(0, b, true);
  w.change(10, n, 5);    // unchanged: nothing, and no #10
  w.change(20, n, 10);   // b1010
  w.change(20, r, 0.0);  // reals start at 0: unchanged
  w.change(20, r, 2.5);
  w.change(30, n, -1);  // two's complement in 8 bits
  w.change(30, b, 0);
  w.change(30, n, 255);  // same bits as -1
  w.change(VcdWriter::ps(39.6), b, 1u);
  w.close(100);
  const auto f = parse_vcd(trace_text(p.str()));
  const std::string in = f.id_of.at("h.n"), ib = f.id_of.at("h.b"), ir = f.id_of.at("h.r");
  const std::vector<std::string> want = {
      "#0",         "$dumpvars",       "bx " + in,
      "x" + ib,     "r0 " + ir,        "$end",        // starting state
      "b101 " + in, "1" + ib,                         // at 0
      "#20",        "b1010 " + in,     "r2.5 " + ir,  //
      "#30",        "b11111111 " + in, "0" + ib,      //
      "#40",        "1" + ib,                         //
      "#100",                                         // close(100)
  };
  CHECK(f.body == want);
  CHECK(w.changes() == 7);
}

TEST_CASE("vcd: time going backwards names the signal and both times", "[vcd]") {
  TempPath p(".vcd");
  VcdWriter w(p.str());
  const auto a = w.integer("x.a", 4);
  const auto b = w.integer("x.b", 4);
  w.change(50, a, 1);
  w.change(60, b, 1);  // the latest time counts even when nothing is written
  w.change(60, b, 1);
  CHECK_THROWS_AS(w.change(55, a, 2), std::logic_error);
  CHECK_THROWS_WITH(w.change(55, a, 2),
                    Catch::Contains("x.a") && Catch::Contains("55 ps") && Catch::Contains("60 ps"));
  CHECK_THROWS_AS(w.close(59), std::logic_error);
  w.close();
  const auto f = parse_vcd(trace_text(p.str()));
  CHECK(f.body.back() == "b1 " + f.id_of.at("x.b"));
}

TEST_CASE("vcd: declaration and value errors", "[vcd]") {
  TempPath p(".vcd");
  VcdWriter w(p.str());
  CHECK_THROWS_AS(w.integer("a", 0), std::invalid_argument);
  CHECK_THROWS_AS(w.integer("a", 65), std::invalid_argument);
  CHECK_THROWS_AS(w.wire("a..b"), std::invalid_argument);
  CHECK_THROWS_AS(w.wire("a b"), std::invalid_argument);
  CHECK_THROWS_AS(w.wire(""), std::invalid_argument);
  const auto n = w.integer("a.n", 4);
  const auto wi = w.wire("a.w");
  const auto wide = w.integer("a.wide", 64);
  CHECK_THROWS_WITH(w.wire("a.n"), Catch::Contains("a.n") && Catch::Contains("twice"));
  CHECK_THROWS_WITH(w.change(0, n, 16), Catch::Contains("a.n") && Catch::Contains("4 bits"));
  CHECK_THROWS_AS(w.change(0, n, -9), std::invalid_argument);
  CHECK_THROWS_AS(w.change(0, wi, 2), std::invalid_argument);
  CHECK_THROWS_AS(w.change(0, n, 1.5), std::invalid_argument);
  CHECK_THROWS_AS(w.change(0, VcdWriter::Signal{9}, 1), std::invalid_argument);
  CHECK_THROWS_AS(VcdWriter::ps(-1.0), std::invalid_argument);
  w.change(0, n, -8);  // fits: 1000
  w.change(0, wide, UINT64_MAX);
  CHECK_THROWS_AS(w.real("a.late"), std::logic_error);  // header already written
  w.close();
  const auto f = parse_vcd(trace_text(p.str()));
  CHECK(f.body.at(f.body.size() - 2) == "b1000 " + f.id_of.at("a.n"));
  CHECK(f.body.back() == "b" + std::string(64, '1') + " " + f.id_of.at("a.wide"));
}

TEST_CASE("vcd: close_all_open and changes after close", "[vcd]") {
  TempPath p(".vcd");
  VcdWriter w(p.str());
  const auto s = w.wire("s");
  w.change(5, s, 1);
  VcdWriter::close_all_open();
  CHECK_FALSE(w.is_open());
  const std::string closed = trace_text(p.str());
  w.change(10, s, 0);  // dropped
  w.close();
  CHECK(trace_text(p.str()) == closed);
  CHECK(parse_vcd(closed).body.back() == "1" + parse_vcd(closed).id_of.at("s"));
}

TEST_CASE("vcd: an unopenable path names the path", "[vcd]") {
  CHECK_THROWS_WITH(VcdWriter("/nonexistent-dir/x.vcd"), Catch::Contains("/nonexistent-dir/x.vcd"));
}
