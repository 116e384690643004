// The counting code and the cost table of a module (kernel_cost_abi.h): each block adds its
// cost to a function-local sum, which goes into npusim_kernel_cycles before every call and at
// returns; loop headers and returns compare with npusim_kernel_limit and call the safepoint past
// it. The module's counts are registered with the runtime by a static constructor.
#pragma once

#include "llvm/IR/Module.h"

namespace npusim::cost_pass {

// Annotates every function the module defines; returns the number of blocks counted.
unsigned annotate(llvm::Module& m);

}  // namespace npusim::cost_pass
