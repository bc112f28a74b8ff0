"""Fairness of the defaults on every shape of tests/test_defaults.py (bench/RESULTS.md, "Defaults: fairness on
every shape"): for each fairness-aware estimator, its accuracy and the disparity it targets next to its
unconstrained counterpart's, and whether the test's rule (disparity <= max(0.75 x the counterpart's, 0.02)) holds;
means over the test's seeds, as the test judges them.

With ``--fairdp-m``: FairDP's weight bound M against DP-SGD on a held-out draw of the generator (seed 11), accuracy
/ demographic-parity difference / accuracy gap, to see whether any default M would pass the test.

Run: PYTHONPATH=python python bench/defaults_fairness.py [--fairdp-m]  (a few minutes on two cores: it fits every
estimator on every shape, as the test file does)
"""

import os
import sys
import warnings

import numpy as np

from dpfair_native import models

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))

from test_defaults import FAIRNESS_TARGETS, NEAR_PARITY, SHAPES, _fit, _synthetic, disparity  # noqa: E402


def main():
    print("| shape | estimator | metric | accuracy | disparity | counterpart | its disparity | rule |")
    print("|---|---|---|---|---|---|---|---|")
    for shape in SHAPES:
        (nonprivate,), y, s = _fit("LogisticRegression", shape)
        for name, (kind, counterpart) in FAIRNESS_TARGETS.items():
            preds, _, _ = _fit(name, shape)  # one prediction per seed (private) or one (non-private)
            bases, _, _ = _fit(counterpart, shape)
            ours, theirs = (float(np.mean([disparity(kind, p, y, s, nonprivate) for p in ps])) for ps in (preds, bases))
            holds = "holds" if ours <= max(0.75 * theirs, NEAR_PARITY) else "**fails**"
            accuracy = np.mean([np.mean(p == y) for p in preds])
            print(f"| {shape} | {name} | {kind} | {accuracy:.3f} | {ours:.3f} | {counterpart} | {theirs:.3f} | "
                  f"{holds} |", flush=True)


def fairdp_weight_bound_scan(bounds=(1.5, 2, 3, 5, 20)):
    def cell(pred, y, s):
        kinds = ("demographic_parity", "accuracy_gap")
        return f"{np.mean(pred == y):.3f} / " + " / ".join(f"{disparity(k, pred, y, s):.3f}" for k in kinds)

    print("| shape | DPSGDClassifier | " + " | ".join(f"FairDP M = {m:g}" for m in bounds) + " |")
    print("|---" * (len(bounds) + 2) + "|")
    for shape, args in SHAPES.items():
        (X, y, s), (X_test, y_test, s_test) = _synthetic(*args, seed=11)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # no declared domain or groups
            cells = [cell(models.DPSGDClassifier(random_state=0).fit(X, y).predict(X_test), y_test, s_test)]
            for m in bounds:
                model = models.FairDPClassifier(weight_bound=m, random_state=0).fit(X, y, sensitive_features=s)
                cells.append(cell(model.predict(X_test), y_test, s_test))
        print(f"| {shape} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    fairdp_weight_bound_scan() if "--fairdp-m" in sys.argv[1:] else main()
