"""Grounded-span extraction: the facts a text asserts, as a columnar fact table.

``extract(text)`` scans UTF-8 text for grounded spans (numbers, identifiers, names, paths,
URLs, digests, ``key=value`` facts, quotes and citation markers; the grammar is
``docs/grammar.md``) and returns a :class:`FactTable`: numpy columns of kinds, byte offsets and
128-bit fingerprints of each fact's key, value and ``(key, value)`` pair. Python objects are
made only when asked for (``table.span(i)``, iteration, ``keys()``, ``values()``).

Offsets are UTF-8 **byte** offsets into ``table.data``, end exclusive: the unit of pointers.

Fingerprints
------------
Each fingerprint is the first 16 bytes of a keyed BLAKE3 digest, stored as two big-endian
uint64 words ``(hi, lo)`` in an ``(n, 2)`` uint64 array, so ``(hi, lo)`` order is digest byte
order. The BLAKE3 key is derived, not chosen::

    FINGERPRINT_KEY = BLAKE3.derive_key(context="provgate 2026-11 fact fingerprints",
                                        key_material=b"extractor %d" % EXTRACTOR_VERSION)

so fingerprints of different extractor versions never compare equal by accident. The hashed
messages frame their parts unambiguously (lengths are u64 little-endian):

- ``fp_key``:   ``b"K" + flag + len(key) + key``
- ``fp_value``: ``b"V" + len(value) + value``
- ``fp_fact``:  ``b"F" + flag + len(key) + key + len(value) + value``

where ``key`` is the config key of a kv fact (``flag`` 1) or the kind's name (``flag`` 0, so
``number=5`` and the number ``5`` are different facts), and ``value`` is the normalised value.
``fp_value`` does not depend on the kind: the same value asserted as a number, inside a kv
fact or as a name has one value fingerprint.

Value normalisation (before hashing, and in ``Span.value``)
------------------------------------------------------------
- numbers: thousands separators removed (``1,000`` == ``1000``), a leading ``+`` removed,
  negative zero is zero (``-0``, ``-0.0`` == ``0``, ``0.0``), hex literals lower-cased
  (``0xFF`` == ``0xff``), a capitalised cardinal lower-cased (``Three`` == ``three``: grammar
  v18); everything else as written (``3.10`` != ``3.1``, ``007`` != ``7``, ``v2`` != ``2``,
  ``three`` != ``3``, ``30s`` != ``30 s``). ``NaN`` and ``inf`` are words.
- digests and UUIDs: lower-cased.
- an unquoted kv value: as the token it would be on its own (``retries=1,000`` has the
  value ``1000``); a quoted kv value: verbatim.
- quotes, fenced code, paths, URLs, identifiers, names, citation handles: verbatim, whitespace
  included (a quote is checked byte for byte against its source).

Limits
------
``extract`` refuses text over ``max_bytes`` (default 64 MiB) and texts with more than
``max_spans`` spans (default 4 Mi) with :class:`~provgate.errors.LimitExceededError`. Memory is
proportional to the spans: a finished table holds 98 bytes per span besides the text (its
eleven columns share one buffer), and extraction peaks at about 250 bytes per span (scanner
rows, a record per row for deduplicating facts, the dedup table; measured 233 on the benchmark
window and 167 when every fact is distinct), so one call at the default limits peaks near
1 GB. A typical agent window has one span per 20 bytes. Each distinct fact is framed and hashed
once, however often it occurs.
"""

from __future__ import annotations

import enum
import struct
from collections.abc import Iterator
from typing import Any, NamedTuple

import numpy as np
from blake3 import blake3

from provgate import _scanner, _scanner_py
from provgate._hashing import hash_spans
from provgate.errors import InvalidContentError, LimitExceededError, StoreCorruptionError
from provgate.text import utf8_bytes

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_SPANS",
    "EXTRACTOR_VERSION",
    "FINGERPRINT_KEY",
    "FactTable",
    "Kind",
    "Span",
    "extract",
    "extract_many",
    "fingerprint_fact",
    "fingerprint_key",
    "fingerprint_kv_keys",
    "fingerprint_value",
    "fingerprint_values",
    "normalize_value",
]

