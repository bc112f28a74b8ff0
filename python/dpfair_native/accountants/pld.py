"""Privacy-loss-distribution (PLD) accounting: pessimistic discretisation and FFT composition.

For a pair of output distributions (P, Q) of a mechanism on neighbours (P on the data set that holds the differing
record's contribution, in the direction considered), the privacy loss is L(x) = ln p(x)/q(x) with x ~ P, and the
mechanism is (ε, δ)-DP for that pair iff the hockey-stick divergence

    δ(ε) = E_P[(1 − e^{ε − L})_+] = P(L > ε) − e^ε Q(L > ε)

is <= δ. The privacy loss of an adaptive composition is the sum of independent per-step losses (for the worst-case
pairs used here, which dominate every neighbouring pair of the mechanism), so the composed PLD is the convolution
of the per-step PLDs.

Discretisation (pessimistic: the result is an upper bound on ε). On the grid ε_k = k·h every loss bucket
B_k = (ε_{k−1}, ε_k] is replaced by two atoms, at ε_{k−1} and ε_k, with the same P-mass and the same Q-mass as the
bucket ("connect the dots", Doroshenko et al. 2022, derived here in this form): with u = e^ε, Q-mass
a = (P(B_k) − u_{k−1} Q(B_k)) / (u_k − u_{k−1}) goes to ε_k and Q(B_k) − a to ε_{k−1} (P-masses u·Q-mass). Both
pairs have P- and Q-masses preserved, and spreading the likelihood ratio within a bucket to its ends can only
increase E_P[(1 − e^ε/e^L)_+] (convex in e^{−L}), so the discretised pair dominates the true one: its δ(ε)
curve is the chord interpolation of the true one in e^ε, above it everywhere and equal at the grid points. Loss
above the top grid point (P-mass <= ``tail_mass``) is moved to +∞ (counted in δ in full); loss below the bottom
grid point is rounded up to it. Both moves are pessimistic.

Composition. Each part's PMF is placed on a circular buffer of length N and raised to its count by FFT; the
window [K_lo, K_hi] of the composed loss (in grid units) is chosen from Chernoff bounds computed on the discretised
PMFs, P(S > K_hi h) <= min_λ>0 Π_k M_k(λ)^{c_k} e^{−λ K_hi h} <= ``tail_mass``. Mass outside the window aliases
into it additively (never removed): mass from above lands on lower losses, which is optimistic, so that Chernoff
bound is added to the mass at +∞; mass from below lands on higher losses, which is pessimistic; and what lands on
the buffer's residues outside the window (the FFT length exceeds the window) is moved to the window's top loss.

Neighbouring relations: ADD_OR_REMOVE_ONE accounts the "remove" and "add" directions separately (each composed
with itself over all steps, since one neighbouring pair fixes the direction of every step) and reports the larger
ε; REPLACE_ONE uses the symmetric pair of each mechanism (see ``events``). Agreement with Google dp_accounting's
``PLDAccountant`` (which uses the same worst-case pairs) is tested to 1% in ε over a grid of (q, σ, T, δ).
"""

from __future__ import annotations

import math
from typing import Dict, Iterable, List, Sequence, Tuple

import numpy as np

from .._validation import check_delta, check_positive
from .events import (
    DpEvent,
    EventLog,
    GaussianEvent,
    LaplaceEvent,
    NeighbouringRelation,
    PoissonSampledEvent,
    flatten_event,
)

__all__ = ["PLDAccountant", "PrivacyLossDistribution"]

# P-mass of a normal tail beyond Z_TAIL standard deviations is below 1e-16
_Z_TAIL = 8.3


def _backend() -> str:
    from .. import kernels

    return "native" if kernels.native_available() else "numpy"


def _norm_cdf(z: np.ndarray) -> np.ndarray:
    """Φ(z), accurate in relative terms for z < 0 (lower tail); native when the extension is built."""
    from .. import kernels

    z = np.asarray(z, dtype=np.float64)
    return kernels.normal_cdf(z.ravel(), backend=_backend()).reshape(z.shape)


