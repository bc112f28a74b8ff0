"""Audit of ConstrainedDPSGDClassifier's joint per-step release: the clipped gradient sum and the (group, event,
prediction) histogram, both read from the same Poisson batch.

Neighbouring relation: add/remove one record (models/constrained.py). The docstring claims one step, before
subsampling, is a Gaussian mechanism with noise multiplier σ_eff = (σ_g⁻² + σ_h⁻²)^(−1/2): the record moves the
gradient sum by at most C (noise σ_g·C) and one histogram cell by exactly 1 (noise σ_h), given the released
histogram on which the multipliers, and so every other row's gradient, depend.

(a) Statistical audit of one step (q = 1, no subsampling): many releases on D and D' = D + a canary whose
    clipped gradient has norm C; the statistic is the exact Gaussian log-likelihood ratio of the joint output
    (gradient and histogram); ``_audit.audit``'s ε lower bound at δ_a = δ_μ(1) (the δ at which μ-GDP, μ =
    1/σ_eff, claims ε = 1: observable with a few thousand samples, unlike δ = 1e-5) must not exceed 1, and must
    come close to it (the test has power: about 0.7 measured). Negative control: the kernel given √2 less noise
    than the estimator's split while the claim stays at σ_eff is flagged.
(b) Brute force, adaptive case (multipliers moving): for recorded steps of a real fit, removing any batch row
    changes the released histogram in exactly one cell by 1 and, with the histogram held at its released value,
    the noiseless update by at most C·η/b.
(c) Accounting: ``privacy_spent_`` equals dp_accounting's RDP accountant for the composed events and is not
    below its PLD accountant (the tight value).
"""

from __future__ import annotations

import contextlib
import math

import numpy as np
import pytest

from dpfair_native import accountants, kernels
from dpfair_native.models import ConstrainedDPSGDClassifier
from dpfair_native.models.dpsgd import RECORD_COUNT_NOISE

from ._audit import audit, gaussian_llr, gdp_delta

CLIP = 1.0
SIGMA_EFF = 1.0


def _data(n=40, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0.0, 1.0, size=(n, d))
    s = (rng.random(n) < 0.4).astype(np.int64)
    y = (X[:, 0] + 0.4 * s + 0.2 * rng.standard_normal(n) > 0.8).astype(np.float64)
    return X, y, s


def _split(sigma_eff):
    """(σ_g, σ_h) as the estimator splits σ_eff (its default histogram noise ratio)."""
    est = ConstrainedDPSGDClassifier(target_epsilon=None, noise_multiplier=sigma_eff)
    return est._noise_multipliers(1.0, 1, ())


def _one_step(X, y, s, grad_normals, hist_normals, sigma_g, sigma_h, params, E=2, dual_lr=0.0):
    """(gradient release Σ g_i + σ_g·C·noise, histogram release) of one full-batch step (η = 1, b = 1, β = 1)."""
    n, d = X.shape
    events = y.astype(np.int64) if E == 2 else np.zeros(n, dtype=np.int64)
    state = kernels.constrained_sgd_state(d, 2, E)._replace(params=params.copy())
    out = kernels.constrained_sgd_epochs(
        X, y, s, events, np.ones(E, dtype=np.int64), np.arange(n), np.array([0, n]), np.ones(1),
        grad_normals[None, :], hist_normals[None, :], state, noise_multiplier=sigma_g, hist_noise_multiplier=sigma_h,
        clip=CLIP, expected_batch_size=1.0, dual_learning_rate=dual_lr, bound=0.0, ema=1.0,
    )
    return np.concatenate([params - out.params, out.hist.ravel()])


