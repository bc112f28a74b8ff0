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

// Secure mode's release of the clipped sum (see SgdConfig): sum <- γ·(rint(sum/γ) + Z), Z ~ N_Z(0, σ_g²) per
// coordinate, exact on the grid.
void secure_round_and_noise(ChaCha20Bits& rng, double sigma, double s, double inflation, std::vector<double>& sum) {
  const double root_d = std::sqrt(static_cast<double>(sum.size()));
  double gamma = 1.0;
  if (s > 0.0) {  // x = m·2^e with m in [0.5, 1): the largest power of two <= x is 2^(e−1), exactly
    int e = 0;
    std::frexp(inflation * s / root_d, &e);
    gamma = std::ldexp(1.0, e - 1);
  }
  while (sigma * (s + gamma * root_d) / gamma > 8388608.0) gamma *= 2.0;  // σ_g <= 2^23
  const double sd = sigma * (s + gamma * root_d) / gamma;
  std::uint64_t num = 0, den = 1;
  sigma2_upper_rational(sd * sd, num, den);
  constexpr double kMaxSteps = 4503599627370496.0;  // 2^52
  for (double& v : sum) {
    const double k = std::min(kMaxSteps, std::max(-kMaxSteps, std::nearbyint(v / gamma)));
    const auto released = static_cast<std::int64_t>(k) + discrete_gaussian(rng, num, den);
    v = static_cast<double>(released) * gamma;
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

    // total = Σ_i a_k(i) · g_i · min(1, C_k(i)/‖g_i‖) (zeroed by the previous step's update)
    if (fused) {
      using Row = Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, 1>>;
      Eigen::Map<Eigen::VectorXd> acc(total.data(), d);
      double acc_bias = 0.0;
      for (std::ptrdiff_t r = 0; r < m; ++r) {
        const std::int64_t i = rows[r];
        const double coef = sgd_step::clipped_coef(static_cast<std::size_t>(groups[i]), static_cast<std::size_t>(r),
                                                   weights, bounds, resid, norm);
        if (coef == 0.0) continue;
        acc.noalias() += coef * Row(X + i * row_stride, d).template cast<double>();
        acc_bias += coef;
      }
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

    const double s_step = sgd_step::step_sensitivity(config, bounds, weights, step_bounds + static_cast<std::size_t>(t) * K);
    if (secure && sigma > 0.0) secure_round_and_noise(*secure_rng, sigma, s_step, config.grid_inflation, total);
    sgd_step::noisy_update(config, s_step, learning_rates[t], secure ? nullptr : grad_noise + t * width, d, total,
                           params);
  }
}

template void dpsgd_epochs<float>(const MatrixView<float>&, const SgdSteps&, const SgdConfig&, double*, double*);
template void dpsgd_epochs<double>(const MatrixView<double>&, const SgdSteps&, const SgdConfig&, double*, double*);

}  // namespace dpfair
