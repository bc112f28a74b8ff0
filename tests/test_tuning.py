"""Private hyper-parameter search (Papernot & Steinke 2022): the published bound, its charge, the sampler."""

import math
import warnings

import numpy as np
import pytest

from dpfair_native.accountants import DEFAULT_RDP_ORDERS, rdp_gaussian, rdp_to_epsilon
from dpfair_native.datasets import make_fair_classification
from dpfair_native.models import (
    ConstrainedDPSGDClassifier,
    DPSGDClassifier,
    DPSGDFClassifier,
    FunctionalMechanismLR,
    TrainingDivergedError,
)
from dpfair_native.models.dpsgd import count_window
from dpfair_native.tuning import (
    PrivateHyperparameterSearch,
    sample_tnb,
    tnb_gamma_for_mean,
    tnb_mean,
    tnb_selection_rdp,
)

ORDERS = np.asarray(DEFAULT_RDP_ORDERS, dtype=np.float64)


def _published(lam, lam_hat, eps_of, eta, gamma):
    """Theorem 2 of Papernot & Steinke (ICLR 2022), written out term by term."""
    if eta == 0:
        mean = (1 / gamma - 1) / math.log(1 / gamma)
    else:
        mean = eta * (1 - gamma) / (gamma * (1 - gamma**eta))
    return (eps_of(lam) + (1 + eta) * (1 - 1 / lam_hat) * eps_of(lam_hat) + (1 + eta) * math.log(1 / gamma) / lam_hat
            + math.log(mean) / (lam - 1))


@pytest.mark.parametrize("eta", [-0.5, 0.0, 0.5, 1.0, 3.0])
@pytest.mark.parametrize("gamma", [0.01, 0.1, 0.5])
@pytest.mark.parametrize("sigma", [0.7, 2.0, 10.0])
def test_selection_rdp_is_the_published_bound_minimised_over_the_grid(eta, gamma, sigma):
    def eps_of(a):
        return a / (2 * sigma**2)  # Gaussian mechanism, sensitivity 1

    base = rdp_gaussian(sigma, ORDERS)
    ours = tnb_selection_rdp(ORDERS, base, eta, gamma)
    hats = [1.0] + list(ORDERS)
    for i in (0, 5, 20, len(ORDERS) - 1):
        lam = ORDERS[i]
        expected = min(_published(lam, h, eps_of, eta, gamma) for h in hats)
        assert ours[i] == pytest.approx(expected, rel=1e-12)
        # any other λ̂ gives a bound at least as large
        assert ours[i] <= _published(lam, 7.3, eps_of, eta, gamma) + 1e-12
    # the selection always costs more than one run when E[K] >= 1 ... at every order
    if tnb_mean(eta, gamma) >= 1:
        assert np.all(ours >= base)


@pytest.mark.parametrize("eta", [0.0, 1.0, 2.0])
def test_tnb_sampler_and_mean(eta):
    gamma = tnb_gamma_for_mean(eta, 5.0)
    assert tnb_mean(eta, gamma) == pytest.approx(5.0, rel=1e-9)
    rng = np.random.default_rng(0)
    draws = np.array([sample_tnb(eta, gamma, rng) for _ in range(20000)])
    assert draws.min() >= 1
    assert abs(draws.mean() - 5.0) < 4 * draws.std() / math.sqrt(draws.size)
    if eta == 1.0:  # geometric with P[K = 1] = γ
        assert abs(np.mean(draws == 1) - gamma) < 0.01


def _data(n=3000):
    return make_fair_classification(n, 6, disparity=2.0, label_noise=0.05, random_state=0)


