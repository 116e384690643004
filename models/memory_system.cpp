#include "models/memory_system.h"

namespace npusim::models {

MemorySystem::MemorySystem(sc_core::sc_module_name name, const MemoryConfig& cfg, bool checks)
    : sc_module(name),
      interconnect("interconnect", cfg.interconnect),
      dataram("dataram", cfg.dataram),
      hbm("hbm", cfg.hbm) {
  interconnect.add_region("dataram", cfg.dataram.base, cfg.dataram.size, kDataramTarget);
  interconnect.add_region("hbm", cfg.hbm.base, cfg.hbm.size(), kHbmTarget);
  if (cfg.hbm.window_size != 0)
    interconnect.add_region("hbm_window", cfg.hbm.window_base, cfg.hbm.window_size, kHbmTarget,
                            cfg.hbm.window_target - cfg.hbm.base);
  ProtocolCheckConfig to_dataram, to_hbm;
  to_dataram.map_last = cfg.dataram.size - 1;
  to_hbm.map_last = cfg.hbm.size() - 1;
  bind_checked(interconnect.mem, dataram.bus, "check_dataram", checkers, to_dataram,
               checks);  // kDataramTarget
  bind_checked(interconnect.mem, hbm.bus, "check_hbm", checkers, to_hbm, checks);  // kHbmTarget
}

}  // namespace npusim::models

// libsystemc references sc_main; a program with its own main() (npusim) gets this weak
// definition, which it never calls. Test and benchmark binaries define the real one.
int sc_main(int, char**) __attribute__((weak));
int sc_main(int, char**) { return 1; }
