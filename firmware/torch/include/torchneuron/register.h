// Op registration of Neuron custom C++ operators (npusim implementation): where the device
// toolchain keeps NEURON_LIBRARY. A shape file registers its ops with
//   NEURON_LIBRARY(lib, m) { m.def("op", &shape_fn, "kernel_fn"); }
// The op's schema is the shape function's parameter list; the kernel is found by name with
// any parameter passing C++ accepts for that schema (by value, const&, &): see
// firmware/torch/op_lookup.cpp and docs/custom-ops.md.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <torch/torch.h>

namespace torch {

namespace npusim_op {
// A kernel entry: calls the kernel with the op's input tensors and scalar arguments.
using Invoker = Tensor (*)(void* kernel, const std::vector<Tensor>& tensors,
                           const std::vector<Scalar>& scalars);
// Itanium-mangled name of `name` with the given parameter types: each is a builtin code
// (d, f, l, i, b), "<R><K> <code>" for a builtin by reference, or "<R><K> namespace class".
std::string mangle(const char* name, const std::vector<std::string>& params);

// The parameter types of a schema: the shape function's, decayed.
template <class B> struct Param;
template <> struct Param<Tensor> { static constexpr const char* m = "torch Tensor"; static constexpr const char* cpp = "torch::Tensor"; static constexpr char k = 't'; };
template <> struct Param<c10::Scalar> { static constexpr const char* m = "c10 Scalar"; static constexpr const char* cpp = "c10::Scalar"; static constexpr char k = 's'; };
template <> struct Param<double> { static constexpr const char* m = "d"; static constexpr const char* cpp = "double"; static constexpr char k = 's'; };
template <> struct Param<float> { static constexpr const char* m = "f"; static constexpr const char* cpp = "float"; static constexpr char k = 's'; };
template <> struct Param<int64_t> { static constexpr const char* m = "l"; static constexpr const char* cpp = "int64_t"; static constexpr char k = 's'; };
template <> struct Param<int> { static constexpr const char* m = "i"; static constexpr const char* cpp = "int"; static constexpr char k = 's'; };
template <> struct Param<bool> { static constexpr const char* m = "b"; static constexpr const char* cpp = "bool"; static constexpr char k = 's'; };

// How a parameter is passed: by value, const&, or &.
enum Pass : uint8_t { kByValue = 0, kConstRef = 1, kRef = 2 };
template <class A>
constexpr uint8_t pass_of() {
  if constexpr (!std::is_reference_v<A>) return kByValue;
  else if constexpr (std::is_const_v<std::remove_reference_t<A>>) return kConstRef;
  else return kRef;
}
template <class B, uint8_t M>
using Passed = std::conditional_t<M == kByValue, B, std::conditional_t<M == kConstRef, const B&, B&>>;

template <class A>
std::decay_t<A> pick(const std::vector<Tensor>& ts, const std::vector<Scalar>& ss, size_t& ti, size_t& si) {
  using B = std::decay_t<A>;
  if constexpr (Param<B>::k == 't') return ts.at(ti++);
  else if constexpr (std::is_same_v<B, c10::Scalar>) return ss.at(si++);
  else return ss.at(si++).template to<B>();
}

template <class... A>
Tensor invoke(void* kernel, const std::vector<Tensor>& ts, const std::vector<Scalar>& ss) {
  auto fn = reinterpret_cast<Tensor (*)(A...)>(kernel);
  size_t ti = 0, si = 0;
  // Braced initialisation evaluates the arguments left to right.
  struct Call {
    Tensor r;
    Call(Tensor (*f)(A...), std::decay_t<A>... args) : r(f(args...)) {}
  };
  return Call{fn, pick<A>(ts, ss, ti, si)...}.r;
}

// One way of passing the schema's parameters, with the invoker that calls a kernel so.
struct KernelForm {
  std::vector<uint8_t> pass;
  Invoker invoker = nullptr;
};

// Every form: 3^n of them for up to kMaxFormParams parameters; above that, the three
// uniform ones (all by value, all const&, all &) and the shape function's own.
constexpr size_t kMaxFormParams = 5;
constexpr size_t pow3(size_t n) { return n == 0 ? 1 : 3 * pow3(n - 1); }
constexpr uint8_t digit3(size_t c, size_t k) { return static_cast<uint8_t>((c / pow3(k)) % 3); }
template <size_t C, class Tuple, size_t... K>
KernelForm form_of(std::index_sequence<K...>) {
  return KernelForm{{digit3(C, K)...}, &invoke<Passed<std::tuple_element_t<K, Tuple>, digit3(C, K)>...>};
}
template <class Tuple, size_t... C>
std::vector<KernelForm> forms_of(std::index_sequence<C...>) {
  return {form_of<C, Tuple>(std::make_index_sequence<std::tuple_size_v<Tuple>>{})...};
}
template <class... A>
std::vector<KernelForm> all_forms() {
  using Tuple = std::tuple<std::decay_t<A>...>;
  constexpr size_t n = sizeof...(A);
  if constexpr (n <= kMaxFormParams) {
    return forms_of<Tuple>(std::make_index_sequence<pow3(n)>{});
  } else {
    return {KernelForm{{pass_of<A>()...}, &invoke<A...>},
            KernelForm{std::vector<uint8_t>(n, kByValue), &invoke<std::decay_t<A>...>},
            KernelForm{std::vector<uint8_t>(n, kConstRef), &invoke<const std::decay_t<A>&...>},
            KernelForm{std::vector<uint8_t>(n, kRef), &invoke<std::decay_t<A>&...>}};
  }
}

struct OpDef {
  std::string library, name, kernel;
  std::string mangled;  // the kernel's symbol: the shape signature's until the kernel is found
  void* shape = nullptr;
  void* kernel_fn = nullptr;  // resolved on first use (resolve_kernel)
  Invoker shape_invoker = nullptr, kernel_invoker = nullptr;
  std::vector<char> kinds;              // 't' tensor, 's' scalar, per parameter
  std::vector<std::string> param_mangled, param_cpp;  // the schema's types (Param<B>::m, ::cpp)
  std::vector<uint8_t> shape_pass;      // how the shape function takes them
  std::vector<KernelForm> forms;        // how the kernel may take them
  std::vector<uint8_t> kernel_pass;     // how the kernel found takes them
  long long stack_size = -1;  // STACK_SIZE seen by the library's translation unit (-1: none)
  int multicore = -1;         // -DNPUSIM_MULTICORE of the library (npusim op build --multicore)
  // Where it was registered: the m.def call (file:line) and the loaded file that holds it (a
  // plugin's path, or the executable); built-in ops are those of the executable itself.
  std::string source, module;
  bool builtin = true;
};

// Registers an op. A second registration of a name, or a plugin's op of a built-in name
// without --allow-shadowing, is not registered and is reported by the plugin loader
// (npusim::torchrt::load_plugin) or check_registry(), naming both places.
void register_op(OpDef def);
// By its name, or qualified by its library as Python ("LIB.OP") or C++ ("LIB::OP") names it.
const OpDef* find_op(const std::string& name);
// "no torch op 'NAME' (registered: ...)" and what to do: load the plugin that has it, or the
// library a qualified name gives differs from the op's.
std::string no_op_message(const std::string& name);
std::vector<const OpDef*> ops();
// The symbol and the C++ signature of `kernel` with the schema of `d` passed as `pass`.
std::string form_symbol(const OpDef& d, const std::vector<uint8_t>& pass);
std::string form_signature(const OpDef& d, const std::vector<uint8_t>& pass);
// Finds the kernel of `d` by name among all forms (dlsym); sets kernel_fn, kernel_invoker,
// kernel_pass and mangled. Throws std::invalid_argument naming the signatures if no form or
// more than one form exists.
void resolve_kernel(OpDef& d);

class Library {
 public:
  Library(const char* name, long long stack_size, int multicore = -1)
      : name_(name), stack_size_(stack_size), multicore_(multicore) {}
  // `file` and `line` default to the place of the m.def call (GCC's and Clang's builtins).
  template <class... A>
  Library& def(const char* op, Tensor (*shape)(A...), const char* kernel, const char* file = __builtin_FILE(),
               int line = __builtin_LINE()) {
    OpDef d;
    d.source = std::string(file) + ":" + std::to_string(line);
    d.library = name_;
    d.name = op;
    d.kernel = kernel;
    d.shape = reinterpret_cast<void*>(shape);
    d.shape_invoker = &invoke<A...>;
    d.kernel_invoker = &invoke<A...>;
    d.kinds = {Param<std::decay_t<A>>::k...};
    d.param_mangled = {Param<std::decay_t<A>>::m...};
    d.param_cpp = {Param<std::decay_t<A>>::cpp...};
    d.shape_pass = {pass_of<A>()...};
    d.forms = all_forms<A...>();
    d.mangled = form_symbol(d, d.shape_pass);
    d.stack_size = stack_size_;
    d.multicore = multicore_;
    register_op(std::move(d));
    return *this;
  }

