// Kernels that fault on the device, for the Python tests of device faults and Ctrl-C.
#include <torch/torch.h>

// Reads one element past the end of its input.
torch::Tensor read_past_end(const torch::Tensor& t_in) {
  torch::Tensor t_out = torch::zeros(t_in.sizes(), torch::kFloat);
  auto in = t_in.accessor<float, 1>();
  auto out = t_out.accessor<float, 1>();
  for (int64_t i = 0; i <= t_in.numel(); i++) out[i % t_in.numel()] = in[i];
  return t_out;
}

// Asks for 64 KiB of the 16 KiB TCM pool.
torch::Tensor tcm_exhausted(const torch::Tensor& t_in) {
  void* p = torch::neuron::tcm_malloc(64 * 1024);
  if (p) torch::neuron::tcm_free(p);
  return torch::zeros(t_in.sizes(), torch::kFloat);
}

// Long: `rounds` passes over its input through the standard accessor (each element a trip to
// HBM), for the Ctrl-C test.
torch::Tensor slow_copy(const torch::Tensor& t_in, int64_t rounds) {
  torch::Tensor t_out = torch::zeros(t_in.sizes(), torch::kFloat);
  auto in = t_in.accessor<float, 1>();
  auto out = t_out.accessor<float, 1>();
  for (int64_t r = 0; r < rounds; r++)
    for (int64_t i = 0; i < t_in.numel(); i++) out[i] = in[i];
  return t_out;
}

// Writes through a null pointer: a crash of the kernel's own code, not a library call.
torch::Tensor write_null(const torch::Tensor& t_in) {
  volatile float* p = nullptr;
  *p = 1.0f;
  return torch::zeros(t_in.sizes(), torch::kFloat);
}
