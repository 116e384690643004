// The torch API on a simulated core, part 3: the TCM accessor's transfers (DMA), tcm_malloc and
// tcm_free (the dataram heap, pointers of the core's DMI grant of its TCM) and the core ids.
#include "firmware/torch/runtime_internal.h"

#include <cstdio>
#include <cstring>
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
