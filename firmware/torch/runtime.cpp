// The core context of a running kernel: the run in progress, the time kinds, stack checks, DMA
// and port moves, the TCM's DMI grant and the heap-header check (runtime_internal.h). The
// other parts: gpsimd_platform.cpp (the cores), accessors.cpp, streams.cpp, tcm.cpp,
// bulk.cpp (library ops' data) and op_runner.cpp (one op run). docs/custom-ops.md.
#include "firmware/torch/runtime_internal.h"

#include "allocators/neuron/neuron_layout.h"
#include "allocators/xmem/xmem_heap.h"

#include <cmath>
#include <unordered_map>

namespace npusim::torchrt {

const char* time_kind_name(TimeKind k) {
  switch (k) {
    case TimeKind::kCompute: return "compute";
    case TimeKind::kTcmStack: return "tcm_stack";
    case TimeKind::kAccessorHbm: return "accessor_hbm";
    case TimeKind::kDmaWait: return "dma_wait";
    case TimeKind::kCoreWait: return "core_wait";
    case TimeKind::kLibrary: return "library";
  }
  return "?";
}

double units_ns(uint64_t units) { return sc_core::sc_time::from_value(units).to_seconds() * 1e9; }
double CoreTimes::ns(TimeKind k) const { return units_ns(by_kind[index_of(k)]); }
double CoreTimes::total_ns() const { return units_ns(op_end - start); }

std::array<uint64_t, kTimeKinds> kind_cycles(const CoreTimes& t, double clock_ghz) {
  std::array<uint64_t, kTimeKinds> out{};
  uint64_t cumulative = 0, printed = 0;
  for (size_t k = 0; k < kTimeKinds; ++k) {
    cumulative += t.by_kind[k];
    const auto upto = static_cast<uint64_t>(std::llround(units_ns(cumulative) * clock_ghz));
    out[k] = upto - printed;
    printed = upto;
  }
  return out;
}
uint64_t total_cycles(const CoreTimes& t, double clock_ghz) {
  return static_cast<uint64_t>(std::llround(t.total_ns() * clock_ghz));
}

Run* g_run = nullptr;

namespace {
std::unordered_map<const models::Core*, CoreCtx*> g_ctx;  // the cores running a kernel
// current_ctx's last context found and the SystemC process and run it was for: a standard
// accessor asks once per element, and the process stays the same from one element to the
// next. A miss is not kept (a core asking before its kernel starts sees its context after).
struct LastCtx {
  const sc_core::sc_process_b* proc = nullptr;
  const Run* run = nullptr;
  CoreCtx* ctx = nullptr;
} g_last;
}  // namespace

void charge(TimeKind kind, uint64_t cycles) {
  if (CoreCtx* c = current_ctx()) charge(*c, kind, cycles);
}

void set_core_ctx(const models::Core* core, CoreCtx* c) {
  g_ctx[core] = c;
  g_last = LastCtx{};
}
void forget_core_ctx() { g_last = LastCtx{}; }
void clear_core_ctx() {
  g_ctx.clear();
  g_last = LastCtx{};
}

CoreCtx* current_ctx() {
  if (g_run == nullptr) return nullptr;
  const sc_core::sc_process_b* proc = sc_core::sc_get_current_process_b();
  if (proc != nullptr && proc == g_last.proc && g_run == g_last.run) return g_last.ctx;
  models::Core* c = models::Core::current();
  CoreCtx* found = nullptr;
  if (c != nullptr) {
    const auto it = g_ctx.find(c);
    if (it != g_ctx.end()) found = it->second;
  }
  if (proc != nullptr && found != nullptr) g_last = LastCtx{proc, g_run, found};  // hits only
  return found;
}

void port_move(models::Core& core, bool write, uint64_t a, void* p, size_t n) {
  auto* b = static_cast<uint8_t*>(p);
  for (size_t off = 0; off < n; off += kPortChunk) {
    const size_t len = std::min(kPortChunk, n - off);
    if (write) core.write(a + off, b + off, len);
    else core.read(a + off, b + off, len);
  }
}

void port_fill(models::Core& core, uint64_t a, const uint8_t* chunk, size_t n) {
  for (size_t off = 0; off < n; off += kPortChunk) core.write(a + off, chunk, std::min(kPortChunk, n - off));
}

namespace {
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
}  // namespace

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

void dataram_heap_op(CoreCtx& c, bool is_alloc, int status) {
  const fw::FirmwareHooks& h = c.fw->hooks();
  if (h.heap_op) h.heap_op(alloc::neuron::HeapId::kDataram, is_alloc, status);
  if (h.heap_changed) h.heap_changed(alloc::neuron::HeapId::kDataram);
}

void kernel_checkpoint(CoreCtx& c, const char* where) {
  fw::at_call_boundary(where, now_ns(c));  // progress; StopRequested after SIGINT/SIGTERM
  Run& r = *c.run;
  if (wall_budget_spent())
    r.fail_kernel(&c, "wall-clock budget exceeded", where, 0,
                  fmt::format("the op run took more than its wall-clock budget of {} s (gpsimd.wall_budget_s)",
                              r.wall_budget_s));
  if (c.cycle_end != sc_core::SC_ZERO_TIME && c.core->now() > c.cycle_end)
    r.fail_kernel(&c, "cycle budget exceeded", where, 0,
                  fmt::format("the kernel ran more than its cycle budget of {} cycles on its core "
                              "(gpsimd.cycle_budget)",
                              r.cycle_budget));
}

void kernel_safepoint(const char* where) {
  CoreCtx* c = current_ctx();
  if (c != nullptr && c->entry_sp != 0 && checkpoint_due(*c)) kernel_checkpoint(*c, where);
}

// DMA between HBM and the core's TCM over all of the core's channels; waits for completion.
void dma_move(CoreCtx& c, uint64_t dst, uint64_t src, uint64_t n, const char* call) {
  TimeScope s(c, TimeKind::kDmaWait);
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

// The first write into the dataram heap header from a block of the pool: with the
// seed layout the header lies inside the pool, so the third 4 KiB block overlaps it. Reported
// once per block, at the write (a stream element, a refill or tensor_to_tcm), before the
// corrupted heap faults at a later free.
void check_header_write(CoreCtx& c, uint64_t block, uint64_t block_bytes, uint64_t lo, uint64_t n,
                        const std::string& what, const char* call, const char* effect) {
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

}  // namespace npusim::torchrt
