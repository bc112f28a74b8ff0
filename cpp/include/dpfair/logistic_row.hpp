// Per-row pieces shared by clip_group_gradients and the DP-SGD loop: the logistic function and x·w with ‖x‖².
#pragma once

#include <cmath>
#include <cstddef>

namespace dpfair {

// Logistic function without overflow: exp of a non-positive argument only. Equal to ½(1 + tanh(z/2)) up to
// rounding, and about twice as fast as tanh.
inline double sigmoid(double z) {
  if (z >= 0.0) return 1.0 / (1.0 + std::exp(-z));
  const double e = std::exp(z);
  return e / (1.0 + e);
}

// dot = x·w and square = ‖x‖² in double for a row x of d elements spaced `stride` apart, with four partial sums
// each to break the addition latency chain. Stride is the compile-time constant 1 when Unit (the loops vectorize).
template <bool Unit, class T>
inline void row_dot_and_square(const T* x, std::ptrdiff_t stride, const double* w, std::ptrdiff_t d, double& dot,
                               double& square) {
  const std::ptrdiff_t cs = Unit ? 1 : stride;
  double z0 = 0.0, z1 = 0.0, z2 = 0.0, z3 = 0.0, s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  std::ptrdiff_t j = 0;
  for (; j + 4 <= d; j += 4) {
    const double a0 = static_cast<double>(x[j * cs]), a1 = static_cast<double>(x[(j + 1) * cs]);
    const double a2 = static_cast<double>(x[(j + 2) * cs]), a3 = static_cast<double>(x[(j + 3) * cs]);
    z0 += a0 * w[j];
    z1 += a1 * w[j + 1];
    z2 += a2 * w[j + 2];
    z3 += a3 * w[j + 3];
    s0 += a0 * a0;
    s1 += a1 * a1;
    s2 += a2 * a2;
    s3 += a3 * a3;
  }
  for (; j < d; ++j) {
    const double a = static_cast<double>(x[j * cs]);
    z0 += a * w[j];
    s0 += a * a;
  }
  dot = (z0 + z1) + (z2 + z3);
  square = (s0 + s1) + (s2 + s3);
}

}  // namespace dpfair
