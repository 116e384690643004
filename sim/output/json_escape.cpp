// append_json_escaped: the bytes that need no escaping are copied in runs; valid UTF-8 passes.
#include "sim/output/json_escape.h"

#include <iterator>

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

}  // namespace npusim::sim
