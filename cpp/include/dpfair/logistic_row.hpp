// Per-row pieces shared by clip_group_gradients, the DP-SGD loop and logistic_newton: the logistic function
// (one value, or an array in a loop the compiler vectorizes) and x·w with ‖x‖².
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace dpfair {

// Logistic function without overflow: exp of a non-positive argument only. Equal to ½(1 + tanh(z/2)) up to
// rounding, and about twice as fast as tanh.
inline double sigmoid(double z) {
  if (z >= 0.0) return 1.0 / (1.0 + std::exp(-z));
  const double e = std::exp(z);
  return e / (1.0 + e);
}

// e^x for x in [-708, 0], without calls or branches so that loops over arrays vectorize: x = k·ln2 + r with
// |r| <= ln2/2, e^r by its degree-12 Taylor polynomial (truncation < 2e-16 relative), times 2^k built in the
// exponent bits (k + 1023 in [2, 1023]). Within a few ulp of std::exp; outside [-708, 0] the result is wrong.
inline double exp_nonpositive(double x) {
  const double shift = 6755399441055744.0;  // 1.5·2^52: adding it rounds to an integer held in the low bits
  const double kd = x * 1.4426950408889634 + shift;
  const double k = kd - shift;
  const double r = (x - k * 0.6931471803691238) - k * 1.9082149292705877e-10;  // ln2 split in two parts
  double q = 1.0 / 479001600.0;
  q = q * r + 1.0 / 39916800.0;
  q = q * r + 1.0 / 3628800.0;
  q = q * r + 1.0 / 362880.0;
  q = q * r + 1.0 / 40320.0;
  q = q * r + 1.0 / 5040.0;
  q = q * r + 1.0 / 720.0;
  q = q * r + 1.0 / 120.0;
  q = q * r + 1.0 / 24.0;
  q = q * r + 1.0 / 6.0;
  q = q * r + 0.5;
  q = q * r + 1.0;
  q = q * r + 1.0;
  std::uint64_t bits;
  std::memcpy(&bits, &kd, sizeof bits);
  bits = (bits + 1023) << 52;
  double scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return q * scale;
}

// p[i] = σ(z[i]) = (z >= 0 ? 1 : e) / (1 + e), e = e^{-|z|}, for i < n; p must not overlap z. Two simple loops
// the compiler vectorizes (a clamp inside the exponential's loop stops GCC from vectorizing it). For |z| > 708 the
// exponential is taken at 708: σ is then 1 or below 1e-307 either way.
inline void sigmoid_array(const double* z, double* p, std::ptrdiff_t n) {
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    const double a = std::abs(z[i]);
    p[i] = a < 708.0 ? a : 708.0;
  }
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    const double e = exp_nonpositive(-p[i]);
    const double numerator = z[i] >= 0.0 ? 1.0 : e;
    p[i] = numerator / (1.0 + e);
  }
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
