// npusim's implementation of the tensor API of Neuron custom C++ operators (the subset kernels
// use): a kernel written against <torch/torch.h> compiles unchanged against this header and
// runs on simulated GPSIMD cores (docs/custom-ops.md). No libtorch is involved.
//
// Tensors live in simulated HBM. Outside a simulated core (a shape function, a test on the
// host) they live in host memory and every operation is plain host code.
#pragma once

#include <cassert>  // kernels use assert() through <torch/torch.h>, as the SDK examples do
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

// -DNPUSIM_TCM_CHECK=0: the kernel-cost pass leaves this translation unit's TCM accesses
// unchecked (docs/custom-ops.md, "TCM bounds"). The pass sees this definition.
#if defined(NPUSIM_TCM_CHECK) && !NPUSIM_TCM_CHECK
extern "C" __attribute__((weak, used)) const char npusim_tcm_check_off = 1;
#endif

namespace c10 {

enum class ScalarType : int8_t { Byte, Char, Short, Int, Long, Half, Float, BFloat16 };

// 16-bit floats: storage plus conversion (round to nearest even).
struct Half {
  uint16_t x = 0;
  Half() = default;
  Half(float f);  // NOLINT: implicit, as in c10
  operator float() const;
};
struct BFloat16 {
  uint16_t x = 0;
  BFloat16() = default;
  BFloat16(float f);  // NOLINT
  operator float() const;
};

class IntArrayRef {
 public:
  IntArrayRef() = default;
  // A braced list of sizes. As in c10, an int64_t list must outlive the reference (a braced
  // list in a call does). A list of another integral type ({num_elem} with a size_t) is
  // copied, up to kMaxDims sizes: on the ILP32 device it widens to int64_t.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif
  template <class I, std::enable_if_t<std::is_integral_v<I>, int> = 0>
  IntArrayRef(std::initializer_list<I> l) {  // NOLINT
    if constexpr (std::is_same_v<I, int64_t>) {
      data_ = l.begin();
      size_ = l.size();
    } else {
      for (I v : l) push(v);
    }
  }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  // A braced list of mixed integral types ({rows, 4} with a size_t `rows`).
  template <class... I, std::enable_if_t<(sizeof...(I) >= 2) && (std::is_integral_v<I> && ...), int> = 0>
  IntArrayRef(I... v) {  // NOLINT
    (push(v), ...);
  }
  IntArrayRef(const std::vector<int64_t>& v) : data_(v.data()), size_(v.size()) {}  // NOLINT
  IntArrayRef(const int64_t* d, size_t n) : data_(d), size_(n) {}
  IntArrayRef(const IntArrayRef& o) { *this = o; }
  IntArrayRef& operator=(const IntArrayRef& o) {
    size_ = o.size_;
    owned_ = o.owned_;
    if (owned_) {
      for (size_t i = 0; i < size_; ++i) buf_[i] = o.buf_[i];
      data_ = buf_;
    } else {
      data_ = o.data_;
    }
    return *this;
  }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const int64_t* begin() const { return data_; }
  const int64_t* end() const { return data_ + size_; }
  const int64_t* data() const { return data_; }
  int64_t operator[](size_t i) const { return data_[i]; }
  std::vector<int64_t> vec() const { return std::vector<int64_t>(begin(), end()); }
  bool equals(IntArrayRef o) const {
    if (size_ != o.size_) return false;
    for (size_t i = 0; i < size_; ++i)
      if (data_[i] != o.data_[i]) return false;
    return true;
  }
  // The device library's limit (public API reference, "Library Limitations").
  static constexpr size_t kMaxDims = 8;

 private:
  template <class I>
  void push(I v) {
    if (size_ == kMaxDims) too_many_dims();
    buf_[size_++] = static_cast<int64_t>(v);
    data_ = buf_;
    owned_ = true;
  }
  [[noreturn]] static void too_many_dims();
  const int64_t* data_ = nullptr;
  size_t size_ = 0;
  bool owned_ = false;
  int64_t buf_[kMaxDims] = {};
};
inline bool operator==(IntArrayRef a, IntArrayRef b) { return a.equals(b); }
inline bool operator!=(IntArrayRef a, IntArrayRef b) { return !a.equals(b); }

class TensorOptions {
 public:
  TensorOptions() = default;
  TensorOptions(ScalarType t) : dtype_(t), has_dtype_(true) {}  // NOLINT
  TensorOptions dtype(ScalarType t) const { return TensorOptions(t); }
  ScalarType dtype() const { return dtype_; }
  bool has_dtype() const { return has_dtype_; }

