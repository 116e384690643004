// Shape function and registration of the plugin example.
#include <torch/torch.h>

torch::Tensor clamp_unit_shape(const torch::Tensor& t_in) {
  return torch::empty(t_in.sizes(), torch::kFloat);
}

NEURON_LIBRARY(npusim_plugin_example, m) {
  m.def("clamp_unit_tcm", &clamp_unit_shape, "clamp_unit_tcm");
}
