"""DP-SGD logistic regression and its group-aware variants DPSGD-F and Naïve reweighting (thesis ch. 3.1.6, ch. 9).

All three train a linear logistic model (w, bias) with the native loop :func:`dpfair_native.kernels.dpsgd_epochs`,
one call per epoch. Every random draw comes from ``random_state`` in NumPy and is passed to the loop: per epoch the
Poisson batches (:func:`poisson_batches`), then standard normals for the gradient noise, then (DPSGD-F, Naïve)
standard normals for the count noise. With ``secure=True`` the batches (:func:`secure_poisson_batches`) and the noise
come from ChaCha20 keys instead (below).

Neighbouring relation: add/remove one record (DP rule 4), under which the number of records n is private. Each step
Poisson-samples every record independently with rate q, clips each per-example gradient g_i = (σ(xᵀw + b) − y)·[x, 1]
to L2 norm C and adds N(0, σ²C²) to the sum, so one step is a Poisson-subsampled Gaussian mechanism with noise
multiplier σ. The update divides by the expected batch size (public or noisy, never the realized one); the ridge term
l2·w is data-independent and added after the noise.

Everything the fit derives from n goes through one Gaussian release of the record count, ñ = n + N(0, σ_n²) with
σ_n = :data:`RECORD_COUNT_NOISE` (L2 sensitivity 1 under add/remove), made before anything else: q = min(1, b/ñ) for
``batch_size`` b, the step count T = epochs·round(1/q), the normaliser q·ñ. So ``sample_rate_``, ``n_steps_``,
``noise_multiplier_`` (calibrated to q and T) and ``privacy_spent_`` are functions of ñ and of public parameters only,
never of n itself. ``privacy_spent_`` is the ε at ``delta`` of the count release (and, with ``center=True``, the
centre release) composed with the T subsampled steps (one typed event, :func:`dpsgd_release`), under the accountant
``accountant_method`` names: "pld" (default, privacy-loss distribution, tighter) or "rdp"; with ``target_epsilon``
the noise multiplier is calibrated under the same accountant so that this whole composition meets it; given neither
``target_epsilon`` nor ``noise_multiplier``, the target is ε = 1 (:data:`DEFAULT_TARGET_EPSILON`). A non-private run
(noise multiplier 0) uses the exact n.

Because q, T and σ are chosen from the released ñ, the steps' parameters are adaptive. The rigorous bound is a filter
(Feldman & Zrnic 2021): the supremum of what the fit would charge for every ñ in n ± 6σ_n, with the rest of ñ's law
(under 2e-9) added to δ. Under the default PLD accountant (float steps) q = b/e, e the lower edge of ñ's cell [1.05^i,
1.05^(i+1)), so that the counts give finitely many mechanisms — with ``target_epsilon`` each calibrated to the target
less :data:`PLD_TARGET_MARGIN`, with a fixed ``noise_multiplier`` all at that σ —; ``privacy_spent_`` is
:func:`adaptive_pld_privacy_spent`, the count's Gaussian composed with the pointwise maximum of the cells' PLD profiles
over every count within 2kσ_n + 1 of ñ (Dong, Roth & Su 2022's composition of mechanisms each f-DP for every earlier
output), computed at the fit; tests/test_models_dpsgd.py checks it by brute force over every integer count. Calibrating
at ñ itself (the rule before) let that bound exceed the target by up to 0.35 % (one epoch of batch 16 on 600 rows;
0.01-0.03 % with 20 epochs). Under RDP accounting (``accountant_method="rdp"``, and ``secure=True`` whatever it says)
the curves calibrated at neighbouring counts meet the target at different orders, and calibrating at ñ alone let the
filter exceed the target: by about 0.1 % at ε <= 4 and 0.46 % at ε = 8 on a few hundred rows for Gaussian steps, and for
secure steps on 800–2,000 rows by up to 9.5 % at ε = 4 with one epoch of batch 100 and up to 95 % with 20 epochs of
batch 256. So with q = b/ñ such fits calibrate σ by :func:`calibrate_adaptive_noise`: the counts near ñ share their
conversion orders, the fit's RDP at the order of the true n's cell stays within the target whatever ñ the count gave
(proof in its docstring), and ``privacy_spent_`` is the target. For Gaussian steps this costs at most 0.7 % of σ (ε = 8,
400 rows; 0.2 % at ε = 4, under 0.1 % at ε <= 2 or from 2,000 rows up); for secure steps (bench/secure_calibration.py) σ
is unchanged from 10,000 rows up and at most 2 % larger from 3,000, 0–28 % larger on 800–2,000 rows, and where the
counts near ñ span the general bound's floor (20 epochs of batch 256 there) up to 2.5 times or out of reach
(ValueError). With a fixed ``noise_multiplier`` and q = b/ñ the ε itself moves with n (at n = 2,000 by a third between
ñ = n and n + 6σ_n): under PLD the report is the cells' filter above (8-32 % below the RDP filter, centre on: σ = 1,
batch 256, 20 epochs, 20.3 against 22.1 on 2,000 rows, 3.33 against 3.62 on 20,000; σ = 0.8, batch 1,024, 5 epochs on
300,000 rows, 1.30 against 1.90), under RDP (``accountant_method="rdp"`` or ``secure=True``)
:func:`adaptive_privacy_spent`: the RDP filter over every count within 2kσ_n + 1 of the released ñ (k = 6 for δ >= 2e-6,
larger below). Either covers every n the count could have come from. With ``sample_rate`` (q public) only the normaliser
reads ñ and the ε at ñ is exact.

``secure=True`` (all three, and FairDP): the noise is exact and drawn inside the native loop — per step each batch
row's clipped gradient is rounded to a grid of width γ = 2^-k (γ√(d+1) <= 1e-4·the step's sensitivity s, unless
the grid is coarsened to keep the noise within the sampler's 2^23 units) and the
rows' integer vectors are summed exactly, each admitted only if its integer norm is <= L = ⌈s/γ + √(d+1)/2⌉ + 1
(checked exactly; a clipped row always passes), so no floating-point rounding of the clip or of the sum enters the
sensitivity; the batches are selected exactly too, each record with probability p <= q (within a relative 2^-23
of it for q >= 2^-24) by integer geometric gaps (:func:`secure_poisson_batches`); γ·Z is added with Z a discrete
Gaussian (Canonne, Kamath & Steinke 2020, integer arithmetic) of standard deviation >= σ·L grid units
(:func:`dpfair_native.kernels.dpsgd_epochs`); noisy counts (DPSGD-F, Naïve) get discrete Gaussian noise σ₁. The bits
come from ChaCha20 keyed by the OS CSPRNG (``secrets``) when ``random_state`` is None; an int seed derives the keys
(reproducible research runs; no guarantee against whoever knows the seed). Accounting: each step is
1/(2σ_eff²)-zCDP (discrete Gaussian, CKS Thm 14), Poisson subsampling by the general RDP bound of Zhu & Wang (2019)
(:mod:`dpfair_native._secure_accounting`) — more ε than the float path at the same σ (the continuous-Gaussian
formula does not cover the discrete noise): at ε = 1–4 with 20,000 rows or more about 30–40 % more than the default
PLD accounting (6–30 % more than float RDP), and several times more on small data (n = 2,000, σ = 6.2: 3.9 against
1.0); ``target_epsilon`` calibrates with that bound. That
bound's factor 3 leaves a σ-independent cost per step at orders >= 3, so a large sampling rate with many steps has
an ε floor (q = 0.05 and 380 steps, with the record count's release: ε >= 1.67 however large σ; a ValueError says
so): use a smaller ``batch_size`` there. The
record count gets exact discrete Gaussian noise too (its RDP α/(2σ_n²) holds for the discrete Gaussian, CKS).
Default False: the float path is the papers' and the one the thesis' numbers use; see bench/RESULTS.md for the cost.
"""

from __future__ import annotations

import functools
import math
import warnings
from concurrent.futures import ThreadPoolExecutor
from numbers import Real
from typing import Callable, Iterator, Optional, Tuple, TypeVar

import numpy as np

from .. import kernels
from .._validation import (
    BACKEND,
    NON_NEGATIVE,
    POSITIVE,
    POSITIVE_INT,
    PROBABILITY,
    Interval,
    StrOptions,
    check_int,
)
from ..accountants import (
    ACCOUNTANT_METHODS,
    ComposedEvent,
    DpEvent,
    GaussianEvent,
    PrivacySpent,
    calibrate_noise_multiplier,
    dpsgd_event,
    epsilon_of_event,
)
from ..accountants.calibration import search_noise_multiplier
from ._base import DPClassifierBase, TrainingDivergedError
from ._centering import center_bound, center_noise_multiplier, release_center, uncentered, warn_if_out_of_scale

__all__ = [
    "poisson_batches",
    "secure_poisson_batches",
    "DPSGDClassifier",
    "DPSGDFClassifier",
    "NaiveReweightedDPSGDClassifier",
]


