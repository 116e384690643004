// The custom-op MLP performance tutorial's ReLU with the TCM accessor, as the tutorial builds it
// (public Neuron samples, torch-neuronx/inference/customop_mlp/neuron-tcm/relu.cpp): a zeroed
// output, one 1024-float TCM buffer, and per chunk a copy into TCM, the ReLU there and a copy
// back. Calibrates the neuron-gpsimd profile (docs/kernel-accuracy.md).
#include <torch/torch.h>

torch::Tensor relu_forward(const torch::Tensor& t_in) {
  constexpr size_t kChunk = 1024;
  const size_t count = static_cast<size_t>(t_in.numel());
  torch::Tensor t_out = torch::zeros(t_in.sizes(), torch::kFloat);
  float* buf = static_cast<float*>(torch::neuron::tcm_malloc(sizeof(float) * kChunk));
  auto in = t_in.tcm_accessor();
  auto out = t_out.tcm_accessor();
  for (size_t at = 0; at < count; at += kChunk) {
    const size_t len = count - at < kChunk ? count - at : kChunk;
    in.tensor_to_tcm<float>(buf, at, len);
    for (size_t k = 0; k < len; ++k) buf[k] = buf[k] > 0.0f ? buf[k] : 0.0f;
    out.tcm_to_tensor<float>(buf, at, len);
  }
  torch::neuron::tcm_free(buf);
  return t_out;
}
