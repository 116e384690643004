#include "sim/run/snitch_programs.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "sim/run/snitch_run.h"
#include "sim/input/limits.h"
#include "sim/tools/heap_replay.h"

namespace npusim::sim::snitch {

namespace {

// Core cycles to write one DMA descriptor into the DMA frontend (assumption: a few CSR writes;
// the engine's own setup is dma.setup_cycles).
constexpr uint64_t kDmaIssueCycles = 4;

}  // namespace

uint64_t SnitchPrograms::eval(Ctx& x, const Expr& e) {
  if (e.constant()) return e.ops[0].imm;
  uint64_t st[64];
  size_t n = 0;
  for (const auto& op : e.ops) {
    switch (op.code) {
      case Expr::kImm:
        if (n == 64) throw RunFault("bad operand", fmt::format("{}: expression too deep", e.at.str()));
        st[n++] = op.imm;
        break;
      case Expr::kVar:
        if (n == 64) throw RunFault("bad operand", fmt::format("{}: expression too deep", e.at.str()));
        if (!x.bound[op.slot])
          throw RunFault("unbound name",
                          fmt::format("{}: '{}' is not bound on {} (bound only in a branch this core did not take)",
                                      e.at.str(), sc_.slots[op.slot], x.name));
        st[n++] = x.env[op.slot];
        break;
      case Expr::kNot: st[n - 1] = !st[n - 1]; break;
      case Expr::kNeg: st[n - 1] = uint64_t{0} - st[n - 1]; break;
      default: {
        const uint64_t y = st[--n];
        uint64_t& a = st[n - 1];
        switch (op.code) {
          case Expr::kAdd: a += y; break;
          case Expr::kSub: a -= y; break;
          case Expr::kMul: a *= y; break;
          case Expr::kDiv:
          case Expr::kMod:
            if (y == 0)
              throw RunFault("bad operand", fmt::format("{}: division by zero in \"{}\" on {}", e.at.str(), e.text, x.name));
            a = op.code == Expr::kDiv ? a / y : a % y;
            break;
          case Expr::kEq: a = a == y; break;
          case Expr::kNe: a = a != y; break;
          case Expr::kLt: a = a < y; break;
          case Expr::kLe: a = a <= y; break;
          case Expr::kGt: a = a > y; break;
          case Expr::kGe: a = a >= y; break;
          case Expr::kAnd: a = a && y; break;
          case Expr::kOr: a = a || y; break;
          default: break;
        }
      }
    }
  }
  return st[0];
}

void SnitchPrograms::slice(Ctx& x, const std::string& name, uint64_t t0, const TJson& args) {
  if (!trace_) return;
  const uint64_t t1 = ps(x.core->now());
  trace_->slice(x.track, name, static_cast<double>(t0) / 1e6, static_cast<double>(t1 - std::min(t0, t1)) / 1e6,
                args);
}

void SnitchPrograms::exec(Ctx& x, const std::vector<Step>& steps) {
  for (const auto& s : steps) exec(x, s);
}

void SnitchPrograms::alloc_step(Ctx& x, const Step& s) {
  const uint64_t t0 = ps(x.core->now());
  const uint32_t size = u32(s.a, eval(x, s.a), "size_t");
  const uint32_t align = s.b.present ? u32(s.b, eval(x, s.b), "size_t") : 1;
  as::AllocResult r;
  as::Call call = s.kind == Step::kL1Alloc ? as::Call::kL1ClusterLocal
                  : s.kind == Step::kL3Alloc ? as::Call::kL3Alloc
                                             : as::Call::kL1ComputeCoreLocal;
  if (align == 0)
    throw RunFault("bad operand", fmt::format("{}: {}: alignment 0 divides by zero in snrt_align_up",
                                               s.at.str(), as::call_name(call)));
  x.step_start = t0;
  // Under on_trap: stop_core this throws AllocTrap, recorded by core_main.
  r = call == as::Call::kL1ClusterLocal   ? x.alloc->l1_alloc_cluster_local(size, align)
      : call == as::Call::kL3Alloc        ? x.alloc->l3_alloc(size, align)
                                          : x.alloc->l1_alloc_compute_core_local(size, align);
  const uint64_t t = ps(x.core->now());
  if (r.trapped) traps_.push_back(TrapRecord{x.cluster, x.idx, x.name, *r.trap, t, s.at.str(), false});
  if (r.undefined)
    undefined_.push_back(UndefinedRecord{x.cluster, x.idx, x.name, as::call_name(call), size, r.addr, t, s.at.str()});
  if (r.trapped && trace_)
    trace_->instant(trace_->track("faults", "traps and faults", 0), fmt::format("trap on {}", x.name),
                    static_cast<double>(t) / 1e6,
                    nlohmann::json{{"call", as::call_name(call)}, {"size", size}, {"past_end", r.trap->past_end},
                                   {"action", "recorded"}, {"step", s.at.str()}});
  if (r.undefined && trace_)
    trace_->instant(trace_->track("faults", "traps and faults", 0), fmt::format("undefined result on {}", x.name),
                    static_cast<double>(t) / 1e6,
                    nlohmann::json{{"call", as::call_name(call)}, {"addr", hex(r.addr)}, {"step", s.at.str()}});
  bind(x, s.as, r.addr);
  if (trace_)
    slice(x, as::call_name(call), t0,
          TJson{{"size", size}, {"align", align}, {"addr", hex(r.addr)}, {"next", hex(r.next)}, {"trap", r.trapped}});
}

void SnitchPrograms::barrier(Ctx& x, bool global) {
  Barrier& b = global ? global_barrier_ : cluster_barriers_[x.cluster];
  x.core->sync();
  if (++b.arrived == b.members) {
    b.arrived = 0;
    ++b.episodes;
    b.ev->notify(x.core->period() * static_cast<double>(cfg_.barrier_cycles));
  }
  x.core->wait_for(*b.ev);
}

void SnitchPrograms::exec(Ctx& x, const Step& s) {
  if (interrupted()) throw RunFault("interrupted", fmt::format("{}: interrupted by {}", s.at.str(), stop_signal_name()));
  x.current = &s;
  models::Core& c = *x.core;
  progress_.update(++steps_done_, c.now().to_seconds() * 1e9);
  switch (s.kind) {
    case Step::kL1Alloc:
    case Step::kL1AllocLocal:
    case Step::kL3Alloc:
      alloc_step(x, s);
      break;
    case Step::kUpdateNext:
      x.alloc->l1_update_next(u32(s.a, eval(x, s.a), "pointer"));
      break;
    case Step::kL1Next:
      bind(x, s.as, x.alloc->l1_next());
      break;
    case Step::kLet:
      for (const auto& [slot, e] : s.lets) bind(x, slot, eval(x, e));
      break;
    case Step::kRemotePtr: {
      const uint32_t ptr = u32(s.a, eval(x, s.a), "pointer");
      const uint32_t src = s.b.present ? u32(s.b, eval(x, s.b), "cluster index") : x.cluster;
      const uint32_t dst = u32(s.c, eval(x, s.c), "cluster index");
      bind(x, s.as, x.alloc->remote_l1_ptr(ptr, src, dst));
      break;
    }
    case Step::kCoreLocalPtr:
      bind(x, s.as,
           x.alloc->compute_core_local_ptr(u32(s.a, eval(x, s.a), "pointer"), u32(s.b, eval(x, s.b), "core index"),
                                           u32(s.c, eval(x, s.c), "size_t")));
      break;
    case Step::kStream:
    case Step::kCheck: {
      const uint64_t t0 = ps(c.now());
      const uint64_t count = eval_or(x, s.count, 1);
      const uint64_t bytes = eval_or(x, s.bytes, 8);
      const uint64_t stride = eval_or(x, s.stride, bytes);
      const uint64_t cycles = eval_or(x, s.compute, 0);
      const uint64_t value = eval_or(x, s.value, 0);
      if (count > limits().stream_elements)
        throw RunFault("limit", fmt::format("{}: count {} on {} is more than the limit of {} elements (--limit "
                                            "stream_elements=N)", s.at.str(), count, x.name, limits().stream_elements));
      if (bytes == 0 || bytes > 8)
        throw RunFault("bad operand", fmt::format("{}: a core access is 1 to 8 bytes, not {}", s.at.str(), bytes));
      uint64_t loads[8], stores[8];
      const size_t nl = s.kind == Step::kCheck ? 1 : std::min<size_t>(s.loads.size(), 8);
      const size_t ns = std::min<size_t>(s.stores.size(), 8);
      if (s.kind == Step::kCheck) loads[0] = eval(x, s.a);
      for (size_t k = 0; k < nl && s.kind != Step::kCheck; ++k) loads[k] = eval(x, s.loads[k]);
      for (size_t k = 0; k < ns; ++k) stores[k] = eval(x, s.stores[k]);
      const uint64_t mask = bytes == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * bytes)) - 1;
      for (uint64_t i = 0; i < count; ++i) {
        if ((i & 1023) == 1023) {  // a long stream ticks the progress and stops between its accesses
          progress_.update(steps_done_, c.now().to_seconds() * 1e9);
          if (interrupted())
            throw RunFault("interrupted", fmt::format("{}: interrupted by {} after {} of {} elements", s.at.str(),
                                                      stop_signal_name(), i, count));
        }
        const uint64_t off = i * stride;
        for (size_t k = 0; k < nl; ++k) {
          uint64_t v = 0;
          c.read(loads[k] + off, &v, bytes);
          if (s.kind == Step::kCheck && v != (value & mask)) {
            ++check_failures_;
            throw RunFault("check failed",
                            fmt::format("{}: check on {}: {} bytes at 0x{:x} read 0x{:x}, expected 0x{:x} "
                                        "(element {} of {})",
                                        s.at.str(), x.name, bytes, loads[k] + off, v, value & mask, i, count));
          }
        }
        if (cycles) c.compute(cycles);
        for (size_t k = 0; k < ns; ++k) c.write(stores[k] + off, &value, bytes);
      }
      x.accesses += count * (nl + ns);
      if (trace_) slice(x, s.kind == Step::kCheck ? "check" : s.stores.empty() ? "load" : s.loads.empty() ? "store" : "stream",
            t0, TJson{{"count", count}, {"bytes", bytes}, {"step", s.at.str()}});
      break;
    }
    case Step::kCompute: {
      const uint64_t t0 = ps(c.now());
      const uint64_t n = eval(x, s.a);
      c.compute(n);
      if (trace_) slice(x, "compute", t0, TJson{{"cycles", n}});
      break;
    }
    case Step::kBarrier: {
      const uint64_t t0 = ps(c.now());
      barrier(x, s.global);
      if (trace_) slice(x, s.global ? "global barrier" : "barrier", t0);
      break;
    }
    case Step::kDma: {
      if (!x.dm)
        throw RunFault("not the DM core",
                        fmt::format("{}: dma on {}: only the DM core (core {}) drives the cluster's DMA engine",
                                    s.at.str(), x.name, cfg_.runtime.compute_cores));
      const uint64_t t0 = ps(c.now());
      const uint64_t src = eval(x, s.a), dst = eval(x, s.b), bytes = eval(x, s.c);
      const uint64_t rows = eval_or(x, s.count, 1);
      if (rows > limits().dma_rows)
        throw RunFault("limit", fmt::format("{}: dma of {} rows is more than the limit of {} (--limit dma_rows=N)",
                                            s.at.str(), rows, limits().dma_rows));
      const uint64_t ss = eval_or(x, s.stride, bytes), ds = eval_or(x, s.d, bytes);
      models::DmaEngine& dma = sys_->dma(x.cluster);
      const char* site = rows > 1 ? "snrt_dma_start_2d" : "snrt_dma_start_1d";
      c.compute(kDmaIssueCycles);
      if (rows > 1 && ss == bytes && ds == bytes) {
        // Contiguous rows: the engine streams them as one transfer.
        x.tickets.push_back(dma.submit(models::DmaDescriptor{src, dst, rows * bytes, 0, site}, c.now()));
      } else {
        // Strided rows: one descriptor each (assumption: each pays the engine's setup).
        for (uint64_t r = 0; r < rows; ++r)
          x.tickets.push_back(dma.submit(models::DmaDescriptor{src + r * ss, dst + r * ds, bytes, 0, site}, c.now()));
      }
      if (trace_) slice(x, "dma start", t0, TJson{{"src", hex(src)}, {"dst", hex(dst)}, {"bytes", bytes}, {"rows", rows}});
      break;
    }
    case Step::kDmaWait: {
      const uint64_t t0 = ps(c.now());
      models::DmaEngine& dma = sys_->dma(x.cluster);
      for (;;) {
        bool all = true;
        for (uint64_t t : x.tickets) all = all && dma.done(t);
        if (all) break;
        c.wait_for(dma.completion_event());
      }
      for (uint64_t t : x.tickets)
        if (const auto* f = dma.fault_of(t)) throw RunFault("dma bus error", f->message);
      x.tickets.clear();
      if (trace_) slice(x, "dma_wait", t0);
      break;
    }
    case Step::kLoop: {
      const uint64_t n = eval(x, s.count);
      for (uint64_t i = 0; i < n; ++i) {
        if (s.has_var) bind(x, s.as, i);
        exec(x, s.body);
      }
      break;
    }
    case Step::kWhen:
      exec(x, eval(x, s.a) ? s.body : s.other);
      break;
    case Step::kMarker: {
      const uint64_t t = ps(c.now());
      markers_.emplace_back(t, x.name, s.text);
      if (trace_) trace_->instant(x.track, s.text, static_cast<double>(t) / 1e6);
      break;
    }
    case Step::kWait: {
      const uint64_t t0 = ps(c.now());
      c.idle(sc_core::sc_time(s.wait_ns, sc_core::SC_NS));
      if (trace_) slice(x, "wait", t0);
      break;
    }
  }
}

