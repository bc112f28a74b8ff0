"""Private feature centering on/off for the DP-SGD family with default parameters (bench/RESULTS.md, "Private
feature centering"): accuracy and disparity on tests/test_defaults.py's shapes (its generator, seed 0, test split),
then ConstrainedDPSGDClassifier on a held-out draw of the generator (seed 11) with larger dual learning rates.

Run: PYTHONPATH=python python bench/centering.py  (a few minutes on two cores)
"""

import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))

from dpfair_native import models  # noqa: E402
from test_defaults import SHAPES, _synthetic, disparity  # noqa: E402

DISPARITY = {"DPSGDClassifier": "demographic_parity", "DPSGDFClassifier": "accuracy_gap",
             "NaiveReweightedDPSGDClassifier": "accuracy_gap", "ConstrainedDPSGDClassifier": "demographic_parity",
             "FairDPClassifier": "accuracy_gap"}


def fit(name, data, **params):
    (X, y, s), (Xt, yt, st) = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # no declared domain
        pred = getattr(models, name)(random_state=0, **params).fit(X, y, sensitive_features=s).predict(Xt)
    return f"{np.mean(pred == yt):.3f}/{disparity(DISPARITY[name], pred, yt, st):.3f}"


def main():
    for shape, args in SHAPES.items():
        data = _synthetic(*args)
        (X, y, _), (Xt, yt, _) = data
        ref = models.LogisticRegression().fit(X, y).score(Xt, yt)
        print(f"{shape}: majority {max(yt.mean(), 1 - yt.mean()):.3f}, LogisticRegression {ref:.3f}", flush=True)
        for name in DISPARITY:
            print(f"  {name}: off {fit(name, data, center=False)}  on {fit(name, data, center=True)}", flush=True)
    print("held-out generator (seed 11), ConstrainedDPSGDClassifier:")
    for shape in ("n2k-d5-pos50", "n20k-d20-pos5", "n20k-d200-pos30", "n20k-d500-pos20"):
        data = _synthetic(*SHAPES[shape], seed=11)
        cells = [f"off {fit('ConstrainedDPSGDClassifier', data, center=False)}"]
        for dual in (2.0, 4.0, 8.0):
            cells.append(f"on, dual lr {dual:g} {fit('ConstrainedDPSGDClassifier', data, dual_learning_rate=dual)}")
        print(f"  {shape}: " + "  ".join(cells), flush=True)


if __name__ == "__main__":
    main()