 private:
  ScalarType dtype_ = ScalarType::Float;
  bool has_dtype_ = false;
};

class Scalar {
 public:
  Scalar() : Scalar(int64_t{0}) {}
  Scalar(double v) : d_(v), i_(static_cast<int64_t>(v)), integral_(false) {}  // NOLINT
  Scalar(float v) : Scalar(static_cast<double>(v)) {}                        // NOLINT
  Scalar(int64_t v) : d_(static_cast<double>(v)), i_(v), integral_(true) {}  // NOLINT
  Scalar(int v) : Scalar(static_cast<int64_t>(v)) {}                         // NOLINT
  Scalar(bool v) : Scalar(static_cast<int64_t>(v)) {}                        // NOLINT
  double toDouble() const { return d_; }
  float toFloat() const { return static_cast<float>(d_); }
  int64_t toLong() const { return i_; }
  int toInt() const { return static_cast<int>(i_); }
  bool isIntegral(bool = false) const { return integral_; }
  bool isFloatingPoint() const { return !integral_; }
  template <class T>
  T to() const {
    return integral_ ? static_cast<T>(i_) : static_cast<T>(d_);
  }

 private:
  double d_;
  int64_t i_;
  bool integral_;
};

}  // namespace c10

namespace torch {

using c10::BFloat16;
using c10::Half;
using c10::IntArrayRef;
using c10::Scalar;
using c10::ScalarType;
using c10::TensorOptions;
using Dtype = c10::ScalarType;

constexpr ScalarType kByte = ScalarType::Byte;
constexpr ScalarType kChar = ScalarType::Char;
constexpr ScalarType kShort = ScalarType::Short;
constexpr ScalarType kInt = ScalarType::Int;
constexpr ScalarType kLong = ScalarType::Long;
constexpr ScalarType kInt64 = ScalarType::Long;
constexpr ScalarType kHalf = ScalarType::Half;
constexpr ScalarType kFloat = ScalarType::Float;
constexpr ScalarType kBFloat16 = ScalarType::BFloat16;
constexpr ScalarType kFloat32 = ScalarType::Float;
constexpr ScalarType kInt32 = ScalarType::Int;

const char* dtype_name(ScalarType t);
size_t element_size(ScalarType t);

// The accessor coherence policy of a tensor (public API reference, "Coherence"): what to do
// when an accessor is opened in a way that may be incoherent with the accessors already
// active on the same tensor — a stream while a write stream is active, a write stream while
// any stream is active, a stream and a standard accessor together. COHERENT (the default):
// an error; INCOHERENT_VERBOSE: allowed with a warning; INCOHERENT_QUIET: allowed silently.
// TCM accessors are never checked.
class CoherencyEnforcer {
 public:
  enum Policy { COHERENT, INCOHERENT_VERBOSE, INCOHERENT_QUIET };
};

namespace detail {
struct TensorImpl;
// The element type a C++ type stands for (compile-time dtype checks of accessors).
template <class T> constexpr ScalarType dtype_of();
template <> constexpr ScalarType dtype_of<uint8_t>() { return kByte; }
template <> constexpr ScalarType dtype_of<int8_t>() { return kChar; }
template <> constexpr ScalarType dtype_of<int16_t>() { return kShort; }
template <> constexpr ScalarType dtype_of<int32_t>() { return kInt; }
template <> constexpr ScalarType dtype_of<int64_t>() { return kLong; }
template <> constexpr ScalarType dtype_of<c10::Half>() { return kHalf; }
template <> constexpr ScalarType dtype_of<float>() { return kFloat; }
template <> constexpr ScalarType dtype_of<c10::BFloat16>() { return kBFloat16; }

// The simulator side (firmware/torch/runtime.cpp).
void check_accessor_type(const TensorImpl& t, ScalarType want, size_t dims, const char* call);
void element_load(const TensorImpl& t, int64_t index, void* dst, size_t bytes);
void element_store(TensorImpl& t, int64_t index, const void* src, size_t bytes);
[[noreturn]] void index_out_of_range(const TensorImpl& t, int64_t index, int64_t dim, int64_t size);
const int64_t* sizes_of(const TensorImpl& t);
const int64_t* strides_of(const TensorImpl& t);

// Coherence bookkeeping per tensor: an accessor of `kind` is acquired (checked against the
// tensor's policy) and released.
enum class AccessKind { kStandard, kReadStream, kWriteStream };
void acquire_access(TensorImpl& t, AccessKind kind, const char* call);
void release_access(TensorImpl& t, AccessKind kind);
CoherencyEnforcer::Policy coherence_policy(const TensorImpl& t);
void set_coherence_policy(TensorImpl& t, CoherencyEnforcer::Policy p);
// The active standard accessor of a tensor: released when its last copy goes.
class StandardAccess {
 public:
  explicit StandardAccess(TensorImpl& t) : t_(t) { acquire_access(t_, AccessKind::kStandard, "accessor"); }
  ~StandardAccess() { release_access(t_, AccessKind::kStandard); }
  StandardAccess(const StandardAccess&) = delete;
  StandardAccess& operator=(const StandardAccess&) = delete;

