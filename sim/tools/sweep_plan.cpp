// The sweep file: parsing, expansion into points, the plan file (with the npusim that runs the
// points). Nothing here knows how points are run.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>

#include "sim/input/input_error.h"
#include "sim/input/json_fields.h"
#include "sim/input/json_input.h"
#include "sim/output/output_paths.h"
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

// A count as people read it: the digits up to a trillion, beyond it "about 1.0e+15".
std::string show_count(double n) {
  if (n < 1e12) return fmt::format("{:.0f}", n);
  return fmt::format("about {:.1e}", n);
}

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

using Axes = std::vector<std::pair<std::string, std::vector<std::pair<std::string, Where>>>>;

// `grid:` -> its keys and their values (expanded by expand_grid once the points are counted).
Axes parse_grid(const SweepInput& in, const YAML::Node& g) {
  if (!g.IsMap() || g.size() == 0) in.fail(g, "grid takes a map of section.key: [values]");
  Axes axes;
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
  return axes;
}

// Point i of the cartesian product, the first key varying slowest (like nested loops): made
// one at a time, so that the plan's points are the only copy of the values.
std::vector<Override> grid_point(const Axes& axes, uint64_t i) {
  std::vector<Override> out(axes.size());
  for (size_t k = axes.size(); k-- > 0;) {
    const auto& [key, vals] = axes[k];
    const auto& [v, at] = vals[i % vals.size()];
    out[k] = Override{key, v, at};
    i /= vals.size();
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
  in.keys(root, {"name", "scenario", "scenarios", "platform", "plugins", "grid", "points", "repeat", "seeds", "outputs",
                 "slurm"},
          {}, "a sweep");
  Plan plan;
  plan.sweep_file = fs::absolute(file).lexically_normal().string();
  plan.name = root["name"] ? in.text(root["name"], "name") : fs::path(file).stem().string();
  for (const char c : plan.name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.')
      in.fail(root["name"], "name may hold letters, digits, '-', '_' and '.' only (it names Slurm jobs)");
  if (root["platform"]) plan.platform = in.text(root["platform"], "platform");
  // Plugin libraries: paths relative to the sweep file, each an existing file.
  if (const auto pl = root["plugins"]) {
    if (!pl.IsSequence() || pl.size() == 0)
      in.fail(pl, "plugins takes a non-empty list of libraries built by `npusim op build`");
    for (const auto& e : pl) {
      fs::path p(in.text(e, "a plugin library"));
      if (p.is_relative()) p = fs::path(plan.sweep_file).parent_path() / p;
      const std::string path = p.lexically_normal().string();
      if (!fs::is_regular_file(path)) in.fail(e, fmt::format("plugin library '{}' does not exist", path));
      plan.plugins.push_back(path);
    }
  }

  // Scenarios: paths relative to the sweep file; "default" is the embedded scenario.
  std::vector<SweepScenario> scenarios;
  auto add_scenario = [&](const YAML::Node& n) {
    const std::string s = in.text(n, "a scenario");
    std::string path = s;
    if (s != kDefaultScenario) {
      fs::path p(s);
      if (p.is_relative()) p = fs::path(plan.sweep_file).parent_path() / p;
      path = p.lexically_normal().string();
      if (const std::string why = input_file_problem(path); !why.empty())
        in.fail(n, fmt::format("scenario file '{}' {}", path, why));
      if (!fs::is_regular_file(path))
        in.fail(n, fmt::format("scenario file '{}' is not a regular file (a FIFO or a device)", path));
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

  Axes axes;
  if (const auto g = root["grid"]) axes = parse_grid(in, g);
  std::vector<std::vector<Override>> listed;
  if (const auto l = root["points"]) listed = expand_list(in, l);

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

  // Count the points before making any: a grid of 10^10 points is an error, not an exhausted
  // memory. The count saturates; its factors say where it comes from.
  auto mul = [](uint64_t a, uint64_t b) { return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b; };
  uint64_t grid_points = axes.empty() ? 0 : 1;
  double grid_approx = axes.empty() ? 0 : 1;
  for (const auto& [k, vals] : axes) {
    grid_points = mul(grid_points, vals.size());
    grid_approx *= static_cast<double>(vals.size());
  }
  const uint64_t combos_n = grid_points == UINT64_MAX ? UINT64_MAX : std::max<uint64_t>(1, grid_points + listed.size());
  const uint64_t nseeds_n = seeds.empty() ? 1 : seeds.size();
  const uint64_t total = mul(mul(mul(scenarios.size(), combos_n), nseeds_n), repeat);
  if (total > kMaxSweepPoints) {
    const double approx = static_cast<double>(scenarios.size()) * std::max(1.0, grid_approx + static_cast<double>(listed.size())) *
                          static_cast<double>(nseeds_n) * static_cast<double>(repeat);
    std::string factors = fmt::format("{} scenario(s) x {} grid and list point(s)", scenarios.size(),
                                      show_count(grid_approx + static_cast<double>(listed.size())));
    if (!seeds.empty()) factors += fmt::format(" x {} seeds", seeds.size());
    if (repeat > 1) factors += fmt::format(" x repeat {}", repeat);
    throw InputError(file, 1, show_count(approx),
                     fmt::format("the sweep has {} points ({}); one sweep runs at most {}", show_count(approx), factors,
                                 kMaxSweepPoints), 1);
  }
  // The values the points set, counted too: each is kept with its place in the file, so a
  // plan of a million points that set ten values each would take gigabytes.
  const uint64_t per_seed = seeds.empty() ? 0 : 1;
  uint64_t combo_sets = grid_points == UINT64_MAX ? UINT64_MAX : mul(grid_points, axes.size() + per_seed);
  for (const auto& l : listed) combo_sets = std::min<uint64_t>(UINT64_MAX - 1, combo_sets) + l.size() + per_seed;
  if (grid_points == 0 && listed.empty()) combo_sets = per_seed;
  const uint64_t sets_total = mul(mul(mul(scenarios.size(), combo_sets), nseeds_n), repeat);
  if (sets_total > kMaxSweepSettings)
    throw InputError(file, 1, std::to_string(sets_total),
                     fmt::format("the sweep's {} points set {} values in all; one sweep sets at most {} (split it "
                                 "into several sweeps)", total, sets_total, kMaxSweepSettings), 1);
  const uint64_t ncombos = std::max<uint64_t>(1, grid_points + listed.size());
  auto combo_at = [&](uint64_t c) {  // grid points first, then the listed ones; none: as it is
    if (c < grid_points) return grid_point(axes, c);
    if (c - grid_points < listed.size()) return listed[c - grid_points];
    return std::vector<Override>{};
  };

  std::set<std::string> known;
  auto note_key = [&](const std::string& k) {
    if (known.insert(k).second) plan.keys.push_back(k);
  };
  plan.points.reserve(total);
  for (const auto& sc : scenarios)
    for (uint64_t c = 0; c < ncombos; ++c) {
      const std::vector<Override> combo = combo_at(c);
      const std::size_t nseeds = seeds.empty() ? 1 : seeds.size();
      for (std::size_t si = 0; si < nseeds; ++si)
        for (unsigned rep = 0; rep < repeat; ++rep) {
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

std::string self_exe() {
  std::error_code ec;
  const auto p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("npusim") : p.string();
}

Plan plan_file(const std::string& path) { return plan_text(read_input_file(path, "sweep"), path); }

nlohmann::ordered_json Plan::to_json() const {
  nlohmann::ordered_json pts = nlohmann::ordered_json::array();
  for (const auto& p : points) pts.push_back(p.to_json());
  return {{"npusim_sweep_version", kPlanVersion},
          {"name", name},
          {"sweep_file", sweep_file},
          {"npusim", npusim},
          {"platform", platform},
          {"plugins", plugins},
          {"outputs", {{"trace", trace}, {"vcd", vcd}}},
          {"keys", keys},
          {"has_seed", has_seed},
          {"points", pts}};
}

Plan Plan::from_json(const nlohmann::json& j, const std::string& file) {
  const JsonFields f(file);
  f.object(j, "");
  const int64_t version = f.integer(f.member(j, "", "npusim_sweep_version"), "npusim_sweep_version", 0, INT32_MAX);
  if (version != kPlanVersion)
    throw InputError(file, 0, std::to_string(version),
                     fmt::format("npusim_sweep_version: this npusim reads plan version {}", kPlanVersion));
  Plan p;
  p.name = f.string(f.member(j, "", "name"), "name");
  p.sweep_file = f.string(f.member(j, "", "sweep_file"), "sweep_file");
  p.npusim = f.string(f.member(j, "", "npusim"), "npusim");
  p.platform = f.string(f.member(j, "", "platform"), "platform");
  if (j.contains("plugins")) {  // (a plan written before plugins were planned has none)
    const auto& pl = f.list(f.member(j, "", "plugins"), "plugins");
    for (size_t i = 0; i < pl.size(); ++i) p.plugins.push_back(f.string(pl[i], JsonFields::index("plugins", i)));
  }
  const auto& outputs = f.member(j, "", "outputs");
  p.trace = f.boolean(f.member(outputs, "outputs", "trace"), "outputs.trace");
  p.vcd = f.boolean(f.member(outputs, "outputs", "vcd"), "outputs.vcd");
  const auto& keys = f.list(f.member(j, "", "keys"), "keys");
  for (size_t i = 0; i < keys.size(); ++i) p.keys.push_back(f.string(keys[i], JsonFields::index("keys", i)));
  p.has_seed = f.boolean(f.member(j, "", "has_seed"), "has_seed");
  const auto& points = f.list(f.member(j, "", "points"), "points");
  if (points.size() > kMaxSweepPoints)
    throw InputError(file, 0, std::to_string(points.size()), fmt::format("points: more than {} points", kMaxSweepPoints));
  for (size_t i = 0; i < points.size(); ++i) {
    const std::string at = JsonFields::index("points", i);
    const auto& e = f.object(points[i], at);
    Point pt;
    pt.index = static_cast<std::size_t>(f.integer(f.member(e, at, "index"), at + ".index", 0, INT64_MAX));
    if (pt.index != i) f.fail(at + ".index", e["index"], fmt::format("must be {}: points are numbered in order", i));
    pt.scenario = f.string(f.member(e, at, "scenario"), at + ".scenario");
    pt.scenario_digest = f.string(f.member(e, at, "scenario_digest"), at + ".scenario_digest");
    const auto& set = f.object(f.member(e, at, "set"), at + ".set");
    for (const auto& [k, v] : set.items()) pt.sets.emplace_back(k, f.string(v, at + ".set." + k));
    pt.rep = static_cast<unsigned>(f.integer(f.member(e, at, "rep"), at + ".rep", 0, UINT32_MAX));
    const auto& seed = f.member(e, at, "seed");
    if (!seed.is_null()) pt.seed = f.string(seed, at + ".seed");
    p.points.push_back(std::move(pt));
  }
  return p;
}

void prepare_sweep_dir(const std::string& dir, const char* what) {
  std::error_code ec;
  const auto st = fs::status(dir, ec);
  if (fs::exists(st)) {
    if (!fs::is_directory(st)) throw InputError(what, 0, dir, "exists and is not a folder");
    // A sweep writes its files into DIR (results.csv, points/...): a folder of other files is
    // not taken over.
    if (!fs::exists(fs::path(dir) / "plan.json") && !fs::is_empty(dir, ec))
      throw InputError(what, 0, dir, "holds other files and no sweep (no plan.json): give a new or empty folder");
    return;
  }
  fs::create_directories(dir, ec);
  if (ec) throw InputError(what, 0, dir, "cannot be created: " + ec.message());
}

void write_plan(const Plan& plan, const std::string& dir) {
  write_output({"npusim sweep", (fs::path(dir) / "plan.json").string(), {}}, plan.to_json().dump(1) + "\n");
}

Plan read_plan(const std::string& dir) {
  const std::string path = (fs::path(dir) / "plan.json").string();
  if (!input_file_problem(path).empty())
    throw InputError(path, 0, dir, "no sweep plan here (write one with `npusim sweep SWEEP.yaml --emit slurm DIR` or run the sweep)");
  return Plan::from_json(parse_json_input(read_input_file(path, "sweep plan"), path), path);
}

}  // namespace npusim::sim::sweep
