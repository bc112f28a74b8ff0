"""DomainEncoder: declared schema in, [0, 1] features and their exact FeatureDomain out; nothing read from data."""

import numpy as np
import pytest

from dpfair_native.datasets import adult_schema, load_adult
from dpfair_native.domain import FeatureDomain
from dpfair_native.models import FairFunctionalMechanismLR, FunctionalMechanismLR, NotFittedError
from dpfair_native.preprocessing import Binary, Categorical, DomainEncoder, EncodedArray, Numeric, PrivacyLeakWarning

pd = pytest.importorskip("pandas")


@pytest.fixture(scope="module")
def adult():
    frame = load_adult(as_frame=True)
    return frame.drop(columns=["sex", "income"]), frame["income"].eq(">50K").to_numpy(), frame["sex"], load_adult()


def _frame():
    return pd.DataFrame({
        "age": [20, 35, 150, 17],
        "job": ["a", "b", "c", "a"],
        "member": ["yes", "no", "yes", "no"],
        "ignored": [1, 2, 3, 4],
    })


SCHEMA = {"age": Numeric(18, 90), "job": Categorical(["a", "b"], unknown="other"), "member": Binary("yes", "no")}


def test_raw_adult_frame_encodes_to_the_bundled_matrix(adult):
    X_raw, y, s, ds = adult
    enc = DomainEncoder(adult_schema())
    X = enc.fit_transform(X_raw)
    assert isinstance(X, EncodedArray) and np.array_equal(X, ds.X)
    assert list(enc.get_feature_names_out()) == list(ds.feature_names)
    expected = FeatureDomain.from_dataset(ds)
    assert enc.domain_.one_hot_groups == expected.one_hot_groups
    assert np.array_equal(enc.domain_.lower, expected.lower) and np.array_equal(enc.domain_.upper, expected.upper)
    assert np.array_equal(load_adult(as_frame=True)["income"].eq(">50K").to_numpy(), ds.y)
    sparse = DomainEncoder(adult_schema(), sparse_output=True).fit_transform(X_raw)
    assert sparse.format == "csr" and np.array_equal(sparse.toarray(), ds.X)
    assert sparse.domain.one_hot_groups == expected.one_hot_groups


def test_a_pipeline_hands_the_declared_domain_to_the_estimator(adult):
    make_pipeline = pytest.importorskip("sklearn.pipeline").make_pipeline
    X_raw, y, s, ds = adult
    pipe = make_pipeline(DomainEncoder(adult_schema()), FairFunctionalMechanismLR(epsilon=1.0, random_state=3))
    pipe.fit(X_raw, y, fairfunctionalmechanismlr__sensitive_features=s)
    by_hand = FairFunctionalMechanismLR(epsilon=1.0, random_state=3, domain=FeatureDomain.from_dataset(ds))
    by_hand.fit(ds.X, y, sensitive_features=s)
    assert np.array_equal(pipe[-1].coef_, by_hand.coef_)
    # without the carried domain the estimator would have assumed [0, 1]^d (no one-hot groups): a different release
    plain = FairFunctionalMechanismLR(epsilon=1.0, random_state=3).fit(np.asarray(ds.X), y, sensitive_features=s)
    assert not np.array_equal(plain.coef_, by_hand.coef_)
    assert pipe.score(X_raw, y) > 0.78


def test_indexing_keeps_the_domain_of_the_columns_it_keeps(adult):
    """X[:, :10] kept the 45-column domain (fits failed: "domain has 45 columns"); X[:, ::-1] kept it silently
    with the one-hot groups on the wrong columns."""
    X_raw, y, s, ds = adult
    X = DomainEncoder(adult_schema()).fit_transform(X_raw)
    full = X.domain
    assert X[:100].domain is full and X[np.arange(5), :].domain is full and X[..., :].domain is full
    for cols in (slice(0, 10), slice(None, None, -1), [3, 7, 8, 9, 0], np.arange(45) % 2 == 0):
        part = X[:, cols]
        idx = np.arange(45)[cols]
        dom = part.domain
        assert dom.d == idx.size and np.array_equal(dom.lower, full.lower[idx])
        assert list(dom.names) == [full.names[j] for j in idx]
        for g in dom.one_hot_groups:  # each kept group holds columns of one original group
            originals = {int(idx[j]) for j in g}
            assert any(originals <= set(h) for h in full.one_hot_groups)
        assert dom.contains_all(np.asarray(part))
    assert X[:, [0, 0]].domain is None and X[0].domain is None and X[:, 0].domain is None
    model = FunctionalMechanismLR(random_state=0).fit(X[:, :10], y)  # the sliced domain matches the columns
    assert model.coef_.shape == (10,)