 private:
  TensorImpl& t_;
};

// Streams: a slot of the core's stream table (buffer in TCM, or the slow fallback).
int stream_open(TensorImpl& t, bool write, size_t elem_bytes, const char* call);
void stream_read(int slot, void* dst);
void stream_write(int slot, const void* src);
void stream_close(int slot);

void tcm_transfer(TensorImpl& t, bool to_tcm, void* tcm, size_t offset, size_t n, size_t elem_bytes,
                  ScalarType want, const char* call);
}  // namespace detail

class Tensor;

// accessor<T,N>(): every element access is a trip to HBM (as on the device). A read-only
// accessor (from a const tensor) has no assignment: writing through it does not compile.
template <class T, bool read_only = false>
class ElementRef {
 public:
  ElementRef(detail::TensorImpl* t, int64_t index) : t_(t), index_(index) {}
  operator T() const {
    T v;
    detail::element_load(*t_, index_, &v, sizeof(T));
    return v;
  }
  ElementRef& operator=(T v) {
    static_assert(!read_only, "writing through the read-only accessor of a const tensor");
    detail::element_store(*t_, index_, &v, sizeof(T));
    return *this;
  }
  ElementRef& operator=(const ElementRef& o) { return *this = static_cast<T>(o); }
  ElementRef& operator+=(T v) { return *this = static_cast<T>(static_cast<T>(*this) + v); }
  ElementRef& operator-=(T v) { return *this = static_cast<T>(static_cast<T>(*this) - v); }
  ElementRef& operator*=(T v) { return *this = static_cast<T>(static_cast<T>(*this) * v); }
  ElementRef& operator/=(T v) { return *this = static_cast<T>(static_cast<T>(*this) / v); }

 private:
  detail::TensorImpl* t_;
  int64_t index_;
};

template <class T, size_t N, bool read_only = false>
class TensorAccessor {
 public:
  TensorAccessor(detail::TensorImpl* t, const int64_t* sizes, const int64_t* strides, int64_t base,
                 std::shared_ptr<detail::StandardAccess> access)
      : t_(t), sizes_(sizes), strides_(strides), base_(base), access_(std::move(access)) {}
  auto operator[](int64_t i) const {
    // (the dimension: how far into the tensor's sizes this accessor's are)
    if (i < 0 || i >= sizes_[0]) detail::index_out_of_range(*t_, i, sizes_ - detail::sizes_of(*t_), sizes_[0]);
    if constexpr (N == 1) return ElementRef<T, read_only>(t_, base_ + i * strides_[0]);
    else return TensorAccessor<T, N - 1, read_only>(t_, sizes_ + 1, strides_ + 1, base_ + i * strides_[0], access_);
  }
  int64_t size(size_t d) const { return sizes_[d]; }

