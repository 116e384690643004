// The interpreter. Floating point runs on the host's IEEE-754 unit: rounding modes through
// <cfenv> (this file is compiled with -frounding-math and -ffp-contract=off), the exception
// flags read back after each operation, and the RISC-V rules applied by hand where they
// differ from the host's: NaN results are the canonical NaN, single values are NaN-boxed in
// the 64-bit registers, fmin/fmax/compares/conversions follow the ISA manual's tables.
#include "models/rv32/hart.h"

#include <cfenv>
#include <cmath>
#include <cstring>
#include <limits>
#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

#include <fmt/format.h>

namespace npusim::models::rv32 {

namespace {

constexpr uint32_t kNaN32 = 0x7fc00000u;
constexpr uint64_t kNaN64 = 0x7ff8000000000000ull;
constexpr uint64_t kBox = 0xffffffff00000000ull;
constexpr uint32_t kBarrierCsr = 0x7c2;
// misa: MXL=1 (32 bits), extensions A, D, F, I, M.
constexpr uint32_t kMisa = (1u << 30) | (1u << 0) | (1u << 3) | (1u << 5) | (1u << 8) | (1u << 12);

enum Flag : uint32_t { kNX = 1, kUF = 2, kOF = 4, kDZ = 8, kNV = 16 };

inline uint32_t bits32(float v) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  return b;
}
inline uint64_t bits64(double v) {
  uint64_t b;
  std::memcpy(&b, &v, 8);
  return b;
}
inline float as_f32(uint32_t b) {
  float v;
  std::memcpy(&v, &b, 4);
  return v;
}
inline double as_f64(uint64_t b) {
  double v;
  std::memcpy(&v, &b, 8);
  return v;
}
// A single in a 64-bit register: valid only NaN-boxed, else the canonical NaN.
inline uint32_t unbox(uint64_t r) { return (r >> 32) == 0xffffffffu ? static_cast<uint32_t>(r) : kNaN32; }
inline float s_of(uint64_t r) { return as_f32(unbox(r)); }
inline uint64_t box_bits(uint32_t b) { return kBox | b; }
inline uint64_t box(float v) { return box_bits(std::isnan(v) ? kNaN32 : bits32(v)); }
inline uint64_t dbox(double v) { return std::isnan(v) ? kNaN64 : bits64(v); }

inline bool snan32(uint32_t b) { return (b & 0x7f800000u) == 0x7f800000u && (b & 0x7fffffu) && !(b & 0x400000u); }
inline bool snan64(uint64_t b) {
  return (b & 0x7ff0000000000000ull) == 0x7ff0000000000000ull && (b & 0xfffffffffffffull) &&
         !(b & 0x8000000000000ull);
}

#if defined(__SSE2__)
// The host's SSE unit: flags and rounding straight from MXCSR (glibc's feclearexcept also
// resets the x87 unit and costs several times the operation).
inline uint32_t rv_flags(uint32_t m) {
  uint32_t f = 0;
  if (m & 0x01) f |= kNV;  // IE
  if (m & 0x04) f |= kDZ;  // ZE
  if (m & 0x08) f |= kOF;  // OE
  if (m & 0x10) f |= kUF;  // UE
  if (m & 0x20) f |= kNX;  // PE
  return f;
}

// Runs `fn` under RISC-V rounding mode `rm` (0 RNE, 1 RTZ, 2 RDN, 3 RUP, 4 RMM: the host has
// no round-to-nearest-max-magnitude, so RMM rounds to nearest-even; docs/snitch-programs.md) and
// returns the IEEE flags it raised.
template <class Fn>
uint32_t with_rm(uint32_t rm, Fn&& fn) {
  const uint32_t saved = _mm_getcsr();
  static constexpr uint32_t kRc[] = {0u << 13, 3u << 13, 1u << 13, 2u << 13, 0u << 13};
  _mm_setcsr((saved & ~0x603fu) | kRc[rm]);
  fn();
  const uint32_t after = _mm_getcsr();
  _mm_setcsr(saved);
  return rv_flags(after);
}
#else
uint32_t host_flags() {
  const int e = std::fetestexcept(FE_ALL_EXCEPT);
  uint32_t f = 0;
  if (e & FE_INEXACT) f |= kNX;
  if (e & FE_UNDERFLOW) f |= kUF;
  if (e & FE_OVERFLOW) f |= kOF;
  if (e & FE_DIVBYZERO) f |= kDZ;
  if (e & FE_INVALID) f |= kNV;
  return f;
}

template <class Fn>
uint32_t with_rm(uint32_t rm, Fn&& fn) {
  std::feclearexcept(FE_ALL_EXCEPT);
  if (rm == 0 || rm == 4) {
    fn();
  } else {
    const int old = std::fegetround();
    std::fesetround(rm == 1 ? FE_TOWARDZERO : rm == 2 ? FE_DOWNWARD : FE_UPWARD);
    fn();
    std::fesetround(old);
  }
  const uint32_t f = host_flags();
  std::feclearexcept(FE_ALL_EXCEPT);
  return f;
}
#endif

double round_rm(double v, uint32_t rm) {
  switch (rm) {
    case 1: return std::trunc(v);
    case 2: return std::floor(v);
    case 3: return std::ceil(v);
    case 4: return std::round(v);
    default: return std::nearbyint(v);
  }
}

// fcvt.w[u].{s,d}: out of range and NaN saturate with NV (ISA manual table 11.4).
uint32_t to_int(double v, uint32_t rm, bool is_unsigned, uint32_t& flags) {
  if (std::isnan(v)) {
    flags |= kNV;
    return is_unsigned ? 0xffffffffu : 0x7fffffffu;
  }
  const double r = round_rm(v, rm);
  if (is_unsigned) {
    if (r < 0) {
      flags |= kNV;
      return 0;
    }
    if (r > 4294967295.0) {
      flags |= kNV;
      return 0xffffffffu;
    }
    if (r != v) flags |= kNX;
    return static_cast<uint32_t>(r);
  }
  if (r < -2147483648.0) {
    flags |= kNV;
    return 0x80000000u;
  }
  if (r > 2147483647.0) {
    flags |= kNV;
    return 0x7fffffffu;
  }
  if (r != v) flags |= kNX;
  return static_cast<uint32_t>(static_cast<int32_t>(r));
}

template <class T>
uint32_t fclass(T v, bool snan) {
  const bool neg = std::signbit(v);
  if (std::isnan(v)) return snan ? 1u << 8 : 1u << 9;
  if (std::isinf(v)) return neg ? 1u << 0 : 1u << 7;
  if (v == 0) return neg ? 1u << 3 : 1u << 4;
  if (std::fpclassify(v) == FP_SUBNORMAL) return neg ? 1u << 2 : 1u << 5;
  return neg ? 1u << 1 : 1u << 6;
}

// fmin/fmax (ISA 2.2 semantics): a NaN operand yields the other, two NaNs the canonical NaN,
// -0 is below +0, a signaling NaN raises NV.
template <class T>
T fminmax(T a, T b, bool is_max, bool sa, bool sb, uint32_t& flags, bool& canon) {
  if (sa || sb) flags |= kNV;
  canon = false;
  if (std::isnan(a) && std::isnan(b)) {
    canon = true;
    return a;
  }
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  if (a == b && a == 0) return (std::signbit(a) != is_max) ? a : b;
  return is_max ? (a > b ? a : b) : (a < b ? a : b);
}

}  // namespace

