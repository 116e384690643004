// dma_tiling: scenarios/snitch/dma_tiling.yaml as a program. A 128 x 128 fp64 matrix A (128
// KiB) in L3 is processed in 8 tiles of 16 rows through a double-buffered 32 KiB TCDM buffer:
// the DM core brings tile t + 1 into one half (a 2-D transfer of 16 rows of 1 KiB) and writes
// tile t - 1's results back to B in L3 while the 8 compute cores work on tile t, each on its
// 2 rows (256 doubles, 2 KiB apart, so every core starts on the same TCDM bank):
// out = 2 * in + 1. A cluster barrier closes every step. At the end the DM core checks all
// of B and returns the number of wrong elements.
#include <snrt.h>

#define TILE_BYTES (16 * 1024)
#define TILES 8
#define ROW_BYTES 1024
#define TILE_ROWS 16
#define CORE_BYTES 2048

int main(void) {
  const uint32_t core = snrt_cluster_core_idx();
  double *A = (double *)snrt_l3_alloc_v2(128 * 1024, 64);
  double *B = (double *)snrt_l3_alloc_v2(128 * 1024, 64);
  char *in = (char *)snrt_l1_alloc_cluster_local(32 * 1024, 64);
  char *out = (char *)snrt_l1_alloc_cluster_local(32 * 1024, 64);
  const size_t elems = 128 * 128;

  if (snrt_is_dm_core()) {
    for (size_t i = 0; i < elems; ++i) A[i] = (double)i;
    snrt_dma_start_2d(in, A, ROW_BYTES, ROW_BYTES, ROW_BYTES, TILE_ROWS);
    snrt_dma_wait_all();
  }
  snrt_cluster_hw_barrier();

  for (int t = 0; t < TILES; ++t) {
    if (snrt_is_dm_core()) {
      if (t + 1 < TILES)
        snrt_dma_start_2d(in + ((t + 1) % 2) * TILE_BYTES, (char *)A + (t + 1) * TILE_BYTES, ROW_BYTES,
                          ROW_BYTES, ROW_BYTES, TILE_ROWS);
      if (t > 0)
        snrt_dma_start_1d((char *)B + (t - 1) * TILE_BYTES, out + ((t - 1) % 2) * TILE_BYTES, TILE_BYTES);
      snrt_dma_wait_all();
    } else {
      const double *src = (const double *)(in + (t % 2) * TILE_BYTES + core * CORE_BYTES);
      double *dst = (double *)(out + (t % 2) * TILE_BYTES + core * CORE_BYTES);
      for (int i = 0; i < CORE_BYTES / 8; ++i) dst[i] = 2.0 * src[i] + 1.0;
    }
    snrt_cluster_hw_barrier();
  }
  if (!snrt_is_dm_core()) return 0;
  snrt_dma_wait(snrt_dma_start_1d((char *)B + (TILES - 1) * TILE_BYTES, out + ((TILES - 1) % 2) * TILE_BYTES,
                                  TILE_BYTES));
  int errors = 0;
  for (size_t i = 0; i < elems; ++i)
    if (B[i] != 2.0 * (double)i + 1.0) {
      if (errors < 4) printf("dma_tiling: B[%u] = %f, expected %f\n", (unsigned)i, B[i], 2.0 * (double)i + 1.0);
      ++errors;
    }
  printf("dma_tiling: %u elements through %d tiles, %d wrong\n", (unsigned)elems, TILES, errors);
  return errors;
}
