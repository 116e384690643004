// Tensors, factories and element-wise ops of the torch API (host data or simulated HBM).
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <stdexcept>

#include "firmware/torch/runtime.h"

namespace c10 {

Half::Half(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  const uint32_t sign = (b >> 16) & 0x8000u;
  const int32_t exp = static_cast<int32_t>((b >> 23) & 0xff) - 127 + 15;
  uint32_t mant = b & 0x7fffffu;
  if (((b >> 23) & 0xff) == 0xff) {  // inf / nan
    x = static_cast<uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0u));
  } else if (exp >= 31) {
    x = static_cast<uint16_t>(sign | 0x7c00u);
  } else if (exp <= 0) {
    if (exp < -10) {
      x = static_cast<uint16_t>(sign);
    } else {
      mant |= 0x800000u;
      const int shift = 14 - exp;
      uint32_t h = mant >> shift;
      const uint32_t rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
      if (rem > half || (rem == half && (h & 1))) ++h;
      x = static_cast<uint16_t>(sign | h);
    }
  } else {
    uint32_t h = (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
    const uint32_t rem = mant & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1))) ++h;
    x = static_cast<uint16_t>(sign | h);
  }
}
Half::operator float() const {
  const uint32_t sign = (x & 0x8000u) << 16;
  uint32_t exp = (x >> 10) & 0x1f, mant = x & 0x3ffu, b;
  if (exp == 0) {
    if (mant == 0) {
      b = sign;
    } else {
      exp = 127 - 15 + 1;
      while (!(mant & 0x400u)) {
        mant <<= 1;
        --exp;
      }
      b = sign | (exp << 23) | ((mant & 0x3ffu) << 13);
    }
  } else if (exp == 31) {
    b = sign | 0x7f800000u | (mant << 13);
  } else {
    b = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
BFloat16::BFloat16(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  if ((b & 0x7fffffffu) > 0x7f800000u) {
    x = static_cast<uint16_t>((b >> 16) | 0x40u);
  } else {
    b += 0x7fffu + ((b >> 16) & 1);
    x = static_cast<uint16_t>(b >> 16);
  }
}
BFloat16::operator float() const {
  const uint32_t b = static_cast<uint32_t>(x) << 16;
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

}  // namespace c10

namespace torch {

namespace detail {
HostBytes bytes_of(const TensorImpl& t);
void set_bytes(TensorImpl& t, const HostBytes& v);
void fill_bytes(TensorImpl& t, const uint8_t* elem, size_t elem_bytes);
std::shared_ptr<void> op_scope();
void op_work(int64_t elems);
std::shared_ptr<TensorImpl> new_tensor(IntArrayRef sizes, ScalarType dtype, const char* call);
[[noreturn]] void op_error(const std::string& call, const std::string& msg);
}  // namespace detail

const char* dtype_name(ScalarType t) {
  switch (t) {
    case kByte: return "uint8";
    case kChar: return "int8";
    case kShort: return "int16";
    case kInt: return "int32";
    case ScalarType::Long: return "int64";
    case kHalf: return "float16";
    case kFloat: return "float32";
    case kBFloat16: return "bfloat16";
  }
  return "?";
}

size_t element_size(ScalarType t) {
  switch (t) {
    case kByte:
    case kChar: return 1;
    case kShort:
    case kHalf:
    case kBFloat16: return 2;
    case kInt:
    case kFloat: return 4;
    case ScalarType::Long: return 8;
  }
  return 1;
}

namespace {

bool is_float(ScalarType t) { return t == kFloat || t == kHalf || t == kBFloat16; }

double get(const detail::HostBytes& b, ScalarType t, int64_t i) {
  const uint8_t* p = b.data() + i * static_cast<int64_t>(element_size(t));
  switch (t) {
    case kByte: return *p;
    case kChar: { int8_t v; std::memcpy(&v, p, 1); return v; }
    case kShort: { int16_t v; std::memcpy(&v, p, 2); return v; }
    case kInt: { int32_t v; std::memcpy(&v, p, 4); return v; }
    case ScalarType::Long: { int64_t v; std::memcpy(&v, p, 8); return static_cast<double>(v); }
    case kHalf: { c10::Half v; std::memcpy(&v.x, p, 2); return static_cast<float>(v); }
    case kFloat: { float v; std::memcpy(&v, p, 4); return v; }
    case kBFloat16: { c10::BFloat16 v; std::memcpy(&v.x, p, 2); return static_cast<float>(v); }
  }
  return 0;
}

template <class I>
I sat(double v) {
  if (std::isnan(v)) return 0;
  return static_cast<I>(static_cast<int64_t>(v));  // wraps like a C++ conversion of the int64
}

void put(detail::HostBytes& b, ScalarType t, int64_t i, double v) {
  uint8_t* p = b.data() + i * static_cast<int64_t>(element_size(t));
  switch (t) {
    case kByte: { uint8_t x = sat<uint8_t>(v); std::memcpy(p, &x, 1); break; }
    case kChar: { int8_t x = sat<int8_t>(v); std::memcpy(p, &x, 1); break; }
    case kShort: { int16_t x = sat<int16_t>(v); std::memcpy(p, &x, 2); break; }
    case kInt: { int32_t x = sat<int32_t>(v); std::memcpy(p, &x, 4); break; }
    case ScalarType::Long: { int64_t x = static_cast<int64_t>(v); std::memcpy(p, &x, 8); break; }
    case kHalf: { c10::Half x(static_cast<float>(v)); std::memcpy(p, &x.x, 2); break; }
    case kFloat: { float x = static_cast<float>(v); std::memcpy(p, &x, 4); break; }
    case kBFloat16: { c10::BFloat16 x(static_cast<float>(v)); std::memcpy(p, &x.x, 2); break; }
  }
}

// Element-wise kernels compute in float for floating dtypes (as the device library does in
// its 32-bit lanes; assumption) and in int64 for integer dtypes.
double unary(const std::string& op, double a, bool fp) {
  const float f = static_cast<float>(a);
  if (op == "abs") return fp ? std::fabs(f) : std::fabs(a);
  if (op == "neg") return -a;
  if (op == "exp") return std::exp(f);
  if (op == "log") return std::log(f);
  if (op == "sqrt") return std::sqrt(f);
  if (op == "rsqrt") return 1.0f / std::sqrt(f);
  if (op == "reciprocal") return 1.0f / f;
  if (op == "sin") return std::sin(f);
  if (op == "cos") return std::cos(f);
  if (op == "tan") return std::tan(f);
  if (op == "log2") return std::log2(f);
  if (op == "log10") return std::log10(f);
  if (op == "tanh") return std::tanh(f);
  if (op == "sigmoid") return 1.0f / (1.0f + std::exp(-f));
  if (op == "ceil") return std::ceil(f);
  if (op == "floor") return std::floor(f);
  if (op == "round") return std::nearbyint(f);
  if (op == "relu") return a > 0 ? a : 0;
  if (op == "bitwise_not") return static_cast<double>(~static_cast<int64_t>(a));
  return a;
}
double binary(const std::string& op, double a, double b, bool fp) {
  const float x = static_cast<float>(a), y = static_cast<float>(b);
  if (op == "add") return fp ? static_cast<double>(x + y) : a + b;
  if (op == "sub") return fp ? static_cast<double>(x - y) : a - b;
  if (op == "mul") return fp ? static_cast<double>(x * y) : a * b;
  if (op == "div") {
    if (fp) return x / y;
    const int64_t d = static_cast<int64_t>(b);
    return d == 0 ? 0.0 : static_cast<double>(static_cast<int64_t>(a) / d);
  }
  if (op == "pow") return fp ? static_cast<double>(std::pow(x, y)) : std::pow(a, b);
  const int64_t i = static_cast<int64_t>(a), j = static_cast<int64_t>(b);
  if (op == "bitwise_and") return static_cast<double>(i & j);
  if (op == "bitwise_or") return static_cast<double>(i | j);
  if (op == "bitwise_xor") return static_cast<double>(i ^ j);
  return a;
}

void same_shape(const std::string& call, const Tensor& a, const Tensor& b) {
  if (!a.defined() || !b.defined()) detail::op_error(call, "undefined tensor");
  const auto sa = a.sizes(), sb = b.sizes();
  if (sa.vec() != sb.vec())
    detail::op_error(call, "shapes differ (npusim implements no broadcasting, like the device library)");
}

Tensor& map_out(const std::string& op, Tensor& out, const Tensor& a, const std::function<double(double, int64_t)>& f) {
  same_shape(op + "_out", out, a);
  if (op.rfind("bitwise", 0) == 0 && (is_float(a.scalar_type()) || is_float(out.scalar_type())))
    detail::op_error(op, "bitwise ops take integer tensors");
  const auto scope = detail::op_scope();
  const auto in = detail::bytes_of(*a.impl());
  detail::HostBytes res(out.impl()->nbytes());  // every element is written
  const int64_t n = a.numel();
  for (int64_t i = 0; i < n; ++i) put(res, out.scalar_type(), i, f(get(in, a.scalar_type(), i), i));
  detail::set_bytes(*out.impl(), res);
  detail::op_work(n);
  return out;
}

Tensor like(const Tensor& a) { return Tensor(detail::new_tensor(a.sizes(), a.scalar_type(), "tensor op")); }

}  // namespace

}  // namespace torch

void c10::IntArrayRef::too_many_dims() {
  torch::detail::op_error("IntArrayRef", fmt::format("more than {} sizes in a braced list (the device library's limit)", kMaxDims));
}

namespace torch {

int64_t Tensor::numel() const { return impl_ ? impl_->numel : 0; }
int64_t Tensor::dim() const { return impl_ ? static_cast<int64_t>(impl_->sizes.size()) : 0; }
IntArrayRef Tensor::sizes() const { return impl_ ? IntArrayRef(impl_->sizes) : IntArrayRef(); }
int64_t Tensor::size(int64_t d) const {
  const int64_t n = dim();
  if (d < 0) d += n;
  if (d < 0 || d >= n) detail::op_error("size", fmt::format("dimension {} of a {}-dimensional tensor", d, n));
  return impl_->sizes[static_cast<size_t>(d)];
}
ScalarType Tensor::scalar_type() const { return impl_ ? impl_->dtype : kFloat; }

Tensor& Tensor::fill_(const Scalar& v) const {
  const auto scope = detail::op_scope();
  detail::HostBytes e(torch::element_size(impl_->dtype));  // every element has these bytes
  put(e, impl_->dtype, 0, v.toDouble());
  detail::fill_bytes(*impl_, e.data(), e.size());
  detail::op_work(0);
  return const_cast<Tensor&>(*this);
}

Tensor empty(IntArrayRef size, const TensorOptions& o) {
  return Tensor(detail::new_tensor(size, o.dtype(), "empty"));
}
Tensor full(IntArrayRef size, const Scalar& value, const TensorOptions& o) {
  Tensor t = empty(size, o);
  t.fill_(value);
  return t;
}
Tensor zeros(IntArrayRef size, const TensorOptions& o) { return full(size, 0, o); }
Tensor ones(IntArrayRef size, const TensorOptions& o) { return full(size, 1, o); }
Tensor eye(int64_t n, const TensorOptions& o) { return eye(n, n, o); }
Tensor eye(int64_t n, int64_t m, const TensorOptions& o) {
  Tensor t = empty({n, m}, o);
  const auto scope = detail::op_scope();
  detail::HostBytes b(t.impl()->nbytes());  // zeros and the diagonal, written once
  for (int64_t i = 0; i < std::min(n, m); ++i) put(b, t.scalar_type(), i * m + i, 1);
  detail::set_bytes(*t.impl(), b);
  detail::op_work(0);
  return t;
}

#define NPUSIM_UNARY_IMPL(name)                                                                 \
  Tensor& name##_out(Tensor& out, const Tensor& a) {                                            \
    const bool fp = is_float(a.scalar_type());                                                  \
    return map_out(#name, out, a, [fp](double x, int64_t) { return unary(#name, x, fp); });     \
  }                                                                                             \
  Tensor name(const Tensor& a) {                                                                \
    Tensor out = like(a);                                                                       \
    return name##_out(out, a);                                                                  \
  }
NPUSIM_UNARY_IMPL(abs)
NPUSIM_UNARY_IMPL(neg)
NPUSIM_UNARY_IMPL(exp)
NPUSIM_UNARY_IMPL(log)
NPUSIM_UNARY_IMPL(sqrt)
NPUSIM_UNARY_IMPL(rsqrt)
NPUSIM_UNARY_IMPL(reciprocal)
NPUSIM_UNARY_IMPL(sin)
NPUSIM_UNARY_IMPL(cos)
NPUSIM_UNARY_IMPL(tan)
NPUSIM_UNARY_IMPL(log2)
NPUSIM_UNARY_IMPL(log10)
NPUSIM_UNARY_IMPL(tanh)
NPUSIM_UNARY_IMPL(sigmoid)
NPUSIM_UNARY_IMPL(ceil)
NPUSIM_UNARY_IMPL(floor)
NPUSIM_UNARY_IMPL(round)
NPUSIM_UNARY_IMPL(relu)
NPUSIM_UNARY_IMPL(bitwise_not)
#undef NPUSIM_UNARY_IMPL

namespace {
Tensor& binary_out(const std::string& op, Tensor& out, const Tensor& a, const Tensor& b, double alpha) {
  same_shape(op, a, b);
  const auto scope = detail::op_scope();  // b's read is part of the op
  const auto bb = detail::bytes_of(*b.impl());
  const bool fp = is_float(a.scalar_type());
  const ScalarType bt = b.scalar_type();
  return map_out(op, out, a, [&](double x, int64_t i) {
    double y = get(bb, bt, i);
    if (alpha != 1) y = fp ? static_cast<double>(static_cast<float>(y) * static_cast<float>(alpha)) : y * alpha;
    return binary(op, x, y, fp);
  });
}
Tensor& scalar_out(const std::string& op, Tensor& out, const Tensor& a, const Scalar& s, double alpha) {
  const bool fp = is_float(a.scalar_type());
  const double y = s.toDouble() * alpha;
  return map_out(op, out, a, [&](double x, int64_t) { return binary(op, x, y, fp); });
}
}  // namespace

#define NPUSIM_BINARY_IMPL(name)                                                               \
  Tensor& name##_out(Tensor& out, const Tensor& a, const Tensor& b) {                          \
    return binary_out(#name, out, a, b, 1);                                                    \
  }                                                                                            \
  Tensor name(const Tensor& a, const Tensor& b) {                                              \
    Tensor out = like(a);                                                                      \
    return name##_out(out, a, b);                                                              \
  }                                                                                            \
  Tensor& name##_out(Tensor& out, const Tensor& a, const Scalar& b) {                          \
    return scalar_out(#name, out, a, b, 1);                                                    \
  }                                                                                            \
  Tensor name(const Tensor& a, const Scalar& b) {                                              \
    Tensor out = like(a);                                                                      \
    return name##_out(out, a, b);                                                              \
  }
NPUSIM_BINARY_IMPL(mul)
NPUSIM_BINARY_IMPL(div)
NPUSIM_BINARY_IMPL(pow)
NPUSIM_BINARY_IMPL(bitwise_and)
NPUSIM_BINARY_IMPL(bitwise_or)
NPUSIM_BINARY_IMPL(bitwise_xor)
#undef NPUSIM_BINARY_IMPL

// Scalar first (pow, bitwise): the scalar is cast to the tensor's dtype, as documented.
namespace {
Tensor& scalar_first_out(const std::string& op, Tensor& out, const Scalar& s, const Tensor& b) {
  const bool fp = is_float(b.scalar_type());
  const double x = fp ? static_cast<double>(s.toFloat()) : static_cast<double>(s.toLong());
  return map_out(op, out, b, [&](double y, int64_t) { return binary(op, x, y, fp); });
}
}  // namespace
#define NPUSIM_SCALAR_FIRST_IMPL(name)                                                         \
  Tensor& name##_out(Tensor& out, const Scalar& a, const Tensor& b) {                          \
    return scalar_first_out(#name, out, a, b);                                                 \
  }                                                                                            \
  Tensor name(const Scalar& a, const Tensor& b) {                                              \
    Tensor out = like(b);                                                                      \
    return name##_out(out, a, b);                                                              \
  }
NPUSIM_SCALAR_FIRST_IMPL(pow)
NPUSIM_SCALAR_FIRST_IMPL(bitwise_and)
NPUSIM_SCALAR_FIRST_IMPL(bitwise_or)
NPUSIM_SCALAR_FIRST_IMPL(bitwise_xor)
#undef NPUSIM_SCALAR_FIRST_IMPL
Tensor bitwise_not(Tensor& out, const Tensor& a) { return bitwise_not_out(out, a); }

#define NPUSIM_ALPHA_IMPL(name)                                                                \
  Tensor& name##_out(Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha) {     \
    return binary_out(#name, out, a, b, alpha.toDouble());                                     \
  }                                                                                            \
  Tensor name(const Tensor& a, const Tensor& b, const Scalar& alpha) {                         \
    Tensor out = like(a);                                                                      \
    return name##_out(out, a, b, alpha);                                                       \
  }                                                                                            \
  Tensor& name##_out(Tensor& out, const Tensor& a, const Scalar& b, const Scalar& alpha) {     \
    return scalar_out(#name, out, a, b, alpha.toDouble());                                     \
  }                                                                                            \
  Tensor name(const Tensor& a, const Scalar& b, const Scalar& alpha) {                         \
    Tensor out = like(a);                                                                      \
    return name##_out(out, a, b, alpha);                                                       \
  }
NPUSIM_ALPHA_IMPL(add)
NPUSIM_ALPHA_IMPL(sub)
#undef NPUSIM_ALPHA_IMPL
Tensor& clamp_out(Tensor& out, const Tensor& a, const Scalar& lo, const Scalar& hi) {
  const double l = lo.toDouble(), h = hi.toDouble();
  return map_out("clamp", out, a, [l, h](double x, int64_t) { return x < l ? l : x > h ? h : x; });
}
Tensor clamp(const Tensor& a, const Scalar& lo, const Scalar& hi) {
  Tensor out = like(a);
  return clamp_out(out, a, lo, hi);
}

Tensor Tensor::add(const Tensor& o, const Scalar& alpha) const { return torch::add(*this, o, alpha); }
Tensor Tensor::sub(const Tensor& o, const Scalar& alpha) const { return torch::sub(*this, o, alpha); }
Tensor Tensor::mul(const Tensor& o) const { return torch::mul(*this, o); }
Tensor Tensor::div(const Tensor& o) const { return torch::div(*this, o); }
Tensor Tensor::abs() const { return torch::abs(*this); }
Tensor Tensor::neg() const { return torch::neg(*this); }
Tensor Tensor::exp() const { return torch::exp(*this); }
Tensor Tensor::sqrt() const { return torch::sqrt(*this); }
Tensor Tensor::clamp(const Scalar& lo, const Scalar& hi) const { return torch::clamp(*this, lo, hi); }

}  // namespace torch

namespace npusim::torchrt {

torch::ScalarType parse_dtype(const std::string& s, bool* ok) {
  *ok = true;
  if (s == "float" || s == "float32" || s == "kFloat") return torch::kFloat;
  if (s == "bfloat16" || s == "kBFloat16") return torch::kBFloat16;
  if (s == "half" || s == "float16" || s == "kHalf") return torch::kHalf;
  if (s == "int" || s == "int32" || s == "kInt") return torch::kInt;
  if (s == "char" || s == "int8" || s == "kChar") return torch::kChar;
  if (s == "short" || s == "int16" || s == "kShort") return torch::kShort;
  if (s == "byte" || s == "uint8" || s == "kByte") return torch::kByte;
  if (s == "long" || s == "int64" || s == "kLong") return torch::kLong;
  *ok = false;
  return torch::kFloat;
}

torch::Tensor make_input(const std::vector<int64_t>& shape, torch::ScalarType dtype, const std::string& pattern) {
  auto t = torch::detail::make_host_tensor(shape, dtype);
  t->host.assign(t->nbytes(), 0);
  t->name = "input";
  const int64_t n = t->numel;
  auto arg = [&](size_t k) -> double {
    const auto open = pattern.find('('), close = pattern.rfind(')');
    if (open == std::string::npos || close == std::string::npos) throw std::invalid_argument("pattern '" + pattern + "' needs arguments");
    std::string inner = pattern.substr(open + 1, close - open - 1);
    size_t pos = 0;
    for (size_t i = 0; i < k; ++i) {
      pos = inner.find(',', pos);
      if (pos == std::string::npos) throw std::invalid_argument("pattern '" + pattern + "' has too few arguments");
      ++pos;
    }
    const auto end = inner.find(',', pos);
    const std::string v = inner.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    size_t used = 0;
    double d;
    try {
      d = std::stod(v, &used);
    } catch (const std::exception&) {
      throw std::invalid_argument("pattern '" + pattern + "': '" + v + "' is not a number");
    }
    return d;
  };
  // The pattern is read once; the element loop only computes values.
  const std::string kind = pattern.substr(0, pattern.find('('));
  enum class K { kZeros, kOnes, kRange, kAlternating, kConstant, kLinspace, kRandom };
  K k = K::kZeros;
  double a0 = 0, a1 = 0;
  std::mt19937_64 rng;
  if (kind == "zeros") k = K::kZeros;
  else if (kind == "ones") k = K::kOnes;
  else if (kind == "range") k = K::kRange;
  else if (kind == "alternating") k = K::kAlternating;
  else if (kind == "constant") k = K::kConstant;
  else if (kind == "linspace") k = K::kLinspace;
  else if (kind == "random") k = K::kRandom;
  else if (n > 0)
    throw std::invalid_argument("unknown init pattern '" + pattern +
                                "' (zeros, ones, range, alternating, constant(v), linspace(lo,hi), random(seed))");
  if (n > 0 && (k == K::kConstant || k == K::kLinspace)) a0 = arg(0);
  if (n > 1 && k == K::kLinspace) a1 = arg(1);
  if (k == K::kRandom) rng.seed(static_cast<uint64_t>(arg(0)));
  for (int64_t i = 0; i < n; ++i) {
    double v = 0;
    switch (k) {
      case K::kZeros: v = 0; break;
      case K::kOnes: v = 1; break;
      case K::kRange: v = static_cast<double>(i); break;
      case K::kAlternating: v = (i % 2 ? -1.0 : 1.0) * static_cast<double>(i % 97) / 8.0; break;
      case K::kConstant: v = a0; break;
      case K::kLinspace:
        v = n > 1 ? a0 + (a1 - a0) * static_cast<double>(i) / static_cast<double>(n - 1) : a0;
        break;
      case K::kRandom:
        // uniform in [-1, 1) from the top 24 bits: exactly representable in float
        v = static_cast<double>(static_cast<int64_t>(rng() >> 40) - (1 << 23)) / (1 << 23);
        break;
    }
    torch::put(t->host, dtype, i, v);
  }
  return torch::Tensor(t);
}

double element(const torch::Tensor& t, int64_t i) { return torch::get(t.impl()->host, t.scalar_type(), i); }

}  // namespace npusim::torchrt
