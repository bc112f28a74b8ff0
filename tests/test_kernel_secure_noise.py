"""Exact discrete samplers on ChaCha20: RFC 8439 vectors, native == pure-Python twin (same stream, same integers),
the distributions against their exact pmfs, and the secure DP-SGD loop."""

import math
from fractions import Fraction

import numpy as np
import pytest

from dpfair_native import _reference, kernels
from dpfair_native._secure_random import SecureKeys
from dpfair_native.models.dpsgd import poisson_batches
from dpfair_native.models.dpsgd import secure_poisson_batches as poisson_batches_secure

native = pytest.mark.native

# RFC 8439 §2.3.2 (key 00..1f, nonce 00000009 0000004a 00000000, block counter 1) and appendix A.1 test vector #1
# (all-zero key and nonce, counter 0): the serialized 64-byte blocks.
RFC_BLOCK_232 = bytes.fromhex(
    "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e"
    "d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e"
)
RFC_BLOCK_A1 = bytes.fromhex(
    "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7"
    "da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586"
)


def _block(backend):
    return kernels._native().chacha20_block if backend == "native" else _reference.chacha20_block


def test_chacha20_block_matches_rfc8439_vectors(backend):
    block = _block(backend)
    assert block(bytes(range(32)), 1, bytes.fromhex("000000090000004a00000000")) == RFC_BLOCK_232
    assert block(bytes(32), 0, bytes(12)) == RFC_BLOCK_A1
    assert block(bytes(32), 1, bytes(12)) != RFC_BLOCK_A1  # the counter matters


def test_bit_stream_is_the_rfc_keystream_read_little_endian():
    bits = _reference.ChaCha20Bits(bytes(32))
    words = [bits.next_word() for _ in range(32)]
    stream = b"".join(w.to_bytes(4, "little") for w in words)
    assert stream == RFC_BLOCK_A1 + _reference.chacha20_block(bytes(32), 1, bytes(12))
    b = _reference.ChaCha20Bits(bytes(32))
    first = int.from_bytes(RFC_BLOCK_A1[:4], "little")
    assert b.bits(3) == first & 7 and b.bits(5) == (first >> 3) & 31


@native
@pytest.mark.parametrize("sigma2", [Fraction(1, 3), 1, Fraction(5, 2), 40, 2**20 + 3, Fraction(2**34 + 1, 2**6)])
def test_discrete_gaussian_native_equals_reference(sigma2):
    for seed in (0, 1):
        a = kernels.discrete_gaussian_noise(150, sigma2, random_state=seed, backend="native")
        b = kernels.discrete_gaussian_noise(150, sigma2, random_state=seed, backend="numpy")
        assert a.dtype == np.int64 and np.array_equal(a, b)


@native
@pytest.mark.parametrize("scale", [Fraction(1, 4), 1, Fraction(3, 2), 1000, Fraction(10**9, 7)])
def test_discrete_laplace_native_equals_reference(scale):
    a = kernels.discrete_laplace_noise(200, scale, random_state=3, backend="native")
    b = kernels.discrete_laplace_noise(200, scale, random_state=3, backend="numpy")
    assert np.array_equal(a, b)


def _chi_square(draws, pmf_of, cut):
    """Pearson statistic over the cells |z| <= cut (each) plus the two tails, and its degrees of freedom."""
    z = np.arange(-cut, cut + 1)
    p = np.array([pmf_of(int(v)) for v in z])
    p = np.concatenate([[0.5 * (1 - p.sum())], p, [0.5 * (1 - p.sum())]])
    idx = np.clip(draws, -cut - 1, cut + 1) + cut + 1
    obs = np.bincount(idx, minlength=p.size)
    exp = p * draws.size
    keep = exp > 5
    stat = float(((obs[keep] - exp[keep]) ** 2 / exp[keep]).sum())
    return stat, int(keep.sum()) - 1


def _chi2_upper(df, z=4.0):
    """Wilson–Hilferty: the chi-square quantile at standard-normal quantile z (z = 4: p ~ 3e-5)."""
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


