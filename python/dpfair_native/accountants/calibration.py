"""One noise calibration routine for any event built from a noise multiplier, and the DP-SGD shorthands.

``calibrate_noise_multiplier(make_event, target_epsilon, delta)`` finds the smallest σ (on a lattice of spacing
<= ``tol``) for which the whole event ``make_event(σ)`` is (target_epsilon, δ)-DP under the chosen
accountant. ``make_event`` may compose σ-independent parts (a count released once with its own noise, a
pure-DP Laplace step, ...) with the σ-dependent ones; if those fixed parts alone already exceed the target, a
ValueError says so.
"""

from __future__ import annotations

import math
from typing import Callable, Optional, Sequence, Tuple

import numpy as np

from .._validation import check_delta, check_epsilon, check_positive
from ._common import check_count as _check_count
from ._common import check_orders as _check_orders
from ._common import check_sample_rate as _check_sample_rate
from .events import (
    DpEvent,
    GaussianEvent,
    NeighbouringRelation,
    PoissonSampledEvent,
    SelfComposedEvent,
    flatten_event,
)
from .pld import PLDAccountant
from .rdp import DEFAULT_RDP_ORDERS, epsilon_of_rdp_event, rdp_subsampled_gaussian, rdp_to_epsilon

__all__ = [
    "calibrate_noise_multiplier",
    "epsilon_of_event",
    "dpsgd_epsilon",
    "noise_multiplier_for",
    "dpsgd_event",
    "PrivacySpent",
    "ACCOUNTANT_METHODS",
    "NEIGHBOURING_RELATIONS",
]

_SIGMA_MAX = 1e8

ACCOUNTANT_METHODS = ("rdp", "pld")
"""The accountants an estimator can be asked for by ``accountant_method``."""

NEIGHBOURING_RELATIONS = ("add_or_remove_one", "replace_one", "add_or_remove_one_edge")
"""What a ``PrivacySpent``'s (ε, δ) protects: one record added or removed (the DP-SGD family, n private), one
record replaced by another (the functional-mechanism family, the exponential learner, the causal learners; n
public), one edge of a graph added or removed (the network embeddings). dp_accounting's ``NeighboringRelation``
names the first two ADD_OR_REMOVE_ONE and REPLACE_ONE."""


class PrivacySpent(tuple):
    """(ε, δ) of what a fit released, naming the accountant that computed it.

    A 2-tuple — it unpacks (``eps, delta = est.privacy_spent_``), indexes and compares like ``(ε, δ)`` — with one
    more attribute, ``method``: "rdp" (Rényi DP, converted at δ), "pld" (privacy-loss distribution, pessimistic
    discretisation), "exponential" (one pure-DP exponential mechanism), "basic" (each release's own (ε, δ), summed:
    basic sequential composition, as the functional-mechanism family, PrivPC and the embeddings account), "none"
    (no guarantee, ``(inf, 0)``: a non-private run, or a paper-faithful run whose published guarantee does not
    hold), or such names joined by "+" when a fit composes releases accounted separately (e.g. "pld+exponential": the
    exponential learner's DP-SGD base model, then its selection; ε is then their basic sequential composition).

    And ``relation``, the neighbouring relation the guarantee is for (one of ``NEIGHBOURING_RELATIONS``:
    "add_or_remove_one", "replace_one", "add_or_remove_one_edge"; a ``NeighbouringRelation`` member is taken by
    its value); None with method "none" (no guarantee), or where it was not recorded (an object pickled before
    the attribute existed). Every estimator of the library sets it. The same (ε, δ) means different things under
    different relations: an add/remove-one (ε, δ) guarantee gives replace-one only through group privacy, at
    (2ε, (1 + e^ε)δ).
    """

    def __new__(cls, epsilon: float, delta: float, method: str, relation: Optional[str] = None):
        self = super().__new__(cls, (float(epsilon), float(delta)))
        self.method = str(method)
        relation = getattr(relation, "value", relation)  # a NeighbouringRelation member
        if relation is not None and relation not in NEIGHBOURING_RELATIONS:
            raise ValueError(f"relation must be one of {NEIGHBOURING_RELATIONS} or None, got {relation!r}")
        self.relation = relation
        return self

    def __getnewargs__(self):  # pickling and copying rebuild from (ε, δ, method, relation)
        return (self[0], self[1], self.method, self.relation)

    @property
    def epsilon(self) -> float:
        return self[0]

    @property
    def delta(self) -> float:
        return self[1]

    def __repr__(self) -> str:
        return (f"PrivacySpent(epsilon={self[0]!r}, delta={self[1]!r}, method={self.method!r}, "
                f"relation={self.relation!r})")


