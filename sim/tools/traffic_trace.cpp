#include "sim/tools/traffic_trace.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "sim/input/input_error.h"
#include "sim/output/output_paths.h"
#include "sim/tools/traffic.h"

namespace npusim::sim {

namespace {

std::vector<std::string> tokens_of(const std::string& line) {
  std::vector<std::string> t;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    const size_t b = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    if (i > b) t.push_back(line.substr(b, i - b));
  }
  return t;
}

// A hex number with or without 0x (the address of every format but ramulator2's).
std::optional<uint64_t> hex(const std::string& t) {
  const std::string s = t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X') ? t : "0x" + t;
  return parse_number(s);
}

// A write's data in an .stl line: hex digits, with or without 0x, of any length (DRAMSys gives
// a burst's bytes, two digits each).
bool hex_data(const std::string& t) {
  const size_t b = t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X') ? 2 : 0;
  if (b == t.size()) return false;
  for (size_t i = b; i < t.size(); ++i)
    if (std::isxdigit(static_cast<unsigned char>(t[i])) == 0) return false;
  return true;
}

bool decimal(const std::string& t) {
  for (char c : t)
    if (c < '0' || c > '9') return false;
  return !t.empty();
}

// Ramulator's and Ramulator 2's instruction (CPU) traces: "BUBBLES LOAD_ADDRESS [STORE_ADDRESS]",
// all decimal. No memory-trace format has a line of decimal numbers only.
bool instruction_line(const std::vector<std::string>& t) {
  return (t.size() == 2 || t.size() == 3) && decimal(t[0]) && decimal(t[1]) &&
         (t.size() == 2 || decimal(t[2]));
}

[[noreturn]] void fail(const std::string& path, uint32_t line, const std::string& token,
                       const std::string& why) {
  throw TrafficError(InputError(path, static_cast<int>(line), token, why).what());
}

// The shape of a request line: the format it is in, if any.
std::optional<TraceFormat> shape_of(const std::vector<std::string>& t) {
  if (t.empty()) return std::nullopt;
  if (t[0].back() == ':' || (t.size() >= 2 && t[1] == ":")) return TraceFormat::kStl;
  if (t[0] == "LD" || t[0] == "ST") return TraceFormat::kRamulator2;
  if (t.size() == 2 && (t[1] == "R" || t[1] == "W")) return TraceFormat::kRamulator;
  if (t.size() == 1 && hex(t[0])) return TraceFormat::kRamulator;  // (an address alone: a read)
  if (t.size() == 3 && hex(t[0])) return TraceFormat::kDramsim3;
  return std::nullopt;
}

// How each format spells one request, for messages.
const char* syntax(TraceFormat f) {
  switch (f) {
    case TraceFormat::kDramsim3: return "'0xADDRESS READ|WRITE CYCLE'";
    case TraceFormat::kRamulator: return "'0xADDRESS [R|W]'";
    case TraceFormat::kRamulator2: return "'LD|ST ADDRESS'";
    case TraceFormat::kStl:
    case TraceFormat::kRstl: return "'CYCLE: [(LENGTH)] read|write 0xADDRESS [0xDATA]'";
  }
  return "";
}

}  // namespace

std::optional<TraceFormat> trace_format_named(const std::string& name) {
  if (name == "dramsim3") return TraceFormat::kDramsim3;
  if (name == "ramulator") return TraceFormat::kRamulator;
  if (name == "ramulator2") return TraceFormat::kRamulator2;
  if (name == "stl") return TraceFormat::kStl;
  if (name == "rstl") return TraceFormat::kRstl;
  return std::nullopt;
}

const char* trace_format_name(TraceFormat f) {
  switch (f) {
    case TraceFormat::kDramsim3: return "dramsim3";
    case TraceFormat::kRamulator: return "ramulator";
    case TraceFormat::kRamulator2: return "ramulator2";
    case TraceFormat::kStl: return "stl";
    case TraceFormat::kRstl: return "rstl";
  }
  return "?";
}

const char* trace_format_names() { return "dramsim3, ramulator, ramulator2, stl, rstl"; }

namespace {

bool ends_with(const std::string& s, const char* tail) {
  const size_t n = std::strlen(tail);
  return s.size() > n && s.compare(s.size() - n, n, tail) == 0;
}

}  // namespace

