// npusim's Snitch runtime: the API of the Snitch runtime (snRuntime) under its own names, for
// RV32 programs built with `npusim cc` and run on the simulated snitch-cluster platform
// (docs/snitch-programs.md). Written from the runtime's documented semantics; SSR and FREP are
// not provided (the simulated core refuses their instructions).
//
// The platform's numbers come from `npusim cc` as -D macros (the profile after --set):
//   SNRT_CLUSTER_NUM, SNRT_CLUSTER_CORE_NUM (compute cores + 1 DM core),
//   SNRT_CLUSTER_COMPUTE_CORE_NUM, SNRT_TCDM_START_ADDR, SNRT_TCDM_SIZE, SNRT_CLUSTER_OFFSET,
//   SNRT_CLS_SIZE, SNRT_LOG2_STACK_SIZE, SNRT_TLS_SIZE, SNRT_L3_START_ADDR, SNRT_L3_END_ADDR,
//   NPUSIM_HOST_BASE.
#ifndef NPUSIM_SNRT_H
#define NPUSIM_SNRT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if !defined(SNRT_CLUSTER_NUM) || !defined(SNRT_CLUSTER_CORE_NUM) ||                  \
    !defined(SNRT_CLUSTER_COMPUTE_CORE_NUM) || !defined(SNRT_TCDM_START_ADDR) ||      \
    !defined(SNRT_TCDM_SIZE) || !defined(SNRT_CLUSTER_OFFSET) || !defined(SNRT_CLS_SIZE) || \
    !defined(SNRT_LOG2_STACK_SIZE) || !defined(SNRT_TLS_SIZE) ||                       \
    !defined(SNRT_L3_START_ADDR) || !defined(SNRT_L3_END_ADDR) || !defined(NPUSIM_HOST_BASE)
#error "snrt.h: the platform macros are missing: build with `npusim cc`"
#endif

// The DM core: one per cluster, core index SNRT_CLUSTER_COMPUTE_CORE_NUM.
#define SNRT_CLUSTER_DM_CORE_NUM 1
// The heap base alignment of the init functions (the runtime's MIN_CHUNK_SIZE).
#define MIN_CHUNK_SIZE 8

// npusim's host interface (word stores): output character, exit code.
#include "npusim_host.h"

#ifdef __cplusplus
#define NPUSIM_EXTERN_C extern "C"
#define NPUSIM_DEFAULT(v) = v
#else
#define NPUSIM_EXTERN_C extern
#define NPUSIM_DEFAULT(v)
#endif

// ---------------------------------------------------------------------------------------------
// Cores and clusters. mhartid = cluster * SNRT_CLUSTER_CORE_NUM + core index.

static inline uint32_t snrt_hartid(void) {
  uint32_t id;
  __asm__ volatile("csrr %0, mhartid" : "=r"(id));
  return id;
}
static inline uint32_t snrt_cluster_num(void) { return SNRT_CLUSTER_NUM; }
static inline uint32_t snrt_cluster_core_num(void) { return SNRT_CLUSTER_CORE_NUM; }
static inline uint32_t snrt_cluster_compute_core_num(void) { return SNRT_CLUSTER_COMPUTE_CORE_NUM; }
static inline uint32_t snrt_cluster_dm_core_num(void) { return SNRT_CLUSTER_DM_CORE_NUM; }
static inline uint32_t snrt_global_core_base_hartid(void) { return 0; }
static inline uint32_t snrt_global_core_idx(void) {
  return snrt_hartid() - snrt_global_core_base_hartid();
}
static inline uint32_t snrt_global_core_num(void) {
  return snrt_cluster_num() * snrt_cluster_core_num();
}
static inline uint32_t snrt_global_compute_core_num(void) {
  return snrt_cluster_num() * snrt_cluster_compute_core_num();
}
static inline uint32_t snrt_cluster_idx(void) {
  return snrt_global_core_idx() / snrt_cluster_core_num();
}
static inline uint32_t snrt_cluster_core_idx(void) {
  return snrt_global_core_idx() % snrt_cluster_core_num();
}
static inline uint32_t snrt_global_compute_core_idx(void) {
  return snrt_cluster_idx() * snrt_cluster_compute_core_num() + snrt_cluster_core_idx();
}
static inline int snrt_is_compute_core(void) {
  return snrt_cluster_core_idx() < snrt_cluster_compute_core_num();
}
static inline int snrt_is_dm_core(void) { return !snrt_is_compute_core(); }
static inline int snrt_cluster_is_last_compute_core(void) {
  return snrt_cluster_core_idx() == snrt_cluster_compute_core_num() - 1;
}

// ---------------------------------------------------------------------------------------------
// Memory map.