Hart::Hart(uint32_t hartid, const Rv32Timing& timing) : hartid_(hartid), timing_(timing) {}

Hart::Slot Hart::make_slot(const Insn& in) const {
  Slot s;
  s.insn = in;
  auto xi = [](unsigned r) { return static_cast<uint8_t>(r); };  // x0 is index 0: always ready
  auto fi = [](unsigned r) { return static_cast<uint8_t>(32 + r); };
  const uint32_t opc = in.raw & 0x7f;
  switch (in.unit) {
    case Unit::kMul: s.latency = static_cast<uint8_t>(std::min<uint32_t>(timing_.mul, 255)); break;
    case Unit::kDiv: s.latency = static_cast<uint8_t>(std::min<uint32_t>(timing_.div, 255)); break;
    case Unit::kFp32: s.latency = static_cast<uint8_t>(std::min<uint32_t>(timing_.fp32, 255)); break;
    case Unit::kFp64: s.latency = static_cast<uint8_t>(std::min<uint32_t>(timing_.fp64, 255)); break;
    case Unit::kFdiv32: s.latency = static_cast<uint8_t>(std::min<uint32_t>(timing_.fdiv32, 255)); break;
    case Unit::kFdiv64: s.latency = static_cast<uint8_t>(std::min<uint32_t>(timing_.fdiv64, 255)); break;
    case Unit::kFconv: s.latency = static_cast<uint8_t>(std::min<uint32_t>(timing_.fconv, 255)); break;
    case Unit::kFnoncomp: s.latency = static_cast<uint8_t>(std::min<uint32_t>(timing_.fnoncomp, 255)); break;
    default: s.latency = 1;
  }
  if (s.latency == 0) s.latency = 1;
  switch (opc) {
    case 0x37: case 0x17: case 0x6f: break;
    case 0x67: case 0x03: case 0x13: case 0x07: s.s1 = xi(in.rs1); break;
    case 0x73:
      if (in.op == Op::kCsrrw || in.op == Op::kCsrrs || in.op == Op::kCsrrc) s.s1 = xi(in.rs1);
      break;
    case 0x63: case 0x23: case 0x33: case 0x2f: s.s1 = xi(in.rs1); s.s2 = xi(in.rs2); break;
    case 0x27: s.s1 = xi(in.rs1); s.s2 = fi(in.rs2); break;
    case 0x43: case 0x47: case 0x4b: case 0x4f: s.s1 = fi(in.rs1); s.s2 = fi(in.rs2); s.s3 = fi(in.rs3); break;
    case 0x53:
      s.s1 = (in.fp_src & 1) ? fi(in.rs1) : xi(in.rs1);
      if (in.fp_src & 2) s.s2 = fi(in.rs2);
      break;
    case 0x2b:
      switch (in.op) {
        case Op::kDmsrc: case Op::kDmdst: case Op::kDmstr: case Op::kDmcpy: s.s1 = xi(in.rs1); s.s2 = xi(in.rs2); break;
        case Op::kDmcpyi: case Op::kDmrep: s.s1 = xi(in.rs1); break;
        case Op::kDmstat: s.s2 = xi(in.rs2); break;
        default: break;
      }
      break;
    default: break;
  }
  // Destination.
  const bool writes_x = !(opc == 0x63 || opc == 0x23 || opc == 0x27 || opc == 0x0f || in.fp_dst ||
                          in.op == Op::kEcall || in.op == Op::kEbreak || in.op == Op::kWfi || in.op == Op::kMret ||
                          in.op == Op::kDmsrc || in.op == Op::kDmdst || in.op == Op::kDmstr || in.op == Op::kDmrep);
  if (in.fp_dst) s.d = fi(in.rd);
  else if (writes_x) s.d = xi(in.rd);
  return s;
}

