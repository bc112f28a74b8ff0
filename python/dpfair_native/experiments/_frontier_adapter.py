"""Thin adapter giving ``frontier.py``'s ``run(runs, write)`` the harness' ``report(runs)`` interface.

Temporary: frontier.py is being rewritten elsewhere; when it exposes ``report(runs) -> Report | str`` itself, its
REGISTRY entry becomes ``".frontier"`` and this file is deleted. Until then the adapter runs ``frontier.run``
unchanged, with its module-level hooks observed for the duration of the call: ``evaluate`` (to keep the
cells for the plot) and ``write_section`` (to take the section text instead of letting it rewrite RESULTS.md
with its heading regex; the harness writes it between markers, or not at all with --no-write).
"""

from __future__ import annotations

import contextlib
import io

import numpy as np

from ._harness import PlotSpec, Report

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


def report(runs=None) -> Report:
    """Run ``frontier.run(runs, write=True)`` with its writer captured; its section text and plot points."""
    from .. import experiments
    from . import frontier

    captured = {}
    evaluate, write_section, path_of = frontier.evaluate, frontier.write_section, experiments.results_path

    def keep_cells(n):
        captured["cells"] = evaluate(n)
        return captured["cells"]

    def keep_text(text, path):
        captured["text"] = text

    frontier.evaluate, frontier.write_section = keep_cells, keep_text
    experiments.results_path = lambda: None  # the path frontier.run asks for is never written to
    try:
        with contextlib.redirect_stdout(io.StringIO()):  # its own prints repeat the table the harness prints
            frontier.run(runs=runs, write=True)
    finally:
        frontier.evaluate, frontier.write_section = evaluate, write_section
        experiments.results_path = path_of
    return Report(captured["text"], _points(captured["cells"]))
