"""Typed privacy events, the RDP accountant over events, the vectorised RDP curve and its log-erfc, and the one
calibration routine (``calibrate_noise_multiplier``) with its DP-SGD wrappers."""

import math

import numpy as np
import pytest

from dpfair_native import accountants as A
from dpfair_native.accountants import (
    DEFAULT_RDP_ORDERS,
    ComposedEvent,
    GaussianEvent,
    LaplaceEvent,
    PoissonSampledEvent,
    RDPAccountant,
    SelfComposedEvent,
    calibrate_noise_multiplier,
    dpsgd_event,
)
from dpfair_native.accountants._special import log_erfc
from dpfair_native.accountants.events import flatten_event
from dpfair_native.accountants.rdp import epsilon_of_rdp_event

ORDERS = np.array(DEFAULT_RDP_ORDERS)

# ------------------------------------------------------------------------------------------------------ events


def test_events_are_typed_values():
    e = SelfComposedEvent(PoissonSampledEvent(0.01, GaussianEvent(1.5)), 100)
    assert e == dpsgd_event(0.01, 1.5, 100) and hash(e) == hash(dpsgd_event(0.01, 1.5, 100))
    assert e != dpsgd_event(0.01, 1.5, 101)
    nested = ComposedEvent([GaussianEvent(3.0), SelfComposedEvent(ComposedEvent([e, LaplaceEvent(2.0)]), 2)])
    assert list(flatten_event(nested)) == [
        (GaussianEvent(3.0), 1),
        (PoissonSampledEvent(0.01, GaussianEvent(1.5)), 200),
        (LaplaceEvent(2.0), 2),
    ]
    # q = 0 releases nothing, q = 1 is the mechanism itself, count 0 is nothing
    assert list(flatten_event(PoissonSampledEvent(0.0, GaussianEvent(1.0)))) == []
    assert list(flatten_event(PoissonSampledEvent(1.0, GaussianEvent(1.0)))) == [(GaussianEvent(1.0), 1)]
    assert list(flatten_event(SelfComposedEvent(GaussianEvent(1.0), 0))) == []


@pytest.mark.parametrize(
    "make",
    [
        lambda: GaussianEvent(0.0),
        lambda: GaussianEvent(-1.0),
        lambda: LaplaceEvent(float("nan")),
        lambda: PoissonSampledEvent(1.5, GaussianEvent(1.0)),
        lambda: SelfComposedEvent(GaussianEvent(1.0), -1),
        lambda: A.NeighbouringRelation.coerce("swap_one"),
        lambda: list(flatten_event(PoissonSampledEvent(0.1, dpsgd_event(0.1, 1.0, 3)))),
        lambda: RDPAccountant(neighbouring_relation="replace_one").compose(dpsgd_event(0.1, 1.0, 3)),
    ],
)
def test_bad_events_raise_value_error(make):
    with pytest.raises(ValueError):
        make()


@pytest.mark.parametrize(
    "make",
    [lambda: SelfComposedEvent("gaussian", 3), lambda: ComposedEvent([GaussianEvent(1.0), 2.0]),
     lambda: PoissonSampledEvent(0.1, {"noise_multiplier": 1.0})],
)
def test_non_events_raise_type_error(make):
    with pytest.raises(TypeError):
        make()


def test_rdp_accountant_over_events_equals_the_shorthands():
    ev = ComposedEvent([dpsgd_event(0.02, 1.3, 500), SelfComposedEvent(GaussianEvent(7.0), 3),
                        SelfComposedEvent(LaplaceEvent(20.0), 2)])
    by_event = RDPAccountant().compose(ev, label="all")
    by_hand = (
        RDPAccountant()
        .compose_subsampled_gaussian(0.02, 1.3, steps=500)
        .compose_gaussian(7.0, count=3)
        .compose_laplace(20.0, count=2)
    )
    np.testing.assert_allclose(by_event.rdp, by_hand.rdp, rtol=1e-14)
    np.testing.assert_allclose(A.rdp_of_event(ev), by_hand.rdp, rtol=1e-14)
    assert by_event.events == [ev] and by_event.labels == ["all"]
    twice = RDPAccountant().compose(GaussianEvent(2.0), count=2)
    np.testing.assert_allclose(twice.rdp, 2 * A.rdp_gaussian(2.0), rtol=1e-15)


def test_replace_one_doubles_the_shift_of_unsampled_mechanisms():
    g = A.rdp_of_event(GaussianEvent(2.0), neighbouring_relation="replace_one")
    np.testing.assert_allclose(g, 4 * A.rdp_gaussian(2.0), rtol=1e-15)  # α (2Δ)² / (2σ²)
    lap = A.rdp_of_event(LaplaceEvent(4.0), neighbouring_relation="replace_one")
    np.testing.assert_allclose(lap, A.rdp_laplace(2.0), rtol=1e-12)  # ε₀ = 2/b


