"""Defaults that work (issue 12, item 2): every estimator fitted with its default parameters, on synthetic data it
was never tuned on, beats the majority class by a clear margin, and the fairness-aware ones reduce the disparity
they target relative to their unconstrained counterpart.

Data (``_synthetic``): s ~ Bernoulli(0.35); x uniform in [0, 1]^d except x₀ = (u + s)/2, a proxy of s as zip code or
"husband" is in census data; y = 1 where x·w + 0.5·N(0, 1) lies above its (1 − rate) quantile, with w₀ = 3 so the
proxy matters. Shapes span n 2,000–300,000, d 5–500 and positive rates 5–50 %.

"A clear margin": accuracy ≥ majority + ½·(reference − majority), the reference being the non-private model of
the same kind (``LogisticRegression``; ``FairLogisticRegression`` for the estimators that trade accuracy for
demographic parity or equal opportunity, because their target forbids part of what the proxy offers).

"Reduce the disparity": on every shape, disparity ≤ max(¾·(the counterpart's disparity), 0.02): a quarter less
than the unconstrained model, or within two points of parity where that model is already near it. A model that
predicts one class meets it trivially; where that happens the pair is an accuracy xfail.

A private estimator is judged on its mean over ``SEEDS`` fits (random_state 0..4), and so is its counterpart: one
draw near a bar is a lottery. The numbers quoted below are such means unless they say otherwise (session 21;
earlier sessions quoted seed 0 alone).

Where a default does not work yet, the pair is listed in ``KNOWN_FAILURES`` (accuracy) or
``KNOWN_FAIRNESS_FAILURES`` with the reason and runs as a strict xfail: it fails the suite the day it starts to
pass, so the lists cannot go stale.
"""

import warnings

import numpy as np
import pytest

from dpfair_native import metrics, models

SHAPES = {
    "n2k-d5-pos50": (2_000, 5, 0.5),
    "n20k-d20-pos5": (20_000, 20, 0.05),
    "n20k-d200-pos30": (20_000, 200, 0.3),
    "n300k-d10-pos15": (300_000, 10, 0.15),
    "n20k-d500-pos20": (20_000, 500, 0.2),
}

FM_NOISE = ("the functional mechanism's Laplace/Gaussian noise on the d×d quadratic grows like d²/(nε) (L1) or "
            "d/(nε) (L2); at d = 200, n = 20,000, ε = 1 it swamps the signal. The default private feature selection "
            "(max_features='auto': k = 16-17 columns for the Laplace variants, 57 for ADFC and FairFM at d = 500) "
            "does not rescue this generator: its signal is dense (w_j ~ N(0, 16/d) on every column), so k columns "
            "carry a small part of it. Measured at ε = 1: 0.693-0.743 (d = 200, bars 0.802 / 0.744 fair) and "
            "0.792-0.793 (d = 500, bars 0.858 / 0.817); even a non-private oracle choice of the k most correlated "
            "columns with the whole ε left to the FM stays below (best 0.781 / 0.755 at d = 200, 0.807 / 0.793 at "
            "d = 500)")
FM_THRESHOLD = ("the degree-2 Taylor objective at 0 fits a linear-probability model thresholded at 1/2; at a 5 % "
                "positive rate no row reaches it, so the model predicts the majority class. Measured (not adopted): "
                "expanding around the base-rate logit of the released noisy positive count (post-processing) lifts "
                "non-private FunctionalMechanismLR to about 0.96 but at ε = 1 gives 0.912-0.938 over the family, "
                "below the majority 0.948 (the noise on the quadratic dominates at n = 20,000); an LDA threshold "
                "from the released moments stays at 0.945-0.951")
FAIR_FM_COST = ("demographic parity against a strong proxy leaves little to learn (non-private FairLR: 0.874 at DP "
                "difference 0.003, bar 0.862); the cost is the fair FM's degree-2 objective, not its noise: at n = "
                "300,000 FairFunctionalMechanismLR gives 0.8586 at ε = 1 and 0.8587 at ε = inf, PFLR 0.8591 / 0.8597, "
                "PDFC 0.8556 / 0.8597 (DP difference 0.005-0.009); a looser tau buys accuracy only with disparity "
                "(FairFM ε = 1: tau 0.125 → 0.860 at 0.011, tau 0.25 → 0.864 at 0.025). refinement_rounds=3 "
                "(session 10) passes: "
                "0.8744-0.8760 over the five at DP difference 0.008-0.013; it is not their default because with the "
                "same tau it buys accuracy with disparity on Adult too (ε = 10: RD 0.009 → 0.025 for FairFM, "
                "0.018 → 0.041 for PFLR; bench/RESULTS.md, 'Session 10'). Rounds under 0.5·tau pass here with a lower "
                "DP difference than the single release but leave Adult's RD at 2-2.5 times it ('Session 18')")
