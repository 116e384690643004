// The frame of the kernel-cost test kernels: the input staged through a 1024-float TCM buffer,
// `body(buf, n)` applied to each chunk, the chunk written to the output. The frame is the same
// for every kernel, so the kernels' costs differ by their bodies only.
#pragma once

#include <torch/torch.h>

#include <algorithm>
#include <cstddef>

template <class Body>
torch::Tensor kc_staged(const torch::Tensor& t_in, Body body) {
  constexpr size_t kChunk = 1024;
  const size_t n = static_cast<size_t>(t_in.numel());
  torch::Tensor t_out = torch::empty(t_in.sizes(), torch::kFloat);
  float* buf = static_cast<float*>(torch::neuron::tcm_malloc(kChunk * sizeof(float)));
  auto in = t_in.tcm_accessor();
  auto out = t_out.tcm_accessor();
  for (size_t first = 0; first < n; first += kChunk) {
    const size_t len = std::min(kChunk, n - first);
    in.tensor_to_tcm<float>(buf, first, len);
    body(buf, len);
    out.tcm_to_tensor<float>(buf, first, len);
  }
  torch::neuron::tcm_free(buf);
  return t_out;
}

// A degree-4 polynomial by Horner's rule: four multiply-adds per element.
inline float kc_poly4_of(float x) { return (((0.1f * x + 0.2f) * x + 0.3f) * x + 0.4f) * x + 0.5f; }
