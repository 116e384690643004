// Multicore helpers of Neuron custom C++ operators (npusim implementation): a multicore kernel
// runs on every GPSIMD core at once; each core finds its share of the work from its id and
// writes it into the one output tensor, get_dst_tensor().
#pragma once

#include <cstdint>

#include <torch/torch.h>

uint32_t get_cpu_id();
uint32_t get_cpu_count();
torch::Tensor get_dst_tensor();

namespace torch::neuron {
using ::get_cpu_count;
using ::get_cpu_id;
using ::get_dst_tensor;
}  // namespace torch::neuron
