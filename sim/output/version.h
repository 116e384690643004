// The npusim version: CMake's project version and, for a build from a git checkout, `git
// describe` (sim/version.cmake writes both at build time).
#pragma once

#include <string>

namespace npusim::sim {

const char* npusim_version();       // "0.1.0"
const char* npusim_git_describe();  // "<short hash>-dirty", or "" outside a git checkout
// "0.1.0 (git <short hash>-dirty)" or "0.1.0".
std::string version_string();

}  // namespace npusim::sim
