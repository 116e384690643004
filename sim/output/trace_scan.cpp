#include "sim/output/trace_scan.h"

#include <cmath>
#include <cstdlib>
#include <string>

namespace npusim::sim {

namespace {

// The number after `key` in `head`; false if absent or not a number. `head` lies inside a
// NUL-terminated line, so strtod stops at the next comma at the latest.
bool number_after(std::string_view head, std::string_view key, double& v) {
  const size_t p = head.find(key);
  if (p == std::string_view::npos) return false;
  const char* b = head.data() + p + key.size();
  char* e = nullptr;
  v = std::strtod(b, &e);
  return e != b && e <= head.data() + head.size() && std::isfinite(v);
}

}  // namespace

bool scan_event_line(std::string_view l, ScannedEvent& e) {
  static constexpr std::string_view kPh = "{\"ph\":\"", kName = "\"name\":\"";
  if (l.size() < kPh.size() + 2 || l.substr(0, kPh.size()) != kPh) return false;
  if (l.find('\\') != std::string_view::npos) return false;
  e.ph = l[kPh.size()];
  if ((e.ph != 'X' && e.ph != 'C' && e.ph != 'i') || l[kPh.size() + 1] != '"') return false;
  const size_t np = l.find(kName);
  if (np == std::string_view::npos) return false;
  const std::string_view head = l.substr(0, np);
  double pid = 0, tid = 0;
  if (!number_after(head, "\"pid\":", pid) || !number_after(head, "\"tid\":", tid) ||
      !number_after(head, "\"ts\":", e.ts))
    return false;
  e.dur = 0;
  if (e.ph == 'X' && !number_after(head, "\"dur\":", e.dur)) return false;
  e.pid = static_cast<int>(pid);
  e.tid = static_cast<int>(tid);
  const size_t ns = np + kName.size(), ne = l.find('"', ns);
  if (ne == std::string_view::npos) return false;
  e.name = l.substr(ns, ne - ns);
  e.rest = l.substr(ne + 1);
  return true;
}

bool scan_number_args(std::string_view r, std::vector<std::pair<std::string_view, double>>& out) {
  out.clear();
  static constexpr std::string_view kArgs = ",\"args\":{";
  if (r.substr(0, kArgs.size()) != kArgs) return false;
  size_t p = kArgs.size();
  while (p < r.size()) {
    if (r[p] != '"') return false;
    const size_t ke = r.find('"', p + 1);
    if (ke == std::string_view::npos || ke + 1 >= r.size() || r[ke + 1] != ':') return false;
    const std::string_view key = r.substr(p + 1, ke - p - 1);
    const char* b = r.data() + ke + 2;
    char* e = nullptr;
    const double v = std::strtod(b, &e);
    if (e == b || !std::isfinite(v) || e >= r.data() + r.size()) return false;
    out.emplace_back(key, v);
    p = static_cast<size_t>(e - r.data());
    if (r[p] == ',') {
      ++p;
      continue;
    }
    return r.substr(p) == "}}";
  }
  return false;
}

}  // namespace npusim::sim
