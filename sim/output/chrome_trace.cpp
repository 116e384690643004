// ChromeTrace's file and events: the bounded buffer spilled to the file, close() and its
// terminator, the size limit, and the slice/instant/counter events with nlohmann::json args.
// The tracks and the filter are in chrome_trace_tracks.cpp, the TraceArg and label paths in
// chrome_trace_fast.cpp, JSON escaping in json_escape.cpp.
#include "sim/output/chrome_trace.h"
#include "sim/output/live_files.h"
#include "sim/output/output_paths.h"

#include <fmt/compile.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <exception>
#include <iterator>
#include <mutex>
#include <set>
#include <stdexcept>

namespace npusim::sim {

namespace {

void check_finite(double v, const char* what, std::string_view name) {
  if (!std::isfinite(v))
    throw std::invalid_argument(fmt::format("trace event '{}': {} is not finite", name, what));
}

void check_args(const nlohmann::json& args, std::string_view name) {
  if (!args.is_null() && !args.is_object())
    throw std::invalid_argument(fmt::format("trace event '{}': args must be a JSON object, got {}",
                                            name, args.type_name()));
}

}  // namespace

ChromeTrace::ChromeTrace(const std::string& path) : ChromeTrace(OutputPath{"trace file", path, {}}) {}

ChromeTrace::ChromeTrace(const OutputPath& out)
    : path_(out.path), out_(std::make_unique<OutputFile>(out)), unwinding_(std::uncaught_exceptions()) {
  file_ = out_->stream();
  buf_.append(std::string_view(R"({"displayTimeUnit":"ns","traceEvents":[)"));
  LiveFiles<ChromeTrace>::add(this);
}

ChromeTrace::~ChromeTrace() {
  LiveFiles<ChromeTrace>::remove(this);
  if (!out_) return;
  if (std::uncaught_exceptions() > unwinding_) {
    // On an exception's way out: the file is completed, and the command decides whether it is
    // published (publish_parked_outputs) or, for bad input, removed (discard_parked_outputs).
    try {
      finish_text();
    } catch (const std::exception&) {
    }
    out_->park();
    return;
  }
  try {
    close();
  } catch (const std::exception&) {
    // The owner asked for no error report by not closing; nothing more can be done here.
  }
}

void ChromeTrace::close_all_open() { LiveFiles<ChromeTrace>::close_all(); }

void ChromeTrace::spill() {
  if (buf_.size() == 0 || !file_) return;
  spilled_ += buf_.size();
  try {
    out_->write(std::string_view(buf_.data(), buf_.size()));
  } catch (const std::exception&) {
    // Kept by the OutputFile: no more events are written, and flush() and close() throw it.
    file_ = nullptr;
  }
  buf_.clear();
}

void ChromeTrace::flush() {
  if (!out_) return;
  spill();
  out_->flush();
}

void ChromeTrace::finish_text() {
  if (!file_) return;
  buf_.append(std::string_view("\n],\"otherData\":"));
  nlohmann::json other = other_data_;
  if (truncated_)
    other["trace_limit"] = {{"truncated", true}, {"max_bytes", max_bytes_},
                            {"dropped_events", dropped_limit_}};
  if (!filter_.empty())
    other["trace_filter"] = {{"keep", filter_}, {"dropped_events", dropped_filter_}};
  const std::string od = other.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  buf_.append(od);
  buf_.append(std::string_view("}\n"));
  spill();
  file_ = nullptr;
  buf_.clear();
}

void ChromeTrace::close() {
  if (!out_) return;
  finish_text();
  const std::unique_ptr<OutputFile> out = std::move(out_);  // closed from here on, whatever commit says
  out->commit();  // the first write error, if any: the destination is then untouched
}

void ChromeTrace::begin_event() {
  buf_.append(std::string_view(events_ == 0 ? "\n{" : ",\n{"));
}

void ChromeTrace::end_event() {
  buf_.push_back('}');
  ++events_;
  if (buf_.size() >= kSpillBytes) spill();
}

void ChromeTrace::write_ts(double us) {
  // Fixed 6 decimals: picosecond resolution, never an exponent. Below 9e9 us (2.5 hours) the
  // picosecond count is an exact integer in a double: format it as integers, which is several
  // times faster than fixed-point double formatting. Beyond, let fmt do it.
  if (std::fabs(us) < 9e9) {
    const long long ps = std::llround(us * 1e6);
    if (ps < 0) buf_.push_back('-');
    write_ps(ps < 0 ? 0ull - static_cast<unsigned long long>(ps) : static_cast<unsigned long long>(ps));
  } else {
    fmt::format_to(std::back_inserter(buf_), FMT_COMPILE("{:.6f}"), us);
  }
}

void ChromeTrace::write_ps(uint64_t ps) {
  const fmt::format_int whole(ps / 1000000);
  buf_.append(whole.data(), whole.data() + whole.size());
  char frac[7] = {'.'};
  uint64_t a = ps % 1000000;
  for (int i = 6; i >= 1; --i, a /= 10) frac[i] = static_cast<char>('0' + a % 10);
  buf_.append(frac, frac + 7);
}

void ChromeTrace::write_args(const nlohmann::json& args) {
  if (args.is_null()) return;
  buf_.append(std::string_view(",\"args\":"));
  buf_.append(args.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

void ChromeTrace::set_max_bytes(uint64_t bytes) { max_bytes_ = bytes; }

bool ChromeTrace::admit() {
  if (truncated_) {
    ++dropped_limit_;
    return false;
  }
  if (max_bytes_ == 0 || spilled_ + buf_.size() < max_bytes_) return true;
  // The limit is reached: say so in the trace itself, once, then drop everything.
  truncated_ = true;
  ++dropped_limit_;
  const int pid = next_id_++;
  const int tid = next_id_++;
  begin_event();
  fmt::format_to(std::back_inserter(buf_),
                 R"("ph":"M","pid":{},"tid":0,"name":"process_name","args":{{"name":"trace"}})", pid);
  end_event();
  begin_event();
  fmt::format_to(std::back_inserter(buf_),
                 R"("ph":"i","s":"g","pid":{},"tid":{},"ts":0,"name":"trace truncated: --trace-max-mb reached at {} bytes; later events are not in this file")",
                 pid, tid, max_bytes_);
  end_event();
  return false;
}

bool ChromeTrace::begin_slice(int track, std::string_view name, double ts_us, double dur_us) {
  check_track(track, name);
  check_finite(ts_us, "timestamp", name);
  check_finite(dur_us, "duration", name);
  if (dur_us < 0)
    throw std::invalid_argument(
        fmt::format("trace event '{}': negative duration {}", name, dur_us));
  if (!file_) return false;
  const Track& t = tracks_[track];
  if (!t.keep) {
    ++dropped_filter_;
    return false;
  }
  if (!admit()) return false;
  buf_.append(std::string_view(events_ == 0 ? "\n" : ",\n"));
  buf_.append(t.slice_head);
  write_ts(ts_us);
  buf_.append(std::string_view(",\"dur\":"));
  write_ts(dur_us);
  buf_.append(std::string_view(",\"name\":\""));
  append_json_escaped(buf_, name);
  buf_.push_back('"');
  return true;
}

bool ChromeTrace::begin_instant(int track, std::string_view name, double ts_us) {
  check_track(track, name);
  check_finite(ts_us, "timestamp", name);
  if (!file_) return false;
  const Track& t = tracks_[track];
  if (!t.keep) {
    ++dropped_filter_;
    return false;
  }
  if (!admit()) return false;
  buf_.append(std::string_view(events_ == 0 ? "\n" : ",\n"));
  buf_.append(t.instant_head);
  write_ts(ts_us);
  buf_.append(std::string_view(",\"name\":\""));
  append_json_escaped(buf_, name);
  buf_.push_back('"');
  return true;
}

void ChromeTrace::slice(int track, std::string_view name, double ts_us, double dur_us,
                        const nlohmann::json& args) {
  check_args(args, name);
  if (!begin_slice(track, name, ts_us, dur_us)) return;
  write_args(args);
  end_event();
}

void ChromeTrace::slice_fast(int track, std::string_view name, double ts_us, double dur_us,
                             std::initializer_list<TraceArg> args) {
  if (!begin_slice(track, name, ts_us, dur_us)) return;
  write_args(args);
  end_event();
}

void ChromeTrace::instant(int track, std::string_view name, double ts_us,
                          const nlohmann::json& args) {
  check_args(args, name);
  if (!begin_instant(track, name, ts_us)) return;
  write_args(args);
  end_event();
}

void ChromeTrace::instant_fast(int track, std::string_view name, double ts_us,
                               std::initializer_list<TraceArg> args) {
  if (!begin_instant(track, name, ts_us)) return;
  write_args(args);
  end_event();
}

void ChromeTrace::counter(const std::string& process, std::string_view name, double ts_us,
                          const std::vector<std::pair<std::string, double>>& series) {
  check_finite(ts_us, "timestamp", name);
  for (const auto& s : series) check_finite(s.second, "counter value", name);
  if (!file_) return;
  if (!kept_counter(process, name)) {
    ++dropped_filter_;
    return;
  }
  if (!admit()) return;
  const int pid = process_id(process);
  begin_event();
  fmt::format_to(std::back_inserter(buf_), FMT_COMPILE(R"("ph":"C","pid":{},"tid":0,"ts":)"), pid);
  write_ts(ts_us);
  buf_.append(std::string_view(",\"name\":\""));
  append_json_escaped(buf_, name);
  buf_.append(std::string_view("\",\"args\":{"));
  for (size_t i = 0; i < series.size(); ++i) {
    buf_.append(std::string_view(i == 0 ? "\"" : ",\""));
    append_json_escaped(buf_, series[i].first);
    // Shortest representation that reads back to the same double.
    fmt::format_to(std::back_inserter(buf_), FMT_COMPILE("\":{}"), series[i].second);
  }
  buf_.push_back('}');
  end_event();
}

void ChromeTrace::set_metadata(const nlohmann::json& other_data) {
  if (!other_data.is_object())
    throw std::invalid_argument(fmt::format("trace '{}': metadata must be a JSON object, got {}",
                                            path_, other_data.type_name()));
  other_data_ = other_data;
}

}  // namespace npusim::sim
