"""secure=True on every DP estimator: exact noise, the real noise level downstream, and the secure accounting."""

import itertools
import math

import numpy as np
import pytest

from dpfair_native import mechanisms
from dpfair_native._secure_accounting import SECURE_RDP_ORDERS
from dpfair_native.models.ding import ADFC, PDFC
from dpfair_native.models.dpsgd import (
    RECORD_COUNT_NOISE,
    DPSGDClassifier,
    DPSGDFClassifier,
    NaiveReweightedDPSGDClassifier,
    dpsgd_privacy_spent,
)
from dpfair_native.models.exponential import ExponentialMechanismFairLearner
from dpfair_native.models.fairdp import FairDPClassifier
from dpfair_native.models.functional import PFLR, FairFunctionalMechanismLR, FunctionalMechanismLR, PFLRStar

native = pytest.mark.native


def _data(n=300, d=4, seed=0):
    rng = np.random.default_rng(seed)
    s = (rng.random(n) < 0.6).astype(np.int64)
    X = np.clip(rng.random((n, d)) * 0.8 + 0.2 * s[:, None] * (rng.random((n, d)) < 0.5), 0, 1)
    y = (rng.random(n) < 1 / (1 + np.exp(-(3 * (X @ np.linspace(1, -1, d)) + s - 0.3)))).astype(np.int64)
    return X, y, s


FUNCTIONAL = [
    lambda **k: FunctionalMechanismLR(epsilon=1.0, **k),
    lambda **k: FunctionalMechanismLR(epsilon=1.0, mechanism="gaussian", delta=1e-5, **k),
    lambda **k: FairFunctionalMechanismLR(epsilon=1.0, **k),
    lambda **k: PFLR(epsilon=1.0, **k),
    lambda **k: PFLRStar(epsilon=1.0, **k),
    lambda **k: PDFC(epsilon_s=0.3, epsilon_n=0.7, attribute=1, **k),
    lambda **k: ADFC(epsilon_s=0.3, delta_s=1e-6, epsilon_n=0.7, delta_n=2e-6, attribute=1, **k),
]


@pytest.mark.parametrize("make", FUNCTIONAL)
def test_functional_secure_uses_secure_noise_and_reports_its_scale(make):
    X, y, s = _data()
    plain = make(random_state=0, max_features=None).fit(X, y, sensitive_features=s)  # secure keeps every column
    sec = make(random_state=0, secure=True).fit(X, y, sensitive_features=s)
    again = make(random_state=0, secure=True).fit(X, y, sensitive_features=s)
    other = make(random_state=1, secure=True).fit(X, y, sensitive_features=s)
    assert sec.get_params()["secure"] is True and plain.get_params()["secure"] is False
    assert sec.privacy_spent_ == plain.privacy_spent_
    np.testing.assert_array_equal(sec.noisy_coefficients_, again.noisy_coefficients_)  # int seed: reproducible
    assert not np.array_equal(sec.noisy_coefficients_, other.noisy_coefficients_)
    assert not np.allclose(sec.noisy_coefficients_, plain.noisy_coefficients_)
    for blk in sec.release_.blocks:
        m = int(np.count_nonzero(blk.mask))
        if m == 0 or not np.isfinite(blk.epsilon):
            continue
        expected = mechanisms.secure_noise_scale(blk.mechanism, m, blk.sensitivity, blk.epsilon,
                                                 blk.delta if blk.mechanism == "gaussian" else None)
        assert blk.scale == pytest.approx(expected, rel=1e-12)
        float_scale = (blk.sensitivity / blk.epsilon if blk.mechanism == "laplace"
                       else mechanisms.analytic_gaussian_sigma(blk.sensitivity, blk.epsilon, blk.delta))
        assert blk.scale >= float_scale  # the noise level downstream is the secure (larger) one
    assert np.isfinite(sec.coef_).all() and sec.predict(X).shape == (X.shape[0],)


def test_functional_secure_release_lies_on_the_grid():
    X, y, s = _data()
    est = FunctionalMechanismLR(epsilon=1.0, random_state=3, secure=True, ridge=0.0).fit(X, y)
    (blk,) = est.release_.blocks
    m = int(np.count_nonzero(blk.mask))
    gran = float(mechanisms._grid(blk.sensitivity / (1024.0 * m)))
    steps = est.noisy_coefficients_ / gran
    np.testing.assert_array_equal(steps, np.round(steps))


def test_secure_flag_is_validated():
    X, y, s = _data()
    with pytest.raises(ValueError, match="secure"):
        FunctionalMechanismLR(secure="yes").fit(X, y)
    with pytest.raises(ValueError, match="secure"):
        DPSGDClassifier(secure=1, epochs=1).fit(X, y)