# Changes whenever the grammar, the normalisation or the fingerprint framing changes, so
# cached fact tables keyed by (content digest, EXTRACTOR_VERSION) are never stale.
EXTRACTOR_VERSION = 18

DEFAULT_MAX_BYTES = 64 * 1024 * 1024
DEFAULT_MAX_SPANS = 4 * 1024 * 1024

_FINGERPRINT_CONTEXT = "provgate 2026-11 fact fingerprints"
FINGERPRINT_KEY: bytes = blake3(
    b"extractor %d" % EXTRACTOR_VERSION, derive_key_context=_FINGERPRINT_CONTEXT
).digest()


class Kind(enum.IntEnum):
    """What a span asserts. The numbers are part of the stored fact-table format."""

    NUMBER = _scanner_py.NUMBER
    IDENTIFIER = _scanner_py.IDENTIFIER
    PATH = _scanner_py.PATH
    URL = _scanner_py.URL
    DIGEST = _scanner_py.DIGEST
    KV = _scanner_py.KV
    QUOTE = _scanner_py.QUOTE
    CITATION = _scanner_py.CITATION
    NAME = _scanner_py.NAME


class Span(NamedTuple):
    """One fact: its kind, byte offsets, literal text, key and (normalised) value."""

    kind: Kind
    start: int
    end: int
    text: str
    key: str
    value: str


# -- input -------------------------------------------------------------------------------------


def _utf8(text: Any, what: str = "text") -> bytes:
    return utf8_bytes(text, what)


# -- fingerprints ------------------------------------------------------------------------------


def _fingerprints(digests: np.ndarray) -> np.ndarray:
    """``(n, 32)`` uint8 digests -> ``(n, 2)`` uint64 ``(hi, lo)`` of their first 16 bytes."""
    return digests.view(">u8")[:, :2].astype(np.uint64, order="C")


def _as_bytes(value: str | bytes, what: str) -> bytes:
    if isinstance(value, str):
        return _utf8(value, what)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return _utf8(value, what)
    raise InvalidContentError(f"{what} must be str or bytes, not {type(value).__name__}")


def fingerprint_values(values: Any) -> np.ndarray:
    """``(n, 2)`` uint64 value fingerprints of already-normalised values (str or bytes)."""
    frames = [_scanner_py.frame_value(_as_bytes(v, "value")) for v in values]
    return _hash_frames(frames)


def fingerprint_value(value: str | bytes) -> np.ndarray:
    """The ``(2,)`` uint64 fingerprint of one already-normalised value (see :func:`normalize_value`)."""
    return fingerprint_values([value])[0]


def _key_frame(kind: Kind, key: str | bytes | None) -> tuple[bytes, int]:
    kind = Kind(kind)
    if kind == Kind.KV:
        if key is None:
            raise InvalidContentError("a kv fact needs its key")
        return _as_bytes(key, "key"), 1
    if key is not None:
        raise InvalidContentError(f"a {kind.name.lower()} fact has no key of its own (its key is its kind)")
    return _scanner_py.KIND_NAMES[kind], 0


def fingerprint_key(kind: Kind, key: str | bytes | None = None) -> np.ndarray:
    """The ``(2,)`` key fingerprint of a fact of ``kind`` (``key`` only for :attr:`Kind.KV`)."""
    k, flag = _key_frame(kind, key)
    return _hash_frames([_scanner_py.frame_key(k, flag)])[0]


