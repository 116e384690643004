#include "sim/input/yaml_input.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <vector>

#include "sim/input/limits.h"

#include "sim/input/input_error.h"

namespace npusim::sim {

Where YamlInput::at(const YAML::Node& n) const {
  const auto m = n.Mark();
  return Where{file_, m.line + 1, m.column + 1};
}

void YamlInput::fail(const YAML::Node& n, const std::string& why) const {
  const auto w = at(n);
  std::string token;
  if (n.IsScalar()) token = n.Scalar();
  else if (n.IsMap()) token = "{...}";
  else if (n.IsSequence()) token = "[...]";
  throw InputError(w.file, w.line, token, why, w.column);
}

std::string YamlInput::str(const YAML::Node& n, const char* what) const {
  if (!n.IsScalar()) fail(n, fmt::format("{} must be a single value", what));
  return n.Scalar();
}

void YamlInput::keys(const YAML::Node& m, std::initializer_list<const char*> allowed,
                     std::initializer_list<const char*> required, const char* what) const {
  if (!m.IsMap()) fail(m, fmt::format("{} takes a map", what));
  std::set<std::string> ok(allowed.begin(), allowed.end());
  for (const auto& kv : m) {
    const std::string k = kv.first.as<std::string>();
    if (!ok.count(k)) {
      std::string list;
      for (const char* a : allowed) list += std::string(list.empty() ? "" : ", ") + a;
      fail(kv.first, fmt::format("unknown key '{}' in {} (expected {})", k, what, list));
    }
  }
  for (const char* r : required)
    if (!m[r]) fail(m, fmt::format("{} needs '{}'", what, r));
}

YAML::Node load_yaml(const std::string& text, const std::string& file) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw InputError(file, e.mark.line + 1, "", "YAML syntax: " + e.msg, e.mark.column + 1);
  }
  // Walk the document as a reader of it would, each alias at every use, with an explicit
  // stack (no recursion) and at most limits().yaml_nodes visits.
  const uint64_t cap = limits().yaml_nodes;
  uint64_t visited = 0;
  std::vector<YAML::Node> todo{root};
  auto place = [&file](const YAML::Node& n, const std::string& tok, const std::string& why) {
    const auto m = n.Mark();
    return InputError(file, m.line + 1, tok, why, m.column + 1);
  };
  while (!todo.empty()) {
    const YAML::Node n = todo.back();
    todo.pop_back();
    if (++visited > cap)
      throw place(n, n.IsScalar() ? n.Scalar() : n.Tag(),
                  fmt::format("the document has more than {} YAML nodes once its aliases are "
                              "expanded (limit yaml_nodes; an alias bomb?)", cap));
    if (n.IsSequence()) {
      for (const auto& c : n) todo.push_back(c);
    } else if (n.IsMap()) {
      std::set<std::string> seen;
      for (const auto& kv : n) {
        if (!kv.first.IsScalar())
          throw place(kv.first, kv.first.IsNull() ? "?" : kv.first.Tag(),
                      "a map key is a plain word; this one is empty, a map or a list");
        if (!seen.insert(kv.first.Scalar()).second)
          throw place(kv.first, kv.first.Scalar(), "duplicate key in one map (each key once)");
        todo.push_back(kv.first);
        todo.push_back(kv.second);
      }
    }
  }
  return root;
}

YAML::Node YamlInput::root(const std::string& text) const {
  const YAML::Node root = load_yaml(text, file_);
  if (!root.IsMap()) {
    if (!root.IsDefined() || root.IsNull())
      throw InputError(file_, 1, "", "the scenario is empty", 1);
    fail(root, "a scenario is a map (name, platform, program, expect, ...)");
  }
  return root;
}

