#include "sim/output/report_data.h"

#include "sim/output/trace_scan.h"

#include "sim/input/input_error.h"
#include "sim/input/json_fields.h"
#include "sim/input/json_input.h"
#include "sim/input/limits.h"
#include "sim/input/yaml_input.h"

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

std::string read_all(const std::string& path, const char* what) { return read_input_file(path, what); }

// An address or a size: a non-negative whole number, or a string of one in decimal or 0x-hex.
uint64_t number_or_hex(const Json& v) {
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_number_integer() && v.get<int64_t>() >= 0) return static_cast<uint64_t>(v.get<int64_t>());
  if (v.is_number_float() && v.get<double>() >= 0 && v.get<double>() < 18446744073709551616.0)
    return static_cast<uint64_t>(v.get<double>());
  if (v.is_string())
    if (const auto n = parse_number(v.get<std::string>())) return *n;
  throw std::invalid_argument(fmt::format("expected an address (a whole number, or one in a string), got {} '{}'",
                                          json_kind(v), json_excerpt(v)));
}

// A member of a trace event or of its args, checked: absent (or null) gives `dflt`; another
// type is an error naming the member and the value.
std::string str_of(const Json& o, const char* k, const std::string& dflt = {}) {
  const auto it = o.find(k);
  if (it == o.end() || it->is_null()) return dflt;
  if (!it->is_string())
    throw std::invalid_argument(fmt::format("\"{}\" must be a string, not {} '{}'", k, json_kind(*it), json_excerpt(*it)));
  return it->get<std::string>();
}
int int_of(const Json& o, const char* k, int dflt = 0) {
  const auto it = o.find(k);
  if (it == o.end() || it->is_null()) return dflt;
  if ((it->is_number_integer() && it->get<int64_t>() >= INT32_MIN && it->get<int64_t>() <= INT32_MAX) ||
      (it->is_number_unsigned() && it->get<uint64_t>() <= INT32_MAX))
    return static_cast<int>(it->get<int64_t>());
  throw std::invalid_argument(fmt::format("\"{}\" must be a whole number that fits 32 bits, not {} '{}'", k,
                                          json_kind(*it), json_excerpt(*it)));
}
double num_of(const Json& o, const char* k, double dflt = 0) {
  const auto it = o.find(k);
  if (it == o.end() || it->is_null()) return dflt;
  if (!it->is_number())
    throw std::invalid_argument(fmt::format("\"{}\" must be a number, not {} '{}'", k, json_kind(*it), json_excerpt(*it)));
  return it->get<double>();
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
    try {
      checked_event(e, line);
    } catch (const std::invalid_argument& ex) {
      fail(file_, line, fmt::format("a trace event: {}", ex.what()));
    }
  }
  void checked_event(const Json& e, size_t line) {
    const std::string ph = str_of(e, "ph");
    const int pid = int_of(e, "pid"), tid = int_of(e, "tid");
    if (ph == "M") {
      const std::string n = str_of(e, "name");
      const Json a = e.contains("args") && e["args"].is_object() ? e["args"] : Json::object();
      if (n == "process_name") process_[pid] = str_of(a, "name");
      if (n == "thread_name") thread_[{pid, tid}] = str_of(a, "name");
      if (n == "thread_sort_index" && a.contains("sort_index") && a["sort_index"].is_number_integer())
        sort_[{pid, tid}] = a["sort_index"].get<int>();
      if (n == "process_name" && !proc_order_.count(pid)) proc_order_[pid] = static_cast<int>(proc_order_.size());
      return;
    }
    if (!e.contains("ts") || !e["ts"].is_number()) fail(file_, line, "event without a numeric \"ts\"");
    const double ts = e["ts"].get<double>();
    const std::string name = str_of(e, "name");
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
    if (o.is_object() && o.contains("end_us") && o["end_us"].is_number()) end_ = std::max(end_, o["end_us"].get<double>());
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
      HeapData& h = heaps_[str_of(args, "heap")];
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
      const Json& q = args["quantiles_ns"];
      if (!q.is_array()) throw std::invalid_argument("\"quantiles_ns\" must be a list of numbers");
      for (const auto& x : q)
        if (!x.is_number()) throw std::invalid_argument("\"quantiles_ns\" must be a list of numbers");
      latency_[str_of(args, "memory", name)] = Json{{"count", num_of(args, "count")}, {"quantiles_ns", q}};
      return;
    }
    if (proc == "faults") {
      if (args.contains("heap") && name == "allocation failure")
        heaps_[str_of(args, "heap")].failed.push_back(Json::array({ts, num_of(args, "size")}));
      if (args.contains("heap") && name == "bad free" && args.contains("addr"))
        heaps_[str_of(args, "heap")].bad_frees.push_back(Json::array({ts, number_or_hex(args["addr"])}));
      if (++faults_total_ <= lim_.list) faults_.push_back(Json{{"ts", ts}, {"name", name}, {"row", thread_.count({pid, tid}) ? thread_[{pid, tid}] : proc}, {"args", args}});
      return;
    }
  } catch (const std::invalid_argument& ex) {
    fail(file_, line, fmt::format("instant '{}': {}", name, ex.what()));
  } catch (const Json::exception&) {
    fail(file_, line, fmt::format("instant '{}': a member is missing or not a number (base, size, addr)", name));
  }
  Row& r = row(pid, tid);
  mark(r, ts, name);
}

