"""Reproduce the thesis' ch. 4 tables (4.3–4.5 categorical, 4.8–4.10 numerical): skeleton TPR / FPR / TDR (+ F1).

Setup (§4.6): random DAGs with p nodes and sparseness s, n records, τ = α = 0.01; one cell = the mean over
``runs`` random graphs (seed r draws graph r, its data and the private noise). Categorical graphs: 2–5 categories,
Dirichlet(1) CPT rows (the thesis used TETRAD; its CPT recipe is not given). Gaussian graphs: weights uniform
in ±[0.1, 1], unit noise (pcalg style). PrivPC* is given each column's population standard deviation from the
generating model as its public scale (what a data owner would declare from domain knowledge), zero centre, and
the default clip ‖x‖₂ <= √p. LapMech refuses tables above 2^24 cells (marked "infeasible").
All estimators use the library defaults (PrivPC: distance score, one subset exponential mechanism per order,
orders 0–2, the "auto" budget schedule and the shifted test threshold; LapMech: replace-one Laplace(2/ε));
non-private PC has no order limit.
"""

from __future__ import annotations

import time

import numpy as np

from . import privpc_adult
from ._harness import PlotSpec, Report, progress

#: ``--plot``: skeleton F1 against ε of every method (Tables 4.3 and 4.8; LapMech where it is feasible).
PLOT = PlotSpec("curves", {"y": "f1", "ylabel": "skeleton F1", "title": "Private PC vs ε (thesis Tables 4.3 / 4.8)"})

# Thesis numbers: (TPR, FPR, TDR) per method.
THESIS_CAT = {
    ("eps", 10): {"PC": (1.000, .006, .980), "LapMech": (.862, .011, .960), "PrivPC": (.896, .006, .980)},
    ("eps", 5): {"PC": (1.000, .006, .980), "LapMech": (.742, .012, .960), "PrivPC": (.873, .006, .980)},
    ("eps", 3): {"PC": (1.000, .006, .980), "LapMech": (.748, .018, .940), "PrivPC": (.841, .017, .940)},
    ("eps", 1): {"PC": (1.000, .006, .980), "LapMech": (.613, .105, .640), "PrivPC": (.817, .073, .740)},
    ("p", 5): {"PC": (1.000, .025, .933), "LapMech": (1.000, .025, .933), "PrivPC": (1.000, .025, .933)},
    ("p", 10): {"PC": (1.000, .011, .960), "LapMech": (.738, .035, .880), "PrivPC": (.884, .023, .920)},
    ("p", 15): {"PC": (.990, .019, .926), "LapMech": (.455, .181, .227), "PrivPC": (.815, .053, .798)},
    ("n", 10000): {"PC": (1.000, .006, .980), "LapMech": (.742, .012, .960), "PrivPC": (.873, .006, .980)},
    ("n", 5000): {"PC": (1.000, .011, .960), "LapMech": (.738, .035, .880), "PrivPC": (.884, .023, .920)},
    ("n", 3000): {"PC": (.982, .011, .960), "LapMech": (.812, .050, .820), "PrivPC": (.894, .045, .840)},
    ("n", 1000): {"PC": (1.000, .049, .820), "LapMech": (.836, .140, .440), "PrivPC": (.812, .101, .620)},
}
THESIS_NUM = {
    ("eps", 10): {"PC": (.975, .094, .851), "PrivPC*": (.975, .094, .851)},
    ("eps", 1): {"PC": (.975, .094, .851), "PrivPC*": (.975, .087, .865)},
    ("eps", 0.1): {"PC": (.975, .094, .851), "PrivPC*": (.789, .187, .688)},
    ("eps", 0.01): {"PC": (.975, .094, .851), "PrivPC*": (.516, .373, .113)},
    ("n", 10000): {"PC": (.975, .094, .851), "PrivPC*": (.975, .087, .865)},
    ("n", 1000): {"PC": (1.000, .140, .746), "PrivPC*": (.932, .196, .632)},
    ("n", 100): {"PC": (1.000, .255, .463), "PrivPC*": (.433, .372, .081)},
    ("p", 10): {"PC": (.975, .094, .851), "PrivPC*": (.975, .087, .865)},
    ("p", 20): {"PC": (.886, .299, .388), "PrivPC*": (.853, .297, .401)},
}

CAT_TABLES = [
    ("4.3", "eps", [1, 3, 5, 10], dict(eps=5, n=10000, p=10, s=0.2)),
    ("4.4", "p", [5, 10, 15], dict(eps=5, n=5000, p=10, s=0.2)),
    ("4.5", "n", [1000, 3000, 5000, 10000], dict(eps=5, n=5000, p=10, s=0.2)),
]
NUM_TABLES = [
    ("4.8", "eps", [0.01, 0.1, 1, 10], dict(eps=1, n=10000, p=10, s=0.4)),
    ("4.9", "n", [100, 1000, 10000], dict(eps=1, n=10000, p=10, s=0.4)),
    ("4.10", "p", [10, 20], dict(eps=1, n=10000, p=10, s=0.4)),
]


