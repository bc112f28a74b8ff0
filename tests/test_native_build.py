"""The native tests skip when the extension is missing, so this one makes a missing or broken build a failure.

Set DPFAIR_NATIVE_OPTIONAL=1 to run the suite on the NumPy backend alone (e.g. on a platform without a compiler).
"""

import os

import pytest

from dpfair_native import kernels


@pytest.mark.skipif(os.environ.get("DPFAIR_NATIVE_OPTIONAL") == "1", reason="DPFAIR_NATIVE_OPTIONAL=1")
def test_native_extension_is_built_and_importable():
    assert kernels.native_available(), "dpfair_native._core did not import: the C++ extension is not built"
    from dpfair_native import _core

    for name in ("poly2_coefficients", "minimize_quadratic", "clip_group_gradients"):
        assert callable(getattr(_core, name)), name
