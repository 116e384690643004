// The Cadence/Tensilica xmem heap manager, modelled exactly: a first-fit, address-sorted,
// immediately coalescing free-list allocator with out-of-band 16-byte block descriptors.
//
// All bookkeeping lives in device memory, reached through a memory port (see
// ../memory_port.h): the 88-byte manager at `mgr_addr`, the descriptor array and the
// free-descriptor bit-vector in the header. Pointers inside them are 32-bit device addresses,
// and all arithmetic is the device's 32-bit unsigned arithmetic, wrap-around included.
// Source: seed document 000 §2-§3 (the xmem heap block and manager layouts, the algorithm).
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace npusim::alloc::xmem {

// xmem_status_t values (xmem.h).
enum Status : int32_t {
  kOk = 0,
  kErrAllocFailed = -100,     // XMEM_ERR_ALLOC_FAILED
  kErrIllegalAlign = -99,     // XMEM_ERR_ILLEGAL_ALIGN
  kErrInvalidArgs = -98,      // XMEM_ERR_INVALID_ARGS
  kErrPtrOutOfBounds = -97,   // XMEM_ERR_PTR_OUT_OF_BOUNDS
  kErrPoolSize = -96,         // XMEM_ERR_POOL_SIZE
};
const char* status_name(int32_t status);

// xmem_heap_free_space_qual_t.
enum class FreeSpaceQual { kStart, kEnd, kMax };

// Byte offsets of xmem_heap_mgr_struct (88 bytes, 32-bit target; xmem_mgr.h / DWARF).
namespace mgr {
constexpr uint32_t kSize = 88;
constexpr uint32_t kLock = 0;
constexpr uint32_t kBuffer = 4;
constexpr uint32_t kBufferSize = 8;
constexpr uint32_t kFreeBytes = 12;
constexpr uint32_t kAllocatedBytes = 16;
constexpr uint32_t kUnusedBytes = 20;
constexpr uint32_t kFreeListHead = 24;  // embedded 16-byte sentinel block
constexpr uint32_t kFreeListTail = 40;  // embedded 16-byte sentinel block
constexpr uint32_t kAllocListHead = 56; // embedded 16-byte sentinel block
constexpr uint32_t kBlocks = 72;
constexpr uint32_t kNumBlocks = 76;
constexpr uint32_t kBlockFreeBitvec = 80;
constexpr uint32_t kHeaderSize = 84;         // uint16_t
constexpr uint32_t kHasExternalHeader = 86;  // uint16_t
}  // namespace mgr

// Byte offsets of xmem_heap_block_struct (16 bytes; DWARF data_member_location 0/4/8/12).
namespace blk {
constexpr uint32_t kSize = 16;
constexpr uint32_t kSizeLog2 = 4;  // XMEM_HEAP_BLOCK_STRUCT_SIZE_LOG2
constexpr uint32_t kNext = 0;
constexpr uint32_t kBlockSize = 4;
constexpr uint32_t kBuffer = 8;
constexpr uint32_t kAlignedBuffer = 12;
}  // namespace blk

constexpr uint32_t kDefaultNumBlocks = 64;  // XMEM_HEAP_DEFAULT_NUM_BLOCKS (no external header)
constexpr uint32_t kMinAllocSize = 4;       // XMEM_HEAP_MIN_ALLOC_SIZE
constexpr uint32_t kTailAddress = 0xffffffffu;

// Bytes of the header: blocks[num_blocks] then ceil(num_blocks/32) bit-vector words.
constexpr uint64_t header_bytes(uint64_t num_blocks) {
  return blk::kSize * num_blocks + ((num_blocks + 31) / 32) * 4;
}

// Compute cycles charged to the port for work that is not a memory access. The memory
// accesses themselves are charged by the port. Assumption: a few ALU/branch cycles per step
// (docs/assumptions.md, "xmem compute cost").
struct CostModel {
  uint64_t call_cycles = 12;  // entry, argument checks, lock/unlock (no-op), return
  uint64_t step_cycles = 4;   // one list step: compare, branch, slack arithmetic
};

// Raised when the bookkeeping in device memory no longer describes a heap (a list that does
// not terminate): the firmware would hang or crash here; the model stops and says so.
class HeapCorrupted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One descriptor as the walker sees it.
struct BlockInfo {
  uint32_t desc;  // device address of the descriptor
  uint32_t index; // descriptor index in blocks[]
  uint32_t buffer;
  uint32_t aligned;
  uint32_t size;
  bool free;
};

// The manager's scalar fields, read in one go.
struct Counters {
  uint32_t buffer, buffer_size, free_bytes, allocated_bytes, unused_bytes;
  uint32_t blocks, num_blocks, bitvec;
  uint16_t header_size, has_external_header;
};

// Whether a port offers window() (memory_port.h).
template <class P, class = void>
struct HasWindow : std::false_type {};
template <class P>
struct HasWindow<P, std::void_t<decltype(std::declval<const P&>().window())>> : std::true_type {};

template <class Port>
class Heap {
 public:
  Heap(Port& port, uint32_t mgr_addr, CostModel cost = {})
      : p_(port), m_(mgr_addr), cost_(cost) {}

  // Whether alloc and free can reach the bookkeeping through the port's window (see Direct).
  static constexpr bool kUsesWindow = HasWindow<Port>::value;

  uint32_t mgr_addr() const { return m_; }
  Port& port() { return p_; }

  // xmem_heap_init. `header` 0 means "no external header": the header is placed at the start
  // of the pool and num_blocks is forced to 64, as in xmem.
  int32_t init(uint32_t pool, uint32_t size, uint32_t num_blocks, uint32_t header) {
    p_.compute(cost_.call_cycles);
    if (pool == 0) return kErrInvalidArgs;  // buffer != NULL
    st(m_ + mgr::kLock, 0);
    st(m_ + mgr::kBuffer, pool);
    st(m_ + mgr::kBufferSize, size);
    const bool ext = header != 0;
    const uint32_t nb = ext ? num_blocks : kDefaultNumBlocks;
    const uint32_t blocks = ext ? header : pool;
    st(m_ + mgr::kNumBlocks, nb);
    st(m_ + mgr::kBlocks, blocks);
    const uint32_t words = (nb + 31) >> 5;
    const uint32_t bitvec = blocks + blk::kSize * nb;
    st(m_ + mgr::kBlockFreeBitvec, bitvec);
    const uint16_t hdr_size = static_cast<uint16_t>(blk::kSize * nb + words * 4);
    st(m_ + mgr::kHeaderSize, hdr_size | (uint32_t{ext} << 16));

    const uint32_t min_size = ext ? kMinAllocSize : uint32_t{hdr_size} + kMinAllocSize;
    if (size < min_size) return kErrPoolSize;
    if (nb == 0) return kErrInvalidArgs;

    const uint32_t head = m_ + mgr::kFreeListHead, tail = m_ + mgr::kFreeListTail;
    const uint32_t ahead = m_ + mgr::kAllocListHead;
    set_block(head, 0, 0, 0, 0);
    set_block(tail, 0, kTailAddress, kTailAddress, kTailAddress);
    st(ahead + blk::kBlockSize, 0);
    st(ahead + blk::kBuffer, 0);
    st(ahead + blk::kAlignedBuffer, 0);
    st(m_ + mgr::kAllocatedBytes, 0);

    const uint32_t b0 = blocks, b1 = blocks + blk::kSize;
    if (ext) {
      // The whole pool is descriptor 0, on the free list; descriptor 0 in use.
      set_block(b0, tail, size, pool, pool);
      st(head + blk::kNext, b0);
      st(ahead + blk::kNext, 0);
      st(bitvec, 0xfffffffeu);
      for (uint32_t i = 1; i < words; ++i) st(bitvec + 4 * i, 0xffffffffu);
      st(m_ + mgr::kFreeBytes, size);
      st(m_ + mgr::kUnusedBytes, 0);
    } else {
      // Descriptor 0 is the header itself (allocated), descriptor 1 the rest of the pool.
      set_block(b0, 0, hdr_size, pool, pool);
      set_block(b1, tail, size - hdr_size, pool + hdr_size, pool + hdr_size);
      st(ahead + blk::kNext, b0);
      st(head + blk::kNext, b1);
      st(bitvec, 0xfffffffcu);
      for (uint32_t i = 1; i < words; ++i) st(bitvec + 4 * i, 0xffffffffu);
      st(m_ + mgr::kFreeBytes, size - hdr_size);
      st(m_ + mgr::kUnusedBytes, hdr_size);
      st(m_ + mgr::kAllocatedBytes, hdr_size);
    }
    return kOk;
  }

  // xmem_heap_alloc: returns the aligned user pointer (0 on failure) and sets *status.
  // Each field is loaded once per call, as compiled firmware keeps it in a register.
  uint32_t alloc(uint32_t size, uint32_t align, int32_t* status) {
    p_.compute(cost_.call_cycles);
    if (align == 0 || (align & (align - 1)) != 0) {
      *status = kErrIllegalAlign;
      return 0;
    }
    if (size == 0) {
      *status = kErrInvalidArgs;
      return 0;
    }
    uint32_t r = 0;
    if constexpr (kUsesWindow) {
      Direct d;
      if (direct(d) && alloc_in(d, size, align, status, &r)) return r;
    }
    return alloc_checked(size, align, status);
  }

  // xmem_heap_free: the block is found by its aligned pointer on the alloc list.
  int32_t free(uint32_t ptr) {
    p_.compute(cost_.call_cycles);
    if (ptr == 0) return kErrPtrOutOfBounds;
    int32_t r = kOk;
    if constexpr (kUsesWindow) {
      Direct d;
      if (direct(d) && free_in(d, ptr, &r)) return r;
    }
    return free_checked(ptr);
  }

  // xmem_heap_get_free_space. `align` 0 is undefined in the firmware (a shift by -1); the
  // model answers kErrIllegalAlign and 0 (assumption). A non-power-of-two alignment uses its
  // most significant bit, as the NSA-based xmem_find_msbit does.
  uint32_t get_free_space(uint32_t align, FreeSpaceQual qual, uint32_t* start = nullptr,
                          uint32_t* end = nullptr, int32_t* status = nullptr) {
    p_.compute(cost_.call_cycles);
    if (align == 0) {
      if (status) *status = kErrIllegalAlign;
      return 0;
    }
    const uint32_t shift = msbit(align);
    const uint32_t tail = m_ + mgr::kFreeListTail;
    uint32_t curr = ld(m_ + mgr::kFreeListHead + blk::kNext);
    uint32_t prev = 0;
    uint32_t r = 0, s = 0, e = 0;
    auto usable = [&](uint32_t b) {
      return ld(b + blk::kBlockSize) - slack(ld(b + blk::kBuffer), align, shift);
    };
    auto span = [&](uint32_t b, uint32_t n) {
      const uint32_t top = ld(b + blk::kBuffer) + ld(b + blk::kBlockSize);
      s = top - n;
      e = top - 1;
    };
    if (qual == FreeSpaceQual::kStart && curr != tail) {
      r = usable(curr);
      span(curr, r);
    } else {
      uint32_t guard = walk_bound(ld(m_ + mgr::kNumBlocks));
      while (curr != tail) {
        p_.compute(cost_.step_cycles);
        if (--guard == 0) throw HeapCorrupted(corrupt_msg("free list"));
        const uint32_t n = usable(curr);
        if (n > r) {
          r = n;
          span(curr, n);
        }
        prev = curr;
        curr = ld(curr + blk::kNext);
      }
      if (qual == FreeSpaceQual::kEnd && prev != 0) {
        const uint32_t last = ld(prev + blk::kBuffer) + ld(prev + blk::kBlockSize) - 1;
        if (last == ld(m_ + mgr::kBuffer) + ld(m_ + mgr::kBufferSize) - 1) {
          r = usable(prev);
          span(prev, r);
        } else {
          r = s = e = 0;
        }
      }
    }
    if (start) *start = s;
    if (end) *end = e;
    if (status) *status = kOk;
    return r;
  }

  Counters counters() {
    Counters c;
    c.buffer = ld(m_ + mgr::kBuffer);
    c.buffer_size = ld(m_ + mgr::kBufferSize);
    c.free_bytes = ld(m_ + mgr::kFreeBytes);
    c.allocated_bytes = ld(m_ + mgr::kAllocatedBytes);
    c.unused_bytes = ld(m_ + mgr::kUnusedBytes);
    c.blocks = ld(m_ + mgr::kBlocks);
    c.num_blocks = ld(m_ + mgr::kNumBlocks);
    c.bitvec = ld(m_ + mgr::kBlockFreeBitvec);
    const uint32_t w = ld(m_ + mgr::kHeaderSize);
    c.header_size = static_cast<uint16_t>(w);
    c.has_external_header = static_cast<uint16_t>(w >> 16);
    return c;
  }

  // Descriptors whose bit says "in use" (free blocks plus allocated blocks).
  uint32_t descriptors_used() {
    const uint32_t nb = ld(m_ + mgr::kNumBlocks), bv = ld(m_ + mgr::kBlockFreeBitvec);
    uint32_t used = 0;
    for (uint32_t i = 0; i < nb; ++i) used += ((ld(bv + 4 * (i >> 5)) >> (i & 31)) & 1u) ^ 1u;
    return used;
  }

  // How often an allocation wanted to split (remainder > 4 bytes) but every descriptor was in
  // use, so the remainder was handed out too (the firmware only logs this). Counted by this
  // model object, not stored in device memory.
  uint64_t descriptor_exhaustion_events() const { return descriptor_exhaustion_events_; }

  // Visits the free list in list (address) order, then the alloc list in list order.
  void walk(const std::function<void(const BlockInfo&)>& fn) {
    const Counters c = counters();
    const uint32_t tail = m_ + mgr::kFreeListTail;
    uint32_t guard = walk_bound(ld(m_ + mgr::kNumBlocks));
    for (uint32_t b = ld(m_ + mgr::kFreeListHead + blk::kNext); b != tail;
         b = ld(b + blk::kNext)) {
      if (--guard == 0) throw HeapCorrupted(corrupt_msg("free list"));
      fn(info(b, c, true));
    }
    guard = walk_bound(c.num_blocks);
    for (uint32_t b = ld(m_ + mgr::kAllocListHead + blk::kNext); b != 0; b = ld(b + blk::kNext)) {
      if (--guard == 0) throw HeapCorrupted(corrupt_msg("alloc list"));
      fn(info(b, c, false));
    }
  }

  // The true alignment slack held by live allocations (the firmware counter never drops).
  uint32_t true_unused_bytes() {
    uint32_t sum = 0;
    walk([&](const BlockInfo& b) {
      if (!b.free) sum += b.aligned - b.buffer;
    });
    return sum;
  }

  // Consistency check: an empty result means the heap is well formed. See check.h.
  std::vector<std::string> check();

 private:
  uint32_t ld(uint32_t a) { return p_.load32(a); }
  void st(uint32_t a, uint32_t v) { p_.store32(a, v); }
  void set_block(uint32_t b, uint32_t next, uint32_t size, uint32_t buf, uint32_t aligned) {
    st(b + blk::kNext, next);
    st(b + blk::kBlockSize, size);
    st(b + blk::kBuffer, buf);
    st(b + blk::kAlignedBuffer, aligned);
  }

  // xmem_find_msbit with NSA: index of the most significant set bit (align != 0).
  static uint32_t msbit(uint32_t v) { return 31u - static_cast<uint32_t>(__builtin_clz(v)); }
  // xmem_heap_compute_new_size's slack, from the block's own absolute address, in u32.
  static uint32_t slack(uint32_t buf, uint32_t align, uint32_t shift) {
    const uint32_t aligned = ((buf + align - 1u) >> shift) << shift;
    return aligned - buf;
  }

  // ---- How alloc and free reach device memory --------------------------------------------
  //
  // The algorithm below is written once, on an access policy `A`:
  //  * Checked: every word through the port, which checks (and, on a core, times) it.
  //  * Direct: when the port can show its hot region as a host window (HostMemory::window),
  //    words are plain host loads and stores, and each base address is vouched for once
  //    (`A::vouch`: the whole structure lies in the window) instead of each word. A vouch
  //    that fails makes the step return false ("bail") at a point where it has stored
  //    nothing, and the caller runs the same step Checked from the start. Both policies do
  //    the same loads and stores in the same order on the same bytes, so they give the same
  //    result on any memory contents, corrupted bookkeeping included (a test compares them).
  struct Checked {
    static constexpr bool kMayBail = false;
    Port& p;
    uint32_t ld(uint32_t a) { return p.load32(a); }
    void st(uint32_t a, uint32_t v) { p.store32(a, v); }
    static constexpr bool vouch(uint32_t, uint64_t) { return true; }
    static constexpr bool desc(uint32_t) { return true; }
    static constexpr bool word(uint32_t) { return true; }
    void compute(uint64_t c) { p.compute(c); }
  };
  struct Direct {
    static constexpr bool kMayBail = true;
    typedef uint32_t u32a __attribute__((aligned(1)));
    Port* p;
    uint32_t ld(uint32_t a) const { return *reinterpret_cast<const u32a*>(p->window().bias + a); }
    void st(uint32_t a, uint32_t v) const { *reinterpret_cast<u32a*>(p->window().bias + a) = v; }
    // [a, a + n) lies in the window.
    bool vouch(uint32_t a, uint64_t n) const {
      const uint64_t off = uint64_t{a} - p->window().lo;
      return off <= p->window().span && n <= p->window().span - off;
    }
    // One descriptor, [a, a + 16), lies in the window.
    bool desc(uint32_t a) const { return uint64_t{a} - p->window().lo <= p->window().span - 16; }
    // One word, [a, a + 4), lies in the window.
    bool word(uint32_t a) const { return uint64_t{a} - p->window().lo <= p->window().span - 4; }
    void compute(uint64_t c) { p->compute(c); }
  };

  // A Direct policy over the port's window, when the window can hold the manager and lies
  // in the 32-bit device space (so that a vouched structure's u32 field addresses never
  // wrap, exactly as on the Checked path).
  bool direct(Direct& d) {
    const auto& w = p_.window();
    const uint64_t span = w.span;
    if (span < mgr::kSize || w.lo + span > (uint64_t{1} << 32)) return false;
    d = Direct{&p_};
    return d.vouch(m_, mgr::kSize);
  }
  static bool overlaps(uint64_t a, uint64_t n, uint64_t b, uint64_t m) {
    return a < b + m && b < a + n;
  }

  // The Checked runs, out of line so that the Direct path keeps its registers.
  __attribute__((noinline)) uint32_t alloc_checked(uint32_t size, uint32_t align,
                                                   int32_t* status) {
    Checked c{p_};
    uint32_t r = 0;
    alloc_in(c, size, align, status, &r);
    return r;
  }
  __attribute__((noinline)) int32_t free_checked(uint32_t ptr) {
    Checked c{p_};
    int32_t r = kOk;
    free_in(c, ptr, &r);
    return r;
  }
  __attribute__((noinline)) void add_to_free_list_checked(uint32_t nb, uint32_t nbuf,
                                                          uint32_t nsize) {
    Checked c{p_};
    add_to_free_list(c, nb, nbuf, nsize);
  }

  template <class A>
  bool alloc_in(A& a, uint32_t size, uint32_t align, int32_t* status, uint32_t* out);

  template <class A>
  bool free_in(A& a, uint32_t ptr, int32_t* result);

  // One more step of a list walk, within its bound? Past the bound the Checked policy throws
  // HeapCorrupted; the Direct one answers false, and its caller bails (the Checked rerun
  // throws at the same step).
  template <class A>
  bool walk_on(uint32_t& guard, const char* list) {
    if (--guard != 0) return true;
    if constexpr (!A::kMayBail) throw HeapCorrupted(corrupt_msg(list));
    return false;
  }
  template <class A>
  void add(A& a, uint32_t field, uint32_t delta) {
    a.st(m_ + field, a.ld(m_ + field) + delta);
  }
  template <class A>
  void toggle(A& a, uint32_t bitvec, uint32_t idx) {
    const uint32_t w = bitvec + 4 * (idx >> 5);
    a.st(w, a.ld(w) ^ (1u << (idx & 31)));
  }

  // xmem_heap_add_block_to_free_list: sorted insert with two-sided coalescing.
  template <class A>
  bool add_to_free_list(A& a, uint32_t nb, uint32_t nbuf, uint32_t nsize);

  // A list can never hold more nodes than there are descriptors; a longer walk means the
  // bookkeeping was overwritten. Bounded by a constant so a corrupted num_blocks cannot
  // make it unbounded.
  static uint32_t walk_bound(uint32_t nb) { return (nb < (1u << 24) ? nb : (1u << 24)) + 4; }
  std::string corrupt_msg(const char* list) {
    return std::string("xmem heap at manager ") + hex32(m_) + ": " + list +
           " does not terminate within num_blocks steps (bookkeeping overwritten?)";
  }
  static std::string hex32(uint32_t v);

  BlockInfo info(uint32_t b, const Counters& c, bool is_free) {
    return BlockInfo{b, (b - c.blocks) >> blk::kSizeLog2, ld(b + blk::kBuffer),
                     ld(b + blk::kAlignedBuffer), ld(b + blk::kBlockSize), is_free};
  }

  Port& p_;
  uint32_t m_;
  CostModel cost_;
  uint64_t descriptor_exhaustion_events_ = 0;
};

}  // namespace npusim::alloc::xmem

#include "xmem_alloc.h"
#include "xmem_check.h"
