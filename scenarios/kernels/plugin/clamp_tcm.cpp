// Clamps every element to [-1, 1] through TCM: an op built as a plugin (a shared library
// loaded with `npusim run --plugin`), with no change to the kernel or its shape file.
#include <torch/torch.h>

#include <algorithm>

torch::Tensor clamp_unit_tcm(const torch::Tensor& t_in) {
  constexpr size_t kChunk = 1024;
  const size_t n = static_cast<size_t>(t_in.numel());
  torch::Tensor t_out = torch::empty(t_in.sizes(), torch::kFloat);
  float* buf = static_cast<float*>(torch::neuron::tcm_malloc(kChunk * sizeof(float)));
  auto in = t_in.tcm_accessor();
  auto out = t_out.tcm_accessor();
  for (size_t first = 0; first < n; first += kChunk) {
    const size_t len = std::min(kChunk, n - first);
    in.tensor_to_tcm<float>(buf, first, len);
    for (size_t i = 0; i < len; ++i) buf[i] = std::min(1.0f, std::max(-1.0f, buf[i]));
    out.tcm_to_tensor<float>(buf, first, len);
  }
  torch::neuron::tcm_free(buf);
  return t_out;
}
