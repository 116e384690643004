// The C library subset of npusim's Neuron device library: the heap (malloc and family over
// the libc xmem heap, allocator.h) and ending the program. Shadows the Snitch runtime's
// stdlib.h (the same exit/abort/abs, plus the heap).
#ifndef NPUSIM_NEURON_STDLIB_H
#define NPUSIM_NEURON_STDLIB_H

#include <stddef.h>

#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1

#ifdef __cplusplus
extern "C" {
#endif

// The first call initialises the libc heap if the program has not (_init_libc_heap_allocator).
void *malloc(size_t size);
void free(void *ptr);
void *calloc(size_t n, size_t size);
void *realloc(void *ptr, size_t size);

// Stops the program with `code` as its exit code.
__attribute__((noreturn)) void exit(int code);
// Stops the program with a device fault (ebreak).
__attribute__((noreturn)) void abort(void);
int abs(int v);
long labs(long v);
long long llabs(long long v);

#ifdef __cplusplus
}
#endif

#endif  // NPUSIM_NEURON_STDLIB_H
