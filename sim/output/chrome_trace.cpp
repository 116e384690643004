#include "sim/output/chrome_trace.h"
#include "sim/output/live_files.h"

#include <fmt/compile.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <iterator>
#include <mutex>
#include <set>
#include <stdexcept>

namespace npusim::sim {

namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0 if it is not one.
size_t utf8_length(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  size_t n;
  unsigned char lo = 0x80, hi = 0xBF;  // range of the second byte
  if (c >= 0xC2 && c <= 0xDF)
    n = 2;
  else if (c == 0xE0)
    n = 3, lo = 0xA0;
  else if (c >= 0xE1 && c <= 0xEF)
    n = 3, hi = c == 0xED ? 0x9F : 0xBF;  // no surrogates
  else if (c == 0xF0)
    n = 4, lo = 0x90;
  else if (c >= 0xF1 && c <= 0xF3)
    n = 4;
  else if (c == 0xF4)
    n = 4, hi = 0x8F;
  else
    return 0;
  if (i + n > s.size()) return 0;
  if (b(i + 1) < lo || b(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k)
    if (b(i + k) < 0x80 || b(i + k) > 0xBF) return 0;
  return n;
}

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

void append_json_escaped(fmt::memory_buffer& out, std::string_view s) {
  size_t run = 0;  // start of the pending run of bytes that need no escaping
  const auto emit_run = [&](size_t end) { out.append(s.data() + run, s.data() + end); };
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
      ++i;
      continue;
    }
    if (c >= 0x80) {
      if (const size_t n = utf8_length(s, i)) {
        i += n;
        continue;
      }
    }
    emit_run(i);
    switch (c) {
      case '"':
        out.append(std::string_view("\\\""));
        break;
      case '\\':
        out.append(std::string_view("\\\\"));
        break;
      case '\n':
        out.append(std::string_view("\\n"));
        break;
      case '\r':
        out.append(std::string_view("\\r"));
        break;
      case '\t':
        out.append(std::string_view("\\t"));
        break;
      case '\b':
        out.append(std::string_view("\\b"));
        break;
      case '\f':
        out.append(std::string_view("\\f"));
        break;
      default:
        if (c < 0x20)
          fmt::format_to(std::back_inserter(out), "\\u{:04x}", c);
        else
          out.append(std::string_view("\\ufffd"));  // a byte that is not valid UTF-8
    }
    run = ++i;
  }
  emit_run(s.size());
}

ChromeTrace::ChromeTrace(const std::string& path) : path_(path) {
  file_ = std::fopen(path.c_str(), "wb");
  if (!file_)
    throw std::runtime_error(
        fmt::format("cannot open trace file '{}': {}", path, std::strerror(errno)));
  buf_.append(std::string_view(R"({"displayTimeUnit":"ns","traceEvents":[)"));
  LiveFiles<ChromeTrace>::add(this);
}

ChromeTrace::~ChromeTrace() {
  LiveFiles<ChromeTrace>::remove(this);
  try {
    close();
  } catch (const std::exception&) {
    // The owner asked for no error report by not closing; nothing more can be done here.
  }
}

void ChromeTrace::close_all_open() { LiveFiles<ChromeTrace>::close_all(); }

void ChromeTrace::spill() {
  if (buf_.size() == 0) return;
  const size_t n = std::fwrite(buf_.data(), 1, buf_.size(), file_);
  spilled_ += n;
  const size_t want = buf_.size();
  buf_.clear();
  if (n != want)
    throw std::runtime_error(
        fmt::format("cannot write trace file '{}': {}", path_, std::strerror(errno)));
}

void ChromeTrace::flush() {
  if (!file_) return;
  spill();
  if (std::fflush(file_) != 0)
    throw std::runtime_error(
        fmt::format("cannot write trace file '{}': {}", path_, std::strerror(errno)));
}

