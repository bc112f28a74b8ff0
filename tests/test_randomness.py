"""random_state semantics (None = OS entropy, int = reproducible, Generator = consumed) and the secure sampling path."""

import importlib
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from dpfair_native import mechanisms
from dpfair_native._validation import check_random_state


def _estimators():
    out = []
    for module, name, params in [
        ("functional", "FunctionalMechanismLR", {"epsilon": 1.0}),
        ("functional", "PFLRStar", {"epsilon": 1.0}),
        ("ding", "ADFC", {"attribute": "random"}),
        ("dpsgd", "DPSGDClassifier", {"batch_size": 10, "epochs": 1}),
        ("exponential", "ExponentialMechanismFairLearner", {"min_group_positives": 1, "n_candidates": 50}),
    ]:
        try:
            cls = getattr(importlib.import_module(f"dpfair_native.models.{module}"), name)
        except (ImportError, AttributeError):
            continue
        out.append(pytest.param(cls, params, id=name))
    return out


ESTIMATORS = _estimators()
RNG = np.random.default_rng(0)
X = RNG.random((120, 3))
S = np.arange(120) % 2
Y = (X[:, 0] + 0.2 * S > 0.6).astype(int)


def _signature(est):
    return np.append(est.coef_, est.intercept_)


@pytest.mark.parametrize("cls,params", ESTIMATORS)
def test_none_draws_fresh_entropy(cls, params):
    a = cls(**params, random_state=None).fit(X, Y, sensitive_features=S)
    b = cls(**params, random_state=None).fit(X, Y, sensitive_features=S)
    if cls.__name__ == "ExponentialMechanismFairLearner":  # discrete output: compare the random candidate sets
        assert not np.array_equal(a.candidates_, b.candidates_)
    else:
        assert not np.array_equal(_signature(a), _signature(b))


@pytest.mark.parametrize("cls,params", ESTIMATORS)
def test_int_seed_reproduces_and_different_seeds_differ(cls, params):
    a = cls(**params, random_state=11).fit(X, Y, sensitive_features=S)
    b = cls(**params, random_state=11).fit(X, Y, sensitive_features=S)
    np.testing.assert_array_equal(_signature(a), _signature(b))
    c = cls(**params, random_state=12).fit(X, Y, sensitive_features=S)
    if cls.__name__ != "ExponentialMechanismFairLearner":
        assert not np.array_equal(_signature(a), _signature(c))


@pytest.mark.parametrize("cls,params", ESTIMATORS)
def test_generator_is_consumed(cls, params):
    g = np.random.default_rng(5)
    state = g.bit_generator.state
    est = cls(**params, random_state=g)
    first = _signature(est.fit(X, Y, sensitive_features=S))
    assert g.bit_generator.state != state  # the caller's Generator advanced
    second = _signature(est.fit(X, Y, sensitive_features=S))
    if cls.__name__ != "ExponentialMechanismFairLearner":
        assert not np.array_equal(first, second)  # a refit draws new noise
    # ... and the whole sequence is reproducible from the Generator's seed
    g2 = np.random.default_rng(5)
    est2 = cls(**params, random_state=g2)
    np.testing.assert_array_equal(_signature(est2.fit(X, Y, sensitive_features=S)), first)
    np.testing.assert_array_equal(_signature(est2.fit(X, Y, sensitive_features=S)), second)


def test_check_random_state_contract():
    g = np.random.default_rng(0)
    assert check_random_state(g) is g
    assert check_random_state(3).integers(1 << 62) == np.random.default_rng(3).integers(1 << 62)
    assert check_random_state(None).integers(1 << 62) != check_random_state(None).integers(1 << 62)
    with pytest.raises(TypeError, match="random_state must be an int"):
        check_random_state(np.random.RandomState(0))
    with pytest.raises(ValueError, match="non-negative"):
        check_random_state(-1)


# -- the secure path ------------------------------------------------------------------------------------------
def _grid(sens, m, l2=False):
    """The grid width the secure path must use: the largest power of two <= Δ/(1024·m) (or Δ/(1024·√m))."""
    target = sens / (1024.0 * (math.sqrt(m) if l2 else m))
    return 2.0 ** math.floor(math.log2(target))


