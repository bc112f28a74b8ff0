"""Laplace (and Gumbel) noise scales are Δ/ε rounded up, never to nearest (session 24).

Lap(b) is ε-DP for L1 sensitivity Δ when b·ε >= Δ. Plain float division rounds to nearest, which for about half
of the (Δ, ε) pairs gives a b whose exact product with ε is below Δ: noise half an ulp short of the ε the fit
reports. Each test below picks pairs where plain division rounds down (asserting that it does, so the test could
fail on the old code) and checks, in exact rational arithmetic, the scale each release actually drew at.
"""

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest

from dpfair_native import feature_selection, mechanisms
from dpfair_native.causal import LapMechPC, PrivPCStar
from dpfair_native.embedding import DPNE, DPMatrixBaseline, planted_partition
from dpfair_native.embedding.sensitivity import walk_l1_sensitivity, walk_l21_sensitivity
from dpfair_native.mechanisms import laplace_scale


def _covers(scale: float, sensitivity: float, epsilon: float) -> bool:
    return Fraction(scale) * Fraction(epsilon) >= Fraction(sensitivity)


def _rounding_down_epsilons(sensitivity: float, count: int, seed: int = 0):
    """``count`` values of ε in [0.3, 5] for which the float Δ/ε is below the exact ratio."""
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        eps = float(rng.uniform(0.3, 5.0))
        if not _covers(sensitivity / eps, sensitivity, eps):
            found.append(eps)
    return found


class _Spy(np.random.Generator):
    """A Generator that records the scale of every Laplace, Gumbel and Gamma draw (the draws are unchanged)."""

    def __init__(self, seed):
        super().__init__(np.random.PCG64(seed))
        self.scales = []

    def laplace(self, loc=0.0, scale=1.0, size=None):
        self.scales.append(("laplace", scale))
        return super().laplace(loc, scale, size)

    def gumbel(self, loc=0.0, scale=1.0, size=None):
        self.scales.append(("gumbel", scale))
        return super().gumbel(loc, scale, size)

    def gamma(self, shape, scale=1.0, size=None):
        self.scales.append(("gamma", scale))
        return super().gamma(shape, scale, size)


def test_laplace_scale_is_the_smallest_float_that_covers_the_ratio():
    rng = np.random.default_rng(1)
    sens = np.exp(rng.uniform(-20.0, 20.0, 3000))
    eps = np.exp(rng.uniform(-12.0, 6.0, 3000))
    rounded_down = 0
    for d, e in zip(sens.tolist(), eps.tolist()):
        b = laplace_scale(d, e)
        assert _covers(b, d, e)
        assert not _covers(math.nextafter(b, 0.0), d, e)  # and no smaller float does
        assert b - d / e <= math.ulp(b)  # one step at most
        rounded_down += not _covers(d / e, d, e)
    assert rounded_down > 500  # plain division falls short for a large share of the pairs


def test_laplace_scale_edges():
    assert laplace_scale(2.0, math.inf) == 0.0
    assert laplace_scale(1.0, 1e-320) == math.inf
    assert laplace_scale(0.0, 1.0) == 0.0
    assert laplace_scale(5e-324, 1e300) == 5e-324  # the exact ratio underflows to 0, which would be no noise


def test_laplace_mechanism_draws_at_the_rounded_up_scale():
    for eps in _rounding_down_epsilons(1.0, 5):
        spy = _Spy(0)
        mechanisms.laplace_mechanism(np.zeros(3), 1.0, eps, random_state=spy)
        [(kind, scale)] = spy.scales
        assert kind == "laplace" and scale == laplace_scale(1.0, eps) and _covers(scale, 1.0, eps)


def test_peeling_gumbel_scale_covers_twice_the_sensitivity():
    for eps in _rounding_down_epsilons(2.0, 5, seed=2):
        spy = _Spy(0)
        feature_selection.gumbel_top_k(np.arange(6.0), 2, eps, 1.0, spy)
        [(kind, scale)] = spy.scales
        assert kind == "gumbel" and _covers(scale, 2.0, eps)


def test_lapmech_table_noise_covers_its_sensitivity():
    X = np.random.default_rng(0).integers(0, 2, size=(200, 3))
    for eps in _rounding_down_epsilons(2.0, 3, seed=3):
        m = LapMechPC(epsilon=eps, max_order=0, random_state=0).fit(X, n_categories=[2, 2, 2])
        assert m.privacy_spent_.epsilon == eps and _covers(m.noise_scale_, 2.0, eps)


