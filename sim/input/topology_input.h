// A profile's `topology:` section (docs/platforms.md, "Add a platform in one file"): the
// components, bindings and address maps the generic builder of platforms/platform.h wires.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include <yaml-cpp/yaml.h>

#include "platforms/topology.h"

namespace npusim::sim {

// Numbers (count, base, size, stride, target_offset) are integers (decimal, 0x-hex,
// KiB/MiB/GiB) or the name of a profile key (`cluster.clusters`), looked up with `value_of`.
// Throws InputError naming the file, line and value.
platforms::Topology parse_topology(const YAML::Node& node, const std::string& file,
                                   const std::function<std::optional<uint64_t>(const std::string&)>& value_of);

}  // namespace npusim::sim
