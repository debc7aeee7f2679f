"""The context window model and the edit interchange format (``provgate.edit/1``).

A :class:`Window` is an ordered list of :class:`Block`. An :class:`Edit` proposes replacing a
``pre`` window by a ``post`` window with an operator, and carries the eviction records,
supersession edges and pointers that justify what it drops or cites. Everything converts to and
from plain JSON values losslessly; see ``docs/format.md`` and ``schema/edit-v1.schema.json``.

Parsing is strict about types and lenient about unknown fields: a wrong type, a missing
required field or a duplicate block id raises :class:`~provgate.errors.EditFormatError` whose
``field`` names the offending field (``post[3].handles[0]``); unknown fields are ignored so that
newer writers can add fields without breaking older readers.
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from provgate.errors import EditFormatError
from provgate.pointers import MAX_OFFSET

FORMAT = "provgate.edit/1"
FORMAT_MAJOR = 1
# ASCII digits only, and a major version without leading zeros, as the schema's pattern
# ^provgate\.edit/1(\.[0-9]+)?$ has it (Unicode \d and int() would read "provgate.edit/\u0661"
# and "provgate.edit/01" as 1); any other major is named as unsupported rather than unrecognised
_FORMAT_RE = re.compile(r"provgate\.edit/(0|[1-9][0-9]*)(?:\.[0-9]+)?\Z", re.ASCII)

ROLES = frozenset({"system", "user", "assistant", "tool", "summary"})
LOSSLESS_OPERATORS = frozenset({"prune", "dedupe", "reorder", "rewrite"})
LOSSY_OPERATORS = frozenset({"summarize", "abstract", "compress"})
OPERATORS = LOSSLESS_OPERATORS | LOSSY_OPERATORS | {"evict"}

MAX_ID_CHARS = 256
MAX_HANDLE_BYTES = 1024
# A block's ts must lie within +-2**53, where a float64 holds every integer: beyond it two
# stamps (nanoseconds since the epoch, 1763000000123456789 and ...790) became one float, the
# JSON form did not round-trip, and I4 ordered two reads by window position instead of by
# their stamps (red team 49, F05). Every JSON number beyond 2**53 is an integer, so "refuse an
# integer a float64 cannot hold" is no rule a JSON Schema can state; a bound is (the schema's
# minimum and maximum), and it leaves seconds, milliseconds and microseconds room to spare.
MAX_TS = 2**53

# The kinds an edit may give an inline source (``sources: {HANDLE: {"text": ..., "kind": ...}}``):
# those compact() gives the window texts it stores under their block handles, a summary's words
# (provgate.store.DERIVED_KIND, whose bytes P refuses to resolve as a source's) and any other
# block's text (compaction.BLOCK_SOURCE_KIND). Through ``provgate check`` an evicted summary's
# words could only be stored as a plain source, and P then accepted a pointer into them (red team
# 93, F04). Any other kind is refused, naming the field: a kind provgate gives no meaning to would
# be a label no check reads.
SOURCE_KINDS = ("window_summary", "window_block")
_BLOCK_TEXT_HANDLE = re.compile(r"block:[0-9a-f]{32}\Z")


# -- field checks -----------------------------------------------------------------------------


def _fail(field_path: str, message: str) -> EditFormatError:
    return EditFormatError(f"{field_path}: {message}", field=field_path)


def type_name(value: Any) -> str:
    """The JSON name of ``value``'s type, for error messages ("null", "integer", "object", …)."""
    if value is None:
        return "null"
    return {bool: "boolean", int: "integer", float: "number", str: "string", list: "array",
            tuple: "array", dict: "object"}.get(type(value), type(value).__name__)


def _text(value: Any, path: str, *, allow_empty: bool = True, check_unicode: bool = True) -> str:
    if not isinstance(value, str):
        raise _fail(path, f"expected a string, got {type_name(value)}")
    if type(value) is not str:
        # a str subclass is read as its characters, as an exact str: its own methods (encode,
        # __eq__, __hash__, ...) play no part in what is checked or stored (red team 122, F13)
        value = str.__str__(value)
    if not allow_empty and not value:
        raise _fail(path, "must not be empty")
    if check_unicode:
        encode_text(value, path)
    return value


