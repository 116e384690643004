// xmem model on the host port versus glibc malloc/free on the same operation sequence.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <random>
#include <vector>

#include "allocators/memory_port.h"
#include "allocators/xmem/xmem_heap.h"
#include "bench/op_sequence.h"

using namespace npusim::alloc;

namespace {

const OpSequence& seq() { return standard_sequence(); }

void BM_xmem_host_port(benchmark::State& state) {
  HostMemory mem;
  mem.add_region("dataram", 0x80000, 0x10000);
  mem.add_region("pool", 0x10000000, 1 << 20);
  xmem::Heap<HostMemory> heap(mem, 0x80300);
  heap.init(0x10000000, 1 << 20, 32, 0x80000);
  const auto& s = seq();
  std::vector<uint32_t> slot(12);
  for (auto _ : state) {
    s.run(heap, slot);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * s.ops.size());
}
BENCHMARK(BM_xmem_host_port);

// The sequence on glibc: `alloc(bytes)` and std::free.
template <typename Alloc>
void run_glibc(benchmark::State& state, Alloc alloc) {
  const auto& s = seq();
  std::vector<void*> slot(12);
  for (auto _ : state) {
    for (size_t i = 0; i < s.ops.size(); ++i) {
      const int op = s.ops[i];
      if (op >= 0) {
        slot[op] = alloc(s.sizes[i]);
        benchmark::DoNotOptimize(slot[op]);
      } else {
        std::free(slot[-op - 1]);
      }
    }
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * s.ops.size());
}

void BM_glibc_malloc_free(benchmark::State& state) {
  run_glibc(state, [](uint32_t bytes) { return std::malloc(bytes); });
}
BENCHMARK(BM_glibc_malloc_free);

void BM_glibc_aligned_alloc_free(benchmark::State& state) {
  run_glibc(state, [](uint32_t bytes) { return std::aligned_alloc(16, (bytes + 15) & ~15u); });
}
BENCHMARK(BM_glibc_aligned_alloc_free);

// A plain-C-style first-fit coalescing heap with native pointers and out-of-band descriptors,
// written for this benchmark to stand in for "the firmware's C xmem compiled for the host":
// same algorithm and data layout ideas, no memory port, no device addresses. It tells what
// the modelling layer (port + device-resident bookkeeping) costs.
namespace native {
struct Block {
  Block* next;
  uint32_t size;
  uintptr_t buf, aligned;
};
struct Heap {
  Block head{}, tail{}, ahead{};
  Block blocks[32];
  uint32_t freebits = 0;
  void init(uintptr_t pool, uint32_t size) {
    tail = {nullptr, 0xffffffffu, ~uintptr_t{0}, ~uintptr_t{0}};
    blocks[0] = {&tail, size, pool, pool};
    head.next = &blocks[0];
    ahead.next = nullptr;
    freebits = 0xfffffffeu;
  }
  static uint32_t slack(uintptr_t b, uint32_t a) { return static_cast<uint32_t>(((b + a - 1) & ~uintptr_t(a - 1)) - b); }
  uintptr_t alloc(uint32_t size, uint32_t align) {
    Block* prev = &head;
    Block* c = head.next;
    uint32_t need = size + slack(c->buf, align);
    while (c->size < need) {
      prev = c;
      c = c->next;
      need = size + slack(c->buf, align);
    }
    if (c == &tail) return 0;
    c->aligned = c->buf + need - size;
    if (c->size - need > 4 && freebits) {
      const int idx = __builtin_ctz(freebits);
      freebits ^= 1u << idx;
      Block* r = &blocks[idx];
      *r = {c->next, c->size - need, c->buf + need, c->buf + need};
      c->size = need;
      prev->next = r;
    } else {
      prev->next = c->next;
    }
    c->next = ahead.next;
    ahead.next = c;
    return c->aligned;
  }
  void release(uintptr_t p) {
    Block* prev = &ahead;
    Block* b = ahead.next;
    while (b && b->aligned != p) { prev = b; b = b->next; }
    if (!b) return;
    prev->next = b->next;
    Block* at = &head;
    while (at->next->buf < b->buf) at = at->next;
    bool merged = false;
    if (at != &head && at->buf + at->size == b->buf) {
      at->size += b->size;
      freebits ^= 1u << (b - blocks);
      b = at;
      merged = true;
    }
    Block* n = at->next;
    if (n != &tail && b->buf + b->size == n->buf) {
      freebits ^= 1u << (n - blocks);
      b->size += n->size;
      b->next = n->next;
      if (!merged) at->next = b;
      merged = true;
    }
    if (!merged) { b->next = at->next; at->next = b; }
  }
};
}  // namespace native

void BM_native_c_style_heap(benchmark::State& state) {
  static std::vector<uint8_t> pool(1 << 20);
  native::Heap heap;
  heap.init(reinterpret_cast<uintptr_t>(pool.data()), 1 << 20);
  const auto& s = seq();
  std::vector<uintptr_t> slot(12);
  for (auto _ : state) {
    for (size_t i = 0; i < s.ops.size(); ++i) {
      const int op = s.ops[i];
      if (op >= 0) slot[op] = heap.alloc(s.sizes[i], 16);
      else heap.release(slot[-op - 1]);
    }
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * s.ops.size());
}
BENCHMARK(BM_native_c_style_heap);

}  // namespace

BENCHMARK_MAIN();
