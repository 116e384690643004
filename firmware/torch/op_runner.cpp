// One op run (runtime.h run_op): the platform, the inputs loaded and the output read back
// through core 0's port, every core's kernel program, and the result with its diagnostics.
#include "firmware/torch/runtime_internal.h"
#include "models/unwind.h"

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

void core_program(Run& r, CoreCtx& c) {
  // Every kernel starts in the same delta cycle, after core 0 loaded the inputs.
  if (c.id == 0) load_inputs(r, c);
  if (c.id == 0 || !r.inputs_loaded) c.core->wait_for(r.loaded);
  fw::bind_to_core(*c.fw);
  set_core_ctx(c.core, &c);
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
      forget_core_ctx();  // the thread ends: its process object may be reused
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
  models::main_stack_resume();  // ASan: back on the main stack (models/unwind.h)
  res.transfers = std::move(transfers);
  if (r.error) {
    res.failed = true;
    try {
      std::rethrow_exception(r.error);
    } catch (const FF& e) {
      res.fault_kind = FF::kind_name(e.kind());
      res.fault_message = e.what();
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
  clear_core_ctx();
  g_run = nullptr;
  return res;
}

}  // namespace npusim::torchrt