void SnitchPrograms::core_main(Ctx& x) {
  try {
    const uint64_t t0 = ps(x.core->now());
    x.alloc->start_up();
    if (trace_) slice(x, "snrt start-up", t0);
    exec(x, sc_.program);
    if (x.own) exec(x, *x.own);
    x.current = nullptr;
    x.status = Ctx::kFinished;
  } catch (const as::AllocTrap& e) {
    forget_unwound_frames();
    x.status = Ctx::kStopped;
    const uint64_t t = ps(x.core->now());
    const std::string step = x.current ? x.current->at.str() : "";
    traps_.push_back(TrapRecord{x.cluster, x.idx, x.name, e.info(), t, step, true});
    if (trace_)
      slice(x, as::call_name(e.info().call), x.step_start,
            TJson{{"size", e.info().size}, {"align", e.info().alignment}, {"trap", true}});
    faults_.push_back(FaultRecord{"trap", fmt::format("{}: {}", x.name, e.what()),
                                  x.current ? x.current->at.str() : "", x.name, t});
    if (trace_)
      trace_->instant(trace_->track("faults", "traps and faults", 0), fmt::format("trap on {}", x.name),
                      static_cast<double>(t) / 1e6,
                      nlohmann::json{{"call", as::call_name(e.info().call)}, {"size", e.info().size},
                                     {"past_end", e.info().past_end}, {"action", "core stopped"},
                                     {"step", x.current ? x.current->at.str() : ""}});
  } catch (const RunFault& e) {
    forget_unwound_frames();
    if (e.kind() == "interrupted") {
      x.status = Ctx::kInterrupted;  // stopped by SIGINT/SIGTERM: not a fault of the program
    } else {
      x.status = Ctx::kFault;
      faults_.push_back(FaultRecord{e.kind(), e.what(), x.current ? x.current->at.str() : "", x.name, ps(x.core->now())});
    }
  } catch (const std::exception&) {  // a failed check, a bus error, anything the models refuse
    forget_unwound_frames();
    x.status = Ctx::kFault;
    const Fault f = classify_fault(std::current_exception());
    faults_.push_back(FaultRecord{f.kind, f.message, x.current ? x.current->at.str() : "", x.name, ps(x.core->now())});
  }
  if (x.status == Ctx::kFault && trace_)
    trace_->instant(trace_->track("faults", "traps and faults", 0), faults_.back().kind,
                    static_cast<double>(faults_.back().t_ps) / 1e6,
                    nlohmann::json{{"core", x.name}, {"message", faults_.back().message}});
  x.end_ps = ps(x.core->now());
  if (vcd_)
    changes_.push_back(Change{x.end_ps, fmt::format("cluster{}.{}.busy", x.cluster,
                                                    x.dm ? std::string("dm") : fmt::format("core{}", x.idx)),
                              0});
}

