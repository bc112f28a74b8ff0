"""The DP-SGD loop kernel: native == NumPy reference, clipping bounds, the DPSGD-F / Naïve rules, Poisson sampling."""

import numpy as np
import pytest

from dpfair_native import _reference, kernels
from dpfair_native.models.dpsgd import poisson_batches

native = pytest.mark.native


def _problem(n=300, d=7, K=3, seed=0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, size=(n, d)).astype(dtype)
    w_true = rng.normal(size=d)
    y = (X @ w_true + 0.3 * rng.normal(size=n) > np.median(X @ w_true)).astype(np.float64)
    groups = rng.integers(0, K, size=n)
    return X, y, groups


def _draws(n, d, K, steps, q, seed, count_width):
    rng = np.random.default_rng(seed)
    rows, offsets = poisson_batches(n, q, steps, rng)
    grad_noise = rng.standard_normal((steps, d + 1))
    count_noise = rng.standard_normal((steps, count_width)) if count_width else None
    return rows, offsets, grad_noise, count_noise


def _run(backend, X, y, groups, rule, K, steps=40, q=0.1, seed=1, **kw):
    n, d = X.shape
    width = {"fixed": 0, "dpsgdf": 2 * K, "naive": K}[rule]
    rows, offsets, z, u = _draws(n, d, K, steps, q, seed, width)
    params0 = np.random.default_rng(seed + 7).normal(scale=0.1, size=d + 1)
    kw.setdefault("clip", np.linspace(0.3, 0.9, K))
    kw.setdefault("noise_multiplier", 1.1)
    return kernels.dpsgd_epochs(
        X, y, params0, rows, offsets, np.full(steps, 0.5), z, groups=groups, rule=rule, count_noise=u,
        expected_batch_size=q * n, backend=backend, **kw,
    )


