"""The shipped type stubs (_core.pyi, _core_avx2.pyi) name exactly the functions and arguments the modules have."""

import ast
import importlib
import importlib.util
import re
from pathlib import Path

import pytest

import dpfair_native

PACKAGE = Path(dpfair_native.__file__).parent


def _stub_functions(name):
    """{function: [argument names]} declared by a stub, following `from ._core import f as f` re-exports."""
    tree = ast.parse((PACKAGE / f"{name}.pyi").read_text())
    out = {f.name: [a.arg for a in f.args.args] for f in tree.body if isinstance(f, ast.FunctionDef)}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            source = _stub_functions(node.module)
            out.update({alias.asname or alias.name: source[alias.name] for alias in node.names})
    return out


def _native_functions(module):
    out = {}
    for attr in dir(module):
        fn = getattr(module, attr)
        if callable(fn) and type(fn).__name__ == "builtin_function_or_method":
            signature = fn.__doc__.splitlines()[0]  # pybind11: "name(arg: type, ...) -> type"
            out[attr] = re.findall(r"[(,]\s*(\w+):", signature)
    return out


@pytest.mark.parametrize("name", ["_core", "_core_avx2"])
def test_stub_matches_module(name):
    if not (PACKAGE / f"{name}.pyi").is_file():
        pytest.fail(f"{name}.pyi is missing from the installed package")
    if name != "_core" and importlib.util.find_spec(f"dpfair_native.{name}") is None:
        pytest.skip(f"{name} is not built for this platform")
    module = importlib.import_module(f"dpfair_native.{name}")  # built but not importable: an error, not a skip
    assert _stub_functions(name) == _native_functions(module)


def test_py_typed_marker_ships():
    assert (PACKAGE / "py.typed").is_file()