def _joint_samples(sigma_eff, noise_factor=1.0, samples=4000, seed=0):
    """Releases on D and D' (D plus a canary) and the means/stds of the output coordinates the claim assumes."""
    X, y, s = _data()
    canary = np.full((1, X.shape[1]), 1.0)
    X1, y1, s1 = np.vstack([X, canary]), np.append(y, 0.0), np.append(s, 1)
    sigma_g, sigma_h = _split(sigma_eff)
    params = np.array([0.3, -0.2, 0.1, 0.05])
    d1, cells = X.shape[1] + 1, 2 * 2 * 2
    zeros_g, zeros_h = np.zeros(d1), np.zeros(cells)
    mean0 = _one_step(X, y, s, zeros_g, zeros_h, 0.0, 0.0, params)
    mean1 = _one_step(X1, y1, s1, zeros_g, zeros_h, 0.0, 0.0, params)
    std = np.concatenate([np.full(d1, sigma_g * CLIP), np.full(cells, sigma_h)])
    rng = np.random.default_rng(seed)
    out = []
    for data in ((X, y, s), (X1, y1, s1)):
        rel = np.empty((samples, d1 + cells))
        for k in range(samples):
            rel[k] = _one_step(*data, rng.standard_normal(d1), rng.standard_normal(cells), sigma_g * noise_factor,
                               sigma_h * noise_factor, params)
        out.append(rel)
    return out[0], out[1], mean0, mean1, std


def test_canary_moves_the_joint_release_by_exactly_one_over_sigma_eff():
    """The worst-case shift in noise units is (C/(σ_g C))² + (1/σ_h)² = 1/σ_eff² (clipping active, one cell)."""
    _, _, mean0, mean1, std = _joint_samples(SIGMA_EFF, samples=1)
    shift = (mean1 - mean0) / std
    assert np.linalg.norm(shift) == pytest.approx(1 / SIGMA_EFF, rel=1e-9)
    assert np.count_nonzero(mean1[-8:] - mean0[-8:]) == 1  # one histogram cell, by 1


@pytest.mark.parametrize("noise_factor,flagged", [(1.0, False), (1.0 / math.sqrt(2.0), True)])
def test_joint_step_audit(noise_factor, flagged):
    claimed = 1.0
    delta_a = gdp_delta(claimed, 1.0 / SIGMA_EFF)
    R0, R1, mean0, mean1, std = _joint_samples(SIGMA_EFF, noise_factor)
    # the likelihood ratio the claim is built on (the optimal test at the claimed noise)
    res = audit(gaussian_llr(R0, mean0, mean1, std), gaussian_llr(R1, mean0, mean1, std), delta_a)
    if flagged:
        assert res.epsilon_lb > claimed, (res.epsilon_lb, claimed)
    else:
        assert res.epsilon_lb <= claimed, (res.epsilon_lb, claimed)
        assert res.epsilon_lb > 0.45 * claimed  # the audit has power: the claim is nearly tight for one step


# -- (b) brute force on recorded steps of a fit, multipliers moving -----------------------------------------------
@contextlib.contextmanager
def recorded(records):
    real = kernels.constrained_sgd_epochs

    def spy(X, y, groups, events, active, rows, offsets, lr, grad_noise, hist_noise, state, **kw):
        records.append(dict(args=(X, y, groups, events, active), rows=rows, offsets=offsets, lr=lr,
                            grad_noise=grad_noise, hist_noise=hist_noise, state=state, kw=kw))
        return real(X, y, groups, events, active, rows, offsets, lr, grad_noise, hist_noise, state, **kw)

    kernels.constrained_sgd_epochs = spy
    try:
        yield
    finally:
        kernels.constrained_sgd_epochs = real


def _step(rec, state, t, rows, hist_noise_row, grad_noise_row):
    kw = dict(rec["kw"], avg_start=10**9)
    return kernels.constrained_sgd_epochs(*rec["args"], rows, np.array([0, rows.size]), rec["lr"][t: t + 1],
                                          grad_noise_row[None, :], hist_noise_row[None, :], state, **kw)


