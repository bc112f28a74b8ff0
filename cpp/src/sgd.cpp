// dpsgd_epochs: the sequential DP-SGD loop. Per step: per-group bounds/weights (DPSGD-F: from the rows above/below
// the base bound), the weighted clipped sum, then the noisy, expected-batch-normalized update. Contiguous rows
// take a fused path (residuals and norms once per batch row, one axpy per row); other layouts call
// clip_group_gradients.
#include "dpfair/sgd.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include <Eigen/Core>

#include "dpfair/clipgrad.hpp"
#include "dpfair/logistic_row.hpp"
#include "dpfair/prefetch.hpp"
#include "dpfair/secure_noise.hpp"
#include "dpfair/sgd_step.hpp"

namespace dpfair {
namespace {

using sgd_step::require;

// Checks a batch row's index i (of n rows) and its group; returns the group.
inline std::int64_t checked_group(std::int64_t i, std::ptrdiff_t n, const std::int64_t* groups, std::ptrdiff_t n_groups) {
  require(i >= 0 && i < n, "batch_rows must index X's rows (0 .. n-1)");
  const std::int64_t k = groups[i];
  require(k >= 0 && k < n_groups, "groups must lie in 0 .. len(clip)-1");
  return k;
}

// The batch rows' indices and groups, checked (the strided path reads them in clip_group_gradients later).
void check_batch(const std::int64_t* rows, std::ptrdiff_t m, std::ptrdiff_t n, const std::int64_t* groups,
                 std::ptrdiff_t n_groups) {
  for (std::ptrdiff_t r = 0; r < m; ++r) checked_group(rows[r], n, groups, n_groups);
}

// DPSGD-F's count release: rows of each group whose unclipped gradient norm is above / at most clip[k].
template <class T>
void count_above_below(const T* X, std::ptrdiff_t n, std::ptrdiff_t d, std::ptrdiff_t rs, std::ptrdiff_t cs,
                       const double* y, const double* w, double bias, const std::int64_t* rows, std::ptrdiff_t m,
                       const std::int64_t* groups, const double* clip, std::ptrdiff_t n_groups,
                       std::vector<double>& above, std::vector<double>& below) {
  std::fill(above.begin(), above.end(), 0.0);
  std::fill(below.begin(), below.end(), 0.0);
  for (std::ptrdiff_t t = 0; t < m; ++t) {
    const std::int64_t i = rows[t];
    const std::int64_t k = checked_group(i, n, groups, n_groups);
    const T* x = X + i * rs;
    double z = bias;
    for (std::ptrdiff_t j = 0; j < d; ++j) z += static_cast<double>(x[j * cs]) * w[j];
    const double r = 0.5 * (1.0 + std::tanh(0.5 * z)) - y[i];
    // ‖r·[x, 1]‖² term by term (l2 = 0); clip_group_gradients computes |r|·sqrt(‖x‖² + 1) from another residual
    // formula, so the two can differ by rounding on a row exactly at the threshold (a count's sensitivity is 1 either
    // way).
    double sq = r * r;
    for (std::ptrdiff_t j = 0; j < d; ++j) {
      const double g = r * static_cast<double>(x[j * cs]);
      sq += g * g;
    }
    if (std::sqrt(sq) > clip[k]) {
      above[static_cast<std::size_t>(k)] += 1.0;
    } else {
      below[static_cast<std::size_t>(k)] += 1.0;
    }
  }
}

// Contiguous rows (col_stride 1): residual r_i = σ(z_i) − y_i and gradient norm |r_i|·sqrt(1 + ‖x_i‖²) of every
// batch row, with vectorized dot products; the clipped sum is then one axpy per row (no second gradient pass).
// With a center μ (nullptr: none) the rows read as x_i − μ: score wᵀx_i − μᵀw + bias, norm from ‖x_i − μ‖².
template <class T>
void residuals_and_norms(const T* X, std::ptrdiff_t n, std::ptrdiff_t d, std::ptrdiff_t rs, const double* y,
                         const double* w, double bias, const std::int64_t* rows, std::ptrdiff_t m,
                         const std::int64_t* groups, std::ptrdiff_t n_groups, const double* center,
                         std::vector<double>& resid, std::vector<double>& norm) {
  resid.resize(static_cast<std::size_t>(m));
  norm.resize(static_cast<std::size_t>(m));
  if (center != nullptr) bias -= sgd_step::center_dot(center, w, d);
  constexpr std::ptrdiff_t kRowsAhead = 4;  // batch rows are scattered over X: ask for a later row's lines now
  for (std::ptrdiff_t t = 0; t < m; ++t) {
    if (t + kRowsAhead < m && rows[t + kRowsAhead] >= 0 && rows[t + kRowsAhead] < n) {
      const std::int64_t ahead = rows[t + kRowsAhead];
      prefetch_bytes(X + ahead * rs, d * static_cast<std::ptrdiff_t>(sizeof(T)));
      prefetch(y + ahead);
      prefetch(groups + ahead);
    }
    const std::int64_t i = rows[t];
    checked_group(i, n, groups, n_groups);
    const T* x = X + i * rs;
    double z, xx;
    if constexpr (std::is_same<T, double>::value) {  // Eigen's vectorized reductions
      const Eigen::Map<const Eigen::VectorXd> xv(x, d);
      z = xv.dot(Eigen::Map<const Eigen::VectorXd>(w, d));
      xx = xv.squaredNorm();
    } else {
      row_dot_and_square<true>(x, 1, w, d, z, xx);
    }
    if (center != nullptr) {
      const Eigen::Map<const Eigen::VectorXd> mu(center, d);
      xx = (Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, 1>>(x, d).template cast<double>() - mu).squaredNorm();
    }
    z += bias;
    const double yi = y[i];
    require(std::isfinite(xx) && std::isfinite(yi), "X or y contains NaN or infinity in a batch row");
    const double r = sigmoid(z) - yi;
    resid[static_cast<std::size_t>(t)] = r;
    norm[static_cast<std::size_t>(t)] = std::abs(r) * std::sqrt(1.0 + xx);
  }
}

// visit(x_i, c_i) for every batch row whose clipped coefficient c_i (sgd_step::clipped_coef) is not 0, in batch
// order, asking for the lines of a row a few ahead (batch rows are scattered over X; residuals_and_norms checked
// their indices and groups).
template <class T, class Visit>
void for_each_clipped_row(const T* X, std::ptrdiff_t d, std::ptrdiff_t row_stride, const std::int64_t* rows,
                          std::ptrdiff_t m, const std::int64_t* groups, const std::vector<double>& weights,
                          const std::vector<double>& bounds, const std::vector<double>& resid,
                          const std::vector<double>& norm, Visit&& visit) {
  constexpr std::ptrdiff_t kRowsAhead = 4;
  for (std::ptrdiff_t r = 0; r < m; ++r) {
    if (r + kRowsAhead < m) {
      prefetch_bytes(X + rows[r + kRowsAhead] * row_stride, d * static_cast<std::ptrdiff_t>(sizeof(T)));
    }
    const std::int64_t i = rows[r];
    const double coef = sgd_step::clipped_coef(static_cast<std::size_t>(groups[i]), static_cast<std::size_t>(r),
                                               weights, bounds, resid, norm);
    if (coef != 0.0) visit(X + i * row_stride, coef);
  }
}

// Secure mode's grid for one step's release (see SgdConfig): γ = 2^(e−1), 1/γ, the row bound L in grid units and
// σ_g² = (σ·L)² as a rational rounded up.
struct SecureGrid {
  double gamma = 1.0, inv_gamma = 1.0;
  std::int64_t limit = 0;
  std::uint64_t num = 0, den = 1;
};

constexpr double kMaxRowUnits = 67108864.0;   // L <= 2^26: a row's k_j² <= 2^52, so its Σ k_j² is exact in double
constexpr double kMaxNoiseUnits = 8388608.0;  // σ·L <= 2^23: the grid noise stays below 2^24 units

SecureGrid secure_grid(double sigma, double s, double inflation, std::ptrdiff_t D) {
  const double root_d = std::sqrt(static_cast<double>(D));
  // For s/γ > 0, L = ⌈s/γ + √D/2⌉ + 1 >= ⌊√D/2⌋ + 2, reached once s/γ <= ⌊√D/2⌋ + 1 − √D/2: a σ beyond the
  // sampler's range at that L fits no grid. (At ⌈√D/2⌉ + 1 instead, an integer √D/2 let a σ just under the limit
  // run on a grid of 2^53·s, waiting for s/γ to round away.)
  require(sigma * (std::floor(0.5 * root_d) + 2.0) <= kMaxNoiseUnits,
          "secure mode: noise_multiplier·(⌊√(d+1)/2⌋ + 2) exceeds 2^23 grid units, the discrete Gaussian sampler's "
          "range; use a smaller noise_multiplier or secure=False");
  int e = 1;
  if (s > 0.0) std::frexp(inflation * s / root_d, &e);  // x = m·2^e, m in [0.5, 1): 2^(e−1) <= x, exactly
  e = std::max(e, -1020);                                // γ >= 2^-1021: 1/γ is finite
  auto limit_at = [&](int ex) { return std::ceil(std::ldexp(s, 1 - ex) + 0.5 * root_d) + 1.0; };
  while (limit_at(e) > kMaxRowUnits || sigma * limit_at(e) > kMaxNoiseUnits) ++e;
  SecureGrid g;
  g.gamma = std::ldexp(1.0, e - 1);
  g.inv_gamma = std::ldexp(1.0, 1 - e);
  g.limit = static_cast<std::int64_t>(limit_at(e));
  const double sd = sigma * static_cast<double>(g.limit);
  sigma2_upper_rational(sd * sd, g.num, g.den);  // its +1 in the last place covers sd·sd's two roundings
  return g;
}

// The batch's sum of grid vectors k_i = rint(c_i·[x_i − μ, 1]/γ), each admitted only if Σ_j k_ij² <= L², a test
// that is exact in double in any summation order: k_ij is an integer (rint by adding and subtracting 1.5·2^52,
// round-half-even like NumPy's rint, for |q| < 2^51; beyond, the square alone exceeds L²); while every |k_ij| <= L
// <= 2^26 each square (<= 2^52) and every partial sum up to 2^53 is exact, and a term or partial sum above L²
// (itself <= 2^52, exact) rounds to a value above L² and nonnegative terms keep it there.
// The admitted rows accumulate in double, exact below 2^53 (2^26 rows of at most 2^26), flushed into int64 units.
class SecureRowSum {
 public:
  SecureRowSum(const SecureGrid& g, std::ptrdiff_t width)
      : limit_(static_cast<double>(g.limit)), limit2_(limit_ * limit_), inv_gamma_(g.inv_gamma),
        q_(width), acc_(Eigen::ArrayXd::Zero(width)), units_(static_cast<std::size_t>(width), 0) {}

