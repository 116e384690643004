// Shape functions of the example kernels and their registration: the output has the input's
// shape (ReLU, GELU) or one element per row (row sums). Built for the host.
#include <torch/torch.h>

torch::Tensor same_shape_float(const torch::Tensor& t_in) {
  return torch::empty(t_in.sizes(), torch::kFloat);
}

torch::Tensor one_per_row(const torch::Tensor& t_in) {
  return torch::empty({t_in.size(0)}, torch::kFloat);
}

NEURON_LIBRARY(npusim_examples, m) {
  m.def("relu_standard", &same_shape_float, "relu_forward_standard");
  m.def("relu_tcm", &same_shape_float, "relu_forward_tcm");
  m.def("relu_multicore", &same_shape_float, "relu_forward_multicore");
  m.def("gelu_tcm", &same_shape_float, "gelu_forward_tcm");
  m.def("row_sum_stream", &one_per_row, "row_sum_stream");
}
