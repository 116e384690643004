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
