"""NumPy-only parts of the fair-GAN family: the g-formula causal effects and the synthetic-data metrics.
No torch needed; the estimators are in tests/test_gan.py."""

import numpy as np
import pytest

from dpfair_native import metrics
from dpfair_native.gan import effects

pd = pytest.importorskip("pandas")


def _confounded(n=20000, seed=0):
    """A → S, A → Y, S → M → Y, S → Y; all binary."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2, n)
    s = (rng.random(n) < 0.3 + 0.4 * a).astype(int)
    m = (rng.random(n) < 0.2 + 0.5 * s).astype(int)
    y = (rng.random(n) < 0.1 + 0.3 * m + 0.2 * a + 0.15 * s).astype(int)
    df = pd.DataFrame({"a": a, "s": s, "m": m, "y": y})
    graph = {"s": ["a"], "m": ["s"], "y": ["a", "m", "s"]}
    return df, graph


def _p(df, **cond):
    keep = np.ones(len(df), dtype=bool)
    for k, v in cond.items():
        keep &= df[k].to_numpy() == v
    return keep


def _y_do(df, s, a, s_for_m=None):
    """P(y = 1 | do(S = s), a) under the graph's factorisation: Σ_m P(m | s_for_m) P(y | a, m, s)."""
    s_for_m = s if s_for_m is None else s_for_m
    total = 0.0
    for m in (0, 1):
        pm = _p(df, s=s_for_m, m=m).sum() / _p(df, s=s_for_m).sum()
        total += pm * df.y[_p(df, a=a, m=m, s=s)].mean()
    return total


def test_total_effect_equals_backdoor_adjustment_by_hand():
    df, graph = _confounded()
    # back-door over A: Σ_a P(a) [P(y | do(s+), a) − P(y | do(s−), a)], with the graph's factorisation of Y's
    # dependence on M (M's only parent is S)
    want = sum(_p(df, a=a).mean() * (_y_do(df, 1, a) - _y_do(df, 0, a)) for a in (0, 1))
    got = effects.total_effect(df, graph, sensitive="s", outcome="y")
    assert got == pytest.approx(want, abs=1e-12)
    # the observational risk difference is confounded by A, so it differs
    rd = df.y[df.s == 1].mean() - df.y[df.s == 0].mean()
    assert abs(rd - got) > 0.02


def test_path_specific_effect_by_hand_and_limits():
    df, graph = _confounded()
    # π = S → M → Y: M sees s+, the direct edge S → Y keeps the reference s−
    want = sum(_p(df, a=a).mean() * (_y_do(df, 0, a, s_for_m=1) - _y_do(df, 0, a)) for a in (0, 1))
    got = effects.path_specific_effect(df, graph, sensitive="s", outcome="y", through=["m"])
    assert got == pytest.approx(want, abs=1e-12)
    assert abs(got) > 0.05  # the planted S → M → Y path carries an effect
    both = effects.path_specific_effect(df, graph, sensitive="s", outcome="y", through=["m", "y"])
    assert both == pytest.approx(effects.total_effect(df, graph, sensitive="s", outcome="y"), abs=1e-12)


def test_counterfactual_effect_is_stratified_effect_for_root_context():
    df, graph = _confounded()
    ce = effects.counterfactual_effect(df, graph, sensitive="s", outcome="y", context=["a"])
    assert set(ce) == {(0,), (1,)}
    for a in (0, 1):
        assert ce[(a,)] == pytest.approx(_y_do(df, 1, a) - _y_do(df, 0, a), abs=1e-12)
        # close to the plain stratified difference (equal in the population, not in a sample)
        want = df.y[_p(df, a=a, s=1)].mean() - df.y[_p(df, a=a, s=0)].mean()
        assert ce[(a,)] == pytest.approx(want, abs=0.02)


def test_effects_refuse_bad_graphs_and_arguments():
    df, graph = _confounded(n=500)
    with pytest.raises(ValueError, match="cycle"):
        effects.total_effect(df, {"s": ["y"], "y": ["s"]}, sensitive="s", outcome="y")
    with pytest.raises(ValueError, match="not a column"):
        effects.total_effect(df, {"y": ["zzz"]}, sensitive="s", outcome="y")
    with pytest.raises(ValueError, match="descendants"):
        effects.counterfactual_effect(df, graph, sensitive="s", outcome="y", context=["m"])
    with pytest.raises(ValueError, match="children"):
        effects.path_specific_effect(df, graph, sensitive="s", outcome="y", through=["a"])
    with pytest.raises(ValueError, match="binary"):
        effects.total_effect(df.assign(y=df.y + df.m), graph, sensitive="s", outcome="y")


def test_edge_list_and_dict_graphs_agree():
    df, graph = _confounded(n=2000)
    edges = [(p, c) for c, ps in graph.items() for p in ps]
    assert effects.total_effect(df, edges, sensitive="s", outcome="y") == effects.total_effect(
        df, graph, sensitive="s", outcome="y")


def test_balanced_error_rate_is_mean_of_fpr_and_fnr():
    y = np.array([0, 0, 0, 0, 1, 1])
    p = np.array([0, 1, 0, 0, 1, 0])
    assert metrics.balanced_error_rate(y, p) == pytest.approx(0.5 * (1 / 4 + 1 / 2))
    assert metrics.balanced_error_rate(y, y) == 0.0


def test_joint_distribution_distance_and_chi_square():
    real = np.array([[0, 1], [0, 1], [1, 0], [1, 1]])
    assert metrics.joint_distribution_distance(real, real[::-1]) == 0.0
    assert metrics.chi_square_distance(real, np.vstack([real, real])) == 0.0
    gen = np.array([[0, 1], [0, 1], [0, 1], [0, 0]])
    # p_real = (.5, .25, .25, 0) over (01, 10, 11, 00); p_gen = (.75, 0, 0, .25)
    assert metrics.joint_distribution_distance(real, gen) == pytest.approx(np.sqrt(0.25**2 + 2 * 0.25**2 + 0.25**2))
    # expected counts 2, 1, 1 for (01, 10, 11); observed 3, 0, 0; the unseen 00 row is left out
    assert metrics.chi_square_distance(real, gen) == pytest.approx(1 / 2 + 1 + 1)
    with pytest.raises(ValueError, match="columns"):
        metrics.joint_distribution_distance(real, gen[:, :1])
