"""Reproductions of the papers' tables: ``python -m dpfair_native reproduce <name> [--runs N] [--no-write]
[--plot out.png]``. The harness (registry, ``run``, section writer) is :mod:`._harness`."""

from __future__ import annotations

from ._harness import REGISTRY, PlotSpec, Report, machine, progress, run, write_section
from ._harness import default_results_path as results_path

__all__ = ["REGISTRY", "PlotSpec", "Report", "machine", "progress", "results_path", "run", "write_section"]
