"""PrivPC (thesis ch. 4, Alg. 3–4): PC's edge deletions chosen by the exponential mechanism, categorical data.

Neighbouring relation: replace one record (n is public). All sensitivities below are for it.

Algorithm (library default: ``mechanism="subset"``)
----------------------------------------------------
Start from the complete graph. For order k = 0, 1, ..., ``max_order`` with a budget share ε_k > 0
(``order_budgets``): for every present edge e = (i, j) and every S ⊆ adj(i) \\ {j} or adj(j) \\ {i}, |S| = k, the
signed score s(e, S) (sensitivity 1, > 0 ⇔ the test accepts independence, fix 2 below) of the test
G²(i, j | S) <= c*, with the private critical value

    c* = (√c_df + h_k)²,   c_df = χ²_{df, 1−α} quantile,   h_k = ``threshold_shift`` of order k (public),

df = (r_i − 1)(r_j − 1) ∏_{v∈S} r_v from the public category counts; s_e = max_S s(e, S) (a max of
sensitivity-1 functions). The deleted edge set D is drawn ONCE per order by the exponential mechanism over all
subsets of the present edges with quality q(D) = min(min_{e∈D} s_e, min_{e∉D} −s_e) (sensitivity 1; sampled
exactly, see ``subset_exponential_mechanism``) at ε_k. The orders compose sequentially: ``privacy_spent_`` =
Σ ε_k over the orders run. ``mechanism="thesis"`` runs the thesis' Alg. 3–4 instead: per order, per node V_i
with |adj(V_i)| >= k + 1, q1(j) = max_S s(j, S), β̂ ∈ {0..m} by the exponential mechanism at ε2 with
q2(t) = min(s_(t), −s_(t+1)) (s_(1) >= ... >= s_(m) the sorted q1, s_(0) = +∞, s_(m+1) = −∞), then β̂ draws
without replacement at ε1/β̂ each; a round costs ε1 + ε2 = ε_k / p. ``"node_subset"``: the per-node rounds with
one subset selection over adj(V_i) inside. With ``orient=True`` the separating sets are drawn privately too
(the pairs (j, S) by their scores; in the subset rounds a share ``budget_split[0]`` of the round selects and the
rest is split over the separating-set draws of the removed edges) and the orientation is post-processing.

Why these defaults (the thesis' ε = 1 setting, p = 10, n = 10,000; measurements in bench/RESULTS.md)
---------------------------------------------------------------------------------------------------
*Subset selection.* One ε-DP release of the m decisions of an order. With a_(1) <= ... <= a_(m) the sorted
|s_e|, the mechanism returns the exact decisions with weight e^{ε a_(1)/2} and a wrong set whose largest wrong
element has rank k with weight 2^{k−1} e^{−ε a_(k)/2}: every decision whose |s| is below about 2 k ln 2 / ε is
near a coin flip. No ε-DP mechanism does much better in the worst case (packing: if each of the 2^m sign
patterns is reachable within a records, every one of them keeps probability >= e^{−ε a} times its probability
on its own dataset, so ε a >= m ln 2 − O(1) is needed for a mostly-correct release; the subset mechanism needs
ε a/2 >= m ln 2). Per-node rounds (the thesis) split ε over p nodes and β̂/draws; per-edge Laplace or Gaussian
noise pays for the L1 (m) or L2 (√m) sensitivity of the score vector; peeling or one-shot Gumbel top-k needs
the number of deletions (tens) draws; zCDP/RDP composition (ε²/8-zCDP per exponential mechanism) only pays
off over many releases, and here there are one to three. By these bounds each needs larger scores than one
subset selection at the same ε (only the per-node rounds are implemented here; bench/RESULTS.md has them).
*Threshold shift.* With the plain χ² threshold (h = 0) an independent pair at n = 10,000 is only 1–50 replaced
records from the other side of the test (the distance of a balanced 2 × 2 table grows like (√n / 4)|√G² − √c|),
so at ε = 1 most of the 45 order-0 decisions are coin flips (TPR 0.52, TDR 0.49 measured). Raising the threshold
in √G² units by h moves every pair with little dependence (independent pairs and weakly d-connected ones, which
PC would delete at a higher order) about h √n / 4 records onto the "independent" side, while the strongly
dependent pairs (true edges) stay far on the other: the scores grow ~10× and the subset selection becomes
nearly exact. Cost: true edges with G² below (√c + h)² are deleted (an effect-size threshold). h = 8 at order 0
and 3 above, and the "auto" schedule (order 0 takes all of ε = 1; 0.7 : 0.2 : 0.1 once the higher orders get at
least 0.4 each) were chosen on graphs disjoint from the ones reported. ``threshold_shift=0`` is the thesis'
test at level α.

Fixes to the published pseudo-code (each a bug the thesis' Theorem 5 does not cover)
------------------------------------------------------------------------------------
1. *Sign of Eq. 4.1.* The thesis' d is positive when p <= τ (dependent), yet high-d edges are drawn for deletion
   and "all d negative ⇒ β̂ = 0". Here s > 0 ⇔ p >= τ (independent), which is what Alg. 4 needs.
2. *A score with a proven sensitivity.* Eq. 4.1's d (records to change to flip the test) has sensitivity 1 only if
   computed exactly, and no algorithm is given for r × c × K tables. The margin score s has sensitivity 1:
   write G²/2 = Σ f(N_zab) − Σ f(N_za) − Σ f(N_zb) + Σ f(N_z) with f(x) = x ln x. Removing one record from cell
   (z, a, b) changes G²/2 by [g(N_z) − g(N_zb)] − [g(N_za) − g(N_zab)], g(m) = f(m) − f(m − 1) (g(1) = 0).
   g is increasing and N_zab <= N_za, N_zb <= N_z, so both brackets lie in [0, g(n)]: |Δ G²| <= 2 g(n) for one
   removal from a table of n records. Adding a record to n − 1 records is the reverse of a removal from n, so a
   replacement changes G² by at most Δ_G = 4 g(n) = 4 (n ln n − (n − 1) ln(n − 1)) < 4 (ln n + 1), for every
   table size and every conditioning set (checked by brute force in tests/test_causal.py). c_df (and c*) is public,
   so s = (c_df − G²)/Δ_G has sensitivity 1. (The spec's 8(ln n + 1) is this bound with a looser removal step.)
   s is a lower bound on the exact record distance of Eq. 4.1 on the independent side: less utility, sound proof.
   The default ``score="distance"`` replaces the global Δ_G by per-step local bounds and counts steps
   (``distance_score.py``): still a sensitivity-1 lower bound of Eq. 4.1's distance, but orders of magnitude larger
   on well-populated tables. Steps 1–3 above use whichever score is chosen.
3. *The conditioning set is chosen by the score* (q1 = max_S s, a max of sensitivity-1 functions), not by the raw
   largest p-value followed by d at that set (an argmax over data, whose score has no sensitivity bound).
4. *Orientation.* Alg. 3 line 13 runs PC's lines 16–28, whose line 18 tests raw data again, with separating sets
   from a non-private argmax. Default ``orient=False`` releases the skeleton only; ``orient=True`` releases
   private separating sets (step 3) and orients them without touching the data.
5. *Degrees of freedom* come from the public category counts (pcalg's zero-cell ``adaptDF`` is data-dependent).
6. *Budget schedule.* ε1, ε2 and the per-round share are not given. ``budget_schedule`` gives the share of each
   order (default "auto", see above); with the per-node mechanisms an order's share is split equally over its p
   possible rounds (a node that does not qualify leaves its share unspent, and ``privacy_spent_`` shows it);
   ``budget_split`` = (ε1, ε2) fractions of a round (default ½, ½). Orders above ``max_order`` or without a
   share are never run; ``unfinished_orders_`` names the first at which PC would have continued.

``paper_faithful=True`` keeps the published choices that are privacy bugs — conditioning set by largest p-value,
Eq. 4.2–4.4's q2 (with the −1 terms), and orientation by fresh tests on the data (when ``orient=True``) — and
then reports ``privacy_spent_ = (inf, 0)`` with the thesis' figure in ``epsilon_claimed_``. The sign fix and the
margin score stay (the published sign is not a privacy bug but makes the algorithm delete dependent edges, and
the exact distance has no algorithm).
"""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import combinations
from typing import Dict, FrozenSet, List, Optional, Tuple

