"""The gate: the commit point every context edit passes through.

``Gate(store).check(pre, post, operator=...)`` answers whether replacing ``pre`` by ``post``
keeps provenance, and why not (a :class:`~provgate.verdict.Verdict`); ``commit`` returns the
window to commit or raises :class:`~provgate.errors.ProvenanceInvariantError`. The checks are
those of ``docs/gate.md``; in short:

- **structural fast path** - post blocks whose text digest equals a pre block's (or equals it
  after the documented whitespace normalisation) are unchanged and cost a lookup;
- **I1** every post block resolves to a handle, and every grounded span of a changed or
  derived block occurs in the sources of its handles;
- **I2** a lossless operator introduces no fact, and drops one only through a supersession
  edge or an eviction record (``policy="reclassify"`` turns such an edit into a lossy one);
- **I3** every handle the post window references resolves in the durable store;
- **I4** two reads of one resource, or two values of one key, are never silently reduced to
  the older one;
- **I5** citation-marker retention per cycle stays above the floor;
- **P** every pointer resolves byte-exactly in the store;
- **R** pinned blocks are kept byte-identical or evicted with a record, in every pass.

A ``Gate`` keeps per-session state: the cycle history (for the retention curve), the pins of
earlier passes, and caches keyed by content digest, so re-checking a window after a one-block
change only pays for that block.
"""

from __future__ import annotations

import bisect
import contextvars
import difflib
import functools
import heapq
import hmac
import itertools
import json
import math
import os
import re
import threading
import time
import uuid
import weakref
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Container, Iterable, Iterator, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from itertools import accumulate, chain, compress, count, islice, repeat
from operator import attrgetter, is_, is_not, itemgetter
from typing import Any, NamedTuple

import numpy as np
from blake3 import blake3

from provgate import _blockscan
from provgate import digests as _digests
from provgate._blockscan import (
    block_texts,
    matched_by_id,
    provenance_changed,
    same_blocks_as,
    same_shape_as,
    texts_changed,
)
from provgate._factdiff import (
    SortedFingerprints,
    absent_from_all,
    apply_delta,
    draw_rows,
    grounding_index,
    grounding_index_many,
    index_counts,
    place_rows,
    positions,
    undrawn_values,
    ungrounded_rows,
    unique_counts,
)
from provgate._hashing import hash_buffers
from provgate._matching import denied_quotes, occurs_at_boundaries
from provgate._matching_py import QUOTE as _MODE_QUOTE
from provgate._matching_py import RELAXED as _MODE_RELAXED
from provgate._matching_py import _words_closed_at
from provgate._quotations import asked_quotations
from provgate._scanner import fold_digits, span_values
from provgate._scanner_py import normalize_value
from provgate._search import unit_leads
from provgate._search_py import UNIT_GAP_RUN, UNIT_LOWER_CASE_ONLY, UNIT_NAMES
from provgate._textnorm import same_after_normalisation, same_words
from provgate._textnorm_py import (
    normalize_whitespace as normalize_whitespace,  # the rule, re-exported here
)
from provgate.errors import (
    EditFormatError,
    InvalidArgumentError,
    InvalidDigestError,
    InvalidHandleError,
    LimitExceededError,
    ProvenanceInvariantError,
    ProvgateError,
    StoreCorruptionError,
    UnknownHandleError,
)
from provgate.facts import (
    DEFAULT_MAX_SPANS,
    EXTRACTOR_VERSION,
    FactTable,
    Kind,
    extract,
    extract_many,
    fingerprint_kv_keys,
)
from provgate.fingerprints import EMPTY, FingerprintSet
from provgate.handles import (
    BLOCK_HANDLE_PREFIX,
    block_text_handle,
    check_handle,
    is_text_handle,
    stored_text_handle,
)
from provgate.nesting import enclosing_keys
from provgate.pointers import Pointer
from provgate.store import DERIVED_KIND, SourceStore
from provgate.verdict import Verdict, Violation
from provgate.window import (
    LOSSLESS_OPERATORS,
    LOSSY_OPERATORS,
    OPERATORS,
    Block,
    Citation,
    Edit,
    Supersession,
    Window,
    encode_text,
    type_name,
)

POLICIES = ("reject", "reclassify")
DEFAULT_RETENTION_FLOOR = 0.95
# Evidence lists are cut here so one pathological edit cannot make a verdict of megabytes;
# the counts in Verdict.facts stay exact.
MAX_VIOLATIONS_PER_CHECK = 1000
# the characters of a violation's value (and of the evidence's texts) and of its message kept
# in the verdict and the audit record; a longer one is cut (the value's length and digest kept)
MAX_VIOLATION_VALUE_CHARS = 2000
MAX_VIOLATION_MESSAGE_CHARS = 4000
# the sources an ungrounded fact's violation names (the rest counted): bounds a verdict's size,
# in handles and in characters (64 handles of 1 KiB, named twice in each of 1,000 violations,
# made an audit record of 131 MB, over the store's limit: the check raised after its writes,
# red team 83, F01)
MAX_SEARCHED_NAMED = 64
MAX_SEARCHED_NAMED_CHARS = 4096
# Windows whose sides a gate keeps (the windows themselves are held weakly): the one a session
# just committed (the next pre) and the post windows of a few checks in flight; a side costs a
# few lists per block.
_KEPT_SIDES = 8
# I2 counts at most this many removed facts one by one (a next edit's block or two); more are
# counted with one pass over pre's distinct facts
_FEW_FACTS = 256
# A text of more kv rows than this, asked fewer keys than its rows / the ratio, looks them up
# in its keys sorted once instead of scanning its rows (_Facts.kv_rows_keyed)
_KEYED_SCAN_ROWS = 64
_KEYED_SCAN_RATIO = 8
# a text longer than this is asked its dotted keys' leaves from an index, not scanned per name
_LEAF_SCAN_BYTES = 4096
# nor is a text asked more names than this (red team 64, F02): it is scanned for a dot once
_LEAF_SCAN_NAMES = 8
# I4 asks a text for each of a stale basis's candidate values while they are this few; beyond,
# a text with fewer facts looks its own values up among them (red team 64, F02)
_FEW_CANDIDATES = 64

_KIND_CITATION = int(Kind.CITATION)
_CITATION_BYTE = bytes([_KIND_CITATION])
_KIND_KV = int(Kind.KV)
_KIND_QUOTE = int(Kind.QUOTE)
_KV_BYTE = bytes([_KIND_KV])
_QUOTE_BYTE = bytes([_KIND_QUOTE])
_KIND_IDENTIFIER = int(Kind.IDENTIFIER)
_KIND_NUMBER = int(Kind.NUMBER)
_KIND_URL = int(Kind.URL)
_KIND_PATH = int(Kind.PATH)
_KIND_NAME = int(Kind.NAME)
_CACHE_VERSION = f"facts-{EXTRACTOR_VERSION}"


def _hex(digest: bytes) -> str:
    return "blake3:" + digest.hex()


# -- per-content facts ------------------------------------------------------------------------


class _Facts:
    """A fact table plus what the gate asks of it again and again."""

    __slots__ = (
        "_cited_names",
        "_denied",
        "_dotted",
        "_dotted_by_leaf",
        "_fact_fps",
        "_ground_rows",
        "_grounding_set",
        "_kv_key_order",
        "_kv_map",
        "_kv_prose_set",
        "_kv_rows",
        "_kv_sets",
        "_markers",
        "_nesting",
        "_path_lines",
        "_pin_prose",
        "_source",
        "_url_parts",
        "_worded",
        "n_facts",
        "n_markers",
        "quoted",
        "table",
    )

    def __init__(self, table: FactTable) -> None:
        self.table = table
        # kinds are one byte each: counting a byte in the column's bytes beats a numpy
        # comparison on the small tables of changed blocks (one per block of every edit)
        # (and their count is the row count: no call of the table's __len__)
        kinds = table.kind.tobytes()
        self.n_markers = kinds.count(_CITATION_BYTE)
        self.n_facts = len(kinds) - self.n_markers
        self.quoted = _QUOTE_BYTE in kinds  # (a text without quotations denies none: _grounding_columns)
        self._markers: tuple[str, ...] | None = None
        self._ground_rows: np.ndarray | None = None
        self._fact_fps: np.ndarray | None = None
        self._kv_rows: tuple[np.ndarray, np.ndarray] | None = None
        self._kv_sets: tuple[SortedFingerprints, SortedFingerprints] | None = None
        self._grounding_set: SortedFingerprints | None = None
        self._kv_prose_set: SortedFingerprints | None = None
        self._cited_names: tuple[str, ...] | None = None
        self._dotted: tuple[list[int], list[bytes]] | None = None
        self._nesting: _Nesting | None = None
        self._worded: bool | None = None
        self._kv_key_order: tuple[np.ndarray, np.ndarray] | None = None  # (kv_rows_keyed)
        self._kv_map: dict[tuple[int, ...], dict[tuple[int, ...], int]] | None = None  # (_kv_map)
        self._dotted_by_leaf: dict[bytes, list[int]] | None = None
        self._source: _Facts | None = None  # (Gate.read_facts: the read's own facts these extend)
        self._path_lines: tuple[set[bytes], set[tuple[bytes, ...]]] | None = None  # (_path_lines)
        self._url_parts: set[bytes] | None = None  # (_url_parts)
        self._pin_prose: tuple[set[bytes], set[tuple[bytes, bytes]]] | None = None  # (_pin_prose)
        self._denied: frozenset[tuple[int, int]] | None = None

    def denied_facts(self) -> frozenset[tuple[int, int]]:
        """The fact fingerprints (``fp_fact``) this text states only inside a quotation whose
        words it denies (``do not "retries=5"``: :func:`denied_quotes`), nowhere else: a
        summary quoting such a fact is no quotation of this text (red team 99, F02)."""
        if self._denied is None:
            t = self.table
            found: frozenset[tuple[int, int]] = frozenset()
            if self.quoted:
                denied = denied_quotes(t.data, t.kind, t.value_start, _KIND_QUOTE)
                if len(denied):
                    inside = np.zeros(len(t.kind), dtype=np.bool_)
                    for q in denied.tolist():
                        # (rows are sorted by start: those from the quotation's start to its end)
                        a, b = int(t.start[q]), int(t.end[q])
                        first, last = np.searchsorted(t.start, [a, b])
                        inside[first:last] |= t.end[first:last] <= b
                    said = set(map(tuple, t.fp_fact[inside].tolist()))
                    found = frozenset(said.difference(map(tuple, t.fp_fact[~inside].tolist())))
            self._denied = found
        return self._denied

    def worded(self) -> bool:
        """Does this text hold a key=value or a quoted fact, which I5 may find restated in
        pieces or in so many words when no value restates it (``_ValuePool.take``)?"""
        if self._worded is None:
            kinds = self.table.kind.tobytes()
            self._worded = _KV_BYTE in kinds or _QUOTE_BYTE in kinds
        return self._worded

    def indexed(self) -> _Facts:
        """Build the grounding index now. A source's fact table is computed once and kept
        (DESIGN: data flow, step 1); its index is part of it, paid when the gate first meets
        the source rather than by the first summary that cites it."""
        self.grounding_set()
        return self

    # Grounding asks "does this fact occur in any of these sources?" for every fact of the
    # changed blocks: one native call per check (ungrounded_rows) over each source's sorted
    # distinct fingerprints, with no Python object per fact. Values, (key, value) facts and
    # kv keys are hashed in separate frames (V, F, K: facts.py), so one set can hold all three
    # without a value ever standing in for a fact or a key.
    def grounding_set(self) -> SortedFingerprints:
        """Every distinct value, (key, value) fact and kv key this text asserts, sorted, and
        vetted as sorted once (it is searched for every block that cites this text)."""
        if self._grounding_set is None:
            self._grounding_set = grounding_index(*self._grounding_columns(), _KIND_KV)
        return self._grounding_set

    def _grounding_columns(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The columns of this text's grounding set: its rows but the quotations whose words it
        denies (``do not "deploy to prod on Friday"``, ``["Do not", "deploy to prod on
        Friday"]``) and the facts inside them: their fingerprint grounded a summary's "deploy to prod on Friday" without
        the literal search, whose ``QUOTE`` mode would not have (red team 96, F10). A quotation
        that is itself denied is searched ``RELAXED`` (:func:`row_mode`), so a rewrite keeping
        the denial is grounded by the source's denied words."""
        t = self.table
        columns = (t.fp_value, t.fp_fact, t.fp_key, t.kind)
        if not self.quoted:
            return columns
        denied = denied_quotes(t.data, t.kind, t.value_start, _KIND_QUOTE)
        if not len(denied):
            return columns
        keep = np.ones(len(t.kind), dtype=np.bool_)
        keep[denied] = False
        # and the facts inside it: a one-token quotation's value is its path's, identifier's or
        # number's too (red team 99, F02: "conf/prod.ini" of do not "conf/prod.ini" was grounded
        # by the path); left to the literal search, a plain mention of them is still grounded
        for q in denied.tolist():
            a, b = int(t.value_start[q]), int(t.value_end[q])
            first, last = np.searchsorted(t.start, [a, b])
            keep[first:last] &= t.end[first:last] > b
        return tuple(np.ascontiguousarray(c[keep]) for c in columns)  # type: ignore[return-value]

    @staticmethod
    def grounding_sets(texts: list[_Facts]) -> list[SortedFingerprints]:
        """:meth:`grounding_set` of each of ``texts``: the ones not made yet made in one native
        call (a summarize grounds its summaries in every turn it summarizes, texts no check
        has grounded anything in before)."""
        todo = [x for x in texts if x._grounding_set is None]
        if todo:
            made = grounding_index_many([x._grounding_columns() for x in todo], _KIND_KV)
            for x, made_set in zip(todo, made):
                x._grounding_set = made_set
        return [x._grounding_set for x in texts]  # type: ignore[misc]

    def kv_prose_set(self) -> SortedFingerprints:
        """The values and facts of this text's ``key=value`` keys and values read as prose.
        A kv value is one fact ("due: 2026-12-01" sets due), but a summary restating it in a
        sentence reads its pieces (2026, 12, 01); a quoted value's pieces are in the text's own
        facts, an unquoted one's only here (red team 11, x01), and so are the pieces of a key
        (Retry-After in "the Retry-After header", x02). Made only when a grounding is left over."""
        if self._kv_prose_set is None:
            t = self.table
            data = t.data
            parts = []
            kv = np.flatnonzero(t.kind == _KIND_KV)
            # (the columns' rows as ints first: a numpy scalar read per row cost a source's
            # thousand kv rows ~0.1 ms)
            for ks, ke, vs, ve in zip(t.key_start[kv].tolist(), t.key_end[kv].tolist(), t.value_start[kv].tolist(),
                                      t.value_end[kv].tolist()):
                if ks >= 0:
                    parts.append(data[ks:ke])
                parts.append(data[vs:ve])
            fps = EMPTY
            if parts:
                try:
                    # each piece read mid-sentence, as a summary reads it ("Retry" starting a
                    # line would be a sentence's first word, no name)
                    inner = extract(b"".join(b"x " + part + b"\n" for part in parts))
                except LimitExceededError:  # (no larger than the text, which was scanned: not expected)
                    inner = None
                if inner is not None and len(inner):
                    fps = unique_counts(np.concatenate([inner.fp_value, inner.fp_fact]))[0]
            self._kv_prose_set = SortedFingerprints(fps)
        return self._kv_prose_set

    def unkeyed_values(self) -> SortedFingerprints:
        """The distinct values this text asserts outside a ``key=value`` fact (and outside
        citation markers): I4 counts them as a paraphrase of any key's value."""
        t = self.table
        keep = (t.kind != _KIND_KV) & (t.kind != _KIND_CITATION)
        return SortedFingerprints(unique_counts(np.ascontiguousarray(t.fp_value[keep]))[0])

    def cited_names(self) -> tuple[str, ...]:
        """The name of every ``[src:…]`` marker, repeats included (I5 weighs what an edit kept
        per handle); usually each name once, which :meth:`markers` already holds."""
        if self._cited_names is None:
            names = self.markers()
            if len(names) != self.n_markers:
                t = self.table
                rows = np.flatnonzero(t.kind == _KIND_CITATION)
                data = t.data
                names = tuple(data[a:b].decode("utf-8") for a, b in zip(t.value_start[rows].tolist(),
                                                                         t.value_end[rows].tolist()))
            self._cited_names = names
        return self._cited_names

    def markers(self) -> tuple[str, ...]:
        """The handle names cited by ``[src:…]`` markers, in order of first appearance."""
        if self._markers is None:
            if self.n_markers == 0:
                self._markers = ()
            else:
                # a marker's value is the handle name as written (no normalisation)
                t = self.table
                self._markers = span_values(t.data, t.kind, t.value_start, t.value_end, _KIND_CITATION)
        return self._markers

    def groundable_rows(self) -> np.ndarray:
        """Rows that must be grounded in a source: every fact but citation markers."""
        if self._ground_rows is None:
            n = len(self.table)
            self._ground_rows = (np.arange(n) if self.n_markers == 0
                                 else np.flatnonzero(self.table.kind != _KIND_CITATION))
        return self._ground_rows

    def fact_fps(self) -> np.ndarray:
        """The (key, value) fingerprints of :meth:`groundable_rows`, contiguous."""
        if self._fact_fps is None:
            fp = self.table.fp_fact
            self._fact_fps = (np.ascontiguousarray(fp) if self.n_markers == 0
                              else fp[self.table.kind != _KIND_CITATION])  # a new C-ordered array
        return self._fact_fps

    def value_fps(self) -> np.ndarray:
        """The value fingerprints of :meth:`groundable_rows`, row for row with :meth:`fact_fps`."""
        fp = self.table.fp_value
        return np.ascontiguousarray(fp) if self.n_markers == 0 else fp[self.table.kind != _KIND_CITATION]

    def kv_rows(self) -> tuple[np.ndarray, np.ndarray]:
        """(rows of the kv facts, their keys row by row)."""
        if self._kv_rows is None:
            rows = np.flatnonzero(self.table.kind == _KIND_KV)
            self._kv_rows = (rows, np.ascontiguousarray(self.table.fp_key[rows]))
        return self._kv_rows

    def kv_sets(self) -> tuple[SortedFingerprints, SortedFingerprints]:
        """(the distinct keys of the kv facts, their distinct (key, value) facts): I4 asks which
        facts of an older read set a key the newer read sets to another value. Only the newer
        read needs these sorts; an older one is only looked up in them (:meth:`kv_rows`)."""
        if self._kv_sets is None:
            rows, row_keys = self.kv_rows()
            keys = SortedFingerprints(unique_counts(row_keys)[0])
            facts = SortedFingerprints(unique_counts(np.ascontiguousarray(self.table.fp_fact[rows]))[0])
            self._kv_sets = (keys, facts)
        return self._kv_sets

    def dotted_leaves(self) -> tuple[list[int], list[bytes]]:
        """(rows of the kv facts whose key is a dotted path, each path's last part):
        ``server.retries=3`` sets ``retries`` of ``server`` (I4 reads it as that key: red
        team 15, f03)."""
        if self._dotted is None:
            t = self.table
            rows, _ = self.kv_rows()
            if rows.size:
                data = t.data
                if rows.size <= 16:  # a block's few: a look at each key
                    rows = rows[np.array([t.key_start[r] >= 0 and b"." in data[t.key_start[r]:t.key_end[r]]
                                          for r in rows.tolist()], dtype=np.bool_)]
                else:  # a config's many: where the text's dots are
                    rows = rows[t.key_start[rows] >= 0]
                    dots = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 0x2E)
                    rows = rows[np.searchsorted(dots, t.key_end[rows]) > np.searchsorted(dots, t.key_start[rows])]
                leaves = [data[a:b].rpartition(b".")[2] for a, b in zip(t.key_start[rows].tolist(), t.key_end[rows].tolist())]
                self._dotted = (rows.tolist(), leaves)
            else:
                self._dotted = ([], [])
        return self._dotted

    def nested_values(self, key: bytes, prefix: tuple[bytes, ...]) -> list[bytes]:
        """The values (fingerprint bytes) this text sets ``key`` to under keys ending with
        ``prefix``: an index of the key's places by every tail of their paths, made on the
        first question about the key (one question a fact, not a scan of every key per fact:
        red team 17, h05)."""
        nesting = self._nested()
        index = nesting.values.get(key)
        if index is None:
            index = nesting.values[key] = {}
            for pair in nesting.by_key.get(key, ()):
                for tail in self.nested_tails(pair):
                    index.setdefault(tail, []).append(pair[0])
        return index.get(prefix, [])

    def nested_tails(self, pair: tuple[bytes, bytes]) -> frozenset[tuple[bytes | None, ...]]:
        """Every tail of the keys enclosing each place this text sets ``pair`` (a value
        fingerprint's bytes, a key): ``port: 8080`` under ``a:`` ``b:`` gives (a, b) and (b,).
        The text is read once, for all its kv places, on the first question."""
        nesting = self._nested()
        found = nesting.tails.get(pair)
        if found is None:
            where = nesting.places.get(pair)
            if not where:
                return frozenset()
            if nesting.paths is None:
                nesting.paths = enclosing_keys(self.table.data, [p for ps in nesting.places.values() for p in ps],
                                               _MAX_KEY_PARTS - 1)
            paths = nesting.paths
            found = nesting.tails[pair] = frozenset(path[i:] for p in where for path in (paths[p],)
                                                    for i in range(len(path)))
        return found

    def _nested(self) -> _Nesting:
        if self._nesting is None:
            self._nesting = _Nesting(self.table)
        return self._nesting

    def kv_rows_keyed(self, keys: SortedFingerprints) -> np.ndarray:
        """The rows of the kv facts whose key is one of ``keys``, in order."""
        rows, row_keys = self.kv_rows()
        if rows.size <= _KEYED_SCAN_ROWS or len(keys) * _KEYED_SCAN_RATIO >= rows.size:
            return rows[~absent_from_all(row_keys, [keys])] if rows.size else rows
        # A few keys asked of a text of many: each key looked up in the text's keys sorted
        # once. One summary of N files is asked the keys of each file in turn, and a scan of
        # its every row per file was quadratic in N (red team 57, F02).
        if self._kv_key_order is None:
            order = np.lexsort((row_keys[:, 1], row_keys[:, 0]))
            self._kv_key_order = (order, np.ascontiguousarray(row_keys[order, 0]))
        order, sorted_hi = self._kv_key_order
        wanted = keys.to_array()
        starts = np.searchsorted(sorted_hi, wanted[:, 0], "left").tolist()
        ends = np.searchsorted(sorted_hi, wanted[:, 0], "right").tolist()
        found = [at[row_keys[at, 1] == lo] for a, b, lo in zip(starts, ends, wanted[:, 1]) if a < b
                 for at in (order[a:b],)]
        return rows[np.sort(np.concatenate(found))] if found else rows[:0]

    def dotted_by_leaf(self) -> dict[bytes, list[int]]:
        """:meth:`dotted_leaves` as leaf -> its rows, in order."""
        if self._dotted_by_leaf is None:
            by_leaf: dict[bytes, list[int]] = {}
            for row, leaf in zip(*self.dotted_leaves()):
                by_leaf.setdefault(leaf, []).append(row)
            self._dotted_by_leaf = by_leaf
        return self._dotted_by_leaf


class _Nesting:
    """Where a text sets each (value fingerprint, key) pair, and what is read of it on
    demand: the keys enclosing each place (:func:`enclosing_keys`), their tails per pair,
    and per key an index of its values by tail."""

    __slots__ = ("by_key", "paths", "places", "tails", "values")

    def __init__(self, t: FactTable) -> None:
        places: dict[tuple[bytes, bytes], list[int]] = {}
        kv = np.flatnonzero((t.kind == _KIND_KV) & (t.key_start >= 0))
        data = t.data
        for start, ks, ke, fp in zip(t.start[kv].tolist(), t.key_start[kv].tolist(),
                                     t.key_end[kv].tolist(), t.fp_value[kv]):
            places.setdefault((fp.tobytes(), data[ks:ke].strip(b"\"'")), []).append(start)
        by_key: dict[bytes, list[tuple[bytes, bytes]]] = {}
        for pair in places:
            by_key.setdefault(pair[1], []).append(pair)
        self.places, self.by_key = places, by_key
        self.paths: dict[int, tuple[bytes | None, ...]] | None = None
        self.tails: dict[tuple[bytes, bytes], frozenset[tuple[bytes | None, ...]]] = {}
        self.values: dict[bytes, dict[tuple[bytes | None, ...], list[bytes]]] = {}


class _Cache:
    """A bounded map for the gate's hot caches.

    Reads are a plain ``dict.get`` (atomic under the GIL, no lock, no reordering: a check looks
    up two entries per block, so a read must cost nanoseconds); inserts take a lock and evict
    the oldest entries once the cost budget is exceeded.
    """

    def __init__(self, budget: int) -> None:
        self._budget = budget
        self._cost = 0
        self._items: dict[Any, Any] = {}
        self._costs: dict[Any, int] = {}
        self._lock = threading.Lock()
        self.get = self._items.get

    def put(self, key: Any, value: Any, cost: int) -> None:
        self.put_many(((key, value, cost),))

    def put_many(self, entries: Iterable[tuple[Any, Any, int]]) -> None:
        """Insert ``(key, value, cost)`` entries under one lock (a check inserts one per
        changed block into each cache); never evicts an entry inserted by this call."""
        with self._lock:
            items, costs = self._items, self._costs
            added = []
            for key, value, cost in entries:
                if key in items:
                    self._cost -= costs[key]
                items[key] = value
                costs[key] = cost
                self._cost += cost
                added.append(key)
            if self._cost > self._budget:
                fresh = set(added)
                for old in list(items)[: max(1, len(items) // 4)]:
                    if self._cost <= self._budget // 2 or old in fresh:
                        break
                    del items[old]
                    self._cost -= costs.pop(old)

    def __len__(self) -> int:
        return len(self._items)


class _AllBut:
    """The positions ``0 .. n-1`` but a few: the pre blocks an edit in place keeps, as a set
    that costs the few, not the window."""

    __slots__ = ("missing", "n")

    def __init__(self, n: int, missing: Iterable[int]) -> None:
        self.n = n
        self.missing = set(missing)

    def __contains__(self, i: object) -> bool:
        return type(i) is int and 0 <= i < self.n and i not in self.missing

    def __len__(self) -> int:
        return self.n - len(self.missing)

    def __iter__(self) -> Iterator[int]:
        return (i for i in range(self.n) if i not in self.missing)

    def add(self, i: int) -> None:
        self.missing.discard(i)


class _ValuePool:
    """The values of the facts an edit's new blocks state, as a multiset that pre's cited facts
    draw on (I5: each new fact restates one pre fact at most), and those blocks' bytes (a quote
    restated word for word without its quotation marks)."""

    __slots__ = ("_index", "left", "left_total", "text")

    def __init__(self, values: SortedFingerprints | np.ndarray, counts: np.ndarray, text: bytes,
                 total: int | None = None) -> None:
        # (the distinct values sorted, as unique_counts returns them, or their set as
        # index_counts makes it)
        self._index = values if type(values) is SortedFingerprints else SortedFingerprints(values)
        self.left = counts.copy()
        # the counts left, all together (``total``: their sum, if the caller knows it): a count
        # never goes below 0, so values are left while this is above 0. An int kept beside
        # the array, where left.any() was the first numpy reduction of the phase (~40 us)
        self.left_total = int(counts.sum()) if total is None else total
        self.text = text

    def take(self, facts: list[_Facts], *, commit: bool = True) -> list[int]:
        """How many facts of each of ``facts`` (in order: the earlier ones first) a value left
        in the pool restates; those values are used up unless ``commit`` is false. A quote no
        value restates counts as restated where its words stand, at token boundaries, in any of
        the new blocks (red team 31, b01: looked for only in the blocks that rewrite or derive
        from its own, a summary split in two carried the words in the other part)."""
        left = self.left if commit else self.left.copy()
        remaining = self.left_total
        if not any(f.n_facts for f in facts) or not (remaining or self.text):
            return [0] * len(facts)
        tables = [f.table for f in facts]
        # every row drawn in order, in one native pass over the tables' columns in place
        drawn, counts = draw_rows(self._index, left, [t.fp_value for t in tables], [t.kind for t in tables],
                                  _KIND_CITATION)
        out = counts.tolist()
        remaining -= sum(out)  # (a value per row drawn)
        if all(n == f.n_facts for n, f in zip(out, facts) if f.worded()):
            if commit:
                self.left_total = remaining
            return out  # (no kv or quote fact is left to be restated otherwise: the next edit, usually)
        # a kv fact no value restates, restated in pieces; then a quote, in so many words (red
        # team 30, a04): each kind's rows left over, with their values, from one native pass
        if remaining:
            owners, values = undrawn_values(tables, drawn, _KIND_KV)
            if values:
                for b, n in self._take_pieces(owners.tolist(), values, left).items():
                    out[b] += n
                    remaining -= n  # (a value per piece taken)
        if commit:
            self.left_total = remaining
        if self.text:
            owners, words = undrawn_values(tables, drawn, _KIND_QUOTE)
            if words:
                found = occurs_at_boundaries(words, [self.text])  # (one native pass for every quote)
                for b, w, hit in zip(owners.tolist(), words, found.tolist()):
                    out[b] += hit and bool(w.strip())
        return out

    def _take_pieces(self, owners: list[int], values: list[bytes], left: np.ndarray) -> dict[int, int]:
        """A key=value fact no value restates may be restated by a piece of its value read as
        prose: the values of the facts left over (``values``, of the tables ``owners``) read in
        one scan, their pieces looked up at once, then taken in order."""
        parts, of_part = [], []
        for k, value in enumerate(values):
            if not value.isalnum():  # (ASCII letters and digits alone read as themselves)
                parts.append(b"x " + value + b"\n")
                of_part.append(k)
        found: dict[int, int] = {}
        if not parts:
            return found
        try:
            inner = extract(b"".join(parts))
        except LimitExceededError:  # (no larger than the texts, which were scanned: not expected)
            return found
        # every piece looked up at once, and only the ones found placed in their parts (often
        # none is); a marker is no piece
        # (read as lists: a few pieces, where each numpy call paid more than the loop)
        hits = [(p, at) for p, at in enumerate(positions(self._index, [inner.fp_value]).tolist()) if at >= 0]
        if not hits:
            return found
        kinds, starts = inner.kind.tolist(), inner.start.tolist()
        part_starts = list(accumulate((len(part) for part in parts[:-1]), initial=0))
        done: set[int] = set()
        for p, at in hits:
            if kinds[p] == _KIND_CITATION:
                continue
            k = of_part[bisect_right(part_starts, starts[p]) - 1]
            if left[at] > 0 and k not in done:
                left[at] -= 1
                done.add(k)
                b = owners[k]
                found[b] = found.get(b, 0) + 1
        return found


class _RowMap:
    """Position in a concatenation of blocks' fact rows -> (block index, row in its table)."""

    __slots__ = ("ends", "facts", "indices", "places", "sizes")

    def __init__(self, facts: list[_Facts], indices: list[int], sizes: list[int]) -> None:
        self.facts = facts
        self.indices = indices
        self.sizes = sizes
        self.ends: list[int] | None = None  # made on the first look-up: only a violation asks
        self.places: dict[int, int] | None = None  # block -> its place in indices (index_of)

    def __call__(self, k: int) -> tuple[int, int]:
        if self.ends is None:
            self.ends = list(accumulate(self.sizes))
        pos = bisect_right(self.ends, k)
        start = self.ends[pos - 1] if pos else 0
        i = self.indices[pos]
        return i, int(self.facts[i].groundable_rows()[k - start])

    def index_of(self, block: int, row: int) -> int | None:
        """The position of table row ``row`` of block ``block`` in the concatenation, or None
        (a row not among the block's groundable rows, or a block not in it)."""
        if self.ends is None:
            self.ends = list(accumulate(self.sizes))
        if self.places is None:  # (one dict, not a list scan per row: red team 100, F13)
            self.places = {b: k for k, b in enumerate(self.indices)}
        pos = self.places.get(block)
        if pos is None:
            return None
        rows = self.facts[block].groundable_rows()
        k = int(np.searchsorted(rows, row))
        if k >= len(rows) or int(rows[k]) != row:
            return None
        return (self.ends[pos - 1] if pos else 0) + k

    def kinds(self) -> np.ndarray:
        """The kind of every row, in the concatenation's order."""
        tables = [self.facts[i] for i in self.indices]
        return (np.concatenate([f.table.kind[f.groundable_rows()] for f in tables]) if tables
                else np.zeros(0, dtype=np.uint8))


# -- one check --------------------------------------------------------------------------------


class _Shape:
    """The indexes built from a window's block metadata only (ids, handles, provenance, pins,
    resources), never from texts. Windows whose blocks have the same metadata in the same order
    (the usual rewrite of a few texts in place, a session's next one-block edit) hold one
    ``_Shape`` between them, so an index built for either serves both."""

    __slots__ = (
        "bad_derived",
        "by_provenance",
        "by_resource",
        "derived_union",
        "handle_union",
        "holding",
        "id_pos",
        "ids",
        "pin_candidates",
        "pinned",
        "pinned_handles",
        "read_line",
        "reads_filed",
        "reads_logged",
        "resolved",
        "stamp_units",
    )

    def __init__(self) -> None:
        self.ids: list[str] | None = None
        self.id_pos: Mapping[str, int] | None = None
        self.bad_derived: list[int] | None = None
        self.handle_union: frozenset[str] | None = None
        self.derived_union: frozenset[str] | None = None
        self.holding: tuple[frozenset[str], list[int]] | None = None
        self.pinned: list[int] | None = None
        self.pinned_handles: frozenset[str] | None = None  # the handles the flagged blocks carry
        # the blocks a pin may find re-rendered: holding the handles, or found by their text alone
        self.pin_candidates: tuple[frozenset[str], list[int]] | None = None
        self.by_resource: dict[str, list[int]] | None = None
        self.by_provenance: dict[str, list[int]] | None = None
        self.stamp_units: int | None = None  # the units the reads are stamped in (_Side.stamp_units)
        # every handle of handle_union was found in the durable store of the gate that keeps
        # this (one gate's sides never reach another's; the store never deletes, so the finding
        # holds; a flag, not the gate, so that a gate is freed by reference counting)
        self.resolved = False
        self.read_line: dict[str, list[tuple[str, float | None]]] | None = None
        self.reads_logged = False  # every read of read_line is in the gate's session read log
        # every read of read_line is in that log, filed under the resource it is tagged with (a
        # handle the log files stays filed so: only a failed check's own reads are taken back)
        self.reads_filed = False


class _Side:
    """One window as the checks see it: its blocks' digests and facts, and the indexes the
    checks ask of it.

    Everything here is a function of the window alone (texts, ids, metadata), computed on first
    use and kept. A gate keeps the sides of the windows it judged (``Gate.side``): the next edit
    of a session starts from the window the last one committed, so its pre side is already
    built, and a check pays per block only for the post window it has not seen.
    """

    __slots__ = (
        "_differ",
        "_fact_set",
        "_facts",
        "_facts_complete",
        "_ix",
        "_marked",
        "_may_cite",
        "_n_facts",
        "_n_markers",
        "_names",
        "_names_ok_at",
        "_newest",
        "_norm_memo",
        "_positions",
        "_reads",
        "_summary_texts",
        "_text_counts",
        "_text_handles",
        "_window",
        "_window_digest",
        "digests",
        "texts",
    )

    def __init__(self, window: Window, texts: list[str], digests: list[bytes]) -> None:
        # The window is the caller's: held weakly, so that it (and its blocks) dies where the
        # caller drops it, not inside a later check that evicts this side.
        self._window = weakref.ref(window)
        self.texts = texts
        self.digests = digests
        self._ix: _Shape | None = None
        self._marked: dict[int, _Facts] | None = None
        # true facts of each block (None: not computed yet); a whitespace-matched post block is
        # judged with its pre block's facts, but that is the check's view, not this text's
        self._facts: list[_Facts | None] | None = None
        # the list of _facts known to hold no None: the list itself, not a flag, so that a list
        # another thread stores meanwhile (a check that left a whitespace-matched block's facts
        # unknown) is never taken for complete -- one attribute store, not two (red team 35, 01)
        self._facts_complete: list[_Facts | None] | None = None
        self._n_facts: int | None = None
        self._n_markers: int | None = None
        self._positions: tuple[dict[bytes, int], dict[bytes, list[int]]] | None = None
        self._text_counts: dict[bytes, int] | None = None
        self._text_handles: bytes | None = None  # the text digests end to end (holding_text)
        self._reads: dict[str, list[int]] | None = None
        self._newest: dict[str, int] | None = None
        self._may_cite: bool | None = None
        self._fact_set: Any = None  # a FingerprintSet, or a recipe that makes one
        self._window_digest: str | None = None
        # a derived block's text handle -> what it derives from (summary_texts)
        self._summary_texts: dict[str, frozenset[str]] | None = None
        # the marker names the blocks cite (None: not gathered yet), and the names epoch of the
        # gate that gathered them at which each resolved to exactly one handle (-1: not so)
        self._names: frozenset[str] | None = None
        self._names_ok_at = -1
        # made from another window's side: (that side's digest list, the positions whose text
        # objects differ from it); every other position holds that side's very digest object
        self._differ: tuple[list[bytes], list[int]] | None = None
        # Gate._respaced's last answer for this window: (the candidates list asked, the pinned
        # norms, the candidates whose normalised text is one of them, the positions whose texts
        # changed since that answer was found: inherit)
        self._norm_memo: tuple[list[int], frozenset[str], list[int], tuple[int, ...]] | None = None

    def is_of(self, window: Window) -> bool:
        # a dead window's address may be taken by another: the reference tells them apart
        return self._window() is window

    def twin_for(self, window: Window, texts: list[str]) -> _Side:
        """This side for ``window``, a window equal to this one block for block (every field):
        all that is kept here is a function of the window's content, so the twin shares it;
        only the window and its own text objects (``texts``) are its own."""
        twin = _Side.__new__(_Side)
        for name in _Side.__slots__:
            setattr(twin, name, getattr(self, name))
        twin._window = weakref.ref(window)
        twin.texts = texts
        return twin

    @property
    def window(self) -> Window:
        window = self._window()
        assert window is not None, "a side is used only while a check holds its window"
        return window

    @property
    def blocks(self) -> tuple[Block, ...]:
        return self.window.blocks

    @property
    def ix(self) -> _Shape:
        if self._ix is None:
            self._ix = _Shape()
        return self._ix

    def share_indexes_with(self, other: _Side) -> bool:
        """Hold ``other``'s metadata indexes if both windows have the same metadata (one native
        pass over both windows' blocks, field by field: no copy of either's fields is made)."""
        if self._ix is not None or len(self.blocks) != len(other.blocks):
            return False
        same = same_shape_as(self.blocks, other.blocks)
        if same:
            self._ix = other.ix
        return same

    def same_shape(self, other: _Side) -> bool:
        """Known (shared) to have the same metadata in the same order."""
        return self._ix is not None and self._ix is other._ix

    def ids(self) -> list[str]:
        ix = self.ix
        if ix.ids is None:
            ix.ids = list(map(_BLOCK_ID, self.blocks))
        return ix.ids

    def id_pos(self) -> Mapping[str, int]:
        """Block id -> position."""
        ix = self.ix
        if ix.id_pos is None:
            ix.id_pos = self.window.positions_by_id()
        return ix.id_pos

    def text_counts(self) -> dict[bytes, int]:
        """Text digest -> how many blocks have that text (counted in C; a text no block has is
        not a key)."""
        if self._text_counts is None:
            self._text_counts = Counter(self.digests)
        return self._text_counts

    def inherit(self, other: _Side, differing: list[int]) -> None:
        """Take from ``other``'s side, a window with this one's metadata (an edit in place)
        whose digests differ from these at ``differing`` alone, what it knows and the edit
        cannot have changed: a session's next edit rewrites a block or two of the window the
        last one committed, and then asks these of that window, its pre window (a Counter, a
        dict, a join and a pass over the reads of all 562 blocks, on every turn otherwise)."""
        if other._text_counts is not None and self._text_counts is None:
            self._counts_from(other, differing)
        if other._text_handles is not None and self._text_handles is None:
            # (holding_text's digests end to end: these digests are other's but at
            # `differing`, each _DIGEST_BYTES long, so other's buffer with those spliced in)
            blob = bytearray(other._text_handles)
            digests = self.digests
            for j in differing:
                blob[j * _DIGEST_BYTES:(j + 1) * _DIGEST_BYTES] = digests[j]
            self._text_handles = bytes(blob)
        if other._reads is not None and self._reads is None:
            # the same metadata: the same reads of each resource, with the same texts unless a
            # read is among the blocks whose texts differ
            blocks = self.blocks
            if all(blocks[j].resource is None for j in differing):
                self._reads = other._reads
        if other._norm_memo is not None and self._norm_memo is None:
            # the re-rendered pins found among the same candidates: the same, but at the
            # positions whose texts differ (Gate._respaced asks those again)
            candidates, norms, found, stale = other._norm_memo
            self._norm_memo = (candidates, norms, found, (*stale, *differing))

    def _counts_from(self, other: _Side, differing: list[int]) -> None:
        """:meth:`text_counts` (and :meth:`positions`' index, where no repeated text is
        involved) from ``other``'s (:meth:`inherit`)."""
        theirs, mine = other.digests, self.digests
        base = other._text_counts
        assert base is not None
        counts = dict(base)  # (a C-level copy: a Counter's copy is a Python-level update)
        for j in differing:
            d = theirs[j]
            if counts[d] == 1:
                del counts[d]  # (a text no block holds is not in the counts: positions asks `in`)
            else:
                counts[d] -= 1
        for j in differing:
            d = mine[j]
            counts[d] = counts.get(d, 0) + 1
        self._text_counts = counts
        if other._positions is not None and all(base[theirs[j]] == 1 and counts[mine[j]] == 1 for j in differing):
            # every text that left or came is held once: the repeated texts' lists are the
            # same lists, and only the positions of the texts that left or came move
            last, repeated = other._positions
            last = last.copy()
            for j in differing:
                del last[theirs[j]]
            for j in differing:
                last[mine[j]] = j
            self._positions = (last, repeated)

    def has_text_outside(self, positions: Iterable[int]) -> Callable[[bytes], bool]:
        """Is a text held by a block at a position not among ``positions``? (By counts: the
        blocks with the text, less those among the few positions.)"""
        in_window = self.text_counts()
        among: dict[bytes, int] = {}  # a plain dict: a Counter costs more to make than counting the few
        digests = self.digests
        for i in positions:
            d = digests[i]
            among[d] = among.get(d, 0) + 1
        return lambda d: in_window.get(d, 0) > among.get(d, 0)

    def positions(self, digest: bytes) -> Sequence[int]:
        """Positions of the blocks with this text digest, in window order."""
        if digest not in self.text_counts():
            return ()
        if self._positions is None:
            digests = self.digests
            # most texts occur once: one C-level dict of positions, lists only for repeated texts
            last = dict(zip(digests, range(len(digests))))
            repeated: dict[bytes, list[int]] = {}
            if len(last) < len(digests):
                repeated = {d: [] for d, k in self.text_counts().items() if k > 1}
                for i in compress(range(len(digests)), map(repeated.__contains__, digests)):
                    repeated[digests[i]].append(i)
            self._positions = (last, repeated)
        last, repeated = self._positions
        found = repeated.get(digest)
        if found is not None:
            return found
        i = last.get(digest)
        return () if i is None else (i,)

    def bad_derived(self) -> list[int]:
        """Positions of derived blocks that name no derived_from handle."""
        ix = self.ix
        if ix.bad_derived is None:
            ix.bad_derived = _blockscan.bad_derived(self.blocks)
        return ix.bad_derived

    def handle_union(self) -> frozenset[str]:
        """Every handle a block names in ``handles`` or ``derived_from``."""
        ix = self.ix
        if ix.handle_union is None:
            out: set[str] = set()
            out.update(*map(_HANDLES, self.blocks))
            out.update(*map(_DERIVED_FROM, self.blocks))
            ix.handle_union = frozenset(out)
        return ix.handle_union

    def derived_union(self) -> frozenset[str]:
        """The ``derived_from`` handles of the derived blocks."""
        ix = self.ix
        if ix.derived_union is None:
            ix.derived_union = frozenset(h for b in self.blocks if b.derived for h in b.derived_from)
        return ix.derived_union

    def summary_texts(self) -> dict[str, frozenset[str]]:
        """The block handle of each derived block's text -> the handles it derives from (of the
        last derived block holding that text). Made once per window: each summary an edge
        dates asked it (_Check._through_block_handles), and a handle formatted per derived
        block per summary made N summaries re-summarized from their block handles quadratic
        (red team 64, F03: 20 s at N = 4,000)."""
        found = self._summary_texts
        if found is None:
            digests = self.digests
            found = self._summary_texts = {block_text_handle(digests[i]): frozenset(b.derived_from)
                                           for i, b in enumerate(self.blocks) if b.derived}
        return found

    def reads(self) -> dict[str, list[int]]:
        """resource -> positions of its reads, for resources read at least twice with
        different content (I4 has nothing to check for the others)."""
        if self._reads is None:
            d = self.digests
            self._reads = {r: g for r, g in self.by_resource().items() if len(g) > 1 and len({d[i] for i in g}) > 1}
        return self._reads

    def by_resource(self) -> dict[str, list[int]]:
        """resource -> positions of the blocks that are reads of it."""
        ix = self.ix
        if ix.by_resource is None:
            ix.by_resource = _blockscan.by_resource(self.blocks)
        return ix.by_resource

    def read_line_of(self, resource: str) -> list[tuple[str, float | None]]:
        """The reads of ``resource`` with one handle, oldest first, as (handle, ts): by ts
        when every read has one, else by window position (the session's read log is made of
        these)."""
        ix = self.ix
        if ix.read_line is None:
            ix.read_line = {}
        line = ix.read_line.get(resource)
        if line is None:
            blocks = self.blocks
            ones = [i for i in self.by_resource().get(resource, ()) if len(blocks[i].handles) == 1]
            if all(blocks[i].ts is not None for i in ones):
                ones.sort(key=lambda i: (blocks[i].ts, i))
            line = ix.read_line[resource] = [(blocks[i].handles[0], blocks[i].ts) for i in ones]
        return line

    def stamp_units(self) -> int:
        """The units (_SECONDS, _MILLISECONDS) the window's reads are stamped in."""
        ix = self.ix  # (a function of the reads' stamps: every window of this shape has them)
        if ix.stamp_units is None:
            blocks = self.blocks
            units = 0
            for reads in self.by_resource().values():
                for i in reads:
                    if (ts := blocks[i].ts) is not None:
                        units |= _stamp_unit(ts)
            ix.stamp_units = units
        return ix.stamp_units

    def unlogged_reads(self, read_of: dict[str, str]) -> dict[str, str]:
        """The reads of one handle the session's read log (``read_of``: handle -> resource)
        does not hold, each with the resource the log will file it under when it takes this
        window (Gate._log_reads: the first resource reading it, in by_resource's order)."""
        if self.ix.reads_logged:  # (every read of this shape is in the log)
            return {}
        out: dict[str, str] = {}
        blocks = self.blocks
        for resource, reads in self.by_resource().items():
            for i in reads:
                hs = blocks[i].handles
                if len(hs) == 1 and hs[0] not in read_of:
                    out.setdefault(hs[0], resource)
        return out

    def newest_reads(self, resource: str, reads: list[int]) -> list[int]:
        """The newest of a resource's reads, as a list of one; kept: it depends on the blocks'
        ts and order only. Two reads are ordered by ts when both have one (then by position),
        else by window position, which goes round in a circle when only some reads have a ts
        (a over c by ts, b after a, c after b): then every read of the circle that beats all
        the others is returned (the top cycle: no one of them can be called the newest).

        The reads' scores (how many others each is newer than) are counted with sorts, not
        pairwise, so a resource read thousands of times costs n log n."""
        if self._newest is None:
            self._newest = {}
        found = self._newest.get(resource)
        if found is None:
            blocks = self.blocks
            stamps = [blocks[i].ts for i in reads]
            # a line (every read with a ts, or none): its last, by (ts, position), as top_cycle
            # finds it, without its sorts
            if None not in stamps:
                found = [max(zip(stamps, reads))[1]]
            elif stamps.count(None) == len(stamps):
                found = [max(reads)]
            else:
                found = top_cycle(reads, lambda i: blocks[i].ts, int)
            self._newest[resource] = found
        return found

    def holding(self, handles: set[str] | frozenset[str]) -> list[int]:
        """Positions of the blocks naming one of ``handles`` in ``handles`` (kept for the last
        set asked: a session's sticky pins change rarely)."""
        ix = self.ix
        key = frozenset(handles)
        if ix.holding is None or (ix.holding[0] is not key and ix.holding[0] != key):
            ix.holding = (key, _blockscan.holding(self.blocks, key))
        return ix.holding[1]

    def text_holders(self, text_handles: list[str]) -> dict[str, list[int]]:
        """For each of ``text_handles`` held by some block of this window, those blocks'
        positions (as :meth:`holding_text`, one handle at a time)."""
        if len(text_handles) > _FEW_TEXT_PINS:
            by_key = self._prefix_index()
            return {h: by_key[k] for h in text_handles if (k := _text_key(h)) is not None and k in by_key}
        return {h: found for h in text_handles if (found := self.holding_text((h,)))}

    def holding_pinned_texts(self, sticky: _StickyPins) -> list[int]:
        """Positions of the blocks holding one of a session's pinned texts (:meth:`holding_text`
        of ``sticky.texts``): a search per text for a few, else each block's digest prefix looked
        up, so a session with thousands of pinned texts costs a check the window, not its pins
        (red team 64, F05)."""
        if len(sticky.texts) <= _FEW_TEXT_PINS:
            return self.holding_text(sticky.texts)
        keys = sticky.keys
        return [i for i, d in enumerate(self.digests) if d[:16] in keys]

    def _prefix_index(self) -> dict[bytes, list[int]]:
        """The first 16 bytes of each text digest (what a ``block:`` handle names) -> the
        positions of the blocks with that text: for many pins at once (a session that pinned
        and evicted thousands of notes; red team 31, b03), where a search per pin would cost
        pins x blocks. Not kept: for a few pins a search of the digests end to end is cheaper
        than making it for every window."""
        by_key: dict[bytes, list[int]] = {}
        for i, d in enumerate(self.digests):
            by_key.setdefault(d[:16], []).append(i)
        return by_key

    def holding_text(self, text_handles: Iterable[str]) -> list[int]:
        """Positions of the blocks whose text's handle (``handles.block_text_handle``) is one
        of ``text_handles``, whatever handles the blocks carry (red team 28, y04). A handle names
        the first 16 bytes of a text digest: found in the window's digests end to end (a search
        of one buffer, not a handle formatted per block), where a digest starts."""
        keys = [k for h in text_handles if (k := _text_key(h)) is not None]
        if len(keys) > _FEW_TEXT_PINS:
            by_key = self._prefix_index()
            return [i for k in keys for i in by_key.get(k, ())]
        if self._text_handles is None:
            self._text_handles = b"".join(self.digests)
        blob = self._text_handles
        out = []
        for key in keys:
            at = blob.find(key)
            while at >= 0:
                if at % _DIGEST_BYTES == 0:
                    out.append(at // _DIGEST_BYTES)
                at = blob.find(key, at + 1)
        return out

    def pinned(self) -> list[int]:
        """Positions of the blocks flagged pinned."""
        ix = self.ix
        if ix.pinned is None:
            ix.pinned = list(compress(count(), map(_PINNED, self.blocks)))
        return ix.pinned

    def pinned_handles(self) -> frozenset[str]:
        """The handles the flagged blocks carry."""
        ix = self.ix
        if ix.pinned_handles is None:
            blocks = self.blocks
            ix.pinned_handles = frozenset(h for k in self.pinned() for h in blocks[k].handles)
        return ix.pinned_handles

    def pin_candidates(self, handles: frozenset[str]) -> list[int]:
        """Positions of the blocks that carry one of ``handles`` or whose text is what they are,
        whatever handles they carry (``_TURNS``: those that carry none, and the
        turns of the user, the system and the agent, which a framework logs under a handle of
        its own later: red team 28, y04), in order; kept for the last set asked. One native
        pass: in a list comprehension it cost a check with a pin ~30 µs of the corpus' 562
        blocks."""
        ix = self.ix
        if ix.pin_candidates is None or (ix.pin_candidates[0] is not handles and ix.pin_candidates[0] != handles):
            ix.pin_candidates = (handles, _blockscan.holding_or_found_by_text(self.blocks, handles, _TURNS))
        return ix.pin_candidates[1]

    def may_cite(self) -> bool:
        """Could any block hold a citation marker?"""
        if self._may_cite is None:
            self._may_cite = any(_MARKER_OPENER in t for t in self.texts)
        return self._may_cite

    def by_provenance(self) -> dict[str, list[int]]:
        """handle -> positions of the blocks it grounds (derived_from for a derived block,
        else handles)."""
        ix = self.ix
        if ix.by_provenance is None:
            ix.by_provenance = _blockscan.by_provenance(self.blocks)
        return ix.by_provenance

    def facts(self, gate: Gate, pending: dict[bytes, bytes]) -> list[_Facts]:
        """The true facts of every block."""
        facts = self._facts
        if facts is None or facts is not self._facts_complete:
            if facts is None or None in facts:
                facts = [None] * len(self.blocks) if facts is None else list(facts)
                missing = [i for i, f in enumerate(facts) if f is None]
                found = gate.facts_for_many([self.digests[i] for i in missing], [self.blocks[i] for i in missing], pending)
                for i, f in zip(missing, found):
                    facts[i] = f
                self._facts = facts
            self._facts_complete = facts  # (a scan for None costs ~40 ns a block, every check)
        return facts  # type: ignore[return-value]

    def known_facts(self, facts: list[_Facts | None], complete: bool = False) -> None:
        """Facts a check found for this window's blocks (None where it does not know them;
        ``complete``: none is None)."""
        if self._facts is None:
            self._facts = facts
            if complete:
                self._facts_complete = facts

    def marked(self) -> dict[int, _Facts]:
        """Position -> facts of the blocks that hold a citation marker (facts must be known)."""
        if self._marked is None:
            self._marked = {j: f for j, f in enumerate(self._facts) if f.n_markers}  # type: ignore[arg-type, union-attr]
        return self._marked

    def totals(self, gate: Gate, pending: dict[bytes, bytes]) -> tuple[int, int]:
        """(facts, citation markers) over the whole window (markers of the blocks that cite:
        in a tool output, a user turn or a system prompt they are data, ``_cites``)."""
        if self._n_facts is None:
            facts = self.facts(gate, pending)
            self._n_facts = sum(map(_N_FACTS, facts))
            self._n_markers = sum(map(_citing_markers, self.blocks, facts))
        return self._n_facts, self._n_markers  # type: ignore[return-value]


@dataclass(frozen=True, slots=True)
class CycleRecord:
    """One gated edit of a session, for the retention curve and the report."""

    cycle: int
    operator: str
    accepted: bool
    classification: str
    retention: float | None
    cumulative_retention: float | None
    violations: dict[str, int]
    check_ms: float

    def to_json(self) -> dict[str, Any]:
        return {
            "cycle": self.cycle,
            "operator": self.operator,
            "accepted": self.accepted,
            "classification": self.classification,
            "retention": self.retention,
            "cumulative_retention": self.cumulative_retention,
            "violations": dict(self.violations),
            "check_ms": round(self.check_ms, 4),
        }


class _StickyPins:
    """A session's sticky pinned handles, as every check reads them: replaced, never changed in
    place, so a check takes them without a copy; the ``block:`` handles among them and the
    digest prefixes those name are kept beside them. A check used to copy the session's pins
    and filter them for their texts several times, so a session that pinned a turn every cycle
    cost O(K) per check in K pins, and O(K^2) in all (red team 64, F05)."""

    __slots__ = ("handles", "keys", "texts")

    def __init__(self, handles: frozenset[str] = frozenset(), texts: frozenset[str] = frozenset(),
                 keys: frozenset[bytes] = frozenset()) -> None:
        self.handles = handles
        self.texts = texts  # (every handle under the block: prefix, a text's or not)
        self.keys = keys  # (the digest prefixes the texts' handles name: _text_key)

    def adding(self, handles: Iterable[str]) -> _StickyPins:
        """These pins and ``handles``: a new object, or this one when none is new."""
        new = {h for h in handles if h not in self.handles}
        if not new:
            return self
        texts = {h for h in new if h.startswith(BLOCK_HANDLE_PREFIX)}
        if not texts:
            return _StickyPins(self.handles | new, self.texts, self.keys)
        keys = {k for h in texts if (k := _text_key(h)) is not None}
        return _StickyPins(self.handles | new, self.texts | texts, self.keys | keys if keys else self.keys)

    def without(self, handles: set[str]) -> _StickyPins:
        """These pins less ``handles`` (a check's pins taken back: Gate._undo)."""
        if self.handles.isdisjoint(handles):
            return self
        keys = {k for h in handles if (k := _text_key(h)) is not None}
        return _StickyPins(self.handles - handles, self.texts - handles, self.keys - keys)


class _Undo:
    """What one check added to a gate's session state (``Gate._record``), to take it back when
    its audit record cannot be written: the history's length and the cumulative retention
    before it, and the pins, reads, marker names and window shapes it added."""

    __slots__ = ("cumulative", "handles", "history", "ids", "names", "norms", "reads", "refused", "renderings",
                 "shapes")

    def __init__(self, history: int, cumulative: float | None) -> None:
        self.history = history
        self.cumulative = cumulative
        self.handles: set[str] = set()
        self.ids: set[str] = set()
        self.norms: set[str] = set()
        self.renderings: set[str] = set()
        self.refused: set[tuple[bytes, frozenset[str]]] = set()
        self.reads: list[tuple[str, list[tuple[str, float | None]]]] = []
        self.names: set[str] = set()
        self.shapes: list[_Shape] = []


def _shorter_record(record: dict[str, Any], store: Any) -> dict[str, Any]:
    """``record`` with its violations told in fewer characters: each as its invariant, block,
    handle, key and the first 200 characters of its value; then as many of those as fit in
    half the store's limit (``violations_in_record`` says how many of ``violations`` are
    there; the verdict's counts by invariant stay whole)."""
    limit = getattr(store, "max_content_bytes", None) or 1 << 20
    short = [{"invariant": v["invariant"], "block": v["block"], "handle": v["handle"], "key": v["key"],
              "value": v["value"] if not isinstance(v["value"], str) else v["value"][:200]}
             for v in record.get("violations", ())]
    size = len(json.dumps(short, ensure_ascii=False))
    if size > limit // 2:
        short = short[:max(0, len(short) * (limit // 2) // size - 1)]
    return {**record, "violations": short, "violations_in_record": len(short)}


def _record_in_parts(record: dict[str, Any], store: Any) -> list[dict[str, Any]]:
    """``record`` as one record, or, when what the session keeps (its ``pins`` lists, ``reads``,
    ``refused_summaries``) passes half the store's limit, as the record without them and then
    records continuing it (``"continues": true``, the session and those fields, each under half
    the limit), which a resume reads as it reads every record (it unions pins and refused
    summaries, and replays reads in order) and a report counts as no cycle."""
    limit = (getattr(store, "max_content_bytes", None) or 1 << 20) // 2
    pins = record.get("pins") or {}
    lists = [("pins", k, x) for k in ("handles", "ids", "normalised", "renderings") for x in pins.get(k, ())]
    lists += [("reads", r, entry) for r, entries in (record.get("reads") or {}).items() for entry in entries]
    lists += [("refused_summaries", None, item) for item in record.get("refused_summaries") or ()]
    if len(json.dumps(lists, ensure_ascii=False)) <= limit:
        return [record]
    head = {**record, "pins": {**pins, **{k: [] for k in ("handles", "ids", "normalised", "renderings")}}}
    head.pop("reads", None)
    head.pop("refused_summaries", None)
    parts = [head]
    part: dict[str, Any] | None = None
    size = 0
    for field, key, item in lists:
        item_size = len(json.dumps(item, ensure_ascii=False)) + len(json.dumps(key, ensure_ascii=False)) + 8
        if part is None or size + item_size > limit:
            part = {"session": record.get("session"), "continues": True,
                    "pins": {"handles": [], "ids": [], "texts": True, "normalised": [], "renderings": [], "added": True}}
            parts.append(part)
            size = len(json.dumps(part, ensure_ascii=False))
        if field == "pins":
            part["pins"][key].append(item)
        elif field == "reads":
            part.setdefault("reads", {}).setdefault(key, []).append(item)
        else:
            part.setdefault("refused_summaries", []).append(item)
        size += item_size
    return parts


def _check_resumable(seq: int, record: dict[str, Any]) -> None:
    """Refuse a session's record whose pins, read log or refused summaries are not of the form a
    gate writes, naming the record and the field: a resumed session never runs without the pins
    one of its records held (docs/gate.md), and such a record (appended by other code, or
    rewritten together with its checksum) made the resume raise a raw TypeError or pass its pins
    over in silence (red team 50, f07). A field a record lacks is one written before it existed;
    the entries inside ``reads`` and ``refused_summaries`` are read as before (_logged_reads,
    _refused_summaries)."""
    def refuse(field: str, what: str) -> None:
        raise StoreCorruptionError(
            f"audit record {seq} of session {record.get('session')!r}: its {field!r} is not {what}, as a gate writes "
            "it; refusing to resume the session without what the record holds")

    pins = record.get("pins")
    if "pins" in record:
        if not isinstance(pins, dict):
            refuse("pins", "an object")
        for key in ("handles", "ids", "normalised", "renderings"):
            if key in pins and not (isinstance(pins[key], list) and all(isinstance(x, str) for x in pins[key])):
                refuse(f"pins.{key}", "a list of str")
    if "reads" in record and not isinstance(record["reads"], dict):
        refuse("reads", "an object")
    if "refused_summaries" in record and not isinstance(record["refused_summaries"], list):
        refuse("refused_summaries", "a list")


def _refused_summaries(items: list[Any]) -> Iterator[tuple[bytes, frozenset[str]]]:
    """The refused summaries of an audit record's ``refused_summaries`` (``["blake3:<64 hex>",
    [text handle, ...]]`` each, fields a later writer adds after them ignored); an item in any
    other form, which this gate never writes, is passed over."""
    for item in items:
        if (isinstance(item, list) and len(item) >= 2 and isinstance(item[0], str)
                and _REFUSED_DIGEST.fullmatch(item[0]) and isinstance(item[1], list) and item[1]
                and all(isinstance(h, str) for h in item[1])):
            yield bytes.fromhex(item[0][7:]), frozenset(item[1])


_REFUSED_DIGEST = re.compile(r"blake3:[0-9a-f]{64}")
_NORM_HANDLE_COST = 160  # (bytes of a Gate._norm_handles entry, about: a digest, a str, the slot)
def _pin_normalised(text: str) -> str:
    """``text`` as a pinned page is compared with its renderings: every line without the
    spaces, tabs and carriage returns that end it, and without the blank lines that open or
    close the text, inside fenced code too. Coarser than the fast path's normalisation, which it
    absorbs (two texts that one calls the same, this one does too: a pin-only rule that was not,
    a last line ending in CR and blanks, let compact() summarize a pinned turn away, red team
    46, F1), and with a fence's line ends, which a framework re-rendering its window re-renders
    as well (red team 44, F2). Nothing inside a line changes. One pass over the lines, no
    pattern that backtracks (a run of 40,000 spaces cost a first check 3.7 s: red team 46, F2)."""
    lines = [line.rstrip(" \t\r") for line in text.split("\n")]
    start, end = 0, len(lines)
    while start < end and not lines[start]:
        start += 1
    while end > start and not lines[end - 1]:
        end -= 1
    return "\n".join(lines[start:end])


def _shows_whole(source: bytes, text: str) -> bool:
    """Is ``text`` the whole of ``source``'s bytes, as they are or re-rendered (its lines'
    trailing blanks and CRs, and the blank lines that open or close it: :func:`_pin_normalised`)?"""
    data = text.encode("utf-8", "surrogatepass")
    if data == source:
        return True
    # (a re-rendering changes only blanks: a text far shorter or longer is no copy)
    if abs(len(data) - len(source)) > max(64, len(source) // 4):
        return False
    return _pin_normalised(text) == _pin_normalised(source.decode("utf-8", "surrogatepass"))


# the normalised handle of a blank text: a blank page is no rendering of any pinned text (a blank
# page of one pinned output held every blank block under any pinned handle: red team 44, F4)
_BLANK_NORM = block_text_handle(blake3(b"").digest())


class Gate:
    """The provenance gate for one agent session over one durable store.

    Thread-safe: checks may run from several threads; session state (cycle history, pins) is
    updated under a lock in the order checks finish.
    """

    # Edits that keep every block's metadata in place take shortcuts (shared indexes, work only
    # where blocks changed). Tests turn this off on a twin gate to hold the shortcuts to the
    # general path.
    _in_place = True
    # Grounding makes the set of a source met as a window block's text only when a row is left
    # without it (_Check._ground); tests turn this off on a twin gate too.
    _defer_sets = True
    # I4 weighs the reads that left the window against facts kept of the session's read log
    # (_Check._left_reads_of); tests turn this off on a twin gate to hold it to the rebuilt
    # path (_Check._left_reads_rebuilt), its specification.
    _incremental_left = True
    # A check takes up its record's pins in rounds (_Check._take_up_held_pins); after the first,
    # only what a round added is followed up (_Check._later_rounds); tests turn this off on a twin
    # gate to hold it to the rounds worked out whole.
    _incremental_pins = True

    def __init__(
        self,
        store: Any,
        *,
        policy: str = "reject",
        retention_floor: float = DEFAULT_RETENTION_FLOOR,
        audit: bool = True,
        session: str | None = None,
        cache_bytes: int = 256 << 20,
    ) -> None:
        _check_gate_arguments(store, audit, cache_bytes)
        _check_policy(policy)
        if session is not None:
            check_session(session)
        # groups this gate's cycles in the audit log, for the session report
        self.session = session or uuid.uuid4().hex
        _check_floor(retention_floor)
        self.store = store
        self.policy = policy
        self.retention_floor = float(retention_floor)
        self.audit = audit
        self._text_digest = _Cache(cache_bytes // 8)
        self._facts = _Cache(cache_bytes)
        self._source_bytes = _Cache(cache_bytes // 2)
        self._handle_digest: dict[str, str] = {}  # handles are immutable: a hit never goes stale
        self._derived_source: dict[str, bool] = {}  # (derived_source; a source's kind is its first put's)
        self._decoded_reads: dict[int, _Facts] = {}  # (read_facts: by the id of the facts they extend)
        self._handle_key: dict[str, bytes] = {}  # the same, as raw digest bytes (the facts cache key)
        # the content digests whose stored bytes this gate has seen intact (compared with a
        # block's bytes, or read and re-hashed): an eviction or supersession of their sources is
        # vouched for without reading them again (confirm_intact)
        self._intact: set[str] = set()
        self._marker_handles: dict[str, tuple[str, ...]] = {}
        # the newest source the marker resolutions above have been checked against, and a count
        # of the times newer sources changed what one of them cites (sides record at which count
        # their names all resolved)
        self._names_seq: int | None = None
        self._names_epoch = 0
        self._unpersisted: list[tuple[str, str, FactTable]] = []
        self._sides: dict[int, _Side] = {}  # id(window) -> its side, for the last few windows
        # the windows of the last check, held until the next one has been judged: a caller that
        # passes the window it committed again as a new object (rebuilt from its plain JSON
        # blocks, as most agents hold them) starts from what the gate derived from it
        self._last_windows: tuple[Window, ...] = ()
        self._grounded = _Cache(16 << 20)
        self._lock = threading.Lock()
        self._audit_order = threading.Lock()  # taken before _lock, never inside it
        self._history: list[CycleRecord] = []
        self._sticky = _StickyPins()  # the pinned handles (replaced, never changed in place)
        self._pinned_ids: set[str] = set()  # pinned blocks without a handle
        # the pinned handles of records written before text pins (Gate._resume): those never
        # held the pinned block's text, so every block carrying one is held to R
        self._legacy_pins: frozenset[str] = frozenset()
        # the text handles of the pinned texts after the whitespace normalisation of the
        # structural fast path: a block carrying a pinned handle whose text is a pinned text
        # there is the pinned block re-rendered (_Check._respaced). Replaced, never changed in
        # place, so a check reads it without the lock.
        self._pinned_norms: frozenset[str] = frozenset()
        # the text handles of pinned texts first pinned as a pinned page re-rendered (found by
        # _Check._respaced, never by their bytes): only such a block is let go by a flagged post
        # block holding the page in another rendering; a block holding pinned bytes that were
        # never a rendering needs a flagged block keeping those very bytes (R compares bytes:
        # red team 44, F3). Grows only, like the pins; replaced, never changed in place.
        self._pinned_renderings: frozenset[str] = frozenset()
        # text digest -> the handle of the text after the whitespace normalisation (a pinned
        # block's, or a candidate's whose text is no pinned text: every pass asks again)
        self._norm_handles = _Cache(cache_bytes // 64)
        # the summaries R refused in this session (_Check._was_refused), each as (the digest
        # of its whitespace-normalised text, the pinned texts it summarized or cited)
        self._refused_summaries: set[tuple[bytes, frozenset[str]]] = set()
        self._handle_seq: dict[str, int] = {}  # handle -> the store's insertion order (fresh reads)
        # The session's reads of each resource, oldest first, as (handle, ts), with the
        # resource of each handle: kept like pins, from every pre window and every committed
        # post, so that a summary of reads that have all left the window is still held to the
        # newest of them (I4, red team 8's t04 d); persisted in the audit records
        self._read_log: dict[str, list[tuple[str, float | None]]] = {}
        # per resource, the units its logged reads are stamped in, for the line's length they
        # were counted at (_logged_units: a line grows, and an undone check shortens it)
        self._log_units: dict[str, tuple[int, int]] = {}
        self._units_logged = 0  # every unit a logged read was ever stamped in (an undo keeps it)
        self._read_of: dict[str, str] = {}
        self._read_names: set[str] = set()  # the marker names that may cite a logged read
        # per resource, the key=value facts of its logged reads, kept in step with the log
        # (_LogFacts): the rule on reads that left the window weighs them without reading every
        # logged read again (red team 41, 04). Made on a resource's first such check, fed by
        # _log_reads, dropped by _undo. It and the read log change only under _left_lock, which
        # a check holds while it weighs the reads that left its window, so the log and the
        # facts it weighs hold still together (taken before _lock, never inside it).
        self._log_facts: dict[str, _LogFacts] = {}
        self._left_lock = threading.Lock()
        self._cumulative: float | None = None
        self._cycle_base = 0
        if session is not None:
            # (a gate that writes no records still judges as the session: a dry run, or a check
            # of candidates on a read-only store, dropped its pins and read log: red team 93, F01)
            self._resume()

    def _resume(self) -> None:
        """Continue a session recorded in the audit log by earlier processes: cycle numbers,
        the cumulative retention and the sticky pins carry over (``provgate check --session``).
        Every record of the session counts (one session may have had several writers), and
        only those are read and parsed (``SourceStore.iter_audit_of_session``)."""
        legacy: set[str] = set()  # pinned handles of records that hold no text pins for them
        norms: set[str] = set()
        renderings: set[str] = set()
        pinned: set[str] = set()
        # per resource, the reads records put where they went, not yet in the line: put in one
        # pass (a pass per record made a resume O(records x line), red team 102, F02)
        pending: dict[str, list[tuple[str, float | None, str | None]]] = {}
        # and the reads of records written before reads kept where they went, placed by ts: in
        # one pass of the line per run of such records too (red team 106, F01)
        pending_by_ts: dict[str, list[tuple[str, float | None]]] = {}
        for seq, record in self.store.iter_audit_of_session(self.session):
            if not isinstance(record, dict) or record.get("session") != self.session:
                continue
            _check_resumable(seq, record)
            cycle = record.get("cycle")
            if isinstance(cycle, int):
                self._cycle_base = max(self._cycle_base, cycle)
            if record.get("accepted") is True:
                retention = record.get("retention")
                if isinstance(retention, (int, float)) and not isinstance(retention, bool):
                    try:
                        cumulative = (1.0 if self._cumulative is None else self._cumulative) * float(retention)
                    except OverflowError:  # a foreign record's int beyond any float
                        cumulative = math.inf
                    # a record this gate could not have written leaves the product unknown
                    self._cumulative = cumulative if math.isfinite(cumulative) and cumulative >= 0 else None
            reads = record.get("reads")
            if isinstance(reads, dict):
                for resource, added in reads.items():
                    if isinstance(resource, str) and isinstance(added, list):
                        self._replay_reads(resource, added, pending, pending_by_ts)
            refused = record.get("refused_summaries")
            if isinstance(refused, list):
                self._refused_summaries.update(_refused_summaries(refused))
            # from every verdict: a rejected check saw its pre's pins too. A record holds the pins
            # its check added ("added": red team 64, F06) or, written before, the session's whole
            # set: a union of them all is the session's pins either way, in any order
            pins = record.get("pins")
            if isinstance(pins, dict):
                handles = [h for h in pins.get("handles", ()) if isinstance(h, str)]
                pinned.update(handles)
                self._pinned_ids.update(i for i in pins.get("ids", ()) if isinstance(i, str))
                if pins.get("texts") is not True:
                    legacy.update(h for h in handles if not h.startswith(BLOCK_HANDLE_PREFIX))
                # (a record written before them has none: its pinned texts are known by their
                # bytes alone until a check sees them again, _record)
                normalised = pins.get("normalised")
                if isinstance(normalised, list):
                    norms.update(h for h in normalised if isinstance(h, str) and h.startswith(BLOCK_HANDLE_PREFIX))
                # (a record without them: its pinned texts count as pinned bytes, held to
                # themselves, which fails closed)
                rendered = pins.get("renderings")
                if isinstance(rendered, list):
                    renderings.update(h for h in rendered if isinstance(h, str) and h.startswith(BLOCK_HANDLE_PREFIX))
        for resource, placed in pending.items():
            put_reads(self._read_log.setdefault(resource, []), placed)
        self._read_names.update(_names_citing(h for placed in pending.values() for h, _, _ in placed))
        for resource, reads in pending_by_ts.items():
            self._put_by_ts(resource, reads)
        for line in self._read_log.values():
            for _, ts in line:
                if ts is not None:
                    self._units_logged |= _stamp_unit(ts)
        norms.discard(_BLANK_NORM)
        self._sticky = self._sticky.adding(pinned)
        self._pinned_norms = frozenset(norms)
        self._pinned_renderings = frozenset(renderings)
        if legacy:
            self._legacy_pins = frozenset(legacy)
            self._pin_legacy_texts(legacy)

    def _pin_legacy_texts(self, handles: set[str]) -> None:
        """A record written before red team 28's y04 holds a pinned block's handles but not the
        handle of its text, which the gate now pins too (docs/gate.md R): failing closed, the
        bytes stored under each such handle are pinned by their text handle (a block carrying
        the handle most often holds exactly those bytes; the store's digest is the BLAKE3 of
        them, so nothing is read). A handle that is not valid, not stored, or whose row is
        damaged (the check that meets it says so) adds nothing."""
        valid = []
        for h in sorted(handles):
            try:
                valid.append(check_handle(h))
            except ValueError:
                continue
        try:
            digests = list(self.store.digests_many(valid).values())
        except StoreCorruptionError:
            digests = []
            for h in valid:
                try:
                    digests.append(self.store.digest(h))
                except (StoreCorruptionError, UnknownHandleError):
                    continue
        texts = []
        for digest in digests:
            algorithm, _, hexdigest = digest.partition(":")
            if algorithm == "blake3" and len(hexdigest) == 64:
                try:
                    texts.append(block_text_handle(bytes.fromhex(hexdigest)))
                except ValueError:
                    continue
        self._sticky = self._sticky.adding(texts)

    def _normalised_text_handle(self, digest: bytes, text: str) -> str:
        """The handle of ``text`` (whose BLAKE3 is ``digest``) after the whitespace normalisation
        of the structural fast path, line ends and trailing blanks inside fences included
        (_pin_normalised; docs/gate.md): ``block:`` + the digest of the normalised text, kept by
        ``digest`` so a session's steady state normalises nothing again."""
        found = self._norm_handles.get(digest)
        if found is None:
            normalised = _pin_normalised(text)
            # (surrogatepass: compact() asks before the planner reports a lone surrogate)
            found = block_text_handle(digest if normalised == text
                                      else blake3(normalised.encode("utf-8", "surrogatepass")).digest())
            self._norm_handles.put(digest, found, _NORM_HANDLE_COST)
        return found

    def _normalised_text_handles(self, texts: Sequence[str], digest_of: Callable[[int], bytes],
                                 positions: Sequence[int]) -> list[str]:
        """:meth:`_normalised_text_handle` of the texts at ``positions``: in a session's steady
        state every one is a cache hit, looked up without a Python call per block (a window's
        turns are all asked in every check of a session with a pin: the standard edits' checks
        made ~1,200 more Python calls when this was a generator)."""
        found = list(map(self._norm_handles.get, map(digest_of, positions)))
        if None in found:
            # (the few misses found by list.index in C: a next edit's one new text was a
            # Python step over every candidate)
            k = found.index(None)
            while True:
                found[k] = self._normalised_text_handle(digest_of(positions[k]), texts[positions[k]])
                try:
                    k = found.index(None, k + 1)
                except ValueError:
                    break
        return found

    def _stored_pinned_texts(self, handles: Iterable[str], texts: set[str], kept_norms: set[str]) -> set[str]:
        """Of ``handles`` (sources, no text handle among them), those whose stored bytes are one
        of the pinned texts ``texts`` (their text handles) that no flagged block keeps
        re-rendered (``kept_norms``: those blocks' texts after the whitespace normalisation).
        R reads citing or summarizing one as restating the pinned text; I5 and compact() ask
        the same (red team 63, F02; red team 68, F01)."""
        out = {h for h in handles if (d := self.handle_digest(h)) is not None and stored_text_handle(d) in texts}
        if out and kept_norms:
            out -= self._kept_as_rendering(out, kept_norms)
        return out

    def _kept_as_rendering(self, handles: set[str], kept_norms: set[str]) -> set[str]:
        """Of ``handles`` (sources holding a pinned text), those whose stored text, after the
        whitespace normalisation, is one of ``kept_norms`` (the texts of the flagged blocks a
        window keeps): the pinned text is kept, re-rendered, and citing its source is a
        reference (red team 68, F01). Each source is normalised once per gate."""
        out = set()
        for h in handles:
            d = self.handle_digest(h)
            if d is None or not d.startswith("blake3:"):
                continue
            key = bytes.fromhex(d[len("blake3:"):])
            found = self._norm_handles.get(key)
            if found is None:
                found = self._normalised_text_handle(key, self.store.get(h))
            if found in kept_norms:
                out.add(h)
        return out

    def _respaced(self, texts: Sequence[str], digest_of: Callable[[int], bytes], candidates: Sequence[int],
                  flagged: Sequence[int], norms: frozenset[str], side: _Side | None = None) -> list[int]:
        """Of ``candidates`` (blocks carrying a pinned handle, or found by their text alone),
        those whose text is a pinned text after the whitespace normalisation: the pinned page shown
        again re-rendered (CRLF line ends, trailing blanks, a final line break dropped), which
        the fast path itself calls the same block (red team 42, R1). ``norms``: the session's
        (Gate._pinned_norms); the texts of ``flagged`` are pinned from this pass on, as their
        bytes are (_Check._take_pre_pins). Only candidates and flagged blocks are normalised,
        none when there is no candidate, and each text once per gate: then it is a lookup.
        ``side``: the side whose texts these are, which keeps the answer; the next edit's pre
        window (the window this one's post became, rewritten in place) asks again only the
        candidates whose texts it changed (_Side.inherit): a look-up of every candidate's text
        was most of a next edit's pins phase."""
        if not candidates:
            return []
        extra = set(self._normalised_text_handles(texts, digest_of, flagged))
        if not extra <= norms:
            norms = norms | extra
        if _BLANK_NORM in norms:
            norms = norms - {_BLANK_NORM}
        if not norms:
            return []
        memo = side._norm_memo if side is not None else None
        if memo is not None and memo[0] is candidates and memo[1] == norms:
            if not memo[3]:
                return list(memo[2])
            stale = set(memo[3])
            # (candidates are in window order: a stale position is looked up in them by bisection)
            asked = [i for i in sorted(stale) if (k := bisect_left(candidates, i)) < len(candidates)
                     and candidates[k] == i]
            found = sorted({*(i for i in memo[2] if i not in stale),
                            *compress(asked, map(norms.__contains__,
                                                 self._normalised_text_handles(texts, digest_of, asked)))})
        else:
            found = list(compress(candidates, map(norms.__contains__,
                                                  self._normalised_text_handles(texts, digest_of, candidates))))
        if side is not None:
            side._norm_memo = (candidates, frozenset(norms), found, ())  # type: ignore[arg-type]
        return list(found)

    def _respaced_text_pins(self, window: Window, sticky: set[str] | frozenset[str]) -> set[str]:
        """For compact(): the text handles of the blocks of ``window`` that the gate holds to R
        as a pinned page re-rendered (_Check._respaced), ``sticky`` the session's pinned handles
        and the texts of the window's flagged blocks. Runs before the planner validates the
        window: a lone surrogate is hashed as it is (surrogatepass), for the planner to report."""
        blocks = window.blocks
        flagged = [k for k, b in enumerate(blocks) if b.pinned]
        with self._lock:
            norms = self._pinned_norms
        if not norms and not flagged:  # (no pinned text to be a rendering of: nothing is normalised)
            return set()
        handles = set(sticky).union(*(blocks[k].handles for k in flagged))
        digests: dict[int, bytes] = {}

        def digest_of(k: int) -> bytes:
            if k not in digests:
                digests[k] = blake3(blocks[k].text.encode("utf-8", "surrogatepass")).digest()
            return digests[k]

        # (the gate's candidates, one native pass: _Check._respaced; a window here has no _Side)
        candidates = [i for i in _blockscan.holding_or_found_by_text(blocks, frozenset(handles), _TURNS)
                      if not blocks[i].pinned and block_text_handle(digest_of(i)) not in sticky]
        texts = [b.text for b in blocks]
        return {block_text_handle(digest_of(i)) for i in self._respaced(texts, digest_of, candidates, flagged, norms)}

    def _pins_taken_up(self, window: Window) -> tuple[frozenset[str], set[str]] | None:
        """For compact(): the pins a check of a pass from ``window`` judges with (the session's,
        and what its record takes up from the window: _Check._take_pre_pins), and the text
        handles of the blocks it holds pinned (flagged, holding a pinned text, held by a legacy
        record, a pinned page re-rendered). Asked with the window kept whole, as the planner
        has not chosen yet; None when the window cannot be hashed (a lone surrogate: the
        planner reports it)."""
        try:
            run = self._check_as_far_as_pins(Edit("reorder", window, window, (), (), ()))
        except EditFormatError:
            return None
        digests = run.pre.digests
        return run.sticky.handles, {block_text_handle(digests[i]) for i in run.pinned_positions()}

    def _read_places(self, window: Window) -> dict[int, tuple[int, float | None]]:
        """Block index -> (place, ts) that order the window's reads of each resource the session's
        read log holds, as I4 orders them (``_Check._log_order``): the line as the log will hold
        it once it takes the window's reads, a read at the place of the oldest logged handle it
        holds and the ts it was logged with, a read the line does not hold after the reads before
        it in the window; then by ts when both have one, else by place. ``compact()`` plans by it:
        ordered by the window alone, an older read put back after the newer one was planned as
        the newest, and the gate refused the pass as a silent merge (red team 93, F07)."""
        by_resource: dict[str, list[int]] = {}
        for i, b in enumerate(window):
            if b.resource is not None:
                by_resource.setdefault(b.resource, []).append(i)
        out: dict[int, tuple[int, float | None]] = {}
        for resource, reads in by_resource.items():
            if len(reads) < 2:
                continue
            with self._lock:
                line = list(self._read_log.get(resource, ()))
                read_of = self._read_of
                if not line:
                    continue
                logged = {h for h, _ in line}
                window_line = [(window[i].handles[0], window[i].ts) for i in reads if len(window[i].handles) == 1
                               and (window[i].handles[0] in logged or window[i].handles[0] not in read_of)]
            log_reads({resource: line}, dict.fromkeys(logged), resource, window_line)
            out.update(_log_places(line, reads, window.blocks)[0])
        return out

    def _pins_left(self, pre: Window, post: Window, evicted: Sequence[str]) -> _PinsLeft:
        """For compact(): R's reading of the pass that commits ``post`` from ``pre`` with the
        records ``evicted``, asked before its summaries are written (``post`` without them). The
        pins are the session's now; the check that commits the pass takes the same ones."""
        return _PinsLeft(self._check_as_far_as_pins(Edit("summarize", pre, post, tuple(evicted), (), ())))

    def _check_as_far_as_pins(self, edit: Edit) -> _Check:
        """A check of ``edit`` with the session's pins now, run through the phases that settle
        which blocks it holds pinned (hash, structure, pins) and no further; raises
        EditFormatError when a text cannot be hashed."""
        with self._lock:
            sticky, norms, renderings = self._sticky, self._pinned_norms, self._pinned_renderings
        run = _Check(self, edit, self.retention_floor, sticky, norms, renderings)
        run._hash()
        run._take_pre_pins()
        run._structure()
        run._take_up_held_pins()
        return run

    # -- public API ---------------------------------------------------------------------------

    @property
    def history(self) -> list[CycleRecord]:
        with self._lock:
            return list(self._history)

    @property
    def pins(self) -> tuple[frozenset[str], frozenset[str]]:
        """The session's sticky pins: (pinned handles, ids of pinned blocks without a handle).
        Every pinned block is pinned by the handle of its text (``block:…``, among the handles),
        whatever its id and handles in a later window, and by its handles, from which no summary
        may derive (a block that only shares one, another page of a pinned output, is no pinned
        block by it); the ids are a record (docs/gate.md R)."""
        with self._lock:
            return self._sticky.handles, frozenset(self._pinned_ids)

    def check(
        self,
        pre: Window | Iterable[Block | Mapping[str, Any]],
        post: Window | Iterable[Block | Mapping[str, Any]],
        *,
        operator: str,
        supersedes: Iterable[Supersession | Mapping[str, Any] | tuple[str, str]] = (),
        evicted: Iterable[str] = (),
        pointers: Iterable[Citation | Mapping[str, Any]] = (),
        policy: str | None = None,
        retention_floor: float | None = None,
        commit: bool = False,
    ) -> Verdict:
        """Judge one edit; append the verdict to the audit log; never raise for a bad edit.

        ``commit``: the caller commits the window of an accepted verdict (as :meth:`commit`
        does, without raising), so the pins of that window become the session's now; a check
        alone only weighs a candidate (its post window's pins stick once it is committed, or
        once a later check starts from it)."""
        edit = _coerce_edit(operator, pre, post, supersedes, evicted, pointers)
        return self.check_edit(edit, policy=policy, retention_floor=retention_floor, commit=commit)

    def check_edit(self, edit: Edit, *, policy: str | None = None, retention_floor: float | None = None,
                   commit: bool = False) -> Verdict:
        if type(commit) is not bool:
            # (a ProvgateError naming the argument, as for policy and retention_floor: red team
            # 90, F03, a bare TypeError escaped callers that catch ProvgateError)
            raise InvalidArgumentError(f"commit must be a bool, not {type(commit).__name__}", argument="commit")
        policy = self.policy if policy is None else policy
        floor = self.retention_floor if retention_floor is None else retention_floor
        _check_policy(policy)
        _check_floor(floor)
        with self._lock:
            sticky = self._sticky
            pinned_norms = self._pinned_norms
            renderings = self._pinned_renderings
        run = _Check(self, edit, floor, sticky, pinned_norms, renderings)
        if edit.sources:
            # Unusable input must leave the store untouched: validate the whole edit (block
            # texts are encoded while hashing) and every source before the first put.
            run.prepare()
            self._scan_large_texts(run, edit.sources)
            run.ingested = self._ingest(edit.sources, edit.source_kinds)
        started = time.perf_counter()
        verdict = run.run(policy, 0)  # the cycle number is assigned by _record
        total_ms = (time.perf_counter() - started) * 1e3
        verdict.timings_ms["total"] = total_ms
        # a record adds to the session's read log what the check logged, and a resumed session
        # replays the records in the log's order: checks of several threads append in the
        # order they logged (red team 13, q01: the other order made the older read the newest)
        with self._audit_order:
            undo = self._record(edit, verdict, run, total_ms, commit)
            t0 = time.perf_counter()
            try:
                self._persist_fact_tables()
                if self.audit:
                    self._append_audit(edit, verdict, run, policy, floor, undo)
            except BaseException:
                # a check whose audit record was not written (a read-only store, a full disk)
                # leaves no trace in the session: its cycle number, pins, reads and retention
                # are taken back, so the next check, and a resume from the log, see the same
                # session (red team 26, w03: the cycle stayed in the history)
                self._undo(undo)
                raise
            # durable writes are reported apart from the check, as the issue asks
            verdict.timings_ms["audit"] = (time.perf_counter() - t0) * 1e3
            # (the windows it replaces are freed here, outside the timed check, if the caller
            # dropped them; a check that failed to record keeps the last ones). An accepted
            # edit the agent committed is followed by an edit from its window: the pre window
            # is not kept for _kept_twin then. This check's caller still holds it, so it is not
            # freed in this call; else every committed turn freed the window of two turns ago,
            # 562 cold blocks, inside the next check (~35 us after 8 MiB touched).
            kept = (verdict.window, edit.post) if verdict.accepted and commit else (verdict.window, edit.post, edit.pre)
            self._last_windows = tuple({id(w): w for w in kept}.values())
        return verdict

    def _persist_fact_tables(self) -> None:
        """Source fact tables computed during a check go to the store's durable cache in one
        transaction, so a later process never scans those sources again."""
        with self._lock:
            pending, self._unpersisted = self._unpersisted, []
        # (a store opened read-only keeps no cache: a check of candidates on it, audit=False,
        # raised at this write; red team 93, F01)
        if not pending or getattr(self.store, "read_only", False):
            return
        # a table past the store's limit is not cached (a source of 700,000 small numbers made
        # one of 64 MiB, and every check of a window holding it raised: red team 93, F09); the
        # gate keeps it in memory, and another process scans the source again
        limit = getattr(self.store, "max_content_bytes", None)
        entries = [(d, v, blob) for d, v, t in pending if limit is None or len(blob := t.to_bytes()) <= limit]
        try:
            self.store.put_cached_facts_many(entries)
        except LimitExceededError:
            for entry in entries:  # (a row SQLite's own limit refuses: each other one still cached)
                try:
                    self.store.put_cached_facts_many([entry])
                except LimitExceededError:
                    pass

    def commit(self, pre: Any, post: Any, *, operator: str, **kwargs: Any) -> Window:
        """The window to commit, or ``ProvenanceInvariantError`` carrying the verdict."""
        verdict = self.check(pre, post, operator=operator, **kwargs, commit=True)
        if not verdict.accepted:
            raise ProvenanceInvariantError(f"edit rejected by provgate: {verdict.summary()}", verdict=verdict)
        return verdict.window

    def commit_edit(self, edit: Edit, **kwargs: Any) -> Window:
        verdict = self.check_edit(edit, **kwargs, commit=True)
        if not verdict.accepted:
            raise ProvenanceInvariantError(f"edit rejected by provgate: {verdict.summary()}", verdict=verdict)
        return verdict.window

    def _scan_large_texts(self, run: _Check, sources: Mapping[str, str]) -> None:
        """Before an edit's inline sources are put: scan every text of the edit large enough
        to exceed the scanner's span limit (LimitExceededError, unusable input), which the check
        would otherwise meet after the sources were written (red team 26, w02). A block's table
        is kept for the check; a text under the threshold cannot hold that many spans."""
        seen: set[bytes] = set()
        entries = []
        texts = [(d, t) for side in (run.pre, run.post) for d, t in zip(side.digests, side.texts)]
        texts.extend((None, t) for t in sources.values() if isinstance(t, str))
        for digest, text in texts:
            if len(text) < _PREFLIGHT_CHARS or digest in seen or (digest is not None and self._facts.get(digest)):
                continue
            data = run.pending.get(digest) if digest is not None else None
            data = data or encode_text(text, "text")
            if digest is None:
                digest = blake3(data).digest()
                if digest in seen or self._facts.get(digest):
                    continue
            seen.add(digest)
            table = extract(data)  # raises LimitExceededError
            entries.append((digest, _Facts(table), len(data) + 64 * len(table) + 64))
        self._facts.put_many(entries)

    def _ingest(self, sources: Mapping[str, str], kinds: Mapping[str, str] | None = None) -> frozenset[str]:
        """Put an edit's inline sources, all or nothing: every source is checked first (its
        handle, its encoding, its size against the store's limit, a conflict with what the store
        holds), each error naming the field ``sources['HANDLE']``, and then the new ones are
        written in one store transaction (``SourceStore.put_many``), which the store rolls back
        whole if it refuses any of them. A source given a kind (``kinds``, the edit's
        ``source_kinds``: a summary's words, red team 93, F04) is stored with it; one the store
        holds already must hold it with that kind (a source's kind is its first put's, so
        another would be dropped silently, and a summary's words taken for a source's)."""
        kinds = kinds or {}
        limit = self.store.max_content_bytes
        new: dict[str, bytes] = {}
        for handle, text in sources.items():
            field = f"sources[{handle!r}]"
            try:
                check_handle(handle)
            except InvalidHandleError as exc:
                raise EditFormatError(f"{field}: {exc}", field=field) from None
            data = encode_text(text, field)
            if len(data) > limit:
                raise LimitExceededError(f"{field}: the source is {len(data)} bytes as UTF-8; the store's limit is "
                                         f"{limit} bytes (max_content_bytes)", field=field)
            known = self.handle_digest(handle)
            if known is None:
                new[handle] = data
            elif not _digests.digests_equal(known, _digests.compute_digest(data)):
                raise EditFormatError(
                    f"{field}: the store already holds different content for this handle "
                    f"({known}); handles are immutable", field=field)
            elif handle in kinds and (stored := self.store.info(handle).kind) != kinds[handle]:
                raise EditFormatError(
                    f"{field}.kind: the store already holds this source with kind {stored!r}, not {kinds[handle]!r}; a "
                    "source's kind is its first put's and cannot change", field=f"{field}.kind")
        if new:
            own = {h: kinds[h] for h in new if h in kinds}
            if own:
                self.store.put_many(new, kinds=own)
            else:
                self.store.put_many(new)
        return frozenset(new)

    # -- session state --------------------------------------------------------------------------

    def _record(self, edit: Edit, verdict: Verdict, run: _Check, total_ms: float, commit: bool) -> _Undo:
        """Add a judged check to the session (cycle, pins, reads, retention); returns what
        :meth:`_undo` needs to take it back if its audit record cannot be written."""
        with self._left_lock, self._lock:
            undo = _Undo(len(self._history), self._cumulative)
            # numbered in the order checks finish, so concurrent checks never share a cycle
            object.__setattr__(verdict, "cycle", self._cycle_base + len(self._history) + 1)
            # Pins are sticky: once a pass has seen a block pinned, every later pass protects
            # it, even if a compactor forgets the flag. The pre window is what the agent holds,
            # whatever the verdict; the post window counts only once committed (a candidate
            # the agent only weighed, and then dropped, pins nothing).
            pinned = [(run.pre.blocks[i], run.pre.digests[i]) for i in run.pre.pinned()]
            if verdict.accepted and commit:
                post = run.post if verdict.window is run.post.window else None
                pinned += ([(post.blocks[i], post.digests[i]) for i in post.pinned()] if post is not None
                           else [(b, blake3(b.text.encode("utf-8")).digest()) for b in verdict.window if b.pinned])
            beyond, beyond_norms, beyond_renderings = run.pins_beyond_flags()
            # the reads, like the pins: the pre window's whatever the verdict, the post's once
            # committed (a reclassified window has the post window's reads)
            run.reads_logged = self._log_reads(run.pre, undo)
            if verdict.accepted and commit:
                for resource, added in self._log_reads(run.post, undo).items():
                    run.reads_logged.setdefault(resource, []).extend(added)
            added: list[str] = []  # (taken up together: the pins are replaced, not changed in place)
            for b, digest in pinned:
                # R promises the pinned bytes: every pinned block is pinned by the handle of its
                # text (handles.block_text_handle), with or without handles of its own, and by
                # each of its handles. A later pass finds the block holding those bytes whatever
                # its id and whatever handles it carries then (_check_pins; red team 27, x04:
                # a renumbered turn; red team 28, y04: the turn pinned without a handle later
                # logged as user:u3, or pinned as user:u3 and later shown without it, was
                # inverted `lossless`).
                added += (*b.handles, block_text_handle(digest))
                if not b.handles:
                    # the id of a block without a handle is kept for Gate.pins, the audit
                    # records and the compaction planner; it pins nothing by itself
                    if b.id not in self._pinned_ids:
                        undo.ids.add(b.id)
                    self._pinned_ids.add(b.id)
            added += beyond
            undo.handles.update(h for h in added if h not in self._sticky.handles)
            # (from the check's own pins when the session's are still those it started from: they
            # hold what it took up, so a session of many pins is copied once a check, not twice;
            # red team 78, F02)
            started, started_norms, started_renderings = run.started_with
            self._sticky = (run.sticky if self._sticky is started else self._sticky).adding(added)
            # and each pinned text as the whitespace normalisation makes it: the same page shown
            # again re-rendered (CRLF line ends, trailing blanks) under its pinned handle is the
            # pinned block (_Check._respaced; red team 42, R1); a text pinned by a record written
            # before these is taken up when a check finds it again by its bytes
            norms = {self._normalised_text_handle(digest, b.text) for b, digest in pinned}
            norms.discard(_BLANK_NORM)
            norms |= beyond_norms
            if not norms <= self._pinned_norms:
                undo.norms.update(norms - self._pinned_norms)
                known = run.pinned_norms if self._pinned_norms is started_norms else self._pinned_norms
                self._pinned_norms = known if norms <= known else known | norms
            # the texts first pinned as a rendering of a pinned page (_Check._free_text_pins)
            rendered = beyond_renderings - self._pinned_renderings
            if rendered:
                undo.renderings.update(rendered)
                known = run.renderings if self._pinned_renderings is started_renderings else self._pinned_renderings
                self._pinned_renderings = known if rendered <= known else known | rendered
            undo.refused.update(d for d in run.refused_summaries if d not in self._refused_summaries)
            self._refused_summaries.update(run.refused_summaries)
            if verdict.accepted and verdict.retention is not None:
                self._cumulative = (1.0 if self._cumulative is None else self._cumulative) * verdict.retention
            self._history.append(
                CycleRecord(
                    cycle=verdict.cycle,
                    operator=edit.operator,
                    accepted=verdict.accepted,
                    classification=verdict.classification,
                    retention=verdict.retention,
                    cumulative_retention=self._cumulative,
                    violations=verdict.by_invariant(),
                    check_ms=total_ms,
                )
            )
        return undo

    def _undo(self, undo: _Undo) -> None:
        """Take back what :meth:`_record` added to the session (under ``_audit_order``, so no
        other check was recorded since)."""
        with self._left_lock, self._lock:
            del self._history[undo.history:]
            self._cumulative = undo.cumulative
            self._sticky = self._sticky.without(undo.handles)
            self._pinned_ids.difference_update(undo.ids)
            if undo.norms:
                self._pinned_norms = self._pinned_norms - undo.norms
            if undo.renderings:
                self._pinned_renderings = self._pinned_renderings - undo.renderings
            self._refused_summaries.difference_update(undo.refused)
            for resource, added in reversed(undo.reads):
                # (the facts of a resource's reads are a union, which cannot give one back: they
                # are made again from the line on its next check)
                self._log_facts.pop(resource, None)
                line = self._read_log[resource]
                for read in added:
                    line.remove(read)
                    del self._read_of[read[0]]
                if not line:  # (a line is made by the read added first to it)
                    del self._read_log[resource]
            self._read_names.difference_update(undo.names)
            for ix in undo.shapes:
                ix.reads_logged = False

    def _replay_reads(self, resource: str, entries: list[Any],
                      pending: dict[str, list[tuple[str, float | None, str | None]]],
                      pending_by_ts: dict[str, list[tuple[str, float | None]]]) -> None:
        """Put an audit record's reads of ``resource`` back into the session's read log: where
        they went, a record keeping the read each went before (a third field: added to
        ``pending``, which the resume puts in one pass), or, written before records kept that,
        by ts, as the log placed them then, one after another (added to ``pending_by_ts``, put
        in one pass too). The reads pending of the other kind go in first. Placed again by the
        rule, a resumed session put a read the window showed before a logged one after it (red
        team 101, F02: a record of a check whose pre and post windows both added reads)."""
        read_of = self._read_of
        by_ts = not any(isinstance(e, list) and len(e) >= 3 for e in entries)
        if by_ts and resource in pending:
            flushed = pending.pop(resource)
            put_reads(self._read_log.setdefault(resource, []), flushed)
            # (their marker names too: forgotten, a stale value cited by one passed, red team 104, F03)
            self._read_names.update(_names_citing(h for h, _, _ in flushed))
        elif not by_ts and resource in pending_by_ts:
            self._put_by_ts(resource, pending_by_ts.pop(resource))
        for h, ts, before in _logged_reads(entries):
            if h not in read_of:  # (a read shown twice goes where it first went)
                read_of[h] = resource
                if by_ts:
                    pending_by_ts.setdefault(resource, []).append((h, ts))
                else:
                    pending.setdefault(resource, []).append((h, ts, before))

    def _put_by_ts(self, resource: str, reads: list[tuple[str, float | None]]) -> None:
        """Put reads of records written before reads kept where they went into the log, by ts,
        one after another, as the log placed them when such records were written."""
        _one_after_another(self._read_log.setdefault(resource, []), reads)
        self._read_names.update(_names_citing(h for h, _ in reads))

    def _logged_units(self, resource: str) -> int:
        """The units (_SECONDS, _MILLISECONDS) the logged reads of ``resource`` are stamped in."""
        with self._lock:
            line = self._read_log.get(resource, ())
            known = self._log_units.get(resource)
            if known is not None and known[0] == len(line):
                return known[1]
            units = 0
            for _, ts in line:
                if ts is not None:
                    units |= _stamp_unit(ts)
            self._log_units[resource] = (len(line), units)
            return units

    def _logged_in_unit(self, resource: str, unit: int) -> tuple[str, float | None]:
        """The first logged read of ``resource`` stamped in ``unit`` (one of _logged_units)."""
        with self._lock:
            return next((h, ts) for h, ts in self._read_log[resource] if ts is not None and _stamp_unit(ts) & unit)

    def _log_reads(self, side: _Side, undo: _Undo) -> dict[str, list[tuple[str, float | None, str | None]]]:
        """Add the reads of a window to the session's read log (under the lock); returns what
        was added, per resource, for the audit record; notes in ``undo`` how to take it back."""
        ix = side.ix
        if ix.reads_logged:  # (the log only grows: a window of this shape added all it had)
            return {}
        added = {}
        read_of = self._read_of
        blocks = side.blocks
        for resource, reads in side.by_resource().items():
            # log_reads adds a read of one handle the log does not hold, and nothing else (a read
            # of several handles is in no read line): a resource without one (a window made from
            # the last one, whose reads a check logged) adds nothing, and its line is not made
            if all(len(hs := blocks[i].handles) != 1 or hs[0] in read_of for i in reads):
                continue
            new = log_reads(self._read_log, read_of, resource, side.read_line_of(resource))
            if new:
                for _, ts, _ in new:
                    if ts is not None:
                        self._units_logged |= _stamp_unit(ts)
                if (facts := self._log_facts.get(resource)) is not None:
                    facts.pending.extend(h for h, _, _ in new)
                # (for the record, with the read each went before: a resume puts them there)
                added[resource] = new
                undo.reads.append((resource, [(h, ts) for h, ts, _ in new]))
                names = set(_names_citing(h for h, _, _ in new))
                undo.names.update(names - self._read_names)
                self._read_names.update(names)
        ix.reads_logged = True
        undo.shapes.append(ix)
        return added

    def _append_audit(self, edit: Edit, verdict: Verdict, run: _Check, policy: str, floor: float,
                      undo: _Undo) -> None:
        record = verdict.to_json()
        record["session"] = self.session
        record["policy"] = policy
        record["retention_floor"] = floor
        record["evicted_handles"] = len(edit.evicted)
        # The pins this check added to the session (``undo``, from _record; every verdict's: a
        # rejected check's pre window pins too), as "reads" holds the reads it added: a resume
        # unions every record's, so the log holds each pin once. Records held the session's
        # whole pin set before, so record K held O(K) pins: a session pinning a turn a cycle
        # wrote 194 MB of pins in 2,000 cycles and resumed in O(K^2) (red team 64, F06). Written
        # when the check added none too (empty lists), so every record has the shape a gate
        # writes and a record without "pins" is still one written before pins existed.
        # "added": the lists are what this check added (records without it hold the session's
        # whole set, which a resume unions alike)
        # "texts": the handles hold the text handle of every pinned block, with handles or
        # not (red team 28, y04); a record without it was written before (Gate._resume)
        # "normalised": the handles of the pinned texts after the whitespace normalisation
        # (Gate._pinned_norms), so a resumed session knows a pinned page re-rendered
        # "renderings": the pinned texts first pinned as a pinned page re-rendered
        # (Gate._pinned_renderings), so a resumed session lets them go as the live one does
        record["pins"] = {"handles": sorted(undo.handles), "ids": sorted(undo.ids), "texts": True,
                          "normalised": sorted(undo.norms), "renderings": sorted(undo.renderings),
                          "added": True}
        if run.reads_logged:  # only what this check added to the read log: a resume replays them in order
            record["reads"] = {r: [[h, ts, before] for h, ts, before in added] for r, added in run.reads_logged.items()}
        if run.refused_summaries:
            # the summaries R refused here, so a resumed session refuses them again when an
            # agent commits one anyway (_Check._was_refused)
            record["refused_summaries"] = sorted(["blake3:" + d.hex(), sorted(texts)]
                                                 for d, texts in set(run.refused_summaries))
        record["pre_digest"] = run.window_digest(run.pre)
        record["post_digest"] = run.window_digest(run.post)
        record["ts"] = time.time()
        record["blocks"] = {"pre": len(edit.pre), "post": len(edit.post)}
        object.__setattr__(verdict, "pre_digest", record["pre_digest"])
        object.__setattr__(verdict, "post_digest", record["post_digest"])
        try:
            self.store._append_gate_audit([record])
        except LimitExceededError:
            # a refusal too big for its own record is still recorded, with its violations
            # told shorter, then fewer (red team 93, F02: the check raised, the CLI said
            # "unusable input", and the refusal reached no record); what the session must
            # keep (pins, reads, refused summaries) is never cut but continued in records
            # after it, written with it in one transaction (red team 98, F01: a record too big
            # for its pins raised, and the session never pinned what its window flagged)
            self.store._append_gate_audit(_record_in_parts(_shorter_record(record, self.store), self.store))

    # -- caches shared by checks ----------------------------------------------------------------

    def digests(self, texts: list[str], path: str, pending: dict[bytes, bytes],
                made_from: tuple[list[bytes], list[int]] | None = None) -> list[bytes]:
        """The text digests of a window's blocks (``texts``), hashing the texts this gate has
        not seen. ``made_from``: the digests of a window this one was probably made from, with
        the positions whose text objects differ from it (its digest objects are reused
        elsewhere)."""
        get = self._text_digest.get
        if made_from is not None:
            # a window rewritten in place holds the very text objects of the window it was made
            # from, except where it changed: comparing pointers reads neither texts nor the cache
            out = list(made_from[0])
            differ = made_from[1]
            for i in differ:
                out[i] = get(texts[i])
            missing = [i for i in differ if out[i] is None]
        else:
            out = list(map(get, texts))
            missing = list(compress(count(), map(is_, out, repeat(None)))) if None in out else []
        if missing:
            try:
                encoded = [texts[i].encode("utf-8") for i in missing]
            except UnicodeEncodeError:
                # (the error names the text's place, a path made only on this way: not one per text)
                encoded = [encode_text(texts[i], f"{path}[{i}].text") for i in missing]
            hashed = hash_buffers(encoded).tobytes()  # (one bytes object, sliced: not a row object a digest)
            entries = []
            for k, i in enumerate(missing):
                d = hashed[32 * k:32 * k + 32]
                out[i] = d
                entries.append((texts[i], d, len(encoded[k]) + 64))
                pending[d] = encoded[k]  # this check extracts from these bytes, no second encode
            self._text_digest.put_many(entries)
        return out  # type: ignore[return-value]

    def side(self, window: Window, path: str, pending: dict[bytes, bytes], like: _Side | None = None) -> _Side:
        """The side of ``window``: kept from an earlier check of this very window object (a
        window is immutable), or shared with an equal window of the last check (a pre window
        only), else built, hashing the texts this gate has not seen."""
        sides = self._sides
        side = sides.get(id(window))
        if side is not None and side.is_of(window):
            with self._lock:  # the least recently used goes first: a session's pre is its last post
                if sides.pop(id(window), None) is side:
                    sides[id(window)] = side
            return side
        blocks = window.blocks
        twin = self._kept_twin(window) if path == "pre" else None
        if twin is not None:
            side = twin.twin_for(window, block_texts(blocks))
        elif like is not None and len(like.texts) == len(blocks):
            texts, differ = texts_changed(blocks, like.texts)
            made_from = (like.digests, differ)
            side = _Side(window, texts, self.digests(texts, path, pending, made_from))
            side._differ = made_from
        else:
            texts = block_texts(blocks)
            side = _Side(window, texts, self.digests(texts, path, pending))
        with self._lock:
            sides[id(window)] = side
            if len(sides) > _KEPT_SIDES:
                for key in [k for k, kept in sides.items() if kept._window() is None]:
                    del sides[key]  # windows their callers dropped
            while len(sides) > _KEPT_SIDES:
                del sides[next(iter(sides))]  # the least recently used
        return side

    def _kept_twin(self, window: Window) -> _Side | None:
        """The kept side of one of the last check's windows equal to ``window`` block for block
        (a pre window is usually the window the last check committed, as a new object when the
        caller rebuilt it from plain JSON blocks); one native pass over the blocks each."""
        blocks = window.blocks
        for other in self._last_windows:
            if other is window or len(other.blocks) != len(blocks):
                continue
            side = self._sides.get(id(other))
            if side is not None and side.is_of(other) and same_blocks_as(blocks, other.blocks):
                return side
        return None

    def facts_for_many(self, digests: list[bytes], blocks: list[Block], pending: dict[bytes, bytes]) -> list[_Facts]:
        """The facts of blocks (with their text digests): cached by digest; a primary block
        whose text is one of its sources takes that source's table; the rest are scanned in one
        go (the scanner's code and tables stay hot from one text to the next)."""
        out: list[_Facts | None] = [self._facts.get(d) for d in digests]
        todo = [k for k, f in enumerate(out) if f is None]
        if not todo:
            return out  # type: ignore[return-value]
        known = self._handle_digest
        first = [h for k in todo if (h := blocks[k].handles[0] if blocks[k].handles else None) and h not in known]
        if len(first) > 1:
            # a gate meeting a window for the first time: its blocks' first handles in one
            # store read, not one each (each block's first handle is always looked up)
            self._learn_handles(first)
        scan: list[int] = []
        sourced: list[int] = []
        handles: list[str] = []
        for k in todo:
            handle = self._text_source(digests[k], blocks[k]) if blocks[k].handles else None
            if handle is None:
                scan.append(k)
            else:
                sourced.append(k)
                handles.append(handle)
        entries = []
        if sourced:
            tables = self._source_tables([digests[k] for k in sourced], [blocks[k] for k in sourced], handles, pending)
            # the source's bytes are its table's (P reads them for every pointer into it)
            self._source_bytes.put_many((h, t.data, 64) for h, t in zip(handles, tables))
            made = [_Facts(table) for table in tables]
            _Facts.grounding_sets(made)  # indexed as met (see indexed), in one native call for all
            for k, table, info in zip(sourced, tables, made):
                out[k] = info
                entries.append((digests[k], info, len(table.data) + 64 * len(table) + 64))
        if scan:
            datas = [pending.get(digests[k]) or blocks[k].text.encode("utf-8") for k in scan]
            for k, table in zip(scan, extract_many(datas)):
                info = out[k] = _Facts(table)
                entries.append((digests[k], info, len(table.data) + 64 * (info.n_facts + info.n_markers) + 64))
        self._facts.put_many(entries)
        return out  # type: ignore[return-value]

    def handle_seqs(self, handles: Iterable[str]) -> dict[str, int]:
        """The store's insertion order of each of ``handles`` that resolves (sources are put as
        tool calls return, so a later seq is a later read); one store read for the unknown."""
        known = self._handle_seq
        todo = [h for h in dict.fromkeys(handles) if h not in known]
        if todo:
            for handle, info in self.store.info_many(todo).items():
                known[handle] = info.seq
        return {h: known[h] for h in handles if h in known}

    def _learn_handles(self, handles: list[str]) -> None:
        for handle, digest in self.store.digests_many(handles).items():
            self._handle_digest[handle] = digest
            self._handle_key[handle] = _digest_key(digest)

    def _text_source(self, digest: bytes, block: Block) -> str | None:
        """The handle among ``block``'s whose source is exactly the block's text, if any."""
        hexdigest = _hex(digest)
        for handle in block.handles:
            if self.handle_digest(handle) == hexdigest:
                return handle
        return None

    def _source_tables(self, digests: list[bytes], blocks: list[Block], handles: list[str],
                       pending: dict[bytes, bytes]) -> list[FactTable]:
        """The fact tables of blocks whose texts are sources (``_text_source``, ``handles``),
        from the store's durable cache: each block's text is its source's bytes (the same
        digest), so the tables are read, and the stored bytes compared with the block's (not
        hashed again), in two store reads for many. A source whose stored bytes are damaged or
        gone is read as the store reads it, which raises: the gate never vouches for a source
        the store cannot return."""
        hexes = [_hex(d) for d in digests]
        raws = [pending.get(d) or block.text.encode("utf-8") for d, block in zip(digests, blocks)]
        for hexdigest in self.store.unmatched_contents(dict(zip(hexes, raws))):
            self.store.get_bytes(handles[hexes.index(hexdigest)])  # raises StoreCorruptionError
        self._intact.update(hexes)  # every stored copy is exactly a block's bytes, or verified
        # (a damaged cache entry is left out: recomputed and overwritten, never trusted)
        blobs = self.store.get_cached_facts_many(hexes, _CACHE_VERSION)
        return [self._table_from_cache(hexdigest, raw, blobs.get(hexdigest), d)
                for d, raw, hexdigest in zip(digests, raws, hexes)]

    def _table_from_cache(self, hexdigest: str, raw: bytes, blob: bytes | None, raw_digest: bytes | None) -> FactTable:
        """The table of source bytes ``raw`` from its cached ``blob``, else scanned (and
        persisted after the check)."""
        if blob is not None:
            try:
                return FactTable._from_blob(blob, raw, raw_digest)
            except (ValueError, StoreCorruptionError):
                pass  # a damaged cache entry is recomputed and overwritten, never trusted
        table = extract(raw)
        with self._lock:
            # persisted after the check, all in one transaction (_persist_fact_tables)
            self._unpersisted.append((hexdigest, _CACHE_VERSION, table))
        return table

    def _cached_source_table(self, hexdigest: str, data: Any) -> FactTable:
        blobs = self.store.get_cached_facts_many([hexdigest], _CACHE_VERSION)
        return self._table_from_cache(hexdigest, data(), blobs.get(hexdigest), None)

    def handle_digest(self, handle: str) -> str | None:
        d = self._handle_digest.get(handle)
        if d is None:
            try:
                d = self.store.digest(handle)
            except UnknownHandleError:
                return None
            self._handle_digest[handle] = d
            # the facts cache's key, while the digest is at hand (the store vetted it): grounding
            # looks up every source a changed block cites by it, and deriving it there cost more
            # than the look-up itself
            self._handle_key[handle] = _digest_key(d)
        return d

    def derived_sources(self, handles: Iterable[str], damaged: dict[str, str] | None = None) -> set[str]:
        """The ``handles`` the store holds as derived texts (:data:`provgate.store.DERIVED_KIND`:
        a summary's words that compact() stored as it evicted the summary); a handle the store
        does not hold is not one, nor is one outside the ``block:`` namespace, where compact()
        stores every window text. Those not known yet are asked in one query (asked for every
        pointer's handle, one by one, a summarize's P went from 0.13 to 0.68 ms on a new gate,
        and to 0.47 ms in one query). A handle whose row the store refuses as damaged (its kind
        does not match the row's checksum: red team 93, F03) is none of them: it goes into
        ``damaged`` with the store's message, and is asked again next time, so that P refuses
        a pointer into it rather than take it for a source."""
        wanted = {h for h in handles if h.startswith(BLOCK_HANDLE_PREFIX)}
        todo = [h for h in wanted if h not in self._derived_source]
        if todo:
            try:
                infos = self.store.info_many(todo)
            except ProvgateError:  # (a damaged row or a bad handle: asked one by one, P reports it)
                infos = {}
                for handle in todo:
                    try:
                        infos[handle] = self.store.info(handle)
                    except StoreCorruptionError as exc:
                        if damaged is not None:
                            damaged[handle] = str(exc)
                    except ProvgateError:
                        continue
            for handle, info in infos.items():
                self._derived_source[handle] = info.kind == DERIVED_KIND
        return {h for h in wanted if self._derived_source.get(h)}

    def read_source_facts(self, handle: str) -> _Facts | None:
        """:meth:`read_facts` of the source ``handle``, or None when the store lacks it."""
        facts = self.source_facts(handle)
        return None if facts is None else self.read_facts(facts)

    def read_facts(self, facts: _Facts) -> _Facts:
        """The facts I4 pairs between reads of one resource: a read's own, or, when its text
        is a JSON document (a tool result, ``{"stdout": "retries=3\\n…"}``, an MCP ``text``),
        those of the strings it encodes, then of the document with the string values that hold
        a line break, a tab, a quote or a backslash blanked out (:func:`_decoded_strings`). The grammar reads
        the JSON text, where ``\\n`` glues a line to the next (``retries = "3\\ntimeout…"``)
        and a ``key: value`` line is no fact: two reads of a config wrapped so let a summary
        keep the stale ``retries=3`` alone (red team 90, F09, accepted as lossy). Kept by the
        id of ``facts``, a read's table while the gate keeps it."""
        data = facts.table.data
        start = _JSON_START.match(data)
        if start is None:
            return facts
        known = self._decoded_reads.get(id(facts))
        if known is not None and known._source is facts:
            return known
        strings, skeleton = _decoded_strings(data[start.end() - 1 :])
        if not strings:
            return facts
        try:
            # (the strings first: a key's first row, which a violation names, is then the value
            # as the file wrote it; after them the document, without the values glued over a
            # "\\n": red team 91, F06, a kept read's glued x='1\\nretries=3' was named, not retries)
            # (a lone surrogate is U+FFFD, a word byte to the grammar: as "?" it started a URL's
            # query the source never had, red team 99, F05)
            decoded = _Facts(extract(_LONE_SURROGATE.sub("\ufffd", "\n".join(strings)).encode("utf-8") + b"\n"
                                     + skeleton))
        except ProvgateError:
            return facts  # (more spans than a table holds: the read's own facts, as before)
        decoded._source = facts
        if len(self._decoded_reads) >= _DECODED_READS_MAX:
            self._decoded_reads.clear()
        self._decoded_reads[id(facts)] = decoded
        return decoded

    def source_bytes(self, handle: str) -> bytes:
        data = self._source_bytes.get(handle)
        if data is None:
            # a fact table cached under the source's digest holds exactly the source's bytes
            # (it was scanned from bytes with that digest, or verified against it on load)
            digest = self.handle_digest(handle)
            known = None if digest is None else self._facts.get(_digest_key(digest))
            if known is not None:
                data = known.table.data
            else:
                data = self.store.get_bytes(handle)  # re-hashed: the stored copy is intact
                if digest is not None:
                    self._intact.add(digest)
            self._source_bytes.put(handle, data, 64)
        return data

    def confirm_intact(self, handles: Iterable[str]) -> None:
        """Raise StoreCorruptionError, as reading them does, unless the stored bytes of every
        one of ``handles`` that resolves are intact: an eviction record or a supersession edge
        lets the agent drop its copy of a source, so the gate vouches for one only when the
        store can return it. A source whose bytes this gate has seen intact (compared with a
        block's bytes, read and re-hashed) is not read again; the others are read and re-hashed
        in one store read, one handle per content digest. Unknown handles are I3's to report."""
        todo: dict[str, str] = {}  # digest -> a handle of it
        intact = self._intact
        for handle in handles:
            digest = self.handle_digest(handle)
            if digest is not None and digest not in intact:
                todo.setdefault(digest, handle)
        if not todo:
            return
        found = self.store.get_bytes_many(list(todo.values()), missing="skip")  # raises StoreCorruptionError
        for digest, handle in todo.items():
            data = found.get(handle)
            if data is not None:
                intact.add(digest)
                self._source_bytes.put(handle, data, 64)  # P reads them for a pointer into it

    def source_facts(self, handle: str) -> _Facts | None:
        key = self._handle_key.get(handle)
        digest = None
        if key is None:
            digest = self.handle_digest(handle)
            if digest is None:
                return None
            key = self._handle_key[handle] = _digest_key(digest)
        cached = self._facts.get(key)
        if cached is not None:
            return cached
        if digest is None:  # its key is known, its facts were dropped from the cache since
            digest = self.handle_digest(handle)
        table = self._cached_source_table(digest, lambda: self.source_bytes(handle))  # type: ignore[arg-type]
        info = _Facts(table).indexed()
        self._facts.put(key, info, len(table.data) + 64 * len(table) + 64)
        return info

    def forget_stale_names(self) -> int:
        """Forget the marker resolutions that sources stored since the last call may have
        changed, and return the names epoch. A new handle changes what its own name cites (an
        exact handle wins) and what its name after the kind prefix cites (a second match makes
        it ambiguous); the store never deletes or replaces a source, so nothing else can change.
        One indexed query: the sources stored since the newest one seen."""
        latest, added = self.store.handles_added_since(self._names_seq)
        with self._lock:
            if added:
                affected = set(added).union(h.partition(":")[2] for h in added if ":" in h)
                stale = [name for name in affected if name in self._marker_handles]
                for name in stale:
                    del self._marker_handles[name]
                if stale:
                    self._names_epoch += 1
            if self._names_seq is None or latest > self._names_seq:
                self._names_seq = latest
            return self._names_epoch

    def marker_handles(self, name: str) -> tuple[str, ...]:
        """The stored handles a ``[src:NAME]`` marker cites.

        ``NAME`` is a handle when it is stored under exactly that name (``[src:tool:call_8]``);
        otherwise it is a handle's name without its kind prefix (``[src:call_8]`` cites
        ``tool:call_8``). More than one match is ambiguous and resolves to all of them, so I3
        can report it.
        """
        self.forget_stale_names()
        cached = self._marker_handles.get(name)
        return cached if cached is not None else self.marker_handles_many([name])[name]

    def marker_handles_many(self, names: Iterable[str]) -> dict[str, tuple[str, ...]]:
        """:meth:`marker_handles` of many names: a known handle needs no query; the others are
        one store read together (exact handle, else by name)."""
        known = self._handle_digest
        names = list(names)
        asked = [n for n in names if n not in known]
        with self._lock:
            seen = self._names_seq
        found = self.store.handles_cited_as_many(asked) if asked else {}
        out: dict[str, tuple[str, ...]] = {}
        with self._lock:
            # Another thread's forget_stale_names may have moved past a source stored after
            # this read's snapshot without forgetting these names (they were not kept yet): the
            # answer serves this check but is not kept, and the epoch moves on, so no side keeps
            # vouching for names resolved against that snapshot.
            keep = seen is not None and self._names_seq == seen
            if asked and not keep:
                self._names_epoch += 1
            for name in names:
                handles = out[name] = (name,) if name in known else tuple(found[name])
                if handles and (keep or name in known):
                    self._marker_handles[name] = handles
        return out


MAX_SESSION_CHARS = 256


def check_session(session: Any, argument: str = "session") -> str:
    """``session`` if it can name a session in the audit log: a non-empty str of at most 256
    characters that encodes as UTF-8 (no lone surrogate: a name read from a non-UTF-8 argv or
    file name arrives as one), without NUL; else InvalidArgumentError naming ``argument``.
    Checked when the gate is made, so a check never writes a source or a fact table and then
    fails on the audit record."""
    if not isinstance(session, str) or not session or len(session) > MAX_SESSION_CHARS:
        raise InvalidArgumentError(f"{argument} must be a non-empty str of at most {MAX_SESSION_CHARS} characters",
                                   argument=argument)
    try:
        session.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidArgumentError(f"{argument} contains a lone surrogate U+{ord(session[exc.start]):04X} at index "
                                   f"{exc.start}; a session name must be valid Unicode (UTF-8)",
                                   argument=argument) from None
    if "\x00" in session:
        raise InvalidArgumentError(f"{argument} contains a NUL character", argument=argument)
    return session


@functools.lru_cache(maxsize=1 << 14)
def _digest_key(digest: str) -> bytes:
    """The raw bytes of a store digest, vetted; remembered across gates (a new session meets
    the sources of the last one, and parsing is most of a cached source's look-up)."""
    return _digests.parse_digest(digest)[1]


# A text shorter than this many characters (at most four times as many UTF-8 bytes) is not
# scanned ahead: it would need more than four spans a byte to reach the scanner's default span
# limit (spans share bytes only by nesting, a number in a quote in a kv value; a fuzz of 20,000
# texts of the grammar's pieces found at most one a byte).
_PREFLIGHT_CHARS = DEFAULT_MAX_SPANS // 16


def _check_policy(policy: str) -> None:
    if not isinstance(policy, str) or policy not in POLICIES:
        raise InvalidArgumentError(f"policy must be one of {POLICIES}, got {policy!r}", argument="policy")


def _check_floor(floor: float) -> None:
    if isinstance(floor, bool) or not isinstance(floor, (int, float)) or not (0.0 <= floor <= 1.0):
        raise InvalidArgumentError(f"retention_floor must be a number in [0, 1], got {floor!r}",
                                   argument="retention_floor")


def _check_gate_arguments(store: Any, audit: Any, cache_bytes: Any) -> None:
    """A gate's store, audit flag and cache budget, checked when it is made: a path passed for
    the store (the likeliest mistake) otherwise surfaced as an AttributeError from inside the
    first check (red team 26, w06)."""
    if not isinstance(store, SourceStore):
        hint = " (open it first: Gate(SourceStore(path)))" if isinstance(store, (str, bytes, os.PathLike)) else ""
        raise InvalidArgumentError(f"store must be a SourceStore, not {type(store).__name__}{hint}", argument="store")
    if not isinstance(audit, bool):
        raise InvalidArgumentError(f"audit must be True or False, not {type(audit).__name__}", argument="audit")
    if isinstance(cache_bytes, bool) or not isinstance(cache_bytes, int) or cache_bytes < 0:
        raise InvalidArgumentError(f"cache_bytes must be an int >= 0, got {cache_bytes!r}", argument="cache_bytes")


def _array_of(value: Any, field: str) -> list[Any]:
    """``value`` (a list, tuple or other iterable of items) as a list, or EditFormatError
    naming ``field``: None, a number, a string or a mapping is not an array."""
    if isinstance(value, (list, tuple)):
        return list(value)
    if not isinstance(value, (str, bytes, bytearray, Mapping)):
        try:
            return list(value)
        except TypeError:
            pass
    raise EditFormatError(f"{field}: expected an array, got {type_name(value)}", field=field)


def _citation_json(item: Any, i: int) -> Any:
    """A pointer of the edit as JSON; a store ``Pointer`` names no post block, so it is refused
    with the way to give it one."""
    if isinstance(item, Pointer):
        raise EditFormatError(f"pointers[{i}]: a store Pointer names no post block; cite it as "
                              "Citation.from_pointer(pointer, block) or {**pointer.to_json(), 'block': ...}",
                              field=f"pointers[{i}]")
    return item


def _coerce_edit(operator: Any, pre: Any, post: Any, supersedes: Any, evicted: Any, pointers: Any) -> Edit:
    if not isinstance(operator, str) or operator not in OPERATORS:
        raise EditFormatError(f"operator: unknown operator {operator!r}; expected one of {sorted(OPERATORS)}", field="operator")
    supersedes, pointers, evicted = (_array_of(v, name) for v, name in (
        (supersedes, "supersedes"), (pointers, "pointers"), (evicted, "evicted")))
    edges = []
    for i, s in enumerate(supersedes):
        if isinstance(s, Supersession):
            edges.append(s)
        elif isinstance(s, tuple) and len(s) == 2:
            edges.append(Supersession.from_json({"block": s[0], "handle": s[1]}, f"supersedes[{i}]"))
        else:
            edges.append(Supersession.from_json(s, f"supersedes[{i}]"))
    cites = [p if isinstance(p, Citation) else Citation.from_json(_citation_json(p, i), f"pointers[{i}]")
             for i, p in enumerate(pointers)]
    ev = Edit.from_json({"operator": operator, "pre": [], "post": [], "evicted": evicted}).evicted
    return Edit(
        operator=operator,
        pre=Window.coerce(pre, "pre"),
        post=Window.coerce(post, "post"),
        evicted=ev,
        supersedes=tuple(edges),
        pointers=tuple(cites),
    )


class _UnkeptPins:
    """The pinned handles post does not keep (R, _Check._check_pins): those of a check's pinned
    blocks (``local``) and the session's sticky pins, less the kept ones, asked handle by handle
    rather than made as a set of a session's thousands of pins (red team 64, F05)."""

    __slots__ = ("_kept", "_local", "_sticky")

    def __init__(self, local: set[str], sticky: _StickyPins, kept: set[str]) -> None:
        self._local = local
        self._sticky = sticky
        self._kept = kept

    def __contains__(self, handle: object) -> bool:
        return (handle in self._local or handle in self._sticky.handles) and handle not in self._kept

    def __bool__(self) -> bool:
        # (a larger set is no subset: the session's pins are most often not all kept, and that
        # is answered without a pass over them)
        return not self._local <= self._kept or not self._sticky.handles <= self._kept

    def has_texts(self) -> bool:
        """Is a pinned text (a ``block:`` handle) among them?"""
        kept = self._kept
        return (any(h.startswith(BLOCK_HANDLE_PREFIX) and h not in kept for h in self._local)
                or not self._sticky.texts <= kept)

    def texts(self) -> Container[str]:
        """The pinned texts among them, as a Container."""
        return _PinnedTexts(self.__contains__)


class _PinnedTexts:
    """The ``block:`` handles among pins that ``test`` says are in a set (the pinned texts post
    does not keep, or those gone), as a Container, without making the set."""

    __slots__ = ("_test",)

    def __init__(self, test: Callable[[str], bool]) -> None:
        self._test = test

    def __contains__(self, handle: object) -> bool:
        return isinstance(handle, str) and handle.startswith(BLOCK_HANDLE_PREFIX) and self._test(handle)


class _PinsLeft:
    """R's reading of a check's pass: which handles a block it makes may not cite, and which a
    summary may not derive from. R asks it (_Check._check_pins), and so does compact() before
    its summaries are made (Gate._pins_left): compact() had a copy of R's rules for these, and
    each review found another case where the copy and R disagreed (red teams 69-72)."""

    __slots__ = ("_check", "_local", "unkept")

    def __init__(self, check: _Check) -> None:
        _, kept, local = check._pins_kept()
        self._check = check
        self._local = local
        self.unkept = _UnkeptPins(local, check.sticky, kept)  # (the pinned handles post does not keep)

    def restating(self, handles: Iterable[str]) -> set[str]:
        """Of ``handles``, those a new block citing restates a pinned block the window does not
        keep."""
        named = set(handles)
        as_bytes = self._check._pinned_bytes_sources(self.unkept, named)
        return {h for h in named if h in self.unkept or h in as_bytes}

    def summarizing(self, handles: Iterable[str]) -> set[str]:
        """Of ``handles``, those a summary deriving from summarizes a pinned block (kept or not)."""
        named = set(handles)
        as_bytes = self._check._pinned_bytes_sources(self.unkept, named)
        return (named & self._local) | (named & self._check.pinned_handles) | (named & as_bytes)


class _GonePins:
    """The pinned sources gone from a check's window (_Check._gone_pinned), as I5 asks of them:
    is this handle one? Each handle asked is answered once, from the pinned handles of pre's
    pinned blocks (``local``) and the session's sticky pins, without listing the pins: a session
    that pinned a turn every cycle had every check list thousands (red team 64, F05). True
    when some pin is gone, as the set it stands for would be."""

    __slots__ = ("_any", "_changed", "_check", "_local", "_memo", "_settled", "_sources")

    def __init__(self, check: _Check, local: set[str]) -> None:
        self._any: bool | None = None
        self._check = check
        self._local = local
        self._memo: dict[str, bool] = {}
        self._changed: set[int] | None = None
        self._sources: set[str] | None = None
        self._settled = False

    def __bool__(self) -> bool:
        """Is any pin gone? (A source holding a gone text is one only while a text is gone.)"""
        if self._any is None:
            sticky = self._check.pinned_handles
            if self._surely_one_gone(sticky):
                self._any = True
            else:
                self._settle_texts()
                self._any = any(self._gone(h) for h in chain(self._local, sticky))
        return self._any

    def _surely_one_gone(self, pins: frozenset[str]) -> bool:
        """Is one of ``pins`` gone without a search? A pin post does not carry is gone unless it
        is a text a block still holds, and the blocks hold as many texts at most."""
        check = self._check
        return len(pins) - len(check.post.handle_union()) > len(check.pre.blocks) + len(check.edit.post)

    def __contains__(self, handle: object) -> bool:
        if not isinstance(handle, str):
            return False
        if self._gone(handle):
            return True
        if self._sources is None:
            # the sources the markers cite whose stored bytes are a pinned text gone (as a
            # Container: a text handle is one when _gone says so), asked only when one is
            self._sources = self._check._gone_text_sources(_PinnedTexts(self._gone)) if self._a_text_gone() else set()
        return handle in self._sources

    def _a_text_gone(self) -> bool:
        texts = self._check.sticky.texts
        if self._surely_one_gone(texts):
            return True
        self._settle_texts()
        return any(self._gone(h) for h in chain((h for h in self._local if h.startswith(BLOCK_HANDLE_PREFIX)), texts))

    def _settle_texts(self) -> None:
        """Work out together, for each pinned text post does not carry, whether a block still
        holds it (below the counting shortcut, so as many as the window's blocks at most): asked
        one by one, each searched every digest, which was quadratic in a window keeping hundreds
        of pinned pages (red team 73, F01)."""
        if self._settled:
            return
        self._settled = True
        check = self._check
        carried = check.post.handle_union()
        texts = [h for h in dict.fromkeys(chain(self._local, check.sticky.texts))
                 if h.startswith(BLOCK_HANDLE_PREFIX) and h not in carried and h not in self._memo]
        if not texts:
            return
        held: set[str] = set()
        if check.in_place:
            changed = self._changed_set()
            held = {h for h, at in check.pre.text_holders(texts).items() if any(i not in changed for i in at)}
        rest = [h for h in texts if h not in held]
        if rest:
            held.update(check.post.text_holders(rest))
        for h in texts:
            self._memo[h] = h not in held

    def _gone(self, handle: str) -> bool:
        found = self._memo.get(handle)
        if found is None:
            found = self._memo[handle] = self._work_out(handle)
        return found

    def _work_out(self, handle: str) -> bool:
        check = self._check
        if handle not in self._local and handle not in check.pinned_handles:
            return False
        is_text = handle.startswith(BLOCK_HANDLE_PREFIX)
        if handle not in check.post.handle_union():
            return not is_text or not self._held(handle)
        # a pinned handle post carries only in blocks that are not a pinned block it keeps (a
        # page of a pinned output, the pinned page gone) is gone too: R refuses a block citing
        # it (_check_pins), as the bytes pinned under it left
        return not is_text and handle not in check._pins_kept()[1]

    def _held(self, text: str) -> bool:
        """Does a block still hold the pinned text ``text`` names (in place, a block pre holds
        it at and post did not change)?"""
        check = self._check
        if check.in_place:
            changed = self._changed_set()
            if any(i not in changed for i in check.pre.holding_text((text,))):
                return True
        return bool(check.post.holding_text((text,)))

    def _changed_set(self) -> set[int]:
        """The positions whose text an edit in place changed: its changed blocks, and those
        holding another pre block's text (moved) or their own re-spaced (whitespace-matched).
        Only the changed ones were asked: a pinned output overwritten with a copy of another
        block's text still held the pin in place, so I5 counted the markers citing it, which a
        gate without the shortcut left out (retention 1.0 against None: a random session of
        tests/test_gate_kept_sides.py, stop 45)."""
        if self._changed is None:
            check = self._check
            self._changed = {*check.changed, *check.moved, *check.ws_matched}
        return self._changed


class _Check:
    """The state of one check: built in phases, each timed."""

    def __init__(self, gate: Gate, edit: Edit, floor: float, sticky: _StickyPins,
                 pinned_norms: frozenset[str] | None = None, renderings: frozenset[str] | None = None) -> None:
        self.gate = gate
        self.store = gate.store
        self.edit = edit
        self.floor = floor
        self.sticky = sticky
        self.pinned_handles = sticky.handles
        self._claims: dict[tuple[int, str], bool] = {}  # (block, handle) -> its markers claim it (P)
        self.pinned_norms = gate._pinned_norms if pinned_norms is None else pinned_norms
        self.renderings = gate._pinned_renderings if renderings is None else renderings  # (Gate._pinned_renderings)
        # (the session's pins as the check took them: Gate._record starts from the check's own
        # when they are still the session's)
        self.started_with = (sticky, self.pinned_norms, self.renderings)
        self.respaced: set[int] = set()  # pre blocks found as a pinned page re-rendered (pinned_positions)
        self._pinned_positions: list[int] | None = None
        self._text_only: set[int] = set()  # pinned only by a sticky pinned text (pinned_positions)
        self._free: set[int] | None = None  # those R lets go in this edit (_free_text_pins)
        self._free_with: dict[int, list[str]] = {}  # (_free_text_pins) free pre block -> its flagged holders' handles
        self._beyond_flags: tuple[list[str], frozenset[str], frozenset[str]] | None = None  # (pins_beyond_flags)
        self._kept: tuple[list[tuple[int, int | None, str | None]], set[str], set[str]] | None = None  # (_pins_kept)
        self._kept_norm_handles: set[str] | None = None  # (_kept_norms)
        # each block R refused as a summary of a pinned block (Gate._refused_summaries)
        self.refused_summaries: list[tuple[bytes, frozenset[str]]] = []
        self.violations: list[Violation] = []
        self.dropped_violations = 0
        # I2: a dropped fact's violation (by its place in violations) -> the ids of every pre
        # block that held it, of which the violation names the first (_reclassified_window)
        self._drop_holders: dict[int, set[str]] = {}
        self.timings: dict[str, float] = {}
        self._changed_cites: list[tuple[int, frozenset[str]]] | None = None  # (changed block, handles its markers cite)
        self._pre_cites: tuple[dict[int, set[str]], dict[str, list[int]]] | None = None  # (_pre_citations)
        self._covered: tuple[set[str], dict[str, str]] | None = None
        self._changed_ids: set[str] | None = None  # ids and provenance of the changed post blocks (I4)
        self._changed_refs: set[str] = set()
        self._rewrites_kept: dict[int, bool] = {}  # I4: pre read -> kept rewritten in place (_read_kept)
        self._claimed: frozenset[str] = frozenset()  # every eviction record, even one that covers nothing
        self._agent_derived_handles: set[str] | None = None  # I5 (_agent_derived)
        self.counts = {"pre": 0, "post": 0, "introduced": 0, "dropped": 0, "superseded": 0, "evicted": 0}
        # (pre block, post block) -> its word alignment (:meth:`_word_alignment`), shared by the
        # I2 rules that read one
        self._alignments: dict[tuple[int, int], tuple[Any, ...]] = {}
        self._words: dict[tuple[int, int], tuple[np.ndarray, np.ndarray, np.ndarray, bytes]] = {}
        self.retention: float | None = None
        # made on first use, where a phase needs them
        self.touched: list[int] | None = None  # an edit in place: the positions that changed or moved
        self._names: tuple[frozenset[str], Iterable[str]] | None = None
        self._cited: set[str] | None = None
        self._kept_texts: Callable[[bytes], bool] | None = None
        self._stale_bases: dict[tuple[int, tuple[int, ...]], _StaleBasis | None] = {}  # I4, per resource
        self.ingested: frozenset[str] = frozenset()  # the handles this edit's inline sources added to the store
        self._fresh_answers: dict[tuple[int, bool, Any], bool] = {}  # I4: _fresh, per block
        # I4: per post block, the newest pre block it comes from, overall and per resource
        # (_newest_origin; red team 49, F03)
        self._newest_origins: dict[int, tuple[int, dict[str, int]] | None] = {}
        self._fresh_bases: dict[tuple[int, bool], Any] = {}  # I4: _is_fresh without its ``than``
        # I4, edges over a handle only summaries name: the read log's lines, and what dates the
        # newest pre block each post block comes from (_check_edge_past_summary)
        self._edge_ranks: dict[str, dict[str, int]] = {}
        self._edge_newests: dict[tuple[int, str | None], tuple[int, int | None]] = {}
        self._origin_holders: dict[int, dict[str, list[int]]] = {}  # (_origins_by_handle)
        self._edge_through: dict[str, frozenset[str]] | None = None
        self._edge_leaves: dict[str, frozenset[str]] = {}  # (_leaves_below of _edge_through's handles)
        self._comes_from_read: dict[int, set[str]] = {}  # I4: _from_a_read_of, the resources a block's reads read
        self._handle_tags: dict[str, str] | None = None  # I4: handle -> the resource a pre read carrying it is tagged
        self._summary_datings: dict[str, _SummaryDating] = {}  # I4: _summary_newer_than, per post summary
        # I4: _origins per block (an edge per file of one summary rebuilt them: red team 57, F02)
        self._origins_of: dict[int, list[int] | None] = {}
        self._post_texts: set[bytes] | None = None  # post's text digests, when structure made them
        self.speaker_lost: list[int] = []  # pre blocks dropped as copies another speaker's block holds
        self.cited_names: dict[str, str] = {}  # marker name -> the one handle it cites (I1's blocks)
        self.reads_logged: dict[str, list[tuple[str, float | None, str | None]]] = {}  # what the check added to the read log
        self._by_resource_name: set[Any] = set()  # groundings that took a read's resource name (I1)
        self._dotted_said: dict[int, list[tuple[list[bytes], bytes, int, int]]] = {}
        self._stale_reported: set[tuple[Any, ...]] = set()  # (_violate_stale)
        self._kept_facts: bool | None = None  # I2: _facts_kept_in_place, once asked
        self._reserialized: dict[int, int] = {}  # I2: _reserialized_json, once asked
        self._reworded: list[tuple[int, int]] | None = None  # I2: _reworded_in_place, once asked
        # I4: pre read -> (place, ts) in the session's read log, for the resources whose window
        # order contradicts the log (_log_keys)
        self._log_ordered: dict[int, tuple[int, float | None]] | None = None
        self._unlogged: dict[str, str] = {}  # the pre window's reads new to the log -> the resource it files them under
        self._new_reads: dict[str, str] | None = None  # (the same, for the edges: _new_reads_filed)
        self._reads_before: dict[str, bool] = {}  # I4: _read_before, per resource
        self._read_handles: set[str] | None = None  # (the handles the pre window's primary blocks carry)
        # I4: pre read holding several logged reads of its resource -> (the newest of them, its
        # place in the log's order, the places of the resource's reads) (_log_order)
        self._log_spread: dict[int, tuple[str, int, dict[int, tuple[int, float | None]]]] = {}

    # -- bookkeeping ----------------------------------------------------------------------------

    def violate(self, invariant: str, message: str, **fields: Any) -> None:
        if len(self.violations) >= MAX_VIOLATIONS_PER_CHECK:
            self.dropped_violations += 1
            return
        # a value of 30 KB was written three times a violation (value, evidence, message), and a
        # refusal of 1,000 of them made an audit record past the store's limit: the check raised
        # instead of refusing (red team 93, F02). A long value is cut, with its length and digest.
        value = fields.get("value")
        if isinstance(value, str) and len(value) > MAX_VIOLATION_VALUE_CHARS:
            fields["value"] = value[:MAX_VIOLATION_VALUE_CHARS] + "…"
            fields["evidence"] = {**fields.get("evidence", {}), "value_chars": len(value),
                                  "value_digest": "blake3:" + blake3(value.encode("utf-8", "surrogatepass")).hexdigest()}
        evidence = fields.get("evidence")
        if evidence:
            # (every text of it: I4's newer_value and stated_text wrote a long value whole, twice
            # more, when only three fields were cut, red team 98, F05)
            long = [k for k, text in evidence.items() if isinstance(text, str) and len(text) > MAX_VIOLATION_VALUE_CHARS]
            if long:
                fields["evidence"] = {**evidence, **{k: evidence[k][:MAX_VIOLATION_VALUE_CHARS] + "…" for k in long}}
        if len(message) > MAX_VIOLATION_MESSAGE_CHARS:
            message = message[:MAX_VIOLATION_MESSAGE_CHARS] + f"… ({len(message)} characters)"
        self.violations.append(Violation(invariant, message, **fields))

    def _violate_stale(self, message: str, **fields: Any) -> None:
        """An I4 stale value, reported once: the newest restatement of a resource and then the
        window's reads of it both reach a summary that declares the resource, and reported the
        same stale value twice (red team 82, F03's aside: the report counted two merges)."""
        seen = (message, fields.get("block"), fields.get("key"), fields.get("value"), repr(fields.get("evidence")))
        if seen not in self._stale_reported:
            self._stale_reported.add(seen)
            self.violate("I4", message, **fields)

    def reportable(self, items: Sequence[Any]) -> Sequence[Any]:
        """The first of ``items`` the verdict still has room for; the rest are counted as
        omitted here, so an edit with a million bad facts does not build a million pieces of
        evidence that would be thrown away."""
        room = max(MAX_VIOLATIONS_PER_CHECK - len(self.violations), 0)
        if len(items) <= room:
            return items
        self.dropped_violations += len(items) - room
        return items[:room]

    def _timed(self, name: str, fn: Any) -> None:
        """Run ``fn`` and add its time to phase ``name`` (a phase may run several rules: I1's
        grounding, quoted polarity and units each reported only the last one's time)."""
        t0 = time.perf_counter()
        fn()
        self.timings[name] = self.timings.get(name, 0.0) + (time.perf_counter() - t0) * 1e3

    def window_digest(self, side: _Side) -> str:
        """Digest of a window: every block's text digest and its metadata, each block framed
        by its length (handles are opaque strings, so no separator could be trusted)."""
        if side._window_digest is not None:
            return side._window_digest
        h = blake3()
        for block, d in zip(side.window, side.digests):
            # ts + 0.0: -0.0 is the time 0.0 is (equal windows share a side, and so a digest)
            meta = json.dumps(
                [block.id, block.role, list(block.handles), block.derived, list(block.derived_from),
                 block.pinned, None if block.ts is None else block.ts + 0.0, block.resource],
                ensure_ascii=False, separators=(",", ":"),
            ).encode("utf-8", "surrogatepass")
            h.update(d)
            h.update(len(meta).to_bytes(8, "little"))
            h.update(meta)
        side._window_digest = "blake3:" + h.hexdigest()
        return side._window_digest

    # -- the phases -----------------------------------------------------------------------------

    def run(self, policy: str, cycle: int) -> Verdict:
        edit = self.edit
        self._run_phases()
        classification, accepted, window, reclassified = self._classify(policy)
        return Verdict(
            accepted=accepted,
            classification=classification,
            operator=edit.operator,
            violations=tuple(self.violations),
            facts=dict(self.counts, violations_omitted=self.dropped_violations),
            retention=self.retention,
            cycle=cycle,
            timings_ms=self.timings,
            window=window,
            reclassified=reclassified,
        )

    def prepare(self) -> None:
        """Hash (and so validate) both windows ahead of the timed run."""
        self._timed("hash", self._hash)

    def _run_phases(self) -> None:
        lossless = self.edit.operator in LOSSLESS_OPERATORS or self.edit.operator == "evict"
        if not hasattr(self, "pre"):
            self._timed("hash", self._hash)
        self._take_pre_pins()
        self._timed("structure", self._structure)
        self._timed("pins", self._take_up_held_pins)
        if self.structural and not self._reads_touched():
            # Same texts, same provenance: judged from digests alone, without fact extraction
            # (only a block that can hold a citation marker is scanned, for I3); every marker is
            # kept (retention 1, or undefined when pre cannot hold one); I4 has no read to lose.
            self.counts["pre"] = self.counts["post"] = None  # type: ignore[assignment]
            self._timed("facts", self._load_marker_facts)
            self.retention = 1.0 if self.pre.may_cite() else None
            self._timed("I3", self._check_handles)
            self._timed("I2", lambda: self._check_handle_drops("I2" if lossless else "I1"))
            self._timed("I4", self._check_edges)
        else:
            self._timed("facts", self._load_facts)
            self._timed("I3", self._check_handles)
            self._timed("I1", self._check_grounding)
            if not lossless:
                self._timed("I1", self._check_quoted_polarity)
                self._timed("I1", self._check_units_grounded)
                self._timed("I1", self._check_pins_in_context)
            self._timed("I1" if not lossless else "I2", self._check_requirements_with_extras)
            self._timed("I2", self._check_purity if lossless else self._check_reachability)
            if lossless:
                self._timed("I1", self._check_quoted_polarity)
                self._timed("I2", self._check_units_grounded)
            self._timed("I4", self._check_freshness)
            self._timed("I5", self._check_retention)
            self.remember_post_set()
        self._timed("P", self._check_pointers)
        self._timed("R", self._check_pins)
        self._pass_on()
        self.pending = {}

    def _take_pre_pins(self) -> None:
        """The texts of pre's flagged blocks are pinned from this check on, as the check's
        record pins them whatever its verdict (Gate._record): a window whose pin the gate has
        not recorded yet - the last check was a plain one, its window passed on as this pre -
        is judged as with the pin committed (red team 38, 03: a read with the bytes of a pinned
        block just evicted went free after a plain check, and was held to R after
        check(commit=True) or provgate check). Only their texts: a block that shares a handle
        with a flagged one (another page of one output) is no copy of its bytes, and pinning it
        in the same pass refused unchanged windows (red team 40, 01)."""
        pre = self.pre
        flagged = pre.pinned()
        if flagged:
            digests = pre.digests
            self.sticky = self.sticky.adding(block_text_handle(digests[i]) for i in flagged)
            self.pinned_handles = self.sticky.handles

    def _take_up_held_pins(self) -> None:
        """The pins the check's record adds beyond pre's flags (Gate._record: the texts of the
        blocks R holds pinned, the handles of those held by their text alone, their normalised
        texts, the renderings found) are taken up by the check itself, until they add nothing.
        Judged without them, the same edit checked again got another verdict (red team 75, F01:
        accepted, then refused for a summary citing the handle of a copy the first check had
        held as the pinned block). Each round only adds, from the pre window's finitely many
        handles; what a round found stays taken up (a rendering found in one round holds a
        pinned text in the next, and is no rendering found there), and the record pins the union
        of the rounds. Run after the structure: it asks for post's flagged blocks, and the
        structure must find post's index unmade to share pre's (asked first, every edit in place
        took the general path)."""
        taken: dict[str, None] = {}
        taken_norms: frozenset[str] = frozenset()
        taken_renderings: frozenset[str] = frozenset()
        while True:
            handles, norms, renderings = self.pins_beyond_flags()
            taken.update(dict.fromkeys(handles))
            taken_norms |= norms
            taken_renderings |= renderings
            new_handles = [h for h in handles if h not in self.sticky.handles]
            new_norms, new_renderings = norms - self.pinned_norms, renderings - self.renderings
            if not new_handles and not new_norms and not new_renderings:
                self._beyond_flags = (list(taken), taken_norms, taken_renderings)
                return
            if self.gate._incremental_pins and self._pinned_positions is not None:
                # the later rounds from what this one added, block by block (a round per block
                # of a chain, each over the whole window, was quadratic: red team 78, F01); the
                # round worked out whole below then confirms it and makes the caches
                more, more_norms, more_renderings = self._later_rounds(new_handles, new_norms, new_renderings)
                taken.update(dict.fromkeys(more))
                taken_norms |= more_norms
                taken_renderings |= more_renderings
                new_handles += [h for h in more if h not in self.sticky.handles]
                new_norms |= more_norms - self.pinned_norms
                new_renderings |= more_renderings - self.renderings
            # (each set copied only where it grows: a session's pins are many, red team 78, F02)
            if new_handles:
                self.sticky = self.sticky.adding(new_handles)
                self.pinned_handles = self.sticky.handles
            if new_norms:
                self.pinned_norms = self.pinned_norms | new_norms
            if new_renderings:
                self.renderings = self.renderings | new_renderings
            # (worked out again with them)
            self._pinned_positions = self._free = self._beyond_flags = None
            self._free_with = {}
            self.respaced = set()
            self._text_only = set()

    def _later_rounds(self, handles: list[str], norms: frozenset[str], renderings: frozenset[str]
                      ) -> tuple[list[str], frozenset[str], frozenset[str]]:
        """What the rounds after this one take up, worked out from what each adds rather than
        over the whole window each time: the blocks holding a text a round pinned, or carrying a
        handle it pinned (a candidate, :meth:`_respaced`) whose text after the whitespace
        normalisation is a pinned one, enter in the round after it, as in :meth:`pinned_positions`;
        each entering block adds what :meth:`pins_beyond_flags` takes of it (its text and
        normalised text; its text as a rendering when it entered by that normalisation alone;
        its handles when held by its text alone and not let go, :meth:`_free_text_pins`). A block
        let go stays let go (the renderings only grow), and a block's text once pinned makes no
        copy of it a rendering, so the blocks entering in each round are all a round changes.
        ``handles``, ``norms``, ``renderings``: what this round added."""
        pre, post, gate = self.pre, self.post, self.gate
        blocks, digests, texts = pre.blocks, pre.digests, pre.texts
        flagged = set(pre.pinned())
        # (every flagged block and every one a legacy record holds entered in the first round:
        # a block entering here is unflagged and held by its text alone)
        pinned = set(self.pinned_positions())
        sticky = self.sticky.handles
        pinned_norms = self.pinned_norms
        rendered = self.renderings

        def norm_of(i: int) -> str:
            return gate._normalised_text_handle(digests[i], texts[i])

        text_of = [block_text_handle(d) for d in digests]
        holding: dict[str, list[int]] = {}
        carrying: dict[str, list[int]] = {}
        for i, b in enumerate(blocks):
            holding.setdefault(text_of[i], []).append(i)
            for h in b.handles:
                carrying.setdefault(h, []).append(i)
        kept = {post.digests[k] for k in post.pinned()}
        kept_norms = set(gate._normalised_text_handles(post.texts, post.digests.__getitem__, post.pinned()))
        kept_norms.discard(_BLANK_NORM)
        # the candidates so far (pin_candidates of this round's handles, and of the flagged
        # blocks' handles), by their normalised text; and the normalised texts that match one
        candidates = set(pre.pin_candidates(self.pinned_handles))
        extra = pre.pinned_handles() - self.pinned_handles
        if extra:
            candidates.update(_blockscan.holding_or_found_by_text(blocks, extra, _TURNS))
        by_norm: dict[str, list[int]] = {}
        for i in candidates:
            by_norm.setdefault(norm_of(i), []).append(i)
        matching = set(pinned_norms).union(gate._normalised_text_handles(texts, digests.__getitem__, sorted(flagged)))
        matching.discard(_BLANK_NORM)
        # (this round's own additions count as taken up: the next round starts with them)
        added: dict[str, None] = dict.fromkeys(handles)
        added_norms: set[str] = set(norms)
        added_renderings: set[str] = set(renderings)
        new_handles, new_norms, new_renderings = list(handles), set(norms), set(renderings)
        while new_handles or new_norms or new_renderings:
            known_texts = {h for h in new_handles if h in holding}  # (texts pinned from this round on)
            entering: dict[int, bool] = {}  # block -> entered by its normalised text alone
            for h in known_texts:
                for i in holding[h]:
                    if i not in pinned:
                        entering[i] = False
            new_candidates = [i for h in new_handles for i in carrying.get(h, ()) if i not in candidates]
            for i in new_candidates:
                candidates.add(i)
                by_norm.setdefault(norm_of(i), []).append(i)
            fresh_norms = new_norms - {_BLANK_NORM} - matching
            matching |= fresh_norms
            reached = [i for i in new_candidates if norm_of(i) in matching]
            reached += [i for n in fresh_norms for i in by_norm.get(n, ())]
            for i in reached:
                if i not in pinned and i not in entering:
                    entering[i] = True  # (a block holding a text pinned by now entered above)
            new_handles, new_norms, new_renderings = [], set(), set()
            for i in sorted(entering):
                pinned.add(i)
                by_text = not entering[i]
                if text_of[i] not in sticky and text_of[i] not in added:
                    added[text_of[i]] = None
                    new_handles.append(text_of[i])
                n = norm_of(i)
                if n != _BLANK_NORM and n not in pinned_norms and n not in added_norms:
                    added_norms.add(n)
                    new_norms.add(n)
                # (a rendering when the rounds before found it one: in the renderings so far,
                # less those this round finds)
                rendering = text_of[i] in rendered or (text_of[i] in added_renderings
                                                       and text_of[i] not in new_renderings)
                if not by_text and not rendering and text_of[i] not in added_renderings:
                    added_renderings.add(text_of[i])
                    new_renderings.add(text_of[i])
                free = digests[i] in kept or (bool(kept) and (not by_text or rendering) and n in kept_norms)
                if not free:
                    for h in blocks[i].handles:
                        if h not in sticky and h not in added:
                            added[h] = None
                            new_handles.append(h)
        return list(added), frozenset(added_norms), frozenset(added_renderings)

    def pins_beyond_flags(self) -> tuple[list[str], frozenset[str], frozenset[str]]:
        """What the check's record pins beyond pre's flagged blocks (Gate._record), once per
        check: the handles (the text of each pinned pre block not flagged, and the handles of
        those R holds by their text alone and does not let go here), the normalised texts of
        those blocks, and the texts of the blocks found as a pinned page re-rendered."""
        if self._beyond_flags is None:
            pre = self.pre
            flagged = set(pre.pinned())
            unflagged = [i for i in self.pinned_positions() if i not in flagged]
            # a pre block pinned only through a sticky pin (its text, or a handle of a record that
            # never held the text) pins its text too: pinned by user:u3, it is the same bytes when
            # later shown without the handle (red team 28, y04); its other handles are taken up
            # only where a check held it to R as the pinned block (below: a user saying
            # a pinned text again under user:u18 while the pinned turn stays flagged is no new
            # pin), and a block that only shares a pinned handle pins nothing (another page of a
            # pinned output is no pinned block: red team 40, 01)
            handles = [block_text_handle(pre.digests[i]) for i in unflagged]
            if self._text_only:
                # a pre block R held as the pinned block by its text alone (no flagged post block
                # keeps the text: _free_text_pins) is kept flagged or leaves on the record of its
                # handles: from then on they are the pinned block's, as a flagged block's are, and
                # a later block citing or deriving from them restates it (red team 59, F01/F02: a
                # turn pinned without a handle, logged as user:u3 and evicted by that record, was
                # cited as [src:u3] in the next pass, or summarized from user:u3 whose stored bytes
                # the log had re-rendered). Taken whatever the verdict, committed or not, as the
                # pre window's pins are: an agent commits a window it weighed by itself, or one
                # refused, and the next pre window no longer holds the block (red team 60, F02;
                # red team 62, F02); as R holds it in this check, by the post window (red team 61,
                # F01: a copy evicted beside its flagged turn; F03: a tool's page of the text
                # freed by the turn's flag restored). A candidate the agent then drops still pins
                # them (fails closed).
                handles += [h for i in sorted(self._text_only - self._free_text_pins()) for h in pre.blocks[i].handles]
            norm = self.gate._normalised_text_handle
            norms = frozenset(norm(pre.digests[i], pre.texts[i]) for i in unflagged) - {_BLANK_NORM}
            renderings = frozenset(block_text_handle(pre.digests[i]) for i in self.respaced)
            self._beyond_flags = (handles, norms, renderings)
        return self._beyond_flags

    def _hash(self) -> None:
        self.pending: dict[bytes, bytes] = {}
        self.pre = self.gate.side(self.edit.pre, "pre", self.pending)
        self.post = self.gate.side(self.edit.post, "post", self.pending, like=self.pre)

    def _structure(self) -> None:
        """Match post blocks to pre blocks by digest; what is left over changed.

        A post block first takes the pre block with its own text AND its own id (ids are unique
        on each side, so these pairs never compete); a block left over takes a pre block with
        its text under another id (a moved block or a kept duplicate), an unused copy first.
        Every pass over all blocks is a comprehension or a C-level map: this runs on every edit."""
        pre, post = self.pre, self.post
        pre_blocks, post_blocks = pre.blocks, post.blocks
        n_pre = len(pre_blocks)
        if post._ix is None and post is not pre and len(post_blocks) == n_pre and self.gate._in_place:
            post.share_indexes_with(pre)
        pre_digests = pre.digests
        # same ids in the same order (a shared index list): block j can only be pre block j
        in_place = self.in_place = post.same_shape(pre)
        if in_place:
            # digests of unchanged texts are usually the very same objects (Gate.digests)
            if post._differ is not None and post._differ[0] is pre_digests:
                # post was hashed from pre: only where a text object differs can a digest
                pending = [j for j in post._differ[1] if post.digests[j] != pre_digests[j]]
            else:
                pending = [j for j in compress(range(n_pre), map(is_not, post.digests, pre_digests))
                           if post.digests[j] != pre_digests[j]]
            self.differing = pending  # (positions whose digests differ: _pass_on)
            match: list[int | None] = list(range(n_pre))
            for j in pending:
                match[j] = None
            used: set[int] | _AllBut = _AllBut(n_pre, pending)
            unused = pending  # only a pre block whose position changed can be left unused
        else:
            # the pre block with the post block's id, if it has the same text (ids are unique,
            # so each post block names at most one pre block)
            match, pending = matched_by_id(post_blocks, post.digests, pre.id_pos(), pre_digests)
            used = set(match)
            used.discard(None)
            unused = None
        self.reused: list[int] = []  # post blocks that copy a pre block another post block kept
        self.moved = moved = []  # post blocks matched to a pre block with their text under another id
        if pending:
            copies = pre.positions
            unmatched = []
            pools: dict[bytes, _CopyPool] = {}
            # a block the edit evicts by its id is a copy only of a block with its provenance
            # (the same block moved, its role or stamps perhaps changed: the record records
            # nothing), not of a new block that has its text by chance (stop 27: a new summary of
            # a turn, its text that of a summary evicted beside it with other sources, was taken
            # for it kept, and I5 counted the new summary's markers as the evicted one's; red
            # team 42, F2, and 43, G1: a turn's bytes kept under a new id, restamped or relabelled,
            # were taken for new, and its markers paid for a marker stripped elsewhere). Sorted
            # out once per text (_CopyPool): red team 42, C2.
            evicted_ids = self._covering()[0] if self.edit.evicted else frozenset()
            for j in pending:
                d = post.digests[j]
                cands = copies(d)
                if not cands:
                    unmatched.append(j)
                    continue
                pool = pools.get(d)
                if pool is None:
                    pool = pools[d] = _CopyPool(cands, pre_blocks, used, evicted_ids)
                # the unused copy that is this block (its handles, resource and ts) first, then
                # one with its stamps: a renamed read of one file must not stand in for another
                # file's read with its bytes; else the first unused copy
                pick = pool.take(post_blocks[j], used)
                if pick is None:
                    # a repeat: of the kept copy with its provenance, where there is one (red
                    # team 58, F03: a repeat of one copy taken for another claimed new sources)
                    pick = pool.kept_like(post_blocks[j], pre_blocks)
                    if pick is None:  # (every copy evicted by its id, none this block)
                        unmatched.append(j)
                        continue
                    self.reused.append(j)
                used.add(pick)
                match[j] = pick
                moved.append(j)
            pending = unmatched
        # a block rewritten in place (same id) that differs only in whitespace is unchanged too
        self.ws_matched: set[int] = set()
        if pending:
            pre_id = pre.id_pos()
            # ids are unique on each side, so every candidate pairs a different pre block
            candidates = [(j, i) for j, i in ((j, pre_id.get(post_blocks[j].id)) for j in pending)
                          if i is not None and i not in used]
            if candidates:
                same = same_after_normalisation([post_blocks[j].text for j, _ in candidates],
                                                [pre_blocks[i].text for _, i in candidates])
                for (j, i), ws_equal in zip(candidates, same.tolist()):
                    if ws_equal:
                        used.add(i)
                        match[j] = i
                        self.ws_matched.add(j)
        self.match = match
        self.used = used
        self.changed = [j for j in pending if j not in self.ws_matched]
        if len(used) == n_pre:
            self.removed = []
        elif unused is not None:
            self.removed = [i for i in unused if i not in used]
        else:
            self.removed = sorted(set(range(n_pre)) - used)
        # dropped byte-identical duplicates are not "removed" content: their text survives
        survives = self._text_survives(unused) if self.removed else None
        self.removed_content = [i for i in self.removed if not survives(pre.digests[i])]  # type: ignore[misc]
        if len(self.removed_content) < len(self.removed):
            # a copy is a duplicate only if the same speaker says it: who said a text is part of
            # its provenance, so the user's approval is not kept by the assistant's echo of it
            # (red team 21, r02), nor a cited turn by a data block with its bytes, whose markers
            # are data (I3/I5: red team 14, p05)
            content = set(self.removed_content)
            pre_blocks, pre_digests = pre.blocks, pre.digests
            # what leaves with such a copy: a user's or the system's words (I2's "who said
            # it"), handle or not (red team 24, u01), a turn's citations; the agent's uncited
            # echo of what another said may go, and a read answers for its handles as any
            # dropped read does
            copies = [i for i in self.removed if i not in content
                      and (pre_blocks[i].role in _SPEAKERS or (_MARKER_OPENER in pre.texts[i] if _cites(pre_blocks[i])
                                                               else not pre_blocks[i].handles))]
            # ... unless a post block with its text has its speaker (post is looked at only
            # for such copies: most dropped copies are the agent's uncited remarks)
            lost = []
            if copies:
                wanted = {pre_digests[i] for i in copies}
                said = {(d, _speaker(b)) for d, b in zip(post.digests, post_blocks) if d in wanted}
                lost = [i for i in copies if (pre_digests[i], _speaker(pre_blocks[i])) not in said]
            if lost:
                self.removed_content = sorted({*self.removed_content, *lost})
                self.speaker_lost = lost
        # blocks kept with the same text but other provenance, or a bad derived tag: compared as
        # (handles, derived, derived_from) natively first, then in detail where they differ
        if in_place:
            # same metadata in the same order (so pre's list of bad derived tags is post's too):
            # only a block matched elsewhere can differ
            suspects = sorted({*moved, *(j for j in pre.bad_derived() if match[j] is not None)})
        else:
            suspects = provenance_changed(post_blocks, match, pre_blocks)
        self.restated = [
            j for j in suspects
            for b, pb in ((post_blocks[j], pre_blocks[match[j]]),)  # type: ignore[index]
            if (b.derived and not b.derived_from) or b.derived != pb.derived or b.role != pb.role
            or (b.handles != pb.handles and set(b.handles) != set(pb.handles))
            or (b.derived_from != pb.derived_from and set(b.derived_from) != set(pb.derived_from))
        ]
        # kept texts of derived blocks that now derive from a handle their pre block did not come
        # from: matched by their bytes, they still claim new sources, so I4 weighs them as it
        # weighs a changed block (held to the newest read of what they now derive from, and
        # standing for the reads they derive from), as it does the same edit with one word added
        # (red team 58, F06: a summary of the older read kept verbatim, widened to derive from
        # the newer read too, left the stale value alone unweighed; F03: a summary of the newest
        # read whose bytes were an older summary's was taken for that summary, and the newest
        # read for gone)
        self.reclaimed = [j for j in self.restated
                          if post_blocks[j].derived
                          and not set(post_blocks[j].derived_from).issubset(pre_blocks[match[j]].provenance)  # type: ignore[index]
                          ] if self.restated else []
        # and a block's kept text that now carries a handle its pre block did not: it is
        # not the read of that handle (the older read kept verbatim and tagged with the newer
        # read's handle as well claimed to be the newest read once that read had left the window,
        # red team 61, F02); weighed as changed against the reads that left (_check_left_reads)
        # (a derived block too: the older read kept as a summary carrying the newer read's handle,
        # red team 62, F01). A handle the block already came from (a summary tagged with what it
        # derives from) or its own text's handle is no new claim (red team 63, F03: a summary
        # kept byte for byte and tagged with its source was weighed as changed, and its prose
        # value, which the window held alone before the edit, refused as stale)
        self.retagged = [j for j in self.restated
                         if not set(post_blocks[j].handles).issubset(pre_blocks[match[j]].handles)  # type: ignore[index]
                         and (set(post_blocks[j].handles) - set(pre_blocks[match[j]].handles)  # type: ignore[index]
                              - set(pre_blocks[match[j]].provenance)  # type: ignore[index]
                              - {block_text_handle(pre.digests[match[j]])})  # type: ignore[index]
                         ] if self.restated else []
        # kept texts whose markers changed from citations to data or back with their block's
        # role or derived tag (a turn's text moved into a tool output, a turn relabelled as the
        # user's): I5 counts them as lost or new citations (red team 35, 02)
        self.flipped = [j for j in self.restated if _cites(post_blocks[j]) != _cites(pre_blocks[match[j]])  # type: ignore[index]
                        and j not in self.reused] if self.restated else []
        self.structural = not self.changed and not self.removed_content and not self.restated

    def _reads_touched(self) -> bool:
        """Could this structural edit change what a resource's reads say is newest? Dropping a
        read, even a byte-identical copy of another (its ts or its place in the window go with
        it), or moving one can: such an edit is judged by every I4 rule, not from digests
        alone (its classification stays structural)."""
        reads = self.pre.reads()
        if not reads:
            return False
        in_reads = {i for group in reads.values() for i in group}
        post_blocks, match = self.post.blocks, self.match
        if not in_reads.isdisjoint(self.removed) or any(
                match[j] in in_reads or post_blocks[j].resource is not None for j in self.moved):
            return True
        if self.in_place:
            return False  # every read at its place
        where: dict[int, int] = {}
        for j, m in enumerate(match):
            if m is not None:
                where.setdefault(m, j)
        return any([where[i] for i in group] != sorted(where[i] for i in group) for group in reads.values())

    def _text_survives(self, changed: list[int] | None) -> Callable[[bytes], bool]:
        """Does a post block have this text? In place (``changed``: the positions whose texts
        differ, else None) only those positions, and pre's copies elsewhere, need a look."""
        if changed is None:
            self._post_texts = set(self.post.digests)
            return self._post_texts.__contains__
        post_digests = self.post.digests
        new_texts = {post_digests[j] for j in changed}
        # a pre block with this text at a position whose text did not change is in post
        unchanged = self.pre.has_text_outside(changed)
        return lambda d: d in new_texts or unchanged(d)

    def _pass_on(self) -> None:
        """Leave the post window of an edit in place what its pre window's side knows and the
        edit cannot have changed (:meth:`_Side.inherit`): the session's next edit starts from
        it, and asks those of it as its pre window."""
        if self.in_place and self.post is not self.pre:
            self.post.inherit(self.pre, self.differing)

    def _load_facts(self) -> None:
        gate = self.gate
        pre, post = self.pre, self.post
        self.pre_facts = pre_facts = pre.facts(gate, self.pending)
        # an unchanged post block has its pre block's facts; a whitespace-matched one inherits
        # them, by definition (for this check: they are not its text's own, see _Side)
        if self.in_place:
            local: list[_Facts] = list(pre_facts)
            for j in self.moved:
                local[j] = pre_facts[self.match[j]]  # type: ignore[index]
        else:
            local = [None if m is None else pre_facts[m] for m in self.match]  # type: ignore[misc]
        if self.changed:
            post_digests, post_blocks = post.digests, post.blocks
            changed = gate.facts_for_many([post_digests[j] for j in self.changed],
                                          [post_blocks[j] for j in self.changed], self.pending)
            for j, f in zip(self.changed, changed):
                local[j] = f
        if self.ws_matched:
            own: list[_Facts | None] = list(local)
            for j in self.ws_matched:
                own[j] = None
            post.known_facts(own)
        else:
            # (complete: a post block no pre block matched is a changed one, or whitespace-matched)
            post.known_facts(local, complete=True)  # type: ignore[arg-type]
        self.post_facts = local
        pre_n, pre_m = pre.totals(gate, self.pending)
        self.counts["pre"] = pre_n
        if self.in_place:
            # the same positions: only the blocks that changed or moved change the counts
            touched = self.changed + self.moved
            self.counts["post"] = pre_n + sum(local[j].n_facts - pre_facts[j].n_facts for j in touched)
            self.post_markers = pre_m + sum(_citing_markers(post.blocks[j], local[j])
                                            - _citing_markers(pre.blocks[j], pre_facts[j]) for j in touched)
            self.touched = touched
            self.marked = dict(pre.marked())
            for j in touched:
                if local[j].n_markers:
                    self.marked[j] = local[j]
                else:
                    self.marked.pop(j, None)
        else:
            # every pre block but the removed ones is kept once; a reused one once more; the
            # changed ones are new (so no pass over the whole window is needed)
            others = [pre_facts[i] for i in self.removed]
            extra = [pre_facts[self.match[j]] for j in self.reused] + [local[j] for j in self.changed]  # type: ignore[index]
            self.counts["post"] = pre_n - sum(map(_N_FACTS, others)) + sum(map(_N_FACTS, extra))
            pre_blocks, post_blocks = pre.blocks, post.blocks
            self.post_markers = (pre_m - sum(map(_citing_markers, [pre_blocks[i] for i in self.removed], others))
                                 + sum(map(_citing_markers, [post_blocks[j] for j in (*self.reused, *self.changed)],
                                           extra)))
            # a kept text whose markers became data or citations counts as its post block
            # has them, as the in-place count above does
            for j in self.flipped:
                i = self.match[j]
                self.post_markers += (_citing_markers(post_blocks[j], pre_facts[i])
                                      - _citing_markers(pre_blocks[i], pre_facts[i]))
            self.marked = {j: f for j, f in enumerate(local) if f.n_markers}
        if not self.ws_matched and post._n_facts is None:
            # the post window's own totals, ready for when it is the pre window
            post._n_facts, post._n_markers, post._marked = self.counts["post"], self.post_markers, self.marked

    def _load_marker_facts(self) -> None:
        """For a structural edit: facts only of the post blocks that can hold a marker."""
        post = self.post
        self.marked = {}
        if not post.may_cite():
            return
        can = [j for j, t in enumerate(post.texts) if _MARKER_OPENER in t]
        found = self.gate.facts_for_many([post.digests[j] for j in can], [post.blocks[j] for j in can], self.pending)
        self.marked = {j: f for j, f in zip(can, found) if f.n_markers}

    # I3 --------------------------------------------------------------------------------------

    def _marker_names(self) -> tuple[frozenset[str], Iterable[str]]:
        """(every marker name the post window cites, the names among them not known to resolve
        to exactly one handle). A window rewritten in place starts from its pre window's names:
        only the blocks that changed or moved can add or take away a name."""
        if self._names is not None:
            return self._names
        pre = self.pre
        touched = self.touched
        if touched is not None and pre._names is not None:
            pre_facts, post_facts = self.pre_facts, self.post_facts
            old: set[str] = set().union(*(pre_facts[j].markers() for j in touched))
            new: set[str] = set().union(*(post_facts[j].markers() for j in touched))
            names = set(pre._names)
            gone = old - new
            if gone:
                names -= gone
                names.update(n for n in gone if any(n in f.markers() for f in self.marked.values()))
            names |= new
            # the gate's resolutions never expire (the store never deletes): what resolved for
            # pre still does, so only names pre lacked (or could not resolve) are looked at
            unknown: Iterable[str] = new - pre._names if pre._names_ok_at == self.gate._names_epoch else names
        else:
            names = set().union(*(f.markers() for f in self.marked.values()))
            # a name pre cited resolved then, so it still does; only new names are looked at
            unknown = (names - pre._names if pre._names is not None and pre._names_ok_at == self.gate._names_epoch
                       else names)
        self._names = (frozenset(names), unknown)
        return self._names

    def _targets(self, name: str) -> tuple[str, ...]:
        """The handles marker ``name`` cites (one: it resolves; none or several: I3 fails)."""
        found = self.gate._marker_handles.get(name)
        if found is None:
            found = self.marker_targets.get(name)
            if found is None:
                found = self.marker_targets[name] = self.gate.marker_handles(name)
        return found

    def _check_handles(self) -> None:
        """Every handle the post window references resolves in the durable store."""
        gate = self.gate
        edit = self.edit
        post = edit.post
        side = self.post
        # the blocks' own handles: looked up once per window shape (in-place rewrites share it)
        union_known = side.ix.resolved
        refs: set[str] = set() if union_known else set(side.handle_union())
        refs.update(s.handle for s in edit.supersedes)
        refs.update(p.handle for p in edit.pointers)
        post_ids = self.post.id_pos()
        pre_id = self.pre.id_pos()
        pre_blocks = self.pre.blocks
        # (a prune records hundreds of evictions: one dict look-up each, the block only when found)
        for e in edit.evicted:
            i = pre_id.get(e)
            if i is not None and not pre_blocks[i].handles and e not in post_ids:
                continue  # an eviction record naming a handle-less pre block by id
            refs.add(e)
        # markers: each distinct name resolved once (a marker's handle comes from the store, so
        # it needs no second look-up), after the gate forgot what newer sources may have changed
        self.marker_targets: dict[str, tuple[str, ...]] = {}
        epoch = gate.forget_stale_names() if self.marked else gate._names_epoch
        names, unknown = self._marker_names()
        met = self.gate._marker_handles
        new = [n for n in unknown if n not in met]
        if new:  # resolved together: one store read, not one per name
            self.marker_targets.update(self.gate.marker_handles_many(new))
        bad = sorted(n for n in unknown if len(self._targets(n)) != 1)
        if not self.ws_matched:
            side._names, side._names_ok_at = names, -1 if bad else epoch
        if bad:
            # marker syntax in a tool output, a user turn or a system prompt is data (a docs page
            # quoting "[src:call_8841]", a prompt saying "cite as [src:HANDLE]"): only what the
            # agent writes cites, its turns, summaries and what this edit rewrote (a block that
            # is not one of its sources any more; red team 11, x03)
            changed = set(self.changed)
            cited: set[str] = set()
            for j, f in self.marked.items():
                if _cites(post[j]) or (j in changed and not self._is_one_source(j)):
                    cited.update(f.markers())
            bad = [n for n in bad if n in cited]
        if bad:
            # the blocks citing each bad name, in block order: one pass over the marked blocks
            # (a name by name search of every block was quadratic: 16,000 unresolved markers
            # took 3 s, red team 41, 02)
            wanted = set(bad)
            citing_blocks: dict[str, list[int]] = {}
            for j, facts in sorted(self.marked.items()):
                for name in facts.markers():
                    if name in wanted:
                        citing_blocks.setdefault(name, []).append(j)
        for name in bad:
            found = self._targets(name)
            what = "names no handle in the durable store" if not found else f"is ambiguous: {list(found)}"
            for j in citing_blocks.get(name, ()):
                block = post[j]
                self.violate("I3", f"block {block.id!r} cites [src:{name}], which {what}",
                             block=block.id, handle=name, key="citation", value=name,
                             evidence={"marker": f"[src:{name}]", "candidates": list(found)})
        todo = sorted(refs.difference(gate._handle_digest))
        if len(todo) > 1:  # one store read for all (a fresh gate, or a window of unknown handles)
            gate._learn_handles(todo)
            unresolved = [h for h in todo if h not in gate._handle_digest]
        else:
            unresolved = [h for h in todo if gate.handle_digest(h) is None]
        # an eviction record or a supersession edge lets the agent drop its copy of a source:
        # only for a source the store can still return (StoreCorruptionError otherwise)
        dropped = [e for e in edit.evicted if e in refs]
        dropped.extend(s.handle for s in edit.supersedes)
        if dropped:
            gone = set(unresolved)
            gate.confirm_intact([h for h in dropped if h not in gone])
        report = self.reportable(unresolved)  # the rest only counted: each would cost a pass over post
        places = self._where_referenced(report)
        for handle in report:
            how, block = places[handle]
            where = f"block {block!r} ({how})" if block else how
            why = ""
            if how == "evicted" and handle in pre_id and handle in post_ids:
                # a message list numbered by position renames every block after a drop
                why = (" (it is the id of a pre block, but post gives that id to another block: a block's id must "
                       "name the same block across edits)")
            self.violate("I3", f"{where} references {handle!r}, which does not resolve in the durable store{why}",
                         block=block or None, handle=handle, evidence={"field": how})
        if not union_known and side.handle_union().isdisjoint(unresolved):
            side.ix.resolved = True

    def _where_referenced(self, handles: Sequence[str]) -> dict[str, tuple[str, str]]:
        """The first place post references each of ``handles`` (for the messages of
        violations): one pass over post, however many handles are asked."""
        edit = self.edit
        left = set(handles)
        out: dict[str, tuple[str, str]] = {}

        def found(handle: str, how: str, block: str) -> None:
            if handle in left:
                left.discard(handle)
                out[handle] = (how, block)

        for b in edit.post:
            for h in b.handles:
                found(h, "handles", b.id)
            for h in b.derived_from:
                found(h, "derived_from", b.id)
            if not left:
                return out
        for s in edit.supersedes:
            found(s.handle, "supersedes", s.block)
        for p in edit.pointers:
            found(p.handle, "pointers", p.block)
        for j, f in sorted(self.marked.items()):
            for n in f.markers():
                for h in self._targets(n):
                    found(h, "citation marker", edit.post[j].id)
        for h in list(left):
            out[h] = ("evicted", "")
        return out

    def cited(self, j: int, facts: _Facts | None = None) -> tuple[str, ...]:
        """The handles post block ``j``'s markers cite (resolved, unambiguous ones); each name
        resolved is noted in ``cited_names`` (name -> handle) for grounding's search hints.
        ``facts``: the block's (when the check has no ``post_facts``: a structural edit)."""
        out: dict[str, None] = {}  # (in order, each once: a list's `in` was quadratic, red team 41, 03)
        known = self.gate._marker_handles.get  # most names resolved before (a cached one is never empty)
        names = self.cited_names
        for name in (facts if facts is not None else self.post_facts[j]).markers():
            found = known(name) or self._targets(name)
            if len(found) == 1:
                names[name] = found[0]
                out[found[0]] = None
        return tuple(out)

    # I1 --------------------------------------------------------------------------------------

    def _check_grounding(self) -> None:
        """Every post block resolves to a handle; changed and derived blocks are grounded.

        Two passes: the first decides per block what to report and what to ground; the blocks
        whose grounding is not cached are then grounded together (a few native calls for the
        whole check, not a few per block); the second pass reports in block order."""
        edit = self.edit
        gate = self.gate
        known = gate._handle_digest  # handles the gate found in the store (they never go away)
        known_handles = known.keys()
        lossy = edit.operator in LOSSY_OPERATORS
        # per block: the I1 violations found on the way, then what grounds it (if it needs it)
        plan: list[tuple[int, list[tuple[str, dict[str, Any]]], tuple[list[str], Any] | None]] = []
        requests: list[tuple[Any, int, list[str], list[_Facts]]] = []
        post_blocks, pre_blocks, match = self.post.blocks, self.pre.blocks, self.match
        post_digests, pre_digests = self.post.digests, self.pre.digests
        pre_id = self.pre.id_pos()
        grounded = gate._grounded.get
        # only blocks that changed, or whose provenance changed, need a look
        for j in sorted(self.changed + self.restated):
            block = post_blocks[j]
            found: list[tuple[str, dict[str, Any]]] = []
            if block.derived and not block.derived_from:
                found.append((f"derived block {block.id!r} names no derived_from handle", {"block": block.id}))
                plan.append((j, found, None))
                continue
            m = match[j]
            own = block.provenance
            if m is not None:
                pre_block = pre_blocks[m]
                if _role_changed(block, pre_block) and not self._source_put_back(j, pre_block):
                    found.append(_role_change(block, pre_block))
                if pre_block.derived and not block.derived and not self._is_one_source(j):
                    found.append(self._tag_dropped(block, pre_block))
                if found:
                    plan.append((j, found, None))
                    continue
                if own == pre_block.provenance and block.derived == pre_block.derived:
                    continue  # unchanged text, unchanged provenance: grounded as before
                if pre_block.provenance and not own:
                    found.append((f"block {block.id!r} lost its last handle (pre had {list(pre_block.provenance)})",
                                  {"block": block.id, "evidence": {"pre_handles": list(pre_block.provenance)}}))
                    plan.append((j, found, None))
                    continue
                if set(own) == set(pre_block.provenance) and block.derived == pre_block.derived:
                    continue
                pre_index: int | None = m
            else:
                # A block's pre version is part of its provenance: an unchanged assistant turn
                # needs no handle, and a rewritten turn may restate what its pre version (the
                # pre block with the same id) said.
                pre_index = pre_id.get(block.id)
                if (pre_index is not None and _role_changed(block, pre_blocks[pre_index])
                        and not self._source_put_back(j, pre_blocks[pre_index])):
                    # rewritten in place too (red team 12, z01); a summary whose source is put
                    # back in its place is that source's block
                    found.append(_role_change(block, pre_blocks[pre_index]))
                if (pre_index is not None and pre_blocks[pre_index].derived and not block.derived
                        and not self._is_one_source(j)):
                    found.append(self._tag_dropped(block, pre_blocks[pre_index]))
                elif (pre_index is None and not lossy and not block.derived and block.handles
                      and not self._is_excerpt_of_source(j)):
                    # a new primary block carries its source's text (DESIGN: "primary blocks carry
                    # source text"): not a summary reworded under a new id (red team 12 z02, red
                    # team 14 p01), nor a turn relabelled as a tool output (p02)
                    summary_of = self._summarized_only(block)
                    found.append(self._tag_dropped(block, pre_blocks[summary_of]) if summary_of is not None else
                                 ((f"block {block.id!r} is a new primary block whose text is no excerpt of its sources "
                                   f"{list(block.handles)}: a primary block carries its source's text"),
                                  {"block": block.id, "key": "derived", "value": "false",
                                   "evidence": {"handles": list(block.handles)}}))
                if lossy and not block.derived:
                    found.append((f"block {block.id!r} is new output of the lossy operator {edit.operator!r} "
                                  "but is not tagged derived", {"block": block.id, "evidence": {"operator": edit.operator}}))
            cited = self.cited(j)
            if not own and not cited and pre_index is None:
                found.append((f"block {block.id!r} resolves to no handle: no handles, no derived_from, "
                              "no [src:…] marker and no pre version", {"block": block.id}))
                plan.append((j, found, None))
                continue
            candidates = dict.fromkeys(own + cited)
            # (usually every one is a handle the gate met before: then all of them, in order)
            handles = (list(candidates) if candidates.keys() <= known_handles else
                       [h for h in candidates if h in known or gate.handle_digest(h) is not None])
            # only a block without sources of its own (an assistant turn) is grounded by its pre
            # version; a primary block answers to its handles, so a text moved onto another
            # block's handle cannot ground itself
            own_pre = pre_index if pre_index is not None and not block.derived and not block.handles else None
            # grounding is a pure function of the block's text and what grounds it: cached, so a
            # re-check after a one-block change re-grounds only that block
            key = (post_digests[j], tuple(handles), None if own_pre is None else pre_digests[own_pre])
            rows = grounded(key)
            if rows is None:
                # (the request's position stands in for the rows until they are computed)
                rows = len(requests)
                requests.append((key, j, handles, None if own_pre is None else self.pre_facts[own_pre]))
            plan.append((j, found, (handles, rows)))
        computed: list[tuple[int, ...]] = []
        if requests:
            computed = self._ungrounded_rows(requests)
            # Only a block grounded whole is kept, and only if no read's resource name grounded
            # any of it: the names depend on the window's tags, not only on the texts the key
            # names, and a tag can only ground more (rows left over in a window without the tag
            # were served to a later window with it: red team 38, 02). Two requests with one
            # key have the same rows, grounding being a function of the key and the tags.
            by_name = self._by_resource_name
            gate._grounded.put_many((key, rows, 64) for (key, *_), rows in zip(requests, computed)
                                    if not rows and key not in by_name)
        for j, found, grounding in plan:
            for message, fields in found:
                self.violate("I1", message, **fields)
            if grounding is None:
                continue
            handles, rows = grounding
            if type(rows) is int:
                rows = computed[rows]
            if not rows:
                continue  # (grounded: nothing to report)
            block = edit.post[j]
            table = self.post_facts[j].table
            # a wide group is named by its first sources and its size: a summary of 16,000
            # sources naming them all in each of its 1,000 violations made a 442 MB audit record,
            # past the store's limit, so the check raised instead of refusing the edit
            named = []
            size = 0
            for handle in handles[:MAX_SEARCHED_NAMED]:
                size += len(handle)
                if named and size > MAX_SEARCHED_NAMED_CHARS:
                    break
                named.append(handle)
            omitted = len(handles) - len(named)
            searched = str(named) + (f" and {omitted} more" if omitted else "")  # (formatted once a block)
            extra = {"searched_omitted": omitted} if omitted else {}
            for row in self.reportable(rows):
                span = table.span(row)
                self.violate(
                    "I1",
                    f"block {block.id!r} asserts {span.kind.name.lower()} {span.text!r}, which occurs in none of "
                    f"its sources {searched}",
                    block=block.id, key=span.key, value=span.value,
                    evidence={"span": [span.start, span.end], "text": span.text, "searched": named, **extra},
                )

    def _check_quoted_polarity(self) -> None:
        """A derived or new block's quotation of two words or more stands under a negation of its
        clause (:func:`_clause_negated`) as its sources' occurrences of those words do: the
        user's ``Do not run "make deploy"`` summarized as ``The user asked to run "make
        deploy"`` was grounded (the negation does not stand right before the quotation, so the
        quotation rule did not deny it) and accepted; ``Run "make deploy" after the tests``
        summarized as ``The user said never to run "make deploy"`` likewise. Refused when every
        occurrence in the block's sources reads one way and the block's the other; sources
        reading both ways leave it be. Code spans name a thing and are not asked (as the
        quotation rule does not ask them), but for one that a verb of doing or a negation
        stands before in its clause (``asked to run `make deploy```: red team 117, F22,
        :func:`_code_spans_asked`)."""
        post_blocks = self.post.blocks
        gate = self.gate
        # (a quotation grounding refused already is not reported twice)
        reported = {(v.block, v.value) for v in self.violations if v.invariant == "I1"}
        # (a derived block, or a new one a lossless edit adds that quotes its sources as a summary
        # would: red team 116, F14; a block rewritten under its id keeps its negations, I2)
        pre_id = self.pre.id_pos()
        # (and a block rewritten under its id, read against its own earlier text: red team 117,
        # F15, "Do not run "A"; run "B"." -> "Do not run "B"; run "A"." kept every negation)
        # A rewrite that only re-spaced the block (:meth:`_reworded_in_place`) moved no negation:
        # read as it was, it is not read again (the rewrite benchmark's reformatted tool output,
        # every JSON string a quotation, cost 41 ms)
        reworded = self._reworded_in_place()
        own = {j: i for i, j in reworded
               if not post_blocks[j].derived and self.post_facts[j].quoted and self.pre_facts[i].quoted}
        reworded_post = {j for _, j in reworded}
        read = [j for j in sorted(set(self.changed + self.restated))
                if post_blocks[j].derived or post_blocks[j].id not in pre_id or j in reworded_post]
        asked = [j for j in read if self.post_facts[j].quoted and (j in own or post_blocks[j].derived
                                                                    or post_blocks[j].id not in pre_id)]
        # (quotations the grammar reads none of, in « » and 「 」: the blocks read joined, searched
        # for a byte of those marks (memchr: three searches of each block's bytes for the marks
        # cost the summarize benchmark 0.1 ms), then the blocks holding one for the marks)
        touched = sorted(set(self.changed + self.restated))
        if touched:
            datas = [self.post_facts[j].table.data for j in touched]
            joined = datas[0] if len(datas) == 1 else b"".join(datas)
            # (the blocks joined searched for each opening mark, its last byte first (memchr), and
            # a block's bytes only for the marks found: ten searches a changed block, or one
            # regular expression, cost the rewrite benchmark 0.6-0.7 ms)
            opening = [mark for mark in _OPENING_MARKS if _holds_mark(joined, mark)]
            if opening:
                marked = [j for j, d in zip(touched, datas) if any(mark in d for mark in opening)]
                if marked:
                    # (what they quote is grounded first: the grammar reads these marks as word
                    # bytes, so their words are no quote fact that I1 or I2 would look for)
                    self._check_marked_quotations_grounded(marked, reported)
                    asked_marks = set(read)
                    marked = [j for j in marked if j in asked_marks]
                if marked:
                    self._check_marked_quotation_polarity(marked, reported)
        if not asked:
            return
        tables = [self.post_facts[j].table for j in asked]
        # (one native pass over every such block: a summary of tool output holds many code spans)
        owners, found = asked_quotations([t.data for t in tables], [t.kind for t in tables],
                                         [t.value_start for t in tables], [t.value_end for t in tables], _KIND_QUOTE)
        by_owner = dict(_grouped(owners.tolist(), found.tolist()))
        # (code spans: one look at the blocks joined first, most summaries asking none)
        if _may_ask_code_spans(b"\n".join(t.data for t in tables if b"`" in t.data)):
            for o, table in enumerate(tables):
                spans = _code_spans_asked(table)
                if spans:
                    by_owner[o] = sorted(by_owner.get(o, []) + spans)
        for o, rows_of in sorted(by_owner.items()):
            j = asked[o]
            block, table = post_blocks[j], tables[o]
            rows = rows_of
            sources = [self.pre_facts[own[j]].table.data] if j in own else [
                x.table.data for h in dict.fromkeys(block.provenance + self.cited(j))
                if (x := gate.source_facts(h)) is not None]
            # (the words as quoted: a quotation is grounded by its exact bytes, QUOTE mode)
            quoted = [table.data[int(table.value_start[r]):int(table.value_end[r])] for r in rows]
            # (and with their blanks made one, as the grammar's facts are: "make  deploy" with two
            # blanks or a tab was found in no source and skipped, red team 119, F11)
            spaced = [_one_blank(q) for q in quoted]
            polarities = _quotation_polarities(sources, set(quoted) | set(spaced))
            for r, words, one in zip(rows, quoted, spaced):
                states = polarities[words] or polarities[one]
                if len(states) != 1:
                    continue  # (in no source, grounded some other way, or read both ways there)
                negated = _clause_negated(table.data, int(table.value_start[r]))
                if negated is False and negated in states and _blocked_of_a_run(
                        table.data, int(table.value_start[r]), words, sources):
                    negated = True  # (a run its sources say to do, read "blocked" of a thing that waits)
                if negated in states:
                    continue
                if not negated and _attempt_of_failures(table.data, int(table.value_start[r]), sources,
                                                        words if polarities[words] else one):
                    continue  # ("Tried to run "A"" of "Failed to run "A"": both say it was attempted)
                span = table.span(r)
                if (block.id, span.value) in reported:
                    continue
                self.violate("I1", f"block {block.id!r} quotes {span.value!r} "
                             f"{'under a negation its sources do not put before it' if negated else 'without the negation its sources put before it'}"
                             ": the quotation says the opposite of what its sources say",
                             block=block.id, key=span.key, value=span.value,
                             evidence={"span": [span.start, span.end], "text": span.text,
                                       "change": "negation_added" if negated else "negation_dropped"})

    def _check_marked_quotations_grounded(self, blocks: list[int], reported: set[tuple[str, Any]]) -> None:
        """A changed block's quotation of two words or more in the marks the grammar reads as
        word bytes (``“…”``, ``‘…’``, ``«…»``, ``„…“``, ``「…」``: :data:`_MARKED_QUOTATION`) is
        grounded as a quote is: its words, whole, with their blanks made one, stand in one of
        its sources (a derived or new block; I1), or in its own pre version (a block rewritten
        under its id; I2). ``The user said “delete the prod db”`` of a source saying ``“delete
        the staging db”`` was accepted, and ``Run “make destroy”`` of ``Run "make deploy"``:
        neither held a fact to look for."""
        post_blocks = self.post.blocks
        for j in blocks:
            block = post_blocks[j]
            found, own, sources = self._marked_quotations(j)
            if not found:
                continue
            if own:
                invariant, where = "I2", "which its pre version does not hold"
            else:
                invariant, where = "I1", "which occurs in none of its sources"
                if not sources:
                    continue  # (a block without a source is I1's to refuse, or a turn of its own)
            # (both sides as a quotation is compared, red team 123, F13: a source's line break
            # or doubled blank inside the words, its bold, a curly apostrophe for a straight one)
            sources = [_as_quoted(x) for x in sources]
            # (a quotation that elides words, "A … B", is grounded piece by piece)
            pieces = {words: [p.strip() for p in _ELISION.split(_as_quoted(words)) if p.strip()] for _, words in found}
            present = _whole_words_in(sources, {p for ps in pieces.values() for p in ps})
            for start, words in found:
                value = words.decode("utf-8", "replace")
                if all(p in present for p in pieces[words]) or (block.id, value) in reported:
                    continue
                reported.add((block.id, value))
                self.violate(invariant, f"block {block.id!r} quotes {value!r}, {where}: "
                             "a quotation in curly quotes or other marks is grounded as a quote is",
                             block=block.id, key="quote", value=value,
                             evidence={"span": [start, start + len(words)], "text": value, "change": "quote_ungrounded"})

    def _marked_quotations(self, j: int) -> tuple[list[tuple[int, bytes]], bool, list[bytes]]:
        """Post block ``j``'s quotations of two words or more in :data:`_MARKED_QUOTATION`'s
        marks (start, words), whether it is read against its own pre version (a block rewritten
        under its id, not derived), and the texts it is read against (that version, else its
        sources: handles, ``derived_from``, markers); no texts when it quotes nothing."""
        block = self.post.blocks[j]
        data = self.post_facts[j].table.data
        found = [(m.start(g), m.group(g)) for m in _MARKED_QUOTATION.finditer(data)
                 if len(_SENTENCE_WORD.findall(m.group(g := m.lastindex or 1).lower())) >= 2]
        if not found:
            return found, False, []
        pre_id = self.pre.id_pos()
        if not block.derived and block.id in pre_id:
            return found, True, [self.pre.texts[pre_id[block.id]].encode("utf-8", "surrogatepass")]
        source_facts = self.gate.source_facts
        return found, False, [x.table.data for h in dict.fromkeys(block.provenance + self.cited(j))
                              if (x := source_facts(h)) is not None]

    def _check_marked_quotation_polarity(self, blocks: list[int], reported: set[tuple[str, Any]]) -> None:
        """:meth:`_check_quoted_polarity` of the quotations in guillemets and corner brackets
        (``«make deploy»``, ``「make deploy」``), which the grammar reads as no quotation: a
        summary of ``Run "make deploy"`` saying ``Never run «make deploy»`` passed (red team
        117, F22). ``blocks``: the derived, new or reworded blocks holding such a mark; a block
        rewritten under its id (not derived, its id in pre) is read against its pre version."""
        post_blocks = self.post.blocks
        for j in blocks:
            block = post_blocks[j]
            data = self.post_facts[j].table.data
            found, _, sources = self._marked_quotations(j)
            if not found:
                continue
            polarities = _quotation_polarities(sources, {w for _, words in found for w in (words, _one_blank(words))})
            # (a quotation whose reading window is that of one read already reads as it did: a
            # summary repeating "run «a b» " 4000 times read each, 0.2 ms apiece: red team 119,
            # F17; :func:`_reading_window`)
            read: dict[tuple[int, bytes], bool] = {}
            reaching = [m.start() for m in _WINDOW_REACHES.finditer(data)] if len(found) > 1 else None
            for start, words in found:
                states = polarities[words] or polarities[_one_blank(words)]
                if len(states) != 1:
                    continue
                key = None if reaching is None else _reading_window(data, start, reaching)
                if key is None:
                    negated = _clause_negated(data, start)
                elif (negated := read.get(key)) is None:
                    negated = read[key] = _clause_negated(data, start)
                value = words.decode("utf-8", "replace")
                if negated is False and negated in states and _blocked_of_a_run(data, start, words, sources):
                    negated = True  # (a run its sources say to do, read "blocked" of a thing that waits)
                if negated in states or (block.id, value) in reported:
                    continue
                reported.add((block.id, value))
                self.violate("I1", f"block {block.id!r} quotes {value!r} "
                             f"{'under a negation its sources do not put before it' if negated else 'without the negation its sources put before it'}"
                             ": the quotation says the opposite of what its sources say",
                             block=block.id, key="quote", value=value,
                             evidence={"span": [start, start + len(words)], "text": value,
                                       "change": "negation_added" if negated else "negation_dropped"})

    def _check_pins_in_context(self) -> None:
        """A derived block's pin (``lodash@4.17.20``, ``requests==2.31.0``) whose name one of its
        sources pins to two versions or more stands beside the words the source puts beside
        that version, not another's: the key of a pin is its name only, so a summary of
        ``lodash@4.17.21 in prod and lodash@4.17.20 in dev`` saying ``lodash@4.17.20 in prod``,
        or swapping the two, was grounded pair by pair and accepted (red team 115, F02).
        Refused when the pin's context words (:func:`_pin_context`) hold a word that only
        another version's occurrences in that source stand beside, and none that only this
        version's do. Read only for a derived block holding ``@`` or ``==``, for the names its
        pins set, and for a name its source pins to two versions at most
        ``_PIN_CONTEXT_ROWS`` times (a name set more often is a table's column: left be)."""
        post_blocks = self.post.blocks
        post_facts = self.post_facts
        gate = self.gate
        # (no pin without an @ or ==, nor a version written after a name and a blank: three
        # searches of a derived block's bytes, most blocks)
        asked = [j for j in set(self.changed + self.restated) if post_blocks[j].derived
                 and (b"@" in (d := post_facts[j].table.data) or b"==" in d or _PROSE_PIN_HINT.search(d))]
        if not asked:
            return
        reported = {(v.block, v.value) for v in self.violations if v.invariant == "I1"}
        for j in sorted(asked):
            block = post_blocks[j]
            f = post_facts[j]
            t = f.table
            glued = _prose_pins_glued(t.data) if _PROSE_PIN_HINT.search(t.data) else t.data
            if glued != t.data:
                # a pin in prose, "lodash 4.17.21", read as "lodash@4.17.21" (the blank its '@': the
                # same offsets; red team 120, F20): the block's text re-read so, for this rule only
                t = extract(glued)
                rows = np.flatnonzero(t.kind == _KIND_KV)
            else:
                rows, _ = f.kv_rows()
            pins = [r for r in rows.tolist() if _is_pin_row(t, r)]
            if not pins:
                continue
            keys = SortedFingerprints(unique_counts(np.ascontiguousarray(t.fp_key[pins]))[0])
            names = {bytes(t.data[int(t.key_start[r]):int(t.key_end[r])]) for r in pins}
            pin_keys = set(map(tuple, t.fp_key[pins].tolist()))
            for h in dict.fromkeys(block.provenance + self.cited(j)):
                x = gate.source_facts(h)
                if x is None:
                    continue
                found = x.kv_rows_keyed(keys)
                st = x.table
                # (and the pins a source writes as a kv line's value, "prod: lodash@4.17.20",
                # which the grammar reads as prod's value: red team 118, F19)
                inner = _pins_in_values(st, found, names, pin_keys)
                if found.size + len(inner) < 2:
                    continue
                by_key: dict[tuple[int, int], list[Any]] = {}
                for r, key in zip(found.tolist(), map(tuple, st.fp_key[found].tolist())):
                    by_key.setdefault(key, []).append(r)
                for key, fact, words in inner:
                    by_key.setdefault(key, []).append((fact, words))
                for key, occ in by_key.items():
                    if len(occ) > _PIN_CONTEXT_ROWS:
                        continue
                    words_of: dict[tuple[int, int], set[bytes]] = {}
                    for r in occ:
                        if isinstance(r, tuple):
                            words_of.setdefault(r[0], set()).update(r[1])
                            continue
                        fact = tuple(st.fp_fact[r].tolist())
                        words_of.setdefault(fact, set()).update(_pin_context(st, r))
                    if len(words_of) < 2:
                        continue  # (one version: nothing to trade)
                    mine_only = {fact: words - set().union(*(w for g, w in words_of.items() if g != fact))
                                 for fact, words in words_of.items()}
                    mine = [r for r in pins if tuple(t.fp_key[r].tolist()) == key]
                    paired = _pins_paired(t, mine, set().union(*mine_only.values()))
                    for r in mine:
                        fact = tuple(t.fp_fact[r].tolist())
                        if fact not in words_of:
                            continue  # (a version the source does not pin: I1's to judge)
                        said = {paired[r]} if r in paired else _pin_context(t, r)
                        if said & mine_only[fact]:
                            continue
                        elsewhere = [w for g, ws in mine_only.items() if g != fact for w in sorted(said & ws)]
                        span = t.span(r)
                        if not elsewhere or (block.id, span.value) in reported:
                            continue
                        reported.add((block.id, span.value))
                        written = post_facts[j].table.data[span.start:span.end].decode("utf-8", "replace")
                        self.violate("I1", f"block {block.id!r} pins {written!r} beside {elsewhere[0].decode()!r}, "
                                     f"which {h!r} says of another version of {span.key!r}: a pin keeps the "
                                     "version its source gives it there", block=block.id, handle=h, key=span.key,
                                     value=span.value, evidence={"span": [span.start, span.end], "text": written,
                                                                 "word": elsewhere[0].decode(),
                                                                 "change": "pinned_elsewhere"})

    def _check_requirements_with_extras(self) -> None:
        """A changed block's pip requirement (``requests[socks]==2.31.0``, ``django >= 3.2``) is
        one its pre version or its sources state, read as pip reads it. The grammar reads no
        fact of a requirement with extras but the version, so ``requests[socks]==2.31.0`` ->
        ``requests[security]==2.31.0`` or ``requests[socks]>=2.31.0`` was accepted as a rewrite
        and as a summary (red team 115, F08); nor the comparison of one written with blanks
        (``django >= 3.2`` -> ``django < 3.2``), as a kv line's value (``install_requires =
        django>=3.2``, ``python_requires = >=3.8``), in metadata form (``Django (>=3.2,<4.2)``),
        in an environment marker (``python_version<'3.9'``), or with its extras after a blank or
        escaped (``requests [socks]``, ``requests\\[socks\\]``) (red team 117, F14, F10).
        Compared as pip compares them (:func:`_requirements`: the name by PEP 503, so
        ``Requests`` and ``requests`` are one; the extras as a set, the same way; the specifier
        set as a set of comparisons and versions). A requirement with extras is always read; one
        without only when its pre version or a source states a requirement of that name (so a
        summary's ``errors > 5`` of a source saying ``7 errors`` is left to I1's facts). A lossy
        edit may name fewer clauses (:func:`_requirement_stated`). Reported as I2 for a lossless
        operator, I1 for a lossy one. Only a changed block holding a comparison before a digit
        is read, and each source at most once a check."""
        post_blocks = self.post.blocks
        post_texts = self.post.texts
        # (a block only re-spaced under its id states the requirements it stated, blanks being
        # nothing to pip: not read again; the rewrite benchmark's reformatted outputs cost 2 ms)
        pre_id = self.pre.id_pos()
        respaced = {j for j in self.changed if post_blocks[j].id in pre_id}.difference(
            j for _, j in self._reworded_in_place())
        texts = {j: _ascii_comparisons(post_texts[j].encode()) for j in sorted(set(self.changed + self.restated))
                 if j not in respaced}
        asked = [j for j, t in texts.items() if _REQUIREMENT_HINT.search(t)]
        if len(asked) < len(texts):
            # (an environment marker's string comparison, red team 118 F22: the blocks left asked
            # as one text first, most edits' none)
            hit = set(asked)
            rest = [j for j in texts if j not in hit]
            if _may_hold_markers(joined := b"\n".join([texts[j] for j in rest])) or _may_hold_table_markers(joined):
                asked = sorted([*asked, *(j for j in rest if _may_hold_markers(texts[j]) or _may_hold_table_markers(texts[j]))])
        if not asked:
            return
        gate = self.gate
        read: dict[str, frozenset[tuple[bytes, ...]]] = {}
        lossy = self.edit.operator in LOSSY_OPERATORS
        invariant = "I1" if lossy else "I2"
        # (each text read once a check, however many blocks and sources hold it: a summary
        # restating its source verbatim read it three times, red team 118 F16)
        by_text: dict[bytes, dict[tuple[bytes, ...], str]] = {}

        def requirements_of(text: bytes) -> dict[tuple[bytes, ...], str]:
            found = by_text.get(text)
            if found is None:
                found = by_text[text] = _requirements(text)
            return found

        # (a requirement with its environment marker, red team 120 F05/F08: read the same way)
        marked_by_text: dict[bytes, dict[Any, str]] = {}
        marked_read: dict[str, frozenset[Any]] = {}

        def marked_of(text: bytes) -> dict[Any, str]:
            found = marked_by_text.get(text)
            if found is None:
                found = marked_by_text[text] = _marked_requirements_of(text)
            return found

        for j in asked:
            block = post_blocks[j]
            post_text = post_texts[j].encode()
            said = requirements_of(post_text)
            said_marked = marked_of(post_text)
            if not said and not said_marked:
                continue
            known: set[tuple[bytes, ...]] = set()
            known_marked: set[Any] = set()
            m = self.match[j] if j < len(self.match) else None
            if m is not None:
                known.update(requirements_of(self.pre.texts[m].encode()))
                if said_marked:
                    known_marked.update(marked_of(self.pre.texts[m].encode()))
            for h in dict.fromkeys(block.provenance + self.cited(j)):
                found = read.get(h)
                if found is None:
                    x = gate.source_facts(h)
                    found = read[h] = frozenset() if x is None else frozenset(requirements_of(x.table.data))
                known |= found
                if said_marked:
                    found_marked = marked_read.get(h)
                    if found_marked is None:
                        x = gate.source_facts(h)
                        found_marked = marked_read[h] = frozenset() if x is None else frozenset(
                            marked_of(x.table.data))
                    known_marked |= found_marked
            names = {k[0] for k in known}
            refused = False
            for req, text in said.items():
                if not req[1] and req[0] not in names:
                    continue  # (no extras, and a name no source states a requirement of: the facts' to judge)
                if _requirement_stated(req, known, lossy):
                    continue
                self.violate(invariant, f"block {block.id!r} states the requirement {text!r}, which neither its "
                             "pre version nor its sources state (name, extras, comparisons and versions read as "
                             "pip reads them)", block=block.id, key=req[0].decode(), value=text,
                             evidence={"text": text, "change": "requirement_changed"})
                refused = True
                break
            if refused or not said_marked:
                continue
            names |= {k[0] for k in known_marked}
            for req, text in said_marked.items():
                if req[0] not in names or _marked_requirement_stated(req, known_marked, lossy):
                    continue
                self.violate(invariant, f"block {block.id!r} states the requirement {text!r}, which neither its "
                             "pre version nor its sources state with that environment marker (the marker read "
                             "whole, as PEP 508 reads it, with its requirement's name, extras and comparisons)",
                             block=block.id, key=req[0].decode(), value=text,
                             evidence={"text": text, "change": "requirement_changed", "marker": req[3].decode(
                                 "utf-8", "replace")})
                break

    def _check_units_grounded(self) -> None:
        """A new or changed block's figure with a unit after it (``30 minutes``) keeps the unit
        its sources give that figure: the number alone is a fact, so a summary of ``Wait 30
        seconds`` saying ``Wait 30 minutes`` was grounded and accepted (red team 115, F07), and
        so was a rewrite that changed the unit and moved the statement, repeated the figure or
        merged two blocks (red team 116, F01). A block's sources are those its provenance and
        markers name, and, for a block rewritten under its id, its pre version's text. Refused
        when they write the figure with a unit, and never with this one (a unit written
        another way is the same: ``seconds`` / ``s``); a figure they write with no unit leaves
        it be. A figure is compared as a number (``1,000`` is ``1000``: F02) and its unit read
        as a reader sees it (:func:`_unit_at`: F03-F05). Each source is read once a figure a
        check. A block rewritten under its id changed a value (I2); a derived or new block
        states one its sources do not ground (I1: red team 116, F14)."""
        post_blocks = self.post.blocks
        gate = self.gate
        asked = sorted(set(self.changed + self.restated))
        if not asked:
            return
        # (one native pass over the blocks' texts joined: a block with no digit that a unit
        # may follow states no figure with a unit). The texts are read with their digits of
        # other scripts as ASCII ones (grammar v13: "Wait ３０ minutes" is the figure 30), the
        # sources too: a figure is compared as the number it is, whatever digits write it
        texts = [_as_read(fold_digits(self.post_facts[j].table.data)) for j in asked]
        hits = _unit_leads(b"\n".join(texts))
        if not hits:
            return
        starts = list(itertools.accumulate((len(t) + 1 for t in texts[:-1]), initial=0))
        by_block: dict[int, list[int]] = {}
        for p in hits:
            o = bisect.bisect_right(starts, p) - 1
            by_block.setdefault(o, []).append(p - starts[o])
        reported = {(v.block, v.value) for v in self.violations if v.invariant in ("I1", "I2")}
        pre_id = self.pre.id_pos()
        # each block's figures with units and its sources' texts, then each source read once
        # for all the figures asked of it: a few searched for one by one, more read off one
        # pass over the source (red team 116, F16: one search a figure was quadratic, 32,000
        # figures in a summary of a 245 KB source took a minute)
        stating: list[tuple[Block, dict[bytes, set[bytes]], list[tuple[str, bytes]], bool, bytes]] = []
        asked_of: dict[str, set[bytes]] = {}
        for o, at in by_block.items():
            j = asked[o]
            block = post_blocks[j]
            stated = _figures_with_units(texts[o], at)
            if not stated:
                continue
            sources = [(h, x.table.data) for h in dict.fromkeys(block.provenance + self.cited(j))
                       if (x := gate.source_facts(h)) is not None]
            if (i := pre_id.get(block.id)) is not None:
                sources.append((f"\x00pre:{i}", self.pre_facts[i].table.data))
            stating.append((block, stated, sources, i is not None, texts[o]))
            for h, _ in sources:
                asked_of.setdefault(h, set()).update(stated)
        read: dict[str, dict[bytes, set[bytes]]] = {}  # source -> figure -> its units there
        as_read: dict[str, bytes] = {}
        # source -> how many figures were searched for in its keys, or (past _FEW_FIGURES) every
        # figure its keys give a unit -> those units
        keyed: dict[str, int | dict[bytes, set[bytes]]] = {}
        headed: dict[str, dict[bytes, set[bytes]]] = {}  # source -> figure -> its tables' header units
        counted: dict[str, dict[bytes, set[bytes]]] = {}  # block -> its counts in times -> their words
        bare: dict[str, dict[bytes, set[tuple[bytes, bool]]]] = {}  # source -> its keyed bare figures
        glued_x: dict[str, dict[bytes, set[bytes | None]]] = {}  # source -> its glued figures' units
        for block, stated, sources, rewritten, own_text in stating:
            for h, text in sources:
                if h not in read:
                    figures = asked_of[h]
                    text = as_read[h] = _as_read(fold_digits(text))
                    read[h] = (_figures_with_units(text, _unit_leads(text)) if len(figures) > _FEW_FIGURES
                               else {f: _units_of_figure(text, f) for f in figures})
            for figure, names in stated.items():
                sources_say: set[bytes] = set()
                for h, _ in sources:
                    sources_say |= read[h].get(figure, set())
                if not _units_given(names, sources_say):
                    # and the unit a key or a header gives the figure ("timeout_ms": 300,
                    # "timeout (seconds): 30"), asked only of a figure not grounded with its unit
                    # (a few figures searched for one by one, more read off one pass: F16's quadratic case)
                    # (a figure of many occurrences too: F23)
                    for h, _ in sources:
                        found = keyed.get(h)
                        if found is None or type(found) is int and found < _FEW_FIGURES:
                            units = _key_units_of_figure(as_read[h], figure)
                            if units is not None:
                                keyed[h] = (found or 0) + 1
                                sources_say |= units
                                continue
                        if type(found) is not dict:
                            found = keyed[h] = _key_units_of_figures(as_read[h])
                        sources_say |= found.get(figure, set())
                    # and a markdown table's header ("| service | timeout (s) |": F14), each
                    # source's tables read once
                    for h, _ in sources:
                        columns = headed.get(h)
                        if columns is None:
                            columns = headed[h] = _header_units(as_read[h]) if b"|" in as_read[h] and b"-" in as_read[h] else {}
                            if b"|" in as_read[h]:
                                # (and a key-value row's key: "| delay(ms) | 300 |", red team 121, F08)
                                for figure_in_row, units in _row_key_units(as_read[h]).items():
                                    columns.setdefault(figure_in_row, set()).update(units)
                        sources_say |= columns.get(figure, set())
                    if _KEY_MIN in sources_say:
                        # a key's "min": minutes against a period stated, else a minimum (F06)
                        sources_say.discard(_KEY_MIN)
                        if any(u in _PERIODS for u in names):
                            sources_say.add(b"min")
                if sources_say and any(u.startswith(b"times") for u in names) and not _units_given(names, sources_say):
                    # and the count a glued "x" states ("retried 3x and took 3 s": times beside
                    # seconds, red team 123, F16), each source read once
                    for h, _ in sources:
                        if (glued := glued_x.get(h)) is None:
                            glued = glued_x[h] = _respelled_units(as_read[h]) if b"x" in as_read[h].lower() else {}
                        sources_say |= {u for u in glued.get(figure, ()) if u is not None and u.startswith(b"times")}
                if not sources_say or _units_given(names, sources_say) or (block.id, figure.decode()) in reported:
                    continue
                if all(u == b"times" or _units_given((u,), sources_say) for u in names) and (
                        words := (counted[block.id] if block.id in counted
                                  else counted.setdefault(block.id, _counted_words(own_text))).get(figure)):
                    # a count ("3 times") of a figure a source writes bare as the value of a key
                    # naming a count of repeats ("retries=3", "backoffLimit: 3") or of the key the
                    # block's count qualifies ("polls=3": "Polls 3 times") is that figure, whatever
                    # unit another mention of it has ("backoff 3 s": red team 119, F05);
                    # "workers=5", "retry_delay=5" ground no "Retries 5 times" (red team 120, F02;
                    # red team 121, F01, F02, F14). Each text read once (F11)
                    if any(is_count or (head in words or _verb_stem(head) in {_verb_stem(w) for w in words})
                           and head not in _DURATION_KEYS and head not in _UNITS
                           for h, _ in sources
                           for head, is_count in (bare[h] if h in bare
                                                  else bare.setdefault(h, _bare_counts(as_read[h]))).get(figure, ())):
                        continue
                unit = min(u for u in names if not _units_given((u,), sources_say)).decode()
                invariant = "I2" if rewritten and not block.derived else "I1"
                self.violate(invariant, f"block {block.id!r} states {figure.decode()!r} in {unit!r}, but its sources "
                             f"give it in {sorted(u.decode() for u in sources_say)} only: a figure keeps its unit",
                             block=block.id, handle=None if block.derived else (block.handles or (None,))[0],
                             key="number", value=figure.decode(),
                             evidence={"unit": unit, "sources_unit": sorted(u.decode() for u in sources_say),
                                       "change": "unit_changed"})
                break

    def _ground_in_resource_names(self, requests: list[tuple[Any, int, list[str], _Facts | None]],
                                  tables: list[FactTable], owner: np.ndarray, row: np.ndarray
                                  ) -> tuple[np.ndarray, np.ndarray]:
        """The rows left over once the reads a block comes from name their resource: a read
        file's tool output holds its contents, not its path, which the read's ``resource``
        (``file:src/client.py``) says; a summary of it may name the file (red team 11, x10).
        Returns the (owner, row) pairs still ungrounded."""
        pre = self.pre
        holders, blocks = pre.by_provenance(), pre.blocks
        sets: list[SortedFingerprints] = []
        pages: list[tuple[str, str | None] | None] = []  # each tag's page ("#L1-200": 1 to 200)
        index: dict[str, int] = {}
        groups: list[list[int]] = []
        for _, _, handles, _ in requests:
            group = []
            for h in handles:
                for i in holders.get(h, ()):
                    resource = blocks[i].resource
                    if resource is None or blocks[i].derived:
                        continue
                    k = index.get(resource)
                    if k is None:
                        name = resource.partition(":")[2] or resource
                        inner = extract(b"x " + name.encode("utf-8", "surrogatepass") + b"\n")
                        k = index[resource] = len(sets)
                        pages.append(_page_numbers(resource))
                        sets.append(SortedFingerprints(unique_counts(np.concatenate([inner.fp_value, inner.fp_fact]))[0]))
                    if k not in group:
                        group.append(k)
            groups.append(group)
        if not sets:
            return owner, row
        starts = np.searchsorted(owner, np.arange(len(tables) + 1))
        values = np.ascontiguousarray(np.concatenate([tables[t].fp_value[row[starts[t]:starts[t + 1]]]
                                                      for t in range(len(tables))]))
        # a name the tag gives: a path, a URL, an identifier; never a number (a page range
        # "#L1-200" or a search "grep:retries=5" grounds no count: red team 14, p06)
        kinds = np.concatenate([tables[t].kind[row[starts[t]:starts[t + 1]]] for t in range(len(tables))])
        named = ~absent_from_all(values, sets, groups=groups, query_group=owner) & np.isin(kinds, _NAME_KINDS)
        # ...but the line range of the read's page ("lines 1-200" of "file:conf/app.ini#L1-200",
        # the tag docs/gate.md asks paged reads to carry) is the page's name (red team 14, p09):
        # both ends, as a range of lines, never one of its numbers as a count (red team 15, f07)
        ranges: dict[int, list[tuple[int, int, tuple[str, str | None]]]] = {}
        for n in np.flatnonzero(((kinds == _KIND_NUMBER) | (kinds == _KIND_IDENTIFIER)) & ~named).tolist():
            t, r = int(owner[n]), int(row[n])
            if not any(pages[k] for k in groups[t]):
                continue
            found = ranges.get(t)
            if found is None:
                found = ranges[t] = [(m.start(), m.end(), (m.group(1).decode(), m.group(2) and m.group(2).decode()))
                                     for m in _LINE_RANGE.finditer(tables[t].data)]
            start, end = int(tables[t].start[r]), int(tables[t].end[r])
            own = {pages[k] for k in groups[t]}
            named[n] = any(a <= start and end <= b and page in own for a, b, page in found)
        if named.any():
            self._by_resource_name.update(requests[t][0] for t in np.unique(owner[named]).tolist())
            owner, row = owner[~named], row[~named]
        return owner, row

    @staticmethod
    def _kv_rows(tables: list[FactTable], owner: np.ndarray, row: np.ndarray, starts: np.ndarray) -> np.ndarray:
        """Which of the (owner, row) facts left over are key=value facts."""
        return np.concatenate([tables[t].kind[row[starts[t]:starts[t + 1]]] == _KIND_KV
                               for t in range(len(tables))]) if owner.size else np.zeros(0, dtype=np.bool_)

    def _summarized_only(self, block: Block) -> int | None:
        """A pre derived block whose derived_from holds one of ``block``'s handles that no pre
        primary block carries (pre held that source only as a summary)."""
        holders, pre_blocks = self.pre.by_provenance(), self.pre.blocks
        for h in block.handles:
            held = holders.get(h, ())
            if held and all(pre_blocks[i].derived for i in held):
                return held[0]
        return None

    def _is_excerpt_of_source(self, j: int) -> bool:
        """Is post block ``j``'s text a byte-exact excerpt of one of its sources, cut at token
        boundaries ("paused at 4" is no excerpt of "paused at 45%": red team 14, p03)?"""
        known = [h for h in self.edit.post[j].handles if h in self.gate._handle_digest]  # (I3 looked them up)
        if not known:
            return True  # no source to compare with: I3 reports each handle
        data = self.pending.get(self.post.digests[j]) or self.edit.post[j].text.encode("utf-8")
        return any(_bounded_in(data, self.gate.source_bytes(h)) for h in known)

    def _source_put_back(self, j: int, pre_block: Block) -> bool:
        """Is post block ``j`` a summary's source put back in its place: a tool block whose
        text is exactly one of its sources? (As a user or system block it would make a tool's
        output speak for them in two edits: red team 13, q05.)"""
        return pre_block.derived and self.edit.post[j].role == "tool" and self._is_one_source(j)

    def _is_one_source(self, j: int) -> bool:
        """Is post block ``j``'s text exactly the content of one of its handles (a primary
        block that is its source: a summary replaced by the source it summarized)?"""
        return bool(self._sources_it_is(j))

    def _sources_it_is(self, j: int) -> list[str]:
        """The handles of post block ``j`` whose stored content is exactly its text."""
        digest = self.post.digests[j]
        found = []
        for h in self.edit.post[j].handles:
            stored = self.gate.handle_digest(h)
            if stored is not None and _digest_key(stored) == digest:
                found.append(h)
        return found

    def _restored_citations(self, explicit: set[int], removed: list[int]) -> Counter[str]:
        """The markers (by name as written) of removed summaries that cite a source the edit
        puts back whole as a tool block: the block IS the cited text, the strongest citation
        there is, so I5 counts those markers as kept (red team 14, p08: a summary replaced by
        its source lost its markers of that source and failed I5). ``removed``: the removed
        blocks that hold a marker, in the order of ``self.removed``."""
        restored: Counter[str] = Counter()
        pre_blocks, pre_facts, post_blocks = self.pre.blocks, self.pre_facts, self.edit.post
        summaries = [i for i in removed if i not in explicit and pre_blocks[i].derived]
        summarized = {h for i in summaries for h in pre_blocks[i].derived_from}
        if not summarized:
            return restored
        back = {h for j in self.changed
                if post_blocks[j].role == "tool" and not post_blocks[j].derived and not summarized.isdisjoint(post_blocks[j].handles)
                for h in self._sources_it_is(j)}
        for i in summaries:
            block = pre_blocks[i]
            if back.isdisjoint(block.derived_from):
                continue
            for name in pre_facts[i].cited_names():
                found = self._targets(name)
                if len(found) == 1 and found[0] in back and found[0] in block.derived_from:
                    restored[name] += 1
        return restored

    @staticmethod
    def _tag_dropped(block: Block, pre_block: Block) -> tuple[str, dict[str, Any]]:
        """The I1 violation of a derived block made primary without being its source."""
        return ((f"block {block.id!r} drops the derived tag of {pre_block.id!r} (derived from "
                 f"{list(pre_block.derived_from)}): a summary does not become source text; a primary block's text is "
                 "one of its sources"), {"block": block.id, "key": "derived", "value": "false",
                                       "evidence": {"pre_block": pre_block.id, "derived_from": list(pre_block.derived_from)}})

    def _ungrounded_rows(self, requests: list[tuple[Any, int, list[str], _Facts | None]]) -> list[tuple[int, ...]]:
        """For each request ``(key, j, handles, own_pre)``: the fact rows of post block ``j``
        that occur in none of the sources ``handles`` (and ``own_pre``, the facts of the block's
        pre version, when not None). A kv fact must occur there as the same (key, value) pair,
        any other fact as a value (or a kv key) those texts assert, or else literally, at token
        boundaries, in the bytes of one of the sources. All blocks at once: one native pass
        that looks every fact up and searches the rest literally, then a look-up of the
        identifiers left over as keys."""
        gate = self.gate
        source_facts, cached, key_of = gate.source_facts, gate._facts.get, gate._handle_key.get
        texts: list[_Facts] = []  # every text that grounds something, by position
        by_handle: dict[str, int] = {}  # each source is fetched once per check
        by_pre: dict[int, int] = {}
        groups: list[list[int]] = []  # per request: the texts that ground it
        haystack_groups: list[list[int]] = []  # per request: the texts searched literally
        tables: list[FactTable] = []
        post_facts = self.post_facts
        for _, j, handles, own_pre in requests:
            group = []
            for h in handles:
                k = by_handle.get(h)
                if k is None:
                    # a source met before is one dict look-up from its facts
                    facts = cached(key_of(h)) or source_facts(h)
                    k = by_handle[h] = -1 if facts is None else len(texts)
                    if facts is not None:
                        texts.append(facts)
                if k >= 0:
                    group.append(k)
            haystack_groups.append(group)
            if own_pre is not None:
                k = by_pre.get(id(own_pre))
                if k is None:
                    k = by_pre[id(own_pre)] = len(texts)
                    texts.append(own_pre)
                group = [*group, k]
            groups.append(group)
            tables.append(post_facts[j].table)
        # a source's fact table holds exactly the source's bytes (it was scanned from them);
        # markers are cited, not grounded; a kv fact matches as its (key, value) pair, any other
        # as its value, else literally (a quote by what it quotes)
        # "fact [src:NAME]": a row is looked for first in the source its next marker cites
        hints = {name: k for name, h in self.cited_names.items() if (k := by_handle.get(h, -1)) >= 0}
        owner, row, sets = self._ground(tables, texts, groups, haystack_groups, [texts[k] for k in by_pre.values()],
                                        hints)
        # rows come ordered by table, so each table's are one slice
        starts = np.searchsorted(owner, np.arange(len(tables) + 1))
        if owner.size:
            # an identifier may name a key a source sets where the key does not stand at token
            # boundaries ("max_retries" for "opts:max_retries=5"): the identifiers left over are
            # looked up as keys
            kinds = np.concatenate([tables[t].kind[row[starts[t]:starts[t + 1]]] for t in np.unique(owner).tolist()])
            ident = np.flatnonzero(kinds == _KIND_IDENTIFIER)
            if ident.size:
                i_owner = owner[ident]
                keys = [normalize_value(int(t.value_kind[r]), t.data[int(t.value_start[r]):int(t.value_end[r])])
                        for t, r in zip(map(tables.__getitem__, i_owner.tolist()), row[ident].tolist())]
                # (a wide group in the union of its sets, as _ground looks its rows up)
                key_sets, key_groups = _group_unions(sets, groups, np.bincount(i_owner, minlength=len(tables)).tolist())
                restated = ~absent_from_all(fingerprint_kv_keys(keys), key_sets, groups=key_groups,
                                            query_group=i_owner)
                if restated.any():
                    keep = np.ones(owner.size, dtype=np.bool_)
                    keep[ident[restated]] = False
                    owner, row = owner[keep], row[keep]
                    starts = np.searchsorted(owner, np.arange(len(tables) + 1))
        if owner.size:
            # a value restated verbatim from an unquoted kv line ("due 2026-12-01" of "due:
            # 2026-12-01"): its pieces are looked up in what the sources' kv keys and values
            # say read as prose (only the texts that ground a block with a fact left over)
            needed = {k for t in np.unique(owner).tolist() for k in groups[t]}
            prose = [x.kv_prose_set() if k in needed else _NO_FINGERPRINTS for k, x in enumerate(texts)]
            values = np.ascontiguousarray(np.concatenate([tables[t].fp_value[row[starts[t]:starts[t + 1]]]
                                                          for t in range(len(tables))]))
            # a key=value fact is grounded as its pair or not at all: "retries=5" is no piece
            # of "workers=5" (red team 12, z05)
            prose_sets, prose_groups = _group_unions(prose, groups, np.bincount(owner, minlength=len(tables)).tolist())
            restated = ~absent_from_all(values, prose_sets, groups=prose_groups, query_group=owner) & ~self._kv_rows(
                tables, owner, row, starts)
            if restated.any():
                owner, row = owner[~restated], row[~restated]
                starts = np.searchsorted(owner, np.arange(len(tables) + 1))
        if owner.size:
            owner, row = self._ground_in_resource_names(requests, tables, owner, row)
            starts = np.searchsorted(owner, np.arange(len(tables) + 1))
        if owner.size:
            owner, row = _ground_nested_keys(tables, texts, groups, owner, row)
            starts = np.searchsorted(owner, np.arange(len(tables) + 1))
        # the looser readings honest summaries need, asked in Python of the few rows left
        # (docs/gate.md, I1; stop 39): the strings a JSON source encodes, a block's own handle's
        # name, a name its pre version holds, path:line pieces, a grounded fact in backticks, a
        # quotation across its source's line break
        sources = [[texts[k] for k in group] for group in haystack_groups]
        stages = (lambda o, r: self._ground_in_decoded_json(tables, texts, haystack_groups, o, r),
                  lambda o, r: _ground_own_handle_names(tables, requests, o, r),
                  lambda o, r: _ground_names_in_own_pre(tables, requests, o, r),
                  lambda o, r: _ground_reflowed_in_own_pre(tables, requests, o, r),
                  lambda o, r: _ground_denials_kept(tables, sources, requests, o, r),
                  lambda o, r: _ground_in_path_lines(tables, sources, o, r, self.gate.read_facts),
                  lambda o, r: _ground_in_url_parts(tables, sources, o, r, self.gate.read_facts),
                  lambda o, r: _ground_pins_in_prose(tables, sources, o, r, self.gate.read_facts),
                  lambda o, r: _ground_specifier_clauses(tables, sources, o, r),
                  lambda o, r: _ground_same_requirements(tables, sources, requests, o, r,
                                                         self.edit.operator in LOSSY_OPERATORS),
                  lambda o, r: _ground_quoted_facts(tables, sources, o, r),
                  lambda o, r: _ground_units_respelled(tables, sources, o, r),
                  lambda o, r: _ground_across_no_break_spaces(tables, sources, o, r),
                  lambda o, r: _ground_wrapped_quotes(tables, [[x.table.data for x in group] + (
                      [] if own_pre is None else [own_pre.table.data]) for group, (*_, own_pre) in zip(
                      sources, requests)], o, r))
        for stage in stages:
            if not owner.size:
                break
            owner, row = stage(owner, row)
        starts = np.searchsorted(owner, np.arange(len(tables) + 1))
        bounds, rows = starts.tolist(), row.tolist()
        out = [tuple(rows[bounds[t]:bounds[t + 1]]) for t in range(len(tables))]
        # "no one objected", "one of the tests", "the one that failed": a pronoun, not a count
        # (red team 11, x11: consistent SummEdits summaries refused for it alone)
        said_keys: dict[int, set[tuple[int, int]]] = {}  # (_key_said: a text's kv keys, made once)
        for t, found in enumerate(out):
            if found:
                table = tables[t]
                out[t] = tuple(r for r in found if not (table.kind[r] == _KIND_NUMBER and _pronoun_one(
                    table.data, int(table.start[r]), int(table.end[r]))) and not (
                    _placeholder(table, r) and (table.kind[r] != _KIND_KV or _key_said(table, r, [
                        texts[k] for k in groups[t]], said_keys))))
        return out

    def _ground_in_decoded_json(self, tables: list[FactTable], texts: list[_Facts], sources: list[list[int]],
                                owner: np.ndarray, row: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The (owner, row) pairs left once each is also grounded in the strings a JSON source
        encodes (:meth:`Gate.read_facts`, as I4 reads them): a tool result stored as ``{"stdout":
        "retries=3\\ntimeout=30s\\n…"}`` glues each line's first token to the ``\\n`` before
        it, and ``"Z\\u00fcrich"`` is no ``Zürich``, so a faithful summary of the output was
        refused as asserting what its sources do not say (red team 90, F08, F01). A row left
        over is looked up, and searched for, in the decoded text of the JSON sources of its
        block (``sources[t]``: those it is searched in literally), as in a source's own; a
        block whose text is one of those sources' documents written again with other escapes
        (:func:`_same_json_documents`) is grounded whole."""
        read_facts = self.gate.read_facts
        decoded: dict[int, int] = {}  # a text's index -> its decoded text's, or -1 (no JSON)
        decoded_texts: list[_Facts] = []
        asked: list[int] = []  # the tables with a JSON source
        groups: list[list[int]] = []
        same: set[int] = set()  # the tables that are a JSON source's document written again
        parsed: dict[int, list[Any] | None] = {}  # a source's documents, parsed once a call
        for t in np.unique(owner).tolist():
            data = tables[t].data
            if _JSON_START.match(data) is not None:
                documents = _json_documents(data)
                for k in sources[t]:
                    if k not in parsed:
                        parsed[k] = _json_documents(texts[k].table.data)
                    if _same_documents(parsed[k], documents):
                        # (its escapes the source's own or not: "Jos\\u00e9" is the source's "José")
                        same.add(t)
                        break
                if t in same:
                    continue
            group = []
            for k in sources[t]:
                d = decoded.get(k)
                if d is None:
                    x = read_facts(texts[k])
                    d = decoded[k] = -1 if x is texts[k] else len(decoded_texts)
                    if d >= 0:
                        decoded_texts.append(x)
                if d >= 0:
                    group.append(d)
            if group:
                asked.append(t)
                groups.append(group)
        if not asked:
            if not same:
                return owner, row
            keep = ~np.isin(owner, list(same))
            return owner[keep], row[keep]
        asked_tables = [tables[t] for t in asked]
        looked_up, set_groups = _group_unions(_Facts.grounding_sets(decoded_texts), groups,
                                              [table.kind.shape[0] for table in asked_tables])
        left_owner, left_row = ungrounded_rows(asked_tables, looked_up, [x.table.data for x in decoded_texts],
                                               groups=set_groups, haystack_groups=groups, hints={},
                                               **_GROUNDING_KINDS)
        # a row stays when its block has no JSON source, or when their decoded text leaves it too
        still = set(zip(np.asarray(asked, dtype=np.int64)[left_owner].tolist(), left_row.tolist()))
        asked_set = set(asked)
        keep = np.fromiter(((t not in same and (t not in asked_set or (t, r) in still))
                            for t, r in zip(owner.tolist(), row.tolist())), dtype=np.bool_, count=owner.size)
        return (owner, row) if keep.all() else (owner[keep], row[keep])

    def _ground(self, tables: list[FactTable], texts: list[_Facts], groups: list[list[int]],
                haystack_groups: list[list[int]], own_pres: list[_Facts], hints: dict[str, int]
                ) -> tuple[np.ndarray, np.ndarray, list[SortedFingerprints]]:
        """``ungrounded_rows`` of ``tables`` over ``texts`` (every text's grounding set, and the
        bytes of those of ``haystack_groups``), and those sets. A text met as the source of a
        handle whose set is not made yet (a window block's text: a summarized turn, by its
        block handle) is searched literally all the same, and its set is made only if a row is
        left over: a row is grounded when SOME set of its group holds it or SOME haystack holds
        it literally (the specification, ``_factdiff_py.ungrounded_rows``), so a row grounded
        without those sets is grounded with them, and a row left over is grounded exactly when
        one of them holds it, as ``absent_from_all`` asks of it (the look-up ungrounded_rows
        makes, by its (key, value) fingerprint for a kv fact, else by its value). A summarize
        grounds its summaries in the sources their markers cite, and making the sets of the
        dozens of turns it summarized cost more than the grounding. A block's pre version
        (``own_pres``) grounds it by its set alone, never literally: made first, as before."""
        kinds = {**_GROUNDING_KINDS, "hints": hints}
        if self.gate._defer_sets:
            _Facts.grounding_sets(own_pres)
            made = [x._grounding_set for x in texts]
        else:
            made = _Facts.grounding_sets(texts)
        # (an empty set in place of each set not made holds nothing: as if left out of the groups)
        sets = [_NO_FINGERPRINTS if x is None else x for x in made]
        looked_up, set_groups = _group_unions(sets, groups, [t.kind.shape[0] for t in tables])
        owner, row = ungrounded_rows(tables, looked_up, [x.table.data for x in texts], groups=set_groups,
                                     haystack_groups=haystack_groups, **kinds)
        if None not in made or not owner.size:
            return owner, row, sets  # (every set made, or no row left to ask of the others)
        sets = _Facts.grounding_sets(texts)
        later = {k for k, x in enumerate(made) if x is None}
        starts = np.searchsorted(owner, np.arange(len(tables) + 1)).tolist()
        queries = []
        for t in np.unique(owner).tolist():
            table, rows = tables[t], row[starts[t]:starts[t + 1]]
            queries.append(np.where((table.kind[rows] == _KIND_KV)[:, None], table.fp_fact[rows], table.fp_value[rows]))
        looked_up, set_groups = _group_unions(sets, [[k for k in g if k in later] for g in groups],
                                              np.bincount(owner, minlength=len(tables)).tolist())
        absent = absent_from_all(np.ascontiguousarray(np.concatenate(queries), dtype=np.uint64), looked_up,
                                 groups=set_groups, query_group=owner)
        return owner[absent], row[absent], sets

    # I2 --------------------------------------------------------------------------------------

    def _fact_rows(self, facts: list[_Facts], indices: list[int]) -> tuple[list[np.ndarray], _RowMap]:
        """The fact fingerprints of some blocks (one array a block, read in place) and a map
        from a row's position in them joined back to its (block, row), for evidence."""
        chosen = [facts[i] for i in indices]
        return [f.fact_fps() for f in chosen], _RowMap(facts, indices, [f.n_facts for f in chosen])

    def _pre_set(self) -> FingerprintSet:
        """The fact multiset of the pre window: kept with its side, and usually derived from
        the previous check (whose post window this pre window is) by one native merge instead
        of a sort of every fact."""
        pre = self.pre
        known = pre._fact_set
        if callable(known):
            known = known()
        if known is None:
            fps = [f.fact_fps() for f in self.pre_facts]
            known = FingerprintSet(np.concatenate(fps) if fps else EMPTY)
        pre._fact_set = known
        return known

    def remember_post_set(self) -> None:
        """Leave a recipe for the post window's fact multiset (pre minus removed plus changed
        and extra copies), evaluated only if a later check starts from this post window."""
        pre, post = self.pre, self.post
        base = pre._fact_set
        if self._kept_facts and post._fact_set is None and post is not pre and not self.ws_matched:
            # the same multiset (_facts_kept_in_place), made or still a recipe
            post._fact_set = base
            return
        if post._fact_set is not None or base is None or callable(base) or post is pre or self.ws_matched:
            # a block matched after whitespace normalisation counts as its pre block here, but
            # its own text can assert other facts (a fenced line's trailing spaces are part of
            # the quote): a check starting from this window counts its blocks' own facts
            return
        removed = [self.pre_facts[i] for i in self.removed]
        added = [self.post_facts[j] for j in (*self.changed, *self.reused)]

        def build() -> FingerprintSet:
            rm = FingerprintSet(np.concatenate([f.fact_fps() for f in removed]) if removed else EMPTY)
            add = FingerprintSet(np.concatenate([f.fact_fps() for f in added]) if added else EMPTY)
            values, counts = apply_delta(base.values, base.counts, rm.values, rm.counts, add.values, add.counts)
            return FingerprintSet.of_sorted(values, counts)

        post._fact_set = build

    def _check_purity(self) -> None:
        """Lossless operators: no fact introduced; a fact dropped only with a record.

        Every fact of a changed post block and of a removed or changed pre block is placed
        among pre's distinct facts (one native look-up each, no sort): one pre lacks is
        introduced; a pre fact is gone when no changed post block has it and the removed
        blocks hold it as often as pre does (so no unchanged block still has it). When one
        record covers every removed block and they hold more rows than the kept ones, the kept
        rows are placed instead: a fact no kept block holds is gone."""
        edit = self.edit
        if edit.operator == "evict":
            for j in self.changed:
                b = edit.post[j]
                self.violate("I2", f"evict may only remove whole blocks, but block {b.id!r} is new or changed",
                             block=b.id, evidence={"operator": "evict"})
        if self.speaker_lost:
            self._check_speaker_lost()
        if self.changed:
            self._check_negations_kept()
            self._check_figures_traded()
        if not self.changed and not self.removed_content:
            self._check_handle_drops("I2")
            return
        if self._facts_kept_in_place():
            # every fact a changed block has, its pre version had, and the other way round:
            # nothing is introduced and nothing gone, which the look-ups below would only
            # confirm (a rewrite keeping its facts row for row places thousands of rows)
            self._check_rebound_values()
            self._check_handle_drops("I2")
            return
        pre_set = self._pre_set()
        index = pre_set.index()
        changed = self.changed
        content = set(self.removed_content)
        d_blocks = self.removed_content + [i for i in self.removed if i not in content]
        reserialized = self._reserialized = self._reserialized_json()
        if reserialized:
            # each such block holds its pre version's facts, written another way: as if kept
            changed = [j for j in changed if j not in reserialized]
            d_blocks = [i for i in d_blocks if i not in reserialized.values()]
        a_fps, a_row = self._fact_rows(self.post_facts, changed)
        pre_facts = self.pre_facts
        a_pos = positions(index, a_fps)
        strongest = None
        record = 0  # the one record of every removed block, when the kept blocks are placed instead
        n_removed = sum([pre_facts[i].n_facts for i in d_blocks])
        # the removed rows themselves, made only where they are placed (a prune that places its
        # kept rows instead never reads them)
        d_fps: list[np.ndarray] | None = None
        d_row: _RowMap | None = None
        if n_removed > _FEW_FACTS:
            codes = self._drop_codes(d_blocks)
            if codes[0] and n_removed > self.counts["pre"] - n_removed and codes.count(codes[0]) == len(codes):
                # every removed block evicted (or every one superseded), and fewer rows kept than
                # removed (a prune drops the long tool outputs): a fact is gone when no kept
                # block holds it (pre is the kept blocks and the removed ones), and each gone
                # fact has that one record, so the kept rows are placed, not the removed ones
                record = codes[0]
                removed_blocks = set(d_blocks)
                d_pos = positions(index, [f.fact_fps() for i, f in enumerate(pre_facts)
                                          if i not in removed_blocks])
            else:
                # placed, counted per distinct fact and marked with the strongest record of the
                # blocks that held it, in one native pass (a prune removes tens of thousands of rows)
                d_fps, d_row = self._fact_rows(pre_facts, d_blocks)
                d_pos, removed, strongest = place_rows(index, d_fps, codes)
        else:
            d_fps, d_row = self._fact_rows(pre_facts, d_blocks)
            d_pos = positions(index, d_fps)
        if d_pos.size and d_pos.min() < 0:
            # pre's fact set is derived from the previous check's; a pre fact it lacks would
            # make every count below wrong, so the check stops rather than guess
            raise RuntimeError("provgate internal error: the pre window's fact set lacks a fact of one of its blocks")
        if a_pos.size and a_pos.min() < 0:
            introduced = np.flatnonzero(a_pos < 0)
            # a quotation the rewrite only joined back onto one line is no new fact
            removed_by_id = {edit.pre[i].id: i for i in d_blocks}
            joined = self._rewrapped_quotes(
                introduced, a_row, self.post_facts, lambda ks: [[a_row(k)] for k in ks],
                lambda j: None if (i := removed_by_id.get(edit.post[j].id)) is None else pre_facts[i].table.data)
            if joined:
                introduced = np.delete(introduced, sorted(joined))
            if introduced.size:
                # a quotation whose whole inside is one fact pre holds adds only its marks (a
                # formatter writing retries=5 as `retries=5`: red team 99, F11)
                marks = [k for k, (owner, row) in enumerate(map(a_row, introduced.tolist()))
                         if self._only_marks(self.post_facts[owner].table, owner, row, a_row, a_pos, None)]
                if marks:
                    introduced = np.delete(introduced, marks)
            if introduced.size:
                # and a fact inside a kv value a formatter quoted (region: "eu-west-1" of region:
                # eu-west-1) whose pair pre holds: the value said it (red team 94, F07)
                spans: dict[Any, Any] = {}
                quoted = [k for k, (owner, row) in enumerate(map(a_row, introduced.tolist()))
                          if self._in_quoted_pair(self.post_facts[owner].table, owner, row, a_row, a_pos, None, spans)]
                if quoted:
                    introduced = np.delete(introduced, quoted)
            if introduced.size and removed_by_id:
                # and a fact that stands inside such a quotation (one a code span hid, before)
                inside = self._inside_reflowed_quotations(
                    [a_row(k) for k in introduced.tolist()], self.post_facts,
                    lambda j: None if (i := removed_by_id.get(edit.post[j].id)) is None else pre_facts[i])
                introduced = introduced[~np.array(inside, dtype=np.bool_)]
            if introduced.size and removed_by_id:
                # and a fact inside a requirement its pre version states as pip reads it, only
                # written another way ("django >= 3.2, < 4.2" -> "django>=3.2,<4.2",
                # "Requests[socks]" -> "requests[socks]": red team 118, F14, F23)
                reqs: dict[Any, Any] = {}
                same = [k for k, (owner, row) in enumerate(map(a_row, introduced.tolist()))
                        if _in_same_requirement(self.post_facts[owner].table, row, None if (
                            i := removed_by_id.get(edit.post[owner].id)) is None else pre_facts[i].table.data, reqs)]
                if same:
                    introduced = np.delete(introduced, same)
            fps = _joined(a_fps)[introduced]
            first: dict[tuple[int, int], int] = {}  # each distinct fact's first row, for the evidence
            for k, row in zip(introduced.tolist(), fps.tolist()):
                first.setdefault((row[0], row[1]), k)
            self.counts["introduced"] = len(first)
            # reported in the order they first occur (the dict's order): no second pass to sort them
            for k in self.reportable(list(first.values())):
                owner, row = a_row(k)
                b = edit.post[owner]
                span = self.post_facts[owner].table.span(row)
                self.violate("I2", f"{edit.operator} introduced {span.key}={span.value!r} in block {b.id!r}, "
                             "a fact the pre window does not have", block=b.id, key=span.key, value=span.value,
                             evidence={"span": [span.start, span.end], "text": span.text, "change": "introduced"})
        # a row inside a quoted kv value restates no pre fact: the pair says the value (its
        # quotes add nothing, :meth:`_in_quoted_pair`), and a copy of the value a formatter's
        # quotes made held the copy a sentence lost (region: eu-west-1 quoted while "Failed over
        # to eu-west-1" lost its region: red team 107, F02). A pre copy that stood inside such a
        # value is excused as dropped only while its pair is held (_account_drops)
        held_pos = self._outside_quoted_kv_values(a_pos, a_row)
        if record:
            gone_here = np.ones(len(pre_set), dtype=np.bool_)
            gone_here[d_pos] = False  # (here: the kept rows) held by a kept block
            gone_here[held_pos[held_pos >= 0]] = False  # restated by a changed block
            # nothing unaccounted, so no evidence to find: counted as _account_drops counts
            self.counts["evicted" if record == 2 else "superseded"] += int(np.count_nonzero(gone_here))
            gone = d_pos[:0]
        elif strongest is not None:
            gone_here = removed == pre_set.counts
            gone_here[held_pos[held_pos >= 0]] = False  # restated by a changed block
            gone = np.flatnonzero(gone_here)
        else:
            # a block or two (every next edit): count the few positions instead of passing
            # over every one of pre's distinct facts
            held = Counter(d_pos.tolist())
            restated = set(held_pos.tolist())
            places = sorted(held)
            gone = np.array([p for p, n in zip(places, pre_set.counts[places].tolist()) if n == held[p] and p not in restated],
                            dtype=np.int64)
        if gone.size:
            # (gone is empty where the kept rows were placed, the one way d_fps is left unmade)
            assert d_fps is not None and d_row is not None
            if strongest is None:  # a few rows, and something gone after all: place them again
                strongest = place_rows(index, d_fps, self._drop_codes(d_blocks))[2]
            self._account_drops(d_pos, d_row, gone, strongest)
        self._check_fewer_occurrences(changed, held_pos, a_row, d_pos, d_row, gone)
        self._check_rebound_values()
        self._check_handle_drops("I2")

    @staticmethod
    def _outside_quoted_kv_values(a_pos: np.ndarray, a_row: _RowMap) -> np.ndarray:
        """``a_pos`` with -1 for each row (not a kv fact) that lies inside the quoted value of a
        kv fact of its block, its marks included (:func:`_quoted_kv_values`): such a row
        restates no pre fact. One pass over the changed blocks' kinds; a block without a kv
        fact is not read further."""
        kinds = a_row.kinds()
        if not kinds.size or not np.any(kinds == _KIND_KV):
            return a_pos
        out = None
        start = 0
        for block, size in zip(a_row.indices, a_row.sizes):
            end = start + size
            if size and np.any(kinds[start:end] == _KIND_KV):
                inside = _inside_quoted_kv_values(a_row.facts[block])
                if inside is not None:
                    if out is None:
                        out = a_pos.copy()
                    out[start:end][inside] = -1
            start = end
        return a_pos if out is None else out

    def _check_fewer_occurrences(self, changed: list[int], a_pos: np.ndarray, a_row: _RowMap,
                                 d_pos: np.ndarray | None, d_row: _RowMap | None, gone: np.ndarray) -> None:
        """A block rewritten in place keeps as many occurrences of each of its facts as its pre
        version held, unless another changed block holds the ones it lost: the window-wide
        diff counts a fact as present or gone, so "1 000 000 rows" -> "1 000 rows", "3 of 3
        ready" -> "3 ready" and "Sleep 10 then 10 more seconds" -> "Sleep 10 more seconds" lost
        nothing there (red team 94, F05: accepted as lossless). An occurrence another block holds
        excuses a lost one only when it stands between the same words (:meth:`_moved_occurrences`).
        A pre version whose every source a record covers (evicted or superseded) is not held to
        it."""
        pre_id = self.pre.id_pos()
        post_blocks = self.post.blocks
        paired = []
        for j in changed:
            # (the pre block with its id, rewritten; or its text kept under another id, a copy
            # of it or a derived block holding it, and this block a new text under its id: red
            # team 103, F02, "Imported 1 000 000 rows." kept as a derived block and the block
            # saying "Imported 1 000 rows." under the old id was held to nothing)
            i = pre_id.get(post_blocks[j].id)
            if i is None:
                continue
            new_fp, old_fp = self.post_facts[j].fact_fps(), self.pre_facts[i].fact_fps()
            if _same_rows(new_fp, old_fp):
                continue
            paired.append((i, j))
        if not paired:
            return
        # waived only for a block every source of which left on the record: a record of one
        # handle of two, holding none of the lost fact, waived the rule (red team 101, F09)
        paired = [pair for pair in paired if not self._wholly_covered(pair[0])]
        if not paired or d_pos is None or d_row is None:
            return  # (none left, or every removed block under one record: the diff placed no removed row)
        # each row's place among pre's distinct facts, as the diff found it (``a_pos`` for the
        # changed blocks' rows, ``d_pos`` for the removed ones'), counted per block: another
        # changed block's count of a fact pays for no block's loss (red team 101, F04: a block
        # saying its own "1 000" once more excused another's "1 000 000" -> "1 000")
        d_at, a_at = _row_slices(d_row), _row_slices(a_row)
        kept_at: dict[int, np.ndarray] = {}

        def pre_places(i: int) -> np.ndarray:
            """Pre block ``i``'s rows' places among pre's distinct facts: a removed block's as
            the diff placed them, a kept one's placed here (a block whose text another post
            block kept)."""
            if i in d_at:
                return d_pos[slice(*d_at[i])]
            if i not in kept_at:
                kept_at[i] = positions(self._pre_set().index(), [self.pre_facts[i].fact_fps()])
            return kept_at[i]

        def unquoted(at: np.ndarray, facts: _Facts) -> np.ndarray:
            # a row inside a quoted kv value counts as no occurrence, on either side: the pair
            # accounts for it (``a_pos`` comes so already), so the quotes taken off a value a
            # sentence of the block repeats lose it no occurrence
            inside = _inside_quoted_kv_values(facts) if np.any(facts.table.kind == _KIND_KV) else None
            if inside is None:
                return at
            at = at.copy()
            at[inside] = -1
            return at

        pre_at = [unquoted(pre_places(i), self.pre_facts[i]) for i, _ in paired]
        post_at = [a_pos[slice(*a_at[j])] for _, j in paired]
        pre_rows, post_rows = np.concatenate(pre_at), np.concatenate(post_at)
        size = 1 + max(int(pre_rows.max()) if pre_rows.size else 0, int(post_rows.max()) if post_rows.size else 0)
        pre_pair = np.repeat(np.arange(len(paired), dtype=np.int64), [a.size for a in pre_at])
        post_pair = np.repeat(np.arange(len(paired), dtype=np.int64), [a.size for a in post_at])
        pre_keys, before_n = np.unique((pre_pair * size + pre_rows)[pre_rows >= 0], return_counts=True)
        post_keys, post_n = np.unique((post_pair * size + post_rows)[post_rows >= 0], return_counts=True)
        at = np.minimum(np.searchsorted(post_keys, pre_keys), max(post_keys.size - 1, 0))
        after_n = np.where(post_keys[at] == pre_keys, post_n[at], 0) if post_keys.size else np.zeros_like(before_n)
        # a quotation the block no longer holds at all counts too: another block's copy of it
        # kept the window's count, so the block's own words changed inside a line break (no
        # quotation to the grammar) passed as lossless (red team 98, F07)
        kinds = np.concatenate([self.pre_facts[i].table.kind[self.pre_facts[i].groundable_rows()] for i, _ in paired])
        quoted = np.zeros(size, dtype=np.bool_)
        quoted[pre_rows[(pre_rows >= 0) & (kinds == _KIND_QUOTE)]] = True
        quoted[gone[gone < size]] = False  # (gone from the window: reported as dropped already)
        facts_of = pre_keys % size
        # a figure the block holds no more, another block still holding it (so not gone from the
        # window), that a figure now stands in place of, the words either side kept: the value
        # changed in place ("timeout 30 s" -> "timeout 60 s" while other blocks say 30 and 60)
        numbers = np.zeros(size, dtype=np.bool_)
        numbers[pre_rows[(pre_rows >= 0) & (kinds == _KIND_NUMBER)]] = True
        isgone = np.zeros(size, dtype=np.bool_)
        isgone[gone[gone < size]] = True
        wholly_lost = np.flatnonzero((after_n == 0) & numbers[facts_of] & ~quoted[facts_of] & ~isgone[facts_of])
        if wholly_lost.size:
            self._report_replaced_in_place(paired, pre_at, pre_keys[wholly_lost], size)
        fewer = np.flatnonzero(((after_n > 0) | quoted[facts_of]) & (after_n < before_n))
        if not fewer.size:
            return
        wholly = fewer[after_n[fewer] == 0]
        if wholly.size:
            # a quotation the block holds no more whose words left the block with it (red team
            # 101, F05: a duplicate dropped) or stand as they stood, only its marks gone (red team
            # 100, F09): not changed words (red team 103, F04)
            left = self._quotations_dropped_or_unmarked(paired, pre_at, pre_keys[wholly], size)
            if left.any():
                fewer = np.setdiff1d(fewer, wholly[left])
                if not fewer.size:
                    return
        firsts: dict[int, dict[int, int]] = {}

        def first_index(p: int, fact: int) -> int:
            """The first of the pair's pre block's rows (among its groundable rows) holding ``fact``."""
            if p not in firsts:
                values, where = np.unique(pre_at[p], return_index=True)
                firsts[p] = dict(zip(values.tolist(), where.tolist()))
            return firsts[p][fact]

        def table_row(p: int, fact: int) -> int:
            return int(self.pre_facts[paired[p][0]].groundable_rows()[first_index(p, fact)])

        missing = self._moved_occurrences(changed, paired, pre_at, post_at, size, pre_keys[fewer],
                                          before_n[fewer] - after_n[fewer], pre_places, a_at, a_pos)
        fewer = fewer[missing > 0]
        if not fewer.size:
            return
        # each (block, fact) that lost occurrences: (pair, fact, its first row's index, pre count, post count)
        losses = [(*divmod(key, size), n_before, n_after) for key, n_before, n_after
                  in zip(pre_keys[fewer].tolist(), before_n[fewer].tolist(), after_n[fewer].tolist())]
        edit = self.edit
        # a copy of a quotation the rewrite only wrapped onto two lines, or a name it moved to a
        # line's start (no name to the grammar there), is still there: asked as I2's diff asks
        post_of = {i: j for i, j in paired}
        p_row = _RowMap(self.pre_facts, [i for i, _ in paired], [a.size for a in pre_at])
        p_at = _row_slices(p_row)
        first = np.array([p_at[paired[p][0]][0] + first_index(p, fact) for p, fact, _, _ in losses], dtype=np.int64)
        kept = self._rewrapped_quotes(first, p_row, self.pre_facts, lambda ks: [[p_row(k)] for k in ks],
                                      lambda i: self.post_facts[post_of[i]].table.data)
        losses = [loss for n, loss in enumerate(losses) if n not in kept]
        if losses:
            # and a fact that stands inside such a quotation (timeout="30 seconds" wrapped inside
            # its quotes), as I2's diff asks of a fact gone from the block: one of two copies
            # wrapped was refused where one copy was not (red team 100, F03)
            inside = self._inside_reflowed_quotations(
                [(paired[p][0], table_row(p, fact)) for p, fact, _, _ in losses], self.pre_facts,
                lambda i: self.post_facts[post_of[i]])
            losses = [loss for loss, reflowed in zip(losses, inside) if not reflowed]
        first_loss: dict[int, tuple[int, int, int, int]] = {}  # each fact reported once, in its first block
        for loss in losses:
            first_loss.setdefault(loss[1], loss)
        for fact in self.reportable(list(first_loss)):
            p, _, n_before, n_after = first_loss[fact]
            i = paired[p][0]
            b = edit.pre[i]
            span = self.pre_facts[i].table.span(table_row(p, fact))
            self.counts["dropped"] += 1
            self.violate("I2", f"{edit.operator} dropped one of {n_before} occurrences of {span.key}={span.value!r} "
                         f"in block {b.id!r} (it keeps {n_after}): a lossless operator keeps every occurrence of a "
                         "fact of a block it rewrites", block=b.id, handle=(b.handles or (None,))[0],
                         key=span.key, value=span.value,
                         evidence={"span": [span.start, span.end], "text": span.text, "change": "fewer_occurrences",
                                   "pre_count": n_before, "post_count": n_after})

    def _report_replaced_in_place(self, paired: list[tuple[int, int]], pre_at: list[np.ndarray],
                                  keys: np.ndarray, size: int) -> None:
        """Refuse each figure (``keys``: pair * size + fact) a rewritten block no longer holds
        at all whose occurrence another figure replaced where it stood: in the word alignment of
        the block's two texts (:func:`_kept_words`, one a block) its own words are cut, and
        up to ``_REWORDED`` words either side of it may be cut with it; the words past those are
        kept (or the text's end), and between them the post text holds a number and at most one
        other word more than the neighbours cut. The window-wide diff saw nothing lost (another block holds the old figure) and
        nothing new (another holds the new one); the fewer-occurrences count saw no occurrence
        kept to compare (red team 103, F01's figures traded between blocks, in one block)."""
        found: list[tuple[int, int, int]] = []  # (pair, fact, table row)
        for key in keys.tolist():
            p, fact = divmod(key, size)
            i, j = paired[p]
            table = self.pre_facts[i].table
            (starts, ends, _, _), _, pre_words, post_words, kept = self._word_alignment(i, j)
            last = len(pre_words)
            rows = self.pre_facts[i].groundable_rows()[np.flatnonzero(pre_at[p] == fact)]
            for row in rows.tolist():
                before = int(np.searchsorted(ends, table.start[row], side="right")) - 1
                after = max(int(np.searchsorted(starts, table.end[row], side="left")), 1)
                own = range(max(before + 1, 1), min(after, last + 1))
                if not own or any(kept[w - 1] != -1 for w in own):
                    continue
                # the figure and up to _REWORDED words either side of it cut together ("30
                # seconds" -> "1 minute"): the sides are the kept words past those
                for _ in range(_REWORDED):
                    if before >= 1 and kept[before - 1] == -1:
                        before -= 1
                for _ in range(_REWORDED):
                    if after <= last and kept[after - 1] == -1:
                        after += 1
                reworded = after - before - 1 - len(own)
                q0 = -1 if before == 0 else kept[before - 1]
                q1 = len(post_words) if after > last else kept[after - 1]
                if q0 < -1 or q1 < 0 or (before and q0 < 0):
                    continue  # a side not kept (or a middle too long to align: -2)
                between = post_words[q0 + 1:q1]
                figures = sum(w.isdigit() for w in between)
                # another figure where it stood, and no more other words than the cut neighbours
                # held, plus one ("1 minute" of "30 seconds", "now 60" of "30": red team 113 F05)
                if figures and len(between) - figures <= reworded + 1:
                    found.append((p, fact, row))
                    break
        edit = self.edit
        first: dict[int, tuple[int, int]] = {}  # each fact reported once, in its first block
        for p, fact, row in found:
            first.setdefault(fact, (p, row))
        for fact in self.reportable(list(first)):
            p, row = first[fact]
            i = paired[p][0]
            b = edit.pre[i]
            span = self.pre_facts[i].table.span(row)
            self.counts["dropped"] += 1
            self.violate("I2", f"{edit.operator} replaced {span.key}={span.value!r} in block {b.id!r} with another "
                         "figure where it stood: a lossless operator keeps the facts of a block it rewrites",
                         block=b.id, handle=(b.handles or (None,))[0], key=span.key, value=span.value,
                         evidence={"span": [span.start, span.end], "text": span.text, "change": "replaced_in_place"})

    def _wholly_covered(self, i: int) -> bool:
        """Whether a record covers every source of removed pre block ``i`` (each handle and
        derived-from handle evicted or superseded; a block without either, its id evicted)."""
        evicted, superseded = self._covering()
        b = self.pre.blocks[i]
        refs = b.handles + b.derived_from
        if not refs:
            return b.id in evicted
        return all(h in evicted or h in superseded for h in refs)

    def _moved_occurrences(self, changed: list[int], paired: list[tuple[int, int]], pre_at: list[np.ndarray],
                           post_at: list[np.ndarray], size: int, lost_keys: np.ndarray, lost_n: np.ndarray,
                           pre_places: Callable[[int], np.ndarray], a_at: dict[int, tuple[int, int]],
                           a_pos: np.ndarray) -> np.ndarray:
        """How many of each lost occurrence (``lost_keys``: pair * size + fact, ``lost_n`` of each)
        no other changed block took: a move needs both ends of it.

        The losing block cut it out *with its statement*: in a word alignment of the block's pre
        and post texts (:func:`_kept_words`) the occurrence's own words are gone, and so are the
        word beside it and the nearest word that is no number on at least one side, each of them
        held fewer times by the post text than by the pre text (not written again elsewhere in
        the block). A figure changed in place keeps its words: "1 000 000 rows" -> "1 000 rows",
        or two figures traded between statements whose words are equal (red team 103, F01), is
        no move whatever another block holds. Only the sides that left with it must come along:
        a moved sentence that starts with the figure has no word before it (red team 103, F07).

        The other block took it: an occurrence between those words that the other changed blocks
        hold beyond what they held before. A block under a pre block's id held that block's; a
        block under a new id held what every pre block it stands for held (one carrying a handle
        it carries or derives from, but the losing blocks' own pre versions), counted once for
        all such blocks: a re-issued or derived copy of a statement the window held already, or
        another block saying its own value once more, moved nothing (red team 103, F02; red team
        101, F04; red team 98, F02). A fresh read (handles no pre block carries) holds no text
        moved out of a block (red team 100, F12)."""
        width = 1 + max(size, int(a_pos.max()) if a_pos.size else 0, len(self._pre_set()))
        asked = np.zeros(width, dtype=np.bool_)
        asked[lost_keys % size] = True
        bounds = self._word_bounds_of

        def places(side: int, block: int, at: np.ndarray) -> tuple[list[int], list[list[int]], list[list[bytes]]]:
            """Of each of the block's rows of an asked fact: the fact, the indices of the word
            before, the word after and the nearest words either side that are no number, and
            those words (lower-cased). The words alone let "1 000 000 rows" move into the block
            that said "1 000 rows" while its "1 000" moved out (the two figures traded)."""
            ks = np.flatnonzero((at >= 0) & asked[np.maximum(at, 0)])
            if not ks.size:
                return [], [], []
            facts = (self.pre_facts if side == 0 else self.post_facts)[block]
            table = facts.table
            starts, ends, wordy, lowered = bounds(side, block)
            rows = facts.groundable_rows()[ks]
            before = np.searchsorted(ends, table.start[rows], side="right") - 1
            after = np.maximum(np.searchsorted(starts, table.end[rows], side="left"), 1)
            far_before = wordy[np.searchsorted(ends[wordy], table.start[rows], side="right") - 1]
            far_after = wordy[np.maximum(np.searchsorted(starts[wordy], table.end[rows], side="left"), 1)]
            at_words = [w.tolist() for w in (before, after, far_before, far_after)]
            said = [[lowered[a:b] for a, b in zip(starts[w].tolist(), ends[w].tolist())] for w in at_words]
            return at[ks].tolist(), at_words, said

        def contexts(side: int, block: int, at: np.ndarray) -> Counter[tuple[int, bytes, bytes, bytes, bytes]]:
            facts, _, said = places(side, block, at)
            return Counter(zip(facts, *said))

        pre_id = self.pre.id_pos()
        pre_blocks, post_blocks = self.pre.blocks, self.post.blocks
        losing = {i for i, _ in paired}
        pre_by_ref: dict[str, list[int]] | None = None  # handle -> the pre blocks carrying or deriving from it
        pre_handles: set[str] = set()
        moved: Counter[tuple[int, bytes, bytes, bytes, bytes]] = Counter()
        new_held: Counter[tuple[int, bytes, bytes, bytes, bytes]] = Counter()  # what the new blocks stand for held
        stood_for: set[int] = set()
        for j in changed:
            b = post_blocks[j]
            i = pre_id.get(b.id)
            refs = b.handles + b.derived_from
            if i is None and refs:
                if pre_by_ref is None:
                    pre_by_ref = {}
                    for k, block in enumerate(pre_blocks):
                        pre_handles.update(block.handles)
                        for h in set(block.handles + block.derived_from):
                            pre_by_ref.setdefault(h, []).append(k)
                if b.handles and not b.derived_from and pre_handles.isdisjoint(b.handles):
                    continue  # a fresh read holds no text moved out of a block
            here = a_pos[slice(*a_at[j])]
            if i is not None:
                # a block under a pre block's id gained an occurrence only of a fact it now holds
                # more often than that block did: one it holds as often only moved its own (the
                # count first, no words read: a rewrite of thousands of blocks, red team 100, F14)
                was = pre_places(i)
                grown = Counter(here[(here >= 0) & asked[np.maximum(here, 0)]].tolist())
                if not grown:
                    continue
                grown.subtract(was[(was >= 0) & asked[np.maximum(was, 0)]].tolist())
                if max(grown.values()) <= 0:
                    continue
                gained = contexts(1, j, here) - contexts(0, i, was)
                moved.update(place for place in gained.elements() if grown[place[0]] > 0)
                continue
            gained = contexts(1, j, here)
            if not gained:
                continue
            new_held.update(gained)
            assert pre_by_ref is not None or not refs
            for h in refs:
                stood_for.update(k for k in pre_by_ref.get(h, ()) if k not in losing)  # type: ignore[union-attr]
        if new_held:
            for k in sorted(stood_for):
                # what the pre blocks the new ones stand for held there
                new_held.subtract(contexts(0, k, pre_places(k)))
            moved.update(+new_held)
        missing = lost_n.astype(np.int64).copy()
        if not moved:
            return missing
        by_side: dict[tuple[int, int, bytes, bytes], list[tuple[int, bytes, bytes, bytes, bytes]]] = {}
        for place in moved:
            by_side.setdefault((place[0], 0, place[1], place[3]), []).append(place)
            by_side.setdefault((place[0], 1, place[2], place[4]), []).append(place)

        def take(fact: int, said: tuple[bytes, bytes, bytes, bytes], sides: tuple[bool, bool]) -> bool:
            """Take one moved occurrence of ``fact`` with the words of the sides that moved."""
            if sides == (True, True):
                key = (fact, *said)
                if moved[key] > 0:
                    moved[key] -= 1
                    return True
                return False
            side = 0 if sides[0] else 1
            for place in by_side.get((fact, side, said[side], said[side + 2]), ()):
                if moved[place] > 0:
                    moved[place] -= 1
                    return True
            return False

        cut: dict[int, dict[int, list[tuple[tuple[bytes, bytes, bytes, bytes], tuple[bool, bool]]]]] = {}
        for n, key in enumerate(lost_keys.tolist()):
            p, fact = divmod(key, size)
            if p not in cut:
                cut[p] = self._cut_occurrences(paired[p], pre_at[p], places)
            need = int(missing[n])
            for said, sides in cut[p].get(fact, ()):
                if not need:
                    break
                if take(fact, said, sides):
                    need -= 1
            missing[n] = need
        return missing

    def _quotations_dropped_or_unmarked(self, paired: list[tuple[int, int]], pre_at: list[np.ndarray],
                                        keys: np.ndarray, size: int) -> np.ndarray:
        """Of each (pair * size + quotation) a rewritten block no longer holds: whether each of
        its pre version's occurrences of it either left whole, every word of it cut in a word
        alignment of the two texts (:func:`_kept_words`) and held fewer times by the post text by
        at least as many as the quotation holds, or stands in the post text as it stood, its words
        aligned in a row and its inside the same bytes, only its marks gone. Words changed inside
        it, or some of them kept ("drain the node first" -> "never drain the node", red team 103,
        F04), are neither."""
        fell_of: dict[int, Counter[bytes]] = {}
        out = np.zeros(keys.size, dtype=np.bool_)
        for n, key in enumerate(keys.tolist()):
            p, fact = divmod(key, size)
            i, j = paired[p]
            pre_table, post_table = self.pre_facts[i].table, self.post_facts[j].table
            pre_b, post_b, pre_words, post_words, kept = self._word_alignment(i, j)
            if p not in fell_of:
                fell_of[p] = Counter(pre_words)
                fell_of[p].subtract(post_words)
            fell = fell_of[p]
            rows = self.pre_facts[i].groundable_rows()[np.flatnonzero(pre_at[p] == fact)]
            ok = bool(rows.size)
            for row in rows.tolist():
                if int(pre_table.kind[row]) != _KIND_QUOTE:
                    ok = False
                    break
                start, end = int(pre_table.start[row]), int(pre_table.end[row])
                first = max(int(np.searchsorted(pre_b[0], start, side="left")), 1)
                last = min(int(np.searchsorted(pre_b[1], end, side="right")) - 1, len(pre_words))
                inner = range(first, last + 1)
                if not inner:
                    ok = False
                    break
                to = [kept[w - 1] for w in inner]
                if all(k == -1 for k in to):
                    need = Counter(pre_words[w - 1] for w in inner)
                    if any(fell[word] < c for word, c in need.items()):
                        ok = False
                        break
                    fell.subtract(need)  # (two copies dropped need the words gone twice)
                    continue
                if (to[0] >= 0 and to == list(range(to[0], to[0] + len(to)))
                        and post_table.data[int(post_b[0][to[0] + 1]):int(post_b[1][to[-1] + 1])]
                        == pre_table.data[int(pre_b[0][first]):int(pre_b[1][last])]):
                    continue
                ok = False
                break
            out[n] = ok
        return out

    def _word_bounds_of(self, side: int, block: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, bytes]:
        """:func:`_word_bounds` of a pre (``side`` 0) or post (1) block's text, read once a check."""
        key = (side, block)
        if key not in self._words:
            self._words[key] = _word_bounds((self.pre_facts if side == 0 else self.post_facts)[block].table.data)
        return self._words[key]

    def _word_alignment(self, i: int, j: int) -> tuple[Any, ...]:
        """``(pre bounds, post bounds, pre words, post words, kept)`` of pre block ``i`` and post
        block ``j`` (:func:`_kept_words`): one matcher a pair of blocks a check, whichever I2 rules
        read it (the moved occurrences, the quotations, the figures replaced in place)."""
        if (i, j) not in self._alignments:
            pre_b, post_b = self._word_bounds_of(0, i), self._word_bounds_of(1, j)
            pre_words, post_words = _words_of(pre_b), _words_of(post_b)
            self._alignments[(i, j)] = (pre_b, post_b, pre_words, post_words, _kept_words(pre_words, post_words))
        return self._alignments[(i, j)]

    def _cut_occurrences(self, pair: tuple[int, int], at: np.ndarray,
                         places: Callable[..., Any]) -> dict[int, list[tuple[tuple[bytes, bytes, bytes, bytes],
                                                                              tuple[bool, bool]]]]:
        """Fact -> (its four words, which sides moved) of each occurrence of an asked fact the pre
        version of a rewritten block holds that the rewrite cut out with its statement (see
        :meth:`_moved_occurrences`)."""
        i, j = pair
        facts, at_words, said = places(0, i, at)
        if not facts:
            return {}
        _, _, pre_words, post_words, aligned = self._word_alignment(i, j)
        # the same alignment with each cut run slid as far as equal words let it, either way:
        # "… port 5432. The cache" cut from "The db … port 5432. The cache" is cut from the
        # first "The" or up to the second, the texts alike; the first anchoring is the sentence
        # (red team 106, F03 / 108, F03). Each is one pass over the words (no more matching)
        anchorings = [aligned]
        for way in (-1, 1):
            slid = _slid_cuts(pre_words, aligned, way)
            if slid != aligned and slid not in anchorings:
                anchorings.append(slid)
        fell = Counter(pre_words)
        fell.subtract(post_words)
        last = len(pre_words)

        def sides_in(kept: list[int], before: int, after: int, far_before: int,
                     far_after: int) -> tuple[bool, bool] | None:
            """Which sides of the occurrence left with it in one anchoring; None when the
            occurrence is still there, or is a value changed in place."""

            def left(w: int) -> bool:
                # a word (not the blank either end) that left: unmatched, and held fewer times now
                return 1 <= w <= last and kept[w - 1] == -1 and fell[pre_words[w - 1]] > 0

            def refilled(w: int, toward: int) -> bool:
                # does the post text hold a number beside where the kept word w (0 and last + 1:
                # the blank ends) stands, toward the words cut (+1: after it; -1: before it)?
                q = -1 if w == 0 else len(post_words) if w > last else kept[w - 1]
                if w and w <= last and q < 0:
                    return False
                q += toward
                return 0 <= q < len(post_words) and post_words[q].isdigit()  # (a number: _word_bounds)

            if any(kept[w - 1] != -1 for w in range(before + 1, after) if 1 <= w <= last):
                return None  # the occurrence itself is still there
            sides = (left(before) and left(far_before), left(after) and left(far_after))
            if sides[0] != sides[1] and (refilled(after, -1) if sides[0] else refilled(before, 1)):
                # one side stayed and a figure stands where this one stood: a value changed in
                # place with a word beside it reworded ("runs 3 pods" -> "has 5 pods"), not a
                # statement moved out, whatever another block gained (red team 108, F01)
                return None
            return sides

        out: dict[int, list[tuple[tuple[bytes, bytes, bytes, bytes], tuple[bool, bool]]]] = {}
        for fact, before, after, far_before, far_after, *words4 in zip(facts, *at_words, *said):
            found = [sides_in(kept, before, after, far_before, far_after) for kept in anchorings]
            if any(sides is None for sides in found):
                continue  # (failing closed: in place in any anchoring is no move)
            # the anchoring that leaves fewest sides to move (a side only where every one has it)
            sides = (all(s[0] for s in found), all(s[1] for s in found))  # type: ignore[index]
            if sides[0] or sides[1]:
                out.setdefault(fact, []).append((tuple(words4), sides))
        return out

    def _reserialized_json(self) -> dict[int, int]:
        """Changed post block -> its pre version (the removed pre block with its id), for each
        whose text is a JSON document (or JSON Lines) that decodes to the same document as its
        pre version's while its facts differ: written again with other escapes (``ensure_ascii``
        either way, ``\\/`` for ``/``), which the grammar, reading the JSON text, takes for new
        values (red team 90, F01: a framework re-serialising a tool result as it compacts was
        refused). The same document means the same keys in the same order, duplicates
        included, and values of the same JSON types that are equal (``1`` is not ``1.0`` or
        ``true``)."""
        out: dict[int, int] = {}
        post_blocks, pre_id = self.post.blocks, None
        for j in self.changed:
            post_data = self.post_facts[j].table.data
            if _JSON_START.match(post_data) is None:
                continue
            if pre_id is None:
                pre_id, removed = self.pre.id_pos(), set(self.removed)
            m = pre_id.get(post_blocks[j].id)
            if m is None or m not in removed:
                continue
            pre_data = self.pre_facts[m].table.data
            if (_JSON_START.match(pre_data) is not None and not _same_facts(self.post_facts[j], self.pre_facts[m])
                    and _same_json_documents(pre_data, post_data)):
                out[j] = m
        return out

    def _facts_kept_in_place(self) -> bool:
        """Is this an edit in place whose removed pre blocks are exactly the positions that
        changed (no block moved or copied), each changed block with its pre version's facts
        row for row? Then the post window's fact multiset is pre's (so it is left to the next
        check as pre's, remember_post_set), no fact is introduced, and every removed fact is
        restated by a changed block, so none is gone."""
        if not self.in_place or self.moved or self.reused or len(self.removed) != len(self.changed):
            return False
        if self._kept_facts is None:
            pre_facts, post_facts = self.pre_facts, self.post_facts
            removed = set(self.removed)
            self._kept_facts = all(
                j in removed and _same_facts(post_facts[j], pre_facts[j])
                for j in self.changed)
        return self._kept_facts

    def _check_negations_kept(self) -> None:
        """A block a lossless operator rewrites in place (same id) denies what its pre version
        denied. A negation is no fact, so the fact diff saw nothing change when a rewrite
        turned ``Do not run "make deploy"`` into ``Do run "make deploy"``, or ``Run the
        migration`` into ``Never run the migration``: the same facts, the instruction
        inverted, accepted as lossless. A block's sentences that the rewrite kept are passed
        over (:func:`_negations_unbalanced`), and a long text is read only where it changed
        (:func:`_negation_in_changed_stretch`) before that."""
        edit = self.edit
        for i, j in self._reworded_in_place():
            # (as a reader sees them: invisible marks dropped, look-alike letters folded)
            pre_own, post_own = self.pre_facts[i].table.data, self.post_facts[j].table.data
            pre_text, post_text = _folded_for_negations(pre_own), _folded_for_negations(post_own)
            b = edit.post[j]
            if len(pre_text) + len(post_text) > _LONG_REWRITE and not _negation_in_changed_stretch(pre_text, post_text):
                continue  # (a long text, one sentence of it, may be changed in a few bytes)
            moved: list[tuple[bytes, bytes]] = []
            found = _negations_unbalanced(pre_text, post_text, moved)
            if found is None:
                if moved:
                    traded = moved[0]
                    into, out = (w.decode("utf-8", "replace") for w in traded)
                    self.violate("I2", f"{edit.operator} moved the negation in block {b.id!r} from {out!r} to "
                                 f"{into!r} (as many negations, each over other words): a lossless operator keeps "
                                 "what a block denies", block=b.id, handle=(b.handles or (None,))[0], key="negation",
                                 value=into, evidence={"change": "negation_moved", "denied": into, "undenied": out})
                continue
            if pre_text is pre_own and post_text is post_own and _negations_distributed(
                    self.pre_facts[i].table, self.post_facts[j].table):
                continue  # (one negation over a list said once an item, or the other way round)
            n_before, n_after, side, (start, end), word = found
            own, read = (pre_own, pre_text) if side == "pre" else (post_own, post_text)
            if read is not own:  # (the span in the block's own text)
                start, end = _span_before_folding(own, start, end)
            added = n_after > n_before
            self.violate("I2", f"{edit.operator} {'added' if added else 'dropped'} the negation {word!r} in block "
                         f"{b.id!r} ({n_before} negations before, {n_after} after, sentences added or moved "
                         "whole aside): a lossless operator keeps what a block denies",
                         block=b.id, handle=(b.handles or (None,))[0], key="negation", value=word,
                         evidence={"change": "negation_added" if added else "negation_dropped",
                                   "pre_count": n_before, "post_count": n_after, "side": side,
                                   "span": [start, end]})

    def _reworded_in_place(self) -> list[tuple[int, int]]:
        """(pre block, post block) of each block a lossless edit rewrote in place (same id)
        whose words changed: not only re-indented or re-wrapped (:func:`same_words`, one native
        pass for all: the same bytes but spaces, and the same words; a space put inside a word
        or taken from between two, ``nowhere`` -> ``now here``, makes other words, which the
        rules read: red team 118, F17). Made once a check; the negation and figure rules read it."""
        if self._reworded is None:
            edit = self.edit
            pre_id = self.pre.id_pos()
            pairs = [(i, j) for j in self.changed if (i := pre_id.get(edit.post[j].id)) is not None]
            if pairs:
                same = same_words([self.pre_facts[i].table.data for i, _ in pairs],
                                  [self.post_facts[j].table.data for _, j in pairs])
                pairs = [pair for pair, unchanged in zip(pairs, same.tolist()) if not unchanged]
            self._reworded = pairs
        return self._reworded

    def _check_figures_traded(self) -> None:
        """A block rewritten in place whose figures, in order, are a reordering of its pre
        version's (the same figures, as often) keeps each in its statement: a figure stands
        between two words either side of it (its context), and where a context both texts hold
        holds other figures in post than in pre, they were traded (``timeout is 30 seconds and
        the limit is 60 seconds`` -> ``… 60 … 30 …``; ``3 of 5 ready`` -> ``5 of 3 ready``).
        Every count is kept, so neither the diff nor the fewer-occurrences count saw it, and the
        figure replaced in place is asked only of a block that holds it no more (red team 113,
        F04: accepted as lossless). A statement moved whole, or a list reordered with its
        numbers, moves the words around each figure with it. Only a block whose figures were
        reordered is read."""
        edit = self.edit
        for i, j in self._reworded_in_place():
            pre_table, post_table = self.pre_facts[i].table, self.post_facts[j].table
            pre_at = np.flatnonzero(pre_table.kind == _KIND_NUMBER)
            post_at = np.flatnonzero(post_table.kind == _KIND_NUMBER)
            if not pre_at.size or not post_at.size:
                continue
            # (compared as fingerprints, in arrays: a rewritten tool output holds hundreds)
            pre_fp, post_fp = pre_table.fp_fact[pre_at], post_table.fp_fact[post_at]
            pre_rows, post_rows = pre_at.tolist(), post_at.tolist()
            if pre_at.size != post_at.size:
                # a figure repeated or one repeat dropped, the same figures else: names traded
                # are read still (red team 116, F06: "…; 12 GB is low." added hid the swap)
                if np.array_equal(np.unique(pre_fp, axis=0), np.unique(post_fp, axis=0)):
                    self._check_figures_repaired(i, j, pre_rows, post_rows)
                continue
            if np.array_equal(pre_fp, post_fp):
                # kept in order: and their units (red team 115, F07: "Wait 30 seconds" -> "Wait
                # 30 minutes" kept every fact)
                self._check_units_kept(i, j, pre_rows, post_rows)
                # and their names (red team 116, F06: "db-01 has 12 GB, db-02 has 34 GB" ->
                # "db-02 has 12 GB, db-01 has 34 GB" swapped the names, not the figures)
                self._check_figures_repaired(i, j, pre_rows, post_rows)
                continue
            if not np.array_equal(pre_fp[np.lexsort(pre_fp.T[::-1])], post_fp[np.lexsort(post_fp.T[::-1])]):
                continue  # (figures changed, which the other rules ask)
            pre_figures = [pre_table.value_bytes(r) for r in pre_rows]
            post_figures = [post_table.value_bytes(r) for r in post_rows]
            before = _figures_by_context(pre_table, pre_rows, pre_figures, self._word_bounds_of(0, i))
            after = _figures_by_context(post_table, post_rows, post_figures, self._word_bounds_of(1, j))
            for context, (figures, row) in before.items():
                now = after.get(context)
                if now is None or now[0] == figures:
                    continue
                b = edit.post[j]
                span = pre_table.span(row)
                self.violate("I2", f"{edit.operator} traded {span.key}={span.value!r} in block {b.id!r} for another "
                             "of its figures where it stood: a lossless operator keeps each figure in its statement",
                             block=b.id, handle=(b.handles or (None,))[0], key=span.key, value=span.value,
                             evidence={"span": [span.start, span.end], "text": span.text, "change": "traded_in_place",
                                       "now": sorted(f.decode("utf-8", "replace") for f in now[0].elements())})
                break
            else:
                # no context kept a trade: the statements moved with it (red team 116, F06:
                # "Timeout is 30 s. Retry after 5 min." -> "Retry after 30 s. Timeout is 5 min.")
                self._check_figures_repaired(i, j, pre_rows, post_rows)

    def _check_figures_repaired(self, i: int, j: int, pre_rows: list[int], post_rows: list[int]) -> None:
        """A block rewritten in place that keeps its figures (in order or not) keeps each with
        the names of its statement unit (a table row, a list item, a sentence or a clause, see
        ``_UNIT_BREAK``): where one name stood with figure ``f`` and not ``g`` in pre and with
        ``g`` and not ``f`` in post, and another name the other way round, the two traded
        figures, though every figure and every context word was kept (red team 116, F06:
        names swapped with the figures in order, or statements moved with the figures traded).
        A statement reordered whole, reworded (``db-01 has 12 GB`` -> ``12 GB are on db-01``),
        split or merged keeps every name's figures, or only gains or only loses some, and is
        no trade. Names are words no figure holds, less ``_NO_NAME``'s; a figure is its fact
        (``1,000`` and ``1000`` one) with its unit; a unit of more than ``_NAMED_FIGURES``
        figures names none (``_figures_by_name``). One pass a side."""
        if len(pre_rows) < 2 or len(post_rows) < 2:
            return  # (two figures trade, or none: most rewritten turns hold one or none)
        pre_table, post_table = self.pre_facts[i].table, self.post_facts[j].table
        before = _figures_by_name(pre_table, pre_rows, self._word_bounds_of(0, i))
        if len(before) < 2:
            return  # (two names trade, or none)
        after = _figures_by_name(post_table, post_rows, self._word_bounds_of(1, j))
        found = _repaired_figures(before, after)
        if found is None:
            return
        name, lost, gained, other = found
        lowered = self._word_bounds_of(1, j)[3]
        shown = {}
        # (a table row's figures read as one are shown by their first: _name_table_rows)
        firsts = {_row_first(x): x for x in (lost, gained) if x[0].startswith(_ROW_FIGURES)}
        for r in post_rows:  # (the rows of the two figures, to show them: only when refused)
            label = _figure_label(post_table, r, lowered)
            if label in (lost, gained) and label not in shown:
                shown[label] = r
            elif label in firsts and firsts[label] not in shown:
                shown[firsts[label]] = r
        row = shown.get(gained, post_rows[0])

        def show(x: bytes | tuple[bytes, bytes]) -> str:
            if isinstance(x, bytes):
                return x.decode("utf-8", "replace")
            r = shown.get(x)
            if x[0].startswith(_ROW_FIGURES):
                first = post_table.span(r).value if r is not None else "?"
                unit = _row_first(x)[1]
                return f"the table row of {first}{' ' + unit.decode() if unit else ''}, ..."
            value = post_table.span(r).value if r is not None else "?"
            return f"{value} {x[1].decode()}" if x[1] else value

        b = self.edit.post[j]
        span = post_table.span(row)
        # (a pair traded, or names that rotated their figures: the other now holds what it lost)
        rest = (f"{show(other)!r} the other way round" if gained in before.get(other, ())
                else f"{show(other)!r} now with {show(lost)!r} (the names rotated their figures)")
        self.violate("I2", f"{self.edit.operator} re-paired the figures of block {b.id!r}: {show(name)!r} stood with "
                     f"{show(lost)!r} and now with {show(gained)!r}, {rest}: a lossless "
                     "operator keeps each figure with the names of its statement",
                     block=b.id, handle=(b.handles or (None,))[0], key=span.key, value=span.value,
                     evidence={"span": [span.start, span.end], "text": span.text, "change": "traded_in_place",
                               "names": sorted([show(name), show(other)]), "figures": sorted([show(lost), show(gained)])})

    def _check_units_kept(self, i: int, j: int, pre_rows: list[int], post_rows: list[int]) -> None:
        """Each figure a block rewritten in place keeps in order keeps the unit after it: a unit
        changed beside an unchanged figure (``30 seconds`` -> ``30 minutes``, ``12 GB`` -> ``12
        TB``) is a value changed, though no fact was. A unit written another way is the same
        (``seconds`` / ``s``), and a unit dropped or added is not asked. Read only where a
        digit has a unit's letter after a blank, so most blocks cost one search."""
        pre_table, post_table = self.pre_facts[i].table, self.post_facts[j].table
        # (a figure in digits of other scripts, grammar v13, is read as its ASCII digits: the
        # ends of its rows stay the texts' own, only the look for a lead reads the digits folded)
        if not (_has_unit_lead(fold_digits(pre_table.data)) and _has_unit_lead(fold_digits(post_table.data))):
            return
        before = [_unit_at(pre_table.data, e) for e in pre_table.end[pre_rows].tolist()]
        after = [_unit_at(post_table.data, e) for e in post_table.end[post_rows].tolist()]
        # a unit dropped from one figure and added to another figure moved between them: the two
        # changes, each left be alone, trade it (red team 116, F01: "Retry 3 times, wait 5 s."
        # -> "Retry 3 s, wait 5 times."); moved between two mentions of one figure, it is kept
        # ("Sleep 5, i.e. 5 s" -> "Sleep 5 s, i.e. 5")
        values = [post_table.data[int(post_table.value_start[r]):int(post_table.value_end[r])] for r in post_rows]
        dropped = {(a, v) for a, b_unit, v in zip(before, after, values) if a is not None and b_unit is None}
        for r, a, b_unit, v in zip(post_rows, before, after, values):
            if b_unit is not None and a is None and any(u == b_unit and w != v for u, w in dropped):
                a = _NO_UNIT
            if a is None or b_unit is None or _same_unit(a, b_unit):
                continue
            b = self.edit.post[j]
            span = post_table.span(r)
            self.violate("I2", f"{self.edit.operator} changed the unit of {span.key}={span.value!r} in block {b.id!r} "
                         f"from {a.decode()!r} to {b_unit.decode()!r}: a lossless operator keeps a figure's unit",
                         block=b.id, handle=(b.handles or (None,))[0], key=span.key, value=span.value,
                         evidence={"span": [span.start, span.end], "text": span.text, "change": "unit_changed",
                                   "pre_unit": a.decode(), "post_unit": b_unit.decode()})
            return

    def _check_speaker_lost(self) -> None:
        """A user's or the system's turn dropped as the duplicate of another speaker's copy of
        its text (the user's approval, kept only as the assistant's echo of it) keeps its facts
        but not who said them: a lossless operator drops it only with an eviction record (red
        team 21, r02; red team 24, u01)."""
        edit = self.edit
        pre_blocks = self.pre.blocks
        # (a cited turn's copy is I5's; a tool block's, removed content as any dropped text)
        said = [i for i in self.speaker_lost if pre_blocks[i].role in _SPEAKERS]
        for i, code in zip(said, self._drop_codes(said)):
            if code == 2:
                continue  # evicted on the record; a supersession edge from another speaker's copy is
                # no record of a newer source, it only moves the words to another mouth (red team 24, u01)
            b = pre_blocks[i]
            self.violate("I2", f"{edit.operator} dropped block {b.id!r} ({b.role}) as a duplicate, but only another "
                         "speaker's block keeps its text: who said a text is part of its provenance (evict the block "
                         "on the record to drop it)", block=b.id, key="role", value=b.role,
                         evidence={"change": "speaker"})

    def _check_rebound_values(self) -> None:
        """A block rewritten in place keeps the value of every key it still sets: the seed's I2
        example, ``retries=3`` -> ``retries=5``.

        Window-wide presence misses a value moved between blocks (another block already says
        ``retries=5``, a third still ``retries=3``: nothing introduced, nothing gone), so each
        post block under the id of a pre block whose text it does not have (rewritten, or given
        another pre block's text) is held to that pre version: a ``key=value`` fact it holds
        that the pre version did not, for a key one of whose values the pre version held and it
        does not, changed that value, unless the pre version is covered by a record (a handle of
        it superseded, or a supersession edge from the block naming a source its markers
        cited). Blocks whose facts are the pre version's, row for row, cost one comparison."""
        edit = self.edit
        pre_id = self.pre.id_pos()
        post_blocks = self.post.blocks
        covered = None
        for j in (*self.changed, *self.moved):
            block = post_blocks[j]
            i = pre_id.get(block.id)
            if i is None or i == self.match[j] or self._reserialized.get(j) == i:
                continue  # (unchanged, or the same JSON document written again)
            new_facts, old_facts = self.post_facts[j], self.pre_facts[i]
            new_fp, old_fp = new_facts.table.fp_fact, old_facts.table.fp_fact
            if _same_rows(new_fp, old_fp):
                continue  # the same facts in the same order (a reworded or re-indented block)
            found = self._traded_value(new_facts, old_facts)
            if found is not None:
                # (a value inside a requirement the other side states as pip reads it is only
                # written another way: "django>=3.2,<4.2" -> "django<4.2,>=3.2", red team 118 F14)
                reqs: dict[Any, Any] = {}
                found = self._traded_value(
                    new_facts, old_facts,
                    lambda r, t=new_facts.table, o=old_facts.table.data, q=reqs: not _in_same_requirement(t, r, o, q),
                    lambda r, t=old_facts.table, o=new_facts.table.data, q=reqs: not _in_same_requirement(t, r, o, q))
            if found is None:
                continue
            if covered is None:
                covered = self._rebind_cover()
            if covered(i):
                continue
            new_row, old_row = found
            span, was = new_facts.table.span(new_row), old_facts.table.span(old_row)
            self.violate("I2", f"{edit.operator} changed {span.key} in block {block.id!r} from {was.value!r} to "
                         f"{span.value!r}: a lossless operator keeps the values of a block it rewrites",
                         block=block.id, key=span.key, value=span.value,
                         evidence={"span": [span.start, span.end], "text": span.text, "change": "value_changed",
                                   "pre_value": was.value, "pre_text": was.text})

    @staticmethod
    def _traded_value(new: _Facts, old: _Facts, new_counts: Callable[[int], bool] | None = None,
                      old_counts: Callable[[int], bool] | None = None) -> tuple[int, int] | None:
        """(a row of ``new`` setting a key to a value ``old`` did not set it to, a row of ``old``
        setting that key to a value ``new`` does not have), or None; only rows ``new_counts`` /
        ``old_counts`` keep, when given."""
        if not new.kv_rows()[0].size or not old.kv_rows()[0].size:
            return None
        before, after = _kv_map(old), _kv_map(new)
        for key, values in after.items():
            old_values = before.get(key)
            if old_values is None:
                continue
            gained = [row for value, row in values.items() if value not in old_values]
            lost = [row for value, row in old_values.items() if value not in values]
            if gained and lost and new_counts is not None:
                gained = [row for row in gained if new_counts(row)]
                lost = [row for row in lost if old_counts is None or old_counts(row)]
            if gained and lost:
                return gained[0], lost[0]
        return None

    def _rebind_cover(self) -> Callable[[int], bool]:
        """Is pre block ``i``'s loss of a value covered by a record (see _check_rebound_values)?"""
        pre_blocks = self.pre.blocks
        edges_from: dict[str, set[str]] = {}
        for edge in self.edit.supersedes:
            edges_from.setdefault(edge.block, set()).add(edge.handle)

        def covered(i: int) -> bool:
            if self._drop_codes([i])[0]:  # evicted, or a handle superseded: I2's own records
                return True
            b = pre_blocks[i]
            named = edges_from.get(b.id)
            if b.handles or b.derived_from or not named:
                return False
            cited = {h for name in self.pre_facts[i].markers() for h in self._targets(name)}
            return not named.isdisjoint(cited)

        return covered

    def _covering(self) -> tuple[set[str], dict[str, str]]:
        """(the handles and ids evicted, superseded handle -> the block superseding it); made
        once per check (I4 asks for each read). An eviction record says a handle (or a block
        without handles, by id) left the window on purpose: one for a handle a post block still
        carries, or an id post still holds, records nothing and covers nothing (else a rewrite in
        place could drop any fact of a block, pinned or not, by "evicting" its own handle); a
        derived block may still name an evicted handle in derived_from."""
        if self._covered is None:
            evicted = set(self.edit.evicted)
            self._claimed = frozenset(evicted)
            if evicted:
                # a handle post still carries as a block's own (a summary may still derive from
                # an evicted handle: the source is in the store), or an id post still holds
                blocks = self.post.blocks
                evicted.difference_update([h for i in _blockscan.holding(blocks, frozenset(evicted))
                                           for h in blocks[i].handles])
                evicted.difference_update(self.post.id_pos())
            self._covered = (evicted, {s.handle: s.block for s in self.edit.supersedes})
        return self._covered

    def _drop_codes(self, indices: list[int]) -> list[int]:
        """The record of each of these removed pre blocks: 2 evicted (by handle or, for a block
        without handles, by id), 1 superseded, 0 neither (an eviction record wins)."""
        evicted, superseded = self._covering()
        pre_blocks = self.pre.blocks
        codes = []
        for i in indices:
            b = pre_blocks[i]
            refs = b.handles + b.derived_from
            codes.append(2 if (b.id in evicted and not b.handles) or not evicted.isdisjoint(refs)
                         else 1 if not superseded.keys().isdisjoint(refs) else 0)
        return codes

    def _account_drops(self, d_pos: np.ndarray, d_row: _RowMap, gone: np.ndarray, strongest: np.ndarray) -> None:
        """Count gone facts (``gone``: positions among pre's distinct facts; ``d_pos``: the
        position of each removed row) as evicted, superseded or unaccounted (a violation each).
        A fact is covered when ANY removed pre block that held it was evicted or superseded
        (``strongest``: per distinct fact, the strongest record of the blocks that held it)."""
        edit = self.edit
        g = strongest[gone]
        self.counts["evicted"] += int(np.count_nonzero(g == 2))
        self.counts["superseded"] += int(np.count_nonzero(g == 1))
        unaccounted = gone[g == 0]
        # each fact's first removed row, for the evidence, found in one pass (a search of every
        # row per fact would be quadratic in a large drop)
        values, first = np.unique(d_pos, return_index=True)
        if unaccounted.size:
            # a quotation the rewrite only wrapped onto two lines is not dropped
            firsts = first[np.searchsorted(values, unaccounted)]
            changed_by_id = {edit.post[j].id: j for j in self.changed}

            def holders(ks: list[int]) -> list[list[tuple[int, int]]]:
                facts_of = d_pos[ks]
                every: dict[int, list[tuple[int, int]]] = {int(f): [] for f in facts_of.tolist()}
                for k in np.flatnonzero(np.isin(d_pos, facts_of)).tolist():
                    every[int(d_pos[k])].append(d_row(k))
                return [every[int(f)] for f in facts_of.tolist()]

            wrapped = self._rewrapped_quotes(
                firsts, d_row, self.pre_facts, holders,
                lambda i: None if (j := changed_by_id.get(edit.pre[i].id)) is None else self.post_facts[j].table.data)
            if wrapped:
                unaccounted = np.delete(unaccounted, sorted(wrapped))
                firsts = np.delete(firsts, sorted(wrapped))
            if unaccounted.size:
                # a quotation whose whole inside is one fact post still holds lost only its
                # marks, every copy of it (red team 99, F11)
                gone_set = set(gone.tolist())
                marks = [n for n, group in enumerate(holders(firsts.tolist())) if all(
                    self._only_marks(self.pre_facts[owner].table, owner, row, d_row, d_pos, gone_set)
                    for owner, row in group)]
                if marks:
                    unaccounted = np.delete(unaccounted, marks)
                    firsts = np.delete(firsts, marks)
                # and a fact that stood inside a kv value whose quotes the rewrite removed, the
                # pair still held (red team 94, F07), every copy of it
                spans: dict[Any, Any] = {}
                quoted = [n for n, group in enumerate(holders(firsts.tolist())) if all(
                    self._in_quoted_pair(self.pre_facts[owner].table, owner, row, d_row, d_pos, gone_set, spans)
                    for owner, row in group)]
                if quoted:
                    unaccounted = np.delete(unaccounted, quoted)
                    firsts = np.delete(firsts, quoted)
            if unaccounted.size and changed_by_id:
                # and a comparison the rewrite only re-spaced ("i<10" -> "i < 10": red team 116,
                # F15), and the name it keys, every copy of it
                every = holders(firsts.tolist())
                respaced = [n for n, group in enumerate(every) if all(
                    _respaced_comparison(self.pre_facts[owner].table, row, None if (
                        j := changed_by_id.get(edit.pre[owner].id)) is None else self.post_facts[j].table.data)
                    for owner, row in group)]
                if respaced:
                    unaccounted = np.delete(unaccounted, respaced)
                    firsts = np.delete(firsts, respaced)
            if unaccounted.size and changed_by_id:
                # and a fact inside a requirement the block under its id states as pip reads it,
                # only written another way (red team 118, F14, F23), every copy of it
                every = holders(firsts.tolist())
                reqs: dict[Any, Any] = {}
                same = [n for n, group in enumerate(every) if all(
                    _in_same_requirement(self.pre_facts[owner].table, row, None if (
                        j := changed_by_id.get(edit.pre[owner].id)) is None else self.post_facts[j].table.data, reqs)
                    for owner, row in group)]
                if same:
                    unaccounted = np.delete(unaccounted, same)
                    firsts = np.delete(firsts, same)
            if unaccounted.size and changed_by_id:
                # and a fact that stood inside such a quotation, every copy of it
                every = holders(firsts.tolist())
                inside = self._inside_reflowed_quotations(
                    [place for group in every for place in group], self.pre_facts,
                    lambda i: None if (j := changed_by_id.get(edit.pre[i].id)) is None else self.post_facts[j])
                ends = list(accumulate(len(group) for group in every))
                kept = [n for n, end in enumerate(ends) if all(inside[end - len(every[n]):end])]
                if kept:
                    unaccounted = np.delete(unaccounted, kept)
        self.counts["dropped"] += int(unaccounted.size)
        report = self.reportable(unaccounted)
        if not len(report):
            return
        given = set(edit.evicted)
        # and every removed block that held it: which block a violation names follows the
        # window's order, and reclassifying may not (red team 49, F02)
        holders: dict[int, set[str]] = {}
        for k in np.flatnonzero(np.isin(d_pos, report)).tolist():
            holders.setdefault(int(d_pos[k]), set()).add(edit.pre[d_row(k)[0]].id)
        for fact, k in zip(np.asarray(report).tolist(), first[np.searchsorted(values, report)].tolist()):
            owner, row = d_row(k)
            b = edit.pre[owner]
            span = self.pre_facts[owner].table.span(row)
            self._drop_holders[len(self.violations)] = holders[fact]
            # a record the edit gave that records nothing, said so: the user passed it, and read
            # "neither an eviction record" as wrong (red team 90, F06)
            void = next((h for h in b.handles if h in given), None)
            why = ("" if void is None else f"; the eviction record of {void!r} records nothing, as a post block "
                   "still carries that handle (drop the handle from the block that keeps it, or keep the facts)")
            self.violate("I2", f"{edit.operator} dropped {span.key}={span.value!r} (block {b.id!r}) with neither an "
                         f"eviction record nor a supersession edge{why}", block=b.id, handle=(b.handles or (None,))[0],
                         key=span.key, value=span.value,
                         evidence={"span": [span.start, span.end], "text": span.text, "change": "dropped"})

    def _rewrapped_quotes(self, positions: np.ndarray, rows: _RowMap, facts: list[_Facts],
                          holders: Callable[[list[int]], list[list[tuple[int, int]]]],
                          other_of: Callable[[int], bytes | None]) -> set[int]:
        """Which of ``positions`` (in ``rows``' concatenation) are one-line quotations that a
        rewrite only re-flowed: a rewrite that re-flows a paragraph (red team 90, F02) wraps a
        quotation onto two lines, where the grammar, reading a quotation on one line, no longer
        sees it, or joins one back. ``holders`` gives the (block, row) of every block that held
        each one; ``other_of`` the text of the block with a holder's id on the other side. Each
        holder's other side must hold the quotation, delimiters included and runs of whitespace
        one space each, never across a blank line, at least as often as the holder does (red
        team 96, F08: another block's wrapped copy, or a second copy, excused a changed word)."""
        if not positions.size:
            return set()
        kinds = rows.kinds()[positions]
        quotes = np.flatnonzero((kinds == _KIND_QUOTE) | (kinds == _KIND_NAME))
        if not quotes.size:
            return set()
        needles: dict[int, bytes] = {}
        for q in quotes.tolist():
            owner, row = rows(int(positions[q]))
            table = facts[owner].table
            quoted = table.data[int(table.start[row]):int(table.end[row])]
            if table.kind[row] == _KIND_NAME:
                # a name the re-flow moved to or from a line's start, where the grammar reads a
                # capitalised word as a sentence's first, no name (red team 95, F03): the word
                # with the words either side of it, counted where they stand whole (the word
                # alone let "Mark the ticket done." come back as an approver Mark: red team 99, F09)
                needles[q] = _WORD_MARK + _word_in_context(table, row)
                continue
            if b"\n" in quoted:
                continue  # a fenced block: its lines are verbatim, whitespace is its text (red team 11, y06)
            quoted = _within_paragraphs(quoted)
            if b" " in quoted:
                needles[q] = quoted
        if not needles:
            return set()
        groups = dict(zip(needles, holders([int(positions[q]) for q in needles])))
        by_owner: dict[int, set[bytes]] = {}
        for q, group in groups.items():
            for owner, _ in group:
                by_owner.setdefault(owner, set()).add(needles[q])
        import ahocorasick  # (only a quotation dropped or introduced asks for it)

        # each block's quotations counted in one pass over its text and the other side's, not one
        # search each (a rewrite dropping thousands of quotations of a long block was quadratic)
        counts: dict[tuple[int, bytes], tuple[int, int]] = {}
        for owner, wanted in by_owner.items():
            other = other_of(owner)
            if other is None:
                continue
            automaton = ahocorasick.Automaton()
            for needle in wanted:
                automaton.add_word(needle.removeprefix(_WORD_MARK).decode("latin-1"), needle)
            automaton.make_automaton()
            own_count = _occurrences(automaton, _within_paragraphs(facts[owner].table.data))
            other_count = _occurrences(automaton, _within_paragraphs(other))
            for needle in wanted:
                counts[(owner, needle)] = (own_count[needle], other_count[needle])
        rewrapped = set()
        for q, group in groups.items():
            if all(0 < own <= other for own, other in (counts.get((owner, needles[q]), (1, 0)) for owner, _ in group)):
                rewrapped.add(q)
        return rewrapped

    @staticmethod
    def _only_marks(table: FactTable, owner: int, row: int, rows: _RowMap, places: np.ndarray,
                    gone: set[int] | None) -> bool:
        """Is row ``row`` of block ``owner`` a quotation whose whole inside is one fact that the
        other side still holds: for an introduced quotation (``gone`` None), a fact pre holds
        (its place among pre's distinct facts, ``places``, found); for a dropped one, a fact not
        ``gone``? Then the edit added or removed the marks alone."""
        if table.kind[row] != _KIND_QUOTE:
            return False
        inner = _inner_facts(table, row)
        if not inner:
            return False
        return all(_Check._other_side_holds(owner, i, rows, places, gone) for i in inner)

    @staticmethod
    def _other_side_holds(owner: int, row: int, rows: _RowMap, places: np.ndarray, gone: set[int] | None) -> bool:
        """Does the other side still hold the fact of row ``row`` of block ``owner``: for an
        introduced row (``gone`` None), a fact pre holds (its place among pre's distinct facts,
        ``places``, found); for a dropped one, a fact not ``gone``?"""
        k = rows.index_of(owner, row)
        if k is None:
            return False
        place = int(places[k])
        return not (place < 0 if gone is None else place in gone)

    @staticmethod
    def _in_quoted_pair(table: FactTable, owner: int, row: int, rows: _RowMap, places: np.ndarray,
                        gone: set[int] | None, spans: dict[Any, Any]) -> bool:
        """Does row ``row`` of block ``owner`` (not a kv fact) lie inside the quoted value of a kv
        fact of its block, its marks included (``region: "eu-west-1"``: the quotation and the
        identifier inside it), whose pair the other side still holds (as :meth:`_only_marks`
        asks it of an inner fact)? The pair says the value, so its pieces add no claim when a
        formatter quotes it, nor lose one when the quotes go (red team 94, F07: both refused).
        The innermost quoted value that starts before the row is asked (a value quoted inside
        another quoted value: the inner one). ``spans`` keeps each block's quoted values, and
        each quoted value's answer, made once a call (a value holding m facts is read once, not
        once for each of them). A pin's kv fact (grammar v8, ``nginx:1.25``) is a piece of the
        value like its name and version."""
        if table.kind[row] == _KIND_KV and not _pin_kv_rows(table, np.array([row], dtype=np.int64))[0]:
            return False
        values = spans.get(owner)
        if values is None:
            values = spans[owner] = _quoted_kv_values(table)
        start, end = int(table.start[row]), int(table.end[row])
        i = bisect_right(values, (start + 1,)) - 1
        if i < 0:
            return False
        open_at, close_at, kv = values[i]
        if not (open_at <= start and end <= close_at):
            return False
        if not _Check._other_side_holds(owner, kv, rows, places, gone):
            return False
        if gone is None and (owner, kv) in spans:
            return spans[owner, kv]
        if gone is None:
            # an introduced quotation's facts must all be new: one pre holds elsewhere would be
            # held by its copy inside the quotes, and a rewrite that quoted nginx:1.25 could drop
            # the sentence that said 1.25 (checked on every row inside, failing closed)
            first = int(np.searchsorted(table.start, open_at))
            last = int(np.searchsorted(table.start, close_at))
            for i in range(first, last):
                if i == kv or int(table.end[i]) > close_at:
                    continue
                k = rows.index_of(owner, i)
                if k is None or int(places[k]) >= 0:
                    spans[owner, kv] = False
                    return False
            spans[owner, kv] = True
        return True

    def _inside_reflowed_quotations(self, rows: list[tuple[int, int]], facts: list[_Facts],
                                    other_of: Callable[[int], _Facts | None]) -> list[bool]:
        """Whether each (block, row) of ``facts`` lies inside a one-line quotation or code span
        of its block that the block with its id on the other side (``other_of``) holds only
        re-flowed: a fact that exists only while the quotation is on one line (``timeout="30
        seconds"``, a code span's ``MAX_RETRIES = 5``) is dropped when a re-flow wraps it, and
        one it hid (``"acme/svc"`` in a code span) is introduced when the wrap opens the span
        (red team 95, F04: an agent's own tool-call lines, 12 of 40 windows at 60 columns). The
        quotations are both sides' one-line quote facts, runs of whitespace one space each and
        never across a blank line; one counts where this side holds it at least once and no more
        often than the other side, so a second copy deleted beside the wrap excuses nothing."""
        regions: dict[int, list[tuple[int, int]]] = {}
        out = []
        for owner, row in rows:
            if owner not in regions:
                other = other_of(owner)
                regions[owner] = [] if other is None else _reflowed_regions(facts[owner].table, other.table)
            table = facts[owner].table
            out.append(_inside(regions[owner], int(table.start[row]), int(table.end[row])))
        return out

    def _check_handle_drops(self, invariant: str) -> None:
        """A handle that leaves the window must leave with a record (eviction, supersession) or,
        after a lossy operator, stay reachable through a derived block's derived_from."""
        edit = self.edit
        if self.post.same_shape(self.pre):
            return  # the same handles in the same blocks
        evicted, superseded = self._covering()
        missing = self.pre.handle_union() - self.post.handle_union() - evicted - superseded.keys()
        if missing:  # a handle a post marker still cites is not dropped
            missing = {h for h in missing if not self._cited_anywhere(h)}
        for h in sorted(missing):
            holder = next(b for b in edit.pre if h in b.handles or h in b.derived_from)
            bid = holder.id
            if bid in evicted and not holder.handles:  # (an id record names a block without handles)
                continue
            self.violate(invariant, f"{edit.operator} removed every reference to {h!r} (block {bid!r}) without an "
                         "eviction record or supersession edge", block=bid, handle=h,
                         evidence={"change": "handle dropped"})

    def _cited_anywhere(self, handle: str) -> bool:
        if self._cited is None:
            self._cited = {found[0] for found in map(self._targets, self._marker_names()[0]) if len(found) == 1}
        return handle in self._cited

    def _check_reachability(self) -> None:
        """Lossy operators may lose text, never the way back to it (I1 for what they drop)."""
        self._check_handle_drops("I1")
        self._check_turns_reachable()

    def _check_turns_reachable(self) -> None:
        """A dropped block without a handle (an assistant turn, a user turn no tool logged) has
        no source to go back to: after a lossy operator its text must be stored under its
        block handle (``handles.block_text_handle``, as ``compact`` stores it) and named by
        a post block (derived_from, a marker or a supersession edge; I3 checks that it
        resolves), or the block evicted on the record (red team 11, y02: a summary dropped the
        turn "User approved region=eu-west-1 and budget 4500 EUR." without a trace)."""
        edit = self.edit
        pre = self.pre
        evicted, superseded = self._covering()
        named = self.post.derived_union()
        pre_blocks = pre.blocks
        for i in self.removed_content:
            b = pre_blocks[i]
            if b.handles or b.derived or b.id in evicted:
                continue
            h = block_text_handle(pre.digests[i])
            if h in named or h in superseded or self._cited_anywhere(h):
                stored = self.gate.handle_digest(h)
                if stored is None or _digest_key(stored) == pre.digests[i]:
                    continue  # (not stored at all: I3 reports it)
                # the name is the first 128 bits of the text's digest: another text under it is
                # no way back to this one (red team 12, z06)
                self.violate("I1", f"{edit.operator} dropped block {b.id!r}, and the store holds other text under its "
                             f"block handle {h!r} ({stored})", block=b.id, handle=h,
                             evidence={"change": "turn dropped", "stored": stored})
                continue
            self.violate("I1", f"{edit.operator} dropped block {b.id!r}, which has no handle, with no way back to it: "
                         f"store its text under {h!r} and name that handle in a summary's derived_from, or evict "
                         "the block on the record", block=b.id, handle=h, evidence={"change": "turn dropped"})

    # I4 --------------------------------------------------------------------------------------

    def _check_read_stamps(self) -> None:
        """A read's ``resource`` and ``ts`` say what it read and when: they order reads (I4), so
        an edit that keeps a read keeps them; an older read re-stamped as newer (or taken out
        of its resource) would let the next edit drop the newer read as stale."""
        pre, post = self.pre, self.post
        pre_blocks, post_blocks, match = pre.blocks, post.blocks, self.match
        if not self.in_place and (pre.by_resource() or post.by_resource()):
            # (in place: the same shape, resource and ts included, at every position)
            for j in _blockscan.stamps_changed(post_blocks, match, pre_blocks):
                b, pb = post_blocks[j], pre_blocks[match[j]]  # type: ignore[index]
                self._restamped(b, pb)
        # a copy of a pre text under another id (renamed, or a text moved to another block)
        # carries the stamps of a pre block with that text, or it re-stamps a read: a read
        # renamed with a newer ts would let the next edit drop the newer read as the stale one
        for j in self.moved:
            b, pb = post_blocks[j], pre_blocks[match[j]]  # type: ignore[index]
            if b.id == pb.id or not _stamps_differ(b, pb):
                continue
            if j in self.reused and any(not _stamps_differ(b, pre_blocks[i]) for i in pre.positions(post.digests[j])):
                continue  # a second copy of a text another post block kept, with a pre copy's stamps
            if self._fresh(j):
                continue  # a new read of a new source that found the same bytes
            self._restamped(b, pb)
        # t02: a read rewritten in place stays a read of its resource (its text may change, what
        # it read may not), unless it is a new read of a new source under the old id
        if pre.by_resource():
            pre_id = pre.id_pos()
            for j in self.changed:
                b = post_blocks[j]
                i = pre_id.get(b.id)
                if i is not None and pre_blocks[i].resource is not None and b.resource != pre_blocks[i].resource \
                        and not self._fresh(j, allow_own_id=True):
                    self._restamped(b, pre_blocks[i])

    def _restamped(self, b: Block, pb: Block) -> None:
        what = "resource" if b.resource != pb.resource else "ts"
        self.violate("I4", f"block {b.id!r} keeps the read {pb.id!r} but changes its {what} from "
                     f"{getattr(pb, what)!r} to {getattr(b, what)!r}: a read's resource and ts order the "
                     "reads of a resource and are kept as read", block=b.id, handle=(pb.handles or (None,))[0],
                     key=what, value=getattr(b, what), evidence={"pre": getattr(pb, what), "pre_block": pb.id})

    def _check_edges(self) -> None:
        """Supersession edges must name a post block and point forwards in time."""
        edit = self.edit
        self._check_read_stamps()
        if not edit.supersedes:
            return
        post_ids = self.post.id_pos()
        # the last pre block naming each superseded handle: one native pass for the few edges,
        # not an index of every handle of pre
        wanted = frozenset(s.handle for s in edit.supersedes)
        pre_blocks = self.pre.blocks
        handle_block: dict[str, int] = {}
        handle_read: dict[str, str] = {}  # a superseded handle -> the resource a carrier is tagged a read of
        for i in _blockscan.holding(pre_blocks, wanted):
            for h in pre_blocks[i].handles:
                if h in wanted:
                    handle_block[h] = i
                    tag = pre_blocks[i].resource
                    if tag is not None and handle_read.setdefault(h, tag) != tag:
                        # carriers tagged as reads of two files: none decides by its place in
                        # the window (the first one's tag did: red team 57, F05)
                        handle_read[h] = _SEVERAL_RESOURCES
        for s in edit.supersedes:
            j = post_ids.get(s.block)
            if j is None:
                self.violate("I4", f"supersession edge names block {s.block!r}, which is not in the post window",
                             block=s.block, handle=s.handle)
                continue
            if s.handle in edit.post[j].handles:
                # the block says it is a read of that source and that it replaces it: the edge
                # would let the block drop the source's values while still claiming them
                self.violate("I4", f"supersession edge: block {s.block!r} carries {s.handle!r} itself, and a block "
                             "cannot supersede its own source", block=s.block, handle=s.handle,
                             evidence={"handles": list(edit.post[j].handles)})
                continue
            older = handle_block.get(s.handle)
            if older is None:
                # no pre block carries the handle: a summary's derived_from may still name it,
                # and the edge then covers that summary's facts (I2)
                self._check_edge_past_summary(j, s.block, s.handle)
                continue
            newer = self.match[j]
            # (asked first: a new read of another file with the bytes of a pre block went by as
            # a fresh read, red team 57, F01)
            if not self._from_a_read_of(j, handle_read.get(s.handle), s.handle):
                continue
            if newer is not None and self._fresh(j, than=(s.handle,)):
                continue  # a new read that found an older read's bytes is still the newer read
            if newer is not None and edit.pre[newer].derived:
                newer = None  # a summary kept as it was is dated as a rewritten one (_newest_origin)
            if newer is None and older is not None:
                # a new or rewritten block is as new as the newest pre block it comes from (of
                # the superseded read's resource, when it comes from reads of it); a new read
                # of a new source is newer than all
                if not self._fresh(j, than=(s.handle,)):
                    newer = self._newest_origin(j, edit.pre[older].resource)
                    if newer is None and edit.post[j].derived and self._summary_newer_than(edit.post[j], s.handle):
                        continue
                    if newer is None:
                        self.violate("I4", f"supersession edge: block {s.block!r} comes from nothing the window "
                                     f"holds, so it cannot be shown newer than {s.handle!r} (a summary of sources "
                                     "that left the window earlier is no newer read)", block=s.block, handle=s.handle,
                                     evidence={"superseded_block": edit.pre[older].id})
                        continue
            if older is not None and newer is not None and older != newer and self._newer(older, newer):
                self.violate("I4", f"supersession edge goes backwards: block {s.block!r} is older than {s.handle!r}",
                             block=s.block, handle=s.handle,
                             evidence={"older": edit.pre[newer].id, "newer": edit.pre[older].id})
                continue
            self._check_edge_against_log(j, s.block, s.handle)

    def _from_a_read_of(self, j: int, resource: str | None, handle: str) -> bool:
        """An edge over ``handle`` (a pre block carrying it tagged a read of ``resource``; None:
        none is) may come only from a read of that resource or a block that comes from one (a
        fresh read of it is one): a read of another file, or a turn that cites nothing, is no
        newer observation of it, and dated by its place it superseded the newest read, the older
        value left alone in a summary (red team 55, F01, F02). Reports and returns False when it
        does not."""
        read_of = self.gate._read_of
        # what the handle is a read of: as the log files it, else as a pre block carrying it is
        # tagged (``resource``; the last carrier, an untagged excerpt of the newest read, said none
        # and let another file's read supersede it: red team 56, F01)
        resource = read_of.get(handle) or resource
        if resource is None:
            return True
        block = self.edit.post[j]
        if resource is _SEVERAL_RESOURCES:
            self.violate("I4", f"supersession edge: the pre blocks carrying {handle!r} are tagged as reads of several "
                         f"resources, so block {block.id!r} cannot be shown a newer read of it", block=block.id,
                         handle=handle)
            return False

        def reads_it(b: Block) -> bool:
            # tagged as a read of it, or carrying a handle the log files under it, whatever its
            # tag (an untagged excerpt of the newer read was refused: red team 56, F03)
            return b.resource == resource or any(read_of.get(h) == resource for h in b.handles)

        if reads_it(block):
            return True  # (a fresh read too, but only of the resource: red team 56, F02)
        found = self._comes_from_read.get(j)
        if found is None:
            # the resources the block's reads are reads of, by tag or by the log, once per block:
            # a summary superseding N reads, of N files, an edge each (red team 57, F02)
            pre_blocks = self.pre.blocks
            found = self._comes_from_read[j] = set()
            for i in self._origins(j) or ():
                b = pre_blocks[i]
                if not b.derived:
                    if b.resource is not None:
                        found.add(b.resource)
                    found.update(r for h in b.handles if (r := read_of.get(h)) is not None)
        if resource in found:
            return True
        if block.derived and self._summary_newer_than(block, handle, resource):
            return True  # (dated by the sources it derives from, that read the resource)
        self.violate("I4", f"supersession edge: block {block.id!r} comes from no read of {resource!r}, so it is no "
                     f"newer observation of {handle!r}, a read of it", block=block.id, handle=handle,
                     evidence={"resource": resource})
        return False

    def _summary_newer_than(self, block: Block, handle: str, resource: str | None = None) -> bool:
        """Is a summary, whose sources the window no longer holds, newer than ``handle``? A
        summary has no place of its own to date it (red team 53, F02), and without this one of
        the newer read could never supersede the older one once that read had left the window
        (F06). Its sources, a block handle among them standing for what that summary derives
        from, ``handle`` itself left out (what stands for the superseded read dates nothing; a
        summary of both reads superseding the older was refused as older than itself: red team
        58, F04): where ``handle`` is a read of a known resource (the log's, else ``resource``,
        the window's tag), the newest of its sources ranked among that resource's reads must be
        ranked after it; sources known as reads of other files date nothing (a summary of a
        later build log superseded the config's newest read: red team 54, F01; red team 57,
        F03). With none ranked: where the log files ``handle`` and has seen the file read before
        this window (a read the window does not carry), nothing else dates it (a summary of a
        source the log never saw, or of a turn, superseded the newest read: red team 58, F01,
        F02); else the sources read as no known file must all be stored after it, and a block
        handle among them (a turn's text, or a summary's the window does not hold) refuses it
        (red team 60, F01). Both ask the log as it will be once it takes this window's reads, so
        a retry of the check, after the first logged them, judges alike (red team 61, F04).
        Where no resource is known, every source must be stored after it, and a block handle the
        window holds no summary of (what it stands for unknown) refuses it. What a summary's
        sources are, and how the store and the log date them, is worked out once per summary:
        one summary of a file's N reads superseding the N - 1 older ones walked its sources per
        edge (red team 58, F05)."""
        if not block.derived_from or handle in self.ingested:
            return False
        dating = self._summary_datings.get(block.id)
        if dating is None:
            todo = list(block.derived_from)
            dating = self._summary_datings[block.id] = _SummaryDating(
                _handles_below(todo, self._through_block_handles(set(todo))))
        read_of = self.gate._read_of
        # (as the log will file it once it takes this pre window's reads: a read new in the pre
        # window was dated by the store in the first check and by the log in the retry, red
        # team 61, F04)
        filed = read_of.get(handle) or self._new_reads_filed().get(handle)
        # (the resource the window's tags give, where the log files the handle under none: a
        # summary of a build log's read, dated by all its sources, superseded the config's newest
        # read in a gate without the log, red team 57, F03)
        resource = filed or resource
        if resource is None:
            if dating.has_block_handle:
                # (without the log every source must date it, and a block handle the window holds no
                # summary of stands for what is not known: red team 55, F03/F04)
                return False
            return dating.stored_after(self, False, handle)
        rank = self._edge_rank(resource)  # (the log's line with the pre window's reads of it)
        top = dating.ranked(resource, rank)
        best = next((r for r, h in top if h != handle), None)
        if best is not None:
            return best > rank.get(handle, -1)
        if dating.has_block_handle or (filed is not None and self._read_before(filed)):
            # (a block handle the window holds no summary of stands for what is not known: set
            # aside, the older read's summary folded in came undated while a later build log
            # dated the summary, red team 60, F01)
            return False
        # no source known as a read of it: those known as reads of another file date nothing
        # (red team 57, F03); those read as nothing known, by the store (a summary of the newer
        # read once that read left a gate without the log)
        if self._handle_tags is None:
            self._handle_tags = {h: b.resource for b in self.pre.blocks if b.resource is not None for h in b.handles}
        dating.unknown(read_of, self._handle_tags)
        return dating.stored_after(self, True, handle)

    def _check_edge_against_log(self, j: int, block_id: str, handle: str) -> None:
        """An edge the window's own order lets through, held to the session's read log too: where
        the log files ``handle`` under a resource and post block ``j`` comes from reads of it the
        log ranks, the newest of those must be ranked after the handle. The window dates a block
        carrying the handle by its ``ts``, else its place, and a block without a ``ts`` placed
        first (an excerpt of the newer read, a summary listing its handle) made it the older one,
        so the older read superseded the newer one as lossless, though the log held them in order
        (red team 53, F01)."""
        # (as the log will file it once it takes this pre window's reads, whatever the verdict: a
        # read new in this window went unchecked here, was logged, and the same check run again
        # was refused, red team 58's merge review)
        resource = self.gate._read_of.get(handle) or self._new_reads_filed().get(handle)
        if resource is None:
            return
        rank = self._edge_rank(resource)
        at = rank.get(handle)
        if at is None:
            return
        top, newest = self._edge_newest(j, resource)
        # the block's own handles the log ranks there date it too: a block is no newer than any
        # observation it holds (a build log's read that took the older config read's handle as
        # well superseded the newest one: red team 57, F04)
        own = min((rank[h] for h in self.edit.post[j].handles if h in rank), default=None)
        if own is not None and own < at:
            top, newest = own, -1
        if newest is not None and top < at:
            self.violate("I4", f"supersession edge goes backwards: block {block_id!r} is older than {handle!r}: the "
                         f"session's read log places {handle!r} after the read it comes from among the reads of "
                         f"{resource!r}", block=block_id, handle=handle,
                         evidence={"older": block_id if newest < 0 else self.pre.blocks[newest].id, "newer": handle})

    def _check_edge_past_summary(self, j: int, block_id: str, handle: str) -> None:
        """An edge from post block ``j`` over ``handle``, which no pre block carries, only a
        summary's ``derived_from`` names (or none). The summary is no observation of the handle
        and has no age of its own to compare: the handle is as new as the session's read log
        places it among its resource's reads (as the log will hold them once it takes this pre
        window's), else as the store dates it (sources are put as tool calls return). The block
        must be a fresh read, or come from a pre read the log places after the handle, or, where
        the log does not hold the handle, from a pre block holding a source stored after it;
        one that comes from neither cannot be shown newer, and is refused (fail closed). A
        summary's block handle stands for what that summary derives from.

        Red team 49, F01: the direction was checked only against a pre block carrying the
        handle, so an older read (ts 100) "superseded" the newer read (ts 200) that an earlier
        cycle had summarized, the summary stating the newer value was dropped as superseded,
        and the edit passed as lossless; so did the system prompt superseding it."""
        pre = self.pre
        holders = pre.by_provenance().get(handle)
        if not holders:
            return  # (named by no pre block: the edge covers nothing the window holds)
        read_of = self.gate._read_of
        post_resource = self.edit.post[j].resource

        def fresh_for(leaf: str) -> bool:
            # a new read of a new source is newer than all; but not than a source the same
            # edit's inline sources brought, which no order puts before it (red team 52, F02),
            # nor, where the log files the handle under a resource, as a read of another one
            # (a new build log superseded the summary of the newest read of a config: red
            # team 53, F05)
            if leaf in self.ingested or read_of.get(leaf, post_resource) != post_resource:
                return False
            return self._fresh(j, than=(leaf,))

        if fresh_for(handle):
            return
        # what the handle stands for: a summary's block handle, what the summary derives from
        # (the whole chain below it; the map is made once for every edge's handle)
        if self._edge_through is None:
            self._edge_through = self._through_block_handles({e.handle for e in self.edit.supersedes})
        # (memoised across the edges: each walked the chain below its link again, red team 64, F04)
        leaves = _leaves_below(handle, self._edge_through, self._edge_leaves)
        if not leaves:
            # block handles that only stand for each other (a summary deriving from its own text,
            # two from each other's): nothing below the loop dates it, so the handle dates
            # itself; no leaf skipped the check (red team 51, F02)
            leaves = {handle}
        pre_blocks = pre.blocks
        summary = self.edit.post[j] if self.edit.post[j].derived else None
        for leaf in sorted(leaves):
            if summary is not None and self._summary_newer_than(summary, leaf):
                continue  # (a summary of reads all read after it)
            if leaf != handle and fresh_for(leaf):
                continue  # (a new read stored before the summary's block handle, after what it stands for)
            resource = read_of.get(leaf)
            if resource is not None:
                # the log's place: the newest pre read of that resource the block comes from
                # must be logged after it (a read of several handles is as old as the oldest)
                rank, (top, newest) = self._edge_rank(resource), self._edge_newest(j, resource)
                if newest is not None and top > rank[leaf]:
                    continue
                why = (f"the session's read log places {leaf!r} after it among the reads of {resource!r}"
                       if newest is not None else f"it comes from no read of {resource!r}, where the session's "
                       f"read log files {leaf!r}")
            else:
                at = self.gate.handle_seqs((leaf,)).get(leaf)
                if at is None:
                    continue  # (a handle the store does not hold: I3 reports it)
                top, newest = self._edge_newest(j, None)
                if leaf in self.ingested:
                    # brought by this edit's inline sources: as new as anything the store held,
                    # and not ordered among the edit's other sources (a JSON object's keys have
                    # no order), so no block the window holds is shown newer; by the store's
                    # order, the keys' order chose the verdict (red team 51, F01)
                    newest = None
                    why = f"this edit's own sources brought {leaf!r}, as new as anything the store held"
                elif newest is not None and top > at:
                    continue
                else:
                    why = (f"the store took {leaf!r} after a source it comes from" if newest is not None
                           else "it comes from no stored source")
            named = [pre_blocks[i].id for i in holders]
            if newest is None:
                self.violate("I4", f"supersession edge: block {block_id!r} cannot be shown newer than {handle!r}, "
                             f"which only summaries name ({named}): {why}", block=block_id, handle=handle,
                             evidence={"superseded": leaf, "named_by": named})
            else:
                self.violate("I4", f"supersession edge goes backwards: block {block_id!r} is older than {handle!r}, "
                             f"which only summaries name ({named}): {why}", block=block_id, handle=handle,
                             evidence={"older": pre_blocks[newest].id, "newer": leaf, "named_by": named})
            return

    def _edge_rank(self, resource: str) -> dict[str, int]:
        """handle -> its place in the read log's line of ``resource``, as the log will hold it
        once it takes this pre window's reads (:meth:`_check_edge_past_summary`)."""
        rank = self._edge_ranks.get(resource)
        if rank is None:
            gate = self.gate
            with gate._lock:
                line = list(gate._read_log.get(resource, ()))
                read_of = gate._read_of
                # only the reads the log will file under this resource: a new read tagged as
                # two files' is filed under the first, and ranked here under both it was
                # accepted once and refused when the same check ran again (red team 53, F04)
                window_line = self.pre.read_line_of(resource)
                new = [(h, ts) for h, ts in window_line if h not in read_of]
                if new:
                    filed = self._new_reads_filed(locked=True)
                    new = [(h, ts) for h, ts in new if filed.get(h, resource) == resource]
            # (the window's line, whose logged reads and the stamps it gives them place the new
            # ones as the log will: log_reads)
            log_reads({resource: line}, dict.fromkeys(h for h, _ in line), resource,
                      _line_as_logged(window_line, line, new))
            rank = self._edge_ranks[resource] = {h: k for k, (h, _) in enumerate(line)}
        return rank

    def _read_before(self, resource: str) -> bool:
        """Has the read log seen ``resource`` read other than as this pre window holds it: does
        its line, as it will be once it takes this window's reads, hold a read no primary pre
        block holds whole (its stored bytes)? A token excerpt carrying an older read's handle
        made the log's history look like the window's (red team 62, F03); a read new here and
        shown cut counts as the retry will count it, once logged (red team 63, F01: accepted,
        then refused on the retry). Which cut of a read a window shows is no record of what the
        session saw of it (red team 65, F01: the digest of the first text a read was logged from
        let a cut shown once, in a weighed candidate, stand for the read later shown whole)."""
        found = self._reads_before.get(resource)
        if found is None:
            if self._read_handles is None:
                pre, gate = self.pre, self.gate
                self._read_handles = {h for i, b in enumerate(pre.blocks) if not b.derived
                                      if (h := gate._text_source(pre.digests[i], b)) is not None}
            carried = self._read_handles
            gate = self.gate
            with gate._lock:
                line = gate._read_log.get(resource, ())
                new = self._new_reads_filed(locked=True)
                found = self._reads_before[resource] = (
                    any(h not in carried for h, _ in line)
                    or any(r == resource and h not in carried for h, r in new.items()))
        return found

    def _new_reads_filed(self, locked: bool = False) -> dict[str, str]:
        """The pre window's reads of one handle the read log does not hold, each with the
        resource the log will file it under (_Side.unlogged_reads), once per check (``locked``:
        the caller holds the gate's lock)."""
        found = self._new_reads
        if found is None:
            gate = self.gate
            if locked:
                found = self._new_reads = self.pre.unlogged_reads(gate._read_of)
            else:
                with gate._lock:
                    found = self._new_reads = self.pre.unlogged_reads(gate._read_of)
        return found

    def _edge_newest(self, j: int, resource: str | None) -> tuple[int, int | None]:
        """What dates post block ``j`` against a superseded handle, as (date, the pre block
        that dates it), (-1, None) for none: among the pre reads of ``resource`` it comes from,
        the newest one's place in the read log's line (a read of several handles as its
        oldest); for None (the log files no resource for the handle, so it is not known which
        reads are its resource's), the OLDEST of all the pre blocks it comes from, each by the
        lowest store seq of its handles: a block is shown newer than the handle only when every
        source it comes from was stored after it (a later read of another file, folded into a
        summary of the older read, made that summary newer than the newer read: red team 52,
        F04). Once per block and resource: an edge per superseded handle must not scan the
        block's origins again (red team 49, F03)."""
        key = (j, resource)
        found = self._edge_newests.get(key)
        if found is None:
            origins = self._origins(j) or []
            pre_blocks = self.pre.blocks
            found = (-1, None)
            if resource is not None:
                # the blocks carrying handles the log files under the resource, whatever they are
                # tagged: an excerpt of the older read without its tag superseded the newer read
                # past this check (red team 54, F03)
                # (only the origins holding a handle of the resource's line, from an index of the
                # block's origins by handle made once: a scan of every origin per resource made a
                # summary superseding the older reads of N files quadratic, red team 57, F02)
                rank = self._edge_rank(resource)
                holding = self._origins_by_handle(j)
                for i in sorted({i for h in _among(rank, holding) for i in holding[h]}):
                    at = min(rank[h] for h in pre_blocks[i].handles if h in rank)
                    if at > found[0]:
                        found = (at, i)
            else:
                # a summary among them is as old as the sources it derives from (a block handle
                # among those is no date of them: its text was stored after), and one deriving
                # from none that dates it dates the block as older than anything; skipped, it
                # let a summary of the older read go undated (red team 53, F03)
                def dating(b: Block) -> list[str]:
                    return ([h for h in b.derived_from if not h.startswith(BLOCK_HANDLE_PREFIX)] if b.derived
                            else list(b.handles))

                seqs = self.gate.handle_seqs([h for i in origins for h in dating(pre_blocks[i])])
                for i in origins:
                    at = min((seqs[h] for h in dating(pre_blocks[i]) if h in seqs),
                             default=-1 if pre_blocks[i].derived else None)
                    if at is not None and (found[1] is None or at < found[0]):
                        found = (at, i)
            self._edge_newests[key] = found
        return found

    def _origins_by_handle(self, j: int) -> dict[str, list[int]]:
        """handle -> the pre blocks post block ``j`` comes from that hold it (``handles``), once
        per block."""
        found = self._origin_holders.get(j)
        if found is None:
            found = self._origin_holders[j] = {}
            pre_blocks = self.pre.blocks
            for i in self._origins(j) or ():
                for h in pre_blocks[i].handles:
                    found.setdefault(h, []).append(i)
        return found

    def _fresh(self, j: int, allow_own_id: bool = False, than: Iterable[str] = ()) -> bool:
        """Is post block ``j`` a new read: a primary block (a derived one observes nothing)
        whose handles are all new to the window, and stored after every source of the pre
        reads of its resource (and after the sources ``than``), whatever bytes it found? A
        source evicted in an earlier edit is new to the window, not a new read: the store's
        insertion order tells the two apart."""
        key = (j, allow_own_id, than if isinstance(than, _LeftLine) else tuple(than))
        found = self._fresh_answers.get(key)
        if found is None:
            found = self._fresh_answers[key] = self._is_fresh(j, allow_own_id, than)
        return found

    def _is_fresh(self, j: int, allow_own_id: bool, than: Iterable[str]) -> bool:
        # What does not depend on ``than`` is worked out once per block: a fresh read
        # superseding N reads of its resource, an edge each, listed and looked up the handles
        # of all N per edge, quadratic in N (red team 49, F03)
        key = (j, allow_own_id)
        base = self._fresh_bases.get(key)
        if base is None:
            base = self._fresh_bases[key] = self._fresh_base(j, allow_own_id)
        if isinstance(base, bool):
            return base
        own, older_seq, has_older = base
        line = than if isinstance(than, _LeftLine) else None
        others = [] if older_seq is None else [older_seq]
        if line is None:
            than = tuple(than)
            has_older = has_older or bool(than)
            if than:
                others.extend(self.gate.handle_seqs(than).values())
        if not has_older and not (line is not None and len(line)):
            return True
        if own is None:  # (looked up only now: nothing older needed it)
            handles = self.edit.post[j].handles
            seqs = self.gate.handle_seqs(handles)
            own = [seqs[h] for h in handles if h in seqs]
            self._fresh_bases[key] = (own, older_seq, base[2])
        if line is not None and (highest := line.highest_seq()) is not None:
            others.append(highest)
        return bool(own) and (not others or min(own) > max(others))

    def _fresh_base(self, j: int, allow_own_id: bool) -> bool | tuple[list[int] | None, int | None, bool]:
        """:meth:`_is_fresh` without ``than``: the answer when it does not depend on it, else
        the seqs of the block's own handles (None: not looked up yet), the highest seq of the
        pre reads of its resource and whether those reads hold any handle."""
        block = self.edit.post[j]
        if block.derived or not block.handles:
            return False
        # (the id first, then the block it was matched to: each answers without the handle
        # index of pre, whose ~one list per block is built only when neither does; a primary
        # pre block's handles are its keys there)
        if not allow_own_id and block.id in self.pre.id_pos():
            return False
        m = self.match[j]
        if m is not None and not (held := self.pre.blocks[m]).derived and any(h in held.handles for h in block.handles):
            return False
        holders = self.pre.by_provenance()
        if any(h in holders for h in block.handles):
            return False
        if self.ingested.issuperset(block.handles):
            # brought by this edit's inline sources: as new as anything the store held, and
            # the sources of one edit are not ordered among themselves (a JSON object's keys
            # have no order)
            return True
        pre_blocks = self.pre.blocks
        older = [h for i in self.pre.by_resource().get(block.resource, ()) if block.resource is not None
                 for h in pre_blocks[i].handles]
        # (a session's every read of a resource, _LeftLine, gives its highest seq, kept as the
        # log grows, rather than its handles: _is_fresh adds it, or the sources ``than``)
        if not older:
            return None, None, False
        seqs = self.gate.handle_seqs([*block.handles, *older])
        own = [seqs[h] for h in block.handles if h in seqs]
        return own, max((seqs[h] for h in older if h in seqs), default=None), True

    def _fresh_read_of(self, resource: str) -> bool:
        """Does post hold a fresh read of ``resource`` (then it, not any pre read, is the newest
        read: keeping an older read beside it merges nothing)?"""
        return any(self._fresh(j) for j in self.post.by_resource().get(resource, ()))

    def _origins(self, j: int) -> list[int] | None:
        """The pre blocks post block ``j`` comes from: the pre block it was matched to or has
        the id of, and those holding a handle of its provenance (handles, derived_from, the
        handles its markers cite). None when its provenance is wholly new to the window (a
        fresh read, not a restatement of anything pre held)."""
        cached = self._origins_of.get(j, _NOT_YET)
        if cached is not _NOT_YET:
            return cached
        self._origins_of[j] = found_origins = self._origins_made(j)
        return found_origins

    def _origins_made(self, j: int) -> list[int] | None:
        block = self.edit.post[j]
        found: set[int] = set()
        m = self.match[j]
        if m is not None:
            found.add(m)
        own = self.pre.id_pos().get(block.id)
        if own is not None:
            found.add(own)
        if not found and self._fresh(j):
            return None
        # (the block's facts as marked holds them: a structural edit has no post_facts)
        marked = self.marked.get(j)
        refs = (*block.handles, *block.derived_from, *(self.cited(j, marked) if marked is not None else ()))
        holders = self.pre.by_provenance()
        for h in refs:
            found.update(holders.get(h, ()))
        return sorted(found)

    def _newest_origin(self, j: int, resource: str | None) -> int | None:
        """The newest pre block post block ``j`` comes from (among the reads of ``resource``
        when it comes from any); None for a fresh read or a block that comes from nothing.
        Summaries among them are passed over: a summary observes nothing, and can stand
        anywhere in the window, so its place is no date (red team 53, F02: a summary of the
        older read, kept after the newer read, superseded it by its place); what it derives
        from, held in the window, is among the origins already."""
        # Worked out once per block, for every resource at once: one summary superseding N
        # reads, an edge each, made its origins again and ran _newest_of over all of them per
        # edge, quadratic in N (red team 49, F03: 2.25M _newer calls at N=1,500). Each group
        # keeps the origins' order, so the first of equals is the same block as before.
        if j in self._newest_origins:
            found = self._newest_origins[j]
        else:
            found = None
            pre_blocks = self.edit.pre
            origins = [i for i in self._origins(j) or () if not pre_blocks[i].derived]
            if origins:
                groups: dict[str, list[int]] = {}
                for i in origins:
                    r = pre_blocks[i].resource
                    if r is not None:
                        groups.setdefault(r, []).append(i)
                found = (self._newest_of(origins), {r: self._newest_of(g) for r, g in groups.items()})
            self._newest_origins[j] = found
        if found is None:
            return None
        overall, per_resource = found
        return overall if resource is None else per_resource.get(resource, overall)

    def _post_newer(self, a: int, b: int) -> bool:
        """Is post block ``a`` newer than post block ``b`` (the order _newer gives pre)?"""
        return _ordered_after(a, self.edit.post[a].ts, b, self.edit.post[b].ts)

    def _newest_of(self, indices: list[int]) -> int:
        """The newest of some pre blocks (the first of equals)."""
        best = indices[0]
        for i in indices[1:]:
            if self._newer(i, best):
                best = i
        return best

    def _check_read_order(self) -> None:
        """The post window orders a resource's reads as pre ordered what they come from.

        Reads are ordered by ts, else by window order; the newest one is what I4 keeps. A read
        moved after a newer one (without a ts, its place is its time), or a new or rewritten
        block tagged as a read of the resource with a newer ts than what it holds was read at,
        would let the next edit drop the newer read as stale: each edit alone looks fine."""
        post = self.post
        post_res = post.by_resource()
        if not post_res:
            return
        pre, match = self.pre, self.match
        pre_res = pre.by_resource()
        pre_blocks, post_blocks = pre.blocks, post.blocks
        touched = ({*self.changed, *self.moved, *self.ws_matched} if self.in_place else None)
        # the resources whose reads can be out of order: read twice with different content in
        # pre (kept reads can change places), and those a new or changed block claims to read
        resources = [r for r in pre.reads() if r in post_res]
        # (in the order the changed blocks come: a set's order changes with the process's hash
        # seed, and so would the order of the violations, where the same input must give the
        # same verdict)
        known: set[str | None] = {None, *resources}
        resources += [r for r in dict.fromkeys(post_blocks[j].resource for j in self.changed) if r not in known]  # type: ignore[misc]
        for resource in resources:
            post_reads = post_res[resource]
            if touched is not None and touched.isdisjoint(post_reads):
                continue
            pre_reads = set(pre_res.get(resource, ()))
            origin: dict[int, int] = {}  # post read -> the pre read of the resource it comes from
            in_order = True  # every post read kept with its stamps, in its pre order
            last_origin = -1
            for j in post_reads:
                b = post_blocks[j]
                m = match[j]
                if m is not None:
                    # kept: the pre copy of its text with its stamps (another one re-stamps it,
                    # reported as such; a new read that found the same bytes is fresh)
                    if _stamps_differ(b, pre_blocks[m]):
                        in_order = False
                        if self._fresh(j):
                            continue
                        m = next((i for i in pre.positions(post.digests[j]) if not _stamps_differ(b, pre_blocks[i])),
                                 None)
                    if m is not None and pre_blocks[m].resource == resource:
                        in_order = in_order and m > last_origin
                        last_origin = max(last_origin, m)
                        origin[j] = m
                    continue
                in_order = False
                origins = self._origins(j)
                if origins is None:
                    continue  # a fresh read: newer than everything pre held
                reads = [i for i in origins if i in pre_reads]
                if not reads:
                    self.violate("I4", f"block {b.id!r} is tagged as a read of {resource!r}, but none of the blocks "
                                 "it comes from is one", block=b.id, handle=(b.handles or (None,))[0],
                                 key="resource", value=resource,
                                 evidence={"comes_from": [pre_blocks[i].id for i in origins]})
                    continue
                stamped = [t for _, t in map(self._order_of, reads) if t is not None]
                if b.ts is not None and (not stamped or b.ts > max(stamped)):
                    read_at = f"at ts {max(stamped)!r} at the latest" if stamped else "without a ts"
                    self.violate("I4", f"block {b.id!r} claims a read of {resource!r} at ts {b.ts!r}, but what it "
                                 f"holds comes from reads of it made {read_at} "
                                 f"({[pre_blocks[i].id for i in reads]}): a newer ts would let a later edit drop "
                                 "a newer read as the stale one", block=b.id, handle=(b.handles or (None,))[0],
                                 key="ts", value=b.ts,
                                 evidence={"comes_from": [pre_blocks[i].id for i in reads], "read_at": max(stamped, default=None)})
                    continue
                origin[j] = self._newest_of(reads)
            if not in_order:  # (kept reads in their order, with their stamps, are ordered as before)
                self._check_pair_order(resource, origin, touched)
            self._check_newest_restatement(resource, post_reads)

    def _check_newest_restatement(self, resource: str, post_reads: list[int]) -> None:
        """A new or changed block that post orders as the newest read of ``resource`` is what
        the next edit keeps as its current content: it states no value the newest pre read
        changed, without the newer one (a summary of both reads, stamped as the newer one,
        that says retries=3)."""
        reads = self.pre.reads().get(resource)
        if not reads:
            return
        match = self.match
        # a fresh read says what the resource holds now, whatever an older read said (a value
        # can go back: a status that flaps)
        new_reads = [j for j in post_reads if match[j] is None and not self._fresh(j)]
        if not new_reads:
            return
        top = self._newest_reads(resource, reads)
        if len(top) != 1:
            return
        # the post copies of the newest read, and the newest read rewritten in place (under its
        # id): a new read ordered after all of them is as new (both reads of a file rewritten
        # in place, a blank line dropped from each: the older one, ordered before the newer, is
        # no newest read; red team 95, F01 of stop 39, refused as the stale value kept alone).
        # The rewritten newest read is asked itself.
        newest_id = self.edit.pre[top[0]].id
        post_blocks = self.post.blocks
        kept = [j for j in post_reads if (match[j] is not None and self.pre.digests[match[j]] == self.pre.digests[top[0]])
                or (match[j] is None and post_blocks[j].id == newest_id)]
        claim = [j for j in new_reads if all(k == j or self._post_newer(j, k) for k in kept)]
        if claim:
            self._check_stale_values(resource, reads, top[0], only=claim)

    def _check_pair_order(self, resource: str, origin: dict[int, int], touched: set[int] | None) -> None:
        """Every two post reads of ``resource`` (with what they come from in ``origin``) are in
        the order of their pre reads; the first pair out of order is reported."""
        items = sorted(origin.items())
        pre, post = self.edit.pre, self.edit.post
        content: dict[bytes, int] = {}
        # (in the log's order where the window contradicts it: the pre place is then the log's)
        orders = [self._order_of(oj) for _, oj in items]
        rows = [ReadOrder(j, post[j].ts, place, ts, content.setdefault(self.pre.digests[oj], len(content)),
                          touched is None or j in touched) for (j, oj), (place, ts) in zip(items, orders)]
        pair = first_out_of_order(rows)
        if pair is None:
            return
        a, b = rows[pair[0]], rows[pair[1]]
        a, b = a._replace(pre_pos=items[pair[0]][1]), b._replace(pre_pos=items[pair[1]][1])
        newer, older = (a, b) if _ordered_after(a.post_pos, a.post_ts, b.post_pos, b.post_ts) else (b, a)
        self.violate("I4", f"the reads of {resource!r} change order: {post[newer.post_pos].id!r} is now newer "
                     f"than {post[older.post_pos].id!r}, but it holds the older read {pre[newer.pre_pos].id!r} "
                     f"(the newer is {pre[older.pre_pos].id!r}); a read without a ts is as new as its place in "
                     "the window", block=post[newer.post_pos].id, handle=(post[newer.post_pos].handles or (None,))[0],
                     key="resource", value=resource,
                     evidence={"newer_in_post": post[newer.post_pos].id, "holds": pre[newer.pre_pos].id,
                               "newer_in_pre": pre[older.pre_pos].id})

    def _newer(self, a: int, b: int) -> bool:
        """Is pre block ``a`` newer than pre block ``b`` (by ts when both have one, else order)?
        Two reads of one resource whose window order contradicts the session's read log are
        ordered as the log orders them (:meth:`_log_keys`)."""
        pre = self.edit.pre
        keys = self._log_keys()
        if keys:
            ka, kb = keys.get(a), keys.get(b)
            if ka is not None and kb is not None and pre[a].resource == pre[b].resource:
                return _ordered_after(ka[0], ka[1], kb[0], kb[1])
        return _ordered_after(a, pre[a].ts, b, pre[b].ts)

    def _order_of(self, i: int) -> tuple[int, float | None]:
        """What orders pre read ``i`` among the reads of its resource, as (place, ts): its
        place in the read log and the ts it was logged with where the window contradicts the
        log (:meth:`_log_keys`), else its place in the window and its ts."""
        keys = self._log_keys()
        key = keys.get(i) if keys else None
        return (i, self.edit.pre[i].ts) if key is None else key

    def _newest_reads(self, resource: str, reads: list[int]) -> list[int]:
        """The newest of a resource's pre reads (``_Side.newest_reads``), in the read log's
        order where the window contradicts it."""
        keys = self._log_keys()
        if keys and reads and reads[0] in keys:
            return top_cycle(reads, lambda i: keys[i][1], lambda i: keys[i][0])
        return self.pre.newest_reads(resource, reads)

    def _log_keys(self) -> dict[int, tuple[int, float | None]]:
        """pre read -> (place, ts) that order it, for every read of each resource whose reads
        the window orders otherwise than the session's read log does (red team 27, x03);
        empty when the window agrees with the log as it will be once it takes the window's reads.

        A handle the log holds names one observation, made when the log says: its ts is the
        one it was logged with, its place the log's (a check logs its pre window's reads, and
        its committed post's, so the next check starts from them). An older read put back
        into the window after the newer one (fetched again from the store, appended without a
        ts or with the ts of its insertion) would otherwise be taken as the newest by its
        place or its new ts, and the next prune would drop the newer read as the stale one.
        The places are those of the line the log will hold after this check: the window's
        reads new to the log go where the log will put them (after the logged ones, or before
        the first stamped later), so this check and the next agree. A read of several handles
        (never logged) is as old as the oldest handle the log holds among them (red team 28,
        y03: one more handle must not make an older read the newest), or, holding none, goes
        after every read before it in the window. Two reads are then ordered as ever: by ts when
        both have one, else by place."""
        keys = self._log_ordered
        if keys is None:
            keys = self._log_ordered = {}
            for resource, reads in self.pre.reads().items():
                self._log_order(resource, reads, keys)
        return keys

    def _log_order(self, resource: str, reads: list[int], keys: dict[int, tuple[int, float | None]]) -> None:
        gate = self.gate
        with gate._lock:
            line = list(gate._read_log.get(resource, ()))
            read_of = gate._read_of
            window_line = self.pre.read_line_of(resource)
            new = [(h, ts) for h, ts in window_line if h not in read_of]
        if not line and not new:
            return
        blocks = self.pre.blocks
        if not line and _takes_as_it_stands(window_line, reads, blocks):
            return  # (the log takes the window's own line as it stands: no key, no spread)
        logged = dict(line)  # handle -> the ts it was logged with
        if not new and _log_agrees(line, logged, window_line, reads, blocks):
            return  # (no key, no spread: see _log_agrees)
        # The window's reads new to the log are ordered where the log puts them, also when the
        # log holds none of the window's reads (or none of the resource's): the next check
        # finds them logged and orders them so. Ordered by the window alone, reads with a ts on
        # some only (one stamped before the reads ahead of it goes before them in the log) were
        # judged one way in the check where they arrived and the other way in the same check
        # run again, or in a resumed session after it.
        # the line as the log will hold it (the window's logged reads, and the stamps it gives
        # them, place the new ones: log_reads)
        log_reads({resource: line}, dict.fromkeys(h for h, _ in line), resource,
                  _line_as_logged(window_line, line, new))
        if not logged and _log_agrees(line, dict(line), window_line, reads, blocks):
            return  # (it put no read before another: the window's own line, as above)
        order, rank = _log_places(line, sorted(reads), blocks)
        ranked = [i for i in reads if any(h in rank for h in blocks[i].handles)]
        if any(blocks[i].ts != order[i][1] for i in ranked) or not _same_order(ranked, blocks, order):
            keys.update(order)
        # a read holding several reads the line orders apart is no one observation: ordered as
        # the oldest of them, and, dropped, as new as the newest of them (_check_spread_reads)
        for i in ranked:
            held_ranks = [rank[h] for h in blocks[i].handles if h in rank]
            if len(held_ranks) > 1:
                newest = max(held_ranks)
                self._log_spread[i] = (line[newest][0], 2 * newest * (len(blocks) + 1), order)

    def _check_freshness(self) -> None:
        kept_pre = self.used
        evicted, superseded = self._covering()
        derived_refs = self.post.derived_union()
        self._check_edges()
        self._check_reads_as_filed()
        # two different reads of one resource
        # in place, a resource none of whose reads changed, moved or was rewritten in whitespace
        # keeps every read as it was (same position, id, text and resource): nothing to report
        touched = {*self.changed, *self.moved, *self.ws_matched} if self.in_place else None
        for resource, reads in self.pre.reads().items():
            if touched is not None and touched.isdisjoint(reads):
                continue
            self._check_stamp_units(resource, reads)
            self._check_reads(resource, reads, kept_pre, evicted, superseded, derived_refs)
        self._check_logged_units(touched)
        self._check_read_order()
        self._check_left_reads()

    def _check_reads_as_filed(self) -> None:
        """A read's handle names one observation of one resource, and the session's read log
        files it under the resource it was first read as (as the log will be once it takes
        this pre window's reads). A pre read tagged as another resource's was retagged outside
        the gate, or one handle is tagged as two resources' reads in one window: the rules on
        the window's reads group the reads by their tags, so such a read escapes its
        resource's line, and an edit keeping the older read alone and evicting the newer one
        passed as lossless (lead 5, L4b: the newer read retagged between two gated checks).
        Refused, naming both resources, unless the window also shows the handle as a read of
        the resource it is filed under (then that resource's line holds it, and the other tag
        is a second view of it: a preview tagged as a page of the file, red team 67). A read of
        several handles is in no line, and is asked of each handle the log files elsewhere; a
        read the log files shown whole with no tag is refused the same way (red team 116, F09:
        untagged, or given a second handle, the newer read escaped)."""
        pre = self.pre
        ix = pre.ix
        if ix.reads_filed:
            return  # (a window of this shape was found so, and the log keeps what it filed)
        by_resource = pre.by_resource()
        read_of = self.gate._read_of
        if not by_resource or (not read_of and len(by_resource) < 2):
            return  # (no read the log or another tag of this window can file elsewhere)
        new = self._new_reads_filed()
        blocks = pre.blocks
        shown: set[tuple[str, str]] | None = None
        as_logged = True
        misfiled: list[tuple[int, str, str | None, str]] = []  # (block, handle, its tag, where it is filed)
        for resource, reads in by_resource.items():
            for i in reads:
                handles = blocks[i].handles
                if len(handles) != 1:
                    # a read of several handles is in no line, but one of them the log files
                    # elsewhere escapes that line (red team 116, F09: retagged, with a second handle)
                    for h in handles:
                        if (logged := read_of.get(h)) is not None and logged != resource:
                            as_logged = False
                            misfiled.append((i, h, resource, logged))
                    continue
                logged = read_of.get(handles[0])
                filed = logged or new.get(handles[0])
                if filed == resource:
                    as_logged = as_logged and logged is not None
                    continue
                as_logged = False
                if filed is not None:
                    misfiled.append((i, handles[0], resource, filed))
        if read_of:
            # a read the log files, shown whole with its tag dropped, is in no line either (F09:
            # the newer read untagged between two gated checks), whatever role or other handles
            # it was given and however its lines were re-rendered (red team 117, F09: its final
            # line break stripped, CRLF, a blank line added; the window's whitespace
            # normalisation, _pin_normalised); an untagged excerpt of it is not the read and is
            # honest (red team 56, F03). Only blocks naming a logged handle can be one: found
            # natively from the handles the window and the log share (a dict view's & walks
            # the smaller side), not by a Python step over every block.
            logged_here = read_of.keys() & pre.handle_union()
            for i in _blockscan.holding(blocks, logged_here) if logged_here else ():
                b = blocks[i]
                if b.resource is not None or b.derived:
                    continue
                for h in b.handles:
                    if (logged := read_of.get(h)) is not None and (x := self.gate.source_facts(h)) is not None \
                            and _shows_whole(x.table.data, pre.texts[i]):
                        as_logged = False
                        misfiled.append((i, h, None, logged))
        for i, h, resource, filed in misfiled:
            if shown is None:  # (made on the first mismatch only)
                shown = {(bs[0], r) for r, rs in by_resource.items() for k in rs
                         if len(bs := blocks[k].handles) == 1}
            if (h, filed) in shown:
                continue  # (its resource's line holds it: a cut of the read tagged as a part of it)
            b = blocks[i]
            tagged = f"is tagged as a read of {resource!r}" if resource is not None else "is tagged as no read"
            self.violate("I4", f"block {b.id!r} {tagged}, but the session's read log files its source {h!r} as a "
                         f"read of {filed!r}: a read's resource orders it among that resource's reads, so it is "
                         "kept as first read (retag it back, or give the new observation a handle of its own)",
                         block=b.id, handle=h, key="resource", value=resource or "",
                         evidence={"filed": filed, "resource": resource})
        # (only a window whose every read the log already held as tagged: a read new to it is
        # filed by this check, which a failed audit record takes back)
        ix.reads_filed = as_logged

    def _check_stamp_units(self, resource: str, reads: list[int]) -> None:
        """Reads of one resource stamped in two units — seconds and milliseconds, which
        docs/format.md both allows — cannot be ordered by ``ts``: refused, naming both (red team
        89, F06: a read stamped in ms, observed first, was taken for newer than one stamped in
        seconds 100 s later, and an edge of the older over the newer passed as lossless). A
        stamp of :data:`_MILLISECOND_STAMPS` or more is taken for milliseconds (a time in seconds
        that large is after the year 5000), a positive one below it for seconds."""
        pre, post = self.edit.pre.blocks, self.edit.post.blocks
        stamped = [pre[i] for i in reads if pre[i].ts is not None]
        stamped += [post[j] for j in self.post.by_resource().get(resource, ()) if post[j].ts is not None]
        seconds = next((b for b in stamped if 0 < b.ts < _MILLISECOND_STAMPS), None)  # type: ignore[operator]
        millis = next((b for b in stamped if b.ts >= _MILLISECOND_STAMPS), None)  # type: ignore[operator]
        if seconds is not None and millis is not None:
            self.violate("I4", f"reads of {resource!r} are stamped in two units, block {seconds.id!r} at ts "
                               f"{seconds.ts!r} (seconds) and block {millis.id!r} at {millis.ts!r} (milliseconds): "
                               "they cannot be ordered by ts; stamp them in one unit",
                         block=millis.id, key="ts", value=millis.ts,
                         evidence={"resource": resource, "seconds": seconds.ts, "seconds_block": seconds.id})

    def _check_logged_units(self, touched: set[int] | None) -> None:
        """:meth:`_check_stamp_units` across checks: the session's log orders a window's reads
        with the reads earlier checks logged, by the same stamps, so a read stamped in the unit
        the log's reads of its resource are not stamped in is refused alike (red team 106, F02:
        a re-read stamped in seconds 100 s after a read stamped in ms, shown in another check,
        went before it in the log, and a summary kept the stale value). A resource whose reads
        an in-place edit left as they were is passed over, unless one of them is new to the
        log."""
        gate = self.gate
        pre, post = self.pre, self.post
        window = pre.stamp_units() | post.stamp_units()
        if not window or (window != _BOTH_UNITS and not gate._units_logged & ~window):
            return  # (no logged read is stamped in a unit the window's reads are not)
        reported = {v.evidence.get("resource") for v in self.violations if v.invariant == "I4" and v.key == "ts"}
        unlogged = set(pre.unlogged_reads(gate._read_of).values()) if touched is not None else set()
        pre_res, post_res = pre.by_resource(), post.by_resource()
        for resource in pre_res.keys() | post_res.keys():
            if resource in reported or resource not in gate._read_log:
                continue
            reads = pre_res.get(resource, ())
            if touched is not None and resource not in unlogged and touched.isdisjoint(reads):
                continue
            stamped = [pre.blocks[i] for i in reads if pre.blocks[i].ts is not None]
            stamped += [post.blocks[j] for j in post_res.get(resource, ()) if post.blocks[j].ts is not None]
            window = 0
            for b in stamped:
                window |= _stamp_unit(b.ts)  # type: ignore[arg-type]
            if window in (0, _BOTH_UNITS):
                continue  # (no stamp to order by; or the window's own, _check_stamp_units)
            logged = gate._logged_units(resource)
            if not logged & ~window:
                continue
            mine = next(b for b in stamped if _stamp_unit(b.ts) == window)  # type: ignore[arg-type]
            other_h, other_ts = gate._logged_in_unit(resource, logged & ~window)
            unit, other_unit = ("seconds", "milliseconds") if window == _SECONDS else ("milliseconds", "seconds")
            self.violate("I4", f"reads of {resource!r} are stamped in two units in this session: block {mine.id!r} "
                               f"at ts {mine.ts!r} ({unit}) and the read {other_h!r} logged at {other_ts!r} "
                               f"({other_unit}): they cannot be ordered by ts; stamp a resource's reads in one unit",
                         block=mine.id, key="ts", value=mine.ts,
                         evidence={"resource": resource, "logged": other_h, "logged_ts": other_ts})

    def _check_spread_reads(self, resource: str, reads: list[int], kept_pre: set[int]) -> bool:
        """A read holding several reads the session's log orders apart (red team 28, y03) is
        ordered as the oldest of them (:meth:`_log_order`); dropped while older reads of its
        resource stay, it may have been the only holder of the newest of them: fail closed,
        unless a kept read is as new as that one, or post holds a fresh read. Reports; True
        when it did."""
        pre = self.edit.pre
        for i in reads:
            spread = self._log_spread.get(i)
            if spread is None or i in kept_pre or self._read_kept(i, by_text=False):
                continue
            handle, place, order = spread
            kept = [k for k in reads if k != i and (k in kept_pre or self._read_kept(k, by_text=False))]
            if not kept or any(order[k][0] >= place for k in kept) or self._fresh_read_of(resource):
                continue
            self.violate("I4", f"block {pre[i].id!r} holds reads of {resource!r} that the session's read log orders "
                         f"apart, the newest {handle!r}; it is gone while older reads of it are kept "
                         f"({[pre[k].id for k in kept]}), and no kept read is as new: one block is one "
                         "observation, so it is taken as its oldest read, and dropped as its newest",
                         block=pre[i].id, handle=handle, key="resource", value=resource,
                         evidence={"kept": [pre[k].id for k in kept], "newest_held": handle})
            return True
        return False

    def _pre_text_kept(self, digest: bytes) -> bool:
        """Does a pre block that post kept (matched) have this text?"""
        if self._kept_texts is None:
            if self.in_place:
                # every pre block is kept but the removed ones
                self._kept_texts = self.pre.has_text_outside(self.removed)
            else:
                # a post block whose text is a pre text was matched to a pre block with it
                # (_structure), so the kept pre texts are post's texts, plus the pre texts of
                # whitespace-matched blocks (for a pre text, that is; only pre texts are asked)
                texts = self._post_texts if self._post_texts is not None else set(self.post.digests)
                if self.ws_matched:
                    texts = texts | {self.pre.digests[self.match[j]] for j in self.ws_matched}  # type: ignore[index]
                self._kept_texts = texts.__contains__
        return self._kept_texts(digest)

    def _check_reads(self, resource: str, reads: list[int], kept_pre: set[int],
                     evicted: set[str], superseded: dict[str, str], derived_refs: frozenset[str]) -> None:
        """Two or more different reads of one resource: never reduce them to an older one."""
        edit = self.edit
        top = self._newest_reads(resource, reads)
        kept_top = [i for i in top if self._newest_kept(i, reads)]
        if len(top) > 1 and kept_top and len(kept_top) < len(top):
            gone = [edit.pre[i].id for i in top if i not in kept_top]
            self.violate("I4", f"the reads of {resource!r} have no order (ts on some reads only, against their window "
                         f"order), so each of {[edit.pre[i].id for i in top]} may be the newest; post keeps "
                         f"{[edit.pre[i].id for i in kept_top]} but not {gone}: keep all of them or give every read a ts",
                         block=gone[0], handle=(edit.pre[top[0]].handles or (None,))[0], key="resource", value=resource,
                         evidence={"candidates": [edit.pre[i].id for i in top], "gone": gone})
            return
        if self._log_spread and self._check_spread_reads(resource, reads, kept_pre):
            return
        newest = kept_top[-1] if kept_top else top[-1]
        newest_digest = self.pre.digests[newest]
        newest_kept = bool(kept_top)
        older = [i for i in reads if self.pre.digests[i] != newest_digest]
        # an older read kept, or rewritten in place (one added word is not a newer read)
        older_kept = [i for i in older if i in kept_pre or self._read_kept(i, by_text=False)]
        if not newest_kept and older_kept and not self._fresh_read_of(resource):
            kept_set = set(older_kept)  # (a list here cost a refused merge of 8,000 reads 0.36 s: red team 47)
            claim = [edit.post[j].id for j, m in enumerate(self.match) if m in kept_set
                     and set(edit.pre[newest].handles) & set(edit.post[j].handles)]
            how = f"; block {claim[0]!r} carries the newer read's handle but the older read's text" if claim else ""
            self.violate("I4", f"silent merge: the older read of {resource!r} is kept and the newer read "
                         f"{edit.pre[newest].id!r} is gone{how}",
                         block=edit.pre[older_kept[0]].id, handle=(edit.pre[newest].handles or (None,))[0],
                         key="resource", value=resource,
                         evidence={"kept": [edit.pre[i].id for i in older_kept], "newest": edit.pre[newest].id})
            return
        for i in older:
            # kept verbatim, or rewritten in place (where I1 and I2 check the rewrite)
            if i in kept_pre or self._read_kept(i):
                continue
            hs = edit.pre[i].handles
            if (edit.pre[i].id in evicted and not hs) or any(h in superseded or h in evicted or h in derived_refs
                                                             for h in hs):
                continue
            self.violate("I4", f"the older read {edit.pre[i].id!r} of {resource!r} was dropped without a "
                         "supersession edge or an eviction record", block=edit.pre[i].id,
                         handle=(hs or (None,))[0], key="resource", value=resource)
        if not self._newest_read_kept_as_is(resource, newest) and not self._fresh_read_of(resource):
            # (a fresh read in post is the newest read, kept as it was read)
            for candidate in top if len(top) > 1 and not kept_top else (newest,):
                # no read kept: with no order, a value any other candidate changed is stale
                before = len(self.violations)
                self._check_stale_values(resource, reads, candidate)
                if len(self.violations) > before:
                    break

    def _newest_kept(self, i: int, reads: list[int]) -> bool:
        """Does the newest read ``i`` survive: itself kept, or a kept read of its resource with
        its bytes that is not older (its ts and place go with it: an older copy of the same
        bytes, or a read of another resource, is not it), or rewritten in place?"""
        if i in self.used:
            return True
        digests = self.pre.digests
        copies = [k for k in reads if k != i and digests[k] == digests[i] and k in self.used]
        if copies:
            order = self._order_of
            stamped = sum(order(k)[1] is not None for k in reads)
            if stamped in (0, len(reads)):
                # the reads are a line (by ts, then place): a kept copy stands for the newest
                # read when it is as new, or in the run of its copies just before it (an
                # unchanged re-read deduplicated to its first copy); not a value that went back
                line = sorted(reads, key=lambda k: ((order(k)[1] or 0.0), order(k)[0]))
                at = line.index(i)
                kept = set(copies)
                for k in reversed(line[:at]):
                    if digests[k] != digests[i]:
                        break
                    if k in kept:
                        return True
                if any(k in kept for k in line[at + 1:]):
                    return True
            else:  # no line: pair by pair (few reads have a ts on some only)
                newer = self._newer
                for k in copies:
                    if not newer(i, k) or not any(digests[m] != digests[i] and newer(m, k) and newer(i, m)
                                                  for m in reads):
                        return True
        return self._read_kept(i, by_text=False)

    def _read_kept(self, i: int, by_text: bool = True) -> bool:
        """Does pre read ``i`` survive in post: verbatim (with ``by_text``, any block with its
        bytes), or rewritten in place (same id or its handles, not all of them evicted or
        superseded), where I1 and I2 check the rewrite? A block that is an older read's bytes
        does not count even when it claims this read's handle."""
        if by_text and self._pre_text_kept(self.pre.digests[i]):
            return True
        # (what follows depends on the check alone: once per read, not once per question)
        found = self._rewrites_kept.get(i)
        if found is None:
            found = self._rewrites_kept[i] = self._rewrite_kept(i)
        return found

    def _rewrite_kept(self, i: int) -> bool:
        edit = self.edit
        handles = edit.pre[i].handles
        _, superseded = self._covering()
        # the records the edit claims, even one for a handle post still carries: a rewrite whose
        # every source is said to have left is not that read any more
        claimed = self._claimed
        if handles and all(h in claimed or h in superseded for h in handles):
            return False
        if self._changed_ids is None:  # once per check, not a pass over the changed blocks per read
            # (and the kept texts of derived blocks that claim new sources, _structure: weighed as
            # the same summary with one word added is, by the stale values of the reads)
            changed = [edit.post[j] for j in (*self.changed, *self.reclaimed)]
            self._changed_ids = {b.id for b in changed}
            self._changed_refs = set().union(*(b.provenance for b in changed))
        return edit.pre[i].id in self._changed_ids or not self._changed_refs.isdisjoint(handles)

    def _newest_read_kept_as_is(self, resource: str, newest: int) -> bool:
        """Is the newest read of ``resource`` in post under its own id, with its own text, as a
        read of ``resource``? Then post asserts the newest value of every key, and no value can
        be stale alone (the look at every post block that touches the resource is skipped)."""
        j = self.post.id_pos().get(self.edit.pre[newest].id)
        return (j is not None and self.match[j] == newest and j not in self.ws_matched
                and self.post.blocks[j].resource == resource)

    def _check_stale_values(self, resource: str, reads: list[int], newest: int, only: list[int] | None = None) -> None:
        """A key whose value changed between reads: the window (or each of the post blocks
        ``only``, alone) may not end up asserting only an older value (a summary or rewrite
        that restates the stale one)."""
        if only is not None:
            groups = [[j] for j in only]
        else:
            handles = {h for i in reads for h in self.edit.pre[i].handles}
            groups = [self._post_blocks_touching(resource, handles)]
        groups = [g for g in groups if g]
        if not groups:
            return  # no post block reads the resource or derives from a read: none asserts a value
        for touching in groups:
            if self._stale_paths(resource, reads, newest, touching):
                return
        # a group holding a read of the resource with the newest read's key=value facts row for
        # row (the newest read rewritten in place, re-indented) says the newest value of every
        # key: no value of it is stale alone, and no basis need be made for it
        groups = [g for g in groups if not self._states_newest(resource, g, newest)]
        if not groups:
            return
        basis = self._stale_basis(reads, newest)
        if basis is None:
            return
        pre = self.edit.pre
        for touching in groups:
            if self._stale_kept_alone(resource, basis, touching, lambda i: pre[i].id, f"block {pre[newest].id!r}",
                                      {"newer_block": pre[newest].id}):
                return

    def _states_newest(self, resource: str, touching: list[int], newest: int) -> bool:
        """Is one of the post blocks ``touching`` a read of ``resource`` whose facts have pre
        read ``newest``'s kinds, keys and values row for row? Then it asserts every value the
        newest read sets (what _stale_alone takes from a text is the same for both)."""
        post_blocks, newest_facts = self.post.blocks, self.pre_facts[newest]
        t = newest_facts.table
        for j in touching:
            if post_blocks[j].resource != resource:
                continue
            facts = self.post_facts[j]
            if facts is newest_facts:
                return True
            u = facts.table
            if _same_rows(u.kind, t.kind) and _same_rows(u.fp_key, t.fp_key) and _same_rows(u.fp_value, t.fp_value):
                return True
        return False

    def _stale_paths(self, resource: str, reads: list[int], newest: int, touching: list[int]) -> bool:
        """Report (and say whether) a restating block among ``touching`` sets a dotted path
        (``server.retries=3``) to a value only an older read sets there, where the newest read
        sets it to another and the blocks do not also say that one. Keys are compared by path
        here, not by name: another section's ``retries: 3`` in the newest read does not make
        the server's 3 current (red team 16, g02)."""
        read_facts = self._read_facts
        return self._stale_paths_of(resource, read_facts(newest), [read_facts(i) for i in reads if i != newest],
                                    touching, self.edit.pre[newest].id)

    def _stale_paths_of(self, resource: str, newest_facts: _Facts, older: list[_Facts], touching: list[int],
                        newer: str, judged: set[int] | None = None,
                        already: frozenset[tuple[tuple[bytes, ...], bytes]] = frozenset()) -> bool:
        """:meth:`_stale_paths` against the facts of the newest read and of the older ones
        (``newer`` names the newest read in a violation: a block id, or a logged read's handle).
        Every block of ``touching`` may say the newer value; only those in ``judged`` (all, if
        None) are reported, and not for a (path, value) the pre window ``already`` held alone
        (red team 18, k04, k05)."""
        post = self.edit.post.blocks
        said = [x for j in touching for x in self._dotted_paths(j)]
        if not said:
            return False
        claims = {(tuple(parts), v) for parts, v, _, _ in said}
        said = [x for x in said if (judged is None or x[2] in judged) and (tuple(x[0]), x[1]) not in already]
        if not said:
            return False
        # a fact the newest read writes as it is (a Python read's "self.retries = retries") is
        # current without a look at where it sits
        facts_of = [self.post_facts[j].table.fp_fact[r] for _, _, j, r in said]
        as_written = ~absent_from_all(np.ascontiguousarray(facts_of), [newest_facts.kv_sets()[1]])
        said = [x for x, current in zip(said, as_written.tolist()) if not current]
        found = False
        for parts, v, j, r in said:
            for cut in range(1, len(parts)):
                prefix, leaf = tuple(parts[:cut]), b".".join(parts[cut:])
                if prefix in newest_facts.nested_tails((v, leaf)):
                    break  # the newest read sets it so
                now = newest_facts.nested_values(leaf, prefix)
                if not now or not any(prefix in o.nested_tails((v, leaf)) for o in older):
                    continue
                if any((tuple(parts), value) in claims for value in now):
                    break  # the newer value is said too
                span = self.post_facts[j].table.span(r)
                self._violate_stale(f"stale value kept alone: {span.key}={span.value!r} is what an older read of "
                                    f"{resource!r} set there; the newest read ({newer!r}) sets it otherwise",
                                    block=post[j].id, key=span.key, value=span.value,
                                    evidence={"resource": resource, "newer": newer, "span": [span.start, span.end]})
                found = True
                break
        return found

    def _pre_dotted(self, positions: Iterable[int], newest: _Facts | None = None
                    ) -> frozenset[tuple[tuple[bytes, ...], bytes]]:
        """The (path, value) pairs the pre blocks at ``positions`` that restate (turns and
        summaries) held alone as dotted key=value facts: paths for which they did not also
        state the ``newest`` read's value."""
        pre_blocks, found = self.pre.blocks, set()
        for i in positions:
            if pre_blocks[i].derived or not pre_blocks[i].handles:
                t = self.pre_facts[i].table
                for r in self.pre_facts[i].dotted_leaves()[0]:
                    found.add((tuple(t.key_bytes(r).split(b".")), t.fp_value[r].tobytes()))
        # held alone: a path pre gave the newest read's value too ("5, raised from 3") did
        # not hold 3 alone (red team 19, m03); two older values are held alone (red team 20, n01)
        if newest is None:
            return frozenset(found)
        current = set()
        for path in {path for path, _ in found}:
            for cut in range(1, len(path)):
                current.update((path, v) for v in newest.nested_values(b".".join(path[cut:]), path[:cut]))
        stated = {path for path, v in found if (path, v) in current}
        return frozenset(pair for pair in found if pair[0] not in stated)

    def _dotted_paths(self, j: int) -> list[tuple[list[bytes], bytes, int, int]]:
        """The dotted key=value facts of post block ``j`` if it restates in its own words (a
        new or changed turn, or a summary; a read writes its keys as its file does, which the
        rule on keys compares): (path parts, value, block, row). Made once per block and check."""
        found = self._dotted_said.get(j)
        if found is None:
            found = []
            block = self.edit.post[j]
            if block.derived or (self.match[j] is None and not block.handles):
                facts = self.post_facts[j]
                rows, _ = facts.dotted_leaves()
                t = facts.table
                for r in rows:
                    parts = t.key_bytes(r).split(b".")
                    if 2 <= len(parts) <= _MAX_KEY_PARTS and all(parts):
                        found.append((parts, t.fp_value[r].tobytes(), j, r))
            self._dotted_said[j] = found
        return found

    def _stale_basis(self, reads: list[int], newest: int) -> _StaleBasis | None:
        """The stale-value basis of a resource's pre reads (:func:`stale_basis`), made once
        per check (the window's check and each new newest read's share it)."""
        cache_key = (newest, tuple(reads))
        if cache_key in self._stale_bases:
            return self._stale_bases[cache_key]
        digests, read_facts = self.pre.digests, self._read_facts
        older = [(i, read_facts(i)) for i in reads if i != newest and digests[i] != digests[newest]]
        basis = self._stale_bases[cache_key] = stale_basis(read_facts(newest), older)
        return basis

    def _read_facts(self, i: int) -> _Facts:
        """The facts I4 pairs of pre read ``i`` (:meth:`Gate.read_facts`)."""
        return self.gate.read_facts(self.pre_facts[i])

    def _stale_kept_alone(self, resource: str, basis: _StaleBasis, touching: list[int],
                          block_of: Callable[[Any], str], newer: str, newer_evidence: dict[str, str],
                          already: dict[tuple[int, int], list[tuple[int, int]]] | None = None) -> bool:
        """Report (and say whether) the post blocks ``touching`` together assert an older
        value of a key without its newer one (and not one ``already`` so before the edit).
        ``block_of``: the block a violation names for the older read that held the value;
        ``newer``: how the message names the newest read (``newer_evidence``: how the
        evidence does)."""
        post, match = self.edit.post.blocks, self.match
        # a rewritten or derived block restates a value in prose too
        read_facts = self.gate.read_facts  # (a kept JSON read states the values it encodes)
        alone = self._stale_alone(basis, ((read_facts(self.post_facts[j]), match[j] is None or post[j].derived, True)
                                          for j in touching))
        found_stale = False
        for key, values in alone.items():
            values = [v for v in values if already is None or v not in already.get(key, ())]
            if not values:
                continue
            found_stale = True
            v = values[0]
            owner = basis.older_owner[(key, v)]
            old_span = basis.facts_of[owner].table.span(basis.older_kv[key][v])
            new_span = basis.newest_facts.table.span(basis.newest_row[key])
            # where post says it: a kept older read, or a value in a summary's prose ("the default
            # is 10 attempts") the message named no block or words of (red team 95, F08)
            where = self._where_stated(touching, v, key)
            said = "" if where is None else f"; block {where[0]!r} states it in {where[1]!r}"
            self._violate_stale(f"stale value kept alone: {old_span.key}={old_span.value!r} from an older read of "
                                f"{resource!r} survives, the newer {new_span.key}={new_span.value!r} ({newer}) does "
                                f"not{said}", block=block_of(owner), key=old_span.key, value=old_span.value,
                                evidence={"resource": resource, "newer_value": new_span.value, **newer_evidence,
                                          **({} if where is None else {"stated_in": where[0], "stated_text": where[1]})})
        return found_stale

    def _where_stated(self, touching: list[int], value: tuple[int, int], key: tuple[int, int]
                      ) -> tuple[str, str] | None:
        """The first post block of ``touching`` that states ``value`` (a value fingerprint) as
        the value of ``key`` (a key fingerprint), else the first that states it at all (prose:
        "the default is 10 attempts"), and the words around it (about 60 bytes on either side,
        cut at characters). A block stating the value of something else ("3 of them ran") was
        named before the one that kept the key (red team 98, F04)."""
        read_facts = self.gate.read_facts
        tables = [(j, read_facts(self.post_facts[j]).table) for j in touching]
        for keyed in (True, False):
            for j, table in tables:
                found = (table.fp_value[:, 0] == np.uint64(value[0])) & (table.fp_value[:, 1] == np.uint64(value[1]))
                if keyed:
                    found &= (table.fp_key[:, 0] == np.uint64(key[0])) & (table.fp_key[:, 1] == np.uint64(key[1]))
                rows = np.flatnonzero(found)
                if rows.size:
                    r = int(rows[0])
                    data, start, end = table.data, int(table.start[r]), int(table.end[r])
                    a, b = max(0, start - 60), min(len(data), end + 60)
                    while a > 0 and data[a] & 0xC0 == 0x80:  # (not inside a character)
                        a -= 1
                    while b < len(data) and data[b] & 0xC0 == 0x80:
                        b += 1
                    return self.edit.post[j].id, data[a:b].decode("utf-8", "replace").strip()
        return None

    def _stale_alone(self, basis: _StaleBasis, texts: Iterable[tuple[_Facts, bool, bool]]
                     ) -> dict[tuple[int, int], list[tuple[int, int]]]:
        """Per key that went stale: the older values that ``texts`` together assert without
        any newer value of the key. Each text is (facts, whether it restates values in prose,
        whether it may state a newer value)."""
        kv: dict[tuple[int, int], set[tuple[int, int]]] = {}
        restated: set[tuple[int, int]] = set()
        named: dict[tuple[int, int], set[tuple[int, int]]] = {}  # newer values restated beside their key's name
        for facts, prose, newer in texts:
            self._gather_kv_values(kv, facts, basis, newer)
            # (a text that may state a newer value is asked for one restated beside its key's
            # name even where its other prose is not read: the window's blocks, red team 89, F05)
            if prose or newer:
                # a paraphrase ("backoff is 250 ms") restates a value without its key; a value
                # another key holds ("workers=5") restates nothing about this key
                if len(basis.candidates) > _FEW_CANDIDATES and facts.n_facts < len(basis.candidates):
                    # a text with fewer values than the candidates looks its values up among them,
                    # not every candidate among its values: N one-key summaries of a config whose N
                    # keys changed were each asked all 2N candidates, O(N^2) (red team 64, F02)
                    values = list(basis.candidate_set.intersection(_unkeyed_values(facts)))
                else:
                    found = ~absent_from_all(basis.candidate_fps, [facts.unkeyed_values()])
                    values = list(compress(basis.candidates, found.tolist()))
                # (as a stale value, fail closed: "the workers retry each failed call 3 times"
                # restates retries=3 though workers=3 is the newer read's, red team 22, s03)
                if prose:
                    restated.update(values if newer else (v for v in values if v not in basis.newest_any))
                if newer:
                    _named_newer_values(named, facts, values, basis.newer_names)
        out: dict[tuple[int, int], list[tuple[int, int]]] = {}
        for key, stale in basis.older_kv.items():
            newer_values = basis.newest_values.get(key, set())
            present = kv.get(key, set()) | (restated & stale.keys())
            if kv.get(key, set()) & newer_values or key in named:
                continue
            values = [v for v in stale if v in present]
            if values:
                out[key] = values
        return out

    def _check_left_reads(self) -> None:
        """A new or changed block that comes from reads of a resource (derived from them, or
        citing them) is held to the newest read of the session's read log, as the log will be
        once it takes this pre window's reads; that read may have left the window edits ago.
        Together with the blocks of that resource, the block may not leave a value that read
        changed alone, unless the window already did before the edit (red team 8, t04 d: a
        summary of both reads re-summarized to the older value that one of its sources holds)."""
        gate = self.gate
        # (a kept text of a derived block that claims new sources is weighed as changed: it
        # comes from them now, _structure)
        judged = ([*self.changed, *self.reclaimed, *self.retagged] if self.reclaimed or self.retagged
                  else self.changed)
        # a resource whose read this edit drops off the record has its kept blocks weighed too:
        # the newest read dropped beside a summary of an older read that states a value it
        # changed leaves that value alone, though no block changed (a turn citing the newest
        # read kept I1 from asking; an eviction record or an edge is the window saying so)
        dropped = self._reads_dropped_off_record()
        if not (judged or dropped) or not (gate._read_of or self.pre.by_resource()):
            return
        # (the read log and the facts kept of it hold still while this check weighs them:
        # _record and _undo take the same lock)
        with gate._left_lock:
            post = self.edit.post.blocks
            read_of = gate._read_of
            # The pre window's reads the log does not hold yet are the line's too: the log takes
            # them after this check, whatever its verdict, and both weighings already place them
            # in the line (_LeftLine, _left_reads_rebuilt). Found only through the log, a block
            # coming from a read that first appears in this pre window went unweighed, and the
            # same check run again was refused (a summary of the new read stating the value of
            # an older read that had left the window).
            unlogged = self._unlogged = self.pre.unlogged_reads(read_of)
            if not read_of and not unlogged:
                return
            changed = self._left_judged = set(judged)
            # what the changed blocks come from: their handles, derived_from and cited handles
            # (each distinct marker name resolved once, not once per block)
            refs = set().union(*(post[j].provenance for j in judged))
            marked = self.marked
            names = set().union(*(marked[j].markers() for j in judged if j in marked))
            # only a name that can cite a logged read is resolved (a marker cites a handle by its
            # full name or by its name after the kind prefix)
            citing = names.intersection(gate._read_names)
            if unlogged and names:
                citing.update(names.intersection(_names_citing(unlogged)))
            # and a name that can cite a summary's block handle, which stands for what the
            # summary derives from (below): cited by marker, it hid the summary's stale read
            # where derived_from did not (red team 47, F1)
            citing.update(filter(_TEXT_HANDLE_NAME.fullmatch, names))
            for n in citing:
                refs.update(self._targets(n))
            # a summary stored under its block handle stands for what it derives from (red team
            # 12, z07: a summary derived from the block handle of a summary of the reads)
            through = self._through_block_handles(refs)
            for underlying in through.values():
                refs |= underlying  # (every handle reached: the chain below each summary)
            above = _above(through) if through else {}
            resources = sorted({read_of[h] for h in refs.intersection(read_of)}
                               | {unlogged[h] for h in refs.intersection(unlogged)} | dropped)
            if not resources:
                return
            reported = {v.value for v in self.violations if v.invariant == "I4" and v.key == "resource"}
            reported.update(v.evidence.get("resource") for v in self.violations if v.invariant == "I4")
            weigh = self._left_reads_of if gate._incremental_left else self._left_reads_rebuilt
            every: set[int] | None = None
            for resource in resources:
                if resource not in reported:  # (else the rules on the window's reads have said what is wrong with it)
                    if resource in dropped:
                        if every is None:
                            every = set(range(len(post)))
                        weigh(resource, every, above)
                    else:
                        weigh(resource, changed, above)

    def _reads_dropped_off_record(self) -> set[str]:
        """The resources of the pre reads this edit drops with no record: neither evicted nor
        superseded, no copy of their text kept, and no primary post block holding their stored
        bytes under their handle."""
        removed = self.removed_content
        if not removed:
            return set()
        pre_blocks = self.pre.blocks
        reads = [i for i in removed if pre_blocks[i].resource is not None and pre_blocks[i].handles]
        if not reads:
            return set()
        dropped = [i for i, code in zip(reads, self._drop_codes(reads)) if code == 0]
        if not dropped:
            return set()
        # (a summary deriving from a dropped read, or tagged with its handle, keeps none of it:
        # it is weighed as it states, red team 65, F02; so is a kept text that took the handle,
        # and a cut of the read carrying it, red team 67, F01: only the read's bytes keep it)
        wanted = frozenset(h for i in dropped for h in pre_blocks[i].handles)
        post, gate = self.post, self.gate
        post_blocks = post.blocks
        retagged = self.retagged
        carried = {h for j in _blockscan.holding(post_blocks, wanted)
                   if not post_blocks[j].derived and j not in retagged
                   if (h := gate._text_source(post.digests[j], post_blocks[j])) is not None}
        return {pre_blocks[i].resource for i in dropped  # type: ignore[misc]
                if carried.isdisjoint(pre_blocks[i].handles)}

    def _window_reads_filed(self, resource: str) -> list[tuple[str, float | None]]:
        """The pre window's reads of ``resource`` that the log files under it: not one it files
        under another resource (a read logged as another file's and shown again tagged as this
        one's, red team 47, F3; a new read tagged as two files' in one window, filed under the
        first, red team 48), which a first check counted here and the same check run again did
        not."""
        read_of, unlogged = self.gate._read_of, self._unlogged
        return [(h, ts) for h, ts in self.pre.read_line_of(resource)
                if (read_of.get(h) or unlogged.get(h, resource)) == resource]

    def _left_reads_rebuilt(self, resource: str, changed: set[int], above: dict[str, list[str]]) -> None:
        """:meth:`_check_left_reads` for one resource, from the whole read log: every logged
        read looked up in the store and the stale values rebuilt from all older reads, in time
        linear in the session's reads of the resource. The executable specification of
        :meth:`_left_reads_of` (a gate with ``_incremental_left`` off takes this path), and the
        way that path names a stale value it found."""
        gate = self.gate
        post, match = self.edit.post.blocks, self.match
        read_of = gate._read_of
        pre_blocks, pre_res = self.pre.blocks, self.pre.by_resource()
        with gate._lock:
            line = list(gate._read_log.get(resource, ()))
        # the pre window's reads the log does not hold yet (it takes them after this check)
        # (not a read the log files under another resource: the log never files it under this
        # one, so a first check counted it here and the same check run again did not, red
        # team 47, F3: a file's read shown again tagged as another file's)
        if any(len(hs := pre_blocks[i].handles) == 1 and hs[0] not in read_of for i in pre_res.get(resource, ())):
            log_reads({resource: line}, dict.fromkeys(h for h, _ in line), resource, self._window_reads_filed(resource))
        if len(line) < 2:
            return  # (fewer than two reads stored, as below, without asking the store)
        # the reads the store holds (a logged read of a source never stored, from a foreign
        # record or a rejected check's pre window, must not stand as the newest and switch
        # the rule off: red team 13, q02)
        stored = [h for h, _ in line if gate.handle_digest(h) is not None]
        if len(stored) < 2:
            return
        newest = stored[-1]
        handles = {h for h, _ in line}
        # a read as new as the newest in post says what the resource holds now
        # (a kept text that took the newest read's handle is not that read: _structure's
        # retagged; nor is a summary carrying it, which observes nothing: red team 65, F02)
        retagged = self.retagged
        if any((newest in post[j].handles and not post[j].derived and j not in retagged)
               or (match[j] is None and self._fresh(j, allow_own_id=True, than=handles))
               for j in self.post.by_resource().get(resource, ())):
            return
        if above:
            handles |= _standing_for(above, handles)
        touching = self._post_blocks_touching(resource, handles)
        if changed.isdisjoint(touching):
            return
        newest_facts = gate.read_source_facts(newest)
        older_facts = [f for f in map(gate.read_source_facts, stored[:-1]) if f is not None]
        if newest_facts is not None and self._stale_paths_of(
                resource, newest_facts, older_facts, touching, newest, changed,
                self._pre_dotted((i for i, _ in self._pre_blocks_touching(resource, handles, newest)), newest_facts)):
            return  # (a dotted path compared where it sits: red team 17, h03)
        basis = self._left_basis(newest, stored[:-1])  # (the reads themselves)
        if basis is None:
            return
        self._left_stale_kept_alone(resource, basis, touching, changed, handles, newest)

    def _left_stale_kept_alone(self, resource: str, basis: _StaleBasis, touching: list[int], changed: set[int],
                               handles: Any, newest: str) -> None:
        # the blocks of the pre window that touched the resource: a stale value they already
        # left alone (an eviction may drop the newer value's last copy) is not this edit's
        # (a block that does not come from the newest read cannot state its value: "Step 4"
        # in a turn citing the older read is no retries=4; and what the window held is read
        # as key=value facts only: "Ran 3 tests" held no retries=3, red team 12 z04)
        before = self._pre_blocks_excusing(resource, handles, newest, touching, changed)
        already = self._stale_alone(basis, ((self.gate.read_facts(self.pre_facts[i]), False, newer)
                                            for i, newer in before))
        # (named by the first block the edit changed; where a read dropped off the record has
        # the kept blocks weighed too, by the first of those)
        first = self.edit.post[next((j for j in touching if j in self._left_judged),
                                    next(j for j in touching if j in changed))].id
        self._stale_kept_alone(resource, basis, touching, lambda _, first=first: first,
                               f"the read {newest!r}, which is not in the window", {"newer_read": newest},
                               already)

    def _left_reads_of(self, resource: str, changed: set[int], above: dict[str, list[str]]) -> None:
        """:meth:`_left_reads_rebuilt`, step for step, in time that does not grow with the
        session's reads of the resource (red team 41, 04: a session re-reading one file every
        cycle paid 56 ms a check at cycle 3,200). The line is not copied (:class:`_LeftLine`),
        only the reads logged since the last look are asked of the store, and the stale values
        are weighed against the facts of every logged read merged as they were logged
        (:class:`_LogFacts`). Only where a stale value is left alone, which the check then
        reports, is the basis rebuilt from the whole line (:meth:`_left_basis`), so a violation
        names the same older read, value and row as ever."""
        gate = self.gate
        post, match = self.edit.post.blocks, self.match
        line = _LeftLine.of(self, resource)
        if line is None:
            return  # (fewer than two reads, or fewer than two stored)
        newest = line.newest()
        # (a kept text that took the newest read's handle is not that read: _structure's
        # retagged; nor is a summary carrying it, which observes nothing: red team 65, F02)
        retagged = self.retagged
        if any((newest in post[j].handles and not post[j].derived and j not in retagged)
               or (match[j] is None and self._fresh(j, allow_own_id=True, than=line))
               for j in self.post.by_resource().get(resource, ())):
            return
        handles = line
        if above:
            handles = line.with_extra(_standing_for(above, line))
        touching = self._post_blocks_touching(resource, handles)
        if changed.isdisjoint(touching):
            return
        newest_facts = gate.read_source_facts(newest)
        # (the older reads' facts are asked for only where a dotted path needs them)
        older_facts = _Later(lambda: [f for f in map(gate.read_source_facts, line.stored()[:-1]) if f is not None])
        if newest_facts is not None and self._stale_paths_of(
                resource, newest_facts, older_facts, touching, newest, changed,  # type: ignore[arg-type]
                self._pre_dotted((i for i, _ in self._pre_blocks_touching(resource, handles, newest)), newest_facts)):
            return
        if newest_facts is None:
            return  # (as _left_basis: never, the newest read is stored)
        basis = line.basis(newest_facts)
        if basis is None:
            return
        before = self._pre_blocks_excusing(resource, handles, newest, touching, changed)
        read_facts = gate.read_facts  # (a JSON read states the values it encodes)
        already = self._stale_alone_in(basis, ((read_facts(self.pre_facts[i]), False, newer) for i, newer in before))
        alone = self._stale_alone_in(basis, ((read_facts(self.post_facts[j]), match[j] is None or post[j].derived, True)
                                             for j in touching))
        if all(values <= already.get(key, frozenset()) for key, values in alone.items()):
            return  # (nothing _stale_kept_alone would report)
        # a stale value left alone: reported as _left_reads_rebuilt reports it, from the basis
        # of the whole line (the older read that first held the value names it)
        full = self._left_basis(newest, line.stored()[:-1])
        if full is not None:
            self._left_stale_kept_alone(resource, full, touching, changed, handles, newest)

    def _gather_kv_values(self, kv: dict[tuple[int, int], set[tuple[int, int]]], facts: _Facts,
                          basis: _StaleBasis | _LeftBasis, newer: bool) -> None:
        """Add to ``kv`` the values ``facts`` asserts for the keys of ``basis``, per key (but
        the newest read's values, unless the text may state a newer value: ``newer``)."""
        for key, vals in self._kv_values(facts, basis.keys, basis.names)[0].items():
            kv.setdefault(key, set()).update(vals if newer else vals - basis.newest_values.get(key, set()))

    def _stale_alone_in(self, basis: _LeftBasis, texts: Iterable[tuple[_Facts, bool, bool]]
                        ) -> dict[tuple[int, int], set[tuple[int, int]]]:
        """:meth:`_stale_alone` against a :class:`_LeftBasis`: per key that went stale, the
        older values ``texts`` together assert without any newer value of the key, as sets (the
        order in which the older reads held them is the rebuilt basis's to tell). Each look-up
        goes from what the texts say to the values the reads held, never over every older
        value: a key a session re-read a thousand times has a thousand of them."""
        kv: dict[tuple[int, int], set[tuple[int, int]]] = {}
        restated: set[tuple[int, int]] = set()
        named: dict[tuple[int, int], set[tuple[int, int]]] = {}  # (as _stale_alone)
        for facts, prose, newer in texts:
            self._gather_kv_values(kv, facts, basis, newer)
            if prose or newer:  # (as _stale_alone)
                # (the candidates of _stale_alone: every older and newer value of a stale key)
                values = [v for v in _unkeyed_values(facts) if basis.stale_keys_holding(v)]
                if prose:
                    restated.update(values if newer else (v for v in values if v not in basis.newest_any))
                if newer:
                    _named_newer_values(named, facts, values, basis.newer_names)
        by_key: dict[tuple[int, int], set[tuple[int, int]]] = {}
        for v in restated:
            for key in basis.stale_keys_holding(v):
                by_key.setdefault(key, set()).add(v)
        out: dict[tuple[int, int], set[tuple[int, int]]] = {}
        for key in basis.stale_keys:
            newer_values = basis.newest_values.get(key, set())
            # (restated & stale of _stale_alone: the values a read set the key to)
            present = kv.get(key, set()) | by_key.get(key, set())
            if kv.get(key, set()) & newer_values or key in named:
                continue
            values = {v for v in present if basis.holds(key, v) and v not in newer_values}
            if values:
                out[key] = values
        return out

    def _through_block_handles(self, refs: set[str]) -> dict[str, frozenset[str]]:
        """For each block handle among ``refs`` that stores the text of a pre derived block, and
        each reached from one through ``derived_from``: the handles that block derives from."""
        pre = self.pre
        # (no derived block of pre names a derived_from handle: each it holds stands for nothing,
        # which its callers do not tell from no entry; the union is kept on the window's shape,
        # made when the previous check had this window as its post)
        if not any(h.startswith(BLOCK_HANDLE_PREFIX) for h in refs) or not pre.derived_union():
            return {}
        summaries = pre.summary_texts()  # (once per window: red team 64, F03)
        out: dict[str, frozenset[str]] = {}
        todo = [h for h in refs if h in summaries]
        while todo:
            h = todo.pop()
            if h in out:
                continue
            out[h] = summaries[h]
            todo.extend(x for x in summaries[h] if x in summaries and x not in out)
        # Each summary reached stands for all below it in a chain; the map holds only the
        # handles right below (what every one reached stands for is the union of those, and
        # which stand for a given handle, _standing_for): the whole chain under each summary
        # was quadratic in a chain's length (red team 41, 01: 4,000 summaries, 2.2 s)
        return out

    def _left_basis(self, newest: str, older: list[str]) -> _StaleBasis | None:
        """The stale-value basis of logged reads, from their sources in the store."""
        gate = self.gate
        newest_facts = gate.read_source_facts(newest)
        if newest_facts is None:
            return None
        digest = gate.handle_digest(newest)
        pairs = []
        for h in older:
            other = gate.handle_digest(h)
            if other is not None and other != digest and (facts := gate.read_source_facts(h)) is not None:
                pairs.append((h, facts))
        return stale_basis(newest_facts, pairs)

    def _pre_blocks_excusing(self, resource: str, handles: set[str] | _LeftLine, newest: str,
                             touching: Iterable[int], changed: set[int]) -> list[tuple[int, bool]]:
        """:meth:`_pre_blocks_touching` whose stale values are not the edit's to answer for:
        all but an older read of ``resource`` itself. Put back into the window after the newest
        read left it (re-fetched from the store), such a read excused a summary of it that
        restated its stale value alone, which the same summary made without the copy was
        refused for (red team 122, F12); kept beside the summary, it excused it all the same,
        and an eviction of the read in the next edit left the summary alone (red team 124,
        F01). Only where every changed post block of the resource is an older read rewritten
        under its own id are the reads' own stale values still the pre window's."""
        before = self._pre_blocks_touching(resource, handles, newest)
        blocks = self.pre.blocks
        reads = set(self.pre.by_resource().get(resource, ()))

        def older_read(i: int) -> bool:
            # (tagged as the resource's read, or carrying a logged older read's handle and not
            # the newest's: the copy put back untagged, or with one more handle, is the same
            # read: red team 122, F12; red team 124, F02)
            if blocks[i].derived:
                return False
            hs = blocks[i].handles
            return i in reads or (newest not in hs and any(h in handles for h in hs))

        candidates = [i for i, newer in before if not newer and older_read(i)]
        if not candidates:
            return before
        post = self.post.blocks
        read_ids = {blocks[i].id for i in candidates}
        if all(not post[j].derived and post[j].id in read_ids for j in touching if j in changed):
            kept = set(self.match)
            post_ids = self.post.id_pos()
            dropped = {i for i in candidates if i not in kept and blocks[i].id not in post_ids}
        else:
            dropped = set(candidates)
        return [(i, newer) for i, newer in before if i not in dropped]

    def _pre_blocks_touching(self, resource: str, handles: set[str] | _LeftLine, newest: str
                             ) -> list[tuple[int, bool]]:
        """Pre blocks that are reads of ``resource``, derive from one of ``handles`` or cite
        one with a ``[src:…]`` marker, each with whether it comes from ``newest``."""
        pre = self.pre
        blocks = pre.blocks
        out = {i: newest in blocks[i].provenance for i in pre.by_resource().get(resource, ())}
        by_provenance = pre.by_provenance()
        for h in _among(handles, by_provenance):
            for i in by_provenance[h]:
                out[i] = out.get(i, False) or h == newest
        cited, citing = self._pre_citations()
        for h in _among(handles, citing):
            for i in citing[h]:
                out[i] = out.get(i, False) or newest in cited[i]
        return sorted(out.items())

    def _pre_citations(self) -> tuple[dict[int, set[str]], dict[str, list[int]]]:
        """(pre block -> the handles its markers cite, handle -> the pre blocks citing it), once
        per check: a summary superseding the older reads of N files asked every pre block's
        markers once per file (red team 57, F02: quadratic, 2.9 s of I4 at N = 4,000)."""
        if self._pre_cites is None:
            cited: dict[int, set[str]] = {}
            citing: dict[str, list[int]] = {}
            for i, facts in enumerate(self.pre_facts):
                if facts.n_markers:
                    targets = cited[i] = {h for n in facts.markers() for h in self._targets(n)}
                    for h in targets:
                        citing.setdefault(h, []).append(i)
            self._pre_cites = (cited, citing)
        return self._pre_cites

    def _changed_citations(self) -> list[tuple[int, frozenset[str]]]:
        """(changed block, the handles its markers cite), once per check."""
        if self._changed_cites is None:
            self._changed_cites = [(j, frozenset(self.cited(j))) for j in self.changed if j in self.marked]
        return self._changed_cites

    @staticmethod
    def _kv_values(facts: _Facts, keys: SortedFingerprints, names: frozenset[bytes] | None = None
                   ) -> tuple[dict[tuple[int, int], set[tuple[int, int]]], dict[tuple[int, int], int]]:
        """For the kv facts of ``facts`` whose key is one of ``keys`` (or, given the keys'
        ``names``, whose dotted key's last part is one): key -> its values, and key -> its
        first row."""
        values: dict[tuple[int, int], set[tuple[int, int]]] = {}
        first: dict[tuple[int, int], int] = {}
        hit = facts.kv_rows_keyed(keys).tolist()
        t = facts.table
        key_fp, value_fp = t.fp_key[hit].tolist(), t.fp_value[hit].tolist()
        # a block that restates ("server.retries=3" of a read's "retries: 3") sets the key of
        # a dotted path's last part too; a read's keys are as it writes them
        # (a short text asked a few names is scanned for each first; a long one is asked its
        # index of leaves, as one summary of N files is asked N times: red team 57, F02; so is a
        # text asked many names, once it holds a dot at all, and the smaller of the index and
        # the names is walked: N one-key summaries of a config whose N keys changed were each
        # scanned for every name, O(N^2), red team 64, F02. A leaf's row holds "." + the leaf,
        # so a text the scan passes over has none of the names' rows in its index)
        if names and (len(t.data) > _LEAF_SCAN_BYTES
                      or (any(b"." + name in t.data for name in names) if len(names) <= _LEAF_SCAN_NAMES
                          else b"." in t.data)):
            by_leaf = facts.dotted_by_leaf()
            if len(by_leaf) < len(names):
                picked = sorted((r, leaf) for leaf, rows in by_leaf.items() if leaf in names for r in rows)
            else:
                picked = sorted((r, leaf) for leaf in names for r in by_leaf.get(leaf, ()))
            if picked:
                leaf_fps = fingerprint_kv_keys([leaf for _, leaf in picked]).tolist()
                hit = [*hit, *(r for r, _ in picked)]
                key_fp = [*key_fp, *leaf_fps]
                value_fp = [*value_fp, *t.fp_value[[r for r, _ in picked]].tolist()]
        for row, (k_hi, k_lo), (v_hi, v_lo) in zip(hit, key_fp, value_fp):
            key = (k_hi, k_lo)
            values.setdefault(key, set()).add((v_hi, v_lo))
            first.setdefault(key, row)
        return values, first

    def _post_blocks_touching(self, resource: str, handles: set[str] | _LeftLine) -> list[int]:
        """Post blocks that are reads of ``resource``, derive from one of ``handles``, or are
        new or changed and cite one with a ``[src:…]`` marker (I1 grounds a block in what its
        markers cite)."""
        out = set(self.post.by_resource().get(resource, ()))
        # (a handle no post block names grounds none: the handle index of post, ~one list per
        # block, is made only when one is named; its keys are among handle_union's)
        if not handles.isdisjoint(self.post.handle_union()):
            by_provenance = self.post.by_provenance()
            for h in _among(handles, by_provenance):
                out.update(by_provenance[h])
        # the handles each new or changed block cites by marker (a turn kept as it was, which
        # cited the older read when it was the newest, is history, not a restatement: no more
        # than an uncited one)
        out.update(j for j, cites in self._changed_citations() if not handles.isdisjoint(cites))
        return sorted(out)

    # I5 --------------------------------------------------------------------------------------

    def _check_retention(self) -> None:
        """Citation retention: the markers post keeps over the markers pre's cited content that
        survives would keep at pre's density (docs/gate.md, I5). Pre blocks dropped on the record
        (evicted) or as byte-identical duplicates are left out: I5 measures the silent erosion of
        citations, and an eviction record is the opposite of silent; an evicted cited block the
        edit's new blocks restate (at least half of its facts, beyond what the other cited blocks
        account for) was rewritten, not dropped. When post cites a handle fewer times than pre
        did, post's markers count as pre's less those lost: extra markers (of that handle or any
        other) cannot stand in for another handle's lost citations (red team 11, y03)."""
        evicted, _ = self._covering()
        pre_blocks, pre_facts = self.pre.blocks, self.pre_facts
        marked = self.pre.marked()  # (a block that cites holds a marker)
        # only removed blocks with a marker count here, whatever the record says of the others
        # (so every block below, explicit ones included, holds a marker)
        removed = [i for i in self.removed if i in marked]
        # (asked only of those: a prune drops hundreds of blocks, a few of them with a marker)
        kept_copy = set(removed).difference(self.removed_content)
        # (the record I2 counts: a derived block's sources are its derived_from, red team 11 x05)
        explicit = {
            i for i in removed
            if i in kept_copy or (pre_blocks[i].id in evicted and not pre_blocks[i].handles)
            or (pre_blocks[i].provenance and evicted.issuperset(pre_blocks[i].provenance))
        }
        if explicit:
            # a cited block rewritten under its id, or succeeded by a block derived from what it
            # is, was not dropped: a record for it records nothing (red team 27, x05) - but of
            # blocks without facts taken to succeed only through sources they share, the
            # record may settle whose successor the new block is (_left_on_the_record)
            succeeded = self._succeeded(explicit)
            factless = [i for i in succeeded if not pre_facts[i].n_facts]
            if factless:
                succeeded.difference_update(self._left_on_the_record(factless))
            explicit -= succeeded
        gone = self._gone_pinned()
        touched = [i for i in removed if i not in explicit and _cites(pre_blocks[i])]
        on_record = [i for i in sorted(explicit) if i not in kept_copy and _cites(pre_blocks[i])]
        survived, restated = self._surviving(touched, on_record, gone)
        explicit -= restated
        pre_m = self.pre.totals(self.gate, self.pending)[1]
        cited_explicit = [i for i in explicit if _cites(pre_blocks[i])]
        if cited_explicit:
            pre_m -= sum(pre_facts[i].n_markers for i in cited_explicit)
        restored = self._restored_citations(explicit, removed)
        post_m = self.post_markers + sum(restored.values())
        if gone:
            # a marker of a pinned source the window no longer holds may not be restated (R:
            # it would summarize the pinned block in its place), so it leaves I5's count on
            # both sides, as an evicted block's do (red team 13, q04: a compaction after a
            # pinned block's eviction failed R keeping the marker and I5 dropping it)
            pre_m -= self._markers_citing(gone, [i for i in range(len(pre_blocks)) if i not in explicit],
                                          pre_blocks, pre_facts)
            post_m -= self._markers_citing(gone, range(len(self.edit.post)), self.edit.post, self.post_facts)
        if pre_m == 0:
            self.retention = None
            return
        # what pre's cited blocks kept as they were cite, plus, for each cited block the edit
        # replaced, its markers per fact times its facts the new blocks restate
        replaced = [*touched, *sorted(restated)]
        kept_m = pre_m - (sum(self._counted_markers(i, gone) for i in replaced) if gone
                          else sum(pre_facts[i].n_markers for i in replaced))
        # (a marker a source put back keeps stands for the cited fact that source holds)
        expected = kept_m + survived + sum(restored.values())
        # counting marker tokens alone, a repeated marker (or one of any other stored handle)
        # paid for a handle no longer cited at all; once some handle lost markers, post is
        # credited only with the markers it kept, handle by handle (never more than pre had)
        lost = self._lost_citations(explicit, removed, gone, restored)
        counted_m = pre_m - lost if lost else post_m
        if expected <= 0:
            # no cited fact survives: undefined, unless citations were lost on the way (a cited
            # fact changed under a marker of another source, red team 17 h01)
            self.retention = 0.0 if lost else None
        else:
            self.retention = counted_m / expected
        if self.retention is None:
            return
        if self.retention < self.floor:
            lost_note = (f"; {lost} of pre's markers lost, which {post_m - counted_m} extra marker(s) of other "
                         "or the same handles cannot replace" if post_m > counted_m else "")
            malformed = self._malformed_markers_of_changed()
            malformed_note = ("" if not malformed else
                              f"; {len(malformed)} text(s) that look like markers but are not, which count for "
                              f"nothing: {', '.join(repr(m) for m in malformed[:3])} (write [src:NAME])")
            self.violate("I5", f"citation-marker retention {self.retention:.3f} is below the floor {self.floor:.2f} "
                         f"(post keeps {counted_m} citation marker(s) where pre's cited facts that survive held "
                         f"{expected:.2f}{lost_note}{malformed_note})",
                         evidence={"pre_markers": pre_m, "post_markers": post_m,
                                   **({"malformed_markers": malformed[:20]} if malformed else {}),
                                   # (the facts of pre's blocks that cite, those dropped on the record left out)
                                   "pre_facts": sum(f.n_facts for i, f in marked.items()
                                                    if i not in explicit and _cites(pre_blocks[i])),
                                   "expected_markers": expected, "retention": self.retention, "floor": self.floor,
                                   **({"lost_markers": lost, "counted_post_markers": counted_m} if lost else {})})

    def _malformed_markers_of_changed(self) -> list[str]:
        """The malformed markers (``[src: a]``, ``[SRC:a]``, ``[src:a, b]``: as ``provgate
        verify`` reports them, without a store) of the post blocks this edit changed or made,
        for I5's message: "post keeps 0 citation marker(s)" of a summary that visibly holds
        two puzzled its reader (red team 90, F05). Asked only when I5 refuses."""
        from provgate.reconstruct import find_malformed_markers

        post = self.post.blocks
        found: list[str] = []
        for j in self.changed:
            found.extend(m.text for m in find_malformed_markers(post[j].text))
        return found

    def _counted_markers(self, i: int, gone: Container[str]) -> int:
        """Pre block ``i``'s markers I5 counts (a pinned source's gone from the window left out)."""
        n = _citing_markers(self.pre.blocks[i], self.pre_facts[i])
        if gone and n:
            n -= self._markers_citing(gone, (i,), self.pre.blocks, self.pre_facts)
        return n

    def _surviving(self, touched: list[int], on_record: list[int], gone: Container[str]) -> tuple[float, set[int]]:
        """(the markers the facts of the cited blocks ``touched`` that the edit's new blocks
        restate held, at each block's markers per fact; the blocks of ``on_record``, cited and
        dropped on the record, that those blocks restate anyway). A fact is restated by a fact
        of a new or changed block of the agent with its value ("retries 3 times" restates
        "retries=3"), or, for a key=value fact, with a piece of its value read as prose
        ("alpha on 2026-01-11" restates "alpha=2026-01-11", red team 29, z01); each fact of a
        new block restates one pre fact at most, the densest first (so an edit cannot let a
        sparsely cited copy of a fact stand for a densely cited one), and the blocks dropped on
        the record only with what the others left (red team 29, z04: a turn evicted beside a
        summary of another turn stating the same values kept its markers in the count)."""
        post_blocks, post_facts, pre_facts = self.post.blocks, self.post_facts, self.pre_facts
        # a cited block without a fact to restate, replaced (rewritten, summarized into a new
        # block, or taken for succeeded): its citations are of what it still says, so all of its
        # markers are owed (red team 30, a02: stripped under its id, they were excused; stop
        # 27: summarized under a new id, they were excused too, and worse, once another
        # handle lost markers, one kept paid for a marker stripped from a restated fact)
        factless = [i for i in touched if not pre_facts[i].n_facts]
        factless_kept = sum(self._counted_markers(i, gone) for i in factless) if factless else 0
        agent = [post_facts[j] for j in self.changed if _cites(post_blocks[j])]
        if not agent or not (touched or on_record):
            return float(factless_kept), set()
        tables = [f.table for f in agent]
        # (their values, markers left out, gathered from the tables in place, sorted and counted:
        # as many as the tables have facts)
        pool = _ValuePool(*index_counts([t.fp_value for t in tables], [t.kind for t in tables], _KIND_CITATION),
                          b"\n\x00\n".join(t.data for t in tables), sum(f.n_facts for f in agent))
        if gone:
            densities = {i: self._counted_markers(i, gone) / pre_facts[i].n_facts
                         for i in (*touched, *on_record) if pre_facts[i].n_facts}
        else:  # (every block here cites: its markers are its citations)
            densities = {i: f.n_markers / f.n_facts for i in (*touched, *on_record) if (f := pre_facts[i]).n_facts}
        survived = float(factless_kept)
        if touched:
            blocks = sorted((i for i in touched if i in densities), key=lambda i: -densities[i])
            for i, n in zip(blocks, pool.take([pre_facts[i] for i in blocks])):
                survived += densities[i] * n
        restated: set[int] = set()
        if on_record:
            # those the others' restatements leave restate at least half of (two passes over
            # them all, not one per block: red team 30, a06)
            blocks = sorted((i for i in on_record if i in densities), key=lambda i: -densities[i])
            trial = pool.take([pre_facts[i] for i in blocks], commit=False)
            blocks = [i for i, n in zip(blocks, trial) if 2 * n >= pre_facts[i].n_facts]
            for i, n in zip(blocks, pool.take([pre_facts[i] for i in blocks])):
                restated.add(i)  # restated, not dropped: its markers count
                survived += densities[i] * n
        return survived, restated

    def _agent_derived(self) -> set[str]:
        """What the new or changed blocks of the agent derive from or carry, gathered once per
        check (red team 29, z06: a scan of them per evicted block was quadratic in an edit's
        size): a pre block linked to one of them is taken to succeed (:meth:`_succeeded`)."""
        if self._agent_derived_handles is None:
            post_blocks = self.post.blocks
            derived = {h for j in self.changed if _cites(post_blocks[j])
                       for h in (*post_blocks[j].derived_from, *post_blocks[j].handles)}
            # a kept text that now comes from more sources claims to stand for them as a new
            # block would: a new summary whose text was, by chance, that of a summary it
            # summarizes ("S.", a generic output) is matched as that summary moved, and a cited
            # block it summarized beside it must not go unsucceeded (red team 43, O1)
            pre_blocks, match = self.pre.blocks, self.match
            for j in self.restated:
                if _cites(b := post_blocks[j]):
                    was = pre_blocks[match[j]]  # type: ignore[index]
                    derived.update(h for h in (*b.derived_from, *b.handles)
                                   if h not in was.derived_from and h not in was.handles)
            self._agent_derived_handles = derived
        return self._agent_derived_handles

    def _evicted_itself(self, i: int) -> bool:
        """Does the edit evict pre block ``i`` itself, not only through its sources: by its id
        or its text handle, or, for a block with handles of its own, by all of those (the
        records compact() writes for a block it evicts: its handles, or its id and text handle;
        docs/compaction.md). A block's handles name the source it is; a summary's derived_from
        names what it came from, and a record of that evicts the summary only through its
        sources. A handle counts as the edit covers it (_covering): one a post block still
        carries records nothing and evicts no block. (Red team 59, F03: a turn logged under a
        handle of its own, evicted by that handle as compact() records it, beside a summary
        deriving from that handle summarized into the new summary, was taken for the new
        summary's source, owed its markers, and the honest pass was refused.)"""
        evicted, _ = self._covering()
        b = self.pre.blocks[i]
        return (b.id in self._claimed
                or block_text_handle(self.pre.digests[i]) in self._claimed
                or (bool(b.handles) and evicted.issuperset(b.handles)))

    def _left_on_the_record(self, factless: list[int]) -> set[int]:
        """Of the cited pre blocks without facts ``factless``, taken to succeed (dropped on the
        record, yet linked to a new block), those the record says left: succeeded only through
        sources other removed blocks also are or derive from, and evicted by their own id or
        text (not only through their sources). Of such blocks with the same links, one that
        was not evicted itself (summarized, as compact() does it) is the new block's source,
        and the others left (compaction fuzz with copies, seed 1335: one summary of tool:c3
        evicted, another summarized into the new summary of tool:c3); if each was evicted
        itself, the most cited stays the successor (fail closed: seed 704's shape with both
        evicted). Such a block leaves both sides of the count: excused while its markers stayed
        in pre's, a marker it kept paid for one stripped elsewhere (red team 42, F1)."""
        post_ids, derived = self.post.id_pos(), self._agent_derived()
        # per such handle, how many removed blocks are or derive from it (one pass over them)
        holders: Counter[str] = Counter(h for k in self.removed for h in self._what_it_was(k) & derived)
        alike: dict[frozenset[str], list[int]] = {}
        for i in factless:
            links = frozenset(self._what_it_was(i) & derived)
            if self.pre.blocks[i].id not in post_ids and all(holders[h] > 1 for h in links):
                alike.setdefault(links, []).append(i)
        out: set[int] = set()
        for members in alike.values():
            itself = [i for i in members if self._evicted_itself(i)]
            if len(itself) == len(members):
                itself.remove(max(members, key=lambda i: (self.pre_facts[i].n_markers, -i)))
            out.update(itself)
        return out

    def _successor_keys(self, indices: Iterable[int]) -> tuple[set[str], set[str]]:
        """(ids, handles) that make a post block a successor of the pre blocks ``indices``: their
        ids; their handles, derived_from and text handles; and the handles their markers cite."""
        pre_blocks, pre_facts, pre_digests = self.pre.blocks, self.pre_facts, self.pre.digests
        ids: set[str] = set()
        handles: set[str] = set()
        for i in indices:
            b = pre_blocks[i]
            ids.add(b.id)
            handles.update(b.handles, b.derived_from, (block_text_handle(pre_digests[i]),))
            for name in pre_facts[i].markers():
                found = self._targets(name)
                if len(found) == 1:
                    handles.add(found[0])
        return ids, handles

    def _succeeded(self, explicit: set[int]) -> set[int]:
        """The cited blocks among ``explicit`` (dropped on the record) that post rewrote: a post
        block holds the id, or a new or changed block is derived from (or carries) what the
        cited block was, its sources or its text - a handle that one of the edit's other
        removed blocks, dropped off the record, also stands for (below) not counted."""
        pre_blocks, pre_facts = self.pre.blocks, self.pre_facts
        cited = [i for i in explicit if _citing_markers(pre_blocks[i], pre_facts[i])]
        if not cited:
            return set()
        post_ids = self.post.id_pos()
        derived = self._agent_derived()
        out = set()
        links: dict[int, set[str]] = {}
        for i in cited:
            if pre_blocks[i].id in post_ids:
                out.add(i)
            elif derived and (found := self._what_it_was(i) & derived):
                links[i] = found
        if links:
            # A handle that another block the edit removed off the record (neither evicted nor
            # superseded: summarized into the new blocks) also is, or derives from, does not
            # say which of the two a new block deriving from it came from: the record does.
            # Two summaries of one source, one evicted and the other summarized, or an
            # evicted turn citing the source of a summary summarized beside it: the new summary
            # of that source is the other's, and the evicted one's markers left on the record
            # (red team 40's compaction fuzz with copies, seeds 704 and 784: compact() with a
            # summarizer keeping exactly request.markers was refused, retention 0). Its facts
            # the new blocks restate still keep it in the count (_surviving).
            wanted = set().union(*links.values())
            off_record = [j for j, code in zip(self.removed_content, self._drop_codes(self.removed_content))
                          if code == 0 and j not in explicit]
            claimed = {h for j in off_record for h in self._what_it_was(j) if h in wanted}
            out.update(i for i, found in links.items() if not found <= claimed)
        return out

    def _what_it_was(self, i: int) -> set[str]:
        """The handles a new block derives from (or carries) as pre block ``i``'s successor:
        for a block with sources of its own (handles, a summary's derived_from), those and its
        text handle, not a source its markers also cite (a summary of that source made from
        another block is not its successor: red team 40, 05, an evicted summary of tool:c5
        citing [src:c10] was taken for rewritten into the new summary of tool:c10); for a
        block without, its text handle, and the sources its markers cite but those evicted
        beside it (a summary of them is theirs; red team 31, b05: its text handle counts,
        records or not) - where its markers are citations, not data (a user's words)."""
        b = self.pre.blocks[i]
        text = block_text_handle(self.pre.digests[i])
        if b.provenance:
            return {*b.handles, *b.derived_from, text}
        if not _cites(b):
            return {text}
        _, keys = self._successor_keys((i,))
        # (the records as a set, made once per check: the edit's tuple scanned for each block
        # was quadratic, red team 42, C3 and C4)
        self._covering()
        keys.difference_update(self._claimed)
        keys.add(text)
        return keys

    def _gone_pinned(self) -> _GonePins:
        """The pinned sources (sticky, or of pre's pinned blocks) no post block carries. Pre's
        pinned blocks are those R holds to it: flagged, or holding a sticky pinned handle or text
        (a copy of a pinned text is free while post keeps the text in a flagged block), so that
        a marker R forbids a summary to keep costs I5 nothing (red team 40's compaction fuzz: a
        copy of a pinned text, evicted, took its marker along in R and not in I5). I5 only asks
        whether the handles markers cite are among them: answered handle by handle
        (:class:`_GonePins`), not by listing a session's thousands of pins (red team 64, F05)."""
        pre = self.pre
        local: set[str] = set()
        free = self._free_text_pins()
        for i in self.pinned_positions():
            if i not in free:
                local.update(pre.blocks[i].handles or (block_text_handle(pre.digests[i]),))
        return _GonePins(self, local)

    def _gone_text_sources(self, texts: Container[str]) -> set[str]:
        """The sources the markers of pre or post cite whose stored bytes are one of the pinned
        ``texts`` gone from the window: R reads citing one as restating the pinned text
        (_check_pins), so I5 counts its markers as it counts those of the pinned handles gone
        (red team 63, F02; whatever page of it post keeps, red team 66, F02)."""
        names = {n for marked in (self.pre.marked(), self.marked) for f in marked.values() for n in f.markers()}
        if not names:
            return set()
        gate = self.gate
        cited = {h for found in gate.marker_handles_many(names).values() if len(found) == 1 for h in found
                 if not is_text_handle(h)}
        return gate._stored_pinned_texts(cited, texts, self._kept_norms()) if cited else set()

    def _markers_citing(self, handles: Container[str], positions: Iterable[int], blocks: Sequence[Block],
                        facts: Sequence[_Facts]) -> int:
        """How many markers of the citing blocks at ``positions`` cite one of ``handles``."""
        n = 0
        for i in positions:
            if facts[i].n_markers and _cites(blocks[i]):
                for name in facts[i].cited_names():
                    found = self._targets(name)
                    n += len(found) == 1 and found[0] in handles
        return n

    def _lost_citations(self, explicit: set[int], removed: list[int], gone: Container[str] = frozenset(),
                        restored: Counter[str] | None = None) -> int:
        """How many of pre's markers (its blocks in ``explicit`` left out) post no longer has:
        summed over handles, what pre cited more often than post. Blocks kept as they were cite
        the same on both sides, so only the edit's removed (``removed``: those that hold a
        marker, in the order of ``self.removed``), changed and repeated blocks count, and those
        kept whose markers turned citations or data (``self.flipped``).
        A superseded handle's markers are not lost: the edge says a newer block replaces that
        source, and citing the newer one instead is what it declares (an eviction record is
        not such a declaration: the evicted source stays in the store for its citations)."""
        _, superseded = self._covering()
        pre_facts, post_facts = self.pre_facts, self.post_facts
        post_blocks, pre_blocks = self.edit.post.blocks, self.pre.blocks
        match, flipped = self.match, self.flipped
        added = ([(post_blocks[j], pre_facts[match[j]]) for j in (*self.reused, *flipped)]  # type: ignore[index]
                 + [(post_blocks[j], post_facts[j]) for j in self.changed])
        if flipped:  # (kept texts whose markers turned citations or data: counted on both sides)
            removed = [*removed, *(match[j] for j in flipped)]
        # per marker name as written: post's markers less pre's (of the blocks that cite), each
        # side counted in C, then pre's distinct names taken off (net's keys stand in the order
        # of first appearance, the order _unreplaced spends spare markers in)
        net = Counter(chain.from_iterable([facts.cited_names() for b, facts in added
                                           if facts.n_markers and _cites(b)]))
        net.subtract(Counter(chain.from_iterable([pre_facts[i].cited_names() for i in removed
                                                  if i not in explicit and _cites(pre_blocks[i])])))
        if restored:
            net.update(restored)
        if not net or min(net.values()) >= 0:
            return 0
        if superseded or gone or max(net.values()) > 0:
            # two spellings of one handle's name are one citation (a loss under one may be a
            # gain under the other); a name that resolves to no handle or several (I3 reports
            # it) counts as itself. Only the names whose count changed are resolved.
            by_handle: Counter[str] = Counter()
            for name, c in net.items():
                if c:
                    found = self._targets(name)
                    by_handle[found[0] if len(found) == 1 else f"[src:{name}]"] += c
            lost = sum(-c for h, c in by_handle.items() if c < 0 and h not in superseded and h not in gone)
            if superseded:
                lost += self._unreplaced(by_handle, superseded, gone)
            return lost
        return -sum(net.values())  # only losses: per handle or per name, the same sum

    def _stands_for(self, j: int | None, handle: str) -> list[str]:
        """The handles post block ``j``, superseding ``handle``, stands for, among the
        successors of ``handle`` (:meth:`_succeeds`). The edit names the superseding block,
        so not any block will do (red team 15, f01: an unrelated tool output, or the very turn
        given extra markers, was named): a successor read stands for its handles; a summary
        derived from ``handle`` for its sources and what it cites; a turn whose pre version
        cited ``handle``, for what it cites now - each only where that is a successor (red
        team 17, h01: a turn naming itself swapped its citations for an unrelated source's).
        Markers count only where they cite (in a tool output they are data: f02)."""
        if j is None:
            return []
        block, facts = self.edit.post[j], self.post_facts[j]
        if block.derived:
            if handle not in block.derived_from:
                return []
            out = list(block.derived_from)
        elif block.handles:
            out = list(block.handles)
        else:
            i = self.pre.id_pos().get(block.id)
            if i is None or not self.pre_facts[i].n_markers or handle not in {
                    t for name in self.pre_facts[i].markers() for t in self._targets(name)[:1]}:
                return []
            out = []
        if facts.n_markers and _cites(block):
            for name in facts.cited_names():
                found = self._targets(name)
                if len(found) == 1 and found[0] not in out:
                    out.append(found[0])
        return [h for h in out if self._succeeds(h, handle)]

    def _succeeds(self, candidate: str, handle: str) -> bool:
        """Is ``candidate`` a newer read than the read of ``handle``, as I4 orders reads? A pre
        read (kept, or gone with the edit: a summary replacing both reads derives from it)
        newer by ``ts`` (an equal stamp, later in the window: red team 19, m01), or, for reads
        of one resource where a stamp is missing, later in the window; or a handle new to the
        window, carried by a post block (a re-read of an unchanged file matches the old read's
        bytes and is still new: m02). A tagged read is succeeded only by reads of its
        resource, an untagged one only by untagged ones - and, unstamped, only by new ones: a
        later tool output is no newer version of it (red team 18, k01-k03). The store's
        insertion order plays no part: inline sources, or tool calls that returned out of
        order, are stored in any order (red team 17, h02). Asked per candidate, so a check
        with many superseded reads stays linear (m06)."""
        if candidate == handle:
            return False
        pre_blocks = self.pre.blocks
        holders = self.pre.by_provenance()
        reads = [i for i in holders.get(handle, ()) if not pre_blocks[i].derived]
        resources = {pre_blocks[i].resource for i in reads} - {None}
        stamps = [pre_blocks[i].ts for i in reads]
        stamp = None if not stamps or None in stamps else max(stamps)  # type: ignore[type-var]
        last = max(reads, default=-1)

        def same_kind(block: Block) -> bool:
            return block.resource in resources if resources else block.resource is None

        held = holders.get(candidate, ())
        if not held:  # new to the window
            post_blocks = self.edit.post.blocks
            return any(not post_blocks[j].derived and same_kind(post_blocks[j])
                       for j in self.post.by_provenance().get(candidate, ()))
        for i in held:
            block = pre_blocks[i]
            if block.derived or i in reads or not same_kind(block):
                continue
            if stamp is not None and block.ts is not None:
                if block.ts > stamp or (block.ts == stamp and i > last):
                    return True
            elif resources and i > last:  # window order says which read of one resource is newer
                return True
        return False

    def _unreplaced(self, by_handle: Counter[str], superseded: dict[str, str], gone: Container[str]) -> int:
        """How many of the superseded handles' lost markers no marker of the block superseding
        them replaces. The edge says which block stands for the source; a marker of any other
        handle gained elsewhere pays for nothing (red team 14, p04: stripping a superseded
        read's markers passed I5 with one extra marker of an unrelated source, and failed
        without it). Each gained marker of a successor pays for one lost marker, once (red
        team 16, g01, and 17, h01: a turn naming itself the successor swapped its citations
        for an unrelated source's)."""
        id_pos = self.post.id_pos()
        spare = {h: c for h, c in by_handle.items() if c > 0}
        unpaid = 0
        for h, c in by_handle.items():
            if c >= 0 or h not in superseded or h in gone:
                continue
            owed = -c
            j = id_pos.get(superseded[h])
            for n in self._stands_for(j, h):
                paid = min(owed, spare.get(n, 0))
                if paid:
                    spare[n] -= paid
                    owed -= paid
            unpaid += owed
        return unpaid

    # P ---------------------------------------------------------------------------------------

    def _check_pointers(self) -> None:
        """Every pointer resolves byte-exactly. Checked in order; the blake3 spans are hashed
        in one native call, and every digest compared in constant time.

        A span is hashed where it lies in its source (a memoryview slice, not a copy), and each
        distinct span (handle, range, algorithm) once, however many pointers name it: copied,
        every pointer's span was held until all were hashed, so a few KiB of pointers into a
        16 MiB source cost 385 MiB (25 pointers) to 3.2 GiB (200) (red team 49, F06)."""
        pointers = self.edit.pointers
        if not pointers:
            return
        post_ids = self.post.id_pos()
        gate = self.gate
        damaged: dict[str, str] = {}  # handles whose rows the store refuses (derived_sources)
        derived = gate.derived_sources((p.handle for p in pointers), damaged)
        parse = _digests.parse_digest
        failed: dict[int, tuple[str | None, dict[str, Any]]] = {}  # pointer -> (message, evidence extras)
        spans: list[tuple[int, bytes, int]] = []  # (pointer, expected, slot of its span's digest)
        slots: dict[tuple[str, int, int, str], int] = {}  # a distinct span -> its slot
        blake: list[memoryview] = []  # the blake3 slots' spans, in slot order
        others: list[tuple[int, str, memoryview]] = []  # (slot, algorithm, span) of the other slots
        for k, p in enumerate(pointers):
            if p.block not in post_ids:
                failed[k] = (f"pointer from block {p.block!r}, which is not in the post window", {"reason": "unknown_block"})
                continue
            try:
                algorithm, expected = parse(p.hash)
            except InvalidDigestError as exc:
                failed[k] = (f"pointer hash is malformed: {exc}", {"reason": "malformed_digest"})
                continue
            if gate.handle_digest(p.handle) is None:
                failed[k] = (f"pointer into {p.handle!r}, which is not in the durable store", {"reason": "unknown_handle"})
                continue
            if p.handle in damaged:
                # its kind cannot be read, so whether it holds a summary's words cannot be told
                # (red team 93, F03: one flipped bit of its kind made one read as a source)
                failed[k] = (f"source {p.handle!r} is corrupted in the store: {damaged[p.handle]}",
                             {"reason": "source_corrupted"})
                continue
            if p.handle in derived:
                # a summary's words, stored as compact() evicted it: its bytes resolve, but they
                # are no source (red team 89, F03: accepted, and store.resolve returned them)
                failed[k] = ((f"pointer into {p.handle!r}, a summary's text (stored with kind {DERIVED_KIND!r}), "
                              "not an original source"), {"reason": "nominal"})
                continue
            try:
                data = gate.source_bytes(p.handle)
            except StoreCorruptionError as exc:
                failed[k] = (f"source {p.handle!r} is corrupted in the store: {exc}", {"reason": "source_corrupted"})
                continue
            if p.source_digest is not None:
                # a store pointer's digest of the source it was cut from: P refuses what
                # store.resolve refuses (red team 122, F06: dropped unread, a pointer cut from
                # another content of the handle was accepted)
                try:
                    same = SourceStore._is_source(p.source_digest, gate.handle_digest(p.handle), data)
                except InvalidDigestError as exc:
                    failed[k] = (f"pointer source_digest is malformed: {exc}", {"reason": "malformed_digest"})
                    continue
                if not same:
                    failed[k] = ((f"pointer into {p.handle!r} was cut from another source: its source_digest "
                                  f"{p.source_digest[:20]}… is not the stored source's"),
                                 {"reason": "source_changed", "source_digest": p.source_digest})
                    continue
            if p.end > len(data):
                failed[k] = (f"pointer [{p.start}, {p.end}) is out of range of {p.handle!r} ({len(data)} bytes)",
                             {"reason": "out_of_range", "size": len(data)})
                continue
            if p.end == p.start:
                # the empty string hashes the same at every offset: such a pointer would survive
                # any re-anchoring (the store refuses to make or resolve one: docs/store.md)
                failed[k] = (f"pointer [{p.start}, {p.end}) into {p.handle!r} is empty and points at nothing",
                             {"reason": "empty_span"})
                continue
            n = len(data)
            # a UTF-8 continuation byte (0b10xxxxxx) at either end: the span starts or ends inside a character
            cut = (p.start if p.start < n and data[p.start] & 0xC0 == 0x80
                   else p.end if p.end < n and data[p.end] & 0xC0 == 0x80 else None)
            if cut is not None:
                failed[k] = (f"pointer [{p.start}, {p.end}) into {p.handle!r} cuts a UTF-8 character at byte {cut}",
                             {"reason": "inside_character", "offset": cut})
                continue
            key = (p.handle, p.start, p.end, algorithm)
            slot = slots.get(key)
            if slot is None:
                slot = slots[key] = len(slots)
                span = memoryview(data)[p.start:p.end]
                if algorithm == _digests.BLAKE3:
                    blake.append(span)
                else:
                    others.append((slot, algorithm, span))
            spans.append((k, expected, slot))
        digests: list[bytes] = [b""] * len(slots)
        if blake:
            hashed = hash_buffers(blake).tobytes()  # one native call; the rows are in slot order
            blake_slots = [slot for key, slot in slots.items() if key[3] == _digests.BLAKE3]
            for row, slot in enumerate(blake_slots):
                digests[slot] = hashed[32 * row : 32 * row + 32]
        for slot, algorithm, span in others:
            digests[slot] = _digests.compute_raw(span, algorithm)
        del blake, others  # the views: the sources may leave the cache
        for k, expected, slot in spans:
            if not hmac.compare_digest(digests[slot], expected):
                failed[k] = (None, {"reason": "span_mismatch"})
            else:
                self._check_pointer_claimed(k, pointers[k], post_ids, failed)
        for k in sorted(failed):
            p = pointers[k]
            message, extra = failed[k]
            if message is None:
                message = (f"pointer [{p.start}, {p.end}) into {p.handle!r} does not hash to {p.hash[:20]}…: "
                           "it was re-anchored and resolves to different bytes")
            self.violate("P", message, block=p.block, handle=p.handle,
                         evidence={"start": p.start, "end": p.end, "hash": p.hash, **extra})

    def _check_pointer_claimed(self, k: int, p: Citation, post_ids: Mapping[str, int],
                               failed: dict[int, tuple[str | None, dict[str, Any]]]) -> None:
        """A pointer whose bytes resolve is a claim that its block's words come from those
        bytes: a block that declares its provenance (``handles``, or tagged derived) must
        account for the pointer's source, as one of its handles, its ``derived_from`` or a
        handle its ``[src:…]`` markers cite. Otherwise a pointer re-anchored onto another
        stored source, with its hash recomputed there, resolved byte-exactly and was accepted
        (lead 5, 110-1: a summary of ``tool:cfgA`` cited ``retries=5`` of ``tool:cfgB``).
        Limits: a block that declares none (an assistant turn without handles) has only its
        pointers to say where its words come from, and a block deriving from a ``block:`` text
        handle (a summary of a summary) may point through it into its sources: neither is
        checked here. Only pointers whose bytes resolve come here, one look-up each (the
        markers are read only for a pointer outside the block's handles)."""
        block = self.post.blocks[post_ids[p.block]]
        if not block.handles and not block.derived:
            return
        h = p.handle
        if h in block.handles or h in block.derived_from:
            return
        if any(is_text_handle(x) for x in (*block.handles, *block.derived_from)):
            return  # (a summary of a summary: what the text handle stands for is not read here)
        j = post_ids[p.block]
        if _cites(block) and _MARKER_OPENER in self.post.texts[j]:
            facts = self.gate.facts_for_many([self.post.digests[j]], [block], self.pending)[0]
            if h in self.cited(j, facts) and self._marker_claims(j, facts, h):
                return
        failed[k] = ((f"pointer from block {p.block!r} into {h!r}, a source the block neither carries, derives "
                      "from nor cites: its bytes resolve, but they are no source of that block's words (a pointer "
                      "re-anchored onto another source with its hash recomputed resolves as well)"),
                     {"reason": "unclaimed_handle"})

    def _marker_claims(self, j: int, facts: _Facts, h: str) -> bool:
        """Whether a ``[src:…]`` marker of the block citing ``h`` closes a statement grounded in
        ``h``: the statement holds a fact of the block that ``h``'s source holds (its grounding
        sets, else literally at token boundaries: the I1 look-up, ``ungrounded_rows``, over that
        source alone). A marker that cites nothing of ``h``
        claims no pointer into it (red team 115, F06: ``Alpha retries 3 times [src:cfgB].``, or
        a bare ``[src:cfgB]`` on a line of its own, accounted for a pointer re-anchored onto
        ``cfgB``). The statements are :func:`_marker_statements`; only the markers naming a
        name that resolves to ``h`` are read, once a check per block and handle however many
        pointers ask (the statements are cut in one pass over the block's marker rows)."""
        key = (j, h)
        found = self._claims.get(key)
        if found is None:
            found = self._claims[key] = self._marker_statement_grounded(facts.table, h)
        return found

    def _marker_statement_grounded(self, t: FactTable, h: str) -> bool:
        """:meth:`_marker_claims` of one block and handle (asked once a check)."""
        resolve = self._targets
        starts, ends, kinds = t.start, t.end, t.kind
        spans = []
        for (name, a, b), after in zip(_marker_statements(t, _KIND_CITATION), _marker_leads(t, _KIND_CITATION)):
            if resolve(name) != (h,):
                continue
            leads = True  # (it opens its sentence, or a lead-in stands right before it mid-sentence)
            if b > a:
                spans.append((a, b))
                statement = t.data[a:b]
                if statement.rstrip(b" \t")[-1:] not in b".!?\n":
                    # (from the last clause break: "Alpha retries 3 times; per [src:b], beta
                    # retries=5." opens a clause with its lead-in, red team 123, F19)
                    clause = _last_clause_start(statement)
                    lo, hi = np.searchsorted(starts, [a + clause, b], "left").tolist()
                    leads = (not ((ends[lo:hi] <= b) & (kinds[lo:hi] != _KIND_CITATION)).any()
                             and _leads_in((b"" if clause else _unwrapped(t.data, a)) + statement[clause:],
                                           t.data[after[0]:after[1]]))
            if after[1] > after[0] and leads:
                # a marker may lead its statement (``Per [src:b], retries=5.``, ``[src:b] Retries=5.``):
                # it cites what follows it up to its sentence's end (red team 117, F24); one that
                # ends its sentence (``retries=5 [src:b].``) leads nothing, nor does one in the
                # middle of its sentence closing a statement that states something (red team 118,
                # F26: ``Alpha retries 3 times [src:b] in 5 regions.`` claimed a pointer into b's
                # ``retries=5`` by the 5 after it) or closing words that are no lead-in (red team
                # 119, F03: ``Alpha retries thrice [src:b] in 5 regions.``, a claim in words);
                # one opening a sentence leads it, and so does one after ``per``, ``according
                # to``, ``see`` (``Beta, per its config [src:b], has retries=5.``)
                spans.append(after)
        if not spans:
            return False
        # the rows inside the statements (a row once, though markers side by side share one)
        inside = np.zeros(len(kinds), dtype=np.bool_)
        for a, b in dict.fromkeys(spans):
            lo, hi = np.searchsorted(starts, [a, b], "left").tolist()
            inside[lo:hi] |= ends[lo:hi] <= b
        inside &= kinds != _KIND_CITATION
        keep = np.flatnonzero(inside)
        return bool(keep.size) and self._rows_grounded_in(t, keep, h)

    def _rows_grounded_in(self, t: FactTable, keep: np.ndarray, h: str) -> bool:
        """Whether one of rows ``keep`` of ``t`` (no markers) is grounded in source ``h``: held by its
        grounding sets (its kv pairs, values and kv keys, and its kv values read as prose), or
        found literally at token boundaries as I1 finds it (``ungrounded_rows``), the last
        ``_CLAIM_LITERAL_ROWS`` only."""
        source = self.gate.source_facts(h)
        if source is None:
            return False
        kinds = t.kind
        queries = np.ascontiguousarray(np.where((kinds[keep] == _KIND_KV)[:, None], t.fp_fact[keep], t.fp_value[keep]),
                                       dtype=np.uint64)
        if not absent_from_all(queries, [source.grounding_set()]).all():
            return True  # (one look-up a row in the source's set: the usual case, its set made for I1)
        sets = [source.grounding_set(), source.kv_prose_set()]
        if not absent_from_all(queries, sets[1:]).all():
            return True
        # else the I1 literal search at token boundaries, of the rows nearest the markers only:
        # a marker closes a statement, and a block of thousands of rows before one marker would
        # otherwise search the source's bytes once a row
        keep = keep[-_CLAIM_LITERAL_ROWS:]
        owner, _ = ungrounded_rows([_RowsView(t, keep)], sets, [source.table.data], groups=[[0, 1]],
                                   haystack_groups=[[0]], **_GROUNDING_KINDS)
        return owner.size < keep.size

    # R ---------------------------------------------------------------------------------------

    def pinned_positions(self) -> list[int]:
        """Positions of pre's pinned blocks, in order: flagged, holding a sticky pinned text (its
        ``block:`` handle), whatever its id and handles, holding a handle of a legacy record
        (one that never held a pinned block's text: Gate._resume), or carrying a pinned handle
        with a pinned text re-rendered (:meth:`_respaced`).

        A block that only shares a sticky pinned handle with a pinned block, its text no pinned
        text even after the whitespace normalisation (another page of a pinned output), is no
        pinned block: R holds the pinned bytes, and
        those are not its bytes (docs/gate.md R, "Blocks that share a pinned handle"). A summary
        deriving from the handle, or a block citing it once the pinned bytes left, is still
        refused (_check_pins)."""
        found = self._pinned_positions
        if found is None:
            pre = self.pre
            pinned_set = set(pre.pinned())
            if self.sticky.texts:
                # Sticky, a pinned block is its bytes, whatever its id and whatever handles it
                # carries: a list renumbered by position moves a pinned turn to another id, and
                # another block to its old one (red team 27, x04: the turn was rewritten
                # `lossless` under its new id, while an honest rewrite of the block that took
                # the old id failed R); a framework logs a pinned turn under a handle later, or
                # shows a pinned block without the handle it had (red team 28, y04: the turn,
                # inverted, passed `lossless` once its handles changed)
                pinned_set.update(pre.holding_pinned_texts(self.sticky))
            strong = set(pre.pinned())  # flagged, or holding a handle of a legacy record
            legacy = self.gate._legacy_pins
            if legacy:
                # such a record never held the pinned block's text: every block carrying one of
                # its pinned handles is held, as before text pins (Gate._resume)
                held = pre.holding(legacy)
                pinned_set.update(held)
                strong.update(held)
            # the pinned page re-rendered under its pinned handle is the pinned block too, and
            # held like a copy of its bytes: a sibling that the framework re-rendered was
            # summarized from its own text (red team 42, R1)
            self.respaced = set(self._respaced(pinned_set))
            pinned_set |= self.respaced
            found = self._pinned_positions = sorted(pinned_set)
            self._text_only = pinned_set - strong
        return found

    def _respaced(self, pinned: set[int]) -> list[int]:
        """Pre blocks (not in ``pinned``) that carry a pinned handle, sticky or of a flagged pre
        block, and whose text is a pinned text after the whitespace normalisation (Gate._respaced).

        A page is pinned by its bytes; a framework that re-renders its window each pass (CRLF
        line ends, trailing blanks, a final line break dropped) shows the pinned page again under
        its handle with other bytes, which the structural fast path itself calls the same block.
        Taken for a sibling, it was summarized from its own text and the pinned words left the
        window (red team 42, R1). So is a block without handles: its text is its only identity,
        and a pinned user turn re-rendered was summarized from its own text, as the same turn
        carrying user:u1 was refused (red team 44, F1); and so is a turn of the user, the system or
        the agent, whatever handle it was logged under (``_TURNS``). Only those blocks and the
        ones carrying a pinned handle are asked, and only they are normalised, none in a session
        without pinned texts: the normalised text is no pin of its own, so another block under
        an unrelated handle that happens to normalise to a pinned text is not held."""
        pre = self.pre
        flagged = pre.pinned()
        if not self.pinned_norms and not flagged:
            return []
        candidates = pre.pin_candidates(self.pinned_handles)
        extra = pre.pinned_handles() - self.pinned_handles
        if extra:
            # (asked apart, not in a union with the session's pins: a copy of them all each
            # check, red team 73, F02; a block found by its text is found by either)
            candidates = sorted(set(candidates).union(_blockscan.holding_or_found_by_text(pre.blocks, extra, _TURNS)))
        # (the pinned blocks are asked too, and left out of the few found: a pass less over
        # the candidates, which are most of a window's turns)
        # (the side keeps the answer for the window's own candidates, those a next edit asks)
        found = self.gate._respaced(pre.texts, pre.digests.__getitem__, candidates, flagged, self.pinned_norms,
                                    side=None if extra else pre)
        return [i for i in found if i not in pinned] if found else found

    def _free_text_pins(self) -> set[int]:
        """Pre blocks pinned only because they hold a pinned text that R lets go here.

        A block pinned only because it holds a pinned text (no flag, whatever handles it carries:
        a user saying the same thing again under user:u18, an unrelated "OK.", a second copy of a
        pinned page under its handle, the pinned page re-rendered) is the pinned text only where
        post does not keep that text pinned: while a flagged post block holds it, R's bytes are
        there and the copy is another block (kept unflagged, rewritten, summarized or evicted as
        any); else it is held to R as the pinned block (red team 28, y04: a turn pinned by its
        text later carries user:u3). A block that is itself a rendering (found re-rendered in
        this pass, or holding a text first pinned so: Gate._pinned_renderings) is let go by the
        same text after the whitespace normalisation: a page the framework re-rendered beside
        the flagged page is a copy of it, as the fast path says (red team 42, R1), and the
        flagged page shown in either rendering keeps it. A block holding pinned bytes that were
        never a rendering is let go only by a flagged block keeping those very bytes: else the
        pinned page shown without its flag, re-rendered by the edit and flagged, passed as
        structural while the same edit with the flag was refused (red team 44, F3); a flagged
        block itself is held to its own bytes. ``_free_with``: the handles of the flagged post
        blocks holding each free block's text."""
        if self._free is None:
            self.pinned_positions()  # (finds the text-only ones)
            self._free = set()
            if self._text_only:
                post, pre = self.post, self.pre
                flagged: dict[bytes, list[str]] = {}
                for k in post.pinned():
                    flagged.setdefault(post.digests[k], []).extend(post.blocks[k].handles)
                free_with = self._free_with
                rest = []
                renderings = self.renderings
                for i in self._text_only:
                    holders = flagged.get(pre.digests[i])
                    if holders is not None:
                        free_with[i] = holders
                    elif i in self.respaced or block_text_handle(pre.digests[i]) in renderings:
                        rest.append(i)
                if rest and flagged:
                    # (normalised only where no flagged block holds the very bytes)
                    norm = self.gate._normalised_text_handle
                    by_norm: dict[str, list[str]] = {}
                    for k in post.pinned():
                        by_norm.setdefault(norm(post.digests[k], post.texts[k]), []).extend(post.blocks[k].handles)
                    by_norm.pop(_BLANK_NORM, None)
                    for i in rest:
                        holders = by_norm.get(norm(pre.digests[i], pre.texts[i]))
                        if holders is not None:
                            free_with[i] = holders
                self._free = set(free_with)
        return self._free

    def _pinned_bytes_sources(self, unkept: _UnkeptPins, named: Iterable[str] | None = None) -> set[str]:
        """The handles post's summaries derive from (or ``named``) that are no pin themselves but
        whose stored bytes are one of the pinned texts among ``unkept`` (those post does not
        keep pinned): a summary of them summarizes the pinned bytes, and a block citing
        them restates them (red team 28, y04: a turn pinned by its text, later logged as
        user:u3 and evicted by that handle, summarized from user:u3 in a later pass; red team
        63, F02: cited as [src:u3])."""
        if not unkept.has_texts():
            return set()
        # (a text handle's bytes are the text it names: a pin or none; another block: name
        # holds any bytes, red team 66, F01)
        asked = [h for h in (self.post.derived_union() if named is None else set(named))
                 if h not in unkept and not is_text_handle(h)]
        return self.gate._stored_pinned_texts(asked, unkept.texts(), self._kept_norms()) if asked else set()

    def _kept_norms(self) -> set[str]:
        """The texts of post's flagged blocks after the whitespace normalisation (the pinned
        texts post keeps, however rendered), once per check."""
        if self._kept_norm_handles is None:
            post = self.post
            flagged = post.pinned()
            self._kept_norm_handles = (set(self.gate._normalised_text_handles(post.texts, post.digests.__getitem__,
                                                                              flagged)) if flagged else set())
            # (a blank text, as the normalisation reads it, is no rendering of anything: red team
            # 69, F02; str.strip() also took a no-break space for blank, red team 70, F02)
            self._kept_norm_handles.discard(_BLANK_NORM)
        return self._kept_norm_handles

    def _pins_kept(self) -> tuple[list[tuple[int, int | None, str | None]], set[str], set[str]]:
        """What post does with each of pre's pinned blocks R holds (those _free_text_pins does not
        let go), made once per check (R; I5 asks which pinned sources are held): ``(i, j,
        rewritten)`` for each that is not evicted on the record - ``j`` the post block that keeps
        its bytes, or None, ``rewritten`` the id post holds it under with other text, or None; the
        handles of those post keeps (a pinned block's handles and its text handle; a copy R lets
        go, its text handle and the handles of the flagged blocks holding it): the pinned sources
        post holds; and the pinned handles of those blocks, text handles included (the session's
        sticky ones are ``self.pinned_handles``: not copied in, red team 64, F05)."""
        if self._kept is not None:
            return self._kept
        edit = self.edit
        pre = self.pre
        evicted, _ = self._covering()
        pinned = self.pinned_positions()
        kept_handles: set[str] = set()  # the handles of the pinned blocks post keeps
        free = self._free_text_pins()
        if free:
            pinned = [i for i in pinned if i not in free]
            # (the pinned text is there, and so are the handles of the flagged blocks holding it)
            for i in free:
                kept_handles.add(block_text_handle(pre.digests[i]))
                kept_handles.update(self._free_with[i])
        pinned_set = set(pinned)
        # a pinned block is summarized through its handles or the handle of its text
        pinned_handles = {h for i in pinned for h in (*edit.pre[i].handles, block_text_handle(pre.digests[i]))}
        # a copy R lets go is still the pinned text: a summary of it from the handle of its text
        # summarizes that (a copy of the bytes has a pinned text handle already; a re-rendered
        # page's is pinned from this pass on, Gate._record)
        pinned_handles.update(block_text_handle(pre.digests[i]) for i in free)
        outcome: list[tuple[int, int | None, str | None]] = []
        self._kept = (outcome, kept_handles, pinned_handles)
        if not pinned:
            return self._kept
        exact: dict[int, int] = {}  # pinned pre block -> the first post block that is its bytes
        match = self.match
        if self.in_place:  # a pre block stays at its position, or moved to one of self.moved
            keeping = sorted({*(i for i in pinned if match[i] == i), *(j for j in self.moved if match[j] in pinned_set)})
        else:
            keeping = [j for j, m in enumerate(match) if m in pinned_set]
        for j in keeping:
            if j not in self.ws_matched:
                exact.setdefault(match[j], j)  # type: ignore[arg-type]
        post_ids = self.post.id_pos()
        first_copy: dict[bytes, int] | None = None
        for i in pinned:
            b = edit.pre[i]
            j = exact.get(i)
            if j is not None and edit.post[j].id != b.id:
                # the block itself, kept under its id, rather than another with its bytes that
                # the matcher met first (a summary whose text is a pinned summary's)
                k = post_ids.get(b.id)
                if k is not None and k not in self.ws_matched and self.post.digests[k] == pre.digests[i]:
                    j = k
            rewritten = b.id if b.id in post_ids else None
            if not rewritten and ((b.id in evicted and not b.handles)
                                  or (b.handles and all(h in evicted for h in b.handles))):
                # evicted on the record, whatever other block has its bytes (a summary whose
                # text happens to be the pinned turn's was taken for the pinned block kept
                # without its flag: red team 37, 07); a block post still holds under the pinned
                # id was rewritten, records or not
                continue
            if j is None:
                # another exact copy of the same bytes also preserves it (post's first block with
                # each text, indexed once: an edit may evict thousands of pinned blocks)
                if first_copy is None:
                    first_copy = {}
                    for k, d in enumerate(self.post.digests):
                        if k not in self.ws_matched:
                            first_copy.setdefault(d, k)
                j = first_copy.get(pre.digests[i])
            if j is not None:
                kept_handles.update((*b.handles, block_text_handle(pre.digests[i])))
            outcome.append((i, j, rewritten))
        return self._kept

    def _check_pins(self) -> None:
        edit = self.edit
        if not self.pinned_positions() and not self.pinned_handles:
            return
        outcome = self._pins_kept()[0]
        for i, j, rewritten in outcome:
            b = edit.pre[i]
            if j is not None:
                if not edit.post[j].pinned:
                    self.violate("R", f"pinned block {b.id!r} is kept but its pin was removed", block=b.id,
                                 evidence={"post_block": edit.post[j].id})
                continue
            what = f"rewritten as {rewritten!r}" if rewritten else "neither kept byte-identical nor evicted with a record"
            self.violate("R", f"pinned block {b.id!r} was {what}", block=b.id,
                         handle=(b.handles or (None,))[0], evidence={"preserve_or_evict": True})
        reading = _PinsLeft(self)
        summarized = reading.summarizing(self.post.derived_union())
        # a block this edit makes may cite a pinned block the window keeps (a reference);
        # citing one the window no longer holds restates it in its place, which is summarizing
        # it, tagged derived or not (red team 11, y04: an untagged turn restating the evicted
        # pinned block); a block made while the pinned one was kept stays a reference
        made = set(self.changed) | set(self.restated) if not self.structural else set()
        citing_asked = bool(reading.unkept)
        named: set[int] = set()
        summaries: list[tuple[int, Block, list[str]]] = []
        citing: list[tuple[int, Block, list[str]]] = []
        # The blocks this edit makes are judged first, by both rules, then those it carries
        # over: one refused here refuses a block carried over with its words and pinned sources
        # as a later check of the same edit would (_was_refused), and by the same rule (red team
        # 78, F03: R x1, then R x2; red team 79, F04: a carried summary refused as citing the
        # pinned block, then, checked again, as summarizing it)
        for carried in (False, True):
            if summarized:
                for j in range(len(edit.post)):
                    b = edit.post[j]
                    if b.derived and (self._carried_over(j) and j not in made) is carried:
                        hit = [h for h in b.derived_from if h in summarized]
                        if hit and not self._made_before(j, hit):
                            named.add(j)
                            self._refuse(j, hit)
                            summaries.append((j, b, hit))
            if citing_asked:
                self._refuse_citing(reading, made, carried, named, citing)
        # (reported in the window's order)
        for _, b, hit in sorted(summaries, key=itemgetter(0)):
            self.violate("R", f"derived block {b.id!r} summarizes pinned source(s) {hit}", block=b.id,
                         handle=hit[0], evidence={"derived_from": list(b.derived_from)})
        for _, b, hit in sorted(citing, key=itemgetter(0)):
            what = "derived block" if b.derived else "block"
            self.violate("R", f"{what} {b.id!r} cites pinned source(s) {hit} that the window no longer "
                         "holds: it restates a pinned block in its place", block=b.id, handle=hit[0],
                         evidence={"cited": hit})

    def _refuse_citing(self, reading: _PinsLeft, made: set[int], carried: bool, named: set[int],
                       citing: list[tuple[int, Block, list[str]]]) -> None:
        """R's rule on citations, over the blocks this edit makes (``carried`` false: those it
        changes or restates, then any not carried over byte for byte) or over those it carries
        over: a block citing a pinned source the window no longer holds restates it when the
        edit makes it, or when it has the words of a block this session (or this check)
        refused so."""
        for j in sorted(self.marked, key=lambda j: (j not in made, j)):
            if (self._carried_over(j) and j not in made) is not carried or j in named:
                continue
            if j not in made and not (self.gate._refused_summaries or self.refused_summaries):
                continue  # (nothing refused yet: a block the edit does not make restates nothing new)
            cited = self.cited(j, self.marked[j])
            # (a stored source holding a gone pinned text is that text, _pinned_bytes_sources,
            # whatever page of it the window keeps: a marker names a source, not a page, red
            # team 66, F02; a block holding the whole text is held to R as the pinned block)
            restating = reading.restating(cited)
            hit = [h for h in cited if h in restating]
            if hit and (j in made or self._was_refused(j, hit)):
                self._refuse(j, hit)
                citing.append((j, self.edit.post[j], hit))

    def _made_before(self, j: int, hit: list[str]) -> bool:
        """Is post block ``j`` a summary pre holds already, byte-identical and deriving from
        every one of ``hit`` there too? R is about what an edit does: a summary carried over
        unchanged summarizes no pinned block in this pass. It was judged when it was made, and a
        summary made while its source was not pinned yet (a turn's text summarized, the same
        words pinned later; red team 37, 03) stays in the window like any block the edit leaves
        alone. A summary made in a pass that sees the pin is refused when it is made, and in
        every later pass of the session that still carries it (the gate keeps the text and the
        pinned source of each summary R refused: an agent that commits one anyway does not get
        it past R that way; another summary with those words, made before a pin of another
        source, is not taken for it)."""
        i = self.match[j]
        if i is None or j in self.ws_matched or self._was_refused(j, hit):
            return False  # (refused in this session before: committed anyway, it is refused again)
        before = self.edit.pre[i]
        return before.derived and set(hit) <= set(before.derived_from)

    def _refusal(self, j: int, hit: list[str]) -> tuple[bytes, frozenset[str]]:
        """What the session remembers of post block ``j`` refused for ``hit``: the digest of its
        whitespace-normalised text, and the pinned texts ``hit`` names, each as the handle of
        the bytes it names (``block:…``), so that the same words respaced, or the same pinned
        bytes named by another handle, are the same refusal (red team 40, 02)."""
        text = normalize_whitespace(self.post.texts[j]).encode("utf-8", "surrogatepass")
        texts = set()
        for h in hit:
            digest = None if is_text_handle(h) else self.gate.handle_digest(h)
            texts.add((stored_text_handle(digest) if digest else None) or h)
        return blake3(text).digest(), frozenset(texts)

    def _refuse(self, j: int, hit: list[str]) -> None:
        self.refused_summaries.append(self._refusal(j, hit))

    def _was_refused(self, j: int, hit: list[str]) -> bool:
        """Did this session refuse post block ``j`` before, as a summary of pinned texts that
        ``hit`` all names (among others)? An agent that commits a refused summary anyway does not
        get it past R in a later pass (where it is carried over unchanged); a summary with the
        same words of fewer of those texts, or of others, made before their pins, is not it (red
        team 38, 01; red team 40, 04)."""
        refused = self.gate._refused_summaries
        if not refused and not self.refused_summaries:
            return False
        key, texts = self._refusal(j, hit)
        return any(k == key and named <= texts for k, named in chain(refused, self.refused_summaries))

    def _carried_over(self, j: int) -> bool:
        """Is post block ``j`` a pre block carried over unchanged (not made by this edit)?"""
        return self.match[j] is not None and j not in self.ws_matched

    # verdict ---------------------------------------------------------------------------------

    def _classify(self, policy: str) -> tuple[str, bool, Window, bool]:
        edit = self.edit
        if self.violations:
            only_purity = all(v.invariant == "I2" for v in self.violations)
            if (policy == "reclassify" and only_purity and edit.operator in LOSSLESS_OPERATORS
                    and not self.dropped_violations):
                retagged = self._reclassified_window()
                if retagged is not None:
                    return "lossy", True, retagged, True
            return "rejected", False, edit.post, False
        if edit.operator in LOSSY_OPERATORS:
            return "lossy", True, edit.post, False
        structural = self.structural
        if structural:
            # dropped duplicates are structural only when a kept copy carries their handles
            carried: dict[bytes, set[str]] = {}
            for b, d in zip(edit.post, self.post.digests):
                carried.setdefault(d, set()).update(b.handles)
            structural = all(set(edit.pre[i].handles) <= carried.get(self.pre.digests[i], set()) for i in self.removed)
        return ("structural" if structural else "lossless"), True, edit.post, False

    def _reclassified_window(self) -> Window | None:
        """Tag the changed blocks derived (from their own handles) and re-check as lossy; the
        reclassification stands only if every other invariant still holds."""
        edit = self.edit
        blocks = []
        changed = set(self.changed)
        pre_id = self.pre.id_pos()
        retagged: set[str] = set()
        for j, b in enumerate(edit.post):
            if j in changed and not b.derived:
                sources = b.handles or (edit.pre[pre_id[b.id]].handles if b.id in pre_id else ())
                if not sources:
                    return None
                blocks.append(Block(b.id, b.role, b.text, (), True, tuple(sources), b.pinned, b.ts, b.resource))
                retagged.add(b.id)
            else:
                if j in changed:  # a changed summary is derived already, as the re-check takes it
                    retagged.add(b.id)
                blocks.append(b)
        # only a change the retagging makes derived is reclassified: a fact dropped with a
        # block the edit removed (nothing retagged holds it) stays a violation (red team 11, y08).
        # A dropped fact a changed block held too is that change's, whichever of its holders the
        # violation names: the first in pre's order, so the verdict followed the order of the
        # blocks; and a changed summary was never counted (red team 49, F02)
        holders = self._drop_holders
        if any(v.block not in retagged and retagged.isdisjoint(holders.get(k, ()))
               for k, v in enumerate(self.violations)):
            return None
        window = Window(blocks)
        lossy = Edit("compress", edit.pre, window, edit.evicted, edit.supersedes, edit.pointers)
        again = _Check(self.gate, lossy, self.floor, self.sticky, self.pinned_norms, self.renderings)
        again._run_phases()
        if again.violations:
            return None
        return window


class ReadOrder(NamedTuple):
    """One post read of a resource, for the order check: its place and ts in post, the place
    and ts in pre of the read it comes from, an id of that read's content, and whether the
    edit touched it (a pair of untouched reads cannot have changed order)."""
    post_pos: int
    post_ts: float | None
    pre_pos: int
    pre_ts: float | None
    content: int
    touched: bool


def _ordered_after(pos_a: int, ts_a: float | None, pos_b: int, ts_b: float | None) -> bool:
    """Is a read newer than another: by ts when both have one and they differ, else by place?"""
    if ts_a is not None and ts_b is not None and ts_a != ts_b:
        return ts_a > ts_b
    return pos_a > pos_b


# up to this many reads of a resource are compared pair by pair in Python; more, in numpy
# blocks of rows (a window polling one status file holds hundreds of reads of it)
_PAIRWISE_READS = 24
_PAIR_ROWS = 256


def first_out_of_order(rows: Sequence[ReadOrder]) -> tuple[int, int] | None:
    """The first pair ``(a, b)``, ``a < b`` in row order, of reads that come from different
    reads of different content, at least one touched, whose order in post is not their
    origins' order in pre; None when every pair keeps its order. The reference is the loop
    over pairs; many rows go through numpy, row blocks against all rows, with the same answer."""
    n = len(rows)
    if n <= _PAIRWISE_READS:
        for a in range(n):
            x = rows[a]
            for b in range(a + 1, n):
                y = rows[b]
                if x.pre_pos == y.pre_pos or x.content == y.content or not (x.touched or y.touched):
                    continue
                if (_ordered_after(x.pre_pos, x.pre_ts, y.pre_pos, y.pre_ts)
                        != _ordered_after(x.post_pos, x.post_ts, y.post_pos, y.post_ts)):
                    return a, b
        return None
    nan = float("nan")
    post_pos = np.array([r.post_pos for r in rows], dtype=np.int64)
    pre_pos = np.array([r.pre_pos for r in rows], dtype=np.int64)
    post_ts = np.array([nan if r.post_ts is None else r.post_ts for r in rows], dtype=np.float64)
    pre_ts = np.array([nan if r.pre_ts is None else r.pre_ts for r in rows], dtype=np.float64)
    content = np.array([r.content for r in rows], dtype=np.int64)
    touched = np.array([r.touched for r in rows], dtype=np.bool_)
    index = np.arange(n)

    def after(pos: np.ndarray, ts: np.ndarray, rows_: slice | np.ndarray) -> np.ndarray:
        ta, tb = ts[rows_, None], ts[None, :]
        with np.errstate(invalid="ignore"):
            by_ts = ~np.isnan(ta) & ~np.isnan(tb) & (ta != tb)
            return np.where(by_ts, ta > tb, pos[rows_, None] > pos[None, :])

    hit = np.flatnonzero(touched)
    if hit.size * 4 < n:
        # few touched reads (an edit in place): only their rows against every row, and the
        # first pair in row order among what they find
        first: tuple[int, int] | None = None
        for start in range(0, hit.size, _PAIR_ROWS):
            rows_ = hit[start:start + _PAIR_ROWS]
            bad = ((index[None, :] != rows_[:, None]) & (pre_pos[rows_, None] != pre_pos[None, :])
                   & (content[rows_, None] != content[None, :])
                   & (after(pre_pos, pre_ts, rows_) != after(post_pos, post_ts, rows_)))
            if bad.any():
                r, c = np.nonzero(bad)
                a, b = np.minimum(rows_[r], c), np.maximum(rows_[r], c)
                k = np.lexsort((b, a))[0]
                pair = (int(a[k]), int(b[k]))
                first = pair if first is None else min(first, pair)
        return first
    for start in range(0, n, _PAIR_ROWS):
        block = slice(start, min(start + _PAIR_ROWS, n))
        candidates = ((index[None, :] > index[block, None]) & (pre_pos[block, None] != pre_pos[None, :])
                      & (content[block, None] != content[None, :]) & (touched[block, None] | touched[None, :]))
        if not candidates.any():
            continue
        bad = candidates & (after(pre_pos, pre_ts, block) != after(post_pos, post_ts, block))
        if bad.any():
            a, b = np.argwhere(bad)[0].tolist()
            return start + a, b
    return None


class _CopyPool:
    """The unused pre copies of one text, for the post blocks that copy it: the first unused
    one with a block's own source (:func:`_same_source`), else with its stamps (not
    :func:`_stamps_differ`), else the first. Each copy is indexed once under each key and
    passed over at most once when used, so n copies matched cost O(n), not a scan of every
    copy per post block (red team 25, v05: 16,000 copies of one turn took 3.2 s)."""

    __slots__ = ("_by_source", "_by_stamp", "_cands", "_evicted", "_evicted_ids", "_kept_by_source", "_order",
                 "first_kept")

    def __init__(self, cands: list[int], pre_blocks: Sequence[Block], used: Any,
                 evicted_ids: Any = frozenset()) -> None:
        self._cands, self._evicted_ids = cands, evicted_ids
        self._kept_by_source: dict[tuple[Any, ...], int] | None = None
        self._order: list[int] = []
        self._by_source: dict[tuple[Any, ...], list[int]] = {}
        self._by_stamp: dict[tuple[Any, ...], list[int]] = {}
        # copies the edit evicts by id: each only for a block with its provenance (handles and
        # derived_from; a new role or stamps make it the same block changed, as any copy)
        self._evicted: dict[tuple[Any, ...], list[int]] = {}
        # the first copy not evicted by id, used or not (a block no unused copy is: a repeat)
        self.first_kept: int | None = None
        for i in cands:  # (ascending: pre positions)
            pb = pre_blocks[i]
            gone = pb.id in evicted_ids
            if not gone and self.first_kept is None:
                self.first_kept = i
            if i in used:
                continue
            if gone:
                self._evicted.setdefault((pb.handles, pb.derived_from), []).append(i)
                continue
            self._order.append(i)
            self._by_source.setdefault(_source_key(pb), []).append(i)
            self._by_stamp.setdefault(_stamp_key(pb), []).append(i)
        # each list is read from its end: reversed, so the lowest position is popped first
        for lst in (self._order, *self._by_source.values(), *self._by_stamp.values(), *self._evicted.values()):
            lst.reverse()

    def take(self, b: Block, used: Any) -> int | None:
        for lst in (self._by_source.get(_source_key(b)),
                    self._evicted.get((b.handles, b.derived_from)) if self._evicted else None,
                    self._by_stamp.get(_stamp_key(b)), self._order):
            while lst:
                if lst[-1] in used:
                    lst.pop()
                    continue
                return lst.pop()
        return None

    def kept_like(self, b: Block, pre_blocks: Sequence[Block]) -> int | None:
        """For a block no unused copy is (a repeat): the first copy not evicted by id with its
        source (:func:`_source_key`), else :attr:`first_kept`. Indexed once per text, on the
        first repeat."""
        if self.first_kept is None:
            return None
        index = self._kept_by_source
        if index is None:
            index = self._kept_by_source = {}
            gone = self._evicted_ids
            for i in self._cands:  # (ascending: the first copy with a source wins)
                if pre_blocks[i].id not in gone:
                    index.setdefault(_source_key(pre_blocks[i]), i)
        return index.get(_source_key(b), self.first_kept)


def _source_key(b: Block) -> tuple[Any, ...]:
    """A block by everything but id and text: handles, provenance, stamps."""
    return (b.handles, b.derived_from, b.resource, b.ts)


def _stamp_key(b: Block) -> tuple[Any, ...]:
    """A block's stamps: its resource, and its ts where it has a resource (a read)."""
    return (b.resource, b.ts if b.resource is not None else None)


def _same_source(b: Block, pb: Block) -> bool:
    """Is ``b`` the block ``pb`` by everything but id and text?"""
    return _source_key(b) == _source_key(pb)


def _stamps_differ(b: Block, pb: Block) -> bool:
    """Do two blocks' stamps differ: their resource, or their ts when either is a read?"""
    return _stamp_key(b) != _stamp_key(pb)


def _log_agrees(line: list[tuple[str, float | None]], logged: dict[str, float | None],
                window_line: list[tuple[str, float | None]], reads: list[int], blocks: Sequence[Block]) -> bool:
    """Does the read log's ``line`` of a resource (``logged``: handle -> its ts there) order
    the window's ``reads`` of it (``window_line``: its line, ``_Side.read_line_of``) as the
    window does, so that ``_Check._log_order``, the log taking none of them anew, would give
    them no key and no spread?

    Yes when the log holds the window's own line (the usual case: the last check logged this
    window), or that line in its order among reads that left the window, each handle once,
    with the ts the window has; and every read is of one handle (the line has one entry per
    read of one handle, and as many entries as reads). Then each read's logged ts is its own
    ts; the window's line is in the window's order (by (ts, position) when every read has a
    ts, else by position) and its ranks in the log rise along it, so the places
    2 * rank * width + position order the reads as their positions do among equal ts, and
    _same_order holds (it answers False without a comparison only for more than
    _PAIRWISE_LOG_READS reads with a ts on some only: those go the long way); and a read of
    one handle spreads over no ranks."""
    return (len(window_line) == len(reads) and len(logged) == len(line)
            and (len(reads) <= _PAIRWISE_LOG_READS or len({blocks[i].ts is None for i in reads}) == 1)
            and (line == window_line or _logged_in_order(line, logged, window_line)))


def _takes_as_it_stands(window_line: list[tuple[str, float | None]], reads: list[int], blocks: Sequence[Block]) -> bool:
    """Would a read log holding no read of a resource take the window's line of it as it
    stands, so that ``_Check._log_order`` gives its ``reads`` no key and no spread
    (:func:`_log_agrees` of that line)? Yes when every read is of one handle, no handle twice,
    and every read has a ts or none has: the line is then in ts order, or in window order, and
    log_reads puts no read before another (it does that only to a read stamped before the one
    logged last). Answered without making the line: a window of a thousand reads of one file
    is common, and its first check would pay for the copy."""
    return (len(window_line) == len(reads) and len({blocks[i].ts is None for i in reads}) == 1
            and len({h for h, _ in window_line}) == len(window_line))


_SEVERAL_RESOURCES = "\x00several"  # (no resource name: a handle never holds NUL)
_NOT_YET = object()


class _SummaryDating:
    """What dates one post summary against the handles its edges supersede
    (_Check._summary_newer_than), worked out once per check: its sources, and per resource
    the two newest of them the read log ranks, and the sources read as no known file.

    Red team 64, F01: one summary of N files' newer reads (which had left the window)
    superseding each file's older read asks this once per resource, N resources; each answer
    walked all N sources again (8.3 s at N = 4,000). The sources read as no known file do not
    depend on the resource, so they, and how the store dates them, are worked out once; and a
    resource's two newest are looked up from the smaller side, its line or the sources."""

    __slots__ = ("_ranked", "_seqs", "_unknown", "has_block_handle", "sources")

    def __init__(self, sources: set[str]) -> None:
        self.sources = sources
        self.has_block_handle = any(h.startswith(BLOCK_HANDLE_PREFIX) for h in sources)
        self._ranked: dict[str, list[tuple[int, str]]] = {}
        self._unknown: frozenset[str] | None = None
        self._seqs: dict[bool, tuple[bool, list[tuple[int, str]], list[str]]] = {}

    def ranked(self, resource: str, rank: Mapping[str, int]) -> list[tuple[int, str]]:
        """The two newest sources ``rank`` ranks, newest first (the newest other than a given
        handle is one of them)."""
        found = self._ranked.get(resource)
        if found is None:
            # (the sources ``rank`` holds, found from the smaller side: ``rank`` is the
            # resource's line, made once per check, so the walks add up to the lines' lengths,
            # where walking every source per resource was quadratic: red team 64, F01)
            sources = self.sources
            among = (h for h in rank if h in sources) if len(rank) < len(sources) else (h for h in sources if h in rank)
            found = self._ranked[resource] = heapq.nlargest(2, ((rank[h], h) for h in among))
        return found

    def unknown(self, read_of: Mapping[str, str], tags: Mapping[str, str]) -> frozenset[str]:
        """The sources neither the log nor a tag knows as a read of any file (the same for every
        resource asked, so made once: red team 64, F01)."""
        found = self._unknown
        if found is None:
            found = self._unknown = frozenset(h for h in self.sources if read_of.get(h, tags.get(h)) is None)
        return found

    def stored_after(self, check: _Check, unknown: bool, handle: str) -> bool:
        """Are all of the summary's sources (``unknown``: those :meth:`unknown` gives) but
        ``handle``, at least one, stored after ``handle``? A source this edit's inline sources
        brought is as new as anything; one the store lacks dates nothing, and refuses it."""
        sources = self._unknown if unknown else self.sources
        assert sources is not None
        made = self._seqs.get(unknown)
        if made is None:
            ingested = check.ingested
            seqs = check.gate.handle_seqs([h for h in sources if h not in ingested])
            missing = [h for h in sources if h not in ingested and h not in seqs]
            made = self._seqs[unknown] = (len(missing) > 1, heapq.nsmallest(2, ((seqs[h], h) for h in seqs)), missing)
        many_missing, oldest, missing = made
        if many_missing or (missing and missing[0] != handle):
            return False
        if len(sources) == (handle in sources):  # (no source but ``handle``; a set difference per edge was O(N))
            return False
        at = check.gate.handle_seqs((handle,)).get(handle)
        if at is None:
            return False
        first = next((seq for seq, h in oldest if h != handle), None)
        return first is None or first > at


def _handles_below(handles: Iterable[str], through: Mapping[str, Iterable[str]]) -> set[str]:
    """What ``handles`` stand for: each block handle in ``through`` (a summary's, mapped to what
    it derives from: _Check._through_block_handles) replaced by the handles below it, down the
    chain; every other handle stands for itself (a block handle not in ``through`` too). A loop
    of block handles standing only for each other stands for nothing."""
    leaves: set[str] = set()
    seen: set[str] = set()
    todo = list(handles)
    while todo:
        h = todo.pop()
        if h in seen:
            continue
        seen.add(h)
        if h in through:
            todo.extend(through[h])
        else:
            leaves.add(h)
    return leaves


def _leaves_below(handle: str, through: Mapping[str, Iterable[str]], memo: dict[str, frozenset[str]]
                  ) -> frozenset[str]:
    """``_handles_below([handle], through)``, with what every block handle the walk reaches
    stands for kept in ``memo`` for the next handle asked (the same ``through``). Red team 64,
    F04: an edge over every link of an N-summary chain walked the chain below each link again
    (6.5 s at N = 8,000); each link now stands for what the link below it does, one frozenset
    shared down the chain. Block handles that stand for each other (a loop) stand together for
    the handles below any of them (Tarjan's strongly connected components, iteratively: a
    chain is deeper than the recursion limit)."""
    if handle not in through:
        return frozenset((handle,))
    found = memo.get(handle)
    if found is not None:
        return found
    index: dict[str, int] = {handle: 0}
    low: dict[str, int] = {handle: 0}
    stack: list[str] = [handle]
    on_stack: set[str] = {handle}
    work: list[tuple[str, Iterator[str]]] = [(handle, iter(through[handle]))]
    while work:
        v, below = work[-1]
        for w in below:
            if w not in through or w in memo:
                continue  # (a leaf, or a handle whose component is done: taken when v's is)
            if w not in index:
                index[w] = low[w] = len(index)
                stack.append(w)
                on_stack.add(w)
                work.append((w, iter(through[w])))
                break
            if w in on_stack:
                low[v] = min(low[v], index[w])
        else:
            work.pop()
            if work:
                u = work[-1][0]
                low[u] = min(low[u], low[v])
            if low[v] != index[v]:
                continue
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            members = set(component)
            leaves: set[str] = set()
            parts: list[frozenset[str]] = []
            for m in component:
                for w in through[m]:
                    if w not in through:
                        leaves.add(w)
                    elif w not in members:
                        parts.append(memo[w])
            if not leaves and parts and all(p is parts[0] for p in parts):
                stands = parts[0]  # (a chain: each link shares the set of the link below)
            else:
                stands = frozenset(leaves.union(*parts))
            for m in component:
                memo[m] = stands
    return memo[handle]


def _logged_in_order(line: list[tuple[str, float | None]], logged: dict[str, float | None],
                     window_line: list[tuple[str, float | None]]) -> bool:
    """Does the log's ``line`` (each handle once; ``logged``: handle -> its ts there) hold
    every read of ``window_line`` with its ts, in that order?"""
    rank = {h: k for k, (h, _) in enumerate(line)}
    last = -1
    for h, ts in window_line:
        k = rank.get(h)
        if k is None or k <= last or logged[h] != ts:
            return False
        last = k
    return True


def _same_order(reads: list[int], blocks: Sequence[Block], order: Mapping[int, tuple[int, float | None]]) -> bool:
    """Do the window (place, ts) and ``order`` (place, the same ts) order ``reads`` alike,
    by ts when both have one, else by place? Pair by pair where only some have a ts (beyond a
    few dozen such reads, no: then the log's order is taken)."""
    stamped = sum(blocks[i].ts is not None for i in reads)
    if stamped in (0, len(reads)):
        return (sorted(reads, key=lambda i: (blocks[i].ts or 0.0, i))
                == sorted(reads, key=lambda i: (blocks[i].ts or 0.0, order[i][0])))
    if len(reads) > _PAIRWISE_LOG_READS:
        return False
    return all(_ordered_after(a, blocks[a].ts, b, blocks[b].ts) == _ordered_after(order[a][0], blocks[a].ts,
                                                                                  order[b][0], blocks[b].ts)
               for k, a in enumerate(reads) for b in reads[k + 1:])


_PAIRWISE_LOG_READS = 64


def top_cycle(reads: list[int], ts_of: Callable[[int], float | None], place_of: Callable[[int], int]) -> list[int]:
    """The newest of some reads (``_Side.newest_reads``), each ordered by its ts and place:
    a list of one when they are a line, else the top cycle (every read of it beats all the
    others), counted with sorts, not pairwise."""
    stamped = sorted((ts, place_of(i), i) for i in reads if (ts := ts_of(i)) is not None)
    if len(stamped) in (0, len(reads)):
        return [stamped[-1][2] if stamped else max(reads, key=place_of)]  # one order: a line
    by_place = sorted(map(place_of, reads))
    unstamped = sorted(place_of(i) for i in reads if ts_of(i) is None)
    wins = {i: rank + bisect_left(unstamped, p) for rank, (_, p, i) in enumerate(stamped)}
    for i in reads:
        if ts_of(i) is None:
            wins[i] = bisect_left(by_place, place_of(i))  # a read without ts is newer than every earlier one
    ranked = sorted(reads, key=lambda i: (-wins[i], place_of(i)))
    n, total = len(ranked), 0
    for k in range(1, n + 1):
        # the first k reads beat every other read exactly when their wins add up to the games
        # among themselves plus every game against the rest
        total += wins[ranked[k - 1]]
        if total == k * (k - 1) // 2 + k * (n - k):
            break
    return sorted(ranked[:k])


def log_reads(log: dict[str, list[tuple[str, float | None]]], read_of: dict[str, Any], resource: str,
              reads: Iterable[tuple[str, float | None]]) -> list[tuple[str, float | None, str | None]]:
    """Add to ``log`` (resource -> reads oldest first) the reads of ``resource`` that
    ``read_of`` (handle -> resource) does not know yet. ``reads`` is the window's line of the
    resource (as (handle, ts), oldest first by the window: :meth:`_Side.read_line_of`),
    logged reads included, for they place the new ones (:func:`reads_placed`). Returns the
    reads added, each as (handle, ts, the logged read it went before, or None at the end),
    which an audit record keeps so a resumed session puts them back where they went
    (:func:`put_reads`)."""
    line = log.get(resource)
    placed = reads_placed(line or [], read_of, reads)
    if placed:
        if line is None:
            line = log[resource] = []
        put_reads(line, placed)
        for handle, _, _ in placed:
            read_of[handle] = resource
    return placed


def reads_placed(line: list[tuple[str, float | None]], known: Container[str],
                 reads: Iterable[tuple[str, float | None]]) -> list[tuple[str, float | None, str | None]]:
    """Where a resource's read ``line`` (oldest first) takes the window's reads ``known`` does
    not hold: each as (handle, ts, the read of ``line`` it goes before, or None after them
    all), in the order they go in.

    A read goes as late as the evidence lets it, before the first logged read it must precede:
    one stamped later than it (a read is as old as its ts says), or one the window shows after
    it that its ts does not put before it (two reads are ordered by ts when both have one and
    they differ, else by place: the window's own rule, ``_ordered_after``),
    and no later than a new read so shown goes. A logged read without a ts is as old as the ts
    the window gives it. Placed by the window so, a read never goes before a logged read
    stamped earlier than it: where the window's places and the log's ts disagree, the ts win.
    Placing a new read after every logged read whatever the window showed put an older read,
    shown before the newer one the log held, after it as the newest: an eviction keeping the
    stale value passed in the session and was refused without one (red team 98, F03, F03b; 101,
    F01, F08); placed by the window without the ts bound it went before a read stamped earlier
    (101, F06). An audit record written before reads kept where they went is replayed by ts
    alone, as the log placed it then (Gate._put_by_ts).

    In time O((n + m) log m) for a line of n reads and a window of m: a stamped read's bound
    is found by bisection on the line's running maximum and minimum ts, a place bound by a
    scan of the window from its end keeping the least bound ahead (a scan of the line per
    read cost a window of thousands of reads seconds: red team 28, y03; 101, F03)."""
    n = len(line)
    reads = list(reads)
    seen: set[str] = set()
    window: list[tuple[str, float | None]] = []
    for read in reads:  # (a read shown twice is placed and places by where it is shown first)
        if read[0] not in seen:
            seen.add(read[0])
            window.append(read)
    first_new = next((w for w, (h, _) in enumerate(window) if h not in known), None)
    if first_new is None:
        return []
    window = window[first_new:]  # (a read shown before every new one places none of them)
    shown = {h: ts for h, ts in reads if ts is not None}

    def stamp(handle: str, logged: float | None) -> float | None:
        """A logged read's ts: its own, else the one the window gives it (red team 93, F06)."""
        return shown.get(handle) if logged is None else logged

    last = stamp(*line[-1]) if line else None
    highest: list[float] | None = None  # highest[k]: the highest ts of line[:k + 1] (-inf: none)
    lowest: list[float] | None = None  # lowest[k]: the lowest ts of line[k:] (inf: none)
    # the logged reads shown after a new one, by their place in the line and their ts (in the
    # usual window, logged reads first and new ones after, none: the line is not read)
    logged_ts: dict[str, tuple[int, float | None]] = {}
    if any(h in known for h, _ in window):
        # (made in C loops, a read's first place kept: a session showing each new read before
        # the last one reads its line every check, red team 102, F02)
        places = zip(range(n - 1, -1, -1), map(itemgetter(1), reversed(line)))
        logged_ts = dict(zip(map(itemgetter(0), reversed(line)), places))
    # the window from its end: the least place any read shown later takes, over all of them,
    # over those without a ts, and by their ts (the least among those stamped at or after t)
    ahead_any = ahead_bare = n
    stamps = sorted({t for h, ts in window
                     if (t := (stamp(h, logged_ts[h][1]) if h in logged_ts else None if h in known else ts)) is not None})
    ahead_stamped = _LeastFromRank(len(stamps))
    gap: dict[str, int] = {}
    for handle, ts in reversed(window):
        if handle in known:
            if handle not in logged_ts:
                continue  # (a read the log files under another resource places nothing here)
            at, logged = logged_ts[handle]
            t = stamp(handle, logged)
        else:
            t = ts
            at = n
            if t is not None and last is not None and last > t:
                if highest is None:
                    highest = list(accumulate((-math.inf if s is None else s for s in (stamp(*r) for r in line)), max))
                at = bisect_right(highest, t)  # the first logged read stamped later
            by_ts = at
            if t is None:
                at = min(at, ahead_any)
            else:
                at = min(at, ahead_bare, ahead_stamped.least_from(bisect_left(stamps, t)))
            if t is not None and at < by_ts:
                if lowest is None:
                    lowest = list(accumulate((math.inf if s is None else s
                                              for s in (stamp(*r) for r in reversed(line))), min))[::-1]
                # never before a logged read stamped earlier: just after the last of them
                at = max(at, min(bisect_left(lowest, t), by_ts))
            gap[handle] = at
        if at >= n:
            continue
        ahead_any = min(ahead_any, at)
        if t is None:
            ahead_bare = min(ahead_bare, at)
        else:
            ahead_stamped.lower(bisect_left(stamps, t), at)
    by_gap: dict[int, list[tuple[str, float | None]]] = {}
    for h, ts in window:
        if h in gap:
            by_gap.setdefault(gap[h], []).append((h, ts))
    placed = []
    for at in sorted(by_gap):
        before = line[at][0] if at < n else None
        group: list[tuple[str, float | None]] = []
        _one_after_another(group, by_gap[at])
        placed.extend((h, ts, before) for h, ts in group)
    return placed


def _one_after_another(out: list[tuple[str, float | None]], reads: Iterable[tuple[str, float | None]]) -> None:
    """Put ``reads`` into ``out`` (reads as (handle, ts), oldest first) one after another:
    each after the last, or, with a ts, before the first read stamped later when the last one
    is (found by bisection on the running maximum ts, made once a read needs it, then kept in
    step: a scan of the line per read cost a window of 5,000 reads ~0.4 s, red team 28, y03).
    How the log placed every new read before it placed them by the window too, and still how
    it places new reads that go between the same two logged ones."""
    highest: list[float] | None = None  # highest[k]: the highest ts of out[:k + 1] (-inf: none)
    for handle, ts in reads:
        at = len(out)
        if ts is not None and out and out[-1][1] is not None and out[-1][1] > ts:
            if highest is None:
                highest = list(accumulate((-math.inf if s is None else s for _, s in out), max))
            at = bisect_right(highest, ts)  # the first read stamped later than ts
        out.insert(at, (handle, ts))
        if highest is not None:
            before = highest[at - 1] if at else -math.inf
            highest.insert(at, before if ts is None else max(before, ts))


class _LeastFromRank:
    """The least value put at rank r or above, for ranks 0..size-1, values lowered one at a
    time (a Fenwick tree over the ranks reversed)."""

    __slots__ = ("size", "tree")

    def __init__(self, size: int) -> None:
        self.size = size
        self.tree = [math.inf] * (size + 1)

    def lower(self, rank: int, value: int) -> None:
        k = self.size - rank
        while k <= self.size:
            self.tree[k] = min(self.tree[k], value)
            k += k & -k

    def least_from(self, rank: int) -> float:
        k, least = self.size - rank, math.inf
        while k > 0:
            least = min(least, self.tree[k])
            k -= k & -k
        return least


_PUT_EACH = 16


def put_reads(line: list[tuple[str, float | None]], placed: Iterable[tuple[str, float | None, str | None]]) -> None:
    """Put reads into a resource's read ``line``, each (handle, ts, the read it goes before,
    or None: at the end), in order, as one after another would: a read goes just before the
    one it names (after those put before it already), or at the end when the line does not
    hold that one, or names one stamped earlier than it (no rule puts a read there: a record
    naming one is not the gate's, and a read is never older than its ts says, red team 102,
    F01). One pass over the line, whatever the number of reads."""
    placed = list(placed)
    if all(before is None for _, _, before in placed):
        line.extend((h, ts) for h, ts, _ in placed)
        return
    if len(placed) <= _PUT_EACH:
        # (a few, each where it goes by a search of the line's handles in C: the pass below
        # costs a session showing each new read before the last one its line each check,
        # red team 102, F02)
        for handle, ts, before in placed:
            at = len(line)
            if before is not None:
                with suppress(ValueError):
                    at = list(map(itemgetter(0), line)).index(before)
                    if _stamped_before(line[at][1], ts):
                        at = len(line)
            line.insert(at, (handle, ts))
        return
    held = dict(line)  # (a read names only one put in before it, as one after another would)
    ahead: dict[str, list[tuple[str, float | None]]] = {}
    tail: list[tuple[str, float | None]] = []
    for handle, ts, before in placed:
        if before is not None and before in held and not _stamped_before(held[before], ts):
            ahead.setdefault(before, []).append((handle, ts))
        else:
            tail.append((handle, ts))
        held.setdefault(handle, ts)
    merged: list[tuple[str, float | None]] = []

    def emit(read: tuple[str, float | None]) -> None:
        # the reads put before this one, each after the reads put before it, then this one
        stack = [(read, iter(ahead.pop(read[0], ())))]
        while stack:
            top, pending = stack[-1]
            nxt = next(pending, None)
            if nxt is None:
                merged.append(top)
                stack.pop()
            else:
                stack.append((nxt, iter(ahead.pop(nxt[0], ()))))

    for read in line:
        emit(read)
    for read in tail:
        emit(read)
    for reads in ahead.values():  # (named a read that no read put here holds: at the end)
        for read in reads:
            emit(read)
    line[:] = merged


def _stamped_before(ts: float | None, than: float | None) -> bool:
    return ts is not None and than is not None and ts < than


def _line_as_logged(window_line: list[tuple[str, float | None]], line: list[tuple[str, float | None]],
                    new: list[tuple[str, float | None]]) -> list[tuple[str, float | None]]:
    """The window's line of a resource as the log takes it: its reads the ``line`` holds and
    the ``new`` ones the log will file there, in the window's order (which places the new ones:
    :func:`reads_placed`)."""
    if not new:
        return []
    keep = {h for h, _ in new}
    keep.update(h for h, _ in line)
    return [r for r in window_line if r[0] in keep]


def _log_places(line: list[tuple[str, float | None]], reads: list[int], blocks: Sequence[Block]
                ) -> tuple[dict[int, tuple[int, float | None]], dict[str, int]]:
    """The (place, ts) that order the reads ``reads`` (block indices, ascending) of ``blocks``
    by a resource's read ``line``, and each handle's rank in it: a read holding handles of the
    line at the rank of the oldest of them (a block is no newer than any observation it holds)
    and the ts that one was logged with, a read of several handles the line does not hold after
    every read before it, with its own ts, the window's place between reads of one rank (all
    distinct). I4 (``_Check._log_order``) and ``compact()`` (``Gate._read_places``) order so."""
    stamp = dict(line)
    rank: dict[str, int] = {}
    for k, (h, _) in enumerate(line):
        rank.setdefault(h, k)
    width = len(blocks) + 1
    order: dict[int, tuple[int, float | None]] = {}
    last = -1
    for i in reads:
        r = min((rank[h] for h in blocks[i].handles if h in rank), default=None)
        if r is not None:
            last = max(last, r)
            order[i] = (2 * r * width + i, stamp[line[r][0]])
        else:
            order[i] = ((2 * last + 1) * width + i, blocks[i].ts)
    return order, rank


def _bounded_in(part: bytes, whole: bytes) -> bool:
    """Does ``part`` occur in ``whole`` where it does not cut a word or number in two?"""
    if not part:
        return False
    at = whole.find(part)
    while at >= 0:
        end = at + len(part)
        cut_start = at > 0 and whole[at - 1:at].isalnum() and part[:1].isalnum()
        cut_end = end < len(whole) and whole[end:end + 1].isalnum() and part[-1:].isalnum()
        if not cut_start and not cut_end:
            return True
        at = whole.find(part, at + 1)
    return False


def _role_changed(block: Block, pre_block: Block) -> bool:
    """Does a block kept or rewritten under its id say it was said by another than its pre
    version? (Only a turn made a summary of itself, tagged derived, may.)"""
    return block.role != pre_block.role and not (block.derived and block.role == "summary")


def _role_change(block: Block, pre_block: Block) -> tuple[str, dict[str, Any]]:
    """The I1 violation of a role change: who said a text is its provenance (a tool output
    made a system prompt, an assistant's question made the user's answer: red team 11 y01,
    red team 12 z01)."""
    return ((f"block {block.id!r} changes its role from {pre_block.role!r} to {block.role!r}: who said a text is "
             "part of its provenance"),
            {"block": block.id, "key": "role", "value": block.role,
             "evidence": {"pre_block": pre_block.id, "pre_role": pre_block.role}})


_NO_FINGERPRINTS = SortedFingerprints(EMPTY)
_NAME_KINDS = np.array([int(Kind.PATH), int(Kind.URL), int(Kind.IDENTIFIER)], dtype=np.uint8)
_ONE_AFTER = frozenset({b"no", b"any", b"every", b"each"})  # "no one", "every one"
_ONE_COUNTED = frozenset({b"only", b"exactly", b"just"})  # "only one of the 12 nodes" is a count
_ONE_RELATIVE = frozenset({b"that", b"who", b"which"})  # "the one that failed"
_WORD_RUN = re.compile(rb"\S+")
_POSSESSIVE = re.compile(rb"(?:'s|s'|\xe2\x80\x99s|s\xe2\x80\x99)\W*\Z", re.IGNORECASE)  # cluster's, users', cluster’s
# a word that is a number, past an opening mark ("12", "(12)", "~12"), or a number word ("one of
# twelve nodes")
_NUMBER_WORD = re.compile(rb"\A\W*(?:\d|(?i:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
                          rb"[a-z]+teen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|"
                          rb"dozen|million|billion)\b)")


# A row is looked up in its group's sets one by one until one holds it: a summary of
# thousands of sources made that rows x sources (red team 41, 05). From this many sets on, a
# group may be looked up in the union of its sets instead, one binary search a row - where
# its rows times its sets outweigh the fingerprints the union sorts (red team 42, C1: 200
# summaries of two facts each, every one grounded in the same 20 large documents and its own
# turn, sorted 100,000 fingerprints a summary: 4.3 s).
_UNION_FROM = 16


def _group_unions(sets: list[SortedFingerprints], groups: list[list[int]], rows: list[int]
                  ) -> tuple[list[SortedFingerprints], list[list[int]]]:
    """``sets`` and ``groups`` (of tables with ``rows`` rows each to look up) with each group
    of ``_UNION_FROM`` sets or more whose look-ups, rows times sets, outnumber its sets'
    fingerprints replaced by one set, the union of its members (made once for the tables
    with the same members, their rows counted together), appended to the sets. A row occurs
    in some set of its group exactly when it occurs in their union, so every look-up gives
    the same answer. The grounding's look-up and those of the rows it leaves over (as keys,
    as prose) each take their own: a summary of 16,000 sources with 1,600 facts none of them
    holds spent 0.3-0.6 s in those two, set by set (red team 41, "v1 is 1")."""
    if max(map(len, groups), default=0) < _UNION_FROM:
        return sets, groups
    wide: dict[tuple[int, ...], int] = {}  # members -> the rows of the tables looked up in them
    for g, n in zip(groups, rows):
        if len(g) >= _UNION_FROM:
            members = tuple(sorted(set(g)))
            wide[members] = wide.get(members, 0) + n
    unions: dict[tuple[int, ...], int] = {}
    out_sets = list(sets)
    for members, n in wide.items():
        if n * len(members) > sum(len(sets[m]) for m in members):
            parts = [sets[m].to_array() for m in members if len(sets[m])]
            unions[members] = len(out_sets)
            out_sets.append(SortedFingerprints(unique_counts(np.concatenate(parts))[0]) if parts else _NO_FINGERPRINTS)
    if not unions:
        return sets, groups
    out_groups = []
    for g in groups:
        k = unions.get(tuple(sorted(set(g)))) if len(g) >= _UNION_FROM else None
        out_groups.append(g if k is None else [k])
    return out_sets, out_groups


def _ground_nested_keys(tables: list[FactTable], sources: list[_Facts], groups: list[list[int]],
                        owner: np.ndarray, row: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The (owner, row) pairs left once a dotted key=value fact is looked up as a nested one:
    ``server.port=8080`` is grounded by ``port: 8080`` under ``server:`` (YAML), ``"server":
    {"port": 8080}`` (JSON) or ``[server]`` ``port=8080`` (INI, TOML), and by nothing else
    (red team 14, p07). The leaf pair must be in the source; the keys enclosing it must end
    with the dotted key's other parts. A source is read once for all its places, and what
    was read is kept with its facts for the next check (red team 15, f11)."""
    keep = np.ones(owner.size, dtype=np.bool_)
    for n, (t, r) in enumerate(zip(owner.tolist(), row.tolist())):
        table = tables[t]
        if table.kind[r] != _KIND_KV or int(table.key_start[r]) < 0:
            continue
        parts = table.key_bytes(r).split(b".")
        if not 2 <= len(parts) <= _MAX_KEY_PARTS or not all(parts):
            continue
        value = table.fp_value[r].tobytes()
        # the leaf may itself be dotted in the source ("http.port: 8080" under "server:")
        if any(tuple(parts[:cut]) in sources[k].nested_tails((value, b".".join(parts[cut:])))
               for k in groups[t] for cut in range(1, len(parts))):
            keep[n] = False
    return (owner, row) if keep.all() else (owner[keep], row[keep])


_MAX_KEY_PARTS = 16  # a dotted key of more parts is no config path anybody writes
# how ungrounded_rows treats each kind of fact (see _factdiff_py.ungrounded_rows)
# rows of a marker's statements searched for literally in the source a pointer's marker cites
# (P, _marker_statement_grounded): a bound on what a pointer outside the block's handles costs
_CLAIM_LITERAL_ROWS = 64

_GROUNDING_KINDS = {"skip_kind": _KIND_CITATION, "pair_kind": _KIND_KV, "quote_kind": _KIND_QUOTE,
                    "number_kind": _KIND_NUMBER, "url_kind": _KIND_URL}

# quotations looked for across line breaks per check: each look normalises a source's whole text,
# so a summary of thousands of invented quotations costs no more than this many (the rest stay
# ungrounded: refused, as before)
MAX_WRAPPED_QUOTE_LOOKUPS = 64
# a paragraph break: a blank line (ended by \n, \r\n or a lone \r), a form feed or vertical
# tab, U+2028 or U+2029 (red team 96, F06: a quotation was grounded across \r\r and U+2029)
_BLANK_LINE = re.compile(rb"(?:\r\n|\r(?!\n)|\n)[ \t]*(?:\r\n|\r(?!\n)|\n)|[\f\v]|\xe2\x80[\xa8\xa9]")
# a fence line (``` or ~~~, at any indent: a fence in a list item sits four spaces in), after
# any line break (red team 99, F10: a lone \r hid the fence)
_FENCE_LINE = re.compile(rb"(?:^|(?<=[\r\n]))[ \t]*(?:```|~~~)")
# a line break between two lines both indented four spaces or a tab: code, not wrapped prose
# (an indented code block, or a list item's: red team 99, F10)
_CODE_LINE_BREAK = re.compile(rb"(?:^|(?<=[\r\n]))(?: {4}|\t)[^\r\n]*(?:\r\n|\r|\n)(?: {4}|\t)")
_ASCII_BLANKS = re.compile(rb"[ \t\n\r\f\v]")
_LINE_BREAK = re.compile(rb"[\r\n]")


def _breaks_code_lines(haystack: bytes, start: int, end: int) -> bool:
    """Does ``haystack[start:end]`` cross a line break between two code lines (both indented
    four spaces or a tab, :data:`_CODE_LINE_BREAK`)? Looked for from the start of the span's
    first line."""
    line = max(haystack.rfind(b"\n", 0, start), haystack.rfind(b"\r", 0, start)) + 1
    for found in _CODE_LINE_BREAK.finditer(haystack, line, end):
        if found.end() > start:
            return True
    return False


def _ground_own_handle_names(tables: list[FactTable], requests: list[tuple[Any, int, list[str], Any]],
                             owner: np.ndarray, row: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The (owner, row) pairs left once an identifier that is the name of a handle its block
    comes from, after the kind prefix, is grounded: a block naming its source's call id ("re-read
    with the call id call_14ba5e1", of tool:call_14ba5e1) names it, and asserts nothing of it
    (red team 95, F07: refused as occurring in none of ['tool:call_14ba5e1']). Only a name of a
    tool call id's shape (``call_…``, ``toolu_…``, ``fc_…``): a handle named after what it holds
    (``tool:build_20261204``) let a block assert that build as a value (red team 99, F04)."""
    named = [{name for h in handles if _CALL_ID.fullmatch(name := h.partition(":")[2].encode("utf-8", "surrogatepass"))}
             for _, _, handles, _ in requests]
    keep = np.fromiter((tables[t].kind[r] != _KIND_IDENTIFIER or tables[t].value_bytes(r) not in named[t]
                        for t, r in zip(owner.tolist(), row.tolist())), dtype=np.bool_, count=owner.size)
    return owner[keep], row[keep]


# the call ids agent frameworks give tool calls (OpenAI call_ and fc_, Anthropic toolu_, Bedrock tooluse_)
_CALL_ID = re.compile(rb"(?:call|toolu|tooluse|fc)[_-][A-Za-z0-9_-]+")


def _ground_names_in_own_pre(tables: list[FactTable], requests: list[tuple[Any, int, list[str], Any]],
                             owner: np.ndarray, row: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The (owner, row) pairs left once a name is grounded by its block's own pre version holding
    the word between the same words, whitespace aside: at a line's or sentence's start the
    grammar reads a capitalised word as no name, and a reflow joining it back made a name the
    pre version's set lacked (red team 95, F03); the word alone let any capitalised word of the
    pre version come back as a name ("Mark the ticket done." as an approver Mark: red team 99,
    F09)."""
    # each name with the words around it, asked of its own pre version's text with its
    # whitespace runs one space, all of one text's in one pass (a find per name over the whole
    # text was quadratic: 32,000 names new to a rewritten block took 10 s, red team 100, F07)
    asked: dict[int, tuple[_Facts, list[tuple[int, bytes]]]] = {}
    for n, (t, r) in enumerate(zip(owner.tolist(), row.tolist())):
        own_pre = requests[t][3]
        if tables[t].kind[r] == _KIND_NAME and own_pre is not None:
            asked.setdefault(id(own_pre), (own_pre, []))[1].append((n, _word_in_context(tables[t], r)))
    keep = np.ones(owner.size, dtype=np.bool_)
    for own_pre, needles in asked.values():
        standing = _standing_words({needle for _, needle in needles}, _within_paragraphs(own_pre.table.data))
        for n, needle in needles:
            keep[n] = needle not in standing
    return (owner, row) if keep.all() else (owner[keep], row[keep])


def _ground_reflowed_in_own_pre(tables: list[FactTable], requests: list[tuple[Any, int, list[str], Any]],
                                owner: np.ndarray, row: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The (owner, row) pairs left once a fact is grounded by standing inside a one-line fact
    its block's own pre version holds only re-flowed (:func:`_reflowed_regions`): a re-flow
    joining ``timeout="30\nseconds"`` back onto one line makes a kv fact the pre version's set
    lacks (red team 95, F04, as I2 reads it)."""
    regions: dict[int, list[tuple[int, int]]] = {}
    keep = np.ones(owner.size, dtype=np.bool_)
    for n, (t, r) in enumerate(zip(owner.tolist(), row.tolist())):
        own_pre = requests[t][3]
        if own_pre is None:
            continue
        if t not in regions:
            regions[t] = _reflowed_regions(tables[t], own_pre.table)
        keep[n] = not _inside(regions[t], int(tables[t].start[r]), int(tables[t].end[r]))
    return owner[keep], row[keep]


def _ground_denials_kept(tables: list[FactTable], sources: list[list[_Facts]],
                        requests: list[tuple[Any, int, list[str], Any]], owner: np.ndarray,
                        row: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The (owner, row) pairs left once a quotation its own text denies (``do not "deploy to
    prod on Friday"``) is grounded by a source (or its block's pre version) that holds it with
    the same word before it, whitespace aside: a rewrite keeping a denied quotation
    was refused, as the source's occurrence follows a negation. The word before must be the
    same: a summary's own "No -" before the quotation is no denial its source wrote (red team
    100, F05)."""
    # (imported here: only a denied quotation left over asks for it)
    from provgate._matching_py import after_negation

    # (each text asked once, for every quotation whose block it grounds: _standing_words)
    asked: dict[int, tuple[_Facts, list[tuple[int, bytes]]]] = {}
    for n, (t, r) in enumerate(zip(owner.tolist(), row.tolist())):
        table = tables[t]
        if table.kind[r] != _KIND_QUOTE or not after_negation(table.data, int(table.value_start[r])):
            continue
        context = _word_in_context(table, r, after=False)
        for facts in [*sources[t], *([] if requests[t][3] is None else [requests[t][3]])]:
            asked.setdefault(id(facts), (facts, []))[1].append((n, context))
    keep = np.ones(owner.size, dtype=np.bool_)
    for facts, needles in asked.values():
        standing = _standing_words({needle for _, needle in needles}, _within_paragraphs(facts.table.data))
        for n, needle in needles:
            if needle in standing:
                keep[n] = False
    return (owner, row) if keep.all() else (owner[keep], row[keep])


def _inside(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    """Does ``start..end`` lie inside one span of ``spans`` (:func:`_reflowed_regions`: sorted by
    start, each end the furthest so far)?"""
    k = bisect_right(spans, (start, 1 << 62)) - 1
    return k >= 0 and end <= spans[k][1]


_PATH_LINE = re.compile(rb"(.+?):(\d+)(?::(\d+))?")


def _path_lines(facts: _Facts) -> tuple[set[bytes], set[tuple[bytes, ...]]]:
    """The ``path:line[:col]`` facts of a text as the pieces they join (paths, and line and
    column numbers), and the places it names: each joined fact's (path, line) and (path, line,
    col), and a traceback frame's (path, line) of ``File "path", line N``."""
    found = facts._path_lines
    if found is None:
        pieces: set[bytes] = set()
        places: set[tuple[bytes, ...]] = set()
        table = facts.table
        for r in np.flatnonzero(table.kind == _KIND_PATH).tolist():
            joined = _PATH_LINE.fullmatch(table.value_bytes(r))
            if joined is not None:
                path, line, col = joined.groups()
                pieces.update(piece for piece in (path, line, col) if piece)
                places.add((path, line))
                if col:
                    places.add((path, line, col))
        places.update(_TRACEBACK_FRAME.findall(table.data))
        found = facts._path_lines = (pieces, places)
    return found


# a Python traceback's frame: its file and line, which a summary joins as path:line
_TRACEBACK_FRAME = re.compile(rb'File "([^"\r\n]+)", line (\d+)')


def _ground_in_path_lines(tables: list[FactTable], sources: list[list[_Facts]], owner: np.ndarray,
                          row: np.ndarray, read_facts: Callable[[_Facts], _Facts]) -> tuple[np.ndarray, np.ndarray]:
    """The (owner, row) pairs left once a path or number is looked up among the pieces of its
    sources' ``path:line[:col]`` facts ("src/billing.py, line 199" of grep's
    ``src/billing.py:199:``, "line 62" of pytest's ``tests/test_retry.py:62:``), and a joined
    ``path:line[:col]`` among the places one source names, that path with that line (and
    column): a ``path:line:col`` fact, or a traceback's ``File "client.py", line 42`` for
    ``client.py:42``. The grammar reads the joined form as one fact (red team 95, F02: the
    commonest tool output a coding agent summarizes, refused); a path with another path's line,
    or a number the source says of something else, is no place it names (red team 99, F01).
    A JSON source is read as the strings it encodes too (``read_facts``: ``{"stdout": …}``
    glues each line's path to the ``\n`` before it, red team 99, F14)."""
    keep = np.ones(owner.size, dtype=np.bool_)
    # each block's sources' pieces and places as one pair of sets, made once a block (looking
    # each row up in every source was rows x sources: red team 99, F08)
    unions: dict[int, tuple[set[bytes], set[tuple[bytes, ...]]]] = {}
    for n, (t, r) in enumerate(zip(owner.tolist(), row.tolist())):
        table = tables[t]
        kind = table.kind[r]
        if kind != _KIND_PATH and kind != _KIND_NUMBER:
            continue
        if t not in unions:
            texts = [*sources[t], *(d for facts in sources[t] if (d := read_facts(facts)) is not facts)]
            found = [_path_lines(x) for x in texts]
            unions[t] = (set().union(*(f[0] for f in found)), set().union(*(f[1] for f in found)))
        pieces, places = unions[t]
        value = table.value_bytes(r)
        joined = _PATH_LINE.fullmatch(value) if kind == _KIND_PATH else None
        if (value in pieces) if joined is None else (tuple(piece for piece in joined.groups() if piece) in places):
            keep[n] = False
    return (owner, row) if keep.all() else (owner[keep], row[keep])


_QUOTE_MARKS = frozenset(b"\"'`")


def _inside_quoted_kv_values(facts: _Facts) -> np.ndarray | None:
    """Of each groundable row of ``facts``: does it (not a kv fact) lie inside the quoted value
    of a kv fact of the text, the marks included? None when no row does."""
    table = facts.table
    values = _quoted_kv_values(table)
    if not values:
        return None
    opens = np.array([v[0] for v in values], dtype=np.int64)
    # (each value's reach: the furthest close of those opening no later)
    closes = np.maximum.accumulate(np.array([v[1] for v in values], dtype=np.int64))
    rows = facts.groundable_rows()
    starts, ends = table.start[rows].astype(np.int64), table.end[rows].astype(np.int64)
    at = np.searchsorted(opens, starts, side="right") - 1
    # (a pin's kv fact, grammar v8, is a token of the value like its name and version: the
    # nginx = 1.25 of image: 'nginx:1.25' restates the quoted value, as nginx and 1.25 do)
    inside = (at >= 0) & (ends <= closes[np.maximum(at, 0)]) & ((table.kind[rows] != _KIND_KV) | _pin_kv_rows(
        table, rows))
    return inside if inside.any() else None


def _pin_kv_rows(table: FactTable, rows: np.ndarray) -> np.ndarray:
    """Of each of ``rows``: is it the kv fact of a pin (grammar v8: ``lodash@4.17.21``,
    ``requests==2.31.0``, ``nginx:1.25``)? Its key is followed by "@", "==", a ":" glued to the
    ref or a colour code, never by what follows a config key (blanks, "=", ": ", a quote)."""
    out = np.zeros(rows.size, dtype=np.bool_)
    data = table.data
    n = len(data)
    # (only kv rows whose key starts the span are looked at: one pass over them)
    for i in np.flatnonzero((table.kind[rows] == _KIND_KV) & (table.key_start[rows] == table.start[rows])).tolist():
        ke = int(table.key_end[rows[i]])
        c = data[ke] if ke < n else 0
        out[i] = c in (0x40, 0x1B) or data[ke:ke + 2] == b"==" or (
            c == 0x3A and ke + 1 < n and data[ke + 1] not in b" \t")
    return out


def _quoted_kv_values(table: FactTable) -> list[tuple[int, int, int]]:
    """``(opening mark, end of the closing mark, kv row)`` of every kv fact of a table whose
    value is quoted, sorted: the stretch a formatter's quotes hold (:meth:`_Check._in_quoted_pair`)."""
    data = table.data
    out = []
    for r in np.flatnonzero(table.kind == _KIND_KV).tolist():
        vs, ve = int(table.value_start[r]), int(table.value_end[r])
        if 0 < vs and ve < len(data) and data[vs - 1] in _QUOTE_MARKS and data[ve] == data[vs - 1]:
            out.append((vs - 1, ve + 1, r))
    out.sort()
    return out


# a URL's authority (RFC 3986): the user of its userinfo (not a password after ":"), its host
# (a name, an IPv4 address or a bracketed IPv6 one) and its port
_URL_AUTHORITY = re.compile(rb"[A-Za-z][A-Za-z0-9+.\-]*://(?:([^@/?#:\[\]]*)(?::[^@/?#]*)?@)?"
                            rb"(\[[0-9A-Fa-f:.]+\]|[^@/?#:\[\]]*)(?::([0-9]+))?")
# the kinds a piece of a URL's authority is read as in a summary: deploy (the name of a pin),
# 10.0.0.12 and 22 (numbers), db.internal and db-3 (identifiers), Prod (a name)
_URL_PART_KINDS = frozenset((_KIND_NUMBER, _KIND_IDENTIFIER, _KIND_NAME))


def _url_parts(facts: _Facts) -> set[bytes]:
    """The user, host and port of every URL a text states, as a URL fact or a kv value."""
    found = facts._url_parts
    if found is None:
        found = set()
        table = facts.table
        # (only a value holding "://" can be one: the rows holding one of the text's, found from
        # its few occurrences, not a Python step and a match per kv row: 0.28 ms a source of the
        # drift benchmark)
        data = table.data
        marks = []
        at = data.find(b"://")
        while at >= 0:
            marks.append(at)
            at = data.find(b"://", at + 1)
        rows = np.flatnonzero((table.kind == _KIND_URL) | (table.kind == _KIND_KV)) if marks else ()
        if len(rows):
            where = np.asarray(marks, dtype=np.int64)
            holding = (np.searchsorted(where, table.value_end[rows] - 3, side="right")
                       > np.searchsorted(where, table.value_start[rows], side="left"))
            rows = rows[holding]
        for r in rows.tolist() if len(rows) else ():
            m = _URL_AUTHORITY.match(table.value_bytes(r))
            if m is not None:
                found.update(piece for piece in m.groups() if piece)
                user, host = m.group(1), m.group(2)
                if user and host:
                    # the pair, as a pin's kv fact (grammar v8) binds them: deploy@10.0.0.12
                    found.add(user + b"@" + host)
        facts._url_parts = found
    return found


def _ground_in_url_parts(tables: list[FactTable], sources: list[list[_Facts]], owner: np.ndarray,
                         row: np.ndarray, read_facts: Callable[[_Facts], _Facts]) -> tuple[np.ndarray, np.ndarray]:
    """The (owner, row) pairs left once a number, identifier or name is looked up among the
    users, hosts and ports of its sources' URLs: the grammar reads a URL as one fact, so "the
    remote is deploy@10.0.0.12" or "port 5432 on 10.0.0.5" of ``ssh://deploy@10.0.0.12:22/srv``
    or ``DATABASE_URL=postgres://app@10.0.0.5:5432/db`` was refused (red team 100, F11: the host
    of user@host, a fact since grammar v4, and its user since v5, glued to the URL's other
    bytes where the literal search looks). A changed piece (10.0.0.13, root) is still
    ungrounded. A JSON source is read as the strings it encodes too (``read_facts``). Since
    grammar v8 a summary's deploy@10.0.0.12 is also the kv fact that binds the two; it is
    grounded by one URL whose user and host they are (not by a user of one and a host of
    another)."""
    keep = np.ones(owner.size, dtype=np.bool_)
    unions: dict[int, set[bytes]] = {}
    for n, (t, r) in enumerate(zip(owner.tolist(), row.tolist())):
        table = tables[t]
        kind = table.kind[r]
        if kind not in _URL_PART_KINDS and kind != _KIND_KV:
            continue
        if t not in unions:
            texts = [*sources[t], *(d for facts in sources[t] if (d := read_facts(facts)) is not facts)]
            unions[t] = set().union(*(_url_parts(x) for x in texts))
        # a user@host pin (a kv fact since grammar v8) as the user and host of one URL: the
        # span's text is the pair; a key=value fact's never is (its "=" is no "@")
        piece = bytes(table.data[int(table.start[r]):int(table.end[r])]) if kind == _KIND_KV else table.value_bytes(r)
        if piece in unions[t]:
            keep[n] = False
    return (owner, row) if keep.all() else (owner[keep], row[keep])


# the words that may stand between a pin's name and its ref in prose (no other word can: "lodash
# and react 18.2.0" does not pin lodash to 18.2.0)
_PIN_PROSE_JOINERS = frozenset(
    b"version ver is was at from to pinned installed upgraded updated now on as port tag".split())
# what ends a token in prose before it is compared: a sentence's or a clause's punctuation
_PIN_PROSE_TRIM = b".,;:!?)]}'\""
_PIN_PROSE_SPLIT = re.compile(rb"[ \t]++")


def _pin_prose(facts: _Facts) -> tuple[set[bytes], set[tuple[bytes, bytes]]]:
    """The keys of a text's kv facts as written, and the (name, ref) pairs its prose says: a
    blank-separated token, then up to three joining words (_PIN_PROSE_JOINERS), then a token
    ("lodash 4.17.21", "deploy from 10.0.0.12", "lodash is pinned to 4.17.21"), trailing
    punctuation trimmed. One pass over the text, each token looked ahead of at most four times;
    made once a text."""
    found = facts._pin_prose
    if found is None:
        table, data = facts.table, facts.table.data
        keys = {bytes(data[int(table.key_start[r]):int(table.key_end[r])])
                for r in np.flatnonzero((table.kind == _KIND_KV) & (table.key_start >= 0)).tolist()}
        pairs: set[tuple[bytes, bytes]] = set()
        for line in bytes(data).split(b"\n"):
            words = [w.rstrip(_PIN_PROSE_TRIM) for w in _PIN_PROSE_SPLIT.split(line.strip(b" \t\r"))]
            for i, name in enumerate(words):
                for j in range(i + 1, min(i + 5, len(words))):
                    pairs.add((name, words[j]))
                    if words[j] not in _PIN_PROSE_JOINERS:
                        break
        found = facts._pin_prose = (keys, pairs)
    return found


def _ground_pins_in_prose(tables: list[FactTable], sources: list[list[_Facts]], owner: np.ndarray,
                          row: np.ndarray, read_facts: Callable[[_Facts], _Facts]) -> tuple[np.ndarray, np.ndarray]:
    """The (owner, row) pairs left once a pin's kv fact (grammar v8: ``deploy@10.0.0.12``,
    ``lodash@4.17.21``) is looked up in its sources' prose, where no source keys its name: the
    name as a token followed, past at most three joining words, by the ref (:func:`_pin_prose`:
    "Accepted publickey for deploy from 10.0.0.12", "lodash 4.17.21 is installed"). v7 grounded
    such a summary fact by fact; a pin's pair must now be grounded as a pair, and a source that
    says it in words grounds it so (past joining words only: "lodash and react 18.2.0" pins
    nothing). Where a source keys the name (a pin, ``lodash=…``, ``"lodash": …``), its pairs
    decide alone: ``lodash@18.2.0`` of "lodash@4.17.21 and react@18.2.0" stays refused (red
    team 105 F02). A JSON source is read as the strings it encodes too. Each block's sources
    are read once (a set look-up a row)."""
    keep = np.ones(owner.size, dtype=np.bool_)
    unions: dict[int, tuple[set[bytes], set[tuple[bytes, bytes]]]] = {}
    pins = np.zeros(owner.size, dtype=np.bool_)
    for t in np.unique(owner).tolist():
        at = np.flatnonzero(owner == t)
        pins[at] = _pin_kv_rows(tables[t], row[at])
    for n in np.flatnonzero(pins).tolist():
        t, r = int(owner[n]), int(row[n])
        table = tables[t]
        if t not in unions:
            texts = [*sources[t], *(d for facts in sources[t] if (d := read_facts(facts)) is not facts)]
            found = [_pin_prose(x) for x in texts]
            unions[t] = (set().union(*(f[0] for f in found)), set().union(*(f[1] for f in found)))
        keys, pairs = unions[t]
        data = table.data
        key = bytes(data[int(table.key_start[r]):int(table.key_end[r])])
        if key not in keys and (key, bytes(data[int(table.value_start[r]):int(table.value_end[r])])) in pairs:
            keep[n] = False
    return (owner, row) if keep.all() else (owner[keep], row[keep])


def _ground_specifier_clauses(tables: list[FactTable], sources: list[list[_Facts]], owner: np.ndarray,
                              row: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The (owner, row) pairs left once a requirement's kv fact whose value is a comparison
    (grammar v9/v11: ``django = <4.2``) is grounded by a source requirement of the same name
    (as pip compares names: :func:`_pip_name`) whose specifier set holds each of its clauses:
    grammar v11 reads ``django>=3.2,<4.2`` as one value, so the honest summary ``Requires
    django<4.2`` (its upper bound) was grounded by nothing and refused, where naming the first
    clause (``django>=3.2``) was grounded as the source's text (red team 116, F15). A clause
    no source requirement of that name holds (``django<5``, ``django>=4.2``) stays refused.
    Each block's sources are read once, and only when a row left over is such a fact."""
    keep = np.ones(owner.size, dtype=np.bool_)
    read: dict[int, dict[bytes, list[frozenset[bytes]]]] = {}
    for n, (t, r) in enumerate(zip(owner.tolist(), row.tolist())):
        table = tables[t]
        said = _comparison_clauses(table, r)
        if said is None:
            continue
        sets = read.get(t)
        if sets is None:
            sets = read[t] = {}
            for facts in sources[t]:
                st = facts.table
                for sr in np.flatnonzero(st.kind == _KIND_KV).tolist():
                    clauses = _comparison_clauses(st, sr, pins=True)
                    if clauses is not None:
                        sets.setdefault(_pip_name(bytes(st.data[int(st.key_start[sr]):int(st.key_end[sr])])),
                                        []).append(clauses)
        name = _pip_name(bytes(table.data[int(table.key_start[r]):int(table.key_end[r])]))
        if any(said <= clauses for clauses in sets.get(name, ())):
            keep[n] = False
    return (owner, row) if keep.all() else (owner[keep], row[keep])


def _ground_same_requirements(tables: list[FactTable], sources: list[list[_Facts]],
                              requests: list[tuple[Any, int, list[str], Any]], owner: np.ndarray, row: np.ndarray,
                              lossy: bool) -> tuple[np.ndarray, np.ndarray]:
    """The (owner, row) pairs left once a fact standing inside a pip requirement that its
    block's sources (or its own pre version) state, read as pip reads it
    (:func:`_requirement_stated`), is grounded by that requirement: the grammar's kv and name
    facts of a requirement keep its case and blanks, so ``django >= 3.2, < 4.2`` ->
    ``django>=3.2,<4.2``, its clauses reordered, ``Django (>=3.2,<4.2)`` -> ``Django>=3.2,<4.2``,
    ``Requests[socks]`` -> ``requests[socks]`` or ``requests[SOCKS]`` were refused (red team
    118, F14, F23). A requirement with a clause, an extra or a name changed states none of its
    sources' and grounds nothing. Each text is read once, and only for a block with a row left
    inside a requirement."""
    excused: list[int] = []
    spans: dict[int, tuple[list[tuple[int, int, tuple[bytes, ...]]], list[int]]] = {}
    read: dict[int, frozenset[tuple[bytes, ...]]] = {}
    known_of: dict[int, set[tuple[bytes, ...]]] = {}
    for n, (t, r) in enumerate(zip(owner.tolist(), row.tolist())):
        table = tables[t]
        if not _near_requirement(table, r):
            continue
        mine = spans.get(t)
        if mine is None:
            mine = spans[t] = _requirement_spans_by_start(table.data)
        # (the requirement holding the row by a binary search: a scan of every requirement a
        # row made a rewrite of n padded requirements quadratic, red team 123, F21)
        key = _requirement_holding(mine, int(table.start[r]), int(table.end[r]))
        if key is None:
            continue
        inside = [key]
        known = known_of.get(t)
        if known is None:
            known = known_of[t] = set()
            own_pre = requests[t][3]
            for facts in [*sources[t], *([] if own_pre is None else [own_pre])]:
                found = read.get(id(facts))
                if found is None:
                    found = read[id(facts)] = frozenset(_requirements(facts.table.data))
                known |= found
        if all(_requirement_stated(key, known, lossy) for key in inside):
            excused.append(n)
    if not excused:
        return owner, row
    keep = np.ones(owner.size, dtype=np.bool_)
    keep[excused] = False
    return owner[keep], row[keep]


def _near_requirement(table: FactTable, r: int) -> bool:
    """May row ``r`` of ``table`` stand inside a requirement? A kv fact holds a comparison
    before a digit (``_REQUIREMENT_HINT``); any other stands at most ``_REQ_NEAR`` bytes after
    one (a clause's version after its comparison) or before one (a name, its extras, then the
    comparison): a row left over costs a search of its bytes or a few hundred, not its text's
    requirements read."""
    a, b = int(table.start[r]), int(table.end[r])
    if table.kind[r] == _KIND_KV:
        # (a kv fact of a requirement holds its comparison: django>=3.2,<4.2, requests==2.31.0,
        # python_requires = >=3.8; "retries=5" holds none)
        lo, hi = a, b
    else:
        lo, hi = max(0, a - _REQ_NEAR[0]), b + _REQ_NEAR[1]
    return _REQUIREMENT_HINT.search(table.data, lo, hi) is not None


# (before, after) a row, the bytes a requirement holding it has a comparison in (_near_requirement)
_REQ_NEAR = (64, 320)  # (320: twice _REQUIREMENT_REACH, a name and its extras)


def _in_same_requirement(table: FactTable, r: int, other: bytes | None, cache: dict[Any, Any]) -> bool:
    """Does row ``r`` of ``table`` stand inside a pip requirement (:func:`_requirement_spans`)
    that ``other`` (the block's text on the edit's other side; None: none) states the same as
    pip reads it (name by PEP 503, extras and clauses as sets, blanks and case aside)? Only
    written another way, so none of its facts is introduced or dropped (red team 118, F14,
    F23). ``cache``: each text's requirements, read once an edit."""
    if other is None or not _near_requirement(table, r):
        return False
    mine = cache.get(id(table))
    if mine is None:
        mine = cache[id(table)] = _requirement_spans_by_start(table.data)
    key = _requirement_holding(mine, int(table.start[r]), int(table.end[r]))
    if key is None:
        return False
    inside = [key]
    theirs = cache.get(other)
    if theirs is None:
        theirs = cache[other] = frozenset(_requirements(other))
    return all(key in theirs for key in inside)


def _requirement_spans_by_start(data: bytes) -> tuple[list[tuple[int, int, tuple[bytes, ...]]], list[int]]:
    """:func:`_requirement_spans` of ``data`` by start, and their starts apart: the requirement
    holding a row is found by a binary search (:func:`_requirement_holding`), not a pass over
    all of them a row, which made a rewrite of n requirements quadratic (red team 120, F07;
    red team 123, F21)."""
    spans = sorted(_requirement_spans(data), key=lambda span: span[0])
    return spans, [s for s, _, _ in spans]


def _requirement_holding(mine: tuple[list[tuple[int, int, tuple[bytes, ...]]], list[int]], a: int, b: int
                         ) -> tuple[bytes, ...] | None:
    """The key of the requirement of ``mine`` (:func:`_requirement_spans_by_start`) whose span
    holds the bytes ``a`` to ``b``, or None. The matches do not overlap: only the last span
    starting at or before ``a`` may hold them (were they to overlap, a span missed excuses
    nothing, which fails closed)."""
    spans, starts = mine
    k = bisect.bisect_right(starts, a) - 1
    if k < 0 or b > spans[k][1]:
        return None
    return spans[k][2]


# a specifier set's clauses (:func:`_comparison_clauses`): an operator glued to a version
_CLAUSE = re.compile(rb"(?:==|!=|~=|>=|<=|>|<)?[vV]?[0-9][^\s,]*")
_COMPARISON_LEADS = frozenset(b"<>!~=")


def _comparison_clauses(table: FactTable, r: int, *, pins: bool = False) -> frozenset[bytes] | None:
    """The clauses of the specifier set that kv row ``r`` of ``table`` glues to its key
    (``django>=3.2,<4.2``: ``{>=3.2, <4.2}``; ``lodash@>=4.17.0 <5``'s after ``@`` too), or
    None: no such row. ``pins``: a pin after ``==`` (value the version alone) as the clause
    ``==version``."""
    if table.kind[r] != _KIND_KV:
        return None
    data = table.data
    ke, vs, ve = int(table.key_end[r]), int(table.value_start[r]), int(table.value_end[r])
    if int(table.key_start[r]) != int(table.start[r]) or vs >= ve:
        return None
    lead = data[vs]
    if vs == ke and lead in _COMPARISON_LEADS:
        value = bytes(data[vs:ve])
    elif pins and data[ke:ke + 2] == b"==" and vs == ke + 2:
        value = b"==" + bytes(data[vs:ve])
    elif data[ke:ke + 1] == b"@" and vs == ke + 1 and lead in _COMPARISON_LEADS:
        value = bytes(data[vs:ve])
    else:
        return None
    clauses = _CLAUSE.findall(value)
    return frozenset(clauses) if clauses else None


def _respaced_comparison(table: FactTable, r: int, post: bytes | None) -> bool:
    """Is row ``r`` of a pre block's ``table`` a requirement or pin whose value is a comparison
    (``i<10``, ``retries<=3``, ``django>=3.2,<4.2``; grammar v9/v11), or the identifier that is
    its name, that ``post`` (the text of the block under its id after the rewrite, None: no such
    block) holds with only blanks added or removed around its operators and commas (``i <
    10``)? Grammar v9 reads a comparison glued to its name only, so re-spacing one dropped two
    facts (red team 116, F15; docs/grammar.md says such a fact stands on both sides alike).
    The same name, operators and versions in the same order, at word boundaries."""
    if post is None:
        return False
    kind = int(table.kind[r])
    if kind == _KIND_IDENTIFIER:
        kv = np.flatnonzero((table.kind == _KIND_KV) & (table.start == table.start[r])
                            & (table.key_end == table.end[r])).tolist()
        return any(_respaced_comparison(table, k, post) for k in kv)
    if _comparison_clauses(table, r) is None:
        return False
    text = bytes(table.data[int(table.start[r]):int(table.end[r])])
    pieces = _COMPARISON_PIECE.findall(text)
    compact = b"".join(pieces)
    if compact != re.sub(rb"[ \t]+", b"", text):
        return False
    # (found in the post text with the blanks beside its operators taken out, made once a text:
    # a pattern compiled and searched a row made a rewrite of n requirements quadratic, red team
    # 120, F07)
    return _comparison_finder(_operators_unspaced(post)).holds(compact)


class _ComparisonFinder:
    """Finds a compact comparison in one text with its blanks by operators taken out
    (:func:`_operators_unspaced`), at word boundaries. The first ``_FINDS_BEFORE_INDEX`` asks
    search the text; later ones look the comparison's name up among the starts of the text's
    runs of name bytes, indexed once: a search a row of a rewrite reordering the clauses of n
    requirements, none found, made it quadratic (red team 121, F12: 16,000 requirements, 15 s)."""

    __slots__ = ("asked", "starts", "text")

    def __init__(self, text: bytes) -> None:
        self.text = text
        self.asked = 0
        self.starts: dict[bytes, list[int]] | None = None

    def holds(self, compact: bytes) -> bool:
        text = self.text
        self.asked += 1
        lead = _NAME_RUN.match(compact)
        # (a comparison opening with its name's bytes, and more after them: found at the start of
        # a run of name bytes exactly that name, which is the boundary before it)
        indexed = lead is not None and lead.end() < len(compact)
        if indexed and self.starts is None and self.asked > _FINDS_BEFORE_INDEX:
            starts: dict[bytes, list[int]] = {}
            for m in _NAME_RUN.finditer(text):
                starts.setdefault(m.group(), []).append(m.start())
            self.starts = starts
        if indexed and self.starts is not None:
            candidates: Iterable[int] = (at for at in self.starts.get(lead.group(), ()) if text.startswith(compact, at))
        else:
            candidates = _offsets_of(text, compact)
        for at in candidates:
            end = at + len(compact)
            if (not at or text[at - 1] not in _COMPARISON_BEFORE) and (end == len(text)
                                                                     or text[end] not in _COMPARISON_AFTER):
                return True
        return False


def _offsets_of(text: bytes, needle: bytes) -> Iterator[int]:
    """The offsets of ``needle`` in ``text``, overlapping ones too."""
    at = text.find(needle)
    while at >= 0:
        yield at
        at = text.find(needle, at + 1)


@functools.lru_cache(maxsize=8)
def _comparison_finder(unspaced: bytes) -> _ComparisonFinder:
    return _ComparisonFinder(unspaced)


_FINDS_BEFORE_INDEX = 16
# a run of the bytes a comparison's name is made of (those that may not stand before it)
_NAME_RUN = re.compile(rb"[0-9A-Za-z_.\-]+")


# the pieces of a comparison that blanks may stand between (:func:`_respaced_comparison`), the
# blanks beside an operator, and the bytes that may not stand right before or after it
_COMPARISON_PIECE = re.compile(rb"==|!=|~=|>=|<=|[<>,@]|[^<>=!~,@ \t]+")
_BLANKS_BY_OPERATOR = re.compile(rb"(?<=[<>=!~,@])[ \t]+|[ \t]+(?=[<>=!~,@])")
_COMPARISON_BEFORE = frozenset(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_.-")
_COMPARISON_AFTER = frozenset(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")


@functools.lru_cache(maxsize=8)
def _operators_unspaced(text: bytes) -> bytes:
    """``text`` without the blanks beside its comparison operators, commas and ``@``, but those
    inside one (``< =`` is no ``<=``, as the pieces' pattern read it)."""
    def unspace(m: re.Match[bytes]) -> bytes:
        a, b = m.start(), m.end()
        return m.group() if a and b < len(text) and text[a - 1] in b"=!~<>" and text[b] == 0x3D else b""
    return _BLANKS_BY_OPERATOR.sub(unspace, text)


def _pip_name(name: bytes) -> bytes:
    """A requirement's name as pip compares it (PEP 503: case and runs of ``-_.`` alike)."""
    return re.sub(rb"[-_.]+", b"-", name.lower())


def _ground_quoted_facts(tables: list[FactTable], sources: list[list[_Facts]], owner: np.ndarray,
                         row: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The (owner, row) pairs left once a quotation whose whole inside is one fact of its text,
    grounded, is grounded with it: a summary writes a file's path or a config pair in backticks
    (`` `conf/app.ini` `` of the read's own resource, `` `retries=3` `` of ``retries = 3``), and
    the marks add no claim (red team 95, F05: refused as a quotation no source holds, the same
    words without backticks accepted). Not when a source states the fact only inside a
    quotation it denies (``Please do not "retries=5"``), unless the quotation is a code span:
    the quotation says what the source denies (red team 99, F02)."""
    left = set(zip(owner.tolist(), row.tolist()))
    keep = np.ones(owner.size, dtype=np.bool_)
    for n, (t, r) in enumerate(zip(owner.tolist(), row.tolist())):
        table = tables[t]
        if table.kind[r] != _KIND_QUOTE:
            continue
        inside = int(table.value_start[r])
        inner = _inner_facts(table, r)
        if inner and all((t, i) not in left for i in inner) and (
                (inside > 0 and table.data[inside - 1] == 0x60)
                or not any(tuple(table.fp_fact[i].tolist()) in facts.denied_facts()
                           for i in inner for facts in sources[t])):
            keep[n] = False
    return (owner, row) if keep.all() else (owner[keep], row[keep])


def _unit_at_read(text: bytes, end: int) -> bytes | None:
    """:func:`_unit_at` of the figure ending at ``end`` of ``text`` as written, read in the text as
    a reader sees it (:func:`_as_read`), whose offsets differ where colour codes or tags stand
    before it (``\x1b[1m1 failed``: the offset of the text as written ran past the end of the
    text as read, an IndexError); a window either side is read."""
    before = _as_read(text[max(0, end - _READ_WINDOW):end])
    return _unit_at(before + _as_read(text[end:end + _READ_WINDOW]), len(before))


_READ_WINDOW = 512


def _ground_across_no_break_spaces(tables: list[FactTable], sources: list[list[_Facts]], owner: np.ndarray,
                                   row: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The (owner, row) pairs left once a name or identifier its sources write beside a
    no-break, narrow no-break or thin space is grounded: the grammar reads the space as a byte
    of a word, so ``Disk: 12\u00a0GB`` held no name ``GB`` (red team 123, F06; its figure:
    :func:`_no_break_figures`). Each source's words around such a space (as far as an ASCII
    blank either side, ``_NO_BREAK_REACH`` bytes at most; ``_NO_BREAK_WORDS`` spaces at most,
    the rest read as before) are read once, the space a blank."""
    keep = np.ones(owner.size, dtype=np.bool_)
    said: dict[int, set[tuple[int, ...]]] = {}
    for n, (t, r) in enumerate(zip(owner.tolist(), row.tolist())):
        table = tables[t]
        if table.kind[r] != _KIND_NAME and table.kind[r] != _KIND_IDENTIFIER:
            continue
        fact = tuple(table.fp_fact[r].tolist())
        for facts in sources[t]:
            found = said.get(id(facts))
            if found is None:
                found = said[id(facts)] = _no_break_words(facts.table.data)
            if fact in found:
                keep[n] = False
                break
    return (owner, row) if keep.all() else (owner[keep], row[keep])


def _no_break_words(text: bytes) -> set[tuple[int, ...]]:
    """The fingerprints of the names and identifiers of the words of ``text`` around its
    no-break, narrow no-break and thin spaces, each space read as a blank
    (:func:`_ground_across_no_break_spaces`)."""
    if not _holds_no_break_space(text):
        return set()
    pieces = []
    last = -1
    for k, blank in enumerate(_BLANK_OF.finditer(text)):
        if k >= _NO_BREAK_WORDS:
            break
        if blank.start() < last:
            continue
        lo = blank.start()
        floor = max(0, lo - _NO_BREAK_REACH)
        while lo > floor and text[lo - 1] not in _NO_BREAK_WORD_ENDS:
            lo -= 1
        hi = blank.end()
        ceiling = min(len(text), hi + _NO_BREAK_REACH)
        while hi < ceiling and text[hi] not in _NO_BREAK_WORD_ENDS:
            hi += 1
        if (lo and text[lo - 1] not in _NO_BREAK_WORD_ENDS) or (hi < len(text) and text[hi] not in _NO_BREAK_WORD_ENDS):
            continue  # (a word longer than the reach: read as before)
        last = hi
        pieces.append(_BLANK_OF.sub(b" ", text[lo:hi]))
    if not pieces:
        return set()
    found = extract(b"\n".join(pieces))
    kinds = found.kind
    return {tuple(found.fp_fact[i].tolist()) for i in range(len(found))
            if kinds[i] == _KIND_NAME or kinds[i] == _KIND_IDENTIFIER}


_NO_BREAK_WORD_ENDS = frozenset(b" \t\r\n")
_NO_BREAK_REACH = 128
_NO_BREAK_WORDS = 4096


def _ground_units_respelled(tables: list[FactTable], sources: list[list[_Facts]], owner: np.ndarray,
                            row: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The (owner, row) pairs left once a figure its sources write with the same unit another
    way is grounded: the grammar reads a unit glued to its figure as part of the number
    (``30s``, ``100ms``, ``99.9%``, ``3x``), so ``Timeout: 30s`` summarized ``Timeout: 30
    seconds`` (or ``Uptime 99.9 percent`` as ``99.9%``) stated a number no source held (red team
    118, F24). A figure is read as (its number, :func:`_figure_number`; its unit's name, glued
    or after it, :func:`_unit_at`) and grounded where a source writes that number with that unit
    (:func:`_same_unit`), glued or not; one with no unit where a source glues a unit to it (the
    unit dropped, as the unit rules leave it be), or groups its thousands with blanks (``12
    500`` -> ``12,500``). A unit changed is grounded by nothing here. Read only of the number
    rows left over, each source once."""
    keep = np.ones(owner.size, dtype=np.bool_)
    said: dict[int, dict[bytes, set[bytes | None]]] = {}  # per source: number -> its units there
    for n, (t, r) in enumerate(zip(owner.tolist(), row.tolist())):
        table = tables[t]
        if table.kind[r] != _KIND_NUMBER or not sources[t]:
            continue
        figure = _GLUED_FIGURE.fullmatch(table.data, int(table.start[r]), int(table.end[r]))
        if figure is None:
            continue
        number = _figure_number(figure.group(1))
        unit = _glued_unit(figure.group(2)) if figure.group(2) else _unit_at_read(table.data, int(table.end[r]))
        if figure.group(2) and unit is None:
            continue  # (a word glued to a figure that names no unit)
        if figure.group(2):
            # (and its rate's period, "5x per day", "5x a day"; a duration key's "m" is minutes,
            # "Timeout: 30m": red team 120, F17)
            if (per_unit := _glued_period(table.data, int(table.end[r]), unit)) is not None:
                unit = unit + b"/" + per_unit
            elif unit == b"m" and _duration_key_before(table.data, int(table.start[r])):
                unit = b"min"
        for facts in sources[t]:
            units = said.get(id(facts))
            if units is None:
                units = said[id(facts)] = _respelled_units(facts.table.data)
            there = units.get(number)
            if there is None:
                continue
            if unit is None:
                # (no unit: a number its source groups with blanks; or one it writes with a unit,
                # the unit dropped, where no word stands after the figure: "30 retries" of
                # "30s" is no unit dropped)
                grounded = None in there or _NO_WORD_AFTER.match(table.data, int(table.end[r])) is not None
            else:
                grounded = any(u is not None and _same_unit(unit, u) for u in there)
            if grounded:
                keep[n] = False
                break
    return (owner, row) if keep.all() else (owner[keep], row[keep])


# a figure and the unit glued to it, as the grammar reads one number ("30s", "99.9%", "3x")
_GLUED_FIGURE = re.compile(rb"([0-9]+(?:[.,][0-9]+)*)([A-Za-z%]{1,12}|\xc2\xb5s|\xce\xbcs)?")
# a whole figure with a unit glued to it, in a source; and one whose thousands blanks group
_GLUED_IN_TEXT = re.compile(rb"(?<![0-9A-Za-z_.,+\-])(?<!\xe2\x88\x92)([0-9]+(?:[.,][0-9]+)*)([A-Za-z%]{1,12}|\xc2\xb5s|\xce\xbcs)"
                            rb"(?![0-9A-Za-z_])")
# (a no-break, narrow no-break or thin space only: a plain blank between figures is as often a
# list, "Open ports: 80 443" summarized "80443" or "80,443", red team 120, F01)
_BLANK_GROUPED = re.compile(rb"(?<![0-9A-Za-z_.,+\-])(?<!\xe2\x88\x92)([0-9]{1,3}(?:(?:\xc2\xa0|\xe2\x80[\xaf\x89\x87]|\xe2\x81\x9f)[0-9]{3})+)"
                            rb"(?![0-9A-Za-z_]|[.,][0-9])")
_GLUED_PER = re.compile(rb"(?:[ \t]*/[ \t]*|[ \t]+[Pp][Ee][Rr][ \t]+)([A-Za-z]{1,16})(?![0-9A-Za-z_])")
# no word right after a figure (blanks, then no letter)
_NO_WORD_AFTER = re.compile(rb"[ \t]*(?:[^ \tA-Za-z]|$)")
# the units a figure's glued letter names beside _UNITS' ("3x": three times)
_GLUED_ONLY = {b"x": b"times"}


def _glued_unit(word: bytes) -> bytes | None:
    """The unit (``_UNITS``' name) a word glued to a figure names, or None."""
    return _GLUED_ONLY.get(word.lower()) or _UNITS.get(_unit_spelling(word))


def _glued_period(text: bytes, end: int, unit: bytes) -> bytes | None:
    """The period (``_UNITS``' name) of the rate a figure with the glued ``unit`` ending at ``end``
    of ``text`` is: "/day" or "per day" after it, and for a count "a day", "each day" ("3x a day":
    "3 times a day", red team 120, F17), or None."""
    per = _GLUED_PER.match(text, end)
    if per is None and unit == b"times":
        per = _TIMES_A_PERIOD.match(text, end)
        if per is not None and _UNITS.get(_unit_spelling(per.group(1))) not in _PERIODS:
            return None
    return None if per is None else _UNITS.get(_unit_spelling(per.group(1)))


# a key that names a duration right before a figure ("Timeout: 30m", "ttl=30m", "connect_timeout:
# '30m'"): its glued "m" is minutes, not metres (red team 120, F17)
_DURATION_KEY_BEFORE = re.compile(rb"(?<![A-Za-z0-9_.-])[A-Za-z0-9_.-]*?([A-Za-z]+)[\"']?[ \t]*[:=][ \t]*[\"']?\Z")


def _duration_key_before(text: bytes, start: int) -> bool:
    """Does a key naming a duration (``_DURATION_KEYS``, its last word) stand right before the
    figure that starts at ``start`` of ``text``, on its line?"""
    line = text.rfind(b"\n", max(0, start - 64), start) + 1
    found = _DURATION_KEY_BEFORE.search(text, max(line, start - 64), start)
    return found is not None and found.group(1).lower() in _DURATION_KEYS


def _glued_x_counts(text: bytes, start: int, end: int, unit: bytes) -> bool:
    """Is the glued ``x`` of the figure from ``start`` to ``end`` of ``text`` a count or
    multiplier, as "N times" is: after a verb of repeating ("retried 3x", "replicated 3x", "run
    3x weekly"), before a comparative ("2x faster"), or with a rate's period ("3x per day") unless
    a verb of change stands before it ("grew 3x per week" is a ratio, red team 121, F10)? "Speedup:
    3x" is none (red team 120, F06)."""
    before = _SENTENCE_WORD.findall(text[max(0, start - 32):start].lower())[-1:]
    before_word = before[0] if before else b""
    if before_word in _X_CHANGE_WORDS:
        return False
    if before_word in _X_REPEAT_VERBS:
        # a count only at a clause's end or before a word that is no noun, determiner nor
        # comparative ("retried 3x before failing", "run 3x weekly"); "ran 8x H100", "deployed 4x
        # m5.large", "copied 2x the buffer size" multiply what follows, "stored 3x smaller" is a
        # ratio (red team 123, F04)
        if _glued_period(text, end, unit) is not None or _X_CLAUSE_END.match(text, end) is not None:
            return True
        follower = _X_FOLLOWER.match(text, end)
        return follower is not None and (follower.group(1) in _X_COUNT_FOLLOWERS or (
            follower.group(1).endswith(b"ly") and follower.group(1) not in _COMPARATIVES))
    after = _WORD_AFTER_X.match(text, end)
    if after is not None and after.group(1).lower() in _COMPARATIVES:
        return True
    return _glued_period(text, end, unit) is not None


# the word after a glued "x" ("2x faster"); the comparatives a multiplier stands before; the verbs
# of repeating a count follows ("retried 3x"); the verbs of change a ratio follows ("grew 3x")
_WORD_AFTER_X = re.compile(rb"[ \t]+([A-Za-z]{2,16})(?![0-9A-Za-z_])")
_COMPARATIVES = frozenset((b"faster", b"slower", b"larger", b"smaller", b"bigger", b"higher", b"lower", b"cheaper",
                           b"quicker", b"more", b"less", b"fewer", b"greater", b"longer", b"shorter", b"better",
                           b"worse", b"heavier", b"lighter", b"wider", b"narrower", b"denser", b"costlier"))
_X_REPEAT_VERBS = frozenset((b"retried", b"retry", b"retries", b"retrying", b"replicated", b"replicate", b"replicates",
                             b"run", b"runs", b"ran", b"rerun", b"reruns", b"executed", b"executes", b"execute",
                             b"repeated", b"repeats", b"repeat", b"called", b"invoked", b"restarted", b"restarts",
                             b"polled", b"polls", b"tried", b"tries", b"attempted", b"copied", b"fired", b"triggered",
                             b"happens", b"happened", b"occurs", b"occurred", b"deployed", b"sent", b"redelivered",
                             b"retransmitted", b"reconnected", b"failed", b"fails", b"crashed", b"crashes",
                             b"stored", b"backed", b"mirrored", b"duplicated"))
# a clause's end right after a glued "x" (blanks, then punctuation, a line's end or the text's
# end), and the lower-case word after it; the words after a count's "x" that are no noun nor
# determiner (a preposition, conjunction or adverb: "retried 3x before failing")
_X_CLAUSE_END = re.compile(rb"[ \t]*(?:[.,;:!?)\]\r\n]|\Z)")
_X_FOLLOWER = re.compile(rb"[ \t]+([a-z]{1,16})(?![0-9A-Za-z_\-]|\.[0-9A-Za-z])")
_X_COUNT_FOLLOWERS = frozenset((b"before", b"after", b"across", b"in", b"on", b"at", b"per", b"and", b"or", b"but",
                                b"then", b"until", b"till", b"with", b"without", b"within", b"during", b"over",
                                b"from", b"to", b"for", b"by", b"while", b"when", b"because", b"since", b"so",
                                b"again", b"already", b"today", b"yesterday", b"now", b"overall", b"total",
                                b"into", b"against", b"if", b"unless", b"due", b"via", b"through", b"between",
                                b"weekly", b"daily", b"hourly", b"nightly", b"monthly"))
_X_CHANGE_WORDS = frozenset((b"grew", b"grow", b"grows", b"growing", b"grown", b"increased", b"increases", b"increase",
                             b"rose", b"rise", b"rises", b"risen", b"dropped", b"drops", b"fell", b"falls", b"declined",
                             b"improved", b"improves", b"shrank", b"shrinks", b"scaled", b"scales", b"expanded",
                             b"jumped", b"climbed", b"sped", b"boosted", b"reduced", b"cut", b"up", b"down", b"by",
                             b"gained", b"multiplied", b"doubled", b"slowed", b"speedup", b"growth"))


def _respelled_units(text: bytes) -> dict[bytes, set[bytes | None]]:
    """Each figure of ``text`` (as a number) that :func:`_ground_units_respelled` may ground
    with -> its units there: a unit glued to it or written after it, and None where blanks
    group its thousands (``12 500``)."""
    out: dict[bytes, set[bytes | None]] = {}
    for m in _GLUED_IN_TEXT.finditer(text):
        if (unit := _glued_unit(m.group(2))) is not None:
            # (and a rate's period after it: "3x per day", "3x a day", "5ms/req" aside)
            if m.group(2) in (b"x", b"X") and not _glued_x_counts(text, m.start(), m.end(), unit):
                continue  # (a ratio, no count: "Speedup: 3x" grounds no "3 times", red team 120, F06)
            if (per_unit := _glued_period(text, m.end(), unit)) is not None:
                unit = unit + b"/" + per_unit
            elif unit == b"m" and _duration_key_before(text, m.start()):
                unit = b"min"  # ("Timeout: 30m": a duration's minutes, red team 120, F17)
            out.setdefault(_figure_number(m.group(1)), set()).add(unit)
    read = _as_read(text)
    for p in _unit_leads(read):
        start = p + 1
        while start > 0 and read[start - 1] in _FIGURE_BYTES:
            start -= 1
        while read[start] in b".,":
            start += 1
        figure = read[start:p + 1]
        if start > 2 and read[start - 1] in _NO_BREAK_LAST_BYTES and (lo := _grouped_figure_start(read, start)) >= 0:
            # (the last group of a figure a no-break space groups: "1\u00a0234\u00a0GB" is 1 234 GB,
            # no 234 GB, red team 125, F05)
            start, figure = lo, re.sub(rb"[^0-9]", b"", read[lo:p + 1])
        if (start and read[start - 1] in _FIGURE_GLUE_OR_SIGN) or read[max(0, start - 3):start] == _MINUS_SIGN or any(
                x in figure for x in (b"..", b",,", b".,", b",.")):
            continue  # (inside a token, or signed: "-12 %" grounds no "12 %")
        if (unit := _unit_at(read, p + 1)) is not None:
            out.setdefault(_figure_number(figure), set()).add(unit)
    if b" " in text or b"\xc2\xa0" in text or b"\xe2\x80" in text or b"\xe2\x81" in text:
        found = list(_BLANK_GROUPED.finditer(text))
        # (a no-break or thin space between two figures is as often a list's separator, HTML's
        # "80&nbsp;443" decoded: "Open ports: 80 443" is no 80443, red team 121, F13. A single
        # group joins where the blank is the narrow no-break space locales group with, a word or
        # unit follows ("12 500 rows"), or the text groups a figure of more groups with the same blank)
        surely = {_BLANK_OF.search(m.group(1)).group(0) for m in found if len(_BLANK_OF.findall(m.group(1))) >= 2}
        grouped: list[tuple[int, int]] = []
        for m in found:
            blank = _BLANK_OF.search(m.group(1)).group(0)
            if (blank == b"\xe2\x80\xaf" or blank in surely  # (and so a figure of more groups itself)
                    or (after := _WORD_AFTER_GROUPED.match(text, m.end())) is not None
                    and after.group(1).lower() not in _NO_NAME):  # ("80 443 and 22": a list still)
                out.setdefault(re.sub(rb"[^0-9]", b"", m.group(1)), set()).add(None)
                grouped.append(m.span(1))
        if _holds_no_break_space(text):
            _no_break_figures(text, grouped, out)
    return out


def _no_break_figures(text: bytes, grouped: list[tuple[int, int]], out: dict[bytes, set[bytes | None]]) -> None:
    """Add to ``out`` (:func:`_respelled_units`) each figure of ``text`` a no-break, narrow
    no-break or thin space stands right after or right before, as a number -> its unit read as
    across a blank (or None): the grammar reads the space as a byte of a word, so ``Disk:
    12\u00a0GB``, ``12\u202fms``, ``3\u00a0retries`` and ``80\u00a0443`` (a list) held no number
    of 12, 3, 80 or 443 (red team 123, F06). A figure of thousands the space groups
    (``grouped``: ``1\u00a0234\u00a0567``, red team 121, F13) is that one number only."""
    spaced = None
    for blank in _BLANK_OF.finditer(text):
        figures = []
        j = blank.start()
        i = j
        while i > 0 and text[i - 1] in _FIGURE_BYTES:
            i -= 1
        while i < j and text[i] in b".,":
            i += 1
        if i < j:
            figures.append((i, j))
        if (after := _FIGURE_RUN_AT.match(text, blank.end())) is not None:
            figures.append(after.span())
        for start, end in figures:
            if (_WHOLE_FIGURE.fullmatch(text, start, end) is None or start and text[start - 1] in _FIGURE_GLUE_OR_SIGN
                    or text[max(0, start - 3):start] == _MINUS_SIGN or end < len(text) and text[end] in _ASCII_WORD_BYTE
                    and _BLANK_OF.match(text, end) is None
                    or any(lo <= start and end <= hi for lo, hi in grouped)):
                continue  # (glued to a word, signed, or a group of a figure of thousands)
            if spaced is None:
                spaced = _BLANK_OF.sub(lambda m: b" " * len(m.group()), text)
            out.setdefault(_figure_number(text[start:end]), set()).add(_unit_at(spaced, end))


def _grouped_figure_start(text: bytes, start: int) -> int:
    """Where the figure of thousands a no-break, narrow no-break or thin space groups starts
    (``_BLANK_GROUPED``), when the figure at ``start`` is its last group; else -1. A figure of
    three digits after such a space is read back group by group (three digits each, the first
    one to three)."""
    lo = start
    while True:
        blank = lo - 2 if text[lo - 1] == 0xA0 else lo - 3
        if blank < 1 or _BLANK_OF.match(text, blank, lo) is None or not 48 <= text[blank - 1] <= 57:
            break
        k = blank
        while k > 0 and 48 <= text[k - 1] <= 57 and blank - k < 4:
            k -= 1
        lo = k
        if blank - k != 3 or k == 0 or text[k - 1] not in _NO_BREAK_LAST_BYTES:
            break
    if lo == start:
        return -1
    m = _BLANK_GROUPED.match(text, lo)
    return lo if m is not None and m.end(1) >= start + 3 else -1


# the last bytes of the no-break, narrow no-break and thin spaces
_NO_BREAK_LAST_BYTES = frozenset(b"\xa0\xaf\x89\x87\x9f")
# a figure from where it starts (_no_break_figures), and one whole
_FIGURE_RUN_AT = re.compile(rb"[0-9]+(?:[.,][0-9]+)*(?![0-9])")
_WHOLE_FIGURE = re.compile(rb"[0-9]+(?:[.,][0-9]+)*")
_ASCII_WORD_BYTE = frozenset(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")


# the blanks _BLANK_GROUPED groups with, and a word or unit after a figure ("12 500 rows")
# (and the figure space and the medium mathematical space: "Disk: 12\u2007GB", red team 125, F10)
_BLANK_OF = re.compile(rb"\xc2\xa0|\xe2\x80[\xaf\x89\x87]|\xe2\x81\x9f")
_WORD_AFTER_GROUPED = re.compile(rb"[ \t]*(?:\xc2\xa0|\xe2\x80[\xaf\x89\x87]|\xe2\x81\x9f)?[ \t]*([A-Za-z]+|[%$]|\xc2[\xb0\xb5\xa3\xa5]"
                                 rb"|\xce\xbc|\xe2\x82[\xa0-\xbf])")  # (and a currency's sign: "12 500 €", red team 125, F05)


def _inner_facts(table: FactTable, r: int) -> list[int]:
    """The rows of the facts (not quotations or markers) that are quotation ``r``'s whole
    inside: `` `retries=5` `` holds the pair, `` `conf/app.ini` `` the path."""
    inside, end = int(table.value_start[r]), int(table.value_end[r])
    # (rows are sorted by start: the few that start where the inside does)
    i = int(np.searchsorted(table.start, inside))
    inner = []
    while i < len(table) and int(table.start[i]) == inside:
        if int(table.end[i]) == end and table.kind[i] != _KIND_QUOTE and table.kind[i] != _KIND_CITATION:
            inner.append(i)
        i += 1
    return inner


# (marks a needle of _Check._rewrapped_quotes that counts only where it stands as a whole word)
_WORD_MARK = b"\x00word:"


def _word_in_context(table: FactTable, r: int, *, after: bool = True) -> bytes:
    """Row ``r``'s text with the whitespace-separated word either side of it (as far as the
    text goes, at most 64 bytes of each), its whitespace runs one space: what a re-flow keeps
    around a word it moves."""
    data = table.data
    start, end = int(table.start[r]), int(table.end[r])
    low, high = max(0, start - _CONTEXT_REACH), min(len(data), end + _CONTEXT_REACH)
    i = start
    while i > low and data[i - 1] not in _SPACES:  # (the rest of its token)
        i -= 1
    j = i
    while j > low and data[j - 1] in _SPACES:
        j -= 1
    if j < i:
        while j > low and data[j - 1] not in _SPACES:  # (and the token before)
            j -= 1
        i = j
    k = end
    if not after:
        return _within_paragraphs(data[i:k]).strip()
    while k < high and data[k] not in _SPACES:
        k += 1
    m = k
    while m < high and data[m] in _SPACES:
        m += 1
    if m > k:
        while m < high and data[m] not in _SPACES:
            m += 1
        k = m
    return _within_paragraphs(data[i:k]).strip()


_SPACES = frozenset(b" \t\r\n\f\v")
_CONTEXT_REACH = 64


def _standing_words(needles: set[bytes], text: bytes) -> set[bytes]:
    """The ``needles`` that occur in ``text`` with no word byte touching them on either side
    (:func:`_stands_in`): a few asked one by one, more in one Aho-Corasick pass over the text
    (:func:`_occurrences`, each needle marked to be counted only so)."""
    if len(needles) <= _FIND_EACH:
        return {needle for needle in needles if _stands_in(needle, text)}
    import ahocorasick  # (only many names or denied quotations left over ask for it)

    automaton = ahocorasick.Automaton()
    for needle in needles:
        if needle:
            automaton.add_word(needle.decode("latin-1"), _WORD_MARK + needle)
    automaton.make_automaton()
    found = {marked.removeprefix(_WORD_MARK) for marked in _occurrences(automaton, text)}
    if b"" in needles and _stands_in(b"", text):
        found.add(b"")
    return found


_FIND_EACH = 8


def _stands_in(needle: bytes, text: bytes) -> bool:
    """Does ``needle`` occur in ``text`` with no word byte touching it on either side?"""
    at = text.find(needle)
    while at >= 0:
        end = at + len(needle)
        if not ((at > 0 and text[at - 1] in _WORD_BYTES) or (end < len(text) and text[end] in _WORD_BYTES)):
            return True
        at = text.find(needle, at + 1)
    return False


_WHOLE_WORD = re.compile(rb"[\w\x80-\xff]+")


def _occurrences(automaton: Any, text: bytes) -> Counter[bytes]:
    """How often each needle of ``automaton`` occurs in ``text`` (one pass); a needle marked
    with :data:`_WORD_MARK` only where no word byte touches it on either side."""
    found: Counter[bytes] = Counter()
    ends: dict[bytes, int] = {}  # each needle's last counted end: copies that overlap count once
    decoded = text.decode("latin-1")
    for end, needle in automaton.iter(decoded):
        whole = needle.startswith(_WORD_MARK)
        start = end + 1 - (len(needle) - len(_WORD_MARK) if whole else len(needle))
        if whole and ((start > 0 and text[start - 1] in _WORD_BYTES)
                      or (end + 1 < len(text) and text[end + 1] in _WORD_BYTES)):
            continue
        if start <= ends.get(needle, -1):
            continue  # ('"a"a"' holds one quotation "a", not two sharing a mark: red team 99, F13)
        ends[needle] = end
        found[needle] += 1
    return found


_WORD_BYTES = frozenset(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_") | frozenset(range(0x80, 0x100))
_WORD_BYTE_TABLE = np.array([b in _WORD_BYTES for b in range(256)], dtype=np.int8)


_QUOTATION_MARKS = ((b'"', b'"'), ("\u201c".encode(), "\u201d".encode()), ("\u2018".encode(), "\u2019".encode()),
                    (b"`", b"`"), ("\u00ab".encode(), "\u00bb".encode()))


def _holds_wrapped_quotation(text: bytes) -> bool:
    """Whether ``text`` holds a quotation (a pair of the usual marks, a straight apostrophe
    aside) with a line break inside and no blank line: one the grammar, reading a quotation on
    one line, does not see. Each mark's pairs are walked once, left to right."""
    for opening, closing in _QUOTATION_MARKS:
        at = text.find(opening)
        while at >= 0:
            end = text.find(closing, at + len(opening))
            if end < 0:
                break
            inside = text[at + len(opening):end]
            if b"\n" in inside and not _BLANK_LINE.search(inside):
                return True
            at = text.find(opening, end + len(closing))
    return False


# the words that deny what follows them: the quotation rule's (``_matching_py.NEGATIONS``:
# not, no, never, nor, neither, cannot, without, and a word ending in n't or n’t) and the
# pronouns of none (none, nothing, nobody, nowhere), read in lower-cased text. The left edge
# is checked apart (:func:`_negation_words`): a look-behind at every byte made the search 8
# times slower
_NEGATION_WORD = re.compile(rb"n(?:o|ot|or|ever|either|one|othing|obody|owhere)\b|cannot\b|without\b"
                            rb"|n(?:'|\xe2\x80\x99)t\b")
_NOT_BEFORE_NEGATION = frozenset(b"0123456789abcdefghijklmnopqrstuvwxyz_") | frozenset(range(0x80, 0x100))
_IN_WORD = _NOT_BEFORE_NEGATION | frozenset(b"'")  # (don't is one word here)
# the bytes (pre and post text of a block) past which a rewrite is first read where it changed
# (:func:`_negation_in_changed_stretch`: a few numpy passes, which a short text does not repay)
_LONG_REWRITE = 8192
# where a sentence ends: . ! or ? before whitespace or the text's end, or a line break
_SENTENCE_END = re.compile(rb"[.!?]+(?=\s|$)|\n")


# what a reader does not see inside a word (soft hyphen, zero-width space and joiners, word
# joiner, BOM), dropped, and letters drawn as ASCII ones (the full-width forms, which NFKC folds,
# and the Cyrillic and Greek look-alikes of the letters negations are written with), folded,
# before a block's negations are counted (:func:`_folded_for_negations`)
_NEGATION_FOLD = str.maketrans({
    **dict.fromkeys(map(chr, (0x00AD, 0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF))),
    **{chr(c): chr(c - 0xFEE0) for c in range(0xFF01, 0xFF5F)},
    **dict(zip("\u0430\u0435\u043e\u0440\u0441\u0443\u0445\u0456\u0458\u0455\u04bb\u0501\u051d"
               "\u0410\u0412\u0415\u041a\u041c\u041d\u041e\u0420\u0421\u0422\u0425"
               "\u03bf\u03bd\u03b9\u039f\u039d\u03a4\u0391\u0392\u0395\u0397\u039a\u039c",
               "aeopcyxijshdw" "ABEKMHOPCTX" "oviONTABEHKM")),
})


def _folded_for_negations(text: bytes) -> bytes:
    """``text`` as a reader sees it for the negation count (``_NEGATION_FOLD``; the text itself
    when that changes nothing). Red team 114: ``Do n\u200bot run`` and ``Do n\u043et run`` (a
    Cyrillic o) read "not" to a reader and to a model, were no negation to the count, and
    dropped passed as lossless (F03); ``Do \uff4e\uff4f\uff54 push`` normalised to ``Do not push``
    was refused as a negation added (F07)."""
    if text.isascii():
        return text
    decoded = text.decode("utf-8", "surrogatepass")
    folded = decoded.translate(_NEGATION_FOLD)
    return text if folded == decoded else folded.encode("utf-8", "surrogatepass")


def _span_before_folding(text: bytes, start: int, end: int) -> tuple[int, int]:
    """The span of ``text`` that bytes ``start:end`` of :func:`_folded_for_negations` (``text``)
    came from (walked only for a violation's evidence)."""
    at = folded_at = 0
    start_at = None
    for ch in text.decode("utf-8", "surrogatepass"):
        if start_at is None and folded_at >= start:
            start_at = at
        if folded_at >= end:
            break
        folded_at += len(ch.translate(_NEGATION_FOLD).encode("utf-8", "surrogatepass"))
        at += len(ch.encode("utf-8", "surrogatepass"))
    return (at if start_at is None else start_at), at


def _negation_words(lowered: bytes, start: int, end: int) -> list[tuple[int, int]]:
    """The (start, end) of each negation (``_NEGATION_WORD``) of ``lowered[start:end]``: a
    whole word, or the n't of one (``don't``, ``can’t``)."""
    found = []
    for m in _NEGATION_WORD.finditer(lowered, start, end):
        a = m.start()
        if lowered[a + 1] in b"'\xe2":
            if a > 0 and 0x61 <= lowered[a - 1] <= 0x7A:  # (n't ends a word: "don't", not "n't")
                found.append((a, m.end()))
        elif a == 0 or lowered[a - 1] not in _NOT_BEFORE_NEGATION or _after_csi(lowered, a):
            found.append((a, m.end()))
    return found


def _denial_words(lowered: bytes, start: int, end: int) -> list[tuple[int, int]]:
    """The (start, end) of each negation (:func:`_negation_words`), each word that forbids
    or refuses (``_PROHIBITIONS``) and each verb of omission (``_OMISSION_WORD``) of
    ``lowered[start:end]``, in order: what a rewrite keeps of
    what a block denies (red team 116, F20: ``Stop running "A"`` -> ``Keep running "A"`` and
    ``I decline "A"`` -> ``I approve "A"`` kept every negation and passed as lossless), and each
    contraction of ``_BARE_NOT`` (``dont``, ``cant``)."""
    found = _negation_words(lowered, start, end)
    prohibitions = [(m.start(), m.end()) for m in _PROHIBITION_WORD.finditer(lowered, start, end)]
    prohibitions += [(m.start(), m.end()) for m in _OMISSION_WORD.finditer(lowered, start, end)]
    # the contractions written without their apostrophe ("Dont push" -> "Do not push" was refused
    # as a negation added, "Dont push" -> "Do push" passed: eng-pol8's leftovers; "cant" and
    # "wont" among them, negations far more often than words of their own)
    for m in _NT_END.finditer(lowered, start, end):
        e = m.end()
        a = e - 2
        while a > 0 and e - a <= 8 and lowered[a - 1] in _NOT_BEFORE_NEGATION:
            a -= 1
        if lowered[a:e] in _BARE_NOT and (a == 0 or lowered[a - 1] not in _NOT_BEFORE_NEGATION):
            prohibitions.append((a, e))
    return sorted(found + prohibitions) if prohibitions else found


def _after_csi(text: bytes, at: int) -> bool:
    """Does an ANSI CSI sequence (ESC ``[``, parameter and intermediate bytes, a final byte)
    end right before ``text[at]``? Its final byte is a letter, and the words after a colour
    code stand on their own: stripping ``\x1b[31mNo such file`` to ``No such file`` was read as
    a negation added."""
    k = at - 1  # (the final byte)
    if k < 2 or not 0x40 <= text[k] <= 0x7E:
        return False
    k -= 1
    while k > 0 and 0x20 <= text[k] <= 0x3F:
        k -= 1
    return text[k] == 0x5B and k > 0 and text[k - 1] == 0x1B


# what ends the clause a quotation stands in, looking back from it (:func:`_clause_negated`):
# sentence and clause punctuation, a line break, and the words that open another clause. Not
# "or" / "nor" / "and" / "then": a negation governs the list they join ("do not push or run
# "A"", "do not "A" and then "B"")
_CLAUSE_BREAK = re.compile(rb"[.!?;:,()\[\]\n\r]|\b(?:but|so|if|when|whenever|unless|until|because|"
                           rb"while|before|after|once|since|though|although|whether|which|that|who)\b")
# words that forbid what follows them as a negation does ("the user forbade running "A"",
# "avoid "A""), and the pairs that set it aside ("instead of "A"", "rather than "A"")
_PROHIBITIONS = frozenset((b"forbid", b"forbids", b"forbade", b"forbidden", b"prohibit", b"prohibits",
                           b"prohibited", b"ban", b"bans", b"banned", b"avoid", b"avoids", b"avoided",
                           b"avoiding", b"refrain", b"refrains", b"disallow", b"disallows", b"disallowed",
                           b"warn", b"warns", b"warned",
                           # and those that refuse it, or call a stop to it (red team 114, F01; not
                           # "stopped", which says a run was halted, not that it never ran)
                           b"refuse", b"refuses", b"refused", b"refusing", b"decline", b"declines",
                           b"declined", b"declining", b"reject", b"rejects", b"rejected", b"rejecting",
                           b"veto", b"vetoes", b"vetoed", b"vetoing", b"stop", b"cease",
                           # (red team 116, F12; not "blocked", which a status reports, "blocked on")
                           b"deny", b"denies", b"denied", b"nix", b"nixed", b"halt", b"abort", b"cancel",
                           # the verbs that end a running thing as those do: an honest summary of
                           # "Cancel "job-42"" says "kill" or "terminate" (red team 117, F25; not
                           # "killed", "paused": a status, as "stopped" is)
                           b"kill", b"terminate", b"pause",
                           # (red team 117, F04; not "object", a noun as often, nor "opposing", an
                           # adjective as often)
                           b"objects", b"objected", b"objecting", b"oppose", b"opposes", b"opposed"))
_SET_ASIDE = ((b"instead", b"of"), (b"rather", b"than"))
_PROHIBITION_WORD = re.compile(rb"(?<![0-9a-z_\x80-\xff])(?:" + b"|".join(sorted(_PROHIBITIONS, key=len, reverse=True))
                               + rb")(?![0-9a-z_\x80-\xff])")
# the words that make a "no" before a noun report none found (:func:`_reports_none`)
_FINDINGS = frozenset((b"found", b"detected", b"reported", b"seen", b"flagged"))
# the words after "no" that make it govern the verb after them ("no need to run", "no longer run")
_NO_GOVERNS = frozenset((b"need", b"longer", b"more", b"one", b"way", b"reason", b"point", b"use",
                         b"to",  # ("said no to "A"", red team 114, F01)
                         b"circumstances", b"circumstance", b"account", b"case", b"condition", b"conditions",
                         b"time"))  # ("under no circumstances run "A"", red team 116, F12)
# a negation before one of these is a statement of fact, whose scope an "and" and a verb end ("I
# did not check the logs and ran "A"", red team 114, F05); an instruction's ("do not push and
# run "A"", "never "A" and "B"") goes on over the list it opens
_STATED = frozenset((b"did", b"does", b"was", b"were", b"is", b"are", b"has", b"have", b"had"))
_STATED_NOT = frozenset(w + t for w in (b"didn", b"doesn", b"wasn", b"weren", b"isn", b"aren", b"hasn", b"haven",
                                        b"hadn") for t in (b"'t", b"\xe2\x80\x99t", b"t"))
# the contracted negations written without their apostrophe, as a hurried writer does ("Dont run
# "A"": red team 117, F04, read as no negation): read as negations in a clause before a quotation
# (:func:`_negation_among`), not counted in a block's text (``_NEGATION_WORD``: "cant" and "wont"
# are words of their own there)
_BARE_NOT = frozenset(w + b"nt" for w in (b"do", b"does", b"did", b"is", b"are", b"was", b"were", b"should", b"must",
                                           b"would", b"could", b"has", b"have", b"had", b"need", b"ca", b"wo",
                                           b"sha"))
# the words of a negation set off by commas for emphasis ("Never, ever, run", "Do not, under no
# circumstances, run"): a negation, its stressing words, and the modals and "and" that repeat it
_EMPHATIC = frozenset((b"never", b"not", b"no", b"ever", b"even", b"at", b"all", b"under", b"any", b"circumstances",
                       b"circumstance", b"and", b"must", b"may", b"do", b"don't", b"don\xe2\x80\x99t", b"you",
                       b"should", b"shall", b"will", b"won't", b"mustn't", b"cannot", b"can't", b"again", b"really",
                       b"once",
                       # the asides that stress it (red team 117, F05: "Please do NOT, under ANY
                       # circumstances, run", "Do not, for any reason, run", "Do not, and I mean do
                       # not, run", "Do not, I repeat, run")
                       b"please", b"for", b"reason", b"i", b"mean", b"repeat", b"absolutely", b"whatsoever"))
# the most words between a negation and the quotation it governs in one clause
_CLAUSE_WORDS = 6
# a verb after the negation that makes it an instruction to do the thing ("don't forget to run"),
# and the forms of such a verb a prohibition's object takes ("stop skipping "A"", "refuse to skip
# "A"": red team 116, F11, read as denied, so "run "A"" was refused and "never run "A"" passed)
_NEGATION_UNDONE = frozenset((b"forget", b"skip", b"miss", b"omit", b"neglect", b"fail", b"ignore", b"overlook",
                              b"hesitate", b"only", b"leave", b"disable", b"bypass"))
_OMITTING = _NEGATION_UNDONE - {b"only", b"leave", b"hesitate"} | frozenset(
    w + e for w in (b"forgett", b"skipp", b"omitt") for e in (b"ing", b"ed")) | frozenset(
    w + e for w in (b"miss", b"neglect", b"fail", b"ignor", b"overlook", b"disabl", b"bypass")
    for e in (b"ing", b"ed", b"es", b"s")) | frozenset((b"skips", b"omits", b"forgets", b"ignore", b"disable"))

# the verbs of omission a rewrite keeps as it keeps a negation (:func:`_denial_words`): "Skip
# "A"" -> "Run "A"", "omit "--force"" -> "use "--force"" (red team 117, F15) kept every
# negation. Not "forget", "miss", "fail", said of other things as often
_OMISSION_WORD = re.compile(rb"(?<![0-9a-z_\x80-\xff])(?:skip|skips|skipping|skipped|omit|omits|omitting|omitted|"
                            rb"bypass|bypasses|bypassing|bypassed|ignore|ignores|ignoring|ignored)(?![0-9a-z_\x80-\xff])")
# the end of a word ending in "nt", where a contracted negation written without its apostrophe
# ends (``_BARE_NOT``), found by its literal and read back (:func:`_denial_words`): folded into
# the omissions' search, its alternatives doubled that search's time
_NT_END = re.compile(rb"nt(?![0-9a-z_\x80-\xff])")
# words that stress a negation and stand between it and the verb it governs ("don't ever forget")
_NEGATION_STRESS = frozenset((b"ever", b"really", b"even", b"just", b"you"))
# the words between a prohibition and the verb it governs ("refuse to skip", "stop ever skipping")
_PROHIBITION_FILLER = _NEGATION_STRESS | frozenset((b"to",))
# the marks, emphasis and brackets that open the quoted words, passed before the clause is read
_QUOTE_OPENING = re.compile(rb"(?:[\"'`*_~ \t(\[]|\xe2\x80[\x9c\x98\xb9\x9e]|\xc2[\xab\xa0\xbb]|\xe3\x80[\x8c\x8e\x88\x8a])+\Z")
# a quotation in guillemets (double or single: eng-pol8's leftovers) or corner brackets, on one line (:meth:`_check_marked_quotation_polarity`),
# the blanks that set French guillemets off passed
# and (red team 119, F10) the Danish and German inverted guillemets (»A«, only where the » opens a
# word and the « closes one), the German low-high quotes („A“), the CJK double and single angle
# brackets (《A》, 〈A〉)
_MARKED_QUOTATION = re.compile(rb"\xc2\xab(?:[ \t]|\xc2\xa0)*([^\n]{1,200}?)(?:[ \t]|\xc2\xa0)*\xc2\xbb"
                               rb"|\xe3\x80[\x8c\x8e\x8a\x88]([^\n]{1,200}?)\xe3\x80[\x8d\x8f\x8b\x89]"
                               rb"|\xe2\x80\xb9(?:[ \t]|\xc2\xa0)*([^\n]{1,200}?)(?:[ \t]|\xc2\xa0)*\xe2\x80\xba"
                               rb"|(?<![^\s(\[:])\xc2\xbb(?![\s])([^\n]{1,200}?)(?<![\s])\xc2\xab(?![0-9A-Za-z_\x80-\xff])"
                               rb"|\xe2\x80\x9e([^\n]{1,200}?)\xe2\x80[\x9c\x9d]"
                               # the curly quotes of English prose and of most editors' smart quotes
                               # (“…”; ‘…’, whose closing mark is no apostrophe: a letter follows
                               # none, "don’t"): read by no rule, so 'Never run “make deploy”' of
                               # 'Run "make deploy"' passed
                               rb"|\xe2\x80\x9c(?:[ \t]|\xc2\xa0)*([^\n]{1,200}?)(?:[ \t]|\xc2\xa0)*\xe2\x80\x9d"
                               rb"|\xe2\x80\x98([^\n]{1,200}?)\xe2\x80\x99(?![0-9A-Za-z_])"
                               # one side curly, the other straight, as an editor or a model that
                               # converts one mark of a pair leaves it (red team 123, F07)
                               rb"|\xe2\x80\x9c([^\n\"\xe2]{1,200}?)\""
                               rb"|(?<![0-9A-Za-z_])\"([^\n\"\xe2]{1,200}?)\xe2\x80\x9d")
# an ANSI CSI sequence (a colour code), passed where a clause is read
_CSI = re.compile(rb"\x1b\[[\x20-\x3f]*[\x40-\x7e]")
# a short aside in brackets on one line, passed as if not there ("A" (it pages on-call) or "B")
_ASIDE = re.compile(rb"[(\[][^()\[\]\n]{0,40}[)\]]")
# an example's mark, read as the comma that sets off a list item ("Do not run deploy commands,
# e.g. "A"", "(e.g. "A")": red team 117, F02, its "." and "(" ended the clause)
_EXAMPLE = re.compile(rb"(?:[(,][ \t]*)?(?<![0-9a-z_])(?:e\.g|i\.e)\.?,?[ \t]*")
# a negation quoted alone is an answer or a value, no negation of what follows (``["yes",
# "no", "ask every time"]``, ``{"dry_run": "no", "target env": …}``: red team 100, F08)
_ANSWER = re.compile(rb"[\"'](?:no|none|never|nothing)[\"']")
# the most commas a list of quotations is read back over ("never "A", "B", or, worse, "C""),
# and the one word that may stand after such a comma
_LIST_COMMAS = 3
_LIST_FILLER = frozenset((b"or", b"nor", b"and", b"worse", b"also", b"even", b"maybe", b"perhaps", b"possibly",
                          b"especially", b"likewise", b"either", b"plus"))
# the words after a quotation that make it the subject of a clause of its own ("don't worry,
# "A" is safe"): no item of a list the clause before governs
_SUBJECT_OF = frozenset((b"is", b"are", b"was", b"were", b"will", b"would", b"should", b"shall", b"must", b"can",
                         b"could", b"may", b"might", b"does", b"did", b"has", b"have", b"had", b"instead",
                         b"works", b"worked", b"replaces", b"replaced", b"remains", b"looks", b"seems"))
# a list item's bullet, then the quotation (``- "A"``, ``1. "A"``, ``(1) "A"``, ``a. "A"``,
# ``- [ ] "A"``), or a line that is the quotation alone
_ITEM_LEAD = re.compile(rb"[ \t]*(?:(?:[-*+]|\xe2\x80\xa2|\d{1,9}[.)]|\(\d{1,9}\)|[a-z][.)])[ \t]+(?:\[[ x]\][ \t]+)?)?"
                        rb"[*_~]*(?:[\"'`]|\xe2\x80[\x9c\x98])\Z")
_ITEM_LINE = re.compile(rb"[ \t]*(?:[-*+]|\xe2\x80\xa2|\d{1,9}[.)]|\(\d{1,9}\)|[a-z][.)])[ \t]|[ \t]*[*_~]*[\"']")
# the most lines a list's header is looked for above an item
_HEADER_LINES = 24


def _words_of_clause(clause: bytes) -> list[bytes]:
    """The words of a lower-cased clause, bare underscores and apostrophes (emphasis) none, and
    no dash a word (``Do not \u2014 under any circumstances \u2014 run "A"``: red team 117, F05, the
    dashes were words and put the negation past the clause's six)."""
    if b"\xe2\x80" in clause:
        clause = _DASHES.sub(b" ", clause)
    return [w for w in _SENTENCE_WORD.findall(clause) if w.strip(b"_'")]


# the en dash, em dash and horizontal bar, which set an aside off as "--" does
_DASHES = re.compile(rb"\xe2\x80[\x93\x94\x95]")


def _negation_among(words: list[bytes], before: bytes | None = None, *, counted: bool = False) -> bool:
    """Does a negation govern the end of ``words`` (:func:`_clause_negated`'s test)? ``before``:
    the clause's word before them, if any. ``counted``: a count of some kind found goes before
    the clause's count of none (:func:`_counts_found_before`, :func:`_count_joined`), so that
    zero denies nothing."""
    if tuple(words[-2:]) in _SET_ASIDE or (tuple(words[-3:-1]) in _SET_ASIDE and words[-1].endswith(b"ing")):
        return True  # ("instead of running "A"": red team 117, F04)
    if b"down" in words or b"off" in words or not _PHRASE_HEADS.isdisjoint(words):
        words = _phrasal_refusals(words)
    if b"against" in words:
        words = _oppositions(words)
    last = len(words) - 1
    denied = -1  # a word of _PROHIBITIONS a negation denies: a permission ("not forbidden")
    for n, word in enumerate(words):
        if n == denied:
            continue
        word = word.strip(b"_")
        if word in _PROHIBITIONS or word in _SKIPPING:
            if n + 1 < last and words[n + 1] == b"and":
                continue  # (it forbids nothing: "stop and run "A"", "refuse and go on")
            k = next((k for k in range(n + 1, last + 1) if words[k] not in _PROHIBITION_FILLER), None)
            if k is not None and words[k].strip(b"_") in _OMITTING:
                denied = k  # (a stop to an omission: "stop skipping "A"" is to run it; the omission
                continue    # is no denial of its own then)
            if _another_instruction(words, n, last) and not _infinitives_refused(words, n, last):
                continue
            return True
        if word in (b"0", b"zero") and n < last and not counted and _reports_none(words, n, last):
            return True  # (a count of none found: "0 secrets found in "A"", red team 116, F13)
        if word in _FAILED_TO and n < last and words[n + 1] == b"to":
            return True  # (a report it was not done: "failed to run `A`", "forgot to run `A`": red
            # team 119, F24, read as done, so "could not run `A`" summarizing it was refused)
        if word.endswith(b"n'ts"):
            word = word[:-1]  # ("Don'ts", a header)
        if word in (b"cant", b"wont") and (words[n - 1] if n else before) in _DETERMINERS:
            continue  # (the nouns: "the cant "A"", "his wont to run "A"": red team 119, F19)
        if word not in _BARE_NOT and not _negation_words(word, 0, len(word)):
            continue
        k = next((k for k in range(n + 1, last + 1) if words[k] not in _NEGATION_STRESS), None)
        after = None if k is None else words[k]
        if k is not None and k + 2 <= last and _worry_lifted(words, k):
            continue  # (it asks for the act, or permits it: "don't worry about running "A"", "no
            # need to worry about running "A"": red team 120, F16, read as a prohibition of "A")
        if after in _OWN_VERBS and k < last and (words[k + 1] in _DOING or (
                words[k + 1] == b"to" and after not in _OWN_VERBS_OF_THE_ACT) or any(
                words[a] == b"and" for a in range(k + 1, last))):
            denied = k  # (a negation of its own verb: "never mind the warning and run `A`", "don't
            continue    # wait - run `A`": red team 119, F25)
        if after in _NEGATION_UNDONE or after in _FAILED_TO:
            denied = k  # ("don't forget", "never, ever skip", "don't disable"; "skip" no denial then)
            continue
        if after == b"to" and k < last and words[k + 1] in _NEGATION_UNDONE and word == b"not":
            denied = k + 1  # ("make sure not to skip "A"" is to run it: red team 117, F01)
            continue
        if after in (b"longer", b"more") and k < last:
            k += 1  # ("no longer forbids")
        if k is not None and (words[k].strip(b"_") in _PROHIBITIONS or words[k] in _SKIPPING):
            if any(words[a] in (b"or", b"nor") for a in range(k + 1, last)):
                return True  # (but it goes on over the next verb: "do not stop the server or run "A"",
                # red team 116, F19)
            # two denials cancel: "no longer forbids "A"", "not banned", "don't stop running "A""
            # (red team 114, F02: either one was read as the clause's negation)
            denied = k
            continue
        if (word in _STATED_NOT or (word == b"not" and (words[n - 1] if n else before) in _STATED)) \
                and any(words[a] == b"and" for a in range(n + 1, last)):
            continue  # (a fact stated, and then another: "did not check the logs and ran "A"")
        # ("no" before a noun denies the noun: "no errors came from "npm test""; but not one
        # that reports none found: "no issues found in "A"")
        if word == b"no" and n < last and words[n + 1] == b"to" and _another_instruction(words, n, last):
            continue  # ("say no to "A" and run "B"")
        if word != b"no" or n == last or words[n + 1] in _NO_GOVERNS or _reports_none(words, n, last):
            return True
    return False


# the verbs a negation before one governs, no command after it: "don't panic", "don't worry
# about the warnings", "never mind the warning", "don't wait" (red team 119, F08, F20, F25)
_OWN_VERBS = frozenset((b"panic", b"worry", b"fret", b"mind", b"wait", b"stress", b"despair", b"bother", b"rush",
                        b"hurry", b"freak"))


# those whose "to" goes on to the act they deny: "don't bother to run "A"" is not to run it (read as
# asking for it, as "don't wait to run "A"" does)
_OWN_VERBS_OF_THE_ACT = frozenset((b"bother", b"rush", b"hurry"))


def _worry_lifted(words: list[bytes], k: int) -> bool:
    """Does the negation whose next word is ``words[k]`` deny a worry over an act, the act an
    ``-ing`` form right after it (``don't worry about running "A"``, ``no need to worry
    about running "A"``, ``you don't need to fret about deploying "A"``)? That lifts a
    prohibition of the act rather than stating one: it asks for the act, or permits it."""
    if words[k] in (b"need", b"needs") and words[k + 1:k + 2] == [b"to"]:
        k += 2
    if k + 2 >= len(words) or words[k] not in _WORRIED or words[k + 1] not in (b"about", b"over"):
        return False
    act = words[k + 2]
    return act.endswith(b"ing") and len(act) > 4 and act not in _ING_NOUNS


# the verbs of a worry a negation lifts from the act after them (:func:`_worry_lifted`), and the
# words in -ing that are no act ("don't worry about anything "A" prints")
_WORRIED = frozenset((b"worry", b"fret", b"stress", b"panic", b"despair"))
_ING_NOUNS = frozenset((b"anything", b"something", b"nothing", b"everything", b"string", b"during", b"morning",
                        b"evening", b"ceiling", b"thing", b"bring", b"spring", b"warning", b"pending"))


def _negates_another_verb(words: list[bytes]) -> bool:
    """Does every negation among ``words`` govern a verb of ``_OWN_VERBS`` or a ``need`` with
    no ``to`` after it (``You don't need sudo for this``), and at least one stand there? The
    line over a fenced block that says so governs no command of the block."""
    seen = False
    for n, word in enumerate(words):
        if word not in _BARE_NOT and not _negation_words(word, 0, len(word)):
            continue
        k = next((k for k in range(n + 1, len(words)) if words[k] not in _NEGATION_STRESS), None)
        if k is None:
            return False
        if words[k] in _OWN_VERBS_OF_THE_ACT and k + 1 < len(words) and (
                words[k + 1] == b"to" or words[k + 1].endswith(b"ing")):
            return False  # (it denies the act: "Don't bother running this:", "Don't bother to run this:")
        if words[k] in _OWN_VERBS or (words[k] in (b"need", b"needs") and words[k + 1:k + 2] != [b"to"]):
            seen = True
            continue
        return False
    return seen


# the words before a noun ("the cant", "his wont")
_DETERMINERS = frozenset((b"the", b"a", b"an", b"his", b"her", b"their", b"its", b"my", b"our", b"your", b"this",
                          b"that", b"whose"))
# the words that report a thing not done before the "to" of its verb ("failed to run `A`",
# "unable to run `A`", "forgot to run `A`"), undone by a negation before them ("never failed to")
_FAILED_TO = frozenset((b"failed", b"fails", b"unable", b"forgot", b"forgets", b"neglected", b"neglects"))


def _phrasal_refusals(words: list[bytes]) -> list[bytes]:
    """``words`` with a refusal said in two words (``turned down``: red team 116, F12) as the
    one word of ``_PROHIBITIONS`` it means (``refused``)."""
    out: list[bytes] = []
    for word in words:
        if word == b"down" and out and out[-1] in _TURN:
            out[-1] = b"refused"
        elif word == b"down" and out and out[-1] in _SHUT:
            out[-1] = b"stop"  # ("shut down "A"" as "stop "A"": red team 117, F25)
        elif word == b"off" and out and out[-1] in _HOLD:
            out[-1] = b"avoid"  # ("hold off on "A"" as "avoid "A"": red team 117, F04)
        elif word in _PHRASE_ENDS and out and (phrase := _PHRASES.get((out[-1], word))) is not None and (
                len(out) < 2 or out[-2] not in _DETERMINERS):  # (not the nouns: "the object to")
            out[-1] = phrase  # ("object to", "disapprove of", "steer clear", "keep away", "leave out": red
            # team 119, F22)
        else:
            out.append(word)
    return out


# the refusals said in two words (:func:`_phrasal_refusals`), their first words and their last
_PHRASES = {(a, b): means for heads, b, means in (
    ((b"object", b"objects", b"objected", b"objecting"), b"to", b"avoid"),
    ((b"disapprove", b"disapproves", b"disapproved", b"disapproving"), b"of", b"avoid"),
    ((b"steer", b"steers", b"steered", b"steering"), b"clear", b"avoid"),
    ((b"keep", b"keeps", b"kept", b"keeping", b"stay", b"stays", b"stayed", b"staying"), b"away", b"avoid"),
    ((b"leave", b"leaves", b"leaving"), b"out", b"omit"),
    # (before an "against" of :func:`_oppositions`: "pushed back against", "spoke out against")
    ((b"push", b"pushes", b"pushed", b"pushing"), b"back", b"argued"),
    ((b"speak", b"speaks", b"spoke", b"speaking"), b"out", b"spoke")) for a in heads}
_PHRASE_HEADS = frozenset(a for a, _ in _PHRASES)
_PHRASE_ENDS = frozenset(b for _, b in _PHRASES)


_TURN = frozenset((b"turn", b"turns", b"turned", b"turning"))


def _oppositions(words: list[bytes]) -> list[bytes]:
    """``words`` with an ``against`` that opposes what follows it (after a verb of being or of
    advice, ``was against "A"``, ``advised against "A"``, or before an ``-ing`` form,
    ``against running "A"``: red team 117, F04) as ``avoid``, a word of ``_PROHIBITIONS``;
    ``run the tests against "prod db"`` opposes nothing."""
    out = list(words)
    for n, word in enumerate(words):
        if (word == b"against" and n and words[n - 1] in _BE_FORMS and not _PERSONS.intersection(words[max(n - 4, 0):n - 1])
                and not (n > 1 and words[n - 2] in _ROLES)
                and not (n + 1 < len(words) and words[n + 1].endswith(b"ing"))):
            continue  # (a comparison's baseline: "the benchmarks were against "v1.2"", red team 119, F21)
        if word == b"against" and ((n and words[n - 1] in _OPPOSING and not (n > 1 and words[n - 2] in _DETERMINERS)) or (
                n + 1 < len(words) and words[n + 1].endswith(b"ing") and words[n + 1] not in _ING_ADJECTIVES)):
            out[n] = b"avoid"
    return out


# the words before an "against" that make it an opposition (:func:`_oppositions`), and the -ing
# words after one that name a thing instead ("tested against existing "A"")
_OPPOSING = frozenset((b"was", b"were", b"is", b"are", b"am", b"be", b"been", b"being", b"i'm", b"we're", b"they're",
                       b"strongly", b"firmly", b"totally", b"completely", b"very", b"still", b"all")) | frozenset(
    w + e for w in (b"advis", b"argu", b"vot", b"decid", b"recommend", b"caution", b"counsel", b"urg", b"warn", b"lean")
    for e in (b"e", b"es", b"ed", b"s", b"")) | frozenset((b"spoke", b"speak", b"speaks", b"decided",
                                                          # ("we stand against", "pushed back against",
                                                          # "spoke out against": red team 119, F22)
                                                          b"stand", b"stands", b"stood", b"standing"))
# the verbs of being before an "against", and the persons whose opposition one states ("we were
# against "A""), where "the benchmarks were against "v1.2"" names a baseline
_BE_FORMS = frozenset((b"was", b"were", b"is", b"are", b"am", b"be", b"been", b"being"))
_PERSONS = frozenset((b"i", b"we", b"they", b"he", b"she", b"you", b"everyone", b"everybody", b"nobody", b"team",
                      b"user", b"users", b"people", b"who", b"management", b"reviewers", b"maintainers", b"i'd",
                      b"we'd", b"they'd", b"would", b"still", b"strongly", b"firmly", b"totally", b"completely",
                      b"all", b"very"))
# the teams and roles whose opposition one states, right before the verb of being ("Security is
# against "A"", "Legal was against "A"": red team 120's polarity limits), where "the security
# benchmarks were against "v1.2"" still names a baseline
_ROLES = frozenset((b"security", b"infosec", b"secops", b"legal", b"compliance", b"ops", b"devops", b"sre", b"sres",
                    b"infra", b"leadership", b"product", b"qa", b"admin", b"admins", b"manager", b"managers", b"lead",
                    b"leads", b"owner", b"owners", b"customer", b"customers", b"client", b"clients", b"ceo", b"cto",
                    b"ciso", b"board", b"committee", b"boss", b"reviewer", b"maintainer", b"architect", b"architects",
                    b"engineering", b"stakeholders", b"dba", b"dbas", b"oncall", b"finance", b"marketing", b"sales",
                    b"support", b"mgmt", b"pm", b"pms"))
_ING_ADJECTIVES = frozenset((b"existing", b"incoming", b"outgoing", b"upcoming", b"remaining", b"pending",
                             b"matching", b"corresponding", b"missing", b"failing", b"passing"))
# the verbs of omission read as a prohibition before a quotation ("Skip "A"", "I was asked to
# skip "A"": red team 117, F04), undone by a negation or a prohibition before them as the other
# omissions are ("Never skip "A"", "stop skipping "A"")
_SKIPPING = frozenset((b"skip", b"skips", b"skipping", b"skipped", b"omit", b"omits", b"omitting", b"omitted",
                       b"bypass", b"bypasses", b"bypassing", b"bypassed"))
_SHUT = frozenset((b"shut",))
_HOLD = frozenset((b"hold", b"holds", b"holding"))


def _another_instruction(words: list[bytes], n: int, last: int) -> bool:
    """Does a refusal at ``words[n]`` end before the end of ``words``: an ``and`` and a verb
    that is no ``-ing`` form follow it (``decline "A" and approve "B"``, ``cease polling and
    run "B"``: red team 116, F17), where ``avoid pushing and running "A"`` goes on?"""
    return any(words[a] == b"and" and not words[a + 1].endswith(b"ing") for a in range(n + 1, last))



def _infinitives_refused(words: list[bytes], n: int, last: int) -> bool:
    """Does the refusal at ``words[n]`` refuse an infinitive that the first ``and`` after it
    joins to another (``refuse to build and deploy "A"``, ``decline to tag and deploy "A"``:
    red team 117, F16, the refusal ended at ``and deploy``)? Only a ``to`` right after the
    refusal and one verb between it and the ``and`` (``refuse to comment and run "B"`` reads
    the same: the refusal goes on, the fail-closed reading; ``decline "A" and approve "B"``
    has no ``to``)."""
    return n + 3 <= last and words[n + 1] == b"to" and words[n + 3] == b"and"


def _count_joined(words: list[bytes], n: int) -> bool:
    """Is the count of none at ``words[n]`` joined by ``and`` to a count of some found before it
    (``2 secrets and 0 keys found in "A"``: red team 117, F18)? Then the report is of kinds
    found and not, and the zero denies only its own kind, not the quotation."""
    return n >= 3 and words[n - 1] == b"and" and _SOME_COUNT.fullmatch(words[n - 3]) is not None


def _counts_found_before(window: bytes, breaks: list[re.Match[bytes]], k: int) -> bool:
    """Does a list of counts (``3 warnings, 0 errors, …``) that counts some of a kind found
    stand before the comma ``breaks[k]``, each item a number and a noun, at most
    ``_LIST_ITEMS`` of them read back (red team 117, F18: ``3 warnings, 0 errors found in
    "A"`` read as none found in "A")?"""
    for _ in range(_LIST_ITEMS):
        if k < 0 or breaks[k].group() != b",":
            return False
        segment = window[breaks[k - 1].end() if k > 0 else 0:breaks[k].start()]
        words = _words_of_clause(segment)
        if len(words) != 2 or not words[0].isdigit():
            return False
        if _SOME_COUNT.fullmatch(words[0]) is not None:
            return True
        k -= 1
    return False


# a count of some (no zero)
_SOME_COUNT = re.compile(rb"0*[1-9][0-9]*")


def _reports_none(words: list[bytes], n: int, last: int) -> bool:
    """Does the ``no`` at ``words[n]`` report a finding absent from what follows: a word of
    ``_FINDINGS`` right before it (``found no issues in "A"``) or among the three words after
    its noun (``no issues found in "A"``, ``no errors were detected in "A"``), no ``and`` after
    that word (``found no issues and ran "A"``)? Such a ``no`` denies the quotation's clause: a
    summary saying issues were found in "A" says the opposite (the header ``No issues found
    in:`` over a list of quotations is read the same way)."""
    if n and words[n - 1] in _FINDINGS:
        f = n
    else:
        # ("no leaked secrets or keys found in "A"": red team 116, F13)
        f = next((a for a in range(n + 2, min(n + 7, last + 1)) if words[a] in _FINDINGS), -1)
        if f < 0:
            return False
    return not any(words[a] == b"and" for a in range(f + 1, last))


def _opens_clause(text: bytes, at: int) -> bool:
    """Is the quotation whose words start at ``text[at]`` followed, past its closing mark and
    emphasis, by a word of ``_SUBJECT_OF`` ("A" is safe)?"""
    window = text[at:at + 256].lower()
    m = re.search(rb"[\"'`]|\xe2\x80[\x9d\x99]", window)
    if m is None:
        return False
    words = _SENTENCE_WORD.findall(window[m.end():m.end() + 40])
    return bool(words) and words[0] in _SUBJECT_OF


def _opens_its_clause(text: bytes, at: int) -> bool:
    """Does the quotation whose words start at ``text[at]`` open its clause: no word but
    ``both`` / ``either`` / ``neither`` between it and the clause break before it
    (``_CLAUSE_BREAK``, within 64 bytes; the text's start)?"""
    window = text[max(at - 64, 0):at].lower()
    opening = _QUOTE_OPENING.search(window)
    if opening is not None:
        window = window[:opening.start()]
    cut = None
    for cut in _CLAUSE_BREAK.finditer(window):
        pass
    if cut is None and at > 64:
        return False
    words = _words_of_clause(window[cut.end() if cut is not None else 0:])
    return not words or (len(words) == 1 and words[0] in (b"both", b"either", b"neither"))


def _likened(text: bytes, at: int) -> bool:
    """Does the quotation whose words start at ``text[at]`` open a clause that likens it to what
    came before (``"B" is no better``, ``"B" isn't any safer``, ``"B" is just as bad``, ``"B" is
    worse``)? Such a clause is no clause of its own: the quotation goes on the list before it
    (red team 108, F07: ``Never "A", "B" is no better.`` left "B" unnegated)."""
    window = text[at:at + 256].lower()
    m = re.search(rb"[\"'`]|\xe2\x80[\x9d\x99]", window)
    if m is None:
        return False
    words = [w.replace(b"\xe2\x80\x99", b"'") for w in _SENTENCE_WORD.findall(window[m.end():m.end() + 60])][:6]
    if not words or words[0] not in _LIKENING_VERBS:
        return False
    denied = words[0].endswith(b"n't")
    for word in words[1:]:
        if word in _WORSE or (denied and word in _NO_BETTER) or (word in _AS_BAD and b"as" in words[1:]):
            return True
        if word in (b"no", b"not", b"hardly", b"never"):
            denied = True
        elif word not in _LIKENING_QUALIFIERS:
            return False
    return False


# the words of _likened: the verb, the words between it and the comparison, the comparisons
_LIKENING_VERBS = frozenset((b"is", b"are", b"was", b"were", b"seems", b"looks", b"isn't", b"aren't", b"wasn't",
                             b"weren't"))
_LIKENING_QUALIFIERS = frozenset((b"any", b"much", b"even", b"just", b"equally", b"as", b"no", b"not", b"hardly",
                                  b"never", b"really", b"at", b"all"))
_WORSE = frozenset((b"worse", b"riskier"))
_NO_BETTER = frozenset((b"better", b"safer", b"different", b"okay", b"ok", b"fine", b"safe"))
_AS_BAD = frozenset((b"bad", b"dangerous", b"risky", b"harmful", b"destructive"))


def _header_negated(text: bytes, line_start: int) -> bool:
    """Does a negation govern the list whose item line starts at ``line_start``: the first line
    above it, past other items, their wrapped or indented lines and blank lines, that is no
    item (``Never run:``, ``## Don't``, ``**Don'ts**``, ``Commands you must never run:``)? Only
    its last sentence is read (``Don't skip tests. Never run:``), and not one that asks or
    sets a condition (``Didn't work? Try:``, ``If you don't have jq, run:``), nor one that
    heads both kinds (``## Dos and Don'ts``)."""
    words = _header_words(text, line_start)
    return words is not None and _negation_among(words)


def _header_words(text: bytes, line_start: int, *, proper: bool = False) -> list[bytes] | None:
    """The first words (at most 8) of the last sentence of the header over the list whose item
    line starts at ``line_start`` (:func:`_header_negated`), or None: no header, or one that
    asks, sets a condition or heads what to do as well as what not to (``Dos and Don'ts``).
    ``proper``: only a line that is a header and no sentence of a paragraph: a markdown
    heading, one ending in ``:``, or one of ``_HEADER_WORDS`` words at most (``**Don'ts**``),
    so that ``I didn't find it.`` over ``- ran "A"`` governs nothing."""
    end = line_start
    for _ in range(_HEADER_LINES):
        if end <= 0:
            return None
        start = text.rfind(b"\n", 0, end - 1) + 1
        line = text[start:end].rstrip(b"\r\n")
        end = start
        if not line.strip() or line[:1] in b" \t" or _ITEM_LINE.match(line):
            continue
        if proper and not (line[:1] == b"#" or line.rstrip(b" \t*_~").endswith(b":")
                           or (len(_words_of_clause(line.lower())) <= _HEADER_WORDS
                               and not line.rstrip(b" \t*_~").endswith((b".", b"!", b"?")))):
            return None
        last = re.split(rb"[.?!]\s", line.lower())[-1]
        if last.rstrip().endswith(b"?"):
            return None
        words = _words_of_clause(last)
        if not words or words[0] in (b"if", b"when", b"unless", b"whenever"):
            return None
        if _DOS.intersection(words) or any(a == b"do" and b == b"and" for a, b in itertools.pairwise(words)):
            return None  # (a list of both: "## Dos and Don'ts", "Do and don't")
        return words[:8]
    return None


# the most words of a header line with no colon that :func:`_header_words` takes as a header
_HEADER_WORDS = 3
# the words that make a header one over what to do as well (:func:`_header_words`)
_DOS = frozenset((b"dos", b"do's", b"do\xe2\x80\x99s"))


def _clause_negated(text: bytes, at: int, _depth: int = 0) -> bool:
    """Does a negation (:func:`_negation_words`; no verb of omission right after it, "don't
    forget to run"; a "no" only right before the quotation or before a word of
    ``_NO_GOVERNS``) or a word of ``_PROHIBITIONS`` stand among the last ``_CLAUSE_WORDS``
    words of the clause before ``text[at]`` (the words of a quotation; its opening marks,
    emphasis and brackets passed), or do the words right before it set it aside
    (``_SET_ASIDE``)? The clause starts after the last ``_CLAUSE_BREAK`` within 256 bytes,
    short bracketed asides and a negation quoted alone (an answer, ``"no"``) passed; a comma
    with no word after it, or one of ``_LIST_FILLER``,
    is read past (a list of quotations, "or, worse,"), up to ``_LIST_COMMAS``, unless the quotation opens a clause
    of its own. A quotation that opens a list item is governed by the list's header
    (:func:`_header_negated`) as well, and so is one after a verb that opens the item
    (``## Don'ts`` over ``- run "A"``). A quotation right after another and ``or`` / ``nor`` /
    ``and`` / a comma reads as that one does, however long it is (``No secrets found in
    "b.yaml" or "A"``). The words after the quotation are read as well (:func:`_read_after`):
    a prohibition there (``"A" must never be run``, ``Running "A" is forbidden``) or a report of
    none found (``Scanned "A": no secrets found``) negates it; an omission there undoes a
    negation before it (``I refuse to let "A" be skipped`` is to run it)."""
    after = _read_after(text, at)
    if after == _AFTER_DENIED:
        return True
    if after == _AFTER_FORBIDDEN:
        # (a prohibition of an omission the words before state is a request to do it: "skipping
        # "A" is forbidden" is to run it, red team 119, F26; "running "A" is forbidden" is not)
        return not (_omission_before(text, at) and _clause_negated_before(text, at, _depth))
    negated = _clause_negated_before(text, at, _depth)
    return negated != (after == _AFTER_OMITTED)  # ("Skip "A"" and ""A" should be skipped" read alike)


def _clause_negated_before(text: bytes, at: int, depth: int) -> bool:
    """:func:`_clause_negated` of the words before the quotation only. A fenced block's line
    (``Never run this:`` over ```` ``` ```` / ``make deploy`` / ```` ``` ````: red team 117, F22,
    read as a clause of no words) is read as the words right after the lines before its fence."""
    lo = max(at - 256, 0)
    window = text[lo:at].lower()
    if window.endswith(b"\n") and depth < _LIST_ITEMS and (fence := _FENCE_OPENING.search(window)) is not None:
        h = lo + fence.start()
        end = max(h - 256, 0) + len(text[max(h - 256, 0):h].rstrip())  # (past blank lines, a bounded read)
        if end > 0:
            line = text[text.rfind(b"\n", max(end - 256, 0), end) + 1:end].lower()
            # (a negation of a verb that governs something else, "You don't need sudo for this:",
            # "Don't worry about the warnings:", governs no command of the block: red team 119, F08)
            if _clause_negated_before(text, end, depth + 1) and not _negates_another_verb(_words_of_clause(line)):
                return True
            # (or a sentence ending in "." that points at the fence: "Never run this.", "Do not
            # run the following.": red team 123, F11, read as governing nothing)
            if _fence_instruction_negated(line, _FENCE_POINTER_BELOW, depth):
                return True
        return _fence_denied_after(text, at, fence.group(), depth)
    line = window.rfind(b"\n") + 1
    if _ITEM_LEAD.fullmatch(window, line):
        if _header_negated(text, lo + line):
            return True
    elif (item := _ITEM_BULLET.match(window, line)) is not None and _verb_item_negated(text, lo + line, window[item.end():]):
        return True
    coloured = b"\x1b" in window
    if coloured:
        window = _CSI.sub(b"", window)  # (colour codes: "\x1b[1mnever\x1b[0m run")
    opening = _QUOTE_OPENING.search(window)
    if opening is not None:
        window = window[:opening.start()]
        if depth < _LIST_ITEMS and not coloured and (joined := _JOINED_TO_QUOTATION.search(window)) is not None:
            # (the next item of a list of quotations reads as the one before it: red team 116,
            # F13, "no secrets found in "b.yaml" or "A"" ran past the clause's six words)
            c = joined.start()
            if (_OPENER_OF.get(window[c:c + 3] if window[c] == 0xE2 else window[c:c + 1], b"\n") in opening.group()
                    and (before := _words_closed_at(window, c, max(c - 200, 0))) >= 0
                    and b"\n" not in window[before:c]
                    and not (_opens_clause(text, at) and not _likened(text, at))):
                return _clause_negated(text, lo + before, depth + 1)
    window = _EXAMPLE.sub(b",", _ANSWER.sub(b" ", _ASIDE.sub(b" ", window)))
    breaks = [m for m in _CLAUSE_BREAK.finditer(window)]
    start = 0
    commas = 0
    subject = None
    k = len(breaks) - 1
    while k >= 0:
        m = breaks[k]
        after = window[m.end():]
        between = _words_of_clause(after)
        if (m.group() == b":" and not between and commas < _LIST_COMMAS and b"\n" not in after
                and not (subject := (_opens_clause(text, at) and not _likened(text, at)) if subject is None else subject)):
            commas += 1  # (a colon that introduces the quotation: "Do not run: "A"", red team 117, F02)
            k -= 1
            continue
        if (m.group() == b"," and commas < _LIST_COMMAS and (not between or (len(between) == 1 and between[0] in _LIST_FILLER))
                and not (subject := (_opens_clause(text, at) and not _likened(text, at))
                         if subject is None else subject)):
            commas += 1
            k -= 1
            continue
        start = m.end()
        break
    words = _infinitives_joined(_words_of_clause(window[start:]))
    counted = ((k >= 0 and words[:1] in ([b"0"], [b"zero"]) and _counts_found_before(window, breaks, k))
               or any(w in (b"0", b"zero") and _count_joined(words, n) for n, w in enumerate(words)))
    if k >= 0 and _SKIPPING.intersection(words[:3]) and _emphatic_negation_before(window, breaks, k):
        # (an omission after a negation set off by commas is undone by it, as right after one:
        # "Never, ever skip "A"" is to run it)
        return _negation_among([b"not"] + words[-_CLAUSE_WORDS:])
    if _negation_among(words[-_CLAUSE_WORDS:], words[-_CLAUSE_WORDS - 1] if len(words) > _CLAUSE_WORDS else None,
                       counted=counted):
        return True
    if len(words) > _CLAUSE_WORDS and not counted and _none_found_reaching(words):
        return True
    if k >= 0 and len(words) <= 3 and breaks[k].group() == b"," and _verb_list_negated(window, breaks, k, words):
        return True
    return k >= 0 and _emphatic_negation_before(window, breaks, k)


def _verb_list_negated(window: bytes, breaks: list[re.Match[bytes]], k: int, tail: list[bytes]) -> bool:
    """Does a negation govern the last verb of a list of verbs the comma ``breaks[k]`` ends an
    item of (``Do not build, test, or deploy "A"``: red team 117, F16, the comma ended the
    clause)? ``tail``: the clause's words after that comma (``or deploy``, ``deploy or run``),
    at most two words and the joiners between them. The items before it are one word each (a joiner before one passed), at most
    ``_LIST_ITEMS`` read back; the clause before the first (``Do not build``) and ``tail`` are
    read as one clause. With no item between them the tail opens with ``or`` / ``nor`` (``Do
    not build, or deploy "A"``); a clause that a condition opens (``if it doesn't build, test, or
    run "A"``) governs nothing past its comma."""
    content = [w for w in tail if w not in (b"or", b"nor", b"and")]
    if not content or len(content) > 2 or len(tail) > 4:
        return False
    items = 0
    j = k
    while True:
        start = breaks[j - 1].end() if j > 0 else 0
        segment = _words_of_clause(window[start:breaks[j].start()])
        if segment[:1] in ([b"or"], [b"and"], [b"nor"]):
            segment = segment[1:]
        if len(segment) == 1 and j > 0 and breaks[j - 1].group() == b"," and items < _LIST_ITEMS:
            items += 1
            j -= 1
            continue
        break
    # (the tail may hold the list's next item itself, both verbs of a build's steps: "You must
    # not build, test and deploy "A"", eng-pol8's leftovers, read as no negation; where "Don't
    # worry, test and deploy "A"" is a clause of its own)
    joined = (len(content) == 2 and len(tail) == 3 and tail[1] in (b"or", b"nor", b"and") and segment
              and segment[-1] in _STEPS and tail[0] in _STEPS)
    if segment[-1:] and segment[-1] in _OWN_VERBS:
        return False  # (the negation ends at its own verb: "don't panic, retry, or run "A"": red team 119, F20)
    if not segment or (j > 0 and breaks[j - 1].group() in _CONDITIONS) or not (
            items or joined or tail[0] in (b"or", b"nor")):
        return False
    return _negation_among(segment[-_CLAUSE_WORDS:] + tail)


# the verbs of a build's or a release's steps, read as a list's items when a comma and "and" join
# two of them with no item between (:func:`_verb_list_negated`)
_STEPS = frozenset((b"run", b"execute", b"use", b"invoke", b"call", b"deploy", b"apply", b"launch", b"start",
                    b"push", b"delete", b"remove", b"build", b"test", b"tag", b"release", b"publish", b"compile", b"merge", b"commit",
                             b"ship", b"lint", b"package", b"rebuild", b"migrate", b"restart", b"upgrade", b"install",
                             b"format", b"check", b"verify", b"sign", b"upload", b"rollout", b"roll"))
# the line that opens a fenced block, at the end of the text before the block's first line
_FENCE_OPENING = re.compile(rb"(?:\A|\n)[ \t]{0,3}(?:`{3,}|~{3,})[0-9a-z_+.-]*[ \t]*\n\Z")
# the line that closes a fenced block: its fence (:func:`_fence_denied_after`)
_FENCE_CLOSING = re.compile(rb"\n[ \t]{0,3}(`{3,}|~{3,})[ \t]*(?:\r?\n|\Z)")
# the most bytes of a fenced block read for its closing fence (:func:`_fence_denied_after`)
_FENCE_READ = 16384
# the words that name what a fenced block holds ("the command below", "the above script")
_FENCE_NOUN = rb"(?:commands?|lines?|snippets?|scripts?|code|block|steps?)"
# a verb, then words pointing at the fenced block below or above it, at the end of a sentence
# ("run this.", "run the following.", "execute the command below!"; "run the above.", "run
# that.", "use these lines.": :func:`_fence_instruction_negated`)
_FENCE_POINTER_BELOW = re.compile(
    rb"(?<![0-9a-z_'])([a-z]+)[ \t]+(?:(?:this|these|the[ \t]+following|following)(?:[ \t]+" + _FENCE_NOUN
    + rb")?(?:[ \t]+below)?|(?:the[ \t]+" + _FENCE_NOUN + rb"[ \t]+)?below)[ \t*_]*[.!]+[ \t*_]*\Z")
_FENCE_POINTER_ABOVE = re.compile(
    rb"(?<![0-9a-z_'])([a-z]+)[ \t]+(?:(?:the[ \t]+)?above(?:[ \t]+" + _FENCE_NOUN + rb")?|(?:the|that|those|this|these)[ \t]+"
    + _FENCE_NOUN + rb"(?:[ \t]+above)?|that|those|this|these|it|them)[ \t*_]*[.!]+[ \t*_]*\Z")
# a list item's bullet (:data:`_ITEM_LEAD`'s), the words of the item after it
_ITEM_BULLET = re.compile(rb"[ \t]*(?:[-*+]|\xe2\x80\xa2|\d{1,9}[.)]|\(\d{1,9}\)|[a-z][.)])[ \t]+(?:\[[ x]\][ \t]+)?[*_~]*")
# the most quotations of a list one is read back over (:func:`_clause_negated_before`)
_LIST_ITEMS = 8
# a closing quotation mark's opening one
_OPENER_OF = {b'"': b'"', b"'": b"'", b"\xe2\x80\x9d": b"\xe2\x80\x9c", b"\xe2\x80\x99": b"\xe2\x80\x98"}
# the end of a quotation and what joins the next to it ("A" or, "A", "A" and): its closing mark
_JOINED_TO_QUOTATION = re.compile(rb"(?:[\"']|\xe2\x80[\x9d\x99])[*_~]*(?:,[ \t]*(?:(?:or|nor|and)[ \t]*)?|[ \t]+(?:or|nor|and)[ \t]*)\Z")


def _fence_instruction_negated(sentence: bytes, pointer: re.Pattern[bytes], depth: int) -> bool:
    """Does the lower-cased ``sentence`` (a line's last sentence before a fenced block, or its
    first after one, its end mark kept) deny an act of ``_FENCE_ACTS`` whose object points at
    the block (``pointer``): ``Never run this.``, ``Do not run the following.``, ``Never run
    the above.`` (red team 123, F11: only a line ending in ``:`` before the block was read)? The
    words up to the verb are read as the clause before a quotation is, and a negation of
    another verb (``Don't worry about running this.``) denies nothing; a sentence that points
    at nothing (``The output was long.``) or names no act governs nothing."""
    m = pointer.search(sentence)
    if m is None or _act_stem(m.group(1)) not in _FENCE_ACTS:
        return False
    clause = sentence[:m.end(1)]
    return _clause_negated_before(clause, len(clause), depth + 1) and not _negates_another_verb(
        _words_of_clause(clause))


def _fence_denied_after(text: bytes, at: int, opening: bytes, depth: int) -> bool:
    """Does the first sentence of the line after the fenced block whose first line starts at
    ``text[at]`` (past blank lines; ``opening``: its opening fence line) deny the block
    (:func:`_fence_instruction_negated`: ``Never run the above.``, ``Don't run that.``)? Its
    closing fence is read for within ``_FENCE_READ`` bytes; an unclosed block governs nothing."""
    char = opening.lstrip(b"\n \t")[:1]
    width = len(opening.lstrip(b"\n \t")) - len(opening.lstrip(b"\n \t").lstrip(char))
    for closing in _FENCE_CLOSING.finditer(text, at - 1, at + _FENCE_READ):
        if closing.group(1)[:1] == char and len(closing.group(1)) >= width:
            break
    else:
        return False
    after = text[closing.end():closing.end() + 256].lstrip().lower()
    line = after[:_LINE_BREAK.search(after).start()] if _LINE_BREAK.search(after) else after
    stop = _SENTENCE_END.search(line)  # (the first sentence)
    sentence = line[:stop.end()] if stop is not None else line
    return _fence_instruction_negated(sentence.rstrip(), _FENCE_POINTER_ABOVE, depth)


def _verb_item_negated(text: bytes, line_start: int, item: bytes) -> bool:
    """Does the header over a list govern the quotation of an item that opens with a verb
    (``## Don'ts`` over ``- run "A" today``: red team 116, F12, the header was read only over an
    item that is a quotation)? ``item``: the item's lower-cased words before the quotation,
    at most ``_CLAUSE_WORDS``, no clause break and no negation of their own among them (an
    item that says it itself is read as its own clause); the header's words and the item's are
    read as one clause (``Don't: forget to run "A"`` is to run it)."""
    if _CLAUSE_BREAK.search(item) or _negation_words(item, 0, len(item)) or _PROHIBITION_WORD.search(item):
        return False
    words = _words_of_clause(item)
    if not words or len(words) > _CLAUSE_WORDS:
        return False
    header = _header_words(text, line_start, proper=True)
    return header is not None and _negation_among(header + words)


def _infinitives_joined(words: list[bytes]) -> list[bytes]:
    """``words`` with an infinitive that another joins by ``and`` cut, down to its ``to``:
    ``does not want you to log in and run "A"`` is read as ``does not want you to run "A"``
    (red team 116, F12: the negation stood more than six words back, and a stated negation ends
    at ``and``). Only after a verb that takes such an infinitive (``_WANTS``) one or two words
    before the ``to``, at most three words between it and the ``and``, and no past form after
    the ``and`` (``did not want to wait and ran "A"`` states two facts)."""
    if b"and" not in words or b"to" not in words:
        return words
    a = len(words) - 1 - words[::-1].index(b"and")
    if a == len(words) - 1:
        return words
    after = words[a + 1]
    if after.endswith(b"ed") or after in _PAST_FORMS:
        return words
    for t in range(a - 2, max(a - 5, 0), -1):
        if words[t] == b"to" and (words[t - 1] in _WANTS or (t > 1 and words[t - 2] in _WANTS)):
            return words[:t + 1] + words[a + 1:]
    return words


# the verbs whose infinitive a negation before them governs (:func:`_infinitives_joined`)
_WANTS = frozenset(w + e for w in (b"want", b"ask", b"expect", b"need", b"allow", b"intend", b"permit", b"instruct",
                                    b"authorize", b"authorise", b"request", b"wish", b"plan")
                   for e in (b"", b"s", b"ed")) | frozenset((b"tell", b"tells", b"told", b"mean", b"means",
                                                             b"meant", b"like", b"likes", b"planned"))
# past forms that end in no "ed": the "and" before one states another fact
_PAST_FORMS = frozenset((b"ran", b"did", b"went", b"made", b"took", b"got", b"saw", b"gave", b"wrote", b"began",
                         b"kept", b"left", b"put", b"set", b"built", b"sent", b"found", b"told", b"came"))


def _none_found_reaching(words: list[bytes]) -> bool:
    """Does a report of none found (:func:`_reports_none`) whose "no" / "0" / "zero" stands
    before the clause's last ``_CLAUSE_WORDS`` words, and whose word of finding among them,
    govern the end of ``words`` (``No leaked secrets or keys found in "A"``: red team 116, F13,
    the "no" was the seventh word back)?"""
    tail = words[-_CLAUSE_WORDS - 5:]
    last = len(tail) - 1
    first = len(tail) - _CLAUSE_WORDS
    for n in range(first):
        if tail[n] in (b"no", b"0", b"zero") and any(w in _FINDINGS for w in tail[first:]) \
                and _reports_none(tail, n, last):
            return True
    return False


# the answers of :func:`_read_after`
_AFTER_NOTHING, _AFTER_DENIED, _AFTER_OMITTED, _AFTER_FORBIDDEN = 0, 1, 2, 3


def _one_blank(words: bytes) -> bytes:
    """``words`` with each run of blanks and tabs one blank (:meth:`Check._check_quoted_polarity`)."""
    return _BLANK_RUN.sub(b" ", words) if b"  " in words or b"\t" in words else words


_BLANK_RUN = re.compile(rb"[ \t]{2,}|\t")


def _reading_window(text: bytes, at: int, reaching: list[int]) -> tuple[int, bytes] | None:
    """The bytes :func:`_clause_negated` reads of the quotation whose words start at
    ``text[at]`` (``_READ_REACH`` either side, and where the quotation stands among them), when
    that is all it reads: no line break, quotation mark, backtick or curly mark (no list of
    quotations read back or on, no fence, no list's header) within ``_READ_REACH`` + 44 bytes
    either side, and no list bullet opening the bytes before; None else. Two quotations whose
    windows are equal read alike (:meth:`Check._check_marked_quotation_polarity`). ``reaching``:
    the sorted offsets of ``_WINDOW_REACHES`` in ``text``."""
    lo = max(at - _READ_REACH, 0)
    k = bisect.bisect_left(reaching, at - _READ_REACH - 44)
    if k < len(reaching) and reaching[k] < at + _READ_REACH + 44:
        return None
    if _ITEM_BULLET.match(text[lo:at].lower()) is not None:
        return None
    return at - lo, text[lo:at + _READ_REACH]


# the bytes either side of a quotation :func:`_clause_negated` reads (its windows), and the marks
# that make it read further (:func:`_reading_window`)
_READ_REACH = 256
_WINDOW_REACHES = re.compile(rb"[\n\r\"'`]|\xe2\x80")


def _omission_before(text: bytes, at: int) -> bool:
    """Is the word right before the quotation whose words start at ``text[at]`` (its opening
    marks passed) a verb of omission (``_SKIPPING``, ``skipping "A"``)? Then a prohibition after
    the quotation forbids the omission (:func:`_clause_negated`)."""
    window = text[max(at - 40, 0):at].lower()
    opening = _QUOTE_OPENING.search(window)
    if opening is not None:
        window = window[:opening.start()]
    words = _SENTENCE_WORD.findall(window)
    return bool(words) and words[-1] in _SKIPPING
# what ends the words after a quotation (:func:`_read_after`): a clause break, or a word that
# joins another clause or item ("run "A" and the old one is forbidden")
_AFTER_BREAK = re.compile(rb"[.!?;:,()\[\]\n\r\"`]|\xe2\x80[\x9c\x9d]|\b(?:but|so|if|when|whenever|unless|until|because|"
                          rb"while|before|after|once|since|though|although|whether|which|that|who|and|or|nor|then)\b")
# the report of none found a separator sets after a quotation ("Scanned "A": no secrets found")
_REPORT_AFTER = re.compile(rb"[*_~]*[ \t]*(?:[:,]|[ \t]-|\xe2\x80[\x93\x94])[ \t]*([^.!?;\n\r]{1,80})")
# the verbs that make the words after a quotation its predicate (:func:`_read_after`)
_BE = frozenset((b"is", b"are", b"was", b"were", b"be", b"isn't", b"aren't", b"wasn't", b"weren't", b"remains",
                 b"stays"))
_AUXILIARIES = _BE | frozenset((b"must", b"should", b"shall", b"mustn't", b"shouldn't", b"shan't"))
# a prohibition's state after a quotation ("Running "A" is forbidden")
_PROHIBITED = frozenset((b"forbidden", b"prohibited", b"banned", b"disallowed", b"vetoed", b"off-limits",
                         b"verboten", b"not-allowed",
                         b"rejected", b"disapproved"))  # (red team 119, F22; not "refused", "declined": a
# connection refused, a card declined are statuses)
# what a negated auxiliary goes on with to prohibit: a modal's ("must never be run"), a be's ("is
# not to be used", "isn't allowed"). Not "can't", "may not", "will not": they state a fact as
# often ("cannot be found", "may not be installed")
_PROHIBITING = frozenset((b"be", b"to", b"allowed", b"permitted", b"ever"))
_PROHIBITING_BE = frozenset((b"to", b"allowed", b"permitted"))
# an omission after a quotation a negation before it undoes ("I refuse to let "A" be skipped")
# the words a passive omission after a quotation opens with (:func:`_read_after`), and those
# right before its participle
_PASSIVE_LEAD = frozenset((b"to", b"be", b"get", b"gets", b"got", b"is", b"are", b"was", b"were", b"been", b"should",
                           b"must", b"shall", b"will", b"has", b"have", b"always", b"also"))
_BEEN = frozenset((b"be", b"is", b"are", b"was", b"were", b"been", b"get", b"gets", b"got"))
# the perfect's auxiliaries, negated before "been" and a participle of _DONE ("has not been run")
_HAVE = frozenset((b"has", b"have", b"had", b"hasn't", b"haven't", b"hadn't"))
# the participles of doing a negated "was" / "has been" states undone ("A" was not tried: red team
# 118, F10, read as nothing, so a summary of "Did not try "A"" saying so was refused). Not
# "found", "passed", "installed": a result or a state, said of a thing as often
_DONE = frozenset((b"tried", b"run", b"executed", b"used", b"invoked", b"called", b"attempted", b"performed",
                   b"done", b"applied", b"launched", b"started", b"pushed", b"deployed", b"published", b"merged",
                   b"released", b"approved", b"tested"))
# the verbs whose object an omission right after it asks or gets done ("had "A" skipped", "got
# "A" ignored"), as a wish of ``_WANTS`` does ("wants "A" skipped": eng-pol8's leftovers)
_HAVE_DONE = frozenset((b"have", b"has", b"had", b"get", b"gets", b"got", b"let", b"lets", b"keep", b"keeps"))
# the words right after a quotation that state it undone ("A" untried, F10)
_UNDONE_AFTER = frozenset((b"untried", b"unrun", b"unused", b"unattempted", b"unexecuted", b"untested"))
# a list of quotations going on after one (:func:`_read_after`): a comma, "and", "or" or "nor",
# then the next one's opening mark
_LISTED_AFTER = re.compile(rb"[*_~]*[ \t]*(?:,[ \t]*(?:(?:and|or|nor)[ \t]+)?|(?:and|or|nor)[ \t]+)[*_~]*"
                           rb"(?:[\"'`]|\xe2\x80[\x9c\x98])")
# the pairs after a quotation that hold it off (:func:`_read_after`)
_HELD = frozenset(((b"on", b"hold"), (b"off", b"limits")))
# an omission or a prohibition a dash sets after a quotation, or brackets hold (:func:`_read_after`)
_SKIP_ASIDE = re.compile(rb"[*_~]*[ \t]*(?:[ \t]-+|\xe2\x80[\x93\x94]|[(\[])[ \t]*(?:(skip|omit|avoid|forbidden|banned|"
                         rb"prohibited)(?![0-9a-z_'\x80-\xff])|(never)[ \t]*(?:[).!\]]|\Z|\n))")
# the words after "blocked" that make it a status ("blocked on review", "blocked by review",
# "blocked until "B" finishes": red team 119, F09), no prohibition
_BLOCKED_STATUS = frozenset((b"on", b"by", b"until", b"pending", b"behind"))
# the agents a "blocked by" names that make it a prohibition still ("blocked by policy")
_BLOCKING_AGENTS = frozenset((b"policy", b"policies", b"security", b"admin", b"admins", b"administrator",
                              b"administrators", b"firewall", b"rule", b"rules", b"compliance", b"legal", b"management"))


# the places a "blocked on" names right after it that make it a prohibition there ("blocked on
# prod": red team 119, F15), where "blocked on review" is a status
_BLOCKING_PLACES = frozenset((b"prod", b"production", b"staging", b"main", b"master", b"ci", b"release", b"live",
                              b"shared", b"servers", b"hosts", b"laptops", b"weekends", b"fridays"))
# the places and times a "blocked on" of a command names as the head of its noun, past a determiner
# or a quantifier, that make it a prohibition there or then ("on the main cluster", "on all
# clusters", "on this repo", "on weekdays": red team 121, F16; "on the cluster upgrade" a status)
_BLOCKING_SCOPES = _BLOCKING_PLACES | frozenset((
    b"server", b"host", b"laptop", b"cluster", b"clusters", b"repo", b"repos", b"repository", b"repositories",
    b"region", b"regions", b"environment", b"environments", b"env", b"envs", b"branch", b"branches", b"machine",
    b"machines", b"node", b"nodes", b"box", b"boxes", b"instance", b"instances", b"datacenter", b"datacenters",
    b"workstation", b"workstations", b"device", b"devices", b"site", b"sites", b"weekdays", b"weekend",
    b"mondays", b"tuesdays", b"wednesdays", b"thursdays", b"saturdays", b"sundays", b"mornings", b"afternoons",
    b"evenings", b"nights", b"weeknights", b"holidays", b"workdays", b"weekday", b"weeknight"))
# the words a "blocked on" passes over before its place (red team 121, F16: "blocked on the main
# cluster", "on all clusters", "on this repo" read "the", "all", "this" as the thing waited on)
_BLOCKED_ON_SKIPPED = frozenset((b"the", b"a", b"an", b"all", b"any", b"every", b"each", b"this", b"that",
                                 b"these", b"those", b"our", b"your", b"their", b"its", b"my", b"his", b"her",
                                 b"both", b"some", b"most", b"other", b"another"))
# the words that end the noun a "blocked on" names ("blocked on review for prod": review's)
_BLOCKED_ON_ENDS = frozenset((b"for", b"until", b"till", b"because", b"since", b"and", b"or", b"but", b"so",
                              b"while", b"before", b"after", b"if", b"unless", b"pending", b"by", b"to", b"of",
                              b"from", b"with", b"in", b"at", b"as", b"then", b"once", b"which", b"that", b"who"))
# the first word of a quotation that is a command line (:func:`_command_quoted`), as typed
_COMMAND_WORDS = frozenset((
    b"make", b"git", b"npm", b"npx", b"yarn", b"pnpm", b"pip", b"pip3", b"pipx", b"python", b"python3", b"py",
    b"alembic", b"kubectl", b"docker", b"docker-compose", b"podman", b"helm", b"terraform", b"tofu", b"pulumi",
    b"cargo", b"rustup", b"go", b"node", b"deno", b"bun", b"bash", b"sh", b"zsh", b"fish", b"pwsh", b"curl",
    b"wget", b"rm", b"cp", b"mv", b"ln", b"mkdir", b"rmdir", b"ssh", b"scp", b"rsync", b"sudo", b"su",
    b"systemctl", b"journalctl", b"ansible", b"ansible-playbook", b"poetry", b"uv", b"uvx", b"pytest",
    b"tox", b"nox", b"just", b"mvn", b"gradle", b"gradlew", b"ruby", b"rake", b"rails", b"php",
    b"composer", b"artisan", b"psql", b"mysql", b"sqlite3", b"mongosh", b"redis-cli", b"pg_dump", b"pg_restore",
    b"dropdb", b"createdb", b"aws", b"gcloud", b"gsutil", b"az", b"doctl", b"flyctl", b"heroku", b"vercel",
    b"netlify", b"firebase", b"apt", b"apt-get", b"yum", b"dnf", b"apk", b"brew", b"snap", b"choco", b"winget",
    b"chmod", b"chown", b"chgrp", b"tar", b"zip", b"unzip", b"find", b"xargs", b"grep", b"sed", b"awk", b"cat",
    b"echo", b"ls", b"cd", b"source", b"kill", b"pkill", b"killall", b"shutdown",
    b"reboot", b"dd", b"mkfs", b"fdisk", b"flask", b"django-admin", b"dotnet",
    b"cmake", b"ninja", b"gcc", b"clang", b"javac", b"java", b"jq", b"openssl", b"vault", b"nomad", b"consul",
    b"kustomize", b"skaffold", b"minikube", b"k9s", b"argocd", b"gh", b"glab", b"svn", b"hg",
    b"crontab", b"iptables", b"ufw", b"nginx", b"certbot", b"npm-run", b"yarnpkg", b"bazel", b"buck", b"nix",
    b"sbt", b"lein", b"elixir", b"iex", b"perl", b"lua", b"rscript", b"julia", b"swift", b"xcodebuild",
    b"fastlane", b"manage.py", b"mvnw", b"tsc", b"eslint", b"prettier", b"ruff",
    b"mypy", b"flake8", b"pre-commit", b"dbt", b"airflow", b"celery", b"gunicorn", b"uvicorn", b"nohup",
    b"sbatch", b"srun", b"wrangler", b"supabase", b"prisma", b"knex", b"sequelize", b"liquibase",
    b"flyway", b"goose"))
# the shell syntax that makes a quotation a command line: a flag, a pipe, a redirection, a chain,
# a substitution, a path it runs (:func:`_command_quoted`)
_SHELL_SYNTAX = re.compile(rb"[ \t]--?[A-Za-z]|&&|\|\||[ \t]\|[ \t]|\$\(|\$\{|[ \t]>>?[ \t]|[ \t]2>|[ \t]<[ \t]|"
                           rb"\A(?:\.{1,2}/|~/|/|\$[ \t])|\A[A-Z_][A-Z0-9_]*=\S+[ \t]|\A\S+\.(?:sh|py|js|rb|pl|ps1|bat|cmd)\b")
# the SQL a quotation holds that makes it a statement run ("DROP TABLE users")
_SQL_COMMAND = re.compile(rb"\A(?:drop|truncate|alter)[ \t]+(?:table|database|schema|index|view)\b|"
                          rb"\A(?:delete[ \t]+from|insert[ \t]+into|update[ \t]+\S+[ \t]+set)\b", re.IGNORECASE)


def _command_quoted(quoted: bytes) -> bool:
    """Is the quotation ``quoted`` (its words, as written) a command line, a thing done (red team
    121, F03: ``The deploy step "make deploy" is blocked until further notice`` read the noun
    before it and passed as a status)? Its first word a command as typed (``make``, ``git``,
    ``alembic``, ``kubectl``, ... lower case: ``"Make login faster"`` is a title), or shell syntax
    in it (a flag, a pipe, ``&&``, a redirection, ``$(``, a path it runs: ``./deploy.sh``), or a
    SQL statement. A PR title, a branch, a ticket or a version name is none."""
    quoted = quoted.strip(b" \t*_~")
    first = quoted.split(None, 1)[:1]
    if first and first[0] in _COMMAND_WORDS:
        return True
    return _SHELL_SYNTAX.search(quoted) is not None or _SQL_COMMAND.match(quoted) is not None


# the marks that end the clause of the words after a "blocked" (:func:`_blocked_after`)
_BLOCKED_CLAUSE_END = re.compile(rb"[.!?](?:[ \t\n\r]|\Z)|[;:,()\[\]\n\r\"`]|\xe2\x80[\x9c\x9d\x93\x94]")


def _blocked_after(rest: bytes, i: int) -> list[bytes]:
    """The words of ``rest`` (lower-cased, after a quotation's closing mark) from its ``i``-th
    word (the one after a "blocked") to the end of its clause, at most eight."""
    end = _BLOCKED_CLAUSE_END.search(rest)
    return _words_of_clause(rest[:end.start()] if end is not None else rest)[i:i + 8]


def _blocked_as_prohibition(after: list[bytes], thing: bool = True) -> bool:
    """Does a "blocked" that ``after`` (the words after it in its clause) follow prohibit: no
    word of ``_BLOCKED_STATUS`` right after it, or a "by" naming a word of ``_BLOCKING_AGENTS``,
    or an "on" a place (``_BLOCKING_PLACES``) right after it, or of a command a place or a time
    past a determiner or a quantifier (the head of the noun, its last word of three at most, in
    ``_BLOCKING_SCOPES``, or a word of ``_BLOCKING_PLACES`` in it: ``on the main cluster``, ``on
    all clusters``, ``on weekdays``: red team 121, F16; ``on PR 12``, ``on the cluster upgrade``
    a status)? ``thing``: the quotation is named
    as a thing that waits and is no command (``PR "fix-login"``, :func:`_waiting_thing_near`);
    of a command, "blocked by", "until", "pending", "behind" prohibit (red team 120, F03:
    ``"make deploy" is blocked until further notice`` of a source saying to run it passed as a
    status; red team 121, F03: so does ``Task "make deploy" is ...``)."""
    if not after or after[0] not in _BLOCKED_STATUS:
        return True
    if after[0] != b"on" and not thing:
        return True
    if after[0] == b"by":
        return after[1:2] != [] and after[1] in _BLOCKING_AGENTS
    if after[0] != b"on":
        return False
    if after[1:2] != [] and after[1] in _BLOCKING_PLACES:
        # ("blocked on prod", "on main", of a thing that waits too; "on staging tests" a status:
        # the noun's head resolves, red team 123, F15)
        return not _resolving_head(after[1:])
    if thing:
        return False
    k = 1
    while k < len(after) and after[k] in _BLOCKED_ON_SKIPPED:
        k += 1
    if _resolving_head(after[k:]):
        return False  # ("on the main cluster upgrade", "on the weekly release": red team 123, F15)
    noun = list(itertools.takewhile(lambda w: w not in _BLOCKED_ON_ENDS, after[k:k + 3]))
    return bool(noun) and (noun[-1] in _BLOCKING_SCOPES or any(w in _BLOCKING_PLACES for w in noun))


def _resolving_head(words: list[bytes]) -> bool:
    """Is the noun ``words`` start (four words at most, up to a word of ``_BLOCKED_ON_ENDS``) of
    two words at least and headed (its last word) by a thing that resolves (``_RESOLVING_HEADS``:
    ``main cluster upgrade``, ``weekly release``, ``prod db migration``, ``staging tests``), a
    place or a time word in it a modifier (red team 123, F15: read as the place of a prohibition)?
    A noun ending in any other word is read as before (fail closed: ``main cluster today``)."""
    noun = list(itertools.takewhile(lambda w: w not in _BLOCKED_ON_ENDS, words[:4]))
    return len(noun) > 1 and noun[-1] in _RESOLVING_HEADS


# the heads of a noun a "blocked on" names that resolve, whatever place or time word modifies them
# (:func:`_resolving_head`)
_RESOLVING_HEADS = frozenset((
    b"upgrade", b"upgrades", b"release", b"releases", b"migration", b"migrations", b"test", b"tests", b"review",
    b"reviews", b"fix", b"fixes", b"approval", b"approvals", b"audit", b"audits", b"rollout", b"rollouts",
    b"merge", b"merges", b"build", b"builds", b"deploy", b"deploys", b"deployment", b"deployments", b"patch",
    b"patches", b"sign-off", b"signoff", b"ticket", b"tickets", b"issue", b"issues", b"pr", b"prs", b"bug",
    b"bugs", b"outage", b"incident", b"maintenance", b"freeze", b"update", b"updates", b"backup", b"restore",
    b"check", b"checks", b"rebuild", b"cutover", b"failover", b"investigation", b"decision"))


# the things a status "blocked by / until / pending" is said of, named before a quotation or right
# after it (``PR "fix-login" is blocked by review``, ``Job "nightly-build" is blocked until ...``,
# ``The "fix-login" PR ...``, ``Version "2.0" ...``)
_WAITING_THINGS = frozenset((b"pr", b"mr", b"job", b"ticket", b"issue", b"branch", b"task", b"pipeline", b"stage",
                             b"change", b"story", b"epic", b"request", b"merge", b"release", b"migration", b"step",
                             b"version", b"deploy", b"deployment", b"upgrade", b"rollout", b"commit", b"patch",
                             b"tag", b"build", b"milestone", b"rfc", b"feature", b"bug", b"changeset", b"changelist",
                             b"cl", b"diff", b"revision", b"prs", b"mrs", b"jobs", b"tickets", b"issues", b"branches",
                             b"tasks", b"releases", b"versions", b"builds", b"deploys", b"deployments", b"upgrades"))
# the words that end the stretch before a quotation where its thing is named (a sentence's end)
_THING_CUT = re.compile(rb"[.!?;\n][^.!?;\n]*\Z")
_HAS_LETTER = re.compile(rb"[0-9a-z]")


def _waiting_thing_near(text: bytes, at: int, quoted: bytes, rest: bytes) -> bool:
    """Is the quotation whose words (``quoted``, as written) start at ``text[at]`` and whose
    closing mark ``rest`` follows named as a thing that waits: no command line
    (:func:`_command_quoted`) and a word of ``_WAITING_THINGS`` among the four words before its
    opening mark in its sentence (``PR "fix-login"``, ``The PR titled "Fix login"``, ``PR #42
    "fix-login"``, ``The deploy of "v1.2"``: red team 121, F06, read only the last word) or the
    word right after its closing mark (``The "fix-login" PR``)? A PR, a ticket, an issue, a
    branch, a commit (``_NAMED_THINGS``) right before it (a number, ``titled``, ``named`` between)
    or right after it names it whatever its words (red team 123, F14: ``PR "make retries
    configurable"``, ``Ticket "find memory leak in parser"``, ``PR "Add --dry-run flag"`` read as
    commands); a step, a task, a migration, a job does not (red team 121, F03: ``Task "make
    deploy"``)."""
    if (run := _RUN_QUOTED.get()) is not None and _one_blank(quoted.strip(b" \t*_~")) == run:
        return False  # (its sources say to run it: a command, :func:`_blocked_of_a_run`)
    before = text[max(0, at - 64):at].lower()
    if (cut := _THING_CUT.search(before)) is not None:
        before = before[cut.start() + 1:]
    words = [w for w in _SENTENCE_WORD.findall(before) if _HAS_LETTER.search(w)][-4:]
    after = _words_of_clause(rest[:24])[:2]
    if after[:1] and after[0] in _NAMED_THINGS or after[:2] in _NAMED_PAIRS:
        return True  # (the "fix-login" PR)
    k = len(words)
    while k and (words[k - 1] in _NAME_LEADS or words[k - 1].lstrip(b"#").isdigit()):
        k -= 1
    if k and (words[k - 1] in _NAMED_THINGS or words[max(k - 2, 0):k] in _NAMED_PAIRS):
        return True  # (PR "make retries configurable", the pull request #42 titled "A")
    if _command_quoted(quoted):
        return False
    if any(w in _WAITING_THINGS for w in words):
        return True
    return after[:1] in ([w] for w in _WAITING_THINGS)


# the quotation :func:`_blocked_of_a_run` reads as a command whatever its words (its blanks made one)
_RUN_QUOTED: contextvars.ContextVar[bytes | None] = contextvars.ContextVar("_RUN_QUOTED", default=None)
# a verb of doing right before a quotation's opening marks (:func:`_blocked_of_a_run`)
_RUN_BEFORE = re.compile(rb"(?<![0-9a-z_'])(?:run|runs|ran|running|execute|executes|executed|executing|invoke|"
                         rb"invokes|invoked|launch|launches|launched)"
                         rb"[ \t]*(?:[\"'`*_]|\xe2\x80[\x9c\x98\x9e]|\xc2[\xab\xbb]|\xe3\x80[\x8a\x8c\x8e])*\Z")


def _blocked_of_a_run(text: bytes, at: int, quoted: bytes, sources: list[bytes]) -> bool:
    """Is the quotation ``quoted`` at ``text[at]``, read with no negation, one a "blocked" after it
    prohibits once it is read as a command, and one a source says to run (a verb of doing right
    before it: ``Run "invoke deploy" after review.``)? A quotation the source itself says to run
    is a command whatever its first word (red team 123, F03: ``The "invoke deploy" task is
    blocked until further notice.`` passed as the status of a task, ``invoke`` no command word).
    Read only where "blocked" follows it in its 256 bytes."""
    if b"blocked" not in text[at:at + 256].lower():
        return False
    needle = _one_blank(quoted.strip(b" \t*_~"))
    for source in sources:
        where, seen = source.find(needle), 0
        while where >= 0 and seen < _POLARITY_OCCURRENCES:
            if _whole_words_at(source, where, where + len(needle)):
                seen += 1
                if _RUN_BEFORE.search(source[max(where - 64, 0):where].lower()) is not None:
                    token = _RUN_QUOTED.set(needle)
                    try:
                        return _clause_negated(text, at)
                    finally:
                        _RUN_QUOTED.reset(token)
            where = source.find(needle, where + 1)
    return False


# the things whose name a quotation right after or before them is, whatever its words (a PR's
# title, a ticket's, a branch's, a commit's message: :func:`_waiting_thing_near`), and the words
# between such a thing and its name
_NAMED_THINGS = frozenset((b"pr", b"prs", b"mr", b"mrs", b"ticket", b"tickets", b"issue", b"issues", b"bug", b"bugs",
                           b"story", b"stories", b"branch", b"branches", b"commit", b"commits"))
_NAMED_PAIRS = ([b"pull", b"request"], [b"merge", b"request"], [b"pull", b"requests"], [b"merge", b"requests"])
_NAME_LEADS = frozenset((b"titled", b"named", b"called", b"entitled"))


_OMITTED_AFTER = frozenset(w + b"ed" for w in (b"skipp", b"omitt", b"ignor", b"miss", b"dropp", b"disabl",
                                               b"bypass", b"neglect", b"overlook")) | frozenset((b"forgotten",))


def _read_after(text: bytes, at: int, depth: int = 0) -> int:
    """What the words after the quotation whose words start at ``text[at]`` say of it, up to
    the end of its clause (``_AFTER_BREAK``): ``_AFTER_DENIED`` for a prohibition whose subject
    it is or stands in (a word of ``_PROHIBITED`` no negation denies, ``"A" is forbidden``, or
    a negated auxiliary going on to prohibit, ``"A" must never be run``, ``"A" isn't
    allowed``), within three words of it, or a report of none found a colon, comma or dash sets
    after it (``Scanned "A": no secrets found``; red team 116, F12, F13); ``_AFTER_OMITTED`` for
    an omission (``"A" be skipped``, ``"A" to be skipped``, ``"A" get skipped``: F11);
    ``_AFTER_NOTHING`` else. Read only past the closing mark :func:`_opens_clause` finds. A
    quotation that opens its clause and a list of quotations (``"A" and "B" must not be run``,
    ``"A", "B" or "C" is forbidden``) reads as the list's last item does (red team 118, F20); a
    negated verb of being before a participle of doing states it undone (``"A" was not tried``,
    ``"A" has never been run``), and so does a word of ``_UNDONE_AFTER`` (``"A" untried``: F10)."""
    window = text[at:at + 256].lower()
    m = re.search(rb"[\"'`]|\xe2\x80[\x9d\x99\xba\x9c]|\xc2[\xbb\xab]|\xe3\x80[\x8d\x8f\x89\x8b]", window)
    if m is None:
        return _AFTER_NOTHING
    rest = window[m.end():m.end() + 120]
    if depth < _LIST_ITEMS and (listed := _LISTED_AFTER.match(rest)) is not None and (
            depth or _opens_its_clause(text, at)):
        # a list of quotations that opens its clause, the predicate after its last item ("A" and
        # "B" must not be run: red team 118, F20, "A" read as no prohibition): read as that one's
        return _read_after(text, at + m.end() + listed.end(), depth + 1)
    aside = _SKIP_ASIDE.match(rest)
    if aside is not None:
        # (an omission or prohibition set after it by a dash or in brackets: ""A" - skip it", ""A"
        # (skip)": red team 119, F22)
        return _AFTER_OMITTED if aside.group(1) in (b"skip", b"omit") else _AFTER_FORBIDDEN  # ("never" too: ""A" (never)")
    report = _REPORT_AFTER.match(rest)
    if report is not None:
        said = _words_of_clause(report.group(1))
        for n in range(min(2, len(said))):
            if said[n] in (b"no", b"0", b"zero") and n < len(said) - 1 and _reports_none(said, n, len(said) - 1):
                return _AFTER_DENIED
        if said[:1] and said[0] in _PROHIBITED:
            return _AFTER_FORBIDDEN  # (a status read as the same after a verb of being: "PR "A": rejected")
        if said[:1] in ([b"not"], [b"never"]) and said[1:2] and said[1] in _DONE or said[:1] and said[0] in _UNDONE_AFTER:
            return _AFTER_DENIED  # (a status of it not done: "`A`: not run", red team 119, F24)
    cut = _AFTER_BREAK.search(rest)
    words = _words_of_clause(rest[:cut.start()] if cut is not None else rest)[:8]
    if not words:
        return _AFTER_NOTHING
    if words[0] in _UNDONE_AFTER:
        return _AFTER_DENIED
    if words[0] in _OMITTED_AFTER and (before := _SENTENCE_WORD.findall(text[max(at - 40, 0):at].lower())[-1:]) and (
            before[0] in _WANTS or before[0] in _HAVE_DONE):
        return _AFTER_OMITTED  # (the omission a wish asks for: "wants "A" skipped", "had "A" skipped")
    i = 1 if words[0] == b"to" and len(words) > 1 else 0
    if words[i] in (b"be", b"get", b"go", b"being") and i + 1 < len(words) and words[i + 1] in _OMITTED_AFTER:
        return _AFTER_OMITTED
    # a passive omission after a verb of being ("A" is skipped, "A" should be skipped), as "Skip
    # "A"" before it reads (red team 117, F04)
    o = next((o for o in range(min(4, len(words))) if words[o] not in _PASSIVE_LEAD), None)
    if o is not None and o > 0 and words[o] in _OMITTED_AFTER and words[o - 1] in _BEEN:
        return _AFTER_OMITTED
    held = next((n for n in range(min(3, len(words) - 1)) if (words[n], words[n + 1]) in _HELD), None)
    if held is not None and (held == 0 or words[held - 1] in _BE or words[held - 1] in _PASSIVE_LEAD):
        return _AFTER_FORBIDDEN  # (""A" is on hold", "put "A" on hold", ""A" is off-limits": red team 119, F22)
    if words[0] in (b"gets", b"get", b"got", b"getting") and words[1:2] == [b"blocked"] and _blocked_as_prohibition(
            _blocked_after(rest, 2), _waiting_thing_near(text, at, text[at:at + m.start()], rest)):
        return _AFTER_FORBIDDEN  # (""A" gets blocked": red team 119, F15)
    aux = next((i for i in range(min(4, len(words))) if (w := words[i].replace(b"\xe2\x80\x99", b"'")) in _AUXILIARIES
                or w in _HAVE), None)
    if aux is None:
        return _AFTER_NOTHING
    verb = words[aux].replace(b"\xe2\x80\x99", b"'")
    negated = verb.endswith(b"n't")
    prohibiting = _PROHIBITING_BE if verb in _BE else _PROHIBITING
    for n, word in enumerate(words[aux + 1:aux + 5], aux + 1):
        if word in _PROHIBITED or (word == b"blocked" and _blocked_as_prohibition(
                _blocked_after(rest, n + 1), _waiting_thing_near(text, at, text[at:at + m.start()], rest))):
            # ("is not forbidden": allowed; "blocked" too, but a status "blocked on" a thing: red
            # team 117, F04)
            return _AFTER_NOTHING if negated else _AFTER_FORBIDDEN
        if word in (b"not", b"never", b"no"):
            negated = True
        elif word == b"been" and verb in _HAVE:
            continue  # ("has not been tried", "has been forbidden")
        elif negated:
            if word in prohibiting and any(w in _OMITTED_AFTER for w in words[n + 1:n + 3]):
                # (an omission prohibited: ""A" must not be skipped", ""A" should never be
                # skipped" is to run it, red team 119, F26, read as the prohibition of "A")
                return _AFTER_NOTHING
            if word in prohibiting:
                return _AFTER_FORBIDDEN
            if word in _DONE and (verb in _BE or verb in _HAVE):
                return _AFTER_DENIED  # ("was not tried", "hasn't been run": a statement it was not done)
            return _AFTER_NOTHING
        elif word not in (b"now", b"still", b"strictly", b"absolutely", b"hereby", b"also", b"always"):
            return _AFTER_NOTHING
    return _AFTER_NOTHING


# the words that open a condition (a clause break of _CLAUSE_BREAK's): a negation set off by a
# comma after one is the condition's ("If not, run "A"", "When not, run "A"")
_CONDITIONS = frozenset((b"if", b"when", b"whenever", b"unless", b"until", b"whether", b"because", b"while",
                         b"before", b"after", b"since", b"though", b"although"))
# the words an "I" stresses a negation with ("and I mean do not", "I repeat"): an "I" with
# neither states a fact of its own (:func:`_emphatic_negation_before`)
_I_STRESS = frozenset((b"mean", b"repeat", b"say"))
# the words that may open a condition set off as an aside (:func:`_emphatic_negation_before`)
_EVEN = frozenset((b"even", b"only", b"not", b"and"))
# a negation that answers a question when it opens its sentence and a comma ends it ("No, run "A"")
_ANSWERS = frozenset(((b"no",), (b"not", b"at", b"all"), (b"never", b"again"), (b"not", b"again"),
                      (b"no", b"no"), (b"not", b"really")))


def _emphatic_negation_before(window: bytes, breaks: list[re.Match[bytes]], k: int) -> bool:
    """Does a short negation set off by commas (of ``_EMPHATIC`` words only, no verb of its own)
    stand right before the clause that ``breaks[k]``
    (a comma) opens, or two such: ``Never, ever run "A"``, ``Never, not even once, run "A"``,
    ``Do not, under no circumstances, run "A"``, ``You may not, and must not, run "A"`` (red
    team 116, F12: the comma ended the clause, and the negation with it)? A ``No,`` (or
    ``Not at all,``, ``Never again,``: ``_ANSWERS``) that opens its sentence is an answer (``No,
    run "A"``), and one after a word that opens a condition is the condition's (``If not, run
    "A"``, ``If you can't, run "A"``: red team 117, F17). A ``not even`` that opens such a segment sets off what follows
    it as well (``Don't ever, not even in staging, run "A"``), and the word ``once`` goes on
    it (``Never, not even once, run "A"``: red team 116, F12, ``once`` opened a clause)."""
    for _ in range(3):
        if breaks[k].group() != b",":
            return False
        j = k - 1
        while j >= 0 and breaks[j].group() == b"once":
            j -= 1
        if j >= 0 and breaks[j].group() in _CONDITIONS:
            if j > 0 and breaks[j - 1].group() == b"," and _EVEN.issuperset(
                    _words_of_clause(window[breaks[j - 1].end():breaks[j].start()])):
                k = j - 1  # (a condition set off as an aside: "Do not, even if the tests pass, run
                continue   # "A"": red team 117, F05; the negation before it is read)
            return False  # (a condition: "If not, run "A"", "If you can't, run "A"": red team 117, F17)
        segment = window[breaks[j].end() if j >= 0 else 0:breaks[k].start()]
        words = _words_of_clause(segment)
        if b"i" in words and not _I_STRESS.intersection(words):
            return False  # (a statement: "I can't, please run "A"")
        if not words or len(words) > _CLAUSE_WORDS or not (
                _EMPHATIC.issuperset(words) or (words[0] in (b"not", b"never") and words[1:2] == [b"even"])):
            return False  # (a clause of its own: "if the tests don't pass, run "A"", "do not push, then")
        if tuple(words) in _ANSWERS and (j < 0 or breaks[j].group() not in (b",", b"once")):
            return False  # (an answer that opens its sentence: "No, run "A"", "Not at all, run "A"")
        if _negation_among(words):
            return True
        k = j
        if k < 0:
            return False
    return False


def _code_spans_asked(table: Any) -> list[int]:
    """The rows of ``table`` (a derived block's) that are code spans of two words or more,
    none inside another, whose clause opens with a verb of doing (``_DOING``, an imperative),
    has one in its last two words before them, or holds a word of request before them
    (``_REQUESTING``): ``The user asked to run `make
    deploy``` claims what the user asked, where
    ``It names `rm -rf /``` names a thing (red team 117, F22: commands written in backticks
    escaped the polarity rule; red team 89, F07: a code span naming a thing is no claim). The
    candidates are found by numpy over the kind and start columns; each is read back at most
    256 bytes, as a quotation is."""
    data = table.data
    if b"`" not in data:
        return []
    starts = np.asarray(table.value_start)
    rows = np.flatnonzero((np.asarray(table.kind) == _KIND_QUOTE) & (starts > 0))
    if rows.size == 0:
        return []
    if not _may_ask_code_spans(data):
        return []
    buffer = np.frombuffer(data, dtype=np.uint8)
    rows = rows[buffer[starts[rows] - 1] == 0x60]
    out: list[int] = []
    code_end = -1
    ends = np.asarray(table.value_end)
    for r in rows.tolist():
        s, e = int(starts[r]), int(ends[r])
        if s < code_end:
            continue
        code_end = e
        if b"\n" in data[s:e]:
            continue
        if len(inside := _SENTENCE_WORD.findall(data[s:e].lower())) < 2:
            # one word (a flag, a name): asked only right after a denial, a verb that does a
            # command or a thing (``_ONE_WORD_DOING``), or a verb of doing before a flag, in its
            # clause ("Use `--dry-run`, never `--force`" -> "Use `--force`, never `--dry-run`":
            # red team 118, F11, accepted), a few bytes read back; "The function `parse`
            # returns", "Use `config.yaml` for settings" name a thing
            near = data[max(s - 1 - _NEAR_BYTES, 0):s - 1].lower()
            cut = max(map(near.rfind, _NEAR_BREAKS))
            near_words = _SENTENCE_WORD.findall(near, cut + 1)[-2:]
            if inside and near_words and (
                    _ONE_WORD_DOING.intersection(near_words)
                    or (data[s:s + 1] == b"-" and _DOING.intersection(near_words))
                    or any(_negation_words(w, 0, len(w)) or w in _BARE_NOT for w in near_words)):
                out.append(r)
            continue
        window = data[max(s - 256, 0):s - 1].lower()
        cut = None
        for cut in _CLAUSE_BREAK.finditer(window):
            pass
        words = _words_of_clause(window[cut.end() if cut is not None else 0:])
        # (or a verb of doing right before it, after a negation or a subject: "Never run `A`",
        # "We never run `A`" - red team 118, F01: a clause opening with its negation asked nothing)
        if ((words[:1] and words[0] in _DOING) or _DOING.intersection(words[-2:])
                or _REQUESTING.intersection(words[-_CLAUSE_WORDS:]) or _span_denied_or_done(data, s, window, cut, words)):
            out.append(r)
    return out


def _span_denied_or_done(data: bytes, s: int, window: bytes, cut: re.Match[bytes] | None, words: list[bytes]) -> bool:
    """Is the code span whose words start at ``data[s]`` (``window``: the lower-cased bytes
    before it, ``cut`` the last clause break there, ``words`` the clause's words) asked by a
    denial of doing that :func:`_code_spans_asked`'s verb test misses (red team 119, F02): a
    verb of doing (``_DOING_FORMS``: "running", "type") and a negation or prohibition among the
    clause's last words (``Avoid running `A```, ``Never run the command `A```, ``Never type
    `A```), the clause before a colon that introduces it (``Never run: `A```), or a
    prohibition or passive of doing after a span that opens its clause or follows such a verb
    (```A` must never be run``, ``Running `A` is forbidden``, ```A` may be run``)?"""
    if not words and cut is not None and cut.group() == b":":
        prev = None
        for prev in _CLAUSE_BREAK.finditer(window, 0, cut.start()):
            pass
        before = _words_of_clause(window[prev.end() if prev is not None else 0:cut.start()])
        if before and (before[0] in _DOING_FORMS or _DOING_FORMS.intersection(before[-3:])):
            return True
    if _SKIPPING.intersection(words[-2:]):
        return True  # (an omission asked: "Never skip `A`", "Skipping `A` is forbidden")
    tail = words[-_CLAUSE_WORDS:]
    if _DOING_FORMS.intersection(tail) and any(
            w in _BARE_NOT or w in _PROHIBITIONS or w in _SKIPPING or _negation_words(w, 0, len(w)) for w in tail):
        return True
    if words and not _DOING_FORMS.intersection(words[-2:]):
        return False
    if _read_after(data, s) != _AFTER_NOTHING:
        return True
    if words:
        return False
    close = data.find(b"`", s)
    after = _words_of_clause(data[close + 1:close + 60].lower()) if close >= 0 else []
    return bool(after) and after[0] in _MODALS_BEFORE_DONE and any(w in _DONE or w in _OMITTED_AFTER for w in after[1:4])


# the verbs of doing and their -ing forms a denial before a code span asks it by
# (:func:`_span_denied_or_done`), and the modals before a passive of doing after one
_DOING_FORMS = frozenset((b"run", b"execute", b"use", b"invoke", b"call", b"install", b"deploy", b"apply", b"launch",
                          b"start", b"push", b"delete", b"remove", b"do", b"try", b"type", b"enter", b"paste",
                          b"running", b"executing", b"using", b"invoking", b"calling", b"installing", b"deploying",
                          b"applying", b"launching", b"starting", b"pushing", b"deleting", b"removing", b"doing",
                          b"trying", b"typing", b"entering", b"pasting"))
_MODALS_BEFORE_DONE = frozenset((b"may", b"can", b"could", b"might", b"will", b"would", b"must", b"should", b"shall",
                                 b"is", b"are", b"was", b"were"))


# the bytes read back before a one-word code span, and the marks that end its clause there
# (:func:`_code_spans_asked`)
_NEAR_BYTES = 24
# the verbs of doing whose one-word object is a command or a thing acted on ("Run `reboot`",
# "Delete `cache.db`"), where "use", "try", "apply" take a name as often ("Use `config.yaml`")
_ONE_WORD_DOING = frozenset((b"run", b"execute", b"invoke", b"call", b"launch", b"delete", b"remove", b"deploy",
                             b"push", b"install", b"start"))
_NEAR_BREAKS = (b".", b",", b";", b":", b"!", b"?", b"(", b")", b"\n")


def _may_ask_code_spans(data: bytes) -> bool:
    """Do the words of ``data`` outside its code spans hold a verb of doing or a word of
    request, without which :func:`_code_spans_asked` asks none of its spans? One look at a
    block (or at many joined), not a clause reading a span: a summary listing facts in backticks
    (``Relevant: `a.md`, `retries=4```) cost the summarize benchmark 20 ms when every span's
    clause was read for a negation as well."""
    global _ASKING
    if _ASKING is None:
        import ahocorasick  # (only a block with a code span asks for it)

        automaton = ahocorasick.Automaton()
        for word in _DOING | _REQUESTING | _DOING_FORMS | _SKIPPING:
            automaton.add_word(f" {word.decode()} ", 0)
        automaton.make_automaton()
        _ASKING = automaton
    # the words outside the code spans (a line with an odd count of backticks whole: generous,
    # a block passing is read span by span), blank-separated; one Aho-Corasick pass to the first
    lines = data.split(b"\n")
    for k, line in enumerate(lines):
        if b"`" in line and len(pieces := line.split(b"`")) % 2:
            lines[k] = b" ".join(pieces[::2])
    words = b" " + b" ".join(lines).lower().translate(_WORD_BYTES_ONLY) + b" "
    return next(_ASKING.iter(words.decode("latin-1")), None) is not None


_ASKING: Any = None
# every byte but an ASCII letter, digit or "_" a blank: the words (``call_6578`` of a marker is
# one, and no "call"); those of _DOING and _REQUESTING are letters only
_WORD_BYTES_ONLY = bytes(c if chr(c).isascii() and (chr(c).isalnum() or c == 0x5F) else 0x20 for c in range(256))


# the verbs of doing whose imperative opening a clause makes a code span in it an instruction
# ("Run `make deploy` today"), and the words that make it a request someone made ("The user
# asked to run `make deploy`"), where "The cleanup runs `A`" states what a thing does
# (:func:`_code_spans_asked`)
_DOING = frozenset((b"run", b"execute", b"use", b"invoke", b"call", b"install", b"deploy", b"apply", b"launch",
                    b"start", b"push", b"delete", b"remove", b"approve", b"allow", b"permit", b"do", b"try"))
_REQUESTING = frozenset(w + e for w in (b"ask", b"want", b"request", b"instruct", b"approv", b"allow", b"permit",
                                         b"authoriz", b"authoris", b"tell", b"told", b"said", b"say", b"suggest",
                                         b"recommend", b"urg", b"encourag", b"insist")
                        for e in (b"", b"s", b"ed", b"es", b"e", b"d")) | frozenset((b"should", b"must", b"please",
                                                                                    b"ok", b"okay", b"fine"))


def _holds_mark(data: bytes, mark: bytes, tries: int = 16) -> bool:
    """``mark in data``, found from the occurrences of its last byte (memchr; a search of the
    whole mark runs at a twentieth of that speed), the whole search past ``tries`` of them."""
    last = mark[-1:]
    at, seen = data.find(last), 0
    while at >= 0:
        if seen == tries:
            return mark in data[at - len(mark) + 1:] if at >= len(mark) - 1 else mark in data
        if at >= len(mark) - 1 and data.startswith(mark, at - len(mark) + 1):
            return True
        at, seen = data.find(last, at + 1), seen + 1
    return False



def _holds_no_break_space(text: bytes) -> bool:
    """Does ``text`` hold a no-break, narrow no-break, thin, figure or medium mathematical space
    (the last two: red team 125, F10)? (:func:`_holds_mark` each,
    their last bytes being rare: ``in`` of their bytes read 79 KB of the rewrite benchmark's
    sources at ~1 GB/s, 0.2 ms)."""
    return (_holds_mark(text, b"\xc2\xa0", 256) or _holds_mark(text, b"\xe2\x80\xaf", 256)
            or _holds_mark(text, b"\xe2\x80\x89", 256) or _holds_mark(text, b"\xe2\x80\x87", 256)
            or _holds_mark(text, b"\xe2\x81\x9f", 256))

# the marks that open a quotation of :data:`_MARKED_QUOTATION` (« », the corner brackets, ‹, „,
# “, ‘), and ” (which closes one opened by a straight mark)
_OPENING_MARKS = (b"\xc2\xab", b"\xc2\xbb", b"\xe3\x80\x8c", b"\xe3\x80\x8e", b"\xe3\x80\x8a", b"\xe3\x80\x88",
                  b"\xe2\x80\xb9", b"\xe2\x80\x9e", b"\xe2\x80\x9c", b"\xe2\x80\x98", b"\xe2\x80\x9d")


def _as_quoted(text: bytes) -> bytes:
    """``text`` as a marked quotation's words are compared with their sources: runs of blanks
    and line breaks one blank, markdown bold (``**``, ``__``) left out, curly single marks and
    apostrophes straight, curly double marks straight."""
    text = (text.replace(b"**", b"").replace(b"__", b"").replace(b"\xe2\x80\x99", b"'").replace(b"\xe2\x80\x98", b"'")
            .replace(b"\xe2\x80\x9c", b'"').replace(b"\xe2\x80\x9d", b'"'))
    return _QUOTED_BLANKS.sub(b" ", text)


_QUOTED_BLANKS = re.compile(rb"(?:[ \t\r\n\f\v]|\xc2\xa0)+")
_ELISION = re.compile(rb"\xe2\x80\xa6|\.\.\.|\[\.\.\.\]|\[\xe2\x80\xa6\]")


def _whole_words_in(sources: list[bytes], needles: set[bytes]) -> set[bytes]:
    """The needles that stand as whole words (:func:`_whole_words_at`) in one of ``sources``, or
    right inside ``‘…’`` (whose closing mark is a word byte, as an apostrophe is)."""
    out: set[bytes] = set()
    for needle in needles:
        for text in sources:
            at = text.find(needle)
            while at >= 0 and not (_whole_words_at(text, at, at + len(needle)) or (
                    text[at - 3:at] == b"\xe2\x80\x98" and text[at + len(needle):at + len(needle) + 3] == b"\xe2\x80\x99")):
                at = text.find(needle, at + 1)
            if at >= 0:
                out.add(needle)
                break
    return out


def _quotation_polarities(sources: list[bytes], needles: set[bytes]) -> dict[bytes, set[bool]]:
    """Of each needle (a quotation's words): the answers of :func:`_clause_negated` at its
    occurrences in ``sources``, whole words, at most
    ``_POLARITY_OCCURRENCES`` a needle and a source, none asked once both answers are in. A few
    needles are found one by one; more in one Aho-Corasick pass a source (a summary repeating
    one quotation, or quoting thousands, reads each source once). An occurrence in a question
    (:func:`_in_question`) counts only when no other does."""
    states: dict[bytes, set[bool]] = {needle: set() for needle in needles}
    asked: dict[bytes, set[bool]] = {needle: set() for needle in needles}
    if len(needles) <= _FIND_EACH:
        for needle in needles:
            for text in sources:
                at, seen = text.find(needle), 0
                while at >= 0 and seen < _POLARITY_OCCURRENCES and len(states[needle]) < 2:
                    if _whole_words_at(text, at, at + len(needle)):
                        (asked if _in_question(text, at + len(needle)) else states)[needle].add(
                            _clause_negated(text, at))
                        seen += 1
                    at = text.find(needle, at + 1)
        return {needle: states[needle] or asked[needle] for needle in needles}
    import ahocorasick  # (only many quotations ask for it)

    automaton = ahocorasick.Automaton()
    for needle in needles:
        automaton.add_word(needle.decode("latin-1"), needle)
    automaton.make_automaton()
    for text in sources:
        seen: Counter[bytes] = Counter()
        for end, needle in automaton.iter(text.decode("latin-1")):
            at = end + 1 - len(needle)
            if (seen[needle] < _POLARITY_OCCURRENCES and len(states[needle]) < 2
                    and _whole_words_at(text, at, end + 1)):
                (asked if _in_question(text, end + 1) else states)[needle].add(_clause_negated(text, at))
                seen[needle] += 1
    return {needle: states[needle] or asked[needle] for needle in needles}


def _attempt_of_failures(text: bytes, at: int, sources: list[bytes], needle: bytes) -> bool:
    """Does the quotation at ``text[at]`` stand right after an attempt (``tried to run "A"``,
    ``attempted "A"``, ``tried running "A"``), and every occurrence of ``needle`` in
    ``sources`` (whole words, at most ``_POLARITY_OCCURRENCES`` a source, one at least) right
    after a failure (``failed to run "A"``, ``unable to run "A"``)? Trying is not succeeding:
    a failure states an attempt, and the summary that keeps the attempt and drops its outcome
    says nothing opposite (red team 120's polarity limits: ``Tried to run "A"`` of ``Failed to
    run "A"`` was refused as a negation dropped). ``forgot to``, ``neglected to`` state no
    attempt, and a prohibition none either (``Never run "A"``): the quotation is refused as
    before."""
    attempt = _ATTEMPT_BEFORE.search(text[max(at - 64, 0):at].lower())
    if attempt is None:
        return False
    # (the same act on both sides: "failed to revert "A"" states no attempt to run it, red team
    # 123, F01)
    verb = _act_stem(attempt.group(1) or attempt.group(2))
    found = False
    for source in sources:
        where, seen = source.find(needle), 0
        while where >= 0 and seen < _POLARITY_OCCURRENCES:
            if _whole_words_at(source, where, where + len(needle)):
                failure = _FAILURE_BEFORE.search(source[max(where - 64, 0):where].lower())
                if failure is None or _act_stem(failure.group(1)) != verb:
                    return False
                found = True
                seen += 1
            where = source.find(needle, where + 1)
    return found


def _act_stem(verb: bytes) -> bytes:
    """The act a verb names, its form aside: ``run``, ``running``, ``ran`` alike (``run``),
    ``execute`` and ``executing`` alike (``execut``), ``deploy`` and ``deploying``
    (:func:`_attempt_of_failures`)."""
    verb = _IRREGULAR_ACTS.get(verb, verb)
    if verb.endswith(b"ing") and len(verb) > 4:
        verb = verb[:-3]
        if len(verb) > 2 and verb[-1] == verb[-2] and verb[-1] not in b"aeiouls":
            verb = verb[:-1]  # (running, stopping; not calling, passing)
    return verb[:-1] if verb.endswith(b"e") and len(verb) > 2 else verb


_IRREGULAR_ACTS = {b"ran": b"run", b"did": b"do", b"made": b"make", b"built": b"build", b"began": b"begin",
                   b"wrote": b"write", b"went": b"go", b"gave": b"give", b"took": b"take"}
# the acts a sentence pointing at a fenced block asks or denies (:func:`_act_stem` of each)
_FENCE_ACTS = frozenset(_act_stem(verb) for verb in _STEPS | _DOING | {b"paste", b"type", b"enter", b"copy", b"do"})


# an attempt, then a verb (or its -ing form), then the quotation's opening marks, at the end of
# the text before the quotation (:func:`_attempt_of_failures`); and a failure so
_QUOTE_MARKS_AT_END = rb"[ \t]*(?:[\"'`*_]|\xe2\x80[\x9c\x98])*\Z"
# (a past attempt naming its act, "tried to run", "has tried running", "attempted to run": the
# imperative "Try to run "A" again." or "Attempt "A"" reports none, red team 123, F01)
_ATTEMPT_BEFORE = re.compile(rb"(?<![0-9a-z_'])(?:tried|attempted)"
                             rb"(?:[ \t]+to[ \t]+([a-z]+)|[ \t]+([a-z]+ing))" + _QUOTE_MARKS_AT_END)
_FAILURE_BEFORE = re.compile(rb"(?<![0-9a-z_'])(?:failed|fails|unable)[ \t]+to[ \t]+([a-z]+)" + _QUOTE_MARKS_AT_END)


def _in_question(text: bytes, end: int) -> bool:
    """Does the sentence that a quotation ending at ``text[end]`` stands in end in ``?``, within
    ``_QUESTION_REACH`` bytes? A question proposes or asks and says neither way: the
    assistant's ``Shall I run "A" now?`` beside the user's ``No. Do not run "A".`` read both
    ways, and a summary saying the user asked for "A" passed (red team 117, F26). Its reading
    counts only for a quotation no statement in the sources holds."""
    m = _SENTENCE_CLOSE.search(text, end, end + _QUESTION_REACH)
    return m is not None and m.group() == b"?"


# what ends a sentence after a quotation (:func:`_in_question`): a mark followed by a blank or
# the text's end (not the "." inside "app.py"), or a line break
_SENTENCE_CLOSE = re.compile(rb"[.!?](?=[\s\"'`)\]*_]|\Z)|\n")
_QUESTION_REACH = 256


# the occurrences of a quotation a source is asked at (:func:`_quotation_polarities`)
_POLARITY_OCCURRENCES = 32


def _whole_words_at(text: bytes, start: int, end: int) -> bool:
    """Does ``text[start:end]`` have no word byte touching it on either side (a guillemet or
    corner bracket, ``«A»``, ``「A」``, none)?"""
    return ((start == 0 or text[start - 1] not in _NOT_BEFORE_NEGATION
             or text[start - 2:start] in (b"\xc2\xab", b"\xc2\xbb") or text[start - 3:start] in _MARKS_OPENING)
            and (end == len(text) or text[end] not in _NOT_BEFORE_NEGATION
                 or text[end:end + 2] in (b"\xc2\xbb", b"\xc2\xab") or text[end:end + 3] in _MARKS_CLOSING))


_MARKS_OPENING = frozenset(("\u300c".encode(), "\u300e".encode(), "\u2039".encode(), "\u300a".encode(),
                            "\u3008".encode(), "\u201e".encode(), "\u201c".encode()))
_MARKS_CLOSING = frozenset(("\u300d".encode(), "\u300f".encode(), "\u203a".encode(), "\u300b".encode(),
                            "\u3009".encode(), "\u201c".encode(), "\u201d".encode()))


def _grouped(owners: list[int], rows: list[int]) -> list[tuple[int, list[int]]]:
    """(owner, its rows) of parallel lists sorted by owner."""
    out: list[tuple[int, list[int]]] = []
    for o, r in zip(owners, rows):
        if out and out[-1][0] == o:
            out[-1][1].append(r)
        else:
            out.append((o, [r]))
    return out


def _common_ends(pre: bytes, post: bytes) -> tuple[int, int]:
    """(head, tail): how many bytes ``pre`` and ``post`` share at their start, and at their
    end past those."""
    n = min(len(pre), len(post))
    if n > _COMPARED_BY_NUMPY:
        a = np.frombuffer(pre, dtype=np.uint8)
        b = np.frombuffer(post, dtype=np.uint8)
        differs = np.flatnonzero(a[:n] != b[:n])
        head = int(differs[0]) if differs.size else n
        differs = np.flatnonzero(a[a.size - n + head:][::-1] != b[b.size - n + head:][::-1])
        return head, int(differs[0]) if differs.size else n - head
    # (a short text: slices compared in a binary search, no array made)
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if pre[:mid] == post[:mid]:
            lo = mid
        else:
            hi = mid - 1
    head, lo, hi = lo, 0, n - lo
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if pre[len(pre) - mid:] == post[len(post) - mid:]:
            lo = mid
        else:
            hi = mid - 1
    return head, lo


# past this many bytes a text's common start and end are found by numpy (a few passes over
# arrays), below it by comparing slices (no array made)
_COMPARED_BY_NUMPY = 4096


def _negation_in_changed_stretch(pre: bytes, post: bytes) -> bool:
    """Does a negation (:func:`_negation_words`) stand where ``pre`` and ``post`` differ, on
    either side? Only that stretch is read, widened to whole words either end (the common
    start and end hold the same words, so no negation outside it was added or cut)."""
    head, tail = _common_ends(pre, post)
    start = head
    while start > 0 and (pre[start - 1] | 0x20) in _IN_WORD:
        start -= 1
    pre_end, post_end = len(pre) - tail, len(post) - tail
    while pre_end < len(pre) and (pre[pre_end] | 0x20) in _IN_WORD:
        pre_end += 1
        post_end += 1
    return bool(_denial_words(pre[start:pre_end].lower(), 0, pre_end - start)
                or _denial_words(post[start:post_end].lower(), 0, post_end - start))


def _changed_sentences(pre: bytes, post: bytes) -> tuple[int, int, int]:
    """(start, pre's stop, post's stop): the stretch of whole sentences (``_SENTENCE_END``)
    where the two texts differ, the same bytes before it and after it on both sides. A sentence
    end counts before the first changed byte only when the byte after it is common too (``a.b``
    against ``a. b`` ends a sentence on one side only)."""
    head, tail = _common_ends(pre, post)
    start = 0
    reach = 256
    while head and not start:
        lo = max(head - reach, 0)
        # (read up to the first changed byte only: a $ there ends no match before it)
        for m in _SENTENCE_END.finditer(pre, lo, head):
            if m.end() >= head:
                break
            start = m.end()
        if lo == 0:
            break
        reach *= 4
    at = len(pre) - tail
    m = _SENTENCE_END.search(pre, at)
    stop = len(pre) if m is None else m.end()
    return start, stop, stop - len(pre) + len(post)


def _sentence_ends(text: bytes, start: int, stop: int) -> list[int]:
    """Where each sentence of ``text[start:stop]`` ends (``_SENTENCE_END``; the last at ``stop``)."""
    ends = [m.end() for m in _SENTENCE_END.finditer(text, start, stop)]
    if not ends or ends[-1] < stop:
        ends.append(stop)
    return ends


_SENTENCE_WORD = re.compile(rb"[0-9a-z_'\x80-\xff]+")


def _sentence_words(text: bytes) -> tuple[bytes, ...]:
    """A sentence's words, lower-cased (``_SENTENCE_WORD``)."""
    return tuple(_SENTENCE_WORD.findall(text.lower()))


def _negations_unbalanced(pre: bytes, post: bytes, traded: list[tuple[bytes, bytes]] | None = None,
                          ) -> tuple[int, int, str, tuple[int, int], str] | None:
    """``None`` when ``post`` holds as many negations (:func:`_negation_words`) as ``pre``,
    counting neither a sentence the rewrite added whole (none of its words kept in the word
    alignment: "Nothing else changed." appended says nothing of the block's other sentences)
    nor one it moved whole (cut, and added elsewhere word for word). A sentence cut whole is
    counted: a prohibition dropped is a negation lost; unless post still says it word for word
    (a repeat deduplicated: ``Do not push. Do not push.`` to ``Do not push.``). Else (the two counts, the side holding
    more, the span in that side's text of its first negation counted, and its word).

    The texts are cut into sentences (``_SENTENCE_END``) where they differ, and those equal
    either end, whitespace aside, are passed over: only the changed sentences between are aligned word for word
    (:func:`_kept_words`, bounded as the I2 rules' alignment is), so a sentence appended to a
    long block reads that sentence (:func:`_changed_sentences`). ``traded``: given, the trade
    :func:`_negation_traded` finds in those sentences is appended to it when the counts
    balance."""
    if pre and post.startswith(pre) and (pre[-1] == 0x0A or (pre[-1] in b".!?" and post[len(pre):len(pre) + 1].isspace())):
        return None  # (whole sentences appended after the last one: each one new)
    start, pre_stop, post_stop = _changed_sentences(pre, post)
    pre_ends, post_ends = _sentence_ends(pre, start, pre_stop), _sentence_ends(post, start, post_stop)
    pre_starts, post_starts = [start, *pre_ends[:-1]], [start, *post_ends[:-1]]

    def same(a: int, b: int) -> bool:
        x, y = pre[pre_starts[a]:pre_ends[a]], post[post_starts[b]:post_ends[b]]
        return x == y or x.split() == y.split()

    n, m = len(pre_ends), len(post_ends)
    lo = 0
    while lo < n and lo < m and same(lo, lo):
        lo += 1
    hi = 0
    while hi < n - lo and hi < m - lo and same(n - 1 - hi, m - 1 - hi):
        hi += 1
    if lo == n - hi:
        return None  # (sentences only added: each one whole)
    pre_middle = [(pre_starts[k], pre_ends[k]) for k in range(lo, n - hi)]
    post_middle = [(post_starts[k], post_ends[k]) for k in range(lo, m - hi)]
    pre_lower, post_lower = pre.lower(), post.lower()
    pre_negs = [_denial_words(pre_lower, a, b) for a, b in pre_middle]
    post_negs = [_denial_words(post_lower, a, b) for a, b in post_middle]
    if not any(pre_negs) and not any(post_negs):
        return None
    pre_words = [_sentence_words(pre[a:b]) for a, b in pre_middle]
    post_words = [_sentence_words(post[a:b]) for a, b in post_middle]
    kept = _kept_words([w for ws in pre_words for w in ws], [w for ws in post_words for w in ws])
    kept_post = {k for k in kept if k >= 0}

    def whole(words: list[tuple[bytes, ...]], is_kept: Callable[[int], bool]) -> list[bool]:
        """Which sentences hold words and none of them kept: added (post) or cut (pre) whole."""
        out, at = [], 0
        for ws in words:
            out.append(bool(ws) and not any(is_kept(w) for w in range(at, at + len(ws))))
            at += len(ws)
        return out

    pre_whole = whole(pre_words, lambda w: kept[w] >= 0)
    post_whole = whole(post_words, kept_post.__contains__)
    moved = (Counter(ws for ws, w in zip(pre_words, pre_whole) if w)
             & Counter(ws for ws, w in zip(post_words, post_whole) if w)) if any(pre_whole) else Counter()
    counted_pre: list[tuple[int, int]] = []
    standing: set[tuple[bytes, ...]] | None = None
    for ws, w, negs in zip(pre_words, pre_whole, pre_negs):
        if w and moved[ws] > 0:
            moved[ws] -= 1  # (moved whole: the same sentence stands elsewhere in post)
            continue
        if w and negs:
            if standing is None:  # (every sentence of post, made once, and only for a negation cut whole)
                ends = _sentence_ends(post, 0, len(post))
                standing = {_sentence_words(post[a:b]) for a, b in zip([0, *ends[:-1]], ends)}
            if ws in standing:
                continue  # (a repeat cut: post still says it, word for word; red team 114, F07)
        counted_pre.extend(negs)
    counted_post = [span for w, negs in zip(post_whole, post_negs) if not w for span in negs]
    if len(counted_pre) == len(counted_post):
        if traded is not None and (trade := _negation_traded(
                b" ".join(pre[a:b] for a, b in pre_middle), b" ".join(post[a:b] for a, b in post_middle))):
            traded.append(trade)
        return None
    added = len(counted_post) > len(counted_pre)
    text, spans = (post, counted_post) if added else (pre, counted_pre)
    s, e = spans[0]
    return (len(counted_pre), len(counted_post), "post" if added else "pre", (s, e),
            text[s:e].decode("utf-8", "replace"))


def _negation_traded(pre: bytes, post: bytes) -> tuple[bytes, bytes] | None:
    """(a word denied now, a word denied before) when a rewrite that keeps a block's count of
    negations moved one from some words to others: a word that stood only in sentences without
    a denial (:func:`_denial_words`) in pre stands only in sentences with one in post, and
    another the other way round (``Run make test. Never run make deploy.`` -> ``Never run make
    test. Run make deploy.``: red team 118, F12, unquoted commands swapped across the negation,
    every negation kept). ``pre``, ``post``: the sentences where the texts differ
    (:func:`_negations_unbalanced` reads them), cut here at ``.``, ``!``, ``?``, ``;`` (not
    ``:``, which opens what a negation before it governs: ``Never run: make deploy``) and at a
    line break before a list item, a capital, a blank line or the end (a line of prose wrapped
    mid-sentence is no unit of its own: a rewrite re-wrapping it moves no negation); and at a
    contrast, a comma and ``but`` / ``yet`` / ``while`` (``Run make test, but never run make
    deploy`` -> ``Never run make test, but run make deploy``: red team 120, F14, one unit, no
    word moved). Every line break is a unit's end as well where both texts keep their lines,
    each line with the same words but its denials and none ending in a denial
    (:func:`_lines_kept`: ``Run make test`` / ``never run make deploy`` -> ``Never run make
    test`` / ``run make deploy``, F14; a re-wrap moving a word, or a denial to the end of the
    line before, keeps no line). Words of
    ``_NO_NAME`` and denials none. A sentence split, merged or reworded keeps each word on its
    side, or only adds it to the other (``Do not run A until B passes`` -> ``Run
    B; do not run A until it passes``): no trade. None else."""
    breaks = _NEGATION_LINE_BREAK if b"\n" in pre and b"\n" in post and _lines_kept(pre, post) else _NEGATION_UNIT_BREAK
    sides = []
    for text in (pre, post):
        denied: set[bytes] = set()
        plain: set[bytes] = set()
        at = 0
        for m in itertools.chain(breaks.finditer(text), (None,)):
            end = len(text) if m is None else m.start()
            unit = text[at:end].lower()
            at = end if m is None else m.end()
            for piece in _negation_pieces(unit):
                words, denials = _unit_words(piece)
                if not words:
                    continue
                if denials:
                    denied |= words
                else:
                    plain |= words
        sides.append((denied - plain, plain - denied))
    (pre_denied, pre_plain), (post_denied, post_plain) = sides
    now_denied = sorted(pre_plain & post_denied)
    now_plain = sorted(pre_denied & post_plain)
    if now_denied and now_plain:
        return now_denied[0], now_plain[0]
    return None


def _negation_pieces(unit: bytes) -> list[bytes]:
    """A lower-cased unit of :func:`_negation_traded` cut at a contrast or an aside the unit
    breaks do not end (red team 123, F08: ``Restart the api although you must not restart the
    db`` -> ``Restart the db although you must not restart the api`` was one unit, no word
    moved): ``although``, ``though``, ``whereas``; a dash set off by blanks (``-``, ``--``,
    ``–``, ``—``) or an em dash; a bracket opened after a blank, and closed; and a colon or
    ``and`` that the words after open with a denial (``Restart the api: do not restart the
    db``, ``Restart the api and never restart the db``; a colon otherwise opens what a negation
    before it governs, ``Never run this: make deploy``, and ``and`` joins what one governs,
    ``Never stop and restart the db``)."""
    if _PIECE_HINT.search(unit) is None:
        return [unit]
    pieces = []
    at = 0
    for m in _PIECE_BREAK.finditer(unit):
        if m.group("opens") is not None and not _opens_denied(unit, m.end()):
            continue
        pieces.append(unit[at:m.start()])
        at = m.end()
    pieces.append(unit[at:])
    return pieces


def _opens_denied(unit: bytes, at: int) -> bool:
    """Do the words of ``unit`` from ``at`` open with a denial (:func:`_denial_words`), past
    at most three auxiliaries or pronouns (``do not``, ``you must not``, ``don't``, ``never``)?"""
    lead = _DENIAL_LEAD.match(unit, at)
    stop = lead.end() if lead is not None else at
    head = unit[at:min(stop + 12, len(unit))]
    denials = _denial_words(head, 0, len(head))
    return bool(denials) and denials[0][0] <= stop - at + 3


# the bytes :func:`_negation_pieces` looks for before it cuts a unit, and its cuts: a contrast,
# a dash, a bracket, and a colon or "and" ("opens": only where a denial opens the words after)
_PIECE_HINT = re.compile(rb"though|whereas|[ \t]-|\xe2\x80[\x93\x94]|[ \t]\(|:[ \t]|[ \t]and[ \t]")
_PIECE_BREAK = re.compile(
    rb",?[ \t]+(?:(?:even[ \t]+)?(?:although|though)|whereas)(?![0-9a-z_'\x80-\xff])|[ \t]+(?:--?|\xe2\x80[\x93\x94])[ \t]+"
    rb"|[ \t]*\xe2\x80\x94[ \t]*|[ \t]+\([ \t]*|[ \t]*\)(?=[ \t.,;:!?]|\Z)|(?P<opens>:[ \t]+|,?[ \t]+and[ \t]+)")
# the auxiliaries and pronouns before a denial that opens words (:func:`_opens_denied`)
_DENIAL_LEAD = re.compile(rb"(?:(?:please|you|we|do|does|did|must|should|shall|will|can|then|also)[ \t]+){0,3}")


def _unit_words(unit: bytes) -> tuple[set[bytes], list[tuple[int, int]]]:
    """The words of a lower-cased unit of :func:`_negation_traded` (none of ``_NO_NAME``, its
    denials and contractions in ``n't`` none), and its denials (:func:`_denial_words`)."""
    words = {w for w in _SENTENCE_WORD.findall(unit) if w not in _NO_NAME}
    if not words:
        return words, []
    denials = _denial_words(unit, 0, len(unit))
    if denials:
        words.difference_update([unit[a:b] for a, b in denials]
                                + [w for w in words if w.endswith((b"n't", b"n\xe2\x80\x99t"))])
    return words, denials


def _lines_kept(pre: bytes, post: bytes) -> bool:
    """Do ``pre`` and ``post`` hold as many lines, each line of one the same words as the other's
    but for its denials (:func:`_unit_words`), and does no line of either end in a denial? Then
    each line is a unit of :func:`_negation_traded` (a rewrite kept every line and changed only
    what each denies); a re-wrap moves a word to another line, or a denial to the end of the
    line before (``You should`` / ``never run A`` -> ``You should never`` / ``run A``)."""
    pre_lines, post_lines = pre.lower().split(b"\n"), post.lower().split(b"\n")
    if len(pre_lines) != len(post_lines) or len(pre_lines) > _KEPT_LINES:
        return False
    for a, b in zip(pre_lines, post_lines):
        words_a, denials_a = _unit_words(a)
        words_b, denials_b = _unit_words(b)
        if words_a != words_b:
            return False
        for line, denials in ((a, denials_a), (b, denials_b)):
            if denials and (last := _LAST_WORD.search(line)) is not None and any(e >= last.end() for _, e in denials):
                return False
    return True


# where a unit of :func:`_negation_traded` ends
_NEGATION_UNIT_BREAK = re.compile(rb"[.!?;]+(?=\s|$)|\r?\n(?=[ \t]*(?:[-*+>#|A-Z]|\d{1,9}[.)]|\r?\n|$))"
                                  rb"|,\s*(?:[Bb]ut|[Yy]et|[Ww]hile)(?![0-9A-Za-z_'\x80-\xff])")
# and where both texts keep their lines (:func:`_lines_kept`), at every line break as well
_NEGATION_LINE_BREAK = re.compile(_NEGATION_UNIT_BREAK.pattern + rb"|\n")
# the last word of a line, and the most lines :func:`_lines_kept` compares
_LAST_WORD = re.compile(rb"[0-9a-z_'\x80-\xff]+(?=[^0-9a-z_'\x80-\xff]*\Z)")
_KEPT_LINES = 64


def _negations_distributed(pre: FactTable, post: FactTable) -> bool:
    """Do the two texts differ in their negations only as one negation over a list of quotations
    differs from one an item (``Do not run "A" or "B"`` -> ``Never run "A"; never run "B"``,
    ``Neither "A" nor "B" should be run``, ``"A" must not be run, nor "B"``: red team 118,
    F21, F20, refused as a negation added)? So when both hold the same quotations, each read
    the same way (:func:`_clause_negated`) as often, and as many denials
    (:func:`_denial_words`) that govern no quotation (:func:`_governed_quotation`). At most
    ``_DISTRIBUTED_QUOTATIONS`` quotations a side are read; more, and the count stands."""
    read = []
    for table in (pre, post):
        rows = np.flatnonzero(np.asarray(table.kind) == _KIND_QUOTE)
        if rows.size == 0 or rows.size > _DISTRIBUTED_QUOTATIONS:
            return False
        data = table.data
        spans = [(int(table.value_start[r]), int(table.value_end[r])) for r in rows.tolist()]
        read.append((data, spans, Counter((data[a:b], _clause_negated(data, a)) for a, b in spans)))
    if read[0][2] != read[1][2]:
        return False
    loose = []
    for data, spans, _ in read:
        lowered = data.lower()
        loose.append(sum(not _governed_quotation(lowered, spans, s, e)
                         for s, e in _denial_words(lowered, 0, len(lowered))))
    return loose[0] == loose[1]


def _governed_quotation(lowered: bytes, spans: list[tuple[int, int]], s: int, e: int) -> bool:
    """Does the denial at ``lowered[s:e]`` stand right before a quotation of ``spans`` (its
    words' start and end), only words of ``_BEFORE_GOVERNED`` between them, or right after
    one, only auxiliaries between (``"A" must not``, ``"A" has never``)? The quotation itself
    read as negated is asked of :func:`_negations_distributed`."""
    k = bisect.bisect_left(spans, (e, e))
    if k < len(spans):
        a = spans[k][0]
        between = lowered[e:a]
        if not _SENTENCE_BREAK_BYTES.search(between) and _BEFORE_GOVERNED.issuperset(_words_of_clause(between)):
            return True
    k = bisect.bisect_left(spans, (s, s)) - 1
    if k >= 0:
        between = lowered[spans[k][1]:s]
        if not _SENTENCE_BREAK_BYTES.search(between) and all(
                w in _AUXILIARIES or w in _HAVE for w in _words_of_clause(between)):
            return True
    return False


# the most quotations a side :func:`_negations_distributed` reads
_DISTRIBUTED_QUOTATIONS = 32
# what may stand between a denial and the quotation it governs (:func:`_governed_quotation`)
_BEFORE_GOVERNED = _DOING | frozenset((b"do", b"you", b"ever", b"should", b"must", b"to", b"we", b"i", b"the",
                                       b"command", b"commands", b"let", b"be", b"ran", b"tried"))
_SENTENCE_BREAK_BYTES = re.compile(rb"[.;!?\n]\s")


def _figures_by_context(table: FactTable, rows: list[int], figures: list[bytes],
                        bounds: tuple[np.ndarray, np.ndarray, np.ndarray, bytes]) -> dict[tuple[bytes, ...], tuple[Counter[bytes], int]]:
    """Each context of ``table``'s figures (``rows``, their values ``figures``): the two words
    that are no number either side of the figure (:func:`_word_bounds`, blank past the text's
    ends; ``3 of 5 ready``: ``of`` stands between the figures, each context its own) -> the
    figures standing there, and the first one's row."""
    starts, ends, _, lowered = bounds
    # Every word but those inside a figure: the "v2" of "v2.0.1" is the figure's, and read as a
    # word of the context it stood beside another figure's, so "v1.2.3, client v2.0.1" traded
    # kept no context (red team 115, F03); and the digits of a name are the context's ("01" of
    # "db-01 has 12 GB, db-02 has 34 GB": read as no word, both figures stood between "has" and
    # "gb", and the clauses swapped whole were refused as a trade, F04)
    fig_starts, fig_ends = table.start[rows], table.end[rows]
    k = np.searchsorted(fig_starts, starts, side="right") - 1
    inside = (k >= 0) & (ends <= fig_ends[np.maximum(k, 0)]) & (starts >= fig_starts[np.maximum(k, 0)])
    inside[0] = inside[-1] = False  # (the blank words either end)
    wordy = np.flatnonzero(~inside)
    spans = list(zip(starts[wordy].tolist(), ends[wordy].tolist()))  # (a blank word either end)
    words = [lowered[a:b] for a, b in spans]
    word_ends = ends[wordy]
    word_starts = starts[wordy]
    out: dict[tuple[bytes, ...], tuple[Counter[bytes], int]] = {}
    for row, figure in zip(rows, figures):
        k = int(np.searchsorted(word_ends, table.start[row], side="right")) - 1  # (the last word before)
        m = int(np.searchsorted(word_starts, table.end[row], side="left"))  # (the first word after)
        unit = _unit_at(lowered, int(table.end[row]))
        if unit is not None:
            # the unit is the figure's ("30 s" and "5 min" traded with their units: red team
            # 115, F03), and the words after its word the context (only blanks stand between the
            # figure and the unit, so the unit's word is the first after the figure)
            figure += b" " + unit
            m += 1
        context = (words[k - 1] if k >= 1 else b"", words[k] if k >= 0 else b"",
                   words[m] if m < len(words) else b"", words[m + 1] if m + 1 < len(words) else b"")
        found = out.get(context)
        if found is None:
            out[context] = (Counter((figure,)), row)
        else:
            found[0][figure] += 1
    return out


# Where a statement unit ends, for the figures re-paired with names (Gate._check_figures_repaired):
# a line break (a table row, a list item), a sentence's end, a semicolon, or a comma before a
# blank ("db-01 has 12 GB, db-02 has 34 GB": two clauses; "1,000" and "1.5" stay one figure),
# or a conjunction joining two clauses ("the primary has 12 GB free and the replica has 34 GB
# free", "primary (12 GB) and replica (34 GB)": red team 118, F03 and F06)
# (and "whilst", "although", "though", "yet", "&": red team 119, F16)
_UNIT_BREAK = re.compile(rb"\n|[.;!?](?=\s|$)|,(?=\s)|\s(?:and|but|while|whilst|whereas|although|though|yet|&)(?=\s)")
# a unit holding more figures than this names none of them (a line of measurements pairs every
# word with every figure: the pairs stay linear in the text)
_NAMED_FIGURES = 4
# the first this many name words of a unit are its names (a long sentence beside one figure)
_NAMES_A_UNIT = 16
# the words that name nothing: a rewording moves them between statements freely
_NO_NAME = frozenset(b"""a an the is are was were be been being has have had do does did of to
on at by for from with and or but not no as it its this that these those there here than then
so if into onto about per each every all any some my our your their his her we you they he she i
me us them also now just only off via vs""".split())
# (not "before" / "after", "up" / "down", "in" / "out", "over" / "under": each names one side of a
# measurement, "Latency before: 120 ms; after: 34 ms", red team 118, F04; but these, as
# prepositions before a figure, "retry after 30 s; time out in 60 s", name nothing: a name only
# as a label, _labels, red team 119, F07)
_SIDES = frozenset(b"before after in out over under".split())


# a dash or an arrow between a label and its figure ("after - 34 ms", "after -- 34 ms", "after — 34
# ms", "after -> 34 ms", "after → 34 ms", "after ≈ 34 ms"), a currency or approximation sign
# before the figure ("after - $34", "after - ~34 ms": red team 121, F09)
# (red team 123, F09: "~", "⇒", "≃", "is"/"was" as well, and a currency's code before the figure)
_LABEL_DASH = re.compile(rb"(?:-{1,2}>?|=>|~|\xe2\x80[\x93\x94]|\xe2\x86\x92|\xe2\x87\x92|\xe2\x89[\x88\x83]"
                         rb"|(?:is|was)(?=[ \t]))[ \t]*"
                         rb"(?:[$~]|\xe2\x82\xac|\xc2\xa3|\xe2\x89\x88|(?:usd|eur|gbp)[ \t])?[ \t]*[0-9]")


def _labels(lowered: bytes, a: int, b: int) -> bool:
    """Is the word ``lowered[a:b]`` a label: followed by ``:``, ``=``, a table cell's ``|`` or a
    dash before its figure, or first on its line or in its cell (list and quote marks before it)?"""
    j, n = b, len(lowered)
    while j < n and lowered[j] in b" \t*_`":
        j += 1
    if j < n and (lowered[j] in b":=|" or _LABEL_DASH.match(lowered, j) is not None):
        return True  # (or a dash before its figure: "before - 120 ms", red team 120, F09)
    while a > 0 and lowered[a - 1] in b" \t*_`>#-+":
        a -= 1
    return a == 0 or lowered[a - 1] in b"\n|"


def _joins_figures(lowered: bytes, fig_ends: list[int], fig_starts: list[int], at: int, end: int) -> bool:
    """Does a conjunction from ``at`` to ``end`` stand right after a figure, or a figure and one
    word (its unit: ``12 GB and``), and right before the word of the next figure (``and 34
    GB``, ``and react@18.2.0``), so that it joins figures rather than clauses? A name after it
    starts a clause (red team 119, F01: ``Primary: 12 GB and replica: 34 GB`` with the names
    swapped was accepted)."""
    k = bisect.bisect_right(fig_ends, at) - 1
    if k < 0 or _UNIT_ONLY.fullmatch(lowered, fig_ends[k], at) is None:
        return False
    n = bisect.bisect_left(fig_starts, end)
    return n < len(fig_starts) and _FIGURES_WORD.fullmatch(lowered, end, fig_starts[n]) is not None


# what may stand between a figure and a conjunction that joins it to the next figure
_UNIT_ONLY = re.compile(rb"[ \t]*[a-z%]{0,12}")
# what may stand between that conjunction and the next figure: blanks, then the start of its word
# ("$", "react@", "v")
_FIGURES_WORD = re.compile(rb"[ \t]+[^\s]{0,24}")


def _figure_label(table: FactTable, row: int, lowered: bytes) -> tuple[bytes, bytes]:
    """A figure as :func:`_figures_by_name` pairs it: (its fact's fingerprint, the unit after
    it or empty)."""
    return table.fp_fact[row].tobytes(), _unit_at(lowered, int(table.end[row])) or b""


def _figures_by_name(table: FactTable, rows: list[int],
                     bounds: tuple[np.ndarray, np.ndarray, np.ndarray, bytes]) -> dict[bytes, set[tuple[bytes, bytes]]]:
    """Each name of ``table``'s text (a word no figure holds and not in ``_NO_NAME``) -> the
    figures (of ``rows``, each as :func:`_figure_label`) that stand in a statement unit
    (``_UNIT_BREAK``) with it; a clause with no figure before a comma is the next clause's
    holding figures, only commas between. A unit of more than ``_NAMED_FIGURES`` figures names none, and
    only its first ``_NAMES_A_UNIT`` names are read: the pairs are at most ``_NAMES_A_UNIT *
    _NAMED_FIGURES`` a unit, linear in the text."""
    starts, ends, _, lowered = bounds
    if not rows:
        return {}
    fig_starts, fig_ends = table.start[rows], table.end[rows]
    # (a conjunction right after a figure, or its unit, joins figures, not clauses:
    # "lodash@4.17.21 and react@18.2.0 in the lockfile", "sizes 12 GB and 34 GB on the primary"
    # are one statement each, reordered freely)
    ends_sorted, starts_sorted = sorted(fig_ends.tolist()), sorted(fig_starts.tolist())
    found = [(m.start(), m.group() == b",") for m in _UNIT_BREAK.finditer(lowered)
             if len(m.group()) == 1 or m.group()[:1] not in b" \t\r\n"
             or not _joins_figures(lowered, ends_sorted, starts_sorted, m.start(), m.end())]
    breaks = np.array([at for at, _ in found], dtype=np.int64)
    fig_unit = np.searchsorted(breaks, fig_starts, side="left").tolist()
    by_unit: dict[int, list[tuple[bytes, bytes]]] = {}
    by_unit_all = by_unit
    first_at: dict[int, int] = {}
    for unit, row, at in zip(fig_unit, rows, fig_starts.tolist()):
        by_unit.setdefault(unit, []).append(_figure_label(table, row, lowered))
        first_at.setdefault(unit, at)
    with_figures = np.fromiter(sorted(by_unit), dtype=np.int64)
    many = [u for u, f in by_unit.items() if len(f) > _NAMED_FIGURES]
    by_unit = {u: f for u, f in by_unit.items() if len(f) <= _NAMED_FIGURES}
    if not by_unit and not many:
        return {}
    w_starts, w_ends = starts[1:-1], ends[1:-1]  # (not the blank words either end)
    k = np.searchsorted(fig_starts, w_starts, side="right") - 1
    kk = np.maximum(k, 0)
    inside = (k >= 0) & (w_starts >= fig_starts[kk]) & (w_ends <= fig_ends[kk])
    out: dict[bytes, set[tuple[bytes, bytes]]] = {}
    if many:
        _name_table_rows(out, many, first_at, by_unit_all, lowered, w_starts, w_ends, inside)
    if not by_unit:
        return out
    w_unit = np.searchsorted(breaks, w_starts, side="left")
    # a clause of names and no figure before a comma is the next clause's that holds figures,
    # if only commas stand between ("db-01, 12 GB; db-02, 34 GB": each name its own clause)
    hard = np.zeros(breaks.size + 1, dtype=np.int64)
    np.cumsum(np.fromiter((not soft for _, soft in found), dtype=np.int64, count=len(found)), out=hard[1:])
    nxt = np.searchsorted(with_figures, w_unit, side="left")
    nxt_unit = with_figures[np.minimum(nxt, with_figures.size - 1)]
    joined = (nxt < with_figures.size) & (hard[np.minimum(nxt_unit, breaks.size)] == hard[w_unit])
    w_unit = np.where(joined, nxt_unit, -1)
    keep = np.flatnonzero(~inside & joined & np.isin(w_unit, np.fromiter(by_unit, dtype=np.int64)))
    named: dict[int, int] = {}
    for a, b, unit in zip(w_starts[keep].tolist(), w_ends[keep].tolist(), w_unit[keep].tolist()):
        word = lowered[a:b]
        if word in _NO_NAME or named.get(unit, 0) >= _NAMES_A_UNIT or word in _SIDES and not _labels(lowered, a, b):
            continue
        named[unit] = named.get(unit, 0) + 1
        out.setdefault(word, set()).update(by_unit[unit])
    return out


# the label of a table row's figures read as one (_name_table_rows): a marker no fact's
# fingerprint starts with, then each figure's label
_ROW_FIGURES = b"\x00row"


def _row_first(label: tuple[bytes, bytes]) -> tuple[bytes, bytes]:
    """The first figure's label (:func:`_figure_label`) of a row's label (``_ROW_FIGURES``)."""
    key = label[0]
    at = len(_ROW_FIGURES) + _FP_BYTES
    end = key.find(b"\x00", at + 1)
    return key[len(_ROW_FIGURES):at], key[at + 1:end if end >= 0 else len(key)]


# a fact's fingerprint, in bytes (FactTable.fp_fact: two uint64)
_FP_BYTES = 16


def _name_table_rows(out: dict[bytes, set[tuple[bytes, bytes]]], units: list[int], first_at: dict[int, int],
                     by_unit: dict[int, list[tuple[bytes, bytes]]], lowered: bytes, w_starts: np.ndarray,
                     w_ends: np.ndarray, inside: np.ndarray) -> None:
    """Name the figures of each unit of ``units`` (more than ``_NAMED_FIGURES`` figures) that
    is a markdown table row (its line starts with ``|``) by the words of the row's first cell,
    if it holds no figure: a row of metrics holds five figures or more, and its first cell
    names them all (red team 118, F05: two rows' names swapped were accepted). The row's
    figures are one label, in order (``_ROW_FIGURES``), so a name is paired with one label a
    row, at most ``_NAMES_A_UNIT`` names a row: linear in the text. Prose with many figures
    names none of them, as before."""
    cells: list[tuple[int, int, int]] = []  # (unit, the first cell's start, its end)
    bodies: list[tuple[int, int]] | None = None  # (the tables' rows without outer pipes, read once)
    for unit in units:
        at = first_at[unit]
        line = lowered.rfind(b"\n", 0, at) + 1
        bar = lowered.find(b"|", line, at)
        if bar < 0:
            continue  # (no table row: prose)
        if lowered[line:bar].strip(b" \t"):
            # a row without its outer pipes ("primary | 12 GB | 4 | 2 | 8"), read only in a table
            # a delimiter row makes one (red team 120, F15): its first cell opens the line
            if bodies is None:
                bodies = _pipeless_table_bodies(lowered)
            k = bisect.bisect_right(bodies, (line, len(lowered))) - 1
            if k < 0 or not bodies[k][0] <= line < bodies[k][1]:
                continue  # (a line not opening with a cell, outside a table)
            bar = line - 1
        cell_end = lowered.find(b"|", bar + 1, at)
        if cell_end < 0:
            continue  # (the first figure is in the first cell: no name cell)
        cells.append((unit, bar + 1, cell_end))
    if not cells:
        return
    # (the words of every first cell, in one search a side)
    firsts = np.searchsorted(w_starts, [c[1] for c in cells], side="left").tolist()
    lasts = np.searchsorted(w_starts, [c[2] for c in cells], side="left").tolist()
    starts_at, ends_at, inside_at = w_starts.tolist, w_ends.tolist, inside.tolist
    ws, we, wi = starts_at(), ends_at(), inside_at()
    for (unit, _, _), a, b in zip(cells, firsts, lasts):
        label = (_ROW_FIGURES + b"\x00".join(fp + b"\x01" + u for fp, u in by_unit[unit]), b"")
        named = 0
        for w in range(a, min(b, a + 4 * _NAMES_A_UNIT)):
            if wi[w]:
                continue
            word = lowered[ws[w]:we[w]]
            if word in _NO_NAME:
                continue
            out.setdefault(word, set()).add(label)
            named += 1
            if named >= _NAMES_A_UNIT:
                break


def _pipeless_table_bodies(text: bytes) -> list[tuple[int, int]]:
    """The (start, end) of the body of each markdown table of ``text`` whose delimiter row holds
    a ``|`` (``---|---``, with or without outer pipes), after a header row holding one: its rows,
    each a line with a ``|``, to the first line without one. In order; one pass over the text."""
    out: list[tuple[int, int]] = []
    n = len(text)
    for rule in _TABLE_RULE.finditer(text):
        if b"|" not in rule.group() or rule.start() < 2 or (out and rule.start() < out[-1][1]):
            continue
        header_start = text.rfind(b"\n", 0, rule.start() - 1) + 1
        if b"|" not in text[header_start:rule.start() - 1]:
            continue
        start = at = rule.end() + 1
        while at < n:
            end = text.find(b"\n", at)
            end = n if end < 0 else end
            if b"|" not in text[at:end]:
                break
            at = end + 1
        if at > start:
            out.append((start, min(at, n)))
    return out


def _repaired_figures(before: dict[bytes, set[Any]], after: dict[bytes, set[Any]]) -> tuple[bytes, Any, Any, bytes] | None:
    """(name, figure it lost, figure it gained, the other name) where two names of both texts
    traded figures: one stood with ``f`` and not ``g`` before and with ``g`` and not ``f``
    after, and the other the other way round; or None. A name beside more than
    ``_NAMED_FIGURES`` figures on either side is not read (each name's lost x gained pairs
    stay bounded).

    Names that rotated their figures (three or more: ``Primary: 12 GB; replica: 34 GB; standby:
    56 GB`` -> ``Standby: 12 GB; primary: 34 GB; replica: 56 GB``, red team 118, F07) traded no
    pair, but each name's loss is another's gain: a cycle of the figures, each edge ``f -> g``
    a name that lost ``f`` and gained ``g``. Any cycle holds one of distinct names (a name twice
    in it is a shortcut: it lost the first edge's figure and gained the last's), so one walk
    of the graph finds it; then (a name of it, the figure it lost, the figure it gained, the
    name that gained the figure it lost)."""
    trades: dict[tuple[Any, Any], bytes] = {}
    edges: dict[Any, list[tuple[Any, bytes]]] = {}
    for name, was in before.items():
        now = after.get(name)
        if now is None or now == was or len(was) > _NAMED_FIGURES or len(now) > _NAMED_FIGURES:
            continue
        lost, gained = was - now, now - was
        for f in lost:
            for g in gained:
                other = trades.get((g, f))
                if other is not None:
                    return name, f, g, other
                trades[(f, g)] = name
                edges.setdefault(f, []).append((g, name))
    if len(trades) < 3:
        return None  # (a cycle of distinct names other than a pair has three edges or more)
    cycle = _figure_cycle(edges)
    if cycle is None:
        return None
    # (each name once: a name twice is a shortcut from its first edge's figure to its last's)
    while True:
        seen: dict[bytes, int] = {}
        for k, (_, _, name) in enumerate(cycle):
            if name in seen:
                first = seen[name]
                cycle[first:k + 1] = [(cycle[first][0], cycle[k][1], name)]
                break
            seen[name] = k
        else:
            break
    f, g, name = cycle[0]
    return name, f, g, cycle[-1][2]


def _figure_cycle(edges: dict[Any, list[tuple[Any, bytes]]]) -> list[tuple[Any, Any, bytes]] | None:
    """A cycle of the graph ``edges`` (figure -> [(figure, the name of the edge)]) as its edges
    ``(from, to, name)`` in order, or None: one depth-first walk, each figure left once."""
    state: dict[Any, int] = {}  # 1: on the walk's path, 2: done
    for root in edges:
        if state.get(root):
            continue
        path: list[tuple[Any, Any, bytes]] = []
        stack = [(root, iter(edges.get(root, ())))]
        state[root] = 1
        while stack:
            node, it = stack[-1]
            step = next(it, None)
            if step is None:
                state[node] = 2
                stack.pop()
                if path:
                    path.pop()
                continue
            to, name = step
            seen = state.get(to)
            if seen == 1:  # (back on the path: the cycle from ``to`` to here, and this edge)
                at = next((k for k, e in enumerate(path) if e[0] == to), 0)
                return path[at:] + [(node, to, name)]
            if seen is None:
                state[to] = 1
                path.append((node, to, name))
                stack.append((to, iter(edges.get(to, ()))))
    return None


# a pip requirement (PEP 508, red teams 115 F08, 117 F14/F10): a name (a letter first: `3 < 5` is
# none, nor `2to3`); its extras, glued
# (`requests[socks]`), after blanks or markdown-escaped (`requests [socks]`, `requests\[socks\]`;
# those two must start with a letter: "the list [1, 2] >= 3" is no requirement); a separator a
# kv line or metadata puts before the specifier set (`python_requires = >=3.8`,
# `Django (>=3.2,<4.2)`); then the specifier set: a comparison and a version (quoted in an
# environment marker, `python_version<'3.9'`), blanks allowed around the comparison, and every
# further clause after `,` and blanks or after blanks alone (a kv line's `=` separator not before
# another `=`: it took the first of `===`, arbitrary equality, and read `==`; red team 120, F17)
_REQ_OP = rb"(?:===|==|!=|~=|>=|<=|>|<)"
_REQ_VERSION = rb"""['"]?v?[0-9](?:[A-Za-z0-9.*+!_\-]*[A-Za-z0-9*])?['"]?"""
_REQ_EXTRA = rb"[A-Za-z0-9._,\- \t]"
# a requirement's name and extras (groups 1-4), and its specifier set (group 5, after the
# separator a requirement allows before it): shared with _MARKED_HEAD
_REQ_NAME_EXTRAS = (
    rb"(?<![A-Za-z0-9._\-\[@/\\])([A-Za-z](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)"
    rb"(?:\[(" + _REQ_EXTRA + rb"*)\]|[ \t]*\\\[([A-Za-z]" + _REQ_EXTRA + rb"*)\\\]|[ \t]+\[([A-Za-z]"
    + _REQ_EXTRA + rb"*)\])?")
_REQ_SPECIFIERS = (rb"[ \t]*(?:[=:](?!=)[ \t]*['\"]?|\([ \t]*)?"
                   rb"(" + _REQ_OP + rb"[ \t]*" + _REQ_VERSION + rb"(?:(?:[ \t]*,[ \t]*|[ \t]+)" + _REQ_OP
                   + rb"[ \t]*" + _REQ_VERSION + rb")*)")
_REQUIREMENT = re.compile(_REQ_NAME_EXTRAS + _REQ_SPECIFIERS)
_REQ_CLAUSE = re.compile(rb"(" + _REQ_OP + rb")[ \t]*['\"]?(v?[0-9](?:[A-Za-z0-9.*+!_\-]*[A-Za-z0-9*])?)")
# (no requirement without a comparison and a digit after it: one search of a text, most texts)
# (a comparison: ==, !=, ~=, <=, >=, < or >; led by one set of bytes, which the engine scans for,
# three times as fast as an alternation of the operators)
_REQUIREMENT_HINT = re.compile(rb"""[<>=!~](?:(?<=[<>])=?|=)[ \t(]*['"]?v?[0-9]""")
_PEP503_RUN = re.compile(rb"[-_.]+")


# the comparison signs of Unicode, as their ASCII (red team 118, F13: "django ≥ 3.2" -> "django ≤
# 3.2" was no requirement changed; red team 119, F12: "≧ ≦" and the full-width "＞＝ ＜＝", which
# a CJK input method types, neither): the full-width pairs before the signs alone
_UNICODE_COMPARISONS = ((b"\xe2\x89\xa5", b">="), (b"\xe2\x89\xa4", b"<="), (b"\xe2\x89\xa0", b"!="),
                        (b"\xe2\xa9\xbe", b">="), (b"\xe2\xa9\xbd", b"<="), (b"\xe2\x89\xa7", b">="),
                        (b"\xe2\x89\xa6", b"<="), (b"\xef\xbc\x81\xef\xbc\x9d", b"!="), (b"\xef\xbc\x9e", b">"),
                        (b"\xef\xbc\x9c", b"<"), (b"\xef\xbc\x9d", b"="), (b"\xef\xbd\x9e", b"~"))


def _has_unicode_comparison(text: bytes) -> bool:
    """Might ``text`` hold a sign of ``_UNICODE_COMPARISONS``? (Their lead bytes: a byte test.)"""
    return b"\xe2" in text or b"\xef\xbc" in text or b"\xef\xbd" in text


def _ascii_comparisons(text: bytes) -> bytes:
    """``text`` with ``≥ ≤ ≠ ⩾ ⩽ ≧ ≦`` and the full-width ``＞ ＜ ＝ ！＝ ～`` written ``>= <= !=``
    and ``> < = != ~``: the requirement rule reads both alike."""
    if not _has_unicode_comparison(text):
        return text
    for sign, ascii in _UNICODE_COMPARISONS:
        text = text.replace(sign, ascii)
    return text


def _requirements(text: bytes) -> dict[tuple[bytes, ...], str]:
    """The pip requirements of ``text`` (``_REQUIREMENT``), each as pip reads it -> its text:
    (the name by PEP 503: lower-cased, a run of ``-``, ``_``, ``.`` one ``-``; its extras the
    same way, sorted and joined by ``,``; then each clause of its specifier set, sorted, as its
    comparison and its version lower-cased, quotes aside). Read only where a comparison stands
    before a digit (``_REQUIREMENT_HINT``)."""
    out: dict[tuple[bytes, ...], str] = {}
    seen: set[bytes] = set()  # (a requirement written again the same way: its key once)
    for m in _requirement_matches(_ascii_comparisons(text)):
        written = m.group(0)
        if written not in seen:
            seen.add(written)
            out.setdefault(_requirement_key(m), written.decode("utf-8", "replace"))
    if _may_hold_markers(text):
        for key, said in _markers(text):
            out.setdefault(key, said)
    return out


# an environment marker's comparison of a string (PEP 508: ``sys_platform == 'linux'``,
# ``'linux' in sys_platform``; red team 118, F22: the requirement pattern wants a digit after the
# comparison, so ``== 'linux'`` -> ``!= 'linux'`` changed nothing the gate read). A version
# compared (``python_version < '3.9'``) is the requirement pattern's; the legacy dotted names
# (``sys.platform``) are the same variables
_MARKER_VARIABLE = (rb"(?:python_version|python_full_version|os[._]name|sys[._]platform|platform[._]release"
                    rb"|platform[._]system|platform[._]version|platform[._]machine|platform[._]python_implementation"
                    rb"|python_implementation|implementation_name|implementation_version|extra)")
_MARKER_OP = rb"(===|==|!=|~=|>=|<=|<|>|not[ \t]+in|in)"
_MARKER_STRING = rb"""(['"])((?!v?[0-9])[^'"\n]*)"""
_MARKER = re.compile(
    rb"(?<![A-Za-z0-9_.])(" + _MARKER_VARIABLE + rb")[ \t]*" + _MARKER_OP + rb"[ \t]*" + _MARKER_STRING + rb"\3"
    rb"|" + _MARKER_STRING + rb"\5[ \t]*" + _MARKER_OP + rb"[ \t]*(" + _MARKER_VARIABLE + rb")(?![A-Za-z0-9_])")
# (no marker without one of its variables' words: one search of a text, most texts)
_MARKER_HINT = re.compile(rb"(?:platform|_name|_version|implementation|extra)[A-Za-z_.]*[ \t]*(?:[=!<>~]=|[<>]|in\b|not\b)"
                          rb"|['\"][ \t]*(?:[=!<>~]=|[<>]|in|not[ \t]+in)[ \t]+(?:python|os|sys|platform|implementation|extra)")
def _may_hold_markers(text: bytes) -> bool:
    """Whether ``text`` may hold an environment marker's string comparison (:data:`_MARKER`): a
    quote, and a comparison's sign or the ``_`` of a variable compared by ``in`` (byte scans,
    most texts), one of the words of every marker variable compared to a string (a Python
    version is compared to digits: the requirement pattern's), then the hint."""
    return ((b"'" in text or b'"' in text) and (b"=" in text or b"<" in text or b">" in text or b"_" in text)
            and (b"platform" in text or b"os_name" in text or b"extra" in text or b"implementation" in text
                 or b"os.name" in text) and _MARKER_HINT.search(text) is not None)


# a comparison read from the string's side: the same comparison from the variable's
_MARKER_MIRROR = {b"<": b">", b">": b"<", b"<=": b">=", b">=": b"<=", b"in": b"contains", b"not in": b"lacks"}


def _markers(text: bytes) -> Iterator[tuple[tuple[bytes, ...], str]]:
    """The string comparisons of the environment markers in ``text`` (:data:`_MARKER`), each
    as a key like :func:`_requirements`' (the variable by PEP 503, no extras, the comparison
    as read from the variable's side, the string as written: a marker compares strings
    exactly) -> its text."""
    for m in _MARKER.finditer(text):
        if m.group(1) is not None:
            var, op, value = m.group(1), m.group(2), m.group(4)
            op = b"not in" if op.startswith(b"not") else op
            op = {b"in": b"within", b"not in": b"outside"}.get(op, op)
        else:
            var, op, value = m.group(8), m.group(7), m.group(6)
            op = b"not in" if op.startswith(b"not") else op
            op = _MARKER_MIRROR.get(op, op)
        yield ((_PEP503_RUN.sub(b"-", var.lower()), b"", op, value), m.group(0).decode("utf-8", "replace"))


# an environment marker joined to its requirement (red team 120, F05, F08): each string or version
# comparison of a marker read alone (:func:`_markers`, the requirement pattern) was grounded by a
# source stating it of any requirement, so markers swapped between two requirements ("requests==2.31.0;
# sys_platform == 'linux'" and "pywin32==306; sys_platform == 'win32'") or an `and` turned `or` stated
# nothing new. A marker after `;` is read whole, as PEP 508's grammar reads it (`or` of `and`s of
# comparisons or bracketed markers), and keyed with the requirement before it
_MARKED_HINT = re.compile(rb";[ \t]*\(*[ \t]*(?:python|os|sys|platform|implementation|extra|['\"])")
_MARKED_HEAD = re.compile(_REQ_NAME_EXTRAS + rb"(?:" + _REQ_SPECIFIERS + rb"[ \t]*\)?)?[ \t]*;")
_MARKER_TOKEN = re.compile(rb"""[ \t]*(?:(\()|(\))|(['"])([^'"\n]*)\3|(===|==|!=|~=|>=|<=|<|>|not[ \t]+in\b|in\b)"""
                           rb"""|(and|or)\b|([A-Za-z_][A-Za-z0-9_.]*))""")
_MARKER_VARIABLE_WHOLE = re.compile(_MARKER_VARIABLE + rb"\Z")
_MARKER_DEPTH = 16  # (brackets nested deeper are read as no marker: fails closed on the rule's side)


def _marker_tokens(text: bytes, at: int, limit: int) -> list[tuple[str, bytes, int]]:
    """The tokens of a marker from ``at`` (kind: ``(``, ``)``, ``s`` a string, ``o`` a comparison,
    ``b`` and/or, ``v`` a name; its text; its end), up to ``limit`` of them, until one is none."""
    out: list[tuple[str, bytes, int]] = []
    while len(out) < limit:
        m = _MARKER_TOKEN.match(text, at)
        if m is None:
            break
        if m.group(1):
            out.append(("(", b"(", m.end()))
        elif m.group(2):
            out.append((")", b")", m.end()))
        elif m.group(3):
            out.append(("s", m.group(4), m.end()))
        elif m.group(5):
            out.append(("o", b"not in" if m.group(5).startswith(b"not") else m.group(5), m.end()))
        elif m.group(6):
            out.append(("b", m.group(6), m.end()))
        else:
            word = m.group(7)
            if word in (b"and", b"or", b"in", b"not"):
                break
            out.append(("v", word, m.end()))
        at = m.end()
    return out


def _marker_tree(tokens: list[tuple[str, bytes, int]], i: int, depth: int) -> tuple[tuple[Any, ...], int] | None:
    """``marker_or`` of PEP 508 from token ``i``: (its tree, the next token), the longest that
    parses, or None. A tree: ``("=", comparison)`` (read from the variable's side, as
    :func:`_markers` reads it, a string by its content), or ``("and" | "or", its operands as a
    set)`` (their order changes nothing), an operand of the same operator flattened into it (a
    bracket that groups nothing changes nothing); brackets that group are the nesting."""
    if depth > _MARKER_DEPTH:
        return None
    return _marker_chain(tokens, i, depth, "or", _marker_and)


def _marker_and(tokens: list[tuple[str, bytes, int]], i: int, depth: int) -> tuple[tuple[Any, ...], int] | None:
    """``marker_and`` from token ``i``: its tree (:func:`_marker_tree`) and the next token."""
    return _marker_chain(tokens, i, depth, "and", _marker_atom)


def _marker_chain(tokens: list[tuple[str, bytes, int]], i: int, depth: int, op: str,
                  operand: Callable[[list[tuple[str, bytes, int]], int, int], tuple[tuple[Any, ...], int] | None]
                  ) -> tuple[tuple[Any, ...], int] | None:
    """Operands (``operand``) joined by ``op`` from token ``i``: their tree, an operand of the
    same operator flattened into it, and the next token (:func:`_marker_tree`)."""
    terms: list[tuple[Any, ...]] = []
    got = operand(tokens, i, depth)
    if got is None:
        return None
    word = op.encode()
    while True:
        term, i = got
        terms.extend(term[1] if term[0] == op else (term,))
        if i >= len(tokens) or tokens[i][:2] != ("b", word):
            break
        got = operand(tokens, i + 1, depth)
        if got is None:
            break
    return (terms[0] if len(set(terms)) == 1 else (op, frozenset(terms))), i


def _marker_atom(tokens: list[tuple[str, bytes, int]], i: int, depth: int) -> tuple[tuple[Any, ...], int] | None:
    """A comparison or a bracketed marker from token ``i``: its tree and the next token."""
    if i >= len(tokens):
        return None
    if tokens[i][0] == "(":
        got = _marker_tree(tokens, i + 1, depth + 1)
        if got is None or got[1] >= len(tokens) or tokens[got[1]][0] != ")":
            return None
        return got[0], got[1] + 1
    if i + 3 > len(tokens):
        return None
    (k1, left, _), (k2, op, _), (k3, right, _) = tokens[i], tokens[i + 1], tokens[i + 2]
    if k2 != "o" or k1 not in "vs" or k3 not in "vs" or (k1 == "s") == (k3 == "s"):
        return None
    if k1 == "v":
        var, value = left, right
        op = {b"in": b"within", b"not in": b"outside"}.get(op, op)
    else:
        var, value = right, left
        op = _MARKER_MIRROR.get(op, op)
    if _MARKER_VARIABLE_WHOLE.match(var) is None:
        return None
    return ("=", _PEP503_RUN.sub(b"-", var.lower()) + b" " + op + b" '" + value + b"'"), i + 3


def _marker_text(tree: tuple[Any, ...]) -> bytes:
    """The canonical text of a marker's tree (:func:`_marker_tree`): operands sorted."""
    if tree[0] == "=":
        return tree[1]
    return b"(" + (b" %s " % tree[0].encode()).join(sorted(_marker_text(t) for t in tree[1])) + b")"


def _marked_requirements(text: bytes) -> dict[tuple[bytes, bytes, tuple[tuple[bytes, bytes], ...], bytes], str]:
    """Each requirement of ``text`` followed by an environment marker (``requests==2.31.0;
    sys_platform == 'linux'``, ``pywin32; os_name == 'nt'``) as (name and extras as
    :func:`_requirements` keys them, its clauses, the marker's canonical text, :func:`_marker_tree`)
    -> its text. Read only where a ``;`` stands before a marker's word (``_MARKED_HINT``)."""
    out: dict[tuple[bytes, bytes, tuple[tuple[bytes, bytes], ...], bytes], str] = {}
    if b";" not in text:
        return out
    text = _ascii_comparisons(text)
    for hint in _MARKED_HINT.finditer(text):
        semi = hint.start()
        lo = max(text.rfind(b"\n", 0, semi), text.rfind(b";", max(0, semi - _REQUIREMENT_REACH * 2), semi),
                 semi - _REQUIREMENT_REACH * 2) + 1
        head = None
        for m in _MARKED_HEAD.finditer(text, max(lo, 0), semi + 1):
            if m.end() == semi + 1:
                head = m
                break
        if head is None:
            continue
        tokens = _marker_tokens(text, semi + 1, 64)
        got = _marker_tree(tokens, 0, 0)
        if got is None or not got[1]:
            continue
        tree, n = got
        canon = _marker_text(tree)
        name = _PEP503_RUN.sub(b"-", head.group(1).lower())
        raw = head.group(2) if head.group(2) is not None else head.group(3) if head.group(3) is not None else head.group(4)
        extras = b"" if raw is None else b",".join(
            sorted({_PEP503_RUN.sub(b"-", e.strip().lower()) for e in raw.split(b",")} - {b""}))
        clauses = tuple(sorted({(op, _padded_version(op, v.lower())) for op, v in _REQ_CLAUSE.findall(head.group(5) or b"")}))
        out.setdefault((name, extras, clauses, canon),
                       text[head.start():tokens[n - 1][2]].decode("utf-8", "replace"))
    return out


def _marked_requirements_of(text: bytes) -> dict[tuple[bytes, bytes, tuple[tuple[bytes, bytes], ...], bytes], str]:
    """:func:`_marked_requirements` of ``text``, and its requirements whose marker a TOML inline
    table gives (:func:`_table_marked_requirements`: Poetry's, a Pipfile's)."""
    out = _marked_requirements(text)
    if _may_hold_table_markers(text):
        for key, written in _table_marked_requirements(text).items():
            out.setdefault(key, written)
    return out


# a requirement's environment marker written as a TOML inline table's key beside its version
# (Poetry's "requests = { version = "2.31.0", markers = "python_version >= '3.8'" }", a Pipfile's
# "requests = {version = "==2.31.0", markers = "..."}"; and Poetry's "python" and "platform"
# constraints), tied to the table's key, the package's name (red team 123, F10: the marker was a
# quoted value tied to nothing, so markers swapped between two packages stated nothing new).
# The table (on one line, as TOML writes one) around such a key, the name before it ("name = {"
# or in an array of tables, "name = [{...}, {"), and its keys and values
_TABLE_MARKED_HINT = re.compile(rb"""(?<![A-Za-z0-9_\-])(?:markers|python(?:_full)?(?:_version)?|platform(?:_[a-z]+)?"""
                                rb"""|sys_platform)[ \t]*=[ \t]*['"]""")
# a Pipfile's marker variables written as a package's keys (those _may_hold_table_markers' scans
# find: "python" or "platform" in them; os_name and implementation_name beside one of them)
_PIPFILE_MARKER_KEYS = frozenset((b"python_version", b"python_full_version", b"sys_platform", b"platform_machine",
                                  b"platform_system", b"platform_release", b"platform_version",
                                  b"platform_python_implementation", b"os_name", b"implementation_name"))
_TABLE_NAME_BEFORE = re.compile(rb"""(?:(?<=[\n,{])|^)[ \t]*(?:"([^"\n]{1,80})"|'([^'\n]{1,80})'|([A-Za-z0-9_.\-]{1,80}))[ \t]*=[ \t]*"""
                                rb"""(?:\[(?:[ \t\r\n,]|\{[^{}\n]*\})*)?\{[^{}\n]*\Z""")
_TABLE_PAIR = re.compile(rb"""([A-Za-z0-9_\-]+)[ \t]*=[ \t]*(?:"((?:[^"\\\n]|\\.)*)"|'([^'\n]*)'|\[([^\]\n]*)\])""")
# a standard table's header naming a package under a section of them ("[packages.requests]",
# '[tool.poetry.dependencies."zope.interface"]'): its section (group 1 or 3) and the name (2 or 4)
_TABLE_HEADER = re.compile(rb"""(?m)^[ \t]*\[[ \t]*(?:([A-Za-z0-9_.\-]+)\.([A-Za-z0-9_\-]+)|([A-Za-z0-9_.\-]+)\.[ \t]*"([^"\n]{1,80})")[ \t]*\][ \t]*\r?$""")
_TABLE_CARET = re.compile(rb"([\^~])(?!=)[ \t]*(v?[0-9][A-Za-z0-9.*+!_\-]*)")
_TABLE_REACH = 512


def _may_hold_table_markers(text: bytes) -> bool:
    """Whether ``text`` may hold a TOML inline table's marker (:func:`_table_marked_requirements`):
    a ``{`` or a table's ``[``, and a key of a marker (byte scans, most texts)."""
    return (b"{" in text or b"[" in text) and (b"markers" in text or b"python" in text or b"platform" in text) and (
        _TABLE_MARKED_HINT.search(text) is not None)


def _table_marked_requirements(text: bytes) -> dict[tuple[bytes, bytes, tuple[tuple[bytes, bytes], ...], bytes], str]:
    """Each TOML inline table of ``text`` that gives a package a marker (``markers``, Poetry's
    ``python`` or ``platform``), keyed as :func:`_marked_requirements` keys a requirement: the
    table's key as the name (PEP 503), its ``extras``, its ``version`` as clauses (Poetry's bare
    version an exact one, ``==``; its ``^``/``~`` kept as written; ``*`` none), and the marker's
    canonical text (:func:`_marker_tree`; ``python`` and ``platform`` appended as written) ->
    the table's text. Tables of other keys, and markers that do not parse, are none."""
    out: dict[tuple[bytes, bytes, tuple[tuple[bytes, bytes], ...], bytes], str] = {}
    text = _ascii_comparisons(text)
    done = -1
    for hint in _TABLE_MARKED_HINT.finditer(text):
        at = hint.start()
        if at < done:
            continue
        line_end = text.find(b"\n", at)
        line_end = len(text) if line_end < 0 else line_end
        opening = text.rfind(b"{", max(0, at - _TABLE_REACH, text.rfind(b"\n", max(0, at - _TABLE_REACH), at)), at)
        closing = text.find(b"}", at, line_end)
        if opening < 0 or closing < 0 or text.find(b"}", opening, at) >= 0:
            # (an inline table across lines, TOML 1.1's: "requests = {\n  version = ...,\n  markers =
            # ...\n}", red team 125, F07)
            opening = text.rfind(b"{", max(0, at - _TABLE_REACH), at)
            closing = text.find(b"}", at, at + _TABLE_REACH)
            if opening >= 0 and closing >= 0 and text.find(b"}", opening, at) < 0 and text.find(
                    b"{", at, closing) < 0 and text.find(b"\n[", opening, closing) < 0:
                line_end = closing
            else:
                opening = closing = -1
        if opening < 0 or closing < 0:
            # (or a standard table of the package: "[tool.poetry.dependencies.requests]" and its
            # "version = ..." and "markers = ..." lines)
            header = None
            for header in _TABLE_HEADER.finditer(text, max(0, at - _TABLE_REACH), at):
                pass
            if header is None or not any(word in (header.group(1) or header.group(3)).lower()
                                         for word in (b"dependencies", b"packages")):
                continue
            raw_name = header.group(2) or header.group(4)
            opening = header.end()
            closing = text.find(b"\n[", opening, opening + _TABLE_REACH)
            closing = min(len(text), opening + _TABLE_REACH) if closing < 0 else closing
            if closing < at:
                continue
            start = header.start()
        else:
            named = _TABLE_NAME_BEFORE.search(text, max(0, opening - _TABLE_REACH), opening + 1)
            if named is None:
                continue
            raw_name = named.group(1) or named.group(2) or named.group(3)
            start = named.start()
        done = closing
        values: dict[bytes, bytes] = {}
        for pair in _TABLE_PAIR.finditer(text, opening + 1, closing):
            key = pair.group(1).lower()
            value = pair.group(2) if pair.group(2) is not None else pair.group(3) if pair.group(3) is not None else pair.group(4)
            values.setdefault(key, value)
        parts: list[bytes] = []
        marker = values.get(b"markers")
        if keyed := [key + b" " + values[key] for key in sorted(values) if key in _PIPFILE_MARKER_KEYS]:
            # (a Pipfile's marker variables as keys, 'sys_platform = "== \'win32\'"': one marker
            # with its "markers", red team 125, F07; one that does not parse, as written)
            joined = b" and ".join(([b"(" + marker + b")"] if marker is not None else []) + keyed)
            tokens = _marker_tokens(joined, 0, 64)
            got = _marker_tree(tokens, 0, 0)
            parts.append(_marker_text(got[0]) if got is not None and got[1] == len(tokens) and tokens[-1][2] == len(
                joined) else b"".join(joined.split()))
        elif marker is not None:
            tokens = _marker_tokens(marker, 0, 64)
            got = _marker_tree(tokens, 0, 0)
            if got is None or not got[1]:
                continue
            parts.append(_marker_text(got[0]))
        for key in (b"python", b"platform"):
            if (value := values.get(key)) is not None:
                parts.append(key + b" '" + _constraint_set(value) + b"'")
        if not parts:
            continue
        version = b"".join(values.get(b"version", b"").split())
        clauses = {(op, _padded_version(op, v.lower())) for op, v in _REQ_CLAUSE.findall(version)}
        clauses.update((op, v.lower()) for op, v in _TABLE_CARET.findall(version))
        if not clauses and version[:1].isdigit():
            clauses.add((b"==", _padded_version(b"==", version.lower())))  # (Poetry's exact version)
        extras = values.get(b"extras")
        extras = b"" if extras is None else b",".join(sorted(
            {_PEP503_RUN.sub(b"-", e.strip(b" \t'\"").lower()) for e in extras.split(b",")} - {b""}))
        out.setdefault((_PEP503_RUN.sub(b"-", raw_name.lower()), extras, tuple(sorted(clauses)), b" and ".join(parts)),
                       text[start:closing + 1].strip().decode("utf-8", "replace"))
    return out


def _constraint_set(value: bytes) -> bytes:
    """Poetry's ``python`` or ``platform`` constraint as the set it is: its ``||`` alternatives,
    each a set of ``,``-separated clauses (blanks dropped; a comparison's version padded as
    PEP 440 compares it), sorted (red team 125, F12: ``>=3.8,<4.0`` and ``<4.0,>=3.8`` were two
    requirements)."""
    alternatives = set()
    for alternative in value.split(b"||"):
        clauses = set()
        for clause in alternative.split(b","):
            clause = b"".join(clause.split())
            if (m := _REQ_CLAUSE.fullmatch(clause)) is not None:
                clause = m.group(1) + _padded_version(m.group(1), m.group(2).lower())
            if clause:
                clauses.add(clause)
        alternatives.add(b",".join(sorted(clauses)))
    return b" || ".join(sorted(alternatives))


# a version as PEP 440 compares it (red team 120, F17: "django==3.2" -> "django==3.2.0" was refused,
# pip reading them equal). PEP 440, "Version matching": "The only substitution performed is the zero
# padding of the release segment to ensure the release segments are compared with the same length";
# and of ordering ("Release segment"): "When comparing release segments with different numbers of
# components, the shorter segment is padded out with additional zeros as necessary"; each component
# compared by its numeric value. Not a prefix match ("==3.2.*" matches 3.2.1, "==3.2.0.*" does not),
# nor a compatible release ("~=3.2" is ">=3.2, ==3.*", "~=3.2.0" is ">=3.2.0, ==3.2.*"), nor arbitrary
# equality ("===", a string compared)
_PADDED_OPS = frozenset((b"==", b"!=", b"<=", b">=", b"<", b">"))
_RELEASE = re.compile(rb"(v?)(?:([0-9]+)!)?([0-9]+(?:\.[0-9]+)*)(?![0-9.]*\*)")


@functools.lru_cache(maxsize=4096)  # (a requirement file repeats its versions: each read once)
def _padded_version(op: bytes, version: bytes) -> bytes:
    """``version`` (lower-cased) as comparison ``op`` compares it: the release segment's
    components by their numeric values, its trailing zeros dropped (``3.2.0`` is ``3.2``, ``3.0``
    is ``3``, ``03.2`` is ``3.2``), an epoch of 0 dropped; unchanged for ``===`` and ``~=``, and
    for a prefix match (``3.2.*``)."""
    if op not in _PADDED_OPS or b".0" not in version and b"!" not in version and version[:1] != b"0":
        return version  # (no zero to drop, most versions: two byte searches)
    m = _RELEASE.match(version)
    if m is None or m.end() < len(version) and version[m.end()] in b"0123456789":
        return version
    parts = [int(x) for x in m.group(3).split(b".")]
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()
    epoch = m.group(2)
    epoch = b"" if epoch is None or int(epoch) == 0 else b"%d!" % int(epoch)
    padded = m.group(1) + epoch + b".".join(b"%d" % x for x in parts) + version[m.end():]
    return padded


def _requirement_key(m: re.Match[bytes]) -> tuple[bytes, ...]:
    """The key of :func:`_requirements` of match ``m`` of ``_REQUIREMENT``."""
    name = m.group(1).lower()
    if b"_" in name or b"." in name or b"--" in name:
        name = _PEP503_RUN.sub(b"-", name)
    raw = m.group(2) if m.group(2) is not None else m.group(3) if m.group(3) is not None else m.group(4)
    extras = b"" if raw is None else b",".join(
        sorted({_PEP503_RUN.sub(b"-", e.strip().lower()) for e in raw.split(b",")} - {b""}))
    clauses = sorted({(op, _padded_version(op, v.lower()) if b"0" in v else v.lower())
                      for op, v in _REQ_CLAUSE.findall(m.group(5))})
    return (name, extras) + tuple(x for c in clauses for x in c)


def _requirement_spans(text: bytes) -> list[tuple[int, int, tuple[bytes, ...]]]:
    """Each requirement of ``text`` (:func:`_requirements`) as (start, end, key), its bytes from
    its name to its last clause; none where a comparison is written in Unicode signs (their
    ASCII reading has other offsets)."""
    if _has_unicode_comparison(text) and _ascii_comparisons(text) != text:
        return []
    return [(m.start(), m.end(), _requirement_key(m)) for m in _requirement_matches(text)]


def _requirement_matches(text: bytes) -> Iterator[re.Match[bytes]]:
    """The matches of ``_REQUIREMENT`` in ``text`` that hold a comparison before a digit
    (``_REQUIREMENT_HINT``), found from those comparisons: for each, the pattern is tried at the
    starts of the last ``_REQUIREMENT_TRIES`` words within ``_REQUIREMENT_REACH`` bytes before
    it, nearest first, and the
    first match reaching past the comparison is the requirement (each once, however many of its
    clauses find it). Tried at every byte of a long tool output, the pattern cost the rewrite
    benchmark 8 ms a check; now a few tries a comparison. A name and extras longer than the
    reach are not read. Linear, with a small constant (red team 118, F16): the text is scanned
    for word starts once, ahead of the comparisons, and the pattern is tried at a word start
    at most once (its match does not depend on the comparison it is tried for: one that does
    not reach past a comparison reaches past no later one)."""
    last = 0  # (the end of the last one: they do not overlap, as the pattern's own search's)
    starts: list[int] = []  # the word starts before `scanned`, in order
    scanned = 0
    tried: dict[int, re.Match[bytes] | None] = {}
    brackets = b"]" in text
    for hint in _REQUIREMENT_HINT.finditer(text):
        at = hint.start()
        if at < last:
            continue
        if scanned < at:
            starts.extend([w.start() for w in _REQUIREMENT_NAME_START.finditer(text, scanned, at)])
            scanned = at
        low = max(at - _REQUIREMENT_REACH, last)
        lo, hi = bisect.bisect_left(starts, low), len(starts)
        close = text.rfind(b"]", low, at) if brackets else -1
        if close >= 0 and (opening := text.rfind(b"[", max(close - _REQUIREMENT_REACH, last), close)) >= 0:
            # the words of the extras before it are no name: the name is looked for before
            # them (red team 118, F02: twelve extras took all the tries, and the reach)
            near = [*starts[bisect.bisect_left(starts, max(opening - _REQUIREMENT_REACH, last)):
                            bisect.bisect_left(starts, opening)],
                    *starts[max(lo, bisect.bisect_right(starts, close)):hi]]
        else:
            near = starts[max(lo, hi - _REQUIREMENT_TRIES):hi]
        for start in near[:-_REQUIREMENT_TRIES - 1:-1]:
            if start in tried:
                m = tried[start]
            else:
                m = tried[start] = _REQUIREMENT.match(text, start)
            if m is not None and m.end(5) > at:
                last = m.end()
                yield m
                break


# where a requirement's name may start (_REQUIREMENT's first group, its lookbehind)
_REQUIREMENT_NAME_START = re.compile(rb"(?<![A-Za-z0-9._\-\[@/\\])[A-Za-z]")
# the bytes before a comparison a requirement's name is looked for in, and the most word starts
# tried there (its name, or the words of its extras after it), nearest first (_requirement_matches)
_REQUIREMENT_REACH = 160
_REQUIREMENT_TRIES = 8


def _requirement_stated(req: tuple[bytes, ...], known: set[tuple[bytes, ...]], lossy: bool) -> bool:
    """Whether requirement ``req`` (a key of :func:`_requirements`) is stated by ``known``: the
    same requirement, or, for a lossy edit, one with the same name whose clauses hold all of
    ``req``'s and whose extras are ``req``'s or ``req`` names none (a summary may name fewer
    clauses: ``django>=3.2`` of ``django>=3.2,<4.2``; never another clause or extra)."""
    if req in known:
        return True
    if not lossy:
        return False
    name, extras, mine = req[0], req[1], set(zip(req[2::2], req[3::2]))
    return any(k[0] == name and (not extras or k[1] == extras) and mine <= set(zip(k[2::2], k[3::2]))
               for k in known)



def _marked_requirement_stated(req: tuple[Any, ...], known: set[tuple[Any, ...]], lossy: bool) -> bool:
    """Whether requirement ``req`` with its environment marker (a key of
    :func:`_marked_requirements`) is stated by ``known``: one of the same name, marker and extras
    (a lossy edit: or ``req`` names none), whose clauses are ``req``'s (a lossy edit: hold all of
    them), or give none (where its source gives the marker with the name alone, the version is
    the plain requirement rule's to ground)."""
    if req in known:
        return True
    name, extras, clauses, marker = req
    mine = set(clauses)
    return any(k[0] == name and k[3] == marker and (k[1] == extras or lossy and not extras)
               and (not k[2] or (mine <= set(k[2]) if lossy else mine == set(k[2]))) for k in known)

# helpers of _check_pins_in_context (red team 115, F02) ------------------------------

# a name's occurrences read for their context words, per source and name at most
_PIN_CONTEXT_ROWS = 64
# what ends a pin's context: a clause's punctuation, a line break, a conjunction (not a
# parenthesis: `prod (lodash@4.17.20)` says prod of the pin, red team 117 F11)
_PIN_CONTEXT_STOP = re.compile(rb"[.,;!?\[\]{}|\n]|\b(?:and|or|but|while|whereas|whilst)\b")
# a markdown table row: its cells are one another's context (`| prod | lodash@4.17.20 |`)
_PIN_TABLE_ROW = re.compile(rb"[ \t]*\|")
_PIN_CONTEXT_WORD = re.compile(rb"[a-z][a-z0-9_-]*")
# words that stand beside any pin and tell no version from another
_PIN_CONTEXT_PLAIN = frozenset(
    b"a an the in on at to of for from with by as is are was were be been being it its this that these those "
    b"we our they their you your now still also then both each all version versions ver pin pins pinned pinning "
    b"use uses used using install installs installed installing upgrade upgrades upgraded downgrade downgraded "
    b"bump bumps bumped deploy deploys deployed run runs ran running need needs needed require requires required "
    b"set sets keep keeps kept add adds added has have had get gets got via package packages dependency "
    b"dependencies lib library module modules".split())


def _is_pin_row(table: FactTable, r: int) -> bool:
    """A kv row that is a pin: ``name@ref`` or pip's ``name==ref`` (its key and value joined by
    ``@`` or ``==``, or a comparison the value holds: grammar v8, v9)."""
    sep = table.data[int(table.key_end[r]):int(table.value_start[r])]
    return sep in (b"@", b"==") or (not sep and table.key_start[r] >= 0 and table.value_end[r] > table.value_start[r]
                                     and table.data[int(table.value_start[r])] in b"<>!~=^")


# a sentence's end, for _pins_paired (not the `.` inside a version)
_PIN_SENTENCE_END = re.compile(rb"[.!?](?=[ \t\r\n]|$)|[;\n]")
_PIN_SENTENCE_SPAN = 400


def _pins_paired(table: FactTable, rows: list[int], owned: set[bytes]) -> dict[int, bytes]:
    """Pins of one name that a sentence lists after as many of the words that tell its versions
    apart (``owned``), each pin -> the word in its place: ``Prod and dev run lodash@4.17.21 and
    lodash@4.17.20 respectively``, ``Dev lags prod: lodash@4.17.20 vs lodash@4.17.21`` pair
    prod with the first pin and dev with the second (red team 117, F19: the two-word window
    gave the first pin the second word). Read only where a sentence holds two such pins or
    more, every such word stands before its first pin, and the counts are equal; elsewhere a
    pin keeps its window (:func:`_pin_context`). Each sentence is read once, at most 400 bytes
    either side of a pin."""
    if len(rows) < 2 or not owned:
        return {}
    data = table.data
    by_sentence: dict[tuple[int, int], list[int]] = {}
    for r in rows:
        a, b = int(table.start[r]), int(table.end[r])
        lo = max(0, a - _PIN_SENTENCE_SPAN)
        s = lo
        for m in _PIN_SENTENCE_END.finditer(data, lo, a):
            s = m.end()
        m = _PIN_SENTENCE_END.search(data, b, b + _PIN_SENTENCE_SPAN)
        e = m.start() if m is not None else min(len(data), b + _PIN_SENTENCE_SPAN)
        by_sentence.setdefault((s, e), []).append(r)
    out: dict[int, bytes] = {}
    for (s, e), inside in by_sentence.items():
        if len(inside) < 2:
            continue
        inside.sort(key=lambda r: int(table.start[r]))
        first = int(table.start[inside[0]])
        words = [(m.start() + s, m.group()) for m in _PIN_CONTEXT_WORD.finditer(data[s:e].lower())
                 if m.group() in owned]
        if len(words) != len(inside) or words[-1][0] >= first:
            continue
        out.update(zip(inside, (w for _, w in words)))
    return out


# a version written after a name and one blank, "lodash 4.17.21" (three parts or more: "Python 3.11"
# and "section 3.2" are not read): a pin in prose (red team 120, F20)
# (led by a literal '.', which the engine scans for: 1/6 of the cost of a class-led hint on the
# summarize benchmark's derived blocks)
_PROSE_PIN_HINT = re.compile(rb"\.[0-9]+\.[0-9]")
_PROSE_PIN = re.compile(rb"(?<![A-Za-z0-9_.@/\-])[A-Za-z](?:[A-Za-z0-9_.\-]*[A-Za-z0-9])?([ \t])(?=v?[0-9]+\.[0-9]+\.[0-9])")


def _prose_pins_glued(data: bytes) -> bytes:
    """``data`` with the blank between a name and the version after it (``lodash 4.17.21``) an
    ``@``: the grammar reads the pin it writes, at the same offsets."""
    out = bytearray(data)
    for m in _PROSE_PIN.finditer(data):
        out[m.start(1)] = 0x40
    return bytes(out)


def _pin_context(table: FactTable, r: int) -> set[bytes]:
    """The words beside fact row ``r`` in its clause: the two before it and the two after it
    (``_PIN_CONTEXT_WORD``, lower-cased), none past a clause's end (``_PIN_CONTEXT_STOP``),
    without the words any pin stands beside (``_PIN_CONTEXT_PLAIN``) and the pin's own name.
    In a markdown table row (a line starting with ``|``) the words of the row's other cells
    instead: a row is a clause whose cells are its words (red team 117, F11), unless the row
    names the pin's name again (then the cells are clauses, as before). Reads at most 80 bytes
    either side (240 in a table row, within its line)."""
    data = table.data
    a, b = int(table.start[r]), int(table.end[r])
    name = data[int(table.key_start[r]):int(table.key_end[r])].lower() if table.key_start[r] >= 0 else b""
    return _pin_context_at(data, a, b, name)


def _pin_context_at(data: bytes, a: int, b: int, name: bytes) -> set[bytes]:
    """:func:`_pin_context` of the pin of ``name`` (lower-cased) at ``data[a:b]``."""
    line = data.rfind(b"\n", max(0, a - 240), a) + 1
    if (line > 0 or a < 240) and _PIN_TABLE_ROW.match(data, line):
        end = data.find(b"\n", b, b + 240)
        row = (data[line:a] + b" " + data[b:end if end >= 0 else b + 240]).lower()
        if not name or name not in row:  # (a row naming the pin's name twice: its cells, as in prose)
            return {w for w in _PIN_CONTEXT_WORD.findall(row) if w not in _PIN_CONTEXT_PLAIN and w != name}
    before = data[max(0, a - 80):a].lower()
    cut = None
    for cut in _PIN_CONTEXT_STOP.finditer(before):
        pass
    if cut is not None:
        before = before[cut.end():]
    after = data[b:b + 80].lower()
    stop = _PIN_CONTEXT_STOP.search(after)
    if stop is not None:
        after = after[:stop.start()]
    words = _PIN_CONTEXT_WORD.findall(before)[-2:] + _PIN_CONTEXT_WORD.findall(after)[:2]
    if a > line and not data[line:a].strip(b" \t") and (not after.strip() or after.lstrip().startswith(b"#")):
        # a YAML mapping's entry alone on an indented line ("prod:\n  lodash: 4.17.20"): its
        # parents' labels are its context, as "prod: lodash@4.17.20" on one line (red team 120, F20)
        words += _yaml_parents(data, line, a - line)
    return {w for w in words if w not in _PIN_CONTEXT_PLAIN and w != name}


# the bytes before an indented YAML entry its parents' labels are looked for in (_yaml_parents)
_YAML_PARENT_REACH = 2048
_YAML_LABEL = re.compile(rb"[ \t]*(?:-[ \t]+)?[\"']?([A-Za-z0-9_.\- ]{1,64}?)[\"']?[ \t]*:[ \t]*(?:#[^\n]*)?$")


def _yaml_parents(data: bytes, line: int, indent: int) -> list[bytes]:
    """The words (``_PIN_CONTEXT_WORD``, lower-cased) of the labels of the YAML mappings holding
    an entry indented ``indent`` blanks on the line starting at ``line``: each line above with
    less indent, ending in ``label:`` (``prod:``, ``"prod":``), nearest first, at most
    ``_YAML_PARENT_REACH`` bytes up (a label further up is not read: the context words as
    before). A line of less indent that is no label ends the look."""
    out: list[bytes] = []
    floor = max(0, line - _YAML_PARENT_REACH)
    end = line - 1  # (the line break before this line)
    while indent > 0 and end > floor:
        start = data.rfind(b"\n", floor, end) + 1
        if start == 0 and floor > 0:
            break
        text = data[start:end]
        stripped = text.lstrip(b" \t")
        end = start - 1
        if not stripped or stripped.startswith(b"#"):
            continue
        ind = len(text) - len(stripped)
        if ind >= indent:
            continue
        m = _YAML_LABEL.match(text)
        if m is None:
            break
        out.extend(_PIN_CONTEXT_WORD.findall(m.group(1).lower()))
        indent = ind
    return out


def _pins_in_values(table: FactTable, found: np.ndarray, names: set[bytes],
                    keys: set[tuple[int, int]]) -> list[tuple[tuple[int, int], tuple[int, int], set[bytes]]]:
    """The pins of ``names`` that ``table`` writes where the grammar reads no pin: as a kv line's
    value (``prod: lodash@4.17.20`` is prod's value), each as (key fingerprint, fact fingerprint,
    its context words: :func:`_pin_context_at`, so the line's label too), the pin read as the
    grammar reads it alone. Rows of ``found`` (the table's own pins) are no such pin. Read for
    each name by one search of the table's bytes; at most ``_PIN_CONTEXT_ROWS`` + 1 a name."""
    data = table.data
    if b"@" not in data and b"==" not in data:
        return []
    own = set(table.start[found].tolist()) if found.size else set()
    out: list[tuple[tuple[int, int], tuple[int, int], set[bytes]]] = []
    for name in sorted(names):
        n = 0
        for m in re.finditer(rb"(?<![A-Za-z0-9_.@/\-])" + re.escape(name) + rb"(?:@|==)[^\s,;|()\[\]]+", data):
            if m.start() in own:
                continue
            n += 1
            if n > _PIN_CONTEXT_ROWS:
                break
            sub = extract(m.group())
            for r in range(len(sub)):
                if sub.kind[r] != _KIND_KV or int(sub.start[r]) != 0 or not _is_pin_row(sub, r):
                    continue
                key = tuple(sub.fp_key[r].tolist())
                if key not in keys:
                    continue
                end = m.start() + int(sub.end[r])
                out.append((key, tuple(sub.fp_fact[r].tolist()),
                            _pin_context_at(data, m.start(), end, name.lower())))
                break
    return out


# each spelling of a unit (``_search_py.UNIT_NAMES``; a unit glued to the figure, "30s", is part of the
# number fact) -> its name
_UNITS = {spelling: name for name, spellings in UNIT_NAMES.items() for spelling in spellings}
# what a reader sees between a figure and its unit (unit_leads' gap: blanks, an aligned
# column's too, one line break, a hyphen as in "30-minute", markdown emphasis or code marks);
# a unit glued to the figure ("26%", "30s") is part of the number's fact
_UNIT_GAP = UNIT_GAP_RUN
_UNIT_WORD = rb"([A-Za-z]+|%|\xc2\xb5s(?:ecs?)?|\xce\xbcs(?:ecs?)?|\xc2[\xb0\xba][ \t]?[CFcf]|\xe2\x84[\x83\x89]|\xe2\x80\xb0)(?![0-9A-Za-z_])"
# a rate: "40 MB/s", "100 req/s", "100 requests per minute"
_UNIT_RATE = rb"(?:(?:[ \t]*/[ \t]*|[ \t]+[Pp][Ee][Rr][ \t]+)" + _UNIT_WORD + rb")?"
# or a rate of nothing named, "/" right after the figure ("100/h", "$5/month": red team 118, F27;
# unit_leads' last form), its group 3
# a footnote's bracket between a figure and its unit ("5 [1] minutes", "5 [^a] s", "5 [a] min"): a
# bracket that holds no unit (digits, a caret's mark, a letter that spells none) is passed over
# to the unit after it (red team 120, F18); "5 [s]" and "5 [minutes]" are read as before
# (and a bracket of words whose first word spells no unit, "5 [see note] minutes", "5 [sic] s":
# red team 123, F12; "5 [ms]" and "5 [ms, p99]" are read as before)
# (a bracket of words is first read as one, its closing "]" found, before the unit spellings are
# tried at its start: each "[" of a citation after a figure tried them all, +0.2 ms on the
# rewrite benchmark)
# (up to 80 bytes, and ":" in it, "5 [unit: ms]": its unit named further in is read by _unit_at,
# red team 125, F06)
_FOOTNOTE = (rb"\[(?:\^[0-9A-Za-z]{1,8}|[0-9]{1,3}|[ace-gi-ln-rt-zAC-Z]|(?=[A-Za-z][A-Za-z0-9 \t.,:'\-]{1,79}\])(?!(?i:"
             + b"|".join(re.escape(spelling) for spelling in sorted(_UNITS, key=len, reverse=True) if spelling.isalpha())
             + rb")(?![A-Za-z]))[A-Za-z][A-Za-z0-9 \t.,:'\-]{1,79})\]")
_UNIT_TAIL = (rb"(?:(?:[ \t]*" + _FOOTNOTE + rb")?" + _UNIT_GAP + _UNIT_WORD + _UNIT_RATE
              + rb"|[ \t]*/[ \t]*([A-Za-z]{1,16})(?![0-9A-Za-z_]))")
# a footnote's bracket after a digit and at most two blanks (searched for from its "[")
_FOOTNOTE_AFTER_DIGIT = re.compile(rb"\[(?:(?<=[0-9]\[)|(?<=[0-9][ \t]\[)|(?<=[0-9][ \t][ \t]\[))"
                                   + _FOOTNOTE[2:])


def _extra_leads(text: bytes, first: bool = False) -> list[int]:
    """The digits after which a unit may stand that unit_leads does not give: a figure a
    footnote's bracket follows (its gap holds a digit: ``5 [1] minutes``, red team 120, F18), and
    one ``K`` follows apart (``300 K``, ``_K``: F12). A bracket is searched for from its "["
    with the digit before it read in the search (a window's citations hold many "[": one
    Python step each cost 1 us), a ``K`` by ``bytes.find`` (few in a text). ``first``: the
    first one found only."""
    out: list[int] = []
    if b"[" in text:
        for m in _FOOTNOTE_AFTER_DIGIT.finditer(text):
            j = m.start()
            while text[j - 1] in b" \t":
                j -= 1
            out.append(j - 1)
            if first:
                return out
    if _holds_no_break_space(text):
        # (a figure a no-break, narrow no-break or thin space follows, the unit after it: red
        # team 123, F06)
        for m in _BLANK_OF.finditer(text):
            if m.start() and 48 <= text[m.start() - 1] <= 57:
                out.append(m.start() - 1)
                if first:
                    return out
    at = text.find(b"K")
    while at >= 0:
        if text[at - 1] in b" \t":
            j = at - 1
            while j and at - j < 4 and text[j - 1] in b" \t":
                j -= 1
            if j and 48 <= text[j - 1] <= 57 and _K_AFTER.match(text, at):
                out.append(j - 1)
                if first:
                    return out
        at = text.find(b"K", at + 1)
    return out


def _unit_leads(text: bytes) -> list[int]:
    """:func:`~provgate._search.unit_leads` of ``text``, and :func:`_extra_leads`, in order."""
    found = unit_leads(text).tolist()
    if _may_have_extra_leads(text) and (more := _extra_leads(text)):
        found = sorted(set(found).union(more))
    return found


def _has_unit_lead(text: bytes) -> bool:
    """Is there any of :func:`_unit_leads` in ``text``?"""
    return bool(len(unit_leads(text))) or _may_have_extra_leads(text) and bool(_extra_leads(text, True))


def _may_have_extra_leads(text: bytes) -> bool:
    """Could :func:`_extra_leads` find one? (The bytes each kind of lead needs; the no-break
    spaces by all their bytes: "\\xe2\\x80" alone, the lead bytes of every curly quote, dash and
    ellipsis, sent most texts of the rewrite benchmark down the slow way, +0.2 ms.)"""
    return b"[" in text or b"K" in text or _holds_no_break_space(text)


# "K" after a figure, apart from it, with no word after it ("Max temp: 300 K."): kelvin's symbol or
# a thousand ("100 K users" is none: a noun after it). Its own unit, ``_K``: kelvin written
# another way, and never a scale of degrees, a count or another unit, whichever it means; a
# "K" glued to the figure ("100K", "$5K") is the number's own (red team 120, F12)
_K = b"K"
_K_AFTER = re.compile(rb"K(?![0-9A-Za-z_])")
_K_WORD_AFTER = re.compile(rb"[ \t]+([A-Za-z]+)")
_UNIT_AFTER_FIGURE = re.compile(_UNIT_TAIL)
# a terminal's escape sequences: CSI (colours, "\x1b[1m"), a character set chosen ("\x1b(B", which
# tput sgr0 writes), and OSC ended by BEL or ST (an OSC 8 hyperlink): red team 118, F18
# (red team 119, F13: and any other: an intermediate's ("\x1b(B"), a string's of any length (OSC,
# DCS "\x1bP...\x1b\\", SOS, PM, APC; possessive, so linear), a two-byte one ("\x1b=", "\x1b7"))
_ANSI_SEQUENCE = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[ -/]+[0-~]|\x1b[P\]X^_][^\x07\x1b]*+(?:\x07|\x1b\\)"
                            rb"|\x1b[0-~]")


# the unit a figure gets where it had none, as a unit change's evidence names it
_NO_UNIT = b"(none)"


def _unit_named(word: bytes, per: bytes | None) -> bytes | None:
    """The name of the unit ``word`` (``per``: the unit of a rate after it), or None. A rate of
    things counted (``100 req/min``, ``5 ops/s``) is named by what it counts however that is
    written (:func:`_counted`): ``requests/min`` and ``requests per minute`` say ``req/min``
    again (red team 117, F13), and ``errors/min`` does not."""
    if word[:1] == b"\xc2" and word[1:2] in b"\xb0\xba" and len(word) >= 3:
        word = b"\xc2\xb0" + word[-1:]  # ("° F", "ºF" with the ordinal sign: "°F"; red team 119, F04)
    unit = _UNITS.get(_unit_spelling(word))
    if per is not None and (per_unit := _UNITS.get(_unit_spelling(per))) is not None:
        return (unit or _counted(word)) + b"/" + per_unit
    return unit


def _same_unit(a: bytes, b: bytes) -> bool:
    """Do units ``a`` and ``b`` (``_UNITS``' names, ``x/y`` for a rate) say the same? A rate of
    nothing named (``count/min``: ``100/min``, ``100 per minute``) is any rate of its period:
    ``100 requests/min`` -> ``100/min`` drops what it counts and keeps the period (red team 118,
    F27), the period changed is another unit."""
    if a == b or a == _K and b == b"kelvin" or b == _K and a == b"kelvin":
        return True  # ("300 kelvin" -> "300 K": kelvin's symbol, red team 120, F12)
    if b" " in a or b" " in b:  # (a currency's sign before either: _with_currency)
        (sign_a, _, a), (sign_b, _, b) = a.rpartition(b" "), b.rpartition(b" ")
        if sign_a != sign_b and not (sign_a and sign_b):
            # a sign on one side, the currency's code or name on the other ("$5/month" of "5
            # USD/month": red team 123, F17)
            sign, signed, named = (sign_a, a, b) if sign_a else (sign_b, b, a)
            (what_s, _, per_s), (what_n, _, per_n) = signed.partition(b"/"), named.partition(b"/")
            return what_s == b"count" and per_s == per_n and what_n in _CURRENCY_NAMES.get(sign, ())
        return sign_a == sign_b and _same_unit(a, b)
    if b"/" not in a or b"/" not in b:
        return False
    (what_a, _, per_a), (what_b, _, per_b) = a.partition(b"/"), b.partition(b"/")
    # (a count is no measure: "100/h" is no "100 GB/h", nor the reverse: red team 120, F10)
    return per_a == per_b and (what_a == b"count" and what_b not in _MEASURED
                               or what_b == b"count" and what_a not in _MEASURED)


# the units that measure (bytes, time, distance...), which a rate of things counted is not:
# a rate of nothing named is not theirs (red team 120, F10)
_MEASURED = frozenset(UNIT_NAMES) - {b"times"}


def _units_given(names: Iterable[bytes], given: set[bytes]) -> bool:
    """Is each of the units ``names`` one of ``given`` (:func:`_same_unit`)?"""
    return all(u in given or any(_same_unit(u, g) for g in given) for u in names)


# what a rate counts, its abbreviations and plural one name (red team 117, F13: "100 req/min" ->
# "100 requests/min" is the same rate; "100 errors/min" is another)
_COUNTED = {spelling: name for name, spellings in {
    b"req": (b"req", b"reqs", b"request", b"requests", b"rq"),
    b"op": (b"op", b"ops", b"operation", b"operations"),
    b"msg": (b"msg", b"msgs", b"message", b"messages"),
    b"query": (b"q", b"qry", b"query", b"queries"),
    b"txn": (b"tx", b"txn", b"txns", b"transaction", b"transactions"),
    b"conn": (b"conn", b"conns", b"connection", b"connections"),
    b"evt": (b"evt", b"evts", b"event", b"events"),
    b"pkt": (b"pkt", b"pkts", b"packet", b"packets"),
    b"hit": (b"hit", b"hits"),
}.items() for spelling in spellings}


def _counted(word: bytes) -> bytes:
    """The name of what a rate counts: its common abbreviations one name, a plural ``s`` dropped."""
    lowered = word.lower()
    found = _COUNTED.get(lowered)
    if found is None:
        found = lowered[:-1] if len(lowered) > 3 and lowered.endswith(b"s") and not lowered.endswith(b"ss") else lowered
    return found


# the rest of a line that makes its first words a label, not a unit: a key-value row's "key: "
# or "key =" ("retries: 3\ndays of retention: 30": "days" labels the next row); words only
# before it, so a citation ("[src:tool:c1]"), an address or a time after a wrapped unit is none
_LABEL_REST = re.compile(rb"[\w \t.()/-]*(?::(?:[ \t\r\n]|$)|=)")


# the unit after one word between it and the figure (unit_leads' rule: a spelling of letters, two
# or more)
_WORD_THEN_UNIT = re.compile(rb"[ \t]+([A-Za-z]{2,16})(?![0-9A-Za-z_])")


# the scale after "degrees": "30 degrees C", "30 deg Fahrenheit" (red team 117, F07)
# (or in brackets, "30 degrees (F)", or after "deg.": red team 119, F04)
_DEGREE_SCALE = re.compile(rb"[ \t]*[(\[]?[ \t]*([CcFf]|(?i:celsius|fahrenheit))[ \t]*[)\]]?(?![0-9A-Za-z_])")


# "N times a/an/each/every <period>": a rate, as "N times per <period>" (red team 119, F05)
_TIMES_A_PERIOD = re.compile(rb"[ \t]+(?i:a|an|each|every|per)[ \t]+([A-Za-z]{1,16})(?![0-9A-Za-z_])")
# the units that are a period of time (a rate's "per ...")
_PERIODS = frozenset((b"ns", b"us", b"ms", b"s", b"min", b"m", b"h", b"d", b"w", b"mo", b"y"))


def _degrees_scale(text: bytes, end: int) -> tuple[bytes | None, int]:
    """The unit of ``degrees`` ending at ``end`` of ``text``: the scale named after it (its
    name and end), else None (an angle, or a temperature of either scale, says no unit)."""
    at = end
    if text[end:end + 1] == b"." and text[max(0, end - 3):end].lower() == b"deg":
        at += 1  # ("deg. F")
    scale = _DEGREE_SCALE.match(text, at)
    if scale is None or at == scale.start(1):  # (a letter glued to the word is none)
        return None, end
    return (b"degc" if scale.group(1)[:1] in b"Cc" else b"degf"), scale.end()


def _unit_of_match(text: bytes, m: re.Match[bytes]) -> bytes | None:
    """The unit a match of ``_UNIT_TAIL`` in ``text`` reads, or None when it read across a line
    break into the label of the next line's row (``retries: 3\\ndays kept: 30``) or the next
    list item: a unit wrapped onto the next line of prose is still the figure's (red team 116,
    F04), but the first word of the next row or item is not (red team 117, F20)."""
    if m.group(1) is None:  # ("100/h": a rate, of nothing named, as "100 per hour")
        per = _UNITS.get(_unit_spelling(m.group(3)))
        if per is None or b"/" in per:
            return None
        # unless a noun after it names what it counts ("100/h requests" is "100 req/h": red team
        # 120, F10)
        return _counted_after(text, m.end()) + b"/" + per
    unit = _unit_named(m.group(1), m.group(2))
    end = m.end()
    if unit is None and m.group(1) == _K and m.group(2) is None and m.start(1) > m.start() and (
            (after := _K_WORD_AFTER.match(text, end)) is None or after.group(1).lower() in _NO_NAME):
        return _K  # ("300 K", kelvin or a thousand: not "100 K users")
    if unit == b"deg":
        unit, end = _degrees_scale(text, m.end(1))
    elif unit == b"times" and m.group(2) is None and (period := _TIMES_A_PERIOD.match(text, end)) is not None:
        # "5 times a day" is the rate "5 times per day" (red team 119, F05)
        per = _UNITS.get(_unit_spelling(period.group(1)))
        if per in _PERIODS:
            unit, end = b"times/" + per, period.end()
    if unit is None and m.group(2) is None and 2 <= len(m.group(1)) <= 16 and m.group(1).isalpha():
        # one word before the unit ("30 idle minutes", "30 more seconds": red team 117, F06)
        after = _WORD_THEN_UNIT.match(text, m.end(1))
        if after is not None and (unit := _unit_named(after.group(1), None)) is not None:
            end = after.end()
            if unit == b"deg":
                unit, end = _degrees_scale(text, end)
            elif m.group(1).lower() == b"per":
                unit = b"count/" + unit  # ("100 per hour": a rate, of nothing named)
    if unit is not None and b"\n" in text[m.start():m.start(1)]:
        line_start = text.rindex(b"\n", m.start(), m.start(1)) + 1
        if text[line_start:m.start(1)].strip(b" \t\r*_`~|") in (b"-", b"+") or _LABEL_REST.match(text, end):
            return None
    return unit


# the word after a rate of nothing named ("100/h requests"): what it counts, if a plural noun
_COUNTED_AFTER = re.compile(rb"[ \t]+([A-Za-z]{3,24})(?![0-9A-Za-z_])")
# plural-looking words that name nothing counted
_NOT_COUNTED = frozenset(b"""always was has does is its this thus plus minus unless across less
various previous whereas perhaps besides towards afterwards sometimes""".split())


def _counted_after(text: bytes, end: int) -> bytes:
    """What a rate of nothing named ending at ``end`` of ``text`` counts: the plural noun right
    after it (``100/h requests``: ``req``; ``100/min errors``: ``error``; a measure's name is
    none, ``100/h GB``), else ``count`` (any thing counted)."""
    m = _COUNTED_AFTER.match(text, end)
    if m is None:
        return b"count"
    word = m.group(1).lower()
    if word in _COUNTED:
        return _COUNTED[word]
    if (not word.endswith(b"s") or word.endswith(b"ss") or word in _NOT_COUNTED or word in _NO_NAME
            or _UNITS.get(word) is not None):
        return b"count"
    return _counted(word)


def _unit_spelling(word: bytes) -> bytes:
    """``word`` lower-cased, unless that makes it a spelling read in lower case only (``US``)."""
    lowered = word.lower()
    return word if lowered in UNIT_LOWER_CASE_ONLY else lowered


def _unit_at(text: bytes, end: int) -> bytes | None:
    """The unit (its ``_UNITS`` name; ``x/y`` for a rate) written after a figure that ends at
    offset ``end`` of ``text``, as a reader sees it, or None: the one reading of a figure's
    unit that every unit rule uses (the figures traded, the units kept on a rewrite, the units
    a block grounds). Terminal colour codes, invisible marks and look-alike letters between
    or in the words are read through (``_NEGATION_FOLD``; red team 116, F03)."""
    start = end
    while start > 0 and text[start - 1] in _FIGURE_BYTES:
        start -= 1
    tail = text[end:end + 96]
    if b"[" in tail[:3]:
        tail = text[end:end + 192]  # (a bracket of words before the unit: red team 125, F06)
    if not tail.isascii():
        # (and the kelvin sign and the one-character degree units as they are read: red team
        # 123, F20, "300 \u212a" had no unit and grounded "300 \u00b0C"; the tail only, whose
        # offsets nothing else reads)
        tail = tail.decode("utf-8", "replace").translate(_NEGATION_FOLD).translate(_UNIT_SIGNS).encode("utf-8")
    if b"\x1b" in tail:
        tail = _ANSI_SEQUENCE.sub(b"", tail)
    m = _UNIT_AFTER_FIGURE.match(tail)
    unit = None if m is None else _unit_of_match(tail, m)
    if b"[" in tail[:3] and (bracket := _BRACKET_AFTER_FIGURE.match(tail)) is not None and (
            unit is None or m.start(1 if m.group(1) is not None else 3) >= bracket.end()):
        # a bracket of words passed over as a note, or too long to be one, that names a unit
        # further in gives the figure that unit ("5 [in ms]", "5 [unit: ms]", "250 [in µs]"); one
        # of words with none, the unit after it (red team 125, F06: the unit after the note, or none,
        # was read, and any unit grounded)
        for word in _BRACKET_WORD.findall(bracket.group(1)):
            if (inside := _unit_named(word, None)) is not None:
                return _with_currency(text, start, inside)
        if unit is None and bracket.group(1)[:1].isalpha() and (
                m := _UNIT_AFTER_FIGURE.match(tail, bracket.end())) is not None:  # (words: no "[1234]")
            unit = _unit_of_match(tail, m)
    return _with_currency(text, start, unit)


# a bracket after a figure (at most two blanks before it) and its inside, and a word of it
_BRACKET_AFTER_FIGURE = re.compile(rb"[ \t]{0,2}\[([^\]\n\[]{1,80})\]")
_BRACKET_WORD = re.compile(rb"(?<![0-9A-Za-z_])(?:[A-Za-z]+|\xc2\xb5[A-Za-z]*|\xce\xbc[A-Za-z]*)(?![0-9A-Za-z_])")


# (and a no-break, narrow no-break or thin space a blank, as a reader sees it: "30\u00a0seconds",
# red team 123, F06)
_UNIT_SIGNS = str.maketrans({"\u212a": "K", "\u2103": "\u00b0C", "\u2109": "\u00b0F",
                             "\u00a0": " ", "\u202f": " ", "\u2009": " ", "\u2007": " ", "\u205f": " "})


# a currency's sign before a figure ("$5/month"): $, £, ¥, €, ₹ (red team 120, F11)
_CURRENCY_SIGNS = (b"$", b"\xc2\xa3", b"\xc2\xa5", b"\xe2\x82\xac", b"\xe2\x82\xb9")
# what a rate counts when it names the currency of a sign ("5 USD/month", "5 dollars/month")
_CURRENCY_NAMES = {b"$": frozenset((b"usd", b"dollar", b"dollars")),
                   b"\xc2\xa3": frozenset((b"gbp", b"pound", b"pounds")),
                   b"\xc2\xa5": frozenset((b"jpy", b"cny", b"yen", b"yuan")),
                   b"\xe2\x82\xac": frozenset((b"eur", b"euro", b"euros")),
                   b"\xe2\x82\xb9": frozenset((b"inr", b"rupee", b"rupees"))}


def _with_currency(text: bytes, start: int, unit: bytes | None) -> bytes | None:
    """``unit``, the unit after the figure that starts at ``start`` of ``text``, with the sign of
    a currency written right before the figure (``$5/month``: ``$ count/mo``): a count made money,
    or money made a count or another currency, is another unit (red team 120, F11)."""
    if unit is None or not start:
        return unit
    if text[start - 1] == 36:  # ("$")
        return b"$ " + unit
    if text[start - 1] >= 0x80:
        for sign in _CURRENCY_SIGNS:
            if text.endswith(sign, 0, start):
                return sign + b" " + unit
    return unit


# what a terminal or a browser shows of its text: colour codes and markup tags are not seen
# (a tag stands between words as a blank would: "<td>30</td><td>seconds</td>"), and a no-break
# space's entity is a blank ("30&nbsp;minutes")
# (three patterns, each led by its literal byte, which the engine searches for: one alternation
# of the three was tried at every byte, 0.2 ms on the rewrite benchmark's blocks)
_MARKUP_TAG = re.compile(rb"<[A-Za-z/!][^<>\n]{0,200}>")
# an entity: numeric ones are read as the character they write (a blank's as a blank: "&#32;",
# "&#x200A;", "&#00160;"), named ones of a blank as a blank, in any case ("&NBSP;", "&hairsp;"),
# other named ones left be (red team 119, F13: a list of spellings missed most)
_ENTITY = re.compile(rb"&(#[0-9]{1,8}|#[xX][0-9a-fA-F]{1,8}|[A-Za-z][A-Za-z0-9]{1,31});")
_BLANK_ENTITIES = frozenset(b"""nbsp thinsp ensp emsp emsp13 emsp14 hairsp numsp puncsp mediumspace thinspace
verythinspace nonbreakingspace""".split())
_BLANK_CODES = frozenset((9, 32, 160, 0x1680, *range(0x2000, 0x200B), 0x202F, 0x205F, 0x3000))


def _entity_read(m: re.Match[bytes]) -> bytes:
    """What a browser shows of the entity ``m`` (``_ENTITY``), for the unit rules."""
    body = m.group(1)
    if body[:1] != b"#":
        return b" " if body.lower() in _BLANK_ENTITIES else m.group()
    code = int(body[2:], 16) if body[1:2] in (b"x", b"X") else int(body[1:])
    if code in _BLANK_CODES:
        return b" "
    if 0 < code < 0x110000 and not 0xD800 <= code < 0xE000:
        return chr(code).encode("utf-8")
    return m.group()


def _as_read(text: bytes) -> bytes:
    """``text`` as a reader sees it, for the unit rules: without terminal colour codes and with
    each markup tag, and the entity of a no-break space, a blank. A CLI colours a figure (``\x1b[1m30\x1b[0m seconds``) and a page
    wraps it (``<b>30</b> seconds``): read as written, the figure was glued to the code's ``m``
    or the tag's ``>`` and had no unit, so a summary or rewrite changing it passed (red team
    117, F21). The same text object when it holds neither."""
    if b"\x1b" in text:
        text = _ANSI_SEQUENCE.sub(b"", text)
    if b"<" in text:
        text = _MARKUP_TAG.sub(b" ", text)
    if b"&" in text:
        text = _ENTITY.sub(_entity_read, text)
    return text


_FIGURE_BYTES = frozenset(b"0123456789.,")
# a byte before a figure that makes it part of a longer token (a word, a number, a version):
# ASCII only, unlike a word's bytes, so "≈30 seconds" is a figure with a unit
_FIGURE_GLUE = frozenset(b"0123456789_.ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
# what may not stand before a figure a source grounds a respelled one with: a token's byte, a sign
_FIGURE_GLUE_OR_SIGN = _FIGURE_GLUE | frozenset(b"+-")
_MINUS_SIGN = "\u2212".encode()


def _figures_with_units(text: bytes, at: list[int]) -> dict[bytes, set[bytes]]:
    """Each figure of ``text`` written with a unit after it -> the units' names: a whole number
    (no ``_FIGURE_GLUE`` byte before it; digits joined by single ``.`` or ``,``), as a number
    (``1,000`` is ``1000``), and its :func:`_unit_at`. ``at``:
    :func:`~provgate._search.unit_leads` of ``text``, the last digit of each candidate."""
    out: dict[bytes, set[bytes]] = {}
    for p in at:
        start = p + 1
        while start > 0 and text[start - 1] in _FIGURE_BYTES:
            start -= 1
        while text[start] in b".,":
            start += 1  # (a figure starts with a digit)
        figure = text[start:p + 1]
        if start > 2 and text[start - 1] in _NO_BREAK_LAST_BYTES and (lo := _grouped_figure_start(text, start)) >= 0:
            start, figure = lo, re.sub(rb"[^0-9]", b"", text[lo:p + 1])  # (1\u00a0234 GB: red team 125, F05)
        if b".." in figure or b",," in figure or b".," in figure or b",." in figure:
            continue
        if start and text[start - 1] in _FIGURE_GLUE:
            continue
        unit = _unit_at(text, p + 1)
        if unit is not None:
            out.setdefault(_figure_number(figure), set()).add(unit)
    return out


# a whole part grouped by thousands (``1,000``, ``12,345,678.5``): the only commas a figure
# drops to be compared as a number
_THOUSANDS = re.compile(rb"[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?")


def _figure_number(figure: bytes) -> bytes:
    """``figure`` as the number it is compared as: ``1,000`` is ``1000`` (red team 116, F02),
    but a decimal comma (``1,5``) or a list (``5,10,30``) is kept as written, which no other
    figure of a source can ground (red team 117, F23: read as ``15`` and ``51030``, a unit
    changed beside them found no unit to keep in the source, and passed)."""
    return figure.replace(b",", b"") if b"," in figure and _THOUSANDS.fullmatch(figure) else figure


def _units_of_figure(text: bytes, figure: bytes) -> set[bytes]:
    """The units (``_UNITS``' names) ``text`` writes after the number ``figure`` (a key of
    :func:`_figures_with_units`: a comma only where it is no thousands separator) where it
    stands as a whole number, written as it is or, with no comma, with its thousands grouped. A plain ASCII text is read in one search a form
    for the figure and a unit after it, which the regular expression engine starts from the
    figure's first bytes, so a long source costs little; a text with other characters or
    colour codes is read at each occurrence of the figure as :func:`_unit_at` reads it."""
    plain = text.isascii() and b"\x1b" not in text
    out: set[bytes] = set()
    for pattern in _figure_searches(figure, plain):
        for m in pattern.finditer(text):
            at = m.start()
            if at and text[at - 1] in _FIGURE_GLUE or text[at - 1:at] == b",":
                continue
            if not plain:
                unit = _unit_at(text, m.end())
            elif b"[" in text[at:m.end()]:
                # (a bracket after the figure: read as _unit_at reads it, red team 125, F06)
                end = at
                while end < len(text) and text[end] in _FIGURE_BYTES:
                    end += 1
                while text[end - 1] in b".,":
                    end -= 1
                unit = _unit_at(text, end)
            else:
                unit = _with_currency(text, at, _unit_of_match(text, m))
            if unit is not None:
                out.add(unit)
    return out


def _figure_searches(figure: bytes, with_unit: bool) -> list[re.Pattern[bytes]]:
    """The searches of the number ``figure`` as written and, with no comma, with its thousands
    grouped: each with a unit after it (``_UNIT_TAIL``), or as a whole number. Cached."""
    out = []
    for written in ((figure,) if b"," in figure else dict.fromkeys((figure, _thousands_grouped(figure)))):
        key = (written, with_unit)
        pattern = _UNIT_SEARCHES.get(key)
        if pattern is None:
            if len(_UNIT_SEARCHES) > 4096:
                _UNIT_SEARCHES.clear()
            pattern = _UNIT_SEARCHES[key] = re.compile(
                re.escape(written) + (_UNIT_TAIL if with_unit else rb"(?![0-9]|[.,][0-9])"))
        out.append(pattern)
    return out


# a key or header that names the unit of the value after it, ending right before the figure:
# "timeout_ms": 300, TIMEOUT_SECONDS=30, timeoutMs: 300, "timeout (seconds): 30", "ttl [h] = 2"
# (red team 117, F06). The suffix after "_", "-" or "." (two letters or more, or s, h, d), a
# camel-case tail, or a word in brackets not glued to a word before them: "(s)" glued to a word
# is its plural, no unit ("Attempt(s): 3"), and the word a unit if it spells one ("Retention
# day(s): 7" is 7 days: red team 119, F27); any other word in brackets glued to the key is a
# unit as one apart is ("delay(ms): 300": red team 120, F19).
# what stands between a key and its value: a quote, ":", "=" or "=>" (red team 119, F14), and then
# an indented next line (YAML's "timeout_ms:\n  300"), a quote, a list's "[" ('"timeout_ms":
# [300]'), a minus ("offset_ms: -300")
# (and a YAML sequence's first item on the next line, "timeout_ms:\n  - 300": red team 120, F13)
# (and, after a key's unit in brackets, "is", "was" or "of" in prose: "The delay(ms) is 300", red
# team 121, F08)
# (and the value's line after comment lines or blank lines, or a comment after the key:
# "timeout_ms:\n  # per stage\n  - 300", "timeout_ms:\n\n  - 300": red team 123, F12)
_KEY_NEXT_LINE = rb"(?:(?:#[^\r\n]*)?\r?\n(?:[ \t]*(?:#[^\r\n]*)?\r?\n)*(?:[ \t]*-[ \t]+|[ \t]+))?"
_KEY_TAIL = (rb"(?:[\"']?[ \t]*(?:=>?|:)[ \t]*" + _KEY_NEXT_LINE + rb"|(?<=[)\]])[ \t]+(?:[Ii]s|[Ww]as|of)[ \t]+)"
             rb"[\"']?[ \t]*(?:\[[ \t]*[\"']?[ \t]*)?-?")
# the prose tail right before a figure (:func:`_key_unit_before`)
_PROSE_KEY_TAIL = re.compile(rb"[)\]][ \t]+(?:[Ii]s|[Ww]as|of)[ \t]+\Z")
_KEY_UNIT = (rb"(?:[A-Za-z0-9](?:[_.-]|(?=\xc2\xb5|\xce\xbc))((?:\xc2\xb5|\xce\xbc)[A-Za-z]{1,15}|[A-Za-z%]{2,16}|[SsHhDd])|[a-z0-9]([A-Z][a-z]{1,15})"
             rb"|(?:(?<![0-9A-Za-z_])|(?=[(\[][ \t]*(?!(?:[sS]|es)[ \t]*[)\]])))[(\[][ \t]*((?:\xc2\xb5|\xce\xbc)?[A-Za-z%]{1,16})[ \t]*[)\]]"
             rb"|(?<![A-Za-z])([A-Za-z]{2,16})\([sS]\)"
             rb"|[A-Za-z)\]][ \t]+[Ii][Nn][ \t]+((?:\xc2\xb5|\xce\xbc)?[A-Za-z%]{1,16}))"
             + _KEY_TAIL)
_KEY_UNIT_BEFORE = re.compile(_KEY_UNIT + rb"\Z")  # (not "$": a line break may end the text before the figure)
# the same key before a figure, as a whole number (its group 6), for one pass over a text dense
# in keys (more than one ":" or "=" in _KEYS_DENSE bytes)
_KEY_UNIT_FIGURE = re.compile(_KEY_UNIT + rb"([0-9](?:[.,]?[0-9])*)(?![0-9]|[.,][0-9])")
_KEYS_DENSE = 48
# the unit a key's "min" names, which is minutes or a minimum ("timeout_min: 5", "memory_min:
# 512"): minutes only against a period stated (red team 119, F06; _check_units_grounded)
_KEY_MIN = b"min?"
# the most occurrences of a figure :func:`_key_units_of_figure` reads (more: one pass over the
# text's keys, _key_units_of_figures; red team 119, F23: a key looked for at each of 100,000
# occurrences of "1" took a second)
_KEY_LOOKS = 32


def _key_units_of_figure(text: bytes, figure: bytes) -> set[bytes] | None:
    """The units (``_UNITS``' names) the keys or headers of ``text`` give the number ``figure``
    where it stands as a whole number right after one (``"timeout_ms": 300``, ``timeout
    (seconds): 30``): a unit written before the figure, where a reader of a config or a table
    takes it (red team 117, F06). ``degrees`` names no scale, here as after a figure. None
    past ``_KEY_LOOKS`` occurrences of the figure (the caller reads the text's keys in one
    pass then)."""
    out: set[bytes] = set()
    looks = 0
    for pattern in _figure_searches(figure, False):
        for m in pattern.finditer(text):
            looks += 1
            if looks > _KEY_LOOKS:
                return None
            at = m.start()
            if not (at and text[at - 1] in _FIGURE_GLUE) and (unit := _key_unit_before(text, at)) is not None:
                out.add(unit)
    return out


def _counted_words(text: bytes) -> dict[bytes, set[bytes]]:
    """Each figure ``text`` states as a count in ``times`` (``Retries 3 times``, ``restarted up
    to 3 times``), as a number -> the words (:func:`_count_word`) that qualify each such count:
    the word right before the figure, past ``_COUNT_FILLER`` ("is retried 3 times": ``retry``).
    One pass over the text (red team 121, F11: a search of the whole text a figure was
    quadratic)."""
    out: dict[bytes, set[bytes]] = {}
    for m in _COUNT_IN_TIMES.finditer(text):
        words = _SENTENCE_WORD.findall(text[max(0, m.start() - 48):m.start()].lower())
        while words and words[-1] in _COUNT_FILLER:
            words.pop()
        out.setdefault(_figure_number(m.group(1)), set()).add(_count_word(words[-1]) if words else b"")
    return out


def _bare_counts(text: bytes) -> dict[bytes, set[tuple[bytes, bool]]]:
    """Each figure ``text`` writes bare as the value of a key (``retries=3``, ``"max_retries":
    3``, ``backoffLimit: 3``) or before a noun of repeats (``3 retries``), as a number -> a pair
    for each: the key's (or noun's) head word (:func:`_count_word`) and whether the key names a
    count of repeats (:func:`_names_repeats`). A figure with a unit after it is none. One pass
    over the text's ":"/"=" and nouns of repeats (red team 121, F11)."""
    out: dict[bytes, set[tuple[bytes, bool]]] = {}
    for m in _KEYED_FIGURE.finditer(text):
        if text[m.start()] not in b":=" or _unit_at(text, m.end(1)) is not None:
            continue
        line = text.rfind(b"\n", max(0, m.start() - 64), m.start()) + 1
        parts = _key_parts(text[max(line, m.start() - 64):m.start()])
        if parts:
            is_count = _names_repeats(parts)
            if not is_count and parts[-1] in _COUNT_HEADS and (
                    call := _CALL_OPEN.search(text, max(line, m.start() - 64), m.start())) is not None:
                # (a count's head as a call's argument, read with the call's name: "@retry(times=3)",
                # "Retry(total=3)"; "retry(delay=5)" is none, red team 123, F05)
                is_count = _names_repeats(_key_parts(call.group(1)) + parts)
            out.setdefault(_figure_number(m.group(1)), set()).add((parts[-1], is_count))
    for m in _COUNT_NOUN.finditer(text):
        noun = _count_word(m.group(2).lower())
        out.setdefault(_figure_number(m.group(1)), set()).add((noun, True))
    _bare_counts_more(text, out)
    return out


def _verb_stem(word: bytes) -> bytes:
    """A count's word (:func:`_count_word`) as the stem its verb and its noun share (``ran``,
    ``run``: ``run``; ``failure``, ``fail``: ``fail``; ``execution``, ``execut``: ``execut``),
    red team 123, F05."""
    if word == b"ran":
        return b"run"
    if len(word) > 6 and word.endswith((b"ion", b"ure")):
        return word[:-3]
    return word


def _bare_counts_more(text: bytes, out: dict[bytes, set[tuple[bytes, bool]]]) -> None:
    """The bare counts of ``text`` written without a ":"/"=" key (red team 123, F05): a flag's
    (``--retry 3``), a call's argument (``stop_after_attempt(3)``; ``@retry(times=3)``, a count's
    head read with the call's name), a key-value table row's (``| retries | 3 |``) and prose's
    (``retries up to 3``, ``Retry count 3``), each figure followed by no unit, no noun."""
    for pattern in (_FLAG_FIGURE, _CALL_FIGURE, _ROW_FIGURE):
        for m in pattern.finditer(text):
            if _unit_at(text, m.end(2)) is None and (parts := _key_parts(m.group(1).replace(b"-", b"_"))):
                out.setdefault(_figure_number(m.group(2)), set()).add((parts[-1], _names_repeats(parts)))
    if b"|" in text:
        # a table's header column over its rows' bare figures ("| job | retries |" over "| sync | 3 |")
        for table in _HEADED_TABLE.finditer(text):
            header = [cell.strip() for cell in table.group(1).strip().strip(b"|").split(b"|")]
            for line in table.group(2).splitlines():
                cells = [cell.strip() for cell in line.strip().strip(b"|").split(b"|")]
                for key, cell in zip(header, cells):
                    if cell.isdigit() and (parts := _key_parts(key.replace(b"-", b"_"))):
                        out.setdefault(_figure_number(cell), set()).add((parts[-1], _names_repeats(parts)))
    for m in _ORDINAL_OF.finditer(text):
        # ("attempt 3 of 3": three attempts made; the total, "of 5", none)
        out.setdefault(_figure_number(m.group(1)), set()).add((_count_word(m.group(0).split()[0].lower()), True))
    for m in _PROSE_COUNT.finditer(text):
        end = m.end(2)
        if _unit_at(text, end) is not None:
            continue
        follower = _X_FOLLOWER.match(text, end)
        if _X_CLAUSE_END.match(text, end) is not None or (
                follower is not None and follower.group(1) in _X_COUNT_FOLLOWERS):
            out.setdefault(_figure_number(m.group(2)), set()).add((_count_word(m.group(1).lower()), True))


# a flag and its figure ("--retry 3"), a call of one figure ("stop_after_attempt(3)"), a key-value
# table row ("| retries | 3 |"), and prose's verb or noun of repeats before a figure ("retries up
# to 3", "Retry count 3"); red team 123, F05
_FLAG_FIGURE = re.compile(rb"(?<![0-9A-Za-z_\-])--?([A-Za-z][A-Za-z0-9\-]{0,40})[ \t]+([0-9]+)(?![0-9A-Za-z_]|[.,][0-9])")
_HEADED_TABLE = re.compile(rb"(?m)^([ \t]*\|[^\n]*\|)[ \t]*\r?\n[ \t]*\|?[ \t]*:?-{3,}[-|: \t]*\r?\n((?:[ \t]*\|[^\n]*\n?){1,64})")
_ORDINAL_OF = re.compile(rb"(?<![0-9A-Za-z_\-])(?:attempt|try|retry|run|restart)[ \t]+#?([0-9]+)[ \t]+of[ \t]+[0-9]+"
                         rb"(?![0-9A-Za-z_])", re.IGNORECASE)
_CALL_OPEN = re.compile(rb"(?<![0-9A-Za-z_])([A-Za-z_][A-Za-z0-9_]{0,40})\([^()\n]*\Z")
_CALL_FIGURE = re.compile(rb"(?<![0-9A-Za-z_])([A-Za-z_][A-Za-z0-9_]{0,40})\([ \t]*([0-9]+)[ \t]*\)")
_ROW_FIGURE = re.compile(rb"(?m)^[ \t]*\|[ \t]*([A-Za-z][A-Za-z0-9_ \-]{0,40}?)[ \t]*\|[ \t]*([0-9]+)[ \t]*\|")
_PROSE_COUNT = re.compile(rb"(?<![0-9A-Za-z_\-])(retries|retried|attempts|attempted|restarts|restarted|reruns|tries|tried|"
                          rb"(?:retry|attempt|restart)[ \t]+(?:count|limit))[ \t]+(?:(?:up[ \t]+to|at[ \t]+most|a[ \t]+"
                          rb"maximum[ \t]+of|max)[ \t]+)?([0-9]+)(?![0-9A-Za-z_]|[.,][0-9])", re.IGNORECASE)


def _key_parts(before: bytes) -> list[bytes]:
    """The words (:func:`_count_word`) of the key that ends ``before`` (the text before its ":"
    or "="): its last run of words and "_", "-", "." apart, split there and at a camel-case hump
    (``backoffLimit``: ``backoff``, ``limit``), a glued ``(s)`` dropped; none before a clause's
    end, another key's ":" or "=" or a bracket ("alpha: workers=5" is ``workers``)."""
    before = before.rstrip(b" \t\"'")
    if (bracket := _KEY_BRACKET_END.search(before)) is not None:
        if bracket.group(1) or bracket.group(2).lower() not in (b"s", b"es"):
            return []  # (a unit in brackets, "backoff limit (s)", "retry_wait(ms)": no count)
        before = before[:bracket.start()]  # (a glued plural: "Attempt(s)")
    found = _KEY_WORDS_END.search(before)
    if found is None:
        return []
    humps = _KEY_HUMPS.findall(found.group(0))[-4:]
    parts = [_count_word(w.lower()) for w in humps]
    if parts and parts[-1] == b"time" and (bracket is not None or humps[-1].lower() == b"times"):
        parts[-1] = b"times"  # ("Retry time(s)", "retry_times": a count; "retry_time" a duration, red team 123, F02)
    return parts[:parts.index(b"per")] if b"per" in parts else parts  # ("retries_per_job": retries)


def _count_word(word: bytes) -> bytes:
    """``word`` (lower case) as the one form of its plural and past (``retries``, ``retried``:
    ``retry``; ``restarts``, ``restarted``: ``restart``)."""
    if len(word) > 4 and word.endswith((b"ies", b"ied")):
        return word[:-3] + b"y"
    if len(word) > 4 and word.endswith(b"ed"):
        return word[:-2]
    if len(word) > 3 and word.endswith(b"s") and not word.endswith(b"ss"):
        return word[:-1]
    return word


def _names_repeats(parts: list[bytes]) -> bool:
    """Do a key's words (:func:`_key_parts`) name a count of repeats: its head word one
    (``max_retries``, ``flaky_reruns``, ``max_restarts``), or a count's head (``limit``,
    ``count``, ``max``) after a word of what is repeated (``backoffLimit``, ``retry_count``)?
    Whole words, never a prefix (red team 121, F01: ``timeout``, ``node_count``,
    ``password_length``; ``retry_delay`` is a delay)."""
    head = parts[-1]
    if head in _REPEATS:
        return True
    if head not in _COUNT_HEADS or head != b"limit" and any(w in _WAITS for w in parts[:-1]):
        return False  # ("backoff_max", "retry_interval_max": that wait's maximum, red team 123, F02)
    return any(w in _REPEATS or w in _REPEATED for w in parts[:-1])


# a figure stated as a count in times: "3 times", "3x" (and a "times" the unit reader reads)
_COUNT_IN_TIMES = re.compile(rb"(?<![0-9A-Za-z_.,\-])([0-9](?:[.,]?[0-9])*)(?:[ \t]+[Tt][Ii][Mm][Ee][Ss]|[xX])(?![0-9A-Za-z_])")
# the words between a count's noun or verb and its figure ("retried up to 3 times")
_COUNT_FILLER = frozenset((b"up", b"to", b"at", b"most", b"least", b"about", b"around", b"approximately", b"exactly",
                           b"only", b"max", b"maximum", b"a", b"an", b"the", b"total", b"of", b"is", b"was", b"are",
                           b"were", b"be", b"been", b"will", b"it", b"than", b"more", b"no", b"some", b"roughly",
                           b"nearly", b"almost", b"over", b"under", b"just"))
# the words (:func:`_count_word`) that name a count of repeats as a key's head or a noun after a
# figure, and those that name what is repeated before a count's head ("backoffLimit")
_REPEATS = frozenset((b"retry", b"attempt", b"try", b"round", b"restart", b"rerun", b"repeat", b"repetition",
                      b"redelivery", b"retransmit", b"retransmission", b"reattempt", b"reconnect", b"respawn",
                      b"replay", b"requeue", b"redo"))
_REPEATED = frozenset((b"backoff", b"retransmit", b"redeliver", b"rerun", b"restart", b"reconnect", b"requeue"))
# (a key's "time" head a count only as "times" or "time(s)", :func:`_key_parts`: "retry_time" is
# a duration; and a head after a word of waiting that wait's maximum, "backoff_max", save
# "backoffLimit": red team 123, F02)
_COUNT_HEADS = frozenset((b"limit", b"count", b"max", b"maximum", b"num", b"number", b"total", b"times", b"cnt", b"n"))
_WAITS = frozenset((b"backoff", b"interval", b"delay", b"timeout", b"wait", b"sleep", b"ttl"))
# a noun of repeats after a figure ("3 retries", "5 attempts")
_COUNT_NOUN = re.compile(rb"(?<![0-9A-Za-z_.,\-])([0-9]+)[ \t]+(retries|retry|attempts|tries|rounds|restarts|reruns|"
                         rb"repeats|repetitions|redeliveries|retransmits|retransmissions|reattempts|reconnects|respawns)"
                         rb"(?![0-9A-Za-z_])", re.IGNORECASE)
# a key's glued plural or unit in brackets at its end ("Attempt(s)"), its last run of words, and
# their parts
_KEY_BRACKET_END = re.compile(rb"([ \t]*)[(\[][ \t]*([^()\[\]]{0,16}?)[ \t]*[)\]]\Z")
_KEY_WORDS_END = re.compile(rb"[A-Za-z][A-Za-z0-9_.\-]*(?:[ \t][A-Za-z][A-Za-z0-9_.\-]*){0,3}\Z")
_KEY_HUMPS = re.compile(rb"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")


def _key_unit_before(text: bytes, at: int) -> bytes | None:
    """The unit a key or header ending right before offset ``at`` of ``text`` names, within its
    line and 80 bytes (``_KEY_UNIT_BEFORE``), or None."""
    j = at
    while j > 0 and text[j - 1] in _KEY_TAIL_BYTES:
        j -= 1
    if j and text[j - 1] not in b":=>" and text.find(b"\n", j, at) >= 0 and text.find(b"#", max(0, at - _KEY_LIST), j) >= 0:
        j = _past_comments(text, j, max(0, at - _KEY_LIST))  # ("timeout_ms:\n  # per stage\n  - 300": F12)
    if j and text[j - 1] == 44 and at > 1:  # (","): a later item of a list after a key, "timeout_ms: 300, 400"
        lo = max(0, at - _KEY_LIST)
        while j > lo and text[j - 1] in _LIST_BYTES:
            j -= 1
        if not j or text[j - 1] not in b":=>":
            return None
        first = j
        while first < at and text[first] in _KEY_TAIL_BYTES:
            first += 1
        if first >= at or _LIST_BETWEEN.fullmatch(text, first, at) is None:
            return None
        return _key_unit_before(text, first)
    if j and text[j - 1] in _DIGIT_OR_QUOTE and 45 in text[j:at]:  # ("-"): a later item of a YAML
        # sequence after a key, "timeout_ms:\n  - 300\n  - 400" (red team 120, F13)
        first = _yaml_first_item(text, at)
        if first is None:
            return None
        j = first
        while j and text[j - 1] in _KEY_TAIL_BYTES:
            j -= 1
        return _key_unit_before(text, first) if at - j <= _KEY_LIST else None
    if not j or text[j - 1] not in b":=>" and (text[j - 1] not in b"sf" or _PROSE_KEY_TAIL.search(text, max(0, at - 12), at) is None):
        return None  # (no key's ":" or "=" right before the figure: most figures, one look)
    line = text.rfind(b"\n", max(0, j - 80), j) + 1  # (the key's line: a value may be on the next)
    found = _KEY_UNIT_BEFORE.search(text, max(line, j - 80), at)
    return None if found is None else _key_unit_of(text, found)


def _past_comments(text: bytes, j: int, lo: int) -> int:
    """Where the bytes before a figure end once the comments between it and the lines above are
    passed over (from ``j``, the end of what stands before the figure's line, back to ``lo`` at
    most): each line's comment, a "#" at its start or after a blank, and the blanks and line
    breaks before it, as far as a key's ":", "=" or "=>" (red team 123, F12). ``j`` itself where
    no comment stands there."""
    while j > lo and text[j - 1] not in b":=>":
        line = text.rfind(b"\n", lo, j) + 1
        comment = _COMMENT_START.search(text, max(line, lo), j)
        if comment is None:
            break
        j = comment.start()
        while j > lo and text[j - 1] in _KEY_TAIL_BYTES:
            j -= 1
    return j


# a comment's "#" at a line's start or after a blank (a "#" in a word or a URL is none)
_COMMENT_START = re.compile(rb"(?<![^ \t\n])#")


_KEY_TAIL_BYTES = frozenset(b" \t\"'[-\r\n")
_DIGIT_OR_QUOTE = frozenset(b"0123456789\"'")
# a YAML sequence's item: the start of its line before the figure, its whole line (the figure its
# group 1), and the next item after a figure's end (red team 120, F13)
_YAML_ITEM_HEAD = re.compile(rb"[ \t]*-[ \t]+[\"']?-?")
# (and a comment after an item, a comment or blank line between items: red team 123, F12)
_YAML_ITEM = re.compile(rb"[ \t]*-[ \t]+[\"']?-?([0-9](?:[.,]?[0-9])*)[\"']?(?:[ \t]+#[^\r\n]*)?[ \t]*\r?")
_BLANK_OR_COMMENT_LINE = re.compile(rb"[ \t]*(?:#[^\r\n]*)?\r?")
_YAML_NEXT = re.compile(rb"[\"']?(?:[ \t]+#[^\r\n]*)?[ \t]*\r?\n(?:[ \t]*(?:#[^\r\n]*)?\r?\n)*[ \t]*-[ \t]+[\"']?-?"
                        rb"([0-9](?:[.,]?[0-9])*)(?![0-9]|[.,][0-9])(?=[\"']?(?:[ \t]+#[^\r\n]*)?[ \t]*(?:\r?\n|\Z))")


def _yaml_first_item(text: bytes, at: int) -> int | None:
    """Where the figure of the first item of the YAML sequence whose item holds the figure at
    ``at`` of ``text`` starts (each item a figure alone on its line, ``  - 300``; the lines above
    read up to ``_KEY_LIST`` bytes), or None: not such an item, or the first."""
    line = text.rfind(b"\n", 0, at) + 1
    if not line or _YAML_ITEM_HEAD.fullmatch(text, line, at) is None:
        return None
    if (rest := _YAML_ITEM.match(text, line)) is None or rest.start(1) != at or not (
            rest.end() == len(text) or text[rest.end()] == 10):
        return None  # (the figure's own line holds more than the item)
    first = None
    lo = max(0, at - _KEY_LIST)
    while line > lo:
        above = text.rfind(b"\n", 0, line - 1) + 1
        item = _YAML_ITEM.fullmatch(text, above, line - 1)
        if item is None:
            if _BLANK_OR_COMMENT_LINE.fullmatch(text, above, line - 1) is not None:
                line = above  # (a blank or comment line between items: F12)
                continue
            break
        first, line = item.start(1), above
    return first
# a list of figures after a key ("timeout_ms: 300, 400": red team 119, F14): its bytes, what
# stands from its first figure to a later one, the next item, and how far from the key an item is read
_LIST_BYTES = frozenset(b"0123456789.,- \t\"'[\r\n")
_LIST_BETWEEN = re.compile(rb"(?:[0-9](?:[.,]?[0-9])*[\"']?[ \t]*,[ \t]*[\"']?[ \t]*-?)+")
_LIST_NEXT = re.compile(rb"[\"']?[ \t]*,[ \t]*[\"']?[ \t]*-?([0-9](?:[.,]?[0-9])*)(?![0-9]|[.,][0-9])")
_KEY_LIST = 256
# "per" before a key's last word: the word is a rate's period ("rate_per_hour", "requestsPerSecond")
_PER = frozenset((b"per",))


# the keys that name a duration, whose glued "(s)" is seconds, not a plural ("timeout(s) = 30")
# ("age(s)", "time(s)", "period(s)", "wait(s)" are plurals as often: ages in years, occurrences;
# none of them here, red team 121, F07)
_DURATION_KEYS = frozenset((b"timeout", b"delay", b"latency", b"interval", b"ttl", b"backoff", b"duration",
                            b"elapsed", b"expiry", b"lifetime", b"uptime", b"downtime", b"sleep", b"runtime"))
# a unit in brackets after a key's figure ("runtime(s): 45 (minutes)"), which wins over a
# duration's "(s)" (red team 121, F07)
_BRACKET_UNIT_AFTER = re.compile(rb"[ \t]*[(\[][ \t]*((?:\xc2\xb5|\xce\xbc)?[A-Za-z%]{1,16})[ \t]*[)\]]")
_FIGURE_RUN = re.compile(rb"-?[0-9](?:[.,]?[0-9])*")


def _key_unit_of(text: bytes, found: re.Match[bytes]) -> bytes | None:
    """The unit a match of ``_KEY_UNIT`` names: its suffix, camel-case tail or bracketed word's
    (``degrees`` none), a rate of nothing named after "per" (``rate_per_hour``: ``count/h``), and
    a bare ``min`` ``_KEY_MIN`` (minutes or a minimum: red team 119, F06)."""
    k = next(g for g in (1, 2, 3, 4, 5) if found.group(g) is not None)
    word = found.group(k)
    # ("Data in GB:", its case kept where it matters: "Nodes in US:" names no microseconds)
    unit = _UNITS.get(word.lower()) if k < 5 else _UNITS.get(_unit_spelling(word)) if len(word) >= 2 else None
    if unit is None and k == 4 and word.lower() in _DURATION_KEYS:
        # (a duration's "(s)" is its seconds: "timeout(s) = 30", red team 120, F19), unless a unit
        # written after the figure names another ("runtime(s): 45 (minutes)": red team 121, F07)
        figure = _FIGURE_RUN.match(text, found.end(6) if found.re is _KEY_UNIT_FIGURE else found.end())
        if figure is not None:
            after = _unit_at(text, figure.end())
            if after is None and (bracket := _BRACKET_UNIT_AFTER.match(text, figure.end())) is not None:
                after = _UNITS.get(_unit_spelling(bracket.group(1)))
            if after is not None:
                return after
        return _UNITS[b"s"]
    if unit is None or unit == b"deg":
        return None
    start = found.start(k)
    if k == 1 and text[max(0, start - 4):start - 1].lower() in _PER or k == 2 and text[max(0, start - 3):start].lower() in _PER:
        return b"count/" + unit if unit in _PERIODS else None
    if k <= 2 and word.lower() == b"min":
        return _KEY_MIN
    return unit


# a markdown table's rule line ("|---|:--:|"), the line after its header
_TABLE_RULE = re.compile(rb"^[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*\r?$", re.MULTILINE)
# a cell that holds one figure (and a minus)
_CELL_FIGURE = re.compile(rb"[ \t]*-?([0-9](?:[.,]?[0-9])*)[ \t]*")


def _cells(line: bytes) -> list[bytes]:
    """The cells of a markdown table's row ``line``."""
    line = line.strip(b" \t\r")
    return line[line[:1] == b"|":len(line) - (line[-1:] == b"|")].split(b"|")


def _header_cell_unit(cell: bytes) -> bytes | None:
    """The unit a table header's cell names: as a key would (``timeout (s)``, ``timeout_ms``),
    or a unit's spelling of two letters or more alone (``seconds``, ``ms``)."""
    cell = cell.strip(b" \t*_`")
    if len(cell) >= 2 and cell.isalpha() and (unit := _UNITS.get(cell.lower())) is not None:
        return None if unit == b"deg" else unit
    keyed = cell + b":"
    found = _KEY_UNIT_BEFORE.search(keyed)
    return None if found is None else _key_unit_of(keyed, found)


def _header_units(text: bytes) -> dict[bytes, set[bytes]]:
    """Each figure that stands alone in a cell of a markdown table of ``text`` -> the units its
    column's header names (``| service | timeout (s) |``: red team 119, F14). Each row is read
    once, for the rule above it: linear in the text."""
    out: dict[bytes, set[bytes]] = {}
    n = len(text)
    for rule in _TABLE_RULE.finditer(text):
        if rule.start() < 2:
            continue
        header_start = text.rfind(b"\n", 0, rule.start() - 1) + 1
        units = [_header_cell_unit(c) for c in _cells(text[header_start:rule.start() - 1])]
        if not any(units):
            continue
        at = rule.end() + 1
        while at < n:
            end = text.find(b"\n", at)
            end = n if end < 0 else end
            row = text[at:end]
            if b"|" not in row:
                break
            for unit, cell in zip(units, _cells(row)):
                if unit is not None and (figure := _CELL_FIGURE.fullmatch(cell)) is not None:
                    out.setdefault(_figure_number(figure.group(1)), set()).add(unit)
            at = end + 1
    return out


def _row_key_units(text: bytes) -> dict[bytes, set[bytes]]:
    """Each figure that stands alone in a markdown table's cell right after a cell that is a key
    naming a unit (a key-value row, ``| delay(ms) | 300 |``: red team 121, F08) -> those units.
    Each line with a "|" read once."""
    out: dict[bytes, set[bytes]] = {}
    at, n = 0, len(text)
    while (bar := text.find(b"|", at)) >= 0:
        start = text.rfind(b"\n", 0, bar) + 1
        end = text.find(b"\n", bar)
        end = n if end < 0 else end
        cells = _cells(text[start:end])
        for key, cell in zip(cells, cells[1:]):
            if (figure := _CELL_FIGURE.fullmatch(cell)) is not None and _ROW_KEY.search(key) is not None and (
                    found := _KEY_UNIT_BEFORE.search(keyed := key.strip(b" \t*_`") + b":")) is not None and (
                    unit := _key_unit_of(keyed, found)) is not None:
                # (a key's form only: a unit's word alone, "| min | 3 |", is a statistic's name)
                out.setdefault(_figure_number(figure.group(1)), set()).add(unit)
        at = end + 1
    return out


# a cell that may be a key naming a unit: a letter in it (a figure's cell is none)
_ROW_KEY = re.compile(rb"[A-Za-z]")


def _key_units_of_figures(text: bytes) -> dict[bytes, set[bytes]]:
    """:func:`_key_units_of_figure` of every figure of ``text`` at once (its keys, in one pass:
    each figure after a ":" or "=", its key read once for each text before it, so a text of
    100,000 figures of one key reads it once: red team 119, F23)."""
    out: dict[bytes, set[bytes]] = {}
    if (text.count(b":") + text.count(b"=")) * _KEYS_DENSE > len(text):
        # (a text dense in keys: one search of key and figure, ~0.25 us a byte, where a look a
        # ":" costs 3-12 us: F23's "a_b: 1 " x 100,000)
        known: dict[bytes, bytes | None] = {}  # a key (and the 4 bytes before it: "per_") -> its unit
        for m in _KEY_UNIT_FIGURE.finditer(text):
            key = text[max(0, m.start() - 4):m.start(6)]
            unit = known.get(key, _NO_UNIT) if m.group(4) is None else _NO_UNIT  # (a duration's "(s)": by its figure)
            if unit is _NO_UNIT:
                unit = known[key] = _key_unit_of(text, m)
            if unit is not None:
                out.setdefault(_figure_number(m.group(6)), set()).add(unit)
                _key_list_items(text, m.start(6), m.end(6), unit, out)
        return out
    seen: dict[bytes, bytes | None] = {}  # the text a key may be read from -> its unit
    for m in _KEYED_FIGURE.finditer(text):
        at = m.start(1)
        line = text.rfind(b"\n", max(0, m.start() - 80), m.start()) + 1
        before = text[max(line, m.start() - 80):at]
        unit = seen.get(before, _NO_UNIT)
        if unit is _NO_UNIT:
            found = _KEY_UNIT_BEFORE.search(before)
            unit = seen[before] = None if found is None else _key_unit_of(before, found)
        if unit is not None:
            out.setdefault(_figure_number(m.group(1)), set()).add(unit)
            _key_list_items(text, m.start(1), m.end(1), unit, out)
    return out


def _key_list_items(text: bytes, start: int, at: int, unit: bytes, out: dict[bytes, set[bytes]]) -> None:
    """Give ``unit`` to the figures of a list after a key's first one (from ``start`` to
    ``at``), as far as :func:`_key_unit_before` reads them (the key's ":" at most ``_KEY_LIST``
    bytes before each)."""
    figure_start = start
    while start and text[start - 1] in _KEY_TAIL_BYTES:
        start -= 1  # (to the end of the key's ":", "=" or "=>")
    listed = False
    while (item := _LIST_NEXT.match(text, at)) is not None and item.start(1) - start <= _KEY_LIST:
        out.setdefault(_figure_number(item.group(1)), set()).add(unit)
        at, listed = item.end(), True
    if listed or b"\n" not in text[start:figure_start]:
        return
    line = text.rfind(b"\n", 0, figure_start) + 1
    if _YAML_ITEM_HEAD.fullmatch(text, line, figure_start) is None:
        return
    # a YAML sequence's later items, each a figure alone on its line (red team 120, F13)
    while (item := _YAML_NEXT.match(text, at)) is not None and item.start(1) - start <= _KEY_LIST:
        out.setdefault(_figure_number(item.group(1)), set()).add(unit)
        at = item.end()


# a figure right after a key's ":" or "=" (and a quote), as a whole number
_KEYED_FIGURE = re.compile(rb"(?:[:=]>?[ \t]*" + _KEY_NEXT_LINE + rb"|[)\]][ \t]+(?:[Ii]s|[Ww]as|of)[ \t]+)[\"']?[ \t]*(?:\[[ \t]*[\"']?[ \t]*)?-?"
                           rb"([0-9](?:[.,]?[0-9])*)(?![0-9]|[.,][0-9])")


def _thousands_grouped(figure: bytes) -> bytes:
    """``figure`` with its whole part's thousands grouped by commas (``1000.5`` -> ``1,000.5``)."""
    whole, dot, fraction = figure.partition(b".")
    if len(whole) <= 3:
        return figure
    head = len(whole) % 3 or 3
    groups = [whole[:head]] + [whole[k:k + 3] for k in range(head, len(whole), 3)]
    return b",".join(groups) + dot + fraction


_UNIT_SEARCHES: dict[tuple[bytes, bool], re.Pattern[bytes]] = {}
# the most figures asked of a source that are searched for one by one (more: one pass over it)
_FEW_FIGURES = 4


def _word_bounds(text: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray, bytes]:
    """Each word's (start, end) in ``text``, a blank word either end; the indices of the words
    that are no number (the blank ones too); the text lower-cased."""
    data = np.frombuffer(text, dtype=np.uint8)
    inside = np.zeros(data.size + 2, dtype=np.int8)
    inside[1:-1] = _WORD_BYTE_TABLE[data]
    edges = np.diff(inside)
    starts = np.concatenate(([0], np.flatnonzero(edges == 1), [data.size]))
    ends = np.concatenate(([0], np.flatnonzero(edges == -1), [data.size]))
    other = np.zeros(data.size + 1, dtype=np.int64)  # bytes of a word that are no digit
    np.cumsum(inside[1:-1] & ~((data >= 0x30) & (data <= 0x39)), out=other[1:])
    wordy = np.flatnonzero(other[ends] > other[starts])
    wordy = np.concatenate(([0], wordy[(wordy > 0) & (wordy < starts.size - 1)], [starts.size - 1]))
    return starts, ends, wordy, text.lower()


def _words_of(bounds: tuple[np.ndarray, np.ndarray, np.ndarray, bytes]) -> list[bytes]:
    """The words (lower-cased) of :func:`_word_bounds`, without the blank ones."""
    starts, ends, _, lowered = bounds
    return [lowered[a:b] for a, b in zip(starts[1:-1].tolist(), ends[1:-1].tolist())]


# the words beside a figure a rewrite may cut with it and still be read as replacing it in
# place (Gate._report_replaced_in_place: "30 seconds" -> "1 minute")
_REWORDED = 2


# the most word pairs a rewritten block's changed middle is aligned over (about 100 words
# each side); past it no word of the middle counts as cut, and a lost occurrence there is not
# excused (fail closed). The alignment is cubic in the middle's words when one word repeats
# and the matches are short: 4,000,000 pairs let one check of an 800-word block take 10 s,
# and an honest rewrite of 800 words of ping output 1.6 s (red team 108, F02); at 10,000 pairs
# the worst middle costs about 0.04 s
_ALIGN_PAIRS = 10_000


def _kept_words(pre: list[bytes], post: list[bytes]) -> list[int]:
    """Of each word of ``pre``: the index of the word of ``post`` a word alignment keeps it as
    (the common start and end, then a longest-matching-blocks alignment of the middle), -1 for
    a word it does not keep, -2 for one of a middle too long to align: no word of that counts as
    cut, nor as kept in place (fail closed, see Gate._moved_occurrences)."""
    n, m = len(pre), len(post)
    lo = 0
    while lo < n and lo < m and pre[lo] == post[lo]:
        lo += 1
    hi = 0
    while hi < n - lo and hi < m - lo and pre[n - 1 - hi] == post[m - 1 - hi]:
        hi += 1
    kept = [*range(lo), *([-1] * (n - lo - hi)), *range(m - hi, m)]
    if n - lo - hi and m - lo - hi:
        if (n - lo - hi) * (m - lo - hi) > _ALIGN_PAIRS:
            kept[lo:n - hi] = [-2] * (n - lo - hi)
        else:
            matcher = difflib.SequenceMatcher(None, pre[lo:n - hi], post[lo:m - hi], autojunk=False)
            for a, b, length in matcher.get_matching_blocks():
                kept[lo + a:lo + a + length] = range(lo + b, lo + b + length)
    return kept


def _slid_cuts(pre: list[bytes], kept: list[int], way: int) -> list[int]:
    """``kept`` (of :func:`_kept_words`) with each run of cut words (-1) slid ``way`` (-1: toward
    the start, 1: toward the end) while the kept word beside it equals the run's far end: the
    same texts aligned, the cut anchored at the other copy of the word. Each run stops at the
    next cut one, so one pass is linear in the words."""
    out = list(kept)
    n = len(out)
    if way < 0:
        w = 0
        while w < n:
            if out[w] != -1:
                w += 1
                continue
            a = w
            while w < n and out[w] == -1:
                w += 1
            b = w  # the run is [a, b)
            while a > 0 and out[a - 1] >= 0 and pre[a - 1] == pre[b - 1]:
                out[b - 1], out[a - 1] = out[a - 1], -1
                a -= 1
                b -= 1
    else:
        w = n - 1
        while w >= 0:
            if out[w] != -1:
                w -= 1
                continue
            b = w + 1
            while w >= 0 and out[w] == -1:
                w -= 1
            a = w + 1  # the run is [a, b)
            while b < n and out[b] >= 0 and pre[b] == pre[a]:
                out[a], out[b] = out[b], -1
                a += 1
                b += 1
    return out


def _row_slices(rows: _RowMap) -> dict[int, tuple[int, int]]:
    """Block -> the (start, end) of its rows in ``rows``' concatenation."""
    ends = list(accumulate(rows.sizes))
    return {block: (end - size, end) for block, size, end in zip(rows.indices, rows.sizes, ends)}


def _within_paragraphs(text: bytes) -> bytes:
    """``text`` with each run of ASCII whitespace one space, or a blank line when it holds one."""
    return _WHITESPACE_RUN.sub(lambda run: b"\n\n" if _BLANK_LINE.search(run.group()) else b" ", text)


_WHITESPACE_RUN = re.compile(rb"[ \t\n\r\f\v]+")


def _reflowed_regions(table: FactTable, other: FactTable) -> list[tuple[int, int]]:
    """The byte spans of ``table``'s text where a fact of either text that stands on
    one line with a blank inside (a quotation or code span, delimiters included, a
    ``key="quoted value"``) stands, whitespace aside, that the other text holds at least as
    often (:meth:`_Check._inside_reflowed_quotations`). Found in one Aho-Corasick pass over each
    text with its whitespace runs one space, each match mapped back to the text's bytes."""
    import ahocorasick  # (only a fact a re-flow dropped or introduced asks for it)

    wanted = set()
    for t in (table, other):
        data = np.frombuffer(t.data, dtype=np.uint8)
        blank = np.zeros(data.size + 1, dtype=np.int64)
        np.cumsum((data == 0x20) | (data == 0x09), out=blank[1:])
        broken = np.zeros(data.size + 1, dtype=np.int64)
        np.cumsum((data == 0x0A) | (data == 0x0D) | (data == 0x0B) | (data == 0x0C), out=broken[1:])
        # a fact on one line with a blank inside (a fenced block's lines are verbatim)
        spread = np.flatnonzero((blank[t.end] > blank[t.start]) & (broken[t.end] == broken[t.start]))
        for r in spread.tolist():
            text = t.data[int(t.start[r]):int(t.end[r])]
            if text.strip() == text:
                wanted.add(_within_paragraphs(text) if b"\t" in text or b"  " in text else text)
    if not wanted:
        return []
    automaton = ahocorasick.Automaton()
    for needle in wanted:
        automaton.add_word(needle.decode("latin-1"), needle)
    automaton.make_automaton()
    own, own_map = _spaced(table.data)
    theirs = Counter(needle for needle, _ in _standing(automaton, _spaced(other.data)[0]))
    found: dict[bytes, list[int]] = {}
    for needle, start in _standing(automaton, own):
        found.setdefault(needle, []).append(start)
    spans = []
    for needle, places in found.items():
        if len(places) <= theirs[needle]:
            # (a fact neither starts nor ends with a blank: both ends map to bytes of the text)
            spans.extend((own_map(a), own_map(a + len(needle) - 1) + 1) for a in places)
    spans.sort()
    # each span's end as the furthest of those starting no later (_inside asks one of them)
    return list(zip([a for a, _ in spans], accumulate((b for _, b in spans), max)))


# what may not touch a re-flowed fact's text for it to stand there (_standing): "x = 5" does
# not stand in "max = 50", "y.x = 5" or "x = 5.5"; a sentence's full stop after it is no glue
_JOINERS = frozenset(b".-:/@")
_GLUE = _WORD_BYTES | _JOINERS
_STOPS = frozenset(b".,;:!?)]}\"'`")


def _standing(automaton: Any, text: bytes) -> Iterator[tuple[bytes, int]]:
    """(needle, start) of each occurrence of a needle of ``automaton`` in ``text`` that no word
    byte or joiner touches before it, and a blank, the end, or one closing or stopping byte and
    then a blank or the end follows."""
    n = len(text)
    ends: dict[bytes, int] = {}  # (copies of one needle that overlap count once: _occurrences)
    for end, needle in automaton.iter(text.decode("latin-1")):
        start = end + 1 - len(needle)
        after = end + 1
        # after it: a blank, the end, or one closing or stopping byte before a blank or the end
        # (red team 100, F04: "max_conns = 5" stood in "max_conns =\n5,000" and "5%", and the
        # changed value passed as a re-flow)
        if (start > 0 and text[start - 1] in _GLUE) or (after < n and text[after] not in _SPACES and not (
                text[after] in _STOPS and (after + 1 == n or text[after + 1] in _SPACES))):
            continue
        if start <= ends.get(needle, -1):
            continue
        ends[needle] = end
        yield needle, start


_RESPACED_RUN = re.compile(rb"[ \t\n\r\f\v]{2,}|[\t\n\r\f\v]")


def _spaced(text: bytes) -> tuple[bytes, Callable[[int], int]]:
    """``text`` as :func:`_within_paragraphs` writes it, and a map from a byte of that, not in
    a run it wrote, back to its place in ``text``."""
    pieces = []
    starts: list[int] = []  # where each run written stands in the spaced text
    shift: list[int] = []  # and how much later the bytes after it stand in ``text``
    at = 0
    written = 0
    for run in _RESPACED_RUN.finditer(text):  # (a lone space is written as it is)
        pieces.append(text[at:run.start()])
        written += run.start() - at
        one = b"\n\n" if _BLANK_LINE.search(run.group()) else b" "
        pieces.append(one)
        written += len(one)
        starts.append(written)
        shift.append(run.end() - written)
        at = run.end()
    pieces.append(text[at:])

    def back(k: int) -> int:
        n = bisect_right(starts, k)
        return k + (shift[n - 1] if n else 0)

    return b"".join(pieces), back


def _ground_wrapped_quotes(tables: list[FactTable], haystacks: list[list[bytes]], owner: np.ndarray,
                           row: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The (owner, row) pairs left once each quotation is also looked for where its source
    wraps a line inside the quoted words (red team 90, F02: a summary quoting "approve every
    rollout to the payments cluster" of a doc hard-wrapped after "payments" was refused as
    quoting what its sources do not say). A quotation is grounded by a text of ``haystacks[t]``
    (its sources, and its pre version) where ``provgate verify`` would grade it ``whitespace``:
    the same words in the same order, no word or number of the source cut, the quotation's
    facts, not right after a negation (a code span excepted), and, beyond verify, within one
    paragraph (no blank line inside)."""
    # (imported here: only a quotation left over asks for it)
    from provgate.reconstruct import whitespace_match

    keep = np.ones(owner.size, dtype=np.bool_)
    looked = 0
    for n, (t, r) in enumerate(zip(owner.tolist(), row.tolist())):
        table = tables[t]
        if table.kind[r] != _KIND_QUOTE:
            continue
        quote = table.data[int(table.value_start[r]):int(table.value_end[r])]
        words = quote.split()
        if len(words) < 2 or looked >= MAX_WRAPPED_QUOTE_LOOKUPS or b"\n" in table.data[
                int(table.start[r]):int(table.end[r])]:
            # (one word has no line break to wrap at: the exact search answered; a fenced
            # block's lines are verbatim, its whitespace text: red team 11, y06)
            continue
        # (every quotation looked for counts, found in a source or not: counting only those
        # whose first and last words a source held let thousands each scan every source,
        # red team 99, F12)
        looked += 1
        code = table.data[int(table.start[r]):int(table.start[r]) + 1] == b"`"
        for haystack in haystacks[t]:
            if words[0] not in haystack or words[-1] not in haystack or not _ASCII_BLANKS.search(haystack):
                continue
            span = whitespace_match(quote, haystack, negation_applies=not code)
            # the source's own wrapped words are then held to the boundaries an exact quotation
            # is held to (verify cuts no token, but "rm -rf /" of "rm -rf /tmp" ends inside one)
            # (and never across a line break inside a fenced block, whose lines are verbatim:
            # two code lines joined into one command, red team 96, F11)
            broken = span is not None and _LINE_BREAK.search(haystack, span[0], span[1]) is not None
            if (span is not None and _BLANK_LINE.search(haystack, span[0], span[1]) is None
                    and not (broken and (len(_FENCE_LINE.findall(haystack, 0, span[0])) % 2
                                         or _breaks_code_lines(haystack, span[0], span[1])))
                    and occurs_at_boundaries([haystack[span[0]:span[1]]], [haystack],
                                             modes=[_MODE_RELAXED if code else _MODE_QUOTE])[0]):
                keep[n] = False
                break
    return (owner, row) if keep.all() else (owner[keep], row[keep])

_PAGE = re.compile(r"#L(\d+)(?:-L?(\d+))?$")
# a page named in a text: "lines 1-200", "Lines 1 to 200", "L1-L200", "L1–L200", "line 40", "L40"
_LINE_RANGE = re.compile(
    rb"(?i)(?<![\w-])(?:lines?[ \t]+L?|L)(\d+)(?:[ \t]*(?:-|\xe2\x80\x93|to|through)[ \t]*L?(\d+))?(?![\w-])")


def _page_numbers(resource: str) -> tuple[str, str | None] | None:
    """The line range a resource's page fragment names (``file:a.ini#L1-200``: 1 to 200)."""
    found = _PAGE.search(resource)
    return (found.group(1), found.group(2)) if found else None


# the words a framework writes in place of a secret it scrubs (red team 95, F06: "[REDACTED]"
# and "api_key = REDACTED" were refused as names no source holds, "<redacted>" passed)
_PLACEHOLDERS = frozenset((b"REDACTED", b"MASKED"))


def _placeholder(table: FactTable, r: int) -> bool:
    """Is row ``r`` a redaction placeholder (the word, or a ``key=value`` fact whose value it
    is, written in capitals), which asserts nothing of a source?"""
    return table.data[int(table.value_start[r]):int(table.value_end[r])] in _PLACEHOLDERS


def _key_said(table: FactTable, r: int, texts: list[_Facts], keys: dict[int, set[tuple[int, int]]]) -> bool:
    """Is the key of kv row ``r`` a kv key one of ``texts`` says? A redacted value asserts
    nothing, but its key does: ``db_password = REDACTED`` of a config without that key claims a
    secret the source never had (red team 99, F03)."""
    key = tuple(table.fp_key[r].tolist())
    for x in texts:
        if id(x) not in keys:  # (once a text: a set per row was quadratic, red team 100, F06)
            keys[id(x)] = set(map(tuple, x.table.fp_key[x.table.kind == _KIND_KV].tolist()))
        if key in keys[id(x)]:
            return True
    return False


def _pronoun_one(data: bytes, start: int, end: int) -> bool:
    """Is the number word at ``data[start:end]`` the pronoun "one" ("no one objected", "one of
    the tests", "the one that failed"), not a count ("the one node down", "only one of the 12
    nodes": red team 13, q03)?"""
    if data[start:end].lower() != b"one":
        return False
    before = data[max(0, start - 16):start].split()
    # (the next words, however far: a run of blanks before the number hid it, red team 99, F06)
    after = [m.group() for m in islice(_WORD_RUN.finditer(data, end), 7)]
    word_before = before[-1].lower() if before else b""
    word_after = after[0].lower() if after else b""
    # "one of the 12 nodes" counts among a number (red team 94, F06: of "3 of the 12 nodes are
    # down", accepted), and so do "one of 12 nodes", "one of all 12", "one of the cluster's 12",
    # "one of the (12)" (red team 99, F06): a number among the three words after "of";
    # "one of the tests" does not; further on, up to six words after "of", a number after a
    # possessive (red team 100, F02: "one of the eu-west-1 cluster's 12 nodes" for "3 of …" was
    # accepted), a group's qualified name, not a verb's object ("one of the tests took 3 minutes")
    counted = any(_NUMBER_WORD.search(word) for word in after[1:4]) or any(
        _NUMBER_WORD.search(word) and _POSSESSIVE.search(after[k - 1]) for k, word in enumerate(after[4:7], 4))
    return (word_before in _ONE_AFTER or (word_after == b"of" and word_before not in _ONE_COUNTED and not counted)
            or (word_before == b"the" and word_after in _ONE_RELATIVE))


def _cites(block: Block) -> bool:
    """Are ``[src:…]`` markers in this block citations (the agent's own text, or a summary),
    not data (a tool's output, a user's or the system's words)?"""
    return block.derived or block.role in ("assistant", "summary")


_SPEAKERS = frozenset(("user", "system"))  # roles whose words a copy by another never keeps
# roles whose turns are their text, whatever handle a framework logs them under, so R finds them
# as a pinned text re-rendered whatever handles they carry (as a block without handles: red team
# 44, F1; a user's turn logged under a handle of its own, red team 46, F3; an assistant's, red
# team 48): a turn, not a tool's output (a tool page under another handle is another source)
_TURNS = frozenset(("user", "system", "assistant"))


def _speaker(block: Block) -> str:
    """Who says a block's text, for telling duplicates apart: the user or the system (whatever
    its tags: a derived tag does not make the user's words the agent's, red team 25, v01), the
    agent (its turns and summaries, whose markers cite), or the tool."""
    return block.role if block.role in _SPEAKERS else "agent" if _cites(block) else block.role


def _citing_markers(block: Block, facts: _Facts) -> int:
    """The markers of ``block`` that I5 counts: its citations, none where they are data
    (red team 12, z03: a tool output quoting "[src:a]" paid for the citations a turn lost)."""
    return facts.n_markers if _cites(block) else 0


_DIGEST_BYTES = 32  # a text digest (BLAKE3), as Gate.digests makes them
_FEW_TEXT_PINS = 32  # (_Side.holding_text: up to this many, a search each; beyond, an index)


@functools.lru_cache(maxsize=1 << 12)  # (a session asks for its few pinned texts' keys on every check)
def _text_key(handle: str) -> bytes | None:
    """The digest prefix a ``block:`` text handle names (as ``block_text_handle`` writes it),
    else None."""
    if not handle.startswith(BLOCK_HANDLE_PREFIX) or len(handle) != len(BLOCK_HANDLE_PREFIX) + 32:
        return None
    hexdigits = handle[len(BLOCK_HANDLE_PREFIX):]
    try:
        key = bytes.fromhex(hexdigits)
    except ValueError:
        return None
    return key if key.hex() == hexdigits else None


# a marker name that can cite a block's text handle: the handle, or its name after the kind
# prefix (block_text_handle: 32 hex digits)
_TEXT_HANDLE_NAME = re.compile(r"(?:block:)?[0-9a-f]{32}")


def _names_citing(handles: Iterable[str]) -> Iterator[str]:
    """The marker names that may cite one of ``handles``: the handle, and its name after the
    kind prefix (``[src:call_8]`` for ``tool:call_8``)."""
    for h in handles:
        yield h
        if ":" in h:
            yield h.partition(":")[2]


def _above(below: Mapping[str, Iterable[str]]) -> dict[str, list[str]]:
    """``below`` (summary's block handle -> the handles right below it) turned round: handle ->
    the summaries right above it."""
    above: dict[str, list[str]] = {}
    for h, under in below.items():
        for x in under:
            above.setdefault(x, []).append(h)
    return above


def _standing_for(above: dict[str, list[str]], handles: set[str]) -> set[str]:
    """The summaries that stand for one of ``handles``: those from which a chain of one or more
    steps down (``above`` turned round, :func:`_above`) leads to one."""
    out: set[str] = set()
    todo = [h for x in _among(handles, above) for h in above[x]]
    while todo:
        h = todo.pop()
        if h not in out:
            out.add(h)
            todo.extend(above.get(h, ()))
    return out


def _logged_reads(entries: list[Any]) -> Iterator[tuple[str, float | None, str | None]]:
    """The (handle, ts, the read it went before) of an audit record's read log entries (None:
    at the end, or not said); an entry without a handle and a ts is skipped (a ts it cannot use
    counts as none, a read named before that is no string as none), and the fields a later
    writer may add after them are ignored, as unknown fields are everywhere: skipping such an
    entry forgot every read of the session (red team 38, 04: I4 across edits failed open)."""
    for entry in entries:
        if isinstance(entry, list) and len(entry) >= 2 and isinstance(entry[0], str):
            ts = entry[1]
            try:
                usable = isinstance(ts, (int, float)) and not isinstance(ts, bool) and math.isfinite(ts)
            except OverflowError:  # an int beyond any float
                usable = False
            before = entry[2] if len(entry) >= 3 and isinstance(entry[2], str) else None
            yield entry[0], float(ts) if usable else None, before


class _StaleBasis(NamedTuple):
    """What the stale-value check of a resource compares post with (:func:`stale_basis`)."""

    older_kv: dict[tuple[int, int], dict[tuple[int, int], int]]  # key -> {older value: its row}
    older_owner: dict[tuple[tuple[int, int], tuple[int, int]], Any]  # (key, value) -> the first older read with it
    facts_of: dict[Any, _Facts]  # older read -> its facts
    keys: SortedFingerprints  # the keys that went stale
    newest_values: dict[tuple[int, int], set[tuple[int, int]]]  # key -> the newest read's values
    newest_row: dict[tuple[int, int], int]  # key -> its first row in the newest read
    newest_facts: _Facts
    candidates: list[tuple[int, int]]  # every older and newer value of those keys
    candidate_fps: np.ndarray
    candidate_set: frozenset[tuple[int, int]]
    newest_any: frozenset[tuple[int, int]]  # every newer value of those keys
    names: frozenset[bytes]  # those keys as written (a dotted key's last part is compared with them)
    newer_names: dict[tuple[int, int], list[tuple[tuple[int, int], bytes]]]  # newer value -> (key, its name)


def stale_basis(newest: _Facts, older: list[tuple[Any, _Facts]]) -> _StaleBasis | None:
    """Per key the newest read sets to another value than an older read did: the older
    values (with the first read, of ``older``'s ``(read, facts)`` pairs, and its row saying
    each) and the newer ones; None when no key changed."""
    newest_keys, newest_facts = newest.kv_sets()
    older_kv: dict[tuple[int, int], dict[tuple[int, int], int]] = {}
    older_owner: dict[tuple[tuple[int, int], tuple[int, int]], Any] = {}
    facts_of: dict[Any, _Facts] = {}
    for owner, facts in older:
        # a key the newer read also sets (else another part of the file), to a value it
        # does not set: two native look-ups instead of a dict of every kv fact
        rows = facts.kv_rows_keyed(newest_keys)
        if not rows.size:
            continue
        t = facts.table
        stale = rows[absent_from_all(np.ascontiguousarray(t.fp_fact[rows]), [newest_facts])]
        for row in stale.tolist():
            key = (int(t.fp_key[row, 0]), int(t.fp_key[row, 1]))
            v = (int(t.fp_value[row, 0]), int(t.fp_value[row, 1]))
            if v not in older_kv.setdefault(key, {}):
                older_kv[key][v] = row
                older_owner[(key, v)] = owner
                facts_of[owner] = facts
    if not older_kv:
        return None
    # only the keys that went stale are looked at from here on, each text's kv facts filtered
    # natively to them
    keys = SortedFingerprints(unique_counts(np.array(list(older_kv), dtype=np.uint64).reshape(-1, 2))[0])
    newest_values, newest_row = _Check._kv_values(newest, keys)
    candidate_set = frozenset({v for key, stale in older_kv.items() for v in (*stale, *newest_values.get(key, ()))})
    candidates = list(candidate_set)
    return _StaleBasis(older_kv, older_owner, facts_of, keys, newest_values, newest_row, newest,
                       candidates, np.array(candidates, dtype=np.uint64).reshape(-1, 2), candidate_set,
                       frozenset(v for values in newest_values.values() for v in values),
                       frozenset(newest.table.key_bytes(r) for r in newest_row.values()),
                       _newer_names(newest, newest_values, newest_row, older_kv))


def _newer_names(newest: _Facts, newest_values: dict[tuple[int, int], set[tuple[int, int]]],
                 newest_row: dict[tuple[int, int], int], keys: Iterable[tuple[int, int]]
                 ) -> dict[tuple[int, int], list[tuple[tuple[int, int], bytes]]]:
    """Per newer value of the keys that went stale: those keys, each with its name as the
    newest read writes it (:func:`_named_newer_values`)."""
    out: dict[tuple[int, int], list[tuple[tuple[int, int], bytes]]] = {}
    for key in keys:
        if key in newest_row:
            name = newest.table.key_bytes(newest_row[key])
            for v in newest_values.get(key, ()):
                out.setdefault(v, []).append((key, name))
    return out


# The pieces of a key's name that say what it is (_key_pieces): "max_retries", "maxRetries" and
# "retry_count" are all "retry"; "timeout_ms" is "timeout", "pool_size" "pool"
_GENERIC_PIECES = frozenset((b"max", b"min", b"num", b"count", b"size", b"total", b"default", b"limit", b"ms",
                             b"s", b"sec", b"secs", b"seconds", b"mb", b"kb", b"gb", b"n", b"value"))
# words that join key names into one list before a number ("retries and the timeout ... 5")
_LIST_WORDS = frozenset((b"and", b"or", b"the", b"both", b"its", b"their", b"as", b"well"))
_WORD = re.compile(rb"[a-z]+")
_SENTENCE_BREAK = frozenset(b".!?;\n")
# the abbreviations whose "." ends no sentence (_sentence_break), without their last "."
_ABBREVIATIONS = frozenset((b"i.e", b"e.g", b"etc", b"vs", b"cf", b"approx", b"incl", b"resp", b"ca", b"esp"))
_KEY_PIECES: dict[bytes, tuple[bytes, ...]] = {}
_KEY_PIECES_MAX = 4096


def _stem(word: bytes) -> bytes:
    """A word without its plural or -ing ending: "retries" and "retrying" are "retry",
    "workers" "worker"."""
    if len(word) > 5 and word.endswith(b"ing"):
        return word[:-3]
    if len(word) > 4 and word.endswith(b"ies"):
        return word[:-3] + b"y"
    if len(word) > 4 and word.endswith((b"sses", b"xes")):
        return word[:-2]  # "processes" is "process", "indexes" "index"
    if len(word) > 3 and word.endswith(b"s") and not word.endswith(b"ss"):
        return word[:-1]
    return word


def _key_pieces(name: bytes) -> tuple[bytes, ...]:
    """What a key's name says it is, as stemmed words: its last part (after ``.``, ``:`` or
    ``/``), split at ``_``, ``-``, blanks and camelCase, without the words that only qualify it
    (max, count, size, ms, ...) unless nothing else is left."""
    found = _KEY_PIECES.get(name)
    if found is None:
        parts = re.split(rb"[.:/]", name)
        found = ()
        # (a leaf that only qualifies, db.pool.size, is named by the part before it: "the pool")
        for part in reversed(parts):
            part = re.sub(rb"([a-z0-9])([A-Z])", rb"\1 \2", part).lower()
            pieces = [_stem(piece) for piece in re.split(rb"[^a-z]+", part) if piece]
            found = tuple(piece for piece in pieces if piece not in _GENERIC_PIECES)
            if found:
                break
        if not found:
            leaf = re.sub(rb"([a-z0-9])([A-Z])", rb"\1 \2", parts[-1]).lower()
            found = tuple(_stem(piece) for piece in re.split(rb"[^a-z]+", leaf) if piece)
        if len(_KEY_PIECES) < _KEY_PIECES_MAX:
            _KEY_PIECES[name] = found
    return found


class _Prose:
    """A text as the I4 prose rule reads it (:func:`_keys_said_of`): its bytes, lower-cased
    with the keys of its ``key=value`` facts blanked out, and its tables' headers, found once."""

    __slots__ = ("_headers", "data", "lowered")

    def __init__(self, table: FactTable) -> None:
        self.data = table.data
        self.lowered = _prose_lowered(table)
        self._headers: list[tuple[int, int, list[bytes]]] | None = None

    def sentence_break(self, k: int) -> bool:
        """Does byte ``k`` end a sentence: ``!``, ``?``, ``;``, a line break, or a ``.`` before a
        blank or the end (not the ``.`` of "app.ini" or "3.5", nor that ending "i.e.", "e.g.",
        "etc." or "vs." before a lower-case word: red team 92, F05; "etc. 5 files" and "etc.
        The" end one, red team 96, F04)?"""
        lowered = self.lowered
        c = lowered[k]
        if c == 0x2E:
            if k + 1 < len(lowered) and lowered[k + 1] not in b" \t\r\n":
                return False
            start = k
            while start > 0 and (0x61 <= lowered[start - 1] <= 0x7A or lowered[start - 1] == 0x2E):
                start -= 1
            if lowered[start:k] not in _ABBREVIATIONS:
                return True
            nxt = _NEXT_WORD.match(self.data, k + 1)
            return nxt is None or not 0x61 <= self.data[nxt.end() - 1] <= 0x7A
        return c in _SENTENCE_BREAK

    def column_header(self, at: int) -> bytes:
        """The header cell of the column of byte ``at`` when its line is a row of a markdown
        table (a header line, then a ``|---|`` line, then rows; an escaped ``\\|`` is a cell's
        text, red team 96, F05); else empty. The tables are found once a text (one walk up
        from each cell was quadratic in a table's rows: red team 96, F07)."""
        if self._headers is None:
            self._headers = _table_headers(self.lowered)
        line = self.lowered.rfind(b"\n", 0, at) + 1
        i = bisect_right(self._headers, (line, math.inf)) - 1
        if i < 0 or not self._headers[i][0] <= line < self._headers[i][1]:
            return b""
        cells = self._headers[i][2]
        column = len(_UNESCAPED_PIPE.findall(self.lowered, line, at))
        return cells[column] if column < len(cells) else b""


_NEXT_WORD = re.compile(rb"[ \t\r\n]*[^ \t\r\n]")
_UNESCAPED_PIPE = re.compile(rb"(?<!\\)\|")
# how far before a number the prose rule reads (a sentence of thousands of numbers was read back
# to its start for each: quadratic, red team 96, F07)
_SAID_OF_BYTES = 512


def _table_headers(lowered: bytes) -> list[tuple[int, int, list[bytes]]]:
    """Each markdown table's rows (from the first row's start to the table's end) and its header
    cells, in order: a run of lines starting with ``|`` whose second line is a ``|---|`` line."""
    found = []
    lines = lowered.split(b"\n")
    at = 0
    i = 0
    starts = []
    for line in lines:
        starts.append(at)
        at += len(line) + 1
    while i < len(lines):
        if lines[i].lstrip(b" \t").startswith(b"|") and i + 1 < len(lines) and lines[i + 1].strip(b" \t\r").startswith(
                b"|") and not set(lines[i + 1].strip(b" \t\r")) - set(b"|-: \t"):
            j = i + 2
            while j < len(lines) and lines[j].lstrip(b" \t").startswith(b"|"):
                j += 1
            if j > i + 2:
                header = lines[i].strip(b" \t\r")
                found.append((starts[i + 2], starts[j] if j < len(starts) else len(lowered) + 1,
                              _UNESCAPED_PIPE.split(header)))
            i = j
        else:
            i += 1
    return found


def _keys_said_of(text: _Prose, at: int, end: int, names: list[tuple[tuple[int, int], bytes]]
                  ) -> set[tuple[int, int]]:
    """The keys of ``names`` a number at ``lowered[at:end]`` is said of: in its sentence (up to
    ``!``, ``?``, ``;``, a line break or a ``.`` before a blank), the key named last before it,
    with the keys named just before that one in a list ("retries, the timeout and workers were
    raised to 5"); and a key named by the word right after it, with only blanks between ("5
    worker processes", but not "5, timeout: unchanged"). A key is named by its last piece, its
    other pieces among the three words before that (:func:`_key_pieces`)."""
    lowered = text.lowered
    lo, floor = at, max(0, at - _SAID_OF_BYTES)
    while lo > floor and not text.sentence_break(lo - 1):
        lo -= 1
    before = [_stem(m.group()) for m in _WORD.finditer(lowered, lo, at)]

    def named_at(words: list[bytes], k: int) -> list[tuple[int, int]]:
        out = []
        for key, name in names:
            pieces = _key_pieces(name)
            if pieces and words[k] == pieces[-1] and all(p in words[max(0, k - 3):k] for p in pieces[:-1]):
                out.append(key)
        return out

    said: set[tuple[int, int]] = set()
    nxt = _WORD.match(lowered, end + 1) if end < len(lowered) and lowered[end] == 0x20 else None
    if nxt is not None:
        said.update(named_at([_stem(nxt.group())], 0))
    k = len(before) - 1
    while k >= 0 and not named_at(before, k):
        k -= 1
    while k >= 0:
        keys = named_at(before, k)
        said.update(keys)
        # the names listed before it: list words, or nothing (a comma), between
        j = k - 1
        while j >= 0 and before[j] in _LIST_WORDS:
            j -= 1
        if j < 0 or not named_at(before, j):
            break
        k = j
    if not said:
        header = text.column_header(at)
        if header:
            # a table's cell is said of the key its column's header names ("| retries |
            # timeout |" over "| 5 | 5 |": red team 92, F05)
            words = [_stem(m.group()) for m in _WORD.finditer(header)]
            for k in range(len(words)):
                said.update(named_at(words, k))
    return said


def _named_newer_values(named: dict[tuple[int, int], set[tuple[int, int]]], facts: _Facts,
                        values: Iterable[tuple[int, int]],
                        newer_names: dict[tuple[int, int], list[tuple[tuple[int, int], bytes]]]) -> None:
    """Add to ``named`` the values a text restates in prose (``values``) that are the newer
    value of a key the text says them of (:func:`_keys_said_of`: the key named last before the
    number in its sentence, or right after it; the key of a ``key=value`` fact states that
    fact's value, not this one). Only those keep that key's newer value in I4: a number in
    prose is any key's, and one about another file ("the db port is 5") stood for the newer
    ``retries=5`` and ``timeout=5`` of a config whose older read, kept, then said
    ``retries=3`` alone; so did "retries=3, with 5 workers" (red team 89, F01), and "Retries are
    now 5 and the timeout is unchanged" kept ``timeout=5`` (red team 91, F01). In prose a value
    still counts as a stale one (fail closed)."""
    prose: _Prose | None = None
    table = facts.table
    rows = fps = np.empty(0, dtype=np.int64)
    for v in values:
        names = [(key, name) for key, name in newer_names.get(v, ()) if v not in named.get(key, ())]
        if not names:
            continue
        if prose is None:  # (made once a text, for its first value asked)
            prose = _Prose(table)
            rows = np.flatnonzero((table.kind != _KIND_KV) & (table.kind != _KIND_CITATION))
            fps = table.fp_value[rows]
        for r in rows[(fps[:, 0] == np.uint64(v[0])) & (fps[:, 1] == np.uint64(v[1]))].tolist():
            for key in _keys_said_of(prose, int(table.start[r]), int(table.end[r]), names):
                named.setdefault(key, set()).add(v)


def _prose_lowered(table: FactTable) -> bytes:
    """A text in lower case with the keys of its ``key=value`` facts blanked out."""
    text = bytearray(table.data.lower())
    for row in np.flatnonzero(table.kind == _KIND_KV).tolist():
        start, end = int(table.key_start[row]), int(table.key_end[row])
        if 0 <= start < end:
            text[start:end] = b" " * (end - start)
    return bytes(text)


class _LogFacts:
    """The key=value facts of a resource's logged reads, kept in step with the session's read
    log (``Gate._log_facts``), so that the rule on reads that left the window (I4,
    :meth:`_Check._left_reads_of`) weighs a check against every read of the session without
    reading each again: a session re-reading one file every cycle paid for its whole log in
    every check (red team 41, 04: 56 ms a check at cycle 3,200, quadratic in a session).

    What the rule asks of the older reads is which values they set each key to (a value the
    newest read does not set for a key it sets is stale), and that is a union: a read adds its
    (key, value) pairs to it once, wherever the log places it among the others, and the
    newest read's own pairs are among them. Which older read first held a value only names it
    in a violation, which is rebuilt from the whole line then (:meth:`_Check._left_basis`). A
    union cannot give a read back: ``Gate._undo`` drops the resource's entry, made again from
    the line on its next check. Only read and changed under ``Gate._left_lock``."""

    __slots__ = ("keys_of", "last", "max_seq", "multi", "pending", "unread", "unseq", "unstored", "values")

    def __init__(self, handles: Iterable[str]) -> None:
        self.pending = list(handles)  # logged reads the store was not asked about yet
        # logged reads the store did not hold when asked: asked again on every look, as the
        # rebuilt path asks for every logged read (a source may be stored after its read was
        # logged; the store never deletes one)
        self.unstored: set[str] = set()
        self.unread: list[str] = []  # logged reads the store holds, their facts not merged yet
        self.unseq: list[str] = []  # the same, their store seq not in max_seq yet
        self.max_seq: int | None = None  # the highest store seq of the logged reads stored
        self.values: dict[tuple[int, int], set[tuple[int, int]]] = {}  # key -> every value a read set it to
        self.keys_of: dict[tuple[int, int], set[tuple[int, int]]] = {}  # value -> the keys set to it
        self.multi: set[tuple[int, int]] = set()  # the keys set to two values or more: only they can go stale
        self.last: _Facts | None = None  # the read merged last (the next one is compared with it first)

    def look(self, gate: Gate) -> None:
        """Ask the store about the reads logged since the last look, and again about those it
        did not hold (each handle leaves its list only once answered: an error leaves it there,
        to be asked again by the next check, as the rebuilt path asks every check)."""
        if len(self.pending) > 1:
            # (a resumed session's whole log, on its first check: one store read for all; none
            # when the gate knows them all, as it does in a session's steady state)
            unknown = [h for h in self.pending if h not in gate._handle_digest]
            if unknown:
                gate._learn_handles(unknown)
        done = 0
        try:
            for h in self.pending:  # (in the order logged: the reads merged last are the newest)
                if gate.handle_digest(h) is None:
                    self.unstored.add(h)
                else:
                    self.unread.append(h)
                    self.unseq.append(h)
                done += 1
        finally:
            del self.pending[:done]
        if self.unstored:
            found = [h for h in self.unstored if gate.handle_digest(h) is not None]
            self.unstored.difference_update(found)
            self.unread.extend(found)
            self.unseq.extend(found)

    def read(self, gate: Gate) -> None:
        """Merge the facts of the stored reads not merged yet."""
        done = 0
        try:
            for h in self.unread:
                facts = gate.read_source_facts(h)
                if facts is not None:  # (always: the store holds it)
                    for k, v in self.new_pairs(facts, {}):
                        held = self.values.setdefault(k, set())
                        if v not in held:
                            if held:
                                self.multi.add(k)
                            held.add(v)
                            self.keys_of.setdefault(v, set()).add(k)
                    self.last = facts
                done += 1
        finally:
            del self.unread[:done]

    def new_pairs(self, facts: _Facts, besides: dict[tuple[int, int], set[tuple[int, int]]]
                  ) -> list[tuple[tuple[int, int], tuple[int, int]]]:
        """The (key, value) pairs of ``facts``'s key=value facts that neither the merged reads
        nor ``besides`` hold. A re-read differs from the read before it in a few lines: its
        rows are compared with the read merged last natively, and only the others one by one
        (a (key, value) pair and its fact fingerprint name each other: facts.py frames both
        from the same key and value)."""
        rows, _ = facts.kv_rows()
        if not rows.size or facts is self.last:
            return []
        t = facts.table
        if self.last is not None:
            rows = rows[absent_from_all(np.ascontiguousarray(t.fp_fact[rows]), [self.last.kv_sets()[1]])]
        values = self.values
        return [(k, v) for k, v in zip(map(tuple, t.fp_key[rows].tolist()), map(tuple, t.fp_value[rows].tolist()))
                if v not in values.get(k, ()) and v not in besides.get(k, ())]

    def highest_seq(self, gate: Gate, others: list[str]) -> int | None:
        """The highest store seq among the logged reads and ``others`` (the handles of a line
        the log has not taken yet), as ``Gate.handle_seqs`` finds them (one store read for the
        handles it does not know; the unstored asked again, as ever)."""
        asked = [*self.unseq, *self.unstored, *others]
        seqs = gate.handle_seqs(asked) if asked else {}
        found = [seqs[h] for h in self.unseq if h in seqs]
        if found:  # (a stored read's seq never changes: folded into max_seq once)
            self.max_seq = max(found) if self.max_seq is None else max(self.max_seq, *found)
            self.unseq = [h for h in self.unseq if h not in seqs]
        highest = [seqs[h] for h in (*self.unstored, *others) if h in seqs]
        if self.max_seq is not None:
            highest.append(self.max_seq)
        return max(highest, default=None)


class _LeftBasis:
    """:class:`_StaleBasis`'s questions, answered against the union of a resource's reads
    (:class:`_LogFacts`, plus the pairs of the window's reads the log has not taken yet) and
    the newest read: the keys that went stale, and, for a value, which of them a read set to
    it. Made in time linear in the newest read's changed keys, not in the older reads."""

    __slots__ = ("extra", "extra_keys_of", "keys", "keys_of", "names", "newer_names", "newest_any",
                 "newest_values", "stale_keys", "stale_set", "values")

    def __init__(self, log: _LogFacts, extra: dict[tuple[int, int], set[tuple[int, int]]], newest: _Facts,
                 stale: list[tuple[int, int]], newest_values: dict[tuple[int, int], set[tuple[int, int]]],
                 newest_row: dict[tuple[int, int], int]) -> None:
        self.values, self.keys_of, self.extra = log.values, log.keys_of, extra
        self.extra_keys_of: dict[tuple[int, int], set[tuple[int, int]]] = {}
        for k, vs in extra.items():
            for v in vs:
                self.extra_keys_of.setdefault(v, set()).add(k)
        # as stale_basis makes them (the same keys, sorted; the newest read's values of them and
        # the key of each as its first row writes it)
        self.keys = SortedFingerprints(unique_counts(np.array(stale, dtype=np.uint64).reshape(-1, 2))[0])
        self.newest_values = {k: newest_values[k] for k in stale}
        self.newest_any = frozenset(v for k in stale for v in newest_values[k])
        self.names = frozenset(newest.table.key_bytes(newest_row[k]) for k in stale)
        self.newer_names = _newer_names(newest, newest_values, newest_row, stale)
        self.stale_keys = stale
        self.stale_set = frozenset(stale)

    @classmethod
    def of(cls, log: _LogFacts, window: list[_Facts], newest: _Facts) -> _LeftBasis | None:
        """The basis of a line whose logged reads ``log`` merged, whose reads not logged yet are
        ``window``, and whose newest read is ``newest``; None when no key went stale."""
        extra: dict[tuple[int, int], set[tuple[int, int]]] = {}
        for facts in (*window, newest):  # (the newest read's pairs are among the line's, logged or not)
            for k, v in log.new_pairs(facts, extra):
                extra.setdefault(k, set()).add(v)
        # a key set to one value in every read is the newest read's, or not the newest's key
        candidates = log.multi.union(extra)
        if not candidates:
            return None
        cand = list(candidates)
        keyed = ~absent_from_all(np.array(cand, dtype=np.uint64).reshape(-1, 2), [newest.kv_sets()[0]])
        cand = list(compress(cand, keyed.tolist()))
        if not cand:
            return None
        # (the newest read's values of these keys, its first row of each: _kv_values of the
        # stale ones among them, as stale_basis asks)
        newest_values, newest_row = _Check._kv_values(newest, SortedFingerprints(
            unique_counts(np.array(cand, dtype=np.uint64).reshape(-1, 2))[0]))
        values = log.values
        # stale: a key some read set to a value the newest read does not set it to
        stale = [k for k in cand
                 if len(values.get(k, ())) + len(extra.get(k, ())) > len(newest_values.get(k, ()))]
        return cls(log, extra, newest, stale, newest_values, newest_row) if stale else None

    def holds(self, key: tuple[int, int], value: tuple[int, int]) -> bool:
        """Did a read of the line set ``key`` to ``value``?"""
        return value in self.values.get(key, ()) or value in self.extra.get(key, ())

    def stale_keys_holding(self, value: tuple[int, int]) -> list[tuple[int, int]]:
        """The keys that went stale which a read of the line set to ``value`` (to it as an
        older or as the newer value)."""
        held = self.keys_of.get(value, ())
        more = self.extra_keys_of.get(value, ())
        if len(held) + len(more) <= len(self.stale_keys):
            stale = self.stale_set
            return [k for k in {*held, *more} if k in stale]
        return [k for k in self.stale_keys if self.holds(k, value)]


class _LeftLine:
    """A resource's read line as a check weighs the reads that left its window
    (:meth:`_Check._left_reads_of`): the reads the session logged, then the pre window's reads
    the log takes after this check, where log_reads will put them. It stands for the copy of
    the line that :meth:`_Check._left_reads_rebuilt` makes, without making it: its handles
    answer ``in``, ``len``, ``isdisjoint`` and iteration as that copy's set of handles does
    (plus ``extra``: the summaries that stand for one of them), the newest stored read is
    found from the line's end, and the stored reads in order are listed only when asked for.
    Used under ``Gate._left_lock`` (the log holds still)."""

    __slots__ = ("_stored", "check", "extra", "log", "logged", "read_of", "resource", "stored_window", "window")

    def __init__(self, check: _Check, resource: str, log: _LogFacts, window: dict[str, float | None],
                 stored_window: set[str]) -> None:
        self.check, self.resource, self.log = check, resource, log
        self.logged = check.gate._read_log.get(resource, [])
        self.read_of = check.gate._read_of
        self.window = window  # handle -> ts of the window's reads new to this line, in its order
        self.stored_window = stored_window
        self.extra: frozenset[str] = frozenset()
        self._stored: list[str] | None = None

    @classmethod
    def of(cls, check: _Check, resource: str) -> _LeftLine | None:
        """The line of ``resource``, or None when it holds fewer than two reads the store
        holds (the rebuilt path's first two returns)."""
        gate = check.gate
        logged = gate._read_log.get(resource, [])
        read_of = gate._read_of
        pre = check.pre
        blocks = pre.blocks
        window: dict[str, float | None] = {}
        # the pre window's reads the log does not hold yet (it takes them after this check),
        # as the rebuilt path adds them to its copy: every read of one handle not in this
        # resource's line, once the window holds one the log holds nowhere
        if any(len(hs := blocks[i].handles) == 1 and hs[0] not in read_of for i in pre.by_resource().get(resource, ())):
            for h, ts in check._window_reads_filed(resource):
                if h not in read_of and h not in window:
                    window[h] = ts
        if len(logged) + len(window) < 2:
            return None
        log = gate._log_facts.get(resource)
        if log is None:
            log = gate._log_facts[resource] = _LogFacts(h for h, _ in logged)
        log.look(gate)
        stored_window = {h for h in window if gate.handle_digest(h) is not None}
        if len(logged) - len(log.unstored) + len(stored_window) < 2:
            return None
        return cls(check, resource, log, window, stored_window)

    def with_extra(self, extra: set[str]) -> _LeftLine:
        out = _LeftLine(self.check, self.resource, self.log, self.window, self.stored_window)
        out.extra, out._stored = frozenset(extra), self._stored
        return out

    def is_stored(self, h: str) -> bool:
        return h in self.stored_window if h in self.window else h not in self.log.unstored

    def newest(self) -> str:
        """The newest read the store holds: the line's last, unless the store does not hold
        that one. The window's reads new to the line go where log_reads will put them
        (:func:`reads_placed`): the last of those it puts after every logged read is the last
        (reasoned apart from that rule, a new read shown before a logged one was taken here as
        the newest and by the line as older: one check, two verdicts, red team 101, F07)."""
        last = self.logged[-1][0] if self.logged else None
        if self.window:
            # (the window's reads the log files here: a logged one is in this line)
            placed = reads_placed(self.logged, self.read_of, self.check._window_reads_filed(self.resource))
            if placed and placed[-1][2] is None:
                last = placed[-1][0]
        if last is not None and self.is_stored(last):
            return last
        return self.stored()[-1]

    def stored(self) -> list[str]:
        """The line's reads the store holds, oldest first: the copy of the rebuilt path, made
        (in time linear in the line) only where an older read is named or its facts read."""
        if self._stored is None:
            resource = self.resource
            line = list(self.logged)
            if self.window:
                log_reads({resource: line}, dict.fromkeys(h for h, _ in line), resource,
                          self.check._window_reads_filed(resource))
            self._stored = [h for h, _ in line if self.is_stored(h)]
        return self._stored

    def basis(self, newest: _Facts) -> _LeftBasis | None:
        gate = self.check.gate
        self.log.read(gate)
        window = [f for h in self.window if h in self.stored_window and (f := gate.read_source_facts(h)) is not None]
        return _LeftBasis.of(self.log, window, newest)

    def highest_seq(self) -> int | None:
        """The highest store seq of the line's reads (_Check._is_fresh's ``than``)."""
        return self.log.highest_seq(self.check.gate, list(self.window))

    def __contains__(self, h: object) -> bool:
        return self.read_of.get(h) == self.resource or h in self.window or h in self.extra  # type: ignore[call-overload]

    def __len__(self) -> int:
        return len(self.logged) + len(self.window) + len(self.extra)

    def __iter__(self) -> Iterator[str]:
        for h, _ in self.logged:
            yield h
        yield from self.window
        yield from self.extra

    def isdisjoint(self, other: Iterable[str]) -> bool:
        """As ``set.isdisjoint``: the smaller side looked up in the larger (a window's handles
        in a session's reads, or the other way round)."""
        if isinstance(other, (set, frozenset, dict)) and len(self) <= len(other):
            return not any(h in other for h in self)
        return not any(h in self for h in other)


class _Later:
    """A list made on the first iteration (:meth:`_Check._stale_paths_of` reads the older
    reads' facts only where a dotted path needs them)."""

    __slots__ = ("_items", "_make")

    def __init__(self, make: Callable[[], list[Any]]) -> None:
        self._make, self._items = make, None

    def __iter__(self) -> Iterator[Any]:
        if self._items is None:
            self._items = self._make()
        return iter(self._items)


# a ts this large is taken for milliseconds (_Check._check_stamp_units): in seconds, after the
# year 5000; in milliseconds, after March 1973
_MILLISECOND_STAMPS = 1e11
_SECONDS, _MILLISECONDS = 1, 2
_BOTH_UNITS = _SECONDS | _MILLISECONDS


def _stamp_unit(ts: float) -> int:
    """The unit a ts is taken to be in (_Check._check_stamp_units): 0 for none (a stamp of 0
    or below is ordered as it is, in either unit)."""
    return _MILLISECONDS if ts >= _MILLISECOND_STAMPS else _SECONDS if ts > 0 else 0

# (Gate.read_facts: where a JSON document starts, past blanks and a BOM, without copying a text
# that is none)
_JSON_START = re.compile(rb"[ \t\r\n]*+(?:\xef\xbb\xbf[ \t\r\n]*+)?[\[{]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
# (Gate.read_facts: the decoded reads a gate keeps before it starts again)
_DECODED_READS_MAX = 256


def _decoded_strings(body: bytes) -> tuple[list[str], bytes]:
    """The strings a JSON document (or JSON Lines: each line a document) encodes, and those of
    a string that is itself a JSON document (a tool result nested in another), one level down;
    empty when ``body`` is neither (red team 91, F03: a BOM, JSON Lines, a nested result and an
    array of plain lines went undecoded); and the text as the grammar should read it
    (:func:`_skeleton`)."""
    try:
        documents = [json.loads(body.decode("utf-8"))]  # (UTF-8, not a guess: red team 96, F09)
    except (ValueError, RecursionError):
        documents = []
        for line in body.splitlines():
            line = line.strip()
            if not line:
                continue
            if line[:1] not in (b"{", b"["):
                return [], b""
            try:
                documents.append(json.loads(line.decode("utf-8")))
            except (ValueError, RecursionError):
                return [], b""
    strings: list[str] = []
    for document in documents:
        for text in _json_strings(document):
            strings.append(text)
            inner = text.lstrip()
            if inner[:1] in ("{", "["):
                try:
                    strings.extend(_json_strings(json.loads(inner)))
                except (ValueError, RecursionError):
                    pass
    return strings, _skeleton(body)


# a JSON string literal, and whether it is an object's key (a ":" after it)
_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*+"([ \t\r\n]*+:)?')


def _skeleton(body: bytes) -> bytes:
    """A valid JSON text (or JSON Lines) as the grammar should read its keys and values: each
    string value whose text holds a line break, a tab, a quotation mark or a backslash blanked
    out — the values the JSON text writes with an escape that glues what follows to them
    (``"x=1\\nretries=3"``), whose text the decoded strings hold — and the escapes of every
    other string value decoded (``"Z\\u00fcrich"`` is ``"Zürich"``); keys, numbers and the rest
    as written. Written in place, not parsed and dumped again: ``3.10`` stays ``3.10`` (not
    ``3.1``, which a summary's ``3.1`` was then grounded by: red team 96, F02), a document of
    any depth is written (red team 92, F06), and a blanked value is no ``key=""`` fact (red
    team 96, F01: grounded a summary's ``stdout=""``). A plain string value (``"version":
    "1.2.3"``) is the document's fact and stays (red team 92, F01)."""
    out: list[bytes] = []
    at = 0
    for found in _JSON_STRING.finditer(body):
        literal = found.group()
        if found.group(1) is not None or b"\\" not in literal:
            continue  # a key, or a value without escapes: as written
        text = json.loads(literal)
        if any(c in text for c in '\n\r\t"\\'):
            written = b""
        else:
            try:
                written = json.dumps(text, ensure_ascii=False).encode("utf-8")
            except UnicodeEncodeError:  # (a lone surrogate: the escape as written)
                continue
        out += (body[at:found.start()], written)
        at = found.end()
    if not out:
        return body
    out.append(body[at:])
    return b"".join(out)


class _JsonObject(tuple):
    """A parsed JSON object as its (key, value) pairs, in order, duplicates kept."""

    __slots__ = ()


def _json_documents(data: bytes) -> list[Any] | None:
    """The documents of a JSON text (one) or of JSON Lines (one a line), objects as
    :class:`_JsonObject`; None when ``data`` is neither (or too deep to parse)."""
    start = _JSON_START.match(data)
    if start is None:
        return None
    body = data[start.end() - 1:]
    try:
        return [_exact_json(body)]
    except (ValueError, RecursionError):
        pass
    documents = []
    for line in body.splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            documents.append(_exact_json(line))
        except (ValueError, RecursionError):
            return None
    return documents


class _JsonNumber(str):
    """A JSON number (or ``NaN``, ``Infinity``) as written."""

    __slots__ = ()


def _exact_json(text: bytes) -> Any:
    """A JSON text, read as UTF-8 (``json.loads`` of bytes guesses UTF-16 from a NUL second
    byte: red team 96, F09), parsed with its numbers as written: two amounts that round to one
    double are two values (red team 94, F02; red team 96, F03), and so are ``3.10`` and
    ``3.1``, which the grammar reads as two facts too; objects as their pairs."""
    return json.loads(text.decode("utf-8"), object_pairs_hook=_JsonObject, parse_float=_JsonNumber,
                      parse_int=_JsonNumber, parse_constant=_JsonNumber)


def _same_json_documents(a: bytes, b: bytes) -> bool:
    """Do two JSON texts (or JSON Lines) encode the same documents (:func:`_same_documents`)?"""
    return _same_documents(_json_documents(a), _json_documents(b))


def _same_documents(left: list[Any] | None, right: list[Any] | None) -> bool:
    """Are two parsed JSON texts (:func:`_json_documents`, None for no JSON) the same
    documents? Objects compare as their pairs in order, and values as JSON types (``1``,
    ``1.0`` and ``true`` differ; a number as written, so ``1.50`` is not ``1.5``). No
    recursion: a deep document is compared as any other."""
    if left is None or right is None:
        return False
    todo = [(left, right)]
    while todo:
        x, y = todo.pop()
        if type(x) is not type(y):
            return False
        if isinstance(x, (list, tuple)):  # arrays, objects and an object's (key, value) pairs
            if len(x) != len(y):
                return False
            todo.extend(zip(x, y))
        elif x != y:
            return False
    return True


def _json_strings(value: Any) -> Iterator[str]:
    """The strings a parsed JSON document holds (its values, in order; keys are facts of the
    JSON text itself already), without recursion (a deep document is no RecursionError)."""
    todo = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            todo.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            todo.extend(reversed(item))


def _unkeyed_values(facts: _Facts) -> set[tuple[int, int]]:
    """:meth:`_Facts.unkeyed_values` as a set of (hi, lo) pairs."""
    t = facts.table
    keep = (t.kind != _KIND_KV) & (t.kind != _KIND_CITATION)
    return set(map(tuple, t.fp_value[keep].tolist()))


def _among(handles: Any, mapping: Any) -> Iterator[str]:
    """The members of ``handles`` that are keys of ``mapping``, looking up the smaller side in
    the larger (``handles`` may be a session's every read of a resource, :class:`_LeftLine`)."""
    if len(handles) <= len(mapping):
        return (h for h in handles if h in mapping)
    return (h for h in mapping if h in handles)


def _kv_map(facts: _Facts) -> dict[tuple[int, ...], dict[tuple[int, ...], int]]:
    """The ``key=value`` facts of a text: key -> value -> the first row setting it (made once
    a text: the rule on rebound values asks it twice a changed block, and a session's pre
    blocks again at later edits). Callers only read it."""
    out = facts._kv_map
    if out is None:
        rows = facts.kv_rows()[0]
        t = facts.table
        out = {}
        for row, key, value in zip(rows.tolist(), t.fp_key[rows].tolist(), t.fp_value[rows].tolist()):
            out.setdefault(tuple(key), {}).setdefault(tuple(value), row)
        facts._kv_map = out
    return out


def _same_rows(a: np.ndarray, b: np.ndarray) -> bool:
    """Do two arrays of one dtype hold the same rows in the same order? (Their bytes compared:
    np.array_equal costs more than the comparison itself on a block's few rows.)"""
    return a is b or (a.shape == b.shape and a.tobytes() == b.tobytes())


def _same_facts(a: _Facts, b: _Facts) -> bool:
    """Do two texts have the same groundable rows (:meth:`_Facts.fact_fps`) in the same order?
    fact_fps keeps the rows whose kind is not a citation marker, so two tables with the same
    kinds and the same fact fingerprints row for row have the same fact_fps: that is compared
    in place first (a re-indented block keeps its table row for row; selecting its rows costs
    more than comparing them). Otherwise the selected rows decide (markers that differ are
    no facts)."""
    ta, tb = a.table, b.table
    if _same_rows(ta.kind, tb.kind) and _same_rows(ta.fp_fact, tb.fp_fact):
        return True
    return _same_rows(a.fact_fps(), b.fact_fps())


def _joined(arrays: list[np.ndarray]) -> np.ndarray:
    """The arrays end to end (one array as it is: a check of one changed block is common, and
    each numpy call costs microseconds there). Callers only read the result."""
    return arrays[0] if len(arrays) == 1 else np.concatenate(arrays)


_MARKER_OPENER = "[src:"  # every citation marker starts so (docs/grammar.md)
_BLOCK_ID = attrgetter("id")
_HANDLES = attrgetter("handles")
_DERIVED_FROM = attrgetter("derived_from")
_PINNED = attrgetter("pinned")
_N_FACTS = attrgetter("n_facts")
_N_MARKERS = attrgetter("n_markers")


# -- module-level conveniences ----------------------------------------------------------------


def check(pre: Any, post: Any, *, operator: str, store: Any, supersedes: Any = (), evicted: Any = (),
          pointers: Any = (), policy: str = "reject", retention_floor: float = DEFAULT_RETENTION_FLOOR) -> Verdict:
    """Check one edit with a fresh :class:`Gate` (no session state). See :meth:`Gate.check`."""
    return Gate(store, policy=policy, retention_floor=retention_floor).check(
        pre, post, operator=operator, supersedes=supersedes, evicted=evicted, pointers=pointers)


def commit(pre: Any, post: Any, *, operator: str, store: Any, supersedes: Any = (), evicted: Any = (),
           pointers: Any = (), policy: str = "reject", retention_floor: float = DEFAULT_RETENTION_FLOOR) -> Window:
    """The window to commit, or :class:`ProvenanceInvariantError` carrying the verdict."""
    return Gate(store, policy=policy, retention_floor=retention_floor).commit(
        pre, post, operator=operator, supersedes=supersedes, evicted=evicted, pointers=pointers)


class _RowsView:
    """Some rows of a fact table, with the columns ``ungrounded_rows`` reads (copies)."""

    _COLUMNS = ("kind", "start", "end", "key_start", "key_end", "value_start", "value_end", "value_kind",
                "fp_key", "fp_value", "fp_fact")
    __slots__ = ("data", *_COLUMNS)

    def __init__(self, table: FactTable, rows: np.ndarray) -> None:
        self.data = table.data
        for name in self._COLUMNS:
            setattr(self, name, np.ascontiguousarray(getattr(table, name)[rows]))


def _marker_leads(table: FactTable, citation_kind: int) -> list[tuple[int, int]]:
    """(start, stop) of what each ``[src:…]`` marker of ``table`` would lead: the bytes after it,
    past the markers side by side with it, up to its sentence's end (``_SENTENCE_END``, a line
    break included) or the next marker, whichever is first; empty when a sentence ends right
    after it. Asked only of a marker whose own statement (:func:`_marker_statements`) states
    nothing. Linear in the block's text."""
    data = table.data
    rows = np.flatnonzero(table.kind == citation_kind).tolist()
    marks = [(int(table.start[r]), int(table.end[r])) for r in rows]
    out: list[tuple[int, int]] = [(0, 0)] * len(marks)
    following = len(data)  # the start of the next marker that is not side by side
    for k in range(len(marks) - 1, -1, -1):
        b = marks[k][1]
        if k + 1 < len(marks):
            na = marks[k + 1][0]
            gap = data[b:na]
            if gap.strip() or b"\n" in gap:
                following, lead_from = na, b
            else:
                lead_from = out[k + 1][0] if out[k + 1][1] > out[k + 1][0] else marks[k + 1][1]
        else:
            lead_from = b
        m = _SENTENCE_END.search(data, lead_from, following)
        stop = m.start() if m is not None else following
        out[k] = (lead_from, stop) if stop > lead_from and data[lead_from:stop].strip() else (0, 0)
    return out


def _leads_in(statement: bytes, tail: bytes) -> bool:
    """Does a marker closing ``statement`` (its words since the sentence began) in the middle of
    its sentence, ``tail`` after it, lead the tail? A word of ``_MARKER_LEAD_IN`` among the
    statement's last three (with the lead-in words and ``as`` right before it: ``as noted in
    its config [src:b]``) must stand first in its sentence (``Per [src:b] beta retries=5.``),
    or after at most two words that are no function word (a subject: ``The beta service, per
    [src:b], ...``) with the aside closed right after the marker (``,`` ``:`` ``;`` ``)`` or a
    dash). ``Alpha retries thrice, per [src:b] in 5 regions.`` closes a claim of its own (red
    team 120, F04); a subject of three words, or a determiner, is no claim (red team 121, F05)."""
    words = _SENTENCE_WORD.findall(statement.lower())
    if words and words[0] in _MARKER_LEAD_IN and len(words) <= 6:
        return True  # (a lead-in opening its sentence, a few words naming the source after it:
        # "According to the beta service config [src:b], ...", red team 123, F19)
    k = next((k for k in range(len(words) - 1, max(len(words) - 4, -1), -1) if words[k] in _MARKER_LEAD_IN), None)
    if k is None:
        return False
    while k and (words[k - 1] in _MARKER_LEAD_IN or words[k - 1] == b"as"):
        k -= 1
    subject = [w for w in words[:k] if w not in _LEAD_IN_FUNCTION_WORDS]
    if not subject:
        return True  # (the lead-in opens its sentence)
    return len(subject) <= 2 and tail.lstrip(b" \t")[:1] in (b",", b":", b";", b")", b"-", b"\xe2")


def _last_clause_start(statement: bytes) -> int:
    """Where the last clause of ``statement`` starts: after its last ``;``, or a comma before
    ``and``, ``but``, ``while``, ``whereas`` (0: it has one clause)."""
    m = None
    for m in _LEAD_CLAUSE_BREAK.finditer(statement):
        pass
    return 0 if m is None else m.end()


_LEAD_CLAUSE_BREAK = re.compile(rb";[ \t]*|,[ \t]+(?:and|but|while|whereas)[ \t]+", re.IGNORECASE)


def _unwrapped(data: bytes, a: int) -> bytes:
    """The words of the line before ``a`` that the sentence starting at ``a`` continues (since
    that line's last sentence end, and a blank), when a line break was taken for a sentence end
    (``_SENTENCE_END``) inside one sentence: the statement at ``a`` opens in lower case and the
    line before ends in no stop. ``Alpha retries thrice\nper [src:b], 5 regions.`` is one
    sentence wrapped, and its lead-in follows a claim (red team 121, F04). Else ``b""``."""
    if a < 2 or data[a - 1] != 0x0A:
        return b""
    head = data[a:a + 64].lstrip(b" \t")
    if not head[:1].islower():
        return b""
    line = data[data.rfind(b"\n", 0, a - 1) + 1:a - 1].rstrip()
    if not line or line[-1:] in b".!?:;":
        return b""
    last = None
    for last in _SENTENCE_END.finditer(line):
        pass
    line = line[last.end():] if last is not None else line
    # (and since its last comma or clause break: "Alpha keeps its defaults, and for beta,\nper
    # [src:b], retries=5." has the subject "for beta", red team 123, F18)
    line = line.rstrip(b", \t")
    cut = max(line.rfind(b","), line.rfind(b";"))
    return line[cut + 1:] + b" "


# the words that, among the last three before a marker in the middle of its sentence, make it
# lead what follows it (``per [src:b], ...``, ``according to [src:b]: ...``, ``as noted in [src:b], ...``)
_MARKER_LEAD_IN = frozenset((b"per", b"according", b"from", b"see", b"cf", b"via", b"citing", b"in", b"source",
                             b"sources", b"ref", b"reference", b"noted", b"stated", b"reported"))
# the words before a lead-in that name no claim: determiners, possessives and prepositions of a
# subject (``For the beta service, per [src:b], ...``)
_LEAD_IN_FUNCTION_WORDS = frozenset(b"the a an for of on to as and its this that these those our their his her "
                                    b"my your".split())


def _marker_statements(table: FactTable, citation_kind: int) -> list[tuple[str, int, int]]:
    """(name, start, stop) of each ``[src:…]`` marker of ``table``: the statement it closes,
    the bytes since the previous marker or the last sentence end (``_SENTENCE_END``) before
    it, whichever is later. A marker right after a sentence's full stop on the same line
    (``retries=5. [src:b]``) closes that sentence; one that starts a line, or follows only a
    line break, closes nothing (a bare marker on a line of its own cites no statement); markers
    side by side (``[src:a][src:b]``) close the same statement. Linear in the block's text:
    each marker's stretch is read once."""
    data = table.data
    out: list[tuple[str, int, int]] = []
    rows = np.flatnonzero(table.kind == citation_kind).tolist()
    prev_end = 0
    prev_span: tuple[int, int] = (0, 0)
    for r in rows:
        a, b = int(table.start[r]), int(table.end[r])
        name = data[int(table.value_start[r]):int(table.value_end[r])].decode("utf-8", "replace")
        gap = data[prev_end:a]
        if out and not gap.strip() and b"\n" not in gap:
            span = prev_span  # side by side with the previous marker: its statement
        else:
            ends = [(m.start(), m.end()) for m in _SENTENCE_END.finditer(data, prev_end, a)]
            lo = prev_end
            if ends:
                s0, s1 = ends[-1]
                lo = s1
                if not data[s1:a].strip() and data[s0:s1] != b"\n":
                    # the marker follows the sentence's full stop: it closes that sentence
                    lo = ends[-2][1] if len(ends) > 1 else prev_end
            span = (lo, a)
        out.append((name, *span))
        prev_end, prev_span = b, span
    return out
