"""PrivPC* (thesis §4.5): PC with Fisher-z tests on a differentially private covariance matrix (numerical data).

Neighbouring relation: replace one record; n is public. Declared domain: after public centring and scaling,
x = (row − center) / scale, every row is clipped to ‖x‖₂ <= B (``clip_norm``; rows above are shrunk onto the
sphere, also when x or ‖x‖₂ overflows: ``clip_rows``). The release is the lower triangle (with diagonal) of
Σ = (1/(n−1)) Σ_r x_r x_rᵀ — no data-dependent centring (a data mean would make every entry depend on every row).

Sensitivity. For one row, Σ_{i<=j} |x_i x_j| = (‖x‖₁² + ‖x‖₂²)/2 <= (p + 1) B²/2 (‖x‖₁² <= p‖x‖₂²), so replacing a
row moves the released triangle by at most Δ₁ = (p + 1) B² / (n − 1) in L1 (Laplace, ε-DP). In L2,
Σ_{i<=j} (x_i x_j − y_i y_j)² <= ‖xxᵀ − yyᵀ‖_F² = ‖x‖⁴ + ‖y‖⁴ − 2(xᵀy)² <= 2B⁴, so Δ₂ = √2 B² / (n − 1)
(Gaussian option, analytic calibration, (ε, δ)-DP) — independent of p, far less noise for large p.
The thesis' S = p(p+1)/(2(n−1)) is Δ₁/2 with B² = p: its proof assumes ‖x‖₂² = p for every row ("standard
normal"), which only clipping makes true, and counts one row's removal (add/remove) while dividing by n − 1
as if n were unchanged. ``paper_faithful=True`` reproduces it: data standardised with the data's own mean and
standard deviation, no clipping, Laplace with S; privacy_spent_ = (inf, 0) (no bound holds without the clipping)
and epsilon_claimed_ = ε.

Post-processing: the noisy symmetric matrix is repaired to be positive definite (eigenvalues clipped at
``psd_floor`` × mean diagonal), turned into a correlation matrix (clipped to (−1, 1)), and PC runs Fisher-z tests
with the public n; sepsets and the CPDAG are post-processing and released.
"""

from __future__ import annotations

import math
from typing import Optional

import numpy as np

from .. import kernels
from .._validation import check_delta, check_epsilon, check_random_state, check_X
from ..accountants import PrivacySpent
from ..mechanisms import analytic_gaussian_sigma, laplace_scale
from .graph import CausalGraph, check_names, orient_cpdag
from .pc import check_alpha, check_max_order, fisher_z_decider, skeleton_search

__all__ = ["PrivPCStar", "clip_rows", "covariance_sensitivity"]


def covariance_sensitivity(p: int, n: int, clip_norm: float, mechanism: str = "laplace") -> float:
    """Replace-one sensitivity of the lower triangle of (1/(n−1)) Σ x xᵀ for rows with ‖x‖₂ <= clip_norm:
    L1 (p + 1) B² / (n − 1) for "laplace", L2 √2 B² / (n − 1) for "gaussian"."""
    if n < 2:
        raise ValueError("n must be >= 2")
    b2 = float(clip_norm) ** 2
    if mechanism == "laplace":
        return (p + 1) * b2 / (n - 1)
    if mechanism == "gaussian":
        return math.sqrt(2.0) * b2 / (n - 1)
    raise ValueError(f"mechanism must be 'laplace' or 'gaussian', got {mechanism!r}")


def clip_rows(X: np.ndarray, center: np.ndarray, scale: np.ndarray, clip_norm: float) -> np.ndarray:
    """Rows x = (row − center) / scale, those with ‖x‖₂ > ``clip_norm`` projected onto that sphere.

    Overflow-safe: a row whose x or ‖x‖₂ overflows (a huge record over a tiny public scale) is projected from
    its direction, computed without forming x (``_directions``), instead of becoming NaN (inf · B/inf) or 0
    (x · B/inf). Each row's image depends on that row and the public center, scale and B only, so one record
    changes one row of the result (the sensitivity argument), and a neighbouring dataset cannot turn a fit into
    an error. Rows that overflow nothing are computed exactly as x · (B/‖x‖₂)."""
    with np.errstate(over="ignore"):
        Z = (X - center) / scale
        norms = np.linalg.norm(Z, axis=1)
    huge = ~np.isfinite(norms)  # X is finite (check_X) and so is X − center: only x or its norm overflowed
    over = ~huge & (norms > clip_norm)
    Z[over] *= (clip_norm / norms[over])[:, None]
    if np.any(huge):
        Z[huge] = clip_norm * _directions(X[huge] - center, scale)
    return Z


