// The torch API on a simulated core, part 1: host tensors, the accessor type checks and the
// standard accessor's element loads and stores (each a core access through the fabric to HBM).
#include "firmware/torch/runtime_internal.h"

#include <cstdio>
#include <cstring>
#include <stdexcept>

#include <neuron/neuron-utils.hpp>

namespace torch::detail {

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
// multicore and stack checks, the HBM access count, the transfer `move(addr)` and the
// accessor's own cycles, all accessor/HBM time (two readings of the core's time).
template <typename Move>
void element_access(CoreCtx& c, const TensorImpl& t, int64_t index, size_t bytes, Move&& move) {
  npusim::torchrt::charge_kernel_code(c);  // the kernel's own code up to this access first
  // A kernel's element loop ends here on SIGINT/SIGTERM or a spent budget.
  if (npusim::torchrt::checkpoint_due_every(c, c.t.hbm_accesses)) npusim::torchrt::kernel_checkpoint(c, "accessor");
  if (c.run->spec.multicore)
    c.run->fail(&c, FF::kUsage, "accessor", t.hbm, "standard accessor element access in multicore mode");
  npusim::torchrt::check_stack(c, "accessor");
  ++c.t.hbm_accesses;
  npusim::torchrt::TimeScope s(c, TimeKind::kAccessorHbm);
  move(t.hbm + static_cast<uint64_t>(index) * bytes);
  npusim::torchrt::charge(c, TimeKind::kAccessorHbm, c.run->cfg->gpsimd_cores.accessor_cycles);
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

}  // namespace torch::detail
