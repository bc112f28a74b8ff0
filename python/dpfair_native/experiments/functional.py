"""Reproduce Xu et al. (2019) Tables 1/2 and Ding et al. (2020) Table 2 on the bundled Adult (80/20 split).

For every row: accuracy, ROC-AUC and risk difference (mean ± std over ``runs`` seeds; seed r sets both the
split and the noise), in both modes (paper-faithful / library default). The majority-class accuracy of the
test split is printed beside: a constant "<= 50K" model scores it with RD 0 and AUC 0.5.
"""

from __future__ import annotations

import math

import numpy as np

from ._harness import PlotSpec, Report, progress, with_adult_groups

# The papers' numbers (mean, std): Xu et al. Table 2 (Adult) / Table 1, Ding et al. Table 2 (Adult, RD only).
XU_PAPER = {
    ("LR", 1.0): ((0.8380, 0.0023), (0.1577, 0.0064)),
    ("FairLR", 1.0): ((0.7739, 0.0521), (0.0095, 0.0071)),
    ("PrivLR", 0.1): ((0.6263, 0.1480), (0.0883, 0.0805)),
    ("PrivLR", 1.0): ((0.7238, 0.0612), (0.0502, 0.0581)),
    ("PrivLR", 10.0): ((0.7270, 0.0877), (0.1459, 0.0798)),
    ("PrivLR", 100.0): ((0.8295, 0.0032), (0.1624, 0.0116)),
    ("PFLR", 0.1): ((0.6172, 0.1187), (0.0351, 0.0493)),
    ("PFLR", 1.0): ((0.7400, 0.0182), (0.0213, 0.0258)),
    ("PFLR", 10.0): ((0.7631, 0.0155), (0.0338, 0.0255)),
    ("PFLR", 100.0): ((0.7835, 0.0318), (0.0332, 0.0243)),
    ("PFLR*", 0.1): ((0.7491, 0.0040), (0.0028, 0.0039)),
    ("PFLR*", 1.0): ((0.7552, 0.0092), (0.0053, 0.0070)),
    ("PFLR*", 10.0): ((0.7632, 0.0093), (0.0204, 0.0140)),
    ("PFLR*", 100.0): ((0.7913, 0.0200), (0.0234, 0.0189)),
}
DING_PAPER = {
    ("LR", e): (0.187, 0.049) for e in (0.01, 0.1, 1.0, 10.0)
}
DING_PAPER.update({
    ("PFLR*", 0.01): (0.045, 0.095), ("PFLR*", 0.1): (0.004, 0.009), ("PFLR*", 1.0): (0.022, 0.088),
    ("PFLR*", 10.0): (0.003, 0.001),
    ("PDFC", 0.01): (0.048, 0.108), ("PDFC", 0.1): (0.005, 0.022), ("PDFC", 1.0): (0.002, 0.011),
    ("PDFC", 10.0): (0.035, 0.041),
    ("ADFC", 0.01): (0.146, 0.131), ("ADFC", 0.1): (0.068, 0.028), ("ADFC", 1.0): (0.045, 0.027),
    ("ADFC", 10.0): (0.019, 0.003),
})
XU_EPS = (0.1, 1.0, 10.0, 100.0)
DING_EPS = (0.01, 0.1, 1.0, 10.0)
DING_DELTA = 1e-3
DEFAULT_DELTA = 1e-5  # library-default (ε, δ) rows of the Xu table / the target row
X_S_NAME = "race=White"  # Ding et al. use race as x_s on Adult


