"""FairDPClassifier vs DPSGDClassifier fit time on the bundled Adult training split (ε = 1, δ = 1e-5), both on the
native DP-SGD loop, at the reproduction's settings (experiments/fairdp.py). Run:
    cd /work/main && PYTHONPATH=python python -m pytest bench/bench_fairdp.py --benchmark-only -q
"""

import pytest

from dpfair_native.datasets import load_adult, train_test_split
from dpfair_native.experiments.fairdp import DPSGD_PARAMS, FAIRDP_PARAMS
from dpfair_native.models.dpsgd import DPSGDClassifier
from dpfair_native.models.fairdp import FairDPClassifier

#: The reproduction chooses M per seed on validation data; fit time does not depend on it, so one value is timed.
WEIGHT_BOUND = 2.0


@pytest.fixture(scope="module")
def adult_train():
    ds = load_adult()
    X_train, _, y_train, _, s_train, _ = train_test_split(ds.X, ds.y, ds.sensitive, test_size=0.2, random_state=0)
    return X_train, y_train, s_train


@pytest.mark.parametrize("backend", ["native", "numpy"])
def test_fit_fairdp(benchmark, adult_train, backend):
    X, y, s = adult_train
    model = FairDPClassifier(target_epsilon=1.0, delta=1e-5, random_state=0, backend=backend, declared_groups=[0, 1],
                             weight_bound=WEIGHT_BOUND, **FAIRDP_PARAMS)
    benchmark.pedantic(lambda: model.fit(X, y, sensitive_features=s), rounds=5, iterations=1)


@pytest.mark.parametrize("backend", ["native", "numpy"])
def test_fit_dpsgd(benchmark, adult_train, backend):
    X, y, _ = adult_train
    model = DPSGDClassifier(target_epsilon=1.0, delta=1e-5, random_state=0, backend=backend, **DPSGD_PARAMS)
    benchmark.pedantic(lambda: model.fit(X, y), rounds=5, iterations=1)


def test_fit_fairdp_same_steps_as_dpsgd(benchmark, adult_train):
    """Equal work: FairDP with q = 256/n per group and 20 epochs runs the same T = 2820 steps as DP-SGD."""
    X, y, s = adult_train
    params = {**FAIRDP_PARAMS, "sample_rate": 256 / X.shape[0], "epochs": 20, "weight_bound": WEIGHT_BOUND}
    model = FairDPClassifier(target_epsilon=1.0, delta=1e-5, random_state=0, declared_groups=[0, 1], **params)
    benchmark.pedantic(lambda: model.fit(X, y, sensitive_features=s), rounds=5, iterations=1)
