"""The Dask path on inputs review 24 found it treated differently from memory, and on partitionings the older Dask
tests did not reach (synchronous scheduler: the release does not depend on the scheduler, test_distributed.py).

- y as a Dask Series of a pandas extension dtype (Int64, boolean, pyarrow, 0/1 category) was converted to an object
  array, so its 0/1 classes stopped being public: a data set whose one positive record is replaced aborted ("y has
  1 class") where its neighbour fitted, the abort the public classes exist to avoid.
- A Dask DataFrame X with bool, nullable, pyarrow or object numeric columns was refused; memory fits it.
- More than 8 partitions (the tree reduction's fan-in), one-row and empty partitions, rows outside the box under a
  feature selection, and labels absent from the first partition.
"""

import warnings

import numpy as np
import pytest

from dpfair_native import metrics
from dpfair_native.models import DPSGDClassifier, FairFunctionalMechanismLR, FunctionalMechanismLR
from dpfair_native.preprocessing import PrivacyLeakWarning
from dpfair_native.tuning import PrivateHyperparameterSearch

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
pd = pytest.importorskip("pandas")


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


def _quiet_fit(est, X, y, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(X, y, **kw)


EXTENSION_DTYPES = ["Int64", "boolean", "int64[pyarrow]", "bool[pyarrow]", pd.CategoricalDtype([0, 1])]


@pytest.mark.parametrize("dtype", EXTENSION_DTYPES, ids=str)
def test_zero_one_labels_of_an_extension_dtype_keep_public_classes(dtype):
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.random(300), "b": rng.random(300)})
    one_positive = pd.Series(np.zeros(300, dtype=np.int64))
    one_positive[17] = 1
    for labels in (one_positive, pd.Series(np.zeros(300, dtype=np.int64))):  # and its neighbour, with none
        y = labels.astype(dtype)
        mem = _quiet_fit(FunctionalMechanismLR(epsilon=1.0, random_state=0), X, y)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            warnings.simplefilter("error", PrivacyLeakWarning)  # the classes are public
            dsk = FunctionalMechanismLR(epsilon=1.0, random_state=0).fit(dd.from_pandas(X, npartitions=3),
                                                                         dd.from_pandas(y, npartitions=3))
        assert dsk.classes_.tolist() == mem.classes_.tolist() == [0, 1] and dsk.classes_.dtype.kind in "biu"
        np.testing.assert_allclose(dsk.noisy_coefficients_, mem.noisy_coefficients_, rtol=1e-12, atol=1e-12)


def test_missing_labels_in_an_extension_dtype_get_the_in_memory_error():
    X = pd.DataFrame({"a": np.linspace(0, 1, 40)})
    y = pd.Series([0, 1] * 20, dtype="boolean")
    y[25] = pd.NA
    with pytest.raises(ValueError, match="missing values"):
        _quiet_fit(FunctionalMechanismLR(epsilon=1.0, random_state=0), X, y)
    with pytest.raises(ValueError, match="missing values"):
        _quiet_fit(FunctionalMechanismLR(epsilon=1.0, random_state=0), dd.from_pandas(X, npartitions=2),
                   dd.from_pandas(y, npartitions=2))


FRAMES = {
    "bool column": lambda f: f.assign(c=f.a > 0.3),
    "nullable Float64": lambda f: f.astype("Float64"),
    "nullable Int64 column": lambda f: f.assign(c=(f.a > 0.3).astype("Int64")),
    "double[pyarrow]": lambda f: f.astype("double[pyarrow]"),
    "object of ints": lambda f: f.assign(c=pd.Series([1] * len(f), dtype=object)),
}


@pytest.mark.parametrize("make", FRAMES.values(), ids=FRAMES.keys())
def test_frames_memory_accepts_are_accepted_with_the_same_release(make):
    rng = np.random.default_rng(1)
    frame = make(pd.DataFrame({"a": rng.random(400), "b": rng.random(400)}))
    y = (frame["a"].astype(float) > 0.5).astype(np.int64).to_numpy()
    mem = _quiet_fit(FunctionalMechanismLR(epsilon=1.0, random_state=0), frame, y)
    ddf = dd.from_pandas(frame, npartitions=3)
    dsk = _quiet_fit(FunctionalMechanismLR(epsilon=1.0, random_state=0), ddf, y)
    np.testing.assert_allclose(dsk.noisy_coefficients_, mem.noisy_coefficients_, rtol=1e-12, atol=1e-12)
    assert list(dsk.feature_names_in_) == list(mem.feature_names_in_)
    np.testing.assert_array_equal(dsk.predict(ddf).compute(), mem.predict(frame))