void YamlInput::header(const YAML::Node& root, ScenarioHead& h) const {
  if (root["name"]) h.name = str(root["name"], "name");
  if (root["description"]) h.description = str(root["description"], "description");
  if (root["platform"]) {
    h.platform = str(root["platform"], "platform");
    h.platform_at = at(root["platform"]);
  }
  if (const auto set = root["set"]) {
    if (!set.IsMap()) fail(set, "set takes a map of section.key: value");
    for (const auto& kv : set) {
      // (A key without its value is not "the default": it names the key.)
      if (!kv.second.IsScalar())
        fail(kv.first, fmt::format("set: {} takes one value{}", kv.first.as<std::string>(),
                                   kv.second.IsNull() ? ", and has none" : ", not a list or a map"));
      h.set.emplace_back(kv.first.as<std::string>(), str(kv.second, "value"), at(kv.first));
    }
  }
}

std::vector<Expectation> YamlInput::expectations(const YAML::Node& ex) const {
  if (!ex.IsMap()) fail(ex, "expect takes a map of key: condition");
  std::vector<Expectation> out;
  for (const auto& kv : ex) {
    Expectation e;
    e.key = kv.first.as<std::string>();
    e.at = at(kv.first);
    e.text = str(kv.second, "expectation");
    std::string t = e.text;
    e.op = "==";
    for (const char* o : {"<=", ">=", "==", "!=", "<", ">"}) {
      if (t.rfind(o, 0) == 0) {
        e.op = o;
        t = t.substr(std::char_traits<char>::length(o));
        break;
      }
    }
    while (!t.empty() && t.front() == ' ') t.erase(t.begin());
    if (auto sz = parse_size(t)) {
      e.value = static_cast<double>(*sz);
      if (!t.empty() && std::isalpha(static_cast<unsigned char>(t.back()))) e.unit = Expectation::Unit::kBytes;
    } else if (auto d = parse_duration_ns(t);
               d && !t.empty() && std::isalpha(static_cast<unsigned char>(t.back()))) {
      e.value = *d;
      e.unit = Expectation::Unit::kNs;
    } else if (t == "true" || t == "false") {
      e.value = t == "true";
    } else {
      char* end = nullptr;
      e.value = std::strtod(t.c_str(), &end);
      if (t.empty() || end != t.c_str() + t.size())
        fail(kv.second, "expected a condition such as \"<= 8KiB\", \"== 0\", \"< 2ms\"");
    }
    // A unit must be the key's own: an energy is compared in pJ (a power in mW), a time is not
    // a size, a size not a time.
    auto has = [&e](const char* part) { return e.key.find(part) != std::string::npos; };
    const bool energy = e.key.rfind("energy.", 0) == 0;
    const bool time = e.key == "duration" || has("_ns") || e.key.rfind("time.", 0) == 0;
    const bool bytes = has("bytes") || has("peak_used") || has("largest_free") || has("high_water");
    if (energy && e.unit != Expectation::Unit::kNone)
      fail(kv.second, fmt::format("{} is {}: compare it with a plain number, without a {} unit", e.key,
                                  has("power") ? "a power in mW" : "an energy in pJ",
                                  e.unit == Expectation::Unit::kNs ? "time" : "size"));
    if (time && e.unit == Expectation::Unit::kBytes)
      fail(kv.second, fmt::format("{} is a time: give it a time unit (ns, us, ms, s), not a size", e.key));
    if (bytes && e.unit == Expectation::Unit::kNs)
      fail(kv.second, fmt::format("{} is a size in bytes: give it a size unit (B, KiB, MiB, GiB), not a time", e.key));
    out.push_back(e);
  }
  return out;
}

std::string Expectation::describe() const {
  std::string rest = text;
  if (rest.rfind(op, 0) == 0) rest = rest.substr(op.size());
  while (!rest.empty() && rest.front() == ' ') rest.erase(rest.begin());
  return fmt::format("{} {} {}", key, op, rest);
}