EXP_CANDIDATES = ("with min_group_positives = 1 the utility sensitivity is about 2, so the selection is near uniform "
                  "over the private candidate set; at d = 500 its equal-opportunity-constrained DP-SGD base model "
                  "(half of ε = 1, replace-one, the public n since session 15) reaches 0.775 (candidate mean 0.766; "
                  "mean over 5 seeds 0.764, 0.736-0.777) against the bar 0.817; base_share 0.8 / 0.9 measured "
                  "0.791 / 0.794 (with the older noisy count)")
FAIRDP_IMBALANCE = ("at d = 500 the per-group normalised noise (the small group's sum divided by its own expected "
                    "batch) still dominates: 0.827 (0.820-0.833 over 5 seeds) against the bar 0.858 (DP-SGD "
                    "0.897); center=True passes (0.869) but widens FairDP's accuracy gap on n2k-d5 from 0.074 to "
                    "0.170 (bench/centering.py), failing the fairness test below (<= 0.75 x DP-SGD's 0.104), so "
                    "FairDP does not centre by default; the old defaults (M = 5, q = 0.01, 5 epochs) gave the "
                    "majority class; on the held-out generator q = 0.02 and M = 50 with learning rate 4 measured no "
                    "better")
DPSGDF_BUDGET = ("the default budget is ε = 1 (DEFAULT_TARGET_EPSILON, session 9); the old default σ = 1 spent "
                 "ε = 3.17 here and reached 0.903 (passing). At ε = 1: 0.838 against the bar 0.858, while "
                 "DPSGDClassifier reaches 0.900 and Naïve reweighting 0.870 (session 21, means over 5 seeds: 0.855, "
                 "0.844-0.865 a seed, against 0.897 and 0.879). DPSGD-F's bounds C_k = C0·(1 + ratio) "
                 "have medians 1.65·C0 and 2.51·C0 for the two groups and max_k C_k averages 2.83·C0 over the steps, "
                 "so its noise σ₂·max_k C_k is 2.8 times DPSGD's at the same σ. Learning rate 0.5 measured 0.877 "
                 "here, but a default picked on this generator would be tuned on the test, so it is not changed; "
                 "chosen away from it (bench/dpsgdf_defaults.py, session 22: Adult validation and a held-out "
                 "generator), no "
                 "(learning rate, C0) of five closes d = 500 (0.853-0.870 against DP-SGD's 0.896) and Adult prefers "
                 "the default")
KNOWN_FAILURES = {
    ("DPSGDFClassifier", "n20k-d500-pos20"): DPSGDF_BUDGET,
    **{(name, "n20k-d20-pos5"): FM_THRESHOLD for name in ("FunctionalMechanismLR", "FairFunctionalMechanismLR", "PFLR",
                                                          "PFLRStar", "PDFC", "ADFC")},
    **{(name, shape): FM_NOISE for name in ("FunctionalMechanismLR", "FairFunctionalMechanismLR", "PFLR", "PFLRStar",
                                            "PDFC", "ADFC") for shape in ("n20k-d200-pos30", "n20k-d500-pos20")},
    **{(name, "n300k-d10-pos15"): FAIR_FM_COST for name in ("FairFunctionalMechanismLR", "PFLR", "PFLRStar", "PDFC",
                                                           "ADFC")},
    ("ExponentialMechanismFairLearner", "n20k-d500-pos20"): EXP_CANDIDATES,
    ("FairDPClassifier", "n20k-d500-pos20"): FAIRDP_IMBALANCE,
}
FAIRDP_GAP = ("giving each group's model an equal weight in the aggregate does not narrow the gap between the "
              "groups' accuracies on this generator: 0.103 / 0.062 / 0.082 / 0.058 / 0.200 against DP-SGD's 0.111 / "
              "0.044 / 0.058 / 0.057 / 0.121 (shapes n2k / pos5 / d200 / n300k / d500, means over 5 seeds; seed 0 "
              "alone passed at n2k). The method's lever, the weight bound M, shrinks the "
              "scores toward the bias: demographic parity falls, accuracy falls and the accuracy gap grows (held-out "
              "draw, seed 11: M = 5 gave gaps 0.10-0.28 against DP-SGD's 0.00-0.10; M <= 3 the majority class on 3-4 "
              "of the 5 shapes), so no default M fixes it; choose M on validation data (dpfair_native.tuning does "
              "not take FairDP). Judged by the paper's own metric, demographic parity, it would pass on two shapes of "
              "five (reductions 13 / 30 / 7 / 3 / 34 %; bench/RESULTS.md, 'Session 22')")
