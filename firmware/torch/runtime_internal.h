// Inside the torch runtime (firmware/torch/*.cpp only): one op run (Run), the per-core helpers
// every part shares (the current core's context, its time account, library calls, stack checks, DMA
// and port moves, the TCM grant) and the run in progress. Not installed.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "firmware/stop_request.h"
#include "firmware/torch/containment.h"
#include "firmware/torch/kernel_cost.h"
#include "firmware/torch/runtime.h"

namespace npusim::torchrt {

using torch::detail::TensorImpl;
using FF = fw::FirmwareFault;

// --- one op run ---

class Run {
 public:
  const fw::NeuronPlatformConfig* cfg = nullptr;
  GpsimdPlatform* p = nullptr;
  const torch::npusim_op::OpDef* def = nullptr;
  OpSpec spec;
  std::vector<CoreCtx> ctx;
  std::vector<Diagnostic> diags;
  torch::Tensor dst;              // multicore: the output every core writes
  std::vector<torch::Tensor> inputs;  // in HBM
  torch::Tensor output;           // single core: what the kernel returned
  uint64_t arena_next = 0, arena_end = 0;
  long long stack_size = -1;
  uint64_t stack_limit = 0;       // bytes the kernel may use
  bool setup_done = false;
  uint64_t cycle_budget = 0;      // cycles of a kernel on its core (0: none)
  double wall_budget_s = 0;       // the op run's wall time (0: none)
  std::vector<int64_t> shape_sizes;  // what the shape function promised
  torch::ScalarType shape_dtype = torch::kFloat;
  std::string shape_fn;           // the shape function's name, for messages
  std::exception_ptr error;
  int error_core = -1;
  uint64_t tcm_peak = 0;