std::string Expectation::show(double actual) const {
  if (unit == Unit::kNs) {
    const double a = std::abs(actual);
    if (a >= 1e9) return fmt::format("{:.6g} s", actual / 1e9);
    if (a >= 1e6) return fmt::format("{:.6g} ms", actual / 1e6);
    if (a >= 1e3) return fmt::format("{:.6g} us", actual / 1e3);
    return fmt::format("{:.6g} ns", actual);
  }
  if (unit == Unit::kBytes) return fmt::format("{:.15g} B", actual);
  return fmt::format("{:.10g}", actual);
}

bool Expectation::holds(double actual) const {
  if (op == "<=") return actual <= value;
  if (op == ">=") return actual >= value;
  if (op == "<") return actual < value;
  if (op == ">") return actual > value;
  if (op == "!=") return actual != value;
  return actual == value;
}

Limits& limits() {
  static Limits l;
  return l;
}

void set_limit(const std::string& setting) {
  const auto eq = setting.find('=');
  const std::string key = setting.substr(0, eq);
  Limits& l = limits();
  uint64_t* v = key == "yaml_nodes" ? &l.yaml_nodes
                : key == "steps"    ? &l.steps
                : key == "loop_trips" ? &l.loop_trips
                : key == "host_bytes" ? &l.host_bytes
                : key == "dma_rows" ? &l.dma_rows
                : key == "stream_elements" ? &l.stream_elements
                : key == "input_bytes" ? &l.input_bytes
                                      : nullptr;
  if (v == nullptr || eq == std::string::npos)
    throw InputError("--limit", 0, setting,
                     "expected KEY=N with KEY one of yaml_nodes, steps, loop_trips, host_bytes, dma_rows, "
                     "stream_elements, input_bytes");
  const auto n = parse_size(setting.substr(eq + 1));
  if (!n || *n == 0) throw InputError("--limit", 0, setting, "the limit must be a positive size");
  *v = *n;
}

std::string input_file_problem(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return "does not exist";
    return fmt::format("cannot be read: {}", std::strerror(errno));
  }
  if (S_ISDIR(st.st_mode)) return "is a directory, not a file";
  if (::access(path.c_str(), R_OK) != 0) return fmt::format("cannot be read: {}", std::strerror(errno));
  return {};
}

std::string read_input_file(const std::string& path, const char* what) {
  if (const std::string why = input_file_problem(path); !why.empty())
    throw InputError(path, 0, path, fmt::format("the {} file {}", what, why));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, path, fmt::format("cannot open the {} file: {}", what, std::strerror(errno)));
  // Read in pieces up to the limit: a device or a FIFO that never ends (/dev/zero) is an error,
  // not an exhausted memory.
  const uint64_t cap = limits().input_bytes;
  std::string text;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, static_cast<size_t>(in.gcount()));
    if (text.size() > cap)
      throw InputError(path, 0, path,
                       fmt::format("the {} file is larger than {} bytes (--limit input_bytes=N)", what, cap));
  }
  if (in.bad()) throw InputError(path, 0, path, fmt::format("cannot read the {} file: {}", what, std::strerror(errno)));
  return text;
}

void YamlInput::binary_keys(const YAML::Node& m, std::string& elf, std::vector<std::string>& args,
                            uint64_t& max_cycles, Where& where) const {
  where = at(m["elf"]);
  elf = str(m["elf"], "elf");
  if (elf.empty()) fail(m["elf"], "elf names the program file");
  if (elf[0] != '/' && !file_.empty()) {
    const auto slash = file_.find_last_of('/');
    if (slash != std::string::npos) elf = file_.substr(0, slash + 1) + elf;
  }
  if (const auto a = m["args"]) {
    if (!a.IsSequence()) fail(a, "args takes a list of strings");
    for (const auto& e : a) args.push_back(str(e, "an argument"));
  }
  max_cycles = 0;
  if (const auto mc = m["max_cycles"]) {
    const auto n = parse_size(str(mc, "max_cycles"));
    if (!n || *n == 0 || *n > (uint64_t{1} << 40)) fail(mc, "max_cycles takes a cycle count from 1 to 2^40");
    max_cycles = *n;
  }
}

}  // namespace npusim::sim
