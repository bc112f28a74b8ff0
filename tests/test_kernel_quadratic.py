"""minimize_quadratic: f(w) = wᵀHw + bᵀw, H = repair(Q) + ridge·I, optionally s.t. |aᵀw| <= tau.

Properties checked: Newton == CG == numpy.linalg.solve on positive-definite problems; on indefinite Q each repair
returns the minimizer of the repaired problem (independent eigh + KKT solve in the test, zero projected gradient);
native == NumPy reference; the bound holds and the solution beats sampled feasible points (tau = 0 included);
reported n_trimmed / shift / lambda_min; read-only and strided inputs; errors; hypothesis over d and scales.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpfair_native import _core, kernels

REPAIRS_SOLVERS = [("trim", "newton"), ("shift", "newton"), ("shift", "cg"), ("ridge", "newton"), ("ridge", "cg")]


def noisy_wishart(rng, d, n=None, noise=2.0):
    """Q = XᵀX/8 (X uniform in [0,1]^{n×d}) plus symmetric Laplace noise: indefinite, as in the functional mechanism."""
    n = n or 3 * d
    X = rng.random((n, d))
    N = np.triu(rng.laplace(scale=noise, size=(d, d)))
    return X.T @ X / 8.0 + N + np.triu(N, 1).T


def repaired_problem(Q, psd, floor, ridge):
    """Independent repair: (H, P) with H the repaired Hessian and P an orthonormal basis of the search space."""
    lam, V = np.linalg.eigh(Q)
    d = Q.shape[0]
    if psd == "trim":
        keep = lam >= floor
        P = V[:, keep]
        return P @ np.diag(lam[keep] + ridge) @ P.T, P
    if psd == "shift":
        return Q + (max(0.0, floor - lam[0]) + ridge) * np.eye(d), np.eye(d)
    return Q + ridge * np.eye(d), np.eye(d)


def kkt_minimizer(H, P, b, a=None, target=None):
    """Minimizer of wᵀHw + bᵀw over w = Pz (and aᵀw = target), by solving the KKT system directly."""
    Hz = P.T @ H @ P
    bz = P.T @ b
    if a is None:
        return P @ np.linalg.solve(2.0 * Hz, -bz)
    az = P.T @ a
    k = Hz.shape[0]
    K = np.zeros((k + 1, k + 1))
    K[:k, :k] = 2.0 * Hz
    K[:k, k] = az
    K[k, :k] = az
    sol = np.linalg.solve(K, np.concatenate([-bz, [target]]))
    return P @ sol[:k], sol[k]


def objective(H, b, w):
    return w @ H @ w + b @ w


def solve(Q, b, backend="native", **kw):
    return kernels.minimize_quadratic(Q, b, backend=backend, **kw)


def ridge_for(Q, floor, margin=1.0):
    return max(0.0, floor - np.linalg.eigvalsh(Q)[0]) + margin


# ---------------------------------------------------------------- positive definite: Newton == CG == solve


@pytest.mark.parametrize("d", [1, 7, 45])
@pytest.mark.parametrize("psd", ["trim", "shift", "ridge"])
def test_newton_and_cg_equal_numpy_solve_on_positive_definite(d, psd):
    rng = np.random.default_rng(d)
    X = rng.normal(size=(3 * d, d))
    Q = X.T @ X / d + 0.5 * np.eye(d)
    b = rng.normal(size=d)
    expected = np.linalg.solve(2.0 * (Q + 0.25 * np.eye(d)), -b)
    newton = solve(Q, b, psd=psd, ridge=0.25, floor=1e-3)
    assert newton.n_trimmed == 0 and newton.shift == 0.0 and newton.iterations == 0
    np.testing.assert_allclose(newton.w, expected, rtol=1e-10, atol=1e-12)
    if psd != "trim":
        cg = solve(Q, b, psd=psd, ridge=0.25, floor=1e-3, solver="cg", tol=1e-13)
        assert cg.converged and 1 <= cg.iterations <= max(10 * d, 100)
        assert cg.shift == 0.0
        np.testing.assert_allclose(cg.w, expected, rtol=1e-9, atol=1e-11)
        np.testing.assert_allclose(cg.lambda_min, newton.lambda_min, rtol=1e-8)


# ---------------------------------------------------------------- indefinite: each repair minimizes its problem


@pytest.mark.parametrize("psd,solver", REPAIRS_SOLVERS)
@pytest.mark.parametrize("d", [6, 40])
def test_repair_returns_minimizer_of_repaired_problem(psd, solver, d):
    rng = np.random.default_rng(100 + d)
    Q = noisy_wishart(rng, d)
    b = rng.normal(size=d) * d
    lam = np.linalg.eigvalsh(Q)
    assert lam[0] < 0, "the test problem must be indefinite"
    floor = 0.5
    ridge = ridge_for(Q, floor) if psd == "ridge" else 0.1
    res = solve(Q, b, psd=psd, floor=floor, ridge=ridge, solver=solver, tol=1e-13)
    H, P = repaired_problem(Q, psd, floor, ridge)
    expected = kkt_minimizer(H, P, b)
    np.testing.assert_allclose(res.w, expected, rtol=1e-7, atol=1e-9 * np.abs(expected).max())
    grad = P.T @ (2.0 * H @ res.w + b)  # gradient within the search space
    assert np.linalg.norm(grad) <= 1e-8 * (np.linalg.norm(H, 2) * np.linalg.norm(res.w) + np.linalg.norm(b))
    assert np.linalg.norm(res.w - P @ (P.T @ res.w)) <= 1e-10 * np.linalg.norm(res.w)  # w stays in the span
    assert res.converged
    np.testing.assert_allclose(res.lambda_min, lam[0], rtol=1e-9, atol=1e-9 * np.abs(lam).max())


def test_reported_n_trimmed_shift_and_lambda_min():
    rng = np.random.default_rng(7)
    lam = np.array([-3.0, -1.0, 5e-3, 2.0, 5.0, 9.0])
    U, _ = np.linalg.qr(rng.normal(size=(6, 6)))
    Q = (U * lam) @ U.T
    Q = 0.5 * (Q + Q.T)
    b = rng.normal(size=6)
    for backend in ("native", "numpy"):
        trim = solve(Q, b, psd="trim", floor=1e-2, backend=backend)
        assert trim.n_trimmed == 3 and trim.shift == 0.0
        np.testing.assert_allclose(U[:, :3].T @ trim.w, 0.0, atol=1e-12)  # nothing along dropped directions
        for solver in ("newton", "cg"):
            shift = solve(Q, b, psd="shift", floor=1e-2, solver=solver, backend=backend)
            assert shift.n_trimmed == 0
            np.testing.assert_allclose(shift.shift, 3.01, rtol=1e-9)
            np.testing.assert_allclose(shift.lambda_min, -3.0, rtol=1e-9)
            with pytest.raises(ValueError, match="smallest eigenvalue -1 < floor=0.01"):
                solve(Q, b, psd="ridge", ridge=2.0, floor=1e-2, solver=solver, backend=backend)
            ok = solve(Q, b, psd="ridge", ridge=4.0, floor=1e-2, solver=solver, backend=backend)
            assert ok.shift == 0.0 and ok.n_trimmed == 0
    # Already positive definite above the floor: nothing trimmed or shifted.
    pd = solve(Q + 4.0 * np.eye(6), b, psd="shift", floor=0.5)
    assert pd.shift == 0.0
    assert solve(Q + 4.0 * np.eye(6), b, psd="trim", floor=0.5).n_trimmed == 0


# ---------------------------------------------------------------- native == reference


@pytest.mark.parametrize("psd,solver", REPAIRS_SOLVERS)
@pytest.mark.parametrize("bound", [None, "loose", "tight", "zero"])
def test_native_equals_reference(psd, solver, bound):
    rng = np.random.default_rng(11)
    d = 30
    Q = noisy_wishart(rng, d)
    b = rng.normal(size=d) * d
    floor = 0.5
    ridge = ridge_for(Q, floor) if psd == "ridge" else 0.05
    kw = dict(psd=psd, floor=floor, ridge=ridge, solver=solver, tol=1e-13)
    constraint = None
    if bound is not None:
        a = rng.normal(size=d)
        free = a @ solve(Q, b, **kw).w
        tau = {"loose": 2.0 * abs(free), "tight": 0.3 * abs(free), "zero": 0.0}[bound]
        constraint = (a, tau)
    nat = solve(Q, b, constraint=constraint, **kw)
    ref = solve(Q, b, constraint=constraint, backend="numpy", **kw)
    rtol = 1e-9 if solver == "newton" else 1e-7
    np.testing.assert_allclose(nat.w, ref.w, rtol=rtol, atol=rtol * np.abs(ref.w).max())
    assert nat.n_trimmed == ref.n_trimmed
    np.testing.assert_allclose(nat.shift, ref.shift, rtol=1e-9)
    np.testing.assert_allclose(nat.lambda_min, ref.lambda_min, rtol=1e-9)
    assert nat.constraint_active == ref.constraint_active == (bound in ("tight", "zero"))
    np.testing.assert_allclose(nat.multiplier, ref.multiplier, rtol=rtol, atol=1e-12)
    assert nat.converged and ref.converged and ref.iterations == 0
    assert (nat.iterations > 0) == (solver == "cg")


def _spectrum_cases():
    """Matrices that stress the trim path's inverse iteration (tridiagonal.cpp, used from d = 96 on): exact and near
    clusters, blocks that split, a one-hot Gram's null space, and the functional mechanism's shape (a few large
    signal eigenvalues above a dense noise bulk)."""
    rng = np.random.default_rng(5)
    U, _ = np.linalg.qr(rng.normal(size=(120, 120)))
    yield "identity", np.eye(120)
    yield "diagonal with repeats", np.diag(np.repeat([3.0, -1.0, 0.25, 2.0], 30))
    lam = np.repeat([2.0, 1.0, -1.0], 40) + 1e-9 * rng.normal(size=120)  # three clusters of 40, rotated
    yield "rotated near-clusters", 0.5 * ((U * lam) @ U.T + ((U * lam) @ U.T).T)
    wilkinson = np.diag(np.abs(np.arange(-50.0, 51.0))) + np.diag(np.ones(100), 1) + np.diag(np.ones(100), -1)
    yield "Wilkinson W101+ (pairs equal to 1e-15)", wilkinson
    sizes = np.array([20, 40, 50])
    codes = rng.integers(0, sizes, size=(2000, 3)) + np.concatenate([[0], np.cumsum(sizes)[:-1]])
    onehot = np.zeros((2000, sizes.sum()))
    np.put_along_axis(onehot, codes, 1.0, axis=1)
    yield "one-hot Gram (null space of dimension 2)", onehot.T @ onehot / 8.0
    X = rng.random((600, 150))
    N = np.triu(rng.laplace(scale=4.0, size=(150, 150)))
    yield "signal plus noise bulk", X.T @ X / 8.0 + N + np.triu(N, 1).T


@pytest.mark.parametrize("case", list(_spectrum_cases()), ids=lambda case: case[0])
@pytest.mark.parametrize("floor,ridge", [(1e-8, 0.0), (0.5, 0.05)])
def test_trim_native_equals_reference_on_hard_spectra(case, floor, ridge):
    _, Q = case
    rng = np.random.default_rng(1)
    d = Q.shape[0]
    b = rng.normal(size=d)
    a = rng.normal(size=d)
    lam = np.linalg.eigvalsh(Q)
    if np.min(np.abs(lam - floor)) < 1e-12 * np.abs(lam).max():
        pytest.skip("an eigenvalue sits on the floor: which side it lands on is rounding")
    for constraint in (None, (a, 0.0)):
        nat = solve(Q, b, psd="trim", floor=floor, ridge=ridge, constraint=constraint)
        ref = solve(Q, b, psd="trim", floor=floor, ridge=ridge, constraint=constraint, backend="numpy")
        assert nat.n_trimmed == ref.n_trimmed == np.sum(lam < floor)
        np.testing.assert_allclose(nat.lambda_min, lam[0], rtol=1e-10, atol=1e-12 * np.abs(lam).max())
        np.testing.assert_allclose(nat.w, ref.w, rtol=1e-8, atol=1e-8 * np.abs(ref.w).max())
        H, P = repaired_problem(Q, "trim", floor, ridge)
        multiplier = 0.0 if constraint is None else nat.multiplier
        grad = P.T @ (2.0 * H @ nat.w + b + multiplier * a)
        assert np.linalg.norm(grad) <= 1e-9 * (np.abs(lam).max() * np.linalg.norm(nat.w) + np.linalg.norm(b))


# ---------------------------------------------------------------- the bound |aᵀw| <= tau


def _feasible_samples(rng, P, a, tau, center, n=400):
    """Points of span(P) with |aᵀz| <= tau: random and near `center`, projected onto the slab."""
    k = P.shape[1]
    ys = np.concatenate(
        [rng.normal(size=(n, k)) * np.abs(P.T @ center).max(), P.T @ center + 1e-3 * rng.normal(size=(n, k))]
    )
    az = P.T @ a
    vals = ys @ az
    over = np.abs(vals) > tau
    ys[over] -= ((vals[over] - np.sign(vals[over]) * tau) / (az @ az))[:, None] * az
    return ys @ P.T


@pytest.mark.parametrize("psd,solver", REPAIRS_SOLVERS)
@pytest.mark.parametrize("tau_fraction", [0.0, 0.2, 0.9])
def test_bound_holds_and_beats_feasible_points(psd, solver, tau_fraction):
    rng = np.random.default_rng(21)
    d = 12
    Q = noisy_wishart(rng, d)
    b = rng.normal(size=d) * d
    floor = 0.5
    ridge = ridge_for(Q, floor) if psd == "ridge" else 0.1
    kw = dict(psd=psd, floor=floor, ridge=ridge, solver=solver, tol=1e-13)
    a = rng.normal(size=d)
    free = solve(Q, b, **kw).w
    tau = tau_fraction * abs(a @ free)
    res = solve(Q, b, constraint=(a, tau), **kw)
    assert abs(a @ res.w) <= tau + 1e-9
    assert res.constraint_active
    H, P = repaired_problem(Q, psd, floor, ridge)
    target = np.sign(a @ free) * tau
    expected, nu = kkt_minimizer(H, P, b, a, target)
    np.testing.assert_allclose(res.w, expected, rtol=1e-7, atol=1e-9 * np.abs(expected).max())
    # Same convention as the reference: 2Hw + b + ν a = 0 within the search space, ν·aᵀw0 > 0 when active.
    np.testing.assert_allclose(res.multiplier, nu, rtol=1e-7)
    assert res.multiplier * (a @ free) > 0
    f_best = objective(H, b, res.w)
    f_samples = np.einsum("ij,jk,ik->i", Z := _feasible_samples(rng, P, a, tau, res.w), H, Z) + Z @ b
    assert np.all(f_best <= f_samples + 1e-10 * abs(f_best))


@pytest.mark.parametrize("psd,solver", REPAIRS_SOLVERS)
def test_inactive_bound_leaves_solution_unchanged(psd, solver):
    rng = np.random.default_rng(5)
    Q = noisy_wishart(rng, 10)
    b = rng.normal(size=10)
    kw = dict(psd=psd, floor=0.5, ridge=ridge_for(Q, 0.5) if psd == "ridge" else 0.0, solver=solver)
    free = solve(Q, b, **kw)
    a = rng.normal(size=10)
    res = solve(Q, b, constraint=(a, abs(a @ free.w) * 1.5), **kw)
    assert not res.constraint_active and res.multiplier == 0.0
    np.testing.assert_array_equal(res.w, free.w)


# ---------------------------------------------------------------- inputs


def test_read_only_and_strided_inputs_are_accepted_and_unchanged():
    rng = np.random.default_rng(3)
    Q = noisy_wishart(rng, 9)
    b = rng.normal(size=9)
    a = rng.normal(size=9).astype(np.float32).astype(np.float64)  # exactly representable in float32
    expected = {s: solve(Q, b, psd="shift", floor=0.5, solver=s, constraint=(a, 0.1)).w for s in ("newton", "cg")}
    Qr, br, ar = Q.copy(), b.copy(), a.copy()
    for arr in (Qr, br, ar):
        arr.setflags(write=False)
    big = np.zeros((18, 18))
    big[::2, ::2] = Q
    variants = [
        (Qr, br, ar),
        (np.asfortranarray(Q), b, a),
        (big[::2, ::2], np.repeat(b, 2)[::2], a.astype(np.float32)),
    ]
    for Qv, bv, av in variants:
        for s in ("newton", "cg"):
            res = solve(Qv, bv, psd="shift", floor=0.5, solver=s, constraint=(av, 0.1))
            np.testing.assert_allclose(res.w, expected[s], rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(Qr, Q)
    np.testing.assert_array_equal(br, b)
    np.testing.assert_array_equal(ar, a)
    # Integer inputs are converted.
    Qi = np.array([[4, 1], [1, 3]])
    np.testing.assert_allclose(solve(Qi, np.array([1, 2])).w, np.linalg.solve(2.0 * Qi, -np.array([1.0, 2.0])))


def test_empty_problem():
    for backend in ("native", "numpy"):
        for psd, solver in REPAIRS_SOLVERS:
            res = solve(np.zeros((0, 0)), np.zeros(0), psd=psd, solver=solver, constraint=None, backend=backend)
            assert res.w.shape == (0,) and res.n_trimmed == 0 and res.shift == 0.0


@pytest.mark.parametrize("backend", ["native", "numpy"])
def test_bad_inputs_raise_value_error(backend):
    Q = np.eye(3)
    b = np.ones(3)
    bad = [
        (dict(Q=np.ones((3, 2)), b=b), "square"),
        (dict(Q=np.where(np.eye(3) > 0, np.nan, 0.0), b=b), "NaN"),
        (dict(Q=Q, b=np.array([1.0, np.inf, 0.0])), "NaN or infinity"),
        (dict(Q=np.triu(np.ones((3, 3))), b=b), "symmetric"),
        (dict(Q=Q, b=b, psd="clip"), "psd must be one of"),
        (dict(Q=Q, b=b, solver="lbfgs"), "solver must be one of"),
        (dict(Q=Q, b=b, psd="trim", solver="cg"), "eigendecomposition"),
        (dict(Q=Q, b=np.ones(4)), "shape"),
        (dict(Q=Q, b=b, ridge=-1.0), "ridge"),
        (dict(Q=Q, b=b, floor=np.nan), "floor"),
        (dict(Q=Q, b=b, max_iter=0), "max_iter"),
        (dict(Q=Q, b=b, constraint=(np.zeros(3), 1.0)), "all zeros"),
        (dict(Q=Q, b=b, constraint=(np.ones(3), -1.0)), "tau"),
        (dict(Q=-Q, b=b, psd="ridge", ridge=0.5), "increase ridge"),
        (dict(Q=np.zeros((2, 2)), b=np.ones(2), psd="shift", floor=0.0), "singular"),
    ]
    for kwargs, match in bad:
        Qa, ba = kwargs.pop("Q"), kwargs.pop("b")
        with pytest.raises(ValueError, match=match):
            solve(Qa, ba, backend=backend, **kwargs)


def test_core_validates_without_the_python_wrapper():
    """The C++ core checks its own inputs (ValueError) and the binding its dtypes (TypeError)."""
    Q = np.eye(3)
    b = np.ones(3)
    args = dict(ridge=0.0, psd="trim", floor=1e-8, solver="newton", a=None, tau=None, tol=1e-10, max_iter=100)
    with pytest.raises(ValueError, match="symmetric"):
        _core.minimize_quadratic(np.triu(np.ones((3, 3))), b, **args)
    with pytest.raises(ValueError, match="NaN"):
        _core.minimize_quadratic(np.full((3, 3), np.nan), b, **args)
    with pytest.raises(ValueError, match="square"):
        _core.minimize_quadratic(np.ones((2, 3)), b, **args)
    with pytest.raises(ValueError, match="length 3"):
        _core.minimize_quadratic(Q, np.ones(2), **args)
    with pytest.raises(ValueError, match="psd must be one of"):
        _core.minimize_quadratic(Q, b, **{**args, "psd": "nope"})
    with pytest.raises(ValueError, match="all zeros"):
        _core.minimize_quadratic(Q, b, **{**args, "a": np.zeros(3), "tau": 1.0})
    with pytest.raises(TypeError, match="real numeric dtype"):
        _core.minimize_quadratic(Q.astype(complex), b, **args)
    out = _core.minimize_quadratic(Q, b, **args)  # a bound struct with read-only fields
    assert {f for f in dir(out) if not f.startswith("_")} == {
        "w", "n_trimmed", "shift", "lambda_min", "iterations", "converged", "constraint_active",
        "multiplier"}


# ---------------------------------------------------------------- properties over sizes and scales


@st.composite
def problems(draw):
    d = draw(st.integers(1, 40))
    q_exp = draw(st.integers(-8, 8))
    b_exp = draw(st.integers(-8, 8))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    # Eigenvalues of mixed sign spread over three decades below 10^q_exp, in a random basis.
    lam = rng.choice([-1.0, 1.0], size=d, p=[0.3, 0.7]) * 10.0 ** rng.uniform(q_exp - 3, q_exp, size=d)
    U, _ = np.linalg.qr(rng.normal(size=(d, d)))
    Q = (U * lam) @ U.T
    Q = 0.5 * (Q + Q.T)
    b = rng.normal(size=d) * 10.0**b_exp
    a = rng.normal(size=d)
    return Q, b, a, 10.0 ** (q_exp - 4), rng


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=problems(), which=st.sampled_from(REPAIRS_SOLVERS), bounded=st.booleans())
def test_property_native_matches_reference_and_is_optimal(problem, which, bounded):
    Q, b, a, floor, rng = problem
    psd, solver = which
    d = Q.shape[0]
    lam = np.linalg.eigvalsh(Q)
    ridge = max(0.0, floor - lam[0]) + 10 * floor if psd == "ridge" else 0.0
    kw = dict(psd=psd, floor=floor, ridge=ridge, solver=solver, tol=1e-11, max_iter=50 * d + 100)
    constraint = None
    if bounded:
        free = solve(Q, b, **kw).w
        constraint = (a, 0.5 * abs(a @ free))
    nat = solve(Q, b, constraint=constraint, **kw)
    ref = solve(Q, b, constraint=constraint, backend="numpy", **kw)
    assert nat.converged
    assert nat.n_trimmed == ref.n_trimmed
    np.testing.assert_allclose(nat.shift, ref.shift, rtol=1e-8)
    np.testing.assert_allclose(nat.lambda_min, ref.lambda_min, rtol=1e-8, atol=1e-12 * np.abs(lam).max())
    scale = np.abs(ref.w).max()
    np.testing.assert_allclose(nat.w, ref.w, rtol=1e-6, atol=1e-6 * scale)
    H, P = repaired_problem(Q, psd, floor, ridge)
    if bounded:
        assert abs(a @ nat.w) <= constraint[1] * (1 + 1e-12) + 1e-14 * np.linalg.norm(a) * np.linalg.norm(nat.w)
        grad = P.T @ (2.0 * H @ nat.w + b + nat.multiplier * a)
    else:
        grad = P.T @ (2.0 * H @ nat.w + b)
    h_norm = np.abs(lam).max() + ridge + nat.shift
    assert np.linalg.norm(grad) <= 1e-8 * (h_norm * np.linalg.norm(nat.w) + np.linalg.norm(b))


def _few_dropped(d=150, k=20, seed=0):
    """Q with k of d eigenvalues negative (the trim drops them): the solve runs from the dropped side."""
    rng = np.random.default_rng(seed)
    U, _ = np.linalg.qr(rng.normal(size=(d, d)))
    lam = rng.uniform(0.1, 10, d)
    lam[:k] = -rng.uniform(0.01, 5, k)
    Q = (U * lam) @ U.T
    return 0.5 * (Q + Q.T), U[:, :k], U[:, k:], rng


@pytest.mark.parametrize("ridge", [0.0, 1e6, 1e14])
def test_trim_from_the_dropped_side_matches_reference_whatever_the_ridge(ridge):
    """M = H + V_r(s − Λ_r − ridge)V_rᵀ with s = scale + ridge: M's dropped block grows with the ridge, so a huge
    ridge costs no accuracy, and nothing of w lies along the dropped directions."""
    Q, V_r, _, rng = _few_dropped()
    b = rng.normal(size=Q.shape[0])
    nat = solve(Q, b, psd="trim", floor=1e-3, ridge=ridge)
    ref = solve(Q, b, psd="trim", floor=1e-3, ridge=ridge, backend="numpy")
    assert nat.n_trimmed == ref.n_trimmed == V_r.shape[1]
    np.testing.assert_allclose(nat.w, ref.w, rtol=1e-12, atol=1e-12 * np.abs(ref.w).max())
    assert np.abs(V_r.T @ nat.w).max() <= 1e-13 * np.abs(nat.w).max()


def test_trim_from_the_dropped_side_constraint_mostly_along_dropped_directions():
    """a = (dropped part) + 1e-6·(kept part): projected on both sides of M⁻¹, aᵀH⁺a keeps its sign and the bound is
    met as the reference meets it (no spurious 'orthogonal to every kept direction')."""
    Q, V_r, V_k, rng = _few_dropped()
    b = rng.normal(size=Q.shape[0])
    for _ in range(5):
        a = V_r @ rng.normal(size=V_r.shape[1]) + 1e-6 * V_k @ rng.normal(size=V_k.shape[1])
        nat = solve(Q, b, psd="trim", floor=1e-3, constraint=(a, 0.0))
        ref = solve(Q, b, psd="trim", floor=1e-3, constraint=(a, 0.0), backend="numpy")
        np.testing.assert_allclose(nat.w, ref.w, rtol=1e-8, atol=1e-8 * np.abs(ref.w).max())


def test_trim_huge_scale_and_numerically_singular_kept_directions_fall_back():
    """Q at 1e306 (M is formed in T's units: no overflow), and a one-hot Gram whose null space sits below the
    rounding level with floor 1e-10 (a numerically singular M breaks ‖w‖ <= ‖b‖/(2·floor) and the kept side
    takes over): finite answers within the bound."""
    rng = np.random.default_rng(0)
    A = -0.9 * np.ones((300, 300)) + np.diag(rng.uniform(1, 2, 300))
    b = rng.normal(size=300)
    big = solve(A * 1e306, b, psd="trim", floor=1e303)
    assert np.all(np.isfinite(big.w))
    np.testing.assert_allclose(big.w, solve(A * 1e306, b, psd="trim", floor=1e303, backend="numpy").w, rtol=1e-8,
                               atol=1e-8 * np.abs(big.w).max())
    for seed in range(30):
        rng = np.random.default_rng(seed)
        codes = rng.integers(0, 40, size=(2400, 3)) + np.array([0, 40, 80])
        X = np.zeros((2400, 120))
        np.put_along_axis(X, codes, 1.0, axis=1)
        b = rng.normal(size=120)
        w = solve(1e4 * (X.T @ X), b, psd="trim", floor=1e-10).w
        assert np.linalg.norm(w) <= (1 + 1e-6) * np.linalg.norm(b) / (2 * 1e-10)