NAIVE_COST = ("naive reweighting multiplies the smaller group's clipped gradients by about 1.4 and the noise with "
              "them (σ·C0·max_k θ_k); where DP-SGD's drops from the non-private model are already nearly equal (gap "
              "0.013 / 0.034 at n2k / d500, means over 5 seeds) the extra noise falls unevenly: 0.028 (0.006-0.065 a "
              "seed) / 0.041 (0.026-0.061). At d200 it passes on the mean (0.009 against 0.006; seed 0 alone missed "
              "the 0.02 allowance)")
KNOWN_FAIRNESS_FAILURES = {
    **{("FairDPClassifier", shape): FAIRDP_GAP for shape in SHAPES},
    **{("NaiveReweightedDPSGDClassifier", shape): NAIVE_COST for shape in ("n2k-d5-pos50", "n20k-d500-pos20")},
    ("DPSGDFClassifier", "n20k-d200-pos30"): "where DP-SGD's drops from the non-private model are nearly equal (gap "
                                             "0.006), DPSGD-F's noise σ₂·max_k C_k, 2.8 times DP-SGD's, raises them "
                                             "unevenly: 0.023 (0.012-0.032 a seed), above the 0.02 allowance",
    ("DPSGDFClassifier", "n20k-d500-pos20"): "the noise σ₂·max_k C_k, 2.8 times DP-SGD's (see the accuracy reason), "
                                             "raises both groups' drops from the non-private model, unevenly: 0.067 "
                                             "and 0.120 against DP-SGD's 0.016 and 0.036 (gap 0.054 against 0.021; "
                                             "means over 5 seeds: 0.067 against 0.034)",
}

# estimator -> (the disparity it targets, its unconstrained counterpart)
FAIRNESS_TARGETS = {
    "FairLogisticRegression": ("demographic_parity", "LogisticRegression"),
    "FairFunctionalMechanismLR": ("demographic_parity", "FunctionalMechanismLR"),
    "PFLR": ("demographic_parity", "FunctionalMechanismLR"),
    "PFLRStar": ("demographic_parity", "FunctionalMechanismLR"),
    "PDFC": ("demographic_parity", "FunctionalMechanismLR"),
    "ADFC": ("demographic_parity", "FunctionalMechanismLR"),
    "ConstrainedDPSGDClassifier": ("demographic_parity", "DPSGDClassifier"),
    "FairDPClassifier": ("accuracy_gap", "DPSGDClassifier"),
    "ExponentialMechanismFairLearner": ("equal_opportunity", "LogisticRegression"),
    # thesis ch. 9: equal costs of privacy, the gap between the groups' accuracy drops from the non-private model
    "DPSGDFClassifier": ("cost_of_privacy", "DPSGDClassifier"),
    "NaiveReweightedDPSGDClassifier": ("cost_of_privacy", "DPSGDClassifier"),
}
ESTIMATORS = ["LogisticRegression", "FunctionalMechanismLR", "DPSGDClassifier", *FAIRNESS_TARGETS]
NEAR_PARITY = 0.02
# required parameters without a default: a public bound the user must declare (DP needs it; no safe default exists)
REQUIRED = {"ExponentialMechanismFairLearner": {"min_group_positives": 1}}


def _synthetic(n, d, positive_rate, seed=0):
    rng = np.random.default_rng(seed)
    m = n + n // 4
    s = (rng.uniform(size=m) < 0.35).astype(np.int64)
    X = rng.uniform(0, 1, size=(m, d))
    X[:, 0] = 0.5 * X[:, 0] + 0.5 * s
    w = 4 * rng.normal(size=d) / np.sqrt(d)
    w[0] = 3.0
    z = X @ w + 0.5 * rng.normal(size=m)
    y = (z > np.quantile(z, 1 - positive_rate)).astype(np.int64)
    return (X[:n], y[:n], s[:n]), (X[n:], y[n:], s[n:])


