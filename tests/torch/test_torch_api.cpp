// The kernel lookup of the real flow, the documented API names, the braced size
// lists of the SDK examples, and a fault in a destructor. Host tests compare every op with a
// host computation; sim tests run one op each (one ctest process per test case).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

#include "allocators/neuron/neuron_layout.h"
#include "firmware/torch/runtime.h"

namespace tr = npusim::torchrt;

namespace {

tr::OpResult run(const std::string& op, std::vector<torch::Tensor> in, std::vector<c10::Scalar> scalars = {}) {
  auto c = npusim::fw::NeuronPlatformConfig::gpsimd();
  c.memory.hbm.channels = 16;
  c.memory.hbm.tck_ns = 0.625;
  tr::OpSpec s;
  s.op = op;
  s.tensors = std::move(in);
  s.scalars = std::move(scalars);
  return tr::run_op(c, s);
}
float at(const torch::Tensor& t, int64_t i) { return static_cast<float>(tr::element(t, i)); }
bool same_bits(float a, float b) { return std::memcmp(&a, &b, 4) == 0; }
torch::Tensor input(int64_t n) { return tr::make_input({n}, torch::kFloat, "linspace(-2, 3)"); }
// Checks `op` elementwise against `f` on the host (bit-exact, float lanes).
template <class F>
void check_unary(const torch::Tensor& x, const torch::Tensor& y, F f) {
  REQUIRE(y.numel() == x.numel());
  int64_t bad = 0;
  for (int64_t i = 0; i < x.numel(); ++i) bad += !same_bits(at(y, i), static_cast<float>(f(at(x, i))));
  CHECK(bad == 0);
}

}  // namespace

TEST_CASE("torch api: tan, log2, log10 and their _out forms equal the host") {
  const auto x = tr::make_input({97}, torch::kFloat, "linspace(0.1, 1.4)");
  check_unary(x, torch::tan(x), [](float v) { return std::tan(v); });
  check_unary(x, torch::log2(x), [](float v) { return std::log2(v); });
  check_unary(x, torch::log10(x), [](float v) { return std::log10(v); });
  torch::Tensor o = torch::empty(x.sizes(), torch::kFloat);
  check_unary(x, torch::tan_out(o, x), [](float v) { return std::tan(v); });
  check_unary(x, torch::log2_out(o, x), [](float v) { return std::log2(v); });
  check_unary(x, torch::log10_out(o, x), [](float v) { return std::log10(v); });
}

TEST_CASE("torch api: pow with a Scalar base, add_out/sub_out with a Scalar") {
  const auto x = tr::make_input({64}, torch::kFloat, "linspace(-2, 2)");
  check_unary(x, torch::pow(2.0, x), [](float v) { return std::pow(2.0f, v); });
  torch::Tensor o = torch::empty(x.sizes(), torch::kFloat);
  check_unary(x, torch::pow_out(o, 3.0, x), [](float v) { return std::pow(3.0f, v); });
  check_unary(x, torch::add_out(o, x, 1.5), [](float v) { return v + 1.5f; });
  check_unary(x, torch::add_out(o, x, 1.5, 2), [](float v) { return v + 3.0f; });
  check_unary(x, torch::sub_out(o, x, 0.25), [](float v) { return v - 0.25f; });
  check_unary(x, torch::sub_out(o, x, 0.25, 4), [](float v) { return v - 1.0f; });
}

TEST_CASE("torch api: bitwise ops with the Scalar first cast it to the tensor's dtype") {
  const auto x = tr::make_input({50}, torch::kInt, "range");
  auto check = [&](const torch::Tensor& y, auto f) {
    REQUIRE(y.scalar_type() == torch::kInt);
    int64_t bad = 0;
    for (int64_t i = 0; i < x.numel(); ++i)
      bad += static_cast<int64_t>(tr::element(y, i)) != f(static_cast<int64_t>(tr::element(x, i)));
    CHECK(bad == 0);
  };
  check(torch::bitwise_and(6, x), [](int64_t v) { return 6 & v; });
  check(torch::bitwise_or(0x40, x), [](int64_t v) { return 0x40 | v; });
  check(torch::bitwise_xor(5, x), [](int64_t v) { return 5 ^ v; });
  torch::Tensor o = torch::empty(x.sizes(), torch::kInt);
  check(torch::bitwise_and_out(o, 3, x), [](int64_t v) { return 3 & v; });
  check(torch::bitwise_or_out(o, 8, x), [](int64_t v) { return 8 | v; });
  check(torch::bitwise_xor_out(o, 1, x), [](int64_t v) { return 1 ^ v; });
  check(torch::bitwise_not(o, x), [](int64_t v) { return ~v; });
  // A float scalar is cast to the int tensor's dtype (2.9 -> 2).
  check(torch::bitwise_and(2.9, x), [](int64_t v) { return 2 & v; });
}

