// The interconnect's address map: named regions routed to a target, each with a translation
// offset (the address the target sees is addr - base + target_offset). Plain C++.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace npusim::models {

struct Region {
  std::string name;
  uint64_t base = 0;
  uint64_t size = 0;
  unsigned target = 0;         // index of the target on the interconnect's `mem` socket
  uint64_t target_offset = 0;  // target address of `base`
  uint64_t last() const { return base + size - 1; }
  bool contains(uint64_t addr, uint64_t len) const {
    return addr >= base && len <= size && addr - base <= size - len;
  }
  uint64_t to_target(uint64_t addr) const { return addr - base + target_offset; }
};

class AddressMap {
 public:
  // Adds a region. Throws std::invalid_argument, naming the regions, on size 0, a region that
  // wraps around the address space, or overlap with a region already in the map.
  void add(const Region& r);
  // The region holding all of [addr, addr + len) (len 0 counts as 1), or nullptr.
  const Region* decode(uint64_t addr, uint64_t len) const {
    // Inline: the region of the previous access.
    if (last_ && last_->contains(addr, len ? len : 1)) return last_;
    return decode_search(addr, len);
  }
  const std::vector<Region>& regions() const { return regions_; }  // sorted by base

 private:
  const Region* decode_search(uint64_t addr, uint64_t len) const;
  std::vector<Region> regions_;
  mutable const Region* last_ = nullptr;
};

}  // namespace npusim::models