// --- the pipeline's phases ---

void SnitchPrograms::prepare() {
  platform_name_ = opt_.platform_override.empty() ? sc_.platform : opt_.platform_override;
  cfg_ = load_snitch_platform(platform_name_, run_settings(sc_.set, opt_));
  // Expectation keys are known before the run.
  {
    static const std::set<std::string> fixed = {
        "duration", "traps", "l1_traps", "l3_traps", "undefined_results", "faults", "check_failures",
        "stopped_cores", "hung_cores", "finished_cores", "core_accesses", "tcdm.accesses",
        "tcdm.core_accesses", "tcdm.bytes", "tcdm.conflicts", "tcdm.stall_cycles", "dma.bytes",
        "dma.transfers", "dma.errors", "l3.bytes", "l3.requests", "barriers", "markers"};
    for (const auto& e : sc_.expect) {
      bool ok = fixed.count(e.key) > 0;
      for (uint32_t k = 0; k < cfg_.clusters && !ok; ++k)
        ok = e.key == fmt::format("tcdm{}.accesses", k) || e.key == fmt::format("tcdm{}.conflicts", k);
      if (!ok) {
        std::string list;
        for (const auto& f : fixed) list += (list.empty() ? "" : ", ") + f;
        throw InputError(e.at.file, e.at.line, e.key,
                         "unknown expectation key (known: " + list + ", tcdmN.accesses, tcdmN.conflicts)", e.at.column);
      }
    }
    for (const auto& [sel, steps] : sc_.cores) {
      if (sel == "compute" || sel == "dm") continue;
      if (std::stoull(sel) >= cfg_.cores_per_cluster())
        throw InputError(sc_.file, 0, sel,
                         fmt::format("cores: there is no core {} (a cluster has cores 0..{})", sel,
                                     cfg_.cores_per_cluster() - 1));
    }
  }
}

