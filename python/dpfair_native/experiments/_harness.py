"""The one experiments harness: a registry of reproductions, one ``run`` dispatch, one RESULTS.md section writer.

A reproduction is a module of this package with ``report(runs: int | None = None)`` returning either a plain
markdown string (a full section, heading included) or a :class:`Report` (the markdown plus the rows a plot
draws). Optionally it declares ``PLOT``, a :class:`PlotSpec`, when a curve makes sense for it; ``--plot`` is
refused before any work for a reproduction without one. Registering a module is one line in :data:`REGISTRY`.

The harness stamps every section with the machine it ran on (read from the machine: CPU model, cores available
to the process, load average at the start), the command and the wall time, and writes it between
``<!-- dpfair:begin NAME -->`` and ``<!-- dpfair:end NAME -->`` in bench/RESULTS.md: the block is replaced
where it exists, appended otherwise, and every byte outside it is kept.
"""

from __future__ import annotations

import importlib
import os
import platform
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Union

__all__ = ["Report", "PlotSpec", "REGISTRY", "run", "machine", "write_section", "default_results_path", "progress",
           "with_adult_groups"]


@dataclass(frozen=True)
class PlotSpec:
    """How a reproduction's rows are drawn: ``kind`` is "frontier" (accuracy against a fairness gap, see
    :func:`dpfair_native.plot.frontier`) or "curves" (a metric against ε, see :func:`dpfair_native.plot.curves`);
    ``options`` are passed to that function (e.g. ``fairness=``, ``y=``, ``title=``)."""

    kind: str
    options: Dict = field(default_factory=dict)


@dataclass
class Report:
    """What a reproduction returns: ``markdown`` (a full section, heading included) and the ``rows`` its plot draws
    (dicts; the keys :class:`PlotSpec`'s function needs)."""

    markdown: str
    rows: List[Dict] = field(default_factory=list)


#: name -> module of this package exposing ``report(runs=None)`` (and optionally ``PLOT``), or a callable
#: ``(runs) -> Report | str`` (then its plot spec, if any, is its ``PLOT`` attribute).
REGISTRY: Dict[str, Union[str, Callable]] = {
    "functional": ".functional",
    "dpsgd": ".dpsgd",
    "fairdp": ".fairdp",
    "dpne": ".dpne",
    "privpc": ".privpc",
    "frontier": ".frontier",
    "fairgan": ".fairgan",
    "cfgan": ".cfgan",
}


def default_results_path() -> Path:
    """bench/RESULTS.md of the source checkout the command runs in: ./bench/RESULTS.md, else the one beside this
    package's source tree (python/dpfair_native/...). An installed package has neither: ValueError, use --no-write."""
    from . import __file__ as package_file  # the package's, so that tests can point it elsewhere

    candidates = [Path.cwd() / "bench" / "RESULTS.md", Path(package_file).resolve().parents[3] / "bench" / "RESULTS.md"]
    for path in candidates:
        if path.is_file():
            return path
    raise ValueError(
        "no bench/RESULTS.md here to update: run from the dpfair_native source checkout, "
        "or pass --no-write to print only"
    )


def progress(iterable, *, total=None, desc: str = ""):
    """``iterable`` with a progress bar on a terminal when tqdm is installed (optional); unchanged otherwise."""
    if not sys.stderr.isatty():
        return iterable
    try:
        from tqdm import tqdm
    except ImportError:
        return iterable
    return tqdm(iterable, total=total, desc=desc, leave=False)


def with_adult_groups(model):
    """``model`` with ``declared_groups=[0, 1]`` when it takes them and has none: the bundled Adult file's sensitive
    attribute is sex (0 Female, 1 Male), a public label set, declared so no fit reads it from the rows."""
    params = model.get_params(deep=False) if hasattr(model, "get_params") else {}
    if "declared_groups" in params and params["declared_groups"] is None:
        model.set_params(declared_groups=[0, 1])
    return model


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def machine() -> str:
    """The machine as read now: CPU model, cores this process may use (of the machine's), 1-minute load average."""
    total = os.cpu_count() or 1
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else total
    cores = f"{usable} cores" if usable == total else f"{usable} of {total} cores"
    try:
        load = f", load average {os.getloadavg()[0]:.2f}"
    except (AttributeError, OSError):  # Windows
        load = ""
    return f"{_cpu_model()}, {cores}{load}"


