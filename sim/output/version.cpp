#include "sim/output/version.h"

namespace npusim::sim {

std::string version_string() {
  const std::string git = npusim_git_describe();
  return git.empty() ? npusim_version() : std::string(npusim_version()) + " (git " + git + ")";
}

}  // namespace npusim::sim