void Hart::set_code(uint32_t base, const std::vector<uint32_t>& words) {
  code_base_ = base;
  slots_.clear();
  slots_.reserve(words.size());
  for (uint32_t w : words) slots_.push_back(make_slot(decode(w)));
}

void Hart::reset(uint32_t pc, uint64_t cycle) {
  std::memset(x_, 0, sizeof x_);
  std::memset(f_, 0, sizeof f_);
  std::memset(ready_, 0, sizeof ready_);
  std::memset(cause_, 0, sizeof cause_);
  pc_ = pc;
  cycle_ = cycle;
  fcsr_ = 0;
  stop_ = Stop::kBudget;
  reservation_valid_ = false;
}

uint32_t Hart::word_at(uint32_t pc) const {
  const Slot* s = slot(pc);
  return s ? s->insn.raw : 0;
}

std::string Hart::text_at(uint32_t pc) const {
  const Slot* s = slot(pc);
  if (!s) return "(no code at this address)";
  if (s->insn.op == Op::kIllegal) {
    if (const char* ext = unsupported_extension(s->insn.raw))
      return fmt::format("0x{:08x}: {}", s->insn.raw, ext);
    return fmt::format("0x{:08x}: not an RV32IMAFD instruction", s->insn.raw);
  }
  return disassemble(s->insn);
}

void Hart::set_fault(std::string kind, std::string message) {
  fault_.kind = std::move(kind);
  fault_.message = std::move(message);
  fault_.pc = pc_;
  fault_.word = word_at(pc_);
  stop_ = Stop::kFault;
}

void Hart::leave_barrier(uint64_t cycle) {
  if (cycle > barrier_arrival_) stats_.stall_barrier += cycle - barrier_arrival_;
  cycle_ = std::max(cycle, barrier_arrival_);
  pc_ += 4;
  ++stats_.instret;
}

bool Hart::csr(const Insn& in, uint32_t src, uint32_t& old) {
  const uint32_t num = static_cast<uint32_t>(in.imm) & 0xfff;
  const bool write = in.op == Op::kCsrrw || in.op == Op::kCsrrwi || in.rs1 != 0;
  auto set = [&](uint32_t cur) -> uint32_t {
    switch (in.op) {
      case Op::kCsrrw: case Op::kCsrrwi: return src;
      case Op::kCsrrs: case Op::kCsrrsi: return cur | src;
      default: return cur & ~src;
    }
  };
  const uint64_t now = cycle_;
  switch (num) {
    case 0x001: old = fcsr_ & 0x1f; if (write) fcsr_ = (fcsr_ & ~0x1fu) | (set(old) & 0x1f); return true;
    case 0x002: old = (fcsr_ >> 5) & 7; if (write) fcsr_ = (fcsr_ & 0x1f) | ((set(old) & 7) << 5); return true;
    case 0x003: old = fcsr_ & 0xff; if (write) fcsr_ = set(old) & 0xff; return true;
    case 0xc00: case 0xc01: case 0xb00: old = static_cast<uint32_t>(now); break;
    case 0xc80: case 0xc81: case 0xb80: old = static_cast<uint32_t>(now >> 32); break;
    case 0xc02: case 0xb02: old = static_cast<uint32_t>(stats_.instret); break;
    case 0xc82: case 0xb82: old = static_cast<uint32_t>(stats_.instret >> 32); break;
    case 0xf14: old = hartid_; break;
    case 0xf11: case 0xf12: case 0xf13: old = 0; break;
    case 0x301: old = kMisa; break;
    case 0x300: old = 0x6000u | (0x3u << 11); break;  // FS dirty (hard-wired on Snitch), MPP=M
    default:
      return false;
  }
  // Counters, ids, misa and mstatus: writes are ignored (documented).
  return true;
}

