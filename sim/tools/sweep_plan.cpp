// The sweep file: parsing, expansion into points, the plan file.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>

#include "sim/input/input_error.h"
#include "sim/input/yaml_input.h"
#include "sim/run/scenario_runner.h"  // default_scenario_text (layering: see sweep_validate.cpp)
#include "sim/tools/sweep.h"

namespace npusim::sim::sweep {

namespace fs = std::filesystem;

namespace {

constexpr int kPlanVersion = 1;
constexpr const char* kDefaultScenario = "default";  // the embedded scenarios/default.yaml

class SweepInput : public YamlInput {
 public:
  using YamlInput::YamlInput;

  unsigned count(const YAML::Node& n, const char* what, uint64_t lo, uint64_t hi) const {
    const auto v = parse_number(str(n, what));
    if (!v || *v < lo || *v > hi) fail(n, fmt::format("{} must be a whole number from {} to {}", what, lo, hi));
    return static_cast<unsigned>(*v);
  }
  std::string text(const YAML::Node& n, const char* what) const {
    const std::string s = str(n, what);
    if (s.empty() || s.find_first_of("\n\r") != std::string::npos)
      fail(n, fmt::format("{} must be one non-empty line", what));
    return s;
  }
  // A platform key: section.key (the profile checks the rest).
  std::string key(const YAML::Node& n) const {
    const std::string k = str(n, "a key");
    if (k.find('.') == std::string::npos || k.front() == '.' || k.back() == '.' ||
        k.find_first_of(" =,\"\n") != std::string::npos)
      fail(n, fmt::format("'{}' is not a platform key (section.key, as in --set)", k));
    return k;
  }
  std::string value(const YAML::Node& n) const {
    const std::string v = str(n, "a value");
    if (v.find_first_of("\n\r") != std::string::npos) fail(n, "a value must be one line");
    return v;
  }
};

// FNV-1a (64 bit) of a scenario's text, in hex: cheap, and enough to see that a file changed.
std::string digest(const std::string& text) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const char c : text) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  return fmt::format("{:016x}", h);
}

struct Override {
  std::string key, value;
  Where at;
};

SlurmSpec parse_slurm(const SweepInput& in, const YAML::Node& n) {
  in.keys(n, {"partition", "account", "qos", "time", "mem", "cpus_per_task", "max_parallel", "sbatch"},
          {}, "slurm");
  SlurmSpec s;
  if (n["partition"]) s.partition = in.text(n["partition"], "slurm.partition");
  if (n["account"]) s.account = in.text(n["account"], "slurm.account");
  if (n["qos"]) s.qos = in.text(n["qos"], "slurm.qos");
  if (n["time"]) s.time = in.text(n["time"], "slurm.time");
  if (n["mem"]) s.mem = in.text(n["mem"], "slurm.mem");
  if (n["cpus_per_task"]) s.cpus_per_task = in.count(n["cpus_per_task"], "slurm.cpus_per_task", 1, 1024);
  if (n["max_parallel"]) s.max_parallel = in.count(n["max_parallel"], "slurm.max_parallel", 1, 1000000);
  if (const auto x = n["sbatch"]) {
    if (!x.IsSequence()) in.fail(x, "slurm.sbatch takes a list of sbatch options (\"--constraint=x\")");
    for (const auto& o : x) {
      const std::string t = in.text(o, "an sbatch option");
      if (t.rfind("--", 0) != 0 && t.rfind('-', 0) != 0) in.fail(o, "an sbatch option starts with '-'");
      s.extra.push_back(t);
    }
  }
  return s;
}

// `grid:` -> the cartesian product, the first key varying slowest (like nested loops).
std::vector<std::vector<Override>> expand_grid(const SweepInput& in, const YAML::Node& g) {
  if (!g.IsMap() || g.size() == 0) in.fail(g, "grid takes a map of section.key: [values]");
  std::vector<std::pair<std::string, std::vector<std::pair<std::string, Where>>>> axes;
  for (const auto& kv : g) {
    const std::string k = in.key(kv.first);
    const auto& vals = kv.second;
    if (!vals.IsSequence() || vals.size() == 0) in.fail(kv.second, fmt::format("grid key '{}' takes a non-empty list of values", k));
    std::vector<std::pair<std::string, Where>> vs;
    std::set<std::string> seen;
    for (const auto& v : vals) {
      const std::string s = in.value(v);
      if (!seen.insert(s).second) in.fail(v, fmt::format("value '{}' of grid key '{}' is listed twice", s, k));
      vs.emplace_back(s, in.at(v));
    }
    axes.emplace_back(k, std::move(vs));
  }
  std::vector<std::vector<Override>> out{{}};
  for (const auto& [key, vals] : axes) {
    std::vector<std::vector<Override>> next;
    for (const auto& partial : out)
      for (const auto& [v, at] : vals) {
        auto p = partial;
        p.push_back(Override{key, v, at});
        next.push_back(std::move(p));
      }
    out = std::move(next);
  }
  return out;
}

