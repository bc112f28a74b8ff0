"""Native poly2_coefficients against its NumPy reference: b = Σ a_i x_i, Q = Σ c_i x_i x_iᵀ, group sums/counts."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpfair_native import kernels

pytestmark = pytest.mark.native


def _scales(X, a, c):
    """Per-output magnitudes that bound every entry (Cauchy–Schwarz), so tolerances are relative to them."""
    X = np.asarray(X, dtype=np.float64)
    sq = np.abs(c) @ (X * X) if X.size else np.zeros(X.shape[1])
    return (
        max(1e-300, float(np.max(np.abs(a) @ np.abs(X), initial=0.0))),
        max(1e-300, float(np.max(sq, initial=0.0))),
        max(1e-300, float(np.max(np.abs(X), initial=0.0)) * max(1, X.shape[0])),
    )


def assert_matches_reference(X, a, c, groups=None, n_groups=None, n_threads=2, rtol=1e-10):
    native = kernels.poly2_coefficients(X, a, c, groups=groups, n_groups=n_groups, n_threads=n_threads)
    ref = kernels.poly2_coefficients(X, a, c, groups=groups, n_groups=n_groups, backend="numpy")
    sb, sq, sg = _scales(X, a, c)
    b, Q, gs, gc = native
    assert b.dtype == Q.dtype == gs.dtype == np.float64 and gc.dtype == np.int64
    assert b.shape == ref[0].shape and Q.shape == ref[1].shape and gs.shape == ref[2].shape
    np.testing.assert_allclose(b, ref[0], rtol=0, atol=rtol * sb)
    np.testing.assert_allclose(Q, ref[1], rtol=0, atol=rtol * sq)
    np.testing.assert_array_equal(Q, Q.T)
    np.testing.assert_allclose(gs, ref[2], rtol=0, atol=rtol * sg)
    np.testing.assert_array_equal(gc, ref[3])
    return native


def _layouts(X):
    """The same data as C order, F order, strided, reversed and column-reversed views."""
    return {
        "C": X,
        "F": np.asfortranarray(X),
        "step2x3": X[::2, ::3],
        "rows_reversed": X[::-1],
        "cols_reversed_F": np.asfortranarray(X)[:, ::-1],
        "both_reversed_step": X[::-3, ::-2],
    }


@pytest.mark.parametrize("shape", [(1, 1), (1, 6), (6, 1), (2, 2), (37, 3), (300, 17), (1500, 64), (4000, 9)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("with_groups", [False, True])
def test_matches_reference_on_layouts(shape, dtype, with_groups):
    rng = np.random.default_rng(hash((shape, with_groups)) % 2**32)
    X = (rng.standard_normal(shape) * 3).astype(dtype)
    for _name, V in _layouts(X).items():
        n = V.shape[0]
        a = rng.standard_normal(n)
        c = rng.standard_normal(n)  # mixed signs: both rank-update paths
        groups = rng.integers(0, 4, n) if with_groups else None
        assert_matches_reference(V, a, c, groups=groups, n_groups=4 if with_groups else None)


def test_float32_is_accumulated_in_float64():
    rng = np.random.default_rng(3)
    X = rng.random((3000, 5)).astype(np.float32) + np.float32(1000)
    ones = np.ones(3000)
    b, Q, _, _ = kernels.poly2_coefficients(X, ones, ones, n_threads=1)
    X64 = X.astype(np.float64)
    np.testing.assert_allclose(b, X64.sum(0), rtol=1e-13)
    np.testing.assert_allclose(Q, X64.T @ X64, rtol=1e-13)


@pytest.mark.parametrize("c_kind", ["positive", "negative", "zero", "mixed_with_zeros"])
def test_weight_signs(c_kind):
    rng = np.random.default_rng(5)
    X = rng.random((700, 12))
    c = {
        "positive": rng.random(700) + 0.1,
        "negative": -rng.random(700),
        "zero": np.zeros(700),
        "mixed_with_zeros": rng.choice([-2.0, 0.0, 0.125], 700),
    }[c_kind]
    b, Q, _, _ = assert_matches_reference(X, 0.5 - rng.integers(0, 2, 700), c)
    if c_kind == "zero":
        assert not Q.any()


def test_scalar_weights_and_default_n_groups():
    rng = np.random.default_rng(6)
    X = rng.random((90, 4))
    groups = rng.integers(0, 3, 90)
    groups[0] = 2
    b, Q, gs, gc = kernels.poly2_coefficients(X, 1.0, 0.125, groups=groups)
    np.testing.assert_allclose(b, X.sum(0), rtol=1e-12)
    np.testing.assert_allclose(Q, X.T @ X / 8, rtol=1e-12)
    assert gs.shape == (3, 4) and gc.sum() == 90
    _, _, gs5, gc5 = kernels.poly2_coefficients(X, 1.0, 0.125, groups=groups, n_groups=5)
    assert gs5.shape == (5, 4) and not gs5[3:].any() and list(gc5[3:]) == [0, 0]


def test_empty_rows():
    X = np.zeros((0, 3))
    b, Q, gs, gc = kernels.poly2_coefficients(X, np.zeros(0), np.zeros(0), groups=np.zeros(0, int), n_groups=2)
    assert not b.any() and not Q.any() and Q.shape == (3, 3) and gs.shape == (2, 3) and list(gc) == [0, 0]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_thread_counts_agree(dtype):
    # Big enough that 7 threads really run (the core uses one thread per 50k elements).
    rng = np.random.default_rng(7)
    X = rng.random((24000, 20)).astype(dtype)
    a, c = rng.standard_normal(24000), rng.standard_normal(24000)
    groups = rng.integers(0, 3, 24000)
    results = [kernels.poly2_coefficients(X, a, c, groups=groups, n_threads=t) for t in (1, 2, 7)]
    sb, sq, sg = _scales(X, a, c)
    for other in results[1:]:
        np.testing.assert_allclose(other[0], results[0][0], rtol=0, atol=1e-12 * sb)
        np.testing.assert_allclose(other[1], results[0][1], rtol=0, atol=1e-12 * sq)
        np.testing.assert_allclose(other[2], results[0][2], rtol=0, atol=1e-12 * sg)
        np.testing.assert_array_equal(other[3], results[0][3])
    assert_matches_reference(X, a, c, groups=groups, n_threads=7)


def test_read_only_inputs_accepted_and_unchanged():
    rng = np.random.default_rng(8)
    X = rng.random((500, 6))
    a, c, groups = rng.random(500), rng.standard_normal(500), rng.integers(0, 2, 500)
    copies = [v.copy() for v in (X, a, c, groups)]
    for v in (X, a, c, groups):
        v.setflags(write=False)
    assert_matches_reference(X, a, c, groups=groups)
    assert_matches_reference(X[::-1, ::2], a, c, groups=groups)
    for v, orig in zip((X, a, c, groups), copies):
        np.testing.assert_array_equal(v, orig)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("where", [0, 777, 29999])  # first block, a later block, the last thread's chunk
def test_non_finite_X_raises(bad, where):
    X = np.ones((30000, 4))
    X[where, 2] = bad
    with pytest.raises(ValueError, match="X contains NaN or infinity"):
        kernels.poly2_coefficients(X, 1.0, 1.0, n_threads=2)
    with pytest.raises(ValueError, match="X contains NaN or infinity"):
        kernels.poly2_coefficients(np.asfortranarray(X).astype(np.float32), 1.0, -1.0, n_threads=1)


def test_binding_rejects_bad_input_directly():
    from dpfair_native import _core

    X = np.ones((4, 2))
    ones = np.ones(4)
    with pytest.raises(ValueError, match="groups"):
        _core.poly2_coefficients(X, ones, ones, np.array([0, 1, 2, 5]), 3, 1)
    with pytest.raises(ValueError, match="groups"):
        _core.poly2_coefficients(X, ones, ones, np.array([0, -1, 0, 0]), 3, 1)
    with pytest.raises(ValueError, match="a must have shape"):
        _core.poly2_coefficients(X, np.ones(3), ones, None, -1, 1)
    with pytest.raises(TypeError, match="float32 or float64"):
        _core.poly2_coefficients(X.astype(np.int64), ones, ones, None, -1, 1)
    with pytest.raises(ValueError, match="2-D"):
        _core.poly2_coefficients(np.ones(4), ones, ones, None, -1, 1)
    b, Q, gs, gc = _core.poly2_coefficients(X, ones, ones, np.array([0, 1, 1, 0]), None, 1)  # None: max + 1
    assert gs.shape == (2, 2) and list(gc) == [2, 2]


def test_non_native_byte_order_is_converted():
    rng = np.random.default_rng(9)
    X = rng.random((50, 3))
    assert_matches_reference(X.astype(">f8"), rng.random(50), rng.random(50))


@st.composite
def _problems(draw):
    n = draw(st.integers(1, 80))
    d = draw(st.integers(1, 12))
    dtype = draw(st.sampled_from([np.float64, np.float32]))
    order = draw(st.sampled_from(["C", "F"]))
    step_r = draw(st.sampled_from([1, 2, -1, -3]))
    step_c = draw(st.sampled_from([1, 2, -1]))
    seed = draw(st.integers(0, 2**32 - 1))
    with_groups = draw(st.booleans())
    threads = draw(st.sampled_from([1, 2, 3]))
    rng = np.random.default_rng(seed)
    base = np.array(rng.standard_normal((n * abs(step_r), d * abs(step_c))) * 10, dtype=dtype, order=order)
    X = base[:: step_r, :: step_c]
    m = X.shape[0]
    groups = rng.integers(0, 3, m) if with_groups else None
    return X, rng.standard_normal(m), rng.standard_normal(m), groups, threads


@settings(max_examples=60, deadline=None)
@given(_problems())
def test_property_matches_reference(problem):
    X, a, c, groups, threads = problem
    assert_matches_reference(X, a, c, groups=groups, n_threads=threads)
