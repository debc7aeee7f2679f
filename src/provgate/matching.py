"""Find the facts of known sources in a text, at token boundaries (Aho-Corasick).

:class:`SourceMatcher` is built once from a vocabulary ``{handle: fact texts of that source}``
and answers, for any text, which spans of it are facts of which sources: this is how the gate
tells grounded from ungrounded spans in a summary, and which facts of ``pre`` survive in
``post``, in one pass over the text.

Offsets are UTF-8 **byte** offsets into the text, end exclusive (the unit of pointers and fact
tables).

Token boundaries
----------------
A fact only counts where it stands as whole tokens. A *word byte* is an ASCII letter, a digit,
``_`` or any byte >= 0x80; a *joiner* is one of ``. , - : / @``. A match ``[s, e)`` of the
text's bytes is kept iff

- ``s == 0``, or the byte before it is not a word byte and is not a joiner that itself follows
  a word byte; and
- ``e == len``, or the byte after it is not a word byte and is not a joiner followed by a word
  byte.

So the fact ``3`` does **not** match inside ``30``, ``v3``, ``1.3`` or ``3.5``, and **does**
match in ``retries=3``, ``(3)``, ``is 3.`` and ``-3``. A fact may itself contain spaces and
joiners (``MAX_RETRIES = 3``, ``src/app/x.py:12``); only its two ends are checked.

Results
-------
:meth:`SourceMatcher.find_grounded` returns :class:`GroundedMatches`: numpy columns ``start``,
``end`` and ``pattern`` (index into :attr:`SourceMatcher.patterns`), ordered by ``end`` then
``start``. Overlapping matches are all reported (``retries`` and ``retries=3`` both match in
``retries=3`` when both are facts). Python objects (fact text, source handles) are built only
when asked for: :meth:`GroundedMatches.text`, :meth:`GroundedMatches.sources`,
:meth:`GroundedMatches.to_list`.

Vocabulary rules
----------------
- A fact text is a ``str``; it is matched by its UTF-8 bytes exactly (no case folding, no
  normalisation). The same text under several handles is one pattern with several sources;
  repeats within one source count once.
- Empty fact texts are ignored: an empty string asserts nothing and would match everywhere.
- A fact with a lone surrogate or a NUL character is refused (``InvalidContentError``): no
  extracted fact contains either, so one that does is a caller bug, not a fact.
- Handles are checked by :func:`provgate.handles.check_handle`.

Limits (each raises :class:`provgate.errors.LimitExceededError`, naming the limit)
-----------------------------------------------------------------------------------
``max_patterns`` distinct fact texts, ``max_pattern_bytes`` bytes in one fact,
``max_total_pattern_bytes`` bytes over all distinct facts (the automaton's memory grows with
it), ``max_text_bytes`` bytes of searched text, and ``max_matches`` matches in one search,
raised as soon as the count is crossed. The automaton runs over a copy of the text in which
token boundaries are marked (see ``provgate._matching_py``), so it never even reports a hit
that is not at token boundaries: a search costs time linear in the text plus the matches it
returns. A million ``a`` against the facts ``a``, ``aa``, ``aaa``, … has no match and costs one
pass; a million ``a a a …`` against ``a``, ``a a``, ``a a a``, … has tens of millions and stops
at ``max_matches``.

The searched text may contain NUL and any other code point; ``str`` input must be encodable as
UTF-8 (no lone surrogates) and bytes input must be valid UTF-8, else ``InvalidContentError``.

Threads
-------
pyahocorasick never releases the GIL and its automaton is not safe to share between threads
while it is searched. Each :class:`SourceMatcher` owns its automaton privately (it is never
handed out, never modified after construction) and holds a lock for the duration of each
search, so one matcher may be used from many threads: searches on one matcher run one at a
time (they would anyway, holding the GIL); for parallel work build one matcher per thread.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from provgate import _matching
from provgate._matching_py import build_automaton
from provgate.errors import InvalidContentError, LimitExceededError
from provgate.handles import check_handle
from provgate.text import utf8_bytes

DEFAULT_MAX_PATTERNS = 250_000
DEFAULT_MAX_PATTERN_BYTES = 4096
DEFAULT_MAX_TOTAL_PATTERN_BYTES = 16 * 1024 * 1024
DEFAULT_MAX_MATCHES = 8_000_000
DEFAULT_MAX_TEXT_BYTES = 64 * 1024 * 1024


_MAX_MATCHES_LIMIT = (1 << 63) - 1


def _positive_int(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive int, got {value!r}")
    return value


def _fact_bytes(fact: Any, handle: str) -> bytes:
    if not isinstance(fact, str):
        raise InvalidContentError(f"facts of {handle!r} must be str, got {type(fact).__name__}")
    try:
        encoded = fact.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidContentError(
            f"a fact of {handle!r} contains a lone surrogate U+{ord(fact[exc.start]):04X} at index {exc.start}"
        ) from None
    if b"\x00" in encoded:
        raise InvalidContentError(f"a fact of {handle!r} contains a NUL character: {fact[:40]!r}")
    return encoded


def _text_bytes(text: Any, max_text_bytes: int) -> bytes:
    data = utf8_bytes(text, "text")
    if len(data) > max_text_bytes:
        raise LimitExceededError(
            f"text is {len(data)} bytes; max_text_bytes is {max_text_bytes}"
        )
    return data


class GroundedMatches:
    """The facts found in one text: columnar, ordered by ``end`` then ``start``."""

    __slots__ = ("start", "end", "pattern", "_matcher", "_data")

    def __init__(self, matcher: SourceMatcher, data: bytes, start: np.ndarray, end: np.ndarray,
                 pattern: np.ndarray) -> None:
        self._matcher = matcher
        self._data = data
        self.start = start
        self.end = end
        self.pattern = pattern

    def __len__(self) -> int:
        return int(self.start.shape[0])

    def __repr__(self) -> str:
        return f"<GroundedMatches: {len(self)} matches>"

    def text(self, i: int) -> str:
        """The matched text (a fact of the vocabulary, byte-identical to the text's span)."""
        return self._matcher.patterns[int(self.pattern[i])]

    def source_ids(self, i: int) -> np.ndarray:
        """Indices into :attr:`SourceMatcher.sources` of the sources that hold match ``i``."""
        return self._matcher.source_ids_of(int(self.pattern[i]))

    def sources(self, i: int) -> tuple[str, ...]:
        """The handles of the sources whose facts include match ``i``."""
        return self._matcher.sources_of(int(self.pattern[i]))

    def from_source(self, handle: str) -> np.ndarray:
        """Boolean mask over the matches: which are facts of ``handle``."""
        return self._matcher._pattern_mask(handle)[self.pattern]

    def to_list(self) -> list[tuple[int, int, str, tuple[str, ...]]]:
        """``(start, end, text, sources)`` for every match."""
        return [
            (int(s), int(e), self._matcher.patterns[p], self._matcher.sources_of(p))
            for s, e, p in zip(self.start.tolist(), self.end.tolist(), self.pattern.tolist())
        ]


class SourceMatcher:
    """An Aho-Corasick automaton over the facts of a set of sources (see the module docs)."""

    def __init__(
        self,
        vocabulary: Mapping[str, Iterable[str]],
        *,
        max_patterns: int = DEFAULT_MAX_PATTERNS,
        max_pattern_bytes: int = DEFAULT_MAX_PATTERN_BYTES,
        max_total_pattern_bytes: int = DEFAULT_MAX_TOTAL_PATTERN_BYTES,
        max_matches: int = DEFAULT_MAX_MATCHES,
        max_text_bytes: int = DEFAULT_MAX_TEXT_BYTES,
    ) -> None:
        if not isinstance(vocabulary, Mapping):
            raise TypeError(f"vocabulary must be a mapping of handle -> facts, not {type(vocabulary).__name__}")
        self.max_patterns = _positive_int(max_patterns, "max_patterns")
        self.max_pattern_bytes = _positive_int(max_pattern_bytes, "max_pattern_bytes")
        self.max_total_pattern_bytes = _positive_int(max_total_pattern_bytes, "max_total_pattern_bytes")
        self.max_matches = _positive_int(max_matches, "max_matches")
        self.max_text_bytes = _positive_int(max_text_bytes, "max_text_bytes")

        sources: list[str] = []
        pattern_index: dict[bytes, int] = {}
        pattern_sources: list[list[int]] = []
        total = 0
        for raw_handle, facts in vocabulary.items():
            handle = check_handle(raw_handle)
            if isinstance(facts, (str, bytes)) or not isinstance(facts, Iterable):
                raise TypeError(f"the facts of {handle!r} must be an iterable of str, not {type(facts).__name__}")
            source_id = len(sources)
            sources.append(handle)
            for fact in facts:
                encoded = _fact_bytes(fact, handle)
                if not encoded:
                    continue  # an empty fact asserts nothing
                if len(encoded) > self.max_pattern_bytes:
                    raise LimitExceededError(
                        f"a fact of {handle!r} is {len(encoded)} bytes; max_pattern_bytes is {self.max_pattern_bytes}"
                    )
                index = pattern_index.get(encoded)
                if index is None:
                    index = len(pattern_sources)
                    if index >= self.max_patterns:
                        raise LimitExceededError(
                            f"the vocabulary has more than max_patterns={self.max_patterns} distinct facts"
                        )
                    total += len(encoded)
                    if total > self.max_total_pattern_bytes:
                        raise LimitExceededError(
                            f"the distinct facts exceed max_total_pattern_bytes={self.max_total_pattern_bytes} bytes"
                        )
                    pattern_index[encoded] = index
                    pattern_sources.append([])
                ids = pattern_sources[index]
                if not ids or ids[-1] != source_id:
                    ids.append(source_id)

        self.sources: tuple[str, ...] = tuple(sources)
        encoded_patterns = list(pattern_index)  # dicts keep insertion order: index order
        self.patterns: tuple[str, ...] = tuple(p.decode("utf-8") for p in encoded_patterns)
        self.pattern_bytes = np.fromiter((len(p) for p in encoded_patterns), dtype=np.int64,
                                         count=len(encoded_patterns))
        # CSR: the sources of pattern p are source_ids[source_ptr[p]:source_ptr[p + 1]], ascending
        counts = np.fromiter((len(ids) for ids in pattern_sources), dtype=np.int64, count=len(pattern_sources))
        self.source_ptr = np.zeros(len(pattern_sources) + 1, dtype=np.int64)
        np.cumsum(counts, out=self.source_ptr[1:])
        self.source_ids = np.fromiter((i for ids in pattern_sources for i in ids), dtype=np.int32,
                                      count=int(self.source_ptr[-1]))
        for arr in (self.pattern_bytes, self.source_ptr, self.source_ids):
            arr.flags.writeable = False

        # keys are the patterns' UTF-8 bytes with boundary markers (see provgate._matching_py)
        self._automaton, self._edges = build_automaton(encoded_patterns)
        self._lock = threading.Lock()
        self._masks: dict[str, np.ndarray] = {}

    @classmethod
    def from_fact_tables(cls, tables: Mapping[str, Any], **limits: Any) -> SourceMatcher:
        """Build from ``{handle: FactTable}``: the facts are the texts of each table's spans."""
        if not isinstance(tables, Mapping):
            raise TypeError(f"tables must be a mapping of handle -> FactTable, not {type(tables).__name__}")
        return cls({h: [t.span(i).text for i in range(len(t))] for h, t in tables.items()}, **limits)

    def __len__(self) -> int:
        return len(self.patterns)

    def __repr__(self) -> str:
        return f"<SourceMatcher: {len(self.patterns)} facts from {len(self.sources)} sources>"

    def source_ids_of(self, pattern: int) -> np.ndarray:
        return self.source_ids[self.source_ptr[pattern] : self.source_ptr[pattern + 1]]

    def sources_of(self, pattern: int) -> tuple[str, ...]:
        return tuple(self.sources[i] for i in self.source_ids_of(pattern).tolist())

    def _pattern_mask(self, handle: str) -> np.ndarray:
        mask = self._masks.get(handle)
        if mask is None:
            try:
                source = self.sources.index(handle)
            except ValueError:
                raise KeyError(f"{handle!r} is not a source of this matcher") from None
            owner = np.repeat(np.arange(len(self.patterns)), np.diff(self.source_ptr))
            mask = np.zeros(len(self.patterns), dtype=bool)
            mask[owner[self.source_ids == source]] = True
            self._masks[handle] = mask
        return mask

    def find_grounded(self, text: str | bytes) -> GroundedMatches:
        """Every span of ``text`` that is a fact of some source, at token boundaries."""
        return self._find(text, _matching.collect)

    def _find(self, text: Any, collect: Any) -> GroundedMatches:
        data = _text_bytes(text, self.max_text_bytes)
        if not self.patterns:
            empty = np.empty(0, dtype=np.int64)
            return GroundedMatches(self, data, empty, empty.copy(), empty.copy())
        # a plain attribute a caller may have changed since __init__ checked it; no text holds
        # 2**63 matches, so a larger limit is that one
        max_matches = min(_positive_int(self.max_matches, "max_matches"), _MAX_MATCHES_LIMIT)
        with self._lock:
            start, end, pattern = collect(self._automaton, data, self.pattern_bytes, self._edges, max_matches)
        return GroundedMatches(self, data, start, end, pattern)


__all__ = ["GroundedMatches", "SourceMatcher"]
