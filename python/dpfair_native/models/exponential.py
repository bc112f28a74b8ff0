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

Candidates must not depend on the private data. Either pass ``candidates`` (an (m, d+1) array of [w, b] rows,
chosen from public information), or let the estimator draw ``n_candidates`` from its ``random_state``: unit
random directions w ~ N(0, I) / ‖·‖ through a uniform random point c of the unit box [0, 1]^d (b = −wᵀc), plus
the two constant classifiers (always negative, always positive). The number of groups K should be public too:
pass ``declared_groups``.
"""

from __future__ import annotations

from typing import Any, Dict

import numpy as np

from .._validation import BACKEND, POSITIVE, POSITIVE_INT, StrOptions
from ._base import DPClassifierBase

__all__ = ["ExponentialMechanismFairLearner", "random_linear_candidates", "fair_utility_sensitivity"]

_SMALL_GROUP_POLICIES = ("raise", "clamp")
_ROW_BLOCK = 8192


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
    """ε-DP choice of a linear classifier trading training error against the equal-opportunity gap.

    Parameters
    ----------
    epsilon : float > 0, default 1.0
        Pure DP budget (replace-one neighbours).
    min_group_positives : int, array-like of int or None, default None
        Public lower bound L_a on the positively-labelled rows of every group (one, or one per group); required.
    candidates : array-like (m, d + 1) or None, default None
        [w, b] rows chosen without looking at the data; None: ``n_candidates`` random ones.
    n_candidates : int, default 200
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
        utilities with exact coins from a ChaCha20 stream; ε-DP with Δu inflated by the grid, <= 0.1%).

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
    privacy_spent_ : (float, float)
        (epsilon, 0.0).

    Notes
    -----
    The utilities themselves are private and are not stored. With ``secure`` the choice distribution is
    permute-and-flip's, not the exponential mechanism's (same ε, never worse expected utility); default False
    because the float exponential mechanism is the paper's.
    """

    requires_sensitive_features = True

    _parameter_constraints = {
        "epsilon": [POSITIVE],
        "min_group_positives": [POSITIVE_INT, "array-like", None],  # None: refused in _fit with how to declare it
        "candidates": ["array-like", None],
        "n_candidates": [POSITIVE_INT],
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
        n_candidates: int = 200,
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
        self.n_candidates = n_candidates
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
        if self.candidates is None:
            cands = random_linear_candidates(int(self.n_candidates), d, rng)
        else:
            cands = _check_candidates(self.candidates, d)
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

            index = permute_and_flip_secure(-utilities, sensitivity, eps, random_state=self.random_state)
        else:
            index = int(exponential_mechanism(-utilities, sensitivity, eps, random_state=rng))
        return {
            "coef_": cands[index, :-1].copy(),
            "intercept_": float(cands[index, -1]),
            "selected_index_": index,
            "candidates_": cands,
            "utility_sensitivity_": sensitivity,
            "privacy_spent_": (eps, 0.0),
        }
