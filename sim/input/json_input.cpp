#include "sim/input/json_input.h"

#include <fmt/format.h>

#include <set>
#include <vector>

#include "sim/input/input_error.h"

namespace npusim::sim {

void check_json_structure(const std::string& text, const std::string& file, int max_depth) {
  struct Level {
    bool object;
    bool expect_key;
    std::set<std::string> keys;
  };
  std::vector<Level> stack;
  int line = 1, col = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    ++col;
    if (c == '\n') {
      ++line;
      col = 0;
      continue;
    }
    if (c == '"') {
      const int at_line = line, at_col = col;
      size_t j = i + 1;
      for (; j < text.size() && text[j] != '"'; ++j) {
        if (text[j] == '\\') ++j;
        if (j < text.size() && text[j] == '\n') return;  // not JSON: the parser says why
      }
      if (j >= text.size()) return;
      const std::string s = text.substr(i + 1, j - i - 1);
      col += static_cast<int>(j - i);
      i = j;
      if (!stack.empty() && stack.back().object && stack.back().expect_key) {
        stack.back().expect_key = false;
        if (!stack.back().keys.insert(s).second)
          throw InputError(file, at_line, s, "duplicate key in one object (each key once)", at_col);
      }
      continue;
    }
    if (c == '[' || c == '{') {
      if (static_cast<int>(stack.size()) >= max_depth)
        throw InputError(file, line, std::string(1, c),
                         fmt::format("JSON nested deeper than {} levels", max_depth), col);
      stack.push_back(Level{c == '{', c == '{', {}});
    } else if (c == ']' || c == '}') {
      if (stack.empty()) return;
      stack.pop_back();
    } else if (c == ',') {
      if (!stack.empty() && stack.back().object) stack.back().expect_key = true;
    }
  }
}

}  // namespace npusim::sim
