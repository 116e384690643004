// Merging a sweep's point files into results.csv and results.jsonl.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "sim/input/input_error.h"
#include "sim/tools/sweep.h"
#include "sim/tools/sweep_files.h"

namespace npusim::sim::sweep {

namespace fs = std::filesystem;

void write_json_file(const std::string& path, const nlohmann::ordered_json& j) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    out << j.dump(1) << '\n';
    if (!out) throw InputError(path, 0, "", "cannot write this file");
  }
  fs::rename(tmp, path);
}

std::optional<nlohmann::json> read_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  auto j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded()) return std::nullopt;
  return j;
}

std::optional<nlohmann::json> read_report(const std::string& point_dir) {
  auto j = read_json_file((fs::path(point_dir) / kReportFile).string());
  if (!j || !j->is_object() || !j->contains("npusim_report_version") || !j->contains("outcome") ||
      !(*j)["outcome"].is_object())
    return std::nullopt;
  return j;
}

namespace {

// RFC 4180: quote a field holding a comma, a quote or a line break.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (const char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + '"';
}

std::string cell(const nlohmann::ordered_json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

}  // namespace

Summary collect(const std::string& dir) {
  const Plan plan = read_plan(dir);
  Summary s;
  s.total = plan.points.size();

  // Fixed columns, the overrides, then every metric any report has (sorted, as in reports).
  std::vector<std::string> fixed{"point", "scenario", "rep"};
  if (plan.has_seed) fixed.push_back("seed");
  const std::vector<std::string> tail{"status", "exit_code", "host_time_s", "message"};
  std::set<std::string> taken(fixed.begin(), fixed.end());
  taken.insert(tail.begin(), tail.end());
  std::vector<std::string> keys;  // override columns
  for (const auto& k : plan.keys) keys.push_back(taken.count(k) ? "set." + k : k);
  taken.insert(keys.begin(), keys.end());

  std::vector<nlohmann::ordered_json> rows;
  std::set<std::string> metric_names;
  std::vector<std::optional<nlohmann::json>> metrics_of;
  for (const auto& p : plan.points) {
    const std::string pdir = point_dir(dir, p.index);
    nlohmann::ordered_json row;
    row["point"] = p.index;
    row["scenario"] = p.scenario;
    row["rep"] = p.rep;
    if (plan.has_seed) row["seed"] = p.seed ? nlohmann::ordered_json(*p.seed) : nlohmann::ordered_json(nullptr);
    for (std::size_t i = 0; i < plan.keys.size(); ++i) {
      nlohmann::ordered_json v = nullptr;
      for (const auto& [k, val] : p.sets)
        if (k == plan.keys[i]) v = val;
      row[keys[i]] = v;
    }
    const auto def = read_json_file((fs::path(pdir) / kPointFile).string());
    const bool ours = def && *def == nlohmann::json(p.to_json());
    const auto st = ours ? read_json_file((fs::path(pdir) / kStatusFile).string()) : std::nullopt;
    const auto report = st ? read_report(pdir) : std::nullopt;
    std::string status;
    nlohmann::ordered_json exit_code = nullptr, host = nullptr;
    std::string message;
    if (!st) {
      status = "not_run";
      message = ours || !def ? "no result (the point did not run or did not finish)"
                             : "the point directory holds another point (the sweep changed): rerun";
      ++s.missing;
    } else {
      exit_code = (*st)["exit_code"];
      host = (*st)["host_time_s"];
      message = st->value("message", "");
      if (report) status = (*report)["outcome"].value("status", "unknown");
      else if (!(*st)["signal"].is_null()) status = "crashed";
      else if (exit_code == 2) status = "rejected";
      else status = "failed";
      if (status == "interrupted") ++s.missing;  // stopped by SIGINT/SIGTERM: did not finish
      else {
        if (!exit_code.is_number_integer() || exit_code.get<int>() != 0) ++s.failed;
        ++s.ran;
      }
    }
    row["status"] = status;
    row["exit_code"] = exit_code;
    row["host_time_s"] = host;
    row["message"] = message;
    std::optional<nlohmann::json> m;
    if (report && report->contains("metrics") && (*report)["metrics"].is_object()) {
      m = (*report)["metrics"];
      for (const auto& [k, v] : m->items()) metric_names.insert(k);
    }
    metrics_of.push_back(std::move(m));
    rows.push_back(std::move(row));
  }
  std::vector<std::pair<std::string, std::string>> metric_cols;  // (metric, column name)
  for (const auto& n : metric_names) metric_cols.emplace_back(n, taken.count(n) ? "metric." + n : n);

  const std::string csv_path = (fs::path(dir) / "results.csv").string();
  const std::string jsonl_path = (fs::path(dir) / "results.jsonl").string();
  std::ofstream csv(csv_path + ".tmp"), jsonl(jsonl_path + ".tmp");
  std::vector<std::string> header = fixed;
  header.insert(header.end(), keys.begin(), keys.end());
  header.insert(header.end(), tail.begin(), tail.end());
  for (const auto& [n, c] : metric_cols) header.push_back(c);
  for (std::size_t i = 0; i < header.size(); ++i) csv << (i ? "," : "") << csv_field(header[i]);
  csv << '\n';
  for (std::size_t r = 0; r < rows.size(); ++r) {
    auto& row = rows[r];
    for (const auto& [n, c] : metric_cols) {
      const auto& m = metrics_of[r];
      row[c] = m && m->contains(n) ? nlohmann::ordered_json((*m)[n]) : nlohmann::ordered_json(nullptr);
    }
    bool first = true;
    for (const auto& [k, v] : row.items()) {
      csv << (first ? "" : ",") << csv_field(cell(v));
      first = false;
    }
    csv << '\n';
    jsonl << row.dump() << '\n';
  }
  if (!csv || !jsonl) throw InputError(dir, 0, "", "cannot write results.csv / results.jsonl here");
  csv.close();
  jsonl.close();
  fs::rename(csv_path + ".tmp", csv_path);
  fs::rename(jsonl_path + ".tmp", jsonl_path);
  return s;
}

}  // namespace npusim::sim::sweep
