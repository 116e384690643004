// One message shape for command-line errors, CLI11's own included:
// `npusim: error: command line: WHY (at 'VALUE')` (docs/assumptions.md), in npusim's words:
// CLI11's messages ("At Most 2 required but received 3") are translated.
#pragma once

#include <string>

namespace CLI {
class App;
class ParseError;
}  // namespace CLI

namespace npusim::sim {

// The message for a CLI11 parse error of `app` on argv. An argument where a subcommand is
// expected that names none is reported as an unknown subcommand with the known ones listed.
std::string cli_error_message(const CLI::App& app, int argc, char** argv, const CLI::ParseError& e);

}  // namespace npusim::sim
