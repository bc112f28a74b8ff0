// Minimizer of wᵀHw + bᵀw with H = repair(Q) + ridge·I (see quadratic.hpp). The math follows the NumPy
// reference `_reference.minimize_quadratic`; the gradient is 2Hw + b, so the unconstrained minimizer solves
// H w = −b/2, and with the bound aᵀw = target it is w = w0 − (ν/2) H⁻¹a, ν = 2(aᵀw0 − target) / aᵀH⁻¹a.
#include "dpfair/quadratic.hpp"

#include "dpfair/tridiagonal.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

namespace dpfair {

PsdRepair parse_psd_repair(const std::string& name) {
  if (name == "trim") return PsdRepair::Trim;
  if (name == "shift") return PsdRepair::Shift;
  if (name == "ridge") return PsdRepair::Ridge;
  throw std::invalid_argument("psd must be one of ('trim', 'ridge', 'shift'), got '" + name + "'");
}

QuadraticSolver parse_quadratic_solver(const std::string& name) {
  if (name == "newton") return QuadraticSolver::Newton;
  if (name == "cg") return QuadraticSolver::CG;
  throw std::invalid_argument("solver must be one of ('newton', 'cg'), got '" + name + "'");
}

namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

std::string format_g3(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  return buf;
}

void check_nonnegative(double value, const char* name) {
  if (!std::isfinite(value) || value < 0.0)
    throw std::invalid_argument(std::string(name) + " must be a finite number >= 0, got " + format_g3(value));
}

void validate(const Eigen::Ref<const MatrixXd>& Q, const Eigen::Ref<const VectorXd>& b,
              const QuadraticOptions& opt, const double* a, double tau) {
  check_nonnegative(opt.ridge, "ridge");
  check_nonnegative(opt.floor, "floor");
  check_nonnegative(opt.tol, "tol");
  if (opt.max_iter < 1) throw std::invalid_argument("max_iter must be >= 1, got " + std::to_string(opt.max_iter));
  if (opt.solver == QuadraticSolver::CG && opt.psd == PsdRepair::Trim)
    throw std::invalid_argument(
        "psd='trim' needs the eigendecomposition; use solver='newton', or psd='shift'/'ridge' with cg");
  const Eigen::Index d = Q.rows();
  if (Q.cols() != d)
    throw std::invalid_argument("Q must be a square 2-D array, got shape (" + std::to_string(Q.rows()) + ", " +
                                std::to_string(Q.cols()) + ")");
  if (b.size() != d)
    throw std::invalid_argument("b must have shape (" + std::to_string(d) + ",) to match Q, got (" +
                                std::to_string(b.size()) + ",)");
  if (!Q.allFinite()) throw std::invalid_argument("Q contains NaN or infinity; remove or impute those values first");
  if (!b.allFinite()) throw std::invalid_argument("b contains NaN or infinity; remove or impute those values first");
  // Same tolerance as kernels.py: allclose(Q, Qᵀ, rtol=1e-10, atol=1e-12·max(1, max|Q|)).
  const double scale = d ? std::max(1.0, Q.cwiseAbs().maxCoeff()) : 1.0;
  for (Eigen::Index j = 0; j < d; ++j)
    for (Eigen::Index i = j + 1; i < d; ++i)
      if (std::abs(Q(i, j) - Q(j, i)) > 1e-12 * scale + 1e-10 * std::abs(Q(j, i)))
        throw std::invalid_argument("Q must be symmetric; pass (Q + Q.T) / 2");
  if (a != nullptr) {
    Eigen::Map<const VectorXd> av(a, d);
    if (!av.allFinite())
      throw std::invalid_argument("constraint vector a contains NaN or infinity; remove or impute those values first");
    if (!(av.array() != 0.0).any())
      throw std::invalid_argument("constraint vector a is all zeros; drop the constraint instead");
    check_nonnegative(tau, "constraint tau");
  }
}

[[noreturn]] void throw_singular() {
  throw std::invalid_argument(
      "H = repair(Q) + ridge*I is singular (floor + ridge = 0 and Q has a zero eigenvalue, or floor + ridge is "
      "below rounding at the scale of Q's eigenvalues); pass a larger floor or ridge");
}

[[noreturn]] void throw_ridge_too_small(double smallest, double floor) {
  throw std::invalid_argument("psd='ridge': Q + ridge*I has smallest eigenvalue " + format_g3(smallest) +
                              " < floor=" + format_g3(floor) + "; increase ridge or use psd='shift' or psd='trim'");
}

// If the unconstrained minimizer w violates |aᵀw| <= tau, moves it to the minimizer on aᵀw = sign(aᵀw)·tau.
// u_of_a() returns H⁻¹a (restricted to the solution space); it is only called when the bound is active.
template <class SolveA>
void apply_bound(VectorXd& w, const VectorXd& a, double tau, SolveA&& u_of_a, QuadraticResult& res) {
  const double value = a.dot(w);
  if (!(std::abs(value) > tau)) return;
  const double target = std::copysign(tau, value);
  const VectorXd u = u_of_a();
  const double denom = a.dot(u);
  if (!(denom > 0.0))
    throw std::invalid_argument(
        "constraint vector is orthogonal to every kept direction; cannot satisfy |a^T w| <= tau");
  double nu = 2.0 * (value - target) / denom;
  w.noalias() -= (0.5 * nu) * u;
  // One correction step for rounding, so that aᵀw equals the target to working precision.
  const double excess = a.dot(w) - target;
  w.noalias() -= (excess / denom) * u;
  nu += 2.0 * excess / denom;
  res.constraint_active = true;
  res.multiplier = nu;
}

// Minimizer through an eigendecomposition: w = V z with z_j = −(vⱼᵀb) / (2 h_j), h_j = λ_j + diag_add > 0.
void solve_in_eigenbasis(const MatrixXd& V, const VectorXd& h, const Eigen::Ref<const VectorXd>& b,
                         const VectorXd* a, double tau, QuadraticResult& res) {
  if (h.size() && !(h.minCoeff() > 0.0)) throw_singular();
  const VectorXd z = (-0.5 * (V.transpose() * b)).cwiseQuotient(h);
  res.w.noalias() = V * z;
  if (a != nullptr)
    apply_bound(res.w, *a, tau, [&]() -> VectorXd { return V * (V.transpose() * *a).cwiseQuotient(h); }, res);
}

// ---- Lanczos helpers on the tridiagonal T (diagonal alpha[0..k), off-diagonal beta[0..k-1)) ----

// Number of eigenvalues of T below x (Sturm sequence of the LDLᵀ pivots of T − xI).
int sturm_count(const std::vector<double>& alpha, const std::vector<double>& beta, int k, double x, double pivmin) {
  int count = 0;
  double q = 1.0;
  for (int i = 0; i < k; ++i) {
    q = alpha[i] - x - (i ? beta[i - 1] * beta[i - 1] / q : 0.0);
    if (std::abs(q) < pivmin) q = -pivmin;
    if (q < 0.0) ++count;
  }
  return count;
}

struct RitzBound {
  double theta;     // smallest eigenvalue of T_k
  double residual;  // beta_next·|s_k|, s the unit eigenvector of T_k for theta
  double scale;     // Gershgorin bound on ‖T_k‖
};

RitzBound smallest_ritz(const std::vector<double>& alpha, const std::vector<double>& beta, int k, double beta_next) {
  // Complexity 19: three short numerical stages (Gershgorin interval, Sturm bisection, inverse iteration on an
  // LDLᵀ without pivoting) that share the tridiagonal T_k and the interval; each is a few lines of loops.
  double lo = std::numeric_limits<double>::infinity(), hi = -lo, scale = 0.0, bmax = 0.0;
  for (int i = 0; i < k; ++i) {
    const double r = (i ? std::abs(beta[i - 1]) : 0.0) + (i + 1 < k ? std::abs(beta[i]) : 0.0);
    lo = std::min(lo, alpha[i] - r);
    hi = std::max(hi, alpha[i] + r);
    scale = std::max(scale, std::abs(alpha[i]) + r);
    if (i + 1 < k) bmax = std::max(bmax, std::abs(beta[i]));
  }
  if (scale == 0.0) return {0.0, 0.0, 0.0};  // T = 0
  const double tiny = std::numeric_limits<double>::min();
  const double eps = std::numeric_limits<double>::epsilon();
  const double pivmin = tiny * std::max(1.0, bmax * bmax);
  // Invariant: no eigenvalue below lo, at least one below hi.
  hi += 2.0 * eps * scale;
  for (int it = 0; it < 200 && hi - lo > 2.0 * eps * std::max(std::abs(lo), std::abs(hi)) + pivmin; ++it) {
    const double mid = 0.5 * (lo + hi);
    if (sturm_count(alpha, beta, k, mid, pivmin) >= 1)
      hi = mid;
    else
      lo = mid;
  }
  // Inverse iteration with T − σI positive definite (σ just below every eigenvalue): LDLᵀ without pivoting.
  const double sigma = lo - 1e-13 * scale;
  std::vector<double> dpiv(k), l(k > 0 ? k - 1 : 0), x(k);
  double dprev = alpha[0] - sigma;
  dpiv[0] = std::max(dprev, pivmin);
  for (int i = 1; i < k; ++i) {
    l[i - 1] = beta[i - 1] / dpiv[i - 1];
    dpiv[i] = std::max(alpha[i] - sigma - l[i - 1] * beta[i - 1], pivmin);
  }
  for (int i = 0; i < k; ++i) x[i] = 1.0 + 0.25 * std::sin(1.0 + i);  // generic start
  for (int pass = 0; pass < 3; ++pass) {
    for (int i = 1; i < k; ++i) x[i] -= l[i - 1] * x[i - 1];
    for (int i = 0; i < k; ++i) x[i] /= dpiv[i];
    for (int i = k - 2; i >= 0; --i) x[i] -= l[i] * x[i + 1];
    double norm = 0.0;
    for (double v : x) norm = std::max(norm, std::abs(v));
    for (double& v : x) v /= norm;  // scale first to avoid overflow, then normalise below
  }
  double norm2 = 0.0;
  for (double v : x) norm2 += v * v;
  return {0.5 * (lo + hi), std::abs(beta_next) * std::abs(x[k - 1]) / std::sqrt(norm2), scale};
}

// ---- Jacobi-preconditioned conjugate gradients on (S + c·I) x = rhs ----

struct CgOutcome {
  int iterations = 0;
  bool converged = false;
};

CgOutcome conjugate_gradients(const MatrixXd& S, double c, const VectorXd& rhs, double tol, int max_iter,
                              VectorXd& x) {
  const Eigen::Index d = S.rows();
  x.setZero(d);
  const double target = tol * rhs.norm();
  if (rhs.norm() == 0.0) return {0, true};
  const VectorXd inv_diag = (S.diagonal().array() + c).inverse().matrix();
  auto apply_h = [&](const VectorXd& v) -> VectorXd { return S * v + c * v; };
  VectorXd r = rhs, z = inv_diag.cwiseProduct(r), p = z, hp(d);
  double rz = r.dot(z);
  CgOutcome out;
  while (out.iterations < max_iter) {
    hp.noalias() = S * p;
    hp += c * p;
    const double php = p.dot(hp);
    if (!(php > 0.0)) break;  // H is positive definite; only rounding at convergence can get here
    const double step = rz / php;
    x += step * p;
    r -= step * hp;
    ++out.iterations;
    if (r.norm() <= target) {
      // The recursive residual can drift from the true one: confirm, else restart from the true residual.
      r = rhs - apply_h(x);
      if (r.norm() <= target) {
        out.converged = true;
        break;
      }
      z = inv_diag.cwiseProduct(r);
      p = z;
      rz = r.dot(z);
      continue;
    }
    z = inv_diag.cwiseProduct(r);
    const double rz_next = r.dot(z);
    p = z + (rz_next / rz) * p;
    rz = rz_next;
  }
  if (!out.converged) out.converged = (rhs - apply_h(x)).norm() <= target;
  return out;
}

void solve_trim_full(const MatrixXd& S, const Eigen::Ref<const VectorXd>& b, const QuadraticOptions& opt,
                const VectorXd* a, double tau, QuadraticResult& res) {
  Eigen::SelfAdjointEigenSolver<MatrixXd> eig(S, Eigen::ComputeEigenvectors);
  if (eig.info() != Eigen::Success) throw std::runtime_error("eigendecomposition of Q did not converge");
  const VectorXd& lam = eig.eigenvalues();  // ascending
  const Eigen::Index d = lam.size();
  Eigen::Index dropped = 0;
  while (dropped < d && lam(dropped) < opt.floor) ++dropped;
  res.lambda_min = lam(0);
  res.n_trimmed = static_cast<int>(dropped);
  const MatrixXd V = eig.eigenvectors().rightCols(d - dropped);
  const VectorXd h = lam.tail(d - dropped).array() + opt.ridge;
  solve_in_eigenbasis(V, h, b, a, tau, res);
}

// The dropped eigenpairs (λ_r < floor, orthonormal V_r) alone give the trimmed inverse: with H = S + ridge·I and any
// s > 0, M = H + V_r(s·I − Λ_r − ridge·I)V_rᵀ = V_k(Λ_k + ridge)V_kᵀ + s·V_rV_rᵀ is positive definite when every
// kept h = λ + ridge > 0, and M⁻¹(v − V_rV_rᵀv) = V_k(Λ_k + ridge)⁻¹V_kᵀv, the map F of solve_trim. One Cholesky of
// M (d³/3) then replaces inverse iteration for the kept vectors, which is the cheaper side when few directions
// are dropped: a functional-mechanism release at d = 509 keeps 480 (census-style rows, ε = 1). Inverse iteration
// runs on −T for the eigenvalues −λ > −floor (the dropped ones, clusters straddling the floor computed whole).
// False (res untouched) when more than a quarter of the directions are dropped, a check fails, M is not
// numerically positive definite, a result is not finite or breaks the bound below: solve_trim goes on as before.
constexpr double kMaxDroppedShare = 0.25;

bool solve_trim_by_dropped(const MatrixXd& S, const Eigen::Ref<const VectorXd>& b, const QuadraticOptions& opt,
                           const VectorXd* a, double tau, double scale,
                           const Eigen::Tridiagonalization<MatrixXd>& tri, QuadraticResult& res) {
  const Eigen::Index d = S.rows();
  if (!(opt.floor + opt.ridge > 0.0)) return false;  // a kept h may be 0: solve_trim reports the singular H
  const double upper = std::nextafter(opt.floor / scale, -std::numeric_limits<double>::infinity());  // λ < floor
  const VectorXd diag = tri.diagonal(), sub = tri.subDiagonal();
  const std::vector<double> alpha(diag.data(), diag.data() + d), beta(sub.data(), sub.data() + sub.size());
  const double pivmin = std::numeric_limits<double>::min() * std::max(1.0, sub.squaredNorm());
  if (sturm_count(alpha, beta, static_cast<int>(d), opt.floor / scale, pivmin) >
      kMaxDroppedShare * static_cast<double>(d))  // a quick count first: many dropped, the kept side is cheaper
    return false;
  TridiagonalEigenpairs negated;  // of −T: values ascending, vectors for −λ >= −upper, i.e. λ < floor
  if (!tridiagonal_eigenpairs_above(-diag, -sub, -upper, negated)) return false;
  const Eigen::Index dropped = negated.vectors.cols();
  if (static_cast<double>(dropped) > kMaxDroppedShare * static_cast<double>(d)) return false;
  // M/scale with s = scale + ridge, in T's units (no overflow): S/scale + (ridge/scale)·I + V_r(I − M_r)V_rᵀ, M_r the
  // dropped λ/scale; the dropped block sits at 1 + ridge/scale, the size of the kept one whatever the ridge.
  const VectorXd mu_r = -negated.values.tail(dropped);  // the dropped λ/scale, descending
  const MatrixXd V_r = tri.matrixQ() * negated.vectors;
  MatrixXd M = S / scale;
  M.diagonal().array() += opt.ridge / scale;
  M.noalias() += V_r * (1.0 - mu_r.array()).matrix().asDiagonal() * V_r.transpose();
  if (!M.allFinite()) return false;
  const Eigen::LLT<MatrixXd> llt(M);
  if (llt.info() != Eigen::Success) return false;
  // F(v) = V_k(Λ_k + ridge)⁻¹V_kᵀv, projected off span(V_r) on both sides (rounding in Pv would otherwise come back
  // through M⁻¹ along V_r). Every kept h >= floor + ridge, so ‖F(v)‖ <= ‖Pv‖/(floor + ridge): a larger result
  // means M was numerically singular, and the kept side takes over.
  bool ok = true;
  const auto apply_inverse = [&](const VectorXd& v) -> VectorXd {
    const VectorXd pv = v - V_r * (V_r.transpose() * v);
    VectorXd u = llt.solve(pv) / scale;
    u -= V_r * (V_r.transpose() * u);
    ok = ok && u.allFinite() && u.norm() * (opt.floor + opt.ridge) <= (1.0 + 1e-6) * pv.norm();
    return u;
  };
  QuadraticResult out = res;
  out.lambda_min = -negated.values(d - 1) * scale;
  out.n_trimmed = static_cast<int>(dropped);
  out.w = -0.5 * apply_inverse(b);
  if (a != nullptr) {
    const VectorXd u_a = apply_inverse(*a);
    if (!ok) return false;
    try {
      apply_bound(out.w, *a, tau, [&]() -> VectorXd { return u_a; }, out);
    } catch (const std::invalid_argument&) {
      return false;  // a orthogonal to the kept directions: the kept side decides and reports it
    }
  }
  if (!ok || !out.w.allFinite()) return false;
  res = std::move(out);
  return true;
}

// Below this dimension the full QR decomposition is faster (measured, one thread: d = 46: 0.12 vs 0.17 ms;
// d = 100: 1.0 vs 0.9 ms; d = 509: 82 vs ~35 ms).
constexpr Eigen::Index kTrimInverseIterationMinDim = 96;

// Trim through T = QᵀSQ (Householder tridiagonalisation): from the dropped side when at most a quarter of the
// directions are dropped (solve_trim_by_dropped), else through the kept eigenpairs of T only: w = −½·F(b) with
// F(v) = Q Z diag(1/h) Zᵀ Qᵀ v over the kept eigenvectors Z of T, so neither Q nor the dropped vectors are formed.
// Falls back to the full QR eigendecomposition when inverse iteration fails its checks (see tridiagonal.hpp).
void solve_trim(const MatrixXd& S, const Eigen::Ref<const VectorXd>& b, const QuadraticOptions& opt,
                const VectorXd* a, double tau, QuadraticResult& res) {
  if (S.rows() < kTrimInverseIterationMinDim) {
    solve_trim_full(S, b, opt, a, tau, res);
    return;
  }
  const double scale = std::max(S.cwiseAbs().maxCoeff(), std::numeric_limits<double>::min());
  const Eigen::Tridiagonalization<MatrixXd> tri(S / scale);
  if (solve_trim_by_dropped(S, b, opt, a, tau, scale, tri, res)) return;
  TridiagonalEigenpairs pairs;
  if (!tridiagonal_eigenpairs_above(tri.diagonal(), tri.subDiagonal(), opt.floor / scale, pairs)) {
    solve_trim_full(S, b, opt, a, tau, res);
    return;
  }
  const VectorXd lam = pairs.values * scale;  // ascending
  const Eigen::Index d = lam.size(), kept = pairs.vectors.cols();
  res.lambda_min = lam(0);
  res.n_trimmed = static_cast<int>(d - kept);
  const VectorXd h = lam.tail(kept).array() + opt.ridge;
  if (kept && !(h.minCoeff() > 0.0)) throw_singular();
  const auto apply_inverse = [&](const VectorXd& v) -> VectorXd {
    const VectorXd t = tri.matrixQ().adjoint() * v;
    const VectorXd u = pairs.vectors * (pairs.vectors.transpose() * t).cwiseQuotient(h);
    return tri.matrixQ() * u;
  };
  res.w = -0.5 * apply_inverse(b);
  if (a != nullptr) apply_bound(res.w, *a, tau, [&]() -> VectorXd { return apply_inverse(*a); }, res);
}

void solve_direct(const MatrixXd& S, const Eigen::Ref<const VectorXd>& b, const QuadraticOptions& opt,
                  const VectorXd* a, double tau, QuadraticResult& res) {
  Eigen::SelfAdjointEigenSolver<MatrixXd> eig_values(S, Eigen::EigenvaluesOnly);
  if (eig_values.info() != Eigen::Success) throw std::runtime_error("eigenvalues of Q did not converge");
  const double lam_min = eig_values.eigenvalues()(0);
  res.lambda_min = lam_min;
  double diag_add = opt.ridge;
  if (opt.psd == PsdRepair::Shift) {
    res.shift = std::max(0.0, opt.floor - lam_min);
    diag_add += res.shift;
  } else if (lam_min + opt.ridge < opt.floor) {
    throw_ridge_too_small(lam_min + opt.ridge, opt.floor);
  }
  if (!(lam_min + diag_add > 0.0)) throw_singular();
  MatrixXd H = S;
  H.diagonal().array() += diag_add;
  Eigen::LLT<MatrixXd> llt(H);
  if (llt.info() != Eigen::Success) {
    // H is positive definite in exact arithmetic but too ill-conditioned for Cholesky in floating point:
    // fall back to the eigenbasis, exactly as the reference solves.
    Eigen::SelfAdjointEigenSolver<MatrixXd> eig(S, Eigen::ComputeEigenvectors);
    if (eig.info() != Eigen::Success) throw std::runtime_error("eigendecomposition of Q did not converge");
    const VectorXd h = eig.eigenvalues().array() + diag_add;
    solve_in_eigenbasis(eig.eigenvectors(), h, b, a, tau, res);
    return;
  }
  res.w = llt.solve(-0.5 * b);
  if (a != nullptr) apply_bound(res.w, *a, tau, [&]() -> VectorXd { return llt.solve(*a); }, res);
}

void solve_cg(const MatrixXd& S, const Eigen::Ref<const VectorXd>& b, const QuadraticOptions& opt,
              const VectorXd* a, double tau, QuadraticResult& res) {
  const Eigen::Index d = S.rows();
  const LanczosEstimate est = lanczos_smallest_eigenvalue(S, static_cast<int>(d), 1e-13);
  res.lambda_min = est.value;
  double diag_add = opt.ridge;
  if (opt.psd == PsdRepair::Shift) {
    // Shift from the lower bound θ − r, not θ >= λ_min itself, so that H's smallest eigenvalue is >= floor.
    res.shift = std::max(0.0, opt.floor - est.lower_bound);
    diag_add += res.shift;
  } else if (est.value + opt.ridge < opt.floor) {
    throw_ridge_too_small(est.value + opt.ridge, opt.floor);
  }
  if (!(est.lower_bound + diag_add > 0.0)) throw_singular();
  const VectorXd rhs = -0.5 * b;
  const CgOutcome main = conjugate_gradients(S, diag_add, rhs, opt.tol, opt.max_iter, res.w);
  res.iterations = main.iterations;
  res.converged = main.converged;
  if (a != nullptr) {
    apply_bound(
        res.w, *a, tau,
        [&]() -> VectorXd {
          VectorXd u;
          const CgOutcome extra = conjugate_gradients(S, diag_add, *a, opt.tol, opt.max_iter, u);
          res.iterations += extra.iterations;
          res.converged = res.converged && extra.converged;
          return u;
        },
        res);
  }
}

}  // namespace