def dpsgd_event(sample_rate: float, noise_multiplier: float, steps: int) -> DpEvent:
    """``steps`` Poisson-subsampled Gaussian steps: SelfComposedEvent(PoissonSampledEvent(q, GaussianEvent(σ)), T)."""
    return SelfComposedEvent(PoissonSampledEvent(sample_rate, GaussianEvent(noise_multiplier)), steps)


def epsilon_of_event(
    event: DpEvent,
    delta: float,
    *,
    method: str = "rdp",
    neighbouring_relation="add_or_remove_one",
    orders: Sequence[float] = DEFAULT_RDP_ORDERS,
    value_discretization_interval: Optional[float] = None,
) -> float:
    """ε at the given δ of ``event`` under the RDP or the PLD accountant.

    Parameters
    ----------
    event : DpEvent
    delta : float
        In (0, 1).
    method : {"rdp", "pld"}
        "rdp": ``RDPAccountant`` (dp_accounting's RDP numbers); "pld": ``PLDAccountant`` (tighter; an upper bound
        thanks to its pessimistic discretisation).
    neighbouring_relation : {"add_or_remove_one", "replace_one"}
    orders : sequence of float
        RDP orders (method="rdp" only).
    value_discretization_interval : float, optional
        The PLD loss grid (method="pld" only; default ``PLDAccountant``'s).
    """
    d = check_delta(delta, "delta")
    rel = NeighbouringRelation.coerce(neighbouring_relation)
    if method == "rdp":
        a = _check_orders(orders)
        return epsilon_of_rdp_event(event, a, d, rel)
    if method == "pld":
        return _pld_accountant(rel, value_discretization_interval).compose(event).get_epsilon(d)
    raise ValueError(f"method must be 'rdp' or 'pld', got {method!r}")


def _pld_accountant(relation: NeighbouringRelation, value_discretization_interval: Optional[float]) -> PLDAccountant:
    if value_discretization_interval is None:
        return PLDAccountant(relation)
    return PLDAccountant(relation, value_discretization_interval=value_discretization_interval)


def _lattice_search(pred_eps, target: float, lo: float, hi: float, e_lo: float, e_hi: float, tol: float) -> float:
    """The smallest point of the bisection lattice {lo + j·s}, s = (hi − lo)/2^m <= tol, whose ε is <= target,
    given ε(lo) > target >= ε(hi). Plain bisection returns the same point when ε is monotone in σ; this search
    reaches it in far fewer evaluations by interpolating log ε linearly in log σ inside the lattice bracket
    (Illinois-style: an end kept twice has its weight halved) and falling back to the midpoint when a guess would
    not shrink the bracket. Every accepted point was evaluated and <= target; the returned point's lower lattice
    neighbour was evaluated (or is ``lo``) and > target."""
    width = hi - lo
    m = 0
    while width / 2.0**m > tol:
        m += 1
    s = width / 2.0**m
    jl, jh = 0, 2**m
    log_t = math.log(target) if target > 0 else -math.inf

    def f(e):
        return (math.log(e) if e > 0 else -math.inf) - log_t

    fl, fh = f(e_lo), f(e_hi)
    side = 0
    while jh - jl > 1:
        if math.isfinite(fl) and math.isfinite(fh) and fl != fh:
            a, b = lo + jl * s, lo + jh * s
            if a > 0:  # log ε is close to linear in log σ (ε ~ σ^-p): the chord's root in log σ, in lattice units
                r = (a * math.exp(math.log(b / a) * fl / (fl - fh)) - lo) / s
            else:
                r = jl + (jh - jl) * fl / (fl - fh)
            j = int(math.ceil(r - 1e-9))
        else:
            j = (jl + jh) // 2
        j = min(max(j, jl + 1), jh - 1)
        e = pred_eps(lo + j * s)
        if e <= target:
            jh, fh = j, f(e)
            if side == 1:
                fl *= 0.5
            side = 1
        else:
            jl, fl = j, f(e)
            if side == -1:
                fh *= 0.5
            side = -1
    return lo + jh * s


