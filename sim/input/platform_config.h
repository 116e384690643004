// Platform profiles as data: a YAML description of memories, address map, core, DMA engine,
// window rules, heap layout and firmware settings (docs/platforms.md). Every value can be
// overridden from the scenario (`set:`) or the command line (`--set key=value`); unknown keys
// are errors naming the key, the file and the line.
#pragma once

#include <string>
#include <tuple>
#include <vector>

#include "firmware/neuron_platform.h"
#include "models/memory_config.h"
#include "sim/input/key_tables.h"
#include "sim/input/scenario.h"

namespace npusim::sim {

// `key=value` with where it came from.
struct Setting {
  std::string key, value;
  Where at;
};

// The built-in profiles by name (neuron-gpsimd), or empty.
std::string builtin_profile(const std::string& name);
std::vector<std::string> builtin_profile_names();
// The reason of a models::ConfigError without its "source:line: key = 'value': " prefix, for a
// message that names the place and the value itself.
std::string config_reason(const std::runtime_error& e, const std::string& key,
                          const std::string& value);

// Loads profile `name_or_path` (a built-in name or a YAML file), applies the overrides in
// order (scenario `set:` first, then the command line), validates everything. Throws
// InputError naming the file, line and key.
fw::NeuronPlatformConfig load_platform(const std::string& name_or_path,
                                       const std::vector<Setting>& overrides);

// Every key a neuron-gpsimd profile accepts, from the tables load_platform reads (windows.#.KEY
// for the fields of each window rule).
std::vector<ProfileKey> neuron_profile_keys();
// A memory-section key (models/memory_config.h) as a profile key.
ValueSpec from_memory_key(const models::ConfigKey& m);

}  // namespace npusim::sim
