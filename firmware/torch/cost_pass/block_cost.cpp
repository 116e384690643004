// Instruction categories and loop recurrences (block_cost.h).
#include "firmware/torch/cost_pass/block_cost.h"

#include <algorithm>
#include <map>
#include <string>

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Intrinsics.h"

namespace npusim::cost_pass {

using namespace llvm;

namespace {

// Bits of one lane: pointers are 32-bit on the device.
unsigned lane_bits(Type* t) {
  if (t->isPointerTy()) return 32;
  const unsigned b = t->getPrimitiveSizeInBits().getFixedSize();
  return b == 0 ? 32 : b;
}

// How many 512-bit vector operations an operation on `t` takes (1 for a scalar).
unsigned vector_ops(Type* t) {
  auto* v = dyn_cast<FixedVectorType>(t);
  if (v == nullptr) return 1;
  const unsigned bits = v->getNumElements() * lane_bits(v->getElementType());
  return std::max(1u, (bits + kVectorBits - 1) / kVectorBits);
}

unsigned lanes(Type* t) {
  auto* v = dyn_cast<FixedVectorType>(t);
  return v ? v->getNumElements() : 1;
}

bool is_double(Type* t) { return t->getScalarType()->isDoubleTy() || t->getScalarType()->isFP128Ty() ||
                                 t->getScalarType()->isX86_FP80Ty(); }

// An fp operation: double precision is its own category (no fp64 lanes on the device).
void fp(Counts& c, int cat, Type* t, unsigned n = 0) {
  const unsigned k = n ? n : vector_ops(t);
  c[is_double(t) ? NPUSIM_KC_FP64 : cat] += k;
}

// Stack (an alloca) or other memory (TCM).
bool on_stack(const Value* ptr) { return isa<AllocaInst>(getUnderlyingObject(ptr, 0)); }
int load_cat(const Value* ptr) { return on_stack(ptr) ? NPUSIM_KC_STACK_LOAD : NPUSIM_KC_TCM_LOAD; }
int store_cat(const Value* ptr) { return on_stack(ptr) ? NPUSIM_KC_STACK_STORE : NPUSIM_KC_TCM_STORE; }

}  // namespace

// A math-library function by its C name (without the f/l suffix of its float and long double
// forms), or -1.
int math_category(StringRef name) {
  std::string n = name.str();
  static const std::map<std::string, int> k = {
      {"exp", NPUSIM_KC_MATH_EXP},    {"exp2", NPUSIM_KC_MATH_EXP},    {"expm1", NPUSIM_KC_MATH_EXP},
      {"exp10", NPUSIM_KC_MATH_EXP},  {"log", NPUSIM_KC_MATH_LOG},     {"log2", NPUSIM_KC_MATH_LOG},
      {"log10", NPUSIM_KC_MATH_LOG},  {"log1p", NPUSIM_KC_MATH_LOG},   {"logb", NPUSIM_KC_MATH_LOG},
      {"sin", NPUSIM_KC_MATH_TRIG},   {"cos", NPUSIM_KC_MATH_TRIG},    {"tan", NPUSIM_KC_MATH_TRIG},
      {"asin", NPUSIM_KC_MATH_TRIG},  {"acos", NPUSIM_KC_MATH_TRIG},   {"atan", NPUSIM_KC_MATH_TRIG},
      {"atan2", NPUSIM_KC_MATH_TRIG}, {"sincos", NPUSIM_KC_MATH_TRIG}, {"sinh", NPUSIM_KC_MATH_HYP},
      {"cosh", NPUSIM_KC_MATH_HYP},   {"tanh", NPUSIM_KC_MATH_HYP},    {"asinh", NPUSIM_KC_MATH_HYP},
      {"acosh", NPUSIM_KC_MATH_HYP},  {"atanh", NPUSIM_KC_MATH_HYP},   {"pow", NPUSIM_KC_MATH_POW},
      {"cbrt", NPUSIM_KC_MATH_POW},   {"hypot", NPUSIM_KC_MATH_POW},   {"sqrt", NPUSIM_KC_FP_SQRT},
      {"fabs", NPUSIM_KC_FP_CMP},     {"copysign", NPUSIM_KC_FP_CMP},  {"fmin", NPUSIM_KC_FP_CMP},
      {"fmax", NPUSIM_KC_FP_CMP},     {"floor", NPUSIM_KC_FP_CONVERT}, {"ceil", NPUSIM_KC_FP_CONVERT},
      {"round", NPUSIM_KC_FP_CONVERT}, {"trunc", NPUSIM_KC_FP_CONVERT}, {"rint", NPUSIM_KC_FP_CONVERT},
      {"nearbyint", NPUSIM_KC_FP_CONVERT}, {"lround", NPUSIM_KC_FP_CONVERT},
      {"llround", NPUSIM_KC_FP_CONVERT}, {"lrint", NPUSIM_KC_FP_CONVERT}, {"llrint", NPUSIM_KC_FP_CONVERT}};
  for (int pass = 0; pass < 2; ++pass) {
    auto it = k.find(n);
    if (it != k.end()) return it->second;
    if (n.size() > 1 && (n.back() == 'f' || n.back() == 'l')) n.pop_back();
    else break;
  }
  return -1;
}

namespace {

void count_intrinsic(const IntrinsicInst& ii, Counts& c, std::vector<DynamicMem>& dyn) {
  Type* t = ii.getType();
  Type* arg0 = ii.arg_size() > 0 ? ii.getArgOperand(0)->getType() : t;
  const unsigned log_lanes = [&] {
    unsigned n = lanes(arg0), l = 0;
    while ((1u << l) < n) ++l;
    return l;
  }();
  switch (ii.getIntrinsicID()) {
    // Markers and hints: no code.
    case Intrinsic::dbg_declare: case Intrinsic::dbg_value: case Intrinsic::dbg_label:
    case Intrinsic::lifetime_start: case Intrinsic::lifetime_end: case Intrinsic::assume:
    case Intrinsic::experimental_noalias_scope_decl: case Intrinsic::invariant_start:
    case Intrinsic::invariant_end: case Intrinsic::launder_invariant_group:
    case Intrinsic::strip_invariant_group: case Intrinsic::donothing: case Intrinsic::sideeffect:
    case Intrinsic::pseudoprobe: case Intrinsic::var_annotation: case Intrinsic::ptr_annotation:
    case Intrinsic::annotation: case Intrinsic::codeview_annotation: case Intrinsic::stacksave:
    case Intrinsic::stackrestore: case Intrinsic::expect: case Intrinsic::expect_with_probability:
    case Intrinsic::objectsize: case Intrinsic::is_constant:
      return;
    case Intrinsic::memcpy: case Intrinsic::memmove: case Intrinsic::memcpy_inline:
    case Intrinsic::memset: {
      const auto& mi = cast<MemIntrinsic>(ii);
      const int st = store_cat(mi.getRawDest());
      const int ld = isa<MemTransferInst>(mi) ? load_cat(cast<MemTransferInst>(mi).getRawSource()) : -1;
      if (auto* len = dyn_cast<ConstantInt>(mi.getLength())) {
        const uint64_t chunks = (len->getZExtValue() + 63) / 64;
        c[st] += static_cast<uint32_t>(chunks);
        if (ld >= 0) c[ld] += static_cast<uint32_t>(chunks);
      } else {
        dyn.push_back(DynamicMem{const_cast<MemIntrinsic*>(&mi), ld, st});
      }
      return;
    }
    case Intrinsic::fma: case Intrinsic::fmuladd: fp(c, NPUSIM_KC_FP_FMA, t); return;
    case Intrinsic::sqrt: fp(c, NPUSIM_KC_FP_SQRT, t); return;
    case Intrinsic::fabs: case Intrinsic::copysign: case Intrinsic::minnum: case Intrinsic::maxnum:
    case Intrinsic::minimum: case Intrinsic::maximum:
      fp(c, NPUSIM_KC_FP_CMP, t); return;
    case Intrinsic::floor: case Intrinsic::ceil: case Intrinsic::trunc: case Intrinsic::rint:
    case Intrinsic::nearbyint: case Intrinsic::round: case Intrinsic::roundeven: case Intrinsic::lround:
    case Intrinsic::llround: case Intrinsic::lrint: case Intrinsic::llrint:
      fp(c, NPUSIM_KC_FP_CONVERT, arg0); return;
    case Intrinsic::exp: case Intrinsic::exp2: c[NPUSIM_KC_MATH_EXP] += vector_ops(t); return;
    case Intrinsic::log: case Intrinsic::log2: case Intrinsic::log10: c[NPUSIM_KC_MATH_LOG] += vector_ops(t); return;
    case Intrinsic::sin: case Intrinsic::cos: c[NPUSIM_KC_MATH_TRIG] += vector_ops(t); return;
    case Intrinsic::pow: case Intrinsic::powi: c[NPUSIM_KC_MATH_POW] += vector_ops(t); return;
    case Intrinsic::masked_load: c[load_cat(ii.getArgOperand(0))] += vector_ops(t); return;
    case Intrinsic::masked_store: c[store_cat(ii.getArgOperand(1))] += vector_ops(arg0); return;
    case Intrinsic::masked_gather: c[NPUSIM_KC_TCM_LOAD] += lanes(t); return;
    case Intrinsic::masked_scatter: c[NPUSIM_KC_TCM_STORE] += lanes(arg0); return;
    // Reductions: log2(lanes) steps of a lane move and an operation; an ordered fp sum is serial.
    case Intrinsic::vector_reduce_fadd: case Intrinsic::vector_reduce_fmul: {
      const auto* v = ii.getArgOperand(1);
      const int cat = ii.getIntrinsicID() == Intrinsic::vector_reduce_fadd ? NPUSIM_KC_FP_ADD : NPUSIM_KC_FP_MUL;
      if (ii.hasAllowReassoc()) {
        fp(c, cat, v->getType()->getScalarType(), log_lanes);
        c[NPUSIM_KC_SHUFFLE] += log_lanes;
      } else {
        fp(c, cat, v->getType()->getScalarType(), lanes(v->getType()));
      }
      return;
    }
    case Intrinsic::vector_reduce_fmax: case Intrinsic::vector_reduce_fmin:
      fp(c, NPUSIM_KC_FP_CMP, arg0->getScalarType(), log_lanes);
      c[NPUSIM_KC_SHUFFLE] += log_lanes;
      return;
    case Intrinsic::vector_reduce_add: case Intrinsic::vector_reduce_and: case Intrinsic::vector_reduce_or:
    case Intrinsic::vector_reduce_xor: case Intrinsic::vector_reduce_smax: case Intrinsic::vector_reduce_smin:
    case Intrinsic::vector_reduce_umax: case Intrinsic::vector_reduce_umin:
      c[NPUSIM_KC_INT] += log_lanes;
      c[NPUSIM_KC_SHUFFLE] += log_lanes;
      return;
    case Intrinsic::vector_reduce_mul:
      c[NPUSIM_KC_INT_MUL] += log_lanes;
      c[NPUSIM_KC_SHUFFLE] += log_lanes;
      return;
    default:
      // Integer intrinsics (min, max, abs, bit counts, saturating and overflow arithmetic) and
      // anything else: one operation per vector.
      c[NPUSIM_KC_INT] += vector_ops(t->isVoidTy() || t->isStructTy() ? arg0 : t);
      return;
  }
}

}  // namespace

void count_instruction(const Instruction& i, const TargetLibraryInfo& tli, Counts& c,
                       std::vector<DynamicMem>& dyn) {
  Type* t = i.getType();
  switch (i.getOpcode()) {
    case Instruction::PHI: case Instruction::Alloca: case Instruction::BitCast:
    case Instruction::PtrToInt: case Instruction::IntToPtr: case Instruction::AddrSpaceCast:
    case Instruction::Trunc: case Instruction::Freeze: case Instruction::ExtractValue:
    case Instruction::InsertValue: case Instruction::Fence: case Instruction::Ret:
    case Instruction::Resume: case Instruction::Unreachable: case Instruction::LandingPad:
    case Instruction::CleanupPad: case Instruction::CatchPad: case Instruction::CleanupRet:
    case Instruction::CatchRet: case Instruction::CatchSwitch:
      return;
    case Instruction::GetElementPtr: {
      // Constant offsets fold into the addressing; a variable index is an add (scaled).
      const auto& g = cast<GetElementPtrInst>(i);
      for (auto it = g.idx_begin(); it != g.idx_end(); ++it)
        if (!isa<Constant>(*it)) c[NPUSIM_KC_INT] += vector_ops(t);
      return;
    }
    case Instruction::Br:
      if (cast<BranchInst>(i).isConditional()) ++c[NPUSIM_KC_BRANCH];
      return;
    case Instruction::Switch: {
      // A binary search over the cases.
      unsigned n = cast<SwitchInst>(i).getNumCases() + 1, steps = 0;
      while ((1u << steps) < n) ++steps;
      c[NPUSIM_KC_BRANCH] += std::max(1u, steps);
      return;
    }
    case Instruction::IndirectBr: ++c[NPUSIM_KC_BRANCH]; return;
    case Instruction::Load: c[load_cat(cast<LoadInst>(i).getPointerOperand())] += vector_ops(t); return;
    case Instruction::Store: {
      const auto& s = cast<StoreInst>(i);
      c[store_cat(s.getPointerOperand())] += vector_ops(s.getValueOperand()->getType());
      return;
    }
    case Instruction::AtomicRMW: case Instruction::AtomicCmpXchg: {
      const Value* p = isa<AtomicRMWInst>(i) ? cast<AtomicRMWInst>(i).getPointerOperand()
                                              : cast<AtomicCmpXchgInst>(i).getPointerOperand();
      ++c[load_cat(p)];
      ++c[store_cat(p)];
      ++c[NPUSIM_KC_INT];
      return;
    }
    case Instruction::FAdd: case Instruction::FSub: case Instruction::FNeg: fp(c, NPUSIM_KC_FP_ADD, t); return;
    case Instruction::FMul: fp(c, NPUSIM_KC_FP_MUL, t); return;
    case Instruction::FDiv: fp(c, NPUSIM_KC_FP_DIV, t); return;
    case Instruction::FRem: c[NPUSIM_KC_MATH_OTHER] += vector_ops(t); return;
    case Instruction::FCmp: fp(c, NPUSIM_KC_FP_CMP, i.getOperand(0)->getType()); return;
    case Instruction::FPToSI: case Instruction::FPToUI: case Instruction::FPTrunc:
      c[is_double(i.getOperand(0)->getType()) ? NPUSIM_KC_FP64 : NPUSIM_KC_FP_CONVERT] +=
          std::max(vector_ops(t), vector_ops(i.getOperand(0)->getType()));
      return;
    case Instruction::SIToFP: case Instruction::UIToFP: case Instruction::FPExt:
      c[is_double(t) ? NPUSIM_KC_FP64 : NPUSIM_KC_FP_CONVERT] +=
          std::max(vector_ops(t), vector_ops(i.getOperand(0)->getType()));
      return;
    case Instruction::Mul: c[NPUSIM_KC_INT_MUL] += vector_ops(t); return;
    case Instruction::UDiv: case Instruction::SDiv: case Instruction::URem: case Instruction::SRem:
      c[NPUSIM_KC_INT_DIV] += vector_ops(t); return;
    case Instruction::ICmp: c[NPUSIM_KC_INT] += vector_ops(i.getOperand(0)->getType()); return;
    case Instruction::ZExt: case Instruction::SExt:
      c[NPUSIM_KC_INT] += std::max(vector_ops(t), vector_ops(i.getOperand(0)->getType()));
      return;
    case Instruction::ExtractElement: case Instruction::InsertElement: case Instruction::ShuffleVector:
      c[NPUSIM_KC_SHUFFLE] += std::max(vector_ops(t), vector_ops(i.getOperand(0)->getType()));
      return;
    case Instruction::Call: case Instruction::Invoke: case Instruction::CallBr: {
      const auto& cb = cast<CallBase>(i);
      if (const auto* ii = dyn_cast<IntrinsicInst>(&cb)) {
        count_intrinsic(*ii, c, dyn);
        return;
      }
      if (const Function* f = cb.getCalledFunction()) {
        LibFunc lf;
        if (f->isDeclaration() && tli.getLibFunc(*f, lf)) {
          const int m = math_category(f->getName());
          if (m >= 0) {
            Type* ty = t->isVoidTy() && cb.arg_size() > 0 ? cb.getArgOperand(0)->getType() : t;
            // A math function is counted in its kind at either precision; sqrt, fabs and the
            // rounding functions are fp operations (fp64 in double precision).
            if (m >= NPUSIM_KC_MATH_EXP && m <= NPUSIM_KC_MATH_OTHER) c[m] += vector_ops(ty);
            else fp(c, m, ty);
            return;
          }
        }
      }
      ++c[NPUSIM_KC_CALL];
      return;
    }
    default:
      // Integer arithmetic, logic, shifts, selects and anything else: one operation per vector.
      c[NPUSIM_KC_INT] += vector_ops(t->isVoidTy() ? i.getOperand(0)->getType() : t);
      return;
  }
}

BlockCost block_cost(BasicBlock& bb, const TargetLibraryInfo& tli) {
  BlockCost b;
  for (const Instruction& i : bb) count_instruction(i, tli, b.counts, b.dynamic);
  return b;
}

unsigned default_latency(int category) {
  switch (category) {
    case NPUSIM_KC_FP_ADD: case NPUSIM_KC_FP_MUL: case NPUSIM_KC_FP_FMA: return 4;
    case NPUSIM_KC_FP_DIV: case NPUSIM_KC_FP_SQRT: return 16;
    case NPUSIM_KC_INT_MUL: return 2;
    case NPUSIM_KC_INT_DIV: return 16;
    case NPUSIM_KC_FP64: return 20;
    case NPUSIM_KC_TCM_LOAD: case NPUSIM_KC_STACK_LOAD: return 3;
    case NPUSIM_KC_MATH_EXP: case NPUSIM_KC_MATH_LOG: return 20;
    case NPUSIM_KC_MATH_TRIG: return 25;
    case NPUSIM_KC_MATH_HYP: return 30;
    case NPUSIM_KC_MATH_POW: return 40;
    case NPUSIM_KC_MATH_OTHER: return 30;
    case NPUSIM_KC_CALL: return 4;
    default: return 1;
  }
}

namespace {

// The category of an instruction on a chain: the one with the longest latency among those it
// counts (-1: none, e.g. a bitcast).
int chain_category(const Instruction& i, const TargetLibraryInfo& tli) {
  Counts c{};
  std::vector<DynamicMem> dyn;
  count_instruction(i, tli, c, dyn);
  int best = -1;
  for (int k = 0; k < NPUSIM_KC_COUNT; ++k)
    if (c[k] != 0 && (best < 0 || default_latency(k) > default_latency(best))) best = k;
  return best;
}

// The longest chain (in default latency) from `phi` to `i` inside loop `l`, through data
// dependencies of one iteration; -1 if `i` does not depend on `phi`. Other loops' header phis end
// a chain (their recurrence is theirs); `from` records the operand the chain came through.
struct ChainSearch {
  Loop& l;
  LoopInfo& li;
  const TargetLibraryInfo& tli;
  PHINode* phi;
  std::map<const Instruction*, long> dist;
  std::map<const Instruction*, const Instruction*> from;

