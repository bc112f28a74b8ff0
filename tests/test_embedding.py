"""DPNE, dpM, the SVD baseline, the evaluation protocols and the graph generators (dpfair_native.embedding)."""

import math

import numpy as np
import pytest

from dpfair_native.embedding import (
    DPNE,
    DPMatrixBaseline,
    SVDEmbedding,
    WalkOperator,
    link_prediction,
    link_prediction_split,
    planted_partition,
    vertex_classification,
)
from dpfair_native.embedding.dpne import _ridge_solve
from dpfair_native.mechanisms import analytic_gaussian_sigma


@pytest.fixture(scope="module")
def sbm():
    return planted_partition(600, 4, mean_degree=12.0, ratio=10.0, sparse=False, random_state=3)


def _implied_noise(model, adjacency, alpha=1e-3):
    """Z = W (HᵀH + λI) − M H: the noise the fit added to M H (DPNE's stationarity condition, Eq. 5.8)."""
    H = model.context_
    G = H.T @ H + alpha * np.eye(H.shape[1])
    return model.embedding_ @ G - WalkOperator(adjacency, 2).matmul(H)


def test_ridge_solve_is_the_exact_minimiser():
    rng = np.random.default_rng(0)
    H, Y = rng.standard_normal((30, 5)), rng.standard_normal((40, 5))
    W = _ridge_solve(Y, H, 0.3)
    np.testing.assert_allclose(W @ (H.T @ H + 0.3 * np.eye(5)), Y, atol=1e-12)


def test_nonprivate_dpne_is_the_stationary_point_of_eq_5_7(sbm):
    m = DPNE(8, epsilon=np.inf, random_state=0).fit(sbm.adjacency)
    H, W = m.context_, m.embedding_
    M = WalkOperator(sbm.adjacency).dense()
    grad = -2.0 * (M - W @ H.T) @ H + 2.0 * 1e-3 * W  # ∇_W of Eq. 5.4 with H fixed
    assert np.abs(grad).max() < 1e-12
    np.testing.assert_allclose(H.T @ H, np.eye(8), atol=1e-12)  # public H has orthonormal columns
    assert m.privacy_spent_ == (np.inf, 0.0)


def test_laplace_noise_has_the_calibrated_scale(sbm):
    m = DPNE(20, epsilon=2.0, random_state=1).fit(sbm.adjacency)
    z = _implied_noise(m, sbm.adjacency)
    b = 3.0 / 2.0  # Δ_{2,1}(t = 2) / ε
    assert m.noise_scale_ == pytest.approx(b)
    norms = np.linalg.norm(z, axis=1)  # ~ Gamma(k, b): mean k b, sd b sqrt(k)
    assert abs(norms.mean() - 20 * b) < 5 * b * math.sqrt(20) / math.sqrt(norms.size)
    assert m.privacy_spent_ == (2.0, 0.0)


def test_gaussian_noise_has_the_calibrated_scale_and_is_smaller_at_small_epsilon(sbm):
    m = DPNE(20, epsilon=1.0, delta=1e-5, noise="gaussian", random_state=1).fit(sbm.adjacency)
    sigma = analytic_gaussian_sigma(math.sqrt(2) + 1, 1.0, 1e-5)
    assert m.noise_scale_ == pytest.approx(sigma)
    z = _implied_noise(m, sbm.adjacency)
    assert z.std() == pytest.approx(sigma, rel=0.03)
    assert m.privacy_spent_ == (1.0, 1e-5)
    lap = DPNE(20, epsilon=1.0, random_state=1).fit(sbm.adjacency)
    assert np.linalg.norm(z, axis=1).mean() < np.linalg.norm(_implied_noise(lap, sbm.adjacency), axis=1).mean()


def test_power_context_splits_and_accounts_the_budget(sbm):
    m = DPNE(10, epsilon=3.0, context="power", context_budget=0.25, random_state=0).fit(sbm.adjacency)
    assert m.privacy_spent_ == (pytest.approx(3.0), 0.0)
    assert m.noise_scale_ == pytest.approx(3.0 / 2.25)  # the W step gets 0.75 ε
    np.testing.assert_allclose(m.context_.T @ m.context_, np.eye(10), atol=1e-10)
    g = DPNE(10, epsilon=3.0, delta=1e-6, noise="gaussian", context="power", random_state=0).fit(sbm.adjacency)
    assert g.privacy_spent_ == (pytest.approx(3.0), pytest.approx(1e-6))


def test_svd_context_needs_epsilon_inf(sbm):
    with pytest.raises(ValueError, match="without noise"):
        DPNE(5, epsilon=1.0, context="svd").fit(sbm.adjacency)


