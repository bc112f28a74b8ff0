"""How far the PLD filter over the counts near ñ exceeds ``target_epsilon`` (bench/RESULTS.md, "Session 21").

For each setting, the ``privacy_spent_`` a DPSGDClassifier fit would report at ñ = n (the filter of
:func:`dpfair_native.models.dpsgd.adaptive_pld_privacy_spent`) with every cell calibrated to the target itself
(margin 0) and to the target less ``PLD_TARGET_MARGIN`` (the library's rule), relative to the target.

    PYTHONPATH=python python bench/pld_target_excess.py
"""

import itertools

from dpfair_native.models import DPSGDClassifier, dpsgd


def reported(est, n: float) -> float:
    q, steps = est._sampling(n)
    before = dpsgd._releases_before(q, steps, est._center_noise)
    sigma = est._effective_sigma(*est._noise_multipliers(q, steps, before, False, n))
    return est._privacy_spent(q, sigma, steps, before, n).epsilon


def main():
    margin = dpsgd.PLD_TARGET_MARGIN
    settings = [*itertools.product((0.8, 2.0), (16, 60, 256), (1, 2, 20), (300, 600, 1_500, 5_000)),
                *((1.0, 256, 20, n) for n in (2_000, 36_177, 240_000))]
    print(f"| ε | batch | epochs | rows | margin 0 | margin {margin:.1%} |")
    print("|---|---|---|---|---|---|")
    for target, batch, epochs, n in settings:
        est = DPSGDClassifier(target_epsilon=target, batch_size=batch, epochs=epochs)
        out = []
        for m in (0.0, margin):
            dpsgd.PLD_TARGET_MARGIN = m
            try:
                out.append(f"{100 * (reported(est, float(n)) / target - 1):+.3f} %")
            finally:
                dpsgd.PLD_TARGET_MARGIN = margin
        print(f"| {target} | {batch} | {epochs} | {n:,} | {out[0]} | {out[1]} |", flush=True)


if __name__ == "__main__":
    import warnings

    warnings.simplefilter("ignore")  # margin 0 warns where the filter exceeds the target: that is what is measured
    main()
