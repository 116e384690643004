// Every TLM socket binding of every platform goes through platforms::bind, so that one place
// sees them all: the binding log (tests check that a platform's wiring is what its topology
// says) and, with NPUSIM_PROTOCOL_CHECKS, a protocol-checking adaptor inserted between the
// two sockets (docs/protocol-checks.md).
#pragma once

#include <string>
#include <vector>

#include "models/protocol_checker.h"

namespace npusim::platforms {

// The bindings made so far in this process, as "initiator -> target" names.
const std::vector<std::string>& binding_log();
void record_binding(const std::string& name);
// The checker's module name for a binding: "check_" and the name, " -> " as "_to_", any
// other character that is not a letter, digit or '_' as '_'.
std::string checker_name(const std::string& binding);

// Binds `initiator` to `target` and logs `name` ("a -> b"). With NPUSIM_PROTOCOL_CHECKS built
// in, through a new models::ProtocolChecker (kept in `checkers`, configured by `cfg`).
template <class Initiator, class Target>
void bind(Initiator& initiator, Target& target, const std::string& name,
          models::ProtocolCheckers& checkers, const models::ProtocolCheckConfig& cfg = {}) {
  record_binding(name);
  models::bind_checked(initiator, target, checker_name(name).c_str(), checkers, cfg);
}

}  // namespace npusim::platforms
