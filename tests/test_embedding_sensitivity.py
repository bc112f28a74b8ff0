"""Brute-force checks of the walk-matrix sensitivities (dpfair_native.embedding.sensitivity) and of the operator.

For every graph below and every vertex pair {r, s}, G and G' = G with the pair toggled are neighbours; the derived
bounds (L1: 2t, row-sum of L2 norms: 2(t−1) + 2/t, Frobenius: √2 + t − 1) must hold for all of them.
"""

import itertools
import math

import numpy as np
import pytest

from dpfair_native.embedding import (
    WalkOperator,
    walk_l1_sensitivity,
    walk_l2_sensitivity,
    walk_l21_sensitivity,
    walk_matrix,
)
from dpfair_native.embedding.sensitivity import PAPER_SENSITIVITY


def _graph(n, edges):
    a = np.zeros((n, n))
    for i, j in edges:
        a[i, j] = a[j, i] = 1.0
    return a


def _random_graphs():
    rng = np.random.default_rng(0)
    for n in (5, 7, 9):
        for p in (0.15, 0.3, 0.6):
            for _ in range(6):
                u = np.triu(rng.random((n, n)) < p, 1)
                yield (u | u.T).astype(float)


def _stars():
    for leaves in (1, 2, 4, 8):
        n = leaves + 2  # one extra isolated vertex
        yield _graph(n, [(0, i) for i in range(1, leaves + 1)])
        yield _graph(n, [(0, i) for i in range(1, leaves + 1)] + [(1, 2)] * (leaves >= 2))


def _changes(graphs, t):
    """(L1, (2,1), Frobenius) norms of M(G') − M(G) over all single-edge toggles of all graphs."""
    out = []
    for a in graphs:
        n = a.shape[0]
        m = walk_matrix(a, t)
        for r, s in itertools.combinations(range(n), 2):
            b = a.copy()
            b[r, s] = b[s, r] = 1.0 - b[r, s]
            d = walk_matrix(b, t) - m
            out.append((np.abs(d).sum(), np.linalg.norm(d, axis=1).sum(), np.linalg.norm(d)))
    return np.array(out)


@pytest.mark.parametrize("t", [1, 2, 3])
def test_bounds_hold_on_all_single_edge_changes(t):
    norms = _changes(list(_random_graphs()) + list(_stars()), t)
    assert norms[:, 0].max() <= walk_l1_sensitivity(t) + 1e-12
    assert norms[:, 1].max() <= walk_l21_sensitivity(t) + 1e-12
    assert norms[:, 2].max() <= walk_l2_sensitivity(t) + 1e-12
    if t > 2:  # the bounds loosen with t ((2,1) at t = 3: 1.61 found against 4.67); tightness checked at t <= 2
        return
    # loose but not vacuous: the worst change found is within a factor 2.5 of each bound
    # (at t = 2: L1 2.5 of 4, (2,1) 1.50 of 3, Frobenius 1.0 of 2.41)
    assert norms[:, 0].max() >= walk_l1_sensitivity(t) / 2.5
    assert norms[:, 1].max() >= walk_l21_sensitivity(t) / 2.5
    assert norms[:, 2].max() >= walk_l2_sensitivity(t) / 2.5


def test_thesis_sqrt2_is_not_an_l1_bound_at_t2():
    """The thesis calibrates Laplace noise (dpM) and the objective noise (DPNE) with √2; the entrywise L1 change
    that both proofs need exceeds it (2.5 on a 4-vertex graph)."""
    norms = _changes(list(_random_graphs()) + list(_stars()), 2)
    assert norms[:, 0].max() > PAPER_SENSITIVITY
    assert norms[:, 2].max() <= PAPER_SENSITIVITY  # as an L2 (Frobenius) bound it does hold at t = 2


def test_closed_forms():
    assert walk_l1_sensitivity(2) == 4.0
    assert walk_l21_sensitivity(2) == 3.0
    assert walk_l2_sensitivity(2) == pytest.approx(math.sqrt(2) + 1)
    assert walk_l21_sensitivity(1) == 2.0
    with pytest.raises(ValueError, match="window"):
        walk_l1_sensitivity(0)


@pytest.mark.parametrize("t", [1, 2, 3])
def test_walk_operator_matches_dense_definition(t):
    rng = np.random.default_rng(1)
    u = np.triu(rng.random((12, 12)) < 0.3, 1)
    a = (u | u.T).astype(float)
    a[3, :] = a[:, 3] = 0.0  # an isolated vertex: its row of P is 0
    deg = a.sum(1)
    P = np.divide(a, deg[:, None], out=np.zeros_like(a), where=deg[:, None] > 0)
    M = sum(np.linalg.matrix_power(P, k) for k in range(1, t + 1)) / t
    X = rng.standard_normal((12, 4))
    op = WalkOperator(a, t)
    np.testing.assert_allclose(op.matmul(X), M @ X, atol=1e-13)
    np.testing.assert_allclose(op.rmatmul(X), M.T @ X, atol=1e-13)
    sp = pytest.importorskip("scipy.sparse")
    ops = WalkOperator(sp.csr_matrix(a), t)
    np.testing.assert_allclose(ops.matmul(X), M @ X, atol=1e-13)
    np.testing.assert_allclose(ops.rmatmul(X), M.T @ X, atol=1e-13)
    np.testing.assert_allclose(ops.dense(), M, atol=1e-13)
