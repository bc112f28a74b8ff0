"""Runtime CPU dispatch: both builds of the core (``_core`` portable, ``_core_avx2`` AVX2 + FMA) equal the NumPy
reference on every kernel, agree with each other, and the selector picks the right one (DPFAIR_NATIVE_ISA forces it).
"""

import importlib.util
import os
import subprocess
import sys
import zlib

import numpy as np
import pytest

from dpfair_native import kernels
from dpfair_native.models.dpsgd import poisson_batches

pytestmark = pytest.mark.native


def _avx2_usable():
    """(usable, reason): the CPU probe says yes and the module was built."""
    from dpfair_native import _core

    if not _core.cpu_supports_avx2_fma():
        return False, "CPU/OS without AVX2+FMA"
    if importlib.util.find_spec("dpfair_native._core_avx2") is None:
        return False, "_core_avx2 not built (non-x86-64 build or compiler without -mavx2 -mfma)"
    from dpfair_native import _core_avx2  # noqa: F401  (built but not importable: an error, not a skip)

    return True, ""


@pytest.fixture(params=["baseline", "avx2"])
def isa(request, monkeypatch):
    """Force one build through the environment variable, as users and benchmarks do."""
    if request.param == "avx2":
        usable, reason = _avx2_usable()
        if not usable:
            pytest.skip(reason)
    monkeypatch.setenv("DPFAIR_NATIVE_ISA", request.param)
    assert kernels.native_isa() == request.param
    return request.param


# ---------------------------------------------------------------- each build == the NumPy reference


