"""Audit of the Laplace and Gaussian mechanisms (1-D worst case: values 0 and Δ), with negative controls."""

import numpy as np
import pytest

from dpfair_native import mechanisms

from ._audit import audit  # noqa: E402

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
