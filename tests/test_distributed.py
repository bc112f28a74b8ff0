"""Dask fits equal in-memory fits (same seed -> same release), on a 2-worker LocalCluster (processes)."""

import subprocess
import sys

import numpy as np
import pytest

from dpfair_native import metrics
from dpfair_native.domain import FeatureDomain
from dpfair_native.models import (
    ADFC,
    PDFC,
    PFLR,
    DPSGDClassifier,
    FairFunctionalMechanismLR,
    FairLogisticRegression,
    FunctionalMechanismLR,
    LogisticRegression,
    PFLRStar,
)

N, D = 1500, 6
# uneven row chunks, one of them empty
CHUNKS = (400, 0, 350, 500, 250)

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(7)
    s = (rng.random(N) < 0.4).astype(np.int64)
    X = np.clip(rng.normal(0.5 + 0.1 * s[:, None], 0.25, size=(N, D)), 0.0, 1.0)
    X[:5, 0] = 1.7  # outside [0, 1]: projected per partition
    z = X @ np.linspace(-2, 2, D) + 0.5 * s - 0.2
    y = (rng.random(N) < 1 / (1 + np.exp(-z))).astype(np.int64)
    labels = np.where(s == 1, "b", "a")  # string groups
    return X, y, labels


def _dask(X, y, s):
    return (da.from_array(X, chunks=(CHUNKS, D)), da.from_array(y, chunks=(CHUNKS,)),
            da.from_array(s, chunks=(CHUNKS,)))


FUNCTIONAL = [
    lambda seed, eps: FunctionalMechanismLR(epsilon=eps, random_state=seed),
    lambda seed, eps: FunctionalMechanismLR(epsilon=eps, mechanism="gaussian", paper_faithful=True, random_state=seed),
    lambda seed, eps: FairFunctionalMechanismLR(epsilon=eps, random_state=seed),
    lambda seed, eps: PFLR(epsilon=eps, random_state=seed),
    lambda seed, eps: PFLR(epsilon=eps, paper_faithful=True, random_state=seed),  # s̄ by a noisy count + offsets
    lambda seed, eps: PFLRStar(epsilon=eps, random_state=seed),
    lambda seed, eps: PFLRStar(epsilon=eps, paper_faithful=True, random_state=seed),  # the μ release
    lambda seed, eps: PDFC(epsilon_s=eps, epsilon_n=eps, random_state=seed),  # attribute drawn from the rng
    lambda seed, eps: ADFC(epsilon_s=eps, epsilon_n=eps, paper_faithful=True, random_state=seed),
]
IDS = ["PrivLR", "PrivLR-gauss-faithful", "FairFM", "PFLR", "PFLR-faithful", "PFLR*", "PFLR*-faithful", "PDFC",
       "ADFC-faithful"]


def _fit(est, X, y, s):
    kw = {"sensitive_features": s} if getattr(est, "requires_sensitive_features", False) else {}
    return est.fit(X, y, **kw)


@pytest.mark.parametrize("make", FUNCTIONAL, ids=IDS)
def test_functional_same_seed_same_release(client, data, make):
    X, y, s = data
    mem = _fit(make(11, 1.0), X, y, s)
    dsk = _fit(make(11, 1.0), *_dask(X, y, s))
    # the sums agree to float64 summation order; the noise is the same draw
    scale = N * 1.0  # the largest released sums are O(n · max|x|²)
    np.testing.assert_allclose(dsk.noisy_coefficients_, mem.noisy_coefficients_, rtol=1e-12, atol=1e-12 * scale)
    if mem.release_.group_sums is not None:
        np.testing.assert_allclose(dsk.release_.group_sums, mem.release_.group_sums, rtol=1e-12, atol=1e-12 * scale)
    np.testing.assert_allclose(dsk.coef_, mem.coef_, rtol=1e-8, atol=1e-8 * np.max(np.abs(mem.coef_)))
    assert dsk.intercept_ == pytest.approx(mem.intercept_, rel=1e-8, abs=1e-8 * np.max(np.abs(mem.coef_)))
    assert dsk.privacy_spent_ == mem.privacy_spent_
    np.testing.assert_array_equal(dsk.classes_, mem.classes_)
    assert dsk.n_features_in_ == mem.n_features_in_
    assert mem.selection_ is None and dsk.selection_ is None  # n = 1500, d = 6: "auto" keeps every column
    if hasattr(mem, "attribute_"):
        assert dsk.attribute_ == mem.attribute_
    # a different seed gives a different release (the comparison above can fail)
    other = _fit(make(12, 1.0), *_dask(X, y, s))
    assert not np.allclose(other.noisy_coefficients_, mem.noisy_coefficients_)