// This cluster's TCDM (L1) and the cluster-local storage at its top.
static inline uint32_t snrt_l1_start_addr(void) {
  return (uint32_t)SNRT_TCDM_START_ADDR + snrt_cluster_idx() * (uint32_t)SNRT_CLUSTER_OFFSET;
}
static inline uint32_t snrt_l1_end_addr(void) {
  return snrt_l1_start_addr() + (uint32_t)SNRT_TCDM_SIZE;
}
static inline uint32_t snrt_cls_base_addr(void) {
  return snrt_l1_end_addr() - (uint32_t)SNRT_CLS_SIZE;
}

// ---------------------------------------------------------------------------------------------
// Time: the simulated core's cycle and retired-instruction counters.

static inline uint32_t snrt_mcycle(void) {
  uint32_t c;
  __asm__ volatile("csrr %0, mcycle" : "=r"(c));
  return c;
}
static inline uint32_t snrt_minstret(void) {
  uint32_t c;
  __asm__ volatile("csrr %0, minstret" : "=r"(c));
  return c;
}

// ---------------------------------------------------------------------------------------------
// Synchronisation.

// The cluster's hardware barrier (CSR 0x7c2): waits until every core of the cluster arrived.
static inline void snrt_cluster_hw_barrier(void) { __asm__ volatile("csrr x0, 0x7c2" ::: "memory"); }
// Every core of every cluster (with one cluster: the hardware barrier).
NPUSIM_EXTERN_C void snrt_global_barrier(void);
// Waits for the floating-point operations issued so far (in order on this core: a no-op
// apart from ordering).
static inline void snrt_fpu_fence(void) { __asm__ volatile("" ::: "memory"); }

// ---------------------------------------------------------------------------------------------
// DMA (DM core only): the Xdma instructions, encoded with .insn (custom-1, funct3 0).

typedef uint32_t snrt_dma_txid_t;

// Starts a copy of `size` bytes; returns its transfer id (1 for the first transfer).
static inline snrt_dma_txid_t snrt_dma_start_1d(volatile void *dst, const volatile void *src,
                                                size_t size) {
  snrt_dma_txid_t id;
  __asm__ volatile(".insn r 0x2b, 0, 0, x0, %0, x0" ::"r"((uint32_t)(uintptr_t)src));  // dmsrc
  __asm__ volatile(".insn r 0x2b, 0, 1, x0, %0, x0" ::"r"((uint32_t)(uintptr_t)dst));  // dmdst
  __asm__ volatile(".insn i 0x2b, 0, %0, %1, (2 << 5) | 0"                               // dmcpyi
                   : "=r"(id)
                   : "r"(size)
                   : "memory");
  return id;
}

// Starts `repeat` rows of `size` bytes, row r from src + r * src_stride to dst + r *
// dst_stride; returns its transfer id.
static inline snrt_dma_txid_t snrt_dma_start_2d(volatile void *dst, const volatile void *src,
                                                size_t size, size_t dst_stride,
                                                size_t src_stride, size_t repeat) {
  snrt_dma_txid_t id;
  __asm__ volatile(".insn r 0x2b, 0, 0, x0, %0, x0" ::"r"((uint32_t)(uintptr_t)src));  // dmsrc
  __asm__ volatile(".insn r 0x2b, 0, 1, x0, %0, x0" ::"r"((uint32_t)(uintptr_t)dst));  // dmdst
  __asm__ volatile(".insn r 0x2b, 0, 6, x0, %0, %1" ::"r"(src_stride), "r"(dst_stride));  // dmstr
  __asm__ volatile(".insn r 0x2b, 0, 7, x0, %0, x0" ::"r"(repeat));                       // dmrep
  __asm__ volatile(".insn i 0x2b, 0, %0, %1, (2 << 5) | 2"                               // dmcpyi 2-D
                   : "=r"(id)
                   : "r"(size)
                   : "memory");
  return id;
}

// DMA status (dmstati): 0 id of the last completed transfer, 1 next id, 2 busy, 3 would block.
static inline uint32_t snrt_dma_completed_id(void) {
  uint32_t v;
  __asm__ volatile(".insn i 0x2b, 0, %0, x0, (4 << 5) | 0" : "=r"(v)::"memory");
  return v;
}
static inline uint32_t snrt_dma_busy(void) {
  uint32_t v;
  __asm__ volatile(".insn i 0x2b, 0, %0, x0, (4 << 5) | 2" : "=r"(v)::"memory");
  return v;
}

// Waits until transfer `tid` (and every earlier one) has completed.
static inline void snrt_dma_wait(snrt_dma_txid_t tid) {
  while (snrt_dma_completed_id() < tid) {
  }
}
// Waits until the DMA engine is idle.
static inline void snrt_dma_wait_all(void) {
  while (snrt_dma_busy()) {
  }
}

