"""The fairness-constrained DP-SGD loop kernel: native == NumPy reference, state carried across calls, bad input."""

import numpy as np
import pytest

from dpfair_native import kernels
from dpfair_native.models.dpsgd import poisson_batches

native = pytest.mark.native


def _problem(n=300, d=6, K=3, seed=0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, size=(n, d)).astype(dtype)
    groups = rng.integers(0, K, size=n)
    y = (X[:, 0] + 0.3 * groups + 0.3 * rng.normal(size=n) > 0.9).astype(np.float64)
    return X, y, groups


def _run(backend, X, y, groups, K, E, active, steps=30, q=0.1, seed=1, calls=2, **kw):
    """``calls`` loop calls carrying the state; ``packed=True`` packs a CSR X once for all of them."""
    n, d = X.shape
    if kw.pop("packed", False):
        kw["packed"] = kernels.pack_csr_rows(X, y, groups=groups, n_groups=K, backend=backend)
    rng = np.random.default_rng(seed)
    events = np.zeros(n, dtype=np.int64) if E == 1 else y.astype(np.int64)
    state = kernels.constrained_sgd_state(d, K, E)
    kw.setdefault("noise_multiplier", 1.1)
    kw.setdefault("hist_noise_multiplier", 3.0)
    kw.setdefault("dual_learning_rate", 2.0)
    for _ in range(calls):  # state carried from call to call, as the estimator does per epoch
        rows, offsets = poisson_batches(n, q, steps, rng)
        state = kernels.constrained_sgd_epochs(
            X, y, groups, events, np.asarray(active), rows, offsets, np.full(steps, 0.7),
            rng.standard_normal((steps, d + 1)), rng.standard_normal((steps, 2 * K * E)), state,
            clip=0.8, expected_batch_size=q * n, l2=0.01, bound=0.01, temperature=0.7,
            ema=0.2, avg_start=steps // 2, backend=backend, **kw,
        )
    return state


@native
@pytest.mark.parametrize("layout", ["C64", "C32", "F64"])
@pytest.mark.parametrize("E,active", [(1, [1]), (2, [0, 1]), (2, [1, 1])])
def test_native_equals_reference(layout, E, active):
    X, y, groups = _problem(dtype=np.float32 if layout == "C32" else np.float64)
    if layout == "F64":
        X = np.asfortranarray(X)
    nat = _run("native", X, y, groups, 3, E, active)
    ref = _run("numpy", X, y, groups, 3, E, active)
    for a, b in zip(nat, ref):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-10)
    assert nat.step_index == 60 and nat.avg_count == 45
    assert np.any(nat.lambdas > 0), "the multipliers never moved: the dual step is not exercised"
    assert not np.allclose(nat.avg, 0.0)


@pytest.mark.parametrize("backend", ["numpy", pytest.param("native", marks=native)])
def test_inactive_events_keep_zero_multipliers_and_zero_dual_rate_is_plain_dpsgd(backend):
    X, y, groups = _problem()
    st = _run(backend, X, y, groups, 3, 2, [0, 1])
    assert np.all(st.lambdas[:, :, 0] == 0) and np.any(st.lambdas[:, :, 1] > 0)
    # dual rate 0: multipliers stay 0, so the step is DP-SGD's; the same run with another hist noise is identical
    a = _run(backend, X, y, groups, 3, 1, [1], dual_learning_rate=0.0)
    b = _run(backend, X, y, groups, 3, 1, [1], dual_learning_rate=0.0, hist_noise_multiplier=50.0)
    np.testing.assert_allclose(a.params, b.params)
    assert np.all(a.lambdas == 0)


