// Exact logistic regression (ridge, optional linear constraint) by damped Newton steps, one pass over X per step.
#pragma once

#include <cstddef>
#include <vector>

namespace dpfair {

struct LogisticNewtonOptions {
  double alpha = 0.0;                  // ridge on the coefficients (never on the intercept), >= 0
  bool fit_intercept = true;
  int max_iter = 50;                   // Newton steps, >= 1
  double tol = 1e-8;                   // on the step: max|Δw| <= tol·(1 + max|w|)
  int n_threads = 0;                   // <= 0: hardware concurrency
  const double* constraint = nullptr;  // a, length d + fit_intercept, or null (no constraint)
  double tau = 0.0;                    // |aᵀw| <= tau, tau >= 0
};

struct LogisticNewtonResult {
  std::vector<double> w;  // [coef (d), intercept (if fit_intercept)]
  int n_iter = 0;         // Newton steps taken
  bool converged = false;
  int n_passes = 0;       // passes over the rows (one at the start, one per step, one more per shortened step)
  bool indicators = false;  // indicator columns were found: rows were read from the pattern copy
};

// Minimizes  L(w) = Σ_i [log(1 + e^{z_i}) − y_i z_i] + (alpha/2)‖coef‖²,  z_i = x_iᵀcoef + intercept,
// subject to |aᵀw| <= tau when a constraint is given (w = 0 is feasible, so every iterate is).
//
// Start w = 0. Step k: (z, g, H) = scores, gradient Σ(p_i − y_i)x̃_i and Hessian Σ p_i(1 − p_i)x̃_i x̃_iᵀ at w
// (x̃ = [x, 1]), all from one pass over X; the Newton model ½vᵀ(H + αI)v + ∇Lᵀv is minimized over feasible w + v
// (Cholesky, or the eigenbasis with directions below 1e-12·max(1, max diag) trimmed when Cholesky fails or is
// that ill-conditioned). One pass at w + v gives φ'(1) = ∇L(w + v)ᵀv. The full step is taken when φ'(1) <= 0 (then,
// by convexity, L(w + v) <= L(w + tv) for all t in [0, 1]), or when the step is final (below) and
// φ'(1) <= −φ'(0)/2 (quadratic phase; at a constrained optimum φ'(1) is rounding noise). Otherwise t in (0, 1) is
// found by bisection on φ' along the segment (the scores are linear in t: no extra pass) until
// c₂φ'(0) <= φ'(t) <= c₁φ'(0), c₁ = 1e-4, c₂ = 0.9 (Wolfe; Armijo follows from convexity), then one pass at
// w + tv. A step is final when max|v| <= tol·(1 + max|w + v|), or in the quadratic phase (max|v_k| <=
// 0.1·max|v_{k−1}|) when the predicted next step max|v_k|³ / max|v_{k−1}|² is that small; a final step's pass skips
// the Hessian, and taking it ends the iteration (converged). If no step length decreases L (φ'(0) >= 0 at
// working precision) the iteration stops, converged iff max|v| was within tol.
//
// X (n, d) by pointer and element strides (any layout and sign), float or double; y (n,) in [0, 1].
// Columns that hold only 0 and 1 and are mostly 0 in a sample of rows (one-hot encodings) are "indicators": the
// other columns and, per row, the index of its set of indicator columns equal to 1 (its pattern) are copied once;
// each pass then sums a row's contributions per pattern and spreads them over the pattern's columns, so the work
// per row is that of the dense columns only. Without indicator columns rows are read in place (float64 with unit
// column stride) or converted block by block. Threads split the rows. Throws std::invalid_argument on bad sizes
// or options and on NaN or infinity in X (the first pass, at w = 0, has scores exactly 0 for finite rows).
// Wide rows that are mostly zero (no constraint, at least 24 non-zeros a row on average, at most 10 % of all
// entries non-zero) are copied to CSR and fitted by logistic_newton_csr instead, with its inexact steps: a pattern
// per row, as one-hot rows with many features have, would save nothing.
template <class T>
LogisticNewtonResult logistic_newton(const T* X, std::ptrdiff_t n, std::ptrdiff_t d, std::ptrdiff_t row_stride,
                                     std::ptrdiff_t col_stride, const double* y, const LogisticNewtonOptions& options);

extern template LogisticNewtonResult logistic_newton<float>(const float*, std::ptrdiff_t, std::ptrdiff_t,
                                                            std::ptrdiff_t, std::ptrdiff_t, const double*,
                                                            const LogisticNewtonOptions&);
extern template LogisticNewtonResult logistic_newton<double>(const double*, std::ptrdiff_t, std::ptrdiff_t,
                                                             std::ptrdiff_t, std::ptrdiff_t, const double*,
                                                             const LogisticNewtonOptions&);

}  // namespace dpfair
