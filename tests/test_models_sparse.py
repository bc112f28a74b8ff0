"""Estimators on scipy.sparse input: the same fitted model as on the dense matrix (same seed), X never densified."""

import numpy as np
import pytest

from dpfair_native.domain import FeatureDomain
from dpfair_native.models import (
    DPSGDClassifier,
    FairDPClassifier,
    FairFunctionalMechanismLR,
    FairLogisticRegression,
    FunctionalMechanismLR,
    LogisticRegression,
)

sp = pytest.importorskip("scipy.sparse")


def one_hot_data(n=1500, seed=0):
    """2 numeric columns in [0, 1] + 3 one-hot blocks (sizes 3, 4, 5): 14 columns, 5 non-zeros per row (at most)."""
    rng = np.random.default_rng(seed)
    blocks = [3, 4, 5]
    cols = [rng.random((n, 2)) * (rng.random((n, 2)) < 0.7)]
    for k in blocks:
        cols.append(np.eye(k)[rng.integers(0, k, size=n)])
    X = np.hstack(cols)
    s = (rng.random(n) < 0.4).astype(int)
    z = X @ rng.normal(size=X.shape[1]) + 0.8 * s - 0.5
    y = (rng.random(n) < 1 / (1 + np.exp(-z))).astype(int)
    groups, start = [], 2
    for k in blocks:
        groups.append(list(range(start, start + k)))
        start += k
    domain = FeatureDomain(np.zeros(X.shape[1]), np.ones(X.shape[1]), one_hot_groups=groups)
    return X, y, s, domain


def _no_densify(monkeypatch, n_rows):
    """Make densifying any scipy.sparse matrix with n_rows rows (or columns) fail the test (d × d is fine)."""
    for cls in (sp.csr_matrix, sp.csc_matrix, sp.coo_matrix):
        for name in ("toarray", "todense"):
            original = getattr(cls, name)

            def guarded(self, *args, _original=original, **kwargs):
                if max(self.shape) >= n_rows:
                    raise AssertionError(f"a {self.shape} sparse matrix was densified")
                return _original(self, *args, **kwargs)

            monkeypatch.setattr(cls, name, guarded)


ESTIMATORS = [
    lambda d: FunctionalMechanismLR(epsilon=2.0, domain=d, random_state=3),
    lambda d: FairFunctionalMechanismLR(epsilon=2.0, domain=d, random_state=3),
    lambda d: LogisticRegression(alpha=1e-3),
    lambda d: FairLogisticRegression(tau=0.01, alpha=1e-3),
    lambda d: DPSGDClassifier(epochs=2, batch_size=64, noise_multiplier=1.0, random_state=3),
    # secure mode on sparse input (the CSR loop runs the NumPy twin there): the same exact-noise model as dense
    lambda d: DPSGDClassifier(epochs=2, batch_size=64, noise_multiplier=1.0, secure=True, random_state=3),
    lambda d: FairDPClassifier(target_epsilon=2.0, secure=True, random_state=3),
]


@pytest.mark.parametrize("make", ESTIMATORS)
@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_sparse_fit_equals_dense_fit(make, backend, fmt, monkeypatch):
    X, y, s, domain = one_hot_data()
    dense = make(domain).set_params(backend=backend).fit(X, y, sensitive_features=s)
    Xs = sp.csr_matrix(X).asformat(fmt)
    _no_densify(monkeypatch, X.shape[0])
    sparse = make(domain).set_params(backend=backend).fit(Xs, y, sensitive_features=s)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(sparse.intercept_, dense.intercept_, rtol=1e-7, atol=1e-9)
    assert sparse.privacy_spent_ == dense.privacy_spent_
    np.testing.assert_array_equal(sparse.predict(Xs), dense.predict(X))


def test_sparse_rows_outside_the_domain_are_clipped_like_dense():
    X, y, s, domain = one_hot_data()
    X[:5, 0] = 1.7  # numeric values above the declared bound
    kw = dict(epsilon=2.0, domain=domain, random_state=1)
    dense = FunctionalMechanismLR(**kw).fit(X, y)
    sparse = FunctionalMechanismLR(**kw).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("case", ["two_ones", "not_0_or_1", "l2_cap", "bounds_exclude_0"])
def test_sparse_rows_outside_the_domain_are_projected_like_dense(case):
    """Under domain_policy="clip" a sparse fit never aborts on one record (an abort would depend on it: not DP):
    rows breaking a one-hot group, a norm cap or a bound that excludes 0 are projected as dense rows are. Under
    "raise" the fit refuses them with the dense error, naming the row."""
    X, y, s, domain = one_hot_data()
    d = X.shape[1]
    if case == "two_ones":
        X[3, 2:4] = 1.0
    elif case == "not_0_or_1":
        X[3, 5:7] = [0.7, 0.0]
    elif case == "l2_cap":
        domain = FeatureDomain(np.zeros(d), np.ones(d), one_hot_groups=domain.one_hot_groups, l2_cap=1.9)
        X[3, :2] = 1.0
    else:
        lower = np.zeros(d)
        lower[1] = 0.25  # column 1's implicit zeros lie outside [0.25, 1]
        domain = FeatureDomain(lower, np.ones(d), one_hot_groups=domain.one_hot_groups)
    assert not domain.contains_all(X)
    for make in (lambda: FunctionalMechanismLR(epsilon=2.0, domain=domain, random_state=1),
                 lambda: FairFunctionalMechanismLR(epsilon=2.0, domain=domain, random_state=1, refinement_rounds=1,
                                                   declared_groups=[0, 1])):
        dense = make().fit(X, y, sensitive_features=s)
        sparse = make().fit(sp.csr_matrix(X), y, sensitive_features=s)
        np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=1e-7, atol=1e-9)
        with pytest.raises(ValueError, match=r"row \d+"):
            make().set_params(domain_policy="raise").fit(sp.csr_matrix(X), y, sensitive_features=s)


