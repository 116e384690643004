// The simulator side of the torch API: per-core contexts, accessors, streams, TCM, the
// multi-core platform and one op run (docs/custom-ops.md).
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "firmware/torch/runtime.h"

#include "allocators/neuron/neuron_layout.h"
#include "allocators/xmem/xmem_heap.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <unordered_map>

#include <neuron/neuron-utils.hpp>

namespace npusim::torchrt {

using torch::detail::TensorImpl;
using FF = fw::FirmwareFault;

const char* cat_name(Cat c) {
  switch (c) {
    case kCompute: return "compute";
    case kHbm: return "hbm";
    case kTcm: return "tcm";
    case kDma: return "dma";
    case kStack: return "stack";
    case kCall: return "call";
    default: return "?";
  }
}

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
  uint64_t tcm_cycles = 3;
  bool setup_done = false;
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

// Bulk data (the library's fills and element-wise ops, the host copies) through `core`'s port
// into HBM, in requests of kPortChunk bytes: timed by the fabric and the HBM controller and
// counted in the HBM statistics while the core runs its program; outside it (a host tensor
// op after the run) the same path by debug transport.
constexpr size_t kPortChunk = 4096;
void port_move(models::Core& core, bool write, uint64_t a, void* p, size_t n) {
  auto* b = static_cast<uint8_t*>(p);
  for (size_t off = 0; off < n; off += kPortChunk) {
    const size_t len = std::min(kPortChunk, n - off);
    if (write) core.write(a + off, b + off, len);
    else core.read(a + off, b + off, len);
  }
}

namespace {
Run* g_run = nullptr;
std::unordered_map<const models::Core*, CoreCtx*>& ctx_map() {
  static std::unordered_map<const models::Core*, CoreCtx*> m;
  return m;
}
}  // namespace

CoreCtx* current_ctx() {
  if (g_run == nullptr) return nullptr;
  models::Core* c = models::Core::current();
  if (c == nullptr) return nullptr;
  auto it = ctx_map().find(c);
  return it == ctx_map().end() ? nullptr : it->second;
}

namespace {

double now_ns(CoreCtx& c) { return c.core->now().to_seconds() * 1e9; }
bool records(const CoreCtx& c) { return c.run->spec.record; }

// Attributes the core time of a scope to a category.
struct Span {
  CoreCtx& c;
  Cat cat;
  double t0;
  Span(CoreCtx& cx, Cat k) : c(cx), cat(k), t0(now_ns(cx)) {}
  ~Span() { c.t.ns[cat] += now_ns(c) - t0; }
};

// The address of a local is the point: clang's -Wreturn-stack-address is off here.
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wreturn-stack-address"
#endif
__attribute__((noinline)) uintptr_t stack_pointer() {
  volatile char probe = 0;
  return reinterpret_cast<uintptr_t>(&probe);
}
#if defined(__clang__)
#pragma clang diagnostic pop
#endif

void check_stack(CoreCtx& c, const char* call) {
  if (c.entry_sp == 0) return;
  const uintptr_t sp = stack_pointer();
  const uint64_t used = sp < c.entry_sp ? c.entry_sp - sp : 0;
  c.t.stack_peak = std::max(c.t.stack_peak, used);
  Run& r = *c.run;
  if (used > r.stack_limit)
    r.fail(&c, FF::kStackOverflow, call, 0,
           fmt::format("stack overrun: the kernel's stack reached at least {} bytes, more than the "
                       "declared {} ({}){}",
                       used, r.stack_limit,
                       r.stack_size >= 0 ? fmt::format("STACK_SIZE={}", r.stack_size)
                                         : "no STACK_SIZE: the core's local stack",
                       r.stack_size >= 0 ? "; raise -DSTACK_SIZE" : "; declare -DSTACK_SIZE"));
}

// A library call: entry/exit cost, a frame spilled to the current stack (local dataram or the
// HBM stack), the stack check.
struct ApiCall {
  CoreCtx& c;
  bool pushed = false;
  size_t rec = SIZE_MAX;
  ApiCall(CoreCtx& cx, const char* name) : c(cx) {
    c.last_call = name;
    if (records(c)) {
      rec = c.calls.size();
      c.calls.push_back(CallRecord{name, now_ns(c), now_ns(c)});
    }
    ++c.t.api_calls;
    check_stack(c, name);
    {
      Span s(c, kCall);
      c.core->compute(c.fw->config().call_cycles);
    }
    Span s(c, kStack);
    c.fw->push_frame(name, c.fw->config().frame_spill_bytes);
    pushed = true;
  }
  ~ApiCall() {
    if (pushed && std::uncaught_exceptions() == 0) {
      Span s(c, kStack);
      c.fw->pop_frame();
    }
    if (rec != SIZE_MAX) c.calls[rec].end_ns = now_ns(c);
  }
};

// DMA between HBM and the core's TCM over all of the core's channels; waits for completion.
void dma_move(CoreCtx& c, uint64_t dst, uint64_t src, uint64_t n, const char* call) {
  Span s(c, kDma);
  c.core->sync();
  const uint32_t chans = c.dma->config().channels;
  const uint64_t per = std::max<uint64_t>(512, (n + chans - 1) / chans);
  std::vector<uint64_t> tickets;
  for (uint64_t off = 0, ch = 0; off < n; off += per, ++ch) {
    const uint64_t len = std::min(per, n - off);
    tickets.push_back(c.dma->submit(models::DmaDescriptor{src + off, dst + off, len,
                                                          static_cast<uint32_t>(ch % chans), call},
                                    c.core->now()));
  }
  for (uint64_t t : tickets) {
    while (!c.dma->done(t)) c.core->wait_for(c.dma->completion_event());
    if (const models::DmaFault* f = c.dma->fault_of(t)) throw models::DmaAbort(*f);
  }
  ++c.t.dma_transfers;
  c.t.dma_bytes += n;
}

uint32_t tcm_device_addr(CoreCtx& c, const void* p) {
  const auto* b = static_cast<const uint8_t*>(p);
  if (c.tcm_host == nullptr || b < c.tcm_host || b >= c.tcm_host + c.tcm_size) return 0;
  return static_cast<uint32_t>(c.tcm_base + static_cast<uint64_t>(b - c.tcm_host));
}

// The core's DMI grant of its whole TCM, asked of the TCM model through the core's port when
// none is in force (the first tcm_malloc, or the first after a revocation). A refusal fails
// the run: a kernel's TCM pointer needs a grant behind it.
void acquire_tcm_grant(CoreCtx& c, const char* call) {
  if (c.tcm_grant != 0) return;
  const auto& d = c.run->cfg->memory.dataram;
  const auto g = c.core->direct_memory(d.base, d.size);
  if (!g)
    c.run->fail(&c, FF::kUsage, call, d.base,
                fmt::format("the core's TCM refused a DMI grant of [0x{:x}, 0x{:x}), and a TCM pointer needs one{}",
                            d.base, d.base + d.size,
                            c.tcm_revoked_grant ? fmt::format(" (it revoked the last one at {:.3f} ns, Sram::revoke_dmi, "
                                                              "and grants no new one)", c.tcm_revoked_ns)
                                                : ""));
  c.tcm_host = g->get_dmi_ptr();
  c.tcm_base = g->get_start_address();
  c.tcm_size = g->get_end_address() - g->get_start_address() + 1;
  c.tcm_grant = c.tcm_revoked_grant + 1;
}

// A TCM invalidation the core received: the grant in force ends if it overlaps.
void tcm_invalidated(CoreCtx& c, uint64_t start, uint64_t end) {
  if (c.tcm_grant == 0 || end < c.tcm_base || start >= c.tcm_base + c.tcm_size) return;
  c.tcm_revoked_grant = c.tcm_grant;
  c.tcm_grant = 0;
  c.tcm_revoked_ns = sc_core::sc_time_stamp().to_seconds() * 1e9;
}

// A tcm_malloc block used by `call`: the grant it was handed out under must still be in force.
void check_tcm_grant(CoreCtx& c, uint32_t block, const char* call) {
  const auto it = c.tcm_block_grant.find(block);
  if (it == c.tcm_block_grant.end() || it->second == c.tcm_grant) return;
  c.run->fail(&c, FF::kBadAddress, call, block,
              fmt::format("the tcm_malloc block at 0x{:x} is a pointer of the core's DMI grant of its TCM, which "
                          "the TCM revoked at {:.3f} ns (Sram::revoke_dmi): the pointer is no longer valid "
                          "(its loads and stores bypass the TCM model); tcm_malloc a new block",
                          block, c.tcm_revoked_ns));
}

}  // namespace

// The first write into the dataram heap header from a block of the pool (issue 16): with the
// seed layout the header lies inside the pool, so the third 4 KiB block overlaps it. Reported
// once per block, at the write (a stream element, a refill or tensor_to_tcm), before the
// corrupted heap faults at a later free.
static void check_header_write(CoreCtx& c, uint64_t block, uint64_t block_bytes, uint64_t lo, uint64_t n,
                               const std::string& what, const char* call,
                               const char* effect = "this write corrupts the heap") {
  const auto& l = c.run->cfg->firmware.layout;
  const uint64_t h_lo = l.dataram_header(), h_hi = h_lo + alloc::xmem::header_bytes(l.num_blocks);
  if (lo + n <= h_lo || lo >= h_hi) return;
  for (uint64_t b : c.header_hits)
    if (b == block) return;
  c.header_hits.push_back(block);
  c.run->warn(&c, "heap header overwrite", call, std::max(lo, h_lo),
              fmt::format("{} [0x{:x}, 0x{:x}) overlaps the dataram heap header [0x{:x}, 0x{:x}) ({} dataram "
                          "layout): {}, and a later free may take a bus error; --set heaps.layout=guides "
                          "fits four 4 KiB blocks",
                          what, block, block + block_bytes, h_lo, h_hi, alloc::neuron::layout_name(l), effect));
}

// --- the multi-core platform ---

namespace {
models::CoreConfig gpsimd_core_cfg(const fw::NeuronPlatformConfig& c) {
  models::CoreConfig k = c.core;
  k.host_stack_bytes = c.gpsimd_cores.host_stack_bytes;
  return k;
}
models::DmaConfig gpsimd_dma_cfg(const fw::NeuronPlatformConfig& c) {
  models::DmaConfig d = c.dma;
  d.channels = std::max(1u, c.gpsimd_cores.dma_engines / c.gpsimd_cores.cores);
  d.bytes_per_ns = c.gpsimd_cores.dma_gibps * 1.073741824;
  return d;
}
models::InterconnectConfig fabric_cfg(const fw::NeuronPlatformConfig& c) {
  models::InterconnectConfig i = c.memory.interconnect;
  i.hop_latency_cycles = c.gpsimd_cores.fabric_hop_cycles;
  return i;
}
fw::FirmwareConfig gpsimd_fw_cfg(size_t i, const fw::NeuronPlatformConfig& c) {
  fw::FirmwareConfig f = c.firmware;
  f.layout.hbm_scratch = c.memory.hbm.base + uint64_t{f.layout.hbm_scratch_size} * i;
  return f;
}
}  // namespace

GpsimdPlatform::GpsimdPlatform(sc_core::sc_module_name name, const fw::NeuronPlatformConfig& cfg)
    : platforms::Platform(name,
                          platforms::gpsimd_topology(cfg.gpsimd_cores.cores, cfg.memory.hbm,
                                                     cfg.firmware.layout.hbm_window,
                                                     cfg.firmware.layout.hbm_scratch_size),
                          platforms::gpsimd_parameters(cfg.memory, gpsimd_core_cfg(cfg), gpsimd_dma_cfg(cfg),
                                                       fabric_cfg(cfg))),
      cfg_(cfg),
      hbm_(Platform::hbm("hbm")) {
  for (size_t i = 0; i < cfg.gpsimd_cores.cores; ++i) {
    PerCore pc{&Platform::core(fmt::format("gpsimd{}", i)), &Platform::dma(fmt::format("core{}_dma", i)),
               &sram(fmt::format("core{}_tcm", i)), nullptr};
    pc.fw = std::make_unique<fw::Firmware>(*pc.core, pc.dma, gpsimd_fw_cfg(i, cfg));
    per_core_.push_back(std::move(pc));
  }
}
GpsimdPlatform::~GpsimdPlatform() = default;
models::Core& GpsimdPlatform::core(size_t i) { return *per_core_.at(i).core; }
models::DmaEngine& GpsimdPlatform::dma(size_t i) { return *per_core_.at(i).dma; }
fw::Firmware& GpsimdPlatform::firmware(size_t i) { return *per_core_.at(i).fw; }
models::Sram& GpsimdPlatform::tcm(size_t i) { return *per_core_.at(i).tcm; }
uint64_t GpsimdPlatform::arena_base() const {
  return cfg_.memory.hbm.base + uint64_t{cfg_.firmware.layout.hbm_scratch_size} * per_core_.size();
}

}  // namespace npusim::torchrt

