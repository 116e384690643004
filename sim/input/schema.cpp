#include "sim/input/schema.h"

#include <map>

namespace npusim::sim {

using nlohmann::ordered_json;

namespace {

constexpr const char* kDraft = "http://json-schema.org/draft-07/schema#";
// parse_size: decimal with an optional suffix, or 0x-hex.
constexpr const char* kSizePattern =
    "^ *(0[xX][0-9a-fA-F]+|[0-9]+ *(KiB|MiB|GiB|K|M|G|B)?) *$";
constexpr const char* kDurationPattern =
    "^ *[0-9]*\\.?[0-9]+([eE][-+]?[0-9]+)? *(ps|ns|us|ms|s)? *$";
constexpr const char* kConditionPattern = "^ *(<=|>=|==|!=|<|>)? *[^ ]";

bool is_integer_text(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

std::string alternation(const std::vector<std::string>& choices) {
  std::string s;
  for (const auto& c : choices) s += (s.empty() ? "" : "|") + c;
  return "(" + s + ")";
}

ordered_json one(const ValueSpec& v) {
  switch (v.kind) {
    case ValueKind::kText:
      return {{"type", ordered_json::array({"string", "number", "boolean"})}};
    case ValueKind::kName:
      return {{"type", "string"}, {"pattern", "^[A-Za-z_][A-Za-z0-9_.]*$"}};
    case ValueKind::kIdent:
      return {{"type", "string"}, {"pattern", "^[A-Za-z_][A-Za-z0-9_]*$"}};
    case ValueKind::kSize: {
      ordered_json n = {{"type", "integer"}, {"minimum", v.lo}};
      if (v.hi != UINT64_MAX) n["maximum"] = v.hi;
      return {{"anyOf", ordered_json::array({n, {{"type", "string"}, {"pattern", kSizePattern}}})}};
    }
    case ValueKind::kBool:
      return {{"anyOf", ordered_json::array(
                            {{{"type", "boolean"}},
                             {{"enum", ordered_json::array({"true", "false", "yes", "no", "on", "off"})}}})}};
    case ValueKind::kChoice: {
      ordered_json e = ordered_json::array();
      for (const auto& c : v.choices) e.push_back(c);
      // YAML reads a bare 0 as a number: accept the number wherever its text is a choice.
      for (const auto& c : v.choices)
        if (is_integer_text(c)) e.push_back(std::stoll(c));
      return {{"enum", e}};
    }
    case ValueKind::kChoiceList: {
      const std::string a = alternation(v.choices);
      return {{"type", "string"}, {"pattern", "^ *" + a + "( *, *" + a + ")* *$"}};
    }
    case ValueKind::kNumber: {
      ordered_json n = {{"type", "number"}};
      if (v.positive) n["exclusiveMinimum"] = 0;
      if (v.non_negative) n["minimum"] = 0;
      if (v.max > 0) n["maximum"] = v.max;
      return n;
    }
    case ValueKind::kDuration:
      return {{"anyOf", ordered_json::array({{{"type", "number"}, {"minimum", 0}},
                                             {{"type", "string"}, {"pattern", kDurationPattern}}})}};
    case ValueKind::kAddr:
      return {{"anyOf", ordered_json::array({{{"type", "integer"}, {"minimum", 0}},
                                             {{"type", "string"}, {"minLength", 1}}})}};
    case ValueKind::kExpr:
      return {{"anyOf", ordered_json::array({{{"type", "integer"}}, {{"type", "string"}, {"minLength", 1}}})}};
    case ValueKind::kCondition:
      return {{"anyOf", ordered_json::array({{{"type", "number"}},
                                             {{"type", "boolean"}},
                                             {{"type", "string"}, {"pattern", kConditionPattern}}})}};
    case ValueKind::kSteps:
      return {{"$ref", "#/definitions/steps"}};
    case ValueKind::kMap: {
      ordered_json props = ordered_json::object();
      ordered_json req = ordered_json::array();
      for (const auto& k : v.map->keys) {
        ordered_json p;
        if (k.forms.size() == 1) {
          p = value_schema(k.forms[0]);
        } else {
          p["anyOf"] = ordered_json::array();
          for (const auto& f : k.forms) p["anyOf"].push_back(value_schema(f));
        }
        if (!k.doc.empty()) p["description"] = k.doc;
        props[k.name] = p;
        if (k.required) req.push_back(k.name);
      }
      ordered_json m = {{"type", "object"}, {"properties", props}, {"additionalProperties", false}};
      if (!req.empty()) m["required"] = req;
      return m;
    }
    case ValueKind::kValueMap: {
      ValueSpec e;
      e.kind = v.element;
      ordered_json m = {{"type", "object"}, {"additionalProperties", value_schema(e)}};
      if (v.key_pattern) m["propertyNames"] = {{"pattern", v.key_pattern}};
      return m;
    }
  }
  return ordered_json::object();
}

// The propertyNames of `set:`: every profile key; "section.#.key" is a list index.
ordered_json profile_key_names(const std::vector<ProfileKey>& keys) {
  ordered_json names = ordered_json::array();
  std::map<std::string, std::vector<std::string>> lists;  // section -> fields
  for (const auto& k : keys) {
    const auto hash = k.key.find(".#.");
    if (hash == std::string::npos) names.push_back(k.key);
    else lists[k.key.substr(0, hash)].push_back(k.key.substr(hash + 3));
  }
  ordered_json any = ordered_json::array({{{"enum", names}}});
  for (const auto& [section, fields] : lists)
    any.push_back({{"pattern", "^" + section + "\\.[0-9]+\\." + alternation(fields) + "$"}});
  return {{"anyOf", any}};
}

}  // namespace

ordered_json value_schema(const ValueSpec& v) {
  const ordered_json s = one(v);
  if (v.many == ValueSpec::kOne) return s;
  ordered_json l = {{"type", "array"}, {"items", s}};
  if (v.min_items) l["minItems"] = v.min_items;
  if (v.max_items) l["maxItems"] = v.max_items;
  return l;
}

ordered_json scenario_schema(const Dialect& d, const std::vector<ProfileKey>& profile) {
  ValueSpec root;
  root.kind = ValueKind::kMap;
  root.map = d.root;
  ordered_json s = {{"$schema", kDraft},
                    {"title", "npusim " + d.platform + " scenario"},
                    {"description", "Generated by `npusim schema` from the parser's key tables "
                                    "(sim/input/key_tables.cpp); do not edit."}};
  ordered_json body = value_schema(root);
  for (const auto& k : d.root->keys)
    if (k.forms.size() == 1 && k.forms[0].profile_keys)
      body["properties"][k.name]["propertyNames"] = profile_key_names(profile);
  for (auto it = body.begin(); it != body.end(); ++it) s[it.key()] = it.value();

  ordered_json steps = ordered_json::array();
  ordered_json bare = ordered_json::array();
  for (const auto& k : d.steps->keys) {
    ordered_json arg;
    std::vector<ordered_json> forms;
    for (const auto& f : k.forms) forms.push_back(value_schema(f));
    if (k.bare) forms.push_back({{"type", "null"}});
    if (forms.size() == 1) {
      arg = forms[0];
    } else {
      arg["anyOf"] = forms;
    }
    if (!k.doc.empty()) arg["description"] = k.doc;
    steps.push_back({{"type", "object"},
                     {"properties", {{k.name, arg}}},
                     {"required", ordered_json::array({k.name})},
                     {"additionalProperties", false}});
    if (k.bare) bare.push_back(k.name);
  }
  if (!bare.empty()) steps.push_back({{"enum", bare}});
  s["definitions"] = {{"step", {{"anyOf", steps}}},
                      {"steps", {{"type", "array"}, {"items", {{"$ref", "#/definitions/step"}}}}}};
  return s;
}

ordered_json profile_schema(const std::string& platform, const std::vector<ProfileKey>& keys,
                            const ordered_json& extra) {
  ordered_json props = {{"platform", {{"const", platform}}}};
  for (const auto& k : keys) {
    const auto dot = k.key.find('.');
    const std::string section = k.key.substr(0, dot);
    const std::string rest = k.key.substr(dot + 1);
    if (rest.rfind("#.", 0) == 0) {  // a list of maps: windows.#.lo
      auto& sec = props[section];
      if (sec.is_null())
        sec = {{"type", "array"},
               {"items", {{"type", "object"}, {"properties", ordered_json::object()},
                          {"additionalProperties", false}}}};
      sec["items"]["properties"][rest.substr(2)] = value_schema(k.value);
    } else {
      // section.key, or deeper (kernel_cost.cycles.int): one nested object per level.
      ordered_json* sec = &props[section];
      std::string tail = rest;
      for (;;) {
        if (sec->is_null())
          *sec = {{"type", "object"}, {"properties", ordered_json::object()},
                  {"additionalProperties", false}};
        const auto d = tail.find('.');
        if (d == std::string::npos) break;
        sec = &(*sec)["properties"][tail.substr(0, d)];
        tail = tail.substr(d + 1);
      }
      (*sec)["properties"][tail] = value_schema(k.value);
    }
  }
  for (auto it = extra.begin(); it != extra.end(); ++it) props[it.key()] = it.value();
  return {{"$schema", kDraft},
          {"title", "npusim " + platform + " platform profile"},
          {"description", "Generated by `npusim schema` from the profile loader's key tables; "
                          "do not edit. Checks across keys (e.g. a window's lo below its hi) "
                          "are the loader's."},
          {"type", "object"},
          {"properties", props},
          {"additionalProperties", false}};
}

}  // namespace npusim::sim
