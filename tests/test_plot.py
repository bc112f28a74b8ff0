"""dpfair_native.plot: points from fitted estimators, the Pareto front, the frontier figure (matplotlib optional)."""

import numpy as np
import pytest

from dpfair_native import plot
from dpfair_native.models import DPSGDClassifier, LogisticRegression


def test_pareto_front_keeps_exactly_the_undominated_points():
    gaps = [0.30, 0.10, 0.20, 0.05, 0.10, 0.25]
    acc = [0.90, 0.80, 0.85, 0.70, 0.82, 0.84]
    front = plot.pareto_front(gaps, acc)
    brute = [i for i in range(6)
             if not any(gaps[j] <= gaps[i] and acc[j] >= acc[i] and (gaps[j], acc[j]) != (gaps[i], acc[i])
                        for j in range(6))]
    assert sorted(front.tolist()) == sorted(brute) == [0, 2, 3, 4]
    assert list(front) == [3, 4, 2, 0]  # by increasing gap


def _points():
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1, size=(600, 4))
    s = (rng.uniform(size=600) < 0.4).astype(int)
    y = (X[:, 0] + 0.5 * s + 0.2 * rng.normal(size=600) > 0.8).astype(int)
    models = [LogisticRegression().fit(X, y)]
    models += [DPSGDClassifier(target_epsilon=e, random_state=0).fit(X, y) for e in (1, 4)]
    return plot.evaluate(models, X, y, sensitive_features=s), models


def test_evaluate_reports_the_metrics_of_each_estimator():
    points, models = _points()
    assert [p["name"] for p in points] == ["LogisticRegression", "DPSGDClassifier", "DPSGDClassifier"]
    assert points[0]["epsilon"] == np.inf and points[1]["epsilon"] == models[1].privacy_spent_.epsilon
    assert 0.99 < points[1]["epsilon"] <= 1.0  # target_epsilon=1: the computed bound, PLD_TARGET_MARGIN below it
    for p in points:
        assert 0.5 < p["accuracy"] <= 1 and 0 <= p["demographic_parity_difference"] <= 1
    with pytest.raises(ValueError, match="names"):
        plot.evaluate(models, np.zeros((2, 4)), [0, 1], sensitive_features=[0, 1], names=["a"])


@pytest.mark.parametrize("labels", [(1, 2), ("<=50K", ">50K")])
def test_evaluate_scores_each_model_against_its_own_positive_class(labels):
    """With labels other than 0/1, ROC-AUC used pos_label=1: 1 − AUC for {1, 2}, an error for strings."""
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1, size=(600, 4))
    s = (rng.uniform(size=600) < 0.4).astype(int)
    y = np.asarray(labels)[(X[:, 0] + 0.2 * rng.normal(size=600) > 0.5).astype(int)]
    model = LogisticRegression().fit(X, y)
    (point,) = plot.evaluate([model], X, y, sensitive_features=s)
    assert point["roc_auc"] == pytest.approx(roc_auc_score(y == labels[1], model.decision_function(X)), abs=1e-12)
    assert point["roc_auc"] > 0.8


def test_frontier_draws_one_series_per_estimator_and_the_front(tmp_path):
    pytest.importorskip("matplotlib")
    points, _ = _points()
    ax = plot.frontier(points)
    labels = [line.get_label() for line in ax.get_lines()]
    assert labels == ["LogisticRegression", "DPSGDClassifier", "Pareto front"]
    assert len(ax.texts) == 3 and ax.texts[0].get_text() == "ε=∞"
    path = plot.frontier_from_results(points, str(tmp_path / "f.png"), fairness="equalized_odds_difference")
    assert (tmp_path / "f.png").stat().st_size > 5_000 and path.endswith("f.png")
    with pytest.raises(ValueError, match="fairness"):
        plot.frontier(points, fairness="accuracy")
    with pytest.raises(ValueError, match="no points"):
        plot.frontier([])


