#include "sim/input/scenario.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cctype>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "sim/input/input_error.h"
#include "sim/input/key_tables.h"
#include "sim/input/limits.h"
#include "sim/input/yaml_input.h"

namespace npusim::sim {

namespace {

constexpr double kMaxWaitNs = 4.611686018427387904e15;  // 2^62 ps

class Parser : public YamlInput {
 public:
  explicit Parser(std::string file) : YamlInput(std::move(file)) {}

  // The key tables of this dialect (key_tables.cpp).
  static const MapSpec& root_spec() { return *neuron_dialect().root; }
  static const MapSpec& steps_spec() { return *neuron_dialect().steps; }
  static const MapSpec& step_map(const char* step, size_t form = 0) {
    return *steps_spec().key(step).forms.at(form).map;
  }
  static const MapSpec& root_map(const char* k, size_t form = 0) {
    return *root_spec().key(k).forms.at(form).map;
  }
  // A size read from `m[k]`, in the range the table gives for key `k` of `spec`.
  uint64_t size_in(const YAML::Node& m, const MapSpec& spec, const char* k) const {
    const ValueSpec& vs = spec.value(k);
    if (vs.kind != ValueKind::kSize) throw std::logic_error(fmt::format("{}.{} is not a size", spec.what, k));
    const uint64_t v = size(m[k], k);
    check_range(*this, m[k], vs, v);
    return v;
  }

  uint64_t size(const YAML::Node& n, const char* what) const {
    const std::string s = str(n, what);
    if (!s.empty() && s[0] == '-') fail(n, fmt::format("{} must not be negative", what));
    auto v = parse_size(s);
    if (!v) fail(n, fmt::format("{} is not a size (decimal, 0x-hex, optional KiB/MiB/GiB)", what));
    return *v;
  }
  bool boolean(const YAML::Node& n, const char* what) const {
    const std::string s = str(n, what);
    if (s == "true" || s == "yes" || s == "on") return true;
    if (s == "false" || s == "no" || s == "off") return false;
    fail(n, fmt::format("{} must be true or false", what));
  }
  AddrExpr addr(const YAML::Node& n, const char* what) const {
    AddrExpr e;
    e.at = at(n);
    e.text = str(n, what);
    std::string t = e.text;
    t.erase(std::remove(t.begin(), t.end(), ' '), t.end());
    if (t.empty()) fail(n, fmt::format("{} is empty", what));
    if (std::isdigit(static_cast<unsigned char>(t[0]))) {
      auto v = parse_size(t);
      if (!v) fail(n, fmt::format("{} is not an address or a bound name", what));
      e.offset = *v;
      return e;
    }
    const size_t plus = t.find('+');
    e.name = t.substr(0, plus);
    if (plus != std::string::npos) {
      auto v = parse_size(t.substr(plus + 1));
      if (!v) fail(n, fmt::format("the offset of {} is not a number", what));
      e.offset = *v;
    }
    if (!valid_name(e.name)) fail(n, fmt::format("{}: '{}' is not a name", what, e.name));
    if (!bound_.count(e.name))
      fail(n, fmt::format("{}: '{}' is used before any step binds it (alloc ... as: {})", what,
                          e.name, e.name));
    return e;
  }
  static bool valid_name(const std::string& s) {
    if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
    });
  }

  std::string heap(const YAML::Node& n) const {
    return check_choice(*this, n, step_map("alloc").value("heap"), "heap");
  }
  std::string method(const YAML::Node& n) const {
    return check_choice(*this, n, step_map("transfer").value("method"), "method");
  }

  std::vector<Step> steps(const YAML::Node& seq, int depth) {
    if (!seq.IsSequence()) fail(seq, "a program is a list of steps");
    if (depth > 64) fail(seq, "steps nest deeper than 64 levels");
    std::vector<Step> out;
    for (const auto& item : seq) out.push_back(step(item, depth));
    return out;
  }

