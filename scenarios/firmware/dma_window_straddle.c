// The DMA-window scenario (scenarios/dma_window_straddle.yaml) as a firmware program: three
// transfers programmed through npusim's DMA registers, one inside the window
// [0x80000, 0x90000), one that starts inside and ends past it, one below it.
#include <neuron_device.h>
#include <stdint.h>
#include <stdio.h>

#define KiB 1024u
#define DMA_REG(off) (*(volatile uint32_t *)(uintptr_t)(NPUSIM_DMA_BASE + (off)))

// One descriptor on channel 0, then wait until the engine is idle.
static void dma_copy(unsigned long long dst, unsigned long long src, uint32_t bytes) {
  DMA_REG(0x00) = (uint32_t)src;
  DMA_REG(0x04) = (uint32_t)(src >> 32);
  DMA_REG(0x08) = (uint32_t)dst;
  DMA_REG(0x0c) = (uint32_t)(dst >> 32);
  DMA_REG(0x10) = bytes;
  DMA_REG(0x14) = 0;
  DMA_REG(0x18) = 1;
  while (DMA_REG(0x1c) != 0) {
  }
}

int main(void) {
  if (init_neuron_hbm_allocator() != 0) return 1;
  unsigned long long src = 0;
  if (neuron_hbm_allocate(16 * KiB, &src, 0) != 0) return 1;
  dma_copy(0x81000, src, 4 * KiB);  // inside
  dma_copy(0x8f000, src, 8 * KiB);  // starts inside, ends at 0x91000
  dma_copy(0x7f000, src, 1 * KiB);  // below the window
  printf("dma errors: %u\n", (unsigned)DMA_REG(0x20));
  return 0;
}