# ---------------------------------------------------------------------------------------------------------------
# Worst-case pairs: functions ε -> (P(L > ε), Q(L > ε)) and the range of L
# ---------------------------------------------------------------------------------------------------------------


class _ShiftedGaussian:
    """P = N(0, σ²), Q = N(μ, σ²): L(x) = (μ² − 2μx)/(2σ²), x(ε) = μ/2 − σ²ε/μ. Symmetric in (P, Q)."""

    def __init__(self, sigma: float, mu: float):
        self.sigma, self.mu = sigma, mu

    def loss_range(self) -> Tuple[float, float]:
        s, mu = self.sigma, self.mu
        loss = lambda x: (mu * mu - 2.0 * mu * x) / (2.0 * s * s)  # noqa: E731
        return loss(s * _Z_TAIL), loss(-s * _Z_TAIL)

    def tails(self, eps: np.ndarray):
        s, mu = self.sigma, self.mu
        x = mu / 2.0 - s * s * eps / mu
        return _norm_cdf(x / s), _norm_cdf((x - mu) / s)


def _log_mixture(q: float, a: float) -> float:
    """ln(1 − q + q·e^a) for 0 < q <= 1, also where e^a overflows (tiny σ)."""
    if a < 700.0:
        return math.log1p(-q + q * math.exp(a))
    return a + math.log(q) + math.log1p((1.0 - q) / q * math.exp(-a))


class _SubsampledGaussianRemove:
    """P = (1−q)N(0, σ²) + qN(−1, σ²), Q = N(0, σ²): L(x) = ln(1 − q + q e^{(−2x−1)/(2σ²)}) > ln(1 − q);
    x(ε) = −σ² ln((e^ε − 1 + q)/q) − 1/2."""

    def __init__(self, sigma: float, q: float):
        self.sigma, self.q = sigma, q

    def _x(self, eps):
        s, q = self.sigma, self.q
        return -s * s * np.log((np.expm1(eps) + q) / q) - 0.5

    def loss_range(self) -> Tuple[float, float]:
        s, q = self.sigma, self.q
        x_lo = -1.0 - s * _Z_TAIL
        hi = _log_mixture(q, (-2.0 * x_lo - 1.0) / (2.0 * s * s))
        return math.log1p(-q), hi

    def tails(self, eps: np.ndarray):
        s, q = self.sigma, self.q
        ok = eps > math.log1p(-q)
        x = self._x(np.where(ok, eps, 1.0))
        qq = _norm_cdf(x / s)
        p = (1.0 - q) * qq + q * _norm_cdf((x + 1.0) / s)
        return np.where(ok, p, 1.0), np.where(ok, qq, 1.0)


class _SubsampledGaussianAdd:
    """P = N(0, σ²), Q = (1−q)N(0, σ²) + qN(1, σ²): L(x) = −ln(1 − q + q e^{(2x−1)/(2σ²)}) < −ln(1 − q);
    x(ε) = σ² ln((e^{−ε} − 1 + q)/q) + 1/2."""

    def __init__(self, sigma: float, q: float):
        self.sigma, self.q = sigma, q

    def loss_range(self) -> Tuple[float, float]:
        s, q = self.sigma, self.q
        x_hi = s * _Z_TAIL
        lo = -_log_mixture(q, (2.0 * x_hi - 1.0) / (2.0 * s * s))
        return lo, -math.log1p(-q)

    def tails(self, eps: np.ndarray):
        s, q = self.sigma, self.q
        ok = eps < -math.log1p(-q)
        e = np.where(ok, eps, 0.0)
        x = s * s * np.log((np.expm1(-e) + q) / q) + 0.5
        p = _norm_cdf(x / s)
        qq = (1.0 - q) * p + q * _norm_cdf((x - 1.0) / s)
        return np.where(ok, p, 0.0), np.where(ok, qq, 0.0)


