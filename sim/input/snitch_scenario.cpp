#include "sim/input/snitch_scenario.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>
#include <sstream>

#include "sim/tools/heap_replay.h"
#include "sim/input/key_tables.h"
#include "sim/input/limits.h"
#include "sim/input/yaml_input.h"

namespace npusim::sim::snitch {

namespace {

const char* const kBuiltinNames[kBuiltinCount] = {
    "core", "cluster", "compute_cores", "clusters", "is_dm", "core_num",
    "tcdm_base", "l1_end", "l3_end", "cluster_offset"};

class Parser : public YamlInput {
 public:
  explicit Parser(std::string file) : YamlInput(std::move(file)) {
    for (const char* n : kBuiltinNames) bind(n);
  }

  // The key tables of this dialect (key_tables.cpp).
  static const MapSpec& steps_spec() { return *snitch_dialect().steps; }
  static const MapSpec& step_map(const char* step, size_t form = 0) {
    return *steps_spec().key(step).forms.at(form).map;
  }
  static const MapSpec& root_map(const char* k) { return *snitch_dialect().root->value(k).map; }

  static bool valid_name(const std::string& s) {
    if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
    return std::all_of(s.begin(), s.end(),
                       [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
  }
  uint32_t bind(const std::string& name) {
    const auto it = slot_of_.find(name);
    if (it != slot_of_.end()) return it->second;
    const uint32_t s = static_cast<uint32_t>(slots_.size());
    slots_.push_back(name);
    slot_of_[name] = s;
    return s;
  }
  uint32_t binding(const YAML::Node& n, const char* what) {
    const std::string s = str(n, what);
    if (!valid_name(s)) fail(n, fmt::format("{}: '{}' is not a name", what, s));
    if (std::find(std::begin(kBuiltinNames), std::end(kBuiltinNames), s) != std::end(kBuiltinNames))
      fail(n, fmt::format("{}: '{}' is a built-in variable", what, s));
    return bind(s);
  }

  // --- expressions: || && (== != < <= > >=) (+ -) (* / %) unary(- !) primary ---
  Expr expr(const YAML::Node& n, const char* what) {
    Expr e;
    e.present = true;
    e.at = at(n);
    e.text = str(n, what);
    node_ = &n;
    what_ = what;
    src_ = e.text;
    pos_ = 0;
    nest_ = 0;
    or_expr(e);
    if (e.ops.size() > 64) efail("longer than 64 operands and operators");
    skip();
    if (pos_ != src_.size()) efail(fmt::format("unexpected '{}'", src_.substr(pos_)));
    // Fold a constant expression.
    bool all_imm = true;
    for (const auto& op : e.ops) all_imm = all_imm && op.code != Expr::kVar;
    if (all_imm && e.ops.size() > 1) {
      std::vector<uint64_t> st;
      for (const auto& op : e.ops) {
        if (op.code == Expr::kImm) {
          st.push_back(op.imm);
          continue;
        }
        if (op.code == Expr::kNot || op.code == Expr::kNeg) {
          st.back() = op.code == Expr::kNot ? !st.back() : uint64_t{0} - st.back();
          continue;
        }
        const uint64_t y = st.back();
        st.pop_back();
        uint64_t& x = st.back();
        if ((op.code == Expr::kDiv || op.code == Expr::kMod) && y == 0) efail("division by zero");
        x = apply(op.code, x, y);
      }
      e.ops = {Expr::Op{Expr::kImm, 0, st.back()}};
    }
    return e;
  }
  static uint64_t apply(Expr::Code c, uint64_t x, uint64_t y) {
    switch (c) {
      case Expr::kAdd: return x + y;
      case Expr::kSub: return x - y;
      case Expr::kMul: return x * y;
      case Expr::kDiv: return x / y;
      case Expr::kMod: return x % y;
      case Expr::kEq: return x == y;
      case Expr::kNe: return x != y;
      case Expr::kLt: return x < y;
      case Expr::kLe: return x <= y;
      case Expr::kGt: return x > y;
      case Expr::kGe: return x >= y;
      case Expr::kAnd: return x && y;
      case Expr::kOr: return x || y;
      default: return 0;
    }
  }
  // A constant count above its limit is an error before anything runs (a computed one is
  // checked when the step runs: sim/run/snitch_programs.cpp).
  void check_count(const YAML::Node& n, const Expr& e, uint64_t limit, const char* what, const char* key) {
    if (e.present && e.constant() && e.ops[0].imm > limit)
      fail(n, fmt::format("{} {} is more than the limit of {} (--limit {}=N)", what, e.ops[0].imm, limit, key));
  }
  [[noreturn]] void efail(const std::string& why) const {
    fail(*node_, fmt::format("{}: {} (at column {} of \"{}\")", what_, why, pos_ + 1, src_));
  }
  void skip() {
    while (pos_ < src_.size() && std::isspace(static_cast<unsigned char>(src_[pos_]))) ++pos_;
  }
  bool eat(const char* tok) {
    skip();
    const size_t n = std::char_traits<char>::length(tok);
    if (src_.compare(pos_, n, tok) != 0) return false;
    // "<" must not eat the start of "<=", "!" not of "!=" and so on.
    if (n == 1 && pos_ + 1 < src_.size() && src_[pos_ + 1] == '=' &&
        (tok[0] == '<' || tok[0] == '>' || tok[0] == '!' || tok[0] == '='))
      return false;
    pos_ += n;
    return true;
  }
  void or_expr(Expr& e) {
    and_expr(e);
    while (eat("||")) and_expr(e), e.ops.push_back({Expr::kOr, 0, 0});
  }
  void and_expr(Expr& e) {
    cmp_expr(e);
    while (eat("&&")) cmp_expr(e), e.ops.push_back({Expr::kAnd, 0, 0});
  }
  void cmp_expr(Expr& e) {
    add_expr(e);
    static const std::pair<const char*, Expr::Code> ops[] = {
        {"==", Expr::kEq}, {"!=", Expr::kNe}, {"<=", Expr::kLe}, {">=", Expr::kGe},
        {"<", Expr::kLt},  {">", Expr::kGt}};
    for (;;) {
      bool any = false;
      for (const auto& [t, c] : ops)
        if (eat(t)) {
          add_expr(e);
          e.ops.push_back({c, 0, 0});
          any = true;
          break;
        }
      if (!any) return;
    }
  }
  void add_expr(Expr& e) {
    mul_expr(e);
    for (;;) {
      if (eat("+")) mul_expr(e), e.ops.push_back({Expr::kAdd, 0, 0});
      else if (eat("-")) mul_expr(e), e.ops.push_back({Expr::kSub, 0, 0});
      else return;
    }
  }
  void mul_expr(Expr& e) {
    unary(e);
    for (;;) {
      if (eat("*")) unary(e), e.ops.push_back({Expr::kMul, 0, 0});
      else if (eat("/")) unary(e), e.ops.push_back({Expr::kDiv, 0, 0});
      else if (eat("%")) unary(e), e.ops.push_back({Expr::kMod, 0, 0});
      else return;
    }
  }
  struct Nest {  // bounds the recursion of ( and unary operators
    Parser& p;
    explicit Nest(Parser& q) : p(q) {
      if (++p.nest_ > 32) p.efail("nested more than 32 deep");
    }
    ~Nest() { --p.nest_; }
  };
  void unary(Expr& e) {
    Nest n(*this);
    if (eat("-")) return unary(e), e.ops.push_back({Expr::kNeg, 0, 0});
    if (eat("!")) return unary(e), e.ops.push_back({Expr::kNot, 0, 0});
    primary(e);
  }
  void primary(Expr& e) {
    skip();
    if (pos_ >= src_.size()) efail("expected a number, a name or '('");
    if (eat("(")) {
      or_expr(e);
      if (!eat(")")) efail("expected ')'");
      return;
    }
    const size_t start = pos_;
    const char c0 = src_[pos_];
    while (pos_ < src_.size() &&
           (std::isalnum(static_cast<unsigned char>(src_[pos_])) || src_[pos_] == '_'))
      ++pos_;
    const std::string tok = src_.substr(start, pos_ - start);
    if (tok.empty()) efail("expected a number, a name or '('");
    if (std::isdigit(static_cast<unsigned char>(c0))) {
      const auto v = parse_size(tok);
      if (!v) { pos_ = start; efail(fmt::format("'{}' is not a number or size", tok)); }
      e.ops.push_back({Expr::kImm, 0, *v});
      return;
    }
    const auto it = slot_of_.find(tok);
    if (it == slot_of_.end() || !bound_.count(it->second)) {
      pos_ = start;
      efail(fmt::format("'{}' is used before any step binds it (as: {}, let: or loop var:)", tok, tok));
    }
    e.ops.push_back({Expr::kVar, it->second, 0});
  }

  // --- steps ---
  std::vector<Step> steps(const YAML::Node& n, int depth) {
    if (depth > 32) fail(n, "steps nested more than 32 deep");
    if (!n.IsSequence()) fail(n, "a program is a list of steps");
    std::vector<Step> v;
    for (const auto& item : n) v.push_back(step(item, depth));
    return v;
  }
  void mark_bound(uint32_t s) { bound_.insert(s); }

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
    if (!root["program"] && !root["cores"]) fail(root, "a scenario needs a program or cores");
    const std::set<uint32_t> builtins = [] {
      std::set<uint32_t> b;
      for (uint32_t i = 0; i < kBuiltinCount; ++i) b.insert(i);
      return b;
    }();
    bound_ = builtins;
    if (root["program"]) sc.program = steps(root["program"], 0);
    const std::set<uint32_t> after_program = bound_;
    if (const auto cores = root["cores"]) {
      if (!cores.IsMap()) fail(cores, "cores takes a map of selector: steps (compute, dm or a core index)");
      for (const auto& kv : cores) {
        const std::string sel = kv.first.as<std::string>();
        const bool index = !sel.empty() && std::all_of(sel.begin(), sel.end(), [](char ch) {
          return std::isdigit(static_cast<unsigned char>(ch));
        });
        if ((sel != "compute" && sel != "dm" && !index) || (index && sel.size() > 4))
          fail(kv.first, "a cores selector is compute, dm or a core index");
        bound_ = after_program;  // every per-core program sees the names of `program`
        sc.cores[sel] = steps(kv.second, 0);
      }
    }
    if (const auto ex = root["expect"]) sc.expect = expectations(ex);
    sc.slots = slots_;
    return sc;
  }

 private:
  std::vector<std::string> slots_;
  std::map<std::string, uint32_t> slot_of_;
  std::set<uint32_t> bound_;
  const YAML::Node* node_ = nullptr;
  const char* what_ = "";
  std::string src_;
  size_t pos_ = 0;
  int nest_ = 0;
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
