"""metrics.py equals fairlearn 0.15 / sklearn on random inputs, AUC equals a pairwise count, edge cases, errors."""

import itertools

import numpy as np
import pytest

fairlearn_metrics = pytest.importorskip("fairlearn.metrics")
skm = pytest.importorskip("sklearn.metrics")

from dpfair_native import metrics as M  # noqa: E402

SEEDS = [0, 1, 2]
GROUP_CASES = [(2, "str"), (2, "int"), (5, "str"), (5, "int")]


def make_data(seed, n_groups, kind, n=600):
    """Binary labels/predictions whose rates depend on the group, a score with ties, positive weights."""
    rng = np.random.default_rng(seed)
    g = rng.integers(0, n_groups, size=n)
    y_true = (rng.random(n) < 0.2 + 0.6 * g / max(n_groups - 1, 1)).astype(int)
    score = np.round(0.5 * y_true + rng.random(n), 1)  # rounding makes many ties
    y_pred = (score + 0.1 * g > 0.8).astype(int)
    s = np.array([f"grp{v}" for v in g]) if kind == "str" else g * 10 - 7
    w = rng.uniform(0.1, 3.0, size=n)
    return y_true, y_pred, score, s, w


def close(a, b):
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("weighted", [False, True])
def test_plain_metrics_equal_sklearn_and_fairlearn(seed, weighted):
    y, p, score, _, w = make_data(seed, 2, "int")
    sw = w if weighted else None
    close(M.accuracy(y, p, sample_weight=sw), skm.accuracy_score(y, p, sample_weight=sw))
    close(M.balanced_accuracy(y, p, sample_weight=sw), skm.balanced_accuracy_score(y, p, sample_weight=sw))
    close(M.roc_auc(y, score, sample_weight=sw), skm.roc_auc_score(y, score, sample_weight=sw))
    close(M.selection_rate(y, p, sample_weight=sw), fairlearn_metrics.selection_rate(y, p, sample_weight=sw))
    close(M.true_positive_rate(y, p, sample_weight=sw), fairlearn_metrics.true_positive_rate(y, p, sample_weight=sw))
    close(M.false_positive_rate(y, p, sample_weight=sw), fairlearn_metrics.false_positive_rate(y, p, sample_weight=sw))


def test_plain_metrics_with_string_labels_and_pos_label():
    y, p, score, _, _ = make_data(3, 2, "int")
    ys, ps = np.where(y == 1, "yes", "no"), np.where(p == 1, "yes", "no")
    close(M.accuracy(ys, ps), skm.accuracy_score(y, p))
    close(M.balanced_accuracy(ys, ps), skm.balanced_accuracy_score(y, p))
    close(M.true_positive_rate(ys, ps, pos_label="yes"), fairlearn_metrics.true_positive_rate(ys, ps, pos_label="yes"))
    close(M.false_positive_rate(ys, ps, pos_label="yes"),
          fairlearn_metrics.false_positive_rate(ys, ps, pos_label="yes"))
    close(M.selection_rate(ys, ps, pos_label="yes"), np.mean(p))
    close(M.roc_auc(ys, score, pos_label="yes"), skm.roc_auc_score(y, score))
    # the positive label is the one named, not the larger one
    close(M.true_positive_rate(1 - y, 1 - p, pos_label=0), fairlearn_metrics.true_positive_rate(y, p))


def brute_force_auc(y, score, w):
    pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    total = 0.0
    for i in pos:
        for j in neg:
            total += w[i] * w[j] * (1.0 if score[i] > score[j] else 0.5 if score[i] == score[j] else 0.0)
    return total / (w[pos].sum() * w[neg].sum())


@pytest.mark.parametrize("seed", SEEDS)
def test_roc_auc_equals_pairwise_count_with_ties(seed):
    rng = np.random.default_rng(seed)
    n = 80
    y = rng.integers(0, 2, size=n)
    score = rng.integers(0, 6, size=n).astype(float)  # heavy ties
    w = rng.uniform(0.2, 2.0, size=n)
    close(M.roc_auc(y, score), brute_force_auc(y, score, np.ones(n)))
    close(M.roc_auc(y, score, sample_weight=w), brute_force_auc(y, score, w))


