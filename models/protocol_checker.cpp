// The checks of b_transport, DMI and debug transport, the reports and the totals. The
// nb_transport phase checks are in protocol_checker_nb.cpp.
#include "models/protocol_checker.h"

#include <cstdio>

#include <fmt/format.h>

namespace npusim::models {

namespace {
uint64_t g_total = 0;
std::string& g_first() {
  static std::string s;
  return s;
}

const char* command_name(tlm::tlm_command c) {
  switch (c) {
    case tlm::TLM_READ_COMMAND: return "READ";
    case tlm::TLM_WRITE_COMMAND: return "WRITE";
    default: return "IGNORE";
  }
}
}  // namespace

std::string describe(const tlm::tlm_generic_payload& t) {
  std::string be = t.get_byte_enable_ptr() == nullptr
                       ? "no byte enables"
                       : fmt::format("byte enables of {}", t.get_byte_enable_length());
  return fmt::format("{} 0x{:x} len {} width {} {}, {}", command_name(t.get_command()),
                     t.get_address(), t.get_data_length(), t.get_streaming_width(), be,
                     t.get_response_string());
}

bool protocol_checks_built_in() {
#ifdef NPUSIM_PROTOCOL_CHECKS
  return true;
#else
  return false;
#endif
}

int protocol_checked_exit(int rc) {
  if (g_total == 0) return rc;
  std::fprintf(stderr, "npusim: error: %llu TLM-2.0 protocol violation%s; the first: %s\n",
               static_cast<unsigned long long>(g_total), g_total == 1 ? "" : "s",
               g_first().c_str());
  return rc == 0 || rc == 1 ? 3 : rc;
}

uint64_t ProtocolChecker::total_violations() { return g_total; }
const std::string& ProtocolChecker::first_violation() { return g_first(); }
void ProtocolChecker::forget_total() {
  g_total = 0;
  g_first().clear();
}

ProtocolChecker::ProtocolChecker(sc_core::sc_module_name name, const ProtocolCheckConfig& cfg)
    : sc_module(name), in("in"), out("out"), cfg_(cfg) {
  in.bind(*this);
  out.bind(*this);
}

ProtocolChecker::Attributes ProtocolChecker::Attributes::of(const tlm::tlm_generic_payload& t) {
  return {t.get_command(),     t.get_address(),          t.get_data_ptr(),
          t.get_data_length(), t.get_byte_enable_ptr(), t.get_byte_enable_length(),
          t.get_streaming_width()};
}

ProtocolChecker::Instant ProtocolChecker::now() {
  return {sc_core::sc_delta_count(), sc_core::sc_time_stamp()};
}

void ProtocolChecker::violate(ProtocolRule rule, const char* interface, const std::string& what,
                              const tlm::tlm_generic_payload* trans) {
  ++total_;
  ++counts_[static_cast<size_t>(rule)];
  std::string msg = fmt::format("TLM protocol violation on '{}': {}: {}: {}", name(), interface,
                                rule_name(rule), what);
  if (trans != nullptr) msg += fmt::format(" (transaction: {})", describe(*trans));
  msg += fmt::format(" at {}", sc_core::sc_time_stamp().to_string());
  if (cfg_.count_in_total) {
    if (g_total++ == 0) g_first() = msg;
  }
  if (kept_.size() < cfg_.max_kept) kept_.push_back({rule, interface, msg});
  if (cfg_.policy == ProtocolCheckPolicy::kError) {
    SC_REPORT_ERROR("npusim/protocol", msg.c_str());
    return;
  }
  if (total_ <= cfg_.max_reports) std::fprintf(stderr, "npusim: %s\n", msg.c_str());
  if (total_ == cfg_.max_reports + 1)
    std::fprintf(stderr, "npusim: '%s': further protocol violations are counted, not printed\n",
                 name());
}

void ProtocolChecker::check_entry(const char* interface, const tlm::tlm_generic_payload& trans) {
  if (cfg_.response_incomplete_on_entry && trans.get_response_status() != tlm::TLM_INCOMPLETE_RESPONSE)
    violate(ProtocolRule::kResponseIncompleteOnEntry, interface,
            "the initiator sent a response status other than TLM_INCOMPLETE_RESPONSE", &trans);
  if (cfg_.dmi_hint_on_entry && trans.is_dmi_allowed())
    violate(ProtocolRule::kDmiHintOnEntry, interface,
            "the initiator sent the DMI hint set (dmi_allowed true)", &trans);
}

void ProtocolChecker::check_attributes(const char* interface, const Attributes& sent,
                                       const tlm::tlm_generic_payload& trans, bool check_address) {
  if (cfg_.address_restored && check_address && trans.get_address() != sent.address)
    violate(ProtocolRule::kAddressRestored, interface,
            fmt::format("the address came back as 0x{:x}, sent as 0x{:x} (a target must not "
                        "change it; an interconnect must restore it)",
                        trans.get_address(), sent.address),
            &trans);
  if (!cfg_.attributes_unchanged) return;
  const Attributes got = Attributes::of(trans);
  auto changed = [&](const char* what, const std::string& from, const std::string& to) {
    violate(ProtocolRule::kAttributesUnchanged, interface,
            fmt::format("the target changed the {} from {} to {}", what, from, to), &trans);
  };
  if (got.command != sent.command)
    changed("command", command_name(sent.command), command_name(got.command));
  if (got.data != sent.data)
    changed("data pointer", fmt::format("{}", static_cast<void*>(sent.data)),
            fmt::format("{}", static_cast<void*>(got.data)));
  if (got.length != sent.length)
    changed("data length", std::to_string(sent.length), std::to_string(got.length));
  if (got.byte_enable != sent.byte_enable)
    changed("byte-enable pointer", fmt::format("{}", static_cast<void*>(sent.byte_enable)),
            fmt::format("{}", static_cast<void*>(got.byte_enable)));
  if (got.byte_enable_length != sent.byte_enable_length)
    changed("byte-enable length", std::to_string(sent.byte_enable_length),
            std::to_string(got.byte_enable_length));
  if (got.streaming_width != sent.streaming_width)
    changed("streaming width", std::to_string(sent.streaming_width),
            std::to_string(got.streaming_width));
}

void ProtocolChecker::check_no_wait(const char* interface, const Instant& before,
                                    const tlm::tlm_generic_payload* trans) {
  if (!cfg_.non_blocking_no_wait) return;
  const Instant after = now();
  if (after.delta != before.delta || after.time != before.time)
    violate(ProtocolRule::kNonBlockingNoWait, interface,
            fmt::format("the callee waited ({} -> {}, delta {} -> {})", before.time.to_string(),
                        after.time.to_string(), before.delta, after.delta),
            trans);
}

void ProtocolChecker::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  const char* itf = "b_transport";
  ++calls_.b_transport;
  if (cfg_.blocking_from_thread &&
      sc_core::sc_get_current_process_handle().proc_kind() == sc_core::SC_METHOD_PROC_)
    violate(ProtocolRule::kBlockingFromThread, itf,
            fmt::format("called from the SC_METHOD '{}' (b_transport may wait; call it from a "
                        "thread or use nb_transport_fw)",
                        sc_core::sc_get_current_process_handle().name()),
            &trans);
  check_entry(itf, trans);
  const Attributes sent = Attributes::of(trans);
  out->b_transport(trans, delay);
  if (cfg_.response_set_on_return && trans.get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE)
    violate(ProtocolRule::kResponseSetOnReturn, itf,
            "the target returned with the response status still TLM_INCOMPLETE_RESPONSE", &trans);
  check_attributes(itf, sent, trans);
}

