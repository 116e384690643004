// snitch-cluster profiles: the built-in sim/platforms/snitch-cluster.yaml or a (partial)
// profile file over it, with `set:` and `--set` overrides, validated into the configuration
// of platforms/snitch_cluster.h (docs/snitch-cluster.md documents every key).
#pragma once

#include <string>
#include <vector>

#include "platforms/snitch_cluster.h"
#include "sim/input/platform_config.h"

namespace npusim::sim {

using platforms::SnitchPlatformConfig;
using platforms::SnitchSystem;

// True if `name_or_path` is the built-in snitch-cluster profile or a profile file whose
// top-level `platform:` is snitch-cluster.
bool is_snitch_platform(const std::string& name_or_path);

// Loads the profile (built-in name or file), applies the overrides in order and validates.
// Throws InputError naming the file, line, key and value.
SnitchPlatformConfig load_snitch_platform(const std::string& name_or_path,
                                          const std::vector<Setting>& overrides);

}  // namespace npusim::sim
