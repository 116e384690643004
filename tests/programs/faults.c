// faults: compute core 0 does what argv[1] names, every other core returns 0 at once (they
// then wait at the end's barrier and are reported hung when core 0 faults):
//   illegal     an undecodable word          misaligned  a load from an odd address
//   unmapped    a load where no memory is    ebreak      a breakpoint
//   spin        a loop that never ends       ssr         an SSR configuration (scfgwi)
//   frep        FREP                         dma         a DMA instruction on a compute core
// Build: npusim cc -g -o faults.elf tests/programs/faults.c
#include <snrt.h>

static int same(const char *a, const char *b) { return strcmp(a, b) == 0; }

__attribute__((noinline)) static uint32_t do_fault(const char *what) {
  volatile uint32_t sink = 0;
  if (same(what, "illegal")) __asm__ volatile(".word 0xffffffff");
  if (same(what, "misaligned")) sink = *(volatile uint32_t *)(SNRT_TCDM_START_ADDR + 2);
  if (same(what, "unmapped")) sink = *(volatile uint32_t *)0x50000000u;
  if (same(what, "ebreak")) __asm__ volatile("ebreak");
  if (same(what, "spin"))
    for (;;) sink = sink + 1;
  if (same(what, "ssr")) __asm__ volatile(".insn i 0x2b, 2, x0, x5, 0");
  if (same(what, "frep")) __asm__ volatile(".insn r 0x0b, 0, 0, x0, x0, x0");
  if (same(what, "dma")) __asm__ volatile(".insn r 0x2b, 0, 0, x0, x5, x0");
  return sink;
}

int main(int argc, char **argv) {
  if (snrt_cluster_core_idx() != 0 || argc < 2) return 0;
  printf("core 0 is about to: %s\n", argv[1]);
  return (int)do_fault(argv[1]);
}
