"""Typed, composable privacy events: *what* was released, independent of how it is accounted.

An event describes a mechanism run on the private data set; an accountant (``RDPAccountant``, ``PLDAccountant``)
turns a composition of events into (ε, δ). The shapes follow Google ``dp_accounting``'s ``DpEvent`` tree (written
here from its documented semantics):

* ``GaussianEvent(σ)``: release f(D) + N(0, σ²Δ² I), Δ the L2 bound on one record's contribution to f;
* ``LaplaceEvent(b)``: release f(D) + Lap(0, b·Δ₁) per coordinate, Δ₁ the L1 bound on one record's contribution;
* ``PoissonSampledEvent(q, event)``: run ``event`` on the sub-sample that keeps every record independently with
  probability q;
* ``SelfComposedEvent(event, count)``: ``count`` adaptive runs of ``event``;
* ``ComposedEvent([e₁, e₂, …])``: adaptive runs of e₁, e₂, … in turn.

Neighbouring relations (``NeighbouringRelation``): ADD_OR_REMOVE_ONE (D' = D ∪ {x} or D ∖ {x}; the number of
records is private) and REPLACE_ONE (D' = D with one record x replaced by x'; n is public). With the convention
above Δ is the *add/remove* sensitivity (the bound on one record's contribution, e.g. the clip norm of DP-SGD);
under REPLACE_ONE the released sum moves by up to 2Δ (one contribution g(x) leaves, g(x') with ‖g(x') − g(x)‖ <=
2Δ arrives), and the accountants account for that. This is dp_accounting's convention too.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Iterator, List, Sequence, Tuple

from .._validation import check_positive
from ._common import check_count, check_sample_rate

__all__ = [
    "NeighbouringRelation",
    "DpEvent",
    "GaussianEvent",
    "LaplaceEvent",
    "PoissonSampledEvent",
    "SelfComposedEvent",
    "ComposedEvent",
    "flatten_event",
]


class NeighbouringRelation(enum.Enum):
    """Which data sets are neighbours.

    ADD_OR_REMOVE_ONE: D' = D ∪ {x} or D' = D ∖ {x} (the record count n is private; the default, as in
    dp_accounting and Opacus). REPLACE_ONE: D' equals D with one record replaced by another (n is public).
    """

    ADD_OR_REMOVE_ONE = "add_or_remove_one"
    REPLACE_ONE = "replace_one"

    @classmethod
    def coerce(cls, value) -> NeighbouringRelation:
        if isinstance(value, cls):
            return value
        if isinstance(value, str):
            key = value.strip().lower().replace("-", "_").replace(" ", "_")
            for member in cls:
                if member.value == key or member.name.lower() == key:
                    return member
        raise ValueError(
            f"neighbouring_relation must be 'add_or_remove_one' or 'replace_one' (or a NeighbouringRelation), "
            f"got {value!r}"
        )


class DpEvent:
    """Base class of the typed privacy events (immutable, hashable, comparable)."""

    __slots__ = ()


@dataclass(frozen=True)
class GaussianEvent(DpEvent):
    """The Gaussian mechanism: f(D) + N(0, σ²Δ² I) with σ = ``noise_multiplier``.

    Parameters
    ----------
    noise_multiplier : float
        σ > 0, the noise standard deviation in units of Δ (the L2 bound on one record's contribution).

    Notes
    -----
    Under ADD_OR_REMOVE_ONE the worst pair of output distributions is (N(0, σ²), N(1, σ²)) after rotating and
    scaling by Δ; under REPLACE_ONE it is (N(−1, σ²), N(1, σ²)), a shift of 2 (two contributions differ).
    RDP: ε(α) = α μ²/(2σ²) with μ = 1 (add/remove) or 2 (replace-one).
    """

    noise_multiplier: float

    def __post_init__(self):
        object.__setattr__(self, "noise_multiplier", check_positive(self.noise_multiplier, "noise_multiplier"))


@dataclass(frozen=True)
class LaplaceEvent(DpEvent):
    """The Laplace mechanism: f(D) + Lap(0, b Δ₁) per coordinate with b = ``noise_multiplier``.

    Parameters
    ----------
    noise_multiplier : float
        b > 0, the Laplace scale in units of Δ₁ (the L1 bound on one record's contribution); the release is
        (1/b)-DP under ADD_OR_REMOVE_ONE and (2/b)-DP under REPLACE_ONE.

    Notes
    -----
    Worst pair: (Lap(0, b), Lap(μ, b)) with μ = 1 (add/remove) or 2 (replace-one). RDP (Mironov 2017, Prop. 6)
    with ε₀ = μ/b: ε(α) = 1/(α−1) · log( α/(2α−1) e^{(α−1)ε₀} + (α−1)/(2α−1) e^{−αε₀} ).
    """

    noise_multiplier: float

    def __post_init__(self):
        object.__setattr__(self, "noise_multiplier", check_positive(self.noise_multiplier, "noise_multiplier"))


@dataclass(frozen=True)
class PoissonSampledEvent(DpEvent):
    """``event`` run on a Poisson sub-sample: every record kept independently with probability q.

    Parameters
    ----------
    sample_rate : float
        q in [0, 1] (expected batch size / n). q = 0 releases nothing; q = 1 is ``event`` itself.
    event : GaussianEvent
        The mechanism run on the sub-sample (the accountants support a Gaussian here).

    Notes
    -----
    Worst pairs, for the Gaussian with noise σ (P the output on the data set holding the differing record):
    ADD_OR_REMOVE_ONE gives two directions, "remove" P = (1−q)N(0, σ²) + qN(−1, σ²) vs Q = N(0, σ²) and "add"
    P = N(0, σ²) vs Q = (1−q)N(0, σ²) + qN(1, σ²) (Mironov, Talwar, Zhang 2019; Zhu, Dong, Wang 2022), and ε is
    the larger of the two. REPLACE_ONE: P = (1−q)N(0, σ²) + qN(−1, σ²) vs Q = (1−q)N(0, σ²) + qN(1, σ²): the
    record's contribution g(x) enters with probability q, else nothing; replacing it by g(x') moves the component
    from g(x) to g(x'). Projecting on the line through g(x) and g(x') (the orthogonal part is the same N(0, σ²)
    on both sides and independent, so the projection is a sufficient statistic for telling P from Q when the
    zero component lies on that line) and using ‖g(x)‖, ‖g(x')‖ <= 1, the extreme case is g(x) = −g(x') with
    unit norm, i.e. the pair above; ``tests/test_accountants_pld.py`` checks numerically, by two-dimensional
    quadrature, that non-collinear and shorter contributions give a smaller hockey-stick divergence, and that
    the resulting ε equals dp_accounting's ``NeighboringRelation.REPLACE_ONE`` PLD accounting.
    """

    sample_rate: float
    event: DpEvent

    def __post_init__(self):
        object.__setattr__(self, "sample_rate", check_sample_rate(self.sample_rate))
        if not isinstance(self.event, DpEvent):
            raise TypeError(f"event must be a DpEvent (e.g. GaussianEvent(1.0)), got {self.event!r}")


@dataclass(frozen=True)
class SelfComposedEvent(DpEvent):
    """``count`` adaptive repetitions of ``event`` (count = 0 releases nothing).

    Parameters
    ----------
    event : DpEvent
    count : int
        >= 0.
    """

    event: DpEvent
    count: int

    def __post_init__(self):
        if not isinstance(self.event, DpEvent):
            raise TypeError(f"event must be a DpEvent, got {self.event!r}")
        object.__setattr__(self, "count", check_count(self.count, "count", minimum=0))


@dataclass(frozen=True)
class ComposedEvent(DpEvent):
    """Adaptive composition of the given events, in order.

    Parameters
    ----------
    events : sequence of DpEvent
    """

    events: Tuple[DpEvent, ...]

    def __init__(self, events: Sequence[DpEvent]):
        events = tuple(events)
        for i, e in enumerate(events):
            if not isinstance(e, DpEvent):
                raise TypeError(f"events[{i}] must be a DpEvent, got {e!r}")
        object.__setattr__(self, "events", events)


def flatten_event(event: DpEvent, count: int = 1) -> Iterator[Tuple[DpEvent, int]]:
    """Yield (basic event, multiplicity) pairs: Gaussian, Laplace or PoissonSampled events with their total
    repetition counts (compositions unrolled; zero counts and q = 0 sub-sampling dropped)."""
    if not isinstance(event, DpEvent):
        raise TypeError(f"expected a DpEvent (GaussianEvent, PoissonSampledEvent, ...), got {event!r}")
    if count == 0:
        return
    if isinstance(event, SelfComposedEvent):
        yield from flatten_event(event.event, count * event.count)
    elif isinstance(event, ComposedEvent):
        for e in event.events:
            yield from flatten_event(e, count)
    elif isinstance(event, PoissonSampledEvent):
        if event.sample_rate == 0.0:
            return
        if event.sample_rate == 1.0:
            yield from flatten_event(event.event, count)
        elif isinstance(event.event, (GaussianEvent, LaplaceEvent)):
            yield event, count
        elif isinstance(event.event, (SelfComposedEvent, ComposedEvent, PoissonSampledEvent)):
            raise ValueError(
                "PoissonSampledEvent must wrap a single mechanism (GaussianEvent); compose the sampled steps "
                "outside it, e.g. SelfComposedEvent(PoissonSampledEvent(q, GaussianEvent(s)), steps)"
            )
        else:
            raise ValueError(f"unsupported event inside PoissonSampledEvent: {event.event!r}")
    elif isinstance(event, (GaussianEvent, LaplaceEvent)):
        yield event, count
    else:
        raise ValueError(f"unsupported event type {type(event).__name__}")


class EventLog:
    """The audit trail the accountants keep: their neighbouring relation and every composed event with its label."""

    def __init__(self, neighbouring_relation="add_or_remove_one"):
        self._relation = NeighbouringRelation.coerce(neighbouring_relation)
        self._events: List[DpEvent] = []
        self._labels: List[str] = []

    @property
    def neighbouring_relation(self) -> NeighbouringRelation:
        return self._relation

    @property
    def events(self) -> List[DpEvent]:
        return list(self._events)

    @property
    def labels(self) -> List[str]:
        return list(self._labels)

    @staticmethod
    def _repeated(event: DpEvent, count) -> DpEvent:
        """``count`` runs of ``event`` as one event (checked count >= 0)."""
        count = check_count(count, "count", minimum=0)
        return event if count == 1 else SelfComposedEvent(event, count)

    def _record(self, event: DpEvent, label) -> None:
        self._events.append(event)
        self._labels.append(str(label))

