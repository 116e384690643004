// The Xdma instructions and the barrier as snrt.h emits them, one per function with its
// operands in fixed argument registers, so that tests/cc/check_elf.py can compare each
// instruction word with the encoding the contract's table gives.
#include <snrt.h>

__attribute__((noinline)) snrt_dma_txid_t xdma_start_1d(void *dst, const void *src, size_t size) {
  return snrt_dma_start_1d(dst, src, size);
}

__attribute__((noinline)) snrt_dma_txid_t xdma_start_2d(void *dst, const void *src, size_t size,
                                                        size_t dst_stride, size_t src_stride,
                                                        size_t repeat) {
  return snrt_dma_start_2d(dst, src, size, dst_stride, src_stride, repeat);
}

__attribute__((noinline)) uint32_t xdma_completed_id(void) { return snrt_dma_completed_id(); }
__attribute__((noinline)) uint32_t xdma_busy(void) { return snrt_dma_busy(); }
__attribute__((noinline)) void xdma_barrier(void) { snrt_cluster_hw_barrier(); }

int main(void) {
  static uint32_t src[4] = {1, 2, 3, 4};
  uint32_t *dst = (uint32_t *)snrt_l1_alloc_cluster_local(sizeof src, 4);
  if (snrt_is_dm_core()) {
    xdma_start_1d(dst, src, sizeof src);
    xdma_start_2d(dst, src, 8, 8, 8, 2);
    while (xdma_busy()) {
    }
    if (xdma_completed_id() < 2) return 1;
  }
  xdma_barrier();
  return dst[3] == 4 ? 0 : 1;
}
