// Where the running npusim program is: an installed npusim finds share/npusim and lib/npusim
// beside it (npusim cc's runtimes, npusim op build's kernel-cost pass).
#pragma once

#include <string>

namespace npusim::sim {

// The folder of the running npusim program, or "" when /proc/self/exe cannot be read.
std::string executable_dir();

}  // namespace npusim::sim