def poisson_batches(
    n_rows: int, sample_rate: float, n_steps: int, rng: np.random.Generator, *, rows=None
) -> Tuple[np.ndarray, np.ndarray]:
    """Poisson sampling for ``n_steps`` steps: each of ``n_rows`` records enters each batch independently with
    probability q = ``sample_rate``.

    Drawn as one Bernoulli(q) process over the n_rows·n_steps (step, record) slots, by geometric gaps between
    successive selected slots (gap = 1 + ⌊E/λ⌋, E ~ Exp(1), λ = −ln(1 − q), so P(gap > k) = (1 − q)^k) — Poisson
    sampling up to the floating-point exponential and λ (:func:`secure_poisson_batches` is exact), in O(q·n·steps)
    draws. Returns ``(batch_rows,
    batch_offsets)``: batch t is ``batch_rows[batch_offsets[t]:batch_offsets[t+1]]`` (sorted). With ``rows``
    (an index array of length n_rows) the sample is taken from that subset and mapped through it.
    """
    n_rows = int(n_rows)
    n_steps = int(n_steps)
    q = float(sample_rate)
    if not 0.0 < q <= 1.0:
        raise ValueError(f"sample_rate must lie in (0, 1], got {sample_rate!r}")
    if n_rows < 0 or n_steps < 0:
        raise ValueError("n_rows and n_steps must be >= 0")
    total = n_rows * n_steps
    chunks = []
    last = -1
    if total > 0:
        inv_rate = 1.0 / -math.log1p(-q) if q < 1.0 else 0.0
        remaining = total
        while True:
            expected = remaining * q
            gaps = rng.standard_exponential(int(expected + 6.0 * math.sqrt(expected) + 64))
            gaps *= inv_rate
            np.minimum(gaps, total, out=gaps)  # gaps past the end only need to reach it
            slots = np.cumsum(gaps.astype(np.int64) + 1)
            slots += last
            if slots[-1] >= total:
                chunks.append(slots[: np.searchsorted(slots, total)])
                break
            chunks.append(slots)
            last = int(slots[-1])
            remaining = total - last - 1
    slots = np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.int64)
    return _batches_from_slots(slots, n_rows, n_steps, rows)


def secure_poisson_batches(n_rows: int, sample_rate: float, n_steps: int, key: bytes, *, rows=None,
                           backend: str = "native") -> Tuple[np.ndarray, np.ndarray]:
    """:func:`poisson_batches` for ``secure=True``: the (step, record) slots are selected exactly, in integer
    arithmetic on the ChaCha20 stream of the 32-byte ``key`` (:func:`dpfair_native.kernels.secure_poisson_slots`),
    each with probability p = 1 − e^{−λ} for a rational λ <= −ln(1 − q), so p <= q (within a relative
    2^-40 + 2^-24 + 2^-48/q of it) and the accountant's q covers the sampling
    (:func:`dpfair_native.kernels.poisson_rate_rational`). The float path's gaps ⌊E/λ⌋ from NumPy's exponential
    are only approximately geometric."""
    n_rows, n_steps = int(n_rows), int(n_steps)
    if n_rows < 0 or n_steps < 0:
        raise ValueError("n_rows and n_steps must be >= 0")
    slots = kernels.secure_poisson_slots(n_rows * n_steps, sample_rate, key, backend=backend)
    return _batches_from_slots(slots, n_rows, n_steps, rows)


def _batches_from_slots(slots: np.ndarray, n_rows: int, n_steps: int, rows) -> Tuple[np.ndarray, np.ndarray]:
    """(batch_rows, batch_offsets) of the sorted selected slots step·n_rows + record, mapped through ``rows``."""
    offsets = np.searchsorted(slots, np.arange(n_steps + 1, dtype=np.int64) * n_rows).astype(np.int64)
    idx = slots - np.repeat(np.arange(n_steps, dtype=np.int64) * n_rows, np.diff(offsets))
    if rows is not None:
        rows = np.asarray(rows, dtype=np.int64)
        if rows.shape != (n_rows,):
            raise ValueError(f"rows must have length n_rows={n_rows}, got shape {rows.shape}")
        idx = rows[idx]
    return idx.astype(np.int64, copy=False), offsets


_Draw = TypeVar("_Draw")


def prefetched(make: Callable[[int], _Draw], count: int) -> Iterator[_Draw]:
    """Yields ``make(0), …, make(count − 1)``, computing ``make(e + 1)`` on one background thread while the caller
    works on ``make(e)``: the native epoch loops release the GIL, so an epoch's random draws (batches, noise) overlap
    the previous epoch's loop on the second core. ``make`` runs in order and on that one thread only, so a random
    generator it alone uses sees the same sequence of calls as in a plain loop: the results are identical."""
    if count <= 1:
        yield from (make(e) for e in range(count))
        return
    with ThreadPoolExecutor(max_workers=1) as pool:
        future = pool.submit(make, 0)
        for e in range(count):
            current = future.result()
            if e + 1 < count:
                future = pool.submit(make, e + 1)
            yield current


def _secure_keys(estimator):
    """SecureKeys for ``secure=True`` (ChaCha20 keys from the OS when random_state is None), else None."""
    if not getattr(estimator, "secure", False):
        return None
    from .._secure_random import SecureKeys

    return SecureKeys(estimator.random_state)


_positive_int = check_int  # models/constrained.py imports this name until it declares its parameters


DEFAULT_LEARNING_RATE = 2.0
"""Default step size of the DP-SGD family. The update divides the noisy clipped-gradient sum by the expected batch
size, so a step moves the parameters by at most learning_rate·C plus noise. 2.0 was chosen on a validation split of
Adult's training data (0.5 → 0.830, 2 → 0.838, 8 → 0.839 accuracy at ε = 1) and on synthetic data of several shapes
(n 2,000–100,000, d 5–500, positive rate 5–50%), where it beat the constant classifier in every case; the thesis'
1/√T (``learning_rate=None``) left Adult at 0.77, near the constant classifier, and is kept for the reproductions.
"""

DEFAULT_TARGET_EPSILON = 1.0
"""The privacy every DP-SGD estimator calibrates to when given neither ``target_epsilon`` nor ``noise_multiplier``.

A fixed noise multiplier spends an ε that grows as the data shrink (σ = 1, batch 256, 20 epochs: ε ≈ 0.8 at 200,000
rows, 3.1 at 20,000, 12 at 2,000, 24 at 500: the ε at n; with q from ñ a fit reports the larger filter bound,
:func:`adaptive_pld_privacy_spent` or under RDP :func:`adaptive_privacy_spent`, since that ε depends on the private n),
so a default σ would give small data sets weak privacy nobody asked for; the default is a budget instead, the same ε = 1
(at ``delta``) as the other estimators'.
"""


def requested_privacy(target_epsilon: Optional[float], noise_multiplier: Optional[float]
                      ) -> Tuple[Optional[float], Optional[float]]:
    """(target ε, None) or (None, σ): what a DP-SGD estimator's ``target_epsilon`` and ``noise_multiplier`` ask for.

    Neither given: (:data:`DEFAULT_TARGET_EPSILON`, None). Both given: ValueError, since one of them would have to be
    ignored and either choice could silently spend more privacy than the caller meant."""
    if target_epsilon is not None and noise_multiplier is not None:
        raise ValueError(f"give target_epsilon (calibrate the noise to a budget) or noise_multiplier (a fixed noise "
                         f"level), not both: target_epsilon={target_epsilon}, noise_multiplier={noise_multiplier}")
    if target_epsilon is None and noise_multiplier is None:
        return DEFAULT_TARGET_EPSILON, None
    return target_epsilon, noise_multiplier


RECORD_COUNT_NOISE = 100.0
"""σ_n of the record-count release ñ = n + N(0, σ_n²) that every DP-SGD estimator makes before training.

A public constant, not tuned on data: its RDP α/(2σ_n²) is 0.005 at order α = 100, well under 1% of the RDP the
training steps spend at ε ≈ 1, while ñ is within ±200 of n with probability 95%, which moves q = b/ñ by about 1%
for n >= 20,000 and up to 11% for n >= 2,000.
"""


def dpsgd_rdp(sample_rate: float, noise_multiplier: float, steps: int, count_noise_multipliers=(), orders=None, *,
              secure: bool = False):
    """RDP curve of ``steps`` Poisson-subsampled Gaussian steps (rate q, noise multiplier σ) composed with one
    Gaussian release per entry of ``count_noise_multipliers`` (L2 sensitivity 1 each), add/remove neighbours.

    ``secure``: the steps are discrete Gaussians, bounded by the general Poisson-subsampling RDP bound at integer
    orders (:mod:`dpfair_native._secure_accounting`); a count release's RDP α/(2σ_c²) holds for the discrete
    Gaussian as well (Canonne, Kamath & Steinke 2020)."""
    from ..accountants import DEFAULT_RDP_ORDERS, rdp_gaussian, rdp_subsampled_gaussian

    if secure:
        from .._secure_accounting import (
            SECURE_RDP_ORDERS,
            rdp_subsampled_discrete_gaussian,
        )

        orders = np.asarray(SECURE_RDP_ORDERS if orders is None else orders, dtype=np.float64)
        step = lambda: rdp_subsampled_discrete_gaussian(sample_rate, noise_multiplier, [int(a) for a in orders])  # noqa: E731
    else:
        orders = np.asarray(DEFAULT_RDP_ORDERS if orders is None else orders, dtype=np.float64)
        step = lambda: rdp_subsampled_gaussian(sample_rate, noise_multiplier, orders)  # noqa: E731
    rdp = steps * step() if steps else np.zeros_like(orders)
    for sigma_count in count_noise_multipliers:
        rdp = rdp + rdp_gaussian(sigma_count, orders)
    return rdp


DEFAULT_ACCOUNTANT_METHOD = "pld"
"""The DP-SGD estimators' default ``accountant_method``. PLD (privacy-loss distribution, pessimistic discretisation)
agrees with dp_accounting's PLD accountant within 1% in ε (tests/test_accountants_pld.py) and is tighter than RDP:
about 7% less noise at the same (ε, δ) for Adult-sized DP-SGD, so a better model at the same guarantee."""


