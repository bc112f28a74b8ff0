"""Rényi DP (RDP) of the Gaussian, Laplace and Poisson-subsampled Gaussian mechanisms, RDP -> (ε, δ), and an
accountant over typed events.

Every RDP number here is computed with NumPy and ``math`` only and reproduces Google ``dp_accounting`` 0.6
(``RdpAccountant``, ``compute_epsilon``) to ~1e-12 relative; tests hold it to 1e-6 against the installed package
or stored golden values. All RDP values are per order α > 1, in nats. The subsampled Gaussian's curve is computed
for all orders at once (one ragged binomial sum for the integer orders, one matrix of series terms for the
fractional ones): no Python loop over orders.

Neighbouring relation: the RDP of the subsampled Gaussian holds for add/remove-one neighbours (Poisson sampling,
as dp_accounting's ``RdpAccountant`` and Opacus); for REPLACE_ONE use the PLD accountant. The unsampled Gaussian
and Laplace RDP are given for both relations (replace-one doubles the shift, see ``events``).
"""

from __future__ import annotations

import math
from typing import Dict, Sequence, Tuple

import numpy as np

from .._validation import check_delta, check_positive
from ._common import check_count as _check_count
from ._common import check_orders as _check_orders
from ._common import check_sample_rate as _check_sample_rate
from ._special import log_erfc
from .events import (
    DpEvent,
    EventLog,
    GaussianEvent,
    LaplaceEvent,
    NeighbouringRelation,
    PoissonSampledEvent,
    SelfComposedEvent,
    flatten_event,
)

__all__ = [
    "DEFAULT_RDP_ORDERS",
    "rdp_gaussian",
    "rdp_laplace",
    "rdp_subsampled_gaussian",
    "rdp_of_event",
    "epsilon_of_rdp_event",
    "rdp_to_epsilon",
    "rdp_to_delta",
    "RDPAccountant",
]

#: The RDP orders of dp_accounting's ``RdpAccountant`` (``dp_accounting.rdp.rdp_privacy_accountant``):
#: 1.1, 1.2, ..., 10.9, then the integers 11..63, then 128, 256, 512, 1024.
DEFAULT_RDP_ORDERS: Tuple[float, ...] = tuple(
    [1 + x / 10.0 for x in range(1, 100)] + [float(a) for a in range(11, 64)] + [128.0, 256.0, 512.0, 1024.0]
)

# ---------------------------------------------------------------------------------------------------------------
# RDP of single mechanisms
# ---------------------------------------------------------------------------------------------------------------


def rdp_gaussian(noise_multiplier: float, orders: Sequence[float] = DEFAULT_RDP_ORDERS) -> np.ndarray:
    """RDP of the Gaussian mechanism with noise std σ·Δ₂ (σ = ``noise_multiplier``): ε(α) = α / (2σ²).

    Parameters
    ----------
    noise_multiplier : float
        σ > 0.
    orders : sequence of float
        RDP orders α > 1.

    Returns
    -------
    ndarray
        ε(α) per order (nats), for neighbours whose outputs' means differ by at most Δ₂.
    """
    sigma = check_positive(noise_multiplier, "noise_multiplier")
    a = _check_orders(orders)
    return a / (2.0 * sigma * sigma)


def _laplace_rdp(eps: float, a: np.ndarray) -> np.ndarray:
    # Mironov 2017, Prop. 6, for Laplace noise of scale b = Δ₁/eps:
    #   ε(α) = 1/(α−1) · log( α/(2α−1) e^{(α−1)eps} + (α−1)/(2α−1) e^{−α eps} )
    #        = eps + log1p( (α−1) expm1((1−2α) eps) / (2α−1) ) / (α−1)   (stable form; dp_accounting's)
    c = np.expm1(eps * (1.0 - 2.0 * a)) / (2.0 * a - 1.0)
    x = a - 1.0
    out = eps + np.log1p(x * c) / x
    small = a < 1.1
    if np.any(small):
        # log1p(c·x)/x for small x = α−1: the series c Σ_{k>=1} (−c x)^{k−1}/k, |c x| <= 0.1.
        v = -c[small] * x[small]
        k = np.arange(1, 100, dtype=np.float64)
        out[small] = eps + c[small] * np.sum(v[:, None] ** (k - 1.0) / k, axis=1)
    return out