def _directions(U: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """The rows of U / scale divided by their L2 norms, for finite U and finite scale > 0, without overflow:
    u/s = (m_u/m_s)·2^(e_u − e_s) with frexp mantissas m in [0.5, 1); each row is shifted by its largest exponent
    (a power of 2, exact), so its entries are at most 2 in magnitude before the norm."""
    mu, eu = np.frexp(U)
    ms, es = np.frexp(scale)
    e = np.where(mu != 0, eu - es, -(1 << 30))  # a zero entry must not set the row's shift
    V = np.ldexp(mu / ms, e - e.max(axis=1, keepdims=True))
    return V / np.linalg.norm(V, axis=1, keepdims=True)


def psd_repair(S: np.ndarray, floor: float) -> np.ndarray:
    w, V = np.linalg.eigh(0.5 * (S + S.T))
    w = np.maximum(w, floor)
    return (V * w) @ V.T


class PrivPCStar:
    """DP PC for numerical data via a noisy covariance matrix (module docstring).

    Parameters
    ----------
    epsilon : float, default 1.0
        Budget ε (replace-one neighbours, n public).
    delta : float or None, default None
        δ; required for ``mechanism="gaussian"``.
    mechanism : {"laplace", "gaussian"}, default "laplace"
        Laplace (ε-DP, L1 sensitivity) or analytic Gaussian ((ε, δ)-DP, L2 sensitivity) noise on the triangle.
    clip_norm : float or None, default None
        B, the L2 bound of a centred, scaled row; None: √p (the thesis' ‖x‖² = p).
    center, scale : float or (p,) array, default 0 and 1
        Public per-column centring and scaling, x = (row − center) / scale.
    alpha : float, default 0.01
        Level of the Fisher-z tests.
    max_order : int or None, default None
        Largest conditioning-set size (None: no limit).
    orient : bool, default True
        Orient the skeleton from the separating sets (post-processing).
    psd_floor : float, default 1e-3
        Relative eigenvalue floor of the positive-definite repair.
    paper_faithful : bool, default False
        The thesis' release (data standardisation, no clipping, S = p(p+1)/(2(n−1))); not DP.
    backend : {"native", "numpy"}, default "native"
        Kernel for the degree-2 coefficients.
    n_threads : int or None
        Threads of the native kernel.
    random_state : None, int or numpy Generator
        Source of the noise. Noise path: floating point (NumPy's Laplace / normal samplers), no secure path yet;
        None draws from OS entropy, an int makes the run reproducible and voids the guarantee against whoever
        knows it.

    Attributes
    ----------
    graph_ : CausalGraph
        The result: skeleton, separating sets, CPDAG (``orient=True``).
    skeleton_, sepsets_, cpdag_ : ndarray, dict, ndarray or None
        Its parts: (p, p) bool skeleton; frozenset({i, j}) -> separating set of each removed edge; (p, p) int8
        CPDAG or None.
    release_ : ndarray, shape (p (p + 1) / 2,)
        The noisy lower triangle (row-major ``np.tril_indices`` order): everything else post-processes it.
    covariance_ : ndarray, shape (p, p)
        The repaired private matrix.
    correlation_ : ndarray, shape (p, p)
        Its correlation matrix, clipped to (−1, 1).
    depth_ : int
        The last depth run.
    sensitivity_ : float
        Δ₁ or Δ₂ of the release.
    noise_scale_ : float
        Laplace scale or Gaussian σ.
    privacy_spent_ : PrivacySpent
        (ε, 0) or (ε, δ), method "basic"; (inf, 0), "none", when ``paper_faithful``.
    epsilon_claimed_ : float
        ε.
    n_features_in_ : int
        p.

    Notes
    -----
    How many rows were clipped is not stored: that count is not private (replacing one row moves it by 1).
    """

    def __init__(self, epsilon: float = 1.0, delta: Optional[float] = None, mechanism: str = "laplace",
                 clip_norm: Optional[float] = None, center=0.0, scale=1.0, alpha: float = 0.01,
                 max_order: Optional[int] = None, orient: bool = True, psd_floor: float = 1e-3,
                 paper_faithful: bool = False, backend: str = "native", n_threads: Optional[int] = None,
                 random_state=None):
        self.epsilon = epsilon
        self.delta = delta
        self.mechanism = mechanism
        self.clip_norm = clip_norm
        self.center = center
        self.scale = scale
        self.alpha = alpha
        self.max_order = max_order
        self.orient = orient
        self.psd_floor = psd_floor
        self.paper_faithful = paper_faithful
        self.backend = backend
        self.n_threads = n_threads
        self.random_state = random_state

    def _noisy_covariance(self, X):
        eps = check_epsilon(self.epsilon)
        n, p = X.shape
        if n < 5:
            raise ValueError("PrivPCStar needs at least 5 rows")
        rng = check_random_state(self.random_state)
        if self.paper_faithful:
            sd = X.std(axis=0, ddof=1)
            if np.any(sd == 0):
                raise ValueError("X has a constant column")
            Z = (X - X.mean(axis=0)) / sd
            sens = p * (p + 1) / (2.0 * (n - 1))
            mech = "laplace"
        else:
            scale = np.broadcast_to(np.asarray(self.scale, dtype=np.float64), (p,))
            center = np.broadcast_to(np.asarray(self.center, dtype=np.float64), (p,))
            if np.any(~np.isfinite(scale)) or np.any(scale <= 0) or np.any(~np.isfinite(center)):
                raise ValueError("center must be finite and scale finite and > 0 (public constants, not data)")
            B = math.sqrt(p) if self.clip_norm is None else float(self.clip_norm)
            if not (math.isfinite(B) and B > 0):
                raise ValueError(f"clip_norm must be a finite number > 0, got {self.clip_norm!r}")
            Z = clip_rows(X, center, scale, B)
            mech = self.mechanism
            sens = covariance_sensitivity(p, n, B, mech)
        _, Q, _, _ = kernels.poly2_coefficients(Z, np.zeros(n), np.full(n, 1.0 / (n - 1)),
                                                backend=self.backend, n_threads=self.n_threads)
        il = np.tril_indices(p)
        if mech == "laplace":
            if self.delta is not None:  # as the embeddings: a δ that would not be used is a mistake, not a default
                raise ValueError("delta applies to mechanism='gaussian' only; the Laplace release is pure ε-DP "
                                 "(leave delta=None)")
            scale_ = laplace_scale(sens, eps)
            noise = rng.laplace(0.0, scale_, size=il[0].size)
            spent = PrivacySpent(eps, 0.0, "basic", "replace_one")
        else:
            if self.delta is None:
                raise ValueError("mechanism='gaussian' needs delta (e.g. 1e-5 or 1/n^2)")
            delta = check_delta(self.delta)
            scale_ = analytic_gaussian_sigma(sens, eps, delta)
            noise = rng.normal(0.0, scale_, size=il[0].size)
            spent = PrivacySpent(eps, delta, "basic", "replace_one")
        self.release_ = Q[il] + noise  # what is released: the noisy lower triangle (everything else post-processes it)
        N = np.zeros((p, p))
        N[il] = noise
        N = N + np.tril(N, -1).T
        self.sensitivity_, self.noise_scale_ = sens, scale_
        self.epsilon_claimed_ = eps
        self.privacy_spent_ = PrivacySpent(math.inf, 0.0, "none") if self.paper_faithful else spent
        return Q + N

    def fit(self, X, names=None) -> PrivPCStar:
        alpha = check_alpha(self.alpha)
        X = check_X(X).astype(np.float64)
        n, p = X.shape
        if p < 2:
            raise ValueError("X needs at least two columns")
        floor = float(self.psd_floor)
        if not (math.isfinite(floor) and floor > 0):
            raise ValueError(f"psd_floor must be a finite number > 0, got {self.psd_floor!r}")
        S = self._noisy_covariance(X)
        S = psd_repair(S, floor * max(float(np.mean(np.abs(np.diag(S)))), 1e-12))
        d = np.sqrt(np.diag(S))
        R = np.clip(S / np.outer(d, d), -1.0 + 1e-9, 1.0 - 1e-9)
        np.fill_diagonal(R, 1.0)
        skeleton, sepsets, depth = skeleton_search(p, fisher_z_decider(R, n, alpha), check_max_order(self.max_order, p))
        cpdag = orient_cpdag(skeleton, sepsets) if self.orient else None
        self.graph_ = CausalGraph(skeleton=skeleton, sepsets=sepsets, cpdag=cpdag, names=check_names(names, p))
        self.skeleton_, self.sepsets_, self.cpdag_ = skeleton, sepsets, cpdag
        self.covariance_, self.correlation_ = S, R
        self.depth_ = depth
        self.n_features_in_ = p
        return self
