// ProtocolChecker: a TLM-2.0 base-protocol checking adaptor (IEEE 1666-2011: interfaces,
// generic payload, base protocol). It sits on one binding, initiator socket -> checker.in, checker.out -> target socket,
// forwards every call unchanged in both directions, and checks the rules a model on either
// side can break: b_transport, nb_transport_fw/bw (phase sequence), DMI
// (get_direct_mem_ptr, invalidate_direct_mem_ptr) and debug transport. docs/protocol-checks.md.
//
// Each rule has a one-line enabler in ProtocolCheckConfig. A violation is counted (per rule,
// per checker and in one process-wide total) and, by policy, printed to stderr (kReport) or
// raised with SC_REPORT_ERROR (kError, which throws by SystemC's default actions).
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <systemc>
#include <tlm>

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

class ProtocolChecker : public sc_core::sc_module,
                        public tlm::tlm_fw_transport_if<>,
                        public tlm::tlm_bw_transport_if<> {
 public:
  tlm::tlm_target_socket<32, tlm::tlm_base_protocol_types, 1> in;     // the initiator binds here
  tlm::tlm_initiator_socket<32, tlm::tlm_base_protocol_types, 1> out;  // binds to the target

  ProtocolChecker(sc_core::sc_module_name name, const ProtocolCheckConfig& cfg = {});

  const ProtocolCheckConfig& config() const { return cfg_; }
  uint64_t violations() const { return total_; }
  uint64_t violations(ProtocolRule r) const { return counts_[static_cast<size_t>(r)]; }
  const std::vector<ProtocolViolation>& kept() const { return kept_; }
  // Calls forwarded, by interface: shows that traffic went through the checker.
  struct Calls {
    uint64_t b_transport = 0, nb_transport_fw = 0, nb_transport_bw = 0;
    uint64_t get_direct_mem_ptr = 0, transport_dbg = 0, invalidate_direct_mem_ptr = 0;
  };
  const Calls& calls() const { return calls_; }
  // Every violation counted in a total, by every checker of the process (count_in_total).
  static uint64_t total_violations();
  // The first kept violation's message of any counting checker ("" if none).
  static const std::string& first_violation();
  // Clears the total and the first message: for a test whose counted violations are on purpose.
  static void forget_total();

  // tlm_fw_transport_if: from the initiator.
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) override;
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay) override;
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi) override;
  unsigned int transport_dbg(tlm::tlm_generic_payload& trans) override;
  // tlm_bw_transport_if: from the target.
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay) override;
  void invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end) override;

 private:
  // The attributes an initiator sets and a target may not change.
  struct Attributes {
    tlm::tlm_command command;
    uint64_t address;
    unsigned char* data;
    unsigned length;
    unsigned char* byte_enable;
    unsigned byte_enable_length;
    unsigned streaming_width;
    static Attributes of(const tlm::tlm_generic_payload& t);
  };
  // An nb_transport transaction in progress on this hop.
  enum class Stage { kRequest, kRequestEnded, kResponse };
  struct NbState {
    Stage stage;
    Attributes sent;
  };
  // Marks the start of a non-blocking call: delta count and time, to see a wait() inside.
  struct Instant {
    uint64_t delta;
    sc_core::sc_time time;
  };
  static Instant now();

  void violate(ProtocolRule rule, const char* interface, const std::string& what,
               const tlm::tlm_generic_payload* trans);
  void check_entry(const char* interface, const tlm::tlm_generic_payload& trans);
  void check_attributes(const char* interface, const Attributes& sent,
                        const tlm::tlm_generic_payload& trans, bool check_address = true);
  void check_no_wait(const char* interface, const Instant& before,
                     const tlm::tlm_generic_payload* trans);
  void check_dmi(const Attributes& sent, bool granted, const tlm::tlm_dmi& dmi,
                 const tlm::tlm_generic_payload& trans);
  // nb_transport bookkeeping (protocol_checker_nb.cpp).
  void nb_before_fw(tlm::tlm_generic_payload& trans, const tlm::tlm_phase& phase);
  void nb_after_fw(tlm::tlm_generic_payload& trans, const tlm::tlm_phase& sent,
                   const tlm::tlm_phase& returned, tlm::tlm_sync_enum status);
  void nb_before_bw(tlm::tlm_generic_payload& trans, const tlm::tlm_phase& phase);
  void nb_after_bw(tlm::tlm_generic_payload& trans, const tlm::tlm_phase& sent,
                   const tlm::tlm_phase& returned, tlm::tlm_sync_enum status);
  void nb_target_phase(tlm::tlm_generic_payload& trans, const tlm::tlm_phase& phase,
                       const char* interface);
  void nb_end(tlm::tlm_generic_payload& trans);

  ProtocolCheckConfig cfg_;
  Calls calls_;
  uint64_t total_ = 0;
  std::array<uint64_t, kProtocolRuleCount> counts_{};
  std::vector<ProtocolViolation> kept_;
  std::unordered_map<const tlm::tlm_generic_payload*, NbState> nb_;
  const tlm::tlm_generic_payload* request_open_ = nullptr;   // awaiting END_REQ
  const tlm::tlm_generic_payload* response_open_ = nullptr;  // awaiting END_RESP
};

// One line describing a payload for messages: "READ 0x80000 len 4 width 4 no byte enables".
std::string describe(const tlm::tlm_generic_payload& t);

// Whether the build inserts checkers at the platforms' bindings (CMake NPUSIM_PROTOCOL_CHECKS).
bool protocol_checks_built_in();

// The last word of the program and of the test runners: `rc` if no counted violation
// happened, else 3 (unless `rc` is already an error other than 1), after a message on stderr
// with the count and the first violation.
int protocol_checked_exit(int rc);

// The checkers a platform inserted, owned by it.
using ProtocolCheckers = std::vector<std::unique_ptr<ProtocolChecker>>;

// Binds initiator socket `initiator` to target socket `target`: with `insert` (by default:
// NPUSIM_PROTOCOL_CHECKS is built in) through a new ProtocolChecker `name` (appended to
// `owner`) with `cfg`, otherwise directly. Before the end of elaboration.
template <class InitiatorSocket, class TargetSocket>
void bind_checked(InitiatorSocket& initiator, TargetSocket& target, const char* name,
                  ProtocolCheckers& owner, const ProtocolCheckConfig& cfg = {},
                  bool insert = protocol_checks_built_in()) {
  if (!insert) {
    initiator.bind(target);
    return;
  }
  owner.push_back(std::make_unique<ProtocolChecker>(name, cfg));
  initiator.bind(owner.back()->in);
  owner.back()->out.bind(target);
}

}  // namespace npusim::models