 private:
  std::string name_;
  long long stack_size_;
  int multicore_;
};
// Runs a NEURON_LIBRARY block (defined at file:line): an exception out of it is reported by the
// plugin loader, never out of a static initialiser.
bool register_library(const char* name, void (*init)(Library&), long long stack_size, int multicore,
                      const char* file, int line);
}  // namespace npusim_op

}  // namespace torch

#ifdef STACK_SIZE
#define NPUSIM_TORCH_STACK_SIZE (STACK_SIZE)
#else
#define NPUSIM_TORCH_STACK_SIZE (-1)
#endif

// Set by `npusim op build --multicore` (the `multicore=True` of custom_op.load).
#ifdef NPUSIM_MULTICORE
#define NPUSIM_TORCH_MULTICORE (NPUSIM_MULTICORE)
#else
#define NPUSIM_TORCH_MULTICORE (-1)
#endif

#define NEURON_LIBRARY(lib, m)                                                           \
  static void npusim_neuron_library_##lib(::torch::npusim_op::Library&);                 \
  static const bool npusim_neuron_library_registered_##lib =                             \
      ::torch::npusim_op::register_library(#lib, &npusim_neuron_library_##lib,           \
                                           NPUSIM_TORCH_STACK_SIZE, NPUSIM_TORCH_MULTICORE,  \
                                           __FILE__, __LINE__);                              \
  static void npusim_neuron_library_##lib(::torch::npusim_op::Library& m)