// Snitch allocator calls carry their result: bump allocations, never freed (docs/snitch-allocator.md).
void TraceReader::snitch_alloc(const std::string& name, const Json& args, double ts) {
  if (!args.contains("addr") || !args.contains("size") || (args.contains("trap") && args["trap"].is_boolean() && args["trap"].get<bool>())) return;
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
Json read_trace_stream(std::istream& in, const std::string& path, const HtmlLimits& lim, bool fast) {
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
        const std::string od = line.substr(14, line.size() - 15);
        check_json_structure(od, path);
        r.other_data(Json::parse(od));
      } catch (const std::exception&) {
        fail(path, n, "unreadable otherData: '" + shorten(line) + "'");
      }
      return r.result();
    }
    if (line == "]}" || line == "]") return r.result();
    if (line.back() == ',') line.pop_back();
    if (ScannedEvent se; fast && scan_event_line(line, se) && r.fast(se)) continue;
    Json e;
    try {
      check_json_structure(line, path);  // a line nested 10^6 deep is not parsed recursively
      e = Json::parse(line);
    } catch (const InputError&) {
      fail(path, n, fmt::format("not a trace event: nested deeper than {} levels or a key twice: '{}'", kMaxJsonDepth,
                                shorten(line)));
    } catch (const Json::exception&) {
      fail(path, n, "not a trace event: '" + shorten(line) + "'");
    }
    if (!e.is_object()) fail(path, n, "not a trace event: '" + shorten(line) + "'");
    r.event(e, n);
  }
  if (header) return r.result();  // cut short (a crash): what is there is shown
  // Another layout: the whole file, up to the input size limit.
  in.clear();
  in.seekg(0);
  std::string text;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, static_cast<size_t>(in.gcount()));
    if (text.size() > limits().input_bytes)
      fail(path, 0, fmt::format("a trace not written by npusim (one event per line) is read whole, and this one is "
                                "larger than {} bytes (--limit input_bytes=N)", limits().input_bytes));
  }
  const Json all = parse_ordered_json_input(text, path);
  const Json* events = all.is_array() ? &all : all.is_object() && all.contains("traceEvents") ? &all["traceEvents"] : nullptr;
  if (events == nullptr || !events->is_array()) fail(path, 0, "not a Chrome trace (no \"traceEvents\" list)");
  for (const auto& e : *events)
    if (e.is_object()) r.event(e, 0);
  if (all.is_object() && all.contains("otherData")) r.other_data(all["otherData"]);
  return r.result();
}

Json read_trace(const std::string& path, const HtmlLimits& lim, bool fast) {
  if (const std::string why = input_file_problem(path); !why.empty())
    throw InputError(path, 0, path, "the trace " + why);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, path, "cannot open the trace");
  return read_trace_stream(in, path, lim, fast);
}

