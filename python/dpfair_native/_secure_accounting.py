"""Accounting for secure (discrete Gaussian) DP-SGD: Poisson-subsampled RDP of a general mechanism.

Why not the usual formula: ``accountants.rdp_subsampled_gaussian`` is the exact RDP of the Poisson-subsampled
*continuous* Gaussian (Mironov, Talwar & Zhang 2019), derived from the Gaussian density. The secure loop releases a
*discrete* Gaussian, whose subsampled RDP that formula does not cover. What we know about one secure step without
subsampling: the released grid integers are Z^D-valued, the neighbouring shift is an integer vector v with
‖v‖₂ <= Δ/γ, and the noise is N_Z(0, σ_g²)^D with σ_g >= σ·Δ/γ, so (Canonne, Kamath & Steinke 2020, "The Discrete
Gaussian for Differential Privacy", NeurIPS, Proposition/Theorem on the Rényi divergence of discrete Gaussians,
D_α(N_Z(0,σ²) ‖ N_Z(v,σ²)) <= α v²/(2σ²) for integer v, summed over independent coordinates) the step is
ε(α) = α/(2σ²)-RDP for every α > 1 under add/remove — with the count release of DPSGD-F/Naïve composed in,
ε(α) = α/(2σ_eff²), σ_eff = (σ⁻² + σ₁⁻²)^(−1/2).

Poisson subsampling of a general RDP mechanism: Zhu & Wang (2019), "Poisson Subsampled Rényi Differential
Privacy", ICML (PMLR 97), the general upper bound (their Theorem 6; optimal up to log(3)/(α−1), as their abstract
states): if M is ε(·)-RDP (add/remove), then M∘PoissonSample_γ satisfies, for every integer α >= 2,

    ε'(α) <= 1/(α−1) · log( (1−γ)^(α−1)·(αγ − γ + 1) + C(α,2)·γ²·(1−γ)^(α−2)·e^(ε(2))
                              + 3·Σ_{ℓ=3..α} C(α,ℓ)·(1−γ)^(α−ℓ)·γ^ℓ·e^((ℓ−1)·ε(ℓ)) ).

(Their tighter Theorem 8, without the factor 3, needs a condition on M proven for the continuous Gaussian and
Laplace; we do not rely on it.) Integer orders only. ``tests/test_secure_accounting.py`` checks the bound against the
exact Rényi divergences of the 1-D Poisson-subsampled discrete Gaussian, both directions, by summation over the
integer support, on a grid of (γ, σ, α).

The lead will move this into ``accountants.py`` (typed events) after merging.
"""

from __future__ import annotations

import math
from typing import Sequence, Tuple

import numpy as np

__all__ = [
    "SECURE_RDP_ORDERS",
    "rdp_poisson_subsampled_general",
    "rdp_subsampled_discrete_gaussian",
    "secure_dpsgd_epsilon",
    "secure_noise_multiplier_for",
]

#: Integer orders (the bound holds at integer α only): 2..64, then 80, 96, 128, 192, 256.
SECURE_RDP_ORDERS: Tuple[int, ...] = tuple(list(range(2, 65)) + [80, 96, 128, 192, 256])


