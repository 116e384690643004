// Metrics, JSON report, summary, Chrome trace and VCD of the Snitch-programs workload.
#include <algorithm>
#include <ostream>

#include "sim/run/energy_report.h"
#include "sim/run/snitch_programs.h"

namespace npusim::sim::snitch {

std::map<std::string, double> SnitchPrograms::metrics() const {
  std::map<std::string, double> m;
  uint64_t end = 0, core_accesses = 0, stopped = 0, hung = 0, finished = 0, faulted = 0;
  for (const auto& x : ctx_) {
    end = std::max(end, x->end_ps);
    const auto& st = x->core->stats();
    core_accesses += st.loads + st.stores + st.block_reads + st.block_writes;
    if (x->hart) core_accesses += x->hart->hart->stats().loads + x->hart->hart->stats().stores;
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
  if (binaries()) binary_metrics(m);
  add_energy_metrics(energy_, m);
  return m;
}


const char* status_name(Ctx::Status s) {
  switch (s) {
    case Ctx::kFinished: return "finished";
    case Ctx::kStopped: return "stopped by trap";
    case Ctx::kFault: return "fault";
    case Ctx::kInterrupted: return "interrupted";
    case Ctx::kIdle: return "idle";
    default: return "hung";
  }
}

Json SnitchPrograms::report(int exit_code, const std::vector<Json>& expectations) const {
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
    if (x->status == Ctx::kPending) {
      j["end_ns"] = nullptr;  // it never finished: no end time
      j["blocked_at"] = x->current ? x->current->at.str() : "";
    }
    if (x->status == Ctx::kInterrupted) j["stopped_at"] = x->current ? x->current->at.str() : "";
    cores.push_back(j);
  }
  r["cores"] = cores;
  if (binaries()) binary_report(r);
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
  r["energy"] = energy_json(energy_);
  Json mj = Json::object();
  for (const auto& [k, v] : m) mj[k] = v;
  r["metrics"] = mj;
  return r;
}

void SnitchPrograms::summary(std::ostream& out, const Json& r, const std::vector<Json>&, int) const {
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
    if (!binaries())  // program cores have their own lines (binary_summary)
    out << fmt::format("  {:<16} {:<15} {}, {} loads, {} stores, {} tcdm conflicts, idle {}\n",
                       c["name"].get<std::string>(), c["status"].get<std::string>(),
                       c["end_ns"].is_null() ? fmt::format("{:<16}", "did not finish")
                                             : fmt::format("end {:>12}", human_ns(c["end_ns"].get<double>())),
                       c["loads"].get<uint64_t>(), c["stores"].get<uint64_t>(), c["tcdm_conflicts"].get<uint64_t>(),
                       human_ns(c["idle_ns"].get<double>()));
  if (binaries()) binary_summary(out, r);
  write_energy_summary(out, energy_);
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
  write_expectations_and_result(out, r["outcome"]["expectations"].get<std::vector<Json>>(), r["outcome"]["exit_code"].get<int>());
}

void SnitchPrograms::write_trace(uint64_t end_ps) {
  if (!trace_) return;
  if (binaries()) binary_trace();
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
  if (opt_.trace_outcome)
    *opt_.trace_outcome = {trace_->truncated(), trace_->dropped_by_limit(), trace_->dropped_by_filter(), trace_->unmatched_filters()};
  try {
    trace_->close();
  } catch (const InputError& e) {  // a write error: the run's other outputs go on
    opt_.output_errors->push_back(e.what());
  }
}

void SnitchPrograms::write_vcd(uint64_t end_ps) {
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
  try {
    vcd_->close(std::max(end_ps, changes_.empty() ? 0 : changes_.back().t));
  } catch (const InputError& e) {
    opt_.output_errors->push_back(e.what());
  }
}

}  // namespace npusim::sim::snitch
