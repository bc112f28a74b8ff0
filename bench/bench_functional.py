"""Fit times of the functional-mechanism estimators (pytest-benchmark): Adult (36k x 45) and 1,000,000 x 100.

Run: PYTHONPATH=python python -m pytest bench/bench_functional.py --benchmark-only
     (add -k adult to skip the large synthetic case). Native and numpy backends side by side; the large case is
     ``make_fair_classification(1_000_000, 100, random_state=0)`` on ``FeatureDomain.unit_box(100)``.
"""

import pytest

from dpfair_native.datasets import load_adult, make_fair_classification, train_test_split
from dpfair_native.domain import FeatureDomain
from dpfair_native.models.ding import ADFC, PDFC
from dpfair_native.models.functional import PFLR, FairFunctionalMechanismLR, FunctionalMechanismLR, PFLRStar
from dpfair_native.models.logistic import FairLogisticRegression, LogisticRegression

ESTIMATORS = {
    "PrivLR": lambda dom, be: FunctionalMechanismLR(epsilon=1.0, domain=dom, random_state=0, backend=be),
    "FairFM": lambda dom, be: FairFunctionalMechanismLR(epsilon=1.0, domain=dom, random_state=0, backend=be,
                                                              declared_groups=[0, 1]),
    "PFLR": lambda dom, be: PFLR(epsilon=1.0, domain=dom, random_state=0, backend=be),
    "PFLR*": lambda dom, be: PFLRStar(epsilon=1.0, domain=dom, random_state=0, backend=be),
    "PDFC": lambda dom, be: PDFC(attribute=0, domain=dom, random_state=0, backend=be),
    "ADFC": lambda dom, be: ADFC(attribute=0, domain=dom, random_state=0, backend=be),
    "LR": lambda dom, be: LogisticRegression(backend=be),
    "FairLR": lambda dom, be: FairLogisticRegression(backend=be),
}


@pytest.fixture(scope="module")
def adult():
    ds = load_adult()
    Xtr, _, ytr, _, s, _ = train_test_split(ds.X, ds.y, ds.sensitive, test_size=0.2, random_state=0)
    return FeatureDomain.from_dataset(ds), Xtr, ytr, s


@pytest.fixture(scope="module")
def large():
    X, y, s = make_fair_classification(1_000_000, 100, random_state=0)
    return FeatureDomain.unit_box(100), X, y, s


@pytest.mark.parametrize("backend", ["native", "numpy"])
@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_adult(benchmark, adult, name, backend):
    dom, X, y, s = adult
    benchmark(lambda: ESTIMATORS[name](dom, backend).fit(X, y, sensitive_features=s))


@pytest.mark.parametrize("backend", ["native", "numpy"])
@pytest.mark.parametrize("name", ["PrivLR", "FairFM", "PFLR*", "ADFC", "LR", "FairLR"])
def test_large(benchmark, large, name, backend):
    dom, X, y, s = large
    benchmark.pedantic(lambda: ESTIMATORS[name](dom, backend).fit(X, y, sensitive_features=s), rounds=3, iterations=1)
