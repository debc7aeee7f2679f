"""Each extension module's ``.pyi`` stub names exactly the public functions the built module
exports: a native function added without its stub leaves type checkers blind to it (stop 66:
``textnorm.blank_before_line_break`` was merged without one, and four of ``search``'s and
``scanner.fold_digits`` had none), and a stub naming a function the
module lacks promises an import that fails."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

STUBS = sorted((Path(__file__).resolve().parent.parent / "src" / "provgate" / "_ext").glob("*.pyi"))


def _stub_functions(stub: Path) -> set[str]:
    return {node.name for node in ast.parse(stub.read_text()).body
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_")}


@pytest.mark.parametrize("stub", STUBS, ids=[s.stem for s in STUBS])
def test_a_stub_names_the_native_module_s_public_functions(stub):
    try:
        module = importlib.import_module(f"provgate._ext.{stub.stem}")
    except ImportError as exc:  # (no native build, or no AVX2 for hashing_avx2)
        pytest.skip(f"native module {stub.stem} not importable: {exc}")
    # (the functions the module defines: its checks and errors are imported from the reference)
    exported = {name for name in dir(module) if not name.startswith("_") and not isinstance(getattr(module, name), type)
                and callable(getattr(module, name)) and getattr(getattr(module, name), "__module__", None) == module.__name__}
    assert _stub_functions(stub) == exported
