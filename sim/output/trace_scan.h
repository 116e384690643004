// A fast reader of the one-event-per-line Chrome trace npusim writes (docs/traces.md), for the
// HTML report: the common events are read without building a JSON value. Anything it does not
// recognise exactly is left to the JSON parser (the caller falls back).
#pragma once

#include <string_view>
#include <utility>
#include <vector>

namespace npusim::sim {

struct ScannedEvent {
  char ph = 0;  // 'X', 'C' or 'i'
  int pid = 0, tid = 0;
  double ts = 0, dur = 0;
  std::string_view name;
  std::string_view rest;  // what follows the name: `,"args":{...}}` or `}`
};

// Reads `{"ph":"X"|"C"|"i",...,"pid":N,"tid":N,"ts":T[,"dur":D],"name":"..."...` as
// ChromeTrace writes it. False for any other shape, or a line with an escape (a backslash).
bool scan_event_line(std::string_view line, ScannedEvent& e);

// Reads `,"args":{"key":number,...}}` (the args of a counter). False for any other shape.
bool scan_number_args(std::string_view rest, std::vector<std::pair<std::string_view, double>>& out);

}  // namespace npusim::sim
