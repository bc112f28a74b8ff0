"""PLDAccountant: agreement with Google dp_accounting's PLD accountant (1% in ε; both neighbouring relations),
upper bounds against closed forms (Gaussian, Laplace), the replace-one dominating pair checked by 2-D quadrature,
and the pessimistic direction of the discretisation."""

import itertools
import math

import numpy as np
import pytest

from dpfair_native import accountants as A
from dpfair_native.accountants import (
    ComposedEvent,
    GaussianEvent,
    LaplaceEvent,
    PLDAccountant,
    SelfComposedEvent,
    dpsgd_event,
)
from dpfair_native.accountants import pld as P


def _phi(z):
    return 0.5 * math.erfc(-z / math.sqrt(2))


def _gaussian_delta(eps, mu):
    """Exact δ(ε) of the Gaussian mechanism with μ = Δ/σ (Balle & Wang 2018)."""
    return _phi(mu / 2 - eps / mu) - math.exp(eps) * _phi(-mu / 2 - eps / mu)


def _dpa():
    pytest.importorskip("dp_accounting")
    from absl import logging as absl_logging
    from dp_accounting import NeighboringRelation, dp_event
    from dp_accounting.pld import pld_privacy_accountant

    absl_logging.set_verbosity(absl_logging.ERROR)
    return dp_event, pld_privacy_accountant, NeighboringRelation


def _dpa_epsilons(q, sigma, steps, deltas, relation):
    dp_event, pld_mod, rel = _dpa()
    acc = pld_mod.PLDAccountant(rel.REPLACE_ONE if relation == "replace_one" else rel.ADD_OR_REMOVE_ONE)
    acc.compose(dp_event.SelfComposedDpEvent(dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(sigma)), steps))
    return [acc.get_epsilon(d) for d in deltas]


def _ours(event, delta, relation="add_or_remove_one"):
    return PLDAccountant(relation).compose(event).get_epsilon(delta)


# ------------------------------------------------------------------------------- agreement with dp_accounting

FAST_GRID = [(256 / 36177, 1.7, 2827)]
SLOW_GRID = list(itertools.product([0.001, 0.01, 0.1], [0.8, 1.0, 2.0], [1, 100, 3000]))


def _check_agreement(grid, relation):
    deltas = (1e-5, 1e-7)
    worst = 0.0
    for q, sigma, steps in grid:
        refs = _dpa_epsilons(q, sigma, steps, deltas, relation)
        acc = PLDAccountant(relation).compose(dpsgd_event(q, sigma, steps))
        for d, ref in zip(deltas, refs):
            ours = acc.get_epsilon(d)
            assert ours == pytest.approx(ref, rel=0.01), (q, sigma, steps, d)
            worst = max(worst, abs(ours / ref - 1))
    return worst


@pytest.mark.parametrize("relation", ["add_or_remove_one", "replace_one"])
def test_agrees_with_dp_accounting_pld(relation):
    _check_agreement(FAST_GRID, relation)


@pytest.mark.slow
@pytest.mark.parametrize("relation", ["add_or_remove_one", "replace_one"])
def test_agrees_with_dp_accounting_pld_full_grid(relation):
    assert _check_agreement(SLOW_GRID, relation) < 0.01


def test_mixed_composition_agrees_with_dp_accounting():
    dp_event, pld_mod, rel = _dpa()
    ref = pld_mod.PLDAccountant(rel.ADD_OR_REMOVE_ONE)
    ref.compose(
        dp_event.ComposedDpEvent(
            [
                dp_event.SelfComposedDpEvent(dp_event.PoissonSampledDpEvent(0.02, dp_event.GaussianDpEvent(1.3)), 500),
                dp_event.SelfComposedDpEvent(dp_event.GaussianDpEvent(7.0), 3),
                dp_event.SelfComposedDpEvent(dp_event.LaplaceDpEvent(20.0), 2),
            ]
        )
    )
    ev = ComposedEvent(
        [dpsgd_event(0.02, 1.3, 500), SelfComposedEvent(GaussianEvent(7.0), 3),
         SelfComposedEvent(LaplaceEvent(20.0), 2)]
    )
    acc = PLDAccountant().compose(ev)
    for d in (1e-5, 1e-8):
        assert acc.get_epsilon(d) == pytest.approx(ref.get_epsilon(d), rel=0.01)
    for e in (0.5, 1.0, 2.0):
        assert acc.get_delta(e) == pytest.approx(ref.get_delta(e), rel=0.02)


