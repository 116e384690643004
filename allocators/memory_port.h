// The memory-port interface through which the allocator models reach device memory.
//
// An allocator keeps its bookkeeping in device memory, byte for byte as the firmware does,
// and touches it only through a port. A port is any type with these members (a static
// interface: the allocators are templates on the port, so the host path inlines to plain
// loads and stores):
//
//   uint32_t load32(uint64_t addr);                 // little-endian 32-bit word
//   void     store32(uint64_t addr, uint32_t v);
//   void     read(uint64_t addr, void* dst, size_t n);
//   void     write(uint64_t addr, const void* src, size_t n);
//   void     compute(uint64_t cycles);              // charge pure computation
//
// and optionally
//
//   Window   window() const;                        // {bias, lo, span}: a region of device
//                                                   // memory the allocator may load and store
//                                                   // directly at host address bias + addr
//
// which the xmem heap uses to check a whole structure once instead of every word (see
// Heap::Direct). A port whose accesses must each be seen (timed, traced) offers no window.
//
// HostMemory (below) is the host-buffer port used by unit tests, benchmarks and
// `npusim heap replay`. The simulator's core model provides the other, over its TLM socket.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace npusim::alloc {

// Thrown by a port when an address is not backed by memory (the host equivalent of a bus
// error). Carries the address so that callers can report it.
class MemoryError : public std::runtime_error {
 public:
  MemoryError(uint64_t addr, size_t len, const std::string& what)
      : std::runtime_error(what), addr_(addr), len_(len) {}
  uint64_t addr() const { return addr_; }
  size_t len() const { return len_; }

 private:
  uint64_t addr_;
  size_t len_;
};

std::string hex(uint64_t v);

// Host-buffer memory: a few named regions of plain zero-initialised bytes at device
// addresses. Lookups remember the last region hit, so the allocator's bookkeeping (which
// lives in one region) costs one compare per access.
class HostMemory {
 public:
  struct Region {
    std::string name;
    uint64_t base;
    uint64_t size;
    // calloc'd: the OS hands out zero pages on first touch, so a large region is cheap.
    std::unique_ptr<uint8_t, decltype(&std::free)> storage{nullptr, &std::free};
    // The host byte of device address `base`: offset into `storage` by base % 8, so that
    // host and device word alignment agree.
    uint8_t* bytes = nullptr;
  };

  // Adds a region; throws std::invalid_argument on zero size or overlap.
  void add_region(const std::string& name, uint64_t base, uint64_t size);
  const std::vector<Region>& regions() const { return regions_; }
  // Makes the region holding `addr` the one checked first (default: the first region).
  void set_hot(uint64_t addr);
  // Throws MemoryError unless [addr, addr+n) lies inside one region.
  void require_mapped(uint64_t addr, size_t n) const;

  // Word accesses go through a uint32_t lvalue (alignment 1, so any address is fine): type
  // based alias analysis then knows a word store cannot change this object's own fields,
  // and the region check stays in registers across a run of accesses. Host little-endian,
  // like the device.
  uint32_t load32(uint64_t addr) {
    if (__builtin_expect(addr - hot_lo_ > hot_word_limit_, 0)) return slow_load32(addr);
    return *reinterpret_cast<const unaligned_u32*>(hot_bias_ + addr);
  }
  void store32(uint64_t addr, uint32_t v) {
    if (__builtin_expect(addr - hot_lo_ > hot_word_limit_, 0)) return slow_store32(addr, v);
    *reinterpret_cast<unaligned_u32*>(hot_bias_ + addr) = v;
  }
  void read(uint64_t addr, void* dst, size_t n) {
    if (n) std::memcpy(dst, at(addr, n), n);
  }
  void write(uint64_t addr, const void* src, size_t n) {
    if (n) std::memcpy(at(addr, n), src, n);
  }
  void compute(uint64_t cycles) { compute_cycles_ += cycles; }
  uint64_t compute_cycles() const { return compute_cycles_; }

  // The hot region as a window for direct access: device address `addr` in
  // [lo, lo + span) is host byte `bias + addr`. span is 0 while no region is hot (and lo is
  // ~0 while the hot region is too small for a word).
  struct Window {
    uintptr_t bias;
    uint64_t lo, span;
  };
  Window window() const { return Window{hot_bias_, hot_lo_, hot_span_}; }

 private:
  // Fast path: one compare against the hot region (the first region added, or the one
  // named by set_hot: where the allocator bookkeeping lives). `hot_host_ + (addr - hot_lo_)`
  // is the host byte of device address `addr` inside it.
  uint8_t* at(uint64_t addr, size_t n) {
    if (__builtin_expect(addr - hot_lo_ <= hot_span_ - n && n <= hot_span_, 1))
      return hot_host_ + (addr - hot_lo_);
    return lookup(addr, n);
  }
  const Region* region_of(uint64_t addr, size_t n) const;
  typedef uint32_t unaligned_u32 __attribute__((aligned(1)));
  // Accesses outside the hot region: a region search. `pure` (reads memory, writes none;
  // throws MemoryError when unmapped) lets the compiler keep the hot-region fields in
  // registers across the whole access sequence of an allocator call. Because it is pure,
  // a call whose result is unused may be dropped: never call it only for its check.
  __attribute__((noinline, cold, pure)) uint8_t* lookup(uint64_t addr, size_t n) const;
  uint32_t slow_load32(uint64_t addr) const {
    return *reinterpret_cast<const unaligned_u32*>(lookup(addr, 4));
  }
  void slow_store32(uint64_t addr, uint32_t v) {
    *reinterpret_cast<unaligned_u32*>(lookup(addr, 4)) = v;
  }

  std::vector<Region> regions_;
  uint64_t hot_lo_ = ~uint64_t{0}, hot_span_ = 0;  // empty until the first hit
  uint64_t hot_word_limit_ = 0;         // last offset a word fits at, or 0 with hot_lo_ = ~0

  uint8_t* hot_host_ = nullptr;
  // hot_host_ - hot_lo_ as an integer: the host address of device address `addr` in the hot
  // region is hot_bias_ + addr, one addressing-mode add, so a walk that loads a device
  // pointer and dereferences it pays no extra cycle for the translation (the range check
  // runs beside the load, predicted).
  uintptr_t hot_bias_ = 0;
  uint64_t hot_anchor_ = 0;  // an address inside the hot region
  uint64_t compute_cycles_ = 0;
};

}  // namespace npusim::alloc
