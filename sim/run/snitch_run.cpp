#include "sim/run/snitch_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <tuple>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

#include "sim/output/chrome_trace.h"
#include "sim/output/vcd_writer.h"
#include "sim/tools/heap_replay.h"
#include "sim/run/snitch_platform.h"

namespace npusim::sim::snitch {

namespace {

using Json = nlohmann::ordered_json;
using TJson = nlohmann::json;  // trace-event arguments
namespace as = alloc::snitch;

// Core cycles to write one DMA descriptor into the DMA frontend (assumption: a few CSR writes;
// the engine's own setup is dma.setup_cycles).
constexpr uint64_t kDmaIssueCycles = 4;

// An exception thrown inside a core's thread unwinds frames on a SystemC coroutine stack,
// which AddressSanitizer cannot clean up ("ASan is ignoring requested __asan_handle_no_return"):
// the dead frames' redzones stay poisoned and later calls into uninstrumented libraries (fmt,
// SystemC) on that stack are reported as overflows. After catching such an exception the core
// forgets the dead frames below the catching one. A no-op without ASan.
#if defined(__SANITIZE_ADDRESS__)
__attribute__((noinline)) void forget_unwound_frames() {
  const auto here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  const uintptr_t span = static_cast<uintptr_t>(sc_core::SC_DEFAULT_STACK_SIZE) / 2;
  __asan_unpoison_memory_region(reinterpret_cast<void*>(here - span), span);
}
#else
void forget_unwound_frames() {}
#endif

uint64_t ps(const sc_core::sc_time& t) { return static_cast<uint64_t>(t.to_seconds() * 1e12 + 0.5); }
double ns_of(uint64_t p) { return static_cast<double>(p) / 1e3; }
std::string hex(uint64_t v) { return fmt::format("0x{:x}", v); }

// A fault that ends one core (not a trap): a failed check, a bus error, a bad operand.
class CoreFault : public std::runtime_error {
 public:
  CoreFault(std::string kind, const std::string& msg) : std::runtime_error(msg), kind_(std::move(kind)) {}
  const std::string& kind() const { return kind_; }

 private:
  std::string kind_;
};

struct TrapRecord {
  uint32_t cluster, core;
  std::string name;
  as::TrapInfo info;
  uint64_t t_ps;
  std::string step;
  bool stopped;
};
struct UndefinedRecord {
  uint32_t cluster, core;
  std::string name;
  std::string call;
  uint32_t size, addr;
  uint64_t t_ps;
  std::string step;
};
struct FaultRecord {
  std::string kind, message, step, core;
  uint64_t t_ps;
};

struct Ctx {
  uint32_t cluster = 0, idx = 0;
  std::string name;
  bool dm = false;
  models::Core* core = nullptr;
  std::unique_ptr<as::CoreAllocator<models::Core>> alloc;
  const std::vector<Step>* own = nullptr;  // its `cores:` steps, after `program`
  std::vector<uint64_t> env;
  std::vector<uint8_t> bound;
  std::vector<uint64_t> tickets;
  const Step* current = nullptr;
  enum Status { kPending, kFinished, kStopped, kFault } status = kPending;
  uint64_t end_ps = 0;
  uint64_t step_start = 0;  // start of the allocation step in progress (ps)
  uint64_t accesses = 0;  // loads and stores of stream/check steps
  int track = -1;
};

struct Barrier {
  uint32_t members = 0, arrived = 0;
  uint64_t episodes = 0;
  std::unique_ptr<sc_core::sc_event> ev;
};

class Runner {
 public:
  Runner(const Scenario& sc, const RunOptions& opt) : sc_(sc), opt_(opt) {}
  RunResult run(std::ostream& out);

