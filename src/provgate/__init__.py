"""provgate: a provenance gate for LLM agent context edits.

The public API is listed in ``__all__``. Submodules are imported on first use, so
``import provgate`` stays cheap for agents that only need part of it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    # errors
    "ProvgateError": "provgate.errors",
    "InvalidHandleError": "provgate.errors",
    "InvalidContentError": "provgate.errors",
    "HandleConflictError": "provgate.errors",
    "UnknownHandleError": "provgate.errors",
    "StoreCorruptionError": "provgate.errors",
    "InvalidDigestError": "provgate.errors",
    "ProvenanceResolutionError": "provgate.errors",
    "SpanError": "provgate.errors",
    "LimitExceededError": "provgate.errors",
    "EditFormatError": "provgate.errors",
    "ProvenanceInvariantError": "provgate.errors",
}

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'provgate' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:  # pragma: no cover
    from provgate.errors import (
        EditFormatError,
        HandleConflictError,
        InvalidContentError,
        InvalidDigestError,
        InvalidHandleError,
        LimitExceededError,
        ProvenanceInvariantError,
        ProvenanceResolutionError,
        ProvgateError,
        SpanError,
        StoreCorruptionError,
        UnknownHandleError,
    )