// ===================== the torch API, simulator side =====================

namespace torch::detail {

using npusim::torchrt::ApiCall;
using npusim::torchrt::CoreCtx;
using npusim::torchrt::current_ctx;
using npusim::torchrt::FF;
using npusim::torchrt::Span;

std::shared_ptr<TensorImpl> make_host_tensor(IntArrayRef sizes, ScalarType dtype) {
  auto t = std::make_shared<TensorImpl>();
  t->dtype = dtype;
  t->sizes = sizes.vec();
  t->strides.assign(t->sizes.size(), 1);
  int64_t n = 1;
  for (size_t i = t->sizes.size(); i-- > 0;) {
    t->strides[i] = n;
    n *= t->sizes[i];
  }
  t->numel = n;
  return t;
}

const int64_t* sizes_of(const TensorImpl& t) { return t.sizes.data(); }
const int64_t* strides_of(const TensorImpl& t) { return t.strides.data(); }

void check_accessor_type(const TensorImpl& t, ScalarType want, size_t dims, const char* call) {
  CoreCtx* c = current_ctx();
  auto fail = [&](const std::string& msg) {
    if (c) c->run->fail(c, FF::kUsage, call, t.hbm, msg);
    throw std::invalid_argument(std::string(call) + ": " + msg);
  };
  if (c && c->run->spec.multicore)
    fail(fmt::format("{} in multicore mode: only the TCM accessor (tcm_accessor) is allowed when "
                     "the kernel runs on several cores",
                     call));
  if (want != t.dtype)
    fail(fmt::format("{}<{}> on a tensor of dtype {}", call, dtype_name(want), dtype_name(t.dtype)));
  if (dims != 0 && dims != t.sizes.size())
    fail(fmt::format("{}<T,{}> on a tensor of {} dimensions", call, dims, t.sizes.size()));
}

[[noreturn]] void index_out_of_range(const TensorImpl& t, int64_t index, int64_t dim, int64_t size) {
  CoreCtx* c = current_ctx();
  const std::string msg = fmt::format("index {} of dimension {} is outside the tensor {} (size {}): an access outside its tensor",
                                      index, dim, t.name, size);
  if (c) c->run->fail(c, FF::kBadAddress, "accessor[]", t.hbm, msg);
  throw std::out_of_range(msg);
}

namespace {
// What a standard-accessor element access does on a simulated core, load or store alike: the
// multicore and stack checks, the HBM access count, the transfer `move(addr)` in an HBM span and
// the accessor's compute charge.
template <typename Move>
void element_access(CoreCtx& c, const TensorImpl& t, int64_t index, size_t bytes, Move&& move) {
  if (c.run->spec.multicore)
    c.run->fail(&c, FF::kUsage, "accessor", t.hbm, "standard accessor element access in multicore mode");
  npusim::torchrt::check_stack(c, "accessor");
  ++c.t.hbm_accesses;
  {
    Span s(c, npusim::torchrt::kHbm);
    move(t.hbm + static_cast<uint64_t>(index) * bytes);
  }
  Span s(c, npusim::torchrt::kCompute);
  c.core->compute(c.run->cfg->gpsimd_cores.accessor_cycles);
}
}  // namespace

void element_load(const TensorImpl& t, int64_t index, void* dst, size_t bytes) {
  CoreCtx* c = current_ctx();
  if (!c || t.hbm == 0) {
    std::memcpy(dst, t.host.data() + index * static_cast<int64_t>(bytes), bytes);
    return;
  }
  element_access(*c, t, index, bytes, [&](uint64_t addr) { c->core->read(addr, dst, bytes); });
}

void element_store(TensorImpl& t, int64_t index, const void* src, size_t bytes) {
  CoreCtx* c = current_ctx();
  if (!c || t.hbm == 0) {
    std::memcpy(t.host.data() + index * static_cast<int64_t>(bytes), src, bytes);
    return;
  }
  element_access(*c, t, index, bytes, [&](uint64_t addr) { c->core->write(addr, src, bytes); });
}

// --- streams ---

namespace {
// Host-mode streams (no simulated core).
struct HostStream {
  TensorImpl* t;
  size_t elem;
  int64_t pos;
  bool write;
  bool closed = false;
};
std::vector<HostStream>& host_streams() {
  static std::vector<HostStream> v;
  return v;
}
constexpr int kHostSlot = 1 << 20;

void flush(CoreCtx& c, CoreCtx::Stream& s, const char* call) {
  if (!s.write || s.count == 0) return;
  npusim::torchrt::dma_move(c, s.t->hbm + static_cast<uint64_t>(s.first) * s.elem, s.buf,
                            static_cast<uint64_t>(s.count) * s.elem, call);
  s.first += s.count;
  s.count = 0;
}

namespace {
const char* policy_name(torch::CoherencyEnforcer::Policy p) {
  switch (p) {
    case torch::CoherencyEnforcer::COHERENT: return "COHERENT";
    case torch::CoherencyEnforcer::INCOHERENT_VERBOSE: return "INCOHERENT_VERBOSE";
    default: return "INCOHERENT_QUIET";
  }
}
int& active(TensorImpl& t, AccessKind k) {
  return k == AccessKind::kStandard ? t.standard
         : k == AccessKind::kReadStream ? t.read_streams : t.write_streams;
}
}  // namespace

}  // namespace

CoherencyEnforcer::Policy coherence_policy(const TensorImpl& t) { return t.policy; }
void set_coherence_policy(TensorImpl& t, CoherencyEnforcer::Policy p) { t.policy = p; }

void acquire_access(TensorImpl& t, AccessKind kind, const char* call) {
  // The public guidance: several read streams, or one write stream, per tensor; streams not
  // together with standard accessors. Standard accessors among themselves are coherent.
  std::string clash;
  if (kind != AccessKind::kStandard && t.write_streams) clash = "a write stream accessor is active";
  else if (kind == AccessKind::kWriteStream && t.read_streams) clash = "a read stream accessor is active";
  else if (kind != AccessKind::kStandard && t.standard) clash = "a standard accessor is active";
  else if (kind == AccessKind::kStandard && (t.read_streams || t.write_streams))
    clash = "a stream accessor is active";
  if (!clash.empty() && t.policy != CoherencyEnforcer::INCOHERENT_QUIET) {
    const std::string msg = fmt::format(
        "potentially incoherent access to {}: {} opened while {} (coherence policy {}; "
        "set_accessor_coherence_policy(INCOHERENT_VERBOSE or INCOHERENT_QUIET) allows it)",
        t.name.empty() ? "a tensor" : t.name, call, clash, policy_name(t.policy));
    CoreCtx* c = current_ctx();
    if (t.policy == CoherencyEnforcer::COHERENT) {
      if (c) c->run->fail(c, FF::kUsage, call, t.hbm, msg);
      throw std::logic_error(std::string(call) + ": " + msg);
    }
    if (c) c->run->warn(c, "incoherent access", call, t.hbm, msg);
    else std::fprintf(stderr, "npusim: warning: %s: %s\n", call, msg.c_str());
  }
  ++active(t, kind);
}

void release_access(TensorImpl& t, AccessKind kind) {
  int& n = active(t, kind);
  if (n > 0) --n;
}

namespace {

// The host stream in `slot`, checked for one more element by `accessor`, which does `verb`.
HostStream& next_host_stream(int slot, const char* accessor, const char* verb) {
  auto& h = host_streams().at(static_cast<size_t>(slot - kHostSlot));
  if (h.closed) throw std::logic_error(std::string(accessor) + ": " + verb + "() on a closed stream");
  if (h.pos >= h.t->numel)
    throw std::out_of_range(std::string(accessor) + ": " + verb + " past the end of " + h.t->name);
  return h;
}

// The core stream in `slot`, checked for one more element by `call` ("read" or "write"): open,
// and not past the end of its tensor; `access` names the access in that fault ("a write").
CoreCtx::Stream& next_stream(CoreCtx& c, int slot, const char* call, const char* access) {
  if (slot < 0 || static_cast<size_t>(slot) >= c.streams.size())
    c.run->fail(&c, FF::kUsage, call, 0, fmt::format("{}() on a moved-from stream accessor", call));
  auto& s = c.streams.at(static_cast<size_t>(slot));
  if (!s.open) c.run->fail(&c, FF::kUsage, call, s.t->hbm, fmt::format("{}() on a closed stream", call));
  if (s.pos >= s.t->numel)
    c.run->fail(&c, FF::kBadAddress, call, s.t->hbm + static_cast<uint64_t>(s.pos) * s.elem,
                fmt::format("{} past the end of {} ({} elements): {} outside its tensor", call, s.t->name,
                            s.t->numel, access));
  return s;
}
}  // namespace

int stream_open(TensorImpl& t, bool write, size_t elem, const char* call) {
  acquire_access(t, write ? AccessKind::kWriteStream : AccessKind::kReadStream, call);
  CoreCtx* c = current_ctx();
  if (!c || t.hbm == 0) {
    host_streams().push_back(HostStream{&t, elem, 0, write, false});
    return kHostSlot + static_cast<int>(host_streams().size()) - 1;
  }
  ApiCall api(*c, call);
  CoreCtx::Stream s;
  s.open = true;
  s.write = write;
  s.t = &t;
  s.elem = elem;
  const auto& g = c->run->cfg->gpsimd_cores;
  int open = 0;
  for (const auto& x : c->streams) open += x.open;
  if (c->fast_streams < g.max_streams) {
    uint32_t buf = 0;
    Span sp(*c, npusim::torchrt::kTcm);
    if (c->fw->heaps().neuron_dataram_allocate(npusim::fw::kBufferSizeBytes, &buf, 0) == 0) {
      s.fast = true;
      s.buf = buf;
      ++c->fast_streams;
      c->tcm_live += npusim::fw::kBufferSizeBytes;
      c->run->tcm_peak = std::max(c->run->tcm_peak, c->tcm_live);
    } else {
      c->run->warn(c, "stream without buffer", call, t.hbm,
                   fmt::format("stream {} of this core: no 4 KiB buffer left in the 16 KiB TCM pool; "
                               "it runs at standard-accessor speed",
                               open + 1));
    }
  } else {
    c->run->warn(c, "fifth stream", call, t.hbm,
                 fmt::format("stream {} of this core: only {} streams are fast; this one runs at "
                             "standard-accessor speed (every element an HBM trip)",
                             open + 1, g.max_streams));
  }
  c->streams.push_back(s);
  return static_cast<int>(c->streams.size()) - 1;
}

void stream_read(int slot, void* dst) {
  if (slot >= kHostSlot) {
    auto& h = next_host_stream(slot, "read_stream_accessor", "read");
    std::memcpy(dst, h.t->host.data() + h.pos++ * static_cast<int64_t>(h.elem), h.elem);
    return;
  }
  CoreCtx* c = current_ctx();
  if (c == nullptr) throw std::logic_error("a stream accessor used outside the run that opened it");
  auto& s = next_stream(*c, slot, "read", "an access");
  if (!s.fast) {
    element_load(*s.t, s.pos++, dst, s.elem);
    return;
  }
  if (s.pos < s.first || s.pos >= s.first + s.count) {
    ApiCall api(*c, "read_stream refill");
    s.first = s.pos;
    s.count = std::min<int64_t>(static_cast<int64_t>(npusim::fw::kBufferSizeBytes / s.elem), s.t->numel - s.pos);
    npusim::torchrt::check_header_write(*c, s.buf, npusim::fw::kBufferSizeBytes, s.buf,
                                        static_cast<uint64_t>(s.count) * s.elem,
                                        fmt::format("the 4 KiB buffer of stream {}", slot + 1), "read_stream refill");
    npusim::torchrt::dma_move(*c, s.buf, s.t->hbm + static_cast<uint64_t>(s.pos) * s.elem,
                              static_cast<uint64_t>(s.count) * s.elem, "read_stream_accessor");
  }
  ++c->t.tcm_accesses;
  Span sp(*c, npusim::torchrt::kTcm);
  c->core->read(s.buf + static_cast<uint64_t>(s.pos - s.first) * s.elem, dst, s.elem);
  ++s.pos;
}

void stream_write(int slot, const void* src) {
  if (slot >= kHostSlot) {
    auto& h = next_host_stream(slot, "write_stream_accessor", "write");
    std::memcpy(h.t->host.data() + h.pos++ * static_cast<int64_t>(h.elem), src, h.elem);
    return;
  }
  CoreCtx* c = current_ctx();
  if (c == nullptr) throw std::logic_error("a stream accessor used outside the run that opened it");
  auto& s = next_stream(*c, slot, "write", "a write");
  if (!s.fast) {
    element_store(*s.t, s.pos++, src, s.elem);
    return;
  }
  if (s.count == 0) s.first = s.pos;
  ++c->t.tcm_accesses;
  const uint64_t at = s.buf + static_cast<uint64_t>(s.count) * s.elem;
  npusim::torchrt::check_header_write(*c, s.buf, npusim::fw::kBufferSizeBytes, at, s.elem,
                                      fmt::format("the 4 KiB buffer of stream {}", slot + 1), "write_stream_accessor");
  {
    Span sp(*c, npusim::torchrt::kTcm);
    c->core->write(at, src, s.elem);
  }
  ++s.count;
  ++s.pos;
  if (static_cast<uint64_t>(s.count) * s.elem >= npusim::fw::kBufferSizeBytes) {
    ApiCall api(*c, "write_stream flush");
    flush(*c, s, "write_stream_accessor");
  }
}

void stream_close(int slot) {
  if (slot >= kHostSlot) {
    auto& h = host_streams().at(static_cast<size_t>(slot - kHostSlot));
    if (!h.closed) release_access(*h.t, h.write ? AccessKind::kWriteStream : AccessKind::kReadStream);
    h.closed = true;
    return;
  }
  CoreCtx* c = current_ctx();
  if (c == nullptr) return;  // a stream outliving its run
  auto& s = c->streams.at(static_cast<size_t>(slot));
  if (!s.open) return;
  release_access(*s.t, s.write ? AccessKind::kWriteStream : AccessKind::kReadStream);
  if (std::uncaught_exceptions() != 0) {  // the kernel is failing: abandon the stream
    s.open = false;
    return;
  }
  ApiCall api(*c, "close");
  if (s.fast) {
    flush(*c, s, "write_stream_accessor close");
    Span sp(*c, npusim::torchrt::kTcm);
    c->fw->heaps().neuron_dataram_deallocate(s.buf);
    --c->fast_streams;
    c->tcm_live -= npusim::fw::kBufferSizeBytes;
  }
  s.open = false;
}

void stream_close_at_scope_exit(int slot) noexcept(false) {
  if (std::uncaught_exceptions() == 0) {
    stream_close(slot);  // a fault here propagates and is reported like any other
    return;
  }
  try {
    stream_close(slot);  // abandons the stream: the exception in flight is the report
  } catch (...) {
  }
}

// --- TCM ---

void tcm_transfer(TensorImpl& t, bool to_tcm, void* tcm, size_t offset, size_t n, size_t elem,
                  ScalarType want, const char* call) {
  CoreCtx* c = current_ctx();
  if (!c || t.hbm == 0) {
    if (want != t.dtype) throw std::invalid_argument(std::string(call) + ": dtype mismatch");
    if (offset + n > static_cast<size_t>(t.numel)) throw std::out_of_range(std::string(call) + ": range outside the tensor");
    uint8_t* h = t.host.data() + offset * elem;
    if (to_tcm) std::memcpy(tcm, h, n * elem);
    else std::memcpy(h, tcm, n * elem);
    return;
  }
  npusim::torchrt::Run& r = *c->run;
  ApiCall api(*c, call);
  const uint64_t taddr = t.hbm + offset * elem;
  if (want != t.dtype)
    r.fail(c, FF::kUsage, call, t.hbm, fmt::format("{}<{}> on {} of dtype {}", call, dtype_name(want), t.name, dtype_name(t.dtype)));
  if (offset + n > static_cast<size_t>(t.numel))
    r.fail(c, FF::kBadAddress, call, taddr,
           fmt::format("elements [{}, {}) of {}, which has {}: {} outside its tensor", offset, offset + n,
                       t.name, t.numel, to_tcm ? "a read" : "a write"));
  const uint32_t dev = npusim::torchrt::tcm_device_addr(*c, tcm);
  if (dev == 0)
    r.fail(c, FF::kBadAddress, call, reinterpret_cast<uintptr_t>(tcm),
           fmt::format("the TCM pointer {} is not in this core's TCM (use torch::neuron::tcm_malloc){}",
                       tcm, tcm == nullptr ? " -- a failed tcm_malloc returns nullptr" : ""));
  auto blk = c->tcm_blocks.upper_bound(dev);
  const bool inside = blk != c->tcm_blocks.begin() && (--blk, dev + n * elem <= uint64_t{blk->first} + blk->second);
  if (!inside)
    r.fail(c, FF::kBadAddress, call, dev,
           fmt::format("the TCM range [0x{:x}, 0x{:x}) of {} bytes is not inside one tcm_malloc block", dev,
                       dev + n * elem, n * elem));
  npusim::torchrt::check_tcm_grant(*c, blk->first, call);
  if (to_tcm) {
    npusim::torchrt::check_header_write(*c, blk->first, blk->second, dev, n * elem,
                                        "the tcm_malloc block", call);
    npusim::torchrt::dma_move(*c, dev, taddr, n * elem, call);
    Span s(*c, npusim::torchrt::kCompute);
    c->core->compute(r.tcm_cycles * n);  // the kernel's work on the staged elements
  } else {
    npusim::torchrt::dma_move(*c, taddr, dev, n * elem, call);
    if (r.dst.defined() && r.dst.impl().get() == &t) c->dst_writes.emplace_back(taddr, taddr + n * elem);
  }
}

}  // namespace torch::detail