 private:
  uint64_t eval(Ctx& x, const Expr& e);
  uint64_t eval_or(Ctx& x, const Expr& e, uint64_t dflt) { return e.present ? eval(x, e) : dflt; }
  uint32_t u32(const Expr& e, uint64_t v, const char* what) {
    if (v > 0xffffffffull)
      throw CoreFault("bad operand", fmt::format("{}: {} = {} does not fit the core's 32-bit {}",
                                                 e.at.str(), e.text, v, what));
    return static_cast<uint32_t>(v);
  }
  void bind(Ctx& x, uint32_t slot, uint64_t v) {
    x.env[slot] = v;
    x.bound[slot] = 1;
  }
  void exec(Ctx& x, const std::vector<Step>& steps);
  void exec(Ctx& x, const Step& s);
  void alloc_step(Ctx& x, const Step& s);
  void barrier(Ctx& x, bool global);
  void core_main(Ctx& x);
  void slice(Ctx& x, const std::string& name, uint64_t t0, const TJson& args = TJson());
  std::map<std::string, double> metrics() const;
  Json build_report(int exit_code, const std::vector<Json>& expectations) const;
  void print_summary(std::ostream& out, const Json& r) const;
  void write_trace(uint64_t end_ps);

  const Scenario& sc_;
  const RunOptions& opt_;
  std::string platform_name_;
  SnitchPlatformConfig cfg_;
  std::unique_ptr<SnitchSystem> sys_;
  std::vector<std::unique_ptr<Ctx>> ctx_;
  std::vector<Barrier> cluster_barriers_;
  Barrier global_barrier_;
  std::vector<TrapRecord> traps_;
  std::vector<UndefinedRecord> undefined_;
  std::vector<FaultRecord> faults_;
  std::vector<std::tuple<uint64_t, std::string, std::string>> markers_;  // t, core, text
  std::unique_ptr<ChromeTrace> trace_;
  // VCD: value changes collected during the run (cores report them slightly out of time
  // order), sorted and written at the end.
  struct Change {
    uint64_t t;
    std::string name;
    uint64_t value;
  };
  std::unique_ptr<VcdWriter> vcd_;
  std::vector<Change> changes_;
  void write_vcd(uint64_t end_ps);
  uint64_t check_failures_ = 0;
};

uint64_t Runner::eval(Ctx& x, const Expr& e) {
  if (e.constant()) return e.ops[0].imm;
  uint64_t st[64];
  size_t n = 0;
  for (const auto& op : e.ops) {
    switch (op.code) {
      case Expr::kImm:
        if (n == 64) throw CoreFault("bad operand", fmt::format("{}: expression too deep", e.at.str()));
        st[n++] = op.imm;
        break;
      case Expr::kVar:
        if (n == 64) throw CoreFault("bad operand", fmt::format("{}: expression too deep", e.at.str()));
        if (!x.bound[op.slot])
          throw CoreFault("unbound name",
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
              throw CoreFault("bad operand", fmt::format("{}: division by zero in \"{}\" on {}", e.at.str(), e.text, x.name));
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

void Runner::slice(Ctx& x, const std::string& name, uint64_t t0, const TJson& args) {
  if (!trace_) return;
  const uint64_t t1 = ps(x.core->now());
  trace_->slice(x.track, name, static_cast<double>(t0) / 1e6, static_cast<double>(t1 - std::min(t0, t1)) / 1e6,
                args);
}

void Runner::exec(Ctx& x, const std::vector<Step>& steps) {
  for (const auto& s : steps) exec(x, s);
}

void Runner::alloc_step(Ctx& x, const Step& s) {
  const uint64_t t0 = ps(x.core->now());
  const uint32_t size = u32(s.a, eval(x, s.a), "size_t");
  const uint32_t align = s.b.present ? u32(s.b, eval(x, s.b), "size_t") : 1;
  as::AllocResult r;
  as::Call call = s.kind == Step::kL1Alloc ? as::Call::kL1ClusterLocal
                  : s.kind == Step::kL3Alloc ? as::Call::kL3Alloc
                                             : as::Call::kL1ComputeCoreLocal;
  if (align == 0)
    throw CoreFault("bad operand", fmt::format("{}: {}: alignment 0 divides by zero in snrt_align_up",
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

void Runner::barrier(Ctx& x, bool global) {
  Barrier& b = global ? global_barrier_ : cluster_barriers_[x.cluster];
  x.core->sync();
  if (++b.arrived == b.members) {
    b.arrived = 0;
    ++b.episodes;
    b.ev->notify(x.core->period() * static_cast<double>(cfg_.barrier_cycles));
  }
  x.core->wait_for(*b.ev);
}

void Runner::exec(Ctx& x, const Step& s) {
  x.current = &s;
  models::Core& c = *x.core;
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
      if (bytes == 0 || bytes > 8)
        throw CoreFault("bad operand", fmt::format("{}: a core access is 1 to 8 bytes, not {}", s.at.str(), bytes));
      uint64_t loads[8], stores[8];
      const size_t nl = s.kind == Step::kCheck ? 1 : std::min<size_t>(s.loads.size(), 8);
      const size_t ns = std::min<size_t>(s.stores.size(), 8);
      if (s.kind == Step::kCheck) loads[0] = eval(x, s.a);
      for (size_t k = 0; k < nl && s.kind != Step::kCheck; ++k) loads[k] = eval(x, s.loads[k]);
      for (size_t k = 0; k < ns; ++k) stores[k] = eval(x, s.stores[k]);
      const uint64_t mask = bytes == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * bytes)) - 1;
      for (uint64_t i = 0; i < count; ++i) {
        const uint64_t off = i * stride;
        for (size_t k = 0; k < nl; ++k) {
          uint64_t v = 0;
          c.read(loads[k] + off, &v, bytes);
          if (s.kind == Step::kCheck && v != (value & mask)) {
            ++check_failures_;
            throw CoreFault("check failed",
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
        throw CoreFault("not the DM core",
                        fmt::format("{}: dma on {}: only the DM core (core {}) drives the cluster's DMA engine",
                                    s.at.str(), x.name, cfg_.runtime.compute_cores));
      const uint64_t t0 = ps(c.now());
      const uint64_t src = eval(x, s.a), dst = eval(x, s.b), bytes = eval(x, s.c);
      const uint64_t rows = eval_or(x, s.count, 1);
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
        if (const auto* f = dma.fault_of(t)) throw CoreFault("dma bus error", f->message);
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

void Runner::core_main(Ctx& x) {
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
  } catch (const CoreFault& e) {
    forget_unwound_frames();
    x.status = Ctx::kFault;
    faults_.push_back(FaultRecord{e.kind(), e.what(), x.current ? x.current->at.str() : "", x.name, ps(x.core->now())});
  } catch (const models::BusError& e) {
    forget_unwound_frames();
    x.status = Ctx::kFault;
    faults_.push_back(FaultRecord{"bus error", e.what(), x.current ? x.current->at.str() : "", x.name, ps(x.core->now())});
  } catch (const std::exception& e) {  // anything else the models refuse: a fault, not a crash
    forget_unwound_frames();
    x.status = Ctx::kFault;
    faults_.push_back(FaultRecord{"error", e.what(), x.current ? x.current->at.str() : "", x.name, ps(x.core->now())});
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

std::map<std::string, double> Runner::metrics() const {
  std::map<std::string, double> m;
  uint64_t end = 0, core_accesses = 0, stopped = 0, hung = 0, finished = 0, faulted = 0;
  for (const auto& x : ctx_) {
    end = std::max(end, x->end_ps);
    const auto& st = x->core->stats();
    core_accesses += st.loads + st.stores + st.block_reads + st.block_writes;
    finished += x->status == Ctx::kFinished;
    stopped += x->status == Ctx::kStopped;
    faulted += x->status == Ctx::kFault;
    hung += x->status == Ctx::kPending;
  }
  double tcdm_acc = 0, tcdm_core = 0, tcdm_conf = 0, tcdm_stall = 0, tcdm_bytes = 0, dma_bytes = 0, dma_desc = 0,
         dma_errors = 0;
  for (uint32_t k = 0; k < cfg_.clusters; ++k) {
    const auto& t = sys_->tcdm(k).stats();
    const double acc = static_cast<double>(t.reads + t.writes);
    tcdm_acc += acc;
    tcdm_core += acc - static_cast<double>(t.dma.accesses);
    tcdm_conf += static_cast<double>(t.conflicts);
    tcdm_stall += static_cast<double>(t.stall_cycles);
    tcdm_bytes += static_cast<double>(t.bytes);
    m[fmt::format("tcdm{}.accesses", k)] = acc;
    m[fmt::format("tcdm{}.conflicts", k)] = static_cast<double>(t.conflicts);
    dma_errors += static_cast<double>(sys_->dma(k).faults().size());
    for (const auto& ch : sys_->dma(k).channel_stats()) {
      dma_bytes += static_cast<double>(ch.bytes);
      dma_desc += static_cast<double>(ch.descriptors);
      end = std::max(end, ps(ch.last_end));
    }
  }
  uint64_t l1 = 0, l3 = 0;
  for (const auto& t : traps_) (t.info.call == as::Call::kL3Alloc ? l3 : l1)++;
  const auto& l3s = sys_->l3().stats();
  m["duration"] = ns_of(end);
  m["traps"] = static_cast<double>(traps_.size());
  m["l1_traps"] = static_cast<double>(l1);
  m["l3_traps"] = static_cast<double>(l3);
  m["undefined_results"] = static_cast<double>(undefined_.size());
  m["faults"] = static_cast<double>(faulted);
  m["check_failures"] = static_cast<double>(check_failures_);
  m["stopped_cores"] = static_cast<double>(stopped);
  m["hung_cores"] = static_cast<double>(hung);
  m["finished_cores"] = static_cast<double>(finished);
  m["core_accesses"] = static_cast<double>(core_accesses);
  m["tcdm.accesses"] = tcdm_acc;
  m["tcdm.core_accesses"] = tcdm_core;
  m["tcdm.bytes"] = tcdm_bytes;
  m["tcdm.conflicts"] = tcdm_conf;
  m["tcdm.stall_cycles"] = tcdm_stall;
  m["dma.bytes"] = dma_bytes;
  m["dma.transfers"] = dma_desc;
  m["dma.errors"] = dma_errors;
  m["l3.bytes"] = static_cast<double>(l3s.bytes());
  m["l3.requests"] = static_cast<double>(l3s.requests());
  uint64_t episodes = global_barrier_.episodes;
  for (const auto& b : cluster_barriers_) episodes += b.episodes;
  m["barriers"] = static_cast<double>(episodes);
  m["markers"] = static_cast<double>(markers_.size());
  return m;
}


const char* status_name(Ctx::Status s) {
  switch (s) {
    case Ctx::kFinished: return "finished";
    case Ctx::kStopped: return "stopped by trap";
    case Ctx::kFault: return "fault";
    default: return "hung";
  }
}

Json Runner::build_report(int exit_code, const std::vector<Json>& expectations) const {
  const auto m = metrics();
  Json r = report_head(sc_.name, sc_.file, sc_.description, platform_name_,
                       run_settings(sc_.set, opt_));
  r["platform"].update(Json{{"clusters", cfg_.clusters},
                       {"compute_cores", cfg_.runtime.compute_cores},
                       {"dm_cores", cfg_.runtime.dm_cores},
                       {"tcdm", Json{{"base", hex(cfg_.runtime.tcdm_start)}, {"size", cfg_.runtime.tcdm_size},
                                     {"banks", cfg_.tcdm.geometry.banks},
                                     {"bank_width_bytes", cfg_.tcdm.geometry.bank_width}}},
                       {"cluster_offset", hex(cfg_.runtime.cluster_offset)},
                       {"l1_heap_end", hex(as::l1_heap_end(cfg_.runtime))},
                       {"l3", Json{{"base", hex(cfg_.runtime.l3_start)}, {"end", hex(cfg_.runtime.l3_end)}}}});
  r["policies"] = Json{{"on_trap", sc_.on_trap}};
  const bool any_fault = !faults_.empty();
  Json outcome{{"exit_code", exit_code},
               {"status", any_fault ? "fault" : exit_code == 0 ? "ok" : "expectations_failed"}};
  if (any_fault) {
    const auto& f = faults_.front();
    outcome["fault"] = Json{{"kind", f.kind}, {"message", f.message}, {"time_ns", ns_of(f.t_ps)},
                            {"core", f.core}, {"step", f.step}};
  } else {
    outcome["fault"] = nullptr;
  }
  outcome["expectations"] = expectations;
  r["outcome"] = outcome;
  r["duration_ns"] = m.at("duration");
  Json cores = Json::array();
  for (const auto& x : ctx_) {
    const auto& st = x->core->stats();
    models::TcdmInitiatorStats ts;  // local and remote TCDMs
    for (uint32_t k = 0; k < cfg_.clusters; ++k) {
      const auto one = sys_->tcdm(k).core_stats(x->core);
      ts.accesses += one.accesses;
      ts.conflicts += one.conflicts;
      ts.stall_cycles += one.stall_cycles;
    }
    Json j{{"name", x->name},
           {"cluster", x->cluster},
           {"core", x->idx},
           {"role", x->dm ? "dm" : "compute"},
           {"status", status_name(x->status)},
           {"end_ns", ns_of(x->end_ps)},
           {"memory_ns", st.memory_time.to_seconds() * 1e9},
           {"compute_ns", st.compute_time.to_seconds() * 1e9},
           {"idle_ns", st.wait_time.to_seconds() * 1e9},
           {"compute_cycles", st.compute_cycles},
           {"loads", st.loads + st.block_reads},
           {"stores", st.stores + st.block_writes},
           {"tcdm_accesses", ts.accesses},
           {"tcdm_conflicts", ts.conflicts},
           {"tcdm_stall_cycles", ts.stall_cycles}};
    if (x->status == Ctx::kPending) j["blocked_at"] = x->current ? x->current->at.str() : "";
    cores.push_back(j);
  }
  r["cores"] = cores;
  Json clusters = Json::array();
  for (uint32_t k = 0; k < cfg_.clusters; ++k) {
    const auto& t = sys_->tcdm(k).stats();
    Json dma = Json::array(), dma_errors = Json::array();
    for (const auto& f : sys_->dma(k).faults()) dma_errors.push_back(f.message);
    for (const auto& ch : sys_->dma(k).channel_stats()) {
      const double busy = ch.busy.to_seconds() * 1e9;
      dma.push_back(Json{{"descriptors", ch.descriptors}, {"bytes", ch.bytes}, {"busy_ns", busy},
                         {"throughput_gbps", busy > 0 ? static_cast<double>(ch.bytes) / busy : 0.0}});
    }
    clusters.push_back(Json{{"cluster", k},
                            {"tcdm_base", hex(cfg_.tcdm_base(k))},
                            {"tcdm", Json{{"reads", t.reads},
                                          {"writes", t.writes},
                                          {"bytes", t.bytes},
                                          {"beats", t.beats},
                                          {"conflicts", t.conflicts},
                                          {"stall_cycles", t.stall_cycles},
                                          {"dma_accesses", t.dma.accesses},
                                          {"dma_conflicts", t.dma.conflicts},
                                          {"conflicts_by_bank", t.conflicts_by_bank},
                                          {"stale", t.stale}}},
                            {"dma", dma},
                            {"dma_errors", dma_errors},
                            {"barriers", cluster_barriers_[k].episodes}});
  }
  r["clusters"] = clusters;
  const auto& l3 = sys_->l3().stats();
  r["l3"] = Json{{"bytes", l3.bytes()}, {"requests", l3.requests()}, {"row_hit_rate", l3.row_hit_rate()},
                 {"latency_mean_ns", l3.latency_cycles.mean() * cfg_.l3.tck_ns}};
  Json traps = Json::array();
  for (const auto& t : traps_)
    traps.push_back(Json{{"cluster", t.cluster},
                         {"core", t.core},
                         {"name", t.name},
                         {"call", as::call_name(t.info.call)},
                         {"size", t.info.size},
                         {"alignment", t.info.alignment},
                         {"addr", hex(t.info.addr)},
                         {"next", hex(t.info.next)},
                         {"end", hex(t.info.end)},
                         {"past_end", t.info.past_end},
                         {"time_ns", ns_of(t.t_ps)},
                         {"step", t.step},
                         {"action", t.stopped ? "core stopped" : "recorded"}});
  r["traps"] = traps;
  Json und = Json::array();
  for (const auto& u : undefined_)
    und.push_back(Json{{"cluster", u.cluster}, {"core", u.core}, {"name", u.name}, {"call", u.call}, {"size", u.size},
                       {"addr", hex(u.addr)}, {"time_ns", ns_of(u.t_ps)}, {"step", u.step}});
  r["undefined_results"] = und;
  Json faults = Json::array();
  for (const auto& f : faults_)
    faults.push_back(Json{{"kind", f.kind}, {"core", f.core}, {"message", f.message}, {"time_ns", ns_of(f.t_ps)}, {"step", f.step}});
  r["faults"] = faults;
  r["violations"] = Json::array();  // no DMA window rules on this platform
  Json marks = Json::array();
  for (const auto& [t, core, text] : markers_)
    marks.push_back(Json{{"time_ns", ns_of(t)}, {"core", core}, {"text", text}});
  r["markers"] = marks;
  Json mj = Json::object();
  for (const auto& [k, v] : m) mj[k] = v;
  r["metrics"] = mj;
  return r;
}

void Runner::print_summary(std::ostream& out, const Json& r) const {
  const auto& m = r["metrics"];
  out << fmt::format("npusim run: {} on {} ({} cluster{} x ({} compute + 1 DM) cores)\n",
                     sc_.name.empty() ? sc_.file : sc_.name, platform_name_, cfg_.clusters,
                     cfg_.clusters == 1 ? "" : "s", cfg_.runtime.compute_cores);
  out << fmt::format("  simulated time   {}\n", human_ns(m["duration"].get<double>()));
  out << fmt::format("  cores            {} finished, {} stopped by a trap, {} faulted, {} hung; {} memory accesses\n",
                     m["finished_cores"].get<double>(), m["stopped_cores"].get<double>(), m["faults"].get<double>(),
                     m["hung_cores"].get<double>(), m["core_accesses"].get<double>());
  for (const auto& c : r["clusters"]) {
    const auto& t = c["tcdm"];
    const auto& banks = t["conflicts_by_bank"];
    size_t worst = 0;
    for (size_t b = 1; b < banks.size(); ++b)
      if (banks[b].get<uint64_t>() > banks[worst].get<uint64_t>()) worst = b;
    out << fmt::format("  cluster {} tcdm   {} accesses ({} by the DMA), {}, {} bank conflicts ({} stall cycles){}\n",
                       c["cluster"].get<uint32_t>(), t["reads"].get<uint64_t>() + t["writes"].get<uint64_t>(),
                       t["dma_accesses"].get<uint64_t>(), human_bytes(t["bytes"].get<double>()),
                       t["conflicts"].get<uint64_t>(), t["stall_cycles"].get<uint64_t>(),
                       t["conflicts"].get<uint64_t>() ? fmt::format(", most on bank {} ({})", worst, banks[worst].get<uint64_t>()) : "");
    for (const auto& d : c["dma"])
      if (d["descriptors"].get<uint64_t>())
        out << fmt::format("  cluster {} dma    {} descriptors, {}, {:.2f} GB/s while busy\n", c["cluster"].get<uint32_t>(),
                           d["descriptors"].get<uint64_t>(), human_bytes(d["bytes"].get<double>()),
                           d["throughput_gbps"].get<double>());
  }
  if (r["l3"]["bytes"].get<uint64_t>())
    out << fmt::format("  l3               {} in {} requests, latency mean {}\n", human_bytes(r["l3"]["bytes"].get<double>()),
                       r["l3"]["requests"].get<uint64_t>(), human_ns(r["l3"]["latency_mean_ns"].get<double>()));
  for (const auto& c : r["cores"])
    out << fmt::format("  {:<16} {:<15} end {:>12}, {} loads, {} stores, {} tcdm conflicts, idle {}\n",
                       c["name"].get<std::string>(), c["status"].get<std::string>(), human_ns(c["end_ns"].get<double>()),
                       c["loads"].get<uint64_t>(), c["stores"].get<uint64_t>(), c["tcdm_conflicts"].get<uint64_t>(),
                       human_ns(c["idle_ns"].get<double>()));
  for (const auto& t : r["traps"])
    out << fmt::format("  TRAP {}: {} (size {}, align {}) -> next {} past end {} by {} bytes, {} [step {}]\n",
                       t["name"].get<std::string>(), t["call"].get<std::string>(),
                       t["size"].get<uint64_t>(), t["alignment"].get<uint64_t>(), t["next"].get<std::string>(),
                       t["end"].get<std::string>(), t["past_end"].get<uint64_t>(), t["action"].get<std::string>(),
                       t["step"].get<std::string>());
  for (const auto& u : r["undefined_results"])
    out << fmt::format("  UNDEFINED {} (the DM core): {} (size {}) returned {} [step {}]\n",
                       u["name"].get<std::string>(), u["call"].get<std::string>(),
                       u["size"].get<uint64_t>(), u["addr"].get<std::string>(), u["step"].get<std::string>());
  for (const auto& c : r["clusters"])
    for (const auto& e : c["dma_errors"]) out << "  " << e.get<std::string>() << "\n";
  for (const auto& f : faults_)
    if (f.kind != "trap") out << fmt::format("  FAULT ({}) on {} at {}: {}\n", f.kind, f.core, human_ns(ns_of(f.t_ps)), f.message);
  for (const auto& c : r["cores"])
    if (c.contains("blocked_at"))
      out << fmt::format("  HUNG {} waiting at {}\n", c["name"].get<std::string>(), c["blocked_at"].get<std::string>());
  for (const auto& e : r["outcome"]["expectations"])
    out << fmt::format("  expect {}: {} -> {} (actual {})\n", e["key"].get<std::string>(), e["expected"].get<std::string>(),
                       e["ok"].get<bool>() ? "ok" : "FAILED", e["actual"].get<double>());
  out << fmt::format("  result: {}\n", r["outcome"]["exit_code"].get<int>() == 0 ? "PASS" : "FAIL");
}

void Runner::write_trace(uint64_t end_ps) {
  if (!trace_) return;
  for (uint32_t k = 0; k < cfg_.clusters; ++k) {
    const auto& t = sys_->tcdm(k).stats();
    const std::string proc = fmt::format("cluster {}", k);
    const double bin_us = static_cast<double>(cfg_.tcdm.series_bin_cycles) / cfg_.core.clock_ghz / 1e3;
    for (size_t i = 0; i < t.conflicts_by_bin.size(); ++i)
      trace_->counter(proc, "tcdm bank conflicts", static_cast<double>(i) * bin_us,
                      {{"conflicts per " + std::to_string(cfg_.tcdm.series_bin_cycles) + " cycles",
                        static_cast<double>(t.conflicts_by_bin[i])}});
    trace_->counter(proc, "tcdm bank conflicts", static_cast<double>(t.conflicts_by_bin.size()) * bin_us,
                    {{"conflicts per " + std::to_string(cfg_.tcdm.series_bin_cycles) + " cycles", 0.0}});
  }
  trace_->set_metadata(nlohmann::json{{"generator", "npusim"}, {"platform", "snitch-cluster"},
                                      {"end_us", static_cast<double>(end_ps) / 1e6}});
  trace_->close();
}

void Runner::write_vcd(uint64_t end_ps) {
  if (!vcd_) return;
  for (uint32_t k = 0; k < cfg_.clusters; ++k) {
    const auto& bins = sys_->tcdm(k).stats().conflicts_by_bin;
    const uint64_t bin_ps = static_cast<uint64_t>(static_cast<double>(cfg_.tcdm.series_bin_cycles) / cfg_.core.clock_ghz * 1e3 + 0.5);
    const std::string sig = fmt::format("cluster{}.tcdm.conflicts_per_bin", k);
    changes_.push_back(Change{0, sig, 0});
    for (size_t i = 0; i < bins.size(); ++i) changes_.push_back(Change{i * bin_ps, sig, bins[i]});
  }
  std::map<std::string, VcdWriter::Signal> sig;
  for (const auto& c : changes_) {
    if (sig.count(c.name)) continue;
    const bool bit = c.name.size() > 5 && c.name.compare(c.name.size() - 5, 5, ".busy") == 0;
    sig[c.name] = bit ? vcd_->wire(c.name) : vcd_->integer(c.name, 32);
  }
  std::stable_sort(changes_.begin(), changes_.end(), [](const Change& a, const Change& b) { return a.t < b.t; });
  for (const auto& c : changes_) vcd_->change(c.t, sig.at(c.name), std::min<uint64_t>(c.value, 0xffffffffu));
  vcd_->close(std::max(end_ps, changes_.empty() ? 0 : changes_.back().t));
}

RunResult Runner::run(std::ostream& out) {
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
  if (!opt_.trace_path.empty()) trace_ = std::make_unique<ChromeTrace>(opt_.trace_path);
  if (!opt_.vcd_path.empty()) vcd_ = std::make_unique<VcdWriter>(opt_.vcd_path);

  sys_ = std::make_unique<SnitchSystem>("snitch", cfg_);
  cluster_barriers_.resize(cfg_.clusters);
  for (auto& b : cluster_barriers_) {
    b.members = cfg_.cores_per_cluster();
    b.ev = std::make_unique<sc_core::sc_event>();
  }
  global_barrier_.members = cfg_.clusters * cfg_.cores_per_cluster();
  global_barrier_.ev = std::make_unique<sc_core::sc_event>();
  if (trace_) trace_->track("faults", "traps and faults", 0);
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

  sc_core::sc_start();
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

  const auto m = metrics();
  std::vector<Json> exps;
  RunResult res;
  bool ok = evaluate_expectations(sc_.expect, m, exps, res.failed_expectations);
  if (sc_.expect.empty() && (!faults_.empty() || !traps_.empty() || !undefined_.empty() ||
                             m.at("hung_cores") > 0 || m.at("dma.errors") > 0))
    ok = false;
  res.exit_code = ok ? 0 : 1;
  write_trace(static_cast<uint64_t>(m.at("duration") * 1e3 + 0.5));
  write_vcd(static_cast<uint64_t>(m.at("duration") * 1e3 + 0.5));
  res.report = build_report(res.exit_code, exps);
  print_summary(out, res.report);
  return res;
}

}  // namespace

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
  Runner r(sc, opt);
  return r.run(out);
}

}  // namespace npusim::sim::snitch
