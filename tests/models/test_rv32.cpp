// The RV32 hart without a simulation: instruction semantics (integer, M, A, F, D with the
// RISC-V NaN, rounding and saturation rules), the scoreboard's timing, CSRs, faults, and the
// ELF reader's refusals. Programs are assembled here from their encodings.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <map>

#include "models/rv32/elf.h"
#include "models/rv32/hart.h"

// A namespace of its own: the unity build compiles several test files as one unit.
namespace rv32_tests {
using namespace npusim::models::rv32;

namespace {

// --- a tiny assembler ---
uint32_t r_type(uint32_t f7, uint32_t rs2, uint32_t rs1, uint32_t f3, uint32_t rd, uint32_t opc) {
  return (f7 << 25) | (rs2 << 20) | (rs1 << 15) | (f3 << 12) | (rd << 7) | opc;
}
uint32_t i_type(int32_t imm, uint32_t rs1, uint32_t f3, uint32_t rd, uint32_t opc) {
  return (static_cast<uint32_t>(imm & 0xfff) << 20) | (rs1 << 15) | (f3 << 12) | (rd << 7) | opc;
}
uint32_t s_type(int32_t imm, uint32_t rs2, uint32_t rs1, uint32_t f3, uint32_t opc) {
  const uint32_t u = static_cast<uint32_t>(imm);
  return (((u >> 5) & 0x7f) << 25) | (rs2 << 20) | (rs1 << 15) | (f3 << 12) | ((u & 31) << 7) | opc;
}
uint32_t b_type(int32_t imm, uint32_t rs2, uint32_t rs1, uint32_t f3) {
  const uint32_t u = static_cast<uint32_t>(imm);
  return (((u >> 12) & 1) << 31) | (((u >> 5) & 0x3f) << 25) | (rs2 << 20) | (rs1 << 15) | (f3 << 12) |
         (((u >> 1) & 15) << 8) | (((u >> 11) & 1) << 7) | 0x63;
}
uint32_t addi(uint32_t rd, uint32_t rs1, int32_t imm) { return i_type(imm, rs1, 0, rd, 0x13); }
uint32_t add(uint32_t rd, uint32_t a, uint32_t b) { return r_type(0, b, a, 0, rd, 0x33); }
uint32_t mul(uint32_t rd, uint32_t a, uint32_t b) { return r_type(1, b, a, 0, rd, 0x33); }
uint32_t div_(uint32_t rd, uint32_t a, uint32_t b) { return r_type(1, b, a, 4, rd, 0x33); }
uint32_t rem(uint32_t rd, uint32_t a, uint32_t b) { return r_type(1, b, a, 6, rd, 0x33); }
uint32_t divu(uint32_t rd, uint32_t a, uint32_t b) { return r_type(1, b, a, 5, rd, 0x33); }
uint32_t lui(uint32_t rd, uint32_t imm20) { return (imm20 << 12) | (rd << 7) | 0x37; }
uint32_t lw(uint32_t rd, uint32_t rs1, int32_t imm) { return i_type(imm, rs1, 2, rd, 0x03); }
uint32_t sw(uint32_t rs2, uint32_t rs1, int32_t imm) { return s_type(imm, rs2, rs1, 2, 0x23); }
uint32_t bne(uint32_t a, uint32_t b, int32_t off) { return b_type(off, b, a, 1); }
uint32_t csrr(uint32_t rd, uint32_t csr) { return i_type(static_cast<int32_t>(csr), 0, 2, rd, 0x73); }
uint32_t fld(uint32_t rd, uint32_t rs1, int32_t imm) { return i_type(imm, rs1, 3, rd, 0x07); }
uint32_t flw(uint32_t rd, uint32_t rs1, int32_t imm) { return i_type(imm, rs1, 2, rd, 0x07); }
uint32_t fsd(uint32_t rs2, uint32_t rs1, int32_t imm) { return s_type(imm, rs2, rs1, 3, 0x27); }
uint32_t fp_op(uint32_t f7, uint32_t rs2, uint32_t rs1, uint32_t rm, uint32_t rd) { return r_type(f7, rs2, rs1, rm, rd, 0x53); }
uint32_t fmadd_d(uint32_t rd, uint32_t a, uint32_t b, uint32_t c) {
  return (c << 27) | (1u << 25) | (b << 20) | (a << 15) | (0u << 12) | (rd << 7) | 0x43;
}
uint32_t fmadd_s(uint32_t rd, uint32_t a, uint32_t b, uint32_t c) {
  return (c << 27) | (0u << 25) | (b << 20) | (a << 15) | (0u << 12) | (rd << 7) | 0x43;
}
constexpr uint32_t kEcall = 0x00000073, kEbreak = 0x00100073;
// exit: sw x0 to the host interface's EXIT register is done by the test Env on a marker store.

constexpr uint32_t kCode = 0x8000'0000, kData = 0x1000'0000;

// Flat memory; addresses at or above 0x8000_0000 answer after `l3_latency` cycles, the rest
// after 1. A store to kExitAddr stops the hart.
constexpr uint32_t kExitAddr = 0x1002'f008;
struct TestEnv : Env {
  std::map<uint32_t, uint8_t> mem;
  uint64_t l3_latency = 10;
  uint64_t stall = 0;
  uint32_t read8(uint32_t a) const {
    auto it = mem.find(a);
    return it == mem.end() ? 0 : it->second;
  }
  Result load(Hart& h, uint32_t addr, uint32_t size, void* data, Answer& a) override {
    uint64_t v = 0;
    for (uint32_t i = 0; i < size; ++i) v |= static_cast<uint64_t>(read8(addr + i)) << (8 * i);
    std::memcpy(data, &v, size);
    const bool l3 = addr >= 0x8000'0000u;
    a.ready = h.cycle() + (l3 ? l3_latency : 1);
    a.target = l3 ? Target::kL3 : Target::kTcdm;
    a.stall = stall;
    return Result::kOk;
  }
  Result store(Hart& h, uint32_t addr, uint32_t size, const void* data, Answer& a) override {
    uint64_t v = 0;
    std::memcpy(&v, data, size);
    if (addr == kExitAddr) {
      h.set_exit_code(static_cast<uint32_t>(v));
      h.request_stop(Stop::kExit);
      return Result::kStop;
    }
    for (uint32_t i = 0; i < size; ++i) mem[addr + i] = static_cast<uint8_t>(v >> (8 * i));
    a.ready = h.cycle() + 1;
    a.stall = stall;
    return Result::kOk;
  }
  Result dma(Hart& h, Op, uint32_t, uint32_t, uint32_t*) override {
    h.set_fault("dma", "no DMA here");
    return Result::kFault;
  }
  void put64(uint32_t a, uint64_t v) {
    for (int i = 0; i < 8; ++i) mem[a + i] = static_cast<uint8_t>(v >> (8 * i));
  }
  void put32(uint32_t a, uint32_t v) {
    for (int i = 0; i < 4; ++i) mem[a + i] = static_cast<uint8_t>(v >> (8 * i));
  }
};

// Appends "store x0 to EXIT" (x31 holds the exit address, set up first) and runs to the end.
struct Program {
  std::vector<uint32_t> code;
  Program() {
    code.push_back(lui(31, kExitAddr >> 12));
    code.push_back(addi(31, 31, kExitAddr & 0xfff));
    code.push_back(lui(30, kData >> 12));  // x30: the data base
  }
  Program& operator<<(uint32_t w) {
    code.push_back(w);
    return *this;
  }
};

Stop run(Program p, Hart& h, TestEnv& env, uint32_t exit_reg = 0) {
  p.code.push_back(sw(exit_reg, 31, 0));
  h.set_code(kCode, p.code);
  h.reset(kCode, 0);
  Stop s;
  int guard = 0;
  do {
    s = h.run(UINT64_MAX - 1, env);
  } while (s == Stop::kBudget && ++guard < 100);
  return s;
}

double as_double(uint64_t b) {
  double d;
  std::memcpy(&d, &b, 8);
  return d;
}
uint64_t bits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}
uint32_t fbits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

}  // namespace