DPSGD = [  # q public (sample_rate): the reports are the ε at ñ (with q = b/ñ, the filter bound: see below)
    lambda **k: DPSGDClassifier(noise_multiplier=1.1, sample_rate=0.1, batch_size=None, epochs=2, **k),
    lambda **k: DPSGDFClassifier(noise_multiplier=1.1, sample_rate=0.1, batch_size=None, epochs=2, **k),
    lambda **k: NaiveReweightedDPSGDClassifier(noise_multiplier=1.1, sample_rate=0.1, batch_size=None, epochs=2,
                                               **k),
]


@pytest.mark.parametrize("make", DPSGD)
def test_dpsgd_family_secure_accounting(make):
    X, y, s = _data()
    plain = make(random_state=0).fit(X, y, sensitive_features=s)
    sec = make(random_state=0, secure=True).fit(X, y, sensitive_features=s)
    q, T, sig = sec.sample_rate_, sec.n_steps_, sec.effective_noise_multiplier_
    # the noisy record count and the private centre are composed in (exact discrete Gaussians when secure)
    counts = (RECORD_COUNT_NOISE, sec.center_noise_multiplier_)
    assert sec.privacy_spent_[0] == pytest.approx(
        dpsgd_privacy_spent(q, sig, T, sec.privacy_spent_[1], counts, secure=True)[0], rel=1e-12)
    # the secure bound costs more than the continuous formula at the same (q, σ, T)
    assert sec.privacy_spent_[0] > dpsgd_privacy_spent(q, sig, T, 1e-5, counts)[0]
    qp, Tp = plain.sample_rate_, plain.n_steps_
    assert sec.privacy_spent_.method == "rdp"  # the discrete-Gaussian steps have an RDP bound only
    assert plain.privacy_spent_[0] == pytest.approx(
        dpsgd_privacy_spent(qp, sig, Tp, 1e-5, (RECORD_COUNT_NOISE, plain.center_noise_multiplier_),
                            method=plain.privacy_spent_.method)[0])
    assert not np.allclose(sec.coef_, plain.coef_)
    again = make(random_state=0, secure=True).fit(X, y, sensitive_features=s)
    np.testing.assert_array_equal(sec.coef_, again.coef_)


def test_secure_fixed_noise_with_q_from_the_count_reports_the_secure_filter_bound():
    from dpfair_native.models.dpsgd import adaptive_privacy_spent

    X, y, s = _data(n=3000)
    m = DPSGDClassifier(noise_multiplier=1.5, batch_size=100, epochs=1, secure=True, random_state=0).fit(X, y)
    bound = adaptive_privacy_spent(m._sampling, m._center_noise, 1.5, m.n_samples_estimate_, m.delta, secure=True)
    assert m.privacy_spent_ == bound
    counts = (RECORD_COUNT_NOISE, m.center_noise_multiplier_)
    assert bound[0] > dpsgd_privacy_spent(m.sample_rate_, 1.5, m.n_steps_, m.delta, counts, secure=True)[0]
    assert bound[0] > adaptive_privacy_spent(m._sampling, m._center_noise, 1.5, m.n_samples_estimate_, m.delta)[0]


@native
@pytest.mark.parametrize("make", DPSGD)
def test_dpsgd_family_secure_native_equals_numpy(make):
    X, y, s = _data()
    a = make(random_state=4, secure=True).fit(X, y, sensitive_features=s)
    b = make(random_state=4, secure=True, backend="numpy").fit(X, y, sensitive_features=s)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-9, atol=1e-12)


def test_dpsgd_secure_target_epsilon_is_met():
    X, y, s = _data()
    for cls in (DPSGDClassifier, DPSGDFClassifier):
        est = cls(target_epsilon=2.0, batch_size=30, epochs=2, random_state=0, secure=True).fit(
            X, y, sensitive_features=s)
        assert est.privacy_spent_[0] <= 2.0 + 1e-9


def test_dpsgd_secure_unreachable_target_says_why():
    """The general subsampling bound keeps a σ-independent term, so some (q, T) cannot reach a target whatever σ;
    the error says so (it used to blame the count releases), and a tiny target still blames the counts."""
    X, y, s = _data(n=1000)
    with pytest.raises(ValueError, match="out of reach with secure=True"):
        DPSGDClassifier(target_epsilon=1.0, batch_size=100, epochs=20, secure=True, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="used up by the count releases alone"):
        DPSGDClassifier(target_epsilon=0.01, batch_size=100, epochs=1, secure=True, random_state=0).fit(X, y)


