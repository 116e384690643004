// The TCM bounds check (kernel_cost_abi.h, "TCM bounds"): every load and store the pass counts
// as a TCM access (its pointer is neither the stack's nor a global's) is guarded by an inline
// test against the range of the core's TCM and the last tcm_malloc block hit; outside that block
// but inside the TCM, npusim_tcm_check() decides, and faults an access outside every live block.
// A module that defines npusim_tcm_check_off (-DNPUSIM_TCM_CHECK=0, <torch/torch.h>) is left
// unchecked.
#pragma once

#include "llvm/IR/Module.h"

namespace npusim::cost_pass {

// Guards the module's TCM accesses; returns how many.
unsigned check_tcm_accesses(llvm::Module& m);

}  // namespace npusim::cost_pass
