#include "sim/run/energy_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace npusim::sim {

namespace {

using Json = nlohmann::ordered_json;
const char* const kKinds[] = {"hbm", "sram", "tcdm", "dma", "interconnect", "core"};

std::map<std::string, double> by_kind(const platforms::PlatformEnergy& e) {
  std::map<std::string, double> k;
  for (const char* name : kKinds) k[name] = 0;
  for (const auto& c : e.components) k[c.kind] += c.pj;
  return k;
}

// pJ as the summary shows it: nJ, uJ or mJ.
std::string energy_text(double pj) {
  if (pj >= 1e9) return fmt::format("{:.3f} mJ", pj / 1e9);
  if (pj >= 1e6) return fmt::format("{:.3f} uJ", pj / 1e6);
  return fmt::format("{:.3f} nJ", pj / 1e3);
}

std::string power_text(double mw) {
  return mw >= 1e3 ? fmt::format("{:.3f} W", mw / 1e3) : fmt::format("{:.1f} mW", mw);
}

}  // namespace

Json energy_json(const platforms::PlatformEnergy& e) {
  Json j;
  j["total_pj"] = e.total_pj;
  j["average_power_mw"] = e.average_mw();
  j["duration_ns"] = e.end_ns;
  Json kinds = Json::object();
  for (const auto& [k, v] : by_kind(e)) kinds[k] = v;
  j["by_kind"] = kinds;
  Json comps = Json::array();
  for (const auto& c : e.components) {
    Json parts = Json::object();
    for (const auto& p : c.parts) parts[p.name] = p.pj;
    Json cj{{"name", c.name}, {"kind", c.kind}, {"total_pj", c.pj},
            {"average_power_mw", c.average_mw}, {"parts", parts}};
    if (!c.power_mw.empty()) cj["power_mw"] = Json{{"window_ns", c.window_ns}, {"values", c.power_mw}};
    comps.push_back(cj);
  }
  j["components"] = comps;
  return j;
}

void add_energy_metrics(const platforms::PlatformEnergy& e, std::map<std::string, double>& m) {
  m["energy.total_pj"] = e.total_pj;
  m["energy.average_power_mw"] = e.average_mw();
  for (const auto& [k, v] : by_kind(e)) m["energy." + k + "_pj"] = v;
}

const std::set<std::string>& energy_metric_keys() {
  static const std::set<std::string> keys = [] {
    std::set<std::string> s = {"energy.total_pj", "energy.average_power_mw"};
    for (const char* k : kKinds) s.insert(std::string("energy.") + k + "_pj");
    return s;
  }();
  return keys;
}

void write_energy_summary(std::ostream& out, const platforms::PlatformEnergy& e) {
  std::vector<std::pair<double, std::string>> kinds;
  for (const auto& [k, v] : by_kind(e))
    if (v > 0) kinds.emplace_back(v, k);
  std::sort(kinds.begin(), kinds.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string parts;
  for (const auto& [v, k] : kinds) parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ", k, energy_text(v));
  out << fmt::format("  energy           {}, {} average{}{}\n", energy_text(e.total_pj),
                     power_text(e.average_mw()), parts.empty() ? "" : ": ", parts);
}

}  // namespace npusim::sim
