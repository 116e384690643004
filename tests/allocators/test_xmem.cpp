// The xmem heap model against the documented firmware behaviour (seed 000 §2-§3).
#include <catch2/catch.hpp>
#include <map>
#include <random>

#include "allocators/memory_port.h"
#include "allocators/xmem/xmem_heap.h"

using namespace npusim::alloc;
using namespace npusim::alloc::xmem;

namespace {

constexpr uint32_t kMgr = 0x50000, kHdr = 0x40000;

// A heap in host memory: pool [base, base+size), external header at 0x40000, manager at 0x50000.
struct Fixture {
  HostMemory mem;
  Heap<HostMemory> heap{mem, kMgr};
  explicit Fixture(uint32_t base = 0x1000, uint32_t size = 0x1000, uint32_t blocks = 32,
                   bool external = true) {
    mem.add_region("pool", base, size);
    mem.add_region("header", kHdr, 0x800);
    mem.add_region("mgr", kMgr, mgr::kSize);
    REQUIRE(heap.init(base, size, blocks, external ? kHdr : 0) == kOk);
    ok();
  }
  void ok() {
    auto errs = heap.check();
    INFO((errs.empty() ? std::string() : errs.front()));
    REQUIRE(errs.empty());
  }
  uint32_t alloc(uint32_t size, uint32_t align, int32_t expect = kOk) {
    int32_t st = 1;
    const uint32_t p = heap.alloc(size, align, &st);
    REQUIRE(st == expect);
    ok();
    return p;
  }
  int32_t free(uint32_t p) {
    const int32_t st = heap.free(p);
    ok();
    return st;
  }
  std::vector<std::pair<uint32_t, uint32_t>> free_list() {
    std::vector<std::pair<uint32_t, uint32_t>> v;
    heap.walk([&](const BlockInfo& b) {
      if (b.free) v.emplace_back(b.buffer, b.size);
    });
    return v;
  }
  uint32_t word(uint32_t addr) { return mem.load32(addr); }
};

using FL = std::vector<std::pair<uint32_t, uint32_t>>;

}  // namespace

TEST_CASE("xmem init with an external header puts the whole pool in descriptor 0", "[xmem]") {
  Fixture f(0x1000, 0x1000, 32);
  // Manager layout, byte for byte (seed 000 §2).
  CHECK(f.word(kMgr + 0) == 0);          // _lock
  CHECK(f.word(kMgr + 4) == 0x1000);     // _buffer
  CHECK(f.word(kMgr + 8) == 0x1000);     // _buffer_size
  CHECK(f.word(kMgr + 12) == 0x1000);    // _free_bytes
  CHECK(f.word(kMgr + 16) == 0);         // _allocated_bytes
  CHECK(f.word(kMgr + 20) == 0);         // _unused_bytes
  CHECK(f.word(kMgr + 24) == kHdr);      // _free_list_head._next_block = &blocks[0]
  CHECK(f.word(kMgr + 28) == 0);         // head size
  CHECK(f.word(kMgr + 32) == 0);         // head buffer
  CHECK(f.word(kMgr + 40) == 0);         // _free_list_tail._next_block
  CHECK(f.word(kMgr + 44) == 0xffffffff);// tail size
  CHECK(f.word(kMgr + 48) == 0xffffffff);// tail buffer
  CHECK(f.word(kMgr + 56) == 0);         // _alloc_list_head._next_block
  CHECK(f.word(kMgr + 72) == kHdr);      // _blocks
  CHECK(f.word(kMgr + 76) == 32);        // _num_blocks
  CHECK(f.word(kMgr + 80) == kHdr + 32 * 16);  // _block_free_bitvec after blocks[32]
  CHECK(f.word(kMgr + 84) == (0x204u | (1u << 16)));  // _header_size 0x204, external 1
  // Descriptor 0: {next = &tail, size, buffer, aligned}.
  CHECK(f.word(kHdr + 0) == kMgr + 40);
  CHECK(f.word(kHdr + 4) == 0x1000);
  CHECK(f.word(kHdr + 8) == 0x1000);
  CHECK(f.word(kHdr + 12) == 0x1000);
  CHECK(f.word(kHdr + 32 * 16) == 0xfffffffe);  // bit set = free; descriptor 0 in use
  CHECK(f.heap.descriptors_used() == 1);
}