def test_transform_clips_scales_and_one_hot_encodes():
    enc = DomainEncoder(SCHEMA).fit(_frame())
    X = enc.transform(_frame())
    assert list(enc.get_feature_names_out()) == ["age", "job=a", "job=b", "job=other", "member=yes"]
    expected = [[2 / 72, 1, 0, 0, 1], [17 / 72, 0, 1, 0, 0], [1, 0, 0, 1, 1], [0, 1, 0, 0, 0]]
    assert np.allclose(X, expected)
    assert enc.domain_.contains(np.asarray(X)).all()
    assert enc.domain_.one_hot_groups == ((1, 2, 3), (4,))
    assert enc.count_out_of_domain(_frame()) == {"age": 2, "job": 1, "member": 0}
    assert not any("count" in name or "clipped" in name for name in vars(enc))  # not stored


def test_fit_reads_no_statistic_of_the_data():
    other = _frame().assign(age=[90, 90, 90, 90], job=["b", "b", "b", "b"])
    a = DomainEncoder(SCHEMA).fit(_frame())
    b = DomainEncoder(SCHEMA).fit(other)
    assert np.array_equal(a.transform(_frame()), b.transform(_frame()))
    assert a.bounds_ == b.bounds_ and a.categories_ == b.categories_


def test_undeclared_bounds_or_categories_warn():
    with pytest.warns(PrivacyLeakWarning, match="age"):
        enc = DomainEncoder({"age": Numeric(), "job": ["a", "b", "c"]}).fit(_frame())
    assert enc.bounds_["age"] == (17.0, 150.0)
    with pytest.warns(PrivacyLeakWarning, match="job"):
        DomainEncoder({"job": Categorical()}).fit(_frame())


def test_shorthand_schema_entries():
    enc = DomainEncoder({"age": (0, 200), "job": ["a", "b", "c"]}).fit(_frame())
    assert enc.transform(_frame()).shape == (4, 4)


@pytest.mark.parametrize(
    "schema, frame_change, match",
    [
        ({"job": Categorical(["a", "b"], unknown="error")}, {}, "outside its declared categories"),
        ({"job": Categorical(["a", "b", "c"], unknown="error")}, {"job": ["a", None, "b", "c"]}, "missing"),
        ({"member": Binary("yes", "maybe", unknown="error")}, {}, "values other than"),
        ({"member": Binary("yes", "no", unknown="drop")}, {}, "unknown"),
        ({"age": Numeric(0, 1)}, {"age": [1.0, np.nan, 0.0, 0.0]}, "missing"),
        ({"age": Numeric(0, 1)}, {"age": ["x", "y", "z", "w"]}, "non-numbers"),
        ({"nope": Numeric(0, 1)}, {}, "lacks the schema's columns"),
        ({"age": Numeric(5, 1)}, {}, "lower < upper"),
        ({"job": Categorical(["a", "a"])}, {}, "distinct"),
        ({"job": Categorical(["a"], unknown="drop")}, {}, "unknown"),
        ({"job": Categorical(["a", "b", None])}, {}, "include a missing value"),
        ({"job": Categorical(["a", float("nan")], unknown="other")}, {}, "fillna"),
    ],
)
def test_bad_input_raises_clearly(schema, frame_change, match):
    frame = _frame().assign(**frame_change)
    with pytest.raises((ValueError, TypeError), match=match):
        DomainEncoder(schema).fit_transform(frame)


def test_errors_for_bad_schema_and_unfitted_use():
    with pytest.raises(TypeError, match="schema"):
        DomainEncoder({}).fit(_frame())
    with pytest.raises(TypeError, match="schema entry"):
        DomainEncoder({"age": 5}).fit(_frame())
    with pytest.raises(TypeError, match="named columns"):
        DomainEncoder(SCHEMA).fit(np.zeros((3, 3)))
    with pytest.raises(NotFittedError):
        DomainEncoder(SCHEMA).transform(_frame())


def test_encoded_output_works_without_scikit_learn():
    X = DomainEncoder(SCHEMA).fit_transform(_frame())
    y = np.array([0, 1, 1, 0])
    model = FunctionalMechanismLR(epsilon=1.0, random_state=0).fit(X, y)
    assert model.coef_.shape == (5,)


