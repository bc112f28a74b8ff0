"""Private feature centering of the DP-SGD family (models/_centering.py and the loops' ``center`` argument)."""

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest

from dpfair_native import kernels
from dpfair_native.models import (
    ConstrainedDPSGDClassifier,
    DPSGDClassifier,
    DPSGDFClassifier,
    FairDPClassifier,
    NaiveReweightedDPSGDClassifier,
)
from dpfair_native.models._centering import center_noise_multiplier, release_center, warn_if_out_of_scale
from dpfair_native.models.dpsgd import RECORD_COUNT_NOISE, dpsgd_privacy_spent

sp = pytest.importorskip("scipy.sparse")


def _problem(n=300, d=6, T=25, b=16, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, d))
    X[X < 0.45] = 0.0
    y = (rng.uniform(size=n) < 0.4).astype(np.float64)
    g = rng.integers(0, 2, n)
    mu = 0.6 * rng.uniform(size=d)
    rows = rng.integers(0, n, T * b)
    offsets = np.arange(0, T * b + 1, b)
    return X, y, g, mu, rows, offsets, np.full(T, 0.7), rng.standard_normal((T, d + 1)), rng


@pytest.mark.parametrize("rule", ["fixed", "dpsgdf", "naive"])
@pytest.mark.parametrize("layout", ["dense", "fortran", "csr"])
@pytest.mark.parametrize("backend", ["native", "numpy"])
def test_dpsgd_loop_with_a_center_equals_the_loop_on_shifted_rows(rule, layout, backend):
    X, y, g, mu, rows, offsets, lr, noise, rng = _problem()
    T = lr.shape[0]
    width = {"fixed": 0, "dpsgdf": 4, "naive": 2}[rule]
    kw = dict(groups=g, clip=np.array([0.6, 1.1]), rule=rule, noise_multiplier=0.9, count_noise_multiplier=2.0,
              expected_batch_size=16.0, count_noise=rng.standard_normal((T, width)) if width else None)
    ref, ref_bounds = kernels.dpsgd_epochs(X - mu, y, np.zeros(7), rows, offsets, lr, noise, backend="numpy", **kw)
    Xl = {"dense": X, "fortran": np.asfortranarray(X), "csr": sp.csr_matrix(X)}[layout]
    out, bounds = kernels.dpsgd_epochs(Xl, y, np.zeros(7), rows, offsets, lr, noise, backend=backend, center=mu,
                                       **kw)
    np.testing.assert_allclose(out, ref, rtol=0, atol=1e-12)
    np.testing.assert_allclose(bounds, ref_bounds, rtol=0, atol=1e-12)
    # the center is not a no-op
    plain, _ = kernels.dpsgd_epochs(Xl, y, np.zeros(7), rows, offsets, lr, noise, backend=backend, **kw)
    assert np.abs(plain - out).max() > 1e-3


@pytest.mark.parametrize("backend", ["native", "numpy"])
def test_secure_loop_with_a_center_equals_the_loop_on_shifted_rows(backend):
    X, y, g, mu, rows, offsets, lr, _, _ = _problem()
    kw = dict(groups=g, clip=np.array([0.6, 1.1]), noise_multiplier=0.9, expected_batch_size=16.0,
              secure_key=bytes(range(32)))
    ref, _ = kernels.dpsgd_epochs(X - mu, y, np.zeros(7), rows, offsets, lr, None, backend="native", **kw)
    out, _ = kernels.dpsgd_epochs(X, y, np.zeros(7), rows, offsets, lr, None, backend=backend, center=mu, **kw)
    np.testing.assert_allclose(out, ref, rtol=0, atol=1e-12)


@pytest.mark.parametrize("layout", ["dense", "csr"])
@pytest.mark.parametrize("backend", ["native", "numpy"])
def test_constrained_loop_with_a_center_equals_the_loop_on_shifted_rows(layout, backend):
    X, y, g, mu, rows, offsets, lr, noise, rng = _problem()
    T, n, d = lr.shape[0], X.shape[0], X.shape[1]
    args = (g, y.astype(np.int64), np.array([0, 1]), rows, offsets, lr, noise, rng.standard_normal((T, 8)),
            kernels.constrained_sgd_state(d, 2, 2))
    kw = dict(noise_multiplier=0.9, hist_noise_multiplier=2.0, expected_batch_size=16.0, dual_learning_rate=2.0)
    ref = kernels.constrained_sgd_epochs(X - mu, y, *args, backend="numpy", **kw)
    Xl = X if layout == "dense" else sp.csr_matrix(X)
    out = kernels.constrained_sgd_epochs(Xl, y, *args, backend=backend, center=mu, **kw)
    for a, b in ((out.params, ref.params), (out.avg, ref.avg), (out.lambdas, ref.lambdas), (out.hist, ref.hist)):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)
    assert n == X.shape[0]


