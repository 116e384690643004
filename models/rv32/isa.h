// RV32IMAFD (plus the Snitch DMA instructions, Xdma) as the program core decodes it: one
// 32-bit word into an Insn, once per PC (the decode cache of hart.h), with the operand
// registers, the immediate and the unit whose latency the scoreboard applies. Compressed
// instructions are not decoded (programs are built with -march=rv32imafd, without C).
// Encodings: The RISC-V Instruction Set Manual, Volume I (unprivileged), version 20191213;
// Xdma: snitch_cluster docs/rm/hw/custom_instructions.md (custom-1, opcode 0x2B, funct3 0).
#pragma once

#include <cstdint>
#include <string>

namespace npusim::models::rv32 {

enum class Op : uint8_t {
  kIllegal,
  // RV32I
  kLui, kAuipc, kJal, kJalr,
  kBeq, kBne, kBlt, kBge, kBltu, kBgeu,
  kLb, kLh, kLw, kLbu, kLhu, kSb, kSh, kSw,
  kAddi, kSlti, kSltiu, kXori, kOri, kAndi, kSlli, kSrli, kSrai,
  kAdd, kSub, kSll, kSlt, kSltu, kXor, kSrl, kSra, kOr, kAnd,
  kFence, kFenceI, kEcall, kEbreak, kWfi, kMret,
  kCsrrw, kCsrrs, kCsrrc, kCsrrwi, kCsrrsi, kCsrrci,
  // M
  kMul, kMulh, kMulhsu, kMulhu, kDiv, kDivu, kRem, kRemu,
  // A
  kLrW, kScW, kAmoswapW, kAmoaddW, kAmoxorW, kAmoandW, kAmoorW, kAmominW, kAmomaxW, kAmominuW,
  kAmomaxuW,
  // F
  kFlw, kFsw, kFmaddS, kFmsubS, kFnmsubS, kFnmaddS, kFaddS, kFsubS, kFmulS, kFdivS, kFsqrtS,
  kFsgnjS, kFsgnjnS, kFsgnjxS, kFminS, kFmaxS, kFcvtWS, kFcvtWuS, kFmvXW, kFeqS, kFltS, kFleS,
  kFclassS, kFcvtSW, kFcvtSWu, kFmvWX,
  // D
  kFld, kFsd, kFmaddD, kFmsubD, kFnmsubD, kFnmaddD, kFaddD, kFsubD, kFmulD, kFdivD, kFsqrtD,
  kFsgnjD, kFsgnjnD, kFsgnjxD, kFminD, kFmaxD, kFcvtSD, kFcvtDS, kFeqD, kFltD, kFleD, kFclassD,
  kFcvtWD, kFcvtWuD, kFcvtDW, kFcvtDWu,
  // Xdma
  kDmsrc, kDmdst, kDmcpyi, kDmcpy, kDmstati, kDmstat, kDmstr, kDmrep,
  kCount
};

// What the scoreboard charges for an instruction's result: the latency of its unit (profile
// parameters, rv32_timing in hart.h), or the memory's answer for loads.
enum class Unit : uint8_t {
  kAlu,      // 1 cycle
  kMul,      // mul, mulh*
  kDiv,      // div, rem
  kLoad,     // integer and FP loads, LR, AMOs: the memory's answer
  kStore,    // stores, SC
  kBranch,   // branches and jumps (taken or not: one cycle, no predictor modelled)
  kFp32,     // fadd/fsub/fmul/fmadd.s
  kFp64,     // same, .d
  kFdiv32, kFdiv64,  // fdiv, fsqrt
  kFconv,    // fcvt.*
  kFnoncomp, // fsgnj, fmin/fmax, compares, fclass, fmv
  kCsr,      // CSR accesses, fence, system
  kDma,      // Xdma
};

struct Insn {
  Op op = Op::kIllegal;
  Unit unit = Unit::kAlu;
  uint8_t rd = 0, rs1 = 0, rs2 = 0, rs3 = 0;
  uint8_t rm = 0;        // FP rounding mode field (7: dynamic)
  uint8_t fp_dst = 0;    // rd is an FP register
  uint8_t fp_src = 0;    // bit 0: rs1 is FP, bit 1: rs2, bit 2: rs3
  int32_t imm = 0;       // sign-extended immediate; CSR number for CSR ops; imm5 for Xdma
  uint32_t raw = 0;
};

Insn decode(uint32_t word);
const char* mnemonic(Op op);
// "fmadd.d f1, f2, f3, f4" style text, for fault messages.
std::string disassemble(const Insn& insn);
// Names a word that decode() refuses, when it belongs to an extension this core does not
// model (SSR, FREP, compressed, ...), else nullptr.
const char* unsupported_extension(uint32_t word);

}  // namespace npusim::models::rv32