def _population_std(bn) -> np.ndarray:
    p = bn.n_nodes
    W = np.zeros((p, p))
    for v, ps in enumerate(bn.parents):
        W[ps, v] = bn.coefficients[v]
    M = np.linalg.inv(np.eye(p) - W)  # x = M^T e
    cov = M.T @ np.diag(bn.variances) @ M
    return np.sqrt(np.diag(cov))


def _scores(graph, ref):
    s = graph.scores(ref)
    return [s.tpr, s.fpr, s.tdr, s.f1]


def run_categorical(setting, runs):
    from ..causal import PC, LapMechPC, PrivPC, random_categorical_network

    out = {"PC": [], "LapMech": [], "PrivPC": []}
    times = {"LapMech": [], "PrivPC": []}
    for r in range(runs):
        bn = random_categorical_network(setting["p"], setting["s"], random_state=1000 + r)
        X = bn.sample(setting["n"], random_state=2000 + r)
        ref = bn.adjacency
        out["PC"].append(_scores(PC().fit(X, n_categories=bn.n_categories).graph_, ref))
        t = time.perf_counter()
        m = PrivPC(epsilon=setting["eps"], random_state=3000 + r).fit(X, n_categories=bn.n_categories)
        times["PrivPC"].append(time.perf_counter() - t)
        out["PrivPC"].append(_scores(m.graph_, ref))
        try:
            t = time.perf_counter()
            lm = LapMechPC(epsilon=setting["eps"], random_state=4000 + r).fit(X, n_categories=bn.n_categories)
            times["LapMech"].append(time.perf_counter() - t)
            out["LapMech"].append(_scores(lm.graph_, ref))
        except ValueError:
            pass  # full table above max_cells: infeasible
    return out, times


def run_numerical(setting, runs):
    from ..causal import PC, PrivPCStar, random_gaussian_network

    out = {"PC": [], "PrivPC*": []}
    for r in range(runs):
        bn = random_gaussian_network(setting["p"], setting["s"], random_state=5000 + r)
        X = bn.sample(setting["n"], random_state=6000 + r)
        ref = bn.adjacency
        out["PC"].append(_scores(PC().fit(X).graph_, ref))
        m = PrivPCStar(epsilon=setting["eps"], scale=_population_std(bn), random_state=7000 + r).fit(X)
        out["PrivPC*"].append(_scores(m.graph_, ref))
    return out


def _cell(vals, thesis):
    if not vals:
        return "infeasible"
    m = np.mean(vals, axis=0)
    ref = "" if thesis is None else f" ({thesis[0]:.3f} / {thesis[1]:.3f} / {thesis[2]:.3f})"
    return f"{m[0]:.3f} / {m[1]:.3f} / {m[2]:.3f} · F1 {m[3]:.3f}{ref}"


def _table(number, key, values, base, runner, methods, thesis, runs, kind, points):
    fixed = ", ".join(f"{k}={v}" for k, v in base.items() if k != key)
    lines = [f"**Table {number}** ({kind}; varying {key}; {fixed}; mean over {runs} graphs). Cells: TPR / FPR / TDR "
             "· F1 (thesis TPR / FPR / TDR)", "",
             f"| {key} | " + " | ".join(methods) + " |", "|---|" + "---|" * len(methods)]
    extra = []
    for v in progress(values, desc=f"Table {number}"):
        setting = dict(base, **{key: v})
        res = runner(setting, runs)
        if isinstance(res, tuple):
            res, times = res
            extra.append(f"{key}={v}: median fit time PrivPC {np.median(times['PrivPC']):.2f} s"
                         + (f", LapMech {np.median(times['LapMech']):.2f} s" if times["LapMech"] else ""))
        th = thesis.get((key, v), {})
        lines.append(f"| {v} | " + " | ".join(_cell(res[m], th.get(m)) for m in methods) + " |")
        if key == "eps":  # non-private PC (same data in every row) is drawn once, as the ε = ∞ reference
            points += [{"panel": f"Table {number} ({kind})", "name": m, "epsilon": np.inf if m == "PC" else float(v),
                        "f1": float(np.mean(res[m], axis=0)[3])} for m in methods if res[m]
                       and (m != "PC" or v == values[0])]
    if extra:
        lines += ["", "Times: " + "; ".join(extra) + "."]
    return lines


def report(runs=None) -> Report:
    """Tables 4.3-4.5 and 4.8-4.10 (``runs`` graphs per cell, default 3) and the ε-table points for the plot."""
    runs = 3 if runs is None else int(runs)
    lines = ["### Reproduction: thesis ch. 4, Tables 4.3–4.5 and 4.8–4.10", "",
             __doc__.split("\n\n", 1)[1].replace("\n", " ").strip(), ""]
    points = []
    for number, key, values, base in CAT_TABLES:
        lines += _table(number, key, values, base, run_categorical, ["PC", "LapMech", "PrivPC"], THESIS_CAT, runs,
                        "categorical", points) + [""]
    for number, key, values, base in NUM_TABLES:
        lines += _table(number, key, values, base, run_numerical, ["PC", "PrivPC*"], THESIS_NUM, runs,
                        "Gaussian", points) + [""]
    lines.append(privpc_adult.report(runs))  # the Adult case study (Fig. 4.1), its own seeds
    return Report("\n".join(lines), points)