def encode_text(value: str, path: str) -> bytes:
    """UTF-8 bytes of ``value``; a lone surrogate is an error naming ``path``."""
    try:
        return str.encode(value, "utf-8")  # (not a subclass's own encode: red team 122, F13)
    except UnicodeEncodeError as exc:
        raise _fail(path, f"contains a lone surrogate at index {exc.start}; text must be valid Unicode") from None


def duplicate_id_error(path: str, i: int, block_id: str, first: int) -> EditFormatError:
    """The error for block ``i`` of window ``path`` repeating the id of block ``first``."""
    return _fail(f"{path}[{i}].id", f"duplicate block id {block_id!r} (also at {path}[{first}])")


def _ident(value: Any, path: str) -> str:
    value = _text(value, path, allow_empty=False)
    if len(value) > MAX_ID_CHARS:
        raise _fail(path, f"longer than {MAX_ID_CHARS} characters")
    if "\x00" in value:
        raise _fail(path, "contains a NUL character")
    return value


def _handle(value: Any, path: str, what: str = "handle") -> str:
    # ``what`` names the value in the message: a block's resource has a handle's limits, and
    # its error said "handle longer than ..." (red team 49, F04)
    value = _text(value, path, allow_empty=False)
    if "\x00" in value:
        raise _fail(path, f"{what} contains a NUL character")
    if len(value.encode("utf-8")) > MAX_HANDLE_BYTES:
        raise _fail(path, f"{what} longer than {MAX_HANDLE_BYTES} UTF-8 bytes")
    return value


def _bool(value: Any, path: str) -> bool:
    if not isinstance(value, bool):
        raise _fail(path, f"expected a boolean, got {type_name(value)}")
    return value


def _int(value: Any, path: str) -> int:
    # A number with a zero fractional part (0.0, 1e3) is an integer to JSON Schema, whose
    # "integer" type the schema gives offsets, and so it is read as one: refused, the schema and
    # the parser disagreed (red team 49, F04). 1.5, NaN and the infinities stay refused.
    if type(value) is float and value.is_integer():
        return int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail(path, f"expected an integer, got {type_name(value)}")
    return value


