// The xmem heap's two ways to reach device memory must be indistinguishable: the Direct path
// (HostMemory's window, one check per structure, bail-and-rerun when a check fails) and the
// Checked path (every word through the port). The same operations, on the same layout, with
// the same corruptions of the bookkeeping, must give the same results, the same exceptions,
// the same compute charges and the same bytes in every region.
#include <catch2/catch.hpp>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "allocators/memory_port.h"
#include "allocators/xmem/xmem_heap.h"

using namespace npusim::alloc;
using namespace npusim::alloc::xmem;

namespace {

// HostMemory without a window: the heap can only take the Checked path.
struct WordsOnly {
  HostMemory& m;
  uint32_t load32(uint64_t a) { return m.load32(a); }
  void store32(uint64_t a, uint32_t v) { m.store32(a, v); }
  void read(uint64_t a, void* d, size_t n) { m.read(a, d, n); }
  void write(uint64_t a, const void* s, size_t n) { m.write(a, s, n); }
  void compute(uint64_t c) { m.compute(c); }
};
static_assert(!Heap<WordsOnly>::kUsesWindow && Heap<HostMemory>::kUsesWindow);

// One layout: where the hot region is, and where the manager and header sit in it or not.
struct Layout {
  const char* name;
  uint32_t hot_base, hot_size;  // "dataram": the hot region
  uint32_t mgr, header;         // header 0: at the pool start
  uint32_t pool, pool_size, blocks;
};

// What an operation did: its value, or the exception it threw.
struct Outcome {
  int64_t value = 0;
  int32_t status = 0;
  std::string error;
  bool operator==(const Outcome& o) const {
    return value == o.value && status == o.status && error == o.error;
  }
};
std::ostream& operator<<(std::ostream& os, const Outcome& o) {
  return os << "{value " << o.value << ", status " << o.status << ", error '" << o.error << "'}";
}

template <class F>
Outcome attempt(F&& f) {
  Outcome o;
  try {
    f(o);
  } catch (const HeapCorrupted& e) {
    o.error = std::string("HeapCorrupted: ") + e.what();
  } catch (const MemoryError& e) {
    o.error = std::string("MemoryError: ") + e.what();
  }
  return o;
}

struct Twin {
  HostMemory direct_mem, checked_mem;
  WordsOnly words{checked_mem};
  Heap<HostMemory> direct;
  Heap<WordsOnly> checked;
  explicit Twin(const Layout& l) : direct(direct_mem, l.mgr), checked(words, l.mgr) {
    for (HostMemory* m : {&direct_mem, &checked_mem}) {
      m->add_region("dataram", l.hot_base, l.hot_size);
      m->add_region("pool", l.pool, l.pool_size + 0x1000);  // room for a manager after the heap
      m->set_hot(l.hot_base);
    }
    const int32_t a = direct.init(l.pool, l.pool_size, l.blocks, l.header);
    const int32_t b = checked.init(l.pool, l.pool_size, l.blocks, l.header);
    REQUIRE(a == kOk);
    REQUIRE(b == kOk);
  }
  // Runs `op` on both heaps; returns what the Direct one did.
  template <class Op>
  Outcome both(const char* what, Op op) {
    const Outcome d = attempt([&](Outcome& o) { op(direct, o); });
    const Outcome c = attempt([&](Outcome& o) { op(checked, o); });
    INFO(what);
    REQUIRE(d == c);
    REQUIRE(direct_mem.compute_cycles() == checked_mem.compute_cycles());
    REQUIRE(direct.descriptor_exhaustion_events() == checked.descriptor_exhaustion_events());
    return d;
  }
  void same_bytes() {
    for (size_t r = 0; r < direct_mem.regions().size(); ++r) {
      const auto& a = direct_mem.regions()[r];
      const auto& b = checked_mem.regions()[r];
      // (memcmp, not std::equal: one call per region, not one per byte, in the sanitizer build)
      REQUIRE(std::memcmp(a.bytes, b.bytes, a.size) == 0);
    }
  }
  void poke(uint32_t addr, uint32_t v) {
    const Outcome d = attempt([&](Outcome&) { direct_mem.store32(addr, v); });
    const Outcome c = attempt([&](Outcome&) { checked_mem.store32(addr, v); });
    REQUIRE(d == c);
  }
};

}  // namespace

