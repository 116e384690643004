// The dataram and interconnect sections of the memory configuration: their keys and checks.
#include <string>

#include <fmt/format.h>

#include "models/memory_config_fields.h"

namespace npusim::models::config {

void add_sram_fields(SramConfig& d, FieldTable& t) {
  constexpr uint64_t k32 = UINT32_MAX;
  t.insert({
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
      {"dataram.pj_per_byte", double_field(d.pj_per_byte)},
  });
}

void add_interconnect_fields(InterconnectConfig& b, FieldTable& t) {
  t.insert({
      {"interconnect.clock_ns", double_field(b.clock_ns)},
      {"interconnect.hop_latency_cycles", uint_field(b.hop_latency_cycles)},
      {"interconnect.hop_pj", double_field(b.hop_pj)},
  });
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
  if (!(c.stats_window_ns >= kMinStatsWindowNs && c.stats_window_ns <= kMaxStatsWindowNs))
    s.fail(sec + ".stats_window_ns", fmt::format("{}", c.stats_window_ns), kStatsWindowRange);
  if (!(c.pj_per_byte >= 0.0 && c.pj_per_byte <= 1e9))
    s.fail(sec + ".pj_per_byte", fmt::format("{}", c.pj_per_byte), "must be an energy in pJ in [0, 1e9]");
}

void validate_bus(const InterconnectConfig& c, const Sources& s) {
  check_clock(s, "interconnect.clock_ns", c.clock_ns);
  if (c.hop_latency_cycles > kMaxTiming)
    s.fail("interconnect.hop_latency_cycles", std::to_string(c.hop_latency_cycles), "too large");
  if (!(c.hop_pj >= 0.0 && c.hop_pj <= 1e9))
    s.fail("interconnect.hop_pj", fmt::format("{}", c.hop_pj), "must be an energy in pJ in [0, 1e9]");
}

}  // namespace npusim::models::config
