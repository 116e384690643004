// The simulator side of the torch API (include/torch/torch.h): tensors in simulated HBM, the
// per-core context of a running kernel (its firmware, TCM, DMA channels, streams, stack), the
// multi-core GPSIMD platform and one op run. docs/custom-ops.md explains the model.
//
// firmware/torch/, by role: runtime.cpp (the core context: its time account, library calls, stack checks,
// DMA and port moves, the TCM's DMI grant; runtime_internal.h), gpsimd_platform.cpp (the
// cores, from the generic builder), accessors.cpp (standard accessor), streams.cpp (stream
// accessors, coherence), tcm.cpp (TCM accessor, tcm_malloc), bulk.cpp (library ops' data),
// host_bytes.cpp (host tensors' buffers), op_runner.cpp (run_op), tensor.cpp (tensors and the
// library's arithmetic), op_lookup.cpp (registration, kernel lookup). May include models/,
// platforms/, allocators/, firmware/.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include <torch/torch.h>

#include "firmware/firmware.h"
#include "firmware/neuron_platform.h"
#include "platforms/energy.h"
#include "firmware/torch/host_bytes.h"
#include "models/core.h"
#include "models/dma_engine.h"
#include "models/hbm.h"
#include "models/interconnect.h"
#include "models/sram.h"
#include "platforms/neuron_gpsimd.h"
#include "platforms/platform.h"

namespace torch::detail {
struct TensorImpl {
  ScalarType dtype = kFloat;
  std::vector<int64_t> sizes, strides;
  int64_t numel = 0;
  uint64_t hbm = 0;            // device address in simulated HBM (0: a host tensor)
  HostBytes host;              // host tensors: the data (host_bytes.h)
  std::string name;            // "input 0", "output", "tensor@0x..."
  // Coherence (torch.h, CoherencyEnforcer): the policy and the active accessors.
  torch::CoherencyEnforcer::Policy policy = torch::CoherencyEnforcer::COHERENT;
  int standard = 0, read_streams = 0, write_streams = 0;
  size_t nbytes() const { return static_cast<size_t>(numel) * element_size(dtype); }
};
std::shared_ptr<TensorImpl> make_host_tensor(IntArrayRef sizes, ScalarType dtype);
}  // namespace torch::detail

