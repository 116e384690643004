// The Neuron device library's allocators (allocator.o): thin wrappers around three xmem heaps.
//   neuron_hbm_*     the HBM scratch heap (the switched-out stack lives there); addresses are
//                    64-bit HBM device addresses
//   neuron_dataram_* the on-core dataram heap (the TensorStream bounce buffer)
//   _libc_heap_*     the dataram heap behind malloc/free (stdlib.h)
// Statuses are 0 (success) or -1. Alignment 0 means 64. Pools, headers and the wrappers' state
// lie where the device has them (docs/neuron-programs.md); the state is one object in section
// .allocator_bss, at NPUSIM_DATA_SCRATCH + NPUSIM_BSS_OFFSET.
#ifndef NPUSIM_NEURON_ALLOCATOR_H
#define NPUSIM_NEURON_ALLOCATOR_H

#include <stddef.h>
#include <stdint.h>

#include "xmem.h"

#ifdef __cplusplus
extern "C" {
#endif

int init_neuron_hbm_allocator(void);
int init_neuron_dataram_allocator(void);
int _init_libc_heap_allocator(void);

// *out_addr is written only on success.
int neuron_hbm_allocate(unsigned size, unsigned long long *out_addr, unsigned align);
int neuron_hbm_deallocate(unsigned long long addr);
// *out_ptr is written before the status is known: NULL on failure.
int neuron_dataram_allocate(unsigned size, void **out_ptr, unsigned align);
int neuron_dataram_deallocate(void *ptr);

// The libc heap: the pointer (NULL on failure); 0 / -1; the usable bytes behind a live pointer
// (0 for any other); the largest free block's bytes.
void *_libc_heap_allocate(unsigned size, unsigned align);
int _libc_heap_deallocate(void *ptr);
unsigned _libc_heap_get_alloc_size(void *ptr);
unsigned _libc_heap_max_free_space(void);
// Whether _init_libc_heap_allocator has run (malloc initialises the heap on first use).
int _libc_heap_initialised(void);

// The xmem status of the most recent wrapper call (npusim addition, for diagnostics).
xmem_status_t neuron_last_xmem_status(void);

#ifdef __cplusplus
}
#endif

#endif  // NPUSIM_NEURON_ALLOCATOR_H
