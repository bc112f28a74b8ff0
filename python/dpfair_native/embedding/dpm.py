"""dpM: the thesis' naive baseline -- perturb every entry of the walk matrix M, then factorise (thesis §5.4.2).

Releases M̃ = M + Z with i.i.d. noise per entry and embeds W = U_k Σ_k from M̃'s truncated SVD (post-processing).
M̃ is dense, so this baseline costs O(|V|²) memory whatever the graph's sparsity: it is for graphs of a few
thousand vertices.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_random_state
from ..accountants import PrivacySpent
from ..mechanisms import analytic_gaussian_sigma, laplace_scale
from ._base import EmbeddingBase, check_privacy, constraints_of
from .factorization import _check_components, truncated_svd
from .graph import WalkOperator
from .sensitivity import PAPER_SENSITIVITY, walk_l1_sensitivity, walk_l2_sensitivity

__all__ = ["DPMatrixBaseline"]


class DPMatrixBaseline(EmbeddingBase):
    """dpM: Laplace (or Gaussian) noise on every entry of M, then a rank-k truncated SVD (edge-level DP).

    Parameters
    ----------
    n_components : int, default 100
        Embedding size k.
    epsilon : float, default 1.0
        Privacy budget (inf = no noise).
    delta : float or None
        For ``noise="gaussian"`` only.
    noise : {"laplace", "gaussian"}, default "laplace"
        "laplace": scale Δ₁/ε with the entrywise L1 sensitivity Δ₁ = 2t (ε-DP; the division is rounded up, so
        Δ₁/scale <= ε holds in floating point too). "gaussian": σ from the analytic Gaussian calibration of the
        Frobenius sensitivity √2 + t − 1 ((ε, δ)-DP; far less noise per entry).
    window : int, default 2
        Walk length t.
    paper_faithful : bool, default False
        The thesis' calibration: Laplace scale √2/ε (an L2 bound used as if it were L1). Then
        ``epsilon_claimed_ = epsilon`` while ``privacy_spent_`` is the true guarantee of that noise,
        ε·2t/√2 (= 2√2·ε at t = 2; Δ₁/b rounded up): a Laplace release of scale b is (Δ₁/b)-DP.
    n_iter : int
        Power iterations of the randomized SVD.
    random_state : int, numpy Generator or None
        Source of the noise (and of the randomized SVD, post-processing). Noise path: floating point (NumPy's
        Laplace / normal samplers), no secure path yet; None draws from OS entropy, an int makes the run
        reproducible and voids the guarantee against whoever knows it.

    Attributes
    ----------
    embedding_ : ndarray (n, k)
    privacy_spent_ : PrivacySpent
        (ε, δ) of the one noisy release (method "basic"): the requested (ε, δ) exactly (with ``paper_faithful``
        the true guarantee above); (inf, 0), "none", without noise.
    epsilon_claimed_ : float
        Only with ``paper_faithful=True`` (every such fit, ``epsilon=inf`` included): ``epsilon``, the thesis'
        figure.
    noise_scale_ : float
        Laplace scale (Δ₁/ε rounded up) or Gaussian σ per entry.

    Notes
    -----
    Neighbouring graphs share the vertex set and differ in one undirected edge. Sensitivities of M under that
    relation are derived in ``dpfair_native.embedding.sensitivity`` (L1: 2t; Frobenius: √2 + t − 1) and checked
    by brute force. The thesis factorises M̃ by SGD; here the factorisation is a truncated SVD (post-processing,
    so the guarantee is unchanged).
    """

    _parameter_constraints = constraints_of("n_components", "epsilon", "delta", "noise", "window", "paper_faithful",
                                            "n_iter", "random_state")

    def __init__(self, n_components=100, *, epsilon=1.0, delta=None, noise="laplace", window=2,
                 paper_faithful=False, n_iter=4, random_state=None):
        self.n_components = n_components
        self.epsilon = epsilon
        self.delta = delta
        self.noise = noise
        self.window = window
        self.paper_faithful = paper_faithful
        self.n_iter = n_iter
        self.random_state = random_state

    def fit(self, adjacency):
        """Embed the graph ((n, n) adjacency, dense or scipy.sparse); returns self."""
        self._validate_params()
        eps, delta = check_privacy(self.epsilon, self.delta, self.noise)
        if self.paper_faithful and self.noise != "laplace":
            raise ValueError("paper_faithful=True is the thesis' Laplace calibration; use noise='laplace'")
        op = WalkOperator(adjacency, self.window)
        n, t = op.n_vertices, op.window
        k = _check_components(self.n_components, n)
        rng = check_random_state(self.random_state)
        M = op.dense()
        # every paper-faithful run reports the thesis' figure, as DPNE does (epsilon itself; inf without noise)
        fitted = {"epsilon_claimed_": float(eps)} if self.paper_faithful else {}
        if not np.isfinite(eps):
            scale, spent = 0.0, PrivacySpent(math.inf, 0.0, "none")
        elif self.noise == "laplace":
            l1 = walk_l1_sensitivity(t)
            if self.paper_faithful:  # the thesis' scale; the report is the true guarantee of that noise
                scale = PAPER_SENSITIVITY / eps
                spent = PrivacySpent(laplace_scale(l1, scale), 0.0, "basic", "add_or_remove_one_edge")
            else:
                scale = laplace_scale(l1, eps)  # Δ₁/scale <= ε exactly, so the report is ε itself
                spent = PrivacySpent(eps, 0.0, "basic", "add_or_remove_one_edge")
            M = M + rng.laplace(0.0, scale, size=M.shape)
        else:
            scale = analytic_gaussian_sigma(walk_l2_sensitivity(t), eps, delta)
            M = M + rng.normal(0.0, scale, size=M.shape)
            spent = PrivacySpent(eps, delta, "basic", "add_or_remove_one_edge")
        U, s, _ = truncated_svd(lambda X: M @ X, lambda X: M.T @ X, n, k, n_iter=int(self.n_iter), rng=rng)
        fitted.update(embedding_=U * s, privacy_spent_=spent, noise_scale_=scale)
        from ..models._base import replace_fitted

        return replace_fitted(self, fitted)  # a refit keeps nothing of the last one (e.g. epsilon_claimed_)