TEST_CASE("xmem init without a header uses 64 descriptors at the start of the pool", "[xmem]") {
  HostMemory mem;
  mem.add_region("pool", 0x1000, 0x1000);
  mem.add_region("mgr", kMgr, mgr::kSize);
  Heap<HostMemory> h(mem, kMgr);
  REQUIRE(h.init(0x1000, 0x1000, 7 /* ignored */, 0) == kOk);
  const auto c = h.counters();
  CHECK(c.num_blocks == 64);
  CHECK(c.header_size == 64 * 16 + 8);
  CHECK(c.has_external_header == 0);
  CHECK(c.allocated_bytes == 1032);
  CHECK(c.unused_bytes == 1032);
  CHECK(c.free_bytes == 0x1000 - 1032);
  CHECK(mem.load32(0x1000 + 64 * 16) == 0xfffffffc);
  CHECK(mem.load32(0x1000 + 64 * 16 + 4) == 0xffffffff);
  CHECK(h.check().empty());
  int32_t st;
  CHECK(h.alloc(16, 1, &st) == 0x1000 + 1032);
  // Quirk: the header block sits on the alloc list under the pool's base address, so
  // freeing the pool base "frees" the header.
  CHECK(h.free(0x1000) == kOk);
  CHECK(h.check().empty());
  // A pool too small for header + 4 bytes is refused.
  CHECK(h.init(0x1000, 1035, 0, 0) == kErrPoolSize);
  CHECK(h.init(0x1000, 1036, 0, 0) == kOk);
}

TEST_CASE("xmem init argument checks", "[xmem]") {
  HostMemory mem;
  mem.add_region("all", 0x1000, 0x8000);
  Heap<HostMemory> h(mem, 0x7000);
  CHECK(h.init(0x1000, 3, 32, 0x6000) == kErrPoolSize);
  CHECK(h.init(0x1000, 4, 32, 0x6000) == kOk);
  CHECK(h.init(0x1000, 0x100, 0, 0x6000) == kErrInvalidArgs);
  CHECK(h.init(0x1000, 2, 0, 0x6000) == kErrPoolSize);  // the pool size check comes first
  CHECK(h.init(0, 0x100, 32, 0x6000) == kErrInvalidArgs);  // NULL pool
}

TEST_CASE("xmem alloc checks alignment before size and never aborts", "[xmem]") {
  Fixture f;
  f.alloc(16, 0, kErrIllegalAlign);
  f.alloc(16, 3, kErrIllegalAlign);
  f.alloc(0, 3, kErrIllegalAlign);
  f.alloc(0, 4, kErrInvalidArgs);
  CHECK(f.alloc(0x1001, 1, kErrAllocFailed) == 0);
  CHECK(f.heap.counters().free_bytes == 0x1000);
}

TEST_CASE("xmem first fit keeps the alignment slack at the front of the block", "[xmem]") {
  Fixture f(0x1000, 0x1000);
  CHECK(f.alloc(10, 1) == 0x1000);   // odd sizes are not rounded
  CHECK(f.alloc(10, 16) == 0x1010);  // block starts at 0x100a, slack 6
  auto c = f.heap.counters();
  CHECK(c.unused_bytes == 6);
  CHECK(c.allocated_bytes == 10 + 16);
  CHECK(f.free_list() == FL{{0x101a, 0x1000 - 26}});
  CHECK(f.alloc(1, 1) == 0x101a);
}

TEST_CASE("xmem slack is computed from the block's absolute address", "[xmem]") {
  Fixture f(0x1001, 0x800);
  CHECK(f.alloc(8, 8) == 0x1008);  // slack 7 from the odd pool base
  CHECK(f.heap.counters().unused_bytes == 7);
  CHECK(f.free_list() == FL{{0x1010, 0x800 - 15}});
}

