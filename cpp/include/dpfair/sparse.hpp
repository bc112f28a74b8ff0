// Kernels on CSR (compressed sparse row) matrices: work proportional to the non-zeros, not to n·d.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "dpfair/logistic.hpp"
#include "dpfair/sgd.hpp"

namespace dpfair {

// A CSR matrix (n, d): row i holds data[p], column indices[p] for p in [indptr[i], indptr[i+1]).
// T: float or double; I: std::int32_t or std::int64_t (scipy.sparse's index types). Not owned.
template <class T, class I>
struct CsrView {
  const T* data = nullptr;
  const I* indices = nullptr;
  const I* indptr = nullptr;  // n + 1 entries
  std::ptrdiff_t rows = 0, cols = 0;
  std::ptrdiff_t capacity = 0;  // stored values available in data and indices (offsets must stay <= capacity)
  bool sorted = false;  // column indices strictly increasing within every row (set by check_csr)
};

// Checks what memory safety and the kernels need, in one pass over the non-zeros: indptr[0] = 0, indptr
// non-decreasing with indptr[n] <= X.capacity, every index in [0, d), every value finite, and no column twice in
// a row (with unsorted rows: a marker per column, O(d) extra). Sets X.sorted. Throws std::invalid_argument.
// The kernels that visit only some rows (clip_group_gradients_csr, dpsgd_epochs_csr) need no such pass: they
// check each row they read, just before reading it (same conditions), so a call costs O(visited non-zeros).
template <class T, class I>
void check_csr(CsrView<T, I>& X);

// b = Σ_i a_i x_i, Q = Σ_i c_i x_i x_iᵀ (full symmetric d×d, row-major), per-group sums/counts, as
// poly2_coefficients (poly2.hpp), with the work of Q Σ_i nnz_i(nnz_i + 1)/2 multiply-adds into its lower triangle
// (each row's non-zero pairs). Threads split the rows into chunks of about equal non-zeros (per-thread d×d
// accumulators). X must have passed check_csr.
// one_hot_of (optional, d entries: column → one-hot group 0 .. n_one_hot−1, or −1) names column groups in which
// most rows hold exactly one value 1.0; the pass then leaves each such group's most frequent column out of the
// pairs and recovers its sums from the others (one_hot_pairs.hpp): the same Q up to rounding, about half the work
// on one-hot encoded rows, when every row has the same weight c. Rows that do not conform are summed as they are;
// nullptr, or per-row weights: the plain pass.
template <class T, class I>
void poly2_coefficients_csr(const CsrView<T, I>& X, const double* a, const double* c, const std::int64_t* groups,
                            std::ptrdiff_t n_groups, double* b, double* Q, double* group_sums,
                            std::int64_t* group_counts, int n_threads, const std::int64_t* one_hot_of = nullptr,
                            std::ptrdiff_t n_one_hot = 0);

// clip_group_gradients (clipgrad.hpp) on CSR rows: per batch row O(nnz_i) (the l2·w part of each gradient is
// summed per group as a scalar and added once, O(n_groups·d) per call).
template <class T, class I>
void clip_group_gradients_csr(const CsrView<T, I>& X, const double* y, const double* w, double bias,
                              const std::int64_t* rows, std::ptrdiff_t n_rows, const std::int64_t* groups,
                              const double* clip, std::ptrdiff_t n_groups, double threshold, double l2, double* sums,
                              std::int64_t* n_above, std::int64_t* n_below, int n_threads);

// dpsgd_epochs (sgd.hpp) on CSR rows: per step O(batch non-zeros + d + K) — the clipped gradients are summed into
// a dense (d + 1)-vector touched only at the batch's non-zeros, and the dense noise is added once.
template <class T, class I>
void dpsgd_epochs_csr(const CsrView<T, I>& X, const SgdSteps& steps, const SgdConfig& config, double* params,
                      double* step_bounds);

struct ConstrainedSgdConfig;  // constrained_sgd.hpp

// X's rows with their labels and groups packed once (csr_rows::PackedRows in packed_rows.hpp: each row one
// cache-aligned record, at a fixed stride when every row fits 128 bytes) for DP-SGD loops that run in several
// calls, e.g. one per epoch: dpsgd_epochs_csr packs X on every call, this object once. Each row's fault is
// recorded while packing and thrown only when a call visits the row, as dpsgd_epochs_csr does. y and groups
// (either may be nullptr) are copied into the records; later calls must pass the same y and groups in their
// SgdSteps (count_rows reads steps.groups) and n_groups (checked).
class PackedCsr {
 public:
  template <class T, class I>
  PackedCsr(const CsrView<T, I>& X, const double* y, const std::int64_t* groups, std::ptrdiff_t n_groups);
  PackedCsr(PackedCsr&&) noexcept;
  ~PackedCsr();

