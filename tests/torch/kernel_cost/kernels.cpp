// Kernels whose own code the kernel-cost tests time (kernel_cost_response.py): pairs that differ
// in one respect (the arithmetic per element, a loop-carried dependency, the branch taken).
#include <cmath>

#include "staged.h"

// The frame alone: staging, no work.
torch::Tensor kc_copy(const torch::Tensor& t) {
  return kc_staged(t, [](float*, size_t) {});
}

// Four multiply-adds per element, and eight.
torch::Tensor kc_poly4(const torch::Tensor& t) {
  return kc_staged(t, [](float* b, size_t n) {
    for (size_t i = 0; i < n; ++i) b[i] = kc_poly4_of(b[i]);
  });
}
torch::Tensor kc_poly8(const torch::Tensor& t) {
  return kc_staged(t, [](float* b, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      const float x = b[i];
      b[i] = (((((((0.1f * x + 0.2f) * x + 0.3f) * x + 0.4f) * x + 0.5f) * x + 0.6f) * x + 0.7f) * x + 0.8f) * x +
             0.9f;
    }
  });
}

// One multiply-add per element, independent elements (vectorisable) ...
torch::Tensor kc_scale(const torch::Tensor& t) {
  return kc_staged(t, [](float* b, size_t n) {
    for (size_t i = 0; i < n; ++i) b[i] = b[i] * 0.5f + 0.25f;
  });
}
// ... and the same multiply-add carried from one element to the next (a recurrence).
torch::Tensor kc_recurrence(const torch::Tensor& t) {
  return kc_staged(t, [](float* b, size_t n) {
    float acc = 0.0f;
    for (size_t i = 0; i < n; ++i) {
      acc = acc * 0.5f + b[i];
      b[i] = acc;
    }
  });
}

// An exponential on the positive elements only: the branch taken decides the cost.
torch::Tensor kc_branch(const torch::Tensor& t) {
  return kc_staged(t, [](float* b, size_t n) {
    for (size_t i = 0; i < n; ++i)
      if (b[i] > 0.0f) b[i] = std::exp(b[i]);
  });
}

// Arithmetic only: no accessor, no TCM, no library call but the result's allocation.
torch::Tensor kc_compute_only(const torch::Tensor&, int64_t steps) {
  float s = 0.0f;
  for (int64_t i = 0; i < steps; ++i) s = s * 0.999f + static_cast<float>(i & 7);
  torch::Tensor out = torch::empty({1}, torch::kFloat);
  return s > 1e30f ? torch::empty({2}, torch::kFloat) : out;
}
