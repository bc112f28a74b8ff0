"""Private feature selection (dpfair_native.feature_selection) and its use by the functional-mechanism family."""

import itertools

import numpy as np
import pytest

from dpfair_native.domain import FeatureDomain
from dpfair_native.feature_selection import (
    COUNT_SHARE,
    gumbel_top_k,
    peeling_probability,
    relevance_scores,
    restrict_domain,
    select_features,
    select_features_from_sums,
)
from dpfair_native.models.ding import PDFC
from dpfair_native.models.functional import FairFunctionalMechanismLR, FunctionalMechanismLR


def _sparse_signal(n=3000, d=40, seed=5):
    """Three informative columns (2, 7, 11; 0, 1, 2 when d < 12) among d uniform ones: not the defaults test's
    generator."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, d))
    a, b, c = (2, 7, 11) if d >= 12 else (0, 1, 2)
    z = 4 * X[:, a] - 3 * X[:, b] + 3 * X[:, c] + rng.normal(size=n)
    return X, (z > np.median(z)).astype(np.int64), (rng.uniform(size=n) < 0.4).astype(np.int64)


def test_relevance_scores_match_their_definition_with_clipping():
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 1.5, size=(50, 3))
    y = rng.integers(0, 2, 50)
    dom = FeatureDomain([0, 0, -1], [1, 2, 1])
    Xc = np.clip(X, dom.lower, dom.upper)
    mid, width = (dom.lower + dom.upper) / 2, dom.upper - dom.lower
    expected = np.abs((Xc - mid).T @ (y - 0.3)) / width
    assert np.allclose(relevance_scores(X, y, dom, 0.3), expected)
    with pytest.raises(ValueError, match="outside the declared domain"):
        relevance_scores(X, y, dom, 0.3, policy="raise")


def test_relevance_scores_sparse_equals_dense():
    sp = pytest.importorskip("scipy.sparse")
    rng = np.random.default_rng(1)
    X = rng.uniform(size=(40, 5)) * (rng.uniform(size=(40, 5)) < 0.3)
    y = rng.integers(0, 2, 40)
    dom = FeatureDomain([0, 0.1, -1, 0, 0], [1, 1, 0.5, 0.5, 1])  # 0 outside column 1's box; column 3 clips
    dense = relevance_scores(X, y, dom, 0.45)
    assert np.allclose(relevance_scores(sp.csr_matrix(X), y, dom, 0.45), dense)


def test_relevance_scores_sparse_raise_policy_agrees_with_dense():
    """policy="raise" on CSR: a column whose box excludes 0 is out of the domain only where it holds an implicit
    zero (it used to raise for every such column, even fully stored ones the dense path accepts)."""
    sp = pytest.importorskip("scipy.sparse")
    rng = np.random.default_rng(2)
    X = rng.uniform(0.2, 0.9, size=(30, 3))
    X[:, 2] *= rng.uniform(size=30) < 0.5  # column 2 has zeros (in its box [0, 1])
    y = rng.integers(0, 2, 30)
    dom = FeatureDomain([0.1, 0, 0], [1, 1, 1])  # 0 outside column 0's box, which is fully stored
    dense = relevance_scores(X, y, dom, 0.5, policy="raise")
    assert np.allclose(relevance_scores(sp.csr_matrix(X), y, dom, 0.5, policy="raise"), dense)
    X[3, 0] = 0.0  # now column 0 holds a zero, outside its box: both refuse
    for data in (X, sp.csr_matrix(X)):
        with pytest.raises(ValueError, match="outside the declared domain"):
            relevance_scores(data, y, dom, 0.5, policy="raise")


def test_relevance_scores_on_csr_with_duplicate_entries_clip_each_cell_once():
    """A non-canonical CSR (two stored parts of one cell) is the dense matrix holding their sum: its score, clipped
    and refused like the dense one's (clipping each part and summing broke the per-row sensitivity bound)."""
    sp = pytest.importorskip("scipy.sparse")
    # cell (0, 0) stored as 1.0 + 1.0 = 2.0, outside the box [0, 1]; row 1 is 1.5 in column 0 (also outside)
    X = sp.csr_matrix((np.array([1.0, 1.0, 1.5]), np.array([0, 0, 0]), np.array([0, 2, 3, 3])), shape=(3, 1))
    assert not X.has_canonical_format
    y = np.array([1, 0, 0])
    dom = FeatureDomain([0.0], [1.0])
    dense = relevance_scores(X.toarray(), y, dom, 0.5)
    assert np.allclose(relevance_scores(X, y, dom, 0.5), dense)
    one_row = sp.csr_matrix((np.array([1.0, 1.0]), np.array([0, 0]), np.array([0, 2])), shape=(1, 1))
    assert relevance_scores(one_row, np.array([1]), dom, 0.0)[0] <= 0.5  # |x̄ − m|·|y − q| / w with x̄ in the box
    with pytest.raises(ValueError, match="outside the declared domain"):
        relevance_scores(X, y, dom, 0.5, policy="raise")