TEST_CASE("xmem Direct and Checked paths agree, healthy and corrupted", "[xmem][paths]") {
  const Layout layouts[] = {
      // The replay/bench layout: manager and external header in the hot dataram.
      {"header in the hot region", 0x80000, 0x10000, 0x80300, 0x80000, 0x10000000, 0x4000, 32},
      // Header at the pool start: descriptors outside the window, every walk bails.
      {"header in the pool", 0x80000, 0x10000, 0x80300, 0, 0x10000000, 0x4000, 64},
      // Manager outside the window: the Direct path is never taken.
      {"manager in the pool", 0x80000, 0x10000, 0x10003f00, 0x80000, 0x10000000, 0x3f00, 32},
      // A window that ends right after the header: descriptors straddle its edge when
      // corrupted, and the pool follows the window without a gap.
      {"tight window", 0x7fc00, 0x400, 0x7fc00, 0x7fc58, 0x80000, 0x4000, 32},
  };
  for (const Layout& l : layouts) {
    for (uint32_t seed = 1; seed <= 24; ++seed) {
      INFO(l.name << ", seed " << seed);
      Twin t(l);
      std::mt19937 rng(seed);
      std::vector<uint32_t> live;
      const uint32_t hdr = l.header ? l.header : l.pool;
      const uint32_t hdr_bytes = static_cast<uint32_t>(header_bytes(l.header ? l.blocks : 64));
      // Values a corruption writes: pointers into the header, the manager, the window's
      // edges, the pool, unmapped space, and plain numbers.
      auto wild = [&]() -> uint32_t {
        switch (rng() % 9) {
          case 0: return hdr + 16 * (rng() % 40) + (rng() % 4 == 0 ? rng() % 16 : 0);
          case 1: return l.mgr + rng() % mgr::kSize;
          case 2: return l.hot_base + l.hot_size - 4 * (1 + rng() % 6);
          case 3: return l.pool + rng() % l.pool_size;
          case 4: return 0x20000000u + rng() % 0x1000;  // unmapped
          case 5: return 0xfffffff0u + rng() % 16;
          case 6: return rng() % 64;
          default: return rng();
        }
      };
      // Words a corruption may hit: descriptors, bit-vector, manager fields.
      auto target = [&]() -> uint32_t {
        if (rng() % 3 == 0) return l.mgr + 4 * (rng() % (mgr::kSize / 4));
        return hdr + 4 * (rng() % (hdr_bytes / 4));
      };
      const bool corrupt = seed > 4;  // seeds 1-4 stay healthy
      for (int i = 0; i < 600; ++i) {
        const uint32_t r = rng() % 100;
        if (corrupt && r < 4) {
          t.poke(target(), wild());
        } else if (corrupt && r < 5) {
          // The manager's bit-vector or descriptor-array pointer aimed at the manager
          // itself, so that the bit-vector and descriptor stores hit those fields.
          t.poke(l.mgr + (rng() % 2 ? mgr::kBlockFreeBitvec : mgr::kBlocks),
                 l.mgr + rng() % mgr::kSize);
        } else if (r < 50 || live.empty()) {
          const uint32_t size = rng() % 8 == 0 ? rng() : 1 + rng() % 900;
          const uint32_t align = rng() % 16 == 0 ? rng() % 100 : 1u << (rng() % 7);
          const Outcome o = t.both("alloc", [&](auto& h, Outcome& out) {
            out.value = h.alloc(size, align, &out.status);
          });
          if (o.status == kOk && o.error.empty()) live.push_back(static_cast<uint32_t>(o.value));
        } else {
          uint32_t ptr;
          if (rng() % 10 == 0) {
            ptr = wild();
          } else {
            const size_t k = rng() % live.size();
            ptr = live[k];
            live.erase(live.begin() + static_cast<long>(k));
          }
          t.both("free", [&](auto& h, Outcome& o) { o.value = h.free(ptr); });
        }
        if (i % 50 == 0) {
          const uint32_t align = 1u << (rng() % 6);
          t.both("free_space", [&](auto& h, Outcome& o) {
            o.value = h.get_free_space(align, FreeSpaceQual::kMax, nullptr, nullptr, &o.status);
          });
        }
        t.same_bytes();
      }
    }
  }
}

