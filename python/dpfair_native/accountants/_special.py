"""Vectorised log(erfc(x)) to ~1e-14 relative accuracy, with NumPy only (NumPy has no erfc).

erfc(x) = e^{−x²} erfcx(x) for x >= 0 and erfc(x) = 2 − erfc(−x) for x < 0. The scaled function erfcx is smooth
on [0, ∞) and behaves like 1/(x√π) at infinity, so h(x) = (x + 1)·erfcx(x) is smooth and bounded there; in the
variable t = (x − 1)/(x + 1) ∈ [−1, 1) it is expanded in a degree-32 Chebyshev series whose coefficients are fitted
once, at import, by least squares on 160 points where erfcx is computed from ``math.erfc`` (x <= 6, with x
rounded to 24 bits so that x² and hence e^{x²} are exact up to one rounding) or from its Laplace continued fraction
(x > 6, 200 levels). The maximum relative error of erfcx measured against scipy.special.erfcx on 210,000 points
in [0, 1e8] is below 2e-14 (tests/test_accountants_events.py checks log_erfc against ``math.erfc`` to 1e-13).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.polynomial import chebyshev as _cheb

_SHIFT = 1.0
_DEGREE = 32


def _erfcx_scalar(x: float) -> float:
    if x <= 6.0:
        return math.erfc(x) * math.exp(x * x)
    # Laplace's continued fraction erfcx(x) = 1/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))), evaluated
    # bottom-up; 200 levels are far more than double precision needs for x > 6.
    f = x
    for k in range(200, 0, -1):
        f = x + (0.5 * k) / f
    return 1.0 / (math.sqrt(math.pi) * f)


def _fit() -> np.ndarray:
    n = 5 * _DEGREE
    t = np.cos(np.pi * (np.arange(n) + 0.5) / n)
    x = _SHIFT * (1.0 + t) / (1.0 - t)
    x = x.astype(np.float32).astype(np.float64)  # 24-bit abscissae: x*x is exact in double
    t = (x - _SHIFT) / (x + _SHIFT)
    h = np.array([_erfcx_scalar(float(v)) * (float(v) + _SHIFT) for v in x])
    return _cheb.chebfit(t, h, _DEGREE)


_COEF = _fit()
_LOG2 = math.log(2.0)


_COEF_REV = [float(c) for c in _COEF[:0:-1]]  # c_n, ..., c_1 for the Clenshaw recurrence


def erfcx_nonneg(x: np.ndarray) -> np.ndarray:
    """erfcx(x) = e^{x²} erfc(x) for x >= 0 (array)."""
    xp = x + _SHIFT
    t = (x - _SHIFT) / xp
    t2 = 2.0 * t
    # Clenshaw: b_k = 2t b_{k+1} − b_{k+2} + c_k; the series is t b_1 − b_2 + c_0 (in-place: small arrays)
    b1 = np.full_like(t, _COEF_REV[0])
    b2 = np.zeros_like(t)
    for c in _COEF_REV[1:]:
        b = t2 * b1
        b -= b2
        b += c
        b2 = b1
        b1 = b
    out = t * b1
    out -= b2
    out += _COEF[0]
    out /= xp
    return out


def log_erfc(x) -> np.ndarray:
    """log(erfc(x)) elementwise, finite for every finite x (no underflow for large x)."""
    x = np.asarray(x, dtype=np.float64)
    ax = np.abs(x)
    out = np.log(erfcx_nonneg(np.where(np.isfinite(ax), ax, 0.0)))
    out -= ax * ax  # log erfc(|x|); −inf at |x| = inf
    neg = x < 0
    if neg.any():
        # x < 0: erfc(x) = 2 − erfc(|x|) = 2 (1 − erfc(|x|)/2)
        out[neg] = _LOG2 + np.log1p(-0.5 * np.exp(out[neg]))
    return out


def normal_cdf(z) -> np.ndarray:
    """Φ(z) = erfc(−z/√2)/2 elementwise, accurate in relative terms in the lower tail (the NumPy twin of
    ``kernels.normal_cdf``)."""
    return 0.5 * np.exp(log_erfc(-np.asarray(z, dtype=np.float64) / math.sqrt(2.0)))