def _markers(name: str):
    return f"<!-- dpfair:begin {name} -->", f"<!-- dpfair:end {name} -->"


def write_section(name: str, markdown: str, path) -> Path:
    """Put ``markdown`` between NAME's markers in ``path``: replace the block if both markers are there, else append
    it (creating the file if needed). Bytes outside the block are kept as they are."""
    begin, end = _markers(name)
    path = Path(path)
    block = f"{begin}\n{markdown.strip(chr(10))}\n{end}"
    text = "# Benchmark and reproduction results\n"
    if path.exists():
        with open(path, encoding="utf-8", newline="") as f:  # newline="": no translation, bytes kept as they are
            text = f.read()
    i, j = text.find(begin), text.find(end)
    if i >= 0 and j > i:
        text = text[:i] + block + text[j + len(end):]
    elif i >= 0 or j >= 0:
        raise ValueError(f"{path} has only one of the markers {begin!r} / {end!r}: repair the file by hand")
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)
    return path


def _resolve(name: str):
    """(report callable, PlotSpec or None) of a registered reproduction."""
    if name not in REGISTRY:
        raise ValueError(f"no reproduction named {name!r}; choose one of {sorted(REGISTRY)}")
    entry = REGISTRY[name]
    if callable(entry):
        return entry, getattr(entry, "PLOT", None)
    module = importlib.import_module(entry, __package__)
    return module.report, getattr(module, "PLOT", None)


def _plot_spec(name: str) -> Optional[PlotSpec]:
    """A reproduction's PlotSpec; None also when its module cannot be imported here (an optional extra missing)."""
    try:
        return _resolve(name)[1]
    except ImportError:
        return None


def _stamp(markdown: str, name: str, runs, seconds: float, host: str) -> str:
    """Insert the machine / command / wall-time line after the section's heading (or at its top)."""
    command = f"python -m dpfair_native reproduce {name}" + ("" if runs is None else f" --runs {runs}")
    line = f"Machine: {host}. Command: `{command}`. Wall time {seconds:.0f} s."
    head, _, rest = markdown.partition("\n")
    if not head.startswith("#"):
        return f"{line}\n\n{markdown}"
    return f"{head}\n\n{line}\n\n{rest.lstrip(chr(10))}"


def _draw(spec: PlotSpec, rows, path) -> str:
    from .. import plot

    if not rows:
        raise ValueError("the reproduction returned no rows to plot")
    return plot.save(spec.kind, rows, str(path), **spec.options)


def run(name: str, *, runs: Optional[int] = None, write: bool = True, results_path=None, plot=None) -> int:
    """Run one reproduction: print its section, with ``write`` put it in bench/RESULTS.md (or ``results_path``),
    with ``plot`` (a file path; PNG/SVG/PDF) draw its curve there. Returns a process exit code (0)."""
    if runs is not None and int(runs) < 1:
        raise ValueError(f"runs must be >= 1 (seeds per cell), got {runs}")
    report, spec = _resolve(name)
    if plot is not None:
        if spec is None:
            plottable = sorted(n for n in REGISTRY if _plot_spec(n) is not None)
            raise ValueError(f"--plot is available for the reproductions {plottable}, not {name!r}")
        from ..plot import _pyplot

        _pyplot()  # fail now, not after the run, when matplotlib is missing
    path = None
    if write:
        path = Path(results_path) if results_path is not None else default_results_path()
    host = machine()
    t0 = time.perf_counter()
    result = report(None if runs is None else int(runs))
    result = Report(result) if isinstance(result, str) else result
    markdown = _stamp(result.markdown, name, runs, time.perf_counter() - t0, host)
    print(markdown, flush=True)
    if path is not None:
        print(f"wrote the '{name}' section of {write_section(name, markdown, path)}")
    if plot is not None:
        print(f"plot: {_draw(spec, result.rows, plot)}")
    return 0
