// The self-contained HTML report (docs/report.md, "The HTML report"): one file with the
// chart library, the page's script and the data of one run, or of two runs side by side.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/output/report_data.h"

namespace npusim::sim {

struct HtmlRun {
  std::string report_path, trace_path;  // trace_path may be empty
};

// The page for `runs` (one run, or two compared: A then B) as a string.
std::string html_report(const std::vector<nlohmann::ordered_json>& run_data);

// A self-contained page: the style, d3 and charts.js inlined, `data` as the page's JSON
// (#npusim-data), then `page_js`, which draws it and fills in #npusim-check.
std::string html_page(const std::string& title, const nlohmann::ordered_json& data, const char* page_js);

// Loads each run (load_run_data) and writes the page to `out_path`. Throws std::runtime_error
// naming the file for bad input or a file that cannot be written.
void write_html_report(const std::vector<HtmlRun>& runs, const std::string& out_path,
                       const HtmlLimits& limits = {});

// Writes `page` (html_report) to `out_path`; throws std::runtime_error naming it on failure.
void write_html_file(const std::string& page, const std::string& out_path);

// The version of npusim that writes the page.
const char* npusim_version_string();

}  // namespace npusim::sim
