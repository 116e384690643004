// libFuzzer target: memory request traces (`npusim traffic --trace`), read as every format and
// as the format their shape gives, from a file as npusim reads them. Any input ends as a trace
// or a TrafficError; a run out of memory or a crash is a finding.
#include <cstdio>
#include <fstream>
#include <string>

#include <unistd.h>

#include "sim/tools/traffic.h"
#include "sim/tools/traffic_trace.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = "/tmp/npusim-fuzz-trace-" + std::to_string(getpid()) + ".trace";
  {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  using npusim::sim::TraceFormat;
  const std::optional<TraceFormat> formats[] = {std::nullopt, TraceFormat::kDramsim3, TraceFormat::kRamulator,
                                                TraceFormat::kRamulator2, TraceFormat::kStl, TraceFormat::kRstl};
  for (const auto& fmt : formats) {
    try {
      const auto t = npusim::sim::read_trace(path, fmt, 100'000);
      if (t.requests.size() != t.lines.size()) __builtin_trap();  // every request has its line
    } catch (const npusim::sim::TrafficError&) {
    }
  }
  return 0;
}
