// The ReLU of the MLP example, forward and backward, with the TCM accessor: each chunk of up
// to 1024 floats moves into TCM by DMA, is worked on there and moves back. As in the published
// tutorial, each kernel returns its numel() elements flat; the op's result has the shape
// function's shape (shape.cpp).
#include <stdint.h>
#include <stdlib.h>
#include <torch/torch.h>

static constexpr size_t kChunk = 1024;

torch::Tensor relu_forward(const torch::Tensor& t_in) {
  size_t num_elem = t_in.numel();
  torch::Tensor t_out = torch::zeros({num_elem}, torch::kFloat);
  float* buf = (float*)torch::neuron::tcm_malloc(sizeof(float) * kChunk);
  auto in = t_in.tcm_accessor();
  auto out = t_out.tcm_accessor();
  for (size_t i = 0; i < num_elem; i += kChunk) {
    size_t n = num_elem - i < kChunk ? num_elem - i : kChunk;
    in.tensor_to_tcm<float>(buf, i, n);
    for (size_t j = 0; j < n; j++) buf[j] = buf[j] > 0.0f ? buf[j] : 0.0f;
    out.tcm_to_tensor<float>(buf, i, n);
  }
  torch::neuron::tcm_free(buf);
  return t_out;
}

// The gradient passes where the input was positive.
torch::Tensor relu_backward(const torch::Tensor& t_grad, const torch::Tensor& t_in) {
  size_t num_elem = t_in.numel();
  torch::Tensor t_out = torch::zeros({num_elem}, torch::kFloat);
  float* grad = (float*)torch::neuron::tcm_malloc(sizeof(float) * kChunk);
  float* in = (float*)torch::neuron::tcm_malloc(sizeof(float) * kChunk);
  auto grad_acc = t_grad.tcm_accessor();
  auto in_acc = t_in.tcm_accessor();
  auto out_acc = t_out.tcm_accessor();
  for (size_t i = 0; i < num_elem; i += kChunk) {
    size_t n = num_elem - i < kChunk ? num_elem - i : kChunk;
    grad_acc.tensor_to_tcm<float>(grad, i, n);
    in_acc.tensor_to_tcm<float>(in, i, n);
    for (size_t j = 0; j < n; j++) grad[j] = in[j] > 0.0f ? grad[j] : 0.0f;
    out_acc.tcm_to_tensor<float>(grad, i, n);
  }
  torch::neuron::tcm_free(in);
  torch::neuron::tcm_free(grad);
  return t_out;
}