 private:
  detail::TensorImpl* t_;
  const int64_t* sizes_;
  const int64_t* strides_;
  int64_t base_;
  std::shared_ptr<detail::StandardAccess> access_;  // the accessor is active while it lives
};

namespace detail {
// Closing a stream at scope exit: a fault is thrown like any other (the destructors are
// noexcept(false)), unless the scope is already being left by an exception, whose report
// stands.
void stream_close_at_scope_exit(int slot) noexcept(false);
}  // namespace detail

// read_stream_accessor<T>() / write_stream_accessor<T>(): sequential access through a 4 KiB
// buffer in TCM (the first four per core; a fifth runs at standard-accessor speed).
template <class T>
class TensorReadStreamAccessor {
 public:
  TensorReadStreamAccessor(detail::TensorImpl& t)  // NOLINT
      : slot_(detail::stream_open(t, false, sizeof(T), "read_stream_accessor")) {}
  TensorReadStreamAccessor(TensorReadStreamAccessor&& o) noexcept : slot_(o.slot_) { o.slot_ = -1; }
  TensorReadStreamAccessor(const TensorReadStreamAccessor&) = delete;
  TensorReadStreamAccessor& operator=(const TensorReadStreamAccessor&) = delete;
  ~TensorReadStreamAccessor() noexcept(false) {
    if (slot_ >= 0) detail::stream_close_at_scope_exit(slot_);
  }
  T read() {
    T v;
    detail::stream_read(slot_, &v);
    return v;
  }
  // The slot stays: a later access is reported as an access to a closed stream. Returns 0.
  int close() {
    if (slot_ >= 0) detail::stream_close(slot_);
    return 0;
  }

 private:
  int slot_;
};

template <class T>
class TensorWriteStreamAccessor {
 public:
  TensorWriteStreamAccessor(detail::TensorImpl& t)  // NOLINT
      : slot_(detail::stream_open(t, true, sizeof(T), "write_stream_accessor")) {}
  TensorWriteStreamAccessor(TensorWriteStreamAccessor&& o) noexcept : slot_(o.slot_) { o.slot_ = -1; }
  TensorWriteStreamAccessor(const TensorWriteStreamAccessor&) = delete;
  TensorWriteStreamAccessor& operator=(const TensorWriteStreamAccessor&) = delete;
  ~TensorWriteStreamAccessor() noexcept(false) {
    if (slot_ >= 0) detail::stream_close_at_scope_exit(slot_);
  }
  void write(T v) { detail::stream_write(slot_, &v); }
  // The slot stays: a later access is reported as an access to a closed stream. Returns 0.
  int close() {
    if (slot_ >= 0) detail::stream_close(slot_);
    return 0;
  }

 private:
  int slot_;
};
template <class T> using ReadStreamAccessor = TensorReadStreamAccessor<T>;
template <class T> using WriteStreamAccessor = TensorWriteStreamAccessor<T>;

// tcm_accessor(): whole ranges moved by DMA between the tensor and a TCM buffer
// (torch::neuron::tcm_malloc). Offsets and counts are elements of the flattened tensor. The
// accessor of a const tensor is read-only: tcm_to_tensor on it does not compile.
template <bool read_only>
class TensorTcmAccessor {
 public:
  explicit TensorTcmAccessor(detail::TensorImpl* t) : t_(t) {}
  template <class T>
  void tensor_to_tcm(T* tcm, size_t offset, size_t n) const {
    detail::tcm_transfer(*t_, true, tcm, offset, n, sizeof(T), detail::dtype_of<T>(), "tensor_to_tcm");
  }
  template <class T>
  void tcm_to_tensor(const T* tcm, size_t offset, size_t n) const {
    static_assert(!read_only, "tcm_to_tensor on the read-only TCM accessor of a const tensor");
    detail::tcm_transfer(*t_, false, const_cast<T*>(tcm), offset, n, sizeof(T), detail::dtype_of<T>(),
                         "tcm_to_tensor");
  }

