/* The interface between annotated kernel code and the torch runtime (docs/custom-ops.md,
 * "What a kernel's own code costs"). The npusim kernel-cost pass (firmware/torch/cost_pass)
 * compiles a kernel's code at the device's optimisation level, counts for every basic block
 * what it executes by category, and emits
 *   - one npusim_kc_module per translation unit: the counts, registered with the runtime by a
 *     static constructor (npusim_kernel_cost_register);
 *   - counting code: each block adds its cost, read from the module's block_cost table, to a
 *     function-local sum, which is added to npusim_kernel_cycles before every call and at
 *     returns; at loop headers and returns the sum is compared with npusim_kernel_limit and,
 *     past it, npusim_kernel_safepoint() runs.
 * The runtime turns the counts into costs when a run starts, from the profile's kernel_cost
 * parameters (firmware/torch/kernel_cost.cpp), so one compiled kernel answers to every profile.
 * Plain C, included by the pass (built against LLVM) and by the runtime. */
#ifndef NPUSIM_KERNEL_COST_ABI_H
#define NPUSIM_KERNEL_COST_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped when the layout of npusim_kc_module or the category list changes: the runtime refuses
 * a module of another version with a message asking to rebuild the kernel. */
#define NPUSIM_KC_ABI_VERSION 1u

/* What a block executes, by category. Vector operations count once per 512 bits of their
 * widest operand (the core's vector width: 16 fp32, 32 16-bit or 64 8-bit lanes). The compute
 * categories are charged to the core's compute time, the memory ones to its TCM/stack access
 * time. The profile names each one (kernel_cost.<name>). */
#define NPUSIM_KC_CATEGORIES(X)                                                                   \
  X(INT, "int")               /* integer add, logic, shift, compare, select, extension */        \
  X(INT_MUL, "int_mul")       /* integer multiply */                                              \
  X(INT_DIV, "int_div")       /* integer divide and remainder */                                  \
  X(FP_ADD, "fp_add")         /* fp32/fp16 add, subtract, negate */                                \
  X(FP_MUL, "fp_mul")         /* fp32/fp16 multiply */                                             \
  X(FP_FMA, "fp_fma")         /* fused or contracted multiply-add */                               \
  X(FP_DIV, "fp_div")         /* fp32/fp16 divide */                                               \
  X(FP_SQRT, "fp_sqrt")       /* square root */                                                    \
  X(FP_CMP, "fp_cmp")         /* compare, min, max, abs, copysign */                               \
  X(FP_CONVERT, "fp_convert") /* int <-> fp, precision change, rounding */                        \
  X(FP64, "fp64")             /* any double-precision arithmetic operation */                     \
  X(MATH_EXP, "math_exp")     /* exp, exp2, expm1 */                                               \
  X(MATH_LOG, "math_log")     /* log, log2, log10, log1p */                                        \
  X(MATH_TRIG, "math_trig")   /* sin, cos, tan and their inverses */                               \
  X(MATH_HYP, "math_hyp")     /* tanh, sinh, cosh and their inverses */                            \
  X(MATH_POW, "math_pow")     /* pow, cbrt, hypot */                                               \
  X(MATH_OTHER, "math_other") /* every other math-library call (erf, fmod, ...) */                \
  X(SHUFFLE, "shuffle")       /* vector lane moves: shuffle, insert, extract */                   \
  X(BRANCH, "branch")         /* conditional branch, switch, indirect branch */                   \
  X(CALL, "call")             /* a call and its return, the caller's side */                      \
  X(TCM_LOAD, "tcm_load")     /* a load from memory other than the stack (TCM) */                 \
  X(TCM_STORE, "tcm_store")   /* a store to memory other than the stack (TCM) */                  \
  X(STACK_LOAD, "stack_load") /* a load from the kernel's stack */                                \
  X(STACK_STORE, "stack_store") /* a store to the kernel's stack */