TEST_CASE("xmem splits only when more than 4 bytes remain", "[xmem]") {
  SECTION("remainder 4: the whole block is handed out") {
    Fixture f(0x1000, 0x100);
    CHECK(f.alloc(0x100 - 4, 1) == 0x1000);
    CHECK(f.free_list().empty());
    CHECK(f.heap.counters().allocated_bytes == 0x100);
    CHECK(f.heap.descriptors_used() == 1);
  }
  SECTION("remainder 5: split, the remainder stays free") {
    Fixture f(0x1000, 0x100);
    CHECK(f.alloc(0x100 - 5, 1) == 0x1000);
    CHECK(f.free_list() == FL{{0x10fb, 5}});
    CHECK(f.heap.descriptors_used() == 2);
  }
}

TEST_CASE("xmem remainder takes the lowest free descriptor", "[xmem]") {
  Fixture f(0x1000, 0x1000);
  const uint32_t a = f.alloc(16, 1);  // remainder -> descriptor 1
  const uint32_t b = f.alloc(16, 1);  // remainder -> descriptor 2
  f.alloc(16, 1);                     // remainder -> descriptor 3
  CHECK(f.word(kMgr + 24) == kHdr + 3 * 16);
  CHECK(f.free(b) == kOk);  // isolated: descriptor 1 (b's block) joins the free list
  CHECK(f.free(a) == kOk);  // merges right into b's block: descriptor 1 is released? no:
  // a (descriptor 0) absorbs b's block (descriptor 1), which goes back to the bit-vector.
  CHECK((f.word(kHdr + 32 * 16) & 0x2u) == 0x2u);
  f.alloc(8, 1);  // splits descriptor 0's block; remainder takes descriptor 1 again
  CHECK(f.word(kMgr + 24) == kHdr + 1 * 16);
}

TEST_CASE("xmem descriptor exhaustion hands out whole blocks", "[xmem]") {
  Fixture f(0x1000, 0x1000, 2);
  CHECK(f.alloc(16, 1) == 0x1000);  // uses descriptor 1 for the remainder
  CHECK(f.heap.descriptors_used() == 2);
  CHECK(f.alloc(16, 1) == 0x1010);  // no descriptor: the whole rest goes to this request
  CHECK(f.heap.descriptor_exhaustion_events() == 1);
  CHECK(f.free_list().empty());
  CHECK(f.heap.counters().allocated_bytes == 0x1000);
  f.alloc(1, 1, kErrAllocFailed);
}

TEST_CASE("xmem 32 descriptors: about 16 splits before the splitter runs dry", "[xmem]") {
  Fixture f(0x1000, 0x1000, 32);
  std::vector<uint32_t> p;
  for (int i = 0; i < 31; ++i) p.push_back(f.alloc(16, 1));
  CHECK(f.heap.descriptors_used() == 32);
  CHECK(f.heap.descriptor_exhaustion_events() == 0);
  // Free every other one (not the last, which would merge with the free remainder):
  // isolated frees keep their descriptors, nothing coalesces.
  for (int i = 0; i < 30; i += 2) f.free(p[i]);
  CHECK(f.free_list().size() == 16);
  CHECK(f.heap.descriptors_used() == 32);
  const uint32_t before = f.heap.counters().allocated_bytes;
  CHECK(f.alloc(8, 1) == p[0]);  // fits the first hole; no descriptor for its 8-byte remainder
  CHECK(f.heap.descriptor_exhaustion_events() == 1);
  CHECK(f.heap.counters().allocated_bytes == before + 16);  // the whole hole is handed out
}

TEST_CASE("xmem free coalesces with both neighbours at once", "[xmem]") {
  Fixture f(0x1000, 0x100);
  const uint32_t a = f.alloc(0x10, 1), b = f.alloc(0x10, 1), c = f.alloc(0x10, 1);
  f.alloc(0x10, 1);
  CHECK(f.free(a) == kOk);
  CHECK(f.free(c) == kOk);
  CHECK(f.free_list() == FL{{0x1000, 0x10}, {0x1020, 0x10}, {0x1040, 0xc0}});
  const uint32_t used = f.heap.descriptors_used();
  CHECK(f.free(b) == kOk);  // merges a + b + c
  CHECK(f.free_list() == FL{{0x1000, 0x30}, {0x1040, 0xc0}});
  CHECK(f.heap.descriptors_used() == used - 2 + 0);  // b's and c's descriptors released
}

