"""Functional-mechanism logistic regression: PrivLR, a fair library estimator, and Xu et al.'s PFLR / PFLR*.

All estimators release noisy coefficients of the degree-2 Taylor objective (see ``_functional_core``) and
minimize the repaired noisy quadratic; everything after the release is post-processing.
Neighbouring relation: replace-one (n public), the papers' "2·max" sensitivities.

Two modes:

* ``paper_faithful=True`` — the published algorithm on the paper's domain [0, 1]^d (rows projected into it),
  the paper's sensitivity formula, no intercept, spectral trimming of the noisy Q. Where the pseudo-code uses a
  raw data statistic (s̄ in PFLR's |s − s̄| and in PFLR*'s μ) we use ``sensitive_mean`` if given (public), else a
  Laplace estimate of the group-1 count spending 1% of the budget (named in each docstring).
* library default — sensitivity from the declared ``domain`` (``None``: the domain a DomainEncoder's output
  carries, else [0, 1]^d) plus a constant-1 intercept column, post-processing of the noisy coefficients with the
  domain's public facts (``structural_repair``), eigenvalue trimming after a ridge matched to the noise's spectral
  scale, and fairness as the exact constraint |μ̃ᵀw| <= tau, μ̃ = x̄̃_1 − x̄̃_0 from noisy per-group sums and counts
  released with the coefficients (charged to the budget). tau is in units of the decision score: the group means
  of xᵀw + b differ by at most tau.
"""

from __future__ import annotations

import numpy as np

from .._validation import NON_NEGATIVE, POSITIVE_OR_INF, PROBABILITY, StrOptions
from ._functional_base import (
    COMMON_CONSTRAINTS,
    FAIR_LINEAR_WEIGHT,
    FAIR_RIDGE_FACTOR,
    GROUP_STATS_WEIGHT,  # noqa: F401  (the library constants stay importable from here)
    MEAN_SHARE,
    RIDGE_FACTOR,  # noqa: F401
    SENSITIVE_MEAN,
    FunctionalBase,
    ReleasePlan,
    ding_sensitivity_l2,
    document,
    init_common,
    joint_block,
    sqrt2_offdiagonal,
)
from ._functional_core import NoiseBlock

__all__ = ["FunctionalMechanismLR", "FairFunctionalMechanismLR", "PFLR", "PFLRStar"]

MECHANISM = [StrOptions({"laplace", "gaussian"})]

_XU_PARAMETERS = """    tau : float >= 0, default 0.1
        Bound on |μ̃ᵀw| (decision-score units).
    paper_faithful : bool, default False
        Run the published algorithm (its domain [0, 1]^d, sensitivity formula and no intercept).
    sensitive_mean : float in [0, 1] or None, default None
        Public share of group 1 for the paper-faithful s̄; None: a noisy count.
    declared_groups : array-like or None, default None
        Public group labels (exactly two).
"""
"""The numpydoc lines PFLR and PFLR* share (after their own)."""


