"""The papers' own functional-mechanism sensitivity formulas on [0, 1]^d (d features), for paper-faithful runs.

Looser than the declared-domain bounds of :mod:`dpfair_native._sensitivity_bounds`; each function names its source.
Neighbouring relation: replace-one, as in the papers.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = [
    "paper_sensitivity_privlr",
    "paper_sensitivity_pflr",
    "paper_sensitivity_mu",
    "paper_sensitivity_pdfc",
    "paper_sensitivity_relaxed_fm_l2",
    "paper_sensitivity_adfc_l2",
]


def _check_d(d) -> int:
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 1:
        raise ValueError(f"d must be a positive integer (the number of features), got {d!r}")
    return int(d)


def paper_sensitivity_privlr(d: int) -> float:
    """L1 sensitivity d²/4 + d of the FM logistic objective on [0,1]^d (Zhang et al. 2012; Xu et al. Eq. 8)."""
    d = _check_d(d)
    return d * d / 4.0 + d


def paper_sensitivity_pflr(d: int) -> float:
    """L1 sensitivity d²/4 + 3d of PFLR's objective with the |s − s̄| penalty (Xu et al. Eq. 14)."""
    d = _check_d(d)
    return d * d / 4.0 + 3.0 * d


def paper_sensitivity_mu(d: int) -> float:
    """L1 sensitivity 2d of PFLR*'s shift μ = Σ (s_i − s̄) x_i (Xu et al. Eq. 16)."""
    return 2.0 * _check_d(d)


def paper_sensitivity_pdfc(d: int) -> float:
    """L1 sensitivity d²/4 + 3d of PDFC's objective (Ding et al. Lemma 2 / Lemma 6; same as PFLR)."""
    return paper_sensitivity_pflr(d)


def paper_sensitivity_relaxed_fm_l2(d: int) -> float:
    """L2 sensitivity sqrt(d²/16 + d) of the relaxed FM (Ding et al. Lemma 3 / Lemma 7).

    The proof takes x in [0,1]^d and d² quadratic coefficients ⅛·x_e·x_l (full matrix), not the monomial layout.
    """
    d = _check_d(d)
    return math.sqrt(d * d / 16.0 + d)


def paper_sensitivity_adfc_l2(d: int) -> float:
    """L2 sensitivity sqrt(d²/16 + 9d) of ADFC's objective (Ding et al. Lemma 4 / Lemma 8; [0,1]^d)."""
    d = _check_d(d)
    return math.sqrt(d * d / 16.0 + 9.0 * d)
