"""Bad input gets a clear ValueError/TypeError naming the argument; inputs are never modified; a failed fit leaves
no attribute from the failed fit (the object keeps exactly the attributes of its last successful fit)."""

import numpy as np
import pytest

from dpfair_native import accountants, kernels, metrics


# ---------------------------------------------------------------------------------------------------------------
# estimators: every estimator class that dpfair_native.models exports
def _model_classes():
    import dpfair_native.models as pkg

    return {
        name: cls
        for name, cls in ((name, getattr(pkg, name)) for name in pkg.__all__)
        if isinstance(cls, type) and issubclass(cls, pkg.DPClassifierBase) and cls is not pkg.DPClassifierBase
    }


MODELS = _model_classes()
FAST = {  # small, quick settings for each estimator
    "LogisticRegression": {},
    "FairLogisticRegression": {"tau": 0.1},
    "FunctionalMechanismLR": {"epsilon": 1.0},
    "FairFunctionalMechanismLR": {"epsilon": 1.0},
    "PFLR": {"epsilon": 1.0},
    "PFLRStar": {"epsilon": 1.0},
    "PDFC": {"attribute": 0},
    "ADFC": {"attribute": 0},
    "DPSGDClassifier": {"batch_size": 10, "epochs": 1},
    "DPSGDFClassifier": {"batch_size": 10, "epochs": 1},
    "NaiveReweightedDPSGDClassifier": {"batch_size": 10, "epochs": 1},
    "ExponentialMechanismFairLearner": {"min_group_positives": 1, "n_candidates": 20},
    "FairDPClassifier": {"epochs": 1},
    "ConstrainedDPSGDClassifier": {"batch_size": 10, "epochs": 1},
}
ESTIMATORS = sorted(FAST)


def test_catalogue_covers_every_exported_estimator():
    assert sorted(MODELS) == ESTIMATORS


def make(name, **params):
    return MODELS[name](**{**FAST[name], "random_state": 0, **params})