@pytest.mark.parametrize("backend", ["numpy", pytest.param("native", marks=native)])
def test_bad_input_raises(backend):
    X, y, groups = _problem(n=50)
    n, d = X.shape
    st = kernels.constrained_sgd_state(d, 3, 1)
    rows, offsets = np.arange(10), np.array([0, 10])
    good = dict(expected_batch_size=10.0, backend=backend)
    args = (X, y, groups, np.zeros(n, dtype=np.int64), np.array([1]), rows, offsets, [0.1], np.zeros((1, d + 1)),
            np.zeros((1, 6)), st)
    kernels.constrained_sgd_epochs(*args, **good)
    with pytest.raises(ValueError, match="groups"):
        kernels.constrained_sgd_epochs(*args[:2], groups + 5, *args[3:], **good)
    with pytest.raises(ValueError, match="hist_noise"):
        kernels.constrained_sgd_epochs(*args[:9], np.zeros((1, 4)), st, **good)
    with pytest.raises(ValueError, match="ema"):
        kernels.constrained_sgd_epochs(*args, ema=0.0, **good)
    with pytest.raises(ValueError, match="clip"):
        kernels.constrained_sgd_epochs(*args, clip=np.inf, noise_multiplier=1.0, **good)
    with pytest.raises(ValueError, match="lambdas"):
        kernels.constrained_sgd_epochs(*args[:10], st._replace(lambdas=-np.ones((2, 3, 1))), **good)
    with pytest.raises(ValueError, match="batch_rows"):
        kernels.constrained_sgd_epochs(*args[:5], np.array([0, n]), np.array([0, 2]), *args[7:], **good)


def _sparse(X, rng, index_dtype, density=0.3):
    """X with about 1 − density of its entries zeroed, as CSR with the given index dtype (rows left unsorted)."""
    sparse = pytest.importorskip("scipy.sparse")
    X = np.where(rng.random(X.shape) < density, X, 0).astype(X.dtype)
    A = sparse.csr_matrix(X)
    A.indices, A.indptr = A.indices.astype(index_dtype), A.indptr.astype(index_dtype)
    return X, A


@pytest.mark.parametrize("backend", ["numpy", pytest.param("native", marks=native)])
@pytest.mark.parametrize("dtype,index_dtype", [(np.float64, np.int32), (np.float32, np.int64)])
@pytest.mark.parametrize("E,active", [(1, [1]), (2, [1, 1])])
def test_csr_equals_dense(backend, dtype, index_dtype, E, active):
    X, y, groups = _problem(d=12, dtype=dtype)
    Xd, A = _sparse(X, np.random.default_rng(5), index_dtype)
    sp = _run(backend, A, y, groups, 3, E, active)
    dense = _run("numpy", Xd, y, groups, 3, E, active)
    for a, b in zip(sp, dense):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-10)
    assert np.any(sp.lambdas > 0) and not np.allclose(sp.avg, 0.0)


@native
def test_csr_rows_in_any_order_and_bad_csr_raise():
    sparse = pytest.importorskip("scipy.sparse")
    X, y, groups = _problem(d=12)
    Xd, A = _sparse(X, np.random.default_rng(6), np.int32)
    B = A.copy()
    for i in range(B.shape[0]):  # reverse each row's non-zeros: same matrix, unsorted indices
        lo, hi = B.indptr[i], B.indptr[i + 1]
        B.indices[lo:hi], B.data[lo:hi] = B.indices[lo:hi][::-1].copy(), B.data[lo:hi][::-1].copy()
    B.has_sorted_indices = False
    a, b = _run("native", A, y, groups, 3, 1, [1]), _run("native", B, y, groups, 3, 1, [1])
    np.testing.assert_allclose(a.params, b.params, rtol=1e-12, atol=1e-13)
    bad = A.copy()
    bad.data[3] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        _run("native", bad, y, groups, 3, 1, [1])
    assert sparse.issparse(A)


@native
@pytest.mark.parametrize("dtype,index_dtype", [(np.float64, np.int32), (np.float32, np.int64)])
@pytest.mark.parametrize("center", [False, True])
def test_packed_equals_unpacked_over_several_calls(dtype, index_dtype, center):
    """Rows packed once (as the estimator does for its one call per epoch) give exactly the unpacked iterates."""
    X, y, groups = _problem(d=12, dtype=dtype)
    _, A = _sparse(X, np.random.default_rng(7), index_dtype)
    kw = dict(calls=3, center=np.full(12, 0.2) if center else None)
    packed = _run("native", A, y, groups, 3, 2, [1, 1], packed=True, **kw)
    plain = _run("native", A, y, groups, 3, 2, [1, 1], **kw)
    for a, b in zip(packed, plain):
        np.testing.assert_array_equal(a, b)
    assert np.any(packed.lambdas > 0) and packed.step_index == 90


