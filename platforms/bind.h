// Every TLM socket binding of every platform goes through platforms::bind, so that one place
// sees them all: the binding log (tests check that a platform's wiring is what its topology
// says) and, later, a protocol-checking adaptor inserted between the two sockets.
#pragma once

#include <string>
#include <vector>

namespace npusim::platforms {

// The bindings made so far in this process, as "initiator -> target" names.
const std::vector<std::string>& binding_log();
void record_binding(const std::string& name);

template <class Initiator, class Target>
void bind(Initiator& initiator, Target& target, const std::string& name) {
  record_binding(name);
  initiator.bind(target);
}

}  // namespace npusim::platforms
