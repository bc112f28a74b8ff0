"""Audit of the DP-SGD family (DPSGDClassifier, DPSGDFClassifier, NaiveReweightedDPSGDClassifier, FairDPClassifier).

Neighbouring relation of the family: add/remove one record, Poisson sampling (module docstrings).

(a) Realised noise. ``kernels.dpsgd_epochs`` is replaced during a fit by a replay that runs the real kernel one
    step at a time, twice: with the estimator's standard normals and with zero gradient noise (same batch, same
    count noise, same start point). The difference, times b/η_t, is exactly the Gaussian vector the kernel
    injected at step t. Divided by the step's sensitivity it must be N(0, σ²) with σ = ``noise_multiplier_`` (a
    χ² test at two-sided level 2e-6); "shared" noise is scaled by max_k s_k, FairDP's "per_group" noise is the sum
    of one release per group, std σ·sqrt(Σ_k s_k²). The step's sensitivity itself is checked by brute force:
    removing one batch row (noise fixed, and for DPSGD-F / Naïve the noisy counts held at their released values)
    moves the noiseless update by at most max_k s_k (s_{k(i)} for per-group noise).
(b) Accounting. ``privacy_spent_`` equals dp_accounting's RDP accountant for the events actually released (T
    Poisson-subsampled Gaussian steps at the effective σ, plus FairDP's count release) and is not below its PLD
    accountant (the tight value).
(c) Canary (membership) audit (DPSGD, DPSGD-F, Naïve): many tiny models trained with and without canaries; the
    statistic is the canary's own weight (its score without the shared bias); ε_lb from ``_audit.audit``. FairDP
    is covered by (a) and (b) only: its last step spreads a batch over N ensemble members, so one canary moves one
    unknown member and a score-based test has little power at any affordable number of models. The canary models
    run with ``center=False``: the statistic measures the training steps, and the centre release (one Gaussian
    mechanism, charged in (b)) is checked in tests/test_centering.py (sensitivity by brute force, noise scale).
Negative controls: a kernel that injects √2 less noise than the estimator asks for (realised-noise check and canary
audit must fail) and wrong accountants (σ·√2 or a forgotten count release; the accountant check must fail).
"""

from __future__ import annotations

import contextlib
import math

import numpy as np
import pytest
from scipy.stats import chi2

from dpfair_native import accountants, kernels
from dpfair_native.models import (
    DPSGDClassifier,
    DPSGDFClassifier,
    FairDPClassifier,
    NaiveReweightedDPSGDClassifier,
)
from dpfair_native.models import dpsgd as dpsgd_module
from dpfair_native.models import fairdp as fairdp_module

from ._audit import audit

SQRT2 = math.sqrt(2.0)


