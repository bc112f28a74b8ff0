// Inverse iteration for the eigenvectors of a symmetric tridiagonal T (see tridiagonal.hpp).
//
// T is split where an off-diagonal is negligible (|e_i| <= ε(|a_i| + |a_{i+1}|)); each unreduced block has its
// eigenvalues from Eigen's implicit QR (values only, O(m²)). For an eigenvalue λ of a block, the vector solves
// (T − λI)x = x_prev a few times from a fixed pseudo-random start, with a Gaussian elimination with partial pivoting
// (tiny pivots replaced by ε‖T‖); it converges in one or two solves because λ is accurate to O(ε‖T‖). Eigenvalues
// closer than 10⁻³‖T‖ form a cluster; inside a cluster each new vector is re-orthogonalised against the earlier
// ones after every solve, and equal shifts are separated by a relative 10ε (as in LAPACK's dstein, whose cluster
// gap is 10⁻³‖T‖: that makes the noise bulk of a functional-mechanism Q one cluster of ~250 vectors, O(k²m) work).
// Two vectors of gap g computed with residual O(ε‖T‖) are orthogonal to O(ε‖T‖/g), ≤ 2·10⁻¹¹ outside a cluster.
// A cluster that reaches below the threshold is computed whole, so the kept vectors stay orthogonal to the dropped
// ones. Accepted only if every residual is O(nε‖T‖) and max |ZᵀZ − I| <= 10⁻¹⁰ over all kept vectors.
#include "dpfair/tridiagonal.hpp"

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace dpfair {

namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

constexpr double kEps = std::numeric_limits<double>::epsilon();
constexpr double kClusterGap = 1e-5;  // relative to ‖T‖
constexpr double kOrthogonality = 1e-10;  // max |ZᵀZ − I| accepted
constexpr int kSolves = 3;

// LU with partial pivoting of the m×m tridiagonal T − σI (LAPACK's dgttrf layout): L unit lower bidiagonal with
// multipliers l, U upper with diagonal u0 and super-diagonals u1, u2; swap[i] when rows i and i+1 were exchanged.
struct TridiagonalLu {
  std::vector<double> l, u0, u1, u2;
  std::vector<std::uint8_t> swap;

  void factor(const double* a, const double* e, std::ptrdiff_t m, double sigma, double tiny) {
    l.assign(m, 0.0);
    u0.resize(m);
    u1.assign(m, 0.0);
    u2.assign(m, 0.0);
    swap.assign(m, 0);
    for (std::ptrdiff_t i = 0; i < m; ++i) u0[i] = a[i] - sigma;
    for (std::ptrdiff_t i = 0; i + 1 < m; ++i) u1[i] = e[i];
    std::vector<double> below(e, e + std::max<std::ptrdiff_t>(m - 1, 0));  // the sub-diagonal still to eliminate
    for (std::ptrdiff_t i = 0; i + 1 < m; ++i) {
      if (std::abs(u0[i]) >= std::abs(below[i]) || std::abs(below[i]) < tiny) {
        if (std::abs(u0[i]) < tiny) u0[i] = std::copysign(tiny, u0[i]);
        l[i] = below[i] / u0[i];
        u0[i + 1] -= l[i] * u1[i];
      } else {
        swap[i] = 1;
        l[i] = u0[i] / below[i];
        u0[i] = below[i];
        const double old_u1 = u1[i];
        u1[i] = u0[i + 1];
        u0[i + 1] = old_u1 - l[i] * u0[i + 1];
        if (i + 2 < m) {
          u2[i] = u1[i + 1];
          u1[i + 1] = -l[i] * u1[i + 1];
        }
      }
    }
    if (m > 0 && std::abs(u0[m - 1]) < tiny) u0[m - 1] = std::copysign(tiny, u0[m - 1]);
  }

  void solve(double* x, std::ptrdiff_t m) const {
    for (std::ptrdiff_t i = 0; i + 1 < m; ++i) {
      if (swap[i]) std::swap(x[i], x[i + 1]);
      x[i + 1] -= l[i] * x[i];
    }
    for (std::ptrdiff_t i = m - 1; i >= 0; --i) {
      double v = x[i];
      if (i + 1 < m) v -= u1[i] * x[i + 1];
      if (i + 2 < m) v -= u2[i] * x[i + 2];
      x[i] = v / u0[i];
    }
  }
};

double residual_norm(const double* a, const double* e, std::ptrdiff_t m, double lambda, const double* z) {
  double sum = 0.0;
  for (std::ptrdiff_t i = 0; i < m; ++i) {
    double r = (a[i] - lambda) * z[i];
    if (i > 0) r += e[i - 1] * z[i - 1];
    if (i + 1 < m) r += e[i] * z[i + 1];
    sum += r * r;
  }
  return std::sqrt(sum);
}

// Vectors of one unreduced block (rows [s, s + m) of T) for its ascending eigenvalues lam[first..m), written into
// columns col0.. of `vectors` (rows outside the block stay zero). False when a check fails.
bool block_vectors(const double* a, const double* e, std::ptrdiff_t s, std::ptrdiff_t m, const VectorXd& lam,
                   std::ptrdiff_t first, double norm, MatrixXd& vectors, std::ptrdiff_t col0) {
  // Complexity 16: inverse iteration with the cluster bookkeeping and the two checks, kept in one loop because the
  // re-orthogonalisation must follow every solve.
  const double tiny = kEps * norm;
  const double check = 64.0 * static_cast<double>(m) * kEps;
  TridiagonalLu lu;
  std::vector<double> x(m);
  std::ptrdiff_t cluster_start = first;
  double prev_shift = -std::numeric_limits<double>::infinity();
  std::uint64_t state = 0x9e3779b97f4a7c15ULL;
  for (std::ptrdiff_t j = first; j < m; ++j) {
    if (m == 1) {  // a 1×1 block: its eigenvector is e_s
      vectors(s, col0 + j - first) = 1.0;
      continue;
    }
    if (j > first && lam(j) - lam(j - 1) >= kClusterGap * norm) cluster_start = j;
    double shift = lam(j);
    const double separation = 10.0 * kEps * std::max(std::abs(shift), norm);
    if (j > cluster_start && shift - prev_shift < separation) shift = prev_shift + separation;
    prev_shift = shift;
    lu.factor(a + s, e + s, m, shift, tiny);
    for (double& v : x) {  // xorshift start in [−1, 1): deterministic, generic
      state ^= state << 13, state ^= state >> 7, state ^= state << 17;
      v = static_cast<double>(state >> 11) * 0x1.0p-52 - 1.0;
    }
    auto z = vectors.col(col0 + j - first).segment(s, m);
    for (int solve = 0; solve < kSolves; ++solve) {
      lu.solve(x.data(), m);
      Eigen::Map<VectorXd> xv(x.data(), m);
      for (std::ptrdiff_t k = cluster_start; k < j; ++k) {
        const auto zk = vectors.col(col0 + k - first).segment(s, m);
        xv -= zk.dot(xv) * zk;
      }
      const double scale = xv.norm();
      if (!(scale > 0.0) || !std::isfinite(scale)) return false;
      xv /= scale;
    }
    z = Eigen::Map<const VectorXd>(x.data(), m);
    if (!(residual_norm(a + s, e + s, m, lam(j), x.data()) <= check * norm)) return false;
    for (std::ptrdiff_t k = cluster_start; k < j; ++k)
      if (!(std::abs(vectors.col(col0 + k - first).segment(s, m).dot(z)) <= check)) return false;
  }
  return true;
}

struct Block {
  std::ptrdiff_t start, size;
  VectorXd values;  // ascending
};

// Splits T where an off-diagonal is negligible (setting it to zero in e) and finds each block's eigenvalues.
bool unreduced_blocks(const VectorXd& diag, VectorXd& e, std::vector<Block>& blocks) {
  const std::ptrdiff_t n = diag.size();
  for (std::ptrdiff_t s = 0, i = 0; i < n; ++i) {
    if (i + 1 < n && std::abs(e(i)) > kEps * (std::abs(diag(i)) + std::abs(diag(i + 1)))) continue;
    if (i + 1 < n) e(i) = 0.0;
    Block block{s, i + 1 - s, diag.segment(s, i + 1 - s)};
    if (block.size > 1) {
      VectorXd d_block = block.values, e_block = e.segment(s, block.size - 1);
      Eigen::SelfAdjointEigenSolver<MatrixXd> qr;
      qr.computeFromTridiagonal(d_block, e_block, Eigen::EigenvaluesOnly);
      if (qr.info() != Eigen::Success) return false;
      block.values = qr.eigenvalues();
    }
    blocks.push_back(std::move(block));
    s = i + 1;
  }
  return true;
}

}  // namespace

