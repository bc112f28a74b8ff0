"""Pure and approximate DP composition theorems, and a total (ε, δ) budget that refuses to overspend (beyond a
relative rounding allowance of 1e-12, so that parts summing to the budget exactly, such as ε/3 three times, pass)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterable, List, Tuple

from .._validation import check_delta, check_epsilon
from ._common import check_count as _check_count

__all__ = [
    "compose_sequential",
    "compose_parallel",
    "compose_basic",
    "compose_advanced",
    "BudgetExceededError",
    "BudgetEntry",
    "BudgetAccountant",
]


def _budget_remainder(total: float, used: float) -> float:
    """The part of ``total`` (an ε or δ) left after ``used`` <= ``total``: total − used, stepped down by ulps until
    ``used + rest`` (rounded, as ``compose_sequential``/``compose_basic`` add) is <= total. Without the steps a
    split such as used = total·frac reports one ulp more than the total (e.g. ε = 9.989969879518073 split at 0.16
    gave 9.989969879518075), which a caller checking ``spent <= budget`` would refuse. A non-finite total is
    returned as is (no noise is drawn for it)."""
    if not math.isfinite(total):
        return total
    return step_down(total - used, lambda rest: used + rest <= total)


ROUNDING_STEPS = 64
"""How many ulps :func:`step_down` may take: rounding leaves a gap of one or two; a wider one is a composition slip."""


def step_down(value: float, fits) -> float:
    """``value``, or the first float below it (towards 0, at most :data:`ROUNDING_STEPS` ulps down) for which
    ``fits`` holds; RuntimeError beyond that, so that a slip in a composition fails instead of stepping for ever."""
    for _ in range(ROUNDING_STEPS):
        if fits(value):
            return value
        value = math.nextafter(value, 0.0)
    if fits(value):
        return value
    raise RuntimeError(f"a budget split exceeds its total by more than rounding ({ROUNDING_STEPS} ulps): a "
                       "composition slip, please report it")



def compose_sequential(epsilons: Iterable[float]) -> float:
    """Sequential composition of ε_i-DP mechanisms on the same data: ε = Σ ε_i (0 for none)."""
    eps = [check_epsilon(e, f"epsilons[{i}]", allow_inf=True) for i, e in enumerate(epsilons)]
    return math.fsum(eps)


def compose_parallel(epsilons: Iterable[float]) -> float:
    """Parallel composition of ε_i-DP mechanisms each run on its own block of a *disjoint* partition of the
    data (the partition must not depend on the data beyond each record's own value): ε = max ε_i (0 for none)."""
    eps = [check_epsilon(e, f"epsilons[{i}]", allow_inf=True) for i, e in enumerate(epsilons)]
    return max(eps, default=0.0)


def compose_basic(budgets: Iterable[Tuple[float, float]]) -> Tuple[float, float]:
    """Basic composition of (ε_i, δ_i)-DP mechanisms: (Σ ε_i, min(1, Σ δ_i))."""
    eps, deltas = [], []
    for i, pair in enumerate(budgets):
        try:
            e, d = pair
        except (TypeError, ValueError):
            raise TypeError(f"budgets[{i}] must be an (epsilon, delta) pair, got {pair!r}") from None
        eps.append(check_epsilon(e, f"budgets[{i}] epsilon", allow_inf=True))
        deltas.append(check_delta(d, f"budgets[{i}] delta", allow_zero=True))
    return math.fsum(eps), min(1.0, math.fsum(deltas))




def compose_advanced(epsilon: float, delta: float, k: int, delta_prime: float) -> Tuple[float, float]:
    """Advanced composition (Dwork, Rothblum, Vadhan 2010) of k adaptively chosen (ε, δ)-DP mechanisms:
    (ε', kδ + δ') with ε' = sqrt(2k ln(1/δ')) ε + k ε (e^ε − 1).

    The theorem's value is returned as is; for few mechanisms ``compose_basic`` (kε) can be smaller.
    """
    eps = check_epsilon(epsilon, "epsilon")
    d = check_delta(delta, "delta", allow_zero=True)
    k = _check_count(k, "k", minimum=1)
    dp = check_delta(delta_prime, "delta_prime")
    eps_total = math.sqrt(2.0 * k * math.log(1.0 / dp)) * eps + k * eps * math.expm1(eps)
    return eps_total, min(1.0, k * d + dp)


# RDP of single mechanisms




class BudgetExceededError(ValueError):
    """Raised before a release that would take the spent (ε, δ) past the budget."""


@dataclass(frozen=True)
class BudgetEntry:
    epsilon: float
    delta: float
    label: str = ""


# Relative rounding allowance: parts of a budget that add up to it in exact arithmetic (ε/3 three times,
# 0.1 ten times) are accepted although their float sum may exceed it by an ulp.
_ROUNDING = 1e-12


@dataclass
class BudgetAccountant:
    """A total (ε, δ) budget spent by basic sequential composition: spent = (Σ ε_i, Σ δ_i).

    Call ``check`` (or ``spend``, which checks first) BEFORE releasing anything; an overspend raises
    ``BudgetExceededError`` and records nothing.

    One budget is one ledger. Copies (``copy``, ``deepcopy``, scikit-learn's ``clone``) are the accountant itself.
    An unpickled accountant — what a process pool such as joblib's workers (``cross_val_score(n_jobs=2)``,
    ``GridSearchCV(n_jobs=2)``) receives — keeps the log but refuses to check or spend: its spends could not reach
    the original ledger, so the budget would be void without a word. To go on from a saved ledger, start a new
    accountant with what ``remaining`` says.
    """

    epsilon: float
    delta: float = 0.0
    _log: List[BudgetEntry] = field(default_factory=list, init=False, repr=False)
    _restored: bool = field(default=False, init=False, repr=False, compare=False)

    def __post_init__(self):
        self.epsilon = check_epsilon(self.epsilon, "epsilon", allow_inf=True)
        self.delta = check_delta(self.delta, "delta", allow_zero=True)

    def __copy__(self) -> BudgetAccountant:
        return self

    def __deepcopy__(self, memo) -> BudgetAccountant:
        """One budget is one ledger: a copy — e.g. scikit-learn's ``clone`` of an estimator holding it, as
        ``cross_val_score`` and ``GridSearchCV`` make — is this same accountant, so every copy spends from it."""
        return self

    def __setstate__(self, state) -> None:
        self.__dict__.update(state)
        self._restored = True  # a copy in another process, or a saved ledger: see the class docstring

    @property
    def log(self) -> List[BudgetEntry]:
        return list(self._log)

    @property
    def spent(self) -> Tuple[float, float]:
        return math.fsum(e.epsilon for e in self._log), math.fsum(e.delta for e in self._log)

    @property
    def remaining(self) -> Tuple[float, float]:
        eps, delta = self.spent
        return max(0.0, self.epsilon - eps), max(0.0, self.delta - delta)

    def check(self, epsilon: float, delta: float = 0.0) -> None:
        """Raise BudgetExceededError if spending (epsilon, delta) now would exceed the budget."""
        if self._restored:
            raise RuntimeError(
                "this BudgetAccountant was unpickled (e.g. sent to a worker process by n_jobs > 1 in "
                "cross_val_score or GridSearchCV): what it spends would not reach the original ledger, so it "
                "refuses to spend; run the fits in this process (n_jobs=1), or start a new BudgetAccountant "
                "with the remaining budget"
            )
        eps = check_epsilon(epsilon, "epsilon")
        d = check_delta(delta, "delta", allow_zero=True)
        spent_eps, spent_delta = self.spent
        new_eps = math.fsum([e.epsilon for e in self._log] + [eps])
        new_delta = math.fsum([e.delta for e in self._log] + [d])
        over_eps = new_eps > self.epsilon * (1.0 + _ROUNDING)
        over_delta = new_delta > self.delta * (1.0 + _ROUNDING)
        if over_eps or over_delta:
            rem_eps, rem_delta = self.remaining
            raise BudgetExceededError(
                f"privacy budget exceeded: requested (epsilon={eps:g}, delta={d:g}), spent "
                f"(epsilon={spent_eps:g}, delta={spent_delta:g}) of (epsilon={self.epsilon:g}, delta={self.delta:g}), "
                f"remaining (epsilon={rem_eps:g}, delta={rem_delta:g}); request less or use a larger budget"
            )

    def spend(self, epsilon: float, delta: float = 0.0, *, label: str = "") -> BudgetEntry:
        """Check, then record a spend of (epsilon, delta); returns the log entry."""
        self.check(epsilon, delta)
        entry = BudgetEntry(float(epsilon), float(delta), str(label))
        self._log.append(entry)
        return entry
