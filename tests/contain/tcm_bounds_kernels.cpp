// Kernels whose raw tcm_malloc pointers reach outside their blocks but stay inside the core's
// TCM, for tests/contain/contain_test.py (the tcm_* cases), built with `npusim op build` (the
// kernel-cost pass and its TCM bounds check). Each faulting access carries a marker comment the
// test finds to know the access's source line.
#include <cstring>

#include <neuron/neuron-utils.hpp>
#include <torch/torch.h>

namespace {
volatile float g_sink = 0;
}  // namespace

torch::Tensor tcm_same(const torch::Tensor& t) { return torch::empty(t.sizes(), torch::kFloat); }

// A write 4 KiB past the end of a 4 KiB block: inside the TCM's dataram pool, in no block.
torch::Tensor tcm_overrun_write(const torch::Tensor& t_in) {
  auto* buf = static_cast<float*>(torch::neuron::tcm_malloc(4096));
  volatile float* v = buf;
  v[2048] = 1.0f;  // MARK:overrun
  torch::neuron::tcm_free(buf);
  return torch::empty(t_in.sizes(), torch::kFloat);
}

// A read of the 16 bytes before a block (the first of the pool: below it is the TCM's data).
torch::Tensor tcm_underrun_read(const torch::Tensor& t_in) {
  auto* buf = static_cast<float*>(torch::neuron::tcm_malloc(4096));
  volatile float* v = buf;
  g_sink = v[-4];  // MARK:underrun
  torch::neuron::tcm_free(buf);
  return torch::empty(t_in.sizes(), torch::kFloat);
}

// A read through the pointer of a block tcm_free gave back.
torch::Tensor tcm_after_free(const torch::Tensor& t_in) {
  auto* buf = static_cast<float*>(torch::neuron::tcm_malloc(4096));
  buf[10] = 2.0f;
  torch::neuron::tcm_free(buf);
  volatile float* v = buf;
  g_sink = v[10];  // MARK:after_free
  return torch::empty(t_in.sizes(), torch::kFloat);
}

// Every byte of two blocks, up to the last one of each, by stores, loads and memset: no fault.
torch::Tensor tcm_last_byte(const torch::Tensor& t_in) {
  auto* a = static_cast<char*>(torch::neuron::tcm_malloc(4096));
  auto* b = static_cast<char*>(torch::neuron::tcm_malloc(100));
  std::memset(a, 0, 4096);
  std::memset(b, 0, 100);
  volatile char* va = a;
  volatile char* vb = b;
  va[4095] = 7;
  vb[99] = 9;
  g_sink = static_cast<float>(va[4095] + vb[99] + va[0] + vb[0]);
  torch::neuron::tcm_free(b);
  torch::neuron::tcm_free(a);
  return torch::empty(t_in.sizes(), torch::kFloat);
}

// Eight cores, each with its own block, work in bounds, a DMA between their accesses letting the
// others run; then core 3 writes 1 KiB past its block.
torch::Tensor tcm_overrun_core3(const torch::Tensor& t_in) {
  torch::Tensor t_out = get_dst_tensor();
  auto* buf = static_cast<float*>(torch::neuron::tcm_malloc(4096));
  auto in = t_in.tcm_accessor();
  volatile float* v = buf;
  for (int round = 0; round < 4; ++round) {
    in.tensor_to_tcm<float>(buf, 0, 256);
    for (int i = 0; i < 1024; ++i) v[i] = v[i % 256] * 2.0f;
  }
  if (get_cpu_id() == 3) v[1280] = 1.0f;  // MARK:core3
  torch::neuron::tcm_free(buf);
  return t_out;
}

NEURON_LIBRARY(npusim_tcm_bounds, m) {
  m.def("tcm_overrun_write", &tcm_same, "tcm_overrun_write");
  m.def("tcm_underrun_read", &tcm_same, "tcm_underrun_read");
  m.def("tcm_after_free", &tcm_same, "tcm_after_free");
  m.def("tcm_last_byte", &tcm_same, "tcm_last_byte");
  m.def("tcm_overrun_core3", &tcm_same, "tcm_overrun_core3");
}
