"""The secure (exact, grid-rounded) mechanisms calibrate their noise to the grid-inflated sensitivity.

Rounding a value to a grid of width γ = 2^k moves each coordinate by at most γ/2, so two neighbouring values, Δ apart
before rounding, can be up to Δ + γ·m apart in L1 (m coordinates), Δ + γ·√m in L2, and a utility Δ + γ. The module
docstring of ``dpfair_native.mechanisms`` (and ``permute_and_flip_secure``'s) states the calibrations that follow:

- Laplace: γ = the largest power of two <= Δ/(1024·m) (doubled while the scale exceeds 2^23 grid units), discrete
  Laplace with scale b = (Δ/γ + m)/ε grid units, i.e. (Δ + γ·m)/ε in the value's units;
- Gaussian: γ = the largest power of two <= Δ/(1024·√m) (doubled likewise), σ = ``secure_gaussian_sigma`` of
  Δ + γ·√m: the smallest σ whose ρ = (Δ + γ√m)²/(2σ²)-zCDP converts to (ε, δ)-DP by CKS 2020 Cor. 13;
- permute-and-flip: γ = the largest power of two <= Δ/1024, utilities rounded to multiples of γ, and the coin of
  candidate r lands heads with probability exp(−x), x = ε·(ũ* − ũ_r)/(2(Δ + γ)).

These tests recompute γ, the scale, σ and the coins' exponents here from those formulas (the power of two exactly,
from ``math.frexp``; the zCDP conversion by its own minimisation) and compare them with what the functions plan and
with what they hand to the exact samplers.
"""

import math
from fractions import Fraction

import numpy as np
import pytest

from dpfair_native import _reference, mechanisms
from dpfair_native.mechanisms import (
    _secure_gaussian_plan,
    _secure_laplace_plan,
    gaussian_mechanism,
    laplace_mechanism,
    permute_and_flip_secure,
    secure_gaussian_sigma,
    secure_noise_scale,
)

MAX_UNITS = 2**23  # the samplers' largest noise scale in grid units (module docstring)


def _power_of_two_at_most(x: float) -> Fraction:
    """The largest power of two <= x > 0, exactly: x = f·2^e with f in [0.5, 1), so it is 2^(e − 1)."""
    _, e = math.frexp(x)
    return Fraction(2) ** (e - 1)


def _zcdp_to_dp_epsilon(rho: float, delta: float) -> float:
    """CKS 2020 Cor. 13: ε = min over α > 1 of αρ + ln((α − 1)/α) − (ln δ + ln α)/(α − 1); a grid over ln(α − 1),
    then golden-section search around the grid's minimum."""
    def f(t):
        a = 1.0 + math.exp(t)
        return a * rho + math.log((a - 1.0) / a) - (math.log(delta) + math.log(a)) / (a - 1.0)

    ts = np.linspace(-14.0, 18.0, 6401)
    vals = [f(t) for t in ts]
    i = int(np.argmin(vals))
    lo, hi = ts[max(i - 1, 0)], ts[min(i + 1, ts.size - 1)]
    g = (math.sqrt(5.0) - 1.0) / 2.0
    for _ in range(120):
        m1, m2 = hi - g * (hi - lo), lo + g * (hi - lo)
        if f(m1) < f(m2):
            hi = m2
        else:
            lo = m1
    return min(min(vals), f(0.5 * (lo + hi)))


def _spy_secure_draws(monkeypatch):
    """Records (kind, size, noise parameter in grid units) of every call to the exact samplers."""
    calls = []
    real = mechanisms._secure_draws

    def spy(kind, size, param, random_state):
        calls.append((kind, size, param))
        return real(kind, size, param, random_state)

    monkeypatch.setattr(mechanisms, "_secure_draws", spy)
    return calls


# -- Laplace ---------------------------------------------------------------------------------------------------------
def _expected_laplace(sens, eps, m):
    gran = _power_of_two_at_most(sens / (1024.0 * m))
    while (Fraction(sens) / gran + m) / Fraction(eps) > MAX_UNITS:  # coarsen: more inflation, never less noise
        gran *= 2
    return gran, (Fraction(sens) / gran + m) / Fraction(eps)


@pytest.mark.parametrize(("sens", "eps", "m"), [(1.0, 1.0, 1), (3.7, 0.3, 5), (0.02, 2.0, 40), (6.0, 0.5, 100),
                                                (2.0 / 3.0, 0.1, 7), (5.0, 0.001, 2000)])
