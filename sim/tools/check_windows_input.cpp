// `npusim check-windows`'s input: the descriptor files (CSV, JSON) read whole into Descriptors,
// every error an InputError naming file, line and token. The check and the reports are in
// check_windows.cpp.
#include "sim/tools/check_windows.h"

#include "sim/input/json_input.h"
#include "sim/output/json_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <sstream>
#include <tuple>

#include "sim/input/input_error.h"  // InputError, parse_number

namespace npusim::sim {

namespace {

using nlohmann::json;

constexpr const char* kColumns = "src, dst, len, channel, call_site, name";

bool is_space(char c) {
  return std::isspace(static_cast<unsigned char>(c)) != 0;
}

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && is_space(s[b])) ++b;
  while (e > b && is_space(s[e - 1])) --e;
  return s.substr(b, e - b);
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// A short excerpt of a (possibly long) token for an error message.
std::string excerpt(const std::string& s, size_t max = 60) {
  return s.size() <= max ? s : s.substr(0, max) + "...";
}

// A descriptor number: decimal or 0x-hex, non-negative, 64 bits. `where` prefixes the reason
// (JSON: "descriptor 3: "), `what` names the column.
uint64_t number(const std::string& file, int line, const std::string& where,
                const std::string& what, const std::string& tok) {
  if (tok.empty()) throw InputError(file, line, tok, fmt::format("{}{} is empty", where, what));
  if (tok[0] == '-')
    throw InputError(file, line, tok, fmt::format("{}{} is negative", where, what));
  if (auto v = parse_number(tok)) return *v;
  const bool hex = tok.size() > 2 && tok[0] == '0' && (tok[1] == 'x' || tok[1] == 'X');
  const bool digits = std::all_of(tok.begin() + (hex ? 2 : 0), tok.end(), [&](char c) {
    return hex ? std::isxdigit(static_cast<unsigned char>(c)) != 0
               : std::isdigit(static_cast<unsigned char>(c)) != 0;
  });
  if (digits)
    throw InputError(file, line, tok, fmt::format("{}{} does not fit 64 bits", where, what));
  throw InputError(file, line, tok,
                   fmt::format("{}{} is not a decimal or 0x-hex number", where, what));
}

// Splits one CSV line into fields: double quotes protect commas and '#' ("" is a quote inside
// quotes), an unquoted '#' starts a comment, unquoted fields are trimmed. Returns no fields for
// a blank or comment-only line.
std::vector<std::string> split_csv(const std::string& raw, const std::string& file, int line) {
  std::vector<std::string> fields;
  std::string cur;
  bool quoted = false, was_quoted = false, any = false;
  size_t i = 0;
  auto finish = [&] {
    fields.push_back(was_quoted ? cur : trim(cur));
    cur.clear();
    was_quoted = false;
  };
  for (; i < raw.size(); ++i) {
    const char c = raw[i];
    if (quoted) {
      if (c == '"' && i + 1 < raw.size() && raw[i + 1] == '"') {
        cur.push_back('"');
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cur.push_back(c);
      }
      continue;
    }
    if (c == '#') break;
    if (c == ',') {
      any = true;
      finish();
    } else if (c == '"') {
      if (!trim(cur).empty())
        throw InputError(file, line, excerpt(trim(raw)), "a quote inside an unquoted field");
      cur.clear();
      quoted = was_quoted = any = true;
    } else if (was_quoted) {
      if (!is_space(c))
        throw InputError(file, line, excerpt(trim(raw)), "text after a closing quote");
    } else {
      if (!is_space(c)) any = true;
      cur.push_back(c);
    }
  }
  if (quoted) throw InputError(file, line, excerpt(trim(raw)), "unterminated quoted field");
  if (any) finish();
  return fields;
}

// Column indices of one CSV header.
struct Columns {
  int src = -1, dst = -1, len = -1, channel = -1, call_site = -1, name = -1;
  size_t count = 0;
};

Columns parse_header(const std::vector<std::string>& fields, const std::string& file, int line,
                     const std::string& raw) {
  Columns c;
  c.count = fields.size();
  for (size_t i = 0; i < fields.size(); ++i) {
    const std::string f = lower(fields[i]);
    int* slot = f == "src"         ? &c.src
                : f == "dst"       ? &c.dst
                : f == "len"       ? &c.len
                : f == "channel"   ? &c.channel
                : f == "call_site" ? &c.call_site
                : f == "name"      ? &c.name
                                   : nullptr;
    if (!slot)
      throw InputError(file, line, fields[i],
                       fmt::format("unknown column (the first line must be a header naming "
                                   "src, dst, len; known columns: {})",
                                   kColumns));
    if (*slot >= 0) throw InputError(file, line, fields[i], "column named twice");
    *slot = static_cast<int>(i);
  }
  const std::pair<int, const char*> required[] = {{c.src, "src"}, {c.dst, "dst"}, {c.len, "len"}};
  for (const auto& [idx, what] : required)
    if (idx < 0)
      throw InputError(file, line, excerpt(trim(raw)), fmt::format("missing column '{}'", what));
  return c;
}

// The line where each element of the descriptor array starts. `array_depth`: nesting depth at
// which that array opens (0: the document is the array; 1: it is a member of the top object).
// `text` is valid JSON (it parsed).
std::vector<int> element_lines(const std::string& text, int array_depth) {
  std::vector<int> lines;
  int depth = 0, line = 1;
  bool in_string = false, escaped = false, inside = false, expecting = false;
  for (const char c : text) {
    if (c == '\n') ++line;
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (is_space(c)) continue;
    const bool at_elements = inside && depth == array_depth + 1;
    if (at_elements && c == ',') {
      expecting = true;
      continue;
    }
    if (at_elements && expecting && c != ']') {
      lines.push_back(line);
      expecting = false;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (c == '[' && !inside && depth == array_depth) inside = expecting = true;
      ++depth;
    } else if (c == ']' || c == '}') {
      --depth;
      if (inside && depth == array_depth) break;
    }
  }
  return lines;
}

// The reason of a nlohmann parse error without its "[json.exception...] ... column N: " prefix.
std::string extra_value(const json& v, const std::string& file, int line, size_t index,
                        const std::string& key) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number()) return v.dump();
  throw InputError(file, line, excerpt(json_text(v)),
                   fmt::format("descriptor {}: '{}' must be a string or a number", index, key));
}

