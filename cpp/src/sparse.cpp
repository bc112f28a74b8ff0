// Kernels on CSR matrices: poly2 coefficients, clipped group gradients and the DP-SGD loop with work proportional to
// the non-zeros (logistic_newton_csr lives in logistic.cpp, next to the Newton iteration it shares).
#include "dpfair/sparse.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "dpfair/logistic_row.hpp"
#include "dpfair/parallel.hpp"
#include "dpfair/sgd_step.hpp"
#include "dpfair/sparse_pairs.hpp"

namespace dpfair {
namespace {

using sgd_step::require;

// Multiply-adds (about Σ nnz_i²/2) below which one thread is used; and non-zeros per thread for the gradient sums.
constexpr double kMinPairsPerThread = 400000.0;
constexpr std::ptrdiff_t kMinNonzerosPerThread = 100000;

// Row boundaries of `chunks` chunks holding about equal numbers of non-zeros: rows [bounds[k], bounds[k+1]).
template <class I>
std::vector<std::ptrdiff_t> nnz_balanced_bounds(const I* indptr, std::ptrdiff_t n, int chunks) {
  std::vector<std::ptrdiff_t> bounds(static_cast<std::size_t>(chunks) + 1, n);
  bounds[0] = 0;
  const double nnz = static_cast<double>(indptr[n]);
  for (int k = 1; k < chunks; ++k) {
    const auto target = static_cast<I>(nnz * k / chunks);
    const std::ptrdiff_t r = std::lower_bound(indptr, indptr + n + 1, target) - indptr;
    bounds[static_cast<std::size_t>(k)] = std::clamp(r, bounds[static_cast<std::size_t>(k) - 1], n);
  }
  return bounds;
}

// One thread's partial sums for poly2_coefficients_csr.
struct PolyPartial {
  std::vector<double> L;  // d × d, row-major, lower triangle: L[j·d + k], k <= j
  std::vector<double> b, group_sums;
  std::vector<std::int64_t> counts;
};

template <class T, class I>
void poly2_rows(const CsrView<T, I>& X, std::ptrdiff_t begin, std::ptrdiff_t end, const double* a, const double* c,
                const std::int64_t* groups, std::ptrdiff_t n_groups, PolyPartial& out) {
  const std::ptrdiff_t d = X.cols;
  out.L.assign(static_cast<std::size_t>(d * d), 0.0);
  out.b.assign(static_cast<std::size_t>(d), 0.0);
  if (groups) {
    out.group_sums.assign(static_cast<std::size_t>(n_groups * d), 0.0);
    out.counts.assign(static_cast<std::size_t>(n_groups), 0);
  }
  double* b = out.b.data();
  for (std::ptrdiff_t i = begin; i < end; ++i) {
    const double ai = a[i];
    for (I p = X.indptr[i]; p < X.indptr[i + 1]; ++p) b[X.indices[p]] += ai * static_cast<double>(X.data[p]);
    if (groups) {
      const std::int64_t g = groups[i];
      require(g >= 0 && g < n_groups, "groups must lie in 0 .. n_groups-1");
      ++out.counts[static_cast<std::size_t>(g)];
      double* gs = out.group_sums.data() + g * d;
      for (I p = X.indptr[i]; p < X.indptr[i + 1]; ++p) gs[X.indices[p]] += static_cast<double>(X.data[p]);
    }
  }
  std::vector<I> cursor;
  add_row_pairs(X, begin, end, c + begin, out.L.data(), d, cursor);
}

// Checks CSR rows one at a time, right before a kernel that visits only some rows reads them: offsets within
// [0, X.capacity] and ordered, column indices in [0, d), values finite, no column twice (sorted rows need only a
// comparison with the previous index; an unsorted row marks its columns in a d-vector with a per-row stamp, so a
// row visited twice is checked twice). The same conditions as check_csr, for O(row non-zeros) per row.
template <class T, class I>
class CsrRowCheck {
 public:
  explicit CsrRowCheck(const CsrView<T, I>& X) : X_(X) {
    require(X.rows >= 0 && X.cols >= 0 && X.indptr != nullptr, "X must have a non-negative shape and offsets");
  }

