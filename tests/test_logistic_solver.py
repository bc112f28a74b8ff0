"""The Newton solver of LogisticRegression / FairLogisticRegression against an independent tight reference solve.

Reference: scipy.optimize.minimize(method="trust-exact") on the same objective
    f(w) = Σ_i log(1 + e^{z_i}) − y_i z_i + (α/2)‖coef‖²,  z = X coef + intercept,
with its exact gradient and Hessian (dense NumPy, no package kernel), to gradient norm 1e-10, then polished by
plain Newton steps until the remaining step is < 1e-10 relative. The fair model's binding constraint aᵀw = ±τ
(a = the covariance vector, intercept entry 0) is removed by parametrizing w = w₀ + N u with N an orthonormal
basis of a's null space, so the reference is an unconstrained solve as well. The estimators must match it to
1e-6 relative (their own tolerance is tol = 1e-8 on the step).
"""

import numpy as np
import pytest
from scipy.linalg import null_space
from scipy.optimize import minimize

from dpfair_native.models.logistic import FairLogisticRegression, LogisticRegression


def _objective(X, y, alpha):
    """f, ∇f, ∇²f of the regularized logistic loss in w = [coef, intercept]."""
    Xa = np.column_stack([X, np.ones(len(X))])
    reg = np.full(Xa.shape[1], alpha)
    reg[-1] = 0.0

    def f(w):
        z = Xa @ w
        return np.sum(np.logaddexp(0.0, z) - y * z) + 0.5 * np.sum(reg * w * w)

    def g(w):
        p = 0.5 * (1.0 + np.tanh(0.5 * (Xa @ w)))
        return Xa.T @ (p - y) + reg * w

    def h(w):
        p = 0.5 * (1.0 + np.tanh(0.5 * (Xa @ w)))
        return (Xa * (p * (1.0 - p))[:, None]).T @ Xa + np.diag(reg)

    return f, g, h


def _reference(X, y, alpha, a=None, offset=0.0):
    """argmin f(w) (subject to aᵀw = offset when a is given) by trust-exact in the constraint's null space."""
    f, g, h = _objective(X, y, alpha)
    m = X.shape[1] + 1
    if a is None:
        N, w0 = np.eye(m), np.zeros(m)
    else:
        N, w0 = null_space(a[None, :]), offset * a / (a @ a)
    res = minimize(lambda u: f(w0 + N @ u), np.zeros(N.shape[1]), jac=lambda u: N.T @ g(w0 + N @ u),
                   hess=lambda u: N.T @ h(w0 + N @ u) @ N, method="trust-exact", options={"gtol": 1e-10})
    # trust-exact may stop early at its rounding floor: polish with plain Newton steps (dense NumPy Hessian) and
    # accept the point only when the remaining Newton step is below 1e-10 relative
    u = res.x
    for _ in range(5):
        step = np.linalg.solve(N.T @ h(w0 + N @ u) @ N, N.T @ g(w0 + N @ u))
        u = u - step
    assert np.max(np.abs(step)) <= 1e-10 * np.max(np.abs(u)), res.message
    return w0 + N @ u


def _cov_vector(X, s):
    s = s.astype(np.float64)
    return np.append((s - s.mean()) @ X / len(X), 0.0)


def _random_problem(seed, n=600, d=6):
    rng = np.random.default_rng(seed)
    s = (rng.random(n) < 0.4).astype(np.int64)
    X = rng.random((n, d)) * (1.0 + 0.5 * s[:, None])
    X[:, 0] = (rng.random(n) < 0.1) * rng.random(n)  # a rare feature, like Adult's capital gain
    logits = X @ rng.normal(0, 3, d) + 1.5 * s - 1.0
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-logits))).astype(np.int64)
    return X, y, s


def _rel(w, ref):
    return np.max(np.abs(w - ref)) / np.max(np.abs(ref))


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("alpha", [1e-4, 1.0])
def test_logistic_regression_matches_reference_solve(backend, seed, alpha):
    X, y, _ = _random_problem(seed)
    m = LogisticRegression(alpha=alpha, backend=backend).fit(X, y)
    assert m.converged_ and 1 <= m.n_iter_ <= m.max_iter
    assert _rel(np.append(m.coef_, m.intercept_), _reference(X, y, alpha)) < 1e-6


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("tau", [0.0, 0.01])
def test_fair_logistic_regression_matches_reference_solve(backend, seed, tau):
    X, y, s = _random_problem(seed)
    a = _cov_vector(X, s)
    free = LogisticRegression(backend=backend).fit(X, y)
    free_cov = a[:-1] @ free.coef_
    assert abs(free_cov) > tau + 0.01  # the constraint binds, at aᵀw = sign(free_cov)·τ
    m = FairLogisticRegression(tau=tau, backend=backend).fit(X, y, sensitive_features=s)
    assert m.converged_
    assert abs(m.constraint_value_) <= tau + 1e-12
    ref = _reference(X, y, 1e-4, a, np.sign(free_cov) * tau)
    assert _rel(np.append(m.coef_, m.intercept_), ref) < 1e-6


@pytest.fixture(scope="module")
def adult():
    from dpfair_native.datasets import load_adult, train_test_split

    ds = load_adult()
    X, _, y, _, s, _ = train_test_split(ds.X, ds.y, ds.sensitive, test_size=0.2, random_state=0)
    return X, y.astype(np.int64), s


@pytest.mark.slow  # the reference solve on 36k rows takes a few seconds
def test_adult_both_estimators_match_reference_solve(adult):
    X, y, s = adult
    m = LogisticRegression().fit(X, y)
    assert m.converged_
    ref = _reference(X, y, 1e-4)
    assert np.max(np.abs(ref[:-1])) > 20  # the ill-conditioned direction (capital gain) is in the test
    assert _rel(np.append(m.coef_, m.intercept_), ref) < 1e-6
    f = FairLogisticRegression(tau=0.0).fit(X, y, sensitive_features=s)
    assert f.converged_ and abs(f.constraint_value_) <= 1e-12
    codes = np.unique(s, return_inverse=True)[1]  # with τ = 0 the coding's sign does not matter
    ref_f = _reference(X, y, 1e-4, _cov_vector(X, codes), 0.0)
    assert _rel(np.append(f.coef_, f.intercept_), ref_f) < 1e-6