void ProtocolChecker::check_dmi(const Attributes& sent, bool granted, const tlm::tlm_dmi& dmi,
                                const tlm::tlm_generic_payload& trans) {
  const char* itf = "get_direct_mem_ptr";
  const uint64_t a = sent.address, s = dmi.get_start_address(), e = dmi.get_end_address();
  const bool contains = s <= a && a <= e;
  const std::string range = fmt::format("[0x{:x}, 0x{:x}]", s, e);
  if (granted) {
    if (cfg_.dmi_range && !contains)
      violate(ProtocolRule::kDmiRange, itf,
              fmt::format("the granted range {} does not contain the address 0x{:x}", range, a),
              &trans);
    if (cfg_.dmi_access) {
      const bool ok = sent.command == tlm::TLM_WRITE_COMMAND ? dmi.is_write_allowed()
                                                              : dmi.is_read_allowed();
      if (!ok)
        violate(ProtocolRule::kDmiAccess, itf,
                fmt::format("granted for a {} request without {} access", command_name(sent.command),
                            sent.command == tlm::TLM_WRITE_COMMAND ? "write" : "read"),
                &trans);
    }
    if (cfg_.dmi_pointer && dmi.get_dmi_ptr() == nullptr)
      violate(ProtocolRule::kDmiPointer, itf, "granted with a null DMI pointer", &trans);
    if (cfg_.dmi_in_map && (s < cfg_.map_first || e > cfg_.map_last))
      violate(ProtocolRule::kDmiInMap, itf,
              fmt::format("the granted range {} leaves this binding's map [0x{:x}, 0x{:x}]", range,
                          cfg_.map_first, cfg_.map_last),
              &trans);
    if (cfg_.dmi_latency) {
      constexpr uint64_t kNegative = uint64_t{1} << 63;
      if (dmi.get_read_latency().value() >= kNegative || dmi.get_write_latency().value() >= kNegative)
        violate(ProtocolRule::kDmiLatency, itf,
                fmt::format("a negative (wrapped) latency: read {} units, write {} units",
                            dmi.get_read_latency().value(), dmi.get_write_latency().value()),
                &trans);
    }
  } else if (cfg_.dmi_denied_range && !contains) {
    violate(ProtocolRule::kDmiDeniedRange, itf,
            fmt::format("the denied range {} does not contain the address 0x{:x}", range, a),
            &trans);
  }
}