# -- data ---------------------------------------------------------------------------------------------------------
def _data(n=160, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, size=(n, d))
    X[: n // 8] *= 4.0  # some rows with large gradients, so clipping is active
    s = (rng.random(n) < 0.3).astype(int)  # unequal groups: per-group sensitivities differ
    y = (X[:, 0] + 0.5 * s + 0.3 * rng.standard_normal(n) > 0).astype(int)
    return X, y, s


DATA = _data()
ESTIMATORS = {
    "DPSGDClassifier": lambda: DPSGDClassifier(noise_multiplier=1.1, sample_rate=0.1, epochs=12, clip_norm=1.0),
    "DPSGDFClassifier": lambda: DPSGDFClassifier(noise_multiplier=1.1, sample_rate=0.1, epochs=12, clip_norm=1.0),
    "NaiveReweightedDPSGDClassifier": lambda: NaiveReweightedDPSGDClassifier(
        noise_multiplier=1.1, sample_rate=0.1, epochs=12, clip_norm=1.0),
    "FairDPClassifier": lambda: FairDPClassifier(noise_multiplier=1.1, sample_rate=[0.1, 0.2], epochs=24,
                                                 clip_norm=[1.0, 0.7], n_models=4),
}


# -- (a) the replaying kernel ---------------------------------------------------------------------------------------
@contextlib.contextmanager
def replayed_kernel(records, noise_factor=1.0):
    """Replace kernels.dpsgd_epochs by a step-by-step replay that records every step's injected noise.

    noise_factor != 1 is the broken variant: the kernel gets noise_multiplier·factor (and the same for the count
    noise) while the estimator still accounts for its own σ.
    """
    real = kernels.dpsgd_epochs

    def spy(X, y, params, batch_rows, batch_offsets, learning_rates, grad_noise, *, count_noise=None,
            noise_multiplier=0.0, count_noise_multiplier=0.0, expected_batch_size, noise="shared", **kw):
        sigma, sigma_c = noise_multiplier * noise_factor, count_noise_multiplier * noise_factor
        p = np.asarray(params, dtype=np.float64)
        bounds = []
        for t in range(len(learning_rates)):
            rows = np.asarray(batch_rows[batch_offsets[t]: batch_offsets[t + 1]])
            one = dict(count_noise=None if count_noise is None else count_noise[t: t + 1],
                       noise_multiplier=sigma, count_noise_multiplier=sigma_c,
                       expected_batch_size=expected_batch_size, noise=noise, **kw)
            step = (X, y, p, rows, np.array([0, rows.size]), learning_rates[t: t + 1])
            noisy, sb = real(*step, grad_noise[t: t + 1], **one)
            clean, _ = real(*step, np.zeros((1, p.size)), **one)
            injected = (clean - noisy) * expected_batch_size / learning_rates[t]
            records.append({"injected": injected, "bounds": sb[0], "noise": noise, "step": step, "one": one,
                                "normals": grad_noise[t]})
            bounds.append(sb)
            p = noisy
        return p, np.concatenate(bounds, axis=0)

    kernels.dpsgd_epochs = spy
    try:
        yield
    finally:
        kernels.dpsgd_epochs = real


def fit_recorded(name, noise_factor=1.0, seed=0):
    records = []
    est = ESTIMATORS[name]().set_params(random_state=seed)
    X, y, s = DATA
    with replayed_kernel(records, noise_factor):
        est.fit(X, y, sensitive_features=s)
    return est, records


def _step_scale(rec):
    b = np.asarray(rec["bounds"], dtype=np.float64)
    return float(np.sqrt(np.sum(b**2))) if rec["noise"] == "per_group" else float(b.max())


def realised_noise_check(est, records):
    """(passes, statistic/k): injected noise / step sensitivity against N(0, noise_multiplier_²), χ² at 2e-6."""
    z = np.concatenate([rec["injected"] / _step_scale(rec) for rec in records])
    k = z.size
    stat = float(np.sum(z**2)) / est.noise_multiplier_**2
    ok = chi2.ppf(1e-6, k) <= stat <= chi2.ppf(1 - 1e-6, k)
    return ok, stat / k


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_realised_noise_matches_the_accounted_multiplier(name):
    est, records = fit_recorded(name)
    assert len(records) >= 100
    ok, ratio = realised_noise_check(est, records)
    assert ok, f"realised variance / σ² = {ratio:.3f}"
    # the injected vector is exactly scale·σ·(the estimator's standard normals): the kernel adds what it is told
    for rec in records[:20]:
        np.testing.assert_allclose(rec["injected"], _step_scale(rec) * est.noise_multiplier_ * rec["normals"],
                                   rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_negative_control_sqrt2_less_kernel_noise_is_flagged(name):
    est, records = fit_recorded(name, noise_factor=1.0 / SQRT2)
    ok, ratio = realised_noise_check(est, records)
    assert not ok and ratio < 0.6


def _contribution(rec, i, rule_name):
    """‖noiseless update with the batch − without row i‖·b/η (noisy counts held at their released values)."""
    X, y, p, rows, _, lr = rec["step"]
    one = dict(rec["one"])
    zero = np.zeros((1, p.size))
    full, _ = kernels.dpsgd_epochs(X, y, p, rows, np.array([0, rows.size]), lr, zero, **one)
    rest = np.delete(rows, i)
    cn = one.get("count_noise")
    if cn is not None and one["count_noise_multiplier"] > 0:  # keep m̃_k, õ_k (DPSGD-F) / b̃_k (Naïve) unchanged
        cn = cn.copy()
        r = rows[i]
        groups = one.get("groups")
        k = 0 if groups is None else int(groups[r])
        if rule_name == "dpsgdf":
            w = p[:-1]
            wb = p[:-1] * min(1.0, one.get("weight_bound") / np.linalg.norm(w)) if one.get("weight_bound") else w
            g = (1.0 / (1.0 + math.exp(-(X[r] @ wb + p[-1]))) - y[r]) * np.append(X[r], 1.0)
            K = np.atleast_1d(one["clip"]).size
            cell = k if np.linalg.norm(g) > np.atleast_1d(one["clip"])[k] else K + k
        else:
            cell = k
        cn[0, cell] += 1.0 / one["count_noise_multiplier"]
        one["count_noise"] = cn
    part, _ = kernels.dpsgd_epochs(X, y, p, rest, np.array([0, rest.size]), lr, zero, **one)
    return float(np.linalg.norm(full - part)) * one["expected_batch_size"] / float(lr[0])


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_step_sensitivity_bounds_every_removed_row(name):
    """Brute force over the rows of recorded batches: one removed record moves the noiseless update by at most the
    step's sensitivity (max_k s_k for shared noise, its own group's s_k for per-group noise)."""
    _est, records = fit_recorded(name)
    rule = {"DPSGDFClassifier": "dpsgdf", "NaiveReweightedDPSGDClassifier": "naive"}.get(name, "fixed")
    groups = records[0]["one"].get("groups")
    worst = 0.0
    for rec in records[::10]:
        rows = rec["step"][3]
        for i in range(rows.size):
            c = _contribution(rec, i, rule)
            if rec["noise"] == "per_group":
                bound = rec["bounds"][int(groups[rows[i]])]
            else:
                bound = float(np.max(rec["bounds"]))
            assert c <= bound * (1 + 1e-9) + 1e-12, (c, bound)
            worst = max(worst, c / bound)
    assert worst > 0.9  # clipping is active: the bound is attained, the check is not vacuous


# -- (b) accounting -----------------------------------------------------------------------------------------------
def _dp_accounting_events(est):
    dpa = pytest.importorskip("dp_accounting")
    if isinstance(est, FairDPClassifier):
        step = dpa.PoissonSampledDpEvent(float(np.max(est.sample_rates_)), dpa.GaussianDpEvent(est.noise_multiplier_))
        events = [dpa.GaussianDpEvent(s) for s in (est.count_noise_multiplier_, est.center_noise_multiplier_)
                  if s is not None]
        return dpa.ComposedDpEvent(_merged(events) + [dpa.SelfComposedDpEvent(step, est.n_steps_)])
    sigma = est.noise_multiplier_
    sigma_c = getattr(est, "count_noise_multiplier_", 0.0)
    sigma_eff = sigma if not sigma_c else 1.0 / math.sqrt(sigma**-2 + sigma_c**-2)  # composed Gaussians (GDP)
    assert est.effective_noise_multiplier_ == pytest.approx(sigma_eff, rel=1e-12)
    step = dpa.PoissonSampledDpEvent(est.sample_rate_, dpa.GaussianDpEvent(sigma_eff))
    # the record-count release ñ = n + N(0, σ_n²) that q and T are derived from, the centre release (sensitivity
    # C_μ, noise σ_μ·C_μ: tests/test_centering.py), then the T steps
    assert est.center_noise_multiplier_ > 0  # the default centres
    releases = [dpa.GaussianDpEvent(dpsgd_module.RECORD_COUNT_NOISE), dpa.GaussianDpEvent(est.center_noise_multiplier_)]
    return dpa.ComposedDpEvent(_merged(releases) + [dpa.SelfComposedDpEvent(step, est.n_steps_)])


def _merged(gaussians):
    """Gaussian events (sensitivity 1) as the one Gaussian event they compose to, σ = (Σ σ_c⁻²)^(-1/2) — how the
    library composes its pre-training releases (exact: their privacy losses are normal and add), so that the PLD
    comparison below is between the same discretised events."""
    dpa = pytest.importorskip("dp_accounting")
    if not gaussians:
        return []
    return [dpa.GaussianDpEvent(sum(e.noise_multiplier ** -2 for e in gaussians) ** -0.5)]


def _typed(event):
    """dp_accounting's event as the library's typed event (same tree)."""
    dpa = pytest.importorskip("dp_accounting")
    if isinstance(event, dpa.GaussianDpEvent):
        return accountants.GaussianEvent(event.noise_multiplier)
    if isinstance(event, dpa.PoissonSampledDpEvent):
        return accountants.PoissonSampledEvent(event.sampling_probability, _typed(event.event))
    if isinstance(event, dpa.SelfComposedDpEvent):
        return accountants.SelfComposedEvent(_typed(event.event), event.count)
    return accountants.ComposedEvent([_typed(e) for e in event.events])


def accountant_check(est, pld=True):
    """(method ok, pld ok): privacy_spent_ equals dp_accounting's ε under the method it names (RDP: rel 1e-6; PLD:
    rel 1%) and is >= its PLD ε."""
    dpa = pytest.importorskip("dp_accounting")
    event = _dp_accounting_events(est)
    eps, delta = est.privacy_spent_
    if getattr(est.privacy_spent_, "method", "rdp") == "pld":  # exact against our PLD, 1% against dp_accounting's
        ours = accountants.epsilon_of_event(_typed(event), delta, method="pld")
        ref = dpa.pld.PLDAccountant().compose(event).get_epsilon(delta)
        ok_rdp = abs(eps - ours) <= 1e-9 * ours and abs(eps - ref) <= 1e-2 * ref
    else:
        rdp = dpa.rdp.RdpAccountant(list(accountants.DEFAULT_RDP_ORDERS)).compose(event).get_epsilon(delta)
        ok_rdp = abs(eps - rdp) <= 1e-6 * rdp
    ok_pld = True
    if pld:
        pld_eps = dpa.pld.PLDAccountant(value_discretization_interval=1e-3).compose(event).get_epsilon(delta)
        ok_pld = eps >= pld_eps - 1e-3
    return ok_rdp, ok_pld


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_privacy_spent_equals_dp_accounting(name):
    est, _ = fit_recorded(name)
    assert est.privacy_spent_[1] == est.delta
    assert accountant_check(est) == (True, True)


@contextlib.contextmanager
def wrong_accountant(name):
    """The broken variant: DP-SGD accounted at √2 the σ actually used; FairDP without its count release."""
    module = fairdp_module if name == "FairDPClassifier" else dpsgd_module
    real = module.dpsgd_privacy_spent
    if name == "FairDPClassifier":
        def broken(q, sigma, steps, delta, counts=(), **kw):
            return real(q, sigma, steps, delta, counts[1:], **kw)  # the count release forgotten
    else:
        def broken(q, sigma, steps, delta, counts=(), **kw):
            return real(q, sigma * SQRT2, steps, delta, counts, **kw)
    module.dpsgd_privacy_spent = broken
    try:
        yield
    finally:
        module.dpsgd_privacy_spent = real


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_negative_control_wrong_accountant_is_flagged(name):
    with wrong_accountant(name):
        est, _ = fit_recorded(name)
    ok_rdp, ok_pld = accountant_check(est, pld=name != "FairDPClassifier")
    assert not ok_rdp
    if name != "FairDPClassifier":  # √2 the σ: the claim falls below even the tight (PLD) value
        assert not ok_pld


# -- (c) canary audit ---------------------------------------------------------------------------------------------
# One full-batch step (q = 1, T = 1: a Gaussian mechanism on the clipped gradient sum) from θ = 0. The data are
# N_BASE rows at x = 0 plus CANARIES canaries x = 3·e_j (label 0), each present independently with probability ½.
# Canary j's clipped gradient lies in the plane of w_j and the bias, so its own weight w_j moves by η·3/√10·C/b when
# present and carries noise η·σ·C/b: independent samples (distinct noise coordinates), one per canary and model,
# each a membership test of an add/remove neighbour. δ = 0.05 is a setting where the bound is informative: the
# correct σ = 1 claims ε = 2.04 (RDP), σ/√2 has true ε 2.68 at that δ. DPSGD-F gets C0 = 0.4 so that every row
# is over the clip bound (|g| >= 0.5): its per-group bounds C_k = C0·(1 + (m̃_k/b̃_k)/(m̃/b)) are then ≈ 2·C0 in
# every model (with C0 = 1 they follow the noisy count of a dozen canaries and the noise scale jumps from model to
# model, which blunts the test). The claims are RDP's: 3,000 fits per audit, and a PLD epsilon costs 0.1–0.3 s each
# (the PLD accountant itself is checked against dp_accounting in tests/test_accountants_pld.py).
CANARIES, N_BASE, CANARY_MODELS = 64, 600, 3000
CANARY_SIGMA, CANARY_DELTA = 1.0, 0.05


def canary_samples(make, n_models=CANARY_MODELS, noise_factor=1.0, seed=5):
    rng = np.random.default_rng(seed)
    X = np.vstack([np.zeros((N_BASE, CANARIES)), 3.0 * np.eye(CANARIES)])
    y = np.zeros(N_BASE + CANARIES, dtype=int)
    y[: N_BASE // 2] = 1
    s = np.tile([0, 1], (N_BASE + CANARIES) // 2)
    present, weight = [], []
    est = make()
    with replayed_kernel([], noise_factor):
        for _ in range(n_models):
            keep = np.concatenate([np.ones(N_BASE, dtype=bool), rng.random(CANARIES) < 0.5])
            est.set_params(random_state=rng).fit(X[keep], y[keep], sensitive_features=s[keep])
            present.append(keep[N_BASE:])
            weight.append(est.coef_)
    present, weight = np.array(present), np.array(weight)
    return -weight[~present], -weight[present], est  # statistic: −w_j (a present canary pulls its weight down)


CANARY_ESTIMATORS = {
    "DPSGDClassifier": lambda: DPSGDClassifier(noise_multiplier=CANARY_SIGMA, sample_rate=1.0, epochs=1,
                                               learning_rate=1.0, clip_norm=1.0, delta=CANARY_DELTA,
                                               accountant_method="rdp", center=False),
    "DPSGDFClassifier": lambda: DPSGDFClassifier(noise_multiplier=CANARY_SIGMA, count_noise_multiplier=10.0,
                                                 sample_rate=1.0, epochs=1, learning_rate=1.0, clip_norm=0.4,
                                                 delta=CANARY_DELTA, accountant_method="rdp", center=False),
    "NaiveReweightedDPSGDClassifier": lambda: NaiveReweightedDPSGDClassifier(
        noise_multiplier=CANARY_SIGMA, count_noise_multiplier=10.0, sample_rate=1.0, epochs=1, learning_rate=1.0,
        clip_norm=1.0, delta=CANARY_DELTA, accountant_method="rdp", center=False),
}


@pytest.mark.audit
@pytest.mark.parametrize("name", sorted(CANARY_ESTIMATORS))
def test_canary_audit_within_claim(name):
    T0, T1, est = canary_samples(CANARY_ESTIMATORS[name])
    res = audit(T0, T1, est.privacy_spent_[1], select_fraction=0.2)
    assert res.epsilon_lb <= est.privacy_spent_[0]
    assert res.epsilon_lb > 0.5 * est.privacy_spent_[0]  # informative, not vacuous


@pytest.mark.audit
@pytest.mark.parametrize("name", sorted(CANARY_ESTIMATORS))
def test_negative_control_canary_audit_flags_sqrt2_less_noise(name):
    T0, T1, est = canary_samples(CANARY_ESTIMATORS[name], noise_factor=1.0 / SQRT2, seed=6)
    res = audit(T0, T1, est.privacy_spent_[1], select_fraction=0.2)
    assert res.epsilon_lb > est.privacy_spent_[0]
