"""Benchmark ConstrainedDPSGDClassifier on the bundled Adult (36,177 training rows × 45) at ε = 1, library defaults:
native vs the NumPy reference loop, plain DPSGDClassifier at the same batch size for scale, and the frontier's
spline representation (103 columns) as CSR vs dense.

Run:
    PYTHONPATH=python python -m pytest bench/bench_constrained.py --benchmark-enable \
        --benchmark-columns=min,median,rounds
(fairlearn's ExponentiatedGradient is timed in the same run by ``python -m dpfair_native reproduce frontier``.)
"""

from __future__ import annotations

import numpy as np
import pytest

from dpfair_native.datasets import load_adult, train_test_split
from dpfair_native.models import ConstrainedDPSGDClassifier, DPSGDClassifier


@pytest.fixture(scope="module")
def adult():
    ds = load_adult()
    return train_test_split(ds.X, ds.y, ds.sensitive, test_size=0.2, random_state=0)


@pytest.mark.parametrize("constraint", ["demographic_parity", "equalized_odds"])
@pytest.mark.parametrize("backend", ["native", "numpy"])
def test_constrained_fit(benchmark, adult, constraint, backend):
    X_tr, _, y_tr, _, s_tr, _ = adult
    model = ConstrainedDPSGDClassifier(
        declared_groups=[0, 1], constraint=constraint, target_epsilon=1.0, backend=backend, random_state=0)
    benchmark.pedantic(lambda: model.fit(X_tr, y_tr, sensitive_features=s_tr), rounds=3 if backend == "numpy" else 10)


def test_dpsgd_same_batch(benchmark, adult):
    X_tr, _, y_tr, _, _, _ = adult
    model = DPSGDClassifier(target_epsilon=1.0, batch_size=512, learning_rate=1.0, random_state=0)
    benchmark.pedantic(lambda: model.fit(X_tr, y_tr), rounds=10)


@pytest.fixture(scope="module")
def adult_splines():
    """The public spline representation of the raw Adult frame (103 columns), dense and CSR, training split."""
    from dpfair_native.experiments.frontier import spline_features

    ds = load_adult()
    X, _ = spline_features()
    tr, _ = train_test_split(np.arange(ds.y.shape[0]), test_size=0.2, random_state=0)
    return X[tr], ds.y[tr], ds.sensitive[tr]


@pytest.mark.parametrize("layout", ["csr", "dense"])
def test_constrained_fit_splines(benchmark, adult_splines, layout):
    X, y, s = adult_splines
    X = X if layout == "csr" else X.toarray()
    model = ConstrainedDPSGDClassifier(
        declared_groups=[0, 1], target_epsilon=1.0, dual_learning_rate=3.0, random_state=0)
    benchmark.pedantic(lambda: model.fit(X, y, sensitive_features=s), rounds=10)