  // Adds row x (d values; center μ or nullptr) scaled by c; returns false, adding nothing, if the row fails.
  template <class T>
  bool add(const T* x, std::ptrdiff_t d, const double* center, double c) {
    const double scaled = c * inv_gamma_;  // exact: a power-of-two scaling, so fl(scaled·v) = fl(c·v)/γ
    double* q = q_.data();
    if (center != nullptr) {
      for (std::ptrdiff_t j = 0; j < d; ++j) q[j] = (static_cast<double>(x[j]) - center[j]) * scaled;
    } else {
      for (std::ptrdiff_t j = 0; j < d; ++j) q[j] = static_cast<double>(x[j]) * scaled;
    }
    q[d] = scaled;
    // a loop of its own: stored, each product is rounded to double first, as in the twin (in one loop, -mfma
    // builds contract the product and the rounding's addition into a fused multiply-add, which rounds the exact
    // product instead: the same guarantee, but another model from the same key than the other builds)
    for (std::ptrdiff_t j = 0; j <= d; ++j) q[j] = grid_round(q[j]);
    // four partial sums, so the loop vectorizes (any order is exact here, see above)
    double part[4] = {0.0, 0.0, 0.0, 0.0};
    const std::ptrdiff_t D = d + 1;
    std::ptrdiff_t j = 0;
    for (; j + 4 <= D; j += 4) {
      for (int l = 0; l < 4; ++l) part[l] += q[j + l] * q[j + l];
    }
    for (; j < D; ++j) part[0] += q[j] * q[j];
    if (!((part[0] + part[1]) + (part[2] + part[3]) <= limit2_)) return false;  // NaN fails; so does |k_j| > L
    double* acc = acc_.data();
    for (std::ptrdiff_t k = 0; k < D; ++k) acc[k] += q[k];
    if (++pending_ == kFlushRows) flush();
    return true;
  }

