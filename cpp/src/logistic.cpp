// logistic_newton: damped Newton for exact logistic regression; each step is one pass over the rows of X that
// yields the scores, the gradient and the Hessian together. Dense columns: weighted syrk blocks as in poly2.
// One-hot ("indicator") columns: each row's set of ones is a pattern; per pass, a row adds its weights to its
// pattern's sums, which are then spread over the pattern's columns (Adult: ~2,000 patterns for 36,000 rows).
// Wide rows that are mostly zero are copied to CSR and take the CSR fit (see kCsrMaxDensity).
#include "dpfair/logistic.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include "dpfair/logistic_row.hpp"
#include "dpfair/parallel.hpp"
#include "dpfair/quadratic.hpp"
#include "dpfair/sparse.hpp"
#include "dpfair/sparse_pairs.hpp"

namespace dpfair {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;
using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

constexpr std::ptrdiff_t kMinElementsPerThread = 50000;  // below this per thread, fewer threads
constexpr double kPatternDensity = 0.5;   // 0/1 columns with fewer nonzeros than this (in a sample) form patterns
constexpr std::ptrdiff_t kSampleRows = 2048;

// x·w with four partial sums (breaks the addition latency chain; the loop vectorizes).
inline double row_dot(const double* x, const double* w, std::ptrdiff_t d) {
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  std::ptrdiff_t j = 0;
  for (; j + 4 <= d; j += 4) {
    s0 += x[j] * w[j];
    s1 += x[j + 1] * w[j + 1];
    s2 += x[j + 2] * w[j + 2];
    s3 += x[j + 3] * w[j + 3];
  }
  for (; j < d; ++j) s0 += x[j] * w[j];
  return (s0 + s1) + (s2 + s3);
}

// The parameters in the solver's order: [dense columns, intercept (if fitted), indicator columns]. `original[k]`
// is the position in [coef (d), intercept] of internal parameter k. Indicator columns hold only 0 and 1 and are
// mostly 0 (one-hot encodings); every other column is dense.
struct ColumnSplit {
  std::vector<std::int32_t> dense, indicator;  // original column indices
  std::vector<std::ptrdiff_t> original;
  std::ptrdiff_t nd = 0, md = 0, ns = 0;        // dense columns, dense block width (+ intercept), indicators
};

// Indicator columns: only 0/1 and fewer than kPatternDensity nonzeros in up to kSampleRows evenly spaced rows,
// and not in `dense_only` (columns found to hold other values after all).
template <class T>
ColumnSplit split_columns(const T* X, std::ptrdiff_t n, std::ptrdiff_t d, std::ptrdiff_t rs, std::ptrdiff_t cs,
                          bool fit_intercept, const std::vector<char>& dense_only) {
  const std::ptrdiff_t rows = std::min(n, kSampleRows);
  std::vector<std::ptrdiff_t> nonzero(static_cast<std::size_t>(d), 0);
  std::vector<char> binary(static_cast<std::size_t>(d), 1);
  for (std::ptrdiff_t r = 0; r < rows; ++r) {
    const T* src = X + (r * n / rows) * rs;
    for (std::ptrdiff_t j = 0; j < d; ++j) {
      const T v = src[j * cs];
      nonzero[static_cast<std::size_t>(j)] += (v != T(0));
      binary[static_cast<std::size_t>(j)] &= static_cast<char>(v == T(0) || v == T(1));
    }
  }
  ColumnSplit split;
  for (std::ptrdiff_t j = 0; j < d; ++j) {
    const std::size_t u = static_cast<std::size_t>(j);
    const bool indicator = binary[u] && !dense_only[u] &&
                           static_cast<double>(nonzero[u]) < kPatternDensity * static_cast<double>(rows);
    (indicator ? split.indicator : split.dense).push_back(static_cast<std::int32_t>(j));
  }
  split.nd = static_cast<std::ptrdiff_t>(split.dense.size());
  split.md = split.nd + (fit_intercept ? 1 : 0);
  split.ns = static_cast<std::ptrdiff_t>(split.indicator.size());
  for (std::int32_t j : split.dense) split.original.push_back(j);
  if (fit_intercept) split.original.push_back(d);
  for (std::int32_t j : split.indicator) split.original.push_back(j);
  return split;
}

// One thread's sums over its rows, in the internal order: g = Σ (p_i − y_i) x̃_i and the lower triangle of
// H = Σ p_i(1 − p_i) x̃_i x̃_iᵀ in three blocks (dense×dense, indicator×dense, indicator×indicator).
struct Partial {
  VectorXd g;
  MatrixXd dd;             // md × md, lower triangle
  std::vector<double> sd;  // ns × md, row-major
  std::vector<double> ss;  // ns × ns, row-major, entries (s, t) with s >= t
  // Per-pattern sums of the current pass: Σ a_i, Σ c_i, Σ c_i·[dense columns, 1] over the rows of each pattern.
  std::vector<double> pa, pc, pv;
};

// A copy of one thread's rows when some columns are indicators: the dense columns row by row (nd per row), and
// for each row the index of its pattern, the set of indicator columns equal to 1 (patterns are numbered in order
// of first appearance; each lists its internal indicator indices in increasing order).
struct Compact {
  std::vector<double> dense;
  std::vector<std::int32_t> row_pattern;
  std::vector<std::int64_t> start{0};  // patterns + 1 offsets into columns
  std::vector<std::int32_t> columns;
  std::ptrdiff_t patterns() const { return static_cast<std::ptrdiff_t>(start.size()) - 1; }
};

template <class T>
class RowStore {
 public:
  RowStore(const T* X, std::ptrdiff_t rs, std::ptrdiff_t cs, bool fit_intercept, ColumnSplit split, int chunks)
      : X_(X), rs_(rs), cs_(cs), fit_intercept_(fit_intercept), split_(std::move(split)),
        compact_(split_.ns > 0 ? static_cast<std::size_t>(chunks) : 0) {}

  static constexpr bool kHessianVector = false;  // see CsrStore::hessian_times
  const ColumnSplit& split() const { return split_; }
  bool compact() const { return split_.ns > 0; }

