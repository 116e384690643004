// Invariant checker for the Snitch bump allocator, fed with what the allocator handed out.
// Included by alloc_v2.h.
//
// A bump allocator keeps no record of its allocations, so the checker keeps one. Invariants
// (each failure is one message):
//  - an allocation that did not trap lies within [base, end] (L1: its last byte below end;
//    L3: it also ends strictly below end, since an exact fit traps);
//  - no two live allocations overlap;
//  - update_next (a rewind) releases the allocations at or above the new next; one that
//    straddles the new next is reported, since later allocations will overlap it.
// Trapped allocations are recorded as such and not checked: the device stopped (or the
// caller chose to go on knowing the block overruns).
#pragma once

#include <cstdint>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "allocators/snitch/alloc_v2.h"

namespace npusim::alloc::snitch {

class AllocationChecker {
 public:
  struct Extent {
    uint64_t addr, bytes;
    std::string tag;
  };

  // `l3` selects the strict end bound.
  AllocationChecker(uint64_t base, uint64_t end, bool l3) : base_(base), end_(end), l3_(l3) {}

  // Records [addr, addr + bytes). Returns the problems this allocation causes.
  std::vector<std::string> add(uint64_t addr, uint64_t bytes, bool trapped,
                               const std::string& tag) {
    std::vector<std::string> errs;
    if (trapped) {
      ++trapped_;
      return errs;
    }
    const uint64_t top = addr + bytes;
    const std::string what = tag + " [" + hex(addr) + ", " + hex(top) + ")";
    if (addr < base_) errs.push_back(what + " starts below base " + hex(base_));
    if (l3_ ? top >= end_ : top > end_)
      errs.push_back(what + " runs past end " + hex(end_) + " without a trap");
    if (bytes != 0) {
      // Live extents are kept by start address; any overlap shows with a neighbour.
      auto next = live_.lower_bound(addr);
      if (next != live_.end() && next->first < top)
        errs.push_back(what + " overlaps " + describe(next->second));
      if (next != live_.begin()) {
        auto prev = std::prev(next);
        if (prev->second.addr + prev->second.bytes > addr)
          errs.push_back(what + " overlaps " + describe(prev->second));
      }
      // Keep the extent even if it overlaps, so every later conflict is reported too.
      if (live_.count(addr) == 0) live_.emplace(addr, Extent{addr, bytes, tag});
    }
    ++checked_;
    return errs;
  }

  // update_next(next): allocations at or above next are released.
  std::vector<std::string> rewind(uint64_t next) {
    std::vector<std::string> errs;
    auto it = live_.lower_bound(next);
    if (it != live_.begin()) {
      auto prev = std::prev(it);
      if (prev->second.addr + prev->second.bytes > next)
        errs.push_back("update_next to " + hex(next) + " cuts into live " + describe(prev->second));
    }
    live_.erase(it, live_.end());
    return errs;
  }

  const std::map<uint64_t, Extent>& live() const { return live_; }
  uint64_t checked() const { return checked_; }
  uint64_t trapped() const { return trapped_; }

 private:
  static std::string describe(const Extent& e) {
    return e.tag + " [" + hex(e.addr) + ", " + hex(e.addr + e.bytes) + ")";
  }
  uint64_t base_, end_;
  bool l3_;
  std::map<uint64_t, Extent> live_;
  uint64_t checked_ = 0, trapped_ = 0;
};

}  // namespace npusim::alloc::snitch
