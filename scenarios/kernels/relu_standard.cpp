// ReLU forward with the standard accessor: every element read and written is its own trip
// to HBM. Simple to write, and the slowest of the three ReLU kernels (docs/custom-ops.md).
#include <torch/torch.h>

torch::Tensor relu_forward_standard(const torch::Tensor& t_in) {
  const int64_t n = t_in.numel();
  torch::Tensor t_out = torch::zeros({n}, torch::kFloat);
  auto in = t_in.accessor<float, 1>();
  auto out = t_out.accessor<float, 1>();
  for (int64_t i = 0; i < n; ++i) {
    const float x = in[i];
    out[i] = x > 0.0f ? x : 0.0f;
  }
  return t_out;
}
