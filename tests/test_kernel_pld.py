"""The PLD accountant's kernels: pld_connect_the_dots (the pessimistic discretisation of one worst-case pair) and
pld_epsilon_for_delta (ε(δ) of a discretised PLD).

Properties checked: native == NumPy twin on the pairs the accountant discretises (Gaussian, Laplace, Poisson-sampled
Gaussian remove / add / replace) and on composed PLDs, including the edge cases (ε past e^ε's overflow, NaN tails,
buckets without Q-mass, every loss <= 0, p_inf above δ); the discretisation keeps every bucket's P- and Q-mass and
lies above the true δ(ε) curve; ε(δ) is the smallest ε whose δ, computed independently by brute force, meets δ;
bad shapes are refused.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpfair_native import kernels
from dpfair_native.accountants import pld as P

BACKENDS = ["numpy", pytest.param("native", marks=pytest.mark.native)]
PAIRS = [
    P._ShiftedGaussian(1.0, 1.0),
    P._ShiftedGaussian(0.05, 2.0),  # losses up to ~3,000 nats: e^ε overflows on the grid
    P._ShiftedLaplace(0.5, 1.0),
    P._SubsampledGaussianRemove(1.2, 0.01),
    P._SubsampledGaussianAdd(1.2, 0.01),
    P._SubsampledGaussianReplace(0.8, 0.1),
    P._SubsampledGaussianRemove(0.3, 0.5),
]


def _grid(pair, h):
    lo, hi = pair.loss_range()
    eps = np.arange(math.floor(lo / h), math.ceil(hi / h) + 1) * h
    return (eps,) + tuple(pair.tails(eps))


def _delta_brute_force(pmf, offset, h, p_inf, epsilon):
    losses = (np.arange(pmf.shape[0]) + offset) * h
    above = losses > epsilon
    return p_inf + math.fsum(pmf[above] * -np.expm1(epsilon - losses[above]))


@pytest.mark.native
@pytest.mark.parametrize("h", [1e-4, 1e-3, 2e-2])
@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: type(p).__name__)
def test_connect_the_dots_native_equals_numpy_bit_for_bit(pair, h):
    eps, gp, gq = _grid(pair, h)
    with np.errstate(over="ignore", invalid="ignore"):
        ref, ref_inf = kernels.pld_connect_the_dots(eps, gp, gq, backend="numpy")
    got, got_inf = kernels.pld_connect_the_dots(eps, gp, gq, backend="native")
    np.testing.assert_array_equal(got, ref)
    assert got_inf == ref_inf


@pytest.mark.native
def test_connect_the_dots_edge_cases_match():
    """NaN and out-of-range tails, a Q tail that underflows to 0 early (buckets without Q-mass), and losses past
    e^ε's overflow give the same masses on both backends."""
    eps = np.linspace(-1.0, 800.0, 401)
    gp = np.linspace(1.2, -0.1, 401)
    gq = np.where(eps < 3.0, np.exp(-np.maximum(eps, 0.0)) * 0.9, 0.0)
    for g in (gp, gq):
        cases = [g, np.where(np.arange(401) == 200, np.nan, g)]
        for case in cases:
            a, b = (case, gq) if g is gp else (gp, case)
            with np.errstate(over="ignore", invalid="ignore"):
                ref = kernels.pld_connect_the_dots(eps, a, b, backend="numpy")
            got = kernels.pld_connect_the_dots(eps, a, b, backend="native")
            np.testing.assert_array_equal(got[0], ref[0])
            assert got[1] == ref[1] or (math.isnan(got[1]) and math.isnan(ref[1]))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("pair", PAIRS[:1] + PAIRS[2:], ids=lambda p: type(p).__name__)
def test_connect_the_dots_keeps_bucket_masses_and_is_pessimistic(pair, backend):
    """The P-mass is preserved, the Q-mass the atoms imply (P-mass · e^{−ε}) is the buckets' Q-mass plus that of
    the bottom atom, and the discretised δ(ε) is at or above the pair's true δ(ε) = P(L > ε) − e^ε Q(L > ε) at
    points between the grid losses."""
    h = 1e-2
    eps, gp, gq = _grid(pair, h)
    pmf, p_inf = kernels.pld_connect_the_dots(eps, gp, gq, backend=backend)
    gp = np.minimum.accumulate(np.clip(gp, 0.0, 1.0))
    gq = np.minimum.accumulate(np.clip(gq, 0.0, 1.0))
    assert pmf.min() >= 0.0
    assert pmf.sum() + p_inf == pytest.approx(1.0, abs=1e-12)
    q_mass = math.fsum(pmf * np.exp(-eps))
    assert q_mass == pytest.approx(gq[0] - gq[-1] + (1.0 - gp[0]) * math.exp(-eps[0]), abs=1e-9)
    for e in np.linspace(max(eps[0], 0.0) + h / 3, min(eps[-1], 5.0), 25):
        tp, tq = pair.tails(np.array([e]))
        true = float(tp[0] - math.exp(e) * tq[0])
        assert _delta_brute_force(pmf, int(round(eps[0] / h)), h, p_inf, e) >= true - 1e-12


