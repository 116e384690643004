// mul_chain: 256 integer multiplies, each depending on the one before (mul a0, a0, a1). On a
// core that stalls a dependent instruction until the multiplier's result is ready, each costs
// the multiply latency (the snitch_cluster default: 1 issue + 3 stall cycles). Compute core 0
// prints the cycles the block took; the other cores only take part in the barriers.
#include <snrt.h>

#define MULS 256

int main(void) {
  uint32_t cycles = 0, x = 3;
  snrt_cluster_hw_barrier();
  if (snrt_cluster_core_idx() == 0) {
    const uint32_t y = 5;
    const uint32_t start = snrt_mcycle();
    __asm__ volatile(".rept 256\n mul %0, %0, %1\n .endr" : "+r"(x) : "r"(y));
    cycles = snrt_mcycle() - start;
    printf("mul_chain: %d dependent muls in %u cycles (x = %u)\n", MULS, cycles, x);
  }
  snrt_cluster_hw_barrier();
  return 0;
}