def _few_rows_many_columns(n=400, d=30, seed=0):
    """n = 400, d = 30: at ε <= 1 the planned noise on Q̃ swamps its signal, so max_features="auto" selects."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    y = (X[:, 0] - X[:, 3] + 0.3 * rng.standard_normal(n) > 0).astype(np.int64)
    s = np.where(rng.random(n) < 0.4, "b", "a")
    return X, y, s


SELECTING = [
    lambda: FunctionalMechanismLR(epsilon=0.5, random_state=1),  # "auto" selects here
    lambda: FairFunctionalMechanismLR(epsilon=1.0, random_state=2),  # "auto", with group statistics
    lambda: FunctionalMechanismLR(epsilon=2.0, max_features=4, random_state=3),  # an explicit k
    lambda: PDFC(attribute=3, max_features=5, random_state=4),  # a declared attribute the selection keeps
]


@pytest.mark.parametrize("make", SELECTING, ids=["auto", "FairFM-auto", "k=4", "PDFC-k=5"])
def test_feature_selection_same_seed_same_release(client, make):
    """Where the in-memory fit runs the private feature selection (max_features "auto" over its public trigger,
    or an int), the Dask fit runs the same selection (one more pass over the partitions) with the same rng draws:
    same columns, same release."""
    X, y, s = _few_rows_many_columns()
    chunks = (150, 0, 100, 150)
    Xd, yd, sd = da.from_array(X, chunks=(chunks, -1)), da.from_array(y, chunks=(chunks,)), da.from_array(
        s, chunks=(chunks,))
    mem = _fit(make(), X, y, s)
    dsk = _fit(make(), Xd, yd, sd)
    assert mem.selection_ is not None and len(mem.selected_features_) < X.shape[1]
    assert dsk.selection_ is not None
    np.testing.assert_array_equal(dsk.selected_features_, mem.selected_features_)
    assert dsk.selection_.epsilon == mem.selection_.epsilon
    np.testing.assert_equal(dsk.selection_.q, mem.selection_.q)  # the same noisy count (nan: nothing drawn)
    assert dsk.privacy_spent_ == mem.privacy_spent_
    assert dsk.sensitivity_ == mem.sensitivity_
    np.testing.assert_allclose(dsk.noisy_coefficients_, mem.noisy_coefficients_, rtol=1e-12, atol=1e-12 * len(y))
    np.testing.assert_allclose(dsk.coef_, mem.coef_, rtol=1e-8, atol=1e-8 * np.max(np.abs(mem.coef_)))
    assert dsk.coef_.shape == (X.shape[1],)


def test_feature_selection_raise_policy_gets_the_in_memory_error(client):
    """domain_policy="raise" refuses a row outside the domain before the selection draws anything, in memory and
    on Dask, with the same message naming the row of X."""
    X, y, _ = _few_rows_many_columns()
    X[321, 7] = 1.5
    est = FunctionalMechanismLR(epsilon=0.5, domain_policy="raise", random_state=0)
    with pytest.raises(ValueError) as in_memory:
        est.fit(X, y)
    with pytest.raises(ValueError) as on_dask:
        est.fit(da.from_array(X, chunks=(150, -1)), da.from_array(y, chunks=150))
    assert str(on_dask.value) == str(in_memory.value) and "row 321" in str(on_dask.value)


@pytest.mark.parametrize("make", FUNCTIONAL, ids=IDS)
def test_functional_noiseless_coefficients_equal(client, data, make):
    X, y, s = data
    mem = _fit(make(0, np.inf), X, y, s)
    dsk = _fit(make(0, np.inf), *_dask(X, y, s))
    w_mem = np.append(mem.coef_, mem.intercept_)
    w_dsk = np.append(dsk.coef_, dsk.intercept_)
    assert np.max(np.abs(w_dsk - w_mem)) <= 1e-9 * np.max(np.abs(w_mem))


def test_functional_refinement_rounds_equal(client, data):
    """The refinement rounds' gradients are per-partition sums too: same release, same model as in memory."""
    X, y, s = data
    kw = dict(epsilon=1.0, refinement_rounds=2, random_state=3)
    mem = FairFunctionalMechanismLR(**kw).fit(X, y, sensitive_features=s)
    dsk = FairFunctionalMechanismLR(**kw).fit(*_dask(X, y, s)[:2], sensitive_features=_dask(X, y, s)[2])
    assert dsk.refinement_rounds_ == mem.refinement_rounds_ == 2
    np.testing.assert_allclose(dsk.refinement_gradients_, mem.refinement_gradients_, rtol=1e-9, atol=1e-8)
    np.testing.assert_allclose(np.append(dsk.coef_, dsk.intercept_), np.append(mem.coef_, mem.intercept_),
                               rtol=1e-8, atol=1e-9)


