// Timing responds to code: the 8 compute cores load 400 words each, either all from one TCDM
// bank (their words 256 B apart: 32 banks of 8 B) or each from its own bank (8 B apart).
// The scenario runs it with the argument "same" or "spread" and checks the bank-conflict stalls.
// Build: npusim cc -o bank_conflicts.elf tests/programs/bank_conflicts.c
#include <snrt.h>

#define LOADS 400

int main(int argc, char **argv) {
  const int spread = argc > 1 && argv[1][0] == 's' && argv[1][1] == 'p';
  uint32_t *buf = (uint32_t *)snrt_l1_alloc_cluster_local(8 * 256, 256);
  const uint32_t core = snrt_cluster_core_idx();
  snrt_cluster_hw_barrier();
  uint32_t sum = 0;
  if (snrt_is_compute_core()) {
    volatile uint32_t *p = buf + (spread ? core * 2 : core * 64);
    for (int i = 0; i < LOADS; ++i) sum += p[0];
  }
  snrt_cluster_hw_barrier();
  return (int)(sum & 0);
}