  // Copies rows [begin, end) of X into chunk k (only when there are indicator columns). Marks in `not_binary` the
  // indicator columns holding a value other than 0 and 1 in these rows (NaN and ±inf included) and returns false
  // if there is one: the caller then makes them dense and builds again.
  bool build(int k, std::ptrdiff_t begin, std::ptrdiff_t end, std::vector<char>& not_binary) {
    // Longer than 60 lines (complexity 18): one pass over the chunk's rows that copies the dense part, collects
    // the row's indicator pattern and interns it in an open-addressing table that grows in place; the table, the
    // pattern store and the row being read are one state, so the pieces stay together.
    Compact& c = compact_[static_cast<std::size_t>(k)];
    const std::ptrdiff_t rows = end - begin, nd = split_.nd, ns = split_.ns;
    c = Compact{};
    c.dense.resize(static_cast<std::size_t>(rows * nd));
    c.row_pattern.resize(static_cast<std::size_t>(rows));
    std::vector<std::int32_t> active(static_cast<std::size_t>(ns));
    std::vector<std::uint64_t> hashes;
    std::vector<std::int32_t> table(1024, -1);  // open addressing: pattern index or -1
    std::vector<std::ptrdiff_t> offset(static_cast<std::size_t>(ns));
    for (std::ptrdiff_t s = 0; s < ns; ++s) offset[static_cast<std::size_t>(s)] = split_.indicator[static_cast<std::size_t>(s)] * cs_;
    bool any_bad = false;
    for (std::ptrdiff_t r = 0; r < rows; ++r) {
      const T* src = X_ + (begin + r) * rs_;
      double* dst = c.dense.data() + r * nd;
      for (std::ptrdiff_t j = 0; j < nd; ++j) dst[j] = static_cast<double>(src[split_.dense[static_cast<std::size_t>(j)] * cs_]);
      std::ptrdiff_t count = 0, nonzero = 0;
      for (std::ptrdiff_t s = 0; s < ns; ++s) {  // branch-free: write every index, advance past the ones only
        const T v = src[offset[static_cast<std::size_t>(s)]];
        active[static_cast<std::size_t>(count)] = static_cast<std::int32_t>(s);
        count += (v == T(1));
        nonzero += (v != T(0));
      }
      if (nonzero != count) {  // a value other than 0 and 1 (NaN and ±inf included)
        any_bad = true;
        for (std::ptrdiff_t s = 0; s < ns; ++s) {
          const double v = static_cast<double>(src[split_.indicator[static_cast<std::size_t>(s)] * cs_]);
          if (v != 0.0 && v != 1.0) not_binary[static_cast<std::size_t>(split_.indicator[static_cast<std::size_t>(s)])] = 1;
        }
        continue;
      }
      std::uint64_t h = 0x9E3779B97F4A7C15ULL ^ static_cast<std::uint64_t>(count);
      for (std::ptrdiff_t t = 0; t < count; ++t) {
        h ^= static_cast<std::uint64_t>(active[static_cast<std::size_t>(t)]) + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
      }
      const std::size_t mask = table.size() - 1;
      std::size_t slot = static_cast<std::size_t>(h ^ (h >> 29)) & mask;
      std::int32_t found = -1;
      for (; table[slot] >= 0; slot = (slot + 1) & mask) {
        const std::int32_t q = table[slot];
        const std::int64_t lo = c.start[static_cast<std::size_t>(q)], hi = c.start[static_cast<std::size_t>(q) + 1];
        if (hashes[static_cast<std::size_t>(q)] == h && hi - lo == count &&
            std::equal(active.begin(), active.begin() + count, c.columns.begin() + lo)) {
          found = q;
          break;
        }
      }
      if (found < 0) {
        found = static_cast<std::int32_t>(c.patterns());
        table[slot] = found;
        hashes.push_back(h);
        c.columns.insert(c.columns.end(), active.begin(), active.begin() + count);
        c.start.push_back(static_cast<std::int64_t>(c.columns.size()));
        if (2 * hashes.size() > table.size()) {  // keep the load below one half
          table.assign(2 * table.size(), -1);
          const std::size_t m2 = table.size() - 1;
          for (std::size_t q = 0; q < hashes.size(); ++q) {
            std::size_t s2 = static_cast<std::size_t>(hashes[q] ^ (hashes[q] >> 29)) & m2;
            while (table[s2] >= 0) s2 = (s2 + 1) & m2;
            table[s2] = static_cast<std::int32_t>(q);
          }
        }
      }
      c.row_pattern[static_cast<std::size_t>(r)] = found;
    }
    return !any_bad;
  }

  // Scores of rows [begin, end) (chunk k) into z; g and, when hessian, the Hessian blocks into out (zeroed here).
  // w is in the internal order. A row's indicator part enters through its pattern: x_sᵀw_s = Σ_{s in pattern} w_s,
  // and its contributions to g and H are summed per pattern first, then spread over the pattern's columns.
  void pass(int k, std::ptrdiff_t begin, std::ptrdiff_t end, const double* w, const double* y, double* z, bool hessian,
            Partial& out) const {
    // Longer than 60 lines (complexity 39): the hot loop of logistic_newton on pattern-compressed rows. Scores,
    // weights, gradient and the three Hessian blocks (dense-dense, indicator-dense, indicator-indicator) are
    // accumulated per row and per pattern in one sweep so each row is read once; the branches are the optional
    // Hessian, intercept and dense part, kept out of the inner loops.
    const std::ptrdiff_t nd = split_.nd, md = split_.md, ns = split_.ns;
    out.g.setZero(md + ns);
    if (hessian) {
      out.dd.setZero(md, md);
      out.sd.assign(static_cast<std::size_t>(ns * md), 0.0);
      out.ss.assign(static_cast<std::size_t>(ns * ns), 0.0);
    }
    const Compact* c = compact() ? &compact_[static_cast<std::size_t>(k)] : nullptr;
    const std::ptrdiff_t P = c != nullptr ? c->patterns() : 0;
    std::vector<double> pattern_score(static_cast<std::size_t>(P), 0.0);
    for (std::ptrdiff_t q = 0; q < P; ++q) {
      double s = 0.0;
      for (std::int64_t t = c->start[static_cast<std::size_t>(q)]; t < c->start[static_cast<std::size_t>(q) + 1]; ++t)
        s += w[md + c->columns[static_cast<std::size_t>(t)]];
      pattern_score[static_cast<std::size_t>(q)] = s;
    }
    out.pa.assign(static_cast<std::size_t>(P), 0.0);
    out.pc.assign(hessian ? static_cast<std::size_t>(P) : 0, 0.0);
    out.pv.assign(hessian ? static_cast<std::size_t>(P * md) : 0, 0.0);
    const double bias = fit_intercept_ ? w[nd] : 0.0;
    double* g = out.g.data();
    const std::ptrdiff_t block = std::clamp<std::ptrdiff_t>(131072 / std::max<std::ptrdiff_t>(md, 1), 64, 1024);
    const std::ptrdiff_t cap = std::min(block, end - begin);
    constexpr bool kIsDouble = std::is_same<T, double>::value;
    const bool in_place = c == nullptr && kIsDouble && cs_ == 1;
    std::vector<double> converted(c == nullptr && !in_place ? static_cast<std::size_t>(cap * nd) : 0);
    std::vector<double> prob(static_cast<std::size_t>(cap));
    RowMatrix scaled(hessian ? cap : 0, md);  // sqrt(c_i)·[dense columns, 1]
    for (std::ptrdiff_t i0 = begin; i0 < end; i0 += block) {
      const std::ptrdiff_t rows = std::min(block, end - i0);
      // The block's dense columns: row r at base + r·stride (in place, the compact copy, or converted).
      const double* base;
      std::ptrdiff_t stride = nd;
      if (c != nullptr) {
        base = c->dense.data() + (i0 - begin) * nd;
      } else if (in_place) {
        base = reinterpret_cast<const double*>(X_ + i0 * rs_);
        stride = rs_;
      } else {
        for (std::ptrdiff_t r = 0; r < rows; ++r) {
          const T* src = X_ + (i0 + r) * rs_;
          double* dst = converted.data() + r * nd;
          for (std::ptrdiff_t j = 0; j < nd; ++j) dst[j] = static_cast<double>(src[j * cs_]);
        }
        base = converted.data();
      }
      const std::int32_t* pattern = c != nullptr ? c->row_pattern.data() + (i0 - begin) : nullptr;
      for (std::ptrdiff_t r = 0; r < rows; ++r) {
        double zi = row_dot(base + r * stride, w, nd) + bias;
        if (pattern != nullptr) zi += pattern_score[static_cast<std::size_t>(pattern[r])];
        z[i0 + r] = zi;
      }
      sigmoid_array(z + i0, prob.data(), rows);
      std::ptrdiff_t used = 0;
      for (std::ptrdiff_t r = 0; r < rows; ++r) {
        const double* x = base + r * stride;
        const double p = prob[static_cast<std::size_t>(r)];
        const double ai = p - y[i0 + r];
        for (std::ptrdiff_t j = 0; j < nd; ++j) g[j] += ai * x[j];
        if (fit_intercept_) g[nd] += ai;
        if (pattern != nullptr) out.pa[static_cast<std::size_t>(pattern[r])] += ai;
        const double ci = p * (1.0 - p);
        if (!hessian || !(ci > 0.0)) continue;
        const double sc = std::sqrt(ci);
        double* dst = scaled.data() + used * md;
        for (std::ptrdiff_t j = 0; j < nd; ++j) dst[j] = sc * x[j];
        if (fit_intercept_) dst[nd] = sc;
        ++used;
        if (pattern != nullptr) {
          const std::size_t q = static_cast<std::size_t>(pattern[r]);
          out.pc[q] += ci;
          double* v = out.pv.data() + q * static_cast<std::size_t>(md);
          for (std::ptrdiff_t j = 0; j < md; ++j) v[j] += sc * dst[j];
        }
      }
      if (used > 0) out.dd.selfadjointView<Eigen::Lower>().rankUpdate(scaled.topRows(used).transpose(), 1.0);
    }
    double* gs = g + md;
    for (std::ptrdiff_t q = 0; q < P; ++q) {  // spread the pattern sums over the pattern's indicator columns
      const std::int32_t* cols = c->columns.data() + c->start[static_cast<std::size_t>(q)];
      const std::ptrdiff_t count = static_cast<std::ptrdiff_t>(c->start[static_cast<std::size_t>(q) + 1] - c->start[static_cast<std::size_t>(q)]);
      for (std::ptrdiff_t t = 0; t < count; ++t) gs[cols[t]] += out.pa[static_cast<std::size_t>(q)];
      if (!hessian) continue;
      const double cq = out.pc[static_cast<std::size_t>(q)];
      const double* v = out.pv.data() + static_cast<std::size_t>(q) * static_cast<std::size_t>(md);
      for (std::ptrdiff_t t = 0; t < count; ++t) {
        double* sd = out.sd.data() + static_cast<std::ptrdiff_t>(cols[t]) * md;
        for (std::ptrdiff_t j = 0; j < md; ++j) sd[j] += v[j];
        double* ss = out.ss.data() + static_cast<std::ptrdiff_t>(cols[t]) * ns;  // row cols[t], columns cols[u] <= cols[t]
        for (std::ptrdiff_t u = 0; u <= t; ++u) ss[cols[u]] += cq;
      }
    }
  }

