"""clip_group_gradients: native vs the NumPy reference, one pass over 36,000 Adult-sized rows (d = 45).

Run: PYTHONPATH=python /work/venv/bin/python -m pytest bench/bench_clipgrad.py --benchmark-enable -q
Data: the first 36,000 rows of the bundled Adult set (one-hot features in [0, 1]), groups = sex.
"""

import numpy as np
import pytest

from dpfair_native import kernels
from dpfair_native.datasets import load_adult

pytestmark = pytest.mark.skipif(not kernels.native_available(), reason="native extension not built")

N_ROWS = 36000


@pytest.fixture(scope="module")
def problem():
    ds = load_adult()
    X, y, s = ds.X[:N_ROWS], ds.y[:N_ROWS].astype(np.float64), ds.sensitive[:N_ROWS]
    rng = np.random.default_rng(0)
    w = rng.standard_normal(X.shape[1]) * 0.3
    return X, y, s, w, rng


@pytest.mark.parametrize("rows_kind", ["all_in_order", "all_shuffled", "poisson_q0.01"])
@pytest.mark.parametrize("impl", ["native_1thread", "native_2threads", "reference"])
def test_clipgrad(benchmark, problem, rows_kind, impl):
    X, y, s, w, rng = problem
    if rows_kind == "all_in_order":
        rows = np.arange(N_ROWS)
    elif rows_kind == "all_shuffled":
        rows = rng.permutation(N_ROWS)
    else:  # a DP-SGD batch: Poisson sampling with rate q = 0.01 (~360 rows, sorted)
        rows = np.flatnonzero(rng.random(N_ROWS) < 0.01)
    clip = np.array([0.5, 1.0])
    benchmark.group = f"clipgrad {rows_kind}"
    backend = "numpy" if impl == "reference" else "native"
    threads = 1 if impl == "native_1thread" else 2
    benchmark(kernels.clip_group_gradients, X, y, w, 0.1, rows, s, clip, threshold=0.75, l2=0.0,
              n_threads=threads, backend=backend)
