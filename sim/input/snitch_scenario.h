// Snitch-cluster scenarios (platform: snitch-cluster): every core of every cluster runs a
// program of steps, the same one (SPMD, with its core and cluster index in expressions) or its
// own (`cores:`). docs/snitch-cluster.md is the reference.
//
// Integer expressions ("in + (t % 2) * 16KiB + core * 2KiB") are compiled at load time into a
// small stack program over per-core variable slots; every name must be bound by an earlier
// step (or be a built-in), so a typo is an InputError naming file, line and column.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "sim/input/scenario.h"

namespace npusim::sim::snitch {

// Built-in variables, each core's own values.
enum Builtin : uint32_t {
  kCore,          // core index in the cluster (compute cores 0..n-1, the DM core n)
  kCluster,       // cluster index
  kComputeCores,  // compute cores per cluster
  kClusters,      // clusters in the system
  kIsDm,          // 1 on the DM core
  kCoreNum,       // cores per cluster (compute + DM)
  kTcdmBase,      // this cluster's TCDM base
  kL1End,         // the L1 heap end of snrt_l1_init
  kL3End,         // SNRT_L3_END_ADDR
  kClusterOffset, // SNRT_CLUSTER_OFFSET
  kBuiltinCount
};

struct Expr {
  enum Code : uint8_t { kImm, kVar, kAdd, kSub, kMul, kDiv, kMod, kEq, kNe, kLt, kLe, kGt, kGe,
                        kAnd, kOr, kNot, kNeg };
  struct Op {
    Code code;
    uint32_t slot;
    uint64_t imm;
  };
  std::vector<Op> ops;  // postfix
  std::string text;
  Where at;
  bool present = false;
  bool constant() const { return ops.size() == 1 && ops[0].code == kImm; }
};

struct Step {
  enum Kind {
    kL1Alloc,        // l1_alloc: {size, align, as}          snrt_l1_alloc_cluster_local
    kL1AllocLocal,   // l1_alloc_core_local: {size, align, as} snrt_l1_alloc_compute_core_local
    kL3Alloc,        // l3_alloc: {size, align, as}          snrt_l3_alloc_v2
    kUpdateNext,     // l1_update_next: EXPR                 snrt_l1_update_next_v2
    kL1Next,         // l1_next: NAME                        snrt_l1_next_v2
    kLet,            // let: {name: EXPR, ...}
    kRemotePtr,      // remote_l1_ptr: {ptr, src, dst, as}
    kCoreLocalPtr,   // core_local_ptr: {ptr, core, size, as}
    kStream,         // stream / load / store: element loop of loads, compute, stores
    kCheck,          // check: {addr, count, stride, bytes, value}
    kCompute,        // compute: CYCLES
    kBarrier,        // barrier: cluster | global
    kDma,            // dma: {src, dst, bytes, rows, src_stride, dst_stride}
    kDmaWait,        // dma_wait
    kLoop,           // loop: {count, var, body}
    kWhen,           // when: {if, then, else}
    kMarker,         // marker: TEXT
    kWait,           // wait: DURATION
  } kind;
  Where at;
  std::string text;                       // marker text, the step's name for traces
  uint32_t as = 0;                        // slot bound by the step
  bool global = false;                    // barrier: global
  bool has_var = false;                   // loop: var given
  double wait_ns = 0;
  Expr a, b, c, d;                        // operands (per kind, see snitch_scenario.cpp)
  Expr count, stride, bytes, value, compute;
  std::vector<Expr> loads, stores;
  std::vector<std::pair<uint32_t, Expr>> lets;
  std::vector<Step> body, other;          // loop/when-then, when-else
};

// An RV32 program for some cores (docs/snitch-programs.md).
struct Binary {
  std::string elf;                // path as resolved (relative to the scenario's folder)
  std::vector<std::string> args;  // argv[1..]
  std::string on = "all";         // all | compute | dm | cluster N | core names, comma separated
  uint64_t max_cycles = 0;        // 0: the default budget
  Where at;
};

struct Scenario : ScenarioHead {
  Scenario() { platform = "snitch-cluster"; }
  std::vector<Binary> binaries;     // instead of program/cores
  std::vector<std::pair<std::string, Where>> output;  // lines the programs must print
  std::string on_trap = "stop_core";  // stop_core | record
  std::vector<Step> program;          // every core runs it first
  // `cores:` steps by selector ("compute", "dm", or a core index "3"): a core then runs the
  // steps of its index, else of its role, if any.
  std::map<std::string, std::vector<Step>> cores;
  std::vector<std::string> slots;  // slot -> name (built-ins first)
};

// Does the scenario name a snitch platform? (looks at `platform:` only; no other checks).
std::string platform_of(const std::string& text);

Scenario parse(const std::string& text, const std::string& file);
Scenario load_file(const std::string& path);

}  // namespace npusim::sim::snitch
