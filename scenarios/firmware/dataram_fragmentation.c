// The heap-exhaustion scenario (scenarios/dataram_fragmentation.yaml) as a firmware program:
// 31 small dataram buffers use the 32 descriptors up, freeing every other one leaves holes
// that cannot merge, small requests then take whole holes, and a large request fails although
// enough bytes are free in total.
#include <neuron_device.h>
#include <stdio.h>

#define KiB 1024u

int main(void) {
  if (init_neuron_dataram_allocator() != 0) return 1;
  void *b[31];
  for (int i = 0; i < 31; ++i)
    if (neuron_dataram_allocate(200, &b[i], 0) != 0) return 1;
  for (int i = 0; i <= 28; i += 2) neuron_dataram_deallocate(b[i]);
  void *s1 = 0, *s2 = 0, *big = 0;
  neuron_dataram_allocate(64, &s1, 0);
  neuron_dataram_allocate(64, &s2, 0);
  const int r = neuron_dataram_allocate(12 * KiB, &big, 0);
  printf("large request: %d\n", r);
  return 0;
}
