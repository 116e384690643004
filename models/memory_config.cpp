#include "models/memory_config.h"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <sstream>

#include <fmt/format.h>

namespace npusim::models {

namespace {

std::string where(const std::string& file, int line) {
  return line > 0 ? fmt::format("{}:{}", file, line) : file;
}

// The parsed layer: every `section.key` that the file or the overrides set, as text, with the
// place it came from. validate_all() consumes the entries it knows; what is left is unknown.
struct Parsed {
  std::string text;
  std::string file;
  int line;
};
using ParsedMap = std::map<std::string, Parsed>;

// Where each known key came from, for messages about values that are individually fine but
// inconsistent with each other.
struct Sources {
  const ParsedMap* parsed = nullptr;
  Parsed at(const std::string& key, const std::string& value) const {
    if (parsed) {
      auto it = parsed->find(key);
      if (it != parsed->end()) return it->second;
    }
    return Parsed{value, "<config>", 0};
  }
  [[noreturn]] void fail(const std::string& key, const std::string& value,
                         const std::string& why) const {
    Parsed p = at(key, value);
    throw ConfigError(p.file, p.line, key, p.text, why);
  }
};

bool is_pow2(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

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

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else if (c != ' ') {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

std::optional<AddrField> field_from(const std::string& s) {
  if (s == "channel") return AddrField::kChannel;
  if (s == "pseudochannel") return AddrField::kPseudoChannel;
  if (s == "bankgroup") return AddrField::kBankGroup;
  if (s == "bank") return AddrField::kBank;
  if (s == "column") return AddrField::kColumn;
  if (s == "row") return AddrField::kRow;
  return std::nullopt;
}

std::string mapping_text(const std::vector<AddrField>& m) {
  std::string s;
  for (auto f : m) s += (s.empty() ? "" : ",") + to_string(f);
  return s;
}

// A field of the table: converts one parsed text into the struct, or explains why not, and
// says what it accepts (for the JSON Schema, memory_config_keys()).
using Setter = std::function<std::optional<std::string>(const std::string&)>;
struct Field {
  Setter set;
  ConfigKey::Kind kind;
  uint64_t max = UINT64_MAX;
  std::vector<std::string> choices;
};

Field choice_field(ConfigKey::Kind kind, std::vector<std::string> choices, Setter set) {
  return Field{std::move(set), kind, UINT64_MAX, std::move(choices)};
}

template <class T>
Field uint_field(T& dst, uint64_t max = UINT64_MAX) {
  return Field{[&dst, max](const std::string& t) -> std::optional<std::string> {
    auto v = to_u64(t);
    if (!v) return std::string("not a decimal or 0x-hex unsigned integer");
    if (*v > max) return fmt::format("out of range (max {})", max);
    dst = static_cast<T>(*v);
    return std::nullopt;
  }, ConfigKey::kUint, max, {}};
}

Field double_field(double& dst) {
  return Field{[&dst](const std::string& t) -> std::optional<std::string> {
    auto v = to_double(t);
    if (!v) return std::string("not a number");
    dst = *v;
    return std::nullopt;
  }, ConfigKey::kNumber, UINT64_MAX, {}};
}

std::map<std::string, Field> field_table(MemoryConfig& c) {
  auto& h = c.hbm;
  auto& d = c.dataram;
  auto& b = c.interconnect;
  constexpr uint64_t k32 = UINT32_MAX;
  std::map<std::string, Field> t = {
      {"hbm.base", uint_field(h.base)},
      {"hbm.tck_ns", double_field(h.tck_ns)},
      {"hbm.channels", uint_field(h.channels, k32)},
      {"hbm.pseudo_channels", uint_field(h.pseudo_channels, k32)},
      {"hbm.channel_width_bits", uint_field(h.channel_width_bits, k32)},
      {"hbm.bank_groups", uint_field(h.bank_groups, k32)},
      {"hbm.banks_per_group", uint_field(h.banks_per_group, k32)},
      {"hbm.rows", uint_field(h.rows, k32)},
      {"hbm.row_bytes", uint_field(h.row_bytes, k32)},
      {"hbm.burst_length", uint_field(h.burst_length, k32)},
      {"hbm.tRCD", uint_field(h.tRCD)},
      {"hbm.tCL", uint_field(h.tCL)},
      {"hbm.tRP", uint_field(h.tRP)},
      {"hbm.tRAS", uint_field(h.tRAS)},
      {"hbm.tFAW", uint_field(h.tFAW)},
      {"hbm.tRFC", uint_field(h.tRFC)},
      {"hbm.tREFI", uint_field(h.tREFI)},
      {"hbm.tCCD_S", uint_field(h.tCCD_S)},
      {"hbm.tCCD_L", uint_field(h.tCCD_L)},
      {"hbm.tRRD_S", uint_field(h.tRRD_S)},
      {"hbm.tRRD_L", uint_field(h.tRRD_L)},
      {"hbm.tRTP", uint_field(h.tRTP)},
      {"hbm.tWL", uint_field(h.tWL)},
      {"hbm.tWR", uint_field(h.tWR)},
      {"hbm.queue_depth", uint_field(h.queue_depth, k32)},
      {"hbm.address_mapping",
       choice_field(ConfigKey::kChoiceList,
                    {"row", "bank", "bankgroup", "column", "channel", "pseudochannel"},
                    [&h](const std::string& t) -> std::optional<std::string> {
         std::vector<AddrField> m;
         if (t.find(',') == std::string::npos && t.size() > 2) {
           // DRAMsim3's names: two letters per field, most significant first
           // (rorabgbachco); `ra`, the rank, has no bits: npusim models one rank.
           if (t.size() % 2 != 0)
             return std::string("a DRAMsim3 mapping is two letters per field (ch, ra, bg, ba, "
                                "ro, co, pc), e.g. rorabgbachco");
           for (size_t i = 0; i < t.size(); i += 2) {
             const std::string f = t.substr(i, 2);
             if (f == "ra") continue;
             static const std::map<std::string, AddrField> kNames = {
                 {"ch", AddrField::kChannel}, {"pc", AddrField::kPseudoChannel},
                 {"bg", AddrField::kBankGroup}, {"ba", AddrField::kBank},
                 {"ro", AddrField::kRow}, {"co", AddrField::kColumn}};
             auto it = kNames.find(f);
             if (it == kNames.end())
               return fmt::format("unknown field '{}' in DRAMsim3 mapping '{}' (ch, ra, bg, "
                                  "ba, ro, co, pc)", f, t);
             m.push_back(it->second);
           }
           h.mapping = m;
           return std::nullopt;
         }
         for (const auto& part : split(t, ',')) {
           auto f = field_from(part);
           if (!f)
             return fmt::format("unknown field '{}' (row, bank, bankgroup, column, channel, "
                                "pseudochannel; most significant first)", part);
           m.push_back(*f);
         }
         h.mapping = m;
         return std::nullopt;
       })},
      {"hbm.tWTR", uint_field(h.tWTR)},
      {"hbm.tRTW", uint_field(h.tRTW)},
      {"hbm.bank_queue_depth", uint_field(h.bank_queue_depth, k32)},
      {"hbm.write_queue_depth", uint_field(h.write_queue_depth, k32)},
      {"hbm.write_high_watermark", uint_field(h.write_high_watermark, k32)},
      {"hbm.write_low_watermark", uint_field(h.write_low_watermark, k32)},
      {"hbm.row_hit_cap", uint_field(h.row_hit_cap, k32)},
      {"hbm.tRFCpb", uint_field(h.tRFCpb)},
      {"hbm.page_idle_cycles", uint_field(h.page_idle_cycles)},
      {"hbm.refresh",
       choice_field(ConfigKey::kChoice, {"all_bank", "per_bank"},
                    [&h](const std::string& t) -> std::optional<std::string> {
         if (t == "all_bank") h.refresh = HbmRefresh::kAllBank;
         else if (t == "per_bank") h.refresh = HbmRefresh::kPerBank;
         else return std::string("must be 'all_bank' or 'per_bank'");
         return std::nullopt;
       })},
      {"hbm.scheduler",
       choice_field(ConfigKey::kChoice, {"frfcfs", "fcfs"},
                    [&h](const std::string& t) -> std::optional<std::string> {
         if (t == "frfcfs") h.scheduler = HbmScheduler::kFrFcfs;
         else if (t == "fcfs") h.scheduler = HbmScheduler::kFcfs;
         else return std::string("must be 'frfcfs' or 'fcfs'");
         return std::nullopt;
       })},
      {"hbm.page_policy",
       choice_field(ConfigKey::kChoice, {"open", "closed", "adaptive"},
                    [&h](const std::string& t) -> std::optional<std::string> {
         if (t == "open") h.page_policy = PagePolicy::kOpen;
         else if (t == "closed") h.page_policy = PagePolicy::kClosed;
         else if (t == "adaptive") h.page_policy = PagePolicy::kAdaptive;
         else return std::string("must be 'open', 'closed' or 'adaptive'");
         return std::nullopt;
       })},
      {"hbm.fill", uint_field(h.fill, k32)},
      {"hbm.window_base", uint_field(h.window_base)},
      {"hbm.window_size", uint_field(h.window_size)},
      {"hbm.window_target", uint_field(h.window_target)},
      {"hbm.stats_window_ns", double_field(h.stats_window_ns)},
      {"dataram.base", uint_field(d.base)},
      {"dataram.size", uint_field(d.size)},
      {"dataram.clock_ns", double_field(d.clock_ns)},
      {"dataram.latency_cycles", uint_field(d.latency_cycles)},
      {"dataram.width_bytes", uint_field(d.width_bytes, k32)},
      {"dataram.banks", uint_field(d.banks, k32)},
      {"dataram.bank_conflict_cycles", uint_field(d.bank_conflict_cycles)},
      {"dataram.misaligned",
       choice_field(ConfigKey::kChoice, {"allow", "error"},
                    [&d](const std::string& t) -> std::optional<std::string> {
         if (t == "allow") d.allow_misaligned = true;
         else if (t == "error") d.allow_misaligned = false;
         else return std::string("must be 'allow' or 'error'");
         return std::nullopt;
       })},
      {"dataram.fill", uint_field(d.fill, k32)},
      {"dataram.stats_window_ns", double_field(d.stats_window_ns)},
      {"interconnect.clock_ns", double_field(b.clock_ns)},
      {"interconnect.hop_latency_cycles", uint_field(b.hop_latency_cycles)},
  };
  return t;
}

constexpr uint64_t kMaxTiming = 1'000'000;  // cycles; anything larger is a typo

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

void validate_hbm(const HbmConfig& c, const Sources& s) {
  auto pow2 = [&](const char* key, uint64_t v, uint64_t lo, uint64_t hi) {
    if (!is_pow2(v) || v < lo || v > hi)
      s.fail(std::string("hbm.") + key, std::to_string(v),
             fmt::format("must be a power of two in [{}, {}]", lo, hi));
  };
  check_clock(s, "hbm.tck_ns", c.tck_ns);
  pow2("channels", c.channels, 1, 64);
  if (c.pseudo_channels != 1 && c.pseudo_channels != 2)
    s.fail("hbm.pseudo_channels", std::to_string(c.pseudo_channels), "must be 1 or 2");
  pow2("channel_width_bits", c.channel_width_bits, 16 * c.pseudo_channels, 1024);
  pow2("bank_groups", c.bank_groups, 1, 16);
  pow2("banks_per_group", c.banks_per_group, 1, 16);
  pow2("rows", c.rows, 1, 1u << 20);
  pow2("burst_length", c.burst_length, 2, 16);
  pow2("row_bytes", c.row_bytes, c.burst_bytes(), 1u << 16);
  if (c.size() > (1ull << 40))
    s.fail("hbm.rows", std::to_string(c.rows), "the HBM would exceed 1 TiB");
  check_timing(s, "hbm.tRCD", c.tRCD, 1);
  check_timing(s, "hbm.tCL", c.tCL, 1);
  check_timing(s, "hbm.tRP", c.tRP, 1);
  check_timing(s, "hbm.tRAS", c.tRAS, 1);
  check_timing(s, "hbm.tFAW", c.tFAW, 0);
  check_timing(s, "hbm.tRFC", c.tRFC, 1);
  check_timing(s, "hbm.tREFI", c.tREFI, 0);
  check_timing(s, "hbm.tCCD_S", c.tCCD_S, 1);
  check_timing(s, "hbm.tCCD_L", c.tCCD_L, 1);
  check_timing(s, "hbm.tRRD_S", c.tRRD_S, 1);
  check_timing(s, "hbm.tRRD_L", c.tRRD_L, 1);
  check_timing(s, "hbm.tRTP", c.tRTP, 1);
  check_timing(s, "hbm.tWL", c.tWL, 0);
  check_timing(s, "hbm.tWR", c.tWR, 0);
  if (c.tRAS < c.tRCD)
    s.fail("hbm.tRAS", std::to_string(c.tRAS),
           fmt::format("tRAS must be >= tRCD ({}): a row is open at least until it is read",
                       c.tRCD));
  if (c.tCCD_S < c.burst_cycles())
    s.fail("hbm.tCCD_S", std::to_string(c.tCCD_S),
           fmt::format("tCCD_S must be >= the burst time BL/2 = {} cycles", c.burst_cycles()));
  if (c.tCCD_L < c.tCCD_S)
    s.fail("hbm.tCCD_L", std::to_string(c.tCCD_L),
           fmt::format("tCCD_L must be >= tCCD_S ({})", c.tCCD_S));
  if (c.tRRD_L < c.tRRD_S)
    s.fail("hbm.tRRD_L", std::to_string(c.tRRD_L),
           fmt::format("tRRD_L must be >= tRRD_S ({})", c.tRRD_S));
  if (c.tFAW != 0 && c.tFAW < c.tRRD_S)
    s.fail("hbm.tFAW", std::to_string(c.tFAW),
           fmt::format("tFAW must be 0 (off) or >= tRRD_S ({})", c.tRRD_S));
  if (c.tREFI != 0 && c.tREFI <= c.tRFC + c.tRP + c.tRCD + c.tCL + c.tCCD_L + c.tWR)
    s.fail("hbm.tREFI", std::to_string(c.tREFI),
           fmt::format("tREFI must be 0 (no refresh) or leave time for an access between "
                       "refreshes (> tRFC + tRP + tRCD + tCL + tCCD_L + tWR = {})",
                       c.tRFC + c.tRP + c.tRCD + c.tCL + c.tCCD_L + c.tWR));
  if (c.queue_depth < 1 || c.queue_depth > 4096)
    s.fail("hbm.queue_depth", std::to_string(c.queue_depth), "must be in [1, 4096]");
  if (c.bank_queue_depth < 1 || c.bank_queue_depth > 256)
    s.fail("hbm.bank_queue_depth", std::to_string(c.bank_queue_depth), "must be in [1, 256]");
  if (c.write_queue_depth > 4096)
    s.fail("hbm.write_queue_depth", std::to_string(c.write_queue_depth), "must be in [0, 4096]");
  {  // Write drain watermarks: low < high <= depth (high 0 = the depth).
    const uint32_t high = c.write_high_watermark != 0 ? c.write_high_watermark : c.write_queue_depth;
    if (c.write_queue_depth == 0 && (c.write_high_watermark != 0 || c.write_low_watermark != 0))
      s.fail(c.write_high_watermark != 0 ? "hbm.write_high_watermark" : "hbm.write_low_watermark",
             std::to_string(std::max(c.write_high_watermark, c.write_low_watermark)),
             "needs a write buffer (hbm.write_queue_depth > 0)");
    else if (high > c.write_queue_depth)
      s.fail("hbm.write_high_watermark", std::to_string(c.write_high_watermark),
             fmt::format("must be <= hbm.write_queue_depth ({})", c.write_queue_depth));
    else if (c.write_queue_depth != 0 && c.write_low_watermark >= high)
      s.fail("hbm.write_low_watermark", std::to_string(c.write_low_watermark),
             fmt::format("must be < the high watermark ({})", high));
  }
  if (c.row_hit_cap > 64)
    s.fail("hbm.row_hit_cap", std::to_string(c.row_hit_cap), "must be in [0, 64]");
  check_timing(s, "hbm.tRFCpb", c.tRFCpb, 1);
  if (c.refresh == HbmRefresh::kPerBank && c.tRFCpb > c.tRFC)
    s.fail("hbm.tRFCpb", std::to_string(c.tRFCpb),
           fmt::format("must be <= tRFC ({}): one bank refreshes no longer than all", c.tRFC));
  if (c.refresh == HbmRefresh::kPerBank && c.scheduler != HbmScheduler::kFrFcfs)
    s.fail("hbm.refresh", "per_bank", "per-bank refresh needs hbm.scheduler frfcfs");
  check_timing(s, "hbm.page_idle_cycles", c.page_idle_cycles, 1);
  if (c.page_policy == PagePolicy::kAdaptive && c.scheduler != HbmScheduler::kFrFcfs)
    s.fail("hbm.page_policy", "adaptive", "the adaptive page policy needs hbm.scheduler frfcfs");
  check_timing(s, "hbm.tWTR", c.tWTR, 0);
  check_timing(s, "hbm.tRTW", c.tRTW, 0);
  // tRTW below max(tCCD_S, tCL + BL/2 - tWL) is raised to it by the controller (a write's
  // data may not meet the read's on the bus): a profile that changes tCL need not retune it.
  // Every field with more than one value must appear exactly once.
  const std::string mt = mapping_text(c.mapping);
  auto count = [&](AddrField f) -> uint64_t {
    switch (f) {
      case AddrField::kChannel: return c.channels;
      case AddrField::kPseudoChannel: return c.pseudo_channels;
      case AddrField::kBankGroup: return c.bank_groups;
      case AddrField::kBank: return c.banks_per_group;
      case AddrField::kColumn: return c.columns();
      case AddrField::kRow: return c.rows;
    }
    return 1;
  };
  for (AddrField f : {AddrField::kChannel, AddrField::kPseudoChannel, AddrField::kBankGroup,
                      AddrField::kBank, AddrField::kColumn, AddrField::kRow}) {
    int n = 0;
    for (auto m : c.mapping) n += (m == f);
    if (n > 1)
      s.fail("hbm.address_mapping", mt, fmt::format("field '{}' appears twice", to_string(f)));
    if (n == 0 && count(f) > 1)
      s.fail("hbm.address_mapping", mt,
             fmt::format("field '{}' is missing ({} values)", to_string(f), count(f)));
  }
  const uint64_t end = c.base + c.size();
  if (end < c.base) s.fail("hbm.base", fmt::format("{:#x}", c.base), "base + size overflows");
  if (c.window_size != 0) {
    if (c.window_target < c.base || c.window_target + c.window_size > end ||
        c.window_target + c.window_size < c.window_target)
      s.fail("hbm.window_target", fmt::format("{:#x}", c.window_target),
             fmt::format("the window [target, target + window_size) must lie inside the HBM "
                         "[{:#x}, {:#x})", c.base, end));
  }
  if (!(c.stats_window_ns > 0.0))
    s.fail("hbm.stats_window_ns", fmt::format("{}", c.stats_window_ns), "must be > 0");
}

void validate_sram(const SramConfig& c, const std::string& sec, const Sources& s) {
  if (c.size == 0) s.fail(sec + ".size", "0", "a memory cannot be empty");
  if (c.base + c.size < c.base)
    s.fail(sec + ".size", fmt::format("{:#x}", c.size), "base + size overflows");
  check_clock(s, sec + ".clock_ns", c.clock_ns);
  if (!is_pow2(c.width_bytes) || c.width_bytes > 128)
    s.fail(sec + ".width_bytes", std::to_string(c.width_bytes),
           "must be a power of two in [1, 128]");
  if (c.banks < 1 || c.banks > 1024)
    s.fail(sec + ".banks", std::to_string(c.banks), "must be in [1, 1024]");
  if (c.latency_cycles > kMaxTiming)
    s.fail(sec + ".latency_cycles", std::to_string(c.latency_cycles), "too large");
  if (c.bank_conflict_cycles > kMaxTiming)
    s.fail(sec + ".bank_conflict_cycles", std::to_string(c.bank_conflict_cycles), "too large");
  if (!(c.stats_window_ns > 0.0))
    s.fail(sec + ".stats_window_ns", fmt::format("{}", c.stats_window_ns), "must be > 0");
}

void validate_bus(const InterconnectConfig& c, const Sources& s) {
  check_clock(s, "interconnect.clock_ns", c.clock_ns);
  if (c.hop_latency_cycles > kMaxTiming)
    s.fail("interconnect.hop_latency_cycles", std::to_string(c.hop_latency_cycles), "too large");
}

}  // namespace

ConfigError::ConfigError(std::string file, int line, std::string key, std::string value,
                         const std::string& why)
    : std::runtime_error(fmt::format("{}: {} = '{}': {}", where(file, line), key, value, why)),
      file_(std::move(file)),
      line_(line),
      key_(std::move(key)),
      value_(std::move(value)) {}

std::string to_string(AddrField f) {
  switch (f) {
    case AddrField::kChannel: return "channel";
    case AddrField::kPseudoChannel: return "pseudochannel";
    case AddrField::kBankGroup: return "bankgroup";
    case AddrField::kBank: return "bank";
    case AddrField::kColumn: return "column";
    case AddrField::kRow: return "row";
  }
  return "?";
}

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
  std::ifstream in(path);
  if (!in) throw ConfigError(path, 0, "<file>", path, "cannot open the configuration file");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  if (text.empty()) text = "{}";
  return load_memory_config(text, path, overrides);
}

std::vector<ConfigKey> memory_config_keys() {
  MemoryConfig c;
  std::vector<ConfigKey> out;
  for (const auto& [key, f] : field_table(c)) out.push_back(ConfigKey{key, f.kind, f.max, f.choices});
  return out;
}

void validate(const HbmConfig& c) { validate_hbm(c, Sources{}); }
void validate(const SramConfig& c, const std::string& section) {
  validate_sram(c, section, Sources{});
}
void validate(const InterconnectConfig& c) { validate_bus(c, Sources{}); }

}  // namespace npusim::models