def fingerprint_kv_keys(keys: list[str | bytes]) -> np.ndarray:
    """``fingerprint_key(Kind.KV, key)`` for many keys, as an ``(n, 2)`` array, hashed in one call.

    The usual input (UTF-8 ``bytes``) is checked and framed without the per-key helpers;
    anything else goes through them, which convert it or raise.
    """
    keys = list(keys)
    # bytes joined by an ASCII byte are valid UTF-8 exactly when each one is (a newline can
    # neither complete nor continue a multi-byte sequence): one native check for all of them
    if not (set(map(type, keys)) <= {bytes} and _scanner.utf8_error_offset(b"\n".join(keys)) < 0):
        keys = [_key_frame(Kind.KV, k)[0] for k in keys]  # encodes str, copies bytes-like; raises on bad input
    return _hash_frames(_scanner_py.frame_keys(keys, 1))


def fingerprint_fact(kind: Kind, value: str | bytes, key: str | bytes | None = None) -> np.ndarray:
    """The ``(2,)`` fingerprint of the fact ``(key, value)``; ``value`` already normalised."""
    k, flag = _key_frame(kind, key)
    return _hash_frames([_scanner_py.frame_fact(k, flag, _as_bytes(value, "value"))])[0]


def _hash_frames(frames: list[bytes]) -> np.ndarray:
    buf = b"".join(frames)
    ends = np.cumsum([len(f) for f in frames], dtype=np.int64)
    starts = ends - np.array([len(f) for f in frames], dtype=np.int64)
    return _fingerprints(hash_spans(buf, starts, ends, key=FINGERPRINT_KEY))


def normalize_value(kind: Kind, value: str) -> str:
    """The normalised form of a value written as ``value`` in a fact of ``kind`` (for a kv
    fact: an unquoted value). See the module docstring."""
    raw = _as_bytes(value, "value")
    kind = Kind(kind)
    if kind == Kind.NUMBER:
        vk = _scanner_py.VALUE_NUMBER
    elif kind == Kind.DIGEST:
        vk = _scanner_py.VALUE_HEX
    elif kind == Kind.KV:
        vk = _scanner_py._bare_value_kind(raw)
    else:
        vk = _scanner_py.VALUE_RAW
    return _scanner_py.normalize_value(vk, raw).decode("utf-8")


# -- the table ---------------------------------------------------------------------------------

_MAGIC = b"PGFACTS\x00"
_FORMAT_VERSION = 1
_HEADER = struct.Struct("<8sIIQQ32s")  # magic, format, extractor version, rows, text bytes, text digest
_CHECKSUM_BYTES = 32
_INT_COLUMNS = ("start", "end", "key_start", "key_end", "value_start", "value_end")