def test_roc_auc_extremes_and_single_class():
    y = np.array([0, 0, 1, 1])
    assert M.roc_auc(y, [0.1, 0.2, 0.3, 0.4]) == 1.0
    assert M.roc_auc(y, [0.4, 0.3, 0.2, 0.1]) == 0.0
    assert M.roc_auc(y, [5, 5, 5, 5]) == 0.5
    with pytest.raises(ValueError, match="only one class"):
        M.roc_auc([1, 1, 1], [0.1, 0.2, 0.3])


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("n_groups,kind", GROUP_CASES)
@pytest.mark.parametrize("method", ["between_groups", "to_overall"])
def test_group_metrics_equal_fairlearn(seed, n_groups, kind, method):
    y, p, _, s, _ = make_data(seed, n_groups, kind)
    kw = dict(sensitive_features=s, method=method)
    close(M.demographic_parity_difference(y, p, **kw), fairlearn_metrics.demographic_parity_difference(y, p, **kw))
    close(M.demographic_parity_ratio(y, p, **kw), fairlearn_metrics.demographic_parity_ratio(y, p, **kw))
    close(M.equal_opportunity_difference(y, p, **kw), fairlearn_metrics.equal_opportunity_difference(y, p, **kw))
    close(M.equal_opportunity_ratio(y, p, **kw), fairlearn_metrics.equal_opportunity_ratio(y, p, **kw))
    for agg in ["worst_case", "mean"]:
        close(
            M.equalized_odds_difference(y, p, agg=agg, **kw),
            fairlearn_metrics.equalized_odds_difference(y, p, agg=agg, **kw),
        )
        close(M.equalized_odds_ratio(y, p, agg=agg, **kw), fairlearn_metrics.equalized_odds_ratio(y, p, agg=agg, **kw))
    frame = fairlearn_metrics.MetricFrame(metrics=skm.accuracy_score, y_true=y, y_pred=p, sensitive_features=s)
    close(M.accuracy_parity_difference(y, p, **kw), frame.difference(method=method))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("n_groups,kind", [(2, "str"), (5, "int")])
def test_weighted_group_metrics_equal_fairlearn(seed, n_groups, kind):
    y, p, _, s, w = make_data(seed, n_groups, kind)
    for method in ["between_groups", "to_overall"]:
        kw = dict(sensitive_features=s, method=method, sample_weight=w)
        close(M.demographic_parity_difference(y, p, **kw), fairlearn_metrics.demographic_parity_difference(y, p, **kw))
        close(M.demographic_parity_ratio(y, p, **kw), fairlearn_metrics.demographic_parity_ratio(y, p, **kw))
        close(M.equal_opportunity_difference(y, p, **kw), fairlearn_metrics.equal_opportunity_difference(y, p, **kw))
        close(M.equalized_odds_difference(y, p, **kw), fairlearn_metrics.equalized_odds_difference(y, p, **kw))
        close(M.equalized_odds_ratio(y, p, **kw), fairlearn_metrics.equalized_odds_ratio(y, p, **kw))
        frame = fairlearn_metrics.MetricFrame(
            metrics=skm.accuracy_score, y_true=y, y_pred=p, sensitive_features=s, sample_params={"sample_weight": w}
        )
        close(M.accuracy_parity_difference(y, p, **kw), frame.difference(method=method))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("n_groups,kind", GROUP_CASES)
def test_by_group_equals_metric_frame(seed, n_groups, kind):
    y, p, _, s, w = make_data(seed, n_groups, kind)
    for ours, theirs in [
        (M.selection_rate, fairlearn_metrics.selection_rate),
        (M.true_positive_rate, fairlearn_metrics.true_positive_rate),
        (M.accuracy, skm.accuracy_score),
    ]:
        for sw in (None, w):
            got = M.by_group(ours, y, p, sensitive_features=s, sample_weight=sw)
            params = None if sw is None else {"sample_weight": sw}
            frame = fairlearn_metrics.MetricFrame(
                metrics=theirs, y_true=y, y_pred=p, sensitive_features=s, sample_params=params
            )
            assert list(got.by_group) == frame.by_group.index.tolist()
            close(np.array(list(got.by_group.values())), frame.by_group.to_numpy())
            close(got.overall, frame.overall)
            for method in ["between_groups", "to_overall"]:
                close(got.difference(method), frame.difference(method=method))
                close(got.ratio(method), frame.ratio(method=method))
            close(got.group_min(), frame.group_min())
            close(got.group_max(), frame.group_max())