def test_frames_of_strings_and_missing_values_get_the_in_memory_errors():
    frame = pd.DataFrame({"a": np.linspace(0, 1, 30), "b": ["x"] * 30})
    y = np.arange(30) % 2
    for bad, error, match in ((frame, TypeError, "real numbers"),
                              (frame.assign(b=pd.array([1.0] * 29 + [None], dtype="Float64")), ValueError, "NaN")):
        with pytest.raises(error, match=match):
            _quiet_fit(FunctionalMechanismLR(epsilon=1.0, random_state=0), bad, y)
        with pytest.raises(error, match=match):
            _quiet_fit(FunctionalMechanismLR(epsilon=1.0, random_state=0), dd.from_pandas(bad, npartitions=2), y)


def test_predict_on_a_dask_frame_reads_nothing_until_computed():
    rng = np.random.default_rng(2)
    frame = pd.DataFrame({"a": rng.random(200), "b": rng.random(200)})
    y = (frame.a > 0.5).astype(np.int64).to_numpy()
    est = _quiet_fit(FunctionalMechanismLR(epsilon=1.0, random_state=0), frame, y)
    reads = []

    def counted(part):
        reads.append(len(part))
        return part

    ddf = dd.from_pandas(frame, npartitions=4).map_partitions(counted, meta=frame.iloc[:0])  # no meta inference
    pred = est.predict(ddf)
    assert reads == [] and isinstance(pred, da.Array)
    np.testing.assert_array_equal(pred.compute(), est.predict(frame))
    # its row chunks are unknown until computed; a metric computes them (against y of other partitions)
    yd = da.from_array(y, chunks=70)
    assert metrics.accuracy(yd, est.predict(ddf)) == metrics.accuracy(y, est.predict(frame))
    assert metrics.demographic_parity_difference(yd, est.predict(ddf), sensitive_features=y) == pytest.approx(
        metrics.demographic_parity_difference(y, est.predict(frame), sensitive_features=y), abs=1e-15)


# 13 partitions (more than the reduction's fan-in of 8), four of one row and one empty
CHUNKS = (1, 1, 0, 150, 1, 147, 200, 100, 100, 1, 200, 99, 200)