  long longest(const Instruction* i) {
    if (i == phi) return 0;
    if (!l.contains(i)) return -1;
    if (auto* p = dyn_cast<PHINode>(i))
      if (li.isLoopHeader(const_cast<BasicBlock*>(p->getParent()))) return -1;
    auto it = dist.find(i);
    if (it != dist.end()) return it->second;
    dist[i] = -1;  // an irreducible cycle ends here
    long best = -1;
    const Instruction* via = nullptr;
    for (const Use& u : i->operands()) {
      const auto* o = dyn_cast<Instruction>(u.get());
      if (o == nullptr) continue;
      const long d = longest(o);
      if (d > best) {
        best = d;
        via = o;
      }
    }
    if (best >= 0) {
      const int k = isa<PHINode>(i) ? -1 : chain_category(*i, tli);
      best += k < 0 ? 0 : default_latency(k);
      from[i] = via;
    }
    dist[i] = best;
    return best;
  }
};

}  // namespace

std::vector<LoopChain> loop_chains(Function& f, LoopInfo& li, DominatorTree& dt,
                                   const TargetLibraryInfo& tli, const std::vector<BasicBlock*>& blocks,
                                   const std::vector<BlockCost>& costs) {
  (void)f;
  std::map<const BasicBlock*, size_t> index;
  for (size_t b = 0; b < blocks.size(); ++b) index[blocks[b]] = b;
  std::vector<LoopChain> out;
  for (Loop* l : li.getLoopsInPreorder()) {
    BasicBlock* latch = l->getLoopLatch();
    if (latch == nullptr) continue;
    long best = 0;
    Counts chain{};
    for (PHINode& phi : l->getHeader()->phis()) {
      auto* v = dyn_cast<Instruction>(phi.getIncomingValueForBlock(latch));
      if (v == nullptr) continue;
      ChainSearch s{*l, li, tli, &phi, {}, {}};
      const long d = s.longest(v);
      if (d <= best) continue;
      best = d;
      chain = Counts{};
      for (const Instruction* i = v; i != nullptr && i != &phi;) {
        const int k = isa<PHINode>(i) ? -1 : chain_category(*i, tli);
        if (k >= 0) ++chain[k];
        auto it = s.from.find(i);
        i = it == s.from.end() ? nullptr : it->second;
      }
    }
    // An induction step alone (latency 1) never exceeds an iteration.
    if (best < 2) continue;
    LoopChain lc;
    lc.latch = latch;
    lc.chain = chain;
    for (BasicBlock* bb : l->blocks())
      if (dt.dominates(bb, latch)) {
        const auto it = index.find(bb);
        if (it == index.end()) continue;
        for (int k = 0; k < NPUSIM_KC_COUNT; ++k) lc.always[k] += costs[it->second].counts[k];
      }
    out.push_back(lc);
  }
  return out;
}

}  // namespace npusim::cost_pass
