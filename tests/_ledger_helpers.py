"""A ledger of every noise draw a fit makes, for the tests/test_ledger_*.py files, and scale checks of drawn noise.

``Ledger(monkeypatch)`` wraps ``mechanisms.laplace_mechanism``, ``mechanisms.gaussian_mechanism`` and
``feature_selection.gumbel_top_k`` (the real functions still run, so the fit is unchanged) and records one
``Draw`` per call: the mechanism, the value it was handed, the sensitivity and the (ε, δ) the call is calibrated to,
and what it returned. A peeling call of k rounds at ε_r per round is recorded at ε = k·ε_r (sequential composition
of its rounds). The ledger's basic composition is what the fit really spent, to compare with ``privacy_spent_``.
"""

from __future__ import annotations

import math
from typing import Any, List, NamedTuple

import numpy as np

from dpfair_native import feature_selection, mechanisms


class Draw(NamedTuple):
    kind: str  # "laplace", "gaussian" or "peeling"
    value: np.ndarray  # the released statistic before noise (the utilities for "peeling")
    sensitivity: float
    epsilon: float  # of the whole call (k·ε_r for k peeling rounds)
    delta: float
    out: Any  # what the call returned
    rounds: int = 0  # peeling only
    epsilon_round: float = 0.0  # peeling only
    secure: bool = False


class Ledger:
    def __init__(self, monkeypatch):
        self.draws: List[Draw] = []
        lap, gau, gum = mechanisms.laplace_mechanism, mechanisms.gaussian_mechanism, feature_selection.gumbel_top_k

        def laplace(value, sensitivity, epsilon, **kw):
            out = lap(value, sensitivity, epsilon, **kw)
            self.draws.append(Draw("laplace", np.array(value, dtype=np.float64), float(sensitivity), float(epsilon),
                                   0.0, out, secure=bool(kw.get("secure", False))))
            return out

        def gaussian(value, sensitivity, epsilon, delta, **kw):
            out = gau(value, sensitivity, epsilon, delta, **kw)
            self.draws.append(Draw("gaussian", np.array(value, dtype=np.float64), float(sensitivity), float(epsilon),
                                   float(delta), out, secure=bool(kw.get("secure", False))))
            return out

        def peeling(utilities, k, epsilon_round, sensitivity, rng, **kw):
            out = gum(utilities, k, epsilon_round, sensitivity, rng, **kw)
            self.draws.append(Draw("peeling", np.array(utilities, dtype=np.float64), float(sensitivity),
                                   k * float(epsilon_round), 0.0, out, rounds=int(k),
                                   epsilon_round=float(epsilon_round)))
            return out

        monkeypatch.setattr(mechanisms, "laplace_mechanism", laplace)
        monkeypatch.setattr(mechanisms, "gaussian_mechanism", gaussian)
        monkeypatch.setattr(feature_selection, "gumbel_top_k", peeling)

    def clear(self):
        self.draws.clear()

    def epsilon(self) -> float:
        """Σ ε of every draw (basic composition)."""
        return math.fsum(d.epsilon for d in self.draws)

    def delta(self) -> float:
        return math.fsum(d.delta for d in self.draws)

    def kinds(self) -> List[str]:
        return [d.kind for d in self.draws]


def ulps_apart(a: float, b: float) -> float:
    """|a − b| in units of the last place of the larger one."""
    return abs(a - b) / math.ulp(max(abs(a), abs(b)))


def assert_laplace_scale(noise, b):
    """Mean absolute value (the MLE of a Laplace scale; sd b/√N) within 6 standard errors of b, mean within 6 of 0."""
    noise = np.ravel(noise)
    tol = 6.0 / math.sqrt(noise.size)
    assert tol < 0.25
    assert abs(np.mean(np.abs(noise)) / b - 1.0) < tol, (np.mean(np.abs(noise)), b)
    assert abs(np.mean(noise)) < 6.0 * b * math.sqrt(2.0 / noise.size)  # centred (sd of the mean: √2 b/√N)


def assert_gaussian_scale(noise, sigma):
    """Root mean square within 6 standard errors (σ/√(2N)) of σ, and mean within 6 of 0 (σ/√N)."""
    noise = np.ravel(noise)
    tol = 6.0 / math.sqrt(2.0 * noise.size)
    assert tol < 0.25
    assert abs(np.sqrt(np.mean(noise**2)) / sigma - 1.0) < tol, (np.sqrt(np.mean(noise**2)), sigma)
    assert abs(np.mean(noise)) < 6.0 * sigma / math.sqrt(noise.size)
