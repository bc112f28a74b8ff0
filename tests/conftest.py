"""Shared test infrastructure: the ``backend`` fixture and the ``native`` marker, defined once.

- ``@pytest.mark.native`` (or ``pytestmark = pytest.mark.native``): the test needs the compiled extension; it is
  *skipped with a reason* when the extension is not built (never silently dropped), so a missing build shows in
  the summary.
- ``backend`` fixture: every test that takes it runs once per backend, ``"numpy"`` (the reference twin) and
  ``"native"`` (marked ``native``, so skipped without a build). A test that needs a different set parametrizes
  ``backend`` itself (direct parametrization overrides the fixture).
"""

import pytest

from dpfair_native import kernels

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
