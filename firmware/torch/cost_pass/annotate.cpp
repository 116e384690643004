// The counting code and the cost table (annotate.h, kernel_cost_abi.h).
#include "firmware/torch/cost_pass/annotate.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "llvm/ADT/Triple.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Support/Path.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include "firmware/torch/cost_pass/block_cost.h"

namespace npusim::cost_pass {

using namespace llvm;

namespace {

// Attributes an annotated function can no longer carry: it writes npusim_kernel_cycles and may
// call the safepoint, which may throw (a stop request ends the kernel there).
const Attribute::AttrKind kDropped[] = {
    Attribute::NoUnwind,     Attribute::ReadNone,         Attribute::ReadOnly,
    Attribute::WriteOnly,    Attribute::ArgMemOnly,       Attribute::InaccessibleMemOnly,
    Attribute::InaccessibleMemOrArgMemOnly, Attribute::Speculatable};

// An inline function's body is also compiled into npusim's own (unannotated) code, and the
// linker keeps one copy of each: the kernel's copies get their own hidden names, so the kernel
// runs its annotated copy and npusim its own.
void rename_shared_definitions(Module& m) {
  auto rename = [&m](GlobalValue& g) {
    Comdat* old = g.getComdat();
    g.setName(g.getName() + ".npusim_kc");
    g.setVisibility(GlobalValue::HiddenVisibility);
    if (auto* go = dyn_cast<GlobalObject>(&g); go && old) {
      Comdat* c = m.getOrInsertComdat(g.getName());
      c->setSelectionKind(old->getSelectionKind());
      go->setComdat(c);
    }
  };
  for (Function& f : m)
    if (!f.isDeclaration() && (f.hasLinkOnceODRLinkage() || f.hasWeakODRLinkage())) rename(f);
  for (GlobalAlias& a : m.aliases())
    if ((a.hasLinkOnceODRLinkage() || a.hasWeakODRLinkage()) && isa<Function>(a.getAliaseeObject())) rename(a);
}

struct FunctionPlan {
  Function* f;
  std::vector<BasicBlock*> blocks;
  std::vector<BlockCost> costs;
  std::vector<LoopChain> chains;
  std::set<BasicBlock*> headers;
  uint32_t first_block = 0;
};

bool is_math_call(const CallBase& cb, const TargetLibraryInfo& tli) {
  const Function* f = cb.getCalledFunction();
  LibFunc lf;
  return f != nullptr && f->isDeclaration() && tli.getLibFunc(*f, lf) && math_category(f->getName()) >= 0;
}

class Annotator {
 public:
  explicit Annotator(Module& m)
      : m_(m), ctx_(m.getContext()), i32_(Type::getInt32Ty(ctx_)), i64_(Type::getInt64Ty(ctx_)),
        i8p_(Type::getInt8PtrTy(ctx_)), tlii_(Triple(m.getTargetTriple())) {}

  unsigned run() {
    rename_shared_definitions(m_);
    for (Function& f : m_)
      if (!f.isDeclaration() && !f.hasFnAttribute(Attribute::Naked)) plan(f);
    if (total_blocks_ == 0) return 0;
    make_globals();
    for (auto& p : plans_) instrument(p);
    drop_attributes();
    make_table();
    return total_blocks_;
  }

 private:
  void plan(Function& f) {
    FunctionPlan p;
    p.f = &f;
    p.first_block = total_blocks_;
    TargetLibraryInfo tli(tlii_, &f);
    for (BasicBlock& bb : f) {
      p.blocks.push_back(&bb);
      p.costs.push_back(block_cost(bb, tli));
    }
    DominatorTree dt(f);
    LoopInfo li(dt);
    p.chains = loop_chains(f, li, dt, tli, p.blocks, p.costs);
    for (Loop* l : li.getLoopsInPreorder()) p.headers.insert(l->getHeader());
    total_blocks_ += static_cast<uint32_t>(p.blocks.size());
    plans_.push_back(std::move(p));
  }

