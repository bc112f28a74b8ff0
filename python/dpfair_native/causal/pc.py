"""The PC algorithm (Spirtes, Glymour, Scheines), non-private: the baseline of thesis ch. 4 and the skeleton search
that LapMechPC and PrivPCStar run on their privatised statistics.

Skeleton search (order-independent "stable" PC, as causal-learn's default): at depth d = 0, 1, ... every edge
i – j still present is tested against every S ⊆ adj(i) \\ {j} and S ⊆ adj(j) \\ {i} with |S| = d, adjacency
frozen at the start of the depth; the edge is removed if some test accepts independence; stop when no node has
d + 1 neighbours or d exceeds ``max_order``. All tests of a depth are one batched ``kernels.contingency_g2`` call.

Tests (level α):
- ``"g2"`` (categorical): G² = 2 Σ N ln(N N_z / (N_za N_zb)) against χ²_df, df = (r_i − 1)(r_j − 1) ∏ r_k from the
  declared category counts (``df="public"``), or causal-learn's data-dependent rule (``df="observed"``: zero rows and
  columns of each observed stratum are dropped; only for cross-checks, it is not what a private variant may use).
- ``"fisher_z"`` (Gaussian): partial correlation ρ from the inverse of the correlation sub-matrix,
  z = atanh(ρ) √(n − |S| − 3), independent iff |z| <= Φ⁻¹(1 − α/2).
"""

from __future__ import annotations

import math
from itertools import combinations
from typing import Callable, Dict, FrozenSet, Optional, Tuple

import numpy as np

from .. import kernels
from .._validation import check_X
from ..accountants import PrivacySpent
from ._stats import chi2_critical, normal_critical
from .graph import CausalGraph, check_names, complete_skeleton, orient_cpdag

__all__ = ["PC", "skeleton_search", "fisher_z_decider", "g2_decider", "check_alpha", "check_max_order"]

Sepsets = Dict[FrozenSet[int], Tuple[int, ...]]


def check_alpha(alpha) -> float:
    a = float(alpha)
    if not 0.0 < a < 1.0:
        raise ValueError(f"alpha (the test level) must lie in (0, 1), got {alpha!r}; the thesis uses 0.01")
    return a


def check_max_order(max_order, p: int) -> int:
    if max_order is None:
        return p - 2
    if isinstance(max_order, bool) or not isinstance(max_order, (int, np.integer)) or max_order < 0:
        raise ValueError(f"max_order must be a non-negative int or None, got {max_order!r}")
    return int(min(max_order, max(p - 2, 0)))


def skeleton_search(p: int, decide: Callable[[np.ndarray], np.ndarray], max_order: int):
    """Stable PC skeleton search. ``decide(tests)`` gets a (T, 2 + d) int64 array of distinct tests (i < j, S
    sorted) and returns a bool array: True = independent. Returns (skeleton, sepsets, last depth run)."""
    A = complete_skeleton(p)
    sepsets: Sepsets = {}
    depth = -1
    for d in range(max_order + 1):
        if not np.any(A.sum(axis=1) >= d + 1):
            break
        depth = d
        tests, owners = [], []
        index = {}
        for x in range(p):
            nbrs = np.flatnonzero(A[x]).tolist()
            for y in nbrs:
                others = [v for v in nbrs if v != y]
                for S in combinations(others, d):
                    key = (min(x, y), max(x, y)) + tuple(sorted(S))
                    if key not in index:
                        index[key] = len(tests)
                        tests.append(key)
                    owners.append((x, y, index[key]))
        if not tests:
            break
        indep = np.asarray(decide(np.array(tests, dtype=np.int64).reshape(len(tests), 2 + d)), dtype=bool)
        remove = []
        for x, y, t in owners:  # owners are in PC's order: the first accepting S becomes the sepset
            if indep[t]:
                edge = frozenset((x, y))
                if edge not in sepsets:
                    sepsets[edge] = tests[t][2:]
                    remove.append((x, y))
        for x, y in remove:
            A[x, y] = A[y, x] = False
    return A, sepsets, depth


def g2_decider(codes_t, cats, alpha: float, *, df_rule: str = "public", backend: str = "native",
               n_threads: Optional[int] = None, max_cells: int = 1 << 24):
    """decide(tests) for the G² test on checked, transposed codes (see ``kernels.categorical_codes``)."""
    from .. import _reference

    def df_public(row):
        used = [int(v) for v in row[2:]]
        return float((cats[row[0]] - 1) * (cats[row[1]] - 1) * np.prod(cats[used], dtype=np.float64))

    def decide(tests):
        g2 = kernels.contingency_g2(codes_t, cats, tests, backend=backend, n_threads=n_threads,
                                    max_cells=max_cells, codes_transposed=True)
        out = np.empty(tests.shape[0], dtype=bool)
        for t, row in enumerate(tests):
            if df_rule == "public":
                df = df_public(row)
            else:
                N = _reference.contingency_table(codes_t, cats, int(row[0]), int(row[1]), [int(v) for v in row[2:]])
                N = N[N.sum(axis=(1, 2)) > 0]
                zero_a = (N.sum(axis=1) == 0).sum(axis=1)  # per stratum: values of i never seen
                zero_b = (N.sum(axis=2) == 0).sum(axis=1)
                df = float(np.sum((N.shape[2] - 1 - zero_a) * (N.shape[1] - 1 - zero_b)))
            out[t] = True if df <= 0 else g2[t] <= chi2_critical(alpha, df)
        return out

    return decide


def partial_correlation(R: np.ndarray, i: int, j: int, S) -> float:
    idx = [i, j] + list(S)
    P = np.linalg.inv(R[np.ix_(idx, idx)])
    r = -P[0, 1] / math.sqrt(abs(P[0, 0] * P[1, 1]))
    return float(min(max(r, -1.0 + 1e-12), 1.0 - 1e-12))