@pytest.mark.parametrize("layout", ["dense", "csr"])
@pytest.mark.parametrize("backend", ["native", "numpy"])
def test_a_row_next_to_a_large_center_stays_clipped(layout, backend):
    """On CSR rows ‖x − μ‖² = ‖x‖² − 2xᵀμ + ‖μ‖² cancels when x ≈ μ; a rounded-down norm would release the
    unclipped gradient (here 0.5·√65 ≈ 4.03 against the bound 1). One step, σ = 0, b = 1: the release is the clipped
    gradient itself. Subtracting (Σ c_i)·μ from Σ c_i·x_i rounds at ε_mach·|μ| ≈ 2e-7 on every path, hence the
    tolerance."""
    mu = np.array([1e9, 1e9, 0.0])
    X = np.array([[1e9 + 8.0, 1e9, 0.0]])
    Xl = X if layout == "dense" else sp.csr_matrix(X)
    out, _ = kernels.dpsgd_epochs(Xl, np.zeros(1), np.zeros(4), np.arange(1), np.array([0, 1]), np.ones(1),
                                  np.zeros((1, 4)), clip=1.0, noise_multiplier=0.0, expected_batch_size=1.0,
                                  center=mu, backend=backend)
    assert 0.0 < np.linalg.norm(out) <= 1.0 + 1e-6


@pytest.mark.parametrize("layout", ["dense", "csr"])
@pytest.mark.parametrize("backend", ["native", "numpy"])
def test_the_constrained_loop_keeps_a_row_next_to_a_large_center_clipped(layout, backend):
    """The constrained loop's CSR rows read ‖x − μ‖² by the same three terms: the same row as above, one step with
    no noise, multipliers 0 and a dual step of 0, so the step is the clipped gradient."""
    mu = np.array([1e9, 1e9, 0.0])
    X = np.array([[1e9 + 8.0, 1e9, 0.0]])
    Xl = X if layout == "dense" else sp.csr_matrix(X)
    one = np.zeros(1, dtype=np.int64)
    out = kernels.constrained_sgd_epochs(
        Xl, np.zeros(1), one, one, np.array([0, 1]), one, np.array([0, 1]), np.ones(1), np.zeros((1, 4)),
        np.zeros((1, 8)), kernels.constrained_sgd_state(3, 2, 2), backend=backend, center=mu, noise_multiplier=0.0,
        hist_noise_multiplier=0.0, expected_batch_size=1.0, dual_learning_rate=0.0)
    assert 0.0 < np.linalg.norm(out.params) <= 1.0 + 1e-6


@pytest.mark.parametrize("bad", [np.zeros(5), np.array([0, 0, 0, np.nan, 0, 0])])
def test_a_bad_center_is_refused(bad):
    X, y, g, _, rows, offsets, lr, noise, _ = _problem()
    with pytest.raises(ValueError, match="center"):
        kernels.dpsgd_epochs(X, y, np.zeros(7), rows, offsets, lr, noise, expected_batch_size=16.0, center=bad)
    with pytest.raises(ValueError, match="center"):
        kernels.constrained_sgd_epochs(X, y, g, np.zeros(300, np.int64), np.array([1]), rows, offsets, lr, noise,
                                       np.zeros((25, 4)), kernels.constrained_sgd_state(6, 2, 1),
                                       expected_batch_size=16.0, center=bad)


def test_the_clipped_sum_moves_by_at_most_the_bound_between_neighbours():
    """Brute force over remove-one neighbours: the sensitivity the noise is scaled to."""
    rng = np.random.default_rng(1)
    X = rng.normal(scale=2.0, size=(60, 4))
    X[::7] *= 50  # rows far beyond the bound are shrunk to it
    bound = 3.0
    full = release_center(X, 1.0, 1e-300, bound, rng) * 1.0  # σ ≈ 0: the clipped sum itself (ñ = 1)
    for i in range(X.shape[0]):
        other = release_center(np.delete(X, i, axis=0), 1.0, 1e-300, bound, rng)
        assert np.linalg.norm(full - other) <= bound * (1 + 1e-12)


