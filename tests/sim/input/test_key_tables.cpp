// The key tables (sim/input/key_tables.h) are what the parsers read and what the schemas say.
#include <catch2/catch.hpp>

#include "sim/input/input_error.h"
#include "sim/input/key_tables.h"
#include "sim/input/platform_config.h"
#include "sim/input/schema.h"
#include "sim/input/snitch_scenario.h"

using namespace npusim::sim;

namespace {

std::string neuron_error(const std::string& text) {
  try {
    parse_scenario(text, "s.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
std::string snitch_error(const std::string& text) {
  try {
    npusim::sim::snitch::parse(text, "s.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("key tables: the Neuron parser reads every step its table lists", "[schema]") {
  for (const auto& step : neuron_dialect().steps->keys) {
    INFO(step.name);
    CHECK_THAT(neuron_error("program:\n  - " + step.name + ": {}\n"),
               !Catch::Contains("unknown step"));
  }
  CHECK_THAT(neuron_error("program:\n  - frobnicate: {}\n"), Catch::Contains("unknown step 'frobnicate'"));
}

TEST_CASE("key tables: the Snitch parser reads every step its table lists", "[schema]") {
  for (const auto& step : snitch_dialect().steps->keys) {
    INFO(step.name);
    CHECK_THAT(snitch_error("program:\n  - " + step.name + ": {}\n"), !Catch::Contains("unknown step"));
  }
  CHECK_THAT(snitch_error("program:\n  - frobnicate: {}\n"), Catch::Contains("unknown step 'frobnicate'"));
}

TEST_CASE("key tables: unknown and missing keys come from the table", "[schema]") {
  const auto& alloc = neuron_dialect().steps->key("alloc").forms.at(0).map;
  REQUIRE(alloc != nullptr);
  CHECK_THAT(neuron_error("program:\n  - alloc: {heap: hbm, size: 4, colour: red}\n"),
             Catch::Contains("unknown key 'colour' in alloc (expected " + alloc->names() + ")"));
  for (const auto& k : alloc->keys)
    if (k.required) {
      INFO(k.name);
      const std::string other = k.name == "heap" ? "size: 4" : "heap: hbm";
      CHECK_THAT(neuron_error("program:\n  - alloc: {" + other + "}\n"),
                 Catch::Contains("alloc needs '" + k.name + "'"));
    }
  // The size range of the table is the parser's.
  CHECK(alloc->value("size").hi == 0xffffffffull);
  CHECK_THAT(neuron_error("program:\n  - init: hbm\n  - alloc: {heap: hbm, size: 0x100000000}\n"),
             Catch::Contains("does not fit the 32-bit allocator ABI"));
  CHECK(neuron_error("program:\n  - init: hbm\n  - alloc: {heap: hbm, size: 0xffffffff}\n").empty());
}

TEST_CASE("key tables: choices come from the table", "[schema]") {
  CHECK_THAT(neuron_error("program:\n  - init: sram\n"),
             Catch::Contains("heap must be hbm, dataram or libc"));
  CHECK_THAT(snitch_error("program:\n  - barrier: everyone\n"),
             Catch::Contains("barrier must be cluster or global"));
}

TEST_CASE("schema: a scenario schema lists every step and the profile's keys for set:", "[schema]") {
  const auto s = scenario_schema(neuron_dialect(), neuron_profile_keys());
  const std::string text = s.dump();
  for (const auto& step : neuron_dialect().steps->keys) CHECK(text.find("\"" + step.name + "\"") != std::string::npos);
  const auto& names = s["properties"]["set"]["propertyNames"]["anyOf"][0]["enum"];
  auto has = [&](const std::string& k) {
    for (const auto& n : names)
      if (n == k) return true;
    return false;
  };
  CHECK(has("dma.channels"));
  CHECK(has("hbm.tRCD"));           // from models/memory_config's table
  CHECK(has("gpsimd.cores"));
  CHECK_FALSE(has("dataram.base"));  // follows the heap layout: the loader refuses it
  CHECK(s["additionalProperties"] == false);
}

TEST_CASE("schema: a profile schema nests sections and lists of windows", "[schema]") {
  const auto p = profile_schema("neuron-gpsimd", neuron_profile_keys());
  CHECK(p["properties"]["platform"]["const"] == "neuron-gpsimd");
  CHECK(p["properties"]["windows"]["type"] == "array");
  CHECK(p["properties"]["windows"]["items"]["properties"].contains("scope_hi"));
  CHECK(p["properties"]["dma"]["properties"]["on_violation_record"]["enum"] ==
        nlohmann::ordered_json::array({"complete", "reject"}));
  const auto& ch = p["properties"]["dma"]["properties"]["channels"]["anyOf"][0];
  CHECK(ch["maximum"] == 64);
  // Numeric choices also accept the YAML number.
  const auto& m = p["properties"]["firmware"]["properties"]["method"]["enum"];
  CHECK(std::find(m.begin(), m.end(), 2) != m.end());
}