@document(
    """    epsilon : float > 0 or inf, default 1.0
        The budget (inf: a non-private release).
    mechanism : {"laplace", "gaussian"}, default "laplace"
    delta : float in (0, 1), default 1e-5
        δ of the Gaussian mechanism.
    paper_faithful : bool, default False
        Run the published algorithm (its domain [0, 1]^d, sensitivity formula and no intercept).
""")
class FunctionalMechanismLR(FunctionalBase):
    """PrivLR: logistic regression by the functional mechanism (Zhang et al. 2012), no fairness.

    Releases r = [Σ(½ − y_i)x_i ; ⅛Σx_ij² ; ⅛Σ2x_ij x_ik] + noise and minimizes the repaired noisy quadratic.
    mechanism="laplace": Lap(Δ₁/ε) per coefficient, ε-DP. mechanism="gaussian": the relaxed functional
    mechanism (Ding et al. Alg. 2), N(0, σ²) per coefficient, (ε, δ)-DP.
    Sensitivities (replace-one): paper-faithful Laplace Δ₁ = d²/4 + d (Xu et al. Eq. 8); paper-faithful
    Gaussian Δ₂ = √(d²/16 + d) (Ding et al. Lemma 3) with their "extended Gaussian" σ — that bound holds for the
    ordered-pair (Frobenius) layout of Q, so the cross monomials get √2× the noise (the exact equivalent);
    library default: the declared domain's bound for the released vector (intercept column included),
    analytic-Gaussian σ. ``epsilon=np.inf`` (explicit) releases without noise: privacy_spent_ = (inf, 0).
    ``sensitive_features`` are accepted (length-checked) and unused: no ``groups_`` is set from them.
    """

    _ignores_sensitive_features = True
    _parameter_constraints = {
        **COMMON_CONSTRAINTS,
        "epsilon": [POSITIVE_OR_INF],
        "mechanism": MECHANISM,
        "delta": [PROBABILITY],
        "paper_faithful": ["boolean"],
    }

    def __init__(self, *, epsilon=1.0, mechanism="laplace", delta=1e-5, paper_faithful=False, domain=None,
                 domain_policy="clip", fit_intercept=True, ridge="auto", backend="native", n_threads=None,
                 random_state=None, secure=False, accountant=None, max_features="auto", refinement_rounds="auto"):
        self.epsilon = epsilon
        self.mechanism = mechanism
        self.delta = delta
        self.paper_faithful = paper_faithful
        init_common(self, domain=domain, domain_policy=domain_policy, fit_intercept=fit_intercept, ridge=ridge,
                    backend=backend, n_threads=n_threads, random_state=random_state, accountant=accountant,
                    secure=secure, max_features=max_features, refinement_rounds=refinement_rounds)

    def _plan(self, ctx, rng):
        from ..domain import paper_sensitivity_privlr

        eps = float(self.epsilon)
        mask = ctx.mask_coef()
        if self.mechanism == "laplace":
            sens = paper_sensitivity_privlr(ctx.d) if ctx.faithful else self.sensitivity(ctx, "l1")
            return ReleasePlan([NoiseBlock("coefficients", mask, "laplace", float(sens), eps)])
        delta = float(self.delta)
        if ctx.faithful:
            blk = NoiseBlock("coefficients", mask, "gaussian", ding_sensitivity_l2(ctx.d, 0.5), eps, delta,
                             calibration="extended", weights=sqrt2_offdiagonal(ctx, mask))
        else:
            blk = NoiseBlock("coefficients", mask, "gaussian", self.sensitivity(ctx, "l2"), eps, delta)
        return ReleasePlan([blk])


@document(
    """    epsilon : float > 0 or inf, default 1.0
        The budget (inf: a non-private release).
    delta : float in (0, 1), default 1e-5
    mechanism : {"gaussian", "laplace"}, default "gaussian"
    tau : float >= 0, default 0.0625
        Bound on |μ̃ᵀw| (decision-score units).
    declared_groups : array-like or None, default None
        Public group labels (exactly two).
""",
    """    groups_ : ndarray (2,)
""")
class FairFunctionalMechanismLR(FunctionalBase):
    """The library's DP + fair logistic regression: functional mechanism + exact decision-boundary constraint.

    One release (replace-one) of the Taylor coefficients together with the per-group sums of x and group
    counts, sensitivity from the declared domain (intercept column included): Gaussian with analytic σ
    ((ε, δ)-DP; joint L2 sensitivity √((Δ_lin/β)² + Δ_quad² + (Δ_g/ω)²)) or Laplace (ε-DP; Δ_lin/β + Δ_quad +
    Δ_g/ω), the linear coefficients and the group statistics being released divided by the weights β and ω below
    and multiplied back (so they carry β and ω times the noise scale; ``joint_block``). The model minimizes the
    repaired noisy quadratic subject to |μ̃ᵀw| <= tau, μ̃ = x̄̃_1 − x̄̃_0 (noisy centroids) — free post-processing,
    and independent of which group is coded 1.

    Library defaults (none chosen on a test split): the linear coefficients get weight β = FAIR_LINEAR_WEIGHT = 2
    (twice the noise, a smaller share of the sensitivity: Δ₂ = √((Δ_lin/β)² + Δ_quad² + (Δ_g/ω)²)), the group
    statistics ω = GROUP_STATS_WEIGHT = 4; Q̃ and b̃ are post-processed with the domain's public facts and
    James–Stein shrinkage (``structural_repair``); ridge FAIR_RIDGE_FACTOR = 0.15 × the noise's spectral scale
    (chosen among {0.15, 0.3, 0.6} on the same validation splits); tau = 0.0625,
    the largest of {0.05, 0.0625, 0.075, 0.1} whose risk difference on validation splits of Adult's training
    portions was <= 0.03 (tau is in decision-score units: the groups' mean scores differ by at most tau; the
    Taylor score is ≈ 4·(P(y=1|x) − ½), so 0.0625 bounds the mean predicted-probability gap by ≈ 0.016).
    """

    _fair = True
    requires_sensitive_features = True
    _ridge_factor = FAIR_RIDGE_FACTOR
    _parameter_constraints = {
        **COMMON_CONSTRAINTS,
        "epsilon": [POSITIVE_OR_INF],
        "delta": [PROBABILITY],
        "mechanism": MECHANISM,
        "tau": [NON_NEGATIVE],
        "declared_groups": ["array-like", None],
    }

    def __init__(self, *, epsilon=1.0, delta=1e-5, mechanism="gaussian", tau=0.0625, domain=None, domain_policy="clip",
                 fit_intercept=True, ridge="auto", backend="native", n_threads=None, random_state=None,
                 secure=False, accountant=None, max_features="auto", refinement_rounds=0, declared_groups=None):
        self.epsilon = epsilon
        self.delta = delta
        self.mechanism = mechanism
        self.tau = tau
        self.declared_groups = declared_groups
        init_common(self, domain=domain, domain_policy=domain_policy, fit_intercept=fit_intercept, ridge=ridge,
                    backend=backend, n_threads=n_threads, random_state=random_state, accountant=accountant,
                    secure=secure, max_features=max_features, refinement_rounds=refinement_rounds)

    def _plan(self, ctx, rng):
        block = joint_block(self, ctx, float(self.epsilon), self.mechanism, self.delta,
                            linear_weight=FAIR_LINEAR_WEIGHT)
        return ReleasePlan([block], "group")


