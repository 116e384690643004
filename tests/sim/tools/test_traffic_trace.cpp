// Request traces of other simulators (sim/tools/traffic_trace.h): small traces written from
// each format's public description (DRAMsim3's trace CPU and sample trace, Ramulator's
// memory-trace mode, Ramulator 2's LoadStoreTrace, DRAMSys's .stl and .rstl syntax), samples
// of the same kind as the tools ship (write data a burst long, address-only Ramulator lines,
// Ramulator 2 instruction traces), detection of the format, each format written and read back,
// and bad lines named by file:line and value.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "sim/tools/traffic.h"
#include "sim/tools/traffic_trace.h"

using namespace npusim::sim;
namespace fs = std::filesystem;

namespace {

std::string write_file(const std::string& name, const std::string& text) {
  const std::string p = (fs::temp_directory_path() /
                         ("npusim_trace_" + std::to_string(::getpid()) + "_" + name)).string();
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

std::string trace_error_of(const std::string& path, std::optional<TraceFormat> f = std::nullopt) {
  try {
    read_trace(path, f);
  } catch (const TrafficError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("trace: DRAMsim3's format (hex address, READ|WRITE, cycle)", "[trace]") {
  // As DRAMsim3's tests/example.trace: the address with 0x, spaces between the fields.
  const auto p = write_file("ds3.trace", "0x2000D5C0 READ  30\n0x1FF96FC0 WRITE   160\n2000D600 read 165\n");
  const Trace t = read_trace(p, std::nullopt);
  CHECK(t.format == TraceFormat::kDramsim3);
  CHECK(t.timed);
  REQUIRE(t.requests.size() == 3);
  CHECK(t.requests[0].offset == 0x2000D5C0);
  CHECK_FALSE(t.requests[0].write);
  CHECK(t.requests[0].cycle == 30);
  CHECK(t.requests[1].offset == 0x1FF96FC0);
  CHECK(t.requests[1].write);
  CHECK(t.requests[1].cycle == 160);
  CHECK(t.requests[2].offset == 0x2000D600);  // (std::hex reads it without 0x too)
  CHECK(t.lines[2] == 3);
  fs::remove(p);
}

TEST_CASE("trace: Ramulator's memory-trace mode (hex address, R|W)", "[trace]") {
  const auto p = write_file("ram.trace", "0x12345680 R\n0x4cbd56c0 W\n");
  const Trace t = read_trace(p, std::nullopt);
  CHECK(t.format == TraceFormat::kRamulator);
  CHECK_FALSE(t.timed);
  REQUIRE(t.requests.size() == 2);
  CHECK(t.requests[0].offset == 0x12345680);
  CHECK_FALSE(t.requests[0].write);
  CHECK(t.requests[1].offset == 0x4cbd56c0);
  CHECK(t.requests[1].write);
  CHECK(t.requests[1].cycle == 0);
  fs::remove(p);
}

TEST_CASE("trace: a Ramulator line with an address alone is a read, as Ramulator reads it", "[trace]") {
  // Ramulator's memory-trace reader takes the address and reads what follows; nothing: a read.
  const auto p = write_file("ram_addr.trace", "0x12345680\n0x4cbd56c0 W\n4cbd5700\n");
  const Trace t = read_trace(p, std::nullopt);
  CHECK(t.format == TraceFormat::kRamulator);
  REQUIRE(t.requests.size() == 3);
  CHECK(t.requests[0].offset == 0x12345680);
  CHECK_FALSE(t.requests[0].write);
  CHECK(t.requests[1].write);
  CHECK(t.requests[2].offset == 0x4cbd5700);
  CHECK_FALSE(t.requests[2].write);
  fs::remove(p);
}

TEST_CASE("trace: a Ramulator 2 instruction trace is refused as one, naming its line", "[trace]") {
  // The shape of Ramulator 2's examples/traces/*_inst.trace (and Ramulator's CPU traces):
  // bubble count, load address, an optional store address, all decimal.
  for (const char* text : {"2 10485824\n5 10485888\n", "7 20971584 20971648\n1 20971712\n",
                           "# c\n\n0 4096\n"}) {
    const auto p = write_file("inst.trace", text);
    for (auto f : {std::optional<TraceFormat>{}, std::optional<TraceFormat>{TraceFormat::kDramsim3},
                   std::optional<TraceFormat>{TraceFormat::kRamulator2}}) {
      const std::string e = trace_error_of(p, f);
      INFO(text << ": " << e);
      CHECK(e.find(p + ":") != std::string::npos);
      CHECK(e.find("an instruction trace line") != std::string::npos);
      CHECK(e.find("not a memory request") != std::string::npos);
      CHECK(e.find("READ or WRITE") == std::string::npos);
    }
    fs::remove(p);
  }
}

TEST_CASE("trace: Ramulator 2's LoadStoreTrace (LD|ST, address)", "[trace]") {
  const auto p = write_file("ram2.trace", "LD 0x1F40\nST 0x1F80\nLD 8064\n");
  const Trace t = read_trace(p, std::nullopt);
  CHECK(t.format == TraceFormat::kRamulator2);
  REQUIRE(t.requests.size() == 3);
  CHECK(t.requests[0].offset == 0x1F40);
  CHECK(t.requests[1].write);
  CHECK(t.requests[2].offset == 8064);  // a decimal address, as LoadStoreTrace reads it
  fs::remove(p);
}

TEST_CASE("trace: DRAMSys's .stl (cycle: [(length)] command address [data])", "[trace]") {
  // The syntax example of DRAMSys's configs/README.md.
  const auto p = write_file("t.stl",
                            "# Comment lines begin with #\n"
                            "# cycle: [(length)] command hex-address [hex-data]\n"
                            "31: read 0x400140\n"
                            "33: read 0x400160\n"
                            "56: write 0x7fff8000 0x123456789abcdef\n"
                            "81: (128) read 0x400180\n");
  const Trace t = read_trace(p, std::nullopt);  // by its name
  CHECK(t.format == TraceFormat::kStl);
  CHECK(t.timed);
  REQUIRE(t.requests.size() == 4);
  CHECK(t.requests[0].cycle == 31);
  CHECK(t.requests[0].offset == 0x400140);
  CHECK(t.requests[2].write);
  CHECK(t.requests[2].offset == 0x7fff8000);
  CHECK(t.requests[3].size == 128);
  CHECK(t.requests[3].cycle == 81);
  CHECK(t.lines[0] == 3);
  // The same lines in a file with another name: recognised by their shape.
  std::ifstream in(p);
  const auto q = write_file("stl.txt", std::string(std::istreambuf_iterator<char>(in), {}));
  CHECK(read_trace(q, std::nullopt).format == TraceFormat::kStl);
  fs::remove(p);
  fs::remove(q);
}

TEST_CASE("trace: .stl write data of any length, as DRAMSys writes a burst's bytes", "[trace]") {
  std::string burst = "0x";
  for (int i = 0; i < 64; ++i) burst += "0123456789abcdef"[i % 16], burst += "fedcba9876543210"[i % 16];
  const auto p = write_file("data.stl", "0: write 0x0 " + burst + "\n" +
                                            "4: (32) write 0x40 " + burst.substr(0, 66) + "\n" +
                                            "9: write 0x80 0x00\n" + "12: write 0xc0 DEADBEEF\n");
  const Trace t = read_trace(p, std::nullopt);
  REQUIRE(t.requests.size() == 4);
  CHECK(t.requests[0].write);
  CHECK(t.requests[1].size == 32);
  CHECK(t.requests[3].cycle == 12);
  fs::remove(p);
  // Data on a read, or not hex, is still an error.
  const auto q = write_file("bad_data.stl", "0: write 0x0 0x12zz\n");
  CHECK(trace_error_of(q).find(":1: data must be hex digits on a write") != std::string::npos);
  fs::remove(q);
}

TEST_CASE("trace: DRAMSys's .rstl: each cycle counts from the previous request", "[trace]") {
  const std::string text = "# relative\n31: read 0x400140\n2: read 0x400160\n0: (128) read 0x400180\n"
                           "23: write 0x7fff8000 0x123456789abcdef0\n";
  const auto p = write_file("t.rstl", text);
  const Trace t = read_trace(p, std::nullopt);  // by its name
  CHECK(t.format == TraceFormat::kRstl);
  CHECK(t.timed);
  CHECK(t.relative);
  REQUIRE(t.requests.size() == 4);
  CHECK(t.requests[0].cycle == 31);
  CHECK(t.requests[1].cycle == 2);
  CHECK(t.requests[2].cycle == 0);
  CHECK(t.requests[2].size == 128);
  CHECK(t.requests[3].write);
  // Another name: the same lines are absolute unless named rstl.
  const auto q = write_file("rel.txt", text);
  CHECK_FALSE(read_trace(q, std::nullopt).relative);
  CHECK(read_trace(q, TraceFormat::kRstl).relative);
  CHECK(trace_format_named("rstl") == TraceFormat::kRstl);
  CHECK(trace_format_of_name("x.rstl") == TraceFormat::kRstl);
  CHECK(trace_format_of_name("x.stl") == TraceFormat::kStl);
  CHECK_FALSE(trace_format_of_name("x.trace").has_value());
  fs::remove(p);
  fs::remove(q);
}

TEST_CASE("trace: every format written and read back", "[trace]") {
  for (TraceFormat f : {TraceFormat::kDramsim3, TraceFormat::kRamulator, TraceFormat::kRamulator2,
                        TraceFormat::kStl, TraceFormat::kRstl}) {
    // (an .rstl trace is known by its name)
    const std::string p = write_file(std::string("back_") + trace_format_name(f) +
                                         (f == TraceFormat::kRstl ? ".rstl" : ""), "");
    {
      TraceWriter w(p, f, 64);
      w.add(0x40, false, 0, 64);
      w.add(0x1FFFFFFC0, true, 7, 64);
      w.add(0x12340, false, 9, 256);
      w.close();
    }
    const Trace t = read_trace(p, std::nullopt);  // each is recognised from its lines
    INFO(trace_format_name(f));
    CHECK(t.format == f);
    REQUIRE(t.requests.size() == 3);
    CHECK(t.requests[0].offset == 0x40);
    CHECK_FALSE(t.requests[0].write);
    CHECK(t.requests[1].offset == 0x1FFFFFFC0);
    CHECK(t.requests[1].write);
    if (t.relative) {  // the cycles after the previous request's
      CHECK(t.requests[1].cycle == 7);
      CHECK(t.requests[2].cycle == 2);
    } else if (t.timed) {
      CHECK(t.requests[1].cycle == 7);
      CHECK(t.requests[2].cycle == 9);
    }
    // Only the stl formats carry a length.
    const bool stl = f == TraceFormat::kStl || f == TraceFormat::kRstl;
    CHECK(t.requests[2].size == (stl ? 256u : 0u));
    fs::remove(p);
  }
}

TEST_CASE("trace: a bad line names the file, the line and the value", "[trace]") {
  struct Bad {
    const char* name;
    const char* text;
    std::optional<TraceFormat> f;
    const char* want;
  };
  const Bad bad[] = {
      {"op.trace", "0x40 READ 1\n0x80 FETCH 2\n", std::nullopt, ":2: not READ or WRITE: a dramsim3 request is '0xADDRESS READ|WRITE CYCLE' (at 'FETCH')"},
      {"cycle.trace", "0x40 READ 1\n0x80 READ soon\n", std::nullopt, ":2: not a decimal cycle"},
      {"addr.trace", "0x40 READ 1\n\n# c\nzz READ 3\n", std::nullopt, ":4: not a hex address"},
      {"fields.trace", "0x40 READ 1\n0x80 READ\n", std::nullopt, ":2: 2 fields, not 3"},
      {"rw.trace", "0x40 R\n0x80 X\n", TraceFormat::kRamulator, ":2: not R or W: a ramulator request is '0xADDRESS [R|W]' (at 'X')"},
      {"ldst.trace", "LD 0x40\nLOAD 0x80\n", TraceFormat::kRamulator2, ":2: not LD or ST"},
      {"cmd.stl", "1: read 0x40\n2: fetch 0x80\n", std::nullopt, ":2: not read or write"},
      {"len.stl", "1: (0) read 0x40\n", std::nullopt, ":1: not a length in bytes"},
      {"data.stl", "1: read 0x40 0x1234\n", std::nullopt, ":1: data must be hex digits on a write"},
      {"fields.ram", "0x40 R\n0x80 W 3\n", TraceFormat::kRamulator, ":2: 3 fields, not 1 or 2"},
      {"shape.trace", "hello world, this is not a trace\n", std::nullopt, ":1: not a request of any trace format"},
      {"empty.trace", "# nothing\n\n", std::nullopt, "no requests"},
  };
  for (const Bad& b : bad) {
    const auto p = write_file(b.name, b.text);
    const std::string e = trace_error_of(p, b.f);
    INFO(b.name << ": " << e);
    CHECK(e.find(b.want) != std::string::npos);
    if (std::string(b.want).rfind(":", 0) == 0) CHECK(e.find(p + b.want) != std::string::npos);
    fs::remove(p);
  }
  CHECK(trace_error_of("/nonexistent/npusim.trace").find("--trace '/nonexistent/npusim.trace': cannot read") !=
        std::string::npos);
  CHECK_THROWS_AS(TraceWriter("/nonexistent/dir/out.trace", TraceFormat::kDramsim3, 64), TrafficError);
  CHECK(trace_format_named("stl") == TraceFormat::kStl);
  CHECK_FALSE(trace_format_named("drampower").has_value());
}
