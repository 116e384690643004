// Kernels that try to take the simulator down, one way each, for tests/contain/contain_test.py:
// each must end in a kernel fault with complete outputs, never a signal or a lost report.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include <neuron/neuron-utils.hpp>
#include <torch/torch.h>

namespace {
volatile int g_zero = 0, g_one = 1;
int* volatile g_null = nullptr;

struct Oops {
  int code;
};

// No tail call and a frame per level: a recursion that only ends on the guard page.
__attribute__((noinline)) int recurse(int n) {
  volatile char pad[256];
  pad[n % 256] = static_cast<char>(n);
  return recurse(n + 1) + pad[(n + 1) % 256];
}

// A recursion that allocates a tensor per level: the stack check at the library sees it.
__attribute__((noinline)) int recurse_empty(int n) {
  volatile char pad[256];
  torch::Tensor t = torch::empty({1}, torch::kFloat);
  pad[n % 256] = static_cast<char>(n);
  return recurse_empty(n + 1) + pad[(n + 1) % 256] + static_cast<int>(t.numel());
}

void throws_in_noexcept() noexcept { throw std::logic_error("from a noexcept function"); }
}  // namespace

// A raw tcm_malloc pointer read far past its block, where the host has nothing mapped (the
// first unmapped 16 MiB step from the block, found with msync, which fails on unmapped pages).
torch::Tensor hostile_tcm_far(const torch::Tensor& t_in) {
  auto* block = static_cast<char*>(torch::neuron::tcm_malloc(4096));
  const uintptr_t page = reinterpret_cast<uintptr_t>(block) & ~uintptr_t{4095};
  for (uintptr_t k = 1; k < 200; ++k) {
    void* at = reinterpret_cast<void*>(page + k * (uintptr_t{16} << 20));
    if (msync(at, 4096, MS_ASYNC) != 0) {
      g_one = *static_cast<volatile int*>(at);
      break;
    }
  }
  torch::neuron::tcm_free(block);
  return torch::empty(t_in.sizes(), torch::kFloat);
}

torch::Tensor hostile_null(const torch::Tensor& t_in) {
  *g_null = 1;
  return t_in;
}
torch::Tensor hostile_null_after_call(const torch::Tensor& t_in) {
  torch::Tensor t = torch::empty(t_in.sizes(), torch::kFloat);
  float* buf = static_cast<float*>(torch::neuron::tcm_malloc(64));
  torch::neuron::tcm_free(buf);
  *g_null = 1;
  return t;
}
torch::Tensor hostile_abort(const torch::Tensor& t_in) {
  std::abort();
  return t_in;
}
torch::Tensor hostile_exit(const torch::Tensor& t_in) {
  std::exit(3);
  return t_in;
}
torch::Tensor hostile_quick_exit(const torch::Tensor& t_in) {
  _exit(4);
  return t_in;
}
torch::Tensor hostile_throw_int(const torch::Tensor& t_in) {
  if (g_zero == 0) throw 42;
  return t_in;
}
torch::Tensor hostile_throw_struct(const torch::Tensor& t_in) {
  if (g_zero == 0) throw Oops{7};
  return t_in;
}
torch::Tensor hostile_throw_runtime(const torch::Tensor& t_in) {
  if (g_zero == 0) throw std::runtime_error("the kernel gives up");
  return t_in;
}
torch::Tensor hostile_terminate(const torch::Tensor& t_in) {
  throws_in_noexcept();
  return t_in;
}
torch::Tensor hostile_recurse(const torch::Tensor& t_in) {
  return recurse(0) ? t_in : t_in;
}
// Locals four times the core thread's host stack (8 MiB): the frame reaches far below the
// stack's guards at once.
__attribute__((noinline)) torch::Tensor hostile_big_locals(const torch::Tensor& t_in) {
  volatile char big[32u << 20];
  big[0] = 1;
  big[sizeof big - 1] = 2;
  return big[0] + big[sizeof big - 1] == 3 ? t_in : t_in;
}
torch::Tensor hostile_recurse_empty(const torch::Tensor& t_in) {
  return recurse_empty(0) ? t_in : t_in;
}
torch::Tensor hostile_fpe(const torch::Tensor& t_in) {
  volatile int x = g_one / g_zero;
  (void)x;
  return t_in;
}
torch::Tensor hostile_trap(const torch::Tensor& t_in) {
  if (g_zero == 0) __builtin_trap();
  return t_in;
}
// A read of a file mapping past the file's end.
torch::Tensor hostile_bus(const torch::Tensor& t_in) {
  FILE* f = std::tmpfile();
  void* p = mmap(nullptr, 4096, PROT_READ, MAP_SHARED, fileno(f), 0);
  volatile char c = static_cast<volatile char*>(p)[0];
  (void)c;
  return t_in;
}
// Spins in its own code, never calling the library; says so first (the tests wait for it).
torch::Tensor hostile_spin(const torch::Tensor& t_in) {
  std::printf("hostile_spin: spinning\n");
  std::fflush(stdout);
  volatile unsigned long n = 0;
  while (g_zero == 0) n = n + 1;
  return t_in;
}
// Calls the library forever: the cycle budget ends it.
torch::Tensor hostile_calls_forever(const torch::Tensor& t_in) {
  while (g_zero == 0) torch::neuron::tcm_free(torch::neuron::tcm_malloc(64));
  return t_in;
}
// Returns an int32 tensor of 7 elements where the shape function promises its input's shape.
torch::Tensor hostile_bad_shape(const torch::Tensor&) { return torch::zeros({7}, torch::kInt); }
// The right dtype, half the elements promised.
torch::Tensor hostile_short_result(const torch::Tensor& t) { return torch::zeros({t.numel() / 2}, torch::kFloat); }
// Core 3 of a multicore run dereferences null after a library call.
torch::Tensor hostile_null_core3(const torch::Tensor&) {
  torch::Tensor t_out = get_dst_tensor();
  float* buf = static_cast<float*>(torch::neuron::tcm_malloc(64));
  torch::neuron::tcm_free(buf);
  if (get_cpu_id() == 3) *g_null = 3;
  return t_out;
}

