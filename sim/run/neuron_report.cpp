// Metrics, JSON report and summary of the Neuron-steps workload.
#include <fmt/format.h>

#include <algorithm>
#include <ostream>

#include "sim/input/input_error.h"
#include "sim/run/energy_report.h"
#include "sim/run/neuron_steps.h"

namespace npusim::sim::neuron {

namespace {

// --- expectations ---

const std::set<std::string>& fixed_metric_keys() {
  static const std::set<std::string> k = {
      "duration", "violations", "window_violations", "bus_errors", "alloc_failures", "faults",
      "stack_overflows", "double_frees", "dma.bytes", "dma.descriptors", "hbm.bytes",
      "hbm.requests", "hbm.row_hit_rate", "hbm.latency_mean_cycles", "dataram_memory.bytes",
      "stack.high_water", "stack.hbm_high_water", "core.busy_ns", "core.idle_ns", "steps"};
  return k;
}
const char* kHeapFields[] = {"peak_used", "descriptors_peak", "exhaustion_events", "free_bytes",
                             "largest_free", "alloc_failures", "fragmentation", "unused_bytes"};


const std::set<std::string>& program_metric_keys() {
  static const std::set<std::string> k = {"exit_code", "instructions", "cycles", "ipc", "stall.dependency",
                                          "stall.dataram", "stall.hbm", "stall.fwmem", "stall.dma", "stall.total",
                                          "output.missing"};
  return k;
}

}  // namespace

void NeuronSteps::check_expectation_keys() const {
  for (const auto& e : sc_.expect) {
    if (fixed_metric_keys().count(e.key) || energy_metric_keys().count(e.key)) continue;
    if (program_metric_keys().count(e.key)) {
      if (binary()) continue;
      throw InputError(e.at.file, e.at.line, e.key,
                       "is a metric of a firmware program (binary:); this scenario runs steps", e.at.column);
    }
    const auto dot = e.key.find('.');
    bool ok = false;
    if (dot != std::string::npos) {
      const std::string h = e.key.substr(0, dot), field = e.key.substr(dot + 1);
      if (h == "hbm" || h == "dataram" || h == "libc")
        for (const char* f : kHeapFields) ok = ok || field == f;
    }
    if (!ok)
      throw InputError(e.at.file, e.at.line, e.key,
                       "unknown expectation key (see docs/scenarios.md: duration, violations, "
                       "alloc_failures, faults, stack_overflows, dataram.peak_used, ...)",
                       e.at.column);
  }
}

std::map<std::string, double> NeuronSteps::metrics() const {
  std::map<std::string, double> m;
  const auto& cs = p_->core.stats();
  uint64_t window = 0, bus = 0;
  for (const auto& f : p_->dma.faults()) (f.kind == models::DmaFault::kWindow ? window : bus)++;
  const bool core_bus_error = fault_ && fault_->kind == "bus error";
  uint64_t dma_bytes = 0, dma_desc = 0;
  for (const auto& c : p_->dma.channel_stats()) {
    dma_bytes += c.bytes;
    dma_desc += c.descriptors;
  }
  uint64_t end = std::max(ps(cs.end), program_end_ps_);
  for (const auto& c : p_->dma.channel_stats()) end = std::max(end, ps(c.last_end));
  for (const auto& fl : p_->dma.faults()) end = std::max(end, ps(fl.time));  // a fault ends a run too
  m["duration"] = static_cast<double>(end) / 1e3;
  m["violations"] = m["window_violations"] = static_cast<double>(window);
  m["bus_errors"] = static_cast<double>(bus + (core_bus_error ? 1 : 0));
  uint64_t af = 0;
  for (const auto& [id, t] : heaps_) af += t.alloc_failures;
  m["alloc_failures"] = static_cast<double>(af);
  m["faults"] = fault_ ? 1 : 0;
  m["stack_overflows"] = fault_ && fault_->kind == "stack overflow" ? 1 : 0;
  m["double_frees"] = static_cast<double>(double_frees_);
  m["dma.bytes"] = static_cast<double>(dma_bytes);
  m["dma.descriptors"] = static_cast<double>(dma_desc);
  const auto& hs = p_->memory.hbm.stats();
  m["hbm.bytes"] = static_cast<double>(hs.bytes());
  m["hbm.requests"] = static_cast<double>(hs.requests());
  m["hbm.row_hit_rate"] = hs.row_hit_rate();
  m["hbm.latency_mean_cycles"] = hs.latency_cycles.mean();
  m["dataram_memory.bytes"] = static_cast<double>(p_->memory.dataram.stats().bytes());
  m["stack.high_water"] = p_->firmware.stack().high_water;
  m["stack.hbm_high_water"] = p_->firmware.stack().hbm_high_water;
  m["core.busy_ns"] = (cs.memory_time + cs.compute_time).to_seconds() * 1e9;
  m["core.idle_ns"] = cs.wait_time.to_seconds() * 1e9;
  m["steps"] = static_cast<double>(steps_done_);
  add_energy_metrics(energy_, m);
  for (HeapId id : kHeaps) {
    const std::string h = alloc::neuron::heap_name(id);
    auto it = heaps_.find(id);
    const HeapTrack t = it == heaps_.end() ? HeapTrack{} : it->second;
    m[h + ".peak_used"] = static_cast<double>(t.peak_used);
    m[h + ".descriptors_peak"] = static_cast<double>(t.peak_descriptors);
    m[h + ".exhaustion_events"] =
        static_cast<double>(p_->firmware.heaps().heap(id).descriptor_exhaustion_events());
    m[h + ".free_bytes"] = static_cast<double>(t.free_bytes);
    m[h + ".largest_free"] = static_cast<double>(t.largest_free);
    m[h + ".alloc_failures"] = static_cast<double>(t.alloc_failures);
    m[h + ".fragmentation"] = t.worst_fragmentation;
    m[h + ".unused_bytes"] = static_cast<double>(t.unused_fw);
  }
  if (binary()) binary_metrics(m);
  return m;
}


Json violation_json(const models::DmaFault& f) {
  Json j{{"kind", f.kind == models::DmaFault::kWindow ? "window" : "bus_error"},
         {"time_ns", f.time.to_seconds() * 1e9},
         {"channel", f.channel},
         {"descriptor", Json{{"src", f.desc.src}, {"dst", f.desc.dst}, {"len", f.desc.len}}},
         {"call_site", f.desc.call_site}};
  if (f.kind == models::DmaFault::kWindow) {
    j["rule"] = f.finding.rule;
    j["side"] = f.finding.side;
    j["bound"] = f.finding.bound;
    j["bound_value"] = f.finding.bound_value;
    j["range"] = Json::array({f.finding.addr, f.finding.end});
    j["assertion"] = f.finding.text;
    j["firmware_assertion_passes"] = f.finding.start_inside;
  } else {
    j["address"] = f.bus_addr;
  }
  j["message"] = f.message;
  return j;
}

Json NeuronSteps::report(int exit_code, const std::vector<Json>& expectations) const {
  const auto m = metrics();
  Json r = report_head(sc_.name, sc_.file, sc_.description, platform_name_,
                       run_settings(sc_.set, opt_));
  r["policies"] = Json{{"dma_window", sc_.dma_window_policy}, {"on_alloc_failure", sc_.alloc_failure_policy}};
  Json outcome{{"exit_code", exit_code},
               {"status", fault_ ? "fault" : exit_code == 0 ? "ok" : "expectations_failed"}};
  if (fault_)
    outcome["fault"] = Json{{"kind", fault_->kind}, {"message", fault_->message},
                            {"time_ns", static_cast<double>(fault_->time_ps) / 1e3}, {"step", fault_->where}};
  else
    outcome["fault"] = nullptr;
  outcome["expectations"] = expectations;
  r["outcome"] = outcome;
  r["duration_ns"] = m.at("duration");
  // The firmware's core first, then any other core of the platform.
  auto core_json = [](const models::Core& c, double busy_ns, double idle_ns) {
    const auto& cs = c.stats();
    return Json{{"name", c.basename()},
                {"busy_ns", busy_ns},
                {"idle_ns", idle_ns},
                {"memory_ns", cs.memory_time.to_seconds() * 1e9},
                {"compute_ns", cs.compute_time.to_seconds() * 1e9},
                {"compute_cycles", cs.compute_cycles},
                {"loads", cs.loads},
                {"stores", cs.stores},
                {"dmi_accesses", cs.dmi_accesses},
                {"bus_transactions", cs.bus_transactions}};
  };
  Json cores = Json::array({core_json(p_->core, m.at("core.busy_ns"), m.at("core.idle_ns"))});
  for (const models::Core* c : p_->cores()) {
    if (c == &p_->core) continue;
    const auto& cs = c->stats();
    cores.push_back(core_json(*c, (cs.memory_time + cs.compute_time).to_seconds() * 1e9, cs.wait_time.to_seconds() * 1e9));
  }
  r["cores"] = cores;
  Json heaps = Json::object();
  for (HeapId id : kHeaps) {
    const std::string h = alloc::neuron::heap_name(id);
    auto it = heaps_.find(id);
    if (it == heaps_.end() || !it->second.initialised) continue;
    const HeapTrack& t = it->second;
    heaps[h] = heap_json(t, static_cast<uint64_t>(m.at(h + ".exhaustion_events")));  // a count
  }
  r["heaps"] = heaps;
  r["memories"] = Json{{"dataram", memory_json(p_->memory.dataram.stats(), cfg_.memory.dataram.clock_ns)},
                       {"hbm", memory_json(p_->memory.hbm.stats(), cfg_.memory.hbm.tck_ns)}};
  Json chans = Json::array();
  const auto& st = p_->dma.channel_stats();
  for (size_t i = 0; i < st.size(); ++i) chans.push_back(channel_json(i, st[i]));
  r["dma"] = Json{{"channels", chans}};
  Json viol = Json::array();
  for (const auto& f : p_->dma.faults()) viol.push_back(violation_json(f));
  r["violations"] = viol;
  const auto& stk = p_->firmware.stack();
  r["stack"] = Json{{"hbm_stack", stk.hbm_stack},
                    {"hbm_stack_size", stk.hbm_stack_size},
                    {"switched", stk.switched},
                    {"high_water", stk.high_water},
                    {"hbm_high_water", stk.hbm_high_water}};
  Json marks = Json::array();
  // At most kReportMarkers in the report (each costs a few hundred bytes as JSON); the count
  // of the others says how many were left out.
  constexpr size_t kReportMarkers = 10000;
  for (size_t i = 0; i < markers_.size() && i < kReportMarkers; ++i)
    marks.push_back(Json{{"time_ns", static_cast<double>(markers_[i].first) / 1e3}, {"text", markers_[i].second->text}});
  r["markers"] = marks;
  if (markers_.size() > kReportMarkers) r["markers_omitted"] = markers_.size() - kReportMarkers;
  if (binary()) binary_report(r);
  r["energy"] = energy_json(energy_);
  r["layout_warnings"] = layout_warnings_;
  if (!warnings_.empty()) r["warnings"] = warnings_;  // only when there are any
  Json metrics_json = Json::object();
  for (const auto& [k, v] : m) metrics_json[k] = v;
  r["metrics"] = metrics_json;
  return r;
}

void NeuronSteps::summary(std::ostream& out, const Json& r, const std::vector<Json>& expectations,
                          int exit_code) const {
  const auto m = metrics();
  out << fmt::format("npusim run: {} on {}\n", sc_.name.empty() ? sc_.file : sc_.name, platform_name_);
  out << fmt::format("  simulated time   {}\n", human_ns(m.at("duration")));
  out << fmt::format("  {:<16} busy {} (memory {}, compute {}), idle {}\n", p_->core.basename(),
                     human_ns(m.at("core.busy_ns")), human_ns(r["cores"][0]["memory_ns"].get<double>()),
                     human_ns(r["cores"][0]["compute_ns"].get<double>()), human_ns(m.at("core.idle_ns")));
  for (const auto& [h, j] : r["heaps"].items()) {
    out << fmt::format("  heap {:<8}    peak {} of {}, {} allocs ({} failed), {} frees ({} bad), "
                       "descriptors peak {}/{}, exhaustion events {}, worst fragmentation {:.1f}%\n",
                       h, human_bytes(j["peak_used"].get<double>()), human_bytes(j["pool_size"].get<double>()),
                       j["allocations"].get<uint64_t>(), j["alloc_failures"].get<uint64_t>(),
                       j["frees"].get<uint64_t>(), j["free_errors"].get<uint64_t>(),
                       j["descriptors_peak"].get<uint64_t>(), j["descriptors"].get<uint64_t>(),
                       j["exhaustion_events"].get<uint64_t>(), 100.0 * j["worst_fragmentation"].get<double>());
  }
  for (const char* mem : {"dataram", "hbm"}) {
    const auto& j = r["memories"][mem];
    if (j["bytes"].get<uint64_t>() == 0) continue;
    std::string extra;
    if (std::string(mem) == "hbm")
      extra = fmt::format(", row hit rate {:.1f}%", 100.0 * j["row_hit_rate"].get<double>());
    const double dur = m.at("duration");
    out << fmt::format("  memory {:<8}  {} in {} requests ({:.2f} GB/s over the run), latency mean {} p99 {}{}\n", mem,
                       human_bytes(j["bytes"].get<double>()), j["reads"].get<uint64_t>() + j["writes"].get<uint64_t>(),
                       dur > 0 ? j["bytes"].get<double>() / dur : 0.0,
                       human_ns(j["latency_mean_ns"].get<double>()), human_ns(j["latency_p99_ns"].get<double>()), extra);
  }
  for (const auto& c : r["dma"]["channels"]) {
    if (c["descriptors"].get<uint64_t>() == 0) continue;
    out << fmt::format("  dma channel {}    {} descriptors, {}, {:.2f} GB/s while busy{}\n",
                       c["channel"].get<uint64_t>(), c["descriptors"].get<uint64_t>(),
                       human_bytes(c["bytes"].get<double>()), c["throughput_gbps"].get<double>(),
                       c["rejected"].get<uint64_t>() ? fmt::format(", {} rejected", c["rejected"].get<uint64_t>()) : "");
  }
  if (binary()) binary_summary(out);
  write_energy_summary(out, energy_);
  if (r["stack"]["hbm_stack"].get<uint64_t>() != 0)
    out << fmt::format("  hbm stack        {} at 0x{:x}, high-water {}\n",
                       human_bytes(r["stack"]["hbm_stack_size"].get<double>()),
                       r["stack"]["hbm_stack"].get<uint64_t>(), human_bytes(r["stack"]["hbm_high_water"].get<double>()));
  for (const auto& w : layout_warnings_) out << "  layout warning: " << w << "\n";
  for (const auto& w : warnings_) out << "  warning: " << w << "\n";
  for (const auto& v : p_->dma.faults()) out << "  " << v.message << "\n";
  if (fault_) out << fmt::format("  FAULT ({}) at {}: {}\n", fault_->kind, human_ns(static_cast<double>(fault_->time_ps) / 1e3), fault_->message);
  write_expectations_and_result(out, expectations, exit_code);
}

}  // namespace npusim::sim::neuron
