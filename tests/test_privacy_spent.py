"""Every fitted object of the package reports ``privacy_spent_`` as a PrivacySpent: the (ε, δ) pair plus the name
of the accounting that produced it (the accountants' docstring promises it; the functional-mechanism family, the
embeddings, the causal learners and the tuner used to return bare tuples without ``.method``) and the neighbouring
relation the guarantee holds for (each module docstring states it; ``.relation`` says it where an auditor reads
the numbers)."""

import numpy as np
import pytest

from dpfair_native import causal, embedding, models
from dpfair_native.accountants import PrivacySpent

ADD, REPLACE, EDGE = "add_or_remove_one", "replace_one", "add_or_remove_one_edge"
ESTIMATORS = {  # name -> (extra parameters, the method of a default private fit)
    "LogisticRegression": ({}, "none"),
    "FairLogisticRegression": ({}, "none"),
    "FunctionalMechanismLR": ({}, "basic"),
    "FairFunctionalMechanismLR": ({}, "basic"),
    "PFLR": ({}, "basic"),
    "PFLRStar": ({}, "basic"),
    "PDFC": ({}, "basic"),
    "ADFC": ({}, "basic"),
    "DPSGDClassifier": ({"epochs": 1}, "pld"),
    "DPSGDFClassifier": ({"epochs": 1}, "pld"),
    "NaiveReweightedDPSGDClassifier": ({"epochs": 1}, "pld"),
    "ConstrainedDPSGDClassifier": ({"epochs": 1}, "pld"),
    "FairDPClassifier": ({"epochs": 1}, "pld"),
    "ExponentialMechanismFairLearner": ({"min_group_positives": 1}, "pld+exponential"),
}


RELATION = {"DPSGDClassifier": ADD, "DPSGDFClassifier": ADD, "NaiveReweightedDPSGDClassifier": ADD,
            "ConstrainedDPSGDClassifier": ADD, "FairDPClassifier": ADD}  # the others: replace-one (n public)


def _check(spent, method, relation=None):
    assert isinstance(spent, PrivacySpent) and spent.method == method
    assert spent.relation == (None if method == "none" else relation)
    eps, delta = spent
    assert (spent.epsilon, spent.delta) == (eps, delta) and eps > 0 and 0 <= delta < 1


def test_every_exported_estimator_is_listed():
    classes = {name for name in models.__all__ if isinstance(getattr(models, name), type)}
    assert set(ESTIMATORS) == classes - {"DPClassifierBase", "FairDPCertificate", "NotFittedError",
                                         "TrainingDivergedError"}


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_estimators_name_their_accounting(name):
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(800, 4))
    s = (rng.uniform(size=800) < 0.4).astype(np.int64)
    y = (X[:, 0] + 0.5 * s + 0.3 * rng.normal(size=800) > 0.7).astype(np.int64)
    params, method = ESTIMATORS[name]
    m = getattr(models, name)(random_state=0, **params).fit(X, y, sensitive_features=s)
    _check(m.privacy_spent_, method, RELATION.get(name, REPLACE))


@pytest.mark.parametrize("name", ["FunctionalMechanismLR", "FairFunctionalMechanismLR", "PFLR", "PFLRStar"])
def test_functional_mechanism_without_noise_is_not_private(name):
    """(inf, 0, "none") like every other non-private run, also for the Gaussian-mechanism ones (their δ was kept)."""
    rng = np.random.default_rng(1)
    X = rng.uniform(size=(200, 3))
    y = (X[:, 0] > 0.5).astype(np.int64)
    s = (rng.uniform(size=200) < 0.5).astype(np.int64)
    groups = {} if name == "FunctionalMechanismLR" else {"declared_groups": [0, 1]}
    m = getattr(models, name)(epsilon=np.inf, **groups).fit(X, y, sensitive_features=s)
    assert m.privacy_spent_ == (np.inf, 0.0) and m.privacy_spent_.method == "none"


def test_embeddings_and_causal_learners_name_their_accounting():
    graph = embedding.planted_partition(200, 2, mean_degree=8.0, ratio=5.0, sparse=False, random_state=0)
    _check(embedding.DPNE(4, epsilon=1.0, random_state=0).fit(graph.adjacency).privacy_spent_, "basic", EDGE)
    _check(embedding.DPNE(4, epsilon=1.0, delta=1e-5, noise="gaussian", random_state=0)
           .fit(graph.adjacency).privacy_spent_, "basic", EDGE)
    assert embedding.DPNE(4, epsilon=np.inf, random_state=0).fit(graph.adjacency).privacy_spent_.method == "none"
    _check(embedding.DPMatrixBaseline(4, epsilon=1.0, random_state=0).fit(graph.adjacency).privacy_spent_, "basic",
           EDGE)
    assert embedding.SVDEmbedding(4, random_state=0).fit(graph.adjacency).privacy_spent_.method == "none"

    bn = causal.random_categorical_network(5, 0.3, random_state=0)
    X = bn.sample(2000, random_state=1)
    assert causal.PC().fit(X, n_categories=bn.n_categories).privacy_spent_.method == "none"
    _check(causal.PrivPC(epsilon=1.0, random_state=0).fit(X, n_categories=bn.n_categories).privacy_spent_, "basic",
           REPLACE)
    assert causal.PrivPC(epsilon=1.0, paper_faithful=True, random_state=0).fit(
        X, n_categories=bn.n_categories).privacy_spent_.method == "none"
    _check(causal.LapMechPC(epsilon=1.0, random_state=0).fit(X, n_categories=bn.n_categories).privacy_spent_,
           "basic", REPLACE)
    Z = causal.random_gaussian_network(5, 0.3, random_state=2).sample(2000, random_state=3)
    _check(causal.PrivPCStar(epsilon=1.0, clip_norm=5.0, random_state=0).fit(Z).privacy_spent_, "basic", REPLACE)


def test_a_guarantee_names_its_relation_and_survives_copies():
    import copy
    import pickle

    from dpfair_native.accountants import NeighbouringRelation

    spent = PrivacySpent(1.0, 1e-5, "pld", NeighbouringRelation.REPLACE_ONE)
    assert spent.relation == REPLACE and tuple(spent) == (1.0, 1e-5)
    for again in (copy.deepcopy(spent), pickle.loads(pickle.dumps(spent))):
        assert again == spent and again.method == "pld" and again.relation == REPLACE
    assert "relation='replace_one'" in repr(spent)
    old = PrivacySpent(1.0, 0.0, "basic")  # as an object pickled before the attribute existed unpickles
    assert old.relation is None and old == (1.0, 0.0)
    with pytest.raises(ValueError, match="relation must be one of"):
        PrivacySpent(1.0, 0.0, "basic", "replace-two")
    assert PrivacySpent(np.inf, 0.0, "none").relation is None
