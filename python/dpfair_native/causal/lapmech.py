"""LapMech (thesis §4.4.3): Laplace noise on the full contingency table, then PC with G² tests on its marginals.

Neighbouring relation: replace one record (n public). Replacing a record moves one count from one cell of the full
table ∏_v r_v to another: L1 sensitivity 2, so Laplace(2/ε) per cell is ε-DP. The thesis adds Lap(1/ε) (the
add/remove sensitivity); ``paper_faithful=True`` does that and reports ``privacy_spent_ = (2ε, 0)`` under
replacement with ``epsilon_claimed_ = ε``. Negative noisy counts are clamped to 0 (post-processing). Everything
after the release (marginals, tests, orientation) is post-processing, so sepsets and the CPDAG are released.

The table has ∏ r_v cells; above ``max_cells`` (default 2^24 ≈ 16.8 M, 134 MB of float64) ``fit`` refuses with a
ValueError instead of allocating (the thesis notes LapMech is infeasible beyond ~20 variables).
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from .. import _reference
from .._validation import check_epsilon, check_random_state
from ..accountants import PrivacySpent
from ..mechanisms import laplace_scale
from ._stats import chi2_critical
from .graph import CausalGraph, check_names, orient_cpdag
from .pc import check_alpha, check_codes, check_max_order, skeleton_search

__all__ = ["LapMechPC"]


class LapMechPC:
    """ε-DP PC via one Laplace-noised full contingency table (module docstring).

    Parameters
    ----------
    epsilon : float, default 1.0
        Budget ε (replace-one neighbours, n public).
    alpha : float, default 0.01
        Level of the G² tests on the noisy marginals.
    max_order : int or None, default 3
        Largest conditioning-set size (None: no limit).
    orient : bool, default True
        Orient the skeleton from the separating sets (post-processing of the noisy table).
    max_cells : int, default 2**24
        Refuse full tables with more cells (ValueError).
    paper_faithful : bool, default False
        Lap(1/ε) as in the thesis (then ``privacy_spent_`` = 2ε under replacement).
    random_state : None, int or numpy Generator
        Source of the Laplace noise. Noise path: floating point (NumPy's Laplace sampler), no secure path yet; None
        draws from OS entropy, an int makes the run reproducible and voids the guarantee against whoever knows it.

    Attributes
    ----------
    graph_ : CausalGraph
        Skeleton, separating sets and CPDAG.
    skeleton_ : ndarray of bool, shape (p, p)
        The skeleton.
    sepsets_ : dict
        frozenset({i, j}) -> separating set of every removed edge.
    cpdag_ : ndarray of int8, shape (p, p), or None
        The CPDAG (``orient=True``).
    depth_ : int
        The last depth run.
    n_cells_ : int
        Cells of the full table.
    noise_scale_ : float
        Laplace scale per cell (2/ε; 1/ε when ``paper_faithful``).
    privacy_spent_ : PrivacySpent
        (ε, 0), or (2ε, 0) when ``paper_faithful``; method "basic".
    epsilon_claimed_ : float
        The thesis' figure, ε.
    n_features_in_ : int
        p.
    """

    def __init__(self, epsilon: float = 1.0, alpha: float = 0.01, max_order: Optional[int] = 3, orient: bool = True,
                 max_cells: int = 1 << 24, paper_faithful: bool = False, random_state=None):
        self.epsilon = epsilon
        self.alpha = alpha
        self.max_order = max_order
        self.orient = orient
        self.max_cells = max_cells
        self.paper_faithful = paper_faithful
        self.random_state = random_state

    def fit(self, X, n_categories=None, names=None) -> LapMechPC:
        eps = check_epsilon(self.epsilon)
        alpha = check_alpha(self.alpha)
        codes_t, cats = check_codes(X, n_categories)
        p, n = codes_t.shape
        cells = float(np.prod(cats, dtype=np.float64))
        if cells > self.max_cells:
            raise ValueError(
                f"LapMech needs the full {int(cells):,}-cell contingency table (product of the category counts), "
                f"more than max_cells={self.max_cells:,}; use PrivPC, or raise max_cells if memory allows"
            )
        rng = check_random_state(self.random_state)
        key = np.zeros(n, dtype=np.int64)
        for v in range(p):
            key = key * cats[v] + codes_t[v]
        table = np.bincount(key, minlength=int(cells)).astype(np.float64)
        scale = laplace_scale(1.0 if self.paper_faithful else 2.0, eps)
        table += rng.laplace(0.0, scale, size=table.shape)
        np.maximum(table, 0.0, out=table)
        table = table.reshape(tuple(int(c) for c in cats))
        marginals = {}

        def marginal(vars_):  # vars_ sorted tuple
            if vars_ not in marginals:
                others = tuple(v for v in range(p) if v not in vars_)
                marginals[vars_] = table.sum(axis=others)
            return marginals[vars_]

        def decide(tests):
            out = np.empty(tests.shape[0], dtype=bool)
            for t, row in enumerate(tests):
                i, j, S = int(row[0]), int(row[1]), [int(v) for v in row[2:]]
                vars_ = tuple(sorted([i, j] + S))
                M = marginal(vars_)
                order = [vars_.index(v) for v in S + [j, i]]
                N = np.transpose(M, order).reshape(-1, int(cats[j]), int(cats[i]))
                df = float((cats[i] - 1) * (cats[j] - 1) * np.prod(cats[S], dtype=np.float64))
                out[t] = _reference.g2_from_table(N) <= chi2_critical(alpha, df)
            return out

        skeleton, sepsets, depth = skeleton_search(p, decide, check_max_order(self.max_order, p))
        cpdag = orient_cpdag(skeleton, sepsets) if self.orient else None
        self.graph_ = CausalGraph(skeleton=skeleton, sepsets=sepsets, cpdag=cpdag, names=check_names(names, p))
        self.skeleton_, self.sepsets_, self.cpdag_ = skeleton, sepsets, cpdag
        self.depth_ = depth
        self.n_cells_ = int(cells)
        self.noise_scale_ = scale
        self.epsilon_claimed_ = eps
        self.privacy_spent_ = PrivacySpent(2.0 * eps if self.paper_faithful else eps, 0.0, "basic", "replace_one")
        self.n_features_in_ = p
        return self