  uint64_t hbm_alloc(uint64_t bytes, CoreCtx* c, const char* call) {
    const uint64_t a = (arena_next + 63) & ~uint64_t{63};
    if (a + bytes > arena_end) fail(c, FF::kAllocFailure, call, a, fmt::format("{}: a tensor of {} bytes does not fit the HBM tensor arena ({} bytes left; gpsimd.tensor_arena_bytes)", call, bytes, arena_end - a));
    arena_next = a + std::max<uint64_t>(bytes, 1);
    return a;
  }
  [[noreturn]] void fail(CoreCtx* c, FF::Kind k, const std::string& call, uint64_t addr,
                         const std::string& msg) {
    Diagnostic d{"error", FF::kind_name(k), def ? def->kernel : "", call, msg, c ? c->id : -1, addr};
    const std::string full = fmt::format("kernel {} on core {}, call {}{}: {}", d.kernel, d.core, call,
                                         addr ? fmt::format(" at 0x{:x}", addr) : "", msg);
    d.message = full;
    diags.push_back(d);
    throw FF(k, call, full);
  }
  // A kernel fault of a kind of its own (containment.h, KernelFault), with the kernel's frames.
  [[noreturn]] void fail_kernel(CoreCtx* c, const std::string& kind, const std::string& call, uint64_t addr,
                                const std::string& msg, std::vector<std::string> backtrace = {}) {
    Diagnostic d{"error", kind, def ? def->kernel : "", call, "", c ? c->id : -1, addr, backtrace};
    d.message = fmt::format("kernel {} of op {} on core {}, {}: {}", d.kernel, def ? def->name : "", d.core,
                            call == "kernel entry" ? std::string("before any library call") : "last library call " + call,
                            msg);
    diags.push_back(d);
    throw KernelFault(kind, d.message, std::move(backtrace), addr);
  }
  void warn(CoreCtx* c, const std::string& kind, const std::string& call, uint64_t addr,
            const std::string& msg) {
    Diagnostic d{"warning", kind, def ? def->kernel : "", call, "", c ? c->id : -1, addr};
    d.message = fmt::format("kernel {} on core {}, call {}{}: {}", d.kernel, d.core, call,
                            addr ? fmt::format(" at 0x{:x}", addr) : "", msg);
    diags.push_back(d);
  }
  // The host copies around the kernel (core 0's thread): the inputs' data, loaded before any
  // core starts its kernel, and the output read back after the last one ends.
  std::vector<torch::Tensor> input_data;  // host tensors, parallel to `inputs`
  size_t ncores = 1;                      // cores that run the kernel
  bool inputs_loaded = false;
  size_t done_cores = 0;
  sc_core::sc_event loaded, core_done;
  double kernel_start_ns = 0;
  HostCopy in_copy, out_copy;
  torch::Tensor output_host;              // the read-back result
};

extern Run* g_run;  // the run in progress (one per process)
// The context of the core whose SystemC thread is running (nullptr outside a kernel):
// set_core_ctx when a core starts its kernel, forget_core_ctx when its thread ends (its
// process may be freed), clear_core_ctx at the end of the run.
void set_core_ctx(const models::Core* core, CoreCtx* c);
void forget_core_ctx();
void clear_core_ctx();
CoreCtx* current_ctx();

// Bulk data (the library's fills and element-wise ops, the host copies) through `core`'s port
// into HBM, in requests of kPortChunk bytes: timed by the fabric and the HBM controller and
// counted in the HBM statistics while the core runs its program; outside it (a host tensor
// op after the run) the same path by debug transport.
constexpr size_t kPortChunk = 4096;
void port_move(models::Core& core, bool write, uint64_t a, void* p, size_t n);
// port_move's writes of n bytes at `a`, every request's data from `chunk` (kPortChunk bytes,
// or n if less): a fill without a buffer of the whole tensor.
void port_fill(models::Core& core, uint64_t a, const uint8_t* chunk, size_t n);

inline double now_ns(CoreCtx& c) { return c.core->now().to_seconds() * 1e9; }
inline uint64_t now_units(CoreCtx& c) { return c.core->now().value(); }
inline bool records(const CoreCtx& c) { return c.run->spec.record; }

// --- the time account (runtime.h TimeKind) ---
// The core's time is always of one kind (c.kind, since c.since); switching kind adds the
// stretch to it. Inside a library op every kind is kLibrary. The kernel's own code runs in
// kCompute. The kinds add up to the core's time exactly: every unit of time lies in one
// stretch.
inline TimeKind effective_kind(const CoreCtx& c, TimeKind k) { return c.op_depth > 0 ? TimeKind::kLibrary : k; }
inline TimeKind switch_kind(CoreCtx& c, TimeKind k) {
  const uint64_t now = now_units(c);
  c.t.by_kind[index_of(c.kind)] += now - c.since;
  c.since = now;
  const TimeKind old = c.kind;
  c.kind = k;
  return old;
}
// The core's time within a scope is of kind `k`; the kind before it resumes at its end (also
// when an exception leaves the scope).
struct TimeScope {
  CoreCtx& c;
  TimeKind prev;
  TimeScope(CoreCtx& cx, TimeKind k) : c(cx), prev(cx.kind) {
    if (const TimeKind e = effective_kind(cx, k); e != prev) switch_kind(cx, e);
  }
  ~TimeScope() {
    if (c.kind != prev) switch_kind(c, prev);
  }
  TimeScope(const TimeScope&) = delete;
  TimeScope& operator=(const TimeScope&) = delete;
};
// `cycles` of the core's clock of kind `k`: the core computes for them, and the stretch in
// progress (of another kind) is not charged for them. No reading of the core's time.
inline void charge(CoreCtx& c, TimeKind k, uint64_t cycles) {
  if (const TimeKind e = effective_kind(c, k); e != c.kind) {
    const uint64_t units = c.core->period().value() * cycles;
    c.t.by_kind[index_of(e)] += units;
    c.since += units;
  }
  c.core->compute(cycles);
}

// Checks the kernel's stack use (the host stack depth below its entry) at `call`.
void check_stack(CoreCtx& c, const char* call);

// The one safe point of a running kernel, at every library-call entry (and element access):
// ticks the progress line and ends the kernel there after a stop request (SIGINT/SIGTERM), past
// its cycle budget or past the op run's wall-clock budget (a KernelFault). The kernel-code
// safepoint (npusim_kernel_safepoint) calls kernel_safepoint() below.
void kernel_checkpoint(CoreCtx& c, const char* where);
inline bool checkpoint_due(const CoreCtx& c) {
  return fw::stop_requested() || wall_budget_spent() ||
         (c.cycle_end != sc_core::SC_ZERO_TIME && c.core->now() > c.cycle_end);
}
// The same, with the cycle budget looked at only when (count % 1024) == 0: the accessor's
// element loop, where reading the core's time at every element would cost 2 % of a run.
inline bool checkpoint_due_every(const CoreCtx& c, uint64_t count) {
  return fw::stop_requested() || wall_budget_spent() ||
         ((count & 1023) == 0 && c.cycle_end != sc_core::SC_ZERO_TIME && c.core->now() > c.cycle_end);
}
// The same for the current core, if a kernel runs (a no-op outside one).
void kernel_safepoint(const char* where);

// A library call: the kernel's own code that ran before it charged first, then the call's
// entry/exit cost (compute), a frame spilled to the current stack (local dataram or the HBM
// stack; TCM/stack), the stack check.
struct ApiCall {
  CoreCtx& c;
  bool pushed = false;
  size_t rec = SIZE_MAX;
  ApiCall(CoreCtx& cx, const char* name) : c(cx) {
    charge_kernel_code(c);  // the kernel's own code up to this call first
    kernel_checkpoint(c, name);  // progress; a stop request or a spent budget ends the kernel here
    c.last_call = name;
    if (records(c)) {
      rec = c.calls.size();
      c.calls.push_back(CallRecord{name, now_ns(c), now_ns(c)});
    }
    ++c.t.api_calls;
    check_stack(c, name);
    charge(c, TimeKind::kCompute, c.fw->config().call_cycles);
    TimeScope s(c, TimeKind::kTcmStack);
    c.fw->push_frame(name, c.fw->config().frame_spill_bytes);
    pushed = true;
  }
  ~ApiCall() {
    if (pushed && std::uncaught_exceptions() == 0) {
      TimeScope s(c, TimeKind::kTcmStack);
      c.fw->pop_frame();
    }
    if (rec != SIZE_MAX) c.calls[rec].end_ns = now_ns(c);
  }
};

// A dataram heap operation the runtime made on the core's heaps itself (tcm_malloc, tcm_free,
// a stream's buffer), with the wrapper's status: the firmware's observers (FirmwareHooks
// heap_op, heap_changed) hear of it as of the firmware's own calls.
void dataram_heap_op(CoreCtx& c, bool is_alloc, int status);

// DMA between HBM and the core's TCM over all of the core's channels; waits for completion.
void dma_move(CoreCtx& c, uint64_t dst, uint64_t src, uint64_t n, const char* call);

// The TCM grant (runtime.cpp): the device address of a host pointer into it (0: not in it);
// taking the grant; an invalidation the core received; a block's grant still in force.
uint32_t tcm_device_addr(CoreCtx& c, const void* p);
void acquire_tcm_grant(CoreCtx& c, const char* call);
void tcm_invalidated(CoreCtx& c, uint64_t start, uint64_t end);
void check_tcm_grant(CoreCtx& c, uint32_t block, const char* call);

// The TCM bounds check's cache (kernel_cost_abi.h) emptied, every address made to look like
// the TCM: the next checked access finds the running core's TCM and block (tcm.cpp). At every
// runtime entry (charge_kernel_code) and kernel start.
void tcm_check_reset();

// The first write into the dataram heap header from a block of the pool.
void check_header_write(CoreCtx& c, uint64_t block, uint64_t block_bytes, uint64_t lo, uint64_t n,
                        const std::string& what, const char* call,
                        const char* effect = "this write corrupts the heap");

}  // namespace npusim::torchrt

// The runtime names the tensor library (torch::detail) uses in every part of it.
namespace torch::detail {
using npusim::torchrt::ApiCall;
using npusim::torchrt::CoreCtx;
using npusim::torchrt::current_ctx;
using npusim::torchrt::FF;
using npusim::torchrt::TimeKind;
using npusim::torchrt::TimeScope;
}  // namespace torch::detail
