"""The paper-faithful fair functional mechanisms draw their s̄ count at sensitivity 1 and the ε they charge for it.

PFLR, PFLR*, PDFC and ADFC with ``paper_faithful=True`` need the share s̄ of group 1. Unless ``sensitive_mean`` gives
it publicly, each releases the count of group-1 rows with Laplace noise: replacing one row moves that count by at
most 1, so Lap(1/ε_c) is ε_c-DP, with ε_c = MEAN_SHARE·ε (PFLR), MEAN_SHARE·ε_g (PFLR*, with
ε_g = (1 − objective_fraction)·ε) or MEAN_SHARE·ε_n (PDFC, ADFC), and the coefficient blocks get the rest. These
tests record every draw of a fit (``_ledger_helpers.Ledger``) and check that the count is drawn on the group-1 count
with sensitivity 1 at that ε_c, that s̄ is the released count over n, and that the basic composition of all draws
equals ``privacy_spent_``.
"""

import numpy as np
import pytest

from _ledger_helpers import Ledger, assert_laplace_scale
from dpfair_native.models._functional_base import MEAN_SHARE
from dpfair_native.models.ding import ADFC, PDFC
from dpfair_native.models.functional import PFLR, PFLRStar


def _data(n=600, d=3, seed=5):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, d))  # the papers' domain [0, 1]^d
    s = (rng.uniform(size=n) < 0.35).astype(np.int64)
    z = 2 * X[:, 0] - X[:, 1] + 0.5 * s + rng.normal(size=n)
    return X, (z > np.median(z)).astype(np.int64), s


# (id, estimator, ε_c the docstrings promise for the count)
CASES = [
    ("PFLR", lambda **kw: PFLR(epsilon=1.0, paper_faithful=True, **kw), MEAN_SHARE * 1.0),
    ("PFLR eps=2.5", lambda **kw: PFLR(epsilon=2.5, paper_faithful=True, **kw), MEAN_SHARE * 2.5),
    ("PFLRStar", lambda **kw: PFLRStar(epsilon=1.0, paper_faithful=True, **kw), MEAN_SHARE * 0.5),
    ("PFLRStar frac=0.25", lambda **kw: PFLRStar(epsilon=2.0, objective_fraction=0.25, paper_faithful=True, **kw),
     MEAN_SHARE * 1.5),
    ("PDFC", lambda **kw: PDFC(epsilon_s=0.5, epsilon_n=0.5, attribute=0, paper_faithful=True, **kw),
     MEAN_SHARE * 0.5),
    ("PDFC eps_n=1.5", lambda **kw: PDFC(epsilon_s=0.25, epsilon_n=1.5, attribute=1, paper_faithful=True, **kw),
     MEAN_SHARE * 1.5),
    ("ADFC", lambda **kw: ADFC(epsilon_s=0.5, epsilon_n=0.5, attribute=0, paper_faithful=True, **kw),
     MEAN_SHARE * 0.5),
    ("ADFC eps_n=2", lambda **kw: ADFC(epsilon_s=1.0, delta_s=1e-6, epsilon_n=2.0, delta_n=4e-6, attribute=2,
                                       paper_faithful=True, **kw), MEAN_SHARE * 2.0),
]


def _fit(make, monkeypatch, **kw):
    X, y, s = _data()
    est = make(random_state=0, declared_groups=[0, 1], **kw)
    ledger = Ledger(monkeypatch)
    est.fit(X, y, sensitive_features=s)
    return est, ledger, X, s


def _assert_ledger_is_the_charge(est, ledger):
    assert ledger.epsilon() == pytest.approx(est.privacy_spent_.epsilon, rel=1e-13, abs=0)
    assert ledger.delta() == pytest.approx(est.privacy_spent_.delta, rel=1e-13, abs=0)


@pytest.mark.parametrize("secure", [False, True])
@pytest.mark.parametrize(("name", "make", "count_eps"), CASES, ids=[c[0] for c in CASES])
def test_the_group_count_is_drawn_at_sensitivity_one_with_its_share_of_the_budget(monkeypatch, name, make,
                                                                                   count_eps, secure):
    """Catches the s̄ count drawn with a Laplace sensitivity below 1 (sensitivity 0.5 halves its noise, so its real
    cost is 2·ε_c while ε_c is charged), a count drawn at an ε other than its share, and a ledger that does not add
    up to privacy_spent_ (on the float path and on the secure path, where the count goes through the same call)."""
    est, ledger, X, s = _fit(make, monkeypatch, secure=secure)
    count = ledger.draws[0]  # s̄ is needed before the statistics it enters are released
    assert count.kind == "laplace" and count.value.shape == (1,)
    assert count.value[0] == np.sum(s == 1)  # the group-1 count (n is public under replace-one)
    assert count.sensitivity == 1.0
    assert count.epsilon == pytest.approx(count_eps, rel=1e-15) and count.secure == secure
    assert est.sensitive_mean_ == float(np.clip(float(np.ravel(count.out)[0]) / X.shape[0], 0.0, 1.0))
    assert [d for d in ledger.draws[1:] if d.value.shape == (1,) and d.kind == "laplace"] == []  # one count only
    _assert_ledger_is_the_charge(est, ledger)


@pytest.mark.parametrize(("name", "make", "count_eps"), CASES[::2], ids=[c[0] for c in CASES[::2]])
def test_a_public_sensitive_mean_draws_no_count_and_charges_none(monkeypatch, name, make, count_eps):
    """Catches a count charged (or drawn) when s̄ is public: the ledger then has no count and still adds up to
    privacy_spent_, which is the plain budget."""
    est, ledger, _, _ = _fit(make, monkeypatch, sensitive_mean=0.35)
    assert all(d.value.shape != (1,) for d in ledger.draws) and est.sensitive_mean_ == 0.35
    _assert_ledger_is_the_charge(est, ledger)
    declared = getattr(est, "epsilon", None) or est.epsilon_s + est.epsilon_n
    assert est.privacy_spent_.epsilon == pytest.approx(declared, rel=1e-15)


def test_the_count_noise_has_scale_one_over_its_epsilon(monkeypatch):
    """Catches a count drawn with less noise than Lap(1/ε_c) whatever sensitivity the call names: the released count
    minus the true one over 1,500 fits (mean |noise| estimates the Laplace scale b; standard error b/√N)."""
    X, y, s = _data(n=200)
    ledger = Ledger(monkeypatch)
    noise = []
    for seed in range(1500):
        ledger.clear()
        PFLR(epsilon=10.0, paper_faithful=True, declared_groups=[0, 1], random_state=seed).fit(
            X, y, sensitive_features=s)
        noise.append(float(np.ravel(ledger.draws[0].out)[0]) - float(np.sum(s == 1)))
    assert_laplace_scale(noise, 1.0 / (MEAN_SHARE * 10.0))
