// Kernels in the style of the published tutorials (the MLP ReLU with the standard and the TCM
// accessor) and of the SDK guides (negate, stream add), for the Python tests, which call them
// as torch ops and compare them with torch. Op names differ from the ops linked into npusim.
#include <stdint.h>
#include <stdlib.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>

// ReLU with the standard accessor on a 2-D tensor, as the MLP tutorial's training kernel.
torch::Tensor relu_std2d(const torch::Tensor& t_in) {
  torch::Tensor t_out = torch::zeros(t_in.sizes(), torch::kFloat);
  auto in = t_in.accessor<float, 2>();
  auto out = t_out.accessor<float, 2>();
  for (int64_t i = 0; i < t_in.size(0); i++)
    for (int64_t j = 0; j < t_in.size(1); j++) out[i][j] = in[i][j] > 0.0f ? in[i][j] : 0.0f;
  return t_out;
}

// ReLU through a 1024-float TCM buffer, any shape.
torch::Tensor relu_tcm_chunked(const torch::Tensor& t_in) {
  constexpr size_t kChunk = 1024;
  const size_t n = t_in.numel();
  torch::Tensor t_out = torch::zeros(t_in.sizes(), torch::kFloat);
  float* buf = static_cast<float*>(torch::neuron::tcm_malloc(kChunk * sizeof(float)));
  auto in = t_in.tcm_accessor();
  auto out = t_out.tcm_accessor();
  for (size_t first = 0; first < n; first += kChunk) {
    const size_t len = std::min(kChunk, n - first);
    in.tensor_to_tcm<float>(buf, first, len);
    for (size_t i = 0; i < len; i++) buf[i] = buf[i] > 0.0f ? buf[i] : 0.0f;
    out.tcm_to_tensor<float>(buf, first, len);
  }
  torch::neuron::tcm_free(buf);
  return t_out;
}

// The same, as the published TCM kernel writes it: a flat output of numel elements, while
// the shape function gives the input's shape (the op's result takes the shape function's).
torch::Tensor relu_tcm_flat(const torch::Tensor& t_in) {
  constexpr size_t kChunk = 1024;
  const size_t n = t_in.numel();
  torch::Tensor t_out = torch::zeros({static_cast<int64_t>(n)}, torch::kFloat);
  float* buf = static_cast<float*>(torch::neuron::tcm_malloc(kChunk * sizeof(float)));
  auto in = t_in.tcm_accessor();
  auto out = t_out.tcm_accessor();
  for (size_t first = 0; first < n; first += kChunk) {
    const size_t len = std::min(kChunk, n - first);
    in.tensor_to_tcm<float>(buf, first, len);
    for (size_t i = 0; i < len; i++) buf[i] = buf[i] > 0.0f ? buf[i] : 0.0f;
    out.tcm_to_tensor<float>(buf, first, len);
  }
  torch::neuron::tcm_free(buf);
  return t_out;
}

// The developer guide's negate: a 1-D standard accessor, a flat output of numel elements.
torch::Tensor negate_guide(const torch::Tensor& t_in) {
  size_t num_elem = t_in.numel();
  torch::Tensor t_out = torch::zeros({num_elem}, torch::kFloat);
  auto in = t_in.accessor<float, 1>();
  auto out = t_out.accessor<float, 1>();
  for (size_t i = 0; i < num_elem; i++) out[i] = -1 * in[i];
  return t_out;
}

// The reference guide's negate with the TCM accessor, any shape.
torch::Tensor negate_tcm(const torch::Tensor& t_in) {
  static constexpr size_t kBuffer = 1024;
  size_t num_elem = t_in.numel();
  torch::Tensor t_out = torch::empty(t_in.sizes(), torch::kFloat);
  float* tcm = static_cast<float*>(torch::neuron::tcm_malloc(sizeof(float) * kBuffer));
  auto in = t_in.tcm_accessor();
  auto out = t_out.tcm_accessor();
  for (size_t i = 0; i < num_elem; i += kBuffer) {
    size_t n = std::min(kBuffer, num_elem - i);
    in.tensor_to_tcm<float>(tcm, i, n);
    for (size_t j = 0; j < n; j++) tcm[j] *= -1;
    out.tcm_to_tensor<float>(tcm, i, n);
  }
  torch::neuron::tcm_free(tcm);
  return t_out;
}

// The reference guide's element-wise add with two read streams and a write stream.
torch::Tensor add_stream(const torch::Tensor& t1, const torch::Tensor& t2) {
  assert(t1.sizes() == t2.sizes());
  torch::Tensor t_out = torch::empty(t1.sizes(), torch::kFloat);
  auto a = t1.read_stream_accessor<float>();
  auto b = t2.read_stream_accessor<float>();
  auto out = t_out.write_stream_accessor<float>();
  for (int64_t i = 0; i < t1.numel(); i++) out.write(a.read() + b.read());
  return t_out;
}

// The library's element-wise neg: any dtype of the device.
torch::Tensor neg_any(const torch::Tensor& t_in) { return torch::neg(t_in); }

// Scalar arguments: clamps to [lo, hi] through TCM.
torch::Tensor clamp_tcm(const torch::Tensor& t_in, double lo, double hi) {
  constexpr size_t kChunk = 512;
  const size_t n = t_in.numel();
  torch::Tensor t_out = torch::empty(t_in.sizes(), torch::kFloat);
  float* buf = static_cast<float*>(torch::neuron::tcm_malloc(kChunk * sizeof(float)));
  auto in = t_in.tcm_accessor();
  auto out = t_out.tcm_accessor();
  const float l = static_cast<float>(lo), h = static_cast<float>(hi);
  for (size_t first = 0; first < n; first += kChunk) {
    const size_t len = std::min(kChunk, n - first);
    in.tensor_to_tcm<float>(buf, first, len);
    for (size_t i = 0; i < len; i++) buf[i] = std::min(h, std::max(l, buf[i]));
    out.tcm_to_tensor<float>(buf, first, len);
  }
  torch::neuron::tcm_free(buf);
  return t_out;
}

// An int64_t scalar: multiplies by k with the library's mul.
torch::Tensor mul_int(const torch::Tensor& t_in, int64_t k) { return torch::mul(t_in, k); }

// GELU (tanh approximation) through TCM: a transcendental op, compared with torch's within a
// tolerance (the host's tanhf and torch's own tanh may differ in the last bit).
torch::Tensor gelu_tcm(const torch::Tensor& t_in) {
  constexpr size_t kChunk = 1024;
  const size_t n = t_in.numel();
  torch::Tensor t_out = torch::empty(t_in.sizes(), torch::kFloat);
  float* buf = static_cast<float*>(torch::neuron::tcm_malloc(kChunk * sizeof(float)));
  auto in = t_in.tcm_accessor();
  auto out = t_out.tcm_accessor();
  const float k = 0.7978845608f;  // sqrt(2 / pi)
  for (size_t first = 0; first < n; first += kChunk) {
    const size_t len = std::min(kChunk, n - first);
    in.tensor_to_tcm<float>(buf, first, len);
    for (size_t i = 0; i < len; i++) {
      const float x = buf[i];
      buf[i] = 0.5f * x * (1.0f + std::tanh(k * (x + 0.044715f * x * x * x)));
    }
    out.tcm_to_tensor<float>(buf, first, len);
  }
  torch::neuron::tcm_free(buf);
  return t_out;
}
