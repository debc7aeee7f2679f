"""One switch for every hot path: the native module, or its pure-Python reference.

``PROVGATE_NO_EXTENSIONS=1`` selects the references (the executable specification).
Otherwise the compiled module from ``provgate._ext`` is used; if it cannot be imported, the
reference is used with a ``RuntimeWarning`` — and the test suite fails, because it asserts
that a default install imports the compiled modules.
"""

from __future__ import annotations

import importlib
import os
import warnings
from types import ModuleType

NO_EXTENSIONS: bool = os.environ.get("PROVGATE_NO_EXTENSIONS", "") not in ("", "0")


def load(native_name: str, reference_name: str) -> tuple[ModuleType, str]:
    """Return ``(module, "native" | "reference")`` for one hot path."""
    if not NO_EXTENSIONS:
        try:
            return importlib.import_module(f"provgate._ext.{native_name}"), "native"
        except ImportError as exc:
            warnings.warn(
                f"provgate: native module {native_name!r} is unavailable ({exc}); "
                f"using the pure-Python reference {reference_name!r}",
                RuntimeWarning,
                stacklevel=3,
            )
    return importlib.import_module(f"provgate.{reference_name}"), "reference"