 private:
  const T* X_;
  std::ptrdiff_t rs_, cs_;
  bool fit_intercept_;
  ColumnSplit split_;
  std::vector<Compact> compact_;
};

// Minimizer of ½vᵀ(H + R)v + ∇ᵀv over feasible w + v, returned as w + v. H: lower triangle of the Hessian.
VectorXd newton_target(const MatrixXd& H_lower, const VectorXd& reg, const VectorXd& w, const VectorXd& grad,
                       const double* a, double tau) {
  const Eigen::Index m = w.size();
  MatrixXd S = H_lower.selfadjointView<Eigen::Lower>();
  S.diagonal() += reg;
  // The same model in the form wᵀQw + bᵀw of minimize_quadratic: Q = ½S, b = ∇ − S w.
  const VectorXd b = grad - S * w;
  const double floor = 1e-12 * std::max(1.0, 0.5 * S.diagonal().maxCoeff());
  Eigen::LLT<MatrixXd> llt(S);
  if (llt.info() == Eigen::Success) {
    const auto L = llt.matrixL();
    double min_pivot = std::numeric_limits<double>::infinity();
    for (Eigen::Index j = 0; j < m; ++j) min_pivot = std::min(min_pivot, L(j, j) * L(j, j));
    if (0.5 * min_pivot >= floor) {
      VectorXd target = llt.solve(-b);
      if (a != nullptr) {
        const Eigen::Map<const VectorXd> av(a, m);
        const double value = av.dot(target);
        if (std::abs(value) > tau) {  // the minimizer on aᵀw = sign·tau: target − (excess / aᵀS⁻¹a)·S⁻¹a
          const VectorXd u = llt.solve(av);
          const double denom = av.dot(u);
          if (denom > 0.0) {
            target -= ((value - std::copysign(tau, value)) / denom) * u;
            target -= ((av.dot(target) - std::copysign(tau, value)) / denom) * u;  // one rounding correction
            return target;
          }
        } else {
          return target;
        }
      } else {
        return target;
      }
    }
  }
  QuadraticOptions opt;
  opt.psd = PsdRepair::Trim;
  opt.floor = floor;
  const MatrixXd Q = 0.5 * S;
  return minimize_quadratic(Q, b, opt, a, tau).w;
}

template <class Store>
class Newton {
 public:
  Newton(const Store& store, std::ptrdiff_t n, std::ptrdiff_t m, const double* y, int threads)
      : store_(store), n_(n), m_(m), y_(y), threads_(threads), parts_(static_cast<std::size_t>(threads)) {}

  // Scores z, gradient g (without the ridge) and, when hessian, H (lower triangle) at w; all in the internal order.
  void pass(const VectorXd& w, std::vector<double>& z, VectorXd& g, MatrixXd& H, bool hessian) {
    parallel_for(n_, threads_, [&](int k, std::ptrdiff_t begin, std::ptrdiff_t end) {
      store_.pass(k, begin, end, w.data(), y_, z.data(), hessian, parts_[static_cast<std::size_t>(k)]);
    });
    const int used = static_cast<int>(std::min<std::ptrdiff_t>(threads_, n_));
    g = parts_[0].g;
    for (int k = 1; k < used; ++k) g += parts_[static_cast<std::size_t>(k)].g;
    ++passes_;
    if (!hessian) return;
    const std::ptrdiff_t md = store_.split().md, ns = store_.split().ns;
    H.setZero(m_, m_);
    for (int k = 0; k < used; ++k) {
      const Partial& part = parts_[static_cast<std::size_t>(k)];
      H.topLeftCorner(md, md).triangularView<Eigen::Lower>() += part.dd;
      for (std::ptrdiff_t s = 0; s < ns; ++s) {
        for (std::ptrdiff_t j = 0; j < md; ++j) H(md + s, j) += part.sd[static_cast<std::size_t>(s * md + j)];
        for (std::ptrdiff_t t = 0; t <= s; ++t) H(md + s, md + t) += part.ss[static_cast<std::size_t>(s * ns + t)];
      }
    }
  }

