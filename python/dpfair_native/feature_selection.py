"""Private feature selection: choose k columns of X for a downstream DP model, with a declared budget.

``select_features`` runs two mechanisms on the same rows (replace-one neighbours, n public):

1. a noisy positive count, Σ y_i + Lap(1/ε_c) (sensitivity 1), giving a public base rate q ∈ [0, 1];
2. k rounds of the exponential mechanism ("peeling") over the utilities

       u_j = |Σ_i (x̄_ij − m_j)(y_i − q)| / w_j,

   x̄_ij = x_ij clipped to the declared interval [l_j, u_j] of column j, m_j = (l_j + u_j)/2 its midpoint and
   w_j = u_j − l_j its width (columns with w_j = 0 have u_j = 0). Each round picks one remaining column with
   probability ∝ exp(ε_r·u_j / (2Δ)), ε_r = (ε − ε_c)/k.

Sensitivity (from the declared box only, never the data): a row adds (x̄_ij − m_j)(y_i − q)/w_j to the inner
sum; |x̄_ij − m_j| <= w_j/2 and |y_i − q| <= max(q, 1 − q), so each row's term lies in [−h, h] with
h = max(q, 1 − q)/2; replacing one row moves the sum, and hence its absolute value, by at most Δ = 2h =
max(q, 1 − q) <= 1. q is released by step 1 before step 2 is run, so Δ may depend on it (adaptive composition).

Privacy: step 1 is ε_c-DP, each peeling round ε_r-DP (exponential mechanism, utility sensitivity Δ), so the
selection is ε-DP by sequential composition, ε = ε_c + k·ε_r. The k rounds are drawn at once: adding
Gumbel(0, 2Δ/ε_r) noise to every u_j and keeping the k largest has exactly the distribution of the peeled
sequence (Durfee & Rogers 2019, "Practical differentially private top-k selection with pay-what-you-get
composition", Lemma 4.2); ``peeling_probability`` gives that distribution in closed form for tests.

Why this utility: Σ_i (x_ij − m_j)(y_i − q) = n·[cov(x_j, y) + (x̄_j − m_j)(ȳ − q)] — the covariance of the
column with the label, up to a term that vanishes as q → ȳ; dividing by the public width makes columns of
different scales comparable.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np

from . import mechanisms
from ._validation import is_scipy_sparse

__all__ = ["FeatureSelection", "select_features", "select_features_from_sums", "relevance_scores", "gumbel_top_k",
           "peeling_probability", "restrict_domain", "COUNT_SHARE"]

# Share of the selection budget spent on the noisy positive count behind q.
COUNT_SHARE = 0.1

_CHUNK = 8192  # rows per block when clipping a dense X (bounds the temporary copy)


class FeatureSelection(NamedTuple):
    """The released outcome of ``select_features``: the kept ``columns`` (sorted indices), the noisy base rate
    ``q``, the utility sensitivity ``sensitivity`` = max(q, 1 − q), the ``epsilon`` spent and the number of
    columns selected from, ``n_features``."""

    columns: np.ndarray
    q: float
    sensitivity: float
    epsilon: float
    n_features: int


def _box(domain, d: int):
    lo = np.asarray(domain.lower, dtype=np.float64)
    hi = np.asarray(domain.upper, dtype=np.float64)
    if lo.shape != (d,):
        raise ValueError(f"the domain has {lo.size} columns but X has {d}; pass a matching domain")
    return lo, hi


def _labels01(y) -> np.ndarray:
    """y as floats, refused unless every label is 0 or 1 (the sensitivities above assume it)."""
    y = np.asarray(y, dtype=np.float64)
    if not np.all((y == 0.0) | (y == 1.0)):
        raise ValueError("y must hold 0/1 labels (the selection's sensitivities assume them); encode the classes "
                         "as 0 and 1 first")
    return y


def relevance_scores(X, y, domain, q: float, *, policy: str = "clip") -> np.ndarray:
    """u_j = |Σ_i (clip(x_ij) − m_j)(y_i − q)| / w_j for every column (0 where w_j = 0); see the module notes.

    X: dense (n, d) array or scipy sparse matrix (never densified); y: 0/1 labels; policy "raise" refuses values
    outside the declared box instead of clipping them.
    """
    if policy not in ("clip", "raise"):
        raise ValueError(f"policy must be 'clip' or 'raise', got {policy!r}")
    n, d = X.shape
    lo, hi = _box(domain, d)
    r = _labels01(y) - float(q)
    if r.shape != (n,):
        raise ValueError(f"y must have one label per row of X ({n}), got shape {r.shape}")
    mid, width = 0.5 * (lo + hi), hi - lo
    if is_scipy_sparse(X):
        from .kernels import _check_sparse_structure

        _check_sparse_structure(X, "X")  # scipy's conversion trusts it
        Xc = X.tocsc(copy=True)
        Xc.sum_duplicates()  # one stored value per (row, column), as a dense row has: clip the sum, not its parts
        cols = np.repeat(np.arange(d), np.diff(Xc.indptr))
        zero = np.clip(0.0, lo, hi)  # where an implicit 0 lands after clipping
        implicit = np.diff(Xc.indptr) < n  # columns holding a zero that is not stored
        if policy == "raise" and (np.any(Xc.data < lo[cols]) or np.any(Xc.data > hi[cols])
                                  or np.any((zero != 0.0) & implicit)):
            raise ValueError("X has values outside the declared domain; use policy='clip' or widen the domain")
        Xc.data = np.clip(Xc.data, lo[cols], hi[cols]) - zero[cols]
        raw = np.asarray(Xc.T @ r).ravel() + (zero - mid) * r.sum()
    else:
        X = np.asarray(X, dtype=np.float64)
        raw = np.zeros(d)
        for start in range(0, n, _CHUNK):
            block = X[start : start + _CHUNK]
            if policy == "raise" and (np.any(block < lo) or np.any(block > hi)):
                raise ValueError("X has values outside the declared domain; use policy='clip' or widen the domain")
            raw += np.clip(block, lo, hi).T @ r[start : start + _CHUNK]
        raw -= mid * r.sum()
    return _per_width(raw, width)


def _per_width(raw: np.ndarray, width: np.ndarray) -> np.ndarray:
    """|raw_j| / w_j, 0 where the column's box has width 0."""
    out = np.zeros(raw.shape[0])
    pos = width > 0
    out[pos] = np.abs(raw[pos]) / width[pos]
    return out


