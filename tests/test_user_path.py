"""The declared domain stays with the data along a user's path (pickling, splitting, NumPy operations) or is dropped
rather than paired with the wrong columns; a fit that has to assume [0, 1]^d says so; a DataFrame whose columns do
not match the domain's declared names is refused (its bounds apply by position). Found by a review of the user path.
"""

import pickle
import warnings

import numpy as np
import pytest

from dpfair_native import datasets
from dpfair_native.domain import AssumedDomainWarning, FeatureDomain
from dpfair_native.models import FairFunctionalMechanismLR, FunctionalMechanismLR
from dpfair_native.preprocessing import Categorical, DomainEncoder, EncodedArray

pd = pytest.importorskip("pandas")


@pytest.fixture(scope="module")
def adult():
    frame = datasets.load_adult(as_frame=True).head(4000)
    X = DomainEncoder(datasets.adult_schema()).fit_transform(frame)
    y = (frame["income"] == ">50K").to_numpy().astype(int)
    s = frame["sex"].to_numpy()
    return frame, X, y, s


def _fit(X, y, s):
    return FairFunctionalMechanismLR(declared_groups=["Female", "Male"], random_state=0).fit(
        X, y, sensitive_features=s)


def test_pickled_encoded_array_keeps_its_domain(adult):
    """joblib sends data to worker processes by pickling (cross_val_score(n_jobs=2)): the fit must not fall back to
    [0, 1]^d there."""
    _, X, y, s = adult
    copy = pickle.loads(pickle.dumps(X))
    assert isinstance(copy, EncodedArray) and copy.domain is not None and copy.domain.names == X.domain.names
    np.testing.assert_array_equal(_fit(copy, y, s).coef_, _fit(X, y, s).coef_)


def test_numpy_operations_drop_the_domain(adult):
    _, X, _, _ = adult
    perm = np.arange(X.shape[1])[::-1]
    for out in (np.take(X, perm, axis=1), X.take(perm, axis=1), np.roll(X, 1, axis=1), np.delete(X, 0, axis=1),
                X * 2.0, X - 0.5, X.T):
        assert getattr(out, "domain", None) is None
    inplace = X.copy()
    assert inplace.domain is not None
    inplace *= 2.0
    assert isinstance(inplace, EncodedArray) and inplace.domain is None
    assert X.domain is not None  # the input keeps its own
    assert X[:10].domain is X.domain and X[:, :5].domain.d == 5


@pytest.mark.parametrize("sparse_output", [False, True])
def test_train_test_split_keeps_the_domain(adult, sparse_output):
    frame, _, y, s = adult
    X = DomainEncoder(datasets.adult_schema(), sparse_output=sparse_output).fit_transform(frame)
    X_train, X_test, y_train, y_test = datasets.train_test_split(X, y, test_size=0.25, random_state=1)
    assert X_train.shape == (3000, X.shape[1]) and X_test.shape[0] == 1000 and y_train.shape == (3000,)
    assert X_train.domain is X.domain and X_test.domain is X.domain


def test_assumed_domain_warning():
    rng = np.random.default_rng(0)
    X, y = rng.random((300, 4)), (rng.random(300) < 0.5).astype(int)
    with pytest.warns(AssumedDomainWarning, match="no domain declared"):
        FunctionalMechanismLR(random_state=0).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", AssumedDomainWarning)
        FunctionalMechanismLR(domain=FeatureDomain.unit_box(4), random_state=0).fit(X, y)
        FunctionalMechanismLR(paper_faithful=True, random_state=0).fit(X, y)  # the papers' [0, 1]^d by definition
        enc = DomainEncoder({f"c{j}": (0.0, 1.0) for j in range(4)})
        FunctionalMechanismLR(random_state=0).fit(enc.fit_transform(pd.DataFrame(X, columns=enc.schema)), y)


def test_dataframe_columns_must_match_the_domains_names():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"age": rng.uniform(17, 90, 400), "hours": rng.uniform(0, 1, 400)})
    y = (df["age"] > 40).to_numpy().astype(int)
    domain = FeatureDomain([17, 0], [90, 1], names=["age", "hours"])
    FunctionalMechanismLR(domain=domain, random_state=0).fit(df, y)
    with pytest.raises(ValueError, match="column 0 is 'hours' but the domain declares 'age'"):
        FunctionalMechanismLR(domain=domain, random_state=0).fit(df[["hours", "age"]], y)
    FunctionalMechanismLR(domain=FeatureDomain([0, 17], [1, 90]), random_state=0).fit(df[["hours", "age"]], y)


