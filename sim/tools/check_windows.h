// `npusim check-windows`: check DMA descriptors captured from a real run against the address
// window rules of models/dma_window.h, without running a workload (docs/check-windows.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "models/dma_window.h"

namespace CLI {
class App;
}

namespace npusim::sim {

struct Commands;
// `npusim check-windows` (sim/cmd_check_windows.cpp); called by register_more_commands.
void register_check_windows_command(CLI::App& app, Commands& cmds);

// One descriptor as the file gives it.
struct Descriptor {
  models::DmaTransfer t;
  size_t index = 0;  // 0-based position in the file
  int line = 0;      // 1-based source line (0: unknown)
  // Optional columns/keys carried into the report ("" when absent).
  std::string channel, call_site, name;
};

enum class DescriptorFormat { kCsv, kJson };

// --format, or the file's extension (.csv, .json) when `format` is empty. Throws InputError.
DescriptorFormat descriptor_format(const std::string& file, const std::string& format);

// CSV: a header line naming src, dst, len (any order) and optionally channel, call_site, name;
// numbers decimal or 0x-hex; `#` starts a comment; fields may be double-quoted.
// JSON: an array of {"src","dst","len"[,"channel","call_site","name"]} objects, or an object
// {"descriptors": [...]}; numbers as JSON numbers or decimal/0x-hex strings.
// Both throw InputError naming the file, the line (JSON: the line of the descriptor, or of a
// syntax error) and the offending token.
std::vector<Descriptor> parse_descriptors_csv(std::istream& in, const std::string& file);
std::vector<Descriptor> parse_descriptors_json(std::istream& in, const std::string& file);

// `NAME=LO:HI[@SCOPE_LO:SCOPE_HI]`: the window [LO, HI) applied to every address that starts in
// the scope (default: models::WindowRule's). Throws InputError naming --window and the spec.
models::WindowRule parse_window_spec(const std::string& spec);

struct WindowViolation {
  const Descriptor* descriptor;  // into the checked vector
  models::WindowFinding finding;
};

struct WindowReport {
  std::string file;
  size_t descriptors = 0;
  size_t descriptors_violating = 0;
  size_t missed_by_firmware = 0;  // violations whose start passes the start-only assertion
  std::vector<models::WindowRule> rules;
  std::vector<WindowViolation> violations;
  bool ok() const { return violations.empty(); }
};

// Checks every descriptor against every rule. The report points into `ds`.
WindowReport check_descriptors(const std::string& file, const std::vector<Descriptor>& ds,
                               const std::vector<models::WindowRule>& rules);

// One line per violation, then a summary line.
void write_report_text(const WindowReport& r, std::ostream& out);
// One JSON object: {"file","descriptors","rules":[...],"violations":[...],"ok"}.
void write_report_json(const WindowReport& r, std::ostream& out);

struct CheckWindowsOptions {
  std::string file;
  std::string format;                // "", "csv" or "json"
  std::vector<std::string> windows;  // --window specs; empty: the default rule
  bool json = false;
};

// Reads, checks and reports. Returns 0 (no violation) or 1 (violations). Throws InputError.
int run_check_windows(const CheckWindowsOptions& opt, std::ostream& out);

}  // namespace npusim::sim
