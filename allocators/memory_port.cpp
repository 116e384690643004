#include "memory_port.h"

#include <fmt/format.h>

namespace npusim::alloc {

std::string hex(uint64_t v) { return fmt::format("0x{:x}", v); }

void HostMemory::add_region(const std::string& name, uint64_t base, uint64_t size) {
  if (size == 0) throw std::invalid_argument(fmt::format("region '{}' has size 0", name));
  if (base + size < base)
    throw std::invalid_argument(fmt::format("region '{}' at {} wraps the address space", name,
                                            hex(base)));
  for (const auto& r : regions_) {
    if (base < r.base + r.size && r.base < base + size)
      throw std::invalid_argument(fmt::format("region '{}' [{}, {}) overlaps region '{}' [{}, {})",
                                              name, hex(base), hex(base + size), r.name,
                                              hex(r.base), hex(r.base + r.size)));
  }
  Region r{name, base, size};
  r.storage.reset(static_cast<uint8_t*>(std::calloc(size + 8, 1)));
  r.bytes = r.storage.get() + base % 8;
  if (!r.storage) throw std::invalid_argument(fmt::format("cannot back region '{}' of {} bytes", name, size));
  regions_.push_back(std::move(r));
  set_hot(regions_.size() == 1 ? base : hot_anchor_);  // the vector may have moved
}

const HostMemory::Region* HostMemory::region_of(uint64_t addr, size_t n) const {
  for (const auto& r : regions_)
    if (addr >= r.base && n <= r.size && addr - r.base <= r.size - n) return &r;
  return nullptr;
}

[[noreturn]] static void unmapped(uint64_t addr, size_t n) {
  throw MemoryError(addr, n, fmt::format("unmapped device address {} ({} bytes)", hex(addr), n));
}

uint8_t* HostMemory::lookup(uint64_t addr, size_t n) const {
  const Region* r = region_of(addr, n);
  if (r == nullptr) unmapped(addr, n);
  return r->bytes + (addr - r->base);
}

void HostMemory::require_mapped(uint64_t addr, size_t n) const {
  if (region_of(addr, n) == nullptr) unmapped(addr, n);
}

void HostMemory::set_hot(uint64_t addr) {
  hot_anchor_ = addr;
  for (const auto& r : regions_) {
    if (addr >= r.base && addr - r.base < r.size) {
      hot_lo_ = r.size >= 4 ? r.base : ~uint64_t{0};
      hot_span_ = r.size;
      hot_word_limit_ = r.size >= 4 ? r.size - 4 : 0;
      hot_host_ = r.bytes;
      hot_bias_ = reinterpret_cast<uintptr_t>(r.bytes) - r.base;
      return;
    }
  }
  throw MemoryError(addr, 1, fmt::format("set_hot: unmapped device address {}", hex(addr)));
}

}  // namespace npusim::alloc
