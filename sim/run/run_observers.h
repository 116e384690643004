// The observers a run writes its traces with (Chrome trace JSON, VCD), from RunOptions.
#pragma once

#include <memory>
#include <vector>

#include "sim/run/scenario_runner.h"

namespace npusim::sim {

// One observer per requested output. Opening a file that cannot be written throws
// std::runtime_error naming it.
std::vector<std::unique_ptr<RunObserver>> make_observers(const RunOptions& opt);

}  // namespace npusim::sim
