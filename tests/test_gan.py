"""FairGAN, FairGAN⁺ and CFGAN (dpfair_native.gan) on tiny synthetic data with fixed seeds: outputs are valid
records, fairness terms remove the planted dependence, interventions are respected, bad input is refused."""

import math
import sys

import numpy as np
import pytest

from dpfair_native.gan import CFGAN, FairGAN, FairGANPlus, _common
from dpfair_native.gan.effects import total_effect

TINY = dict(epochs=12, pretrain_epochs=2, batch_size=200, noise_dim=16, hidden=32, learning_rate=5e-3)


def test_missing_torch_gives_install_hint(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(ImportError, match=r"dpfair_native\[gan\]"):
        _common.import_torch()


torch = pytest.importorskip("torch")


def _biased(n=1200, seed=0):
    """s → a → y and s → y: a strong planted risk difference of y between the s groups; b is noise."""
    rng = np.random.default_rng(seed)
    s = rng.integers(0, 2, n)
    a = (rng.random(n) < 0.2 + 0.6 * s).astype(int)
    b = rng.choice(["u", "v", "w"], n)
    y = (rng.random(n) < 0.1 + 0.4 * a + 0.3 * s).astype(int)
    X = np.empty((n, 2), dtype=object)
    X[:, 0], X[:, 1] = a, b
    return X, y, s


def _rd(y, s):
    y, s = np.asarray(y).astype(float), np.asarray(s).astype(int)
    return y[s == 1].mean() - y[s == 0].mean()


@pytest.fixture(scope="module")
def fairgans():
    X, y, s = _biased()
    plain = FairGAN(lambda_fair=0.0, random_state=0, **TINY).fit(X, y, sensitive_features=s)
    fair = FairGAN(lambda_fair=1.0, random_state=0, **TINY).fit(X, y, sensitive_features=s)
    return X, y, s, plain, fair


def test_fairgan_samples_are_valid_records(fairgans):
    X, y, s, _, model = fairgans
    Xg, yg, sg = model.sample(300, random_state=1)
    assert Xg.shape == (300, 2) and yg.shape == (300,) and sg.shape == (300,)
    assert set(Xg[:, 0]) <= {0, 1} and set(Xg[:, 1]) <= {"u", "v", "w"}
    assert set(yg) <= {0, 1} and set(sg) == {0, 1}
    assert model.privacy_spent_ == (math.inf, 0.0) and model.privacy_spent_.method == "none"  # not DP: says so
    H, _, _ = model.sample(300, random_state=1, one_hot=True)
    assert H.dtype == np.float32 and H.shape == (300, model.encoder_.width)
    assert set(np.unique(H)) <= {0.0, 1.0}
    for a, b in model.encoder_.groups:
        np.testing.assert_array_equal(H[:, a:b].sum(axis=1), 1.0)


def test_fairgan_is_reproducible(fairgans):
    X, y, s, _, model = fairgans
    again = FairGAN(lambda_fair=1.0, random_state=0, **TINY).fit(X, y, sensitive_features=s)
    for u, v in zip(model.sample(200, random_state=5), again.sample(200, random_state=5)):
        np.testing.assert_array_equal(u, v)
    assert not np.array_equal(model.sample(200, random_state=5)[0], model.sample(200, random_state=6)[0])


def test_fairness_term_lowers_generated_risk_difference(fairgans):
    X, y, s, plain, fair = fairgans
    assert _rd(y, s) > 0.4
    _, y0, s0 = plain.sample(4000, random_state=2)
    _, y1, s1 = fair.sample(4000, random_state=2)
    assert _rd(y0, s0) > 0.25  # the plain GAN keeps much of the planted dependence
    assert abs(_rd(y1, s1)) < abs(_rd(y0, s0)) - 0.15


def _proxy(n=1200, seed=0):
    """y depends on a and directly on s; c is a proxy of s that tells nothing more about y."""
    rng = np.random.default_rng(seed)
    s = rng.integers(0, 2, n)
    a = rng.integers(0, 2, n)
    c = np.where(rng.random(n) < 0.9, s, 1 - s)
    y = (rng.random(n) < 0.1 + 0.4 * a + 0.45 * s).astype(int)
    X = np.empty((n, 2), dtype=object)
    X[:, 0], X[:, 1] = a, c
    return X, y, s


@pytest.mark.slow  # two FairGAN+ fits (~5 s alone)
def test_fairgan_plus_classifier_is_fairer_with_mu():
    X, y, s = _proxy()
    kw = dict(fairness="demographic_parity", random_state=0, **{**TINY, "batch_size": 100})
    free = FairGANPlus(mu=0.0, lambda_fair=0.0, **kw).fit(X, y, sensitive_features=s)
    fair = FairGANPlus(mu=3.0, **kw).fit(X, y, sensitive_features=s)
    proba = fair.predict_proba(X)
    assert proba.shape == (len(y), 2) and np.all((proba >= 0) & (proba <= 1))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert set(fair.predict(X)) <= {0, 1}
    assert np.mean(free.predict(X) == y) > 0.65  # η learns y from a
    # the score gap between the s groups (η can only see s through the proxy c) shrinks under the adversary D3
    def gap(m):
        return abs(_rd(m.predict_proba(X)[:, 1], s))
    assert gap(free) > 0.08
    assert gap(fair) < 0.7 * gap(free)
    Xg, yg, sg = fair.sample(100, random_state=0)
    assert Xg.shape == (100, 2) and set(sg) <= {0, 1}


def test_fairgan_plus_eta_is_the_mean_of_its_fair_phase_iterates(monkeypatch):
    """η's fitted weights are the average of its iterates over the fairness phase (not the last iterate), and
    only fairness-phase steps enter it (epochs 2 of 4 here)."""
    X, y, s = _biased(n=400)
    seen, original = [], FairGANPlus._average_eta

    def spy(self, torch):
        seen.append(torch.cat([p.detach().ravel() for p in self.classifier_.parameters()]).numpy().copy())
        original(self, torch)

    monkeypatch.setattr(FairGANPlus, "_average_eta", spy)
    m = FairGANPlus(random_state=0, **{**TINY, "epochs": 4}).fit(X, y, sensitive_features=s)
    steps_per_epoch = len(m.history_["g"]) // 4
    assert m.privacy_spent_ == (math.inf, 0.0) and m.privacy_spent_.method == "none"  # not DP: says so
    assert len(seen) == 2 * steps_per_epoch
    final = torch.cat([p.detach().ravel() for p in m.classifier_.parameters()]).numpy()
    np.testing.assert_allclose(final, np.mean(seen, axis=0), rtol=1e-4, atol=1e-5)
    assert np.abs(final - seen[-1]).max() > 1e-3  # the last iterate differs: the averaging is not vacuous


@pytest.mark.parametrize("fairness, on_generated", [("equalized_odds", False), ("equal_opportunity", False),
                                                     ("demographic_parity", True)])
def test_fairgan_plus_other_notions_fit(fairness, on_generated):
    X, y, s = _biased(n=400)
    m = FairGANPlus(fairness=fairness, eta_on_generated=on_generated, random_state=0, **{**TINY, "epochs": 2})
    m.fit(X, y, sensitive_features=s)
    assert "d3" in m.history_ and np.all(np.isfinite(m.history_["d3"]))


def test_dataframe_in_dataframe_out():
    pd = pytest.importorskip("pandas")
    X, y, s = _biased(n=400)
    frame = pd.DataFrame({"a": X[:, 0], "b": X[:, 1]})
    m = FairGAN(random_state=0, **{**TINY, "epochs": 1}).fit(frame, np.where(y, ">50K", "<=50K"),
                                                               sensitive_features=np.where(s, "M", "F"))
    Xg, yg, sg = m.sample(50, random_state=0)
    assert list(Xg.columns) == ["a", "b"] and set(yg) <= {">50K", "<=50K"} and set(sg) <= {"M", "F"}


@pytest.mark.parametrize("kwargs, match", [
    ({"y": np.arange(400) % 3}, "exactly two"),
    ({"s": np.zeros(400)}, "exactly two"),
    ({"X": np.random.default_rng(0).random((400, 2))}, "continuous"),
    ({"model": FairGANPlus(fairness="parity")}, "fairness must be"),
    ({"model": FairGANPlus(eta_on_generated="yes")}, "eta_on_generated"),
    ({"model": FairGAN(lambda_fair=-1)}, "lambda_fair"),
    ({"model": FairGAN(epochs=0)}, "epochs"),
    ({"model": FairGAN(batch_size=1)}, "batch_size must be an integer >= 2"),
    ({"model": FairGAN(pretrain_epochs=-1)}, "pretrain_epochs"),
    ({"y": np.zeros(10)}, "entries"),
])
def test_bad_input_is_refused(kwargs, match):
    X, y, s = _biased(n=400)
    model = kwargs.get("model", FairGAN(**{**TINY, "epochs": 1}))
    with pytest.raises(ValueError, match=match):
        model.fit(kwargs.get("X", X), kwargs.get("y", y), sensitive_features=kwargs.get("s", s))


def test_unfitted_and_mismatched_use_is_refused():
    with pytest.raises(ValueError, match="not fitted"):
        FairGAN().sample(5)
    X, y, s = _biased(n=400)
    m = FairGANPlus(**{**TINY, "epochs": 1}).fit(X, y, sensitive_features=s)
    with pytest.raises(ValueError, match="columns"):
        m.predict(X[:, :1])
    with pytest.raises(ValueError, match="not seen"):
        m.predict(np.array([[0, "zzz"]], dtype=object).repeat(2, axis=0))


# ---- CFGAN -------------------------------------------------------------------------------------------------------

GRAPH = {"m": ["s"], "y": ["a", "m", "s"]}


def _causal(n=1200, seed=0):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2, n)
    s = rng.integers(0, 2, n)
    m = (rng.random(n) < 0.2 + 0.6 * s).astype(int)
    y = (rng.random(n) < 0.05 + 0.4 * m + 0.2 * a + 0.25 * s).astype(int)
    return pd.DataFrame({"a": a, "s": s, "m": m, "y": y})