TEST_CASE("xmem free rejects anything but a live aligned pointer with -97", "[xmem]") {
  Fixture f(0x1000, 0x1000);
  const uint32_t p = f.alloc(10, 16);  // block 0x1000, aligned 0x1000
  const uint32_t q = f.alloc(10, 16);  // block 0x100a, aligned 0x1010
  CHECK(q == 0x1010);
  CHECK(f.free(0) == kErrPtrOutOfBounds);           // NULL
  CHECK(f.free(p + 4) == kErrPtrOutOfBounds);       // interior
  CHECK(f.free(0x100a) == kErrPtrOutOfBounds);      // the block's unaligned start
  CHECK(f.free(0x9000) == kErrPtrOutOfBounds);      // outside the pool
  CHECK(f.free(q) == kOk);
  CHECK(f.free(q) == kErrPtrOutOfBounds);           // double free
}

TEST_CASE("xmem _unused_bytes counts the slack again on free, as the firmware does", "[xmem]") {
  Fixture f(0x1000, 0x1000);
  f.alloc(10, 1);
  const uint32_t q = f.alloc(10, 16);  // slack 6
  CHECK(f.heap.counters().unused_bytes == 6);
  CHECK(f.heap.true_unused_bytes() == 6);
  f.free(q);
  CHECK(f.heap.counters().unused_bytes == 12);  // firmware: -= (buffer - aligned)
  CHECK(f.heap.true_unused_bytes() == 0);
  REQUIRE(f.heap.init(0x1000, 0x1000, 32, kHdr) == kOk);
  CHECK(f.heap.counters().unused_bytes == 0);  // only init resets it
}

TEST_CASE("xmem get_free_space MAX, START and END", "[xmem]") {
  Fixture f(0x1000, 0x1000);
  const uint32_t a = f.alloc(0x100, 1);
  f.alloc(0x10, 1);
  const uint32_t c = f.alloc(0x300, 1);
  f.alloc(0x10, 1);
  f.free(a);
  f.free(c);
  // Free list: [0x1000,+0x100) [0x1110,+0x300) [0x1420,+0xbe0) which reaches the pool end.
  uint32_t s = 0, e = 0;
  CHECK(f.heap.get_free_space(1, FreeSpaceQual::kMax, &s, &e) == 0xbe0);
  CHECK(s == 0x1420);
  CHECK(e == 0x1fff);
  CHECK(f.heap.get_free_space(1, FreeSpaceQual::kStart) == 0x100);
  CHECK(f.heap.get_free_space(0x100, FreeSpaceQual::kStart) == 0x100);
  CHECK(f.heap.get_free_space(0x200, FreeSpaceQual::kMax) == 0xbe0 - 0x1e0);  // 0x1420 -> 0x1600
  CHECK(f.heap.get_free_space(1, FreeSpaceQual::kEnd) == 0xbe0);
  // Allocate the tail away: the last free block no longer ends at the pool end -> 0.
  f.alloc(0xbe0, 1);
  CHECK(f.heap.get_free_space(1, FreeSpaceQual::kEnd) == 0);
  CHECK(f.heap.get_free_space(1, FreeSpaceQual::kMax) == 0x300);
}

TEST_CASE("xmem get_free_space wraps when a block is smaller than its slack", "[xmem]") {
  Fixture f(0x1001, 0x100);
  f.alloc(0x100 - 8, 1);  // leaves [0x10f9, +8)
  // With align 0x100 the 8-byte block at 0x10f9 needs 7 bytes of slack: usable 1.
  CHECK(f.heap.get_free_space(0x100, FreeSpaceQual::kMax) == 1);
  // With align 0x1000 the slack (0xf07) exceeds the block: u32 wrap-around.
  CHECK(f.heap.get_free_space(0x1000, FreeSpaceQual::kMax) == static_cast<uint32_t>(8 - 0xf07));
  int32_t st = 0;
  CHECK(f.heap.get_free_space(0, FreeSpaceQual::kMax, nullptr, nullptr, &st) == 0);
  CHECK(st == kErrIllegalAlign);
}