torch::Tensor hostile_same(const torch::Tensor& t) { return torch::empty(t.sizes(), torch::kFloat); }
// A shape function that crashes (it runs on the host, before the simulation).
torch::Tensor hostile_shape_crashes(const torch::Tensor& t) {
  *g_null = 2;
  return torch::empty(t.sizes(), torch::kFloat);
}

// A shape function that spins (before the simulation); says so first (the test waits for it).
torch::Tensor hostile_shape_spins(const torch::Tensor& t) {
  std::printf("hostile_shape_spin: spinning\n");
  std::fflush(stdout);
  volatile unsigned long n = 0;
  while (g_zero == 0) n = n + 1;
  return torch::empty(t.sizes(), torch::kFloat);
}

NEURON_LIBRARY(npusim_hostile, m) {
  m.def("hostile_null", &hostile_same, "hostile_null");
  m.def("hostile_tcm_far", &hostile_same, "hostile_tcm_far");
  m.def("hostile_null_after_call", &hostile_same, "hostile_null_after_call");
  m.def("hostile_abort", &hostile_same, "hostile_abort");
  m.def("hostile_exit", &hostile_same, "hostile_exit");
  m.def("hostile_quick_exit", &hostile_same, "hostile_quick_exit");
  m.def("hostile_throw_int", &hostile_same, "hostile_throw_int");
  m.def("hostile_throw_struct", &hostile_same, "hostile_throw_struct");
  m.def("hostile_throw_runtime", &hostile_same, "hostile_throw_runtime");
  m.def("hostile_terminate", &hostile_same, "hostile_terminate");
  m.def("hostile_recurse", &hostile_same, "hostile_recurse");
  m.def("hostile_recurse_empty", &hostile_same, "hostile_recurse_empty");
  m.def("hostile_big_locals", &hostile_same, "hostile_big_locals");
  m.def("hostile_fpe", &hostile_same, "hostile_fpe");
  m.def("hostile_trap", &hostile_same, "hostile_trap");
  m.def("hostile_bus", &hostile_same, "hostile_bus");
  m.def("hostile_spin", &hostile_same, "hostile_spin");
  m.def("hostile_calls_forever", &hostile_same, "hostile_calls_forever");
  m.def("hostile_bad_shape", &hostile_same, "hostile_bad_shape");
  m.def("hostile_short_result", &hostile_same, "hostile_short_result");
  m.def("hostile_null_core3", &hostile_same, "hostile_null_core3");
  m.def("hostile_shape_crash", &hostile_shape_crashes, "hostile_null");
  m.def("hostile_shape_spin", &hostile_shape_spins, "hostile_null");
}
