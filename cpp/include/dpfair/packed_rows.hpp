// CSR rows read one at a time by kernels that visit only some rows (the DP-SGD loops): per-row checks that record
// or throw a row's first fault, and PackedRows, a copy of X laid out for reads scattered over the rows. Internal to
// the core (not part of the public C++ API).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <stdexcept>
#include <vector>

#include "dpfair/parallel.hpp"
#include "dpfair/prefetch.hpp"
#if defined(__linux__)
#include <sys/mman.h>
#endif
#include "dpfair/sparse.hpp"

namespace dpfair {
namespace csr_rows {

inline void require(bool ok, const char* message) {
  if (!ok) throw std::invalid_argument(message);
}

// Non-zeros per thread below which the CSR kernels (and PackedRows) use one thread.
constexpr std::ptrdiff_t kMinNonzerosPerThread = 100000;

// What is wrong with one CSR row, in the order the checks run (RowFault::none: nothing); the messages are
// fault_message's. group and label are the DP-SGD loop's checks of the row's group and label.
enum class RowFault : std::uint32_t { none = 0, offsets, column, nonfinite, duplicate, group, label };

inline const char* fault_message(RowFault fault) {
  static constexpr const char* kMessages[] = {
      "no fault",
      "X.indptr must be non-decreasing and within the stored values (X.data / X.indices too short)",
      "X.indices holds a column index outside 0 .. n_features-1",
      "X contains NaN or infinity; remove or impute those values first",
      "X has duplicate entries (a column twice in a row); call X.sum_duplicates() first",
      "groups must lie in 0 .. len(clip)-1",
      "X or y contains NaN or infinity in a batch row",
  };
  return kMessages[static_cast<std::size_t>(fault)];
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
    const RowFault f = fault(i);
    require(f == RowFault::none, fault_message(f));
  }

  // The first fault of row i (0 <= i < n), or RowFault::none.
  RowFault fault(std::int64_t i) {
    const I lo = X_.indptr[i], hi = X_.indptr[i + 1];
    if (!(lo >= 0 && lo <= hi && static_cast<std::ptrdiff_t>(hi) <= X_.capacity)) return RowFault::offsets;
    bool sorted = true;
    for (I p = lo; p < hi; ++p) {
      const I j = X_.indices[p];
      if (!(j >= 0 && static_cast<std::ptrdiff_t>(j) < X_.cols)) return RowFault::column;
      if (!std::isfinite(static_cast<double>(X_.data[p]))) return RowFault::nonfinite;
      if (p > lo && j <= X_.indices[p - 1]) sorted = false;
    }
    if (sorted) return RowFault::none;
    if (seen_.empty()) seen_.assign(static_cast<std::size_t>(X_.cols), 0);
    ++stamp_;
    for (I p = lo; p < hi; ++p) {
      std::int64_t& mark = seen_[static_cast<std::size_t>(X_.indices[p])];
      if (mark == stamp_) return RowFault::duplicate;
      mark = stamp_;
    }
    return RowFault::none;
  }

 private:
  const CsrView<T, I>& X_;
  std::vector<std::int64_t> seen_;
  std::int64_t stamp_ = 0;
};

// Software prefetch of a CSR row that will be read a few rows from now (rows of a batch are scattered over X, so
// reading them is latency-bound without it). Stage 1 asks for row i's two offsets; stage 2, issued when those
// have arrived, asks for the cache lines of its values and column indices (at most kPrefetchLines each: offsets
// are not validated yet, and a prefetch never faults; dpfair/prefetch.hpp).
constexpr std::ptrdiff_t kPrefetchLines = 16;

using dpfair::prefetch;

// The DP-SGD loop's copy of X's rows with their labels and groups, packed for reads scattered over X. A batch row
// of the census-style data (34 non-zeros, 30 of them one-hot 1.0) spans about 12 cache lines in CSR (offsets,
// values, indices, y, groups, each at its own random address); reading 256 such rows per step was latency-bound
// (~950 ns per row, software prefetch included). Here row i is one 64-byte aligned record — a Header, the row's
// values that are not exactly 1.0 (as T), then the column indices (as C) of those values and after them of the
// row's 1.0 entries, each part in CSR order — so the same row spans 2 lines, and the loops over it need no
// branch. When every record fits in kFixedLines lines, row i sits at base + i·kFixedLines·64 (fixed stride: a
// row's address is computed, not loaded, so a prefetch of a batch row needs no dependent miss first — measured
// the faster layout); otherwise records are variable length and addressed through a table (rows_). Built by
// sequential passes over X split over the hardware's threads (build it once and reuse it: the DP-SGD estimators
// keep one per fit); each row's fault (CsrRowCheck's order, then its group, then its label) is recorded, not
// thrown, so only the rows a loop visits can fail. Sums over a row add its other values first, then its 1.0s (in
// four partial sums, dot_and_square: a different rounding order than over the CSR row, within the kernels'
// tolerances). C: std::uint16_t when d <= 2^16, else std::uint32_t. y or groups may be nullptr (then Header::y / group are 0 and never a fault).
template <class T, class C>
class PackedRows {
 public:
  struct Header {
    double y;
    std::uint32_t count, n_values;  // non-zeros; of them stored values
    std::int32_t group;
    RowFault fault;
  };
  static constexpr std::size_t kFixedLines = 2;

