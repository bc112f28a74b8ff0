// Σ_i c_i x_i x_iᵀ of CSR rows whose columns hold one-hot groups, with each group's most frequent column left out
// of the pair pass (used by poly2_coefficients_csr).
//
// If row i holds exactly one stored value in group g and that value is 1.0, its reference column r(g) satisfies
// x_{i,r(g)} = 1 − Σ_{k ∈ g, k ≠ r(g)} x_ik. Write x̃_i for x_i without the reference columns and with a constant
// 1 appended (column d); then x_i = C x̃_i for one fixed (d+1) → d map C (column k ≠ r(g) of C is e_k; column r(g)
// is e_d − Σ_{k ∈ g, k ≠ r(g)} e_k), so Σ_i c_i x_i x_iᵀ = Cᵀ (Σ_i c_i x̃_i x̃_iᵀ) C exactly, in exact arithmetic.
// The pair pass then costs (m − h + 1)(m − h + 2)/2 updates for a row of m values of which h are reference hits,
// instead of m(m + 1)/2: on the census-style rows (34 values, references hit 11 times on average) 301 instead of
// 595. Rows that do not conform (a group empty, twice set, or holding a value other than 1.0) are summed as they
// are, in a separate accumulator. Which columns are references only changes rounding, never the sums. A recovered
// entry is a difference of sums over all conforming rows, so its rounding is relative to Σ_i |c_i|: the caller
// uses the basis only when every c_i is the same (then a reference's entries, the most frequent column's, are at
// least a 1/|g| share of those sums).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "dpfair/sparse.hpp"
#include "dpfair/sparse_pairs.hpp"

