// The default scenario (scenarios/default.yaml) as a firmware program for the management core:
// a TensorStream copy HBM -> dataram -> HBM through the 4 KiB bounce buffer with the DMA
// engine, a dataram tile, and a call chain on the switched HBM stack. Build and run it:
//   npusim cc --platform neuron-gpsimd -g -o default.elf scenarios/firmware/default.c
//   npusim run default.yaml      (scenarios/firmware/default.yaml beside default.elf)
#include <neuron_device.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KiB 1024u

// Where the core sees an HBM device address: through its 32-bit window onto HBM scratch.
static volatile uint8_t *hbm_ptr(unsigned long long dev) {
  return (volatile uint8_t *)(uintptr_t)(dev - NPUSIM_HBM_SCRATCH + NPUSIM_HBM_WINDOW);
}

static void fail(const char *what) {
  printf("FAILED: %s\n", what);
  exit(1);
}

// Frames of the step version's call chain: each function's locals fill its frame.
__attribute__((noinline)) static int layer(volatile uint8_t *frame, unsigned bytes) {
  int sum = 0;
  for (unsigned i = 0; i < bytes; i += 64) {
    frame[i] = (uint8_t)i;
    sum += frame[i];
  }
  return sum;
}
__attribute__((noinline)) static int layer1(void) {
  volatile uint8_t frame[4 * KiB - 16];
  return layer(frame, sizeof frame);
}
__attribute__((noinline)) static int layer2(void) {
  volatile uint8_t frame[6 * KiB - 16];
  return layer(frame, sizeof frame);
}
__attribute__((noinline)) static int forward(void) {
  volatile uint8_t frame[2 * KiB - 32];
  return layer(frame, sizeof frame) + layer1() + layer2();
}

int main(void) {
  if (init_neuron_hbm_allocator() != 0 || init_neuron_dataram_allocator() != 0) fail("heap init");
  unsigned long long input = 0, output = 0;
  if (neuron_hbm_allocate(256 * KiB, &input, 0) != 0) fail("alloc input");
  if (neuron_hbm_allocate(256 * KiB, &output, 0) != 0) fail("alloc output");
  for (unsigned i = 0; i < 4 * KiB; ++i) hbm_ptr(input)[i] = 0x5a;

  // tensor stream
  set_data_transfer_method(DMA);
  tensor_stream_copy(output, input, 256 * KiB);
  for (unsigned i = 0; i < 4 * KiB; ++i)
    if (hbm_ptr(output)[i] != 0x5a) fail("output differs from input");

  // dataram tile
  void *tile = 0;
  if (neuron_dataram_allocate(8 * KiB, &tile, 0) != 0) fail("alloc tile");
  data_transfer_to_dram(tile, input, 8 * KiB);
  uint32_t sum = 0;
  for (unsigned i = 0; i < 8 * KiB / 4; ++i) sum += ((volatile uint32_t *)tile)[i];
  ((volatile uint32_t *)tile)[0] = sum;
  data_transfer_from_dram(output, tile, 8 * KiB);
  neuron_dataram_deallocate(tile);

  // hbm stack
  if (allocate_hbm_stack(16 * KiB, 0, 1) != 0) fail("allocate_hbm_stack");
  const int r = forward();
  switchStackBack();
  neuron_hbm_deallocate(input);
  neuron_hbm_deallocate(output);
  printf("default: done (%d)\n", r);
  return 0;
}
