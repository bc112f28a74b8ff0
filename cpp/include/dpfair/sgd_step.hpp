// The parts of one DP-SGD step that do not depend on how X is stored, shared by dpsgd_epochs (dense, sgd.cpp) and
// dpsgd_epochs_csr (sparse.cpp): the argument checks, weight clipping, the per-rule clip bounds and weights, and the
// step's sensitivity. Internal to the core (not part of the public C++ API).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "dpfair/sgd.hpp"

namespace dpfair {
namespace sgd_step {

inline void require(bool ok, const char* message) {
  if (!ok) throw std::invalid_argument(message);
}

inline bool finite_nonnegative(double v) { return std::isfinite(v) && v >= 0.0; }

// The checks of SgdConfig, clip, group_weights, the start point (d + 1 params) and the step schedule that both loops
// make before their first step. `has_count_noise`: count noise is available (passed in, or drawn in secure mode).
inline void check_inputs(const SgdConfig& config, std::ptrdiff_t n_groups, const double* clip,
                         const double* group_weights, bool has_count_noise, std::ptrdiff_t d, const double* params,
                         const std::int64_t* batch_offsets, std::ptrdiff_t n_steps, const double* learning_rates) {
  require(d >= 0 && n_steps >= 0, "dpsgd_epochs: negative size");
  require(n_groups >= 1, "clip must hold at least one bound (one per group)");
  const double sigma = config.noise_multiplier;
  require(finite_nonnegative(sigma), "noise_multiplier must be a finite number >= 0");
  require(finite_nonnegative(config.count_noise_multiplier), "count_noise_multiplier must be a finite number >= 0");
  require(std::isfinite(config.expected_batch_size) && config.expected_batch_size > 0.0,
          "expected_batch_size must be a finite number > 0");
  require(finite_nonnegative(config.l2), "l2 must be a finite number >= 0");
  require(!std::isnan(config.weight_bound), "weight_bound must be a number (inf or <= 0: off)");
  const bool rule_ok = config.rule == ClipRule::fixed || config.rule == ClipRule::dpsgdf || config.rule == ClipRule::naive;
  require(rule_ok, "unknown clip rule");
  require(config.noise == NoiseRule::shared || config.noise == NoiseRule::per_group, "unknown noise rule");
  for (std::ptrdiff_t k = 0; k < n_groups; ++k) {
    require(clip[k] > 0.0, "clip bounds must be > 0 (inf: no clipping)");
    require(sigma == 0.0 || std::isfinite(clip[k]), "clip bounds must be finite when noise_multiplier > 0");
    if (config.rule == ClipRule::fixed && group_weights != nullptr) {
      require(finite_nonnegative(group_weights[k]), "group_weights must be finite numbers >= 0");
    }
  }
  require(config.rule == ClipRule::fixed || has_count_noise, "count_noise is required for rules dpsgdf/naive");
  for (std::ptrdiff_t j = 0; j <= d; ++j) require(std::isfinite(params[j]), "initial params must be finite");
  for (std::ptrdiff_t t = 0; t < n_steps; ++t) {
    require(batch_offsets[t] >= 0 && batch_offsets[t + 1] >= batch_offsets[t], "batch_offsets must be non-decreasing");
    require(std::isfinite(learning_rates[t]), "learning_rates must be finite");
  }
}

inline void check_center(const double* center, std::ptrdiff_t d) {
  if (center == nullptr) return;
  for (std::ptrdiff_t j = 0; j < d; ++j) require(std::isfinite(center[j]), "center must be finite");
}

// With a center μ (SgdSteps::center; nullptr: none): μᵀw, the offset of every score wᵀ(x_i − μ) = wᵀx_i − μᵀw.
inline double center_dot(const double* center, const double* w, std::ptrdiff_t d) {
  double s = 0.0;
  if (center != nullptr) {
    for (std::ptrdiff_t j = 0; j < d; ++j) s += center[j] * w[j];
  }
  return s;
}

// ‖x − μ‖² from ‖x‖², xᵀμ and ‖μ‖² (for rows read by their non-zeros only), never below the exact value: the
// three-term form cancels when x ≈ μ, and an underestimate would let the row escape its clip. Each of ‖x‖², xᵀμ and
// ‖μ‖² is a sum of at most d products, so each is within γ_d = d·u/(1 − d·u) (u = ε_mach/2) of its exact value times
// the sum of its terms' magnitudes (|xᵀμ|'s is at most (‖x‖² + ‖μ‖²)/2); with the two roundings of the combination
// the result is within (d + 2)·ε_mach·(‖x‖² + ‖μ‖²) to first order. Adding (d + 4)·ε_mach·(‖x‖² + ‖μ‖²) only clips
// more (relative 1e-13 for d = 500 and |μ_j| <= 1).
inline double centered_square(double xx, double x_mu, double mu_mu, std::ptrdiff_t d) {
  const double slack = static_cast<double>(d + 4) * std::numeric_limits<double>::epsilon() * (xx + mu_mu);
  return std::max(0.0, xx - 2.0 * x_mu + mu_mu) + slack;
}

// With a center μ the sum of the clipped c_i·[x_i, 1] becomes Σ c_i·[x_i − μ, 1]: subtract (Σ c_i)·μ, Σ c_i being
// the sum's last (bias) entry. O(d) per step.
inline void subtract_center(const double* center, std::ptrdiff_t d, std::vector<double>& total) {
  if (center == nullptr) return;
  const double c = total[static_cast<std::size_t>(d)];
  for (std::ptrdiff_t j = 0; j < d; ++j) total[static_cast<std::size_t>(j)] -= c * center[j];
}

// FairDP Alg. 1 line 4: w := w·min(1, M/‖w‖) (the bias is not part of w here).
inline void clip_weights(double* w, std::ptrdiff_t d, double bound) {
  double sq = 0.0;
  for (std::ptrdiff_t j = 0; j < d; ++j) sq += w[j] * w[j];
  const double nw = std::sqrt(sq);
  if (nw > bound) {
    const double s = bound / nw;
    for (std::ptrdiff_t j = 0; j < d; ++j) w[j] *= s;
  }
}

// The step's per-group bounds C_k and weights a_k (SgdConfig's rules; K = clip's length). On entry, for dpsgdf:
// above/below = the batch rows of each group whose unclipped norm is > / <= clip[k]; for naive: above = the batch
// rows of each group. count_noise(j, per_step) is the noise of count slot j (σ₁·u or an exact draw), asked for in
// the stream order: dpsgdf the K "above" slots then the K "below" slots, naive the K slots.
template <class CountNoise>
void rule_bounds(const SgdConfig& config, const double* clip, const double* group_weights, std::ptrdiff_t n_groups,
                 std::vector<double>& above, std::vector<double>& below, CountNoise&& count_noise,
                 std::vector<double>& bounds, std::vector<double>& weights) {
  const auto K = static_cast<std::size_t>(n_groups);
  const double b = config.expected_batch_size;
  switch (config.rule) {
    case ClipRule::fixed:
      for (std::size_t k = 0; k < K; ++k) {
        bounds[k] = clip[k];
        weights[k] = group_weights ? group_weights[k] : 1.0;
      }
      break;
    case ClipRule::dpsgdf: {
      double m_total = 0.0;
      for (std::size_t k = 0; k < K; ++k) {
        above[k] = std::max(0.0, above[k] + count_noise(static_cast<std::ptrdiff_t>(k), 2 * n_groups));
      }
      for (std::size_t k = 0; k < K; ++k) {
        below[k] = std::max(0.0, below[k] + count_noise(n_groups + static_cast<std::ptrdiff_t>(k), 2 * n_groups));
        m_total += above[k];
      }
      m_total = std::max(1.0, m_total);
      for (std::size_t k = 0; k < K; ++k) {
        const double b_k = std::max(1.0, above[k] + below[k]);
        bounds[k] = clip[k] * (1.0 + (above[k] / b_k) / (m_total / b));
        weights[k] = 1.0;
      }
      break;
    }
    case ClipRule::naive:
      for (std::size_t k = 0; k < K; ++k) {
        const double b_k = std::max(1.0, above[k] + count_noise(static_cast<std::ptrdiff_t>(k), n_groups));
        weights[k] = (b / static_cast<double>(n_groups)) / b_k;
        bounds[k] = clip[k];
      }
      break;
  }
}

// above/below for rule_bounds from the batch rows' unclipped norms (norm[r] of batch row rows[r]); for naive only
// the counts per group (in above).
inline void count_rows(const SgdConfig& config, const std::int64_t* rows, std::ptrdiff_t m,
                       const std::int64_t* groups, const double* clip, const std::vector<double>& norm,
                       std::vector<double>& above, std::vector<double>& below) {
  std::fill(above.begin(), above.end(), 0.0);
  std::fill(below.begin(), below.end(), 0.0);
  for (std::ptrdiff_t r = 0; r < m; ++r) {
    const auto k = static_cast<std::size_t>(groups[rows[r]]);
    if (config.rule == ClipRule::naive || norm[static_cast<std::size_t>(r)] > clip[k]) {
      above[k] += 1.0;
    } else {
      below[k] += 1.0;
    }
  }
}

// The coefficient of batch row r's [x_i, 1] in the step's sum: a_k·r_i·min(1, C_k/‖g_i‖) (0 when a_k = 0, and 0
// when ‖g_i‖ is not finite and not <= C_k: a NaN residual, from a score x·w that overflowed to inf − inf in a
// diverging run, fails ‖g_i‖ > C_k and would otherwise enter the sum unclipped).
inline double clipped_coef(std::size_t k, std::size_t r, const std::vector<double>& weights,
                           const std::vector<double>& bounds, const std::vector<double>& resid,
                           const std::vector<double>& norm) {
  if (weights[k] == 0.0) return 0.0;
  if (!(norm[r] <= bounds[k]) && !std::isfinite(norm[r])) return 0.0;
  const double scale = norm[r] > bounds[k] ? bounds[k] / norm[r] : 1.0;
  return weights[k] * resid[r] * scale;
}

// The step's group sensitivities s_k = a_k·C_k (written to step_bounds, K values) and the sensitivity of the
// released sum: max_k s_k (one shared release) or sqrt(Σ_k s_k²) (one release per disjoint group).
inline double step_sensitivity(const SgdConfig& config, const std::vector<double>& bounds,
                               const std::vector<double>& weights, double* step_bounds) {
  double s_max = 0.0, s_sq = 0.0;
  for (std::size_t k = 0; k < bounds.size(); ++k) {
    const double s = weights[k] == 0.0 ? 0.0 : weights[k] * bounds[k];
    step_bounds[k] = s;
    s_max = std::max(s_max, s);
    s_sq += s * s;
  }
  return config.noise == NoiseRule::shared ? s_max : std::sqrt(s_sq);
}

// The step's update params -= lr·((S + std·z)/b + l2·[w, 0]) with S = total (d + 1 values), std = σ·s_step and z
// the step's d + 1 standard normals (nullptr: S already holds its noise, as secure mode releases it); total is
// zeroed for the next step.
inline void noisy_update(const SgdConfig& config, double s_step, double lr, const double* z, std::ptrdiff_t d,
                         std::vector<double>& total, double* params) {
  const double std_dev = config.noise_multiplier > 0.0 ? config.noise_multiplier * s_step : 0.0;
  const double b = config.expected_batch_size;
  for (std::ptrdiff_t j = 0; j <= d; ++j) {
    double& s = total[static_cast<std::size_t>(j)];
    double g = (z != nullptr ? s + std_dev * z[j] : s) / b;
    if (j < d) g += config.l2 * params[j];
    params[j] -= lr * g;
    s = 0.0;
  }
}

}  // namespace sgd_step
}  // namespace dpfair
