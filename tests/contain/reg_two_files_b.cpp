// The second shape file of the reg_two_files plugin (reg_plugins.cpp has the first): it
// registers the same op again.
#include <torch/torch.h>

torch::Tensor reg_shape_b(const torch::Tensor& t) { return torch::empty(t.sizes(), torch::kFloat); }
NEURON_LIBRARY(reg_two_files, m) { m.def("twofile_op", &reg_shape_b, "reg_kernel"); }