def _exp_or_inf(x: float) -> float:
    """e^x, or inf where it overflows (a secant on a plateau of ε: the search then doubles or bisects)."""
    return math.exp(x) if x < 700.0 else math.inf


def _guided_lattice_search(eps_of, target: float, guess: float, slope: float, tol: float) -> Optional[float]:
    """The smallest multiple j·tol of ``tol`` with ε <= target, searched from a guess: secant steps on log ε against
    log σ (ε ~ σ^p is close to a straight line there), the first one with the slope ``slope`` (p < 0) of a cheaper
    accountant, each rounded to the lattice on the side that would close the bracket. Once ε is bracketed,
    three steps in a row that do not halve the bracket are followed by a bisection, so the search ends in O(log)
    steps whatever ε does. Returns j·tol, with (j − 1)·tol evaluated and > target; or None when the search leaves
    (0, 1e8] or runs past 64 evaluations (then the caller's plain search takes over).

    With a guess a few per cent off this takes about four evaluations (one at the guess, one secant step with
    ``slope``, then the two lattice points around the secant root), against seven for a geometric bracket and the
    Illinois search in it, which is what matters when each evaluation is a PLD."""
    log_t = math.log(target)
    seen: dict = {}  # lattice index -> ε
    order: list = []  # lattice indices in the order evaluated
    jl, jh = 0, None  # largest evaluated index with ε > target (σ = 0: ε = ∞), smallest with ε <= target
    j = max(1, int(round(guess / tol)))
    width, stalls = math.inf, 0
    for _ in range(64):
        if j * tol > _SIGMA_MAX:
            return None
        e = seen[j] = eps_of(j * tol)
        order.append(j)
        if e <= target:
            jh = j if jh is None else min(jh, j)
        else:
            jl = max(jl, j)
        if jh is not None:
            if jh - jl == 1:
                return jh * tol
            stalls = stalls + 1 if 2 * (jh - jl) > width else 0
            width = min(width, jh - jl)
        # root of the secant through two evaluated points (or of the line with the given slope through the one
        # there is): inside a bracket the two nearest the target in log ε; before one the last two evaluated (the
        # search's front; equal ε there, as on a plateau, gives no root, and the search doubles or halves)
        finite = [k for k in order if 0 < seen[k] < math.inf]
        if jh is not None and jl > 0:
            near = sorted(finite, key=lambda k: abs(math.log(seen[k]) - log_t))[:2]
        else:
            near = finite[-2:][::-1]
        r = None
        if len(near) == 2 and seen[near[0]] != seen[near[1]]:
            (k0, k1), l0, l1 = near, math.log(seen[near[0]]), math.log(seen[near[1]])
            r = k0 * _exp_or_inf(math.log(k1 / k0) * (log_t - l0) / (l1 - l0))
        elif len(near) == 1 and slope < 0:
            r = near[0] * _exp_or_inf((log_t - math.log(seen[near[0]])) / slope)
        if jh is None:  # everything evaluated is infeasible: go up, at least one lattice step, at most 4×
            j = min(4 * j, max(jl + 1, math.ceil(r))) if r is not None and math.isfinite(r) else 2 * j
        elif jl == 0:  # everything evaluated is feasible: go down, at most 4×
            j = max(jh // 4, min(jh - 1, math.floor(r))) if r is not None and math.isfinite(r) else jh // 2
            if j < 1:
                return None
        elif stalls >= 3 or r is None or not math.isfinite(r):
            j = (jl + jh) // 2
        else:  # inside the bracket: the lattice point at or above the root, or just below jh when that is it
            j = math.ceil(r - 1e-9)
            j = jh - 1 if j >= jh else max(j, jl + 1)
    return None


_CLT_MIN_SAMPLES = 10.0
_PLD_FINEST = 1e-4  # PLDAccountant's default interval; the calibration's grid is a multiple of it
_PLD_RELATIVE_ERROR = 1e-3  # discretisation error in ε the calibration's automatic grid aims at


def _log_normal_cdf(z: float) -> float:
    """log Φ(z) for a scalar: from erfc while it does not underflow, else erfc's asymptotic series (relative error
    below 1e-8 past x = −z/√2 = 25; this only sizes a grid and a first guess)."""
    x = -z / math.sqrt(2.0)
    if x < 25.0:
        return math.log(0.5 * math.erfc(x))
    return -x * x - math.log(2.0 * x * math.sqrt(math.pi)) + math.log1p(-0.5 / (x * x) + 0.75 / x**4)


def _gdp_delta(epsilon: float, mu: float) -> float:
    """δ(ε) of μ-GDP: Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2), the second term as e^{ε + log Φ} (no overflow)."""
    log_term = epsilon + _log_normal_cdf(-epsilon / mu - mu / 2.0)
    return 0.5 * math.erfc((epsilon / mu - mu / 2.0) / math.sqrt(2.0)) - math.exp(min(log_term, 700.0))


def _gaussian_dp_mu(epsilon: float, delta: float) -> float:
    """μ of the μ-GDP (Gaussian) mechanism that is exactly (ε, δ)-DP (δ increases in μ; bisection on log μ, to a
    relative width below 1e-12)."""
    lo, hi = 1e-6, 1e3
    for _ in range(45):
        mid = math.sqrt(lo * hi)
        if _gdp_delta(epsilon, mid) > delta:
            hi = mid
        else:
            lo = mid
    return lo


def _grid_target(target: float) -> float:
    """The target the grid is sized for, rounded to 6 significant digits (0.4 * 1.5 and 0.6 get the same grid)."""
    return float(f"{target:.6g}")


def _calibration_interval(event: DpEvent, target: float, mu: float) -> float:
    """The PLD grid of a calibration that did not name one: a multiple of 1e-4 (never finer), chosen so the
    discretisation adds about ``_PLD_RELATIVE_ERROR`` to ε.

    Why this size: on the grid h, each bucket's loss is spread to its two ends ("connect the dots"), which keeps its
    mean and adds about h²/6 to the variance of one step's loss, so N composed steps (of any mix) gain N·h²/6 of
    variance. Near the target the composed loss is close to the Gaussian PLD of the μ-GDP mechanism with the same
    (ε, δ) (variance μ²), whose ε grows with its standard deviation, so the relative error in ε is about
    (N·h²/6)/(2μ²) = r for h = μ·√(12r/N). Measured against a grid 4× finer than 1e-4 (Poisson-sampled Gaussians,
    q 0.001–0.1, T 100–100,000): relative error 0.083·(h/s)² for a per-step loss deviation s. Also h <= r·ε, the
    most a single step's chord can move ε. Any h gives an upper bound on ε (the discretisation is pessimistic), and
    as the grid is a multiple of 1e-4 the default accountant's ε of the calibrated release is not above the
    target: a coarser nested chord lies above a finer one, so the two differ only by the composition's
    rounding and window terms (measured: a coarse ε at most 4e-7 relative below the 1e-4 one, in 3 of 280
    configurations, against the ~1e-3 margin the grid adds; ``privacy_spent_`` is computed on the 1e-4 grid either
    way, so it reports what the release spends)."""
    n = sum(c for _, c in flatten_event(event))
    if n == 0:
        return _PLD_FINEST
    r = _PLD_RELATIVE_ERROR
    h = min(mu * math.sqrt(12.0 * r / n), r * _grid_target(target))
    return _PLD_FINEST * max(1, int(h / _PLD_FINEST))


def _clt_mu_squared(event: DpEvent, relation: NeighbouringRelation) -> Optional[float]:
    """Σ_k c_k μ_k², the variance of the composed privacy loss under the central limit approximation (Dong, Roth &
    Su 2022: one step of loss variance v is about √v-GDP, and GDP composes as μ² = Σ μ_k²); None for an event
    it does not cover (Laplace) or where it is far off (a Poisson-sampled part whose record is expected in fewer
    than ``_CLT_MIN_SAMPLES`` of its batches: measured 10–35 % below the PLD's σ at c·q = 0.1–3).

    Per step: a Gaussian of sensitivity Δ (1 add/remove, 2 replace-one) and multiplier σ, (Δ/σ)²; a Poisson-sampled
    one, Var_P(L) to first order in q: with a = e^{(−2x−1)/(2σ²)}, b = e^{(2x−1)/(2σ²)} and x ~ N(0, σ²),
    E a = E b = 1, E a² = E b² = e^{1/σ²} and E ab = e^{−1/σ²}, so add/remove (L ≈ q(a − 1)) gives q²(e^{1/σ²} − 1)
    and replace-one (L ≈ q(a − b)) gives q²·2(e^{1/σ²} − e^{−1/σ²})."""
    replace = relation is NeighbouringRelation.REPLACE_ONE
    total = 0.0
    for ev, c in flatten_event(event):
        if isinstance(ev, GaussianEvent):
            total += c * ((2.0 if replace else 1.0) / ev.noise_multiplier) ** 2
        elif isinstance(ev, PoissonSampledEvent) and isinstance(ev.event, GaussianEvent):
            if c * ev.sample_rate < _CLT_MIN_SAMPLES:
                return None
            inv = 1.0 / ev.event.noise_multiplier ** 2
            if inv > 700.0:
                return math.inf
            step = 2.0 * (math.exp(inv) - math.exp(-inv)) if replace else math.expm1(inv)
            total += c * ev.sample_rate ** 2 * step
        else:
            return None
    return total


def _gdp_log_slope(epsilon: float, mu: float) -> float:
    """d log ε / d log μ along the (ε, δ) curve of μ-GDP at fixed δ, at a point (ε, μ) of it.

    With a = −ε/μ + μ/2 and b = −ε/μ − μ/2, δ = Φ(a) − e^ε Φ(b) and e^ε φ(b) = φ(a) (as a² − b² = −2ε), so
    ∂δ/∂ε = −e^ε Φ(b) and ∂δ/∂μ = φ(a)(ε/μ² + 1/2) − e^ε φ(b)(ε/μ² − 1/2) = φ(a); hence
    dε/dμ = φ(a) / (e^ε Φ(b)), and the slope is (μ/ε)·dε/dμ."""
    a, b = -epsilon / mu + mu / 2.0, -epsilon / mu - mu / 2.0
    log_phi_a = -0.5 * a * a - 0.5 * math.log(2.0 * math.pi)
    return (mu / epsilon) * _exp_or_inf(log_phi_a - epsilon - _log_normal_cdf(b))


def _clt_guess(make_event, target, relation, mu: float) -> Optional[Tuple[float, float]]:
    """(σ, slope) from the central limit approximation: σ with Σ c_k μ_k²(σ) = μ², μ the GDP parameter that is
    (target, δ)-DP (the caller's, computed once for the grid, at the target rounded to 6 digits), by bisection on
    log σ, and d log ε / d log σ of the GDP ε there (``_gdp_log_slope`` times d log μ / d log σ, the latter from
    Σ c_k μ_k² at σ and 1.01σ). None when the event has a part the approximation does not cover or no σ in
    [1e-3, 1e8] matches."""
    mu_sq = mu * mu

    def excess(sigma: float) -> Optional[float]:
        v = _clt_mu_squared(make_event(sigma), relation)
        return None if v is None else v - mu_sq

    lo, hi = math.log(1e-3), math.log(_SIGMA_MAX)
    e_lo, e_hi = excess(math.exp(lo)), excess(math.exp(hi))
    if e_lo is None or e_hi is None or not (e_lo > 0 > e_hi):
        return None
    while hi - lo > 1e-3:
        mid = 0.5 * (lo + hi)
        e = excess(math.exp(mid))
        if e is None:  # make_event changed its parts with σ
            return None
        if e > 0:
            lo = mid
        else:
            hi = mid
    sigma = math.exp(hi)
    v0, v1 = _clt_mu_squared(make_event(sigma), relation), _clt_mu_squared(make_event(1.01 * sigma), relation)
    if v0 is None or v1 is None:
        return None
    slope = -1.0
    if 0 < v1 < v0 < math.inf:
        slope = _gdp_log_slope(target, mu) * 0.5 * math.log(v1 / v0) / math.log(1.01)
        slope = slope if -math.inf < slope < 0 else -1.0
    return sigma, slope


def _pld_guess(make_event, target, d, orders, tol) -> Optional[Tuple[float, float]]:
    """(σ, slope) to start the PLD search from: the RDP-calibrated σ (add/remove; a few per cent above the PLD's
    under add/remove, below it under replace-one) and the RDP slope d log ε / d log σ there. None when the RDP
    calibration fails."""
    try:
        guess = calibrate_noise_multiplier(make_event, target, d, method="rdp", tol=tol, orders=orders)
    except ValueError:
        return None
    e0 = epsilon_of_event(make_event(guess), d, method="rdp", orders=orders)
    e1 = epsilon_of_event(make_event(1.01 * guess), d, method="rdp", orders=orders)
    slope = math.log(e1 / e0) / math.log(1.01) if 0 < e1 < e0 < math.inf else -1.0
    return guess, slope


def _pld_search(accountant_at, target: float, delta: float, guess: float, slope: float, tol: float) -> Optional[float]:
    """``_guided_lattice_search`` under the PLD at the cost of about one direction per σ: the search runs on one
    direction's ε (a lower bound of the release's: "remove" first under add/remove), then the other directions are
    checked at the σ it returns; where one of them exceeds the target there, the search goes on from that σ on that
    direction. The σ returned meets the target in every direction, and the lattice point below it was rejected by
    one direction, so by the release's ε too. ``accountant_at``: σ -> a PLDAccountant holding the release at σ
    (kept for the call, so no direction is composed twice). None where ``_guided_lattice_search`` gives up."""
    accountants: dict = {}

    def at(sigma: float):
        if sigma not in accountants:
            accountants[sigma] = accountant_at(sigma)
        return accountants[sigma]

    names = at(guess)._direction_names()
    lead = names[0]
    for _ in range(len(names)):
        found = _guided_lattice_search(lambda s, name=lead: at(s)._direction_epsilon(name, delta), target, guess,
                                       slope, tol)
        if found is None:
            return None
        checked = at(found)
        over = [n for n in checked._direction_names() if n != lead and checked._direction_epsilon(n, delta) > target]
        if not over:
            return found
        lead, guess = over[0], found
    return None


def calibrate_noise_multiplier(
    make_event: Callable[[float], DpEvent],
    target_epsilon: float,
    delta: float,
    *,
    method: str = "rdp",
    neighbouring_relation="add_or_remove_one",
    tol: float = 1e-4,
    orders: Sequence[float] = DEFAULT_RDP_ORDERS,
    value_discretization_interval: Optional[float] = None,
) -> float:
    """Smallest noise multiplier σ (to within ``tol``) with ε(make_event(σ)) <= target_epsilon at δ (method="pld":
    on the calibration's own PLD grid, see ``value_discretization_interval``; under the default 1e-4 grid the
    returned σ meets the target too and is typically within 0.1 % of that grid's smallest).

    Parameters
    ----------
    make_event : callable
        σ -> DpEvent, the *whole* release at noise multiplier σ, e.g.
        ``lambda s: dpsgd_event(q, s, T)`` or
        ``lambda s: ComposedEvent([GaussianEvent(sigma_count), dpsgd_event(q, s, T)])``. ε must not increase with
        σ (true when σ only scales noise).
    target_epsilon : float
        > 0.
    delta : float
        In (0, 1).
    method : {"rdp", "pld"}
        The accountant (see ``epsilon_of_event``).
    neighbouring_relation : {"add_or_remove_one", "replace_one"}
    tol : float
        Absolute resolution of σ.
    orders : sequence of float
        RDP orders (method="rdp").
    value_discretization_interval : float, optional
        PLD loss grid (method="pld"). By default the coarsest multiple of 1e-4 whose discretisation adds about
        0.1 % to ε (``_calibration_interval``): any grid gives an upper bound on ε, so the returned σ meets the
        target; it is above the σ a 1e-4 grid returns by 0 to 0.1 % for DP-SGD alone (measured over q
        0.001–0.1, T 1–100,000, δ >= 1e-9), more (0.3–1.1 % measured) when a σ-independent part spends most of
        the budget, as the 0.1 % of ε then falls on the small remainder; pass 1e-4 for that σ exactly.

    Returns
    -------
    float
        σ* with ε(σ*) <= target_epsilon; some σ in [σ* − tol, σ*) was evaluated and gave ε > target_epsilon.

    Raises
    ------
    ValueError
        If even σ = 1e8 misses the target: then the σ-independent parts of the event (e.g. a count released with
        its own fixed noise) spend the budget on their own, and the message says how much they spend.

    Notes
    -----
    method="rdp": the classical search (double σ from 1 until ε(σ) <= target, then bisect to width <= tol), which
    ``_lattice_search`` finishes in about 5–8 evaluations of ε instead of ~15–25 and which returns the same σ as
    plain bisection when ε is monotone in σ. method="pld", where one evaluation costs about a millisecond per
    direction: the smallest multiple of ``tol`` with ε <= target, by ``_guided_lattice_search`` from the
    RDP-calibrated σ and the RDP slope of log ε in log σ (about four PLD evaluations), or, where the central limit
    approximation holds (``_clt_guess``), from its σ and slope, which cost microseconds instead of an RDP
    calibration; under add/remove the search composes the "remove" direction alone and the "add" direction once,
    at the σ it returns (``_pld_search``). Either way the guarantee does not rest on monotonicity: the returned σ
    was evaluated in every direction and a σ within ``tol`` below it was rejected in one (under the PLD, on the
    calibration's grid).
    """
    if not callable(make_event):
        raise TypeError("make_event must be a callable sigma -> DpEvent")
    target = check_epsilon(target_epsilon, "target_epsilon")
    d = check_delta(delta, "delta")
    tol = check_positive(tol, "tol")
    rel = NeighbouringRelation.coerce(neighbouring_relation)
    if method not in ("rdp", "pld"):
        raise ValueError(f"method must be 'rdp' or 'pld', got {method!r}")
    a = _check_orders(orders)

    def event_at(sigma: float) -> DpEvent:
        event = make_event(sigma)
        if not isinstance(event, DpEvent):
            raise TypeError(f"make_event must return a DpEvent, got {event!r}")
        return event

    def eps_of(sigma: float) -> float:
        return epsilon_of_event(
            event_at(sigma), d, method=method, neighbouring_relation=rel, orders=a,
            value_discretization_interval=value_discretization_interval,
        )

    accountant = f"delta={d:g}, method={method!r}"
    if method == "pld":
        mu = _gaussian_dp_mu(_grid_target(target), d)
        if value_discretization_interval is None:
            value_discretization_interval = _calibration_interval(event_at(1.0), target, mu)
        start = _clt_guess(event_at, target, rel, mu)
        if start is None:
            start = _pld_guess(make_event, target, d, a, tol)
        found = None if start is None else _pld_search(
            lambda sigma: _pld_accountant(rel, value_discretization_interval).compose(event_at(sigma)),
            target, d, *start, tol,
        )
        if found is not None:
            return found
        _check_reachable(eps_of, target, accountant)  # one PLD instead of ~27 doublings when nothing reaches it
    return search_noise_multiplier(eps_of, target, tol, accountant=accountant)


def _check_reachable(eps_of: Callable[[float], float], target: float, accountant: str) -> None:
    fixed = eps_of(_SIGMA_MAX)
    if fixed > target:
        raise ValueError(
            f"target_epsilon={target:g} is unreachable: the parts of the release that do not depend on the "
            f"noise multiplier spend epsilon={fixed:.6g} on their own (at {accountant}); "
            f"add noise to them (e.g. a larger count noise multiplier), declare the released quantity "
            f"public, or raise target_epsilon"
        )


def search_noise_multiplier(eps_of: Callable[[float], float], target: float, tol: float = 1e-4, *,
                            accountant: str = "") -> float:
    """The calibration search every σ of the library goes through: the smallest σ on the lattice of plain
    bisection (double from σ = 1 until ε(σ) <= target, then halve to width <= ``tol``) with ε(σ) <= target,
    found by ``_lattice_search``. ``eps_of``: σ -> ε of the whole release, non-increasing in σ (the returned σ and
    a rejected σ within ``tol`` below it were both evaluated, so the result meets the target either way).
    ``accountant`` names the accounting in the error raised when no σ up to 1e8 reaches the target.

    Raises
    ------
    ValueError
        If even σ = 1e8 misses the target; when ε(1e8) itself exceeds it, the message says that the σ-independent
        parts of the release spend the budget on their own.
    """
    lo, hi = 0.0, 1.0  # invariant: eps(lo) > target (eps(0) = inf), eps(hi) <= target
    e_lo, e_hi = math.inf, eps_of(hi)
    while e_hi > target:
        lo, hi, e_lo = hi, 2.0 * hi, e_hi
        if hi > _SIGMA_MAX:
            _check_reachable(eps_of, target, accountant)
            raise ValueError(f"no noise_multiplier up to {_SIGMA_MAX:g} reaches target_epsilon={target}")
        e_hi = eps_of(hi)
    return _lattice_search(eps_of, target, lo, hi, e_lo, e_hi, tol)


def dpsgd_epsilon(
    sample_rate: float,
    noise_multiplier: float,
    steps: int,
    delta: float,
    orders: Sequence[float] = DEFAULT_RDP_ORDERS,
) -> float:
    """ε (RDP accountant) of ``steps`` Poisson-subsampled Gaussian steps at the given δ (add/remove-one).

    Same as ``epsilon_of_event(dpsgd_event(q, σ, steps), δ)``.
    """
    steps = _check_count(steps, "steps", minimum=0)
    curve = rdp_subsampled_gaussian(sample_rate, noise_multiplier, orders)
    if steps == 0:  # nothing released (and 0 * inf would be NaN)
        curve = np.zeros_like(curve)
    return rdp_to_epsilon(orders, steps * curve, delta)[0]


def noise_multiplier_for(
    target_epsilon: float,
    delta: float,
    sample_rate: float,
    steps: int,
    *,
    tol: float = 1e-4,
    orders: Sequence[float] = DEFAULT_RDP_ORDERS,
    method: str = "rdp",
    neighbouring_relation="add_or_remove_one",
) -> float:
    """Smallest noise multiplier σ (to within ``tol``, absolute) with ε(q, σ, steps) <= target at δ (method="pld": on
    the calibration's PLD grid, within ~0.1 % of the default accountant's, see ``calibrate_noise_multiplier``).

    A wrapper of ``calibrate_noise_multiplier(lambda s: dpsgd_event(q, s, steps), ...)``: the returned σ* satisfies
    ε(σ*) <= target_epsilon, and a σ it rejected, >= σ* − tol, gave ε > target_epsilon.
    """
    check_epsilon(target_epsilon, "target_epsilon")
    check_delta(delta, "delta")
    q = _check_sample_rate(sample_rate)
    steps = _check_count(steps, "steps", minimum=1)
    if q == 0.0:
        raise ValueError("sample_rate = 0 releases nothing about the data; any noise_multiplier works")
    return calibrate_noise_multiplier(
        lambda s: dpsgd_event(q, s, steps), target_epsilon, delta, method=method,
        neighbouring_relation=neighbouring_relation, tol=tol, orders=orders,
    )
