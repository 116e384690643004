#include "platforms/bind.h"

#include <cctype>

namespace npusim::platforms {

namespace {
std::vector<std::string>& log() {
  static std::vector<std::string> l;
  return l;
}
}  // namespace

const std::vector<std::string>& binding_log() { return log(); }
void record_binding(const std::string& name) { log().push_back(name); }

std::string checker_name(const std::string& binding) {
  std::string s = binding;
  for (size_t at = s.find(" -> "); at != std::string::npos; at = s.find(" -> ", at))
    s.replace(at, 4, "_to_");
  for (char& c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) c = '_';
  return "check_" + s;
}

}  // namespace npusim::platforms