def dpsgd_release(sample_rate: float, noise_multiplier: float, steps: int, count_noise_multipliers=()) -> DpEvent:
    """The typed event of a DP-SGD fit: one Gaussian release (L2 sensitivity 1) per entry of
    ``count_noise_multipliers``, composed with ``steps`` Poisson-subsampled Gaussian steps (rate q, multiplier σ).

    The releases before training enter as one Gaussian event with σ = (Σ_c σ_c⁻²)^(-1/2): exactly their
    composition (a Gaussian mechanism's privacy loss is normal, N(μ, 2μ) with μ = 1/(2σ²), and independent normal
    losses add; the RDP curves α/(2σ_c²) add the same way), and a PLD accountant then discretises one
    distribution instead of one per release."""
    parts = []
    if len(count_noise_multipliers):
        parts.append(GaussianEvent(math.fsum(float(c) ** -2 for c in count_noise_multipliers) ** -0.5))
    parts.append(dpsgd_event(sample_rate, noise_multiplier, steps))
    return parts[0] if len(parts) == 1 else ComposedEvent(parts)


def _check_method(method: str, secure: bool) -> str:
    if method not in ACCOUNTANT_METHODS:
        raise ValueError(f"accountant_method must be one of {ACCOUNTANT_METHODS}, got {method!r}")
    return "rdp" if secure else method  # the discrete-Gaussian steps have an RDP bound only (module docstring)


def _accounting_key(sample_rate, noise, steps, delta, count_noise_multipliers, secure, method) -> tuple:
    """The arguments of the accounting functions below as a hashable key of exact values. Their results are pure
    functions of it, so refits that release the same noisy record count (same data and ``random_state``: a grid
    over learning rates or clip norms) reuse them; another seed draws another count, hence another q."""
    return (float(sample_rate), float(noise), int(steps), float(delta),
            tuple(float(c) for c in count_noise_multipliers), bool(secure), _check_method(method, secure))


def dpsgd_privacy_spent(sample_rate, noise_multiplier, steps, delta, count_noise_multipliers=(), *,
                        secure: bool = False, method: str = "rdp") -> PrivacySpent:
    """(ε, δ) of :func:`dpsgd_release` at ``delta`` under the ``method`` accountant ("rdp" or "pld"), as a
    :class:`~dpfair_native.accountants.PrivacySpent` naming it; ``(inf, 0, "none")`` for a non-private run (noise
    multiplier 0). ``secure``: the RDP bound of the subsampled discrete Gaussian (:func:`dpsgd_rdp`), whatever
    ``method`` says (there is no PLD of it here). Memoised on exact argument values."""
    spent = _privacy_spent(*_accounting_key(sample_rate, noise_multiplier, steps, delta, count_noise_multipliers,
                                            secure, method))
    return PrivacySpent(spent[0], spent[1], spent.method, spent.relation)  # a fresh object: no two fits share one


@functools.lru_cache(maxsize=256)
def _privacy_spent(sample_rate, noise_multiplier, steps, delta, count_noise_multipliers, secure, method):
    from .._secure_accounting import SECURE_RDP_ORDERS
    from ..accountants import rdp_to_epsilon

    if noise_multiplier <= 0:
        return PrivacySpent(math.inf, 0.0, "none")
    if secure:
        orders = np.asarray(SECURE_RDP_ORDERS, dtype=np.float64)
        rdp = dpsgd_rdp(sample_rate, noise_multiplier, steps, count_noise_multipliers, orders, secure=True)
        return PrivacySpent(rdp_to_epsilon(orders, rdp, delta)[0], delta, method, "add_or_remove_one")
    event = dpsgd_release(sample_rate, noise_multiplier, steps, count_noise_multipliers)
    return PrivacySpent(epsilon_of_event(event, delta, method=method), delta, method, "add_or_remove_one")


PLD_TARGET_MARGIN = 5e-3
"""With ``target_epsilon`` under PLD accounting and q from the released count, every cell's σ is calibrated to
target·(1 − margin), so that the filter over the cells near ñ (:func:`adaptive_pld_privacy_spent`) stays within the
target. Measured with cells calibrated to the target itself (ε 0.8 and 2, batch 16–256, 1–20 epochs, 300–5,000
rows; ε 0.5–8 on 400–240,000 rows with 20 epochs of batch 256): the filter exceeds the target by up to 0.35 % with
one epoch (ε = 0.8, batch 16, 600 rows), 0.2 % with two, 0.025 % with 20, and not at all from 5,000 rows with 20
epochs. Not always enough: with one epoch of very small batches the filter stays above the target (review, session
21: ε = 0.3, batch 4, 300 rows: +0.067 %; ε = 0.5, batch 8, 1,200 rows: +0.10 %). The fit computes the filter and
reports it as ``privacy_spent_`` (warning, before training, where it is above the target), so the margin is a choice
of σ, not part of the proof."""


@functools.lru_cache(maxsize=8)  # each holds composed PMFs (1-4 MB at ε 1-8): repeated fits reuse their cells
def _steps_pld(sample_rate: float, noise_multiplier: float, steps: int, center_noise: Optional[float]):
    """PLDAccountant (default grid) of a fit's releases after the record count: the centre, if any, and the T steps."""
    from ..accountants import PLDAccountant

    return PLDAccountant().compose(dpsgd_release(sample_rate, noise_multiplier, steps,
                                                 () if center_noise is None else (center_noise,)))


def adaptive_pld_privacy_spent(cell_releases, n_estimate: float, delta: float) -> PrivacySpent:
    """``privacy_spent_`` of a fit under PLD accounting whose q comes from ñ through its cell (a ``target_epsilon``
    or a fixed noise multiplier).

    ``cell_releases``: cell index i -> (q, σ_eff, T, σ_μ or None), what a fit whose count lands in the cell
    [r^i, r^(i+1)) (r = :data:`_ORDER_CELL`) releases after the count: a function of i alone (q = b/r^i, T from q,
    σ fixed or calibrated at them); None where such a fit stops with an error before training (e.g. a fixed
    ``count_noise_multiplier`` too small for that cell's σ), which releases nothing more than the count: that null
    mechanism's profile, (1 − e^t)_+, is below every other's, so it leaves the maximum unchanged (whether a fit
    stops depends on the cell alone). For a record count n with |ñ − n| <= kσ_n (k = :func:`count_window`), the
    count lands in n ± kσ_n ⊆ W = [ñ − 2kσ_n − 1, ñ + 2kσ_n + 1] except with probability p = P(|N(0, 1)| > k) (the
    extra record on each side: the count of the neighbour, n ± 1, too); so the fit is the count's
    Gaussian followed by a mechanism chosen from its output among the cells meeting W, save for p, and
    :func:`~dpfair_native.accountants.pld.epsilon_after_gaussian_choice` bounds that composition (the f-DP
    composition of mechanisms each bounded for every earlier output) with p added to δ. Every n the released ñ
    could plausibly have come from is covered, as in :func:`adaptive_privacy_spent`.

    A cell whose release another one dominates (q' >= q, σ' <= σ, T' >= T, and either the dominated one releases no
    centre or both do with σ_μ' <= σ_μ) is left out of the maximum: its profile is below the other's, since the
    subsampled Gaussian's profile grows with q (in each direction the hockey-stick divergence of (1 − q)·Q + q·P against
    Q, or of Q against it, is a supremum of functions affine in q, so convex, and 0 at q = 0 for ε >= 0; at ε < 0,
    H_γ(P‖Q) = 1 − γ + γ·H_{1/γ}(Q‖P) turns each direction into the other at −ε), falls with σ (post-processing), and
    composition preserves that order, as does adding steps or a release. With a fixed noise multiplier the cells that
    share a T differ only in q and σ_μ, so one per T is composed (on 2,000 rows with batch 256 and 20 epochs about 11 of
    30).
    """
    lo, hi, p_out = count_range(n_estimate, delta, 2)
    releases = _undominated({cell_releases(i) for i in range(_cell_index(lo), _cell_index(hi) + 1)} - {None})
    return PrivacySpent(_filter_epsilon(tuple(sorted(releases, key=str)), float(delta), p_out), delta, "pld",
                        "add_or_remove_one")


@functools.lru_cache(maxsize=256)  # a float per set of cells: refits whose counts meet the same cells reuse it
def _filter_epsilon(releases: Tuple[tuple, ...], delta: float, p_out: float) -> float:
    from ..accountants.pld import epsilon_after_gaussian_choice

    return epsilon_after_gaussian_choice(RECORD_COUNT_NOISE, (_steps_pld(*r) for r in releases), delta,
                                         extra_delta=p_out)


def _undominated(releases):
    """The releases (q, σ, T, σ_μ or None) no other one dominates (:func:`adaptive_pld_privacy_spent`)."""
    def dominates(a, b):
        centre = b[3] is None or (a[3] is not None and a[3] <= b[3])
        return a != b and a[0] >= b[0] and a[1] <= b[1] and a[2] >= b[2] and centre

    return {b for b in releases if not any(dominates(a, b) for a in releases)}


def count_window(delta: float) -> float:
    """k of the window n ± k·σ_n that the filter bounds of a fit cover: the smallest k >= 6 (steps of ½) with
    P(|N(0, 1)| > k) <= δ/1000, so the count's tail adds at most a thousandth to δ (k = 6, 2e-9, at δ = 1e-5)."""
    k = 6.0
    while math.erfc(k / math.sqrt(2.0)) > 1e-3 * float(delta):
        k += 0.5
    return k


