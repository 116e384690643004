// A C++ program: the runtime's C++ forms (typed allocation, align_up with a base), a global
// object with a constructor (run by the start-up code before main).
#include <snrt.h>

static volatile int seed = 7;  // read at run time: the constructor cannot be folded away
struct Counter {
  int value;
  Counter() : value(seed) {}
};
Counter counter;

int main() {
  double *v = snrt_l1_alloc_cluster_local<double>(4);
  uint32_t *w = snrt_l1_alloc_compute_core_local<uint32_t>(2, 8);
  v[0] = 1.5;
  w[0] = snrt_cluster_core_idx();
  const uintptr_t a = snrt_align_up(uintptr_t{13}, 8, uintptr_t{4});
  printf("core %u: counter %d, aligned %u, v %p\n", snrt_cluster_core_idx(), counter.value, unsigned(a),
         static_cast<void *>(v));
  return counter.value == 7 && a == 20 ? 0 : 1;
}
