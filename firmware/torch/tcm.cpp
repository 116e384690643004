// The torch API on a simulated core, part 3: the TCM accessor's transfers (DMA), tcm_malloc and
// tcm_free (the dataram heap, pointers of the core's DMI grant of its TCM), the bounds check of
// the kernel's own TCM accesses and the core ids.
#include "firmware/torch/runtime_internal.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <stdexcept>

#include <neuron/neuron-utils.hpp>

namespace torch::detail {

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
  // The library starting the transfer (gpsimd.tcm_copy_cycles), then the DMA itself.
  npusim::torchrt::charge(*c, npusim::torchrt::TimeKind::kDmaWait, r.cfg->gpsimd_cores.tcm_copy_cycles);
  if (to_tcm) {
    npusim::torchrt::check_header_write(*c, blk->first, blk->second, dev, n * elem,
                                        "the tcm_malloc block", call);
    npusim::torchrt::dma_move(*c, dev, taddr, n * elem, call);
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
using npusim::torchrt::TimeKind;
using npusim::torchrt::TimeScope;

void* tcm_malloc(size_t bytes) {
  CoreCtx* c = current_ctx();
  if (!c) return std::malloc(bytes);
  ApiCall api(*c, "tcm_malloc");
  npusim::torchrt::acquire_tcm_grant(*c, "tcm_malloc");
  uint32_t p = 0;
  int r;
  {
    TimeScope s(*c, TimeKind::kTcmStack);
    r = bytes > 0xffffffffu ? -1 : c->fw->heaps().neuron_dataram_allocate(static_cast<uint32_t>(bytes), &p, 0);
  }
  npusim::torchrt::dataram_heap_op(*c, true, r);
  if (r != 0) {
    // The documented result is nullptr; a kernel that goes on to use it would fault on the
    // device, and a host dereference would crash the simulator: the run fails here.
    c->run->fail(c, FF::kAllocFailure, "tcm_malloc", 0,
                 fmt::format("tcm_malloc({}) failed: the 16 KiB TCM pool has {} bytes in use by this kernel "
                             "({} blocks; stream buffers take 4 KiB each); the kernel exceeds the TCM pool",
                             bytes, c->tcm_live, c->tcm_blocks.size()));
  }
  c->tcm_blocks[p] = static_cast<uint32_t>(bytes);
  // A freed block this one reuses is no longer "freed" for the bounds check's messages.
  for (auto f = c->tcm_freed.begin(); f != c->tcm_freed.end();)
    f = f->first < p + bytes && p < f->first + uint64_t{f->second} ? c->tcm_freed.erase(f) : std::next(f);
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
  {
    TimeScope s(*c, TimeKind::kTcmStack);
    npusim::torchrt::dataram_heap_op(*c, false, c->fw->heaps().neuron_dataram_deallocate(dev));
  }
  c->tcm_live -= it->second;
  c->tcm_freed[dev] = it->second;
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

// The TCM bounds check (kernel_cost_abi.h): the inline test's state and its slow path.
extern "C" {
uintptr_t npusim_tcm_block_lo = UINTPTR_MAX;
uintptr_t npusim_tcm_block_end = 0;
uintptr_t npusim_tcm_lo = 0;
uintptr_t npusim_tcm_size = UINTPTR_MAX;
}

namespace npusim::torchrt {

void tcm_check_reset() {
  npusim_tcm_block_lo = UINTPTR_MAX;
  npusim_tcm_block_end = 0;
  npusim_tcm_lo = 0;
  npusim_tcm_size = UINTPTR_MAX;
}

namespace {

// Where an access of [dev, dev + n) lies against the core's TCM buffers: a block tcm_free gave
// back, a stream's buffer, or the nearest live tcm_malloc block.
std::string tcm_access_place(const CoreCtx& c, uint64_t dev, uint64_t n) {
  const auto off = [&](uint64_t a) { return a - c.tcm_base; };
  for (const auto& [at, bytes] : c.tcm_freed)
    if (dev < at + uint64_t{bytes} && at < dev + n)
      return fmt::format("it is inside the tcm_malloc block at TCM offset 0x{:x} of {} bytes, which tcm_free gave back "
                         "(offset {} of the block): a use after free",
                         off(at), bytes, static_cast<int64_t>(dev - at));
  for (size_t i = 0; i < c.streams.size(); ++i) {
    const CoreCtx::Stream& s = c.streams[i];
    if (s.open && s.fast && s.buf != 0 && dev < s.buf + uint64_t{npusim::fw::kBufferSizeBytes} && s.buf < dev + n)
      return fmt::format("it is inside stream {}'s {}-byte buffer at TCM offset 0x{:x}, the library's, not a "
                         "tcm_malloc block",
                         i + 1, npusim::fw::kBufferSizeBytes, off(s.buf));
  }
  uint64_t best = UINT64_MAX, b_at = 0, b_n = 0;
  for (const auto& [at, bytes] : c.tcm_blocks) {
    const uint64_t end = at + uint64_t{bytes};
    const uint64_t d = dev + n <= at ? at - (dev + n) : dev >= end ? dev - end : 0;
    if (d < best) best = d, b_at = at, b_n = bytes;
  }
  if (best == UINT64_MAX) return "no tcm_malloc block is live";
  const uint64_t b_end = b_at + b_n;
  std::string rel;
  if (dev >= b_end) rel = fmt::format("the access begins {} bytes past its end (offset {} of the block)", dev - b_end, dev - b_at);
  else if (dev + n <= b_at) rel = fmt::format("the access ends {} bytes before its start (offset -{} of the block)", b_at - (dev + n), b_at - dev);
  else if (dev < b_at) rel = fmt::format("the access begins {} bytes before its start (offset -{} of the block)", b_at - dev, b_at - dev);
  else rel = fmt::format("the access begins at offset {} of the block and runs {} bytes past its end", dev - b_at, dev + n - b_end);
  return fmt::format("the nearest block is the tcm_malloc block at TCM offset 0x{:x} of {} bytes; {}", off(b_at), b_n, rel);
}

}  // namespace
}  // namespace npusim::torchrt

extern "C" void npusim_tcm_check(const void* p, uint64_t size, uint32_t write, const char* where) {
  using namespace npusim::torchrt;
  CoreCtx* c = current_ctx();
  if (c == nullptr || c->entry_sp == 0 || c->tcm_host == nullptr) {
    // No kernel on a core, or no TCM grant yet: nothing is the core's TCM until the next entry.
    npusim_tcm_lo = 0;
    npusim_tcm_size = 0;
    return;
  }
  const auto lo = reinterpret_cast<uintptr_t>(c->tcm_host);
  npusim_tcm_lo = lo;
  npusim_tcm_size = c->tcm_size;
  const auto a = reinterpret_cast<uintptr_t>(p);
  if (a - lo >= c->tcm_size || size == 0) return;  // not this core's TCM
  const uint64_t dev = c->tcm_base + (a - lo);
  auto blk = c->tcm_blocks.upper_bound(static_cast<uint32_t>(dev));
  if (blk != c->tcm_blocks.begin()) {
    --blk;
    if (dev + size <= uint64_t{blk->first} + blk->second) {
      npusim_tcm_block_lo = lo + (blk->first - c->tcm_base);
      npusim_tcm_block_end = npusim_tcm_block_lo + blk->second;
      return;
    }
  }
  c->run->fail_kernel(
      c, "tcm out of bounds", c->last_call, dev,
      fmt::format("a {} of {} bytes at TCM offset 0x{:x} (address 0x{:x}) outside every live tcm_malloc block: "
                  "{}{}",
                  write ? "write" : "read", size, dev - c->tcm_base, dev, tcm_access_place(*c, dev, size),
                  where != nullptr ? fmt::format(", at {}", where)
                                   : std::string(" (build the kernel with -g for the source line)")));
}