CF_TINY = dict(epochs=12, batch_size=200, hidden=16, learning_rate=5e-3)


@pytest.fixture(scope="module")
def cfgans():
    df = _causal()
    plain = CFGAN(GRAPH, sensitive="s", outcome="y", lambda_fair=0.0, random_state=0, **CF_TINY).fit(df)
    fair = CFGAN(GRAPH, sensitive="s", outcome="y", lambda_fair=1.0, random_state=0, **CF_TINY).fit(df)
    return df, plain, fair


def test_cfgan_intervention_is_respected(cfgans):
    _, _, model = cfgans
    obs = model.sample(500, random_state=3)
    for value in (0, 1):
        do = model.sample(500, random_state=3, intervention={"s": value})
        assert set(do["s"]) == {value}
        np.testing.assert_array_equal(do["a"].to_numpy(), obs["a"].to_numpy())  # a is not a descendant of s
        same = obs["s"].to_numpy() == value
        np.testing.assert_array_equal(do["m"].to_numpy()[same], obs["m"].to_numpy()[same])  # factual rows agree
    H = model.sample(100, random_state=0, one_hot=True)
    for a, b in model.encoder_.groups:
        np.testing.assert_array_equal(H[:, a:b].sum(axis=1), 1.0)


def test_cfgan_removes_total_effect(cfgans):
    df, plain, fair = cfgans
    def te(d):
        return total_effect(d.astype(int), GRAPH, sensitive="s", outcome="y")
    assert te(df) > 0.4
    te_plain, te_fair = te(plain.sample(4000, random_state=1)), te(fair.sample(4000, random_state=1))
    assert te_plain > 0.1  # CausalGAN (λ = 0) keeps a clear effect ...
    assert abs(te_fair) < 0.5 * te_plain, (te_plain, te_fair)  # ... that the fairness game removes