def test_secure_target_below_the_floor_without_count_releases_is_an_error():
    """Without a count release the secure bound's ε falls to 0 by the KL route of the RDP conversion once
    σ ≈ q·√T/δ: a valid (0, δ) guarantee whose noise leaves no model. A target below the general bound's floor
    calibrated to that σ (97,463 at q = 0.05, T = 380) without a word; it is now the out-of-reach error, and FairDP
    with public group sizes and no centre (its one fit without a count release) reports it."""
    from dpfair_native.models.dpsgd import calibrate_dpsgd_noise

    with pytest.raises(ValueError, match=r"out of reach with secure=True .* drops to 0 only near noise multiplier 9"):
        calibrate_dpsgd_noise(1.0, 1e-5, 0.05, 380, (), secure=True)
    sigma = calibrate_dpsgd_noise(1.7, 1e-5, 0.05, 380, (), secure=True)  # just above the floor: a usable σ
    assert sigma < 100 and dpsgd_privacy_spent(0.05, sigma, 380, 1e-5, (), secure=True)[0] <= 1.7
    X, y, s = _data(n=1000)
    fair = FairDPClassifier(target_epsilon=0.5, group_sizes=np.bincount(s), declared_groups=[0, 1], sample_rate=0.05,
                            epochs=20, secure=True, random_state=0)
    with pytest.raises(ValueError, match="out of reach with secure=True"):
        fair.fit(X, y, sensitive_features=s)


@pytest.mark.parametrize("release", [
    lambda: mechanisms.laplace_mechanism(np.zeros(1), 1.0, 1e-7, secure=True, random_state=1),
    lambda: mechanisms.laplace_mechanism(np.zeros(1000), 1.0, 1e-4, secure=True, random_state=1),
    lambda: mechanisms.gaussian_mechanism(np.zeros(1), 1.0, 1e-9, 1e-10, secure=True, random_state=1),
    lambda: mechanisms.gaussian_mechanism(np.zeros(10**6), 1.0, 1e-4, 1e-10, secure=True, random_state=1),
])
def test_secure_release_beyond_the_samplers_range_is_a_clear_error(release):
    """Scales the exact samplers cannot reach however coarse the grid (m/ε or σ(1)·√m above 2^23 grid units, or an
    ε below what the zCDP conversion certifies) raise at once; the grid-doubling loops used to run forever."""
    with pytest.raises(ValueError, match="secure=False|no finite noise level"):
        release()


def test_functional_secure_at_tiny_epsilon_is_a_clear_error():
    rng = np.random.default_rng(0)
    X, y = rng.random((300, 30)), (rng.random(300) < 0.5).astype(int)
    with pytest.raises(ValueError, match="secure=False"):
        FunctionalMechanismLR(epsilon=5e-5, secure=True, max_features=None, random_state=0).fit(X, y)


@pytest.mark.parametrize("group_sizes", [None, (120, 180)])
def test_fairdp_secure_accounting(group_sizes):
    X, y, s = _data()
    kw = dict(noise_multiplier=1.5, sample_rate=0.1, epochs=2, n_models=3, group_sizes=group_sizes, random_state=0)
    plain = FairDPClassifier(**kw).fit(X, y, sensitive_features=s)
    sec = FairDPClassifier(secure=True, **kw).fit(X, y, sensitive_features=s)
    assert sec.privacy_spent_[0] > plain.privacy_spent_[0]
    assert np.isfinite(sec.coef_).all() and not np.allclose(sec.coef_, plain.coef_)
    if group_sizes is None:  # noisy counts are integers in secure mode
        np.testing.assert_array_equal(sec.group_size_estimates_, np.round(sec.group_size_estimates_))
    cal = FairDPClassifier(secure=True, target_epsilon=3.0, **{k: v for k, v in kw.items() if k != "noise_multiplier"})
    assert cal.fit(X, y, sensitive_features=s).privacy_spent_[0] <= 3.0 + 1e-9
    assert max(SECURE_RDP_ORDERS) == 256


def _pf_probabilities(u, sens, eps):
    """Exact permute-and-flip choice probabilities by enumerating the orders (small m)."""
    p = np.exp(eps * (u - u.max()) / (2 * sens))
    out = np.zeros(u.size)
    perms = list(itertools.permutations(range(u.size)))
    for order in perms:
        stay = 1.0
        for r in order:
            out[r] += stay * p[r] / len(perms)
            stay *= 1 - p[r]
    return out


