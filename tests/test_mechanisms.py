"""Noise mechanisms: distributions (KS / chi-square at fixed seeds), calibrations against dp_accounting and mpmath."""

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy import stats

from dpfair_native import mechanisms as M


def test_laplace_distribution_and_wrong_scale_rejected():
    noise = M.laplace_mechanism(np.zeros(20000), 2.0, 0.5, random_state=0)
    assert noise.shape == (20000,) and noise.dtype == np.float64
    assert stats.kstest(noise, stats.laplace(scale=4.0).cdf).pvalue > 0.01
    assert stats.kstest(noise, stats.laplace(scale=4.4).cdf).pvalue < 1e-6  # 10% off is detected


def test_gaussian_distribution_and_wrong_scale_rejected():
    sigma = M.analytic_gaussian_sigma(1.0, 1.0, 1e-5)
    noise = M.gaussian_mechanism(np.zeros(20000), 1.0, 1.0, 1e-5, random_state=1)
    assert stats.kstest(noise, stats.norm(scale=sigma).cdf).pvalue > 0.01
    assert stats.kstest(noise, stats.norm(scale=1.1 * sigma).cdf).pvalue < 1e-6


def test_shapes_scalars_and_reproducibility():
    v = np.arange(6.0).reshape(2, 3)
    a = M.laplace_mechanism(v, 1.0, 1.0, random_state=3)
    assert a.shape == (2, 3) and np.array_equal(a, M.laplace_mechanism(v, 1.0, 1.0, random_state=3))
    assert not np.array_equal(M.laplace_mechanism(v, 1.0, 1.0), M.laplace_mechanism(v, 1.0, 1.0))
    assert isinstance(M.gaussian_mechanism(1.0, 1.0, 0.5, 1e-5, random_state=0), float)
    g = np.random.default_rng(5)
    assert M.gaussian_mechanism(v, 1.0, 1.0, 1e-5, random_state=g).shape == (2, 3)
    assert np.array_equal(M.laplace_mechanism(v, 0.0, 1.0), v)  # zero sensitivity: nothing to hide
    assert np.array_equal(v, np.arange(6.0).reshape(2, 3))


@pytest.mark.parametrize("eps,delta",
                         [(0.01, 1e-3), (0.1, 1e-5), (1.0, 1e-5), (5.0, 1e-6), (50.0, 1e-10), (500.0, 1e-8)])
def test_analytic_sigma_matches_dp_accounting_and_mpmath(eps, delta):
    sigma = M.analytic_gaussian_sigma(3.0, eps, delta)
    try:
        from dp_accounting import gaussian_mechanism as G
    except ImportError:  # dp_accounting < 0.6 (the newest for Python 3.9) has no gaussian_mechanism module
        G = None
    if G is not None:
        assert sigma == pytest.approx(3.0 * G.get_sigma_gaussian(eps, delta), rel=1e-8)
    # independent high-precision check of the exact condition at the returned σ and just below it (Δ = 3)
    assert _exact_delta(sigma / 3, eps) <= delta < _exact_delta(sigma * (1 - 1e-8) / 3, eps)
    if eps < 1:
        assert sigma <= M.classic_gaussian_sigma(3.0, eps, delta)


@pytest.mark.parametrize("mechanism", ["laplace", "gaussian"])
def test_a_value_beyond_the_secure_grid_is_clamped_not_refused(mechanism):
    """2^52 grid steps used to raise: a bin count crossing it decided whether the release ran (review 16)."""
    value = np.array([0.0, 2.0**60, -(2.0**60)])
    args = (1.0, 1.0) if mechanism == "laplace" else (1.0, 1.0, 1e-5)
    noisy = getattr(M, f"{mechanism}_mechanism")(value, *args, random_state=0, secure=True)
    assert np.all(np.isfinite(noisy)) and noisy[1] > 2.0**39 and noisy[2] < -(2.0**39)  # the grid ends near 2^40


@pytest.mark.parametrize("delta", [1e-300, 1e-310])
def test_analytic_sigma_at_an_extreme_or_subnormal_delta_is_finite_and_valid(delta):
    """1.25/δ overflows for a subnormal δ: the start of the search used to be inf, and the search never ended."""
    sigma = M.analytic_gaussian_sigma(1.0, 1.0, delta)
    assert math.isfinite(sigma) and M.gaussian_delta(sigma, 1.0, 1.0) <= delta
    assert math.isfinite(M.classic_gaussian_sigma(1.0, 0.5, delta))


