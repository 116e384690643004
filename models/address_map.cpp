#include "models/address_map.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace npusim::models {

void AddressMap::add(const Region& r) {
  if (r.size == 0)
    throw std::invalid_argument(fmt::format("address map: region '{}' at {:#x} has size 0",
                                            r.name, r.base));
  if (r.base + (r.size - 1) < r.base)
    throw std::invalid_argument(fmt::format(
        "address map: region '{}' [{:#x}, +{:#x}) wraps around the address space", r.name,
        r.base, r.size));
  if (r.target_offset + (r.size - 1) < r.target_offset)
    throw std::invalid_argument(fmt::format(
        "address map: region '{}': target offset {:#x} + size {:#x} wraps around", r.name,
        r.target_offset, r.size));
  for (const auto& o : regions_) {
    if (r.base <= o.last() && o.base <= r.last())
      throw std::invalid_argument(fmt::format(
          "address map: region '{}' [{:#x}, {:#x}] overlaps region '{}' [{:#x}, {:#x}]", r.name,
          r.base, r.last(), o.name, o.base, o.last()));
  }
  auto it = std::upper_bound(regions_.begin(), regions_.end(), r.base,
                             [](uint64_t a, const Region& x) { return a < x.base; });
  regions_.insert(it, r);
  last_ = nullptr;
}

const Region* AddressMap::decode_search(uint64_t addr, uint64_t len) const {
  if (len == 0) len = 1;
  auto it = std::upper_bound(regions_.begin(), regions_.end(), addr,
                             [](uint64_t a, const Region& x) { return a < x.base; });
  if (it == regions_.begin()) return nullptr;
  --it;
  if (!it->contains(addr, len)) return nullptr;
  last_ = &*it;
  return last_;
}

}  // namespace npusim::models
