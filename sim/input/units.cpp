// The value syntax every input file shares (scenario.h): a place as file:line:col, a size
// (decimal or 0x-hex, K/M/G or KiB/MiB/GiB), a duration (ps, ns, us, ms, s).
#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <utility>

#include "sim/input/input_error.h"  // parse_number
#include "sim/input/scenario.h"

namespace npusim::sim {

std::string Where::str() const { return fmt::format("{}:{}:{}", file, line, column); }

std::optional<uint64_t> parse_size(const std::string& text) {
  std::string t = text;
  while (!t.empty() && t.back() == ' ') t.pop_back();
  uint64_t mult = 1;
  static const std::pair<const char*, uint64_t> suffixes[] = {
      {"KiB", 1ull << 10}, {"MiB", 1ull << 20}, {"GiB", 1ull << 30}, {"K", 1ull << 10},
      {"M", 1ull << 20},   {"G", 1ull << 30},   {"B", 1}};
  const bool hex = t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X');
  if (!hex) {
    for (const auto& [suf, m] : suffixes) {
      const size_t n = std::char_traits<char>::length(suf);
      if (t.size() > n && t.compare(t.size() - n, n, suf) == 0) {
        t.erase(t.size() - n);
        while (!t.empty() && t.back() == ' ') t.pop_back();
        mult = m;
        break;
      }
    }
  }
  auto v = parse_number(t);
  if (!v || (mult > 1 && *v > UINT64_MAX / mult)) return std::nullopt;
  return *v * mult;
}

std::optional<double> parse_duration_ns(const std::string& text) {
  static const std::pair<const char*, double> units[] = {
      {"ps", 1e-3}, {"ns", 1.0}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
  std::string t = text;
  double mult = 1.0;
  for (const auto& [u, m] : units) {
    const size_t n = std::char_traits<char>::length(u);
    if (t.size() > n && t.compare(t.size() - n, n, u) == 0) {
      t.erase(t.size() - n);
      mult = m;
      break;
    }
  }
  while (!t.empty() && t.back() == ' ') t.pop_back();
  if (t.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size() || !std::isfinite(v) || v < 0) return std::nullopt;
  return v * mult;
}

}  // namespace npusim::sim