@pytest.mark.parametrize("shape", [(1, 1), (37, 3), (300, 17), (1500, 64), (4000, 45)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_poly2_matches_reference(isa, shape, dtype, layout):
    rng = np.random.default_rng(zlib.crc32(repr((shape, layout)).encode()))  # str hashes vary per process
    X = (rng.standard_normal(shape) * 3).astype(dtype)
    X = {"C": X, "F": np.asfortranarray(X), "strided": X[::-2, ::2]}[layout]
    n, d = X.shape
    a, c = rng.standard_normal(n), rng.standard_normal(n)  # mixed signs: both rank-update paths
    groups = rng.integers(0, 3, n)
    b, Q, gs, gc = kernels.poly2_coefficients(X, a, c, groups=groups, n_groups=3, n_threads=2)
    rb, rQ, rgs, rgc = kernels.poly2_coefficients(X, a, c, groups=groups, n_groups=3, backend="numpy")
    X64 = X.astype(np.float64)
    scale_b = max(1e-300, float(np.max(np.abs(a) @ np.abs(X64))))  # bounds every entry (Cauchy–Schwarz)
    scale_q = max(1e-300, float(np.max(np.abs(c) @ (X64 * X64))))
    np.testing.assert_allclose(b, rb, rtol=0, atol=1e-10 * scale_b)
    np.testing.assert_allclose(Q, rQ, rtol=0, atol=1e-10 * scale_q)
    np.testing.assert_array_equal(Q, Q.T)
    np.testing.assert_allclose(gs, rgs, rtol=0, atol=1e-10 * float(np.abs(X64).max()) * n)
    np.testing.assert_array_equal(gc, rgc)


@pytest.mark.parametrize("shape", [(5, 1), (60, 3), (500, 45), (3000, 8)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("threshold", [None, 0.3])
def test_clip_group_gradients_matches_reference(isa, shape, dtype, threshold):
    rng = np.random.default_rng(hash(shape) % 2**32)
    n, d = shape
    X = rng.random(shape).astype(dtype)
    X[X < 0.6] = 0
    y = rng.integers(0, 2, n).astype(np.float64)
    w = rng.standard_normal(d)
    groups = rng.integers(0, 3, n)
    rows = rng.integers(0, n, 2 * n)  # repeats and any order
    clip = np.array([0.2, 0.7, np.inf])
    args = (X, y, w, 0.3, rows, groups, clip)
    sums, above, below = kernels.clip_group_gradients(*args, threshold=threshold, l2=0.01, n_threads=2)
    rsums, rabove, rbelow = kernels.clip_group_gradients(*args, threshold=threshold, l2=0.01, backend="numpy")
    term = 1.0 + 0.01 * float(np.abs(w).max())  # |x| <= 1: each clipped term is at most this large
    np.testing.assert_allclose(sums, rsums, rtol=0, atol=1e-10 * term * len(rows))
    np.testing.assert_array_equal(above, rabove)
    np.testing.assert_array_equal(below, rbelow)


@pytest.mark.parametrize("psd,solver", [("trim", "newton"), ("shift", "cg"), ("ridge", "newton"), ("ridge", "cg")])
@pytest.mark.parametrize("bounded", [False, True])
def test_minimize_quadratic_matches_reference(isa, psd, solver, bounded):
    rng = np.random.default_rng(11)
    d = 30
    X = rng.random((3 * d, d))
    N = np.triu(rng.laplace(scale=2.0, size=(d, d)))
    Q = X.T @ X / 8.0 + N + np.triu(N, 1).T  # noisy and indefinite, as in the functional mechanism
    b = rng.normal(size=d) * d
    ridge = max(0.0, 0.5 - np.linalg.eigvalsh(Q)[0]) + 1.0 if psd == "ridge" else 0.05
    kw = dict(psd=psd, floor=0.5, ridge=ridge, solver=solver, tol=1e-13)
    constraint = None
    if bounded:
        a = rng.normal(size=d)
        constraint = (a, 0.3 * abs(a @ kernels.minimize_quadratic(Q, b, backend="numpy", **kw).w))
    nat = kernels.minimize_quadratic(Q, b, constraint=constraint, **kw)
    ref = kernels.minimize_quadratic(Q, b, constraint=constraint, backend="numpy", **kw)
    rtol = 1e-9 if solver == "newton" else 1e-7
    np.testing.assert_allclose(nat.w, ref.w, rtol=rtol, atol=rtol * np.abs(ref.w).max())
    assert nat.n_trimmed == ref.n_trimmed and nat.constraint_active == ref.constraint_active == bounded
    np.testing.assert_allclose(nat.lambda_min, ref.lambda_min, rtol=1e-9)
    assert nat.converged


def _dpsgd(backend, rule, dtype, steps=40, q=0.1, K=3):
    rng = np.random.default_rng(5)
    n, d = 300, 7
    X = rng.uniform(0, 1, size=(n, d)).astype(dtype)
    y = (X @ rng.normal(size=d) > 0.0).astype(np.float64)
    groups = rng.integers(0, K, n)
    rows, offsets = poisson_batches(n, q, steps, rng)
    z = rng.standard_normal((steps, d + 1))
    width = {"fixed": 0, "dpsgdf": 2 * K, "naive": K}[rule]
    u = rng.standard_normal((steps, width)) if width else None
    params0 = rng.normal(scale=0.1, size=d + 1)
    return kernels.dpsgd_epochs(
        X, y, params0, rows, offsets, np.full(steps, 0.5), z, groups=groups, clip=np.linspace(0.3, 0.9, K),
        rule=rule, count_noise=u, noise_multiplier=1.1, count_noise_multiplier=2.0, expected_batch_size=q * n,
        l2=0.01, weight_bound=0.8, backend=backend,
    )


@pytest.mark.parametrize("rule", ["fixed", "dpsgdf", "naive"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_dpsgd_epochs_matches_reference(isa, rule, dtype):
    p_nat, b_nat = _dpsgd("native", rule, dtype)
    p_ref, b_ref = _dpsgd("numpy", rule, dtype)
    np.testing.assert_allclose(b_nat, b_ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(p_nat, p_ref, rtol=1e-9, atol=1e-10)
    assert not np.allclose(p_nat, 0.0)


@pytest.mark.parametrize("indicators", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_logistic_newton_matches_reference(isa, indicators, dtype):
    rng = np.random.default_rng(6)
    n = 3000
    X = rng.standard_normal((n, 6))
    if indicators:  # one-hot block: the native kernel's pattern path
        X = np.column_stack([X[:, :3], np.eye(5)[rng.integers(0, 5, n)]])
    X = X.astype(dtype)
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-(X @ rng.normal(size=X.shape[1]))))).astype(np.float64)
    a = np.append(rng.normal(size=X.shape[1]), 0.0)
    nat = kernels.logistic_newton(X, y, alpha=1e-3, constraint=(a, 0.05))
    ref = kernels.logistic_newton(X, y, alpha=1e-3, constraint=(a, 0.05), backend="numpy")
    assert nat.converged and (nat.n_iter, nat.n_passes) == (ref.n_iter, ref.n_passes)
    np.testing.assert_allclose(nat.w, ref.w, rtol=0, atol=1e-8 * np.abs(ref.w).max())


def test_the_two_builds_agree_with_each_other():
    usable, reason = _avx2_usable()
    if not usable:
        pytest.skip(reason)
    from dpfair_native import _core, _core_avx2

    rng = np.random.default_rng(3)
    X = rng.random((5000, 45))
    a, c = rng.standard_normal(5000), rng.random(5000)
    base = _core.poly2_coefficients(X, a, c, None, -1, 2)
    avx2 = _core_avx2.poly2_coefficients(X, a, c, None, -1, 2)
    for u, v in zip(base, avx2):
        np.testing.assert_allclose(u, v, rtol=1e-12, atol=1e-12 * np.abs(u).max(initial=1.0))
    # Different code (FMA contracts a*b+c into one rounding): the builds are not bit-identical on large sums.
    assert _core.isa == "baseline" and _core_avx2.isa == "avx2"


# ---------------------------------------------------------------- the selector


def test_env_var_forces_the_module(monkeypatch):
    monkeypatch.setenv("DPFAIR_NATIVE_ISA", "baseline")
    assert kernels._native().__name__ == "dpfair_native._core" and kernels.native_isa() == "baseline"
    usable, _ = _avx2_usable()
    monkeypatch.setenv("DPFAIR_NATIVE_ISA", "avx2")
    if usable:
        assert kernels._native().__name__ == "dpfair_native._core_avx2" and kernels.native_isa() == "avx2"
    else:
        with pytest.raises((ValueError, ImportError), match="avx2"):
            kernels.native_isa()


def test_automatic_choice_is_avx2_exactly_when_usable(monkeypatch):
    monkeypatch.delenv("DPFAIR_NATIVE_ISA", raising=False)
    usable, _ = _avx2_usable()
    assert kernels.native_isa() == ("avx2" if usable else "baseline")


@pytest.mark.parametrize("value", ["AVX2", "avx512", "sse2", " "])
def test_unknown_isa_is_rejected(monkeypatch, value):
    monkeypatch.setenv("DPFAIR_NATIVE_ISA", value)
    with pytest.raises(ValueError, match="DPFAIR_NATIVE_ISA must be 'baseline', 'avx2' or unset"):
        kernels.native_isa()


class _FakeBaseline:
    isa = "baseline"

    def __init__(self, supported):
        self.supported = supported

    def cpu_supports_avx2_fma(self):
        return self.supported


@pytest.mark.parametrize("supported", [False, True])
def test_avx2_module_is_imported_only_when_the_cpu_supports_it(monkeypatch, supported):
    """Selection logic on a simulated CPU: without AVX2+FMA the AVX2 module is never imported (it could fault)."""
    imported = []
    baseline = _FakeBaseline(supported)

    def fake_import(which):
        imported.append(which)
        return baseline if which == "baseline" else "avx2-module"

    monkeypatch.setattr(kernels, "_import_native", fake_import)
    assert kernels._select_native("") == ("avx2-module" if supported else baseline)
    assert kernels._select_native("baseline") is baseline
    if supported:
        assert kernels._select_native("avx2") == "avx2-module"
    else:
        with pytest.raises(ValueError, match="does not support AVX2 and FMA"):
            kernels._select_native("avx2")
        assert "avx2" not in imported


def test_missing_avx2_module_falls_back_to_baseline(monkeypatch):
    baseline = _FakeBaseline(True)

    def fake_import(which):
        if which == "avx2":
            raise ImportError("dpfair_native._core_avx2 is not built")
        return baseline

    monkeypatch.setattr(kernels, "_import_native", fake_import)
    assert kernels._select_native("") is baseline
    with pytest.raises(ImportError, match="not built"):
        kernels._select_native("avx2")


@pytest.mark.skipif(not (sys.platform.startswith("linux") and os.uname().machine in ("x86_64", "AMD64")),
                    reason="reads x86 /proc/cpuinfo flags")
def test_cpu_probe_agrees_with_proc_cpuinfo():
    from dpfair_native import _core

    with open("/proc/cpuinfo") as fh:
        flags = next(line.split(":", 1)[1].split() for line in fh if line.startswith("flags"))
    assert _core.cpu_supports_avx2_fma() == ("avx2" in flags and "fma" in flags)


def test_fresh_process_reports_its_choice():
    """The choice seen by a new interpreter (what users get), with and without the override."""
    usable, _ = _avx2_usable()
    code = "from dpfair_native import kernels; print(kernels.native_isa())"
    env = {k: v for k, v in os.environ.items() if k != "DPFAIR_NATIVE_ISA"}
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    auto = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert auto.stdout.strip() == ("avx2" if usable else "baseline")
    forced = subprocess.run([sys.executable, "-c", code], env=dict(env, DPFAIR_NATIVE_ISA="baseline"),
                            capture_output=True, text=True, check=True)
    assert forced.stdout.strip() == "baseline"
