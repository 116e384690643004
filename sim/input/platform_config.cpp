#include "sim/input/platform_config.h"
#include "sim/input/snitch_profile.h"
#include "sim/input/yaml_input.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "allocators/neuron/neuron_layout.h"
#include "models/memory_config.h"
#include "sim/input/input_error.h"
#include "sim/input/key_tables.h"
#include "sim/input/topology_input.h"

namespace npusim::sim {

extern const char* const kProfileNeuronGpsimd;  // generated from sim/platforms/*.yaml

std::string builtin_profile(const std::string& name) {
  if (name == "neuron-gpsimd") return kProfileNeuronGpsimd;
  return {};
}
std::vector<std::string> builtin_profile_names() { return {"neuron-gpsimd"}; }

namespace {

// Window rules: windows.N.KEY (the loader below stores them).
const std::vector<ProfileKey>& window_fields() {
  static const std::vector<ProfileKey> w = [] {
    ValueSpec addr;
    addr.kind = ValueKind::kSize;
    ValueSpec text;
    return std::vector<ProfileKey>{{"name", text},     {"lo", addr},       {"hi", addr},
                                   {"scope_lo", addr}, {"scope_hi", addr}, {"operand", text}};
  }();
  return w;
}

// Memory keys that follow the heap layout: the loader derives them, a profile may not set them.
const char* const kDerived[] = {"dataram.base", "dataram.size", "hbm.window_base",
                                "hbm.window_size", "hbm.window_target"};

template <class T>
Field uint_setter(T& dst, uint64_t max = UINT64_MAX) {
  return uint_field(dst, 0, max);
}

// A kernel_cost parameter: cycles, 0 (free) up to a million.
Field cost_field(double& dst) {
  constexpr double kMax = 1e6;
  Field f;
  f.value.kind = ValueKind::kNumber;
  f.value.non_negative = true;
  f.value.max = kMax;
  f.set = [&dst](const std::string& t) -> std::optional<std::string> {
    char* end = nullptr;
    const double d = std::strtod(t.c_str(), &end);
    if (t.empty() || end != t.c_str() + t.size() || !(d >= 0) || d > kMax)
      return std::string("expected cycles: a number from 0 to 1000000");
    dst = d;
    return std::nullopt;
  };
  return f;
}

std::map<std::string, Field> table(fw::NeuronPlatformConfig& c) {
  auto& l = c.firmware.layout;
  auto& f = c.firmware;
  std::map<std::string, Field> t = {
      {"core.clock_ghz", number_field(c.core.clock_ghz, 1000, "expected a clock in GHz, from 0.001 to 1000", 0.001)},
      {"core.quantum_cycles", uint_setter(c.core.quantum_cycles, 1ull << 32)},
      {"core.vector_bytes", uint_setter(c.core.vector_bytes, 4096)},
      {"core.use_dmi", bool_field(c.core.use_dmi)},
      {"core.active_pj_per_cycle", energy_field(c.core.active_pj_per_cycle)},
      {"core.idle_pj_per_cycle", energy_field(c.core.idle_pj_per_cycle)},
      {"dma.pj_per_byte", energy_field(c.dma.pj_per_byte)},
      {"dma.channels", uint_setter(c.dma.channels, 64)},
      {"dma.burst_bytes", uint_setter(c.dma.burst_bytes, 1u << 20)},
      {"dma.outstanding", uint_setter(c.dma.outstanding, 256)},
      {"dma.clock_ns", number_field(c.dma.clock_ns, 1e6, "expected nanoseconds, from 0.001 to 1e6", 0.001)},
      {"dma.setup_cycles", uint_setter(c.dma.setup_cycles, 1ull << 32)},
      {"dma.on_violation_record",
       choice_field(c.dma.complete_violating, {{"complete", true}, {"reject", false}},
                    "expected complete or reject")},
      {"heaps.layout",
       [&l]() {
         Field f;
         f.value.kind = ValueKind::kChoice;
         f.value.choices = {"seed", "guides"};
         f.set = [&l](const std::string& v) -> std::optional<std::string> {
           if (!alloc::neuron::apply_named_layout(l, v)) return "expected seed or guides";
           return std::nullopt;
         };
         return f;
       }()},
      {"heaps.data_scratch", uint_setter(l.data_scratch, 0xffffffffu)},
      {"heaps.dataram_size", uint_setter(l.dataram_size, 0xffffffffu)},
      {"heaps.bss_offset", uint_setter(l.bss_offset, 0xffffffffu)},
      {"heaps.hbm_scratch", uint_setter(l.hbm_scratch)},
      {"heaps.hbm_scratch_size", uint_setter(l.hbm_scratch_size, 0xffffffffu)},
      {"heaps.hbm_window", uint_setter(l.hbm_window, 0xffffffffu)},
      {"heaps.hbm_pool_offset", uint_setter(l.hbm_pool_offset, 0xffffffffu)},
      {"heaps.hbm_header_offset", uint_setter(l.hbm_header_offset, 0xffffffffu)},
      {"heaps.dataram_pool_offset", uint_setter(l.dataram_pool_offset, 0xffffffffu)},
      {"heaps.dataram_pool_size", uint_setter(l.dataram_pool_size, 0xffffffffu)},
      {"heaps.dataram_header_offset", uint_setter(l.dataram_header_offset, 0xffffffffu)},
      {"heaps.libc_pool_offset", uint_setter(l.libc_pool_offset, 0xffffffffu)},
      {"heaps.libc_pool_size", uint_setter(l.libc_pool_size, 0xffffffffu)},
      {"heaps.libc_header_offset", uint_setter(l.libc_header_offset, 0xffffffffu)},
      {"heaps.num_blocks", uint_setter(l.num_blocks, 4096)},
      {"firmware.method",
       choice_field(f.method,
                    {{"c_memcpy", fw::TransferMethod::kCMemcpy},
                     {"vec_memcpy", fw::TransferMethod::kVecMemcpy},
                     {"dma", fw::TransferMethod::kDma},
                     {"C_MEMCPY", fw::TransferMethod::kCMemcpy},
                     {"VEC_MEMCPY", fw::TransferMethod::kVecMemcpy},
                     {"DMA", fw::TransferMethod::kDma},
                     {"0", fw::TransferMethod::kCMemcpy},
                     {"1", fw::TransferMethod::kVecMemcpy},
                     {"2", fw::TransferMethod::kDma}},
                    "expected c_memcpy, vec_memcpy or dma")},
      {"firmware.double_buffer", bool_field(f.double_buffer)},
      {"firmware.dma_channel", uint_setter(f.dma_channel, 63)},
      {"firmware.local_stack_top", uint_setter(f.local_stack_top, 0xffffffffu)},
      {"firmware.local_stack_bytes", uint_setter(f.local_stack_bytes, 0xffffffffu)},
      {"firmware.frame_spill_bytes", uint_setter(f.frame_spill_bytes, 1u << 16)},
      {"firmware.call_cycles", uint_setter(f.call_cycles, 1u << 20)},
      {"firmware.image_base", uint_setter(f.image_base, 0xffffffffu)},
      {"firmware.image_size", uint_setter(f.image_size, 0xffffffffu)},
      {"gpsimd.cores", uint_setter(c.gpsimd_cores.cores, 64)},
      {"gpsimd.dma_engines", uint_setter(c.gpsimd_cores.dma_engines, 1024)},
      {"gpsimd.dma_gibps", number_field(c.gpsimd_cores.dma_gibps, 1e6, "expected GiB/s, more than 0 and at most 1e6")},
      {"gpsimd.dma_setup_ns", number_field(c.gpsimd_cores.dma_setup_ns, 1e6, "expected nanoseconds, more than 0 and at most 1e6")},
      {"gpsimd.library_op_start_cycles", uint_setter(c.gpsimd_cores.library_op_start_cycles, 1u << 20)},
      {"gpsimd.library_op_cycles_per_vector", uint_setter(c.gpsimd_cores.library_op_cycles_per_vector, 1u << 20)},
      {"gpsimd.tcm_copy_cycles", uint_setter(c.gpsimd_cores.tcm_copy_cycles, 1u << 20)},
      {"gpsimd.accessor_cycles", uint_setter(c.gpsimd_cores.accessor_cycles, 1u << 20)},
      {"gpsimd.hbm_stack_threshold", uint_setter(c.gpsimd_cores.hbm_stack_threshold, 0xffffffffu)},
      {"gpsimd.documented_max_stack", uint_setter(c.gpsimd_cores.documented_max_stack, 0xffffffffu)},
      {"gpsimd.max_streams", uint_setter(c.gpsimd_cores.max_streams, 64)},
      {"gpsimd.host_stack_bytes", uint_setter(c.gpsimd_cores.host_stack_bytes, 1ull << 30)},
      {"gpsimd.fabric_hop_cycles", uint_setter(c.gpsimd_cores.fabric_hop_cycles, 1u << 20)},
      {"gpsimd.tensor_arena_bytes", uint_setter(c.gpsimd_cores.tensor_arena_bytes, 1ull << 36)},
      {"kernel_cost.hbm_stack_access", cost_field(c.kernel_cost.hbm_stack_access_cycles)},
      {"gpsimd.cycle_budget", uint_field(c.gpsimd_cores.cycle_budget, 1, 1ull << 62)},
      {"gpsimd.wall_budget_s", number_field(c.gpsimd_cores.wall_budget_s, 1e7, "expected seconds, more than 0 and at most 1e7")},
  };
  // A kernel's own code: cycles and latency per operation category (firmware/kernel_cost_config.h).
  for (int k = 0; k < NPUSIM_KC_COUNT; ++k) {
    const std::string n = fw::KernelCostConfig::name(k);
    t.emplace("kernel_cost.cycles." + n, cost_field(c.kernel_cost.cycles[k]));
    t.emplace("kernel_cost.latency." + n, cost_field(c.kernel_cost.latency[k]));
  }
  return t;
}

// Flattens the profile into section.key settings (lists: windows.N.key).
void flatten(const YAML::Node& n, const std::string& prefix, const std::string& file,
             std::vector<Setting>& out) {
  auto where = [&](const YAML::Node& x) {
    return Where{file, x.Mark().line + 1, x.Mark().column + 1};
  };
  if (n.IsMap()) {
    for (const auto& kv : n) {
      const std::string k = kv.first.as<std::string>();
      const std::string key = prefix.empty() ? k : prefix + "." + k;
      if (prefix.empty() && (k == "topology" || k == "extends")) continue;  // not settings
      if (kv.second.IsScalar()) out.push_back({key, kv.second.Scalar(), where(kv.first)});
      else if (kv.second.IsNull() && prefix.empty()) continue;  // an empty section
      else if (kv.second.IsNull())  // not "the default": a key written without its value
        throw InputError(file, kv.first.Mark().line + 1, key,
                         "the key has no value: give one, or remove the key for the default",
                         kv.first.Mark().column + 1);
      else flatten(kv.second, key, file, out);
    }
  } else if (n.IsSequence()) {
    if (prefix != "windows")  // the window rules are the profile's only list
      throw InputError(file, n.Mark().line + 1, prefix, "expected one value here, not a list",
                       n.Mark().column + 1);
    size_t i = 0;
    for (const auto& item : n) {
      const std::string key = prefix + "." + std::to_string(i++);
      if (!item.IsMap())
        throw InputError(file, item.Mark().line + 1, key,
                         "expected a map here: a window rule (name, lo, hi, scope_lo, scope_hi, operand)",
                         item.Mark().column + 1);
      flatten(item, key, file, out);
    }
  }
}

[[noreturn]] void fail(const Setting& s, const std::string& why) {
  throw InputError(s.at.file, s.at.line, s.key + "=" + s.value, why, s.at.column);
}

}  // namespace

std::string config_reason(const std::runtime_error& e, const std::string& key,
                          const std::string& value) {
  const std::string what = e.what();
  const std::string mark = key + " = '" + value + "': ";
  const size_t at = what.find(mark);
  return at == std::string::npos ? what : what.substr(at + mark.size());
}

std::vector<ProfileKey> neuron_profile_keys() {
  auto cfg = fw::NeuronPlatformConfig::gpsimd();
  std::vector<ProfileKey> out;
  for (const auto& [key, f] : table(cfg)) out.push_back({key, f.value});
  for (const auto& m : models::memory_config_keys()) {
    bool derived = false;
    for (const char* d : kDerived) derived = derived || m.key == d;
    if (!derived) out.push_back({m.key, from_memory_key(m)});
  }
  for (const auto& w : window_fields()) out.push_back({"windows.#." + w.key, w.value});
  return out;
}

ValueSpec from_memory_key(const models::ConfigKey& m) {
  ValueSpec v;
  switch (m.kind) {
    case models::ConfigKey::kUint: v.kind = ValueKind::kSize; v.hi = m.max; break;
    case models::ConfigKey::kNumber: v.kind = ValueKind::kNumber; break;
    case models::ConfigKey::kChoice: v.kind = ValueKind::kChoice; break;
    case models::ConfigKey::kChoiceList: v.kind = ValueKind::kChoiceList; break;
  }
  v.choices = m.choices;
  return v;
}

fw::NeuronPlatformConfig load_platform(const std::string& name_or_path,
                                       const std::vector<Setting>& overrides) {
  std::string text = builtin_profile(name_or_path);
  std::string file = name_or_path;
  if (text.empty() && is_snitch_platform(name_or_path))
    throw InputError(name_or_path, 0, name_or_path,
                     "a snitch-cluster platform runs snitch-cluster scenarios (docs/snitch-cluster.md); this "
                     "scenario is written for neuron-gpsimd");
  if (text.empty()) {
    const std::string why = input_file_problem(name_or_path);
    if (why == "does not exist")
      throw InputError(name_or_path, 0, name_or_path,
                       "no such platform: neither a built-in profile (neuron-gpsimd, snitch-cluster) nor a "
                       "YAML file");
    text = read_input_file(name_or_path, "platform profile");
  } else {
    file = "<builtin:" + name_or_path + ">";
  }
  const YAML::Node root = load_yaml(text, file);
  if (!root.IsMap()) throw InputError(file, 1, "", "a platform profile is a map of sections", 1);
  // `topology:` is the platform's structure (topology_input.h), read after the settings.
  // (A copy of root's node when it has one: assigning to the missing node `root["topology"]`
  // would throw, so the node is picked before it is held.)
  const YAML::Node own_topology = root["topology"];
  YAML::Node topology;
  bool has_topology = static_cast<bool>(own_topology);
  if (has_topology) topology = own_topology;
  std::string topology_file = file;
  std::vector<Setting> settings;
  // `extends: neuron-gpsimd`: the built-in profile's values (and topology) first, then this file's.
  if (const YAML::Node base = root["extends"]) {
    const std::string name = base.IsScalar() ? base.Scalar() : "";
    const std::string base_text = builtin_profile(name);
    if (base_text.empty())
      throw InputError(file, base.Mark().line + 1, name, "extends: names a built-in profile (neuron-gpsimd)",
                       base.Mark().column + 1);
    const YAML::Node b = YAML::Load(base_text);
    flatten(b, "", "<builtin:" + name + ">", settings);
    if (!has_topology && b["topology"]) {
      topology = b["topology"];
      has_topology = true;
      topology_file = "<builtin:" + name + ">";
    }
  }
  flatten(root, "", file, settings);
  settings.insert(settings.end(), overrides.begin(), overrides.end());

  auto cfg = fw::NeuronPlatformConfig::gpsimd();
  if (has_topology) {
    cfg.topology = parse_topology(topology, topology_file, [&settings](const std::string& key) -> std::optional<uint64_t> {
      std::optional<uint64_t> v;
      for (const auto& s : settings)
        if (s.key == key) v = parse_size(s.value);
      return v;
    });
  }
  auto t = table(cfg);
  std::vector<models::Override> memory;
  std::map<std::string, Setting> memory_at;
  std::map<size_t, std::map<std::string, Setting>> windows;
  for (const auto& s : settings) {
    if (s.key == "platform") continue;
    const std::string section = s.key.substr(0, s.key.find('.'));
    if (section == "hbm" || section == "dataram" || section == "interconnect") {
      for (const char* d : kDerived)
        if (s.key == d)
          fail(s, "this key follows the heap layout (heaps.data_scratch, heaps.dataram_size, "
                  "heaps.hbm_window, heaps.hbm_scratch_size, heaps.hbm_scratch): set that instead");
      memory.emplace_back(s.key, s.value);
      memory_at[s.key] = s;
    } else if (section == "windows") {
      // windows.N.key
      const auto dot = s.key.find('.', 8);
      const std::string idx = s.key.substr(8, dot == std::string::npos ? std::string::npos : dot - 8);
      auto n = parse_number(idx);
      if (!n || dot == std::string::npos || *n > 63)
        fail(s, "window settings are windows.N.key (N from 0), e.g. windows.0.hi");
      windows[*n][s.key.substr(dot + 1)] = s;
    } else {
      if (s.key == "gpsimd.tcm_cycles_per_element")
        fail(s, "removed: a kernel's own work on TCM data is now timed from its compiled code (the kernel_cost "
                "section; docs/custom-ops.md), not guessed per element");
      if (s.key == "gpsimd.op_cycles_per_element")
        fail(s, "removed: library ops cost gpsimd.library_op_start_cycles + gpsimd.library_op_cycles_per_vector per "
                "16 elements (docs/platforms.md); a kernel's own code is timed from its compiled code (kernel_cost)");
      auto it = t.find(s.key);
      static const std::set<std::string> sections = {"core", "dma", "heaps", "firmware", "gpsimd", "kernel_cost"};
      if (it == t.end())
        fail(s, !sections.count(section) || s.key.find('.') == std::string::npos
                    ? fmt::format("unknown section '{}' (core, dataram, hbm, interconnect, dma, "
                                  "windows, heaps, firmware, gpsimd, kernel_cost; see docs/platforms.md)", section)
                    : "unknown key (see docs/platforms.md)");
      if (auto why = it->second.set(s.value)) fail(s, *why);
    }
  }
  // Window rules: the profile's list, each field overridable.
  if (!windows.empty()) {
    cfg.dma.windows.clear();
    for (const auto& [i, fields] : windows) {
      if (i != cfg.dma.windows.size())
        fail(fields.begin()->second, fmt::format("window {} is given but window {} is not", i,
                                                 cfg.dma.windows.size()));
      models::WindowRule r;
      for (const auto& [k, s] : fields) {
        bool known = false;
        std::string names;
        for (const auto& w : window_fields()) {
          known = known || w.key == k;
          names += (names.empty() ? "" : ", ") + w.key;
        }
        if (!known) fail(s, "unknown window key (" + names + ")");
        uint64_t* dst = k == "lo" ? &r.lo : k == "hi" ? &r.hi : k == "scope_lo" ? &r.scope_lo
                      : k == "scope_hi" ? &r.scope_hi : nullptr;
        if (dst) {
          auto v = parse_size(s.value);
          if (!v) fail(s, "expected an address");
          *dst = *v;
        } else if (k == "name") {
          r.name = s.value;
        } else if (k == "operand") {
          r.operand = s.value;
        }
      }
      if (r.lo >= r.hi) fail(fields.begin()->second, fmt::format("window '{}' is empty: lo 0x{:x} >= hi 0x{:x}", r.name, r.lo, r.hi));
      cfg.dma.windows.push_back(r);
    }
  }
  // The memories follow the heap layout.
  const auto& l = cfg.firmware.layout;
  std::vector<models::Override> all = {
      {"dataram.base", std::to_string(l.data_scratch)},
      {"dataram.size", std::to_string(l.dataram_size)},
      {"hbm.window_base", std::to_string(l.hbm_window)},
      {"hbm.window_size", std::to_string(l.hbm_scratch_size)},
      {"hbm.window_target", std::to_string(l.hbm_scratch)}};
  all.insert(all.end(), memory.begin(), memory.end());
  try {
    cfg.memory = models::load_memory_config("", file, all);
  } catch (const models::ConfigError& e) {
    auto it = memory_at.find(e.key());
    if (it != memory_at.end()) fail(it->second, config_reason(e, e.key(), e.value()));
    throw InputError(file, 0, e.key() + "=" + e.value(),
                     std::string(e.what()) + " (this value follows the heaps section)");
  }
  // Checks across sections.
  auto at = [&](const std::string& key) {
    Setting s{key, "", Where{file, 0, 0}};
    for (const auto& x : settings)
      if (x.key == key) s = x;
    return s;
  };
  if (cfg.core.clock_ghz <= 0) fail(at("core.clock_ghz"), "must be positive");
  if (cfg.dma.channels == 0) fail(at("dma.channels"), "must be at least 1");
  if (cfg.dma.burst_bytes == 0) fail(at("dma.burst_bytes"), "must be positive");
  if (cfg.dma.outstanding == 0) fail(at("dma.outstanding"), "must be at least 1");
  if (cfg.core.vector_bytes == 0) fail(at("core.vector_bytes"), "must be positive");
  if (cfg.gpsimd_cores.cores == 0) fail(at("gpsimd.cores"), "must be at least 1");
  if (cfg.gpsimd_cores.dma_engines < cfg.gpsimd_cores.cores)
    fail(at("gpsimd.dma_engines"), "every GPSIMD core needs at least one DMA engine");
  if (cfg.firmware.dma_channel >= cfg.dma.channels)
    fail(at("firmware.dma_channel"), fmt::format("the DMA engine has {} channels", cfg.dma.channels));
  if (l.num_blocks == 0) fail(at("heaps.num_blocks"), "must be at least 1");
  // The dataram pools live in the dataram: one that ends beyond it is an error, not a lint.
  for (const auto& [key, off, size] :
       {std::tuple<const char*, uint64_t, uint64_t>{"heaps.dataram_pool_size", l.dataram_pool_offset, l.dataram_pool_size},
        {"heaps.libc_pool_size", l.libc_pool_offset, l.libc_pool_size}})
    if (off + size > l.dataram_size)
      fail(at(key), fmt::format("the pool [{:#x}, {:#x}) ends beyond the dataram (heaps.dataram_size {:#x})",
                                off, off + size, l.dataram_size));
  if (l.hbm_pool_offset >= l.hbm_scratch_size)
    fail(at("heaps.hbm_pool_offset"), "lies beyond heaps.hbm_scratch_size");
  if (uint64_t{l.hbm_window} + l.hbm_scratch_size > 0x100000000ull)
    fail(at("heaps.hbm_scratch_size"), "the HBM window must fit the core's 32-bit address space");
  if (cfg.firmware.local_stack_bytes == 0 ||
      cfg.firmware.local_stack_top < cfg.firmware.local_stack_bytes)
    fail(at("firmware.local_stack_bytes"), "the local stack must be non-empty and start at or above 0");
  if (cfg.firmware.image_size == 0 || uint64_t{cfg.firmware.image_base} + cfg.firmware.image_size > (1ull << 32))
    fail(at("firmware.image_size"), "the firmware image must be non-empty and end within the 32-bit address space");
  return cfg;
}

}  // namespace npusim::sim
