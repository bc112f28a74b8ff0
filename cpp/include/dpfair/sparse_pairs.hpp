// The non-zero pairs of CSR rows: L += Σ_i c_i x_i x_iᵀ on the lower triangle, cache-blocked (shared by
// poly2_coefficients_csr and logistic_newton_csr).
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "dpfair/sparse.hpp"

namespace dpfair {

// Lower-triangle entries of L updated per block of its rows: 32K doubles (256 KiB) stay in a core's L2 cache.
constexpr std::ptrdiff_t kPairBlockEntries = 32768;

// L[j·ld + k] += Σ_{i in [begin, end)} c[i − begin]·x_ij·x_ik for every pair of non-zeros of row i with k <= j
// (each unordered pair once, the diagonal once). Rows with c_i = 0 are skipped.
// Sorted rows: L's rows are visited in blocks [J0, J1) whose lower triangle would fit in L2; for each block every X
// row contributes the pairs whose larger column lies in the block (a per-row cursor keeps the scan linear).
// Measured on the census-style rows of bench/census_sparse.py (one thread, 120,000 rows, session 7): 86–98 ms
// blocked vs 101–149 ms for the plain loop over each row's pairs. Tried and not faster (same run): the pairs of the
// k most frequent columns as a dense product per block of rows plus AXPYs for the frequent×rare pairs (k = 16–96:
// 104–250 ms), rare×rare pairs in a triangle packed by frequency rank (110 ms), rows bucketed by column per block
// (Gustavson, 108–224 ms). A scattered update costs ~1 ns even in L1, and each row's short inner loops end in a
// mispredicted branch (~8 ns each). Unsorted rows (no duplicates): every ordered
// pair is tested and kept when its second column is <= its first.
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
      I p = cursor[static_cast<std::size_t>(i - begin)];
      for (; p < hi && static_cast<std::ptrdiff_t>(idx[p]) < J1; ++p) {
        const double s = ci * static_cast<double>(data[p]);
        double* row = L + static_cast<std::ptrdiff_t>(idx[p]) * ld;
        for (I q = lo; q <= p; ++q) row[idx[q]] += s * static_cast<double>(data[q]);
      }
      cursor[static_cast<std::size_t>(i - begin)] = p;
    }
    J0 = J1;
  }
}

}  // namespace dpfair