def fisher_z_decider(R: np.ndarray, n: int, alpha: float):
    """decide(tests) for Fisher's z on a correlation matrix R estimated from n rows."""
    crit = normal_critical(alpha)

    def decide(tests):
        out = np.empty(tests.shape[0], dtype=bool)
        for t, row in enumerate(tests):
            S = [int(v) for v in row[2:]]
            dof = n - len(S) - 3
            if dof <= 0:
                out[t] = True  # too few rows to reject anything
                continue
            r = partial_correlation(R, int(row[0]), int(row[1]), S)
            out[t] = math.sqrt(dof) * abs(math.atanh(r)) <= crit
        return out

    return decide


def check_codes(X, n_categories):
    if n_categories is None:
        raise ValueError(
            "n_categories is required for categorical data: the public number of categories of each column "
            "(an int for all columns or one int per column); it fixes the tests' degrees of freedom"
        )
    C = np.asarray(X.to_numpy() if hasattr(X, "to_numpy") else X)
    if C.ndim != 2 or C.shape[0] < 2 or C.shape[1] < 2:
        raise ValueError(f"X must be 2-D with at least two rows and two columns, got shape {C.shape}")
    if C.dtype.kind == "f":
        if not np.all(np.isfinite(C)) or np.any(C != np.round(C)):
            raise ValueError("X must hold integer category codes 0..n_categories-1")
        C = C.astype(np.int64)
    cats = np.asarray(n_categories)
    if cats.dtype.kind not in "iu":
        raise ValueError(f"n_categories must be integers, got {n_categories!r}")
    if cats.ndim == 0:
        cats = np.full(C.shape[1], int(cats))
    if np.any(cats < 2):
        raise ValueError("every column needs n_categories >= 2 (a constant column carries no information)")
    return kernels.categorical_codes(C, cats.astype(np.int64))


class PC:
    """Non-private PC algorithm (skeleton + orientation) with G² (categorical) or Fisher-z (Gaussian) tests.

    Parameters
    ----------
    alpha : float, default 0.01
        Level of every conditional-independence test (the thesis' τ).
    test : {"auto", "g2", "fisher_z"}, default "auto"
        "auto": G² when ``n_categories`` is given to ``fit``, Fisher-z otherwise.
    max_order : int or None, default None
        Largest conditioning-set size (None: no limit).
    orient : bool, default True
        Orient the skeleton into a CPDAG from the separating sets (``graph.orient_cpdag``).
    df : {"public", "observed"}, default "public"
        Degrees of freedom of G²: from the declared category counts, or causal-learn's observed-zero rule.
    backend : {"native", "numpy"}, default "native"
        Kernel for the contingency tables and G² (``kernels.contingency_g2``).
    n_threads : int or None
        Threads of the native kernel (None: all cores).

    Attributes
    ----------
    graph_ : CausalGraph
        Skeleton, separating sets and CPDAG.
    skeleton_ : ndarray of bool, shape (p, p)
        The skeleton (shortcut of ``graph_.skeleton``).
    sepsets_ : dict
        frozenset({i, j}) -> separating set of every removed edge.
    cpdag_ : ndarray of int8, shape (p, p), or None
        The CPDAG (``orient=True``).
    depth_ : int
        The last depth (conditioning-set size) run.
    n_features_in_ : int
        p.
    privacy_spent_ : PrivacySpent
        (inf, 0.0), method "none": not private.
    """

    def __init__(self, alpha: float = 0.01, test: str = "auto", max_order: Optional[int] = None, orient: bool = True,
                 df: str = "public", backend: str = "native", n_threads: Optional[int] = None):
        self.alpha = alpha
        self.test = test
        self.max_order = max_order
        self.orient = orient
        self.df = df
        self.backend = backend
        self.n_threads = n_threads

    def fit(self, X, n_categories=None, names=None) -> PC:
        alpha = check_alpha(self.alpha)
        if self.test not in ("auto", "g2", "fisher_z"):
            raise ValueError(f"test must be 'auto', 'g2' or 'fisher_z', got {self.test!r}")
        if self.df not in ("public", "observed"):
            raise ValueError(f"df must be 'public' or 'observed', got {self.df!r}")
        test = self.test
        if test == "auto":
            test = "g2" if n_categories is not None else "fisher_z"
        if test == "g2":
            codes_t, cats = check_codes(X, n_categories)
            p = codes_t.shape[0]
            decide = g2_decider(codes_t, cats, alpha, df_rule=self.df, backend=self.backend, n_threads=self.n_threads)
        else:
            Xf = check_X(X).astype(np.float64)
            p = Xf.shape[1]
            if Xf.shape[0] < 4 or p < 2:
                raise ValueError("Fisher-z needs at least 4 rows and 2 columns")
            R = np.corrcoef(Xf, rowvar=False)
            if not np.all(np.isfinite(R)):
                raise ValueError("X has a constant column; its correlations are undefined")
            decide = fisher_z_decider(R, Xf.shape[0], alpha)
        max_order = check_max_order(self.max_order, p)
        skeleton, sepsets, depth = skeleton_search(p, decide, max_order)
        cpdag = orient_cpdag(skeleton, sepsets) if self.orient else None
        self.graph_ = CausalGraph(skeleton=skeleton, sepsets=sepsets, cpdag=cpdag, names=check_names(names, p))
        self.skeleton_, self.sepsets_, self.cpdag_ = skeleton, sepsets, cpdag
        self.depth_ = depth
        self.n_features_in_ = p
        self.privacy_spent_ = PrivacySpent(math.inf, 0.0, "none")
        return self
