"""The private feature selection spends exactly the ε it reports, with the sensitivities its proof uses.

``feature_selection.select_features`` is ε-DP by sequential composition of (1) a Laplace count of the positive labels
with sensitivity 1 (replace-one, 0/1 labels) at ε_c = COUNT_SHARE·ε and (2) k peeling rounds at ε_r each, with
k·ε_r + ε_c = ε. These tests record every draw the selection makes (``_ledger_helpers.Ledger``: spies wrapping
``mechanisms.laplace_mechanism`` and ``feature_selection.gumbel_top_k``) and check the numbers the draws were really
calibrated to — the count's sensitivity and ε, the peeling's ε per round and utility sensitivity — against the
module's proof, directly (``select_features``, ``select_features_from_sums``) and inside functional-mechanism fits
that select columns, where the ledger's basic composition must equal ``privacy_spent_``.
"""

import math

import numpy as np
import pytest

from _ledger_helpers import Ledger, assert_laplace_scale, ulps_apart
from dpfair_native.accountants import BudgetAccountant
from dpfair_native.domain import FeatureDomain
from dpfair_native.feature_selection import COUNT_SHARE, select_features, select_features_from_sums
from dpfair_native.models._functional_base import SELECTION_SHARE
from dpfair_native.models.ding import PDFC
from dpfair_native.models.functional import FairFunctionalMechanismLR, FunctionalMechanismLR


def _data(n=3000, d=40, seed=11):
    """Two informative columns among d uniform ones, 0/1 labels, a 0/1 group with share 0.4."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, d))
    z = 4 * X[:, 0] - 3 * X[:, 1] + rng.normal(size=n)
    return X, (z > np.median(z)).astype(np.int64), (rng.uniform(size=n) < 0.4).astype(np.int64)


def _check_selection_draws(draws, n, positives, epsilon, k, required):
    """The count, then one peeling call, calibrated as the module's proof says; returns (q, the peeling draw)."""
    assert [d.kind for d in draws] == ["laplace", "peeling"]
    count, peel = draws
    # (1) the count: Σ y (n public), sensitivity 1 (one replaced 0/1 label moves it by at most 1), ε_c = 0.1·ε
    np.testing.assert_array_equal(count.value, [positives])
    assert count.sensitivity == 1.0
    assert count.epsilon == COUNT_SHARE * epsilon
    q = float(np.clip(float(np.ravel(count.out)[0]) / n, 0.0, 1.0))
    # (2) the peeling: k − |required| rounds at ε_r, utility sensitivity max(q, 1 − q) from the released q
    assert peel.rounds == k - len(required)
    assert peel.sensitivity == max(q, 1.0 - q)
    # sequential composition: ε_c + rounds·ε_r is the selection's ε (to the rounding of (ε − ε_c)/rounds)
    assert ulps_apart(math.fsum([count.epsilon] + [peel.epsilon_round] * peel.rounds), epsilon) <= 2
    return q, peel


@pytest.mark.parametrize(("k", "required", "epsilon"), [(3, (), 1.0), (4, (5,), 0.7), (6, (), 2.3),
                                                        (3, (1, 10), 0.45), (9, (), 0.9)])
def test_select_features_draws_its_count_at_sensitivity_one_and_gives_the_rest_to_the_rounds(monkeypatch, k,
                                                                                            required, epsilon):
    """Catches: the rounds getting ε/k instead of (ε − ε_c)/k (the selection then spends 1.1·ε and reports ε), and
    the count's Laplace sensitivity below 1 (its real ε then exceeds the ε_c charged)."""
    X, y, _ = _data(n=800, d=12)
    dom = FeatureDomain.unit_box(12)
    ledger = Ledger(monkeypatch)
    sel = select_features(X, y, dom, k, epsilon, np.random.default_rng(3), required=required)
    q, peel = _check_selection_draws(ledger.draws, 800, float(y.sum()), epsilon, k, required)
    assert (sel.q, sel.sensitivity, sel.epsilon) == (q, peel.sensitivity, epsilon)
    assert ulps_apart(ledger.epsilon(), sel.epsilon) <= 2 and ledger.delta() == 0.0
    # the same mechanism from the per-column sums (the Dask fit's source)
    c = np.clip(X, dom.lower, dom.upper) - 0.5 * (dom.lower + dom.upper)
    ledger.clear()
    from_sums = select_features_from_sums(800, 12, lambda: (float(y.sum()), c.T @ y, c.sum(axis=0)), dom, k,
                                          epsilon, np.random.default_rng(3), required=required)
    _check_selection_draws(ledger.draws, 800, float(y.sum()), epsilon, k, required)
    assert from_sums.epsilon == epsilon and ulps_apart(ledger.epsilon(), epsilon) <= 2


