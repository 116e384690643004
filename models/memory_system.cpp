#include "models/memory_system.h"

namespace npusim::models {

MemorySystem::MemorySystem(sc_core::sc_module_name name, const MemoryConfig& cfg)
    : sc_module(name),
      interconnect("interconnect", cfg.interconnect),
      dataram("dataram", cfg.dataram),
      hbm("hbm", cfg.hbm) {
  interconnect.add_region("dataram", cfg.dataram.base, cfg.dataram.size, kDataramTarget);
  interconnect.add_region("hbm", cfg.hbm.base, cfg.hbm.size(), kHbmTarget);
  if (cfg.hbm.window_size != 0)
    interconnect.add_region("hbm_window", cfg.hbm.window_base, cfg.hbm.window_size, kHbmTarget,
                            cfg.hbm.window_target - cfg.hbm.base);
  interconnect.mem.bind(dataram.bus);  // kDataramTarget
  interconnect.mem.bind(hbm.bus);      // kHbmTarget
}

}  // namespace npusim::models

// libsystemc references sc_main; a program with its own main() (npusim) gets this weak
// definition, which it never calls. Test and benchmark binaries define the real one.
int sc_main(int, char**) __attribute__((weak));
int sc_main(int, char**) { return 1; }
