// JSON Schemas (draft-07) of the input files, generated from the key tables the parsers read
// (key_tables.h), for editors with the YAML language server and for independent validators.
// `npusim schema` writes them; docs/schema/ ships them and a test keeps the two equal.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/input/key_tables.h"

namespace npusim::sim {

// The schema of a scenario of dialect `d`; `profile` lists the keys `set:` accepts.
nlohmann::ordered_json scenario_schema(const Dialect& d, const std::vector<ProfileKey>& profile);
// The schema of a profile of `platform` with these keys ("section.key"; "section.#.key" for a
// list of maps such as windows).
// `extra` adds (or replaces) top-level properties, e.g. topology: and extends:.
nlohmann::ordered_json profile_schema(const std::string& platform,
                                      const std::vector<ProfileKey>& keys,
                                      const nlohmann::ordered_json& extra = nlohmann::ordered_json::object());
// The JSON Schema of one value.
nlohmann::ordered_json value_schema(const ValueSpec& v);

}  // namespace npusim::sim