  void operator()(std::int64_t i) {
    require(i >= 0 && i < X_.rows, "row indices must index X's rows (0 .. n-1)");
    const I lo = X_.indptr[i], hi = X_.indptr[i + 1];
    require(lo >= 0 && lo <= hi && static_cast<std::ptrdiff_t>(hi) <= X_.capacity,
            "X.indptr must be non-decreasing and within the stored values (X.data / X.indices too short)");
    bool sorted = true;
    for (I p = lo; p < hi; ++p) {
      const I j = X_.indices[p];
      require(j >= 0 && static_cast<std::ptrdiff_t>(j) < X_.cols,
              "X.indices holds a column index outside 0 .. n_features-1");
      require(std::isfinite(static_cast<double>(X_.data[p])),
              "X contains NaN or infinity; remove or impute those values first");
      if (p > lo && j <= X_.indices[p - 1]) sorted = false;
    }
    if (sorted) return;
    if (seen_.empty()) seen_.assign(static_cast<std::size_t>(X_.cols), 0);
    ++stamp_;
    for (I p = lo; p < hi; ++p) {
      std::int64_t& mark = seen_[static_cast<std::size_t>(X_.indices[p])];
      require(mark != stamp_, "X has duplicate entries (a column twice in a row); call X.sum_duplicates() first");
      mark = stamp_;
    }
  }

