"""The public API: everything in ``__all__`` imports, nothing heavy at ``import provgate``, and a
default install runs the compiled hot paths (CI fails if an extension did not build)."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import provgate
from conftest import NO_EXTENSIONS

# every hot path: (switch module, native module)
HOT_PATHS = [
    ("provgate._hashing", "provgate._ext.hashing"),
    ("provgate._scanner", "provgate._ext.scanner"),
    ("provgate._factdiff", "provgate._ext.factdiff"),
    ("provgate._matching", "provgate._ext.matching"),
    ("provgate._search", "provgate._ext.search"),
    ("provgate._textsize", "provgate._ext.textsize"),
    ("provgate._textnorm", "provgate._ext.textnorm"),
    ("provgate._citations", "provgate._ext.citations"),
    ("provgate._blockscan", "provgate._ext.blockscan"),
]


@pytest.mark.parametrize("name", provgate.__all__)
def test_every_public_name_resolves(name: str) -> None:
    assert getattr(provgate, name) is not None


def test_unknown_attribute_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        provgate.nope  # noqa: B018


def test_import_is_light() -> None:
    code = "import sys, provgate; print(sorted(m for m in ('numpy', 'sqlite3', 'provgate.gate') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("switch,native", HOT_PATHS)
def test_default_install_uses_the_compiled_module(switch: str, native: str) -> None:
    module = importlib.import_module(switch)
    if NO_EXTENSIONS:
        assert module.IMPLEMENTATION == "reference"
    else:
        assert module.IMPLEMENTATION == "native", f"{native} did not build or failed to import"
        assert importlib.import_module(native).__file__.endswith((".so", ".pyd"))


def test_version_is_a_string() -> None:
    assert isinstance(provgate.__version__, str) and provgate.__version__.count(".") == 2


@pytest.mark.parametrize("first", ["provgate._blockscan_py", "provgate._blockscan", "provgate.window", "provgate.gate"])
def test_any_module_can_be_imported_first(first: str) -> None:
    # the per-block passes import Block from provgate.window; window once imported them at
    # import time, so importing the reference first found window half-made (red team note)
    code = (f"import importlib; importlib.import_module({first!r}); import provgate._blockscan as b; "
            "from provgate.window import Window; print(b.IMPLEMENTATION, len(Window([{'id': 'a', 'role': 'user', "
            "'text': 'x'}])))")
    run = subprocess.run([sys.executable, "-W", "error", "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["reference" if NO_EXTENSIONS else "native", "1"]