def test_permute_and_flip_secure_distribution():
    u = np.array([0.0, -1.0, -2.5, -0.4])
    sens, eps = 1.0, 2.0
    gran = float(mechanisms._grid(sens / 1024))
    u_grid = np.round(u / gran) * gran
    expected = _pf_probabilities(u_grid, sens + gran, eps)
    n = 2000
    picks = np.array([mechanisms.permute_and_flip_secure(u, sens, eps, random_state=seed) for seed in range(n)])
    counts = np.bincount(picks, minlength=u.size)
    stat = float(((counts - n * expected) ** 2 / (n * expected)).sum())
    assert stat < 20.0  # chi-square, 3 df: p ~ 2e-4
    # Negative control: the exponential mechanism's probabilities (a different distribution) are rejected.
    em = mechanisms.exponential_mechanism_probabilities(u, sens, eps)
    assert float(((counts - n * em) ** 2 / (n * em)).sum()) > 20.0


def test_exponential_learner_secure():
    X, y, s = _data()
    kw = dict(min_group_positives=[20, 20], n_candidates=50, on_small_group="clamp", random_state=0,
              candidate_source="random")
    est = ExponentialMechanismFairLearner(1.0, secure=True, **kw).fit(X, y, sensitive_features=s)
    again = ExponentialMechanismFairLearner(1.0, secure=True, **kw).fit(X, y, sensitive_features=s)
    assert est.privacy_spent_ == (1.0, 0.0) and 0 <= est.selected_index_ < 50
    assert est.selected_index_ == again.selected_index_
    with pytest.raises(ValueError, match="utilities"):
        mechanisms.permute_and_flip_secure([np.nan], 1.0, 1.0)
    assert math.isfinite(est.intercept_)


def _grid_filter(sigma_at, n, target, epochs, batch_size, points=13):
    """ε at δ − tail of the RDP filter of a secure fit on n rows whose ñ' in n ± kσ_n each run with q = b/ñ', their
    T and the σ ``sigma_at(est, q, T, releases, ñ')`` picks: the envelope over a grid of ñ' (brute force)."""
    from dpfair_native.accountants import rdp_gaussian
    from dpfair_native.accountants.rdp import _conversion_epsilons
    from dpfair_native.models import dpsgd as dpsgd_module

    orders = np.asarray(SECURE_RDP_ORDERS, dtype=np.float64)
    est = DPSGDClassifier(target_epsilon=target, epochs=epochs, batch_size=batch_size, secure=True)
    k = dpsgd_module.count_window(est.delta)
    envelope = np.zeros_like(orders)
    for count in np.linspace(n - k * RECORD_COUNT_NOISE, n + k * RECORD_COUNT_NOISE, points):
        q, steps = est._sampling(count)
        releases = (RECORD_COUNT_NOISE, est._center_noise(q, steps))
        sigma = sigma_at(est, q, steps, releases, count)
        curve = steps * dpsgd_module.dpsgd_rdp(q, sigma, 1, (), orders, secure=True)
        envelope = np.maximum(envelope, curve + sum(rdp_gaussian(c, orders) for c in releases))
    tail = math.erfc(k / math.sqrt(2.0))
    return float(np.min(_conversion_epsilons(orders, envelope, est.delta - tail)))


