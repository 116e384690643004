// Kernels that misbehave in the ways docs/custom-ops.md lists, for the tests: each must end
// in a precise report, never a crash of the simulator.
#include <neuron/neuron-utils.hpp>
#include <torch/torch.h>

#include <cstring>

// Asks for 20 KiB of the 16 KiB TCM pool.
torch::Tensor bad_tcm_exceeded(const torch::Tensor& t_in) {
  float* a = static_cast<float*>(torch::neuron::tcm_malloc(12 * 1024));
  float* b = static_cast<float*>(torch::neuron::tcm_malloc(8 * 1024));
  b[0] = a[0];
  torch::neuron::tcm_free(a);
  torch::neuron::tcm_free(b);
  return t_in;
}

// Opens five read streams: the fifth runs at standard-accessor speed.
torch::Tensor bad_five_streams(const torch::Tensor& t_in) {
  torch::Tensor t_out = torch::empty(t_in.sizes(), torch::kFloat);
  auto s0 = t_in.read_stream_accessor<float>();
  auto s1 = t_in.read_stream_accessor<float>();
  auto s2 = t_in.read_stream_accessor<float>();
  auto s3 = t_in.read_stream_accessor<float>();
  auto s4 = t_in.read_stream_accessor<float>();
  auto out = t_out.write_stream_accessor<float>();
  for (int64_t i = 0; i < t_in.numel(); ++i) out.write(s0.read() + s1.read() + s2.read() + s3.read() + s4.read());
  s0.close(); s1.close(); s2.close(); s3.close(); s4.close();
  out.close();
  return t_out;
}

// The standard accessor in a multicore kernel.
torch::Tensor bad_standard_multicore(const torch::Tensor& t_in) {
  torch::Tensor t_out = get_dst_tensor();
  auto in = t_in.accessor<float, 1>();
  auto out = t_out.accessor<float, 1>();
  out[get_cpu_id()] = in[get_cpu_id()];
  return t_out;
}

// 16 KiB of locals on a stack declared smaller (the test sets stack_size).
torch::Tensor bad_stack_overrun(const torch::Tensor& t_in) {
  volatile float big[4096];
  for (int i = 0; i < 4096; ++i) big[i] = static_cast<float>(i);
  float* buf = static_cast<float*>(torch::neuron::tcm_malloc(64));
  t_in.tcm_accessor().tensor_to_tcm<float>(buf, 0, 1);
  buf[0] += big[100];
  torch::neuron::tcm_free(buf);
  return t_in;
}

// Writes 16 elements starting 8 before the end of its output.
torch::Tensor bad_write_outside(const torch::Tensor& t_in) {
  torch::Tensor t_out = torch::zeros(t_in.sizes(), torch::kFloat);
  float* buf = static_cast<float*>(torch::neuron::tcm_malloc(16 * sizeof(float)));
  std::memset(buf, 0, 16 * sizeof(float));
  t_out.tcm_accessor().tcm_to_tensor<float>(buf, static_cast<size_t>(t_out.numel() - 8), 16);
  torch::neuron::tcm_free(buf);
  return t_out;
}

// Every core writes the first 64 elements: overlapping writes between cores.
torch::Tensor bad_overlap(const torch::Tensor& t_in) {
  torch::Tensor t_out = get_dst_tensor();
  float* buf = static_cast<float*>(torch::neuron::tcm_malloc(64 * sizeof(float)));
  t_in.tcm_accessor().tensor_to_tcm<float>(buf, 0, 64);
  t_out.tcm_accessor().tcm_to_tensor<float>(buf, 0, 64);
  torch::neuron::tcm_free(buf);
  return t_out;
}

// Scalars and two tensors: a * alpha + b with the library's element-wise ops.
torch::Tensor axpy_ops(const torch::Tensor& a, const torch::Tensor& b, double alpha) {
  torch::Tensor out = torch::empty(a.sizes(), torch::kFloat);
  torch::Tensor scaled = torch::mul(a, alpha);
  torch::add_out(out, scaled, b);
  return out;
}

