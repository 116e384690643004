// Hostile JSON and bytes that are not UTF-8 in the parsers and writers of sim/:
// errors with a place, never a crash or a lost output.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "sim/input/input_error.h"
#include "sim/input/json_input.h"
#include "sim/output/json_text.h"
#include "sim/tools/check_windows.h"

using namespace npusim::sim;

namespace {

InputError error_of(const std::string& text) {
  std::istringstream in(text);
  try {
    parse_descriptors_json(in, "d.json");
  } catch (const InputError& e) {
    return e;
  }
  FAIL("no InputError for the input");
  return InputError("", 0, "", "");
}

}  // namespace

TEST_CASE("check-windows: a 100000-deep JSON array is an error at the level past the cap") {
  const std::string text = std::string(100000, '[') + std::string(100000, ']');
  const InputError e = error_of(text);
  CHECK(e.line() == 1);
  CHECK(e.column() == kMaxJsonDepth + 1);
  CHECK(std::string(e.what()).find("nested deeper than 64") != std::string::npos);
}

TEST_CASE("check-windows: nesting up to the cap is left to the descriptor checks") {
  const std::string ok = "[{\"src\": 1, \"dst\": 2, \"len\": 3}]";
  std::istringstream in(ok);
  CHECK(parse_descriptors_json(in, "d.json").size() == 1);
  const std::string deep = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  CHECK_NOTHROW(check_json_structure(deep, "d.json"));
  CHECK_THROWS_AS(check_json_structure("[" + deep + "]", "d.json"), InputError);
}

TEST_CASE("check-windows: a duplicate key names its line, column and key") {
  const InputError e = error_of("[\n  {\"src\": 1, \"dst\": 2,\n   \"len\": 3, \"dst\": 4}\n]");
  CHECK(e.line() == 3);
  CHECK(e.column() == 14);
  CHECK(e.token() == "dst");
  // The same key in two objects, and a key-like string value, are fine.
  CHECK_NOTHROW(check_json_structure(R"([{"a": "a", "b": 1}, {"a": 2, "b": {"a": 3}}])", "x"));
  // Strings with escaped quotes do not confuse the scan.
  CHECK_NOTHROW(check_json_structure(R"({"a\"": 1, "a": 2})", "x"));
  CHECK_THROWS_AS(check_json_structure(R"({"a\"": 1, "a\"": 2})", "x"), InputError);
}

TEST_CASE("json_text: bytes that are not UTF-8 become U+FFFD instead of throwing") {
  nlohmann::ordered_json j;
  j["name"] = std::string("bad\xff" "name");
  const std::string s = json_text(j, 2);
  CHECK(s.find("bad\xef\xbf\xbdname") != std::string::npos);
  CHECK_THROWS(j.dump());  // what nlohmann does by default, and what json_text avoids
}
