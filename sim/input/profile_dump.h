// `npusim run --dump-config`: the effective platform profile of a run (the profile with the
// scenario's `set:` and the command line's `--set` applied, in that order) as YAML that
// `--platform FILE` accepts back.
#pragma once

#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "sim/input/platform_config.h"

namespace npusim::sim {

// The profile `name_or_path` (built-in name or file) flattened to section.key settings
// (windows.N.key for list entries), in file order; a snitch-cluster profile file is laid over
// the built-in one, as its loader does. Throws InputError if it cannot be read.
std::vector<Setting> profile_settings(const std::string& name_or_path);
// `base` with `overrides` applied in order: a key already there keeps its place and takes the
// new value, a new key is appended.
std::vector<Setting> apply_settings(std::vector<Setting> base, const std::vector<Setting>& overrides);
// The settings as a nested YAML profile: `platform:` first, then each section in order of
// first appearance; windows.N.key as a list of maps.
// `topology`, if given, is written as the profile's topology: section.
std::string profile_yaml(const std::vector<Setting>& settings, const std::string& header_comment,
                         const YAML::Node& topology = YAML::Node());
// The topology: section of a profile (or of the profile it extends); a null node if none.
YAML::Node profile_topology(const std::string& name_or_path);

}  // namespace npusim::sim