def _dg_pmf(sigma2):
    norm = sum(math.exp(-k * k / (2 * sigma2)) for k in range(-2000, 2001))
    return lambda z: math.exp(-z * z / (2 * sigma2)) / norm


def _dl_pmf(scale):
    r = math.exp(-1 / scale)
    return lambda z: (1 - r) / (1 + r) * r ** abs(z)


@native
@pytest.mark.parametrize("sigma2", [Fraction(1, 2), Fraction(5, 2), 30])
def test_discrete_gaussian_matches_exact_pmf(sigma2):
    draws = kernels.discrete_gaussian_noise(40000, sigma2, random_state=11)
    stat, df = _chi_square(draws, _dg_pmf(float(sigma2)), int(4 * math.sqrt(sigma2)) + 1)
    assert stat < _chi2_upper(df)
    assert abs(draws.mean()) < 5 * math.sqrt(float(sigma2) / draws.size)
    # Negative control: the same draws against a 20% larger variance are rejected.
    stat_wrong, df = _chi_square(draws, _dg_pmf(1.2 * float(sigma2)), int(4 * math.sqrt(sigma2)) + 1)
    assert stat_wrong > _chi2_upper(df)


@native
@pytest.mark.parametrize("scale", [Fraction(1, 2), Fraction(3, 2), 6])
def test_discrete_laplace_matches_exact_pmf(scale):
    draws = kernels.discrete_laplace_noise(40000, scale, random_state=12)
    stat, df = _chi_square(draws, _dl_pmf(float(scale)), int(6 * scale) + 1)
    assert stat < _chi2_upper(df)
    stat_wrong, df = _chi_square(draws, _dl_pmf(1.2 * float(scale)), int(6 * scale) + 1)
    assert stat_wrong > _chi2_upper(df)


def test_reference_distribution_small_sample():
    """The pure-Python twin alone (no extension needed): mean/variance of σ² = 4 within 5 standard errors."""
    draws = kernels.discrete_gaussian_noise(3000, 4, random_state=5, backend="numpy")
    var_dg = sum(k * k * _dg_pmf(4.0)(k) for k in range(-60, 61))
    assert abs(draws.mean()) < 5 * math.sqrt(var_dg / draws.size)
    assert abs(draws.var() - var_dg) < 5 * var_dg * math.sqrt(2 / draws.size)


def test_keys_os_seed_and_errors(backend):
    a = kernels.discrete_gaussian_noise(20, 100, random_state=None, backend=backend)
    b = kernels.discrete_gaussian_noise(20, 100, random_state=None, backend=backend)
    assert not np.array_equal(a, b)  # fresh OS keys (equal with probability ~0)
    c = kernels.discrete_gaussian_noise(20, 100, random_state=7, backend=backend)
    assert np.array_equal(c, kernels.discrete_gaussian_noise(20, 100, random_state=7, backend=backend))
    assert not np.array_equal(c, kernels.discrete_gaussian_noise(20, 100, random_state=8, backend=backend))
    key = bytes(range(32))
    assert np.array_equal(kernels.discrete_laplace_noise(5, 2, random_state=key, backend=backend),
                          kernels.discrete_laplace_noise(5, 2, random_state=key, backend=backend))
    with pytest.raises(ValueError, match="> 0"):
        kernels.discrete_gaussian_noise(3, 0, backend=backend)
    with pytest.raises(ValueError, match="size"):
        kernels.discrete_gaussian_noise(-1, 1, backend=backend)
    with pytest.raises(ValueError, match="32 bytes"):
        kernels.discrete_gaussian_noise(1, 1, random_state=b"short", backend=backend)
    with pytest.raises(ValueError, match="too large"):
        kernels.discrete_gaussian_noise(1, 2.0**60, backend=backend)