namespace torch::neuron {

using npusim::torchrt::ApiCall;
using npusim::torchrt::CoreCtx;
using npusim::torchrt::current_ctx;
using npusim::torchrt::FF;
using npusim::torchrt::Span;

void* tcm_malloc(size_t bytes) {
  CoreCtx* c = current_ctx();
  if (!c) return std::malloc(bytes);
  ApiCall api(*c, "tcm_malloc");
  npusim::torchrt::acquire_tcm_grant(*c, "tcm_malloc");
  uint32_t p = 0;
  int r;
  {
    Span s(*c, npusim::torchrt::kTcm);
    r = bytes > 0xffffffffu ? -1 : c->fw->heaps().neuron_dataram_allocate(static_cast<uint32_t>(bytes), &p, 0);
  }
  if (r != 0) {
    // The documented result is nullptr; a kernel that goes on to use it would fault on the
    // device, and a host dereference would crash the simulator: the run fails here.
    c->run->fail(c, FF::kAllocFailure, "tcm_malloc", 0,
                 fmt::format("tcm_malloc({}) failed: the 16 KiB TCM pool has {} bytes in use by this kernel "
                             "({} blocks; stream buffers take 4 KiB each); the kernel exceeds the TCM pool",
                             bytes, c->tcm_live, c->tcm_blocks.size()));
  }
  c->tcm_blocks[p] = static_cast<uint32_t>(bytes);
  c->tcm_block_grant[p] = c->tcm_grant;
  // The kernel's own stores into the block are host stores: reported when handed out.
  npusim::torchrt::check_header_write(*c, p, bytes, p, bytes, "the tcm_malloc block", "tcm_malloc",
                                      "the kernel's stores into the overlap corrupt the heap");
  c->tcm_live += bytes;
  c->run->tcm_peak = std::max(c->run->tcm_peak, c->tcm_live);
  return c->tcm_host + (p - c->tcm_base);
}

void tcm_free(void* ptr) {
  if (ptr == nullptr) return;
  CoreCtx* c = current_ctx();
  if (!c) {
    std::free(ptr);
    return;
  }
  ApiCall api(*c, "tcm_free");
  const uint32_t dev = npusim::torchrt::tcm_device_addr(*c, ptr);
  auto it = c->tcm_blocks.find(dev);
  if (dev == 0 || it == c->tcm_blocks.end())
    c->run->fail(c, FF::kDoubleFree, "tcm_free", dev ? dev : reinterpret_cast<uintptr_t>(ptr),
                 "tcm_free of a pointer that is not a live tcm_malloc block (double free or bad pointer)");
  Span s(*c, npusim::torchrt::kTcm);
  c->fw->heaps().neuron_dataram_deallocate(dev);
  c->tcm_live -= it->second;
  c->tcm_blocks.erase(it);
  c->tcm_block_grant.erase(dev);
}

}  // namespace torch::neuron

