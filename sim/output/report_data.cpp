#include "sim/output/report_data.h"

#include "sim/output/trace_scan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <tuple>
#include <vector>

namespace npusim::sim {

namespace {

using Json = nlohmann::ordered_json;

[[noreturn]] void fail(const std::string& file, size_t line, const std::string& why) {
  throw std::runtime_error(line ? fmt::format("{}:{}: {}", file, line, why) : fmt::format("{}: {}", file, why));
}

std::string shorten(const std::string& s) { return s.size() > 60 ? s.substr(0, 57) + "..." : s; }

// Line of byte offset `pos` in `text` (1-based).
size_t line_of(const std::string& text, size_t pos) {
  return 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + static_cast<long>(std::min(pos, text.size())), '\n'));
}

std::string read_all(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("cannot open {} '{}'", what, path));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

uint64_t number_or_hex(const Json& v) {
  if (v.is_number_unsigned() || v.is_number_integer()) return v.get<uint64_t>();
  if (v.is_number()) return static_cast<uint64_t>(v.get<double>());
  if (v.is_string()) return std::stoull(v.get<std::string>(), nullptr, 0);
  throw std::invalid_argument("not an address");
}

// Keeps the first `n` entries of the array `j[key]`; records how many there were.
void cap_list(Json& j, const char* key, size_t n, Json& truncated) {
  if (!j.contains(key) || !j[key].is_array() || j[key].size() <= n) return;
  truncated[key] = j[key].size();
  Json kept = Json::array();
  for (size_t i = 0; i < n; ++i) kept.push_back(std::move(j[key][i]));
  j[key] = std::move(kept);
}

struct Slice {
  double ts, dur;
  uint32_t name;
};
struct Row {
  std::string group, name;
  std::vector<Slice> slices;
  std::vector<std::pair<double, uint32_t>> marks;
  uint64_t marks_seen = 0, mark_stride = 1;  // beyond the limit, every mark_stride-th is kept
};
struct Block {
  uint64_t base, size;
  double t0, t1;
  bool live;
};
struct HeapData {
  std::optional<std::pair<uint64_t, uint64_t>> pool;
  std::map<uint64_t, std::tuple<uint64_t, double>> open;  // base -> size, t0
  std::vector<Block> blocks;
  Json failed = Json::array(), bad_frees = Json::array();
};

// Everything the trace holds that the page draws, before downsampling.
class TraceReader {
 public:
  TraceReader(const std::string& file, const HtmlLimits& lim) : file_(file), lim_(lim) {}

