"""Benchmark DP-SGD training on the bundled Adult (36,177 training rows × 45): 20 epochs, batch 256 (Poisson).

Native fit vs the NumPy reference loop, DPSGD-F and Naïve vs DPSGD, and Opacus's DP-SGD on the same logistic model
(torch.nn.Linear + BCEWithLogits, Poisson sampling, same σ, C, lr, epochs) when torch and opacus are installed.

Run: PYTHONPATH=python python -m pytest bench/bench_dpsgd.py --benchmark-enable --benchmark-columns=min,median,rounds
Summary table (best-of timings, accuracies, speed-ups): PYTHONPATH=python python bench/bench_dpsgd.py
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from dpfair_native.datasets import load_adult, train_test_split
from dpfair_native.models.dpsgd import DPSGDClassifier, DPSGDFClassifier, NaiveReweightedDPSGDClassifier

SIGMA, CLIP, LR, EPOCHS, BATCH, DELTA = 1.0, 1.0, 2.0, 20, 256, 1e-5


def adult():
    ds = load_adult()
    return train_test_split(ds.X, ds.y, ds.sensitive, test_size=0.2, random_state=0)


def fit_ours(cls, backend, data, seed=0):
    X_tr, _, y_tr, _, s_tr, _ = data
    model = cls(noise_multiplier=SIGMA, clip_norm=CLIP, learning_rate=LR, epochs=EPOCHS, batch_size=BATCH,
                delta=DELTA, backend=backend, random_state=seed)
    return model.fit(X_tr, y_tr, sensitive_features=s_tr)


def fit_opacus(data, seed=0):
    """Opacus DP-SGD on the same model: returns (test accuracy, ε at DELTA)."""
    import torch
    from opacus import PrivacyEngine

    X_tr, X_te, y_tr, y_te, _, _ = data
    torch.manual_seed(seed)
    model = torch.nn.Linear(X_tr.shape[1], 1, dtype=torch.float64)
    torch.nn.init.zeros_(model.weight)
    torch.nn.init.zeros_(model.bias)
    optimizer = torch.optim.SGD(model.parameters(), lr=LR)
    loader = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(torch.from_numpy(X_tr), torch.from_numpy(y_tr.astype(np.float64))),
        batch_size=BATCH,
    )
    engine = PrivacyEngine(accountant="rdp")
    model, optimizer, loader = engine.make_private(module=model, optimizer=optimizer, data_loader=loader,
                                                   noise_multiplier=SIGMA, max_grad_norm=CLIP, poisson_sampling=True)
    loss_fn = torch.nn.BCEWithLogitsLoss()
    for _ in range(EPOCHS):
        for xb, yb in loader:
            optimizer.zero_grad()
            loss_fn(model(xb).squeeze(1), yb).backward()
            optimizer.step()
    with torch.no_grad():
        pred = (model(torch.from_numpy(X_te)).squeeze(1) > 0).numpy()
    return float(np.mean(pred == y_te)), engine.get_epsilon(DELTA)


@pytest.fixture(scope="module")
def data():
    return adult()


@pytest.mark.parametrize(
    "cls,backend",
    [(DPSGDClassifier, "native"), (DPSGDFClassifier, "native"), (NaiveReweightedDPSGDClassifier, "native"),
     (DPSGDClassifier, "numpy")],
    ids=["DPSGD-native", "DPSGD-F-native", "Naive-native", "DPSGD-numpy"],
)
def test_fit_20_epochs(benchmark, data, cls, backend):
    benchmark.group = "DP-SGD fit, Adult 36k x 45, 20 epochs"
    rounds = 2 if backend == "numpy" else 10
    model = benchmark.pedantic(fit_ours, args=(cls, backend, data), rounds=rounds, iterations=1)
    assert model.score(data[1], data[3]) > 0.8


def test_fit_20_epochs_opacus(benchmark, data):
    pytest.importorskip("opacus")
    benchmark.group = "DP-SGD fit, Adult 36k x 45, 20 epochs"
    acc, _ = benchmark.pedantic(fit_opacus, args=(data,), rounds=1, iterations=1)
    assert acc > 0.8


def _best(fn, repeat):
    best, out = np.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main():
    data = adult()
    X_te, y_te = data[1], data[3]
    rows = []
    for name, cls, backend, repeat in [
        ("DPSGDClassifier (native)", DPSGDClassifier, "native", 15),
        ("DPSGDFClassifier (native)", DPSGDFClassifier, "native", 15),
        ("NaiveReweightedDPSGDClassifier (native)", NaiveReweightedDPSGDClassifier, "native", 15),
        ("DPSGDClassifier (numpy reference)", DPSGDClassifier, "numpy", 2),
    ]:
        t, model = _best(lambda: fit_ours(cls, backend, data), repeat)
        rows.append((name, t, model.score(X_te, y_te), model.privacy_spent_[0]))
    try:
        import opacus  # noqa: F401

        t, (acc, eps) = _best(lambda: fit_opacus(data), 1)
        rows.append(("Opacus DP-SGD (torch, same model)", t, acc, eps))
    except ImportError:
        pass
    base = rows[0][1]
    print(f"| estimator | best time | × DPSGD native | test accuracy | ε (δ = {DELTA:g}) |")
    print("|---|---|---|---|---|")
    for name, t, acc, eps in rows:
        print(f"| {name} | {t * 1e3:.1f} ms | {t / base:.2f} | {acc:.4f} | {eps:.3f} |")


if __name__ == "__main__":
    main()
