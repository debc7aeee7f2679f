"""Content-addressed pointers into original sources, and the unit their offsets are in.

A :class:`Pointer` names a span of the ORIGINAL source stored under ``handle``:

- ``start``/``end`` are **UTF-8 byte offsets** into the source, ``end`` exclusive, both on
  character boundaries. Bytes, not ``str`` indices, because bytes are what is hashed and what
  other languages and tools agree on; :func:`str_span_to_byte_span` and
  :func:`byte_span_to_str_span` convert.
- ``span_digest`` is the digest of exactly those bytes, ``source_digest`` the digest of the
  whole source they were cut from. Either may be ``blake3:`` or ``sha256:``.
- ``label`` is a human-readable name (``"doc_7#L120-140"``) for logs. It is never used to
  resolve anything: a label that survived compaction proves nothing (the seed's failure).
- ``nominal`` marks a pointer into a derived text (a summary) rather than a source. Such a
  pointer may be carried along for recall, but it can never be resolved for reconstruction.

Pointers are made and resolved only by :class:`provgate.store.SourceStore`
(``store.pointer(...)``, ``store.resolve(pointer)``). There is deliberately no function that
resolves a pointer against a caller-supplied buffer: see ``docs/store.md``.

Spans must be non-empty. The empty span hashes the same at every offset of every text, so a
pointer to it would "resolve" after any re-anchoring; it carries no provenance.
"""

from __future__ import annotations

import numbers
import operator
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from provgate.digests import parse_digest
from provgate.errors import InvalidContentError, InvalidDigestError, InvalidHandleError, PointerFormatError, SpanError
from provgate.handles import check_handle

# The reasons ProvenanceResolutionError.reason can carry when a pointer is resolved.
REASON_NOMINAL = "nominal"
REASON_UNKNOWN_HANDLE = "unknown_handle"
REASON_SOURCE_CHANGED = "source_changed"
REASON_OUT_OF_RANGE = "out_of_range"
REASON_SPAN_MISMATCH = "span_mismatch"
RESOLUTION_REASONS: tuple[str, ...] = (
    REASON_NOMINAL,
    REASON_UNKNOWN_HANDLE,
    REASON_SOURCE_CHANGED,
    REASON_OUT_OF_RANGE,
    REASON_SPAN_MISMATCH,
)

MAX_LABEL_CHARS = 1024
# Byte offsets beyond what SQLite and numpy hold (int64) name no byte of any source; Python
# would carry them, and fail where one is first formatted (past 4,300 digits) or stored.
MAX_OFFSET = (1 << 63) - 1

_REQUIRED_FIELDS = ("handle", "start", "end", "span_digest", "source_digest")


@dataclass(frozen=True)
class Pointer:
    """A span of an original source, anchored by content digests (see the module docstring)."""

    handle: str
    start: int
    end: int
    span_digest: str
    source_digest: str
    label: str | None = None
    nominal: bool = False

    def __post_init__(self) -> None:
        try:
            handle = check_handle(self.handle)
        except InvalidHandleError as exc:
            raise PointerFormatError(f"pointer field 'handle': {exc}", field="handle") from exc
        object.__setattr__(self, "handle", handle)
        for name in ("start", "end"):
            value = getattr(self, name)
            if not _is_int(value):
                raise PointerFormatError(
                    f"pointer field {name!r} must be an integer byte offset, not {type(value).__name__}", field=name
                )
            object.__setattr__(self, name, operator.index(value))
            if getattr(self, name) > MAX_OFFSET:
                raise PointerFormatError(f"pointer field {name!r} is larger than 2**63 - 1", field=name)
        if self.start < 0:
            raise PointerFormatError(f"pointer field 'start' is negative ({self.start})", field="start")
        if self.end <= self.start:
            raise PointerFormatError(
                f"pointer field 'end' ({self.end}) must be greater than 'start' ({self.start}): "
                "the span is empty or inverted, and a pointer must name at least one byte",
                field="end",
            )
        for name in ("span_digest", "source_digest"):
            try:
                parse_digest(getattr(self, name))
            except InvalidDigestError as exc:
                raise PointerFormatError(f"pointer field {name!r}: {exc}", field=name) from exc
        if self.label is not None:
            if not isinstance(self.label, str):
                raise PointerFormatError(
                    f"pointer field 'label' must be a str or None, not {type(self.label).__name__}", field="label"
                )
            if len(self.label) > MAX_LABEL_CHARS:
                raise PointerFormatError(
                    f"pointer field 'label' is {len(self.label)} characters long; the limit is {MAX_LABEL_CHARS}",
                    field="label",
                )
            try:
                self.label.encode("utf-8")
            except UnicodeEncodeError as exc:
                # as every other text field of a pointer: its JSON could not be written as UTF-8
                # (red team 134, F09)
                raise PointerFormatError(
                    f"pointer field 'label' contains a lone surrogate U+{ord(self.label[exc.start]):04X} at index "
                    f"{exc.start}; a label must be valid Unicode (UTF-8)", field="label") from None
        if not isinstance(self.nominal, bool):
            raise PointerFormatError(
                f"pointer field 'nominal' must be a bool, not {type(self.nominal).__name__}", field="nominal"
            )

    @property
    def length(self) -> int:
        """Length of the span in bytes."""
        return self.end - self.start

    def describe(self) -> str:
        """A short human-readable name for messages: the label if any, else ``handle[start:end]``."""
        where = f"{self.handle}[{self.start}:{self.end}]"
        return f"{self.label} ({where})" if self.label else where

    def to_json(self) -> dict[str, Any]:
        """A plain JSON object (every field, always, so the shape is stable)."""
        return {
            "handle": self.handle,
            "start": self.start,
            "end": self.end,
            "span_digest": self.span_digest,
            "source_digest": self.source_digest,
            "label": self.label,
            "nominal": self.nominal,
        }

    @classmethod
    def from_json(cls, obj: Any) -> Pointer:
        """Parse :meth:`to_json`'s output strictly; unknown fields are ignored.

        Missing or wrongly typed fields raise :class:`PointerFormatError` with ``field`` set.
        ``label`` and ``nominal`` may be absent (``None`` and ``False``).
        """
        if not isinstance(obj, Mapping):
            raise PointerFormatError(f"a pointer must be a JSON object, not {type(obj).__name__}")
        for name in _REQUIRED_FIELDS:
            if name not in obj:
                raise PointerFormatError(f"pointer field {name!r} is missing", field=name)
        nominal = obj.get("nominal", False)
        # JSON null for nominal would silently mean False; refuse it so a dropped flag is visible.
        if nominal is None:
            raise PointerFormatError("pointer field 'nominal' must be true or false, not null", field="nominal")
        return cls(
            handle=obj["handle"],
            start=obj["start"],
            end=obj["end"],
            span_digest=obj["span_digest"],
            source_digest=obj["source_digest"],
            label=obj.get("label"),
            nominal=nominal,
        )