# ---------------------------------------------------------------------------------------- closed-form bounds


@pytest.mark.parametrize("sigma,count", [(1.0, 1), (3.0, 10), (10.0, 500)])
@pytest.mark.parametrize("relation,shift", [("add_or_remove_one", 1.0), ("replace_one", 2.0)])
def test_gaussian_composition_is_a_tight_upper_bound(sigma, count, relation, shift):
    """count Gaussians with noise σ = one Gaussian with μ = shift·√count/σ: the PLD's δ(ε) is >= the exact δ
    (pessimistic) and within 1% of it; its ε(δ) is >= the exact ε and within 1%."""
    acc = PLDAccountant(relation).compose(GaussianEvent(sigma), count=count)
    mu = shift * math.sqrt(count) / sigma
    for eps in (0.1, 0.5, 1.0, 3.0):
        exact = _gaussian_delta(eps, mu)
        if exact < 1e-12:
            continue
        got = acc.get_delta(eps)
        assert got >= exact * (1 - 1e-9)
        assert got == pytest.approx(exact, rel=0.01)
    for delta in (1e-3, 1e-6):
        got = acc.get_epsilon(delta)
        lo, hi = 0.0, 100.0
        for _ in range(200):  # exact ε by bisection on the closed form
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if _gaussian_delta(mid, mu) > delta else (lo, mid)
        assert got >= lo - 1e-12
        assert got == pytest.approx(hi, rel=0.01, abs=1e-3)


def test_laplace_is_pure_dp_and_tight():
    for b in (0.5, 2.0):
        acc = PLDAccountant().compose(LaplaceEvent(b))
        # pure 1/b-DP: δ(1/b) = 0, and ε(δ) -> 1/b as δ -> 0 (never below the true ε(δ))
        assert acc.get_delta(1 / b) == 0.0
        assert acc.get_epsilon(1e-12) == pytest.approx(1 / b, abs=2e-4)
        # exact δ(ε) of the Laplace pair for 0 <= ε <= 1/b: 1 − e^{(ε − 1/b)/2}
        for eps in (0.0, 0.25 / b, 0.5 / b):
            exact = -math.expm1((eps - 1 / b) / 2)
            assert exact * (1 - 1e-12) <= acc.get_delta(eps) <= exact + 1e-3
        rep = PLDAccountant("replace_one").compose(LaplaceEvent(b))
        assert rep.get_delta(2 / b) == 0.0 and rep.get_delta(1 / b) > 0.0


def test_discretisation_is_pessimistic_at_every_resolution():
    """Coarser grids give larger (never smaller) ε than the exact Gaussian value."""
    sigma, count, delta = 2.0, 50, 1e-6
    mu = math.sqrt(count) / sigma
    lo, hi = 0.0, 100.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if _gaussian_delta(mid, mu) > delta else (lo, mid)
    prev = None
    for h in (1e-2, 1e-3, 1e-4):
        acc = PLDAccountant(value_discretization_interval=h).compose(GaussianEvent(sigma), count=count)
        got = acc.get_epsilon(delta)
        assert got >= lo - 1e-12
        if prev is not None:
            assert got <= prev + 1e-9
        prev = got


def test_pld_is_tighter_than_rdp_and_not_below_the_one_step_pair():
    for q, sigma, steps, delta in [(0.01, 1.0, 1000, 1e-5), (256 / 36177, 1.7, 2827, 1e-5), (0.1, 0.8, 10, 1e-6)]:
        ev = dpsgd_event(q, sigma, steps)
        pld = _ours(ev, delta)
        assert pld <= A.dpsgd_epsilon(q, sigma, steps, delta)
    # one subsampled step: δ(ε) of the pair computed directly by quadrature is <= the PLD's δ(ε)
    q, sigma = 0.2, 1.0
    acc = PLDAccountant().compose(dpsgd_event(q, sigma, 1))
    x = np.linspace(-15, 16, 400001)
    dx = x[1] - x[0]
    n0 = np.exp(-x**2 / 2) / math.sqrt(2 * math.pi)
    n1 = np.exp(-(x - 1) ** 2 / 2) / math.sqrt(2 * math.pi)
    mix = (1 - q) * n0 + q * n1
    for eps in (0.05, 0.2, 0.5):
        remove = np.sum(np.maximum(mix - math.exp(eps) * n0, 0)) * dx
        add = np.sum(np.maximum(n0 - math.exp(eps) * mix, 0)) * dx
        got = acc.get_delta(eps)
        assert got >= max(remove, add) * (1 - 1e-6)
        assert got == pytest.approx(max(remove, add), rel=0.02)