  Step step(const YAML::Node& item, int depth) {
    if (!item.IsMap() || item.size() != 1)
      fail(item, "a step is a map with exactly one key: the step's name (" + steps_spec().names() + ")");
    const auto kv = *item.begin();
    const std::string k = kv.first.as<std::string>();
    const YAML::Node v = kv.second;
    Step s{};
    s.at = at(kv.first);
    if (k == "init") {
      s.kind = Step::kInit;
      if (v.IsScalar()) s.heaps.push_back(heap(v));
      else if (v.IsSequence())
        for (const auto& h : v) s.heaps.push_back(heap(h));
      else fail(v, "init takes a heap or a list of heaps");
      inited_.insert(s.heaps.begin(), s.heaps.end());
    } else if (k == "alloc") {
      s.kind = Step::kAlloc;
      const MapSpec& spec = step_map("alloc");
      check_keys(*this, v, spec);
      s.heap = heap(v["heap"]);
      need_init(v["heap"], s.heap, "alloc");
      s.size = size_in(v, spec, "size");
      if (v["align"]) s.align = size_in(v, spec, "align");
      if (s.size > 0xffffffffull) fail(v["size"], "size does not fit the 32-bit allocator ABI");
      if (s.align > 0xffffffffull) fail(v["align"], "align does not fit 32 bits");
      if (v["optional"]) s.flag = boolean(v["optional"], "optional");
      if (v["as"]) {
        s.name = str(v["as"], "as");
        if (!valid_name(s.name)) fail(v["as"], "not a valid name");
        bound_.insert(s.name);
        heap_of_[s.name] = s.heap;
      }
    } else if (k == "free") {
      s.kind = Step::kFree;
      if (v.IsScalar()) {
        s.name = v.Scalar();
        if (!valid_name(s.name)) fail(v, "free takes the name an alloc bound");
        if (!heap_of_.count(s.name))
          fail(v, fmt::format("free of '{}', which no alloc step binds", s.name));
        s.heap = heap_of_[s.name];
      } else {
        check_keys(*this, v, step_map("free", 1));
        s.heap = heap(v["heap"]);
        need_init(v["heap"], s.heap, "free");
        s.addr = addr(v["addr"], "addr");
      }
    } else if (k == "stack") {
      s.kind = Step::kStackAlloc;
      const MapSpec& spec = step_map("stack");
      check_keys(*this, v, spec);
      need_init(kv.first, "hbm", "stack");
      if (v["size"]) s.size = size_in(v, spec, "size");
      if (v["align"]) s.align = size_in(v, spec, "align");
      if (s.size > 0xffffffffull || s.align > 0xffffffffull)
        fail(v, "stack size and align are 32-bit values");
      s.flag = v["switch"] ? boolean(v["switch"], "switch") : true;
    } else if (k == "stack_switch") {
      s.kind = Step::kStackSwitch;
      s.text = check_choice(*this, v, steps_spec().value("stack_switch"), "stack_switch");
    } else if (k == "call") {
      s.kind = Step::kCall;
      const MapSpec& spec = step_map("call");
      check_keys(*this, v, spec);
      s.name = str(v["name"], "name");
      s.size = size_in(v, spec, "frame");
      if (v["body"]) s.body = steps(v["body"], depth + 1);
    } else if (k == "transfer" || k == "tensor_stream") {
      const bool ts = k == "tensor_stream";
      s.kind = ts ? Step::kTensorStream : Step::kTransfer;
      const MapSpec& spec = step_map(ts ? "tensor_stream" : "transfer");
      check_keys(*this, v, spec);
      if (v["method"]) {
        s.method = method(v["method"]);
        s.has_method = true;
      }
      s.src = addr(v["src"], "src");
      s.dst = addr(v["dst"], "dst");
      s.size = size_in(v, spec, "bytes");
      if (v["chunk"]) s.chunk = size_in(v, spec, "chunk");
      if (v["double_buffer"]) s.double_buffer = boolean(v["double_buffer"], "double_buffer");
    } else if (k == "compute") {
      s.kind = Step::kCompute;
      s.cycles = size(v, "compute cycles");
    } else if (k == "wait") {
      s.kind = Step::kWait;
      auto d = parse_duration_ns(str(v, "wait"));
      if (!d) fail(v, "wait takes a duration such as 500ns, 2us, 1ms");
      if (*d > kMaxWaitNs)
        fail(v, "wait is longer than the simulated time can reach (2^62 ps, about 53 days)");
      s.wait_ns = *d;
    } else if (k == "loop") {
      s.kind = Step::kLoop;
      const MapSpec& spec = step_map("loop");
      check_keys(*this, v, spec);
      s.count = size_in(v, spec, "count");
      if (s.count > limits().loop_trips)
        fail(v["count"], fmt::format("loop count above the limit of {} trips (--limit loop_trips=N)",
                                     limits().loop_trips));
      s.body = steps(v["body"], depth + 1);
    } else if (k == "marker") {
      s.kind = Step::kMarker;
      s.text = str(v, "marker");
    } else if (k == "write" || k == "check") {
      s.kind = k == "write" ? Step::kWrite : Step::kCheck;
      const MapSpec& spec = step_map(k.c_str());
      check_keys(*this, v, spec, k.c_str());
      s.addr = addr(v["addr"], "addr");
      s.value = size_in(v, spec, "value");
      if (s.value > 0xff && !v["bytes"]) s.size = 4;
      s.size = v["bytes"] ? size_in(v, spec, "bytes") : (s.size ? s.size : 1);
    } else {
      fail(kv.first, fmt::format("unknown step '{}'", k));
    }
    return s;
  }