@pytest.mark.parametrize("which", ["laplace", "gaussian"])
def test_secure_outputs_lie_on_the_grid(which):
    m = 64
    value = np.linspace(-3.3, 7.1, m)
    if which == "laplace":
        out = mechanisms.laplace_mechanism(value, 0.7, 1.0, random_state=0, secure=True)
    else:
        out = mechanisms.gaussian_mechanism(value, 0.7, 1.0, 1e-5, random_state=0, secure=True)
    gran = _grid(0.7, m, l2=which == "gaussian")
    units = out / gran
    np.testing.assert_array_equal(units, np.round(units))  # every output is an exact multiple of 2^k
    assert not np.array_equal(out, np.round(value / gran) * gran)  # and noise was added
    again = (mechanisms.laplace_mechanism(value, 0.7, 1.0, random_state=0, secure=True) if which == "laplace"
             else mechanisms.gaussian_mechanism(value, 0.7, 1.0, 1e-5, random_state=0, secure=True))
    np.testing.assert_array_equal(out, again)  # reproducible from an int seed


def test_secure_laplace_distribution():
    """Fine grid: the output is Laplace with scale (Δ + 2^k·m)/ε (KS test), centred on the value."""
    m, sens, eps = 4000, 1.0, 0.5
    out = mechanisms.laplace_mechanism(np.full(m, 2.0), sens, eps, random_state=1, secure=True)
    scale = (sens + _grid(sens, m) * m) / eps
    assert stats.kstest(out, stats.laplace(loc=2.0, scale=scale).cdf).pvalue > 1e-3


def test_secure_gaussian_distribution():
    m, sens, eps, delta = 4000, 1.0, 1.0, 1e-5
    out = mechanisms.gaussian_mechanism(np.zeros(m), sens, eps, delta, random_state=2, secure=True)
    sigma = mechanisms.secure_gaussian_sigma(sens + _grid(sens, m, l2=True) * math.sqrt(m), eps, delta)
    assert sigma >= mechanisms.analytic_gaussian_sigma(sens, eps, delta)  # never less noise than the float path
    assert stats.kstest(out, stats.norm(scale=sigma).cdf).pvalue > 1e-3


def _chi_square_pvalue(samples, pmf, support):
    samples = np.asarray(samples)
    observed = np.array([np.sum(samples == k) for k in support] + [np.sum(~np.isin(samples, support))])
    expected_p = np.array([pmf(k) for k in support])
    expected_p = np.append(expected_p, max(0.0, 1.0 - expected_p.sum()))
    return stats.chisquare(observed, expected_p * samples.size).pvalue


def test_discrete_laplace_sampler_law():
    scale = Fraction(3, 2)
    rng = np.random.default_rng(3)
    z = [mechanisms.sample_discrete_laplace(scale, rng) for _ in range(15000)]
    t = math.exp(-1 / float(scale))
    pmf = lambda k: (1 - t) / (1 + t) * t ** abs(k)  # noqa: E731
    assert _chi_square_pvalue(z, pmf, range(-8, 9)) > 1e-3


def test_discrete_gaussian_sampler_law():
    sigma2 = Fraction(2)
    rng = np.random.default_rng(5)
    z = [mechanisms.sample_discrete_gaussian(sigma2, rng) for _ in range(10000)]
    ks = np.arange(-60, 61)
    norm = np.sum(np.exp(-(ks**2) / (2 * float(sigma2))))
    pmf = lambda k: math.exp(-(k**2) / (2 * float(sigma2))) / norm  # noqa: E731
    assert _chi_square_pvalue(z, pmf, range(-4, 5)) > 1e-3


def test_default_path_is_the_float_sampler():
    """secure=False is the default: same draws as NumPy's Laplace/normal samplers with the same Generator."""
    out = mechanisms.laplace_mechanism(np.zeros(5), 1.0, 2.0, random_state=9)
    np.testing.assert_array_equal(out, np.random.default_rng(9).laplace(0.0, 0.5, size=5))
    sigma = mechanisms.analytic_gaussian_sigma(1.0, 1.0, 1e-5)
    out = mechanisms.gaussian_mechanism(np.zeros(5), 1.0, 1.0, 1e-5, random_state=9)
    np.testing.assert_array_equal(out, np.random.default_rng(9).normal(0.0, sigma, size=5))
