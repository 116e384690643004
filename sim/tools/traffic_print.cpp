// `npusim traffic`'s output: the text summary and the JSON object (sim/tools/traffic.h).
#include <ostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/output/json_text.h"
#include "sim/tools/traffic.h"

namespace npusim::sim {

namespace {

// "channel 3", or "channel 3.1" (pseudo-channel 1 of channel 3).
std::string unit_name(size_t i, uint32_t pseudo) {
  return pseudo > 1 ? fmt::format("channel {}.{}", i / pseudo, i % pseudo)
                    : fmt::format("channel {}", i);
}

nlohmann::json energy_json(const models::HbmEnergy& e) {
  return nlohmann::json{{"act", e.act},
                        {"read", e.read},
                        {"write", e.write},
                        {"refresh", e.refresh},
                        {"act_standby", e.act_standby},
                        {"pre_standby", e.pre_standby},
                        {"total", e.total()},
                        {"average_power_mw", e.average_power_mw()},
                        // what the components are computed from (docs/energy.md)
                        {"commands", nlohmann::json{{"act", e.acts},
                                                    {"read", e.reads},
                                                    {"write", e.writes},
                                                    {"refresh", e.refreshes}}},
                        {"cycles", e.cycles},
                        {"open_cycles", e.open_cycles}};
}

}  // namespace

void print_text(const TrafficResult& r, std::ostream& out) {
  const double c = r.clock_ns;
  out << fmt::format("npusim traffic: {} pattern {}: {} requests, {} bytes, {} outstanding\n",
                     r.memory, r.pattern, r.requests, r.bytes, r.outstanding);
  out << fmt::format("  bandwidth     {:.2f} GB/s ({:.0f} ns)\n", r.bandwidth_gbps, r.elapsed_ns);
  out << fmt::format("  latency       mean {:.1f}  p50 {}  p99 {}  max {} cycles (min {})\n",
                     r.latency_mean_cycles, r.latency_p50_cycles, r.latency_p99_cycles,
                     r.latency_max_cycles, r.latency_min_cycles);
  out << fmt::format("                mean {:.1f}  p50 {:.1f}  p99 {:.1f}  max {:.1f} ns\n",
                     r.latency_mean_cycles * c, static_cast<double>(r.latency_p50_cycles) * c,
                     static_cast<double>(r.latency_p99_cycles) * c,
                     static_cast<double>(r.latency_max_cycles) * c);
  if (r.reads)
    out << fmt::format("  reads         {} of {}: latency mean {:.1f}  p50 {}  p99 {} cycles\n",
                       *r.reads, r.requests, r.read_latency_mean_cycles,
                       r.read_latency_p50_cycles, r.read_latency_p99_cycles);
  if (r.row_hit_rate)
    out << fmt::format("  row hit rate  {:.2f} % ({} hits, {} misses, {} conflicts; {} refreshes)\n",
                       *r.row_hit_rate * 100.0, r.row_hits, r.row_misses, r.row_conflicts,
                       r.refreshes);
  else
    out << fmt::format("  bank conflicts {}\n", r.bank_conflicts);
  if (r.energy) {
    const auto& e = *r.energy;
    out << fmt::format("  energy        {:.3f} uJ, {:.1f} mW: ACT {:.3f}, read {:.3f}, write {:.3f}, "
                       "refresh {:.3f}, standby open {:.3f} / closed {:.3f} uJ\n",
                       e.total() / 1e6, e.average_power_mw(), e.act / 1e6, e.read / 1e6,
                       e.write / 1e6, e.refresh / 1e6, e.act_standby / 1e6, e.pre_standby / 1e6);
    for (size_t i = 0; i < r.unit_energy.size(); ++i) {
      const auto& u = r.unit_energy[i];
      out << fmt::format("    {:<12}{:.3f} uJ, {:.1f} mW\n", unit_name(i, r.pseudo_channels),
                         u.total() / 1e6, u.average_power_mw());
    }
  }
  if (!r.interrupted.empty())
    out << fmt::format("  interrupted by {} after {} of {} requests: the figures above are partial\n",
                       r.interrupted, r.requests, r.planned);
}

void print_json(const TrafficResult& r, std::ostream& out) {
  nlohmann::json j;
  j["memory"] = r.memory;
  j["pattern"] = r.pattern;
  j["requests"] = r.requests;
  j["bytes"] = r.bytes;
  j["outstanding"] = r.outstanding;
  j["elapsed_ns"] = r.elapsed_ns;
  j["clock_ns"] = r.clock_ns;
  j["bandwidth_gbps"] = r.bandwidth_gbps;
  j["latency_mean_cycles"] = r.latency_mean_cycles;
  j["latency_p50_cycles"] = r.latency_p50_cycles;
  j["latency_p99_cycles"] = r.latency_p99_cycles;
  j["latency_max_cycles"] = r.latency_max_cycles;
  j["latency_mean_ns"] = r.latency_mean_cycles * r.clock_ns;
  j["latency_p50_ns"] = static_cast<double>(r.latency_p50_cycles) * r.clock_ns;
  j["latency_p99_ns"] = static_cast<double>(r.latency_p99_cycles) * r.clock_ns;
  j["latency_max_ns"] = static_cast<double>(r.latency_max_cycles) * r.clock_ns;
  if (r.reads) {  // a pattern with writes: the reads' own latency
    j["reads"] = *r.reads;
    j["read_latency_mean_cycles"] = r.read_latency_mean_cycles;
    j["read_latency_p50_cycles"] = r.read_latency_p50_cycles;
    j["read_latency_p99_cycles"] = r.read_latency_p99_cycles;
  }
  j["row_hit_rate"] = r.row_hit_rate ? nlohmann::json(*r.row_hit_rate) : nlohmann::json(nullptr);
  j["row_hits"] = r.row_hits;
  j["row_misses"] = r.row_misses;
  j["row_conflicts"] = r.row_conflicts;
  j["refreshes"] = r.refreshes;
  j["bank_conflicts"] = r.bank_conflicts;
  if (r.energy) {  // pJ; average_power_mw over the run
    nlohmann::json e = energy_json(*r.energy);
    if (!r.unit_energy.empty()) {
      nlohmann::json units = nlohmann::json::array();
      for (size_t i = 0; i < r.unit_energy.size(); ++i) {
        nlohmann::json u = energy_json(r.unit_energy[i]);
        u["channel"] = i / r.pseudo_channels;
        if (r.pseudo_channels > 1) u["pseudo_channel"] = i % r.pseudo_channels;
        units.push_back(u);
      }
      e["channels"] = units;
    }
    j["energy"] = e;
  }
  if (!r.interrupted.empty()) {  // SIGINT/SIGTERM: `requests` is what completed of `requests_planned`
    j["interrupted"] = r.interrupted;
    j["requests_planned"] = r.planned;
  }
  out << json_text(j) << '\n';
}

}  // namespace npusim::sim