def count_range(n_estimate: float, delta: float, widths: int) -> Tuple[float, float, float]:
    """(lo, hi, p) of the filters: the record counts lo = max(1, ñ − widths·kσ_n − 1) .. hi = max(1, ñ + widths·kσ_n +
    1) (k = :func:`count_window`; two widths: every count the release could give for a record count within kσ_n of
    ñ; one: the record counts themselves; the extra record: a neighbour's count) and p = P(|N(0, 1)| > k), the tail
    added to δ."""
    k = count_window(delta)
    reach = widths * k * RECORD_COUNT_NOISE + 1
    return max(1.0, n_estimate - reach), max(1.0, n_estimate + reach), math.erfc(k / math.sqrt(2.0))


_WINDOW_LATTICE = 1.0025  # piece edges of adaptive_privacy_spent are powers of this (shared across fits: memoised)
_WINDOW_PIECE = 8  # lattice steps per piece at most: q(a)/q(b) <= 1.02


@functools.lru_cache(maxsize=4096)
def _step_rdp(q: float, sigma: float, secure: bool) -> np.ndarray:
    out = dpsgd_rdp(q, sigma, 1, (), None, secure=secure)
    out.setflags(write=False)
    return out


def adaptive_privacy_spent(sampling: Callable[[float], Tuple[float, int]],
                           center_noise: Callable[[float, int], Optional[float]], noise_multiplier: float,
                           n_estimate: float, delta: float, *, secure: bool = False) -> PrivacySpent:
    """``privacy_spent_`` of a fit with a fixed noise multiplier whose q and T (and centre noise) come from ñ: the
    conversion of :func:`adaptive_rdp`'s envelope at δ minus its tail."""
    from ..accountants import rdp_to_epsilon

    orders, envelope, p_out = adaptive_rdp(sampling, center_noise, noise_multiplier, n_estimate, delta, secure=secure)
    return PrivacySpent(rdp_to_epsilon(orders, envelope, float(delta) - p_out)[0], delta, "rdp",
                        "add_or_remove_one")


def adaptive_rdp(sampling: Callable[[float], Tuple[float, int]],
                 center_noise: Callable[[float, int], Optional[float]], noise_multiplier: float,
                 n_estimate: float, delta: float, *, secure: bool = False) -> Tuple[np.ndarray, np.ndarray, float]:
    """(orders, RDP envelope, tail p) bounding a fit with a fixed noise multiplier whose q and T (and centre noise)
    come from ñ, for every record count n within k·σ_n of ñ.

    ``sampling``: ñ' -> (q, T), q non-increasing and T non-decreasing in ñ' (q = min(1, b/ñ'), T = epochs·round(1/q));
    ``center_noise``: (q, T) -> σ_μ or None, non-increasing in q and in T; ``noise_multiplier``: the steps' (effective)
    σ, fixed. The RDP filter bound (Feldman & Zrnic 2021), valid for every record count n with |ñ − n| <= k·σ_n (k =
    :func:`count_window`) and its neighbours' counts n ± 1: for each of them the fit's parameters are those of some ñ'
    in W = [ñ − 2kσ_n − 1, ñ + 2kσ_n + 1] unless the count lands outside that record count ± kσ_n (probability
    p = P(|N(0, 1)| > k) under either data set of the pair, added to δ), so the fit is (ε, δ)-DP with ε the
    conversion at δ − p of the supremum over ñ' in W of the RDP curves it would charge (count, centre, T steps). W is
    covered by pieces [a, b] between powers of r = 1.0025 (aligned dyadic blocks of 1 to 8 steps, so b/a <= 1.02, longer
    than one step only where b/a − 1 is at most a third of a/lo − 1; fits share the pieces and their curves are
    memoised); on each, the curve at (q(a), T(b), σ_μ(q(a), T(b))) bounds every ñ' in it (the subsampled Gaussian's
    exact RDP grows with q — the computed fractional-order values are not monotone in q at σ >= 3 but only overestimate
    it —, and so does the secure general bound, E[c_L] over L ~ Bin(α, q) with c_ℓ non-decreasing in ℓ; the
    composition's with T, a Gaussian's as σ_μ falls), so the supremum is bounded over the whole window, not
    only on a grid. With σ = 1, batch 256, 20 epochs this is about 2 % above the RDP ε at ñ itself for n = 36,177 and
    about 65 % for n = 2,000 (the count's noise is 5 % of n there, and q = b/n moves with it). With ``sample_rate``
    (q public) the ε at the released ñ is reported instead, and under PLD (float steps) the cells' filter of
    :func:`adaptive_pld_privacy_spent`, with a fixed σ or a target; with
    ``target_epsilon``, q = b/ñ and RDP accounting the target (:func:`calibrate_adaptive_noise`; module docstring).
    """
    from .._secure_accounting import SECURE_RDP_ORDERS
    from ..accountants import DEFAULT_RDP_ORDERS, rdp_gaussian

    lo, hi, p_out = count_range(n_estimate, delta, 2)
    orders = np.asarray(SECURE_RDP_ORDERS if secure else DEFAULT_RDP_ORDERS, dtype=np.float64)
    envelope = np.zeros_like(orders)
    log_r = math.log(_WINDOW_LATTICE)
    first = i = math.floor(math.log(lo) / log_r) - 1  # r^i <= lo despite rounding
    while _WINDOW_LATTICE**i < hi:
        size = 1  # at most 8 steps (2 %), and within a third of the piece's distance from lo
        while (i % (2 * size) == 0 and 2 * size <= _WINDOW_PIECE
               and _WINDOW_LATTICE ** (2 * size) - 1 <= (_WINDOW_LATTICE ** (i - first) - 1) / 3):
            size *= 2
        q, steps = sampling(_WINDOW_LATTICE**i)[0], sampling(_WINDOW_LATTICE ** (i + size))[1]
        curve = steps * _step_rdp(q, float(noise_multiplier), bool(secure)) + rdp_gaussian(RECORD_COUNT_NOISE, orders)
        sigma_mu = center_noise(q, steps)
        if sigma_mu is not None:
            curve = curve + rdp_gaussian(sigma_mu, orders)
        envelope = np.maximum(envelope, curve)
        i += size
    return orders, envelope, p_out


_ORDER_CELL = 1.05
"""Record counts in [r^i, r^(i+1)) share the conversion order of :func:`calibrate_adaptive_noise` (r = 1.05)."""


def _cell_index(count: float) -> int:
    """The i with r^i <= ``count`` < r^(i+1) (r = :data:`_ORDER_CELL`, r^i as computed by ``r ** i``): comparisons
    with the edges, not the rounded logarithm, decide, so the index is non-decreasing in the count by construction
    (the proofs that use cells need it)."""
    i = math.floor(math.log(count) / math.log(_ORDER_CELL))
    while _ORDER_CELL ** (i + 1) <= count:
        i += 1
    while _ORDER_CELL**i > count:
        i -= 1
    return i


def _cell_edge(count: float) -> float:
    """The lower edge r^i of the cell [r^i, r^(i+1)) that holds ``count`` (:func:`_cell_index`)."""
    return _ORDER_CELL ** _cell_index(count)


def calibrate_adaptive_noise(target: float, delta: float, sampling: Callable[[float], Tuple[float, int]],
                             center_noise: Callable[[float, int], Optional[float]], n_estimate: float, *,
                             secure: bool = False) -> float:
    """σ of a fit with ``target_epsilon`` under RDP accounting whose q and T come from ñ = ``n_estimate``, chosen so
    that the fit is (``target``, δ)-DP for every record count n although σ, q and T all move with ñ. ``secure``: the
    steps are discrete Gaussians (the general bound at integer orders), else Gaussians (DEFAULT_RDP_ORDERS).

    ``sampling``: ñ' -> (q, T); ``center_noise``: (q, T) -> σ_μ or None. The rule: cut the counts into cells [r^i,
    r^(i+1)) (r = :data:`_ORDER_CELL`) and give each cell one RDP order α_i, the order at which the plain RDP
    calibration at the count r^i (:func:`calibrate_dpsgd_noise`) meets the target (where that calibration is out of
    reach, the order of the first cell above whose calibration is not; any fixed choice would do). Then σ(ñ) is the
    largest, over the cells i meeting [max(1, ñ − kσ_n − 1), ñ + kσ_n + 1] (k = :func:`count_window`), of the smallest σ
    whose RDP at α_i — count, centre and the T steps at ñ's own (q, T) — converts at δ − p to at most ``target`` (p =
    P(|N(0, 1)| > k); conversion of :func:`~dpfair_native.accountants.rdp_to_epsilon` at that one order, without the KL
    route).

    Why it holds (the filter of Feldman & Zrnic 2021 at one order): fix a neighbouring pair with counts n and n ± 1
    and let α* be the order of the cell of max(1, n). Under either data set the count leaves its record count ± kσ_n
    with probability p (added to δ); otherwise the fit runs with the parameters of some ñ' = max(1, ñ) within
    kσ_n + 1 of n, so max(1, n) lies in [max(1, ñ' − kσ_n − 1), ñ' + kσ_n + 1] and its cell is among those
    ñ' maximised over, and σ(ñ') is at least the σ at which the computed RDP of ñ''s releases at α* is within R*,
    the largest RDP that converts to ``target`` at α*. The mechanism's true RDP falls as σ grows and the computed
    value bounds it (the general bound is itself monotone: it increases with the base mechanism's RDP ℓ/(2σ²)), so
    ñ''s releases are within R* at α*; the centre's σ_μ with a target ε does not depend on (q, T). The RDP at one
    order composes adaptively, so the fit's RDP at α* is at most R* whichever ñ' the count gave, and the fit is
    (``target``, δ)-DP. Unlike a filter over the q and T of the counts near ñ, no count's parameters enter another
    count's σ: only which orders must hold.

    Calibrating at ñ alone (the rule before) let the curves of neighbouring counts, each meeting the target at
    its own order, exceed it together: with ``secure`` the filter over the counts near n was 7 % above the target at
    n = 1,000 (ε = 4, one epoch of batch 100) and 69 % at n = 1,500 (ε = 4, 20 epochs of batch 256); for Gaussian
    steps about 0.1 % at ε <= 4 and 0.46 % at ε = 8 on a few hundred rows. The price of this rule is that ñ meets the
    target at the orders of the cells near it, not only at its own best one (bench/RESULTS.md, "Session 19": with
    ``secure``, σ at most 2 % larger from 3,000 rows up, 0–28 % on 800–2,000 rows, more or out of reach where the
    counts near ñ span the general bound's floor; for Gaussian steps at most 0.7 %, tests/test_models_dpsgd.py).

    Raises
    ------
    ValueError
        If one of the orders cannot reach ``target`` for any σ (the general bound's σ-independent floor, or the
        releases before training).
    """
    lo, hi, p_out = count_range(n_estimate, delta, 1)
    first, last = _cell_index(lo), _cell_index(hi)
    orders = {_cell_order(i, target, delta, sampling, center_noise, bool(secure)) for i in range(first, last + 1)}

    q, steps = sampling(n_estimate)
    releases = _releases_before(q, steps, center_noise)
    return max(_sigma_at_order(alpha, q, steps, releases, float(target), float(delta) - p_out, n_estimate,
                               bool(secure))
               for alpha in sorted(orders))