enum npusim_kc_category {
#define NPUSIM_KC_ENUM(id, name) NPUSIM_KC_##id,
  NPUSIM_KC_CATEGORIES(NPUSIM_KC_ENUM)
#undef NPUSIM_KC_ENUM
  NPUSIM_KC_COUNT
};
/* The first memory category: the ones from here on are charged as TCM/stack access time. */
#define NPUSIM_KC_FIRST_MEMORY NPUSIM_KC_TCM_LOAD

/* Costs are fixed point: NPUSIM_KC_UNIT_SHIFT fractional bits of a cycle. A block's cost packs
 * its compute part above bit NPUSIM_KC_MEMORY_BITS and its memory part below, so one add
 * accumulates both; the runtime keeps the memory part from carrying into the compute part
 * (every block costs at least one compute unit, and the limit bounds the blocks between two
 * drains of npusim_kernel_cycles). */
#define NPUSIM_KC_UNIT_SHIFT 6u
#define NPUSIM_KC_MEMORY_BITS 40u

/* A loop whose back edge carries a dependency chain (a recurrence): per iteration it costs at
 * least the latency of that chain. `chain` counts the operations on the longest chain by
 * category; `always` counts what every iteration executes (the blocks that dominate the
 * latch). The runtime adds max(0, latency(chain) - cost(always)) to the latch block. */
typedef struct npusim_kc_loop {
  uint32_t latch;         /* block index */
  uint32_t reserved;
  const uint32_t* chain;  /* NPUSIM_KC_COUNT counts */
  const uint32_t* always; /* NPUSIM_KC_COUNT counts */
} npusim_kc_loop;

typedef struct npusim_kc_module {
  uint32_t abi_version; /* NPUSIM_KC_ABI_VERSION */
  uint32_t categories;  /* NPUSIM_KC_COUNT */
  const char* source;   /* the translation unit's source file */
  uint32_t blocks, loops, functions, reserved;
  const uint32_t* counts;     /* blocks x categories */
  const npusim_kc_loop* loop; /* loops */
  void* const* function;      /* the external functions the module defines (its kernels) */
  uint64_t* block_cost;       /* blocks: packed cost, written by the runtime */
  uint64_t* unit_cost;        /* categories: packed cost of one operation (memcpy, memset) */
  struct npusim_kc_module* next; /* the runtime's list */
} npusim_kc_module;

/* The runtime (firmware/torch/kernel_cost.cpp). */
void npusim_kernel_cost_register(npusim_kc_module* module);
void npusim_kernel_safepoint(void);
extern uint64_t npusim_kernel_cycles; /* packed cost run since the runtime last drained it */
extern uint64_t npusim_kernel_limit;  /* past this, annotated code calls the safepoint */

/* The TCM bounds check (the pass's tcm_check.cpp; the runtime's tcm.cpp). Before every load and
 * store the pass counts as a TCM access (a pointer neither of the stack nor of a global), and
 * before memcpy, memmove and memset, annotated code tests the host address p of its `size` bytes:
 *   ok = (p >= npusim_tcm_block_lo && p + size <= npusim_tcm_block_end)   the last block hit
 *     || (p - npusim_tcm_lo >= npusim_tcm_size)                            not the core's TCM
 * and otherwise calls npusim_tcm_check(p, size, write, where), which faults an access outside
 * every live tcm_malloc block of the core's TCM and otherwise caches the block it hit. `where`
 * is "file:line" of the access where the kernel has debug information, else null. The runtime
 * empties the cache and makes every address look like the TCM at each runtime entry (where
 * another core may run), so the first access after it finds the running core's TCM. A module
 * defining npusim_tcm_check_off is not checked. */
extern uintptr_t npusim_tcm_block_lo, npusim_tcm_block_end, npusim_tcm_lo, npusim_tcm_size;
void npusim_tcm_check(const void* p, uint64_t size, uint32_t write, const char* where);

#ifdef __cplusplus
}
#endif

#endif /* NPUSIM_KERNEL_COST_ABI_H */
