// snitch-cluster runs: barrier semantics, multi-cluster addressing, every trap, and bad
// input. Each TEST_CASE that simulates is its own process (one sc_start per process).
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "sim/input/input_error.h"
#include "sim/input/snitch_profile.h"
#include "sim/run/snitch_run.h"

using namespace npusim::sim;
using Json = nlohmann::ordered_json;

namespace {

RunResult run_yaml(const std::string& yaml, const std::vector<Setting>& sets = {}) {
  RunOptions opt;
  opt.sets = sets;
  std::ostringstream out;
  return snitch::run(snitch::parse(yaml, "test.yaml"), opt, out);
}

double metric(const RunResult& r, const char* key) { return r.report["metrics"][key].get<double>(); }

std::vector<double> marker_times(const RunResult& r, const std::string& text) {
  std::vector<double> v;
  for (const auto& m : r.report["markers"])
    if (m["text"] == text) v.push_back(m["time_ns"].get<double>());
  return v;
}

// The message with which loading `yaml` (as file s.yaml) fails, or "no error".
std::string parse_error(const std::string& yaml) {
  try {
    snitch::parse(yaml, "s.yaml");
  } catch (const InputError& e) {
    return std::string(e.what());
  }
  return std::string("no error");
}

}  // namespace

TEST_CASE("snitch barrier: every core leaves at the last arrival plus barrier_cycles") {
  // Core i computes 100 * (i + 1) cycles before the barrier: the DM core (8) arrives last.
  const auto r = run_yaml(R"y(
program:
  - compute: "100 * (core + 1)"
  - marker: arrive
  - barrier
  - marker: leave
)y");
  REQUIRE(r.exit_code == 0);
  const auto arrive = marker_times(r, "arrive");
  const auto leave = marker_times(r, "leave");
  REQUIRE(arrive.size() == 9);
  REQUIRE(leave.size() == 9);
  const double last = *std::max_element(arrive.begin(), arrive.end());
  CHECK(last >= 900.0);
  for (double t : leave) CHECK(t == Approx(last + 8.0));  // 8 cycles at 1 GHz
  CHECK(metric(r, "barriers") == 1);
}

TEST_CASE("snitch barrier: a core that skips it leaves the others hung where they wait") {
  const auto r = run_yaml(R"y(
program:
  - when:
      if: core != 3
      then: [barrier]
)y");
  CHECK(r.exit_code == 1);  // no expectations: a hang fails the run
  CHECK(metric(r, "hung_cores") == 8);
  CHECK(metric(r, "finished_cores") == 1);
  CHECK(metric(r, "barriers") == 0);
  int blocked = 0;
  for (const auto& c : r.report["cores"])
    if (c.contains("blocked_at")) {
      ++blocked;
      CHECK(c["blocked_at"].get<std::string>() == "test.yaml:5:14");
    }
  CHECK(blocked == 8);
}

TEST_CASE("snitch clusters: remote_l1_ptr reaches cluster 2's TCDM at 2 x cluster_offset") {
  // Cluster 0's core 0 writes into cluster 2's buffer through the remote pointer; after a
  // global barrier cluster 2's core 0 checks it in its own TCDM.
  const auto r = run_yaml(R"y(
set: {cluster.clusters: 3, cluster.cluster_offset: 0x100000}
program:
  - l1_alloc: {size: 512, align: 8, as: buf}
  - remote_l1_ptr: {ptr: buf, dst: 2, as: far}
  - let: {delta: far - buf}
  - when:
      if: cluster == 0 && core == 0
      then: [{store: {addr: far, count: 64, value: 0xfeed}}]
  - barrier: global
  - when:
      if: cluster == 2 && core == 0
      then: [{check: {addr: buf, count: 64, value: 0xfeed}}]
  - when:
      if: cluster == 1 && core == 0
      then: [{check: {addr: buf, count: 64, value: 0}}]
expect:
  check_failures: 0
  faults: 0
  tcdm0.accesses: "> 0"
)y");
  REQUIRE(r.exit_code == 0);
  const auto& cl = r.report["clusters"];
  REQUIRE(cl.size() == 3);
  CHECK(cl[0]["tcdm_base"] == "0x10000000");
  CHECK(cl[1]["tcdm_base"] == "0x10100000");
  CHECK(cl[2]["tcdm_base"] == "0x10200000");
  // Clusters 1 and 2 run the same steps on their own TCDM (cluster 1 checks its untouched
  // buffer for zeros); cluster 2 also receives cluster 0's 64 remote stores.
  const auto writes = [&](int k) { return cl[k]["tcdm"]["writes"].get<uint64_t>(); };
  const auto reads = [&](int k) { return cl[k]["tcdm"]["reads"].get<uint64_t>(); };
  CHECK(writes(2) == writes(1) + 64);
  CHECK(reads(2) == reads(1));
  CHECK(writes(0) == writes(1));     // cluster 0's core 0 stored remotely, not locally
  CHECK(reads(0) + 64 == reads(1));  // cluster 1's check loaded 64 words
}