@pytest.mark.parametrize("sparse", [False, True])
def test_the_grid_release_moves_by_one_rows_integer_vector_of_norm_at_most_L(sparse, monkeypatch):
    """Secure mode sums the rows' grid vectors k_i = rint(clip(x_i)/γ) (γ = 2^-k <= 1e-4·C/√d) exactly: with the
    same key (same noise) removing row i moves the released centre by exactly k_i·γ/ñ, and ‖k_i‖² <= L²,
    L = ⌈C/γ + √d/2⌉ + 1 (Python integers). The float clipped rows overshoot C by ulps (checked exactly), which
    is why the sum is taken in integers. CSR input (chunked) gives the same integers."""
    from dpfair_native._secure_random import SecureKeys
    from dpfair_native.models import _centering

    monkeypatch.setattr(_centering, "_ROW_CHUNK", 16)
    rng = np.random.default_rng(2)
    bound, d, n = 2.0, 5, 40
    X = rng.uniform(-1, 1, size=(n, d)) * rng.uniform(0.5, 40, size=(n, 1))
    X[rng.uniform(size=X.shape) < 0.3] = 0.0
    gamma, limit = _centering._centre_grid(3.0, bound, d)
    _, e = math.frexp(1e-4 * bound / math.sqrt(d))
    assert gamma == math.ldexp(1.0, e - 1) and limit == math.ceil(bound / gamma + math.sqrt(d) / 2) + 1
    norms = np.linalg.norm(X, axis=1)
    scale = np.where(norms > bound, bound / np.where(norms > 0, norms, 1.0), 1.0)
    clipped = X * scale[:, None]
    assert max(sum(Fraction(float(v)) ** 2 for v in row) for row in clipped) > Fraction(bound) ** 2
    as_input = (lambda A: sp.csr_matrix(A)) if sparse else (lambda A: A)

    def release(A):
        return release_center(as_input(A), 1.0, 3.0, bound, rng, SecureKeys(11))

    full = release(X)
    for i in (0, 7, 16, n - 1):
        k = (full - release(np.delete(X, i, axis=0))) / gamma
        assert np.array_equal(k, np.round(k))
        assert sum(int(v) ** 2 for v in k) <= limit**2
        np.testing.assert_array_equal(k, np.rint(clipped[i] / gamma))


@pytest.mark.parametrize("factor", [1.0, 2.0])
def test_the_secure_release_noise_has_the_stated_scale(factor):
    """Secure mode's noise: std σ_μ·factor·L·γ/ñ per coordinate (replace-one callers pass factor 2), and the centre
    itself is unbiased to within the grid (0/1 features round the same way in every row)."""
    from dpfair_native._secure_random import SecureKeys
    from dpfair_native.models import _centering

    X = np.tile([[0.3, 0.0, 0.7]], (10, 1))
    sigma, bound, n_est = 4.0, 2.0, 10.0
    gamma, limit = _centering._centre_grid(sigma * factor, bound, 3)
    keys = SecureKeys(1)
    draws = np.array([release_center(X, n_est, sigma, bound, None, keys, sensitivity_factor=factor)
                      for _ in range(3000)])
    target = sigma * factor * limit * gamma / n_est
    assert np.all(np.abs(draws.std(axis=0) / target - 1) < 0.06)
    assert np.all(np.abs(draws.std(axis=0) / (target * 1.2) - 1) > 0.06)  # 20 % less noise would show
    np.testing.assert_allclose(draws.mean(axis=0), [0.3, 0.0, 0.7], atol=4 * target / math.sqrt(3000))
    # with almost no noise (σ_Z = 1 unit) the centre is the mean to within half a grid step per row and coordinate
    # plus that noise: the grid C/2^10 used before this test was written is off by 8e-4 here
    quiet = release_center(X, n_est, 1e-9, bound, None, keys, sensitivity_factor=factor)
    assert np.max(np.abs(quiet - X.mean(axis=0))) <= (10 / 2 + 6) * gamma / n_est