def rdp_laplace(noise_multiplier: float, orders: Sequence[float] = DEFAULT_RDP_ORDERS) -> np.ndarray:
    """RDP of the Laplace mechanism with scale b = ``noise_multiplier``·Δ₁ (so it is 1/noise_multiplier-DP).

    Parameters
    ----------
    noise_multiplier : float
        b > 0 (scale in units of Δ₁).
    orders : sequence of float
        RDP orders α > 1.

    Returns
    -------
    ndarray
        ε(α) per order (add/remove neighbours, or any relation under which Δ₁ is the L1 sensitivity).

    Notes
    -----
    Exact (Mironov 2017, Prop. 6) with ε₀ = 1/noise_multiplier:
    ε(α) = 1/(α−1) log( α/(2α−1) e^{(α−1)ε₀} + (α−1)/(2α−1) e^{−αε₀} ), which tends to ε₀ as α → ∞.
    """
    b = check_positive(noise_multiplier, "noise_multiplier")
    a = _check_orders(orders)
    return _laplace_rdp(1.0 / b, a)


_MAX_SERIES_TERMS = 1000
_TERM_SCHEDULE = (32, 128, _MAX_SERIES_TERMS)


class _SubsampledGaussianCurve:
    """RDP curve of the Poisson-subsampled Gaussian at fixed (q, orders), evaluated for many σ.

    Everything that does not depend on σ (binomial coefficients, powers of q and 1−q, the ragged layout of the
    integer orders' sums) is computed once; ``__call__(σ)`` then costs a few vectorised passes.

    Integer α (Mironov, Talwar, Zhang 2019, Sec. 3.3): A_α = Σ_{i=0}^{α} C(α,i) q^i (1−q)^{α−i} e^{(i²−i)/(2σ²)},
    summed in log space per order (``np.maximum.reduceat`` / ``np.add.reduceat`` over one flat array).

    Fractional α: A_α split at z0 = σ² ln(1/q − 1) + 1/2 into two series; term i of each is
    |C(α,i)| q^.. (1−q)^.. e^{(m²−m)/(2σ²)} · ½ erfc(..). Summing absolute values (as dp_accounting does)
    over-estimates A_α, so the bound stays valid. The sum stops, as dp_accounting's does, at the first i where
    both series decrease and the newest terms are below e^−30 of the running total; an order whose series has not
    stopped within 1000 terms gets +inf (it is then useless, not wrong). The first 32 terms of every fractional
    order are computed in one matrix; orders that need more get 128, then 1000.
    """

    def __init__(self, q: float, orders: np.ndarray):
        self.q = q
        self.orders = orders
        is_int = np.array([float(a).is_integer() for a in orders])
        self.int_idx = np.flatnonzero(is_int)
        self.frac_idx = np.flatnonzero(~is_int)
        log_q, log_1mq = math.log(q), math.log1p(-q)
        self.log_q, self.log_1mq = log_q, log_1mq
        # integer orders: flat ragged layout
        ints = orders[self.int_idx].astype(np.int64)
        if ints.size:
            lens = ints + 1
            self.offsets = np.concatenate([[0], np.cumsum(lens)[:-1]])
            alpha_rep = np.repeat(ints, lens)
            i = np.arange(int(lens.sum())) - np.repeat(self.offsets, lens)
            lf = _log_factorials(int(ints.max()))
            self.int_base = (
                lf[alpha_rep] - lf[i] - lf[alpha_rep - i] + i * log_q + (alpha_rep - i) * log_1mq
            )
            self.int_quad = (i * i - i).astype(np.float64)
            self.lens = lens
        self.frac_alpha = orders[self.frac_idx]
        self._frac_cache: Dict[int, Tuple[np.ndarray, ...]] = {}
        self._floor_pos = None

    def floor_positions(self) -> np.ndarray:
        """For each fractional order, the position (within ``int_idx``) of the largest integer order below it,
        or −1 if there is none."""
        if self._floor_pos is None:
            ints = self.orders[self.int_idx]
            order = np.argsort(ints, kind="stable")
            pos = np.searchsorted(ints[order], self.frac_alpha, side="right") - 1
            self._floor_pos = np.where(pos >= 0, order[np.maximum(pos, 0)], -1)
        return self._floor_pos

    def _frac_parts(self, rows: np.ndarray, n_terms: int):
        """σ-independent parts of the fractional series for ``frac_alpha[rows]`` (computed once per n_terms for
        all fractional orders, then sliced)."""
        if n_terms > 128 and rows.shape[0] < self.frac_alpha.shape[0]:
            # the long series is needed by few orders (small σ): build it for those rows only, uncached
            return self._frac_parts_for(self.frac_alpha[rows], n_terms)
        full = self._frac_cache.get(n_terms)
        if full is None:
            full = self._frac_cache[n_terms] = self._frac_parts_for(self.frac_alpha, n_terms)
        i, j, base0, base1, quad0, quad1 = full
        return i, j[rows], base0[rows], base1[rows], quad0, quad1[rows]

    def _frac_parts_for(self, alpha: np.ndarray, n_terms: int):
        i = np.arange(n_terms, dtype=np.float64)[None, :]
        a = alpha[:, None]
        j = a - i
        # log |C(α, i)| by the recurrence |C(α, i+1)| = |C(α, i)| |α − i| / (i + 1)
        steps = np.log(np.abs(a - i[:, :-1])) - np.log(i[:, :-1] + 1.0)
        log_coef = np.concatenate([np.zeros((alpha.shape[0], 1)), np.cumsum(steps, axis=1)], axis=1)
        base0 = log_coef + i * self.log_q + j * self.log_1mq + math.log(0.5)
        base1 = log_coef + j * self.log_q + i * self.log_1mq + math.log(0.5)
        return i, j, base0, base1, i * i - i, j * j - j

    def _frac_log_a(self, sigma: float, rows: np.ndarray, n_terms: int):
        i, j, base0, base1, quad0, quad1 = self._frac_parts(rows, n_terms)
        two_s2 = 2.0 * sigma**2
        z0 = sigma**2 * math.log(1.0 / self.q - 1.0) + 0.5
        scale = math.sqrt(2.0) * sigma
        # one log_erfc call for both series; the first series' erfc argument depends on i only
        k = i.shape[1]
        le = log_erfc(np.concatenate([(i[0] - z0) / scale, ((z0 - j) / scale).ravel()]))
        s0 = base0 + quad0 / two_s2 + le[:k]
        s1 = base1 + quad1 / two_s2 + le[k:].reshape(j.shape)
        total = np.logaddexp(np.logaddexp.accumulate(s0, axis=1), np.logaddexp.accumulate(s1, axis=1))
        stop = (
            (s0[:, 1:] < s0[:, :-1])
            & (s1[:, 1:] < s1[:, :-1])
            & (np.maximum(s0[:, 1:], s1[:, 1:]) < total[:, 1:] - 30.0)
        )
        found = stop.any(axis=1)
        first = np.argmax(stop, axis=1) + 1
        out = np.where(found, total[np.arange(rows.shape[0]), first], np.inf)
        return out, found

    def integer_part(self, sigma: float) -> np.ndarray:
        """ε(α) at the integer orders (``self.int_idx``)."""
        terms = self.int_base + self.int_quad / (2.0 * sigma**2)
        m = np.maximum.reduceat(terms, self.offsets)
        s = np.add.reduceat(np.exp(terms - np.repeat(m, self.lens)), self.offsets)
        return (m + np.log(s)) / (self.orders[self.int_idx] - 1.0)

    def fractional_part(self, sigma: float, rows=None) -> np.ndarray:
        """ε(α) at the fractional orders ``self.frac_alpha[rows]`` (all by default). The series of all rows are
        evaluated together for 32 terms, then 128, then 1000 for the rows that have not stopped yet."""
        rows = np.arange(self.frac_alpha.shape[0]) if rows is None else np.asarray(rows)
        alpha = self.frac_alpha[rows]
        log_a = np.full(alpha.shape[0], np.inf)
        todo = np.arange(alpha.shape[0])
        for n_terms in _TERM_SCHEDULE:
            if todo.size == 0:
                break
            vals, found = self._frac_log_a(sigma, rows[todo], n_terms)
            log_a[todo[found]] = vals[found]
            todo = todo[~found]
        return log_a / (alpha - 1.0)

    def __call__(self, sigma: float) -> np.ndarray:
        out = np.empty_like(self.orders)
        if self.int_idx.size:
            out[self.int_idx] = self.integer_part(sigma)
        if self.frac_idx.size:
            out[self.frac_idx] = self.fractional_part(sigma)
        return out