using npusim::torchrt::CoreCtx;
using npusim::torchrt::current_ctx;
using npusim::torchrt::FF;

uint32_t get_cpu_id() {
  CoreCtx* c = current_ctx();
  return c ? static_cast<uint32_t>(c->id) : 0;
}
uint32_t get_cpu_count() {
  CoreCtx* c = current_ctx();
  if (!c) return 1;
  return c->run->spec.multicore ? static_cast<uint32_t>(c->run->ctx.size()) : 1;
}
torch::Tensor get_dst_tensor() {
  CoreCtx* c = current_ctx();
  if (!c) throw std::logic_error("get_dst_tensor outside a multicore kernel");
  if (!c->run->dst.defined())
    c->run->fail(c, FF::kUsage, "get_dst_tensor", 0, "get_dst_tensor() is only available in multicore mode");
  return c->run->dst;
}

// ===================== bulk operations (fills, element-wise) =====================

namespace torch::detail {
namespace {
// The core port that moves a device tensor's bytes: the running core's, else (a tensor op on
// the host after the kernel) core 0's, by debug transport.
npusim::models::Core& bulk_port(CoreCtx* c) {
  if (c) return *c->core;
  if (npusim::torchrt::g_run == nullptr) throw std::logic_error("a device tensor used outside the op run that made it");
  return npusim::torchrt::g_run->p->core(0);
}
void bulk_move(const TensorImpl& t, bool write, void* data) {
  CoreCtx* c = current_ctx();
  npusim::models::Core& port = bulk_port(c);
  if (c) {
    c->t.bulk_bytes += t.nbytes();
    Span s(*c, npusim::torchrt::kHbm);
    npusim::torchrt::port_move(port, write, t.hbm, data, t.nbytes());
  } else {
    npusim::torchrt::port_move(port, write, t.hbm, data, t.nbytes());
  }
}
}  // namespace

// Reads a tensor's data (host or HBM) into a host buffer and writes one back: in a kernel,
// through the core's port into HBM (the hbm column), as the library's own loads and stores.
std::vector<uint8_t> bytes_of(const TensorImpl& t) {
  if (t.hbm == 0) return t.host;
  std::vector<uint8_t> v(t.nbytes());
  bulk_move(t, false, v.data());
  return v;
}
void set_bytes(TensorImpl& t, const std::vector<uint8_t>& v) {
  if (t.hbm == 0) {
    t.host = v;
    return;
  }
  std::vector<uint8_t> copy = v;  // the port takes a mutable buffer
  bulk_move(t, true, copy.data());
}
// A library op (fill, element-wise op) on a simulated core is one library call from op_scope()
// to the end of the returned scope (nested ops are part of the outer one); op_work charges its
// element work. On the host both do nothing.
std::shared_ptr<void> op_scope() {
  CoreCtx* c = current_ctx();
  if (!c || c->op_depth > 0) return nullptr;
  auto* call = new ApiCall(*c, "tensor op");
  ++c->op_depth;
  return std::shared_ptr<void>(call, [c](void* p) {
    --c->op_depth;
    delete static_cast<ApiCall*>(p);
  });
}
void op_work(int64_t elems) {
  CoreCtx* c = current_ctx();
  if (!c) return;
  Span s(*c, npusim::torchrt::kCompute);
  c->core->compute(c->run->cfg->gpsimd_cores.op_cycles_per_element * static_cast<uint64_t>(elems));
}
std::shared_ptr<TensorImpl> new_tensor(IntArrayRef sizes, ScalarType dtype, const char* call) {
  auto t = make_host_tensor(sizes, dtype);
  CoreCtx* c = current_ctx();
  if (c) {
    t->hbm = c->run->hbm_alloc(t->nbytes(), c, call);
    t->name = fmt::format("tensor@0x{:x}", t->hbm);
  } else {
    t->host.assign(t->nbytes(), 0);
    t->name = "host tensor";
  }
  return t;
}
[[noreturn]] void op_error(const std::string& call, const std::string& msg) {
  CoreCtx* c = current_ctx();
  if (c) c->run->fail(c, FF::kUsage, call, 0, msg);
  throw std::invalid_argument(call + ": " + msg);
}
}  // namespace torch::detail

