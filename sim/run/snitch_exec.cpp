// The Snitch programs' interpreter: what one core does with its steps (snitch_programs.h). Each
// core runs core_main() as its own SystemC thread: its program, then its `cores:` steps;
// expressions, allocation steps on alloc_v2, streams and checks through the TCDM, the DM
// core's DMA, barriers; traps, undefined results and faults are recorded. The pipeline's
// phases that set the cores up and collect them are in snitch_programs.cpp.
#include "sim/run/snitch_programs.h"

#include <algorithm>

#include "sim/input/limits.h"

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

}  // namespace npusim::sim::snitch
