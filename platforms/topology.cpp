#include "platforms/topology.h"

namespace npusim::platforms {

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::kCore: return "core";
    case Kind::kSram: return "sram";
    case Kind::kHbm: return "hbm";
    case Kind::kTcdm: return "tcdm";
    case Kind::kDma: return "dma";
    case Kind::kInterconnect: return "interconnect";
  }
  return "?";
}

std::optional<Kind> parse_kind(const std::string& s) {
  for (Kind k : {Kind::kCore, Kind::kSram, Kind::kHbm, Kind::kTcdm, Kind::kDma, Kind::kInterconnect})
    if (s == kind_name(k)) return k;
  return std::nullopt;
}

Topology select_part(const Topology& t, const std::string& part) {
  bool parts = false;
  for (const auto& c : t.components) parts = parts || !c.part.empty();
  if (!parts) return t;
  // Bindings and regions of a description with parts name components by their patterns.
  Topology out;
  out.name = t.name;
  std::vector<std::string> kept;  // name patterns of the kept components
  for (const auto& c : t.components)
    if (c.part.empty() || c.part == part) {
      out.components.push_back(c);
      kept.push_back(c.name);
    }
  auto has = [&kept](const std::string& name) {
    for (const auto& k : kept)
      if (k == name) return true;
    return false;
  };
  for (const auto& g : t.groups)
    for (const auto& c : out.components)
      if (c.group == g.name) {
        out.groups.push_back(g);
        break;
      }
  for (const auto& b : t.bindings)
    if (has(b.from) && has(b.to)) out.bindings.push_back(b);
  for (const auto& r : t.regions)
    if (has(r.on) && has(r.to)) out.regions.push_back(r);
  return out;
}

std::string instance_name(const std::string& pattern, uint32_t g, uint32_t i) {
  std::string out;
  out.reserve(pattern.size());
  for (size_t k = 0; k < pattern.size(); ++k) {
    if (pattern[k] == '{' && k + 2 < pattern.size() && pattern[k + 2] == '}' &&
        (pattern[k + 1] == 'g' || pattern[k + 1] == 'i')) {
      out += std::to_string(pattern[k + 1] == 'g' ? g : i);
      k += 2;
    } else {
      out += pattern[k];
    }
  }
  return out;
}

}  // namespace npusim::platforms
