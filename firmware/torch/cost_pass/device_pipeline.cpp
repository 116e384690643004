// The device pipeline (device_pipeline.h).
#include "firmware/torch/cost_pass/device_pipeline.h"

#include <vector>

#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/Analysis/TargetTransformInfoImpl.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Transforms/Scalar/EarlyCSE.h"
#include "llvm/Transforms/Scalar/LICM.h"
#include "llvm/Transforms/Scalar/SimplifyCFG.h"
#include "llvm/Transforms/Utils/Mem2Reg.h"

namespace npusim::cost_pass {

using namespace llvm;

namespace {

// The GPSIMD core as the optimiser sees it: 512-bit vector registers (public Neuron
// architecture pages: "512-bit wide vector processors", 16 fp32 lanes), 32-bit scalars, every
// operation at the generic cost of one. The loop vectoriser then vectorises at 512 bits whatever
// it can prove legal, without interleaving; in-order (non-reassociable) fp reductions stay
// scalar. Nothing of the host's target enters.
class DeviceTTI : public TargetTransformInfoImplCRTPBase<DeviceTTI> {
  using Base = TargetTransformInfoImplCRTPBase<DeviceTTI>;

 public:
  explicit DeviceTTI(const DataLayout& dl) : Base(dl) {}
  unsigned getNumberOfRegisters(unsigned) const { return 32; }
  unsigned getRegisterClassForType(bool vector, Type*) const { return vector ? 1 : 0; }
  TypeSize getRegisterBitWidth(TargetTransformInfo::RegisterKind k) const {
    return TypeSize::getFixed(k == TargetTransformInfo::RGK_FixedWidthVector ? 512 : 32);
  }
  unsigned getMaxInterleaveFactor(unsigned) const { return 1; }
};

}  // namespace

void normalise(Module& m) {
  std::vector<Instruction*> dead;
  for (Function& f : m) {
    if (f.isDeclaration()) continue;
    if (f.hasFnAttribute(Attribute::OptimizeNone)) {
      // -O0: every function is optnone and noinline.
      f.removeFnAttr(Attribute::OptimizeNone);
      f.removeFnAttr(Attribute::NoInline);
    }
    if (f.hasAvailableExternallyLinkage() && !f.hasFnAttribute(Attribute::AlwaysInline)) {
      // An inline body of a function defined elsewhere that the frontend emits at -O1 and
      // above only (at -O0 only always_inline ones): a call, as at -O0.
      f.deleteBody();
      continue;
    }
    for (BasicBlock& bb : f)
      for (Instruction& i : bb) {
        i.setMetadata(LLVMContext::MD_tbaa, nullptr);
        i.setMetadata(LLVMContext::MD_tbaa_struct, nullptr);
        if (auto* ii = dyn_cast<IntrinsicInst>(&i))
          if (ii->getIntrinsicID() == Intrinsic::lifetime_start || ii->getIntrinsicID() == Intrinsic::lifetime_end)
            dead.push_back(&i);
      }
  }
  for (Instruction* i : dead) i->eraseFromParent();
}

namespace {
struct Managers {
  LoopAnalysisManager lam;
  FunctionAnalysisManager fam;
  CGSCCAnalysisManager cgam;
  ModuleAnalysisManager mam;
  PassBuilder pb;
  explicit Managers(PipelineTuningOptions pto) : pb(nullptr, pto) {
    // The device's cost model, registered before the builder's default (which would be the
    // generic one of a builder without a target: it is not replaced once registered).
    fam.registerPass([] {
      return TargetIRAnalysis([](const Function& f) { return TargetTransformInfo(DeviceTTI(f.getParent()->getDataLayout())); });
    });
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
  }
};
}  // namespace

void run_device_pipeline(Module& m) {
  PipelineTuningOptions pto;
  pto.LoopVectorization = true;
  pto.LoopInterleaving = false;
  pto.SLPVectorization = false;
  pto.LoopUnrolling = true;
  Managers g(pto);
  ModulePassManager mpm = g.pb.buildPerModuleDefaultPipeline(OptimizationLevel::O2);
  mpm.run(m, g.mam);
}

void run_cleanup(Module& m) {
  Managers g{PipelineTuningOptions()};
  FunctionPassManager fpm;
  fpm.addPass(PromotePass());
  fpm.addPass(EarlyCSEPass(true));
  fpm.addPass(createFunctionToLoopPassAdaptor(LICMPass(), /*UseMemorySSA=*/true));
  fpm.addPass(SimplifyCFGPass());
  ModulePassManager mpm;
  mpm.addPass(createModuleToFunctionPassAdaptor(std::move(fpm)));
  mpm.run(m, g.mam);
}

}  // namespace npusim::cost_pass