  // The integer sum of the admitted rows.
  const std::vector<std::int64_t>& units() {
    flush();
    return units_;
  }

 private:
  static constexpr std::int64_t kFlushRows = std::int64_t(1) << 26;
  // rint(q), round-half-even, for |q| < 2^51 (adding and subtracting 1.5·2^52); beyond, a value of similar size
  static double grid_round(double q) {
    constexpr double kRound = 6755399441055744.0;
    const double shifted = q + kRound;
    return shifted - kRound;
  }
  void flush() {
    for (std::size_t j = 0; j < units_.size(); ++j) {
      units_[j] += static_cast<std::int64_t>(acc_(static_cast<Eigen::Index>(j)));
    }
    acc_.setZero();
    pending_ = 0;
  }
  double limit_, limit2_, inv_gamma_;
  Eigen::ArrayXd q_, acc_;
  std::vector<std::int64_t> units_;
  std::int64_t pending_ = 0;
};

// A batch row into the secure sum as the loop adds it. Failing is unreachable for a clipped row (its norm exceeds s
// by 1e-12 at most, and rounding adds <= √D/2 units, while L >= s/γ + √D/2 + 1): a retry at a slightly smaller c,
// then the row is left out.
template <class T>
void add_or_retry(SecureRowSum& sum, const T* x, std::ptrdiff_t d, const double* center, double coef) {
  if (!sum.add(x, d, center, coef)) sum.add(x, d, center, coef * (1.0 - 0x1p-20));
}

// Releases γ·(k_j + Z_j), k_j = units_j clamped to ±2^52 grid steps (1-Lipschitz per coordinate, so no added
// sensitivity; the sum is then exact in float64), Z_j ~ N_Z(0, σ_g²).
void secure_release(ChaCha20Bits& rng, const SecureGrid& g, const std::vector<std::int64_t>& units,
                    std::vector<double>& total) {
  constexpr std::int64_t kMaxSteps = std::int64_t(1) << 52;
  for (std::size_t j = 0; j < units.size(); ++j) {
    const std::int64_t k = std::min(kMaxSteps, std::max(-kMaxSteps, units[j]));
    total[j] = static_cast<double>(k + discrete_gaussian(rng, g.num, g.den)) * g.gamma;
  }
}

}  // namespace

template <class T>
void dpsgd_epochs(const MatrixView<T>& Xv, const SgdSteps& steps, const SgdConfig& config, double* params,
                  double* step_bounds) {
  // Longer than 60 lines (complexity 24): one loop over the steps, each step in stages (bounds, clipped sum, noisy
  // update) that share its locals, with the fused/strided and secure/float branches of each stage; the stages that
  // do not depend on X's layout are in sgd_step.hpp.
  const T* X = Xv.data;
  const std::ptrdiff_t n = Xv.rows, d = Xv.cols, row_stride = Xv.row_stride, col_stride = Xv.col_stride;
  const double *y = steps.y, *clip = steps.clip, *group_weights = steps.group_weights;
  const double *learning_rates = steps.learning_rates, *grad_noise = steps.grad_noise, *count_noise = steps.count_noise;
  const std::int64_t *groups = steps.groups, *batch_rows = steps.batch_rows, *batch_offsets = steps.batch_offsets;
  const std::ptrdiff_t n_groups = steps.n_groups, n_steps = steps.n_steps;
  require(n >= 0, "dpsgd_epochs: negative size");
  // a single column's stride is never read (NumPy may give a size-1 axis any stride)
  // contiguous rows (or none): own vectorized pass; else clip_group_gradients
  const bool fused = col_stride == 1 || d <= 1 || n == 0;
  require(steps.center == nullptr || fused, "dpsgd_epochs: a center needs rows with unit column stride");
  sgd_step::check_center(steps.center, d);
  sgd_step::check_inputs(config, n_groups, clip, group_weights, count_noise != nullptr || config.secure_key != nullptr,
                         d, params, batch_offsets, n_steps, learning_rates);
  const double sigma = config.noise_multiplier;
  const double sigma_count = config.count_noise_multiplier;

  const auto K = static_cast<std::size_t>(n_groups);
  const std::ptrdiff_t width = d + 1;
  const bool clip_weights = std::isfinite(config.weight_bound) && config.weight_bound > 0.0;
  std::vector<double> sums(K * static_cast<std::size_t>(width)), total(static_cast<std::size_t>(width));
  std::vector<double> bounds(K), weights(K, 1.0), above(K), below(K), resid, norm;
  std::vector<std::int64_t> n_above(K), n_below(K);
  double* w = params;
  const bool secure = config.secure_key != nullptr;
  require(!secure || (std::isfinite(config.grid_inflation) && config.grid_inflation > 0.0),
          "grid_inflation must be a finite number > 0");
  require(!secure || fused, "dpsgd_epochs: secure mode needs rows with unit column stride");
  std::unique_ptr<ChaCha20Bits> secure_rng;
  std::uint64_t count_num = 0, count_den = 1;
  if (secure) {
    secure_rng = std::make_unique<ChaCha20Bits>(config.secure_key);
    if (sigma_count > 0.0) sigma2_upper_rational(sigma_count * sigma_count, count_num, count_den);
  }
  // Count noise of group slot j at step t: σ₁·u (float path) or an exact N_Z(0, σ₁²) draw (secure path).
  auto count_noise_at = [&](std::ptrdiff_t t, std::ptrdiff_t j, std::ptrdiff_t per_step) -> double {
    if (!secure) return sigma_count * count_noise[t * per_step + j];
    if (sigma_count == 0.0) return 0.0;
    return static_cast<double>(discrete_gaussian(*secure_rng, count_num, count_den));
  };

  for (std::ptrdiff_t t = 0; t < n_steps; ++t) {
    const std::int64_t* rows = batch_rows + batch_offsets[t];
    const std::ptrdiff_t m = static_cast<std::ptrdiff_t>(batch_offsets[t + 1] - batch_offsets[t]);

    if (clip_weights) sgd_step::clip_weights(w, d, config.weight_bound);
    if (fused) {
      residuals_and_norms(X, n, d, row_stride, y, w, params[d], rows, m, groups, n_groups, steps.center, resid,
                          norm);
    } else {
      check_batch(rows, m, n, groups, n_groups);
    }
    if (config.rule == ClipRule::dpsgdf && !fused) {
      count_above_below(X, n, d, row_stride, col_stride, y, w, params[d], rows, m, groups, clip, n_groups, above,
                        below);
    } else if (config.rule != ClipRule::fixed) {
      sgd_step::count_rows(config, rows, m, groups, clip, norm, above, below);
    }
    sgd_step::rule_bounds(config, clip, group_weights, n_groups, above, below,
                          [&](std::ptrdiff_t j, std::ptrdiff_t per_step) { return count_noise_at(t, j, per_step); },
                          bounds, weights);

    const double s_step = sgd_step::step_sensitivity(config, bounds, weights, step_bounds + static_cast<std::size_t>(t) * K);
    // total = Σ_i a_k(i) · g_i · min(1, C_k(i)/‖g_i‖) (zeroed by the previous step's update); secure mode sums each
    // row's grid vector in integers instead and releases the exact sum with its noise
    if (secure && sigma > 0.0) {
      const SecureGrid grid = secure_grid(sigma, s_step, config.grid_inflation, width);
      SecureRowSum row_sum(grid, width);
      for_each_clipped_row(X, d, row_stride, rows, m, groups, weights, bounds, resid, norm,
                           [&](const T* x, double coef) { add_or_retry(row_sum, x, d, steps.center, coef); });
      secure_release(*secure_rng, grid, row_sum.units(), total);
    } else if (fused) {
      using Row = Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, 1>>;
      Eigen::Map<Eigen::VectorXd> acc(total.data(), d);
      double acc_bias = 0.0;
      for_each_clipped_row(X, d, row_stride, rows, m, groups, weights, bounds, resid, norm,
                           [&](const T* x, double coef) {
                             acc.noalias() += coef * Row(x, d).template cast<double>();
                             acc_bias += coef;
                           });
      total[static_cast<std::size_t>(d)] = acc_bias;
      sgd_step::subtract_center(steps.center, d, total);
    } else {
      clip_group_gradients<T>(X, n, d, row_stride, col_stride, y, w, params[d], rows, m, groups, bounds.data(),
                              n_groups, std::numeric_limits<double>::quiet_NaN(), 0.0, sums.data(), n_above.data(),
                              n_below.data(), 1);
      for (std::size_t k = 0; k < K; ++k) {
        if (weights[k] == 0.0) continue;
        const double* sk = sums.data() + k * static_cast<std::size_t>(width);
        for (std::ptrdiff_t j = 0; j < width; ++j) total[static_cast<std::size_t>(j)] += weights[k] * sk[j];
      }
    }

    sgd_step::noisy_update(config, s_step, learning_rates[t], secure ? nullptr : grad_noise + t * width, d, total,
                           params);
  }
}

std::vector<std::int64_t> secure_row_units(const double* X, std::ptrdiff_t m, std::ptrdiff_t d, const double* center,
                                           const double* coef, double gamma, std::int64_t limit) {
  int e = 0;
  require(std::isfinite(gamma) && std::frexp(gamma, &e) == 0.5 && gamma >= 0x1p-1021 && gamma <= 0x1p1021,
          "gamma must be a power of two in 2^-1021 .. 2^1021 (as the loop's grids are)");
  require(limit >= 1 && static_cast<double>(limit) <= kMaxRowUnits, "limit must lie in 1 .. 2^26");
  SecureGrid g;
  g.gamma = gamma;
  g.inv_gamma = 1.0 / gamma;
  g.limit = limit;
  SecureRowSum sum(g, d + 1);
  for (std::ptrdiff_t i = 0; i < m; ++i) {
    if (coef[i] != 0.0) add_or_retry(sum, X + i * d, d, center, coef[i]);
  }
  return sum.units();
}

template void dpsgd_epochs<float>(const MatrixView<float>&, const SgdSteps&, const SgdConfig&, double*, double*);
template void dpsgd_epochs<double>(const MatrixView<double>&, const SgdSteps&, const SgdConfig&, double*, double*);

}  // namespace dpfair
