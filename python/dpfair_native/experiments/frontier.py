"""The DP + fair frontier on the bundled Adult data: ``python -m dpfair_native reproduce frontier [--runs N]``.

Sweeps ε ∈ {0.5, 1, 2, 4, ∞} (δ = 1e-5) and the fairness bound for :class:`ConstrainedDPSGDClassifier`
(demographic parity and equalized odds) beside the existing DP + fair estimators (FairFunctionalMechanismLR,
DPSGDFClassifier, FairDPClassifier) at their library settings; 80/20 train/test split per seed (seeds 0..N−1).
ConstrainedDPSGDClassifier reads the public spline representation of the raw Adult frame
(``preprocessing.SplineEncoder(adult_spline_schema())``, the bundled 45 columns plus hat features on public knots
of the five numeric columns, as CSR), and once per ε the bundled 45 features for comparison; the others read the
bundled 45 features. Reported:
means over seeds of accuracy, ROC-AUC, demographic-parity difference and equalized-odds difference on the test
split. Times one fit of each, and fairlearn's ExponentiatedGradient (non-private; seed 0 only) in the same run
when fairlearn is installed. With ``write`` the table replaces the ``## DP + fair frontier`` section of
bench/RESULTS.md.
"""

from __future__ import annotations

import time

import numpy as np

from ._harness import PlotSpec, Report, progress, with_adult_groups

EPSILONS = (0.5, 1.0, 2.0, 4.0, float("inf"))
DELTA = 1e-5
BOUNDS = {"demographic_parity": (0.0, 0.01, 0.03), "equalized_odds": (0.0, 0.01, 0.03)}
#: ConstrainedDPSGDClassifier's settings beyond its library defaults, per constraint, chosen at ε = 1 on the
#: training splits only (never the test split): each training split is cut into a fit part and a validation part
#: (20 %, random_state 100 + seed). Equalized odds: η_λ on the validation parts of seeds 0-4. Demographic parity
#: (bound 0): a first sweep on seeds 0-4 (η_λ ∈ {3, 6, 12}, average_last ∈ {0.2, 0.5}, epochs ∈ {20, 30},
#: ema ∈ {0.1, 0.3}, temperature ∈ {0.5, 1}) found nothing separable; then over seeds 0-9 the settings with mean
#: validation accuracy >= 0.83 and ROC-AUC >= 0.87 among ema ∈ {0.03, 0.05, 0.1, 0.2, 0.3, 0.4, 0.6},
#: hist_noise_ratio ∈ {1, 1.5, 3, 5}, η_λ ∈ {1, 2, 3, 5, 6, 8}, batch ∈ {512, 1024}, epochs ∈ {20, 30},
#: average_last ∈ {0.5, 0.8} (not the full product) had validation DP differences of 0.0101-0.0175,
#: within the sampling error of 7,200-row validation parts (a fair model measures ≈ 0.0095 there), so they were
#: ranked by the fit part's own DP difference — how tightly the constraint holds on the rows it was trained on
#: (0.0060 at the old setting ema 0.1, r 3; 0.0020-0.0028 at ema >= 0.3) — and the mean signed validation gap
#: (+0.0088 → +0.0041); ema 0.4 with r 1.5 (fresher rates, a larger share of the budget on the histogram) won.
DP_TUNING = ("demographic parity: ema 0.4, hist_noise_ratio 1.5, dual_learning_rate 3 chosen on fit/validation "
             "parts (20 %) of the training splits of seeds 0-9 at ε = 1 — validation DP differences of all "
             "candidates were within sampling error (0.0101-0.0175), so the fit part's DP difference (0.0060 → "
             "0.0022) and the mean signed validation gap (+0.0088 → +0.0041) decided; equalized odds: "
             "dual_learning_rate 1 on validation parts of seeds 0-4")
#: center=False (both constraints): the private feature centering that is the library default since session 6
#: was measured on the validation parts (20 %) of the training splits of seeds 0-9 at ε = 1 with these settings:
#: demographic parity accuracy 0.8305 → 0.8318, DP difference 0.0119 → 0.0126; equalized odds accuracy 0.8402 →
#: 0.8427, EO difference 0.0302 → 0.0365 (a one-off run before the estimator option existed: the same release,
#: σ_μ = 20, C_μ = √d, on the dense spline features, budget not deducted) — a little accuracy for a worse EO gap,
#: so these rows keep the uncentered loop the other settings were tuned with.
CENTER_NOTE = ("center=False for ConstrainedDPSGD (the centering default was measured on the same validation parts: "
               "EO difference 0.0302 → 0.0365 for +0.0025 accuracy, DP 0.0119 → 0.0126 for +0.0013)")