  template <class I>
  PackedRows(const CsrView<T, I>& X, const double* y, const std::int64_t* groups, std::ptrdiff_t n_groups)
      : n_(X.rows) {
    require(static_cast<std::uint64_t>(X.cols) <= std::uint64_t{1} << (8 * sizeof(C)), "n_features must be <= 2^32");
    const double nnz = X.rows > 0 ? static_cast<double>(X.indptr[X.rows]) : 0.0;
    const int threads = threads_for(nnz, static_cast<double>(kMinNonzerosPerThread), 0);
    std::vector<std::size_t> longest(static_cast<std::size_t>(threads), 0);
    parallel_for(X.rows, threads, [&](int k, std::ptrdiff_t begin, std::ptrdiff_t end) {
      CsrRowCheck<T, I> check(X);
      std::size_t& most = longest[static_cast<std::size_t>(k)];
      for (std::ptrdiff_t i = begin; i < end; ++i) most = std::max(most, lines_of(X, i, check.fault(i)));
    });
    if (*std::max_element(longest.begin(), longest.end()) <= kFixedLines) {
      // uninitialized (no zeroing pass): each thread writes, and so faults in, its own rows' pages
      fixed_ = allocate_lines(static_cast<std::size_t>(X.rows) * kFixedLines);
      parallel_for(X.rows, threads, [&](int, std::ptrdiff_t begin, std::ptrdiff_t end) {
        CsrRowCheck<T, I> check(X);
        for (std::ptrdiff_t i = begin; i < end; ++i) {
          write(X, y, groups, n_groups, i, check.fault(i), fixed_.get() + static_cast<std::size_t>(i) * kFixedLines);
        }
      });
      return;
    }
    rows_.resize(static_cast<std::size_t>(X.rows));
    parts_.resize(static_cast<std::size_t>(threads));
    parallel_for(X.rows, threads, [&](int k, std::ptrdiff_t begin, std::ptrdiff_t end) {
      pack(X, y, groups, n_groups, begin, end, parts_[static_cast<std::size_t>(k)]);
    });
    // rows_ held each row's line index in its part; now its address, with its line count (at most 63) in the
    // six low bits that the 64-byte alignment leaves free.
    parallel_for(X.rows, threads, [&](int k, std::ptrdiff_t begin, std::ptrdiff_t end) {
      const auto base = reinterpret_cast<std::uintptr_t>(parts_[static_cast<std::size_t>(k)].data());
      for (std::ptrdiff_t i = begin; i < end; ++i) rows_[static_cast<std::size_t>(i)] += base;
    });
  }

  std::ptrdiff_t rows() const { return n_; }

  const Header& row(std::int64_t i) const {
    if (fixed_) return *reinterpret_cast<const Header*>(fixed_.get() + static_cast<std::size_t>(i) * kFixedLines);
    return *reinterpret_cast<const Header*>(rows_[static_cast<std::size_t>(i)] & ~std::uintptr_t{63});
  }