class FactTable:
    """The facts of one text, column by column.

    Columns (numpy, read-only, one row per span, sorted by ``(start, end, kind)``):
    ``kind`` (uint8, see :class:`Kind`), ``start``, ``end`` (int64 byte offsets),
    ``fp_key``, ``fp_value``, ``fp_fact`` (``(n, 2)`` uint64 ``(hi, lo)`` fingerprints), and
    the raw offsets ``key_start``/``key_end`` (-1 when the key is the kind's name),
    ``value_start``/``value_end`` (the value as written, before normalisation) and
    ``value_kind`` (how the value is normalised).
    """

    __slots__ = (
        "data",
        "kind",
        "start",
        "end",
        "key_start",
        "key_end",
        "value_start",
        "value_end",
        "value_kind",
        "fp_key",
        "fp_value",
        "fp_fact",
        "_text",
    )

    def __init__(self, data: bytes, columns: tuple[np.ndarray, ...], fingerprints: tuple[np.ndarray, ...]) -> None:
        # internal: use extract() or from_bytes()
        self.data = data
        (
            self.kind,
            self.start,
            self.end,
            self.key_start,
            self.key_end,
            self.value_start,
            self.value_end,
            self.value_kind,
        ) = columns
        self.fp_key, self.fp_value, self.fp_fact = fingerprints
        for name in self.__slots__[1:-1]:
            getattr(self, name).flags.writeable = False
        self._text: str | None = None

    @classmethod
    def _extracted(cls, data: bytes, columns: tuple[np.ndarray, ...]) -> FactTable:
        """The table of ``_scanner.extract_columns`` output: eleven columns that are already
        read-only (both implementations make them so), taken as they are."""
        table = object.__new__(cls)
        (
            table.kind,
            table.start,
            table.end,
            table.key_start,
            table.key_end,
            table.value_start,
            table.value_end,
            table.value_kind,
            table.fp_key,
            table.fp_value,
            table.fp_fact,
        ) = columns
        table.data = data
        table._text = None
        return table

    # -- Python objects, on request ------------------------------------------------------------

    def __len__(self) -> int:
        return int(self.kind.shape[0])

    def __repr__(self) -> str:
        return f"<FactTable of {len(self)} spans over {len(self.data)} bytes>"

    @property
    def text(self) -> str:
        """The text the table was extracted from (decoded once, on first use)."""
        if self._text is None:
            self._text = self.data.decode("utf-8")
        return self._text

    def _index(self, i: Any) -> int:
        if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)):
            raise TypeError(f"span index must be an int, not {type(i).__name__}")
        n = len(self)
        i = int(i)
        if not -n <= i < n:
            raise IndexError(f"span index {i} out of range for {n} spans")
        return i + n if i < 0 else i

    def key_bytes(self, i: int) -> bytes:
        i = self._index(i)
        ks = int(self.key_start[i])
        if ks < 0:
            return _scanner_py.KIND_NAMES[int(self.kind[i])]
        return self.data[ks : int(self.key_end[i])]

    def value_bytes(self, i: int) -> bytes:
        """The normalised value of span ``i``, as bytes."""
        i = self._index(i)
        raw = self.data[int(self.value_start[i]) : int(self.value_end[i])]
        return _scanner_py.normalize_value(int(self.value_kind[i]), raw)

    def span(self, i: int) -> Span:
        i = self._index(i)
        s, e = int(self.start[i]), int(self.end[i])
        return Span(
            Kind(int(self.kind[i])),
            s,
            e,
            self.data[s:e].decode("utf-8"),
            self.key_bytes(i).decode("utf-8"),
            self.value_bytes(i).decode("utf-8"),
        )

    def __getitem__(self, i: int) -> Span:
        return self.span(i)

    def __iter__(self) -> Iterator[Span]:
        for i in range(len(self)):
            yield self.span(i)

    def keys(self) -> Iterator[str]:
        for i in range(len(self)):
            yield self.key_bytes(i).decode("utf-8")

    def values(self) -> Iterator[str]:
        for i in range(len(self)):
            yield self.value_bytes(i).decode("utf-8")

    # -- durable cache form ----------------------------------------------------------------------

    def to_bytes(self) -> bytes:
        """A self-checking serialisation for caching by ``(content digest, EXTRACTOR_VERSION)``.
        The text itself is not included (only its length and BLAKE3 digest)."""
        header = _HEADER.pack(
            _MAGIC, _FORMAT_VERSION, EXTRACTOR_VERSION, len(self), len(self.data), blake3(self.data).digest()
        )
        parts = [header, self.kind.tobytes(), self.value_kind.tobytes()]
        parts += [getattr(self, c).astype("<i8").tobytes() for c in _INT_COLUMNS]
        parts += [fp.astype("<u8").tobytes() for fp in (self.fp_key, self.fp_value, self.fp_fact)]
        body = b"".join(parts)
        return body + blake3(body).digest()

    @classmethod
    def from_bytes(cls, blob: Any, data: Any) -> FactTable:
        """Rebuild a table from :meth:`to_bytes` output and the text it was made from.

        Strict: a truncated or altered blob, one from another extractor version, or one made
        from other text raises :class:`~provgate.errors.StoreCorruptionError`.
        """
        return cls._from_blob(blob, _utf8(data, "data"), None)

    @classmethod
    def _from_blob(cls, blob: Any, data: bytes, data_digest: bytes | None) -> FactTable:
        """:meth:`from_bytes` of valid UTF-8 ``data`` whose BLAKE3 digest (32 bytes) the caller
        may already hold as ``data_digest`` (the gate hashed every block text it checks): it
        is compared with the one the blob was made from instead of hashing ``data`` again."""
        if not isinstance(blob, (bytes, bytearray, memoryview)):
            raise StoreCorruptionError(f"fact table blob must be bytes, not {type(blob).__name__}")
        blob = bytes(blob)
        if len(blob) < _HEADER.size + _CHECKSUM_BYTES:
            raise StoreCorruptionError(f"fact table blob is truncated ({len(blob)} bytes)")
        body, checksum = blob[:-_CHECKSUM_BYTES], blob[-_CHECKSUM_BYTES:]
        magic, fmt, version, rows, size, digest = _HEADER.unpack_from(body)
        if magic != _MAGIC:
            raise StoreCorruptionError("not a provgate fact table (bad magic)")
        if blake3(body).digest() != checksum:
            raise StoreCorruptionError("fact table blob is corrupted (checksum mismatch)")
        if fmt != _FORMAT_VERSION:
            raise StoreCorruptionError(f"fact table format {fmt} is not supported (expected {_FORMAT_VERSION})")
        if version != EXTRACTOR_VERSION:
            raise StoreCorruptionError(
                f"fact table was made by extractor version {version}, this is version {EXTRACTOR_VERSION}"
            )
        if size != len(data) or (blake3(data).digest() if data_digest is None else data_digest) != digest:
            raise StoreCorruptionError("fact table was made from different text than the data given")
        expected = _HEADER.size + rows * (2 + 8 * len(_INT_COLUMNS) + 3 * 16)
        if len(body) != expected:
            raise StoreCorruptionError(f"fact table blob has {len(body)} bytes, {rows} rows need {expected}")
        pos = _HEADER.size

        def take(dtype: str, count: int) -> np.ndarray:
            nonlocal pos
            width = np.dtype(dtype).itemsize * count
            arr = np.frombuffer(body, dtype=dtype, count=count, offset=pos)
            pos += width
            return arr

        kind = take("u1", rows).copy()
        value_kind = take("u1", rows).copy()
        ints = [take("<i8", rows).astype(np.int64) for _ in _INT_COLUMNS]
        fps = [take("<u8", 2 * rows).astype(np.uint64).reshape(rows, 2) for _ in range(3)]
        start, end, ks, ke, vs, ve = ints
        _check_columns(len(data), kind, start, end, ks, ke, vs, ve, value_kind)
        return cls(data, (kind, start, end, ks, ke, vs, ve, value_kind), tuple(fps))