def _sigma_at_order(alpha: float, q: float, steps: int, releases: Tuple[float, ...], target: float, delta: float,
                    n_estimate: float, secure: bool) -> float:
    """Smallest σ (to 1e-4) whose RDP at the one order α (releases + T steps at q) converts at ``delta`` to at most
    ``target`` (no KL route)."""
    from ..accountants.rdp import _conversion_epsilons

    a = np.array([alpha])

    def eps_of(sigma: float) -> float:
        rdp = dpsgd_rdp(q, sigma, steps, releases, a, secure=secure)
        return max(0.0, float(_conversion_epsilons(a, rdp, delta)[0]))

    bound = "the discrete-Gaussian RDP bound" if secure else "the RDP accountant"
    floor = eps_of(1e6)
    if floor > target:
        raise ValueError(
            f"target_epsilon={target} is out of reach with q = batch_size/ñ near ñ = {n_estimate:.0f}: at RDP order "
            f"{alpha:g}, which the record counts near ñ share, {bound} stays at epsilon >= {floor:.3g} for every "
            f"noise multiplier; raise the target, take fewer epochs or a smaller batch_size, or give sample_rate (a "
            f"public q)"
        )
    return search_noise_multiplier(eps_of, target, 1e-4, accountant=f"{bound} at order {alpha:g}")


def _releases_before(q: float, steps: int, center_noise: Callable[[float, int], Optional[float]]
                     ) -> Tuple[float, ...]:
    """Noise multipliers of a private fit's releases before training: the record count, then the centre if any."""
    sigma_mu = center_noise(q, steps)
    return (RECORD_COUNT_NOISE,) if sigma_mu is None else (RECORD_COUNT_NOISE, sigma_mu)


def _cell_order(index: int, target: float, delta: float, sampling, center_noise, secure: bool) -> float:
    """α of :func:`calibrate_adaptive_noise`'s cell [r^index, r^(index+1)): the order at which the plain calibration
    at r^index meets the target. Where that calibration is out of reach (a count that small cannot fit), the order of
    the first cell above it that can — its neighbours' fits can meet the target there —, else the order of the
    floor at r^index."""
    for i in range(index, index + 200):  # r^200 ≈ 17,000 times the count
        q, steps = sampling(_ORDER_CELL**i)
        order = _best_order(q, steps, _releases_before(q, steps, center_noise), float(target), float(delta), secure)
        if order is not None:
            return order
    q, steps = sampling(_ORDER_CELL**index)
    return _best_order(q, steps, _releases_before(q, steps, center_noise), float(target), float(delta), secure,
                       floor=True)


@functools.lru_cache(maxsize=4096)
def _best_order(q: float, steps: int, releases: Tuple[float, ...], target: float, delta: float, secure: bool,
                floor: bool = False) -> Optional[float]:
    """The order at which the plain RDP calibration at (q, T) meets ``target`` (None if it is out of reach); with
    ``floor``, the order with the lowest ε at σ = 1e6."""
    from .._secure_accounting import SECURE_RDP_ORDERS
    from ..accountants import DEFAULT_RDP_ORDERS
    from ..accountants.rdp import _conversion_epsilons

    orders = np.asarray(SECURE_RDP_ORDERS if secure else DEFAULT_RDP_ORDERS, dtype=np.float64)
    if floor:
        sigma = 1e6
    else:
        try:
            sigma = calibrate_dpsgd_noise(target, delta, q, steps, releases, secure=secure, method="rdp")
        except ValueError:
            return None
    rdp = dpsgd_rdp(q, sigma, steps, releases, orders, secure=secure)
    return float(orders[int(np.argmin(_conversion_epsilons(orders, rdp, delta)))])


def calibrate_dpsgd_noise(target: float, delta: float, sample_rate: float, steps: int, count_noise_multipliers=(), *,
                          secure: bool = False, method: str = "rdp") -> float:
    """Smallest σ (to 1e-4) whose ε is <= ``target`` under the ``method`` accountant (for the PLD on the
    calibration's own grid: :func:`dpsgd_privacy_spent`'s finer-grid ε then meets the target too, with σ typically
    within 0.1 % of that grid's smallest).

    The float path is :func:`~dpfair_native.accountants.calibrate_noise_multiplier` on :func:`dpsgd_release` (the
    one calibration routine; it raises when the count releases alone exceed the target). ``secure`` bisects on σ
    with the discrete-Gaussian RDP bound (ε decreases as σ grows; every accepted σ was evaluated, so the returned
    one meets the target). Memoised on exact argument values (a failed calibration is not: it raises again).
    """
    return _calibrate(*_accounting_key(sample_rate, target, steps, delta, count_noise_multipliers, secure, method))


@functools.lru_cache(maxsize=4096)  # a PLD fit calibrates every cell near ñ (up to ~150 on a few hundred rows)
def _calibrate(sample_rate, target, steps, delta, count_noise_multipliers, secure, method):
    if not secure:
        return float(calibrate_noise_multiplier(
            lambda s: dpsgd_release(sample_rate, s, steps, count_noise_multipliers), target, delta, method=method))

    from .._secure_accounting import SECURE_RDP_ORDERS
    from ..accountants.rdp import _conversion_epsilons

    orders = np.asarray(SECURE_RDP_ORDERS, dtype=np.float64)

    def eps_of(sigma: float) -> float:
        # rdp_to_epsilon without its KL route, an upper bound on the ε reported after the fit. The route gives
        # ε = 0 once T·RDP(2) <= −ln(1 − δ²), i.e. from σ ≈ q·√T/δ (about 1e5 at Adult's q and T): a true
        # (0, δ) guarantee whose noise leaves no model. Without it, targets below the floor of the general
        # bound (its factor 3) calibrated to that σ, silently, when no count release kept the RDP(2) above δ².
        rdp = dpsgd_rdp(sample_rate, sigma, steps, count_noise_multipliers, orders, secure=True)
        return max(0.0, float(np.min(_conversion_epsilons(orders, rdp, delta))))

    floor = eps_of(1e6)
    if floor > target:
        counts = dpsgd_privacy_spent(sample_rate, 1.0, 0, delta, count_noise_multipliers, secure=True)[0]
        if counts > target:
            raise ValueError(
                f"target_epsilon={target} is used up by the count releases alone (noise multipliers "
                f"{list(count_noise_multipliers)}); raise the target or the count noise"
            )
        # Zhu & Wang's general bound keeps a σ-independent term (its factor 3), so T steps at rate q cost at least
        # about this much whatever σ is, short of the KL route's σ.
        kl_note = "" if count_noise_multipliers else \
            f" (it drops to 0 only near noise multiplier {sample_rate * math.sqrt(steps) / delta:.3g})"
        raise ValueError(
            f"target_epsilon={target} is out of reach with secure=True at sample rate {sample_rate:.4g} and {steps} "
            f"steps: the discrete-Gaussian RDP bound stays at epsilon >= {floor:.3g} for every noise multiplier "
            f"that leaves a model{kl_note}; raise the target, or take fewer steps or a lower sample rate (smaller "
            f"batch_size), or use secure=False"
        )
    return search_noise_multiplier(eps_of, target, 1e-4, accountant="the discrete-Gaussian RDP bound")