  std::ptrdiff_t rows() const { return rows_; }
  std::ptrdiff_t cols() const { return cols_; }
  std::ptrdiff_t n_groups() const { return n_groups_; }

  // dpsgd_epochs_csr's steps on the packed rows (same checks, same results).
  void dpsgd_epochs(const SgdSteps& steps, const SgdConfig& config, double* params, double* step_bounds) const;

  // constrained_sgd_epochs_csr's steps (constrained_sgd.hpp) on the packed rows: same results, without packing X
  // on each call; y and groups must be the ones packed, n_groups the same (checked). Defined in constrained_sgd.cpp.
  void constrained_sgd_epochs(const double* y, const std::int64_t* groups, const std::int64_t* events,
                              std::ptrdiff_t n_groups, std::ptrdiff_t n_events, const std::int64_t* active,
                              const std::int64_t* batch_rows, const std::int64_t* batch_offsets,
                              std::ptrdiff_t n_steps, const double* learning_rates, const double* grad_noise,
                              const double* hist_noise, const ConstrainedSgdConfig& config, std::int64_t avg_start,
                              double* params, double* lambdas, double* hist, double* avg, std::int64_t* avg_count,
                              std::int64_t* step_index) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::ptrdiff_t rows_ = 0, cols_ = 0, n_groups_ = 0;
};

// logistic_newton (logistic.hpp) on CSR rows: scores by sparse dot products, gradient and Hessian by each row's
// non-zero pairs (Σ_i nnz_i(nnz_i + 1)/2 multiply-adds per Hessian pass). Same algorithm and iterates, except that
// with 24 or more non-zeros per row on average and no constraint the steps are inexact: preconditioned conjugate
// gradients on Hessian-vector products (2·nnz multiply-adds each), with a Hessian pass only at w = 0 and when a
// solve has cost more products than a Hessian pass (see cpp/src/logistic.cpp before run_newton).
template <class T, class I>
LogisticNewtonResult logistic_newton_csr(const CsrView<T, I>& X, const double* y, const LogisticNewtonOptions& options);

// Whether every row of X, its implicit zeros included, lies in a declared feature domain (FeatureDomain's
// contains_all on CSR, in one pass over the stored values): lower[j] <= x_ij <= upper[j] for every stored value,
// and lower[j] <= 0 <= upper[j] for a column with fewer than n stored values (some row holds an implicit zero);
// a column of a one-hot group (group_of[j] = its group in 0 .. n_groups-1; -1: none) stores only 0 or 1, with at
// most one non-zero per group and row; sum_j |x_ij| <= l1_cap and sqrt(sum_j x_ij^2) <= l2_cap (+inf: no cap),
// the sums taken in the row's stored order. NaN fails every test. Throws std::invalid_argument on a malformed X
// (offsets or column indices out of range) only; stops soon after the first row outside the domain. Rows are split
// into chunks on up to n_threads threads (0: the hardware's), at least 2^19 stored values plus rows each.
template <class T, class I>
bool csr_in_domain(const CsrView<T, I>& X, const double* lower, const double* upper, const std::int64_t* group_of,
                   std::ptrdiff_t n_groups, double l1_cap, double l2_cap, int n_threads);

#define DPFAIR_SPARSE_EXTERN(T, I)                                                                                   \
  extern template void check_csr<T, I>(CsrView<T, I>&);                                                              \
  extern template void poly2_coefficients_csr<T, I>(const CsrView<T, I>&, const double*, const double*,              \
                                                    const std::int64_t*, std::ptrdiff_t, double*, double*, double*, \
                                                    std::int64_t*, int, const std::int64_t*, std::ptrdiff_t);       \
  extern template void clip_group_gradients_csr<T, I>(const CsrView<T, I>&, const double*, const double*, double,    \
                                                      const std::int64_t*, std::ptrdiff_t, const std::int64_t*,      \
                                                      const double*, std::ptrdiff_t, double, double, double*,        \
                                                      std::int64_t*, std::int64_t*, int);                            \
  extern template void dpsgd_epochs_csr<T, I>(const CsrView<T, I>&, const SgdSteps&, const SgdConfig&, double*,    \
                                              double*);                                                              \
  extern template LogisticNewtonResult logistic_newton_csr<T, I>(const CsrView<T, I>&, const double*,                \
                                                                 const LogisticNewtonOptions&);          \
  extern template bool csr_in_domain<T, I>(const CsrView<T, I>&, const double*, const double*, const std::int64_t*, \
                                           std::ptrdiff_t, double, double, int);
DPFAIR_SPARSE_EXTERN(float, std::int32_t)
DPFAIR_SPARSE_EXTERN(float, std::int64_t)
DPFAIR_SPARSE_EXTERN(double, std::int32_t)
DPFAIR_SPARSE_EXTERN(double, std::int64_t)
#undef DPFAIR_SPARSE_EXTERN

}  // namespace dpfair