_MAX_KIND = int(max(Kind))
_KIND_KV = int(Kind.KV)


def _check_columns(size, kind, start, end, ks, ke, vs, ve, vk) -> None:
    """Every row of a deserialised table must be one the scanner could have produced."""
    found = _scanner.first_invalid_row(size, kind, start, end, ks, ke, vs, ve, vk, _MAX_KIND, _scanner_py.VALUE_HEX,
                                       _KIND_KV)
    if found is not None:
        raise StoreCorruptionError(f"fact table row {found[0]} is invalid: {found[1]}")


# -- extraction --------------------------------------------------------------------------------


def _checked_limits(max_bytes: Any, max_spans: Any) -> None:
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 0:
        raise LimitExceededError(f"max_bytes must be a non-negative int, not {max_bytes!r}")
    if isinstance(max_spans, bool) or not isinstance(max_spans, int) or max_spans < 0:
        raise LimitExceededError(f"max_spans must be a non-negative int, not {max_spans!r}")


def _checked_data(text: Any, max_bytes: int) -> bytes:
    """``text`` as valid UTF-8 bytes within ``max_bytes``, or the error :func:`extract` raises."""
    if type(text) is bytes:
        # the gate's case, once per changed block of every edit: valid bytes are used as they
        # are (invalid ones go through _utf8 for its error)
        if len(text) > max_bytes:
            raise LimitExceededError(f"text of {len(text)} bytes exceeds max_bytes={max_bytes}")
        return text if _scanner.utf8_error_offset(text) < 0 else _utf8(text)
    if isinstance(text, str) and len(text) > max_bytes:  # each character is >= 1 byte
        raise LimitExceededError(f"text of {len(text)} characters exceeds max_bytes={max_bytes}")
    if isinstance(text, (bytearray, memoryview)) and memoryview(text).nbytes > max_bytes:
        raise LimitExceededError(f"text of {memoryview(text).nbytes} bytes exceeds max_bytes={max_bytes}")
    data = _utf8(text)
    if len(data) > max_bytes:
        raise LimitExceededError(f"text of {len(data)} bytes exceeds max_bytes={max_bytes}")
    return data


