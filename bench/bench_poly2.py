"""poly2_coefficients: native (2 threads) vs the NumPy reference vs plain BLAS products.

Run: PYTHONPATH=python /work/venv/bin/python -m pytest bench/bench_poly2.py --benchmark-enable -q
Data are generated once per module (the 1e6×100 float64 matrix is 800 MB). NumPy runs on OpenBLAS with its
default thread count (the machine's 2 cores); `X.T @ X` is computed by BLAS syrk (operands share memory),
`X.T @ (X * c[:, None])` by a general product, which is what a weighted Q needs without our kernel.
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from dpfair_native import kernels

pytestmark = pytest.mark.skipif(not kernels.native_available(), reason="native extension not built")

SIZES = {"36000x45": (36000, 45), "300000x500": (300000, 500), "1000000x100": (1000000, 100)}
THREADS = 2


def _rounds(n, d):
    return 20 if n * d < 5_000_000 else 3


@pytest.fixture(scope="module")
def data():
    cache = {}

    def get(name):
        if name not in cache:
            cache.clear()  # keep one big matrix alive at a time
            n, d = SIZES[name]
            rng = np.random.default_rng(0)
            X = rng.random((n, d))
            cache[name] = (X, 0.5 - rng.integers(0, 2, n), rng.random(n))
        return cache[name]

    return get


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("impl", ["native", "reference", "XtX_syrk", "XtXc_gemm"])
def test_poly2(benchmark, data, size, impl):
    X, a, c = data(size)
    n, d = X.shape
    benchmark.group = f"poly2 {size}"
    if impl == "native":
        fn = lambda: kernels.poly2_coefficients(X, a, c, n_threads=THREADS)  # noqa: E731
    elif impl == "reference":
        fn = lambda: kernels.poly2_coefficients(X, a, c, backend="numpy")  # noqa: E731
    elif impl == "XtX_syrk":
        fn = lambda: X.T @ X  # noqa: E731
    else:
        fn = lambda: X.T @ (X * c[:, None])  # noqa: E731
    benchmark.pedantic(fn, rounds=_rounds(n, d), iterations=1, warmup_rounds=1)


_RSS_SCRIPT = r"""
import json, sys
import numpy as np
from dpfair_native import kernels

def status(key):  # kB, from /proc (ru_maxrss would carry the parent's peak over fork+exec)
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith(key + ":"))

n, d, backend = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rng = np.random.default_rng(0)
X = rng.random((n, d)); a = rng.random(n); c = rng.random(n)
kernels.poly2_coefficients(X[:100], a[:100], c[:100], n_threads=2, backend=backend)  # load code paths
before = status("VmRSS")
with open("/proc/self/clear_refs", "w") as fh:
    fh.write("5")  # reset the peak-RSS mark VmHWM to the current RSS
kernels.poly2_coefficients(X, a, c, n_threads=2, backend=backend)
print(json.dumps({"X_MiB": X.nbytes / 2**20, "peak_extra_MiB": (status("VmHWM") - before) / 1024}))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("backend", ["native", "numpy"])
def test_poly2_peak_memory(backend):
    """Peak RSS growth of one call at 300000×500 (X = 1144 MiB), measured in a fresh subprocess."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, "-c", _RSS_SCRIPT, "300000", "500", backend], env=env,
                         capture_output=True, text=True, check=True).stdout
    info = json.loads(out)
    print(f"\npoly2 300000x500 {backend}: X = {info['X_MiB']:.0f} MiB, "
          f"peak extra RSS = {info['peak_extra_MiB']:.1f} MiB")
    if backend == "native":
        # Per thread: Q (2 MiB) + one block buffer (1 MiB) + small vectors; never a copy of X.
        assert info["peak_extra_MiB"] < 64