def test_unknown_and_missing_values_map_into_the_domain_by_default():
    """A value outside the declared categories, or a missing one, becomes zeros in its one-hot group
    (Categorical's default "ignore"), a 1 in "other", or the negative value of a Binary; every row stays in the
    declared domain, and "error" is the only policy that raises."""
    frame = pd.DataFrame({"job": ["a", "z", None, "b"], "member": ["yes", "maybe", None, "no"]})
    enc = DomainEncoder({"job": Categorical(["a", "b"]), "member": Binary("yes", "no")}).fit(frame)
    X = enc.transform(frame)
    np.testing.assert_array_equal(X, [[1, 0, 1], [0, 0, 0], [0, 0, 0], [0, 1, 0]])
    assert enc.domain_.contains_all(X)
    assert enc.count_out_of_domain(frame) == {"job": 2, "member": 2}
    other = DomainEncoder({"job": Categorical(["a", "b"], unknown="other")}).fit_transform(frame)
    np.testing.assert_array_equal(other, [[1, 0, 0], [0, 0, 1], [0, 0, 1], [0, 1, 0]])
    sparse = DomainEncoder({"job": Categorical(["a", "b"])}, sparse_output=True).fit_transform(frame)
    np.testing.assert_array_equal(sparse.toarray(), [[1, 0], [0, 0], [0, 0], [0, 1]])
    with pytest.warns(PrivacyLeakWarning):  # categories read from the data leave the missing value out
        read = DomainEncoder({"job": Categorical()}).fit(frame)
    assert read.categories_["job"] == ["a", "b", "z"]


def test_a_record_with_an_undeclared_value_does_not_stop_a_private_fit(adult):
    """Add/remove neighbours of the raw Adult frame: one added record with a country and a workclass the schema
    does not declare is encoded inside the domain, so the private fit runs on both data sets (it used to raise on
    the neighbour, an abort outside the DP guarantee that also echoed the record's values)."""
    from dpfair_native.datasets import adult_schema

    X_frame, y = adult[0].iloc[:2000], adult[1][:2000].astype(int)
    extra = X_frame.iloc[[0]].copy()
    country = [c for c in extra.columns if "country" in c][0]
    work = [c for c in extra.columns if "workclass" in c][0]
    extra[country] = "Atlantis"
    extra[work] = "Pirate"
    neighbour = pd.concat([X_frame, extra], ignore_index=True)
    schema = {name: spec for name, spec in adult_schema().items() if name in X_frame.columns}
    enc = DomainEncoder(schema)
    for data, labels in ((X_frame, y), (neighbour, np.append(y, 1))):
        X = enc.fit(data).transform(data)
        assert enc.domain_.contains_all(X)
        FunctionalMechanismLR(epsilon=1.0, random_state=0).fit(X, labels)


@pytest.mark.parametrize("schema", [{"job": Categorical(["a", "b", "c"], unknown="error")},
                                    {"job": Binary("a", "b", unknown="error")}])
def test_unknown_value_errors_do_not_quote_the_value(schema):
    """A rare value is a record's: the refusal names the column, not the value (review 16's rule for aborts)."""
    with pytest.raises(ValueError, match="job") as caught:
        DomainEncoder(schema).fit_transform(_frame().assign(job=["a", "b", "zq_rare", "a"]))
    assert "zq_rare" not in str(caught.value)


@pytest.mark.parametrize("dtype", ["boolean", "string", "object"])
def test_a_missing_value_in_a_binary_column_is_the_negative_value(dtype):
    """pandas' NA in a nullable boolean or string column is a missing value like None: the default policy encodes
    it as the negative value (it used to raise "boolean value of NA is ambiguous" from ``NA == positive``, so one
    record's missing value aborted the fit) and ``unknown="error"`` refuses it with the library's message."""
    values = [True, False, None, True] if dtype == "boolean" else ["yes", "no", None, "yes"]
    positive, negative = (True, False) if dtype == "boolean" else ("yes", "no")
    frame = pd.DataFrame({"member": pd.array(values, dtype=dtype)})
    enc = DomainEncoder({"member": Binary(positive, negative)}).fit(frame)
    np.testing.assert_array_equal(enc.transform(frame).ravel(), [1, 0, 0, 1])
    assert enc.count_out_of_domain(frame) == {"member": 1}
    with pytest.raises(ValueError, match="values other than"):
        DomainEncoder({"member": Binary(positive, negative, unknown="error")}).fit_transform(frame)