def test_paper_faithful_reports_claim_and_no_guarantee(sbm):
    m = DPNE(10, epsilon=1.0, paper_faithful=True, n_epochs=1, random_state=0).fit(sbm.adjacency)
    assert m.epsilon_claimed_ == 1.0
    assert m.privacy_spent_ == (np.inf, 0.0)
    assert m.noise_scale_ == pytest.approx(2 * math.sqrt(2))
    assert np.linalg.norm(m.context_, axis=1).max() <= 1 + 1e-12
    assert not hasattr(DPNE(10, epsilon=1.0, random_state=0).fit(sbm.adjacency), "epsilon_claimed_")


def test_dpm_calibration_and_paper_mode(sbm):
    m = DPMatrixBaseline(10, epsilon=2.0, random_state=0).fit(sbm.adjacency)
    assert m.noise_scale_ == pytest.approx(4.0 / 2.0) and m.privacy_spent_ == (2.0, 0.0)
    p = DPMatrixBaseline(10, epsilon=2.0, paper_faithful=True, random_state=0).fit(sbm.adjacency)
    assert p.noise_scale_ == pytest.approx(math.sqrt(2) / 2.0)
    assert p.epsilon_claimed_ == 2.0
    assert p.privacy_spent_[0] == pytest.approx(2.0 * 4.0 / math.sqrt(2))  # true ε of scale √2/ε noise
    g = DPMatrixBaseline(10, epsilon=2.0, delta=1e-5, noise="gaussian", random_state=0).fit(sbm.adjacency)
    assert g.noise_scale_ == pytest.approx(analytic_gaussian_sigma(math.sqrt(2) + 1, 2.0, 1e-5))
    assert g.privacy_spent_ == (2.0, 1e-5)


def test_nonprivate_quality_matches_svd_factorisation(sbm):
    svd = SVDEmbedding(16, random_state=0).fit(sbm.adjacency).embedding_
    dpne_svd = DPNE(16, epsilon=np.inf, context="svd", random_state=0).fit(sbm.adjacency).embedding_
    a_svd = vertex_classification(svd, sbm.labels, random_state=0)["accuracy"]
    a_dpne = vertex_classification(dpne_svd, sbm.labels, random_state=0)["accuracy"]
    assert a_svd > 0.8  # 4 planted classes: chance is 0.25
    assert abs(a_dpne - a_svd) < 0.03
    a_rand = vertex_classification(DPNE(16, epsilon=np.inf, random_state=0).fit(sbm.adjacency).embedding_,
                                   sbm.labels, random_state=0)["accuracy"]
    assert a_rand > 0.4  # a public random context keeps some signal without noise


def test_heavy_noise_gives_chance_accuracy(sbm):
    w = DPNE(16, epsilon=0.5, random_state=0).fit(sbm.adjacency).embedding_
    assert vertex_classification(w, sbm.labels, random_state=0)["accuracy"] < 0.4


def test_sparse_and_dense_input_agree(sbm):
    sp = pytest.importorskip("scipy.sparse")
    a = DPNE(6, epsilon=1.0, random_state=5).fit(sbm.adjacency).embedding_
    b = DPNE(6, epsilon=1.0, random_state=5).fit(sp.csr_matrix(sbm.adjacency)).embedding_
    np.testing.assert_allclose(a, b, atol=1e-12)


@pytest.mark.parametrize("bad, match", [
    (np.array([[0, 1], [0, 0]]), "symmetric"),
    (np.array([[0, 2], [2, 0]]), "0 and 1"),
    (np.array([[1, 1], [1, 0]]), "diagonal"),
    (np.zeros((2, 3)), "square"),
    (np.zeros(3), "2-D"),
    (np.array([[0, np.nan], [np.nan, 0]]), "0 and 1"),
])
def test_bad_adjacency(bad, match):
    with pytest.raises(ValueError, match=match):
        DPNE(1, epsilon=1.0).fit(bad)


def test_bad_parameters(sbm):
    a = sbm.adjacency
    with pytest.raises(ValueError, match="n_components"):
        DPNE(601).fit(a)
    with pytest.raises(ValueError, match="delta"):
        DPNE(5, noise="gaussian").fit(a)
    with pytest.raises(ValueError, match="no delta"):
        DPNE(5, delta=1e-5).fit(a)
    with pytest.raises(ValueError, match="epsilon"):
        DPNE(5, epsilon=0).fit(a)
    with pytest.raises(ValueError, match="context"):
        DPNE(5, context="pca").fit(a)
    with pytest.raises(ValueError, match="noise"):
        DPMatrixBaseline(5, noise="uniform").fit(a)
    with pytest.raises(ValueError, match="Laplace"):
        DPNE(5, delta=1e-5, noise="gaussian", paper_faithful=True).fit(a)