def data(n=80, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    s = np.arange(n) % 2
    y = ((X[:, 0] + 0.3 * s + 0.2 * rng.random(n)) > 0.7).astype(np.int64)
    return X, y, s


def fit(est, X, y, s):
    return est.fit(X, y, sensitive_features=s)


def with_value(X, i, j, value):
    X = X.copy()
    X[i, j] = value
    return X


X0, Y0, S0 = data()
BAD_FIT = [  # (id, X, y, s, exception, message)
    ("nan_in_X", with_value(X0, 3, 1, np.nan), Y0, S0, ValueError, "X contains NaN or infinity"),
    ("huge_in_X", with_value(X0, 3, 1, -1e160), Y0, S0, ValueError, "whose squares overflow"),  # failed mid-fit
    ("huge_in_float32_X", with_value(X0, 3, 1, 3e19).astype(np.float32), Y0, S0, ValueError, "whose squares overflow"),
    ("inf_in_X", with_value(X0, 0, 0, np.inf), Y0, S0, ValueError, "X contains NaN or infinity"),
    ("neg_inf_in_X", with_value(X0, 79, 2, -np.inf), Y0, S0, ValueError, "X contains NaN or infinity"),
    ("y_three_classes", X0, np.arange(80) % 3, S0, ValueError, "Only binary classification is supported"),
    # (0/1 labels of one class are not refused by a private fit: test_neighbouring)
    ("y_single_class", X0, np.full(80, 7), S0, ValueError, "y has 1 class"),
    ("y_continuous", X0, np.linspace(0, 1, 80), S0, ValueError, "Unknown label type: continuous"),
    ("y_none", X0, None, S0, ValueError, "requires y to be passed, but the target y is None"),
    ("y_nan", X0, np.where(Y0 == 1, 1.0, np.nan), S0, ValueError, "y contains NaN"),
    ("y_wrong_length", X0, Y0[:-1], S0, ValueError, "y must be 1-D with one label per row of X"),
    ("sensitive_wrong_length", X0, Y0, S0[:-2], ValueError, "sensitive_features must be 1-D with one value per row"),
    ("sensitive_nan", X0, Y0, np.where(S0 == 1, 1.0, np.nan), ValueError, "sensitive_features contains NaN"),
    ("y_object_none", X0, np.array(["yes" if v else None for v in Y0], dtype=object), S0, ValueError,
     "y contains missing values"),
    ("sensitive_object_nan", X0, Y0, np.array(["f" if v else np.nan for v in S0], dtype=object), ValueError,
     "sensitive_features contains missing values"),
    ("n_is_zero", np.zeros((0, 3)), Y0[:0], S0[:0], ValueError, r"Found array with 0 sample\(s\)"),
    ("d_is_zero", np.zeros((80, 0)), Y0, S0, ValueError, r"Found array with 0 feature\(s\)"),
    ("X_3d", X0.reshape(80, 3, 1), Y0, S0, ValueError, "Expected a 2-D X"),
    ("X_1d", X0[:, 0], Y0, S0, ValueError, "Reshape your data"),
    ("X_complex", X0.astype(np.complex128), Y0, S0, ValueError, "Complex data not supported"),
    ("X_str", X0.astype(str), Y0, S0, TypeError, "X must hold real numbers"),
    ("X_object", np.full((80, 3), "a", dtype=object), Y0, S0, TypeError, "X must hold real numbers"),
    ("y_mixed_types", X0, np.array([1 if v else "0" for v in Y0], dtype=object), S0, ValueError,
     "y mixes values of types that do not compare"),
    ("sensitive_mixed_types", X0, Y0, np.array([1 if v else "f" for v in S0], dtype=object), ValueError,
     "sensitive_features mixes values of types that do not compare"),
]
# bad values in sensitive_features: an estimator that does not use them checks only their length
S_VALUES = ("sensitive_nan", "sensitive_object_nan", "sensitive_mixed_types")
IGNORE_S = [name for name in ESTIMATORS if MODELS[name]._ignores_sensitive_features]


@pytest.mark.parametrize(("name", "case"), [
    pytest.param(name, case, id=f"{case[0]}-{name}") for case in BAD_FIT for name in ESTIMATORS
    if not (case[0] in S_VALUES and name in IGNORE_S)])
def test_estimator_rejects_bad_fit_input(name, case):
    _, X, y, s, exc, message = case
    with pytest.raises(exc, match=message):
        fit(make(name), X, y, s)


def test_refusal_messages_do_not_quote_the_record_value():
    """An abort is outside the guarantee, but its message need not hand over the value that caused it."""
    cases = [
        (make("FairFunctionalMechanismLR"), with_value(X0, 3, 1, -1.5e160), S0, "1.5e"),
        (make("FunctionalMechanismLR", domain_policy="raise"), with_value(X0, 7, 1, 1.2345), S0, "1.2345"),
        (make("ConstrainedDPSGDClassifier", declared_groups=[0, 1]), X0, np.where(np.arange(80) == 5, 7, S0), "7"),
    ]
    for est, X, s, value in cases:
        with pytest.raises(ValueError) as caught:
            fit(est, X, Y0, s)
        assert value not in str(caught.value), str(caught.value)
    X_text = X0.astype(object)
    X_text[5, 2] = "zq_rare"  # a string among numbers: NumPy's conversion error quoted it
    with pytest.raises(TypeError) as caught:
        fit(make("DPSGDClassifier"), X_text, Y0, S0)
    assert "zq_rare" not in str(caught.value), str(caught.value)
    for y, value in [(np.where(np.arange(80) == 5, 9, Y0), "9"), (np.full(80, 7), "7")]:  # a rare third label
        with pytest.raises(ValueError) as caught:
            fit(make("FunctionalMechanismLR"), X0, y, S0)
        assert value not in str(caught.value), str(caught.value)


@pytest.mark.parametrize("name", IGNORE_S)
@pytest.mark.parametrize("case", [c for c in BAD_FIT if c[0] in S_VALUES], ids=lambda c: c[0])
def test_values_of_unused_sensitive_features_cannot_abort_a_fit(name, case):
    """Their values are not used, so none may decide whether the fit runs (a data-dependent abort)."""
    _, X, y, s, _, _ = case
    assert np.array_equal(fit(make(name), X, y, s).coef_, fit(make(name), X, y, None).coef_)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_failed_fit_leaves_last_successful_fit_untouched(name):
    """Guarantee: no attribute from a failed fit. The attributes of the previous successful fit stay, unchanged."""
    est = fit(make(name), X0, Y0, S0)
    before = dict(vars(est))
    snapshot = {k: np.array(v, copy=True) for k, v in before.items() if isinstance(v, np.ndarray)}
    with pytest.raises(ValueError):
        fit(est, with_value(X0, 5, 0, np.nan), Y0, S0)  # fails in validation
    with pytest.raises(ValueError):
        fit(est, X0, np.arange(80) % 3, S0)
    assert set(vars(est)) == set(before)
    for key, value in vars(est).items():
        assert value is before[key], key
    for key, arr in snapshot.items():
        np.testing.assert_array_equal(vars(est)[key], arr)


def test_a_refit_keeps_nothing_from_the_previous_fit():
    """groups_ (and any attribute only some fits set) used to survive a refit that did not set it again."""
    from dpfair_native.models import FunctionalMechanismLR, LogisticRegression

    m = LogisticRegression().fit(X0, Y0, sensitive_features=S0)
    assert list(m.groups_) == [0, 1]
    assert not hasattr(m.fit(X0, Y0), "groups_")
    fm = FunctionalMechanismLR(epsilon=np.inf, refinement_rounds=2, random_state=0).fit(X0, Y0)
    assert fm.refinement_gradients_.shape == (2, 4)
    fm.set_params(refinement_rounds=0).fit(X0, Y0)
    assert fm.refinement_rounds_ == 0 and not hasattr(fm, "refinement_gradients_")


def test_estimators_that_ignore_sensitive_features_record_no_group_set():
    """DPSGDClassifier and FunctionalMechanismLR accept sensitive_features and do not use them, but set groups_ from
    the labels seen (a neighbour with a new label changed it: an unaccounted release)."""
    from dpfair_native.models import DPSGDClassifier, FunctionalMechanismLR

    s = np.where(np.arange(80) == 3, 7, S0)
    for cls in (DPSGDClassifier, FunctionalMechanismLR):
        assert not hasattr(cls(random_state=0).fit(X0, Y0, sensitive_features=s), "groups_")
        with pytest.raises(ValueError, match="sensitive_features must be 1-D"):
            cls(random_state=0).fit(X0, Y0, sensitive_features=s[:5])


@pytest.mark.parametrize("name", ESTIMATORS)
def test_failed_fit_on_fresh_object_sets_no_fitted_attribute(name):
    est = make(name)
    with pytest.raises(ValueError):
        fit(est, X0, np.full(80, 7), S0)
    assert [k for k in vars(est) if k.endswith("_") and not k.startswith("_")] == []


@pytest.mark.parametrize("name", ESTIMATORS)
@pytest.mark.parametrize("method", [
    "predict", "predict_proba", "decision_function",
])
def test_predict_before_fit(name, method):
    from dpfair_native.models._base import NotFittedError

    with pytest.raises(NotFittedError, match="not fitted yet; call fit"):
        getattr(make(name), method)(X0)


@pytest.mark.parametrize("name", ESTIMATORS)
@pytest.mark.parametrize("method", ["predict", "predict_proba", "decision_function"])
def test_feature_count_differs_between_fit_and_predict(name, method):
    est = fit(make(name), X0, Y0, S0)
    with pytest.raises(ValueError, match=f"X has 2 features, but {type(est).__name__} is expecting 3 features"):
        getattr(est, method)(X0[:, :2])
    with pytest.raises(ValueError, match="X contains NaN"):
        getattr(est, method)(with_value(X0, 0, 0, np.nan))


@pytest.mark.parametrize("name", ESTIMATORS)
def test_integer_and_bool_X_are_converted(name):
    Xi = (X0 > 0.5).astype(np.int64)
    ref = fit(make(name), Xi.astype(np.float64), Y0, S0)
    for X in (Xi, Xi.astype(bool), Xi.astype(np.uint8)):
        est = fit(make(name), X, Y0, S0)
        np.testing.assert_allclose(est.coef_, ref.coef_, rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(est.predict(X), ref.predict(Xi.astype(np.float64)))


@pytest.mark.parametrize("name", ESTIMATORS)
def test_read_only_inputs_pass_and_are_not_modified(name):
    X, y, s = X0.copy(), Y0.copy(), S0.copy()
    for a in (X, y, s):
        a.setflags(write=False)
    est = fit(make(name), X, y, s)
    est.predict(X)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, Y0)
    np.testing.assert_array_equal(s, S0)
    # Fortran order and float32 inputs are not modified either (and give a fit).
    Xf = np.asfortranarray(X0.astype(np.float32))
    Xf.setflags(write=False)
    fit(make(name), Xf, Y0, S0)
    np.testing.assert_array_equal(Xf, X0.astype(np.float32))


# -- privacy parameters, per estimator --------------------------------------------------------------------------
def _param_cases():
    eps_bad = [0.0, -1.0, np.nan]
    cases = []
    for name, param in [("FunctionalMechanismLR", "epsilon"), ("PFLR", "epsilon"), ("PFLRStar", "epsilon"),
                        ("FairFunctionalMechanismLR", "epsilon"), ("PDFC", "epsilon_s"), ("PDFC", "epsilon_n"),
                        ("ADFC", "epsilon_s"), ("ADFC", "epsilon_n"), ("ExponentialMechanismFairLearner", "epsilon"),
                        ("DPSGDClassifier", "target_epsilon")]:
        for v in eps_bad:
            cases.append((name, param, v, f"{param} must be a finite number > 0"))
    for name in ("ExponentialMechanismFairLearner", "DPSGDClassifier"):
        param = "epsilon" if name == "ExponentialMechanismFairLearner" else "target_epsilon"
        cases.append((name, param, np.inf, f"{param} must be a finite number > 0"))
    for name, param in [("ADFC", "delta_s"), ("ADFC", "delta_n"), ("DPSGDClassifier", "delta"),
                        ("DPSGDFClassifier", "delta"), ("FunctionalMechanismLR", "delta")]:
        for v in (0.0, -1e-5, 1.0, 1.5, np.nan):
            cases.append((name, param, v, rf"{param} must lie in \(0, 1\)"))
    for name in ("DPSGDClassifier", "DPSGDFClassifier", "NaiveReweightedDPSGDClassifier"):
        for v in (0.0, -1.0, np.nan):
            cases.append((name, "clip_norm", v, "clip_norm must be a finite number > 0"))
    return [c for c in cases if c[0] in MODELS]


@pytest.mark.parametrize("name,param,value,message", _param_cases(), ids=lambda v: str(v))
def test_privacy_parameters(name, param, value, message):
    extra = {"mechanism": "gaussian"} if (name, param) == ("FunctionalMechanismLR", "delta") else {}
    with pytest.raises(ValueError, match=message):
        fit(make(name, **{param: value, **extra}), X0, Y0, S0)


def test_declared_group_with_no_rows_non_private():
    """Two declared groups, rows of only one: the (non-private) fairness constraint cannot be formed."""
    with pytest.raises(ValueError, match="declared group 1 has no rows"):
        fit(make("FairLogisticRegression", declared_groups=[0, 1]), X0, Y0, np.zeros(80, dtype=np.int64))


@pytest.mark.parametrize("name", [n for n in ("FairFunctionalMechanismLR", "PFLR", "PFLRStar", "PDFC", "ADFC",
                                              "DPSGDFClassifier", "NaiveReweightedDPSGDClassifier") if n in MODELS])
def test_declared_group_with_no_rows_private(name):
    """Private estimators must NOT abort on an empty declared group: whether a group is empty is private, and an
    error would reveal it (DP rule 2: the group list is public, the counts are released with noise)."""
    est = fit(make(name, declared_groups=[0, 1]), X0, Y0, np.zeros(80, dtype=np.int64))
    assert np.all(np.isfinite(est.coef_)) and np.isfinite(est.privacy_spent_[0])


@pytest.mark.parametrize("name", [n for n in ("FunctionalMechanismLR", "PFLRStar", "ADFC") if n in MODELS])
def test_X_outside_domain_with_policy_raise(name):
    X = with_value(X0, 7, 1, 1.5)
    message = r"row 7, column 1 \(\w+\) is outside \[0.0, 1.0\]; scale the data or use policy=.clip."
    with pytest.raises(ValueError, match=message):
        fit(make(name, domain_policy="raise"), X, Y0, S0)
    clipped = fit(make(name, domain_policy="clip"), X, Y0, S0)  # the default policy clips (and reveals no count)
    reference = fit(make(name, domain_policy="clip"), with_value(X0, 7, 1, 1.0), Y0, S0)
    assert np.array_equal(clipped.coef_, reference.coef_)


# ---------------------------------------------------------------------------------------------------------------
# kernels
@pytest.mark.parametrize("X,exc,message", [
    (np.zeros((2, 2, 2)), ValueError, "X must be a 2-D array"),
    (np.zeros(3), ValueError, "X must be a 2-D array"),
    (np.ones((4, 2), dtype=np.complex128), TypeError, "X must have a real numeric dtype"),
    (np.array([["a", "b"]]), TypeError, "X must have a real numeric dtype"),
    (np.ones((2, 2), dtype=object), TypeError, "X must have a real numeric dtype"),
    (with_value(X0, 40, 1, np.nan), ValueError, "X contains NaN or infinity"),
    (with_value(X0, 79, 2, -np.inf), ValueError, "X contains NaN or infinity"),
], ids=["3d", "1d", "complex", "str", "object", "nan", "neg_inf"])
def test_poly2_rejects_bad_X(backend, X, exc, message):
    with pytest.raises(exc, match=message):
        kernels.poly2_coefficients(X, 0.5, 0.125, backend=backend)


def test_poly2_rejects_bad_weights_and_groups(backend):
    with pytest.raises(ValueError, match="a contains NaN"):
        kernels.poly2_coefficients(X0, np.nan, 0.125, backend=backend)
    with pytest.raises(ValueError, match=r"c must have shape \(80,\)"):
        kernels.poly2_coefficients(X0, 0.5, np.ones(79), backend=backend)
    with pytest.raises(ValueError, match="groups must be non-negative"):
        kernels.poly2_coefficients(X0, 0.5, 0.125, groups=-np.ones(80, int), backend=backend)
    with pytest.raises(TypeError, match="groups must be an integer array"):
        kernels.poly2_coefficients(X0, 0.5, 0.125, groups=np.zeros(80), backend=backend)
    with pytest.raises(ValueError, match="pass n_groups >= 2"):
        kernels.poly2_coefficients(X0, 0.5, 0.125, groups=S0, n_groups=1, backend=backend)
    with pytest.raises(ValueError, match="n_threads must be a positive integer"):
        kernels.poly2_coefficients(X0, 0.5, 0.125, n_threads=0, backend=backend)


def test_poly2_integer_and_bool_X_are_converted(backend):
    Xi = (X0 > 0.5).astype(np.int32)
    ref = kernels.poly2_coefficients(Xi.astype(np.float64), Y0 - 0.5, 0.125, backend=backend)
    for X in (Xi, Xi.astype(bool)):
        out = kernels.poly2_coefficients(X, Y0 - 0.5, 0.125, backend=backend)
        for a, b in zip(out, ref):
            np.testing.assert_allclose(a, b, rtol=1e-14)


def test_poly2_d_too_large_for_Q_is_a_clear_error(backend):
    X = np.broadcast_to(np.zeros(1), (2, 2**24))  # Q would need 2 PiB; X itself is a view on 8 bytes
    with pytest.raises(ValueError, match="X has 16777216 features"):
        kernels.poly2_coefficients(X, 0.5, 0.125, backend=backend, n_threads=1)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("layout", ["C", "F", "strided", "1-D"])
def test_values_within_native_equals_numpy(dtype, layout):
    """The one-pass input check (kernels.values_within) and its NumPy twin agree on clean arrays and on each kind of
    bad value, wherever in the array it sits (first, middle, last: the native kernel splits the array in blocks and
    threads); bounds are inclusive, NaN and infinity always fail."""
    base = np.random.default_rng(0).uniform(-1.0, 1.0, size=(700, 3001)).astype(dtype)  # 2.1 M values: 2 threads

    def view(a):
        return {"C": a, "F": np.asfortranarray(a), "strided": a[:, ::2], "1-D": a.ravel()}[layout]

    clean = view(base)
    assert clean.flags.c_contiguous or clean.flags.f_contiguous or layout == "strided"
    for backend in ("native", "numpy"):
        assert kernels.values_within(clean, -1.0, 1.0, backend=backend)
        assert not kernels.values_within(clean, -0.5, 0.5, backend=backend)
        assert not kernels.values_within(clean, -1.0, 0.5, backend=backend)
        for bad, (lower, upper), expected in [(np.nan, (-1e18, 1e18), False), (-np.inf, (-1e18, 1e18), False),
                                              (np.inf, (-1e18, 1e18), False), (-2.0, (-2.0, 2.0), True),
                                              (-2.0, (-1.5, 2.0), False), (3.0, (-1.0, 3.0), True),
                                              (3.0, (-1.0, 2.5), False)]:
            for where in (0, clean.size // 2, clean.size - 1):
                a = view(base.copy())
                a[np.unravel_index(where, a.shape)] = bad
                got = kernels.values_within(a, lower, upper, backend=backend)
                assert got is expected, (backend, bad, lower, upper, where)
    with pytest.raises(TypeError, match="real numbers"):
        kernels.values_within(np.zeros(3, dtype=complex), -1.0, 1.0)


@pytest.mark.parametrize("values", [np.array([[0, 1, 0]]), np.array([[True, False, True]]),
                                    np.array([[0.0, 1.0, 0.5]], dtype=np.float16),
                                    np.array([[0.0, 1.0, 0.5]], dtype=">f8"),
                                    np.zeros((6, 8))[::2, ::3], np.zeros((0, 3))])
def test_values_within_takes_any_real_dtype_and_layout(values):
    """Other dtypes, byte orders and strided views take NumPy's min and max (FeatureDomain.contains_all is public)."""
    from dpfair_native.domain import FeatureDomain

    assert kernels.values_within(values, 0.0, 1.0)
    assert kernels.values_within(values, 0.0, 0.25) == (values.size == 0 or float(values.max()) <= 0.25)
    assert FeatureDomain.unit_box(values.shape[1]).contains_all(values)


def test_minimize_quadratic_rejects_bad_input(backend):
    mq = kernels.minimize_quadratic
    with pytest.raises(ValueError, match="Q must be a square 2-D array"):
        mq(np.eye(3)[:2], np.zeros(2), backend=backend)
    with pytest.raises(ValueError, match="Q must be a square 2-D array"):
        mq(np.zeros((2, 2, 2)), np.zeros(2), backend=backend)
    with pytest.raises(ValueError, match="Q must be symmetric"):
        mq(np.array([[1.0, 2.0], [0.0, 1.0]]), np.zeros(2), backend=backend)
    with pytest.raises(ValueError, match="Q contains NaN"):
        mq(np.array([[np.nan, 0.0], [0.0, 1.0]]), np.zeros(2), backend=backend)
    with pytest.raises(ValueError, match="b contains NaN"):
        mq(np.eye(2), np.array([0.0, np.inf]), backend=backend)
    with pytest.raises(ValueError, match=r"b must have shape \(2,\)"):
        mq(np.eye(2), np.zeros(3), backend=backend)
    with pytest.raises(ValueError, match="ridge must be a finite number >= 0"):
        mq(np.eye(2), np.zeros(2), ridge=-1.0, backend=backend)
    with pytest.raises(ValueError, match="psd must be one of"):
        mq(np.eye(2), np.zeros(2), psd="nope", backend=backend)
    with pytest.raises(ValueError, match="constraint tau must be a finite number >= 0"):
        mq(np.eye(2), np.zeros(2), constraint=(np.ones(2), -1.0), backend=backend)
    with pytest.raises(ValueError, match="constraint vector a is all zeros"):
        mq(np.eye(2), np.zeros(2), constraint=(np.zeros(2), 1.0), backend=backend)


@pytest.mark.parametrize("Q", [np.eye(2) * (1 + 1j), np.array([["1", "0"], ["0", "1"]])], ids=["complex", "str"])
def test_minimize_quadratic_rejects_non_real_Q(backend, Q):
    with pytest.raises(TypeError, match="Q must have a real numeric dtype"):
        kernels.minimize_quadratic(Q, np.zeros(2), backend=backend)


def test_minimize_quadratic_inputs_read_only_and_unchanged(backend):
    Q = np.array([[2.0, 0.5], [0.5, -1.0]])
    b = np.array([1.0, -1.0])
    Qc, bc = Q.copy(), b.copy()
    Q.setflags(write=False)
    b.setflags(write=False)
    kernels.minimize_quadratic(Q, b, psd="shift", backend=backend)
    np.testing.assert_array_equal(Q, Qc)
    np.testing.assert_array_equal(b, bc)


def _clip_args(**over):
    args = dict(X=X0, y=Y0.astype(float), w=np.zeros(3), bias=0.0, rows=np.arange(80), groups=S0,
                clip=np.array([1.0, 1.0]))
    args.update(over)
    return args


@pytest.mark.parametrize("over,exc,message", [
    ({"clip": np.array([0.0, 1.0])}, ValueError, "clip bounds must be > 0"),
    ({"clip": np.array([-1.0, 1.0])}, ValueError, "clip bounds must be > 0"),
    ({"clip": np.array([np.nan, 1.0])}, ValueError, "clip bounds must be > 0"),
    ({"clip": np.array([])}, ValueError, "clip must be a non-empty 1-D array"),
    ({"rows": np.array([80])}, ValueError, "rows must index X's 80 rows"),
    ({"rows": np.array([-1])}, ValueError, "rows must index X's 80 rows"),
    ({"rows": np.array([0.5])}, ValueError, "rows must be a 1-D integer array"),
    ({"groups": S0 + 1}, ValueError, "groups must lie in 0 .. 1"),
    ({"w": np.zeros(4)}, ValueError, r"w must have shape \(3,\)"),
    ({"w": np.array([0.0, np.nan, 0.0])}, ValueError, "w contains NaN"),
    ({"bias": np.inf}, ValueError, "bias must be finite"),
    ({"X": with_value(X0, 2, 2, np.nan)}, ValueError, "X contains NaN or infinity"),
    ({"X": X0.astype(np.complex64)}, TypeError, "X must have a real numeric dtype"),
], ids=["clip0", "clipneg", "clipnan", "clipempty", "row80", "rowneg", "rowfloat", "groups", "wlen", "wnan", "bias",
        "Xnan", "Xcomplex"])
def test_clip_group_gradients_rejects_bad_input(backend, over, exc, message):
    a = _clip_args(**over)
    with pytest.raises(exc, match=message):
        kernels.clip_group_gradients(a["X"], a["y"], a["w"], a["bias"], a["rows"], a["groups"], a["clip"],
                                     backend=backend)


def test_clip_group_gradients_rejects_nan_labels(backend):
    a = _clip_args(y=np.where(Y0 == 1, 1.0, np.nan))
    with pytest.raises(ValueError, match="y contains NaN"):
        kernels.clip_group_gradients(a["X"], a["y"], a["w"], a["bias"], a["rows"], a["groups"], a["clip"],
                                     backend=backend)


# ---------------------------------------------------------------------------------------------------------------
# mechanisms and domain
@pytest.mark.parametrize("epsilon", [0.0, -1.0, np.nan, np.inf])
def test_mechanisms_reject_bad_epsilon(epsilon):
    from dpfair_native import mechanisms
    with pytest.raises(ValueError, match="epsilon must be a finite number > 0"):
        mechanisms.laplace_mechanism(1.0, 1.0, epsilon, random_state=0)
    with pytest.raises(ValueError, match="epsilon must be a finite number > 0"):
        mechanisms.gaussian_mechanism(1.0, 1.0, epsilon, 1e-5, random_state=0)
    with pytest.raises(ValueError, match="epsilon must be a finite number > 0"):
        mechanisms.exponential_mechanism([0.0, 1.0], 1.0, epsilon, random_state=0)


@pytest.mark.parametrize("delta", [0.0, -0.1, 1.0, 2.0, np.nan])
def test_gaussian_rejects_bad_delta(delta):
    from dpfair_native import mechanisms
    with pytest.raises(ValueError, match=r"delta must lie in \(0, 1\)"):
        mechanisms.gaussian_mechanism(1.0, 1.0, 1.0, delta, random_state=0)
    with pytest.raises(ValueError, match=r"delta must lie in \(0, 1\)"):
        mechanisms.analytic_gaussian_sigma(1.0, 1.0, delta)


def test_mechanisms_reject_bad_sensitivity_and_value():
    from dpfair_native import mechanisms
    for sens in (-1.0, np.nan, np.inf):
        with pytest.raises(ValueError, match="sensitivity must be a finite number >= 0"):
            mechanisms.laplace_mechanism(1.0, sens, 1.0, random_state=0)
    with pytest.raises(ValueError, match="value contains NaN or infinity"):
        mechanisms.gaussian_mechanism(np.array([0.0, np.nan]), 1.0, 1.0, 1e-5, random_state=0)
    with pytest.raises(ValueError, match="calibration must be one of"):
        mechanisms.gaussian_mechanism(0.0, 1.0, 1.0, 1e-5, calibration="nope")
    with pytest.raises(ValueError, match="classic Gaussian calibration needs epsilon < 1"):
        mechanisms.classic_gaussian_sigma(1.0, 2.0, 1e-5)
    with pytest.raises(TypeError, match="random_state must be an int, a numpy.random.Generator or None"):
        mechanisms.laplace_mechanism(0.0, 1.0, 1.0, random_state="seed")
    with pytest.raises(ValueError, match="utilities contain NaN"):
        mechanisms.exponential_mechanism([0.0, np.nan], 1.0, 1.0)


def test_mechanism_input_is_not_modified():
    from dpfair_native import mechanisms
    v = np.arange(5.0)
    v.setflags(write=False)
    for secure in (False, True):
        mechanisms.laplace_mechanism(v, 1.0, 1.0, random_state=0, secure=secure)
        mechanisms.gaussian_mechanism(v, 1.0, 1.0, 1e-5, random_state=0, secure=secure)
    np.testing.assert_array_equal(v, np.arange(5.0))


def test_domain_policy_raise_names_the_row():
    from dpfair_native import domain
    dom = domain.FeatureDomain.unit_box(3)
    X = with_value(X0, 7, 1, 1.5)
    with pytest.raises(ValueError, match=r"row 7, column 1 .* is outside"):
        dom.project(X, policy="raise")
    with pytest.raises(ValueError, match="policy must be 'clip' or 'raise'"):
        dom.project(X0, policy="drop")
    with pytest.raises(ValueError, match="lower and upper must be finite"):
        domain.FeatureDomain([0.0, -np.inf], [1.0, 1.0])


# ---------------------------------------------------------------------------------------------------------------
# accountants and metrics
@pytest.mark.parametrize("call,message", [
    (lambda: accountants.dpsgd_epsilon(2.0, 1.0, 10, 1e-5), r"sample_rate must lie in \[0, 1\]"),
    (lambda: accountants.dpsgd_epsilon(0.1, 1.0, 10, 1.0), r"delta must lie in \(0, 1\)"),
    (lambda: accountants.dpsgd_epsilon(0.1, 0.0, 10, 1e-5), "noise_multiplier must be a finite number > 0"),
    (lambda: accountants.dpsgd_epsilon(0.1, np.nan, 10, 1e-5), "noise_multiplier must be a finite number > 0"),
    (lambda: accountants.compose_advanced(1.0, 0.0, 10, 0.0), r"delta_prime must lie in \(0, 1\)"),
    (lambda: accountants.compose_sequential([1.0, -1.0]), r"epsilons\[1\] must be a finite number > 0"),
    (lambda: accountants.rdp_to_epsilon([2.0, 3.0], [0.1, 0.2], 0.0), r"delta must lie in \(0, 1\)"),
    (lambda: accountants.noise_multiplier_for(0.0, 1e-5, 0.01, 100), "target_epsilon must be a finite number > 0"),
    (lambda: accountants.rdp_gaussian(-1.0), "noise_multiplier must be a finite number > 0"),
    (lambda: accountants.BudgetAccountant(-1.0, 0.0), "epsilon must be a finite number > 0"),
    (lambda: accountants.BudgetAccountant(np.nan, 0.0), "epsilon must be a finite number > 0"),
    (lambda: accountants.BudgetAccountant(1.0, 1e-5).spend(-0.5), "epsilon must be a finite number > 0"),
    (lambda: accountants.BudgetAccountant(1.0, 1e-5).spend(2.0), "privacy budget exceeded"),
], ids=["q>1", "delta1", "sigma0", "sigmanan", "adv_delta", "seq_neg", "rdp_delta", "nmf_eps", "rdp_sigma",
        "budget_neg", "budget_nan", "spend_neg", "spend_over"])
def test_accountants_reject_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize("call,message", [
    (lambda: metrics.demographic_parity_difference(Y0, Y0, sensitive_features=S0[:-1]),
     "sensitive_features must be 1-D with one group label per sample"),
    (lambda: metrics.demographic_parity_difference(Y0, Y0, sensitive_features=None), "sensitive_features is required"),
    (lambda: metrics.accuracy(Y0, Y0[:-1]), "y_pred has 79 entries but y_true has 80"),
    (lambda: metrics.equal_opportunity_difference(np.arange(80) % 3, Y0, sensitive_features=S0),
     "y_true must hold binary labels"),
    (lambda: metrics.roc_auc(Y0, np.full(80, np.nan)), "y_score contains NaN or infinity"),
    (lambda: metrics.roc_auc(np.ones(80), X0[:, 0]), "y_true contains only one class"),
    (lambda: metrics.accuracy([], []), "y_true is empty"),
    (lambda: metrics.accuracy(Y0[:, None], Y0[:, None]), "y_true must be 1-D"),
    (lambda: metrics.demographic_parity_difference(Y0, Y0, sensitive_features=S0, method="x"),
     "method must be 'between_groups' or 'to_overall'"),
    (lambda: metrics.cost_of_privacy(Y0, Y0, Y0[:-1], sensitive_features=S0),
     "y_pred_nonprivate has 79 entries but y_true has 80"),
], ids=["sf_len", "sf_none", "pred_len", "nonbinary", "score_nan", "one_class", "empty", "2d", "method", "cop_len"])
def test_metrics_reject_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_metrics_do_not_modify_inputs():
    y, p, s = Y0.copy(), (X0[:, 0] > 0.5).astype(int), S0.copy()
    for a in (y, p, s):
        a.setflags(write=False)
    metrics.equalized_odds_difference(y, p, sensitive_features=s)
    metrics.roc_auc(y, X0[:, 0])
    np.testing.assert_array_equal(y, Y0)
    np.testing.assert_array_equal(s, S0)


@pytest.mark.parametrize(("sensitive", "message"), [
    ("sex", r"got shape \(\); pass the column's values \(e\.g\. X\.pop\('sex'\)\), not its name"),
    (np.zeros((40, 2)), r"got shape \(40, 2\); to use several columns, combine them into one label per row"),
])
def test_a_column_name_or_several_columns_as_sensitive_features_say_what_to_pass(sensitive, message):
    X = np.random.default_rng(0).uniform(size=(40, 3))
    y = np.arange(40) % 2
    with pytest.raises(ValueError, match=message):
        MODELS["FairFunctionalMechanismLR"](epsilon=1.0).fit(X, y, sensitive_features=sensitive)


def test_a_metric_called_positionally_names_itself_and_its_keywords():
    y = np.array([0, 1, 1, 0])
    with pytest.raises(TypeError, match=r"demographic_parity_difference\(\): too many positional arguments; pass "
                                        r"sensitive_features, .* by keyword"):
        metrics.demographic_parity_difference(y, y, y)
