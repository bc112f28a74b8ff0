"""The exact replace-one sensitivities of what the functional mechanism releases, over a declared ``FeatureDomain``.

Functional mechanism (FM) release. Per row, the degree-2 Taylor objective of the logistic loss contributes, in
monomial form,

    φ(x, t) = [ t·x ;  γ·m(x) ],   m(x) = (x_1², ..., x_d², 2·x_j·x_k for j < k),

with t the row's linear multiplier (½ − y for the logistic loss, plus a fairness offset in [lo, hi] for PFLR)
and γ = f₁''(0)/2 = 1/8. ``functional_sensitivity`` bounds max ||φ(x, t) − φ(x', t')|| over x, x' in K and t, t'
in T = ∪_i [t_i + lo, t_i + hi]; the proofs and the slack are in the method docstrings. Useful identities:
||m(x)||_1 = ||x||_1², and ||m(x) − m(x')||_1 = Σ_{j,k} |x_j x_k − x'_j x'_k| (sum over ordered pairs).

``FunctionalSensitivity`` is a mixin of ``FeatureDomain`` (it reads the domain's bounds, groups and caps); the
proofs and the slack are in the method docstrings.
"""

from __future__ import annotations

import math
from typing import Tuple

import numpy as np


def _memoized(method):
    """Cache a pure method of the (immutable) domain by its arguments (arrays become tuples).

    Sensitivities depend only on the domain and the multipliers, never on data, so an estimator refitting on the
    same domain pays for them once.
    """

    def key_part(v):
        if isinstance(v, (list, tuple, np.ndarray)):
            return tuple(float(x) for x in np.asarray(v, dtype=np.float64).ravel())
        return v

    def wrapper(self, *args, **kwargs):
        try:
            key = (method.__name__,) + tuple(key_part(a) for a in args) + tuple(
                (k, key_part(v)) for k, v in sorted(kwargs.items())
            )
            return self._memo[key]
        except KeyError:
            pass
        except (TypeError, ValueError):  # an odd argument: no caching, the method validates it
            return method(self, *args, **kwargs)
        out = method(self, *args, **kwargs)
        self._memo[key] = out
        return out

    wrapper.__name__ = method.__name__
    wrapper.__qualname__ = method.__qualname__
    wrapper.__doc__ = method.__doc__
    return wrapper


def _check_norm(norm: str) -> str:
    if norm not in ("l1", "l2"):
        raise ValueError(f"norm must be 'l1' or 'l2', got {norm!r}")
    return norm


def _multiplier_endpoints(linear_multipliers, linear_shift) -> np.ndarray:
    """Endpoints of T = ∪_i [t_i + lo, t_i + hi]; a convex function of t is maximal over T at one of them."""
    t = np.atleast_1d(np.asarray(linear_multipliers, dtype=np.float64))
    if t.ndim != 1 or t.size == 0 or not np.all(np.isfinite(t)):
        raise ValueError(f"linear_multipliers must be a non-empty list of finite numbers, got {linear_multipliers!r}")
    shift = np.asarray(linear_shift, dtype=np.float64)
    if shift.shape != (2,) or not np.all(np.isfinite(shift)) or shift[0] > shift[1]:
        raise ValueError(f"linear_shift must be a pair (lo, hi) of finite numbers with lo <= hi, got {linear_shift!r}")
    return np.unique(np.concatenate([t + shift[0], t + shift[1]]))


def _check_gamma(quadratic_coef) -> float:
    g = float(quadratic_coef)
    if not np.isfinite(g):
        raise ValueError(f"quadratic_coef must be finite, got {quadratic_coef!r}")
    return abs(g)


