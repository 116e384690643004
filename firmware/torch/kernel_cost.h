// The runtime side of kernel code timing (kernel_cost_abi.h): the registry of annotated modules,
// their pricing with the profile's kernel_cost parameters when a run starts, and the charge of
// the cycles annotated code ran to the core that ran it. Inside the torch runtime only.
#pragma once

#include <string>

#include "firmware/kernel_cost_config.h"

namespace npusim::torchrt {

struct CoreCtx;

// Prices every registered module for the run about to start: block costs from the parameters
// (with the stack's costs replaced by hbm_stack_access_cycles when the stack is in HBM), and the
// limit at which annotated code calls the safepoint (about one core quantum of compute).
// Throws std::invalid_argument naming the source of a module built by another version of the
// pass.
void price_kernel_code(const fw::KernelCostConfig& cost, bool hbm_stack, uint64_t quantum_cycles);

// Whether `fn` (a kernel) was compiled with the kernel-cost pass; if so, `source` is set to its
// translation unit's source file.
bool kernel_code_timed(const void* fn, std::string* source = nullptr);

// The cycles annotated code ran since the last drain, drained and charged to core `c`: its
// compute to the compute time, its TCM and stack accesses to the TCM/stack access time. Every
// runtime entry that may advance time calls it first, so a core's own code is charged before
// anything the entry does (and before any wait lets another core run).
void charge_kernel_code(CoreCtx& c);

// Forgets what annotated code ran outside any core (a shape function, host code): a kernel starts
// from zero.
void reset_kernel_code();

}  // namespace npusim::torchrt