def _models(name, eps, faithful, domain, x_s, seed, ding=False):
    from ..models.ding import ADFC, PDFC
    from ..models.functional import PFLR, FairFunctionalMechanismLR, FunctionalMechanismLR, PFLRStar
    from ..models.logistic import FairLogisticRegression, LogisticRegression

    kw = dict(random_state=seed)
    lib = {} if faithful else {"domain": domain}
    if name == "LR":
        return LogisticRegression()
    if name == "FairLR":
        return FairLogisticRegression(tau=0.0)
    if name == "PrivLR":
        return FunctionalMechanismLR(epsilon=eps, paper_faithful=faithful, **lib, **kw)
    if name == "PrivLR-Gauss":
        return FunctionalMechanismLR(epsilon=eps, mechanism="gaussian", delta=DEFAULT_DELTA, **lib, **kw)
    if name.startswith("FairFM-Gauss"):
        extra = {"tau": float(name.split("tau=")[1])} if "tau=" in name else {}  # else the library default
        return FairFunctionalMechanismLR(epsilon=eps, delta=DEFAULT_DELTA, **extra, **lib, **kw)
    if name == "PFLR":
        return PFLR(epsilon=eps, paper_faithful=faithful, **lib, **kw)
    if name == "PFLR*":
        return PFLRStar(epsilon=eps, objective_fraction=0.5, paper_faithful=faithful, **lib, **kw)
    attr = x_s if faithful else X_S_NAME
    if faithful:
        # the paper's claimed ε = ε_s/d + (d−1)ε_n/d equals the row's ε with ε_s = ε/2
        d = domain.d
        eps_s = eps / 2
        eps_n = (eps - eps_s / d) * d / (d - 1)
    else:
        eps_s, eps_n = eps / 2, eps / 2  # rigorous ε_s + ε_n = ε
    if name == "PDFC":
        return PDFC(epsilon_s=eps_s, epsilon_n=eps_n, attribute=attr, paper_faithful=faithful, **lib, **kw)
    if name == "ADFC":
        delta = DING_DELTA if ding else DEFAULT_DELTA
        if faithful:  # the paper's δ = 1 − (1 − δ_s)(1 − δ_n) equals δ with δ_s = δ_n
            ds = 1.0 - math.sqrt(1.0 - delta)
        else:
            ds = delta / 2
        return ADFC(epsilon_s=eps_s, delta_s=ds, epsilon_n=eps_n, delta_n=ds, attribute=attr,
                    paper_faithful=faithful, **lib, **kw)
    raise ValueError(name)


def _evaluate(name, eps, faithful, runs, data, ding=False):
    from .. import metrics

    ds, domain, x_s, splits = data
    rows = []
    spent = None
    for seed in range(runs):
        Xtr, Xte, ytr, yte, str_, ste = splits[seed]
        m = _models(name, eps, faithful, domain, x_s, seed, ding=ding)
        with_adult_groups(m).fit(Xtr, ytr, sensitive_features=str_)
        pred = m.predict(Xte)
        score = m.decision_function(Xte)
        rows.append((
            metrics.accuracy(yte, pred),
            metrics.roc_auc(yte, score),
            metrics.demographic_parity_difference(yte, pred, sensitive_features=ste),
            max(np.mean(yte), 1 - np.mean(yte)),
        ))
        spent = (m.privacy_spent_, getattr(m, "epsilon_claimed_", None))
    r = np.array(rows)
    return r.mean(0), r.std(0), spent


def _fmt(mean, std):
    return f"{mean:.4f} ± {std:.4f}"


#: ``--plot``: accuracy against risk difference of the Xu et al. table's rows, one series per method and mode.
PLOT = PlotSpec("frontier", {"title": "Adult: Xu et al. (2019) table rows, accuracy vs risk difference over ε"})


def report(runs=None) -> Report:
    """The three tables (``runs`` seeds per cell, default 10) and the Xu table's rows for the frontier plot."""
    from ..datasets import load_adult, train_test_split
    from ..domain import FeatureDomain

    runs = 10 if runs is None else int(runs)
    ds = load_adult()
    domain = FeatureDomain.from_dataset(ds)
    x_s = ds.feature_names.index(X_S_NAME)
    splits = [train_test_split(ds.X, ds.y, ds.sensitive, test_size=0.2, random_state=s) for s in range(runs)]
    data = (ds, domain, x_s, splits)
    lines = ["## Functional mechanism: reproduction", ""]
    out = lines.append
    out(f"Adult (bundled, {ds.X.shape[0]} rows, d = {ds.X.shape[1]}), 80/20 split, {runs} seeds "
        "(seed r: split r and noise r); mean ± std on the test split. RD = risk difference (demographic parity "
        "difference). 'faithful' = paper_faithful=True; 'default' = library default (domain = "
        "FeatureDomain.from_dataset(Adult), intercept, ridge + trim, exact constraint |μ̃ᵀw| <= tau; tau = 0.1 "
        "except FairFunctionalMechanismLR's default 0.0625).")
    out("")
    points = _xu_table(runs, data, out)
    _ding_table(runs, data, out)
    _default_table(runs, data, out)
    lines += NOTES
    return Report("\n".join(lines), points)


