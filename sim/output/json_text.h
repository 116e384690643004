// JSON text of a value for an output file. Strings from the input (scenario names, markers,
// call sites) may hold bytes that are not UTF-8: they are written as U+FFFD instead of
// throwing (nlohmann's type_error.316), so an output is never lost to one bad byte.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace npusim::sim {

template <class Json>
std::string json_text(const Json& j, int indent = -1) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace npusim::sim
