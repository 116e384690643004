#include "sim/input/json_input.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <vector>

#include "sim/input/input_error.h"

namespace npusim::sim {

void check_json_structure(const std::string& text, const std::string& file, int max_depth,
                          size_t max_members) {
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
        if (stack.back().keys.size() > max_members)
          throw InputError(file, at_line, s,
                           fmt::format("an object with more than {} keys (no npusim output has one)", max_members),
                           at_col);
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

namespace {

int line_at(const std::string& text, size_t offset) {
  offset = std::min(offset, text.size());
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(offset), '\n'));
}

// The parser's message in plain words: "[json.exception.parse_error.101] parse error at line 1,
// column 5: syntax error while parsing value - invalid literal; last read: 'x'" becomes
// "invalid literal" (the place and the text there are named by the InputError).
std::string reason(const std::string& what) {
  std::string r = what;
  if (const size_t col = r.find("column"); col != std::string::npos)
    if (const size_t colon = r.find(": ", col); colon != std::string::npos) r = r.substr(colon + 2);
  if (const size_t bracket = r.find("] "); bracket != std::string::npos && r[0] == '[') r = r.substr(bracket + 2);
  if (const size_t dash = r.find(" - "); dash != std::string::npos) r = r.substr(dash + 3);
  if (const size_t last = r.find("; last read"); last != std::string::npos) r = r.substr(0, last);
  return r;
}

int column_at(const std::string& text, size_t offset) {
  offset = std::min(offset, text.size());
  const size_t nl = text.rfind('\n', offset == 0 ? 0 : offset - 1);
  return static_cast<int>(nl == std::string::npos || offset == 0 ? offset + 1 : offset - nl);
}

template <class J>
J parse(const std::string& text, const std::string& file, int max_depth, size_t max_members) {
  check_json_structure(text, file, max_depth, max_members);
  try {
    return J::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte: 1-based position of the character the parser stopped at.
    const size_t at = e.byte > 0 ? e.byte - 1 : 0;
    std::string tok = at < text.size() ? text.substr(at, 20) : "end of file";
    if (const size_t nl = tok.find('\n'); nl != std::string::npos) tok.erase(nl);
    throw InputError(file, line_at(text, at), tok, "not valid JSON: " + reason(e.what()), column_at(text, at));
  } catch (const nlohmann::json::exception& e) {
    // A number beyond a double (out_of_range.406): the parser names it, not its place.
    const std::string what = e.what();
    const size_t q = what.find('\'');
    const std::string tok = q == std::string::npos ? "" : what.substr(q + 1, what.rfind('\'') - q - 1);
    const size_t at = tok.empty() ? std::string::npos : text.find(tok);
    throw InputError(file, at == std::string::npos ? 0 : line_at(text, at), tok,
                     "a number too large to read (beyond the range of a double)");
  }
}

}  // namespace

nlohmann::json parse_json_input(const std::string& text, const std::string& file, int max_depth) {
  return parse<nlohmann::json>(text, file, max_depth, SIZE_MAX);
}

nlohmann::ordered_json parse_ordered_json_input(const std::string& text, const std::string& file, int max_depth) {
  return parse<nlohmann::ordered_json>(text, file, max_depth, kMaxJsonMembers);
}

}  // namespace npusim::sim
