"""FeatureDomain: norms, projection, and FM sensitivities checked against brute force over domain vertices."""

import itertools
import math
from types import SimpleNamespace

import numpy as np
import pytest

from dpfair_native.domain import (
    FeatureDomain,
    paper_sensitivity_adfc_l2,
    paper_sensitivity_mu,
    paper_sensitivity_pdfc,
    paper_sensitivity_pflr,
    paper_sensitivity_privlr,
    paper_sensitivity_relaxed_fm_l2,
)


def vertices(D):
    """Every vertex of the box x one-hot structure (numeric at l or u, each group 0 or one e_a)."""
    opts = [[(j, D.lower[j]), (j, D.upper[j])] for j in D.numeric_columns]
    opts += [[None] + [(j, 1.0) for j in g] for g in D.one_hot_groups]
    out = []
    for combo in itertools.product(*opts):
        x = np.zeros(D.d)
        for c in combo:
            if c is not None:
                x[c[0]] = c[1]
        out.append(x)
    return np.array(out)


def monomials(X):
    d = X.shape[1]
    iu = np.triu_indices(d, 1)
    return np.concatenate([X * X, 2.0 * (X[:, :, None] * X[:, None, :])[:, iu[0], iu[1]]], axis=1)


def brute_fm(points, ts, norm, gamma=0.125, cols=None):
    """max ||φ(x,t) − φ(x',t')|| over all pairs of points and multipliers (optionally only coordinates `cols`)."""
    phis = []
    for t in ts:
        phis.append(np.concatenate([t * points, gamma * monomials(points)], axis=1))
    P = np.concatenate(phis)
    if cols is not None:
        P = P[:, cols]
    diff = P[:, None, :] - P[None, :, :]
    return float((np.abs(diff).sum(-1) if norm == "l1" else np.sqrt(np.square(diff).sum(-1))).max())


def box_with_groups():
    return FeatureDomain(np.zeros(6), np.ones(6), one_hot_groups=[(1, 2, 3), (4, 5)])


DOMAINS = {
    "box1": FeatureDomain.unit_box(1),
    "box3": FeatureDomain.unit_box(3),
    "box6": FeatureDomain.unit_box(6),
    "groups": box_with_groups(),
    "groups_singleton": FeatureDomain(np.zeros(5), np.ones(5), one_hot_groups=[(2, 3), (4,)]),
    "bounds": FeatureDomain([0.0, 0.5, 0.0, 1.0], [1.0, 2.0, 3.0, 1.0]),  # incl. a constant (intercept) column
}


@pytest.mark.parametrize("name", sorted(DOMAINS))
@pytest.mark.parametrize("shift", [(0.0, 0.0), (0.0, 1.0)])
def test_l1_sensitivity_is_exact_on_vertices(name, shift):
    D = DOMAINS[name]
    ts = np.unique([t + s for t in (0.5, -0.5) for s in shift])
    bound = D.functional_sensitivity(norm="l1", linear_shift=shift)
    brute = brute_fm(vertices(D), ts, "l1")
    assert bound >= brute - 1e-12
    tight = 1.0 if name != "bounds" else 1.35  # non-0/1 bounds: the numeric split relaxation has slack
    assert bound <= tight * brute + 1e-12, (bound, brute)


@pytest.mark.parametrize("name", sorted(DOMAINS))
def test_l2_sensitivity_bounds_vertices_within_sqrt2(name):
    D = DOMAINS[name]
    bound = D.functional_sensitivity(norm="l2")
    brute = brute_fm(vertices(D), (0.5, -0.5), "l2")
    assert brute - 1e-12 <= bound <= math.sqrt(2.0) * brute


