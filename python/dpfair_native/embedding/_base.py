"""What the embedding estimators share: scikit-learn's parameter protocol (get_params, set_params, repr), the
declared parameter constraints and the cross-check of the privacy parameters."""

from __future__ import annotations

import numbers

import numpy as np

from .._validation import (
    POSITIVE,
    POSITIVE_INT,
    POSITIVE_OR_INF,
    PROBABILITY,
    Interval,
    Options,
    StrOptions,
    validate_params,
)
from ..models._base import DPClassifierBase

NOISES = ("laplace", "gaussian")

# The parameters the embedding estimators share (each class picks those it has).
CONSTRAINTS = {
    "n_components": [POSITIVE_INT],  # <= |V| is checked against the graph
    "epsilon": [POSITIVE_OR_INF],
    "delta": [PROBABILITY, Options(numbers.Real, {0}), None],
    "noise": [StrOptions(set(NOISES))],
    "window": [POSITIVE_INT],
    "paper_faithful": ["boolean"],
    "n_iter": [Interval(numbers.Integral, 0, None, closed="left")],
    "n_epochs": [POSITIVE_INT],
    "learning_rate": [POSITIVE],
    "random_state": ["random_state"],
}


def constraints_of(*names: str) -> dict:
    """The shared constraints of the named parameters."""
    return {name: CONSTRAINTS[name] for name in names}


class EmbeddingBase:
    """Base of the graph-embedding estimators: ``fit(adjacency) -> self`` sets ``embedding_`` and
    ``privacy_spent_``; ``fit_transform(adjacency)`` returns ``embedding_``."""

    _get_param_names = DPClassifierBase.__dict__["_get_param_names"]
    get_params = DPClassifierBase.get_params
    set_params = DPClassifierBase.set_params
    __repr__ = DPClassifierBase.__repr__

    _parameter_constraints: dict = {}

    def fit_transform(self, adjacency) -> np.ndarray:
        return self.fit(adjacency).embedding_

    def _validate_params(self) -> None:
        """Check the parameters against ``_parameter_constraints`` (first thing in ``fit``)."""
        validate_params(self)


def check_privacy(epsilon, delta, noise):
    """(ε, δ) for the noise kind (each already within its declared constraints): Gaussian needs δ ∈ (0, 1),
    Laplace takes no δ."""
    eps = float(epsilon)
    if noise == "gaussian":
        if not delta:
            raise ValueError("noise='gaussian' needs delta in (0, 1), e.g. delta=1e-5 (or 1/|E|^2)")
        return eps, float(delta)
    if delta not in (None, 0, 0.0):
        raise ValueError(f"noise='laplace' is pure epsilon-DP and takes no delta (got {delta!r}); "
                         "use noise='gaussian' for (epsilon, delta)")
    return eps, 0.0