def _ts(value: Any, path: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _fail(path, f"expected a number or null, got {type_name(value)}")
    try:
        as_float = float(value)
    except OverflowError:
        raise _fail(path, "is beyond the range of a float") from None
    if not math.isfinite(as_float):
        raise _fail(path, "must be a finite number")
    # compared as given (an int beyond 2**53 may round to 2**53 as a float): see MAX_TS
    if not -MAX_TS <= value <= MAX_TS:
        raise _fail(path, f"{value!r} is beyond +-2**53 ({MAX_TS}), where a float64 no longer holds every "
                          "integer and two stamps could compare equal; give ts in seconds or milliseconds")
    return as_float


def _array(value: Any, path: str) -> Sequence[Any]:
    if not isinstance(value, (list, tuple)):
        raise _fail(path, f"expected an array, got {type_name(value)}")
    return value


def _object(value: Any, path: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise _fail(path, f"expected an object, got {type_name(value)}")
    return value


def _handles(value: Any, path: str) -> tuple[str, ...]:
    return tuple(_handle(h, f"{path}[{i}]") for i, h in enumerate(_array(value, path)))


# -- model ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Block:
    """One item of a context window.

    ``handles`` name the sources the text comes from (primary blocks); a ``derived`` block is
    the output of a lossy operator and names its sources in ``derived_from``. ``pinned`` blocks
    may be kept verbatim or evicted, never rewritten. ``resource`` (optional) names what a tool
    output is a read of (``file:src/app.py``), so two reads of one resource can be told apart
    from two unrelated outputs (invariant I4).
    """

    id: str
    role: str
    text: str
    handles: tuple[str, ...] = ()
    derived: bool = False
    derived_from: tuple[str, ...] = ()
    pinned: bool = False
    ts: float | None = None
    resource: str | None = None

    def __post_init__(self) -> None:
        # Python callers get the same checks as JSON input; tuples keep blocks hashable. Block
        # text is checked for type only: it is encoded (and a lone surrogate reported) once,
        # where it is hashed.
        values = _block_fields(self.__getattribute__, "block")
        for name, value in zip(_BLOCK_FIELDS, values):
            object.__setattr__(self, name, value)

    @property
    def provenance(self) -> tuple[str, ...]:
        """The handles this block's text is justified by (I1)."""
        return self.derived_from if self.derived else self.handles

    @classmethod
    def from_json(cls, obj: Any, path: str = "block") -> Block:
        obj = _object(obj, path)
        for required in ("id", "role", "text"):
            if required not in obj:
                raise _fail(f"{path}.{required}", "required field is missing")
        block = object.__new__(cls)
        values = _block_fields(lambda name: obj.get(name, _BLOCK_DEFAULTS.get(name)), path)
        for name, value in zip(_BLOCK_FIELDS, values):
            object.__setattr__(block, name, value)
        return block

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "role": self.role,
            "text": self.text,
            "handles": list(self.handles),
            "derived": self.derived,
            "derived_from": list(self.derived_from),
            "pinned": self.pinned,
            "ts": self.ts,
        }
        if self.resource is not None:
            out["resource"] = self.resource
        return out


_BLOCK_FIELDS = ("id", "role", "text", "handles", "derived", "derived_from", "pinned", "ts", "resource")
_BLOCK_DEFAULTS: dict[str, Any] = {"handles": (), "derived": False, "derived_from": (), "pinned": False}


def _block_fields(get: Any, path: str) -> tuple[Any, ...]:
    """Validated block field values, in ``_BLOCK_FIELDS`` order; ``get(name)`` reads one."""
    role = _text(get("role"), f"{path}.role")
    if role not in ROLES:
        raise _fail(f"{path}.role", f"unknown role {role!r}; expected one of {sorted(ROLES)}")
    resource = get("resource")
    return (
        _ident(get("id"), f"{path}.id"),
        role,
        _text(get("text"), f"{path}.text", check_unicode=False),
        _handles(get("handles"), f"{path}.handles"),
        _bool(get("derived"), f"{path}.derived"),
        _handles(get("derived_from"), f"{path}.derived_from"),
        _bool(get("pinned"), f"{path}.pinned"),
        _ts(get("ts"), f"{path}.ts"),
        None if resource is None else _handle(resource, f"{path}.resource", "resource"),
    )


class Window(Sequence[Block]):
    """An ordered, immutable list of blocks with unique ids."""

    __slots__ = ("_blocks", "_by_id", "__weakref__")

    def __init__(self, blocks: Iterable[Block | Mapping[str, Any]] = (), *, path: str = "window") -> None:
        # JSON objects parsed as Block.from_json does, ids checked unique (natively: every edit
        # an agent passes as plain objects builds two windows of hundreds of blocks)
        self._blocks, self._by_id = _window_blocks(blocks, path)

    @classmethod
    def coerce(cls, value: Window | Iterable[Block | Mapping[str, Any]], path: str = "window") -> Window:
        if isinstance(value, Window):
            return value
        if isinstance(value, (str, bytes, Mapping)):
            raise _fail(path, f"expected an array of blocks, got {type_name(value)}")
        if not isinstance(value, (list, tuple)):
            try:
                value = list(value)
            except TypeError:
                raise _fail(path, f"expected an array of blocks, got {type_name(value)}") from None
        return cls(_array(value, path), path=path)

    def __getitem__(self, index):  # type: ignore[override]
        return self._blocks[index]

    @property
    def blocks(self) -> tuple[Block, ...]:
        """The blocks as a tuple (indexing a tuple skips a Python-level call per lookup)."""
        return self._blocks

    def __len__(self) -> int:
        return len(self._blocks)

    def positions_by_id(self) -> Mapping[str, int]:
        """Block id -> position (a read-only view of the index built with the window)."""
        return MappingProxyType(self._by_id)

    def __iter__(self) -> Iterator[Block]:
        return iter(self._blocks)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Window) and self._blocks == other._blocks

    def __hash__(self) -> int:
        return hash(self._blocks)

    def __repr__(self) -> str:
        return f"Window({len(self._blocks)} blocks)"

    def get(self, block_id: str) -> Block | None:
        i = self._by_id.get(block_id)
        return None if i is None else self._blocks[i]

    def index(self, block_id: str) -> int:  # type: ignore[override]
        return self._by_id[block_id]

    def to_json(self) -> list[dict[str, Any]]:
        return [b.to_json() for b in self._blocks]

    @classmethod
    def from_json(cls, value: Any, path: str = "window") -> Window:
        return cls(_array(value, path), path=path)