# ---------------------------------------------------------------------------------- replace-one dominating pair


def _hockey_2d(q, sigma, a, b, eps):
    g = np.linspace(-10, 10, 801)
    dx = g[1] - g[0]
    X, Y = np.meshgrid(g, g, indexing="ij")

    def dens(c):
        return np.exp(-((X - c[0]) ** 2 + (Y - c[1]) ** 2) / (2 * sigma**2)) / (2 * math.pi * sigma**2)

    n0 = dens((0.0, 0.0))
    p = (1 - q) * n0 + q * dens(a)
    qq = (1 - q) * n0 + q * dens(b)
    return float(np.sum(np.maximum(p - math.exp(eps) * qq, 0)) * dx * dx)


def test_replace_one_pair_dominates_other_contributions():
    """Among contributions g(x), g(x') in the unit ball, the antipodal pair gives the largest hockey-stick
    divergence (2-D quadrature), and it equals the one-dimensional pair the accountant uses."""
    q, sigma = 0.3, 1.0
    angles = [math.pi, 2 * math.pi / 3, math.pi / 2, math.pi / 4]
    for eps in (0.1, 1.0):
        worst = _hockey_2d(q, sigma, (1.0, 0.0), (-1.0, 0.0), eps)
        for t in angles[1:]:
            assert _hockey_2d(q, sigma, (1.0, 0.0), (math.cos(t), math.sin(t)), eps) <= worst + 1e-9
        for a, b in [((0.5, 0.0), (-1.0, 0.0)), ((1.0, 0.0), (0.0, 0.0)), ((0.6, 0.8), (-0.3, 0.1))]:
            assert _hockey_2d(q, sigma, a, b, eps) <= worst + 1e-9
        pair = P._SubsampledGaussianReplace(sigma, q)
        gp, gq = pair.tails(np.array([eps]))
        assert float(gp[0] - math.exp(eps) * gq[0]) == pytest.approx(worst, rel=2e-4)  # quadrature error ~1e-5


@pytest.mark.parametrize("sigma,q", [(0.8, 0.01), (2.7, 0.0066), (0.3, 0.1), (0.05, 0.5), (5.0, 0.001), (1.0, 0.999)])
def test_replace_one_inverse_loss_is_exact(sigma, q):
    """The closed-form x(ε) solves L(x) = ε over the whole loss range (also for small σ, where L is flat near 0
    and exponentially steep further out), and is odd."""
    pair = P._SubsampledGaussianReplace(sigma, q)
    lo, hi = pair.loss_range()
    eps = np.concatenate([np.linspace(lo, hi, 4001), [0.0, 1e-12, -1e-12]])
    x = pair._x(eps)
    assert np.all(np.abs(pair._loss(x) - eps) <= 1e-12 * np.maximum(1.0, np.abs(eps)))
    assert np.array_equal(pair._x(-eps), -x)
    assert np.all(np.diff(pair._x(np.sort(eps))) <= 0)  # x(ε) decreasing, as L is
    gp, gq = pair.tails(np.array([0.0]))  # L > 0 ⟺ X < 0 exactly: P(X < 0) under the mixture
    assert float(gp[0]) == pytest.approx((1 - q) * 0.5 + q * _phi(1 / sigma), rel=1e-12)
    assert float(gq[0]) == pytest.approx((1 - q) * 0.5 + q * _phi(-1 / sigma), rel=1e-12)


def test_an_epsilon_beyond_exp_range_is_not_capped():
    """e^ε overflows past ε ≈ 709.78: the search used to return 709.78 whatever the true ε (dp_accounting: 1669.6
    here; RDP 2008). Now such an ε is reported as inf, never below the truth; ordinary ones are unchanged."""
    huge = A.PLDAccountant().compose(A.dpsgd_event(0.5, 0.1, 40)).get_epsilon(1e-5)
    assert huge == math.inf
    large = A.PLDAccountant().compose(A.dpsgd_event(0.5, 0.5, 40)).get_epsilon(1e-5)
    assert 50 < large < A.dpsgd_epsilon(0.5, 0.5, 40, 1e-5)


