// barrier: the cluster's hardware barrier orders every core. In each of 8 rounds, core i
// first waits i * 50 cycles (so the cores arrive at different times), then writes the round
// number into its slot of a shared array in L1 and notes mcycle, then meets the others at the
// barrier. After it, every core checks that every slot holds this round (no core left the
// barrier before the last one arrived) and that it left no earlier than the last arrival.
// Prints one line per core; returns the number of violations seen (0: the program exits 0).
#include <snrt.h>

#define ROUNDS 8

static void spin_cycles(uint32_t cycles) {
  const uint32_t start = snrt_mcycle();
  while (snrt_mcycle() - start < cycles) {
  }
}

int main(void) {
  const uint32_t core = snrt_cluster_core_idx(), n = snrt_cluster_core_num();
  // Every core makes the same allocations, so every core gets the same addresses.
  volatile uint32_t *slot = (volatile uint32_t *)snrt_l1_alloc_cluster_local(n * sizeof(uint32_t), 4);
  volatile uint32_t *arrived = (volatile uint32_t *)snrt_l1_alloc_cluster_local(n * sizeof(uint32_t), 4);
  int violations = 0;
  for (uint32_t round = 1; round <= ROUNDS; ++round) {
    spin_cycles(core * 50);
    slot[core] = round;
    arrived[core] = snrt_mcycle();
    snrt_cluster_hw_barrier();
    const uint32_t left = snrt_mcycle();
    for (uint32_t i = 0; i < n; ++i) {
      if (slot[i] != round) {
        printf("core %u round %u: core %u's slot holds %u after the barrier\n", core, round, i, slot[i]);
        ++violations;
      }
      if ((int32_t)(left - arrived[i]) < 0) {
        printf("core %u round %u: left at cycle %u, before core %u arrived at %u\n", core, round, left, i,
               arrived[i]);
        ++violations;
      }
    }
    snrt_cluster_hw_barrier();  // nobody writes the next round before everyone has checked
  }
  printf("barrier: core %u passed %d rounds, %d violations\n", core, ROUNDS, violations);
  return violations;
}