  // out = (Σ_i D_i x̃_i x̃_iᵀ) v, one more pass over the rows (stores with kHessianVector only).
  void hessian_times(const std::vector<double>& D, const VectorXd& v, VectorXd& out) {
    if constexpr (Store::kHessianVector) {
      hv_parts_.resize(static_cast<std::size_t>(threads_));
      parallel_for(n_, threads_, [&](int k, std::ptrdiff_t begin, std::ptrdiff_t end) {
        VectorXd& part = hv_parts_[static_cast<std::size_t>(k)];
        part.setZero(m_);
        store_.hessian_times(begin, end, D.data(), v.data(), part.data());
      });
      const int used = static_cast<int>(std::min<std::ptrdiff_t>(threads_, n_));
      out = hv_parts_[0];
      for (int k = 1; k < used; ++k) out += hv_parts_[static_cast<std::size_t>(k)];
      ++passes_;
    } else {
      throw std::logic_error("hessian_times: this row store has no Hessian-vector product");
    }
  }

  int passes() const { return passes_; }

 private:
  const Store& store_;
  std::ptrdiff_t n_, m_;
  const double* y_;
  int threads_;
  std::vector<Partial> parts_;
  std::vector<VectorXd> hv_parts_;
  int passes_ = 0;
};

// Inexact Newton directions (issue 14; CSR rows with many non-zeros, no constraint): (H(w) + R)v = −∇L(w) is
// solved by conjugate gradients on Hessian-vector products (one sweep over the non-zeros each), preconditioned by
// the Cholesky factor of a Hessian from an earlier pass (at first the one at w = 0, XᵀX/4 + R), to the relative
// residual η_k of Eisenstat & Walker's "choice 2" (SIAM J. Sci. Comput. 17, 1996): η_1 = 1/2,
// η_k = min(1/2, 0.9 (‖∇_k‖/‖∇_{k−1}‖)²), raised to 0.9 η_{k−1}² while that exceeds 0.1, never below 1e-10. A
// solve that needs more products than a Hessian pass costs (refresh_after) has the next pass at the new iterate
// compute the Hessian too, which becomes the preconditioner. Census-style rows (34 non-zeros): 22 products in 7
// steps instead of 7 Hessian passes of Σ nnz_i²/2 pair updates each.
constexpr double kCgEtaMax = 0.5;
constexpr double kCgEtaMin = 1e-10;
constexpr int kCgMaxIter = 200;
// Rows with at least this many non-zeros on average take the inexact steps: a Hessian pass costs about nnz_i/2
// scattered updates per non-zero, a product two visits of it, and a step a few products.
constexpr double kCgMinNonzerosPerRow = 24.0;

// Products after which a solve asks for a new preconditioner: what one Hessian pass costs in products,
// Σ nnz_i²/2 pair updates against 2·Σ nnz_i visits (at least 4). Paying for a new Hessian once the old one has
// cost as much in extra products bounds the waste at about twice the better choice in hindsight.
template <class I>
int refresh_after(const I* indptr, std::ptrdiff_t n) {
  double squares = 0.0;
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    const double k = static_cast<double>(indptr[i + 1] - indptr[i]);
    squares += k * k;
  }
  const double nnz = static_cast<double>(indptr[n] - indptr[0]);
  return static_cast<int>(std::max(4.0, std::floor(squares / (4.0 * std::max(nnz, 1.0)))));
}

// Preconditioned CG for S x = b from x = 0 (S symmetric positive semi-definite, applied by `times`), until
// ‖b − Sx‖ <= eta·‖b‖, a direction of non-positive curvature, or kCgMaxIter products. Returns the products made.
template <class Times>
int preconditioned_cg(Times&& times, const Eigen::LLT<MatrixXd>& M, const VectorXd& b, double eta, VectorXd& x) {
  x.setZero(b.size());
  const double target = eta * b.norm();
  if (!(b.norm() > 0.0)) return 0;
  VectorXd r = b, z = M.solve(r), p = z, Sp(b.size());
  double rz = r.dot(z);
  for (int it = 1; it <= kCgMaxIter; ++it) {
    times(p, Sp);
    const double curvature = p.dot(Sp);
    if (!(curvature > 0.0)) return it;
    const double step = rz / curvature;
    x += step * p;
    r -= step * Sp;
    if (r.norm() <= target) return it;
    z = M.solve(r);
    const double rz_next = r.dot(z);
    p = z + (rz_next / rz) * p;
    rz = rz_next;
  }
  return kCgMaxIter;
}

// M = the Cholesky factor of a Hessian's lower triangle plus the ridge. False, leaving M as it was, when that
// matrix is not positive definite by the margin newton_target asks of a Cholesky factor.
bool factor_preconditioner(const MatrixXd& H_lower, const VectorXd& reg, Eigen::LLT<MatrixXd>& M) {
  MatrixXd S = H_lower.selfadjointView<Eigen::Lower>();
  S.diagonal() += reg;
  const double floor = 1e-12 * std::max(1.0, 0.5 * S.diagonal().maxCoeff());
  Eigen::LLT<MatrixXd> factor(S);
  if (factor.info() != Eigen::Success) return false;
  const MatrixXd& L = factor.matrixLLT();
  for (Eigen::Index j = 0; j < S.rows(); ++j) {
    if (0.5 * L(j, j) * L(j, j) < floor) return false;
  }
  M = std::move(factor);
  return true;
}

// Slope of L along v at w + t·v, from the scores at both ends of the segment (z is linear in t).
double segment_slope(double t, const std::vector<double>& z0, const std::vector<double>& z1, const double* y,
                     const VectorXd& reg, const VectorXd& w, const VectorXd& v) {
  double s = 0.0;
  const std::size_t n = z0.size();
  for (std::size_t i = 0; i < n; ++i) {
    const double dz = z1[i] - z0[i];
    s += (sigmoid(z0[i] + t * dz) - y[i]) * dz;
  }
  return s + (reg.array() * (w + t * v).array() * v.array()).sum();
}

// Bisection on the slope φ'(t) of the loss along w + t·v for c₂φ'(0) <= φ'(t) <= c₁φ'(0) (Wolfe, with Armijo
// implied by convexity); z / z_trial: the scores at t = 0 / 1. Returns t, or 0 when there is no descent along v.
double wolfe_step(const std::vector<double>& z, const std::vector<double>& z_trial, const double* y,
                  const VectorXd& reg, const VectorXd& w, const VectorXd& v, double slope0) {
  if (!(slope0 < 0.0)) return 0.0;
  double lo = 0.0, hi = 1.0;
  for (int it = 0; it < 60; ++it) {
    const double mid = 0.5 * (lo + hi);
    const double s = segment_slope(mid, z, z_trial, y, reg, w, v);
    if (s < 0.9 * slope0) {
      lo = mid;
    } else if (s > 1e-4 * slope0) {
      hi = mid;
    } else {
      return mid;
    }
  }
  return 0.0;
}

