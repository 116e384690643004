// The torch API without a simulation: registration, symbol names, dtypes, host tensors, and
// the example kernels run as plain host code.
#include <catch2/catch.hpp>
#include <dlfcn.h>

#include <cmath>
#include <cstring>

#include "firmware/torch/runtime.h"
#include "sim/tools/heap_replay.h"
#include "sim/input/scenario.h"

torch::Tensor relu_forward_tcm(const torch::Tensor& t_in);
torch::Tensor relu_forward_standard(const torch::Tensor& t_in);
torch::Tensor row_sum_stream(const torch::Tensor& t_in);
torch::Tensor axpy_ops(const torch::Tensor& a, const torch::Tensor& b, double alpha);

namespace tr = npusim::torchrt;

namespace {
std::string symbol_of(void* fn) {
  Dl_info info{};
  REQUIRE(dladdr(fn, &info) != 0);
  REQUIRE(info.dli_sname != nullptr);
  return info.dli_sname;
}
}  // namespace

TEST_CASE("torch: NEURON_LIBRARY registers every op with the kernel's real symbol name") {
  const auto* relu = torch::npusim_op::find_op("relu_tcm");
  REQUIRE(relu != nullptr);
  CHECK(relu->kernel == "relu_forward_tcm");
  CHECK(relu->mangled == symbol_of(reinterpret_cast<void*>(&relu_forward_tcm)));
  const auto* axpy = torch::npusim_op::find_op("axpy_ops");
  REQUIRE(axpy != nullptr);
  // Two tensors (the second a substitution) and a double.
  CHECK(axpy->mangled == symbol_of(reinterpret_cast<void*>(&axpy_ops)));
  CHECK(axpy->kinds == std::vector<char>{'t', 't', 's'});
  // STACK_SIZE of the library's translation unit.
  REQUIRE(torch::npusim_op::find_op("softmax_rows_hbm_stack") != nullptr);
  CHECK(torch::npusim_op::find_op("softmax_rows_hbm_stack")->stack_size == 65536);
  CHECK(relu->stack_size == -1);
}

TEST_CASE("torch: the mangler follows the Itanium substitution rules") {
  using torch::npusim_op::mangle;
  CHECK(mangle("f", {"RK torch Tensor"}) == "_Z1fRKN5torch6TensorE");
  CHECK(mangle("f", {"RK torch Tensor", "RK torch Tensor"}) == "_Z1fRKN5torch6TensorES2_");
  CHECK(mangle("f", {"RK torch Tensor", " torch Tensor"}) == "_Z1fRKN5torch6TensorES0_");
  CHECK(mangle("g", {" c10 Scalar", "d", "l"}) == "_Z1gN3c106ScalarEdl");
  CHECK(mangle("h", {"RK torch Tensor", "RK c10 Scalar", "RK c10 Scalar"}) ==
        "_Z1hRKN5torch6TensorERKN3c106ScalarES6_");
}

TEST_CASE("torch: half and bfloat16 round to nearest even and convert back") {
  CHECK(static_cast<float>(c10::Half(1.0f)) == 1.0f);
  CHECK(c10::Half(1.0f).x == 0x3c00);
  CHECK(c10::Half(-2.5f).x == 0xc100);
  CHECK(c10::Half(65504.0f).x == 0x7bff);
  CHECK(c10::Half(1e6f).x == 0x7c00);                 // overflow: inf
  CHECK(static_cast<float>(c10::Half(5.960464477539063e-08f)) == 5.960464477539063e-08f);  // smallest subnormal
  CHECK(c10::Half(1.0f + 1.0f / 2048).x == 0x3c00);  // tie: to even
  CHECK(c10::BFloat16(1.0f).x == 0x3f80);
  CHECK(static_cast<float>(c10::BFloat16(3.140625f)) == 3.140625f);
  CHECK(c10::BFloat16(1.00390625f).x == 0x3f80);     // tie: to even
}

TEST_CASE("torch: host tensors, factories and element-wise ops without a simulation") {
  torch::Tensor a = torch::full({2, 3}, 2.5, torch::kFloat);
  CHECK(a.numel() == 6);
  CHECK(a.sizes().vec() == std::vector<int64_t>{2, 3});
  auto acc = a.accessor<float, 2>();
  CHECK(static_cast<float>(acc[1][2]) == 2.5f);
  acc[1][2] = -4.0f;
  CHECK(static_cast<float>(torch::abs(a).accessor<float, 2>()[1][2]) == 4.0f);
  torch::Tensor e = torch::eye(3, torch::kInt);
  CHECK(static_cast<int32_t>(e.accessor<int32_t, 2>()[1][1]) == 1);
  CHECK(static_cast<int32_t>(e.accessor<int32_t, 2>()[1][0]) == 0);
  torch::Tensor i = torch::full({4}, 6, torch::kInt);
  torch::Tensor j = torch::full({4}, 3, torch::kInt);
  CHECK(static_cast<int32_t>(torch::bitwise_and(i, j).accessor<int32_t, 1>()[0]) == 2);
  CHECK(static_cast<int32_t>(torch::div(i, j).accessor<int32_t, 1>()[3]) == 2);
  torch::Tensor b = torch::ones({3}, torch::kBFloat16);
  const c10::BFloat16 sum = torch::add(b, b, 0.5).accessor<c10::BFloat16, 1>()[0];
  CHECK(static_cast<float>(sum) == 1.5f);
  CHECK_THROWS_AS(torch::add(a, b), std::invalid_argument);  // no broadcasting
  CHECK_THROWS_AS((a.accessor<float, 1>()), std::invalid_argument);  // wrong rank
  CHECK_THROWS_AS((a.accessor<int32_t, 2>()), std::invalid_argument);  // wrong dtype
  CHECK_THROWS_AS(acc[2], std::out_of_range);
  // The message names the dimension the index is of: acc[1][3] on a [2, 3] tensor is dimension 1.
  auto what = [](auto&& f) {
    try {
      f();
    } catch (const std::out_of_range& x) {
      return std::string(x.what());
    }
    return std::string("no error");
  };
  CHECK(what([&] { (void)static_cast<float>(acc[1][3]); }).find("index 3 of dimension 1 ") != std::string::npos);
  CHECK(what([&] { (void)acc[2]; }).find("index 2 of dimension 0 ") != std::string::npos);
  torch::Tensor c = torch::zeros({2, 3, 4}, torch::kFloat);
  auto acc3 = c.accessor<float, 3>();
  CHECK(what([&] { (void)static_cast<float>(acc3[1][2][4]); }).find("index 4 of dimension 2 ") != std::string::npos);
}

