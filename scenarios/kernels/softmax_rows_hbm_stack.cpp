// Row-wise softmax that keeps a whole row on its stack (up to 8192 floats = 32 KiB), so it is
// built with -DSTACK_SIZE=65536: above 8 KiB the stack lives in HBM, and every library call
// spills its frame there (compare its stack time with the other kernels, docs/custom-ops.md).
#include <torch/torch.h>

#include <algorithm>
#include <cmath>

torch::Tensor softmax_rows(const torch::Tensor& t_in) {
  const int64_t rows = t_in.size(0), cols = t_in.size(1);
  torch::Tensor t_out = torch::empty(t_in.sizes(), torch::kFloat);
  float row[8192];
  const int64_t n = std::min<int64_t>(cols, 8192);
  float* buf = static_cast<float*>(torch::neuron::tcm_malloc(1024 * sizeof(float)));
  auto in = t_in.tcm_accessor();
  auto out = t_out.tcm_accessor();
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < n; c += 1024) {
      const int64_t len = std::min<int64_t>(1024, n - c);
      in.tensor_to_tcm<float>(buf, static_cast<size_t>(r * cols + c), static_cast<size_t>(len));
      std::copy(buf, buf + len, row + c);
    }
    float mx = row[0];
    for (int64_t c = 1; c < n; ++c) mx = std::max(mx, row[c]);
    float sum = 0.0f;
    for (int64_t c = 0; c < n; ++c) {
      row[c] = std::exp(row[c] - mx);
      sum += row[c];
    }
    for (int64_t c = 0; c < n; c += 1024) {
      const int64_t len = std::min<int64_t>(1024, n - c);
      for (int64_t i = 0; i < len; ++i) buf[i] = row[c + i] / sum;
      out.tcm_to_tensor<float>(buf, static_cast<size_t>(r * cols + c), static_cast<size_t>(len));
    }
  }
  torch::neuron::tcm_free(buf);
  return t_out;
}

torch::Tensor softmax_rows_shape(const torch::Tensor& t_in) {
  return torch::empty(t_in.sizes(), torch::kFloat);
}

NEURON_LIBRARY(npusim_stack_example, m) {
  m.def("softmax_rows_hbm_stack", &softmax_rows_shape, "softmax_rows");
}
