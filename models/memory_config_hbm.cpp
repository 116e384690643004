// The hbm section of the memory configuration: its keys (the address mapping in npusim's and
// DRAMsim3's spelling) and its checks (geometry, timings, mapping, window).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "models/memory_config_fields.h"

namespace npusim::models {

namespace {

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

}  // namespace

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

namespace config {

void add_hbm_fields(HbmConfig& h, FieldTable& t) {
  constexpr uint64_t k32 = UINT32_MAX;
  t.insert({
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
      {"hbm.VDD", double_field(h.vdd)},
      {"hbm.IDD0", double_field(h.idd0)},
      {"hbm.IDD2N", double_field(h.idd2n)},
      {"hbm.IDD3N", double_field(h.idd3n)},
      {"hbm.IDD4R", double_field(h.idd4r)},
      {"hbm.IDD4W", double_field(h.idd4w)},
      {"hbm.IDD5AB", double_field(h.idd5ab)},
      {"hbm.IDD5PB", double_field(h.idd5pb)},
  });
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
  if (!(c.stats_window_ns >= kMinStatsWindowNs && c.stats_window_ns <= kMaxStatsWindowNs))
    s.fail("hbm.stats_window_ns", fmt::format("{}", c.stats_window_ns), kStatsWindowRange);
  // Energy: every per-event figure of models/hbm_energy.h must be >= 0.
  auto current = [&](const char* key, double v) {
    if (!(v >= 0.0 && v <= 1e6))
      s.fail(std::string("hbm.") + key, fmt::format("{}", v), "must be in [0, 1e6] (mA; V for VDD)");
  };
  current("VDD", c.vdd);
  current("IDD0", c.idd0);
  current("IDD2N", c.idd2n);
  current("IDD3N", c.idd3n);
  current("IDD4R", c.idd4r);
  current("IDD4W", c.idd4w);
  current("IDD5AB", c.idd5ab);
  current("IDD5PB", c.idd5pb);
  auto above = [&](const char* key, double v, const char* base, double b, const char* what) {
    if (v < b)
      s.fail(std::string("hbm.") + key, fmt::format("{}", v),
             fmt::format("must be >= {} ({}): {}", base, b, what));
  };
  above("IDD3N", c.idd3n, "IDD2N", c.idd2n, "a bank with a row open draws at least the "
        "precharge standby current");
  above("IDD4R", c.idd4r, "IDD3N", c.idd3n, "a read burst's energy is its current above "
        "active standby");
  above("IDD4W", c.idd4w, "IDD3N", c.idd3n, "a write burst's energy is its current above "
        "active standby");
  above("IDD5AB", c.idd5ab, "IDD2N", c.idd2n, "a refresh's energy is its current above "
        "precharge standby");
  above("IDD5PB", c.idd5pb, "IDD3N", c.idd3n, "a per-bank refresh's energy is its current "
        "above active standby");
  const double rc = static_cast<double>(c.tRAS + c.tRP);
  if (c.idd0 * rc < c.idd3n * static_cast<double>(c.tRAS) + c.idd2n * static_cast<double>(c.tRP))
    s.fail("hbm.IDD0", fmt::format("{}", c.idd0),
           fmt::format("IDD0 x tRC must be >= IDD3N x tRAS + IDD2N x tRP ({:g} mA): an ACT's "
                       "energy is IDD0 over tRC above the standby it replaces",
                       (c.idd3n * static_cast<double>(c.tRAS) + c.idd2n * static_cast<double>(c.tRP)) / rc));
}

}  // namespace config

}  // namespace npusim::models