class _SubsampledGaussianReplace:
    """P = (1−q)N(0, σ²) + qN(−1, σ²), Q = (1−q)N(0, σ²) + qN(1, σ²) (replace-one, see ``events``):
    L(x) = ln(1 − q + q e^{(−2x−1)/(2σ²)}) − ln(1 − q + q e^{(2x−1)/(2σ²)}), odd and decreasing in x.
    Symmetric in (P, Q) (x -> −x).

    x(ε) in closed form: with t = e^{x/σ²}, a = e^{−1/(2σ²)} and E = e^ε, L(x) = ε reads
    (1 − q) + qa/t = E((1 − q) + qat), i.e. Eqa·t² + (E − 1)(1 − q)·t − qa = 0, whose positive root is
    t = 2qa / (b + √(b² + c²)) with b = (E − 1)(1 − q), c = 2qa√E. As b + √(b² + c²) = c·e^{asinh(b/c)} and
    b/c = (1 − q) sinh(ε/2) / (qa),

        x(ε) = σ² ln t = −σ² (ε/2 + asinh(((1 − q)/q) e^{1/(2σ²)} sinh(ε/2))),

    odd in ε as L is; the asinh is taken from the logarithm of its argument (ln(2y) once y > e^20), so nothing
    overflows for small σ."""

    def __init__(self, sigma: float, q: float):
        self.sigma, self.q = sigma, q

    def _loss(self, x):
        s, q = self.sigma, self.q
        c = 1.0 / (2.0 * s * s)
        lq, l1q = math.log(q), math.log1p(-q)
        return np.logaddexp(l1q, lq + (-2.0 * x - 1.0) * c) - np.logaddexp(l1q, lq + (2.0 * x - 1.0) * c)

    def loss_range(self) -> Tuple[float, float]:
        x_lo = -1.0 - self.sigma * _Z_TAIL
        hi = float(self._loss(np.array([x_lo]))[0])
        return -hi, hi

    def _x(self, eps: np.ndarray) -> np.ndarray:
        s, q = self.sigma, self.q
        e = np.abs(eps)
        with np.errstate(divide="ignore"):  # ln sinh(0/2) = −inf: asinh(0) = 0 below
            log_y = math.log1p(-q) - math.log(q) + 0.5 / (s * s) + 0.5 * e + np.log(-np.expm1(-e)) - math.log(2.0)
        big = log_y > 20.0
        asinh = np.where(big, log_y + math.log(2.0), np.arcsinh(np.exp(np.minimum(log_y, 20.0))))
        return -np.sign(eps) * (s * s) * (0.5 * e + asinh)

    def tails(self, eps: np.ndarray):
        s, q = self.sigma, self.q
        x = self._x(np.asarray(eps, dtype=np.float64))  # L(X) > ε ⟺ X < x(ε)
        mid = (1.0 - q) * _norm_cdf(x / s)
        return mid + q * _norm_cdf((x + 1.0) / s), mid + q * _norm_cdf((x - 1.0) / s)


class _ShiftedLaplace:
    """P = Lap(0, b), Q = Lap(μ, b): L = μ/b for x <= 0, (μ − 2x)/b on (0, μ), −μ/b for x >= μ."""

    def __init__(self, b: float, mu: float):
        self.b, self.mu = b, mu

    def loss_range(self) -> Tuple[float, float]:
        return -self.mu / self.b, self.mu / self.b

    def tails(self, eps: np.ndarray):
        b, mu = self.b, self.mu
        inside = (eps >= -mu / b) & (eps < mu / b)
        x = np.clip((mu - b * eps) / 2.0, 0.0, mu)
        p = np.where(inside, 1.0 - 0.5 * np.exp(-x / b), np.where(eps < -mu / b, 1.0, 0.0))
        qq = np.where(inside, 0.5 * np.exp((x - mu) / b), np.where(eps < -mu / b, 1.0, 0.0))
        return p, qq