def _rows(n=1200, d=24, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    X[::7] = 3.0 * X[::7] - 1.0  # rows outside [0, 1]^d: clipped before the selection's sums and the release
    y = (X[:, 0] - X[:, 3] + 0.3 * rng.standard_normal(n) > 0.3).astype(np.int64)
    s = np.where(rng.random(n) < 0.4, "b", "a")
    return X, y, s


@pytest.mark.parametrize("make", [
    lambda: FunctionalMechanismLR(epsilon=2.0, max_features=5, refinement_rounds=1, random_state=1),
    lambda: FairFunctionalMechanismLR(epsilon=2.0, max_features=6, declared_groups=["a", "b"], random_state=2),
], ids=["FM", "FairFM"])
def test_many_small_partitions_and_rows_outside_the_box_give_the_in_memory_release(make):
    X, y, s = _rows()
    assert sum(CHUNKS) == len(y)
    fair = make().requires_sensitive_features
    mem = _quiet_fit(make(), X, y, **({"sensitive_features": s} if fair else {}))
    kw = {"sensitive_features": da.from_array(s, chunks=(CHUNKS,))} if fair else {}
    dsk = _quiet_fit(make(), da.from_array(X, chunks=(CHUNKS, -1)), da.from_array(y, chunks=(CHUNKS,)), **kw)
    assert dsk.selection_.q == mem.selection_.q
    np.testing.assert_array_equal(dsk.selected_features_, mem.selected_features_)
    np.testing.assert_allclose(dsk.noisy_coefficients_, mem.noisy_coefficients_, rtol=1e-12, atol=1e-12 * len(y))
    assert dsk.privacy_spent_ == mem.privacy_spent_


def test_the_selection_sums_of_a_partition_clip_to_the_box():
    from dpfair_native.distributed import _selection_block
    from dpfair_native.domain import FeatureDomain
    from dpfair_native.feature_selection import relevance_scores

    X, y, _ = _rows(n=300, d=5)
    domain = FeatureDomain(np.zeros(5), np.ones(5))
    _, label_sums, sums = _selection_block(X, y, np.array([0, 1]), domain, "clip")
    np.testing.assert_allclose(np.abs(label_sums - 0.37 * sums), relevance_scores(X, y, domain, 0.37), rtol=1e-12)


def test_a_class_and_a_group_absent_from_the_first_partition():
    X, y, s = _rows(n=600, d=4)
    order = np.argsort(s, kind="stable")  # every "a" row first: the first partition holds one group
    X, y, s = X[order], y[order], s[order]
    labels = np.where(y == 1, "yes", "no")
    labels[:200] = "no"  # and one class
    mem = _quiet_fit(FairFunctionalMechanismLR(epsilon=1.0, random_state=0), X, labels, sensitive_features=s)
    dsk = _quiet_fit(FairFunctionalMechanismLR(epsilon=1.0, random_state=0), da.from_array(X, chunks=(200, -1)),
                     da.from_array(labels, chunks=200), sensitive_features=da.from_array(s, chunks=200))
    np.testing.assert_array_equal(dsk.classes_, mem.classes_)
    np.testing.assert_array_equal(dsk.groups_, mem.groups_)
    np.testing.assert_allclose(dsk.noisy_coefficients_, mem.noisy_coefficients_, rtol=1e-12, atol=1e-9)


def test_a_metric_whose_only_dask_input_is_the_weight():
    y = np.array([0, 1, 1, 0, 1, 0])
    pred = np.array([0, 1, 0, 0, 1, 1])
    w = np.array([1.0, 2.0, 0.5, 1.0, 3.0, 1.0])
    got = metrics.accuracy(y, pred, sample_weight=da.from_array(w, chunks=4))
    assert got == pytest.approx(metrics.accuracy(y, pred, sample_weight=w), rel=1e-15)


@pytest.mark.parametrize("which", ["X", "y"])
def test_the_tuner_refuses_dask_input(which):
    rng = np.random.default_rng(3)
    X, y = rng.random((100, 2)), (rng.random(100) < 0.5).astype(np.int64)
    args = {"X": X, "y": y}
    args[which] = da.from_array(args[which], chunks=50)
    search = PrivateHyperparameterSearch(DPSGDClassifier(target_epsilon=1.0), [{"learning_rate": 1.0}])
    with pytest.raises(TypeError, match="no Dask fit"):
        search.fit(args["X"], args["y"])


def test_estimators_without_a_dask_fit_refuse_dask_input_instead_of_computing_it():
    from dpfair_native.causal import PrivPCStar

    X = da.from_array(np.random.default_rng(4).uniform(-1, 1, size=(200, 3)), chunks=50)
    with pytest.raises(TypeError, match="Dask collection"):
        PrivPCStar(epsilon=1.0, clip_norm=2.0, random_state=0).fit(X)
    with pytest.raises(TypeError, match="no Dask fit"):
        DPSGDClassifier(target_epsilon=1.0, random_state=0).fit(X, np.arange(200) % 2)


@pytest.mark.parametrize("make, most, seed", [
    (lambda: FunctionalMechanismLR(epsilon=1.0, random_state=0), 4, 3),
    (lambda: FairFunctionalMechanismLR(epsilon=1.0, random_state=0, declared_groups=[0, 1]), 6, 4),
])
def test_a_dask_frame_is_read_a_bounded_number_of_times(make, most, seed):
    """X, y and s as columns of one Dask DataFrame: their partition lengths are computed in one pass (each
    ``to_dask_array(lengths=True)`` was a pass of its own) and y's and s's distinct labels in one more; then the
    sums. Session 26: 4 and 6 reads of each partition (FM without and with s), 6 and 8 before. (Dask reads the
    frame once per column set inside a pass: X, y and s become separate arrays.) Same release as the NumPy fit.
    Each case has data of its own: dask caches what it learnt of an expression (e.g. its lengths) by its token, and
    an identical frame would reuse the other case's graph, counter included."""
    rng = np.random.default_rng(seed)
    n = 2000
    frame = pd.DataFrame({"a": rng.random(n), "b": rng.random(n), "s": (rng.random(n) < 0.4).astype(np.int64)})
    frame["y"] = ((frame.a + 0.3 * frame.s + 0.2 * rng.random(n)) > 0.7).astype(np.int64)
    reads = []

    def counted(part):
        reads.append(len(part))
        return part

    ddf = dd.from_pandas(frame, npartitions=4).map_partitions(counted, meta=frame.iloc[:0])
    est = _quiet_fit(make(), ddf[["a", "b"]], ddf["y"], sensitive_features=ddf["s"])
    assert len(reads) <= most * 4, len(reads) / 4
    mem = _quiet_fit(make(), frame[["a", "b"]], frame["y"].to_numpy(), sensitive_features=frame["s"].to_numpy())
    np.testing.assert_allclose(est.noisy_coefficients_, mem.noisy_coefficients_, rtol=1e-10, atol=1e-9)
