// The TCM bounds check (tcm_check.h).
#include "firmware/torch/cost_pass/tcm_check.h"

#include <map>
#include <string>
#include <vector>

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/Support/Path.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

namespace npusim::cost_pass {

using namespace llvm;

namespace {

// One guarded access: `size` bytes (a constant, or `len` when it runs) at `ptr`, before `at`.
struct Access {
  Instruction* at;
  Value* ptr;
  uint64_t size;
  Value* len;  // a memory intrinsic's length (nullptr: `size`)
  bool write;
};

// The pointers the check leaves alone: the kernel's stack (an alloca, as the cost counts it) and
// its static data (a global). Everything else may point into the TCM.
bool may_be_tcm(const Value* ptr) {
  if (ptr->getType()->getPointerAddressSpace() != 0) return false;
  const Value* u = getUnderlyingObject(ptr, 0);
  return !isa<AllocaInst>(u) && !isa<GlobalValue>(u) && !isa<ConstantPointerNull>(u);
}

class Checker {
 public:
  explicit Checker(Module& m)
      : m_(m), ctx_(m.getContext()), dl_(m.getDataLayout()), iptr_(dl_.getIntPtrType(ctx_)),
        i8p_(Type::getInt8PtrTy(ctx_)) {}

  unsigned run() {
    if (m_.getNamedValue("npusim_tcm_check_off") != nullptr) return 0;
    std::vector<Access> all;
    for (Function& f : m_) {
      if (f.isDeclaration() || f.getName().startswith("npusim.")) continue;
      for (BasicBlock& bb : f)
        for (Instruction& i : bb) find(i, all);
    }
    if (all.empty()) return 0;
    block_lo_ = m_.getOrInsertGlobal("npusim_tcm_block_lo", iptr_);
    block_end_ = m_.getOrInsertGlobal("npusim_tcm_block_end", iptr_);
    tcm_lo_ = m_.getOrInsertGlobal("npusim_tcm_lo", iptr_);
    tcm_size_ = m_.getOrInsertGlobal("npusim_tcm_size", iptr_);
    check_ = m_.getOrInsertFunction(
        "npusim_tcm_check",
        FunctionType::get(Type::getVoidTy(ctx_), {i8p_, Type::getInt64Ty(ctx_), Type::getInt32Ty(ctx_), i8p_}, false));
    unlikely_ = MDBuilder(ctx_).createBranchWeights(1, 1u << 20);
    for (const Access& a : all) guard(a);
    return static_cast<unsigned>(all.size());
  }

 private:
  void find(Instruction& i, std::vector<Access>& out) {
    auto add = [&](Value* ptr, Type* t, bool write) {
      if (may_be_tcm(ptr)) out.push_back(Access{&i, ptr, dl_.getTypeStoreSize(t).getFixedSize(), nullptr, write});
    };
    if (auto* l = dyn_cast<LoadInst>(&i)) {
      add(l->getPointerOperand(), l->getType(), false);
    } else if (auto* s = dyn_cast<StoreInst>(&i)) {
      add(s->getPointerOperand(), s->getValueOperand()->getType(), true);
    } else if (auto* r = dyn_cast<AtomicRMWInst>(&i)) {
      add(r->getPointerOperand(), r->getValOperand()->getType(), true);
    } else if (auto* x = dyn_cast<AtomicCmpXchgInst>(&i)) {
      add(x->getPointerOperand(), x->getCompareOperand()->getType(), true);
    } else if (auto* mi = dyn_cast<MemIntrinsic>(&i)) {
      // memcpy, memmove, memset: the whole length, as the kernel asked for it.
      Value* len = mi->getLength();
      if (may_be_tcm(mi->getRawDest())) out.push_back(Access{&i, mi->getRawDest(), 0, len, true});
      if (auto* t = dyn_cast<MemTransferInst>(mi); t && may_be_tcm(t->getRawSource()))
        out.push_back(Access{&i, t->getRawSource(), 0, len, false});
    }
    // Masked loads and stores, gathers and scatters are not checked: a masked-off lane of a
    // vectorised loop's tail may lie past the buffer without being accessed.
  }

  // "file:line" of the access, where the kernel has debug information (nullptr otherwise).
  Value* where(const Instruction& i) {
    const DebugLoc& d = i.getDebugLoc();
    if (!d || d.getLine() == 0) return ConstantPointerNull::get(i8p_);
    const auto* loc = cast<DILocation>(d.getAsMDNode());
    const std::string text = sys::path::filename(loc->getFilename()).str() + ":" + std::to_string(loc->getLine());
    Constant*& g = where_[text];
    if (g == nullptr) {
      auto* v = new GlobalVariable(m_, ArrayType::get(Type::getInt8Ty(ctx_), text.size() + 1), true,
                                   GlobalValue::PrivateLinkage, ConstantDataArray::getString(ctx_, text),
                                   "npusim.tcm.where");
      g = ConstantExpr::getBitCast(v, i8p_);
    }
    return g;
  }

  // ok = the access lies in the cached block, or outside the core's TCM; else the runtime looks.
  void guard(const Access& a) {
    IRBuilder<> b(a.at);
    Value* p = b.CreatePtrToInt(a.ptr, iptr_);
    Value* n = a.len ? b.CreateZExtOrTrunc(a.len, iptr_) : static_cast<Value*>(ConstantInt::get(iptr_, a.size));
    Value* lo = b.CreateLoad(iptr_, block_lo_);
    Value* end = b.CreateLoad(iptr_, block_end_);
    Value* in_block = b.CreateAnd(b.CreateICmpUGE(p, lo), b.CreateICmpULE(b.CreateAdd(p, n), end));
    Value* outside = b.CreateICmpUGE(b.CreateSub(p, b.CreateLoad(iptr_, tcm_lo_)), b.CreateLoad(iptr_, tcm_size_));
    Value* ok = b.CreateOr(in_block, outside);
    Instruction* then = SplitBlockAndInsertIfThen(b.CreateNot(ok), a.at, false, unlikely_);
    b.SetInsertPoint(then);
    b.CreateCall(check_, {b.CreatePointerCast(a.ptr, i8p_), b.CreateZExtOrTrunc(n, Type::getInt64Ty(ctx_)),
                          ConstantInt::get(Type::getInt32Ty(ctx_), a.write ? 1 : 0), where(*a.at)});
  }

  Module& m_;
  LLVMContext& ctx_;
  const DataLayout& dl_;
  IntegerType* iptr_;
  PointerType* i8p_;
  Constant* block_lo_ = nullptr;
  Constant* block_end_ = nullptr;
  Constant* tcm_lo_ = nullptr;
  Constant* tcm_size_ = nullptr;
  FunctionCallee check_;
  MDNode* unlikely_ = nullptr;
  std::map<std::string, Constant*> where_;
};

}  // namespace

unsigned check_tcm_accesses(Module& m) { return Checker(m).run(); }

}  // namespace npusim::cost_pass