# -------------------------------------------------------------------------------------- vectorised RDP internals


def test_log_erfc_matches_math_erfc():
    xs = np.concatenate([np.linspace(-6, 26, 20001), -np.geomspace(1e-8, 6, 200), np.geomspace(1e-8, 26, 200)])
    ref = np.array([math.log(math.erfc(x)) for x in xs])
    np.testing.assert_allclose(log_erfc(xs), ref, rtol=1e-13, atol=2e-14)
    # beyond math.erfc's underflow: erfc(x) = e^{−x²}/(x√π) Σ_n (−1)^n (2n−1)!!/(2x²)^n (asymptotic, 8 terms)
    big = np.array([30.0, 100.0, 1e4])
    series = sum((-1) ** n * math.prod(range(1, 2 * n, 2)) / (2 * big**2) ** n for n in range(8))
    asym = -big**2 - np.log(big * math.sqrt(math.pi)) + np.log(series)
    np.testing.assert_allclose(log_erfc(big), asym, rtol=1e-14)


@pytest.mark.parametrize("backend", ["numpy", pytest.param("native", marks=pytest.mark.native)])
def test_normal_cdf_matches_math_erfc(backend):
    """kernels.normal_cdf (the PLD tails): both backends equal erfc(−z/√2)/2 to the argument rounding's 2z²·2^−53
    relative (the condition number of erfc), from the far lower tail to 1, and propagate NaN."""
    from dpfair_native import kernels

    z = np.concatenate([np.linspace(-37.0, 8.0, 4501), [0.0, -1e-300, np.inf, -np.inf]])
    ref = np.array([0.5 * math.erfc(-v / math.sqrt(2)) for v in z])
    got = kernels.normal_cdf(z, backend=backend)
    np.testing.assert_allclose(got, ref, rtol=4e-13, atol=0)
    assert np.isnan(kernels.normal_cdf(np.array([np.nan]), backend=backend)[0])
    with pytest.raises(ValueError, match="one-dimensional"):
        kernels.normal_cdf(np.zeros((2, 2)), backend=backend)


@pytest.mark.parametrize("q", [0.001, 0.007, 0.1, 0.6])
@pytest.mark.parametrize("sigma", [0.5, 0.9, 1.7, 6.0])
def test_pruned_epsilon_is_bit_identical_to_the_full_curve(q, sigma):
    for steps in (1, 300, 30000):
        for delta in (1e-3, 1e-5, 1e-9):
            ev = dpsgd_event(q, sigma, steps)
            full = A.rdp_to_epsilon(ORDERS, steps * A.rdp_subsampled_gaussian(q, sigma), delta)[0]
            assert epsilon_of_rdp_event(ev, ORDERS, delta) == full
            mixed = ComposedEvent([GaussianEvent(3.0), ev, LaplaceEvent(50.0)])
            expected = A.rdp_to_epsilon(ORDERS, A.rdp_of_event(mixed), delta)[0]
            assert epsilon_of_rdp_event(mixed, ORDERS, delta) == expected


# -------------------------------------------------------------------------------------------------- calibration


def _plain_bisection(target, delta, q, steps, tol=1e-4):
    """The pre-events implementation of noise_multiplier_for: double, then bisect to width <= tol."""

    def eps(s):
        return A.dpsgd_epsilon(q, s, steps, delta)

    lo, hi = 0.0, 1.0
    while eps(hi) > target:
        lo, hi = hi, 2 * hi
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if eps(mid) <= target else (mid, hi)
    return hi


@pytest.mark.parametrize(
    "target,delta,q,steps",
    [(1.0, 1e-5, 256 / 36177, 2827), (8.0, 1e-6, 0.1, 100), (0.5, 1e-5, 1.0, 1), (4.0, 1e-5, 0.001, 50000),
     (0.2, 1e-6, 0.05, 10)],
)
def test_noise_multiplier_for_equals_plain_bisection(target, delta, q, steps):
    assert A.noise_multiplier_for(target, delta, q, steps) == _plain_bisection(target, delta, q, steps)


def test_calibration_with_a_fixed_count_release():
    """DP-SGD plus a Gaussian release of the record count with its own σ_n: the calibrated σ leaves exactly the
    budget the count does not use."""
    q, steps, delta, target, sigma_n = 0.01, 1000, 1e-5, 2.0, 20.0
    tol = 1e-4

    def make(s):
        return ComposedEvent([GaussianEvent(sigma_n), dpsgd_event(q, s, steps)])

    for method, grid in (("rdp", None), ("pld", 1e-4)):
        s = calibrate_noise_multiplier(make, target, delta, method=method, tol=tol, value_discretization_interval=grid)
        assert A.epsilon_of_event(make(s), delta, method=method) <= target
        assert A.epsilon_of_event(make(s - tol), delta, method=method) > target
        alone = A.noise_multiplier_for(target, delta, q, steps, method=method, tol=tol)
        assert s > alone  # the count costs something
    # the PLD calibration's own (coarser) grid: the default accountant's ε still meets the target, σ within 0.1 %
    s_auto = calibrate_noise_multiplier(make, target, delta, method="pld", tol=tol)
    assert A.epsilon_of_event(make(s_auto), delta, method="pld") <= target
    assert s <= s_auto <= s * 1.001 + tol


