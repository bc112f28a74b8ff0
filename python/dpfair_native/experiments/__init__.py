"""Reproductions of the papers' tables: ``python -m dpfair_native reproduce <which> [--runs N] [--no-write]``."""

from __future__ import annotations

import importlib

__all__ = ["run"]


def run(which: str, *, runs=None, write: bool = True) -> int:
    """Run one reproduction ("functional", "dpsgd", "fairdp"): prints its tables and, with write, updates its
    section of bench/RESULTS.md. Returns a process exit code."""
    if which == "functional":
        from .functional import run_functional

        return run_functional(runs=runs, write=write)
    try:
        module = importlib.import_module(f".{which}", __name__)
    except ImportError as exc:
        raise ValueError(f"no reproduction named {which!r} is installed ({exc})") from None
    return module.run(runs=runs, write=write)
