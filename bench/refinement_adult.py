"""Refinement rounds on Adult (bench/RESULTS.md, "Session 10: refinement rounds"): FairFunctionalMechanismLR (or
the estimator named on the command line) with its defaults and the declared domain, ``refinement_rounds="auto"``
against ``0``, over ε in {1, 4, 10, 100, inf}; 80/20 splits of seeds 0-4, means of test accuracy, ROC-AUC, risk
difference, and how many rounds "auto" ran.

Run: PYTHONPATH=python python bench/refinement_adult.py [EstimatorName]  (about a minute on two cores)
"""

import sys

import numpy as np

from dpfair_native import metrics, models
from dpfair_native.datasets import load_adult, train_test_split
from dpfair_native.domain import FeatureDomain


def main(name="FairFunctionalMechanismLR"):
    ds = load_adult()
    domain = FeatureDomain.from_dataset(ds)
    cls = getattr(models, name)
    for eps in (1.0, 4.0, 10.0, 100.0, np.inf):
        budget = dict(epsilon_s=eps / 2, epsilon_n=eps / 2) if name in ("PDFC", "ADFC") else dict(epsilon=eps)
        for rounds in ("auto", 0):
            rows = []
            for seed in range(5):
                X, Xt, y, yt, s, st = train_test_split(ds.X, ds.y, ds.sensitive, test_size=0.2, random_state=seed)
                model = cls(**budget, domain=domain, random_state=seed, refinement_rounds=rounds)
                model.fit(X, y, sensitive_features=s)
                pred = model.predict(Xt)
                rows.append((metrics.accuracy(yt, pred), metrics.roc_auc(yt, model.decision_function(Xt)),
                             metrics.demographic_parity_difference(yt, pred, sensitive_features=st),
                             model.refinement_rounds_))
            r = np.array(rows)
            print(f"{name} eps={eps:g} rounds={rounds} ({r[:, 3].max():.0f} ran): accuracy {r[:, 0].mean():.4f} "
                  f"ROC-AUC {r[:, 1].mean():.4f} RD {r[:, 2].mean():.4f}")


if __name__ == "__main__":
    main(*sys.argv[1:])
