#include "dpfair/pld.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace dpfair {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kMaxExp = 700.0;  // below log(DBL_MAX) ≈ 709.78, as in accountants/pld.py

// NumPy's minimum / maximum: NaN in either argument gives NaN.
double nan_min(double a, double b) { return (std::isnan(a) || std::isnan(b)) ? kNaN : (b < a ? b : a); }
double nan_max(double a, double b) { return (std::isnan(a) || std::isnan(b)) ? kNaN : (b > a ? b : a); }

// np.minimum.accumulate(np.clip(g, 0, 1))
std::vector<double> clipped_running_min(const double* g, std::ptrdiff_t m) {
  std::vector<double> out(static_cast<std::size_t>(m));
  for (std::ptrdiff_t i = 0; i < m; ++i) {
    const double v = nan_min(nan_max(g[i], 0.0), 1.0);
    out[i] = i == 0 ? v : nan_min(out[i - 1], v);
  }
  return out;
}

}  // namespace

double pld_connect_the_dots(const double* u, const double* gp, const double* gq, double* pmf, std::ptrdiff_t m) {
  if (m <= 0) return 0.0;
  const std::vector<double> p = clipped_running_min(gp, m);
  const std::vector<double> q = clipped_running_min(gq, m);
  std::fill(pmf, pmf + m, 0.0);
  for (std::ptrdiff_t i = 0; i + 1 < m; ++i) {
    const double u_lo = u[i], u_hi = u[i + 1];
    const double p_b = p[i] - p[i + 1];
    const double q_b = q[i] - q[i + 1];
    double a = (p_b - u_lo * q_b) / (u_hi - u_lo);  // Q-mass moved to the bucket's top
    if (!std::isfinite(a)) a = 0.0;
    a = nan_min(nan_max(a, 0.0), q_b);
    double upper = u_hi * a;
    double lower = nan_max(p_b - upper, 0.0);
    if (q_b <= 0.0) {  // no Q-mass left (underflow): the P-mass goes to the top (rounded up)
      upper = p_b;
      lower = 0.0;
    }
    pmf[i + 1] += upper;
    pmf[i] += lower;
  }
  pmf[0] += 1.0 - p[0];
  return p[m - 1];
}

double pld_epsilon_for_delta(const double* pmf, std::ptrdiff_t n, std::int64_t offset, double h, double p_inf,
                             double delta) {
  const double inf = std::numeric_limits<double>::infinity();
  if (p_inf > delta) return inf;
  std::ptrdiff_t first = 0;  // the losses are increasing: those > 0 are a suffix
  // the loss index offset + j in double: exact below 2^53, and no int64 overflow for offsets near ±2^63
  const double base = static_cast<double>(offset);
  while (first < n && !((base + static_cast<double>(first)) * h > 0.0)) ++first;
  const std::ptrdiff_t m = n - first;
  if (m == 0) return 0.0;
  std::vector<double> eps(m), s1(m), s2(m);  // s1[k] = Σ_{j>=k} p_j, s2[k] = Σ_{j>=k} p_j e^{−ε_j}
  for (std::ptrdiff_t k = 0; k < m; ++k) eps[k] = (base + static_cast<double>(first + k)) * h;
  double acc1 = 0.0, acc2 = 0.0;
  for (std::ptrdiff_t k = m - 1; k >= 0; --k) {
    const double p = pmf[first + k];
    acc1 += p;
    acc2 += p * std::exp(-eps[k]);
    s1[k] = acc1;
    s2[k] = acc2;
  }
  if (p_inf + s1[0] - s2[0] <= delta) return 0.0;
  // the first grid loss whose δ (only j > k contribute) meets delta; past ε ≈ 700 δ is not computable this way
  // and such a point is never taken
  std::ptrdiff_t k = -1;
  bool all_computable = true;
  for (std::ptrdiff_t j = 0; j < m; ++j) {
    const bool computable = eps[j] < kMaxExp;
    all_computable = all_computable && computable;
    const double s1n = j + 1 < m ? s1[j + 1] : 0.0;
    const double s2n = j + 1 < m ? s2[j + 1] : 0.0;
    if (computable && p_inf + s1n - std::exp(std::min(eps[j], kMaxExp)) * s2n <= delta) {
      k = j;
      break;
    }
  }
  if (k < 0) {  // the scan saw every point
    if (!all_computable) return inf;
    k = m - 1;
  }
  // ε lies in [ε_{k−1}, ε_k] (ε_{−1} := 0), where δ(ε) = p_inf + S1[k] − e^ε S2[k]
  const double num = p_inf + s1[k] - delta;
  if (s2[k] <= 0.0 || num <= 0.0) return eps[k];
  const double val = std::log(num / s2[k]);
  const double lo = k > 0 ? eps[k - 1] : 0.0;
  return std::min(std::max(val, lo), eps[k]);
}

}  // namespace dpfair
