"""A sensitivity-1 "records to flip the G² test" score that is computable for any table (the thesis' Eq. 4.1 idea).

Neighbouring relation: replace one record (n public). T is the contingency table N[z, b, a] of a test
i ⟂ j | S; the test accepts independence iff G²(T) <= c (c = χ²_{df,1−α}, public).

Construction (a lower bound on the exact distance to the other side of the test, with sensitivity 1)
---------------------------------------------------------------------------------------------------
1. One removal from cell (z, a, b) with counts o = N_zab >= 1, u = N_za, v = N_zb, w = N_z changes G²/2 by
   R = [g(w) − g(v)] − [g(u) − g(o)],  g(m) = m ln m − (m−1) ln(m−1)  (see privpc.py). Writing
   g(m) = ln m + e(m) with e(m) = (m−1) ln(m/(m−1)) ∈ [1 − 1/m, 1) gives R = ln(w o / (u v)) + e(w) − e(v) − e(u)
   + e(o), and e(w) − e(v) ∈ (−1/w, 1/v), e(o) − e(u) ∈ (−1/o, 1/u), all <= 1/o because o <= u, v, w. So
   |R| <= |ln(w o / (u v))| + 2/o, and always |R| <= g(n).
2. Let box_r(T) be the tables whose every count (cells, both margins per stratum, stratum totals) is within r of
   T's. A table at replacement distance i from T lies in box_i(T); one replacement from it passes through an
   (n−1)-record table and ends at a table, both in box_{i+1}(T), and the addition is the reverse of a removal from
   the end table. So G² moves by at most
       B_i(T) = 4 · max over all cells of min( g(n), sup_{box_{i+1}} |ln(w o/(u v))| + 2/o_lo ),
   the sup taken at the box's extreme counts (lower ends clamped at 1: a removal needs o >= 1, and u, v, w >= o).
   Hence |G²(T'') − G²(T)| <= Σ_{i<k} B_i(T) for every T'' within k replacements of T.
3. Score. Independent side (G² <= c): L(T) = min{k >= 1 : G² + Σ_{i<k} B_i > c}, s = L − 1 >= 0. Dependent side:
   L(T) = min{k >= 1 : G² − Σ_{i<k} B_i <= c}, s = −L <= −1. L is at most the exact flip distance.
4. Sensitivity 1. For neighbours T, T', box_r(T') ⊆ box_{r+1}(T), and B_i is a sup over a box, so
   B_i(T') <= B_{i+1}(T); with |G²(T') − G²(T)| <= B_0(T) this gives G²(T') + Σ_{i<k−1} B_i(T') <=
   G² (T) + Σ_{i<k} B_i(T), so on the same side L(T') >= L(T) − 1 (and symmetrically). Across the boundary the
   neighbour itself is within one step, so L(T) = L(T') = 1 and the scores are 0 and −1.
   tests/test_causal.py checks |s(T) − s(T')| <= 1 by enumerating every dataset and replacement on small tables.

Compared with the margin score (c − G²)/Δ_G — which uses the worst-case B = Δ_G for every step — the local bound
is orders of magnitude larger on well-populated tables (near independence ln(wo/(uv)) is ≈ 0), which is what
makes the exponential mechanism informative at small ε.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["distance_score", "step_bounds"]


def _g(n: int) -> float:
    return n * math.log(n) - ((n - 1) * math.log(n - 1) if n > 1 else 0.0)


def step_bounds(N: np.ndarray, n: int, radii: np.ndarray) -> np.ndarray:
    """B_i for i = radii − 1 (radii = i + 1 >= 1): the per-replacement bound on |ΔG²| over box_{radius}(T)."""
    N = np.asarray(N, dtype=np.float64)
    o = N.ravel()
    u = np.broadcast_to(N.sum(axis=1, keepdims=True), N.shape).ravel()  # N_za
    v = np.broadcast_to(N.sum(axis=2, keepdims=True), N.shape).ravel()  # N_zb
    w = np.broadcast_to(N.sum(axis=(1, 2), keepdims=True), N.shape).ravel()  # N_z
    r = np.asarray(radii, dtype=np.float64)[:, None]
    cap = _g(n)

    def lo(x):
        return np.maximum(x - r, 1.0)

    def hi(x):
        return np.minimum(x + r, float(n))

    t1 = np.log(hi(w) * hi(o) / (lo(u) * lo(v)))
    t2 = np.log(hi(u) * hi(v) / (lo(w) * lo(o)))
    rem = np.minimum(cap, np.maximum(t1, t2) + 2.0 / lo(o))
    return 4.0 * rem.max(axis=1)


def distance_score(N: np.ndarray, g2: float, crit: float, n: int, *, max_steps: int = 1 << 16) -> int:
    """The signed sensitivity-1 score s of the module docstring (s >= 0 ⇔ G² <= crit ⇔ independence accepted).

    ``N`` is the (Z, B, A) table with n records, ``g2`` its G², ``crit`` the public critical value. The score is
    clamped to [−max_steps, max_steps] wherever L is found (clamping keeps sensitivity 1; a table whose L is found
    in the search's last chunk must not score beyond the clamp its neighbour gets when L lies past the search)."""
    independent = g2 <= crit
    gap = (crit - g2) if independent else (g2 - crit)  # how far G² must move: > gap (indep) / >= gap (dep)
    cap = 4.0 * _g(n)
    k0, total, chunk = 0, 0.0, 64
    while k0 < max_steps:
        radii = np.arange(k0 + 1, k0 + chunk + 1)
        B = step_bounds(N, n, radii)
        csum = total + np.cumsum(B)
        hit = np.flatnonzero(csum > gap) if independent else np.flatnonzero(csum >= gap)
        if hit.size:
            return _clamped(k0 + int(hit[0]) + 1, independent, max_steps)
        total = float(csum[-1])
        k0 += chunk
        if B[-1] >= cap:  # saturated: every further step adds exactly cap
            rest = gap - total
            extra = math.floor(rest / cap) + 1 if independent else max(1, math.ceil(rest / cap))
            return _clamped(k0 + extra, independent, max_steps)
        chunk = min(chunk * 2, 4096)
    return max_steps if independent else -max_steps  # L > k0 >= max_steps: the clamp of either side


def _clamped(L: int, independent: bool, max_steps: int) -> int:
    """The score of L (L − 1 or −L) clamped to [−max_steps, max_steps]."""
    return min(L - 1, max_steps) if independent else max(-L, -max_steps)