def test_encoder_reads_non_string_column_names_and_maps_missing_categories():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({0: rng.uniform(0, 5, 50), 1: rng.choice(["a", "b"], 50)})  # read_csv(header=None)
    X = DomainEncoder({0: (0, 5), 1: ["a", "b"]}).fit_transform(frame)
    assert X.shape == (50, 3) and X.domain.names == ("0", "1=a", "1=b")
    # a missing category is an unknown one: zeros by default, an error naming it only when asked for
    np.testing.assert_array_equal(
        DomainEncoder({"c": ["a", "b"]}).fit_transform(pd.DataFrame({"c": ["a", None, "b"]})), [[1, 0], [0, 0], [0, 1]])
    with pytest.raises(ValueError, match="missing ones included"):
        DomainEncoder({"c": Categorical(["a", "b"], unknown="error")}).fit_transform(pd.DataFrame({"c": ["a", None]}))


def test_group_declaration_errors_say_what_is_wrong():
    rng = np.random.default_rng(0)
    X, y = rng.random((200, 3)), (rng.random(200) < 0.5).astype(int)
    s = np.where(rng.random(200) < 0.5, "a", "b").astype(object)
    with pytest.raises(ValueError, match="declared groups"):
        FairFunctionalMechanismLR(declared_groups=[0, 1]).fit(X, y, sensitive_features=s)
    with pytest.raises(ValueError, match=r"declared_groups has 3: \['a', 'b', 'c'\]"):
        FairFunctionalMechanismLR(declared_groups=["a", "b", "c"]).fit(X, y, sensitive_features=s)


def test_clear_errors_for_ragged_columns_and_nullable_missing_values():
    with pytest.raises(ValueError, match="different lengths"):
        DomainEncoder({"a": (0, 1), "b": ["x", "y"]}).fit_transform({"a": [0.1, 0.2], "b": ["x"]})
    frame = pd.DataFrame({"a": pd.array([1, None, 3, 4], dtype="Int64"), "b": [0.1, 0.2, 0.3, 0.4]})
    with pytest.raises(ValueError, match="missing values"):
        FunctionalMechanismLR(domain=FeatureDomain.unit_box(2)).fit(frame, [0, 1, 0, 1])


def test_encoded_array_corner_cases():
    """Pickles written before the domain was kept still load (domain None); a multi-output ufunc with a partial
    out= returns every output; reductions are plain scalars."""
    X = DomainEncoder({"a": (0.0, 1.0), "b": ["x", "y"]}).fit_transform(
        pd.DataFrame({"a": [0.2, 0.7, 0.4], "b": ["x", "y", "y"]}))
    old_state = X.view(np.ndarray).__reduce__()[2]  # ndarray's own 5-tuple, as the previous version pickled it
    legacy = EncodedArray.__new__(EncodedArray, (0,))
    legacy.__setstate__(old_state)
    np.testing.assert_array_equal(legacy, X)
    assert legacy.domain is None
    buf = np.empty(X.shape)
    frac, whole = np.modf(X, out=(buf, None))
    assert frac is buf and isinstance(whole, np.ndarray) and whole.shape == X.shape
    out = X.copy()
    quotient, remainder = np.divmod(X, 0.3, out=(None, out))
    assert remainder is out and out.domain is None and quotient.shape == X.shape
    assert isinstance(X.sum(), float)


@pytest.mark.parametrize("labels", [np.array(["no", "yes"]), np.array([-1, 1]), np.array([1, 2])])
def test_private_fits_warn_when_the_class_labels_are_read_from_y(labels):
    """Labels other than 0/1 or bool are y's distinct values, released without protection as classes_ (the group
    labels have warned so since session 9; the labels did not). 0/1 and bool labels have public classes, and a
    non-private fit releases everything anyway: neither warns."""
    from dpfair_native.models import DPSGDClassifier, LogisticRegression
    from dpfair_native.preprocessing import PrivacyLeakWarning

    rng = np.random.default_rng(0)
    X = rng.uniform(size=(300, 3))
    positive = X[:, 0] > 0.5
    domain = FeatureDomain(np.zeros(3), np.ones(3))
    with pytest.warns(PrivacyLeakWarning, match=r"the class labels .* were read from y"):
        FunctionalMechanismLR(epsilon=1.0, domain=domain, random_state=0).fit(X, labels[positive.astype(int)])
    with pytest.warns(PrivacyLeakWarning, match="class labels"):
        DPSGDClassifier(target_epsilon=1.0, random_state=0, epochs=1).fit(X, labels[positive.astype(int)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for y in (positive, positive.astype(int), positive.astype(float)):
            FunctionalMechanismLR(epsilon=1.0, domain=domain, random_state=0).fit(X, y)
        LogisticRegression().fit(X, labels[positive.astype(int)])
