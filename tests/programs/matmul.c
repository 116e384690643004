// matmul: C = A * B for 16 x 16 fp64 matrices on one cluster. The DM core fills A and B in L3
// (integer values, so every product and sum is exact), copies them into the TCDM by DMA; the
// compute cores each compute every eighth row of C in the TCDM; the DM core copies C back to
// L3 (the global `matmul_c`, which a host-side check can read by its symbol) and compares it
// with a reference computed from L3. Returns the number of wrong elements on the DM core.
#include <snrt.h>

#define N 16

double matmul_a[N * N], matmul_b[N * N], matmul_c[N * N];

static double a_value(int i, int j) { return (double)((i + 2 * j) % 7 - 3); }
static double b_value(int i, int j) { return (double)((3 * i + j) % 5 - 2); }

int main(void) {
  const uint32_t core = snrt_cluster_core_idx();
  const size_t bytes = N * N * sizeof(double);
  double *a = (double *)snrt_l1_alloc_cluster_local(bytes, 8);
  double *b = (double *)snrt_l1_alloc_cluster_local(bytes, 8);
  double *c = (double *)snrt_l1_alloc_cluster_local(bytes, 8);

  if (snrt_is_dm_core()) {
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < N; ++j) {
        matmul_a[i * N + j] = a_value(i, j);
        matmul_b[i * N + j] = b_value(i, j);
      }
    snrt_dma_start_1d(a, matmul_a, bytes);
    snrt_dma_start_1d(b, matmul_b, bytes);
    snrt_dma_wait_all();
  }
  snrt_cluster_hw_barrier();

  uint32_t cycles = 0;
  if (snrt_is_compute_core()) {
    const uint32_t start = snrt_mcycle();
    for (uint32_t i = core; i < N; i += snrt_cluster_compute_core_num())
      for (int j = 0; j < N; ++j) {
        double sum = 0.0;
        for (int k = 0; k < N; ++k) sum += a[i * N + k] * b[k * N + j];
        c[i * N + j] = sum;
      }
    cycles = snrt_mcycle() - start;
  }
  snrt_cluster_hw_barrier();
  if (core == 0) printf("matmul: compute core 0 took %u cycles\n", cycles);

  if (!snrt_is_dm_core()) return 0;
  snrt_dma_wait(snrt_dma_start_1d(matmul_c, c, bytes));
  int errors = 0;
  double checksum = 0.0;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) {
      double ref = 0.0;
      for (int k = 0; k < N; ++k) ref += a_value(i, k) * b_value(k, j);
      if (matmul_c[i * N + j] != ref) {
        if (errors < 4) printf("matmul: C[%d][%d] = %f, expected %f\n", i, j, matmul_c[i * N + j], ref);
        ++errors;
      }
      checksum += matmul_c[i * N + j];
    }
  printf("matmul: %dx%d fp64, %d wrong elements, checksum %.1f\n", N, N, errors, checksum);
  return errors;
}