TEST_CASE("torch api: kLong tensors, braced lists of size_t and mixed integers, sizes() ==") {
  torch::Tensor l = torch::full({3, 2}, 7, torch::kLong);
  CHECK(l.scalar_type() == torch::kLong);
  CHECK(l.nbytes() == 48);
  CHECK(static_cast<int64_t>(tr::element(l, 5)) == 7);
  size_t n = 12;
  uint32_t rows = 3;
  torch::Tensor a = torch::zeros({n}, torch::kFloat);  // narrowing without the template ctor
  torch::Tensor b = torch::ones({rows, 4}, torch::kFloat);
  torch::Tensor c = torch::empty({n}, torch::kFloat);
  CHECK(a.sizes() == c.sizes());
  CHECK_FALSE(a.sizes() != c.sizes());
  CHECK(a.sizes() != b.sizes());
  CHECK(b.sizes().vec() == std::vector<int64_t>{3, 4});
  const c10::IntArrayRef copy = b.sizes();  // a copy of a list that owns its sizes keeps them
  c10::IntArrayRef owned = {rows, 5u};
  c10::IntArrayRef owned_copy = owned;
  CHECK(owned_copy.vec() == std::vector<int64_t>{3, 5});
  CHECK(copy.vec() == std::vector<int64_t>{3, 4});
  CHECK_THROWS_WITH(torch::zeros({1u, 1u, 1u, 1u, 1u, 1u, 1u, 1u, 1u}), Catch::Contains("more than 8 sizes"));
}

TEST_CASE("torch api: the mangler handles builtins passed by reference") {
  using torch::npusim_op::mangle;
  CHECK(mangle("f", {" torch Tensor", "RK torch Tensor", "RK d"}) == "_Z1fN5torch6TensorERKS0_RKd");
  CHECK(mangle("f", {"R d", "R d"}) == "_Z1fRdS_");
  CHECK(mangle("f", {"RK d", "RK l", "RK d"}) == "_Z1fRKdRKlS0_");
}

TEST_CASE("torch api: a kernel taking the tensor by const& is found for a by-value shape function") {
  const auto x = input(300);
  const auto r = run("lookup_cref", {x});
  REQUIRE_FALSE(r.failed);
  CHECK(r.mangled == "_Z11lookup_crefRKN5torch6TensorE");
  check_unary(x, r.output, [](float v) { return -v; });
}

TEST_CASE("torch api: a kernel taking the tensor by & is found") {
  const auto x = input(300);
  const auto r = run("lookup_ref", {x});
  REQUIRE_FALSE(r.failed);
  CHECK(r.mangled == "_Z10lookup_refRN5torch6TensorE");
  check_unary(x, r.output, [](float v) { return std::fabs(v); });
}

TEST_CASE("torch api: a kernel taking the tensor by value is found") {
  const auto x = input(300);
  const auto r = run("lookup_value", {x});
  REQUIRE_FALSE(r.failed);
  CHECK(r.mangled == "_Z12lookup_valueN5torch6TensorE");
  check_unary(x, r.output, [](float v) { return std::exp(v); });
}

TEST_CASE("torch api: mixed passing of tensors and a double is found and called correctly") {
  const auto a = input(128);
  const auto b = tr::make_input({128}, torch::kFloat, "random(3)");
  const auto r = run("lookup_mixed", {a, b}, {0.5});
  REQUIRE_FALSE(r.failed);
  CHECK(r.mangled == "_Z12lookup_mixedN5torch6TensorERKS0_RKd");
  int64_t bad = 0;
  for (int64_t i = 0; i < 128; ++i) bad += !same_bits(at(r.output, i), at(a, i) * 0.5f + at(b, i));
  CHECK(bad == 0);
}

TEST_CASE("torch api: two kernels of one name for the schema are an error naming both") {
  CHECK_THROWS_WITH(run("lookup_ambiguous", {input(8)}),
                    Catch::Contains("ambiguous") && Catch::Contains("lookup_ambiguous(torch::Tensor)") &&
                        Catch::Contains("lookup_ambiguous(const torch::Tensor&)"));
}

TEST_CASE("torch api: a missing kernel is an error naming the schema and a symbol sought") {
  CHECK_THROWS_WITH(run("lookup_missing", {input(8)}),
                    Catch::Contains("no kernel function 'no_such_kernel'") && Catch::Contains("(torch::Tensor)") &&
                        Catch::Contains("_Z14no_such_kernelN5torch6TensorE"));
}

TEST_CASE("torch api: a kernel whose parameter types differ from the shape function's is named so") {
  // lookup_float(const Tensor&, float) exists; the shape function takes (Tensor, double).
  CHECK_THROWS_WITH(run("lookup_float_vs_double", {input(8)}, {2.0}),
                    Catch::Contains("the kernel 'lookup_float' is lookup_float(const torch::Tensor&, float)") &&
                        Catch::Contains("the shape function's schema is (torch::Tensor, double)") &&
                        Catch::Contains("parameter 2 is float in the kernel and double in the shape function") &&
                        !Catch::Contains("must be built into the library"));
}

