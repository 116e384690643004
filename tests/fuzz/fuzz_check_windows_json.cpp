// libFuzzer target: check-windows descriptor JSON (an array, or {"descriptors": [...]}).
#include <sstream>

#include "sim/input/input_error.h"
#include "sim/tools/check_windows.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(npusim::fuzz::text(data, size));
  try {
    npusim::sim::parse_descriptors_json(in, "fuzz.json");
  } catch (const npusim::sim::InputError&) {
  }
  return 0;
}