def test_the_grid_sum_leaves_out_a_row_beyond_L():
    """_grid_row_sum's integer check: a row scaled to twice the bound (a clip that failed) adds nothing, also after
    the retry; a row at the bound adds its grid vector."""
    from dpfair_native.models._centering import _grid_row_sum

    X = np.array([[2.0, 0.0], [0.0, 1.0]])
    gamma, limit = 1.0 / 1024, 1026
    np.testing.assert_array_equal(_grid_row_sum(X, np.array([1.0, 1.0]), gamma, limit), [0.0, 1024.0])
    np.testing.assert_array_equal(_grid_row_sum(sp.csr_matrix(X), np.array([1.0, 1.0]), gamma, limit),
                                  [0.0, 1024.0])


def test_the_release_noise_has_the_stated_scale():
    rng = np.random.default_rng(3)
    X = np.full((10, 3), 0.1)
    draws = np.array([release_center(X, 10.0, 4.0, 2.0, rng) for _ in range(4000)])
    np.testing.assert_allclose(draws.mean(axis=0), 0.1, atol=0.03)
    np.testing.assert_allclose(draws.std(axis=0), 4.0 * 2.0 / 10.0, rtol=0.05)


def test_center_noise_takes_the_stated_share_of_the_budget():
    # (ε, δ) = (1, 1e-5) allows ρ = (√(1 + L) − √L)², L = log(1e5); the centre takes 5 % of it
    L = math.log(1e5)
    rho = (math.sqrt(1 + L) - math.sqrt(L)) ** 2
    sigma = center_noise_multiplier(1.0, 1e-5, 0.0, 0.01, 100)
    assert 1 / (2 * sigma**2) == pytest.approx(0.05 * rho)
    assert center_noise_multiplier(None, 1e-5, 1.0, 0.01, 500) == pytest.approx(1.0 / (2 * 0.01 * math.sqrt(25)))


def _data(n=1500, d=8, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, d))
    s = (rng.uniform(size=n) < 0.35).astype(np.int64)
    y = (X @ rng.normal(size=d) + s + 0.3 * rng.normal(size=n) > np.median(X @ np.ones(d) / 2)).astype(np.int64)
    return X, y, s


@pytest.mark.parametrize("cls", [DPSGDClassifier, DPSGDFClassifier, NaiveReweightedDPSGDClassifier,
                                 ConstrainedDPSGDClassifier])
def test_the_centre_release_is_charged(cls):
    X, y, s = _data()
    # a public q (sample_rate): the fit reports its releases' ε at the released ñ (see test_models_dpsgd for q = b/ñ)
    kw = dict(noise_multiplier=1.2, target_epsilon=None, sample_rate=0.05, batch_size=None, epochs=2, random_state=0)
    m = cls(**kw).fit(X, y, sensitive_features=s)
    off = cls(center=False, **kw).fit(X, y, sensitive_features=s)
    assert m.center_noise_multiplier_ > 0 and off.center_ is None and off.center_noise_multiplier_ is None
    assert m.privacy_spent_[0] == pytest.approx(dpsgd_privacy_spent(
        m.sample_rate_, m.effective_noise_multiplier_, m.n_steps_, m.delta,
        (RECORD_COUNT_NOISE, m.center_noise_multiplier_), method=m.privacy_spent_.method)[0], rel=1e-12)
    assert off.privacy_spent_[0] < m.privacy_spent_[0] < 1.15 * off.privacy_spent_[0]
    # a target ε covers the centre too
    t = cls(target_epsilon=1.0, batch_size=100, epochs=2, random_state=0).fit(X, y, sensitive_features=s)
    assert 0.97 < t.privacy_spent_[0] <= 1.0 and t.center_noise_multiplier_ > 0


def test_fairdp_charges_the_centre_release():
    X, y, s = _data()
    kw = dict(noise_multiplier=1.2, sample_rate=0.05, epochs=2, random_state=0, n_models=3, center=True)
    m = FairDPClassifier(**kw).fit(X, y, sensitive_features=s)
    assert m.privacy_spent_[0] == pytest.approx(dpsgd_privacy_spent(
        0.05, 1.2, m.n_steps_, m.delta, (m.count_noise_multiplier_, m.center_noise_multiplier_),
        method=m.privacy_spent_.method)[0], rel=1e-12)
    t = FairDPClassifier(target_epsilon=1.0, sample_rate=0.05, epochs=2, random_state=0, center=True).fit(
        X, y, sensitive_features=s)
    assert 0.97 < t.privacy_spent_[0] <= 1.0


