// The op registry's bookkeeping of where each registration comes from (op_lookup.cpp), for the
// plugin loader (plugins.cpp). Internal to firmware/torch.
#pragma once

#include <string>
#include <vector>

namespace torch::npusim_op {

// One plugin library being loaded: its registrations are counted and checked against it.
struct Loading {
  std::string path;               // as the user named it
  bool allow_shadowing = false;   // a plugin's op may replace a built-in op (with a warning)
  std::vector<std::string> ops;   // the names it registered
  size_t attempts = 0;            // registrations tried (registered or refused)
  std::vector<std::string> errors, warnings;
};

// While `l` is set, registrations belong to that plugin; nullptr: to the executable (built in).
void set_loading(Loading* l);
// The errors of the executable's own registrations (an op registered twice, a NEURON_LIBRARY
// block that threw), taken once.
std::vector<std::string> take_builtin_errors();

}  // namespace torch::npusim_op