 private:
  const CsrView<T, I>& X_;
  std::vector<std::int64_t> seen_;
  std::int64_t stamp_ = 0;
};

// Software prefetch of a CSR row that will be read a few rows from now (rows of a batch are scattered over X, so
// reading them is latency-bound without it). Stage 1 asks for row i's two offsets; stage 2, issued when those
// have arrived, asks for the cache lines of its values and column indices (at most kPrefetchLines each: offsets
// are not validated yet, and a prefetch never faults). A no-op on compilers without __builtin_prefetch.
constexpr std::ptrdiff_t kPrefetchLines = 16;

inline void prefetch(const void* p) {
#if defined(__GNUC__) || defined(__clang__)
  __builtin_prefetch(p);
#else
  (void)p;
#endif
}

template <class T, class I>
inline void prefetch_offsets(const CsrView<T, I>& X, std::int64_t i) {
  if (i >= 0 && i < X.rows) prefetch(X.indptr + i);
}

template <class T, class I>
inline void prefetch_row(const CsrView<T, I>& X, std::int64_t i) {
  if (i < 0 || i >= X.rows) return;
  const std::ptrdiff_t lo = std::clamp<std::ptrdiff_t>(X.indptr[i], 0, X.capacity);
  const std::ptrdiff_t hi = std::clamp<std::ptrdiff_t>(X.indptr[i + 1], lo, std::min(X.capacity, lo + kPrefetchLines * 8));
  for (std::ptrdiff_t p = lo; p < hi; p += static_cast<std::ptrdiff_t>(64 / sizeof(T))) prefetch(X.data + p);
  for (std::ptrdiff_t p = lo; p < hi; p += static_cast<std::ptrdiff_t>(64 / sizeof(I))) prefetch(X.indices + p);
  if (hi > lo) {
    prefetch(X.data + hi - 1);
    prefetch(X.indices + hi - 1);
  }
}

// Batch rows between a row's prefetch and its use (stage 2; stage 1 runs twice as far ahead).
constexpr std::int64_t kRowsAhead = 8;

// x·w and ‖x‖² of CSR row i.
template <class T, class I>
inline void csr_dot_and_square(const CsrView<T, I>& X, std::ptrdiff_t i, const double* w, double& dot, double& sq) {
  double s = 0.0, q = 0.0;
  for (I p = X.indptr[i]; p < X.indptr[i + 1]; ++p) {
    const double v = static_cast<double>(X.data[p]);
    s += v * w[X.indices[p]];
    q += v * v;
  }
  dot = s;
  sq = q;
}

// Prefetches the rows visited kRowsAhead (values and indices) and 2·kRowsAhead (offsets) after position pos of
// the visit sequence seq[0 .. end).
template <class T, class I>
inline void prefetch_ahead(const CsrView<T, I>& X, const std::int64_t* seq, std::int64_t pos, std::int64_t end) {
  if (pos + 2 * kRowsAhead < end) prefetch_offsets(X, seq[pos + 2 * kRowsAhead]);
  if (pos + kRowsAhead < end) prefetch_row(X, seq[pos + kRowsAhead]);
}

// Checks batch row i (its index, its CSR row, its group and label) and returns x·w and ‖x‖².
template <class T, class I>
inline void read_row(const CsrView<T, I>& X, CsrRowCheck<T, I>& check_row, std::int64_t i, const std::int64_t* groups,
                     std::ptrdiff_t n_groups, const double* y, const double* w, double& dot, double& sq) {
  require(i >= 0 && i < X.rows, "batch_rows / rows must index X's rows (0 .. n-1)");
  check_row(i);
  require(groups[i] >= 0 && groups[i] < n_groups, "groups must lie in 0 .. len(clip)-1");
  require(std::isfinite(y[i]), "X or y contains NaN or infinity in a batch row");
  csr_dot_and_square(X, static_cast<std::ptrdiff_t>(i), w, dot, sq);
}

template <class T, class I>
void clip_batch(const CsrView<T, I>& X, const double* y, const double* w, double bias, double ww,
                const std::int64_t* rows, std::ptrdiff_t begin, std::ptrdiff_t end, const std::int64_t* groups,
                const double* clip, std::ptrdiff_t n_groups, double threshold, double l2, double* sums,
                double* w_coef, std::int64_t* n_above, std::int64_t* n_below) {
  const std::ptrdiff_t d = X.cols, width = d + 1;
  const bool own_bound = std::isnan(threshold);
  CsrRowCheck<T, I> check_row(X);
  for (std::ptrdiff_t t = begin; t < end; ++t) {
    prefetch_ahead(X, rows, t, end);
    const std::int64_t i = rows[t];
    double xw, xx;
    read_row(X, check_row, i, groups, n_groups, y, w, xw, xx);
    const std::int64_t k = groups[i];
    const double yi = y[i];
    const double r = sigmoid(bias + xw) - yi;
    double sq;
    if (l2 == 0.0) {
      sq = r * r * (xx + 1.0);
    } else {
      // ‖r·x + l2·w‖² = l2²‖w‖² + Σ_{j in row} [(r x_j + l2 w_j)² − (l2 w_j)²], each non-zero term summed directly.
      double acc = 0.0, off = 0.0;
      for (I p = X.indptr[i]; p < X.indptr[i + 1]; ++p) {
        const double wj = w[X.indices[p]];
        const double gj = r * static_cast<double>(X.data[p]) + l2 * wj;
        acc += gj * gj;
        off += wj * wj;
      }
      sq = r * r + acc + l2 * l2 * std::max(0.0, ww - off);
    }
    const double norm = std::sqrt(sq);
    const double bound = clip[k];
    const double scale = norm > bound ? bound / norm : 1.0;
    if (norm > (own_bound ? bound : threshold)) {
      ++n_above[k];
    } else {
      ++n_below[k];
    }
    double* s = sums + k * width;
    const double rs = r * scale;
    for (I p = X.indptr[i]; p < X.indptr[i + 1]; ++p) s[X.indices[p]] += rs * static_cast<double>(X.data[p]);
    s[d] += rs;
    w_coef[k] += l2 * scale;
  }
}

}  // namespace

template <class T, class I>
void check_csr(CsrView<T, I>& X) {
  const std::ptrdiff_t n = X.rows, d = X.cols;
  require(n >= 0 && d >= 0, "X must have a non-negative shape");
  require(X.indptr != nullptr, "X.indptr is missing");
  require(X.indptr[0] == 0, "X.indptr must start at 0");
  for (std::ptrdiff_t i = 0; i < n; ++i) require(X.indptr[i + 1] >= X.indptr[i], "X.indptr must be non-decreasing");
  require(static_cast<std::ptrdiff_t>(X.indptr[n]) <= X.capacity,
          "X.indptr[-1] exceeds the number of stored values (X.data / X.indices too short)");
  bool sorted = true;
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    for (I p = X.indptr[i]; p < X.indptr[i + 1]; ++p) {
      const I j = X.indices[p];
      require(j >= 0 && static_cast<std::ptrdiff_t>(j) < d, "X.indices holds a column index outside 0 .. n_features-1");
      if (p > X.indptr[i] && j <= X.indices[p - 1]) sorted = false;
      require(std::isfinite(static_cast<double>(X.data[p])),
              "X contains NaN or infinity; remove or impute those values first");
    }
  }
  if (!sorted) {  // unsorted rows: no column may appear twice in a row (duplicates must be summed first)
    std::vector<std::ptrdiff_t> seen(static_cast<std::size_t>(d), -1);
    for (std::ptrdiff_t i = 0; i < n; ++i) {
      for (I p = X.indptr[i]; p < X.indptr[i + 1]; ++p) {
        std::ptrdiff_t& mark = seen[static_cast<std::size_t>(X.indices[p])];
        require(mark != i, "X has duplicate entries (a column twice in a row); call X.sum_duplicates() first");
        mark = i;
      }
    }
  }
  X.sorted = sorted;
}

