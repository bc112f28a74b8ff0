"""Noise mechanisms: Laplace, Gaussian (classic / analytic / extended calibration), exponential.

Every sampling function takes ``random_state`` (int | numpy Generator | None; see
``_validation.check_random_state``), except the arbitrary-precision samplers, which take a Generator ``rng``.
Sensitivities are for the neighbouring relation of the caller (replace-one for the functional mechanism).

Two sampling paths:
- default (``secure=False``): NumPy's floating-point Laplace / normal samplers. Fast; this is what the papers
  assume. Like every textbook float sampler it is open to Mironov's (2012) floating-point attack: the set of
  doubles a noisy output can take depends on the input, so in theory an output can reveal it.
- ``secure=True``: discrete noise on a grid of width 2^k with exact integer arithmetic (Canonne, Kamath & Steinke
  2020 samplers: :func:`dpfair_native.kernels.discrete_laplace_noise` / ``discrete_gaussian_noise``, native C++ or
  their pure-Python twin, driven by a ChaCha20 keystream). The value is
  rounded to the grid first, which can move each coordinate by 2^k / 2, so the sensitivity is inflated by
  2^k·m (L1, m coordinates) or 2^k·sqrt(m) (L2); the grid is chosen with 2^k <= Δ / (1024·m) (resp. sqrt(m)),
  costing at most 0.1% more noise (while the scale stays under 2^23 grid units; see below). A value beyond
  2^52 − 1 grid steps is clamped to the grid's end (which moves no two values further apart). Guarantees, exactly
  (no floating-point step touches the privacy argument) up to the samplers' truncation, an additive δ below
  (1 + e^ε)·2·e^(−2^14) per discrete Laplace draw and (1 + e^ε)·e^(−2^22) per discrete Gaussian draw
  (``kernels.discrete_laplace_noise`` / ``discrete_gaussian_noise``):
    Laplace: discrete Laplace with scale b = (Δ_1 + 2^k m)/(ε 2^k) grid units  ->  ε-DP.
    Gaussian: discrete Gaussian, σ chosen so that ρ = Δ_2'²/(2σ²)-zCDP (CKS Thm 14) converts to (ε, δ)-DP by
    CKS Cor. 13 (the tight zCDP conversion); σ is a little larger than the analytic calibration.
  The key of the ChaCha20 stream: ``random_state=None`` draws it from the OS CSPRNG (``secrets``) — the secure
  setting; an int, a Generator (``rng.bytes(32)``) or a 32-byte key derives it deterministically, for research
  runs: whoever knows the seed can regenerate the noise, so the guarantee does not hold against them. If the
  scale would exceed 2^23 grid units the grid is doubled until it does not (more inflation, never less noise);
  rationals whose parts exceed 2^48 are rounded up (kernels.discrete_gaussian_noise).
  ``sample_discrete_laplace`` / ``sample_discrete_gaussian`` below are the arbitrary-precision versions on a NumPy
  Generator (PCG64, not a cryptographic source), kept for arbitrary rationals and for tests.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import numpy as np

from ._validation import check_delta, check_epsilon, check_random_state

__all__ = [
    "laplace_scale",
    "laplace_mechanism",
    "gaussian_mechanism",
    "classic_gaussian_sigma",
    "analytic_gaussian_sigma",
    "extended_gaussian_sigma",
    "gaussian_delta",
    "secure_gaussian_sigma",
    "exponential_mechanism",
    "exponential_mechanism_probabilities",
    "sample_discrete_laplace",
    "sample_discrete_gaussian",
    "secure_noise_scale",
    "permute_and_flip_secure",
]


def _check_sensitivity(sensitivity, name: str = "sensitivity") -> float:
    if isinstance(sensitivity, (bool, np.bool_)):
        raise TypeError(f"{name} must be a real number, got {sensitivity!r}")
    s = float(sensitivity)
    if not np.isfinite(s) or s < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {sensitivity!r}")
    return s


def _check_value(value) -> np.ndarray:
    v = np.asarray(value, dtype=np.float64)
    if not np.all(np.isfinite(v)):
        raise ValueError("value contains NaN or infinity; the released statistic must be finite")
    return v


def _out(v: np.ndarray, value):
    return float(v) if np.ndim(value) == 0 and not isinstance(value, np.ndarray) else v


# -- Laplace ---------------------------------------------------------------------------------------------------------
def laplace_scale(sensitivity: float, epsilon: float) -> float:
    """Δ/ε rounded up: the smallest float b with b·ε >= Δ exactly (Δ, ε > 0 finite; inf or 0 pass through).

    Lap(b) is ε-DP for an L1 sensitivity Δ when Δ/b <= ε, i.e. b·ε >= Δ. Plain division rounds to the nearest
    float, which is below the exact ratio for about half of the inputs, so the noise would be half an ulp short of
    what the stated ε needs. Read the other way, ``laplace_scale(Δ, b)`` is Δ/b rounded up: an ε that Lap(b)
    certainly guarantees. Correct rounding is within half an ulp, so at most one step up is ever needed. (The float
    exponential mechanisms' rates ε/(2Δ) are not rounded so: their exp() and sampling round by more than half an ulp
    anyway, which only the ``secure=True`` permute-and-flip path avoids.)
    """
    scale = sensitivity / epsilon
    if not (math.isfinite(sensitivity) and math.isfinite(epsilon) and math.isfinite(scale)):
        return scale
    for _ in range(2):
        if Fraction(scale) * Fraction(epsilon) >= Fraction(sensitivity):
            return scale
        scale = math.nextafter(scale, math.inf)
    raise RuntimeError(f"laplace_scale({sensitivity!r}, {epsilon!r}): division off by more than one ulp")


def laplace_mechanism(value, sensitivity, epsilon, *, random_state=None, secure: bool = False):
    """value + Lap(Δ_1/ε) per entry (the scale rounded up, :func:`laplace_scale`): ε-DP when Δ_1 bounds the L1
    change of ``value`` between neighbours.

    Returns float64 of the same shape (a Python float for a scalar). ``secure=True``: discrete Laplace on a 2^k
    grid (module docstring), ε-DP up to the samplers' truncation (an additive δ below (1 + e^ε)·2·e^(−2^14) per
    draw).
    """
    v = _check_value(value)
    sens = _check_sensitivity(sensitivity)
    eps = check_epsilon(epsilon)
    return _release(value, v, sens, random_state, secure, "laplace",
                    float_draw=lambda rng: rng.laplace(0.0, laplace_scale(sens, eps), size=v.shape),
                    secure_plan=lambda: _secure_laplace_plan(sens, eps, max(v.size, 1)))


def _release(value, v, sens, random_state, secure, kind, *, float_draw, secure_plan):
    """v + noise, shaped like ``value``: ``float_draw(rng)`` (float64 noise), or with ``secure`` exact draws of
    ``kind`` on the grid of ``secure_plan() = (granularity, noise parameter in grid units)``; v itself when the
    sensitivity is 0."""
    if not secure:
        rng = check_random_state(random_state)
        return _out(v.copy() if sens == 0 else v + float_draw(rng), value)
    if sens == 0:
        return _out(v.copy(), value)
    gran, param = secure_plan()
    z = _secure_draws(kind, v.size, param, random_state)
    return _out(_from_grid(_to_grid(v, gran), z, gran, v.shape), value)


# -- Gaussian calibration --------------------------------------------------------------------------------------------
def _log_ndtr(x: float) -> float:
    """log Φ(x) for the standard normal CDF, accurate in both tails (no scipy)."""
    if x > 0:
        return math.log1p(-0.5 * math.erfc(x / math.sqrt(2.0)))
    if x > -30.0:
        return math.log(0.5 * math.erfc(-x / math.sqrt(2.0)))
    x2 = x * x  # asymptotic series Σ_k (−1)^k (2k − 1)!!/x^2k to k = 8: relative error < 1e-19 here
    series, term = 1.0, 1.0
    for k in range(1, 9):
        term *= -(2 * k - 1) / x2
        series += term
    return -0.5 * x2 - math.log(-x) - 0.5 * math.log(2.0 * math.pi) + math.log(series)


def _log1mexp(t: float) -> float:
    """log(1 − e^t) for t < 0, without the cancellation of log1p(−e^t) near t = 0 (Mächler 2012)."""
    return math.log(-math.expm1(t)) if t > -math.log(2.0) else math.log1p(-math.exp(t))


# Gauss–Legendre rules (nodes, weights) on [−1, 1]: 6 points for half-widths a <= 0.1, else 16
_GAUSS_LEGENDRE = {k: tuple(zip(*(v.tolist() for v in np.polynomial.legendre.leggauss(k)))) for k in (6, 16)}


def _mills_log_slope(t: float) -> float:
    """(log R)'(t) = t − φ(t)/Φ(−t) < 0, R(t) = Φ(−t)/φ(t) the Mills ratio, without cancellation for large t.

    For t >= 10 from the asymptotic series t·R(t) = 1 + u, u = Σ_{k>=1} (−1)^k (2k − 1)!!/t^(2k), as t·u/(1 + u)
    (alternating: the error is below the first omitted term, < 1e-20·|u| or the smallest term, about e^(−t²/2));
    below from erfc, with relative error about t⁴·1e-16 (the rounding of t²/2 and of t/√2, then t − 1/R ≈ −1/t).
    """
    if t >= 10.0:
        t2, term, u = t * t, 1.0, 0.0
        for k in range(1, 64):
            step = (2 * k - 1) / t2
            if step >= 1.0 or term * step < 1e-20 * abs(u):
                break
            term *= step
            u += -term if k % 2 else term
        return t * u / (1.0 + u)
    return t - math.exp(-0.5 * t * t) / (math.sqrt(0.5 * math.pi) * math.erfc(t / math.sqrt(2.0)))


def _log_gaussian_delta(sigma: float, sensitivity: float, epsilon: float) -> float:
    """log δ(σ) with δ(σ) = Φ(Δ/2σ − εσ/Δ) − e^ε Φ(−Δ/2σ − εσ/Δ) (Balle & Wang 2018, Thm 8).

    With a = Δ/2σ, b = εσ/Δ (so 2ab = ε): δ = Φ(a − b)·(1 − e^g), g = ε + log Φ(−a − b) − log Φ(a − b) < 0. Taken
    as a difference of the two logarithms (each up to ~690 in size), g loses about (|log Φ| + (a + b)²)·1e-16 to
    rounding, which is all of it when ε is small (g ≈ −ε/b²). Then g comes from the identity
    g = log R(b + a) − log R(b − a) = ∫_{b−a}^{b+a} (t − φ(t)/Φ(−t)) dt (R the Mills ratio; the Gaussian densities'
    ratio φ(a + b)/φ(b − a) = e^(−2ab) cancels e^ε exactly), by Gauss–Legendre quadrature on the interval, used
    for a <= 2 and b − a >= −1: the integrand is analytic within ~2.8 of the real axis (its nearest poles,
    t ≈ −1.9 ± 2.8i, are the first zeros of erfc(t/√2)), so 16 points (6 for a <= 0.1) add an error far below
    the rounding. The evaluated δ is within a relative 4e-12 of 100-digit mpmath (tested over a grid of a, b).
    """
    a, b = sensitivity / (2.0 * sigma), epsilon * sigma / sensitivity
    x = _log_ndtr(a - b)
    g = epsilon + _log_ndtr(-a - b) - x
    if a <= 2.0 and b >= a - 1.0 and abs(g) < 1e-3 * (abs(x) + (a + b) ** 2 + 1.0):  # rounding > ~2e-13·|g|
        g = a * sum(w * _mills_log_slope(b + a * t) for t, w in _GAUSS_LEGENDRE[6 if a <= 0.1 else 16])
    if g >= 0.0:
        return -math.inf
    return x + _log1mexp(g)


def gaussian_delta(sigma, sensitivity, epsilon) -> float:
    """The exact δ at which N(0, σ²) noise on a query of L2 sensitivity Δ is (ε, δ)-DP (Balle & Wang 2018).

    Use it to report the true cost of a paper-faithful calibration (e.g. ``extended_gaussian_sigma``).
    """
    s = float(sigma)
    if not np.isfinite(s) or s <= 0:
        raise ValueError(f"sigma must be a finite number > 0, got {sigma!r}")
    sens = _check_sensitivity(sensitivity)
    if sens == 0:
        return 0.0
    return math.exp(_log_gaussian_delta(s, sens, check_epsilon(epsilon)))


def classic_gaussian_sigma(sensitivity, epsilon, delta) -> float:
    """σ = Δ_2·sqrt(2 ln(1.25/δ))/ε (Dwork & Roth 2014, Thm A.1); valid only for ε < 1."""
    sens = _check_sensitivity(sensitivity)
    eps = check_epsilon(epsilon)
    dl = check_delta(delta)
    if eps >= 1:
        raise ValueError(
            f"the classic Gaussian calibration needs epsilon < 1, got {epsilon!r}; use calibration='analytic'"
        )
    return sens / eps * math.sqrt(2.0 * _log_of_ratio(1.25, dl))


def _log_of_ratio(a: float, b: float) -> float:
    """log(a/b) without forming a/b, which overflows for a subnormal b (δ below ~1e-308)."""
    return math.log(a) - math.log(b)


def analytic_gaussian_sigma(sensitivity, epsilon, delta, *, rtol: float = 1e-12) -> float:
    """Smallest σ with Φ(Δ/2σ − εσ/Δ) − e^ε Φ(−Δ/2σ − εσ/Δ) <= δ (Balle & Wang 2018, ICML), any ε > 0.

    Bisection on the condition in log space (δ(σ) is decreasing), evaluated with relative error below ~4e-12
    (``_log_gaussian_delta``: at small ε the two Gaussian tails nearly agree, and their difference is integrated
    rather than subtracted), against δ·(1 − 1e-10) as a margin for that error; returns the upper end of the final
    bracket (relative width rtol). So the condition holds exactly at the returned σ: tested against 100-digit
    mpmath for ε from 1e-14 to 500 and δ from 0.3 to 1e-300, where the σ is also within 1e-8 of the smallest.
    """
    sens = _check_sensitivity(sensitivity)
    eps = check_epsilon(epsilon)
    dl = check_delta(delta)
    if sens == 0:
        return 0.0
    log_d = math.log(dl) - 1e-10
    ok = lambda s: _log_gaussian_delta(s, sens, eps) <= log_d  # noqa: E731
    return _smallest_sigma(ok, sens / eps * math.sqrt(2.0 * _log_of_ratio(1.25, dl)), 2.0, rtol)


def _smallest_sigma(ok, start: float, factor: float, rtol: float) -> float:
    """The upper end of a bracket of relative width ``rtol`` around the smallest σ with ok(σ) (ok monotone: false
    below the threshold, true above): from ``start``, grow by ``factor`` until ok, shrink while ok, then bisect."""
    if not 0.0 < start < math.inf:
        raise ValueError("no finite noise level meets this (epsilon, delta): raise epsilon or delta")
    hi = start
    while not ok(hi):
        hi *= factor
        if not math.isfinite(hi):  # e.g. ε below what the zCDP conversion's orders (<= 1e7) can certify
            raise ValueError("no finite noise level meets this (epsilon, delta): raise epsilon or delta")
    lo = hi / factor
    while lo > 1e-300 and ok(lo):
        hi, lo = lo, lo / factor
    while hi - lo > rtol * hi:
        mid = 0.5 * (lo + hi)
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi


def extended_gaussian_sigma(sensitivity, epsilon, delta) -> float:
    """σ = (√2 Δ_2/2ε)·(sqrt(ln(sqrt(2/π)/δ)) + sqrt(ln(sqrt(2/π)/δ) + ε)): Ding et al. Theorem 2 (after Phan et
    al. 2019), for paper-faithful runs. Not checked against the exact condition; ``gaussian_delta`` gives the
    true δ of this σ. Needs δ < sqrt(2/π)."""
    sens = _check_sensitivity(sensitivity)
    eps = check_epsilon(epsilon)
    dl = check_delta(delta)
    L = math.log(math.sqrt(2.0 / math.pi) / dl)
    if L <= 0:
        raise ValueError(f"the extended Gaussian calibration needs delta < sqrt(2/pi) ~ 0.798, got {delta!r}")
    return math.sqrt(2.0) * sens / (2.0 * eps) * (math.sqrt(L) + math.sqrt(L + eps))


def _zcdp_epsilon(rho: float, delta: float) -> float:
    """ε of ρ-zCDP at δ: min over α > 1 of αρ + ln((α−1)/α) − (ln δ + ln α)/(α−1) (CKS 2020, Cor. 13).

    Any α gives a valid ε, so a grid search followed by local refinement is rigorous."""
    log_d = math.log(delta)

    def f(a):
        return a * rho + math.log((a - 1.0) / a) - (log_d + math.log(a)) / (a - 1.0)

    grid = np.exp(np.linspace(math.log(1.0 + 1e-6), math.log(1e7), 400))
    vals = grid * rho + np.log((grid - 1.0) / grid) - (log_d + np.log(grid)) / (grid - 1.0)  # f on the grid
    i = int(np.argmin(vals))
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]
    for _ in range(100):  # golden-section on the bracket
        m1, m2 = lo + 0.382 * (hi - lo), lo + 0.618 * (hi - lo)
        if f(m1) < f(m2):
            hi = m2
        else:
            lo = m1
    return float(min(float(np.min(vals)), f(0.5 * (lo + hi))))


def secure_gaussian_sigma(sensitivity, epsilon, delta) -> float:
    """σ for the secure (discrete Gaussian) path: smallest σ (relative 1e-10) with ρ = Δ²/(2σ²) and
    ``_zcdp_epsilon(ρ, δ) <= ε``. Δ here is the (already inflated) L2 sensitivity."""
    sens = _check_sensitivity(sensitivity)
    eps = check_epsilon(epsilon)
    dl = check_delta(delta)
    if sens == 0:
        return 0.0
    ok = lambda s: _zcdp_epsilon(sens * sens / (2.0 * s * s), dl) <= eps  # noqa: E731
    return _smallest_sigma(ok, analytic_gaussian_sigma(sens, eps, dl), 1.5, 1e-10)


_CALIBRATIONS = {
    "analytic": analytic_gaussian_sigma,
    "classic": classic_gaussian_sigma,
    "extended": extended_gaussian_sigma,
}


def gaussian_mechanism(
    value, sensitivity, epsilon, delta, *, calibration: str = "analytic", random_state=None, secure: bool = False
):
    """value + N(0, σ²) per entry, σ from ``calibration`` ("analytic" | "classic" | "extended"): (ε, δ)-DP when
    Δ_2 bounds the L2 change of ``value`` between neighbours ("extended" is the papers' formula; see its doc).

    ``secure=True``: discrete Gaussian on a 2^k grid with σ = ``secure_gaussian_sigma`` of the inflated
    sensitivity (module docstring); ``calibration`` is then ignored because only that calibration is proven for it.
    """
    if calibration not in _CALIBRATIONS:
        raise ValueError(f"calibration must be one of {sorted(_CALIBRATIONS)}, got {calibration!r}")
    v = _check_value(value)
    sens = _check_sensitivity(sensitivity)
    eps = check_epsilon(epsilon)
    dl = check_delta(delta)

    def secure_plan():
        gran, sigma = _secure_gaussian_plan(sens, eps, dl, max(v.size, 1))
        return gran, (Fraction(sigma) / gran) ** 2  # the variance in grid units

    return _release(value, v, sens, random_state, secure, "gaussian",
                    float_draw=lambda rng: rng.normal(0.0, _CALIBRATIONS[calibration](sens, eps, dl), size=v.shape),
                    secure_plan=secure_plan)


# -- exponential mechanism -------------------------------------------------------------------------------------------
def _check_selection(utilities, sensitivity, epsilon):
    """(u, Δu, ε) of a selection mechanism: a finite non-empty 1-D utility vector, Δu > 0, ε > 0."""
    u = np.asarray(utilities, dtype=np.float64)
    if u.ndim != 1 or u.size == 0:
        raise ValueError(f"utilities must be a non-empty 1-D array, got shape {u.shape}")
    if not np.all(np.isfinite(u)):
        raise ValueError("utilities contain NaN or infinity")
    sens = _check_sensitivity(sensitivity)
    if sens == 0:
        raise ValueError("sensitivity must be > 0 for the exponential mechanism")
    return u, sens, check_epsilon(epsilon)


def exponential_mechanism_probabilities(utilities, sensitivity, epsilon) -> np.ndarray:
    """P(i) ∝ exp(ε·u_i/(2Δu)) (McSherry & Talwar 2007): ε-DP when each u_i changes by at most Δu between
    neighbours. Higher utility is better (pass −loss). Computed with the max subtracted (stable for any range)."""
    u, sens, eps = _check_selection(utilities, sensitivity, epsilon)
    z = (eps / (2.0 * sens)) * (u - u.max())
    p = np.exp(z)
    return p / p.sum()


def exponential_mechanism(utilities, sensitivity, epsilon, *, random_state=None) -> int:
    """An index drawn with probability ∝ exp(ε·u/(2Δu)) (see ``exponential_mechanism_probabilities``)."""
    p = exponential_mechanism_probabilities(utilities, sensitivity, epsilon)
    rng = check_random_state(random_state)
    c = np.cumsum(p)
    return int(min(np.searchsorted(c, rng.random() * c[-1], side="right"), p.size - 1))


def permute_and_flip_secure(utilities, sensitivity, epsilon, *, random_state=None) -> int:
    """An index chosen by the permute-and-flip mechanism on grid-rounded utilities, sampled exactly: ε-DP.

    Mechanism (McKenna & Sheldon 2020, "Permute-and-Flip: A new mechanism for differentially private selection",
    NeurIPS): visit the candidates in a uniformly random order and return the first r for which a coin with
    P(heads) = exp(ε·(u_r − u*)/(2Δ)) lands heads (u* = max utility, so the best candidate always stops it). It is
    ε-DP whenever every utility changes by at most Δ between neighbours (their privacy theorem), like the
    exponential mechanism, and its expected utility is never worse.

    Exact version: utilities are rounded to a grid γ = 2^k <= Δ/1024, ũ_r = γ·rint(u_r/γ); rounding moves each
    utility by <= γ/2, so ũ has sensitivity Δ' = Δ + γ (<= 0.1% more), and PF is run with Δ'. The coin's
    exponent ε·γ·(k* − k_r)/(2Δ') is an exact rational (ε and Δ are floats, i.e. dyadic rationals; k integers),
    so the coin is Bernoulli(exp(−x)) by CKS 2020 Algorithm 1 in integer arithmetic, and the order is a
    Fisher–Yates shuffle with unbiased integers — all from a ChaCha20 stream (key from ``random_state`` as in
    :func:`dpfair_native.kernels.discrete_gaussian_noise`: None = OS CSPRNG). Higher utility is better.
    """
    from . import _reference
    from ._secure_random import SecureKeys

    u, sens, eps = _check_selection(utilities, sensitivity, epsilon)
    gran = _grid(sens / 1024.0)
    k = [round(Fraction(float(x)) / gran) for x in u]
    k_best = max(k)
    scale = Fraction(eps) * gran / (2 * (Fraction(sens) + gran))  # exponent per grid step
    stream = _reference.ChaCha20Bits(SecureKeys(random_state).next())
    order = list(range(u.size))
    for i in range(u.size):  # lazy Fisher–Yates: position i gets a uniform pick among the unvisited
        j = i + stream.uniform_below(u.size - i)
        order[i], order[j] = order[j], order[i]
        r = order[i]
        x = scale * (k_best - k[r])
        if _reference._bernoulli_exp(stream, x.numerator, x.denominator):
            return r
    raise AssertionError("unreachable: the best candidate's coin has probability 1")  # pragma: no cover


# -- exact discrete samplers (Canonne, Kamath & Steinke 2020) --------------------------------------------------------
_SECURE_MAX_UNITS = 2.0**23  # noise scale in grid units: the native samplers take σ² (or the scale) <= 2^48
_SECURE_MAX_DOUBLINGS = 256  # a scale near the asymptote (m/ε or σ(1)·√m just below 2^23 units) ends in an error


def _secure_laplace_plan(sens: float, eps: float, m: int):
    """(grid 2^k, scale in grid units): 2^k <= Δ/(1024 m) (doubled while the scale exceeds 2^23 grid units)."""
    if m / eps >= _SECURE_MAX_UNITS:  # the scale in grid units only falls toward m/ε as the grid coarsens
        _secure_out_of_range(m, eps)
    gran = _grid(sens / (1024.0 * m))
    for _ in range(_SECURE_MAX_DOUBLINGS):
        scale = (Fraction(sens) / gran + m) / Fraction(eps)
        if scale <= _SECURE_MAX_UNITS:
            return gran, scale
        gran *= 2
    _secure_out_of_range(m, eps)


def _secure_out_of_range(m: int, eps: float):
    raise ValueError(
        f"secure=True cannot release {m} value(s) at epsilon={eps:g}: the noise would need more than 2^23 grid units "
        "however coarse the grid (the exact samplers' range); use a larger epsilon, release fewer values, or "
        "secure=False"
    )


@functools.lru_cache(maxsize=256)
def _secure_gaussian_sigma_cached(sens: float, eps: float, delta: float) -> float:
    return secure_gaussian_sigma(sens, eps, delta)  # a pure function of its floats; the bisection is the slow part


def _secure_gaussian_plan(sens: float, eps: float, delta: float, m: int):
    """(grid 2^k, σ in value units) for the inflated sensitivity Δ + 2^k·√m (grid doubled while σ > 2^23 units)."""
    # σ(Δ + 2^k√m)/2^k falls toward σ(1)·√m as the grid coarsens (σ is linear in the sensitivity)
    if _secure_gaussian_sigma_cached(1.0, eps, delta) * math.sqrt(m) >= _SECURE_MAX_UNITS:
        _secure_out_of_range(m, eps)
    gran = _grid(sens / (1024.0 * math.sqrt(m)))
    for _ in range(_SECURE_MAX_DOUBLINGS):
        sigma = _secure_gaussian_sigma_cached(sens + float(gran) * math.sqrt(m), eps, delta)
        if sigma / float(gran) <= _SECURE_MAX_UNITS:
            return gran, sigma
        gran *= 2
    _secure_out_of_range(m, eps)


def secure_noise_scale(mechanism: str, size: int, sensitivity, epsilon, delta=None) -> float:
    """The noise scale the secure path really uses, in the value's units (before the exact rounding-up of the
    rational scale, which adds at most a relative 2^-20): Laplace b = 2^k·(Δ/2^k + m)/ε = (Δ + 2^k m)/ε,
    Gaussian σ = ``secure_gaussian_sigma(Δ + 2^k √m)``. Use it wherever a noise level feeds post-processing."""
    sens = _check_sensitivity(sensitivity)
    eps = check_epsilon(epsilon)
    m = max(int(size), 1)
    if sens == 0:
        return 0.0
    if mechanism == "laplace":
        gran, scale = _secure_laplace_plan(sens, eps, m)
        return float(scale * gran)
    if mechanism == "gaussian":
        return float(_secure_gaussian_plan(sens, eps, check_delta(delta), m)[1])
    raise ValueError(f"mechanism must be 'laplace' or 'gaussian', got {mechanism!r}")


def _secure_draws(kind: str, size: int, param, random_state) -> np.ndarray:
    """Exact integer noise from the ChaCha20 samplers (:mod:`dpfair_native.kernels`); the native ones when built."""
    from . import kernels

    backend = "native" if kernels.native_available() else "numpy"
    fn = kernels.discrete_laplace_noise if kind == "laplace" else kernels.discrete_gaussian_noise
    return fn(size, param, random_state=random_state, backend=backend)


def _grid(target: float) -> Fraction:
    """The largest power of two <= target (exact)."""
    if not target > 0:
        raise ValueError("sensitivity must be > 0 for the secure path")
    k = math.floor(math.log2(target))
    if 2.0**k > target:
        k -= 1
    return Fraction(2) ** k


_GRID_LIMIT = 2.0**52 - 1


def _to_grid(v: np.ndarray, gran: Fraction) -> np.ndarray:
    """round(v / 2^k) to the nearest integer, ties to even: exact in float64 (division by a power of two is exact
    while no result is subnormal; below 2^52 every rounded value is an exact integer). A value beyond 2^52 − 1
    grid steps is clamped to that first: the clamp moves no two values further apart, so the (inflated)
    sensitivity still holds, and no value decides whether the release runs (it used to raise)."""
    q = np.clip(v.ravel() / float(gran), -_GRID_LIMIT, _GRID_LIMIT)
    return np.rint(q).astype(np.int64)


def _from_grid(k, z, gran: Fraction, shape) -> np.ndarray:
    """(k + z)·2^k: integer sums, then one exact scaling (exact while |k + z| < 2^53)."""
    total = np.asarray(k, dtype=np.int64) + np.asarray(z, dtype=np.int64)
    return (total.astype(np.float64) * float(gran)).reshape(shape)


def _uniform_below(n: int, rng: np.random.Generator) -> int:
    """Uniform integer in {0, ..., n−1}, unbiased (rejection on random bits)."""
    if n <= 2**62:
        return int(rng.integers(0, n))
    bits = n.bit_length()
    words = (bits + 63) // 64
    while True:
        r = 0
        for w in rng.integers(0, 2**63, size=words, dtype=np.int64).tolist():
            r = (r << 63) | w
        r &= (1 << bits) - 1
        if r < n:
            return r


def _bernoulli(p: Fraction, rng) -> bool:
    return _uniform_below(p.denominator, rng) < p.numerator


def _bernoulli_exp(gamma: Fraction, rng) -> bool:
    """Bernoulli(exp(−γ)) for rational γ >= 0, exactly (CKS Algorithm 1)."""
    while gamma > 1:
        if not _bernoulli_exp(Fraction(1), rng):
            return False
        gamma -= 1
    k = 1
    while _bernoulli(gamma / k, rng):
        k += 1
    return k % 2 == 1


def sample_discrete_laplace(scale, rng=None) -> int:
    """One draw from P(z) ∝ exp(−|z|/scale) on the integers, scale = t/s rational > 0 (CKS Algorithm 2)."""
    rng = check_random_state(rng)
    scale = Fraction(scale)
    if scale <= 0:
        raise ValueError(f"scale must be > 0, got {scale}")
    t, s = scale.numerator, scale.denominator
    while True:
        u = _uniform_below(t, rng)
        if not _bernoulli_exp(Fraction(u, t), rng):
            continue
        v = 0
        while _bernoulli_exp(Fraction(1), rng):
            v += 1
        y = (u + t * v) // s
        negative = _bernoulli(Fraction(1, 2), rng)
        if negative and y == 0:
            continue
        return -y if negative else y


def sample_discrete_gaussian(sigma2, rng=None) -> int:
    """One draw from P(z) ∝ exp(−z²/(2σ²)) on the integers, σ² rational > 0 (CKS Algorithm 3)."""
    rng = check_random_state(rng)
    sigma2 = Fraction(sigma2)
    if sigma2 <= 0:
        raise ValueError(f"sigma2 must be > 0, got {sigma2}")
    t = math.isqrt(sigma2.numerator // sigma2.denominator) + 1
    while True:
        y = sample_discrete_laplace(t, rng)
        gamma = (abs(y) - sigma2 / t) ** 2 / (2 * sigma2)
        if _bernoulli_exp(gamma, rng):
            return y