@native
@pytest.mark.parametrize("rule", ["fixed", "dpsgdf", "naive"])
@pytest.mark.parametrize("noise", ["shared", "per_group"])
@pytest.mark.parametrize("layout", ["C64", "C32", "F64"])
def test_native_equals_reference_on_same_batches_and_noise(rule, noise, layout):
    X, y, groups = _problem(dtype=np.float32 if layout == "C32" else np.float64)
    if layout == "F64":  # strided rows: the loop goes through clip_group_gradients
        X = np.asfortranarray(X)
    kw = dict(noise=noise, count_noise_multiplier=2.0, l2=0.01, weight_bound=0.8)
    if rule == "fixed":
        kw["group_weights"] = np.array([1.0, 0.5, 2.0])
    p_nat, b_nat = _run("native", X, y, groups, rule, 3, **kw)
    p_ref, b_ref = _run("numpy", X, y, groups, rule, 3, **kw)
    np.testing.assert_allclose(b_nat, b_ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(p_nat, p_ref, rtol=1e-9, atol=1e-10)
    assert not np.allclose(p_nat, 0.0)


@pytest.mark.parametrize("backend", ["numpy", pytest.param("native", marks=native)])
@pytest.mark.parametrize("rule", ["fixed", "dpsgdf", "naive"])
def test_every_clipped_contribution_respects_its_bound(backend, rule):
    # One-row batches, σ = 0, lr = 1, b = 1, l2 = 0: the update of each step is exactly that row's weighted clipped
    # gradient a_k·ḡ_i, whose norm must equal a_k·min(‖g_i‖, C_k) <= s_k = a_k·C_k (the step's reported bound).
    X, y, groups = _problem(n=60, d=5, K=2, seed=3)
    n, d = X.shape
    K = 2
    w = np.random.default_rng(0).normal(size=d + 1)
    width = {"fixed": 0, "dpsgdf": 2 * K, "naive": K}[rule]
    u = np.random.default_rng(1).standard_normal((1, width)) if width else None
    for i in range(n):
        params, bounds = kernels.dpsgd_epochs(
            X, y, w, np.array([i]), np.array([0, 1]), np.ones(1), np.zeros((1, d + 1)), groups=groups,
            clip=np.array([0.2, 0.5]), rule=rule, count_noise=u, noise_multiplier=0.0, count_noise_multiplier=3.0,
            expected_batch_size=1.0, backend=backend,
        )
        step = w - params
        r = 0.5 * (1 + np.tanh(0.5 * (X[i] @ w[:d] + w[d]))) - y[i]
        g = r * np.append(X[i], 1.0)
        s_k = bounds[0, groups[i]]
        assert np.linalg.norm(step) <= s_k * (1 + 1e-12)
        c = [0.2, 0.5][groups[i]]
        a_k, c_k = {"fixed": (1.0, c), "naive": (s_k / c, c), "dpsgdf": (1.0, s_k)}[rule]
        np.testing.assert_allclose(step, a_k * g * min(1.0, c_k / np.linalg.norm(g)), rtol=1e-10, atol=1e-14)


def test_sigma_zero_infinite_clip_is_plain_minibatch_sgd():
    X, y, groups = _problem(n=200, d=6, K=1, seed=5)
    n, d = X.shape
    steps, q, lr, l2 = 50, 0.15, 0.7, 0.02
    rows, offsets, z, _ = _draws(n, d, 1, steps, q, seed=9, count_width=0)
    got, _ = kernels.dpsgd_epochs(X, y, np.zeros(d + 1), rows, offsets, np.full(steps, lr), z, clip=np.inf,
                                  noise_multiplier=0.0, expected_batch_size=q * n, l2=l2, backend="numpy")
    w, b = np.zeros(d), 0.0
    for t in range(steps):
        B = rows[offsets[t]:offsets[t + 1]]
        r = 1 / (1 + np.exp(-(X[B] @ w + b))) - y[B]
        gw, gb = X[B].T @ r / (q * n) + l2 * w, r.sum() / (q * n)
        w, b = w - lr * gw, b - lr * gb
    np.testing.assert_allclose(got, np.append(w, b), rtol=1e-10, atol=1e-12)
    if kernels.native_available():
        nat, _ = kernels.dpsgd_epochs(X, y, np.zeros(d + 1), rows, offsets, np.full(steps, lr), z, clip=np.inf,
                                      noise_multiplier=0.0, expected_batch_size=q * n, l2=l2)
        np.testing.assert_allclose(nat, got, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("backend", ["numpy", pytest.param("native", marks=native)])
def test_dpsgdf_bounds_and_naive_weights_follow_the_thesis_formulas(backend):
    # With σ₁ = 0 the released counts are the true ones: check Algorithm 7 line 14 and Algorithm 8 line 7.
    X, y, groups = _problem(n=400, d=5, K=3, seed=11)
    n, d = X.shape
    K, C0, b = 3, 0.3, 37.0
    w = np.random.default_rng(2).normal(size=d + 1)
    batch = np.random.default_rng(3).choice(n, size=40, replace=False)
    common = dict(groups=groups, clip=np.full(K, C0), noise_multiplier=0.0, count_noise_multiplier=0.0,
                  expected_batch_size=b, backend=backend)
    one = (w, batch, np.array([0, batch.size]), np.ones(1), np.zeros((1, d + 1)))
    _, bounds = kernels.dpsgd_epochs(X, y, *one, rule="dpsgdf", count_noise=np.zeros((1, 2 * K)), **common)
    r = 0.5 * (1 + np.tanh(0.5 * (X[batch] @ w[:d] + w[d]))) - y[batch]
    norms = np.abs(r) * np.sqrt(1 + np.sum(X[batch] ** 2, axis=1))
    gb = groups[batch]
    m_k = np.array([np.sum((norms > C0) & (gb == k)) for k in range(K)], float)
    b_k = np.array([np.sum(gb == k) for k in range(K)], float)
    np.testing.assert_allclose(bounds[0], C0 * (1 + (m_k / b_k) / (m_k.sum() / b)), rtol=1e-12)
    _, bounds = kernels.dpsgd_epochs(X, y, *one, rule="naive", count_noise=np.zeros((1, K)), **common)
    np.testing.assert_allclose(bounds[0], C0 * (b / K) / b_k, rtol=1e-12)


@native
def test_weight_bound_projects_w_before_each_step():
    X, y, groups = _problem(n=50, d=4, K=1)
    params = np.array([3.0, 4.0, 0.0, 0.0, 9.0])  # ‖w‖ = 5
    out, _ = kernels.dpsgd_epochs(X, y, params, np.zeros(0, np.int64), np.array([0, 0]), np.ones(1),
                                  np.zeros((1, 5)), clip=1.0, expected_batch_size=1.0, weight_bound=1.0)
    np.testing.assert_allclose(out, [0.6, 0.8, 0.0, 0.0, 9.0])  # empty batch: only the projection acts


def test_poisson_batches_is_poisson_sampling():
    n, q, steps = 2000, 0.01, 3000
    rows, offsets = poisson_batches(n, q, steps, np.random.default_rng(0))
    sizes = np.diff(offsets)
    assert offsets[0] == 0 and offsets[-1] == rows.size and rows.min() >= 0 and rows.max() < n
    # batch sizes ~ Binomial(n, q): mean nq = 20 (se 0.08), variance nq(1-q) = 19.8 (se ~0.5)
    assert abs(sizes.mean() - n * q) < 0.5
    assert abs(sizes.var() - n * q * (1 - q)) < 2.5
    # within a batch rows are distinct and sorted; each row is included with probability q in every step
    assert all(np.all(np.diff(rows[offsets[t]:offsets[t + 1]]) > 0) for t in range(0, steps, 97))
    freq = np.bincount(rows, minlength=n) / steps  # ~ q ± sqrt(q(1-q)/steps) = 0.01 ± 0.0018
    assert abs(freq.mean() - q) < 5e-4 and freq.std() < 0.0025
    # subset sampling maps through `rows`; q = 1 takes every row every step
    sub = np.array([5, 9, 11])
    r1, o1 = poisson_batches(3, 1.0, 4, np.random.default_rng(1), rows=sub)
    np.testing.assert_array_equal(r1, np.tile(sub, 4))
    np.testing.assert_array_equal(o1, [0, 3, 6, 9, 12])


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(rule="other"), "rule"),
        (dict(noise="loud"), "noise"),
        (dict(clip=0.0), "clip"),
        (dict(clip=np.inf, noise_multiplier=1.0), "finite"),
        (dict(noise_multiplier=-1.0), "noise_multiplier"),
        (dict(expected_batch_size=0.0), "expected_batch_size"),
        (dict(l2=-0.1), "l2"),
        (dict(weight_bound=0.0), "weight_bound"),
        (dict(rule="dpsgdf"), "count_noise"),
        (dict(rule="naive", group_weights=[1.0]), "group_weights"),
        (dict(group_weights=[-1.0]), "group_weights"),
    ],
)
@pytest.mark.parametrize("backend", ["numpy", pytest.param("native", marks=native)])
def test_bad_parameters_raise_value_error(kw, match, backend):
    X, y, _ = _problem(n=20, d=3, K=1)
    args = dict(clip=1.0, noise_multiplier=0.5, expected_batch_size=2.0, backend=backend)
    args.update(kw)
    with pytest.raises(ValueError, match=match):
        kernels.dpsgd_epochs(X, y, np.zeros(4), np.array([0, 1]), np.array([0, 2]), np.ones(1), np.zeros((1, 4)),
                             **args)


