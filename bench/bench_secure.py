"""Cost of secure=True (exact discrete noise on ChaCha20) vs the float path, on the bundled Adult (36,177 × 45).

DPSGDClassifier / DPSGD-F / Naïve: 20 epochs, batch 256, σ = 1, C = 1, lr = 2 (bench_dpsgd's setting); secure mode
draws (d + 1) = 46 discrete Gaussians per step inside the native loop (2,820 steps). Functional-mechanism fits
(PrivLR Laplace, FairFM Gaussian, ADFC): one release of ~1,100 coefficients. Also the raw sampler rate and the
Poisson batch selection (float gaps against the secure path's exact ones).

Run: PYTHONPATH=python python -m pytest bench/bench_secure.py --benchmark-enable --benchmark-columns=min,median,rounds
Summary table (min / median of repeats, ε of each mode): PYTHONPATH=python python bench/bench_secure.py
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from dpfair_native import kernels
from dpfair_native.datasets import load_adult, train_test_split
from dpfair_native.domain import FeatureDomain
from dpfair_native.models.ding import ADFC
from dpfair_native.models.dpsgd import DPSGDClassifier, DPSGDFClassifier, NaiveReweightedDPSGDClassifier
from dpfair_native.models.functional import FairFunctionalMechanismLR, FunctionalMechanismLR

SIGMA, CLIP, LR, EPOCHS, BATCH, DELTA = 1.0, 1.0, 2.0, 20, 256, 1e-5


def adult():
    ds = load_adult()
    X_tr, X_te, y_tr, y_te, s_tr, s_te = train_test_split(ds.X, ds.y, ds.sensitive, test_size=0.2, random_state=0)
    return FeatureDomain.from_dataset(ds), X_tr, X_te, y_tr, y_te, s_tr


def fit_sgd(cls, secure, data, seed=None):
    _, X_tr, _, y_tr, _, s_tr = data
    model = cls(noise_multiplier=SIGMA, clip_norm=CLIP, learning_rate=LR, epochs=EPOCHS, batch_size=BATCH,
                delta=DELTA, random_state=seed, secure=secure)
    return model.fit(X_tr, y_tr, sensitive_features=s_tr)


FM = {
    "PrivLR": lambda dom, secure: FunctionalMechanismLR(epsilon=1.0, domain=dom, secure=secure),
    "FairFM": lambda dom, secure: FairFunctionalMechanismLR(epsilon=1.0, domain=dom, secure=secure,
                                                                declared_groups=[0, 1]),
    "ADFC": lambda dom, secure: ADFC(attribute=0, domain=dom, secure=secure),
}


def fit_fm(name, secure, data):
    dom, X_tr, _, y_tr, _, s_tr = data
    return FM[name](dom, secure).fit(X_tr, y_tr, sensitive_features=s_tr)


@pytest.fixture(scope="module")
def data():
    return adult()


@pytest.mark.parametrize("secure", [False, True], ids=["float", "secure"])
@pytest.mark.parametrize("cls", [DPSGDClassifier, DPSGDFClassifier, NaiveReweightedDPSGDClassifier],
                         ids=["DPSGD", "DPSGD-F", "Naive"])
def test_dpsgd_secure_vs_float(benchmark, data, cls, secure):
    benchmark.group = f"{cls.__name__} on Adult, 20 epochs, batch 256"
    model = benchmark.pedantic(fit_sgd, args=(cls, secure, data), rounds=7, iterations=1)
    assert model.score(data[2], data[4]) > 0.8


@pytest.mark.parametrize("secure", [False, True], ids=["float", "secure"])
@pytest.mark.parametrize("name", list(FM))
def test_functional_secure_vs_float(benchmark, data, name, secure):
    benchmark.group = f"{name} fit on Adult"
    benchmark.pedantic(fit_fm, args=(name, secure, data), rounds=7, iterations=1)


def test_sampler_rate(benchmark):
    benchmark.group = "discrete Gaussian draws (native), 10^5 at sigma = 2^17"
    benchmark.pedantic(kernels.discrete_gaussian_noise, args=(100_000, 2**34), rounds=5, iterations=1)


def _batches(secure):
    """One fit's batch selection at Adult's setting (36,177 rows, q = 256/36,177, 20 epochs of 141 steps)."""
    from dpfair_native._secure_random import SecureKeys
    from dpfair_native.models.dpsgd import poisson_batches, secure_poisson_batches

    n, q, steps = 36_177, BATCH / 36_177, 141
    if secure:
        keys = SecureKeys(0)
        return [secure_poisson_batches(n, q, steps, keys.next()) for _ in range(EPOCHS)]
    rng = np.random.default_rng(0)
    return [poisson_batches(n, q, steps, rng) for _ in range(EPOCHS)]


@pytest.mark.parametrize("secure", [False, True], ids=["float", "secure"])
def test_batch_selection(benchmark, secure):
    benchmark.group = "Poisson batch selection, Adult's 20 epochs (about 720,000 selections)"
    benchmark.pedantic(_batches, args=(secure,), rounds=5, iterations=1)


def _times(fn, repeat):
    out, ts = None, []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        ts.append(time.perf_counter() - t0)
    return min(ts), float(np.median(ts)), out


def main(repeat=7):
    data = adult()
    print("| fit | float min / median | secure min / median | secure / float (min) | ε float → secure |")
    print("|---|---|---|---|---|")
    for cls in (DPSGDClassifier, DPSGDFClassifier, NaiveReweightedDPSGDClassifier):
        # interleave the two modes so machine load affects both alike
        tf, ts_ = [], []
        for _ in range(repeat):
            tf.append(_times(lambda: fit_sgd(cls, False, data), 1)[0])
            ts_.append(_times(lambda: fit_sgd(cls, True, data), 1)[0])
        mf, ms = fit_sgd(cls, False, data, 0), fit_sgd(cls, True, data, 0)
        print(f"| {cls.__name__} | {min(tf) * 1e3:.1f} / {np.median(tf) * 1e3:.1f} ms | {min(ts_) * 1e3:.1f} / "
              f"{np.median(ts_) * 1e3:.1f} ms | {min(ts_) / min(tf):.2f} | {mf.privacy_spent_[0]:.3f} → "
              f"{ms.privacy_spent_[0]:.3f} (acc {mf.score(data[2], data[4]):.4f} / {ms.score(data[2], data[4]):.4f}) |")
    for name in FM:
        tf, ts_ = [], []
        for _ in range(repeat):
            tf.append(_times(lambda: fit_fm(name, False, data), 1)[0])
            ts_.append(_times(lambda: fit_fm(name, True, data), 1)[0])
        m = fit_fm(name, True, data)
        print(f"| {name} | {min(tf) * 1e3:.1f} / {np.median(tf) * 1e3:.1f} ms | {min(ts_) * 1e3:.1f} / "
              f"{np.median(ts_) * 1e3:.1f} ms | {min(ts_) / min(tf):.2f} | {m.privacy_spent_[0]:.3f} (same) |")
    (tf, mf, _), (ts_, ms, _) = (_times(lambda: _batches(secure), repeat) for secure in (False, True))
    print(f"\nbatch selection, 20 epochs at Adult's q: float {tf * 1e3:.1f} / {mf * 1e3:.1f} ms, exact (secure) "
          f"{ts_ * 1e3:.1f} / {ms * 1e3:.1f} ms (min / median)")
    t, med, _ = _times(lambda: kernels.discrete_gaussian_noise(100_000, 2**34), 5)
    print(f"\nnative discrete Gaussian (σ = 2^17): {t / 1e5 * 1e9:.0f} ns / draw (min), {med / 1e5 * 1e9:.0f} median")


if __name__ == "__main__":
    main()
