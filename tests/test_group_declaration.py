"""Group labels read from the data are a release without protection (DP rule 2): every private fit that uses
sensitive_features without ``declared_groups`` says so with a PrivacyLeakWarning; declared labels, estimators that
ignore the groups and non-private fits do not warn."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from dpfair_native import models
from dpfair_native.preprocessing import PrivacyLeakWarning
from dpfair_native.tuning import PrivateHyperparameterSearch

SMALL_SGD = dict(target_epsilon=2.0, batch_size=64, epochs=1)
GROUP_USERS = {
    "FairFunctionalMechanismLR": dict(epsilon=1.0),
    "PFLR": dict(epsilon=1.0),
    "PFLRStar": dict(epsilon=1.0),
    "ExponentialMechanismFairLearner": dict(min_group_positives=5, n_candidates=20),
    "DPSGDFClassifier": SMALL_SGD,
    "NaiveReweightedDPSGDClassifier": SMALL_SGD,
    "FairDPClassifier": dict(target_epsilon=2.0, sample_rate=0.1, epochs=1),
    "ConstrainedDPSGDClassifier": SMALL_SGD,
}


def _data(n=600, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, size=(n, d))
    s = (rng.uniform(size=n) < 0.4).astype(np.int64)
    y = (X[:, 0] + 0.4 * s + 0.3 * rng.normal(size=n) > 0.8).astype(np.int64)
    return X, y, s


def _leak_warnings(fit):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit()
    return [w for w in caught if issubclass(w.category, PrivacyLeakWarning)]


@pytest.mark.parametrize("name", sorted(GROUP_USERS))
def test_private_fits_warn_unless_the_groups_are_declared(name):
    X, y, s = _data()
    cls = getattr(models, name)
    leaks = _leak_warnings(lambda: cls(random_state=0, **GROUP_USERS[name]).fit(X, y, sensitive_features=s))
    assert len(leaks) == 1 and "declared_groups" in str(leaks[0].message)
    assert leaks[0].filename == __file__  # points at the caller's fit
    declared = cls(random_state=0, declared_groups=[0, 1], **GROUP_USERS[name])
    assert _leak_warnings(lambda: declared.fit(X, y, sensitive_features=s)) == []


NO_WARNING = {
    "ignores-groups": models.DPSGDClassifier(random_state=0, **SMALL_SGD),
    "fm-ignores-groups": models.FunctionalMechanismLR(epsilon=1.0, random_state=0),
    "non-private": models.FairLogisticRegression(),
    "sigma-0": models.DPSGDFClassifier(noise_multiplier=0.0, batch_size=64, epochs=1, random_state=0),
    "fairdp-sigma-0": models.FairDPClassifier(noise_multiplier=0.0, sample_rate=0.1, epochs=1, random_state=0),
    "fm-epsilon-inf": models.FairFunctionalMechanismLR(epsilon=np.inf),
    "pdfc-epsilon-inf": models.PDFC(epsilon_s=np.inf, epsilon_n=np.inf),
}


@pytest.mark.parametrize("est", list(NO_WARNING.values()), ids=list(NO_WARNING))
def test_fits_that_release_no_group_labels_privately_do_not_warn(est):
    X, y, s = _data()
    assert _leak_warnings(lambda: est.fit(X, y, sensitive_features=s)) == []


def test_the_tuner_and_the_dask_path_warn_too():
    X, y, s = _data(n=2000)
    search = PrivateHyperparameterSearch(models.DPSGDFClassifier(target_epsilon=1.0, epochs=1, backend="numpy"),
                                         [dict(learning_rate=0.5)], mean_runs=2, random_state=0)
    assert len(_leak_warnings(lambda: search.fit(X, y, sensitive_features=s))) == 1
    search.declared_groups = [0, 1]
    assert _leak_warnings(lambda: search.fit(X, y, sensitive_features=s)) == []
    da = pytest.importorskip("dask.array")
    Xd, yd, sd = (da.from_array(v, chunks=500) for v in (X, y, s))
    fm = models.FairFunctionalMechanismLR(epsilon=1.0, random_state=0)
    leaks = _leak_warnings(lambda: fm.fit(Xd, yd, sensitive_features=sd))
    assert len(leaks) == 1 and leaks[0].filename == __file__
    fm.set_params(declared_groups=[0, 1])
    assert _leak_warnings(lambda: fm.fit(Xd, yd, sensitive_features=sd)) == []
