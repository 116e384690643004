// `npusim report --sweep DIR --html FILE` (docs/sweep.md, "Plots"): every metric of a sweep's
// results against every swept parameter, as one self-contained HTML page.
#pragma once

#include <istream>
#include <string>

#include <nlohmann/json.hpp>

namespace npusim::sim {

// Reads DIR/results.jsonl (written by `npusim sweep` / `npusim sweep --collect`) into the
// page's data: {dir, params: [key], metrics: [name], points: [{point, scenario, rep, status,
// params: {key: text}, metrics: {name: number|null}}]}. The swept keys are the members between
// `rep` (or `seed`) and `status`, the metrics those after `message` (docs/sweep.md). Throws
// InputError naming the file, line and value for a missing file, a line that is not a JSON
// object or one without those members.
nlohmann::ordered_json load_sweep_data(const std::string& dir);
// The same from a stream of results.jsonl lines named `path` (the fuzzer uses it).
nlohmann::ordered_json sweep_data_from_stream(std::istream& in, const std::string& path, const std::string& dir);

// The page for `data` (load_sweep_data).
std::string sweep_html(const nlohmann::ordered_json& data);

// load_sweep_data + sweep_html + write_html_file.
void write_sweep_html(const std::string& dir, const std::string& out_path);

}  // namespace npusim::sim
