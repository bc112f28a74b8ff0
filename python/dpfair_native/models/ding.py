"""Ding et al. (AAAI 2020): PDFC (Laplace) and ADFC (Gaussian) — one attribute x_s gets its own budget.

The monomials involving w_s (Φ_s: w_s, w_s², w_s·w_j) are released with budget ε_s (and δ_s), the rest (Φ_n)
with ε_n (δ_n). Neighbouring relation: replace-one.

Privacy accounting (DP rule 3): both blocks are computed from the same rows, so a neighbouring data set moves
both; the release is (ε_s + ε_n, δ_s + δ_n)-DP by sequential composition, which is what ``privacy_spent_``
reports. The papers' figure ε = ε_s/d + (d − 1)ε_n/d (and δ = 1 − (1 − δ_s)(1 − δ_n)) is exposed as
``epsilon_claimed_`` / ``delta_claimed_``; it is not a valid bound: it is a weighted average of ε_s and ε_n, so it
lies between them, and when ε_s < ε_n it is below ε_n — less than what the Φ_n block alone costs.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np

from .._validation import NON_NEGATIVE, POSITIVE_OR_INF, PROBABILITY
from ._functional_base import (
    COMMON_CONSTRAINTS,
    MEAN_SHARE,
    SENSITIVE_MEAN,
    FunctionalBase,
    ReleasePlan,
    ding_sensitivity_l2,
    document,
    init_common,
    joint_block,
    sqrt2_offdiagonal,
)
from ._functional_core import NoiseBlock, monomial_mask

__all__ = ["PDFC", "ADFC"]

_DING_PARAMETERS = """    attribute : int, str or "random", default "random"
        x_s: a column index, a feature name of the domain, or a public random choice.
    tau : float >= 0, default 0.1
        Bound on |μ̃ᵀw| (decision-score units).
    paper_faithful : bool, default False
        Run the published algorithm (domain [0, 1]^d, the paper's sensitivity and calibration, no intercept).
    sensitive_mean : float in [0, 1] or None, default None
        Public share of group 1 for the paper-faithful s̄; None: a noisy count.
    declared_groups : array-like or None, default None
        Public group labels (exactly two).
"""
_DING_ATTRIBUTES = """    groups_ : ndarray (2,)
    attribute_ : int
        The index of x_s.
    epsilon_claimed_ : float
        The paper's ε figure ε_s/d + (d − 1)ε_n/d (not a valid bound).
    delta_claimed_ : float
        The paper's δ figure.
"""


class _DingBase(FunctionalBase):
    _fair = True
    _faithful_offset = True
    requires_sensitive_features = True
    _parameter_constraints = {
        **COMMON_CONSTRAINTS,
        "epsilon_s": [POSITIVE_OR_INF],
        "epsilon_n": [POSITIVE_OR_INF],
        "attribute": [str, Integral],  # a column index, a feature name or "random": checked against the domain in fit
        "tau": [NON_NEGATIVE],
        "paper_faithful": ["boolean"],
        "sensitive_mean": SENSITIVE_MEAN,
        "declared_groups": ["array-like", None],
    }

    def _required_columns(self, ctx):
        """A declared attribute x_s is kept by the feature selection (its index in X)."""
        attr = self.attribute
        return () if isinstance(attr, str) and attr == "random" else (self._column(ctx, None),)

    def _column(self, ctx, rng) -> int:
        """x_s's index among the model's columns (the selected ones, when a selection ran)."""
        attr = self.attribute
        if isinstance(attr, str) and attr == "random":
            return int(rng.integers(ctx.d0))  # a public, data-independent choice from the estimator's rng
        if ctx.columns is not None and not isinstance(attr, str):  # required: the selection kept it
            return int(np.searchsorted(ctx.columns, attr))
        if isinstance(attr, str):
            names = getattr(ctx.domain, "names", None)
            if ctx.faithful or names is None or attr not in tuple(names):
                raise ValueError(
                    f"attribute {attr!r} is not a feature name of the domain; pass a column index, 'random', "
                    "or a domain built with names (FeatureDomain.from_dataset)"
                )
            return int(tuple(names).index(attr))
        if isinstance(attr, (bool, np.bool_)) or not isinstance(attr, (int, np.integer)) or not 0 <= attr < ctx.d0:
            raise ValueError(f"attribute must be a column index in [0, {ctx.d0}), a feature name or 'random', "
                             f"got {attr!r}")
        return int(attr)

    def _claimed(self, ctx):
        d = ctx.d0
        eps = self._eps_s / d + (d - 1) * self._eps_n / d
        delta = 1.0 - (1.0 - self._delta_s) * (1.0 - self._delta_n)
        return float(eps), float(delta)

    _mechanism = "laplace"  # PDFC; ADFC: "gaussian"

    def _deltas(self):
        """(δ_s, δ_n): 0 for the pure-DP PDFC."""
        return 0.0, 0.0

    def _faithful_blocks(self, ctx, phi_s, eps_s, eps_n):
        """The paper's two blocks (its sensitivity formula and calibration), ε_n net of the s̄ count."""
        raise NotImplementedError

    def _plan(self, ctx, rng):
        """Φ_s with (ε_s, δ_s); Φ_n with (ε_n, δ_n) — in the library mode joined by the group statistics."""
        eps_s, eps_n = float(self.epsilon_s), float(self.epsilon_n)
        delta_s, delta_n = self._deltas()
        self._eps_s, self._eps_n, self._delta_s, self._delta_n = eps_s, eps_n, delta_s, delta_n
        col, phi_s = self._masks(ctx, rng)
        if ctx.faithful:
            count_eps = 0.0 if self.sensitive_mean is not None else MEAN_SHARE * eps_n
            rest = eps_n - count_eps if np.isfinite(eps_n) else eps_n
            return ReleasePlan(self._faithful_blocks(ctx, phi_s, eps_s, rest), None, count_eps)
        mech = self._mechanism
        sens_s, sens_n = ctx.model_domain.functional_sensitivity_split(col, norm="l1" if mech == "laplace" else "l2")
        blocks = [
            NoiseBlock("phi_s", ctx.mask_coef(phi_s, n_stats=ctx.n_group_stats), mech, float(sens_s), eps_s, delta_s),
            joint_block(self, ctx, eps_n, mech, delta_n, coef_mask=~phi_s, coef_sens=float(sens_n),
                        label="phi_n+group_stats"),
        ]
        return ReleasePlan(blocks, "group")

    def _fit_rows(self, rows, group_labels, rng, selection=None):
        out = super()._fit_rows(rows, group_labels, rng, selection)
        out["attribute_"] = self._attribute_index
        return out

    def _masks(self, ctx, rng):
        col = self._column(ctx, rng)
        self._attribute_index = col if ctx.columns is None else int(ctx.columns[col])
        phi_s = monomial_mask(ctx.d, [col])
        return col, phi_s


@document(
    """    epsilon_s : float > 0 or inf, default 0.5
        Budget of Φ_s (the monomials with w_s).
    epsilon_n : float > 0 or inf, default 0.5
        Budget of Φ_n (the rest).
""" + _DING_PARAMETERS, _DING_ATTRIBUTES)
class PDFC(_DingBase):
    """PDFC (Ding et al. Algorithm 1): Laplace noise with budget ε_s on Φ_s and ε_n on Φ_n.

    paper_faithful=True: linear coefficients Σ_i (½ − y_i + |s_i − s̄|) x_i (the fairness penalty as in Xu et
    al.'s PFLR), Δ₁ = d²/4 + 3d (Lemma 2) for both blocks, s̄ = ``sensitive_mean`` or a Laplace count with 1% of
    ε_n. Library default: (Δ_s, Δ_n) from ``domain.functional_sensitivity_split``; the group sums/counts ride
    with the Φ_n block, divided by ω = GROUP_STATS_WEIGHT = 4 and multiplied back (sensitivity Δ_n + Δ_g/ω, 4× the
    noise scale on them); the exact constraint |μ̃ᵀw| <= tau.
    privacy_spent_ = (ε_s + ε_n, 0); epsilon_claimed_ = ε_s/d + (d − 1)ε_n/d. ``attribute_`` is x_s's index.
    """

    def __init__(self, *, epsilon_s=0.5, epsilon_n=0.5, attribute="random", tau=0.1, paper_faithful=False,
                 sensitive_mean=None, domain=None, domain_policy="clip", fit_intercept=True, ridge="auto",
                 backend="native", n_threads=None, random_state=None, secure=False, accountant=None,
                 max_features="auto", refinement_rounds=0,
                 declared_groups=None):
        self.epsilon_s = epsilon_s
        self.epsilon_n = epsilon_n
        self.attribute = attribute
        self.tau = tau
        self.sensitive_mean = sensitive_mean
        self.declared_groups = declared_groups
        self.paper_faithful = paper_faithful
        init_common(self, domain=domain, domain_policy=domain_policy, fit_intercept=fit_intercept, ridge=ridge,
                    backend=backend, n_threads=n_threads, random_state=random_state, accountant=accountant,
                    secure=secure, max_features=max_features, refinement_rounds=refinement_rounds)

    def _faithful_blocks(self, ctx, phi_s, eps_s, eps_n):
        from ..paper_formulas import paper_sensitivity_pflr

        sens = float(paper_sensitivity_pflr(ctx.d))
        return [NoiseBlock("phi_s", phi_s, "laplace", sens, eps_s),
                NoiseBlock("phi_n", ~phi_s, "laplace", sens, eps_n)]


@document(
    """    epsilon_s : float > 0 or inf, default 0.5
    delta_s : float in (0, 1), default 5e-6
        (ε_s, δ_s) of Φ_s (the monomials with w_s).
    epsilon_n : float > 0 or inf, default 0.5
    delta_n : float in (0, 1), default 5e-6
        (ε_n, δ_n) of Φ_n (the rest).
""" + _DING_PARAMETERS, _DING_ATTRIBUTES)
class ADFC(_DingBase):
    """ADFC (Ding et al. Algorithm 3): Gaussian noise, (ε_s, δ_s) on Φ_s and (ε_n, δ_n) on Φ_n.

    paper_faithful=True: the PFLR-style penalty coefficients, Δ₂ = √(d²/16 + 9d) (Lemma 4) for both blocks,
    Ding et al.'s "extended Gaussian" σ; their Δ₂ bounds the ordered-pair (Frobenius) layout of Q, so the cross
    monomials get √2× the noise (exactly that layout). s̄: ``sensitive_mean`` or a Laplace count with 1% of ε_n.
    Library default: (Δ_s, Δ_n) L2 from ``domain.functional_sensitivity_split``, analytic-Gaussian σ, the group
    sums/counts ride with Φ_n divided by ω = GROUP_STATS_WEIGHT = 4 (L2 sensitivity √(Δ_n² + (Δ_g/ω)²), 4× the
    noise scale on them), the exact constraint |μ̃ᵀw| <= tau.
    privacy_spent_ = (ε_s + ε_n, δ_s + δ_n); epsilon_claimed_/delta_claimed_ are the paper's figures.
    """

    _mechanism = "gaussian"
    _parameter_constraints = {
        **_DingBase._parameter_constraints,
        "delta_s": [PROBABILITY],
        "delta_n": [PROBABILITY],
    }

    def __init__(self, *, epsilon_s=0.5, delta_s=5e-6, epsilon_n=0.5, delta_n=5e-6, attribute="random", tau=0.1,
                 paper_faithful=False, sensitive_mean=None, domain=None, domain_policy="clip", fit_intercept=True,
                 ridge="auto", backend="native", n_threads=None, random_state=None, secure=False,
                 accountant=None, max_features="auto", refinement_rounds=0, declared_groups=None):
        self.epsilon_s = epsilon_s
        self.delta_s = delta_s
        self.epsilon_n = epsilon_n
        self.delta_n = delta_n
        self.attribute = attribute
        self.tau = tau
        self.sensitive_mean = sensitive_mean
        self.declared_groups = declared_groups
        self.paper_faithful = paper_faithful
        init_common(self, domain=domain, domain_policy=domain_policy, fit_intercept=fit_intercept, ridge=ridge,
                    backend=backend, n_threads=n_threads, random_state=random_state, accountant=accountant,
                    secure=secure, max_features=max_features, refinement_rounds=refinement_rounds)

    def _deltas(self):
        return float(self.delta_s), float(self.delta_n)

    def _faithful_blocks(self, ctx, phi_s, eps_s, eps_n):
        sens = ding_sensitivity_l2(ctx.d, 1.5)
        return [NoiseBlock("phi_s", phi_s, "gaussian", sens, eps_s, float(self.delta_s), calibration="extended",
                           weights=sqrt2_offdiagonal(ctx, phi_s)),
                NoiseBlock("phi_n", ~phi_s, "gaussian", sens, eps_n, float(self.delta_n), calibration="extended",
                           weights=sqrt2_offdiagonal(ctx, ~phi_s))]
