// clip_group_gradients: one pass over the batch rows; per row one sweep for x·w and ‖x‖² (plus one for ‖g‖² when
// l2 > 0), then one to add the scaled gradient to its group's sum.
#include "dpfair/clipgrad.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "dpfair/logistic_row.hpp"
#include "dpfair/parallel.hpp"
#include "dpfair/prefetch.hpp"

namespace dpfair {
namespace {

// Batch elements (rows · d) below which a single thread is used.
constexpr std::ptrdiff_t kMinElementsPerThread = 200000;

// Rows ahead whose cache lines are prefetched (batch rows are usually scattered over X).
constexpr std::ptrdiff_t kPrefetchDistance = 4;

// Stride is the compile-time constant 1 when Unit (so the loops vectorize), else cs.
template <bool Unit, class T>
void accumulate_batch_impl(const T* X, std::ptrdiff_t n, std::ptrdiff_t d, std::ptrdiff_t rs, std::ptrdiff_t cs_arg,
                           const double* y, const double* w, double bias, const std::int64_t* rows,
                           std::ptrdiff_t begin, std::ptrdiff_t end, const std::int64_t* groups, const double* clip,
                           std::ptrdiff_t n_groups, double threshold, double l2, double* sums,
                           std::int64_t* n_above, std::int64_t* n_below) {
  // Longer than 60 lines (complexity 25): the per-row pipeline (prefetch, index/group/label checks, dot product,
  // NaN scan, residual, clipped norm with or without l2, counts, clipped sum) in one loop so each scattered row is
  // read once while in cache; the branches are the checks, each with its own message.
  const std::ptrdiff_t cs = Unit ? 1 : cs_arg;
  const bool own_bound = std::isnan(threshold);
  const std::ptrdiff_t width = d + 1;
  const std::ptrdiff_t d4 = d - d % 4;
  for (std::ptrdiff_t t = begin; t < end; ++t) {
    if (Unit && t + kPrefetchDistance < end) {
      const std::int64_t ahead = rows[t + kPrefetchDistance];
      if (ahead >= 0 && ahead < n) {
        prefetch_bytes(X + ahead * rs, d * static_cast<std::ptrdiff_t>(sizeof(T)));
      }
    }
    const std::int64_t i = rows[t];
    if (i < 0 || i >= n) throw std::invalid_argument("rows must index X's rows (0 .. n-1)");
    const std::int64_t k = groups[i];
    if (k < 0 || k >= n_groups) throw std::invalid_argument("groups must lie in 0 .. len(clip)-1");
    const double yi = y[i];
    if (!std::isfinite(yi)) throw std::invalid_argument("y contains NaN or infinity");
    const T* x = X + i * rs;

    double xw, xx;
    row_dot_and_square<Unit>(x, cs, w, d, xw, xx);
    if (!std::isfinite(xx)) {  // NaN/inf in the row, or (rarely) |x| > ~1e154 overflowing the square
      for (std::ptrdiff_t j = 0; j < d; ++j) {
        if (!std::isfinite(static_cast<double>(x[j * cs]))) {
          throw std::invalid_argument("X contains NaN or infinity; remove or impute those values first");
        }
      }
    }
    const double z = bias + xw;
    const double r = sigmoid(z) - yi;

    double norm;
    if (l2 == 0.0) {
      norm = std::abs(r) * std::sqrt(xx + 1.0);  // ‖r·[x, 1]‖ (r² would underflow for |r| < ~1e-162)
    } else {
      // ‖r·x + l2·w‖² summed directly: the expanded form could cancel when r·x ≈ −l2·w.
      double acc[4] = {0.0, 0.0, 0.0, 0.0};
      std::ptrdiff_t j = 0;
      for (; j < d4; j += 4) {
        for (int u = 0; u < 4; ++u) {
          const double gj = r * static_cast<double>(x[(j + u) * cs]) + l2 * w[j + u];
          acc[u] += gj * gj;
        }
      }
      for (; j < d; ++j) {
        const double gj = r * static_cast<double>(x[j * cs]) + l2 * w[j];
        acc[0] += gj * gj;
      }
      norm = std::sqrt(r * r + ((acc[0] + acc[1]) + (acc[2] + acc[3])));
    }
    const double bound = clip[k];
    const double scale = norm > bound ? bound / norm : 1.0;
    const double limit = own_bound ? bound : threshold;
    if (norm > limit) {
      ++n_above[k];
    } else {
      ++n_below[k];
    }
    // A norm that is not finite and not <= the bound (NaN: a score x·w that overflowed to inf − inf in a diverging
    // run; NaN > bound is false, so the scale above is 1) leaves the row out: it would enter the sum unclipped.
    if (!(norm <= bound) && !std::isfinite(norm)) continue;
    double* s = sums + k * width;
    for (std::ptrdiff_t j = 0; j < d; ++j) s[j] += (r * static_cast<double>(x[j * cs]) + l2 * w[j]) * scale;
    s[d] += r * scale;
  }
}

template <class T>
void accumulate_batch(const T* X, std::ptrdiff_t n, std::ptrdiff_t d, std::ptrdiff_t rs, std::ptrdiff_t cs,
                      const double* y, const double* w, double bias, const std::int64_t* rows,
                      std::ptrdiff_t begin, std::ptrdiff_t end, const std::int64_t* groups, const double* clip,
                      std::ptrdiff_t n_groups, double threshold, double l2, double* sums, std::int64_t* n_above,
                      std::int64_t* n_below) {
  if (cs == 1 || d <= 1) {
    accumulate_batch_impl<true>(X, n, d, rs, cs, y, w, bias, rows, begin, end, groups, clip, n_groups, threshold,
                                l2, sums, n_above, n_below);
  } else {
    accumulate_batch_impl<false>(X, n, d, rs, cs, y, w, bias, rows, begin, end, groups, clip, n_groups, threshold,
                                 l2, sums, n_above, n_below);
  }
}

}  // namespace

template <class T>
void clip_group_gradients(const T* X, std::ptrdiff_t n, std::ptrdiff_t d, std::ptrdiff_t row_stride,
                          std::ptrdiff_t col_stride, const double* y, const double* w, double bias,
                          const std::int64_t* rows, std::ptrdiff_t n_rows, const std::int64_t* groups,
                          const double* clip, std::ptrdiff_t n_groups, double threshold, double l2, double* sums,
                          std::int64_t* n_above, std::int64_t* n_below, int n_threads) {
  // Complexity 17: the argument checks (one message each), then the single-thread call or the per-thread partials
  // and their reduction in chunk order.
  if (n < 0 || d < 0 || n_rows < 0) throw std::invalid_argument("clip_group_gradients: negative size");
  if (n_groups < 1) throw std::invalid_argument("clip must hold at least one bound (one per group)");
  if (!std::isfinite(bias)) throw std::invalid_argument("bias must be finite");
  if (!(l2 >= 0.0) || !std::isfinite(l2)) throw std::invalid_argument("l2 must be a finite number >= 0");
  for (std::ptrdiff_t k = 0; k < n_groups; ++k) {
    if (!(clip[k] > 0.0)) throw std::invalid_argument("clip bounds must be > 0 (use inf for no clipping)");
  }
  for (std::ptrdiff_t j = 0; j < d; ++j) {
    if (!std::isfinite(w[j])) throw std::invalid_argument("w contains NaN or infinity");
  }
  const std::ptrdiff_t width = d + 1;
  std::fill(sums, sums + n_groups * width, 0.0);
  std::fill(n_above, n_above + n_groups, std::int64_t{0});
  std::fill(n_below, n_below + n_groups, std::int64_t{0});

  const int threads = threads_for(static_cast<double>(n_rows) * static_cast<double>(std::max<std::ptrdiff_t>(d, 1)),
                                  kMinElementsPerThread, n_threads);
  if (threads == 1) {
    accumulate_batch(X, n, d, row_stride, col_stride, y, w, bias, rows, 0, n_rows, groups, clip, n_groups,
                     threshold, l2, sums, n_above, n_below);
    return;
  }
  // Per-thread accumulators (chunk 0 writes straight into the outputs), reduced in chunk order.
  const auto extra = static_cast<std::size_t>(threads - 1);
  std::vector<std::vector<double>> part_sums(extra, std::vector<double>(static_cast<std::size_t>(n_groups * width)));
  std::vector<std::vector<std::int64_t>> part_above(extra, std::vector<std::int64_t>(static_cast<std::size_t>(n_groups)));
  std::vector<std::vector<std::int64_t>> part_below(extra, std::vector<std::int64_t>(static_cast<std::size_t>(n_groups)));
  parallel_for(n_rows, threads, [&](int c, std::ptrdiff_t begin, std::ptrdiff_t end) {
    if (c == 0) {
      accumulate_batch(X, n, d, row_stride, col_stride, y, w, bias, rows, begin, end, groups, clip, n_groups,
                       threshold, l2, sums, n_above, n_below);
    } else {
      const auto p = static_cast<std::size_t>(c - 1);
      accumulate_batch(X, n, d, row_stride, col_stride, y, w, bias, rows, begin, end, groups, clip, n_groups,
                       threshold, l2, part_sums[p].data(), part_above[p].data(), part_below[p].data());
    }
  });
  for (std::size_t p = 0; p < extra; ++p) {
    for (std::ptrdiff_t k = 0; k < n_groups * width; ++k) sums[k] += part_sums[p][static_cast<std::size_t>(k)];
    for (std::ptrdiff_t k = 0; k < n_groups; ++k) {
      n_above[k] += part_above[p][static_cast<std::size_t>(k)];
      n_below[k] += part_below[p][static_cast<std::size_t>(k)];
    }
  }
}

template void clip_group_gradients<float>(const float*, std::ptrdiff_t, std::ptrdiff_t, std::ptrdiff_t,
                                          std::ptrdiff_t, const double*, const double*, double,
                                          const std::int64_t*, std::ptrdiff_t, const std::int64_t*, const double*,
                                          std::ptrdiff_t, double, double, double*, std::int64_t*, std::int64_t*,
                                          int);
template void clip_group_gradients<double>(const double*, std::ptrdiff_t, std::ptrdiff_t, std::ptrdiff_t,
                                           std::ptrdiff_t, const double*, const double*, double,
                                           const std::int64_t*, std::ptrdiff_t, const std::int64_t*,
                                           const double*, std::ptrdiff_t, double, double, double*,
                                           std::int64_t*, std::int64_t*, int);

}  // namespace dpfair