@pytest.mark.parametrize("backend", ["numpy", pytest.param("native", marks=native)])
def test_bad_batches_raise_value_error(backend):
    X, y, _ = _problem(n=20, d=3, K=1)
    base = dict(clip=1.0, expected_batch_size=2.0, backend=backend)
    with pytest.raises(ValueError, match="batch_rows"):
        kernels.dpsgd_epochs(X, y, np.zeros(4), np.array([0, 20]), np.array([0, 2]), np.ones(1), np.zeros((1, 4)),
                             **base)
    with pytest.raises(ValueError, match="batch_offsets"):
        kernels.dpsgd_epochs(X, y, np.zeros(4), np.array([0, 1]), np.array([0, 3]), np.ones(1), np.zeros((1, 4)),
                             **base)
    with pytest.raises(ValueError, match="grad_noise"):
        kernels.dpsgd_epochs(X, y, np.zeros(4), np.array([0, 1]), np.array([0, 2]), np.ones(1), np.zeros((2, 4)),
                             **base)
    with pytest.raises(ValueError, match="groups"):
        kernels.dpsgd_epochs(X, y, np.zeros(4), np.array([0, 1]), np.array([0, 2]), np.ones(1), np.zeros((1, 4)),
                             groups=np.ones(20, dtype=np.int64), **base)


