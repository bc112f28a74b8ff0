// poly2_coefficients: b = Σ a_i x_i, Q = Σ c_i x_i x_iᵀ and per-group sums/counts in one pass over X.
//
// Rows are processed in blocks. Each row is read once (in place for C-contiguous float64; converted into a row
// buffer for float32/strided rows; F-like layouts gather the block down columns first), added into b and its
// group sum, scaled by sqrt|c_i| and copied into a contiguous block buffer; then Q's lower triangle gets two
// symmetric rank-m updates (Eigen's syrk kernel): + for c_i > 0, − for c_i < 0.
#include "dpfair/poly2.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <Eigen/Core>

#include "dpfair/parallel.hpp"
#include "dpfair/sparse_pairs.hpp"

namespace dpfair {
namespace {

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Elements of X below which a single thread is used (thread start-up costs more than it saves).
constexpr std::ptrdiff_t kMinElementsPerThread = 50000;

// Rows per block: about 128K doubles (1 MiB) per buffer, between 64 and 1024 rows.
std::ptrdiff_t block_rows(std::ptrdiff_t d) {
  return std::clamp<std::ptrdiff_t>(131072 / std::max<std::ptrdiff_t>(d, 1), 64, 1024);
}

// One thread's partial sums plus its block buffers.
struct Partial {
  bool used = false;                 // parallel_for runs fewer chunks than threads when n < threads
  Eigen::MatrixXd Q;                 // lower triangle of Σ c_i x_i x_iᵀ
  std::vector<double> b;             // Σ a_i x_i
  std::vector<double> group_sums;    // n_groups × d
  std::vector<std::int64_t> counts;  // n_groups
};

template <class T>
void accumulate_rows(const T* X, std::ptrdiff_t begin, std::ptrdiff_t end, std::ptrdiff_t d,
                     std::ptrdiff_t rs, std::ptrdiff_t cs, const double* a, const double* c,
                     const std::int64_t* groups, std::ptrdiff_t n_groups, Partial& out) {
  // Longer than 60 lines (complexity 32): one blocked pass whose stages per block (gather for F-like layouts;
  // per row b, the NaN probe, group sums and the split into c > 0 / c < 0 rows; two rank updates) share the block
  // buffers and the layout branches; split, each piece would take most of those buffers as arguments.
  const std::ptrdiff_t block = std::min(block_rows(d), end - begin);
  out.used = true;
  out.Q.setZero(d, d);
  out.b.assign(static_cast<std::size_t>(d), 0.0);
  if (groups) {
    out.group_sums.assign(static_cast<std::size_t>(n_groups * d), 0.0);
    out.counts.assign(static_cast<std::size_t>(n_groups), 0);
  }
  if (begin >= end || d == 0) {
    if (groups) {
      for (std::ptrdiff_t i = begin; i < end; ++i) {
        const std::int64_t g = groups[i];
        if (g < 0 || g >= n_groups) throw std::invalid_argument("groups must lie in 0 .. n_groups-1");
        ++out.counts[static_cast<std::size_t>(g)];
      }
    }
    return;
  }
  RowMatrix Pos(block, d);   // rows with c_i > 0, scaled by sqrt(c_i)
  RowMatrix Neg;             // rows with c_i < 0, scaled by sqrt(-c_i); allocated on first use
  RowMatrix Gathered;        // F-like layouts: the block read down columns; allocated on first use
  std::vector<double> row(static_cast<std::size_t>(d));         // one converted/strided row
  std::vector<double> probe(static_cast<std::size_t>(d), 0.0);  // x*0 summed: NaN iff X had NaN/inf
  double* bsum = out.b.data();
  double* probe_p = probe.data();
  const bool column_outer = std::abs(rs) < std::abs(cs);  // F-like layout: read down columns
  constexpr bool kIsDouble = std::is_same<T, double>::value;

  for (std::ptrdiff_t i0 = begin; i0 < end; i0 += block) {
    const std::ptrdiff_t m = std::min(block, end - i0);
    if (column_outer) {
      if (Gathered.rows() == 0) Gathered.resize(block, d);
      double* G = Gathered.data();
      for (std::ptrdiff_t j = 0; j < d; ++j) {
        const T* src = X + i0 * rs + j * cs;
        for (std::ptrdiff_t r = 0; r < m; ++r) G[r * d + j] = static_cast<double>(src[r * rs]);
      }
    }
    std::ptrdiff_t n_pos = 0, n_neg = 0;
    for (std::ptrdiff_t r = 0; r < m; ++r) {
      const std::ptrdiff_t i = i0 + r;
      const double* x;
      if (column_outer) {
        x = Gathered.data() + r * d;
      } else if (kIsDouble && cs == 1) {
        x = reinterpret_cast<const double*>(X + i * rs);  // used in place: no copy of X
      } else {
        const T* src = X + i * rs;
        for (std::ptrdiff_t j = 0; j < d; ++j) row[static_cast<std::size_t>(j)] = static_cast<double>(src[j * cs]);
        x = row.data();
      }
      const double ai = a[i];
      for (std::ptrdiff_t j = 0; j < d; ++j) {
        bsum[j] += ai * x[j];
        probe_p[j] += x[j] * 0.0;
      }
      if (groups) {
        const std::int64_t g = groups[i];
        if (g < 0 || g >= n_groups) throw std::invalid_argument("groups must lie in 0 .. n_groups-1");
        ++out.counts[static_cast<std::size_t>(g)];
        double* gs = out.group_sums.data() + g * d;
        for (std::ptrdiff_t j = 0; j < d; ++j) gs[j] += x[j];
      }
      const double ci = c[i];
      if (ci > 0.0) {
        const double s = std::sqrt(ci);
        double* dst = Pos.data() + n_pos * d;
        for (std::ptrdiff_t j = 0; j < d; ++j) dst[j] = s * x[j];
        ++n_pos;
      } else if (ci < 0.0) {
        if (Neg.rows() == 0) Neg.resize(block, d);
        const double s = std::sqrt(-ci);
        double* dst = Neg.data() + n_neg * d;
        for (std::ptrdiff_t j = 0; j < d; ++j) dst[j] = s * x[j];
        ++n_neg;
      }
    }
    double flag = 0.0;
    for (std::ptrdiff_t j = 0; j < d; ++j) flag += probe_p[j];
    if (!(flag == 0.0)) {
      throw std::invalid_argument("X contains NaN or infinity; remove or impute those values first");
    }
    if (n_pos > 0) out.Q.selfadjointView<Eigen::Lower>().rankUpdate(Pos.topRows(n_pos).transpose(), 1.0);
    if (n_neg > 0) out.Q.selfadjointView<Eigen::Lower>().rankUpdate(Neg.topRows(n_neg).transpose(), -1.0);
  }
}

// Dense X whose entries are mostly zero (one-hot encodings): below this fraction of non-zeros in a sample of rows
// (and from kSparseMinCols columns), each thread copies its rows' non-zeros once (CSR) and accumulates Q from each
// row's non-zero pairs, Σ nnz_i²/2 multiply-adds instead of the syrk's d²/2 per row. At 10% non-zeros the pairs cost
// ~1/100 of the syrk's multiply-adds but run at a few cycles each instead of 16 per cycle: still ~5x faster.
constexpr double kSparseFraction = 0.1;
constexpr std::ptrdiff_t kSparseMinCols = 64;
constexpr std::ptrdiff_t kSampleRows = 256;

template <class T>
bool mostly_zero(const T* X, std::ptrdiff_t n, std::ptrdiff_t d, std::ptrdiff_t rs, std::ptrdiff_t cs) {
  if (d < kSparseMinCols || n < 4 * kSampleRows) return false;
  std::ptrdiff_t nonzero = 0;
  for (std::ptrdiff_t r = 0; r < kSampleRows; ++r) {
    const T* src = X + (r * n / kSampleRows) * rs;
    for (std::ptrdiff_t j = 0; j < d; ++j) nonzero += (src[j * cs] != T(0));
  }
  return static_cast<double>(nonzero) < kSparseFraction * static_cast<double>(kSampleRows * d);
}

// accumulate_rows for mostly-zero X: rows [begin, end) copied as CSR (NaN/inf rejected), then b, group sums and the
// lower triangle of Q from the non-zeros (add_row_pairs, cache-blocked).
template <class T>
void accumulate_rows_sparse(const T* X, std::ptrdiff_t begin, std::ptrdiff_t end, std::ptrdiff_t d, std::ptrdiff_t rs,
                            std::ptrdiff_t cs, const double* a, const double* c, const std::int64_t* groups,
                            std::ptrdiff_t n_groups, Partial& out) {
  out.used = true;
  out.b.assign(static_cast<std::size_t>(d), 0.0);
  if (groups) {
    out.group_sums.assign(static_cast<std::size_t>(n_groups * d), 0.0);
    out.counts.assign(static_cast<std::size_t>(n_groups), 0);
  }
  std::vector<double> values;
  std::vector<std::int64_t> indices, indptr{0};
  indptr.reserve(static_cast<std::size_t>(end - begin) + 1);
  for (std::ptrdiff_t i = begin; i < end; ++i) {
    const T* src = X + i * rs;
    for (std::ptrdiff_t j = 0; j < d; ++j) {
      const T v = src[j * cs];
      if (v != T(0)) {
        if (!std::isfinite(static_cast<double>(v)))
          throw std::invalid_argument("X contains NaN or infinity; remove or impute those values first");
        values.push_back(static_cast<double>(v));
        indices.push_back(j);
      }
    }
    indptr.push_back(static_cast<std::int64_t>(values.size()));
  }
  CsrView<double, std::int64_t> rows;
  rows.data = values.data();
  rows.indices = indices.data();
  rows.indptr = indptr.data();
  rows.rows = end - begin;
  rows.cols = d;
  rows.sorted = true;
  double* bsum = out.b.data();
  for (std::ptrdiff_t r = 0; r < rows.rows; ++r) {
    const std::ptrdiff_t i = begin + r;
    const double ai = a[i];
    for (std::int64_t p = indptr[r]; p < indptr[r + 1]; ++p) bsum[indices[p]] += ai * values[p];
    if (groups) {
      const std::int64_t g = groups[i];
      if (g < 0 || g >= n_groups) throw std::invalid_argument("groups must lie in 0 .. n_groups-1");
      ++out.counts[static_cast<std::size_t>(g)];
      double* gs = out.group_sums.data() + g * d;
      for (std::int64_t p = indptr[r]; p < indptr[r + 1]; ++p) gs[indices[p]] += values[p];
    }
  }
  std::vector<double> L(static_cast<std::size_t>(d * d), 0.0);
  std::vector<std::int64_t> cursor;
  add_row_pairs(rows, 0, rows.rows, c + begin, L.data(), d, cursor);
  out.Q.resize(d, d);
  for (std::ptrdiff_t j = 0; j < d; ++j) {
    for (std::ptrdiff_t k = 0; k < d; ++k) out.Q(j, k) = k <= j ? L[static_cast<std::size_t>(j * d + k)] : 0.0;
  }
}

}  // namespace

namespace {

// The argument checks of poly2_coefficients (has_X: X is not null).
void check_arguments(bool has_X, std::ptrdiff_t n, std::ptrdiff_t d, const double* a, const double* c,
                     const std::int64_t* groups, std::ptrdiff_t n_groups, const double* group_sums,
                     const std::int64_t* group_counts) {
  // Complexity 16: a flat list of independent checks, one message each.
  if (n < 0 || d < 0) throw std::invalid_argument("poly2_coefficients: X must have non-negative shape");
  if (n > 0 && d > 0 && !has_X) throw std::invalid_argument("poly2_coefficients: X is null");
  if (n > 0 && (a == nullptr || c == nullptr)) throw std::invalid_argument("poly2_coefficients: a and c are required");
  if (groups == nullptr) return;
  if (n_groups < 0) throw std::invalid_argument("n_groups must be >= 0 when groups is given");
  if (n_groups > 0 && d > 0 && group_sums == nullptr)
    throw std::invalid_argument("group_sums output is required with groups");
  if (n_groups > 0 && group_counts == nullptr) throw std::invalid_argument("group_counts output is required with groups");
}

// Sums the threads' partials into b, the full symmetric Q and the group sums/counts (with_groups).
void reduce_parts(const std::vector<Partial>& parts, std::ptrdiff_t d, bool with_groups, std::ptrdiff_t n_groups,
                  double* b, double* Q, double* group_sums, std::int64_t* group_counts) {
  std::fill(b, b + d, 0.0);
  Eigen::Map<Eigen::MatrixXd> Qout(Q, d, d);
  Qout.setZero();
  if (with_groups) {
    std::fill(group_sums, group_sums + n_groups * d, 0.0);
    std::fill(group_counts, group_counts + n_groups, std::int64_t{0});
  }
  for (const Partial& p : parts) {
    if (!p.used) continue;
    for (std::ptrdiff_t j = 0; j < d; ++j) b[j] += p.b[static_cast<std::size_t>(j)];
    Qout.triangularView<Eigen::Lower>() += p.Q;
    if (!with_groups) continue;
    for (std::ptrdiff_t k = 0; k < n_groups * d; ++k) group_sums[k] += p.group_sums[static_cast<std::size_t>(k)];
    for (std::ptrdiff_t k = 0; k < n_groups; ++k) group_counts[k] += p.counts[static_cast<std::size_t>(k)];
  }
  for (std::ptrdiff_t j = 0; j < d; ++j) {
    for (std::ptrdiff_t k = j + 1; k < d; ++k) Qout(j, k) = Qout(k, j);
  }
}

}  // namespace

template <class T>
void poly2_coefficients(const T* X, std::ptrdiff_t n, std::ptrdiff_t d, std::ptrdiff_t row_stride,
                        std::ptrdiff_t col_stride, const double* a, const double* c, const std::int64_t* groups,
                        std::ptrdiff_t n_groups, double* b, double* Q, double* group_sums,
                        std::int64_t* group_counts, int n_threads) {
  check_arguments(X != nullptr, n, d, a, c, groups, n_groups, group_sums, group_counts);

  const int threads = threads_for(static_cast<double>(n) * static_cast<double>(std::max<std::ptrdiff_t>(d, 1)),
                                  kMinElementsPerThread, n_threads);

  std::vector<Partial> parts(static_cast<std::size_t>(threads));
  const bool sparse_rows = mostly_zero(X, n, d, row_stride, col_stride);
  parallel_for(n, threads, [&](int k, std::ptrdiff_t begin, std::ptrdiff_t end) {
    if (sparse_rows) {
      accumulate_rows_sparse(X, begin, end, d, row_stride, col_stride, a, c, groups, n_groups,
                             parts[static_cast<std::size_t>(k)]);
      return;
    }
    accumulate_rows(X, begin, end, d, row_stride, col_stride, a, c, groups, n_groups,
                    parts[static_cast<std::size_t>(k)]);
  });

  reduce_parts(parts, d, groups != nullptr, n_groups, b, Q, group_sums, group_counts);
}

template void poly2_coefficients<float>(const float*, std::ptrdiff_t, std::ptrdiff_t, std::ptrdiff_t,
                                        std::ptrdiff_t, const double*, const double*, const std::int64_t*,
                                        std::ptrdiff_t, double*, double*, double*, std::int64_t*, int);
template void poly2_coefficients<double>(const double*, std::ptrdiff_t, std::ptrdiff_t, std::ptrdiff_t,
                                         std::ptrdiff_t, const double*, const double*, const std::int64_t*,
                                         std::ptrdiff_t, double*, double*, double*, std::int64_t*, int);

}  // namespace dpfair
