"""The result type of :func:`dpfair_native.kernels.minimize_quadratic` (shared by both backends)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class QuadraticSolution:
    """Minimizer of wᵀHw + bᵀw and a record of what the PSD repair did.

    w: the minimizer (d,). n_trimmed: eigen-directions dropped by psd="trim". shift: amount added to every
    eigenvalue by psd="shift". lambda_min: smallest eigenvalue of the symmetric input Q (before repair and
    ridge; estimated by Lanczos for the CG solver). iterations / converged: CG iterations (0 for direct solves).
    constraint_active / multiplier: whether |aᵀw| <= tau was binding and its Lagrange multiplier ν.
    """

    w: np.ndarray
    n_trimmed: int
    shift: float
    lambda_min: float
    iterations: int
    converged: bool
    constraint_active: bool
    multiplier: float