_LOG_FACTORIALS = np.zeros(1)


def _log_factorials(n: int) -> np.ndarray:
    global _LOG_FACTORIALS
    if _LOG_FACTORIALS.shape[0] <= n:
        _LOG_FACTORIALS = np.array([math.lgamma(i + 1.0) for i in range(max(n + 1, 1025))])
    return _LOG_FACTORIALS[: n + 1]


_CURVES: Dict[Tuple[float, bytes], _SubsampledGaussianCurve] = {}


def _subsampled_gaussian_curve(q: float, orders: np.ndarray) -> _SubsampledGaussianCurve:
    key = (q, orders.tobytes())
    curve = _CURVES.get(key)
    if curve is None:
        if len(_CURVES) > 64:
            _CURVES.clear()
        curve = _CURVES[key] = _SubsampledGaussianCurve(q, orders)
    return curve


def rdp_subsampled_gaussian(
    sample_rate: float, noise_multiplier: float, orders: Sequence[float] = DEFAULT_RDP_ORDERS
) -> np.ndarray:
    """RDP of one step of the Poisson-subsampled Gaussian mechanism (each record kept independently with
    probability q = ``sample_rate``; noise std σ·Δ₂; add/remove-one neighbours).

    Parameters
    ----------
    sample_rate : float
        q in [0, 1].
    noise_multiplier : float
        σ > 0.
    orders : sequence of float
        RDP orders α > 1.

    Returns
    -------
    ndarray
        ε(α) per order, in nats (+inf where the fractional-order series does not converge).

    Notes
    -----
    ε(α) = ln(A_α)/(α−1), A_α = E_{z~N(0,σ²)}[((1−q) + q e^{(2z−1)/(2σ²)})^α] (Mironov, Talwar, Zhang 2019):
    the exact binomial sum for integer α, the two-sided erfc series for fractional α (see
    ``_SubsampledGaussianCurve``). q = 0 gives 0, q = 1 gives the Gaussian α/(2σ²).
    """
    q = _check_sample_rate(sample_rate)
    sigma = check_positive(noise_multiplier, "noise_multiplier")
    a = _check_orders(orders)
    if q == 0.0:
        return np.zeros_like(a)
    if q == 1.0:
        return a / (2.0 * sigma * sigma)
    return _subsampled_gaussian_curve(q, a)(sigma)