TEST_CASE("rv32: integer arithmetic, a loop and the exit register", "[rv32]") {
  TestEnv env;
  Hart h(0, Rv32Timing{});
  Program p;
  // x10 = sum of 1..10
  p << addi(10, 0, 0) << addi(5, 0, 10) << add(10, 10, 5) << addi(5, 5, -1) << bne(5, 0, -8);
  REQUIRE(run(p, h, env, 10) == Stop::kExit);
  CHECK(h.exit_code() == 55);
  CHECK(h.x(10) == 55);
  // 3 set-up + 2 + 10 iterations of 3 + the exit store: no stalls, one cycle each.
  CHECK(h.stats().instret == 3 + 2 + 30 + 1);
  CHECK(h.cycle() == h.stats().instret);
  CHECK(h.stats().stall_total() == 0);
}

TEST_CASE("rv32: division and remainder follow the ISA's special cases", "[rv32]") {
  TestEnv env;
  Hart h(0, Rv32Timing{});
  Program p;
  p << addi(5, 0, 7) << addi(6, 0, 0) << div_(10, 5, 6) << rem(11, 5, 6) << divu(12, 5, 6)
    << lui(7, 0x80000) << addi(8, 0, -1) << div_(13, 7, 8) << rem(14, 7, 8) << addi(9, 0, -7) << addi(6, 0, 2)
    << div_(15, 9, 6) << rem(16, 9, 6);
  REQUIRE(run(p, h, env) == Stop::kExit);
  CHECK(h.x(10) == 0xffffffffu);  // x / 0 = -1
  CHECK(h.x(11) == 7);            // x % 0 = x
  CHECK(h.x(12) == 0xffffffffu);
  CHECK(h.x(13) == 0x80000000u);  // INT_MIN / -1 = INT_MIN
  CHECK(h.x(14) == 0);
  CHECK(static_cast<int32_t>(h.x(15)) == -3);  // rounds toward zero
  CHECK(static_cast<int32_t>(h.x(16)) == -1);
}