  void event(const Json& e, size_t line) {
    const std::string ph = e.value("ph", "");
    const int pid = e.value("pid", 0), tid = e.value("tid", 0);
    if (ph == "M") {
      const std::string n = e.value("name", "");
      const Json& a = e.contains("args") ? e["args"] : Json::object();
      if (n == "process_name") process_[pid] = a.value("name", "");
      if (n == "thread_name") thread_[{pid, tid}] = a.value("name", "");
      if (n == "thread_sort_index" && a.contains("sort_index") && a["sort_index"].is_number_integer())
        sort_[{pid, tid}] = a["sort_index"].get<int>();
      if (n == "process_name" && !proc_order_.count(pid)) proc_order_[pid] = static_cast<int>(proc_order_.size());
      return;
    }
    if (!e.contains("ts") || !e["ts"].is_number()) fail(file_, line, "event without a numeric \"ts\"");
    const double ts = e["ts"].get<double>();
    const std::string name = e.value("name", "");
    const Json args = e.contains("args") && e["args"].is_object() ? e["args"] : Json::object();
    if (ph == "X") {
      const double dur = e.contains("dur") && e["dur"].is_number() ? e["dur"].get<double>() : 0.0;
      end_ = std::max(end_, ts + dur);
      row(pid, tid).slices.push_back(Slice{ts, dur, intern(name)});
      if (name.rfind("snrt_l", 0) == 0 && name.find("_alloc") != std::string::npos) snitch_alloc(name, args, ts);
    } else if (ph == "C") {
      end_ = std::max(end_, ts);
      auto& c = counters_[{process(pid), name}];
      for (const auto& [k, v] : args.items())
        if (v.is_number()) c[k].emplace_back(ts, v.get<double>());
    } else if (ph == "i" || ph == "I") {
      end_ = std::max(end_, ts);
      instant(pid, tid, ts, name, args, line);
    }
  }
  // The common events without a JSON value (trace_scan.h); false: parse the line as JSON.
  bool fast(const ScannedEvent& e) {
    if (e.ph == 'X') {
      if (e.name.substr(0, 6) == "snrt_l") return false;  // an allocator call: its args matter
      end_ = std::max(end_, e.ts + e.dur);
      row(e.pid, e.tid).slices.push_back(Slice{e.ts, e.dur, intern(e.name)});
      return true;
    }
    if (e.ph == 'C') {
      if (!scan_number_args(e.rest, scratch_)) return false;
      end_ = std::max(end_, e.ts);
      auto& c = counters_[{process(e.pid), std::string(e.name)}];
      for (const auto& [k, v] : scratch_) {
        auto it = c.find(k);
        if (it == c.end()) it = c.emplace(std::string(k), std::vector<std::pair<double, double>>{}).first;
        it->second.emplace_back(e.ts, v);
      }
      return true;
    }
    const std::string proc = process(e.pid);
    if (proc == "heaps" || proc == "memories" || proc == "faults") return false;
    end_ = std::max(end_, e.ts);
    Row& r = row(e.pid, e.tid);
    mark(r, e.ts, e.name);
    return true;
  }
  void other_data(const Json& o) {
    if (o.contains("end_us") && o["end_us"].is_number()) end_ = std::max(end_, o["end_us"].get<double>());
  }
  Json result();

 private:
  std::string process(int pid) const {
    auto it = process_.find(pid);
    return it == process_.end() ? fmt::format("process {}", pid) : it->second;
  }
  Row& row(int pid, int tid) {
    auto it = rows_.find({pid, tid});
    if (it != rows_.end()) return it->second;
    auto tn = thread_.find({pid, tid});
    Row r{process(pid), tn == thread_.end() ? fmt::format("thread {}", tid) : tn->second, {}, {}};
    order_.push_back({pid, tid});
    return rows_.emplace(std::make_pair(pid, tid), std::move(r)).first->second;
  }
  uint32_t intern(std::string_view n) {
    const auto it = names_.find(n);
    if (it != names_.end()) return it->second;
    const auto id = static_cast<uint32_t>(name_list_.size());
    name_list_.emplace_back(n);
    names_.emplace(std::string(n), id);
    return id;
  }
  void instant(int pid, int tid, double ts, const std::string& name, const Json& args, size_t line);
  // Markers on a row, evenly thinned to at most 2 x the list limit: when full, every other one
  // goes and the stride doubles.
  void mark(Row& r, double ts, std::string_view name) {
    if (r.marks_seen++ % r.mark_stride != 0) return;
    r.marks.emplace_back(ts, intern(name));
    if (r.marks.size() < 2 * std::max<size_t>(1, lim_.list)) return;
    size_t k = 0;
    for (size_t i = 0; i < r.marks.size(); i += 2) r.marks[k++] = r.marks[i];
    r.marks.resize(k);
    r.mark_stride *= 2;
  }
  void snitch_alloc(const std::string& name, const Json& args, double ts);

  std::string file_;
  HtmlLimits lim_;
  double end_ = 0;
  std::map<int, std::string> process_;
  std::map<std::pair<int, int>, std::string> thread_;
  std::map<std::pair<int, int>, int> sort_;  // thread_sort_index
  std::map<int, int> proc_order_;            // processes in the order they were named
  std::map<std::pair<int, int>, Row> rows_;
  std::vector<std::pair<int, int>> order_;
  std::map<std::string, uint32_t, std::less<>> names_;
  std::vector<std::pair<std::string_view, double>> scratch_;
  std::vector<std::string> name_list_;
  std::map<std::pair<std::string, std::string>, std::map<std::string, std::vector<std::pair<double, double>>, std::less<>>> counters_;
  std::map<std::string, HeapData> heaps_;
  Json latency_ = Json::object(), faults_ = Json::array();
  size_t faults_total_ = 0;
};