@pytest.mark.parametrize("cls", [DPSGDClassifier, ConstrainedDPSGDClassifier, FairDPClassifier])
def test_a_non_private_centred_fit_is_the_fit_on_mean_centred_rows(cls):
    """σ = 0: μ̃ is the exact mean, no draw is spent on it, and the model re-expressed in x scores like the model
    trained on x − mean."""
    X, y, s = _data()
    kw = dict(noise_multiplier=0.0, target_epsilon=None, epochs=2, random_state=0)
    m = cls(center=True, **kw).fit(X, y, sensitive_features=s)
    np.testing.assert_allclose(m.center_, X.mean(axis=0), rtol=1e-12)
    shifted = cls(center=False, **kw).fit(X - X.mean(axis=0), y, sensitive_features=s)
    np.testing.assert_allclose(m.decision_function(X), shifted.decision_function(X - X.mean(axis=0)),
                               rtol=1e-9, atol=1e-9)


def test_centering_helps_on_uncentred_high_dimensional_data():
    """The reason for the default: d = 200 features in [0, 1] at ε = 1."""
    rng = np.random.default_rng(5)
    n, d = 8000, 200
    X = rng.uniform(size=(n + 4000, d))
    z = X @ (4 * rng.normal(size=d) / math.sqrt(d)) + 0.5 * rng.normal(size=n + 4000)
    y = (z > np.median(z)).astype(np.int64)
    accs = {}
    for center in (True, False):
        m = DPSGDClassifier(target_epsilon=1.0, random_state=0, center=center).fit(X[:n], y[:n])
        accs[center] = float(np.mean(m.predict(X[n:]) == y[n:]))
    assert accs[True] > accs[False] + 0.02, accs


def test_sparse_row_norms_in_chunks_equal_dense_ones(monkeypatch):
    from dpfair_native.models import _centering

    rng = np.random.default_rng(7)
    A = rng.normal(size=(257, 6))
    A[rng.uniform(size=A.shape) < 0.7] = 0.0
    A[[0, 5, 6, 100, 255, 256]] = 0.0  # empty rows, also at a chunk's start and at the end
    monkeypatch.setattr(_centering, "_ROW_CHUNK", 50)
    np.testing.assert_allclose(_centering._row_norms(sp.csr_matrix(A)), np.linalg.norm(A, axis=1), rtol=1e-14)
    # and the whole release: CSR equals dense
    a = release_center(sp.csr_matrix(A), 10.0, 2.0, 1.5, np.random.default_rng(0))
    b = release_center(A, 10.0, 2.0, 1.5, np.random.default_rng(0))
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("method", ["rdp", "pld"])
def test_the_releases_before_training_compose_to_one_gaussian(method):
    """dpsgd_release merges the count and centre releases into one Gaussian event (exact: normal privacy losses
    add); the ε equals dp_accounting's for the separate events."""
    dpa = pytest.importorskip("dp_accounting")
    q, sigma, steps, delta, releases = 0.01, 1.1, 500, 1e-5, (RECORD_COUNT_NOISE, 7.0, 3.0)
    ours = dpsgd_privacy_spent(q, sigma, steps, delta, releases, method=method)[0]
    events = [dpa.GaussianDpEvent(s) for s in releases]
    events.append(dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(sigma)), steps))
    if method == "rdp":
        from dpfair_native.accountants import DEFAULT_RDP_ORDERS

        ref = dpa.rdp.RdpAccountant(list(DEFAULT_RDP_ORDERS)).compose(dpa.ComposedDpEvent(events)).get_epsilon(delta)
        assert ours == pytest.approx(ref, rel=1e-9)
    else:
        ref = dpa.pld.PLDAccountant(value_discretization_interval=1e-4).compose(
            dpa.ComposedDpEvent(events)).get_epsilon(delta)
        assert ours == pytest.approx(ref, rel=0.01)


