// The TLM-2.0 base-protocol rules that ProtocolChecker (protocol_checker.h) checks, the one-line
// enabler of each, the policy and a violation as reported. Plain C++: no SystemC.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

namespace npusim::models {

enum class ProtocolRule {
  kResponseIncompleteOnEntry,  // initiator: status TLM_INCOMPLETE_RESPONSE when sent
  kResponseSetOnReturn,        // target: status no longer INCOMPLETE when the response comes back
  kDmiHintOnEntry,             // initiator: dmi_allowed false when sent
  kAttributesUnchanged,        // target: command, data pointer, lengths, byte enables, streaming width
  kAddressRestored,            // the address on return is the one sent (targets keep it, interconnects restore it)
  kBlockingFromThread,         // b_transport is called from a thread process, never an SC_METHOD
  kNbPhaseSequence,            // BEGIN_REQ -> END_REQ -> BEGIN_RESP -> END_RESP, on the right path
  kNbExclusion,                // request and response exclusion on the hop
  kNbReturnPhase,              // TLM_ACCEPTED keeps the phase, TLM_UPDATED moves it to a legal next one
  kNonBlockingNoWait,          // nb_transport, DMI and debug calls do not wait (no delta or time passes)
  kDmiRange,                   // a grant: start <= address <= end
  kDmiDeniedRange,             // a denial: the denied range contains the address (start <= address <= end)
  kDmiAccess,                  // a grant allows the requested command (read or write)
  kDmiLatency,                 // DMI latencies are non-negative (not a wrapped subtraction)
  kDmiPointer,                 // a grant has a non-null pointer
  kDmiInMap,                   // a grant lies inside the address range of this binding (if configured)
  kInvalidateRange,            // invalidate_direct_mem_ptr: start <= end
  kDebugLength,                // transport_dbg returns at most the data length
};
inline constexpr size_t kProtocolRuleCount = static_cast<size_t>(ProtocolRule::kDebugLength) + 1;

// The rule's name in messages and docs (kebab case, e.g. "response-set-on-return").
const char* rule_name(ProtocolRule r);

enum class ProtocolCheckPolicy {
  kReport,  // count, print the first `max_reports` violations of this checker to stderr, go on
  kError,   // count, then SC_REPORT_ERROR("npusim/protocol", message)
};

// One enabler per rule (true: checked), the policy and the binding's address range.
struct ProtocolCheckConfig {
  // Generic payload, response status: the initiator sets the response status to TLM_INCOMPLETE_RESPONSE before b_transport
  // or nb_transport_fw(BEGIN_REQ). A payload reused without resetting it fails this.
  bool response_incomplete_on_entry = true;
  // Generic payload, response status: the target sets the response status before b_transport returns, before BEGIN_RESP
  // and before it returns TLM_COMPLETED; INCOMPLETE then means it never looked at the request.
  bool response_set_on_return = true;
  // Generic payload, DMI allowed: the DMI hint is false when the initiator sends a transaction; a payload whose hint a
  // target set (and that is reused without clearing it) fails this.
  bool dmi_hint_on_entry = true;
  // Generic payload, modifiability of attributes: a target does not change command, data pointer, data length, byte-enable
  // pointer and length or streaming width (it writes only data, response status, DMI hint).
  bool attributes_unchanged = true;
  // Generic payload, address: a target does not change it; an interconnect that translates it restores it
  // before the transaction returns to the initiator (b_transport, nb_transport, DMI, debug).
  bool address_restored = true;
  // Blocking transport: b_transport may call wait(), so its caller is a thread process (SC_THREAD or
  // SC_CTHREAD); a call from an SC_METHOD is an error. Calls from outside any process (sc_main,
  // between sc_start calls) are not checked.
  bool blocking_from_thread = true;
  // Base protocol phases: the sequence BEGIN_REQ (forward), END_REQ and BEGIN_RESP (backward), END_RESP
  // (forward); BEGIN_RESP may skip END_REQ; TLM_COMPLETED ends the transaction at any phase;
  // no phase for a transaction that is not in progress; no second BEGIN_REQ.
  bool nb_phase_sequence = true;
  // Base protocol, request and response exclusion rules: no BEGIN_REQ on this hop while another request awaits END_REQ (or BEGIN_RESP), no
  // BEGIN_RESP while another response awaits END_RESP.
  bool nb_exclusion = true;
  // Non-blocking transport return values: TLM_ACCEPTED leaves the phase argument unchanged, TLM_UPDATED changes it to the
  // callee's next phase (none follows END_REQ from the initiator's side, nor END_RESP).
  bool nb_return_phase = true;
  // Non-blocking, DMI and debug interfaces: nb_transport, get_direct_mem_ptr, invalidate_direct_mem_ptr and
  // transport_dbg are non-blocking: no delta cycle or time passes inside them.
  bool non_blocking_no_wait = true;
  // DMI: a granted region region contains the requested address, start <= address <= end.
  bool dmi_range = true;
  // DMI: a denial sets the range for which DMI is not available, and it contains the
  // address (the initiator may cache it and not ask again inside it).
  bool dmi_denied_range = true;
  // DMI: a grant for a read (write) request allows reads (writes).
  bool dmi_access = true;
  // DMI: read and write latencies are non-negative times; sc_time is unsigned, so a
  // negative latency shows as a value >= 2^63 (a wrapped subtraction).
  bool dmi_latency = true;
  // DMI: a grant gives a DMI pointer (not nullptr).
  bool dmi_pointer = true;
  // A grant lies inside [map_first, map_last], the addresses this binding carries (as the
  // interconnect's address map says); unset (the default range) checks nothing.
  bool dmi_in_map = true;
  // DMI: invalidate_direct_mem_ptr gives start <= end.
  bool invalidate_range = true;
  // Debug transport: transport_dbg returns the number of bytes moved, at most the data length.
  bool debug_length = true;

  uint64_t map_first = 0, map_last = std::numeric_limits<uint64_t>::max();
  ProtocolCheckPolicy policy = ProtocolCheckPolicy::kReport;
  unsigned max_reports = 10;  // kReport: messages printed per checker (counting goes on)
  size_t max_kept = 100;      // violations kept per checker (counting goes on)
  // Count this checker's violations in ProtocolChecker::total_violations() (the figure the
  // program and the test runners fail on). Off for negative tests, where violations are the
  // point.
  bool count_in_total = true;

  bool enabled(ProtocolRule r) const;
};

struct ProtocolViolation {
  ProtocolRule rule;
  std::string interface;  // "b_transport", "nb_transport_fw", ...
  std::string message;    // one line: binding, interface, rule, what, transaction, time
};

}  // namespace npusim::models