template <class T, class I>
void poly2_coefficients_csr(const CsrView<T, I>& X, const double* a, const double* c, const std::int64_t* groups,
                            std::ptrdiff_t n_groups, double* b, double* Q, double* group_sums,
                            std::int64_t* group_counts, int n_threads) {
  // Complexity 16: argument checks, the per-thread pass and the reduction of the optional group sums, in order.
  const std::ptrdiff_t n = X.rows, d = X.cols;
  require(n == 0 || (a != nullptr && c != nullptr), "poly2_coefficients: a and c are required");
  require(groups == nullptr || n_groups >= 0, "n_groups must be >= 0 when groups is given");
  const double nnz = n > 0 ? static_cast<double>(X.indptr[n]) : 0.0;
  const double pairs = n > 0 ? 0.5 * nnz * (nnz / static_cast<double>(n) + 1.0) : 0.0;
  // Each extra thread also zeroes and reduces a d×d accumulator.
  const double per_thread = kMinPairsPerThread + 2.0 * static_cast<double>(d) * static_cast<double>(d);
  const int threads = static_cast<int>(std::max<std::ptrdiff_t>(
      1, std::min<std::ptrdiff_t>(threads_for(pairs, per_thread, n_threads), n)));

  std::vector<PolyPartial> parts(static_cast<std::size_t>(threads));
  const std::vector<std::ptrdiff_t> bounds = nnz_balanced_bounds(X.indptr, n, threads);
  parallel_for(threads, threads, [&](int k, std::ptrdiff_t, std::ptrdiff_t) {
    poly2_rows(X, bounds[static_cast<std::size_t>(k)], bounds[static_cast<std::size_t>(k) + 1], a, c, groups,
               n_groups, parts[static_cast<std::size_t>(k)]);
  });

  std::fill(b, b + d, 0.0);
  std::fill(Q, Q + d * d, 0.0);
  if (groups) {
    std::fill(group_sums, group_sums + n_groups * d, 0.0);
    std::fill(group_counts, group_counts + n_groups, std::int64_t{0});
  }
  for (const PolyPartial& p : parts) {
    for (std::ptrdiff_t j = 0; j < d; ++j) b[j] += p.b[static_cast<std::size_t>(j)];
    for (std::ptrdiff_t j = 0; j < d; ++j) {
      for (std::ptrdiff_t k = 0; k <= j; ++k) Q[j * d + k] += p.L[static_cast<std::size_t>(j * d + k)];
    }
    if (groups) {
      for (std::ptrdiff_t k = 0; k < n_groups * d; ++k) group_sums[k] += p.group_sums[static_cast<std::size_t>(k)];
      for (std::ptrdiff_t k = 0; k < n_groups; ++k) group_counts[k] += p.counts[static_cast<std::size_t>(k)];
    }
  }
  for (std::ptrdiff_t j = 0; j < d; ++j) {
    for (std::ptrdiff_t k = j + 1; k < d; ++k) Q[j * d + k] = Q[k * d + j];
  }
}

