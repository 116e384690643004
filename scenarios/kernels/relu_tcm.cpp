// ReLU forward with the TCM accessor: the input moves into a 1024-float TCM buffer by DMA,
// the core works on it at local-memory speed, and the result moves back by DMA.
#include <torch/torch.h>

#include <algorithm>

torch::Tensor relu_forward_tcm(const torch::Tensor& t_in) {
  constexpr size_t kChunk = 1024;
  const size_t n = static_cast<size_t>(t_in.numel());
  torch::Tensor t_out = torch::zeros({static_cast<int64_t>(n)}, torch::kFloat);
  float* buf = static_cast<float*>(torch::neuron::tcm_malloc(kChunk * sizeof(float)));
  auto in = t_in.tcm_accessor();
  auto out = t_out.tcm_accessor();
  for (size_t first = 0; first < n; first += kChunk) {
    const size_t len = std::min(kChunk, n - first);
    in.tensor_to_tcm<float>(buf, first, len);
    for (size_t i = 0; i < len; ++i) buf[i] = buf[i] > 0.0f ? buf[i] : 0.0f;
    out.tcm_to_tensor<float>(buf, first, len);
  }
  torch::neuron::tcm_free(buf);
  return t_out;
}