def gumbel_top_k(utilities, k: int, epsilon_round: float, sensitivity: float, rng, *,
                 required: Sequence[int] = ()) -> np.ndarray:
    """The k-round peeling exponential mechanism, one shot: the ``k`` indices (in selection order) with the
    largest u_j + Gumbel(0, 2·sensitivity/epsilon_round), after the public ``required`` indices (always kept,
    not counted in k)."""
    u = np.asarray(utilities, dtype=np.float64)
    required = [int(j) for j in required]
    if not 0 <= k <= u.size - len(required):
        raise ValueError(f"k must be in [0, {u.size - len(required)}] (columns not required), got {k}")
    if not (epsilon_round > 0 and sensitivity > 0):
        raise ValueError("epsilon_round and sensitivity must be > 0")
    noisy = u + rng.gumbel(0.0, mechanisms.laplace_scale(2.0 * sensitivity, epsilon_round), size=u.size)  # 2Δ/ε up
    noisy[required] = -np.inf
    order = np.argsort(-noisy, kind="stable")[:k]
    return np.asarray(required + [int(j) for j in order], dtype=np.int64)


def peeling_probability(utilities, sequence: Sequence[int], epsilon_round: float, sensitivity: float) -> float:
    """Probability that the peeling exponential mechanism picks exactly ``sequence`` (in that order)."""
    u = np.asarray(utilities, dtype=np.float64) * (epsilon_round / (2.0 * sensitivity))
    left = np.ones(u.size, dtype=bool)
    p = 1.0
    for j in sequence:
        logits = u[left] - u[left].max()
        p *= float(np.exp(u[j] - u[left].max()) / np.exp(logits).sum())
        left[j] = False
    return p


def select_features(X, y, domain, k: int, epsilon: float, rng, *, policy: str = "clip",
                    required: Sequence[int] = ()) -> FeatureSelection:
    """Choose ``k`` columns of X with an ε-DP selection (see the module Notes for the mechanism and its proof).

    Parameters
    ----------
    X : ndarray (n, d) or scipy sparse matrix
        The rows (replace-one neighbours; n is public).
    y : array-like (n,)
        0/1 labels.
    domain : FeatureDomain
        The declared domain; only its box [l_j, u_j] is used (the utilities' sensitivity comes from it).
    k : int
        Columns to keep, ``required`` ones included (max(1, len(required)) <= k <= d).
    epsilon : float > 0, finite
        The selection's budget: COUNT_SHARE of it on the positive count, the rest split evenly over the
        k − len(required) peeling rounds.
    rng : numpy Generator
        Source of the Laplace and Gumbel noise.
    policy : {"clip", "raise"}, default "clip"
        Values outside the box are clipped into it, or refused.
    required : sequence of int, default ()
        Public column indices that are always kept (not counted in the rounds).

    Returns
    -------
    FeatureSelection
        ``columns`` sorted; ``epsilon`` is what was spent: ``epsilon``, or 0 when no round was needed (k = d, or
        only required columns), in which case nothing was computed from the data.

    See Also
    --------
    select_features_from_sums : the same selection from per-column sums (the Dask fit's source).
    """
    n, d = X.shape
    required, rounds = _check_selection(d, k, epsilon, required)
    if rounds == 0:
        return _nothing_selected(d, k, required)
    y = _labels01(y)
    return _release(n, d, epsilon, rounds, rng, required, y.sum(),
                    lambda q: relevance_scores(X, y, domain, q, policy=policy))