def test_sensitivity_bounds_hold_on_a_fine_grid():
    # The max of the quadratic block need not sit at a vertex: also check random and grid interior points.
    rng = np.random.default_rng(0)
    for D in (FeatureDomain.unit_box(3), FeatureDomain([-1.0, 0.0, -0.5], [1.0, 2.0, 0.25])):
        g = np.linspace(0, 1, 6)
        pts = np.array(list(itertools.product(g, repeat=3))) * (D.upper - D.lower) + D.lower
        pts = np.concatenate([pts, rng.uniform(D.lower, D.upper, size=(200, 3))])
        for norm in ("l1", "l2"):
            assert D.functional_sensitivity(norm=norm) >= brute_fm(pts, (0.5, -0.5), norm) - 1e-12


def test_unit_box_l1_closed_form_and_below_paper():
    for d in (1, 2, 5, 10, 40, 100):
        D = FeatureDomain.unit_box(d)
        exact = 1.0 if d == 1 else d * d / 8 + d / 2 + 0.5
        assert D.functional_sensitivity(norm="l1") == pytest.approx(exact, rel=1e-12)
        assert D.functional_sensitivity(norm="l1") <= paper_sensitivity_privlr(d)
        assert D.functional_sensitivity(norm="l1", linear_shift=(0, 1)) <= paper_sensitivity_pflr(d)
        assert D.functional_sensitivity(norm="l2") <= paper_sensitivity_relaxed_fm_l2(d)
        assert D.functional_sensitivity(norm="l2", linear_shift=(0, 1)) <= paper_sensitivity_adfc_l2(d)


def test_paper_formulas():
    assert paper_sensitivity_privlr(4) == 8.0
    assert paper_sensitivity_pflr(4) == 16.0 == paper_sensitivity_pdfc(4)
    assert paper_sensitivity_mu(7) == 14.0
    assert paper_sensitivity_relaxed_fm_l2(4) == pytest.approx(math.sqrt(5.0))
    assert paper_sensitivity_adfc_l2(4) == pytest.approx(math.sqrt(37.0))
    with pytest.raises(ValueError):
        paper_sensitivity_privlr(0)


