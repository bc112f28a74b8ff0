"""CSR input of the kernels: native == scipy.sparse reference == the dense kernels on the densified matrix, over
dtypes, index types, empty rows, all-zero columns, unsorted indices and duplicates; bad CSR arrays are clear errors."""

import numpy as np
import pytest

from dpfair_native import kernels

sp = pytest.importorskip("scipy.sparse")
pytestmark = pytest.mark.native


def random_csr(n=300, d=23, density=0.15, dtype=np.float64, index_dtype=np.int32, seed=0, binary_cols=8):
    """A CSR matrix with empty rows, all-zero columns, some 0/1 one-hot-like columns and some real values."""
    rng = np.random.default_rng(seed)
    dense = np.where(rng.random((n, d)) < density, rng.normal(size=(n, d)), 0.0)
    dense[:, :binary_cols] = (rng.random((n, binary_cols)) < 0.2).astype(float)
    dense[rng.choice(n, n // 10, replace=False)] = 0.0  # empty rows
    dense[:, [3, d - 2]] = 0.0  # all-zero columns
    X = sp.csr_matrix(dense.astype(dtype))
    X.indices = X.indices.astype(index_dtype)
    X.indptr = X.indptr.astype(index_dtype)
    return X


def shuffled_rows(X, seed=1):
    """The same matrix with the column indices of each row in a random order (not sorted)."""
    rng = np.random.default_rng(seed)
    data, indices = X.data.copy(), X.indices.copy()
    for i in range(X.shape[0]):
        lo, hi = X.indptr[i], X.indptr[i + 1]
        perm = lo + rng.permutation(hi - lo)
        data[lo:hi], indices[lo:hi] = data[perm], indices[perm]
    return data, indices, X.indptr.copy()


def close(a, b, rtol=1e-10, atol=1e-10):
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


CASES = [(np.float64, np.int32), (np.float64, np.int64), (np.float32, np.int32), (np.float32, np.int64)]


# -- poly2_coefficients ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype,index_dtype", CASES)
@pytest.mark.parametrize("n_threads", [1, 2])
def test_poly2_csr_matches_reference_and_dense(dtype, index_dtype, n_threads):
    X = random_csr(n=2000, dtype=dtype, index_dtype=index_dtype)
    rng = np.random.default_rng(3)
    a, c = rng.normal(size=X.shape[0]), rng.normal(size=X.shape[0])  # c of both signs
    groups = rng.integers(0, 3, size=X.shape[0])
    native = kernels.poly2_coefficients(X, a, c, groups=groups, n_threads=n_threads)
    numpy = kernels.poly2_coefficients(X, a, c, groups=groups, backend="numpy")
    dense = kernels.poly2_coefficients(X.toarray(), a, c, groups=groups, backend="numpy")
    for got, ref, want in zip(native, numpy, dense):
        close(got, ref)
        close(got, want)
    assert np.array_equal(native[1], native[1].T)
    assert native[3].dtype == np.int64 and native[3].sum() == X.shape[0]


@pytest.mark.parametrize("dtype,index_dtype", [(np.float64, np.int32), (np.float32, np.int64)])
def test_poly2_csr_wide_rows_over_several_blocks(dtype, index_dtype):
    """d = 1,500 (1.1 M lower-triangle entries): the pair kernel visits L's rows in three cache blocks, and long rows
    (1–80 non-zeros) take its four-entries-at-a-time path with every remainder 0–3, at each block boundary."""
    rng = np.random.default_rng(21)
    n, d = 1500, 1500
    lengths = rng.integers(0, 81, size=n)
    indices = np.concatenate([np.sort(rng.choice(d, size=k, replace=False)) for k in lengths])
    data = rng.normal(size=indices.size)
    data[rng.random(indices.size) < 0.5] = 1.0  # one-hot-like entries
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    X = sp.csr_matrix((data.astype(dtype), indices.astype(index_dtype), indptr.astype(index_dtype)), shape=(n, d))
    a, c = rng.normal(size=n), rng.normal(size=n)
    c[::7] = 0.0  # rows the kernel skips
    native = kernels.poly2_coefficients(X, a, c, n_threads=2)
    numpy = kernels.poly2_coefficients(X, a, c, backend="numpy")
    for got, ref in zip(native[:2], numpy[:2]):
        close(got, ref)
    y = (rng.random(n) < 0.4).astype(float)
    fit = kernels.logistic_newton(X, y, alpha=1.0)
    ref = kernels.logistic_newton(X, y, alpha=1.0, backend="numpy")
    close(fit.w, ref.w, rtol=1e-8, atol=1e-9)
    assert fit.n_iter == ref.n_iter


def skewed_one_hot_csr(n, cards, n_numeric=3, seed=0, dtype=np.float64, index_dtype=np.int32, sparse_numeric=False):
    """Rows of n_numeric real columns then one-hot groups of the given cardinalities (skewed categories, one 1.0
    per group and row); returns (X, groups)."""
    rng = np.random.default_rng(seed)
    blocks, groups, offset = [rng.normal(size=(n, n_numeric))], [], n_numeric
    if sparse_numeric:
        blocks[0][rng.random((n, n_numeric)) < 0.6] = 0.0
    for k in cards:
        p = 1.0 / np.arange(1, k + 1) ** 1.5
        code = rng.choice(k, size=n, p=p / p.sum())
        block = np.zeros((n, k))
        block[np.arange(n), code] = 1.0
        blocks.append(block[:, rng.permutation(k)])  # the most frequent column anywhere in its group
        groups.append(list(range(offset, offset + k)))
        offset += k
    X = sp.csr_matrix(np.hstack(blocks).astype(dtype))
    X.indices, X.indptr = X.indices.astype(index_dtype), X.indptr.astype(index_dtype)
    return X, groups


@pytest.mark.parametrize("dtype,index_dtype", CASES)
@pytest.mark.parametrize("n_threads", [1, 2])
@pytest.mark.parametrize("damage", ["none", "empty group", "two ones", "value 0.5", "stored zero", "most rows"])
def test_poly2_csr_one_hot_hint_matches_reference(dtype, index_dtype, n_threads, damage):
    """one_hot_groups: the pass leaves each group's most frequent column out and recovers it from the others. Same
    b, Q and group sums as the reference whatever the rows hold: rows that break a group (no value, two 1s, a value
    other than 1, a stored zero) are summed as they are; a group most rows break is not used. The recovered sums
    differ from the plain pass in the last bits, which shows the basis was used."""
    X, groups = skewed_one_hot_csr(3000, [2, 3, 5, 8, 13], dtype=dtype, index_dtype=index_dtype,
                            sparse_numeric=damage == "none")
    X = X.tolil()
    rows = [5, 17, 2999]
    g = groups[2]
    if damage == "empty group":
        for i in rows:
            X[i, g] = 0.0
    elif damage == "two ones":
        for i in rows:
            X[i, g[0]], X[i, g[1]] = 1.0, 1.0
    elif damage == "value 0.5":
        for i in rows:
            X[i, g] = 0.0
            X[i, g[1]] = 0.5
    elif damage == "most rows":
        X[: 2000, groups[0]] = 0.0
    X = X.tocsr()
    if damage == "stored zero":
        X.data[X.indptr[9] + 4] = 0.0
    X.indices, X.indptr = X.indices.astype(index_dtype), X.indptr.astype(index_dtype)
    rng = np.random.default_rng(4)
    n = X.shape[0]
    a, c = rng.normal(size=n), np.full(n, 0.1)  # one weight for every row, as in the Taylor terms
    s = rng.integers(0, 3, size=n)
    hint = kernels.poly2_coefficients(X, a, c, groups=s, one_hot_groups=groups, n_threads=n_threads)
    plain = kernels.poly2_coefficients(X, a, c, groups=s, n_threads=n_threads)
    ref = kernels.poly2_coefficients(X, a, c, groups=s, backend="numpy")
    for got, want in zip(hint, ref):
        close(got, want, rtol=1e-12, atol=1e-11)
    assert np.array_equal(hint[1], hint[1].T)
    assert not np.array_equal(hint[1], plain[1])  # the basis was used


def test_poly2_csr_one_hot_hint_is_skipped_where_it_cannot_apply():
    """Per-row weights (a recovered entry's rounding would be relative to Σ|c_i|, not to the entry), groups of one
    column or of numeric columns, unsorted rows: the plain pass, bit for bit."""
    X, groups = skewed_one_hot_csr(2000, [2, 4, 6])
    rng = np.random.default_rng(5)
    a, c = rng.normal(size=2000), np.full(2000, 0.1)
    plain = kernels.poly2_coefficients(X, a, c)[1]
    assert not np.array_equal(kernels.poly2_coefficients(X, a, c, one_hot_groups=groups)[1], plain)
    assert np.array_equal(kernels.poly2_coefficients(X, a, c, one_hot_groups=[[0], [1, 2]])[1], plain)
    c_rows = rng.random(2000)
    assert np.array_equal(kernels.poly2_coefficients(X, a, c_rows, one_hot_groups=groups)[1],
                          kernels.poly2_coefficients(X, a, c_rows)[1])
    Xu = sp.csr_matrix(shuffled_rows(X), shape=X.shape)
    close(kernels.poly2_coefficients(Xu, a, c, one_hot_groups=groups)[1], plain)
    with pytest.raises(ValueError, match="disjoint"):
        kernels.poly2_coefficients(X, a, c, one_hot_groups=[[3, 4], [4, 5]])
    with pytest.raises(ValueError, match="disjoint"):
        kernels.poly2_coefficients(X, a, c, one_hot_groups=[[3, 3]])
    with pytest.raises(ValueError, match="disjoint"):
        kernels.poly2_coefficients(X, a, c, one_hot_groups=[[X.shape[1]]])


def test_poly2_csr_unsorted_indices_native_path():
    X = random_csr(n=500)
    data, indices, indptr = shuffled_rows(X)
    rng = np.random.default_rng(0)
    a, c = rng.normal(size=500), rng.random(500)
    b, Q, _, _ = kernels._native().poly2_coefficients_csr(data, indices, indptr, X.shape[1], a, c, None, 0, 2)
    b_ref, Q_ref, _, _ = kernels.poly2_coefficients(X, a, c, backend="numpy")
    close(b, b_ref)
    close(Q, Q_ref)
    # through kernels.py an unsorted matrix gives the same result
    Xu = sp.csr_matrix((data, indices, indptr), shape=X.shape)
    assert not Xu.has_sorted_indices
    close(kernels.poly2_coefficients(Xu, a, c)[1], Q_ref)


def test_duplicates_are_summed_by_kernels_and_rejected_by_the_binding():
    rows = np.array([0, 0, 0, 1, 2, 2])
    cols = np.array([1, 1, 4, 0, 2, 2])
    vals = np.array([0.5, 0.25, 1.0, 2.0, -1.0, 3.0])
    X = sp.coo_matrix((vals, (rows, cols)), shape=(3, 5)).tocsr()
    Xd = sp.csr_matrix((vals, cols, np.array([0, 3, 4, 6])), shape=(3, 5))  # duplicates kept
    assert not Xd.has_canonical_format
    a, c = np.ones(3), np.array([1.0, 2.0, 0.5])
    want = kernels.poly2_coefficients(X.toarray(), a, c, backend="numpy")
    for backend in ("native", "numpy"):
        got = kernels.poly2_coefficients(Xd, a, c, backend=backend)
        close(got[0], want[0])
        close(got[1], want[1])
    assert not Xd.has_canonical_format or Xd.nnz == 6  # the caller's matrix is not changed
    with pytest.raises(ValueError, match="duplicate"):
        kernels._native().poly2_coefficients_csr(Xd.data, Xd.indices, Xd.indptr, 5, a, c, None, 0, 1)


def test_csc_and_coo_are_converted_other_formats_refused():
    X = random_csr(n=200)
    a, c = np.ones(200), np.full(200, 0.125)
    want = kernels.poly2_coefficients(X, a, c)
    for other in (X.tocsc(), X.tocoo(), sp.csr_array(X)):
        close(kernels.poly2_coefficients(other, a, c)[1], want[1])
    with pytest.raises(TypeError, match="tocsr"):
        kernels.poly2_coefficients(X.tolil(), a, c)
    Xi = sp.csr_matrix(X.toarray().astype(np.int64))
    close(kernels.poly2_coefficients(Xi, a, c)[1], kernels.poly2_coefficients(Xi.toarray(), a, c)[1])


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_bad_csr_arrays_are_value_errors(index_dtype):
    core = kernels._native()
    data = np.array([1.0, 2.0, 3.0])
    ok_idx = np.array([0, 2, 1], dtype=index_dtype)
    ok_ptr = np.array([0, 2, 3], dtype=index_dtype)
    a = c = np.ones(2)

    def call(data=data, indices=ok_idx, indptr=ok_ptr, d=3):
        rows = len(indptr) - 1
        return core.poly2_coefficients_csr(data, indices, indptr, d, a[:rows], c[:rows], None, 0, 1)

    call()  # valid
    with pytest.raises(ValueError, match="outside"):
        call(indices=np.array([0, 3, 1], dtype=index_dtype))
    with pytest.raises(ValueError, match="outside"):
        call(indices=np.array([0, -1, 1], dtype=index_dtype))
    with pytest.raises(ValueError, match="non-decreasing"):
        call(indptr=np.array([0, 3, 2], dtype=index_dtype))
    with pytest.raises(ValueError, match="exceeds"):
        call(indptr=np.array([0, 2, 4], dtype=index_dtype))
    with pytest.raises(ValueError, match="start at 0"):
        call(indptr=np.array([1, 2, 3], dtype=index_dtype))
    with pytest.raises(ValueError, match="NaN"):
        call(data=np.array([1.0, np.nan, 3.0]))
    with pytest.raises(TypeError):
        call(indptr=ok_ptr.astype(np.int64 if index_dtype == np.int32 else np.int32))
    with pytest.raises(TypeError):
        call(data=data.astype(np.int64))
    # the same checks guard every CSR kernel, e.g. clip_group_gradients_csr and logistic_newton_csr
    bad = np.array([0, 7, 1], dtype=index_dtype)
    with pytest.raises(ValueError, match="outside"):
        core.clip_group_gradients_csr(data, bad, ok_ptr, 3, np.zeros(2), np.zeros(3), 0.0, np.array([0, 1]),
                                      np.zeros(2, dtype=np.int64), np.ones(1), np.nan, 0.0, 1)
    with pytest.raises(ValueError, match="outside"):
        core.logistic_newton_csr(data, bad, ok_ptr, 3, np.array([0.0, 1.0]), 1.0, True, 5, 1e-8, 1, None, 0.0)
    # through kernels.py, NaN in the stored values is reported like in dense X
    with pytest.raises(ValueError, match="NaN"):
        kernels.poly2_coefficients(sp.csr_matrix((np.array([1.0, np.nan]), np.array([0, 1]), np.array([0, 1, 2])),
                                                 shape=(2, 2)), np.ones(2), np.ones(2))


# -- logistic_newton ------------------------------------------------------------------------------------------------
def logistic_data(n=3000, d=30, seed=0, dtype=np.float64, index_dtype=np.int32):
    X = random_csr(n=n, d=d, density=0.2, dtype=dtype, index_dtype=index_dtype, seed=seed)
    rng = np.random.default_rng(seed + 1)
    w = rng.normal(size=d)
    y = (rng.random(n) < 1 / (1 + np.exp(-(X @ w) + 0.3))).astype(float)
    return X, y


@pytest.mark.parametrize("dtype,index_dtype", CASES)
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_logistic_csr_matches_reference_and_dense(dtype, index_dtype, fit_intercept):
    X, y = logistic_data(dtype=dtype, index_dtype=index_dtype)
    kw = dict(alpha=1e-2, fit_intercept=fit_intercept)
    native = kernels.logistic_newton(X, y, n_threads=2, **kw)
    numpy = kernels.logistic_newton(X, y, backend="numpy", **kw)
    dense = kernels.logistic_newton(X.toarray(), y, **kw)
    assert native.converged and numpy.converged
    assert native.n_iter == numpy.n_iter and native.n_passes == numpy.n_passes
    close(native.w, numpy.w, rtol=1e-8, atol=1e-9)
    close(native.w, dense.w, rtol=1e-8, atol=1e-9)


def test_logistic_csr_constraint_and_unsorted():
    X, y = logistic_data(seed=4)
    m = X.shape[1] + 1
    a = np.random.default_rng(2).normal(size=m)
    a[-1] = 0.0
    tau = 0.05
    native = kernels.logistic_newton(X, y, alpha=1e-3, constraint=(a, tau))
    numpy = kernels.logistic_newton(X, y, alpha=1e-3, constraint=(a, tau), backend="numpy")
    close(native.w, numpy.w, rtol=1e-7, atol=1e-8)
    assert abs(a @ native.w) <= tau * (1 + 1e-9)
    data, indices, indptr = shuffled_rows(X)
    w, n_iter, converged, _ = kernels._native().logistic_newton_csr(
        data, indices, indptr, X.shape[1], y, 1e-3, True, 50, 1e-8, 2, a, tau)
    close(w, native.w, rtol=1e-8, atol=1e-9)
    assert converged and n_iter == native.n_iter


def wide_logistic_data(scale, n=3000, d=200, per_row=30, seed=0, index_dtype=np.int32, ones=0.0, dtype=np.float64):
    """Rows with 30 non-zeros each (above the 24 per row from which the CSR kernel takes inexact steps); labels
    from a logistic model whose weights are ``scale`` times N(0, 1) (large: confident fits, far from w = 0).
    ``ones``: the share of stored values that are exactly 1 (one-hot columns; from about 0.5 the kernel copies
    the rows into its smaller split form for the products and gradient passes)."""
    rng = np.random.default_rng(seed)
    cols = np.concatenate([rng.choice(d, per_row, replace=False) for _ in range(n)])
    values = np.where(rng.random(n * per_row) < ones, 1.0, rng.random(n * per_row))
    X = sp.csr_matrix((values.astype(dtype), (np.repeat(np.arange(n), per_row), cols)), shape=(n, d))
    X.indices = X.indices.astype(index_dtype)
    X.indptr = X.indptr.astype(index_dtype)
    y = (rng.random(n) < 1 / (1 + np.exp(-(X @ (scale * rng.normal(size=d))) + 0.3))).astype(float)
    return X, y


@pytest.mark.parametrize("scale,alpha", [(1.0, 1e-2), (30.0, 1e-4)])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("ones,dtype", [(0.0, np.float64), (0.9, np.float64), (0.9, np.float32)])
def test_logistic_csr_inexact_steps_match_reference_and_the_optimum(scale, alpha, fit_intercept, index_dtype, ones,
                                                                     dtype):
    """Wide rows take conjugate-gradient steps on Hessian-vector products (more than two passes a step prove it):
    native == NumPy twin step for step and product for product, and the result is the optimum the exact steps of
    the dense path find, to the solver's tolerance; the regularized gradient vanishes there. scale = 30 needs
    new preconditioners on the way (fits far from w = 0); ones = 0.9 runs the products and gradient passes on the
    split copy of the rows."""
    X, y = wide_logistic_data(scale, index_dtype=index_dtype, ones=ones, dtype=dtype)
    kw = dict(alpha=alpha, fit_intercept=fit_intercept)
    native = kernels.logistic_newton(X, y, n_threads=2, **kw)
    numpy = kernels.logistic_newton(X, y, backend="numpy", **kw)
    dense = kernels.logistic_newton(X.toarray(), y, **kw)
    assert native.converged and numpy.converged and dense.converged
    assert native.n_iter == numpy.n_iter and native.n_passes == numpy.n_passes
    assert native.n_passes > 2 * native.n_iter + 1  # more than a pass per step and one per shortened step
    close(native.w, numpy.w, rtol=1e-9, atol=1e-10)
    scale_w = 1.0 + np.abs(dense.w).max()
    np.testing.assert_allclose(native.w, dense.w, rtol=0, atol=1e-7 * scale_w)
    coef, intercept = (native.w[:-1], native.w[-1]) if fit_intercept else (native.w, 0.0)
    p = 1 / (1 + np.exp(-(X @ coef + intercept)))
    grad = X.T @ (p - y) + alpha * coef
    assert np.abs(grad).max() <= 1e-6 * np.abs(X.T @ y).max()


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("order", ["C", "F"])
def test_logistic_dense_mostly_zero_rows_are_fitted_as_csr(dtype, order):
    """Dense X with wide rows that are mostly zero (30 non-zeros of 400 columns) takes the CSR fit's inexact
    steps: step for step and product for product that of the same rows in CSR, and of the NumPy twin on the dense
    array; in either memory layout."""
    X, y = wide_logistic_data(1.0, d=400, ones=0.9, dtype=dtype)
    Xd = np.asarray(X.toarray(), order=order)
    csr = kernels.logistic_newton(X, y, alpha=1e-3)
    dense = kernels.logistic_newton(Xd, y, alpha=1e-3, n_threads=2)
    numpy = kernels.logistic_newton(Xd, y, alpha=1e-3, backend="numpy")
    assert dense.converged and (dense.n_iter, dense.n_passes) == (csr.n_iter, csr.n_passes)
    assert (numpy.n_iter, numpy.n_passes) == (dense.n_iter, dense.n_passes)
    assert dense.n_passes > 2 * dense.n_iter + 1  # inexact steps: products besides the passes of the steps
    close(dense.w, csr.w, rtol=1e-12, atol=1e-13)
    close(dense.w, numpy.w, rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("d,per_row,as_csr", [(240, 24, True), (240, 25, False), (300, 23, False)])
def test_logistic_dense_rows_fitted_as_csr_only_when_wide_and_mostly_zero(d, per_row, as_csr):
    """The rule, on its edges: at least 24 non-zeros per row on average and at most 10 % of all entries (240
    columns, 24 a row: both hold; 25 a row: 10.4 % non-zero; 23 a row: too few for inexact steps). Native and
    the NumPy twin take the same route (same steps and passes); the exact route makes one pass per step, plus one
    per shortened step."""
    X, y = wide_logistic_data(1.0, d=d, per_row=per_row, ones=0.9)
    Xd = X.toarray()
    native = kernels.logistic_newton(Xd, y, alpha=1e-3)
    numpy = kernels.logistic_newton(Xd, y, alpha=1e-3, backend="numpy")
    assert native.converged and (native.n_iter, native.n_passes) == (numpy.n_iter, numpy.n_passes)
    assert (native.n_passes > 2 * native.n_iter + 1) == as_csr
    close(native.w, numpy.w, rtol=1e-8, atol=1e-9)


def test_logistic_dense_as_csr_rejects_nan():
    """A NaN in dense X on the CSR route gets the dense path's error."""
    X, y = wide_logistic_data(1.0, d=400)
    Xd = X.toarray()
    Xd[17, 3] = np.nan
    with pytest.raises(ValueError, match="NaN or infinity"):
        kernels.logistic_newton(Xd, y, alpha=1e-3)


def test_logistic_csr_constraint_keeps_exact_steps():
    """With a constraint the wide rows take the exact steps (pass for pass those of the dense path)."""
    X, y = wide_logistic_data(1.0)
    a = np.random.default_rng(2).normal(size=X.shape[1] + 1)
    a[-1] = 0.0
    native = kernels.logistic_newton(X, y, alpha=1e-3, constraint=(a, 0.05))
    numpy = kernels.logistic_newton(X, y, alpha=1e-3, constraint=(a, 0.05), backend="numpy")
    dense = kernels.logistic_newton(X.toarray(), y, alpha=1e-3, constraint=(a, 0.05))
    assert (native.n_iter, native.n_passes) == (numpy.n_iter, numpy.n_passes) == (dense.n_iter, dense.n_passes)
    close(native.w, dense.w, rtol=1e-8, atol=1e-9)


# -- clip_group_gradients -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype,index_dtype", CASES)
@pytest.mark.parametrize("l2", [0.0, 0.3])
@pytest.mark.parametrize("threshold", [None, 0.5])
def test_clipgrad_csr_matches_reference_and_dense(dtype, index_dtype, l2, threshold):
    X = random_csr(n=400, dtype=dtype, index_dtype=index_dtype, seed=5)
    rng = np.random.default_rng(6)
    n, d = X.shape
    y = (rng.random(n) < 0.5).astype(float)
    w = rng.normal(size=d)
    rows = rng.integers(0, n, size=700)  # repeats, empty rows included
    groups = rng.integers(0, 3, size=n)
    clip = np.array([0.5, 1.0, np.inf])
    args = (X, y, w, 0.2, rows, groups, clip)
    native = kernels.clip_group_gradients(*args, threshold=threshold, l2=l2, n_threads=2)
    single = kernels.clip_group_gradients(*args, threshold=threshold, l2=l2, n_threads=1)
    numpy = kernels.clip_group_gradients(*args, threshold=threshold, l2=l2, backend="numpy")
    dense = kernels.clip_group_gradients(X.toarray(), *args[1:], threshold=threshold, l2=l2, backend="numpy")
    for got, ref, want, one in zip(native, numpy, dense, single):
        close(got, ref)
        close(got, want)
        close(got, one)


# -- dpsgd_epochs ---------------------------------------------------------------------------------------------------
def sgd_data(n, dtype, index_dtype, seed, positive_rate):
    """(X, rng, y, groups): a random CSR X, labels and two groups, and the generator for the rest of a test."""
    X = random_csr(n=n, dtype=dtype, index_dtype=index_dtype, seed=seed)
    rng = np.random.default_rng(seed + 1)
    y = (rng.random(n) < positive_rate).astype(float)
    return X, rng, y, rng.integers(0, 2, size=n)


@pytest.mark.parametrize("rule", ["fixed", "dpsgdf", "naive"])
@pytest.mark.parametrize("dtype,index_dtype", CASES[:1] + CASES[3:])
def test_dpsgd_csr_matches_reference_and_dense(rule, dtype, index_dtype):
    X, rng, y, groups = sgd_data(500, dtype, index_dtype, 7, 0.4)
    n, d = X.shape
    T = 12
    sizes = rng.binomial(n, 0.1, size=T)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    batch_rows = rng.integers(0, n, size=offsets[-1])
    lr = np.full(T, 0.5)
    grad_noise = rng.normal(size=(T, d + 1))
    count_noise = None if rule == "fixed" else rng.normal(size=(T, 4 if rule == "dpsgdf" else 2))
    kw = dict(groups=groups, clip=np.array([0.8, 1.2]), rule=rule, count_noise=count_noise, noise_multiplier=1.1,
              count_noise_multiplier=2.0, expected_batch_size=0.1 * n, l2=1e-3, weight_bound=3.0,
              group_weights=np.array([1.0, 0.5]) if rule == "fixed" else None)
    params = rng.normal(size=d + 1) * 0.1
    args = (params, batch_rows, offsets, lr, grad_noise)
    native = kernels.dpsgd_epochs(X, y, *args, **kw)
    numpy = kernels.dpsgd_epochs(X, y, *args, backend="numpy", **kw)
    dense = kernels.dpsgd_epochs(X.toarray(), y, *args, **kw)
    for got, ref, want in zip(native, numpy, dense):
        close(got, ref, rtol=1e-9, atol=1e-10)
        close(got, want, rtol=1e-9, atol=1e-10)


def test_dpsgd_csr_bad_batch_rows():
    X = random_csr(n=50)
    d = X.shape[1]
    core = kernels._native()
    with pytest.raises(ValueError, match="batch_rows"):
        core.dpsgd_epochs_csr(X.data, X.indices, X.indptr, d, np.zeros(50), np.zeros(50, dtype=np.int64), np.ones(1),
                              None, np.array([0, 50]), np.array([0, 2]), np.ones(1), np.zeros((1, d + 1)), None,
                              core.ClipRule.fixed, core.NoiseRule.shared,
                              0.0, 0.0, 1.0, 0.0, np.inf, np.zeros(d + 1))


# -- dense input that is mostly zero: poly2 copies the non-zeros and takes the pair path --------------------------
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_poly2_dense_mostly_zero_matches_reference(dtype, layout):
    X = random_csr(n=3000, d=80, density=0.04, binary_cols=10, seed=11).toarray().astype(dtype)
    assert np.count_nonzero(X) < 0.1 * X.size  # below the kernel's switch to the pair path
    if layout == "F":
        X = np.asfortranarray(X)
    elif layout == "strided":
        X = np.repeat(X, 2, axis=1)[:, ::2]
    rng = np.random.default_rng(12)
    a, c = rng.normal(size=3000), rng.normal(size=3000)
    groups = rng.integers(0, 4, size=3000)
    for n_threads in (1, 2):
        got = kernels.poly2_coefficients(X, a, c, groups=groups, n_threads=n_threads)
        want = kernels.poly2_coefficients(X, a, c, groups=groups, backend="numpy")
        for g, w in zip(got, want):
            close(g, w, rtol=1e-9, atol=1e-9)
    X = np.array(X)
    X[2999, 5] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        kernels.poly2_coefficients(X, a, c)


def test_dpsgd_and_clip_csr_check_exactly_the_rows_they_read():
    """The CSR gradient kernels check each visited row (O(batch non-zeros) per call, no pass over all of X): a bad
    row outside the batch is never read, the same row inside it is a clear ValueError, and so are duplicates."""
    core = kernels._native()
    data = np.array([1.0, 2.0, np.nan, 0.5, 0.5])
    indices = np.array([0, 1, 0, 2, 2], dtype=np.int32)  # row 1 holds NaN, row 2 repeats column 2
    indptr = np.array([0, 2, 3, 5], dtype=np.int32)
    d, y, groups = 3, np.array([0.0, 1.0, 1.0]), np.zeros(3, dtype=np.int64)

    def sgd(rows):
        return core.dpsgd_epochs_csr(data, indices, indptr, d, y, groups, np.ones(1), None, np.array(rows),
                                     np.array([0, len(rows)]), np.ones(1), np.zeros((1, d + 1)), None,
                                     core.ClipRule.fixed, core.NoiseRule.shared, 0.0, 0.0, 1.0, 0.0, np.inf,
                                     np.zeros(d + 1))

    def clip(rows):
        return core.clip_group_gradients_csr(data, indices, indptr, d, y, np.zeros(d), 0.0, np.array(rows), groups,
                                             np.ones(1), None, 0.0, 1)

    for run in (sgd, clip):
        run([0, 0])  # rows 1 and 2 are never read
        with pytest.raises(ValueError, match="NaN"):
            run([0, 1])
        with pytest.raises(ValueError, match="duplicate"):
            run([2])
    # the kernels that read every row check the whole matrix first
    with pytest.raises(ValueError, match="NaN"):
        core.poly2_coefficients_csr(data, indices, indptr, d, np.ones(3), np.ones(3), None, None, 1)


# -- dpsgd_epochs on CSR: packed rows (values 1.0 as flags, 16/32-bit column codes) -----------------------------------
@pytest.mark.parametrize("d", [40, 70000])  # column indices packed in 16 and in 32 bits
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_dpsgd_csr_one_hot_rows_match_reference(d, dtype):
    """Rows mixing exact 1.0s (packed apart from the other values) with other values, long rows, unsorted rows and
    empty rows: the packed loop equals the scipy.sparse twin."""
    rng = np.random.default_rng(21)
    n = 300
    rows, cols, vals = [], [], []
    for i in range(n):
        k = rng.integers(0, 12)
        rows += [i] * k
        cols += list(rng.choice(d, size=k, replace=False))
        vals += list(np.where(rng.random(k) < 0.6, 1.0, rng.normal(size=k)))
    long = [c for c in range(min(d, 200)) if c not in set(np.array(cols)[np.array(rows) == 5])]
    rows, cols, vals = rows + [5] * len(long), cols + long, vals + [1.0] * len(long)  # longer than the prefetch
    X = sp.csr_matrix((np.array(vals, dtype=dtype), (rows, cols)), shape=(n, d))
    data, indices, indptr = shuffled_rows(X)
    X = sp.csr_matrix((data, indices, indptr), shape=X.shape)
    y = (rng.random(n) < 0.5).astype(float)
    T = 6
    offsets = np.arange(T + 1) * 40
    batch_rows = np.concatenate([[5], rng.integers(0, n, size=offsets[-1] - 1)])
    args = (rng.normal(size=d + 1) * 0.1, batch_rows, offsets, np.full(T, 0.5), rng.normal(size=(T, d + 1)))
    kw = dict(groups=rng.integers(0, 2, size=n), clip=np.array([0.7, 1.5]), noise_multiplier=0.8,
              expected_batch_size=40.0, l2=1e-3)
    native = kernels.dpsgd_epochs(X, y, *args, **kw)
    for got, ref in zip(native, kernels.dpsgd_epochs(X, y, *args, backend="numpy", **kw)):
        close(got, ref, rtol=1e-9, atol=1e-10)


def test_dpsgd_csr_faults_only_in_visited_rows():
    """Each fault of a row (bad offsets, column, NaN, duplicate, group, label) is raised with its message when the
    loop reads the row, and never when the row is not in any batch."""
    core = kernels._native()
    d = 3
    cases = {  # row 1 of each matrix is bad: (data, indices, indptr, y, groups), message
        "indptr": (([1.0, 2.0], [0, 1], [0, 1, 0, 2]), "non-decreasing"),
        "column": (([1.0, 2.0, 3.0], [0, 7, 1], [0, 1, 2, 3]), "column index"),
        "NaN": (([1.0, np.nan, 3.0], [0, 1, 1], [0, 1, 2, 3]), "NaN"),
        "duplicate": (([1.0, 2.0, 2.0, 3.0], [0, 2, 2, 1], [0, 1, 3, 4]), "duplicate"),
    }
    y, groups = np.array([0.0, 1.0, 1.0]), np.zeros(3, dtype=np.int64)

    def sgd(arrays, rows, y=y, groups=groups):
        data, indices, indptr = (np.asarray(a, dtype=t) for a, t in zip(arrays, (float, np.int32, np.int32)))
        return core.dpsgd_epochs_csr(data, indices, indptr, d, y, groups, np.ones(1), None, np.array(rows),
                                     np.array([0, len(rows)]), np.ones(1), np.zeros((1, d + 1)), None,
                                     core.ClipRule.fixed, core.NoiseRule.shared, 0.0, 0.0, 1.0, 0.0, np.inf,
                                     np.zeros(d + 1))

    for arrays, message in cases.values():
        sgd(arrays, [0, 2, 0])
        with pytest.raises(ValueError, match=message):
            sgd(arrays, [0, 1])
    good = ([1.0, 2.0, 3.0], [0, 1, 2], [0, 1, 2, 3])
    sgd(good, [0, 2], y=np.array([0.0, np.nan, 1.0]), groups=np.array([0, 5, 0]))
    with pytest.raises(ValueError, match="groups must lie"):
        sgd(good, [1], groups=np.array([0, 5, 0]))
    with pytest.raises(ValueError, match="y contains NaN"):
        sgd(good, [1], y=np.array([0.0, np.nan, 1.0]))


def test_dpsgd_csr_faults_in_both_packed_layouts():
    """Rows that fit 128 bytes are packed at a fixed stride, else through an address table: a long row (300
    non-zeros) switches the layout; in both, a bad row faults only when visited and results equal the twin."""
    core = kernels._native()
    d = 400
    for long_row in (False, True):
        n = 6
        rows = [[0, 1], [2], [3, 3], [], [5], [1, 2]]  # row 2 repeats column 3
        if long_row:
            rows[4] = list(range(10, 310))
        indptr = np.cumsum([0] + [len(r) for r in rows]).astype(np.int32)
        indices = np.array([c for r in rows for c in r], dtype=np.int32)
        data = np.linspace(0.5, 1.5, indices.size)
        y, groups = np.array([0.0, 1.0, 1.0, 0.0, 1.0, 0.0]), np.zeros(n, dtype=np.int64)

        def sgd(visit, arrays=(data, indices, indptr, d, y, groups)):
            return core.dpsgd_epochs_csr(*arrays, np.ones(1), None, np.array(visit), np.array([0, len(visit)]),
                                         np.ones(1), np.zeros((1, d + 1)), None, core.ClipRule.fixed,
                                         core.NoiseRule.shared, 0.0, 0.0, 1.0, 0.0, np.inf, np.full(d + 1, 0.01))

        visit = [0, 1, 3, 4, 5, 4]
        got, _ = sgd(visit)
        X = sp.csr_matrix((data, indices, indptr), shape=(n, d))
        X2 = X[[0, 1, 3, 4, 5]]  # without the bad row, for the twin
        want, _ = kernels.dpsgd_epochs(X2, y[[0, 1, 3, 4, 5]], np.full(d + 1, 0.01), np.array([0, 1, 2, 3, 4, 3]),
                                       np.array([0, 6]), np.ones(1), np.zeros((1, d + 1)), noise_multiplier=0.0,
                                       expected_batch_size=1.0, backend="numpy")
        close(got, want, rtol=1e-12, atol=1e-14)
        with pytest.raises(ValueError, match="duplicate"):
            sgd([0, 2])


# -- dpsgd_epochs with rows packed once (pack_csr_rows), as the estimators run one call per epoch ---------------------
@pytest.mark.parametrize("rule", ["fixed", "dpsgdf"])
@pytest.mark.parametrize("dtype,index_dtype", [(np.float64, np.int32), (np.float32, np.int64)])
def test_dpsgd_packed_equals_unpacked_over_several_calls(rule, dtype, index_dtype):
    X, rng, y, groups = sgd_data(400, dtype, index_dtype, 31, 0.5)
    n, d = X.shape
    packed = kernels.pack_csr_rows(X, y, groups=groups, n_groups=2)
    assert packed.shape == (n, d) and packed.n_groups == 2
    p_packed = p_plain = np.zeros(d + 1)
    for _ in range(3):
        T = 5
        offsets = np.arange(T + 1) * 30
        rows = rng.integers(0, n, size=offsets[-1])
        kw = dict(groups=groups, clip=np.array([0.8, 1.2]), rule=rule, noise_multiplier=1.0,
                  count_noise=None if rule == "fixed" else rng.normal(size=(T, 4)), count_noise_multiplier=2.0,
                  expected_batch_size=30.0, l2=1e-3)
        noise = rng.normal(size=(T, d + 1))
        p_packed, b_packed = kernels.dpsgd_epochs(X, y, p_packed, rows, offsets, np.full(T, 0.5), noise,
                                                  packed=packed, **kw)
        p_plain, b_plain = kernels.dpsgd_epochs(X, y, p_plain, rows, offsets, np.full(T, 0.5), noise, **kw)
        assert np.array_equal(p_packed, p_plain) and np.array_equal(b_packed, b_plain)
    args = (np.zeros(d + 1), np.array([0, 1]), np.array([0, 2]), np.ones(1), np.zeros((1, d + 1)))
    with pytest.raises(ValueError, match="same X, y and groups"):
        kernels.dpsgd_epochs(X, y.copy(), *args, groups=groups, clip=np.ones(2), expected_batch_size=2.0,
                             packed=packed)
    with pytest.raises(ValueError, match="n_groups"):
        kernels.dpsgd_epochs(X, y, *args, groups=groups, clip=np.ones(3), expected_batch_size=2.0, packed=packed)
    dense = X.toarray()  # dense X: nothing is packed, same results as without
    packed_dense = kernels.pack_csr_rows(dense, y)
    assert packed_dense._native is None
    got = kernels.dpsgd_epochs(dense, y, *args, expected_batch_size=2.0, packed=packed_dense)
    want = kernels.dpsgd_epochs(dense, y, *args, expected_batch_size=2.0)
    assert np.array_equal(got[0], want[0])


# -- csr_in_domain --------------------------------------------------------------------------------------------------
def one_hot_csr(n=400, seed=0):
    """Rows: 2 numeric columns in [0, 1], then one-hot groups {2, 3, 4} and {5, 6} (at most one 1 each)."""
    rng = np.random.default_rng(seed)
    dense = np.zeros((n, 7))
    dense[:, :2] = rng.random((n, 2))
    dense[np.arange(n), 2 + rng.integers(0, 3, size=n)] = 1.0
    hot = rng.random(n) < 0.7  # some rows have no 1 in the second group
    dense[np.flatnonzero(hot), 5 + rng.integers(0, 2, size=hot.sum())] = 1.0
    return sp.csr_matrix(dense)


GROUPS = [[2, 3, 4], [5, 6]]


def in_domain(X, lower=0.0, upper=1.0, l1=None, l2=None):
    """(native, numpy twin, numpy twin with pair sums) of csr_in_domain."""
    lo, up = (np.broadcast_to(np.asarray(b, dtype=float), (X.shape[1],)).copy() for b in (lower, upper))
    args = (X, lo, up, GROUPS, l1, l2)
    S = (X.T @ X).toarray()
    return (kernels.csr_in_domain(*args), kernels.csr_in_domain(*args, backend="numpy"),
            kernels.csr_in_domain(*args, pair_sums=S, backend="numpy"))


@pytest.mark.parametrize("dtype,index_dtype", CASES)
def test_csr_in_domain_matches_reference(dtype, index_dtype):
    X = one_hot_csr()
    X = sp.csr_matrix((X.data.astype(dtype), X.indices.astype(index_dtype), X.indptr.astype(index_dtype)),
                      shape=X.shape)
    assert in_domain(X) == (True, True, True)
    norms = np.abs(X).sum(axis=1).A.ravel()
    assert in_domain(X, l1=norms.max()) == (True, True, True)
    assert in_domain(X, l1=norms.max() * 0.999) == (False, False, False)
    l2 = np.sqrt(X.multiply(X).sum(axis=1).A.ravel()).max()
    assert in_domain(X, l2=l2) == (True, True, True)
    assert in_domain(X, l2=l2 * 0.999) == (False, False, False)


@pytest.mark.parametrize("fault", ["above", "below", "nan", "half_in_group", "two_hot", "implicit_zero",
                                   "explicit_zero"])
def test_csr_in_domain_failures_match_reference(fault):
    X = one_hot_csr(seed=3).tolil()
    lower = 0.0
    if fault == "above":
        X[17, 1] = 1.5
    elif fault == "below":
        X[17, 0] = -0.25
    elif fault == "nan":
        X[17, 0] = np.nan
    elif fault == "half_in_group":
        X[17, 3] = 0.5
    elif fault == "two_hot":
        X[17, 5], X[17, 6] = 1.0, 1.0
    elif fault == "implicit_zero":  # column 6 has implicit zeros, which a lower bound of 0.5 excludes
        lower = 0.5
    X = X.tocsr()
    if fault == "explicit_zero":  # stored 0s in a group column are allowed and are no second 1
        X = one_hot_csr(seed=3).tolil()
        X[17, 2], X[17, 3], X[17, 4] = 1.0, 1.0, 1.0
        X = X.tocsr()
        X.data[(np.repeat(np.arange(X.shape[0]), np.diff(X.indptr)) == 17) & (X.indices >= 3) & (X.indices <= 4)] = 0.0
        assert X.nnz > one_hot_csr(seed=3).nnz
        assert in_domain(X) == (True, True, True)
        return
    assert in_domain(X, lower=lower) == (False, False, False)


def test_csr_in_domain_implicit_zeros_only_matter_where_bounds_exclude_zero():
    """Only the column-count check can see these: every stored value is within its bounds."""
    X = one_hot_csr(seed=4)
    assert np.all(np.diff(X.indptr) >= 1) and X[:, 0].nnz == X.shape[0]  # column 0 is stored in every row
    lower = np.zeros(7)
    lower[0] = X[:, 0].data.min()  # excludes 0, but no row of column 0 has an implicit zero
    assert in_domain(X, lower=lower) == (True, True, True)
    lower[6] = 1.0  # column 6 stores only 1.0s, and most rows hold an implicit zero there
    assert in_domain(X, lower=lower) == (False, False, False)


@pytest.mark.parametrize("fault", [None, "two_hot_late", "above_early", "column_short_in_second_half"])
def test_csr_in_domain_threads_agree(fault):
    """Two chunks of rows (2^19 stored values each at least): each chunk's faults are found, and a column's stored
    counts add up over the chunks (column 0 is stored in every row of both halves, column 1 only in the first)."""
    n = 300_000
    X = one_hot_csr(n, seed=5)
    assert X.nnz >= 2 ** 20 and X[:, 0].nnz == n
    lower = np.zeros(7)
    lower[0] = X[:, 0].data.min()  # excludes 0: column 0 must be stored in every row, in both chunks
    X = X.tolil()
    if fault == "two_hot_late":
        X[n - 3, 5], X[n - 3, 6] = 1.0, 1.0
    elif fault == "above_early":
        X[2, 1] = 1.5
    elif fault == "column_short_in_second_half":
        X[n - 3, 0] = 0.0
    X = X.tocsr()
    X.eliminate_zeros()
    one = kernels.csr_in_domain(X, lower, np.ones(7), GROUPS, n_threads=1)
    two = kernels.csr_in_domain(X, lower, np.ones(7), GROUPS, n_threads=2)
    assert one == two == kernels.csr_in_domain(X, lower, np.ones(7), GROUPS, backend="numpy") == (fault is None)


def test_csr_in_domain_bad_groups():
    X = one_hot_csr()
    with pytest.raises(ValueError, match="disjoint"):
        kernels.csr_in_domain(X, np.zeros(7), np.ones(7), [[2, 3], [3, 4]])
    with pytest.raises(ValueError, match="disjoint"):
        kernels.csr_in_domain(X, np.zeros(7), np.ones(7), [[2, 9]])


def test_poly2_one_hot_hint_is_dropped_where_its_accumulators_would_not_fit(monkeypatch):
    """The hint needs (2·threads + 3) d×d matrices instead of threads + 1: with memory for the plain pass only, the
    plain pass runs (bit for bit) instead of an error or an allocation failure."""
    X, groups = skewed_one_hot_csr(2000, [2, 4, 6])
    a, c = np.random.default_rng(6).normal(size=2000), np.full(2000, 0.1)
    plain = kernels.poly2_coefficients(X, a, c, n_threads=2)[1]
    d = X.shape[1]
    monkeypatch.setattr(kernels, "_physical_memory_bytes", lambda: 8 * d * d * 3)
    assert np.array_equal(kernels.poly2_coefficients(X, a, c, one_hot_groups=groups, n_threads=2)[1], plain)
