// What one run contributes to the HTML report (docs/report.md, "The HTML report"): its JSON
// report and, when a Chrome trace is given, the trace's rows, counters, heap blocks, faults and
// latency distributions, downsampled so that a long run's page stays small and fast.
#pragma once

#include <cstddef>
#include <istream>
#include <string>

#include <nlohmann/json.hpp>

namespace npusim::sim {

// Bounds of what one run puts into the page (a 1 M-step run is reduced to these).
struct HtmlLimits {
  size_t slices_per_row = 2000;  // timeline bars per row: nearby bars merge beyond this
  size_t points = 1500;          // samples per counter series: min/max per bin beyond this
  size_t blocks = 3000;          // heap map rectangles per heap: the longest-lived are kept
  size_t list = 500;             // rows of a table (markers, violations, faults)
  bool fast_scan = true;         // read common trace lines without JSON values (trace_scan.h)
};

// Reads REPORT.json (required) and TRACE.json (optional: empty path) into the page's data of
// one run. Throws std::runtime_error (an InputError for most) naming the file, the line, the
// field and the offending value for a file that cannot be read, is nested deeper than 64
// levels, is larger than the input limit, or is not a npusim report (a member of another type
// than docs/report.md says) / Chrome trace.
nlohmann::ordered_json load_run_data(const std::string& report_path, const std::string& trace_path,
                             const HtmlLimits& limits = {});
// The readers behind load_run_data on text in memory (the fuzzers use them): a report's text
// parsed and checked field by field, and a trace from a stream. Errors as load_run_data's.
nlohmann::ordered_json report_from_text(const std::string& text, const std::string& file);
nlohmann::ordered_json trace_from_stream(std::istream& in, const std::string& file, const HtmlLimits& limits = {});
// The same for a report already in memory (`npusim run --html`); `report_label` names it.
nlohmann::ordered_json run_data(nlohmann::ordered_json report, const std::string& report_label,
                                const std::string& trace_path, const HtmlLimits& limits = {});

}  // namespace npusim::sim