// Registration and kernel lookup: firmware/torch/op_lookup.cpp.

// ===================== one run =====================

namespace npusim::torchrt {

namespace {

// An input in HBM: the tensor arena's space now; its data is loaded by core 0 before the
// kernel starts (load_inputs).
torch::Tensor to_hbm(Run& r, const torch::Tensor& host, const std::string& name) {
  auto t = std::make_shared<TensorImpl>(*host.impl());
  t->host.clear();
  t->hbm = r.hbm_alloc(std::max<uint64_t>(t->nbytes(), 1), nullptr, "input");
  t->name = name;
  return torch::Tensor(t);
}

// Core 0, before any kernel: every input's data through its port into HBM (the host's copy
// to the device), then the kernels start.
void load_inputs(Run& r, CoreCtx& c) {
  r.in_copy.start_ns = now_ns(c);
  for (size_t i = 0; i < r.inputs.size(); ++i) {
    std::vector<uint8_t>& data = r.input_data[i].impl()->host;
    port_move(*c.core, true, r.inputs[i].impl()->hbm, data.data(), data.size());
    r.in_copy.bytes += data.size();
  }
  c.core->sync();
  r.kernel_start_ns = r.in_copy.end_ns = now_ns(c);
  r.inputs_loaded = true;
  r.loaded.notify(sc_core::SC_ZERO_TIME);
}

// Core 0, after the last kernel ended: the result read back through its port (the device's
// copy to the host).
void read_output(Run& r, CoreCtx& c) {
  while (r.done_cores < r.ncores) c.core->wait_for(r.core_done);
  const torch::Tensor& dev = r.spec.multicore ? r.dst : r.output;
  if (!dev.defined() || dev.impl()->hbm == 0) return;
  auto t = std::make_shared<TensorImpl>(*dev.impl());
  t->host.resize(t->nbytes());
  r.out_copy.start_ns = now_ns(c);
  port_move(*c.core, false, t->hbm, t->host.data(), t->nbytes());
  c.core->sync();
  r.out_copy.end_ns = now_ns(c);
  r.out_copy.bytes = t->nbytes();
  t->hbm = 0;
  t->name = "output";
  r.output_host = torch::Tensor(t);
}

void core_program(Run& r, CoreCtx& c) {
  // Every kernel starts in the same delta cycle, after core 0 loaded the inputs.
  if (c.id == 0) load_inputs(r, c);
  if (c.id == 0 || !r.inputs_loaded) c.core->wait_for(r.loaded);
  fw::bind_to_core(*c.fw);
  ctx_map()[c.core] = &c;
  c.t.ran = true;
  c.t.start_ns = now_ns(c);
  if (c.fw->init_neuron_dataram_allocator() != 0)
    r.fail(&c, FF::kUsage, "init_neuron_dataram_allocator", 0, "the dataram heap could not be initialised");
  // The stack: above the threshold it moves to HBM (stack switch).
  const auto& g = r.cfg->gpsimd_cores;
  const double setup0 = c.t.ns[kStack];
  if (r.stack_size > static_cast<long long>(g.hbm_stack_threshold)) {
    Span s(c, kStack);
    if (c.fw->init_neuron_hbm_allocator() != 0)
      r.fail(&c, FF::kUsage, "init_neuron_hbm_allocator", 0, "the HBM heap could not be initialised");
    try {
      c.fw->allocate_hbm_stack(static_cast<uint32_t>(std::min<long long>(r.stack_size, 0xffffffffll)), 0, 1);
    } catch (const FF& e) {
      r.fail(&c, e.kind(), "allocate_hbm_stack", 0,
             fmt::format("STACK_SIZE={}: {}", r.stack_size, e.what()));
    }
  }
  c.t.stack_setup_ns += c.t.ns[kStack] - setup0;
  std::vector<torch::Tensor> ts = r.inputs;
  volatile char entry = 0;
  c.entry_sp = reinterpret_cast<uintptr_t>(&entry);
  torch::Tensor out = r.def->kernel_invoker(r.def->kernel_fn, ts, r.spec.scalars);
  c.entry_sp = 0;
  c.last_call = "kernel return";
  for (size_t i = 0; i < c.streams.size(); ++i)
    if (c.streams[i].open) {
      r.warn(&c, "stream left open", "kernel return", c.streams[i].t->hbm,
             fmt::format("stream {} was not closed; closed at kernel return", i + 1));
      torch::detail::stream_close(static_cast<int>(i));
    }
  if (!c.tcm_blocks.empty())
    r.warn(&c, "tcm leak", "kernel return", c.tcm_blocks.begin()->first,
           fmt::format("{} tcm_malloc block(s) ({} bytes) not freed", c.tcm_blocks.size(), c.tcm_live));
  if (!r.spec.multicore) {
    if (!out.defined()) r.fail(&c, FF::kUsage, "kernel return", 0, "the kernel returned no tensor");
    r.output = out;
  }
  if (c.fw->stack().hbm_stack != 0) {
    const double t0 = c.t.ns[kStack];
    {
      Span s(c, kStack);
      c.fw->free_hbm_stack();
    }
    c.t.stack_setup_ns += c.t.ns[kStack] - t0;
  }
  c.core->sync();
  c.t.end_ns = now_ns(c);
  ++r.done_cores;
  r.core_done.notify(sc_core::SC_ZERO_TIME);
  if (c.id == 0) read_output(r, c);
}

}  // namespace

OpResult run_op(const fw::NeuronPlatformConfig& cfg, const OpSpec& spec_in) {
  OpResult res;
  OpSpec spec = spec_in;
  const auto* def = torch::npusim_op::find_op(spec.op);
  if (def == nullptr) {
    std::string known;
    for (const auto* d : torch::npusim_op::ops()) known += (known.empty() ? "" : ", ") + d->name;
    throw std::invalid_argument(fmt::format("no torch op '{}' (registered: {})", spec.op, known));
  }
  auto& mdef = const_cast<torch::npusim_op::OpDef&>(*def);
  if (mdef.kernel_fn == nullptr) torch::npusim_op::resolve_kernel(mdef);
  // A library built with `npusim op build --multicore` runs on every core (multicore=True).
  if (def->multicore == 1) spec.multicore = true;
  res.multicore = spec.multicore;
  size_t nt = 0, ns = 0;
  for (char k : def->kinds) (k == 't' ? nt : ns)++;
  if (nt != spec.tensors.size() || ns != spec.scalars.size())
    throw std::invalid_argument(fmt::format("op '{}' takes {} tensor(s) and {} scalar(s); the scenario gives {} and {}",
                                            spec.op, nt, ns, spec.tensors.size(), spec.scalars.size()));
  // The shape function runs on the host, as in the framework.
  torch::Tensor shape = def->shape_invoker(def->shape, spec.tensors, spec.scalars);
  if (!shape.defined()) throw std::invalid_argument("op '" + spec.op + "': the shape function returned no tensor");

  Run r;
  r.cfg = &cfg;
  r.def = def;
  r.spec = spec;
  r.stack_size = spec.stack_size >= 0 ? spec.stack_size : def->stack_size;
  r.stack_limit = r.stack_size >= 0 ? static_cast<uint64_t>(r.stack_size) : cfg.firmware.local_stack_bytes;
  r.tcm_cycles = spec.tcm_cycles_per_element ? spec.tcm_cycles_per_element : cfg.gpsimd_cores.tcm_cycles_per_element;
  res.kernel = def->kernel;
  res.mangled = def->mangled;
  res.stack_size = r.stack_size;
  res.clock_ghz = cfg.core.clock_ghz;
  res.hbm_stack = r.stack_size > static_cast<long long>(cfg.gpsimd_cores.hbm_stack_threshold);
  if (r.stack_size > static_cast<long long>(cfg.gpsimd_cores.documented_max_stack) && r.stack_size <= fw::kMaxStackSize)
    r.warn(nullptr, "stack above documented maximum", "STACK_SIZE", 0,
           fmt::format("STACK_SIZE={} is above the documented maximum of {} bytes (the library accepts up to {})",
                       r.stack_size, cfg.gpsimd_cores.documented_max_stack, fw::kMaxStackSize));

  GpsimdPlatform p("gpsimd", cfg);
  r.p = &p;
  if (spec.on_built) spec.on_built(p);
  g_run = &r;
  r.arena_next = p.arena_base();
  r.arena_end = r.arena_next + cfg.gpsimd_cores.tensor_arena_bytes;
  for (size_t i = 0; i < spec.tensors.size(); ++i) {
    r.inputs.push_back(to_hbm(r, spec.tensors[i], fmt::format("input {}", i)));
    r.input_data.push_back(spec.tensors[i]);
  }
  if (spec.multicore) {
    auto d = torch::detail::make_host_tensor(shape.sizes(), shape.scalar_type());
    d->hbm = r.hbm_alloc(std::max<uint64_t>(d->nbytes(), 1), nullptr, "get_dst_tensor");
    d->name = "the dst tensor";
    r.dst = torch::Tensor(d);
  }
  const size_t ncores = spec.multicore ? p.core_count() : 1;
  r.ncores = ncores;
  r.ctx.resize(p.core_count());
  for (size_t i = 0; i < p.core_count(); ++i) {
    CoreCtx& c = r.ctx[i];
    c.id = static_cast<int>(i);
    c.core = &p.core(i);
    c.dma = &p.dma(i);
    c.fw = &p.firmware(i);
    c.run = &r;
    if (i >= ncores) continue;
    c.core->set_dmi_invalidation_hook([&c](uint64_t lo, uint64_t hi) { tcm_invalidated(c, lo, hi); });
    c.core->set_program([&r, &c](models::Core&) { core_program(r, c); });
    c.core->set_exit_handler([&r, &c](models::Core&, std::exception_ptr e) {
      if (!e) return;
      c.t.end_ns = c.core->now().to_seconds() * 1e9;
      if (!r.error) {
        r.error = e;
        r.error_core = c.id;
        sc_core::sc_stop();
      }
    });
  }
  std::vector<TransferRecord> transfers;
  if (spec.record)
    for (size_t i = 0; i < ncores; ++i)
      p.dma(i).set_span_hook([&transfers, i](uint32_t ch, const models::DmaDescriptor& d, sc_core::sc_time s,
                                             sc_core::sc_time e) {
        transfers.push_back(TransferRecord{static_cast<int>(i), ch, d.src, d.dst, d.len, d.call_site,
                                           s.to_seconds() * 1e9, e.to_seconds() * 1e9});
      });
  sc_core::sc_start();
  res.transfers = std::move(transfers);
  if (r.error) {
    res.failed = true;
    try {
      std::rethrow_exception(r.error);
    } catch (const FF& e) {
      res.fault_kind = FF::kind_name(e.kind());
      res.fault_message = e.what();
    } catch (const models::DmaAbort& e) {
      res.fault_kind = "dma fault";
      res.fault_message = fmt::format("kernel {} on core {}: {}", def->kernel, r.error_core, e.what());
    } catch (const models::BusError& e) {
      res.fault_kind = "bus error";
      res.fault_message = fmt::format("kernel {} on core {}, call {}: {}", def->kernel, r.error_core,
                                      r.ctx[static_cast<size_t>(r.error_core)].last_call, e.what());
    } catch (const std::exception& e) {
      res.fault_kind = "error";
      res.fault_message = fmt::format("kernel {} on core {}, call {}: {}", def->kernel, r.error_core,
                                      r.ctx[static_cast<size_t>(r.error_core)].last_call, e.what());
    }
    bool reported = false;
    for (const auto& d : r.diags) reported = reported || (d.severity == "error" && d.message == res.fault_message);
    if (!reported)
      r.diags.push_back(Diagnostic{"error", res.fault_kind, def->kernel, r.ctx[static_cast<size_t>(r.error_core)].last_call,
                                   res.fault_message, r.error_core, 0});
  } else {
    // Overlapping writes of the dst tensor by different cores.
    struct W { uint64_t lo, hi; int core; };
    std::vector<W> ws;
    for (const auto& c : r.ctx)
      for (const auto& [lo, hi] : c.dst_writes) ws.push_back(W{lo, hi, c.id});
    std::sort(ws.begin(), ws.end(), [](const W& a, const W& b) { return a.lo < b.lo; });
    uint64_t reach = 0;
    int reach_core = -1;
    for (const auto& w : ws) {
      if (w.lo < reach && w.core != reach_core) {
        const size_t es = torch::element_size(r.dst.scalar_type());
        const uint64_t base = r.dst.impl()->hbm;
        Diagnostic d{"error", "overlapping writes", def->kernel, "tcm_to_tensor", "", w.core, w.lo};
        d.message = fmt::format("kernel {}: cores {} and {} both wrote elements [{}, {}) of the dst tensor "
                                "(bytes 0x{:x}..0x{:x}); the result depends on timing",
                                def->kernel, reach_core, w.core, (w.lo - base) / es,
                                (std::min(reach, w.hi) - base) / es, w.lo, std::min(reach, w.hi));
        r.diags.push_back(d);
        res.failed = true;
        res.fault_kind = "overlapping writes";
        res.fault_message = d.message;
        break;
      }
      if (w.hi > reach) {
        reach = w.hi;
        reach_core = w.core;
      }
    }
    torch::Tensor out = spec.multicore ? r.dst : r.output;
    if (out.defined()) res.output = out.impl()->hbm ? r.output_host : out;
  }
  for (auto& c : r.ctx) {
    if (!c.t.ran) continue;
    if (c.t.end_ns == 0) c.t.end_ns = c.core->now().to_seconds() * 1e9;  // stopped by another core's fault
    res.cores.push_back(c.t);
    res.calls.push_back(std::move(c.calls));
    res.duration_ns = std::max(res.duration_ns, c.t.end_ns - r.kernel_start_ns);
  }
  res.kernel_start_ns = r.kernel_start_ns;
  res.inputs_copy = r.in_copy;
  res.output_copy = r.out_copy;
  for (size_t i = 0; i < p.core_count(); ++i)
    for (const auto& ch : p.dma(i).channel_stats()) {
      res.dma_bytes += ch.bytes;
      res.dma_descriptors += ch.descriptors;
    }
  res.hbm_bytes = p.hbm().stats().bytes();
  res.hbm_requests = p.hbm().stats().requests();
  res.tcm_peak_bytes = r.tcm_peak;
  res.diagnostics = r.diags;
  ctx_map().clear();
  g_run = nullptr;
  return res;
}

}  // namespace npusim::torchrt