class _DPSGDBase(DPClassifierBase):
    """Shared fit: sampling rate, step count, noise calibration, the epoch loop and the accounting."""

    _rule = "fixed"
    # the parameters every DP-SGD estimator has (ConstrainedDPSGDClassifier too); subclasses add theirs
    _parameter_constraints = {
        "noise_multiplier": [NON_NEGATIVE, None],
        "target_epsilon": [POSITIVE, None],
        "delta": [PROBABILITY],
        "clip_norm": [Interval(Real, 0, math.inf, closed="right")],
        "batch_size": [POSITIVE_INT, None],
        "sample_rate": [Interval(Real, 0, 1, closed="right"), None],
        "epochs": [POSITIVE_INT],
        "learning_rate": [POSITIVE, None],
        "l2": [NON_NEGATIVE],
        "backend": [BACKEND],
        "random_state": ["random_state"],
        "center": ["boolean"],
    }
    _own_parameters = {
        "n_threads": [POSITIVE_INT, None],
        "secure": ["boolean"],
        "accountant_method": [StrOptions(set(ACCOUNTANT_METHODS))],
    }

    # -- hooks ---------------------------------------------------------------------------------------------
    def _noise_multipliers(self, q: float, steps: int, record_count_noise: Tuple[float, ...],
                           secure: bool = False, n_estimate: Optional[float] = None) -> Tuple[float, float]:
        """(σ of the gradient release, σ₁ of the per-step count release; 0 if none). ``record_count_noise``: the
        noise multipliers of releases made before training, which a ``target_epsilon`` calibration must include;
        ``secure``: calibrate for discrete Gaussian steps; ``n_estimate``: the released ñ (:meth:`_calibrated`)."""
        raise NotImplementedError

    def _calibrated(self, target: float, q: float, steps: int, record_count_noise: Tuple[float, ...], secure: bool,
                    n_estimate: Optional[float]) -> float:
        """σ (effective) of the steps meeting ``target``: at the released ñ's (q, T), or — RDP accounting (``secure``
        or ``accountant_method="rdp"``) with q = b/ñ — by :func:`calibrate_adaptive_noise` at the orders the counts
        near ñ share (module docstring)."""
        if self._pld_cells():  # q from ñ's cell: the fit reports adaptive_pld_privacy_spent (PLD_TARGET_MARGIN)
            aim = target * (1.0 - PLD_TARGET_MARGIN)
            try:
                return calibrate_dpsgd_noise(aim, float(self.delta), q, steps, record_count_noise, method="pld")
            except ValueError as error:  # quote the user's target, not the aim (the messages print it either way)
                quoted = f"target_epsilon={target:g} (calibrated {PLD_TARGET_MARGIN:.1%} below it, to {aim:g})"
                message = str(error)
                for form in (f"target_epsilon={aim:g}", f"target_epsilon={aim}"):
                    message = message.replace(form, quoted) if quoted not in message else message
                raise ValueError(message) from None
        sigma = calibrate_dpsgd_noise(target, float(self.delta), q, steps, record_count_noise, secure=secure,
                                      method=self.accountant_method)  # raises the plain out-of-reach errors first
        if not self._shared_orders(secure, record_count_noise):
            return sigma
        if n_estimate is None:
            raise ValueError("with RDP accounting and q = batch_size/ñ the calibration covers the counts near ñ: "
                             "pass n_estimate")
        return calibrate_adaptive_noise(target, float(self.delta), self._sampling, self._center_noise, n_estimate,
                                        secure=secure)

    def _shared_orders(self, secure: bool, record_count_noise: Tuple[float, ...]) -> bool:
        """Whether a ``target_epsilon`` fit calibrates by :func:`calibrate_adaptive_noise`: RDP accounting (secure
        steps, or ``accountant_method="rdp"``) and q = b/ñ from a released count."""
        rdp = secure or _check_method(self.accountant_method, secure) == "rdp"
        return bool(rdp and self.sample_rate is None and record_count_noise)

    def _pld_cells(self) -> bool:
        """Whether q comes from the cell of ñ rather than ñ itself: a private fit (a target or a fixed noise
        multiplier) with float steps, PLD accounting and q = b/ñ from a released count
        (:func:`adaptive_pld_privacy_spent`)."""
        return bool(self._private() and self.sample_rate is None
                    and not getattr(self, "secure", False) and not getattr(self, "_public_record_count", False)
                    and _check_method(self.accountant_method, False) == "pld")

    def _requested_privacy(self) -> Tuple[Optional[float], Optional[float]]:
        """(target ε, None) or (None, σ) (:func:`requested_privacy`)."""
        return requested_privacy(self.target_epsilon, self.noise_multiplier)

    def _private(self) -> bool:
        """Whether the fit adds noise (a non-private run, noise multiplier 0, uses the exact record count)."""
        target, sigma = self._requested_privacy()
        return target is not None or float(sigma) != 0.0

    def _adds_noise(self) -> bool:
        return self._private()

    @staticmethod
    def _effective_sigma(sigma: float, sigma_count: float) -> float:
        """Noise multiplier of one step's whole release (counts and gradient sum, same batch).

        Given the noisy counts, the gradient sum has sensitivity <= max_k s_k and noise σ·max_k s_k, so each step is
        the adaptive composition of a Gaussian mechanism with sensitivity/std 1/σ₁ (counts: one record moves one
        histogram cell by 1, L2 sensitivity 1) and one with 1/σ. That pair is a Gaussian mechanism with
        σ_eff = (σ₁⁻² + σ⁻²)^(-1/2) (Gaussian-DP composition), and Poisson subsampling of it is accounted by the
        subsampled-Gaussian RDP at σ_eff — the two releases share one batch, so they are charged as one mechanism.
        """
        if sigma_count <= 0:
            return sigma
        return 1.0 / math.sqrt(1.0 / sigma_count**2 + 1.0 / sigma**2)

    def _privacy_spent(self, q: float, sigma_eff: float, steps: int, record_count_noise: Tuple[float, ...],
                       n_estimate: float, secure: bool = False) -> PrivacySpent:
        """``privacy_spent_``: the ε of the releases at the released ñ's (q, T) — or, where q comes from ñ, the
        filter over the counts near it: under PLD (float steps) :func:`adaptive_pld_privacy_spent` over ñ's cells
        (with a fixed noise multiplier or a target), under RDP with a fixed noise multiplier
        :func:`adaptive_privacy_spent`, and with a target the target that :func:`calibrate_adaptive_noise` proves."""
        target, _ = self._requested_privacy()
        if record_count_noise and self._pld_cells():
            spent = adaptive_pld_privacy_spent(self._cell_releases, n_estimate, float(self.delta))
            if target is not None and spent.epsilon > target:
                warnings.warn(f"{type(self).__name__}: privacy_spent_ is epsilon={spent.epsilon:.6g}, above "
                              f"target_epsilon={target}: the bound over the record counts near the released one "
                              f"exceeds it although each count's noise was calibrated {PLD_TARGET_MARGIN:.1%} below "
                              "the target; lower target_epsilon by the difference, or use accountant_method='rdp', "
                              "whose calibration proves the target", UserWarning, stacklevel=4)
            return spent
        if sigma_eff > 0 and target is None and self.sample_rate is None and record_count_noise:
            return adaptive_privacy_spent(self._sampling, self._center_noise, sigma_eff, n_estimate,
                                          float(self.delta), secure=secure)
        if target is not None and self._shared_orders(secure, record_count_noise):
            # calibrated by calibrate_adaptive_noise: the target is the proven bound for every n
            return PrivacySpent(float(target), float(self.delta), "rdp", "add_or_remove_one")
        return dpsgd_privacy_spent(q, sigma_eff, steps, float(self.delta), record_count_noise, secure=secure,
                                   method=self.accountant_method)

    def _cell_releases(self, i: int) -> Optional[Tuple[float, float, int, Optional[float]]]:
        """(q, σ_eff, T, σ_μ or None) of a fit whose count lands in cell i, or None if such a fit stops before
        training (:func:`adaptive_pld_privacy_spent`)."""
        q, steps = self._sampling(_ORDER_CELL**i)
        before = _releases_before(q, steps, self._center_noise)
        try:
            sigma = self._effective_sigma(*self._noise_multipliers(q, steps, before, False, _ORDER_CELL**i))
        except ValueError:
            return None
        return q, sigma, steps, self._center_noise(q, steps)

    def _center_noise(self, q: float, steps: int) -> Optional[float]:
        """σ_μ of the centre release a private fit with (q, T) makes, or None (center=False, non-private)."""
        if not self.center or not self._private():
            return None
        target, sigma = self._requested_privacy()
        return center_noise_multiplier(target, float(self.delta), sigma, q, steps)

    # -- fit -----------------------------------------------------------------------------------------------
    def _release_center(self, X, n_estimate: float, q: float, steps: int, record_count_noise: Tuple[float, ...],
                        keys, rng) -> Tuple[Optional[np.ndarray], Tuple[float, ...], Optional[float]]:
        """(μ̃ or None, the pre-training releases' noise multipliers including the centre's, σ_μ or None).

        ``center=True``: the private feature mean of :mod:`dpfair_native.models._centering` (the exact mean in a
        non-private run, charged nothing); the loop then trains on x − μ̃ and the model is re-expressed in x.
        """
        if not self.center:
            return None, record_count_noise, None
        if not self._private():
            return release_center(X, n_estimate, 0.0, 1.0, rng), record_count_noise, None
        sigma_mu = self._center_noise(q, steps)
        bound = center_bound(X.shape[1], getattr(self, "_input_domain", None))
        center = release_center(X, n_estimate, sigma_mu, bound, rng, keys)
        return center, record_count_noise + (sigma_mu,), sigma_mu

    def _sampling(self, n_estimate: float) -> Tuple[float, int]:
        """(q, T) from public parameters and the (noisy or, in a non-private run, exact) record count."""
        if self.sample_rate is not None:
            q = float(self.sample_rate)
        else:
            if self.batch_size is None:
                raise ValueError("give batch_size (expected batch size b, q = b/ñ) or sample_rate q")
            count = _cell_edge(n_estimate) if self._pld_cells() else n_estimate
            q = min(1.0, int(self.batch_size) / count)
        return q, int(self.epochs) * max(1, int(round(1.0 / q)))

    def _record_count(self, n: int, keys, rng) -> Tuple[Tuple[float, ...], float]:
        """(noise multipliers of the count release — () in a non-private run —, ñ): the first release of every fit."""
        if not self._private():
            return (), float(n)
        if keys is None:
            return (RECORD_COUNT_NOISE,), max(1.0, n + RECORD_COUNT_NOISE * float(rng.standard_normal()))
        # secure: an exact discrete Gaussian count (σ_n² an integer)
        z = kernels.discrete_gaussian_noise(1, int(RECORD_COUNT_NOISE**2), random_state=keys.next(),
                                            backend=self.backend)
        return (RECORD_COUNT_NOISE,), float(max(1, n + int(z[0])))

    def _fit(self, X, y, groups, group_labels, rng):
        n, d = X.shape
        clip, l2, epochs = float(self.clip_norm), float(self.l2), int(self.epochs)
        keys = _secure_keys(self)
        record_count_noise, n_estimate = self._record_count(n, keys, rng)
        count_std = record_count_noise[0] if record_count_noise else 0.0  # the noisy ñ's
        q, steps = self._sampling(n_estimate)
        center, record_count_noise, center_sigma = self._release_center(X, n_estimate, q, steps, record_count_noise,
                                                                        keys, rng)
        steps_per_epoch = steps // epochs
        sigma, sigma_count = self._noise_multipliers(q, steps, record_count_noise, keys is not None, n_estimate)
        if sigma > 0 and not np.isfinite(clip):
            raise ValueError("clip_norm must be finite when noise is added "
                             "(the noise std is noise_multiplier·clip_norm)")
        sigma_eff = self._effective_sigma(sigma, sigma_count) if sigma > 0 else 0.0
        # from ñ and public parameters only: computed (and any warning or error given) before training
        spent = self._privacy_spent(q, sigma_eff, steps, record_count_noise, n_estimate, secure=keys is not None)
        lr = 1.0 / math.sqrt(steps) if self.learning_rate is None else float(self.learning_rate)  # None: the thesis'

        if self._rule == "fixed" or groups is None:
            n_groups, codes = 1, None
        else:
            n_groups, codes = len(group_labels), groups
        count_width = {"fixed": 0, "dpsgdf": 2 * n_groups, "naive": n_groups}[self._rule]
        X = X if kernels.is_sparse(X) else np.ascontiguousarray(X)
        b = q * n_estimate
        params = np.zeros(d + 1)
        rates = np.full(steps_per_epoch, lr)
        bounds = []
        # a CSR X is packed for the native loop once per fit, not once per epoch call (secure mode on CSR runs the
        # NumPy twin, which reads X itself: nothing to pack)
        packed = None if keys is not None else kernels.pack_csr_rows(X, y, groups=codes, n_groups=n_groups,
                                                                     backend=self.backend)
        # secure: exact batch selection, and discrete Gaussians drawn inside the loop, each from a fresh ChaCha20
        # key; the batch keys are drawn here, not on the prefetching thread, so a seeded run is reproducible
        batch_keys = None if keys is None else [keys.next() for _ in range(epochs)]

        def draws(epoch):
            if keys is not None:
                return (*secure_poisson_batches(n, q, steps_per_epoch, batch_keys[epoch], backend=self.backend),
                        None, None)
            rows, offsets = poisson_batches(n, q, steps_per_epoch, rng)
            grad_noise = rng.standard_normal((steps_per_epoch, d + 1))
            count_noise = rng.standard_normal((steps_per_epoch, count_width)) if count_width else None
            return rows, offsets, grad_noise, count_noise

        for rows, offsets, grad_noise, count_noise in prefetched(draws, epochs):
            params, step_bounds = kernels.dpsgd_epochs(
                X, y, params, rows, offsets, rates, grad_noise,
                groups=codes, clip=np.full(n_groups, clip), rule=self._rule, count_noise=count_noise,
                noise_multiplier=sigma, count_noise_multiplier=sigma_count, expected_batch_size=b, l2=l2,
                backend=self.backend, secure_key=None if keys is None else keys.next(), packed=packed,
                center=center,
            )
            bounds.append(step_bounds)
            if not np.all(np.isfinite(params)):
                break  # the next epoch's call would refuse the weights as bad input
        if not np.all(np.isfinite(params)):
            raise TrainingDivergedError()

        coef, intercept = uncentered(params[:d].copy(), params[d], center)
        fitted = {
            "coef_": coef,
            "intercept_": intercept,
            "center_": center,
            "center_noise_multiplier_": center_sigma,
            "privacy_spent_": spent,
            "noise_multiplier_": sigma,
            "effective_noise_multiplier_": sigma_eff,
            "sample_rate_": q,
            "n_steps_": steps,
            "learning_rate_": lr,
            "n_samples_estimate_": n_estimate,
        }
        if self._rule != "fixed":
            fitted["count_noise_multiplier_"] = sigma_count
            fitted["step_bounds_"] = np.concatenate(bounds, axis=0)
        self._check_scale(center, center_sigma, n_estimate, count_std)
        return fitted

    def _check_scale(self, center, center_sigma, n_estimate: float, count_noise: float) -> None:
        """After a fit that succeeded: the raw-units warning of :func:`._centering.warn_if_out_of_scale`, from the
        released centre and count (none when a domain is declared: its scale is the user's)."""
        if getattr(self, "_input_domain", None) is None and center is not None:
            warn_if_out_of_scale(center, center_sigma, n_estimate, center_bound(center.shape[0]),
                                 count_noise=count_noise)