def _is_int(value: Any) -> bool:
    # bool is an int subclass, and JSON's 3.0 is a float: neither is a byte offset. numpy
    # integers are accepted (offsets often come out of numpy arrays).
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _offsets(start: Any, end: Any) -> tuple[int, int]:
    for name, value in (("start", start), ("end", end)):
        if not _is_int(value):
            raise SpanError(f"{name} must be an int, not {type(value).__name__}")
        if operator.index(value) > MAX_OFFSET:
            raise SpanError(f"{name} is larger than 2**63 - 1")
    return operator.index(start), operator.index(end)


def is_char_boundary(data: bytes, offset: int) -> bool:
    """Whether ``offset`` (0..len) falls between two UTF-8 characters of ``data``."""
    if offset == 0 or offset == len(data):
        return True
    # UTF-8 continuation bytes are exactly 10xxxxxx.
    return (data[offset] & 0xC0) != 0x80


def check_byte_span(data: bytes, start: Any, end: Any) -> None:
    """Validate a pointer span against UTF-8 ``data``: ``0 <= start < end <= len``, on boundaries."""
    start, end = _offsets(start, end)
    size = len(data)
    if start < 0:
        raise SpanError(f"span [{start}, {end}) has a negative start")
    if end <= start:
        raise SpanError(f"span [{start}, {end}) is empty or inverted; a pointer must name at least one byte")
    if end > size:
        raise SpanError(f"span [{start}, {end}) ends beyond the source of {size} bytes")
    for name, offset in (("start", start), ("end", end)):
        if not is_char_boundary(data, offset):
            raise SpanError(
                f"span [{start}, {end}): {name} {offset} falls inside a UTF-8 character; offsets are "
                "UTF-8 byte offsets on character boundaries (for Python str indices use "
                "pointer_from_str_indices / str_span_to_byte_span)"
            )


def str_index_to_byte_offset(text: str, index: Any) -> int:
    """The UTF-8 byte offset of ``str`` index ``index`` (0..len(text))."""
    if not _is_int(index):
        raise SpanError(f"index must be an int, not {type(index).__name__}")
    index = operator.index(index)
    if not 0 <= index <= len(text):
        raise SpanError(f"index {index} is outside the text of {len(text)} characters")
    return len(_encode(text[:index]))


def byte_offset_to_str_index(data: bytes, offset: Any) -> int:
    """The ``str`` index of UTF-8 byte offset ``offset`` (0..len(data), on a character boundary)."""
    if not _is_int(offset):
        raise SpanError(f"offset must be an int, not {type(offset).__name__}")
    offset = operator.index(offset)
    if not 0 <= offset <= len(data):
        raise SpanError(f"offset {offset} is outside the data of {len(data)} bytes")
    if not is_char_boundary(data, offset):
        raise SpanError(f"offset {offset} falls inside a UTF-8 character")
    return len(_decode(data[:offset]))


def str_span_to_byte_span(text: str, start: Any, end: Any) -> tuple[int, int]:
    """Convert a non-empty ``str`` span ``text[start:end]`` to UTF-8 byte offsets."""
    start, end = _offsets(start, end)
    if start < 0 or end <= start or end > len(text):
        raise SpanError(
            f"str span [{start}, {end}) is invalid for a text of {len(text)} characters "
            "(need 0 <= start < end <= len)"
        )
    byte_start = len(_encode(text[:start]))
    return byte_start, byte_start + len(_encode(text[start:end]))


def byte_span_to_str_span(data: bytes, start: Any, end: Any) -> tuple[int, int]:
    """Convert a non-empty UTF-8 byte span of ``data`` to ``str`` indices."""
    start, end = _offsets(start, end)
    check_byte_span(data, start, end)
    str_start = len(_decode(data[:start]))
    return str_start, str_start + len(_decode(data[start:end]))


def _encode(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidContentError(f"text contains a lone surrogate at index {exc.start}") from None


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidContentError(f"data is not valid UTF-8 at byte offset {exc.start}") from None


__all__ = [
    "MAX_OFFSET",
    "RESOLUTION_REASONS",
    "Pointer",
    "byte_offset_to_str_index",
    "byte_span_to_str_span",
    "check_byte_span",
    "is_char_boundary",
    "str_index_to_byte_offset",
    "str_span_to_byte_span",
]
