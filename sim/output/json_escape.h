// JSON string escaping for the writers that render JSON text themselves (the Chrome trace's
// fast paths): no nlohmann::json in between.
#pragma once

#include <fmt/format.h>

#include <string_view>

namespace npusim::sim {

// Appends `s` to `out` as the inside of a JSON string: quotes, backslashes and control
// characters escaped, invalid UTF-8 replaced by U+FFFD.
void append_json_escaped(fmt::memory_buffer& out, std::string_view s);

}  // namespace npusim::sim