def _pairs(event: DpEvent, relation: NeighbouringRelation):
    """The worst-case pair of a basic event per direction: {"remove": pair, "add": pair} or {"replace": pair}."""
    replace = relation is NeighbouringRelation.REPLACE_ONE
    mu = 2.0 if replace else 1.0
    if isinstance(event, GaussianEvent):
        pair = _ShiftedGaussian(event.noise_multiplier, mu)
        return {"replace": pair} if replace else {"remove": pair, "add": pair}
    if isinstance(event, LaplaceEvent):
        pair = _ShiftedLaplace(event.noise_multiplier, mu)
        return {"replace": pair} if replace else {"remove": pair, "add": pair}
    if isinstance(event, PoissonSampledEvent) and isinstance(event.event, GaussianEvent):
        s, q = event.event.noise_multiplier, event.sample_rate
        if replace:
            return {"replace": _SubsampledGaussianReplace(s, q)}
        return {"remove": _SubsampledGaussianRemove(s, q), "add": _SubsampledGaussianAdd(s, q)}
    raise ValueError(
        f"the PLD accountant supports Gaussian and Laplace events and Poisson-sampled Gaussians, got {event!r}"
    )


# ---------------------------------------------------------------------------------------------------------------
# Discretisation and composition
# ---------------------------------------------------------------------------------------------------------------


class _DiscretePLD:
    """A discretised PLD on the grid k·h, k = offset .. offset + len(pmf) − 1 (P-masses), plus mass at +∞."""

    __slots__ = ("pmf", "offset", "p_inf", "h")

    def __init__(self, pmf: np.ndarray, offset: int, p_inf: float, h: float):
        self.pmf, self.offset, self.p_inf, self.h = pmf, offset, p_inf, h


_MAX_POINTS = 1 << 26  # 512 MiB per float64 array: beyond it the accountant refuses instead of exhausting memory


def _check_points(points: int, h: float, what: str) -> None:
    if points > _MAX_POINTS:
        raise ValueError(
            f"{what}: {points:,} points on the PLD grid h = {h:g}, more than the accountant handles "
            f"({_MAX_POINTS:,}), because the noise is tiny against the sensitivity; use the RDP accountant "
            "(method='rdp'; accountant_method='rdp' on an estimator) or a coarser value_discretization_interval"
        )


def _discretise(pair, h: float, tail_mass: float) -> _DiscretePLD:
    from .. import kernels

    lo, hi = pair.loss_range()
    k_lo, k_hi = int(math.floor(lo / h)), int(math.ceil(hi / h))
    if k_hi <= k_lo:
        k_hi = k_lo + 1
    _check_points(k_hi - k_lo + 1, h, f"one step's privacy loss spans [{lo:.4g}, {hi:.4g}] nats")
    eps = np.arange(k_lo, k_hi + 1) * h
    gp, gq = pair.tails(eps)  # P(L > ε_k), Q(L > ε_k), non-increasing in k
    pmf, p_inf = kernels.pld_connect_the_dots(eps, gp, gq, backend=_backend())
    return _DiscretePLD(pmf, k_lo, p_inf, h)


def _smooth_numbers(limit: int) -> np.ndarray:
    """The 5-smooth numbers 2^a 3^b 5^c <= limit, sorted (FFT lengths pocketfft handles fastest)."""
    out = []
    p5 = 1
    while p5 <= limit:
        p35 = p5
        while p35 <= limit:
            m = p35
            while m <= limit:
                out.append(m)
                m *= 2
            p35 *= 3
        p5 *= 5
    return np.array(sorted(out), dtype=np.int64)


_FAST_LENGTHS = _smooth_numbers(1 << 40)


def _next_fast_len(n: int) -> int:
    """The smallest 5-smooth number >= n."""
    n = max(int(n), 1)
    if n > _FAST_LENGTHS[-1]:
        return 1 << (n - 1).bit_length()
    return int(_FAST_LENGTHS[np.searchsorted(_FAST_LENGTHS, n)])


_LAMBDAS = np.geomspace(1e-2, 1e4, 19)  # any λ > 0 gives a valid bound; a coarse grid suffices


def _log_mgf(d: _DiscretePLD, lam: np.ndarray, block: int = 1) -> np.ndarray:
    """log Σ_k pmf_k e^{λ ε_k} for each λ (the finite part's sub-probability MGF; λ of either sign). With
    ``block`` > 1 an upper bound, cheaper: blocks of grid points are merged into one atom at the block's top loss
    (λ > 0) or bottom loss (λ < 0), which can only increase the MGF."""
    n = d.pmf.shape[0]
    starts = np.arange(0, n, block)
    mass = np.add.reduceat(d.pmf, starts) if block > 1 else d.pmf
    pos = mass > 0
    bottom = (d.offset + starts[pos]) * d.h
    top = (d.offset + np.minimum(starts[pos] + block - 1, n - 1)) * d.h
    eps = np.where(lam[:, None] > 0, top[None, :], bottom[None, :])
    z = lam[:, None] * eps + np.log(mass[pos])[None, :]
    m = z.max(axis=1)
    return m + np.log(np.exp(z - m[:, None]).sum(axis=1))


