// Scenarios: a workload for a platform, as YAML (docs/scenarios.md is the reference).
//
// The parsed form keeps the place of every value (file, line, column) so that errors found
// while loading or while running name it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace npusim::sim {

struct Where {
  std::string file;
  int line = 0, column = 0;
  std::string str() const;  // "file:line:col"
};

// An address operand: a number, or a bound name plus an offset ("buf", "buf+0x40").
struct AddrExpr {
  std::string name;  // empty: absolute
  uint64_t offset = 0;
  Where at;
  std::string text;
};

struct Step {
  enum Kind {
    kInit,          // init: [hbm, dataram, libc]
    kAlloc,         // alloc: {heap, size, align, as}
    kFree,          // free: NAME | {heap?, name|addr}
    kStackAlloc,    // stack: {size, align, switch}
    kStackSwitch,   // stack_switch: hbm|local
    kCall,          // call: {name, frame, body}
    kTransfer,      // transfer: {method, src, dst, bytes, chunk}
    kTensorStream,  // tensor_stream: {src, dst, bytes, method, double_buffer}
    kCompute,       // compute: CYCLES
    kWait,          // wait: DURATION (idle)
    kLoop,          // loop: {count, body}
    kMarker,        // marker: TEXT
    kWrite,         // write: {addr, value|pattern, bytes}
    kCheck,         // check: {addr, value|pattern, bytes}
  } kind;
  Where at;
  std::string heap, name, text, method;
  uint64_t size = 0, align = 0, count = 0, cycles = 0, chunk = 0, value = 0;
  double wait_ns = 0;
  bool flag = false;        // alloc: optional; stack: switch; tensor_stream: double_buffer
  bool has_method = false;  // transfer/tensor_stream: a method was given
  std::optional<bool> double_buffer;
  std::vector<std::string> heaps;  // init
  AddrExpr src, dst, addr;
  std::vector<Step> body;
};

// One expectation: `key: "<= 8KiB"` (operators <, <=, ==, !=, >=, >; a bare value means ==).
struct Expectation {
  std::string key, op, text;
  double value = 0;
  Where at;
  enum class Unit { kNone, kBytes, kNs } unit = Unit::kNone;  // the value's suffix, if any
  // Whether `actual` satisfies the condition (op applied to actual and value).
  bool holds(double actual) const;
  // "duration < 1ms": the key and the condition with its operator once.
  std::string describe() const;
  // `actual` in the unit of the condition, without float noise: "35.346 us", "8212 B", "7.14".
  std::string show(double actual) const;
};

// torch_op: a registered torch-API op (docs/custom-ops.md) run on given input tensors.
struct TorchInput {
  std::vector<int64_t> shape;
  std::string dtype = "float", init = "zeros", file;
  Where at;
};
struct TorchOpSpec {
  std::string op, reference, output;
  bool multicore = false;
  long long stack_size = -1;
  std::vector<TorchInput> inputs;
  std::vector<double> scalars;
  Where at;
};

// What every scenario has, whatever its platform (sim/yaml_input.h reads it).
struct ScenarioHead {
  std::string file;
  std::string name, description;
  std::string platform;
  Where platform_at;
  std::vector<std::tuple<std::string, std::string, Where>> set;  // platform overrides
  std::vector<Expectation> expect;
};

struct Scenario : ScenarioHead {
  Scenario() { platform = "neuron-gpsimd"; }
  std::string dma_window_policy = "abort";   // abort | record
  std::string alloc_failure_policy = "abort";  // abort | record
  std::vector<Step> program;
  // A firmware program on the management core instead of steps (docs/neuron-programs.md):
  // an RV32 ELF built with `npusim cc --platform neuron-gpsimd`.
  struct FirmwareBinary {
    std::string elf;                // path as resolved (relative to the scenario's folder)
    std::vector<std::string> args;  // argv[1..]
    uint64_t max_cycles = 0;        // 0: the default budget
    Where at;
  };
  std::optional<FirmwareBinary> binary;
  std::vector<std::pair<std::string, Where>> output;  // lines the program must print
  std::string custom_op;  // instead of program
  std::map<std::string, long long> op_args;
  std::optional<TorchOpSpec> torch_op;  // instead of program / custom_op
};

// Parses a scenario; throws InputError (file, line, column, offending value) on anything
// malformed: YAML syntax, unknown keys or steps, wrong types, negative sizes, names used
// before they are bound.
Scenario parse_scenario(const std::string& text, const std::string& file);
Scenario load_scenario_file(const std::string& path);

// Sizes: decimal, 0x-hex, with an optional B, KiB, MiB, GiB (or K, M, G) suffix.
std::optional<uint64_t> parse_size(const std::string& text);
// Durations: a number with ps, ns, us, ms or s (a bare number is ns).
std::optional<double> parse_duration_ns(const std::string& text);

}  // namespace npusim::sim
