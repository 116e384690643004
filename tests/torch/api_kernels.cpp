// Kernels written from the public guides and reference: the kernel lookup with
// every way of passing the schema's parameters, the braced size lists of the SDK examples, the
// documented names npusim lacked, and a fault while a stream closes in its destructor.
#include <neuron/neuron-utils.hpp>
#include <torch/torch.h>

#include "torchneuron/register.h"

// --- lookup: the shape function takes the tensor by value (as the samples do) ---
torch::Tensor lookup_cref(const torch::Tensor& t) { return torch::neg(t); }
torch::Tensor lookup_ref(torch::Tensor& t) { return torch::abs(t); }
torch::Tensor lookup_value(torch::Tensor t) { return torch::exp(t); }
// Shape (const Tensor&, Tensor, double); kernel (Tensor, const Tensor&, const double&).
torch::Tensor lookup_mixed(torch::Tensor a, const torch::Tensor& b, const double& s) {
  return torch::add(torch::mul(a, s), b);
}
// The kernel takes a float where its shape function takes a double: the types differ.
torch::Tensor lookup_float(const torch::Tensor& t, float s) { return torch::mul(t, s); }
// Two overloads of one name: ambiguous for a one-tensor schema.
torch::Tensor lookup_ambiguous(torch::Tensor t) { return t; }
torch::Tensor lookup_ambiguous(const torch::Tensor& t) { return t; }

// --- the SDK examples' size lists: {num_elem} with a size_t, mixed {n, 1}; sizes() == ---
torch::Tensor narrow_sizes(const torch::Tensor& t_in) {
  size_t num_elem = t_in.numel();
  torch::Tensor flat = torch::zeros({num_elem}, torch::kFloat);
  torch::Tensor col = torch::zeros({num_elem, 1}, torch::kFloat);
  assert(flat.sizes() == t_in.sizes());
  const bool same = flat.sizes() == t_in.sizes() && !(col.sizes() == t_in.sizes()) && col.sizes() != flat.sizes();
  torch::Tensor t_out = torch::empty({num_elem}, torch::kFloat);
  auto in = t_in.read_stream_accessor<float>();
  auto out = t_out.write_stream_accessor<float>();
  for (size_t i = 0; i < num_elem; ++i) out.write(same ? in.read() : 0.0f);
  const int rc = in.close() + out.close();  // int close(), as documented
  return rc == 0 ? t_out : torch::Tensor();
}

// --- the names the reference documents on the simulated core ---
torch::Tensor api_more(const torch::Tensor& t_in) {
  torch::Tensor x = torch::clamp(t_in, 0.25, 2.0);
  torch::Tensor acc = torch::tan(x);
  torch::add_out(acc, acc, torch::log2(x));
  torch::Tensor l10 = torch::empty(x.sizes(), torch::kFloat);
  torch::log10_out(l10, x);
  torch::sub_out(acc, acc, 0.5, 2);             // acc - 2 * 0.5
  torch::add_out(acc, acc, l10);
  torch::Tensor p = torch::pow(2.0, x);         // Scalar base
  torch::pow_out(p, 1.5, p);
  torch::add_out(acc, acc, p, 0.125);
  return acc;
}
torch::Tensor api_bits(const torch::Tensor& t_in) {
  torch::Tensor a = torch::bitwise_and(0x0f, t_in);
  torch::Tensor o = torch::empty(t_in.sizes(), torch::kInt);
  torch::bitwise_or_out(o, 0x100, a);
  torch::Tensor r = torch::bitwise_xor(0x3, o);
  torch::Tensor n = torch::empty(t_in.sizes(), torch::kInt);
  torch::bitwise_not(n, r);                     // the two-argument form the reference lists
  return torch::bitwise_and(n, 0xffff);
}

// --- a fault while a write stream closes at scope exit (no explicit close()) ---
// The SDK's stream add: three streams. With the seed dataram layout the third 4 KiB buffer
// overlaps the dataram heap header, so more than 3520 bytes written into it corrupt the heap
// and the free at close takes a bus error -- in the write stream's destructor.
torch::Tensor stream_add_scope_exit(const torch::Tensor& t1, const torch::Tensor& t2) {
  torch::Tensor t_out = torch::empty(t1.sizes(), torch::kFloat);
  auto a = t1.read_stream_accessor<float>();
  auto b = t2.read_stream_accessor<float>();
  auto out = t_out.write_stream_accessor<float>();
  for (int64_t i = 0; i < t1.numel(); i++) out.write(a.read() + b.read());
  return t_out;  // the accessors close here, in their destructors
}

static torch::Tensor same_shape(torch::Tensor t) { return torch::empty(t.sizes(), t.scalar_type()); }
static torch::Tensor two_shape(torch::Tensor t1, torch::Tensor) { return torch::empty(t1.sizes(), torch::kFloat); }
static torch::Tensor mixed_shape(const torch::Tensor& a, torch::Tensor, double) {
  return torch::empty(a.sizes(), torch::kFloat);
}
static torch::Tensor scaled_shape(torch::Tensor a, double) { return torch::empty(a.sizes(), torch::kFloat); }

NEURON_LIBRARY(npusim_api_kernels, m) {
  m.def("lookup_cref", &same_shape, "lookup_cref");
  m.def("lookup_ref", &same_shape, "lookup_ref");
  m.def("lookup_value", &same_shape, "lookup_value");
  m.def("lookup_mixed", &mixed_shape, "lookup_mixed");
  m.def("lookup_ambiguous", &same_shape, "lookup_ambiguous");
  m.def("lookup_missing", &same_shape, "no_such_kernel");
  m.def("lookup_float_vs_double", &scaled_shape, "lookup_float");
  m.def("narrow_sizes", &same_shape, "narrow_sizes");
  m.def("api_more", &same_shape, "api_more");
  m.def("api_bits", &same_shape, "api_bits");
  m.def("stream_add_scope_exit", &two_shape, "stream_add_scope_exit");
}
