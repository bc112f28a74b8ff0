"""The logistic Newton kernel: native == NumPy reference (dense rows and the one-hot "pattern" path, every layout),
the fixed point is the optimum (KKT), the line search and the stopping rules, bad input."""

import numpy as np
import pytest

from dpfair_native import kernels

native = pytest.mark.native


def _dense(seed, n=500, d=6, dtype=np.float64):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * np.linspace(0.5, 3.0, d)
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-(X @ rng.normal(size=d) + 0.5)))).astype(np.float64)
    return X.astype(dtype), y


def _one_hot(seed, n=3000, dtype=np.float64):
    """Adult-like rows: 3 continuous columns, a rare continuous one, and three one-hot blocks (widths 5, 4, 7),
    with columns interleaved so that dense and indicator columns alternate in the original order."""
    rng = np.random.default_rng(seed)
    cont = rng.standard_normal((n, 3))
    rare = (rng.random(n) < 0.05) * rng.random(n) * 4.0
    blocks = [np.eye(k)[rng.choice(k, n, p=np.arange(1, k + 1) / (k * (k + 1) / 2))] for k in (5, 4, 7)]
    X = np.column_stack([blocks[0], cont[:, 0], blocks[1], cont[:, 1], rare, blocks[2], cont[:, 2]])
    logits = X @ rng.normal(0.0, 1.0, X.shape[1]) - 0.5
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-logits))).astype(np.float64)
    return X.astype(dtype), y


def _layout(X, layout):
    return {
        "C": X,
        "F": np.asfortranarray(X),
        "reversed": X[::-1].copy()[::-1],  # negative row stride, same rows
        "strided": np.repeat(X, 2, axis=1)[:, ::2],  # column stride 2
    }[layout]


def _assert_same_fit(nat, ref, rtol=1e-8):
    assert nat.n_iter == ref.n_iter and nat.n_passes == ref.n_passes and nat.converged == ref.converged
    np.testing.assert_allclose(nat.w, ref.w, rtol=0, atol=rtol * max(1.0, np.max(np.abs(ref.w))))


def _loss_grad(X, y, w, alpha, fit_intercept=True):
    X = X.astype(np.float64)
    d = X.shape[1]
    z = X @ w[:d] + (w[d] if fit_intercept else 0.0)
    p = 0.5 * (1.0 + np.tanh(0.5 * z))
    g = np.append((p - y) @ X, np.sum(p - y)) if fit_intercept else (p - y) @ X
    reg = np.full(g.shape, alpha)
    if fit_intercept:
        reg[d] = 0.0
    return np.sum(np.logaddexp(0.0, z) - y * z) + 0.5 * np.sum(reg * w * w), g + reg * w