void TraceReader::instant(int pid, int tid, double ts, const std::string& name, const Json& args, size_t line) {
  const std::string proc = process(pid);
  try {
    if (proc == "heaps" && args.contains("heap")) {
      HeapData& h = heaps_[args["heap"].get<std::string>()];
      if (name == "pool") {
        h.pool = std::make_pair(number_or_hex(args.at("base")), number_or_hex(args.at("size")));
      } else if (name == "alloc") {
        h.open[number_or_hex(args.at("base"))] = {number_or_hex(args.at("size")), ts};
      } else if (name == "free") {
        const auto it = h.open.find(number_or_hex(args.at("base")));
        if (it != h.open.end()) {
          h.blocks.push_back(Block{it->first, std::get<0>(it->second), std::get<1>(it->second), ts, false});
          h.open.erase(it);
        }
      }
      return;
    }
    if (proc == "memories" && args.contains("quantiles_ns")) {
      latency_[args.value("memory", name)] = Json{{"count", args.value("count", 0)}, {"quantiles_ns", args["quantiles_ns"]}};
      return;
    }
    if (proc == "faults") {
      if (args.contains("heap") && name == "allocation failure")
        heaps_[args["heap"].get<std::string>()].failed.push_back(Json::array({ts, args.value("size", 0)}));
      if (args.contains("heap") && name == "bad free" && args.contains("addr"))
        heaps_[args["heap"].get<std::string>()].bad_frees.push_back(Json::array({ts, number_or_hex(args["addr"])}));
      if (++faults_total_ <= lim_.list) faults_.push_back(Json{{"ts", ts}, {"name", name}, {"row", thread_.count({pid, tid}) ? thread_[{pid, tid}] : proc}, {"args", args}});
      return;
    }
  } catch (const std::exception& ex) {
    fail(file_, line, fmt::format("instant '{}': {}", name, ex.what()));
  }
  Row& r = row(pid, tid);
  mark(r, ts, name);
}

// Snitch allocator calls carry their result: bump allocations, never freed (docs/snitch-allocator.md).
void TraceReader::snitch_alloc(const std::string& name, const Json& args, double ts) {
  if (!args.contains("addr") || !args.contains("size") || args.value("trap", false)) return;
  const std::string heap = name.substr(5, 2);  // "l1" or "l3"
  HeapData& h = heaps_[heap];
  const uint64_t base = number_or_hex(args["addr"]);
  if (!h.open.count(base)) h.open[base] = {number_or_hex(args["size"]), ts};
}

Json flat_series(const std::vector<std::pair<double, double>>& pts, size_t limit) {
  Json out = Json::array();
  auto put = [&](const std::pair<double, double>& p) {
    out.push_back(p.first);
    out.push_back(p.second);
  };
  if (pts.size() <= limit || pts.size() < 4) {
    for (const auto& p : pts) put(p);
    return out;
  }
  // Min and max of each bin, in time order: spikes survive, the shape holds.
  const size_t bins = std::max<size_t>(1, limit / 2);
  const double t0 = pts.front().first, span = std::max(1e-12, pts.back().first - t0);
  size_t i = 0;
  for (size_t b = 0; b < bins && i < pts.size(); ++b) {
    const double hi = t0 + span * static_cast<double>(b + 1) / static_cast<double>(bins);
    size_t lo_i = i, hi_i = i, j = i;
    for (; j < pts.size() && (pts[j].first <= hi || b + 1 == bins); ++j) {
      if (pts[j].second < pts[lo_i].second) lo_i = j;
      if (pts[j].second > pts[hi_i].second) hi_i = j;
    }
    put(pts[std::min(lo_i, hi_i)]);
    if (lo_i != hi_i) put(pts[std::max(lo_i, hi_i)]);
    i = j;
  }
  if (out.size() >= 2 && out[out.size() - 2].get<double>() < pts.back().first) put(pts.back());
  return out;
}