TEST_CASE("rv32: a chain of dependent multiplies costs the multiplier's latency each, independent ones one cycle", "[rv32]") {
  const int n = 16;
  TestEnv env;
  Hart dep(0, Rv32Timing{}), ind(0, Rv32Timing{});
  Program pd, pi;
  pd << addi(5, 0, 3) << addi(10, 0, 1);
  pi << addi(5, 0, 3) << addi(10, 0, 1);
  for (int i = 0; i < n; ++i) pd << mul(10, 10, 5);                              // x10 *= 3
  for (int i = 0; i < n; ++i) pi << mul(static_cast<uint32_t>(11 + i % 8), 5, 5);  // no dependency
  REQUIRE(run(pd, dep, env, 10) == Stop::kExit);
  REQUIRE(run(pi, ind, env) == Stop::kExit);
  CHECK(dep.x(10) == 43046721u);  // 3^16
  // Snitch: a dependent instruction after mul stalls 3 cycles (latency 4).
  const uint64_t chain = dep.cycle() - ind.cycle();
  CHECK(chain == static_cast<uint64_t>(n) * 3);
  CHECK(dep.stats().stall_dependency == static_cast<uint64_t>(n) * 3);
  CHECK(ind.stats().stall_dependency == 0);
}

TEST_CASE("rv32: fp64 and fp32 chains cost their latencies; fmadd.d computes with one rounding", "[rv32]") {
  TestEnv env;
  env.put64(kData, bits(1.5));
  env.put64(kData + 8, bits(2.0));
  env.put64(kData + 16, bits(0.25));
  Hart h(0, Rv32Timing{});
  Program p;
  p << fld(1, 30, 0) << fld(2, 30, 8) << fld(3, 30, 16);
  for (int i = 0; i < 10; ++i) p << fmadd_d(3, 1, 2, 3);  // f3 = 1.5 * 2 + f3
  p << fsd(3, 30, 24);
  REQUIRE(run(p, h, env) == Stop::kExit);
  CHECK(as_double(h.f(3)) == 30.25);
  uint64_t stored = 0;
  for (int i = 0; i < 8; ++i) stored |= static_cast<uint64_t>(env.read8(kData + 24 + i)) << (8 * i);
  CHECK(as_double(stored) == 30.25);
  // fp64 latency 3: each dependent fmadd.d waits 2 cycles; the first one waits for the load.
  CHECK(h.stats().stall_dependency == 9 * 2 + 2);  // the fsd waits for the last fmadd too
  Rv32Timing t32;
  Hart s(0, t32);
  Program q;
  env.put32(kData + 32, 0xffffffffu);
  q << flw(1, 30, 0);  // the low word of 1.5 as a single: only the NaN-boxing matters here
  for (int i = 0; i < 10; ++i) q << fmadd_s(2, 1, 1, 2);
  REQUIRE(run(q, s, env) == Stop::kExit);
  CHECK(s.stats().stall_dependency == 10 * 1 - 1 + 0);  // fp32 latency 2: 1 per dependent op; the first waits for f2 = 0
}