// The report's members the page reads, checked one by one (docs/report.md): a report whose
// fields have other types is an error naming the file, the field and the value, not a page
// that breaks in the browser.
void check_report(const Json& r, const std::string& file) {
  const JsonFields f(file);
  f.object(r, "");
  const auto& version = f.member(r, "", "npusim_report_version");
  if (f.integer(version, "npusim_report_version", 0, INT32_MAX) != 1)
    f.fail("npusim_report_version", version, "this npusim reads version 1");
  auto opt = [&](const Json& obj, const char* k) -> const Json* {
    const auto it = obj.find(k);
    return it == obj.end() || it->is_null() ? nullptr : &*it;
  };
  auto strings_of = [&](const Json& obj, const std::string& path, std::initializer_list<const char*> keys) {
    for (const char* k : keys)
      if (const Json* v = opt(obj, k)) f.string(*v, JsonFields::join(path, k));
  };
  // Lists of objects, and objects of objects whose values are numbers (null: not a number).
  auto list_of_objects = [&](const Json& v, const std::string& path) {
    f.list(v, path);
    for (size_t i = 0; i < v.size(); ++i) f.object(v[i], JsonFields::index(path, i));
  };
  auto numbers = [&](const Json& v, const std::string& path) {
    f.object(v, path);
    for (const auto& [k, x] : v.items())
      if (!x.is_null() && !x.is_number() && !x.is_string() && !x.is_boolean())
        f.wrong(JsonFields::join(path, k), x, "a number");
  };
  if (const Json* v = opt(r, "npusim_version")) f.string(*v, "npusim_version");
  if (const Json* sc = opt(r, "scenario")) strings_of(f.object(*sc, "scenario"), "scenario", {"name", "file", "description"});
  if (const Json* p = opt(r, "platform")) {
    f.object(*p, "platform");
    if (const Json* n = opt(*p, "name")) f.string(*n, "platform.name");
    if (const Json* o = opt(*p, "overrides")) {
      list_of_objects(*o, "platform.overrides");
      for (size_t i = 0; i < o->size(); ++i) strings_of((*o)[i], JsonFields::index("platform.overrides", i), {"key", "value"});
    }
  }
  if (const Json* o = opt(r, "outcome")) {
    f.object(*o, "outcome");
    if (const Json* c = opt(*o, "exit_code")) f.integer(*c, "outcome.exit_code", 0, 255);
    if (const Json* st = opt(*o, "status")) f.string(*st, "outcome.status");
    if (const Json* fl = opt(*o, "fault")) strings_of(f.object(*fl, "outcome.fault"), "outcome.fault", {"kind", "message"});
    if (const Json* e = opt(*o, "expectations")) {
      list_of_objects(*e, "outcome.expectations");
      for (size_t i = 0; i < e->size(); ++i) {
        const std::string at = JsonFields::index("outcome.expectations", i);
        strings_of((*e)[i], at, {"key", "op", "expected", "actual_text", "at"});
        if (const Json* ok = opt((*e)[i], "ok")) f.boolean(*ok, at + ".ok");
      }
    }
  }
  if (const Json* d = opt(r, "duration_ns")) f.number(*d, "duration_ns");
  if (const Json* m = opt(r, "metrics")) numbers(*m, "metrics");
  for (const char* k : {"heaps", "memories"})
    if (const Json* h = opt(r, k)) {
      f.object(*h, k);
      for (const auto& [name, v] : h->items()) numbers(v, JsonFields::join(k, name));
    }
  for (const char* k : {"cores", "clusters", "violations", "traps", "diagnostics", "markers", "faults", "undefined_results"})
    if (const Json* v = opt(r, k)) list_of_objects(*v, k);
  for (const char* k : {"layout_warnings", "warnings"})
    if (const Json* v = opt(r, k)) {
      f.list(*v, k);
      for (size_t i = 0; i < v->size(); ++i) f.string((*v)[i], JsonFields::index(k, i));
    }
  if (const Json* d = opt(r, "dma")) {
    f.object(*d, "dma");
    if (const Json* c = opt(*d, "channels")) list_of_objects(*c, "dma.channels");
  }
  for (const char* k : {"stack", "l3"})
    if (const Json* v = opt(r, k)) f.object(*v, k);
  if (const Json* v = opt(r, "interrupted")) f.string(*v, "interrupted");

  // What the page computes with: numbers that must be there, finite and not negative.
  auto amount = [&](const Json& v, const std::string& path) {
    if (f.number(v, path) < 0) f.fail(path, v, "must not be negative");
  };
  auto required_amount = [&](const Json& obj, const std::string& path, const char* k) {
    amount(f.member(obj, path, k), JsonFields::join(path, k));
  };
  auto amounts = [&](const Json& v, const std::string& path) {  // an object of amounts
    f.object(v, path);
    for (const auto& [k, x] : v.items()) amount(x, JsonFields::join(path, k));
  };
  // A count or a note in its place ("(host)": measured elsewhere).
  auto amount_or_text = [&](const Json& obj, const std::string& path, const char* k) {
    if (const Json* v = opt(obj, k); v != nullptr && !v->is_string()) amount(*v, JsonFields::join(path, k));
  };
  if (const Json* e = opt(r, "energy")) {
    f.object(*e, "energy");
    for (const char* k : {"total_pj", "average_power_mw", "duration_ns"}) required_amount(*e, "energy", k);
    if (const Json* b = opt(*e, "by_kind")) amounts(*b, "energy.by_kind");
    if (const Json* c = opt(*e, "components")) {
      list_of_objects(*c, "energy.components");
      for (size_t i = 0; i < c->size(); ++i) {
        const Json& x = (*c)[i];
        const std::string at = JsonFields::index("energy.components", i);
        strings_of(x, at, {"name", "kind"});
        required_amount(x, at, "total_pj");
        if (const Json* p = opt(x, "average_power_mw")) amount(*p, at + ".average_power_mw");
        amounts(f.member(x, at, "parts"), at + ".parts");
        if (const Json* p = opt(x, "power_mw")) {
          const std::string pp = at + ".power_mw";
          f.object(*p, pp);
          const Json& w = f.member(*p, pp, "window_ns");
          if (f.number(w, pp + ".window_ns") <= 0) f.fail(pp + ".window_ns", w, "must be more than 0");
          const Json& vals = f.list(f.member(*p, pp, "values"), pp + ".values");
          for (size_t j = 0; j < vals.size(); ++j) amount(vals[j], JsonFields::index(pp + ".values", j));
        }
      }
    }
  }
  if (const Json* c = opt(r, "cores")) {
    // Torch ops: where each core's time went, the kinds of the first core in every core.
    const bool breakdown = !c->empty() && opt((*c)[0], "breakdown_cycles") != nullptr;
    for (size_t i = 0; i < c->size(); ++i) {
      const Json& x = (*c)[i];
      const std::string at = JsonFields::index("cores", i);
      if (breakdown) {
        amounts(f.member(x, at, "breakdown_cycles"), at + ".breakdown_cycles");
        required_amount(x, at, "cycles");
      }
    }
  }
  if (const Json* st = opt(r, "stack")) {
    if (const Json* c = opt(*st, "cores")) {
      list_of_objects(*c, "stack.cores");
      if (const Json* l = opt(*st, "limit")) amount(*l, "stack.limit");
      for (size_t i = 0; i < c->size(); ++i)
        for (const char* k : {"kernel_high_water", "high_water", "hbm_high_water", "hbm_stack_size"})
          amount_or_text((*c)[i], JsonFields::index("stack.cores", i), k);
    } else {
      for (const char* k : {"high_water", "hbm_high_water", "hbm_stack_size", "hbm_stack"})
        if (const Json* v = opt(*st, k)) amount(*v, JsonFields::join("stack", k));
    }
  }
}

}  // namespace

