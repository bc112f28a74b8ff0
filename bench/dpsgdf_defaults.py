"""DPSGD-F's step size and base clip bound, chosen away from the defaults test (bench/RESULTS.md, "Session 22:
DPSGD-F defaults"): each (learning_rate, clip_norm) candidate with every other parameter at its default, on

* a validation part of Adult's training data (seed-0 80/20 split, then 80/20 of its training part), random_state
  0-2, with DPSGDClassifier and the non-private LogisticRegression beside it, and
* a generator other than tests/test_defaults.py's (``_heldout``: sparse ±1 weights on a fifth of the columns, a
  binary proxy of s, seed 7), on the test's range of shapes.

Reported: mean accuracy, and the cost-of-privacy gap (thesis ch. 9: the difference between the groups' accuracy
drops from the non-private model), the disparity DPSGD-F exists to reduce.

Run: PYTHONPATH=python python bench/dpsgdf_defaults.py  (a few minutes on two cores)
"""

import warnings

import numpy as np

from dpfair_native import metrics, models
from dpfair_native.datasets import load_adult, train_test_split

CANDIDATES = [(2.0, 1.0), (1.0, 1.0), (0.5, 1.0), (2.0, 0.5), (1.0, 0.5)]
SEEDS = (0, 1, 2)
SHAPES = [(2_000, 5, 0.5), (20_000, 20, 0.05), (20_000, 200, 0.3), (20_000, 500, 0.2)]


def _heldout(n, d, positive_rate, seed=7):
    """s ~ Bernoulli(0.3); x uniform in [0, 1]^d with x₀ = s (a binary proxy); y from sparse ±1 weights."""
    rng = np.random.default_rng(seed)
    m = n + n // 4
    s = (rng.uniform(size=m) < 0.3).astype(np.int64)
    X = rng.uniform(0, 1, size=(m, d))
    X[:, 0] = s
    w = np.zeros(d)
    support = rng.choice(d, size=max(1, d // 5), replace=False)
    w[support] = rng.choice([-1.0, 1.0], size=support.size) * 4 / np.sqrt(support.size)
    w[0] = 1.5
    z = X @ w + 0.5 * rng.normal(size=m)
    y = (z > np.quantile(z, 1 - positive_rate)).astype(np.int64)
    return (X[:n], y[:n], s[:n]), (X[n:], y[n:], s[n:])


def _adult_validation():
    ds = load_adult()
    X, _, y, _, s, _ = train_test_split(ds.X, ds.y, ds.sensitive, test_size=0.2, random_state=0)
    X, Xv, y, yv, s, sv = train_test_split(X, y, s, test_size=0.2, random_state=0)
    return (X, y, s), (Xv, yv, sv)


def _score(make, train, test, seeds):
    (X, y, s), (Xt, yt, st) = train, test
    nonprivate = models.LogisticRegression().fit(X, y).predict(Xt)
    accuracies, gaps = [], []
    for seed in seeds:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # no declared domain or groups
            pred = make(seed).fit(X, y, sensitive_features=s).predict(Xt)
        accuracies.append(np.mean(pred == yt))
        gaps.append(metrics.cost_of_privacy(yt, pred, nonprivate, sensitive_features=st).gap)
    return f"{np.mean(accuracies):.3f} / {np.mean(gaps):.3f}"


def main():
    data = [("Adult (validation)", _adult_validation())]
    data += [(f"held-out n{n} d{d} pos{rate:g}", _heldout(n, d, rate)) for n, d, rate in SHAPES]
    header = ["DPSGDClassifier"] + [f"DPSGD-F lr {lr:g}, C0 {c:g}" for lr, c in CANDIDATES]
    print("accuracy / cost-of-privacy gap, means over random_state " + ", ".join(map(str, SEEDS)))
    print("| data | " + " | ".join(header) + " |")
    print("|---" * (len(header) + 1) + "|")
    for label, (train, test) in data:
        cells = [_score(lambda seed: models.DPSGDClassifier(random_state=seed), train, test, SEEDS)]
        for lr, c in CANDIDATES:
            cells.append(_score(lambda seed: models.DPSGDFClassifier(learning_rate=lr, clip_norm=c, random_state=seed),
                                train, test, SEEDS))
        print(f"| {label} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
