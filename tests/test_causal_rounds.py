"""PrivPC's per-node and orient rounds against their exact laws (review 23, F2).

Each test fixes the scores of every test (i, j | S) (a stand-in for ``privpc._Tests``: the round's law given its
sensitivity-1 scores is what is checked, not the scores themselves), runs many fits, and compares the released
outcome of one round (its ``round_log_`` entry and the separating sets it released) with the law computed here from
the published definitions — the exponential mechanism P(x) ∝ exp(ε u(x)/2) (sensitivity 1) at the ε each draw is
charged — by a Pearson χ² test at level 1e-6 (rare outcomes pooled). A correct round passes except with probability
1e-6 (the seeds are fixed, so the outcome is deterministic); the designs make every ε error the review found (a draw
at ε1 instead of ε1/β̂, β̂ at 2ε2, a node's subset selection at 2ε, separating sets at the whole rest of the round
instead of its share per edge) move the χ² far beyond the threshold.
"""

import itertools
import math
from collections import Counter

import numpy as np
import pytest
from scipy.stats import chi2

from dpfair_native.causal import PrivPC
from dpfair_native.causal import privpc as privpc_module


def _em(u, eps):
    """Exponential mechanism probabilities, sensitivity 1: P(x) ∝ exp(ε u(x) / 2)."""
    u = np.asarray(u, dtype=float)
    w = np.exp(eps * (u - u.max()) / 2.0)
    return w / w.sum()


def _subset_law(s, eps):
    """{frozenset D: P(D)} of the subset exponential mechanism, q(D) = min(min_{j∈D} s_j, min_{j∉D} −s_j)."""
    m = len(s)
    subsets = [frozenset(j for j in range(m) if bits[j]) for bits in itertools.product([0, 1], repeat=m)]
    q = [min([s[j] for j in D] + [-s[j] for j in range(m) if j not in D]) for D in subsets]
    return dict(zip(subsets, _em(q, eps)))


def _beta_law(q1, eps2):
    """P(β̂ = t), t = 0..m, with q2(t) = min(s_(t), −s_(t+1)), s sorted decreasingly, s_(0) = ∞, s_(m+1) = −∞."""
    s = [math.inf] + sorted(q1, reverse=True) + [-math.inf]
    return _em([min(s[t], -s[t + 1]) for t in range(len(q1) + 1)], eps2)


def _ordered_draws_law(items, util, beta, eps_each, group=lambda x: x):
    """{tuple of β̂ items: P} for β̂ draws without replacement by the exponential mechanism at ``eps_each`` each;
    a drawn item removes every item of its group (``group``) from the later draws."""
    out = {}
    for seq in itertools.permutations(items, beta):
        if len({group(x) for x in seq}) < beta:
            continue
        p, left = 1.0, list(items)
        for x in seq:
            if x not in left:
                p = 0.0
                break
            p *= _em([util[y] for y in left], eps_each)[left.index(x)]
            left = [y for y in left if group(y) != group(x)]
        if p > 0:
            out[seq] = p
    return out


def _assert_law(outcomes, law, level=1e-6):
    """Pearson χ² of the outcomes against {outcome: probability}; outcomes with expected count < 5 are pooled."""
    n = len(outcomes)
    counts = Counter(outcomes)
    assert set(counts) <= set(law), set(counts) - set(law)  # nothing outside the law's support
    keys = sorted(law, key=law.get, reverse=True)
    expected = np.array([law[k] * n for k in keys])
    observed = np.array([counts.get(k, 0) for k in keys], dtype=float)
    small = expected < 5
    if small.any():
        expected = np.r_[expected[~small], expected[small].sum()]
        observed = np.r_[observed[~small], observed[small].sum()]
    stat = float(np.sum((observed - expected) ** 2 / np.maximum(expected, 1e-300)))
    limit = chi2.isf(level, expected.size - 1)
    assert stat < limit, f"chi2 = {stat:.1f} >= {limit:.1f} (df {expected.size - 1}); observed {counts}"


@pytest.fixture
def fixed_scores(monkeypatch):
    """install(table, default): every fit's scores come from ``table`` {(i, j, *S) with i < j, S sorted: s}."""

    def install(table, default):
        class Scores:
            def __init__(self, codes_t, cats, alpha, score, backend, n_threads):
                pass

            def scores(self, keys, shift):
                return np.array([table.get(tuple(k), default) for k in keys], dtype=float)

        monkeypatch.setattr(privpc_module, "_Tests", Scores)

    return install


def _fits(n_fits, seed, **kw):
    """n_fits fitted PrivPC models on 4 placeholder columns (the scores are fixed), one Generator for all."""
    X = np.zeros((20, 4), dtype=int)
    rng = np.random.default_rng(seed)
    for _ in range(n_fits):
        yield PrivPC(random_state=rng, backend="numpy", **kw).fit(X, n_categories=2)


# order 0, node 0: q1 = scores of (0, 1), (0, 2), (0, 3); the other pairs' scores only matter to later rounds
ORDER0 = {(0, 1): 3.0, (0, 2): 0.0, (0, 3): -3.0}


def test_thesis_round_beta_and_draws_follow_their_law(fixed_scores):
    """mechanism="thesis", order 0, node 0 (the first round, on the complete graph): ε = 8 over p = 4 rounds gives
    the round 2, ε1 = ε2 = 1. β̂ ~ EM(q2, ε2), then β̂ ordered draws at ε1/β̂ each; released: (β̂, draws)."""
    fixed_scores(ORDER0, -5.0)
    q1 = [ORDER0[(0, j)] for j in (1, 2, 3)]
    eps1 = eps2 = 1.0
    law = {}
    for beta, pb in enumerate(_beta_law(q1, eps2)):
        draws = _ordered_draws_law([1, 2, 3], dict(zip((1, 2, 3), q1)), beta, eps1 / beta if beta else 0.0)
        law.update({(beta, seq): pb * p for seq, p in draws.items()})
    outcomes = []
    for m in _fits(3000, 1, epsilon=8.0, max_order=0, mechanism="thesis"):
        order, node, beta, chosen = m.round_log_[0]
        assert (order, node) == (0, 0) and m.privacy_spent_.epsilon <= 8.0
        outcomes.append((beta, tuple(chosen)))
    _assert_law(outcomes, law)