TEST_CASE("torch api: size_t braced lists, sizes() == and int close() in a simulated kernel") {
  const auto x = input(700);
  const auto r = run("narrow_sizes", {x});
  REQUIRE_FALSE(r.failed);
  check_unary(x, r.output, [](float v) { return v; });
}

TEST_CASE("torch api: the documented math and Scalar forms on the simulated core equal the host") {
  const auto x = tr::make_input({500}, torch::kFloat, "linspace(-1, 3)");
  const auto r = run("api_more", {x});
  REQUIRE_FALSE(r.failed);
  check_unary(x, r.output, [](float v) {
    const float c = v < 0.25f ? 0.25f : v > 2.0f ? 2.0f : v;
    float acc = std::tan(c) + std::log2(c);
    acc = acc - 2.0f * 0.5f;
    acc = acc + std::log10(c);
    const float p = std::pow(1.5f, std::pow(2.0f, c));
    return acc + p * 0.125f;
  });
}

TEST_CASE("torch api: bitwise ops with the Scalar first on the simulated core equal the host") {
  const auto x = tr::make_input({256}, torch::kInt, "range");
  const auto r = run("api_bits", {x});
  REQUIRE_FALSE(r.failed);
  int64_t bad = 0;
  for (int64_t i = 0; i < 256; ++i)
    bad += static_cast<int64_t>(tr::element(r.output, i)) != ((~(0x3 ^ (0x100 | (0x0f & i)))) & 0xffff);
  CHECK(bad == 0);
}

TEST_CASE("torch api: a fault while a stream closes in its destructor is reported, not an abort") {
  // Seed dataram layout: the write stream's buffer is the third, over the heap header.
  const auto a = tr::make_input({3000}, torch::kFloat, "random(1)");
  const auto b = tr::make_input({3000}, torch::kFloat, "linspace(-2, 2)");
  const auto r = run("stream_add_scope_exit", {a, b});
  REQUIRE(r.failed);
  CHECK(r.fault_kind == "bus error");
  CHECK(r.fault_message.find("kernel stream_add_scope_exit on core 0, call close") != std::string::npos);
  bool error = false;
  for (const auto& d : r.diagnostics) error = error || (d.severity == "error" && d.call == "close");
  CHECK(error);
}

TEST_CASE("torch api: the first write into the seed layout's heap header is reported before the fault") {
  const auto a = tr::make_input({3000}, torch::kFloat, "random(1)");
  const auto b = tr::make_input({3000}, torch::kFloat, "linspace(-2, 2)");
  const auto r = run("stream_add_scope_exit", {a, b});
  REQUIRE(r.failed);
  size_t warn_at = SIZE_MAX, error_at = SIZE_MAX;
  for (size_t i = 0; i < r.diagnostics.size(); ++i) {
    const auto& d = r.diagnostics[i];
    if (d.kind == "heap header overwrite" && warn_at == SIZE_MAX) warn_at = i;
    if (d.severity == "error" && error_at == SIZE_MAX) error_at = i;
  }
  REQUIRE(warn_at != SIZE_MAX);
  CHECK(warn_at < error_at);
  const auto& w = r.diagnostics[warn_at];
  CHECK(w.call == "write_stream_accessor");
  CHECK(w.kernel == "stream_add_scope_exit");
  CHECK(w.address == 0x83200);
  CHECK(w.message.find("the 4 KiB buffer of stream 3") != std::string::npos);
  CHECK(w.message.find("overlaps the dataram heap header [0x83200, ") != std::string::npos);
  CHECK(w.message.find("(seed dataram layout)") != std::string::npos);
}

TEST_CASE("torch api: under the guides layout four stream buffers fit and the stream add is exact") {
  auto c = npusim::fw::NeuronPlatformConfig::gpsimd();
  c.memory.hbm.channels = 16;
  c.memory.hbm.tck_ns = 0.625;
  REQUIRE(npusim::alloc::neuron::apply_named_layout(c.firmware.layout, "guides"));
  CHECK(npusim::alloc::neuron::layout_name(c.firmware.layout) == "guides");
  CHECK_FALSE(npusim::alloc::neuron::apply_named_layout(c.firmware.layout, "nope"));
  tr::OpSpec s;
  s.op = "stream_add_scope_exit";
  const auto a = tr::make_input({3000}, torch::kFloat, "random(1)");
  const auto b = tr::make_input({3000}, torch::kFloat, "linspace(-2, 2)");
  s.tensors = {a, b};
  const auto r = tr::run_op(c, s);
  REQUIRE_FALSE(r.failed);
  for (const auto& d : r.diagnostics) CHECK(d.kind != "heap header overwrite");
  int64_t bad = 0;
  for (int64_t i = 0; i < 3000; ++i) bad += !same_bits(at(r.output, i), at(a, i) + at(b, i));
  CHECK(bad == 0);
}