void SnitchPrograms::build() {
  sys_ = std::make_unique<SnitchSystem>("snitch", cfg_);
  cluster_barriers_.resize(cfg_.clusters);
  for (auto& b : cluster_barriers_) {
    b.members = cfg_.cores_per_cluster();
    b.ev = std::make_unique<sc_core::sc_event>();
  }
  global_barrier_.members = cfg_.clusters * cfg_.cores_per_cluster();
  global_barrier_.ev = std::make_unique<sc_core::sc_event>();
}

void SnitchPrograms::attach(std::vector<std::unique_ptr<RunObserver>>&) {
  // This workload writes its trace and VCD itself (per-cluster tracks, bank-conflict counters).
  if (!opt_.trace_path.empty()) {
    trace_ = std::make_unique<ChromeTrace>(opt_.trace_path);
    trace_->set_filter(opt_.trace_filter);
    trace_->set_max_bytes(opt_.trace_max_bytes);
  }
  if (!opt_.vcd_path.empty()) vcd_ = std::make_unique<VcdWriter>(opt_.vcd_path);

  if (trace_) trace_->track("faults", "traps and faults", 0);
}

void SnitchPrograms::start() {
  for (uint32_t k = 0; k < cfg_.clusters; ++k) {
    const as::SnitchConfig rc = cfg_.runtime_of(k);
    for (uint32_t i = 0; i < cfg_.cores_per_cluster(); ++i) {
      auto x = std::make_unique<Ctx>();
      x->cluster = k;
      x->idx = i;
      x->dm = i >= cfg_.runtime.compute_cores;
      x->core = &sys_->core(k, i);
      x->name = x->core->basename();
      x->alloc = std::make_unique<as::CoreAllocator<models::Core>>(
          *x->core, rc, i,
          sc_.on_trap == "record" ? as::TrapPolicy::kRecord : as::TrapPolicy::kStop, cfg_.alloc_cost);
      const std::string key = std::to_string(i);
      x->own = sc_.cores.count(key)                       ? &sc_.cores.at(key)
               : (x->dm && sc_.cores.count("dm"))         ? &sc_.cores.at("dm")
               : (!x->dm && sc_.cores.count("compute"))   ? &sc_.cores.at("compute")
                                                          : nullptr;
      x->env.assign(sc_.slots.size(), 0);
      x->bound.assign(sc_.slots.size(), 0);
      const uint64_t builtin[kBuiltinCount] = {i,  k, cfg_.runtime.compute_cores, cfg_.clusters, x->dm ? 1u : 0u,
                                               cfg_.cores_per_cluster(), rc.tcdm_base(), as::l1_heap_end(rc),
                                               rc.l3_end, rc.cluster_offset};
      for (uint32_t b = 0; b < kBuiltinCount; ++b) bind(*x, b, builtin[b]);
      if (trace_)
        x->track = trace_->track(fmt::format("cluster {}", k), x->dm ? "dm core" : fmt::format("core {}", i),
                                 static_cast<int>(i));
      Ctx* p = x.get();
      x->core->set_program([this, p](models::Core&) { core_main(*p); });
      if (vcd_) {
        const std::string sig = fmt::format("cluster{}.{}.busy", k, x->dm ? std::string("dm") : fmt::format("core{}", i));
        changes_.push_back(Change{0, sig, 1});
        x->core->set_activity_hook([this, sig](bool busy, const sc_core::sc_time& t) {
          changes_.push_back(Change{ps(t), sig, busy ? 1u : 0u});
        });
      }
      ctx_.push_back(std::move(x));
    }
    if (trace_ || vcd_) {
      const int dma_track = trace_ ? trace_->track(fmt::format("cluster {}", k), "dma", 100) : -1;
      sys_->dma(k).set_span_hook([this, dma_track, k](uint32_t ch, const models::DmaDescriptor& d, sc_core::sc_time s,
                                                      sc_core::sc_time e) {
        if (trace_)
          trace_->slice(dma_track, fmt::format("{} B", d.len), static_cast<double>(ps(s)) / 1e6,
                        static_cast<double>(ps(e) - std::min(ps(s), ps(e))) / 1e6,
                        nlohmann::json{{"src", hex(d.src)}, {"dst", hex(d.dst)}, {"len", d.len}, {"call_site", d.call_site}});
        if (vcd_) {
          const std::string sig = fmt::format("cluster{}.dma.channel{}.busy", k, ch);
          changes_.push_back(Change{ps(s), sig, 1});
          changes_.push_back(Change{ps(e), sig, 0});
        }
      });
    }
  }

}