def _chernoff_window(parts, log_tail: float) -> Tuple[float, float, float, float]:
    """(lower edge, upper edge, λ, log M(λ)) of the composed finite loss S = Σ_k (c_k draws of part k): with
    M(λ) = Π_k M_k(λ)^{c_k}, P(S > K) <= M(λ) e^{−λK} for λ > 0 and P(S < K) <= M(λ) e^{−λK} for λ < 0, so
    K = (log M(λ) − log τ)/λ bounds S above (λ > 0, the smallest over λ) or below (λ < 0, the largest) except
    with probability <= τ. λ is picked on a coarse grid with block-merged MGFs, then both bounds are evaluated with
    the exact MGFs at their λ; the upper one's λ and log M(λ) are returned to bound the mass above the window."""
    lam = np.concatenate([_LAMBDAS, -_LAMBDAS])
    coarse = sum(c * _log_mgf(d, lam, block=min(64, max(1, d.pmf.shape[0] // 256))) for d, c in parts)
    bound = (coarse - log_tail) / lam
    k = _LAMBDAS.shape[0]
    near = np.array([lam[int(np.argmin(bound[:k]))], lam[k + int(np.argmax(bound[k:]))]])
    exact = sum(c * _log_mgf(d, near) for d, c in parts)
    edges = (exact - log_tail) / near
    return float(edges[1]), float(edges[0]), float(near[0]), float(exact[0])


def _power(f: np.ndarray, count: int) -> np.ndarray:
    """f**count by repeated squaring (several times faster than complex ``**`` for large counts)."""
    result = None
    while count:
        if count & 1:
            result = f if result is None else result * f
        count >>= 1
        if count:
            f = f * f
    return result


def _compose(parts: Sequence[Tuple[_DiscretePLD, int]], tail_mass: float) -> _DiscretePLD:
    """The PLD of the composition: each part self-composed ``count`` times, all convolved (FFT)."""
    h = parts[0][0].h
    log_fin = 0.0
    for d, c in parts:
        log_fin += c * math.log1p(-min(d.p_inf, 1.0)) if d.p_inf < 1.0 else -math.inf
    p_inf = -math.expm1(log_fin) if log_fin > -math.inf else 1.0
    if len(parts) == 1 and parts[0][1] == 1:
        d = parts[0][0]
        return _DiscretePLD(d.pmf.copy(), d.offset, d.p_inf, h)
    # window from Chernoff bounds on the composed finite part
    log_tail = math.log(tail_mass)
    # (mass below the window aliases to higher losses: pessimistic, so the lower edge only has to be reasonable)
    lo_edge, hi_edge, lam_hi, log_m_hi = _chernoff_window(parts, log_tail)
    min_k = sum(c * d.offset for d, c in parts)
    max_k = sum(c * (d.offset + d.pmf.shape[0] - 1) for d, c in parts)
    k_hi = min(max_k, int(math.ceil(hi_edge / h)))
    k_lo = max(min_k, int(math.floor(lo_edge / h)))
    if k_hi < max_k:
        # Chernoff bound on the finite part's mass above the window (aliased to lower losses): counted at +∞
        p_inf = min(1.0, p_inf + math.exp(log_m_hi - lam_hi * k_hi * h))
    k_lo = min(k_lo, k_hi)
    width = k_hi - k_lo + 1
    _check_points(width, h, f"the composed privacy loss spans [{k_lo * h:.4g}, {k_hi * h:.4g}] nats")
    n = _next_fast_len(width)
    spec = None
    base = 0
    for d, c in parts:
        if d.pmf.shape[0] <= n:
            buf = np.zeros(n)
            buf[: d.pmf.shape[0]] = d.pmf
        else:  # a part wider than the window: fold it onto the circle (aliasing, see the module docstring)
            buf = np.bincount(np.arange(d.pmf.shape[0]) % n, weights=d.pmf, minlength=n)
        f = _power(np.fft.rfft(buf), c)
        spec = f if spec is None else spec * f
        base += c * d.offset
    full = np.fft.irfft(spec, n)
    # total index K sits at position (K − base) mod n
    pos = (np.arange(k_lo, k_hi + 1) - base) % n
    pmf = np.maximum(full[pos], 0.0)
    if n > width:  # the residues outside the window hold aliased mass too: onto the window's top (pessimistic)
        outside = np.ones(n, dtype=bool)
        outside[pos] = False
        pmf[-1] += float(np.maximum(full[outside], 0.0).sum())
    return _DiscretePLD(pmf, k_lo, p_inf, h)


def _delta_for_epsilon(d: _DiscretePLD, epsilon: float) -> float:
    eps = (np.arange(d.pmf.shape[0]) + d.offset) * d.h
    m = eps > epsilon
    return min(1.0, d.p_inf + float(np.sum(d.pmf[m] * -np.expm1(epsilon - eps[m]))))


def _epsilon_for_delta(d: _DiscretePLD, delta: float) -> float:
    """Smallest ε >= 0 with δ(ε) <= delta for the discrete PLD (exact for it; ``kernels.pld_epsilon_for_delta``)."""
    from .. import kernels

    return kernels.pld_epsilon_for_delta(d.pmf, d.offset, d.h, d.p_inf, delta, backend=_backend())


class PrivacyLossDistribution:
    """A composed, discretised PLD per direction; ``get_epsilon``/``get_delta`` take the worst direction."""

    def __init__(self, directions: Dict[str, _DiscretePLD]):
        self._dirs = directions

    def get_delta(self, epsilon: float) -> float:
        return max(_delta_for_epsilon(d, epsilon) for d in self._dirs.values())

    def get_epsilon(self, delta: float) -> float:
        return max(_epsilon_for_delta(d, delta) for d in self._dirs.values())


class PLDAccountant(EventLog):
    """Privacy accounting by privacy-loss distributions (tighter than RDP; an upper bound on ε).

    Parameters
    ----------
    neighbouring_relation : {"add_or_remove_one", "replace_one"}
        See ``events.NeighbouringRelation``.
    value_discretization_interval : float
        The loss grid h (nats). Smaller is tighter and slower; the result is an upper bound for every h.
    tail_mass : float
        P-mass per mechanism (and for the composition's window) that may be moved to +∞ (counted in δ).

    Attributes
    ----------
    events : list of DpEvent
        Every composed event, in order; ``labels`` holds the matching labels.

    Notes
    -----
    Supported events: ``GaussianEvent``, ``LaplaceEvent``, ``PoissonSampledEvent`` of a ``GaussianEvent``, and any
    ``SelfComposedEvent``/``ComposedEvent`` of them. The worst-case pairs, the discretisation and its direction
    (pessimistic) and the FFT composition are described in the module docstring.
    """

    def __init__(
        self,
        neighbouring_relation="add_or_remove_one",
        value_discretization_interval: float = 1e-4,
        tail_mass: float = 1e-15,
    ):
        super().__init__(neighbouring_relation)
        self._h = check_positive(value_discretization_interval, "value_discretization_interval")
        self._tail = check_delta(tail_mass, "tail_mass")
        self._counts: Dict[DpEvent, int] = {}
        self._composed: Dict[str, _DiscretePLD] = {}  # per direction, computed on demand

    def compose(self, event: DpEvent, count: int = 1, *, label: str = "") -> PLDAccountant:
        """Compose ``count`` runs of ``event``; returns self."""
        event = self._repeated(event, count)
        for ev, _ in flatten_event(event):
            _pairs(ev, self._relation)  # raises for unsupported events before anything is recorded
        for ev, c in flatten_event(event):
            self._counts[ev] = self._counts.get(ev, 0) + c
        self._record(event, label)
        self._composed = {}
        return self

    def _directions(self) -> Dict[str, List[Tuple[object, int]]]:
        """Per direction ("remove" before "add", or "replace"), the worst-case pair of every event and its count."""
        per_dir: Dict[str, List[Tuple[object, int]]] = {}
        for ev, c in self._counts.items():
            for name, pair in _pairs(ev, self._relation).items():
                per_dir.setdefault(name, []).append((pair, c))
        return per_dir

    def _direction(self, name: str, parts) -> _DiscretePLD:
        if name not in self._composed:
            self._composed[name] = _compose([(_discretise(p, self._h, self._tail), c) for p, c in parts], self._tail)
        return self._composed[name]

    def _distribution(self) -> PrivacyLossDistribution:
        parts = self._directions()
        return PrivacyLossDistribution({name: self._direction(name, p) for name, p in parts.items()})

    def get_epsilon(self, delta: float) -> float:
        """ε such that everything composed so far is (ε, δ)-DP (an upper bound)."""
        d = check_delta(delta, "delta")
        return max((self._direction_epsilon(name, d) for name in self._direction_names()), default=0.0)

    def _direction_names(self) -> List[str]:
        """The directions accounted ("remove" then "add", or "replace"); composes nothing."""
        return list(self._directions())

    def _direction_epsilon(self, name: str, delta: float) -> float:
        """ε of one direction's composed PLD at δ (each direction is composed once, on first use): a lower bound of
        ``get_epsilon``, for a calibration that rejects a σ on one direction without composing the others."""
        return _epsilon_for_delta(self._direction(name, self._directions()[name]), delta)

    def get_delta(self, epsilon: float) -> float:
        """δ such that everything composed so far is (ε, δ)-DP (an upper bound)."""
        e = float(epsilon)
        if not (e >= 0) or math.isinf(e):
            raise ValueError(f"epsilon must be a finite number >= 0, got {epsilon!r}")
        if not self._counts:
            return 0.0
        return self._distribution().get_delta(e)

    def __repr__(self) -> str:
        return f"PLDAccountant({self._relation.value}, h={self._h:g}, n_events={len(self._events)})"


def _profile(d: _DiscretePLD, k: np.ndarray) -> np.ndarray:
    """δ(k·h) at integer points k of a discretised PLD (its hockey-stick curve, exact for the discrete pair):
    δ(ε) = p_∞ + Σ_{ε_j > ε} p_j (1 − e^{ε − ε_j}), from suffix sums of p_j and p_j e^{−ε_j}."""
    losses = (np.arange(d.pmf.shape[0]) + d.offset) * d.h
    above = np.concatenate([np.cumsum(d.pmf[::-1])[::-1], [0.0]])
    scaled = np.concatenate([np.cumsum((d.pmf * np.exp(-losses))[::-1])[::-1], [0.0]])
    first = np.clip(k - d.offset + 1, 0, d.pmf.shape[0])  # the first j with ε_j > k·h
    # beyond the top loss both sums are 0 (and e^{k·h} could overflow to inf·0)
    growth = np.exp(np.where(first < d.pmf.shape[0], k * d.h, 0.0))
    return np.minimum(1.0, d.p_inf + np.maximum(0.0, above[first] - growth * scaled[first]))


def epsilon_after_gaussian_choice(count_noise: float, mechanisms: Iterable[PLDAccountant], delta: float, *,
                                  extra_delta: float = 0.0) -> float:
    """ε at ``delta`` of a Gaussian release y (L2 sensitivity 1, noise ``count_noise``; add/remove-one neighbours)
    followed by a mechanism chosen from y among ``mechanisms`` (each one PLDAccountant's composition; same grid h),
    charged ``extra_delta`` for the outputs y where the choice is not among them (a smallest ε on the grid k·h).
    ``mechanisms`` may be a generator: each is read once and can be dropped after (memory of one at a time).

    Why it holds. For neighbours D, D' (either direction) let L = ln p(y)/p'(y) be the Gaussian's privacy loss,
    N(μ²/2, μ²) under D with μ = 1/``count_noise``. The hockey-stick divergence of the pair (y, M_y) factorises:
    H_{e^ε} = E_{y~D}[δ_{M_y}(ε − L(y))], with δ_M(t) = E[(1 − e^{t − L_M})_+] the profile of M extended to t < 0
    (Dong, Roth & Su 2022, the composition of mechanisms f-DP for every earlier output, in its profile form). Where
    M_y is among ``mechanisms``, δ_{M_y} <= max_m δ_m, each δ_m bounded by its pessimistic discretisation (exact for
    the discrete pair: :func:`_profile`); elsewhere the integrand is at most 1, which ``extra_delta`` covers. The
    profiles are non-increasing, so on bins of L (width <= h, ±9μ around the mean) the bound takes L at the bin's top
    edge rounded up to the grid, and the mass beyond ±9μ counts in full. The maximum is taken on the grid points the
    bound reads, from −(the largest shift) up to the mechanisms' largest loss (every profile is p_∞ beyond its own;
    points past the end read the end). The result is the first grid ε whose bound is <= ``delta`` · (1 − 1e-9) (the
    margin absorbs the suffix sums' rounding; a NaN counts as above), per direction, the larger of them.

    Raises
    ------
    ValueError
        If no mechanism is given, they are not add/remove-one accountants on one grid, or the bound never falls to
        ``delta`` (the mass at +∞ and ``extra_delta`` exceed it).
    """
    delta = check_delta(delta, "delta")
    mu = 1.0 / check_positive(count_noise, "count_noise")
    envelopes: Dict[str, Tuple[int, np.ndarray, float]] = {}  # direction -> (first grid point, max profile, max p_∞)
    h = None
    for m in mechanisms:
        if not isinstance(m, PLDAccountant) or m._relation is not NeighbouringRelation.ADD_OR_REMOVE_ONE:
            raise ValueError("give one or more PLDAccountants with add_or_remove_one neighbours")
        if h is None:
            h = m._h
            bins = max(1, math.ceil(18.0 * mu / h))
            z = np.linspace(-9.0, 9.0, bins + 1)
            cdf = _norm_cdf(z)
            weights = np.diff(cdf)
            shifts = np.ceil((mu * mu / 2.0 + mu * z[1:]) / h).astype(np.int64)
            outside = float(cdf[0] + (1.0 - cdf[-1])) + float(extra_delta)
            bottom = -int(shifts.max())
        elif m._h != h:
            raise ValueError("the mechanisms' accountants must share value_discretization_interval")
        for name, parts in m._directions().items():
            d = m._direction(name, parts)
            top = max(d.offset + d.pmf.shape[0], bottom)  # the profile is p_∞ from here up
            start, env, p_inf = envelopes.get(name, (bottom, np.zeros(0), 0.0))
            if top - start + 1 > env.shape[0]:  # extend to this mechanism's top: earlier ones are at their p_∞
                env = np.concatenate([env, np.full(top - start + 1 - env.shape[0], env[-1] if env.size else 0.0)])
            env = np.maximum(env, _profile(d, np.arange(start, start + env.shape[0])))
            envelopes[name] = (start, env, max(p_inf, d.p_inf))
    if h is None:
        raise ValueError("give one or more PLDAccountants with add_or_remove_one neighbours")
    limit = delta * (1.0 - 1e-9)
    worst = 0.0
    for start, env, p_inf in envelopes.values():
        if outside + p_inf >= limit:
            raise ValueError(f"the bound never falls to delta={delta}: the mass at +inf and the outputs not covered "
                             f"(extra_delta={extra_delta}) exceed it")

        def bound(k: int, start=start, env=env) -> float:
            index = np.minimum(k - shifts - start, env.shape[0] - 1)  # >= 0 for k >= 0; past the end: the end
            return float(weights @ env[index]) + outside

        if bound(0) <= limit:
            continue
        lo, hi = 0, 1
        while not bound(hi) <= limit:  # a NaN is a failure, never a pass
            lo, hi = hi, 2 * hi
            if hi * h > 1e4:
                raise ValueError(f"the bound does not fall to delta={delta} below epsilon = 1e4")
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if bound(mid) <= limit else (mid, hi)
        worst = max(worst, hi * h)
    return worst
