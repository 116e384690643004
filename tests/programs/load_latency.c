// Timing responds to code: a chain of dependent loads (a pointer ring) costs what its memory
// answers. Core 0 walks a ring in the TCDM, then one in L3, and prints the cycles per load
// (mcycle comes from the model). It returns 0 when an L3 load costs more than twice a TCDM
// load, else 1. Build: npusim cc -o load_latency.elf tests/programs/load_latency.c
#include <snrt.h>

#define RING 32
#define STEPS 512

static uint32_t l3_ring[RING];  // .bss: in L3

static uint32_t walk(uint32_t *start) {
  uint32_t *p = start;
  for (int i = 0; i < STEPS; ++i) p = (uint32_t *)*p;
  return (uint32_t)p;
}

int main(void) {
  uint32_t *tcdm_ring = (uint32_t *)snrt_l1_alloc_cluster_local(RING * sizeof(uint32_t), 8);
  if (snrt_cluster_core_idx() != 0) return 0;
  for (int i = 0; i < RING; ++i) {
    tcdm_ring[i] = (uint32_t)&tcdm_ring[(i + 1) % RING];
    l3_ring[i] = (uint32_t)&l3_ring[(i + 1) % RING];
  }
  const uint32_t t0 = snrt_mcycle();
  const uint32_t a = walk(tcdm_ring);
  const uint32_t t1 = snrt_mcycle();
  const uint32_t b = walk(l3_ring);
  const uint32_t t2 = snrt_mcycle();
  const uint32_t tcdm = (t1 - t0) / STEPS, l3 = (t2 - t1) / STEPS;
  printf("tcdm load %u cycles, l3 load %u cycles (ended at %x, %x)\n", tcdm, l3, a, b);
  return l3 > 2 * tcdm ? 0 : 1;
}
