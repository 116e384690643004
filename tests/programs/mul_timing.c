// Timing responds to code: 256 dependent multiplies (each needs the one before) against 256
// independent ones, timed with mcycle on compute core 0. On the snitch_cluster default a
// dependent instruction after mul stalls 3 cycles, so the chain should cost about 4 cycles per
// multiply and the independent block about 1. Returns 0 when both hold (within 10 %).
// Build: npusim cc -o mul_timing.elf tests/programs/mul_timing.c
#include <snrt.h>

int main(void) {
  if (snrt_cluster_core_idx() != 0) return 0;
  uint32_t x = 3, a = 1, b = 2, c = 3, d = 4;
  const uint32_t y = 5;
  const uint32_t t0 = snrt_mcycle();
  __asm__ volatile(".rept 256\n mul %0, %0, %1\n .endr" : "+r"(x) : "r"(y));
  const uint32_t t1 = snrt_mcycle();
  __asm__ volatile(".rept 64\n mul %0, %4, %4\n mul %1, %4, %4\n mul %2, %4, %4\n mul %3, %4, %4\n .endr"
                   : "=&r"(a), "=&r"(b), "=&r"(c), "=&r"(d)
                   : "r"(y));
  const uint32_t t2 = snrt_mcycle();
  const uint32_t chain = t1 - t0, independent = t2 - t1;
  printf("256 dependent muls: %u cycles; 256 independent muls: %u cycles (%u %u)\n", chain, independent,
         x, a + b + c + d);
  const int ok = chain * 10 >= 256 * 4 * 9 && chain * 10 <= 256 * 4 * 11 && independent * 10 <= 256 * 11;
  return ok ? 0 : 1;
}