@pytest.mark.parametrize("target, epochs, batch_size", [(4.0, 1, 100), (1.0, 2, 256)])
def test_secure_target_with_q_from_the_count_meets_the_target_over_the_counts_near_n(target, epochs, batch_size):
    """With q = b/ñ each ñ' calibrates σ by calibrate_adaptive_noise, so the filter over the ñ' a fit on 1,000 rows
    could release stays within the target; calibrating at each ñ' alone (the rule before) exceeds it here (by 7 and
    5 %), and so does a rule meeting the target only at the order of ñ''s own cell."""
    from dpfair_native.models import dpsgd as dpsgd_module
    from dpfair_native.models.dpsgd import calibrate_adaptive_noise, calibrate_dpsgd_noise

    def own_cell_only(est, q, T, rel, count):
        cell = dpsgd_module._cell_index(count)
        order = dpsgd_module._cell_order(cell, target, est.delta, est._sampling, est._center_noise, True)
        tail = math.erfc(dpsgd_module.count_window(est.delta) / math.sqrt(2.0))
        return dpsgd_module._sigma_at_order(order, q, T, rel, target, est.delta - tail, count, True)

    adaptive = _grid_filter(lambda est, q, T, rel, count: est._noise_multipliers(q, T, rel, True, count)[0],
                            1000, target, epochs, batch_size, points=25)
    at_count = _grid_filter(lambda est, q, T, rel, count: calibrate_dpsgd_noise(target, est.delta, q, T, rel,
                                                                                 secure=True),
                            1000, target, epochs, batch_size)
    assert adaptive <= target < at_count
    assert target < _grid_filter(own_cell_only, 1000, target, epochs, batch_size, points=25)

    X, y, s = _data(n=1000)
    m = DPSGDClassifier(target_epsilon=target, batch_size=batch_size, epochs=epochs, secure=True,
                        random_state=0).fit(X, y)
    assert tuple(m.privacy_spent_) == (target, m.delta) and m.privacy_spent_.method == "rdp"
    releases = (RECORD_COUNT_NOISE, m.center_noise_multiplier_)
    assert m.noise_multiplier_ > calibrate_dpsgd_noise(target, m.delta, m.sample_rate_, m.n_steps_, releases,
                                                       secure=True)
    # DPSGD-F: the calibrated σ is the joint step's effective σ
    f = DPSGDFClassifier(target_epsilon=target, batch_size=batch_size, epochs=epochs, secure=True, random_state=0,
                         declared_groups=[0, 1]).fit(X, y, sensitive_features=s)
    assert f.effective_noise_multiplier_ == pytest.approx(
        calibrate_adaptive_noise(target, f.delta, f._sampling, f._center_noise, f.n_samples_estimate_, secure=True),
        rel=1e-12)
    assert tuple(f.privacy_spent_) == (target, f.delta)
    # a public q: the ε at that q is exact, calibrated there
    pub = DPSGDClassifier(target_epsilon=target, sample_rate=0.1, batch_size=None, epochs=epochs, secure=True,
                          random_state=0).fit(X, y)
    assert pub.noise_multiplier_ == calibrate_dpsgd_noise(target, pub.delta, 0.1, pub.n_steps_, releases,
                                                          secure=True)


def test_secure_target_with_q_from_the_count_out_of_reach_says_why():
    """20 epochs of batch 256 on 1,000 rows: the orders the counts near ñ share have a floor above ε = 4, so the fit
    refuses (before this rule it fitted, reporting 4 while the filter over the counts near n was 4.59)."""
    X, y, _ = _data(n=1000)
    with pytest.raises(ValueError, match="out of reach.*sample_rate"):
        DPSGDClassifier(target_epsilon=4.0, secure=True, random_state=0).fit(X, y)
    public = DPSGDClassifier(target_epsilon=4.0, secure=True, sample_rate=0.02, batch_size=None, epochs=2,
                             random_state=0).fit(X, y)
    assert public.privacy_spent_[0] <= 4.0 and np.isfinite(public.coef_).all()


@pytest.mark.parametrize("make", DPSGD + [lambda **k: FairDPClassifier(noise_multiplier=1.5, sample_rate=0.1, epochs=2,
                                                                      n_models=3, **k)])
def test_secure_fits_select_batches_exactly_not_with_numpy(make, monkeypatch):
    """secure=True draws every batch with secure_poisson_batches (one key per epoch, and per group for FairDP),
    never with the float path's poisson_batches, and draws every key on the fitting thread (the batches of the
    next epoch are drawn on a prefetching thread: a key drawn there would make the order of a seeded run's keys
    depend on timing); the float fit does the opposite."""
    import threading

    from dpfair_native._secure_random import SecureKeys
    from dpfair_native.models import dpsgd, fairdp

    calls, exact, next_key, threads = [], dpsgd.secure_poisson_batches, SecureKeys.next, set()

    def counted(*args, **kwargs):
        calls.append(args[3])  # the key
        return exact(*args, **kwargs)

    def keyed(self):  # every key is drawn on the fitting thread, none on the prefetching one (reproducible order)
        threads.add(threading.current_thread() is threading.main_thread())
        return next_key(self)

    def refused(*args, **kwargs):
        raise AssertionError("a secure fit drew its batches with NumPy")

    X, y, s = _data()
    monkeypatch.setattr(dpsgd, "poisson_batches", refused)
    monkeypatch.setattr(fairdp, "poisson_batches", refused)
    monkeypatch.setattr(dpsgd, "secure_poisson_batches", counted)
    monkeypatch.setattr(fairdp, "secure_poisson_batches", counted)
    monkeypatch.setattr(SecureKeys, "next", keyed)
    model = make(random_state=0, secure=True).fit(X, y, sensitive_features=s)
    assert threads == {True}
    per_epoch = 2 if isinstance(model, FairDPClassifier) else 1
    assert len(calls) == 2 * per_epoch and len(set(calls)) == len(calls)  # 2 epochs, a fresh key each
    with pytest.raises(AssertionError, match="NumPy"):
        make(random_state=0).fit(X, y, sensitive_features=s)
