#include "sim/cli/cli_errors.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

namespace npusim::sim {

namespace {

std::string names(const CLI::App& app) {
  std::string out;
  for (const CLI::App* s : app.get_subcommands([](const CLI::App*) { return true; }))
    out += (out.empty() ? "" : ", ") + s->get_name();
  return out;
}

// The first argument that is not an option of `app`, or nullptr.
const CLI::App* find(const CLI::App& app, const std::string& name) {
  for (const CLI::App* s : app.get_subcommands([](const CLI::App*) { return true; }))
    if (s->get_name() == name) return s;
  return nullptr;
}

}  // namespace

std::string cli_error_message(const CLI::App& app, int argc, char** argv, const CLI::ParseError& e) {
  // Walk the subcommand chain while the words name subcommands; the first word that does not,
  // where one is required, is an unknown subcommand.
  const CLI::App* at = &app;
  for (int i = 1; i < argc; ++i) {
    const std::string w = argv[i];
    if (w.empty() || w[0] == '-') break;
    const CLI::App* next = find(*at, w);
    if (next == nullptr) {
      if (at->get_require_subcommand_min() > 0)
        return fmt::format("npusim: error: command line: unknown subcommand '{}'{} (expected {}) (at '{}')", w,
                           at == &app ? "" : " of " + at->get_name(), names(*at), w);
      break;
    }
    at = next;
  }
  std::string why = e.what();
  // CLI11 names the value in some messages: "...not expected: VALUE" and
  // "--opt: VALUE not in {...}" / "--opt: 'VALUE' is not ...".
  std::string value;
  if (const auto p = why.find("not expected: "); p != std::string::npos) {
    value = why.substr(p + 14);
  } else if (why.rfind("--", 0) == 0) {
    if (const auto c = why.find(": "); c != std::string::npos) {
      value = why.substr(c + 2);
      if (!value.empty() && value[0] == '\'') value = value.substr(1, value.find('\'', 1) - 1);
      else value = value.substr(0, value.find(' '));
    }
  }
  return value.empty() ? fmt::format("npusim: error: command line: {}", why)
                       : fmt::format("npusim: error: command line: {} (at '{}')", why, value);
}

}  // namespace npusim::sim
