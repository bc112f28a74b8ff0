"""Brute-force checks of the private feature selection (dpfair_native.feature_selection).

1. The utility sensitivity Δ = max(q, 1 − q): replacing one row of a small data set by every vertex of the declared
   box (with either label) never moves any u_j by more than Δ, and some replacement reaches Δ (the bound is tight).
2. The peeling exponential mechanism is (k·ε_r)-DP: for every ordered selection, its exact probability on a data
   set and on each neighbour differ by at most the factor exp(k·ε_r) — and a negative control that calibrates the
   noise to a quarter of the sensitivity breaks that bound.
"""

import itertools

import numpy as np
import pytest

from dpfair_native.domain import FeatureDomain
from dpfair_native.feature_selection import peeling_probability, relevance_scores

DOM = FeatureDomain([0.0, -1.0, 0.0, 2.0], [1.0, 1.0, 3.0, 2.5])


def _base(n=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(DOM.lower, DOM.upper, size=(n, DOM.d))
    return X, rng.integers(0, 2, n)


def _neighbours(X, y):
    """Every data set with one row replaced by a vertex of the box and a label (the utilities are linear in each
    row, so their extreme changes are reached at vertices)."""
    vertices = [np.where(bits, DOM.upper, DOM.lower) for bits in itertools.product([0, 1], repeat=DOM.d)]
    for i in range(X.shape[0]):
        for v in vertices:
            for label in (0, 1):
                X2, y2 = X.copy(), y.copy()
                X2[i], y2[i] = v, label
                yield X2, y2


@pytest.mark.parametrize("q", [0.1, 0.5, 0.8])
def test_utility_sensitivity_is_max_q_one_minus_q_and_tight(q):
    X, y = _base()
    X[0], y[0] = DOM.lower, int(q < 0.5)  # at a vertex, |y − q| = max(q, 1 − q): its replacement by the opposite
    # vertex with the same label is the extreme change
    u = relevance_scores(X, y, DOM, q)
    worst = max(np.max(np.abs(relevance_scores(X2, y2, DOM, q) - u)) for X2, y2 in _neighbours(X, y))
    sens = max(q, 1 - q)
    assert worst <= sens + 1e-12
    assert worst >= sens - 1e-9


@pytest.mark.parametrize(("factor", "holds"), [(1.0, True), (0.25, False)])
def test_peeling_probabilities_respect_k_epsilon_on_every_neighbour(factor, holds):
    X, y = _base(n=4, seed=1)
    q, eps_round, k = 0.5, 0.7, 2
    sens = max(q, 1 - q) * factor  # factor 0.25: a mis-calibrated mechanism (negative control)
    u = relevance_scores(X, y, DOM, q)
    seqs = list(itertools.permutations(range(DOM.d), k))
    p = np.array([peeling_probability(u, s, eps_round, sens) for s in seqs])
    worst = 0.0
    for X2, y2 in _neighbours(X, y):
        u2 = relevance_scores(X2, y2, DOM, q)
        p2 = np.array([peeling_probability(u2, s, eps_round, sens) for s in seqs])
        worst = max(worst, float(np.max(np.abs(np.log(p) - np.log(p2)))))
    assert (worst <= k * eps_round + 1e-9) is holds, worst