def _curve_rows():
    rows = [{"panel": "task A", "name": m, "epsilon": e, "accuracy": a + 0.1 * i}
            for m, a in (("DPNE", 0.5), ("dpM", 0.4)) for i, e in enumerate((0.01, 1.0, 100.0))]
    rows.append({"panel": "task A", "name": "DPNE", "epsilon": float("inf"), "accuracy": 0.75})
    rows.append({"panel": "task A", "name": "non-private SVD", "epsilon": float("inf"), "accuracy": 0.8})
    rows.append({"panel": "task B", "name": "DPNE", "epsilon": 1.0, "accuracy": 0.6})
    rows.append({"panel": "task B", "name": "DPNE", "epsilon": 10.0, "accuracy": 0.65})
    return rows


def test_curves_put_epsilon_on_a_log_axis_with_infinity_at_its_own_tick(tmp_path):
    pytest.importorskip("matplotlib")
    fig = plot.curves(_curve_rows(), y="accuracy", title="t")
    a, b = fig.axes[:2]
    assert a.get_xscale() == "log" and a.get_title() == "task A" and b.get_title() == "task B"
    labels = [t.get_text() for t in a.get_xticklabels()]
    assert labels[-1] == "∞" and "0.01" in labels and "100" in labels
    inf_x = a.get_xticks()[-1]
    assert inf_x > 100 and np.isfinite(inf_x)
    lines = {line.get_label(): line for line in a.get_lines()}
    assert list(lines["DPNE"].get_xdata()) == [0.01, 1.0, 100.0]  # ∞ is not joined to the finite curve
    svd = lines["non-private SVD (non-private, ε = ∞)"]  # a reference that exists only at ∞: a horizontal line
    assert list(svd.get_ydata()) == [0.8, 0.8]
    assert "∞" not in [t.get_text() for t in b.get_xticklabels()]  # panel without ∞ rows: no ∞ tick
    assert fig.legends and "dpM" in [t.get_text() for t in fig.legends[0].get_texts()]
    out = plot.save("curves", _curve_rows(), str(tmp_path / "c.png"), y="accuracy")
    assert (tmp_path / "c.png").stat().st_size > 5_000 and out.endswith("c.png")


def test_curves_and_save_refuse_what_they_cannot_draw():
    pytest.importorskip("matplotlib")
    with pytest.raises(ValueError, match="keys"):
        plot.curves([{"name": "a", "epsilon": 1.0}], y="accuracy")
    with pytest.raises(ValueError, match="positive finite"):
        plot.curves([{"name": "a", "epsilon": float("inf"), "accuracy": 1.0}], y="accuracy")
    with pytest.raises(ValueError, match="kind"):
        plot.save("bars", [], "x.png")


def test_frontier_labels_points_with_their_own_label_when_given():
    pytest.importorskip("matplotlib")
    rows = [{"name": "FairDP M sweep", "epsilon": 1.0, "label": f"M={m}", "accuracy": 0.7 + m / 10,
             "cost_of_privacy_gap": m / 20} for m in (1, 2)]
    ax = plot.frontier(rows, fairness="cost_of_privacy_gap")
    assert [t.get_text() for t in ax.texts] == ["M=1", "M=2"]
    assert "cost of privacy" in ax.get_xlabel()


def test_save_draws_one_frontier_panel_per_fairness_metric(tmp_path, monkeypatch):
    matplotlib = pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    points, _ = _points()
    shown = []
    close = plt.close
    monkeypatch.setattr(plt, "close", lambda fig: (shown.append(fig), close(fig)))
    plot.save("frontier", points, str(tmp_path / "two.png"),
              fairness=("demographic_parity_difference", "equalized_odds_difference"))
    axes = shown[0].axes
    assert [ax.get_xlabel().split(" (")[0] for ax in axes] == ["demographic-parity difference",
                                                              "equalized-odds difference"]
    assert axes[0].get_legend() is not None and axes[1].get_legend() is None
    assert matplotlib.get_backend()  # drawn without a display
