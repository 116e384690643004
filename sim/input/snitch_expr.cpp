#include "sim/input/snitch_expr.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <iterator>
#include <utility>

#include "sim/input/scenario.h"

namespace npusim::sim::snitch {

namespace {

const char* const kBuiltinNames[kBuiltinCount] = {
    "core", "cluster", "compute_cores", "clusters", "is_dm", "core_num",
    "tcdm_base", "l1_end", "l3_end", "cluster_offset"};

}  // namespace

ExprCompiler::ExprCompiler(const YamlInput& in) : in_(in) {
  for (const char* n : kBuiltinNames) bind(n);
}

bool ExprCompiler::valid_name(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

uint32_t ExprCompiler::bind(const std::string& name) {
  const auto it = slot_of_.find(name);
  if (it != slot_of_.end()) return it->second;
  const uint32_t s = static_cast<uint32_t>(slots_.size());
  slots_.push_back(name);
  slot_of_[name] = s;
  return s;
}

uint32_t ExprCompiler::binding(const YAML::Node& n, const char* what) {
  const std::string s = in_.str(n, what);
  if (!valid_name(s)) in_.fail(n, fmt::format("{}: '{}' is not a name", what, s));
  if (std::find(std::begin(kBuiltinNames), std::end(kBuiltinNames), s) != std::end(kBuiltinNames))
    in_.fail(n, fmt::format("{}: '{}' is a built-in variable", what, s));
  return bind(s);
}

// --- expressions: || && (== != < <= > >=) (+ -) (* / %) unary(- !) primary ---
Expr ExprCompiler::compile(const YAML::Node& n, const char* what) {
  Expr e;
  e.present = true;
  e.at = in_.at(n);
  e.text = in_.str(n, what);
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

uint64_t ExprCompiler::apply(Expr::Code c, uint64_t x, uint64_t y) {
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

void ExprCompiler::efail(const std::string& why) const {
  in_.fail(*node_, fmt::format("{}: {} (at column {} of \"{}\")", what_, why, pos_ + 1, src_));
}

void ExprCompiler::skip() {
  while (pos_ < src_.size() && std::isspace(static_cast<unsigned char>(src_[pos_]))) ++pos_;
}

bool ExprCompiler::eat(const char* tok) {
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

void ExprCompiler::or_expr(Expr& e) {
  and_expr(e);
  while (eat("||")) and_expr(e), e.ops.push_back({Expr::kOr, 0, 0});
}

void ExprCompiler::and_expr(Expr& e) {
  cmp_expr(e);
  while (eat("&&")) cmp_expr(e), e.ops.push_back({Expr::kAnd, 0, 0});
}

void ExprCompiler::cmp_expr(Expr& e) {
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

void ExprCompiler::add_expr(Expr& e) {
  mul_expr(e);
  for (;;) {
    if (eat("+")) mul_expr(e), e.ops.push_back({Expr::kAdd, 0, 0});
    else if (eat("-")) mul_expr(e), e.ops.push_back({Expr::kSub, 0, 0});
    else return;
  }
}

void ExprCompiler::mul_expr(Expr& e) {
  unary(e);
  for (;;) {
    if (eat("*")) unary(e), e.ops.push_back({Expr::kMul, 0, 0});
    else if (eat("/")) unary(e), e.ops.push_back({Expr::kDiv, 0, 0});
    else if (eat("%")) unary(e), e.ops.push_back({Expr::kMod, 0, 0});
    else return;
  }
}

struct ExprCompiler::Nest {  // bounds the recursion of ( and unary operators
  ExprCompiler& p;
  explicit Nest(ExprCompiler& q) : p(q) {
    if (++p.nest_ > 32) p.efail("nested more than 32 deep");
  }
  ~Nest() { --p.nest_; }
};

void ExprCompiler::unary(Expr& e) {
  Nest n(*this);
  if (eat("-")) return unary(e), e.ops.push_back({Expr::kNeg, 0, 0});
  if (eat("!")) return unary(e), e.ops.push_back({Expr::kNot, 0, 0});
  primary(e);
}

void ExprCompiler::primary(Expr& e) {
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

}  // namespace npusim::sim::snitch
