"""Benchmark minimize_quadratic: native newton / cg against the NumPy reference, for each PSD repair.

Problem: Q = XᵀX/8 (X uniform in [0,1]^{3d×d}) + symmetric Laplace(scale 2) noise — the noisy, indefinite
quadratic of the functional mechanism — and b = N(0, d²). floor = 1; psd="ridge" uses ridge = 1 − λ_min + 1.
The reference always solves through numpy.linalg.eigh (LAPACK), whatever the solver.

Run:
    PYTHONPATH=python python -m pytest bench/bench_quadratic.py --benchmark-enable \
        --benchmark-columns=min,median,rounds
"""

from __future__ import annotations

import numpy as np
import pytest

from dpfair_native import kernels

SIZES = [45, 100, 500]
CASES = [
    ("trim", "newton", "native"),
    ("trim", "newton", "numpy"),
    ("shift", "newton", "native"),
    ("shift", "cg", "native"),
    ("shift", "newton", "numpy"),
    ("ridge", "newton", "native"),
    ("ridge", "cg", "native"),
    ("ridge", "newton", "numpy"),
]
FLOOR = 1.0


def noisy_problem(d, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((3 * d, d))
    N = np.triu(rng.laplace(scale=2.0, size=(d, d)))
    Q = X.T @ X / 8.0 + N + np.triu(N, 1).T
    b = rng.normal(size=d) * d
    return Q, b


@pytest.mark.parametrize("psd,solver,backend", CASES, ids=["-".join(c) for c in CASES])
@pytest.mark.parametrize("d", SIZES)
def test_minimize_quadratic(benchmark, d, psd, solver, backend):
    Q, b = noisy_problem(d)
    ridge = FLOOR - np.linalg.eigvalsh(Q)[0] + 1.0 if psd == "ridge" else 0.0
    kw = dict(psd=psd, solver=solver, floor=FLOOR, ridge=ridge, tol=1e-10, backend=backend)
    benchmark.group = f"minimize_quadratic d={d} psd={psd}"
    res = benchmark(kernels.minimize_quadratic, Q, b, **kw)
    assert res.converged
    ref = kernels.minimize_quadratic(Q, b, **{**kw, "backend": "numpy"})
    np.testing.assert_allclose(res.w, ref.w, rtol=1e-6, atol=1e-6 * np.abs(ref.w).max())