def rdp_poisson_subsampled_general(sample_rate: float, rdp_of, orders: Sequence[int] = SECURE_RDP_ORDERS) -> np.ndarray:
    """Zhu & Wang (2019) general upper bound (module docstring) on the RDP of M∘PoissonSample at integer orders.

    ``rdp_of(l)`` is M's RDP at integer order l >= 2. Returns one value per order (nats). γ = 0: 0; γ = 1: ε(α).
    """
    q = float(sample_rate)
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"sample_rate must lie in [0, 1], got {sample_rate!r}")
    alphas = []
    for a in orders:
        if not float(a).is_integer():
            raise ValueError(f"the general Poisson-subsampling bound needs integer orders, got {a}")
        if int(a) < 2:
            raise ValueError(f"orders must be integers >= 2, got {int(a)}")
        alphas.append(int(a))
    if not alphas or q == 0.0:
        return np.zeros(len(alphas))
    if q == 1.0:
        return np.array([float(rdp_of(a)) for a in alphas])
    # every order's terms in one array: row α, column ℓ = 2..max α (the ℓ = 2 term has no factor 3, ℓ > α none)
    alpha = np.asarray(alphas, dtype=np.float64)[:, None]
    ell = np.arange(2, max(alphas) + 1, dtype=np.float64)[None, :]
    eps = np.array([float(rdp_of(k)) for k in range(2, max(alphas) + 1)])[None, :]
    log_fact = np.concatenate(([0.0], np.cumsum(np.log(np.arange(1.0, max(alphas) + 1)))))
    a_idx, l_idx = alpha.astype(np.int64), ell.astype(np.int64)
    inside = l_idx <= a_idx
    log_comb = log_fact[a_idx] - log_fact[l_idx] - log_fact[np.where(inside, a_idx - l_idx, 0)]
    lq, l1q = math.log(q), math.log1p(-q)
    with np.errstate(invalid="ignore", over="ignore"):  # an infinite or huge ε(ℓ) gives an inf term (ℓ > α: masked)
        terms = log_comb + (alpha - ell) * l1q + ell * lq + (ell - 1) * eps + np.where(ell >= 3, math.log(3.0), 0.0)
    terms = np.where(inside, terms, -np.inf)
    first = (alpha - 1) * l1q + np.log1p((alpha - 1) * q)
    terms = np.concatenate((first, terms), axis=1)
    top = terms.max(axis=1, keepdims=True)
    total = top[:, 0] + np.log(np.exp(terms - np.where(np.isfinite(top), top, 0.0)).sum(axis=1))
    return np.where(np.isfinite(top[:, 0]), total, top[:, 0]) / (alpha[:, 0] - 1)


def rdp_subsampled_discrete_gaussian(sample_rate: float, noise_multiplier: float,
                                     orders: Sequence[int] = SECURE_RDP_ORDERS) -> np.ndarray:
    """RDP bound of one Poisson-subsampled discrete Gaussian step with noise multiplier σ (ε(ℓ) = ℓ/(2σ²))."""
    sigma = float(noise_multiplier)
    if not np.isfinite(sigma) or sigma <= 0:
        raise ValueError(f"noise_multiplier must be a finite number > 0, got {noise_multiplier!r}")
    return rdp_poisson_subsampled_general(sample_rate, lambda ell: ell / (2.0 * sigma * sigma), orders)


def secure_dpsgd_epsilon(sample_rate: float, noise_multiplier: float, steps: int, delta: float,
                         orders: Sequence[int] = SECURE_RDP_ORDERS) -> float:
    """ε at δ of ``steps`` Poisson-subsampled discrete Gaussian steps (add/remove), by the general bound above
    and the RDP -> (ε, δ) conversion of :func:`dpfair_native.accountants.rdp_to_epsilon`."""
    from .accountants import rdp_to_epsilon

    steps = int(steps)
    if steps < 0:
        raise ValueError(f"steps must be >= 0, got {steps}")
    curve = rdp_subsampled_discrete_gaussian(sample_rate, noise_multiplier, orders)
    if steps == 0:
        curve = np.zeros_like(curve)
    return rdp_to_epsilon(np.asarray(orders, dtype=np.float64), steps * curve, delta)[0]


def secure_noise_multiplier_for(target_epsilon: float, delta: float, sample_rate: float, steps: int, *,
                                tol: float = 1e-4, orders: Sequence[int] = SECURE_RDP_ORDERS) -> float:
    """Smallest σ (to ``tol``) with secure_dpsgd_epsilon(q, σ, steps, δ) <= target (bisection; the returned σ
    was evaluated and meets the target)."""
    target = float(target_epsilon)
    if not np.isfinite(target) or target <= 0:
        raise ValueError(f"target_epsilon must be a finite number > 0, got {target_epsilon!r}")

    def eps_of(sigma):
        return secure_dpsgd_epsilon(sample_rate, sigma, steps, delta, orders)

    from .accountants.calibration import search_noise_multiplier

    return search_noise_multiplier(eps_of, target, tol, accountant="the discrete-Gaussian RDP bound")