def extract(text: Any, *, max_bytes: int = DEFAULT_MAX_BYTES, max_spans: int = DEFAULT_MAX_SPANS) -> FactTable:
    """The fact table of ``text`` (str, or UTF-8 bytes / bytearray / memoryview).

    Raises :class:`~provgate.errors.InvalidContentError` for a lone surrogate in a ``str``,
    invalid UTF-8 in bytes (naming the offset) or a wrong type, and
    :class:`~provgate.errors.LimitExceededError` over ``max_bytes`` or ``max_spans``.
    """
    _checked_limits(max_bytes, max_spans)
    data = _checked_data(text, max_bytes)
    return FactTable._extracted(data, _scanner.extract_columns(data, max_spans, FINGERPRINT_KEY))


# extract_many scans at most this much text per native call: the tables of one call share one
# buffer, which lives while any of them does, so a batch is kept small enough that a table
# kept alone never holds much memory that is not its own
_BATCH_BYTES = 64 * 1024


def extract_many(texts: Any, *, max_bytes: int = DEFAULT_MAX_BYTES,
                 max_spans: int = DEFAULT_MAX_SPANS) -> list[FactTable]:
    """:func:`extract` of each of ``texts`` (a list or tuple), in order: the same tables, made
    by one native call for many short texts (a call's fixed cost and the hashing of a few
    facts at a time are paid once per batch instead of once per text).

    ``max_bytes`` and ``max_spans`` apply to each text. A text that :func:`extract` would
    refuse raises its error (with a note naming its index), the first such text in order.
    """
    _checked_limits(max_bytes, max_spans)
    if not isinstance(texts, (list, tuple)):
        raise TypeError(f"texts must be a list or tuple, not {type(texts).__name__}")
    tables: list[FactTable] = []
    batch: list[bytes] = []
    size = 0
    for i, text in enumerate(texts):
        try:
            data = _checked_data(text, max_bytes)
        except (InvalidContentError, LimitExceededError) as e:
            _extract_batch(batch, max_spans, i - len(batch))  # an earlier text over max_spans comes first
            e.add_note(f"in texts[{i}]")
            raise
        if batch and size + len(data) > _BATCH_BYTES:
            tables += _extract_batch(batch, max_spans, i - len(batch))
            batch, size = [], 0
        batch.append(data)
        size += len(data)
    tables += _extract_batch(batch, max_spans, len(texts) - len(batch))
    return tables


def _extract_batch(datas: list[bytes], max_spans: int, first: int) -> list[FactTable]:
    if not datas:
        return []
    try:
        columns = _scanner.extract_columns_many(datas, max_spans, FINGERPRINT_KEY)
    except LimitExceededError as e:
        # which text: the first over the limit, as extract would find it text by text
        for k, data in enumerate(datas):
            try:
                _scanner.extract_columns(data, max_spans, FINGERPRINT_KEY)
            except LimitExceededError:
                e.add_note(f"in texts[{first + k}]")
                break
        raise
    return [FactTable._extracted(data, cols) for data, cols in zip(datas, columns)]
