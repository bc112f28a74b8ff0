// Fairness-constrained DP-SGD for a linear logistic model (rate-constrained Lagrangian, proxy-Lagrangian dual
// ascent on privately released per-group prediction counts). All randomness is passed in.
#pragma once

#include <cstddef>
#include <cstdint>

#include "dpfair/sparse.hpp"

namespace dpfair {

struct ConstrainedSgdConfig {
  double noise_multiplier = 0.0;       // σ_g of the gradient sum (std σ_g·clip), >= 0
  double hist_noise_multiplier = 0.0;  // σ_h of each histogram cell (sensitivity 1), >= 0
  double clip = 1.0;                   // C > 0 (+inf only when σ_g = 0)
  double expected_batch_size = 1.0;    // b = q·ñ > 0, the public divisor
  double l2 = 0.0;                     // ridge on w (not the bias), added after the noise
  double dual_learning_rate = 0.0;     // η_λ >= 0
  double bound = 0.0;                  // constraint slack ε_c >= 0 of every |r_{k,e} − r_e| <= ε_c
  double temperature = 1.0;            // τ > 0 of the surrogate rate σ(z/τ)
  double ema = 1.0;                    // β in (0, 1]: weight of the newest noisy histogram
  double count_floor = 1.0;            // > 0: noisy counts are read as max(count, floor) (post-processing)
  // (d,) a fixed point μ the steps train around, or nullptr: every x_i reads as x_i − μ (scores wᵀ(x_i − μ) + bias,
  // gradients a_i·[x_i − μ, 1]). Not owned.
  const double* center = nullptr;
};

// Runs n_steps steps on params = [w (d), bias]. Histogram cells (K groups, E events, 2 predictions): record i
// falls in cell (groups[i], events[i], [z_i > 0]). Per step t with batch B_t = batch_rows[offsets[t]..offsets[t+1]):
//   H_t[k,e,p] = #{i in B_t in cell (k,e,p)} + σ_h·hist_noise[t, (k·E + e)·2 + p]
//   Hbar := (1 − β)·Hbar + β·H_t; Ĥ = Hbar / (1 − (1 − β)^(s+1)) with s = step_index[0] + t (bias-corrected EMA)
//   n_ke = max(floor, Ĥ[k,e,0] + Ĥ[k,e,1]), m_ke = min(n_ke, max(0, Ĥ[k,e,1])), r_ke = m_ke/n_ke,
//   r_e = Σ_k m_ke / Σ_k n_ke, c_ke = r_ke − r_e
//   for active events e: λ⁺_ke := max(0, λ⁺_ke + η_λ(c_ke − bound)), λ⁻_ke := max(0, λ⁻_ke + η_λ(−c_ke − bound))
//   μ_ke = λ⁺_ke − λ⁻_ke; coefficient κ_ke = μ_ke − Σ_j μ_je·n_je/n_e  (n_e = Σ_k n_ke; 0 for inactive events)
//   a_i = σ(z_i) − y_i + κ_{k(i),e(i)}·σ'(z_i/τ)/τ,  g_i = a_i·[x_i, 1] clipped to norm C (0 when its norm is
//   neither finite nor <= C: a NaN a_i from a score that overflowed to inf − inf)
//   params -= lr[t]·((Σ g_i + σ_g·C·grad_noise[t]) / b + l2·[w, 0])
//   from global step avg_start on: avg := running mean of params (avg_count updated)
// lambdas (2, K, E) [λ⁺ then λ⁻], hist (K, E, 2) = Hbar, avg (d+1), avg_count, step_index: state carried across
// calls, updated in place. active (E,) 0/1. Throws std::invalid_argument on bad sizes, indices or values.
template <class T>
void constrained_sgd_epochs(const T* X, std::ptrdiff_t n, std::ptrdiff_t d, std::ptrdiff_t row_stride,
                            std::ptrdiff_t col_stride, const double* y, const std::int64_t* groups,
                            const std::int64_t* events, std::ptrdiff_t n_groups, std::ptrdiff_t n_events,
                            const std::int64_t* active, const std::int64_t* batch_rows,
                            const std::int64_t* batch_offsets, std::ptrdiff_t n_steps, const double* learning_rates,
                            const double* grad_noise, const double* hist_noise, const ConstrainedSgdConfig& config,
                            std::int64_t avg_start, double* params, double* lambdas, double* hist, double* avg,
                            std::int64_t* avg_count, std::int64_t* step_index);

// The same steps on a CSR matrix (checked by check_csr): per step O(batch non-zeros + d + K·E) — scores by sparse
// dot products, the clipped gradients summed into the dense (d + 1)-vector at the batch's non-zeros, the dense
// noise added once. Same iterates as the dense version up to float summation order.
template <class T, class I>
void constrained_sgd_epochs_csr(const CsrView<T, I>& X, const double* y, const std::int64_t* groups,
                                const std::int64_t* events, std::ptrdiff_t n_groups, std::ptrdiff_t n_events,
                                const std::int64_t* active, const std::int64_t* batch_rows,
                                const std::int64_t* batch_offsets, std::ptrdiff_t n_steps,
                                const double* learning_rates, const double* grad_noise, const double* hist_noise,
                                const ConstrainedSgdConfig& config, std::int64_t avg_start, double* params,
                                double* lambdas, double* hist, double* avg, std::int64_t* avg_count,
                                std::int64_t* step_index);

}  // namespace dpfair
