// Division by a constant known only at run time, as a multiply: the HBM model converts every
// request's arrival time to cycles, and a 64-bit `div` is its single slowest instruction.
#pragma once

#include <cstdint>

namespace npusim::models {

class DivideBy {
 public:
  explicit DivideBy(uint64_t d) : d_(d), m_(d ? UINT64_MAX / d : 0) {}
  uint64_t divisor() const { return d_; }
  // floor(n / d), exactly: with m = floor((2^64 - 1) / d), n * m / 2^64 > n / d - 1 for every
  // 64-bit n, so the high word of n * m is floor(n / d) or one less, and one compare of the
  // remainder corrects it. d must not be 0.
  uint64_t floor(uint64_t n) const {
    uint64_t q = static_cast<uint64_t>((static_cast<unsigned __int128>(n) * m_) >> 64);
    if (n - q * d_ >= d_) ++q;
    return q;
  }
  // ceil(n / d) as (n + d - 1) / d in 64-bit arithmetic (wraps like the division would).
  uint64_t ceil(uint64_t n) const { return floor(n + d_ - 1); }
  // ceil(n / d) (without wrapping: ceil() for n <= 2^64 - d), and whether d divides n, from one
  // multiply.
  uint64_t ceil_exact(uint64_t n, bool& exact) const {
    uint64_t q = static_cast<uint64_t>((static_cast<unsigned __int128>(n) * m_) >> 64);
    uint64_t r = n - q * d_;
    if (r >= d_) ++q, r -= d_;
    exact = r == 0;
    return q + (r != 0);
  }

 private:
  uint64_t d_, m_;
};

}  // namespace npusim::models