@document(
    """    epsilon : float > 0 or inf, default 1.0
        The budget (inf: a non-private release).
""" + _XU_PARAMETERS,
    """    groups_ : ndarray (2,)
""")
class PFLR(FunctionalBase):
    """PFLR (Xu, Yuan & Wu 2019, Algorithm 1): functional mechanism on the fairness-penalized objective, ε-DP.

    paper_faithful=True: linear coefficients Σ_i (½ − y_i + |s_i − s̄|) x_i (the paper's Line 3), Laplace noise
    with Δ = d²/4 + 3d (Eq. 14) on every coefficient. s̄ is not used raw: ``sensitive_mean`` (public) or a
    Laplace count of group 1 with 1% of ε (the coefficients get the other 99%); privacy_spent_ = (ε, 0).
    Library default: one Laplace release of coefficients + group sums/counts (sensitivity Δ_f + Δ_g/ω from the
    domain: the group statistics are released divided by ω = GROUP_STATS_WEIGHT = 4 and multiplied back, so they
    carry 4× the noise scale), then the exact constraint |μ̃ᵀw| <= tau instead of the penalty.
    """

    _fair = True
    _faithful_offset = True
    requires_sensitive_features = True
    _parameter_constraints = {
        **COMMON_CONSTRAINTS,
        "epsilon": [POSITIVE_OR_INF],
        "tau": [NON_NEGATIVE],
        "paper_faithful": ["boolean"],
        "sensitive_mean": SENSITIVE_MEAN,
        "declared_groups": ["array-like", None],
    }

    def __init__(self, *, epsilon=1.0, tau=0.1, paper_faithful=False, sensitive_mean=None, domain=None,
                 domain_policy="clip", fit_intercept=True, ridge="auto", backend="native", n_threads=None,
                 random_state=None, secure=False, accountant=None, max_features="auto", refinement_rounds=0,
                 declared_groups=None):
        self.epsilon = epsilon
        self.tau = tau
        self.sensitive_mean = sensitive_mean
        self.declared_groups = declared_groups
        self.paper_faithful = paper_faithful
        init_common(self, domain=domain, domain_policy=domain_policy, fit_intercept=fit_intercept, ridge=ridge,
                    backend=backend, n_threads=n_threads, random_state=random_state, accountant=accountant,
                    secure=secure, max_features=max_features, refinement_rounds=refinement_rounds)

    def _plan(self, ctx, rng):
        from ..domain import paper_sensitivity_pflr

        eps = float(self.epsilon)
        if ctx.faithful:
            count_eps = 0.0 if self.sensitive_mean is not None else MEAN_SHARE * eps
            blk = NoiseBlock("coefficients", ctx.mask_coef(), "laplace", float(paper_sensitivity_pflr(ctx.d)),
                             eps - count_eps if np.isfinite(eps) else eps)
            return ReleasePlan([blk], None, count_eps)
        return ReleasePlan([joint_block(self, ctx, eps, "laplace", None)], "group")