def rdp_of_event(
    event: DpEvent,
    orders: Sequence[float] = DEFAULT_RDP_ORDERS,
    neighbouring_relation="add_or_remove_one",
) -> np.ndarray:
    """The RDP curve of a (composed) event: RDP composes by adding curves order by order.

    Parameters
    ----------
    event : DpEvent
    orders : sequence of float
    neighbouring_relation : {"add_or_remove_one", "replace_one"}

    Returns
    -------
    ndarray
        Total ε(α) per order.

    Raises
    ------
    ValueError
        For a Poisson-sampled event under REPLACE_ONE or a Poisson-sampled Laplace (no RDP bound here; use
        ``PLDAccountant`` for the former).
    """
    a = _check_orders(orders)
    rel = NeighbouringRelation.coerce(neighbouring_relation)
    shift = 2.0 if rel is NeighbouringRelation.REPLACE_ONE else 1.0
    total = np.zeros_like(a)
    for ev, count in flatten_event(event):
        if isinstance(ev, GaussianEvent):
            curve = a * shift * shift / (2.0 * ev.noise_multiplier**2)
        elif isinstance(ev, LaplaceEvent):
            curve = _laplace_rdp(shift / ev.noise_multiplier, a)
        elif isinstance(ev, PoissonSampledEvent) and isinstance(ev.event, GaussianEvent):
            if rel is NeighbouringRelation.REPLACE_ONE:
                raise ValueError(
                    "the RDP accountant has no bound for Poisson sampling under replace-one neighbours; "
                    "use PLDAccountant(neighbouring_relation='replace_one') or method='pld'"
                )
            curve = _subsampled_gaussian_curve(ev.sample_rate, a)(ev.event.noise_multiplier)
        else:
            raise ValueError(f"the RDP accountant does not support {ev!r}; use a Gaussian inside PoissonSampledEvent")
        total = total + count * curve
    return total


