#include "sim/input/profile_dump.h"

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <map>
#include <sstream>

#include "sim/input/input_error.h"
#include "sim/input/yaml_input.h"

namespace npusim::sim {

extern const char* const kProfileNeuronGpsimd;   // sim/platforms/neuron-gpsimd.yaml
extern const char* const kProfileSnitchCluster;  // sim/platforms/snitch-cluster.yaml

namespace {

void flatten(const YAML::Node& n, const std::string& prefix, const std::string& file,
             std::vector<Setting>& out) {
  const auto where = [&](const YAML::Node& x) {
    return Where{file, x.Mark().line + 1, x.Mark().column + 1};
  };
  if (n.IsMap()) {
    for (const auto& kv : n) {
      const std::string k = kv.first.as<std::string>();
      if (prefix.empty() && (k == "topology" || k == "extends")) continue;  // not settings
      const std::string key = prefix.empty() ? k : prefix + "." + k;
      if (kv.second.IsScalar()) out.push_back({key, kv.second.Scalar(), where(kv.first)});
      else if (!kv.second.IsNull()) flatten(kv.second, key, file, out);
    }
  } else if (n.IsSequence()) {
    size_t i = 0;
    for (const auto& item : n) {
      const std::string key = prefix + "." + std::to_string(i++);
      if (!item.IsMap()) throw InputError(file, item.Mark().line + 1, key, "expected a map here");
      flatten(item, key, file, out);
    }
  }
}

std::vector<Setting> settings_of(const std::string& text, const std::string& file) {
  const YAML::Node root = load_yaml(text, file);
  if (!root.IsMap()) throw InputError(file, 1, "", "a platform profile is a map of sections", 1);
  std::vector<Setting> out;
  flatten(root, "", file, out);
  return out;
}

}  // namespace

std::vector<Setting> profile_settings(const std::string& name_or_path) {
  if (name_or_path == "neuron-gpsimd") return settings_of(kProfileNeuronGpsimd, "<builtin:neuron-gpsimd>");
  const auto snitch = [] { return settings_of(kProfileSnitchCluster, "<builtin:snitch-cluster>"); };
  if (name_or_path == "snitch-cluster") return snitch();
  const std::string text = read_input_file(name_or_path, "platform profile");
  auto own = settings_of(text, name_or_path);
  for (const auto& s : own)
    if (s.key == "platform" && s.value == "snitch-cluster") return apply_settings(snitch(), own);
  // `extends: NAME`: the built-in profile's values first (the dump is then self-contained).
  const YAML::Node root = YAML::Load(text);
  if (root["extends"] && root["extends"].IsScalar()) {
    const std::string base = root["extends"].Scalar();
    if (base == "neuron-gpsimd") return apply_settings(profile_settings(base), own);
  }
  return own;
}

std::vector<Setting> apply_settings(std::vector<Setting> base, const std::vector<Setting>& overrides) {
  for (const auto& o : overrides) {
    bool found = false;
    for (auto& b : base)
      if (b.key == o.key) {
        b.value = o.value;
        b.at = o.at;
        found = true;
      }
    if (!found) base.push_back(o);
  }
  return base;
}

YAML::Node profile_topology(const std::string& name_or_path) {
  std::string text;
  if (name_or_path == "neuron-gpsimd") {
    text = kProfileNeuronGpsimd;
  } else if (name_or_path == "snitch-cluster") {
    text = kProfileSnitchCluster;
  } else {
    text = read_input_file(name_or_path, "platform profile");
  }
  const YAML::Node root = YAML::Load(text);
  if (root["topology"]) return root["topology"];
  if (root["extends"] && root["extends"].IsScalar() && root["extends"].Scalar() != name_or_path)
    return profile_topology(root["extends"].Scalar());
  return {};
}

std::string profile_yaml(const std::vector<Setting>& settings, const std::string& header_comment,
                         const YAML::Node& topology) {
  // section -> (key -> value) for maps; section -> index -> (key -> value) for lists.
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> maps;
  std::map<std::string, std::map<size_t, std::vector<std::pair<std::string, std::string>>>> lists;
  std::string platform;
  for (const auto& s : settings) {
    if (s.key == "platform") {
      platform = s.value;
      continue;
    }
    const auto dot = s.key.find('.');
    if (dot == std::string::npos) continue;  // the loaders refuse it; nothing to print
    const std::string section = s.key.substr(0, dot), rest = s.key.substr(dot + 1);
    if (!maps.count(section) && !lists.count(section)) order.push_back(section);
    const auto dot2 = rest.find('.');
    const auto index = dot2 == std::string::npos ? std::nullopt : parse_number(rest.substr(0, dot2));
    if (index) lists[section][*index].emplace_back(rest.substr(dot2 + 1), s.value);
    else maps[section].emplace_back(rest, s.value);
  }
  YAML::Emitter y;
  y << YAML::BeginMap;
  if (!platform.empty()) y << YAML::Key << "platform" << YAML::Value << platform;
  for (const auto& section : order) {
    y << YAML::Key << section << YAML::Value;
    if (lists.count(section)) {
      y << YAML::BeginSeq;
      for (const auto& [i, fields] : lists[section]) {
        y << YAML::BeginMap;
        for (const auto& [k, v] : fields) y << YAML::Key << k << YAML::Value << v;
        y << YAML::EndMap;
      }
      y << YAML::EndSeq;
    } else {
      y << YAML::BeginMap;
      for (const auto& [k, v] : maps[section]) y << YAML::Key << k << YAML::Value << v;
      y << YAML::EndMap;
    }
  }
  if (topology.IsDefined() && !topology.IsNull()) y << YAML::Key << "topology" << YAML::Value << topology;
  y << YAML::EndMap;
  std::string out;
  std::istringstream lines(header_comment);
  for (std::string l; std::getline(lines, l);) out += "# " + l + "\n";
  return out + y.c_str() + "\n";
}

}  // namespace npusim::sim