template <class T, class I>
void clip_group_gradients_csr(const CsrView<T, I>& X, const double* y, const double* w, double bias,
                              const std::int64_t* rows, std::ptrdiff_t n_rows, const std::int64_t* groups,
                              const double* clip, std::ptrdiff_t n_groups, double threshold, double l2, double* sums,
                              std::int64_t* n_above, std::int64_t* n_below, int n_threads) {
  const std::ptrdiff_t d = X.cols, width = d + 1;
  require(n_rows >= 0, "clip_group_gradients: negative size");
  require(n_groups >= 1, "clip must hold at least one bound (one per group)");
  require(std::isfinite(bias), "bias must be finite");
  require(l2 >= 0.0 && std::isfinite(l2), "l2 must be a finite number >= 0");
  for (std::ptrdiff_t k = 0; k < n_groups; ++k) require(clip[k] > 0.0, "clip bounds must be > 0 (use inf for no clipping)");
  double ww = 0.0;
  for (std::ptrdiff_t j = 0; j < d; ++j) {
    require(std::isfinite(w[j]), "w contains NaN or infinity");
    ww += w[j] * w[j];
  }
  const auto K = static_cast<std::size_t>(n_groups);
  std::fill(sums, sums + n_groups * width, 0.0);
  std::fill(n_above, n_above + n_groups, std::int64_t{0});
  std::fill(n_below, n_below + n_groups, std::int64_t{0});
  std::vector<double> w_coef(K, 0.0);

  // Batch non-zeros, estimated from the mean row length (exact counting would cost a pass of its own).
  const double mean_row = X.rows > 0 ? static_cast<double>(X.indptr[X.rows]) / static_cast<double>(X.rows) : 0.0;
  const double work = static_cast<double>(n_rows) * (mean_row + 1.0);
  const int threads = threads_for(work, static_cast<double>(kMinNonzerosPerThread + n_groups * width), n_threads);
  if (threads == 1) {
    clip_batch(X, y, w, bias, ww, rows, 0, n_rows, groups, clip, n_groups, threshold, l2, sums, w_coef.data(),
               n_above, n_below);
  } else {
    const auto extra = static_cast<std::size_t>(threads - 1);
    std::vector<std::vector<double>> ps(extra, std::vector<double>(K * static_cast<std::size_t>(width)));
    std::vector<std::vector<double>> pw(extra, std::vector<double>(K));
    std::vector<std::vector<std::int64_t>> pa(extra, std::vector<std::int64_t>(K)), pb(extra, std::vector<std::int64_t>(K));
    parallel_for(n_rows, threads, [&](int ch, std::ptrdiff_t begin, std::ptrdiff_t end) {
      if (ch == 0) {
        clip_batch(X, y, w, bias, ww, rows, begin, end, groups, clip, n_groups, threshold, l2, sums, w_coef.data(),
                   n_above, n_below);
      } else {
        const auto q = static_cast<std::size_t>(ch - 1);
        clip_batch(X, y, w, bias, ww, rows, begin, end, groups, clip, n_groups, threshold, l2, ps[q].data(),
                   pw[q].data(), pa[q].data(), pb[q].data());
      }
    });
    for (std::size_t q = 0; q < extra; ++q) {
      for (std::size_t k = 0; k < K * static_cast<std::size_t>(width); ++k) sums[k] += ps[q][k];
      for (std::size_t k = 0; k < K; ++k) {
        w_coef[k] += pw[q][k];
        n_above[k] += pa[q][k];
        n_below[k] += pb[q][k];
      }
    }
  }
  if (l2 != 0.0) {  // Σ_i l2·scale_i·w per group, added once
    for (std::size_t k = 0; k < K; ++k) {
      double* s = sums + k * static_cast<std::size_t>(width);
      for (std::ptrdiff_t j = 0; j < d; ++j) s[j] += w_coef[k] * w[j];
    }
  }
}

