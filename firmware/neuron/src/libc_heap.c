// malloc and family over the libc xmem heap (_libc_heap_*). The first call initialises the
// heap when the program has not called _init_libc_heap_allocator itself (an assumption: the
// device's start-up code is not public). Alignment is the wrapper's default (0 -> 64).
#include <stdlib.h>
#include <string.h>

#include "allocator.h"

static void ensure_heap(void) {
  if (!_libc_heap_initialised()) _init_libc_heap_allocator();
}

void *malloc(size_t size) {
  ensure_heap();
  return _libc_heap_allocate((unsigned)size, 0);
}

void free(void *ptr) {
  if (ptr == NULL) return;
  ensure_heap();
  _libc_heap_deallocate(ptr);
}

void *calloc(size_t n, size_t size) {
  if (size != 0 && n > (size_t)-1 / size) return NULL;
  void *p = malloc(n * size);
  if (p != NULL) memset(p, 0, n * size);
  return p;
}

void *realloc(void *ptr, size_t size) {
  if (ptr == NULL) return malloc(size);
  if (size == 0) {
    free(ptr);
    return NULL;
  }
  ensure_heap();
  const size_t old = _libc_heap_get_alloc_size(ptr);
  if (size <= old) return ptr;
  void *p = malloc(size);
  if (p == NULL) return NULL;
  memcpy(p, ptr, old);
  free(ptr);
  return p;
}
