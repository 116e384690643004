// The files a sweep keeps per point (DIR/points/NNNNN/) and small JSON file helpers.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>

namespace npusim::sim::sweep {

inline constexpr const char* kPointFile = "point.json";    // the point's definition
inline constexpr const char* kStatusFile = "status.json";  // exit code, signal, host time, message
inline constexpr const char* kReportFile = "report.json";  // the run's report (docs/report.md)
inline constexpr const char* kLogFile = "log.txt";         // the run's stdout and stderr

// Where a point's files live: DIR/points/00042.
std::string point_dir(const std::string& dir, std::size_t index);

// Writes `j` to `path` through a temporary file and a rename (no half-written file survives).
void write_json_file(const std::string& path, const nlohmann::ordered_json& j);
// The JSON in `path`, or nothing if the file is missing or not valid JSON.
std::optional<nlohmann::json> read_json_file(const std::string& path);
// The point's report if it is complete (a JSON object with a version and an outcome).
std::optional<nlohmann::json> read_report(const std::string& point_dir);

}  // namespace npusim::sim::sweep