template <class T, class I>
void dpsgd_epochs_csr(const CsrView<T, I>& X, const SgdSteps& steps, const SgdConfig& config, double* params,
                      double* step_bounds) {
  // Longer than 60 lines: one loop over the steps whose stages (residuals, bounds, clipped sum, noisy update) share
  // the step's locals; the layout-independent stages are in sgd_step.hpp, shared with the dense loop.
  const double *y = steps.y, *clip = steps.clip, *group_weights = steps.group_weights;
  const double *learning_rates = steps.learning_rates, *grad_noise = steps.grad_noise, *count_noise = steps.count_noise;
  const std::int64_t *groups = steps.groups, *batch_rows = steps.batch_rows, *batch_offsets = steps.batch_offsets;
  const std::ptrdiff_t n_groups = steps.n_groups, n_steps = steps.n_steps;
  const std::ptrdiff_t d = X.cols;
  sgd_step::check_inputs(config, n_groups, clip, group_weights, count_noise != nullptr, d, params, batch_offsets,
                         n_steps, learning_rates);
  const double sigma = config.noise_multiplier;
  const double b = config.expected_batch_size;

  const auto K = static_cast<std::size_t>(n_groups);
  const std::ptrdiff_t width = d + 1;
  const bool clip_weights = std::isfinite(config.weight_bound) && config.weight_bound > 0.0;
  std::vector<double> total(static_cast<std::size_t>(width), 0.0), bounds(K), weights(K, 1.0), above(K), below(K);
  std::vector<double> resid, norm;
  double* w = params;
  CsrRowCheck<T, I> check_row(X);
  const std::int64_t n_visits = n_steps > 0 ? batch_offsets[n_steps] : 0;

  for (std::ptrdiff_t t = 0; t < n_steps; ++t) {
    const std::int64_t* rows = batch_rows + batch_offsets[t];
    const std::ptrdiff_t m = static_cast<std::ptrdiff_t>(batch_offsets[t + 1] - batch_offsets[t]);

    if (clip_weights) sgd_step::clip_weights(w, d, config.weight_bound);
    // Residual r_i = σ(z_i) − y_i and unclipped norm |r_i|·sqrt(1 + ‖x_i‖²) of every batch row.
    resid.resize(static_cast<std::size_t>(m));
    norm.resize(static_cast<std::size_t>(m));
    for (std::ptrdiff_t r = 0; r < m; ++r) {
      // Prefetch across step boundaries: the rows of later batches are known, only w changes.
      prefetch_ahead(X, batch_rows, batch_offsets[t] + r, n_visits);
      const std::int64_t i = rows[r];
      double z, xx;
      read_row(X, check_row, i, groups, n_groups, y, w, z, xx);
      const double res = sigmoid(z + params[d]) - y[i];
      resid[static_cast<std::size_t>(r)] = res;
      norm[static_cast<std::size_t>(r)] = std::abs(res) * std::sqrt(1.0 + xx);
    }

    if (config.rule != ClipRule::fixed) sgd_step::count_rows(config, rows, m, groups, clip, norm, above, below);
    const double* u = count_noise != nullptr ? count_noise + t * (config.rule == ClipRule::dpsgdf ? 2 : 1) * n_groups : nullptr;
    sgd_step::rule_bounds(config, clip, group_weights, n_groups, above, below,
                          [&](std::ptrdiff_t j, std::ptrdiff_t) { return config.count_noise_multiplier * u[j]; },
                          bounds, weights);

    // total = Σ_i a_k(i)·g_i·min(1, C_k(i)/‖g_i‖): a dense vector written only at the batch's non-zeros (it is
    // zeroed again below, while the update reads it, so no separate O(d) clear).
    double total_bias = 0.0;
    for (std::ptrdiff_t r = 0; r < m; ++r) {
      const std::int64_t i = rows[r];
      const double coef = sgd_step::clipped_coef(static_cast<std::size_t>(groups[i]), static_cast<std::size_t>(r),
                                                 weights, bounds, resid, norm);
      if (coef == 0.0) continue;
      for (I p = X.indptr[i]; p < X.indptr[i + 1]; ++p) total[static_cast<std::size_t>(X.indices[p])] += coef * static_cast<double>(X.data[p]);
      total_bias += coef;
    }
    total[static_cast<std::size_t>(d)] = total_bias;

    const double s_step = sgd_step::step_sensitivity(config, bounds, weights, step_bounds + static_cast<std::size_t>(t) * K);
    const double std_dev = sigma > 0.0 ? sigma * s_step : 0.0;

    const double lr = learning_rates[t];
    const double* z = grad_noise + t * width;
    for (std::ptrdiff_t j = 0; j < width; ++j) {
      double g = (total[static_cast<std::size_t>(j)] + std_dev * z[j]) / b;
      if (j < d) g += config.l2 * w[j];
      params[j] -= lr * g;
      total[static_cast<std::size_t>(j)] = 0.0;
    }
  }
}

#define DPFAIR_SPARSE_INSTANTIATE(T, I)                                                                             \
  template void check_csr<T, I>(CsrView<T, I>&);                                                                    \
  template void poly2_coefficients_csr<T, I>(const CsrView<T, I>&, const double*, const double*,                    \
                                             const std::int64_t*, std::ptrdiff_t, double*, double*, double*,        \
                                             std::int64_t*, int);                                                   \
  template void clip_group_gradients_csr<T, I>(const CsrView<T, I>&, const double*, const double*, double,          \
                                               const std::int64_t*, std::ptrdiff_t, const std::int64_t*,            \
                                               const double*, std::ptrdiff_t, double, double, double*,              \
                                               std::int64_t*, std::int64_t*, int);                                  \
  template void dpsgd_epochs_csr<T, I>(const CsrView<T, I>&, const SgdSteps&, const SgdConfig&, double*, double*);
DPFAIR_SPARSE_INSTANTIATE(float, std::int32_t)
DPFAIR_SPARSE_INSTANTIATE(float, std::int64_t)
DPFAIR_SPARSE_INSTANTIATE(double, std::int32_t)
DPFAIR_SPARSE_INSTANTIATE(double, std::int64_t)
#undef DPFAIR_SPARSE_INSTANTIATE

}  // namespace dpfair
