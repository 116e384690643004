// What a block of optimised kernel code executes, by cost category (kernel_cost_abi.h), and the
// recurrences of its loops. Pure analysis: nothing in the module changes.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IntrinsicInst.h"

#include "firmware/torch/kernel_cost_abi.h"

namespace npusim::cost_pass {

using Counts = std::array<uint32_t, NPUSIM_KC_COUNT>;

// The core's vector width (public Neuron architecture pages: each GPSIMD core is a 512-bit
// vector processor). A vector operation counts once per 512 bits of its widest operand.
constexpr unsigned kVectorBits = 512;

// A memcpy, memmove or memset whose length is only known when it runs: the counting code adds
// its cost per 64-byte chunk (one vector load and store each).
struct DynamicMem {
  llvm::MemIntrinsic* inst;
  int load;   // category of the source (-1: memset)
  int store;  // category of the destination
};

struct BlockCost {
  Counts counts{};
  std::vector<DynamicMem> dynamic;
};

// The category counts of one instruction, added to `c`; a dynamic-length memory intrinsic is
// added to `dyn` instead.
void count_instruction(const llvm::Instruction& i, const llvm::TargetLibraryInfo& tli, Counts& c,
                       std::vector<DynamicMem>& dyn);

BlockCost block_cost(llvm::BasicBlock& bb, const llvm::TargetLibraryInfo& tli);

// The loop-carried dependency chain of a loop with one latch: the longest chain (by the default
// latencies below) from a header phi through the body back to its value from the latch, and what
// every iteration executes. Empty `chain` (all zero) when the loop carries nothing but integer
// steps shorter than the iteration.
struct LoopChain {
  llvm::BasicBlock* latch = nullptr;
  Counts chain{};
  Counts always{};
};
std::vector<LoopChain> loop_chains(llvm::Function& f, llvm::LoopInfo& li, llvm::DominatorTree& dt,
                                   const llvm::TargetLibraryInfo& tli,
                                   const std::vector<llvm::BasicBlock*>& blocks,
                                   const std::vector<BlockCost>& costs);

// The category of a math-library function by its C name (exp, expf, tanh, ...), or -1.
int math_category(llvm::StringRef name);

// The latency used to pick the longest chain (cycles; the profile's kernel_cost.latency values
// price the chain that is picked). Defaults of the neuron-gpsimd profile.
unsigned default_latency(int category);

}  // namespace npusim::cost_pass