  void make_globals() {
    cycles_ = m_.getOrInsertGlobal("npusim_kernel_cycles", i64_);
    limit_ = m_.getOrInsertGlobal("npusim_kernel_limit", i64_);
    safepoint_ = m_.getOrInsertFunction("npusim_kernel_safepoint", FunctionType::get(Type::getVoidTy(ctx_), false));
    auto* bt = ArrayType::get(i64_, total_blocks_);
    block_cost_ = new GlobalVariable(m_, bt, false, GlobalValue::InternalLinkage, ConstantAggregateZero::get(bt),
                                     "npusim.kc.block_cost");
    auto* ut = ArrayType::get(i64_, NPUSIM_KC_COUNT);
    unit_cost_ = new GlobalVariable(m_, ut, false, GlobalValue::InternalLinkage, ConstantAggregateZero::get(ut),
                                    "npusim.kc.unit_cost");
    invariant_ = MDNode::get(ctx_, {});
  }

  // A load of a cost the runtime wrote before any kernel ran: constant while kernels run.
  Value* cost(IRBuilder<>& b, GlobalVariable* table, uint64_t index) {
    Value* p = b.CreateConstInBoundsGEP2_64(table->getValueType(), table, 0, index);
    LoadInst* l = b.CreateLoad(i64_, p, "npusim.kc.cost");
    l->setMetadata(LLVMContext::MD_invariant_load, invariant_);
    return l;
  }
  void add(IRBuilder<>& b, AllocaInst* acc, Value* v) {
    b.CreateStore(b.CreateAdd(b.CreateLoad(i64_, acc), v), acc);
  }
  // The local sum into npusim_kernel_cycles; returns the new total.
  Value* flush(IRBuilder<>& b, AllocaInst* acc) {
    Value* a = b.CreateLoad(i64_, acc);
    Value* t = b.CreateAdd(b.CreateLoad(i64_, cycles_), a);
    b.CreateStore(t, cycles_);
    b.CreateStore(ConstantInt::get(i64_, 0), acc);
    return t;
  }

  void instrument(FunctionPlan& p) {
    Function& f = *p.f;
    TargetLibraryInfo tli(tlii_, &f);
    // What to instrument, found before anything moves.
    std::vector<CallBase*> calls;
    std::vector<Instruction*> exits;
    std::vector<DynamicMem> dynamic;
    for (size_t k = 0; k < p.blocks.size(); ++k) {
      for (const DynamicMem& d : p.costs[k].dynamic) dynamic.push_back(d);
      for (Instruction& i : *p.blocks[k]) {
        if (auto* cb = dyn_cast<CallBase>(&i)) {
          if (isa<IntrinsicInst>(cb) || cb->isInlineAsm() || is_math_call(*cb, tli)) continue;
          calls.push_back(cb);
        } else if (isa<ReturnInst>(i) || isa<ResumeInst>(i)) {
          exits.push_back(&i);
        }
      }
    }
    BasicBlock& entry = f.getEntryBlock();
    IRBuilder<> b(&*entry.getFirstInsertionPt());
    AllocaInst* acc = b.CreateAlloca(i64_, nullptr, "npusim.kc.acc");
    b.CreateStore(ConstantInt::get(i64_, 0), acc);
    LoadInst* lim = b.CreateLoad(i64_, limit_, "npusim.kc.limit");
    lim->setMetadata(LLVMContext::MD_invariant_load, invariant_);
    Instruction* entry_point = lim->getNextNode();

    for (size_t k = 0; k < p.blocks.size(); ++k) {
      BasicBlock* bb = p.blocks[k];
      auto ip = bb == &entry ? entry_point->getIterator() : bb->getFirstInsertionPt();
      if (ip == bb->end()) continue;  // a catchswitch: no code of its own
      b.SetInsertPoint(bb, ip);
      add(b, acc, cost(b, block_cost_, p.first_block + k));
      if (p.headers.count(bb)) {
        // Past the limit inside a loop: the sum goes out and the safepoint runs.
        Value* a = b.CreateLoad(i64_, acc);
        Instruction* then = SplitBlockAndInsertIfThen(b.CreateICmpUGE(a, lim), &*b.GetInsertPoint(), false);
        b.SetInsertPoint(then);
        flush(b, acc);
        b.CreateCall(safepoint_);
      }
    }
    for (const DynamicMem& d : dynamic) {
      b.SetInsertPoint(d.inst);
      Value* len = b.CreateZExtOrTrunc(d.inst->getLength(), i64_);
      Value* chunks = b.CreateLShr(b.CreateAdd(len, ConstantInt::get(i64_, 63)), 6);
      Value* unit = cost(b, unit_cost_, static_cast<uint64_t>(d.store));
      if (d.load >= 0) unit = b.CreateAdd(unit, cost(b, unit_cost_, static_cast<uint64_t>(d.load)));
      add(b, acc, b.CreateMul(chunks, unit));
    }
    for (CallBase* cb : calls) {
      b.SetInsertPoint(cb);
      flush(b, acc);
    }
    for (Instruction* x : exits) {
      if (auto* prev = dyn_cast_or_null<CallInst>(x->getPrevNode()); prev && prev->isMustTailCall()) continue;
      b.SetInsertPoint(x);
      Value* total = flush(b, acc);
      if (isa<ResumeInst>(x)) continue;  // unwinding: no safepoint
      Instruction* then = SplitBlockAndInsertIfThen(b.CreateICmpUGE(total, lim), x, false);
      b.SetInsertPoint(then);
      b.CreateCall(safepoint_);
    }
  }

