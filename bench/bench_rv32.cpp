// RV32 program cores: simulated instructions per host second (docs/performance.md).
//   BM_rv32_engine   the interpreter and its scoreboard alone, memory a flat host array
//   BM_rv32_1core    one core of the snitch-cluster platform, every access through the models
//   BM_rv32_9cores   all 9 cores of a cluster in lockstep, every access through the models
// The program is a loop of 7 instructions with a TCDM load and store (each core on its own
// banks), assembled here so that the benchmark needs no RV32 compiler. SystemC elaborates
// once per process, so run ONE platform benchmark per process:
//   bench_rv32 --benchmark_filter=BM_rv32_engine
//   bench_rv32 --benchmark_filter=BM_rv32_1core
//   bench_rv32 --benchmark_filter=BM_rv32_9cores
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "models/rv32/hart.h"
#include "sim/run/snitch_run.h"

namespace {

using namespace npusim::models::rv32;

uint32_t r_type(uint32_t f7, uint32_t rs2, uint32_t rs1, uint32_t f3, uint32_t rd, uint32_t opc) {
  return (f7 << 25) | (rs2 << 20) | (rs1 << 15) | (f3 << 12) | (rd << 7) | opc;
}
uint32_t i_type(int32_t imm, uint32_t rs1, uint32_t f3, uint32_t rd, uint32_t opc) {
  return (static_cast<uint32_t>(imm & 0xfff) << 20) | (rs1 << 15) | (f3 << 12) | (rd << 7) | opc;
}
uint32_t lui(uint32_t rd, uint32_t imm20) { return (imm20 << 12) | (rd << 7) | 0x37; }
uint32_t sw(uint32_t rs2, uint32_t rs1, int32_t imm) {
  const uint32_t u = static_cast<uint32_t>(imm);
  return (((u >> 5) & 0x7f) << 25) | (rs2 << 20) | (rs1 << 15) | (2u << 12) | ((u & 31) << 7) | 0x23;
}

constexpr uint32_t kIterations = 1'000'000;
constexpr uint32_t kInstructionsPerIteration = 7;

// The loop: each hart works on its own 256-byte slice of the TCDM.
std::vector<uint32_t> program() {
  const uint32_t exit_addr = 0x1002'f008;
  return {
      i_type(0xf14, 0, 2, 5, 0x73),             // csrr x5, mhartid
      i_type(8, 5, 1, 5, 0x13),                  // slli x5, x5, 8
      lui(30, 0x10000),                          // x30 = TCDM base
      r_type(0, 5, 30, 0, 30, 0x33),             // add x30, x30, x5
      lui(31, exit_addr >> 12),                  //
      i_type(exit_addr & 0xfff, 31, 0, 31, 0x13),  // x31 = EXIT
      lui(6, kIterations >> 12),                 //
      i_type(kIterations & 0xfff, 6, 0, 6, 0x13),  // x6 = iterations (low 12 bits < 2048)
      // loop:
      i_type(0, 30, 2, 7, 0x03),                 // lw x7, 0(x30)
      i_type(1, 7, 0, 7, 0x13),                  // addi x7, x7, 1
      r_type(1, 7, 7, 0, 8, 0x33),               // mul x8, x7, x7
      sw(7, 30, 0),                              // sw x7, 0(x30)
      r_type(0, 8, 9, 0, 9, 0x33),               // add x9, x9, x8
      i_type(-1, 6, 0, 6, 0x13),                 // addi x6, x6, -1
      // bne x6, x0, loop (-24)
      (1u << 31) | (0x3fu << 25) | (0u << 20) | (6u << 15) | (1u << 12) | (0x4u << 8) | (1u << 7) | 0x63,
      sw(0, 31, 0),                              // exit(0)
  };
}

// The same loop as an ELF file for the platform runs.
std::string write_elf() {
  const std::vector<uint32_t> code = program();
  std::vector<uint8_t> b(52 + 32, 0);
  const uint8_t ident[] = {0x7f, 'E', 'L', 'F', 1, 1, 1};
  std::memcpy(b.data(), ident, sizeof ident);
  auto w16 = [&](size_t o, uint16_t v) { std::memcpy(&b[o], &v, 2); };
  auto w32 = [&](size_t o, uint32_t v) { std::memcpy(&b[o], &v, 4); };
  w16(16, 2);
  w16(18, 243);
  w32(20, 1);
  w32(24, 0x80000000u);
  w32(28, 52);
  w32(36, 0x4);
  w16(40, 52);
  w16(42, 32);
  w16(44, 1);
  w32(52, 1);
  w32(56, 84);
  w32(60, 0x80000000u);
  w32(64, 0x80000000u);
  w32(68, static_cast<uint32_t>(code.size() * 4));
  w32(72, static_cast<uint32_t>(code.size() * 4));
  w32(76, 5);
  for (uint32_t c : code) {
    const size_t o = b.size();
    b.resize(o + 4);
    std::memcpy(&b[o], &c, 4);
  }
  const std::string path = "/tmp/npusim-bench-rv32.elf";
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  return path;
}

struct FlatEnv : Env {
  std::vector<uint8_t> tcdm = std::vector<uint8_t>(128 * 1024);
  Result load(Hart& h, uint32_t addr, uint32_t size, void* data, Answer& a) override {
    std::memcpy(data, &tcdm[addr & 0x1ffff], size);
    a.ready = h.cycle() + 2;
    a.target = Target::kTcdm;
    return Result::kOk;
  }
  Result store(Hart& h, uint32_t addr, uint32_t size, const void* data, Answer& a) override {
    if (addr == 0x1002'f008u) {
      h.request_stop(Stop::kExit);
      return Result::kStop;
    }
    std::memcpy(&tcdm[addr & 0x1ffff], data, size);
    a.ready = h.cycle() + 2;
    return Result::kOk;
  }
  Result dma(Hart&, Op, uint32_t, uint32_t, uint32_t*) override { return Result::kFault; }
};

void BM_rv32_engine(benchmark::State& state) {
  uint64_t instructions = 0;
  for (auto _ : state) {
    FlatEnv env;
    Hart h(0, Rv32Timing{});
    h.set_code(0x80000000u, program());
    h.reset(0x80000000u, 0);
    while (h.run(~uint64_t{0} - 1, env) == Stop::kBudget) {
    }
    instructions += h.stats().instret;
  }
  state.counters["instructions_per_s"] = benchmark::Counter(static_cast<double>(instructions), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_rv32_engine)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

void run_platform(benchmark::State& state, const char* on) {
  const std::string elf = write_elf();
  const std::string text = std::string("name: bench-rv32\nplatform: snitch-cluster\nbinary:\n  elf: ") + elf +
                           "\n  on: " + on + "\nexpect:\n  exited_cores: \">= 1\"\n";
  const auto sc = npusim::sim::snitch::parse(text, "bench_rv32.yaml");
  double instructions = 0;
  for (auto _ : state) {
    std::ostringstream out;
    const auto r = npusim::sim::snitch::run(sc, npusim::sim::RunOptions{}, out);
    if (r.exit_code != 0) state.SkipWithError(("the program failed:\n" + out.str()).c_str());
    instructions = r.report["metrics"]["instructions"].get<double>();
    state.counters["cores"] = r.report["metrics"]["exited_cores"].get<double>();
    state.counters["ipc"] = r.report["metrics"]["ipc"].get<double>();
  }
  state.counters["instructions"] = instructions;
  state.counters["instructions_per_s"] = benchmark::Counter(instructions, benchmark::Counter::kIsRate);
  std::remove(elf.c_str());
}

void BM_rv32_1core(benchmark::State& state) { run_platform(state, "c0_core0"); }
BENCHMARK(BM_rv32_1core)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_rv32_9cores(benchmark::State& state) { run_platform(state, "all"); }
BENCHMARK(BM_rv32_9cores)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