def test_gumbel_one_shot_has_the_peeling_distribution():
    u = np.array([3.0, 1.0, 0.0, 2.0])
    eps_round, sens, k = 1.0, 1.0, 2
    rng = np.random.default_rng(0)
    draws = 40_000
    counts = {}
    for _ in range(draws):
        seq = tuple(gumbel_top_k(u, k, eps_round, sens, rng))
        counts[seq] = counts.get(seq, 0) + 1
    for seq in itertools.permutations(range(4), k):
        p = peeling_probability(u, seq, eps_round, sens)
        se = np.sqrt(p * (1 - p) / draws)
        assert abs(counts.get(seq, 0) / draws - p) < 5 * se + 1e-4, (seq, p)
    assert sum(peeling_probability(u, s, eps_round, sens) for s in itertools.permutations(range(4), k)) == \
        pytest.approx(1.0)


def test_select_features_finds_the_informative_columns_and_spends_its_budget():
    X, y, _ = _sparse_signal()
    sel = select_features(X, y, FeatureDomain.unit_box(X.shape[1]), 3, 1.0, np.random.default_rng(0))
    assert list(sel.columns) == [2, 7, 11]
    assert sel.epsilon == 1.0 and sel.sensitivity == pytest.approx(max(sel.q, 1 - sel.q))
    kept = select_features(X, y, FeatureDomain.unit_box(X.shape[1]), 2, 1.0, np.random.default_rng(0),
                           required=[30])
    assert 30 in kept.columns and len(kept.columns) == 2


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"k": 0}, "k must be an integer"),
    ({"k": 41}, "k must be an integer"),
    ({"k": 2.5}, "k must be an integer"),
    ({"epsilon": 0.0}, "epsilon must be"),
    ({"epsilon": np.inf}, "epsilon must be"),
    ({"required": [40]}, "required columns"),
    ({"policy": "drop"}, "policy must be"),
])
def test_select_features_bad_input_says_how_to_fix(kwargs, match):
    X, y, _ = _sparse_signal(n=100)
    args = {"k": 3, "epsilon": 1.0, **kwargs}
    with pytest.raises(ValueError, match=match):
        select_features(X, y, FeatureDomain.unit_box(40), args.pop("k"), args.pop("epsilon"),
                        np.random.default_rng(0), **args)
    with pytest.raises(ValueError, match="columns"):
        select_features(X, y, FeatureDomain.unit_box(39), 3, 1.0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="0/1 labels"):  # the count's and the utilities' sensitivities assume 0/1
        select_features(X, 5 * y, FeatureDomain.unit_box(40), 3, 1.0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="0/1 labels"):
        relevance_scores(X, 2.0 * y - 1.0, FeatureDomain.unit_box(40), 0.5)


def test_restrict_domain_keeps_bounds_groups_and_caps():
    dom = FeatureDomain([0, 0, 0, -1], [1, 1, 1, 2], one_hot_groups=[(0, 1, 2)], l1_cap=3.0,
                        names=["a", "b", "c", "z"])
    sub = restrict_domain(dom, [1, 3])
    assert sub.one_hot_groups == ((0,),) and sub.l1_cap == 3.0 and sub.names == ("b", "z")
    assert np.array_equal(sub.lower, [0, -1]) and np.array_equal(sub.upper, [1, 2])


# -- the functional-mechanism family ------------------------------------------------------------------------------
def test_auto_selects_when_the_noise_swamps_the_signal_and_composes_the_budget():
    X, y, s = _sparse_signal(n=3000, d=40)
    m = FunctionalMechanismLR(random_state=0).fit(X, y)
    assert m.selection_ is not None and len(m.selected_features_) < 40
    assert {2, 7, 11} <= set(m.selected_features_)
    assert m.coef_.shape == (40,)
    assert np.all(m.coef_[np.setdiff1d(np.arange(40), m.selected_features_)] == 0)
    assert m.privacy_spent_ == pytest.approx((1.0, 0.0))  # 0.2 selection + 0.8 release
    assert m.sensitivity_["coefficients"] > 0 and m.selection_.epsilon == pytest.approx(0.2)
    full = FunctionalMechanismLR(random_state=0, max_features=None).fit(X, y)
    assert full.selection_ is None and len(full.selected_features_) == 40
    assert np.mean(m.predict(X) == y) > np.mean(full.predict(X) == y) + 0.05


