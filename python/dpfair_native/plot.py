"""Privacy–fairness–utility trade-offs as pictures (matplotlib, an optional extra: ``pip install ".[plot]"``).

:func:`evaluate` turns fitted estimators into points (accuracy, fairness gaps, ε); :func:`frontier` draws accuracy
against a fairness gap, one series per estimator, each point labelled with its ε (or its own ``label``), and the
Pareto front of all points (highest accuracy for at most that gap). :func:`curves` draws a metric against ε on a
log axis (ε = ∞, a non-private fit, at its own tick), one series per method and one panel per ``panel`` key.
:func:`save` draws either into a file; the reproductions' ``--plot`` uses it on their rows (dicts with the same
keys).
"""

from __future__ import annotations

from typing import Dict, Iterable, List, Optional, Sequence

import numpy as np

from . import metrics

__all__ = ["curves", "evaluate", "frontier", "frontier_from_results", "pareto_front", "save"]

FAIRNESS = {
    "demographic_parity_difference": "demographic-parity difference",
    "equalized_odds_difference": "equalized-odds difference",
    "cost_of_privacy_gap": "gap in cost of privacy |Δ_M − Δ_F|",
}


def _pyplot():
    try:
        import matplotlib.pyplot as plt  # falls back to the Agg backend when there is no display
    except ImportError:
        raise ImportError('dpfair_native.plot needs matplotlib: pip install ".[plot]"') from None
    return plt


def evaluate(estimators: Iterable, X, y, *, sensitive_features, names: Optional[Sequence[str]] = None) -> List[Dict]:
    """One point per fitted estimator on test data: name, epsilon (inf if non-private), accuracy, ROC-AUC and the
    demographic-parity / equalized-odds differences (fairlearn's definitions), with each estimator's
    ``classes_[1]`` as the positive class."""
    points = []
    estimators = list(estimators)
    names = [type(e).__name__ for e in estimators] if names is None else list(names)
    if len(names) != len(estimators):
        raise ValueError(f"names has {len(names)} entries for {len(estimators)} estimators")
    for name, est in zip(names, estimators):
        pred = est.predict(X)
        eps = float(getattr(est, "privacy_spent_", (np.inf, 0.0))[0])
        pos = est.classes_[1]  # the class decision_function scores (labels need not be 0/1)
        points.append({
            "name": name,
            "epsilon": eps,
            "accuracy": metrics.accuracy(y, pred),
            "roc_auc": metrics.roc_auc(y, est.decision_function(X), pos_label=pos),
            "demographic_parity_difference": metrics.demographic_parity_difference(
                y, pred, sensitive_features=sensitive_features, pos_label=pos),
            "equalized_odds_difference": metrics.equalized_odds_difference(
                y, pred, sensitive_features=sensitive_features, pos_label=pos),
        })
    return points


def pareto_front(gaps: Sequence[float], accuracies: Sequence[float]) -> np.ndarray:
    """Indices of the points no other point beats on both axes (lower gap and higher accuracy), by gap."""
    gaps, acc = np.asarray(gaps, dtype=np.float64), np.asarray(accuracies, dtype=np.float64)
    order = np.lexsort((-acc, gaps))
    front, best = [], -np.inf
    for i in order:
        if acc[i] > best:
            front.append(i)
            best = acc[i]
    return np.asarray(front, dtype=np.int64)


def frontier(points: Sequence[Dict], *, fairness: str = "demographic_parity_difference", ax=None,
             title: Optional[str] = None, lines: bool = True):
    """Accuracy against ``fairness`` for ``points`` (from :func:`evaluate` or reproduction rows); returns the Axes.

    Each estimator name is one series (markers, joined in ε order unless ``lines=False``), points are labelled
    with their ``label`` or "ε=…", and the dashed line is the Pareto front over all points.
    """
    if fairness not in FAIRNESS:
        raise ValueError(f"fairness must be one of {sorted(FAIRNESS)}, got {fairness!r}")
    points = list(points)
    if not points:
        raise ValueError("no points to plot")
    missing = {"name", "epsilon", "accuracy", fairness} - set(points[0])
    if missing:
        raise ValueError(f"each point needs the keys {sorted(missing)}")
    plt = _pyplot()
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 4.4))
    for name in dict.fromkeys(p["name"] for p in points):
        series = sorted((p for p in points if p["name"] == name), key=lambda p: p["epsilon"])
        gx = [p[fairness] for p in series]
        gy = [p["accuracy"] for p in series]
        line, = ax.plot(gx, gy, marker="o", linewidth=1 if lines else 0, label=name)
        for p in series:
            ax.annotate(p.get("label") or f"ε={_eps_text(p['epsilon'])}", (p[fairness], p["accuracy"]),
                        textcoords="offset points", xytext=(4, 3), fontsize=7, color=line.get_color())
    front = pareto_front([p[fairness] for p in points], [p["accuracy"] for p in points])
    ax.plot([points[i][fairness] for i in front], [points[i]["accuracy"] for i in front], "k--", linewidth=0.8,
            label="Pareto front")
    ax.set_xlabel(FAIRNESS[fairness] + " (lower is fairer)")
    ax.set_ylabel("accuracy")
    ax.set_title(title or "Accuracy–fairness frontier")
    ax.grid(True, linewidth=0.3)
    ax.legend(fontsize=8)
    return ax


def _eps_text(eps: float) -> str:
    return "∞" if not np.isfinite(eps) else f"{eps:.3g}"