import numpy as np

from .. import _reference, accountants, kernels
from .._validation import check_epsilon, check_random_state
from ..accountants import PrivacySpent
from ..accountants.budget import step_down
from ..mechanisms import exponential_mechanism
from ._stats import chi2_critical, chi2_sf
from .distance_score import distance_score
from .graph import CausalGraph, check_names, complete_skeleton, orient_cpdag
from .pc import check_alpha, check_codes, check_max_order

__all__ = ["PrivPC", "g2_replacement_sensitivity", "beta_quality", "order_budgets",
           "private_critical_value"]


def g2_replacement_sensitivity(n: int) -> float:
    """Δ_G = 4 (n ln n − (n − 1) ln(n − 1)): the most G² can change when one of n records is replaced."""
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    g = n * math.log(n) - ((n - 1) * math.log(n - 1) if n > 1 else 0.0)
    return 4.0 * g


def beta_quality(scores: np.ndarray, faithful: bool = False) -> np.ndarray:
    """q2(t), t = 0..m, from the q1 scores (library: min(s_(t), −s_(t+1)); faithful: Eqs. 4.2–4.4, sign fixed).

    Sensitivity 1: order statistics of a vector whose entries each move by <= 1 move by <= 1, and min/negation
    keep that; the faithful version subtracts public constants chosen by signs, which the thesis' own
    Corollary 2 covers only loosely (a sign change of one score moves the −1 to another branch: up to 2).
    """
    s = np.sort(np.asarray(scores, dtype=np.float64))[::-1]
    m = s.size
    ext = np.concatenate([[np.inf], s, [-np.inf]])
    if not faithful:
        return np.minimum(ext[:-1], -ext[1:])
    q = np.empty(m + 1)
    indep = s >= 0  # thesis: p-value >= τ
    q[0] = -s[0] - 1 if indep[0] else -s[0]
    q[m] = s[m - 1] - 1 if not indep[m - 1] else s[m - 1]
    for t in range(1, m):
        a, b = s[t - 1], s[t]
        if indep[t - 1] and not indep[t]:
            q[t] = min(a, -b) - 1
        elif indep[t - 1] and indep[t]:
            q[t] = -b
        else:
            q[t] = a
    return q