def test_sparse_projection_equals_dense_projection_at_a_cap():
    """A row whose L1 norm is at the cap up to the order of the float sum: the sparse path flags it and lets the
    dense rule decide, so both give the same row and count."""
    rng = np.random.default_rng(1)
    for _ in range(100_000):
        x = rng.random(16) * 0.2
        sequential = 0.0
        for v in x:
            sequential += v
        pairwise = np.abs(x[None]).sum(axis=1)[0]
        if sequential < pairwise:  # np.bincount sums in row order, the dense rule pairwise
            break
    for cap in (min(sequential, pairwise), max(sequential, pairwise)):
        domain = FeatureDomain(np.zeros(16), np.ones(16), l1_cap=cap)
        dense, n_dense = domain.project(x[None], "clip")
        sparse, n_sparse = domain.project(sp.csr_matrix(x[None]), "clip")
        assert n_sparse == n_dense
        np.testing.assert_array_equal(sparse.toarray(), dense)


def test_sparse_projection_equals_dense_projection():
    """FeatureDomain.project on CSR rows: the same rows and count of changed rows as on the dense matrix, over
    random domains (numeric bounds with and without 0, one-hot groups, L1/L2 caps) and rows breaking each rule;
    "raise" raises exactly when dense does."""
    rng = np.random.default_rng(0)
    for trial in range(90):
        d = int(rng.integers(3, 12))
        perm = rng.permutation(d)
        groups, k = [], 0
        while k < d - 2 and rng.random() < 0.7:
            m = int(rng.integers(1, 4))
            groups.append(sorted(perm[k : k + m].tolist()))
            k += m
        lower = rng.uniform(-1.0, 0.5, size=d)
        upper = lower + rng.uniform(0.1, 2.0, size=d)
        for g in groups:
            lower[g], upper[g] = 0.0, 1.0
        floor = np.clip(0.0, lower, upper)
        caps = [{}, {"l1_cap": np.abs(floor).sum() + rng.uniform(0.2, 3.0)},
                {"l2_cap": np.sqrt(np.square(floor).sum()) + rng.uniform(0.2, 2.0)}][trial % 3]
        domain = FeatureDomain(lower, upper, one_hot_groups=groups, **caps)
        X = rng.uniform(-2.0, 2.0, size=(40, d)) * (rng.random((40, d)) < 0.5)
        for g in groups:
            for i in range(40):
                X[i, g] = 0.0
                r = rng.random()
                if r < 0.6:
                    X[i, g[int(rng.integers(len(g)))]] = 1.0
                elif r < 0.75:
                    X[i, g] = (rng.random(len(g)) < 0.6).astype(float)
                elif r < 0.9:
                    X[i, g[0]] = rng.choice([0.7, 0.3, -0.5, 0.5])
        dense, n_dense = domain.project(X, "clip")
        sparse, n_sparse = domain.project(sp.csr_matrix(X), "clip")
        assert sp.issparse(sparse) and n_sparse == n_dense
        np.testing.assert_array_equal(sparse.toarray(), dense)
        for M in (X, dense):
            refused = []
            for rows in (M, sp.csr_matrix(M)):
                try:
                    domain.project(rows, "raise")
                    refused.append(False)
                except ValueError:
                    refused.append(True)
            assert refused[0] == refused[1]


def test_sparse_input_errors():
    X, y, _, _ = one_hot_data(n=50)
    with pytest.raises(TypeError, match="tocsr"):
        LogisticRegression().fit(sp.lil_matrix(X), y)
    bad = sp.csr_matrix(X)
    bad.data[0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        LogisticRegression().fit(bad, y)
    model = LogisticRegression().fit(sp.csr_matrix(X), y)
    with pytest.raises(ValueError, match="features"):
        model.predict(sp.csr_matrix(X[:, :5]))


def test_domain_contains_all_sparse_equals_dense():
    X, _, _, domain = one_hot_data(n=300, seed=4)
    cases = [X.copy()]
    bad = X.copy()  # numeric above its bound
    bad[7, 0] = 1.2
    cases.append(bad)
    bad = X.copy()  # two 1s in a one-hot group
    bad[9, 2:4] = 1.0
    cases.append(bad)
    bad = X.copy()  # a one-hot value not in {0, 1}
    bad[3, 5] = 0.5
    cases.append(bad)
    capped = FeatureDomain(np.zeros(X.shape[1]), np.ones(X.shape[1]), one_hot_groups=domain.one_hot_groups,
                           l2_cap=2.0)
    shifted = FeatureDomain(np.full(X.shape[1], 0.1), np.ones(X.shape[1]))  # implicit zeros lie outside
    for dom in (domain, capped, shifted):
        for M in cases:
            want = dom.contains_all(M)
            assert dom.contains_all(sp.csr_matrix(M)) == want
            Q = M.T @ M
            assert dom.contains_all(sp.csr_matrix(M), pair_sums=Q) == dom.contains_all(M, pair_sums=Q)