template <class Store>
LogisticNewtonResult run_newton(const Store& store, std::ptrdiff_t n, const double* y, const LogisticNewtonOptions& opt,
                                int threads, int cg_refresh = 0) {
  // Longer than 60 lines (complexity 21): the damped Newton iteration written out in order (setup, step, full-step
  // test, line search, convergence), its state (w, z, g, H and their trial twins) shared by every stage.
  const ColumnSplit& split = store.split();
  const std::ptrdiff_t m = static_cast<std::ptrdiff_t>(split.original.size());
  const std::ptrdiff_t d = opt.fit_intercept ? m - 1 : m;
  VectorXd reg(m), a(opt.constraint != nullptr ? m : 0);  // in the internal order
  for (std::ptrdiff_t k = 0; k < m; ++k) {
    reg(k) = split.original[static_cast<std::size_t>(k)] == d ? 0.0 : opt.alpha;
    if (opt.constraint != nullptr) a(k) = opt.constraint[split.original[static_cast<std::size_t>(k)]];
  }
  const double* a_ptr = opt.constraint != nullptr ? a.data() : nullptr;
  Newton<Store> newton(store, n, m, y, threads);
  VectorXd w = VectorXd::Zero(m), g(m), g_trial(m);
  MatrixXd H(m, m), H_trial(m, m);
  std::vector<double> z(static_cast<std::size_t>(n)), z_trial(static_cast<std::size_t>(n));

  newton.pass(w, z, g, H, true);
  for (std::ptrdiff_t i = 0; i < n; ++i) {  // z_i = x_iᵀ0 = 0 unless row i holds NaN or infinity
    if (z[static_cast<std::size_t>(i)] != 0.0)
      throw std::invalid_argument("X contains NaN or infinity; remove or impute those values first");
  }
  Eigen::LLT<MatrixXd> precond;  // cg_refresh > 0: inexact steps, refreshing after more products than that
  const bool inexact = cg_refresh > 0 && a_ptr == nullptr && factor_preconditioner(H, reg, precond);
  std::vector<double> curvature(inexact ? static_cast<std::size_t>(n) : 0);  // D_i = p_i(1 − p_i) at w
  double eta = kCgEtaMax, prev_grad_norm = 0.0;
  bool refresh = false;  // the next pass at a new iterate also computes the Hessian (a new preconditioner)

  LogisticNewtonResult res;
  double prev_change = std::numeric_limits<double>::infinity();
  for (int k = 1; k <= opt.max_iter; ++k) {
    res.n_iter = k;
    const VectorXd grad = g + reg.cwiseProduct(w);
    VectorXd v;
    if (inexact) {
      sigmoid_array(z.data(), curvature.data(), n);
      for (double& c : curvature) c *= 1.0 - c;
      const double grad_norm = grad.norm();
      if (k > 1) {
        const double ratio = grad_norm / prev_grad_norm, floor = 0.9 * eta * eta;
        eta = std::min(kCgEtaMax, 0.9 * ratio * ratio);
        if (floor > 0.1) eta = std::max(eta, floor);
        eta = std::max(eta, kCgEtaMin);
      }
      prev_grad_norm = grad_norm;
      auto times = [&](const VectorXd& p, VectorXd& out) {
        newton.hessian_times(curvature, p, out);
        out += reg.cwiseProduct(p);
      };
      refresh = preconditioned_cg(times, precond, -grad, eta, v) > cg_refresh;
    } else {
      v = newton_target(H, reg, w, grad, a_ptr, opt.tau) - w;
    }
    const bool hessian = !inexact || refresh;
    const double change = v.cwiseAbs().maxCoeff();
    const double bound = opt.tol * (1.0 + (w + v).cwiseAbs().maxCoeff());
    const bool quadratic = std::isfinite(prev_change) && change <= 0.1 * prev_change;
    const bool final_step =
        change <= bound || (quadratic && change * change * change <= bound * prev_change * prev_change);
    const bool last = final_step || k == opt.max_iter;
    const VectorXd trial = w + v;
    newton.pass(trial, z_trial, g_trial, H_trial, !last && hessian);
    const double slope0 = grad.dot(v), slope1 = (g_trial + reg.cwiseProduct(trial)).dot(v);
    // Full step when φ'(1) <= 0 (then L(w + v) <= L(w + tv) for t in [0, 1]), or, for a final step (quadratic
    // phase, where φ is nearly quadratic and φ(1) − φ(0) ≈ (φ'(0) + φ'(1))/2), when φ'(1) <= −φ'(0)/2: at the
    // optimum of a constrained fit, φ'(1) is rounding noise of size |ν·aᵀv|.
    if (slope1 <= 0.0 || (final_step && slope1 <= -0.5 * slope0)) {
      w = trial;
      std::swap(z, z_trial);
      std::swap(g, g_trial);
      std::swap(H, H_trial);
      if (final_step) {
        res.converged = true;
        break;
      }
      if (inexact && refresh) factor_preconditioner(H, reg, precond);  // kept as it was if H is not definite
      prev_change = change;
      continue;
    }
    const double t = wolfe_step(z, z_trial, y, reg, w, v, slope0);
    if (t == 0.0) {  // no descent along v at working precision: converged if the step was within tol
      res.converged = change <= bound;
      break;
    }
    w += t * v;
    prev_change = t * change;
    if (k < opt.max_iter) {
      newton.pass(w, z, g, H, hessian);
      if (inexact && refresh) factor_preconditioner(H, reg, precond);
    }
  }
  res.w.assign(static_cast<std::size_t>(m), 0.0);
  for (std::ptrdiff_t k = 0; k < m; ++k) res.w[static_cast<std::size_t>(split.original[static_cast<std::size_t>(k)])] = w(k);
  res.n_passes = newton.passes();
  res.indicators = store.compact();
  return res;
}

}  // namespace

namespace {

// The options and labels both entry points check (after their own shape checks).
void check_options(std::ptrdiff_t n, std::ptrdiff_t d, const double* y, const LogisticNewtonOptions& opt) {
  // Complexity 16: a flat list of independent checks, one message each.
  if (!(opt.alpha >= 0.0) || !std::isfinite(opt.alpha))
    throw std::invalid_argument("alpha must be a finite number >= 0");
  if (!(opt.tol >= 0.0) || !std::isfinite(opt.tol)) throw std::invalid_argument("tol must be a finite number >= 0");
  if (opt.max_iter < 1) throw std::invalid_argument("max_iter must be >= 1");
  if (opt.constraint != nullptr && (!(opt.tau >= 0.0) || !std::isfinite(opt.tau)))
    throw std::invalid_argument("tau must be a finite number >= 0");
  const std::ptrdiff_t m = d + (opt.fit_intercept ? 1 : 0);
  if (opt.constraint != nullptr) {
    for (std::ptrdiff_t j = 0; j < m; ++j)
      if (!std::isfinite(opt.constraint[j])) throw std::invalid_argument("the constraint vector must be finite");
  }
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    if (!(y[i] >= 0.0 && y[i] <= 1.0)) throw std::invalid_argument("y must lie in [0, 1]");
  }
}

// Dense X with wide rows that are mostly zero is fitted as CSR (issue 14): at least kCgMinNonzerosPerRow
// non-zeros per row on average, so that the CSR fit takes its inexact steps, and at most kCsrMaxDensity of all
// entries non-zero, so that the copy costs at most 0.2 times X in memory (0.15 for float64 and 32-bit indices).
// One pass counts the non-zeros of each row, a second copies them. Census-style rows (240,000 × 508, 34 non-zeros)
// held densely: the pattern path finds a pattern per row (7 exact steps) and took 0.51-0.64 s; copied to CSR,
// 0.25-0.30 s, of which the copy is ~0.1 s.
constexpr double kCsrMaxDensity = 0.1;

