#include <torch/torch.h>
#include "torchneuron/register.h"

torch::Tensor same(torch::Tensor t_in) { return torch::zeros(t_in.sizes(), torch::kFloat); }
torch::Tensor same_rounds(torch::Tensor t_in, int64_t rounds) { return torch::zeros(t_in.sizes(), torch::kFloat); }

NEURON_LIBRARY(faulty, m) {
  m.def("read_past_end", &same, "read_past_end");
  m.def("tcm_exhausted", &same, "tcm_exhausted");
  m.def("slow_copy", &same_rounds, "slow_copy");
  m.def("write_null", &same, "write_null");
}