def test_replace_one_costs_more_than_add_remove():
    ev = dpsgd_event(0.01, 1.0, 1000)
    assert _ours(ev, 1e-5, "replace_one") > _ours(ev, 1e-5)


# -------------------------------------------------------------------------------------------------- interface


def test_accountant_records_and_validates():
    acc = PLDAccountant()
    assert acc.get_epsilon(1e-5) == 0.0 and acc.get_delta(1.0) == 0.0
    acc.compose(dpsgd_event(0.01, 1.0, 10), label="sgd").compose(GaussianEvent(5.0), count=2, label="counts")
    assert acc.labels == ["sgd", "counts"] and len(acc.events) == 2
    both = ComposedEvent([dpsgd_event(0.01, 1.0, 10), SelfComposedEvent(GaussianEvent(5.0), 2)])
    one_go = PLDAccountant().compose(both)
    assert acc.get_epsilon(1e-5) == pytest.approx(one_go.get_epsilon(1e-5), rel=1e-12)
    with pytest.raises(ValueError):
        PLDAccountant().compose(A.PoissonSampledEvent(0.1, LaplaceEvent(1.0)))
    with pytest.raises(ValueError):
        PLDAccountant(value_discretization_interval=0.0)
    with pytest.raises(ValueError):
        acc.get_epsilon(0.0)
    with pytest.raises(ValueError):
        acc.get_delta(-1.0)
    assert "PLDAccountant" in repr(acc)


@pytest.mark.parametrize("h", [5e-4, 1e-3, 2e-3])
def test_composed_window_does_not_grow_with_the_grid(h):
    """The Chernoff window of a composition is set by the loss distribution, not the grid: a coarser grid spans
    about the same losses with fewer points (the MGF blocks used to pick λ merged 64 points whatever h, which at
    h = 1e-3 widened the window from 4.5 to ~20 nats and made a coarse grid barely cheaper)."""
    q, s, steps = 256 / 36177, 1.59, 2827
    for pair in (P._SubsampledGaussianRemove(s, q), P._SubsampledGaussianAdd(s, q)):
        fine = P._compose([(P._discretise(pair, 1e-4, 1e-15), steps)], 1e-15)
        coarse = P._compose([(P._discretise(pair, h, 1e-15), steps)], 1e-15)
        assert coarse.pmf.size * h <= 1.1 * fine.pmf.size * 1e-4


def test_clt_variance_of_one_sampled_step_matches_the_discretised_pld():
    """``_clt_mu_squared``'s per-step variances (first order in q) against the variance of the discretised PLD."""
    from dpfair_native.accountants import calibration as C
    from dpfair_native.accountants.events import NeighbouringRelation, PoissonSampledEvent

    for q, s in [(0.001, 0.8), (0.01, 1.5), (0.02, 3.0)]:
        for relation, pair in [("add_or_remove_one", P._SubsampledGaussianRemove(s, q)),
                               ("replace_one", P._SubsampledGaussianReplace(s, q))]:
            d = P._discretise(pair, 1e-6 if q < 0.005 else 1e-5, 1e-15)
            loss = (np.arange(d.pmf.size) + d.offset) * d.h
            var = np.sum(d.pmf * loss**2) - np.sum(d.pmf * loss) ** 2
            clt = C._clt_mu_squared(PoissonSampledEvent(q, GaussianEvent(s)), NeighbouringRelation.coerce(relation))
            assert clt is None  # one step: the record is expected in fewer than 10 batches
            clt = C._clt_mu_squared(SelfComposedEvent(PoissonSampledEvent(q, GaussianEvent(s)), 10_000),
                                    NeighbouringRelation.coerce(relation)) / 10_000
            assert clt == pytest.approx(var, rel=0.05)
    assert C._clt_mu_squared(GaussianEvent(2.0), NeighbouringRelation.coerce("replace_one")) == pytest.approx(1.0)


