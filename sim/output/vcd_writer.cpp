#include "sim/output/vcd_writer.h"
#include "sim/output/live_files.h"

#include <exception>

#include <fmt/compile.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <iterator>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string_view>

namespace npusim::sim {

namespace {

constexpr size_t kSpillBytes = 64 * 1024;

// Identifier codes: bijective base 94 over the printable characters '!'..'~', shortest first.
std::string id_code(size_t n) {
  std::string id;
  do {
    id.push_back(static_cast<char>('!' + n % 94));
    n /= 94;
  } while (n-- > 0);
  return id;
}

std::vector<std::string> split_name(const std::string& name) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    const size_t dot = name.find('.', start);
    parts.push_back(name.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  for (const auto& p : parts) {
    if (p.empty())
      throw std::invalid_argument(fmt::format("VCD signal '{}': empty name part", name));
    for (const char c : p) {
      const auto u = static_cast<unsigned char>(c);
      if (u <= ' ' || u >= 0x7F)
        throw std::invalid_argument(
            fmt::format("VCD signal '{}': names hold printable ASCII without spaces", name));
    }
  }
  return parts;
}

// The scope tree of the header, in first-declaration order.
struct Scope {
  std::string name;
  std::vector<int> vars;
  std::vector<std::unique_ptr<Scope>> children;
  Scope* child(const std::string& n) {
    for (auto& c : children)
      if (c->name == n) return c.get();
    children.push_back(std::make_unique<Scope>());
    children.back()->name = n;
    return children.back().get();
  }
};

}  // namespace

VcdWriter::VcdWriter(const std::string& path) : VcdWriter(OutputPath{"VCD file", path, {}}) {}

VcdWriter::VcdWriter(const OutputPath& out)
    : path_(out.path), out_(std::make_unique<OutputFile>(out)), unwinding_(std::uncaught_exceptions()) {
  file_ = out_->stream();
  LiveFiles<VcdWriter>::add(this);
}

VcdWriter::~VcdWriter() {
  LiveFiles<VcdWriter>::remove(this);
  if (!out_) return;
  if (std::uncaught_exceptions() > unwinding_) {
    // On an exception's way out: completed and parked; the command publishes or removes it.
    try {
      finish_text(std::nullopt);
    } catch (const std::exception&) {
    }
    out_->park();
    return;
  }
  try {
    close();
  } catch (const std::exception&) {
    // A destructor must not throw; call close() to see errors.
  }
}

void VcdWriter::close_all_open() { LiveFiles<VcdWriter>::close_all(); }

uint64_t VcdWriter::ps(double time_ps) {
  if (!std::isfinite(time_ps) || time_ps < 0 || time_ps >= 18446744073709551616.0)
    throw std::invalid_argument(
        fmt::format("VCD time {} ps is not a non-negative finite time", time_ps));
  return static_cast<uint64_t>(std::llround(time_ps));
}

VcdWriter::Signal VcdWriter::declare(const std::string& name, Kind kind, unsigned width) {
  if (header_written_)
    throw std::logic_error(
        fmt::format("VCD signal '{}' declared after the first value change", name));
  split_name(name);  // validates
  if (by_name_.count(name))
    throw std::invalid_argument(fmt::format("VCD signal '{}' declared twice", name));
  const int index = static_cast<int>(vars_.size());
  Var v{name, kind, width, id_code(vars_.size())};
  if (kind == Kind::kReal) v.known = true;  // starts at 0.0, bit pattern 0
  vars_.push_back(std::move(v));
  by_name_.emplace(name, index);
  return Signal{index};
}

VcdWriter::Signal VcdWriter::integer(const std::string& name, unsigned width) {
  if (width < 1 || width > 64)
    throw std::invalid_argument(
        fmt::format("VCD signal '{}': width {} is not in 1..64", name, width));
  return declare(name, Kind::kInteger, width);
}

VcdWriter::Signal VcdWriter::wire(const std::string& name) {
  return declare(name, Kind::kWire, 1);
}

VcdWriter::Signal VcdWriter::real(const std::string& name) {
  return declare(name, Kind::kReal, 64);
}

const VcdWriter::Var& VcdWriter::var(Signal s) const {
  if (s.index < 0 || static_cast<size_t>(s.index) >= vars_.size())
    throw std::invalid_argument(fmt::format("VCD: unknown signal index {}", s.index));
  return vars_[s.index];
}

void VcdWriter::write_header() {
  header_written_ = true;
  auto out = std::back_inserter(buf_);
  buf_.append(std::string_view("$version npusim $end\n$timescale 1ps $end\n"));
  Scope root;
  for (size_t i = 0; i < vars_.size(); ++i) {
    const auto parts = split_name(vars_[i].name);
    Scope* s = &root;
    for (size_t k = 0; k + 1 < parts.size(); ++k) s = s->child(parts[k]);
    s->vars.push_back(static_cast<int>(i));
  }
  // Iterative depth-first walk: (scope, next child to visit).
  std::vector<std::pair<const Scope*, size_t>> stack{{&root, 0}};
  auto write_vars = [&](const Scope& s) {
    for (const int i : s.vars) {
      const Var& v = vars_[i];
      const std::string leaf = v.name.substr(v.name.rfind('.') + 1);
      const char* type = v.kind == Kind::kInteger ? "reg" : v.kind == Kind::kWire ? "wire" : "real";
      if (v.kind == Kind::kInteger && v.width > 1)
        fmt::format_to(out, "$var {} {} {} {} [{}:0] $end\n", type, v.width, v.id, leaf,
                       v.width - 1);
      else
        fmt::format_to(out, "$var {} {} {} {} $end\n", type, v.width, v.id, leaf);
    }
  };
  write_vars(root);
  while (!stack.empty()) {
    auto& [scope, next] = stack.back();
    if (next == scope->children.size()) {
      if (scope != &root) buf_.append(std::string_view("$upscope $end\n"));
      stack.pop_back();
      continue;
    }
    const Scope* c = scope->children[next++].get();
    fmt::format_to(out, "$scope module {} $end\n", c->name);
    write_vars(*c);
    stack.emplace_back(c, 0);
  }
  buf_.append(std::string_view("$enddefinitions $end\n#0\n$dumpvars\n"));
  for (const Var& v : vars_) {
    if (v.kind == Kind::kInteger)
      fmt::format_to(out, "bx {}\n", v.id);
    else if (v.kind == Kind::kWire)
      fmt::format_to(out, "x{}\n", v.id);
    else
      fmt::format_to(out, "r0 {}\n", v.id);
  }
  buf_.append(std::string_view("$end\n"));
  written_time_ = 0;
}

void VcdWriter::advance(uint64_t time_ps, const Var& v) {
  if (time_ps < now_ps_)
    throw std::logic_error(
        fmt::format("VCD signal '{}': time {} ps is before the latest time reported, {} ps", v.name,
                    time_ps, now_ps_));
  now_ps_ = time_ps;
  if (!header_written_) write_header();
}

void VcdWriter::change_bits(uint64_t time_ps, Signal s, uint64_t value, bool negative) {
  const Var& cv = var(s);
  if (cv.kind == Kind::kReal) {
    change_real(
        time_ps, s,
        negative ? static_cast<double>(static_cast<int64_t>(value)) : static_cast<double>(value));
    return;
  }
  const unsigned w = cv.width;
  const auto shown = [&] {
    return negative ? fmt::format("{}", static_cast<int64_t>(value)) : fmt::format("{}", value);
  };
  if (cv.kind == Kind::kWire && (negative || value > 1))
    throw std::invalid_argument(
        fmt::format("VCD wire '{}': value {} is not 0 or 1", cv.name, shown()));
  if (w < 64) {
    const bool fits = negative ? static_cast<int64_t>(value) >= -(int64_t{1} << (w - 1))
                               : value < (uint64_t{1} << w);
    if (!fits)
      throw std::invalid_argument(
          fmt::format("VCD signal '{}': value {} does not fit {} bits", cv.name, shown(), w));
    value &= (uint64_t{1} << w) - 1;
  }
  if (!file_) return;
  advance(time_ps, cv);
  Var& v = vars_[s.index];
  if (v.known && v.bits == value) return;
  v.known = true;
  v.bits = value;
  if (written_time_ != time_ps) {
    fmt::format_to(std::back_inserter(buf_), FMT_COMPILE("#{}\n"), time_ps);
    written_time_ = time_ps;
  }
  if (v.kind == Kind::kWire)
    fmt::format_to(std::back_inserter(buf_), FMT_COMPILE("{}{}\n"), value, v.id);
  else
    fmt::format_to(std::back_inserter(buf_), FMT_COMPILE("b{:b} {}\n"), value, v.id);
  ++changes_;
  if (buf_.size() >= kSpillBytes) spill();
}

void VcdWriter::change_real(uint64_t time_ps, Signal s, double value) {
  const Var& cv = var(s);
  if (cv.kind != Kind::kReal)
    throw std::invalid_argument(
        fmt::format("VCD signal '{}' is an integer signal; got the real value {}", cv.name, value));
  if (!file_) return;
  advance(time_ps, cv);
  Var& v = vars_[s.index];
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  if (v.bits == bits) return;
  v.bits = bits;
  if (written_time_ != time_ps) {
    fmt::format_to(std::back_inserter(buf_), FMT_COMPILE("#{}\n"), time_ps);
    written_time_ = time_ps;
  }
  fmt::format_to(std::back_inserter(buf_), FMT_COMPILE("r{} {}\n"), value, v.id);
  ++changes_;
  if (buf_.size() >= kSpillBytes) spill();
}

void VcdWriter::spill() {
  if (buf_.size() == 0 || !file_) return;
  try {
    out_->write(std::string_view(buf_.data(), buf_.size()));
  } catch (const std::exception&) {
    file_ = nullptr;  // kept by the OutputFile: no more changes are written; close() throws it
  }
  buf_.clear();
}

void VcdWriter::flush() {
  if (!out_) return;
  spill();
  out_->flush();
}

void VcdWriter::finish_text(std::optional<uint64_t> end_time_ps) {
  if (!file_) return;
  if (!header_written_) write_header();
  if (end_time_ps && written_time_ != *end_time_ps)
    fmt::format_to(std::back_inserter(buf_), FMT_COMPILE("#{}\n"), *end_time_ps);
  spill();
  file_ = nullptr;
  buf_.clear();
}

void VcdWriter::close(std::optional<uint64_t> end_time_ps) {
  if (!out_) return;
  if (end_time_ps && *end_time_ps < now_ps_)
    throw std::logic_error(
        fmt::format("VCD file '{}': end time {} ps is before the latest time reported, {} ps",
                    path_, *end_time_ps, now_ps_));
  finish_text(end_time_ps);
  const std::unique_ptr<OutputFile> out = std::move(out_);  // closed from here on
  out->commit();  // the first write error, if any: the destination is then untouched
}

}  // namespace npusim::sim