def test_search_charges_at_least_one_run_and_picks_a_candidate():
    X, y, s = _data()
    base = ConstrainedDPSGDClassifier(target_epsilon=1.0, epochs=3, backend="numpy")
    cands = [dict(learning_rate=0.5), dict(learning_rate=1.0, bound=0.02)]
    search = PrivateHyperparameterSearch(base, cands, mean_runs=3, constraint="demographic_parity", random_state=0)
    search.fit(X, y, sensitive_features=s)
    assert search.best_params_ in cands
    assert not hasattr(search, "n_runs_")  # K stays secret (Papernot & Steinke bound the best of a hidden K)
    assert search.best_estimator_.random_state is None  # its generator's state would tell K and, rewound, the noise
    eps, delta = search.privacy_spent_
    assert delta == 1e-5 and search.privacy_spent_.relation == "add_or_remove_one"
    assert eps >= search.run_epsilon_ >= 0.99  # the run alone is ~ its target; the selection costs more
    assert search.predict(X).shape == (3000,)
    # the charge: selection bound of max(run curve, validation Gaussian) + the count release, converted at δ; the
    # run curve of a target_epsilon candidate with q = b/ñ bounds that of every count the release could have given
    # (q from the count's 1.05-cell edge), checked here by brute force over every integer count within 2kσ_n + 1 of ñ
    n_est, k = search.n_train_estimate_, count_window(1e-5)
    assert search.best_estimator_.sample_rate == min(1.0, 512 / 1.05 ** math.floor(math.log(n_est) / math.log(1.05)))
    edges = {1.05 ** math.floor(math.log(m) / math.log(1.05))
             for m in range(max(1, math.floor(n_est - 2 * k * 100 - 1)), math.ceil(n_est + 2 * k * 100 + 1) + 1)}
    rdp_run = np.maximum(np.max([PrivateHyperparameterSearch.candidate_rdp(
        ConstrainedDPSGDClassifier(target_epsilon=1.0, epochs=3, sample_rate=min(1.0, 512 / e), **c),
        min(1.0, 512 / e), ORDERS) for c in cands for e in edges], axis=0), rdp_gaussian(20.0, ORDERS))
    total = tnb_selection_rdp(ORDERS, rdp_run, 1.0, search.gamma_) + rdp_gaussian(100.0, ORDERS)
    tail = math.erfc(k / math.sqrt(2))
    bound = rdp_to_epsilon(ORDERS, total, 1e-5 - tail)[0]
    assert eps == pytest.approx(bound, rel=1e-12)
    at_own_count = np.max([PrivateHyperparameterSearch.candidate_rdp(
        ConstrainedDPSGDClassifier(target_epsilon=1.0, epochs=3, sample_rate=search.best_estimator_.sample_rate, **c),
        search.best_estimator_.sample_rate, ORDERS) for c in cands], axis=0)
    total_own = tnb_selection_rdp(ORDERS, np.maximum(at_own_count, rdp_gaussian(20.0, ORDERS)), 1.0, search.gamma_)
    # the curve at ñ's own cell alone (close to the old charge, at q = b/ñ): below the bound
    assert rdp_to_epsilon(ORDERS, total_own + rdp_gaussian(100.0, ORDERS), 1e-5)[0] < 0.995 * bound


def test_search_rejects_estimators_it_cannot_account_and_non_private_candidates():
    X, y, s = _data()
    with pytest.raises(ValueError, match="DP-SGD family"):
        PrivateHyperparameterSearch(FunctionalMechanismLR(), [{}], random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="private"):
        PrivateHyperparameterSearch(DPSGDClassifier(noise_multiplier=0.0), [{}], random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="candidates"):
        PrivateHyperparameterSearch(DPSGDClassifier(), [], random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="mean_runs"):
        PrivateHyperparameterSearch(DPSGDClassifier(), [{}], mean_runs=1.0, random_state=0).fit(X, y)