@pytest.mark.parametrize("relation", ["add_or_remove_one", "replace_one"])
@pytest.mark.parametrize(
    "target, delta, q, steps",
    [(1.0, 1e-5, 256 / 36177, 2827), (0.5, 1e-5, 0.001, 3000), (4.0, 1e-5, 0.01, 3000), (8.0, 1e-5, 0.1, 3000),
     (2.0, 1e-7, 0.05, 20000), (0.5, 1e-5, 0.01, 1), (0.3, 1e-6, 0.1, 10)],
)
def test_pld_calibration_on_its_own_grid_stays_within_a_tenth_of_a_percent(target, delta, q, steps, relation):
    """The PLD calibration's default grid (``_calibration_interval``, a multiple of 1e-4): the σ it returns meets
    the target under the default 1e-4 accountant too, and lies between the 1e-4 grid's σ and 0.1 % above it."""
    from dpfair_native.accountants import calibration as C

    def make(s):
        return dpsgd_event(q, s, steps)

    fine = C.calibrate_noise_multiplier(make, target, delta, method="pld", neighbouring_relation=relation,
                                        value_discretization_interval=1e-4)
    auto = A.noise_multiplier_for(target, delta, q, steps, method="pld", neighbouring_relation=relation)
    assert fine <= auto <= fine * 1.001 + 1e-4
    assert A.epsilon_of_event(make(auto), delta, method="pld", neighbouring_relation=relation) <= target


@pytest.mark.parametrize("sigma, q, steps, h", [(1.0, 0.05, 500, 1e-3), (0.8, 0.01, 3000, 1e-3), (2.0, 0.2, 50, 1e-3),
                                                 (1.0, 0.05, 37, 2e-3)])
def test_composition_keeps_all_finite_mass(sigma, q, steps, h):
    """The FFT buffer is longer than the window: mass aliased onto residues outside it is moved to the window's top
    (it used to be dropped: up to 4.5e-4 of P-mass here with a loose tail_mass, uncounted in δ)."""
    for tail in (1e-3, 1e-2):
        d = P._discretise(P._SubsampledGaussianRemove(sigma, q), h, tail)
        c = P._compose([(d, steps)], tail)
        assert c.pmf.sum() >= (1.0 - d.p_inf) ** steps - 1e-12


class _TwoDirections:
    """A stand-in for a PLDAccountant at σ whose "add" direction costs more than "remove": ε = 1/σ and 1.3/σ."""

    scale = {"remove": 1.0, "add": 1.3}

    def __init__(self, sigma, log):
        self.sigma, self.log = sigma, log

    def _direction_names(self):
        return ["remove", "add"]

    def _direction_epsilon(self, name, delta):
        self.log.append((name, self.sigma))
        return self.scale[name] / self.sigma


def test_pld_search_goes_on_when_a_later_direction_exceeds_the_target():
    """``_pld_search`` runs on "remove" first; at the σ it finds (1.0) "add" is over the target, so the search goes
    on on "add" from there: the σ returned meets the target in both directions and its lattice neighbour below it
    fails in one of them."""
    from dpfair_native.accountants import calibration as C

    log = []
    found = C._pld_search(lambda s: _TwoDirections(s, log), 1.0, 1e-5, 0.9, -1.0, 1e-3)
    assert found == pytest.approx(1.3)
    assert max(1.0 / found, 1.3 / found) <= 1.0 and 1.3 / (found - 1e-3) > 1.0
    assert ("add", pytest.approx(1.0)) in log and ("add", pytest.approx(found - 1e-3)) in log


@pytest.mark.parametrize("target, delta, q, steps", [(1.0, 1e-5, 256 / 36177, 2827), (4.0, 1e-6, 0.01, 3000),
                                                     (2.0, 1e-5, 0.02, 500), (1.0, 1e-5, 0.01, 50)])
def test_pld_calibration_composes_the_second_direction_once(target, delta, q, steps):
    """Add/remove DP-SGD: the search rejects and accepts σ on "remove" alone and composes "add" only at the σ it
    returns, which is what keeps the calibration near one direction per σ; the σ returned meets the target in both
    directions on the calibration's grid and the one ``tol`` below it does not."""
    from dpfair_native.accountants import calibration as C

    composed = []
    direction = P.PLDAccountant._direction

    def counting(self, name, parts):
        if name not in self._composed:
            composed.append(name)
        return direction(self, name, parts)

    P.PLDAccountant._direction = counting
    try:
        sigma = A.noise_multiplier_for(target, delta, q, steps, method="pld")
    finally:
        P.PLDAccountant._direction = direction
    assert composed.count("add") == 1 and composed.count("remove") >= 2
    h = C._calibration_interval(dpsgd_event(q, 1.0, steps), target, C._gaussian_dp_mu(target, delta))
    for s, below in ((sigma, False), (sigma - 1e-4, True)):
        eps = A.epsilon_of_event(dpsgd_event(q, s, steps), delta, method="pld", value_discretization_interval=h)
        assert (eps > target) == below


