// A firmware program for the neuron-gpsimd management core that calls every part of the
// Neuron device library: the three heaps, malloc, the stack switch and the data transfers.
// Used by the tests of `npusim cc --platform neuron-gpsimd`.
#include <neuron_device.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int depth(int n) {
  volatile char frame[48];
  frame[0] = (char)n;
  return n > 0 ? depth(n - 1) + frame[0] : 0;
}

int main(void) {
  if (init_neuron_hbm_allocator() != 0 || init_neuron_dataram_allocator() != 0) return 1;
  unsigned long long hbm = 0;
  if (neuron_hbm_allocate(16384, &hbm, 0) != 0) return 2;
  void *tile = NULL;
  if (neuron_dataram_allocate(1024, &tile, 0) != 0) return 3;
  allocate_hbm_stack(0, 0, 1);
  const int d = depth(8);
  switchStackBack();
  set_data_transfer_method(C_MEMCPY);
  data_transfer_to_dram(tile, hbm, 1024);
  set_data_transfer_method(DMA);
  data_transfer_from_dram(hbm + 1024, tile, 1024);
  tensor_stream_copy(hbm + 8192, hbm, 8192);
  char *s = malloc(32);
  if (s == NULL) return 4;
  strcpy(s, "done");
  printf("%s: depth %d\n", s, d);
  free(s);
  neuron_dataram_deallocate(tile);
  neuron_hbm_deallocate(hbm);
  return 0;
}
