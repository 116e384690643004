// Kernel code timing, the runtime side (kernel_cost.h, kernel_cost_abi.h). Kernels of all cores
// run in one OS thread (SystemC coroutines) and switch only inside runtime calls, after the
// call drained npusim_kernel_cycles: one global sum serves every core.
#include "firmware/torch/kernel_cost.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "firmware/torch/runtime_internal.h"

extern "C" {
uint64_t npusim_kernel_cycles = 0;
// Until a run prices the modules: about one quantum (1000 cycles) of compute.
uint64_t npusim_kernel_limit = uint64_t{1000} << (NPUSIM_KC_UNIT_SHIFT + NPUSIM_KC_MEMORY_BITS);
}

namespace {
// The modules registered (a plain list: registration runs in static constructors, possibly
// before this file's own).
npusim_kc_module* g_modules = nullptr;
constexpr uint64_t kMemoryMask = (uint64_t{1} << NPUSIM_KC_MEMORY_BITS) - 1;
}  // namespace

extern "C" void npusim_kernel_cost_register(npusim_kc_module* m) {
  if (m == nullptr) return;
  m->next = g_modules;
  g_modules = m;
}

namespace npusim::torchrt {

void price_kernel_code(const fw::KernelCostConfig& cost, bool hbm_stack, uint64_t quantum_cycles) {
  const double unit = double(1u << NPUSIM_KC_UNIT_SHIFT);
  std::array<double, NPUSIM_KC_COUNT> cyc = cost.cycles;
  if (hbm_stack) cyc[NPUSIM_KC_STACK_LOAD] = cyc[NPUSIM_KC_STACK_STORE] = cost.hbm_stack_access_cycles;
  auto price = [&](const uint32_t* n, bool memory) {
    double s = 0;
    for (int k = memory ? NPUSIM_KC_FIRST_MEMORY : 0; k < (memory ? NPUSIM_KC_COUNT : NPUSIM_KC_FIRST_MEMORY); ++k)
      s += n[k] * cyc[k];
    return s;
  };
  // Field limits: the compute part of one block below 2^22 units, the memory part below 2^38.
  const uint64_t max_compute = uint64_t{1} << 22, max_memory = uint64_t{1} << 38;
  uint64_t worst_memory = 1;
  for (npusim_kc_module* m = g_modules; m != nullptr; m = m->next) {
    if (m->abi_version != NPUSIM_KC_ABI_VERSION || m->categories != NPUSIM_KC_COUNT)
      throw std::invalid_argument(fmt::format(
          "{}: annotated by another version of the npusim kernel-cost pass (interface {}, {} categories; this "
          "npusim: {}, {}): rebuild it with this npusim's `npusim op build` or its CMake functions",
          m->source ? m->source : "a kernel library", m->abi_version, m->categories, NPUSIM_KC_ABI_VERSION,
          NPUSIM_KC_COUNT));
    std::vector<double> stall(m->blocks, 0.0);
    for (uint32_t l = 0; l < m->loops; ++l) {
      const npusim_kc_loop& lp = m->loop[l];
      double chain = 0;
      for (int k = 0; k < NPUSIM_KC_COUNT; ++k) chain += lp.chain[k] * cost.latency[k];
      const double iteration = price(lp.always, false) + price(lp.always, true);
      if (lp.latch < m->blocks) stall[lp.latch] = std::max(stall[lp.latch], chain - iteration);
    }
    for (uint32_t b = 0; b < m->blocks; ++b) {
      const uint32_t* n = m->counts + size_t{b} * NPUSIM_KC_COUNT;
      // Every block costs at least one unit of compute: the memory part of the sum never
      // outgrows the blocks counted (see npusim_kernel_limit below).
      const uint64_t c = std::clamp<uint64_t>(std::llround((price(n, false) + stall[b]) * unit), 1, max_compute);
      const uint64_t mem = std::min<uint64_t>(std::llround(price(n, true) * unit), max_memory);
      worst_memory = std::max(worst_memory, mem);
      m->block_cost[b] = (c << NPUSIM_KC_MEMORY_BITS) | mem;
    }
    for (int k = 0; k < NPUSIM_KC_COUNT; ++k) {
      const uint64_t u = std::min<uint64_t>(std::llround(cyc[k] * unit), max_memory);
      m->unit_cost[k] = k >= NPUSIM_KC_FIRST_MEMORY ? u : std::max<uint64_t>(u, 1) << NPUSIM_KC_MEMORY_BITS;
    }
  }
  // The safepoint about once per quantum of compute; fewer blocks between two drains when a
  // block's memory part is large, so the memory part (40 bits) never carries into the compute
  // part: at most limit + 2^22 blocks run between drains.
  uint64_t limit = std::clamp<uint64_t>(quantum_cycles << NPUSIM_KC_UNIT_SHIFT, 1, max_compute);
  limit = std::min<uint64_t>(limit, std::max<uint64_t>(1, (uint64_t{1} << 39) / worst_memory / 2));
  npusim_kernel_limit = limit << NPUSIM_KC_MEMORY_BITS;
  npusim_kernel_cycles = 0;
}

bool kernel_code_timed(const void* fn, std::string* source) {
  for (const npusim_kc_module* m = g_modules; m != nullptr; m = m->next)
    for (uint32_t f = 0; f < m->functions; ++f)
      if (m->function[f] == fn) {
        if (source) *source = m->source ? m->source : "";
        return true;
      }
  return false;
}

void reset_kernel_code() {
  npusim_kernel_cycles = 0;
  tcm_check_reset();
}

void charge_kernel_code(CoreCtx& c) {
  tcm_check_reset();  // another core may run before the kernel's code resumes
  const uint64_t v = npusim_kernel_cycles;
  if (v == 0) return;
  npusim_kernel_cycles = 0;
  c.kernel_compute_units += v >> NPUSIM_KC_MEMORY_BITS;
  c.kernel_memory_units += v & kMemoryMask;
  const uint64_t compute = c.kernel_compute_units >> NPUSIM_KC_UNIT_SHIFT;
  const uint64_t memory = c.kernel_memory_units >> NPUSIM_KC_UNIT_SHIFT;
  c.kernel_compute_units &= (1u << NPUSIM_KC_UNIT_SHIFT) - 1;
  c.kernel_memory_units &= (1u << NPUSIM_KC_UNIT_SHIFT) - 1;
  if (compute != 0) charge(c, TimeKind::kCompute, compute);
  if (memory != 0) charge(c, TimeKind::kTcmStack, memory);
}

}  // namespace npusim::torchrt

// A long stretch of annotated code: its cycles charged to the core that ran it, the core's
// quantum honoured (other cores run their share), and the kernel's safe point (a stop request,
// a spent cycle or wall budget ends the kernel there; the exception unwinds through the
// annotated code).
extern "C" void npusim_kernel_safepoint(void) {
  using namespace npusim::torchrt;
  CoreCtx* c = current_ctx();
  if (c == nullptr) {
    reset_kernel_code();
    return;
  }
  charge_kernel_code(*c);
  kernel_safepoint("kernel code");
}
