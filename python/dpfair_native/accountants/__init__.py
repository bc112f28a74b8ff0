"""Privacy accounting: typed privacy events, the RDP and PLD accountants, one noise calibration routine,
composition theorems, and a budget that refuses to overspend (beyond a relative rounding allowance of 1e-12).

Events (``events``): ``GaussianEvent``, ``LaplaceEvent``, ``PoissonSampledEvent``, ``SelfComposedEvent``,
``ComposedEvent`` describe what was released. Accountants turn them into (ε, δ):

* ``RDPAccountant`` (``rdp``): Rényi DP, same orders and numbers as Google dp_accounting's ``RdpAccountant``
  (add/remove-one neighbours for Poisson sampling);
* ``PLDAccountant`` (``pld``): privacy-loss distributions with pessimistic (upper-bound) discretisation and FFT
  composition, for add/remove-one and replace-one neighbours; tighter than RDP.

``calibrate_noise_multiplier(make_event, target_epsilon, delta, method="rdp" | "pld")`` is the one calibration
routine; ``noise_multiplier_for`` and ``dpsgd_epsilon`` are its DP-SGD shorthands. Estimators report
``privacy_spent_`` as a ``PrivacySpent``: the (ε, δ) pair, the ``method`` that computed it and the neighbouring
``relation`` it holds for. ``compose_*`` and
``BudgetAccountant`` (``budget``) are the pure/approximate DP composition theorems.

Runtime dependencies: NumPy and the standard library only.
"""

from .budget import (
    BudgetAccountant,
    BudgetEntry,
    BudgetExceededError,
    compose_advanced,
    compose_basic,
    compose_parallel,
    compose_sequential,
)
from .calibration import (
    ACCOUNTANT_METHODS,
    PrivacySpent,
    calibrate_noise_multiplier,
    dpsgd_epsilon,
    dpsgd_event,
    epsilon_of_event,
    noise_multiplier_for,
)
from .events import (
    ComposedEvent,
    DpEvent,
    GaussianEvent,
    LaplaceEvent,
    NeighbouringRelation,
    PoissonSampledEvent,
    SelfComposedEvent,
)
from .pld import PLDAccountant, PrivacyLossDistribution
from .rdp import (
    DEFAULT_RDP_ORDERS,
    RDPAccountant,
    rdp_gaussian,
    rdp_laplace,
    rdp_of_event,
    rdp_subsampled_gaussian,
    rdp_to_delta,
    rdp_to_epsilon,
)

__all__ = [
    "DEFAULT_RDP_ORDERS",
    "compose_sequential",
    "compose_parallel",
    "compose_basic",
    "compose_advanced",
    "rdp_gaussian",
    "rdp_laplace",
    "rdp_subsampled_gaussian",
    "rdp_of_event",
    "rdp_to_epsilon",
    "rdp_to_delta",
    "RDPAccountant",
    "PLDAccountant",
    "PrivacyLossDistribution",
    "dpsgd_epsilon",
    "dpsgd_event",
    "noise_multiplier_for",
    "calibrate_noise_multiplier",
    "ACCOUNTANT_METHODS",
    "PrivacySpent",
    "epsilon_of_event",
    "NeighbouringRelation",
    "DpEvent",
    "GaussianEvent",
    "LaplaceEvent",
    "PoissonSampledEvent",
    "SelfComposedEvent",
    "ComposedEvent",
    "BudgetExceededError",
    "BudgetEntry",
    "BudgetAccountant",
]
