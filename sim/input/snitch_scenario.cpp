#include "sim/input/snitch_scenario.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>
#include <sstream>

#include "sim/input/input_error.h"
#include "sim/input/key_tables.h"
#include "sim/input/limits.h"
#include "sim/input/snitch_expr.h"
#include "sim/input/yaml_input.h"

namespace npusim::sim::snitch {

namespace {

class Parser : public YamlInput {
 public:
  explicit Parser(std::string file) : YamlInput(std::move(file)) {}

  // The key tables of this dialect (key_tables.cpp).
  static const MapSpec& steps_spec() { return *snitch_dialect().steps; }
  static const MapSpec& step_map(const char* step, size_t form = 0) {
    return *steps_spec().key(step).forms.at(form).map;
  }
  static const MapSpec& root_map(const char* k) { return *snitch_dialect().root->value(k).map; }

  // The names and expressions of the steps (snitch_expr.cpp).
  uint32_t binding(const YAML::Node& n, const char* what) { return exprs_.binding(n, what); }
  void mark_bound(uint32_t s) { exprs_.mark_bound(s); }
  Expr expr(const YAML::Node& n, const char* what) { return exprs_.compile(n, what); }
  // A constant count above its limit is an error before anything runs (a computed one is
  // checked when the step runs: sim/run/snitch_exec.cpp).
  void check_count(const YAML::Node& n, const Expr& e, uint64_t limit, const char* what, const char* key) {
    if (e.present && e.constant() && e.ops[0].imm > limit)
      fail(n, fmt::format("{} {} is more than the limit of {} (--limit {}=N)", what, e.ops[0].imm, limit, key));
  }

  // --- steps ---
  std::vector<Step> steps(const YAML::Node& n, int depth) {
    if (depth > 32) fail(n, "steps nested more than 32 deep");
    if (!n.IsSequence()) fail(n, "a program is a list of steps");
    std::vector<Step> v;
    for (const auto& item : n) v.push_back(step(item, depth));
    return v;
  }

  void alloc_fields(Step& s, const YAML::Node& m, const char* what) {
    check_keys(*this, m, step_map(what), what);
    s.a = expr(m["size"], "size");
    if (m["align"]) s.b = expr(m["align"], "align");
    s.as = binding(m["as"], "as");
    mark_bound(s.as);
  }
  void access_fields(Step& s, const YAML::Node& m) {
    if (m["count"]) s.count = expr(m["count"], "count");
    if (m["stride"]) s.stride = expr(m["stride"], "stride");
    if (m["bytes"]) s.bytes = expr(m["bytes"], "bytes");
    if (m["value"]) s.value = expr(m["value"], "value");
    check_count(m["count"], s.count, limits().stream_elements, "count", "stream_elements");
  }
  std::vector<Expr> addr_list(const YAML::Node& n, const char* what) {
    std::vector<Expr> v;
    if (n.IsSequence()) {
      if (n.size() == 0 || n.size() > 8) fail(n, fmt::format("{} takes 1 to 8 addresses", what));
      for (const auto& x : n) v.push_back(expr(x, what));
    } else {
      v.push_back(expr(n, what));
    }
    return v;
  }

