// `npusim check-windows`: descriptor parsing (CSV, JSON), every error message, every violation
// class against the firmware's dataram window, and both reports.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sim/input/input_error.h"
#include "sim/tools/check_windows.h"

using namespace npusim::sim;
using nlohmann::json;

namespace {

std::vector<Descriptor> csv(const std::string& text) {
  std::istringstream in(text);
  return parse_descriptors_csv(in, "d.csv");
}

std::vector<Descriptor> js(const std::string& text) {
  std::istringstream in(text);
  return parse_descriptors_json(in, "d.json");
}

// The InputError a parse throws, as (line, token, message).
struct Err {
  int line = -1;
  std::string token, what;
};
template <class F>
Err error_of(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return {e.line(), e.token(), e.what()};
  }
  FAIL("no InputError");
  return {};
}

npusim::models::DmaTransfer xfer(uint64_t src, uint64_t dst, uint64_t len) {
  npusim::models::DmaTransfer t;
  t.src = src;
  t.dst = dst;
  t.len = len;
  return t;
}

std::vector<Descriptor> descriptors(std::initializer_list<npusim::models::DmaTransfer> ts) {
  std::vector<Descriptor> v;
  for (const auto& t : ts) {
    Descriptor d;
    d.t = t;
    d.index = v.size();
    d.line = static_cast<int>(v.size()) + 2;
    v.push_back(d);
  }
  return v;
}

const std::vector<npusim::models::WindowRule> kDefault{npusim::models::WindowRule{}};

}  // namespace

// ------------------------------------------------------------------------------------- CSV

TEST_CASE("check-windows csv: columns in any order, extras, comments, numbers", "[check-windows]") {
  const auto v =
      csv("# captured on board 3\n"
          "\n"
          "len, DST ,src,name,call_site,channel\r\n"
          "64,0x80000,0x100000000,\"w, tile #0\",data_transfer.cpp:160,2  # first\n"
          "  # a comment line\n"
          "0x10,524352,0X200,,,\n");
  REQUIRE(v.size() == 2);
  CHECK(v[0].t.src == 0x100000000ull);
  CHECK(v[0].t.dst == 0x80000);
  CHECK(v[0].t.len == 64);
  CHECK(v[0].name == "w, tile #0");
  CHECK(v[0].call_site == "data_transfer.cpp:160");
  CHECK(v[0].channel == "2");
  CHECK(v[0].line == 4);
  CHECK(v[0].index == 0);
  CHECK(v[1].t.src == 0x200);
  CHECK(v[1].t.dst == 524352);
  CHECK(v[1].t.len == 16);
  CHECK(v[1].line == 6);
  CHECK(v[1].index == 1);
  CHECK(v[1].name.empty());
  CHECK(csv("src,dst,len\n").empty());
  const auto q = csv("src,dst,len,name\n1,2,3,\"say \"\"hi\"\"\"\n");
  CHECK(q.at(0).name == "say \"hi\"");
}

