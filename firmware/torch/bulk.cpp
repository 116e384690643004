// The torch API on a simulated core, part 4: the data of the library's ops (fills, element-wise
// ops; tensor.cpp computes them) through the core's port into HBM, their call and their work,
// and new tensors in the HBM tensor arena. Registration and kernel lookup: op_lookup.cpp.
#include "firmware/torch/runtime_internal.h"

#include <cstdio>
#include <algorithm>
#include <cstring>
#include <stdexcept>

#include <neuron/neuron-utils.hpp>

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
    TimeScope s(*c, TimeKind::kLibrary);
    npusim::torchrt::port_move(port, write, t.hbm, data, t.nbytes());
  } else {
    npusim::torchrt::port_move(port, write, t.hbm, data, t.nbytes());
  }
}
}  // namespace

// Reads a tensor's data (host or HBM) into a host buffer and writes one back: in a kernel,
// through the core's port into HBM (the hbm column), as the library's own loads and stores.
HostBytes bytes_of(const TensorImpl& t) {
  if (t.hbm == 0) return t.host;
  HostBytes v(t.nbytes());
  bulk_move(t, false, v.data());
  return v;
}
void set_bytes(TensorImpl& t, const HostBytes& v) {
  if (t.hbm == 0) {
    t.host = v;
    return;
  }
  // A write only reads the buffer (models::Core::write takes const data).
  bulk_move(t, true, const_cast<uint8_t*>(v.data()));
}
// Every element of `t` set to the `elem_bytes` bytes at `elem`: the same port requests as
// set_bytes of the whole tensor, each written from one chunk-sized pattern buffer.
void fill_bytes(TensorImpl& t, const uint8_t* elem, size_t elem_bytes) {
  const size_t n = t.nbytes();
  HostBytes pattern(t.hbm == 0 ? n : std::min(n, npusim::torchrt::kPortChunk));
  for (size_t off = 0; off < pattern.size(); off += elem_bytes) std::memcpy(pattern.data() + off, elem, elem_bytes);
  if (t.hbm == 0) {
    t.host = std::move(pattern);
    return;
  }
  static_assert(npusim::torchrt::kPortChunk % 8 == 0, "a chunk holds whole elements");
  CoreCtx* c = current_ctx();
  npusim::models::Core& port = bulk_port(c);
  if (c) {
    c->t.bulk_bytes += n;
    TimeScope s(*c, TimeKind::kLibrary);
    npusim::torchrt::port_fill(port, t.hbm, pattern.data(), n);
  } else {
    npusim::torchrt::port_fill(port, t.hbm, pattern.data(), n);
  }
}
// A library op (fill, element-wise op) on a simulated core is one library call from op_scope()
// to the end of the returned scope (nested ops are part of the outer one), all of its time
// library time; op_work charges its element work. On the host both do nothing.
std::shared_ptr<void> op_scope() {
  CoreCtx* c = current_ctx();
  if (!c || c->op_depth > 0) return nullptr;
  struct LibraryOp {
    TimeScope time;  // the call's entry, exit and frame spill are library time too
    ApiCall call;
    explicit LibraryOp(CoreCtx& cx) : time(cx, TimeKind::kLibrary), call(cx, "tensor op") {}
  };
  ++c->op_depth;
  LibraryOp* op = nullptr;
  try {
    op = new LibraryOp(*c);
  } catch (...) {
    --c->op_depth;
    throw;
  }
  return std::shared_ptr<void>(op, [c](void* p) {
    delete static_cast<LibraryOp*>(p);
    --c->op_depth;
  });
}
void op_work(int64_t elems) {
  CoreCtx* c = current_ctx();
  if (!c) return;
  // The public NKI cost of a GpSimd instruction, `150 + N` cycles for N elements per partition
  // (one 16-lane vector per cycle): a start-up, then one vector of 16 elements per step.
  const auto& g = c->run->cfg->gpsimd_cores;
  const uint64_t vectors = (static_cast<uint64_t>(elems) + 15) / 16;
  npusim::torchrt::charge(*c, TimeKind::kLibrary, g.library_op_start_cycles + g.library_op_cycles_per_vector * vectors);
}
std::shared_ptr<TensorImpl> new_tensor(IntArrayRef sizes, ScalarType dtype, const char* call) {
  auto t = make_host_tensor(sizes, dtype);
  CoreCtx* c = current_ctx();
  if (c) {
    // A safe point and the stack check, as at every library call (a recursion that allocates a
    // tensor per level is seen here).
    if (npusim::torchrt::checkpoint_due(*c)) npusim::torchrt::kernel_checkpoint(*c, call);
    npusim::torchrt::check_stack(*c, call);
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
