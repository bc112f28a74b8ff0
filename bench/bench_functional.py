"""Fit times of the functional-mechanism estimators (pytest-benchmark): Adult (36k x 45) and 1,000,000 x 100.

Run: PYTHONPATH=python python -m pytest bench/bench_functional.py --benchmark-only
     (add -k adult to skip the large synthetic case). Native and numpy backends side by side.
"""

import numpy as np
import pytest

from dpfair_native.datasets import load_adult, train_test_split
from dpfair_native.domain import FeatureDomain
from dpfair_native.models.ding import ADFC, PDFC
from dpfair_native.models.functional import FairFunctionalMechanismLR, FunctionalMechanismLR, PFLR, PFLRStar
from dpfair_native.models.logistic import FairLogisticRegression, LogisticRegression

ESTIMATORS = {
    "PrivLR": lambda dom, be: FunctionalMechanismLR(epsilon=1.0, domain=dom, random_state=0, backend=be),
    "FairFM": lambda dom, be: FairFunctionalMechanismLR(epsilon=1.0, domain=dom, random_state=0, backend=be),
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
    rng = np.random.default_rng(0)
    n, d = 1_000_000, 100
    X = rng.random((n, d))
    s = (rng.random(n) < 0.5).astype(np.int64)
    y = (X[:, :10].sum(1) + 0.5 * s + rng.normal(size=n) > 5.2).astype(np.int64)
    return FeatureDomain.unit_box(d), X, y, s


@pytest.mark.parametrize("backend", ["native", "numpy"])
@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_adult(benchmark, adult, name, backend):
    dom, X, y, s = adult
    benchmark(lambda: ESTIMATORS[name](dom, backend).fit(X, y, sensitive_features=s))


@pytest.mark.parametrize("backend", ["native", "numpy"])
@pytest.mark.parametrize("name", ["PrivLR", "FairFM", "PFLR*", "ADFC"])
def test_large(benchmark, large, name, backend):
    dom, X, y, s = large
    benchmark.pedantic(lambda: ESTIMATORS[name](dom, backend).fit(X, y, sensitive_features=s), rounds=3, iterations=1)
