#include "sim/input/snitch_profile.h"
#include "sim/input/yaml_input.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <sstream>

#include "models/memory_config.h"
#include "sim/input/input_error.h"
#include "sim/input/key_tables.h"
#include "sim/input/platform_config.h"

namespace npusim::sim {

extern const char* const kProfileSnitchCluster;  // generated from sim/platforms/snitch-cluster.yaml

namespace {

constexpr const char* kName = "snitch-cluster";

// The text of a profile file, or an empty string if there is no readable file of that name.
std::string read_file(const std::string& path) {
  if (!input_file_problem(path).empty()) return {};
  try {
    return read_input_file(path, "platform profile");
  } catch (const InputError&) {
    return {};
  }
}

template <class T>
Field uint_set(T& dst, uint64_t lo, uint64_t hi) {
  return uint_field(dst, lo, hi);
}

Field clock_set(double& ghz) {
  return number_field(ghz, 100, "expected a clock in GHz, above 0 and at most 100");
}

void flatten(const YAML::Node& n, const std::string& prefix, const std::string& file,
             std::vector<Setting>& out) {
  for (const auto& kv : n) {
    const std::string k = kv.first.as<std::string>();
    const std::string key = prefix.empty() ? k : prefix + "." + k;
    const auto m = kv.first.Mark();
    if (kv.second.IsScalar()) out.push_back({key, kv.second.Scalar(), Where{file, m.line + 1, m.column + 1}});
    else if (kv.second.IsMap()) flatten(kv.second, key, file, out);
    else if (!kv.second.IsNull())
      throw InputError(file, m.line + 1, key, "expected a value or a map", m.column + 1);
  }
}

// The profile's keys and where each value goes; l3.KEY for any other hbm key is handled apart.
std::map<std::string, Field> profile_table(SnitchPlatformConfig& c, double& ghz, uint64_t& l3_base,
                                           uint64_t& l3_end) {
  auto& r = c.runtime;
  auto& g = c.tcdm.geometry;
  return {
      {"cluster.clusters", uint_set(c.clusters, 1, 64)},
      {"cluster.compute_cores", uint_set(r.compute_cores, 1, 64)},
      {"cluster.clock_ghz", clock_set(ghz)},
      {"cluster.quantum_cycles", uint_set(c.core.quantum_cycles, 1, 1u << 20)},
      {"cluster.cluster_offset", uint_set(r.cluster_offset, 1, 0xffffffffu)},
      {"cluster.barrier_cycles", uint_set(c.barrier_cycles, 0, 1u << 20)},
      {"cluster.program_quantum_cycles", uint_set(c.program_quantum_cycles, 1, 1u << 20)},
      {"core.mul_cycles", uint_set(c.program_timing.mul, 1, 255)},
      {"core.div_cycles", uint_set(c.program_timing.div, 1, 255)},
      {"core.fp32_cycles", uint_set(c.program_timing.fp32, 1, 255)},
      {"core.fp64_cycles", uint_set(c.program_timing.fp64, 1, 255)},
      {"core.fconv_cycles", uint_set(c.program_timing.fconv, 1, 255)},
      {"core.fnoncomp_cycles", uint_set(c.program_timing.fnoncomp, 1, 255)},
      {"core.fdiv32_cycles", uint_set(c.program_timing.fdiv32, 1, 255)},
      {"core.fdiv64_cycles", uint_set(c.program_timing.fdiv64, 1, 255)},
      {"core.taken_branch_cycles", uint_set(c.program_timing.taken_branch_extra, 0, 255)},
      {"cluster.active_pj_per_cycle", energy_field(c.core.active_pj_per_cycle)},
      {"cluster.idle_pj_per_cycle", energy_field(c.core.idle_pj_per_cycle)},
      {"tcdm.pj_per_byte", energy_field(c.tcdm.pj_per_byte)},
      {"tcdm.base", uint_set(r.tcdm_start, 0, 0xffffffffu)},
      {"tcdm.size", uint_set(r.tcdm_size, 1, 1u << 30)},
      {"tcdm.banks", uint_set(g.banks, 1, 1024)},
      {"tcdm.bank_width_bytes", uint_set(g.bank_width, 1, 1024)},
      {"tcdm.latency_cycles", uint_set(g.latency_cycles, 0, 1024)},
      {"tcdm.core_port_bytes", uint_set(c.tcdm.core_port_bytes, 1, 4096)},
      {"tcdm.dma_port_bytes", uint_set(c.tcdm.dma_port_bytes, 1, 4096)},
      {"tcdm.trace_bin_cycles", uint_set(c.tcdm.series_bin_cycles, 1, 1u << 30)},
      {"runtime.cls_size", uint_set(r.cls_size, 0, 1u << 30)},
      {"runtime.log2_stack_size", uint_set(r.log2_stack_size, 3, 24)},
      {"runtime.tls_size", uint_set(r.tls_size, 0, 1u << 20)},
      {"runtime.startup_l1_bytes", uint_set(r.startup_l1_bytes, 0, 1u << 20)},
      {"runtime.edram", uint_set(r.edram, 0, 0xffffffffu)},
      {"runtime.alloc_call_cycles", uint_set(c.alloc_cost.call_cycles, 0, 1u << 20)},
      {"runtime.alloc_divide_cycles", uint_set(c.alloc_cost.divide_cycles, 0, 1u << 20)},
      {"l3.base", uint_set(l3_base, 0, 0xffffffffu)},
      {"l3.end", uint_set(l3_end, 1, 0x1'0000'0000ull)},
      {"dma.channels", uint_set(c.dma.channels, 1, 16)},
      {"dma.burst_bytes", uint_set(c.dma.burst_bytes, 1, 1u << 20)},
      {"dma.outstanding", uint_set(c.dma.outstanding, 1, 256)},
      {"dma.setup_cycles", uint_set(c.dma.setup_cycles, 0, 1u << 20)},
      {"dma.pj_per_byte", energy_field(c.dma.pj_per_byte)},
      {"interconnect.hop_latency_cycles", uint_set(c.interconnect.hop_latency_cycles, 0, 1024)},
      {"interconnect.hop_pj", energy_field(c.interconnect.hop_pj)},
  };
}

[[noreturn]] void fail(const Setting& s, const std::string& why) {
  throw InputError(s.at.file, s.at.line, s.key + "=" + s.value, why, s.at.column);
}

std::string profile_text(const std::string& name_or_path, std::string* file) {
  if (name_or_path == kName) {
    *file = "<builtin:snitch-cluster>";
    return kProfileSnitchCluster;
  }
  *file = name_or_path;
  return read_file(name_or_path);
}

}  // namespace

std::vector<ProfileKey> snitch_profile_keys() {
  SnitchPlatformConfig c;
  double ghz = 1.0;
  uint64_t l3_base = 0, l3_end = 0;
  std::vector<ProfileKey> out;
  for (const auto& [key, f] : profile_table(c, ghz, l3_base, l3_end)) out.push_back({key, f.value});
  for (const auto& m : models::memory_config_keys()) {
    if (m.key.rfind("hbm.", 0) != 0 || m.key == "hbm.window_base" || m.key == "hbm.window_size" ||
        m.key == "hbm.window_target" || m.key == "hbm.base")
      continue;  // l3.base, l3.end and the (unused) window come from the l3 section itself
    out.push_back({"l3." + m.key.substr(4), from_memory_key(m)});
  }
  return out;
}

bool is_snitch_platform(const std::string& name_or_path) {
  if (name_or_path == kName) return true;
  if (name_or_path.size() < 5) return false;
  const std::string text = read_file(name_or_path);
  if (text.empty()) return false;
  try {
    const YAML::Node root = YAML::Load(text);
    return root.IsMap() && root["platform"] && root["platform"].IsScalar() &&
           root["platform"].Scalar() == kName;
  } catch (const YAML::Exception&) {
    return false;
  }
}

SnitchPlatformConfig load_snitch_platform(const std::string& name_or_path,
                                          const std::vector<Setting>& overrides) {
  std::string file;
  if (name_or_path != kName) {
    const std::string why = input_file_problem(name_or_path);
    if (why == "does not exist")
      throw InputError(name_or_path, 0, name_or_path,
                       "no such platform: neither a built-in profile (neuron-gpsimd, snitch-cluster) nor a YAML file");
    if (!why.empty()) throw InputError(name_or_path, 0, name_or_path, "the platform profile file " + why);
    read_input_file(name_or_path, "platform profile");  // the size limit's message
  }
  const std::string text = profile_text(name_or_path, &file);
  if (text.empty()) throw InputError(name_or_path, 0, name_or_path, "the platform profile is empty");
  std::vector<Setting> settings;
  auto read_profile = [&settings](const std::string& yaml, const std::string& where) {
    try {
      const YAML::Node root = load_yaml(yaml, where);
      if (!root.IsMap()) throw InputError(where, 1, "", "a platform profile is a map of sections");
      flatten(root, "", where, settings);
    } catch (const YAML::Exception& e) {
      throw InputError(where, e.mark.line + 1, "", "YAML: " + e.msg, e.mark.column + 1);
    }
  };
  // A profile file may be partial: what it does not set keeps the built-in profile's value.
  if (name_or_path != kName) read_profile(kProfileSnitchCluster, "<builtin:snitch-cluster>");
  read_profile(text, file);
  settings.insert(settings.end(), overrides.begin(), overrides.end());

  SnitchPlatformConfig c;
  double ghz = 1.0;
  uint64_t l3_end = c.runtime.l3_end;
  uint64_t l3_base = c.runtime.l3_start;
  const auto table = profile_table(c, ghz, l3_base, l3_end);
  auto& r = c.runtime;
  auto& g = c.tcdm.geometry;
  std::vector<models::Override> hbm;  // l3.KEY -> hbm.KEY
  std::vector<const Setting*> hbm_src;
  for (const auto& s : settings) {
    if (s.key == "platform") {
      if (s.value != kName) fail(s, "this profile loader reads snitch-cluster profiles only");
      continue;
    }
    const auto it = table.find(s.key);
    if (it != table.end()) {
      if (auto err = it->second.set(s.value)) fail(s, *err);
      continue;
    }
    if (s.key.rfind("l3.", 0) == 0 && s.key != "l3.window_base" && s.key != "l3.window_size" &&
        s.key != "l3.window_target") {
      hbm.emplace_back("hbm." + s.key.substr(3), s.value);
      hbm_src.push_back(&s);
      continue;
    }
    std::string known;
    for (const auto& [k, v] : table) known += (known.empty() ? "" : ", ") + k;
    fail(s, "unknown key (known: " + known + ", and l3.<any hbm key of docs/memory-config.md>)");
  }
  auto at = [&](const char* key) -> const Setting& {
    for (auto it = settings.rbegin(); it != settings.rend(); ++it)
      if (it->key == key) return *it;
    static const Setting none{"", "", Where{file, 0, 0}};
    return none;
  };
  // The L3 through the HBM model: its geometry is sized to [base, end).
  {
    models::HbmConfig h;
    const uint64_t span = l3_end > l3_base ? l3_end - l3_base : 0;
    const uint64_t per_row = uint64_t{h.units()} * h.banks() * h.row_bytes;
    if (span == 0 || span % per_row != 0 || ((span / per_row) & (span / per_row - 1)) != 0)
      fail(at("l3.end"), fmt::format("[l3.base, l3.end) must span a power-of-two multiple of {} bytes "
                                     "(the HBM geometry)", per_row));
    hbm.insert(hbm.begin(), {{"hbm.base", std::to_string(l3_base)},
                             {"hbm.rows", std::to_string(span / per_row)},
                             {"hbm.window_size", "0"}});
    try {
      c.l3 = models::load_memory_config("", file, hbm).hbm;
    } catch (const models::ConfigError& e) {
      // The last setting of a key is the one in effect (a --set after the profile's).
      for (auto it = hbm_src.rbegin(); it != hbm_src.rend(); ++it)
        if ("hbm." + (*it)->key.substr(3) == e.key()) fail(**it, config_reason(e, e.key(), e.value()));
      throw InputError(file, 0, e.key(), e.what());
    }
    if (c.l3.size() != span)
      fail(at("l3.end"), "an l3.* geometry key changed the L3 size away from [l3.base, l3.end)");
  }
  r.l3_start = l3_base;
  r.l3_end = l3_end;
  r.cluster_idx = 0;
  r.dm_cores = 1;
  c.tcdm.size = r.tcdm_size;
  c.core.clock_ghz = ghz;
  c.core.use_dmi = false;
  c.core.vector_bytes = 8;
  c.tcdm.clock_ns = 1.0 / ghz;
  c.dma.clock_ns = 1.0 / ghz;
  c.dma.windows.clear();  // the Snitch DMA has no address-window rules
  c.interconnect.clock_ns = 1.0 / ghz;
  c.l3.stats_window_ns = 1000.0;

  // Consistency.
  if (c.tcdm.dma_port_bytes % g.bank_width != 0)
    fail(at("tcdm.dma_port_bytes"), "must be a multiple of tcdm.bank_width_bytes");
  if (r.tcdm_size % (uint64_t{g.banks} * g.bank_width) != 0)
    fail(at("tcdm.size"), "must be a multiple of banks x bank_width_bytes");
  if (c.clusters > 1 && r.cluster_offset < r.tcdm_size)
    fail(at("cluster.cluster_offset"), "clusters would overlap: cluster_offset must be at least tcdm.size");
  const uint64_t last_tcdm_end = r.tcdm_start + uint64_t{c.clusters - 1} * r.cluster_offset + r.tcdm_size;
  if (last_tcdm_end > 0x1'0000'0000ull)
    fail(at("cluster.clusters"), "the last cluster's TCDM would leave the 32-bit address space");
  if (r.tcdm_start < l3_end && l3_base < last_tcdm_end)
    fail(at("tcdm.base"), fmt::format("the TCDMs [0x{:x}, 0x{:x}) overlap the L3 [0x{:x}, 0x{:x})",
                                      r.tcdm_start, last_tcdm_end, l3_base, l3_end));
  if (r.edram < l3_base || r.edram >= l3_end)
    fail(at("runtime.edram"), "must lie inside the L3");
  try {
    for (uint32_t k = 0; k < c.clusters; ++k) c.runtime_of(k).validate();
  } catch (const std::invalid_argument& e) {
    throw InputError(file, 0, "runtime", e.what());
  }
  return c;
}

}  // namespace npusim::sim
