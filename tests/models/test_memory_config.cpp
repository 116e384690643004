#include <catch2/catch.hpp>

#include <string>

#include "models/memory_config.h"

using namespace npusim::models;

namespace {
// Runs `fn`, expects a ConfigError, returns it.
template <class F>
ConfigError config_error(F fn) {
  try {
    fn();
  } catch (const ConfigError& e) {
    return e;
  }
  FAIL("no ConfigError");
  throw;  // unreachable
}
}  // namespace

TEST_CASE("config: models/hbm2.yaml spells out exactly the built-in defaults", "[config]") {
  const MemoryConfig f = load_memory_config_file(NPUSIM_SOURCE_DIR "/models/hbm2.yaml");
  const MemoryConfig d;
  const HbmConfig &a = f.hbm, &b = d.hbm;
  REQUIRE(a.base == b.base);
  REQUIRE(a.tck_ns == b.tck_ns);
  REQUIRE(a.channels == b.channels);
  REQUIRE(a.pseudo_channels == b.pseudo_channels);
  REQUIRE(a.channel_width_bits == b.channel_width_bits);
  REQUIRE(a.bank_groups == b.bank_groups);
  REQUIRE(a.banks_per_group == b.banks_per_group);
  REQUIRE(a.rows == b.rows);
  REQUIRE(a.row_bytes == b.row_bytes);
  REQUIRE(a.burst_length == b.burst_length);
  REQUIRE(a.tRCD == b.tRCD);
  REQUIRE(a.tCL == b.tCL);
  REQUIRE(a.tRP == b.tRP);
  REQUIRE(a.tRAS == b.tRAS);
  REQUIRE(a.tFAW == b.tFAW);
  REQUIRE(a.tRFC == b.tRFC);
  REQUIRE(a.tREFI == b.tREFI);
  REQUIRE(a.tCCD_S == b.tCCD_S);
  REQUIRE(a.tCCD_L == b.tCCD_L);
  REQUIRE(a.tRRD_S == b.tRRD_S);
  REQUIRE(a.tRRD_L == b.tRRD_L);
  REQUIRE(a.tRTP == b.tRTP);
  REQUIRE(a.tWL == b.tWL);
  REQUIRE(a.tWR == b.tWR);
  REQUIRE(a.queue_depth == b.queue_depth);
  REQUIRE(a.bank_queue_depth == b.bank_queue_depth);
  REQUIRE(a.write_queue_depth == b.write_queue_depth);
  REQUIRE(a.scheduler == b.scheduler);
  REQUIRE(a.tWTR == b.tWTR);
  REQUIRE(a.tRTW == b.tRTW);
  REQUIRE(a.mapping == b.mapping);
  REQUIRE(a.page_policy == b.page_policy);
  REQUIRE(a.fill == b.fill);
  REQUIRE(a.window_base == b.window_base);
  REQUIRE(a.window_size == b.window_size);
  REQUIRE(a.window_target == b.window_target);
  REQUIRE(a.stats_window_ns == b.stats_window_ns);
  REQUIRE(a.vdd == b.vdd);
  REQUIRE(a.idd0 == b.idd0);
  REQUIRE(a.idd2n == b.idd2n);
  REQUIRE(a.idd3n == b.idd3n);
  REQUIRE(a.idd4r == b.idd4r);
  REQUIRE(a.idd4w == b.idd4w);
  REQUIRE(a.idd5ab == b.idd5ab);
  REQUIRE(a.idd5pb == b.idd5pb);
  REQUIRE(f.dataram.base == d.dataram.base);
  REQUIRE(f.dataram.size == d.dataram.size);
  REQUIRE(f.dataram.clock_ns == d.dataram.clock_ns);
  REQUIRE(f.dataram.latency_cycles == d.dataram.latency_cycles);
  REQUIRE(f.dataram.width_bytes == d.dataram.width_bytes);
  REQUIRE(f.dataram.banks == d.dataram.banks);
  REQUIRE(f.dataram.bank_conflict_cycles == d.dataram.bank_conflict_cycles);
  REQUIRE(f.dataram.allow_misaligned == d.dataram.allow_misaligned);
  REQUIRE(f.dataram.fill == d.dataram.fill);
  REQUIRE(f.interconnect.clock_ns == d.interconnect.clock_ns);
  REQUIRE(f.interconnect.hop_latency_cycles == d.interconnect.hop_latency_cycles);
  // The geometry of the defaults: 16 GiB, 64-byte bursts, 32 bursts per row.
  REQUIRE(b.size() == (16ull << 30));
  REQUIRE(b.burst_bytes() == 64);
  REQUIRE(b.columns() == 32);
}