// Copies the non-zeros of row i of X (element strides rs, cs) to idx / val in increasing column order. With
// `slack`, idx and val may also be written one past the row's last non-zero: every entry is then stored and the
// cursor advanced only past non-zeros, with no branch to mispredict (~35 % faster on census-style rows).
template <class T, class I>
void copy_row_nonzeros(const T* X, std::ptrdiff_t i, std::ptrdiff_t d, std::ptrdiff_t rs, std::ptrdiff_t cs,
                       bool slack, I* idx, T* val) {
  const T* row = X + i * rs;
  if (!slack) {
    for (std::ptrdiff_t j = 0; j < d; ++j) {
      const T x = row[j * cs];
      if (x != T(0)) {
        *idx++ = static_cast<I>(j);
        *val++ = x;
      }
    }
    return;
  }
  std::ptrdiff_t p = 0;
  for (std::ptrdiff_t j = 0; j < d; ++j) {
    const T x = row[j * cs];
    idx[p] = static_cast<I>(j);
    val[p] = x;
    p += x != T(0);
  }
}

// Non-zeros of each row of X in [begin, end).
template <class T>
void count_nonzeros(const T* X, std::ptrdiff_t begin, std::ptrdiff_t end, std::ptrdiff_t d, std::ptrdiff_t rs,
                    std::ptrdiff_t cs, std::int64_t* counts) {
  for (std::ptrdiff_t i = begin; i < end; ++i) {
    const T* row = X + i * rs;
    std::int64_t c = 0;
    if (cs == 1) {
      for (std::ptrdiff_t j = 0; j < d; ++j) c += row[j] != T(0);
    } else {
      for (std::ptrdiff_t j = 0; j < d; ++j) c += row[j * cs] != T(0);
    }
    counts[i] = c;
  }
}

template <class T, class I>
LogisticNewtonResult fit_copied_csr(const T* X, std::ptrdiff_t n, std::ptrdiff_t d, std::ptrdiff_t rs,
                                    std::ptrdiff_t cs, const std::vector<std::int64_t>& counts, int threads,
                                    const double* y, const LogisticNewtonOptions& opt) {
  std::vector<I> indptr(static_cast<std::size_t>(n) + 1, 0);
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    indptr[static_cast<std::size_t>(i) + 1] = indptr[static_cast<std::size_t>(i)] + static_cast<I>(counts[static_cast<std::size_t>(i)]);
  }
  const std::size_t nnz = static_cast<std::size_t>(indptr.back());
  std::unique_ptr<I[]> indices(new I[nnz + 1]);  // not zeroed: every slot up to nnz is written
  std::unique_ptr<T[]> data(new T[nnz + 1]);
  parallel_for(n, threads, [&](int, std::ptrdiff_t begin, std::ptrdiff_t end) {
    // A row's slack is the next row's first slot, written later by the same thread: not so for a chunk's last row.
    for (std::ptrdiff_t i = begin; i < end; ++i) {
      const std::size_t p = static_cast<std::size_t>(indptr[static_cast<std::size_t>(i)]);
      copy_row_nonzeros(X, i, d, rs, cs, i + 1 < end, indices.get() + p, data.get() + p);
    }
  });
  CsrView<T, I> view;
  view.data = data.get();
  view.indices = indices.get();
  view.indptr = indptr.data();
  view.rows = n;
  view.cols = d;
  view.capacity = static_cast<std::ptrdiff_t>(nnz);
  view.sorted = true;
  return logistic_newton_csr(view, y, opt);
}

// The CSR fit of dense X when its rows qualify (see kCsrMaxDensity), otherwise nothing.
template <class T>
std::optional<LogisticNewtonResult> fit_as_csr(const T* X, std::ptrdiff_t n, std::ptrdiff_t d, std::ptrdiff_t rs,
                                               std::ptrdiff_t cs, const double* y, const LogisticNewtonOptions& opt) {
  if (opt.constraint != nullptr || static_cast<double>(d) * kCsrMaxDensity < kCgMinNonzerosPerRow) return std::nullopt;
  const int threads = threads_for(static_cast<double>(n) * static_cast<double>(d), kMinElementsPerThread, opt.n_threads);
  std::vector<std::int64_t> counts(static_cast<std::size_t>(n), 0);
  parallel_for(n, threads, [&](int, std::ptrdiff_t begin, std::ptrdiff_t end) {
    count_nonzeros(X, begin, end, d, rs, cs, counts.data());
  });
  double nnz = 0.0;
  for (std::int64_t c : counts) nnz += static_cast<double>(c);
  const double rows = static_cast<double>(n);
  if (nnz < kCgMinNonzerosPerRow * rows || nnz > kCsrMaxDensity * rows * static_cast<double>(d)) return std::nullopt;
  if (nnz < static_cast<double>(std::numeric_limits<std::int32_t>::max())) {
    return fit_copied_csr<T, std::int32_t>(X, n, d, rs, cs, counts, threads, y, opt);
  }
  return fit_copied_csr<T, std::int64_t>(X, n, d, rs, cs, counts, threads, y, opt);
}

}  // namespace

template <class T>
LogisticNewtonResult logistic_newton(const T* X, std::ptrdiff_t n, std::ptrdiff_t d, std::ptrdiff_t row_stride,
                                     std::ptrdiff_t col_stride, const double* y, const LogisticNewtonOptions& opt) {
  if (n < 1 || d < 1) throw std::invalid_argument("logistic_newton: X must have at least one row and one column");
  if (X == nullptr || y == nullptr) throw std::invalid_argument("logistic_newton: X and y are required");
  if (d >= std::numeric_limits<std::int32_t>::max()) throw std::invalid_argument("logistic_newton: too many columns");
  check_options(n, d, y, opt);
  if (auto fit = fit_as_csr(X, n, d, row_stride, col_stride, y, opt)) return std::move(*fit);
  const std::ptrdiff_t m = d + (opt.fit_intercept ? 1 : 0);

  const int threads = threads_for(static_cast<double>(n) * static_cast<double>(m), kMinElementsPerThread, opt.n_threads);

  std::vector<char> dense_only(static_cast<std::size_t>(d), 0);
  for (;;) {  // at most twice: a column the sample took for an indicator but holding other values becomes dense
    RowStore<T> store(X, row_stride, col_stride, opt.fit_intercept,
                      split_columns(X, n, d, row_stride, col_stride, opt.fit_intercept, dense_only), threads);
    if (store.compact()) {
      std::vector<std::vector<char>> not_binary(static_cast<std::size_t>(threads), std::vector<char>(static_cast<std::size_t>(d), 0));
      std::vector<char> ok(static_cast<std::size_t>(threads), 1);
      parallel_for(n, threads, [&](int k, std::ptrdiff_t begin, std::ptrdiff_t end) {
        ok[static_cast<std::size_t>(k)] = store.build(k, begin, end, not_binary[static_cast<std::size_t>(k)]);
      });
      if (std::find(ok.begin(), ok.end(), 0) != ok.end()) {
        for (const auto& marks : not_binary)
          for (std::ptrdiff_t j = 0; j < d; ++j) dense_only[static_cast<std::size_t>(j)] |= marks[static_cast<std::size_t>(j)];
        continue;
      }
    }
    return run_newton(store, n, y, opt, threads);
  }
}

template LogisticNewtonResult logistic_newton<float>(const float*, std::ptrdiff_t, std::ptrdiff_t, std::ptrdiff_t,
                                                     std::ptrdiff_t, const double*, const LogisticNewtonOptions&);
template LogisticNewtonResult logistic_newton<double>(const double*, std::ptrdiff_t, std::ptrdiff_t, std::ptrdiff_t,
                                                      std::ptrdiff_t, const double*, const LogisticNewtonOptions&);

