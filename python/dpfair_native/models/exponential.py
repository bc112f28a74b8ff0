"""Private and approximately fair selection from a finite set of linear classifiers (Cummings et al., §4).

The learner 𝒜_ε outputs candidate h ∈ ℋ with probability ∝ exp(−ε·u(Z, h) / (2Δu)), where

    u(Z, h) = ℓ^Z(h) + Γ^Z(h)                                      (lower is better)
    ℓ^Z(h)  = (1/n) Σ_i 1[h(x_i) ≠ y_i]                             (training error)
    Γ^Z(h)  = max_a γ_a(h) − min_a γ_a(h),  γ_a(h) = c_a(h) / max(m_a, L_a)   (equal-opportunity gap)

with c_a(h) the positively-labelled rows of group a that h predicts positive, m_a the positively-labelled rows of
group a, and L_a >= 1 a *declared, public* lower bound on m_a (``min_group_positives``). Whenever m_a >= L_a,
γ_a is the group's true-positive rate, so Γ is the paper's |TPR₀ − TPR₁| (max − min for more groups).

Neighbouring relation: replace-one (n is public). Sensitivity, from the declared bounds and never the data:
  Δℓ = 1/n (one row changes at most one error);
  Δγ_a <= 1/L_a: replacing a row adds and/or removes at most one element of each set {y = 1, group a}, and
  c/max(m, L) moves by at most 1/L under adding, removing or changing one element (c ≤ m, case analysis on m ≥ L);
  one row touches at most two groups, so ΔΓ <= the sum of the two largest 1/L_a (0 with a single group).
  Δu = Δℓ + ΔΓ, the paper's O(1/n + 1/|Z₁₀| + 1/|Z₁₁|). The mechanism is then ε-DP (McSherry–Talwar).

Small groups (``on_small_group``): "clamp" (default) needs no check: γ_a = c_a / max(m_a, L_a) has sensitivity
1/L_a on every dataset, so the mechanism is ε-DP unconditionally (at the price of shrinking the TPR of a group
smaller than declared). "raise" refuses with ValueError when some m_a < L_a, so a curator who declared a bound the
data break learns of the mistake; that abort is data-dependent and outside the DP guarantee (it reveals that the
data violate the declared bound), which is why it is not the default.

Candidates (``candidate_source``). The exponential mechanism is only as good as its candidate set, and a set
drawn blind (the paper's) holds no good hyperplane in more than a few dimensions or at a low positive rate. So by
default ("private") the set is built from a private base model, in two sequential releases:

1. an equal-opportunity-constrained DP-SGD logistic regression (:class:`~dpfair_native.models.
   ConstrainedDPSGDClassifier` with ``constraint="equal_opportunity"``, ``center=False`` (no centre release),
   q = b/n from its default batch size with n public, a calibrated ``noise_multiplier``, and its other defaults)
   trained with the share ``base_share`` of ε, ε₁ <= base_share·ε at ``delta``: the candidates then start near
   the trade-off this learner targets. Its σ_eff is calibrated, and its ε₁ reported, by the PLD accountant under
   *replace-one* neighbours (the relation of this module): T Poisson-subsampled steps at σ_eff, one typed event
   (:func:`~dpfair_native.models.dpsgd.dpsgd_release`) converted with ``neighbouring_relation="replace_one"``.
   n is public here, so the base model uses n itself: q = b/n, T and the steps' normaliser q·n are public, and
   it makes no noisy record-count release (which the standalone estimator, under add/remove, needs) and is
   charged none. Why replace-one holds: in the whitened coordinates
   (gradient block divided by σ_g·C, histogram block by σ_h) one record contributes a vector of norm <= 1/σ_eff
   (a clipped gradient and one histogram cell), so a step is a Gaussian mechanism with multiplier σ_eff in which
   each record's contribution has norm <= 1 (after scaling); replacing the record moves the contribution from v
   to v', which is exactly the replace-one pair :class:`~dpfair_native.accountants.PoissonSampledEvent` bounds
   (a replacement is one removal and one addition: tests/audit/test_audit_constrained.py checks the per-row
   bound of each by brute force, tests/test_accountants_pld.py the replace-one pair by quadrature);
2. post-processing of the released (w, b) with public randomness only (:func:`private_linear_candidates`): k
   directions w + ρ_j‖w‖·z_j/‖z_j‖ (z_j ~ N(0, I), ρ_j evenly spaced in [0, :data:`MAX_PERTURBATION`], ρ₀ = 0 the base
   model itself), each with the intercepts b + t for the logit offsets t of :data:`LOGIT_OFFSETS`; then
3. the exponential mechanism above with ε₂ = ε − ε₁ (pure ε₂-DP, replace-one).

By basic sequential composition the fit is (ε₁ + ε₂, δ) = (ε, δ)-DP under replace-one neighbours, and
``privacy_spent_`` reports exactly that sum (``privacy_spent_.method`` "pld+exponential"). ``base_epsilon_``
and ``selection_epsilon_`` keep the two parts.

"random" is the paper's setting (Cummings et al. assume a public, data-independent ℋ) and stays reachable, as does
an explicit ``candidates`` array (rows [w, b] chosen from public information): ``n_candidates`` unit random
directions w ~ N(0, I)/‖·‖ through a uniform random point c of the unit box [0, 1]^d (b = −wᵀc), plus the two
constant classifiers (always negative, always positive), drawn from ``random_state``; the fit is then pure ε-DP
and ``privacy_spent_`` is (ε, 0). The number of groups K should be public too: pass ``declared_groups``.
"""

