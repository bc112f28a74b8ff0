"""Statistical audits of the causal estimators' releases (see _audit.py), each with a negative control.

PrivPC's selection step: max_order = 0 and threshold_shift = 0 (the plain χ² threshold, so that 30 records
can reach both sides of it), so a fit is one subset exponential mechanism over the three edges of a
3-variable graph. D and D' differ in one record, chosen by brute force (over a few base datasets and every
replacement) to maximise the exact privacy loss of the released edge set; each release is reduced to its exact
log-likelihood ratio. Negative control: the same selection run at 4ε while claiming ε must be caught.

PrivPC*'s release: the noisy lower triangle of the covariance for D = base rows + x and D' = base rows + y, x, y
on the clipping sphere (the pair with the largest Laplace privacy loss among candidate vertices). Negative
control: the noise scale divided by 4 must be caught.
"""

import itertools

import numpy as np
import pytest

from dpfair_native import _reference, kernels
from dpfair_native.causal import PrivPC, PrivPCStar
from dpfair_native.causal import privpc as privpc_module
from dpfair_native.causal._stats import chi2_critical
from dpfair_native.causal.distance_score import distance_score

from ._audit import audit, laplace_llr

pytestmark = pytest.mark.audit

EPS = 1.0
CATS = np.array([2, 2, 2])
PAIRS = [(0, 1), (0, 2), (1, 2)]
SUBSETS = list(itertools.product([False, True], repeat=3))


def _scores(X):
    ct, cats = kernels.categorical_codes(X, CATS)
    out = []
    for i, j in PAIRS:
        N = _reference.contingency_table(ct, cats, i, j, [])
        out.append(distance_score(N, _reference.g2_from_table(N), chi2_critical(0.01, 1.0), X.shape[0]))
    return np.array(out, dtype=float)


def _log_probs(s, eps):
    q = np.array([min(s[j] if D[j] else -s[j] for j in range(3)) for D in SUBSETS])
    z = eps * q / 2
    return z - np.log(np.sum(np.exp(z - z.max()))) - z.max()


def _worst_pair():
    rng = np.random.default_rng(0)
    best = None
    cells = list(itertools.product([0, 1], repeat=3))
    for _ in range(6):
        base = rng.integers(0, 2, size=(30, 3))
        base[:, 1] = np.where(rng.random(30) < 0.8, base[:, 0], base[:, 1])
        s0 = _scores(base)
        for r in range(0, 30, 3):
            for c in cells:
                X1 = base.copy()
                X1[r] = c
                s1 = _scores(X1)
                loss = np.max(np.abs(_log_probs(s0, EPS) - _log_probs(s1, EPS)))
                if best is None or loss > best[0]:
                    best = (loss, base, X1, s0, s1)
    return best


def _released_index(model):
    kept = [bool(model.skeleton_[i, j]) for i, j in PAIRS]
    return SUBSETS.index(tuple(not k for k in kept))  # the released deletion set


def test_privpc_selection_audit_and_negative_control(monkeypatch):
    loss, X0, X1, s0, s1 = _worst_pair()
    assert np.max(np.abs(s0 - s1)) <= 1  # sensitivity 1 on this pair
    assert loss <= EPS + 1e-9  # exact privacy loss of the released set within ε
    lp0, lp1 = _log_probs(s0, EPS), _log_probs(s1, EPS)
    llr = lp1 - lp0
    rng = np.random.default_rng(1)
    n_fits = 4000
    T = []
    for X in (X0, X1):
        model = PrivPC(epsilon=EPS, max_order=0, threshold_shift=0.0, random_state=rng, backend="numpy")
        T.append(np.array([llr[_released_index(model.fit(X, n_categories=CATS))] for _ in range(n_fits)]))
    result = audit(T[0], T[1])
    assert result.epsilon_lb <= EPS
    assert result.epsilon_lb > 0.05  # the audit sees a real privacy loss (not vacuous)

    # Negative control: the same mechanism at 4ε while claiming ε.
    real = privpc_module.subset_exponential_mechanism
    monkeypatch.setattr(privpc_module, "subset_exponential_mechanism", lambda s, e, g: real(s, 4 * e, g))
    T = []
    for X in (X0, X1):
        model = PrivPC(epsilon=EPS, max_order=0, threshold_shift=0.0, random_state=rng, backend="numpy")
        T.append(np.array([llr[_released_index(model.fit(X, n_categories=CATS))] for _ in range(n_fits)]))
    assert audit(T[0], T[1]).epsilon_lb > EPS


def _star_release(est, X):
    return est.fit(X).release_


def test_privpc_star_release_audit_and_negative_control(monkeypatch):
    p, B = 3, 1.0
    base = np.array([[0.5, -0.5, 0.0], [0.0, 0.3, 0.3], [-0.2, 0.0, 0.6], [0.1, 0.1, 0.1]])
    verts = [B * np.array(v) / np.linalg.norm(v) for v in itertools.product([-1.0, 0.0, 1.0], repeat=p) if np.any(v)]
    exact = [np.vstack([base, v])[:, :, None] * np.vstack([base, v])[:, None, :] for v in verts]
    il = np.tril_indices(p)
    exact = [e.sum(axis=0)[il] / (base.shape[0]) for e in exact]  # (1/(n−1)) Σ x xᵀ, n = 5
    est = PrivPCStar(epsilon=EPS, clip_norm=B, max_order=0, random_state=0, backend="numpy")
    est.fit(np.vstack([base, verts[0]]))
    scale = np.full(il[0].size, est.noise_scale_)
    i, j = max(itertools.permutations(range(len(verts)), 2),
               key=lambda ij: np.sum(np.abs(exact[ij[0]] - exact[ij[1]]) / scale))
    worst = np.sum(np.abs(exact[i] - exact[j]) / scale)
    assert worst <= EPS * (1 + 1e-9)
    rng = np.random.default_rng(2)
    n_fits = 6000

    def run(noise_div):
        if noise_div != 1:
            monkeypatch.setattr("dpfair_native.causal.privpc_star.covariance_sensitivity",
                                lambda p_, n_, b_, m_="laplace": (p_ + 1) * b_ ** 2 / (n_ - 1) / noise_div)
        T = []
        for v in (verts[i], verts[j]):
            model = PrivPCStar(epsilon=EPS, clip_norm=B, max_order=0, random_state=rng, backend="numpy")
            Z = np.array([_star_release(model, np.vstack([base, v])) for _ in range(n_fits)])
            # rounded: far-out draws sit on the LLR's atoms ±worst, which float rounding would otherwise split
            T.append(np.round(laplace_llr(Z, exact[i], exact[j], scale), 9))
        return audit(T[0], T[1])

    result = run(1)
    assert result.epsilon_lb <= EPS and result.epsilon_lb > 0.1
    assert run(4).epsilon_lb > EPS