// -- CSR input ---------------------------------------------------------------------------------------------------
namespace {

// Σ_{p in [lo, hi)} x[p]·v[idx[p]] (x = nullptr: all ones) with four partial sums: with one, the additions' latency
// (four cycles each), not the loads, bounds a row's dot product.
template <class T, class I, class P>
inline double sparse_dot(const T* x, const I* idx, P lo, P hi, const double* v) {
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  P p = lo;
  if (x == nullptr) {
    for (; p + 4 <= hi; p += 4) {
      s0 += v[idx[p]];
      s1 += v[idx[p + 1]];
      s2 += v[idx[p + 2]];
      s3 += v[idx[p + 3]];
    }
    for (; p < hi; ++p) s0 += v[idx[p]];
  } else {
    for (; p + 4 <= hi; p += 4) {
      s0 += static_cast<double>(x[p]) * v[idx[p]];
      s1 += static_cast<double>(x[p + 1]) * v[idx[p + 1]];
      s2 += static_cast<double>(x[p + 2]) * v[idx[p + 2]];
      s3 += static_cast<double>(x[p + 3]) * v[idx[p + 3]];
    }
    for (; p < hi; ++p) s0 += static_cast<double>(x[p]) * v[idx[p]];
  }
  return (s0 + s1) + (s2 + s3);
}

// A copy of CSR rows for Hessian-vector products, smaller than CSR when most stored values are exactly 1 (one-hot
// columns): per row the columns holding 1 (16-bit indices only) and its other non-zeros (index and value), as two
// streams. Census-style rows (30 ones, 4 other values) take 100 bytes instead of 408, which halves the time of a
// gradient pass (memory-bound on CSR). At most 65,536 columns (a Newton fit holds a d×d Hessian anyway). The
// DP-SGD loops' csr_rows::PackedRows holds the same split, laid out for scattered reads (a 64-byte aligned record
// per row, checked row by row); in its place here the census fit measured 440-490 ms against 340-445 ms
// (alternating processes): slower to build and no faster to stream.
struct SplitRows {
  using J = std::uint16_t;
  std::vector<std::int64_t> ones_start, other_start;  // n + 1 each
  std::vector<J> ones, other;
  std::vector<double> value;  // of `other`

  // From X and the number of ones of each row; rows are copied on `threads` threads.
  template <class T, class I>
  SplitRows(const CsrView<T, I>& X, const std::vector<std::int64_t>& ones_per_row, int threads)
      : ones_start(static_cast<std::size_t>(X.rows) + 1, 0), other_start(static_cast<std::size_t>(X.rows) + 1, 0) {
    for (std::ptrdiff_t i = 0; i < X.rows; ++i) {
      const std::size_t u = static_cast<std::size_t>(i);
      ones_start[u + 1] = ones_start[u] + ones_per_row[u];
      other_start[u + 1] = other_start[u] + (X.indptr[i + 1] - X.indptr[i]) - ones_per_row[u];
    }
    ones.resize(static_cast<std::size_t>(ones_start.back()));
    other.resize(static_cast<std::size_t>(other_start.back()));
    value.resize(other.size());
    parallel_for(X.rows, threads, [&](int, std::ptrdiff_t begin, std::ptrdiff_t end) {
      for (std::ptrdiff_t i = begin; i < end; ++i) {
        std::size_t o = static_cast<std::size_t>(ones_start[static_cast<std::size_t>(i)]);
        std::size_t r = static_cast<std::size_t>(other_start[static_cast<std::size_t>(i)]);
        for (I p = X.indptr[i]; p < X.indptr[i + 1]; ++p) {
          const double x = static_cast<double>(X.data[p]);
          if (x == 1.0) {
            ones[o++] = static_cast<J>(X.indices[p]);
          } else {
            other[r] = static_cast<J>(X.indices[p]);
            value[r++] = x;
          }
        }
      }
    });
  }

  double dot(std::ptrdiff_t i, const double* v) const {  // x_iᵀv
    const std::size_t u = static_cast<std::size_t>(i);
    return sparse_dot(static_cast<const double*>(nullptr), ones.data(), ones_start[u], ones_start[u + 1], v) +
           sparse_dot(value.data(), other.data(), other_start[u], other_start[u + 1], v);
  }

  void add_scaled(std::ptrdiff_t i, double t, double* out) const {  // out += t·x_i
    const std::size_t u = static_cast<std::size_t>(i);
    for (std::int64_t p = ones_start[u]; p < ones_start[u + 1]; ++p) out[ones[static_cast<std::size_t>(p)]] += t;
    for (std::int64_t p = other_start[u]; p < other_start[u + 1]; ++p) {
      out[other[static_cast<std::size_t>(p)]] += t * value[static_cast<std::size_t>(p)];
    }
  }

  // out += Σ_{i in [begin, end)} D_i (b + x_iᵀv) x_i and *bias_out += Σ D_i (b + x_iᵀv).
  void times(std::ptrdiff_t begin, std::ptrdiff_t end, const double* D, double b, const double* v, double* out,
             double* bias_out) const {
    double ob = 0.0;
    for (std::ptrdiff_t i = begin; i < end; ++i) {
      const double t = D[i] * (b + dot(i, v));
      ob += t;
      add_scaled(i, t, out);
    }
    *bias_out += ob;
  }

  // Scores z_i = b + x_iᵀv of rows [begin, end); out += Σ (σ(z_i) − y_i) x_i and *bias_out += Σ (σ(z_i) − y_i).
  void gradient(std::ptrdiff_t begin, std::ptrdiff_t end, double b, const double* v, const double* y, double* z,
                double* out, double* bias_out) const {
    constexpr std::ptrdiff_t kBlock = 1024;
    double prob[kBlock];
    double ob = 0.0;
    for (std::ptrdiff_t i0 = begin; i0 < end; i0 += kBlock) {
      const std::ptrdiff_t rows = std::min(kBlock, end - i0);
      for (std::ptrdiff_t r = 0; r < rows; ++r) z[i0 + r] = b + dot(i0 + r, v);
      sigmoid_array(z + i0, prob, rows);
      for (std::ptrdiff_t r = 0; r < rows; ++r) {
        const double a = prob[r] - y[i0 + r];
        ob += a;
        add_scaled(i0 + r, a, out);
      }
    }
    *bias_out += ob;
  }
};

// Rows of a CSR matrix for run_newton: every column is "sparse" (internal order [intercept, columns 0..d-1]), a
// row's scores are a dot product over its non-zeros, and its Hessian contributions are its non-zero pairs,
// c_i·x_ij·x_ik added at (max(j, k), min(j, k)) of the lower triangle.
template <class T, class I>
class CsrStore {
 public:
  CsrStore(const CsrView<T, I>& X, bool fit_intercept) : X_(X) {
    split_.nd = 0;
    split_.md = fit_intercept ? 1 : 0;
    split_.ns = X.cols;
    if (fit_intercept) split_.original.push_back(X.cols);
    for (std::ptrdiff_t j = 0; j < X.cols; ++j) split_.original.push_back(j);
  }

  static constexpr bool kHessianVector = true;
  const ColumnSplit& split() const { return split_; }
  bool compact() const { return false; }

