"""Public spline features (preprocessing.Spline / SplineEncoder) used by the DP + fair frontier: properties of the
hat basis, the encoder's output and domain, and that nothing is read from the data."""

import warnings

import numpy as np
import pytest

from dpfair_native import preprocessing as P


def test_hat_basis_is_a_partition_of_unity_that_reproduces_linear_functions():
    knots = np.array([0.0, 1.0, 3.0, 10.0])
    x = np.array([-5.0, 0.0, 0.5, 1.0, 2.9, 7.0, 10.0, 50.0])
    B = P.hat_basis(x, knots)
    assert B.shape == (8, 4) and np.all((B >= 0) & (B <= 1))
    np.testing.assert_allclose(B.sum(axis=1), 1.0)
    assert np.all(np.count_nonzero(B, axis=1) <= 2)
    np.testing.assert_allclose(B @ knots, np.clip(x, 0.0, 10.0))  # Σ_j c_j B_j(x) = clip(x)
    np.testing.assert_allclose(P.hat_basis([1.0], knots), [[0.0, 1.0, 0.0, 0.0]])


@pytest.mark.parametrize("knots", [[1.0], [0.0, 0.0, 1.0], [2.0, 1.0], [0.0, np.inf]])
def test_bad_knots_raise(knots):
    with pytest.raises(ValueError, match="knots"):
        P.Spline(knots=knots)


def test_spline_encoder_appends_hat_features_and_reads_no_data():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"age": [17, 30, 45, 90, 120], "job": ["a", "b", "a", "b", "a"]})
    schema = {"age": P.Spline(knots=(17, 30, 60, 90)), "job": P.Categorical(["a", "b"])}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no PrivacyLeakWarning: bounds come from the knots
        enc = P.SplineEncoder(schema).fit(frame)
        X = enc.transform(frame)
    base = P.DomainEncoder(schema).fit_transform(frame)
    assert X.shape == (5, base.shape[1] + 4) and enc.n_spline_features_ == 4
    np.testing.assert_array_equal(np.asarray(X)[:, : base.shape[1]], np.asarray(base))
    np.testing.assert_allclose(np.asarray(X)[:, -4:], P.hat_basis(frame["age"], [17, 30, 60, 90]))
    assert list(enc.get_feature_names_out()[-4:]) == ["age@17", "age@30", "age@60", "age@90"]
    assert X.domain is enc.domain_ and enc.domain_.one_hot_groups == base.domain.one_hot_groups
    assert enc.bounds_["age"] == (17.0, 90.0)
    # a different data set gives the same encoder: nothing was read from the rows
    other = P.SplineEncoder(schema).fit(frame.iloc[:2])
    assert list(other.get_feature_names_out()) == list(enc.get_feature_names_out())
    pytest.importorskip("scipy")
    S = P.SplineEncoder(schema, sparse_output=True).fit_transform(frame)
    np.testing.assert_allclose(S.toarray(), np.asarray(X))
    assert S.domain.names == enc.domain_.names and S.domain.one_hot_groups == enc.domain_.one_hot_groups


def test_adult_spline_schema_extends_the_bundled_matrix():
    pytest.importorskip("pandas")
    from dpfair_native.datasets import load_adult

    X = np.asarray(P.SplineEncoder(P.adult_spline_schema()).fit_transform(load_adult(as_frame=True)))
    base = load_adult().X
    np.testing.assert_allclose(X[:, : base.shape[1]], base)
    assert X.shape[1] > base.shape[1] and np.all((X >= 0) & (X <= 1))
