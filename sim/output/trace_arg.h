// One argument of a trace event, written straight into the file without building a JSON
// object: the observers' hot path (a DMA transfer, a firmware call, a marker).
#pragma once

#include <cstdint>
#include <string_view>

namespace npusim::sim {

// `key` must be a JSON-safe literal (letters, digits, _); text values are escaped. A list of
// them is written in the order given: give it in key order to match nlohmann::json's output.
struct TraceArg {
  enum Kind : uint8_t { kUint, kInt, kHex, kText } kind;
  const char* key;
  uint64_t u = 0;
  int64_t i = 0;
  std::string_view text;

  static TraceArg uint(const char* k, uint64_t v) { return {kUint, k, v, 0, {}}; }
  static TraceArg integer(const char* k, int64_t v) { return {kInt, k, 0, v, {}}; }
  static TraceArg hex(const char* k, uint64_t v) { return {kHex, k, v, 0, {}}; }  // "0x1f"
  static TraceArg str(const char* k, std::string_view v) { return {kText, k, 0, 0, v}; }
};

}  // namespace npusim::sim
