// The Neuron wrappers: ABI semantics, address translation, layout and lint (seed 000 §1, §4, §5).
#include <catch2/catch.hpp>

#include "allocators/memory_port.h"
#include "allocators/neuron/neuron_heaps.h"

using namespace npusim::alloc;
using namespace npusim::alloc::neuron;

namespace {
struct Neuron {
  HostMemory mem;
  NeuronHeaps<HostMemory> heaps;
  explicit Neuron(NeuronLayout l = {}) : heaps((map_regions(mem, l), mem), l) {
    REQUIRE(heaps.init_neuron_hbm_allocator() == 0);
    REQUIRE(heaps.init_neuron_dataram_allocator() == 0);
    REQUIRE(heaps.init_libc_heap_allocator() == 0);
  }
};
}  // namespace

TEST_CASE("neuron default layout: the documented offsets", "[neuron]") {
  NeuronLayout l;
  CHECK(l.dataram_pool() == 0x8042c);
  CHECK(l.dataram_pool_size == 0x4000);
  CHECK(l.dataram_header() == 0x83200);
  CHECK(l.hbm_pool() == 0x80000228u);
  CHECK(l.num_blocks == 32);
  CHECK(l.hbm_mgr() - l.bss() == 0x14);
  CHECK(l.dataram_mgr() - l.bss() == 0x70);
  CHECK(l.libc_mgr() - l.bss() == 0xcc);
}

TEST_CASE("neuron heaps are xmem heaps with 32 descriptors and external headers", "[neuron]") {
  Neuron n;
  for (auto id : {HeapId::kHbm, HeapId::kDataram, HeapId::kLibc}) {
    auto c = n.heaps.heap(id).counters();
    CHECK(c.num_blocks == 32);
    CHECK(c.has_external_header == 1);
    CHECK(c.header_size == 0x204);
    CHECK(n.heaps.heap(id).check().empty());
  }
}

TEST_CASE("neuron_dataram_allocate: align 0 means 64; status 0 / -1", "[neuron]") {
  Neuron n;
  uint32_t p = 1;
  REQUIRE(n.heaps.neuron_dataram_allocate(100, &p, 0) == 0);
  CHECK(p == 0x80440);  // 0x8042c rounded up to 64
  CHECK(n.heaps.heap(HeapId::kDataram).counters().unused_bytes == 0x14);
  uint32_t q = 1;
  REQUIRE(n.heaps.neuron_dataram_allocate(100, &q, 4) == 0);  // non-zero align verbatim
  CHECK(q == 0x804a4);
  CHECK(n.heaps.neuron_dataram_deallocate(q) == 0);
  CHECK(n.heaps.neuron_dataram_deallocate(q) == -1);  // double free
  CHECK(n.heaps.last_xmem_status() == xmem::kErrPtrOutOfBounds);
}

TEST_CASE("neuron_dataram_allocate writes *out_ptr even when it fails", "[neuron]") {
  Neuron n;
  uint32_t p = 0xdeadbeef;
  CHECK(n.heaps.neuron_dataram_allocate(0x5000, &p, 0) == -1);
  CHECK(p == 0);  // NULL stored before the status test
  CHECK(n.heaps.last_xmem_status() == xmem::kErrAllocFailed);
  p = 0xdeadbeef;
  CHECK(n.heaps.neuron_dataram_allocate(16, &p, 3) == -1);  // illegal align
  CHECK(p == 0);
}