# ---------------------------------------------------------------------------------------------------------------
# RDP -> (ε, δ)
# ---------------------------------------------------------------------------------------------------------------


def _check_rdp_curve(orders, rdp) -> Tuple[np.ndarray, np.ndarray]:
    a = _check_orders(orders)
    r = np.asarray(rdp, dtype=np.float64).reshape(-1)
    if r.shape != a.shape:
        raise ValueError(f"rdp must have one value per order ({a.shape[0]}), got shape {np.shape(rdp)}")
    if np.any(np.isnan(r)):
        raise ValueError("rdp contains NaN")
    return a, r


def _conversion_epsilons(a: np.ndarray, r: np.ndarray, d: float) -> np.ndarray:
    # per order: the conversion for α > 1.01, else inf (no KL route)
    eps = np.maximum(r, 0.0) + np.log1p(-1.0 / a) - np.log(d * a) / (a - 1.0)
    eps[a <= 1.01] = np.inf
    return eps


def _epsilons(a: np.ndarray, r: np.ndarray, d: float) -> np.ndarray:
    # per order: 0 if r < 0 or the KL bound δ >= sqrt(1 − e^{−r}) holds; else the conversion
    eps = _conversion_epsilons(a, r, d)
    eps[(r < 0) | (np.expm1(-np.maximum(r, 0.0)) > -d * d)] = 0.0
    return eps


def rdp_to_epsilon(orders: Sequence[float], rdp: Sequence[float], delta: float) -> Tuple[float, float]:
    """Smallest ε over the orders such that an ε(α)-RDP mechanism is (ε, δ)-DP; returns (ε, best order).

    Per order (the conversion dp_accounting 0.6 uses: Canonne, Kamath, Steinke 2020, Prop. 12 / Asoodeh et al.
    2020, eq. 20): ε = r + ln(1 − 1/α) − ln(δα)/(α − 1), used only for α > 1.01 (unstable near 1); ε = 0 when
    the KL bound δ >= sqrt(1 − e^{−r}) already holds. Ties go to the first order; ε is clipped at 0.

    Parameters
    ----------
    orders : sequence of float
        RDP orders α > 1.
    rdp : sequence of float
        ε(α) per order (nats), e.g. ``rdp_of_event(event, orders)``.
    delta : float
        In (0, 1).

    Returns
    -------
    (float, float)
        ε and the order that attains it.
    """
    a, r = _check_rdp_curve(orders, rdp)
    d = check_delta(delta, "delta")
    eps = _epsilons(a, r, d)
    best = int(np.argmin(eps))
    return max(0.0, float(eps[best])), float(a[best])