@document(
    """    epsilon : float > 0 or inf, default 1.0
        The budget (inf: a non-private release).
    objective_fraction : float in (0, 1), default 0.5
        ε_f/ε, the objective's share of the budget.
""" + _XU_PARAMETERS,
    """    groups_ : ndarray (2,)
    shift_orientation_ : float
        ±1, the sign of the μ̃ shift (paper-faithful mode only).
""")
class PFLRStar(FunctionalBase):
    """PFLR* (Xu, Yuan & Wu 2019, Algorithm 2): budget ε = ε_f + ε_g, ε_f = objective_fraction·ε.

    paper_faithful=True: coefficients + Lap(Δ_f/ε_f), Δ_f = d²/4 + d (Eq. 8); μ = Σ_i (s_i − s̄) x_i + Lap(Δ_g/ε_g),
    Δ_g = 2d (Eq. 16); the linear coefficients are shifted by ±μ̃. Two deviations, both forced by the DP rules:
    s̄ is ``sensitive_mean`` (public) or a Laplace count with 1% of ε_g; and the shift's sign is chosen so that
    it lowers the covariance of s and the score of the unshifted private solution (sign(μ̃ᵀw̃₀), post-
    processing) — the paper's fixed "+μ" increases unfairness when the privileged group is coded 0.
    ``shift_orientation_`` records the sign.
    Library default: Laplace coefficients (ε_f, domain Δ_f) and group sums/counts (ε_g, domain Δ_g); the exact
    constraint |μ̃ᵀw| <= tau replaces the full-weight shift (which overshoots: on Adult it favours the other
    group). privacy_spent_ = (ε_f + ε_g, 0).
    """

    _fair = True
    requires_sensitive_features = True
    _parameter_constraints = {
        **COMMON_CONSTRAINTS,
        "epsilon": [POSITIVE_OR_INF],
        "objective_fraction": [PROBABILITY],
        "tau": [NON_NEGATIVE],
        "paper_faithful": ["boolean"],
        "sensitive_mean": SENSITIVE_MEAN,
        "declared_groups": ["array-like", None],
    }

    def __init__(self, *, epsilon=1.0, objective_fraction=0.5, tau=0.1, paper_faithful=False, sensitive_mean=None,
                 domain=None, domain_policy="clip", fit_intercept=True, ridge="auto", backend="native",
                 n_threads=None, random_state=None, secure=False, accountant=None, max_features="auto",
                 refinement_rounds=0, declared_groups=None):
        self.epsilon = epsilon
        self.objective_fraction = objective_fraction
        self.tau = tau
        self.sensitive_mean = sensitive_mean
        self.declared_groups = declared_groups
        self.paper_faithful = paper_faithful
        init_common(self, domain=domain, domain_policy=domain_policy, fit_intercept=fit_intercept, ridge=ridge,
                    backend=backend, n_threads=n_threads, random_state=random_state, accountant=accountant,
                    secure=secure, max_features=max_features, refinement_rounds=refinement_rounds)

    def _split(self):
        eps, frac = float(self.epsilon), float(self.objective_fraction)
        return eps * frac, eps * (1.0 - frac) if np.isfinite(eps) else eps

    def _plan(self, ctx, rng):
        from ..domain import paper_sensitivity_mu, paper_sensitivity_privlr

        eps_f, eps_g = self._split()
        if ctx.faithful:
            count_eps = 0.0 if self.sensitive_mean is not None else MEAN_SHARE * eps_g
            mu_eps = eps_g - count_eps if np.isfinite(eps_g) else eps_g
            blocks = [
                NoiseBlock("coefficients", ctx.mask_coef(n_stats=ctx.d0), "laplace",
                           float(paper_sensitivity_privlr(ctx.d)), eps_f),
                NoiseBlock("mu", ctx.mask_stats(ctx.d0), "laplace", float(paper_sensitivity_mu(ctx.d0)), mu_eps),
            ]
            return ReleasePlan(blocks, "mu", count_eps)
        k = ctx.n_group_stats
        blocks = [
            NoiseBlock("coefficients", ctx.mask_coef(n_stats=k), "laplace", self.sensitivity(ctx, "l1"), eps_f),
            NoiseBlock("group_stats", ctx.mask_stats(k), "laplace", self.group_sensitivity(ctx, "l1"), eps_g),
        ]
        return ReleasePlan(blocks, "group")
