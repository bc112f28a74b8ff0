// Eigenpairs of a symmetric tridiagonal matrix: every eigenvalue, and eigenvectors only for the eigenvalues at or
// above a threshold, by inverse iteration. Used by the psd='trim' repair, which needs the kept eigenvectors only,
// and where accumulating all of them through the implicit QR sweeps costs ~4× the rest of the solve at d ≈ 500.
// Pure C++17 on Eigen; no Python here.
#pragma once

#include <Eigen/Core>

namespace dpfair {

struct TridiagonalEigenpairs {
  Eigen::VectorXd values;   // all n eigenvalues, ascending
  Eigen::MatrixXd vectors;  // n × k, orthonormal; column j belongs to values(n − k + j), the k values >= lower
};

// T: diagonal `diag` (n), sub-diagonal `sub` (n − 1). Returns false (and leaves `out` unspecified) when the
// eigenvalue iteration does not converge or the computed vectors fail their checks (residual ‖Tz − λz‖ and, inside
// clusters of close eigenvalues, orthogonality, each against a multiple of n·ε·‖T‖); the caller then falls back to
// a full QR eigendecomposition.
bool tridiagonal_eigenpairs_above(const Eigen::VectorXd& diag, const Eigen::VectorXd& sub, double lower,
                                  TridiagonalEigenpairs& out);

}  // namespace dpfair