def test_cfgan_is_reproducible(cfgans):
    df, _, fair = cfgans
    again = CFGAN(GRAPH, sensitive="s", outcome="y", random_state=0, **CF_TINY).fit(df)
    assert again.sample(300, random_state=4).equals(fair.sample(300, random_state=4))


@pytest.mark.parametrize("effect, extra", [("path_specific", {"through": ["m"]}),
                                           ("counterfactual", {"context": ["a"]})])
def test_cfgan_other_effects_fit(effect, extra):
    df = _causal(n=400)
    m = CFGAN(GRAPH, sensitive="s", outcome="y", effect=effect, random_state=0, **{**CF_TINY, "epochs": 2},
              **extra).fit(df)
    assert "d2" in m.history_ and np.all(np.isfinite(m.history_["d2"]))
    assert m.privacy_spent_ == (math.inf, 0.0) and m.privacy_spent_.method == "none"


@pytest.mark.parametrize("kwargs, match", [
    ({"graph": {"s": ["y"], "y": ["s"]}}, "cycle"),
    ({"graph": {"y": ["zzz"]}}, "not a column"),
    ({"graph": {"y": ["a"]}}, "not a descendant"),
    ({"effect": "direct"}, "effect must be"),
    ({"effect": "path_specific"}, "through"),
    ({"effect": "path_specific", "through": ["a"]}, "through"),
    ({"effect": "counterfactual", "context": ["m"]}, "context"),
    ({"sensitive": "q"}, "not a column"),
])
def test_cfgan_bad_input_is_refused(kwargs, match):
    df = _causal(n=100)
    args = {"graph": GRAPH, "sensitive": "s", "outcome": "y", "epochs": 1, **kwargs}
    with pytest.raises(ValueError, match=match):
        CFGAN(args.pop("graph"), **args).fit(df)


def test_cfgan_bad_intervention_is_refused(cfgans):
    _, _, model = cfgans
    with pytest.raises(ValueError, match="intervention"):
        model.sample(5, intervention={"m": 1})
    with pytest.raises(ValueError, match="not one of"):
        model.sample(5, intervention={"s": 7})
