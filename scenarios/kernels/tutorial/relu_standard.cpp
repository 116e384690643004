// The custom-op MLP performance tutorial's ReLU with the standard accessor, as the tutorial
// builds it (public Neuron samples, torch-neuronx/inference/customop_mlp/neuron/relu.cpp): a
// zeroed output of the input's shape, 2-D element accessors, and a conditional that reads the
// input element once more when it is positive. Calibrates the neuron-gpsimd profile
// (docs/kernel-accuracy.md).
#include <torch/torch.h>

torch::Tensor relu_forward(const torch::Tensor& t_in) {
  torch::Tensor t_out = torch::zeros(t_in.sizes(), torch::kFloat);
  auto in = t_in.accessor<float, 2>();
  auto out = t_out.accessor<float, 2>();
  const auto sizes = t_in.sizes();
  for (int64_t row = 0; row < sizes[0]; ++row)
    for (int64_t col = 0; col < sizes[1]; ++col) out[row][col] = in[row][col] > 0.0f ? in[row][col] : 0.0f;
  return t_out;
}