class DPSGDClassifier(_DPSGDBase):
    """DP-SGD logistic regression (Abadi et al. 2016; thesis ch. 3.1.6, Algorithm 1) with Poisson sampling.

    Parameters
    ----------
    noise_multiplier : float or None, default None
        A fixed σ >= 0: the noise std is σ·``clip_norm``; 0 trains non-privately (``privacy_spent_ = (inf, 0)``).
        Give it or ``target_epsilon``, not both.
    target_epsilon : float or None, default None
        Calibrate σ so that ``privacy_spent_`` meets it at ``delta`` (the smallest σ, to 1e-4, that does under the
        calibration's accountant; with the PLD, within ~0.1 % of the smallest under the reporting accountant's
        finer grid; RDP accounting with ``batch_size``: :func:`calibrate_adaptive_noise`). With neither this nor
        ``noise_multiplier``: :data:`DEFAULT_TARGET_EPSILON` (ε = 1), whatever the data size.
    delta : float in (0, 1), default 1e-5
    clip_norm : float > 0 or inf, default 1.0
        C, the per-example gradient L2 bound (finite whenever noise is added).
    batch_size : int or None, default 256
        Expected batch size b: q = min(1, b/ñ), or b over the lower edge of ñ's 1.05-cell under PLD accounting of
        float steps (module docstring). Used when ``sample_rate`` is None.
    sample_rate : float in (0, 1] or None, default None
        q, public; overrides ``batch_size``.
    epochs : int, default 20
        T = epochs·round(1/q) steps.
    learning_rate : float or None, default :data:`DEFAULT_LEARNING_RATE`
        None gives the thesis' 1/√T.
    l2 : float >= 0, default 0.0
        Ridge weight (data-independent, added after the noise).
    backend : {"native", "numpy"}, default "native"
    random_state : int, numpy Generator or None, default None
    n_threads : int or None, default None
    secure : bool, default False
        Exact discrete Gaussian noise drawn in the native loop (module docstring); accounted by RDP. With
        ``target_epsilon`` and ``batch_size`` σ is calibrated at the orders the record counts near ñ share
        (:func:`calibrate_adaptive_noise`), and ``privacy_spent_`` is the target.
    accountant_method : {"pld", "rdp"}, default "pld"
        The accountant of ``privacy_spent_`` and of the ``target_epsilon`` calibration (PLD is the tighter one).
        With ``batch_size`` (q from ñ) it also sets q and T: under PLD q is b over the lower edge of ñ's cell,
        under RDP b/ñ (``sample_rate_``, ``n_steps_``; module docstring).
        "rdp" with ``target_epsilon`` and ``batch_size``: :func:`calibrate_adaptive_noise`, reporting the target.
    center : bool, default True
        Train on x − μ̃, μ̃ a private estimate of the feature mean (one Gaussian release of the clipped row sum
        with about 5 % of the budget, charged to ``privacy_spent_``; :mod:`dpfair_native.models._centering`); the
        fitted ``coef_``/``intercept_`` score x itself. False: the papers' uncentered DP-SGD.

    Attributes
    ----------
    coef_, intercept_, classes_, n_features_in_, feature_names_in_
        As every classifier of the package (:class:`~dpfair_native.models.DPClassifierBase`).
    privacy_spent_ : PrivacySpent
        (ε, δ) of the whole fit (record count + centre with ``center=True`` + T steps) and ``.method``, the
        accountant used.
    noise_multiplier_ : float
        σ used (calibrated when ``target_epsilon`` was given).
    effective_noise_multiplier_ : float
        σ of one step's whole release (= ``noise_multiplier_`` here).
    sample_rate_ : float
        q.
    n_steps_ : int
        T.
    learning_rate_ : float
    n_samples_estimate_ : float
        ñ, the noisy record count (exact n in a non-private run).
    center_ : ndarray of shape (n_features,) or None
        μ̃, the released centre (the exact mean in a non-private fit); None with ``center=False``.
    center_noise_multiplier_ : float or None
        σ_μ of the centre release (None: no release charged).

    Notes
    -----
    Step t: sample each record with probability q (``sample_rate``, or q = min(1, ``batch_size``/ñ) with ñ the noisy
    record count of the module docstring, ñ's cell edge in place of ñ under PLD accounting); clip every per-example
    gradient to L2 norm C = ``clip_norm``; add N(0, σ²C²·I) to the sum; divide by the expected batch size q·ñ; add l2·w;
    step with ``learning_rate``. Privacy: add/remove-one neighbours; the record-count release, the centre release
    (``center=True``) and T Poisson-subsampled Gaussian steps, composed as one typed event and converted to ε at
    ``delta`` by the ``accountant_method`` accountant. ``sensitive_features`` are accepted (length-checked) and unused:
    no ``groups_`` is set from them.
    """

    _ignores_sensitive_features = True
    _parameter_constraints = {**_DPSGDBase._parameter_constraints, **_DPSGDBase._own_parameters}

    def __init__(
        self,
        *,
        noise_multiplier: Optional[float] = None,
        target_epsilon: Optional[float] = None,
        delta: float = 1e-5,
        clip_norm: float = 1.0,
        batch_size: Optional[int] = 256,
        sample_rate: Optional[float] = None,
        epochs: int = 20,
        learning_rate: Optional[float] = DEFAULT_LEARNING_RATE,
        l2: float = 0.0,
        backend: str = "native",
        random_state=None,
        n_threads: Optional[int] = None,
        secure: bool = False,
        accountant_method: str = DEFAULT_ACCOUNTANT_METHOD,
        center: bool = True,
    ):
        self.noise_multiplier = noise_multiplier
        self.target_epsilon = target_epsilon
        self.delta = delta
        self.clip_norm = clip_norm
        self.batch_size = batch_size
        self.sample_rate = sample_rate
        self.epochs = epochs
        self.learning_rate = learning_rate
        self.l2 = l2
        self.backend = backend
        self.random_state = random_state
        self.n_threads = n_threads
        self.secure = secure
        self.accountant_method = accountant_method
        self.center = center

    def _noise_multipliers(self, q, steps, record_count_noise, secure=False, n_estimate=None):
        target, sigma = self._requested_privacy()
        if target is not None:
            return self._calibrated(float(target), q, steps, record_count_noise, secure, n_estimate), 0.0
        return float(sigma), 0.0


