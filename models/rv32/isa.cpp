#include "models/rv32/isa.h"

#include <fmt/format.h>

namespace npusim::models::rv32 {

namespace {

constexpr const char* kNames[] = {
    "illegal",
    "lui", "auipc", "jal", "jalr",
    "beq", "bne", "blt", "bge", "bltu", "bgeu",
    "lb", "lh", "lw", "lbu", "lhu", "sb", "sh", "sw",
    "addi", "slti", "sltiu", "xori", "ori", "andi", "slli", "srli", "srai",
    "add", "sub", "sll", "slt", "sltu", "xor", "srl", "sra", "or", "and",
    "fence", "fence.i", "ecall", "ebreak", "wfi", "mret",
    "csrrw", "csrrs", "csrrc", "csrrwi", "csrrsi", "csrrci",
    "mul", "mulh", "mulhsu", "mulhu", "div", "divu", "rem", "remu",
    "lr.w", "sc.w", "amoswap.w", "amoadd.w", "amoxor.w", "amoand.w", "amoor.w", "amomin.w",
    "amomax.w", "amominu.w", "amomaxu.w",
    "flw", "fsw", "fmadd.s", "fmsub.s", "fnmsub.s", "fnmadd.s", "fadd.s", "fsub.s", "fmul.s",
    "fdiv.s", "fsqrt.s", "fsgnj.s", "fsgnjn.s", "fsgnjx.s", "fmin.s", "fmax.s", "fcvt.w.s",
    "fcvt.wu.s", "fmv.x.w", "feq.s", "flt.s", "fle.s", "fclass.s", "fcvt.s.w", "fcvt.s.wu",
    "fmv.w.x",
    "fld", "fsd", "fmadd.d", "fmsub.d", "fnmsub.d", "fnmadd.d", "fadd.d", "fsub.d", "fmul.d",
    "fdiv.d", "fsqrt.d", "fsgnj.d", "fsgnjn.d", "fsgnjx.d", "fmin.d", "fmax.d", "fcvt.s.d",
    "fcvt.d.s", "feq.d", "flt.d", "fle.d", "fclass.d", "fcvt.w.d", "fcvt.wu.d", "fcvt.d.w",
    "fcvt.d.wu",
    "dmsrc", "dmdst", "dmcpyi", "dmcpy", "dmstati", "dmstat", "dmstr", "dmrep",
};
static_assert(sizeof(kNames) / sizeof(kNames[0]) == static_cast<size_t>(Op::kCount));

int32_t imm_i(uint32_t w) { return static_cast<int32_t>(w) >> 20; }
int32_t imm_s(uint32_t w) {
  return static_cast<int32_t>(((static_cast<int32_t>(w) >> 25) << 5) | ((w >> 7) & 31));
}
int32_t imm_b(uint32_t w) {
  const uint32_t v = ((w >> 31) << 12) | (((w >> 7) & 1) << 11) | (((w >> 25) & 63) << 5) |
                     (((w >> 8) & 15) << 1);
  return static_cast<int32_t>(v << 19) >> 19;
}
int32_t imm_j(uint32_t w) {
  const uint32_t v = ((w >> 31) << 20) | (((w >> 12) & 255) << 12) | (((w >> 20) & 1) << 11) |
                     (((w >> 21) & 1023) << 1);
  return static_cast<int32_t>(v << 11) >> 11;
}

Insn make(Op op, Unit unit, uint32_t w) {
  Insn i;
  i.op = op;
  i.unit = unit;
  i.raw = w;
  i.rd = (w >> 7) & 31;
  i.rs1 = (w >> 15) & 31;
  i.rs2 = (w >> 20) & 31;
  i.rs3 = static_cast<uint8_t>(w >> 27);
  i.rm = (w >> 12) & 7;
  return i;
}

// Only rounding modes 0-4 and 7 (dynamic) exist; 5 and 6 are reserved (illegal).
bool valid_rm(uint32_t w) {
  const uint32_t rm = (w >> 12) & 7;
  return rm <= 4 || rm == 7;
}

Insn decode_op_fp(uint32_t w) {
  const uint32_t f7 = w >> 25, f3 = (w >> 12) & 7, rs2 = (w >> 20) & 31;
  const bool d = (f7 & 1) != 0;
  auto arith = [&](Op s, Op dd, bool unary = false) {
    if (!valid_rm(w) || (unary && rs2 != 0)) return Insn{};
    Insn i = make(d ? dd : s, d ? Unit::kFp64 : Unit::kFp32, w);
    i.fp_dst = 1;
    i.fp_src = unary ? 1 : 3;
    return i;
  };
  switch (f7) {
    case 0x00: case 0x01: return arith(Op::kFaddS, Op::kFaddD);
    case 0x04: case 0x05: return arith(Op::kFsubS, Op::kFsubD);
    case 0x08: case 0x09: return arith(Op::kFmulS, Op::kFmulD);
    case 0x0c: case 0x0d: {
      Insn i = arith(Op::kFdivS, Op::kFdivD);
      if (i.op != Op::kIllegal) i.unit = d ? Unit::kFdiv64 : Unit::kFdiv32;
      return i;
    }
    case 0x2c: case 0x2d: {
      Insn i = arith(Op::kFsqrtS, Op::kFsqrtD, true);
      if (i.op != Op::kIllegal) i.unit = d ? Unit::kFdiv64 : Unit::kFdiv32;
      return i;
    }
    case 0x10: case 0x11: {
      if (f3 > 2) return {};
      const Op s[] = {Op::kFsgnjS, Op::kFsgnjnS, Op::kFsgnjxS};
      const Op dd[] = {Op::kFsgnjD, Op::kFsgnjnD, Op::kFsgnjxD};
      Insn i = make(d ? dd[f3] : s[f3], Unit::kFnoncomp, w);
      i.fp_dst = 1;
      i.fp_src = 3;
      return i;
    }
    case 0x14: case 0x15: {
      if (f3 > 1) return {};
      Insn i = make(d ? (f3 ? Op::kFmaxD : Op::kFminD) : (f3 ? Op::kFmaxS : Op::kFminS), Unit::kFnoncomp, w);
      i.fp_dst = 1;
      i.fp_src = 3;
      return i;
    }
    case 0x20:  // fcvt.s.d
    case 0x21: {  // fcvt.d.s
      if (!valid_rm(w) || rs2 != (f7 == 0x20 ? 1u : 0u)) return {};
      Insn i = make(f7 == 0x20 ? Op::kFcvtSD : Op::kFcvtDS, Unit::kFconv, w);
      i.fp_dst = 1;
      i.fp_src = 1;
      return i;
    }
    case 0x50: case 0x51: {
      if (f3 > 2) return {};
      const Op s[] = {Op::kFleS, Op::kFltS, Op::kFeqS};
      const Op dd[] = {Op::kFleD, Op::kFltD, Op::kFeqD};
      Insn i = make(d ? dd[f3] : s[f3], Unit::kFnoncomp, w);
      i.fp_src = 3;
      return i;
    }
    case 0x60: case 0x61: {
      if (!valid_rm(w) || rs2 > 1) return {};
      Insn i = make(d ? (rs2 ? Op::kFcvtWuD : Op::kFcvtWD) : (rs2 ? Op::kFcvtWuS : Op::kFcvtWS), Unit::kFconv, w);
      i.fp_src = 1;
      return i;
    }
    case 0x68: case 0x69: {
      if (!valid_rm(w) || rs2 > 1) return {};
      Insn i = make(d ? (rs2 ? Op::kFcvtDWu : Op::kFcvtDW) : (rs2 ? Op::kFcvtSWu : Op::kFcvtSW), Unit::kFconv, w);
      i.fp_dst = 1;
      return i;
    }
    case 0x70:
      if (rs2 != 0 || f3 > 1) return {};
      {
        Insn i = make(f3 ? Op::kFclassS : Op::kFmvXW, Unit::kFnoncomp, w);
        i.fp_src = 1;
        return i;
      }
    case 0x71:
      if (rs2 != 0 || f3 != 1) return {};
      {
        Insn i = make(Op::kFclassD, Unit::kFnoncomp, w);
        i.fp_src = 1;
        return i;
      }
    case 0x78:
      if (rs2 != 0 || f3 != 0) return {};
      {
        Insn i = make(Op::kFmvWX, Unit::kFnoncomp, w);
        i.fp_dst = 1;
        return i;
      }
    default:
      return {};
  }
}

}  // namespace

const char* mnemonic(Op op) {
  const auto i = static_cast<size_t>(op);
  return i < static_cast<size_t>(Op::kCount) ? kNames[i] : "?";
}

namespace {
Insn decode_word(uint32_t w) {
  if ((w & 3) != 3) return {};
  const uint32_t opc = w & 0x7f, f3 = (w >> 12) & 7, f7 = w >> 25;
  switch (opc) {
    case 0x37: { Insn i = make(Op::kLui, Unit::kAlu, w); i.imm = static_cast<int32_t>(w & 0xfffff000u); return i; }
    case 0x17: { Insn i = make(Op::kAuipc, Unit::kAlu, w); i.imm = static_cast<int32_t>(w & 0xfffff000u); return i; }
    case 0x6f: { Insn i = make(Op::kJal, Unit::kBranch, w); i.imm = imm_j(w); return i; }
    case 0x67: {
      if (f3 != 0) return {};
      Insn i = make(Op::kJalr, Unit::kBranch, w);
      i.imm = imm_i(w);
      return i;
    }
    case 0x63: {
      const Op ops[] = {Op::kBeq, Op::kBne, Op::kIllegal, Op::kIllegal, Op::kBlt, Op::kBge, Op::kBltu, Op::kBgeu};
      if (ops[f3] == Op::kIllegal) return {};
      Insn i = make(ops[f3], Unit::kBranch, w);
      i.imm = imm_b(w);
      return i;
    }
    case 0x03: {
      const Op ops[] = {Op::kLb, Op::kLh, Op::kLw, Op::kIllegal, Op::kLbu, Op::kLhu, Op::kIllegal, Op::kIllegal};
      if (ops[f3] == Op::kIllegal) return {};
      Insn i = make(ops[f3], Unit::kLoad, w);
      i.imm = imm_i(w);
      return i;
    }
    case 0x23: {
      if (f3 > 2) return {};
      const Op ops[] = {Op::kSb, Op::kSh, Op::kSw};
      Insn i = make(ops[f3], Unit::kStore, w);
      i.imm = imm_s(w);
      return i;
    }
    case 0x13: {
      Insn i;
      switch (f3) {
        case 0: i = make(Op::kAddi, Unit::kAlu, w); break;
        case 2: i = make(Op::kSlti, Unit::kAlu, w); break;
        case 3: i = make(Op::kSltiu, Unit::kAlu, w); break;
        case 4: i = make(Op::kXori, Unit::kAlu, w); break;
        case 6: i = make(Op::kOri, Unit::kAlu, w); break;
        case 7: i = make(Op::kAndi, Unit::kAlu, w); break;
        case 1:
          if (f7 != 0) return {};
          i = make(Op::kSlli, Unit::kAlu, w);
          break;
        case 5:
          if (f7 != 0 && f7 != 0x20) return {};
          i = make(f7 ? Op::kSrai : Op::kSrli, Unit::kAlu, w);
          break;
      }
      i.imm = (f3 == 1 || f3 == 5) ? static_cast<int32_t>((w >> 20) & 31) : imm_i(w);
      return i;
    }
    case 0x33: {
      if (f7 == 1) {
        const Op ops[] = {Op::kMul, Op::kMulh, Op::kMulhsu, Op::kMulhu, Op::kDiv, Op::kDivu, Op::kRem, Op::kRemu};
        return make(ops[f3], f3 < 4 ? Unit::kMul : Unit::kDiv, w);
      }
      if (f7 == 0) {
        const Op ops[] = {Op::kAdd, Op::kSll, Op::kSlt, Op::kSltu, Op::kXor, Op::kSrl, Op::kOr, Op::kAnd};
        return make(ops[f3], Unit::kAlu, w);
      }
      if (f7 == 0x20 && (f3 == 0 || f3 == 5)) return make(f3 ? Op::kSra : Op::kSub, Unit::kAlu, w);
      return {};
    }
    case 0x0f:
      if (f3 == 0) return make(Op::kFence, Unit::kCsr, w);
      if (f3 == 1) return make(Op::kFenceI, Unit::kCsr, w);
      return {};
    case 0x73: {
      if (f3 == 0) {
        if (((w >> 7) & 31) != 0 || ((w >> 15) & 31) != 0) return {};
        switch (w >> 20) {
          case 0x000: return make(Op::kEcall, Unit::kCsr, w);
          case 0x001: return make(Op::kEbreak, Unit::kCsr, w);
          case 0x105: return make(Op::kWfi, Unit::kCsr, w);
          case 0x302: return make(Op::kMret, Unit::kCsr, w);
          default: return {};
        }
      }
      if (f3 == 4) return {};
      const Op ops[] = {Op::kIllegal, Op::kCsrrw, Op::kCsrrs, Op::kCsrrc, Op::kIllegal, Op::kCsrrwi, Op::kCsrrsi, Op::kCsrrci};
      Insn i = make(ops[f3], Unit::kCsr, w);
      i.imm = static_cast<int32_t>(w >> 20);
      return i;
    }
    case 0x2f: {
      if (f3 != 2) return {};
      const uint32_t f5 = w >> 27;
      Op op;
      switch (f5) {
        case 0x02: op = ((w >> 20) & 31) == 0 ? Op::kLrW : Op::kIllegal; break;
        case 0x03: op = Op::kScW; break;
        case 0x01: op = Op::kAmoswapW; break;
        case 0x00: op = Op::kAmoaddW; break;
        case 0x04: op = Op::kAmoxorW; break;
        case 0x0c: op = Op::kAmoandW; break;
        case 0x08: op = Op::kAmoorW; break;
        case 0x10: op = Op::kAmominW; break;
        case 0x14: op = Op::kAmomaxW; break;
        case 0x18: op = Op::kAmominuW; break;
        case 0x1c: op = Op::kAmomaxuW; break;
        default: op = Op::kIllegal;
      }
      if (op == Op::kIllegal) return {};
      return make(op, op == Op::kScW ? Unit::kStore : Unit::kLoad, w);
    }
    case 0x07:
    case 0x27: {
      if (f3 != 2 && f3 != 3) return {};
      const bool load = opc == 0x07;
      Insn i = make(load ? (f3 == 3 ? Op::kFld : Op::kFlw) : (f3 == 3 ? Op::kFsd : Op::kFsw),
                    load ? Unit::kLoad : Unit::kStore, w);
      i.imm = load ? imm_i(w) : imm_s(w);
      if (load) i.fp_dst = 1;
      else i.fp_src = 2;
      return i;
    }
    case 0x43: case 0x47: case 0x4b: case 0x4f: {
      const uint32_t fmt = (w >> 25) & 3;
      if (fmt > 1 || !valid_rm(w)) return {};
      const int k = (opc - 0x43) / 4;
      const Op s[] = {Op::kFmaddS, Op::kFmsubS, Op::kFnmsubS, Op::kFnmaddS};
      const Op d[] = {Op::kFmaddD, Op::kFmsubD, Op::kFnmsubD, Op::kFnmaddD};
      Insn i = make(fmt ? d[k] : s[k], fmt ? Unit::kFp64 : Unit::kFp32, w);
      i.fp_dst = 1;
      i.fp_src = 7;
      return i;
    }
    case 0x53:
      return decode_op_fp(w);
    case 0x2b: {
      if (f3 != 0 || f7 > 7) return {};
      const Op ops[] = {Op::kDmsrc, Op::kDmdst, Op::kDmcpyi, Op::kDmcpy, Op::kDmstati, Op::kDmstat, Op::kDmstr, Op::kDmrep};
      Insn i = make(ops[f7], Unit::kDma, w);
      i.imm = static_cast<int32_t>((w >> 20) & 31);  // imm5 of dmcpyi / dmstati
      return i;
    }
    default:
      return {};
  }
}

}  // namespace

Insn decode(uint32_t w) {
  Insn i = decode_word(w);
  i.raw = w;  // an illegal word keeps its bits for the fault message
  return i;
}

const char* unsupported_extension(uint32_t w) {
  if ((w & 3) != 3) return "a compressed instruction (C extension)";
  const uint32_t opc = w & 0x7f, f3 = (w >> 12) & 7;
  if (opc == 0x2b && (f3 == 1 || f3 == 2)) return "an SSR configuration instruction (scfgri/scfgwi, Xssr)";
  if (opc == 0x0b) return "FREP (Xfrep)";
  if (opc == 0x73 && f3 != 0 && f3 != 4 && (w >> 20) == 0x7c0) return "the SSR enable CSR 0x7c0 (Xssr)";
  if (opc == 0x5b || opc == 0x7b) return "a Snitch custom instruction (custom-2/custom-3)";
  return nullptr;
}

std::string disassemble(const Insn& i) {
  const char* m = mnemonic(i.op);
  auto xr = [](unsigned r) { return fmt::format("x{}", r); };
  auto fr = [](unsigned r) { return fmt::format("f{}", r); };
  auto dst = [&] { return i.fp_dst ? fr(i.rd) : xr(i.rd); };
  auto s1 = [&] { return (i.fp_src & 1) ? fr(i.rs1) : xr(i.rs1); };
  auto s2 = [&] { return (i.fp_src & 2) ? fr(i.rs2) : xr(i.rs2); };
  switch (i.unit) {
    case Unit::kLoad:
      if (i.op == Op::kLrW) return fmt::format("{} {}, ({})", m, xr(i.rd), xr(i.rs1));
      if (i.raw && (i.raw & 0x7f) == 0x2f) return fmt::format("{} {}, {}, ({})", m, xr(i.rd), xr(i.rs2), xr(i.rs1));
      return fmt::format("{} {}, {}({})", m, dst(), i.imm, xr(i.rs1));
    case Unit::kStore:
      if (i.op == Op::kScW) return fmt::format("{} {}, {}, ({})", m, xr(i.rd), xr(i.rs2), xr(i.rs1));
      return fmt::format("{} {}, {}({})", m, s2(), i.imm, xr(i.rs1));
    case Unit::kBranch:
      if (i.op == Op::kJal) return fmt::format("{} {}, {}", m, xr(i.rd), i.imm);
      if (i.op == Op::kJalr) return fmt::format("{} {}, {}({})", m, xr(i.rd), i.imm, xr(i.rs1));
      return fmt::format("{} {}, {}, {}", m, xr(i.rs1), xr(i.rs2), i.imm);
    case Unit::kCsr:
      if (i.op >= Op::kCsrrw && i.op <= Op::kCsrrc) return fmt::format("{} {}, 0x{:x}, {}", m, xr(i.rd), i.imm, xr(i.rs1));
      if (i.op >= Op::kCsrrwi && i.op <= Op::kCsrrci) return fmt::format("{} {}, 0x{:x}, {}", m, xr(i.rd), i.imm, i.rs1);
      return m;
    case Unit::kDma:
      return fmt::format("{} {}, {}, {}", m, xr(i.rd), xr(i.rs1), i.op == Op::kDmcpyi || i.op == Op::kDmstati ? std::to_string(i.imm) : xr(i.rs2));
    default:
      break;
  }
  if (i.op == Op::kIllegal) return fmt::format("illegal instruction 0x{:08x}", i.raw);
  if (i.op == Op::kLui || i.op == Op::kAuipc) return fmt::format("{} {}, 0x{:x}", m, xr(i.rd), static_cast<uint32_t>(i.imm) >> 12);
  const uint32_t opc = i.raw & 0x7f;
  if (opc == 0x13) return fmt::format("{} {}, {}, {}", m, xr(i.rd), xr(i.rs1), i.imm);
  if (opc >= 0x43 && opc <= 0x4f) return fmt::format("{} {}, {}, {}, {}", m, fr(i.rd), fr(i.rs1), fr(i.rs2), fr(i.rs3));
  if (opc == 0x53 && (i.fp_src & 2) == 0) return fmt::format("{} {}, {}", m, dst(), s1());
  return fmt::format("{} {}, {}, {}", m, dst(), s1(), s2());
}

}  // namespace npusim::models::rv32
