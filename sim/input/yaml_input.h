// Reading the YAML input files (scenarios of every platform) with the place of each value:
// the part of a scenario parser that does not depend on the platform. Every error is an
// InputError naming file, line, column and the offending value.
#pragma once

#include <initializer_list>
#include <string>
#include <tuple>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "sim/input/scenario.h"

namespace npusim::sim {

class YamlInput {
 public:
  explicit YamlInput(std::string file) : file_(std::move(file)) {}

  const std::string& file() const { return file_; }
  Where at(const YAML::Node& n) const;
  [[noreturn]] void fail(const YAML::Node& n, const std::string& why) const;
  // A scalar's text; fails on a map or a list.
  std::string str(const YAML::Node& n, const char* what) const;
  // Fails unless `m` is a map with only `allowed` keys and every `required` one.
  void keys(const YAML::Node& m, std::initializer_list<const char*> allowed,
            std::initializer_list<const char*> required, const char* what) const;

  // The document's root map; fails on a syntax error, an empty document or a non-map.
  YAML::Node root(const std::string& text) const;
  // The keys every scenario shares: name, description, platform (kept when absent), set.
  void header(const YAML::Node& root, ScenarioHead& h) const;
  // `expect:` — a map of key: condition ("<= 8KiB", "== 0", "< 2ms", "true").
  std::vector<Expectation> expectations(const YAML::Node& ex) const;
  // The keys every `binary:` entry shares (its keys already checked): `elf` (a path relative to
  // this file's folder, resolved), `args`, `max_cycles` (0 when absent).
  void binary_keys(const YAML::Node& m, std::string& elf, std::vector<std::string>& args, uint64_t& max_cycles,
                   Where& where) const;

 protected:
  std::string file_;
};

// Loads a YAML document as npusim's input files are loaded: syntax errors, more nodes than
// limits().yaml_nodes once aliases are expanded (an alias bomb) and a key that occurs twice in
// one map (yaml-cpp keeps the first silently) or a key that is not a plain word (`? [a]: 1`,
// `?: 1`) are InputError naming file:line:col.
// An empty document is a null node.
YAML::Node load_yaml(const std::string& text, const std::string& file);

// The text of an input file; throws InputError naming the file when it does not exist, is a
// directory, cannot be read or is larger than limits().input_bytes.
std::string read_input_file(const std::string& path, const char* what);
// Why `path` cannot be an input file ("does not exist", "is a directory, not a file", ...), or
// an empty string.
std::string input_file_problem(const std::string& path);

}  // namespace npusim::sim