TEST_CASE("check-windows csv: every error names the file, line and token", "[check-windows]") {
  Err e = error_of([] { csv(""); });
  CHECK(e.what == "d.csv: no header line: expected a first line naming src, dst, len (at '')");
  e = error_of([] { csv("# only a comment\n\n"); });
  CHECK(e.line == 2);
  CHECK_THAT(e.what, Catch::Contains("no header line"));

  e = error_of([] { csv("0x80000,0x80000,16\n"); });
  CHECK(e.line == 1);
  CHECK(e.token == "0x80000");
  CHECK_THAT(e.what, Catch::StartsWith("d.csv:1: unknown column (the first line must be a header"));

  e = error_of([] { csv("src,dst,length\n"); });
  CHECK(e.token == "length");
  CHECK_THAT(e.what, Catch::Contains("unknown column"));

  e = error_of([] { csv("src,dst,len,SRC\n"); });
  CHECK(e.token == "SRC");
  CHECK_THAT(e.what, Catch::Contains("column named twice"));

  e = error_of([] { csv("# header\nsrc,dst\n"); });
  CHECK(e.what == "d.csv:2: missing column 'len' (at 'src,dst')");

  e = error_of([] { csv("src,dst,len\n1,2\n"); });
  CHECK(e.what == "d.csv:2: expected 3 fields as the header names, found 2 (at '1,2')");
  e = error_of([] { csv("src,dst,len\n1,2,3,4\n"); });
  CHECK_THAT(e.what, Catch::Contains("found 4"));

  e = error_of([] { csv("src,dst,len\n1,2,3\n0x80000,0x8000g,16\n"); });
  CHECK(e.what == "d.csv:3: dst is not a decimal or 0x-hex number (at '0x8000g')");
  e = error_of([] { csv("src,dst,len\n1,2,-16\n"); });
  CHECK(e.what == "d.csv:2: len is negative (at '-16')");
  e = error_of([] { csv("src,dst,len\n0x10000000000000000,2,3\n"); });
  CHECK(e.what == "d.csv:2: src does not fit 64 bits (at '0x10000000000000000')");
  e = error_of([] { csv("src,dst,len\n1,,3\n"); });
  CHECK(e.what == "d.csv:2: dst is empty (at '')");
  e = error_of([] { csv("src,dst,len\n1,2,1.5\n"); });
  CHECK(e.token == "1.5");
  e = error_of([] { csv("src,dst,len,name\n1,2,3,\"open\n"); });
  CHECK(e.what == "d.csv:2: unterminated quoted field (at '1,2,3,\"open')");
  e = error_of([] { csv("src,dst,len,name\n1,2,3,ab\"c\"\n"); });
  CHECK_THAT(e.what, Catch::Contains("a quote inside an unquoted field"));
  e = error_of([] { csv("src,dst,len,name\n1,2,3,\"c\"x\n"); });
  CHECK_THAT(e.what, Catch::Contains("text after a closing quote"));
}

// ------------------------------------------------------------------------------------ JSON

TEST_CASE("check-windows json: array and object forms, hex strings, lines", "[check-windows]") {
  const auto v = js(R"([
  {"src": 4294967296, "dst": "0x80000", "len": 64, "channel": 1, "name": "w0"},
  {"src": "0x200",
   "dst": "524352", "len": "0x10", "call_site": "data_transfer.cpp:160"}
])");
  REQUIRE(v.size() == 2);
  CHECK(v[0].t.src == 0x100000000ull);
  CHECK(v[0].t.dst == 0x80000);
  CHECK(v[0].t.len == 64);
  CHECK(v[0].channel == "1");
  CHECK(v[0].name == "w0");
  CHECK(v[0].line == 2);
  CHECK(v[1].t.src == 0x200);
  CHECK(v[1].t.dst == 524352);
  CHECK(v[1].t.len == 16);
  CHECK(v[1].call_site == "data_transfer.cpp:160");
  CHECK(v[1].line == 3);
  CHECK(v[1].index == 1);

  const auto o =
      js("{\"descriptors\": [\n{\"src\":1,\"dst\":2,\"len\":3},\n\n"
         "{\"src\":4,\"dst\":5,\"len\":6, \"name\": \"[x]{y},\\\"z\"}]}");
  REQUIRE(o.size() == 2);
  CHECK(o[0].line == 2);
  CHECK(o[1].line == 4);
  CHECK(o[1].t.len == 6);
  CHECK(o[1].name == "[x]{y},\"z");
  CHECK(js("[]").empty());
  CHECK(js("{\"descriptors\": []}").empty());
}