def test_params_protocol_and_clone():
    m = DPNE(7, epsilon=2.0, context="power")
    assert m.get_params()["n_components"] == 7 and "context='power'" in repr(m)
    sklearn_base = pytest.importorskip("sklearn.base")
    c = sklearn_base.clone(m)
    assert c.get_params() == m.get_params() and c is not m


def test_vertex_classification_metrics():
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(3), 40)
    separable = np.eye(3)[y] * 5 + 0.1 * rng.standard_normal((120, 3))
    r = vertex_classification(separable, y, random_state=0)
    assert r["accuracy"] == r["micro_f1"] == 1.0 and r["macro_f1"] == 1.0
    noise = vertex_classification(rng.standard_normal((120, 3)), y, random_state=0)
    assert noise["accuracy"] < 0.6
    with pytest.raises(ValueError, match="one row per vertex"):
        vertex_classification(separable[:10], y)


def test_link_prediction_split_and_auc(sbm):
    train, pairs, y = link_prediction_split(sbm.adjacency, test_fraction=0.5, random_state=0)
    a = sbm.adjacency
    n_edges = int(a.sum() / 2)
    assert int(train.sum() / 2) == n_edges - int(y.sum())
    assert y.sum() == (1 - y).sum()
    assert np.all(a[pairs[y == 1, 0], pairs[y == 1, 1]] == 1)  # held-out pairs are edges of G ...
    assert np.all(train[pairs[y == 1, 0], pairs[y == 1, 1]] == 0)  # ... removed from the training graph
    assert np.all(a[pairs[y == 0, 0], pairs[y == 0, 1]] == 0)  # negatives are non-edges
    assert len({tuple(p) for p in pairs}) == len(pairs)
    emb = SVDEmbedding(16, random_state=0).fit(train).embedding_
    r = link_prediction(emb, pairs, y, random_state=0)
    assert r["auc"] > 0.65  # measured 0.69 (chance 0.5)
    r0 = link_prediction(np.random.default_rng(0).standard_normal(emb.shape), pairs, y, random_state=0)
    assert r0["auc"] < 0.6


def test_planted_partition_properties():
    g = planted_partition(1000, 5, mean_degree=10.0, ratio=4.0, sparse=False, random_state=0)
    a, y = g.adjacency, g.labels
    assert np.array_equal(a, a.T) and np.all(np.diag(a) == 0) and set(np.unique(a)) <= {0.0, 1.0}
    assert np.bincount(y).tolist() == [200] * 5
    assert abs(a.sum(1).mean() - 10.0) < 0.5
    same = y[:, None] == y[None, :]
    inside = a[same].sum() / a.sum()  # expected p_in·199 / (p_in·199 + p_out·800) with p_in = 4 p_out
    assert abs(inside - 4 * 199 / (4 * 199 + 800)) < 0.03


def test_karate_club():
    pytest.importorskip("networkx")
    from dpfair_native.embedding import load_karate_club

    g = load_karate_club()
    assert g.adjacency.shape == (34, 34) and g.adjacency.sum() == 156
    assert np.bincount(g.labels).tolist() == [17, 17]


@pytest.mark.slow
def test_reproduction_runs_and_writes_its_section(monkeypatch, tmp_path):
    from dpfair_native.experiments import dpne as rep
    from dpfair_native.experiments import run

    monkeypatch.setattr(rep, "GRAPHS", {"Wiki-like": dict(n=90, c=3, degree=6.0),
                                        "Cora-like": dict(n=80, c=2, degree=5.0)})
    monkeypatch.setattr(rep, "EPSILONS", (1.0, 1e5))
    monkeypatch.setattr(rep, "KS", (10,))
    monkeypatch.setattr(rep, "K", 10)
    monkeypatch.setattr(rep, "K_SWEEP_EPS", (1.0,))
    path = tmp_path / "RESULTS.md"
    path.write_text("# results\n\n## DPNE (thesis ch. 5)\n\nold text\n")
    assert run("dpne", runs=1, write=True, results_path=path) == 0
    text = path.read_text()
    begin = "<!-- dpfair:begin dpne -->"
    assert text.count(begin) == 1 and "Table 5.4 layout" in text and "| 0.521 |" in text
    assert text.startswith("# results\n\n## DPNE (thesis ch. 5)\n\nold text\n")
    assert run("dpne", runs=1, write=True, results_path=path) == 0  # idempotent: replaces its block
    assert path.read_text().count(begin) == 1


