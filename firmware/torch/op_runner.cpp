// One op run (runtime.h run_op): the platform, the inputs loaded and the output read back
// through core 0's port, every core's kernel program, and the result with its diagnostics.
#include "firmware/torch/runtime_internal.h"
#include "models/unwind.h"

#include <cmath>
#include <dlfcn.h>

#include <csignal>

#include <neuron/neuron-utils.hpp>

namespace npusim::torchrt {

namespace {

// An input in HBM: the tensor arena's space now; its data is loaded by core 0 before the
// kernel starts (load_inputs).
torch::Tensor to_hbm(Run& r, const torch::Tensor& host, const std::string& name) {
  // The host tensor's description without its data (load_inputs reads the data from the host
  // tensor itself): no copy of a buffer that is dropped at once.
  const TensorImpl& h = *host.impl();
  auto t = std::make_shared<TensorImpl>();
  t->dtype = h.dtype;
  t->sizes = h.sizes;
  t->strides = h.strides;
  t->numel = h.numel;
  t->policy = h.policy;
  t->standard = h.standard;
  t->read_streams = h.read_streams;
  t->write_streams = h.write_streams;
  t->hbm = r.hbm_alloc(std::max<uint64_t>(t->nbytes(), 1), nullptr, "input");
  t->name = name;
  return torch::Tensor(t);
}

// Core 0, before any kernel: every input's data through its port into HBM (the host's copy
// to the device), then the kernels start.
void load_inputs(Run& r, CoreCtx& c) {
  r.in_copy.start_ns = now_ns(c);
  for (size_t i = 0; i < r.inputs.size(); ++i) {
    torch::detail::HostBytes& data = r.input_data[i].impl()->host;
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

// The core's time account opens at its kernel's start, in kCompute (runtime_internal.h).
void open_account(CoreCtx& c) {
  c.t.start = c.since = now_units(c);
  c.t.start_ns = units_ns(c.t.start);
  c.kind = TimeKind::kCompute;
}
// Its kernel returned or the core stopped at `now`: the stretch in progress goes to its kind.
void close_account(CoreCtx& c, uint64_t now) {
  if (c.ended) return;
  now = std::max(now, c.since);
  c.t.by_kind[index_of(c.kind)] += now - c.since;
  c.since = c.t.end = now;
  c.t.end_ns = units_ns(now);
  c.ended = true;
}

std::string shape_text(torch::ScalarType dtype, const std::vector<int64_t>& sizes) {
  std::string s = fmt::format("{}[", torch::dtype_name(dtype));
  for (size_t i = 0; i < sizes.size(); ++i) s += fmt::format("{}{}", i ? "," : "", sizes[i]);
  return s + "]";
}

// The kernel call, made on its core's coroutine by call_contained: whatever it throws is kept
// for the caller.
struct KernelCall {
  Run* r;
  std::vector<torch::Tensor>* ts;
  torch::Tensor out;
  std::exception_ptr error;
  std::string error_type;
};
void kernel_entry(void* p) {
  auto& k = *static_cast<KernelCall*>(p);
  try {
    k.out = k.r->def->kernel_invoker(k.r->def->kernel_fn, *k.ts, k.r->spec.scalars);
  } catch (...) {
    k.error = std::current_exception();
    k.error_type = current_exception_type();
  }
}

const char* signal_text(int sig) {
  switch (sig) {
    case SIGSEGV: return "segmentation fault (SIGSEGV)";
    case SIGBUS: return "bus error (SIGBUS)";
    case SIGFPE: return "arithmetic exception (SIGFPE)";
    case SIGILL: return "illegal instruction (SIGILL)";
    case SIGABRT: return "abort (SIGABRT)";
    default: return "signal";
  }
}
std::string segv_detail(const Escape& e) {
  if (e.signo == SIGSEGV)
    return fmt::format(" at address 0x{:x} ({})", e.address,
                       e.code == SEGV_MAPERR ? "not mapped" : e.code == SEGV_ACCERR ? "not accessible" : "sent");
  // (SIGFPE and SIGILL give the faulting instruction, a host address: the kernel's frame names it)
  if (e.signo == SIGBUS) return fmt::format(" at address 0x{:x}", e.address);
  return "";
}

// A kernel's faulting address as the kernel can relate it to its buffers: near the core's TCM
// (whose tcm_malloc pointers the kernel dereferences), its TCM address as the kernel computed
// it, its place against the TCM and the nearest live tcm_malloc block; elsewhere, that it is
// outside every buffer of the device. Never the host address (the simulator's own). `device`:
// the TCM address for the report, 0 when there is none.
std::string kernel_address_text(const CoreCtx& c, uint64_t a, uint64_t& device) {
  device = 0;
  constexpr int64_t kNear = int64_t{1} << 32;  // farther than this from the TCM: not a TCM pointer
  const int64_t off = c.tcm_host == nullptr ? kNear
                                            : static_cast<int64_t>(a - reinterpret_cast<uintptr_t>(c.tcm_host));
  if (off <= -kNear || off >= kNear || off + static_cast<int64_t>(c.tcm_base) < 0)
    return "an address outside every buffer of the device (not a TCM pointer of this core)";
  const uint64_t dev = c.tcm_base + static_cast<uint64_t>(off);
  device = dev;
  const uint64_t end = c.tcm_base + c.tcm_size;
  std::string where = fmt::format("TCM address 0x{:x} (as the kernel's pointer gives it; ", dev);
  if (off < 0) where += fmt::format("{} bytes before the core's TCM [0x{:x}, 0x{:x}))", -off, c.tcm_base, end);
  else if (dev >= end) where += fmt::format("{} bytes past the end of the core's TCM [0x{:x}, 0x{:x}))", dev - end + 1, c.tcm_base, end);
  else where += fmt::format("inside the core's TCM [0x{:x}, 0x{:x}))", c.tcm_base, end);
  // The nearest live block, by the distance from the address to its bytes.
  uint64_t best = UINT64_MAX, b_at = 0, b_n = 0;
  for (const auto& [at, n] : c.tcm_blocks) {
    const uint64_t d = dev < at ? at - dev : dev >= at + n ? dev - (at + n) + 1 : 0;
    if (d < best) best = d, b_at = at, b_n = n;
  }
  if (best == UINT64_MAX) return where + "; no tcm_malloc block is live";
  const std::string rel = dev < b_at ? fmt::format("{} bytes before it", b_at - dev)
                          : dev >= b_at + b_n ? fmt::format("{} bytes past its end (offset {} of the block)", dev - (b_at + b_n) + 1, dev - b_at)
                                              : fmt::format("offset {} inside it", dev - b_at);
  return where + fmt::format("; nearest buffer: the tcm_malloc block at 0x{:x} of {} bytes, {}", b_at, b_n, rel);
}

// A contained kernel that was taken back to its entry: the fault it is reported as.
[[noreturn]] void kernel_escaped(Run& r, CoreCtx& c, const Escape& e) {
  const std::string at = e.where.empty() ? std::string() : fmt::format(" in {}", e.where);
  switch (e.cause) {
    case Escape::kStop:
      throw fw::StopRequested(fmt::format("the kernel ran its own code{} for {:.2f} s after the request without "
                                          "a library call; taken back to its entry",
                                          at, e.seconds));
    case Escape::kWallBudget:
      r.fail_kernel(&c, "wall-clock budget exceeded", c.last_call, 0,
                    fmt::format("the op run took more than its wall-clock budget of {} s (gpsimd.wall_budget_s); "
                                "the kernel was running its own code{}",
                                r.wall_budget_s, at),
                    e.backtrace);
    case Escape::kExit:
      r.fail_kernel(&c, "exit", c.last_call, 0,
                    fmt::format("the kernel called {}({}){}: a kernel never ends the process", e.exit_call,
                                e.exit_status, at),
                    e.backtrace);
    default: break;
  }
  if (e.stack_overflow)
    r.fail_kernel(&c, "host stack overflow", c.last_call, e.address,
                  fmt::format("the kernel overflowed its core thread's host stack of {} bytes (gpsimd.host_stack_bytes){}: "
                              "a recursion without end, or locals too large",
                              r.cfg->gpsimd_cores.host_stack_bytes, at),
                  e.backtrace);
  if (e.signo == SIGABRT)
    r.fail_kernel(&c, "abort", c.last_call, 0,
                  fmt::format("the kernel called abort(){}{}", e.terminate_note.empty() ? "" : " by " + e.terminate_note, at),
                  e.backtrace);
  // A SIGSEGV or SIGBUS away from the null page: the address as the kernel relates it to its
  // buffers, not the host's.
  if ((e.signo == SIGSEGV || e.signo == SIGBUS) && e.address >= 4096) {
    uint64_t device = 0;
    const std::string what = kernel_address_text(c, e.address, device);
    r.fail_kernel(&c, "kernel crash", c.last_call, device,
                  fmt::format("{} at {}{}{}", signal_text(e.signo), what,
                              e.signo == SIGBUS              ? ""
                              : e.code == SEGV_MAPERR ? " (not mapped)"
                              : e.code == SEGV_ACCERR ? " (not accessible)"
                                                      : " (sent)",
                              at),
                  e.backtrace);
  }
  r.fail_kernel(&c, "kernel crash", c.last_call, e.signo == SIGSEGV || e.signo == SIGBUS ? e.address : 0,
                fmt::format("{}{}{}", signal_text(e.signo), segv_detail(e), at), e.backtrace);
}

// An exception the kernel let out: the runtime's own faults go on as they are; anything else is
// the kernel's, of any type.
[[noreturn]] void kernel_threw(Run& r, CoreCtx& c, const KernelCall& k) {
  try {
    std::rethrow_exception(k.error);
  } catch (const FF&) {
    throw;
  } catch (const KernelFault&) {
    throw;
  } catch (const fw::StopRequested&) {
    throw;
  } catch (const models::DmaAbort&) {
    throw;
  } catch (const models::BusError&) {
    throw;
  } catch (const std::exception& e) {
    r.fail_kernel(&c, "uncaught exception", c.last_call, 0,
                  fmt::format("the kernel threw an exception of type {} that it did not catch: {}", k.error_type, e.what()));
  } catch (...) {
    r.fail_kernel(&c, "uncaught exception", c.last_call, 0,
                  fmt::format("the kernel threw an exception of type {} that it did not catch",
                              k.error_type.empty() ? "unknown" : k.error_type));
  }
}

void core_program(Run& r, CoreCtx& c) {
  // Every kernel starts in the same delta cycle, after core 0 loaded the inputs.
  if (c.id == 0) load_inputs(r, c);
  if (c.id == 0 || !r.inputs_loaded) c.core->wait_for(r.loaded);
  fw::bind_to_core(*c.fw);
  set_core_ctx(c.core, &c);
  c.t.ran = true;
  open_account(c);
  if (r.cycle_budget != 0)
    c.cycle_end = c.core->now() + sc_core::sc_time(static_cast<double>(r.cycle_budget) / r.cfg->core.clock_ghz, sc_core::SC_NS);
  {
    TimeScope s(c, TimeKind::kTcmStack);  // the heap's bookkeeping is written into the TCM
    if (c.fw->init_neuron_dataram_allocator() != 0)
      r.fail(&c, FF::kUsage, "init_neuron_dataram_allocator", 0, "the dataram heap could not be initialised");
  }
  // The stack: above the threshold it moves to HBM (stack switch).
  const auto& g = r.cfg->gpsimd_cores;
  if (r.stack_size > static_cast<long long>(g.hbm_stack_threshold)) {
    const uint64_t t0 = now_units(c);
    TimeScope s(c, TimeKind::kTcmStack);
    if (c.fw->init_neuron_hbm_allocator() != 0)
      r.fail(&c, FF::kUsage, "init_neuron_hbm_allocator", 0, "the HBM heap could not be initialised");
    try {
      c.fw->allocate_hbm_stack(static_cast<uint32_t>(std::min<long long>(r.stack_size, 0xffffffffll)), 0, 1);
    } catch (const FF& e) {
      r.fail(&c, e.kind(), "allocate_hbm_stack", 0,
             fmt::format("STACK_SIZE={}: {}", r.stack_size, e.what()));
    }
    c.t.hbm_stack = c.fw->stack().hbm_stack;
    c.t.hbm_stack_size = c.fw->stack().hbm_stack_size;
    c.t.stack_setup += now_units(c) - t0;
  }
  std::vector<torch::Tensor> ts = r.inputs;
  volatile char entry = 0;
  c.entry_sp = reinterpret_cast<uintptr_t>(&entry);
  reset_kernel_code();  // nothing but this kernel's own code from here
  KernelCall call{&r, &ts, {}, nullptr, {}};
  Escape escape;
  const bool returned = call_contained(static_cast<size_t>(c.id), &kernel_entry, &call, escape);
  c.entry_sp = 0;
  if (!returned || call.error) reset_kernel_code();  // what ran while the kernel was left
  if (!returned) kernel_escaped(r, c, escape);
  if (call.error) kernel_threw(r, c, call);
  charge_kernel_code(c);  // the kernel's own code after its last library call
  torch::Tensor out = std::move(call.out);
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
    // The shape function's dtype and element count are the op's contract (the device flow
    // allocates the output by it); the same elements under other dimensions (the tutorial's
    // kernels return a flat tensor) are the promised output. The output is reported as the
    // kernel returned it, beside the shape function's promise (report: op.shape_function).
    int64_t promised = 1;
    for (int64_t d : r.shape_sizes) promised *= d;
    if (out.scalar_type() != r.shape_dtype || out.numel() != promised)
      r.fail_kernel(&c, "result mismatch", "kernel return", out.impl()->hbm,
                    fmt::format("the kernel returned {}, but its shape function {} promises {}",
                                shape_text(out.scalar_type(), out.sizes().vec()), r.shape_fn,
                                shape_text(r.shape_dtype, r.shape_sizes)));
    r.output = out;
  }
  if (c.fw->stack().hbm_stack != 0) {
    const uint64_t t0 = now_units(c);
    {
      TimeScope s(c, TimeKind::kTcmStack);
      c.fw->free_hbm_stack();
    }
    c.t.stack_setup += now_units(c) - t0;
  }
  c.core->sync();
  close_account(c, now_units(c));
  ++r.done_cores;
  r.core_done.notify(sc_core::SC_ZERO_TIME);
  if (c.id == 0) read_output(r, c);
}

// The shape function's name for messages: its symbol ("" if it has none in the symbol table).
std::string shape_function_name(const torch::npusim_op::OpDef& d) {
  Dl_info info{};
  if (d.shape != nullptr && dladdr(d.shape, &info) != 0 && info.dli_sname != nullptr &&
      info.dli_saddr == d.shape)
    return demangled(info.dli_sname);
  return "";
}

// The shape function, on the host before the simulation, contained like a kernel: a crash, an
// exit or an exception of it is bad input of the op (std::invalid_argument naming it).
struct ShapeCall {
  const torch::npusim_op::OpDef* def;
  const OpSpec* spec;
  torch::Tensor out;
  std::exception_ptr error;
  std::string error_type;
};
void shape_entry(void* p) {
  auto& k = *static_cast<ShapeCall*>(p);
  try {
    k.out = k.def->shape_invoker(k.def->shape, k.spec->tensors, k.spec->scalars);
  } catch (...) {
    k.error = std::current_exception();
    k.error_type = current_exception_type();
  }
}
torch::Tensor run_shape_function(const torch::npusim_op::OpDef& def, const OpSpec& spec, const std::string& name) {
  ShapeCall call{&def, &spec, {}, nullptr, {}};
  Escape e;
  const std::string who = fmt::format("op '{}': the shape function{}", def.name, name.empty() ? "" : " " + name);
  if (!call_contained(kHostSlot, &shape_entry, &call, e)) {
    const std::string at = e.where.empty() ? std::string() : " in " + e.where;
    switch (e.cause) {
      case Escape::kStop: throw fw::StopRequested(who + at);
      case Escape::kWallBudget:
        throw std::invalid_argument(fmt::format("{} did not return within the wall-clock budget (gpsimd.wall_budget_s){}", who, at));
      case Escape::kExit: throw std::invalid_argument(fmt::format("{} called {}({}){}", who, e.exit_call, e.exit_status, at));
      default:
        throw std::invalid_argument(fmt::format("{} crashed: {}{}{}", who, signal_text(e.signo), segv_detail(e), at));
    }
  }
  if (call.error) {
    try {
      std::rethrow_exception(call.error);
    } catch (const std::exception& x) {
      throw std::invalid_argument(fmt::format("{} threw {}: {}", who, call.error_type, x.what()));
    } catch (...) {
      throw std::invalid_argument(fmt::format("{} threw an exception of type {}", who,
                                              call.error_type.empty() ? "unknown" : call.error_type));
    }
  }
  return call.out;
}

}  // namespace

OpResult run_op(const fw::NeuronPlatformConfig& cfg, const OpSpec& spec_in) {
  OpResult res;
  OpSpec spec = spec_in;
  const auto* def = torch::npusim_op::find_op(spec.op);
  if (def == nullptr) throw std::invalid_argument(torch::npusim_op::no_op_message(spec.op));
  spec.op = def->name;  // (a qualified name, LIB.OP, names it by its own name from here)
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
  // The user's code runs contained from here on: the shape function, then the kernels.
  const double wall_budget = spec.wall_budget_s >= 0 ? spec.wall_budget_s : cfg.gpsimd_cores.wall_budget_s;
  Containment contain(ContainmentConfig{static_cast<size_t>(cfg.gpsimd_cores.cores), cfg.gpsimd_cores.host_stack_bytes,
                                        wall_budget, def->kernel_fn});
  // The shape function runs on the host, as in the framework.
  const std::string shape_fn = shape_function_name(*def);
  torch::Tensor shape;
  try {
    shape = run_shape_function(*def, spec, shape_fn);
  } catch (const fw::StopRequested& e) {
    // Stopped before the simulation (a shape function that takes long, or spins): the op never
    // ran, and the run ends interrupted with its outputs, as when a kernel is stopped.
    res.failed = true;
    res.fault_kind = "interrupted";
    res.fault_message = e.what();
    res.kernel = def->kernel;
    res.mangled = def->mangled;
    res.diagnostics.push_back(Diagnostic{"error", res.fault_kind, def->kernel, "", res.fault_message});
    return res;
  }
  if (!shape.defined()) throw std::invalid_argument("op '" + spec.op + "': the shape function returned no tensor");
  res.shape_sizes.assign(shape.sizes().begin(), shape.sizes().end());
  res.shape_dtype = shape.scalar_type();

  Run r;
  r.cfg = &cfg;
  r.def = def;
  r.spec = spec;
  r.shape_sizes = shape.sizes().vec();
  r.shape_dtype = shape.scalar_type();
  r.shape_fn = shape_fn;
  r.wall_budget_s = wall_budget;
  r.cycle_budget = spec.cycle_budget >= 0 ? static_cast<uint64_t>(spec.cycle_budget) : cfg.gpsimd_cores.cycle_budget;
  r.stack_size = spec.stack_size >= 0 ? spec.stack_size : def->stack_size;
  r.stack_limit = r.stack_size >= 0 ? static_cast<uint64_t>(r.stack_size) : cfg.firmware.local_stack_bytes;
  res.kernel = def->kernel;
  res.mangled = def->mangled;
  res.stack_size = r.stack_size;
  res.stack_limit = r.stack_limit;
  res.clock_ghz = cfg.core.clock_ghz;
  res.hbm_stack = r.stack_size > static_cast<long long>(cfg.gpsimd_cores.hbm_stack_threshold);
  if (r.stack_size > static_cast<long long>(cfg.gpsimd_cores.documented_max_stack) && r.stack_size <= fw::kMaxStackSize)
    r.warn(nullptr, "stack above documented maximum", "STACK_SIZE", 0,
           fmt::format("STACK_SIZE={} is above the documented maximum of {} bytes (the library accepts up to {})",
                       r.stack_size, cfg.gpsimd_cores.documented_max_stack, fw::kMaxStackSize));

  // The kernel's own code: every annotated module priced for this run.
  price_kernel_code(cfg.kernel_cost, res.hbm_stack, cfg.core.quantum_cycles);
  res.kernel_code_timed = kernel_code_timed(def->kernel_fn, &res.kernel_code_source);
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
      forget_core_ctx();  // the thread ends: its process object may be reused
      if (!e) return;
      reset_kernel_code();  // what ran while the fault unwound the kernel
      close_account(c, c.core->now().value());
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
  models::main_stack_resume();  // ASan: back on the main stack (models/unwind.h)
  res.transfers = std::move(transfers);
  if (r.error) {
    res.failed = true;
    try {
      std::rethrow_exception(r.error);
    } catch (const FF& e) {
      res.fault_kind = FF::kind_name(e.kind());
      res.fault_message = e.what();
    } catch (const KernelFault& e) {
      res.fault_kind = e.kind();
      res.fault_message = e.what();
      res.fault_backtrace = e.backtrace();
    } catch (const fw::StopRequested& e) {
      res.fault_kind = "interrupted";
      res.fault_message = fmt::format("kernel {} on core {}, call {}: {}", def->kernel, r.error_core,
                                      r.ctx[static_cast<size_t>(r.error_core)].last_call, e.what());
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
  // Every core's account closes; a core whose kernel returned before the op's end (the last
  // core's) waits for the other cores until then.
  uint64_t op_end = 0;
  for (auto& c : r.ctx) {
    if (!c.t.ran) continue;
    close_account(c, c.core->now().value());  // a core stopped by another core's fault
    op_end = std::max(op_end, c.t.end);
  }
  for (size_t i = 0; i < r.ctx.size(); ++i) {
    CoreCtx& c = r.ctx[i];
    if (!c.t.ran) continue;
    c.t.by_kind[index_of(TimeKind::kCoreWait)] += op_end - c.t.end;
    c.t.op_end = op_end;
    // The firmware's frames: on the local stack while it was current, on the HBM stack.
    const fw::StackState& st = p.firmware(i).stack();
    c.t.frames_high_water = st.switched ? 0 : st.high_water;
    c.t.frames_hbm_high_water = st.hbm_high_water;
    res.cores.push_back(c.t);
    res.calls.push_back(std::move(c.calls));
    res.duration_ns = std::max(res.duration_ns, c.t.end_ns - r.kernel_start_ns);
  }
  // On the time resolution's grid, as a whole number of its units over the units in a ns: the
  // difference of two times in ns has float noise (14854.890000000001) that a report would show.
  const double units_per_ns = std::round(1e-9 / sc_core::sc_get_time_resolution().to_seconds());
  if (units_per_ns >= 1) res.duration_ns = std::round(res.duration_ns * units_per_ns) / units_per_ns;
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
  {  // to the end of the run: the kernels' last end or the output copy's
    double end_ns = sc_core::sc_time_stamp().to_seconds() * 1e9;
    for (const auto& c : res.cores) end_ns = std::max(end_ns, c.end_ns);
    end_ns = std::max(end_ns, res.output_copy.end_ns);
    res.energy = platforms::platform_energy(p, sc_core::sc_time(end_ns, sc_core::SC_NS));
  }
  if (spec.on_finished) spec.on_finished(p);
  clear_core_ctx();
  g_run = nullptr;
  return res;
}

}  // namespace npusim::torchrt
