// The DP-SGD training loop for a linear logistic model: many steps per call, all randomness passed in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace dpfair {

// How the per-group clip bounds C_k and weights a_k of one step are chosen (K groups, base bounds clip[k]).
enum class ClipRule : int {
  // C_k = clip[k], a_k = group_weights[k] (DP-SGD; per-group bounds and weights as given, e.g. FairDP).
  fixed = 0,
  // DPSGD-F (thesis Alg. 7): m_k / o_k = batch rows of group k with ‖g‖ > / <= clip[k]; released as
  // m̃_k = max(0, m_k + σ₁·u[k]), õ_k = max(0, o_k + σ₁·u[K+k]); b̃_k = max(1, m̃_k + õ_k); m̃ = max(1, Σ m̃_k);
  // C_k = clip[k]·(1 + (m̃_k/b̃_k)/(m̃/b)) with b the expected batch size; a_k = 1.
  dpsgdf = 1,
  // Naïve reweighting (thesis Alg. 8): b̃_k = max(1, b_k + σ₁·u[k]); a_k = (b/K)/b̃_k; C_k = clip[k].
  naive = 2,
};

// How the Gaussian noise of one step is scaled from the per-group sensitivities s_k = a_k·C_k.
enum class NoiseRule : int {
  shared = 0,     // one release of the whole sum: std σ·max_k s_k (DP-SGD, DPSGD-F, Naïve)
  per_group = 1,  // an independent release per (disjoint) group, summed: std σ·sqrt(Σ_k s_k²) (FairDP-style)
};

struct SgdConfig {
  ClipRule rule = ClipRule::fixed;
  NoiseRule noise = NoiseRule::shared;
  double noise_multiplier = 0.0;        // σ (σ₂ in the thesis), >= 0
  double count_noise_multiplier = 0.0;  // σ₁ of the count release (dpsgdf, naive), >= 0
  double expected_batch_size = 1.0;     // b = q·n, > 0: the public divisor of every step
  double l2 = 0.0;                      // ridge on w (not bias), added after privatization (data-independent)
  double weight_bound = 0.0;            // M > 0: w := w·min(1, M/‖w‖) before each step; +inf or <= 0: off
  // Secure mode (secure_key != nullptr, 32 bytes; rows with unit column stride): grad_noise / count_noise are
  // ignored; every noise value is an exact discrete Gaussian from the ChaCha20 stream of the key (secure_noise.hpp).
  // Per step, with s = the step's sensitivity (max_k s_k or sqrt(Σ s_k²)) and D = d + 1: γ = the largest power of
  // two <= grid_inflation·s/√D and L = ⌈s/γ + √D/2⌉ + 1 (γ doubled while L > 2^26 or σ·L > 2^23; refused if
  // σ·(⌊√D/2⌋ + 2) > 2^23, where no grid does). Each batch row's
  // clipped c_i·[x_i − μ, 1] is rounded to the grid, k_i = rint(c_i·[x_i − μ, 1]/γ), and enters only if ‖k_i‖² <= L²
  // in exact integer arithmetic (a clipped row has norm <= s up to rounding, so ‖k_i‖ <= s/γ + √D/2 + 1e-12 always
  // passes; a failure retries at c_i·(1 − 2^-20), then leaves the row out). The integer sum Σ k_i (clamped to ±2^52)
  // gets Z_j ~ N_Z(0, σ_g²) with σ_g² >= (σ·L)² rounded up to a rational (sigma2_upper_rational), and the step
  // releases γ·(Σ k_i + Z). Neighbouring batches' integer sums differ by one k_i, of norm <= L, exactly: no
  // floating-point rounding of the clip or of the sum enters the sensitivity. Counts (dpsgdf, naive) get N_Z(0, σ₁²)
  // with σ₁² rounded up the same way.
  const std::uint8_t* secure_key = nullptr;
  double grid_inflation = 1e-4;
};