std::optional<TraceFormat> trace_format_of_name(const std::string& path) {
  if (ends_with(path, ".stl")) return TraceFormat::kStl;
  if (ends_with(path, ".rstl")) return TraceFormat::kRstl;
  return std::nullopt;
}

Trace read_trace(const std::string& path, std::optional<TraceFormat> format,
                 uint64_t max_requests) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw TrafficError(fmt::format("--trace '{}': cannot read: {}", path, std::strerror(errno)));
  if (!format) format = trace_format_of_name(path);
  Trace tr;
  std::string line;
  uint32_t n = 0;
  while (std::getline(in, line)) {
    if (n == UINT32_MAX) fail(path, n, "", "too many lines");
    ++n;
    if (line.find('\0') != std::string::npos) fail(path, n, "\\0", "not a text trace (a NUL byte)");
    const auto t = tokens_of(line);
    if (t.empty() || t[0][0] == '#') continue;
    if (instruction_line(t))
      fail(path, n, line.substr(0, 80),
           "an instruction trace line (bubble count, load address[, store address]) of "
           "Ramulator's or Ramulator 2's processor front end, not a memory request: npusim "
           "traffic replays memory traces (dramsim3, ramulator, ramulator2 LoadStoreTrace, "
           "stl, rstl; docs/traces.md)");
    if (!format) {
      format = shape_of(t);
      if (!format)
        fail(path, n, line.substr(0, 80),
             fmt::format("not a request of any trace format ({}); name it with --trace-format",
                         trace_format_names()));
    }
    if (tr.requests.size() >= max_requests)
      fail(path, n, std::to_string(max_requests), "more requests than npusim traffic replays");
    TraceRequest r;
    const TraceFormat f = *format;
    auto want = [&](bool ok, const std::string& token, const std::string& why) {
      if (!ok) fail(path, n, token, fmt::format("{}: a {} request is {}", why, trace_format_name(f), syntax(f)));
    };
    auto address = [&](const std::string& s, bool any_base) {
      const auto v = any_base ? parse_number(s) : hex(s);
      want(v.has_value(), s, any_base ? "not an address (0x-hex or decimal)" : "not a hex address");
      return v.value_or(0);
    };
    switch (f) {
      case TraceFormat::kDramsim3: {
        want(t.size() == 3, line.substr(0, 80), fmt::format("{} fields, not 3", t.size()));
        r.offset = address(t[0], false);
        const std::string& op = t[1];
        if (op == "WRITE" || op == "write" || op == "P_MEM_WR" || op == "BOFF") r.write = true;
        else want(op == "READ" || op == "read" || op == "P_MEM_RD" || op == "P_FETCH", op, "not READ or WRITE");
        const auto c = parse_number(t[2]);
        want(c && t[2].rfind("0x", 0) != 0, t[2], "not a decimal cycle");
        r.cycle = c.value_or(0);
        break;
      }
      case TraceFormat::kRamulator:  // (an address alone is a read, as Ramulator reads it)
        want(t.size() <= 2, line.substr(0, 80), fmt::format("{} fields, not 1 or 2", t.size()));
        r.offset = address(t[0], false);
        if (t.size() == 2) {
          want(t[1] == "R" || t[1] == "W", t[1], "not R or W");
          r.write = t[1] == "W";
        }
        break;
      case TraceFormat::kRamulator2:
        want(t.size() == 2, line.substr(0, 80), fmt::format("{} fields, not 2", t.size()));
        want(t[0] == "LD" || t[0] == "ST", t[0], "not LD or ST");
        r.write = t[0] == "ST";
        r.offset = address(t[1], true);
        break;
      case TraceFormat::kStl:
      case TraceFormat::kRstl: {
        // "CYCLE:" (or "CYCLE :"), then "(LENGTH)" or not, the command, the address, data.
        size_t i = 0;
        std::string cyc = t[0];
        if (cyc.back() == ':') cyc.pop_back(), i = 1;
        else if (t.size() >= 2 && t[1] == ":") i = 2;
        want(i != 0, t[0], "no 'CYCLE:'");
        const auto c = parse_number(cyc);
        want(c && cyc.rfind("0x", 0) != 0, cyc, "not a decimal cycle");
        r.cycle = c.value_or(0);
        if (i < t.size() && t[i].front() == '(') {
          const std::string& l = t[i];
          const uint64_t len = l.size() > 2 && l.back() == ')'
                                   ? parse_number(l.substr(1, l.size() - 2)).value_or(0)
                                   : 0;
          want(len >= 1 && len <= (1u << 20), l, "not a length in bytes in [1, 1048576]");
          r.size = static_cast<uint32_t>(len);
          ++i;
        }
        want(i < t.size(), line.substr(0, 80), "no command");
        want(t[i] == "read" || t[i] == "write", t[i], "not read or write");
        r.write = t[i] == "write";
        ++i;
        want(i < t.size(), line.substr(0, 80), "no address");
        r.offset = address(t[i], false);
        ++i;
        want(i + 1 >= t.size(), t.back(), "more than one data field");
        if (i < t.size()) want(r.write && hex_data(t[i]), t[i], "data must be hex digits on a write");
        break;
      }
    }
    tr.requests.push_back(r);
    tr.lines.push_back(n);
  }
  if (in.bad()) throw TrafficError(fmt::format("--trace '{}': read error", path));
  if (tr.requests.empty())
    throw TrafficError(fmt::format("--trace '{}': no requests (only empty lines and # comments)", path));
  tr.format = *format;
  tr.timed = *format == TraceFormat::kDramsim3 || *format == TraceFormat::kStl ||
             *format == TraceFormat::kRstl;
  tr.relative = *format == TraceFormat::kRstl;
  return tr;
}