CONSTRAINED_PARAMS: dict = {"demographic_parity": dict(dual_learning_rate=3.0, ema=0.4, hist_noise_ratio=1.5,
                                                       center=False),
                            "equalized_odds": dict(dual_learning_rate=1.0, center=False)}
#: The other DP-SGD-family estimators as the FairDP reproduction runs them (learning rate 1, C = 1, uncentered).
DPSGDF_PARAMS = dict(batch_size=256, epochs=20, clip_norm=1.0, learning_rate=1.0, declared_groups=[0, 1],
                     center=False)
FAIRDP_PARAMS = dict(sample_rate=0.01, epochs=5, clip_norm=1.0, learning_rate=1.0, n_models=10, weight_bound=2.0,
                     declared_groups=[0, 1], center=False)
ANCHORS = ("Anchors (Adult, ε = 1, δ = 1e-5 where private): RaCO-DP (Yaghini et al., ICLR 2026) accuracy 0.828, "
           "DP difference 0.004; fairlearn ExponentiatedGradient (non-private) 0.828 / 0.003 (as quoted in issue 12).")
HEADER = "## DP + fair frontier"
#: How much of a test-split difference is sampling noise (computed from the public group and label shares of the
#: bundled file, not from any fitted model): with about 2,940 Female and 6,100 Male rows in a 9,045-row test split,
#: a classifier with no population gap and a positive rate near 0.18 shows a DP difference of mean ≈ 0.007; its
#: TPR gap rests on about 330 Female positives, so at TPR 0.6 and FPR 0.07 its EO difference has mean ≈ 0.024
#: (binomial simulation).
NOISE_FLOOR = ("Sampling floor of the test split (no population gap): DP difference ≈ 0.007, EO difference ≈ 0.024 "
               "(about 330 Female positives carry the TPR gap), so the DP and EO targets sit 0.003 and 0.006 above "
               "what a perfectly fair model measures on average.")


def _models(eps, seed, domain):
    """(label, bound, estimator, uses the spline features) of every cell at one ε."""
    from ..models import ConstrainedDPSGDClassifier, DPSGDFClassifier, FairDPClassifier, FairFunctionalMechanismLR

    private = np.isfinite(eps)
    out = []
    for constraint, bounds in BOUNDS.items():
        for bound in bounds:
            kw = dict(target_epsilon=eps, delta=DELTA) if private else dict(target_epsilon=None, noise_multiplier=0.0)
            est = ConstrainedDPSGDClassifier(constraint=constraint, bound=bound, random_state=seed,
                                             **CONSTRAINED_PARAMS[constraint], **kw)
            out.append((f"ConstrainedDPSGD {constraint}", bound, est, True))
    est = ConstrainedDPSGDClassifier(bound=0.0, random_state=seed, **CONSTRAINED_PARAMS["demographic_parity"], **kw)
    out.append(("ConstrainedDPSGD demographic_parity (45 features)", 0.0, est, False))
    fm = FairFunctionalMechanismLR(epsilon=eps if private else np.inf, delta=DELTA, domain=domain, random_state=seed)
    out.append(("FairFunctionalMechanismLR (τ default)", None, fm, False))
    kw = dict(target_epsilon=eps, delta=DELTA) if private else dict(noise_multiplier=0.0)
    out.append(("DPSGDFClassifier", None, DPSGDFClassifier(random_state=seed, **DPSGDF_PARAMS, **kw), False))
    out.append(("FairDPClassifier (M = 2)", None, FairDPClassifier(random_state=seed, **FAIRDP_PARAMS, **kw), False))
    return out


def spline_features():
    """The public spline representation of the raw Adult frame (CSR) and its number of columns."""
    from ..datasets import load_adult
    from ..preprocessing import SplineEncoder, adult_spline_schema

    X = SplineEncoder(adult_spline_schema(), sparse_output=True).fit_transform(load_adult(as_frame=True))
    return X, X.shape[1]


def _metrics(model, X, y, s):
    from .. import metrics

    score = model.decision_function(X)
    pred = (score > 0).astype(np.int64)
    return [
        metrics.accuracy(y, pred),
        metrics.roc_auc(y, score),
        metrics.demographic_parity_difference(y, pred, sensitive_features=s),
        metrics.equalized_odds_difference(y, pred, sensitive_features=s),
    ]