TEST_CASE("snitch trap: L1 overflow stops every core and names call and size and bytes past end") {
  const auto r = run_yaml(R"y(
program:
  - l1_alloc: {size: "l1_end - tcdm_base - 4", as: all}
  - l1_alloc: {size: 24, align: 8, as: more}
  - marker: not reached
)y");
  CHECK(r.exit_code == 1);
  CHECK(metric(r, "l1_traps") == 9);
  CHECK(metric(r, "stopped_cores") == 9);
  CHECK(metric(r, "markers") == 0);
  const auto& t = r.report["traps"][0];
  CHECK(t["call"] == "snrt_l1_alloc_cluster_local");
  CHECK(t["size"] == 24);
  CHECK(t["alignment"] == 8);
  // next was exactly end; align_up(end, 8) = end (end is 8-aligned) so next = end + 24.
  CHECK(t["past_end"] == 24);
  CHECK(t["action"] == "core stopped");
  CHECK(t["step"] == "test.yaml:4:5");
  CHECK(r.report["outcome"]["fault"]["kind"] == "trap");
}

TEST_CASE("snitch trap: L3 exact fit traps with 0 bytes past end and under record the cores go on") {
  const auto r = run_yaml(R"y(
policies: {on_trap: record}
program:
  - l3_alloc: {size: "l3_end - 0x80100000", as: exact}
  - marker: after
)y");
  CHECK(metric(r, "l3_traps") == 9);
  CHECK(metric(r, "stopped_cores") == 0);
  CHECK(metric(r, "markers") == 9);
  const auto& t = r.report["traps"][0];
  CHECK(t["call"] == "snrt_l3_alloc_v2");
  CHECK(t["past_end"] == 0);
  CHECK(t["next"] == "0x100000000");
  CHECK(t["action"] == "recorded");
  CHECK(r.exit_code == 1);  // traps without expectations fail the run
}

TEST_CASE("snitch trap: the same L3 allocation one byte smaller does not trap") {
  const auto r = run_yaml(R"y(
program:
  - l3_alloc: {size: "l3_end - 0x80100000 - 1", as: fits}
)y");
  CHECK(r.exit_code == 0);
  CHECK(metric(r, "traps") == 0);
}

TEST_CASE("snitch: compute-core-local allocation on the DM core is reported undefined") {
  const auto r = run_yaml(R"y(
program:
  - l1_alloc_core_local: {size: 64, as: v}
)y");
  CHECK(metric(r, "undefined_results") == 1);
  const auto& u = r.report["undefined_results"][0];
  CHECK(u["core"] == 8);
  CHECK(u["call"] == "snrt_l1_alloc_compute_core_local");
  // next + 64 x core_idx with next = TCDM base + 4 (the start-up barrier counter).
  CHECK(u["addr"] == "0x10000204");
  CHECK(r.exit_code == 1);
}

TEST_CASE("snitch: a compute core may not drive the DMA") {
  const auto r = run_yaml(R"y(
program:
  - l1_alloc: {size: 64, as: a}
  - when: {if: core == 2, then: [{dma: {src: a, dst: a, bytes: 8}}]}
)y");
  CHECK(metric(r, "faults") == 1);
  CHECK(r.report["faults"][0]["kind"] == "not the DM core");
}

TEST_CASE("snitch scenario errors name file and line and column") {
  CHECK_THAT(parse_error("program:\n  - allocate: 4\n"), Catch::Contains("s.yaml:2:5") && Catch::Contains("unknown step 'allocate'"));
  CHECK_THAT(parse_error("program:\n  - load: buf\n"), Catch::Contains("s.yaml:2:11") && Catch::Contains("'buf' is used before"));
  CHECK_THAT(parse_error("program:\n  - compute: \"3 +\"\n"), Catch::Contains("s.yaml:2:14") && Catch::Contains("expected a number"));
  CHECK_THAT(parse_error("program:\n  - compute: 4 / 0\n"), Catch::Contains("division by zero"));
  CHECK_THAT(parse_error("program:\n  - barrier: everyone\n"), Catch::Contains("cluster or global"));
  CHECK_THAT(parse_error("policies: {on_trap: ignore}\nprogram: []\n"), Catch::Contains("stop_core or record"));
  CHECK_THAT(parse_error("program:\n  - l1_alloc: {size: 8, as: core}\n"), Catch::Contains("built-in"));
  CHECK(parse_error("program:\n  - l1_alloc: {size: 8, as: a}\n  - load: a + 8 * core\n") == "no error");
}