def _raw_units(n, seed=0):
    """Ages 18–90, weekly hours 1–99 and log-normal incomes (bench/raw_units.py's table), and their public bounds."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.uniform(18, 90, n), rng.uniform(1, 99, n), rng.lognormal(10, 1, n)])
    y = ((X[:, 0] - 50) / 15 + (X[:, 1] - 45) / 25 + rng.normal(0, 1, n) > 0.8).astype(int)
    return X, y, rng.integers(0, 2, n), (np.array([18.0, 1.0, 0.0]), np.array([90.0, 99.0, 5e5]))


@pytest.mark.parametrize("cls", [DPSGDClassifier, DPSGDFClassifier, NaiveReweightedDPSGDClassifier,
                                 ConstrainedDPSGDClassifier])
def test_raw_units_are_flagged_from_the_released_centre_and_scaled_ones_are_not(cls):
    """On raw units these fits predict one class (README, 'Scale the features'); the released centre shows it."""
    from dpfair_native.domain import AssumedDomainWarning

    X, y, s, (lo, hi) = _raw_units(6_000)  # flagged from ~3,000 rows at ε = 1 (the noise allowances)
    params = {"declared_groups": [0, 1]} if "declared_groups" in cls().get_params() else {}
    with pytest.warns(AssumedDomainWarning, match="raw units") as caught:
        cls(random_state=0, **params).fit(X, y, sensitive_features=s)
    assert [w.filename for w in caught if issubclass(w.category, AssumedDomainWarning)] == [__file__]
    with warnings.catch_warnings():
        warnings.simplefilter("error", AssumedDomainWarning)
        cls(random_state=0, **params).fit((X - lo) / (hi - lo), y, sensitive_features=s)
        X01 = np.random.default_rng(1).uniform(size=(6_000, 40))  # in scale at a larger d
        cls(random_state=0, **params).fit(X01, (X01[:, 0] > 0.5).astype(int), sensitive_features=s)


def test_the_scale_warning_discounts_both_noises():
    """A centre that only noise pushes past 0.9·C_μ does not warn: the centre's own noise (few rows, large d,
    little budget), or a noisy count ñ below n (μ̃ = S̃/ñ grows by n/ñ)."""
    from dpfair_native.domain import AssumedDomainWarning

    X = np.full((60, 200), 0.8)  # ‖x‖ = 0.8·√d: in scale, ‖mean‖ = 0.8·C_μ
    with warnings.catch_warnings():
        warnings.simplefilter("error", AssumedDomainWarning)
        for seed in range(5):  # without the allowance 4 of these 5 centres are above 0.9·C_μ
            center = release_center(X, 60.0, 2.0, math.sqrt(200), np.random.default_rng(seed))
            warn_if_out_of_scale(center, 2.0, 60.0, math.sqrt(200))
        inflated = np.full(4, 0.8 * 1000 / 850)  # ‖S/n‖ = 0.8·C_μ (C_μ = 2), n = 1,000 seen as ñ = 850: 0.94·C_μ
        warn_if_out_of_scale(inflated, 1e-6, 850.0, 2.0, count_noise=100.0)
    with pytest.warns(AssumedDomainWarning):  # the same centre from a public count is out of scale
        warn_if_out_of_scale(inflated, 1e-6, 850.0, 2.0)


@pytest.mark.parametrize("cls", [DPSGDClassifier, ConstrainedDPSGDClassifier])
def test_a_fit_that_aborts_after_the_centre_does_not_warn(cls):
    """The centre of a fit that aborts is never released, so no warning may be computed from it."""
    from dpfair_native.domain import AssumedDomainWarning

    X, y, s, _ = _raw_units(500)
    params = {"declared_groups": [0, 1]} if cls is ConstrainedDPSGDClassifier else {}
    with warnings.catch_warnings(record=True) as caught, pytest.raises(ValueError, match="clip_norm must be finite"):
        warnings.simplefilter("always")
        cls(noise_multiplier=1.0, clip_norm=np.inf, random_state=0, **params).fit(X, y, sensitive_features=s)
    assert not [w for w in caught if issubclass(w.category, AssumedDomainWarning)]


def test_a_declared_domain_turns_the_scale_check_off():
    """Rows of a DomainEncoder output near its ‖x‖₂ bound (a dominant category in every column) are in scale."""
    from dpfair_native.domain import AssumedDomainWarning
    from dpfair_native.preprocessing import Categorical, DomainEncoder

    rng = np.random.default_rng(0)
    columns = {f"c{j}": np.where(rng.random(10_000) < 0.97, "common", "rare") for j in range(6)}
    enc = DomainEncoder({name: Categorical(["common", "rare"]) for name in columns})
    X = enc.fit_transform(columns)
    y = rng.integers(0, 2, 10_000)
    with warnings.catch_warnings():
        warnings.simplefilter("error", AssumedDomainWarning)
        DPSGDClassifier(target_epsilon=1.0, random_state=0).fit(X, y)
    with pytest.warns(AssumedDomainWarning, match="raw units"):  # the same rows without their declared domain
        DPSGDClassifier(target_epsilon=1.0, random_state=0).fit(np.asarray(X) * 20, y)