def test_gdp_log_slope_matches_a_finite_difference():
    """``_gdp_log_slope`` (the closed form d log ε / d log μ of μ-GDP at fixed δ) against a central difference of
    ε(μ), itself found by bisection on δ(ε)."""
    from dpfair_native.accountants import calibration as C

    def gdp_epsilon(mu, delta):
        lo, hi = 0.0, mu * mu + 10.0 * mu
        for _ in range(100):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if C._gdp_delta(mid, mu) > delta else (lo, mid)
        return hi

    for eps, delta in [(1.0, 1e-5), (0.1, 1e-6), (8.0, 1e-9), (30.0, 1e-5)]:
        mu = C._gaussian_dp_mu(eps, delta)
        numeric = (math.log(gdp_epsilon(mu * 1.0001, delta)) - math.log(gdp_epsilon(mu / 1.0001, delta))) / (
            2 * math.log(1.0001))
        assert C._gdp_log_slope(eps, mu) == pytest.approx(numeric, rel=1e-5)


def test_tiny_noise_is_refused_clearly_instead_of_overflowing_or_exhausting_memory():
    """A Poisson-sampled Gaussian with σ = 0.01 (its loss range overflowed e^x in ``loss_range``) and a replace-one
    one with σ = 1e-4 (a grid of 10^12 points) get a ValueError that says what to do; the loss range itself is
    computed in log space where e^x would overflow."""
    with pytest.raises(ValueError, match="method='rdp'"):
        P._discretise(P._SubsampledGaussianReplace(1e-4, 0.5), 1e-4, 1e-15)
    with pytest.raises(ValueError, match="method='rdp'"):
        A.epsilon_of_event(dpsgd_event(0.5, 1e-3, 10), 1e-5, method="pld")
    lo, hi = P._SubsampledGaussianRemove(0.01, 0.5).loss_range()
    assert hi == pytest.approx((1 + 2 * 0.01 * P._Z_TAIL) / (2 * 0.01**2) + math.log(0.5), rel=1e-12)
    assert P._log_mixture(0.3, 2.0) == pytest.approx(math.log(0.7 + 0.3 * math.exp(2.0)), rel=1e-15)
    assert P._log_mixture(0.3, 800.0) == pytest.approx(800.0 + math.log(0.3), rel=1e-15)
    assert P._log_mixture(1.0, 800.0) == 800.0


def test_a_gaussian_then_a_choice_among_one_mechanism_is_their_composition():
    """With one mechanism to choose from, the adaptive bound is the plain composition (to the grid step, from
    above); with two, at least the worse one's; and the outputs not covered are charged in full."""
    sub = A.PoissonSampledEvent(0.01, A.GaussianEvent(1.0))
    one = P.PLDAccountant().compose(sub, 500)
    plain = P.PLDAccountant().compose(A.ComposedEvent([A.GaussianEvent(100.0), A.SelfComposedEvent(sub, 500)]))
    exact = plain.get_epsilon(1e-5)
    got = P.epsilon_after_gaussian_choice(100.0, [one], 1e-5)
    assert exact - 1e-12 <= got <= exact + 3e-4
    worse = P.PLDAccountant().compose(A.PoissonSampledEvent(0.012, A.GaussianEvent(1.0)), 500)
    both = P.epsilon_after_gaussian_choice(100.0, [one, worse], 1e-5)
    assert both >= P.epsilon_after_gaussian_choice(100.0, [worse], 1e-5) > got
    assert P.epsilon_after_gaussian_choice(100.0, [one], 1e-5, extra_delta=5e-6) > got
    with pytest.raises(ValueError, match="never falls"):
        P.epsilon_after_gaussian_choice(100.0, [one], 1e-5, extra_delta=2e-5)
    with pytest.raises(ValueError, match="add_or_remove_one"):
        P.epsilon_after_gaussian_choice(100.0, [P.PLDAccountant("replace_one").compose(sub)], 1e-5)