def test_reference_twin_is_the_kernel_numpy_path():
    # kernels.dpsgd_epochs(backend="numpy") must be exactly _reference.dpsgd_epochs on validated inputs
    X, y, groups = _problem(n=80, d=4, K=2)
    rows, offsets, z, u = _draws(80, 4, 2, 10, 0.2, 4, 4)
    a = kernels.dpsgd_epochs(X, y, np.zeros(5), rows, offsets, np.full(10, 0.3), z, groups=groups, clip=[0.5, 0.5],
                             rule="dpsgdf", count_noise=u, noise_multiplier=1.0, count_noise_multiplier=2.0,
                             expected_batch_size=16.0, backend="numpy")
    b = _reference.dpsgd_epochs(X, y, np.zeros(5), rows, offsets, np.full(10, 0.3), z, groups, np.array([0.5, 0.5]),
                                None, "dpsgdf", u, 1.0, 2.0, 16.0, 0.0, "shared", np.inf)
    np.testing.assert_array_equal(a[0], b[0])


@pytest.mark.parametrize("backend", ["numpy", pytest.param("native", marks=native)])
@pytest.mark.parametrize("layout", ["C64", "F64", "csr"])
def test_nan_residual_is_not_summed_unclipped(backend, layout, overflow_rows):
    """Row 0's products are +inf and −inf (weights far into divergence), so natively its score is NaN (the NumPy
    twin's BLAS product may give ±inf, a finite residual it clips). A NaN residual fails `norm > C`, so it used to
    enter the sum unclipped (review 15); it must move the step by at most lr·C/b on every path (C64: the fused
    loop, F64: clip_group_gradients, csr: the packed rows)."""
    X = overflow_rows.copy()
    if layout == "F64":
        X = np.asfortranarray(X)
    elif layout == "csr":
        X = pytest.importorskip("scipy.sparse").csr_matrix(X)
    y, w = np.array([1.0, 0.0, 1.0]), np.array([1e300, -1e300, 0, 0, 0, 0, 0, 0, 0.0])

    def step(rows):
        return kernels.dpsgd_epochs(X, y, w, np.array(rows), np.array([0, len(rows)]), [1.0], np.zeros((1, 9)),
                                    clip=1.0, expected_batch_size=1.0, backend=backend)[0]

    with np.errstate(over="ignore", invalid="ignore"):  # the NumPy twin's scores overflow too
        with_row0, without = step([0, 1, 2]), step([1, 2])
    assert np.all(np.isfinite(with_row0))
    assert np.linalg.norm(with_row0 - without) <= 1.0
    assert without[8] == pytest.approx(-1.0 / 1.5)  # row 1's residual 1 clipped from norm 1.5 to 1; row 2's is 0
