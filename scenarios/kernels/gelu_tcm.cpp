// GELU (tanh approximation) with the TCM accessor, two buffers in TCM: one chunk comes in by
// DMA, the core evaluates the polynomial and tanh, the chunk goes out. Heavier per element
// than ReLU: a math-library call per element (docs/custom-ops.md).
#include <torch/torch.h>

#include <algorithm>
#include <cmath>

namespace {
float gelu(float x) {
  const float k = 0.7978845608f;  // sqrt(2 / pi)
  return 0.5f * x * (1.0f + std::tanh(k * (x + 0.044715f * x * x * x)));
}
}  // namespace

torch::Tensor gelu_forward_tcm(const torch::Tensor& t_in) {
  constexpr size_t kChunk = 512;
  const size_t n = static_cast<size_t>(t_in.numel());
  torch::Tensor t_out = torch::empty(t_in.sizes(), torch::kFloat);
  float* src = static_cast<float*>(torch::neuron::tcm_malloc(kChunk * sizeof(float)));
  float* dst = static_cast<float*>(torch::neuron::tcm_malloc(kChunk * sizeof(float)));
  auto in = t_in.tcm_accessor();
  auto out = t_out.tcm_accessor();
  for (size_t first = 0; first < n; first += kChunk) {
    const size_t len = std::min(kChunk, n - first);
    in.tensor_to_tcm<float>(src, first, len);
    for (size_t i = 0; i < len; ++i) dst[i] = gelu(src[i]);
    out.tcm_to_tensor<float>(dst, first, len);
  }
  torch::neuron::tcm_free(src);
  torch::neuron::tcm_free(dst);
  return t_out;
}
