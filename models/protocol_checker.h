// ProtocolChecker: a TLM-2.0 base-protocol checking adaptor (IEEE 1666-2011: interfaces,
// generic payload, base protocol). It sits on one binding, initiator socket -> checker.in, checker.out -> target socket,
// forwards every call unchanged in both directions, and checks the rules a model on either
// side can break: b_transport, nb_transport_fw/bw (phase sequence), DMI
// (get_direct_mem_ptr, invalidate_direct_mem_ptr) and debug transport. docs/protocol-checks.md.
//
// Each rule has a one-line enabler in ProtocolCheckConfig (protocol_rules.h). A violation is
// counted (per rule, per checker and in one process-wide total) and, by policy, printed to
// stderr (kReport) or raised with SC_REPORT_ERROR (kError, which throws by SystemC's default
// actions).
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

#include "models/protocol_rules.h"

namespace npusim::models {

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