def _xu_table(runs, data, out):
    """Xu et al. Tables 1/2 layout; returns its rows as plot points (method, ε, accuracy, RD)."""
    points = []
    out("### Xu et al. (2019) Tables 1/2 layout (ε-DP, Laplace; PFLR* with ε_f = ε/2)")
    out("")
    out("| method | ε | mode | accuracy | ROC-AUC | RD | majority acc. | privacy_spent_ | paper acc. | paper RD |")
    out("|---|---|---|---|---|---|---|---|---|---|")
    table = [("LR", 1.0, [None]), ("FairLR", 1.0, [None])]
    table += [(m, e, [True, False]) for m in ("PrivLR", "PFLR", "PFLR*") for e in XU_EPS]
    for name, eps, modes in progress(table, desc="Xu et al. table"):
        for faithful in modes:
            mean, std, spent = _evaluate(name, eps, bool(faithful), runs, data)
            label = name if faithful is None else f"{name} ({'faithful' if faithful else 'default'})"
            points.append({"name": label, "epsilon": eps if faithful is not None else np.inf, "accuracy": mean[0],
                           "demographic_parity_difference": mean[2]})
            paper = XU_PAPER.get((name, eps))
            pa = _fmt(*paper[0]) if paper else "–"
            pr = _fmt(*paper[1]) if paper else "–"
            mode = "–" if faithful is None else ("faithful" if faithful else "default")
            eps_txt = "∞" if faithful is None else f"{eps:g}"
            sp = f"({spent[0][0]:.3g}, {spent[0][1]:.0e})" if np.isfinite(spent[0][0]) else "(inf, 0)"
            out(f"| {name} | {eps_txt} | {mode} | {_fmt(mean[0], std[0])} | {_fmt(mean[1], std[1])} | "
                f"{_fmt(mean[2], std[2])} | {mean[3]:.4f} | {sp} | {pa} | {pr} |")
    out("")
    return points


def _ding_table(runs, data, out):
    """Ding et al. Table 2 layout (RD first), faithful and default modes."""
    out(f"### Ding et al. (2020) Table 2 layout (Adult, δ = {DING_DELTA:g}; x_s = {X_S_NAME}; faithful rows use the "
        "paper's ε = ε_s/d + (d−1)ε_n/d with ε_s = ε/2, default rows ε_s = ε_n = ε/2)")
    out("")
    out("| method | ε | mode | RD | accuracy | ROC-AUC | majority acc. | privacy_spent_ (rigorous) | ε claimed "
        "| paper RD |")
    out("|---|---|---|---|---|---|---|---|---|---|")
    ding = [(name, eps) for name in ("PFLR*", "PDFC", "ADFC") for eps in DING_EPS]
    for name, eps in progress(ding, desc="Ding et al. table"):
        for faithful in (True, False):
            mean, std, spent = _evaluate(name, eps, faithful, runs, data, ding=True)
            paper = DING_PAPER.get((name, eps))
            claimed = "–" if spent[1] is None else f"{spent[1]:.3g}"
            out(f"| {name} | {eps:g} | {'faithful' if faithful else 'default'} | {_fmt(mean[2], std[2])} | "
                f"{_fmt(mean[0], std[0])} | {_fmt(mean[1], std[1])} | {mean[3]:.4f} | "
                f"({spent[0][0]:.3g}, {spent[0][1]:.1e}) | {claimed} | {_fmt(*paper)} |")
    out("")