def test_calibration_reports_an_unreachable_target():
    with pytest.raises(ValueError, match="on their own"):
        calibrate_noise_multiplier(
            lambda s: ComposedEvent([GaussianEvent(0.3), dpsgd_event(0.01, s, 100)]), 1.0, 1e-5
        )
    with pytest.raises(TypeError):
        calibrate_noise_multiplier(lambda s: s, 1.0, 1e-5)
    with pytest.raises(ValueError):
        calibrate_noise_multiplier(lambda s: dpsgd_event(0.01, s, 10), 1.0, 1e-5, method="prv")


@pytest.mark.parametrize("guess,slope", [(1.3, -2.0), (1.0, -0.5), (130.0, -2.0), (0.0001, -8.0), (1.2, 3.0)])
@pytest.mark.parametrize("kind", ["power", "step", "wiggly", "flat_then_power"])
def test_guided_lattice_search_keeps_its_contract(kind, guess, slope):
    """The PLD calibration's search, on ε functions of several shapes (a power law; a step, where secants are
    degenerate; a non-monotone wiggle; a plateau) and from good, poor and absurd guesses and slopes: it returns
    j·tol with ε(j·tol) <= target and (j − 1)·tol evaluated and > target, in few evaluations for the power law."""
    from dpfair_native.accountants.calibration import _guided_lattice_search

    tol, target = 1e-4, 1.0

    def eps(s):
        if kind == "power":
            return (s / 1.23456) ** -2.0
        if kind == "step":
            return 5.0 if s < 1.23456 else 0.5
        if kind == "wiggly":
            return (s / 1.23456) ** -2.0 * (1.0 + 0.02 * math.sin(3000.0 * s))
        return 3.0 if s < 0.5 else (s / 1.23456) ** -1.5

    calls = {}

    def eps_of(s):
        calls[round(s / tol)] = eps(s)
        return calls[round(s / tol)]

    found = _guided_lattice_search(eps_of, target, guess, slope, tol)
    j = round(found / tol)
    assert found == j * tol and calls[j] <= target and (j == 1 or calls[j - 1] > target)
    if kind == "power":
        assert j == math.ceil(1.23456 / tol - 1e-9)
        if guess == 1.3 and slope == -2.0:
            assert len(calls) <= 4


def test_pld_calibration_needs_less_noise_than_rdp():
    args = (1.0, 1e-5, 256 / 36177, 2827)
    s_rdp = A.noise_multiplier_for(*args)
    s_pld = A.noise_multiplier_for(*args, method="pld")
    assert s_pld < s_rdp
    assert A.epsilon_of_event(dpsgd_event(256 / 36177, s_pld, 2827), 1e-5, method="pld") <= 1.0
    # replace-one costs more noise than add/remove at the same (q, T)
    s_rep = A.noise_multiplier_for(*args, method="pld", neighbouring_relation="replace_one")
    assert s_rep > s_pld


def test_pld_calibration_edge_cases():
    """A huge target (the GDP formulas' e^ε would overflow past ε ≈ 709: the 1e-4 grid and the RDP guess), a fixed
    part that alone exceeds the target under replace-one (the secant on ε's plateau used to overflow instead of
    saying "unreachable"), and an event whose parts change with σ (the central-limit guess gives up)."""
    from dpfair_native.accountants import calibration as C

    s = A.noise_multiplier_for(710.0, 1e-5, 0.01, 1000, method="pld")
    assert A.epsilon_of_event(dpsgd_event(0.01, s, 1000), 1e-5, method="pld") <= 710.0
    with pytest.raises(ValueError, match="unreachable"):
        calibrate_noise_multiplier(lambda x: ComposedEvent([GaussianEvent(3.0), dpsgd_event(0.02, x, 1000)]), 1.5,
                                   1e-5, method="pld", neighbouring_relation="replace_one")

    def shifting(x):  # a Laplace part only for 10 < σ < 1e6, where the guess's bisection starts
        plain = dpsgd_event(0.01, x, 1000)
        return ComposedEvent([LaplaceEvent(10.0), plain]) if 10 < x < 1e6 else plain

    rel = A.NeighbouringRelation.coerce("add_or_remove_one")
    assert C._clt_guess(shifting, 1.0, rel, C._gaussian_dp_mu(1.0, 1e-5)) is None
    s = calibrate_noise_multiplier(shifting, 1.0, 1e-5, method="pld")
    assert A.epsilon_of_event(shifting(s), 1e-5, method="pld") <= 1.0