def rdp_to_delta(orders: Sequence[float], rdp: Sequence[float], epsilon: float) -> Tuple[float, float]:
    """Smallest δ over the orders such that an ε(α)-RDP mechanism is (``epsilon``, δ)-DP; returns (δ, order).

    Per order (same source as ``rdp_to_epsilon``): ln δ = min( ½ ln(1 − e^{−r}),
    (α−1)(r − ε + ln(1 − 1/α)) − ln α  [the latter for α > 1.01] ); δ is capped at 1.

    Parameters
    ----------
    orders, rdp : sequences of float
        As in ``rdp_to_epsilon``.
    epsilon : float
        >= 0.

    Returns
    -------
    (float, float)
        δ and the order that attains it.
    """
    a, r = _check_rdp_curve(orders, rdp)
    if isinstance(epsilon, (bool, np.bool_)) or not isinstance(epsilon, (int, float, np.floating, np.integer)):
        raise TypeError(f"epsilon must be a real number, got {epsilon!r}")
    eps = float(epsilon)
    if not (eps >= 0) or math.isinf(eps):
        raise ValueError(f"epsilon must be a finite number >= 0, got {epsilon!r}")
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        ld = np.where(r <= 0, -np.inf, 0.5 * np.log1p(-np.exp(-np.where(r <= 0, 1.0, r))))
        conv = (a - 1.0) * (r - eps + np.log1p(-1.0 / a)) - np.log(a)
    ld = np.where(a > 1.01, np.minimum(ld, conv), ld)
    best = int(np.argmin(ld))
    return min(math.exp(ld[best]), 1.0), float(a[best])


def epsilon_of_rdp_event(event: DpEvent, orders: Sequence[float], delta: float,
                         neighbouring_relation="add_or_remove_one") -> float:
    """``rdp_to_epsilon(orders, rdp_of_event(event, orders), delta)[0]``, computed without evaluating fractional
    orders that cannot attain the minimum (the same number, several times faster; used by the calibration).

    Notes
    -----
    Every curve here is (an upper bound on) a Rényi divergence D_α of a fixed pair of distributions, and the integer
    orders' values are exact; since D_α is non-decreasing in α, a fractional order α has total RDP
    r(α) >= r(m) for the largest integer order m <= α in ``orders``. The (ε, δ) conversion is non-decreasing in r,
    so conv(α, r(m)) is a lower bound on that order's ε; orders whose lower bound exceeds the best integer order's
    ε (plus a 1e-9 relative margin for rounding) are skipped, because they cannot be the minimum. The parts are
    summed in the same order as in ``rdp_of_event``, so the result is bit-identical.
    """
    a = _check_orders(orders)
    d = check_delta(delta, "delta")
    rel = NeighbouringRelation.coerce(neighbouring_relation)
    parts = []  # in flatten order, so the sums below associate exactly as in rdp_of_event
    n_sub = 0
    for ev, count in flatten_event(event):
        if (
            isinstance(ev, PoissonSampledEvent)
            and isinstance(ev.event, GaussianEvent)
            and rel is NeighbouringRelation.ADD_OR_REMOVE_ONE
        ):
            parts.append((_subsampled_gaussian_curve(ev.sample_rate, a), ev.event.noise_multiplier, count))
            n_sub += 1
        else:
            parts.append((None, rdp_of_event(ev, a, rel), count))
    if n_sub == 0:
        return rdp_to_epsilon(a, rdp_of_event(event, a, rel), d)[0]
    curve0 = next(p[0] for p in parts if p[0] is not None)
    int_idx, frac_idx = curve0.int_idx, curve0.frac_idx
    total_int = np.zeros(int_idx.shape[0])
    for curve, value, count in parts:
        total_int = total_int + count * (value[int_idx] if curve is None else curve.integer_part(value))
    best = float(np.min(_epsilons(a[int_idx], total_int, d))) if int_idx.size else math.inf
    if frac_idx.size:
        fa = a[frac_idx]
        floor_pos = curve0.floor_positions()
        r_floor = np.where(floor_pos >= 0, total_int[np.maximum(floor_pos, 0)], 0.0)
        lower = _epsilons(fa, np.maximum(r_floor, 0.0), d)
        keep = np.flatnonzero(lower <= best + 1e-9 * max(1.0, abs(best)))
        if keep.size:
            r = np.zeros(keep.shape[0])
            for curve, value, count in parts:
                r = r + count * (value[frac_idx][keep] if curve is None else curve.fractional_part(value, keep))
            best = min(best, float(np.min(_epsilons(fa[keep], r, d))))
    return max(0.0, best)