def test_logistic_regression_equal(client, data):
    X, y, s = data
    mem = LogisticRegression().fit(X, y)
    dsk = LogisticRegression().fit(*_dask(X, y, s)[:2])
    w_mem, w_dsk = np.append(mem.coef_, mem.intercept_), np.append(dsk.coef_, dsk.intercept_)
    assert np.max(np.abs(w_dsk - w_mem)) <= 1e-9 * np.max(np.abs(w_mem))
    assert dsk.converged_ and dsk.n_iter_ == mem.n_iter_
    assert dsk.privacy_spent_ == (np.inf, 0.0)


@pytest.mark.parametrize("tau", [0.0, 0.01])
def test_fair_logistic_regression_equal(client, data, tau):
    X, y, s = data
    mem = FairLogisticRegression(tau=tau).fit(X, y, sensitive_features=s)
    dsk = FairLogisticRegression(tau=tau).fit(*_dask(X, y, s)[:2], sensitive_features=_dask(X, y, s)[2])
    w_mem, w_dsk = np.append(mem.coef_, mem.intercept_), np.append(dsk.coef_, dsk.intercept_)
    assert np.max(np.abs(w_dsk - w_mem)) <= 1e-9 * np.max(np.abs(w_mem))
    assert dsk.constraint_value_ == pytest.approx(mem.constraint_value_, abs=1e-9 * max(tau, 1e-3))
    np.testing.assert_array_equal(dsk.groups_, mem.groups_)


def _overshooting_problem(seed):
    """The random problems of test_kernel_logistic on which some full Newton step overshoots (seed 240 does)."""
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(20, 300)), int(rng.integers(1, 6))
    X = np.abs(rng.standard_normal((n, d)) * 10 ** rng.uniform(-1, 2)) if seed % 2 else (
        rng.standard_normal((n, d)) * 10 ** rng.uniform(-1, 2))
    u = rng.random(n)
    logits = np.clip(X @ rng.normal(size=d) * rng.uniform(0, 5) + rng.normal() * 3, -500, 500)
    y = (u < 1.0 / (1.0 + np.exp(-logits))).astype(np.int64)
    return X, y, 10 ** rng.uniform(-6, 0)


def test_logistic_line_search_path_equal(client):
    from dpfair_native import kernels

    X, y, alpha = _overshooting_problem(240)
    fit = kernels.logistic_newton(X, y, alpha=alpha, max_iter=200)
    assert fit.n_passes > fit.n_iter + 1  # a step was shortened: the segment line search runs
    mem = LogisticRegression(alpha=alpha, max_iter=200).fit(X, y)
    k = X.shape[0] // 3
    dsk = LogisticRegression(alpha=alpha, max_iter=200).fit(da.from_array(X, chunks=(k, -1)),
                                                           da.from_array(y, chunks=k))
    w_mem, w_dsk = np.append(mem.coef_, mem.intercept_), np.append(dsk.coef_, dsk.intercept_)
    # nearly separable (|w| ~ 500, alpha ~ 1e-6): the optimum is ill-conditioned, so summation order moves it by
    # ~1e-8 relative; 1e-7 is also test_kernel_logistic's native-vs-NumPy tolerance on these problems
    assert np.max(np.abs(w_dsk - w_mem)) <= 1e-7 * np.max(np.abs(w_mem))
    assert dsk.n_iter_ == mem.n_iter_ and dsk.converged_


