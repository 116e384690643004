// A firmware program whose heap corrupts its own list: after two allocations it points the
// dataram heap's first free block back at itself (a list that never ends) or at memory that
// does not exist, then allocates. The run must end with a clear fault or the cycle budget,
// never a crash of npusim. argv[1]: loop | unmapped.
#include <neuron_device.h>
#include <stdint.h>
#include <string.h>

int main(int argc, char **argv) {
  if (init_neuron_dataram_allocator() != 0) return 1;
  void *a = 0, *b = 0;
  neuron_dataram_allocate(256, &a, 0);
  neuron_dataram_allocate(256, &b, 0);
  // The manager's _free_list_head sentinel is at +24, its _next_block at +0 of that.
  volatile uint32_t *mgr = (volatile uint32_t *)(uintptr_t)(NPUSIM_DATA_SCRATCH + NPUSIM_BSS_OFFSET + 0x70);
  volatile uint32_t *first = (volatile uint32_t *)(uintptr_t)mgr[24 / 4];
  if (argc > 1 && strcmp(argv[1], "unmapped") == 0) {
    first[0] = 0x40000000u;  // _next_block: no memory there
    first[1] = 0;            // _block_size 0: the walk goes on to it
  } else {
    first[0] = (uint32_t)(uintptr_t)first;  // _next_block: itself
    first[1] = 0;
  }
  void *c = 0;
  neuron_dataram_allocate(1u << 20, &c, 0);
  return 0;
}
