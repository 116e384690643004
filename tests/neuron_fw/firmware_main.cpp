// The Neuron device library's headers from C++: a firmware program in C++17.
#include <neuron_device.h>
#include <xmem_mgr.h>
#include <stdio.h>
#include <stdlib.h>

static_assert(sizeof(xmem_heap_block_t) == 16, "the descriptor is 16 bytes");

struct Buffer {
  void* p = nullptr;
  explicit Buffer(unsigned n) { neuron_dataram_allocate(n, &p, 0); }
  ~Buffer() { neuron_dataram_deallocate(p); }
};

int main() {
  if (init_neuron_dataram_allocator() != 0) return 1;
  Buffer b(256);
  printf("buffer at %p\n", b.p);
  return b.p == nullptr;
}
