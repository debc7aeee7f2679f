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
    "SourceStore": "provgate.store",
    "SourceInfo": "provgate.store",
    "default_store_path": "provgate.store",
    "Pointer": "provgate.pointers",
    "hash_spans": "provgate._hashing",
    "hash_buffers": "provgate._hashing",
    "extract": "provgate.facts",
    "extract_many": "provgate.facts",
    "FactTable": "provgate.facts",
    "Kind": "provgate.facts",
    "Span": "provgate.facts",
    "EXTRACTOR_VERSION": "provgate.facts",
    "SourceMatcher": "provgate.matching",
    "GroundedMatches": "provgate.matching",
    "Block": "provgate.window",
    "Window": "provgate.window",
    "Edit": "provgate.window",
    "Supersession": "provgate.window",
    "Citation": "provgate.window",
    "parse_edit": "provgate.window",
    "Gate": "provgate.gate",
    "check": "provgate.gate",
    "commit": "provgate.gate",
    "CycleRecord": "provgate.gate",
    "Verdict": "provgate.verdict",
    "Violation": "provgate.verdict",
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
    "InvalidArgumentError": "provgate.errors",
    "StoreSchemaError": "provgate.errors",
    "StoreReadOnlyError": "provgate.errors",
    "StoreClosedError": "provgate.errors",
    "StoreBusyError": "provgate.errors",
    "StoreIOError": "provgate.errors",
    "PointerFormatError": "provgate.errors",
    "plan_compaction": "provgate.compaction",
    "compact": "provgate.compaction",
    "CompactionPlan": "provgate.compaction",
    "CompactionResult": "provgate.compaction",
    "SummaryGroup": "provgate.compaction",
    "SummaryRequest": "provgate.compaction",
    "approx_tokens": "provgate.compaction",
    "session_report": "provgate.report",
    "SessionReport": "provgate.report",
    "CompactionError": "provgate.errors",
    "CompactionBudgetError": "provgate.errors",
    "SummarizerError": "provgate.errors",
    "OptionalDependencyError": "provgate.errors",
    "verify_quote": "provgate.reconstruct",
    "verify_citations": "provgate.reconstruct",
    "SourceCache": "provgate.reconstruct",
    "QuoteCheck": "provgate.reconstruct",
    "CitationReport": "provgate.reconstruct",
    "parse_citations": "provgate.reconstruct",
    "find_malformed_markers": "provgate.reconstruct",
    "MalformedMarker": "provgate.reconstruct",
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
    from provgate.store import (
        SourceInfo,
        SourceStore,
        default_store_path,
    )
    from provgate.pointers import (
        Pointer,
    )
    from provgate._hashing import (
        hash_buffers,
        hash_spans,
    )
    from provgate.facts import (
        EXTRACTOR_VERSION,
        FactTable,
        Kind,
        Span,
        extract,
        extract_many,
    )
    from provgate.matching import (
        GroundedMatches,
        SourceMatcher,
    )
    from provgate.window import (
        Block,
        Citation,
        Edit,
        Supersession,
        Window,
        parse_edit,
    )
    from provgate.gate import (
        CycleRecord,
        Gate,
        check,
        commit,
    )
    from provgate.verdict import (
        Verdict,
        Violation,
    )
    from provgate.errors import (
        EditFormatError,
        HandleConflictError,
        InvalidArgumentError,
        InvalidContentError,
        InvalidDigestError,
        InvalidHandleError,
        LimitExceededError,
        PointerFormatError,
        ProvenanceInvariantError,
        ProvenanceResolutionError,
        ProvgateError,
        SpanError,
        StoreBusyError,
        StoreClosedError,
        StoreCorruptionError,
        StoreIOError,
        StoreReadOnlyError,
        StoreSchemaError,
        UnknownHandleError,
    )
    from provgate.compaction import (
        CompactionPlan,
        CompactionResult,
        SummaryGroup,
        SummaryRequest,
        approx_tokens,
        compact,
        plan_compaction,
    )
    from provgate.report import (
        SessionReport,
        session_report,
    )
    from provgate.errors import (
        CompactionBudgetError,
        CompactionError,
        OptionalDependencyError,
        SummarizerError,
    )
    from provgate.reconstruct import (
        CitationReport,
        MalformedMarker,
        QuoteCheck,
        SourceCache,
        find_malformed_markers,
        parse_citations,
        verify_citations,
        verify_quote,
    )
