"""The private hyper-parameter search draws the noise it charges for, and charges the noise it draws.

``PrivateHyperparameterSearch`` makes three kinds of release: ñ_tr = n_tr + N(0, σ_n²) (σ_n = RECORD_COUNT_NOISE), and
per run a fit plus the validation histogram with N(0, σ_v²) per cell (σ_v = ``validation_noise``). A run's RDP is
max(candidate curves, α/(2σ_v²)) (the split is data-independent: each record is in one part), the selection of the
best of K ~ D_{η,γ} runs costs Papernot & Steinke's Theorem 2 of it, and the count adds α/(2σ_n²). These tests
check (1) the charge against that recomputation, written out here, in a setting where the histogram's Gaussian term
is the largest part of a run's curve, and (2) by sampling, that the noise actually added to the count and to every
histogram cell has the standard deviation the charge assumes.
"""

import math

import numpy as np
import pytest

from _ledger_helpers import assert_gaussian_scale
from dpfair_native import tuning
from dpfair_native.accountants import DEFAULT_RDP_ORDERS, rdp_to_epsilon
from dpfair_native.models import DPSGDClassifier
from dpfair_native.models.dpsgd import RECORD_COUNT_NOISE
from dpfair_native.tuning import PrivateHyperparameterSearch, tnb_gamma_for_mean

ORDERS = np.asarray(DEFAULT_RDP_ORDERS, dtype=np.float64)


def _gaussian_rdp(sigma, orders):
    """RDP of the Gaussian mechanism with sensitivity 1 and noise std σ: α/(2σ²)."""
    return np.asarray(orders, dtype=np.float64) / (2.0 * sigma * sigma)


def _theorem2(orders, rdp, eta, gamma):
    """Papernot & Steinke (ICLR 2022) Theorem 2, per order λ, minimised over λ̂ in {1} ∪ orders:
    ε(λ) + (1+η)(1 − 1/λ̂)ε(λ̂) + (1+η)ln(1/γ)/λ̂ + ln E[K]/(λ − 1)."""
    mean = (1 / gamma - 1) / math.log(1 / gamma) if eta == 0 else eta * (1 - gamma) / (gamma * (1 - gamma**eta))
    out = []
    for lam, eps_lam in zip(orders, rdp):
        best = (1 + eta) * math.log(1 / gamma)  # λ̂ = 1
        for hat, eps_hat in zip(orders, rdp):
            best = min(best, (1 + eta) * (1 - 1 / hat) * eps_hat + (1 + eta) * math.log(1 / gamma) / hat)
        out.append(eps_lam + best + math.log(mean) / (lam - 1))
    return np.asarray(out)


def _tiny(n=300, d=3, groups=1, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, d))
    y = (X[:, 0] + 0.3 * rng.normal(size=n) > 0.5).astype(np.int64)
    return X, y, rng.integers(0, groups, n)


def _base():
    return DPSGDClassifier(noise_multiplier=3.0, sample_rate=0.1, epochs=1, backend="numpy")


@pytest.mark.parametrize(("sigma_v", "eta", "mean_runs"), [(0.5, 1.0, 2.0), (1.0, 0.0, 3.0), (0.7, 0.5, 5.0)])
def test_the_charge_includes_the_validation_histograms_gaussian(sigma_v, eta, mean_runs):
    """Catches the validation histogram's Gaussian left out of a run's RDP curve. With σ_v <= 1 it is the largest
    part of the curve (the candidate alone costs several times less), so leaving it out lowers the charge far
    below the recomputation."""
    X, y, _ = _tiny()
    cands = [dict(learning_rate=0.5), dict(learning_rate=1.0)]
    search = PrivateHyperparameterSearch(_base(), cands, mean_runs=mean_runs, eta=eta, validation_noise=sigma_v,
                                         random_state=0).fit(X, y)
    # candidates with a public sample rate are charged their own curves (no count window, no tail)
    curves = [PrivateHyperparameterSearch.candidate_rdp(_base().set_params(**c), 0.1, ORDERS) for c in cands]
    gamma = tnb_gamma_for_mean(eta, mean_runs)
    assert search.gamma_ == gamma
    run = np.maximum(np.max(curves, axis=0), _gaussian_rdp(sigma_v, ORDERS))
    total = _theorem2(ORDERS, run, eta, gamma) + _gaussian_rdp(RECORD_COUNT_NOISE, ORDERS)
    expected = rdp_to_epsilon(ORDERS, total, 1e-5)[0]
    assert search.privacy_spent_.epsilon == pytest.approx(expected, rel=1e-9)
    # the test has power: without the histogram's term the bound is far lower
    without = rdp_to_epsilon(ORDERS, _theorem2(ORDERS, np.max(curves, axis=0), eta, gamma)
                             + _gaussian_rdp(RECORD_COUNT_NOISE, ORDERS), 1e-5)[0]
    assert without < 0.6 * expected
    assert search.run_epsilon_ == pytest.approx(rdp_to_epsilon(ORDERS, np.max(curves, axis=0), 1e-5)[0], rel=1e-9)


@pytest.mark.parametrize("sigma_v", [0.5, 20.0])
def test_the_validation_histogram_gets_noise_of_std_sigma_v(monkeypatch, sigma_v):
    """Catches validation noise drawn smaller than the σ_v charged (e.g. 20× smaller): every run's histogram, as
    scored, is pure noise here (the validation part is empty: validation_fraction 1e-12 sends no record there),
    so its cells are the noise itself; ten declared groups give 40 cells per run."""
    X, y, s = _tiny(groups=10)
    p = 1e-12  # the validation part is empty except with probability n·p
    scored = []
    real = tuning._score
    monkeypatch.setattr(tuning, "_score", lambda hist, *a: scored.append(hist.copy()) or real(hist, *a))
    search = PrivateHyperparameterSearch(_base(), [dict(learning_rate=0.5)], mean_runs=20, validation_fraction=p,
                                         validation_noise=sigma_v, declared_groups=list(range(10)))
    for seed in range(50):  # K is random: search until 10 histograms (400 cells) are in, whatever the seeds give
        search.random_state = seed
        search.fit(X, y, sensitive_features=s)
        if len(scored) >= 10:
            break
    assert len(scored) >= 10 and all(h.shape == (10, 2, 2) for h in scored)
    assert_gaussian_scale(np.array(scored), sigma_v)


class _Stop(Exception):
    pass


def test_the_training_count_gets_noise_of_std_record_count_noise(monkeypatch):
    """Catches the training-count noise drawn smaller than the σ_n = RECORD_COUNT_NOISE charged (e.g. 100×
    smaller): ñ_tr − n_tr over 600 searches (seeds), stopped once ñ_tr is computed (it is what the candidates'
    sampling rates are set from). With validation_fraction 1e-12 every record trains, so n_tr = n."""
    n = 3000  # 30 σ_n: ñ_tr is never clipped at 1
    X, y, _ = _tiny(n=n, d=2)
    p = 1e-12
    seen = []

    def stop(self, candidates, n_estimate, *args):
        seen.append(n_estimate)
        raise _Stop

    monkeypatch.setattr(PrivateHyperparameterSearch, "_candidates", stop)
    search = PrivateHyperparameterSearch(_base(), [dict(learning_rate=0.5)], validation_fraction=p)
    for seed in range(600):  # p: no validation record, except with probability n·p per seed
        search.random_state = seed
        with pytest.raises(_Stop):
            search.fit(X, y)
    assert_gaussian_scale(np.array(seen) - n, RECORD_COUNT_NOISE)