TraceWriter::TraceWriter(const std::string& path, TraceFormat format, uint64_t burst_bytes)
    : path_(path), format_(format), burst_bytes_(burst_bytes) {
  try {
    out_ = std::make_unique<OutputFile>(OutputPath{"--write-trace", path, {}});
  } catch (const InputError& e) {
    throw TrafficError(e.what());
  }
  f_ = out_->stream();
  // DRAMsim3's trace CPU and both Ramulators read every line as a request: only the stl
  // format has comments.
  if (format == TraceFormat::kStl)
    std::fputs("# npusim traffic: cycle: [(length)] command address (DRAMSys .stl)\n", f_);
  if (format == TraceFormat::kRstl)
    std::fputs("# npusim traffic: cycles after the previous request: [(length)] command address "
               "(DRAMSys .rstl)\n", f_);
}

TraceWriter::~TraceWriter() = default;  // not closed: OutputFile removes what it wrote

void TraceWriter::add(uint64_t offset, bool write, uint64_t cycle, uint64_t size) {
  if (f_ == nullptr) return;
  switch (format_) {
    case TraceFormat::kDramsim3:
      std::fprintf(f_, "0x%llX %s %llu\n", static_cast<unsigned long long>(offset),
                   write ? "WRITE" : "READ", static_cast<unsigned long long>(cycle));
      break;
    case TraceFormat::kRamulator:
      std::fprintf(f_, "0x%llx %c\n", static_cast<unsigned long long>(offset), write ? 'W' : 'R');
      break;
    case TraceFormat::kRamulator2:
      std::fprintf(f_, "%s 0x%llx\n", write ? "ST" : "LD", static_cast<unsigned long long>(offset));
      break;
    case TraceFormat::kStl:
    case TraceFormat::kRstl:
      if (format_ == TraceFormat::kRstl) {  // (issue cycles do not go back)
        const uint64_t c = cycle;
        cycle = c - std::min(c, prev_cycle_);
        prev_cycle_ = c;
      }
      if (size != burst_bytes_)
        std::fprintf(f_, "%llu: (%llu) %s 0x%llx\n", static_cast<unsigned long long>(cycle),
                     static_cast<unsigned long long>(size), write ? "write" : "read",
                     static_cast<unsigned long long>(offset));
      else
        std::fprintf(f_, "%llu: %s 0x%llx\n", static_cast<unsigned long long>(cycle),
                     write ? "write" : "read", static_cast<unsigned long long>(offset));
      break;
  }
}

void TraceWriter::close() {
  if (f_ == nullptr) return;
  const bool bad = std::ferror(f_) != 0;
  f_ = nullptr;
  if (bad) {
    out_->discard();
    throw TrafficError(fmt::format("--write-trace: cannot be written: a write failed (at '{}')", path_));
  }
  try {
    out_->commit();
  } catch (const InputError& e) {
    throw TrafficError(e.what());
  }
}

}  // namespace npusim::sim