  Step step(const YAML::Node& item, int depth) {
    Step s{};
    s.at = at(item);
    std::string name;
    YAML::Node arg;
    if (item.IsScalar()) {
      name = item.Scalar();
    } else if (item.IsMap() && item.size() == 1) {
      name = item.begin()->first.as<std::string>();
      arg = item.begin()->second;
      s.at = at(item.begin()->first);
    } else {
      fail(item, "a step is a map with one key (the step's name) or a bare step name");
    }
    s.text = name;
    auto need = [&](const char* what) {
      if (!arg.IsDefined() || arg.IsNull()) fail(item, fmt::format("{} needs an argument", what));
    };
    if (name == "l1_alloc") {
      need("l1_alloc"), s.kind = Step::kL1Alloc, alloc_fields(s, arg, "l1_alloc");
    } else if (name == "l1_alloc_core_local") {
      need("l1_alloc_core_local"), s.kind = Step::kL1AllocLocal, alloc_fields(s, arg, "l1_alloc_core_local");
    } else if (name == "l3_alloc") {
      need("l3_alloc"), s.kind = Step::kL3Alloc, alloc_fields(s, arg, "l3_alloc");
    } else if (name == "l1_update_next") {
      need("l1_update_next");
      s.kind = Step::kUpdateNext;
      s.a = expr(arg, "l1_update_next");
    } else if (name == "l1_next") {
      need("l1_next");
      s.kind = Step::kL1Next;
      s.as = binding(arg, "l1_next");
      mark_bound(s.as);
    } else if (name == "let") {
      need("let");
      s.kind = Step::kLet;
      if (!arg.IsMap()) fail(arg, "let takes a map of name: expression");
      for (const auto& kv : arg) {
        Expr e = expr(kv.second, "let");
        const uint32_t slot = binding(kv.first, "let");
        mark_bound(slot);
        s.lets.emplace_back(slot, std::move(e));
      }
    } else if (name == "remote_l1_ptr") {
      need("remote_l1_ptr");
      s.kind = Step::kRemotePtr;
      check_keys(*this, arg, step_map("remote_l1_ptr"));
      s.a = expr(arg["ptr"], "ptr");
      if (arg["src"]) s.b = expr(arg["src"], "src");
      s.c = expr(arg["dst"], "dst");
      s.as = binding(arg["as"], "as");
      mark_bound(s.as);
    } else if (name == "core_local_ptr") {
      need("core_local_ptr");
      s.kind = Step::kCoreLocalPtr;
      check_keys(*this, arg, step_map("core_local_ptr"));
      s.a = expr(arg["ptr"], "ptr");
      s.b = expr(arg["core"], "core");
      s.c = expr(arg["size"], "size");
      s.as = binding(arg["as"], "as");
      mark_bound(s.as);
    } else if (name == "stream") {
      need("stream");
      s.kind = Step::kStream;
      check_keys(*this, arg, step_map("stream"));
      if (!arg["load"] && !arg["store"]) fail(arg, "stream needs load, store or both");
      if (arg["load"]) s.loads = addr_list(arg["load"], "load");
      if (arg["store"]) s.stores = addr_list(arg["store"], "store");
      access_fields(s, arg);
      if (arg["compute"]) s.compute = expr(arg["compute"], "compute");
    } else if (name == "load" || name == "store") {
      need(name.c_str());
      s.kind = Step::kStream;
      if (arg.IsScalar()) {
        (name == "load" ? s.loads : s.stores).push_back(expr(arg, "addr"));
      } else {
        check_keys(*this, arg, step_map(name.c_str(), 1), name.c_str());
        (name == "load" ? s.loads : s.stores).push_back(expr(arg["addr"], "addr"));
        access_fields(s, arg);
        if (name == "load" && s.value.present) fail(arg["value"], "a load has no value (use check)");
      }
    } else if (name == "check") {
      need("check");
      s.kind = Step::kCheck;
      check_keys(*this, arg, step_map("check"));
      s.a = expr(arg["addr"], "addr");
      access_fields(s, arg);
    } else if (name == "compute") {
      need("compute");
      s.kind = Step::kCompute;
      s.a = expr(arg, "compute");
    } else if (name == "barrier") {
      s.kind = Step::kBarrier;
      if (arg.IsDefined() && !arg.IsNull()) {
        const std::string k = check_choice(*this, arg, steps_spec().value("barrier"), "barrier");
        s.global = k == "global";
      }
    } else if (name == "dma") {
      need("dma");
      s.kind = Step::kDma;
      check_keys(*this, arg, step_map("dma"));
      s.a = expr(arg["src"], "src");
      s.b = expr(arg["dst"], "dst");
      s.c = expr(arg["bytes"], "bytes");
      if (arg["rows"]) s.count = expr(arg["rows"], "rows");
      check_count(arg["rows"], s.count, limits().dma_rows, "rows", "dma_rows");
      if (arg["src_stride"]) s.stride = expr(arg["src_stride"], "src_stride");
      if (arg["dst_stride"]) s.d = expr(arg["dst_stride"], "dst_stride");
    } else if (name == "dma_wait") {
      s.kind = Step::kDmaWait;
      if (arg.IsDefined() && !arg.IsNull()) fail(arg, "dma_wait takes no argument");
    } else if (name == "loop") {
      need("loop");
      s.kind = Step::kLoop;
      check_keys(*this, arg, step_map("loop"));
      s.count = expr(arg["count"], "count");
      if (arg["var"]) {
        s.as = binding(arg["var"], "var");
        s.has_var = true;
        mark_bound(s.as);
      }
      s.body = steps(arg["body"], depth + 1);
    } else if (name == "when") {
      need("when");
      s.kind = Step::kWhen;
      check_keys(*this, arg, step_map("when"));
      s.a = expr(arg["if"], "if");
      if (arg["then"]) s.body = steps(arg["then"], depth + 1);
      if (arg["else"]) s.other = steps(arg["else"], depth + 1);
    } else if (name == "marker") {
      need("marker");
      s.kind = Step::kMarker;
      s.text = str(arg, "marker");
    } else if (name == "wait") {
      need("wait");
      s.kind = Step::kWait;
      auto d = parse_duration_ns(str(arg, "wait"));
      if (!d) fail(arg, "wait takes a duration (ns, us, ms)");
      s.wait_ns = *d;
    } else {
      fail(item.IsMap() ? item.begin()->first : item,
           fmt::format("unknown step '{}' (snitch-cluster steps: {})", name, steps_spec().names()));
    }
    return s;
  }

