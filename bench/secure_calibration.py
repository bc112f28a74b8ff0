"""Secure DP-SGD with ``target_epsilon`` and q = b/ñ: the filter over the record counts near n under the rule before
session 19 (σ calibrated at each ñ' alone) and under ``calibrate_adaptive_noise`` (the orders the counts near ñ
share), and what the new rule costs in σ against the calibration at ñ alone.

The filter of n is the RDP envelope over ñ' on a 41-point grid of n ± kσ_n (k = 6) of each ñ''s releases (count,
centre, T steps at its own q, T and σ), converted at δ − P(|Z| > k) without the KL route. No data are read: σ, q
and T are functions of ñ' and the public parameters. "out of reach": some ñ' near n (the filter) or ñ = n itself
(the cost) raises ValueError.

Run: PYTHONPATH=python python bench/secure_calibration.py  (20-60 s)
"""

import math

import numpy as np

from dpfair_native._secure_accounting import SECURE_RDP_ORDERS
from dpfair_native.accountants.rdp import _conversion_epsilons
from dpfair_native.models.dpsgd import (
    RECORD_COUNT_NOISE,
    DPSGDClassifier,
    calibrate_dpsgd_noise,
    count_window,
    dpsgd_rdp,
)

SETTINGS = [(4.0, 1, 100), (1.0, 2, 256), (2.0, 20, 256), (4.0, 20, 256), (8.0, 20, 256)]  # (ε, epochs, batch)
ROWS = [800, 1000, 1500, 2000, 3000, 5000, 10000, 36000]
DELTA = 1e-5


def plain(est, q, steps, releases, _count):
    return calibrate_dpsgd_noise(est.target_epsilon, est.delta, q, steps, releases, secure=True)


def adaptive(est, q, steps, releases, count):
    return est._noise_multipliers(q, steps, releases, True, count)[0]


def releases_at(est, count):
    q, steps = est._sampling(count)
    return q, steps, (RECORD_COUNT_NOISE, est._center_noise(q, steps))


def filter_epsilon(rule, est, n, points=41):
    orders = np.asarray(SECURE_RDP_ORDERS, dtype=np.float64)
    k = count_window(DELTA)
    envelope = np.zeros_like(orders)
    for count in np.linspace(n - k * RECORD_COUNT_NOISE, n + k * RECORD_COUNT_NOISE, points):
        count = max(1.0, float(count))
        q, steps, releases = releases_at(est, count)
        curve = dpsgd_rdp(q, rule(est, q, steps, releases, count), steps, releases, orders, secure=True)
        envelope = np.maximum(envelope, curve)
    return float(np.min(_conversion_epsilons(orders, envelope, DELTA - math.erfc(k / math.sqrt(2.0)))))


def attempt(f):
    try:
        return f()
    except ValueError:
        return None


def main():
    print("| ε, epochs, batch | n | filter, σ at ñ' alone | filter, new rule | σ new / σ at ñ alone |")
    print("|---|---|---|---|---|")
    for eps, epochs, batch in SETTINGS:
        est = DPSGDClassifier(target_epsilon=eps, epochs=epochs, batch_size=batch, secure=True, delta=DELTA)
        for n in ROWS:
            old = attempt(lambda: filter_epsilon(plain, est, n))
            new = attempt(lambda: filter_epsilon(adaptive, est, n))
            q, steps, releases = releases_at(est, float(n))
            ratio = attempt(lambda: adaptive(est, q, steps, releases, float(n)) / plain(est, q, steps, releases, n))
            cells = [f"{old:.3f} ({100 * (old / eps - 1):+.1f} %)" if old is not None else "out of reach",
                     f"{new:.3f}" if new is not None else "out of reach",
                     f"{ratio:.3f}" if ratio is not None else "out of reach"]
            print(f"| {eps:g}, {epochs}, {batch} | {n:,} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
