// ChromeTrace's paths without a JSON object: events with TraceArg args, and labels (an
// event's name and args rendered once, for events that repeat).
#include <fmt/compile.h>

#include <cstring>
#include <iterator>
#include <stdexcept>

#include "sim/output/chrome_trace.h"

namespace npusim::sim {

int ChromeTrace::label(std::string_view name, std::initializer_list<TraceArg> args) {
  fmt::memory_buffer b;
  b.append(std::string_view(",\"name\":\""));
  append_json_escaped(b, name);
  b.push_back('"');
  write_args(b, args);
  labels_.emplace_back(b.data(), b.size());
  return static_cast<int>(labels_.size() - 1);
}

void ChromeTrace::instant_label(int track, uint64_t ts_ps, int label) {
  if (label < 0 || static_cast<size_t>(label) >= labels_.size())
    throw std::invalid_argument(fmt::format("trace event: unknown label {}", label));
  check_track(track, "label");
  if (!file_) return;
  const Track& t = tracks_[track];
  if (!t.keep) {
    ++dropped_filter_;
    return;
  }
  if (!admit()) return;
  const std::string& l = labels_[label];
  // The picoseconds as they are: the same digits write_ts(ts_ps / 1e6) writes, as long as the
  // double holds the count to well under half a picosecond (below 1e15 ps, 1000 s).
  if (ts_ps >= 1'000'000'000'000'000ull) {
    buf_.append(std::string_view(events_ == 0 ? "\n" : ",\n"));
    buf_.append(t.instant_head);
    write_ts(static_cast<double>(ts_ps) / 1e6);
    buf_.append(l);
    end_event();
    return;
  }
  // One event in place: room for all of it once, then plain copies (this is the path of a
  // loop of markers: a million of them cost the run their bytes, not a formatter's calls).
  const size_t at = buf_.size();
  buf_.resize(at + 2 + t.instant_head.size() + 28 + l.size() + 1);  // 28: 20 digits, ".", 6 decimals
  char* p = buf_.data() + at;
  if (events_ != 0) *p++ = ',';
  *p++ = '\n';
  std::memcpy(p, t.instant_head.data(), t.instant_head.size());
  p += t.instant_head.size();
  char digits[20];
  char* d = digits + sizeof digits;
  uint64_t whole = ts_ps / 1000000, frac = ts_ps % 1000000;
  do *--d = static_cast<char>('0' + whole % 10); while ((whole /= 10) != 0);
  const size_t nd = static_cast<size_t>(digits + sizeof digits - d);
  std::memcpy(p, d, nd);
  p += nd;
  p[0] = '.';
  for (int i = 6; i >= 1; --i, frac /= 10) p[i] = static_cast<char>('0' + frac % 10);
  p += 7;
  std::memcpy(p, l.data(), l.size());
  p += l.size();
  *p++ = '}';
  buf_.resize(static_cast<size_t>(p - buf_.data()));
  ++events_;
  if (buf_.size() >= kSpillBytes) spill();
}

void ChromeTrace::write_args(std::initializer_list<TraceArg> args) { write_args(buf_, args); }

void ChromeTrace::write_args(fmt::memory_buffer& out, std::initializer_list<TraceArg> args) {
  if (args.size() == 0) return;
  out.append(std::string_view(",\"args\":{"));
  bool first = true;
  for (const auto& a : args) {
    out.append(std::string_view(first ? "\"" : ",\""));
    first = false;
    out.append(std::string_view(a.key));
    out.append(std::string_view("\":"));
    switch (a.kind) {
      case TraceArg::kUint: {
        const fmt::format_int n(a.u);
        out.append(n.data(), n.data() + n.size());
        break;
      }
      case TraceArg::kInt: {
        const fmt::format_int n(a.i);
        out.append(n.data(), n.data() + n.size());
        break;
      }
      case TraceArg::kHex:
        fmt::format_to(std::back_inserter(out), FMT_COMPILE("\"0x{:x}\""), a.u);
        break;
      case TraceArg::kText:
        out.push_back('"');
        append_json_escaped(out, a.text);
        out.push_back('"');
        break;
    }
  }
  out.push_back('}');
}

}  // namespace npusim::sim