def _default_table(runs, data, out):
    """The library-default (ε, δ) estimators at ε = 1 and the target check on FairFunctionalMechanismLR."""
    out(f"### Library-default (ε, δ) estimators at ε = 1, δ = {DEFAULT_DELTA:g} (target: acc >= 0.80, AUC >= 0.85, "
        "RD <= 0.03)")
    out("")
    out("| method | accuracy | ROC-AUC | RD | privacy_spent_ |")
    out("|---|---|---|---|---|")
    target = None
    for name in progress(("PrivLR-Gauss", "FairFM-Gauss", "FairFM-Gauss tau=0.1", "ADFC"), desc="default rows"):
        mean, std, spent = _evaluate(name, 1.0, False, runs, data)
        label = "FairFM-Gauss (default tau)" if name == "FairFM-Gauss" else name
        out(f"| {label} | {_fmt(mean[0], std[0])} | {_fmt(mean[1], std[1])} | {_fmt(mean[2], std[2])} | "
            f"({spent[0][0]:.3g}, {spent[0][1]:.0e}) |")
        if name == "FairFM-Gauss":
            target = mean
    out("")
    met = target[0] >= 0.80 and target[1] >= 0.85 and target[2] <= 0.03
    out(f"Target {'met' if met else 'NOT met'} by FairFunctionalMechanismLR (library default): accuracy "
        f"{target[0]:.4f}, ROC-AUC {target[1]:.4f}, RD {target[2]:.4f} (means over {runs} seeds).")
    out("")


NOTES = [
    "Notes (written by the reproduction; the numbers above are this run's):",
    "- Library default of FairFunctionalMechanismLR, and how each choice was made without the test split: one",
    "  Gaussian release (replace-one, analytic σ) of the Taylor coefficients with weight β = 2 on the linear part",
    "  and the per-group sums/counts with weight ω = 4 (weight = noise multiplier; that part's sensitivity is",
    "  divided by it). Post-processing with public facts of the domain: one-hot columns never co-occur (those",
    "  Q entries are 0), x_j² = x_j makes Q_jj and Q_jd one number released twice (inverse-variance average),",
    "  Q_dd = n/8 (n public); then positive-part James–Stein shrinkage, with the public noise variance, of the",
    "  cross entries of Q̃ and of b̃ toward their values under independence. Ridge 0.15 × the noise's spectral",
    "  scale, eigenvalue trimming, and the constraint |μ̃ᵀw| <= tau with tau = 0.0625, the largest of",
    "  {0.05, 0.0625, 0.075, 0.1} whose validation RD was <= 0.03. β, ω, the ridge factor (0.15 / 0.3 / 0.6),",
    "  the shrinkage and tau were compared on validation splits of the training portion only (train' 75% /",
    "  val 25% of each seed's training split, seeds 0-9).",
    "- The post-processing of Q̃ and b̃ (structural repair + shrinkage) applies to every library-default row; it",
    "  uses only the release, its public noise scales, the domain and n, so privacy_spent_ is unchanged. The",
    "  other library-default estimators keep ridge 0.3 × the spectral scale and tau = 0.1.",
    "- A least-squares/Chebyshev degree-2 fit of log(1 + e^z) on a bounded range keeps the linear coefficient ½",
    "  (log(1 + e^z) − z/2 is even) and only lowers the quadratic one; without the constraint that rescales w and",
    "  leaves predictions unchanged, with it it is the same as another tau and noise split (β), so those choices",
    "  cover it.",
    "- Faithful PrivLR/PFLR: close to the papers at ε <= 1 in accuracy (near the majority class 0.755, AUC",
    "  ~0.5-0.7: mostly constant models). Faithful PFLR* does not replicate: the paper's full-weight shift μ",
    "  (oriented to lower the covariance) overshoots (noiseless RD ≈ 0.3, the other group favoured); the paper's",
    "  0.75 / RD 0.005 rows equal a near-constant model. The constraint form (default) has neither problem.",
    "- Ding et al.: the papers' ε = ε_s/d + (d−1)ε_n/d is not a bound; privacy_spent_ reports ε_s + ε_n (1.51× the",
    "  claim with ε_s = ε/2). Their small-RD rows at ε <= 0.1 are majority-class models here too "
    "(accuracy ≈ 0.755).",
    "- FairLR (Zafar, |cov| <= 0, exact logistic loss) gives ≈ 0.832 / RD ≈ 0.038 here, "
    "not the paper's 0.774 / 0.0095.",
]
