"""The declarative parameter constraints: the vocabulary, validate_params, and that every estimator declares every
parameter and has it checked before any data is read."""

import inspect
import math
import numbers

import numpy as np
import pytest

from dpfair_native import embedding, models
from dpfair_native._validation import (
    Interval,
    InvalidParameterError,
    Options,
    StrOptions,
    check_int,
    validate_params,
)
from dpfair_native.tuning import PrivateHyperparameterSearch

Real, Integral = numbers.Real, numbers.Integral

NOT_YET = {"DPClassifierBase"}
ESTIMATORS = sorted(
    [getattr(models, n) for n in models.__all__ if inspect.isclass(getattr(models, n)) and n not in NOT_YET
     and hasattr(getattr(models, n), "fit")]
    + [embedding.DPNE, embedding.DPMatrixBaseline, embedding.SVDEmbedding, PrivateHyperparameterSearch],
    key=lambda c: c.__name__,
)


@pytest.mark.parametrize(
    "interval,inside,outside",
    [
        (Interval(Real, 0, None, closed="left"), [0, 0.5, 3, np.float32(2)], [-1e-9, math.inf, math.nan, True, "1"]),
        (Interval(Real, 0, math.inf, closed="right"), [1e-9, 7, math.inf], [0, -1, math.nan, False]),
        (Interval(Real, 0, 1, closed="neither"), [1e-12, 0.5, 1 - 1e-12], [0, 1, 2, math.nan]),
        (Interval(Integral, 1, None, closed="left"), [1, np.int64(5), 10**12], [0, 1.0, 2.5, True, -3]),
    ],
)
def test_interval_membership(interval, inside, outside):
    assert all(interval.is_satisfied_by(v) for v in inside)
    assert not any(interval.is_satisfied_by(v) for v in outside)


def test_options_and_words():
    assert StrOptions({"a", "b"}).is_satisfied_by("a") and not StrOptions({"a"}).is_satisfied_by(["a"])
    assert Options(Real, {0}).is_satisfied_by(0.0) and not Options(Real, {0}).is_satisfied_by("0")
    assert str(Interval(Integral, 1, None, closed="left")) == "be a positive integer"
    assert str(Interval(Real, 0, 1, closed="right")) == "lie in (0, 1]"
    assert str(Interval(Real, 0, math.inf, closed="right")) == "be a finite number > 0 or inf"


class _Toy:
    _parameter_constraints = {"rate": [Interval(Real, 0, 1, closed="right"), None], "mode": [StrOptions({"x"})],
                              "flag": ["boolean"], "seed": ["random_state"]}

    def __init__(self, rate=0.5, mode="x", flag=False, seed=None):
        self.rate, self.mode, self.flag, self.seed = rate, mode, flag, seed


def test_validate_params_message_names_value_allowed_forms_and_default():
    validate_params(_Toy())
    with pytest.raises(InvalidParameterError) as info:
        validate_params(_Toy(rate=2.0))
    msg = str(info.value)
    assert "rate must lie in (0, 1], or be None, got 2.0 (_Toy)" in msg and "default rate=0.5" in msg
    assert isinstance(info.value, ValueError) and isinstance(info.value, TypeError)
    for bad in (dict(mode="y"), dict(flag=1), dict(seed=-1), dict(seed="s")):
        with pytest.raises(InvalidParameterError):
            validate_params(_Toy(**bad))


def test_a_table_naming_a_non_parameter_is_a_declaration_bug():
    class Bad(_Toy):
        _parameter_constraints = {**_Toy._parameter_constraints, "nope": [None]}

    with pytest.raises(RuntimeError, match="not a parameter"):
        validate_params(Bad())


def test_check_int():
    assert check_int(np.int64(3), "k") == 3
    for bad in (0, 2.0, True, "3"):
        with pytest.raises(InvalidParameterError, match="k must be a positive integer"):
            check_int(bad, "k")


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_every_estimator_declares_exactly_its_parameters(cls):
    params = {p for p in inspect.signature(cls.__init__).parameters if p != "self"}
    assert set(cls._parameter_constraints) == params


@pytest.mark.parametrize("cls", [c for c in ESTIMATORS if issubclass(c, models._base.DPClassifierBase)],
                         ids=lambda c: c.__name__)
def test_bad_parameters_are_refused_before_the_data_is_read(cls):
    """X is not even an array: the parameter error must come first (the data are never touched)."""
    est = cls()
    name = next(n for n, allowed in cls._parameter_constraints.items() if "random_state" in allowed)
    est.set_params(**{name: -5})
    with pytest.raises(InvalidParameterError, match=f"{name} must"):
        est.fit(object(), None)


@pytest.mark.parametrize("labels", [(0.0, 1.0), (-3.0, 7.0), (2.0**60, -(2.0**60)), (1e300, 0.0)])
def test_float_labels_give_the_classes_and_codes_np_unique_gives(labels):
    """Integral float labels are counted, not sorted (a fast path); huge ones take np.unique."""
    from dpfair_native._validation import check_binary_labels

    y = np.array(labels)[np.random.default_rng(0).integers(0, 2, size=500)]
    classes, y01 = check_binary_labels(y, 500)
    want, codes = np.unique(y, return_inverse=True)
    assert classes.dtype == y.dtype and np.array_equal(classes, want)
    assert np.array_equal(y01, codes.astype(np.float64))


@pytest.mark.parametrize("s_dtype", [np.int64, np.int8, np.uint16, bool])
def test_integer_group_codes_follow_the_declared_list(s_dtype):
    from dpfair_native._validation import check_sensitive_features

    s = np.random.default_rng(0).integers(0, 2, size=300).astype(s_dtype)
    labels, codes = check_sensitive_features(s, 300, groups=[1, 0, 5])
    assert np.array_equal(codes, np.where(s.astype(int) == 1, 0, 1)) and codes.dtype == np.int64
    with pytest.raises(ValueError, match="not in the declared groups"):
        check_sensitive_features(s, 300, groups=[1, 5])


def test_uint64_labels_and_groups_beyond_int64_keep_their_codes():
    """The counting fast paths work on int64 offsets: uint64 values >= 2^63 take the sorting path (they raised
    OverflowError in the group lookup and wrapped around in the label count)."""
    for big in (np.array([2**63, 2**64 - 1], dtype=np.uint64), np.array([2**63, 2**63 + 1], dtype=np.uint64)):
        _check_uint64_codes(big)


def _check_uint64_codes(big):
    from dpfair_native._validation import check_binary_labels, check_sensitive_features

    v = big[np.random.default_rng(0).integers(0, 2, size=50)]
    labels, codes = check_sensitive_features(v, 50, groups=big)
    assert np.array_equal(codes, (v == big[1]).astype(np.int64))
    labels, codes = check_sensitive_features(v, 50)
    assert np.array_equal(labels, big) and np.array_equal(codes, (v == big[1]).astype(np.int64))
    classes, y01 = check_binary_labels(v, 50)
    assert np.array_equal(classes, big) and np.array_equal(y01, (v == big[1]).astype(np.float64))
