"""The noise LapMech and PrivPC* actually draw (review 23, F2): the released value minus the exact statistic has the
claimed distribution.

Each test computes the exact statistic itself, subtracts it from the release, and checks the scale of the
difference: Laplace by the mean absolute value (the MLE of b; sd b/√N), Gaussian by the standard deviation (sd
σ/√(2N)). The tolerance is 6 standard errors and below 25 %, so a correct calibration passes except with
probability ~1e-9, and noise drawn at half (or a quarter of) the scale it is charged for fails at any seed.
"""

import math

import numpy as np
import pytest

from _ledger_helpers import assert_gaussian_scale, assert_laplace_scale
from dpfair_native import _reference
from dpfair_native.causal import LapMechPC, PrivPCStar
from dpfair_native.causal.privpc_star import covariance_sensitivity
from dpfair_native.mechanisms import analytic_gaussian_sigma


@pytest.mark.parametrize("eps, faithful", [(1.0, False), (0.5, False), (1.0, True)])
def test_lapmech_noisy_table_has_the_charged_scale(eps, faithful, monkeypatch):
    """Two variables with 40 categories and 80 records in each of the 1,600 cells: the only test, 0 ⟂ 1, is run
    on the whole noisy table (clamping at 0 is out of reach: P(Lap(4) < −80) = e^-20/2 per cell at ε = 0.5). The
    noise per cell must be Laplace(2/ε) (replace-one L1 sensitivity 2), or Laplace(1/ε) in the faithful mode,
    which then reports 2ε."""
    c, count = 40, 80
    grid = np.array([(a, b) for a in range(c) for b in range(c)])
    X = np.repeat(grid, count, axis=0)
    tables = []
    real = _reference.g2_from_table
    monkeypatch.setattr(_reference, "g2_from_table", lambda N: tables.append(np.array(N, dtype=float)) or real(N))
    m = LapMechPC(epsilon=eps, max_order=0, paper_faithful=faithful, random_state=7).fit(X, n_categories=[c, c])
    assert len(tables) == 1 and tables[0].size == c * c
    b = (1.0 if faithful else 2.0) / eps
    assert m.noise_scale_ == b
    assert m.privacy_spent_.epsilon == (2.0 * eps if faithful else eps)  # = sensitivity 2 / b
    noise = tables[0] - count  # every true count is 80, whatever the table's orientation
    assert np.all(tables[0] > 0)  # nothing was clamped
    assert_laplace_scale(noise, b)


def _ball_rows(rng, n, p, B):
    """n rows inside the ball ‖x‖ <= B, plus a few far outside it (clipped by the estimator)."""
    X = rng.normal(size=(n, p))
    X *= (B * rng.random((n, 1)) ** (1.0 / p)) / np.linalg.norm(X, axis=1, keepdims=True)
    X[:5] *= 7.0  # five rows beyond B: the estimator projects them onto the sphere
    return X


@pytest.mark.parametrize("mechanism", ["laplace", "gaussian"])
def test_privpc_star_release_minus_the_covariance_has_the_charged_scale(mechanism):
    """release_ − tril((1/(n−1)) Σ x xᵀ) of the clipped rows, over 4 fits of p = 30 (1,860 entries): Laplace with
    b = (p + 1)B²/((n − 1)ε), or Gaussian with the analytic σ of √2 B²/(n − 1) at (ε, δ)."""
    n, p, B, eps, delta = 400, 30, 2.0, 1.0, 1e-5
    rng = np.random.default_rng(3)
    noise = []
    for seed in range(4):
        X = _ball_rows(rng, n, p, B)
        Z = X.copy()
        norms = np.linalg.norm(Z, axis=1)
        Z[norms > B] *= (B / norms[norms > B])[:, None]
        exact = (Z.T @ Z / (n - 1))[np.tril_indices(p)]
        kw = dict(delta=delta) if mechanism == "gaussian" else {}
        m = PrivPCStar(epsilon=eps, mechanism=mechanism, clip_norm=B, max_order=0, random_state=seed,
                       backend="numpy", **kw).fit(X)
        noise.append(m.release_ - exact)
    if mechanism == "laplace":
        b = (p + 1) * B**2 / (n - 1) / eps
        assert m.noise_scale_ == pytest.approx(b, rel=1e-12) and m.privacy_spent_ == (eps, 0.0)
        assert_laplace_scale(np.concatenate(noise), b)
    else:
        sigma = analytic_gaussian_sigma(math.sqrt(2.0) * B**2 / (n - 1), eps, delta)
        assert covariance_sensitivity(p, n, B, "gaussian") == pytest.approx(math.sqrt(2.0) * B**2 / (n - 1))
        assert m.noise_scale_ == pytest.approx(sigma, rel=1e-12) and m.privacy_spent_ == (eps, delta)
        assert_gaussian_scale(np.concatenate(noise), sigma)
