// The shape file of negate_stream.cpp, as the guides write it.
#include <stdint.h>
#include <stdlib.h>
#include <torch/torch.h>
#include "torchneuron/register.h"

torch::Tensor negate_shape(torch::Tensor t1) {
  size_t num_elem = t1.numel();
  return torch::zeros({num_elem}, torch::kFloat);
}

NEURON_LIBRARY(npusim_opbuild_example, m) {
  m.def("negate_stream", &negate_shape, "negate_stream_compute");
}
