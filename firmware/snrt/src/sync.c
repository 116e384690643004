// snrt_global_barrier: every core of every cluster. Within a cluster the hardware barrier;
// across clusters the DM cores meet at a counter in L3 (atomic add, generation flip).
#include "snrt.h"

static volatile uint32_t barrier_arrived;
static volatile uint32_t barrier_generation;

void snrt_global_barrier(void) {
  snrt_cluster_hw_barrier();
  if (snrt_cluster_num() > 1 && snrt_is_dm_core()) {
    const uint32_t generation = __atomic_load_n(&barrier_generation, __ATOMIC_ACQUIRE);
    if (__atomic_add_fetch(&barrier_arrived, 1, __ATOMIC_ACQ_REL) == snrt_cluster_num()) {
      __atomic_store_n(&barrier_arrived, 0, __ATOMIC_RELAXED);
      __atomic_store_n(&barrier_generation, generation + 1, __ATOMIC_RELEASE);
    } else {
      while (__atomic_load_n(&barrier_generation, __ATOMIC_ACQUIRE) == generation) {
      }
    }
  }
  snrt_cluster_hw_barrier();
}
