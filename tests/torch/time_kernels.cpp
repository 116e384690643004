// Kernels that spend their time mostly in one kind each, for the tests of where a core's time
// goes (test_torch_sim.cpp, "time by kind").
#include <neuron/neuron-utils.hpp>
#include <torch/torch.h>

#include <algorithm>

#include "firmware/torch/runtime.h"

// A library op on the whole input.
torch::Tensor time_exp(const torch::Tensor& t_in) { return torch::exp(t_in); }

// A multicore ReLU with unequal work: core 0 takes every element through its TCM, the other
// cores return at once and wait for it.
torch::Tensor time_uneven(const torch::Tensor& t_in) {
  constexpr size_t kChunk = 1024;
  torch::Tensor t_out = get_dst_tensor();
  if (get_cpu_id() != 0) return t_out;
  const size_t n = static_cast<size_t>(t_in.numel());
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

// Charges `compute` cycles of compute and `tcm` cycles of TCM/stack access through the
// runtime's charge(), as annotated kernel code does, and returns an empty tensor (no time).
torch::Tensor time_charge(const torch::Tensor& t_in, int64_t compute, int64_t tcm) {
  npusim::torchrt::charge(npusim::torchrt::TimeKind::kCompute, static_cast<uint64_t>(compute));
  npusim::torchrt::charge(npusim::torchrt::TimeKind::kTcmStack, static_cast<uint64_t>(tcm));
  return torch::empty(t_in.sizes(), torch::kFloat);
}

torch::Tensor time_same(const torch::Tensor& t_in) { return torch::empty(t_in.sizes(), torch::kFloat); }
torch::Tensor time_charge_shape(const torch::Tensor& t_in, int64_t, int64_t) {
  return torch::empty(t_in.sizes(), torch::kFloat);
}

NEURON_LIBRARY(npusim_time_kernels, m) {
  m.def("time_exp", &time_same, "time_exp");
  m.def("time_uneven", &time_same, "time_uneven");
  m.def("time_charge", &time_charge_shape, "time_charge");
}