def test_numpy_labels_and_column_chunks(client, data):
    X, y, s = data
    mem = FairFunctionalMechanismLR(epsilon=2.0, random_state=5).fit(X, y, sensitive_features=s)
    Xd = da.from_array(X, chunks=(500, 2))  # split columns are merged
    dsk = FairFunctionalMechanismLR(epsilon=2.0, random_state=5).fit(Xd, y, sensitive_features=s)
    np.testing.assert_allclose(dsk.noisy_coefficients_, mem.noisy_coefficients_, rtol=1e-12, atol=1e-12 * N)


def test_declared_groups(client, data):
    X, y, s = data
    kw = dict(epsilon=1.0, random_state=2, declared_groups=["b", "a"])
    mem = FairFunctionalMechanismLR(**kw).fit(X, y, sensitive_features=s)
    dsk = FairFunctionalMechanismLR(**kw).fit(*_dask(X, y, s)[:2], sensitive_features=_dask(X, y, s)[2])
    np.testing.assert_allclose(dsk.noisy_coefficients_, mem.noisy_coefficients_, rtol=1e-12, atol=1e-12 * N)
    np.testing.assert_array_equal(dsk.groups_, ["b", "a"])
    with pytest.raises(ValueError, match="not in the declared groups"):
        FairFunctionalMechanismLR(epsilon=1.0, declared_groups=["a", "c"]).fit(
            *_dask(X, y, s)[:2], sensitive_features=_dask(X, y, s)[2])


@pytest.mark.parametrize("which", ["y", "sensitive_features"])
def test_labels_of_types_that_do_not_compare_get_the_in_memory_message(client, data, which):
    X, y, s = data
    values = y if which == "y" else s
    other = "1" if values.dtype.kind in "biuf" else 1  # a value of another type
    mixed = np.array([v if i % 7 else other for i, v in enumerate(values)], dtype=object)
    args = dict(y=mixed, s=s) if which == "y" else dict(y=y, s=mixed)
    Xd, yd, sd = _dask(X, args["y"], args["s"])
    with pytest.raises(ValueError, match=f"{which} mixes values of types that do not compare"):
        FairFunctionalMechanismLR(epsilon=1.0).fit(Xd, yd, sensitive_features=sd)