@dataclass(frozen=True, slots=True)
class Supersession:
    """Post block ``block`` replaces the older source ``handle`` (invariant I4).

    Made in Python it gets the checks its JSON form gets (EditFormatError naming the field)."""

    block: str
    handle: str

    def __post_init__(self) -> None:
        for name, value in zip(("block", "handle"), _supersession_fields(self.block, self.handle, "supersession")):
            object.__setattr__(self, name, value)

    def to_json(self) -> dict[str, str]:
        return {"block": self.block, "handle": self.handle}

    @classmethod
    def from_json(cls, obj: Any, path: str) -> Supersession:
        obj = _object(obj, path)
        for required in ("block", "handle"):
            if required not in obj:
                raise _fail(f"{path}.{required}", "required field is missing")
        edge = object.__new__(cls)  # checked once, naming the JSON path
        for name, value in zip(("block", "handle"), _supersession_fields(obj["block"], obj["handle"], path)):
            object.__setattr__(edge, name, value)
        return edge


def _supersession_fields(block: Any, handle: Any, path: str) -> tuple[str, str]:
    return _ident(block, f"{path}.block"), _handle(handle, f"{path}.handle")


_CITATION_FIELDS = ("block", "handle", "start", "end", "hash")


@dataclass(frozen=True, slots=True)
class Citation:
    """A byte-range citation from post block ``block`` into the original source ``handle``.

    ``start``/``end`` are UTF-8 byte offsets into the source (end exclusive); ``hash`` is the
    algorithm-prefixed digest of those bytes (``blake3:`` or ``sha256:``). Made in Python it gets
    the checks its JSON form gets (EditFormatError naming the field): offsets are ints (not
    bools) with ``0 <= start <= end``, ``block`` an id, ``handle`` a handle, ``hash`` a non-empty
    string (a malformed digest is a P violation of the check, as in JSON). ``source_digest``,
    optional, is the digest of the whole source the span was cut from, as a store pointer
    carries it: when given, P refuses the pointer unless it names the stored source
    (``source_changed``, as ``SourceStore.resolve`` does: red team 122, F06).
    """

    block: str
    handle: str
    start: int
    end: int
    hash: str
    source_digest: str | None = None

    def __post_init__(self) -> None:
        values = _citation_fields(self.block, self.handle, self.start, self.end, self.hash, "citation")
        for name, value in zip(_CITATION_FIELDS, values):
            object.__setattr__(self, name, value)
        object.__setattr__(self, "source_digest", _source_digest_field(self.source_digest, "citation"))

    def to_json(self) -> dict[str, Any]:
        out = {"block": self.block, "handle": self.handle, "start": self.start, "end": self.end, "hash": self.hash}
        if self.source_digest is not None:
            out["source_digest"] = self.source_digest
        return out

    @classmethod
    def from_pointer(cls, pointer: Any, block: str) -> Citation:
        """The citation of a store pointer (``SourceStore.pointer``) from post block ``block``;
        a nominal pointer, into a derived text, is none (as its JSON form is refused)."""
        if getattr(pointer, "nominal", False):
            raise _fail("nominal", "a nominal pointer points into a derived text, not a source: it cannot be a citation")
        return cls(block, pointer.handle, pointer.start, pointer.end, pointer.span_digest,
                   getattr(pointer, "source_digest", None))

    @classmethod
    def from_json(cls, obj: Any, path: str) -> Citation:
        obj = _object(obj, path)
        # a store pointer's JSON (SourceStore.pointer(...).to_json()) with a block added: a
        # nominal one points into a derived text (a summary), not a source: no citation (red
        # team 12, z08), with or without a hash; "nominal" is a boolean, as Pointer.from_json
        # reads it ("yes" or 1 was read as not nominal: red team 83, F07)
        if "nominal" in obj:
            if type(obj["nominal"]) is not bool:
                raise _fail(f"{path}.nominal", f"must be a boolean, not {type(obj['nominal']).__name__}")
            if obj["nominal"]:
                raise _fail(f"{path}.nominal", "a nominal pointer points into a derived text, not a source: it cannot be a citation")
        if obj.get("span_digest", 0) is None:
            obj = {k: v for k, v in obj.items() if k != "span_digest"}  # (null: not given, red team 124, F08)
        if "hash" not in obj and "span_digest" in obj:
            # (its digest of the span is the citation's hash)
            obj = {**obj, "hash": obj["span_digest"]}
        elif "span_digest" in obj and obj["span_digest"] != obj["hash"]:
            # two digests of one span that differ: which one is meant is ambiguous, as a key
            # given twice is (red team 122, F06: "hash" was kept, "span_digest" dropped unread)
            other = (isinstance(obj["span_digest"], str) and isinstance(obj["hash"], str)
                     and obj["span_digest"].partition(":")[0] != obj["hash"].partition(":")[0])
            raise _fail(f"{path}.span_digest",
                        "names another algorithm than hash; give one digest of the span, not two" if other else
                        "differs from hash; both give the digest of the span, and which one is meant is ambiguous "
                        "(give one, or the same digest in both)")
        for required in _CITATION_FIELDS:
            if required not in obj:
                raise _fail(f"{path}.{required}", "required field is missing")
        citation = object.__new__(cls)  # checked once, naming the JSON path
        values = _citation_fields(*(obj[name] for name in _CITATION_FIELDS), path)
        for name, value in zip(_CITATION_FIELDS, values):
            object.__setattr__(citation, name, value)
        # a store pointer's digest of its whole source: read, and checked by P against the
        # stored source (red team 122, F06: dropped unread, P accepted what resolve refused)
        object.__setattr__(citation, "source_digest", _source_digest_field(obj.get("source_digest"), path))
        return citation


