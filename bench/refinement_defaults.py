"""Refinement rounds of the functional-mechanism family on and off (bench/RESULTS.md, "Session 10: refinement
rounds"): each estimator with its defaults at ε = 1 on tests/test_defaults.py's large shape (n = 300,000, d = 10,
15 % positives; its generator, seed 0, test split), ``refinement_rounds="auto"`` against ``0``: test accuracy,
demographic-parity difference and fit time (min–median of 3).

Run: PYTHONPATH=python python bench/refinement_defaults.py  (under a minute on two cores)
"""

import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))

from dpfair_native import models  # noqa: E402
from test_defaults import SHAPES, _synthetic, disparity  # noqa: E402

ESTIMATORS = ("FunctionalMechanismLR", "FairFunctionalMechanismLR", "PFLR", "PFLRStar", "PDFC", "ADFC")


def main():
    (X, y, s), (Xt, yt, st) = _synthetic(*SHAPES["n300k-d10-pos15"])
    for name in ESTIMATORS:
        row = []
        for rounds in ("auto", 0):
            times = []
            for _ in range(3):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # no declared domain: [0, 1]^d, which holds this generator
                    start = time.perf_counter()
                    model = getattr(models, name)(random_state=0, refinement_rounds=rounds)
                    model.fit(X, y, sensitive_features=s)
                    times.append(time.perf_counter() - start)
            pred = model.predict(Xt)
            row.append(f"rounds={rounds} ({model.refinement_rounds_} ran): accuracy {np.mean(pred == yt):.4f} "
                       f"DP difference {disparity('demographic_parity', pred, yt, st):.4f} "
                       f"fit {min(times) * 1e3:.0f}-{np.median(times) * 1e3:.0f} ms")
        print(f"{name:26s}", " | ".join(row))


if __name__ == "__main__":
    main()