 private:
  detail::TensorImpl* t_;
};
using TcmAccessor = TensorTcmAccessor<false>;

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<detail::TensorImpl> impl) : impl_(std::move(impl)) {}

  bool defined() const { return impl_ != nullptr; }
  int64_t numel() const;
  int64_t dim() const;
  IntArrayRef sizes() const;
  int64_t size(int64_t d) const;
  ScalarType scalar_type() const;
  ScalarType dtype() const { return scalar_type(); }
  size_t element_size() const { return torch::element_size(scalar_type()); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * element_size(); }
  Tensor& fill_(const Scalar& v) const;
  Tensor& zero_() const { return fill_(0); }

  // As documented: a const tensor gives read-only accessors; write streams need a mutable one.
  template <class T, size_t N>
  TensorAccessor<T, N, true> accessor() const& {
    return make_accessor<T, N, true>();
  }
  template <class T, size_t N>
  TensorAccessor<T, N, false> accessor() & {
    return make_accessor<T, N, false>();
  }
  template <class T>
  TensorReadStreamAccessor<T> read_stream_accessor() const& {
    detail::check_accessor_type(*impl_, detail::dtype_of<T>(), 0, "read_stream_accessor");
    return TensorReadStreamAccessor<T>(*impl_);
  }
  template <class T>
  TensorWriteStreamAccessor<T> write_stream_accessor() & {
    detail::check_accessor_type(*impl_, detail::dtype_of<T>(), 0, "write_stream_accessor");
    return TensorWriteStreamAccessor<T>(*impl_);
  }
  TensorTcmAccessor<true> tcm_accessor() const& { return TensorTcmAccessor<true>(impl_.get()); }
  TensorTcmAccessor<false> tcm_accessor() & { return TensorTcmAccessor<false>(impl_.get()); }
  CoherencyEnforcer::Policy get_accessor_coherence_policy() const {
    return detail::coherence_policy(*impl_);
  }
  void set_accessor_coherence_policy(CoherencyEnforcer::Policy p) const {
    detail::set_coherence_policy(*impl_, p);
  }

  // Element-wise ops as methods (no broadcasting: shapes must match).
  Tensor add(const Tensor& o, const Scalar& alpha = 1) const;
  Tensor sub(const Tensor& o, const Scalar& alpha = 1) const;
  Tensor mul(const Tensor& o) const;
  Tensor div(const Tensor& o) const;
  Tensor abs() const;
  Tensor neg() const;
  Tensor exp() const;
  Tensor sqrt() const;
  Tensor clamp(const Scalar& lo, const Scalar& hi) const;

  detail::TensorImpl* unsafeGetTensorImpl() const { return impl_.get(); }
  template <class T, size_t N, bool read_only>
  TensorAccessor<T, N, read_only> make_accessor() const {
    detail::check_accessor_type(*impl_, detail::dtype_of<T>(), N, "accessor");
    return TensorAccessor<T, N, read_only>(impl_.get(), detail::sizes_of(*impl_), detail::strides_of(*impl_), 0,
                                           std::make_shared<detail::StandardAccess>(*impl_));
  }
  const std::shared_ptr<detail::TensorImpl>& impl() const { return impl_; }

 private:
  std::shared_ptr<detail::TensorImpl> impl_;
};

// --- factories ---
Tensor empty(IntArrayRef size, const TensorOptions& options = {});
Tensor zeros(IntArrayRef size, const TensorOptions& options = {});
Tensor ones(IntArrayRef size, const TensorOptions& options = {});
Tensor full(IntArrayRef size, const Scalar& value, const TensorOptions& options = {});
Tensor eye(int64_t n, const TensorOptions& options = {});
Tensor eye(int64_t n, int64_t m, const TensorOptions& options = {});

}  // namespace torch

// The element-wise ops of the reference.
#include <torch/ops.h>

namespace torch {

namespace neuron {
// The 16 KiB TCM pool of the core running the kernel (the dataram heap): nullptr on failure.
void* tcm_malloc(size_t bytes);
void tcm_free(void* p);  // accepts nullptr
}  // namespace neuron

}  // namespace torch

// NEURON_LIBRARY: kernels' shape files include "torchneuron/register.h", as for the device;
// older npusim shape files get it through this header.
#include <torchneuron/register.h>
