// kc_poly4 compiled by the plain compiler (no kernel-cost pass): it runs, its own code is not
// timed, and its results equal the annotated kernel's.
#include "staged.h"

torch::Tensor kc_plain(const torch::Tensor& t) {
  return kc_staged(t, [](float* b, size_t n) {
    for (size_t i = 0; i < n; ++i) b[i] = kc_poly4_of(b[i]);
  });
}