TEST_CASE("check-windows json: every error names the file and the place", "[check-windows]") {
  Err e = error_of([] { js("[\n  {\"src\": 1, \"dst\": 2, \"len\": 3},\n  {\"src\": x}\n]"); });
  CHECK(e.line == 3);
  CHECK_THAT(e.what, Catch::StartsWith("d.json:3:11: not valid JSON: invalid literal (at "));
  CHECK(e.token == "x}");
  e = error_of([] { js("[{\"src\": 1"); });
  CHECK_THAT(e.what, Catch::Contains("not valid JSON: unexpected end of input"));
  CHECK(e.token == "end of file");
  e = error_of([] { js(""); });
  CHECK_THAT(e.what, Catch::Contains("not valid JSON"));

  e = error_of([] { js("42"); });
  CHECK(e.what ==
        "d.json:1: expected an array of descriptors or {\"descriptors\": [...]} (at '42')");
  e = error_of([] { js("{\"descriptors\": [], \"version\": 2}"); });
  CHECK(e.token == "version");
  CHECK_THAT(e.what, Catch::Contains("unknown top-level key"));
  e = error_of([] { js("{\"descriptors\": 3}"); });
  CHECK_THAT(e.what, Catch::Contains("expected an object with a \"descriptors\" array"));

  e = error_of([] { js("[{\"src\":1,\"dst\":2,\"len\":3},\n 7]"); });
  CHECK(e.what == "d.json:2: descriptor 1: expected an object with src, dst, len (at '7')");
  e = error_of([] { js("[{\"src\":1,\"dst\":2,\"length\":3}]"); });
  CHECK(e.token == "length");
  CHECK_THAT(e.what, Catch::StartsWith("d.json:1: descriptor 0: unknown key"));
  e = error_of([] { js("[{\"src\":1,\"dst\":2}]"); });
  CHECK_THAT(e.what, Catch::StartsWith("d.json:1: descriptor 0: missing key 'len'"));
  e = error_of([] { js("[\n{\"src\":1,\"dst\":2,\"len\":-5}]"); });
  CHECK(e.what == "d.json:2: descriptor 0: 'len' is negative (at '-5')");
  e = error_of([] { js("[{\"src\":1.5,\"dst\":2,\"len\":3}]"); });
  CHECK(e.what == "d.json:1: descriptor 0: 'src' is not an integer (at '1.5')");
  e = error_of([] { js("[{\"src\":1,\"dst\":\"0xzz\",\"len\":3}]"); });
  CHECK(e.what == "d.json:1: descriptor 0: 'dst' is not a decimal or 0x-hex number (at '0xzz')");
  e = error_of([] { js("[{\"src\":1,\"dst\":\"-0x10\",\"len\":3}]"); });
  CHECK(e.what == "d.json:1: descriptor 0: 'dst' is negative (at '-0x10')");
  e = error_of([] { js("[{\"src\":true,\"dst\":2,\"len\":3}]"); });
  CHECK_THAT(e.what, Catch::Contains("'src' must be a number or a decimal/0x-hex string"));
  e = error_of([] { js("[{\"src\":1,\"dst\":2,\"len\":3,\"name\":[1]}]"); });
  CHECK_THAT(e.what, Catch::Contains("'name' must be a string or a number"));
}

// ---------------------------------------------------------------------------- rules, format

TEST_CASE("check-windows: --window specs", "[check-windows]") {
  auto r = parse_window_spec("tcm=0x1000:0x2000");
  CHECK(r.name == "tcm");
  CHECK(r.lo == 0x1000);
  CHECK(r.hi == 0x2000);
  CHECK(r.scope_lo == 0);
  CHECK(r.scope_hi == 0x80000000);
  r = parse_window_spec("hbm_io=0x100000000:0x100100000@0x100000000:0x200000000");
  CHECK(r.scope_lo == 0x100000000ull);
  CHECK(r.scope_hi == 0x200000000ull);

  Err e = error_of([] { parse_window_spec("0x1000:0x2000"); });
  CHECK(e.what ==
        "--window: expected NAME=LO:HI or NAME=LO:HI@SCOPE_LO:SCOPE_HI (at '0x1000:0x2000')");
  e = error_of([] { parse_window_spec("w=0x1000"); });
  CHECK_THAT(e.what, Catch::Contains("expected NAME=LO:HI"));
  e = error_of([] { parse_window_spec("w=0x2000:0x1000"); });
  CHECK_THAT(e.what, Catch::Contains("window is empty: 0x2000 >= 0x1000"));
  e = error_of([] { parse_window_spec("w=1k:2k"); });
  CHECK_THAT(e.what, Catch::Contains("window bounds must be decimal or 0x-hex numbers"));
  e = error_of([] { parse_window_spec("w=1:2@5"); });
  CHECK_THAT(e.what, Catch::Contains("expected NAME=LO:HI"));
  e = error_of([] { parse_window_spec("w=1:2@5:5"); });
  CHECK_THAT(e.what, Catch::Contains("scope is empty"));
  e = error_of([] { parse_window_spec("a b=1:2"); });
  CHECK_THAT(e.what, Catch::Contains("window name 'a b'"));
}

