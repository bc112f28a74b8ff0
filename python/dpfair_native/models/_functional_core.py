"""The shared private core of the functional-mechanism estimators.

One pass builds the degree-2 Taylor objective of the logistic loss in monomial form,

    f(w) = Σ_i [(½ − y_i + o_i) x_iᵀw + ⅛ (x_iᵀw)²] = bᵀw + wᵀQw   (+ n·log 2, dropped),

with ``b = Σ a_i x_i`` (a_i = ½ − y_i + o_i, o_i an optional per-row offset) and ``Q = ⅛ Σ x_i x_iᵀ``, plus
per-group sums of x and group counts (the kernel ``poly2_coefficients`` returns all of them at once).
The released vector is the monomial-coefficient vector

    r = [b ; Q_11 .. Q_dd ; 2·Q_jk for j < k]          (length d + d + d(d−1)/2)

(the coefficient of w_j w_k in wᵀQw is 2·Q_jk): noise is added to r, block by block, with the scales the
estimator asks for, and the noisy symmetric Q is rebuilt from it (upper triangle noised once, mirrored).
Then the noisy problem is repaired (ridge, eigenvalue trimming) and minimized with the kernel
``minimize_quadratic``, optionally subject to |aᵀw| <= τ. An intercept is a constant-1 column of the
model (its entries of b and Q are added analytically: X is never copied).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional, Sequence, Tuple

import numpy as np

from .. import kernels

__all__ = [
    "NoiseBlock",
    "FunctionalRelease",
    "taylor_terms",
    "pack_monomials",
    "unpack_monomials",
    "monomial_mask",
    "release_blocks",
    "augment_domain",
    "default_domain",
    "taylor_terms_in_domain",
    "logistic_gradient_in_domain",
    "centroid_difference",
    "solve_release",
    "structural_repair",
]


# -- the non-private part --------------------------------------------------------------------------------------
def taylor_terms(X, a, c: float, *, fit_intercept: bool, groups=None, n_groups=None, one_hot_groups=None,
                 n_threads=None, backend="native"):
    """(b, Q, group_sums, group_counts) of rows [x_i, 1] (fit_intercept) or x_i, with row weights a and a scalar c.

    b = Σ a_i x̃_i, Q = c·Σ x̃_i x̃ᵢᵀ; group_sums are sums of the ORIGINAL x_i (no constant column).
    X is read once by ``poly2_coefficients`` and never copied: the intercept's entries are added analytically,
    Σ a_i from the weights, n·c, and c·Σ x_i = c·Σ_k group_sums[k] (without groups a single all-rows group gives
    the column sums in the same pass). one_hot_groups: the domain's one-hot groups, a speed hint for CSR X (see
    ``kernels.poly2_coefficients``).
    """
    n, d = X.shape
    c = float(c)
    own_group = fit_intercept and groups is None
    if own_group:  # one group holding every row: its sum is Σ x_i, computed in the same pass
        groups, n_groups = np.zeros(n, dtype=np.int64), 1
    b, Q, gsums, gcounts = kernels.poly2_coefficients(
        X, a, c, groups=groups, n_groups=n_groups, one_hot_groups=one_hot_groups, n_threads=n_threads, backend=backend
    )
    if not fit_intercept:
        return b, Q, gsums, gcounts
    cx = c * gsums.sum(axis=0)
    a_sum = float(a) * n if np.ndim(a) == 0 else float(np.sum(a))
    b_aug = np.empty(d + 1)
    b_aug[:d] = b
    b_aug[d] = a_sum
    Q_aug = np.empty((d + 1, d + 1))
    Q_aug[:d, :d] = Q
    Q_aug[:d, d] = cx
    Q_aug[d, :d] = cx
    Q_aug[d, d] = c * n
    if own_group:
        gsums, gcounts = gsums[:0], gcounts[:0]
    return b_aug, Q_aug, gsums, gcounts


_TRIU = {}


def _triu(d: int):
    """np.triu_indices(d, 1), cached per d (the release's packing order)."""
    if d not in _TRIU:
        _TRIU[d] = np.triu_indices(d, 1)
    return _TRIU[d]


def pack_monomials(b: np.ndarray, Q: np.ndarray) -> np.ndarray:
    """r = [b ; diag(Q) ; 2·Q_jk (j < k, row-major)]: the coefficients of w_j, w_j², w_j·w_k in bᵀw + wᵀQw."""
    d = b.shape[0]
    return np.concatenate([b, np.diag(Q), 2.0 * Q[_triu(d)]])


def unpack_monomials(r: np.ndarray, d: int) -> Tuple[np.ndarray, np.ndarray]:
    """Inverse of pack_monomials: (b, symmetric Q)."""
    b = r[:d].copy()
    Q = np.zeros((d, d))
    Q[np.diag_indices(d)] = r[d : 2 * d]
    iu = _triu(d)
    Q[iu] = 0.5 * r[2 * d :]
    Q[(iu[1], iu[0])] = Q[iu]
    return b, Q


def monomial_mask(d: int, columns: Sequence[int]) -> np.ndarray:
    """Boolean mask over the packed vector: True for the monomials that involve any w_s, s in columns (Φ_s)."""
    cols = np.zeros(d, dtype=bool)
    cols[list(columns)] = True
    iu = _triu(d)
    return np.concatenate([cols, cols, cols[iu[0]] | cols[iu[1]]])


def offdiagonal_mask(d: int) -> np.ndarray:
    """True for the packed coordinates of the cross monomials w_j·w_k (j < k)."""
    return np.concatenate([np.zeros(2 * d, dtype=bool), np.ones(d * (d - 1) // 2, dtype=bool)])


# -- noise -------------------------------------------------------------------------------------------------------
@dataclass
class NoiseBlock:
    """One mechanism applied to a part of the released vector.

    mask: which coordinates of the released vector (packed monomials, then the group statistics if any) it
    covers. mechanism: "laplace" (scale = sensitivity/ε, ε-DP) or "gaussian" ((ε, δ)-DP, σ from
    ``calibration`` = "analytic" | "classic" | "extended"). sensitivity: L1 (laplace) or L2 (gaussian) bound
    of the replace-one change of the WEIGHTED coordinates (value / weight) in this block. weights: optional
    per-coordinate weights (noise on coordinate j is weight_j × the mechanism's noise).
    """

    label: str
    mask: np.ndarray
    mechanism: str
    sensitivity: float
    epsilon: float
    delta: float = 0.0
    calibration: str = "analytic"
    weights: Optional[np.ndarray] = None
    scale: float = field(default=np.nan)  # Laplace scale b or Gaussian σ, filled in by release_blocks


@dataclass
class FunctionalRelease:
    """What the estimator released (everything downstream is post-processing of it).

    coefficients: the noisy packed monomial coefficients r̃ (see pack_monomials). noise_scale: per
    coordinate of r̃, the Laplace scale b (std √2·b) or the Gaussian σ of its noise (0 where ε = inf).
    group_sums / group_counts: noisy per-group sums of x and counts (None if not released).
    blocks: the mechanisms applied. d: number of model coefficients (with the intercept column if any).
    """

    coefficients: np.ndarray
    noise_scale: np.ndarray
    d: int
    blocks: List[NoiseBlock]
    group_sums: Optional[np.ndarray] = None
    group_counts: Optional[np.ndarray] = None
    group_noise_scale: Optional[np.ndarray] = None

    def quadratic(self) -> Tuple[np.ndarray, np.ndarray]:
        """(b̃, Q̃) rebuilt from the noisy coefficients (Q̃ symmetric)."""
        return unpack_monomials(self.coefficients, self.d)


def release_blocks(values: np.ndarray, blocks: Sequence[NoiseBlock], rng, *,
                   secure_keys=None) -> Tuple[np.ndarray, np.ndarray]:
    """Add each block's noise to its coordinates of ``values``; returns (noisy values, per-coordinate scale).

    Noise comes from dpfair_native.mechanisms with the estimator's rng. ε = inf means no noise (non-private).
    Blocks must not overlap. ``secure_keys`` (a :class:`dpfair_native._secure_random.SecureKeys`): every block
    uses the mechanisms' secure path (exact discrete noise on a grid, a fresh ChaCha20 key per block) and its
    ``scale`` is the secure path's real noise level (``mechanisms.secure_noise_scale``: inflated sensitivity, and
    for Gaussian blocks the zCDP-calibrated σ, whatever ``calibration`` says), so downstream repair/shrinkage
    and ridge use the noise actually added.
    """
    from .. import mechanisms

    out = np.array(values, dtype=np.float64, copy=True)
    scale = np.zeros_like(out)
    covered = np.zeros(out.shape[0], dtype=bool)
    for block in blocks:
        mask = np.asarray(block.mask, dtype=bool)
        if np.any(covered & mask):
            raise RuntimeError(f"noise block {block.label!r} overlaps another block")  # an estimator bug
        covered |= mask
        if not mask.any():
            block.scale = 0.0
            continue
        w = np.ones(int(mask.sum())) if block.weights is None else np.asarray(block.weights, dtype=np.float64)
        if np.isinf(block.epsilon):
            block.scale = 0.0
            continue
        part = out[mask] / w
        if secure_keys is not None and block.mechanism in ("laplace", "gaussian"):
            block.scale = mechanisms.secure_noise_scale(block.mechanism, part.size, block.sensitivity, block.epsilon,
                                                        block.delta if block.mechanism == "gaussian" else None)
            if block.mechanism == "laplace":
                noisy = mechanisms.laplace_mechanism(part, block.sensitivity, block.epsilon,
                                                     random_state=secure_keys.next(), secure=True)
            else:
                noisy = mechanisms.gaussian_mechanism(part, block.sensitivity, block.epsilon, block.delta,
                                                      random_state=secure_keys.next(), secure=True)
        elif block.mechanism == "laplace":
            block.scale = mechanisms.laplace_scale(block.sensitivity, block.epsilon)
            noisy = mechanisms.laplace_mechanism(part, block.sensitivity, block.epsilon, random_state=rng)
        elif block.mechanism == "gaussian":
            sigma_fn = {
                "analytic": mechanisms.analytic_gaussian_sigma,
                "classic": mechanisms.classic_gaussian_sigma,
                "extended": mechanisms.extended_gaussian_sigma,
            }[block.calibration]
            block.scale = float(sigma_fn(block.sensitivity, block.epsilon, block.delta))
            noisy = mechanisms.gaussian_mechanism(
                part, block.sensitivity, block.epsilon, block.delta, calibration=block.calibration, random_state=rng
            )
        else:  # pragma: no cover - estimator bug
            raise RuntimeError(f"unknown mechanism {block.mechanism!r}")
        out[mask] = np.asarray(noisy, dtype=np.float64) * w
        scale[mask] = block.scale * w
    return out, scale


# -- domain ------------------------------------------------------------------------------------------------------
_UNIT_BOXES = {}


def default_domain(d: int):
    """The paper's domain [0, 1]^d (one shared immutable instance per d, so its sensitivities are cached)."""
    from ..domain import FeatureDomain

    if d not in _UNIT_BOXES:
        _UNIT_BOXES[d] = FeatureDomain.unit_box(d)
    return _UNIT_BOXES[d]


def augment_domain(domain):
    """The domain of rows [x, 1]: one more column with bounds [1, 1]; norm caps grow by the constant 1.

    Cached on a FeatureDomain (immutable), so its sensitivities are computed once per domain.
    """
    from ..domain import FeatureDomain

    memo = getattr(domain, "_memo", None)
    if memo is not None and "_augmented" in memo:
        return memo["_augmented"]
    l1 = getattr(domain, "l1_cap", None)
    l2 = getattr(domain, "l2_cap", None)
    names = getattr(domain, "names", None)
    out = FeatureDomain(
        np.append(np.asarray(domain.lower, dtype=np.float64), 1.0),
        np.append(np.asarray(domain.upper, dtype=np.float64), 1.0),
        one_hot_groups=tuple(tuple(int(j) for j in g) for g in getattr(domain, "one_hot_groups", ())),
        l1_cap=None if l1 is None else float(l1) + 1.0,
        l2_cap=None if l2 is None else float(np.hypot(float(l2), 1.0)),
        names=None if names is None else tuple(names) + ("(intercept)",),
    )
    if memo is not None:
        memo["_augmented"] = out
    return out


def _check_domain_and_policy(domain, X, policy):
    if policy not in ("clip", "raise"):
        raise ValueError(f"domain_policy must be 'clip' or 'raise', got {policy!r}")
    if domain.d != X.shape[1]:
        raise ValueError(f"domain has {domain.d} columns but X has {X.shape[1]} features; pass a matching domain")


def taylor_terms_in_domain(domain, policy: str, X, a, c, **kwargs):
    """``taylor_terms`` of the rows of X projected into ``domain`` -> (b, Q, group_sums, group_counts).

    How many rows were projected is not returned: that count is an un-noised function of the data (replacing one
    row moves it from 0 to 1), so nothing the estimators release may depend on it.

    Fast path (no copy of X): compute on X as given, then check exactly that every row was in the domain, using
    the computed Q for the one-hot "at most one 1" test (c must be a positive scalar). Only when some row is
    outside are the rows projected (policy "clip") or rejected ("raise") and the terms recomputed: what is
    released is always computed from in-domain rows.
    """
    _check_domain_and_policy(domain, X, policy)
    d0 = X.shape[1]
    if kernels.is_sparse(X) and getattr(domain, "one_hot_groups", None):  # a speed hint for the CSR pair pass
        kwargs = {**kwargs, "one_hot_groups": domain.one_hot_groups}
    contains_all = getattr(domain, "contains_all", None)
    if contains_all is not None and float(c) > 0:
        b, Q, gsums, gcounts = taylor_terms(X, a, c, **kwargs)
        threads = {} if kwargs.get("n_threads") is None else {"n_threads": kwargs["n_threads"]}
        if contains_all(X, pair_sums=Q[:d0, :d0], **threads):
            return b, Q, gsums, gcounts
    Xp, _ = domain.project(X, policy=policy)
    return taylor_terms((Xp if kernels.is_sparse(Xp) else np.asarray(Xp)), a, c, **kwargs)


def rows_in_domain(domain, policy: str, X):
    """X itself when every row lies in ``domain``, else its rows projected into it (policy "clip") or an error
    ("raise")."""
    _check_domain_and_policy(domain, X, policy)
    contains_all = getattr(domain, "contains_all", None)
    if contains_all is not None and contains_all(X):
        return X
    return domain.project(X, policy=policy)[0]


def logistic_gradient_in_domain(domain, policy: str, X, y, w, *, fit_intercept: bool, n_threads=None,
                                backend="native") -> np.ndarray:
    """∇L(w) = Σ_i (σ(x̃_iᵀw) − y_i)·x̃_i of the logistic loss over the rows of X projected into ``domain``
    (x̃ = [x, 1] with an intercept; y in {0, 1}).

    X is projected (copied) only when some row lies outside the domain, so the released gradient, like the Taylor
    terms, is always computed from in-domain rows.
    """
    return logistic_gradient(rows_in_domain(domain, policy, X), y, w, fit_intercept=fit_intercept,
                             n_threads=n_threads, backend=backend)


def logistic_gradient(X, y, w, *, fit_intercept: bool, n_threads=None, backend="native") -> np.ndarray:
    """Σ_i (σ(x̃_iᵀw) − y_i)·x̃_i over the rows of X as given: the kernel ``clip_group_gradients`` with every row
    in one group and no clipping (one pass over X, O(nnz) on CSR; its NumPy twin with backend="numpy")."""
    n, d0 = X.shape
    w = np.asarray(w, dtype=np.float64)
    bias = float(w[d0]) if fit_intercept else 0.0
    sums, _, _ = kernels.clip_group_gradients(X, y, w[:d0], bias, np.arange(n), np.zeros(n, dtype=np.int64),
                                              np.array([np.inf]), n_threads=n_threads, backend=backend)
    return sums[0] if fit_intercept else sums[0, :d0]


# -- post-processing with public facts of the domain ---------------------------------------------------------------
def structural_repair(b: np.ndarray, Q: np.ndarray, noise_std: np.ndarray, domain, *, fit_intercept: bool, n: int,
                      c: float) -> Tuple[np.ndarray, np.ndarray]:
    """Replace noisy entries of Q̃ that the declared domain determines (post-processing: uses only the release,
    its public noise scales, the domain and the public n).

    - Two columns of one one-hot group are never 1 together: Σ c·x_j x_k = 0 exactly; set to 0.
    - With an intercept (constant column, index d0): Q_dd = c·n exactly; and for a one-hot (0/1) column
      x_j² = x_j, so Q_jj and Q_jd = c·Σ x_j are the same number released twice with independent noise: both
      become their inverse-variance average (noise_std: per packed coordinate; Q_jd's std is half the packed
      2·Q_jd's). Then every other cross entry is shrunk toward its value under independence
      (``_shrink_to_independence``, positive-part James–Stein with the public noise variance), and b̃ likewise
      toward its value if each x_j were independent of the row weights (``_shrink_linear``).
    """
    groups = getattr(domain, "one_hot_groups", ())
    Q = Q.copy()
    for g in groups:
        if len(g) > 1:
            idx = np.asarray(g)
            block = Q[np.ix_(idx, idx)]
            Q[np.ix_(idx, idx)] = np.diag(np.diag(block))
    if fit_intercept:
        d0 = Q.shape[0] - 1
        Q[d0, d0] = c * n
        pos = _packed_positions(d0 + 1)
        j = np.array([j for g in groups for j in g], dtype=np.intp)  # disjoint groups (FeatureDomain checks)
        v_diag = np.square(noise_std[pos[j, j]])
        v_cross = np.square(0.5 * noise_std[pos[j, d0]])
        with np.errstate(divide="ignore", invalid="ignore"):
            pooled = (Q[j, j] / v_diag + Q[j, d0] / v_cross) / (1.0 / v_diag + 1.0 / v_cross)
        # a noiseless coordinate (ε = inf) is already exact
        est = np.where(v_diag == 0.0, Q[j, j], np.where(v_cross == 0.0, Q[j, d0], pooled))
        Q[j, j] = Q[j, d0] = Q[d0, j] = est
        Q = _shrink_to_independence(Q, noise_std, pos, groups)
        b = _shrink_linear(b, Q, noise_std, c)
    return b, Q


def _shrink_linear(b: np.ndarray, Q: np.ndarray, noise_std: np.ndarray, c: float) -> np.ndarray:
    """Positive-part James–Stein shrinkage of b̃_j = Σ a_i x_ij toward its value if x_j were independent of the row
    weight a: (Σ_i x_ij)·(Σ_i a_i)/n = (Q̃_jd/c)·b̃_d/n, with n = Q_dd/c; the intercept's b̃_d is kept."""
    d0 = b.shape[0] - 1
    n = Q[d0, d0] / c
    target = (Q[:d0, d0] / c) * b[d0] / n
    dev = b[:d0] - target
    var = np.square(noise_std[:d0])
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.where(var > 0, np.maximum(0.0, 1.0 - var / np.square(dev)), 1.0)
    lam = np.nan_to_num(lam, nan=0.0)
    out = b.copy()
    out[:d0] = target + lam * dev
    return out


def _shrink_to_independence(Q: np.ndarray, noise_std: np.ndarray, pos: np.ndarray, groups) -> np.ndarray:
    """Positive-part James–Stein shrinkage of each cross entry Q̃_jk (j ≠ k, no intercept) toward its value under
    independence of x_j and x_k, P_jk = Q_dd·m_j·m_k with m_j = Q̃_jd/Q_dd (Q_dd = c·n):
    Q̂_jk = P_jk + max(0, 1 − v_jk/(Q̃_jk − P_jk)²)·(Q̃_jk − P_jk), v_jk the noise variance of Q̃_jk.
    Entries whose deviation from independence is within the noise go to P; well-measured ones stay."""
    d = Q.shape[0]
    d0 = d - 1
    m = Q[:d0, d0] / Q[d0, d0]
    P = Q[d0, d0] * np.outer(m, m)
    D = Q[:d0, :d0] - P
    cross = noise_std[2 * d :]  # the packed cross coefficients 2·Q_jk, j < k
    if cross.size and np.all(cross == cross[0]):  # one noise scale on every cross entry: no d²-entry gather
        var = np.square(0.5 * cross[0])
    else:
        var = np.square(0.5 * noise_std[pos[:d0, :d0]])
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.where(var > 0, np.maximum(0.0, 1.0 - var / np.square(D)), 1.0)
    lam = np.nan_to_num(lam, nan=0.0)
    shrunk = P + lam * D
    keep = np.eye(d0, dtype=bool)
    for g in groups:  # structural zeros stay zero
        if len(g) > 1:
            idx = np.asarray(g)
            keep[np.ix_(idx, idx)] = True
    out = Q.copy()
    out[:d0, :d0] = np.where(keep, Q[:d0, :d0], shrunk)
    return out


_POSITIONS = {}


def _packed_positions(d: int) -> np.ndarray:
    """pos[j, k]: index in the packed vector of the monomial w_j·w_k (w_j² for j = k), symmetric."""
    if d not in _POSITIONS:
        pos = np.empty((d, d), dtype=np.int64)
        pos[np.diag_indices(d)] = d + np.arange(d)
        iu = _triu(d)
        pos[iu] = 2 * d + np.arange(iu[0].size)
        pos[(iu[1], iu[0])] = pos[iu]
        _POSITIONS[d] = pos
    return _POSITIONS[d]


# -- fairness statistics -----------------------------------------------------------------------------------------
def centroid_difference(group_sums: np.ndarray, group_counts: np.ndarray) -> np.ndarray:
    """x̄_1 − x̄_0 from (noisy) per-group sums and counts of two groups (counts floored at 1)."""
    counts = np.maximum(np.asarray(group_counts, dtype=np.float64), 1.0)
    means = group_sums / counts[:, None]
    return means[1] - means[0]


# -- solving -----------------------------------------------------------------------------------------------------
def noise_spectral_scale(noise_scale: np.ndarray, d: int, mechanism_std: float) -> float:
    """A public estimate of the spectral norm of the noise matrix added to Q: 2·σ_offdiag·√d + σ_diag.

    σ_offdiag is the std of the noise on Q_jk (half the std on the packed cross coefficient 2·Q_jk).
    mechanism_std converts a scale into a std (√2 for Laplace, 1 for Gaussian).
    """
    diag = noise_scale[d : 2 * d]
    off = noise_scale[2 * d :]
    s_off = 0.5 * float(np.max(off)) * mechanism_std if off.size else 0.0
    s_diag = float(np.max(diag)) * mechanism_std if diag.size else 0.0
    return 2.0 * s_off * np.sqrt(d) + s_diag


def solve_release(
    b: np.ndarray,
    Q: np.ndarray,
    *,
    ridge: float,
    floor: float,
    constraint=None,
    backend: str = "native",
):
    """Minimize bᵀw + wᵀ(trim(Q) + ridge·I)w, optionally s.t. |aᵀw| <= τ (exact; kernel minimize_quadratic)."""
    return kernels.minimize_quadratic(Q, b, ridge=ridge, psd="trim", floor=floor, constraint=constraint,
                                      backend=backend)