bool tridiagonal_eigenpairs_above(const VectorXd& diag, const VectorXd& sub, double lower,
                                  TridiagonalEigenpairs& out) {
  const std::ptrdiff_t n = diag.size();
  double norm = 0.0;
  for (std::ptrdiff_t i = 0; i < n; ++i)
    norm = std::max(norm, std::abs(diag(i)) + (i > 0 ? std::abs(sub(i - 1)) : 0.0) +
                              (i + 1 < n ? std::abs(sub(i)) : 0.0));
  VectorXd e = sub;
  std::vector<Block> blocks;
  if (!unreduced_blocks(diag, e, blocks)) return false;
  // Per block, the first eigenvalue to compute: the first kept one, moved down through its cluster.
  std::vector<std::ptrdiff_t> first(blocks.size());
  std::ptrdiff_t columns = 0, kept = 0;
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    const VectorXd& lam = blocks[b].values;
    std::ptrdiff_t f = 0;
    while (f < lam.size() && lam(f) < lower) ++f;
    kept += lam.size() - f;
    while (f > 0 && f < lam.size() && lam(f) - lam(f - 1) < kClusterGap * norm) --f;
    first[b] = f;
    columns += lam.size() - f;
  }
  MatrixXd all = MatrixXd::Zero(n, columns);
  std::vector<std::pair<double, std::ptrdiff_t>> order;  // (eigenvalue, its column in `all`, or −1)
  order.reserve(static_cast<std::size_t>(n));
  std::ptrdiff_t col = 0;
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    const Block& block = blocks[b];
    if (!block_vectors(diag.data(), e.data(), block.start, block.size, block.values, first[b], std::max(norm, 1e-300),
                       all, col))
      return false;
    for (std::ptrdiff_t j = 0; j < block.size; ++j)
      order.emplace_back(block.values(j), j >= first[b] ? col + j - first[b] : -1);
    col += block.size - first[b];
  }
  if (columns > 0) {
    const MatrixXd gram = all.transpose() * all - MatrixXd::Identity(columns, columns);
    if (!(gram.cwiseAbs().maxCoeff() <= kOrthogonality)) return false;
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  out.values.resize(n);
  out.vectors.resize(n, kept);
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    out.values(i) = order[static_cast<std::size_t>(i)].first;
    if (i >= n - kept) out.vectors.col(i - (n - kept)) = all.col(order[static_cast<std::size_t>(i)].second);
  }
  return true;
}

}  // namespace dpfair