TEST_CASE("check-windows: format by option or extension", "[check-windows]") {
  CHECK(descriptor_format("x.csv", "") == DescriptorFormat::kCsv);
  CHECK(descriptor_format("dir.v2/X.JSON", "") == DescriptorFormat::kJson);
  CHECK(descriptor_format("x.txt", "json") == DescriptorFormat::kJson);
  CHECK(descriptor_format("x.json", "csv") == DescriptorFormat::kCsv);
  const Err e = error_of([] { descriptor_format("captured.txt", ""); });
  CHECK_THAT(e.what, Catch::StartsWith("captured.txt: cannot tell the format"));
  CHECK_THAT(error_of([] { descriptor_format("x.csv", "xml"); }).what, Catch::Contains("--format"));
}

// ------------------------------------------------------------------------- violation classes

TEST_CASE("check-windows: a transfer inside the window passes", "[check-windows]") {
  const auto ds = descriptors({xfer(0x100000000ull, 0x80000, 0x10000),  // whole window
                               xfer(0x8ff00, 0x200000000ull, 0x100),    // ends exactly at hi
                               xfer(0x100000000ull, 0x200000000ull, 0x1000)});  // out of scope
  const auto r = check_descriptors("d.csv", ds, kDefault);
  CHECK(r.ok());
  CHECK(r.descriptors == 3);
  CHECK(r.violations.empty());
}

TEST_CASE("check-windows: fully outside, below and above", "[check-windows]") {
  const auto ds =
      descriptors({xfer(0x7f000, 0x100000000ull, 0x100), xfer(0x100000000ull, 0x90000, 64)});
  const auto r = check_descriptors("d.csv", ds, kDefault);
  REQUIRE(r.violations.size() == 2);
  const auto& lo = r.violations[0];
  CHECK(lo.descriptor == &ds[0]);
  CHECK(lo.finding.side == "src");
  CHECK(lo.finding.bound == "lower");
  CHECK(lo.finding.bound_value == 0x80000);
  CHECK(lo.finding.addr == 0x7f000);
  CHECK(lo.finding.end == 0x7f100);
  CHECK_FALSE(lo.finding.start_inside);
  const auto& hi = r.violations[1];
  CHECK(hi.descriptor == &ds[1]);
  CHECK(hi.finding.side == "dst");
  CHECK(hi.finding.bound == "upper");
  CHECK(hi.finding.bound_value == 0x90000);
  CHECK_FALSE(hi.finding.start_inside);
  CHECK(r.missed_by_firmware == 0);
  CHECK(r.descriptors_violating == 2);
}

TEST_CASE("check-windows: start inside, end outside (missed by the firmware)", "[check-windows]") {
  const auto ds = descriptors({xfer(0x8ff00, 0x100000000ull, 0x200)});
  const auto r = check_descriptors("d.csv", ds, kDefault);
  REQUIRE(r.violations.size() == 1);
  CHECK(r.violations[0].finding.bound == "upper");
  CHECK(r.violations[0].finding.start_inside);
  CHECK(r.violations[0].finding.end == 0x90100);
  CHECK(r.missed_by_firmware == 1);
}

TEST_CASE("check-windows: zero length checks the start only", "[check-windows]") {
  const auto ds = descriptors({xfer(0x8fff0, 0x100000000ull, 0),    // inside: fine
                               xfer(0x100000000ull, 0x90000, 0),    // at hi: outside
                               xfer(0x7ffff, 0x100000000ull, 0)});  // below
  const auto r = check_descriptors("d.csv", ds, kDefault);
  REQUIRE(r.violations.size() == 2);
  CHECK(r.violations[0].descriptor->index == 1);
  CHECK(r.violations[0].finding.bound == "upper");
  CHECK(r.violations[0].finding.addr == r.violations[0].finding.end);
  CHECK(r.violations[1].descriptor->index == 2);
  CHECK(r.violations[1].finding.bound == "lower");
}

TEST_CASE("check-windows: both sides of one descriptor, user rules", "[check-windows]") {
  const auto ds = descriptors({xfer(0x7f000, 0x8ffff, 2)});
  auto r = check_descriptors("d.csv", ds, kDefault);
  REQUIRE(r.violations.size() == 2);
  CHECK(r.violations[0].finding.side == "src");
  CHECK(r.violations[1].finding.side == "dst");
  CHECK(r.descriptors_violating == 1);
  // A wider user window accepts both.
  r = check_descriptors("d.csv", ds, {parse_window_spec("wide=0x70000:0x90001")});
  CHECK(r.ok());
}

