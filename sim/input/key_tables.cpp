#include "sim/input/key_tables.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "sim/input/scenario.h"
#include "sim/input/limits.h"

namespace npusim::sim {

const KeySpec& MapSpec::key(const std::string& name) const {
  for (const auto& k : keys)
    if (k.name == name) return k;
  throw std::logic_error(fmt::format("key table '{}' has no key '{}'", what, name));
}

std::string MapSpec::names() const {
  std::string s;
  for (const auto& k : keys) s += (s.empty() ? "" : ", ") + k.name;
  return s;
}

namespace {

ValueSpec v(ValueKind k) {
  ValueSpec s;
  s.kind = k;
  return s;
}
ValueSpec text() { return v(ValueKind::kText); }
ValueSpec size(uint64_t lo = 0, uint64_t hi = UINT64_MAX, const char* why = nullptr) {
  ValueSpec s = v(ValueKind::kSize);
  s.lo = lo;
  s.hi = hi;
  s.range_why = why;
  return s;
}
ValueSpec choice(std::vector<std::string> c) {
  ValueSpec s = v(ValueKind::kChoice);
  s.choices = std::move(c);
  return s;
}
ValueSpec map(const MapSpec& m) {
  ValueSpec s = v(ValueKind::kMap);
  s.map = &m;
  return s;
}
ValueSpec list(ValueSpec s, size_t min_items = 0, size_t max_items = 0) {
  s.many = ValueSpec::kList;
  s.min_items = min_items;
  s.max_items = max_items;
  return s;
}
ValueSpec value_map(ValueKind element, const char* key_pattern = nullptr) {
  ValueSpec s = v(ValueKind::kValueMap);
  s.element = element;
  s.key_pattern = key_pattern;
  return s;
}
ValueSpec settings() {
  ValueSpec s = value_map(ValueKind::kText);
  s.profile_keys = true;
  return s;
}
KeySpec key(std::string name, ValueSpec value, bool required = false, std::string doc = {}) {
  return KeySpec{std::move(name), {std::move(value)}, required, false, std::move(doc)};
}
KeySpec alt(std::string name, std::vector<ValueSpec> forms, std::string doc = {}) {
  return KeySpec{std::move(name), std::move(forms), false, false, std::move(doc)};
}

// --- neuron-gpsimd scenarios (docs/scenarios.md) ---

const ValueSpec kHeap = choice({"hbm", "dataram", "libc"});
const ValueSpec kMethod =
    choice({"c_memcpy", "vec_memcpy", "dma", "C_MEMCPY", "VEC_MEMCPY", "DMA", "0", "1", "2"});
const ValueSpec kPolicy = choice({"abort", "record"});
const ValueSpec kAddr = v(ValueKind::kAddr);
const ValueSpec kBool = v(ValueKind::kBool);
const ValueSpec kSize32 = size(0, kU32);

const MapSpec kAlloc{"alloc",
                     {key("heap", kHeap, true), key("size", size(0, kU32, "size does not fit the 32-bit allocator ABI"), true),
                      key("align", size(0, kU32, "align does not fit 32 bits")),
                      key("as", v(ValueKind::kName), false, "the name later steps use"),
                      key("optional", kBool, false, "a failure is expected, not an error")}};
const MapSpec kFree{"free", {key("heap", kHeap, true), key("addr", kAddr, true)}};
const MapSpec kStack{"stack",
                     {key("size", size(0, kU32, "stack size and align are 32-bit values")),
                      key("align", size(0, kU32, "stack size and align are 32-bit values")),
                      key("switch", kBool)}};
const MapSpec kCall{"call",
                    {key("name", text(), true),
                     key("frame", size(0, kU32, "frame size does not fit 32 bits"), true),
                     key("body", v(ValueKind::kSteps))}};
const MapSpec kTransfer{"transfer",
                        {key("method", kMethod), key("src", kAddr, true), key("dst", kAddr, true),
                         key("bytes", size(), true), key("chunk", size(1, UINT64_MAX, "chunk must be positive"))}};
const MapSpec kTensorStream{"tensor_stream",
                            {key("method", kMethod), key("src", kAddr, true),
                             key("dst", kAddr, true), key("bytes", size(), true),
                             key("double_buffer", kBool)}};
const MapSpec kLoop{"loop", {key("count", size(), true), key("body", v(ValueKind::kSteps), true)}};
const MapSpec kWrite{"write",
                     {key("addr", kAddr, true), key("value", size(0, kU32, "value must fit 32 bits"), true),
                      key("bytes", size(1, UINT64_MAX, "bytes must be positive"))}};
const MapSpec kCheck{"check", kWrite.keys};

const MapSpec kNeuronSteps{
    "steps",
    {alt("init", {kHeap, list(kHeap)}, "initialise heaps"),
     key("alloc", map(kAlloc)),
     alt("free", {v(ValueKind::kName), map(kFree)}, "free a bound name or {heap, addr}"),
     key("stack", map(kStack)),
     key("stack_switch", choice({"hbm", "local"})),
     key("call", map(kCall)),
     key("transfer", map(kTransfer)),
     key("tensor_stream", map(kTensorStream)),
     key("compute", size(), false, "compute cycles"),
     key("wait", v(ValueKind::kDuration), false, "idle time"),
     key("loop", map(kLoop)),
     key("marker", text()),
     key("write", map(kWrite)),
     key("check", map(kCheck))}};

const MapSpec kNeuronPolicies{"policies",
                              {key("dma_window", kPolicy), key("on_alloc_failure", kPolicy)}};
const MapSpec kCustomOp{"custom_op",
                        {key("name", text(), true), key("args", value_map(ValueKind::kSize))}};
const MapSpec kTorchInput{
    "an input",
    // [] is a 0-dimensional tensor (one element); a dimension of 0 makes a tensor with no
    // elements, which torch allows and a kernel must handle.
    {key("shape", list(size(0, 1ull << 31, "a dimension is between 0 and 2^31")), true),
     key("dtype", text()), key("init", text()), key("file", text())}};
const MapSpec kTorchOp{"torch_op",
                       {key("op", text(), true), key("multicore", kBool),
                        key("inputs", list(map(kTorchInput)), true),
                        key("scalars", list(v(ValueKind::kNumber))), key("stack_size", size()),
                        key("reference", text()),
                        key("output", text())}};
const MapSpec kNeuronBinary{"binary",
                            {key("elf", text(), true, "a firmware program built with npusim cc --platform neuron-gpsimd (relative to the scenario)"),
                             key("args", list(text()), false, "main's argv[1..]"),
                             key("max_cycles", size(1, uint64_t{1} << 40), false, "cycle budget of the run")}};
const MapSpec kNeuronRoot{
    "the scenario",
    {key("name", text()), key("description", text()), key("platform", text()),
     key("set", settings(), false, "platform overrides: section.key: value"),
     key("policies", map(kNeuronPolicies)), key("program", v(ValueKind::kSteps)),
     alt("custom_op", {text(), map(kCustomOp)}), key("torch_op", map(kTorchOp)),
     key("binary", map(kNeuronBinary), false, "a firmware program on the management core (docs/neuron-programs.md)"),
     key("output", list(text()), false, "lines the firmware program must print"),
     key("expect", value_map(ValueKind::kCondition))}};

// --- snitch-cluster scenarios (docs/snitch-cluster.md) ---

const ValueSpec kExpr = v(ValueKind::kExpr);
const ValueSpec kIdent = v(ValueKind::kIdent);

const MapSpec kSnAlloc{"alloc", {key("size", kExpr, true), key("align", kExpr), key("as", kIdent, true)}};
const MapSpec kSnRemote{"remote_l1_ptr",
                        {key("ptr", kExpr, true), key("src", kExpr), key("dst", kExpr, true),
                         key("as", kIdent, true)}};
const MapSpec kSnCoreLocal{"core_local_ptr",
                           {key("ptr", kExpr, true), key("core", kExpr, true),
                            key("size", kExpr, true), key("as", kIdent, true)}};
const MapSpec kSnStream{"stream",
                        {alt("load", {kExpr, list(kExpr, 1, 8)}), alt("store", {kExpr, list(kExpr, 1, 8)}),
                         key("count", kExpr), key("stride", kExpr), key("bytes", kExpr),
                         key("value", kExpr), key("compute", kExpr)}};
const MapSpec kSnAccess{"load",
                        {key("addr", kExpr, true), key("count", kExpr), key("stride", kExpr),
                         key("bytes", kExpr), key("value", kExpr)}};
const MapSpec kSnCheck{"check",
                       {key("addr", kExpr, true), key("count", kExpr), key("stride", kExpr),
                        key("bytes", kExpr), key("value", kExpr, true)}};
const MapSpec kSnDma{"dma",
                     {key("src", kExpr, true), key("dst", kExpr, true), key("bytes", kExpr, true),
                      key("rows", kExpr), key("src_stride", kExpr), key("dst_stride", kExpr)}};
const MapSpec kSnLoop{"loop",
                      {key("count", kExpr, true), key("var", kIdent),
                       key("body", v(ValueKind::kSteps), true)}};
const MapSpec kSnWhen{"when",
                      {key("if", kExpr, true), key("then", v(ValueKind::kSteps)),
                       key("else", v(ValueKind::kSteps))}};

KeySpec bare(std::string name, std::vector<ValueSpec> forms, std::string doc) {
  KeySpec k{std::move(name), std::move(forms), false, true, std::move(doc)};
  return k;
}

const MapSpec kSnitchSteps{
    "steps",
    {key("l1_alloc", map(kSnAlloc), false, "snrt_l1_alloc_cluster_local"),
     key("l1_alloc_core_local", map(kSnAlloc), false, "snrt_l1_alloc_compute_core_local"),
     key("l3_alloc", map(kSnAlloc), false, "snrt_l3_alloc_v2"),
     key("l1_update_next", kExpr, false, "snrt_l1_update_next_v2"),
     key("l1_next", kIdent, false, "snrt_l1_next_v2"),
     key("let", value_map(ValueKind::kExpr)),
     key("remote_l1_ptr", map(kSnRemote)),
     key("core_local_ptr", map(kSnCoreLocal)),
     key("stream", map(kSnStream)),
     alt("load", {kExpr, map(kSnAccess)}),
     alt("store", {kExpr, map(kSnAccess)}),
     key("check", map(kSnCheck)),
     key("compute", kExpr, false, "compute cycles"),
     bare("barrier", {choice({"cluster", "global"})}, "a cluster barrier, or a global one"),
     key("dma", map(kSnDma)),
     bare("dma_wait", {}, "wait for this core's DMA transfers"),
     key("loop", map(kSnLoop)),
     key("when", map(kSnWhen)),
     key("marker", text()),
     key("wait", v(ValueKind::kDuration))}};

const MapSpec kSnitchPolicies{"policies", {key("on_trap", choice({"stop_core", "record"}))}};
const MapSpec kSnBinary{"binary",
                        {key("elf", text(), true, "an RV32 program built with npusim cc (relative to the scenario)"),
                         key("args", list(text()), false, "main's argv[1..]"),
                         key("on", text(), false, "all (default), compute, dm, cluster N, or a core name such as c0_core3"),
                         key("max_cycles", size(1, uint64_t{1} << 40), false, "cycle budget of the run")}};
const MapSpec kSnMemoryCheck{"memory",
                             {key("at", text(), true, "an ELF symbol or an address"),
                              key("u8", list(text(), 1)), key("u32", list(text(), 1)), key("i32", list(text(), 1)),
                              key("u64", list(text(), 1)), key("f32", list(text(), 1)), key("f64", list(text(), 1))}};
const MapSpec kSnitchRoot{
    "the scenario",
    {key("name", text()), key("description", text()), key("platform", text()),
     key("set", settings(), false, "platform overrides: section.key: value"),
     key("policies", map(kSnitchPolicies)), key("program", v(ValueKind::kSteps)),
     key("cores", value_map(ValueKind::kSteps, "^(compute|dm|[0-9]{1,4})$")),
     alt("binary", {map(kSnBinary), list(map(kSnBinary), 1)}, "RV32 programs on the cores (docs/snitch-programs.md)"),
     key("output", list(text()), false, "lines the programs must print"),
     key("memory", list(map(kSnMemoryCheck), 1), false, "memory the programs must leave (after the run)"),
     key("expect", value_map(ValueKind::kCondition))}};

// --- a profile's topology: (topology_input.cpp; numbers may name a profile key) ---

const ValueSpec kNumberOrKey = [] {
  ValueSpec s = size();
  return s;
}();
KeySpec num(std::string name, bool required = false) {
  return KeySpec{std::move(name), {kNumberOrKey, text()}, required, false, {}};
}
const MapSpec kTopoGroup{"group", {key("name", text(), true), num("count")}};
const MapSpec kTopoComponent{
    "component",
    {key("kind", choice({"core", "sram", "hbm", "tcdm", "dma", "interconnect"}), true),
     key("name", text(), true), key("config", text()), num("count"), key("group", text()),
     key("inline", kBool)}};
const MapSpec kTopoRegion{"region",
                          {key("on", text(), true), key("name", text(), true), key("to", text(), true),
                           num("base"), num("size"), num("stride"), num("target_offset"),
                           key("window", kBool)}};
const MapSpec kTopology{"topology",
                        {key("name", text()), key("groups", list(map(kTopoGroup))),
                         key("components", list(map(kTopoComponent), 1), true),
                         key("bindings", list(text())), key("regions", list(map(kTopoRegion)))}};

}  // namespace

const MapSpec& topology_spec() { return kTopology; }

const Dialect& neuron_dialect() {
  static const Dialect d{"neuron-gpsimd", &kNeuronRoot, &kNeuronSteps};
  return d;
}
const Dialect& snitch_dialect() {
  static const Dialect d{"snitch-cluster", &kSnitchRoot, &kSnitchSteps};
  return d;
}

void check_keys(const YamlInput& in, const YAML::Node& m, const MapSpec& spec,
                const char* what_) {
  const std::string what = what_ ? what_ : spec.what;
  if (!m.IsMap()) in.fail(m, fmt::format("{} takes a map", what));
  for (const auto& kv : m) {
    const std::string k = kv.first.as<std::string>();
    bool known = false;
    for (const auto& s : spec.keys) known = known || s.name == k;
    if (!known)
      in.fail(kv.first, fmt::format("unknown key '{}' in {} (expected {})", k, what, spec.names()));
  }
  for (const auto& s : spec.keys)
    if (s.required && !m[s.name]) in.fail(m, fmt::format("{} needs '{}'", what, s.name));
}

std::string check_choice(const YamlInput& in, const YAML::Node& n, const ValueSpec& v,
                         const char* what) {
  const std::string s = in.str(n, what);
  for (const auto& c : v.choices)
    if (c == s) return s;
  std::string list;
  for (size_t i = 0; i < v.choices.size(); ++i)
    list += (i == 0 ? "" : i + 1 == v.choices.size() ? " or " : ", ") + v.choices[i];
  in.fail(n, fmt::format("{} must be {}", what, list));
}

void check_range(const YamlInput& in, const YAML::Node& n, const ValueSpec& v, uint64_t value) {
  if (value < v.lo || value > v.hi)
    in.fail(n, v.range_why ? v.range_why : fmt::format("must be between {} and {}", v.lo, v.hi));
}

// --- profile fields ---

Field size_field(uint64_t lo, uint64_t hi, std::function<void(uint64_t)> store) {
  Field f;
  f.value = size(lo, hi);
  f.set = [lo, hi, store](const std::string& v) -> std::optional<std::string> {
    auto n = parse_size(v);
    if (!n) return "expected a non-negative integer (decimal, 0x-hex, KiB/MiB/GiB)";
    if (*n < lo || *n > hi)
      return lo == 0 ? fmt::format("must be at most {}", hi)
                     : fmt::format("must be between {} and {}", lo, hi);
    store(*n);
    return std::nullopt;
  };
  return f;
}

Field number_field(double& dst, double max, const char* why, double min) {
  Field f;
  f.value = v(ValueKind::kNumber);
  f.value.positive = true;
  f.value.max = max;
  f.set = [&dst, max, why, min](const std::string& t) -> std::optional<std::string> {
    char* end = nullptr;
    const double d = std::strtod(t.c_str(), &end);
    if (t.empty() || end != t.c_str() + t.size() || !(d > 0) || !std::isfinite(d) || d < min ||
        (max > 0 && d > max))
      return std::string(why ? why : "expected a positive number");
    dst = d;
    return std::nullopt;
  };
  return f;
}

Field energy_field(double& dst) {
  Field f;
  f.value = v(ValueKind::kNumber);
  f.value.non_negative = true;
  f.value.max = 1e9;
  f.set = [&dst](const std::string& t) -> std::optional<std::string> {
    char* end = nullptr;
    const double d = std::strtod(t.c_str(), &end);
    if (t.empty() || end != t.c_str() + t.size() || !(d >= 0) || d > 1e9)
      return std::string("expected an energy in pJ, a number in [0, 1e9]");
    dst = d;
    return std::nullopt;
  };
  return f;
}

Field bool_field(bool& dst) {
  Field f;
  f.value = v(ValueKind::kBool);
  f.set = [&dst](const std::string& t) -> std::optional<std::string> {
    if (t == "true" || t == "yes" || t == "on") dst = true;
    else if (t == "false" || t == "no" || t == "off") dst = false;
    else return "expected true or false";
    return std::nullopt;
  };
  return f;
}

}  // namespace npusim::sim
