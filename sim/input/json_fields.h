// Reading the members of a JSON input one by one, with messages that name the file, the field
// and the value: `out/plan.json: points[3].rep: expected a whole number from 0 to 4294967295,
// got a string (at '"x"')`, an InputError (exit 2). nlohmann's own exceptions name neither the
// file nor the field; every reader of JSON input (reports, sweep plans and results, point
// files) goes through these instead of .at()/.get<>().
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "sim/input/input_error.h"

namespace npusim::sim {

// A JSON value in a message: its text, shortened.
template <class J>
std::string json_excerpt(const J& v) {
  const std::string s = v.dump(-1, ' ', false, J::error_handler_t::replace);
  return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

// "a string", "a number", ...: how a message names the type of a value.
template <class J>
std::string json_kind(const J& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "true/false";
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_array()) return "a list";
  return "an object";
}

// The field `name` of the object `obj` (whose own path is `path`, empty at the top).
class JsonFields {
 public:
  explicit JsonFields(std::string file) : file_(std::move(file)) {}
  const std::string& file() const { return file_; }

  static std::string join(const std::string& path, const std::string& name) {
    return path.empty() ? name : path + "." + name;
  }
  static std::string index(const std::string& path, size_t i) { return fmt::format("{}[{}]", path, i); }

  template <class J>
  [[noreturn]] void fail(const std::string& field, const J& v, const std::string& why) const {
    throw InputError(file_, 0, json_excerpt(v), field.empty() ? why : field + ": " + why);
  }
  template <class J>
  [[noreturn]] void wrong(const std::string& field, const J& v, const std::string& expected) const {
    fail(field, v, fmt::format("expected {}, got {}", expected, json_kind(v)));
  }

  template <class J>
  const J& object(const J& v, const std::string& field) const {
    if (!v.is_object()) wrong(field, v, "an object");
    return v;
  }
  template <class J>
  const J& list(const J& v, const std::string& field) const {
    if (!v.is_array()) wrong(field, v, "a list");
    return v;
  }
  // The member `name` of object `obj` at `path`; it must be there.
  template <class J>
  const J& member(const J& obj, const std::string& path, const std::string& name) const {
    object(obj, path);
    const auto it = obj.find(name);
    if (it == obj.end()) fail(path, obj, fmt::format("no member \"{}\"", name));
    return *it;
  }
  template <class J>
  std::string string(const J& v, const std::string& field) const {
    if (!v.is_string()) wrong(field, v, "a string");
    return v.template get<std::string>();
  }
  template <class J>
  bool boolean(const J& v, const std::string& field) const {
    if (!v.is_boolean()) wrong(field, v, "true or false");
    return v.template get<bool>();
  }
  template <class J>
  double number(const J& v, const std::string& field) const {
    if (!v.is_number()) wrong(field, v, "a number");
    const double d = v.template get<double>();
    if (!std::isfinite(d)) wrong(field, v, "a finite number");
    return d;
  }
  // A whole number in [lo, hi].
  template <class J>
  int64_t integer(const J& v, const std::string& field, int64_t lo, int64_t hi) const {
    const std::string expected = fmt::format("a whole number from {} to {}", lo, hi);
    if (v.is_number_unsigned()) {
      const uint64_t u = v.template get<uint64_t>();
      if (u > static_cast<uint64_t>(hi)) fail(field, v, "must be " + expected.substr(2));
      return static_cast<int64_t>(u);
    }
    if (!v.is_number_integer()) wrong(field, v, expected);
    const int64_t i = v.template get<int64_t>();
    if (i < lo || i > hi) fail(field, v, "must be " + expected.substr(2));
    return i;
  }

 private:
  std::string file_;
};

}  // namespace npusim::sim