@pytest.mark.parametrize("eps", [0.1, 0.9, 1.7, 3.1])
def test_a_selection_never_lifts_the_spend_above_the_declared_epsilon(eps):
    """Selection (0.2·ε) + blocks (0.8·ε) summed to one ulp above ε for these values (0.9 → 0.9000000000000001), so
    an accountant holding exactly ε refused the fit."""
    from dpfair_native.accountants import BudgetAccountant

    X, y, s = _sparse_signal(n=3000, d=40)
    acc = BudgetAccountant(eps, 1e-5)
    m = FairFunctionalMechanismLR(epsilon=eps, max_features=4, accountant=acc, random_state=0)
    m.fit(X, y, sensitive_features=s)
    assert m.privacy_spent_[0] <= eps and m.privacy_spent_[0] == pytest.approx(eps, rel=1e-15)


def test_none_and_auto_below_the_trigger_release_exactly_the_same():
    X, y, s = _sparse_signal(n=3000, d=4)
    a = FairFunctionalMechanismLR(random_state=3).fit(X, y, sensitive_features=s)
    b = FairFunctionalMechanismLR(random_state=3, max_features=None).fit(X, y, sensitive_features=s)
    assert a.selection_ is None and np.array_equal(a.noisy_coefficients_, b.noisy_coefficients_)
    assert np.array_equal(a.coef_, b.coef_)


def test_explicit_max_features_and_a_declared_ding_attribute():
    X, y, s = _sparse_signal(n=3000, d=40)
    m = PDFC(attribute=30, max_features=4, random_state=0).fit(X, y, sensitive_features=s)
    assert 30 in m.selected_features_ and len(m.selected_features_) == 4 and m.attribute_ == 30
    assert m.privacy_spent_ == pytest.approx((1.0, 0.0))
    assert m.selection_.epsilon == pytest.approx(0.2) and COUNT_SHARE < 1


@pytest.mark.parametrize("kw", [{"paper_faithful": True}, {"secure": True}, {"epsilon": np.inf}])
def test_explicit_max_features_refused_where_no_private_selection_runs(kw):
    X, y, _ = _sparse_signal(n=300, d=10)
    with pytest.raises(ValueError, match="max_features"):
        FunctionalMechanismLR(max_features=3, **kw).fit(X, y)
    FunctionalMechanismLR(**kw, random_state=0).fit(X, y)  # "auto" keeps every column there


def test_dask_input_selects_like_in_memory():
    """Dask input takes the in-memory decision ("auto" selects here) and accepts an explicit k: same columns."""
    dask = pytest.importorskip("dask")
    da = pytest.importorskip("dask.array")
    X, y, _ = _sparse_signal(n=3000, d=40)
    Xd, yd = da.from_array(X, chunks=(1000, 40)), da.from_array(y, chunks=1000)
    with dask.config.set(scheduler="synchronous"):
        for kw in ({}, {"max_features": 3}):
            mem = FunctionalMechanismLR(random_state=0, **kw).fit(X, y)
            dsk = FunctionalMechanismLR(random_state=0, **kw).fit(Xd, yd)
            assert mem.selection_ is not None and len(mem.selected_features_) < 40
            np.testing.assert_array_equal(dsk.selected_features_, mem.selected_features_)
            np.testing.assert_allclose(dsk.coef_, mem.coef_, rtol=1e-8, atol=1e-10)


def test_select_features_from_sums_equals_select_features():
    X, y, _ = _sparse_signal(n=500, d=12)
    dom = FeatureDomain(np.full(12, 0.1), np.r_[np.full(11, 0.9), 0.1])  # clipping, and a zero-width column
    c = np.clip(X, dom.lower, dom.upper) - 0.5 * (dom.lower + dom.upper)
    calls = []

    def sums():
        calls.append(1)
        return float(y.sum()), c.T @ y, c.sum(axis=0)

    for k, required in ((3, ()), (4, (5,)), (12, ()), (1, (5,))):
        a = select_features(X, y, dom, k, 1.0, np.random.default_rng(k), required=required)
        b = select_features_from_sums(500, 12, sums, dom, k, 1.0, np.random.default_rng(k), required=required)
        np.testing.assert_array_equal(a.columns, b.columns)
        np.testing.assert_equal((a.q, a.sensitivity, a.epsilon, a.n_features),
                                (b.q, b.sensitivity, b.epsilon, b.n_features))
    assert len(calls) == 2  # no sums when nothing is left to choose (k = d, or only required columns)