def subset_exponential_mechanism(scores, epsilon: float, rng) -> np.ndarray:
    """A subset D of the candidates (bool mask) from the exponential mechanism over all 2^m subsets with quality
    q(D) = min( min_{j∈D} s_j, min_{j∉D} −s_j )  (sensitivity 1 when every s_j has sensitivity 1),
    P(D) ∝ exp(ε q(D) / 2): ε-DP. Sampled exactly in O(m log m): with D* = {s_j >= 0} and a_(1) <= ... <= a_(m)
    the sorted |s_j|, q(D*) = a_(1), and every D ≠ D* has q(D) = −a_(k) where k is the largest-|s| element of
    D Δ D*; there are 2^(k−1) such D for each k. Draw "D*" or k with those weights, then the rest of D Δ D*
    uniformly among the k − 1 smaller elements."""
    s = np.asarray(scores, dtype=np.float64)
    m = s.size
    if m == 0:
        return np.zeros(0, dtype=bool)
    order = np.argsort(np.abs(s), kind="stable")
    a = np.abs(s)[order]
    logw = np.concatenate([[epsilon * a[0] / 2.0], np.arange(m) * math.log(2.0) - epsilon * a / 2.0])
    w = np.exp(logw - logw.max())
    choice = int(min(np.searchsorted(np.cumsum(w), rng.random() * w.sum(), side="right"), m))
    D = s >= 0
    if choice > 0:
        k = choice - 1  # position in the |s| order of the largest wrong element
        flip = np.zeros(m, dtype=bool)
        flip[order[k]] = True
        flip[order[:k]] = rng.random(k) < 0.5
        D = D ^ flip
    return D


AUTO_HEAD = 0.7
MIN_ORDER_EPSILON = 0.4
DEFAULT_THRESHOLD_SHIFT = (8.0, 3.0)


