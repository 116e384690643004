#include "sim/run/neuron_steps.h"

#include <fmt/format.h>

#include <algorithm>

#include "allocators/xmem/xmem_heap.h"
#include "sim/input/input_error.h"

namespace npusim::sim::neuron {

namespace {

HeapId heap_id(const std::string& h) {
  return h == "hbm" ? HeapId::kHbm : h == "dataram" ? HeapId::kDataram : HeapId::kLibc;
}

}  // namespace

[[noreturn]] void NeuronSteps::runtime_error(const Step& s, const std::string& why) {
  throw fw::FirmwareFault(fw::FirmwareFault::kUsage, s.at.str(), s.at.str() + ": " + why);
}

uint64_t NeuronSteps::resolve(const AddrExpr& e) {
  if (e.name.empty()) return e.offset;
  auto it = names_.find(e.name);
  if (it == names_.end()) {
    throw fw::FirmwareFault(
        fw::FirmwareFault::kUsage, e.at.str(),
        fmt::format("{}: '{}' has no address{}", e.at.str(), e.name,
                    failed_names_.count(e.name) ? " (its allocation failed)" : " (not allocated yet)"));
  }
  return it->second + e.offset;
}

fw::TransferMethod NeuronSteps::method_of(const Step& s) const {
  if (!s.has_method) return p_->firmware.config().method;
  const std::string& m = s.method;
  if (m == "c_memcpy" || m == "C_MEMCPY" || m == "0") return fw::TransferMethod::kCMemcpy;
  if (m == "vec_memcpy" || m == "VEC_MEMCPY" || m == "1") return fw::TransferMethod::kVecMemcpy;
  return fw::TransferMethod::kDma;
}

void NeuronSteps::sample(HeapId id, std::optional<uint64_t> t_ps) {
  sample_heap(p_->core, cfg_.firmware.layout, id, alloc::neuron::heap_name(id), heaps_[id], blocks_, obs_, t_ps);
}

void NeuronSteps::exec(const std::vector<Step>& steps) {
  for (const auto& s : steps) exec(s);
}

void NeuronSteps::exec(const Step& s) {
  current_ = &s;  // an interrupt names the step that did not run
  if (interrupted()) throw RunFault("interrupted", fmt::format("{}: interrupted by {}", s.at.str(), stop_signal_name()));
  progress_.update(++steps_done_, p_->core.now().to_seconds() * 1e9);
  fw::Firmware& f = p_->firmware;
  switch (s.kind) {
    case Step::kInit:
      for (const auto& h : s.heaps) {
        const int r = h == "hbm" ? f.init_neuron_hbm_allocator()
                      : h == "dataram" ? f.init_neuron_dataram_allocator()
                                       : f.init_libc_heap_allocator();
        if (r != 0) runtime_error(s, fmt::format("init of the {} heap failed (xmem status {})", h, f.heaps().last_xmem_status()));
      }
      break;
    case Step::kAlloc: {
      const HeapId id = heap_id(s.heap);
      uint64_t addr = 0;
      int r;
      const uint64_t held_before = heaps_[id].allocated_bytes;
      if (id == HeapId::kHbm) {
        r = f.neuron_hbm_allocate(static_cast<uint32_t>(s.size), &addr, static_cast<uint32_t>(s.align));
      } else if (id == HeapId::kDataram) {
        uint32_t p = 0;
        r = f.neuron_dataram_allocate(static_cast<uint32_t>(s.size), &p, static_cast<uint32_t>(s.align));
        addr = p;
      } else {
        addr = f.heaps().libc_heap_allocate(static_cast<uint32_t>(s.size), static_cast<uint32_t>(s.align));
        r = f.heaps().last_xmem_status() == 0 ? 0 : -1;
        count_heap_op(id, true, r);
        sample(id);
      }
      if (r != 0) {
        if (!s.name.empty()) failed_names_.insert(s.name);
        for (auto& o : obs_)
          o->instant("faults", "allocation failure", ps(p_->core.now()),
                     Json{{"heap", s.heap}, {"size", s.size}, {"align", s.align}, {"step", s.at.str()}});
        if (!s.flag && sc_.alloc_failure_policy == "abort")
          throw fw::FirmwareFault(
              fw::FirmwareFault::kAllocFailure, s.at.str(),
              fmt::format("{}: allocation of {} bytes (align {}) from the {} heap failed: xmem "
                          "status {} {}",
                          s.at.str(), s.size, s.align, s.heap, f.heaps().last_xmem_status(),
                          alloc::xmem::status_name(f.heaps().last_xmem_status())));
      } else {
        // xmem adds the alignment slack to the size in u32: near 2^32 it wraps and "succeeds"
        // with a tiny block (heap replay warns the same way).
        const HeapTrack& t = heaps_[id];
        if (s.size > t.pool_size && t.allocated_bytes >= held_before) {
          const std::string w = fmt::format(
              "{}: alloc of {} bytes from the {} heap succeeded, but size + alignment slack wrapped "
              "around 2^32: the block holds only {} bytes",
              s.at.str(), s.size, s.heap, t.allocated_bytes - held_before);
          warnings_.push_back(w);
          for (auto& o : obs_)
            o->instant("faults", "u32 size wrap", ps(p_->core.now()), Json{{"message", w}, {"step", s.at.str()}});
        }
        if (!s.name.empty()) {
          names_[s.name] = addr;
          failed_names_.erase(s.name);
        }
      }
      break;
    }
    case Step::kFree: {
      const HeapId id = heap_id(s.heap);
      uint64_t addr;
      if (!s.name.empty()) {
        auto it = names_.find(s.name);
        if (it == names_.end()) {
          if (failed_names_.count(s.name)) break;  // its allocation failed (recorded): nothing to free
          runtime_error(s, fmt::format("free of '{}', which is not allocated", s.name));
        }
        addr = it->second;
      } else {
        addr = resolve(s.addr);
      }
      int r;
      if (id == HeapId::kHbm) r = f.neuron_hbm_deallocate(addr);
      else if (id == HeapId::kDataram) r = f.neuron_dataram_deallocate(static_cast<uint32_t>(addr));
      else {
        r = f.heaps().libc_heap_deallocate(static_cast<uint32_t>(addr));
        count_heap_op(id, false, r);
        sample(id);
      }
      if (r != 0) {
        const std::string what = fmt::format(
            "{}: free of {} (0x{:x}) on the {} heap: not a live allocation (double free or bad "
            "pointer); the wrapper returns -1 (xmem status {})",
            s.at.str(), s.name.empty() ? s.addr.text : s.name, addr, s.heap, f.heaps().last_xmem_status());
        for (auto& o : obs_)
          o->instant("faults", "bad free", ps(p_->core.now()), Json{{"heap", s.heap}, {"addr", addr}, {"step", s.at.str()}});
        if (sc_.alloc_failure_policy == "abort")
          throw fw::FirmwareFault(fw::FirmwareFault::kDoubleFree, s.at.str(), what);
      }
      break;
    }
    case Step::kStackAlloc:
      f.allocate_hbm_stack(static_cast<uint32_t>(s.size), static_cast<uint32_t>(s.align), s.flag ? 1u : 0u);
      break;
    case Step::kStackSwitch:
      if (s.text == "hbm") f.switch_to_hbm_stack();
      else f.switch_to_local_stack();
      break;
    case Step::kCall:
      f.push_frame(s.name, static_cast<uint32_t>(s.size));
      exec(s.body);
      current_ = &s;
      f.pop_frame();
      break;
    case Step::kTransfer: {
      const uint64_t src = resolve(s.src), dst = resolve(s.dst);
      const uint64_t chunk = s.chunk ? s.chunk : s.size;
      const auto m = method_of(s);
      const std::string site = "transfer@" + s.at.str();
      const uint64_t t0 = ps(p_->core.now());
      for (uint64_t off = 0; off < s.size || (s.size == 0 && off == 0); off += chunk) {
        if (off != 0 && interrupted())  // a long chunked transfer stops between its chunks
          throw RunFault("interrupted", fmt::format("{}: interrupted by {} after {} of {} bytes", s.at.str(),
                                                    stop_signal_name(), off, s.size));
        f.transfer(dst + off, src + off, std::min(chunk, s.size - off), m, site);
        if (s.size == 0) break;
      }
      for (auto& o : obs_)
        o->call(p_->core.basename(), "transfer", fmt::format("src=0x{:x} dst=0x{:x} bytes={} method={}", src, dst, s.size, fw::method_name(m)),
                t0, ps(p_->core.now()), 0);
      break;
    }
    case Step::kTensorStream: {
      const uint64_t src = resolve(s.src), dst = resolve(s.dst);
      auto& c = const_cast<fw::FirmwareConfig&>(f.config());
      const auto saved_m = c.method;
      const bool saved_d = c.double_buffer;
      if (s.has_method) c.method = method_of(s);
      if (s.double_buffer) c.double_buffer = *s.double_buffer;
      f.tensor_stream_copy(dst, src, s.size);
      c.method = saved_m;
      c.double_buffer = saved_d;
      break;
    }
    case Step::kCompute:
      f.core().compute(s.cycles);
      break;
    case Step::kWait:
      f.core().idle(sc_core::sc_time(s.wait_ns, sc_core::SC_NS));
      break;
    case Step::kLoop:
      for (uint64_t i = 0; i < s.count; ++i) exec(s.body);
      break;
    case Step::kMarker: {
      const uint64_t t = ps(p_->core.now());
      markers_.emplace_back(t, &s);
      for (auto& o : obs_) o->marker(core_name_, s, t);
      break;
    }
    case Step::kWrite:
    case Step::kCheck: {
      const uint64_t a = f.core_address(resolve(s.addr));
      std::vector<uint8_t> want(s.size);
      for (uint64_t i = 0; i < s.size; ++i)
        want[i] = s.value > 0xff ? static_cast<uint8_t>(s.value >> (8 * (i % 4))) : static_cast<uint8_t>(s.value);
      if (s.kind == Step::kWrite) {
        f.core().write(a, want.data(), want.size());
      } else {
        std::vector<uint8_t> got(s.size);
        f.core().read(a, got.data(), got.size());
        for (uint64_t i = 0; i < s.size; ++i)
          if (got[i] != want[i])
            runtime_error(s, fmt::format("check failed at 0x{:x}: byte {} is 0x{:02x}, expected 0x{:02x}",
                                         a + i, i, got[i], want[i]));
      }
      break;
    }
  }
}

// --- the pipeline's phases ---

void NeuronSteps::prepare() {
  // Everything that can be checked before the simulation is checked first (exit 2).
  check_expectation_keys();
  platform_name_ = opt_.platform_override.empty() ? sc_.platform : opt_.platform_override;
  cfg_ = load_platform(platform_name_, run_settings(sc_.set, opt_));
  cfg_.dma.policy = sc_.dma_window_policy == "record" ? models::ViolationPolicy::kRecord
                                                      : models::ViolationPolicy::kAbort;
  if (!sc_.custom_op.empty()) {
    op_ = fw::find_custom_op(sc_.custom_op.c_str());
    if (op_ == nullptr) {
      std::string known;
      for (const auto& [n, d] : fw::custom_ops()) known += (known.empty() ? "" : ", ") + n;
      throw InputError(sc_.file, 0, sc_.custom_op, "no such custom op (registered: " + known + ")");
    }
  }
  layout_warnings_ = alloc::neuron::lint_layout(cfg_.firmware.layout);
  if (binary()) prepare_binary();
}

void NeuronSteps::build() {
  try {
    p_ = std::make_unique<fw::NeuronPlatform>("soc", cfg_);
  } catch (const std::invalid_argument& e) {  // a topology the builder cannot wire
    throw InputError(platform_name_, 0, "topology", e.what());
  }
  if (binary()) build_binary();
  fw::Firmware& f = p_->firmware;
  f.args() = sc_.op_args;
  auto& hooks = f.hooks();
  hooks.heap_changed = [this](HeapId id) { sample(id); };
  hooks.heap_op = [this](HeapId id, bool is_alloc, int status) { count_heap_op(id, is_alloc, status); };
}

void NeuronSteps::attach(std::vector<std::unique_ptr<RunObserver>>& observers) {
  obs_ = std::move(observers);
  if (obs_.empty()) return;
  core_name_ = p_->core.basename();
  const std::string core = p_->core.basename();
  auto& hooks = p_->firmware.hooks();
  hooks.call_begin = [this](const std::string& c, const std::string& a) {
    calls_.push_back(OpenCall{c, a, ps(p_->core.now())});
  };
  hooks.call_end = [this, core](const std::string& c, int status) {
    if (calls_.empty()) return;
    const OpenCall oc = calls_.back();
    calls_.pop_back();
    for (auto& o : obs_) o->call(core, c, oc.args, oc.start, ps(p_->core.now()), status);
  };
  p_->dma.set_span_hook([this](uint32_t ch, const models::DmaDescriptor& d, sc_core::sc_time s,
                               sc_core::sc_time e) {
    for (auto& o : obs_) o->transfer(ch, d.src, d.dst, d.len, d.call_site, ps(s), ps(e));
  });
  p_->dma.set_fault_hook([this](const models::DmaFault& fl) {
    for (auto& o : obs_)
      o->instant("faults", fl.kind == models::DmaFault::kWindow ? "DMA window violation" : "DMA bus error",
                 ps(fl.time), violation_json(fl));
  });
  p_->core.set_activity_hook([this, core](bool busy, const sc_core::sc_time& t) {
    for (auto& o : obs_) o->core_busy(core, ps(t), busy);
  });
}

void NeuronSteps::start() {
  const std::string core = p_->core.basename();
  if (binary()) {
    hart_->trace_calls = !obs_.empty();
    for (auto& o : obs_) o->core_busy(core, 0, true);
    return;
  }
  p_->run([this, core](fw::Firmware& fw) {
    for (auto& o : obs_) o->core_busy(core, 0, true);
    if (op_) op_();
    else exec(sc_.program);
    current_ = nullptr;
    fw.core().sync();
    for (auto& o : obs_) o->core_busy(core, ps(fw.core().now()), false);
  });
}

void NeuronSteps::collect() {
  progress_.finish();
  if (auto e = p_->error()) {
    Fault fl = classify_fault(e);
    fl.time_ps = ps(p_->core.stats().end);
    fl.where = current_ ? current_->at.str() : "";
    if (!fl.where.empty() && fl.message.find(fl.where) == std::string::npos)
      fl.message += " [step " + fl.where + "]";
    fault_ = fl;
    for (auto& o : obs_) o->instant("faults", fl.kind, fl.time_ps, Json{{"message", fl.message}, {"step", fl.where}});
  }
  if (binary()) collect_binary();
  for (HeapId id : kHeaps) sample(id, binary() ? std::optional<uint64_t>(program_end_ps_) : std::nullopt);
  // The energy of the run, to its end (the metric `duration`).
  uint64_t end = std::max(ps(p_->core.stats().end), program_end_ps_);
  for (const auto& c : p_->dma.channel_stats()) end = std::max(end, ps(c.last_end));
  for (const auto& fl : p_->dma.faults()) end = std::max(end, ps(fl.time));
  energy_ = platforms::platform_energy(*p_, sc_core::sc_time(static_cast<double>(end), sc_core::SC_PS));
}

bool NeuronSteps::fails(bool has_expectations) const {
  // Without expectations, a fault or a recorded violation fails the run.
  const bool bad_exit = binary() && hart_->end == models::rv32::HartEnd::kExited && hart_->hart->exit_code() != 0;
  return !has_expectations && (fault_ || !p_->dma.faults().empty() || bad_exit || !missing_output_.empty());
}

void NeuronSteps::finish_outputs(const std::map<std::string, double>&) {
  uint64_t end = std::max(ps(p_->core.stats().end), program_end_ps_);
  if (binary()) {
    binary_trace();
    for (auto& o : obs_) o->core_busy(p_->core.basename(), program_end_ps_, false);
  }
  for (const auto& c : p_->dma.channel_stats()) end = std::max(end, ps(c.last_end));
  for (const auto& fl : p_->dma.faults()) end = std::max(end, ps(fl.time));  // a fault ends a run too
  send_memory_series("dataram", p_->memory.dataram.stats(), cfg_.memory.dataram.clock_ns, end, obs_);
  send_memory_series("hbm", p_->memory.hbm.stats(), cfg_.memory.hbm.tck_ns, end, obs_);
  for (auto& o : obs_) o->finish(end);
}

}  // namespace npusim::sim::neuron
