// The loader's inside, shared by the per-section files of the memory configuration
// (memory_config.cpp: YAML, overrides, the table, cross-section checks; memory_config_hbm.cpp:
// the hbm section; memory_config_sram.cpp: dataram and interconnect). Not part of the API:
// include models/memory_config.h.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "models/memory_config.h"

namespace npusim::models::config {

// The parsed layer: every `section.key` that the file or the overrides set, as text, with the
// place it came from. validate_all() consumes the entries it knows; what is left is unknown.
struct Parsed {
  std::string text;
  std::string file;
  int line;
};
using ParsedMap = std::map<std::string, Parsed>;

// Where each known key came from, for messages about values that are individually fine but
// inconsistent with each other.
struct Sources {
  const ParsedMap* parsed = nullptr;
  Parsed at(const std::string& key, const std::string& value) const {
    if (parsed) {
      auto it = parsed->find(key);
      if (it != parsed->end()) return it->second;
    }
    return Parsed{value, "<config>", 0};
  }
  [[noreturn]] void fail(const std::string& key, const std::string& value,
                         const std::string& why) const {
    Parsed p = at(key, value);
    throw ConfigError(p.file, p.line, key, p.text, why);
  }
};

inline bool is_pow2(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

// Decimal or 0x-hex, `_` as a digit separator; nullopt if it is not one or overflows.
std::optional<uint64_t> to_u64(const std::string& s);
// A finite number; nullopt otherwise.
std::optional<double> to_double(const std::string& s);

// A field of the table: converts one parsed text into the struct, or explains why not, and
// says what it accepts (for the JSON Schema, memory_config_keys()).
using Setter = std::function<std::optional<std::string>(const std::string&)>;
struct Field {
  Setter set;
  ConfigKey::Kind kind;
  uint64_t max = UINT64_MAX;
  std::vector<std::string> choices;
};
using FieldTable = std::map<std::string, Field>;

inline Field choice_field(ConfigKey::Kind kind, std::vector<std::string> choices, Setter set) {
  return Field{std::move(set), kind, UINT64_MAX, std::move(choices)};
}

template <class T>
Field uint_field(T& dst, uint64_t max = UINT64_MAX) {
  return Field{[&dst, max](const std::string& t) -> std::optional<std::string> {
    auto v = to_u64(t);
    if (!v) return std::string("not a decimal or 0x-hex unsigned integer");
    if (*v > max) return fmt::format("out of range (max {})", max);
    dst = static_cast<T>(*v);
    return std::nullopt;
  }, ConfigKey::kUint, max, {}};
}

Field double_field(double& dst);

constexpr uint64_t kMaxTiming = 1'000'000;  // cycles; anything larger is a typo

void check_timing(const Sources& s, const std::string& key, uint64_t v, uint64_t min);
void check_clock(const Sources& s, const std::string& key, double ns);

// Each section's keys into the table, bound to its struct, and its checks.
void add_hbm_fields(HbmConfig& h, FieldTable& t);
void validate_hbm(const HbmConfig& c, const Sources& s);
void add_sram_fields(SramConfig& d, FieldTable& t);
void validate_sram(const SramConfig& c, const std::string& sec, const Sources& s);
void add_interconnect_fields(InterconnectConfig& b, FieldTable& t);
void validate_bus(const InterconnectConfig& c, const Sources& s);

}  // namespace npusim::models::config