def test_secure_rational_rounds_up_only_when_needed():
    assert kernels._secure_rational(Fraction(5, 2), "s") == (5, 2)
    assert kernels._secure_rational(0.1, "s")[0] / kernels._secure_rational(0.1, "s")[1] >= 0.1
    num, den = kernels._secure_rational(Fraction(10**20 + 1, 10**7), "s")
    assert Fraction(num, den) >= Fraction(10**20 + 1, 10**7) and num <= 2**48
    keys = SecureKeys(3)
    assert keys.next() != keys.next() and SecureKeys(3).next() == SecureKeys(3).next()
    assert not SecureKeys(None).next() == SecureKeys(None).next()


# -- the secure DP-SGD loop -------------------------------------------------------------------------------------------
def _problem(n=200, d=5, K=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, size=(n, d))
    y = (X @ rng.normal(size=d) > 0).astype(np.float64)
    return X, y, rng.integers(0, K, size=n)


@native
@pytest.mark.parametrize("rule", ["fixed", "dpsgdf", "naive"])
@pytest.mark.parametrize("noise", ["shared", "per_group"])
def test_secure_loop_native_equals_reference(rule, noise):
    X, y, groups = _problem()
    n, d = X.shape
    rows, offsets = poisson_batches(n, 0.1, 12, np.random.default_rng(1))
    out = {}
    for backend in ("native", "numpy"):
        out[backend] = kernels.dpsgd_epochs(
            X, y, np.zeros(d + 1), rows, offsets, np.full(12, 0.5), None, groups=groups, clip=[0.3, 0.6, 0.9],
            rule=rule, noise=noise, noise_multiplier=1.3, count_noise_multiplier=2.5, expected_batch_size=20.0,
            secure_key=bytes(range(32)), backend=backend,
        )
    np.testing.assert_allclose(out["native"][0], out["numpy"][0], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(out["native"][1], out["numpy"][1], rtol=1e-12)


def test_secure_loop_noise_is_on_the_grid_with_the_inflated_std(backend):
    """One step with an empty batch: params = −lr·γ·Z/b, so params/γ must be integers and their spread σ·L·γ with
    L = ⌈s/γ + √D/2⌉ + 1 (the row bound in grid units)."""
    d = 3999 if backend == "native" else 399
    X = np.zeros((4, d))
    y = np.zeros(4)
    sigma, clip = 1.7, 0.8
    params, _ = kernels.dpsgd_epochs(
        X, y, np.zeros(d + 1), np.zeros(0, dtype=np.int64), np.array([0, 0]), np.array([1.0]), None, clip=clip,
        noise_multiplier=sigma, expected_batch_size=1.0, secure_key=bytes(32), backend=backend,
    )
    D = d + 1
    _, e = math.frexp(1e-4 * clip / math.sqrt(D))
    gamma = math.ldexp(1.0, e - 1)
    z = -params / gamma
    assert np.array_equal(z, np.round(z)) and gamma * math.sqrt(D) <= 1e-4 * clip
    limit = math.ceil(clip / gamma + math.sqrt(D) / 2) + 1
    assert _reference.secure_grid(sigma, clip, 1e-4, D)[:2] == (gamma, limit)
    target = sigma * limit * gamma
    assert abs(np.std(params) / target - 1) < 5 / math.sqrt(2 * D)
    # Negative control: √2 less noise would be outside the same band.
    assert abs(np.std(params) / (target * math.sqrt(2)) - 1) > 5 / math.sqrt(2 * D)


def test_secure_loop_is_reproducible_by_key_and_validates(backend):
    X, y, groups = _problem(n=60)
    rows, offsets = poisson_batches(60, 0.2, 3, np.random.default_rng(0))
    kw = dict(clip=1.0, noise_multiplier=1.0, expected_batch_size=12.0, backend=backend)
    a, _ = kernels.dpsgd_epochs(X, y, np.zeros(6), rows, offsets, np.full(3, 0.3), None, secure_key=bytes(32), **kw)
    b, _ = kernels.dpsgd_epochs(X, y, np.zeros(6), rows, offsets, np.full(3, 0.3), None, secure_key=bytes(32), **kw)
    c, _ = kernels.dpsgd_epochs(X, y, np.zeros(6), rows, offsets, np.full(3, 0.3), None, secure_key=bytes([1] * 32),
                                **kw)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    with pytest.raises(ValueError, match="32 bytes"):
        kernels.dpsgd_epochs(X, y, np.zeros(6), rows, offsets, np.full(3, 0.3), None, secure_key=b"x", **kw)
    with pytest.raises(ValueError, match="grid_inflation"):
        kernels.dpsgd_epochs(X, y, np.zeros(6), rows, offsets, np.full(3, 0.3), None, secure_key=bytes(32),
                             grid_inflation=0.0, **kw)


def _exact_norm2(v):
    return sum(Fraction(float(x)) ** 2 for x in v)


@pytest.mark.parametrize("center", [False, True])
def test_secure_step_moves_by_one_rows_integer_vector_of_norm_at_most_L(backend, center):
    """Add/remove one batch row: with the same key the noise is the same, so one step from 0 (lr = b = 1) releases
    γ·(Σ k_i + Z) on both sides and the two releases differ by that row's grid vector k = rint(c·[x − μ, 1]/γ),
    exactly, of integer norm <= L. Large rows are all clipped to s, and their float clipped vectors c·[x − μ, 1]
    overshoot s by a few ulps (checked exactly: the hazard the integer check removes)."""
    rng = np.random.default_rng(5)
    n, d = 40, 7
    X = rng.uniform(-30, 30, size=(n, d))
    y = (rng.uniform(size=n) < 0.5).astype(np.float64)
    mu = rng.uniform(-1, 1, size=d) if center else None
    clip, sigma = 0.7, 1.1
    gamma, limit, _, _ = _reference.secure_grid(sigma, clip, 1e-4, d + 1)
    V, coef = _reference._clipped_rows(X, y, np.zeros(d), 0.0, np.arange(n), np.zeros(n, dtype=np.int64),
                                       np.array([clip]), np.ones(1), mu)
    assert max(_exact_norm2(coef[i] * V[i]) for i in range(n)) > Fraction(clip) ** 2  # float clipping overshoots
    rows = np.arange(n, dtype=np.int64)

    def release(batch):
        params, _ = kernels.dpsgd_epochs(X, y, np.zeros(d + 1), batch, np.array([0, batch.size]), np.ones(1), None,
                                         clip=clip, noise_multiplier=sigma, expected_batch_size=1.0,
                                         secure_key=bytes(range(32)), backend=backend, center=mu)
        units = -params / gamma
        assert np.array_equal(units, np.round(units))
        return units.astype(np.int64)

    full = release(rows)
    for i in (0, 17, n - 1):
        k = full - release(np.delete(rows, i))
        assert sum(int(v) ** 2 for v in k) <= limit**2
        np.testing.assert_array_equal(k, np.rint(coef[i] * V[i] / gamma).astype(np.int64))


def test_secure_row_units_admits_exactly_the_rows_within_L():
    """The integer check, on hand-made grid vectors (γ = 1, L = 5): (3, 4) has norm 5 and enters; (4, 4) and (6, 0)
    do not, nor does a NaN row, and the retry at c·(1 − 2^-20) cannot bring them inside; a row at 5 + 2^-30 rounds to
    5 and enters."""
    V = np.array([[3.0, 4.0], [4.0, 4.0], [6.0, 0.0], [np.nan, 1.0], [5.0 + 2.0**-30, 0.0]])
    assert _reference.secure_row_units(V, np.ones(5), 1.0, 5).tolist() == [8, 4]
    assert _reference.secure_row_units(V[:1], np.array([2.0]), 1.0, 5).tolist() == [0, 0]
    assert _reference.secure_row_units(V[:1], np.array([0.5]), 1.0, 5).tolist() == [2, 2]
    # a row just outside rounds back inside at the retry once L is large enough for 2^-20 to move it
    big = 2**22
    assert _reference.secure_row_units(np.array([[big + 2.0]]), np.ones(1), 1.0, big).tolist() == [big - 2]


def test_secure_loop_refuses_a_noise_multiplier_no_grid_can_hold(backend):
    """L = ⌈s/γ + √D/2⌉ + 1 falls to ⌊√D/2⌋ + 2 as γ grows, so σ above 2^23 / (⌊√D/2⌋ + 2) fits no grid: a
    ValueError, where the grid search used to loop forever (review of session 25); just below it the fit runs.
    D = 4 (√D/2 = 1, an integer) is the case the older limit ⌈√D/2⌉ + 1 = 2 got wrong: it admitted σ that only a
    grid of width 2^53·s holds."""
    X, y = np.ones((2, 3)), np.array([0.0, 1.0])
    limit_floor = math.floor(math.sqrt(4) / 2) + 2
    kw = dict(clip=1.0, expected_batch_size=1.0, secure_key=bytes(32), backend=backend)
    with pytest.raises(ValueError, match="2\\^23 grid units"):
        kernels.dpsgd_epochs(X, y, np.zeros(4), np.arange(2), np.array([0, 2]), np.ones(1), None,
                             noise_multiplier=2.0**23 / limit_floor * 1.001, **kw)
    params, _ = kernels.dpsgd_epochs(X, y, np.zeros(4), np.arange(2), np.array([0, 2]), np.ones(1), None,
                                     noise_multiplier=2.0**23 / limit_floor * 0.999, **kw)
    assert np.all(np.isfinite(params))


@pytest.mark.parametrize("D", [4, 8, 9, 16, 99, 100, 4000])
def test_secure_grid_just_under_the_refusal_limit_is_a_sane_grid(D):
    """Just under σ = 2^23 / (⌊√D/2⌋ + 2), the largest σ accepted, the grid search stops where L reaches ⌊√D/2⌋ + 2,
    at s/γ <= ⌊√D/2⌋ + 1 − √D/2 (>= 0.025 for these D): a grid within 2^6 of s. (Between this limit and the older
    ⌈√D/2⌉ + 1, accepted before for integer √D/2 as at D = 4, 16, 100, only a grid of about 2^53·s held σ; the
    refusal test above pins that those σ are now refused.)"""
    s = 0.8
    sigma = 2.0**23 / (math.floor(math.sqrt(D) / 2) + 2) * 0.999
    gamma, limit, num, den = _reference.secure_grid(sigma, s, 1e-4, D)
    assert limit == math.floor(math.sqrt(D) / 2) + 2 and sigma * limit <= 2.0**23
    assert gamma <= 2.0**6 * s
    assert Fraction(num, den) >= Fraction(sigma * limit) ** 2


# -- exact Poisson batch selection -------------------------------------------------------------------------------------
RATES = [2.0**-40, 1e-6, 256 / 36177, 0.01, 0.3, 0.5, 0.9, 1 - 2.0**-53]


@pytest.mark.parametrize("q", RATES)
def test_poisson_rate_rational_never_exceeds_the_sample_rate(q):
    """λ = s/t <= −ln(1 − q) in exact arithmetic (Decimal at 80 digits: ln of the exact 1 − q), so the selection
    probability 1 − e^{−λ} <= q, and λ (so p, by concavity) within a relative 2^-40 + 2^-24 + 2^-48/q of it."""
    from decimal import Decimal, localcontext

    t, s = kernels.poisson_rate_rational(q)
    assert 1 <= t <= 2**48 and 1 <= s <= 2**48
    with localcontext() as ctx:
        ctx.prec = 80
        exact = -(Decimal(1) - Decimal(q)).ln()
        lam = Decimal(s) / Decimal(t)
        assert lam <= exact
        assert (exact - lam) / exact <= Decimal(2.0**-40) + Decimal(2.0**-24) + Decimal(2.0**-48) / Decimal(q)


@pytest.mark.parametrize("q", [0.0, -0.1, 1.5, float("nan"), 2.0**-50])
def test_poisson_rate_rational_refuses_rates_it_cannot_hold(q):
    with pytest.raises(ValueError, match="sample_rate"):
        kernels.poisson_rate_rational(q)


@pytest.mark.native
@pytest.mark.parametrize("q", [1e-3, 0.05, 0.3, 0.97])
def test_secure_poisson_slots_native_equals_numpy(q):
    for seed in range(3):
        key = SecureKeys(seed).next()
        for total in (0, 1, 57, 3000):
            a = kernels.secure_poisson_slots(total, q, key)
            b = kernels.secure_poisson_slots(total, q, key, backend="numpy")
            assert a.dtype == np.int64 and np.array_equal(a, b)
            assert np.all(np.diff(a) > 0) and (a.size == 0 or (a[0] >= 0 and a[-1] < total))


def test_secure_poisson_slots_select_each_slot_with_probability_q(backend):
    """Selected counts and gaps against Binomial / Geometric(q): the count within 5 sd, P(gap = 1) and P(gap = 2)
    within 5 sd of q and q(1 − q). Natively (2·10^6 slots) a sampler at 1.05·q or 0.95·q would be 7 sd off on the
    count; the twin's smaller run (10^5, for time) only guards against gross errors, and native == twin does the
    rest."""
    q, total = 0.01, 2_000_000 if backend == "native" else 100_000
    slots = kernels.secure_poisson_slots(total, q, SecureKeys(11).next(), backend=backend)
    sd = math.sqrt(total * q * (1 - q))
    assert abs(slots.size - total * q) < 5 * sd
    q2, total2 = 0.3, 200_000 if backend == "native" else 20_000
    gaps = np.diff(kernels.secure_poisson_slots(total2, q2, SecureKeys(12).next(), backend=backend))
    for g, p in ((1, q2), (2, q2 * (1 - q2))):
        freq = np.mean(gaps == g)
        assert abs(freq - p) < 5 * math.sqrt(p * (1 - p) / gaps.size), (g, freq, p)


def test_secure_poisson_slots_every_subset_of_three_slots_has_its_probability(backend):
    """Over many keys, the selected subset of {0, 1, 2} against the Bernoulli(p)³ law (p = 1 − e^{−s/t}): each slot
    within 5 sd of p (the first and the last slot included: an off-by-one at either end fails here), and a
    chi-square over the 8 subsets below its 1e-6 quantile (df 7: 38.9)."""
    q = 0.4
    t, s = kernels.poisson_rate_rational(q)
    p = -math.expm1(-s / t)
    keys = 20_000 if backend == "native" else 3_000
    counts = np.zeros(8)
    for i in range(keys):
        slots = kernels.secure_poisson_slots(3, q, SecureKeys(1000 + i).next(), backend=backend)
        counts[sum(1 << int(j) for j in slots)] += 1
    subsets = np.arange(8)
    for j in range(3):
        freq = counts[(subsets >> j) & 1 == 1].sum() / keys
        assert abs(freq - p) < 5 * math.sqrt(p * (1 - p) / keys), (j, freq, p)
    size = np.array([bin(k).count("1") for k in subsets])
    expected = keys * p**size * (1 - p) ** (3 - size)
    assert np.sum((counts - expected) ** 2 / expected) < 38.9


def test_secure_poisson_slots_at_rate_one_and_bad_input(backend):
    key = bytes(32)
    assert np.array_equal(kernels.secure_poisson_slots(5, 1.0, key, backend=backend), np.arange(5))
    with pytest.raises(ValueError, match="32 bytes"):
        kernels.secure_poisson_slots(5, 0.5, b"short", backend=backend)
    with pytest.raises(ValueError, match="total"):
        kernels.secure_poisson_slots(-1, 0.5, key, backend=backend)
    with pytest.raises(ValueError, match="sample_rate"):
        kernels.secure_poisson_slots(5, 0.0, key, backend=backend)


def test_secure_poisson_batches_map_slots_to_steps_and_rows():
    """Slot step·n + i is record i in batch ``step``; with ``rows`` the records are mapped through it."""
    key = SecureKeys(3).next()
    n, steps, q = 40, 7, 0.2
    slots = kernels.secure_poisson_slots(n * steps, q, key)
    rows, offsets = poisson_batches_secure(n, q, steps, key)
    assert offsets[0] == 0 and offsets[-1] == slots.size and offsets.shape == (steps + 1,)
    for t in range(steps):
        expect = slots[(slots >= t * n) & (slots < (t + 1) * n)] - t * n
        assert np.array_equal(rows[offsets[t]:offsets[t + 1]], expect)
    mapped, _ = poisson_batches_secure(n, q, steps, key, rows=np.arange(n) * 3 + 1)
    assert np.array_equal(mapped, rows * 3 + 1)


# -- the secure loop's admission test, reachable -----------------------------------------------------------------------
def test_secure_row_units_admit_exactly_the_rows_within_the_limit(backend):
    """Rows [x − μ, 1] rounded to the grid enter only if Σ k² <= L²: [3, 1] has 10 > 9, so it is out at L = 3 (the
    retry at c·(1 − 2^-20) rounds to the same vector) and in at L = 4; a NaN row and a zero coefficient add nothing;
    the centre is subtracted first."""
    def units(X, coef, limit, **kw):
        return kernels.secure_row_units(np.array(X, dtype=float), np.array(coef, dtype=float), 1.0, limit,
                                        backend=backend, **kw).tolist()

    assert units([[3.0]], [1.0], 3) == [0, 0]
    assert units([[3.0]], [1.0], 4) == [3, 1]
    assert units([[3.0], [np.nan], [7.0]], [1.0, 1.0, 0.0], 4) == [3, 1]
    assert units([[5.0, 1.0]], [1.0], 4, center=[2.0, 1.0]) == [3, 0, 1]
    # −2·0.5 → [−1, 0] (rint(0.5) = 0, half to even) is in; 0.4·2 → [1, 2] has 5 > 4 and is out
    assert units([[-2.0], [0.4]], [0.5, 2.0], 2) == [-1, 0]


def test_secure_row_units_retry_rescues_a_row_just_outside(backend):
    """At L = 2^22 the retry's factor 1 − 2^-20 moves a coordinate of 2^22 + 2 by 4 units: the row is out at c = 1
    ((2^22 + 2)² + 1 > L²) and in at the retry, as [2^22 − 2, 1] (the loop's rows never get here)."""
    big = 2**22
    out = kernels.secure_row_units(np.array([[big + 2.0]]), np.ones(1), 1.0, big, backend=backend)
    assert out.tolist() == [big - 2, 1]


@pytest.mark.native
def test_secure_row_units_native_equals_numpy_where_rows_fail():
    """Random rows against limits from 1 (almost every row out) to 1000 (every row in): the same integer sum."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(500, 7)) * 3
    coef = rng.uniform(0.2, 2.0, 500)
    coef[::9] = 0.0
    center = rng.normal(size=7)
    for gamma in (0.25, 1.0, 4.0):
        for limit in (1, 3, 6, 10, 30, 1000):
            for mu in (None, center):
                a = kernels.secure_row_units(X, coef, gamma, limit, center=mu)
                b = kernels.secure_row_units(X, coef, gamma, limit, center=mu, backend="numpy")
                assert np.array_equal(a, b), (gamma, limit)


@pytest.mark.parametrize("gamma, limit", [(0.3, 4), (0.0, 4), (float("inf"), 4), (2.0**1022, 4), (2.0**-1022, 4),
                                          (1.0, 0), (1.0, 2**26 + 1), (1.0, 2**70)])
def test_secure_row_units_bad_grid(backend, gamma, limit):
    with pytest.raises(ValueError, match="gamma|limit"):
        kernels.secure_row_units(np.ones((1, 1)), np.ones(1), gamma, limit, backend=backend)
    with pytest.raises(TypeError, match="limit"):
        kernels.secure_row_units(np.ones((1, 1)), np.ones(1), 1.0, 4.5, backend=backend)