// A dense matrix as the kernels read it: element (i, j) at data[i·row_stride + j·col_stride] (float or double;
// any strides, e.g. a transposed or sliced NumPy array). Not owned.
template <class T>
struct MatrixView {
  const T* data = nullptr;
  std::ptrdiff_t rows = 0, cols = 0, row_stride = 0, col_stride = 0;
};

// The labels, groups and whole schedule of n_steps DP-SGD steps, all randomness passed in. Not owned.
// y (n,) labels; groups (n,) in [0, K) with K = n_groups; clip (K,) base bounds > 0 (+inf = no clipping, allowed
// only when σ = 0); group_weights (K,) finite >= 0 (rule fixed only; nullptr = all 1); batch t = batch_rows[
// batch_offsets[t] .. batch_offsets[t+1]) (rows may repeat); learning_rates (n_steps,); grad_noise (n_steps, d+1)
// and count_noise (n_steps, 2K for dpsgdf, K for naive; unused for fixed) standard normals (nullptr in secure mode).
// center (d,): a fixed point μ the loop trains around (nullptr: none): every x_i reads as x_i − μ, i.e.
// g_i = (σ(wᵀ(x_i − μ) + bias) − y_i)·[x_i − μ, 1]. The dense loop takes it on rows with unit column stride only.
struct SgdSteps {
  const double* y = nullptr;
  const std::int64_t* groups = nullptr;
  std::ptrdiff_t n_groups = 1;
  const double* clip = nullptr;
  const double* group_weights = nullptr;
  const std::int64_t* batch_rows = nullptr;
  const std::int64_t* batch_offsets = nullptr;
  std::ptrdiff_t n_steps = 0;
  const double* learning_rates = nullptr;
  const double* grad_noise = nullptr;
  const double* count_noise = nullptr;
  const double* center = nullptr;
};

// Runs the n_steps steps of `steps`:
//   S = Σ_{i in batch t} a_{k(i)} · g_i · min(1, C_{k(i)}/‖g_i‖),   g_i = (σ(x_iᵀw + bias) − y_i)·[x_i, 1]
//   (x_i − μ in place of x_i with a center μ: S's first d entries are then Σ c_i x_i − (Σ c_i)·μ; a row whose
//   ‖g_i‖ is neither finite nor <= C_k, e.g. NaN from a score that overflowed, adds 0)
//   params -= lr[t] · ( (S + std_t · grad_noise[t]) / b + l2·[w, 0] )
// on params = [w (d), bias] in place. step_bounds (n_steps, K) receives s_k = a_k·C_k of every step.
// Single-threaded (steps are sequential, batches small). Rows with unit column stride take a fused vectorized
// path; other layouts call clip_group_gradients for the clipped per-group sums.
// Throws std::invalid_argument on bad sizes, indices, labels or non-finite values.
template <class T>
void dpsgd_epochs(const MatrixView<T>& X, const SgdSteps& steps, const SgdConfig& config, double* params,
                  double* step_bounds);

// The secure loop's integer row sum on its own (its admission test reachable from tests): Σ_i k_i over the rows
// i < m of X (m × d, row-major) with coef_i != 0, k_i = rint(coef_i·[x_i − μ, 1]/γ) admitted only if ‖k_i‖² <= L²
// exactly, a failing row retried at coef_i·(1 − 2^-20) and then left out. center: d values or nullptr; γ a power
// of two in 2^-1021 .. 2^1021, 1 <= L = limit <= 2^26.
std::vector<std::int64_t> secure_row_units(const double* X, std::ptrdiff_t m, std::ptrdiff_t d, const double* center,
                                           const double* coef, double gamma, std::int64_t limit);

extern template void dpsgd_epochs<float>(const MatrixView<float>&, const SgdSteps&, const SgdConfig&, double*,
                                         double*);
extern template void dpsgd_epochs<double>(const MatrixView<double>&, const SgdSteps&, const SgdConfig&, double*,
                                          double*);

}  // namespace dpfair