namespace npusim::torchrt {

// Where a core's time goes (docs/custom-ops.md, "Where a kernel's time goes"). Every moment of
// a core from its kernel's start to the op's end is of exactly one kind; every place that
// spends a core's time names its kind (runtime_internal.h: TimeScope, charge).
enum class TimeKind : uint8_t {
  kCompute,      // the core executing: the kernel's own code (the kernel-cost pass), a call's
                 // entry and exit
  kTcmStack,     // loads and stores to the core's TCM and stack: stream elements, the dataram
                 // heap (tcm_malloc, tcm_free, stream buffers), frame spills, the HBM stack's setup
  kAccessorHbm,  // standard-accessor element accesses: the load or store through the fabric to
                 // HBM and the accessor's own cycles
  kDmaWait,      // the core's DMA transfers (TCM accessor, stream refills and flushes): the
                 // library starting them (gpsimd.tcm_copy_cycles) and the wait for them
  kCoreWait,     // waiting for other cores: a multicore op's core whose kernel has returned,
                 // until the op ends
  kLibrary,      // library ops (factories, fill_, element-wise ops): their call, their data
                 // through the core's port, their element work
};
inline constexpr size_t kTimeKinds = 6;
inline constexpr TimeKind kAllTimeKinds[kTimeKinds] = {TimeKind::kCompute,   TimeKind::kTcmStack,
                                                       TimeKind::kAccessorHbm, TimeKind::kDmaWait,
                                                       TimeKind::kCoreWait,  TimeKind::kLibrary};
constexpr size_t index_of(TimeKind k) { return static_cast<size_t>(k); }
// The kind's name in the report (`breakdown_cycles`, `time.*` metrics): compute, tcm_stack,
// accessor_hbm, dma_wait, core_wait, library.
const char* time_kind_name(TimeKind k);

// A core's time and traffic in one op run.
struct CoreTimes {
  // Simulated time by kind, in SystemC time units (picoseconds), from the kernel's start to
  // the op's end: they add up to op_end - start exactly.
  uint64_t by_kind[kTimeKinds] = {};
  uint64_t start = 0, end = 0, op_end = 0;  // the kernel's start, its return, the op's end (units)
  uint64_t hbm_accesses = 0, tcm_accesses = 0, dma_transfers = 0, dma_bytes = 0, api_calls = 0;
  uint64_t bulk_bytes = 0;  // library ops' data (fills, element-wise ops) through the core's port
  uint64_t stack_peak = 0;  // bytes of host stack the kernel used (approximate)
  uint64_t stack_setup = 0;  // of kTcmStack: allocating, switching to and freeing the HBM stack (units)
  // The firmware's stack of the core at the end: frames spilled to its local dataram stack and
  // to its HBM stack (high-water, bytes), and the HBM stack.
  uint32_t frames_high_water = 0, frames_hbm_high_water = 0;
  uint64_t hbm_stack = 0;
  uint32_t hbm_stack_size = 0;
  double start_ns = 0, end_ns = 0;  // start and end in ns
  bool ran = false;
  double ns(TimeKind k) const;      // by_kind[k] in ns
  double total_ns() const;          // op_end - start in ns
};
// A time in SystemC time units (the `by_kind` values) in ns.
double units_ns(uint64_t units);
// Cycles at `clock_ghz` of each kind, rounded so that they add up to the rounded total
// (round(cumulative) differences): what the summary and the report print.
std::array<uint64_t, kTimeKinds> kind_cycles(const CoreTimes& t, double clock_ghz);
uint64_t total_cycles(const CoreTimes& t, double clock_ghz);

// The time of the core running a kernel now goes to `kind` for `cycles` of the core's clock
// (inside a library op: to kLibrary). Outside a kernel it does nothing. Annotated kernel code
// charges its own work through this.
void charge(TimeKind kind, uint64_t cycles);

// A report of bad kernel behaviour: errors fail the run, warnings do not.
struct Diagnostic {
  std::string severity, kind, kernel, call, message;
  int core = -1;
  uint64_t address = 0;
  std::vector<std::string> backtrace = {};  // a contained kernel fault: the kernel's frames, innermost first
};

// A library call or a DMA transfer of a core, for traces (OpSpec::record).
struct CallRecord {
  std::string name;
  double start_ns = 0, end_ns = 0;
};
struct TransferRecord {
  int core = 0;
  uint32_t channel = 0;
  uint64_t src = 0, dst = 0, len = 0;
  std::string call;
  double start_ns = 0, end_ns = 0;
};

struct OpSpec {
  std::string op;
  bool record = false;                 // keep every library call and DMA transfer (traces)
  bool multicore = false;
  std::vector<torch::Tensor> tensors;  // host tensors with their data
  std::vector<c10::Scalar> scalars;
  long long stack_size = -1;           // -1: the library's STACK_SIZE (or none)
  // Budgets (docs/custom-ops.md, "Budgets"): a kernel's cycles on its core, the op run's wall
  // time. -1: the platform's (gpsimd.cycle_budget, gpsimd.wall_budget_s); 0: none.
  long long cycle_budget = -1;
  double wall_budget_s = -1;
  // Called with the platform once it is built, before the simulation (tests, tools: e.g. the
  // firmwares' hooks), and after the simulation, before the platform goes (its statistics).
  std::function<void(class GpsimdPlatform&)> on_built, on_finished;
};

// A copy between the host and HBM around the kernel (the inputs before it, the output after
// it): through core 0's port, timed by the HBM controller, outside the op's time.
struct HostCopy {
  uint64_t bytes = 0;
  double start_ns = 0, end_ns = 0;
};

struct OpResult {
  torch::Tensor output;  // a host copy of the result (undefined if the run failed early)
  // What the shape function returned (the op's output as the framework sees it).
  std::vector<int64_t> shape_sizes;
  torch::ScalarType shape_dtype = torch::kFloat;
  std::vector<CoreTimes> cores;
  std::vector<Diagnostic> diagnostics;
  bool failed = false;
  std::string fault_kind, fault_message;
  std::vector<std::string> fault_backtrace;  // a contained kernel fault (Diagnostic::backtrace)
  double duration_ns = 0;       // the op: from the kernel start to the last core's kernel end
  double kernel_start_ns = 0;   // when the inputs were in HBM
  HostCopy inputs_copy, output_copy;
  double clock_ghz = 1.4;
  long long stack_size = -1;
  uint64_t stack_limit = 0;  // bytes of stack the kernel may use (STACK_SIZE, else the local stack)
  bool hbm_stack = false;
  bool multicore = false;  // the scenario's, or the library's (npusim op build --multicore)
  uint64_t hbm_bytes = 0, hbm_requests = 0, dma_bytes = 0, dma_descriptors = 0;
  uint64_t tcm_peak_bytes = 0;
  std::string kernel, mangled;
  // Whether the kernel was compiled with the kernel-cost pass (its own code timed), and its
  // source file; false: its own code took no simulated time.
  bool kernel_code_timed = false;
  std::string kernel_code_source;
  std::vector<std::vector<CallRecord>> calls;  // per core (OpSpec::record)
  std::vector<TransferRecord> transfers;
  platforms::PlatformEnergy energy;  // of the run (platforms/energy.h), to its end
};

class Run;

// The per-core context of a running kernel.
struct CoreCtx {
  int id = 0;
  models::Core* core = nullptr;
  models::DmaEngine* dma = nullptr;
  fw::Firmware* fw = nullptr;
  // The core's DMI grant of its TCM (kernels dereference tcm_malloc pointers into it): host
  // pointer and device range. Taken at the first tcm_malloc; a revocation by the TCM
  // (Sram::revoke_dmi) ends it, and every block handed out under it becomes unusable.
  uint8_t* tcm_host = nullptr;
  uint64_t tcm_base = 0, tcm_size = 0;
  uint64_t tcm_grant = 0;           // the grant in force (0: none); numbered from 1
  uint64_t tcm_revoked_grant = 0;   // the last grant revoked
  double tcm_revoked_ns = 0;
  std::map<uint32_t, uint64_t> tcm_block_grant;  // live block -> the grant it was handed out under
  int op_depth = 0;                 // library ops in progress (nested ones are one call)
  Run* run = nullptr;
  CoreTimes t;
  // The time account: the kind the core's time is of now and when that stretch began (time
  // units); a switch of kind adds the stretch to t.by_kind (runtime_internal.h).
  TimeKind kind = TimeKind::kCompute;
  uint64_t since = 0;
  bool ended = false;  // the account is closed (t.end set)
  std::map<uint32_t, uint32_t> tcm_blocks;  // live tcm_malloc blocks: device address -> bytes
  std::map<uint32_t, uint32_t> tcm_freed;   // blocks tcm_free gave back, until reused: address -> bytes
  uint64_t tcm_live = 0;
  struct Stream {
    bool open = false, write = false, fast = false;
    torch::detail::TensorImpl* t = nullptr;
    size_t elem = 0;
    int64_t pos = 0, first = 0, count = 0;  // buffer holds elements [first, first + count)
    uint32_t buf = 0;
  };
  std::vector<Stream> streams;
  uint32_t fast_streams = 0;
  uintptr_t entry_sp = 0;
  std::vector<std::pair<uint64_t, uint64_t>> dst_writes;  // byte ranges of the dst tensor
  std::vector<uint64_t> header_hits;  // blocks reported writing into the dataram heap header
  std::string last_call = "kernel entry";
  sc_core::sc_time cycle_end = sc_core::SC_ZERO_TIME;  // the cycle budget ends here (zero: none)
  std::vector<CallRecord> calls;  // when recording
  // Cost units of the kernel's own code not yet charged (fractions of a cycle; kernel_cost.cpp).
  uint64_t kernel_compute_units = 0, kernel_memory_units = 0;
};

// The GPSIMD cores sharing one HBM, built by the generic builder from the `gpsimd` part of
// the neuron-gpsimd description (fw::NeuronPlatformConfig::gpsimd_topology, `gpsimd.cores`
// cores): each core has its own interconnect in front of its dataram (TCM), its own DMA
// channels and its own firmware; all reach HBM through one shared fabric interconnect. Core i's 32-bit HBM window
// maps its own scratch slice (its heaps and stack). Every binding goes through
// platforms::bind (the binding log; protocol checkers with NPUSIM_PROTOCOL_CHECKS).
class GpsimdPlatform : public platforms::Platform {
 public:
  GpsimdPlatform(sc_core::sc_module_name name, const fw::NeuronPlatformConfig& cfg);
  ~GpsimdPlatform() override;
  const fw::NeuronPlatformConfig& config() const { return cfg_; }
  size_t core_count() const { return per_core_.size(); }
  models::Core& core(size_t i);
  models::DmaEngine& dma(size_t i);
  fw::Firmware& firmware(size_t i);
  models::Sram& tcm(size_t i);
  models::Hbm& hbm() { return hbm_; }
  uint64_t arena_base() const;

