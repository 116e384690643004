// Per-point validation of a sweep before anything runs: each point's profile with its
// overrides, checked in-process by the loaders `npusim run` uses.
//
// Layering: tools/ reaches into run/ here for the embedded default scenario and the Snitch
// profile loader, which live there today; when run/ has one pipeline with a "load and
// validate" entry point, this file should call that instead.
#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <set>

#include "firmware/torch/runtime.h"
#include "sim/input/input_error.h"
#include "sim/input/platform_config.h"
#include "sim/input/snitch_profile.h"
#include "sim/run/scenario_runner.h"
#include "sim/run/snitch_run.h"
#include "sim/tools/sweep.h"
#include <torchneuron/register.h>

namespace npusim::sim::sweep {

namespace fs = std::filesystem;

namespace {
constexpr const char* kDefaultScenario = "default";
}  // namespace

void validate(const Plan& plan) {
  // The plugins, loaded as `npusim run --plugin` loads them (their static initialisers probed
  // in a child first): the ops the points' torch_op scenarios name are looked up among theirs.
  for (const auto& l : plan.plugins) {
    try {
      torchrt::load_plugin(l, false);
    } catch (const std::exception& e) {
      throw InputError(plan.sweep_file, 0, l, fmt::format("plugin library: {}", e.what()));
    }
  }
  // Each scenario is parsed once; its `set:` applies before the point's overrides.
  struct Parsed {
    bool snitch = false;
    std::string platform;
    std::vector<Setting> set;
    std::optional<TorchOpSpec> torch_op;
  };
  std::map<std::string, Parsed> parsed;
  auto scenario = [&](const std::string& path) -> const Parsed& {
    auto it = parsed.find(path);
    if (it != parsed.end()) return it->second;
    Parsed p;
    std::vector<std::tuple<std::string, std::string, Where>> set;
    if (path != kDefaultScenario && snitch::is_snitch_scenario(path, plan.platform)) {
      const auto sc = snitch::load_file(path);
      p.snitch = true;
      p.platform = sc.platform;
      set = sc.set;
    } else {
      const Scenario sc = path == kDefaultScenario ? parse_scenario(default_scenario_text(), default_scenario_name())
                                                   : load_scenario_file(path);
      p.platform = sc.platform;
      set = sc.set;
      p.torch_op = sc.torch_op;
    }
    if (!plan.platform.empty()) p.platform = plan.platform;
    for (const auto& [k, v, at] : set) p.set.push_back(Setting{k, v, at});
    return parsed.emplace(path, std::move(p)).first->second;
  };
  // Identical (scenario, overrides) are checked once: repeats and seeds share a profile.
  std::set<std::pair<std::string, std::vector<std::pair<std::string, std::string>>>> checked;
  for (const auto& pt : plan.points) {
    const Parsed& sc = scenario(pt.scenario);
    if (!checked.insert({pt.scenario, pt.sets}).second) continue;
    if (sc.torch_op && ::torch::npusim_op::find_op(sc.torch_op->op) == nullptr) {
      const Where& at = sc.torch_op->at;
      throw InputError(at.file, at.line, sc.torch_op->op,
                       fmt::format("point {} ({}) is rejected: {}", pt.index, fs::path(pt.scenario).filename().string(),
                                   ::torch::npusim_op::no_op_message(sc.torch_op->op)),
                       at.column);
    }
    std::vector<Setting> sets = sc.set;
    for (std::size_t i = 0; i < pt.sets.size(); ++i)
      sets.push_back(Setting{pt.sets[i].first, pt.sets[i].second,
                             i < pt.set_at.size() ? pt.set_at[i] : Where{"point", 0, 0}});
    try {
      if (sc.snitch) load_snitch_platform(sc.platform, sets);
      else load_platform(sc.platform, sets);
    } catch (const InputError& e) {
      std::string over;
      for (const auto& [k, v] : pt.sets) over += fmt::format("{}{}={}", over.empty() ? "" : " ", k, v);
      // The profile's reason without the place and token, which the rethrow adds again.
      std::string why = e.what();
      const std::string place = InputError(e.file(), e.line(), "", "", e.column()).what();
      const std::string head = place.substr(0, place.find(" (at '')") - 1);  // "file:line:col:"
      if (why.rfind(head, 0) == 0) why = why.substr(std::min(why.size(), head.size() + 1));
      const std::string tail = " (at '" + e.token() + "')";
      if (why.size() >= tail.size() && why.compare(why.size() - tail.size(), tail.size(), tail) == 0)
        why.resize(why.size() - tail.size());
      throw InputError(e.file(), e.line(), e.token(),
                       fmt::format("point {} ({}{}{}) is rejected: {}", pt.index,
                                   pt.scenario == kDefaultScenario ? "default" : fs::path(pt.scenario).filename().string(),
                                   over.empty() ? "" : ", ", over, why),
                       e.column());
    }
  }
}

}  // namespace npusim::sim::sweep