def _source_digest_field(value: Any, path: str) -> str | None:
    """A citation's optional ``source_digest``: None (absent or null, as a store pointer may not
    say), else a non-empty string (its form is P's to judge, as the hash's)."""
    return None if value is None else _text(value, f"{path}.source_digest", allow_empty=False)


def _citation_fields(block: Any, handle: Any, start: Any, end: Any, hash_: Any, path: str) -> tuple[Any, ...]:
    """Validated citation field values, in ``_CITATION_FIELDS`` order (a negative start would
    slice from the end of the source, and still "resolve")."""
    start = _int(start, f"{path}.start")
    end = _int(end, f"{path}.end")
    for name, value in (("start", start), ("end", end)):
        if value > MAX_OFFSET:
            raise _fail(f"{path}.{name}", "must be <= 2**63 - 1 (a byte offset)")
    if start < 0:
        raise _fail(f"{path}.start", "must be >= 0")
    if end < start:
        raise _fail(f"{path}.end", f"must be >= start ({start})")
    return (
        _ident(block, f"{path}.block"),
        _handle(handle, f"{path}.handle"),
        start,
        end,
        _text(hash_, f"{path}.hash", allow_empty=False),
    )


def _source_kind(handle: str, kind: Any, path: str) -> str:
    """A kind of an inline source, checked (SOURCE_KINDS): only under a block's text handle
    (``block:`` and 32 hex digits, handles.block_text_handle), where compact() stores window texts
    and where the gate's P asks a source's kind; under another handle P would never read it."""
    kind = _text(kind, path, allow_empty=False)
    if kind not in SOURCE_KINDS:
        raise _fail(path, f"unknown kind {kind[:60]!r}; expected one of {list(SOURCE_KINDS)} (a plain source has no kind: "
                          "give its text as a string)")
    if _BLOCK_TEXT_HANDLE.match(handle) is None:
        raise _fail(path, f"kind {kind!r} is given only to a block's text handle ('block:' and the first 32 hex "
                          "digits of the text's BLAKE3, handles.block_text_handle), where the gate looks for it; "
                          f"{handle[:60]!r} is not one")
    return kind


def _check_block_text(handle: str, text: str, path: str) -> None:
    """A block's text handle names its text (the first 32 hex digits of its BLAKE3): other text
    under it is refused here, naming the source, as the store would refuse it — but before any
    store is opened or made (red team 122, F09: refused only by the store's put, after
    `provgate check --create` had made the store, naming no field)."""
    from blake3 import blake3

    if blake3(str.encode(text, "utf-8")).digest()[:16].hex() != handle[len("block:"):]:
        raise _fail(path, f"handle {handle[:60]!r} names a block's text by its BLAKE3 (its first 32 hex digits, "
                          "handles.block_text_handle), and this is another text")


