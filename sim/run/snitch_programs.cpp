// The Snitch-programs workload's phases of the run pipeline (snitch_programs.h): the profile
// and expectation keys, the platform, one context and thread per core, what is collected
// after the run. The interpreter the threads run is in snitch_exec.cpp.
#include "sim/run/snitch_programs.h"
#include "sim/run/energy_report.h"
#include "sim/input/yaml_input.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "sim/input/input_error.h"
#include "sim/run/snitch_run.h"

namespace npusim::sim::snitch {

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
    static const std::set<std::string> program_keys = {
        "exit_code", "exited_cores", "instructions", "cycles", "ipc", "stall.dependency", "stall.memory",
        "stall.conflict", "stall.barrier", "stall.dma", "output.missing", "memory.mismatches"};
    for (const auto& e : sc_.expect) {
      bool ok = fixed.count(e.key) > 0 || energy_metric_keys().count(e.key) > 0;
      if (binaries()) {
        ok = ok || program_keys.count(e.key) > 0;
        const auto dot = e.key.find('.');
        if (!ok && dot != std::string::npos) {
          const std::string core = e.key.substr(0, dot), what = e.key.substr(dot + 1);
          for (uint32_t k = 0; k < cfg_.clusters && !ok; ++k)
            for (uint32_t i = 0; i < cfg_.cores_per_cluster() && !ok; ++i)
              ok = core == (i < cfg_.runtime.compute_cores ? fmt::format("c{}_core{}", k, i) : fmt::format("c{}_dm", k)) &&
                   (what == "exit_code" || what == "instructions" || what == "cycles");
        }
      }
      for (uint32_t k = 0; k < cfg_.clusters && !ok; ++k)
        ok = e.key == fmt::format("tcdm{}.accesses", k) || e.key == fmt::format("tcdm{}.conflicts", k);
      if (!ok) {
        std::string list;
        for (const auto& f : fixed) list += (list.empty() ? "" : ", ") + f;
        if (binaries())
          for (const auto& f : program_keys) list += ", " + f;
        throw InputError(e.at.file, e.at.line, e.key,
                         "unknown expectation key (known: " + list + ", tcdmN.accesses, tcdmN.conflicts" +
                             (binaries() ? ", CORE.exit_code, CORE.instructions, CORE.cycles)" : ")"),
                         e.at.column);
      }
    }
    if (binaries()) prepare_binaries();
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
    trace_ = std::make_unique<ChromeTrace>(opt_.trace_output());
    trace_->set_filter(opt_.trace_filter);
    trace_->set_max_bytes(opt_.trace_max_bytes);
  }
  if (!opt_.vcd_path.empty()) vcd_ = std::make_unique<VcdWriter>(opt_.vcd_output());

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
      if (!binaries()) x->core->set_program([this, p](models::Core&) { core_main(*p); });
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
  if (binaries()) start_binaries();
}

void SnitchPrograms::collect() {
  progress_.finish();
  if (binaries()) collect_binaries();
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
  // The energy of the run, to its end (the metric `duration`).
  energy_ = platforms::platform_energy(*sys_, sc_core::sc_time(metrics().at("duration"), sc_core::SC_NS));
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
  // A file that cannot be read is not one: the scenario parser then says why.
  std::string text;
  if (!input_file_problem(path).empty()) return false;
  try {
    text = read_input_file(path, "scenario");
  } catch (const InputError&) {
    return false;
  }
  const std::string p = platform_of(text);
  return !p.empty() && is_snitch_platform(p);
}

std::vector<Expectation> SnitchPrograms::expectations_of(const Scenario& sc) {
  std::vector<Expectation> e = sc.expect;
  auto none_of = [&e](const char* key, const Where& at) {  // KEY == 0, placed where it was asked
    Expectation m;
    m.key = key;
    m.op = "==";
    m.value = 0;
    m.text = "== 0";
    m.at = at;
    e.push_back(m);
  };
  if (!sc.output.empty()) none_of("output.missing", sc.output.front().second);
  if (!sc.memory.empty()) none_of("memory.mismatches", sc.memory.front().where);
  return e;
}

RunResult run(const Scenario& sc, const RunOptions& opt, std::ostream& out) {
  SnitchPrograms w(sc, opt);
  return run_pipeline(w, SnitchPrograms::expectations_of(sc), out, {});
}

}  // namespace npusim::sim::snitch
