// The memory configuration's loader: the YAML file and the `--set` overrides into the parsed
// layer, the table of every key (each section's from its own file: memory_config_hbm.cpp,
// memory_config_sram.cpp), the checks across sections, and the table as ConfigKeys.
#include "models/memory_config.h"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "models/memory_config_fields.h"

namespace npusim::models {

namespace config {

std::optional<uint64_t> to_u64(const std::string& s) {
  if (s.empty()) return std::nullopt;
  uint64_t v = 0;
  size_t i = 0;
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    i = 2;
  }
  for (; i < s.size(); ++i) {
    const char c = s[i];
    int d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (base == 16 && c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (base == 16 && c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else if (c == '_' ) continue;  // digit separator: 0x1_0000_0000
    else return std::nullopt;
    if (v > (UINT64_MAX - static_cast<uint64_t>(d)) / static_cast<uint64_t>(base))
      return std::nullopt;
    v = v * static_cast<uint64_t>(base) + static_cast<uint64_t>(d);
  }
  return v;
}

std::optional<double> to_double(const std::string& s) {
  if (s.empty()) return std::nullopt;
  std::istringstream in(s);
  double v;
  in >> v;
  if (!in || !in.eof() || !std::isfinite(v)) return std::nullopt;
  return v;
}

Field double_field(double& dst) {
  return Field{[&dst](const std::string& t) -> std::optional<std::string> {
    auto v = to_double(t);
    if (!v) return std::string("not a number");
    dst = *v;
    return std::nullopt;
  }, ConfigKey::kNumber, UINT64_MAX, {}};
}

void check_timing(const Sources& s, const std::string& key, uint64_t v, uint64_t min) {
  if (v < min || v > kMaxTiming)
    s.fail(key, std::to_string(v), fmt::format("must be in [{}, {}] cycles", min, kMaxTiming));
}

// A clock period is at least the SystemC time resolution npusim runs at (1 ps): a shorter one
// would be 0 time units per cycle.
constexpr double kMinClockNs = 0.001;

void check_clock(const Sources& s, const std::string& key, double ns) {
  if (!(ns >= kMinClockNs) || ns > 1e6)
    s.fail(key, fmt::format("{}", ns),
           "must be in [0.001, 1e6] ns (at least the 1 ps time resolution)");
}

}  // namespace config

using namespace config;  // the loader's inside (memory_config_fields.h)

namespace {

std::string where(const std::string& file, int line) {
  return line > 0 ? fmt::format("{}:{}", file, line) : file;
}

FieldTable field_table(MemoryConfig& c) {
  FieldTable t;
  add_hbm_fields(c.hbm, t);
  add_sram_fields(c.dataram, t);
  add_interconnect_fields(c.interconnect, t);
  return t;
}

}  // namespace

ConfigError::ConfigError(std::string file, int line, std::string key, std::string value,
                         const std::string& why)
    : std::runtime_error(fmt::format("{}: {} = '{}': {}", where(file, line), key, value, why)),
      file_(std::move(file)),
      line_(line),
      key_(std::move(key)),
      value_(std::move(value)) {}

Override parse_override(const std::string& text) {
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw ConfigError("--set", 0, text, "", "expected section.key=value");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

MemoryConfig load_memory_config(const std::string& yaml, const std::string& file,
                                const std::vector<Override>& overrides) {
  ParsedMap parsed;
  if (!yaml.empty()) {
    YAML::Node root;
    try {
      root = YAML::Load(yaml);
    } catch (const YAML::Exception& e) {
      throw ConfigError(file, e.mark.line + 1, "<yaml>", "", e.msg);
    }
    if (root.IsDefined() && !root.IsNull()) {
      if (!root.IsMap())
        throw ConfigError(file, root.Mark().line + 1, "<root>", "",
                          "expected a map of sections (hbm, dataram, interconnect)");
      for (const auto& sec : root) {
        if (!sec.first.IsScalar())
          throw ConfigError(file, sec.first.Mark().line + 1, "<key>", "",
                            "a section name is a plain word; this one is empty, a map or a list");
        const std::string name = sec.first.Scalar();
        const int line = sec.first.Mark().line + 1;
        if (name != "hbm" && name != "dataram" && name != "interconnect")
          throw ConfigError(file, line, name, "", "unknown section (hbm, dataram, interconnect)");
        if (sec.second.IsNull()) continue;
        if (!sec.second.IsMap())
          throw ConfigError(file, line, name, "", "a section must be a map of key: value");
        for (const auto& kv : sec.second) {
          if (!kv.first.IsScalar())
            throw ConfigError(file, kv.first.Mark().line + 1, name + ".<key>", "",
                              "a key is a plain word; this one is empty, a map or a list");
          const std::string key = name + "." + kv.first.Scalar();
          const int kline = kv.first.Mark().line + 1;
          if (!kv.second.IsScalar())
            throw ConfigError(file, kline, key, "", "expected a single value");
          if (parsed.count(key)) throw ConfigError(file, kline, key, "", "given twice");
          parsed[key] = Parsed{kv.second.Scalar(), file, kline};
        }
      }
    }
  }
  for (const auto& [key, value] : overrides) parsed[key] = Parsed{value, "--set", 0};

  MemoryConfig c;
  auto table = field_table(c);
  for (const auto& [key, p] : parsed) {
    auto it = table.find(key);
    if (it == table.end()) {
      throw ConfigError(p.file, p.line, key, p.text,
                        key.find('.') == std::string::npos
                            ? "expected section.key (see docs/memory-config.md)"
                            : "unknown key (see docs/memory-config.md)");
    }
    if (auto why = it->second.set(p.text)) throw ConfigError(p.file, p.line, key, p.text, *why);
  }
  Sources s{&parsed};
  validate_hbm(c.hbm, s);
  validate_sram(c.dataram, "dataram", s);
  validate_bus(c.interconnect, s);
  // The platform's regions must not overlap (the interconnect would refuse them too, but
  // here the message can name the keys).
  auto overlaps = [](uint64_t a, uint64_t as, uint64_t b, uint64_t bs) {
    return a < b + bs && b < a + as;
  };
  if (overlaps(c.dataram.base, c.dataram.size, c.hbm.base, c.hbm.size()))
    s.fail("dataram.base", fmt::format("{:#x}", c.dataram.base), "dataram overlaps the HBM");
  if (c.hbm.window_size != 0) {
    if (overlaps(c.hbm.window_base, c.hbm.window_size, c.hbm.base, c.hbm.size()))
      s.fail("hbm.window_base", fmt::format("{:#x}", c.hbm.window_base),
             "the HBM window overlaps the HBM itself");
    if (overlaps(c.hbm.window_base, c.hbm.window_size, c.dataram.base, c.dataram.size))
      s.fail("hbm.window_base", fmt::format("{:#x}", c.hbm.window_base),
             "the HBM window overlaps the dataram");
  }
  return c;
}

MemoryConfig load_memory_config_file(const std::string& path,
                                     const std::vector<Override>& overrides) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw ConfigError(path, 0, "<file>", path,
                      errno == ENOENT ? "cannot open the configuration file: it does not exist"
                                      : std::string("cannot open the configuration file: ") + std::strerror(errno));
  if (S_ISDIR(st.st_mode))
    throw ConfigError(path, 0, "<file>", path, "the configuration file is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path, 0, "<file>", path, std::string("cannot open the configuration file: ") + std::strerror(errno));
  // Read up to a bound: a device that never ends (/dev/zero) is an error, not an exhausted memory.
  constexpr size_t kMaxBytes = 64u << 20;
  std::string text;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, static_cast<size_t>(in.gcount()));
    if (text.size() > kMaxBytes)
      throw ConfigError(path, 0, "<file>", path, "the configuration file is larger than 64 MiB");
  }
  if (text.empty()) text = "{}";
  return load_memory_config(text, path, overrides);
}

std::vector<ConfigKey> memory_config_keys() {
  MemoryConfig c;
  std::vector<ConfigKey> out;
  for (const auto& [key, f] : field_table(c)) out.push_back(ConfigKey{key, f.kind, f.max, f.choices});
  return out;
}

void validate(const HbmConfig& c) { config::validate_hbm(c, config::Sources{}); }
void validate(const SramConfig& c, const std::string& section) {
  config::validate_sram(c, section, config::Sources{});
}
void validate(const InterconnectConfig& c) { config::validate_bus(c, config::Sources{}); }

}  // namespace npusim::models