// HostMemory with its window, counting the words that go through the port.
struct Counting {
  HostMemory& m;
  uint64_t words = 0;
  uint32_t load32(uint64_t a) { return ++words, m.load32(a); }
  void store32(uint64_t a, uint32_t v) { ++words, m.store32(a, v); }
  void read(uint64_t a, void* d, size_t n) { m.read(a, d, n); }
  void write(uint64_t a, const void* s, size_t n) { m.write(a, s, n); }
  void compute(uint64_t c) { m.compute(c); }
  HostMemory::Window window() const { return m.window(); }
};

TEST_CASE("xmem Direct path serves a healthy heap on the replay layout", "[xmem][paths]") {
  // The equivalence above means nothing if the Direct path never runs: on the layout that
  // the replay and the benchmark use, alloc and free of a healthy heap touch no word
  // through the port; with the header outside the window, every call falls back to it.
  for (const bool header_in_window : {true, false}) {
    HostMemory mem;
    mem.add_region("dataram", 0x80000, 0x10000);
    mem.add_region("pool", 0x10000000, 0x4000);
    mem.set_hot(0x80000);
    Counting port{mem};
    Heap<Counting> h(port, 0x80300);
    REQUIRE(h.init(0x10000000, 0x4000, 32, header_in_window ? 0x80000 : 0) == kOk);
    int32_t st;
    port.words = 0;
    std::vector<uint32_t> p;
    for (uint32_t i = 0; i < 20; ++i) {
      p.push_back(h.alloc(16 + 40 * i, 16, &st));
      REQUIRE(st == kOk);
    }
    for (uint32_t i = 0; i < 20; i += 2) REQUIRE(h.free(p[i]) == kOk);
    for (uint32_t i = 1; i < 20; i += 2) REQUIRE(h.free(p[i]) == kOk);
    if (header_in_window)
      CHECK(port.words == 0);
    else
      CHECK(port.words > 40 * 4);
    CHECK(h.check().empty());
  }
}

TEST_CASE("xmem Direct path: stores that move the manager's own pointers", "[xmem][paths]") {
  // Two corruptions where a store of the alloc commit rewrites a manager field that the
  // commit reads again afterwards to form an address: the Direct path must notice before its
  // first store and leave the call to the Checked path, which follows the rewritten value.
  const Layout l{"replay", 0x80000, 0x10000, 0x80300, 0x80000, 0x10000000, 0x4000, 32};
  const uint32_t m = l.mgr;
  SECTION("the block's aligned-buffer store lands on blocks") {
    Twin t(l);
    // A free "block" at m+60: size at m+64, buffer at m+68, aligned buffer at m+72 (blocks).
    t.poke(m + mgr::kFreeListHead + blk::kNext, m + 60);
    t.poke(m + 64, 0x1000);
    t.poke(m + 68, 0x10000100);
    t.poke(m + 60, m + mgr::kFreeListTail);
    const Outcome o = t.both("alloc", [&](auto& h, Outcome& out) {
      out.value = h.alloc(64, 16, &out.status);
    });
    CHECK(o.status == kOk);
    CHECK(t.checked_mem.load32(m + mgr::kBlocks) == 0x10000100);  // blocks now in the pool
    t.same_bytes();
  }
  SECTION("the bit-vector claim lands on blocks") {
    Twin t(l);
    t.poke(m + mgr::kBlockFreeBitvec, m + mgr::kBlocks);  // word 0 is blocks = 0x80000
    const Outcome o = t.both("alloc", [&](auto& h, Outcome& out) {
      out.value = h.alloc(64, 16, &out.status);
    });
    // bit 19 of 0x80000 claimed: blocks becomes 0, descriptor 19 at 0x130 is unmapped.
    CHECK_THAT(o.error, Catch::Contains("unmapped device address 0x130"));
    t.same_bytes();
  }
}
