// The tutorial's multicore ReLU: core k takes the k-th contiguous share of the elements and
// stages it through its own TCM into get_dst_tensor(). Built with multicore=True.
#include <neuron/neuron-utils.hpp>
#include <torch/torch.h>

#include <algorithm>

torch::Tensor relu_mc(const torch::Tensor& t_in) {
  constexpr size_t kChunk = 1024;
  torch::Tensor t_out = get_dst_tensor();
  const size_t cores = get_cpu_count(), me = get_cpu_id();
  const size_t n = t_in.numel();
  const size_t share = (n + cores - 1) / cores;
  const size_t begin = std::min(n, me * share), end = std::min(n, begin + share);
  float* buf = static_cast<float*>(torch::neuron::tcm_malloc(kChunk * sizeof(float)));
  auto in = t_in.tcm_accessor();
  auto out = t_out.tcm_accessor();
  for (size_t first = begin; first < end; first += kChunk) {
    const size_t len = std::min(kChunk, end - first);
    in.tensor_to_tcm<float>(buf, first, len);
    for (size_t i = 0; i < len; i++) buf[i] = buf[i] > 0.0f ? buf[i] : 0.0f;
    out.tcm_to_tensor<float>(buf, first, len);
  }
  torch::neuron::tcm_free(buf);
  return t_out;
}