LanczosEstimate lanczos_smallest_eigenvalue(const MatrixXd& S, int max_steps, double rel_tol) {
  const int d = static_cast<int>(S.rows());
  LanczosEstimate est;
  if (d == 0) return est;
  const int m = std::max(1, std::min(d, max_steps));
  std::mt19937_64 gen(0x5eedULL);
  std::uniform_real_distribution<double> unif(-1.0, 1.0);
  VectorXd v(d);
  for (int i = 0; i < d; ++i) v(i) = unif(gen);
  v.normalize();
  MatrixXd basis(d, std::min(m, 64));  // grows by doubling: convergence usually takes far fewer than d steps
  std::vector<double> alpha, beta;
  alpha.reserve(m);
  beta.reserve(m);
  VectorXd w(d), coef;
  for (int j = 0; j < m; ++j) {
    if (j == basis.cols()) basis.conservativeResize(Eigen::NoChange, std::min<Eigen::Index>(m, 2 * basis.cols()));
    basis.col(j) = v;
    w.noalias() = S * v;
    alpha.push_back(v.dot(w));
    // Full reorthogonalisation (classical Gram–Schmidt twice); it also removes the α v and β v_prev terms.
    for (int pass = 0; pass < 2; ++pass) {
      coef.noalias() = basis.leftCols(j + 1).transpose() * w;
      w.noalias() -= basis.leftCols(j + 1) * coef;
    }
    const double beta_next = w.norm();
    const RitzBound ritz = smallest_ritz(alpha, beta, j + 1, beta_next);
    est.value = ritz.theta;
    // The margin 16ε‖T‖ covers rounding in the Lanczos recurrence and in the Ritz value itself.
    est.lower_bound = ritz.theta - ritz.residual - 16.0 * std::numeric_limits<double>::epsilon() * ritz.scale;
    est.steps = j + 1;
    if (ritz.residual <= rel_tol * ritz.scale || j + 1 == d) break;
    beta.push_back(beta_next);
    v = w / beta_next;
  }
  return est;
}

QuadraticResult minimize_quadratic(const Eigen::Ref<const MatrixXd>& Q, const Eigen::Ref<const VectorXd>& b,
                                   const QuadraticOptions& options, const double* a, double tau) {
  validate(Q, b, options, a, tau);
  const Eigen::Index d = Q.rows();
  QuadraticResult res;
  res.w = VectorXd::Zero(d);
  if (d == 0) return res;
  const MatrixXd S = 0.5 * (Q + Q.transpose());
  VectorXd a_copy;
  const VectorXd* a_ptr = nullptr;
  if (a != nullptr) {
    a_copy = Eigen::Map<const VectorXd>(a, d);
    a_ptr = &a_copy;
  }
  if (options.psd == PsdRepair::Trim)
    solve_trim(S, b, options, a_ptr, tau, res);
  else if (options.solver == QuadraticSolver::Newton)
    solve_direct(S, b, options, a_ptr, tau, res);
  else
    solve_cg(S, b, options, a_ptr, tau, res);
  return res;
}

}  // namespace dpfair