 private:
  struct PerCore {
    models::Core* core;
    models::DmaEngine* dma;
    models::Sram* tcm;
    std::unique_ptr<fw::Firmware> fw;
  };
  fw::NeuronPlatformConfig cfg_;
  models::Hbm& hbm_;
  std::vector<PerCore> per_core_;
};

// Runs one op on a GpsimdPlatform built from `cfg` (one simulation per process). Bad input
// found before the simulation (unknown op, unresolvable kernel, argument mismatch) throws
// std::invalid_argument; anything the kernel does wrong is in the result.
OpResult run_op(const fw::NeuronPlatformConfig& cfg, const OpSpec& spec);

// Loads a plugin library of torch ops (npusim run --plugin, npusim op build): its static
// initialisers run first in a child process, so that one that crashes, throws, exits or hangs
// is an error, not the end of npusim; then its registrations are checked. Throws
// std::runtime_error saying why (the caller names the library): it does not load, a static
// initialiser failed, it is already loaded, an op is registered twice (naming both places), an
// op has a built-in op's name without `allow_shadowing`, or it registers no op. `warnings`: each
// built-in op it shadows.
struct PluginLoad {
  std::vector<std::string> ops, warnings;
};
PluginLoad load_plugin(const std::string& path, bool allow_shadowing);
// The executable's own registrations: an op registered twice throws std::runtime_error naming
// both places.
void check_builtin_registry();

// Host tensors from a pattern: "zeros", "ones", "range", "linspace(lo,hi)", "random(seed)",
// "constant(v)", "alternating" (the element values, converted to the dtype).
torch::Tensor make_input(const std::vector<int64_t>& shape, torch::ScalarType dtype,
                         const std::string& pattern);
// Element i of a tensor as a double (host tensors).
double element(const torch::Tensor& t, int64_t i);
torch::ScalarType parse_dtype(const std::string& s, bool* ok);

}  // namespace npusim::torchrt