def test_node_subset_round_follows_its_law(fixed_scores):
    """mechanism="node_subset", order 0, node 0: one subset selection over adj(0) = {1, 2, 3} at the round's
    whole ε = 8/4 = 2 (no separating sets at order 0)."""
    table = {(0, 1): 1.0, (0, 2): -0.5, (0, 3): 2.0}
    fixed_scores(table, -5.0)
    law = {frozenset(j + 1 for j in D): p for D, p in _subset_law([table[(0, j)] for j in (1, 2, 3)], 2.0).items()}
    outcomes = []
    for m in _fits(3000, 2, epsilon=8.0, max_order=0, mechanism="node_subset"):
        order, node, count, chosen = m.round_log_[0]
        assert (order, node, count) == (0, 0, len(chosen))
        outcomes.append(frozenset(chosen))
    _assert_law(outcomes, law)


# order 1 (order 0 gets no budget, so the graph is complete): edges 0–1 and 2–3 are "independent" given either
# candidate separating set (scores 20 and 18), every other edge is "dependent" (−20): the edge selection deletes
# exactly {0–1, 2–3} except with probability < e^-18, and the separating sets then follow EM at their share.
ORDER1 = {(0, 1, 2): 20.0, (0, 1, 3): 18.0, (2, 3, 0): 20.0, (2, 3, 1): 18.0}
ORDER1_NODE = {(0, 1, 2): 20.0, (0, 1, 3): 18.0, (0, 2, 1): 20.0, (0, 2, 3): 18.0}


def _sepset_law(table, edge, eps):
    i, j = edge
    sets = sorted(S for (a, b, *S) in table if (a, b) == edge)
    return {tuple(S): p for S, p in zip(sets, _em([table[(i, j, *S)] for S in sets], eps))}


def test_subset_orient_round_draws_each_separating_set_at_its_share(fixed_scores):
    """mechanism="subset", orient=True: the order's ε = 4 is split ε_sel = 2 (edges) and 2 over the |D| = 2
    separating-set draws, 1 each."""
    fixed_scores(ORDER1, -20.0)
    l01, l23 = _sepset_law(ORDER1, (0, 1), 1.0), _sepset_law(ORDER1, (2, 3), 1.0)
    law = {(a, b): l01[a] * l23[b] for a in l01 for b in l23}
    outcomes = []
    for m in _fits(2000, 3, epsilon=4.0, max_order=1, budget_schedule=[0.0, 1.0], orient=True):
        assert m.round_log_[0][:3] == (1, -1, 2) and m.privacy_spent_.epsilon <= 4.0
        outcomes.append((m.graph_.sepsets[frozenset((0, 1))], m.graph_.sepsets[frozenset((2, 3))]))
    _assert_law(outcomes, law)


def test_node_subset_orient_round_draws_each_separating_set_at_its_share(fixed_scores):
    """mechanism="node_subset", orient=True, order 1, node 0: round ε = 16/4 = 4, selection at 2 picks {1, 2}
    (q1 = 20, 20, −20), the other 2 is split over the two separating-set draws."""
    fixed_scores(ORDER1_NODE, -20.0)
    l1, l2 = _sepset_law(ORDER1_NODE, (0, 1), 1.0), _sepset_law(ORDER1_NODE, (0, 2), 1.0)
    law = {(a, b): l1[a] * l2[b] for a in l1 for b in l2}
    outcomes = []
    for m in _fits(2000, 4, epsilon=16.0, max_order=1, budget_schedule=[0.0, 1.0], orient=True,
                   mechanism="node_subset"):
        assert m.round_log_[0] == (1, 0, 2, [1, 2])
        outcomes.append((m.graph_.sepsets[frozenset((0, 1))], m.graph_.sepsets[frozenset((0, 2))]))
    _assert_law(outcomes, law)


def test_thesis_orient_round_draws_pairs_at_eps1_over_beta(fixed_scores):
    """mechanism="thesis", orient=True, order 1, node 0: round ε = 4, ε1 = ε2 = 2; β̂ = 2 (q2 = −20, −20, 20,
    −20); the two draws are over the pairs (j, S) at ε1/β̂ = 1 each, a drawn j removing its other pairs. Released:
    the ordered nodes and their separating sets."""
    fixed_scores(ORDER1_NODE, -20.0)
    pairs = [(j, S) for j in (1, 2, 3) for S in itertools.combinations([v for v in (1, 2, 3) if v != j], 1)]
    util = {(j, S): ORDER1_NODE.get((0, j, *S), -20.0) for j, S in pairs}
    pb = _beta_law([20.0, 20.0, -20.0], 2.0)
    assert pb[2] > 1 - 1e-15
    law = _ordered_draws_law(pairs, util, 2, 1.0, group=lambda x: x[0])
    outcomes = []
    for m in _fits(2000, 5, epsilon=16.0, max_order=1, budget_schedule=[0.0, 1.0], orient=True,
                   mechanism="thesis"):
        order, node, beta, chosen = m.round_log_[0]
        assert (order, node, beta) == (1, 0, 2)
        outcomes.append(tuple((j, m.graph_.sepsets[frozenset((0, j))]) for j in chosen))
    _assert_law(outcomes, law)
