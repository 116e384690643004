// Element-wise tensor ops of Neuron custom C++ operators (npusim implementation, part of
// <torch/torch.h>): the reference's "Tensor Operation Functions", with their _out forms. No
// broadcasting: shapes must match (firmware/torch/tensor.cpp).
#pragma once

#include <torch/torch.h>

namespace torch {

// --- element-wise ops (no broadcasting) and their _out forms ---
#define NPUSIM_TORCH_UNARY(name)                  \
  Tensor name(const Tensor& a);                   \
  Tensor& name##_out(Tensor& out, const Tensor& a);
NPUSIM_TORCH_UNARY(abs)
NPUSIM_TORCH_UNARY(neg)
NPUSIM_TORCH_UNARY(exp)
NPUSIM_TORCH_UNARY(log)
NPUSIM_TORCH_UNARY(sqrt)
NPUSIM_TORCH_UNARY(rsqrt)
NPUSIM_TORCH_UNARY(reciprocal)
NPUSIM_TORCH_UNARY(sin)
NPUSIM_TORCH_UNARY(cos)
NPUSIM_TORCH_UNARY(tan)
NPUSIM_TORCH_UNARY(log2)
NPUSIM_TORCH_UNARY(log10)
NPUSIM_TORCH_UNARY(tanh)
NPUSIM_TORCH_UNARY(sigmoid)
NPUSIM_TORCH_UNARY(ceil)
NPUSIM_TORCH_UNARY(floor)
NPUSIM_TORCH_UNARY(round)
NPUSIM_TORCH_UNARY(relu)
NPUSIM_TORCH_UNARY(bitwise_not)
#undef NPUSIM_TORCH_UNARY

#define NPUSIM_TORCH_BINARY(name)                                       \
  Tensor name(const Tensor& a, const Tensor& b);                        \
  Tensor& name##_out(Tensor& out, const Tensor& a, const Tensor& b);    \
  Tensor name(const Tensor& a, const Scalar& b);                        \
  Tensor& name##_out(Tensor& out, const Tensor& a, const Scalar& b);
NPUSIM_TORCH_BINARY(mul)
NPUSIM_TORCH_BINARY(div)
NPUSIM_TORCH_BINARY(pow)
NPUSIM_TORCH_BINARY(bitwise_and)
NPUSIM_TORCH_BINARY(bitwise_or)
NPUSIM_TORCH_BINARY(bitwise_xor)
#undef NPUSIM_TORCH_BINARY
// The Scalar-first forms the reference documents for pow and the bitwise ops.
#define NPUSIM_TORCH_SCALAR_FIRST(name)          \
  Tensor name(const Scalar& a, const Tensor& b); \
  Tensor& name##_out(Tensor& out, const Scalar& a, const Tensor& b);
NPUSIM_TORCH_SCALAR_FIRST(pow)
NPUSIM_TORCH_SCALAR_FIRST(bitwise_and)
NPUSIM_TORCH_SCALAR_FIRST(bitwise_or)
NPUSIM_TORCH_SCALAR_FIRST(bitwise_xor)
#undef NPUSIM_TORCH_SCALAR_FIRST
// As listed in the reference: bitwise_not(result, self) writes into result.
Tensor bitwise_not(Tensor& out, const Tensor& a);

Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha = 1);
Tensor& add_out(Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha = 1);
Tensor add(const Tensor& a, const Scalar& b, const Scalar& alpha = 1);
Tensor& add_out(Tensor& out, const Tensor& a, const Scalar& b, const Scalar& alpha = 1);
Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha = 1);
Tensor& sub_out(Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha = 1);
Tensor sub(const Tensor& a, const Scalar& b, const Scalar& alpha = 1);
Tensor& sub_out(Tensor& out, const Tensor& a, const Scalar& b, const Scalar& alpha = 1);
Tensor clamp(const Tensor& a, const Scalar& lo, const Scalar& hi);
Tensor& clamp_out(Tensor& out, const Tensor& a, const Scalar& lo, const Scalar& hi);

}  // namespace torch
