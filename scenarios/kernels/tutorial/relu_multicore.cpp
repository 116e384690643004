// The custom-op MLP performance tutorial's ReLU on every GPSIMD core, as the tutorial builds it
// (public Neuron samples, torch-neuronx/inference/customop_mlp/neuron-multicore/relu.cpp): the
// output is the destination tensor every core writes; core k takes the k-th of cpu_count equal
// partitions (the last one the remainder) and stages it through its TCM in 1024-float chunks.
// Calibrates the neuron-gpsimd profile (docs/kernel-accuracy.md).
#include <neuron/neuron-utils.hpp>
#include <torch/torch.h>

torch::Tensor relu_forward(const torch::Tensor& t_in) {
  constexpr size_t kChunk = 1024;
  const size_t count = static_cast<size_t>(t_in.numel());
  torch::Tensor t_out = get_dst_tensor();
  const uint32_t cpu = get_cpu_id(), cpus = get_cpu_count();
  const size_t share = count / cpus;
  const size_t first = share * cpu;
  const size_t mine = cpu == cpus - 1 ? count - first : share;
  float* buf = static_cast<float*>(torch::neuron::tcm_malloc(sizeof(float) * kChunk));
  auto in = t_in.tcm_accessor();
  auto out = t_out.tcm_accessor();
  for (size_t at = first; at < first + mine; at += kChunk) {
    const size_t len = first + mine - at < kChunk ? first + mine - at : kChunk;
    in.tensor_to_tcm<float>(buf, at, len);
    for (size_t k = 0; k < len; ++k) buf[k] = buf[k] > 0.0f ? buf[k] : 0.0f;
    out.tcm_to_tensor<float>(buf, at, len);
  }
  torch::neuron::tcm_free(buf);
  return t_out;
}