def evaluate(runs):
    """{(label, bound, eps): {"m": (runs, 4) metrics, "t": fit seconds, "eps_spent": [...]}}."""
    from ..datasets import load_adult, train_test_split
    from ..domain import FeatureDomain

    ds = load_adult()
    domain = FeatureDomain.from_dataset(ds)
    X_spline, _ = spline_features()
    cells = {}
    for seed in progress(range(runs), desc="frontier, seeds"):
        tr, te = train_test_split(np.arange(ds.y.shape[0]), test_size=0.2, random_state=seed)
        y_tr, y_te, s_tr, s_te = ds.y[tr], ds.y[te], ds.sensitive[tr], ds.sensitive[te]
        for eps in EPSILONS:
            for label, bound, model, spline in _models(eps, seed, domain):
                X_tr, X_te = (X_spline[tr], X_spline[te]) if spline else (ds.X[tr], ds.X[te])
                t0 = time.perf_counter()
                try:
                    with_adult_groups(model).fit(X_tr, y_tr, sensitive_features=s_tr)
                except ValueError as exc:  # e.g. an estimator without a non-private mode
                    cells.setdefault((label, bound, eps), {"error": str(exc)})
                    continue
                seconds = time.perf_counter() - t0
                cell = cells.setdefault((label, bound, eps), {"m": [], "t": [], "eps_spent": []})
                cell["m"].append(_metrics(model, X_te, y_te, s_te))
                cell["t"].append(seconds)
                cell["eps_spent"].append(model.privacy_spent_[0])
    return cells


def exponentiated_gradient(seed=0):
    """fairlearn ExponentiatedGradient (LogisticRegression, bound 0.01) for DP and EO on one split: metrics + time."""
    try:
        from fairlearn.reductions import DemographicParity, EqualizedOdds, ExponentiatedGradient
        from sklearn.linear_model import LogisticRegression
    except ImportError:
        return None
    from .. import metrics
    from ..datasets import load_adult, train_test_split

    ds = load_adult()
    X_tr, X_te, y_tr, y_te, s_tr, s_te = train_test_split(ds.X, ds.y, ds.sensitive, test_size=0.2, random_state=seed)
    out = {}
    for name, cons in (("demographic_parity", DemographicParity(difference_bound=0.01)),
                       ("equalized_odds", EqualizedOdds(difference_bound=0.01))):
        eg = ExponentiatedGradient(LogisticRegression(max_iter=1000), cons)
        t0 = time.perf_counter()
        eg.fit(X_tr, y_tr, sensitive_features=s_tr)
        seconds = time.perf_counter() - t0
        pred = eg.predict(X_te, random_state=seed)
        out[name] = dict(seconds=seconds, acc=metrics.accuracy(y_te, pred),
                         dp=metrics.demographic_parity_difference(y_te, pred, sensitive_features=s_te),
                         eo=metrics.equalized_odds_difference(y_te, pred, sensitive_features=s_te))
    return out


def _fmt_eps(eps):
    return "∞" if not np.isfinite(eps) else f"{eps:g}"


def format_table(cells, runs):
    lines = ["| model | bound | ε | accuracy | ROC-AUC | DP difference | EO difference | ε spent | fit s (median) |",
             "|---|---|---|---|---|---|---|---|---|"]
    for (label, bound, eps), cell in cells.items():
        b = "—" if bound is None else f"{bound:g}"
        if "error" in cell:
            lines.append(f"| {label} | {b} | {_fmt_eps(eps)} | n/a: {cell['error'][:60]} | | | | | |")
            continue
        m = np.asarray(cell["m"])
        mean, std = m.mean(axis=0), m.std(axis=0)
        spent = np.mean(cell["eps_spent"])
        lines.append(
            f"| {label} | {b} | {_fmt_eps(eps)} | " + " | ".join(f"{mean[j]:.4f} ± {std[j]:.4f}" for j in range(4))
            + f" | {'∞' if not np.isfinite(spent) else f'{spent:.3f}'} | {np.median(cell['t']):.3f} |"
        )
    return "\n".join(lines)


def targets_text(cells):
    """Issue 12's targets at ε = 1 against the measured means of every ConstrainedDPSGD cell (spline features)."""
    lines = ["Targets at ε = 1 (issue 12): DP — accuracy ≥ 0.828, DP difference ≤ 0.01, ROC-AUC ≥ 0.87; "
             "EO — accuracy ≥ 0.83, EO difference ≤ 0.03. Measured means:"]
    for constraint, bounds in BOUNDS.items():
        for bound in bounds:
            cell = cells.get((f"ConstrainedDPSGD {constraint}", bound, 1.0), {})
            if "m" not in cell:
                continue
            acc, auc, dp, eo = np.mean(cell["m"], axis=0)
            if constraint == "demographic_parity":
                ok = acc >= 0.828 and dp <= 0.01 and auc >= 0.87
                verdict = "met" if ok else "not met"
                lines.append(f"DP bound {bound:g}: {acc:.4f} / {dp:.4f} / AUC {auc:.4f} ({verdict});")
            else:
                ok = acc >= 0.83 and eo <= 0.03
                lines.append(f"EO bound {bound:g}: {acc:.4f} / {eo:.4f} ({'met' if ok else 'not met'});")
    return " ".join(lines)