def _composed(pair, h, count):
    d = P._discretise(pair, h, 1e-15)
    return P._compose([(d, count)], 1e-15)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("delta", [1e-3, 1e-5, 1e-9])
@pytest.mark.parametrize("case", ["gaussian", "remove", "add", "replace", "huge"])
def test_epsilon_for_delta_is_the_smallest_epsilon_meeting_delta(case, delta, backend):
    pair, h, count = {
        "gaussian": (P._ShiftedGaussian(1.0, 1.0), 1e-3, 4),
        "remove": (P._SubsampledGaussianRemove(1.2, 0.01), 5e-4, 3000),
        "add": (P._SubsampledGaussianAdd(1.2, 0.01), 5e-4, 3000),
        "replace": (P._SubsampledGaussianReplace(0.8, 0.1), 1e-3, 50),
        "huge": (P._ShiftedGaussian(0.1, 1.0), 0.05, 3),  # ε in the hundreds
    }[case]
    d = _composed(pair, h, count)
    eps = kernels.pld_epsilon_for_delta(d.pmf, d.offset, d.h, d.p_inf, delta, backend=backend)
    assert math.isfinite(eps) and eps >= 0
    assert _delta_brute_force(d.pmf, d.offset, d.h, d.p_inf, eps) <= delta * (1 + 1e-9)
    if eps > 0:
        assert _delta_brute_force(d.pmf, d.offset, d.h, d.p_inf, eps * (1 - 1e-6) - 1e-12) > delta


@pytest.mark.native
@pytest.mark.parametrize("delta", [0.5, 1e-2, 1e-5, 1e-12, 1e-300])
def test_epsilon_for_delta_native_equals_numpy(delta):
    rng = np.random.default_rng(3)
    cases = [
        (_composed(P._SubsampledGaussianRemove(1.6, 256 / 36177), 5e-4, 2827), None),
        (_composed(P._SubsampledGaussianAdd(1.6, 256 / 36177), 5e-4, 2827), None),
        (_composed(P._ShiftedLaplace(1.0, 1.0), 1e-3, 7), None),
        (P._DiscretePLD(rng.random(500) / 500, -800, 0.0, 1.0), "losses to 300 nats"),
        (P._DiscretePLD(rng.random(500) / 500, 400, 1e-6, 1.0), "every loss past e^ε's overflow"),
        (P._DiscretePLD(rng.random(50) / 50, -60, 0.0, 1.0), "every loss <= 0"),
        (P._DiscretePLD(np.zeros(10), 1, 0.0, 0.1), "no mass"),
        (P._DiscretePLD(np.full(10, 0.05), -3, 0.5, 0.1), "p_inf 0.5"),
    ]
    for d, _ in cases:
        with np.errstate(over="ignore", invalid="ignore"):
            ref = kernels.pld_epsilon_for_delta(d.pmf, d.offset, d.h, d.p_inf, delta, backend="numpy")
        got = kernels.pld_epsilon_for_delta(d.pmf, d.offset, d.h, d.p_inf, delta, backend="native")
        assert got == pytest.approx(ref, rel=1e-12, abs=1e-15) or (math.isinf(got) and math.isinf(ref))


@pytest.mark.parametrize("backend", BACKENDS)
def test_pld_kernels_refuse_bad_shapes(backend):
    with pytest.raises(ValueError, match="one shape"):
        kernels.pld_connect_the_dots(np.zeros(3), np.zeros(3), np.zeros(2), backend=backend)
    with pytest.raises(ValueError, match="one shape"):
        kernels.pld_connect_the_dots(np.zeros(1), np.zeros(1), np.zeros(1), backend=backend)
    with pytest.raises(ValueError, match="one-dimensional"):
        kernels.pld_epsilon_for_delta(np.zeros((2, 2)), 0, 0.1, 0.0, 1e-5, backend=backend)
    with pytest.raises(ValueError, match="h must be > 0"):
        kernels.pld_epsilon_for_delta(np.zeros(3), 0, 0.0, 0.0, 1e-5, backend=backend)