namespace dpfair {
namespace one_hot {

struct Basis {
  std::ptrdiff_t cols = 0;
  std::vector<std::int64_t> group_of;                // column → eliminated group (0 .. m−1), or −1
  std::vector<std::uint8_t> is_reference;            // column → 1 for its group's reference column
  std::vector<std::vector<std::ptrdiff_t>> members;  // eliminated group → its columns (reference included)
  std::vector<std::ptrdiff_t> reference;             // eliminated group → its reference column
  bool empty() const { return reference.empty(); }
};

// Rows sampled to choose the basis (16 evenly spaced runs of contiguous rows: deterministic, and cheap to read),
// the share of sampled rows that must conform in a group for it to be eliminated, and the pair work (sampled,
// relative to the plain pass) above which the basis is not used.
constexpr std::ptrdiff_t kSampleRows = 4096;
constexpr double kMinConforming = 0.99;
constexpr double kMaxWorkRatio = 0.85;

// True when row i holds, for every group of `basis`, exactly one stored value and that value is 1.0.
// stamp: one entry per eliminated group, the last row that set it (start at −1; rows visited in increasing order).
template <class T, class I>
inline bool conforms(const CsrView<T, I>& X, std::ptrdiff_t i, const Basis& basis, std::vector<std::ptrdiff_t>& stamp) {
  std::size_t hits = 0;
  bool ok = true;
  for (I p = X.indptr[i]; p < X.indptr[i + 1]; ++p) {
    const std::int64_t g = basis.group_of[static_cast<std::size_t>(X.indices[p])];
    if (g < 0) continue;
    std::ptrdiff_t& last = stamp[static_cast<std::size_t>(g)];
    ok &= (static_cast<double>(X.data[p]) == 1.0) & (last != i);
    last = i;
    ++hits;
  }
  return ok && hits == basis.reference.size();
}

// The groups of `one_hot_of` (column → declared group, or −1) in which at least kMinConforming of the sampled rows
// hold exactly one value 1.0, each with its most frequent column in the sample as reference; empty when X is not
// sorted, the groups would save less than 1 − kMaxWorkRatio of the pair work, or column d does not fit in I.
template <class T, class I>
Basis choose_basis(const CsrView<T, I>& X, const std::int64_t* one_hot_of, std::ptrdiff_t n_one_hot) {
  const std::ptrdiff_t n = X.rows, d = X.cols;
  Basis none;
  if (one_hot_of == nullptr || n_one_hot <= 0 || n == 0 || !X.sorted ||
      static_cast<double>(d) >= static_cast<double>(std::numeric_limits<I>::max()))
    return none;
  const std::ptrdiff_t S = std::min(n, kSampleRows), per_run = S == n ? n : kSampleRows / 16;
  const auto sampled = [&](std::ptrdiff_t s) { return (s / per_run) * (n / 16) + s % per_run; };
  const auto K = static_cast<std::size_t>(n_one_hot);
  std::vector<std::ptrdiff_t> column_count(static_cast<std::size_t>(d), 0), good(K, 0), seen(K, -1), count(K, 0);
  std::vector<std::uint8_t> bad(K, 0);
  std::vector<std::size_t> touched;
  for (std::ptrdiff_t s = 0; s < S; ++s) {
    const std::ptrdiff_t i = sampled(s);
    touched.clear();
    for (I p = X.indptr[i]; p < X.indptr[i + 1]; ++p) {
      const std::int64_t g = one_hot_of[X.indices[p]];
      if (g < 0) continue;
      const auto k = static_cast<std::size_t>(g);
      if (seen[k] != i) {
        seen[k] = i;
        count[k] = 0;
        bad[k] = 0;
        touched.push_back(k);
      }
      ++count[k];
      if (static_cast<double>(X.data[p]) == 1.0) {
        ++column_count[static_cast<std::size_t>(X.indices[p])];
      } else {
        bad[k] = 1;
      }
    }
    for (std::size_t k : touched) good[k] += (count[k] == 1 && !bad[k]);
  }
  Basis basis;
  basis.cols = d;
  basis.group_of.assign(static_cast<std::size_t>(d), -1);
  basis.is_reference.assign(static_cast<std::size_t>(d), 0);
  std::vector<std::vector<std::ptrdiff_t>> columns(K);
  for (std::ptrdiff_t j = 0; j < d; ++j) {
    if (one_hot_of[j] >= 0) columns[static_cast<std::size_t>(one_hot_of[j])].push_back(j);
  }
  for (std::size_t k = 0; k < K; ++k) {
    if (columns[k].size() < 2 || static_cast<double>(good[k]) < kMinConforming * static_cast<double>(S)) continue;
    const std::ptrdiff_t ref = *std::max_element(columns[k].begin(), columns[k].end(), [&](auto u, auto v) {
      return column_count[static_cast<std::size_t>(u)] < column_count[static_cast<std::size_t>(v)];
    });
    const auto index = static_cast<std::int64_t>(basis.reference.size());
    for (std::ptrdiff_t j : columns[k]) basis.group_of[static_cast<std::size_t>(j)] = index;
    basis.is_reference[static_cast<std::size_t>(ref)] = 1;
    basis.reference.push_back(ref);
    basis.members.push_back(std::move(columns[k]));
  }
  if (basis.empty()) return none;
  // Pair work of the sampled rows, plain and in the basis (non-conforming rows at their plain cost).
  double plain = 0.0, reduced = 0.0;
  std::vector<std::ptrdiff_t> stamp(basis.reference.size(), -1);
  for (std::ptrdiff_t s = 0; s < S; ++s) {
    const std::ptrdiff_t i = sampled(s);
    const double m = static_cast<double>(X.indptr[i + 1] - X.indptr[i]);
    plain += m * (m + 1.0) / 2.0;
    if (!conforms(X, i, basis, stamp)) {
      reduced += m * (m + 1.0) / 2.0;
      continue;
    }
    double h = 0.0;
    for (I p = X.indptr[i]; p < X.indptr[i + 1]; ++p) h += basis.is_reference[static_cast<std::size_t>(X.indices[p])];
    reduced += (m - h + 1.0) * (m - h + 2.0) / 2.0;
  }
  return reduced <= kMaxWorkRatio * plain ? basis : none;
}

// Rows [begin, end) of X: conforming rows' pairs in the basis into A ((d+1)×(d+1), lower triangle, c_i-weighted),
// the others' plain pairs into L (d×d, lower triangle). Conforming rows are copied without their reference values
// and with the constant 1 in column d, a chunk at a time, then summed by add_row_pairs (cache-blocked).
template <class T, class I>
void add_pairs_in_basis(const CsrView<T, I>& X, std::ptrdiff_t begin, std::ptrdiff_t end, const double* c,
                        const Basis& basis, double* A, double* L) {
  constexpr std::ptrdiff_t kChunkRows = 2048;
  const std::ptrdiff_t d = X.cols;
  const std::uint8_t* is_ref = basis.is_reference.data();
  std::vector<std::ptrdiff_t> stamp(basis.reference.size(), -1);
  std::vector<T> data;
  std::vector<I> idx, ptr(static_cast<std::size_t>(kChunkRows) + 1);
  std::vector<double> weight(static_cast<std::size_t>(kChunkRows));
  std::vector<I> cursor;
  for (std::ptrdiff_t r0 = begin; r0 < end; r0 += kChunkRows) {
    const std::ptrdiff_t r1 = std::min(end, r0 + kChunkRows);
    const auto room = static_cast<std::size_t>(X.indptr[r1] - X.indptr[r0] + (r1 - r0));
    if (data.size() < room) {
      data.resize(room);
      idx.resize(room);
    }
    T* out_data = data.data();
    I* out_idx = idx.data();
    std::ptrdiff_t rows = 0, q = 0;
    ptr[0] = 0;
    for (std::ptrdiff_t i = r0; i < r1; ++i) {
      const double ci = c[i - begin];
      if (ci == 0.0) continue;
      if (!conforms(X, i, basis, stamp)) {
        add_row_pairs(X, i, i + 1, c + (i - begin), L, d, cursor);
        continue;
      }
      for (I p = X.indptr[i]; p < X.indptr[i + 1]; ++p) {  // every value written, kept unless a reference
        const I j = X.indices[p];
        out_data[q] = X.data[p];
        out_idx[q] = j;
        q += 1 - is_ref[static_cast<std::size_t>(j)];
      }
      out_data[q] = T{1};
      out_idx[q] = static_cast<I>(d);
      ++q;
      weight[static_cast<std::size_t>(rows)] = ci;
      ptr[static_cast<std::size_t>(++rows)] = static_cast<I>(q);
    }
    CsrView<T, I> chunk;
    chunk.data = out_data;
    chunk.indices = out_idx;
    chunk.indptr = ptr.data();
    chunk.rows = rows;
    chunk.cols = d + 1;
    chunk.capacity = q;
    chunk.sorted = true;
    add_row_pairs(chunk, 0, rows, weight.data(), A, d + 1, cursor);
  }
}

// L (d×d, lower triangle) += lower triangle of Cᵀ A C, A the (d+1)×(d+1) lower-triangle sums in the basis.
inline void add_from_basis(const Basis& basis, const double* A, double* L) {
  const std::ptrdiff_t d = basis.cols, D = d + 1;
  std::vector<double> F(static_cast<std::size_t>(D * D)), M(static_cast<std::size_t>(D * d));
  for (std::ptrdiff_t j = 0; j < D; ++j) {  // F: A made symmetric
    for (std::ptrdiff_t k = 0; k <= j; ++k) {
      F[static_cast<std::size_t>(j * D + k)] = F[static_cast<std::size_t>(k * D + j)] = A[j * D + k];
    }
  }
  // M = F C (D × d, row-major): column k of C is e_k, or for a reference e_d − Σ of its group's other columns.
  for (std::ptrdiff_t r = 0; r < D; ++r) {
    const double* f = F.data() + r * D;
    double* m = M.data() + r * d;
    for (std::ptrdiff_t k = 0; k < d; ++k) m[k] = basis.is_reference[static_cast<std::size_t>(k)] ? 0.0 : f[k];
    for (std::size_t g = 0; g < basis.reference.size(); ++g) {
      double v = f[d];
      for (std::ptrdiff_t k : basis.members[g]) {
        if (k != basis.reference[g]) v -= f[k];
      }
      m[basis.reference[g]] = v;
    }
  }
  // L += lower(Cᵀ M): row j of Cᵀ M is row j of M, or for a reference row d of M − Σ of its group's other rows.
  std::vector<double> row(static_cast<std::size_t>(d));
  for (std::ptrdiff_t j = 0; j < d; ++j) {
    const double* src = M.data() + j * d;
    if (basis.is_reference[static_cast<std::size_t>(j)]) {
      const std::size_t g = static_cast<std::size_t>(basis.group_of[static_cast<std::size_t>(j)]);
      std::copy(M.data() + d * d, M.data() + d * d + d, row.begin());
      for (std::ptrdiff_t k : basis.members[g]) {
        if (k == j) continue;
        const double* mk = M.data() + k * d;
        for (std::ptrdiff_t q = 0; q < d; ++q) row[static_cast<std::size_t>(q)] -= mk[q];
      }
      src = row.data();
    }
    for (std::ptrdiff_t k = 0; k <= j; ++k) L[j * d + k] += src[k];
  }
}

}  // namespace one_hot
}  // namespace dpfair