def disparity(kind, pred, y, s, nonprivate_pred=None):
    """|rate(s = 0) − rate(s = 1)|; "cost_of_privacy" needs the non-private model's ``nonprivate_pred``."""
    if kind == "cost_of_privacy":
        return metrics.cost_of_privacy(y, pred, nonprivate_pred, sensitive_features=s).gap
    groups = (s == 0, s == 1)
    if kind == "demographic_parity":
        rates = [pred[g].mean() for g in groups]
    elif kind == "equal_opportunity":
        rates = [pred[g & (y == 1)].mean() for g in groups]
    else:  # accuracy_gap
        rates = [(pred == y)[g].mean() for g in groups]
    return abs(rates[0] - rates[1])


_FITS = {}
SEEDS = 5
"""A private estimator is judged on the mean over this many fits (random_state 0..4) of its accuracy or disparity,
and so is its counterpart: one draw is a lottery where the mean sits near a bar (at n = 2,000 and ε = 1 one seed's
accuracy moves by several points), and any change to how the noise is drawn re-draws it."""
NON_PRIVATE = ("LogisticRegression", "FairLogisticRegression")


def _fit(name, shape_id):
    """([test-set predictions of each fit], y_test, s_test) of ``name`` with its defaults on shape ``shape_id``: one
    fit per seed for the private estimators, one for the non-private ones (cached: several tests read them)."""
    key = (name, shape_id)
    if key not in _FITS:
        (X, y, s), (X_test, y_test, s_test) = _synthetic(*SHAPES[shape_id])
        cls = getattr(models, name)
        seeded = "random_state" in cls().get_params() and name not in NON_PRIVATE
        predictions = []
        for seed in range(SEEDS if seeded else 1):
            params = dict(REQUIRED.get(name, {}), **({"random_state": seed} if seeded else {}))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # e.g. the domain warning of estimators given no declared domain
                predictions.append(cls(**params).fit(X, y, sensitive_features=s).predict(X_test))
        _FITS[key] = (predictions, y_test, s_test)
    return _FITS[key]


def _accuracy(name, shape_id) -> float:
    predictions, y, _ = _fit(name, shape_id)
    return float(np.mean([np.mean(pred == y) for pred in predictions]))


def _cases(names, known_failures):
    for name in names:
        for shape_id in SHAPES:
            marks = [pytest.mark.slow] if SHAPES[shape_id][0] * SHAPES[shape_id][1] > 1e6 else []
            if (name, shape_id) in known_failures:
                marks.append(pytest.mark.xfail(strict=True, reason=known_failures[(name, shape_id)]))
            yield pytest.param(name, shape_id, marks=marks, id=f"{name}-{shape_id}")


@pytest.mark.parametrize(("name", "shape_id"), list(_cases(ESTIMATORS, KNOWN_FAILURES)))
def test_defaults_beat_the_majority_class_by_a_clear_margin(name, shape_id):
    _, y, _ = _fit(name, shape_id)
    majority = max(y.mean(), 1 - y.mean())
    fair_kind = FAIRNESS_TARGETS.get(name, ("",))[0]
    reference_name = "FairLogisticRegression" if fair_kind in ("demographic_parity", "equal_opportunity") else \
        "LogisticRegression"
    accuracy = _accuracy(name, shape_id)  # the mean over SEEDS fits
    if name in NON_PRIVATE:  # the references themselves
        assert accuracy >= majority + 0.005, (accuracy, majority)
        return
    reference = _accuracy(reference_name, shape_id)
    assert accuracy >= majority + 0.5 * (reference - majority), (accuracy, majority, reference)


@pytest.mark.parametrize(("name", "shape_id"), list(_cases(FAIRNESS_TARGETS, KNOWN_FAIRNESS_FAILURES)))
def test_fairness_aware_defaults_reduce_the_disparity_they_target(name, shape_id):
    kind, counterpart = FAIRNESS_TARGETS[name]
    predictions, y, s = _fit(name, shape_id)
    nonprivate_pred = _fit("LogisticRegression", shape_id)[0][0] if kind == "cost_of_privacy" else None
    ours, theirs = (float(np.mean([disparity(kind, p, y, s, nonprivate_pred) for p in preds]))
                    for preds in (predictions, _fit(counterpart, shape_id)[0]))  # means over SEEDS fits
    assert ours <= max(0.75 * theirs, NEAR_PARITY), (ours, theirs)