Json TraceReader::result() {
  // Rows as the viewers show them: by process, then by sort index, then by first use.
  std::stable_sort(order_.begin(), order_.end(), [&](const std::pair<int, int>& a, const std::pair<int, int>& b) {
    auto rank = [&](const std::pair<int, int>& k) {
      const auto p = proc_order_.find(k.first);
      const auto s = sort_.find(k);
      return std::make_pair(p == proc_order_.end() ? INT32_MAX : p->second, s == sort_.end() ? INT32_MAX : s->second);
    };
    return rank(a) < rank(b);
  });
  Json rows = Json::array();
  for (const auto& key : order_) {
    Row& r = rows_.at(key);
    std::sort(r.slices.begin(), r.slices.end(), [](const Slice& a, const Slice& b) { return a.ts < b.ts; });
    Json s = Json::array();
    const double gap = r.slices.size() > lim_.slices_per_row ? end_ / static_cast<double>(lim_.slices_per_row) : -1.0;
    for (size_t i = 0; i < r.slices.size();) {
      // Beyond the limit, bars closer than `gap` merge into one bar "N events", within bins
      // of `gap`: at most twice the limit of bars, and zooming in still shows the shape.
      double t0 = r.slices[i].ts, t1 = t0 + r.slices[i].dur;
      const double bin_end = gap > 0 ? (std::floor(t0 / gap) + 1) * gap : 0;
      uint32_t name = r.slices[i].name;
      size_t j = i + 1;
      for (; j < r.slices.size() && r.slices[j].ts - t1 < gap && r.slices[j].ts < bin_end; ++j) {
        t1 = std::max(t1, r.slices[j].ts + r.slices[j].dur);
        if (r.slices[j].name != name) name = UINT32_MAX;
      }
      s.push_back(t0);
      s.push_back(t1 - t0);
      s.push_back(name == UINT32_MAX ? -1 : static_cast<int64_t>(name));
      s.push_back(j - i);
      i = j;
    }
    Json m = Json::array();
    for (const auto& [t, n] : r.marks) {
      m.push_back(t);
      m.push_back(n);
    }
    rows.push_back(Json{{"group", r.group}, {"name", r.name}, {"n", r.slices.size()}, {"s", std::move(s)}, {"m", std::move(m)}});
  }
  Json counters = Json::array();
  for (const auto& [key, series] : counters_) {
    Json ser = Json::object();
    for (const auto& [k, pts] : series) ser[k] = flat_series(pts, lim_.points);
    counters.push_back(Json{{"group", key.first}, {"name", key.second}, {"series", std::move(ser)}});
  }
  Json heaps = Json::object();
  for (auto& [name, h] : heaps_) {
    for (const auto& [base, v] : h.open) h.blocks.push_back(Block{base, std::get<0>(v), std::get<1>(v), end_, true});
    const size_t total = h.blocks.size();
    if (h.blocks.size() > lim_.blocks) {
      std::nth_element(h.blocks.begin(), h.blocks.begin() + static_cast<long>(lim_.blocks), h.blocks.end(),
                       [](const Block& a, const Block& b) { return a.t1 - a.t0 > b.t1 - b.t0; });
      h.blocks.resize(lim_.blocks);
    }
    std::sort(h.blocks.begin(), h.blocks.end(), [](const Block& a, const Block& b) { return a.t0 < b.t0; });
    Json b = Json::array();
    for (const Block& x : h.blocks) {
      for (double v : {static_cast<double>(x.base), static_cast<double>(x.size), x.t0, x.t1}) b.push_back(v);
      b.push_back(x.live ? 1 : 0);
    }
    Json pool = nullptr;
    if (h.pool) pool = Json::array({h.pool->first, h.pool->second});
    heaps[name] = Json{{"pool", pool}, {"n", total}, {"blocks", std::move(b)},
                       {"failed", h.failed}, {"bad_frees", h.bad_frees}};
  }
  return Json{{"end_us", end_}, {"names", name_list_}, {"rows", std::move(rows)}, {"counters", std::move(counters)},
              {"heaps", std::move(heaps)}, {"latency", latency_}, {"faults", faults_}, {"faults_total", faults_total_}};
}

