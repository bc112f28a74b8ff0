"""Non-private factorisation of the walk matrix: truncated SVD (DeepWalk as matrix factorisation, without noise).

``truncated_svd`` is a randomized range finder with power iterations (Halko, Martinsson & Tropp 2011) on any
operator given by its products X -> M X and X -> Mᵀ X, so a sparse graph's M is never formed. ``SVDEmbedding`` is
the non-private reference: W = U_k Σ_k, the rows of M projected on its top-k right singular vectors (the best
rank-k factorisation M ≈ W Hᵀ with H = V_k, i.e. Eq. 5.4 of the thesis with λ = μ → 0).
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_random_state
from ..accountants import PrivacySpent
from ._base import EmbeddingBase, constraints_of
from .graph import WalkOperator

__all__ = ["SVDEmbedding", "random_orthonormal", "truncated_svd"]


def random_orthonormal(n: int, k: int, rng: np.random.Generator) -> np.ndarray:
    """An (n, k) C-ordered matrix with orthonormal columns spanning a uniformly random subspace (Cholesky-QR of a
    Gaussian matrix: Q = G L⁻ᵀ with LLᵀ = GᵀG). Its spectral norm is 1 and its rows have L2 norm <= 1; the result
    is rescaled by its exactly computed largest singular value if rounding left that above 1, so ‖H‖₂ <= 1 holds
    in floating point too (the sensitivity bounds of DPNE need it)."""
    if k > n:
        raise ValueError(f"n_components must be <= the number of vertices ({n}), got {k}")
    G = rng.standard_normal((n, k))
    L = np.linalg.cholesky(G.T @ G)
    Q = np.ascontiguousarray(np.linalg.solve(L, G.T).T)
    return _cap_spectral_norm(Q)


def _cap_spectral_norm(Q: np.ndarray) -> np.ndarray:
    top = np.sqrt(max(np.linalg.eigvalsh(Q.T @ Q)[-1], 0.0))
    return Q / top if top > 1.0 else Q


def truncated_svd(matmul, rmatmul, n: int, k: int, *, n_iter: int = 4, oversample: int = 10, rng=None):
    """Top-k (U, s, V) of an n × n operator: M ≈ U diag(s) Vᵀ. ``matmul(X)`` = M X, ``rmatmul(X)`` = Mᵀ X."""
    rng = check_random_state(rng)
    p = min(n, k + oversample)
    Q, _ = np.linalg.qr(matmul(rng.standard_normal((n, p))))
    for _ in range(n_iter):
        Q, _ = np.linalg.qr(rmatmul(Q))
        Q, _ = np.linalg.qr(matmul(Q))
    Bt = rmatmul(Q)  # (Qᵀ M)ᵀ, n × p
    Vb, s, Ut = np.linalg.svd(Bt, full_matrices=False)  # Bt = Vb s Ut  =>  QᵀM = Utᵀ s Vbᵀ
    U = Q @ Ut.T
    return U[:, :k], s[:k], Vb[:, :k]


class SVDEmbedding(EmbeddingBase):
    """Non-private DeepWalk-style embedding: rank-k truncated SVD of M = (1/t) Σ Pᵃ, W = U_k Σ_k.

    Parameters
    ----------
    n_components : int
        Embedding size k.
    window : int
        Walk length t (2 in the thesis).
    n_iter : int
        Power iterations of the randomized SVD.
    random_state : int, numpy Generator or None

    Attributes
    ----------
    embedding_ : ndarray (n, k)
    context_ : ndarray (n, k)
        H = V_k (orthonormal columns).
    singular_values_ : ndarray (k,)
    privacy_spent_ : PrivacySpent
        (inf, 0.0), method "none": not private.
    """

    _parameter_constraints = constraints_of("n_components", "window", "n_iter", "random_state")

    def __init__(self, n_components=100, *, window=2, n_iter=4, random_state=None):
        self.n_components = n_components
        self.window = window
        self.n_iter = n_iter
        self.random_state = random_state

    def fit(self, adjacency):
        """Embed the graph ((n, n) adjacency, dense or scipy.sparse); returns self."""
        self._validate_params()
        op = WalkOperator(adjacency, self.window)
        k = _check_components(self.n_components, op.n_vertices)
        U, s, V = truncated_svd(op.matmul, op.rmatmul, op.n_vertices, k, n_iter=int(self.n_iter),
                                rng=check_random_state(self.random_state))
        self.embedding_ = U * s
        self.context_ = V
        self.singular_values_ = s
        self.privacy_spent_ = PrivacySpent(math.inf, 0.0, "none")
        return self


def _check_components(k, n: int) -> int:
    """n_components (a declared positive int) against the graph: at most |V|."""
    if k > n:
        raise ValueError(f"n_components must be an int in [1, |V| = {n}], got {k!r}")
    return int(k)