  // Asks for row i's address (stage 1; nothing to ask with a fixed stride) or its lines (stage 2, once the
  // address has arrived).
  void prefetch_address(std::int64_t i) const {
    if (!fixed_ && i >= 0 && i < n_) prefetch(&rows_[static_cast<std::size_t>(i)]);
  }
  void prefetch_lines(std::int64_t i) const {
    if (i < 0 || i >= n_) return;
    if (fixed_) {
      const Line* line = fixed_.get() + static_cast<std::size_t>(i) * kFixedLines;
      for (std::size_t l = 0; l < kFixedLines; ++l) prefetch(line + l);
      return;
    }
    const std::uintptr_t r = rows_[static_cast<std::size_t>(i)];
    const auto* line = reinterpret_cast<const Line*>(r & ~std::uintptr_t{63});
    for (std::uintptr_t l = 0; l < std::min<std::uintptr_t>(r & 63, kPrefetchLines); ++l) prefetch(line + l);
  }

  // f(column, value) for each non-zero of the row: its values other than 1.0, then its 1.0s (each in CSR order).
  template <class F>
  static void for_each(const Header& h, F&& f) {
    const T* values = reinterpret_cast<const T*>(&h + 1);
    const C* columns = reinterpret_cast<const C*>(values + h.n_values);
    for (std::uint32_t e = 0; e < h.n_values; ++e) {
      f(static_cast<std::ptrdiff_t>(columns[e]), static_cast<double>(values[e]));
    }
    for (std::uint32_t e = h.n_values; e < h.count; ++e) f(static_cast<std::ptrdiff_t>(columns[e]), 1.0);
  }

  // dot = Σ v·a[j] and sq = Σ v² over the row's non-zeros, and, given b (else nullptr, dot_b untouched),
  // dot_b = Σ v·b[j]. The stored values are summed in order; the 1.0s in four interleaved partial sums (a chain of
  // dependent additions per row was the loops' critical path), and their squares as their count, exactly.
  static void dot_and_square(const Header& h, const double* a, const double* b, double& dot, double& dot_b,
                             double& sq) {
    const T* values = reinterpret_cast<const T*>(&h + 1);
    const C* columns = reinterpret_cast<const C*>(values + h.n_values);
    double s = 0.0, q = 0.0, t = 0.0;
    for (std::uint32_t e = 0; e < h.n_values; ++e) {
      const double v = static_cast<double>(values[e]);
      s += v * a[columns[e]];
      q += v * v;
      if (b != nullptr) t += v * b[columns[e]];
    }
    const C* ones = columns + h.n_values;
    const std::uint32_t n_ones = h.count - h.n_values;
    double s4[4] = {0.0, 0.0, 0.0, 0.0}, t4[4] = {0.0, 0.0, 0.0, 0.0};
    std::uint32_t e = 0;
    for (; e + 4 <= n_ones; e += 4) {
      for (int k = 0; k < 4; ++k) s4[k] += a[ones[e + k]];
      if (b != nullptr) {
        for (int k = 0; k < 4; ++k) t4[k] += b[ones[e + k]];
      }
    }
    for (; e < n_ones; ++e) {
      s4[e % 4] += a[ones[e]];
      if (b != nullptr) t4[e % 4] += b[ones[e]];
    }
    dot = s + ((s4[0] + s4[1]) + (s4[2] + s4[3]));
    sq = q + static_cast<double>(n_ones);
    if (b != nullptr) dot_b = t + ((t4[0] + t4[1]) + (t4[2] + t4[3]));
  }

 private:
  struct alignas(64) Line {
    unsigned char bytes[64];
  };

  // Row i's stored range [lo, hi) (empty for a row whose offsets are faulty).
  template <class I>
  static void bounds_of(const CsrView<T, I>& X, std::ptrdiff_t i, RowFault fault, I& lo, I& hi) {
    lo = fault == RowFault::offsets ? 0 : X.indptr[i];
    hi = fault == RowFault::offsets ? 0 : X.indptr[i + 1];
    require(static_cast<std::uint64_t>(hi - lo) < (std::uint64_t{1} << 32), "a CSR row holds 2^32 non-zeros or more");
  }

  template <class I>
  static std::uint32_t values_of(const CsrView<T, I>& X, I lo, I hi) {
    std::uint32_t n_values = 0;
    for (I p = lo; p < hi; ++p) n_values += static_cast<double>(X.data[p]) != 1.0;
    return n_values;
  }

