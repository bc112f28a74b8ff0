"""What the functional-mechanism estimators share (``functional.py``, ``ding.py``): the fit context, the release
plan, one fit routine (plan, account, release once, repair, solve), the joint coefficient + group-statistics block,
and the library's constants.

Names here are public within the package (no leading underscore): the estimator modules import them.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any, Dict, List, NamedTuple, Optional

import numpy as np

from .._validation import BACKEND, NON_NEGATIVE, POSITIVE_INT, Interval, StrOptions
from ..accountants import BudgetAccountant, PrivacySpent
from ..accountants.budget import step_down
from ..domain import AssumedDomainWarning, FeatureDomain
from ._base import DPClassifierBase, user_stacklevel
from ._functional_core import (
    FunctionalRelease,
    NoiseBlock,
    augment_domain,
    centroid_difference,
    default_domain,
    logistic_gradient,
    noise_spectral_scale,
    offdiagonal_mask,
    pack_monomials,
    release_blocks,
    rows_in_domain,
    solve_release,
    structural_repair,
    taylor_terms_in_domain,
    unpack_monomials,
)

# Share of a budget spent on the private group-1 count when a paper-faithful estimator needs s̄ and no public
# ``sensitive_mean`` is given (DP rule 2: s̄ is data-dependent).
MEAN_SHARE = 0.01

# Ridge = RIDGE_FACTOR × (public estimate of the noise matrix's spectral norm), library default mode only.
RIDGE_FACTOR = 0.3
# FairFunctionalMechanismLR's factor: structural_repair removes part of the noise that estimate counts; chosen on
# validation splits of Adult's training portions among {0.15, 0.3, 0.6} (never the test split).
FAIR_RIDGE_FACTOR = 0.15

# In a joint release the group sums/counts are divided by this weight before the noise is added (and multiplied
# back after): their share of the sensitivity shrinks by it while their noise grows by it — cheap, since a
# group sum is O(n) and only the centroid direction is needed.
GROUP_STATS_WEIGHT = 4.0

# FairFunctionalMechanismLR's weight β on the linear coefficients (β = 2: twice the noise on b, less on Q̃ and on the
# group statistics). Chosen on validation splits of Adult's training portions (never the test split): noise on Q̃
# costs more accuracy than noise on b (see bench/RESULTS.md).
FAIR_LINEAR_WEIGHT = 2.0

# Library default mode: when the noise on the full quadratic would swamp its signal, a private feature selection
# (``dpfair_native.feature_selection``) spends SELECTION_SHARE of the budget choosing the columns and the functional
# mechanism the rest. r = (public spectral scale of the planned noise on Q̃) / (⅛·n·v, the curvature one typical
# column adds to Q; see ``_noise_exceeds_signal``). On Adult (FeatureDomain.from_dataset, n = 36,177, ε = 1), where
# every default of the family reaches its reproduction targets, r is 0.28-2.44 (FairFM 0.28, PDFC 2.44): the
# selection runs when r > SELECTION_TRIGGER = 10 (4× beyond anything seen to work) and then keeps the largest k
# whose r on k unit-width columns is <= SIGNAL_RATIO = 2.5 (the Adult level). None of the three constants was
# tuned on the defaults test's generator; SELECTION_SHARE = 0.2 is set a priori.
SELECTION_SHARE = 0.2
SELECTION_TRIGGER = 10.0
SIGNAL_RATIO = 2.5

# Refinement rounds after the release (``FunctionalBase``, "Refinement"; ``refinement_rounds="auto"``, the default
# of FunctionalMechanismLR). When the public noise a round would add to a typical row's decision score,
# 4·σ_r·√d / (n·√v) (v as in ``_noise_exceeds_signal``), is at most REFINEMENT_TRIGGER (a quarter of a logit unit),
# REFINEMENT_ROUNDS rounds share REFINEMENT_SHARE of the budget. Set a priori, not tuned: the rule is a function of
# (n, d, ε, δ, the domain, the mechanism) only; on Adult (FeatureDomain.from_dataset) that noise is 1.0–1.3/ε
# logits, so rounds run from ε ≈ 5 (forced at ε = 1 they cost accuracy: bench/RESULTS.md, "Session 10").
REFINEMENT_ROUNDS = 3
REFINEMENT_SHARE = 0.2
REFINEMENT_TRIGGER = 0.25

NON_NEGATIVE_INT = Interval(Integral, 0, None, closed="left")

# The parameters every estimator of the family has (see each estimator's table for the rest).
COMMON_CONSTRAINTS: Dict[str, list] = {
    "max_features": [StrOptions({"auto"}), POSITIVE_INT, None],
    "refinement_rounds": [StrOptions({"auto"}), NON_NEGATIVE_INT],
    "domain": [FeatureDomain, None],
    "domain_policy": [StrOptions({"clip", "raise"})],
    "fit_intercept": ["boolean"],
    "ridge": [StrOptions({"auto"}), NON_NEGATIVE],
    "backend": [BACKEND],
    "n_threads": [POSITIVE_INT, None],
    "random_state": ["random_state"],
    "secure": ["boolean"],
    "accountant": [BudgetAccountant, None],
}
SENSITIVE_MEAN = [Interval(Real, 0, 1, closed="both"), None]
"""The public share of group 1 (paper-faithful PFLR, PFLR*, PDFC, ADFC), or None for a private count."""


@dataclass
class FunctionalContext:
    """The public shape of one fit: sizes, mode, domains."""

    n: int
    d0: int  # features
    d: int  # model coefficients (d0 + intercept)
    P: int  # packed monomial coefficients
    faithful: bool
    fit_intercept: bool
    domain: object  # feature domain (rows projected into it)
    model_domain: object  # domain of [x, 1] when fit_intercept
    fair: bool
    columns: Optional[np.ndarray] = None  # the selected columns of X (None: all of them)
    d_in: int = 0  # the number of columns of X

    def mask_coef(self, mask=None, n_stats: int = 0):
        m = np.ones(self.P, dtype=bool) if mask is None else mask
        return np.concatenate([m, np.zeros(n_stats, dtype=bool)])

    def mask_stats(self, n_stats: int, with_coef=None):
        head = np.zeros(self.P, dtype=bool) if with_coef is None else with_coef
        return np.concatenate([head, np.ones(n_stats, dtype=bool)])

    @property
    def n_group_stats(self) -> int:
        return 2 * self.d0 + 2


class ReleasePlan(NamedTuple):
    """What an estimator releases: the noise ``blocks`` over [packed coefficients ; statistics], which statistics
    ride along (``stats``: None, "group" — per-group sums and counts — or "mu" — PFLR*'s Σ (s_i − s̄) x_i), and the
    budget ``count_epsilon`` of the private group-1 count behind s̄ (0: none), and ``selection_epsilon``;
    ``refinement``: the noise block of one refinement round's gradient, released ``rounds`` times (0: none)."""

    blocks: List[NoiseBlock]
    stats: Optional[str] = None
    count_epsilon: float = 0.0
    selection_epsilon: float = 0.0  # the private feature selection run before (pure ε-DP), if any
    refinement: Optional[NoiseBlock] = None
    rounds: int = 0


def sqrt2_offdiagonal(ctx: FunctionalContext, mask: np.ndarray) -> np.ndarray:
    """Weights √2 on cross monomials: the Gaussian release is then the papers' ordered-pair (Frobenius) form."""
    off = offdiagonal_mask(ctx.d)
    return np.where(off[mask], math.sqrt(2.0), 1.0)


def ding_sensitivity_l2(d: int, t_max: float) -> float:
    """Ding et al.'s L2 bounds on [0, 1]^d (ordered-pair layout of Q): √(d²/16 + d) for the plain logistic
    objective (Lemma 3, t_max = ½), √(d²/16 + 9d) with the |z − z̄| fairness term (Lemma 4, t_max = 3/2)."""
    from ..domain import paper_sensitivity_adfc_l2, paper_sensitivity_relaxed_fm_l2

    return float(paper_sensitivity_relaxed_fm_l2(d) if t_max <= 0.5 else paper_sensitivity_adfc_l2(d))


class InMemoryRows:
    """The rows of one in-memory fit as a source of the sums the functional mechanism releases.

    ``taylor_terms`` gives (b, Q, group_sums, group_counts) of the rows projected into the domain, with row
    weights a_i = ½ − y_i (+ |s_i − s̄| when ``offset_mean`` = s̄ is given) and c = ⅛; ``logistic_gradient(w)`` the
    logistic loss's gradient at w over the same rows; ``count_group(k)`` the number of rows of group k.
    ``dpfair_native.distributed.DaskRows`` has the same interface for Dask arrays.
    """

    def __init__(self, X, y, groups):
        self.X, self.y, self.groups = X, y, groups
        self.shape = X.shape

    def count_group(self, k: int) -> int:
        return int(np.sum(self.groups == k))

    def take_columns(self, columns) -> InMemoryRows:
        """These rows restricted to ``columns`` (a released selection)."""
        return InMemoryRows(self.X[:, columns], self.y, self.groups)

    def select_features(self, domain, policy, k, epsilon, rng, required):
        """``feature_selection.select_features`` on these rows (``FunctionalBase._select``); policy "raise": the
        domain's own error (first row and column outside) before anything is drawn."""
        from ..feature_selection import select_features

        if policy == "raise" and not domain.contains_all(self.X):
            domain.project(self.X, policy="raise")
        return select_features(self.X, self.y, domain, k, epsilon, rng, policy=policy, required=required)

    def logistic_gradient(self, domain, policy, w, *, fit_intercept, n_threads, backend):
        if getattr(self, "_in_domain", None) is None or self._in_domain[0] is not domain:  # once per fit
            self._in_domain = (domain, rows_in_domain(domain, policy, self.X))
        return logistic_gradient(self._in_domain[1], self.y, w, fit_intercept=fit_intercept, n_threads=n_threads,
                                 backend=backend)

    def taylor_terms(self, domain, policy, *, offset_mean, fit_intercept, fair, n_threads, backend):
        a = 0.5 - self.y
        if offset_mean is not None:
            a = a + np.abs(self.groups - offset_mean)
        return taylor_terms_in_domain(
            domain, policy, self.X, a, 0.125, fit_intercept=fit_intercept, groups=self.groups if fair else None,
            n_groups=2 if fair else None, n_threads=n_threads, backend=backend,
        )


def init_common(est, *, domain, domain_policy, fit_intercept, ridge, backend, n_threads, random_state, accountant,
                secure=False, max_features="auto", refinement_rounds="auto"):
    """Set the parameters every estimator of the family has (scikit-learn: __init__ only stores them)."""
    est.max_features = max_features
    est.refinement_rounds = refinement_rounds
    est.domain = domain
    est.domain_policy = domain_policy
    est.fit_intercept = fit_intercept
    est.ridge = ridge
    est.backend = backend
    est.n_threads = n_threads
    est.random_state = random_state
    est.accountant = accountant
    est.secure = secure


def joint_block(est, ctx, eps, mechanism, delta, coef_mask=None, coef_sens=None, label="coefficients+group_stats",
                linear_weight=1.0):
    """One block over (some) coefficients and the weighted group statistics; sensitivities add (L1) or add in
    quadrature (L2) because both parts move with the same replaced row.

    Weights (value / weight gets the mechanism's noise, then is multiplied back): the group statistics
    GROUP_STATS_WEIGHT ω; with all coefficients (coef_mask None) the linear coefficients ``linear_weight`` β.
    Δ₂ = √((Δ_lin/β)² + Δ_quad² + (Δ_g/ω)²), Δ₁ = Δ_lin/β + Δ_quad + Δ_g/ω (each block's own replace-one
    maximum; β = 1 keeps the domain's joint bound for the coefficients).
    """
    k = ctx.n_group_stats
    beta = float(linear_weight) if coef_mask is None else 1.0
    coef_mask = np.ones(ctx.P, dtype=bool) if coef_mask is None else coef_mask
    mask = ctx.mask_stats(k, with_coef=coef_mask)
    coef_w = np.ones(ctx.P)
    coef_w[: ctx.d] = beta
    weights = np.concatenate([coef_w[coef_mask], np.full(k, GROUP_STATS_WEIGHT)])
    norm = "l1" if mechanism == "laplace" else "l2"
    if coef_sens is not None:
        sens_f = coef_sens
    elif beta == 1.0:
        sens_f = est.sensitivity(ctx, norm)
    else:
        lin, quad = ctx.model_domain.functional_sensitivity_blocks(norm=norm)
        sens_f = lin / beta + quad if norm == "l1" else math.hypot(lin / beta, quad)
    if mechanism == "laplace":
        sens = sens_f + est.group_sensitivity(ctx, "l1") / GROUP_STATS_WEIGHT
        return NoiseBlock(label, mask, "laplace", float(sens), eps, weights=weights)
    sens = math.hypot(sens_f, est.group_sensitivity(ctx, "l2") / GROUP_STATS_WEIGHT)
    return NoiseBlock(label, mask, "gaussian", float(sens), eps, float(delta), weights=weights)


def _noise_std(blocks, scale: np.ndarray, P: int) -> np.ndarray:
    """Per packed coefficient, the std of its noise (Laplace scale b has std √2·b)."""
    std = np.zeros(P)
    for blk in blocks:
        m = blk.mask[:P]
        std[m] = scale[:P][m] * (math.sqrt(2.0) if blk.mechanism == "laplace" else 1.0)
    return std


def _planned_std(blocks, P: int) -> np.ndarray:
    """Per packed coefficient, the std of the noise a plan will add (before it is drawn; public)."""
    from .. import mechanisms

    std = np.zeros(P)
    for blk in blocks:
        m = np.asarray(blk.mask[:P], dtype=bool)
        if not m.any() or np.isinf(blk.epsilon):
            continue
        if blk.mechanism == "laplace":
            base = math.sqrt(2.0) * blk.sensitivity / blk.epsilon
        else:
            base = float(mechanisms.analytic_gaussian_sigma(blk.sensitivity, blk.epsilon, blk.delta))
        w = np.ones(int(blk.mask.sum())) if blk.weights is None else np.asarray(blk.weights, dtype=np.float64)
        std[m] = base * w[: int(m.sum())]
    return std


def _noise_exceeds_signal(std: np.ndarray, ctx: FunctionalContext, domain, ratio: float) -> bool:
    """Whether the public spectral scale of the noise on Q̃ exceeds ``ratio`` × ⅛·n·v, v = median over columns of
    w_j²/12 (the variance of a uniform column of width w_j): the curvature one typical column adds to Q."""
    width = np.asarray(domain.upper, dtype=np.float64) - np.asarray(domain.lower, dtype=np.float64)
    signal = ratio * 0.125 * ctx.n * float(np.median(width**2)) / 12.0
    return noise_spectral_scale(std, ctx.d, 1.0) > signal


def _default_k(n: int, d0: int, eps: float, delta: float, mechanism: str, ctx: FunctionalContext) -> int:
    """The largest k whose FM on k unit-width columns [0, 1]^k (with the intercept, and the group statistics
    when fair) keeps its noise below the signal (``_noise_exceeds_signal``); a public rule of (n, ε, δ, d, the
    mechanism), never of the data. Bisection: the noise grows with k."""

    def too_noisy(k):
        dom = default_domain(k)
        mdom = augment_domain(dom) if ctx.fit_intercept else dom
        norm = "l1" if mechanism == "laplace" else "l2"
        sens = float(mdom.functional_sensitivity(norm=norm))
        if ctx.fair:
            g = float(dom.group_sums_sensitivity(norm)) / GROUP_STATS_WEIGHT
            sens = sens + g if norm == "l1" else math.hypot(sens, g)
        d = k + int(ctx.fit_intercept)
        P = 2 * d + d * (d - 1) // 2
        blk = NoiseBlock("probe", np.ones(P, dtype=bool), mechanism, sens, eps, max(delta, 1e-300))
        kctx = FunctionalContext(n=n, d0=k, d=d, P=P, faithful=False, fit_intercept=ctx.fit_intercept, domain=dom,
                                 model_domain=mdom, fair=ctx.fair)
        return _noise_exceeds_signal(_planned_std([blk], P), kctx, dom, SIGNAL_RATIO)

    lo, hi = 1, d0  # invariant: the answer is in [lo, hi]; k = 1 is always allowed
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if too_noisy(mid):
            hi = mid - 1
        else:
            lo = mid
    return lo


def _per_round(total: float, blocks: List[float], k: int) -> float:
    """(total − Σ blocks)/k, rounded down until Σ blocks + k·share <= total in floating point (inf stays inf)."""
    if math.isinf(total):
        return total
    share = max(0.0, (total - math.fsum(blocks)) / k)
    return step_down(share, lambda x: x <= 0 or math.fsum(blocks + [x] * k) <= total)


class FunctionalBase(DPClassifierBase):
    """Shared fit: plan the noise blocks, check the accountant, release once, repair, solve.

    ``secure`` (every estimator of this family, default False): True releases every noise block (and the noisy s̄
    count of the faithful modes) through the mechanisms' secure path — the value rounded to a 2^k grid, exact
    discrete Laplace / discrete Gaussian noise (CKS 2020) from a ChaCha20 stream keyed by the OS CSPRNG when
    ``random_state`` is None (an int seed derives the keys: reproducible, no guarantee against whoever knows it).
    Sensitivities are inflated by the grid rounding (<= 0.1% more noise while a block's scale stays under 2^23 grid
    units, i.e. below about 4,096 coordinates per unit of ε for a Laplace block; beyond it the grid is coarsened
    and the inflation doubles per step: 0.4 % at d = 200, ε = 1) and Gaussian blocks use the zCDP
    calibration (``mechanisms.secure_gaussian_sigma``) whatever ``calibration`` says; ``noise_scale_`` and the
    repair/ridge use that real noise level. ``privacy_spent_`` is the same (ε, δ) as the float path (the secure
    mechanisms are calibrated to each block's (ε, δ)). Default False because the float path is the papers' and
    is faster (the secure draws run in ~0.5 µs each natively, but the grid bookkeeping is Python; see
    bench/RESULTS.md); the float path is open in principle to floating-point attacks (Mironov 2012).

    ``max_features`` (library mode): when a selection runs it is released first, ε_sel = SELECTION_SHARE·ε
    (pure DP: a Laplace count and k exponential-mechanism rounds, sensitivities from the declared box — see
    ``dpfair_native.feature_selection``), then the functional mechanism on the selected columns with every block's
    ε scaled by 1 − SELECTION_SHARE (δ unchanged), its sensitivities from the declared domain restricted to those
    columns (valid because the selection is public once released). Sequential composition of the two:
    ``privacy_spent_`` = (ε_sel + (1 − SELECTION_SHARE)·ε, δ) = the (ε, δ) the parameters declare.

    Refinement (``refinement_rounds``, library mode). The released quadratic is the degree-2 Taylor expansion of
    the logistic loss L at w = 0, so its minimizer is a linear-probability fit, not logistic regression, however
    small the noise. Because ℓ''(z) = σ(z)(1 − σ(z)) <= ¼, for every w_t

        L(w) <= L(w_t) + g_tᵀ(w − w_t) + (w − w_t)ᵀQ(w − w_t),   g_t = ∇L(w_t) = Σ_i (σ(x̃_iᵀw_t) − y_i) x̃_i,

    with the same Q = ⅛ Σ x̃_i x̃_iᵀ the release carries (Böhning's bound; at w_t = 0, g_0 = b and the bound is the
    released objective). A round releases g̃_t = g_t + noise and moves to the minimizer of this bound with the
    released, repaired Q̃ (trimmed, plus the ridge) under the same fairness constraint: a majorize–minimize step,
    whose fixed points are where g̃ vanishes on the constraint set — logistic regression (with the constraint), not
    the linear-probability fit; Q̃'s noise, covered by a ridge at least its public spectral scale (``_refine``),
    only slows the steps. Q̃ and the constraint's μ̃ are reused
    (post-processing); each round's gradient is a new release computed from the rows projected into the domain.
    Sensitivity (replace-one): a row adds r·x̃ with r = σ(x̃ᵀw_t) − y in (−1, 1), so replacing it moves g_t by at
    most sup ‖r·x̃ − r'·x̃'‖_p <= 2·max_{x in domain} ‖x̃‖_p (p = 1 for Laplace, 2 for Gaussian), and the sup is
    that: take x' → x at a norm-maximizing x with w steep along x − x', so r = σ − 0 → 1 at x (label 0) and
    r' = σ − 1 → −1 at x' (label 1); tests/test_refinement.py checks both sides. Budget: the rounds take
    REFINEMENT_SHARE of the functional mechanism's (ε, δ), split evenly (ε_r = REFINEMENT_SHARE·ε/K,
    δ_r = REFINEMENT_SHARE·δ/K; Laplace when δ = 0, else the analytic Gaussian), the blocks keep
    1 − REFINEMENT_SHARE (the rounds get exactly what that leaves, to the last bit); by sequential (adaptive)
    composition ``privacy_spent_`` stays the declared (ε, δ). "auto" runs REFINEMENT_ROUNDS rounds only where a
    round's public noise on a typical row's score, 4·σ_r·√d / (n·√v), is at most REFINEMENT_TRIGGER logits (v: the
    median column variance w_j²/12 of the domain); there the Taylor objective, not the noise, limits the model
    (large n, small d).
    """

    _fair = False
    _faithful_offset = False  # paper-faithful PFLR/PDFC/ADFC: linear weights ½ − y + |s − s̄|
    _ridge_factor = RIDGE_FACTOR

    # -- to implement --------------------------------------------------------------------------------------
    def _plan(self, ctx: FunctionalContext, rng) -> ReleasePlan:
        raise NotImplementedError

    def _adds_noise(self) -> bool:
        """False only when every budget parameter is infinite (a non-private run)."""
        params = self.get_params(deep=False)
        budgets = [params[k] for k in ("epsilon", "epsilon_s", "epsilon_n") if k in params]
        return not budgets or any(v is None or math.isfinite(float(v)) for v in budgets)

    def _claimed(self, ctx: FunctionalContext):
        return None

    # -- sensitivities of the declared domain ------------------------------------------------------------------
    def sensitivity(self, ctx: FunctionalContext, norm: str) -> float:
        return float(ctx.model_domain.functional_sensitivity(norm=norm))

    def group_sensitivity(self, ctx: FunctionalContext, norm: str) -> float:
        return float(ctx.domain.group_sums_sensitivity(norm))

    # -- fit ---------------------------------------------------------------------------------------------------
    def _declared_domain(self, d0: int):
        """The feature domain of the library mode: ``domain``, else the input's (DomainEncoder), else [0, 1]^d."""
        return self.domain or getattr(self, "_input_domain", None) or default_domain(d0)

    def _context(self, n: int, d0: int, group_labels, columns=None) -> FunctionalContext:
        faithful = bool(getattr(self, "paper_faithful", False))
        if faithful:
            if self.domain is not None:
                raise ValueError("paper_faithful=True uses the paper's domain [0, 1]^d; leave domain=None")
            domain, fit_intercept = default_domain(d0), False
        else:
            domain = self._declared_domain(d0)
            fit_intercept = bool(self.fit_intercept)
        d_in = d0
        if columns is not None:  # the FM runs on the selected columns only
            from ..feature_selection import restrict_domain

            domain, d0 = restrict_domain(domain, columns), len(columns)
        model_domain = augment_domain(domain) if fit_intercept else domain
        d = d0 + int(fit_intercept)
        if self._fair and len(group_labels) != 2:
            if getattr(self, "declared_groups", None) is not None:
                raise ValueError(f"{type(self).__name__} constrains exactly two groups; declared_groups has "
                                 f"{len(group_labels)}: {np.asarray(group_labels).tolist()[:5]}")
            raise ValueError(
                f"{type(self).__name__} needs exactly two groups in sensitive_features, got {len(group_labels)}; "
                "pass declared_groups=[g0, g1] if a group may be absent"
            )
        return FunctionalContext(n=n, d0=d0, d=d, P=2 * d + d * (d - 1) // 2, faithful=faithful,
                                 fit_intercept=fit_intercept, domain=domain, model_domain=model_domain, fair=self._fair,
                                 columns=columns, d_in=d_in)

    def _fit(self, X, y, groups, group_labels, rng):
        return self._fit_selected(InMemoryRows(X, y, groups), group_labels, rng)

    def _fit_selected(self, rows, group_labels, rng) -> Dict[str, Any]:
        """``_select``, then ``_fit_rows`` on the selected columns (``coef_`` 0 on the others).

        The in-memory fit and the Dask fit (``distributed.fit_dask``) both enter here, so both take the same
        selection decision (a public rule) and draw from ``rng`` in the same order.
        """
        selection = self._select(rows, group_labels, rng)
        if selection is None:
            return self._fit_rows(rows, group_labels, rng)
        cols = selection.columns
        out = self._fit_rows(rows.take_columns(cols), group_labels, rng, selection)
        coef = np.zeros(rows.shape[1])
        coef[cols] = out["coef_"]
        out["coef_"] = coef
        return out

    # -- private feature selection (library mode) ---------------------------------------------------------------
    def _select(self, rows, group_labels, rng):
        """The ``FeatureSelection`` to run the FM on, or None for all columns (see ``max_features``).

        ``rows``: ``InMemoryRows`` or ``distributed.DaskRows`` (its ``select_features`` computes the selection's
        sums in one pass over the partitions). Whether "auto" selects is decided from public quantities only —
        n (public under the family's replace-one relation), d, the budget and the declared domain — never from
        the values of the data, so the decision is the same for every pair of neighbouring data sets.
        """
        mf = self.max_features
        n, d0 = rows.shape
        if mf is None:
            return None
        if getattr(self, "paper_faithful", False) or self.secure:
            if mf == "auto":
                return None
            raise ValueError("max_features=<int> runs a float-path selection in the library mode: use it with "
                             "paper_faithful=False and secure=False, or pass max_features=None")
        ctx = self._context(n, d0, group_labels)
        probe = self._plan(ctx, np.random.default_rng(0))  # public: sizes, domain, budgets (a throwaway rng)
        eps, delta = self._check_budget(probe)
        if not np.isfinite(eps):
            if mf == "auto":
                return None
            raise ValueError("max_features=<int> needs a finite budget; with epsilon = inf pass max_features=None")
        if mf == "auto":
            # The public trigger: planned noise (from n, d, the budget, the mechanism and the declared domain)
            # against ⅛·n·v (v from the declared domain). n is public under the FM family's replace-one relation;
            # nothing here reads X or y, so Dask and in-memory input take the same decision.
            if not _noise_exceeds_signal(_planned_std(probe.blocks, ctx.P), ctx, ctx.domain, SELECTION_TRIGGER):
                return None
            k = _default_k(n, d0, (1.0 - SELECTION_SHARE) * eps, delta, probe.blocks[0].mechanism, ctx)
        else:
            k = int(mf)
        required = self._required_columns(ctx)
        k = max(k, len(required), 1)
        if k >= d0:
            return None
        return rows.select_features(ctx.domain, self.domain_policy, k, SELECTION_SHARE * eps, rng, required)

    def _required_columns(self, ctx: FunctionalContext):
        """Columns the selection must keep (PDFC/ADFC: a declared attribute x_s)."""
        return ()

    def _fit_rows(self, rows, group_labels, rng, selection=None) -> Dict[str, Any]:
        """Plan, check the accountant, compute the statistics from ``rows``, release once, repair, solve.

        ``rows`` is where the sums over rows come from: ``InMemoryRows`` (NumPy arrays) or
        ``dpfair_native.distributed.DaskRows`` (per-partition sums on Dask workers). Everything else — the noise
        blocks, the order of the rng draws, the post-processing — is this one code path, so one seed gives the
        same release from either source (up to the float summation order of the sums).
        ``selection`` (a released ``FeatureSelection``, the rows holding its columns only): the plan's budgets
        are scaled by 1 − SELECTION_SHARE and the selection's ε is composed into ``privacy_spent_``.
        """
        columns = None if selection is None else selection.columns
        d_in = rows.shape[1] if selection is None else selection.n_features
        ctx = self._context(rows.shape[0], d_in, group_labels, columns)
        if not ctx.faithful and self.domain is None and getattr(self, "_input_domain", None) is None:
            if isinstance(rows, InMemoryRows):
                why, fix = "X is not a DomainEncoder output", "or encode X with DomainEncoder"
            else:  # Dask keeps plain NumPy metadata: a DomainEncoder output's domain is lost in da.from_array
                why, fix = "a Dask array never carries a DomainEncoder output's domain", "or domain=encoder.domain_"
            warnings.warn(
                f"{type(self).__name__}: no domain declared (domain=None, and {why}), so every feature is assumed to "
                "lie in [0, 1] and values outside it are projected into it; pass domain=FeatureDomain(...) with your "
                f"public bounds, {fix}",
                AssumedDomainWarning, stacklevel=user_stacklevel(),
            )
        plan = self._plan(ctx, rng)
        if selection is not None and selection.epsilon > 0:  # 0: only public (required) columns were kept
            total = math.fsum(blk.epsilon for blk in plan.blocks)
            for blk in plan.blocks:
                blk.epsilon *= 1.0 - SELECTION_SHARE
            # rounding must not lift selection + blocks above the declared ε (it did by one ulp, e.g. 0.9 → 0.9…01)
            largest = max(plan.blocks, key=lambda blk: blk.epsilon)
            others = [selection.epsilon] + [blk.epsilon for blk in plan.blocks if blk is not largest]
            largest.epsilon = step_down(largest.epsilon, lambda eps: math.fsum(others + [eps]) <= total)
            plan = plan._replace(selection_epsilon=selection.epsilon)
        plan = self._with_refinement(ctx, plan)
        spent = self._check_budget(plan)
        keys = None
        if self.secure:
            from .._secure_random import SecureKeys

            keys = SecureKeys(self.random_state)  # ChaCha20 keys; OS entropy when random_state is None
        # s̄ for the paper-faithful variants (public if given, else a noisy count; rows are replace-one, n public)
        s_mean = None
        if ctx.faithful and ctx.fair and (self._faithful_offset or plan.stats == "mu"):
            s_mean = self._sensitive_mean(rows, plan.count_epsilon, rng, ctx.n, keys)
        values = self._statistics(rows, ctx, plan.stats, s_mean)
        noisy, scale = release_blocks(values, plan.blocks, rng, secure_keys=keys)
        if self.accountant is not None:
            self.accountant.spend(*spent, label=type(self).__name__)
        out = self._post_process(ctx, plan, noisy, scale)
        quadratic = out.pop("_quadratic")
        if plan.rounds:
            out.update(self._refine(rows, ctx, plan, out, quadratic, rng, keys))
        out["refinement_rounds_"] = plan.rounds
        spent_ = (PrivacySpent(*spent, "basic", "replace_one") if math.isfinite(spent[0])
                  else PrivacySpent(math.inf, 0.0, "none"))
        out.update(privacy_spent_=spent_,
                   sensitivity_={blk.label: blk.sensitivity for blk in
                                 plan.blocks + ([plan.refinement] if plan.rounds else [])}, sensitive_mean_=s_mean,
                   selected_features_=np.arange(ctx.d0) if columns is None else columns, selection_=selection)
        claimed = self._claimed(ctx)
        if claimed is not None:
            out["epsilon_claimed_"], out["delta_claimed_"] = claimed
        return out

    def _check_budget(self, plan: ReleasePlan):
        """(ε, δ) of the plan by basic composition; the accountant (if any) must have room for it."""
        from ..accountants import compose_basic

        budgets = [(blk.epsilon, blk.delta) for blk in plan.blocks]
        if plan.rounds:
            budgets += [(plan.refinement.epsilon, plan.refinement.delta)] * plan.rounds
        for extra in (plan.count_epsilon, plan.selection_epsilon):
            if extra:
                budgets.append((extra, 0.0))
        spent = compose_basic(budgets)
        if self.accountant is not None:
            if not np.isfinite(spent[0]):
                raise ValueError("epsilon = inf is a non-private run; don't pass an accountant with it")
            self.accountant.check(*spent)
        return spent

    def _statistics(self, rows, ctx: FunctionalContext, stats: Optional[str], s_mean) -> np.ndarray:
        """The released vector before noise: packed Taylor coefficients, then the plan's statistics."""
        b, Q, gsums, gcounts = rows.taylor_terms(
            ctx.domain, self.domain_policy, offset_mean=s_mean if ctx.faithful and self._faithful_offset else None,
            fit_intercept=ctx.fit_intercept, fair=ctx.fair, n_threads=self.n_threads, backend=self.backend,
        )
        values = [pack_monomials(b, Q)]
        if stats == "group":
            values.append(np.concatenate([gsums.ravel(), gcounts.astype(np.float64)]))
        elif stats == "mu":  # Σ_i (s_i − s̄) x_i
            values.append((1.0 - s_mean) * gsums[1] - s_mean * gsums[0])
        return np.concatenate(values)

    def _post_process(self, ctx: FunctionalContext, plan: ReleasePlan, noisy, scale) -> Dict[str, Any]:
        """Repair the noisy quadratic with public facts, choose the ridge, solve (with the fairness constraint or
        PFLR*'s shift); post-processing of the release only."""
        P, d = ctx.P, ctx.d
        b_t, Q_t = unpack_monomials(noisy[:P], d)
        std = _noise_std(plan.blocks, scale, P)
        if not ctx.faithful:
            b_t, Q_t = structural_repair(b_t, Q_t, std, ctx.domain, fit_intercept=ctx.fit_intercept, n=ctx.n,
                                         c=0.125)
        ridge = self._ridge(std, d, ctx)
        floor = 1e-9 * max(1.0, float(np.max(np.abs(np.diag(Q_t)))))
        release = FunctionalRelease(coefficients=noisy[:P].copy(), noise_scale=scale[:P].copy(), d=d,
                                    blocks=plan.blocks)
        constraint, extra = None, {}
        if plan.stats == "group":
            k = 2 * ctx.d0
            release.group_sums = noisy[P : P + k].reshape(2, ctx.d0)
            release.group_counts = noisy[P + k : P + k + 2]
            release.group_noise_scale = scale[P:]
            mu = centroid_difference(release.group_sums, release.group_counts)
            if ctx.fit_intercept:
                mu = np.append(mu, 0.0)
            if np.any(mu):
                constraint = (mu, float(self.tau))
        sol = solve_release(b_t, Q_t, ridge=ridge, floor=floor, constraint=constraint, backend=self.backend)
        if plan.stats == "mu":  # PFLR*: shift the linear coefficients by ±μ̃, oriented to reduce the covariance
            mu = noisy[P:]
            release.group_sums = mu[None, :]
            release.group_noise_scale = scale[P:]
            orientation = 1.0 if float(mu @ sol.w) >= 0 else -1.0
            sol = solve_release(b_t + orientation * mu, Q_t, ridge=ridge, floor=floor, backend=self.backend)
            extra["shift_orientation_"] = orientation
        w = sol.w
        return {
            "_quadratic": (Q_t, floor, noise_spectral_scale(std, d, 1.0)),  # for the refinement rounds
            "coef_": w[: ctx.d0].copy(),
            "intercept_": float(w[ctx.d0]) if ctx.fit_intercept else 0.0,
            "noisy_coefficients_": release.coefficients,
            "noise_scale_": release.noise_scale,
            "release_": release,
            "solution_": sol,
            "ridge_": ridge,
            "constraint_": constraint,
            **extra,
        }

    # -- refinement (see the class docstring) ------------------------------------------------------------------
    def _with_refinement(self, ctx: FunctionalContext, plan: ReleasePlan) -> ReleasePlan:
        """The plan with its refinement rounds: their gradient block, and the blocks' (ε, δ) scaled by
        1 − REFINEMENT_SHARE when any round runs. Public: sizes, budgets, the domain, the mechanism."""
        rounds = self.refinement_rounds
        if ctx.faithful:
            if rounds not in ("auto", 0):
                raise ValueError("refinement_rounds > 0 changes the published algorithm; use it with "
                                 "paper_faithful=False, or pass refinement_rounds=0 or 'auto'")
            return plan
        if rounds == 0:
            return plan
        # the rounds' share comes from the finite blocks: a block at ε = inf (PDFC/ADFC's ε_s = inf) is public, and
        # its budget must not make the gradients public too (all blocks at inf: a non-private run, noiseless rounds)
        finite = [blk for blk in plan.blocks if math.isfinite(blk.epsilon)] or plan.blocks
        eps = math.fsum(blk.epsilon for blk in finite)
        delta = math.fsum(blk.delta for blk in finite)
        k = REFINEMENT_ROUNDS if rounds == "auto" else int(rounds)
        block = self._refinement_block(ctx, REFINEMENT_SHARE * eps / k, REFINEMENT_SHARE * delta / k)
        if rounds == "auto" and not self._refinement_pays(ctx, block):
            return plan
        for blk in finite:
            blk.epsilon *= 1.0 - REFINEMENT_SHARE
            blk.delta *= 1.0 - REFINEMENT_SHARE
        # the rounds get what the scaled blocks leave, so the composition is the declared (ε, δ) to the last bit
        block.epsilon = _per_round(eps, [blk.epsilon for blk in finite], k)
        block.delta = _per_round(delta, [blk.delta for blk in finite], k)
        return plan._replace(refinement=block, rounds=k)

    def _refinement_block(self, ctx: FunctionalContext, eps: float, delta: float) -> NoiseBlock:
        """One round's gradient release with budget (eps, delta): Laplace when delta = 0, else Gaussian;
        sensitivity 2·max ‖x̃‖ over the model's domain (L1 or L2)."""
        mechanism = "gaussian" if delta > 0 else "laplace"
        norm = ctx.model_domain.max_l2() if mechanism == "gaussian" else ctx.model_domain.max_l1()
        return NoiseBlock("refinement_gradient", np.ones(ctx.d, dtype=bool), mechanism, 2.0 * float(norm), eps,
                          delta)

    @staticmethod
    def _refinement_pays(ctx: FunctionalContext, block: NoiseBlock) -> bool:
        """Whether a round's public noise on a typical row's score, 4·σ_r·√d / (n·√v), is <= REFINEMENT_TRIGGER.

        A round steps by −½·H⁻¹g̃ with H ≈ ⅛·n·v·I for columns of variance v, so the gradient noise (std σ_r per
        coordinate) moves each coefficient by std 4σ_r/(n·v) and a row's score by std √(d·v)·4σ_r/(n·v)."""
        if math.isinf(block.epsilon):
            return True
        sigma = float(_planned_std([block], ctx.d)[0])
        width = np.asarray(ctx.domain.upper, dtype=np.float64) - np.asarray(ctx.domain.lower, dtype=np.float64)
        v = float(np.median(width**2)) / 12.0
        return v > 0 and 4.0 * sigma * math.sqrt(ctx.d) / (ctx.n * math.sqrt(v)) <= REFINEMENT_TRIGGER

    def _refine(self, rows, ctx: FunctionalContext, plan: ReleasePlan, out, quadratic, rng, keys) -> Dict[str, Any]:
        """``plan.rounds`` majorize–minimize steps from the released model: release g̃_t, minimize
        g̃_tᵀ(w − w_t) + (w − w_t)ᵀH(w − w_t) over the kept eigen-directions of Q̃ (H = trim(Q̃) + r·I) under
        the fit's constraint. w_t lies in that span, where H·w_t = (Q̃ + r·I)·w_t, so the step is
        ``solve_release`` with linear term g̃_t − 2(Q̃ + r·I)w_t.

        r = max(ridge_, the public spectral scale of Q̃'s noise E): H majorizes the true ⅛Σx̃x̃ᵀ (Böhning's bound
        needs H >= Q) only if r covers −E, which ridge_ alone need not (with ridge=0 a round raised the loss
        over twenty-fold); with r >= ‖E‖ (the scale estimates it) Q̃ + r·I >= Q + E + ‖E‖·I >= Q on the kept span."""
        Q_t, floor, noise_norm = quadratic
        ridge, constraint = max(out["ridge_"], noise_norm), out["constraint_"]
        w = np.append(out["coef_"], out["intercept_"]) if ctx.fit_intercept else out["coef_"].copy()
        gradients = []
        sol = out["solution_"]
        for _ in range(plan.rounds):
            g = rows.logistic_gradient(ctx.domain, self.domain_policy, w, fit_intercept=ctx.fit_intercept,
                                       n_threads=self.n_threads, backend=self.backend)
            noisy, _ = release_blocks(g, [plan.refinement], rng, secure_keys=keys)
            gradients.append(noisy)
            linear = noisy - 2.0 * (Q_t @ w + ridge * w)
            sol = solve_release(linear, Q_t, ridge=ridge, floor=floor, constraint=constraint, backend=self.backend)
            w = sol.w
        return {
            "coef_": w[: ctx.d0].copy(),
            "intercept_": float(w[ctx.d0]) if ctx.fit_intercept else 0.0,
            "solution_": sol,
            "refinement_gradients_": np.array(gradients),
            "refinement_noise_scale_": float(plan.refinement.scale),
        }

    def _ridge(self, std: np.ndarray, d: int, ctx: FunctionalContext) -> float:
        if isinstance(self.ridge, str):  # "auto" (the only string the constraints allow)
            return 0.0 if ctx.faithful else self._ridge_factor * noise_spectral_scale(std, d, 1.0)
        return float(self.ridge)

    def _sensitive_mean(self, rows, count_eps, rng, n, keys=None):
        if self.sensitive_mean is not None:
            return float(self.sensitive_mean)
        count = float(rows.count_group(1))
        if not np.isinf(count_eps):
            from .. import mechanisms

            count = float(mechanisms.laplace_mechanism(np.array([count]), 1.0, count_eps,
                                                       random_state=rng if keys is None else keys.next(),
                                                       secure=keys is not None)[0])
        return float(np.clip(count / n, 0.0, 1.0))


_COMMON_PARAMETERS = """\
    max_features : "auto", int >= 1 or None, default "auto"
        Columns the functional mechanism runs on. None: all of them (the papers' setting). An int k: a private selection
        of k columns (``dpfair_native.feature_selection``) spends SELECTION_SHARE = 0.2 of the budget, the release the
        rest (nothing is selected or spent when k keeps every column, or only the columns a declared ``attribute``
        requires: the release then gets the whole budget). "auto": that selection with a public k (``_default_k``) only
        where the planned noise on Q̃ exceeds SELECTION_TRIGGER × its signal, else all columns — so on data where the
        family works it is exactly max_features=None. Library mode only: with paper_faithful=True, secure=True or
        epsilon = inf "auto" keeps every column (and an int is refused). Dask input takes the same decision (a public
        rule of n, d, the budget and the declared domain) and runs the same selection, its sums in one more pass over
        the partitions, so one seed gives the same release as in memory.
    refinement_rounds : "auto" or int >= 0, default "auto" (FunctionalMechanismLR) or 0 (the fair estimators)
        Rounds of private majorize–minimize refinement after the release (library mode; see Notes): each releases
        the logistic loss's gradient at the current model and steps on the released quadratic, so the model
        moves from the Taylor objective's minimizer toward logistic regression. 0: the single release (the
        papers' setting). k: k rounds sharing REFINEMENT_SHARE = 0.2 of the budget. "auto": REFINEMENT_ROUNDS = 3
        rounds where their noise is small against the data (``_refinement_pays``: large n for d), else 0.
        Refused (> 0) with paper_faithful=True. Each round is one more pass over X (with Dask input, over every
        partition: out of core, one more read of the data). The fair estimators default to 0: with the same tau
        the rounds buy accuracy with disparity (Adult, ε = 10: RD more than doubles; n = 300,000, d = 10: accuracy
        0.856–0.859 → 0.874–0.876, DP difference ×1.5; bench/RESULTS.md, "Session 10"), so they are the user's
        choice there.
    domain : FeatureDomain or None, default None
        The declared feature domain the sensitivities come from; None: the domain a DomainEncoder's output carries,
        else [0, 1]^d. A Dask array cannot carry it (``da.from_array`` keeps plain NumPy metadata): fit a Dask X
        built from an encoder's output with ``domain=encoder.domain_``.
    domain_policy : {"clip", "raise"}, default "clip"
        Rows outside the domain are projected into it, or refused.
    fit_intercept : bool, default True
        Add a constant-1 column (library mode; the paper-faithful mode has none).
    ridge : "auto" or float >= 0, default "auto"
        "auto": a factor times the public spectral scale of the noise (0 in the paper-faithful mode).
    backend : {"native", "numpy"}, default "native"
    n_threads : int or None, default None
    random_state : int, numpy Generator or None, default None
    secure : bool, default False
        Exact discrete noise on a rounding grid (see ``FunctionalBase``).
    accountant : BudgetAccountant or None, default None
        Checked before the release and charged with ``privacy_spent_`` after it. Clones share it; a copy restored
        by unpickling (a saved model, a worker process) refuses to spend, so such a model refits only with a new one.
"""

_COMMON_ATTRIBUTES = """\
    coef_, intercept_, classes_, n_features_in_, feature_names_in_
        As every classifier of the package (:class:`~dpfair_native.models.DPClassifierBase`).
    privacy_spent_ : PrivacySpent
        (ε, δ) of the whole fit by basic composition: the feature selection (if any), the release's blocks, the
        s̄ count (where one is released) and the refinement rounds (if any); method "basic" ("none" for
        ``epsilon=inf``).
    noisy_coefficients_ : ndarray (P,)
        The released packed Taylor coefficients.
    noise_scale_ : ndarray (P,)
        Laplace scale or Gaussian σ per coefficient.
    sensitivity_ : dict
        Block label -> the sensitivity its noise was calibrated to.
    release_ : FunctionalRelease
        The functional mechanism's release (coefficients, group statistics, noise scales); the refinement rounds'
        gradients are ``refinement_gradients_``.
    solution_ : object
        The solver's result for the last step: the repaired noisy quadratic, or the last refinement round.
    ridge_ : float
    constraint_ : (ndarray, float) or None
        (μ̃, tau) of the fairness constraint |μ̃ᵀw| <= tau, when one was applied.
    sensitive_mean_ : float or None
        s̄ of the paper-faithful fair variants (public or from a noisy count).
    selected_features_ : ndarray of int
        The columns the model was fitted on (all of them without a selection); coef_ is 0 elsewhere, and
        noisy_coefficients_, noise_scale_, release_, constraint_ refer to these columns only.
    selection_ : FeatureSelection or None
        The private selection's release (columns, noisy base rate q, utility sensitivity, ε), or None.
    refinement_rounds_ : int
        The refinement rounds run (0: the model is the release's minimizer).
    refinement_gradients_ : ndarray (rounds, d)
        The released noisy gradients, one row per round (only when rounds ran; d counts the intercept; like
        noisy_coefficients_ they refer to the selected columns when a selection ran).
    refinement_noise_scale_ : float
        Laplace scale or Gaussian σ per coordinate of those gradients (only when rounds ran).
"""


def document(own_parameters: str, own_attributes: str = ""):
    """Class decorator: numpydoc Parameters and Attributes (the estimator's own, then the family's common ones)
    after the docstring's first line; the rest of the docstring (the math) becomes its Notes."""

    def decorate(cls):
        summary, _, rest = cls.__doc__.partition("\n")
        cls.__doc__ = (f"{summary}\n\n    Parameters\n    ----------\n{own_parameters}{_COMMON_PARAMETERS}\n"
                       f"    Attributes\n    ----------\n{_COMMON_ATTRIBUTES}{own_attributes}\n"
                       f"    Notes\n    -----\n{rest.lstrip(chr(10))}")
        return cls

    return decorate
