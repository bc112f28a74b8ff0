// Minimizing a noisy quadratic f(w) = wᵀHw + bᵀw, H = repair(Q) + ridge·I, optionally s.t. |aᵀw| <= tau.
// Pure C++17 on Eigen; no Python here. Bad input throws std::invalid_argument.
#pragma once

#include <Eigen/Core>
#include <string>

namespace dpfair {

// How an indefinite symmetric Q is made positive definite (eigenvalues λ_j of Q):
//   Trim:  keep the eigen-directions with λ_j >= floor and minimize in their span;
//   Shift: add s = max(0, floor − λ_min) to the diagonal;
//   Ridge: no repair; λ_min + ridge >= floor is required.
enum class PsdRepair { Trim, Shift, Ridge };

// Newton: direct (Cholesky of H, or the eigendecomposition for Trim). CG: Jacobi-preconditioned conjugate
// gradients with λ_min from Lanczos (Shift/Ridge only).
enum class QuadraticSolver { Newton, CG };

PsdRepair parse_psd_repair(const std::string& name);      // "trim" | "shift" | "ridge"
QuadraticSolver parse_quadratic_solver(const std::string& name);  // "newton" | "cg"

struct QuadraticOptions {
  double ridge = 0.0;
  PsdRepair psd = PsdRepair::Trim;
  double floor = 1e-8;
  QuadraticSolver solver = QuadraticSolver::Newton;
  double tol = 1e-10;  // CG: relative residual ‖Hw + b/2‖ / ‖b/2‖
  int max_iter = 100;  // CG: iterations per linear solve
};

struct QuadraticResult {
  Eigen::VectorXd w;
  int n_trimmed = 0;          // Trim: eigen-directions dropped
  double shift = 0.0;         // Shift: amount added to the diagonal
  double lambda_min = 0.0;    // smallest eigenvalue of Q (Lanczos estimate for CG)
  int iterations = 0;         // CG iterations over all solves (0 for Newton)
  bool converged = true;      // every CG solve reached tol
  bool constraint_active = false;
  double multiplier = 0.0;    // ν in 2Hw + b + ν a = 0 (0 when inactive)
};

// Smallest eigenvalue of a symmetric matrix by Lanczos with full reorthogonalisation, from a fixed pseudo-random
// start vector. Stops when the Ritz residual bound β_k·|s_k| is <= rel_tol·‖T_k‖ (or after min(d, max_steps)
// steps). `value` is the smallest Ritz value (>= λ_min); `lower_bound` = value − residual bound − 16ε‖T_k‖, which is
// <= λ_min whenever the converged Ritz value approximates the smallest eigenvalue (the start vector is random,
// so it has a component along that eigenvector).
struct LanczosEstimate {
  double value = 0.0;
  double lower_bound = 0.0;
  int steps = 0;
};
LanczosEstimate lanczos_smallest_eigenvalue(const Eigen::MatrixXd& S, int max_steps, double rel_tol);

// Q: d×d symmetric (the solver uses ½(Q + Qᵀ)); b: length d; a: nullptr or length d with tau >= 0.
// The inputs are read only.
QuadraticResult minimize_quadratic(const Eigen::Ref<const Eigen::MatrixXd>& Q,
                                   const Eigen::Ref<const Eigen::VectorXd>& b, const QuadraticOptions& options,
                                   const double* a, double tau);

}  // namespace dpfair