TEST_CASE("rv32: a load's data arrives when its memory answers, and the stall is charged to that memory", "[rv32]") {
  TestEnv env;
  env.l3_latency = 12;
  env.put32(kCode + 0x1000, 5);
  env.put32(kData, 7);
  Hart h(0, Rv32Timing{});
  Program p;
  p << lui(6, kCode >> 12) << lw(10, 6, 0x100) << add(10, 10, 10) << lw(11, 30, 0) << add(11, 11, 11);
  REQUIRE(run(p, h, env) == Stop::kExit);
  CHECK(h.stats().stall_memory[static_cast<int>(Target::kL3)] == 11);
  CHECK(h.stats().stall_memory[static_cast<int>(Target::kTcdm)] == 0);
  CHECK(h.x(11) == 14);
  // A request that waits for its bank stalls the core (a bank conflict).
  TestEnv busy;
  busy.stall = 3;
  Hart b(0, Rv32Timing{});
  Program q;
  q << lw(10, 30, 0) << lw(11, 30, 4);
  REQUIRE(run(q, b, busy) == Stop::kExit);
  CHECK(b.stats().stall_conflict == 2 * 3);
}

TEST_CASE("rv32: floating point follows RISC-V, not the host: canonical NaN, fmin, saturating conversions, flags", "[rv32]") {
  TestEnv env;
  const uint64_t qnan_payload = 0x7ff8000000001234ull;
  env.put64(kData, qnan_payload);
  env.put64(kData + 8, bits(-0.0));
  env.put64(kData + 16, bits(1e10));
  env.put64(kData + 24, bits(1.0));
  env.put64(kData + 32, bits(0.0));
  env.put32(kData + 40, fbits(2.5f));  // a single loaded with flw: NaN-boxed
  Hart h(0, Rv32Timing{});
  Program p;
  p << fld(1, 30, 0) << fld(2, 30, 8) << fld(3, 30, 16) << fld(4, 30, 24) << fld(5, 30, 32) << flw(6, 30, 40)
    << fp_op(0x01, 2, 1, 0, 7)        // fadd.d f7 = NaN + -0  -> canonical NaN
    << fp_op(0x15, 1, 2, 0, 8)        // fmin.d f8 = min(-0, NaN) -> -0
    << fp_op(0x15, 5, 2, 0, 9)        // fmin.d f9 = min(-0, +0) -> -0
    << fp_op(0x61, 0, 3, 1, 10)       // fcvt.w.d x10 = 1e10 rtz -> INT_MAX, NV
    << fp_op(0x61, 1, 2, 1, 11)       // fcvt.wu.d x11 = -0 -> 0
    << fp_op(0x61, 0, 1, 1, 12)       // fcvt.w.d x12 = NaN -> INT_MAX
    << fp_op(0x0d, 5, 4, 7, 13)       // fdiv.d f13 = 1 / 0 -> inf, DZ
    << fp_op(0x71, 0, 13, 1, 14)      // fclass.d x14 = +inf -> bit 7
    << fp_op(0x51, 1, 1, 2, 15)       // feq.d x15 = NaN == NaN -> 0 (quiet: no NV by itself)
    << fp_op(0x21, 0, 6, 0, 16)       // fcvt.d.s f16 = 2.5
    << fp_op(0x60, 0, 6, 0, 17)       // fcvt.w.s x17 = 2.5 rne -> 2, NX
    << csrr(18, 0x001);               // fflags
  REQUIRE(run(p, h, env) == Stop::kExit);
  CHECK(h.f(7) == 0x7ff8000000000000ull);
  CHECK(h.f(8) == bits(-0.0));
  CHECK(h.f(9) == bits(-0.0));
  CHECK(h.x(10) == 0x7fffffffu);
  CHECK(h.x(11) == 0);
  CHECK(h.x(12) == 0x7fffffffu);
  CHECK(std::isinf(as_double(h.f(13))));
  CHECK(h.x(14) == (1u << 7));
  CHECK(h.x(15) == 0);
  CHECK(as_double(h.f(16)) == 2.5);
  CHECK(h.x(17) == 2);
  CHECK((h.x(18) & 0x10) != 0);  // NV from the conversions
  CHECK((h.x(18) & 0x08) != 0);  // DZ
  CHECK((h.x(18) & 0x01) != 0);  // NX
  // A single read from a register that is not NaN-boxed is the canonical NaN.
  Hart g(0, Rv32Timing{});
  Program q;
  q << fld(1, 30, 24)                       // f1 = 1.0 (a double: not a boxed single)
    << fp_op(0x00, 1, 1, 0, 2);             // fadd.s f2 = f1 + f1 -> canonical NaN (boxed)
  REQUIRE(run(q, g, env) == Stop::kExit);
  CHECK(g.f(2) == 0xffffffff7fc00000ull);
}