class _GroupAwareDPSGD(_DPSGDBase):
    """Shared parameters of DPSGD-F and Naïve: σ₂ (gradient) and σ₁ (noisy per-group counts, default 10·σ₂)."""

    requires_sensitive_features = True
    _parameter_constraints = {
        **_DPSGDBase._parameter_constraints,
        **_DPSGDBase._own_parameters,
        "count_noise_multiplier": [POSITIVE, None],
        "declared_groups": ["array-like", None],
    }

    def __init__(
        self,
        *,
        noise_multiplier: Optional[float] = None,
        count_noise_multiplier: Optional[float] = None,
        target_epsilon: Optional[float] = None,
        delta: float = 1e-5,
        clip_norm: float = 1.0,
        batch_size: Optional[int] = 256,
        sample_rate: Optional[float] = None,
        epochs: int = 20,
        learning_rate: Optional[float] = DEFAULT_LEARNING_RATE,
        l2: float = 0.0,
        declared_groups=None,
        backend: str = "native",
        random_state=None,
        n_threads: Optional[int] = None,
        secure: bool = False,
        accountant_method: str = DEFAULT_ACCOUNTANT_METHOD,
        center: bool = True,
    ):
        self.noise_multiplier = noise_multiplier
        self.count_noise_multiplier = count_noise_multiplier
        self.target_epsilon = target_epsilon
        self.delta = delta
        self.clip_norm = clip_norm
        self.batch_size = batch_size
        self.sample_rate = sample_rate
        self.epochs = epochs
        self.learning_rate = learning_rate
        self.l2 = l2
        self.declared_groups = declared_groups
        self.backend = backend
        self.random_state = random_state
        self.n_threads = n_threads
        self.secure = secure
        self.accountant_method = accountant_method
        self.center = center

    def _noise_multipliers(self, q, steps, record_count_noise, secure=False, n_estimate=None):
        sigma1 = None if self.count_noise_multiplier is None else float(self.count_noise_multiplier)
        target, sigma = self._requested_privacy()
        if target is not None:
            eps = float(target)
            s_eff = self._calibrated(eps, q, steps, record_count_noise, secure, n_estimate)
            if sigma1 is None:  # σ₁ = 10σ₂: 1/σ_eff² = (1/100 + 1)/σ₂²
                sigma2 = s_eff * math.sqrt(1.0 + 1.0 / 100.0)
                return sigma2, 10.0 * sigma2
            if sigma1 <= s_eff:
                raise ValueError(
                    f"count_noise_multiplier={sigma1} leaves no budget for the gradients at target_epsilon="
                    f"{eps} (needs > {s_eff:.4g}); raise it or leave it None (10x the gradient noise)"
                )
            return 1.0 / math.sqrt(1.0 / s_eff**2 - 1.0 / sigma1**2), sigma1
        sigma2 = float(sigma)
        if sigma2 == 0:
            return 0.0, 0.0 if sigma1 is None else sigma1
        return sigma2, 10.0 * sigma2 if sigma1 is None else sigma1


_GROUP_AWARE_SECTIONS = """    Parameters
    ----------
    noise_multiplier, target_epsilon, delta, clip_norm, batch_size, sample_rate, epochs, learning_rate, l2, backend, \
random_state, n_threads, secure, accountant_method, center
        As :class:`DPSGDClassifier` (``noise_multiplier`` is σ₂ of the gradient release; with ``target_epsilon``
        the calibrated σ is the effective σ_eff of the joint step).
    count_noise_multiplier : float > 0 or None, default None
        σ₁ of the per-step group-count release; None: 10·σ₂.
    declared_groups : array-like or None, default None
        The public group labels; None: the labels seen in ``sensitive_features``.

    Attributes
    ----------
    coef_, intercept_, classes_, n_features_in_, feature_names_in_, privacy_spent_, noise_multiplier_, \
sample_rate_, n_steps_, learning_rate_, n_samples_estimate_, center_, center_noise_multiplier_
        As :class:`DPSGDClassifier`.
    effective_noise_multiplier_ : float
        σ_eff = (σ₁⁻² + σ₂⁻²)^(-1/2), the noise multiplier the accountant charges per step.
    count_noise_multiplier_ : float
        σ₁ used.
    step_bounds_ : ndarray (T, K)
        {bounds}
    groups_ : ndarray (K,)
        The group labels, in code order.

"""
"""The numpydoc Parameters/Attributes of DPSGD-F and Naïve; ``{bounds}`` describes ``step_bounds_``."""


def _with_sections(cls, bounds: str):
    """Put the shared sections into ``cls``'s docstring (at its ``<group-aware sections>`` marker)."""
    cls.__doc__ = cls.__doc__.replace("    <group-aware sections>\n", _GROUP_AWARE_SECTIONS.replace("{bounds}", bounds))
    return cls


class DPSGDFClassifier(_GroupAwareDPSGD):
    """DPSGD-F (thesis ch. 9, Algorithm 7): DP-SGD with per-group clip bounds set from noisy clipping counts.

    <group-aware sections>
    Notes
    -----
    Step t, K groups: m_k / o_k = batch rows of group k whose gradient norm is > / <= C0 (``clip_norm``),
    released with N(0, σ₁²) each (σ₁ = ``count_noise_multiplier``, default 10·σ₂); b̃_k = m̃_k + õ_k, m̃ = Σ m̃_k;
    C_k = C0·(1 + (m̃_k/b̃_k)/(m̃/b)); per-example clipping to C_{k(i)}; noise N(0, σ₂²·(max_k C_k)²) with
    σ₂ = ``noise_multiplier``; divide by the expected batch size b = q·ñ (ñ: the noisy record count of the module
    docstring).
    Differences from the pseudo-code, for privacy (DP rules 2 and 4): Poisson sampling (the accountant's
    assumption); b = q·ñ instead of the realized batch size (Algorithm 7 line 20 scales by the noisy b̃/b, we
    divide by b as in DP-SGD); noisy counts are clamped (m̃_k, õ_k >= 0, b̃_k >= 1, m̃ >= 1; post-processing).
    Privacy: the count histogram has L2 sensitivity 1 under add/remove (one record, one cell); counts and
    gradient share a batch, so each step is one Poisson-subsampled Gaussian with σ_eff = (σ₁⁻² + σ₂⁻²)^(-1/2),
    composed over the T steps (``effective_noise_multiplier_``) and with the record-count release.
    With ``target_epsilon``, σ_eff is calibrated and
    σ₂ derived (σ₁ = 10σ₂ unless given). The group set is public: ``declared_groups`` or, if None, the labels seen
    in ``sensitive_features`` (declare them when the label set itself is private). ``step_bounds_`` (T, K) holds
    the C_k used at every step.
    """

    _rule = "dpsgdf"


class NaiveReweightedDPSGDClassifier(_GroupAwareDPSGD):
    """Naïve reweighting (thesis ch. 9, Algorithm 8): DP-SGD with group weights from noisy batch group sizes.

    <group-aware sections>
    Notes
    -----
    Step t: b̃_k = b_k + N(0, σ₁²) (b_k = batch rows of group k; clamped to >= 1); θ_k = (b/K)/b̃_k; every clipped
    gradient (bound C0 = ``clip_norm``) of group k is multiplied by θ_k; noise N(0, σ₂²·(C0·max_k θ_k)²); divide
    by the expected batch size b = q·ñ. Privacy as :class:`DPSGDFClassifier` (histogram of K counts, L2
    sensitivity 1, same batch, σ_eff = (σ₁⁻² + σ₂⁻²)^(-1/2)). ``step_bounds_`` (T, K) holds θ_k·C0 per step.
    """

    _rule = "naive"


_with_sections(DPSGDFClassifier, "The per-group clip bounds C_k used at every step.")
_with_sections(NaiveReweightedDPSGDClassifier, "θ_k·C0, the per-group sensitivity at every step.")