TEST_CASE("snitch platform errors name the key and value") {
  auto err = [](std::vector<Setting> sets) {
    try {
      load_snitch_platform("snitch-cluster", sets);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const Where w{"--set", 0, 0};
  CHECK_THAT(err({{"cluster.clusters", "2", w}, {"cluster.cluster_offset", "0x1000", w}}),
             Catch::Contains("cluster.cluster_offset=0x1000") && Catch::Contains("overlap"));
  CHECK_THAT(err({{"tcdm.bankz", "4", w}}), Catch::Contains("tcdm.bankz=4") && Catch::Contains("unknown key"));
  CHECK_THAT(err({{"l3.end", "0xc0000001", w}}), Catch::Contains("l3.end"));
  CHECK_THAT(err({{"l3.tRCD", "0", w}}), Catch::Contains("l3.tRCD=0"));
  CHECK_THAT(err({{"runtime.log2_stack_size", "16", w}}), Catch::Contains("do not fit in the TCDM"));
  CHECK(err({{"cluster.clusters", "4", w}}) == "no error");
  const auto c = load_snitch_platform("snitch-cluster", {});
  CHECK(c.runtime.compute_cores == 8);
  CHECK(c.cores_per_cluster() == 9);
  CHECK(c.tcdm.geometry.banks == 32);
  CHECK(c.tcdm.geometry.bank_width == 8);
  CHECK(c.runtime.tcdm_size == 128 * 1024);
  CHECK(c.l3.base == 0x80000000ull);
  CHECK(c.l3.size() == 0x80000000ull);
  CHECK(c.tcdm_base(1) == 0x10040000ull);
}

TEST_CASE("snitch dma: a 64 KiB L3 to TCDM copy moves at most 64 B per cycle and close to it") {
  const auto r = run_yaml(R"y(
program:
  - l3_alloc: {size: 64KiB, align: 64, as: src}
  - l1_alloc: {size: 64KiB, align: 64, as: dst}
  - when:
      if: is_dm
      then:
        - marker: start
        - dma: {src: src, dst: dst, bytes: 64KiB}
        - dma_wait
        - marker: done
)y");
  REQUIRE(r.exit_code == 0);
  const double ns = marker_times(r, "done")[0] - marker_times(r, "start")[0];
  // 1024 beats of 64 B at 1 GHz: never faster than 1024 ns; setup and the first L3 burst's
  // latency add a little.
  CHECK(ns >= 1024.0);
  CHECK(ns <= 1024.0 * 1.25);
  const auto& t = r.report["clusters"][0]["tcdm"];
  CHECK(t["dma_accesses"] == 64);  // 64 bursts of 1 KiB
  CHECK(t["beats"].get<uint64_t>() >= 1024);
}

TEST_CASE("snitch platform: a partial profile file keeps the built-in values it does not set") {
  const auto builtin = load_snitch_platform("snitch-cluster", {});
  const auto c = load_snitch_platform(NPUSIM_SOURCE_DIR "/tests/data/snitch_partial_profile.yaml", {});
  CHECK(c.clusters == 2);
  CHECK(c.barrier_cycles == 20);
  CHECK(c.core.quantum_cycles == builtin.core.quantum_cycles);
  CHECK(builtin.core.quantum_cycles == 1);
  CHECK(c.dma.channels == 1);
  CHECK(c.dma.burst_bytes == 1024);
  CHECK(c.interconnect.hop_latency_cycles == 1);
  CHECK(is_snitch_platform(NPUSIM_SOURCE_DIR "/tests/data/snitch_partial_profile.yaml"));
  CHECK_FALSE(is_snitch_platform(NPUSIM_SOURCE_DIR "/sim/platforms/neuron-gpsimd.yaml"));
}

TEST_CASE("snitch cores: every core runs program and then its index's or its role's steps") {
  const auto r = run_yaml(R"y(
program:
  - marker: all
cores:
  "3": [{marker: three}]
  compute: [{marker: compute}]
  dm: [{marker: dm}]
)y");
  REQUIRE(r.exit_code == 0);
  CHECK(marker_times(r, "all").size() == 9);
  CHECK(marker_times(r, "three").size() == 1);
  CHECK(marker_times(r, "compute").size() == 7);
  CHECK(marker_times(r, "dm").size() == 1);
  for (const auto& m : r.report["markers"])
    if (m["text"] == "three") CHECK(m["core"] == "c0_core3");
}

TEST_CASE("snitch dma: a transfer to an unmapped address is a bus error the DM core sees") {
  const auto r = run_yaml(R"y(
program:
  - l1_alloc: {size: 64, as: a}
  - when:
      if: is_dm
      then:
        - dma: {src: a, dst: 0x20000000, bytes: 64}
        - dma_wait
)y");
  CHECK(r.exit_code == 1);
  CHECK(metric(r, "dma.errors") == 1);
  CHECK(metric(r, "faults") == 1);
  CHECK(r.report["faults"][0]["kind"] == "dma bus error");
  CHECK(r.report["faults"][0]["core"] == "c0_dm");
  CHECK_THAT(r.report["clusters"][0]["dma_errors"][0].get<std::string>(), Catch::Contains("0x20000000"));
}

TEST_CASE("snitch: nested and oversized expressions and address lists are refused at load") {
  CHECK_THAT(parse_error("program:\n  - compute: \"" + std::string(40, '(') + "1" + std::string(40, ')') + "\"\n"),
             Catch::Contains("nested more than 32 deep"));
  CHECK_THAT(parse_error("program:\n  - compute: \"" + std::string(200, '-') + "1\"\n"), Catch::Contains("nested"));
  CHECK_THAT(parse_error("program:\n  - stream: {load: [0x10000000, 0x10000008, 0x10000010, 0x10000018, 0x10000020, "
                 "0x10000028, 0x10000030, 0x10000038, 0x10000040]}\n"),
             Catch::Contains("1 to 8 addresses"));
  CHECK_THAT(parse_error("program: [barrier]\ncores:\n  \"123456789012345678901234567890\": [barrier]\n"),
             Catch::Contains("core index"));
}

TEST_CASE("snitch traces: the VCD has a busy wire per core and DMA channel and the conflict counter") {
  RunOptions opt;
  opt.vcd_path = "snitch_test_waves.vcd";
  opt.trace_path = "snitch_test_trace.json";
  std::ostringstream out;
  const auto r = snitch::run(snitch::parse(R"y(
program:
  - l3_alloc: {size: 4KiB, as: src}
  - l1_alloc: {size: 4KiB, as: dst}
  - when: {if: is_dm, then: [{dma: {src: src, dst: dst, bytes: 4KiB}}, dma_wait]}
  - barrier
  - store: {addr: dst, count: 16}
)y", "test.yaml"), opt, out);
  REQUIRE(r.exit_code == 0);
  std::ifstream in(opt.vcd_path);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string vcd = ss.str();
  for (const char* scope : {"core0", "core7", "dm", "channel0", "tcdm"})
    CHECK(vcd.find(std::string("$scope module ") + scope + " $end") != std::string::npos);
  CHECK(vcd.find("conflicts_per_bin") != std::string::npos);
  std::ifstream tin(opt.trace_path);
  std::stringstream ts;
  ts << tin.rdbuf();
  const auto trace = nlohmann::json::parse(ts.str());
  int slices = 0, counters = 0;
  std::set<std::string> threads;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "X") ++slices;
    if (e["ph"] == "C") ++counters;
    if (e["ph"] == "M" && e["name"] == "thread_name") threads.insert(e["args"]["name"].get<std::string>());
  }
  CHECK(slices >= 9 * 3);  // start-up, two allocations per core at least
  CHECK(counters >= 1);
  for (const char* t : {"core 0", "core 7", "dm core", "dma"}) CHECK(threads.count(t) == 1);
  std::remove(opt.vcd_path.c_str());
  std::remove(opt.trace_path.c_str());
}

TEST_CASE("snitch: alignment 0 is a bad-operand fault of the core that asked") {
  const auto r = run_yaml(R"y(
program:
  - when: {if: core == 5, then: [{l1_alloc: {size: 8, align: 0, as: z}}]}
)y");
  CHECK(metric(r, "faults") == 1);
  CHECK(metric(r, "finished_cores") == 8);
  CHECK(r.report["faults"][0]["kind"] == "bad operand");
  CHECK(r.report["faults"][0]["core"] == "c0_core5");
  CHECK_THAT(r.report["faults"][0]["message"].get<std::string>(), Catch::Contains("alignment 0"));
}