Json report_from_text(const std::string& text, const std::string& file) {
  Json report = parse_ordered_json_input(text, file);
  if (!report.is_object() || !report.contains("npusim_report_version"))
    fail(file, 1, "not a npusim report (no \"npusim_report_version\"; docs/report.md)");
  check_report(report, file);
  return report;
}

Json trace_from_stream(std::istream& in, const std::string& file, const HtmlLimits& lim) {
  return read_trace_stream(in, file, lim, lim.fast_scan);
}

Json load_run_data(const std::string& report_path, const std::string& trace_path, const HtmlLimits& lim) {
  return run_data(report_from_text(read_all(report_path, "report"), report_path), report_path, trace_path, lim);
}

Json run_data(Json report, const std::string& report_label, const std::string& trace_path, const HtmlLimits& lim) {
  Json truncated = Json::object();
  for (const char* k : {"markers", "violations", "traps", "diagnostics", "undefined_results", "faults",
                        "cores", "clusters"})
    cap_list(report, k, lim.list, truncated);
  // Tables inside an object: the page names them "energy.components", ...
  for (const auto& [obj, k] : {std::pair<const char*, const char*>{"energy", "components"}, {"stack", "cores"},
                               {"dma", "channels"}, {"outcome", "expectations"}}) {
    if (!report.contains(obj) || !report[obj].is_object()) continue;
    Json t = Json::object();
    cap_list(report[obj], k, lim.list, t);
    if (!t.empty()) truncated[std::string(obj) + "." + k] = t[k];
  }
  Json out{{"report_file", report_label}, {"report", std::move(report)}, {"truncated", truncated}};
  out["trace_file"] = trace_path.empty() ? Json(nullptr) : Json(trace_path);
  out["trace"] = trace_path.empty() ? Json(nullptr) : read_trace(trace_path, lim, lim.fast_scan);
  return out;
}

}  // namespace npusim::sim
