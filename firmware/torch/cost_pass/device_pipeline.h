// The kernel's code as the device compiler would leave it: the module, whatever optimisation
// level it was compiled with, optimised by LLVM's -O2 pipeline for a model of the GPSIMD core
// (512-bit vectors, no host target), so the cost counted afterwards depends neither on the host
// nor on the user's -O flag.
#pragma once

#include "llvm/IR/Module.h"

namespace npusim::cost_pass {

// Makes a module compiled at -O0 and one compiled at -O2 the same input to the device pipeline:
// the -O0 markers (optnone, noinline) go, and so do the frontend's -O2-only additions (type-based
// alias metadata, lifetime markers, available_externally bodies).
void normalise(llvm::Module& m);

// Runs the device pipeline on the module (after normalise).
void run_device_pipeline(llvm::Module& m);

// The light clean-up after the counting code is inserted: the function-local sums into
// registers, the cost-table loads out of loops (the host's own pipeline may not run, at -O0).
void run_cleanup(llvm::Module& m);

}  // namespace npusim::cost_pass
