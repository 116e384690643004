// Plugins for the op registry's and the plugin loader's negative tests
// (tests/contain/contain_test.py), one per target: the macro REG_<CASE> picks what this build of
// the file does (tests/contain/CMakeLists.txt).
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include <torch/torch.h>

torch::Tensor reg_kernel(const torch::Tensor& t) { return t; }
torch::Tensor reg_shape(const torch::Tensor& t) { return torch::empty(t.sizes(), torch::kFloat); }

#if defined(REG_DUP_ONE)
// One library registers the same op twice.
NEURON_LIBRARY(reg_dup_one, m) {
  m.def("dup_op", &reg_shape, "reg_kernel");
  m.def("dup_op", &reg_shape, "reg_kernel");
}
#elif defined(REG_TWO_FILES)
// Two shape files of one library (reg_two_files_b.cpp is the other) register the same op.
NEURON_LIBRARY(reg_two_files, m) { m.def("twofile_op", &reg_shape, "reg_kernel"); }
#elif defined(REG_SHARED_A) || defined(REG_SHARED_B)
// Two plugins register the same op.
#if defined(REG_SHARED_A)
NEURON_LIBRARY(reg_shared_a, m) { m.def("shared_op", &reg_shape, "reg_kernel"); }
#else
NEURON_LIBRARY(reg_shared_b, m) { m.def("shared_op", &reg_shape, "reg_kernel"); }
#endif
#elif defined(REG_SHADOW)
// An op with a built-in op's name; its kernel negates (the built-in relu_tcm would not).
torch::Tensor shadow_negate(const torch::Tensor& t) { return torch::neg(t); }
NEURON_LIBRARY(reg_shadow, m) { m.def("relu_tcm", &reg_shape, "shadow_negate"); }
#elif defined(REG_KERNEL_NAME_CLASH)
// A kernel with the name and signature of a kernel linked into npusim (relu_tcm's): the op must
// run this one, which negates.
torch::Tensor relu_forward_tcm(const torch::Tensor& t) { return torch::neg(t); }
NEURON_LIBRARY(reg_kernel_name_clash, m) { m.def("clash_op", &reg_shape, "relu_forward_tcm"); }
#elif defined(REG_EMPTY)
// Registers nothing.
int reg_nothing() { return 1; }
#elif defined(REG_LIBRARY_THROWS)
// The NEURON_LIBRARY block throws.
NEURON_LIBRARY(reg_library_throws, m) {
  m.def("throwing_op", &reg_shape, "reg_kernel");
  throw std::runtime_error("cannot register today");
}
#elif defined(REG_INIT_THROWS) || defined(REG_INIT_CRASHES) || defined(REG_INIT_EXITS)
// A static initialiser that throws, crashes or exits while the library loads.
namespace {
int* volatile g_null = nullptr;
struct Init {
  Init() {
    std::printf("reg_init: starting\n");
    std::fflush(stdout);
#if defined(REG_INIT_THROWS)
    throw std::runtime_error("no configuration found");
#elif defined(REG_INIT_CRASHES)
    *g_null = 1;
#else
    std::exit(5);
#endif
  }
} g_init;
}  // namespace
NEURON_LIBRARY(reg_init, m) { m.def("init_op", &reg_shape, "reg_kernel"); }
#endif