# ---------------------------------------------------------------------------------------------------------------
# RDP accountant
# ---------------------------------------------------------------------------------------------------------------


class RDPAccountant(EventLog):
    """Adds up RDP curves of composed events (RDP composes by summing per order) and converts the total to
    (ε, δ). Same orders, same numbers as dp_accounting's ``RdpAccountant`` (add/remove-one neighbours).

    Parameters
    ----------
    orders : sequence of float
        RDP orders α > 1 (default: dp_accounting's).
    neighbouring_relation : {"add_or_remove_one", "replace_one"}
        Replace-one is supported for unsampled Gaussian and Laplace events only.

    Attributes
    ----------
    events : list of DpEvent
        Every composed event, in order (an estimator's audit trail); ``labels`` holds the matching labels.
    rdp : ndarray
        The total RDP per order so far.

    Notes
    -----
    ``compose(event)`` accepts any ``DpEvent`` tree; ``compose_subsampled_gaussian``, ``compose_gaussian`` and
    ``compose_laplace`` are shorthands for the common ones.
    """

    def __init__(self, orders: Sequence[float] = DEFAULT_RDP_ORDERS, neighbouring_relation="add_or_remove_one"):
        super().__init__(neighbouring_relation)
        self._orders = _check_orders(orders)
        self._rdp = np.zeros_like(self._orders)

    @property
    def orders(self) -> np.ndarray:
        return self._orders.copy()

    @property
    def rdp(self) -> np.ndarray:
        """The total RDP per order so far."""
        return self._rdp.copy()

    def compose(self, event: DpEvent, count: int = 1, *, label: str = "") -> RDPAccountant:
        """Compose ``count`` runs of ``event`` (any DpEvent tree); returns self."""
        event = self._repeated(event, count)
        self._rdp = self._rdp + rdp_of_event(event, self._orders, self._relation)
        self._record(event, label)
        return self

    def compose_subsampled_gaussian(
        self, sample_rate: float, noise_multiplier: float, steps: int = 1, *, label: str = ""
    ) -> RDPAccountant:
        """``steps`` Poisson-subsampled Gaussian steps (DP-SGD): q = sample_rate, noise std σ·Δ₂."""
        steps = _check_count(steps, "steps", minimum=0)
        ev = SelfComposedEvent(PoissonSampledEvent(sample_rate, GaussianEvent(noise_multiplier)), steps)
        return self.compose(ev, label=label)

    def compose_gaussian(self, noise_multiplier: float, count: int = 1, *, label: str = "") -> RDPAccountant:
        """``count`` Gaussian mechanisms with noise std σ·Δ₂ (σ = noise_multiplier)."""
        count = _check_count(count, "count", minimum=0)
        return self.compose(SelfComposedEvent(GaussianEvent(noise_multiplier), count), label=label)

    def compose_laplace(self, noise_multiplier: float, count: int = 1, *, label: str = "") -> RDPAccountant:
        """``count`` Laplace mechanisms with scale noise_multiplier·Δ₁ (each 1/noise_multiplier-DP)."""
        count = _check_count(count, "count", minimum=0)
        return self.compose(SelfComposedEvent(LaplaceEvent(noise_multiplier), count), label=label)

    def get_epsilon_and_order(self, delta: float) -> Tuple[float, float]:
        return rdp_to_epsilon(self._orders, self._rdp, delta)

    def get_epsilon(self, delta: float) -> float:
        """ε such that everything composed so far is (ε, δ)-DP."""
        return self.get_epsilon_and_order(delta)[0]

    def get_delta(self, epsilon: float) -> float:
        """δ such that everything composed so far is (ε, δ)-DP."""
        return rdp_to_delta(self._orders, self._rdp, epsilon)[0]

    def __repr__(self) -> str:
        return f"RDPAccountant(n_orders={self._orders.shape[0]}, n_events={len(self._events)})"