def select_features_from_sums(n: int, d: int, sums, domain, k: int, epsilon: float, rng, *,
                              required: Sequence[int] = ()) -> FeatureSelection:
    """``select_features`` computed from three sums over the rows instead of the rows themselves.

    With c_i = clip(x_i) − m (x_i clipped to the declared box, m the box's midpoint), the utility of column j is
    u_j = |Σ_i c_ij·y_i − q·Σ_i c_ij| / w_j, the same number as ``relevance_scores`` (up to float summation
    order). The mechanism, its sensitivities and the order of the rng draws are ``select_features``'s, so with the
    same rng and sums the selection is the same (a near-tie of two noisy utilities, within ~1e-12 relative of
    each other, could break the other way under a different summation order).

    Parameters
    ----------
    n, d : int
        The number of rows (public under replace-one) and of columns.
    sums : callable
        ``sums()`` -> (Σ_i y_i, Σ_i c_i·y_i of shape (d,), Σ_i c_i of shape (d,)), with y_i in {0, 1}; called once,
        and only when a selection round runs (not when ``k`` leaves nothing to choose).
    domain, k, epsilon, rng, required
        As in ``select_features``.

    Returns
    -------
    FeatureSelection
        As in ``select_features``.
    """
    required, rounds = _check_selection(d, k, epsilon, required)
    if rounds == 0:
        return _nothing_selected(d, k, required)
    lo, hi = _box(domain, d)
    positives, label_sums, sums_c = sums()
    width = hi - lo

    def utilities(q):
        return _per_width(np.asarray(label_sums, dtype=np.float64) - q * np.asarray(sums_c, dtype=np.float64), width)

    return _release(n, d, epsilon, rounds, rng, required, positives, utilities)


def _check_selection(d: int, k, epsilon: float, required):
    """(sorted required columns, number of peeling rounds) after checking the arguments; 0 rounds: nothing to
    choose."""
    required = sorted({int(j) for j in required})
    if any(not 0 <= j < d for j in required):
        raise ValueError(f"required columns must be indices in [0, {d}), got {required}")
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or not max(len(required), 1) <= k <= d:
        raise ValueError(f"k must be an integer in [{max(len(required), 1)}, {d}] (the columns to keep), got {k!r}")
    if not (np.isfinite(epsilon) and epsilon > 0):
        raise ValueError(f"epsilon must be a finite number > 0, got {epsilon!r}")
    rounds = int(k) - len(required)
    return required, (0 if int(k) == d else rounds)


def _nothing_selected(d: int, k, required) -> FeatureSelection:
    """The outcome when no round runs (k = d, or only required columns): public, nothing spent."""
    cols = np.arange(d) if int(k) == d else np.asarray(required, dtype=np.int64)
    return FeatureSelection(cols, float("nan"), float("nan"), 0.0, d)


def _release(n: int, d: int, epsilon: float, rounds: int, rng, required, positives, utilities) -> FeatureSelection:
    """The noisy count of ``positives`` (giving q), then ``rounds`` peeling rounds over ``utilities(q)``."""
    eps_count = COUNT_SHARE * float(epsilon)
    count = float(mechanisms.laplace_mechanism(np.array([positives]), 1.0, eps_count, random_state=rng)[0])
    q = float(np.clip(count / n, 0.0, 1.0))
    sens = max(q, 1.0 - q)
    u = utilities(q)
    chosen = gumbel_top_k(u, rounds, (float(epsilon) - eps_count) / rounds, sens, rng, required=required)
    return FeatureSelection(np.sort(chosen), q, sens, float(epsilon), d)


def restrict_domain(domain, columns):
    """The declared domain of x[columns]: bounds and names of those columns, one-hot groups cut to them, the
    norm caps kept (a sub-vector's norm is at most the vector's, so the caps stay valid bounds)."""
    from .domain import FeatureDomain

    cols = [int(j) for j in columns]
    remap = {j: i for i, j in enumerate(cols)}
    groups = [tuple(remap[j] for j in g if j in remap) for g in getattr(domain, "one_hot_groups", ())]
    names = getattr(domain, "names", None)
    return FeatureDomain(
        np.asarray(domain.lower, dtype=np.float64)[cols],
        np.asarray(domain.upper, dtype=np.float64)[cols],
        one_hot_groups=[g for g in groups if g],
        l1_cap=getattr(domain, "l1_cap", None),
        l2_cap=getattr(domain, "l2_cap", None),
        names=None if names is None else [names[j] for j in cols],
    )