@pytest.mark.parametrize(("column", "spec"), [
    (["yes", "no", "yes"], Binary()),  # the default 1/0 on a string column
    (["1", "2", "3"], Categorical([1, 2, 3])),  # codes declared as numbers, held as strings
    ([1, 2, 3], Categorical(["1", "2", "3"])),  # the reverse
    (np.array(["a", "b", "a"]), Binary(1, 0)),  # a NumPy string column in a dict
])
def test_declared_values_of_the_wrong_type_raise_instead_of_encoding_zeros(column, spec):
    """A column whose dtype no declared value can equal would become all zeros (every row "unknown") with no
    message; the encoder raises, judging the dtypes only (no record's value is read)."""
    if isinstance(column, np.ndarray):
        frame = {"c": column}
    else:  # pandas' string dtype declared (pandas < 3 infers object, which says nothing)
        frame = pd.DataFrame({"c": pd.Series(column, dtype="string" if isinstance(column[0], str) else None)})
    with pytest.raises(TypeError, match="no value could match"):
        DomainEncoder({"c": spec}).fit_transform(frame)
    object_column = pd.DataFrame({"c": pd.Series(list(column), dtype=object)})  # an object dtype says nothing
    assert DomainEncoder({"c": spec}).fit_transform(object_column).sum() == 0


def test_an_all_missing_column_is_unknown_whatever_its_dtype():
    """pandas stores a column of missing values as float64 (read_csv, or one row with NaN to predict): no dtype
    check may refuse it; it encodes as unknown (zeros, or the negative value), as documented."""
    frame = pd.DataFrame({"smoker": [np.nan], "job": [np.nan]})
    schema = {"smoker": Binary("yes", "no"), "job": Categorical(["a", "b"])}
    np.testing.assert_array_equal(DomainEncoder(schema).fit_transform(frame), [[0, 0, 0]])
    np.testing.assert_array_equal(DomainEncoder({"c": Binary(b"y", b"n")}).fit_transform(
        {"c": np.array([b"y", b"n"])}).ravel(), [1, 0])  # bytes declared on a bytes column


def test_the_sparse_output_keeps_its_domain_as_the_dense_one_does(adult):
    """sparse_output=True returned a plain csr_matrix whose ``domain`` attribute row indexing dropped: cross-validation
    splits fell back to the assumed [0, 1]^d box without the one-hot groups, and FairFM's 3-fold accuracy on 8,000
    Adult rows fell from 0.805 to 0.764 (session-23 review). It now carries the domain as EncodedArray does, and
    cross-validation gives the dense scores."""
    import copy
    import pickle

    from sklearn.model_selection import cross_val_score

    from dpfair_native.datasets import train_test_split

    X_raw, y, s, _ = adult
    enc = DomainEncoder(adult_schema(), sparse_output=True)
    X = enc.fit_transform(X_raw.iloc[:8000])
    dense = DomainEncoder(adult_schema()).fit_transform(X_raw.iloc[:8000])
    full = X.domain
    assert full is enc.domain_
    for rows in (X[:100], X[np.arange(50)], X[np.arange(8000) % 3 == 0], X[7], X[np.arange(5), :],
                 copy.copy(X), copy.deepcopy(X), pickle.loads(pickle.dumps(X)), train_test_split(X, y[:8000])[0]):
        assert _same_domain(rows.domain, full)
    part = X[:, [3, 7, 8]]
    assert _same_domain(part.domain, dense[:, [3, 7, 8]].domain) and part.domain.d == 3
    for other in (X[:, [0, 0]], X * 2, abs(X), X.tocsc(), X.T):  # may move or rescale columns: no domain
        assert getattr(other, "domain", None) is None
    in_place = X.copy()
    in_place *= 2
    assert in_place.domain is None and X.domain is full
    model = FairFunctionalMechanismLR(epsilon=1.0, declared_groups=["Female", "Male"], random_state=0)
    y8, s8 = y[:8000].astype(int), s.iloc[:8000].to_numpy()
    scores = [cross_val_score(model, data, y8, cv=3, params={"sensitive_features": s8}) for data in (X, dense)]
    np.testing.assert_allclose(scores[0], scores[1], atol=1e-12)


def _same_domain(a, b):
    return (a is not None and a.names == b.names and a.one_hot_groups == b.one_hot_groups
            and np.array_equal(a.lower, b.lower) and np.array_equal(a.upper, b.upper))