  Scenario scenario(const std::string& text) {
    const YAML::Node root = this->root(text);
    Scenario sc;
    sc.file = file_;
    check_keys(*this, root, *snitch_dialect().root);
    header(root, sc);
    if (const auto p = root["policies"]) {
      const MapSpec& spec = root_map("policies");
      check_keys(*this, p, spec);
      if (p["on_trap"]) sc.on_trap = check_choice(*this, p["on_trap"], spec.value("on_trap"), "on_trap");
    }
    if (const auto b = root["binary"]) {
      if (root["program"] || root["cores"])
        fail(b, "a scenario runs either steps (program, cores) or binaries, not both");
      auto one = [&](const YAML::Node& m) {
        const MapSpec& spec = *snitch_dialect().root->key("binary").forms.at(0).map;
        check_keys(*this, m, spec);
        Binary bin;
        binary_keys(m, bin.elf, bin.args, bin.max_cycles, bin.at);
        if (m["on"]) bin.on = str(m["on"], "on");
        sc.binaries.push_back(std::move(bin));
      };
      if (b.IsSequence()) {
        if (b.size() == 0) fail(b, "binary takes a map or a non-empty list of maps");
        for (const auto& e : b) one(e);
      } else {
        one(b);
      }
      if (const auto o = root["output"]) {
        if (!o.IsSequence()) fail(o, "output takes a list of lines the programs must print");
        for (const auto& e : o) sc.output.emplace_back(str(e, "an output line"), at(e));
      }
      if (const auto mem = root["memory"]) {
        if (!mem.IsSequence() || mem.size() == 0) fail(mem, "memory takes a list of {at: SYMBOL|ADDRESS, TYPE: [values]}");
        const MapSpec& spec = *snitch_dialect().root->key("memory").forms.at(0).map;
        for (const auto& m : mem) {
          check_keys(*this, m, spec);
          MemoryCheck c;
          c.where = at(m);
          c.at = str(m["at"], "at");
          for (const char* t : {"u8", "u32", "i32", "u64", "f32", "f64"})
            if (m[t]) {
              if (!c.type.empty()) fail(m[t], "a memory check has one type (u8, u32, i32, u64, f32 or f64)");
              c.type = t;
              if (!m[t].IsSequence() || m[t].size() == 0) fail(m[t], std::string(t) + " takes a non-empty list of values");
              if (m[t].size() > (1u << 20)) fail(m[t], "at most 1048576 values per memory check");
              for (const auto& e : m[t]) c.values.push_back(str(e, "a value"));
            }
          if (c.type.empty()) fail(m, "a memory check needs the values' type: u8, u32, i32, u64, f32 or f64");
          sc.memory.push_back(std::move(c));
        }
      }
      if (const auto ex = root["expect"]) sc.expect = expectations(ex);
      sc.slots = exprs_.slots();  // the built-in names (core, cluster, ...) every core binds
      return sc;
    }
    if (root["output"]) fail(root["output"], "output is for binaries: steps print nothing");
    if (root["memory"]) fail(root["memory"], "memory checks are for binaries (steps have check:)");
    if (!root["program"] && !root["cores"]) fail(root, "a scenario needs a program, cores or a binary");
    const std::set<uint32_t> builtins = [] {
      std::set<uint32_t> b;
      for (uint32_t i = 0; i < kBuiltinCount; ++i) b.insert(i);
      return b;
    }();
    exprs_.set_bound(builtins);
    if (root["program"]) sc.program = steps(root["program"], 0);
    const std::set<uint32_t> after_program = exprs_.bound();
    if (const auto cores = root["cores"]) {
      if (!cores.IsMap()) fail(cores, "cores takes a map of selector: steps (compute, dm or a core index)");
      for (const auto& kv : cores) {
        const std::string sel = kv.first.as<std::string>();
        const bool index = !sel.empty() && std::all_of(sel.begin(), sel.end(), [](char ch) {
          return std::isdigit(static_cast<unsigned char>(ch));
        });
        if ((sel != "compute" && sel != "dm" && !index) || (index && sel.size() > 4))
          fail(kv.first, "a cores selector is compute, dm or a core index");
        exprs_.set_bound(after_program);  // every per-core program sees the names of `program`
        sc.cores[sel] = steps(kv.second, 0);
      }
    }
    if (const auto ex = root["expect"]) sc.expect = expectations(ex);
    sc.slots = exprs_.slots();
    return sc;
  }

 private:
  ExprCompiler exprs_{*this};
};

}  // namespace

std::string platform_of(const std::string& text) {
  try {
    const YAML::Node root = YAML::Load(text);
    if (root.IsMap() && root["platform"] && root["platform"].IsScalar()) return root["platform"].Scalar();
  } catch (const YAML::Exception&) {
  }
  return {};
}

Scenario parse(const std::string& text, const std::string& file) {
  Parser p(file);
  try {
    return p.scenario(text);
  } catch (const YAML::Exception& e) {
    throw InputError(file, e.mark.line + 1, "", "malformed scenario: " + e.msg, e.mark.column + 1);
  }
}

Scenario load_file(const std::string& path) {
  return parse(read_input_file(path, "scenario"), path);
}

}  // namespace npusim::sim::snitch
