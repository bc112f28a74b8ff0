"""Features in raw units against features scaled by declared bounds (README, "Scale the features"): every DP
estimator with its defaults at ε = 1, on a synthetic table of ages (18–90), weekly hours (1–99) and log-normal
incomes, with a binary group s. The label depends on age, hours and s; 80/20 split; accuracy on the test part.

Run: PYTHONPATH=python python bench/raw_units.py  (a few seconds)
"""

import warnings

import numpy as np

from dpfair_native import models
from dpfair_native.preprocessing import DomainEncoder, Numeric

ESTIMATORS = ["DPSGDClassifier", "DPSGDFClassifier", "NaiveReweightedDPSGDClassifier", "ConstrainedDPSGDClassifier",
              "FairDPClassifier", "FunctionalMechanismLR", "FairFunctionalMechanismLR"]
SCHEMA = {"age": Numeric(18, 90), "hours": Numeric(1, 99), "income": Numeric(0, 500_000)}


def table(n, rng):
    columns = {"age": rng.uniform(18, 90, n), "hours": rng.uniform(1, 99, n), "income": rng.lognormal(10, 1, n)}
    s = rng.choice(["F", "M"], n, p=[0.35, 0.65])
    z = (columns["age"] - 50) / 15 + (columns["hours"] - 45) / 25 + 0.5 * (s == "M") + rng.normal(0, 1, n)
    return columns, np.where(z > 0.8, "yes", "no"), s


def accuracy(name, X, y, s, train, test):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = getattr(models, name)(random_state=0).fit(X[train], y[train], sensitive_features=s[train])
    return model.score(X[test], y[test]), sorted({type(w.message).__name__ for w in caught})


def main():
    rng = np.random.default_rng(1)
    for n in (3_000, 30_000):
        columns, y, s = table(n, rng)
        raw = np.column_stack([columns[c] for c in SCHEMA])
        scaled = np.asarray(DomainEncoder(SCHEMA).fit_transform(columns))
        train, test = np.arange(int(0.8 * n)), np.arange(int(0.8 * n), n)
        majority = max(np.mean(y[test] == "yes"), np.mean(y[test] == "no"))
        reference = models.LogisticRegression().fit(raw[train], y[train]).score(raw[test], y[test])
        print(f"n = {n:,}: majority {majority:.3f}, non-private LogisticRegression {reference:.3f}")
        for name in ESTIMATORS:
            (a_raw, w_raw), (a_scaled, _) = (accuracy(name, X, y, s, train, test) for X in (raw, scaled))
            print(f"  {name:32s} raw units {a_raw:.3f} (warnings: {', '.join(w_raw) or 'none'}); "
                  f"declared bounds {a_scaled:.3f}", flush=True)


if __name__ == "__main__":
    main()
