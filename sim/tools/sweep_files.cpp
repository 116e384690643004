// The files a sweep keeps per point: where they live, and how they are written and read.
#include "sim/tools/sweep_files.h"

#include <fmt/format.h>

#include <filesystem>

#include "sim/input/input_error.h"
#include "sim/input/json_input.h"
#include "sim/input/yaml_input.h"
#include "sim/output/output_paths.h"

namespace npusim::sim::sweep {

namespace fs = std::filesystem;

std::string point_dir(const std::string& dir, std::size_t index) {
  return (fs::path(dir) / "points" / fmt::format("{:05d}", index)).string();
}

void write_json_file(const std::string& path, const nlohmann::ordered_json& j) {
  write_output({"npusim sweep", path, {}}, j.dump(1) + "\n");
}

std::optional<nlohmann::json> read_json_file(const std::string& path) {
  if (!input_file_problem(path).empty()) return std::nullopt;
  try {
    return parse_json_input(read_input_file(path, "sweep"), path);
  } catch (const InputError&) {
    return std::nullopt;
  }
}

std::optional<nlohmann::json> read_report(const std::string& point_dir) {
  auto j = read_json_file((fs::path(point_dir) / kReportFile).string());
  if (!j || !j->is_object() || !j->contains("npusim_report_version") || !j->contains("outcome") ||
      !(*j)["outcome"].is_object())
    return std::nullopt;
  return j;
}

}  // namespace npusim::sim::sweep
