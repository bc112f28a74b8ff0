"""Native kernels release the GIL; concurrent fits equal serial ones; n_threads changes only summation order.

GIL test without timing thresholds: with a long switch interval, a Python worker thread can run while the main thread
is inside a call only if that call releases the GIL. We count the worker's iterations inside the call window; a
pure-Python call of similar length (which holds the GIL) is the control and must see zero.
"""

import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from dpfair_native import kernels

pytestmark = pytest.mark.native

RNG = np.random.default_rng(0)
XL = RNG.random((20_000, 120))
YL = (XL[:, 0] > 0.5).astype(np.float64)
GL = (np.arange(20_000) % 3).astype(np.int64)


def iterations_inside(call) -> int:
    """Worker-thread iterations that happen while `call()` runs in the main thread."""
    stop = threading.Event()
    state = {"count": 0, "inside": 0, "window": False}

    def worker():
        while not stop.is_set():
            state["count"] += 1
            if state["window"]:
                state["inside"] += 1

    old = sys.getswitchinterval()
    sys.setswitchinterval(0.5)  # the main thread never gives the GIL away by preemption during the window
    thread = threading.Thread(target=worker, daemon=True)
    try:
        thread.start()
        while state["count"] == 0:
            threading.Event().wait(0.001)  # blocks (releases the GIL) until the worker has run
        state["window"] = True
        call()
        state["window"] = False
    finally:
        stop.set()
        sys.setswitchinterval(old)
        thread.join()
    return state["inside"]


def _python_busy():
    total = 0
    for i in range(300_000):
        total += i
    return total


def test_control_python_call_holds_the_gil():
    assert iterations_inside(_python_busy) == 0


@pytest.mark.parametrize("kernel", ["poly2", "clipgrad", "quadratic", "dpsgd", "logistic"])
def test_native_kernels_release_the_gil(kernel):
    if kernel == "poly2":
        call = lambda: kernels.poly2_coefficients(XL, YL - 0.5, 0.125, groups=GL, n_threads=2)  # noqa: E731
    elif kernel == "clipgrad":
        rows = np.tile(np.arange(20_000), 5)
        call = lambda: kernels.clip_group_gradients(  # noqa: E731
            XL, YL, np.full(120, 0.01), 0.0, rows, GL, np.ones(3), n_threads=2)
    elif kernel == "quadratic":
        A = RNG.standard_normal((400, 400))
        Q = (A + A.T) / 2
        call = lambda: kernels.minimize_quadratic(Q, np.ones(400), psd="trim")  # noqa: E731
    elif kernel == "logistic":
        call = lambda: kernels.logistic_newton(XL, YL, alpha=1.0, n_threads=2)  # noqa: E731
    else:
        T, rows = 200, np.tile(np.arange(2_000), 200)
        offsets = np.arange(T + 1) * 2_000
        call = lambda: kernels.dpsgd_epochs(  # noqa: E731
            XL, YL, np.zeros(121), rows, offsets, np.full(T, 0.1), np.zeros((T, 121)), expected_batch_size=2_000.0)
    assert iterations_inside(call) > 0


def _fm_fit(seed, X, y, n_threads=2):
    from dpfair_native.models import functional
    est = functional.FunctionalMechanismLR(epsilon=1.0, random_state=seed, n_threads=n_threads)
    return np.append(est.fit(X, y).coef_, est.intercept_)


def _dpsgd_fit(seed, X, y, n_threads=2):
    from dpfair_native.models import dpsgd
    est = dpsgd.DPSGDClassifier(batch_size=200, epochs=2, random_state=seed, n_threads=n_threads)
    return np.append(est.fit(X, y).coef_, est.intercept_)


@pytest.mark.parametrize("fit", [_fm_fit, _dpsgd_fit], ids=["FunctionalMechanismLR", "DPSGDClassifier"])
def test_concurrent_fits_equal_serial_fits(fit):
    X, y = XL[:5000, :8], YL[:5000]
    seeds = list(range(8))
    serial = [fit(s, X, y) for s in seeds]
    with ThreadPoolExecutor(max_workers=4) as pool:
        parallel = list(pool.map(lambda s: fit(s, X, y), seeds))
    for a, b in zip(serial, parallel):
        np.testing.assert_array_equal(a, b)  # same n_threads: bitwise identical


def test_n_threads_changes_only_summation_order():
    """poly2 sums per-thread partials: results differ across n_threads by float rounding only.

    Tolerance: the kernel outputs agree to rtol 1e-12; a FunctionalMechanismLR fit (same random_state, so the same
    noise) agrees to rtol 1e-8, the rounding amplified by the noisy quadratic's conditioning.
    """
    X, y = XL[:, :10], YL
    ref = kernels.poly2_coefficients(X, y - 0.5, 0.125, groups=GL, n_threads=1)
    ref_fit = _fm_fit(3, X, y, n_threads=1)
    for threads in (2, 3, 4):
        out = kernels.poly2_coefficients(X, y - 0.5, 0.125, groups=GL, n_threads=threads)
        for a, b in zip(out, ref):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-9)
        np.testing.assert_allclose(_fm_fit(3, X, y, n_threads=threads), ref_fit, rtol=1e-8, atol=1e-10)