// The trace, event by event: npusim writes one event per line, so memory stays bounded by
// what the page keeps. A file in another layout is parsed whole.
Json read_trace(const std::string& path, const HtmlLimits& lim, bool fast) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(fmt::format("cannot open trace '{}'", path));
  TraceReader r(path, lim);
  std::string line;
  size_t n = 0;
  bool header = false;
  while (std::getline(in, line)) {
    ++n;
    if (n == 1) {
      header = line.rfind("{\"displayTimeUnit\"", 0) == 0 && line.find("\"traceEvents\":[") != std::string::npos;
      if (!header) break;
      continue;
    }
    if (line.empty()) continue;
    if (line.rfind("],\"otherData\":", 0) == 0) {
      try {
        r.other_data(Json::parse(line.substr(14, line.size() - 15)));
      } catch (const Json::exception&) {
        fail(path, n, "unreadable otherData: '" + shorten(line) + "'");
      }
      return r.result();
    }
    if (line == "]}" || line == "]") return r.result();
    if (line.back() == ',') line.pop_back();
    if (ScannedEvent se; fast && scan_event_line(line, se) && r.fast(se)) continue;
    Json e;
    try {
      e = Json::parse(line);
    } catch (const Json::exception&) {
      fail(path, n, "not a trace event: '" + shorten(line) + "'");
    }
    if (!e.is_object()) fail(path, n, "not a trace event: '" + shorten(line) + "'");
    r.event(e, n);
  }
  if (header) return r.result();  // cut short (a crash): what is there is shown
  const std::string text = read_all(path, "trace");
  Json all;
  try {
    all = Json::parse(text);
  } catch (const Json::parse_error& e) {
    fail(path, line_of(text, e.byte), std::string("not valid JSON: ") + e.what());
  } catch (const Json::exception& e) {  // a number beyond a double
    fail(path, 0, std::string("not readable JSON: ") + e.what());
  }
  const Json* events = all.is_array() ? &all : all.is_object() && all.contains("traceEvents") ? &all["traceEvents"] : nullptr;
  if (events == nullptr || !events->is_array()) fail(path, 0, "not a Chrome trace (no \"traceEvents\" list)");
  for (const auto& e : *events)
    if (e.is_object()) r.event(e, 0);
  if (all.is_object() && all.contains("otherData")) r.other_data(all["otherData"]);
  return r.result();
}

}  // namespace

Json load_run_data(const std::string& report_path, const std::string& trace_path, const HtmlLimits& lim) {
  const std::string text = read_all(report_path, "report");
  Json report;
  try {
    report = Json::parse(text);
  } catch (const Json::parse_error& e) {
    fail(report_path, line_of(text, e.byte), std::string("not valid JSON: ") + e.what());
  } catch (const Json::exception& e) {  // a number beyond a double
    fail(report_path, 0, std::string("not readable JSON: ") + e.what());
  }
  if (!report.is_object() || !report.contains("npusim_report_version"))
    fail(report_path, 1, "not a npusim report (no \"npusim_report_version\"; docs/report.md)");
  if (report["npusim_report_version"] != 1)
    fail(report_path, 1, "unsupported npusim_report_version " + report["npusim_report_version"].dump() + " (this npusim reads 1)");
  return run_data(std::move(report), report_path, trace_path, lim);
}

Json run_data(Json report, const std::string& report_label, const std::string& trace_path, const HtmlLimits& lim) {
  Json truncated = Json::object();
  for (const char* k : {"markers", "violations", "traps", "diagnostics", "undefined_results", "faults"})
    cap_list(report, k, lim.list, truncated);
  Json out{{"report_file", report_label}, {"report", std::move(report)}, {"truncated", truncated}};
  out["trace_file"] = trace_path.empty() ? Json(nullptr) : Json(trace_path);
  out["trace"] = trace_path.empty() ? Json(nullptr) : read_trace(trace_path, lim, lim.fast_scan);
  return out;
}

}  // namespace npusim::sim
