// Limits instead of exhaustion: what a hostile or mistyped input may ask for
// before npusim stops it with an error naming the place, rather than growing memory or time
// without bound. Process-wide; `npusim run --limit KEY=N` changes them (docs/scenarios.md).
#pragma once

#include <cstdint>
#include <string>

namespace npusim::sim {

// The largest value of a 32-bit field of the device ABI (sizes, addresses of the 32-bit cores).
inline constexpr uint64_t kU32 = 0xffffffffull;

struct Limits {
  uint64_t yaml_nodes = 1'000'000;     // nodes of an input YAML document, aliases expanded
  uint64_t steps = 10'000'000;         // steps a Neuron program executes, loops unrolled
  uint64_t loop_trips = 100'000'000;   // trip count of one loop
  uint64_t host_bytes = 1ull << 32;    // host memory one torch op's tensors may take (4 GiB)
  uint64_t dma_rows = 1'000'000;       // rows of one Snitch dma (a strided one: a descriptor each)
  uint64_t stream_elements = 100'000'000;  // elements of one Snitch stream/load/store/check
  uint64_t input_bytes = 256ull << 20;  // size of one input file, read whole (256 MiB)
};

Limits& limits();

// Applies "KEY=N" (yaml_nodes, steps, loop_trips, host_bytes, dma_rows, stream_elements, input_bytes); throws InputError naming the
// setting on an unknown key or a value that is not a positive number.
void set_limit(const std::string& setting);

}  // namespace npusim::sim
