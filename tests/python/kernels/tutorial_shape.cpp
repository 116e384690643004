// Shape functions and registration of tutorial.cpp, as the guides write a shape file.
#include <stdint.h>
#include <stdlib.h>
#include <torch/torch.h>
#include "torchneuron/register.h"

torch::Tensor same_shape(torch::Tensor t_in) { return torch::zeros(t_in.sizes(), torch::kFloat); }

torch::Tensor flat_shape(torch::Tensor t_in) {
  size_t num_elem = t_in.numel();
  return torch::zeros({num_elem}, torch::kFloat);
}

torch::Tensor same_shape_dtype(torch::Tensor t_in) { return torch::zeros(t_in.sizes(), t_in.scalar_type()); }

torch::Tensor add_shape(torch::Tensor t1, torch::Tensor t2) { return torch::zeros(t1.sizes(), torch::kFloat); }

torch::Tensor clamp_shape(torch::Tensor t_in, double lo, double hi) { return torch::zeros(t_in.sizes(), torch::kFloat); }

torch::Tensor mul_int_shape(torch::Tensor t_in, int64_t k) { return torch::zeros(t_in.sizes(), t_in.scalar_type()); }

NEURON_LIBRARY(tutorial, m) {
  m.def("relu_std2d", &same_shape, "relu_std2d");
  m.def("relu_tcm_chunked", &same_shape, "relu_tcm_chunked");
  m.def("relu_tcm_flat", &same_shape, "relu_tcm_flat");
  m.def("negate_guide", &flat_shape, "negate_guide");
  m.def("negate_tcm", &same_shape, "negate_tcm");
  m.def("add_stream", &add_shape, "add_stream");
  m.def("neg_any", &same_shape_dtype, "neg_any");
  m.def("clamp_tcm", &clamp_shape, "clamp_tcm");
  m.def("mul_int", &mul_int_shape, "mul_int");
  m.def("gelu_tcm", &same_shape, "gelu_tcm");
}