bool ProtocolChecker::get_direct_mem_ptr(tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi) {
  ++calls_.get_direct_mem_ptr;
  const Attributes sent = Attributes::of(trans);
  const Instant before = now();
  const bool granted = out->get_direct_mem_ptr(trans, dmi);
  check_no_wait("get_direct_mem_ptr", before, &trans);
  check_attributes("get_direct_mem_ptr", sent, trans);
  check_dmi(sent, granted, dmi, trans);
  return granted;
}

unsigned int ProtocolChecker::transport_dbg(tlm::tlm_generic_payload& trans) {
  ++calls_.transport_dbg;
  const Attributes sent = Attributes::of(trans);
  const Instant before = now();
  const unsigned n = out->transport_dbg(trans);
  check_no_wait("transport_dbg", before, &trans);
  check_attributes("transport_dbg", sent, trans);
  if (cfg_.debug_length && n > sent.length)
    violate(ProtocolRule::kDebugLength, "transport_dbg",
            fmt::format("returned {} bytes for a data length of {}", n, sent.length), &trans);
  return n;
}

void ProtocolChecker::invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end) {
  ++calls_.invalidate_direct_mem_ptr;
  if (cfg_.invalidate_range && start > end)
    violate(ProtocolRule::kInvalidateRange, "invalidate_direct_mem_ptr",
            fmt::format("start 0x{:x} is above end 0x{:x}", start, end), nullptr);
  const Instant before = now();
  in->invalidate_direct_mem_ptr(start, end);
  check_no_wait("invalidate_direct_mem_ptr", before, nullptr);
}

}  // namespace npusim::models
