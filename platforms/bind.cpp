#include "platforms/bind.h"

namespace npusim::platforms {

namespace {
std::vector<std::string>& log() {
  static std::vector<std::string> l;
  return l;
}
}  // namespace

const std::vector<std::string>& binding_log() { return log(); }
void record_binding(const std::string& name) { log().push_back(name); }

}  // namespace npusim::platforms
