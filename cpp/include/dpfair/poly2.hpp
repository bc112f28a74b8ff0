// Coefficients of a degree-2 polynomial summed over the rows of X, in one fused pass over X.
#pragma once

#include <cstddef>
#include <cstdint>

namespace dpfair {

// For X (n, d) given as a pointer plus element strides (any sign, any layout), float or double:
//   b[j]                 = Σ_i a[i] X[i, j]
//   Q[j * d + k]         = Σ_i c[i] X[i, j] X[i, k]            (full symmetric d×d, row-major = column-major)
//   group_sums[g * d + j] = Σ_{groups[i] = g} X[i, j]          (only when groups != nullptr)
//   group_counts[g]      = #{i : groups[i] = g}
// Accumulation is in double; Q is computed on its lower triangle (syrk-like) and mirrored.
// Outputs are overwritten. group_sums/group_counts may be null when groups is null (then n_groups is ignored).
// Threads split the rows (per-thread accumulators, reduced at the end); small inputs use one thread.
// Extra memory: O(threads · (d² + block · d + n_groups · d)), never O(n · d).
// Throws std::invalid_argument on bad sizes, a group label outside [0, n_groups), or a NaN/infinity in X.
template <class T>
void poly2_coefficients(const T* X, std::ptrdiff_t n, std::ptrdiff_t d, std::ptrdiff_t row_stride,
                        std::ptrdiff_t col_stride, const double* a, const double* c, const std::int64_t* groups,
                        std::ptrdiff_t n_groups, double* b, double* Q, double* group_sums,
                        std::int64_t* group_counts, int n_threads);

extern template void poly2_coefficients<float>(const float*, std::ptrdiff_t, std::ptrdiff_t, std::ptrdiff_t,
                                               std::ptrdiff_t, const double*, const double*, const std::int64_t*,
                                               std::ptrdiff_t, double*, double*, double*, std::int64_t*, int);
extern template void poly2_coefficients<double>(const double*, std::ptrdiff_t, std::ptrdiff_t, std::ptrdiff_t,
                                                std::ptrdiff_t, const double*, const double*, const std::int64_t*,
                                                std::ptrdiff_t, double*, double*, double*, std::int64_t*, int);

}  // namespace dpfair
