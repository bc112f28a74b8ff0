"""Shared test infrastructure: the ``backend`` fixture and the ``native`` marker, defined once.

- ``@pytest.mark.native`` (or ``pytestmark = pytest.mark.native``): the test needs the compiled extension; it is
  *skipped with a reason* when the extension is not built (never silently dropped), so a missing build shows in
  the summary.
- ``overflow_rows`` fixture: rows whose scores overflow (the clipping-hardening tests of the DP-SGD kernels).
- ``backend`` fixture: every test that takes it runs once per backend, ``"numpy"`` (the reference twin) and
  ``"native"`` (marked ``native``, so skipped without a build). A test that needs a different set parametrizes
  ``backend`` itself (direct parametrization overrides the fixture).
- Hypothesis runs derandomized (the profile "repeatable", the default): every run tries the same examples, so a
  failure reproduces from the command alone and a red run is never a new draw. ``HYPOTHESIS_PROFILE=explore``
  draws fresh examples (for hunting, not for CI).
"""

import os

import numpy as np
import pytest
from hypothesis import settings

from dpfair_native import kernels

settings.register_profile("repeatable", derandomize=True, database=None)
settings.register_profile("explore")
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))

NATIVE_BUILT = kernels.native_available()
#: The two backends as parameters: numpy always runs, native is skipped (with a reason) when not built.
BACKEND_PARAMS = ("numpy", pytest.param("native", marks=pytest.mark.native))


def pytest_collection_modifyitems(config, items):
    if NATIVE_BUILT:
        return
    skip = pytest.mark.skip(reason="native extension not built: run tools/dev_build.sh or pip install .")
    for item in items:
        if item.get_closest_marker("native") is not None:
            item.add_marker(skip)


@pytest.fixture(params=BACKEND_PARAMS)
def backend(request):
    """ "numpy" or "native" (the latter skipped when the extension is not built)."""
    return request.param


@pytest.fixture
def overflow_rows():
    """Row 0's products with [1e300, −1e300, 0, …] are +inf and −inf (weights of a run far into divergence); the
    native dense loops sum them in separate lanes, so its score is inf − inf = NaN (a sequential fused
    multiply-add, as in the CSR loops and BLAS, keeps ±inf instead). Rows 1 and 2 have finite scores."""
    X = np.zeros((3, 8))
    X[:, :2] = [[1e10, 1e10], [1.0, 0.5], [0.2, 0.1]]
    return X