  // Copies the rows for the products and gradient passes (SplitRows) when that is smaller than CSR; call before
  // run_newton.
  void prepare_products(int threads) {
    std::vector<std::int64_t> ones(static_cast<std::size_t>(X_.rows));
    parallel_for(X_.rows, threads, [&](int, std::ptrdiff_t begin, std::ptrdiff_t end) {
      for (std::ptrdiff_t i = begin; i < end; ++i) {
        std::int64_t count = 0;
        for (I p = X_.indptr[i]; p < X_.indptr[i + 1]; ++p) count += static_cast<double>(X_.data[p]) == 1.0;
        ones[static_cast<std::size_t>(i)] = count;
      }
    });
    const double nnz = static_cast<double>(X_.indptr[X_.rows]);
    double total_ones = 0.0;
    for (std::int64_t c : ones) total_ones += static_cast<double>(c);
    if (X_.cols > 65536 || 2.0 * nnz + 8.0 * (nnz - total_ones) >= nnz * static_cast<double>(sizeof(T) + sizeof(I)))
      return;
    rows_.emplace(X_, ones, threads);
  }

  // out += Σ_{i in [begin, end)} D_i x̃_i x̃_iᵀ v (internal order; out has md + ns entries): one sweep per row,
  // x̃_iᵀv over its non-zeros, then D_i·x̃_iᵀv spread back over them.
  void hessian_times(std::ptrdiff_t begin, std::ptrdiff_t end, const double* D, const double* v, double* out) const {
    const std::ptrdiff_t md = split_.md;
    const double vb = md == 1 ? v[0] : 0.0;
    const double* vs = v + md;
    double* os = out + md;
    double ob = 0.0;
    if (rows_) {
      rows_->times(begin, end, D, vb, vs, os, &ob);
      if (md == 1) out[0] += ob;
      return;
    }
    const T* data = X_.data;
    const I* idx = X_.indices;
    for (std::ptrdiff_t i = begin; i < end; ++i) {
      const I lo = X_.indptr[i], hi = X_.indptr[i + 1];
      const double t = D[i] * (vb + sparse_dot(data, idx, lo, hi, vs));
      ob += t;
      for (I p = lo; p < hi; ++p) os[idx[p]] += t * static_cast<double>(data[p]);
    }
    if (md == 1) out[0] += ob;
  }

  void pass(int, std::ptrdiff_t begin, std::ptrdiff_t end, const double* w, const double* y, double* z, bool hessian,
            Partial& out) const {
    // Complexity 18: the CSR twin of RowStore::pass — one sweep per row for score, gradient and (optionally) the
    // row's non-zero pairs of the Hessian, with the intercept and Hessian branches outside the inner loops.
    const std::ptrdiff_t md = split_.md, ns = split_.ns;
    out.g.setZero(md + ns);
    if (!hessian && rows_) {  // scores and gradient from the smaller copy of the rows
      double a_bias = 0.0;
      rows_->gradient(begin, end, md == 1 ? w[0] : 0.0, w + md, y, z, out.g.data() + md, &a_bias);
      if (md == 1) out.g[0] = a_bias;
      return;
    }
    if (hessian) {
      out.dd.setZero(md, md);
      out.sd.assign(static_cast<std::size_t>(ns * md), 0.0);
      out.ss.assign(static_cast<std::size_t>(ns * ns), 0.0);
    }
    const double bias = md == 1 ? w[0] : 0.0;
    const double* ws = w + md;
    double* g = out.g.data();
    double* gs = g + md;
    double* ss = hessian ? out.ss.data() : nullptr;
    const T* data = X_.data;
    const I* idx = X_.indices;
    constexpr std::ptrdiff_t kBlock = 1024;
    double prob[kBlock];
    double c_bias = 0.0, a_bias = 0.0;
    std::vector<double> weight(hessian ? static_cast<std::size_t>(end - begin) : 0);  // c_i of the chunk's rows
    std::vector<I> cursor;
    for (std::ptrdiff_t i0 = begin; i0 < end; i0 += kBlock) {
      const std::ptrdiff_t rows = std::min(kBlock, end - i0);
      for (std::ptrdiff_t r = 0; r < rows; ++r) {
        z[i0 + r] = bias + sparse_dot(data, idx, X_.indptr[i0 + r], X_.indptr[i0 + r + 1], ws);
      }
      sigmoid_array(z + i0, prob, rows);
      for (std::ptrdiff_t r = 0; r < rows; ++r) {
        const std::ptrdiff_t i = i0 + r;
        const double pi = prob[r];
        const double ai = pi - y[i];
        const I lo = X_.indptr[i], hi = X_.indptr[i + 1];
        a_bias += ai;
        for (I p = lo; p < hi; ++p) gs[idx[p]] += ai * static_cast<double>(data[p]);
        if (!hessian) continue;
        const double ci = pi * (1.0 - pi);
        weight[static_cast<std::size_t>(i - begin)] = ci > 0.0 ? ci : 0.0;
        if (!(ci > 0.0)) continue;
        c_bias += ci;
        if (md == 1) {
          for (I p = lo; p < hi; ++p) out.sd[static_cast<std::size_t>(idx[p])] += ci * static_cast<double>(data[p]);
        }
      }
    }
    if (hessian) add_row_pairs(X_, begin, end, weight.data(), ss, ns, cursor);
    if (md == 1) {
      g[0] = a_bias;
      if (hessian) out.dd(0, 0) = c_bias;
    }
  }

 private:
  CsrView<T, I> X_;
  ColumnSplit split_;
  std::optional<SplitRows> rows_;  // for the products and gradient passes of the inexact steps
};

}  // namespace

template <class T, class I>
LogisticNewtonResult logistic_newton_csr(const CsrView<T, I>& X, const double* y, const LogisticNewtonOptions& opt) {
  const std::ptrdiff_t n = X.rows, d = X.cols;
  if (n < 1 || d < 1) throw std::invalid_argument("logistic_newton: X must have at least one row and one column");
  if (y == nullptr) throw std::invalid_argument("logistic_newton: y is required");
  check_options(n, d, y, opt);
  const std::ptrdiff_t m = d + (opt.fit_intercept ? 1 : 0);
  // Threads: each pass costs about Σ nnz_i²/2 pair updates, and each thread zeroes and reduces an m×m accumulator.
  const double nnz = static_cast<double>(X.indptr[n]);
  const double pairs = 0.5 * nnz * (nnz / static_cast<double>(n) + 1.0) + static_cast<double>(n);
  const int threads = threads_for(pairs, 4.0 * kMinElementsPerThread + 2.0 * static_cast<double>(m) * m, opt.n_threads);
  CsrStore<T, I> store(X, opt.fit_intercept);
  const bool inexact = opt.constraint == nullptr && nnz >= kCgMinNonzerosPerRow * static_cast<double>(n);
  if (inexact) store.prepare_products(threads);
  return run_newton(store, n, y, opt, threads, inexact ? refresh_after(X.indptr, n) : 0);
}

#define DPFAIR_LOGISTIC_CSR(T, I) \
  template LogisticNewtonResult logistic_newton_csr<T, I>(const CsrView<T, I>&, const double*, const LogisticNewtonOptions&);
DPFAIR_LOGISTIC_CSR(float, std::int32_t)
DPFAIR_LOGISTIC_CSR(float, std::int64_t)
DPFAIR_LOGISTIC_CSR(double, std::int32_t)
DPFAIR_LOGISTIC_CSR(double, std::int64_t)
#undef DPFAIR_LOGISTIC_CSR

}  // namespace dpfair
