// ChromeTrace's tracks: processes and threads as (pid, tid) rows with their name and sort-index
// metadata, written the first time each is seen, and the --trace-filter that keeps some.
#include <fmt/compile.h>

#include <iterator>
#include <stdexcept>

#include "sim/output/chrome_trace.h"

namespace npusim::sim {

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

void ChromeTrace::set_filter(std::vector<std::string> patterns) {
  for (const auto& p : patterns)
    if (p.empty()) throw std::invalid_argument("trace filter: an empty pattern matches no track");
  filter_ = std::move(patterns);
  filter_used_.assign(filter_.size(), 0);
}

std::vector<std::string> ChromeTrace::unmatched_filters() const {
  std::vector<std::string> out;
  for (size_t i = 0; i < filter_.size(); ++i)
    if (!filter_used_[i]) out.push_back(filter_[i]);
  return out;
}

bool ChromeTrace::kept(const std::string& process, const std::string& thread) const {
  if (filter_.empty()) return true;
  const std::string both = process + "/" + thread;
  bool keep = false;
  for (size_t i = 0; i < filter_.size(); ++i)
    if (glob(filter_[i], process) || glob(filter_[i], thread) || glob(filter_[i], both)) {
      filter_used_[i] = 1;
      keep = true;
    }
  return keep;
}

bool ChromeTrace::kept_counter(const std::string& process, std::string_view name) const {
  if (filter_.empty()) return true;
  bool keep = false;
  for (size_t i = 0; i < filter_.size(); ++i)
    if (glob(filter_[i], process) || glob(filter_[i], name)) {
      filter_used_[i] = 1;
      keep = true;
    }
  return keep;
}

void ChromeTrace::write_name(const char* kind, int pid, int tid, std::string_view name,
                             int order) {
  begin_event();
  fmt::format_to(std::back_inserter(buf_),
                 R"("ph":"M","pid":{},"tid":{},"name":"{}_name","args":{{"name":")", pid, tid,
                 kind);
  append_json_escaped(buf_, name);
  buf_.append(std::string_view("\"}"));
  end_event();
  begin_event();
  fmt::format_to(std::back_inserter(buf_),
                 R"("ph":"M","pid":{},"tid":{},"name":"{}_sort_index","args":{{"sort_index":{}}})",
                 pid, tid, kind, order);
  end_event();
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
  write_name("process", pid, 0, process, order);
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
  write_name("thread", pid, tid, thread, order);
  return id;
}

}  // namespace npusim::sim