def test_secure_laplace_scale_is_the_grid_inflated_sensitivity_over_epsilon(monkeypatch, sens, eps, m):
    """Catches the grid-rounding inflation (+γ·m) left out of the discrete Laplace scale: the release is then
    (ε·(1 + γm/Δ))-DP, up to 0.1 % more than claimed (more where the grid is coarsened, the last case)."""
    gran, scale = _secure_laplace_plan(sens, eps, m)
    want_gran, want_scale = _expected_laplace(sens, eps, m)
    assert gran == want_gran and scale == want_scale
    assert scale * gran == (Fraction(sens) + gran * m) / Fraction(eps)  # (Δ + γm)/ε in the value's units
    if want_gran == _power_of_two_at_most(sens / (1024.0 * m)):  # not coarsened: at most 0.1 % inflation
        assert gran * 1024 * m <= Fraction(sens) < gran * 2048 * m
    assert secure_noise_scale("laplace", m, sens, eps) == float((Fraction(sens) + gran * m) / Fraction(eps))
    # what the exact sampler is handed by the public mechanism
    calls = _spy_secure_draws(monkeypatch)
    v = np.linspace(-3.0, 3.0, m)
    laplace_mechanism(v if m > 1 else 0.25, sens, eps, random_state=0, secure=True)
    assert calls == [("laplace", m, want_scale)]


# -- Gaussian --------------------------------------------------------------------------------------------------------
def _expected_gaussian(sens, eps, delta, m):
    gran = _power_of_two_at_most(sens / (1024.0 * math.sqrt(m)))
    while secure_gaussian_sigma(sens + float(gran) * math.sqrt(m), eps, delta) / float(gran) > MAX_UNITS:
        gran *= 2
    return gran, sens + float(gran) * math.sqrt(m)


@pytest.mark.parametrize(("sens", "eps", "delta", "m"), [(1.0, 1.0, 1e-5, 1), (2.5, 0.5, 1e-6, 10),
                                                         (0.3, 3.0, 1e-5, 200), (7.0, 0.8, 1e-8, 37),
                                                         (1.0, 0.01, 1e-5, 400)])
def test_secure_gaussian_sigma_is_calibrated_to_the_grid_inflated_sensitivity(monkeypatch, sens, eps, delta, m):
    """Catches σ calibrated to Δ instead of Δ + γ·√m: the rounded release's ρ then exceeds the one whose conversion
    is ε, and σ falls short of (Δ + γ√m)·σ(1) (σ is linear in the sensitivity) by about a relative 1/1024."""
    gran, sigma = _secure_gaussian_plan(sens, eps, delta, m)
    want_gran, inflated = _expected_gaussian(sens, eps, delta, m)
    assert gran == want_gran
    assert sigma == pytest.approx(inflated * secure_gaussian_sigma(1.0, eps, delta), rel=1e-8)
    # the privacy condition itself, with this file's own zCDP conversion: met at σ for the inflated sensitivity,
    # and not met 0.01 % below it (σ is the smallest such, not an over-calibration)
    assert _zcdp_to_dp_epsilon(inflated**2 / (2.0 * sigma**2), delta) <= eps * (1.0 + 1e-9)
    low = sigma * (1.0 - 1e-4)
    assert _zcdp_to_dp_epsilon(inflated**2 / (2.0 * low**2), delta) > eps
    assert secure_noise_scale("gaussian", m, sens, eps, delta) == sigma
    calls = _spy_secure_draws(monkeypatch)
    gaussian_mechanism(np.linspace(0.0, 1.0, m), sens, eps, delta, random_state=0, secure=True)
    assert calls == [("gaussian", m, (Fraction(sigma) / gran) ** 2)]  # the variance in grid units


# -- permute-and-flip ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("utilities", "sens", "eps"), [([0.0, 0.3, 1.7, 2.2, 5.0], 1.0, 1.0),
                                                        ([-1.25, 0.1, 0.33, 0.9, 0.05, -0.4], 0.37, 0.8),
                                                        ([10.0, 12.5, 7.3, 11.9], 3.0, 2.5)])
def test_permute_and_flip_coins_use_the_grid_inflated_sensitivity(monkeypatch, utilities, sens, eps):
    """Catches the coins' exponent computed with Δ instead of Δ + γ: every coin then lands heads a little too often
    for a low-utility candidate (an (ε·(1 + γ/Δ))-DP selection). Each coin's exponent, recorded at the exact
    Bernoulli(exp(−x)) sampler, must be ε·(ũ* − ũ_r)/(2(Δ + γ)) for some candidate r."""
    gran = _power_of_two_at_most(sens / 1024.0)
    rounded = [gran * round(Fraction(u) / gran) for u in utilities]  # ũ_r = γ·rint(u_r/γ) (no ties here)
    best = max(rounded)
    allowed = {Fraction(eps) * (best - r) / (2 * (Fraction(sens) + gran)) for r in rounded}
    exponents = []
    real = _reference._bernoulli_exp

    def spy(stream, num, den):
        exponents.append(Fraction(num, den))
        return real(stream, num, den)

    monkeypatch.setattr(_reference, "_bernoulli_exp", spy)
    picks = [permute_and_flip_secure(utilities, sens, eps, random_state=seed) for seed in range(30)]
    assert all(0 <= p < len(utilities) for p in picks)
    assert set(exponents) <= allowed, sorted(set(exponents) - allowed)[:3]
    assert any(x > 0 for x in exponents)  # some coin of a worse candidate was tossed
