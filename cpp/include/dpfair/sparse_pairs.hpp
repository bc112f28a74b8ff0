// The non-zero pairs of CSR rows: L += Σ_i c_i x_i x_iᵀ on the lower triangle, cache-blocked (shared by
// poly2_coefficients_csr, poly2_coefficients on mostly-zero dense X and logistic_newton_csr).
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "dpfair/sparse.hpp"

namespace dpfair {

// Lower-triangle entries of L updated per block of its rows: 2^19 doubles (4 MiB) stay in the last-level cache.
// Each block costs every row another visit with its own short, mispredicted loops, and a scattered update costs
// about the same in L1, L2 or L3, so the block only needs to keep L out of DRAM. Measured (session 15, one thread,
// min of 5): census-style rows (d = 509 in the one-hot basis, one block) 78-79 ms against 92.6-99.6 ms with the old
// 2^15 (L2-sized) blocks; 100,000 random rows of 34 non-zeros, d = 2,000: 105-107 against 272-277 ms (unblocked
// 150-180 ms); d = 8,000: 713-743 against 1,582-1,706 ms (unblocked 822-874 ms; 2^18-2^21 within the noise).
constexpr std::ptrdiff_t kPairBlockEntries = 524288;

// The pairs (p, q) with lo <= q <= p of a sorted row's entries, for p in [p0, p1), each added as
// L[idx[p]·ld + idx[q]] += c_i·x_p·x_q. Four entries p at a time share one loop over their common prefix [lo, p]
// (four independent updates per step), then add their own small triangle: a quarter of the short inner loops,
// whose mispredicted exits cost about as much as the updates. The (p1 − p0) mod 4 entries left over go first, one
// loop each, where their prefixes are shortest (last, they took a third of the time on the short rows of
// one_hot_pairs.hpp). Every entry of L gets the same single update per row as one loop per p would give it, so the
// sums are bit for bit the same.
template <class T, class I>
inline void add_entry_pairs(const T* data, const I* idx, I lo, I p0, I p1, double ci, double* L, std::ptrdiff_t ld) {
  I p = p0;
  for (const I first_group = p0 + (p1 - p0) % 4; p < first_group; ++p) {  // the leftover entries first: shortest prefixes
    const double s = ci * static_cast<double>(data[p]);
    double* row = L + static_cast<std::ptrdiff_t>(idx[p]) * ld;
    for (I q = lo; q <= p; ++q) row[idx[q]] += s * static_cast<double>(data[q]);
  }
  for (; p < p1; p += 4) {
    const double v0 = static_cast<double>(data[p]), v1 = static_cast<double>(data[p + 1]);
    const double v2 = static_cast<double>(data[p + 2]), v3 = static_cast<double>(data[p + 3]);
    const double s0 = ci * v0, s1 = ci * v1, s2 = ci * v2, s3 = ci * v3;
    double* r0 = L + static_cast<std::ptrdiff_t>(idx[p]) * ld;
    double* r1 = L + static_cast<std::ptrdiff_t>(idx[p + 1]) * ld;
    double* r2 = L + static_cast<std::ptrdiff_t>(idx[p + 2]) * ld;
    double* r3 = L + static_cast<std::ptrdiff_t>(idx[p + 3]) * ld;
    for (I q = lo; q <= p; ++q) {
      const I k = idx[q];
      const double v = static_cast<double>(data[q]);
      r0[k] += s0 * v;
      r1[k] += s1 * v;
      r2[k] += s2 * v;
      r3[k] += s3 * v;
    }
    const I k1 = idx[p + 1], k2 = idx[p + 2], k3 = idx[p + 3];
    r1[k1] += s1 * v1;
    r2[k1] += s2 * v1;
    r2[k2] += s2 * v2;
    r3[k1] += s3 * v1;
    r3[k2] += s3 * v2;
    r3[k3] += s3 * v3;
  }
}

// L[j·ld + k] += Σ_{i in [begin, end)} c[i − begin]·x_ij·x_ik for every pair of non-zeros of row i with k <= j
// (each unordered pair once, the diagonal once). Rows with c_i = 0 are skipped.
// Sorted rows: L's rows are visited in blocks [J0, J1) of at most kPairBlockEntries lower-triangle entries; for each block every X
// row contributes the pairs whose larger column lies in the block (a per-row cursor keeps the scan linear).
// Within a block, a row's entries go four at a time (add_entry_pairs).
// Measured on the census-style rows of bench/census_sparse.py (one thread, 120,000 rows, session 7, a noisy host:
// pairs of runs): blocked, one entry at a time 112–172 ms; four at a time 75–126 ms (one run of six even); the plain
// loop over each row's pairs 101–149 ms. Tried and not faster: the pairs of the k most frequent columns as a dense
// product per block of rows plus AXPYs for the frequent×rare pairs (k = 16–96: 104–250 ms), rare×rare pairs in a
// triangle packed by frequency rank (110 ms), rows bucketed by column per block (Gustavson, 108–224 ms). A scattered
// update costs ~1 ns even in L1, and each short inner loop ends in a mispredicted branch (~8 ns), hence the four
// entries per loop. Unsorted rows (no duplicates): every ordered pair is tested and kept when its second column is
// <= its first.
template <class T, class I>
void add_row_pairs(const CsrView<T, I>& X, std::ptrdiff_t begin, std::ptrdiff_t end, const double* c, double* L,
                   std::ptrdiff_t ld, std::vector<I>& cursor) {
  const T* data = X.data;
  const I* idx = X.indices;
  if (!X.sorted) {
    for (std::ptrdiff_t i = begin; i < end; ++i) {
      const double ci = c[i - begin];
      if (ci == 0.0) continue;
      const I lo = X.indptr[i], hi = X.indptr[i + 1];
      for (I p = lo; p < hi; ++p) {
        const double s = ci * static_cast<double>(data[p]);
        const I j = idx[p];
        double* row = L + static_cast<std::ptrdiff_t>(j) * ld;
        for (I q = lo; q < hi; ++q) {
          if (idx[q] <= j) row[idx[q]] += s * static_cast<double>(data[q]);
        }
      }
    }
    return;
  }
  const std::ptrdiff_t d = X.cols;
  cursor.assign(X.indptr + begin, X.indptr + end);
  std::ptrdiff_t J0 = 0;
  while (J0 < d) {
    std::ptrdiff_t J1 = J0 + 1, entries = J0 + 1;
    while (J1 < d && entries + J1 + 1 <= kPairBlockEntries) entries += ++J1;
    for (std::ptrdiff_t i = begin; i < end; ++i) {
      const double ci = c[i - begin];
      if (ci == 0.0) continue;
      const I lo = X.indptr[i], hi = X.indptr[i + 1];
      const I p = cursor[static_cast<std::size_t>(i - begin)];
      I e = p;  // entries [p, e) have their column in the block
      while (e < hi && static_cast<std::ptrdiff_t>(idx[e]) < J1) ++e;
      add_entry_pairs(data, idx, lo, p, e, ci, L, ld);
      cursor[static_cast<std::size_t>(i - begin)] = e;
    }
    J0 = J1;
  }
}

}  // namespace dpfair