def _exact_delta(sigma, eps, dps=100):
    with mpmath.workdps(dps):
        sigma, eps = mpmath.mpf(sigma), mpmath.mpf(eps)
        a, b = 1 / (2 * sigma), eps * sigma
        return mpmath.ncdf(a - b) - mpmath.exp(eps) * mpmath.ncdf(-a - b)


@pytest.mark.parametrize("eps", [1e-14, 1e-12, 1e-8, 1e-4, 0.01, 0.1, 1.0, 10.0, 200.0, 500.0])
@pytest.mark.parametrize("delta", [0.3, 1e-5, 1e-20, 1e-50, 1e-200, 1e-300])
def test_analytic_sigma_meets_delta_exactly_and_tightly(eps, delta):
    """The docstring's claim: the condition holds at the returned σ in 100-digit arithmetic, and fails 1e-8 below
    it. At small ε the two tails nearly agree: subtracting their logarithms gave σ with 4 % too much δ at
    ε = 1e-12, δ = 1e-20, and 1e281 times too much at ε = 1e-14, δ = 1e-300."""
    sigma = M.analytic_gaussian_sigma(1.0, eps, delta)
    assert _exact_delta(sigma, eps) <= delta < _exact_delta(sigma * (1 - 1e-8), eps)


def test_gaussian_delta_is_accurate_where_the_tails_nearly_agree():
    """δ(σ) within a relative 1e-11 of 100-digit mpmath over a = Δ/2σ from 1e-15 to 5 and b = εσ/Δ to 38."""
    worst = 0.0
    for a in np.geomspace(1e-15, 5.0, 25):
        for b in np.linspace(-0.9, 38.0, 30):
            sigma, eps = 1 / (2 * a), 2 * a * b
            exact = _exact_delta(sigma, eps)
            if eps > 0 and exact > 1e-300:
                worst = max(worst, abs(float(M.gaussian_delta(sigma, 1.0, eps) / exact - 1)))
    assert worst < 1e-11, worst


def test_extended_sigma_formula_and_true_delta():
    eps, delta = 0.5, 1e-3
    L = math.log(math.sqrt(2 / math.pi) / delta)
    assert M.extended_gaussian_sigma(2.0, eps, delta) == pytest.approx(
        math.sqrt(2) * 2.0 / (2 * eps) * (math.sqrt(L) + math.sqrt(L + eps))
    )
    s = M.extended_gaussian_sigma(1.0, eps, delta)
    assert M.gaussian_delta(s, 1.0, eps) <= delta  # conservative at this setting
    assert M.gaussian_delta(M.analytic_gaussian_sigma(1.0, eps, delta), 1.0, eps) == pytest.approx(delta, rel=1e-6)


def test_invalid_arguments():
    for bad in (0.0, -1.0, np.nan, np.inf):
        with pytest.raises(ValueError):
            M.laplace_mechanism(1.0, 1.0, bad)
        with pytest.raises(ValueError):
            M.analytic_gaussian_sigma(1.0, bad, 1e-5)
    for bad in (0.0, 1.0, -0.1, np.nan):
        with pytest.raises(ValueError):
            M.gaussian_mechanism(1.0, 1.0, 1.0, bad)
    for bad in (-1.0, np.nan, np.inf):
        with pytest.raises(ValueError):
            M.laplace_mechanism(1.0, bad, 1.0)
        with pytest.raises(ValueError):
            M.gaussian_mechanism(1.0, bad, 1.0, 1e-5)
    with pytest.raises(ValueError, match="analytic"):
        M.classic_gaussian_sigma(1.0, 1.0, 1e-5)
    with pytest.raises(ValueError):
        M.gaussian_mechanism(1.0, 1.0, 1.0, 1e-5, calibration="exact")
    with pytest.raises(ValueError):
        M.laplace_mechanism([1.0, np.nan], 1.0, 1.0)
    with pytest.raises(ValueError):
        M.exponential_mechanism([], 1.0, 1.0)