@pytest.mark.parametrize("name", ["box6", "groups", "groups_singleton"])
@pytest.mark.parametrize("norm", ["l1", "l2"])
def test_blocks_and_split_bound_their_coordinates(name, norm):
    D = DOMAINS[name]
    V = vertices(D)
    d = D.d
    lin, quad = D.functional_sensitivity_blocks(norm=norm)
    assert lin >= brute_fm(V, (0.5, -0.5), norm, cols=np.arange(d)) - 1e-12
    assert quad >= brute_fm(V, (0.5, -0.5), norm, cols=np.arange(d, d + d * (d + 1) // 2)) - 1e-12
    iu = np.triu_indices(d, 1)
    for s in range(d):
        in_s = np.concatenate([np.arange(d) == s, np.arange(d) == s, (iu[0] == s) | (iu[1] == s)])
        ds, dn = D.functional_sensitivity_split(s, norm=norm)
        bs = brute_fm(V, (0.5, -0.5), norm, cols=np.flatnonzero(in_s))
        bn = brute_fm(V, (0.5, -0.5), norm, cols=np.flatnonzero(~in_s))
        assert bs - 1e-12 <= ds and bn - 1e-12 <= dn
        assert ds <= (4 / 3 if norm == "l1" else math.sqrt(2)) * bs  # block slack only
        if name == "box6" and norm == "l1":  # Φ_n uses the joint bound: exact on [0, 1]^d
            assert dn == pytest.approx(bn, rel=1e-12)


def test_capped_domains():
    ball = FeatureDomain.unit_ball(3)
    assert ball.max_l2() == pytest.approx(1.0)
    assert ball.max_l1() == pytest.approx(math.sqrt(3.0), rel=1e-9)
    # quadratic block on the unit ball: exactly 2·γ (x = (e1+e2)/√2, x' = (e1−e2)/√2)
    _, quad = ball.functional_sensitivity_blocks(norm="l2")
    assert quad == pytest.approx(2 * 0.125)
    rng = np.random.default_rng(1)
    P = rng.normal(size=(400, 3))
    P /= np.linalg.norm(P, axis=1, keepdims=True)
    P = np.concatenate([P, [[1, 1, 0] / np.sqrt(2), [1, -1, 0] / np.sqrt(2)]])
    for norm in ("l1", "l2"):
        assert ball.functional_sensitivity(norm=norm) >= brute_fm(P, (0.5, -0.5), norm)
    capped = FeatureDomain(np.zeros(4), np.ones(4), l1_cap=2.5)
    assert capped.max_l1() == 2.5 and capped.max_l2() == pytest.approx(math.sqrt(2.25))
    g = np.linspace(0, 1, 5)
    pts = np.array([p for p in itertools.product(g, repeat=4) if sum(p) <= 2.5])
    for norm in ("l1", "l2"):
        assert capped.functional_sensitivity(norm=norm) >= brute_fm(pts, (0.5, -0.5), norm) - 1e-12


def test_max_norms_adult_like():
    D = FeatureDomain(np.zeros(20), np.ones(20), one_hot_groups=[tuple(range(6, 13)), tuple(range(13, 20))])
    assert D.max_l1() == 8.0 and D.max_l2() == pytest.approx(math.sqrt(8.0))
    V = vertices(FeatureDomain(np.zeros(6), np.ones(6), one_hot_groups=[(2, 3, 4), (5,)]))
    assert np.abs(V).sum(1).max() == FeatureDomain(np.zeros(6), np.ones(6), one_hot_groups=[(2, 3, 4), (5,)]).max_l1()


def test_group_sums_sensitivity_brute_force():
    D = box_with_groups()
    V = vertices(D)
    best1 = best2 = 0.0
    for x in V:
        for xp in V:
            for move in (False, True):
                if move:
                    diff = np.concatenate([x, xp, [1.0, 1.0]])
                else:
                    diff = np.concatenate([x - xp, [0.0, 0.0]])
                best1, best2 = max(best1, np.abs(diff).sum()), max(best2, np.linalg.norm(diff))
    assert D.group_sums_sensitivity("l1") == pytest.approx(best1)
    assert D.group_sums_sensitivity("l2") == pytest.approx(best2)
    assert D.group_sums_sensitivity("l1", include_counts=False) == 2 * D.max_l1()


def test_project_clip_and_raise_do_not_mutate():
    D = FeatureDomain([0.0, -1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0], one_hot_groups=[(2, 3)], l2_cap=1.5)
    X = np.array([[0.5, 0.0, 1.0, 0.0], [2.0, -3.0, 0.0, 1.0], [1.0, 1.0, 1.0, 0.0]])
    X0 = X.copy()
    Xp, n = D.project(X)
    assert np.array_equal(X, X0)
    assert Xp.dtype == np.float64 and n == 2
    assert np.all(D.contains(Xp)) and not np.all(D.contains(X))
    assert np.array_equal(Xp[0], X[0])
    assert np.array_equal(Xp[:, 2:], X[:, 2:])  # one-hot columns untouched
    assert np.linalg.norm(Xp[2]) == pytest.approx(1.5, rel=1e-9)
    with pytest.raises(ValueError, match="row 1, column 0"):
        D.project(X, policy="raise")
    assert np.array_equal(X, X0)
    Xin, n0 = D.project(Xp, policy="raise")
    assert n0 == 0 and np.array_equal(Xin, Xp)
    for bad, repaired in (([[0.5, 0.0, 1.0, 1.0]], [0.5, 0.0, 1.0, 0.0]),
                          ([[0.5, 0.0, 0.5, 0.0]], [0.5, 0.0, 1.0, 0.0]),
                          ([[0.5, 0.0, 0.2, 0.3]], [0.5, 0.0, 0.0, 0.0])):
        with pytest.raises(ValueError, match="row 0, column 3|row 0, column 2"):
            D.project(np.array(bad), policy="raise")
        # "clip" maps a broken one-hot group into the domain instead of aborting on one record
        fixed, changed = D.project(np.array(bad), policy="clip")
        assert changed == 1 and np.array_equal(fixed[0], repaired) and D.contains(fixed).all()
    with pytest.raises(ValueError, match="NaN"):
        D.project([[np.nan, 0, 0, 0]])
    with pytest.raises(ValueError, match="policy"):
        D.project(X, policy="drop")


def test_project_keeps_constant_column_under_caps():
    D = FeatureDomain([0.0, 0.0, 1.0], [1.0, 1.0, 1.0], l1_cap=2.0)  # augmented intercept column
    Xp, n = D.project(np.array([[1.0, 1.0, 1.0], [0.2, 0.3, 1.0]]))
    assert n == 1 and np.all(Xp[:, 2] == 1.0) and np.abs(Xp[0]).sum() <= 2.0
    assert np.abs(Xp[0]).sum() == pytest.approx(2.0, rel=1e-9)


def test_validation_errors():
    with pytest.raises(ValueError):
        FeatureDomain([0, 1], [1, 0])
    with pytest.raises(ValueError):
        FeatureDomain([0, 0], [1, np.inf])
    with pytest.raises(ValueError):
        FeatureDomain([0, 0, 0], [1, 1, 1], one_hot_groups=[(0, 1), (1, 2)])
    with pytest.raises(ValueError):
        FeatureDomain([0, 0], [1, 1], one_hot_groups=[(0, 5)])
    with pytest.raises(ValueError):
        FeatureDomain([0, 0], [2, 1], one_hot_groups=[(0, 1)])
    with pytest.raises(ValueError):
        FeatureDomain([1, 1], [2, 2], l1_cap=1.0)
    with pytest.raises(ValueError):
        FeatureDomain.unit_box(3).functional_sensitivity(norm="linf")
    with pytest.raises(ValueError):
        FeatureDomain.unit_box(3).functional_sensitivity(linear_shift=(1, 0))


def test_from_dataset_and_adult():
    fake = SimpleNamespace(
        feature_names=("age", "hours", "w_a", "w_b", "w_c"),
        numeric_columns=(0, 1),
        one_hot_groups=((2, 3, 4),),
        X=np.zeros((2, 5)),
    )
    D = FeatureDomain.from_dataset(fake)
    assert D.d == 5 and D.names == fake.feature_names and D.one_hot_groups == ((2, 3, 4),)
    assert D.max_l1() == 3.0 and np.all(D.lower == 0) and np.all(D.upper == 1)
    from dpfair_native.datasets import load_adult

    data = load_adult()
    A = FeatureDomain.from_dataset(data)
    assert A.max_l1() == len(data.numeric_columns) + len(data.one_hot_groups) < A.d
    assert np.all(A.contains(data.X[:2000]))
    assert A.functional_sensitivity(norm="l1") < paper_sensitivity_privlr(A.d) / 4


def test_contains_all_equals_rowwise_contains():
    """The fast no-copy check agrees with the row-wise one, with and without the Gram shortcut, on clean data and
    on every kind of violation (bounds, a non-0/1 one-hot value, two 1s in a group, a cap, NaN)."""
    rng = np.random.default_rng(3)
    doms = [
        box_with_groups(),
        FeatureDomain([0.0, -1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0], one_hot_groups=[(2, 3)], l2_cap=1.5),
        FeatureDomain(np.zeros(5), np.ones(5), one_hot_groups=[(0, 3)]),  # a group whose columns are not adjacent
    ]
    for D in doms:
        base = vertices(D)
        base = base[D.contains(base)]
        X = base[rng.integers(len(base), size=50)].copy()
        num = list(D.numeric_columns)
        X[:, num] = np.clip(X[:, num] * rng.random((50, len(num))), D.lower[num], D.upper[num])
        X = D.project(X)[0]
        cases = [X]
        for j in range(D.d):
            for v in (D.upper[j] + 0.5, D.lower[j] - 1e-300, 0.5, np.nan):
                Z = X.copy()
                Z[7, j] = v
                cases.append(Z)
        for g in D.one_hot_groups:
            if len(g) > 1:
                Z = X.copy()
                Z[3, list(g[:2])] = 1.0
                cases.append(Z)
        for Z in cases:
            expected = bool(np.all(D.contains(np.nan_to_num(Z, nan=9.0))))
            assert D.contains_all(Z) == expected
            gram = 0.125 * np.nan_to_num(Z, nan=9.0).T @ np.nan_to_num(Z, nan=9.0)
            assert D.contains_all(Z, pair_sums=gram) == expected


def test_sensitivities_are_cached_and_unchanged():
    D = box_with_groups()
    fresh = box_with_groups()
    for kw in ({"norm": "l1"}, {"norm": "l2"}, {"norm": "l1", "linear_multipliers": [0.5, -0.5, 1.0]},
               {"norm": "l2", "quadratic_coef": 0.1, "linear_shift": (0.0, 1.0)}):
        first = D.functional_sensitivity(**kw)
        assert D.functional_sensitivity(**kw) == first == fresh.functional_sensitivity(**kw)
    assert D.functional_sensitivity_split(2, norm="l2") == fresh.functional_sensitivity_split(2, norm="l2")
    with pytest.raises(ValueError):
        D.functional_sensitivity(linear_multipliers=["a"])


def test_project_clip_zeroes_a_one_hot_part_that_alone_breaks_a_cap():
    D = FeatureDomain([0.0, 0.0, 0.0], [1.0, 1.0, 1.0], one_hot_groups=[(1, 2)], l1_cap=0.5)
    Xp, n = D.project(np.array([[0.2, 1.0, 0.0], [0.9, 0.0, 0.0]]))
    assert n == 2 and D.contains(Xp).all()
    assert np.array_equal(Xp[0], [0.2, 0.0, 0.0]) and Xp[1, 0] == pytest.approx(0.5)
    with pytest.raises(ValueError, match="norm"):
        D.project(np.array([[0.2, 1.0, 0.0]]), policy="raise")


def test_float32_rows_just_over_a_norm_cap_are_outside_the_domain():
    """The caps are checked on float64 norms: in float32, 1 + 1e-8 rounds to 1, so a float32 sum would let these
    rows (exact norms 2 + 1e-8 and √(1 + 1e-8)) through unprojected, and the release would use an out-of-domain
    row."""
    l1 = FeatureDomain(-np.ones(3), np.ones(3), l1_cap=2.0)
    l2 = FeatureDomain(-np.ones(3), np.ones(3), l2_cap=1.0)
    for dom, row in ((l1, [1.0, 1.0, 1e-8]), (l2, [1.0, 1e-4, 0.0])):
        X = np.array([row], dtype=np.float32)
        assert not dom.contains_all(X)
        assert not dom.contains_all(X.astype(np.float64))
        P, changed = dom.project(X)
        P64 = np.asarray(P, dtype=np.float64)
        assert changed == 1 and dom.contains_all(P)
        assert (np.abs(P64).sum() if dom is l1 else np.sqrt((P64**2).sum())) <= (2.0 if dom is l1 else 1.0)


@pytest.mark.parametrize("name", ["FunctionalMechanismLR", "PDFC", "FairFunctionalMechanismLR"])
def test_the_assumed_domain_warning_names_the_callers_line(name):
    """It points at the user's call of fit whatever path led there (PDFC's _fit_rows override added a frame, so
    its warning named a line inside the package)."""
    import warnings

    from dpfair_native import models
    from dpfair_native.domain import AssumedDomainWarning

    rng = np.random.default_rng(0)
    X = rng.uniform(size=(300, 3))
    y = (X[:, 0] > 0.5).astype(int)
    s = (rng.uniform(size=300) < 0.4).astype(int)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        params = {"FunctionalMechanismLR": {}, "PDFC": {"declared_groups": [0, 1]}}.get(
            name, {"epsilon": 1.0, "declared_groups": [0, 1]})
        getattr(models, name)(random_state=0, **params).fit(X, y, sensitive_features=s)
    [w] = [w for w in caught if issubclass(w.category, AssumedDomainWarning)]
    assert w.filename == __file__