std::vector<std::vector<Override>> expand_list(const SweepInput& in, const YAML::Node& l) {
  if (!l.IsSequence() || l.size() == 0) in.fail(l, "points takes a list of maps of section.key: value");
  std::vector<std::vector<Override>> out;
  for (const auto& m : l) {
    if (!m.IsMap() || m.size() == 0) in.fail(m, "a point is a map of section.key: value");
    std::vector<Override> p;
    for (const auto& kv : m) p.push_back(Override{in.key(kv.first), in.value(kv.second), in.at(kv.second)});
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace

nlohmann::ordered_json Point::to_json() const {
  nlohmann::ordered_json set = nlohmann::ordered_json::object();
  for (const auto& [k, v] : sets) set[k] = v;
  nlohmann::ordered_json j{{"index", index}, {"scenario", scenario}, {"scenario_digest", scenario_digest},
                           {"set", set}, {"rep", rep}};
  j["seed"] = seed ? nlohmann::ordered_json(*seed) : nlohmann::ordered_json(nullptr);
  return j;
}

Plan plan_text(const std::string& text, const std::string& file) {
  const SweepInput in(file);
  const YAML::Node root = in.root(text);
  in.keys(root, {"name", "scenario", "scenarios", "platform", "grid", "points", "repeat", "seeds", "outputs", "slurm"},
          {}, "a sweep");
  Plan plan;
  plan.sweep_file = fs::absolute(file).lexically_normal().string();
  plan.name = root["name"] ? in.text(root["name"], "name") : fs::path(file).stem().string();
  for (const char c : plan.name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.')
      in.fail(root["name"], "name may hold letters, digits, '-', '_' and '.' only (it names Slurm jobs)");
  if (root["platform"]) plan.platform = in.text(root["platform"], "platform");

  // Scenarios: paths relative to the sweep file; "default" is the embedded scenario.
  std::vector<SweepScenario> scenarios;
  auto add_scenario = [&](const YAML::Node& n) {
    const std::string s = in.text(n, "a scenario");
    std::string path = s;
    if (s != kDefaultScenario) {
      fs::path p(s);
      if (p.is_relative()) p = fs::path(plan.sweep_file).parent_path() / p;
      path = p.lexically_normal().string();
      if (!fs::is_regular_file(path)) in.fail(n, fmt::format("scenario file '{}' does not exist", path));
    }
    scenarios.push_back(SweepScenario{path, in.at(n),
                                      digest(s == kDefaultScenario ? std::string(default_scenario_text())
                                                                   : read_input_file(path, "scenario"))});
  };
  if (root["scenario"] && root["scenarios"]) in.fail(root["scenarios"], "give scenario or scenarios, not both");
  if (const auto s = root["scenario"]) add_scenario(s);
  if (const auto s = root["scenarios"]) {
    if (!s.IsSequence() || s.size() == 0) in.fail(s, "scenarios takes a non-empty list of scenario files (or default)");
    for (const auto& e : s) add_scenario(e);
  }
  if (scenarios.empty())
    scenarios.push_back(SweepScenario{kDefaultScenario, Where{file, 1, 1}, digest(default_scenario_text())});

  std::vector<std::vector<Override>> combos;
  if (const auto g = root["grid"]) combos = expand_grid(in, g);
  if (const auto l = root["points"]) {
    auto more = expand_list(in, l);
    combos.insert(combos.end(), more.begin(), more.end());
  }
  if (combos.empty()) combos.emplace_back();  // each scenario once, as it is

  const unsigned repeat = root["repeat"] ? in.count(root["repeat"], "repeat", 1, 100000) : 1;
  std::string seed_key;
  std::vector<std::pair<std::string, Where>> seeds;
  if (const auto s = root["seeds"]) {
    in.keys(s, {"key", "values"}, {"key", "values"}, "seeds");
    seed_key = in.key(s["key"]);
    if (!s["values"].IsSequence() || s["values"].size() == 0) in.fail(s["values"], "seeds.values takes a non-empty list");
    for (const auto& v : s["values"]) seeds.emplace_back(in.value(v), in.at(v));
    plan.has_seed = true;
  }
  if (const auto o = root["outputs"]) {
    if (!o.IsSequence()) in.fail(o, "outputs takes a list: [report, trace, vcd]");
    for (const auto& e : o) {
      const std::string s = in.str(e, "an output");
      if (s == "trace") plan.trace = true;
      else if (s == "vcd") plan.vcd = true;
      else if (s != "report") in.fail(e, fmt::format("unknown output '{}' (report, trace, vcd)", s));
    }
  }
  if (const auto s = root["slurm"]) plan.slurm = parse_slurm(in, s);

  std::set<std::string> known;
  auto note_key = [&](const std::string& k) {
    if (known.insert(k).second) plan.keys.push_back(k);
  };
  constexpr std::size_t kMaxPoints = 10'000'000;
  for (const auto& sc : scenarios)
    for (const auto& combo : combos) {
      const std::size_t nseeds = seeds.empty() ? 1 : seeds.size();
      for (std::size_t si = 0; si < nseeds; ++si)
        for (unsigned rep = 0; rep < repeat; ++rep) {
          if (plan.points.size() >= kMaxPoints) throw InputError(file, 0, "", fmt::format("more than {} points", kMaxPoints));
          Point p;
          p.index = plan.points.size();
          p.scenario = sc.path;
          p.scenario_digest = sc.digest;
          p.rep = rep;
          std::set<std::string> in_point;
          for (const auto& o : combo) {
            if (!in_point.insert(o.key).second)
              throw InputError(o.at.file, o.at.line, o.key, "this key is set twice in one point", o.at.column);
            p.sets.emplace_back(o.key, o.value);
            p.set_at.push_back(o.at);
            note_key(o.key);
          }
          if (!seeds.empty()) {
            if (in_point.count(seed_key))
              throw InputError(file, seeds[si].second.line, seed_key, "the seeds key is also swept by the grid or points", seeds[si].second.column);
            p.sets.emplace_back(seed_key, seeds[si].first);
            p.set_at.push_back(seeds[si].second);
            p.seed = seeds[si].first;
            note_key(seed_key);
          }
          plan.points.push_back(std::move(p));
        }
    }
  plan.npusim = self_exe();
  return plan;
}

Plan plan_file(const std::string& path) { return plan_text(read_input_file(path, "sweep"), path); }

std::string point_dir(const std::string& dir, std::size_t index) {
  return (fs::path(dir) / "points" / fmt::format("{:05d}", index)).string();
}

nlohmann::ordered_json Plan::to_json() const {
  nlohmann::ordered_json pts = nlohmann::ordered_json::array();
  for (const auto& p : points) pts.push_back(p.to_json());
  return {{"npusim_sweep_version", kPlanVersion},
          {"name", name},
          {"sweep_file", sweep_file},
          {"npusim", npusim},
          {"platform", platform},
          {"outputs", {{"trace", trace}, {"vcd", vcd}}},
          {"keys", keys},
          {"has_seed", has_seed},
          {"points", pts}};
}

Plan Plan::from_json(const nlohmann::json& j, const std::string& file) {
  try {
    if (j.at("npusim_sweep_version").get<int>() != kPlanVersion)
      throw InputError(file, 0, j.at("npusim_sweep_version").dump(), "unsupported plan version");
    Plan p;
    p.name = j.at("name").get<std::string>();
    p.sweep_file = j.at("sweep_file").get<std::string>();
    p.npusim = j.at("npusim").get<std::string>();
    p.platform = j.at("platform").get<std::string>();
    p.trace = j.at("outputs").at("trace").get<bool>();
    p.vcd = j.at("outputs").at("vcd").get<bool>();
    p.keys = j.at("keys").get<std::vector<std::string>>();
    p.has_seed = j.at("has_seed").get<bool>();
    for (const auto& e : j.at("points")) {
      Point pt;
      pt.index = e.at("index").get<std::size_t>();
      if (pt.index != p.points.size()) throw InputError(file, 0, e.at("index").dump(), "points are not numbered in order");
      pt.scenario = e.at("scenario").get<std::string>();
      pt.scenario_digest = e.at("scenario_digest").get<std::string>();
      for (const auto& [k, v] : e.at("set").items()) pt.sets.emplace_back(k, v.get<std::string>());
      pt.rep = e.at("rep").get<unsigned>();
      if (!e.at("seed").is_null()) pt.seed = e.at("seed").get<std::string>();
      p.points.push_back(std::move(pt));
    }
    return p;
  } catch (const nlohmann::json::exception& e) {
    throw InputError(file, 0, "", std::string("not a sweep plan: ") + e.what());
  }
}

void write_plan(const Plan& plan, const std::string& dir) {
  fs::create_directories(dir);
  const std::string path = (fs::path(dir) / "plan.json").string();
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    out << plan.to_json().dump(1) << '\n';
    if (!out) throw InputError(path, 0, "", "cannot write the sweep plan");
  }
  fs::rename(tmp, path);
}

Plan read_plan(const std::string& dir) {
  const std::string path = (fs::path(dir) / "plan.json").string();
  std::ifstream in(path);
  if (!in)
    throw InputError(path, 0, dir, "no sweep plan here (write one with `npusim sweep SWEEP.yaml --emit slurm DIR` or run the sweep)");
  const auto j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded()) throw InputError(path, 0, "", "the sweep plan is not valid JSON");
  return Plan::from_json(j, path);
}

}  // namespace npusim::sim::sweep
