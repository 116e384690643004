// Shared by the libFuzzer targets: the input as text, and the rule every target checks: a
// parser either accepts its input or rejects it with its own error type; anything else that
// escapes (another exception, a crash, a sanitizer report, a hang) is a finding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace npusim::fuzz {

inline std::string text(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

}  // namespace npusim::fuzz
