// The shape functions and the registration of the kernel-cost test kernels.
#include <torch/torch.h>

torch::Tensor kc_same_shape(const torch::Tensor& t) { return torch::empty(t.sizes(), torch::kFloat); }
torch::Tensor kc_one(const torch::Tensor&, int64_t) { return torch::empty({1}, torch::kFloat); }

NEURON_LIBRARY(npusim_kernel_cost_tests, m) {
  m.def("kc_copy", &kc_same_shape, "kc_copy");
  m.def("kc_poly4", &kc_same_shape, "kc_poly4");
  m.def("kc_poly8", &kc_same_shape, "kc_poly8");
  m.def("kc_scale", &kc_same_shape, "kc_scale");
  m.def("kc_recurrence", &kc_same_shape, "kc_recurrence");
  m.def("kc_branch", &kc_same_shape, "kc_branch");
  m.def("kc_compute_only", &kc_one, "kc_compute_only");
  m.def("kc_opt_o0", &kc_same_shape, "kc_opt_o0");
  m.def("kc_opt_o2", &kc_same_shape, "kc_opt_o2");
  m.def("kc_plain", &kc_same_shape, "kc_plain");
}