@native
def test_packed_rows_must_match_the_call():
    X, y, groups = _problem(n=50, d=12)
    _, A = _sparse(X, np.random.default_rng(8), np.int32)
    n, d = A.shape
    packed = kernels.pack_csr_rows(A, y, groups=groups, n_groups=3)
    args = (np.zeros(n, dtype=np.int64), np.array([1]), np.arange(10), np.array([0, 10]), [0.1],
            np.zeros((1, d + 1)), np.zeros((1, 6)), kernels.constrained_sgd_state(d, 3, 1))
    kernels.constrained_sgd_epochs(A, y, groups, *args, expected_batch_size=10.0, packed=packed)
    with pytest.raises(ValueError, match="same X, y and groups"):
        kernels.constrained_sgd_epochs(A, y.copy(), groups, *args, expected_batch_size=10.0, packed=packed)
    other = kernels.pack_csr_rows(A, y, groups=groups, n_groups=4)
    with pytest.raises(ValueError, match="n_groups"):
        kernels.constrained_sgd_epochs(A, y, groups, *args, expected_batch_size=10.0, packed=other)
    bad = A.copy()
    bad.data[bad.indptr[5]] = np.nan  # row 5, visited by the batch: its fault, recorded while packing, is raised
    with pytest.raises(ValueError, match="NaN"):
        kernels.constrained_sgd_epochs(bad, y, groups, *args, expected_batch_size=10.0,
                                       packed=kernels.pack_csr_rows(bad, y, groups=groups, n_groups=3))


@pytest.mark.parametrize("backend", ["numpy", pytest.param("native", marks=native)])
@pytest.mark.parametrize("layout", ["dense", "csr"])
def test_nan_coefficient_is_not_summed_unclipped(backend, layout, overflow_rows):
    """A NaN coefficient fails `norm > C`, so it used to enter the sum unclipped (review 15): row 0 must move the
    step by at most lr·C/b (natively it contributes 0; the NumPy twin's BLAS score is ±inf, a residual it clips)."""
    X = overflow_rows.copy()
    if layout == "csr":
        X = pytest.importorskip("scipy.sparse").csr_matrix(X)
    y, zeros = np.array([1.0, 0.0, 1.0]), np.zeros(3, dtype=np.int64)

    def step(rows):
        st = kernels.constrained_sgd_state(8, 1, 1)._replace(params=np.array([1e300, -1e300, 0, 0, 0, 0, 0, 0, 0.0]))
        return kernels.constrained_sgd_epochs(
            X, y, zeros, zeros, np.array([1]), np.array(rows), np.array([0, len(rows)]), [1.0], np.zeros((1, 9)),
            np.zeros((1, 2)), st, clip=1.0, expected_batch_size=1.0, dual_learning_rate=0.0, backend=backend)

    with np.errstate(over="ignore", invalid="ignore"):  # the NumPy twin's scores overflow too
        with_row0, without = step([0, 1, 2]), step([1, 2])
    assert np.all(np.isfinite(with_row0.params))
    assert np.linalg.norm(with_row0.params - without.params) <= 1.0  # row 0 moves the step by <= lr·C/b
    assert without.params[8] == pytest.approx(-1.0 / 1.5)  # row 1 clipped from norm 1.5 to 1, row 2's a is 0


@pytest.mark.parametrize("backend", ["native", "numpy"])
def test_a_subnormal_gradient_raises_no_warning(backend):
    """A row scored about −720 has a subnormal residual σ(z) − y, so the clip's C/‖g‖ overflows; the NumPy twins
    used to warn then ("overflow encountered in divide"), a signal that depends on one record being in the batch.
    Checked for the constrained loop and for clip_group_gradients (the DP-SGD twins' clip)."""
    import warnings

    X = np.array([[0.5], [0.2], [720.0]])
    y = np.array([0.0, 1.0, 0.0])
    g = np.zeros(3, np.int64)
    state = kernels.constrained_sgd_state(1, 1, 1)._replace(params=np.array([-1.0, 0.0]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kernels.constrained_sgd_epochs(X, y, g, np.zeros(3, np.int64), np.array([1]), np.arange(3),
                                       np.array([0, 3]), np.ones(1), np.zeros((1, 2)), np.zeros((1, 2)), state,
                                       noise_multiplier=1.0, hist_noise_multiplier=3.0, clip=1.0,
                                       expected_batch_size=1.0, backend=backend)
        kernels.clip_group_gradients(X, y, np.array([-1.0]), 0.0, np.arange(3), g, np.ones(1), backend=backend)