def test_power_context_never_reports_more_than_the_requested_budget():
    """The split ε_h = ε·frac, ε − ε_h used to add back to one ulp above ε for some pairs (review 15): e.g.
    ε = 9.989969879518073 at 0.16 reported 9.989969879518075. The rest is now stepped down to fit."""
    a = planted_partition(16, 2, mean_degree=4.0, ratio=4.0, sparse=False, random_state=0).adjacency
    pairs = [(9.989969879518073, 0.16)] + [(e, f) for e in np.linspace(0.1, 10, 40) for f in np.linspace(0.1, 0.9, 9)]
    assert sum(e * f + (e - e * f) > e for e, f in pairs) >= 10  # the grid holds pairs the plain split overshoots
    for eps, frac in pairs:
        lap = DPNE(2, epsilon=eps, context="power", context_budget=frac, random_state=0).fit(a)
        assert lap.privacy_spent_.epsilon <= eps, (eps, frac)
    for eps, frac in pairs[:40]:
        g = DPNE(2, epsilon=eps, delta=3e-6, noise="gaussian", context="power", context_budget=frac,
                 random_state=0).fit(a)
        assert g.privacy_spent_.epsilon <= eps and g.privacy_spent_.delta <= 3e-6, (eps, frac)


def test_dpm_paper_faithful_sets_the_claim_in_every_run(sbm):
    """Also with epsilon=inf (no noise), as DPNE does (review 15: it was set in the finite Laplace branch only)."""
    p = DPMatrixBaseline(10, epsilon=np.inf, paper_faithful=True, random_state=0).fit(sbm.adjacency)
    assert p.epsilon_claimed_ == np.inf and p.privacy_spent_ == (np.inf, 0.0)
    assert not hasattr(DPMatrixBaseline(10, epsilon=np.inf, random_state=0).fit(sbm.adjacency), "epsilon_claimed_")


@pytest.mark.parametrize("make", [lambda **kw: DPNE(4, random_state=0, **kw),
                                  lambda **kw: DPMatrixBaseline(4, random_state=0, **kw)])
def test_a_refit_keeps_no_attribute_of_the_last_fit(make):
    """A paper-faithful fit's epsilon_claimed_ must not survive a refit in library mode (it would claim a figure
    that run never had)."""
    graph = planted_partition(60, 2, mean_degree=6.0, ratio=4.0, sparse=False, random_state=0)
    model = make(epsilon=1.0, paper_faithful=True).fit(graph.adjacency)
    assert hasattr(model, "epsilon_claimed_")
    model.set_params(paper_faithful=False).fit(graph.adjacency)
    assert not hasattr(model, "epsilon_claimed_") and model.privacy_spent_.method == "basic"


def test_dpm_never_reports_more_than_the_requested_budget():
    """dpM reported Δ₁/(Δ₁/ε), one ulp above ε for about 7 % of ε (review 23, F1: t = 2, ε = 6.405920704482398
    gave 6.405920704482399). Now it reports ε and draws at a scale b with Δ₁/b <= ε exactly (the noise is at
    least what ε needs); the paper-faithful report Δ₁/b is rounded up (never below the true guarantee)."""
    from fractions import Fraction

    a = planted_partition(16, 2, mean_degree=4.0, ratio=4.0, sparse=False, random_state=0).adjacency
    grid = [6.405920704482398] + [float(e) for e in np.random.default_rng(0).uniform(0.1, 10, 400)]
    for t in (2, 3):
        l1 = 2.0 * t
        over = [e for e in grid if l1 / (l1 / e) > e]  # the ε at which the plain report overshoots
        assert len(over) >= 10 and (t != 2 or over[0] == 6.405920704482398)
        for eps in over[:25]:
            m = DPMatrixBaseline(2, epsilon=eps, window=t, random_state=0).fit(a)
            assert m.privacy_spent_.epsilon == eps, (t, eps)
            assert Fraction(l1) / Fraction(m.noise_scale_) <= Fraction(eps), (t, eps)  # the noise suffices
            assert m.noise_scale_ <= math.nextafter(l1 / eps, math.inf)  # and is no more than one ulp above
            f = DPMatrixBaseline(2, epsilon=eps, window=t, paper_faithful=True, random_state=0).fit(a)
            assert Fraction(f.privacy_spent_.epsilon) >= Fraction(l1) / Fraction(f.noise_scale_), (t, eps)