@pytest.mark.parametrize("make", [
    lambda: DPSGDClassifier(noise_multiplier=1.0, epochs=2, accountant_method="rdp", backend="numpy"),
    lambda: DPSGDClassifier(target_epsilon=1.0, epochs=2, accountant_method="rdp", backend="numpy"),
    lambda: ConstrainedDPSGDClassifier(noise_multiplier=1.0, epochs=2, accountant_method="rdp", backend="numpy"),
])
@pytest.mark.parametrize("center", [True, False])
def test_a_candidates_curve_charges_every_release_its_fit_makes(make, center):
    """candidate_rdp at the run's q, converted at δ, equals the fitted run's own RDP privacy_spent_ — with the centre
    release of center=True too (it was left out: the search under-charged every run by the centre's cost)."""
    X, y, s = _data()
    est = make().set_params(center=center, sample_rate=0.05, random_state=0)
    est.fit(X, y, sensitive_features=s) if est.requires_sensitive_features else est.fit(X, y)
    curve = PrivateHyperparameterSearch.candidate_rdp(make().set_params(center=center, sample_rate=0.05), 0.05,
                                                      ORDERS)
    assert rdp_to_epsilon(ORDERS, curve, 1e-5)[0] == pytest.approx(est.privacy_spent_[0], rel=1e-9)


def test_group_aware_runs_get_the_declared_groups():
    """A record of a declared group the training part lacks must not change the runs' group set (groups_ and the
    shape of step_bounds_ would release it)."""
    X, y, s = _data()
    s = s.astype(np.int64)
    s[:5] = 2  # five records of a third group; with validation_fraction 0.99 most runs' training parts lack it
    search = PrivateHyperparameterSearch(DPSGDFClassifier(target_epsilon=1.0, epochs=1, backend="numpy"),
                                         [dict(learning_rate=0.5)], mean_runs=2, validation_fraction=0.99,
                                         declared_groups=[0, 1, 2], random_state=0)
    search.fit(X, y, sensitive_features=s)
    assert list(search.best_estimator_.groups_) == [0, 1, 2]
    assert search.best_estimator_.step_bounds_.shape[1] == 3


