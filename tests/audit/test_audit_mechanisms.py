"""Audit of the Laplace and Gaussian mechanisms (1-D worst case: values 0 and Δ), with negative controls."""

import math

import numpy as np
import pytest

from dpfair_native import mechanisms

from ._audit import audit

pytestmark = pytest.mark.audit

N = 200_000  # samples per dataset (half select the threshold, half evaluate)
EPS, DELTA, SENS = 1.0, 1e-5, 1.0


def run_laplace(noise_factor: float = 1.0, seed: int = 1):
    """Laplace mechanism on f(D) = 0, f(D') = Δ; noise_factor < 1 under-noises it (negative control)."""
    rng = np.random.default_rng(seed)
    z0 = mechanisms.laplace_mechanism(np.zeros(N), SENS * noise_factor, EPS, random_state=rng)
    z1 = mechanisms.laplace_mechanism(np.full(N, SENS), SENS * noise_factor, EPS, random_state=rng)
    return audit(z0, z1, 0.0)  # the output itself is a monotone likelihood-ratio statistic


def run_gaussian(noise_factor: float = 1.0, seed: int = 2):
    rng = np.random.default_rng(seed)
    z0 = mechanisms.gaussian_mechanism(np.zeros(N), SENS * noise_factor, EPS, DELTA, random_state=rng)
    z1 = mechanisms.gaussian_mechanism(np.full(N, SENS), SENS * noise_factor, EPS, DELTA, random_state=rng)
    return audit(z0, z1, DELTA)


def test_laplace_audit_within_claim():
    res = run_laplace()
    assert res.epsilon_lb <= EPS
    assert res.epsilon_lb > 0.8 * EPS  # the audit is tight enough to mean something (1-D Laplace is e^ε-tight)


def test_gaussian_audit_within_claim():
    res = run_gaussian()
    assert res.epsilon_lb <= EPS
    assert res.epsilon_lb > 0.4


def test_negative_control_laplace_half_noise_is_flagged():
    assert run_laplace(noise_factor=0.5).epsilon_lb > EPS


def test_negative_control_gaussian_half_noise_is_flagged():
    assert run_gaussian(noise_factor=0.5).epsilon_lb > EPS


def test_audit_is_symmetric_in_the_datasets():
    """Swapping D and D' (the other direction of the DP inequality) gives the same kind of bound."""
    rng = np.random.default_rng(3)
    z0 = mechanisms.laplace_mechanism(np.zeros(N), SENS, EPS, random_state=rng)
    z1 = mechanisms.laplace_mechanism(np.full(N, SENS), SENS, EPS, random_state=rng)
    forward, backward = audit(z0, z1), audit(-z1, -z0)
    assert forward.epsilon_lb <= EPS and backward.epsilon_lb <= EPS
    assert abs(forward.epsilon_lb - backward.epsilon_lb) < 0.1


# -- power: √2 too little Gaussian noise must be flagged ---------------------------------------------------------------
# At δ = 1e-5 the mechanism's (ε, δ) point is decided by events of probability ~1e-5, which 10^5 samples cannot
# resolve: √2 less noise (true ε 1.465) gave ε_lb 0.87 there. The claim "(ε, δ)-DP" is tested just as well at a δ
# whose extreme events have moderate probability; there the 1-D output (a monotone likelihood ratio, i.e. the
# exact LLR statistic) separates the correct σ from σ/√2 by a wide margin.
POWER_N = 400_000
POWER_SETTINGS = [(1.0, 1e-3), (1.0, 1e-2)]  # (ε, δ); true ε of σ/√2: 1.51, 1.59


def run_gaussian_at(epsilon, delta, noise_factor=1.0, seed=11):
    rng = np.random.default_rng(seed)
    z0 = mechanisms.gaussian_mechanism(np.zeros(POWER_N), SENS * noise_factor, epsilon, delta, random_state=rng)
    z1 = mechanisms.gaussian_mechanism(np.full(POWER_N, SENS), SENS * noise_factor, epsilon, delta, random_state=rng)
    return audit(z0, z1, delta)


@pytest.mark.parametrize("epsilon,delta", POWER_SETTINGS)
def test_gaussian_audit_within_claim_at_moderate_delta(epsilon, delta):
    res = run_gaussian_at(epsilon, delta)
    assert res.epsilon_lb <= epsilon
    assert res.epsilon_lb > 0.8 * epsilon  # tight: the check is not vacuous


@pytest.mark.parametrize("epsilon,delta", POWER_SETTINGS)
def test_negative_control_gaussian_sqrt2_less_noise_is_flagged(epsilon, delta):
    """σ/√2 (a factor-√2 slip in a sensitivity or calibration) must fail the audit."""
    from ._audit import gdp_epsilon

    true_eps = gdp_epsilon(delta, math.sqrt(2.0) / mechanisms.analytic_gaussian_sigma(SENS, epsilon, delta))
    assert true_eps > 1.4 * epsilon  # the broken mechanism really violates the claim
    assert run_gaussian_at(epsilon, delta, noise_factor=1.0 / math.sqrt(2.0)).epsilon_lb > epsilon