from __future__ import annotations

from numbers import Real
from typing import Any, Dict

import numpy as np

from .._validation import BACKEND, POSITIVE, POSITIVE_INT, Interval, StrOptions
from ..accountants import PrivacySpent
from ..accountants.budget import _budget_remainder
from ._base import DPClassifierBase

__all__ = [
    "ExponentialMechanismFairLearner",
    "random_linear_candidates",
    "private_linear_candidates",
    "fair_utility_sensitivity",
]

_SMALL_GROUP_POLICIES = ("raise", "clamp")
_CANDIDATE_SOURCES = ("private", "random")
_ROW_BLOCK = 8192
#: Added to Δu on the secure path: the float utilities and Δu are off their exact values by a few ulps, which the
#: exact selection would otherwise take as data. Each utility wrong/n + (max_a tpr_a − min_a tpr_a) is built from
#: exact integer counts by three divisions and two additions/subtractions of values <= 2, so it is within
#: 6·2^-53 of its exact value; two neighbouring data sets' utilities thus differ by at most the exact Δu + 12·2^-53.
#: The float Δu = 1/n + 1/L_a + 1/L_b (values <= 3) is within 7·2^-53 below its exact value, and adding this
#: constant rounds by <= 2·2^-53: 21·2^-53 <= 2^-48 = 32·2^-53.
UTILITY_ROUNDING = 2.0**-48

LOGIT_OFFSETS = np.linspace(-0.5, 0.5, 5)
"""Intercept offsets t (logit units) tried around every direction of the private candidate set: thresholds from
P(y=1 | x) = 0.38 to 0.62 under the base model. Chosen with :data:`MAX_PERTURBATION` and the default
``base_share`` on a validation part of Adult's training data (seed-0 80/20 split, then 80/20 of its training part;
4 seeds, min_group_positives = 500): offsets ±0.5 with ρ <= 0.25 gave accuracy 0.823 / equal-opportunity gap 0.015,
offsets ±1 with ρ <= 0.5 gave 0.815 / 0.026 (non-private LogisticRegression: 0.851 / 0.087)."""

MAX_PERTURBATION = 0.25
"""Largest relative perturbation ρ of the base direction in the private candidate set (ρ = 0.25 turns it by up to
about 14°); chosen with :data:`LOGIT_OFFSETS` (see there)."""