  TorchOpSpec torch_op(const YAML::Node& t) const {
    const MapSpec& spec = root_map("torch_op");
    if (t.IsMap())
      for (const auto& kv : t)
        if (kv.first.as<std::string>() == "tcm_cycles_per_element")
          fail(kv.first, "tcm_cycles_per_element was removed: a kernel's own work is now timed from its compiled "
                         "code (the kernel_cost section of the profile; docs/custom-ops.md)");
    check_keys(*this, t, spec);
    TorchOpSpec o;
    o.at = at(t);
    o.op = str(t["op"], "op");
    if (t["multicore"]) o.multicore = boolean(t["multicore"], "multicore");
    if (t["stack_size"]) o.stack_size = static_cast<long long>(size(t["stack_size"], "stack_size"));
    if (t["reference"]) o.reference = str(t["reference"], "reference");
    if (t["output"]) o.output = str(t["output"], "output");
    const auto in = t["inputs"];
    if (!in.IsSequence()) fail(in, "inputs takes a list of {shape, dtype, init | file}");
    for (const auto& i : in) {
      const MapSpec& ispec = *spec.value("inputs").map;
      check_keys(*this, i, ispec);
      TorchInput x;
      x.at = at(i);
      const auto sh = i["shape"];
      if (!sh.IsSequence()) fail(sh, "shape is a list of dimensions, e.g. [1024], [64, 256] or [] (0-dimensional)");
      for (const auto& d : sh) {
        const uint64_t v = size(d, "a dimension");
        check_range(*this, d, ispec.value("shape"), v);
        x.shape.push_back(static_cast<int64_t>(v));
      }
      if (i["dtype"]) x.dtype = str(i["dtype"], "dtype");
      if (i["init"] && i["file"]) fail(i["file"], "an input has init or file, not both");
      if (i["init"]) x.init = str(i["init"], "init");
      if (i["file"]) x.file = str(i["file"], "file");
      o.inputs.push_back(x);
    }
    if (const auto sv = t["scalars"]) {
      if (!sv.IsSequence()) fail(sv, "scalars takes a list of numbers");
      for (const auto& v : sv) {
        char* end = nullptr;
        const std::string s = str(v, "a scalar");
        const double d = std::strtod(s.c_str(), &end);
        std::string low = s;
        for (char& ch : low) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        const bool special = low.find("nan") != std::string::npos || low.find("inf") != std::string::npos;
        if (special || (!s.empty() && end == s.c_str() + s.size() && !std::isfinite(d)))
          fail(v, "a scalar is a finite number: NaN, infinity and numbers beyond the range of a double "
                  "(about 1.8e308) are not passed to a kernel");
        if (s.empty() || end != s.c_str() + s.size())
          fail(v, "a scalar is a number (decimal, e.g. 2, -0.5 or 1e-3)");
        o.scalars.push_back(d);
      }
    }
    return o;
  }

  // Counts the steps `list` executes `trips` times into `total` (saturating) and fails at the
  // step where the count passes limits().steps: loops unrolled, a runaway program is stopped
  // at load, not after hours.
  void check_steps(const std::vector<Step>& list, uint64_t trips, uint64_t& total) const {
    const uint64_t cap = limits().steps;
    for (const Step& st : list) {
      total += trips;
      if (total > cap)
        throw InputError(st.at.file, st.at.line, st.kind == Step::kLoop ? "loop" : "step",
                         fmt::format("the program executes more than {} steps once its loops are "
                                     "unrolled (--limit steps=N)", cap),
                         st.at.column);
      if (st.kind == Step::kLoop && st.count > 0) {
        // trips * count saturates at the cap + 1: the body's first step then fails.
        const uint64_t inner = st.count > (cap + 1) / trips ? cap + 1 : trips * st.count;
        check_steps(st.body, inner, total);
      }
    }
  }