void SnitchPrograms::collect() {
  progress_.finish();
  // After SIGINT/SIGTERM a core left waiting (at a barrier its stopped peers never reach) was
  // interrupted too, not hung.
  if (interrupted())
    for (auto& x : ctx_)
      if (x->status == Ctx::kPending) {
        x->status = Ctx::kInterrupted;
        x->end_ps = ps(x->core->now());
      }
  // Cores run in kernel order: list what they recorded by time, then cluster and core.
  std::stable_sort(traps_.begin(), traps_.end(), [](const TrapRecord& a, const TrapRecord& b) {
    return std::tie(a.t_ps, a.cluster, a.core) < std::tie(b.t_ps, b.cluster, b.core);
  });
  std::stable_sort(undefined_.begin(), undefined_.end(), [](const UndefinedRecord& a, const UndefinedRecord& b) {
    return std::tie(a.t_ps, a.cluster, a.core) < std::tie(b.t_ps, b.cluster, b.core);
  });
  std::stable_sort(faults_.begin(), faults_.end(),
                   [](const FaultRecord& a, const FaultRecord& b) { return a.t_ps < b.t_ps; });
  std::stable_sort(markers_.begin(), markers_.end(), [](const auto& a, const auto& b) {
    return std::get<0>(a) < std::get<0>(b);
  });

}

bool SnitchPrograms::fails(bool has_expectations) const {
  if (has_expectations) return false;
  const auto m = metrics();
  return !faults_.empty() || !traps_.empty() || !undefined_.empty() || m.at("hung_cores") > 0 || m.at("dma.errors") > 0;
}

void SnitchPrograms::finish_outputs(const std::map<std::string, double>& m) {
  write_trace(static_cast<uint64_t>(m.at("duration") * 1e3 + 0.5));
  write_vcd(static_cast<uint64_t>(m.at("duration") * 1e3 + 0.5));
}

bool is_snitch_scenario(const std::string& path, const std::string& platform_override) {
  if (!platform_override.empty()) return is_snitch_platform(platform_override);
  std::ifstream in(path);
  if (!in) return false;
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string p = platform_of(ss.str());
  return !p.empty() && is_snitch_platform(p);
}

RunResult run(const Scenario& sc, const RunOptions& opt, std::ostream& out) {
  SnitchPrograms w(sc, opt);
  return run_pipeline(w, sc.expect, out, {});
}

}  // namespace npusim::sim::snitch
