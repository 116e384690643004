// libFuzzer target: heap-replay ops files, parsed as `npusim heap replay` parses them for the
// xmem/neuron allocators, and parsed and replayed on the Snitch allocator model (host memory
// only: the model's TCDM and L3 are small).
#include <sstream>

#include "sim/tools/heap_replay.h"
#include "sim/tools/snitch_replay.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string t = npusim::fuzz::text(data, size);
  try {
    std::istringstream in(t);
    npusim::sim::parse_ops(in, "fuzz.ops");
  } catch (const npusim::sim::InputError&) {
  }
  for (const char* a : {"snitch-l1", "snitch-l3"}) {
    npusim::sim::SnitchReplayOptions o;
    o.allocator = a;
    std::istringstream in(t);
    std::ostringstream out;
    try {
      npusim::sim::run_snitch_replay(o, in, "fuzz.ops", out);
    } catch (const npusim::sim::InputError&) {
    }
  }
  return 0;
}