def test_predict_is_lazy_and_equal(client, data):
    X, y, s = data
    est = FairFunctionalMechanismLR(epsilon=1.0, random_state=1).fit(X, y, sensitive_features=s)
    Xd = _dask(X, y, s)[0]
    z = est.decision_function(Xd)
    pred = est.predict(Xd)
    proba = est.predict_proba(Xd)
    assert all(isinstance(out, da.Array) for out in (z, pred, proba))
    np.testing.assert_allclose(z.compute(), est.decision_function(X), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(pred.compute(), est.predict(X))
    np.testing.assert_allclose(proba.compute(), est.predict_proba(X), rtol=1e-12, atol=1e-12)


def test_metrics_equal(client, data):
    X, y, s = data
    est = FairFunctionalMechanismLR(epsilon=1.0, random_state=1).fit(X, y, sensitive_features=s)
    other = LogisticRegression().fit(X, y)
    Xd, yd, sd = _dask(X, y, s)
    pred, pred_d = est.predict(X), est.predict(Xd).persist()
    other_pred, other_d = other.predict(X), other.predict(Xd).persist()
    w = np.random.default_rng(0).random(N)
    wd = da.from_array(w, chunks=(CHUNKS,))
    for name in ["demographic_parity_difference", "equal_opportunity_ratio", "equalized_odds_difference",
                 "accuracy_parity_difference", "p_rule"]:
        fn = getattr(metrics, name)
        assert fn(yd, pred_d, sensitive_features=sd) == pytest.approx(fn(y, pred, sensitive_features=s), rel=1e-12)
    for name in ["demographic_parity_ratio", "equalized_odds_ratio"]:  # mixed NumPy / Dask inputs, weights
        fn = getattr(metrics, name)
        assert fn(y, pred_d, sensitive_features=s, sample_weight=wd) == pytest.approx(
            fn(y, pred, sensitive_features=s, sample_weight=w), rel=1e-12)
    for name in ["accuracy", "balanced_accuracy", "true_positive_rate"]:
        fn = getattr(metrics, name)
        assert fn(yd, pred_d) == pytest.approx(fn(y, pred), rel=1e-12)
    assert metrics.risk_difference(yd, pred_d, sensitive_features=sd, privileged="b") == pytest.approx(
        metrics.risk_difference(y, pred, sensitive_features=s, privileged="b"), rel=1e-12)
    got = metrics.by_group(metrics.selection_rate, yd, pred_d, sensitive_features=sd)
    want = metrics.by_group(metrics.selection_rate, y, pred, sensitive_features=s)
    assert got.overall == pytest.approx(want.overall, rel=1e-12)
    assert got.by_group == pytest.approx(want.by_group, rel=1e-12)
    cop = metrics.cost_of_privacy(yd, pred_d, other_d, sensitive_features=sd)
    ref = metrics.cost_of_privacy(y, pred, other_pred, sensitive_features=s)
    assert cop.per_group == pytest.approx(ref.per_group, rel=1e-12) and cop.gap == pytest.approx(ref.gap, rel=1e-12)
    with pytest.raises(TypeError, match="roc_auc"):
        metrics.roc_auc(yd, est.decision_function(Xd))


def test_clear_errors(client, data):
    X, y, s = data
    Xd, yd, _ = _dask(X, y, s)
    with pytest.raises(ValueError, match="unknown chunk sizes"):
        FunctionalMechanismLR(epsilon=1.0).fit(Xd[Xd[:, 0] > 0.5], yd[Xd[:, 0] > 0.5])
    with pytest.raises(ValueError, match="one value per row"):
        FunctionalMechanismLR(epsilon=1.0).fit(Xd, yd[:-1])
    with pytest.raises(TypeError, match="no Dask fit"):
        DPSGDClassifier(target_epsilon=1.0).fit(Xd, yd)
    with pytest.raises(ValueError, match="sensitive_features is required"):
        FairFunctionalMechanismLR(epsilon=1.0).fit(Xd, yd)
    with pytest.raises(ValueError, match="has 1 class"):
        FunctionalMechanismLR(epsilon=1.0).fit(Xd, da.full(N, 7, chunks=(CHUNKS,)))
    # 0/1 labels of one class: the public classes [0, 1], as in memory (an abort would reveal a record)
    one = FunctionalMechanismLR(epsilon=1.0, random_state=0).fit(Xd, da.zeros(N, chunks=(CHUNKS,)))
    np.testing.assert_array_equal(one.classes_, [0, 1])
    bad = X.copy()
    bad[1000, 2] = np.nan
    with pytest.raises(ValueError, match="NaN or infinity"):
        FunctionalMechanismLR(epsilon=1.0).fit(da.from_array(bad, chunks=(CHUNKS, D)), yd)
    bad[1000, 2] = np.inf
    with pytest.raises(ValueError, match="NaN or infinity"):
        LogisticRegression().fit(da.from_array(bad, chunks=(CHUNKS, D)), yd)
    with pytest.raises(ValueError, match="2-D"):
        FunctionalMechanismLR(epsilon=1.0).fit(yd, yd)
    with pytest.raises(ValueError, match="sample_weight"):
        FunctionalMechanismLR(epsilon=1.0).fit(Xd, yd, sample_weight=np.ones(N))
    est = FunctionalMechanismLR(epsilon=1.0).fit(X, y)
    with pytest.raises(ValueError, match="fitted with"):
        est.predict(Xd[:, :3])


def test_bad_input_gets_the_in_memory_error(client, data):
    """The Dask fit refuses what the in-memory fit refuses, with the same message (continuous or missing labels,
    magnitudes whose squares overflow), and under domain_policy="raise" names the row of X, not of its partition."""
    X, y, s = data
    huge = X.copy()
    huge[1000, 2] = 1e200
    outside = np.clip(X, 0.0, 1.0)  # one row outside (with several, the first partition to fail names its row)
    outside[1000, 2] = 5.0
    cases = [
        (FunctionalMechanismLR(epsilon=1.0), X, y + 0.5),  # continuous labels
        (FunctionalMechanismLR(epsilon=1.0), X, np.where(y == 1, "yes", None).astype(object)),
        (FunctionalMechanismLR(epsilon=1.0), huge, y),
        (LogisticRegression(), huge, y),
        (FunctionalMechanismLR(epsilon=1.0, domain_policy="raise"), outside, y),
    ]
    for est, X_, y_ in cases:
        with pytest.raises(ValueError) as in_memory:
            est.fit(X_, y_)
        with pytest.raises(ValueError) as on_dask:
            est.fit(da.from_array(X_, chunks=(CHUNKS, D)), da.from_array(y_, chunks=(CHUNKS,)))
        assert str(on_dask.value) == str(in_memory.value)
    assert "row 1000" in str(on_dask.value)


class _DaskFrameShim:
    """What the Dask fit reads from a Dask DataFrame — the collection protocol, ``columns``, ``dtypes`` and
    ``to_dask_array(lengths=True)`` — for venvs where ``dask.dataframe`` does not import (it needs pyarrow)."""

    ndim = 2

    def __init__(self, frame, rows_per_chunk=250):
        self._a = da.from_array(frame.to_numpy(), chunks=(rows_per_chunk, -1))
        self.columns, self.dtypes = frame.columns, frame.dtypes

    def __dask_graph__(self):
        return self._a.__dask_graph__()

    def to_dask_array(self, lengths=None):
        return self._a


@pytest.fixture(params=["shim", "dask.dataframe"])
def to_dask_frame(request):
    if request.param == "shim":
        return _DaskFrameShim
    dd = pytest.importorskip("dask.dataframe")  # needs pyarrow
    return lambda frame: dd.from_pandas(frame, npartitions=4)


def test_dask_frame_columns_checked_against_the_domain(client, to_dask_frame):
    """A Dask DataFrame's column names get the in-memory checks: against the domain's declared names at fit (its
    bounds apply by position), then ``feature_names_in_`` against later inputs."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    n = 1000
    frame = pd.DataFrame({"age": rng.uniform(0, 100, n), "frac": rng.uniform(0, 1, n)})
    y = (frame["age"] > 50).to_numpy().astype(np.int64)
    yd = da.from_array(y, chunks=250)
    dom = FeatureDomain(np.array([0.0, 0.0]), np.array([100.0, 1.0]), names=["age", "frac"])
    swapped = frame[["frac", "age"]]  # same columns, another order: each would be clipped to the other's bounds
    with pytest.raises(ValueError) as in_memory:
        FunctionalMechanismLR(epsilon=1.0, domain=dom, random_state=0).fit(swapped, y)
    with pytest.raises(ValueError) as on_dask:
        FunctionalMechanismLR(epsilon=1.0, domain=dom, random_state=0).fit(to_dask_frame(swapped), yd)
    assert str(on_dask.value) == str(in_memory.value) and "'frac'" in str(on_dask.value)

    mem = FunctionalMechanismLR(epsilon=1.0, domain=dom, random_state=0).fit(frame, y)
    dsk = FunctionalMechanismLR(epsilon=1.0, domain=dom, random_state=0).fit(to_dask_frame(frame), yd)
    np.testing.assert_array_equal(dsk.feature_names_in_, ["age", "frac"])
    np.testing.assert_array_equal(dsk.feature_names_in_, mem.feature_names_in_)
    np.testing.assert_allclose(dsk.noisy_coefficients_, mem.noisy_coefficients_, rtol=1e-12, atol=1e-12 * n * 1e4)
    for X_swapped in (swapped, to_dask_frame(swapped)):  # predictions check the names too, in memory and on Dask
        with pytest.raises(ValueError, match="feature names should match"):
            dsk.predict(X_swapped)
    np.testing.assert_array_equal(dsk.predict(to_dask_frame(frame)).compute(), mem.predict(frame))
    logistic = LogisticRegression().fit(to_dask_frame(frame), yd)
    np.testing.assert_array_equal(logistic.feature_names_in_, ["age", "frac"])
    bare = FunctionalMechanismLR(epsilon=1.0, domain=dom, random_state=0).fit(da.from_array(frame.to_numpy()), yd)
    assert not hasattr(bare, "feature_names_in_")  # a Dask array has no column names


def test_encoder_output_on_dask_needs_the_declared_domain(client):
    """A Dask array built from a DomainEncoder output cannot carry its domain (Dask's metadata is a plain NumPy
    array); with domain=enc.domain_ the Dask fit is the in-memory fit of the encoded array, and without it the
    AssumedDomainWarning says what to pass."""
    import warnings

    from dpfair_native.domain import AssumedDomainWarning
    from dpfair_native.preprocessing import DomainEncoder

    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    n = 2000
    frame = pd.DataFrame({"c": rng.choice(["a", "b", "z"], n), "age": rng.uniform(17, 90, n)})
    y = ((frame["age"] > 50) ^ (frame["c"] == "b")).to_numpy().astype(np.int64)
    enc = DomainEncoder({"c": ["a", "b", "z"], "age": (17, 90)}).fit(frame)
    Z = enc.transform(frame)
    Zd, yd = da.from_array(Z, chunks=(500, -1)), da.from_array(y, chunks=500)
    assert getattr(Zd._meta, "domain", None) is None  # why the domain must be declared (revisit if Dask keeps it)
    kw = dict(epsilon=10.0, random_state=0, refinement_rounds=0, max_features=None)
    with warnings.catch_warnings():
        warnings.simplefilter("error", AssumedDomainWarning)
        mem = FunctionalMechanismLR(**kw).fit(Z, y)  # the domain comes with Z
        dsk = FunctionalMechanismLR(domain=enc.domain_, **kw).fit(Zd, yd)
    assert dsk.sensitivity_ == mem.sensitivity_
    np.testing.assert_allclose(dsk.noisy_coefficients_, mem.noisy_coefficients_, rtol=1e-12, atol=1e-12 * n)
    np.testing.assert_allclose(dsk.coef_, mem.coef_, rtol=1e-8, atol=1e-10)
    with pytest.warns(AssumedDomainWarning, match=r"Dask array never carries.*domain=encoder\.domain_"):
        FunctionalMechanismLR(**kw).fit(Zd, yd)


def test_local_scheduler_without_cluster(data):
    """No Client: Dask's threaded scheduler gives the same release."""
    import dask

    X, y, s = data
    mem = FairFunctionalMechanismLR(epsilon=1.0, random_state=9).fit(X, y, sensitive_features=s)
    with dask.config.set(scheduler="threads"):
        dsk = FairFunctionalMechanismLR(epsilon=1.0, random_state=9).fit(*_dask(X, y, s)[:2],
                                                                          sensitive_features=_dask(X, y, s)[2])
    np.testing.assert_allclose(dsk.noisy_coefficients_, mem.noisy_coefficients_, rtol=1e-12, atol=1e-12 * N)


def test_library_imports_without_dask():
    code = (
        "import sys; sys.modules['dask'] = None; sys.modules['distributed'] = None\n"
        "import numpy as np\n"
        "import dpfair_native, dpfair_native.metrics as m, dpfair_native.distributed\n"
        "from dpfair_native.models import FairFunctionalMechanismLR\n"
        "rng = np.random.default_rng(0); X = rng.random((200, 3)); y = (X[:, 0] > .5).astype(int); s = X[:, 1] > .5\n"
        "FairFunctionalMechanismLR(epsilon=1.0, random_state=0).fit(X, y, sensitive_features=s)\n"
        "print(m.demographic_parity_difference(y, y, sensitive_features=s))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def test_domain_encoder_encodes_a_dask_frame_lazily(client):
    """DomainEncoder.transform on a Dask DataFrame used to compute every column on the client (np.asarray); it now
    maps the encoding over the partitions, and a fit on the result with domain=encoder.domain_ equals the in-memory
    fit on the encoded frame."""
    pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    from dpfair_native.datasets import adult_schema, load_adult
    from dpfair_native.preprocessing import DomainEncoder

    frame = load_adult(as_frame=True).iloc[:3000]
    y = (frame.pop("income") == ">50K").to_numpy()
    s = frame.pop("sex").to_numpy()
    lazy = dd.from_pandas(frame, npartitions=3)
    enc = DomainEncoder(adult_schema()).fit(lazy)
    Z = enc.transform(lazy)
    assert isinstance(Z, dd.DataFrame) and Z.npartitions == 3 and list(Z.columns) == list(enc.domain_.names)
    in_memory = DomainEncoder(adult_schema()).fit_transform(frame)
    enc.set_params(schema={"age": (17, 90)}).fit(lazy)  # a refit before compute() leaves Z as it was
    np.testing.assert_array_equal(Z.compute().to_numpy(), np.asarray(in_memory))
    enc.set_params(schema=adult_schema()).fit(lazy)
    params = dict(declared_groups=["Female", "Male"], random_state=0)
    ours = FairFunctionalMechanismLR(domain=enc.domain_, **params).fit(Z, y, sensitive_features=s)
    theirs = FairFunctionalMechanismLR(**params).fit(in_memory, y, sensitive_features=s)
    np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=1e-9, atol=1e-12)
    with pytest.raises(TypeError, match="sparse_output=True does not take a Dask DataFrame"):
        DomainEncoder(adult_schema(), sparse_output=True).fit(lazy).transform(lazy)
