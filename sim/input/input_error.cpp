#include "sim/input/input_error.h"

#include <fmt/format.h>

namespace npusim::sim {

InputError::InputError(const std::string& file, int line, const std::string& token,
                       const std::string& why, int column)
    : std::runtime_error(
          column > 0 ? fmt::format("{}:{}:{}: {} (at '{}')", file, line, column, why, token)
          : line > 0 ? fmt::format("{}:{}: {} (at '{}')", file, line, why, token)
                     : fmt::format("{}: {} (at '{}')", file, why, token)),
      file_(file),
      line_(line),
      column_(column),
      token_(token) {}

std::optional<uint64_t> parse_number(const std::string& t) {
  if (t.empty()) return std::nullopt;
  size_t i = 0;
  int base = 10;
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
    base = 16;
    i = 2;
  }
  uint64_t v = 0;
  for (; i < t.size(); ++i) {
    const char c = t[i];
    uint64_t d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (base == 16 && c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (base == 16 && c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else return std::nullopt;
    if (v > (UINT64_MAX - d) / base) return std::nullopt;  // overflow
    v = v * base + d;
  }
  return v;
}

}  // namespace npusim::sim