uint64_t json_number(const json& v, const std::string& file, int line, size_t index,
                     const std::string& key) {
  const std::string where = fmt::format("descriptor {}: ", index);
  const std::string what = fmt::format("'{}'", key);
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_number_integer())
    throw InputError(file, line, v.dump(), fmt::format("{}{} is negative", where, what));
  if (v.is_number_float())
    throw InputError(file, line, v.dump(), fmt::format("{}{} is not an integer", where, what));
  if (v.is_string()) return number(file, line, where, what, v.get<std::string>());
  throw InputError(file, line, excerpt(json_text(v)),
                   fmt::format("{}{} must be a number or a decimal/0x-hex string", where, what));
}

}  // namespace

DescriptorFormat descriptor_format(const std::string& file, const std::string& format) {
  if (format == "csv") return DescriptorFormat::kCsv;
  if (format == "json") return DescriptorFormat::kJson;
  if (!format.empty()) throw InputError("--format", 0, format, "expected csv or json");
  const size_t dot = file.rfind('.');
  const std::string ext = dot == std::string::npos ? "" : lower(file.substr(dot + 1));
  if (ext == "csv") return DescriptorFormat::kCsv;
  if (ext == "json") return DescriptorFormat::kJson;
  throw InputError(file, 0, file,
                   "cannot tell the format from the extension (.csv or .json); use --format");
}

std::vector<Descriptor> parse_descriptors_csv(std::istream& in, const std::string& file) {
  std::vector<Descriptor> out;
  std::optional<Columns> cols;
  std::string raw;
  int line = 0;
  while (std::getline(in, raw)) {
    ++line;
    if (!raw.empty() && raw.back() == '\r') raw.pop_back();
    const auto fields = split_csv(raw, file, line);
    if (fields.empty()) continue;
    if (!cols) {
      cols = parse_header(fields, file, line, raw);
      continue;
    }
    if (fields.size() != cols->count)
      throw InputError(file, line, excerpt(trim(raw)),
                       fmt::format("expected {} fields as the header names, found {}", cols->count,
                                   fields.size()));
    Descriptor d;
    d.index = out.size();
    d.line = line;
    d.t.src = number(file, line, "", "src", fields[cols->src]);
    d.t.dst = number(file, line, "", "dst", fields[cols->dst]);
    d.t.len = number(file, line, "", "len", fields[cols->len]);
    if (cols->channel >= 0) d.channel = fields[cols->channel];
    if (cols->call_site >= 0) d.call_site = fields[cols->call_site];
    if (cols->name >= 0) d.name = fields[cols->name];
    out.push_back(std::move(d));
  }
  if (!cols)
    throw InputError(file, line, "", "no header line: expected a first line naming src, dst, len");
  return out;
}

std::vector<Descriptor> parse_descriptors_json(std::istream& in, const std::string& file) {
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const json doc = parse_json_input(text, file);  // depth cap, duplicate keys, syntax: file:line
  const json* list = &doc;
  int depth = 0;
  if (doc.is_object()) {
    for (const auto& item : doc.items())
      if (item.key() != "descriptors")
        throw InputError(file, 1, item.key(),
                         "unknown top-level key (expected only \"descriptors\")");
    if (!doc.contains("descriptors") || !doc["descriptors"].is_array())
      throw InputError(file, 1, excerpt(text), "expected an object with a \"descriptors\" array");
    list = &doc["descriptors"];
    depth = 1;
  } else if (!doc.is_array()) {
    throw InputError(file, 1, excerpt(trim(text)),
                     "expected an array of descriptors or {\"descriptors\": [...]}");
  }
  std::vector<int> lines = element_lines(text, depth);
  if (lines.size() != list->size()) lines.assign(list->size(), 0);

  std::vector<Descriptor> out;
  for (size_t i = 0; i < list->size(); ++i) {
    const json& o = (*list)[i];
    const int line = lines[i];
    if (!o.is_object())
      throw InputError(file, line, excerpt(json_text(o)),
                       fmt::format("descriptor {}: expected an object with src, dst, len", i));
    for (const auto& item : o.items()) {
      const auto& k = item.key();
      if (k != "src" && k != "dst" && k != "len" && k != "channel" && k != "call_site" &&
          k != "name")
        throw InputError(file, line, k,
                         fmt::format("descriptor {}: unknown key (known keys: {})", i, kColumns));
    }
    for (const char* k : {"src", "dst", "len"})
      if (!o.contains(k))
        throw InputError(file, line, excerpt(json_text(o)),
                         fmt::format("descriptor {}: missing key '{}'", i, k));
    Descriptor d;
    d.index = i;
    d.line = line;
    d.t.src = json_number(o["src"], file, line, i, "src");
    d.t.dst = json_number(o["dst"], file, line, i, "dst");
    d.t.len = json_number(o["len"], file, line, i, "len");
    if (o.contains("channel")) d.channel = extra_value(o["channel"], file, line, i, "channel");
    if (o.contains("call_site"))
      d.call_site = extra_value(o["call_site"], file, line, i, "call_site");
    if (o.contains("name")) d.name = extra_value(o["name"], file, line, i, "name");
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace npusim::sim