def random_linear_candidates(n_candidates: int, n_features: int, rng: np.random.Generator) -> np.ndarray:
    """(n_candidates + 2, d + 1) rows [w, b] drawn from public randomness only (see the module docstring).

    The last two rows are the constant classifiers: always negative (w = 0, b = −1), always positive (w = 0, b = 1).
    """
    w = rng.standard_normal((n_candidates, n_features))
    norms = np.linalg.norm(w, axis=1, keepdims=True)
    w /= np.where(norms > 0, norms, 1.0)
    centres = rng.uniform(0.0, 1.0, size=(n_candidates, n_features))
    b = -np.einsum("ij,ij->i", w, centres)
    constants = np.zeros((2, n_features + 1))
    constants[0, -1], constants[1, -1] = -1.0, 1.0
    return np.vstack([np.column_stack([w, b]), constants])


def private_linear_candidates(coef, intercept: float, n_candidates: int, rng: np.random.Generator) -> np.ndarray:
    """Candidate rows [w, b] around a privately released linear model (module docstring, step 2).

    Post-processing only: reads ``coef``/``intercept`` (already released) and public randomness, never the data.
    Returns k·len(LOGIT_OFFSETS) rows, k = max(1, n_candidates // len(LOGIT_OFFSETS)); row block j holds the
    direction w + ρ_j‖w‖·z_j/‖z_j‖ (ρ_j = MAX_PERTURBATION·j/(k−1), ρ₀ = 0) with the intercepts b + LOGIT_OFFSETS.
    """
    w = np.asarray(coef, dtype=np.float64)
    k = max(1, int(n_candidates) // LOGIT_OFFSETS.shape[0])
    z = rng.standard_normal((k, w.shape[0]))
    z /= np.maximum(np.linalg.norm(z, axis=1, keepdims=True), 1e-300)
    rho = np.linspace(0.0, MAX_PERTURBATION, k) if k > 1 else np.zeros(1)
    norm = np.linalg.norm(w)
    directions = w + (rho * (norm if norm > 0 else 1.0))[:, None] * z
    return np.column_stack([np.repeat(directions, LOGIT_OFFSETS.shape[0], axis=0),
                            np.tile(float(intercept) + LOGIT_OFFSETS, k)])


def private_base_model(X, y01, groups, group_labels, epsilon: float, delta: float, rng, backend: str):
    """(coef, intercept, ε₁) of an equal-opportunity-constrained DP-SGD logistic regression that is
    (ε₁ <= ``epsilon``, δ)-DP under replace-one neighbours (module docstring, step 1)."""
    from ..accountants import calibrate_noise_multiplier, epsilon_of_event
    from .constrained import ConstrainedDPSGDClassifier
    from .dpsgd import dpsgd_release

    n = X.shape[0]
    # center=False: the replace-one event below covers the steps only, not a centre release
    base = ConstrainedDPSGDClassifier(constraint="equal_opportunity", backend=backend, center=False)
    base._public_record_count = True  # n is public under replace-one: no noisy count, the normaliser is q·n
    q = min(1.0, int(base.batch_size) / n)
    steps = int(base.epochs) * max(1, int(round(1.0 / q)))

    def release(sigma_eff):
        return dpsgd_release(q, sigma_eff, steps)

    sigma_eff = calibrate_noise_multiplier(release, epsilon, delta, method="pld", neighbouring_relation="replace_one")
    base.set_params(noise_multiplier=sigma_eff, target_epsilon=None, sample_rate=q, delta=delta, random_state=rng,
                    declared_groups=group_labels)
    base.fit(X, y01, sensitive_features=group_labels[groups])
    event = release(base.effective_noise_multiplier_)
    # the event must describe what ran: this schedule, no record-count release (ñ is n itself), no centre
    if base.sample_rate_ != q or base.n_steps_ != steps or base.n_samples_estimate_ != n or base.center_ is not None:
        raise RuntimeError("the base model made other releases than the one accounted for")
    spent = epsilon_of_event(event, delta, method="pld", neighbouring_relation="replace_one")
    return base.coef_, float(base.intercept_), float(spent)


def fair_utility_sensitivity(n_samples: int, min_group_positives) -> float:
    """Δu = 1/n + (sum of the two largest 1/L_a) under replace-one neighbours (module docstring)."""
    if n_samples < 1:
        raise ValueError(f"n_samples must be >= 1, got {n_samples}")
    inv = np.sort(1.0 / np.asarray(min_group_positives, dtype=np.float64))[::-1]
    delta_gap = float(inv[0] + inv[1]) if inv.shape[0] >= 2 else 0.0
    return 1.0 / n_samples + delta_gap


def _check_candidates(candidates, d: int) -> np.ndarray:
    C = np.asarray(candidates)
    if C.dtype.kind not in "biuf":
        raise TypeError(f"candidates must be a real array of [w, b] rows, got dtype {C.dtype}")
    C = C.astype(np.float64)
    if C.ndim != 2 or C.shape[1] != d + 1 or C.shape[0] < 1:
        raise ValueError(
            f"candidates must have shape (m, n_features + 1) = (m, {d + 1}) holding [w, b] per row, got {C.shape}"
        )
    if not np.all(np.isfinite(C)):
        raise ValueError("candidates contains NaN or infinity")
    return C


def _check_min_positives(value, n_groups: int) -> np.ndarray:
    if value is None:
        raise ValueError(
            "min_group_positives is required: declare a public lower bound L >= 1 on the number of positively "
            "labelled rows of every group (an int, or one int per group in group order)"
        )
    arr = np.atleast_1d(np.asarray(value))
    if arr.dtype.kind not in "iu" or arr.ndim != 1:
        raise ValueError(f"min_group_positives must be an int or a 1-D sequence of ints, got {value!r}")
    if arr.shape[0] == 1:
        arr = np.full(n_groups, arr[0])
    if arr.shape[0] != n_groups:
        raise ValueError(f"min_group_positives has {arr.shape[0]} entries but there are {n_groups} groups")
    if np.any(arr < 1):
        raise ValueError(f"min_group_positives must be >= 1 for every group, got {arr.tolist()}")
    return arr.astype(np.float64)


def fair_utilities(X, y01, groups, n_groups: int, candidates: np.ndarray, min_group_positives: np.ndarray):
    """u(Z, h) for every candidate row [w, b]: error + equal-opportunity gap with clamped denominators.

    Returns (utilities (m,), positives per group (K,)). Not private: used only inside the mechanism.
    """
    n = X.shape[0]
    pos = y01 > 0.5
    m = np.bincount(groups[pos], minlength=n_groups).astype(np.float64)
    wrong = np.zeros(candidates.shape[0])
    true_pos = np.zeros((n_groups, candidates.shape[0]))
    for start in range(0, n, _ROW_BLOCK):  # row blocks: memory O(block × m), never O(n × m)
        rows = slice(start, min(n, start + _ROW_BLOCK))
        pred = (X[rows] @ candidates[:, :-1].T + candidates[:, -1]) > 0
        wrong += np.sum(pred != pos[rows, None], axis=0)
        for k in range(n_groups):
            true_pos[k] += pred[pos[rows] & (groups[rows] == k)].sum(axis=0)
    tpr = true_pos / np.maximum(m, min_group_positives)[:, None]
    gap = tpr.max(axis=0) - tpr.min(axis=0)
    return wrong / n + gap, m


class ExponentialMechanismFairLearner(DPClassifierBase):
    """(ε, δ)-DP choice of a linear classifier trading training error against the equal-opportunity gap (pure
    ε-DP with ``candidate_source="random"`` or explicit ``candidates``).

    Parameters
    ----------
    epsilon : float > 0, default 1.0
        Total ε of the fit (replace-one neighbours): of an (ε, ``delta``)-DP guarantee with the default
        ``candidate_source="private"`` (the base model's DP-SGD needs δ), of a pure ε-DP one with
        ``candidate_source="random"`` or explicit ``candidates``.
    min_group_positives : int, array-like of int or None, default None
        Public lower bound L_a on the positively-labelled rows of every group (one, or one per group); required.
    candidates : array-like (m, d + 1) or None, default None
        [w, b] rows chosen without looking at the data; None: built as ``candidate_source`` says.
    candidate_source : {"private", "random"}, default "private"
        Where the candidates come from when ``candidates`` is None (module docstring): "private" spends
        ``base_share``·ε on a DP-SGD base model and builds about ``n_candidates`` rows around it (the library
        default: a useful model in any dimension); "random" draws ``n_candidates`` data-independent hyperplanes
        plus the two constant classifiers (the paper's setting; pure ε-DP).
    n_candidates : int, default 200
    base_share : float in (0, 1), default 0.5
        Share of ``epsilon`` spent on the private base model ("private" candidates only); the rest selects.
        Chosen on Adult's validation part (see :data:`LOGIT_OFFSETS`; min_group_positives = 500): 0.5 → 0.823 /
        gap 0.015, 0.8 → 0.820 / 0.035, 0.9 → 0.815 / 0.044. With min_group_positives = 1 the selection cannot
        tell candidates apart (Δu ≈ 2) and a larger share helps (0.811 at 0.5, 0.823 at 0.9): declare a realistic
        bound.
    delta : float in (0, 1), default 1e-5
        δ of the base model's (ε₁, δ) guarantee ("private" candidates only; the other settings are pure DP).
    on_small_group : {"clamp", "raise"}, default "clamp"
        What a group with fewer positives than declared does (module docstring; "clamp" is DP on every data set).
    declared_groups : array-like or None, default None
        Public group labels.
    random_state : int, numpy Generator or None, default None
    backend : {"native", "numpy"}, default "native"
        Accepted for API uniformity (the scoring is one NumPy matrix product).
    n_threads : int or None, default None
        Accepted for API uniformity.
    secure : bool, default False
        Select with :func:`dpfair_native.mechanisms.permute_and_flip_secure` (permute-and-flip on grid-rounded
        utilities with exact coins from a ChaCha20 stream; ε-DP with Δu inflated by the grid, <= 0.1%, and by
        ``UTILITY_ROUNDING`` = 2^-48 for the floating-point rounding of the utilities and of Δu). Needs
        ``candidate_source="random"`` or explicit ``candidates``: the private base model's noise is floating-point
        (ValueError otherwise).

    Attributes
    ----------
    coef_, intercept_, classes_, n_features_in_, feature_names_in_
        As every classifier of the package (:class:`~dpfair_native.models.DPClassifierBase`).
    selected_index_ : int
        The chosen row of ``candidates_``.
    candidates_ : ndarray (m, d + 1)
        The (public) candidate set.
    utility_sensitivity_ : float
        Δu.
    base_epsilon_ : float
        ε₁ of the private base model under replace-one neighbours (0.0 when the candidates are random or given).
    selection_epsilon_ : float
        ε₂ of the exponential mechanism.
    privacy_spent_ : PrivacySpent
        (ε₁ + ε₂, δ) with method "pld+exponential" for private candidates (basic sequential composition of the
        two releases; ε₁ + ε₂ <= epsilon); (epsilon, 0.0) with method "exponential" otherwise.

    Notes
    -----
    The private base model (``candidate_source="private"``) runs with the public n: under replace-one neighbours
    n is public, so it normalises every step by q·n with the exact n (q = b/n) and makes no noisy record-count
    release. ``base_epsilon_`` is therefore the replace-one PLD ε of exactly its T subsampled joint steps at
    σ_eff, and ``privacy_spent_`` charges nothing for a count. (The standalone
    :class:`~dpfair_native.models.ConstrainedDPSGDClassifier`, under add/remove, still releases and charges
    ñ = n + N(0, σ_n²).)

    The utilities themselves are private and are not stored. With ``secure`` the choice distribution is
    permute-and-flip's, not the exponential mechanism's (same ε, never worse expected utility); default False
    because the float exponential mechanism is the paper's.
    """

    requires_sensitive_features = True

    _parameter_constraints = {
        "epsilon": [POSITIVE],
        "min_group_positives": [POSITIVE_INT, "array-like", None],  # None: refused in _fit with how to declare it
        "candidates": ["array-like", None],
        "candidate_source": [StrOptions(set(_CANDIDATE_SOURCES))],
        "n_candidates": [POSITIVE_INT],
        "base_share": [Interval(Real, 0.0, 1.0, closed="neither")],
        "delta": [Interval(Real, 0.0, 1.0, closed="neither")],
        "on_small_group": [StrOptions(set(_SMALL_GROUP_POLICIES))],
        "declared_groups": ["array-like", None],
        "random_state": ["random_state"],
        "backend": [BACKEND],
        "n_threads": [POSITIVE_INT, None],
        "secure": ["boolean"],
    }

    def __init__(
        self,
        epsilon: float = 1.0,
        *,
        min_group_positives=None,
        candidates=None,
        candidate_source: str = "private",
        n_candidates: int = 200,
        base_share: float = 0.5,
        delta: float = 1e-5,
        on_small_group: str = "clamp",
        declared_groups=None,
        random_state=None,
        backend: str = "native",
        n_threads=None,
        secure: bool = False,
    ):
        self.epsilon = epsilon
        self.min_group_positives = min_group_positives
        self.candidates = candidates
        self.candidate_source = candidate_source
        self.n_candidates = n_candidates
        self.base_share = base_share
        self.delta = delta
        self.on_small_group = on_small_group
        self.declared_groups = declared_groups
        self.random_state = random_state
        self.backend = backend
        self.n_threads = n_threads
        self.secure = secure

    def _fit(self, X, y, groups, group_labels, rng) -> Dict[str, Any]:
        from ..mechanisms import exponential_mechanism

        eps = float(self.epsilon)
        n, d = X.shape
        K = group_labels.shape[0]
        bounds = _check_min_positives(self.min_group_positives, K)
        base_eps, delta = 0.0, 0.0
        if self.secure and self.candidates is None and self.candidate_source == "private":
            raise ValueError("secure=True selects exactly but the private base model's DP-SGD noise is floating-"
                             "point; pass candidate_source='random' or explicit candidates with secure=True")
        if self.candidates is not None:
            cands = _check_candidates(self.candidates, d)
        elif self.candidate_source == "random":
            cands = random_linear_candidates(int(self.n_candidates), d, rng)
        else:  # step 1 (private base model, ε₁) and step 2 (post-processing) of the module docstring
            delta = float(self.delta)
            coef, intercept, base_eps = private_base_model(X, y, groups, group_labels, eps * float(self.base_share),
                                                           delta, rng, self.backend)
            cands = private_linear_candidates(coef, intercept, int(self.n_candidates), rng)
        select_eps = _budget_remainder(eps, base_eps)  # base_eps + select_eps <= eps in floating point too
        utilities, positives = fair_utilities(X.astype(np.float64, copy=False), y, groups, K, cands, bounds)
        if self.on_small_group == "raise" and np.any(positives < bounds):
            # Data-dependent abort (see module docstring): the data lie outside the declared domain.
            raise ValueError(
                "the data contradict min_group_positives: some group has fewer positively labelled rows than "
                "declared; declare a smaller bound, or use on_small_group='clamp' (DP on every dataset)"
            )
        sensitivity = fair_utility_sensitivity(n, bounds)
        if self.secure:  # exact permute-and-flip on grid-rounded utilities (mechanisms.permute_and_flip_secure)
            from ..mechanisms import permute_and_flip_secure

            index = permute_and_flip_secure(-utilities, sensitivity + UTILITY_ROUNDING, select_eps,
                                            random_state=self.random_state)
        else:
            index = int(exponential_mechanism(-utilities, sensitivity, select_eps, random_state=rng))
        return {
            "coef_": cands[index, :-1].copy(),
            "intercept_": float(cands[index, -1]),
            "selected_index_": index,
            "candidates_": cands,
            "utility_sensitivity_": sensitivity,
            "base_epsilon_": base_eps,
            "selection_epsilon_": select_eps,
            "privacy_spent_": PrivacySpent(base_eps + select_eps, delta,
                                           "pld+exponential" if base_eps > 0 else "exponential", "replace_one"),
        }
