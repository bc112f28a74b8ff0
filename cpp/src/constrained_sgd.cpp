// constrained_sgd_epochs: DP-SGD on the proxy Lagrangian of rate constraints (see constrained_sgd.hpp). Per step:
// scores of the batch rows, the noisy (group, event, prediction) histogram, dual ascent on the multipliers, the
// clipped per-example Lagrangian gradients, the noisy normalized update and the running average of the iterates.
#include "dpfair/constrained_sgd.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <type_traits>
#include <variant>
#include <vector>

#include "dpfair/logistic_row.hpp"
#include "dpfair/packed_csr_impl.hpp"
#include "dpfair/packed_rows.hpp"
#include "dpfair/prefetch.hpp"
#include "dpfair/sgd_step.hpp"
#include "dpfair/sparse.hpp"

namespace dpfair {
namespace {

void require(bool ok, const char* message) {
  if (!ok) throw std::invalid_argument(message);
}

bool finite_nonnegative(double v) { return std::isfinite(v) && v >= 0.0; }

// Row access of a dense strided matrix: x_i·w with ‖x_i‖² (or, given a center μ, ‖x_i − μ‖²), and total += a·x_i.
template <bool Unit, class T>
struct DenseRows {
  const T* X;
  std::ptrdiff_t rs, cs, d;
  void dot_and_square(std::int64_t i, const double* w, const double* mu, double& dot, double& sq) const {
    const T* x = X + i * rs;
    row_dot_and_square<Unit>(x, cs, w, d, dot, sq);
    if (mu == nullptr) return;
    double c = 0.0;
    for (std::ptrdiff_t j = 0; j < d; ++j) {
      const double v = static_cast<double>(x[(Unit ? j : j * cs)]) - mu[j];
      c += v * v;
    }
    sq = c;
  }
  void prefetch(std::int64_t i) const {
    if (Unit) prefetch_bytes(X + i * rs, d * static_cast<std::ptrdiff_t>(sizeof(T)));
  }
  void add_scaled(std::int64_t i, double a, double* total) const {
    const T* x = X + i * rs;
    for (std::ptrdiff_t j = 0; j < d; ++j) total[j] += a * static_cast<double>(x[(Unit ? j : j * cs)]);
  }
};

// Row access of a CSR matrix (checked by check_csr) through its packed copy (csr_rows::PackedRows: about 2 cache
// lines per one-hot row instead of ~10 scattered ones): O(nnz_i) per row.
template <class Packed>
struct PackedCsrRows {
  const Packed& X;
  // Given a center μ: ‖x_i − μ‖² = ‖x_i‖² − 2x_iᵀμ + ‖μ‖² (mu_mu = ‖μ‖², d columns), by the row's non-zeros only.
  double mu_mu = 0.0;
  std::ptrdiff_t d = 0;
  void dot_and_square(std::int64_t i, const double* w, const double* mu, double& dot, double& sq) const {
    const auto& h = X.row(i);
    csr_rows::require(h.fault == csr_rows::RowFault::none, csr_rows::fault_message(h.fault));
    double c = 0.0;
    Packed::dot_and_square(h, w, mu, dot, c, sq);
    if (mu != nullptr) sq = sgd_step::centered_square(sq, c, mu_mu, d);
  }
  void prefetch(std::int64_t i) const { X.prefetch_lines(i); }
  void add_scaled(std::int64_t i, double a, double* total) const {
    Packed::for_each(X.row(i), [&](std::ptrdiff_t j, double v) { total[j] += a * v; });
  }
};

constexpr std::int64_t kRowsAhead = 8;

// The step loop of constrained_sgd_epochs for any row access (dense or CSR); one step costs O(batch row work +
// d + K·E). Longer than 60 lines because it is the header's per-step algorithm written out in order.
template <class Rows>
void run_steps(const Rows& X, std::ptrdiff_t n, std::ptrdiff_t d, const double* y, const std::int64_t* groups,
               const std::int64_t* events, std::ptrdiff_t K, std::ptrdiff_t E, const std::int64_t* active,
               const std::int64_t* batch_rows, const std::int64_t* batch_offsets, std::ptrdiff_t n_steps,
               const double* lr, const double* grad_noise, const double* hist_noise, const ConstrainedSgdConfig& c,
               std::int64_t avg_start, double* params, double* lambdas, double* hist, double* avg,
               std::int64_t* avg_count, std::int64_t* step_index) {
  const std::ptrdiff_t width = d + 1, cells = K * E;
  const double clip = c.clip, b = c.expected_batch_size, beta = c.ema, tau = c.temperature;
  std::vector<double> z, xnorm, total(static_cast<std::size_t>(width)), coef(static_cast<std::size_t>(cells));
  std::vector<double> nke(static_cast<std::size_t>(cells)), mke(static_cast<std::size_t>(cells));
  std::vector<double> ne(static_cast<std::size_t>(E)), me(static_cast<std::size_t>(E)), mu_sum(static_cast<std::size_t>(E));
  double* lam_plus = lambdas;
  double* lam_minus = lambdas + cells;
  const double* center = c.center;
  for (std::ptrdiff_t t = 0; t < n_steps; ++t) {
    const std::int64_t begin = batch_offsets[t], end = batch_offsets[t + 1];
    const std::ptrdiff_t m = static_cast<std::ptrdiff_t>(end - begin);
    const std::int64_t* rows = batch_rows + begin;
    z.resize(static_cast<std::size_t>(m));
    xnorm.resize(static_cast<std::size_t>(m));
    // Scores and the batch histogram (raw counts into the EMA below).
    std::vector<double> counts(static_cast<std::size_t>(2 * cells), 0.0);
    const double mu_w = sgd_step::center_dot(center, params, d);
    for (std::ptrdiff_t r = 0; r < m; ++r) {
      // batch rows are scattered over X: ask for a later one's lines, label, group and event now (this step's or
      // the next's; the label/group/event loads were the loop's stalls once the rows were prefetched)
      if (begin + r + kRowsAhead < batch_offsets[n_steps]) {
        const std::int64_t ahead = batch_rows[begin + r + kRowsAhead];
        if (ahead >= 0 && ahead < n) {
          X.prefetch(ahead);
          prefetch(y + ahead);
          prefetch(groups + ahead);
          prefetch(events + ahead);
        }
      }
      const std::int64_t i = rows[r];
      require(i >= 0 && i < n, "batch_rows must index X's rows (0 .. n-1)");
      double dot, sq;
      X.dot_and_square(i, params, center, dot, sq);
      require(std::isfinite(sq), "X contains NaN or infinity in a batch row");
      z[static_cast<std::size_t>(r)] = dot - mu_w + params[d];
      xnorm[static_cast<std::size_t>(r)] = std::sqrt(1.0 + sq);
      const std::int64_t k = groups[i], e = events[i];
      require(k >= 0 && k < K && e >= 0 && e < E, "groups/events must lie in 0 .. n_groups-1 / n_events-1");
      counts[static_cast<std::size_t>((k * E + e) * 2 + (z[static_cast<std::size_t>(r)] > 0.0 ? 1 : 0))] += 1.0;
    }
    const double* u = hist_noise + t * 2 * cells;
    const std::int64_t s = *step_index + t;
    const double correction = 1.0 - std::pow(1.0 - beta, static_cast<double>(s + 1));
    for (std::ptrdiff_t j = 0; j < 2 * cells; ++j) {
      const double noisy = counts[static_cast<std::size_t>(j)] + c.hist_noise_multiplier * u[j];
      hist[j] = (1.0 - beta) * hist[j] + beta * noisy;
    }
    // Rates from the bias-corrected, clamped noisy counts (post-processing), then dual ascent.
    std::fill(ne.begin(), ne.end(), 0.0);
    std::fill(me.begin(), me.end(), 0.0);
    for (std::ptrdiff_t k = 0; k < K; ++k) {
      for (std::ptrdiff_t e = 0; e < E; ++e) {
        const std::size_t ke = static_cast<std::size_t>(k * E + e);
        const double h0 = hist[2 * ke] / correction, h1 = hist[2 * ke + 1] / correction;
        const double nn = std::max(c.count_floor, h0 + h1);
        const double mm = std::min(nn, std::max(0.0, h1));
        nke[ke] = nn;
        mke[ke] = mm;
        ne[static_cast<std::size_t>(e)] += nn;
        me[static_cast<std::size_t>(e)] += mm;
      }
    }
    std::fill(mu_sum.begin(), mu_sum.end(), 0.0);
    for (std::ptrdiff_t k = 0; k < K; ++k) {
      for (std::ptrdiff_t e = 0; e < E; ++e) {
        const std::size_t ke = static_cast<std::size_t>(k * E + e);
        if (active[e] != 0) {
          const double viol = mke[ke] / nke[ke] - me[static_cast<std::size_t>(e)] / ne[static_cast<std::size_t>(e)];
          lam_plus[ke] = std::max(0.0, lam_plus[ke] + c.dual_learning_rate * (viol - c.bound));
          lam_minus[ke] = std::max(0.0, lam_minus[ke] + c.dual_learning_rate * (-viol - c.bound));
        }
        mu_sum[static_cast<std::size_t>(e)] += (lam_plus[ke] - lam_minus[ke]) * nke[ke];
      }
    }
    for (std::ptrdiff_t k = 0; k < K; ++k) {
      for (std::ptrdiff_t e = 0; e < E; ++e) {
        const std::size_t ke = static_cast<std::size_t>(k * E + e);
        const double mu = lam_plus[ke] - lam_minus[ke];
        coef[ke] = active[e] != 0 ? mu - mu_sum[static_cast<std::size_t>(e)] / ne[static_cast<std::size_t>(e)] : 0.0;
      }
    }
    // Clipped per-example gradients of the surrogate Lagrangian.
    std::fill(total.begin(), total.end(), 0.0);
    for (std::ptrdiff_t r = 0; r < m; ++r) {
      const std::int64_t i = rows[r];
      const double zi = z[static_cast<std::size_t>(r)];
      const double yi = y[i];
      require(std::isfinite(yi), "y contains NaN or infinity in a batch row");
      const double st = sigmoid(zi / tau);
      double a = sigmoid(zi) - yi + coef[static_cast<std::size_t>(groups[i] * E + events[i])] * st * (1.0 - st) / tau;
      const double norm = std::abs(a) * xnorm[static_cast<std::size_t>(r)];
      // !(norm <= C) rather than norm > C: a NaN coefficient (a score x·w that overflowed to inf − inf in a
      // diverging run) fails every comparison and would enter the sum unclipped; it contributes 0 instead
      if (!(norm <= clip)) a = std::isfinite(norm) ? a * (clip / norm) : 0.0;
      X.add_scaled(i, a, total.data());
      total[static_cast<std::size_t>(d)] += a;
    }
    sgd_step::subtract_center(center, d, total);  // Σ a_i·[x_i − μ, 1]: the rows were summed uncentered
    const double std_dev = c.noise_multiplier > 0.0 ? c.noise_multiplier * clip : 0.0;
    const double* g = grad_noise + t * width;
    for (std::ptrdiff_t j = 0; j < width; ++j) {
      double step = (total[static_cast<std::size_t>(j)] + std_dev * g[j]) / b;
      if (j < d) step += c.l2 * params[j];
      params[j] -= lr[t] * step;
    }
    if (s >= avg_start) {
      const double w = 1.0 / static_cast<double>(++*avg_count);
      for (std::ptrdiff_t j = 0; j < width; ++j) avg[j] += w * (params[j] - avg[j]);
    }
  }
  *step_index += n_steps;
}

// Checks the sizes and values every variant needs, then runs the steps (complexity 16: a flat list of independent
// checks, one message each).
template <class Rows>
void checked_run(const Rows& X, std::ptrdiff_t n, std::ptrdiff_t d, const double* y, const std::int64_t* groups,
                 const std::int64_t* events, std::ptrdiff_t n_groups, std::ptrdiff_t n_events,
                 const std::int64_t* active, const std::int64_t* batch_rows, const std::int64_t* batch_offsets,
                 std::ptrdiff_t n_steps, const double* learning_rates, const double* grad_noise,
                 const double* hist_noise, const ConstrainedSgdConfig& config, std::int64_t avg_start, double* params,
                 double* lambdas, double* hist, double* avg, std::int64_t* avg_count, std::int64_t* step_index) {
  require(n >= 0 && d >= 0 && n_steps >= 0, "constrained_sgd_epochs: negative size");
  require(n_groups >= 1 && n_events >= 1, "n_groups and n_events must be >= 1");
  require(finite_nonnegative(config.noise_multiplier), "noise_multiplier must be a finite number >= 0");
  require(finite_nonnegative(config.hist_noise_multiplier), "hist_noise_multiplier must be a finite number >= 0");
  require(config.clip > 0.0 && !std::isnan(config.clip), "clip must be > 0 (inf: no clipping)");
  require(config.noise_multiplier == 0.0 || std::isfinite(config.clip), "clip must be finite when noise_multiplier > 0");
  require(std::isfinite(config.expected_batch_size) && config.expected_batch_size > 0.0,
          "expected_batch_size must be a finite number > 0");
  require(finite_nonnegative(config.l2), "l2 must be a finite number >= 0");
  require(finite_nonnegative(config.dual_learning_rate), "dual_learning_rate must be a finite number >= 0");
  require(finite_nonnegative(config.bound), "bound must be a finite number >= 0");
  require(std::isfinite(config.temperature) && config.temperature > 0.0, "temperature must be a finite number > 0");
  require(std::isfinite(config.ema) && config.ema > 0.0 && config.ema <= 1.0, "ema must lie in (0, 1]");
  require(std::isfinite(config.count_floor) && config.count_floor > 0.0, "count_floor must be a finite number > 0");
  require(*step_index >= 0 && *avg_count >= 0, "step_index and avg_count must be >= 0");
  sgd_step::check_center(config.center, d);
  for (std::ptrdiff_t j = 0; j <= d; ++j) require(std::isfinite(params[j]), "initial params must be finite");
  for (std::ptrdiff_t j = 0; j < 2 * n_groups * n_events; ++j) {
    require(finite_nonnegative(lambdas[j]), "lambdas must be finite numbers >= 0");
    require(std::isfinite(hist[j]), "hist must be finite");
  }
  for (std::ptrdiff_t t = 0; t < n_steps; ++t) {
    require(batch_offsets[t] >= 0 && batch_offsets[t + 1] >= batch_offsets[t], "batch_offsets must be non-decreasing");
    require(std::isfinite(learning_rates[t]), "learning_rates must be finite");
  }
  run_steps(X, n, d, y, groups, events, n_groups, n_events, active, batch_rows, batch_offsets, n_steps,
            learning_rates, grad_noise, hist_noise, config, avg_start, params, lambdas, hist, avg, avg_count,
            step_index);
}

}  // namespace

template <class T>
void constrained_sgd_epochs(const T* X, std::ptrdiff_t n, std::ptrdiff_t d, std::ptrdiff_t row_stride,
                            std::ptrdiff_t col_stride, const double* y, const std::int64_t* groups,
                            const std::int64_t* events, std::ptrdiff_t n_groups, std::ptrdiff_t n_events,
                            const std::int64_t* active, const std::int64_t* batch_rows,
                            const std::int64_t* batch_offsets, std::ptrdiff_t n_steps, const double* learning_rates,
                            const double* grad_noise, const double* hist_noise, const ConstrainedSgdConfig& config,
                            std::int64_t avg_start, double* params, double* lambdas, double* hist, double* avg,
                            std::int64_t* avg_count, std::int64_t* step_index) {
  if (col_stride == 1) {
    checked_run(DenseRows<true, T>{X, row_stride, 1, d}, n, d, y, groups, events, n_groups, n_events, active,
                batch_rows, batch_offsets, n_steps, learning_rates, grad_noise, hist_noise, config, avg_start, params,
                lambdas, hist, avg, avg_count, step_index);
  } else {
    checked_run(DenseRows<false, T>{X, row_stride, col_stride, d}, n, d, y, groups, events, n_groups, n_events,
                active, batch_rows, batch_offsets, n_steps, learning_rates, grad_noise, hist_noise, config, avg_start,
                params, lambdas, hist, avg, avg_count, step_index);
  }
}

template <class T, class I>
void constrained_sgd_epochs_csr(const CsrView<T, I>& X, const double* y, const std::int64_t* groups,
                                const std::int64_t* events, std::ptrdiff_t n_groups, std::ptrdiff_t n_events,
                                const std::int64_t* active, const std::int64_t* batch_rows,
                                const std::int64_t* batch_offsets, std::ptrdiff_t n_steps,
                                const double* learning_rates, const double* grad_noise, const double* hist_noise,
                                const ConstrainedSgdConfig& config, std::int64_t avg_start, double* params,
                                double* lambdas, double* hist, double* avg, std::int64_t* avg_count,
                                std::int64_t* step_index) {
  require(n_groups >= 1 && n_events >= 1, "n_groups and n_events must be >= 1");
  PackedCsr(X, nullptr, nullptr, n_groups)
      .constrained_sgd_epochs(y, groups, events, n_groups, n_events, active, batch_rows, batch_offsets, n_steps,
                              learning_rates, grad_noise, hist_noise, config, avg_start, params, lambdas, hist, avg,
                              avg_count, step_index);
}

void PackedCsr::constrained_sgd_epochs(const double* y, const std::int64_t* groups, const std::int64_t* events,
                                       std::ptrdiff_t n_groups, std::ptrdiff_t n_events, const std::int64_t* active,
                                       const std::int64_t* batch_rows, const std::int64_t* batch_offsets,
                                       std::ptrdiff_t n_steps, const double* learning_rates, const double* grad_noise,
                                       const double* hist_noise, const ConstrainedSgdConfig& config,
                                       std::int64_t avg_start, double* params, double* lambdas, double* hist,
                                       double* avg, std::int64_t* avg_count, std::int64_t* step_index) const {
  require(n_groups == n_groups_, "the packed rows were built for a different number of groups");
  const double mu_mu = sgd_step::center_dot(config.center, config.center, cols_);
  std::visit(
      [&](const auto& packed) {
        checked_run(PackedCsrRows<std::decay_t<decltype(packed)>>{packed, mu_mu, cols_}, rows_, cols_, y, groups,
                    events, n_groups, n_events, active, batch_rows, batch_offsets, n_steps, learning_rates,
                    grad_noise, hist_noise, config, avg_start, params, lambdas, hist, avg, avg_count, step_index);
      },
      impl_->packed);
}

#define DPFAIR_CONSTRAINED_DENSE(T)                                                                                  \
  template void constrained_sgd_epochs<T>(const T*, std::ptrdiff_t, std::ptrdiff_t, std::ptrdiff_t, std::ptrdiff_t, \
                                          const double*, const std::int64_t*, const std::int64_t*, std::ptrdiff_t,   \
                                          std::ptrdiff_t, const std::int64_t*, const std::int64_t*,                  \
                                          const std::int64_t*, std::ptrdiff_t, const double*, const double*,         \
                                          const double*, const ConstrainedSgdConfig&, std::int64_t, double*,         \
                                          double*, double*, double*, std::int64_t*, std::int64_t*);
#define DPFAIR_CONSTRAINED_CSR(T, I)                                                                                 \
  template void constrained_sgd_epochs_csr<T, I>(const CsrView<T, I>&, const double*, const std::int64_t*,          \
                                                 const std::int64_t*, std::ptrdiff_t, std::ptrdiff_t,                \
                                                 const std::int64_t*, const std::int64_t*, const std::int64_t*,      \
                                                 std::ptrdiff_t, const double*, const double*, const double*,        \
                                                 const ConstrainedSgdConfig&, std::int64_t, double*, double*,        \
                                                 double*, double*, std::int64_t*, std::int64_t*);
DPFAIR_CONSTRAINED_DENSE(float)
DPFAIR_CONSTRAINED_DENSE(double)
DPFAIR_CONSTRAINED_CSR(float, std::int32_t)
DPFAIR_CONSTRAINED_CSR(float, std::int64_t)
DPFAIR_CONSTRAINED_CSR(double, std::int32_t)
DPFAIR_CONSTRAINED_CSR(double, std::int64_t)
#undef DPFAIR_CONSTRAINED_DENSE
#undef DPFAIR_CONSTRAINED_CSR

}  // namespace dpfair