void ChromeTrace::close() {
  if (!file_) return;
  std::FILE* f = file_;
  std::string error;
  try {
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
    flush();
  } catch (const std::runtime_error& e) {
    error = e.what();
  }
  file_ = nullptr;
  buf_.clear();
  if (std::fclose(f) != 0 && error.empty())
    error = fmt::format("cannot close trace file '{}': {}", path_, std::strerror(errno));
  if (!error.empty()) throw std::runtime_error(error);
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

void ChromeTrace::check_track(int track, std::string_view name) const {
  if (track < 0 || static_cast<size_t>(track) >= tracks_.size())
    throw std::invalid_argument(fmt::format("trace event '{}': unknown track {}", name, track));
}

namespace {

// `*` any run, `?` any one character.
bool glob(std::string_view p, std::string_view s) {
  size_t pi = 0, si = 0, star = std::string_view::npos, mark = 0;
  while (si < s.size()) {
    if (pi < p.size() && (p[pi] == '?' || p[pi] == s[si])) {
      ++pi, ++si;
    } else if (pi < p.size() && p[pi] == '*') {
      star = pi++;
      mark = si;
    } else if (star != std::string_view::npos) {
      pi = star + 1;
      si = ++mark;
    } else {
      return false;
    }
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

}  // namespace

void ChromeTrace::set_filter(std::vector<std::string> patterns) { filter_ = std::move(patterns); }
void ChromeTrace::set_max_bytes(uint64_t bytes) { max_bytes_ = bytes; }

bool ChromeTrace::kept(const std::string& process, const std::string& thread) const {
  if (filter_.empty()) return true;
  const std::string both = process + "/" + thread;
  for (const auto& p : filter_)
    if (glob(p, process) || glob(p, thread) || glob(p, both)) return true;
  return false;
}

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

int ChromeTrace::process_id(const std::string& process, bool emit) {
  int pid;
  if (auto it = processes_.find(process); it != processes_.end()) {
    pid = it->second;
  } else {
    pid = next_id_++;
    processes_.emplace(process, pid);
  }
  if (!file_ || !emit || named_processes_.count(pid) || truncated_) return pid;
  const int order = static_cast<int>(named_processes_.size());
  named_processes_.insert(pid);
  begin_event();
  fmt::format_to(std::back_inserter(buf_),
                 R"("ph":"M","pid":{},"tid":0,"name":"process_name","args":{{"name":")", pid);
  append_json_escaped(buf_, process);
  buf_.append(std::string_view("\"}"));
  end_event();
  begin_event();
  fmt::format_to(
      std::back_inserter(buf_),
      R"("ph":"M","pid":{},"tid":0,"name":"process_sort_index","args":{{"sort_index":{}}})", pid,
      order);
  end_event();
  return pid;
}

int ChromeTrace::track(const std::string& process, const std::string& thread,
                       std::optional<int> sort_index) {
  const bool keep = kept(process, thread);
  const int pid = process_id(process, keep);
  const auto key = std::make_pair(pid, thread);
  if (auto it = track_ids_.find(key); it != track_ids_.end()) return it->second;
  const int id = static_cast<int>(tracks_.size());
  const int tid = next_id_++;
  const int order = sort_index.value_or(threads_in_process_[pid]);
  ++threads_in_process_[pid];
  tracks_.push_back({pid, tid, keep, fmt::format(R"({{"ph":"X","pid":{},"tid":{},"ts":)", pid, tid),
                     fmt::format(R"({{"ph":"i","s":"t","pid":{},"tid":{},"ts":)", pid, tid)});
  track_ids_.emplace(key, id);
  if (!file_ || !keep || truncated_) return id;
  begin_event();
  fmt::format_to(std::back_inserter(buf_),
                 R"("ph":"M","pid":{},"tid":{},"name":"thread_name","args":{{"name":")", pid, tid);
  append_json_escaped(buf_, thread);
  buf_.append(std::string_view("\"}"));
  end_event();
  begin_event();
  fmt::format_to(
      std::back_inserter(buf_),
      R"("ph":"M","pid":{},"tid":{},"name":"thread_sort_index","args":{{"sort_index":{}}})", pid,
      tid, order);
  end_event();
  return id;
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
  if (!filter_.empty()) {
    bool keep = false;
    for (const auto& p : filter_) keep = keep || glob(p, process) || glob(p, name);
    if (!keep) {
      ++dropped_filter_;
      return;
    }
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