@pytest.mark.parametrize("seed", SEEDS)
def test_several_sensitive_features_equal_fairlearn(seed):
    """A DataFrame (or 2-D array) of sensitive features: one group per observed combination, as fairlearn does,
    with mixed column types and combinations that do not occur."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(seed)
    n = 400
    y_true, y_pred = rng.integers(0, 2, n), rng.integers(0, 2, n)
    frame = pd.DataFrame({"sex": rng.choice(["f", "m"], n), "race": rng.integers(0, 3, n),
                          "age": rng.choice([True, False], n)})
    frame = frame[~((frame["sex"] == "f") & (frame["race"] == 2))]  # an absent combination
    y_true, y_pred = y_true[frame.index], y_pred[frame.index]
    for name in ("demographic_parity_difference", "demographic_parity_ratio", "equalized_odds_difference",
                 "equalized_odds_ratio", "equal_opportunity_difference"):
        ours = getattr(M, name)
        theirs = getattr(fairlearn_metrics, name, None)
        if theirs is None:
            continue
        for sf in (frame, frame[["sex", "race"]].to_numpy()):
            close(ours(y_true, y_pred, sensitive_features=sf), theirs(y_true, y_pred, sensitive_features=sf))
    ours = M.by_group(M.selection_rate, y_true, y_pred, sensitive_features=frame[["sex", "race"]])
    frame_ = fairlearn_metrics.MetricFrame(metrics=fairlearn_metrics.selection_rate, y_true=y_true, y_pred=y_pred,
                                           sensitive_features=frame[["sex", "race"]])
    observed = {k: v for k, v in frame_.by_group.to_dict().items() if not np.isnan(v)}  # fairlearn lists ('f', 2)
    assert ours.by_group == pytest.approx(observed) and list(ours.by_group) == list(observed)  # as NaN


def test_several_high_cardinality_sensitive_features():
    """Four columns of 60,000 distinct labels each (their product overflows int64): every row keeps its own tuple."""
    rng = np.random.default_rng(0)
    n = 60_000
    columns = np.stack([rng.permutation(n) for _ in range(4)], axis=1)
    y = rng.integers(0, 2, n)
    groups = M.by_group(M.selection_rate, y, y, sensitive_features=columns)
    assert len(groups.by_group) == n
    expected = {tuple(row): float(v) for row, v in zip(columns.tolist(), y.tolist())}
    assert groups.by_group == expected


def test_group_keys_are_python_scalars_for_bool_int_str():
    y, p = np.array([0, 1, 1, 0]), np.array([0, 1, 0, 0])
    for s, keys in [
        (np.array([True, False, True, False]), [False, True]),
        (np.array([3, 1, 3, 1]), [1, 3]),
        (["b", "a", "b", "a"], ["a", "b"]),
    ]:
        got = M.by_group(M.selection_rate, y, p, sensitive_features=s)
        assert list(got.by_group) == keys
        assert all(type(k) is type(keys[0]) for k in got.by_group)
        close(
            M.demographic_parity_difference(y, p, sensitive_features=s),
            fairlearn_metrics.demographic_parity_difference(y, p, sensitive_features=s),
        )


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("n_groups,kind", GROUP_CASES)
def test_p_rule_is_min_pairwise_selection_ratio(seed, n_groups, kind):
    y, p, _, s, _ = make_data(seed, n_groups, kind)
    rates = [p[s == g].mean() for g in np.unique(s)]
    pairwise = min(a / b for a, b in itertools.permutations(rates, 2))
    close(M.p_rule(y, p, sensitive_features=s), 100 * pairwise)
    close(M.p_rule(y, p, sensitive_features=s),
          100 * fairlearn_metrics.demographic_parity_ratio(y, p, sensitive_features=s))


def test_risk_difference_sign_and_pooling():
    y, p, _, s, w = make_data(4, 2, "str")
    a, b = np.unique(s)
    rd = M.risk_difference(y, p, sensitive_features=s, privileged=a)
    close(rd, p[s == a].mean() - p[s == b].mean())
    close(M.risk_difference(y, p, sensitive_features=s, privileged=b), -rd)
    close(abs(rd), M.demographic_parity_difference(y, p, sensitive_features=s))
    rdw = M.risk_difference(y, p, sensitive_features=s, privileged=a, sample_weight=w)
    close(rdw, np.average(p[s == a], weights=w[s == a]) - np.average(p[s == b], weights=w[s == b]))
    y5, p5, _, s5, _ = make_data(4, 5, "int")
    close(M.risk_difference(y5, p5, sensitive_features=s5, privileged=3), p5[s5 == 3].mean() - p5[s5 != 3].mean())
    with pytest.raises(ValueError, match="privileged"):
        M.risk_difference(y, p, sensitive_features=s, privileged="nobody")
    with pytest.raises(ValueError, match="two groups"):
        M.risk_difference(y, p, sensitive_features=np.zeros(len(y)), privileged=0)


def test_group_missing_a_class_follows_fairlearn():
    # group "b" has no positive labels: fairlearn (via sklearn's normalised confusion matrix) gives it TPR 0
    y = np.array([1, 1, 0, 0, 0, 0, 0, 0])
    p = np.array([1, 1, 0, 1, 1, 0, 1, 0])
    s = np.array(["a", "a", "a", "a", "b", "b", "b", "b"])
    assert M.by_group(M.true_positive_rate, y, p, sensitive_features=s).by_group == {"a": 1.0, "b": 0.0}
    for fn in ["equal_opportunity_difference", "equalized_odds_difference", "equalized_odds_ratio"]:
        close(getattr(M, fn)(y, p, sensitive_features=s), getattr(fairlearn_metrics, fn)(y, p, sensitive_features=s))
    assert M.equal_opportunity_difference(y, p, sensitive_features=s) == 1.0


@pytest.mark.parametrize(
    "p",
    [
        np.zeros(8, int),  # all predictions equal: rates all 0, ratios 0/0
        np.ones(8, int),
        np.array([0, 0, 1, 0, 0, 0, 1, 0]),  # only false positives: TPR ratio NaN, FPR ratio defined
        np.array([1, 0, 0, 0, 1, 0, 0, 0]),  # only true positives: FPR ratio NaN, TPR ratio defined
    ],
)
@pytest.mark.parametrize("method", ["between_groups", "to_overall"])
def test_degenerate_predictions_follow_fairlearn(p, method):
    y = np.array([1, 1, 0, 0, 1, 1, 0, 0])
    s = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    kw = dict(sensitive_features=s, method=method)
    for fn in [
        "demographic_parity_difference",
        "demographic_parity_ratio",
        "equal_opportunity_difference",
        "equal_opportunity_ratio",
        "equalized_odds_difference",
        "equalized_odds_ratio",
    ]:
        close(getattr(M, fn)(y, p, **kw), getattr(fairlearn_metrics, fn)(y, p, **kw))
    for agg in ["worst_case", "mean"]:
        close(
            M.equalized_odds_ratio(y, p, agg=agg, **kw), fairlearn_metrics.equalized_odds_ratio(y, p, agg=agg, **kw)
        )


def test_zero_weight_group_is_skipped_like_fairlearn():
    y = np.array([1, 0, 1, 0, 1, 0, 1, 1])
    p = np.array([1, 1, 0, 0, 1, 0, 0, 1])
    s = np.array([0, 0, 0, 0, 1, 1, 2, 2])
    w = np.array([1, 2, 1, 1, 0, 0, 1, 3.0])
    for method in ["between_groups", "to_overall"]:
        kw = dict(sensitive_features=s, sample_weight=w, method=method)
        with np.errstate(invalid="ignore"):  # fairlearn's selection rate divides 0 by 0 for group 1
            expected = [
                fairlearn_metrics.demographic_parity_difference(y, p, **kw),
                fairlearn_metrics.demographic_parity_ratio(y, p, **kw),
            ]
        close([M.demographic_parity_difference(y, p, **kw), M.demographic_parity_ratio(y, p, **kw)], expected)


def test_balanced_accuracy_ignores_classes_absent_from_y_true():
    with pytest.warns(UserWarning):
        expected = skm.balanced_accuracy_score([0, 0, 0, 0], [0, 1, 1, 0])
    close(M.balanced_accuracy([0, 0, 0, 0], [0, 1, 1, 0]), expected)
    assert M.balanced_accuracy([1, 1], [1, 1]) == 1.0


def test_one_group():
    y, p, _, _, _ = make_data(5, 2, "int")
    s = np.full(len(y), "only")
    assert M.demographic_parity_difference(y, p, sensitive_features=s) == 0.0
    assert M.demographic_parity_ratio(y, p, sensitive_features=s) == 1.0
    assert M.equalized_odds_difference(y, p, sensitive_features=s) == 0.0
    assert M.accuracy_parity_difference(y, p, sensitive_features=s, method="to_overall") == 0.0
    close(
        M.equalized_odds_ratio(y, p, sensitive_features=s),
        fairlearn_metrics.equalized_odds_ratio(y, p, sensitive_features=s),
    )
    assert M.cost_of_privacy(y, p, y, sensitive_features=s).gap == 0.0


def test_cost_of_privacy_hand_example():
    # group a: non-private acc 4/4, private 2/4 -> drop 0.5
    # group b: non-private 5/6, private 5/6 -> drop 0
    # group c: non-private 1/2, private 2/2 -> drop -0.5 (privacy helped)
    s = np.array(["a"] * 4 + ["b"] * 6 + ["c"] * 2)
    y = np.array([1, 1, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0])
    nonpriv = np.array([1, 1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0])
    priv = np.array([1, 0, 0, 1, 1, 0, 1, 0, 1, 1, 1, 0])
    got = M.cost_of_privacy(y, priv, nonpriv, sensitive_features=s)
    assert got.per_group == pytest.approx({"a": 0.5, "b": 0.0, "c": -0.5})
    assert got.gap == pytest.approx(1.0)  # max |Δi − Δj| = Δa − Δc
    assert got.overall == pytest.approx(10 / 12 - 9 / 12)
    assert not got.is_equal(0.05) and got.is_equal(1.0)
    with pytest.raises(AttributeError):
        got.gap = 0.0  # frozen


def test_cost_of_privacy_is_accuracy_parity_of_drops():
    y, p, _, s, _ = make_data(6, 5, "str")
    rng = np.random.default_rng(6)
    p_priv = np.where(rng.random(len(y)) < 0.2, 1 - p, p)
    got = M.cost_of_privacy(y, p_priv, p, sensitive_features=s)
    acc_non = M.by_group(M.accuracy, y, p, sensitive_features=s)
    acc_priv = M.by_group(M.accuracy, y, p_priv, sensitive_features=s)
    drops = {g: acc_non.by_group[g] - acc_priv.by_group[g] for g in acc_non.by_group}
    assert got.per_group == pytest.approx(drops)
    close(got.gap, max(abs(a - b) for a, b in itertools.combinations(drops.values(), 2)))
    close(got.overall, acc_non.overall - acc_priv.overall)


def test_bad_inputs_raise_naming_the_argument():
    y, p, score, s, _ = make_data(7, 2, "int", n=20)
    with pytest.raises(ValueError, match="y_pred"):
        M.accuracy(y, p[:-1])
    with pytest.raises(ValueError, match="y_pred"):
        M.true_positive_rate(y, score)  # scores, not labels
    with pytest.raises(ValueError, match="y_true"):
        M.accuracy(np.arange(20), p)
    with pytest.raises(ValueError, match="y_true and y_pred"):
        M.accuracy(y, p + 1)  # {0,1} vs {1,2}
    with pytest.raises(ValueError, match="pos_label"):
        M.true_positive_rate(y, p, pos_label=2)
    with pytest.raises(ValueError, match="y_true"):
        M.accuracy(y.reshape(-1, 1), p)
    with pytest.raises(ValueError, match="y_score"):
        M.roc_auc(y, np.where(np.arange(20) == 3, np.nan, score))
    with pytest.raises(ValueError, match="sensitive_features"):
        M.demographic_parity_difference(y, p, sensitive_features=s[:-1])
    with pytest.raises(ValueError, match="sensitive_features"):
        M.demographic_parity_difference(y, p, sensitive_features=None)
    with pytest.raises(ValueError, match="method"):
        M.demographic_parity_difference(y, p, sensitive_features=s, method="pairwise")
    with pytest.raises(ValueError, match="agg"):
        M.equalized_odds_difference(y, p, sensitive_features=s, agg="max")
    with pytest.raises(ValueError, match="sample_weight"):
        M.accuracy(y, p, sample_weight=-np.ones(20))
    with pytest.raises(ValueError, match="y_pred_private"):
        M.cost_of_privacy(y, p[:5], p, sensitive_features=s)
    with pytest.raises(TypeError, match="positional"):
        M.demographic_parity_difference(y, p, s)  # keyword-only
    with pytest.raises(TypeError, match="metric"):
        M.by_group("accuracy", y, p, sensitive_features=s)
