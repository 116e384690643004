// libFuzzer target: the memory sections of platform profiles and traffic configurations
// (models/memory_config: hbm, dataram, interconnect; docs/memory-config.md), with and without
// --set overrides taken from the input's last line.
#include "models/memory_config.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string t = npusim::fuzz::text(data, size);
  try {
    npusim::models::load_memory_config(t, "fuzz.yaml");
  } catch (const npusim::models::ConfigError&) {
  }
  const size_t nl = t.rfind('\n');
  if (nl != std::string::npos) {
    try {
      std::vector<npusim::models::Override> o{npusim::models::parse_override(t.substr(nl + 1))};
      npusim::models::load_memory_config(t.substr(0, nl), "fuzz.yaml", o);
    } catch (const npusim::models::ConfigError&) {
    }
  }
  return 0;
}
