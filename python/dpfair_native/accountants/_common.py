"""Argument checks shared by the accountants' modules."""

from __future__ import annotations

import numbers

import numpy as np

from .._validation import check_int as check_count  # noqa: F401  (the accountants' name for it)


def check_orders(orders) -> np.ndarray:
    a = np.asarray(orders, dtype=np.float64)
    if a.ndim == 0:
        a = a.reshape(1)
    if a.ndim != 1 or a.shape[0] == 0:
        raise ValueError(f"orders must be a non-empty 1-D sequence of RDP orders, got shape {a.shape}")
    if not np.all(np.isfinite(a)) or np.any(a <= 1):
        raise ValueError("orders must be finite and > 1 (e.g. DEFAULT_RDP_ORDERS)")
    return a


def check_sample_rate(q) -> float:
    if isinstance(q, (bool, np.bool_)) or not isinstance(q, (numbers.Real, np.floating, np.integer)):
        raise TypeError(f"sample_rate must be a real number, got {q!r}")
    q = float(q)
    if not (0.0 <= q <= 1.0):
        raise ValueError(f"sample_rate must lie in [0, 1] (expected batch size / n), got {q!r}")
    return q
