#include "models/dma_window.h"

#include <fmt/format.h>

namespace npusim::models {

std::string WindowRule::text() const {
  return fmt::format("{0} >= 0x{1:x} && {0} < 0x{2:x}", operand, lo, hi);
}

std::string WindowFinding::describe() const {
  return fmt::format(
      "{} [0x{:x}, 0x{:x}) violates {} ({}): {} bound 0x{:x}{}", side, addr, end, rule, text,
      bound, bound_value,
      start_inside ? "; the start passes the firmware's start-only assertion, the end does not"
                   : "");
}

std::vector<WindowFinding> check_windows(const std::vector<WindowRule>& rules,
                                         const DmaTransfer& t) {
  std::vector<WindowFinding> out;
  for (const auto& r : rules) {
    for (int s = 0; s < 2; ++s) {
      const uint64_t a = s == 0 ? t.src : t.dst;
      if (a < r.scope_lo || a >= r.scope_hi) continue;
      // End of the range, saturating: a length that wraps the address space is outside.
      const uint64_t end = a + t.len < a ? UINT64_MAX : a + t.len;
      const bool start_inside = a >= r.lo && a < r.hi;
      // Every descriptor passes through here: the record (and its formatted text) is only
      // built for a violation.
      if (start_inside && end <= r.hi) continue;
      const bool lower = a < r.lo;
      out.push_back(WindowFinding{r.name, s == 0 ? "src" : "dst", lower ? "lower" : "upper",
                                  lower ? r.lo : r.hi, a, end, start_inside, r.text()});
    }
  }
  return out;
}

}  // namespace npusim::models
