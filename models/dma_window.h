// DMA address-window rules and their check, plain C++ (no SystemC).
//
// The firmware asserts `dram_addr >= 0x80000 && dram_addr < 0x90000` (data_transfer.cpp:160)
// on the dataram-side address of a transfer: the start address only. A rule here names a
// window [lo, hi) and a scope: every source or destination whose start address falls in the
// scope is a "dataram-side" address and must lie, whole range [addr, addr+len), inside the
// window. A zero-length transfer is checked on its start address alone, like the firmware.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace npusim::models {

struct WindowRule {
  std::string name = "dataram_window";
  uint64_t lo = 0x80000, hi = 0x90000;            // fact: data_transfer.cpp:160
  uint64_t scope_lo = 0, scope_hi = 0x80000000;    // assumption: the core's local space
  std::string operand = "dram_addr";               // the firmware's name for the address
  // The rule in the firmware's own form, e.g. "dram_addr >= 0x80000 && dram_addr < 0x90000".
  std::string text() const;
};

struct DmaTransfer {
  uint64_t src = 0, dst = 0, len = 0;
};

// One violated bound of one side of one transfer.
struct WindowFinding {
  std::string rule;      // rule name
  std::string side;      // "src" or "dst"
  std::string bound;     // "lower" or "upper"
  uint64_t bound_value;  // lo or hi
  uint64_t addr, end;    // the side's range [addr, end)
  bool start_inside;     // the firmware's start-only assertion passes: the bug class it misses
  std::string text;      // the rule's text
  std::string describe() const;
};

// All findings for one transfer against all rules (empty: the transfer is fine).
std::vector<WindowFinding> check_windows(const std::vector<WindowRule>& rules,
                                         const DmaTransfer& t);

}  // namespace npusim::models