TEST_CASE("torch: the coherence policy gates accessors that may be incoherent") {
  torch::Tensor t = torch::zeros({8}, torch::kFloat);
  CHECK(t.get_accessor_coherence_policy() == torch::CoherencyEnforcer::COHERENT);
  {
    auto r1 = t.read_stream_accessor<float>();
    auto r2 = t.read_stream_accessor<float>();  // several readers: coherent
    CHECK_THROWS_AS(t.write_stream_accessor<float>(), std::logic_error);
    CHECK_THROWS_AS((t.accessor<float, 1>()), std::logic_error);
    r1.close();
    r2.close();
  }
  {
    auto w = t.write_stream_accessor<float>();  // the readers are closed: allowed
    CHECK_THROWS_AS(t.read_stream_accessor<float>(), std::logic_error);
    w.close();
  }
  {
    auto a = t.accessor<float, 1>();
    auto b = t.accessor<float, 1>();  // standard accessors among themselves: coherent
    auto row = a;                      // a copy keeps the accessor active
    CHECK_THROWS_AS(t.read_stream_accessor<float>(), std::logic_error);
    (void)b;
    (void)row;
  }
  auto after = t.read_stream_accessor<float>();  // every standard accessor is gone
  after.close();
  t.set_accessor_coherence_policy(torch::CoherencyEnforcer::INCOHERENT_QUIET);
  CHECK(t.get_accessor_coherence_policy() == torch::CoherencyEnforcer::INCOHERENT_QUIET);
  auto r = t.read_stream_accessor<float>();
  auto w = t.write_stream_accessor<float>();  // allowed now
  w.write(1.0f);
  w.close();
  r.close();
}

TEST_CASE("torch: the example kernels run as plain host code and agree with each other") {
  torch::Tensor in = tr::make_input({3000}, torch::kFloat, "linspace(-3, 3)");
  torch::Tensor a = relu_forward_tcm(in), b = relu_forward_standard(in);
  REQUIRE(a.numel() == 3000);
  for (int64_t i = 0; i < 3000; ++i) {
    const double x = tr::element(in, i);
    CHECK(tr::element(a, i) == (x > 0 ? x : 0));
    CHECK(tr::element(b, i) == tr::element(a, i));
  }
  torch::Tensor m = tr::make_input({4, 5}, torch::kFloat, "range");
  torch::Tensor s = row_sum_stream(m);
  CHECK(tr::element(s, 0) == 0 + 1 + 2 + 3 + 4);
  CHECK(tr::element(s, 3) == 15 + 16 + 17 + 18 + 19);
}

TEST_CASE("torch: torch_op scenarios parse, and bad ones name the file, line and column") {
  using npusim::sim::parse_scenario;
  const auto sc = parse_scenario(
      "torch_op:\n  op: relu_tcm\n  multicore: true\n  stack_size: 16KiB\n"
      "  inputs:\n    - {shape: [4, 8], dtype: bfloat16, init: \"random(3)\"}\n  scalars: [1.5, 2]\n",
      "t.yaml");
  REQUIRE(sc.torch_op);
  CHECK(sc.torch_op->op == "relu_tcm");
  CHECK(sc.torch_op->multicore);
  CHECK(sc.torch_op->stack_size == 16384);
  CHECK(sc.torch_op->inputs.at(0).shape == std::vector<int64_t>{4, 8});
  CHECK(sc.torch_op->inputs.at(0).dtype == "bfloat16");
  CHECK(sc.torch_op->scalars == std::vector<double>{1.5, 2});
  try {
    parse_scenario("torch_op:\n  op: relu_tcm\n  inputs:\n    - {shape: [4294967296]}\n", "t.yaml");
    FAIL("no error");
  } catch (const npusim::sim::InputError& e) {
    CHECK(e.line() == 4);
    CHECK(std::string(e.what()).find("a dimension is between 0 and 2^31") != std::string::npos);
  }
  CHECK_THROWS_AS(parse_scenario("torch_op:\n  op: x\n  inputs: []\n  colour: red\n", "t.yaml"),
                  npusim::sim::InputError);
  CHECK_THROWS_AS(parse_scenario("torch_op: {op: x, inputs: []}\nprogram: []\n", "t.yaml"),
                  npusim::sim::InputError);
}