def _check_schedule(schedule, n_orders: int) -> np.ndarray:
    if isinstance(schedule, str) and schedule == "halving":
        w = 0.5 ** np.arange(n_orders)
    elif isinstance(schedule, str) and schedule == "uniform":
        w = np.ones(n_orders)
    else:
        w = np.asarray(schedule, dtype=np.float64).ravel() if not isinstance(schedule, str) else np.zeros(0)
        if w.size != n_orders or np.any(~np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
            raise ValueError(
                f"budget_schedule must be 'auto', 'halving', 'uniform' or {n_orders} non-negative weights (one per "
                f"order 0..max_order), got {schedule!r}"
            )
    return w / w.sum()


def order_budgets(epsilon: float, max_order: int, schedule="auto") -> np.ndarray:
    """ε of each order 0..max_order (a public function of ε, max_order and the schedule; never of the data).

    ``"auto"``: order 0 gets 0.7 of ε and orders 1..max_order share 0.3 halving (0.2, 0.1 for max_order = 2);
    an order k >= 1 whose share is below ``MIN_ORDER_EPSILON`` = 0.4 is not run and its share goes to order 0
    (the shares fall with k, so the orders dropped are the last ones). Why: a subset selection over m edges at
    budget ε_k is near-uniform on every edge whose score is below about 2 m ln 2 / ε_k (see the module
    docstring); at ε = 1 an order-1 round at 0.2 lowered F1 from 0.81 to 0.73 (bench/RESULTS.md), so below 0.4 the
    budget does more good at order 0. Other schedules: weights normalised to sum 1
    ("halving": 1 : ½ : ¼ ..., "uniform", or one weight per order). The shares' exact sum is <= ε (the largest
    is stepped down by ulps if rounding put the sum above), so ``privacy_spent_`` never exceeds ε."""
    n_orders = max_order + 1
    if not (isinstance(schedule, str) and schedule == "auto"):
        return _fit_shares(epsilon * _check_schedule(schedule, n_orders), epsilon)
    w = np.zeros(n_orders)
    w[0] = 1.0
    if n_orders > 1:
        tail = 0.5 ** np.arange(n_orders - 1)
        w[0], w[1:] = AUTO_HEAD, (1.0 - AUTO_HEAD) * tail / tail.sum()
        drop = np.concatenate([[False], epsilon * w[1:] < MIN_ORDER_EPSILON * (1 - 1e-9)])
        w[0] += w[drop].sum()
        w[drop] = 0.0
    return _fit_shares(epsilon * w, epsilon)


def _exact_sum(values) -> Fraction:
    """The exact (rational) sum of floats."""
    return sum((Fraction(float(v)) for v in values), Fraction(0))


def _fit_shares(shares: np.ndarray, total: float) -> np.ndarray:
    """``shares`` (non-negative, about ``total`` in all) with the largest lowered to at most what the others leave
    of ``total`` (exactly), so that their exact sum is <= ``total``. ε·w_k rounds each share to nearest, so the
    shares could add up to one ulp more than ε (e.g. ε = 12.418930397567815 with the "auto" schedule at
    max_order = 2), or to many with many orders; their exact sum <= ε makes the fsum of any of them (the orders
    actually run) <= ε. A non-finite total is left as is."""
    out = np.array(shares, dtype=np.float64)
    if not math.isfinite(total) or not out.size:
        return out
    top = int(np.argmax(out))
    rest = Fraction(total) - _exact_sum(np.delete(out, top))  # what the largest may take, exactly
    if Fraction(float(out[top])) > rest:
        fitted = max(float(rest), 0.0)  # rounded to nearest: at most one ulp above rest
        out[top] = step_down(fitted, lambda v: v <= 0 or Fraction(v) <= rest)
    return out


def _even_share(total: float, k: int) -> float:
    """The largest float r with k·r <= ``total`` exactly: ``total / k`` stepped down by ulps (k equal rounds then
    never charge more than their share, ``math.fsum([r] * k) <= total``); a non-finite total is divided as is."""
    if not math.isfinite(total):
        return total / k
    return step_down(total / k, lambda r: r <= 0 or Fraction(r) * k <= Fraction(total))


def _rest(total: float, used: float) -> float:
    """The largest float r with used + r <= ``total`` exactly: the rest of a round's ``total`` after a share
    ``used`` <= ``total`` (total − used, stepped down by ulps if it was rounded up)."""
    if not math.isfinite(total):
        return total - used
    return step_down(max(total - used, 0.0), lambda r: r <= 0 or Fraction(used) + Fraction(r) <= Fraction(total))


def _check_shifts(shift, n_orders: int) -> np.ndarray:
    vals = np.atleast_1d(np.asarray(shift, dtype=np.float64)).ravel() if shift is not None else np.zeros(0)
    if vals.size == 0 or np.any(~np.isfinite(vals)) or np.any(vals < 0):
        raise ValueError(f"threshold_shift must be a number >= 0 or a non-empty sequence of them, got {shift!r}")
    return np.array([vals[min(k, vals.size - 1)] for k in range(n_orders)])


def private_critical_value(alpha: float, df: float, shift: float) -> float:
    """The G² threshold of the private decisions: c* = (√c_df + h)², c_df = χ²_{df, 1−α}, h = the shift (public)."""
    return (math.sqrt(chi2_critical(alpha, float(df))) + shift) ** 2


def _check_split(split) -> Tuple[float, float]:
    try:
        a, b = (float(x) for x in split)
    except (TypeError, ValueError):
        raise ValueError(f"budget_split must be a pair (share of eps1, share of eps2), got {split!r}") from None
    if not (a > 0 and b > 0 and math.isfinite(a + b)):
        raise ValueError(f"budget_split entries must be > 0, got {split!r}")
    return a / (a + b), b / (a + b)


class _Tests:
    """G², degrees of freedom and sensitivity-1 scores of the tests (i, j | S) of one dataset, cached per test."""

    def __init__(self, codes_t, cats, alpha, score, backend, n_threads):
        self.codes_t, self.cats, self.alpha, self.score = codes_t, cats, alpha, score
        self.backend, self.n_threads = backend, n_threads
        self.n = codes_t.shape[1]
        self._g2: Dict[tuple, float] = {}
        self._scores: Dict[tuple, float] = {}

    def g2(self, keys: List[tuple]) -> np.ndarray:
        todo = [k for k in dict.fromkeys(keys) if k not in self._g2]
        if todo:
            width = max(len(k) for k in todo)
            arr = np.full((len(todo), width), -1, dtype=np.int64)
            for r, k in enumerate(todo):
                arr[r, : len(k)] = k
            vals = kernels.contingency_g2(self.codes_t, self.cats, arr, backend=self.backend,
                                          n_threads=self.n_threads, codes_transposed=True)
            self._g2.update(zip(todo, vals.tolist()))
        return np.array([self._g2[k] for k in keys])

    def df(self, key: tuple) -> float:
        c = self.cats
        return float((c[key[0]] - 1) * (c[key[1]] - 1) * np.prod(c[list(key[2:])], dtype=np.float64))

    def scores(self, keys: List[tuple], shift: float) -> np.ndarray:
        """Signed scores (> 0 ⇔ G² <= c*, independent), each of sensitivity 1 under replace-one."""
        g2 = self.g2(keys)
        out = np.empty(len(keys))
        for t, k in enumerate(keys):
            crit = private_critical_value(self.alpha, self.df(k), shift)
            if self.score == "margin":
                out[t] = (crit - g2[t]) / g2_replacement_sensitivity(self.n)
                continue
            if (k, shift) not in self._scores:
                N = _reference.contingency_table(self.codes_t, self.cats, k[0], k[1], list(k[2:]))
                self._scores[(k, shift)] = distance_score(N, g2[t], crit, self.n)
            out[t] = self._scores[(k, shift)]
        return out


def _edge_candidates(A: np.ndarray, order: int):
    """Present edges (i < j) and, for each, the conditioning sets of size ``order`` from adj(i) or adj(j)."""
    edges, cand = [], []
    for i, j in zip(*np.nonzero(np.triu(A, 1))):
        i, j = int(i), int(j)
        Ss = set()
        for a, b in ((i, j), (j, i)):
            others = [v for v in np.flatnonzero(A[a]).tolist() if v != b]
            Ss.update(tuple(sorted(S)) for S in combinations(others, order))
        if Ss:
            edges.append((i, j))
            cand.append(sorted(Ss))
    return edges, cand


class PrivPC:
    """ε-DP PC skeleton (and optionally CPDAG) for integer-coded categorical data (see the module docstring).

    Parameters
    ----------
    epsilon : float
        Total budget ε (replace-one neighbours, n public).
    alpha : float, default 0.01
        Test level τ; the private decisions use the critical value (√c_df + h)², c_df = χ²_{df, 1−α}.
    max_order : int, default 2
        Largest conditioning-set size (orders run: 0..max_order, those with a budget share).
    budget_schedule : "auto" | "halving" | "uniform" | sequence of max_order + 1 weights, default "auto"
        Share of ε per order (``order_budgets``). "auto": 0.7 to order 0, the rest halving over the higher
        orders, an order with less than 0.4 dropped (its share goes to order 0). With the per-node mechanisms an
        order's share is split equally over its p rounds.
    threshold_shift : float or sequence (one per order, the last repeated), default (8.0, 3.0)
        h_k >= 0: order k decides "independent" when G² <= (√c_df + h_k)². 0 is the thesis' test at level α.
    budget_split : (float, float), default (0.5, 0.5)
        Shares of a round's budget for the edge draws (ε1) and for β̂ (ε2) with ``mechanism="thesis"``, and for
        the edge set and the separating sets with ``orient=True``.
    orient : bool, default False
        Release private separating sets and the CPDAG oriented from them (False: skeleton only).
    mechanism : {"subset", "node_subset", "thesis"}, default "subset"
        "subset": one subset exponential mechanism per order over all present edges; "node_subset": one per node
        and order (the thesis' rounds, subset selection inside); "thesis": Alg. 4 (β̂, then β̂ draws) per node.
    score : {"distance", "margin"}, default "distance"
        "distance": ``distance_score`` (lower bound on the records-to-flip distance from local bounds, sensitivity
        1, see causal/distance_score.py); "margin": (c* − G²)/Δ_G with the global Δ_G (fix 2 above).
    paper_faithful : bool, default False
        The thesis' non-private choices (module docstring); then ``privacy_spent_ = (inf, 0)``. It runs Alg. 3–4
        per node whatever ``mechanism`` says; ``threshold_shift`` still applies (pass 0 for the thesis' test).
    backend : {"native", "numpy"}, default "native"
        Kernel for the contingency tables and G² (``kernels.contingency_g2``).
    n_threads : int or None
        Threads of the native kernel (None: all cores).
    random_state : None, int or numpy Generator
        Source of the mechanisms' randomness. Noise path: floating point (the exponential and subset mechanisms
        sample with NumPy's Generator), no secure path yet; None draws from OS entropy, an int makes the run
        reproducible and voids the guarantee against whoever knows it.

    Attributes
    ----------
    graph_ : CausalGraph
        Skeleton; separating sets and CPDAG only with ``orient=True``.
    skeleton_ : ndarray of bool, shape (p, p)
        The released skeleton.
    cpdag_ : ndarray of int8, shape (p, p), or None
        The CPDAG (``orient=True``), else None.
    order_epsilons_ : ndarray, shape (max_order + 1,)
        ε scheduled for each order (public: from ε, max_order and the schedule).
    threshold_shifts_ : ndarray, shape (max_order + 1,)
        h of each order.
    privacy_spent_ : PrivacySpent
        (ε, 0) actually spent (sum over the rounds run, ``accountants.compose_sequential``), method "basic";
        (inf, 0), "none", when ``paper_faithful``. Never above ``epsilon``, also in floating point: the order
        shares, the per-node rounds and the shares inside a round are rounded down to fit exactly.
    epsilon_claimed_ : float
        The budget ε (the thesis' figure); equals ``privacy_spent_[0]`` only when every scheduled round ran.
    rounds_run_, rounds_skipped_ : int
        Rounds run / scheduled rounds not run (no edge or node qualified, or no budget).
    unfinished_orders_ : list of int
        The first order above the last budgeted one at which some node still had enough neighbours (PC would
        have continued there), or [].
    round_log_ : list of (order, node, count, deleted)
        Per round (node −1 for a whole-graph round): β̂ or the number deleted, and the deleted edges/nodes — all
        of it private output.
    n_features_in_ : int
        p.
    """

    def __init__(self, epsilon: float = 1.0, alpha: float = 0.01, max_order: int = 2, budget_schedule="auto",
                 threshold_shift=DEFAULT_THRESHOLD_SHIFT, budget_split=(0.5, 0.5), orient: bool = False,
                 mechanism: str = "subset", score: str = "distance", paper_faithful: bool = False,
                 backend: str = "native", n_threads: Optional[int] = None, random_state=None):
        self.epsilon = epsilon
        self.alpha = alpha
        self.max_order = max_order
        self.budget_schedule = budget_schedule
        self.threshold_shift = threshold_shift
        self.budget_split = budget_split
        self.orient = orient
        self.mechanism = mechanism
        self.score = score
        self.paper_faithful = paper_faithful
        self.backend = backend
        self.n_threads = n_threads
        self.random_state = random_state

    def _check(self, p: int):
        if self.max_order is None:
            raise ValueError("max_order must be an int for PrivPC (the budget is split over orders 0..max_order)")
        if self.score not in ("distance", "margin"):
            raise ValueError(f"score must be 'distance' or 'margin', got {self.score!r}")
        if self.mechanism not in ("subset", "node_subset", "thesis"):
            raise ValueError(f"mechanism must be 'subset', 'node_subset' or 'thesis', got {self.mechanism!r}")
        L = check_max_order(self.max_order, p)
        return L, _check_shifts(self.threshold_shift, L + 1), _check_split(self.budget_split)

    def fit(self, X, n_categories=None, names=None) -> PrivPC:
        eps = check_epsilon(self.epsilon)
        alpha = check_alpha(self.alpha)
        codes_t, cats = check_codes(X, n_categories)
        p, n = codes_t.shape
        L, shifts, split = self._check(p)
        budgets = order_budgets(eps, L, self.budget_schedule)
        rng = check_random_state(self.random_state)
        faithful = bool(self.paper_faithful)
        tests = _Tests(codes_t, cats, alpha, self.score, self.backend, self.n_threads)
        A = complete_skeleton(p)
        sepsets: Dict[FrozenSet[int], Tuple[int, ...]] = {}
        spent: List[float] = []
        self.round_log_, self.rounds_skipped_ = [], 0
        for ord_ in range(L + 1):
            if self.mechanism == "subset" and not faithful:
                self._order_round(A, ord_, budgets[ord_], shifts[ord_], split[0], tests, sepsets, spent, rng)
            else:
                eps_round = _even_share(budgets[ord_], p)  # p rounds never charge more than the order's share
                for i in range(p):
                    self._node_round(A, i, ord_, eps_round, shifts[ord_], split, tests, sepsets, spent, rng)
        last = int(np.flatnonzero(budgets > 0).max())
        self.unfinished_orders_ = [o for o in range(last + 1, p - 1) if np.any(A.sum(axis=1) >= o + 1)][:1]
        cpdag = released_sepsets = None
        if self.orient:
            cpdag = _orient_with_fresh_tests(A, tests) if faithful else orient_cpdag(A, sepsets)
            released_sepsets = dict(sepsets)
        self.graph_ = CausalGraph(skeleton=A, sepsets=released_sepsets, cpdag=cpdag, names=check_names(names, p),
                                  extras={"delta_g2": g2_replacement_sensitivity(n)})
        self.skeleton_, self.cpdag_ = A, cpdag
        self.order_epsilons_, self.threshold_shifts_ = budgets, shifts
        self.rounds_run_ = len(spent)
        self.epsilon_claimed_ = eps
        self.privacy_spent_ = (PrivacySpent(math.inf, 0.0, "none") if faithful
                               else PrivacySpent(accountants.compose_sequential(spent), 0.0, "basic", "replace_one"))
        self.n_features_in_ = p
        return self

    def _order_round(self, A, ord_, eps_ord, shift, f1, tests, sepsets, spent, rng):
        """One subset exponential mechanism over every present edge (``mechanism="subset"``); with ``orient`` the
        separating set of each deleted edge is then drawn by the exponential mechanism at the rest of ε_ord."""
        edges, cand = _edge_candidates(A, ord_)
        if not edges or eps_ord <= 0:
            self.rounds_skipped_ += 1
            return
        s_all = tests.scores([e + S for e, Ss in zip(edges, cand) for S in Ss], shift)
        starts = np.cumsum([0] + [len(Ss) for Ss in cand])
        q = np.array([s_all[starts[e]: starts[e + 1]].max() for e in range(len(edges))])
        eps_sel = eps_ord * (f1 if self.orient else 1.0)
        D = np.flatnonzero(subset_exponential_mechanism(q, eps_sel, rng))
        if self.orient and D.size:
            eps_sep = _even_share(_rest(eps_ord, eps_sel), D.size)  # ε_sel + |D| ε_sep <= ε_ord exactly
            for e in D:
                t = exponential_mechanism(s_all[starts[e]: starts[e + 1]], 1.0, eps_sep, random_state=rng)
                sepsets[frozenset(edges[e])] = cand[e][t]
        deleted = [edges[e] for e in D]
        for i, j in deleted:
            A[i, j] = A[j, i] = False
        spent.append(eps_ord)
        self.round_log_.append((ord_, -1, len(deleted), deleted))

    def _node_round(self, A, i, ord_, eps_round, shift, split, tests, sepsets, spent, rng):
        """Alg. 4 for node i (``mechanism="thesis"``), or one subset selection over adj(i) ("node_subset")."""
        adj = np.flatnonzero(A[i]).tolist()
        if len(adj) < ord_ + 1 or eps_round <= 0:
            self.rounds_skipped_ += 1
            return
        faithful = bool(self.paper_faithful)
        pairs = [(j, S) for j in adj for S in combinations([v for v in adj if v != j], ord_)]
        keys = [(min(i, j), max(i, j)) + tuple(sorted(S)) for j, S in pairs]
        s_pair = tests.scores(keys, shift)
        # q1(j) = max_S s(j, S) (library); faithful: the score at the S with the largest p-value (a data argmax)
        rank = s_pair if not faithful else np.array(
            [chi2_sf(g, tests.df(k)) for g, k in zip(tests.g2(keys), keys)])
        q1, best_S, best_rank = np.full(len(adj), -np.inf), {}, np.full(len(adj), -np.inf)
        for t, (j, S) in enumerate(pairs):
            a = adj.index(j)
            if rank[t] > best_rank[a]:
                best_rank[a], q1[a], best_S[j] = rank[t], s_pair[t], tuple(S)
        if self.mechanism == "node_subset" and not faithful:
            # as the "subset" round: with orient, a share split[0] selects, the rest draws the chosen separating sets
            eps_sel = eps_round * (split[0] if self.orient else 1.0)
            chosen = [adj[a] for a in np.flatnonzero(subset_exponential_mechanism(q1, eps_sel, rng))]
            beta = len(chosen)
            if self.orient and chosen:
                eps_sep = _even_share(_rest(eps_round, eps_sel), len(chosen))
                for j in chosen:
                    idx = [t for t, (jj, _) in enumerate(pairs) if jj == j]
                    t = idx[exponential_mechanism(s_pair[idx], 1.0, eps_sep, random_state=rng)]
                    sepsets[frozenset((i, j))] = tuple(sorted(pairs[t][1]))
        else:
            eps1 = split[0] * eps_round
            eps2 = _rest(eps_round, eps1)  # ε1 + ε2 <= the round's share exactly
            beta = exponential_mechanism(beta_quality(q1, faithful), 1.0, eps2, random_state=rng)
            chosen = self._draw_nodes(i, adj, pairs, s_pair, q1, best_S, beta, eps1, sepsets, rng)
        for j in chosen:
            A[i, j] = A[j, i] = False
        spent.append(eps_round)
        self.round_log_.append((ord_, i, int(beta), chosen))

    def _draw_nodes(self, i, adj, pairs, s_pair, q1, best_S, beta, eps1, sepsets, rng):
        """Alg. 4 lines 11–15: β̂ draws without replacement, each by the exponential mechanism at ε1/β̂ — over the
        pairs (j, S) when the separating sets are released privately (``orient``), else over the nodes by q1."""
        chosen: List[int] = []
        if beta == 0:
            return chosen
        eps_draw = _even_share(eps1, beta)  # β̂ draws charge <= ε1 exactly
        if self.orient and not self.paper_faithful:
            cand = list(range(len(pairs)))
            for _ in range(beta):
                t = cand[exponential_mechanism(s_pair[cand], 1.0, eps_draw, random_state=rng)]
                j, S = pairs[t]
                chosen.append(j)
                sepsets[frozenset((i, j))] = tuple(sorted(S))
                cand = [c for c in cand if pairs[c][0] != j]
            return chosen
        cand = list(range(len(adj)))
        for _ in range(beta):
            a = cand[exponential_mechanism(q1[cand], 1.0, eps_draw, random_state=rng)]
            chosen.append(adj[a])
            cand.remove(a)
            if self.paper_faithful:
                sepsets[frozenset((i, adj[a]))] = best_S[adj[a]]
        return chosen


def _orient_with_fresh_tests(A, tests: _Tests):
    """Thesis Alg. 2 lines 16–21 as written: collider i → k ← j iff i, j are NOT independent given k on the raw
    data (not private), then Meek's rules (via orient_cpdag with synthetic sepsets)."""
    p = A.shape[0]
    sep = {}
    for k in range(p):
        for i, j in combinations(np.flatnonzero(A[k]).tolist(), 2):
            if A[i, j]:
                continue
            key = (min(i, j), max(i, j), k)
            dependent = tests.g2([key])[0] > chi2_critical(tests.alpha, tests.df(key))
            prev = sep.get(frozenset((i, j)), ())
            sep[frozenset((i, j))] = prev if dependent else tuple(sorted(set(prev) | {k}))
    return orient_cpdag(A, sep)
