// libFuzzer target: the report reader of `npusim report` and `run --html` (sim/output/
// report_data.cpp). An input that opens like a npusim trace is read as a Chrome trace, line by
// line; anything else as a JSON report, checked field by field. Both either give the page's
// data or an error naming the file (InputError, or std::runtime_error for a trace event).
#include <sstream>
#include <stdexcept>

#include "sim/input/input_error.h"
#include "sim/output/report_data.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string t = npusim::fuzz::text(data, size);
  npusim::sim::HtmlLimits small;  // small limits: the downsampling paths run on small inputs
  small.slices_per_row = 8;
  small.points = 8;
  small.blocks = 4;
  small.list = 4;
  try {
    if (t.rfind("{\"displayTimeUnit\"", 0) == 0 || t.rfind("[", 0) == 0) {
      std::istringstream in(t);
      npusim::sim::trace_from_stream(in, "fuzz.trace.json", small);
    } else {
      npusim::sim::run_data(npusim::sim::report_from_text(t, "fuzz.json"), "fuzz.json", "", small);
    }
  } catch (const std::runtime_error&) {  // InputError and the trace reader's errors
  }
  return 0;
}