// ---------------------------------------------------------------------------------------------
// alloc_v2: per-core bump allocators for L1 (TCDM) and L3, state in each core's TLS. Every
// core must make the same calls so that the allocators stay in step. A bounds overrun
// executes `ecall` after `next` has advanced (L1: next > end; L3: next >= end).

typedef struct {
  uint64_t base;  // where allocation starts
  uint64_t end;   // where it must stop
  uint64_t next;  // the next block
} snrt_allocator_t;

#ifdef __cplusplus
extern "C" {
#endif
extern __thread snrt_allocator_t l1_allocator_v2;  // at TLS offset 0
extern __thread snrt_allocator_t l3_allocator_v2;  // at TLS offset 24
extern uint32_t _edram;                            // end of the program image in L3

void snrt_l1_init(void);
void snrt_l3_init(void);
void *snrt_l1_alloc_cluster_local(size_t size, size_t alignment NPUSIM_DEFAULT(1));
void *snrt_l1_alloc_compute_core_local(size_t size, size_t alignment NPUSIM_DEFAULT(1));
void *snrt_l3_alloc_v2(size_t size, size_t alignment NPUSIM_DEFAULT(1));
#ifdef __cplusplus
}
#endif

#ifndef __cplusplus
// C has no default arguments: the alignment may be left out (it is then 1).
#define NPUSIM_SIZE_ALIGN_(size, alignment, ...) size, alignment
#define snrt_l1_alloc_cluster_local(...) \
  (snrt_l1_alloc_cluster_local)(NPUSIM_SIZE_ALIGN_(__VA_ARGS__, 1, ~))
#define snrt_l1_alloc_compute_core_local(...) \
  (snrt_l1_alloc_compute_core_local)(NPUSIM_SIZE_ALIGN_(__VA_ARGS__, 1, ~))
#define snrt_l3_alloc_v2(...) (snrt_l3_alloc_v2)(NPUSIM_SIZE_ALIGN_(__VA_ARGS__, 1, ~))
#endif

static inline snrt_allocator_t *snrt_l1_allocator_v2(void) { return &l1_allocator_v2; }
static inline snrt_allocator_t *snrt_l3_allocator_v2(void) { return &l3_allocator_v2; }

// ((addr + size - 1) / size) * size: a division, so any alignment >= 1 works.
static inline uintptr_t snrt_align_up(uintptr_t addr, size_t size) {
  return ((addr + size - 1) / size) * size;
}

static inline void *snrt_l1_next_v2(void) { return (void *)(uintptr_t)l1_allocator_v2.next; }
static inline void *snrt_l3_next_v2(void) { return (void *)(uintptr_t)l3_allocator_v2.next; }
// Sets L1's next (how memory is given back: rewind to an earlier next). No bounds check.
static inline void snrt_l1_update_next_v2(void *next) {
  l1_allocator_v2.next = (uint64_t)(uintptr_t)next;
}

// The same compute-core-local variable of core `core_idx`.
static inline void *snrt_compute_core_local_ptr(void *ptr, uint32_t core_idx, size_t size) {
  const uint32_t offset = (core_idx - snrt_cluster_core_idx()) * (uint32_t)size;
  return (void *)((uintptr_t)ptr + offset);
}
// The same L1 address in another cluster's TCDM.
static inline void *snrt_remote_l1_ptr(void *ptr, uint32_t src_cluster_idx,
                                       uint32_t dst_cluster_idx) {
  return (void *)((uintptr_t)ptr +
                  (dst_cluster_idx - src_cluster_idx) * (uint32_t)SNRT_CLUSTER_OFFSET);
}

#ifdef __cplusplus
// The runtime's C++ forms: alignment relative to a base, pointers, typed allocation.
static inline uintptr_t snrt_align_up(uintptr_t addr, size_t size, uintptr_t base) {
  return (((addr - base) + size - 1) / size) * size + base;
}
static inline void *snrt_align_up(void *addr, size_t size, void *base = 0) {
  return (void *)snrt_align_up((uintptr_t)addr, size, (uintptr_t)base);
}
template <typename T>
static inline T *snrt_l1_alloc_cluster_local(size_t count = 1, size_t alignment = alignof(T)) {
  return (T *)snrt_l1_alloc_cluster_local(count * sizeof(T), alignment);
}
template <typename T>
static inline T *snrt_l1_alloc_compute_core_local(size_t count = 1,
                                                  size_t alignment = alignof(T)) {
  return (T *)snrt_l1_alloc_compute_core_local(count * sizeof(T), alignment);
}
template <typename T>
static inline T *snrt_l3_alloc_v2(size_t count = 1, size_t alignment = alignof(T)) {
  return (T *)snrt_l3_alloc_v2(count * sizeof(T), alignment);
}
#endif

#endif  // NPUSIM_SNRT_H
