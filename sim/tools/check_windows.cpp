// `npusim check-windows`: the --window specs, the check of every descriptor against every
// rule, the text and JSON reports, the command. The descriptor files are read in
// check_windows_input.cpp.
#include "sim/tools/check_windows.h"
#include "sim/input/yaml_input.h"

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

// "1 descriptor", "2 descriptors".
std::string count(size_t n, const char* noun) {
  return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s");
}

}  // namespace

models::WindowRule parse_window_spec(const std::string& spec) {
  const char* syntax = "expected NAME=LO:HI or NAME=LO:HI@SCOPE_LO:SCOPE_HI";
  const size_t eq = spec.find('=');
  if (eq == std::string::npos || eq == 0) throw InputError("--window", 0, spec, syntax);
  models::WindowRule r;
  r.name = spec.substr(0, eq);
  for (const char c : r.name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.')
      throw InputError(
          "--window", 0, spec,
          fmt::format("window name '{}': letters, digits, '_', '-', '.' only", r.name));
  const std::string rest = spec.substr(eq + 1);
  const size_t at = rest.find('@');
  auto range = [&](const std::string& s, const char* what) {
    const size_t colon = s.find(':');
    if (colon == std::string::npos) throw InputError("--window", 0, spec, syntax);
    const auto lo = parse_number(s.substr(0, colon));
    const auto hi = parse_number(s.substr(colon + 1));
    if (!lo || !hi)
      throw InputError("--window", 0, spec,
                       fmt::format("{} bounds must be decimal or 0x-hex numbers", what));
    if (*lo >= *hi)
      throw InputError("--window", 0, spec,
                       fmt::format("{} is empty: 0x{:x} >= 0x{:x}", what, *lo, *hi));
    return std::pair{*lo, *hi};
  };
  std::tie(r.lo, r.hi) = range(rest.substr(0, at), "window");
  if (at != std::string::npos)
    std::tie(r.scope_lo, r.scope_hi) = range(rest.substr(at + 1), "scope");
  return r;
}

WindowReport check_descriptors(const std::string& file, const std::vector<Descriptor>& ds,
                               const std::vector<models::WindowRule>& rules) {
  WindowReport r;
  r.file = file;
  r.descriptors = ds.size();
  r.rules = rules;
  for (const Descriptor& d : ds) {
    const auto findings = models::check_windows(rules, d.t);
    if (!findings.empty()) ++r.descriptors_violating;
    for (const auto& f : findings) {
      if (f.start_inside) ++r.missed_by_firmware;
      r.violations.push_back({&d, f});
    }
  }
  return r;
}

void write_report_text(const WindowReport& r, std::ostream& out) {
  for (const auto& v : r.violations) {
    const Descriptor& d = *v.descriptor;
    std::string extras;
    const std::pair<const char*, const std::string*> optional[] = {
        {"channel", &d.channel}, {"call_site", &d.call_site}, {"name", &d.name}};
    for (const auto& [k, val] : optional)
      if (!val->empty()) extras += fmt::format("{}{} {}", extras.empty() ? "" : ", ", k, *val);
    out << fmt::format("{}{}: descriptor {}{}: src=0x{:x} dst=0x{:x} len={}: {}\n", r.file,
                       d.line > 0 ? fmt::format(":{}", d.line) : "", d.index,
                       extras.empty() ? "" : " (" + extras + ")", d.t.src, d.t.dst, d.t.len,
                       v.finding.describe());
  }
  std::string rules;
  for (const auto& rule : r.rules)
    rules += fmt::format("{}{} ({} for addresses in [0x{:x}, 0x{:x}))", rules.empty() ? "" : "; ",
                         rule.name, rule.text(), rule.scope_lo, rule.scope_hi);
  if (r.ok())
    out << fmt::format("{}: {}, no window violations; rules: {}\n", r.file,
                       count(r.descriptors, "descriptor"), rules);
  else
    out << fmt::format(
        "{}: {}, {} in {} ({} missed by the firmware's start-only assertion); rules: {}\n", r.file,
        count(r.descriptors, "descriptor"), count(r.violations.size(), "window violation"),
        count(r.descriptors_violating, "descriptor"), r.missed_by_firmware, rules);
}

void write_report_json(const WindowReport& r, std::ostream& out) {
  json j;
  j["file"] = r.file;
  j["descriptors"] = r.descriptors;
  j["rules"] = json::array();
  for (const auto& rule : r.rules)
    j["rules"].push_back({{"name", rule.name},
                          {"lo", rule.lo},
                          {"hi", rule.hi},
                          {"scope_lo", rule.scope_lo},
                          {"scope_hi", rule.scope_hi},
                          {"text", rule.text()}});
  j["violations"] = json::array();
  for (const auto& v : r.violations) {
    const Descriptor& d = *v.descriptor;
    const auto& f = v.finding;
    json e = {{"index", d.index},
              {"line", d.line > 0 ? json(d.line) : json(nullptr)},
              {"src", d.t.src},
              {"dst", d.t.dst},
              {"len", d.t.len},
              {"rule", f.rule},
              {"side", f.side},
              {"bound", f.bound},
              {"bound_value", f.bound_value},
              {"addr", f.addr},
              {"end", f.end},
              {"text", f.text},
              {"start_inside", f.start_inside},
              {"message", f.describe()}};
    if (!d.channel.empty()) e["channel"] = d.channel;
    if (!d.call_site.empty()) e["call_site"] = d.call_site;
    if (!d.name.empty()) e["name"] = d.name;
    j["violations"].push_back(std::move(e));
  }
  j["ok"] = r.ok();
  out << json_text(j) << '\n';
}

int run_check_windows(const CheckWindowsOptions& opt, std::ostream& out) {
  std::vector<models::WindowRule> rules;
  for (const auto& w : opt.windows) rules.push_back(parse_window_spec(w));
  if (rules.empty()) rules.emplace_back();  // the firmware's dataram window
  const DescriptorFormat fmt_kind = descriptor_format(opt.file, opt.format);
  std::istringstream in(read_input_file(opt.file, "descriptors"));  // bounded, directories refused
  const auto ds = fmt_kind == DescriptorFormat::kCsv ? parse_descriptors_csv(in, opt.file)
                                                     : parse_descriptors_json(in, opt.file);
  const WindowReport r = check_descriptors(opt.file, ds, rules);
  if (opt.json)
    write_report_json(r, out);
  else
    write_report_text(r, out);
  return r.ok() ? 0 : 1;
}

}  // namespace npusim::sim
