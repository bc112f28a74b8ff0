// clip_group_gradients: one pass over the batch rows, three short sweeps over each row (z, ‖g‖², scaled sum).
#include "dpfair/clipgrad.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "dpfair/parallel.hpp"

namespace dpfair {
namespace {

// Batch elements (rows · d) below which a single thread is used.
constexpr std::ptrdiff_t kMinElementsPerThread = 200000;

template <class T>
void accumulate_batch(const T* X, std::ptrdiff_t n, std::ptrdiff_t d, std::ptrdiff_t rs, std::ptrdiff_t cs,
                      const double* y, const double* w, double bias, const std::int64_t* rows,
                      std::ptrdiff_t begin, std::ptrdiff_t end, const std::int64_t* groups, const double* clip,
                      std::ptrdiff_t n_groups, double threshold, double l2, double* sums, std::int64_t* n_above,
                      std::int64_t* n_below) {
  const bool own_bound = std::isnan(threshold);
  const std::ptrdiff_t width = d + 1;
  for (std::ptrdiff_t t = begin; t < end; ++t) {
    const std::int64_t i = rows[t];
    if (i < 0 || i >= n) throw std::invalid_argument("rows must index X's rows (0 .. n-1)");
    const std::int64_t k = groups[i];
    if (k < 0 || k >= n_groups) throw std::invalid_argument("groups must lie in 0 .. len(clip)-1");
    const double yi = y[i];
    if (!std::isfinite(yi)) throw std::invalid_argument("y contains NaN or infinity");
    const T* x = X + i * rs;

    double z = bias;
    for (std::ptrdiff_t j = 0; j < d; ++j) z += static_cast<double>(x[j * cs]) * w[j];
    const double r = 0.5 * (1.0 + std::tanh(0.5 * z)) - yi;

    double sq = r * r;
    double probe = 0.0;  // x*0 summed: NaN iff the row holds NaN/inf
    for (std::ptrdiff_t j = 0; j < d; ++j) {
      const double xj = static_cast<double>(x[j * cs]);
      const double gj = r * xj + l2 * w[j];
      sq += gj * gj;
      probe += xj * 0.0;
    }
    if (!(probe == 0.0)) {
      throw std::invalid_argument("X contains NaN or infinity; remove or impute those values first");
    }
    const double norm = std::sqrt(sq);
    const double bound = clip[k];
    const double scale = norm > bound ? bound / norm : 1.0;
    const double limit = own_bound ? bound : threshold;
    if (norm > limit) {
      ++n_above[k];
    } else {
      ++n_below[k];
    }
    double* s = sums + k * width;
    for (std::ptrdiff_t j = 0; j < d; ++j) {
      s[j] += (r * static_cast<double>(x[j * cs]) + l2 * w[j]) * scale;
    }
    s[d] += r * scale;
  }
}

}  // namespace

template <class T>
void clip_group_gradients(const T* X, std::ptrdiff_t n, std::ptrdiff_t d, std::ptrdiff_t row_stride,
                          std::ptrdiff_t col_stride, const double* y, const double* w, double bias,
                          const std::int64_t* rows, std::ptrdiff_t n_rows, const std::int64_t* groups,
                          const double* clip, std::ptrdiff_t n_groups, double threshold, double l2, double* sums,
                          std::int64_t* n_above, std::int64_t* n_below, int n_threads) {
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

  int threads = resolve_threads(n_threads);
  const std::ptrdiff_t work = n_rows * std::max<std::ptrdiff_t>(d, 1);
  threads = static_cast<int>(std::max<std::ptrdiff_t>(
      1, std::min<std::ptrdiff_t>(threads, work / kMinElementsPerThread)));
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