Stop Hart::run(uint64_t until, Env& env) {
  stop_ = Stop::kBudget;
  while (cycle_ <= until) {
    const Slot* sl = slot(pc_);
    if (__builtin_expect(sl == nullptr, 0)) {
      set_fault("instruction fetch", fmt::format("pc 0x{:08x} is outside the program's code{}", pc_,
                                                 (pc_ & 3) ? " (misaligned)" : ""));
      return Stop::kFault;
    }
    const Insn& in = sl->insn;
    // Scoreboard: issue when the sources are ready.
    uint64_t t = cycle_;
    uint8_t last = 0;
    if (ready_[sl->s1] > t) { t = ready_[sl->s1]; last = sl->s1; }
    if (ready_[sl->s2] > t) { t = ready_[sl->s2]; last = sl->s2; }
    if (ready_[sl->s3] > t) { t = ready_[sl->s3]; last = sl->s3; }
    if (sl->d && ready_[sl->d] > t) { t = ready_[sl->d]; last = sl->d; }  // WAW on a pending result
    if (t != cycle_) {
      const uint64_t wait = t - cycle_;
      if (cause_[last]) stats_.stall_memory[cause_[last] - 1] += wait;
      else stats_.stall_dependency += wait;
      cycle_ = t;
      if (t > until) return Stop::kBudget;  // issue falls past the budget: resume there
    }
    const uint32_t a = x_[in.rs1], b = x_[in.rs2];
    uint32_t next_pc = pc_ + 4;
    uint64_t ready = t + sl->latency;
    uint8_t cause = 0;
    uint64_t issue_stall = 0;
    uint32_t r = 0;
    bool wr = true;  // writes x[rd] with r (ignored unless d is an x register)
    switch (in.op) {
      case Op::kLui: r = static_cast<uint32_t>(in.imm); break;
      case Op::kAuipc: r = pc_ + static_cast<uint32_t>(in.imm); break;
      case Op::kJal:
        r = pc_ + 4;
        next_pc = pc_ + static_cast<uint32_t>(in.imm);
        issue_stall = timing_.taken_branch_extra;
        if (__builtin_expect(calls_ != nullptr, 0) && in.rd == 1) calls_->call(next_pc, t);
        break;
      case Op::kJalr:
        r = pc_ + 4;
        next_pc = (a + static_cast<uint32_t>(in.imm)) & ~1u;
        issue_stall = timing_.taken_branch_extra;
        if (__builtin_expect(calls_ != nullptr, 0)) {
          if (in.rd == 1) calls_->call(next_pc, t);
          else if (in.rd == 0 && in.rs1 == 1) calls_->ret(t + 1);
        }
        break;
      case Op::kBeq: case Op::kBne: case Op::kBlt: case Op::kBge: case Op::kBltu: case Op::kBgeu: {
        bool take;
        switch (in.op) {
          case Op::kBeq: take = a == b; break;
          case Op::kBne: take = a != b; break;
          case Op::kBlt: take = static_cast<int32_t>(a) < static_cast<int32_t>(b); break;
          case Op::kBge: take = static_cast<int32_t>(a) >= static_cast<int32_t>(b); break;
          case Op::kBltu: take = a < b; break;
          default: take = a >= b; break;
        }
        if (take) {
          next_pc = pc_ + static_cast<uint32_t>(in.imm);
          issue_stall = timing_.taken_branch_extra;
        }
        wr = false;
        break;
      }
      case Op::kLb: case Op::kLh: case Op::kLw: case Op::kLbu: case Op::kLhu:
      case Op::kFlw: case Op::kFld: {
        const uint32_t addr = a + static_cast<uint32_t>(in.imm);
        const uint32_t size = (in.op == Op::kLb || in.op == Op::kLbu) ? 1
                              : (in.op == Op::kLh || in.op == Op::kLhu) ? 2
                              : in.op == Op::kFld ? 8 : 4;
        if (addr & (size - 1)) {
          set_fault("misaligned access", fmt::format("{} of {} bytes at 0x{:08x}", in.op == Op::kFld || in.op == Op::kFlw ? "FP load" : "load", size, addr));
          return Stop::kFault;
        }
        uint64_t v = 0;
        Env::Answer ans;
        const uint64_t saved = cycle_;
        cycle_ = t;
        const Env::Result res = env.load(*this, addr, size, &v, ans);
        cycle_ = saved;
        if (res != Env::Result::kOk) {
          if (res == Env::Result::kRetry) { cycle_ = t; return Stop::kSync; }
          return stop_ == Stop::kBudget ? Stop::kFault : stop_;
        }
        ++stats_.loads;
        ready = std::max(ans.ready, t + 1);
        issue_stall = ans.stall;
        cause = static_cast<uint8_t>(1 + static_cast<int>(ans.target));
        switch (in.op) {
          case Op::kLb: r = static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(v))); break;
          case Op::kLh: r = static_cast<uint32_t>(static_cast<int32_t>(static_cast<int16_t>(v))); break;
          case Op::kLbu: r = static_cast<uint8_t>(v); break;
          case Op::kLhu: r = static_cast<uint16_t>(v); break;
          case Op::kLw: r = static_cast<uint32_t>(v); break;
          case Op::kFlw: f_[in.rd] = box_bits(static_cast<uint32_t>(v)); break;
          default: f_[in.rd] = v; break;
        }
        break;
      }
      case Op::kSb: case Op::kSh: case Op::kSw: case Op::kFsw: case Op::kFsd: {
        const uint32_t addr = a + static_cast<uint32_t>(in.imm);
        const uint32_t size = in.op == Op::kSb ? 1 : in.op == Op::kSh ? 2 : in.op == Op::kFsd ? 8 : 4;
        if (addr & (size - 1)) {
          set_fault("misaligned access", fmt::format("store of {} bytes at 0x{:08x}", size, addr));
          return Stop::kFault;
        }
        uint64_t v = in.op == Op::kFsd ? f_[in.rs2] : in.op == Op::kFsw ? static_cast<uint32_t>(f_[in.rs2]) : b;
        Env::Answer ans;
        const uint64_t saved = cycle_;
        cycle_ = t;
        const Env::Result res = env.store(*this, addr, size, &v, ans);
        cycle_ = saved;
        if (res != Env::Result::kOk) {
          if (res == Env::Result::kRetry) { cycle_ = t; return Stop::kSync; }
          if (res == Env::Result::kStop) { ++stats_.instret; cycle_ = t + 1; pc_ = next_pc; return stop_; }
          return stop_ == Stop::kBudget ? Stop::kFault : stop_;
        }
        ++stats_.stores;
        issue_stall = ans.stall;
        wr = false;
        break;
      }
      case Op::kAddi: r = a + static_cast<uint32_t>(in.imm); break;
      case Op::kSlti: r = static_cast<int32_t>(a) < in.imm; break;
      case Op::kSltiu: r = a < static_cast<uint32_t>(in.imm); break;
      case Op::kXori: r = a ^ static_cast<uint32_t>(in.imm); break;
      case Op::kOri: r = a | static_cast<uint32_t>(in.imm); break;
      case Op::kAndi: r = a & static_cast<uint32_t>(in.imm); break;
      case Op::kSlli: r = a << in.imm; break;
      case Op::kSrli: r = a >> in.imm; break;
      case Op::kSrai: r = static_cast<uint32_t>(static_cast<int32_t>(a) >> in.imm); break;
      case Op::kAdd: r = a + b; break;
      case Op::kSub: r = a - b; break;
      case Op::kSll: r = a << (b & 31); break;
      case Op::kSlt: r = static_cast<int32_t>(a) < static_cast<int32_t>(b); break;
      case Op::kSltu: r = a < b; break;
      case Op::kXor: r = a ^ b; break;
      case Op::kSrl: r = a >> (b & 31); break;
      case Op::kSra: r = static_cast<uint32_t>(static_cast<int32_t>(a) >> (b & 31)); break;
      case Op::kOr: r = a | b; break;
      case Op::kAnd: r = a & b; break;
      case Op::kMul: r = a * b; break;
      case Op::kMulh:
        r = static_cast<uint32_t>((static_cast<int64_t>(static_cast<int32_t>(a)) * static_cast<int32_t>(b)) >> 32);
        break;
      case Op::kMulhsu:
        r = static_cast<uint32_t>((static_cast<int64_t>(static_cast<int32_t>(a)) * static_cast<int64_t>(b)) >> 32);
        break;
      case Op::kMulhu: r = static_cast<uint32_t>((static_cast<uint64_t>(a) * b) >> 32); break;
      case Op::kDiv:
        r = b == 0 ? 0xffffffffu
            : (a == 0x80000000u && b == 0xffffffffu) ? a
            : static_cast<uint32_t>(static_cast<int32_t>(a) / static_cast<int32_t>(b));
        break;
      case Op::kDivu: r = b == 0 ? 0xffffffffu : a / b; break;
      case Op::kRem:
        r = b == 0 ? a
            : (a == 0x80000000u && b == 0xffffffffu) ? 0
            : static_cast<uint32_t>(static_cast<int32_t>(a) % static_cast<int32_t>(b));
        break;
      case Op::kRemu: r = b == 0 ? a : a % b; break;
      case Op::kFence: case Op::kFenceI: wr = false; break;
      case Op::kWfi:
        ++stats_.instret;
        cycle_ = t + 1;
        pc_ = next_pc;
        return Stop::kWfi;
      case Op::kMret:
        set_fault("unsupported instruction", "mret: this core models no traps or interrupts");
        return Stop::kFault;
      case Op::kEcall:
        set_fault("trap", "ecall");
        fault_.kind = "ecall";
        stop_ = Stop::kTrap;
        cycle_ = t;
        return Stop::kTrap;
      case Op::kEbreak:
        cycle_ = t;
        set_fault("ebreak", "ebreak (breakpoint)");
        return Stop::kFault;
      case Op::kCsrrw: case Op::kCsrrs: case Op::kCsrrc: case Op::kCsrrwi: case Op::kCsrrsi: case Op::kCsrrci: {
        const uint32_t num = static_cast<uint32_t>(in.imm) & 0xfff;
        if (num == kBarrierCsr) {
          barrier_arrival_ = t;
          cycle_ = t;
          return Stop::kBarrier;  // leave_barrier() retires it
        }
        const uint32_t src = (in.op >= Op::kCsrrwi) ? in.rs1 : a;
        cycle_ = t;
        if (!csr(in, src, r)) {
          const char* ext = unsupported_extension(in.raw);
          set_fault(ext ? "unsupported instruction" : "illegal instruction",
                    ext ? fmt::format("{}: {}", disassemble(in), ext)
                        : fmt::format("{}: CSR 0x{:03x} is not implemented", disassemble(in), num));
          return Stop::kFault;
        }
        break;
      }
      case Op::kLrW: case Op::kScW: case Op::kAmoswapW: case Op::kAmoaddW: case Op::kAmoxorW: case Op::kAmoandW:
      case Op::kAmoorW: case Op::kAmominW: case Op::kAmomaxW: case Op::kAmominuW: case Op::kAmomaxuW: {
        const uint32_t addr = a;
        if (addr & 3) {
          set_fault("misaligned access", fmt::format("{} at 0x{:08x}", mnemonic(in.op), addr));
          return Stop::kFault;
        }
        Env::Answer ans;
        const uint64_t saved = cycle_;
        cycle_ = t;
        if (in.op == Op::kScW) {
          if (reserved(addr)) {
            const Env::Result res = env.store(*this, addr, 4, &b, ans);
            cycle_ = saved;
            if (res != Env::Result::kOk) return stop_ == Stop::kBudget ? Stop::kFault : stop_;
            ++stats_.stores;
            r = 0;
          } else {
            cycle_ = saved;
            r = 1;
          }
          reservation_valid_ = false;
          break;
        }
        uint32_t old = 0;
        Env::Result res = env.load(*this, addr, 4, &old, ans);
        if (res != Env::Result::kOk) {
          cycle_ = saved;
          return stop_ == Stop::kBudget ? Stop::kFault : stop_;
        }
        ++stats_.loads;
        ready = std::max(ans.ready, t + 1);
        issue_stall = ans.stall;
        cause = static_cast<uint8_t>(1 + static_cast<int>(ans.target));
        r = old;
        if (in.op == Op::kLrW) {
          reservation_ = addr;
          reservation_valid_ = true;
          cycle_ = saved;
          break;
        }
        uint32_t nv;
        switch (in.op) {
          case Op::kAmoswapW: nv = b; break;
          case Op::kAmoaddW: nv = old + b; break;
          case Op::kAmoxorW: nv = old ^ b; break;
          case Op::kAmoandW: nv = old & b; break;
          case Op::kAmoorW: nv = old | b; break;
          case Op::kAmominW: nv = static_cast<int32_t>(old) < static_cast<int32_t>(b) ? old : b; break;
          case Op::kAmomaxW: nv = static_cast<int32_t>(old) > static_cast<int32_t>(b) ? old : b; break;
          case Op::kAmominuW: nv = old < b ? old : b; break;
          default: nv = old > b ? old : b; break;
        }
        Env::Answer sa;
        res = env.store(*this, addr, 4, &nv, sa);
        cycle_ = saved;
        if (res != Env::Result::kOk) return stop_ == Stop::kBudget ? Stop::kFault : stop_;
        ++stats_.stores;
        ready = std::max(ready, sa.ready);
        break;
      }
      case Op::kDmsrc: case Op::kDmdst: case Op::kDmcpyi: case Op::kDmcpy: case Op::kDmstati: case Op::kDmstat:
      case Op::kDmstr: case Op::kDmrep: {
        const uint32_t arg2 = (in.op == Op::kDmcpyi || in.op == Op::kDmstati) ? static_cast<uint32_t>(in.imm) : b;
        const uint64_t saved = cycle_;
        cycle_ = t;
        const Env::Result res = env.dma(*this, in.op, a, arg2, &r);
        if (res == Env::Result::kRetry) return Stop::kSync;
        cycle_ = saved;
        if (res != Env::Result::kOk) return stop_ == Stop::kBudget ? Stop::kFault : stop_;
        if (in.op == Op::kDmstati || in.op == Op::kDmstat) {
          // Cycles between a poll that found the engine busy and the next poll are DMA wait.
          if (dma_busy_polled_) stats_.stall_dma += t - dma_poll_cycle_;
          const uint32_t which = arg2 & 3;
          dma_busy_polled_ = (which == 2 && r != 0) || (which == 3 && r != 0);
          dma_poll_cycle_ = t;
        }
        break;
      }
      default:
        if (in.op == Op::kIllegal) {
          const char* ext = unsupported_extension(in.raw);
          set_fault(ext ? "unsupported instruction" : "illegal instruction",
                    ext ? fmt::format("0x{:08x}: {} (not modelled)", in.raw, ext)
                        : fmt::format("0x{:08x} is not an RV32IMAFD instruction", in.raw));
          return Stop::kFault;
        }
        if (!fp(in)) return Stop::kFault;
        wr = false;  // fp() wrote its result
        break;
    }
    if (wr && sl->d && sl->d < 32) {
      x_[in.rd] = r;
      if (__builtin_expect(in.rd == 2, 0)) {
        if (r < guard_lo_ && guard_lo_ - r <= kGuardReach) {
          set_fault("stack overflow", fmt::format("sp 0x{:08x} is {} bytes below the stack's end 0x{:08x}", r,
                                                  guard_lo_ - r, guard_lo_));
          return Stop::kFault;
        }
        if (r < sp_low_) sp_low_ = r;
      }
    }
    x_[0] = 0;
    if (sl->d) {
      ready_[sl->d] = ready;
      cause_[sl->d] = cause;
    }
    ready_[0] = 0;
    if (issue_stall) {
      if (in.unit == Unit::kLoad || in.unit == Unit::kStore) stats_.stall_conflict += issue_stall;
    }
    ++stats_.instret;
    pc_ = next_pc;
    cycle_ = t + 1 + issue_stall;
    if (__builtin_expect(stop_ != Stop::kBudget, 0)) return stop_;
  }
  return Stop::kBudget;
}

