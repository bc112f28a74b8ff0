"""Benchmark the accountants: one RDP curve, one ε, and the noise calibration of DP-SGD on Adult's shape
(q = 256/36177, T = 2827 = 20 epochs, ε = 1, δ = 1e-5), ours (RDP and PLD) against Opacus 1.6 and Google
dp_accounting where installed (they are optional here: missing ones are skipped).

Run: PYTHONPATH=python python -m pytest bench/bench_accountants.py --benchmark-enable \
         --benchmark-columns=min,median,rounds
"""

from __future__ import annotations

import warnings

import pytest

from dpfair_native import accountants as A

Q, T, EPS, DELTA = 256 / 36177, 2827, 1.0, 1e-5


def test_rdp_curve(benchmark):
    benchmark(A.rdp_subsampled_gaussian, Q, 1.7)


def test_rdp_epsilon(benchmark):
    benchmark(A.dpsgd_epsilon, Q, 1.7, T, DELTA)


def test_pld_epsilon(benchmark):
    ev = A.dpsgd_event(Q, 1.7, T)
    benchmark.pedantic(lambda: A.PLDAccountant().compose(ev).get_epsilon(DELTA), rounds=10, iterations=1)


def test_calibrate_rdp(benchmark):
    sigma = benchmark(A.noise_multiplier_for, EPS, DELTA, Q, T)
    benchmark.extra_info["sigma"] = sigma


def test_calibrate_rdp_with_count_release(benchmark):
    def make(s):
        return A.ComposedEvent([A.GaussianEvent(20.0), A.dpsgd_event(Q, s, T)])

    sigma = benchmark(A.calibrate_noise_multiplier, make, EPS, DELTA)
    benchmark.extra_info["sigma"] = sigma


def test_calibrate_pld(benchmark):
    sigma = benchmark.pedantic(
        lambda: A.noise_multiplier_for(EPS, DELTA, Q, T, method="pld"), rounds=5, iterations=1
    )
    benchmark.extra_info["sigma"] = sigma


def test_calibrate_pld_grid_1e4(benchmark):
    """The PLD calibration on the accountant's default 1e-4 grid (the calibration's default before session 13)."""
    sigma = benchmark.pedantic(
        lambda: A.calibrate_noise_multiplier(lambda s: A.dpsgd_event(Q, s, T), EPS, DELTA, method="pld",
                                             value_discretization_interval=1e-4),
        rounds=5, iterations=1,
    )
    benchmark.extra_info["sigma"] = sigma


def test_calibrate_pld_replace_one(benchmark):
    sigma = benchmark.pedantic(
        lambda: A.noise_multiplier_for(EPS, DELTA, Q, T, method="pld", neighbouring_relation="replace_one"),
        rounds=3,
        iterations=1,
    )
    benchmark.extra_info["sigma"] = sigma


def test_opacus_calibrate_rdp(benchmark):
    utils = pytest.importorskip("opacus.accountants.utils")

    def run():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return utils.get_noise_multiplier(
                target_epsilon=EPS, target_delta=DELTA, sample_rate=Q, steps=T, accountant="rdp"
            )

    benchmark.extra_info["sigma"] = benchmark.pedantic(run, rounds=10, iterations=1)


def test_opacus_calibrate_prv(benchmark):
    utils = pytest.importorskip("opacus.accountants.utils")

    def run():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return utils.get_noise_multiplier(
                target_epsilon=EPS, target_delta=DELTA, sample_rate=Q, steps=T, accountant="prv"
            )

    benchmark.extra_info["sigma"] = benchmark.pedantic(run, rounds=3, iterations=1)


def test_dp_accounting_pld_epsilon(benchmark):
    pytest.importorskip("dp_accounting")
    from dp_accounting import dp_event
    from dp_accounting.pld import pld_privacy_accountant

    ev = dp_event.SelfComposedDpEvent(dp_event.PoissonSampledDpEvent(Q, dp_event.GaussianDpEvent(1.7)), T)

    def run():
        acc = pld_privacy_accountant.PLDAccountant()
        acc.compose(ev)
        return acc.get_epsilon(DELTA)

    benchmark.pedantic(run, rounds=3, iterations=1)


def test_dp_accounting_calibrate_rdp(benchmark):
    pytest.importorskip("dp_accounting")
    from absl import logging as absl_logging
    from dp_accounting import dp_event, mechanism_calibration
    from dp_accounting.rdp import rdp_privacy_accountant

    absl_logging.set_verbosity(absl_logging.ERROR)

    def run():
        return mechanism_calibration.calibrate_dp_mechanism(
            rdp_privacy_accountant.RdpAccountant,
            lambda s: dp_event.SelfComposedDpEvent(dp_event.PoissonSampledDpEvent(Q, dp_event.GaussianDpEvent(s)), T),
            EPS,
            DELTA,
            mechanism_calibration.ExplicitBracketInterval(0.1, 10.0),
            tol=1e-4,
        )

    benchmark.extra_info["sigma"] = benchmark.pedantic(run, rounds=3, iterations=1)
