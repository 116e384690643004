// The Neuron device library on the management core, one case per build (-DCASE=...), each
// checking itself and printing "ok ..." lines; tests/neuron_fw/run_library.py runs them on
// the management core and checks what they print, their stacks and DMA descriptors.
#include <neuron_device.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(c)                                          \
  do {                                                    \
    if (!(c)) {                                           \
      printf("check failed: %s (line %d)\n", #c, __LINE__); \
      exit(10);                                           \
    }                                                     \
  } while (0)

static uint32_t sp_now(void) {
  uint32_t sp;
  __asm__ volatile("mv %0, sp" : "=r"(sp));
  return sp;
}

__attribute__((noinline)) static int fill(volatile int *a, int n, int seed) {
  for (int i = 0; i < n; ++i) a[i] = seed + i;
  return n;
}

__attribute__((noinline)) static int sum(const volatile int *a, int n) {
  int s = 0;
  for (int i = 0; i < n; ++i) s += a[i];
  return s;
}

__attribute__((noinline, unused)) static int recurse(int n, int bytes) {
  volatile char frame[64];
  frame[0] = (char)n;
  frame[63] = (char)bytes;
  return n > 0 ? recurse(n - 1, bytes) + frame[0] + frame[63] - bytes : 0;
}

// Switches from inside a helper: the caller's frame migrates too.
__attribute__((noinline, unused)) static void switch_from_helper(void) {
  volatile int mine[4];
  fill(mine, 4, 500);
  switchStack();
  CHECK(sum(mine, 4) == 4 * 500 + 6);
}

__attribute__((unused)) static void stack_case(void) {
  CHECK(init_neuron_hbm_allocator() == 0);
  volatile int before[16];
  fill(before, 16, 100);
  volatile int *p = before;  // a pointer to a local, taken before the switch
  CHECK(allocate_hbm_stack(0, 0, 0) == 0);
  switch_from_helper();
  const uint32_t sp = sp_now();
  CHECK(sp >= 0x80000000u);  // the program runs on the HBM window now
  printf("ok on hbm\n");
  CHECK(sum(before, 16) == 16 * 100 + 120);  // the caller's locals came along
  before[3] = 7;
  CHECK(p[0] == 100);
  CHECK(recurse(12, 5) == 78);  // 12 + 11 + ... + 1
  switchStack();  // already switched: nothing happens
  CHECK(sp_now() == sp);
  switchStackBack();
  CHECK(sp_now() < 0x90000u && sp_now() > 0x8c800u);
  CHECK(before[3] == 7 && sum(before, 16) == 16 * 100 + 120 - 103 + 7);
  switchStackBack();  // already local: nothing happens
  printf("ok back on the local stack\n");
}

__attribute__((unused)) static void overflow_case(void) {
  CHECK(init_neuron_hbm_allocator() == 0);
  allocate_hbm_stack(1024, 0, 1);
  printf("ok switched\n");
  recurse(1000, 1);  // ~1000 frames do not fit 1 KiB
  printf("not reached\n");
}

__attribute__((unused)) static void transfer_case(int method) {
  CHECK(init_neuron_hbm_allocator() == 0 && init_neuron_dataram_allocator() == 0);
  unsigned long long hbm = 0;
  CHECK(neuron_hbm_allocate(3 * 4096 + 100, &hbm, 0) == 0);
  volatile uint8_t *window = (volatile uint8_t *)(uintptr_t)(hbm - NPUSIM_HBM_SCRATCH + NPUSIM_HBM_WINDOW);
  for (int i = 0; i < 4096 + 50; ++i) window[i] = (uint8_t)(i * 7 + 1);
  uint8_t *tile = NULL;
  CHECK(neuron_dataram_allocate(4096 + 64, (void **)&tile, 0) == 0);
  set_data_transfer_method((data_transfer_method)method);
  data_transfer_to_dram(tile + 3, hbm + 1, 4096 + 45);  // unaligned on both sides
  for (int i = 0; i < 4096 + 45; ++i) CHECK(tile[3 + i] == (uint8_t)((i + 1) * 7 + 1));
  data_transfer_from_dram(hbm + 8192, tile + 3, 4096 + 45);
  for (int i = 0; i < 4096 + 45; ++i) CHECK(window[8192 + i] == tile[3 + i]);
  tensor_stream_copy(hbm + 4096, hbm, 4096 + 50);
  for (int i = 0; i < 4096 + 50; ++i) CHECK(window[4096 + i] == window[i]);
  printf("ok method %d\n", method);
}

__attribute__((unused)) static void heap_case(void) {
  // malloc initialises the libc heap on first use.
  CHECK(!_libc_heap_initialised());
  char *a = malloc(10);
  CHECK(a != NULL && _libc_heap_initialised());
  CHECK(((uintptr_t)a & 63) == 0);  // the wrapper's default alignment
  CHECK(_libc_heap_get_alloc_size(a) >= 10);
  char *b = calloc(4, 8);
  for (int i = 0; i < 32; ++i) CHECK(b[i] == 0);
  strcpy(a, "hello");
  a = realloc(a, 200);
  CHECK(strcmp(a, "hello") == 0);
  free(a);
  free(b);
  free(NULL);
  CHECK(malloc(0) == NULL);
  printf("ok malloc max free %u\n", _libc_heap_max_free_space());
  // The wrappers: *out_ptr is written even on failure; HBM addresses are device addresses.
  CHECK(init_neuron_dataram_allocator() == 0 && init_neuron_hbm_allocator() == 0);
  void *p = (void *)1;
  CHECK(neuron_dataram_allocate(0x100000, &p, 0) == -1 && p == NULL);
  CHECK(neuron_last_xmem_status() == XMEM_ERR_ALLOC_FAILED);
  unsigned long long h = 7;
  CHECK(neuron_hbm_allocate(0x10000000, &h, 0) == -1 && h == 7);  // not written on failure
  CHECK(neuron_hbm_allocate(64, &h, 0) == 0 && h == NPUSIM_HBM_SCRATCH + NPUSIM_HBM_POOL_OFFSET + 0x18);
  CHECK(neuron_hbm_deallocate(h) == 0 && neuron_hbm_deallocate(h) == -1);
  CHECK(neuron_dataram_allocate(16, &p, 3) == -1 && neuron_last_xmem_status() == XMEM_ERR_ILLEGAL_ALIGN);
  printf("ok wrappers\n");
}

int main(void) {
#if CASE == 1
  stack_case();
#elif CASE == 2
  overflow_case();
#elif CASE == 3
  transfer_case(C_MEMCPY);
  transfer_case(VEC_MEMCPY);
  transfer_case(DMA);
#elif CASE == 4
  heap_case();
#elif CASE == 5
  switchStack();  // no HBM stack: fatal
#elif CASE == 6
  init_neuron_hbm_allocator();
  allocate_hbm_stack(MAX_STACK_SIZE + 1, 0, 0);  // too large: fatal
#elif CASE == 7
  init_neuron_hbm_allocator();
  allocate_hbm_stack(0, 0, 0);
  allocate_hbm_stack(0, 0, 0);  // a second HBM stack: fatal
#elif CASE == 8
  init_neuron_hbm_allocator();
  unsigned long long hbm = 0;
  neuron_hbm_allocate(64, &hbm, 0);
  data_transfer_to_dram((void *)0x7f000, hbm, 16);  // outside the dataram window: the assertion
#elif CASE == 9
  init_neuron_dataram_allocator();
  void *big = NULL;
  neuron_dataram_allocate(0x3000, &big, 0);  // leaves no 4 KiB for the bounce buffer
  tensor_stream_copy(NPUSIM_HBM_SCRATCH + 0x1000, NPUSIM_HBM_SCRATCH + 0x2000, 64);
#elif CASE == 10
  // TensorStream with DMA: 3 chunks (4096, 4096, 100 bytes), one or two bounce buffers.
  init_neuron_dataram_allocator();
  set_data_transfer_method(DMA);
  tensor_stream_copy(NPUSIM_HBM_SCRATCH + 0x10000, NPUSIM_HBM_SCRATCH + 0x1000, 2 * 4096 + 100);
#endif
  printf("ok end\n");
  return 0;
}