TEST_CASE("rv32: CSRs give the model's hart id, cycle and instret", "[rv32]") {
  TestEnv env;
  Hart h(5, Rv32Timing{});
  Program p;
  p << csrr(10, 0xf14) << addi(0, 0, 0) << csrr(11, 0xb00) << csrr(12, 0xb02) << csrr(13, 0x301) << csrr(14, 0xc00);
  REQUIRE(run(p, h, env) == Stop::kExit);
  CHECK(h.x(10) == 5);
  CHECK(h.x(11) == 5);  // issued at cycle 5 (3 set-up instructions, csrr, nop)
  CHECK(h.x(12) == 6);  // instructions retired before it
  CHECK((h.x(13) & ((1u << 3) | (1u << 5) | (1u << 8) | (1u << 12))) == ((1u << 3) | (1u << 5) | (1u << 8) | (1u << 12)));
  CHECK(h.x(14) == 8);
}

TEST_CASE("rv32: the barrier CSR stops the hart until the runner releases it", "[rv32]") {
  TestEnv env;
  Hart h(0, Rv32Timing{});
  Program p;
  p << csrr(0, 0x7c2) << addi(10, 0, 9);
  p.code.push_back(sw(10, 31, 0));
  h.set_code(kCode, p.code);
  h.reset(kCode, 0);
  REQUIRE(h.run(1000, env) == Stop::kBarrier);
  CHECK(h.cycle() == 3);
  h.leave_barrier(20);
  CHECK(h.stats().stall_barrier == 17);
  REQUIRE(h.run(1000, env) == Stop::kExit);
  CHECK(h.exit_code() == 9);
  CHECK(h.cycle() == 22);
}

TEST_CASE("rv32: illegal, unsupported and breaking instructions are faults naming the instruction", "[rv32]") {
  TestEnv env;
  SECTION("an undecodable word") {
    Hart h(0, Rv32Timing{});
    Program p;
    p << 0xffffffffu;
    REQUIRE(run(p, h, env) == Stop::kFault);
    CHECK(h.fault().kind == "illegal instruction");
    CHECK(h.fault().pc == kCode + 12);
    CHECK(h.fault().message.find("0xffffffff") != std::string::npos);
  }
  SECTION("FREP") {
    Hart h(0, Rv32Timing{});
    Program p;
    p << 0x0000008bu;
    REQUIRE(run(p, h, env) == Stop::kFault);
    CHECK(h.fault().kind == "unsupported instruction");
    CHECK(h.fault().message.find("FREP") != std::string::npos);
  }
  SECTION("SSR configuration") {
    Hart h(0, Rv32Timing{});
    Program p;
    p << i_type(0, 5, 2, 0, 0x2b);  // scfgwi
    REQUIRE(run(p, h, env) == Stop::kFault);
    CHECK(h.fault().message.find("SSR") != std::string::npos);
  }
  SECTION("a compressed instruction") {
    Hart h(0, Rv32Timing{});
    Program p;
    p << 0x00000001u;  // c.nop in the low half
    REQUIRE(run(p, h, env) == Stop::kFault);
    CHECK(h.fault().message.find("compressed") != std::string::npos);
  }
  SECTION("ebreak and ecall") {
    Hart h(0, Rv32Timing{});
    Program p;
    p << kEbreak;
    REQUIRE(run(p, h, env) == Stop::kFault);
    CHECK(h.fault().kind == "ebreak");
    Hart e(0, Rv32Timing{});
    Program q;
    q << kEcall;
    REQUIRE(run(q, e, env) == Stop::kTrap);
    CHECK(e.pc() == kCode + 12);
  }
  SECTION("a misaligned load, an unknown CSR, a jump out of the code") {
    Hart h(0, Rv32Timing{});
    Program p;
    p << lw(10, 30, 2);
    REQUIRE(run(p, h, env) == Stop::kFault);
    CHECK(h.fault().kind == "misaligned access");
    Hart c(0, Rv32Timing{});
    Program q;
    q << csrr(10, 0x7c0);
    REQUIRE(run(q, c, env) == Stop::kFault);
    CHECK(c.fault().message.find("SSR") != std::string::npos);
    Hart j(0, Rv32Timing{});
    Program r;
    r << i_type(0, 30, 0, 0, 0x67);  // jalr x0, 0(x30): into the data
    REQUIRE(run(r, j, env) == Stop::kFault);
    CHECK(j.fault().kind == "instruction fetch");
  }
}

