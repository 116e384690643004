// Scenario and platform parsing: what a malformed input is told (file, line, column, value).
#include <catch2/catch.hpp>

#include "sim/input/input_error.h"
#include "sim/input/platform_config.h"
#include "sim/input/scenario.h"

using namespace npusim::sim;

namespace {
std::string error_of(const std::string& yaml) {
  try {
    parse_scenario(yaml, "s.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}
const char* kHead = "name: t\nprogram:\n";
const char* kInit = "  - init: [hbm, dataram]\n";  // alloc needs an init first
}  // namespace

TEST_CASE("scenario: sizes and durations", "[scenario]") {
  CHECK(parse_size("4KiB") == 4096u);
  CHECK(parse_size("1MiB") == 1048576u);
  CHECK(parse_size("0x100") == 256u);
  CHECK(parse_size("2 GiB") == (2ull << 30));
  CHECK(parse_size("12") == 12u);
  CHECK_FALSE(parse_size("-4"));
  CHECK_FALSE(parse_size("4XiB"));
  CHECK_FALSE(parse_size("99999999999999999999KiB"));
  CHECK(parse_duration_ns("2ms") == Approx(2e6));
  CHECK(parse_duration_ns("500ns") == Approx(500));
  CHECK(parse_duration_ns("1.5us") == Approx(1500));
  CHECK_FALSE(parse_duration_ns("fast"));
}

TEST_CASE("scenario: a well-formed scenario parses into steps", "[scenario]") {
  const auto sc = parse_scenario(std::string(kHead) +
                                     "  - init: [hbm, dataram]\n"
                                     "  - alloc: {heap: dataram, size: 4KiB, align: 64, as: buf}\n"
                                     "  - loop: {count: 3, body: [{compute: 10}, {marker: x}]}\n"
                                     "  - transfer: {method: dma, src: buf+0x10, dst: 0x81000, bytes: 64}\n"
                                     "  - free: buf\n"
                                     "expect:\n  duration: \"<= 2ms\"\n  violations: 0\n",
                                 "s.yaml");
  REQUIRE(sc.program.size() == 5);
  CHECK(sc.program[0].heaps == std::vector<std::string>{"hbm", "dataram"});
  CHECK(sc.program[1].size == 4096);
  CHECK(sc.program[1].align == 64);
  CHECK(sc.program[2].count == 3);
  CHECK(sc.program[2].body.size() == 2);
  CHECK(sc.program[3].src.name == "buf");
  CHECK(sc.program[3].src.offset == 0x10);
  CHECK(sc.program[3].dst.name.empty());
  CHECK(sc.program[3].dst.offset == 0x81000);
  CHECK(sc.program[4].heap == "dataram");
  REQUIRE(sc.expect.size() == 2);
  CHECK(sc.expect[0].op == "<=");
  CHECK(sc.expect[0].value == Approx(2e6));
  CHECK(sc.expect[1].op == "==");
}

TEST_CASE("scenario: YAML syntax errors name line and column", "[scenario]") {
  CHECK_THAT(error_of("name: [unclosed\n"), Catch::StartsWith("s.yaml:") && Catch::Contains("YAML syntax"));
}

TEST_CASE("scenario: an unknown step names the step, line and column", "[scenario]") {
  CHECK(error_of(std::string(kHead) + "  - init: [hbm]\n  - allocate: {heap: hbm, size: 4}\n") ==
        "s.yaml:4:5: unknown step 'allocate' (at 'allocate')");
}

TEST_CASE("scenario: wrong types and negative sizes", "[scenario]") {
  CHECK_THAT(error_of(std::string(kHead) + kInit + "  - alloc: {heap: dataram, size: -4}\n"),
             Catch::Contains("s.yaml:4:") && Catch::Contains("must not be negative") &&
                 Catch::Contains("'-4'"));
  CHECK_THAT(error_of(std::string(kHead) + kInit + "  - alloc: {heap: dataram, size: [1, 2]}\n"),
             Catch::Contains("size must be a single value"));
  CHECK_THAT(error_of(std::string(kHead) + kInit + "  - alloc: {heap: sram, size: 4}\n"),
             Catch::Contains("heap must be hbm, dataram or libc") && Catch::Contains("'sram'"));
  CHECK_THAT(error_of(std::string(kHead) + "  - compute: lots\n"),
             Catch::Contains("'lots'"));
  CHECK_THAT(error_of(std::string(kHead) + kInit + "  - alloc: {heap: hbm, size: 5GiB}\n"),
             Catch::Contains("32-bit"));
  CHECK_THAT(error_of(std::string(kHead) + kInit + "  - alloc: {heap: hbm, size: 4, colour: red}\n"),
             Catch::Contains("unknown key 'colour' in alloc"));
}

TEST_CASE("scenario: names must be bound before use; frees of unknown names", "[scenario]") {
  CHECK_THAT(error_of(std::string(kHead) + "  - transfer: {src: nowhere, dst: 0x81000, bytes: 4}\n"),
             Catch::Contains("s.yaml:3:") && Catch::Contains("'nowhere' is used before any step binds it"));
  CHECK_THAT(error_of(std::string(kHead) + "  - free: ghost\n"),
             Catch::Contains("s.yaml:3:11") && Catch::Contains("free of 'ghost', which no alloc step binds"));
}

TEST_CASE("scenario: structure errors", "[scenario]") {
  CHECK_THAT(error_of(""), Catch::Contains("empty"));
  CHECK_THAT(error_of("- a\n- b\n"), Catch::Contains("a scenario is a map"));
  CHECK_THAT(error_of("name: x\n"), Catch::Contains("needs a program"));
  CHECK_THAT(error_of("name: x\nprogram: []\ncustom_op: relu\n"), Catch::Contains("not both"));
  CHECK_THAT(error_of("name: x\nprogram: []\npolicies: {dma_window: ignore}\n"),
             Catch::Contains("abort or record"));
  CHECK_THAT(error_of("name: x\nprogram: []\nexpect: {duration: soon}\n"),
             Catch::Contains("expected a condition"));
  CHECK_THAT(error_of("name: x\nprogramme: []\n"), Catch::Contains("unknown key 'programme'"));
  CHECK_THAT(error_of(std::string(kHead) + "  - {init: hbm, compute: 4}\n"),
             Catch::Contains("exactly one key"));
}

TEST_CASE("platform: the built-in profile loads; overrides apply in order", "[platform]") {
  auto c = load_platform("neuron-gpsimd", {});
  CHECK(c.core.clock_ghz == Approx(1.4));
  CHECK(c.memory.dataram.latency_cycles == 3);
  CHECK(c.memory.dataram.width_bytes == 64);
  CHECK(c.memory.dataram.base == 0x80000);
  CHECK(c.memory.hbm.window_base == 0x80000000u);
  CHECK(c.dma.windows.size() == 1);
  CHECK(c.dma.windows[0].text() == "dram_addr >= 0x80000 && dram_addr < 0x90000");
  auto d = load_platform("neuron-gpsimd", {{"dma.channels", "2", {}},
                                           {"hbm.channels", "4", {}},
                                           {"dma.channels", "3", {}},
                                           {"windows.0.hi", "0x88000", {}}});
  CHECK(d.dma.channels == 3);
  CHECK(d.memory.hbm.channels == 4);
  CHECK(d.dma.windows[0].hi == 0x88000);
}

TEST_CASE("platform: unknown keys and bad values name the key, file and line", "[platform]") {
  auto err = [](std::vector<Setting> s) {
    try {
      load_platform("neuron-gpsimd", s);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(err({{"dma.chanels", "2", {"s.yaml", 7, 3}}}),
             Catch::StartsWith("s.yaml:7:3: unknown key") && Catch::Contains("dma.chanels=2"));
  CHECK_THAT(err({{"hbm.tRAS", "10", {"s.yaml", 9, 3}}}),
             Catch::StartsWith("s.yaml:9:3") && Catch::Contains("tRAS"));
  CHECK_THAT(err({{"dataram.base", "0x1000", {"--set", 0, 0}}}),
             Catch::Contains("follows the heap layout"));
  CHECK_THAT(err({{"core.clock_ghz", "fast", {"--set", 0, 0}}}), Catch::Contains("expected a clock in GHz, from 0.001 to 1000"));
  CHECK_THAT(err({{"gpu.cores", "4", {"--set", 0, 0}}}), Catch::Contains("unknown section"));
  CHECK_THAT(err({{"windows.2.lo", "0", {"--set", 0, 0}}}), Catch::Contains("window 2 is given but window 1 is not"));
  CHECK_THAT(err({{"firmware.dma_channel", "9", {"--set", 0, 0}}}), Catch::Contains("has 4 channels"));
  CHECK_THROWS_AS(load_platform("nope.yaml", {}), InputError);
}
