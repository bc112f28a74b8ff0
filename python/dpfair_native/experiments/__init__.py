"""Reproductions of the papers' tables: ``python -m dpfair_native reproduce <which> [--runs N] [--no-write]``."""

from __future__ import annotations

import importlib

__all__ = ["run", "results_path"]


def results_path():
    """bench/RESULTS.md of the source checkout the command runs in: ./bench/RESULTS.md, else the one beside this
    package's source tree (python/dpfair_native/...). An installed package has neither: ValueError, use --no-write."""
    from pathlib import Path

    candidates = [Path.cwd() / "bench" / "RESULTS.md", Path(__file__).resolve().parents[3] / "bench" / "RESULTS.md"]
    for path in candidates:
        if path.is_file():
            return path
    raise ValueError(
        "no bench/RESULTS.md here to update: run from the dpfair_native source checkout, or pass --no-write to print only"
    )


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