TEST_CASE("rv32: decode and disassembly name what they see", "[rv32]") {
  CHECK(disassemble(decode(mul(10, 11, 12))) == "mul x10, x11, x12");
  CHECK(disassemble(decode(lw(10, 2, -4))) == "lw x10, -4(x2)");
  CHECK(disassemble(decode(fmadd_d(1, 2, 3, 4))) == "fmadd.d f1, f2, f3, f4");
  CHECK(decode(0x0000002bu).op == Op::kDmsrc);
  CHECK(decode(i_type((2 << 5) | 0, 10, 0, 11, 0x2b)).op == Op::kDmcpyi);
  CHECK(decode(i_type((4 << 5) | 2, 0, 0, 11, 0x2b)).op == Op::kDmstati);
  CHECK(decode(i_type((4 << 5) | 2, 0, 0, 11, 0x2b)).imm == 2);
  CHECK(decode(0x00000013u).op == Op::kAddi);
  CHECK(decode(0x0000000fu).op == Op::kFence);
}

namespace {
// A minimal valid RV32 executable: one PT_LOAD (R+X) holding `code` at vaddr.
std::vector<uint8_t> tiny_elf(uint32_t vaddr, const std::vector<uint32_t>& code) {
  std::vector<uint8_t> b(52 + 32, 0);
  const uint8_t ident[] = {0x7f, 'E', 'L', 'F', 1, 1, 1};
  std::memcpy(b.data(), ident, sizeof ident);
  auto w16 = [&](size_t o, uint16_t v) { std::memcpy(&b[o], &v, 2); };
  auto w32 = [&](size_t o, uint32_t v) { std::memcpy(&b[o], &v, 4); };
  w16(16, 2);    // ET_EXEC
  w16(18, 243);  // RISC-V
  w32(20, 1);
  w32(24, vaddr);  // entry
  w32(28, 52);     // phoff
  w32(36, 0x4);    // double-float ABI
  w16(40, 52);
  w16(42, 32);
  w16(44, 1);
  w32(52 + 0, 1);                                          // PT_LOAD
  w32(52 + 4, 84);                                         // offset
  w32(52 + 8, vaddr);                                      // vaddr
  w32(52 + 12, vaddr);                                     // paddr
  w32(52 + 16, static_cast<uint32_t>(code.size() * 4));  // filesz
  w32(52 + 20, static_cast<uint32_t>(code.size() * 4));  // memsz
  w32(52 + 24, 5);                                         // R+X
  for (uint32_t c : code) {
    const size_t o = b.size();
    b.resize(o + 4);
    std::memcpy(&b[o], &c, 4);
  }
  return b;
}
}  // namespace

TEST_CASE("rv32: the ELF reader takes an RV32 executable and refuses foreign or broken files by name", "[rv32]") {
  const auto good = tiny_elf(0x80000000u, {addi(10, 0, 1), kEbreak});
  const ElfImage img = parse_elf("p.elf", good);
  CHECK(img.entry == 0x80000000u);
  REQUIRE(img.code() != nullptr);
  CHECK(img.code()->data.size() == 8);
  auto refused = [](std::vector<uint8_t> b, const std::string& what) {
    try {
      parse_elf("p.elf", b);
    } catch (const ElfError& e) {
      const std::string m = e.what();
      CHECK(m.rfind("p.elf: ", 0) == 0);
      CHECK(m.find(what) != std::string::npos);
      return true;
    }
    return false;
  };
  CHECK(refused({'h', 'e', 'l', 'l', 'o'}, "not an ELF file"));
  auto b64 = good;
  b64[4] = 2;
  CHECK(refused(b64, "64-bit"));
  auto x86 = good;
  x86[18] = 62;
  x86[19] = 0;
  CHECK(refused(x86, "x86-64"));
  auto rvc = good;
  rvc[36] |= 1;
  CHECK(refused(rvc, "compressed"));
  auto noentry = good;
  std::memset(&noentry[24], 0, 4);
  CHECK(refused(noentry, "entry point"));
  auto cut = good;
  cut.resize(70);
  CHECK(refused(cut, "past the end"));
  auto rel = good;
  rel[16] = 1;
  CHECK(refused(rel, "relocatable"));
  CHECK_THROWS_AS(load_elf("/nonexistent/p.elf"), ElfError);
}

}  // namespace rv32_tests