def test_the_count_noise_drawn_has_scale_one_over_the_count_epsilon(monkeypatch):
    """Catches a count drawn with less noise than Lap(1/ε_c) whatever sensitivity the call names: the spread of the
    released count over 4,000 seeds (mean |noise| estimates the Laplace scale b, standard error b/√N)."""
    X, y, _ = _data(n=200, d=6)
    dom = FeatureDomain.unit_box(6)
    ledger = Ledger(monkeypatch)
    noise = []
    for seed in range(4000):
        ledger.clear()
        select_features(X, y, dom, 2, 1.0, np.random.default_rng(seed))
        noise.append(float(np.ravel(ledger.draws[0].out)[0]) - float(y.sum()))
    assert_laplace_scale(noise, 1.0 / (COUNT_SHARE * 1.0))


def _fm_cases():
    return [
        ("FM laplace, k = 4", lambda: FunctionalMechanismLR(epsilon=1.0, max_features=4, random_state=0), 4, ()),
        ("FM laplace, auto", lambda: FunctionalMechanismLR(epsilon=0.7, random_state=1), None, ()),
        ("FairFM gaussian, k = 5", lambda: FairFunctionalMechanismLR(epsilon=1.3, max_features=5, random_state=2),
         5, ()),
        ("FM gaussian, k = 3 + 2 rounds", lambda: FunctionalMechanismLR(
            epsilon=2.0, mechanism="gaussian", max_features=3, refinement_rounds=2, random_state=3), 3, ()),
        ("PDFC, attribute 30 required", lambda: PDFC(epsilon_s=0.4, epsilon_n=0.6, attribute=30, max_features=4,
                                                     random_state=4), 4, (30,)),
    ]


@pytest.mark.parametrize(("name", "make", "k", "required"), _fm_cases(), ids=[c[0] for c in _fm_cases()])
def test_a_fit_that_selects_spends_what_its_draws_cost_and_reports_it(monkeypatch, name, make, k, required):
    """Catches, inside a functional-mechanism fit: the selection's rounds taking ε_sel/k (selection + release then
    cost ε + 0.02·ε while privacy_spent_ says ε), and the count drawn at a sensitivity below 1."""
    X, y, s = _data()
    est = make().set_params(domain=FeatureDomain.unit_box(X.shape[1]))
    fair = "declared_groups" in est.get_params()
    if fair:
        est.set_params(declared_groups=[0, 1])
    eps_total = float(getattr(est, "epsilon", None) or est.epsilon_s + est.epsilon_n)
    delta_total = float(getattr(est, "delta", 0.0) or 0.0)
    acc = BudgetAccountant(eps_total, delta_total)
    est.set_params(accountant=acc)
    ledger = Ledger(monkeypatch)
    est.fit(X, y, sensitive_features=s) if fair else est.fit(X, y)
    sel = est.selection_
    assert sel is not None and sel.epsilon == SELECTION_SHARE * eps_total
    if k is not None:
        assert len(est.selected_features_) == k and set(required) <= set(est.selected_features_)
    kept = len(est.selected_features_)  # the public k (given, or "auto"'s rule of n, d and the budget)
    q, peel = _check_selection_draws(ledger.draws[:2], X.shape[0], float(y.sum()), sel.epsilon, kept, required)
    assert (sel.q, sel.sensitivity) == (q, peel.sensitivity)
    assert all(d.kind != "peeling" and d.sensitivity > 0 for d in ledger.draws[2:])  # then the release (and rounds)
    # the ledger's basic composition is what the fit reports, and what the accountant was charged
    assert ledger.epsilon() == pytest.approx(est.privacy_spent_.epsilon, rel=1e-13, abs=0)
    assert ledger.delta() == pytest.approx(est.privacy_spent_.delta, rel=1e-13, abs=0)
    assert est.privacy_spent_.epsilon <= eps_total and est.privacy_spent_.epsilon == pytest.approx(eps_total,
                                                                                                   rel=1e-15)
    assert tuple(acc.spent) == pytest.approx(tuple(est.privacy_spent_)[:2], rel=1e-15)

