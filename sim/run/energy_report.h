// The energy of a run in `npusim run`'s outputs (docs/energy.md): the report's `energy`
// object, the metrics (`energy.*`, so sweeps collect them and expectations can test them) and
// the summary line. The figures come from platforms/energy.h.
#pragma once

#include <map>
#include <ostream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "platforms/energy.h"

namespace npusim::sim {

// {total_pj, average_power_mw, duration_ns, by_kind: {hbm, sram, ...}, components: [{name,
// kind, total_pj, average_power_mw, parts: {...}, power_mw: {window_ns, values}}]}.
nlohmann::ordered_json energy_json(const platforms::PlatformEnergy& e);
// energy.total_pj, energy.average_power_mw and energy.<kind>_pj for every kind of component
// (hbm, sram, tcdm, dma, interconnect, core; 0 where the platform has none).
void add_energy_metrics(const platforms::PlatformEnergy& e, std::map<std::string, double>& m);
const std::set<std::string>& energy_metric_keys();
// "  energy           12.345 uJ, 3.21 W average: hbm 10.1 uJ, core 1.2 uJ, ..."
void write_energy_summary(std::ostream& out, const platforms::PlatformEnergy& e);

}  // namespace npusim::sim
