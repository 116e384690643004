// Merging a sweep's point files into results.csv and results.jsonl.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "sim/input/input_error.h"
#include "sim/input/json_input.h"
#include "sim/input/yaml_input.h"
#include "sim/output/output_paths.h"
#include "sim/tools/sweep.h"
#include "sim/tools/sweep_files.h"

namespace npusim::sim::sweep {

namespace fs = std::filesystem;

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
      // Written by this npusim, but read as input: a member of another type is not trusted.
      auto member = [&](const char* k) { return st->is_object() && st->contains(k) ? (*st)[k] : nlohmann::json(); };
      if (member("exit_code").is_number_integer()) exit_code = member("exit_code");
      if (member("host_time_s").is_number()) host = member("host_time_s");
      if (member("message").is_string()) message = member("message").get<std::string>();
      const auto& outcome = report ? (*report)["outcome"] : nlohmann::json();
      if (report && outcome.contains("status") && outcome["status"].is_string()) status = outcome["status"].get<std::string>();
      else if (report) status = "unknown";
      else if (!member("signal").is_null()) status = "crashed";
      else if (exit_code == 2) status = "rejected";
      else status = "failed";
      // A point passed when its run exited 0 and left its report: the summary, the exit code
      // and the CSV agree on that. A report that says ok from a run that exited non-zero (an
      // output it could not write) is a failed point, and its status says so.
      if (status == "ok" && exit_code != 0) status = "failed";
      const bool passed = report && status != "unknown" && exit_code == 0;
      const std::string report_file = (fs::path(pdir) / kReportFile).string();
      if (!report && fs::exists(report_file))
        message = fmt::format("its report {} is not a complete npusim report (cut short or damaged){}{}", report_file,
                              message.empty() ? "" : "; ", message);
      else if (!report && exit_code == 0 && message.empty())
        message = "the run exited 0 but left no readable report";
      if (status == "interrupted") ++s.missing;  // stopped by SIGINT/SIGTERM: did not finish
      else {
        if (!passed && s.failed == 0)
          s.first_failure = fmt::format("point {} ({}): {}", p.index, status,
                                        message.empty() ? "see " + (fs::path(pdir) / "log.txt").string() : message);
        if (!passed) ++s.failed;
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

  std::string csv, jsonl;
  std::vector<std::string> header = fixed;
  header.insert(header.end(), keys.begin(), keys.end());
  header.insert(header.end(), tail.begin(), tail.end());
  for (const auto& [n, c] : metric_cols) header.push_back(c);
  for (std::size_t i = 0; i < header.size(); ++i) csv += (i ? "," : "") + csv_field(header[i]);
  csv += '\n';
  for (std::size_t r = 0; r < rows.size(); ++r) {
    auto& row = rows[r];
    for (const auto& [n, c] : metric_cols) {
      const auto& m = metrics_of[r];
      row[c] = m && m->contains(n) ? nlohmann::ordered_json((*m)[n]) : nlohmann::ordered_json(nullptr);
    }
    bool first = true;
    for (const auto& [k, v] : row.items()) {
      csv += (first ? "" : ",") + csv_field(cell(v));
      first = false;
    }
    csv += '\n';
    jsonl += row.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + '\n';
  }
  write_output({"npusim sweep", (fs::path(dir) / "results.csv").string(), {}}, csv);
  write_output({"npusim sweep", (fs::path(dir) / "results.jsonl").string(), {}}, jsonl);
  return s;
}

}  // namespace npusim::sim::sweep