// The F and D instructions other than loads and stores. Writes f[rd] or x[rd].
bool Hart::fp(const Insn& in) {
  const uint32_t rm = frm(in);
  const bool needs_rm = in.unit == Unit::kFp32 || in.unit == Unit::kFp64 || in.unit == Unit::kFdiv32 ||
                        in.unit == Unit::kFdiv64 || in.unit == Unit::kFconv;
  if (needs_rm && rm > 4) {
    set_fault("illegal instruction", fmt::format("{}: rounding mode {} (frm) is reserved", disassemble(in), rm));
    return false;
  }
  uint32_t flags = 0;
  const uint64_t ra = f_[in.rs1], rb = f_[in.rs2], rc = f_[in.rs3];
  const float sa = s_of(ra), sb = s_of(rb), sc = s_of(rc);
  const double da = as_f64(ra), db = as_f64(rb), dc = as_f64(rc);
  uint32_t xr = 0;
  switch (in.op) {
    case Op::kFaddS: { float v = 0; flags = with_rm(rm, [&] { v = sa + sb; }); f_[in.rd] = box(v); break; }
    case Op::kFsubS: { float v = 0; flags = with_rm(rm, [&] { v = sa - sb; }); f_[in.rd] = box(v); break; }
    case Op::kFmulS: { float v = 0; flags = with_rm(rm, [&] { v = sa * sb; }); f_[in.rd] = box(v); break; }
    case Op::kFdivS: { float v = 0; flags = with_rm(rm, [&] { v = sa / sb; }); f_[in.rd] = box(v); break; }
    case Op::kFsqrtS: { float v = 0; flags = with_rm(rm, [&] { v = std::sqrt(sa); }); f_[in.rd] = box(v); break; }
    case Op::kFmaddS: { float v = 0; flags = with_rm(rm, [&] { v = std::fmaf(sa, sb, sc); }); f_[in.rd] = box(v); break; }
    case Op::kFmsubS: { float v = 0; flags = with_rm(rm, [&] { v = std::fmaf(sa, sb, -sc); }); f_[in.rd] = box(v); break; }
    case Op::kFnmsubS: { float v = 0; flags = with_rm(rm, [&] { v = std::fmaf(-sa, sb, sc); }); f_[in.rd] = box(v); break; }
    case Op::kFnmaddS: { float v = 0; flags = with_rm(rm, [&] { v = std::fmaf(-sa, sb, -sc); }); f_[in.rd] = box(v); break; }
    case Op::kFaddD: { double v = 0; flags = with_rm(rm, [&] { v = da + db; }); f_[in.rd] = dbox(v); break; }
    case Op::kFsubD: { double v = 0; flags = with_rm(rm, [&] { v = da - db; }); f_[in.rd] = dbox(v); break; }
    case Op::kFmulD: { double v = 0; flags = with_rm(rm, [&] { v = da * db; }); f_[in.rd] = dbox(v); break; }
    case Op::kFdivD: { double v = 0; flags = with_rm(rm, [&] { v = da / db; }); f_[in.rd] = dbox(v); break; }
    case Op::kFsqrtD: { double v = 0; flags = with_rm(rm, [&] { v = std::sqrt(da); }); f_[in.rd] = dbox(v); break; }
    case Op::kFmaddD: { double v = 0; flags = with_rm(rm, [&] { v = std::fma(da, db, dc); }); f_[in.rd] = dbox(v); break; }
    case Op::kFmsubD: { double v = 0; flags = with_rm(rm, [&] { v = std::fma(da, db, -dc); }); f_[in.rd] = dbox(v); break; }
    case Op::kFnmsubD: { double v = 0; flags = with_rm(rm, [&] { v = std::fma(-da, db, dc); }); f_[in.rd] = dbox(v); break; }
    case Op::kFnmaddD: { double v = 0; flags = with_rm(rm, [&] { v = std::fma(-da, db, -dc); }); f_[in.rd] = dbox(v); break; }
    case Op::kFsgnjS: case Op::kFsgnjnS: case Op::kFsgnjxS: {
      const uint32_t x = unbox(ra), y = unbox(rb);
      const uint32_t sign = in.op == Op::kFsgnjS ? (y & 0x80000000u)
                            : in.op == Op::kFsgnjnS ? (~y & 0x80000000u)
                                                    : ((x ^ y) & 0x80000000u);
      f_[in.rd] = box_bits((x & 0x7fffffffu) | sign);
      break;
    }
    case Op::kFsgnjD: case Op::kFsgnjnD: case Op::kFsgnjxD: {
      constexpr uint64_t s = 0x8000000000000000ull;
      const uint64_t sign = in.op == Op::kFsgnjD ? (rb & s) : in.op == Op::kFsgnjnD ? (~rb & s) : ((ra ^ rb) & s);
      f_[in.rd] = (ra & ~s) | sign;
      break;
    }
    case Op::kFminS: case Op::kFmaxS: {
      bool canon;
      const float v = fminmax(sa, sb, in.op == Op::kFmaxS, snan32(unbox(ra)), snan32(unbox(rb)), flags, canon);
      f_[in.rd] = canon ? box_bits(kNaN32) : box_bits(bits32(v));
      break;
    }
    case Op::kFminD: case Op::kFmaxD: {
      bool canon;
      const double v = fminmax(da, db, in.op == Op::kFmaxD, snan64(ra), snan64(rb), flags, canon);
      f_[in.rd] = canon ? kNaN64 : bits64(v);
      break;
    }
    case Op::kFeqS: case Op::kFltS: case Op::kFleS: {
      const bool nan = std::isnan(sa) || std::isnan(sb);
      if (in.op == Op::kFeqS ? (snan32(unbox(ra)) || snan32(unbox(rb))) : nan) flags |= kNV;
      xr = nan ? 0 : in.op == Op::kFeqS ? sa == sb : in.op == Op::kFltS ? sa < sb : sa <= sb;
      break;
    }
    case Op::kFeqD: case Op::kFltD: case Op::kFleD: {
      const bool nan = std::isnan(da) || std::isnan(db);
      if (in.op == Op::kFeqD ? (snan64(ra) || snan64(rb)) : nan) flags |= kNV;
      xr = nan ? 0 : in.op == Op::kFeqD ? da == db : in.op == Op::kFltD ? da < db : da <= db;
      break;
    }
    case Op::kFclassS: xr = fclass(sa, snan32(unbox(ra))); break;
    case Op::kFclassD: xr = fclass(da, snan64(ra)); break;
    case Op::kFmvXW: xr = static_cast<uint32_t>(ra); break;
    case Op::kFmvWX: f_[in.rd] = box_bits(x_[in.rs1]); break;
    case Op::kFcvtWS: xr = to_int(sa, rm, false, flags); break;
    case Op::kFcvtWuS: xr = to_int(sa, rm, true, flags); break;
    case Op::kFcvtWD: xr = to_int(da, rm, false, flags); break;
    case Op::kFcvtWuD: xr = to_int(da, rm, true, flags); break;
    case Op::kFcvtSW: { float v = 0; const int32_t i = static_cast<int32_t>(x_[in.rs1]); flags = with_rm(rm, [&] { v = static_cast<float>(i); }); f_[in.rd] = box(v); break; }
    case Op::kFcvtSWu: { float v = 0; const uint32_t i = x_[in.rs1]; flags = with_rm(rm, [&] { v = static_cast<float>(i); }); f_[in.rd] = box(v); break; }
    case Op::kFcvtDW: f_[in.rd] = bits64(static_cast<double>(static_cast<int32_t>(x_[in.rs1]))); break;
    case Op::kFcvtDWu: f_[in.rd] = bits64(static_cast<double>(x_[in.rs1])); break;
    case Op::kFcvtSD: { float v = 0; flags = with_rm(rm, [&] { v = static_cast<float>(da); }); f_[in.rd] = box(v); break; }
    case Op::kFcvtDS: {
      double v = 0;
      flags = with_rm(rm, [&] { v = static_cast<double>(sa); });
      f_[in.rd] = dbox(v);
      break;
    }
    default:
      set_fault("illegal instruction", fmt::format("0x{:08x} is not an RV32IMAFD instruction", in.raw));
      return false;
  }
  fcsr_ |= flags & 0x1f;
  if (!in.fp_dst && in.rd) x_[in.rd] = xr;
  return true;
}

}  // namespace npusim::models::rv32
