// The stack-overflow scenario (scenarios/stack_overflow.yaml) as a firmware program: the
// call chain main > block > conv > im2col on a 12 KiB HBM stack; im2col's frame runs past
// its end, and the run ends with a fault naming im2col, the bytes over and the chain.
#include <neuron_device.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define KiB 1024u

__attribute__((noinline)) static int touch(volatile uint8_t *frame, unsigned bytes) {
  int sum = 0;
  for (unsigned i = 0; i < bytes; i += 64) {
    frame[i] = (uint8_t)i;
    sum += frame[i];
  }
  return sum;
}
__attribute__((noinline)) static int im2col(void) {
  volatile uint8_t frame[8 * KiB - 16];
  return touch(frame, sizeof frame);
}
__attribute__((noinline)) static int conv(void) {
  volatile uint8_t frame[4 * KiB - 16];
  return touch(frame, sizeof frame) + im2col();
}
__attribute__((noinline)) static int block(void) {
  volatile uint8_t frame[2 * KiB - 16];
  return touch(frame, sizeof frame) + conv();
}
__attribute__((noinline)) static int run_main(void) {
  volatile uint8_t frame[1 * KiB - 16];
  return touch(frame, sizeof frame) + block();
}

int main(void) {
  if (init_neuron_hbm_allocator() != 0) return 1;
  if (allocate_hbm_stack(12 * KiB, 0, 1) != 0) return 1;
  const int r = run_main();
  switchStackBack();
  printf("not reached: %d\n", r);
  return 0;
}
