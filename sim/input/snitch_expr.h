// The names and integer expressions of a snitch-cluster scenario (snitch_scenario.cpp's
// parser holds one): every name a step binds (as:, let:, a loop's var:) gets a slot after the
// built-ins; an expression's text is compiled into the postfix Expr the cores evaluate
// (sim/run/snitch_exec.cpp), a constant one folded. Errors are InputError naming file, line,
// column and the column inside the expression.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "sim/input/snitch_scenario.h"
#include "sim/input/yaml_input.h"

namespace npusim::sim::snitch {

class ExprCompiler {
 public:
  // Binds the built-in variables (Builtin) at their slots. `in` places the errors.
  explicit ExprCompiler(const YamlInput& in);

  // A name that a step binds: a new slot, or the one it has. Fails on a built-in or a word
  // that is not a name.
  uint32_t binding(const YAML::Node& n, const char* what);
  // From here on an expression may use the name of slot `s`.
  void mark_bound(uint32_t s) { bound_.insert(s); }
  // The slots usable so far, kept and restored around a program (each per-core program sees
  // the names of `program`, not those of the others).
  const std::set<uint32_t>& bound() const { return bound_; }
  void set_bound(std::set<uint32_t> b) { bound_ = std::move(b); }
  // The expression of scalar `n`: || && (== != < <= > >=) (+ -) (* / %) unary(- !) primary.
  Expr compile(const YAML::Node& n, const char* what);
  // Every slot's name, built-ins first.
  const std::vector<std::string>& slots() const { return slots_; }

 private:
  struct Nest;
  static bool valid_name(const std::string& s);
  uint32_t bind(const std::string& name);
  static uint64_t apply(Expr::Code c, uint64_t x, uint64_t y);
  [[noreturn]] void efail(const std::string& why) const;
  void skip();
  bool eat(const char* tok);
  void or_expr(Expr& e);
  void and_expr(Expr& e);
  void cmp_expr(Expr& e);
  void add_expr(Expr& e);
  void mul_expr(Expr& e);
  void unary(Expr& e);
  void primary(Expr& e);

  const YamlInput& in_;
  std::vector<std::string> slots_;
  std::map<std::string, uint32_t> slot_of_;
  std::set<uint32_t> bound_;
  // The expression being compiled.
  const YAML::Node* node_ = nullptr;
  const char* what_ = "";
  std::string src_;
  size_t pos_ = 0;
  int nest_ = 0;
};

}  // namespace npusim::sim::snitch
