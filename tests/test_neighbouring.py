"""No fitted attribute of a DP estimator moves deterministically with one record, beyond what the estimator's
neighbouring relation makes public (issue 10).

For every DP estimator: fit on D with several seeds. An attribute equal across all seeds is a deterministic
function of the data and the public parameters; it must then be identical on a neighbouring data set D' (same
seed): one row replaced for the replace-one estimators, one row removed for the add/remove ones (where n itself is
private). Attributes that change with the seed carry noise, and their dependence on D is what the accountant
charges for. Public by declaration in every case: the feature count, the label values (``classes_``) and the
declared group labels. A control shows the check catches an attribute that reveals a count.
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pytest

from dpfair_native import models

SEEDS = (0, 1, 2)
GROUPS = [0, 1]

# name -> (constructor parameters, neighbouring relation)
DP_ESTIMATORS = {
    "FunctionalMechanismLR": (dict(epsilon=1.0), "replace"),
    "FunctionalMechanismLR-gaussian": (dict(epsilon=1.0, mechanism="gaussian", delta=1e-5), "replace"),
    "FairFunctionalMechanismLR": (dict(epsilon=1.0, declared_groups=GROUPS), "replace"),
    "PFLR": (dict(epsilon=1.0, declared_groups=GROUPS), "replace"),
    "PFLRStar": (dict(epsilon=1.0, declared_groups=GROUPS), "replace"),
    "PDFC": (dict(attribute=0), "replace"),
    "ADFC": (dict(attribute=0), "replace"),
    "ExponentialMechanismFairLearner": (dict(min_group_positives=5, n_candidates=30, declared_groups=GROUPS),
                                        "replace"),
    "DPSGDClassifier": (dict(target_epsilon=2.0, batch_size=64, epochs=2), "remove"),
    "DPSGDFClassifier": (dict(target_epsilon=2.0, batch_size=64, epochs=2, declared_groups=GROUPS), "remove"),
    "NaiveReweightedDPSGDClassifier": (dict(target_epsilon=2.0, batch_size=64, epochs=2, declared_groups=GROUPS),
                                       "remove"),
    "FairDPClassifier": (dict(target_epsilon=2.0, sample_rate=0.1, epochs=2, declared_groups=GROUPS), "remove"),
    "ConstrainedDPSGDClassifier": (dict(target_epsilon=2.0, batch_size=64, epochs=2, declared_groups=GROUPS), "remove"),
}
PUBLIC = {"n_features_in_", "classes_", "groups_"}


def _class(name):
    return getattr(models, name.split("-")[0])


def _data(n=400, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, size=(n, d))
    s = (rng.uniform(size=n) < 0.4).astype(np.int64)
    y = (X[:, 0] + 0.4 * s + 0.3 * rng.normal(size=n) > 0.8).astype(np.int64)
    return X, y, s


def _neighbour(X, y, s, relation):
    if relation == "remove":
        return X[:-1], y[:-1], s[:-1]
    X2, y2, s2 = X.copy(), y.copy(), s.copy()
    X2[-1], y2[-1], s2[-1] = 1.0 - X2[-1], 1 - y2[-1], 1 - s2[-1]  # a far-away row in the same domain
    return X2, y2, s2


def _equal(a, b) -> bool:
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        return type(a) is type(b) and all(_equal(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return isinstance(b, (list, tuple)) and len(a) == len(b) and all(_equal(x, z) for x, z in zip(a, b))
    if a is None or b is None:
        return a is b
    if hasattr(a, "__dict__") and not isinstance(a, np.ndarray):
        return type(a) is type(b) and _equal(vars(a), vars(b))
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and bool(np.all((a == b) | ((a != a) & (b != b))))


def _fitted(est):
    return {k: v for k, v in vars(est).items() if k.endswith("_") and not k.startswith("_")}


def _revealing_attributes(make, D, D_prime):
    fits = [_fitted(make(seed).fit(*D[:2], sensitive_features=D[2])) for seed in SEEDS]
    neighbour = _fitted(make(SEEDS[0]).fit(*D_prime[:2], sensitive_features=D_prime[2]))
    deterministic = [k for k in fits[0] if all(_equal(fits[0][k], f[k]) for f in fits[1:])]
    return sorted(k for k in deterministic if k not in PUBLIC and not _equal(fits[0][k], neighbour[k]))


@pytest.mark.parametrize("name", sorted(DP_ESTIMATORS))
def test_no_fitted_attribute_reveals_one_record(name):
    params, relation = DP_ESTIMATORS[name]
    D = _data()
    D_prime = _neighbour(*D, relation)

    def make(seed):
        return _class(name)(random_state=seed, backend="numpy", **params)

    assert _revealing_attributes(make, D, D_prime) == []


def test_every_dp_estimator_is_covered():
    private = {n for n in models.__all__ if isinstance(getattr(models, n), type)
               and issubclass(getattr(models, n), models.DPClassifierBase)
               and n not in ("DPClassifierBase", "LogisticRegression", "FairLogisticRegression")}
    assert private == {_class(n).__name__ for n in DP_ESTIMATORS}


def test_the_check_catches_an_attribute_that_reveals_a_count():
    """Negative control: an estimator that exposes the number of positive labels is flagged."""

    class Leaky(models.FunctionalMechanismLR):
        def _fit(self, X, y, groups, group_labels, rng):
            out = super()._fit(X, y, groups, group_labels, rng)
            out["n_positive_"] = int(y.sum())
            return out

    D = _data()
    assert _revealing_attributes(lambda seed: Leaky(epsilon=1.0, random_state=seed, backend="numpy"),
                                 D, _neighbour(*D, "replace")) == ["n_positive_"]


def test_the_check_catches_dp_sgd_with_the_exact_record_count(monkeypatch):
    """Negative control: DP-SGD deriving q and σ from the exact n (the behaviour issue 10 removed) is flagged."""
    from dpfair_native.models import dpsgd

    monkeypatch.setattr(dpsgd.DPSGDClassifier, "_private", lambda self: False)
    params, relation = DP_ESTIMATORS["DPSGDClassifier"]
    D = _data()
    revealing = _revealing_attributes(
        lambda seed: dpsgd.DPSGDClassifier(random_state=seed, backend="numpy", **params), D, _neighbour(*D, relation)
    )
    assert {"sample_rate_", "noise_multiplier_", "privacy_spent_"} <= set(revealing)


@pytest.mark.parametrize("name", sorted(DP_ESTIMATORS))
def test_the_only_record_of_a_class_does_not_decide_whether_the_fit_runs(name):
    """0/1 labels have the public classes [0, 1]: a data set whose only positive record is removed (or, under
    replace-one, relabelled) fits like its neighbour, with the same classes_ and budget; before, it raised
    "y has 1 class", an abort that revealed that record. Non-private fits still refuse one class."""
    params, relation = DP_ESTIMATORS[name]
    X, y, s = _data()
    y = np.zeros_like(y)
    y[-1] = 1
    X2, y2, s2 = (X[:-1], y[:-1], s[:-1]) if relation == "remove" else (X, np.zeros_like(y), s)
    fits, seen = [], []
    for data in ((X, y, s), (X2, y2, s2)):  # no warning tells them apart either (a log would reveal the record)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fits.append(_class(name)(**params, random_state=0).fit(data[0], data[1], sensitive_features=data[2]))
        seen.append(sorted(f"{w.category.__name__}: {w.message}" for w in caught))
    assert seen[0] == seen[1]
    for m in fits:
        np.testing.assert_array_equal(m.classes_, [0, 1])
        assert set(np.unique(m.predict(X))) <= {0, 1}
    if relation == "replace":
        assert tuple(fits[0].privacy_spent_) == tuple(fits[1].privacy_spent_)
    else:  # the step count follows the noisy record count, so ε moves with it, within the target
        assert all(m.privacy_spent_.epsilon <= params["target_epsilon"] for m in fits)
    with pytest.raises(ValueError, match="1 class"):
        models.LogisticRegression().fit(X2, y2)
