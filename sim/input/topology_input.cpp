#include "sim/input/topology_input.h"

#include <fmt/format.h>

#include <map>
#include <set>

#include "sim/input/input_error.h"
#include "sim/input/scenario.h"

namespace npusim::sim {

namespace {

using platforms::Kind;

struct Ctx {
  const std::string& file;
  const std::function<std::optional<uint64_t>(const std::string&)>& value_of;

  [[noreturn]] void fail(const YAML::Node& n, const std::string& token, const std::string& why) const {
    throw InputError(file, n.Mark().line + 1, token, "topology: " + why, n.Mark().column + 1);
  }
  std::string text(const YAML::Node& n, const char* key) const {
    const YAML::Node v = n[key];
    if (!v) fail(n, key, fmt::format("'{}' is missing", key));
    if (!v.IsScalar() || v.Scalar().empty()) fail(v, key, fmt::format("'{}' must be a name", key));
    return v.Scalar();
  }
  uint64_t number(const YAML::Node& v, const std::string& key) const {
    if (!v.IsScalar()) fail(v, key, fmt::format("'{}' must be a number or a profile key", key));
    if (auto n = parse_size(v.Scalar())) return *n;
    if (auto n = value_of(v.Scalar())) return *n;
    fail(v, v.Scalar(), fmt::format("'{}' is neither a number nor a numeric profile key", key));
  }
  bool flag(const YAML::Node& v, const std::string& key) const {
    const std::string x = v.IsScalar() ? v.Scalar() : "";
    if (x == "true" || x == "yes" || x == "on") return true;
    if (x == "false" || x == "no" || x == "off") return false;
    fail(v, x, fmt::format("'{}' is true or false", key));
  }
  void only(const YAML::Node& n, const std::set<std::string>& keys, const char* what) const {
    if (!n.IsMap()) fail(n, what, fmt::format("each {} is a map", what));
    for (const auto& kv : n) {
      const std::string k = kv.first.as<std::string>();
      if (!keys.count(k)) {
        std::string list;
        for (const auto& x : keys) list += (list.empty() ? "" : ", ") + x;
        fail(kv.first, k, fmt::format("unknown {} key (known: {})", what, list));
      }
    }
  }
};

const char* default_config(Kind k) {
  switch (k) {
    case Kind::kCore: return "core";
    case Kind::kSram: return "dataram";
    case Kind::kHbm: return "hbm";
    case Kind::kTcdm: return "tcdm";
    case Kind::kDma: return "dma";
    case Kind::kInterconnect: return "interconnect";
  }
  return "";
}

template <class F>
void each(const Ctx& c, const YAML::Node& root, const char* key, F f) {
  const YAML::Node list = root[key];
  if (!list) return;
  if (!list.IsSequence()) c.fail(list, key, fmt::format("'{}' is a list", key));
  for (const auto& item : list) f(item);
}

}  // namespace

platforms::Topology parse_topology(const YAML::Node& node, const std::string& file,
                                   const std::function<std::optional<uint64_t>(const std::string&)>& value_of) {
  const Ctx c{file, value_of};
  c.only(node, {"name", "groups", "components", "bindings", "regions"}, "topology");
  platforms::Topology t;
  if (node["name"]) t.name = c.text(node, "name");
  std::map<std::string, uint32_t> groups;
  each(c, node, "groups", [&](const YAML::Node& g) {
    c.only(g, {"name", "count"}, "group");
    platforms::Group x{c.text(g, "name"), 1};
    if (g["count"]) x.count = static_cast<uint32_t>(c.number(g["count"], "count"));
    if (x.count == 0 || x.count > 1024) c.fail(g, x.name, "a group's count is 1 to 1024");
    groups[x.name] = x.count;
    t.groups.push_back(x);
  });
  std::set<std::string> names;  // patterns and instance names
  each(c, node, "components", [&](const YAML::Node& n) {
    c.only(n, {"kind", "name", "config", "count", "group", "inline"}, "component");
    platforms::Component x;
    const std::string kind = c.text(n, "kind");
    const auto k = platforms::parse_kind(kind);
    if (!k) c.fail(n["kind"], kind, "unknown kind (core, sram, hbm, tcdm, dma, interconnect)");
    x.kind = *k;
    x.name = c.text(n, "name");
    x.config = n["config"] ? c.text(n, "config") : default_config(x.kind);
    if (n["count"]) x.count = static_cast<uint32_t>(c.number(n["count"], "count"));
    if (x.count == 0 || x.count > 1024) c.fail(n, x.name, "a component's count is 1 to 1024");
    if (n["group"]) {
      x.group = c.text(n, "group");
      if (!groups.count(x.group)) c.fail(n["group"], x.group, "no such group (declare it under groups:)");
    }
    if (n["inline"]) {
      if (x.kind != Kind::kDma) c.fail(n["inline"], "inline", "only a dma component runs transfers inline");
      x.dma_inline = c.flag(n["inline"], "inline");
    }
    const uint32_t gc = x.group.empty() ? 1 : groups[x.group];
    names.insert(x.name);
    for (uint32_t g = 0; g < gc; ++g)
      for (uint32_t i = 0; i < x.count; ++i)
        if (!names.insert(platforms::instance_name(x.name, g, i)).second && x.count * gc > 1)
          c.fail(n, x.name, "two components would have the same name");
    t.components.push_back(x);
  });
  if (t.components.empty()) c.fail(node, "components", "a topology lists at least one component");
  auto known = [&](const YAML::Node& at, const std::string& name) {
    if (!names.count(name)) c.fail(at, name, "no component of that name (or pattern)");
  };
  each(c, node, "bindings", [&](const YAML::Node& b) {
    if (!b.IsScalar()) c.fail(b, "bindings", "a binding is \"initiator -> target\"");
    const std::string s = b.Scalar();
    const auto arrow = s.find("->");
    if (arrow == std::string::npos) c.fail(b, s, "a binding is \"initiator -> target\"");
    auto trim = [](std::string x) {
      while (!x.empty() && x.back() == ' ') x.pop_back();
      while (!x.empty() && x.front() == ' ') x.erase(0, 1);
      return x;
    };
    platforms::Binding x{trim(s.substr(0, arrow)), trim(s.substr(arrow + 2))};
    known(b, x.from);
    known(b, x.to);
    t.bindings.push_back(x);
  });
  each(c, node, "regions", [&](const YAML::Node& r) {
    c.only(r, {"on", "name", "to", "base", "size", "stride", "target_offset", "target_stride", "window"}, "region");
    platforms::Region x;
    x.on = c.text(r, "on");
    x.name = c.text(r, "name");
    x.to = c.text(r, "to");
    known(r["on"], x.on);
    known(r["to"], x.to);
    if (r["base"]) x.base = c.number(r["base"], "base");
    if (r["size"]) x.size = c.number(r["size"], "size");
    if (r["stride"]) x.stride = c.number(r["stride"], "stride");
    if (r["target_offset"]) x.target_offset = c.number(r["target_offset"], "target_offset");
    if (r["target_stride"]) x.target_stride = c.number(r["target_stride"], "target_stride");
    if (r["window"]) x.window = c.flag(r["window"], "window");
    t.regions.push_back(x);
  });
  return t;
}

}  // namespace npusim::sim
