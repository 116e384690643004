#include "sim/cli/cli_errors.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cmath>
#include <regex>

namespace npusim::sim {

namespace {

std::string names(const CLI::App& app) {
  std::string out;
  for (const CLI::App* s : app.get_subcommands([](const CLI::App*) { return true; }))
    out += (out.empty() ? "" : ", ") + s->get_name();
  return out;
}

const CLI::App* find(const CLI::App& app, const std::string& name) {
  for (const CLI::App* s : app.get_subcommands([](const CLI::App*) { return true; }))
    if (s->get_name() == name) return s;
  return nullptr;
}

// A number as people read it: 4096, 0.5, 1e+15 and beyond as "any" bound.
std::string readable(const std::string& text) {
  try {
    size_t used = 0;
    const double v = std::stod(text, &used);
    if (used != text.size() || !std::isfinite(v)) return text;
    if (std::fabs(v) >= 1e15) return v > 0 ? "any larger number" : "any smaller number";
    if (v == std::floor(v)) return fmt::format("{:.0f}", v);
    return fmt::format("{}", v);
  } catch (const std::exception&) {
    return text;
  }
}

std::string values(long n) { return n == 1 ? "1 value" : fmt::format("{} values", n); }

struct Why {
  std::string text, value;
};

// The kind of a CLI11 error by its type (get_name() is the app's name for some of them).
std::string kind(const CLI::ParseError& e) {
  if (dynamic_cast<const CLI::ExtrasError*>(&e)) return "ExtrasError";
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e)) return "ArgumentMismatch";
  if (dynamic_cast<const CLI::RequiredError*>(&e)) return "RequiredError";
  if (dynamic_cast<const CLI::ConversionError*>(&e)) return "ConversionError";
  if (dynamic_cast<const CLI::ValidationError*>(&e)) return "ValidationError";
  if (dynamic_cast<const CLI::ExcludesError*>(&e)) return "ExcludesError";
  if (dynamic_cast<const CLI::RequiresError*>(&e)) return "RequiresError";
  return "";
}

// CLI11's messages in npusim's words: what is wrong, and the value it is about. Anything not
// recognised keeps CLI11's text.
Why translate(const CLI::ParseError& e, const std::string& where) {
  const std::string name = kind(e);
  const std::string what = e.what();
  std::smatch m;
  if (name == "ExtrasError") {
    // "The following argument(s) was/were not expected: A B": the first is the one to fix.
    std::string rest = what.substr(what.find(": ") == std::string::npos ? 0 : what.find(": ") + 2);
    const std::string first = rest.substr(0, rest.find(' '));
    if (!first.empty() && first[0] == '-')
      return {fmt::format("unknown option '{}'{}; --help lists the options", first, where), first};
    return {fmt::format("unexpected argument '{}'{}", first, where), first};
  }
  if (name == "RequiredError") {
    if (what == "A subcommand is required") return {"a subcommand is required" + where, ""};
    static const std::regex required("^(.*) is required$");
    if (std::regex_match(what, m, required)) return {fmt::format("{} is required{}", m[1].str(), where), ""};
  }
  if (name == "ArgumentMismatch") {
    static const std::regex at_most("^(.*): At Most ([0-9]+) required but received ([0-9]+)$");
    static const std::regex at_least("^(.*): At least ([0-9]+) required but received ([0-9]+)$");
    static const std::regex exactly("^Expected (exactly|at least) ([0-9]+) arguments to (.*), got ([0-9]+)$");
    static const std::regex missing("^(.*): ([0-9]+) required (.*) missing$");
    if (std::regex_match(what, m, at_most))
      return {fmt::format("{}: takes at most {}, got {}", m[1].str(), values(std::stol(m[2])), m[3].str()), ""};
    if (std::regex_match(what, m, at_least))
      return {fmt::format("{}: takes at least {}, got {}", m[1].str(), values(std::stol(m[2])), m[3].str()), ""};
    if (std::regex_match(what, m, exactly))
      return {fmt::format("{}: takes {}{}, got {}", m[3].str(), m[1].str() == "exactly" ? "" : "at least ",
                          values(std::stol(m[2])), m[4].str()),
              ""};
    if (std::regex_match(what, m, missing)) return {fmt::format("{}: needs a value", m[1].str()), ""};
  }
  if (name == "ConversionError") {
    static const std::regex convert("^Could not convert: (.*) = (.*)$");
    static const std::regex allowed("^The value (.*) is not an allowed value for (.*)$");
    static const std::regex flag("^(.*): too many inputs for a flag$");
    static const std::regex boolean("^(.*): Should be true/false or a number$");
    if (std::regex_match(what, m, convert)) return {fmt::format("{}: not a valid value", m[1].str()), m[2]};
    if (std::regex_match(what, m, allowed)) return {fmt::format("{}: not a valid value", m[2].str()), m[1]};
    if (std::regex_match(what, m, flag)) return {fmt::format("{}: a flag takes no value", m[1].str()), ""};
    if (std::regex_match(what, m, boolean)) return {fmt::format("{}: expected true or false", m[1].str()), ""};
  }
  if (name == "ValidationError") {
    static const std::regex range("^(.*): Value (.*) not in range (.*) to (.*)$");
    static const std::regex member("^(.*): (.*) not in \\{(.*)\\}$");
    if (std::regex_match(what, m, range)) {
      const std::string lo = readable(m[3]), hi = readable(m[4]);
      return {hi == "any larger number" ? fmt::format("{}: must be at least {}", m[1].str(), lo)
                                        : fmt::format("{}: must be from {} to {}", m[1].str(), lo, hi),
              m[2]};
    }
    if (std::regex_match(what, m, member)) return {fmt::format("{}: expected one of {}", m[1].str(), m[3].str()), m[2]};
    // npusim's own checks: "--opt: 'VALUE' why".
    static const std::regex own("^(--?[A-Za-z0-9-]+): '([^']*)':? (.*)$");
    if (std::regex_match(what, m, own)) return {what, m[2]};
  }
  if (name == "ExcludesError") {
    static const std::regex excludes("^(.*) excludes (.*)$");
    if (std::regex_match(what, m, excludes)) return {fmt::format("{} cannot be given with {}", m[1].str(), m[2].str()), ""};
  }
  if (name == "RequiresError") {
    static const std::regex requires_("^(.*) requires (.*)$");
    if (std::regex_match(what, m, requires_)) return {fmt::format("{} needs {}", m[1].str(), m[2].str()), ""};
  }
  return {what, ""};
}

}  // namespace

std::string cli_error_message(const CLI::App& app, int argc, char** argv, const CLI::ParseError& e) {
  // Walk the subcommand chain while the words name subcommands; the first word that does not,
  // where one is required, is an unknown subcommand.
  const CLI::App* at = &app;
  std::string chain = "npusim";
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
    chain += " " + w;
  }
  // Which command the message is about: "(npusim run)"; a missing subcommand lists the choices.
  std::string where = at == &app ? "" : " (" + chain + ")";
  if (dynamic_cast<const CLI::RequiredError*>(&e) && std::string(e.what()) == "A subcommand is required")
    where = fmt::format(" ({}: {})", chain, names(*at));
  const Why why = translate(e, where);
  return why.value.empty() ? fmt::format("npusim: error: command line: {}", why.text)
                           : fmt::format("npusim: error: command line: {} (at '{}')", why.text, why.value);
}

}  // namespace npusim::sim