def test_privpc_star_laplace_noise_covers_its_sensitivity():
    X = np.random.default_rng(0).uniform(-1.0, 1.0, size=(300, 4))
    checked = 0
    for eps in np.linspace(0.5, 3.0, 40).tolist():
        spy = _Spy(0)
        m = PrivPCStar(epsilon=eps, clip_norm=2.0, max_order=0, random_state=spy, backend="numpy").fit(X)
        sens = m.sensitivity_
        checked += not _covers(sens / eps, sens, eps)
        assert [s for k, s in spy.scales if k == "laplace"] == [m.noise_scale_]
        assert m.privacy_spent_.epsilon == eps and _covers(m.noise_scale_, sens, eps)
    assert checked >= 5


@pytest.fixture(scope="module")
def graph():
    return planted_partition(40, 2, mean_degree=6.0, ratio=4.0, sparse=False, random_state=1).adjacency


def test_dpm_noise_covers_its_sensitivity(graph):
    l1 = walk_l1_sensitivity(2)
    for eps in _rounding_down_epsilons(l1, 3, seed=4):
        m = DPMatrixBaseline(4, epsilon=eps, window=2, random_state=0).fit(graph)
        assert m.privacy_spent_.epsilon == eps and _covers(m.noise_scale_, l1, eps)


def test_dpne_laplace_rows_cover_their_sensitivity(graph):
    l21 = walk_l21_sensitivity(2)
    for eps in _rounding_down_epsilons(l21, 3, seed=5):
        spy = _Spy(0)
        m = DPNE(4, epsilon=eps, window=2, noise="laplace", context="random", random_state=spy).fit(graph)
        assert [s for k, s in spy.scales if k == "gamma"] == [m.noise_scale_]  # the row norms' Gamma(k, b)
        assert m.privacy_spent_.epsilon == eps and _covers(m.noise_scale_, l21, eps)


@pytest.mark.parametrize("name", ["FunctionalMechanismLR", "PFLR", "PFLRStar", "PDFC"])
def test_functional_mechanism_blocks_draw_and_report_a_covering_scale(name):
    """The FM family's Laplace blocks (models/_functional_core.release_blocks): the scale each block drew at (the
    spy) is the scale it reports (``release_.blocks[k].scale``, and ``noise_scale_`` = scale × the block's weights on
    the model's coordinates), and it covers the block's Δ/ε exactly, over ε values where Δ/ε rounds down."""
    from dpfair_native import models

    rng = np.random.default_rng(0)
    X = rng.uniform(size=(400, 4))
    y = (X[:, 0] + 0.3 * rng.normal(size=400) > 0.5).astype(int)
    s = (rng.uniform(size=400) < 0.4).astype(int)
    rounding_down = 0
    for eps in np.linspace(0.5, 4.0, 30).tolist():
        spy = _Spy(0)
        params = {"epsilon_s": eps, "epsilon_n": eps} if name == "PDFC" else {"epsilon": eps}
        if name != "FunctionalMechanismLR":
            params["declared_groups"] = [0, 1]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # no declared domain: the [0, 1] box, which X lies in
            m = getattr(models, name)(random_state=spy, **params).fit(X, y, sensitive_features=s)
        blocks = [b for b in m.release_.blocks if b.mechanism == "laplace"]
        drawn = [s_ for k, s_ in spy.scales if k == "laplace"]  # earlier draws: e.g. the feature selection's count
        assert blocks and drawn[len(drawn) - len(blocks):] == [b.scale for b in blocks]
        expected = np.zeros_like(m.release_.noise_scale)
        for b in blocks:
            assert _covers(b.scale, b.sensitivity, b.epsilon)
            rounding_down += not _covers(b.sensitivity / b.epsilon, b.sensitivity, b.epsilon)
            expected[np.asarray(b.mask, bool)[:expected.size]] = (
                b.scale * (1.0 if b.weights is None else np.asarray(b.weights)[:int(np.sum(b.mask[:expected.size]))]))
        np.testing.assert_array_equal(m.noise_scale_, expected)
    assert rounding_down >= 3  # so the test would fail on plain division