def test_exponential_mechanism_frequencies_and_stability():
    u = np.array([0.0, 1.0, 2.0, 4.0])
    p = M.exponential_mechanism_probabilities(u, 1.0, 1.0)
    assert np.allclose(p, np.exp(u / 2) / np.exp(u / 2).sum())
    rng = np.random.default_rng(7)
    draws = np.array([M.exponential_mechanism(u, 1.0, 1.0, random_state=rng) for _ in range(8000)])
    counts = np.bincount(draws, minlength=4)
    assert stats.chisquare(counts, 8000 * p).pvalue > 0.01
    wrong = M.exponential_mechanism_probabilities(u, 1.0, 2.0)
    assert stats.chisquare(counts, 8000 * wrong).pvalue < 1e-6
    big = M.exponential_mechanism_probabilities([0.0, 1e6, 1e6 - 2.0, -1e6], 1.0, 1.0)
    assert np.all(np.isfinite(big)) and big[1] == pytest.approx(1 / (1 + math.e**-1)) and big[3] == 0.0
    assert M.exponential_mechanism([0.0, 1e6, -1e6], 1.0, 1.0, random_state=0) == 1


def test_discrete_samplers_match_their_pmf():
    rng = np.random.default_rng(11)
    zs = np.array([M.sample_discrete_gaussian(Fraction(9, 4), rng) for _ in range(4000)])
    support = np.arange(-8, 9)
    pmf = np.exp(-(support**2) / (2 * 2.25))
    pmf /= pmf.sum()
    obs = np.array([(zs == k).sum() for k in support])
    assert stats.chisquare(obs, 4000 * pmf * obs.sum() / 4000).pvalue > 0.01
    wrong = np.exp(-(support**2) / (2 * 3.0))
    wrong /= wrong.sum()
    assert stats.chisquare(obs, obs.sum() * wrong).pvalue < 1e-6
    zl = np.array([M.sample_discrete_laplace(Fraction(3, 2), rng) for _ in range(4000)])
    pl = np.exp(-np.abs(support) / 1.5)
    pl /= pl.sum()
    obs = np.array([(zl == k).sum() for k in support])
    assert stats.chisquare(obs, obs.sum() * pl).pvalue > 0.01


def test_secure_paths_on_grid_and_distribution():
    v = np.full(6000, 0.3)  # n large enough that the 20%-wrong-scale control has power (KS critical ~0.025)
    out = M.laplace_mechanism(v, 1.0, 1.0, random_state=2, secure=True)
    gran = 2.0 ** math.floor(math.log2(1.0 / (1024 * 6000)))
    steps = out / gran
    assert np.array_equal(steps, np.round(steps))  # every output is on the 2^k grid
    assert stats.kstest(out - 0.3, stats.laplace(scale=1.0).cdf).pvalue > 0.01
    assert stats.kstest(out - 0.3, stats.laplace(scale=1.2).cdf).pvalue < 1e-3
    assert np.array_equal(out, M.laplace_mechanism(v, 1.0, 1.0, random_state=2, secure=True))
    g = M.gaussian_mechanism(np.zeros(1500), 1.0, 1.0, 1e-5, random_state=4, secure=True)
    gamma = 2.0 ** math.floor(math.log2(1 / (1024 * math.sqrt(1500))))
    sigma = M.secure_gaussian_sigma(1.0 + gamma * math.sqrt(1500), 1.0, 1e-5)
    assert M.analytic_gaussian_sigma(1.0, 1.0, 1e-5) < sigma < 1.2 * M.analytic_gaussian_sigma(1.0, 1.0, 1e-5)
    assert stats.kstest(g, stats.norm(scale=sigma).cdf).pvalue > 0.01


def test_secure_gaussian_sigma_meets_zcdp_conversion_vs_dp_accounting():
    from dp_accounting import dp_event
    from dp_accounting.rdp import rdp_privacy_accountant as rdp

    sigma = M.secure_gaussian_sigma(1.0, 1.0, 1e-5)
    acc = rdp.RdpAccountant(orders=list(np.linspace(1.1, 200, 3000)))
    acc.compose(dp_event.GaussianDpEvent(sigma))  # RDP of N(0, σ²), sensitivity 1 = ρ-zCDP, ρ = 1/(2σ²)
    assert acc.get_epsilon(1e-5) == pytest.approx(1.0, abs=2e-3)
