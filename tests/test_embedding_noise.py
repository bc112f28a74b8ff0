"""The noise dpM and DPNE's "power" context step actually draw (review 23, F2).

dpM: with k = |V| the truncated SVD is exact, so ‖W‖_F² = ‖M̃‖_F² = ‖M‖_F² + 2⟨M, Z⟩ + ‖Z‖_F² for the released
W = U Σ and M̃ = M + Z: (‖W‖_F² − ‖M‖_F²)/n² estimates the per-entry variance (2b² for Laplace(b), σ² for the
Gaussian) from the public output alone. Its relative sd is √20/(2n) (Laplace) or √2/n (Gaussian) plus the cross
term's, about 2‖M‖_F/(n²·sd) — a few per cent at n = 80. The tolerance on the implied scale (10 %) is over
5 standard errors, so a correct calibration passes except with negligible probability, and noise at half the
charged scale (a 4× smaller variance) fails.

DPNE "power": H = orth(Mᵀ W₀ + Z_H) publishes only a basis of the noisy release, so the test records the release
Mᵀ W₀ + Z_H where the estimator forms it (``DPNE._noisy``), checks that the statistic is Mᵀ W₀ for the public W₀
(the first draw of the seed), and checks Z_H: Laplace-norm rows with ‖z‖ ~ Gamma(k, b_H), b_H = 2t/ε_H (the L1
bound of ``sensitivity.walk_l1_sensitivity``), or Gaussian entries of the analytic σ of √2 + t − 1 at (ε_H, δ_H).
"""

import math

import numpy as np
import pytest

from _ledger_helpers import assert_gaussian_scale, assert_laplace_scale
from dpfair_native.embedding import DPNE, DPMatrixBaseline, WalkOperator, planted_partition
from dpfair_native.embedding.factorization import random_orthonormal
from dpfair_native.mechanisms import analytic_gaussian_sigma


@pytest.fixture(scope="module")
def graph():
    return planted_partition(80, 2, mean_degree=6.0, ratio=4.0, sparse=False, random_state=1).adjacency


@pytest.mark.parametrize("noise, eps, window", [("laplace", 1.0, 2), ("laplace", 3.0, 3), ("gaussian", 1.0, 2)])
def test_dpm_implied_noise_has_the_charged_scale(graph, noise, eps, window):
    n = graph.shape[0]
    M = WalkOperator(graph, window).dense()
    kw = dict(delta=1e-5) if noise == "gaussian" else {}
    m = DPMatrixBaseline(n, epsilon=eps, window=window, noise=noise, random_state=4, **kw).fit(graph)
    variance = (np.sum(m.embedding_**2) - np.sum(M**2)) / n**2
    if noise == "laplace":
        b = 2.0 * window / eps  # entrywise L1 sensitivity 2t
        assert m.noise_scale_ == pytest.approx(b, rel=1e-15)
        implied = math.sqrt(max(variance, 0.0) / 2.0)
        assert m.privacy_spent_ == (eps, 0.0)
    else:
        b = analytic_gaussian_sigma(math.sqrt(2.0) + window - 1, eps, 1e-5)  # Frobenius sensitivity √2 + t − 1
        assert m.noise_scale_ == pytest.approx(b, rel=1e-12)
        implied = math.sqrt(max(variance, 0.0))
        assert m.privacy_spent_ == (eps, 1e-5)
    assert abs(implied / b - 1.0) < 0.1, (implied, b)


def test_dpm_noisy_matrix_entries_have_the_charged_law(graph, monkeypatch):
    """The same through M̃ itself (recorded where dpM factorises it): entrywise Laplace(4/ε) at t = 2 — mean
    |z| = b and, Laplace rather than Gaussian, mean z² = 2b² — over 6,400 entries."""
    from dpfair_native.embedding import dpm as dpm_module

    seen = []
    real = dpm_module.truncated_svd

    def spy(matmul, rmatmul, n, k, **kw):
        seen.append(matmul(np.eye(n)))
        return real(matmul, rmatmul, n, k, **kw)

    monkeypatch.setattr(dpm_module, "truncated_svd", spy)
    m = DPMatrixBaseline(2, epsilon=2.0, random_state=9).fit(graph)
    z = seen[0] - WalkOperator(graph, 2).dense()
    b = 2.0
    assert m.noise_scale_ == b
    assert_laplace_scale(z, b)
    assert abs(np.mean(z**2) / (2 * b**2) - 1) < 6 * math.sqrt(5) / math.sqrt(z.size)  # var(z²) = 20 b⁴


@pytest.fixture(scope="module")
def sbm():
    return planted_partition(600, 4, mean_degree=12.0, ratio=10.0, sparse=False, random_state=3).adjacency


@pytest.mark.parametrize("noise", ["laplace", "gaussian"])
def test_dpne_power_context_step_draws_the_charged_noise(sbm, noise, monkeypatch):
    eps, frac, k, seed, delta = 3.0, 0.25, 10, 0, 1e-6
    calls = []
    real = DPNE._noisy

    def spy(self, Y, l1_like, l2, eps_, delta_, rng):
        out, scale = real(self, Y, l1_like, l2, eps_, delta_, rng)
        calls.append((Y.copy(), out - Y, scale))
        return out, scale

    monkeypatch.setattr(DPNE, "_noisy", spy)
    kw = dict(delta=delta, noise="gaussian") if noise == "gaussian" else {}
    m = DPNE(k, epsilon=eps, context="power", context_budget=frac, random_state=seed, **kw).fit(sbm)
    assert len(calls) == 2  # the H step, then the W step
    Y, Z, scale = calls[0]
    op = WalkOperator(sbm, 2)
    W0 = random_orthonormal(sbm.shape[0], k, np.random.default_rng(seed))  # the public draw, before the graph
    np.testing.assert_allclose(Y, op.rmatmul(W0), atol=1e-12)  # the statistic released in the H step: Mᵀ W₀
    if noise == "laplace":
        b = 2.0 * 2 / (eps * frac)  # ‖ΔM‖₁ <= 2t = 4 per unit of b, at ε_H = ε·frac
        assert scale == pytest.approx(b, rel=1e-12)
        norms = np.linalg.norm(Z, axis=1)  # ~ Gamma(k, b): mean k b, sd b √k
        assert abs(norms.mean() / (k * b) - 1) < 6 / math.sqrt(k * norms.size)
    else:
        sigma = analytic_gaussian_sigma(math.sqrt(2.0) + 1, eps * frac, delta * frac)
        assert scale == pytest.approx(sigma, rel=1e-12)
        assert_gaussian_scale(Z, sigma)
    assert m.privacy_spent_.epsilon <= eps