@native
@pytest.mark.parametrize("data", ["dense", "one_hot"])
@pytest.mark.parametrize("layout", ["C", "F", "reversed", "strided"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_native_equals_reference(data, layout, dtype, fit_intercept):
    X, y = (_dense if data == "dense" else _one_hot)(3, dtype=dtype)
    X = _layout(X, layout)
    for constraint in (None, (np.linspace(-1.0, 1.0, X.shape[1] + fit_intercept), 0.05)):
        kw = dict(alpha=1e-3, fit_intercept=fit_intercept, constraint=constraint)
        nat = kernels.logistic_newton(X, y, n_threads=2, **kw)
        ref = kernels.logistic_newton(X, y, backend="numpy", **kw)
        assert nat.converged
        _assert_same_fit(nat, ref)


@native
def test_one_hot_rows_take_the_pattern_path_and_dense_rows_do_not():
    core = kernels._native()
    X, y = _one_hot(0)
    assert core.logistic_newton(X, y, 1e-3, True, 50, 1e-8, 1, None, 0.0)[4] is True
    Xd, yd = _dense(0)
    assert core.logistic_newton(Xd, yd, 1e-3, True, 50, 1e-8, 1, None, 0.0)[4] is False


@native
@pytest.mark.parametrize("value", [2.0, 0.5, -1.0])
def test_indicator_column_with_another_value_outside_the_sample_is_made_dense(value):
    # 5,000 rows: the column split samples 2,048 of them, so row 1 (never sampled) can hide a value
    X, y = _one_hot(1, n=5000)
    X[1, 0] = value  # column 0 is a one-hot column everywhere else
    nat = kernels.logistic_newton(X, y, alpha=1e-3)
    ref = kernels.logistic_newton(X, y, alpha=1e-3, backend="numpy")
    _assert_same_fit(nat, ref)


@pytest.mark.parametrize("backend", ["numpy", pytest.param("native", marks=native)])
@pytest.mark.parametrize("where", ["dense column", "indicator column, unsampled row"])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_x_is_rejected(backend, where, bad):
    X, y = _one_hot(2, n=5000)
    if where == "dense column":
        X[4000, 5] = bad  # continuous column
    else:
        X[1, 0] = bad
    with pytest.raises(ValueError, match="NaN or infinity"):
        kernels.logistic_newton(X, y, alpha=1e-3, backend=backend)


@pytest.mark.parametrize("backend", ["numpy", pytest.param("native", marks=native)])
@pytest.mark.parametrize("data", ["dense", "one_hot"])
def test_fixed_point_is_the_optimum(backend, data):
    X, y = (_dense if data == "dense" else _one_hot)(5)
    alpha = 1e-2
    fit = kernels.logistic_newton(X, y, alpha=alpha, backend=backend)
    loss, grad = _loss_grad(X, y, fit.w, alpha)
    assert fit.converged and np.max(np.abs(grad)) < 1e-8 * len(y)
    rng = np.random.default_rng(0)
    for _ in range(20):  # convex: no nearby point is lower
        assert _loss_grad(X, y, fit.w + 1e-3 * rng.standard_normal(fit.w.shape), alpha)[0] > loss


@pytest.mark.parametrize("backend", ["numpy", pytest.param("native", marks=native)])
@pytest.mark.parametrize("tau", [0.0, 0.02])
def test_constrained_fixed_point_satisfies_kkt(backend, tau):
    X, y = _one_hot(6)
    a = np.append(X.mean(axis=0) - X[:1000].mean(axis=0), 0.0)  # a covariance-like vector, intercept entry 0
    free = kernels.logistic_newton(X, y, alpha=1e-3, backend=backend)
    assert abs(a @ free.w) > tau + 0.01  # the constraint binds
    fit = kernels.logistic_newton(X, y, alpha=1e-3, constraint=(a, tau), backend=backend)
    assert fit.converged
    assert abs(abs(a @ fit.w) - tau) <= 1e-12 * max(1.0, np.max(np.abs(fit.w)))
    _, grad = _loss_grad(X, y, fit.w, 1e-3)
    nu = -(grad @ a) / (a @ a)  # ∇L + ν a = 0 with ν·sign(aᵀw) >= 0 (the constraint pushes inward)
    assert np.max(np.abs(grad + nu * a)) < 1e-7 * np.max(np.abs(grad))
    assert nu * np.sign(a @ free.w) >= 0


def _overshooting_problem(seed):
    """Random problems on which some full Newton step overshoots (slope > 0 at the trial point): found by search."""
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(20, 300)), int(rng.integers(1, 6))
    X = np.abs(rng.standard_normal((n, d)) * 10 ** rng.uniform(-1, 2)) if seed % 2 else (
        rng.standard_normal((n, d)) * 10 ** rng.uniform(-1, 2))
    u = rng.random(n)
    logits = np.clip(X @ rng.normal(size=d) * rng.uniform(0, 5) + rng.normal() * 3, -500, 500)
    y = (u < 1.0 / (1.0 + np.exp(-logits))).astype(np.float64)
    return X, y, 10 ** rng.uniform(-6, 0)


@pytest.mark.parametrize("backend", ["numpy", pytest.param("native", marks=native)])
@pytest.mark.parametrize("seed", [240, 299])
def test_line_search_shortens_overshooting_steps(backend, seed):
    X, y, alpha = _overshooting_problem(seed)
    fit = kernels.logistic_newton(X, y, alpha=alpha, max_iter=200, backend=backend)
    assert fit.converged
    assert fit.n_passes > fit.n_iter + 1  # at least one step was shortened (one extra pass each)
    _, grad = _loss_grad(X, y, fit.w, alpha)
    assert np.max(np.abs(grad)) < 1e-6 * max(1.0, np.max(np.abs(X)))
    if backend == "native":
        _assert_same_fit(fit, kernels.logistic_newton(X, y, alpha=alpha, max_iter=200, backend="numpy"), rtol=1e-7)


@pytest.mark.parametrize("backend", ["numpy", pytest.param("native", marks=native)])
def test_max_iter_stops_early_and_says_so(backend):
    X, y = _one_hot(7)
    one = kernels.logistic_newton(X, y, alpha=1e-3, max_iter=1, backend=backend)
    assert one.n_iter == 1 and not one.converged and one.n_passes == 2
    full = kernels.logistic_newton(X, y, alpha=1e-3, backend=backend)
    assert full.converged and full.n_iter > 1
    assert _loss_grad(X, y, one.w, 1e-3)[0] > _loss_grad(X, y, full.w, 1e-3)[0]


@pytest.mark.parametrize("backend", ["numpy", pytest.param("native", marks=native)])
def test_single_class_has_no_minimizer_and_is_not_reported_converged(backend):
    X, _ = _dense(8)
    fit = kernels.logistic_newton(X, np.ones(len(X)), alpha=1e-3, backend=backend)
    assert not fit.converged and fit.w[-1] > 10  # the unpenalized intercept walks off towards +inf


@native
def test_thread_count_does_not_change_the_fit():
    X, y = _one_hot(9, n=20_000)
    one = kernels.logistic_newton(X, y, alpha=1e-4, n_threads=1)
    two = kernels.logistic_newton(X, y, alpha=1e-4, n_threads=2)
    _assert_same_fit(two, one, rtol=1e-7)  # both within tol = 1e-8 (relative) of the optimum


@pytest.mark.parametrize("backend", ["numpy", pytest.param("native", marks=native)])
def test_bad_input(backend):
    X, y = _dense(10, n=50, d=3)
    call = lambda **kw: kernels.logistic_newton(**{"X": X, "y": y, "backend": backend, **kw})  # noqa: E731
    with pytest.raises(ValueError, match=r"y must lie in \[0, 1\]"):
        call(y=np.where(y > 0, 2.0, 0.0))
    with pytest.raises(ValueError, match="y must have shape"):
        call(y=y[:-1])
    with pytest.raises(ValueError, match="alpha"):
        call(alpha=np.nan)
    with pytest.raises(ValueError, match="alpha"):
        call(alpha=-1.0)
    with pytest.raises(ValueError, match="tol"):
        call(tol=-1e-8)
    with pytest.raises(ValueError, match="max_iter"):
        call(max_iter=0)
    with pytest.raises(ValueError, match="max_iter"):
        call(max_iter=2.5)
    with pytest.raises(ValueError, match="constraint vector must have shape"):
        call(constraint=(np.ones(3), 0.1))  # 3 features + intercept = 4
    with pytest.raises(ValueError, match="constraint must be a pair"):
        call(constraint=np.ones(4))
    with pytest.raises(ValueError, match="tau"):
        call(constraint=(np.ones(4), -0.1))
    with pytest.raises(ValueError, match="constraint vector contains NaN"):
        call(constraint=(np.array([1.0, np.nan, 0.0, 0.0]), 0.1))
    with pytest.raises(ValueError, match="at least one row"):
        call(X=np.zeros((0, 3)), y=np.zeros(0))
    with pytest.raises(TypeError, match="real numeric"):
        call(X=X.astype(complex))
    with pytest.raises(ValueError, match="n_threads"):
        call(n_threads=0)
