#include "models/protocol_rules.h"

namespace npusim::models {

const char* rule_name(ProtocolRule r) {
  switch (r) {
    case ProtocolRule::kResponseIncompleteOnEntry: return "response-incomplete-on-entry";
    case ProtocolRule::kResponseSetOnReturn: return "response-set-on-return";
    case ProtocolRule::kDmiHintOnEntry: return "dmi-hint-on-entry";
    case ProtocolRule::kAttributesUnchanged: return "attributes-unchanged";
    case ProtocolRule::kAddressRestored: return "address-restored";
    case ProtocolRule::kBlockingFromThread: return "blocking-from-thread";
    case ProtocolRule::kNbPhaseSequence: return "nb-phase-sequence";
    case ProtocolRule::kNbExclusion: return "nb-exclusion";
    case ProtocolRule::kNbReturnPhase: return "nb-return-phase";
    case ProtocolRule::kNonBlockingNoWait: return "non-blocking-no-wait";
    case ProtocolRule::kDmiRange: return "dmi-range";
    case ProtocolRule::kDmiDeniedRange: return "dmi-denied-range";
    case ProtocolRule::kDmiAccess: return "dmi-access";
    case ProtocolRule::kDmiLatency: return "dmi-latency";
    case ProtocolRule::kDmiPointer: return "dmi-pointer";
    case ProtocolRule::kDmiInMap: return "dmi-in-map";
    case ProtocolRule::kInvalidateRange: return "invalidate-range";
    case ProtocolRule::kDebugLength: return "debug-length";
  }
  return "?";
}

bool ProtocolCheckConfig::enabled(ProtocolRule r) const {
  switch (r) {
    case ProtocolRule::kResponseIncompleteOnEntry: return response_incomplete_on_entry;
    case ProtocolRule::kResponseSetOnReturn: return response_set_on_return;
    case ProtocolRule::kDmiHintOnEntry: return dmi_hint_on_entry;
    case ProtocolRule::kAttributesUnchanged: return attributes_unchanged;
    case ProtocolRule::kAddressRestored: return address_restored;
    case ProtocolRule::kBlockingFromThread: return blocking_from_thread;
    case ProtocolRule::kNbPhaseSequence: return nb_phase_sequence;
    case ProtocolRule::kNbExclusion: return nb_exclusion;
    case ProtocolRule::kNbReturnPhase: return nb_return_phase;
    case ProtocolRule::kNonBlockingNoWait: return non_blocking_no_wait;
    case ProtocolRule::kDmiRange: return dmi_range;
    case ProtocolRule::kDmiDeniedRange: return dmi_denied_range;
    case ProtocolRule::kDmiAccess: return dmi_access;
    case ProtocolRule::kDmiLatency: return dmi_latency;
    case ProtocolRule::kDmiPointer: return dmi_pointer;
    case ProtocolRule::kDmiInMap: return dmi_in_map;
    case ProtocolRule::kInvalidateRange: return invalidate_range;
    case ProtocolRule::kDebugLength: return debug_length;
  }
  return true;
}

}  // namespace npusim::models