TEST_CASE("xmem need = size + slack wraps in 32 bits and 'succeeds' on a tiny block", "[xmem]") {
  Fixture f(0x1001, 0x100);
  int32_t st;
  // slack 0x3f from 0x1001 to 0x1040; 0xffffffd0 + 0x3f wraps to 0xf.
  const uint32_t p = f.heap.alloc(0xffffffd0u, 64, &st);
  CHECK(st == kOk);
  CHECK(p == 0x1040);
  BlockInfo got{};
  f.heap.walk([&](const BlockInfo& b) {
    if (!b.free) got = b;
  });
  CHECK(got.size == 0xf);
  // The checker sees what the firmware does not: the user pointer lies past its block.
  CHECK_FALSE(f.heap.check().empty());
}

TEST_CASE("xmem corrupted bookkeeping is reported, not looped on", "[xmem]") {
  Fixture f(0x1000, 0x1000);
  f.alloc(16, 1);
  // Point the free block's next at itself: the firmware would spin forever.
  const uint32_t blk1 = kHdr + 16;
  f.mem.store32(blk1 + blk::kNext, blk1);
  f.mem.store32(blk1 + blk::kBlockSize, 1);
  int32_t st;
  CHECK_THROWS_AS(f.heap.alloc(64, 1, &st), HeapCorrupted);
  CHECK_FALSE(f.heap.check().empty());
}

TEST_CASE("xmem charges its list walk to the port", "[xmem]") {
  Fixture f(0x1000, 0x1000);
  std::vector<uint32_t> p;
  for (int i = 0; i < 8; ++i) p.push_back(f.alloc(16, 1));
  for (int i = 0; i < 8; i += 2) f.free(p[i]);
  const uint64_t before = f.mem.compute_cycles();
  f.alloc(64, 1);  // walks past 4 small free blocks to the big one
  const uint64_t walk = f.mem.compute_cycles() - before;
  const uint64_t before2 = f.mem.compute_cycles();
  f.alloc(8, 1);  // first block fits
  const uint64_t direct = f.mem.compute_cycles() - before2;
  CHECK(walk == direct + 4 * CostModel{}.step_cycles);
}

TEST_CASE("xmem seeded stress: patterns survive, invariants hold after every op", "[xmem][stress]") {
  for (uint32_t seed : {1u, 2u, 3u, 42u}) {
    for (uint32_t base : {0x1000u, 0x1003u}) {
      Fixture f(base, 0x4000, seed % 2 ? 32 : 8);
      std::mt19937 rng(seed);
      std::map<uint32_t, std::pair<uint32_t, uint8_t>> live;  // ptr -> size, pattern
      uint64_t ok_allocs = 0, frees = 0;
      for (int i = 0; i < 3000; ++i) {
        if (live.empty() || rng() % 100 < 55) {
          const uint32_t size = 1 + rng() % 700;
          const uint32_t align = 1u << (rng() % 8);
          int32_t st;
          const uint32_t p = f.heap.alloc(size, align, &st);
          REQUIRE((st == kOk || st == kErrAllocFailed));
          if (st == kOk) {
            REQUIRE(p % align == 0);
            const uint8_t pat = static_cast<uint8_t>(rng());
            std::vector<uint8_t> fill(size, pat);
            f.mem.write(p, fill.data(), size);
            live[p] = {size, pat};
            ++ok_allocs;
          }
        } else {
          auto it = live.begin();
          std::advance(it, rng() % live.size());
          std::vector<uint8_t> got(it->second.first);
          f.mem.read(it->first, got.data(), got.size());
          REQUIRE(std::all_of(got.begin(), got.end(),
                              [&](uint8_t b) { return b == it->second.second; }));
          REQUIRE(f.heap.free(it->first) == kOk);
          live.erase(it);
          ++frees;
        }
        auto errs = f.heap.check();
        INFO("seed " << seed << " op " << i << ": " << (errs.empty() ? "" : errs.front()));
        REQUIRE(errs.empty());
      }
      CHECK(ok_allocs > 500);
      CHECK(frees > 500);
      for (auto& [p, sp] : live) REQUIRE(f.heap.free(p) == kOk);
      // Everything back: one block covering the pool again.
      CHECK(f.free_list() == FL{{base, 0x4000}});
      CHECK(f.heap.descriptors_used() == 1);
    }
  }
}
