// The npusim kernel-cost pass as a clang/LLVM 14 pass plugin:
//   clang++-14 -fpass-plugin=libnpusim_kernel_cost.so -c kernel.cpp
// At the start of the optimisation pipeline (at every -O level) it compiles the module at the
// device's level (device_pipeline.h), annotates it with counting code and its cost table
// (annotate.h), guards its TCM accesses with the bounds check (tcm_check.h) and leaves the
// result to the host's own pipeline, which can move but not change what the counting code adds
// up or what the check tests. `opt-14 -load-pass-plugin=... -passes=npusim-kernel-cost`
// runs the same steps.
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"

#include "firmware/torch/cost_pass/annotate.h"
#include "firmware/torch/cost_pass/device_pipeline.h"
#include "firmware/torch/cost_pass/tcm_check.h"

namespace {

struct KernelCostPass : llvm::PassInfoMixin<KernelCostPass> {
  llvm::PreservedAnalyses run(llvm::Module& m, llvm::ModuleAnalysisManager&) {
    npusim::cost_pass::normalise(m);
    npusim::cost_pass::run_device_pipeline(m);
    if (npusim::cost_pass::annotate(m) != 0) {
      npusim::cost_pass::check_tcm_accesses(m);
      npusim::cost_pass::run_cleanup(m);
    }
    return llvm::PreservedAnalyses::none();
  }
  static bool isRequired() { return true; }
};

}  // namespace

extern "C" LLVM_ATTRIBUTE_WEAK llvm::PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "npusim-kernel-cost", "1", [](llvm::PassBuilder& pb) {
            pb.registerPipelineStartEPCallback(
                [](llvm::ModulePassManager& mpm, llvm::OptimizationLevel) { mpm.addPass(KernelCostPass()); });
            pb.registerPipelineParsingCallback(
                [](llvm::StringRef name, llvm::ModulePassManager& mpm, llvm::ArrayRef<llvm::PassBuilder::PipelineElement>) {
                  if (name != "npusim-kernel-cost") return false;
                  mpm.addPass(KernelCostPass());
                  return true;
                });
          }};
}
