// The keys every input file accepts, as data: which keys a map takes, which are required, what
// kind of value each holds and in what range. The scenario parsers (scenario.cpp,
// snitch_scenario.cpp) and the profile loaders check their input against these tables, and
// `npusim schema` (schema.cpp) turns the same tables into the JSON Schemas of docs/schema/, so
// the parsers and the schemas cannot drift apart.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/input/yaml_input.h"

namespace npusim::sim {

// What a value is, as the parser reads it and the schema states it.
enum class ValueKind {
  kText,        // any single value
  kName,        // a Neuron binding: a letter or _, then letters, digits, _ and .
  kIdent,       // a Snitch variable: a letter or _, then letters, digits and _
  kSize,        // decimal, 0x-hex, optional B/KiB/MiB/GiB (K/M/G); in [lo, hi]
  kBool,        // true/false, yes/no, on/off
  kChoice,      // one of `choices`
  kChoiceList,  // a comma-separated list of `choices` (hbm.address_mapping)
  kNumber,      // a real number; above 0 when `positive`, at most `max` when max > 0
  kDuration,    // 500ns, 2us, 1ms (a bare number is ns)
  kAddr,        // a Neuron address: a number, or NAME with an optional +offset
  kExpr,        // a Snitch integer expression, or a number
  kCondition,   // an expectation: "<= 8KiB", "== 0", "< 2ms", true
  kSteps,       // a list of steps of the file's own dialect
  kMap,         // a map with the keys of `map`
  kValueMap,    // a map of any key to values of kind `element` (set:, args:, let:, expect:)
};

struct MapSpec;

struct ValueSpec {
  ValueKind kind = ValueKind::kText;
  uint64_t lo = 0, hi = UINT64_MAX;  // kSize
  const char* range_why = nullptr;   // kSize: the message when outside [lo, hi]
  bool positive = false;             // kNumber
  bool non_negative = false;         // kNumber: at least 0
  double max = 0;                    // kNumber: 0 = no maximum
  std::vector<std::string> choices;  // kChoice, kChoiceList
  const MapSpec* map = nullptr;      // kMap
  ValueKind element = ValueKind::kText;  // kValueMap
  bool profile_keys = false;         // kValueMap: the keys are the platform profile's (set:)
  const char* key_pattern = nullptr;  // kValueMap: a regular expression every key matches
  // How many: one value, or a list of them (min_items..max_items, 0 = no bound).
  enum Many { kOne, kList } many = kOne;
  size_t min_items = 0, max_items = 0;
};

// One key of a map, or one step of a program (a step is a one-key map, or a bare name).
struct KeySpec {
  std::string name;
  std::vector<ValueSpec> forms;  // the value is one of these; none: no value (bare step)
  bool required = false;
  bool bare = false;  // a step that may be written as its bare name
  std::string doc;
};

struct MapSpec {
  std::string what;  // for messages: "alloc", "the scenario"
  std::vector<KeySpec> keys;
  // The key named `name`; a std::logic_error if the table has none (a parser bug).
  const KeySpec& key(const std::string& name) const;
  // The first form of key `name` (std::logic_error if absent).
  const ValueSpec& value(const std::string& name) const { return key(name).forms.at(0); }
  // "a, b, c": the names, for messages.
  std::string names() const;
};

// A scenario dialect: the root map and the steps.
struct Dialect {
  std::string platform;  // "neuron-gpsimd", "snitch-cluster"
  const MapSpec* root;
  const MapSpec* steps;  // each key is a step
};

const Dialect& neuron_dialect();
const Dialect& snitch_dialect();
// A profile's `topology:` section (sim/input/topology_input.cpp). Assumption: only the schema
// reads this table so far; the topology parser keeps its own key lists.
const MapSpec& topology_spec();

// Fails (InputError through `in`) unless `m` is a map whose keys are all in `spec` and has
// every required one. The message lists the keys `spec` accepts.
// `what` names the map in messages (default: spec.what).
void check_keys(const YamlInput& in, const YAML::Node& m, const MapSpec& spec,
                const char* what = nullptr);
// Fails unless `n` is one of `v.choices`; returns the text.
std::string check_choice(const YamlInput& in, const YAML::Node& n, const ValueSpec& v,
                         const char* what);
// Fails unless `value` lies in [v.lo, v.hi] (message v.range_why).
void check_range(const YamlInput& in, const YAML::Node& n, const ValueSpec& v, uint64_t value);

// --- profile tables: one entry per `section.key`, with the setter that stores the value ---

using Setter = std::function<std::optional<std::string>(const std::string&)>;

struct Field {
  ValueSpec value;
  Setter set;
};

// A profile key as the schema sees it (no setter).
struct ProfileKey {
  std::string key;  // "section.key"
  ValueSpec value;
};

Field size_field(uint64_t lo, uint64_t hi, std::function<void(uint64_t)> store);
template <class T>
Field uint_field(T& dst, uint64_t lo = 0, uint64_t hi = UINT64_MAX) {
  return size_field(lo, hi, [&dst](uint64_t v) { dst = static_cast<T>(v); });
}
// A positive finite real number, at least `min` and at most `max` (0: no bound besides
// finiteness); `why` replaces the default message.
Field number_field(double& dst, double max = 0, const char* why = nullptr, double min = 0);
// An energy figure (pJ): a number in [0, 1e9].
Field energy_field(double& dst);
Field bool_field(bool& dst);
template <class T>
Field choice_field(T& dst, std::vector<std::pair<std::string, T>> choices, const char* why) {
  Field f;
  f.value.kind = ValueKind::kChoice;
  for (const auto& c : choices) f.value.choices.push_back(c.first);
  f.set = [&dst, choices, why](const std::string& v) -> std::optional<std::string> {
    for (const auto& [text, val] : choices)
      if (text == v) {
        dst = val;
        return std::nullopt;
      }
    return std::string(why);
  };
  return f;
}

}  // namespace npusim::sim