TEST_CASE("config: overrides apply in order and parse hex, lists and enums", "[config]") {
  const auto c = load_memory_config(
      "hbm:\n  tRCD: 20\n", "p.yaml",
      {parse_override("hbm.tRCD=16"), parse_override("hbm.page_policy=closed"),
       parse_override("dataram.size=0x20000"),
       parse_override("hbm.address_mapping=row,column,bank,bankgroup,channel")});
  REQUIRE(c.hbm.tRCD == 16);
  REQUIRE(c.hbm.page_policy == PagePolicy::kClosed);
  REQUIRE(c.dataram.size == 0x20000);
  REQUIRE(c.hbm.mapping[1] == AddrField::kColumn);
}

TEST_CASE("config: an unknown key names the key, the file and the line", "[config]") {
  const auto e = config_error(
      [] { load_memory_config("hbm:\n  tRCD: 14\n  tRDC: 15\n", "plat.yaml"); });
  REQUIRE(e.key() == "hbm.tRDC");
  REQUIRE(e.file() == "plat.yaml");
  REQUIRE(e.line() == 3);
  REQUIRE(e.value() == "15");
  REQUIRE(std::string(e.what()).find("plat.yaml:3") != std::string::npos);
  const auto s = config_error([] { load_memory_config("", "x", {parse_override("hbm.foo=1")}); });
  REQUIRE(s.file() == "--set");
  REQUIRE(s.key() == "hbm.foo");
  const auto sec = config_error([] { load_memory_config("hmb:\n  tRCD: 1\n", "f.yaml"); });
  REQUIRE(sec.key() == "hmb");
  REQUIRE(sec.line() == 1);
}

TEST_CASE("config: inconsistent and out-of-range timings are rejected by name", "[config]") {
  struct Row {
    std::string yaml;
    std::string key;
    int line;
  };
  const Row rows[] = {
      {"hbm:\n  tRCD: 14\n  tRAS: 10\n", "hbm.tRAS", 3},        // tRAS < tRCD
      {"hbm:\n  tCL: 0\n", "hbm.tCL", 2},                        // zero
      {"hbm:\n  tRP: 5000000\n", "hbm.tRP", 2},                  // absurd
      {"hbm:\n  tREFI: 200\n", "hbm.tREFI", 2},                  // < tRFC
      {"hbm:\n  tCCD_L: 1\n", "hbm.tCCD_L", 2},                  // < tCCD_S
      {"hbm:\n  channels: 6\n", "hbm.channels", 2},              // not a power of two
      {"hbm:\n  tRCD: -3\n", "hbm.tRCD", 2},                     // not unsigned
      {"hbm:\n  page_policy: lazy\n", "hbm.page_policy", 2},
      {"hbm:\n  address_mapping: row,bank,column\n", "hbm.address_mapping", 2},  // missing
      {"hbm:\n  address_mapping: row,row,bank,column,bankgroup,channel\n",
       "hbm.address_mapping", 2},
      {"dataram:\n  size: 0\n", "dataram.size", 2},              // zero-sized memory
      {"dataram:\n  width_bytes: 3\n", "dataram.width_bytes", 2},
      {"dataram:\n  base: 0x100000000\n", "dataram.base", 2},    // overlaps the HBM
      {"hbm:\n  window_base: 0x80000\n", "hbm.window_base", 2},  // overlaps the dataram
      {"hbm:\n  window_target: 0x500000000\n", "hbm.window_target", 2},  // outside the HBM
      {"interconnect:\n  clock_ns: 0\n", "interconnect.clock_ns", 2},
      // Below the 1 ps time resolution: 0 time units per cycle.
      {"hbm:\n  tck_ns: 1e-9\n", "hbm.tck_ns", 2},
      {"hbm:\n  tck_ns: 0.0009\n", "hbm.tck_ns", 2},
      {"dataram:\n  clock_ns: 1e-4\n", "dataram.clock_ns", 2},
      {"interconnect:\n  clock_ns: 1e-6\n", "interconnect.clock_ns", 2},
  };
  for (const auto& r : rows) {
    INFO(r.yaml);
    const auto e = config_error([&] { load_memory_config(r.yaml, "p.yaml"); });
    REQUIRE(e.key() == r.key);
    REQUIRE(e.line() == r.line);
    REQUIRE(e.file() == "p.yaml");
  }
}

TEST_CASE("config: a clock of exactly the time resolution is accepted", "[config]") {
  CHECK(load_memory_config("hbm:\n  tck_ns: 0.001\n", "p.yaml").hbm.tck_ns == 0.001);
}

TEST_CASE("config: malformed YAML and malformed overrides", "[config]") {
  const auto y = config_error([] { load_memory_config("hbm: [1, 2\n", "bad.yaml"); });
  REQUIRE(y.file() == "bad.yaml");
  const auto n = config_error([] { load_memory_config("hbm:\n  tRCD: {a: 1}\n", "b.yaml"); });
  REQUIRE(n.key() == "hbm.tRCD");
  REQUIRE_THROWS_AS(parse_override("hbm.tRCD"), ConfigError);
  REQUIRE_THROWS_AS(load_memory_config_file("/nonexistent/x.yaml"), ConfigError);
}