  static std::size_t lines_for(std::uint32_t n_values, std::size_t count) {
    return (sizeof(Header) + n_values * sizeof(T) + count * sizeof(C) + 63) / 64;
  }

  template <class I>
  static std::size_t lines_of(const CsrView<T, I>& X, std::ptrdiff_t i, RowFault fault) {
    I lo, hi;
    bounds_of(X, i, fault, lo, hi);
    return lines_for(values_of(X, lo, hi), static_cast<std::size_t>(hi - lo));
  }

  // Writes row i's record (its fault, as found by CsrRowCheck, completed by the group and label checks) at `out`.
  template <class I>
  static void write(const CsrView<T, I>& X, const double* y, const std::int64_t* groups, std::ptrdiff_t n_groups,
                    std::ptrdiff_t i, RowFault fault, Line* out) {
    I lo, hi;
    bounds_of(X, i, fault, lo, hi);
    const std::uint32_t n_values = values_of(X, lo, hi);
    if (fault == RowFault::none && groups && !(groups[i] >= 0 && groups[i] < n_groups)) fault = RowFault::group;
    if (fault == RowFault::none && y && !std::isfinite(y[i])) fault = RowFault::label;
    const auto group = fault == RowFault::none && groups ? static_cast<std::int32_t>(groups[i]) : 0;
    auto* h = new (out) Header{y ? y[i] : 0.0, static_cast<std::uint32_t>(hi - lo), n_values, group, fault};
    T* values = reinterpret_cast<T*>(h + 1);
    C* columns = reinterpret_cast<C*>(values + n_values);
    C* ones = columns + n_values;
    for (I p = lo; p < hi; ++p) {
      if (static_cast<double>(X.data[p]) != 1.0) {
        *values++ = X.data[p];
        *columns++ = static_cast<C>(X.indices[p]);
      } else {
        *ones++ = static_cast<C>(X.indices[p]);
      }
    }
  }

  // Packs rows [begin, end) into `out`, leaving in rows_[i] row i's first line in `out` plus its line count.
  // (Measured slower on this machine, so not used: huge pages for the buffer, twice the fault-in time and no
  // faster reads.)
  template <class I>
  void pack(const CsrView<T, I>& X, const double* y, const std::int64_t* groups, std::ptrdiff_t n_groups,
            std::ptrdiff_t begin, std::ptrdiff_t end, std::vector<Line>& out) {
    CsrRowCheck<T, I> check(X);
    for (std::ptrdiff_t i = begin; i < end; ++i) {
      const RowFault fault = check.fault(i);
      const std::size_t first = out.size(), lines = lines_of(X, i, fault);
      out.resize(first + lines);
      write(X, y, groups, n_groups, i, fault, out.data() + first);
      rows_[static_cast<std::size_t>(i)] = first * sizeof(Line) + std::min<std::size_t>(lines, 63);
    }
  }

  // The fixed-stride buffer: fresh anonymous memory (Linux: its own mapping, asked for transparent huge pages, so
  // scattered reads need few TLB entries), uninitialized.
  struct FreeLines {
    std::size_t bytes = 0;
    void operator()(Line* p) const {
#if defined(__linux__)
      munmap(p, bytes);
#else
      delete[] p;
#endif
    }
  };
  using LineBuffer = std::unique_ptr<Line[], FreeLines>;
  static LineBuffer allocate_lines(std::size_t count) {
    const std::size_t bytes = std::max<std::size_t>(count, 1) * sizeof(Line);
#if defined(__linux__)
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    madvise(p, bytes, MADV_HUGEPAGE);  // advice only: without huge pages it still works
    return LineBuffer(static_cast<Line*>(p), FreeLines{bytes});
#else
    return LineBuffer(new Line[bytes / sizeof(Line)], FreeLines{bytes});
#endif
  }

  std::ptrdiff_t n_;
  LineBuffer fixed_;  // the fixed-stride records, or null
  std::vector<std::uintptr_t> rows_;  // otherwise: each row's address | its line count
  std::vector<std::vector<Line>> parts_;
};

}  // namespace csr_rows
}  // namespace dpfair