class FunctionalSensitivity:
    """Sensitivity bounds of the functional-mechanism release over the domain (mixed into ``FeatureDomain``)."""

    def _linear_block(self, norm: str, ends: np.ndarray) -> float:
        """max ||t·x − t'·x'|| over x, x' in K, t, t' in T: exact without caps.

        For fixed (t, t') the norm is convex in (x, x'), so its max is at extreme points of conv(K) × conv(K); without
        caps those are products of per-column vertices (numeric: l or u; group: 0 or e_a), and ||·||_1 and ||·||_2²
        separate over columns/groups, so each is maximized on its own. It is convex in (t, t') too: endpoints of T.
        With caps the value is also <= (|t| + |t'|)·max||x|| (triangle inequality); the smaller bound is used.
        """
        num = self._numeric
        lo, up = self._lower[num], self._upper[num]
        sizes = np.array([len(g) for g in self._groups])
        cap_norm = None
        if self._capped:
            cap_norm = self.max_l1() if norm == "l1" else self.max_l2()
        best = 0.0
        for t in ends:
            for tp in ends:
                combos = np.stack([t * a - tp * b for a in (lo, up) for b in (lo, up)])  # (4, n_numeric)
                if norm == "l1":
                    val = np.abs(combos).max(axis=0).sum() if num.size else 0.0
                    pair = max(abs(t) + abs(tp), abs(t - tp))
                    single = max(abs(t), abs(tp), abs(t - tp))
                    val += np.where(sizes >= 2, pair, single).sum() if sizes.size else 0.0
                else:
                    val = np.square(combos).max(axis=0).sum() if num.size else 0.0
                    pair = max(t * t + tp * tp, (t - tp) ** 2)
                    single = max(t * t, tp * tp, (t - tp) ** 2)
                    val += np.where(sizes >= 2, pair, single).sum() if sizes.size else 0.0
                    val = math.sqrt(val)
                if cap_norm is not None:
                    val = min(val, (abs(t) + abs(tp)) * cap_norm)
                best = max(best, float(val))
        return best

    def _pair_max_vector(self) -> np.ndarray:
        """w: per column an upper bound of max(|x_j|, |x'_j|) with a group's w having two 1s (one if a singleton)."""
        w = np.zeros(self.d)
        w[self._numeric] = self._amax[self._numeric]
        for g in self._groups:
            w[list(g[:2])] = 1.0
        return w

    def _quadratic_block(self, norm: str) -> float:
        """max ||m(x) − m(x')|| over x, x' in K (without γ): a rigorous upper bound.

        S = x xᵀ − x' x'ᵀ; ||m(x) − m(x')||_1 = Σ_{jk} |S_jk| and ||m(x) − m(x')||_2² = 2||S||_F² − Σ_j S_jj².
        L1: with u = (x + x')/2, v = (x − x')/2, S = 2(u vᵀ + v uᵀ), so Σ|S_jk| <= 4||u||_1||v||_1 <=
            (||u||_1 + ||v||_1)² = (Σ_j max(|x_j|, |x'_j|))² <= (Σ_j w_j)²; also <= ||x||_1² + ||x'||_1² <= 2·max_l1².
            Exact on boxes containing 0 (x = argmax, x' = 0).
        L2: ||S||_F² = ||x||⁴ + ||x'||⁴ − 2(xᵀx')² <= 2·max_l2⁴, so the norm is <= 2·max_l2² (exact on the unit ball,
            d >= 2). On non-negative domains also |S_jk| <= w_j w_k, so the norm is <= ||m(w)||_2 (exact on
            non-negative boxes containing 0).
        """
        w = self._pair_max_vector()
        if norm == "l1":
            m1 = self.max_l1()
            return float(min(2.0 * m1 * m1, w.sum() ** 2))
        m2 = self.max_l2()
        val = 2.0 * m2 * m2
        if self._nonnegative:
            w2 = np.square(w)
            val = min(val, math.sqrt(max(2.0 * w2.sum() ** 2 - np.square(w2).sum(), 0.0)))
        return float(val)

    def _joint_l1(self, ends: np.ndarray, gamma: float) -> float:
        """Joint L1 bound on non-negative, cap-free domains (exact when the maximizer is a 0/1-type vertex).

        Write x_j = m_j + α_j, x'_j = m_j + β_j with m_j = min(x_j, x'_j) (so α_j β_j = 0) and let α, β, m be their
        sums. Then Σ_j |t x_j − t' x'_j| <= |t − t'| m + |t| α + |t'| β, and since min(x_j x_k, x'_j x'_k) >= m_j m_k,
        Σ_{jk} |x_j x_k − x'_j x'_k| = ||x||_1² + ||x'||_1² − 2Σ_{jk} min(·) <= α² + β² + 2m(α + β). Their sum
        J(α, β, m) is non-decreasing in α, β, m. Feasible sums: a numeric column adds m_j >= l_j and α_j + β_j + m_j <=
        u_j; a group of size >= 2 adds at most (1, 1, 0) ("x, x' pick different columns") or (0, 0, 1) ("same column");
        a singleton group is a [0, 1] column. Relaxing the numeric split to any (A, B, M) >= 0 with A + B + M = Σ(u − l)
        gives an upper bound. J restricted to that simplex has a saddle in the interior (Hessian eigenvalues −6γ, 2γ)
        and is convex along A + B = const, so its max is at a vertex or at the stationary point of the edge B = 0 or
        A = 0. Equality holds when every column is of one pure type (as at 0/1 vertices).
        """
        num = self._numeric
        sizes = [len(g) for g in self._groups]
        g2 = sum(1 for s in sizes if s >= 2)
        n_free = float((self._upper[num] - self._lower[num]).sum()) + sum(1 for s in sizes if s == 1)
        m_fixed = float(self._lower[num].sum())
        best = 0.0
        for t in ends:
            for tp in ends:
                cm, ca, cb = abs(t - tp), abs(t), abs(tp)

                def J(al, be, m, cm=cm, ca=ca, cb=cb):
                    return cm * m + ca * al + cb * be + gamma * (al * al + be * be + 2.0 * m * (al + be))

                for k in range(g2 + 1):
                    a0, b0, m0 = float(k), float(k), m_fixed + (g2 - k)
                    cands = [(0.0, 0.0), (n_free, 0.0), (0.0, n_free)]
                    if gamma > 0:
                        a_star = m0 + n_free - b0 + (ca - cm) / (2.0 * gamma)
                        b_star = m0 + n_free - a0 + (cb - cm) / (2.0 * gamma)
                        cands.append((min(max(a_star, 0.0), n_free), 0.0))
                        cands.append((0.0, min(max(b_star, 0.0), n_free)))
                    for A, B in cands:
                        best = max(best, J(a0 + A, b0 + B, m0 + n_free - A - B))
        return float(best)

    @_memoized
    def functional_sensitivity_blocks(
        self,
        *,
        norm: str = "l1",
        linear_multipliers=(0.5, -0.5),
        quadratic_coef: float = 0.125,
        linear_shift=(0.0, 0.0),
    ) -> Tuple[float, float]:
        """(Δ of the linear block t·x, Δ of the quadratic block γ·m(x)), each its own replace-one max (see
        ``_linear_block`` / ``_quadratic_block``). Each is the sensitivity of releasing that block alone."""
        _check_norm(norm)
        ends = _multiplier_endpoints(linear_multipliers, linear_shift)
        gamma = _check_gamma(quadratic_coef)
        return self._linear_block(norm, ends), gamma * self._quadratic_block(norm)

    @_memoized
    def functional_sensitivity(
        self,
        *,
        norm: str = "l1",
        linear_multipliers=(0.5, -0.5),
        quadratic_coef: float = 0.125,
        linear_shift=(0.0, 0.0),
    ) -> float:
        """Replace-one sensitivity max ||φ(x, t) − φ(x', t')|| of the FM coefficient vector (L1 or L2).

        t, t' range over T = ∪_i [t_i + lo, t_i + hi] (linear_multipliers t_i, linear_shift (lo, hi)); γ =
        quadratic_coef. Upper bounds used (the smallest applies):
        - blocks: Δ_1 <= Δ_lin + Δ_quad, Δ_2 <= sqrt(Δ_lin² + Δ_quad²) (each block maximized separately);
        - L1 on non-negative cap-free domains: the joint bound of ``_joint_l1``.
        Slack: L1 on unit_box(d) is exact (d²/8 + d/2 + 1/2 for d >= 2; 1 for d = 1), half the paper's d²/4 + d;
        on box + one-hot domains it equals the brute-force maximum in the tests. L2 is the block bound: exact per
        block, at most a factor sqrt(2) above the joint maximum (sqrt(a² + b²) <= sqrt(2)·max(a, b)).
        The multipliers must not depend on other rows' data (e.g. PFLR's |s − s̄| needs a private or public s̄).
        """
        _check_norm(norm)
        ends = _multiplier_endpoints(linear_multipliers, linear_shift)
        gamma = _check_gamma(quadratic_coef)
        lin = self._linear_block(norm, ends)
        quad = gamma * self._quadratic_block(norm)
        if norm == "l2":
            return float(math.hypot(lin, quad))
        val = lin + quad
        if self._nonnegative and not self._capped:
            val = min(val, self._joint_l1(ends, gamma))
        return float(val)

    @_memoized
    def functional_sensitivity_split(
        self,
        column: int,
        *,
        norm: str = "l1",
        linear_multipliers=(0.5, -0.5),
        quadratic_coef: float = 0.125,
        linear_shift=(0.0, 0.0),
    ) -> Tuple[float, float]:
        """(Δ for Φ_s, Δ for Φ_n): coefficients of monomials involving w_s (t·x_s, γ·x_s², 2γ·x_s·x_k) and the rest.

        Φ_n depends only on x without column s, so its Δ is ``without_column(s).functional_sensitivity`` (valid: that
        domain contains the projection). For Φ_s, with a_s = max|x_s|, D_s = max |x_s² − x'_s²| over the interval,
        and k ranging over the columns outside s's own group (x_s x_k = 0 inside it):
        L1: |t x_s − t' x'_s| + γ(D_s + 2 Σ_k |x_s x_k − x'_s x'_k|), the sum <= 2 a_s R_1 (R_1 = max ||x_rest||_1),
            and on non-negative domains <= a_s Σ_k w_k;
        L2: sqrt(lin_s² + γ²(D_s² + 4 (Σ_k ...)²)) with the cross part <= 2 a_s R_2, or <= a_s ||w_rest||_2 when
            non-negative. Each part (linear, quadratic) is exact on [0, 1]^d; their sum carries the block slack
            (e.g. L1 on [0, 1]^6: 2.375 against the exact 2.25).
        """
        _check_norm(norm)
        s = self._check_column(column)
        ends = _multiplier_endpoints(linear_multipliers, linear_shift)
        gamma = _check_gamma(quadratic_coef)
        if self.d == 1:
            return self.functional_sensitivity(
                norm=norm, linear_multipliers=linear_multipliers, quadratic_coef=quadratic_coef,
                linear_shift=linear_shift,
            ), 0.0
        rest_cols = set(range(self.d)) - {s}
        for g in self._groups:
            if s in g:
                rest_cols -= set(g)
        rest_cols = sorted(rest_cols)
        lo, up = self._lower[s], self._upper[s]
        lin = max(abs(t * a - tp * b) for t in ends for tp in ends for a in (lo, up) for b in (lo, up))
        a_s, amin_s = self._amax[s], self._amin[s]
        D_s = a_s * a_s - amin_s * amin_s
        if rest_cols:
            rest = self._restrict(rest_cols)
            w = rest._pair_max_vector()
            if norm == "l1":
                cross = 2.0 * a_s * rest.max_l1()
                if self._nonnegative:
                    cross = min(cross, a_s * w.sum())
            else:
                cross = 2.0 * a_s * rest.max_l2()
                if self._nonnegative:
                    cross = min(cross, a_s * math.sqrt(np.square(w).sum()))
        else:
            cross = 0.0
        if norm == "l1":
            d_s = lin + gamma * (D_s + 2.0 * cross)
        else:
            d_s = math.hypot(lin, gamma * math.hypot(D_s, 2.0 * cross))
        d_n = self.without_column(s).functional_sensitivity(
            norm=norm, linear_multipliers=linear_multipliers, quadratic_coef=quadratic_coef, linear_shift=linear_shift
        )
        return float(d_s), float(d_n)

    def _restrict(self, cols) -> FunctionalSensitivity:
        cols = list(cols)
        pos = {j: i for i, j in enumerate(cols)}
        groups = [tuple(pos[j] for j in g if j in pos) for g in self._groups]
        return type(self)(
            self._lower[cols], self._upper[cols], one_hot_groups=[g for g in groups if g],
            l1_cap=self._l1_cap, l2_cap=self._l2_cap,
        )

    @_memoized
    def group_sums_sensitivity(self, norm: str = "l1", *, include_counts: bool = True) -> float:
        """Replace-one sensitivity of releasing (Σ_{i in group k} x_i for every k, and the group counts n_k).

        A replaced row either stays in its group (change x − x'; counts unchanged) or moves from group g to g'
        (change −x in g's block and +x' in g''s; counts −1, +1). So Δ = max(max||x − x'||, N(||x||, ||x'||, 1, 1)):
        L1: max(Δ_same, 2·max_l1 + 2); L2: max(Δ_same, sqrt(2·max_l2² + 2)) (without counts: drop the 2 / the +2).
        Exact (both maxima are attained). Use it to release private group means (PFLR*'s μ, s̄).
        """
        _check_norm(norm)
        same = self._linear_block(norm, np.array([1.0]))
        c = 1.0 if include_counts else 0.0
        if norm == "l1":
            moved = 2.0 * self.max_l1() + 2.0 * c
        else:
            moved = math.sqrt(2.0 * self.max_l2() ** 2 + 2.0 * c)
        return float(max(same, moved))


def _waterfill_l1(amin: np.ndarray, amax: np.ndarray, budget: float) -> float:
    """max Σ v over amin <= v <= amax, Σ v² <= budget (v_j = clip(λ, amin_j, amax_j)); an upper estimate in λ."""
    if amax.size == 0:
        return 0.0
    if np.square(amax).sum() <= budget:
        return float(amax.sum())
    lo, hi = 0.0, float(amax.max())
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if np.square(np.clip(mid, amin, amax)).sum() > budget:
            hi = mid
        else:
            lo = mid
    return float(np.clip(hi, amin, amax).sum())


def _greedy_l2sq(amax: np.ndarray, budget: float) -> float:
    """max Σ v² over 0 <= v <= amax, Σ v <= budget: fill the largest amax first."""
    total, left = 0.0, max(budget, 0.0)
    for a in np.sort(amax)[::-1]:
        take = min(float(a), left)
        total += take * take
        left -= take
        if left <= 0:
            break
    return total