  void drop_attributes() {
    std::set<Function*> annotated;
    for (auto& p : plans_) annotated.insert(p.f);
    for (Function* f : annotated) {
      for (auto k : kDropped) f->removeFnAttr(k);
      for (BasicBlock& bb : *f)
        for (Instruction& i : bb)
          if (auto* cb = dyn_cast<CallBase>(&i))
            if (annotated.count(cb->getCalledFunction()) || cb->getCalledFunction() == nullptr)
              for (auto k : kDropped) cb->removeFnAttr(k);
    }
  }

  Constant* i32c(uint64_t v) { return ConstantInt::get(i32_, v); }
  Constant* counts_array(const Counts& c, const std::string& name) {
    std::vector<Constant*> v;
    for (uint32_t x : c) v.push_back(i32c(x));
    auto* t = ArrayType::get(i32_, v.size());
    auto* g = new GlobalVariable(m_, t, true, GlobalValue::PrivateLinkage, ConstantArray::get(t, v), name);
    return ConstantExpr::getBitCast(g, i32_->getPointerTo());
  }

  void make_table() {
    // The counts, blocks x categories.
    std::vector<Constant*> counts;
    std::vector<Constant*> loops;
    auto* loop_t = StructType::create(ctx_, {i32_, i32_, i32_->getPointerTo(), i32_->getPointerTo()}, "npusim_kc_loop");
    for (auto& p : plans_) {
      for (const auto& bc : p.costs)
        for (uint32_t x : bc.counts) counts.push_back(i32c(x));
      std::map<const BasicBlock*, uint32_t> index;
      for (size_t k = 0; k < p.blocks.size(); ++k) index[p.blocks[k]] = p.first_block + static_cast<uint32_t>(k);
      for (const auto& lc : p.chains)
        loops.push_back(ConstantStruct::get(loop_t, {i32c(index.at(lc.latch)), i32c(0),
                                                     counts_array(lc.chain, "npusim.kc.chain"),
                                                     counts_array(lc.always, "npusim.kc.always")}));
    }
    auto* ct = ArrayType::get(i32_, counts.size());
    auto* counts_g = new GlobalVariable(m_, ct, true, GlobalValue::PrivateLinkage, ConstantArray::get(ct, counts),
                                        "npusim.kc.counts");
    auto* lt = ArrayType::get(loop_t, loops.size());
    auto* loops_g = new GlobalVariable(m_, lt, true, GlobalValue::PrivateLinkage, ConstantArray::get(lt, loops),
                                       "npusim.kc.loops");
    // The kernels: every external function defined here.
    std::vector<Constant*> fns;
    for (auto& p : plans_)
      if (p.f->hasExternalLinkage()) fns.push_back(ConstantExpr::getBitCast(p.f, i8p_));
    auto* ft = ArrayType::get(i8p_, fns.size());
    auto* fns_g = new GlobalVariable(m_, ft, true, GlobalValue::PrivateLinkage, ConstantArray::get(ft, fns),
                                     "npusim.kc.functions");
    // The source file's name (not its directory: the same kernel reports the same name wherever it
    // was built).
    const std::string file = sys::path::filename(m_.getSourceFileName()).str();
    Constant* source = ConstantExpr::getBitCast(
        new GlobalVariable(m_, ArrayType::get(Type::getInt8Ty(ctx_), file.size() + 1), true,
                           GlobalValue::PrivateLinkage, ConstantDataArray::getString(ctx_, file), "npusim.kc.source"),
        i8p_);
    auto* module_t = StructType::create(
        ctx_,
        {i32_, i32_, i8p_, i32_, i32_, i32_, i32_, i32_->getPointerTo(), loop_t->getPointerTo(),
         i8p_->getPointerTo(), i64_->getPointerTo(), i64_->getPointerTo(), i8p_},
        "npusim_kc_module");
    auto first = [](GlobalVariable* g, Type* elem) {
      return ConstantExpr::getBitCast(ConstantExpr::getInBoundsGetElementPtr(
                                          g->getValueType(), g, ArrayRef<Constant*>{
                                              ConstantInt::get(Type::getInt64Ty(g->getContext()), 0),
                                              ConstantInt::get(Type::getInt64Ty(g->getContext()), 0)}),
                                      elem->getPointerTo());
    };
    auto* module_g = new GlobalVariable(
        m_, module_t, false, GlobalValue::InternalLinkage,
        ConstantStruct::get(module_t, {i32c(NPUSIM_KC_ABI_VERSION), i32c(NPUSIM_KC_COUNT), source,
                                       i32c(total_blocks_), i32c(loops.size()), i32c(fns.size()), i32c(0),
                                       first(counts_g, i32_), first(loops_g, loop_t), first(fns_g, i8p_),
                                       first(block_cost_, i64_), first(unit_cost_, i64_),
                                       ConstantPointerNull::get(i8p_)}),
        "npusim.kc.module");
    // Registered when the library loads.
    FunctionCallee reg = m_.getOrInsertFunction("npusim_kernel_cost_register",
                                                FunctionType::get(Type::getVoidTy(ctx_), {i8p_}, false));
    Function* ctor = Function::Create(FunctionType::get(Type::getVoidTy(ctx_), false), GlobalValue::InternalLinkage,
                                      "npusim.kc.register", m_);
    ctor->addFnAttr(Attribute::NoUnwind);
    IRBuilder<> b(BasicBlock::Create(ctx_, "entry", ctor));
    b.CreateCall(reg, {ConstantExpr::getBitCast(module_g, i8p_)});
    b.CreateRetVoid();
    appendToGlobalCtors(m_, ctor, 65535);
  }

  Module& m_;
  LLVMContext& ctx_;
  Type* i32_;
  Type* i64_;
  PointerType* i8p_;
  TargetLibraryInfoImpl tlii_;
  std::vector<FunctionPlan> plans_;
  uint32_t total_blocks_ = 0;
  Constant* cycles_ = nullptr;
  Constant* limit_ = nullptr;
  FunctionCallee safepoint_;
  GlobalVariable* block_cost_ = nullptr;
  GlobalVariable* unit_cost_ = nullptr;
  MDNode* invariant_ = nullptr;
};

}  // namespace

unsigned annotate(Module& m) { return Annotator(m).run(); }

}  // namespace npusim::cost_pass
