// Structural checks of a JSON input file before nlohmann parses it: nesting depth (a cap, so
// a hostile file cannot exhaust the stack of any recursive pass) and duplicate keys in an
// object (nlohmann keeps the last silently). Errors are InputError naming file:line:col.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace npusim::sim {

constexpr int kMaxJsonDepth = 64;  // arrays and objects inside one another
// Members of one object in a file read in order (parse_ordered_json_input): an ordered object
// finds a key by a linear search, so a file with 10^5 keys in one object would take minutes.
constexpr size_t kMaxJsonMembers = 10000;

// Throws InputError on a nesting deeper than `max_depth`, a key that occurs twice in one
// object (keys are compared as written, escapes not decoded) or an object with more than
// `max_members` keys. Syntax errors are left to the parser: the scan stops quietly at anything
// it does not understand.
void check_json_structure(const std::string& text, const std::string& file,
                          int max_depth = kMaxJsonDepth, size_t max_members = SIZE_MAX);

// A JSON input file's text parsed: check_json_structure first, then the parser, whose errors
// become InputError naming file:line:column and the text there ("not valid JSON: invalid
// literal", in plain words) or the number beyond a double.
nlohmann::json parse_json_input(const std::string& text, const std::string& file,
                                int max_depth = kMaxJsonDepth);
// (The ordered one refuses an object of more than kMaxJsonMembers keys.)
nlohmann::ordered_json parse_ordered_json_input(const std::string& text, const std::string& file,
                                                int max_depth = kMaxJsonDepth);

}  // namespace npusim::sim