  Scenario scenario(const std::string& text) {
    const YAML::Node root = this->root(text);
    Scenario sc;
    sc.file = file_;
    check_keys(*this, root, root_spec());
    header(root, sc);
    if (const auto p = root["policies"]) {
      const MapSpec& spec = root_map("policies");
      check_keys(*this, p, spec);
      if (p["dma_window"])
        sc.dma_window_policy = check_choice(*this, p["dma_window"], spec.value("dma_window"), "dma_window");
      if (p["on_alloc_failure"])
        sc.alloc_failure_policy =
            check_choice(*this, p["on_alloc_failure"], spec.value("on_alloc_failure"), "on_alloc_failure");
    }
    if (root["program"] && root["custom_op"])
      fail(root["custom_op"], "a scenario has either program or custom_op, not both");
    if (root["program"]) {
      sc.program = steps(root["program"], 0);
      uint64_t total = 0;
      check_steps(sc.program, 1, total);
    }
    if (const auto op = root["custom_op"]) {
      if (op.IsScalar()) {
        sc.custom_op = op.Scalar();
      } else {
        check_keys(*this, op, root_map("custom_op", 1));
        sc.custom_op = str(op["name"], "name");
        if (const auto args = op["args"]) {
          if (!args.IsMap()) fail(args, "args takes a map of name: integer");
          for (const auto& kv : args) {
            const std::string s = str(kv.second, "argument");
            auto v = parse_size(s);
            if (!v || *v > static_cast<uint64_t>(INT64_MAX)) fail(kv.second, "an argument is a non-negative integer or size");
            sc.op_args[kv.first.as<std::string>()] = static_cast<long long>(*v);
          }
        }
      }
    }
    if (const auto t = root["torch_op"]) {
      if (root["program"] || root["custom_op"])
        fail(t, "a scenario has one of program, custom_op and torch_op");
      sc.torch_op = torch_op(t);
    }
    if (const auto b = root["binary"]) {
      if (root["program"] || root["custom_op"] || root["torch_op"])
        fail(b, "a scenario runs one of program (steps), binary, custom_op and torch_op");
      check_keys(*this, b, root_map("binary"));
      Scenario::FirmwareBinary bin;
      binary_keys(b, bin.elf, bin.args, bin.max_cycles, bin.at);
      sc.binary = std::move(bin);
      if (const auto o = root["output"]) {
        if (!o.IsSequence()) fail(o, "output takes a list of lines the program must print");
        for (const auto& e : o) sc.output.emplace_back(str(e, "an output line"), at(e));
      }
    } else if (root["output"]) {
      fail(root["output"], "output is for a binary: steps print nothing");
    }
    if (!root["program"] && !root["custom_op"] && !root["torch_op"] && !root["binary"])
      fail(root, "a scenario needs a program (a list of steps), a binary, a custom_op or a torch_op");
    if (const auto ex = root["expect"]) sc.expect = expectations(ex);
    return sc;
  }

 private:
  std::set<std::string> bound_;
  std::map<std::string, std::string> heap_of_;
  std::set<std::string> inited_;  // heaps an init step before this one initialises

  // The firmware's heaps hold nothing before init: a step on one is a bus error at 0x8.
  void need_init(const YAML::Node& n, const std::string& heap, const char* what) const {
    if (!inited_.count(heap))
      fail(n, fmt::format("{} on the {} heap before it is initialised (put '- init: [{}]' first)",
                          what, heap, heap));
  }
};

}  // namespace

Scenario parse_scenario(const std::string& text, const std::string& file) {
  Parser p(file);
  try {
    return p.scenario(text);
  } catch (const YAML::Exception& e) {  // e.g. a map key that is not a scalar
    throw InputError(file, e.mark.line + 1, "", "malformed scenario: " + e.msg, e.mark.column + 1);
  }
}

Scenario load_scenario_file(const std::string& path) {
  return parse_scenario(read_input_file(path, "scenario"), path);
}

}  // namespace npusim::sim
