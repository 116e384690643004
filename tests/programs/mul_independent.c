// mul_independent: 256 integer multiplies with no dependence between neighbours: eight
// destination registers in turn, all reading the same two sources. A core with a pipelined
// multiplier issues one per cycle. Compute core 0 prints the cycles the block took (compare
// with mul_chain).
#include <snrt.h>

#define MULS 256

int main(void) {
  uint32_t cycles = 0;
  snrt_cluster_hw_barrier();
  if (snrt_cluster_core_idx() == 0) {
    const uint32_t y = 5, z = 7;
    const uint32_t start = snrt_mcycle();
    __asm__ volatile(
        ".rept 32\n"
        " mul t0, %0, %1\n mul t1, %0, %1\n mul t2, %0, %1\n mul t3, %0, %1\n"
        " mul t4, %0, %1\n mul t5, %0, %1\n mul t6, %0, %1\n mul a7, %0, %1\n"
        ".endr"
        :
        : "r"(y), "r"(z)
        : "t0", "t1", "t2", "t3", "t4", "t5", "t6", "a7");
    cycles = snrt_mcycle() - start;
    printf("mul_independent: %d independent muls in %u cycles\n", MULS, cycles);
  }
  snrt_cluster_hw_barrier();
  return 0;
}