#: ``--plot``: accuracy against demographic parity and against equalized odds (one panel each, so that each
#: constraint is read on its own metric) over ε, one series per estimator and constraint bound.
PLOT = PlotSpec("frontier", {"fairness": ("demographic_parity_difference", "equalized_odds_difference"),
                             "title": "Adult: DP + fair frontier over ε and constraint bounds"})


def _points(cells):
    """(label, bound, ε) -> {"m": per-seed [accuracy, ROC-AUC, DP diff, EO diff]} cells as frontier points."""
    points = []
    for (label, bound, eps), cell in cells.items():
        if "m" not in cell:
            continue  # a cell whose fit raised (the table says why)
        mean = np.asarray(cell["m"], dtype=np.float64).mean(axis=0)
        name = label if bound is None else f"{label}, bound {bound:g}"
        points.append({"name": name, "epsilon": float(eps), "accuracy": float(mean[0]),
                       "demographic_parity_difference": float(mean[2]), "equalized_odds_difference": float(mean[3])})
    return points


def _timing(cells, eg) -> str:
    key = ("ConstrainedDPSGD demographic_parity", 0.0, 1.0)
    if key not in cells or "t" not in cells[key]:
        return ""
    t = np.asarray(cells[key]["t"])
    text = (f"ConstrainedDPSGDClassifier fit at ε = 1 (demographic parity): min {t.min():.3f} s, median "
            f"{np.median(t):.3f} s over {t.size} seeds")
    if not eg:
        return text + "."
    eg_seconds = eg["demographic_parity"]["seconds"]
    return text + f"; ExponentiatedGradient DP fit {eg_seconds:.1f} s → {eg_seconds / np.median(t):.0f}× (median)."


def section_text(table, eg, runs, timing, cells):
    eg_lines = "fairlearn not installed: ExponentiatedGradient not measured."
    if eg:
        eg_lines = ("fairlearn ExponentiatedGradient(LogisticRegression, difference_bound=0.01), non-private, seed 0, "
                    "same run: " + "; ".join(
                        f"{k}: accuracy {v['acc']:.4f}, DP difference {v['dp']:.4f}, EO difference {v['eo']:.4f}, "
                        f"fit {v['seconds']:.1f} s" for k, v in eg.items()) + ".")
    return (
        f"{HEADER}\n\n"
        f"Adult (bundled), 80/20 split per seed (seeds 0..{runs - 1}), δ = 1e-5, mean ± std over seeds on the "
        "test split; differences are max − min over Female/Male (EO: the larger of the TPR and FPR gaps). "
        "ε = ∞: the same estimators without noise.\n\n"
        f"{ANCHORS}\n\n{eg_lines}\n\n{timing}\n\n"
        "Representation: ConstrainedDPSGD rows read the public spline features of the raw Adult frame "
        "(`SplineEncoder(adult_spline_schema())`: the bundled 45 columns plus hat features on fixed, data-independent "
        "knots of age, education-num, hours-per-week, capital-gain and capital-loss; 103 columns, CSR), except the "
        "row marked '45 features'; the other estimators read the bundled 45 features.\n\n"
        "Hyper-parameters: ConstrainedDPSGDClassifier runs at its library defaults (chosen on a validation part of "
        "seed 0's training split, see models/constrained.py) plus, per constraint, "
        f"{CONSTRAINED_PARAMS} ({DP_TUNING}; {CENTER_NOTE}); only "
        f"`constraint`, `bound` and ε vary; DPSGD-F {DPSGDF_PARAMS}; FairDP {FAIRDP_PARAMS}; FairFM its library "
        "defaults — none tuned on test data.\n\n"
        f"{targets_text(cells)} {NOISE_FLOOR}\n\n"
        f"{table}\n"
    )


def report(runs=None) -> Report:
    """The frontier sweep (``runs`` seeds, default 10), the ExponentiatedGradient anchor, and the plot points."""
    runs = 10 if runs is None else int(runs)
    cells = evaluate(runs)
    eg = exponentiated_gradient()
    text = section_text(format_table(cells, runs), eg, runs, _timing(cells, eg), cells)
    return Report(text, _points(cells))