def _log_ticks(values: Sequence[float]) -> List[float]:
    """The x values themselves when there are at most eight, else powers of ten covering them (at most ~eight)."""
    values = sorted(set(values))
    if len(values) <= 8:
        return values
    a, b = int(np.floor(np.log10(values[0]))), int(np.ceil(np.log10(values[-1])))
    step = max(1, (b - a + 7) // 8)
    return [10.0 ** k for k in range(a, b + 1, step)]


def _curve_panel(ax, rows: Sequence[Dict], x: str, y: str, series: str, colors: Dict) -> None:
    """One panel of :func:`curves`: finite x on a log axis, x = ∞ one decade right of the largest finite x under
    an "∞" tick; a series that exists only at ∞ (a non-private reference) is a dashed horizontal line."""
    finite = [float(r[x]) for r in rows if np.isfinite(r[x])]
    if not finite or min(finite) <= 0:
        raise ValueError(f"curves needs positive finite {x!r} values in every panel (log axis)")
    at_inf = max(finite) * 10.0
    has_inf = False  # an ∞ tick only where a curve has a point there
    for name in dict.fromkeys(r[series] for r in rows):
        pts = sorted((r for r in rows if r[series] == name), key=lambda r: r[x])
        fin = [r for r in pts if np.isfinite(r[x])]
        inf = [r for r in pts if not np.isfinite(r[x])]
        if not fin:
            ax.axhline(inf[0][y], linestyle="--", linewidth=1, color=colors[name], label=f"{name} (non-private, ε = ∞)")
            continue
        ax.plot([r[x] for r in fin], [r[y] for r in fin], marker="o", markersize=3, linewidth=1, color=colors[name],
                label=name)
        if inf:
            ax.plot([at_inf] * len(inf), [r[y] for r in inf], marker="s", linestyle="none", color=colors[name])
        has_inf = has_inf or bool(inf)
    ax.set_xscale("log")
    ticks = _log_ticks(finite)
    ax.set_xticks(ticks + ([at_inf] if has_inf else []))
    ax.set_xticklabels([f"{t:g}" for t in ticks] + (["∞"] if has_inf else []))
    ax.minorticks_off()
    ax.grid(True, linewidth=0.3)


def curves(rows: Sequence[Dict], *, y: str, x: str = "epsilon", series: str = "name", panel: str = "panel",
           ylabel: Optional[str] = None, title: Optional[str] = None):
    """``y`` against ``x`` (ε by default, log axis; ∞ = non-private at its own tick) for ``rows``, one line per
    ``series`` value and one subplot per ``panel`` value (rows without one share a single panel). Returns the
    Figure."""
    rows = list(rows)
    if not rows:
        raise ValueError("no rows to plot")
    missing = {x, y, series} - set(rows[0])
    if missing:
        raise ValueError(f"each row needs the keys {sorted(missing)}")
    plt = _pyplot()
    panels = list(dict.fromkeys(r.get(panel, "") for r in rows))
    ncols = min(2, len(panels))
    nrows = -(-len(panels) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(6.0 * ncols, 4.0 * nrows), squeeze=False)
    cycle = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    names = list(dict.fromkeys(r[series] for r in rows))
    colors = {name: cycle[i % len(cycle)] for i, name in enumerate(names)}  # one colour per series in all panels
    for ax, name in zip(axes.ravel(), panels):
        _curve_panel(ax, [r for r in rows if r.get(panel, "") == name], x, y, series, colors)
        ax.set_title(name, fontsize=10)
        ax.set_xlabel("ε (log scale)" if x == "epsilon" else x)
        ax.set_ylabel(ylabel or y.replace("_", " "))
    for ax in axes.ravel()[len(panels):]:
        ax.set_visible(False)
    legend = {}  # label -> handle over all panels, first seen first
    for ax in axes.ravel()[:len(panels)]:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            legend.setdefault(label, handle)
    handles, labels = list(legend.values()), list(legend)
    fig.legend(handles, labels, loc="lower center", ncol=min(len(labels), 4), fontsize=8, frameon=False)
    if title:
        fig.suptitle(title)
    fig.tight_layout(rect=(0, 0.04 + 0.025 * ((len(labels) - 1) // 4), 1, 1))
    return fig


def save(kind: str, rows: Sequence[Dict], path: str, **options) -> str:
    """Draw ``rows`` as a "frontier" (:func:`frontier`; ``fairness`` may be a tuple of metrics, one panel each) or
    as "curves" (:func:`curves`) and save the figure to ``path`` (PNG, SVG, PDF by extension); returns ``path``."""
    plt = _pyplot()
    if kind == "frontier":
        # several fairness metrics (a tuple): one panel each, side by side, the legend once
        fairness = options.pop("fairness", "demographic_parity_difference")
        metrics_ = [fairness] if isinstance(fairness, str) else list(fairness)
        fig, axes = plt.subplots(1, len(metrics_), figsize=(7.2 * len(metrics_), 5.0), squeeze=False)
        if len(metrics_) > 1:  # the title once above the panels, each panel named by its metric
            fig.suptitle(options.pop("title", None) or "Accuracy–fairness frontier")
        for i, (ax, metric) in enumerate(zip(axes[0], metrics_)):
            frontier(rows, ax=ax, fairness=metric, **options)
            if len(metrics_) > 1:
                ax.set_title(f"against the {FAIRNESS[metric]}", fontsize=10)
            if i > 0:
                ax.get_legend().remove()
        fig.tight_layout()
    elif kind == "curves":
        fig = curves(rows, **options)
    else:
        raise ValueError(f"kind must be 'frontier' or 'curves', got {kind!r}")
    fig.savefig(path, dpi=130)
    plt.close(fig)
    return path


def frontier_from_results(rows: Sequence[Dict], path: str, **kwargs) -> str:
    """Draw :func:`frontier` for reproduction rows and save it to ``path`` (PNG, SVG, PDF by extension)."""
    return save("frontier", rows, path, **kwargs)
