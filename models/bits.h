// Small integer helpers shared by the models.
#pragma once

#include <cstdint>

namespace npusim::models {

// The smallest s with 2^s >= v (0 for v <= 1): the number of bits that index v items when v
// is a power of two.
inline unsigned log2_ceil(uint64_t v) {
  unsigned s = 0;
  while ((uint64_t{1} << s) < v) ++s;
  return s;
}

}  // namespace npusim::models