// ------------------------------------------------------------------------------- reports

TEST_CASE("check-windows: text report names everything", "[check-windows]") {
  auto ds =
      csv("src,dst,len,call_site,name\n"
          "0x100000000,0x80000,16,,\n"
          "0x8ff00,0x100000000,0x200,data_transfer.cpp:160,act\n");
  const auto r = check_descriptors("d.csv", ds, kDefault);
  std::ostringstream out;
  write_report_text(r, out);
  CHECK(out.str() ==
        "d.csv:3: descriptor 1 (call_site data_transfer.cpp:160, name act): src=0x8ff00 "
        "dst=0x100000000 len=512: src [0x8ff00, 0x90100) violates dataram_window "
        "(dram_addr >= 0x80000 && dram_addr < 0x90000): upper bound 0x90000; the start passes "
        "the firmware's start-only assertion, the end does not\n"
        "d.csv: 2 descriptors, 1 window violation in 1 descriptor (1 missed by the "
        "firmware's start-only assertion); rules: dataram_window (dram_addr >= 0x80000 && "
        "dram_addr < 0x90000 for addresses in [0x0, 0x80000000))\n");

  std::ostringstream clean;
  write_report_text(check_descriptors("c.csv", {}, kDefault), clean);
  CHECK_THAT(clean.str(), Catch::StartsWith("c.csv: 0 descriptors, no window violations"));
}

TEST_CASE("check-windows: JSON report", "[check-windows]") {
  auto ds = js("[{\"src\":\"0x7f000\",\"dst\":\"0x100000000\",\"len\":256,\"channel\":3}]");
  const auto r = check_descriptors("d.json", ds, kDefault);
  std::ostringstream out;
  write_report_json(r, out);
  const json j = json::parse(out.str());
  CHECK(j["descriptors"] == 1);
  CHECK(j["ok"] == false);
  CHECK(j["file"] == "d.json");
  REQUIRE(j["rules"].size() == 1);
  CHECK(j["rules"][0]["lo"] == 0x80000);
  REQUIRE(j["violations"].size() == 1);
  const auto& v = j["violations"][0];
  CHECK(v["index"] == 0);
  CHECK(v["line"] == 1);
  CHECK(v["src"] == 0x7f000);
  CHECK(v["dst"] == 0x100000000ull);
  CHECK(v["len"] == 256);
  CHECK(v["side"] == "src");
  CHECK(v["bound"] == "lower");
  CHECK(v["bound_value"] == 0x80000);
  CHECK(v["start_inside"] == false);
  CHECK(v["channel"] == "3");
  CHECK_FALSE(v.contains("name"));
  CHECK(v["text"] == "dram_addr >= 0x80000 && dram_addr < 0x90000");
}

TEST_CASE("check-windows: run end to end on files", "[check-windows]") {
  const auto dir = std::filesystem::temp_directory_path();
  const std::string base = (dir / ("npusim_cw_" + std::to_string(::getpid()))).string();
  const std::string good = base + ".csv", bad = base + ".json";
  std::ofstream(good) << "src,dst,len\n0x100000000,0x80000,64\n";
  std::ofstream(bad)
      << "{\"descriptors\":[{\"src\":\"0x8fff0\",\"dst\":\"0x100000000\",\"len\":32}]}";
  CheckWindowsOptions o;
  o.file = good;
  std::ostringstream out;
  CHECK(run_check_windows(o, out) == 0);
  o.file = bad;
  o.json = true;
  std::ostringstream jout;
  CHECK(run_check_windows(o, jout) == 1);
  CHECK(json::parse(jout.str())["violations"][0]["start_inside"] == true);
  o.windows = {"wide=0x80000:0x100000"};
  std::ostringstream wout;
  CHECK(run_check_windows(o, wout) == 0);
  o.file = base + ".missing.csv";
  CHECK_THAT(error_of([&] { run_check_windows(o, out); }).what,
             Catch::Contains("the descriptors file does not exist"));
  o.file = good;
  o.format = "json";
  CHECK_THAT(error_of([&] { run_check_windows(o, out); }).what, Catch::Contains("not valid JSON"));
  std::remove(good.c_str());
  std::remove(bad.c_str());
}