// Fills over several port chunks: out = full(a's sizes, -1.75) + a (10000 floats, 40000 bytes).
torch::Tensor fill_ops(const torch::Tensor& a) {
  torch::Tensor f = torch::full(a.sizes(), -1.75, torch::kFloat);
  torch::Tensor out = torch::empty(a.sizes(), torch::kFloat);
  torch::add_out(out, f, a);
  return out;
}

// Reads a stream after closing it.
torch::Tensor bad_read_after_close(const torch::Tensor& t_in) {
  auto in = t_in.read_stream_accessor<float>();
  float v = in.read();
  in.close();
  v += in.read();
  torch::Tensor t_out = torch::empty(t_in.sizes(), torch::kFloat);
  auto out = t_out.write_stream_accessor<float>();
  for (int64_t i = 0; i < t_out.numel(); ++i) out.write(v);
  out.close();
  return t_out;
}

// Reads its input through a stream and a standard accessor at once; `policy` decides.
static torch::Tensor mixed_access(const torch::Tensor& t_in, torch::CoherencyEnforcer::Policy policy) {
  t_in.set_accessor_coherence_policy(policy);
  auto in = t_in.read_stream_accessor<float>();
  auto acc = t_in.accessor<float, 1>();
  torch::Tensor t_out = torch::empty(t_in.sizes(), torch::kFloat);
  auto out = t_out.write_stream_accessor<float>();
  for (int64_t i = 0; i < t_in.numel(); ++i) out.write(in.read() + acc[i]);
  out.close();
  in.close();
  return t_out;
}
torch::Tensor bad_incoherent(const torch::Tensor& t_in) {
  return mixed_access(t_in, torch::CoherencyEnforcer::COHERENT);
}
torch::Tensor incoherent_verbose(const torch::Tensor& t_in) {
  return mixed_access(t_in, torch::CoherencyEnforcer::INCOHERENT_VERBOSE);
}

// Uses a tcm_malloc block after the TCM revoked its DMI grants (the test's hook revokes them
// between the first and the second tcm_malloc): the new block, under a new grant, works; the
// old one is refused.
void (*npusim_test_tcm_hook)() = nullptr;
torch::Tensor tcm_revoked(const torch::Tensor& t_in) {
  const size_t n = 256;
  float* a = static_cast<float*>(torch::neuron::tcm_malloc(n * sizeof(float)));
  auto in = t_in.tcm_accessor();
  in.tensor_to_tcm<float>(a, 0, n);
  if (npusim_test_tcm_hook) npusim_test_tcm_hook();
  float* b = static_cast<float*>(torch::neuron::tcm_malloc(n * sizeof(float)));
  in.tensor_to_tcm<float>(b, 0, n);
  in.tensor_to_tcm<float>(a, 0, n);
  torch::neuron::tcm_free(b);
  torch::neuron::tcm_free(a);
  return t_in;
}

// Returns no tensor.
torch::Tensor bad_no_result(const torch::Tensor&) { return torch::Tensor(); }

torch::Tensor bad_same(const torch::Tensor& t_in) { return torch::empty(t_in.sizes(), torch::kFloat); }
torch::Tensor axpy_shape(const torch::Tensor& a, const torch::Tensor&, double) {
  return torch::empty(a.sizes(), torch::kFloat);
}

NEURON_LIBRARY(npusim_test_kernels, m) {
  m.def("bad_tcm_exceeded", &bad_same, "bad_tcm_exceeded");
  m.def("bad_five_streams", &bad_same, "bad_five_streams");
  m.def("bad_standard_multicore", &bad_same, "bad_standard_multicore");
  m.def("bad_stack_overrun", &bad_same, "bad_stack_overrun");
  m.def("bad_write_outside", &bad_same, "bad_write_outside");
  m.def("bad_overlap", &bad_same, "bad_overlap");
  m.def("axpy_ops", &axpy_shape, "axpy_ops");
  m.def("fill_ops", &bad_same, "fill_ops");
  m.def("bad_no_result", &bad_same, "bad_no_result");
  m.def("bad_read_after_close", &bad_same, "bad_read_after_close");
  m.def("bad_incoherent", &bad_same, "bad_incoherent");
  m.def("incoherent_verbose", &bad_same, "incoherent_verbose");
  m.def("tcm_revoked", &bad_same, "tcm_revoked");
}
