// `npusim run` for snitch-cluster scenarios: builds the clusters, runs every core's program
// as its own SystemC thread (alloc_v2 on the core, TCDM through the bank model, the DM core's
// DMA, barriers), reports traps, checks the expectations, writes summary, report and trace.
#pragma once

#include <iosfwd>
#include <string>

#include "sim/run/scenario_runner.h"
#include "sim/input/snitch_scenario.h"

namespace npusim::sim::snitch {

// Whether `npusim run` should run `path` as a snitch-cluster scenario: the --platform override
// (if any), else the scenario's `platform:`, names the snitch-cluster profile.
bool is_snitch_scenario(const std::string& path, const std::string& platform_override);

// One run per process (SystemC elaborates once). Throws InputError for bad input found
// before the simulation; traps and faults during the run are part of the result.
RunResult run(const Scenario& sc, const RunOptions& opt, std::ostream& out);

}  // namespace npusim::sim::snitch