def test_labels_other_than_zero_one_keep_their_coding_when_the_training_part_holds_one_class():
    """Labels {1, 2} whose only 2 falls in the validation part: the runs are fitted on the 0/1 codes (a one-class
    split gets classes [0, 1] in a private fit), and the chosen model predicts the tuner's labels with the
    decision_function sign convention of ``classes_``."""
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(400, 4))
    val = np.random.default_rng(0).random(400) < 0.2  # the tuner's first draws with random_state=0
    y = np.ones(400, dtype=np.int64)
    y[np.flatnonzero(val)[0]] = 2
    t = PrivateHyperparameterSearch(DPSGDClassifier(target_epsilon=1.0, batch_size=64, epochs=1),
                                    [{"learning_rate": 0.1}], random_state=0, mean_runs=2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t.fit(X, y)
    # one warning only: the labels {1, 2} were read from y (the search's own, before any run); none from the runs
    # (a warning from a one-class split would reveal the record)
    assert [str(w.message).split(":")[0] for w in caught] == ["PrivateHyperparameterSearch"]
    assert "class labels [1, 2] were read from y" in str(caught[0].message)
    np.testing.assert_array_equal(t.classes_, [1, 2])
    np.testing.assert_array_equal(t.best_estimator_.classes_, [1, 2])
    np.testing.assert_array_equal(t.predict(X), t.classes_[(t.decision_function(X) > 0).astype(int)])


DIVERGES = dict(learning_rate=1000.0, l2=1.0)  # |1 − lr·l2| = 999 per step: non-finite weights within ~100 steps


@pytest.mark.parametrize("backend", ["native", "numpy"])
def test_a_diverging_run_scores_minus_infinity_instead_of_aborting_the_search(backend):
    """Whether some run diverged is a function of every run and of K, which the selection theorem does not release:
    the search must go on (review 15); it raises only when every run diverged (the best run failed)."""
    X, y, s = _data()
    base = DPSGDClassifier(target_epsilon=1.0, sample_rate=0.1, epochs=12, backend=backend)
    with pytest.raises(TrainingDivergedError):
        base.set_params(**DIVERGES).fit(X, y)
    good = dict(learning_rate=0.5, l2=0.0)
    for seed in range(4):  # K and the draws differ: the search completes whichever runs diverge
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # nor does a warning count the diverging runs
            search = PrivateHyperparameterSearch(base, [DIVERGES, good], mean_runs=4, random_state=seed)
            search.fit(X, y)
        assert search.best_params_ == good
        assert np.isfinite(search.best_score_)
    with pytest.raises(TrainingDivergedError, match="every run"):
        PrivateHyperparameterSearch(base, [DIVERGES], mean_runs=2, random_state=0).fit(X, y)


def test_an_empty_validation_part_scores_noise_and_an_empty_training_part_is_refused_clearly():
    X, y, s = _data()
    base = DPSGDClassifier(target_epsilon=1.0, batch_size=64, epochs=1)
    search = PrivateHyperparameterSearch(base, [dict(learning_rate=0.5)], mean_runs=2, validation_fraction=1e-12,
                                         random_state=0).fit(X, y)
    assert np.isfinite(search.best_score_) and search.predict(X).shape == (3000,)
    with pytest.raises(ValueError, match="no training rows"):
        PrivateHyperparameterSearch(base, [dict(learning_rate=0.5)], mean_runs=2, validation_fraction=1 - 1e-12,
                                    random_state=0).fit(X, y)


def test_the_estimators_declared_groups_are_used_when_the_search_declares_none():
    X, y, s = _data()
    est = DPSGDFClassifier(target_epsilon=1.0, epochs=1, backend="numpy", declared_groups=[0, 1, 2])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no PrivacyLeakWarning: the groups are declared (by the estimator)
        search = PrivateHyperparameterSearch(est, [dict(learning_rate=0.5)], mean_runs=2, random_state=0)
        search.fit(X, y, sensitive_features=s)
    assert list(search.best_estimator_.groups_) == [0, 1, 2]


def test_runs_are_silent_and_only_the_chosen_runs_centre_can_warn():
    """A warning per run would count K (secret), and one from a run not chosen is outside the released output;
    the scale check reads the chosen run's released centre only (post-processing)."""
    from dpfair_native.domain import AssumedDomainWarning

    rng = np.random.default_rng(0)
    X = np.column_stack([rng.uniform(18, 90, 8000), rng.lognormal(10, 1, 8000)])  # raw units: age, income
    y = (X[:, 0] > 50).astype(int)
    search = PrivateHyperparameterSearch(DPSGDClassifier(target_epsilon=1.0, epochs=2),
                                         [dict(learning_rate=0.5), dict(learning_rate=1.0)], mean_runs=10,
                                         random_state=3)  # unsilenced runs: a warning from several
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        search.fit(X, y)
    assert [w.category for w in caught] == [AssumedDomainWarning], [str(w.message)[:80] for w in caught]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        search.fit(X / np.array([90.0, 5e5]), y)  # in scale: nothing
    assert caught == []


@pytest.mark.parametrize("sparse_output", [False, True])
def test_runs_keep_a_declared_domain(monkeypatch, sparse_output):
    """Every run gets the DomainEncoder's domain (its ‖x‖₂ bound sizes the centre's noise, as in a fit), and the
    chosen run's raw-units check is off, as in a fit. 0/1 columns that are 1 in ~99 % of rows are the check's one
    known false alarm without a domain; the search used to drop the domain and raise it."""
    from dpfair_native.domain import AssumedDomainWarning
    from dpfair_native.models import dpsgd
    from dpfair_native.preprocessing import Binary, DomainEncoder

    rng = np.random.default_rng(0)
    columns = {f"b{j}": (rng.random(8000) < 0.99).astype(int) for j in range(6)}
    enc = DomainEncoder({name: Binary() for name in columns}, sparse_output=sparse_output)
    X = enc.fit_transform(columns)
    y = rng.integers(0, 2, 8000)
    seen = []
    real_bound = dpsgd.center_bound
    monkeypatch.setattr(dpsgd, "center_bound", lambda d, domain=None: seen.append(domain) or real_bound(d, domain))
    search = PrivateHyperparameterSearch(DPSGDClassifier(target_epsilon=1.0, epochs=2),
                                         [dict(learning_rate=0.5), dict(learning_rate=1.0)], mean_runs=3,
                                         random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", AssumedDomainWarning)
        search.fit(X, y)
    assert seen and all(domain is enc.domain_ for domain in seen)
    seen.clear()
    with pytest.warns(AssumedDomainWarning):  # the same rows without their domain
        search.fit(X.toarray() if sparse_output else np.asarray(X), y)
    assert seen and all(domain is None for domain in seen)


def test_fixed_noise_candidates_with_q_from_the_count_charge_every_nearby_count(monkeypatch):
    """A candidate with noise_multiplier and batch_size gets q = b/ñ from the search's noisy count of training
    rows, so its ε moves with that private count: the search charges the envelope over the counts near ñ
    (models.dpsgd.adaptive_rdp) with the q = b/ñ' each count gives the run (not the cell edges a fit under PLD takes
    q from), as a fit does; the same σ at a public sample rate is charged at that rate."""
    from dpfair_native.models import dpsgd

    samplings, real_adaptive_rdp = [], dpsgd.adaptive_rdp
    monkeypatch.setattr(dpsgd, "adaptive_rdp", lambda sampling, *a, **k: samplings.append(sampling)
                        or real_adaptive_rdp(sampling, *a, **k))
    X, y, s = make_fair_classification(3000, 5, random_state=0)
    kw = dict(mean_runs=2, validation_fraction=0.2, random_state=0)
    from_count = PrivateHyperparameterSearch(DPSGDClassifier(noise_multiplier=1.0, batch_size=100, epochs=2),
                                             [dict(learning_rate=1.0)], **kw).fit(X, y)
    n_est = from_count.n_train_estimate_
    assert from_count.best_estimator_.sample_rate == 100 / n_est
    assert samplings and all(sampling(m)[0] == 100 / m for sampling in samplings for m in (n_est, n_est - 700.3))
    public = PrivateHyperparameterSearch(DPSGDClassifier(noise_multiplier=1.0, sample_rate=100 / 2400,
                                                         batch_size=None, epochs=2),
                                         [dict(learning_rate=1.0)], **kw).fit(X, y)
    # ~2,400 training rows: the envelope covers counts down to ñ − 1,200, where q is about twice b/ñ
    assert from_count.run_epsilon_ > 1.3 * public.run_epsilon_
    assert from_count.privacy_spent_[0] > public.privacy_spent_[0]


def test_the_cell_of_a_count_is_decided_by_its_edges():
    """_cell_index(x) is the i with 1.05^i <= x < 1.05^(i+1) (edges as computed), also at and next to every edge, so
    the cells the charge covers are those a run can take."""
    from dpfair_native.models.dpsgd import _cell_index

    for i in range(0, 400):
        edge = 1.05**i
        for x in (np.nextafter(edge, 0.0), edge, np.nextafter(edge, np.inf)):
            j = _cell_index(float(x))
            assert 1.05**j <= x < 1.05 ** (j + 1), (i, x, j)


def test_a_candidate_out_of_reach_at_a_nearby_count_says_so():
    """A fixed count noise that leaves the target reachable at ñ but not at smaller counts in the window: the
    error names the q and the window (review, session 20)."""
    X, y, s = _data(n=1250)
    base = DPSGDFClassifier(target_epsilon=1.0, epochs=5, batch_size=256, count_noise_multiplier=5.0, backend="numpy")
    search = PrivateHyperparameterSearch(base, [{}], declared_groups=[0, 1], random_state=0)
    with pytest.raises(ValueError, match=r"charged at every training count within 1200 of the noisy count"):
        search.fit(X, y, sensitive_features=s)