def test_removing_a_row_moves_one_cell_by_one_and_the_update_by_at_most_C():
    X, y, s = _data(n=120, d=4, seed=1)
    X[:10] *= 3.0  # large rows: clipping active
    est = ConstrainedDPSGDClassifier(constraint="equalized_odds", target_epsilon=2.0, sample_rate=0.2, epochs=2,
                                     clip_norm=CLIP, dual_learning_rate=5.0, random_state=0, backend="numpy")
    records = []
    with recorded(records):
        est.fit(X, y, sensitive_features=s)
    worst, moved = 0.0, False
    for rec in records:
        state, sigma_h, beta = rec["state"], rec["kw"]["hist_noise_multiplier"], rec["kw"]["ema"]
        b = rec["kw"]["expected_batch_size"]
        for t in range(rec["lr"].size):
            rows = rec["rows"][rec["offsets"][t]: rec["offsets"][t + 1]]
            zero = np.zeros(rec["grad_noise"].shape[1])
            full = _step(rec, state, t, rows, rec["hist_noise"][t], zero)
            for i in range(rows.size):
                rest = np.delete(rows, i)
                plain = _step(rec, state, t, rest, rec["hist_noise"][t], zero)
                dh = (full.hist - plain.hist).ravel() / beta
                assert np.count_nonzero(np.abs(dh) > 1e-9) == 1 and np.max(np.abs(dh)) == pytest.approx(1.0)
                # the same released histogram without row i: its cell's noise makes up for the missing count
                held = rec["hist_noise"][t] + (np.abs(dh) > 1e-9) / sigma_h
                part = _step(rec, state, t, rest, held, zero)
                np.testing.assert_allclose(part.hist, full.hist, rtol=0, atol=1e-9)
                np.testing.assert_allclose(part.lambdas, full.lambdas, rtol=0, atol=1e-9)
                moved |= bool(np.any(full.lambdas > 0))
                c = float(np.linalg.norm(full.params - part.params)) * b / float(rec["lr"][t])
                assert c <= CLIP * (1 + 1e-9), c
                worst = max(worst, c)
            state = _step(rec, state, t, rows, rec["hist_noise"][t], rec["grad_noise"][t])
    assert moved, "the multipliers never moved: the adaptive case is not exercised"
    assert worst > 0.9 * CLIP  # clipping is active: the bound is attained, the check is not vacuous


# -- (c) accounting ------------------------------------------------------------------------------------------------
def test_privacy_spent_equals_rdp_and_is_not_below_pld():
    dpa = pytest.importorskip("dp_accounting")
    X, y, s = _data(n=400, seed=2)
    est = ConstrainedDPSGDClassifier(target_epsilon=1.0, sample_rate=0.1, epochs=3, random_state=0, backend="numpy",
                                     accountant_method="rdp")
    est.fit(X, y, sensitive_features=s)
    sg, sh = est.noise_multiplier_, est.hist_noise_multiplier_
    sigma_eff = 1.0 / math.sqrt(sg**-2 + sh**-2)
    assert est.effective_noise_multiplier_ == pytest.approx(sigma_eff, rel=1e-12)
    step = dpa.PoissonSampledDpEvent(est.sample_rate_, dpa.GaussianDpEvent(sigma_eff))
    assert est.center_noise_multiplier_ > 0  # the default releases a private centre: charged as one more Gaussian
    event = dpa.ComposedDpEvent([dpa.GaussianDpEvent(RECORD_COUNT_NOISE),
                                 dpa.GaussianDpEvent(est.center_noise_multiplier_),
                                 dpa.SelfComposedDpEvent(step, est.n_steps_)])
    eps, delta = est.privacy_spent_
    rdp = dpa.rdp.RdpAccountant(list(accountants.DEFAULT_RDP_ORDERS)).compose(event).get_epsilon(delta)
    pld = dpa.pld.PLDAccountant(value_discretization_interval=1e-3).compose(event).get_epsilon(delta)
    assert eps == pytest.approx(rdp, rel=1e-6)
    assert pld - 1e-3 <= eps <= 1.0 + 1e-9
