// Per-group sums of per-example logistic-loss gradients, each L2-clipped to its group's bound (DP-SGD step).
#pragma once

#include <cstddef>
#include <cstdint>

namespace dpfair {

// X (n, d) is a pointer plus element strides (any sign, any layout), float or double; y (n,) labels (finite,
// normally in {0, 1}); w (d,) and bias the linear model; rows (n_rows,) row indices into X (may repeat);
// groups (n,) labels in [0, n_groups); clip (n_groups,) bounds > 0 (+inf: no clipping).
// For each batch row i with k = groups[i], z = x_iᵀw + bias, r = σ(z) − y_i (σ the logistic function):
//   g_i = r·[x_i, 1] + l2·[w, 0]                    (gradient w.r.t. (w, bias), length d + 1)
//   sums[k * (d+1) + :] += g_i · min(1, clip[k] / ‖g_i‖₂)   (nothing when ‖g_i‖₂ is neither finite nor <= clip[k],
//                                                           e.g. NaN from a score that overflowed to inf − inf)
//   n_above[k] += ‖g_i‖₂ > t,  n_below[k] += ‖g_i‖₂ <= t   with t = threshold, or clip[k] if threshold is NaN.
// Outputs (sums: n_groups × (d+1) row-major; n_above, n_below: n_groups) are overwritten. No per-example
// gradient matrix is formed; with one thread nothing is allocated, so it can be called per batch in a loop.
// Throws std::invalid_argument on bad sizes, an index/label out of range, or NaN/infinity in a visited row
// of X or y.
template <class T>
void clip_group_gradients(const T* X, std::ptrdiff_t n, std::ptrdiff_t d, std::ptrdiff_t row_stride,
                          std::ptrdiff_t col_stride, const double* y, const double* w, double bias,
                          const std::int64_t* rows, std::ptrdiff_t n_rows, const std::int64_t* groups,
                          const double* clip, std::ptrdiff_t n_groups, double threshold, double l2, double* sums,
                          std::int64_t* n_above, std::int64_t* n_below, int n_threads);

extern template void clip_group_gradients<float>(const float*, std::ptrdiff_t, std::ptrdiff_t, std::ptrdiff_t,
                                                 std::ptrdiff_t, const double*, const double*, double,
                                                 const std::int64_t*, std::ptrdiff_t, const std::int64_t*,
                                                 const double*, std::ptrdiff_t, double, double, double*,
                                                 std::int64_t*, std::int64_t*, int);
extern template void clip_group_gradients<double>(const double*, std::ptrdiff_t, std::ptrdiff_t, std::ptrdiff_t,
                                                  std::ptrdiff_t, const double*, const double*, double,
                                                  const std::int64_t*, std::ptrdiff_t, const std::int64_t*,
                                                  const double*, std::ptrdiff_t, double, double, double*,
                                                  std::int64_t*, std::int64_t*, int);

}  // namespace dpfair
