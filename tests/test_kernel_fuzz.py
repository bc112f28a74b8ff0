"""Fuzzing the native kernels against the NumPy reference where the kernel-owner tests do not reach: integer, bool and
non-native-byte-order dtypes, extreme magnitudes (1e±100, subnormals), saturated logistic scores, and the DP-SGD loop.
Run under ASan/UBSan by .ci/sanitize."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpfair_native import kernels

pytestmark = pytest.mark.native

DTYPES = [np.float64, np.float32, ">f8", "<f4", np.int8, np.int64, np.uint16, np.bool_]
SCALES = [1.0, 1e-100, 1e100, 5e-324, 1e-30]


def _close(a, b, rtol):
    for x, y in zip(a, b):
        np.testing.assert_allclose(x, y, rtol=rtol, atol=0)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(0, 40), d=st.integers(1, 9), dtype=st.sampled_from(DTYPES), scale=st.sampled_from(SCALES),
       seed=st.integers(0, 2**32 - 1), threads=st.sampled_from([1, 2, 4]), transpose=st.booleans())
def test_poly2_dtypes_and_magnitudes(n, d, dtype, scale, seed, threads, transpose):
    rng = np.random.default_rng(seed)
    raw = rng.standard_normal((d, n)).T if transpose else rng.standard_normal((n, d))  # F or C order
    if np.dtype(dtype).kind == "b":
        X = raw > 0
    elif np.dtype(dtype).kind in "iu":
        X = np.clip(np.round(raw * 20), 0 if np.dtype(dtype).kind == "u" else -100, 100).astype(dtype)
    else:
        with np.errstate(over="ignore"):
            X = (raw * scale).astype(dtype)
    a, c = rng.standard_normal(n), rng.random(n)
    groups = rng.integers(0, 3, n)
    if not np.all(np.isfinite(X)):  # float32 overflow: both backends refuse, naming X
        for backend in ("native", "numpy"):
            with pytest.raises(ValueError, match="X contains NaN or infinity"):
                kernels.poly2_coefficients(X, a, c, groups=groups, n_groups=3, backend=backend)
        return
    native = kernels.poly2_coefficients(X, a, c, groups=groups, n_groups=3, n_threads=threads)
    ref = kernels.poly2_coefficients(X, a, c, groups=groups, n_groups=3, backend="numpy")
    _close(native, ref, 1e-9)
    assert all(np.all(np.isfinite(v)) for v in native)
    Q = native[1]
    np.testing.assert_array_equal(Q, Q.T)


@settings(max_examples=80, deadline=None)
@given(n=st.integers(0, 80), cards=st.lists(st.integers(1, 6), min_size=1, max_size=4), numeric=st.integers(0, 3),
       damage=st.sampled_from([0.0, 0.005, 0.2]), seed=st.integers(0, 2**32 - 1), threads=st.sampled_from([1, 2]),
       single=st.booleans(), wide=st.booleans())
def test_poly2_csr_one_hot_hint_matches_reference(n, cards, numeric, damage, seed, threads, single, wide):
    """one_hot_groups on random one-hot rows, some broken (no value, two values, a value other than 1, a stored 0),
    groups in a random column order: the same b, Q and group sums as the reference, whichever groups the pass uses."""
    sp = pytest.importorskip("scipy.sparse")
    rng = np.random.default_rng(seed)
    d = numeric + sum(cards)
    perm = rng.permutation(d)
    dense = np.zeros((n, d))
    dense[:, perm[:numeric]] = np.where(rng.random((n, numeric)) < 0.5, rng.normal(size=(n, numeric)), 0.0)
    groups, offset = [], numeric
    for k in cards:
        cols = perm[offset:offset + k]
        offset += k
        groups.append(cols.tolist())
        p = 1.0 / np.arange(1, k + 1) ** 2
        dense[np.arange(n), cols[rng.choice(k, size=n, p=p / p.sum())]] = 1.0
        broken = rng.random(n) < damage
        dense[np.ix_(broken, cols)] = rng.choice([0.0, 1.0, 0.5], size=(int(broken.sum()), k))
    X = sp.csr_matrix(dense.astype(np.float32 if single else np.float64))
    if X.nnz and rng.random() < 0.3:
        X.data[rng.integers(X.nnz)] = 0.0  # a stored zero
    if wide:
        X.indices, X.indptr = X.indices.astype(np.int64), X.indptr.astype(np.int64)
    a, c = rng.normal(size=n), np.full(n, rng.random())  # the basis needs one weight for every row
    s = rng.integers(0, 2, size=n)
    native = kernels.poly2_coefficients(X, a, c, groups=s, n_groups=2, one_hot_groups=groups, n_threads=threads)
    ref = kernels.poly2_coefficients(X, a, c, groups=s, n_groups=2, backend="numpy")
    for got, want in zip(native, ref):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)
    np.testing.assert_array_equal(native[1], native[1].T)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 30), d=st.integers(1, 6), wscale=st.sampled_from([0.0, 1.0, 1e3, 1e150]),
       xscale=st.sampled_from([1.0, 1e-200, 1e100]), seed=st.integers(0, 2**32 - 1),
       dtype=st.sampled_from([np.float64, np.float32, ">f8"]))
def test_clipgrad_saturated_scores_and_magnitudes(n, d, wscale, xscale, seed, dtype):
    rng = np.random.default_rng(seed)
    with np.errstate(over="ignore"):
        X = (rng.standard_normal((n, d)) * xscale).astype(dtype)
    if not np.all(np.isfinite(X)):
        return
    y = rng.integers(0, 2, n).astype(float)
    w = rng.standard_normal(d) * wscale
    rows = rng.integers(0, n, 2 * n)
    groups = rng.integers(0, 2, n)
    clip = np.array([1.0, np.inf])
    args = (X, y, w, 0.0, rows, groups, clip)
    with np.errstate(over="ignore", invalid="ignore"):
        ref = kernels.clip_group_gradients(*args, backend="numpy")
    native = kernels.clip_group_gradients(*args, n_threads=2)
    np.testing.assert_array_equal(native[1], ref[1])
    np.testing.assert_array_equal(native[2], ref[2])
    finite = np.isfinite(ref[0])
    np.testing.assert_array_equal(np.isfinite(native[0]), finite)
    np.testing.assert_allclose(native[0][finite], ref[0][finite], rtol=1e-6 if np.dtype(dtype).itemsize == 4 else 1e-9,
                               atol=1e-12 * max(1.0, float(np.max(np.abs(ref[0][finite]), initial=0.0))))
    assert np.all(np.linalg.norm(native[0][0]) <= 1.0 * np.sum(groups[rows] == 0) + 1e-9)  # clipped group bounded


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 25), d=st.integers(1, 5), T=st.integers(0, 6),
       rule=st.sampled_from(["fixed", "dpsgdf", "naive"]), K=st.integers(1, 3), sigma=st.sampled_from([0.0, 1.0]),
       bound=st.sampled_from([None, 0.5]),
       noise=st.sampled_from(["shared", "per_group"]), seed=st.integers(0, 2**32 - 1))
def test_dpsgd_epochs_matches_reference(n, d, T, rule, K, sigma, bound, noise, seed):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    y = rng.integers(0, 2, n).astype(float)
    groups = rng.integers(0, K, n)
    sizes = rng.integers(0, 2 * n, T)
    rows = rng.integers(0, n, int(sizes.sum()))
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    width = {"fixed": 0, "dpsgdf": 2 * K, "naive": K}[rule]
    kw = dict(groups=groups, clip=np.full(K, 1.0), rule=rule, noise_multiplier=sigma, count_noise_multiplier=sigma,
              expected_batch_size=max(1.0, n / 2), noise=noise, weight_bound=bound,
              count_noise=rng.standard_normal((T, width)) if width else None)
    args = (X, y, rng.standard_normal(d + 1), rows, offsets, np.full(T, 0.3), rng.standard_normal((T, d + 1)))
    native = kernels.dpsgd_epochs(*args, **kw)
    ref = kernels.dpsgd_epochs(*args, **kw, backend="numpy")
    np.testing.assert_allclose(native[0], ref[0], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(native[1], ref[1], rtol=1e-9, atol=1e-12)