def _source_entry(value: Any, handle: str, path: str) -> tuple[str, str | None]:
    """``(text, kind)`` of an inline source as JSON gives it: a string (a plain source), or an
    object ``{"text": ..., "kind": ...}`` (kind optional; other members ignored, as everywhere)."""
    if not isinstance(value, Mapping):
        # (a str, else the error an Edit made in Python gives for it: its sources are texts)
        return _text(value, path), None
    if "text" not in value:
        raise _fail(f"{path}.text", "required field is missing")
    text = _text(value["text"], f"{path}.text")
    kind = _source_kind(handle, value["kind"], f"{path}.kind") if "kind" in value else None
    return text, kind


class _CheckedSources(dict):
    """An edit's sources as Edit.from_json read them, every text checked for valid Unicode: the
    Edit it makes need not encode them all again."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class Edit:
    """A proposed context edit: replace ``pre`` by ``post`` with ``operator``."""

    operator: str
    pre: Window
    post: Window
    evicted: tuple[str, ...] = ()
    supersedes: tuple[Supersession, ...] = ()
    pointers: tuple[Citation, ...] = ()
    sources: Mapping[str, str] = field(default_factory=dict)
    # the kind of each inline source that has one (SOURCE_KINDS): handle -> kind, each a handle of
    # ``sources``; stored with it (a summary's words as provgate.store.DERIVED_KIND)
    source_kinds: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # An Edit built in Python gets the checks a JSON edit gets, so nothing unchecked
        # reaches the gate (or its audit log).
        if not isinstance(self.operator, str) or self.operator not in OPERATORS:
            raise _fail("operator", f"unknown operator {self.operator!r}; expected one of {sorted(OPERATORS)}")
        for name in ("pre", "post"):
            if not isinstance(getattr(self, name), Window):
                raise _fail(name, f"expected a Window, got {type_name(getattr(self, name))} (use Window(blocks))")
        object.__setattr__(self, "evicted", _handles(self.evicted, "evicted"))
        for name, kind in (("supersedes", Supersession), ("pointers", Citation)):
            items = tuple(_array(getattr(self, name), name))
            for i, item in enumerate(items):
                if not isinstance(item, kind):
                    raise _fail(f"{name}[{i}]", f"expected a {kind.__name__}, got {type_name(item)}")
                # each item checked itself when it was made; again here, cheaply, whatever made it
                # (a subclass, or object.__new__), naming its place in the edit as JSON would
                if kind is Citation:
                    _citation_fields(*(getattr(item, f) for f in _CITATION_FIELDS), f"{name}[{i}]")
                    _source_digest_field(getattr(item, "source_digest", None), f"{name}[{i}]")
                else:
                    _supersession_fields(item.block, item.handle, f"{name}[{i}]")
            object.__setattr__(self, name, items)
        sources = _object(self.sources, "sources")
        # each text checked for valid Unicode as parse_edit checks it: unchecked, an Edit made
        # in Python with a lone surrogate in a source was built, and only its JSON form refused
        # (red team 49, F07). Sources parse_edit read were checked there (_CheckedSources), and
        # an ASCII str needs no encoding to know it has none (isascii() reads a flag).
        checked = type(sources) is _CheckedSources
        for handle, text in sources.items():
            _handle(handle, f"sources[{handle!r}]")
            _text(text, f"sources[{handle!r}]",
                  check_unicode=not checked and not (isinstance(text, str) and text.isascii()))
            if _BLOCK_TEXT_HANDLE.match(handle) is not None:
                _check_block_text(handle, text, f"sources[{handle!r}]")
        kinds = _object(self.source_kinds, "source_kinds")
        if kinds:
            for handle, kind in kinds.items():
                if not isinstance(handle, str) or handle not in sources:
                    raise _fail(f"source_kinds[{handle!r}]", "names no source of the edit (a kind is given with the "
                                                              "source's text, in sources)")
                _source_kind(handle, kind, f"sources[{handle!r}].kind")

    @property
    def lossless(self) -> bool:
        return self.operator in LOSSLESS_OPERATORS

    @property
    def lossy(self) -> bool:
        return self.operator in LOSSY_OPERATORS

    @classmethod
    def from_json(cls, obj: Any) -> Edit:
        obj = _object(obj, "edit")
        fmt = obj.get("format", FORMAT)
        fmt = _text(fmt, "format")
        m = _FORMAT_RE.match(fmt)
        if m is None:
            raise _fail("format", f"unrecognised format {fmt!r}; expected {FORMAT!r}")
        if m.group(1) != str(FORMAT_MAJOR):  # (a string: a run of 5,000 digits is no int Python converts, red team 83, F04)
            raise _fail("format", f"unsupported format version {fmt!r}; this provgate reads {FORMAT!r}")
        for required in ("operator", "pre", "post"):
            if required not in obj:
                raise _fail(required, "required field is missing")
        operator = _text(obj["operator"], "operator")
        if operator not in OPERATORS:
            raise _fail("operator", f"unknown operator {operator!r}; expected one of {sorted(OPERATORS)}")
        sources_obj = _object(obj.get("sources", {}), "sources")
        sources = _CheckedSources()
        kinds: dict[str, str] = {}
        for key, value in sources_obj.items():
            handle = _handle(key, f"sources[{key!r}]")
            sources[handle], kind = _source_entry(value, handle, f"sources[{key!r}]")
            if kind is not None:
                kinds[handle] = kind
        return cls(
            operator=operator,
            pre=Window.from_json(obj["pre"], "pre"),
            post=Window.from_json(obj["post"], "post"),
            evicted=_handles(obj.get("evicted", ()), "evicted"),
            supersedes=tuple(
                Supersession.from_json(s, f"supersedes[{i}]") for i, s in enumerate(_array(obj.get("supersedes", ()), "supersedes"))
            ),
            pointers=tuple(
                Citation.from_json(p, f"pointers[{i}]") for i, p in enumerate(_array(obj.get("pointers", ()), "pointers"))
            ),
            sources=sources,
            source_kinds=kinds,
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "format": FORMAT,
            "operator": self.operator,
            "pre": self.pre.to_json(),
            "post": self.post.to_json(),
            "evicted": list(self.evicted),
            "supersedes": [s.to_json() for s in self.supersedes],
            "pointers": [p.to_json() for p in self.pointers],
        }
        if self.sources:
            kinds = self.source_kinds
            out["sources"] = {h: {"text": t, "kind": kinds[h]} if h in kinds else t for h, t in self.sources.items()}
        return out


# -- JSON text --------------------------------------------------------------------------------


# Where a value JSON may not hold is: found only on the error path, by reading the document again
# with the value replaced by this marker, and walking it (red team 134, F07: the error named no field)
_FOUND = object()


def _int_or_found(digits: str) -> Any:
    try:
        return int(digits)
    except ValueError:
        return _FOUND


def _first_field(text: str, **hooks: Any) -> str | None:
    """The path of the first value (or key) of the JSON ``text`` read with ``hooks`` that is the
    marker, or a string holding ``hooks['marker']``; None when ``text`` is not read so (or the
    marker is nowhere)."""
    marker = hooks.pop("marker", None)
    try:
        document = json.loads(text, **hooks)
    except (ValueError, RecursionError):
        return None

    def hit(value: Any) -> bool:
        return value is _FOUND or (marker is not None and isinstance(value, str) and marker in value)

    pending: list[tuple[str, Any]] = [("", document)]
    while pending:  # (not recursive, as _repeated_keys)
        path, value = pending.pop()
        if hit(value):
            return path or "(the document)"
        if isinstance(value, dict):
            if any(hit(key) for key in value):
                return f"{path or '(the document)'} (a key)"
            pending.extend((_member_path(path, key), item) for key, item in reversed(value.items()))
        elif isinstance(value, list):
            pending.extend((f"{path}[{i}]", item) for i, item in reversed(list(enumerate(value))))
    return None


def _invalid_utf8_field(data: bytes) -> str | None:
    """The field whose string holds the input's first byte that is not UTF-8: the bytes are read
    with each such byte as a marker no valid input holds (a lone surrogate of surrogateescape,
    which a JSON text has only as a ``\\u`` escape, never as itself)."""
    text = data.decode("utf-8", "surrogateescape")
    marker = "\ue000\ufdd0\ue001"
    while marker in text:
        marker += "\ue002"
    text = re.sub("[\udc80-\udcff]", marker, text)
    return _first_field(text, marker=marker)


def _reject_constant(name: str) -> Any:
    raise EditFormatError(f"JSON contains {name}, which is not valid JSON", field=None)


def _member_path(path: str, key: str) -> str:
    """The path of member ``key`` of the object at ``path``, as the reader names fields
    (``post[2].text``; ``sources['tool:x']`` for a key that is no identifier)."""
    if key.isidentifier():
        return f"{path}.{key}" if path else key
    return f"{path}[{key!r}]"


def _repeated_keys(document: Any, repeated: dict[int, tuple[dict[str, Any], str]]) -> Iterator[tuple[str, str]]:
    """``(path, key)`` of each object of ``document`` that had a key twice, in document order. Such
    an object that is no longer in the document was the value of a key its parent had twice, so
    the parent is named instead."""
    pending: list[tuple[str, Any]] = [("", document)]
    while pending:  # not recursive: a document nested as deep as json reads must not overflow here
        path, value = pending.pop()
        if isinstance(value, dict):
            if id(value) in repeated:
                key = repeated[id(value)][1]
                yield _member_path(path, key), key
            pending.extend((_member_path(path, key), item) for key, item in reversed(value.items()))
        elif isinstance(value, list):
            pending.extend((f"{path}[{i}]", item) for i, item in reversed(list(enumerate(value))))


def loads_json(data: str | bytes) -> Any:
    """Parse JSON strictly: valid UTF-8, no NaN/Infinity, no duplicate keys (the error names
    the path to the repeated key: ``post[2].text``)."""
    if isinstance(data, (bytes, bytearray, memoryview)):
        try:
            data = bytes(data).decode("utf-8")
        except UnicodeDecodeError as exc:
            field = _invalid_utf8_field(bytes(data))
            raise EditFormatError(f"{field + ': ' if field else ''}input is not valid UTF-8 (byte {exc.start})",
                                  field=field) from None
    # The hook sees an object before its parents exist, so it cannot tell where the object is:
    # it notes the object (held, so that its id is not reused), and the path is found once the
    # document is whole (red team 83, F09: the error named the key only, "text", not where it was)
    repeated: dict[int, tuple[dict[str, Any], str]] = {}

    def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out = dict(pairs)
        if len(out) < len(pairs):
            counts = Counter(key for key, _ in pairs)
            repeated[id(out)] = (out, next(key for key, n in counts.items() if n > 1))
        return out

    try:
        document = json.loads(data, parse_constant=_reject_constant, object_pairs_hook=unique_keys)
    except json.JSONDecodeError as exc:
        raise EditFormatError(f"invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}", field=None) from None
    except RecursionError:
        raise EditFormatError("invalid JSON: nested too deeply", field=None) from None
    except EditFormatError as exc:
        if exc.field is None and str(exc).startswith("JSON contains "):  # NaN, Infinity, -Infinity
            field = _first_field(data, parse_constant=lambda name: _FOUND)
            if field is not None:
                raise EditFormatError(f"{field}: {exc}", field=field) from None
        raise
    except ValueError as exc:  # an integer literal beyond Python's digit limit (int_max_str_digits)
        field = _first_field(data, parse_int=_int_or_found)
        what = (f"an integer of more than {sys.get_int_max_str_digits()} digits, more than is read"
                if "digits" in str(exc) else str(exc))  # (not Python's advice to raise its limit)
        raise EditFormatError(f"{field + ': ' if field else ''}invalid JSON: {what}", field=field) from None
    if repeated:
        path, key = next(_repeated_keys(document, repeated))
        raise _fail(path, f"JSON object has the key {key!r} twice; which one is meant is ambiguous")
    return document


def parse_edit(data: str | bytes | Mapping[str, Any]) -> Edit:
    """An :class:`Edit` from JSON text or an already-decoded JSON object."""
    if isinstance(data, Mapping):
        return Edit.from_json(data)
    return Edit.from_json(loads_json(data))



def _window_blocks(items: Any, path: str) -> tuple[tuple[Block, ...], dict[str, int]]:
    """``_blockscan.window_blocks``, imported on the first window made: the per-block passes
    import Block from this module, so importing them here at import time would be a cycle
    (and whichever of the two modules was imported first would find the other half-made)."""
    global _window_blocks
    from provgate._blockscan import window_blocks

    _window_blocks = window_blocks
    return window_blocks(items, path)