TEST_CASE("neuron_hbm_allocate returns 64-bit device addresses", "[neuron]") {
  Neuron n;
  uint64_t a = 0;
  REQUIRE(n.heaps.neuron_hbm_allocate(4096, &a, 0) == 0);
  // Window pointer 0x80000240 (0x80000228 aligned to 64) -> scratch + 0x240.
  CHECK(a == 0x1'0000'0240ull);
  uint64_t b = 0;
  REQUIRE(n.heaps.neuron_hbm_allocate(1, &b, 0) == 0);
  CHECK(b == 0x1'0000'1240ull);
  CHECK(n.heaps.neuron_hbm_deallocate(a) == 0);
  CHECK(n.heaps.neuron_hbm_deallocate(a) == -1);
  // The wrapper state lives in .bss in device memory.
  CHECK(n.mem.load32(NeuronLayout{}.bss() + 0x10) == 0x80000000u);
  CHECK(n.mem.load32(NeuronLayout{}.bss() + 0x8) == 0x0);
  CHECK(n.mem.load32(NeuronLayout{}.bss() + 0xc) == 0x1);
}

TEST_CASE("neuron_hbm_allocate carries into the high word", "[neuron]") {
  NeuronLayout l;
  l.hbm_scratch = 0x2'ffff'fe00ull;  // low word close to wrapping
  Neuron n(l);
  uint64_t a = 0;
  REQUIRE(n.heaps.neuron_hbm_allocate(64, &a, 0) == 0);
  CHECK(a == 0x3'0000'0040ull);  // 0x2fffffe00 + 0x240
  CHECK(n.heaps.neuron_hbm_deallocate(a) == 0);
}

TEST_CASE("neuron_hbm_allocate leaves *out_addr alone on failure", "[neuron]") {
  Neuron n;
  uint64_t a = 0x1234;
  CHECK(n.heaps.neuron_hbm_allocate(0xffffff00u, &a, 0) == -1);
  CHECK(a == 0x1234);
  CHECK(n.heaps.last_xmem_status() == xmem::kErrAllocFailed);
  CHECK(n.heaps.neuron_hbm_allocate(0, &a, 0) == -1);
  CHECK(n.heaps.last_xmem_status() == xmem::kErrInvalidArgs);
}

TEST_CASE("libc heap wrappers", "[neuron]") {
  Neuron n;
  const uint32_t p = n.heaps.libc_heap_allocate(100, 0);
  CHECK(p == 0x84500);
  CHECK(n.heaps.libc_heap_get_alloc_size(p) == 100);
  CHECK(n.heaps.libc_heap_get_alloc_size(p + 4) == 0);
  CHECK(n.heaps.libc_heap_max_free_space() == 0x8000 - 100);
  CHECK(n.heaps.libc_heap_deallocate(p) == 0);
  CHECK(n.heaps.libc_heap_max_free_space() == 0x8000);
}

TEST_CASE("layout lint: the default dataram header lies inside the dataram pool", "[neuron]") {
  const auto w = lint_layout(NeuronLayout{});
  REQUIRE(w.size() == 1);
  CHECK_THAT(w[0], Catch::Contains("dataram heap header [0x83200, 0x83404)"));
  CHECK_THAT(w[0], Catch::Contains("dataram heap pool [0x8042c, 0x8442c)"));
  NeuronLayout moved;
  moved.dataram_header_offset = 0x4450;
  moved.libc_pool_offset = 0x4700;
  moved.libc_header_offset = 0xc700;
  CHECK(lint_layout(moved).empty());
  NeuronLayout bad;
  bad.libc_pool_offset = 0xc000;  // pool runs over its own header and out of dataram
  const auto wb = lint_layout(bad);
  CHECK(wb.size() == 3);  // plus the default dataram-header warning
}

TEST_CASE("default layout: a large dataram allocation overwrites the heap's own descriptors",
          "[neuron]") {
  Neuron n;
  uint32_t p = 0;
  REQUIRE(n.heaps.neuron_dataram_allocate(0x3000, &p, 0) == 0);
  CHECK(p < 0x83200);
  CHECK(p + 0x3000 > 0x83200);  // the buffer covers the header
  auto& heap = n.heaps.heap(HeapId::kDataram);
  REQUIRE(heap.check().empty());
  std::vector<uint8_t> zeros(0x3000, 0xa5);
  n.mem.write(p, zeros.data(), zeros.size());  // the custom op fills its buffer
  CHECK_FALSE(heap.check().empty());
}
