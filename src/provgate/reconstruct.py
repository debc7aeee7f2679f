"""Reconstruction checks: does a quote attributed to a source exist there, byte for byte?

The seed's failure signature is *high citation presence, low citation accuracy*: a summary
keeps its ``[src:call_8841]`` labels, but the sentence it quotes is in the summary, not in the
source. This module measures both, without a model: ``verify_quote`` checks one quote against
one stored source; ``verify_citations`` finds every quotation of an answer that carries a
citation marker and checks each against the source(s) the marker names.

Grades (:class:`QuoteCheck`)
----------------------------
``exact``           the quote's UTF-8 bytes occur in the source. The only pass (``ok``).
``whitespace``      they occur only after whitespace normalisation of both sides (every run of
                    Unicode whitespace becomes one space; ``provgate._search_py`` defines the
                    set), AND the quote and the matched source bytes assert the same facts (equal
                    multisets of fact fingerprints, ``provgate.facts.extract``). A near match,
                    reported as evidence, never a pass.
``not_found``       neither. A whitespace match whose facts differ is ``not_found`` (a changed
                    number, key or quoted string is not a whitespace variant); the rejected match
                    is kept as a diagnostic.
``nominal``         the handle holds a summary's words (stored with kind ``window_summary``,
                    as ``compact`` keeps an evicted summary), not an original source: nothing is
                    searched, and no quote of it is a citation, as ``store.resolve`` refuses any
                    pointer into it as ``nominal`` (red team 122, F04). Never a pass.
``unknown_handle``  the handle does not resolve in the store.

For ``exact`` and ``whitespace`` the check gives the first accepted occurrence as UTF-8 byte
offsets into the ORIGINAL source and a content-addressed :class:`~provgate.pointers.Pointer`
to those bytes (it resolves fail-closed later with ``store.resolve``), and ``occurrences``:
how many times the quote occurs (overlapping occurrences counted; for ``whitespace``, in the
normalised texts). For ``not_found`` a *diagnostic* may be attached (``diagnostic``): the
longest prefix of the quote that does occur and where, or the whitespace match that was
rejected. It is labelled as such and never changes the grade.

Bad input (``verify_quote``): a handle that is not a valid handle string raises
:class:`~provgate.errors.InvalidHandleError`; a valid handle that is not stored is the grade
``unknown_handle`` (a clear result, like a citation naming a missing source); an empty quote or
a quote that is neither ``str`` nor ``bytes`` raises
:class:`~provgate.errors.InvalidArgumentError`; a lone surrogate or invalid UTF-8 raises
:class:`~provgate.errors.InvalidContentError`. A quote longer than the source, or full of
regular-expression metacharacters, is simply searched for (no regular expression is ever
built from user text) and is ``not_found`` unless it occurs. Nothing is written to the store.

Citations in an answer (``verify_citations``)
---------------------------------------------
All of this works on the answer's UTF-8 bytes; every offset is a UTF-8 byte offset, end
exclusive. A **marker** is ``[src:NAME]`` with ``NAME`` 1 to 256 bytes, none of them ASCII
whitespace or control, ``[`` or ``]`` (the citation lexeme of ``docs/grammar.md``). Which
handles a name cites is :func:`provgate.markers.marker_handles` (exact handle, else the handle
name without its kind prefix; several = ambiguous). A **marker group** is one or more markers
separated by spaces or tabs and at most one comma or semicolon: ``[src:a][src:b]``,
``[src:a] [src:b]``, ``[src:a], [src:b]``, ``[src:a]; [src:b]``.

A marker group *carries* the quotation that ends right before it, in one of these forms
(tried in this order):

1. **inline**: a closing delimiter, a gap, then the group. The gap may hold spaces, tabs,
   ``\\r``, VT, FF, parentheses, ``[``, ``*`` and ``_``, the punctuation ``. , ; : ! ? -``,
   dashes and the ellipsis, the clause punctuation of CJK (ideographic and fullwidth), Arabic,
   Greek and Devanagari, no-break, Unicode and zero-width spaces, bidi marks, the soft hyphen,
   and one line break (not below a ``>`` line or a fence line). The
   opening delimiter is searched backwards from the closing one, never across a blank line, a
   code-fence line or the previous marker group (one quotation may span lines inside one
   paragraph; it never contains a marker). The
   quote is the text between the delimiters and must contain a non-whitespace character; a
   quote over lines that opens on a ``>`` line is their text without their prefixes (a later
   line without ``>`` is a lazy continuation, taken whole). On a line of a blockquote, only a
   plain gap (blanks, ``( ) * _``, ``. , ; : ! ?``) leaves the quotation the group's; any
   other gap attributes the blockquote (2.).

   ================  ==========  ==============================================================
   form              delimiters  opening delimiter
   ================  ==========  ==============================================================
   ``double``        ``"…"``     the nearest ``"`` before the closing one, if it can open a
                                 quotation (not after an ASCII letter or digit, not followed
                                 by whitespace)
   ``curly``         ``“…”``     the ``“`` or ``„`` that pairs with the closing ``”`` (they
                                 nest); with none still open, the ``”`` marks paired left to
                                 right by the rules of ``"`` (Swedish; unreadable when one can
                                 neither open nor close); ``„…“`` (German)
   ``single``        ``'…'``     the one opener every reading of the ``'`` marks agrees on:
                                 between two word characters (ASCII letters and digits,
                                 U+00C0-U+1FFF but ``×`` ``÷``) a mark is an apostrophe; after
                                 one, or after text before whitespace, it closes (after an
                                 ``s`` it may be a possessive); any other opens (before a digit
                                 or an elided word it may be an apostrophe: ``'90s``, ``'em``);
                                 readings that disagree or none that pairs: unreadable; the
                                 closing ``'`` must follow a non-whitespace byte
   ``curly_single``  ``‘…’``     read as ``'`` is, ``‘`` and ``‚`` opening (``‚…’``), a ``’``
                                 between word characters an apostrophe; ``‚…‘`` (German)
   ``guillemet``     ``«…»``     the pairing ``«`` (they nest); with none still open, the
                                 ``»`` marks paired left to right as ``”`` are (Finnish);
                                 ``»…«`` (German), ``‹…›``; the spaces French sets inside are
                                 trimmed
   ``corner``        ``「…」``   the pairing ``「`` (or ``『`` for ``』``; they nest)
   ``backtick``      ```…```     a run of N backticks closes; the opening run is the nearest
                                 earlier run of exactly N backticks (unless an odd number of
                                 such runs precede it: then it closes an earlier span); as
                                 in CommonMark, one space is stripped from each end when both
                                 ends have one and the quote is not all spaces
   ================  ==========  ==============================================================

   A group right after a closing ``"``, ``”``, backtick or other-language mark whose
   quotation cannot be read (no opener, one of the other style, a ``"`` that cannot open, a
   ``"`` after a digit with a quotation mark of any kind since the bound or a quotation left
   open before it, no text), or after a closing ``'`` or ``’`` with no opener while a quotation of another style
   is open before it, carries a quotation of the form ``unreadable``, unless it ends a
   blockquote line (2.): its citations are ``not_found`` (or ``unknown_handle``), with the
   diagnostic ``unreadable_quotation``, and nothing is searched.

2. **blockquote**: the group stands on a line of a blockquote (what follows it there is not
   read, and a dash or wrapper before it is not quoted): a line that starts with ``>`` (up
   to three spaces before it), or a lazy line (CommonMark), one without ``>`` of a paragraph
   whose first ``>`` line is above it. The quote is the run of the paragraph's lines from
   its first ``>`` line down to the group's, ``>`` lines without their prefixes (a ``>`` and
   one optional space each: ``> > a`` has two; the lines lose as many as the ``>`` lines
   that hold text share, so ``> > a`` / ``> > b`` quotes ``a`` and ``b``), lazy lines taken
   whole, each joined to the next by its own line ending (``\\n`` or ``\\r\\n``), without
   the group and the blanks before it. A line that holds only its prefixes (if any) and the
   group (or gap and a dash: ``> — [src:a]``, ``([src:a])``) is an attribution line: the
   quote is the lines above it. The run
   stops (upwards) at a line that contains a marker, so ``> a [src:x]`` / ``> b [src:y]`` are
   two citations; a last line with another marker before the group carries nothing.

3. **fence**: the group stands (after no other marker, and what else its line holds not read)
   on the line right after the closing line
   of a fenced code block. A fence line is up to three spaces, then three or more backticks
   (with no backtick after them on an opening line) or tildes; it closes the open block when
   it uses the same character, is at least as long and has only blanks after it; an unclosed
   block runs to the end of the text. The quote is the block's content without its final
   line break.

4. **loose**: a group that carries nothing by 1.-3. reads back to the last closing quotation
   mark of its paragraph since the previous group (any form's but the backtick's; an
   apostrophe between two word characters passed over) and carries what 1. reads there, as if
   that mark ended the gap: ``"…" (see [src:a])``, ``« … », selon [src:a]``,
   ``「…」と書かれています[src:a]``; ``unreadable`` when the group stands inside a quotation
   (``"… [src:a]."``). Words between a quotation and its marker never leave it unchecked.

5. **forward**: a group that carries nothing by 1.-4. carries the quotation that opens after
   it in its sentence, before any other group (the first of the next four closing marks that
   1. reads as a quotation opening after the group): ``According to [src:a], "…"``,
   ``Selon [src:a], « … »``.

6. **below**: a group that carries nothing by 1.-5. and ends a line of prose but for gap, or
   with words that end in a colon (``According to [src:a]:``, ``[src:a] says:``), carries the blockquote or fenced block that starts on the next
   line that is not blank (a run of ``>`` lines holding no marker, or the fence's content).

A group that carries a quotation by 1. or 4. also carries the other quotations of that
sentence before it (paired as unmarked quotes are): ``"X" and "Y" [src:a]`` is two citations.

Lines end at ``\\n``; a ``\\r`` before it belongs to the line ending. Each marker of a group is
one **citation** of the quote: ``"…" [src:a][src:b]`` claims the quote is in ``a`` and in
``b``, and each claim is checked. A marker group that carries no quotation is made of **bare
markers**; markers inside a fenced code block are part of the code, neither. **Unmarked
quotes** (counted for information) are ``"…"``, ``“…”``, ``„…“``, ``„…”``, ``「…」`` and
``『…』`` spans paired left to right inside a paragraph, and runs of ``>`` lines, that are not part of a citation and touch no fenced
block. The scanner that applies these rules is ``provgate._citations`` (native, with the
pure-Python ``provgate._citations_py`` as its executable specification).

For each citation: ``present`` - the marker names at least one stored handle (citation
presence); ``accurate`` - present and the quote is ``exact`` in at least one of the handles
it names (citation accuracy). An ambiguous marker (several handles) is checked against each
and flagged. :class:`CitationReport` gives every citation, bare marker and unmarked quote,
and the totals, including the presence and accuracy rates; ``report.ok`` is True when every
citation is accurate, every bare marker is present and no marker is malformed
(``provgate verify`` exits 0 then, 1 otherwise). A **malformed marker** is text outside fenced
code that looks like a marker but is not one: ``[src: a]``, ``[SRC:a]``, ``［src:a］``,
``【src:a】``, ``[src:a, b]``, ``[src:]``, ``(src:a)``, ``[source: a]``, ``[^src:a]``,
``[src=a]``, and a marker inside a fence never closed
(``report.malformed_markers``). Answers over
:data:`MAX_ANSWER_BYTES` raise :class:`~provgate.errors.LimitExceededError`.

Not recognised: a marker before its quote in another sentence (``[src:a]. "…"``), quotes
with elisions (``"a … b"`` is checked as written and is ``not_found``), escaped delimiters,
code spans past words (`` `x` and so [src:a]`` leaves a bare marker).

Speed and the cache
-------------------
The answer is scanned natively in one pass, and all quotes of an answer are searched in one
native call (``provgate._search``), both without the GIL; many quotes of one source are
searched in one pass over it, not one scan each (docs/reconstruction.md). The whitespace
fallback (and its fact-table check, about 50-100 us per candidate) and the diagnostics run
only for the quotes that were not found exactly. A :class:`CitationReport` computes its totals at once and makes
its :class:`Citation` objects (and their pointers) only when they are asked for.
Reading a source from SQLite and resolving a marker cost about 15-20 us each, more than
searching it. A :class:`SourceCache` keeps, per store, the verified bytes and digest of
every source read and the handles of every marker that resolved, so a session that verifies
many answers reads each source once. This is sound because handles are immutable: a stored
handle names the same bytes forever. The one thing a cache can miss is a handle stored *later*
under an already-resolved marker name (which would make that marker ambiguous); a new cache
sees it. Markers that resolved to nothing are not cached.
"""

from __future__ import annotations

import bisect
import os
import re
import threading
import unicodedata
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

import numpy as np

from provgate import _citations, _citations_py, _search
from provgate._matching_py import after_negation
from provgate.digests import compute_digest
from provgate.errors import (
    InvalidArgumentError,
    InvalidHandleError,
    LimitExceededError,
    UnknownHandleError,
)
from provgate.handles import check_handle
from provgate.markers import marker_handles as _marker_handles_rule
from provgate.pointers import Pointer
from provgate.store import DERIVED_KIND, SourceStore
from provgate.text import utf8_bytes

GRADE_EXACT = "exact"
GRADE_WHITESPACE = "whitespace"
GRADE_NOT_FOUND = "not_found"
GRADE_NOMINAL = "nominal"
GRADE_UNKNOWN_HANDLE = "unknown_handle"
# best first: a citation whose marker names several handles takes the best of its checks
GRADES: tuple[str, ...] = (GRADE_EXACT, GRADE_WHITESPACE, GRADE_NOT_FOUND, GRADE_NOMINAL, GRADE_UNKNOWN_HANDLE)
_EXACT, _WHITESPACE, _NOT_FOUND, _NOMINAL, _UNKNOWN = range(5)

# "double", "curly", "single", "curly_single", "backtick", "blockquote", "fence", "unreadable",
# "guillemet", "corner"
FORMS: tuple[str, ...] = _citations.FORMS

MAX_ANSWER_BYTES = 64 * 1024 * 1024
MAX_MARKER_NAME_BYTES = 256
# whitespace-normalised occurrences examined for one with equal facts (they all share their
# non-whitespace bytes, so their facts differ only where line structure matters)
MAX_WHITESPACE_CANDIDATES = 16
DEFAULT_CACHE_BYTES = 256 * 1024 * 1024

DIAGNOSTIC_LONGEST_PREFIX = "longest_prefix"
DIAGNOSTIC_FACTS_DIFFER = "whitespace_match_facts_differ"
DIAGNOSTIC_CUTS_A_TOKEN = "occurs_only_cutting_a_token"
DIAGNOSTIC_UNREADABLE_QUOTATION = "unreadable_quotation"
DIAGNOSTIC_AFTER_A_NEGATION = "occurs_only_after_a_negation"


# ---------------------------------------------------------------------------------- results
# Result records are NamedTuples or __slots__ classes, not frozen dataclasses (an answer has
# hundreds of citations; a frozen dataclass costs about 1 us more per object), and a report
# keeps its rows as plain tuples and makes these objects only when they are asked for.


class Diagnostic(NamedTuple):
    """Evidence about a quote that was NOT found. Never a grade, never a pass.

    ``longest_prefix``: the first ``quote_bytes`` bytes of the quote (whole characters) occur
    in the source at ``[source_start, source_end)``; the quote diverges from the source after
    them. ``whitespace_match_facts_differ``: the quote matched ``[source_start, source_end)``
    after whitespace normalisation, but the two assert different facts (``detail`` says which).
    ``occurs_only_cutting_a_token``: the quote occurs at ``[source_start, source_end)`` (its
    first such place), but only where it cuts a word or number of the source in two ("after
    3" in "after 30 attempts"). ``unreadable_quotation``: the marker follows a closing
    delimiter whose quotation cannot be read (form ``unreadable``), so nothing was searched;
    ``source_start`` and ``source_end`` are 0. ``occurs_only_after_a_negation``: the quote occurs
    whole at ``[source_start, source_end)`` (its first such place), but only right after a
    negation ("deploy to prod" of "do not deploy to prod"): it says what its source denies.
    """

    kind: str
    source_start: int
    source_end: int
    quote_bytes: int
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "graded": False,
            "source_start": self.source_start,
            "source_end": self.source_end,
            "quote_bytes": self.quote_bytes,
            "detail": self.detail,
        }


class QuoteCheck:
    """The result of checking one quote against the source of one handle (module docstring).

    Read-only attributes: ``handle``, ``grade`` (one of :data:`GRADES`), ``quote_bytes`` (the
    quote's length in UTF-8 bytes), ``start``/``end`` (the matched ORIGINAL source bytes, or
    None), ``occurrences``, ``source_digest``, ``diagnostic`` (a :class:`Diagnostic` or None).
    ``span_digest`` and ``pointer`` are computed on first use.
    """

    __slots__ = ("_handle", "_grade", "_quote_bytes", "_start", "_end", "_occurrences", "_source_digest",
                 "_diagnostic", "_source", "_span_digest", "_pointer")  # fmt: skip

    def __init__(
        self,
        handle: str,
        grade: str,
        quote_bytes: int,
        start: int | None = None,
        end: int | None = None,
        occurrences: int = 0,
        source: bytes | None = None,
        source_digest: str | None = None,
        diagnostic: Diagnostic | None = None,
    ) -> None:
        self._handle = handle
        self._grade = grade
        self._quote_bytes = quote_bytes
        self._start = start
        self._end = end
        self._occurrences = occurrences
        self._source_digest = source_digest
        self._diagnostic = diagnostic
        # the verified source the offsets refer to, for the span digest (a reference, no copy)
        self._source = source
        self._span_digest: str | None = None
        self._pointer: Pointer | None = None

    handle = property(lambda self: self._handle)
    grade = property(lambda self: self._grade)
    quote_bytes = property(lambda self: self._quote_bytes)
    start = property(lambda self: self._start)
    end = property(lambda self: self._end)
    occurrences = property(lambda self: self._occurrences)
    source_digest = property(lambda self: self._source_digest)
    diagnostic = property(lambda self: self._diagnostic)

    @property
    def ok(self) -> bool:
        """True only for an exact match: a near match is never a pass."""
        return self._grade == GRADE_EXACT

    @property
    def span_digest(self) -> str | None:
        """The digest of the matched source bytes (exact and whitespace grades)."""
        if self._span_digest is None and self._source is not None and self._start is not None:
            self._span_digest = compute_digest(self._source[self._start : self._end])
        return self._span_digest

    @property
    def pointer(self) -> Pointer | None:
        """A pointer to the matched ORIGINAL source bytes (exact and whitespace grades);
        ``store.resolve(check.pointer)`` returns them, or fails closed."""
        if self._pointer is None:
            span_digest = self.span_digest
            if span_digest is None or self._source_digest is None:
                return None
            self._pointer = Pointer(
                handle=self._handle,
                start=self._start,  # type: ignore[arg-type]
                end=self._end,  # type: ignore[arg-type]
                span_digest=span_digest,
                source_digest=self._source_digest,
            )
        return self._pointer

    def _key(self) -> tuple[Any, ...]:
        return (self._handle, self._grade, self._quote_bytes, self._start, self._end, self._occurrences,
                self._source_digest, self._diagnostic)  # fmt: skip

    def __eq__(self, other: object) -> bool:
        return isinstance(other, QuoteCheck) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        where = f", start={self._start}, end={self._end}" if self._start is not None else ""
        return f"QuoteCheck(handle={self._handle!r}, grade={self._grade!r}{where}, occurrences={self._occurrences})"

    def describe(self) -> str:
        """One sentence for a human."""
        if self._grade == GRADE_EXACT:
            more = f" ({self._occurrences} occurrences)" if self._occurrences > 1 else ""
            return f"found byte-exactly in {self._handle} at [{self._start}, {self._end}){more}"
        if self._grade == GRADE_WHITESPACE:
            return (
                f"not byte-exact; found in {self._handle} at [{self._start}, {self._end}) only after "
                "whitespace normalisation, with the same facts (a near match, not a pass)"
            )
        if self._grade == GRADE_UNKNOWN_HANDLE:
            return f"handle {self._handle!r} does not resolve in the store"
        if self._grade == GRADE_NOMINAL:
            return (
                f"not checked: {self._handle} holds a summary's words (stored with kind {DERIVED_KIND!r}), "
                "not an original source, so no quote of it is a citation"
            )
        message = f"not found in {self._handle}"
        d = self._diagnostic
        if d is not None and d.kind == DIAGNOSTIC_UNREADABLE_QUOTATION:
            message = f"not checked against {self._handle}: {d.detail}"
        elif d is not None and d.kind == DIAGNOSTIC_CUTS_A_TOKEN:
            message += (
                f"; it occurs at [{d.source_start}, {d.source_end}) only where it cuts a word or number "
                "of the source in two"
            )
        elif d is not None and d.kind == DIAGNOSTIC_AFTER_A_NEGATION:
            message += (
                f"; it occurs at [{d.source_start}, {d.source_end}) only right after a negation (not, no, "
                "never, …), which the quote leaves out"
            )
        elif d is not None and d.kind == DIAGNOSTIC_FACTS_DIFFER:
            message += (
                f"; a whitespace-normalised match at [{d.source_start}, {d.source_end}) was rejected "
                f"because the facts differ ({d.detail})"
            )
        elif d is not None:
            message += (
                f"; only the first {d.quote_bytes} of {self._quote_bytes} quote bytes occur (at "
                f"[{d.source_start}, {d.source_end})), then the quote diverges"
            )
        return message

    def to_json(self) -> dict[str, Any]:
        pointer = self.pointer
        return {
            "handle": self._handle,
            "grade": self._grade,
            "ok": self.ok,
            "quote_bytes": self._quote_bytes,
            "start": self._start,
            "end": self._end,
            "occurrences": self._occurrences,
            "pointer": None if pointer is None else pointer.to_json(),
            "diagnostic": None if self._diagnostic is None else self._diagnostic.to_json(),
            "message": self.describe(),
        }


class Marker(NamedTuple):
    """One ``[src:NAME]`` marker of an answer (its byte span) and the stored handles it names."""

    name: str
    start: int
    end: int
    handles: tuple[str, ...]

    @property
    def present(self) -> bool:
        return bool(self.handles)

    @property
    def ambiguous(self) -> bool:
        return len(self.handles) > 1

    def to_json(self) -> dict[str, Any]:
        return {
            "marker": f"[src:{self.name}]",
            "name": self.name,
            "start": self.start,
            "end": self.end,
            "handles": list(self.handles),
            "present": self.present,
            "ambiguous": self.ambiguous,
        }


class MalformedMarker(NamedTuple):
    """Text that looks like a citation marker but is not one (``[src: a]``, ``[SRC:a]``,
    ``［src:a］``, ``[src:a, b]``): its byte span in the answer and its text."""

    text: str
    start: int
    end: int

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "start": self.start, "end": self.end}


class Quotation(NamedTuple):
    """A quotation of an answer: its text, form (:data:`FORMS`) and the byte span of the text
    in the answer (a blockquote's span also covers the ``>`` prefixes between its lines)."""

    text: str
    form: str
    start: int
    end: int

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "form": self.form, "start": self.start, "end": self.end}


class Citation(NamedTuple):
    """One marker attached to one quotation: the claim "this text is in that source".
    ``checks`` has one :class:`QuoteCheck` per handle the marker names."""

    quotation: Quotation
    marker: Marker
    checks: tuple[QuoteCheck, ...]

    @property
    def present(self) -> bool:
        """The marker names at least one stored handle (citation presence)."""
        return bool(self.marker.handles)

    @property
    def best(self) -> QuoteCheck | None:
        """The check with the best grade (the first of equals), or None without handles."""
        if not self.checks:
            return None
        return min(self.checks, key=lambda c: GRADES.index(c.grade))

    @property
    def grade(self) -> str:
        best = self.best
        return GRADE_UNKNOWN_HANDLE if best is None else best.grade

    @property
    def accurate(self) -> bool:
        """Present, and the quote is byte-exact in a source the marker names (accuracy)."""
        return any(c.grade == GRADE_EXACT for c in self.checks)

    def to_json(self) -> dict[str, Any]:
        best = self.best
        pointer = None if best is None else best.pointer
        return {
            "quote": self.quotation.text,
            "form": self.quotation.form,
            "quote_start": self.quotation.start,
            "quote_end": self.quotation.end,
            "marker": f"[src:{self.marker.name}]",
            "name": self.marker.name,
            "marker_start": self.marker.start,
            "marker_end": self.marker.end,
            "handles": list(self.marker.handles),
            "present": self.present,
            "ambiguous": self.marker.ambiguous,
            "accurate": self.accurate,
            "grade": self.grade,
            "handle": None if best is None or best.grade == GRADE_UNKNOWN_HANDLE else best.handle,
            "pointer": None if pointer is None else pointer.to_json(),
            "checks": [c.to_json() for c in self.checks],
        }


class CitationReport:
    """Every citation of an answer, its bare markers and unmarked quotes, and the totals.

    The totals and rates are computed when the report is made; ``citations``,
    ``bare_markers`` and ``unmarked_quotes`` are built on first access (an answer may have
    thousands), and ``to_json()`` builds everything, pointers included.
    """

    __slots__ = ("_parsed", "_rows", "_bare_rows", "_handles", "_checks", "_best", "_citations", "_bare", "_unmarked",
                 "malformed_markers", "_summaries_only")

    def __init__(self, parsed: _Parsed, rows: list[tuple[int, str, int, int, tuple[int, ...]]],
                 bare: list[tuple[str, int, int]], handles: dict[str, tuple[str, ...]], checks: _Checks,
                 best: list[int], malformed: tuple[MalformedMarker, ...] = (),
                 summaries_only: frozenset[str] = frozenset()) -> None:  # fmt: skip
        # internal: made by verify_citations; a row is (quotation, name, start, end, check slots);
        # ``summaries_only``: the bare markers' names whose every handle holds a summary's words
        # (kind DERIVED_KIND), no source, so such a marker is not present (red team 124, F06)
        self._summaries_only = summaries_only
        self._parsed = parsed
        self._rows = rows
        self._bare_rows = bare
        self._handles = handles
        self._checks = checks
        self._best = best  # best grade code of each citation row
        self._citations: tuple[Citation, ...] | None = None
        self._bare: tuple[Marker, ...] | None = None
        self._unmarked: tuple[Quotation, ...] | None = None
        self.malformed_markers = malformed

    @property
    def answer_bytes(self) -> int:
        return len(self._parsed.data)

    @property
    def citations(self) -> tuple[Citation, ...]:
        if self._citations is None:
            quotations = [self._parsed.quotation(q) for q in self._parsed.quotes]
            out = []
            for quote, name, start, end, slots in self._rows:
                marker = Marker(name, start, end, self._handles[name])
                out.append(Citation(quotations[quote], marker, tuple(self._checks.check(s) for s in slots)))
            self._citations = tuple(out)
        return self._citations

    @property
    def bare_markers(self) -> tuple[Marker, ...]:
        if self._bare is None:
            self._bare = tuple(Marker(n, s, e, self._handles[n]) for n, s, e in self._bare_rows)
        return self._bare

    @property
    def unmarked_quotes(self) -> tuple[Quotation, ...]:
        if self._unmarked is None:
            self._unmarked = tuple(self._parsed.quotation(u) for u in self._parsed.unmarked)
        return self._unmarked

    @property
    def present(self) -> int:
        """Citations whose marker names at least one stored handle."""
        return sum(1 for b in self._best if b != _UNKNOWN)

    @property
    def accurate(self) -> int:
        """Citations whose quote is byte-exact in a source the marker names."""
        return sum(1 for b in self._best if b == _EXACT)

    @property
    def presence_rate(self) -> float | None:
        """Share of citations whose marker names a stored handle (None without citations)."""
        return self.present / len(self._best) if self._best else None

    @property
    def accuracy_rate(self) -> float | None:
        """Share of citations whose quote is byte-exact in a cited source (None without)."""
        return self.accurate / len(self._best) if self._best else None

    @property
    def ok(self) -> bool:
        """Every citation accurate, every bare marker present and no malformed marker
        (``provgate verify`` exit 0)."""
        return (
            not self.malformed_markers
            and all(b == _EXACT for b in self._best)
            and all(self._handles[n] and n not in self._summaries_only for n, _, _ in self._bare_rows)
        )

    def totals(self) -> dict[str, Any]:
        by_grade = dict.fromkeys(GRADES, 0)
        for b in self._best:
            by_grade[GRADES[b]] += 1
        bare = self._bare_rows
        return {
            "citations": len(self._best),
            "quotations": len({row[0] for row in self._rows}),
            "present": self.present,
            "accurate": self.accurate,
            "presence_rate": self.presence_rate,
            "accuracy_rate": self.accuracy_rate,
            "by_grade": by_grade,
            "ambiguous": sum(1 for row in self._rows if len(self._handles[row[1]]) > 1),
            "bare_markers": len(bare),
            "bare_markers_present": sum(1 for n, _, _ in bare if self._handles[n] and n not in self._summaries_only),
            "unmarked_quotes": len(self._parsed.unmarked),
            "malformed_markers": len(self.malformed_markers),
        }

    def to_json(self, *, limit: int | None = None) -> dict[str, Any]:
        """The report as JSON: ``ok``, the totals (always of everything) and each list. With
        ``limit``, each list holds its first ``limit`` entries and ``omitted`` counts the rest
        per list: a citation's JSON is about 1 KB, and an answer of 63 MB of citations made 3 GB
        of it and 24 GB of memory (red team 90, F07)."""
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
            raise InvalidArgumentError(f"limit must be an int >= 0 or None, not {limit!r}", argument="limit")
        n = len(self._rows) if limit is None else min(limit, len(self._rows))
        citations = self.citations if limit is None or n == len(self._rows) else self._citations_upto(n)
        listed = {
            "citations": [c.to_json() for c in citations],
            "bare_markers": [Marker(name, start, end, self._handles[name]).to_json()
                             for name, start, end in self._bare_rows[:limit]],
            "unmarked_quotes": [self._parsed.quotation(u).to_json() for u in self._parsed.unmarked[:limit]],
            "malformed_markers": [m.to_json() for m in self.malformed_markers[:limit]],
        }
        out: dict[str, Any] = {"ok": self.ok, "answer_bytes": self.answer_bytes, "totals": self.totals(), **listed}
        totals = {"citations": len(self._rows), "bare_markers": len(self._bare_rows),
                  "unmarked_quotes": len(self._parsed.unmarked), "malformed_markers": len(self.malformed_markers)}
        omitted = {key: totals[key] - len(listed[key]) for key in listed if totals[key] > len(listed[key])}
        if omitted:
            out["omitted"] = omitted
        return out

    def _citations_upto(self, n: int) -> tuple[Citation, ...]:
        """The first ``n`` citations, made without the others."""
        quotations: dict[int, Quotation] = {}
        out = []
        for quote, name, start, end, slots in self._rows[:n]:
            if quote not in quotations:
                quotations[quote] = self._parsed.quotation(self._parsed.quotes[quote])
            marker = Marker(name, start, end, self._handles[name])
            out.append(Citation(quotations[quote], marker, tuple(self._checks.check(s) for s in slots)))
        return tuple(out)

    def __repr__(self) -> str:
        t = self.totals()
        return (
            f"<CitationReport {t['citations']} citations, {t['present']} present, {t['accurate']} accurate, "
            f"{t['bare_markers']} bare markers, {t['unmarked_quotes']} unmarked quotes>"
        )


# ---------------------------------------------------------------------------------- the cache


class _Source(NamedTuple):
    data: bytes
    digest: str
    # stored with kind DERIVED_KIND: a summary's words, no source (grade nominal)
    derived: bool = False


class SourceCache:
    """Verified sources and marker resolutions of one store, kept across calls.

    Pass it to :func:`verify_quote` / :func:`verify_citations` together with its store.
    Sources come only from the store's verified reads (``get_bytes``); their digest is computed
    once from those bytes. Beyond ``max_bytes`` of sources the oldest entries are dropped.
    Safe to share between threads (at worst two threads read one source twice). The module
    docstring says why caching is sound and what it can miss (a later same-name handle).
    """

    def __init__(self, store: Any, *, max_bytes: int = DEFAULT_CACHE_BYTES) -> None:
        if not isinstance(store, SourceStore):
            # (a path, or None, surfaced as an AttributeError from the first read: red team 50)
            hint = " (open it first: SourceStore(path))" if isinstance(store, (str, bytes, os.PathLike)) else ""
            raise InvalidArgumentError(f"store must be a SourceStore, not {type(store).__name__}{hint}",
                                       argument="store")
        if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 0:
            raise InvalidArgumentError(f"max_bytes must be a non-negative int, not {max_bytes!r}", argument="max_bytes")
        self._store = store
        self._max_bytes = max_bytes
        self._sources: dict[str, _Source] = {}
        self._bytes = 0
        self._markers: dict[str, tuple[str, ...]] = {}
        self._names_seq: int | None = None  # the newest source when the names were last vetted
        self._lock = threading.Lock()

    @property
    def store(self) -> Any:
        return self._store

    def __len__(self) -> int:
        """Number of sources held."""
        return len(self._sources)

    def source(self, handle: str) -> _Source | None:
        """The verified bytes and digest of ``handle``, or None if it is not stored."""
        cached = self._sources.get(handle)
        if cached is not None:
            return cached
        try:
            # the row's kind too (checked against its checksum): a summary's words stored for
            # the record of its eviction are no source (red team 122, F04)
            _, data, kind = self._store._read_verified_kind(check_handle(handle))
        except UnknownHandleError:
            return None
        entry = _Source(data, compute_digest(data), kind == DERIVED_KIND)
        with self._lock:
            if handle not in self._sources and len(data) <= self._max_bytes:
                self._sources[handle] = entry
                self._bytes += len(data)
                while self._bytes > self._max_bytes:
                    oldest = next(iter(self._sources))
                    self._bytes -= len(self._sources.pop(oldest).data)
        return entry

    def marker_handles(self, name: str) -> tuple[str, ...]:
        """The handles ``[src:NAME]`` cites, by :func:`provgate.markers.marker_handles`; a name
        that is not a valid handle string cites nothing."""
        if self._names_seq is None:
            self.forget_stale_names()  # (first: a name resolved now is vetted from here on)
        found = self._markers.get(name)
        if found is not None:
            return found
        try:
            found = tuple(_marker_handles_rule(self._store, name))
        except InvalidHandleError:
            return ()
        if found:
            self._markers[name] = found
        return found

    def forget_stale_names(self) -> None:
        """Forget the marker resolutions that sources stored since the last call may have
        changed: a new handle changes what its own name cites (an exact handle wins) and what
        its name after the kind prefix cites (a second match makes it ambiguous); sources are
        never deleted or replaced, so nothing else can change. One indexed query; every
        verify_quote / verify_citations given this cache asks it first (red team 33, 03: a
        cached [src:call_1] kept citing tool:call_1 after call_1 itself was stored)."""
        latest, added = self._store.handles_added_since(self._names_seq)
        with self._lock:
            if added:
                for name in set(added).union(h.partition(":")[2] for h in added if ":" in h):
                    self._markers.pop(name, None)
            if self._names_seq is None or latest > self._names_seq:
                self._names_seq = latest

    def preload(self, handles: Iterable[str]) -> int:
        """Read these sources now (e.g. before a timed section); return how many are stored."""
        return sum(1 for h in handles if self.source(h) is not None)


def _cache_for(store: Any, cache: SourceCache | None) -> SourceCache:
    if cache is None:
        return SourceCache(store)
    if not isinstance(cache, SourceCache):
        raise InvalidArgumentError(f"cache must be a SourceCache or None, not {type(cache).__name__}", argument="cache")
    if cache.store is not store:
        raise InvalidArgumentError("cache belongs to a different store", argument="cache")
    cache.forget_stale_names()
    return cache


# ---------------------------------------------------------------------------------- one quote


def _quote_bytes(quote: Any) -> bytes:
    if not isinstance(quote, (str, bytes, bytearray, memoryview)):
        raise InvalidArgumentError(f"quote must be str or UTF-8 bytes, not {type(quote).__name__}", argument="quote")
    data = utf8_bytes(quote, "quote", hint="it has no UTF-8 bytes to search for")
    if not data:
        raise InvalidArgumentError(
            "quote is empty; an empty quote occurs everywhere and proves nothing", argument="quote"
        )
    return data


def verify_quote(store: Any, handle: str, quote: str | bytes, *, cache: SourceCache | None = None) -> QuoteCheck:
    """Check that ``quote`` occurs byte-exactly in the source of ``handle`` (module docstring:
    grades, diagnostics, bad input). Reads the store (or ``cache``), never writes."""
    handle = check_handle(handle)
    needle = _quote_bytes(quote)
    cache = _cache_for(store, cache)
    return _check_pairs(cache, [needle], [handle], diagnose=True).check(0)


# ---------------------------------------------------------------------------------- batch core


class _Checks:
    """The results of checking (quote, handle) pairs, as columns; a :class:`QuoteCheck` is
    made for a pair when it is asked for."""

    __slots__ = ("handles", "lengths", "grade", "start", "end", "count", "sources", "diagnostics", "_made")

    def __init__(self, needles: list[bytes], handles: list[str]) -> None:
        n = len(needles)
        self.handles = handles
        self.lengths = [len(x) for x in needles]
        self.grade = [_UNKNOWN] * n
        self.start: list[int | None] = [None] * n
        self.end: list[int | None] = [None] * n
        self.count = [0] * n
        self.sources: list[_Source | None] = [None] * n
        self.diagnostics: dict[int, Diagnostic] = {}
        self._made: dict[int, QuoteCheck] = {}

    def check(self, i: int) -> QuoteCheck:
        made = self._made.get(i)
        if made is None:
            source = self.sources[i]
            found = self.grade[i] in (_EXACT, _WHITESPACE)
            made = QuoteCheck(
                self.handles[i],
                GRADES[self.grade[i]],
                self.lengths[i],
                self.start[i],
                self.end[i],
                self.count[i],
                source.data if found and source is not None else None,
                source.digest if found and source is not None else None,
                self.diagnostics.get(i),
            )
            self._made[i] = made
        return made


def _char_boundary(data: bytes, length: int) -> int:
    """The largest length <= ``length`` that ends on a UTF-8 character boundary of ``data``."""
    while 0 < length < len(data) and (data[length] & 0xC0) == 0x80:
        length -= 1
    return length


_UNREADABLE_DETAIL = (
    "the quotation before the marker cannot be read: its delimiters do not pair up (a nested or "
    "mixed-style quotation, or a closing delimiter with no opener) or it holds no text"
)


def _check_pairs(
    cache: SourceCache, needles: list[bytes], handles: list[str], *, diagnose: bool,
    unreadable: frozenset[int] = frozenset(), code: frozenset[int] = frozenset(),
) -> _Checks:
    """Check ``needles[i]`` against the source of ``handles[i]``: one native exact search for
    all pairs, then the whitespace fallback and the diagnostics only for those not found. The
    pairs in ``unreadable`` (quotations of the form ``unreadable``) are not searched: each is
    ``not_found`` when its handle is stored (red team 82, F01). A quote found only right after a
    negation is ``not_found`` (``occurs_only_after_a_negation``), but for the pairs in ``code``
    (code spans)."""
    checks = _Checks(needles, handles)
    by_handle: dict[str, _Source | None] = {}
    todo: list[int] = []
    for i, handle in enumerate(handles):
        source = by_handle.get(handle, by_handle)
        if source is by_handle:
            source = by_handle[handle] = cache.source(handle)
        if source is None:
            continue
        if source.derived:
            # a summary's words: what store.resolve refuses any pointer into (red team 122, F04)
            checks.grade[i] = _NOMINAL
        elif i in unreadable:
            checks.grade[i] = _NOT_FOUND
            checks.diagnostics[i] = Diagnostic(DIAGNOSTIC_UNREADABLE_QUOTATION, 0, 0, len(needles[i]),
                                               _UNREADABLE_DETAIL)  # fmt: skip
        else:
            checks.sources[i] = source  # type: ignore[assignment]
            todo.append(i)
    if not todo:
        return checks
    t_needles = [needles[i] for i in todo]
    t_haystacks = [checks.sources[i].data for i in todo]  # type: ignore[union-attr]
    first, count = _search.find_exact(t_needles, t_haystacks)
    missing: list[int] = []
    for k, (i, at, n) in enumerate(zip(todo, first.tolist(), count.tolist())):
        if at >= 0 and _cuts_a_token(t_haystacks[k], at, at + checks.lengths[i], t_needles[k]):
            at = _whole_occurrence(t_needles[k], t_haystacks[k], at)
        if at >= 0 and i not in code and after_negation(t_haystacks[k], at):
            negated = at
            at = _occurrence_not_after_a_negation(t_needles[k], t_haystacks[k], at)
            if at < 0:
                # (the gate's I1 refuses such a quote too: red team 89, F07)
                checks.grade[i] = _NOT_FOUND
                checks.diagnostics[i] = Diagnostic(DIAGNOSTIC_AFTER_A_NEGATION, negated, negated + checks.lengths[i],
                                                   checks.lengths[i])
                continue
        if at < 0:
            missing.append(k)
            continue
        checks.grade[i] = _EXACT
        checks.start[i] = at
        checks.end[i] = at + checks.lengths[i]
        checks.count[i] = n
    if missing:
        counts = count.tolist()
        _check_missing(checks, [todo[k] for k in missing], [t_needles[k] for k in missing],
                       [t_haystacks[k] for k in missing], [counts[k] for k in missing], diagnose, code)  # fmt: skip
    return checks


def _occurrence_not_after_a_negation(needle: bytes, haystack: bytes, after: int) -> int:
    """The first whole occurrence of ``needle`` past ``after`` that does not follow a negation
    (:func:`provgate._matching_py.after_negation`), or -1: each later occurrence is looked at
    once, in one pass over the source."""
    at = haystack.find(needle, after + 1)
    while at >= 0:
        if not _cuts_a_token(haystack, at, at + len(needle), needle) and not after_negation(haystack, at):
            return at
        at = haystack.find(needle, at + 1)
    return -1


# a digit group's separators ("3_000", "3'000", "3 000" with a no-break, narrow no-break, thin
# or figure space), the en dash of a range ("3–5") and the minus sign of typeset text ("−5")
_DIGIT_GROUP = (b"_", b"'", b"\xc2\xa0", b"\xe2\x80\xaf", b"\xe2\x80\x89", b"\xe2\x80\x87")
_EN_DASH = b"\xe2\x80\x93"
_MINUS_SIGN = b"\xe2\x88\x92"
# the separators of other scripts (red team 84, F05: "५०० रुपये" of "३,५०० रुपये", "after ٣" of
# "after ٣٫٥" and "５００円" of "３，５００円" graded exact): the Arabic decimal and thousands
# separators and the fullwidth full stop, all inside a number, and the fullwidth comma, a
# thousands comma or a list's
_ARABIC_DECIMAL, _ARABIC_THOUSANDS = "\u066b".encode(), "\u066c".encode()
_FULLWIDTH_STOP, _FULLWIDTH_COMMA = "\uff0e".encode(), "\uff0c".encode()
_OTHER_INSIDE = (_ARABIC_DECIMAL, _ARABIC_THOUSANDS, _FULLWIDTH_STOP)
# what carries a number on past a digit when a digit follows it: a joiner, a range ("3..5",
# "3--5", "3–5", "3−5"), an exponent ("3.e5"), a digit group's separator
_NUMBER_GOES_ON = re.compile(rb"\.\.|--|\.[eE][+-]?|" + b"|".join(
    map(re.escape, (b".", b",", b":", b"/", b"-", *_DIGIT_GROUP, _EN_DASH, _MINUS_SIGN, *_OTHER_INSIDE,
                    _FULLWIDTH_COMMA))))
# what joins a digit to a number before it, besides a point, a hyphen or a minus sign (which
# are the number's whatever stands before them: "-5", ".5", "−5"): "3,000", "10:30", "3/4",
# "3–5", a digit group's separator
_JOINED_AFTER = (b",", b":", b"/", *_DIGIT_GROUP, _EN_DASH, *_OTHER_INSIDE, _FULLWIDTH_COMMA)
# what a quote cannot open or end on between two digits of the source's number: "-5" of "3-5"
# is a sign the source does not have, "_000" of "3_000" a digit group, "takes 3–" of "3–5" half
# a range. Not ":" or "/": ":8080" of "10.0.0.1:8080" and "/1/items" of a URL are honest
# quotes (red team 36, 02); "," only before a thousands group
_NUMBER_INSIDE = (b".", b"-", *_DIGIT_GROUP, _EN_DASH, _MINUS_SIGN, *_OTHER_INSIDE)
_THOUSANDS = re.compile(rb"\d{3}(?!\d)")  # "3," of "3,000" (not of "1,2,3")
_MINUTES = re.compile(rb"\d{2}(?!\d)")  # "10:" of "10:30" (not "12:" of "12:5:")


def _cuts_a_token(source: bytes, start: int, end: int, quote: bytes | None = None) -> bool:
    """Does the occurrence of a quote at ``source[start:end]`` cut an ASCII word or number of
    the source in two: "after 3" in "after 30", "after 3.5", "3_000" or "3½", "5 degrees" in "-5 degrees",
    "after 3." in "after 3.5", "limit reach" in "limit reached"? Such an occurrence is no
    quotation of the source (red team 33, 06: it graded exact, a drifted number passing; red
    team 36, 03: a dropped sign, point or digit group). Only ASCII letters and digits make
    words here, and digits of any script numbers ("٣٠": red team 82, F07): a quote from text
    without spaces between words (Chinese, Japanese) may end anywhere. A quote's own punctuation is its boundary (":8080" of "10.0.0.1:8080",
    "/1/items" of a URL, "[1," of "[1,2,3]": red team 36, 02), except what joins the source
    number's digits where that number goes on: "after 3." of "after 3.5", "takes 3–" of
    "takes 3–5", and a quote that opens on it after a digit, "-5" of "3-5", ",000" of "3,000"
    (red team 37, 05: the typeset minus sign and en dash too).

    Only the quote's first and last few bytes matter, so only they are read: an occurrence
    costs the same whatever the quote's length (red team 82, F02: a copy of the quote per
    occurrence made a long quote with many occurrences quadratic). ``quote``, when given, is
    ``source[start:end]`` already at hand (an exact occurrence's quote), read in place."""
    if quote is None:
        quote = source[start : min(end, start + _EDGE_BYTES)]  # its head: what it opens on
        tail = source[max(start, end - _EDGE_BYTES) : end]  # what it ends on
    else:
        tail = quote
    first, last = quote[0], tail[-1]
    if start > 0:
        before = source[start - 1]
        if _is_ascii_alnum(first):
            if _is_ascii_alnum(before):
                return True
            if _is_digit(first) and _number_opens_before(source, start):
                return True
        elif first >= 0x80 and _decimal_at(quote, 0):
            # a digit of another script opens a number as an ASCII one does: "٠ attempts" of
            # "٣٠ attempts", "０回" of "３０回" (red team 82, F07)
            if _number_opens_before(source, start):
                return True
        elif _digit_before(source, start) and _opens_inside_a_number(quote, source, start):
            return True  # ".5 seconds" of "3.5 seconds", "-5" of "3-5": it opens inside a number
    if end < len(source):
        if _is_ascii_alnum(last):
            if _is_ascii_alnum(source[end]) or (_is_digit(last) and _number_goes_on(source, end)):
                return True
        elif last >= 0x80 and _decimal_at(tail, _char_start(tail, len(tail) - 1)):
            # a digit of another script ends a number only where the source's number ends too:
            # "after ٣" does not occur in "after ٣٠", "３" not in "３０" (red team 82, F07: graded
            # exact, the drifted number passing)
            if _number_goes_on(source, end):
                return True
        elif len(tail) >= 2 and _digit_before(tail, len(tail) - 1):
            # "retries after 3." of "retries after 3.5": the quote's full stop is the number's
            # point (red team 33's note: the quote brought its own boundary, so it graded exact)
            if last == 0x2E:
                return _number_goes_on(source, end - 1)
            if last == 0x2C:
                return _THOUSANDS.match(source, end) is not None
            if last == 0x3A:
                return _MINUTES.match(source, end) is not None
        if _ends_with_joiner(tail) and _digit_at(source, end):
            return True  # "takes 3-" or "takes 3–" of "takes 3–5 days", "3\u202f" of "3\u202f000"
    return False


# bytes of a quote's head or tail that _cuts_a_token reads: a joiner of up to three bytes and
# the (up to four-byte) digit after it, or a comma and a thousands group and the byte after it
_EDGE_BYTES = 8


def _opens_inside_a_number(quote: bytes, source: bytes, start: int) -> bool:
    """Does ``quote``, found at ``start`` right after a digit of ``source``, open on what
    joins that digit to the next one (:data:`_NUMBER_INSIDE`, or a thousands comma)?"""
    for joiner in _NUMBER_INSIDE:
        if quote.startswith(joiner):
            return _digit_at(quote, len(joiner))
    return quote[0] == 0x2C and _THOUSANDS.match(quote, 1) is not None


def _ends_with_joiner(quote: bytes) -> bool:
    """Does ``quote`` end with a joiner of :data:`_NUMBER_INSIDE` after a digit?"""
    for joiner in _NUMBER_INSIDE:
        if quote.endswith(joiner):
            return len(quote) > len(joiner) and _digit_before(quote, len(quote) - len(joiner))
    return False


def _number_goes_on(source: bytes, at: int) -> bool:
    """Does a number that ends before ``at`` go on: a digit there (any script's, or ½ or ²), or
    what joins one on (:data:`_NUMBER_GOES_ON`) and a digit after it?"""
    if _digit_at(source, at):
        return True
    joined = _NUMBER_GOES_ON.match(source, at)
    return joined is not None and _digit_at(source, joined.end())


def _number_before(source: bytes, start: int) -> bool:
    """Does a number end just before ``start`` with what joins it to a digit at ``start``: a
    digit, then one of :data:`_JOINED_AFTER`?"""
    for joiner in _JOINED_AFTER:
        at = start - len(joiner)
        if at >= 1 and source.startswith(joiner, at) and _digit_before(source, at):
            return True
    return False


def _number_opens_before(source: bytes, start: int) -> bool:
    """Does a number of the source go on before byte ``start``, where a quote opens on a digit?
    A sign or a leading point is the number's ("-5", "−5", ".5"); so is what joins it to a digit
    before ("3.5", "3-5", "3–5", "3_000"), and a digit of any script right before it."""
    return (source[start - 1] in b"+-." or source.startswith(_MINUS_SIGN, start - 3)
            or _number_before(source, start) or _digit_at(source, _char_start(source, start - 1)))


def _char_at(data: bytes, at: int) -> str | None:
    """The character whose UTF-8 encoding starts at byte ``at`` (None past the end, or where
    the bytes are no character)."""
    if at >= len(data):
        return None
    b = data[at]
    width = 1 if b < 0x80 else 2 if b < 0xE0 else 3 if b < 0xF0 else 4
    try:
        return data[at : at + width].decode("utf-8")
    except UnicodeDecodeError:
        return None


def _digit_at(source: bytes, at: int) -> bool:
    """Is the character at byte ``at`` a digit: ASCII, another script's ("٥"), or a number
    sign such as "½" or "²" (Unicode categories Nd, No, Nl)?"""
    if at < len(source) and source[at] < 0x80:
        return _is_digit(source[at])
    char = _char_at(source, at)
    return char is not None and unicodedata.category(char) in ("Nd", "No", "Nl")


def _decimal_at(data: bytes, at: int) -> bool:
    """Is the character at byte ``at`` a decimal digit of some script ("3", "٣", "３", "३";
    not "½" or "²", which a quote may well end on: "m²")?"""
    char = _char_at(data, at)
    return char is not None and unicodedata.decimal(char, None) is not None


def _char_start(data: bytes, at: int) -> int:
    """The byte where the UTF-8 character holding byte ``at`` starts (``at`` itself for ASCII):
    back over at most three continuation bytes."""
    start = at
    while start > 0 and at - start < 3 and data[start] & 0xC0 == 0x80:
        start -= 1
    return start


def _is_ascii_alnum(b: int) -> bool:
    return 0x30 <= b <= 0x39 or 0x41 <= b <= 0x5A or 0x61 <= b <= 0x7A


def _digit_before(data: bytes, at: int) -> bool:
    """Is the character that ends right before byte ``at`` a digit of any script (an ASCII
    one, "٣", "３"; red team 84, F05: only ASCII digits were joined to a separator)?"""
    return at > 0 and _digit_at(data, _char_start(data, at - 1))


def _is_digit(b: int) -> bool:
    return 0x30 <= b <= 0x39


def _whole_occurrence(quote: bytes, source: bytes, after: int) -> int:
    """The first occurrence of ``quote`` past the occurrence at ``after`` that cuts no token,
    or -1. Linear in the source, however many occurrences there are. Each occurrence is
    checked where it is found, :data:`_LIST_AFTER` of them at most (the rest are then listed
    natively: :func:`_first_whole_listed`), until the occurrences repeat: :data:`_RUN_STEPS` periods in a
    row, each of the same length ``d`` and holding the same number of occurrences (at most
    :data:`_MAX_PER_PERIOD`: ``AAAAAAAA`` in a run of ``A``, one a period; ``A`` in ``AAB``
    repeated, two). The rest of that run is then checked in bulk (:func:`_whole_in_run`), its
    end found by comparing the source with itself shifted by ``d``, not by a search per
    occurrence (red team 82, F02: (occurrences) x (quote length), 5 s for a quote of 25 KB in
    100 KB of zeros) nor by a check per occurrence (red team 84, F08: ``AAAAAAAA`` in megabytes
    of ``A``, 7.8 / 18 / 52 s for 4 / 8 / 16 MB)."""
    m = len(quote)
    recent = [after]  # the occurrences checked since the last run, and the one just found
    checked = 0
    while True:
        at = source.find(quote, recent[-1] + 1)
        if at < 0:
            return -1
        recent.append(at)
        per = _repeating(recent) if len(recent) % _RUN_STEPS == 0 else 0
        if per:
            found, last = _whole_in_run(quote, source, recent[-1 - per : -1], at - recent[-1 - per])
            if found >= 0:
                return found
            recent = [last]
            continue
        if not _cuts_a_token(source, at, at + m, quote):
            return at
        checked += 1
        if checked == _LIST_AFTER:
            # many occurrences, cut and not evenly spaced (a digit in a table of numbers): the
            # rest are listed natively, and those that surely cut a token left out together
            return _first_whole_listed(quote, source, at + 1)
        if len(recent) > 1024:
            del recent[: -(_RUN_STEPS * _MAX_PER_PERIOD + 1)]


# periods in a row, all alike, before the rest of their run is checked in bulk (below it a
# check per occurrence costs less than finding the run's end), and the most occurrences a
# period may hold
_RUN_STEPS = 8
_MAX_PER_PERIOD = 8
# occurrences checked one by one, not evenly spaced, before the rest are listed natively
_LIST_AFTER = 64
_LIST_BATCH = 4096  # occurrences listed by the first native call, four times more each next
# bytes _cuts_a_token may read on either side of an occurrence: before it, a joiner of up to
# three bytes and the digit of up to four bytes before that; after it, the same, or a comma and
# a thousands group and the byte after it. Twice that, to spare
_CUT_CONTEXT = 16


def _first_whole_listed(quote: bytes, source: bytes, start: int) -> int:
    """The first occurrence of ``quote`` at or after ``start`` that cuts no token, or -1: the
    occurrences listed natively (:func:`provgate._search.exact_spans`) a batch at a time, each
    resuming after the last, those that surely cut a token left out together and the rest
    checked by :func:`_uncut_spans` (a period at a time where they repeat)."""
    m, batch = len(quote), _LIST_BATCH
    while True:
        starts = _search.exact_spans(quote, source, start, batch)
        spans = np.stack((starts, starts + m), axis=1)
        whole = _uncut_spans(source, spans[~_surely_cut(source, spans)], 1, quote)
        if whole:
            return whole[0][0]
        if len(starts) < batch:
            return -1
        start, batch = int(starts[-1]) + 1, min(4 * batch, _MAX_SPANS_PER_CALL)


def _repeating(recent: list[int]) -> int:
    """The least ``per`` (at most :data:`_MAX_PER_PERIOD`) such that the occurrences
    ``recent`` end in :data:`_RUN_STEPS` periods of ``per`` occurrences, each as long as the
    next; 0 if there is none."""
    last = len(recent) - 1
    for per in range(1, _MAX_PER_PERIOD + 1):
        if last < _RUN_STEPS * per:
            break
        d = recent[last] - recent[last - per]
        if all(recent[last - k * per] - recent[last - (k + 1) * per] == d for k in range(1, _RUN_STEPS)):
            return per
    return 0


def _whole_in_run(quote: bytes, source: bytes, period: list[int], d: int) -> tuple[int, int]:
    """``(first, last)`` of the run of occurrences that repeats ``period`` (the occurrences in
    ``[period[0], period[0] + d)``, all checked; the next one is at ``period[0] + d``) every
    ``d`` bytes: the first occurrence past ``period`` that cuts no token (or -1), and the
    run's last occurrence.

    The run is the stretch from ``period[0]`` where the source repeats with period ``d``
    (:func:`_period_end`). In it the quote occurs at ``period[i] + k * d`` wherever that fits,
    and nowhere else: an occurrence moved back by a multiple of ``d`` stays one, and would be
    one in ``[period[0], period[0] + d)`` that ``period`` does not hold. Whether an occurrence
    cuts a token depends only on the bytes up to :data:`_CUT_CONTEXT` on either side of it; for
    the occurrences whose context lies inside the run, those bytes are the same for all those
    of one ``period[i]``, so one period of them checked answers for all, and only the few near
    the run's two ends are checked one by one."""
    m, first, per = len(quote), period[0], len(period)
    residues = [at - first for at in period]
    run_end = _period_end(source, first, d)

    def position(t: int) -> int:  # the t-th occurrence of the run
        k, i = divmod(t, per)
        return first + k * d + residues[i]

    def first_past(x: int) -> int:  # the index of the first occurrence after byte x
        k = (x - first) // d
        return k * per + bisect.bisect_right(residues, x - first - k * d)

    last_t = first_past(run_end - m) - 1
    last = position(last_t)
    inner_lo, inner_hi = first + _CUT_CONTEXT, run_end - m - _CUT_CONTEXT
    t = per
    while t <= last_t:
        at = position(t)
        if at >= inner_lo and t + per - 1 <= last_t and position(t + per - 1) <= inner_hi:
            for u in range(t, t + per):  # one of each period[i], inside: they answer for the inside
                at = position(u)
                if not _cuts_a_token(source, at, at + m, quote):
                    return at, last
            t = max(t + per, first_past(inner_hi))
            continue
        if not _cuts_a_token(source, at, at + m, quote):
            return at, last
        t += 1
    return -1, last


def _period_end(source: bytes, start: int, d: int) -> int:
    """Where the stretch from ``start`` over which ``source`` repeats with period ``d`` ends:
    ``y + d`` for the first ``y >= start`` with ``source[y] != source[y + d]``, else the
    source's length. Compared in chunks that double in size, so a stretch costs time linear
    in its length and a short one a single comparison."""
    a = np.frombuffer(source, dtype=np.uint8)
    n = len(a)
    y, step = start, 64
    while y + d < n:
        hi = min(y + step, n - d)
        differ = np.flatnonzero(a[y:hi] != a[y + d : hi + d])
        if differ.size:
            return y + int(differ[0]) + d
        y, step = hi, 2 * step
    return n


def _check_missing(
    checks: _Checks, rows: list[int], needles: list[bytes], haystacks: list[bytes], exact_counts: list[int],
    diagnose: bool, code: frozenset[int] = frozenset(),
) -> None:
    """Grade the quotes not found whole by the exact search (``exact_counts``: how many times
    each occurs exactly, every occurrence cutting a token). A whitespace match right after a
    negation is no match either, but for the pairs in ``code`` (code spans), as for the exact
    search."""
    w_start, w_end, w_count = (a.tolist() for a in _search.find_whitespace(needles, haystacks))
    plain: list[int] = []
    for j, i in enumerate(rows):
        checks.grade[i] = _NOT_FOUND
        if w_start[j] < 0:
            plain.append(j)
            continue
        if w_count[j] == exact_counts[j] and _search.WHITESPACE_RUN.search(needles[j]) is None:
            # a quote without whitespace occurs normalised exactly where it occurs as it is
            # (both counts say so too), and each of those occurrences cuts a token: listing
            # them again would only find that out again, one by one (red team 84, F08)
            checks.diagnostics[i] = Diagnostic(DIAGNOSTIC_CUTS_A_TOKEN, w_start[j], w_end[j], len(needles[j]))
            continue
        span = _accepted_whitespace_match(needles[j], haystacks[j], w_start[j], w_end[j], w_count[j],
                                          negation_applies=i not in code)
        if isinstance(span, Diagnostic):
            checks.diagnostics[i] = span
            continue
        checks.grade[i] = _WHITESPACE
        checks.start[i], checks.end[i] = span
        checks.count[i] = w_count[j]
    if diagnose and plain:
        lengths, ats = _search.longest_prefix([needles[j] for j in plain], [haystacks[j] for j in plain])
        for j, length, at in zip(plain, lengths.tolist(), ats.tolist()):
            length = _char_boundary(needles[j], length)
            if length:
                checks.diagnostics[rows[j]] = Diagnostic(DIAGNOSTIC_LONGEST_PREFIX, at, at + length, length)


def _accepted_whitespace_match(
    needle: bytes, haystack: bytes, start: int, end: int, count: int, *, negation_applies: bool = True
) -> tuple[int, int] | Diagnostic:
    """The first whitespace-normalised occurrence whose facts equal the quote's and which does
    not follow a negation (when ``negation_applies``), or a diagnostic: about the first
    occurrence when every occurrence cuts a token of the source, about the first whole one with
    the quote's facts when each such one follows a negation, else about the first whole one
    when none of the first MAX_WHITESPACE_CANDIDATES whole ones has the quote's facts. (A
    source that wraps a line inside the quoted words hid the negation before them from the
    exact search's rule: "deploy to prod on Friday" of "do not deploy to prod\non Friday" was
    graded whitespace.)"""
    from provgate.facts import extract  # needed only on this rare path

    quote_facts = _sorted_facts(extract(needle).fp_fact)
    first = None
    if not _cuts_a_token(haystack, start, end):
        first = extract(haystack[start:end])
        if np.array_equal(_sorted_facts(first.fp_fact), quote_facts) and not (
                negation_applies and after_negation(haystack, start)):
            # the first occurrence is the answer whatever the others are: the later ones are
            # listed only when it is not (each listing normalises the whole source again, so
            # listing them for every quote cost quotes x source: 12 s for 1,000 quotes of 2 MB)
            return start, end
    # (a span that cuts a word or number of the source in two quotes nothing: red team 33, 06)
    if count == 1:
        whole = [] if first is None else [(start, end)]
    else:
        whole = _whole_whitespace_spans(needle, haystack, MAX_WHITESPACE_CANDIDATES)
    if not whole:
        return Diagnostic(DIAGNOSTIC_CUTS_A_TOKEN, start, end, len(needle))
    first_table = None
    negated = None
    for s, e in whole:
        table = first if (s, e) == (start, end) and first is not None else extract(haystack[s:e])
        if np.array_equal(_sorted_facts(table.fp_fact), quote_facts):
            if not (negation_applies and after_negation(haystack, s)):
                return s, e
            if negated is None:
                negated = (s, e)
        if first_table is None:
            first_table = table
    if negated is not None:
        return Diagnostic(DIAGNOSTIC_AFTER_A_NEGATION, negated[0], negated[1], len(needle))
    s, e = whole[0]
    return Diagnostic(DIAGNOSTIC_FACTS_DIFFER, s, e, len(needle), _facts_difference(needle, first_table))


def whitespace_match(needle: bytes, haystack: bytes, *, negation_applies: bool = True) -> tuple[int, int] | None:
    """The original ``(start, end)`` of the first occurrence of ``needle`` in ``haystack`` that
    :func:`verify_quote` would grade ``whitespace``: equal after whitespace normalisation, no
    word or number of the source cut, the quote's facts, and (when ``negation_applies``) not
    right after a negation; None when there is none. The gate's I1 grounds a quotation of a
    source that wraps a line inside the quoted words by it (docs/gate.md, I1)."""
    start, end, count = (int(a[0]) for a in _search.find_whitespace([needle], [haystack]))
    if start < 0:
        return None
    span = _accepted_whitespace_match(needle, haystack, start, end, count, negation_applies=negation_applies)
    return None if isinstance(span, Diagnostic) else span


# whitespace-normalised occurrences listed per native call while looking for whole ones: the
# first call lists MAX_WHITESPACE_CANDIDATES, each next one four times more, up to this. Each
# call normalises the rest of the source again: a quote at every byte of 16 MB, every
# occurrence cutting a token, costs about 20 passes over the source and 16 MB of spans at a
# time (at 65,536 spans a call, 250 passes: red team 84, F08)
_MAX_SPANS_PER_CALL = 1 << 20


def _whole_whitespace_spans(needle: bytes, haystack: bytes, limit: int) -> list[tuple[int, int]]:
    """The first ``limit`` whitespace-normalised occurrences of ``needle`` in ``haystack``
    that cut no token of it, as original ``(start, end)``, in order. Occurrences that cut a
    token are passed over however many come first (counting them against ``limit`` refused a
    quote whose whole occurrence came after 16 cut ones, calling it one that occurs only
    cutting a token). Each further call searches the source from just after the start of the
    last occurrence listed: that suffix normalises to the tail of the whole source's
    normalisation (a run of whitespace the last occurrence started on is skipped whole: it is
    one byte of the normalised text, where no second occurrence starts; a whitespace
    character's continuation bytes never start one), so no occurrence is lost or listed twice."""
    out: list[tuple[int, int]] = []
    base, batch = 0, min(limit, _MAX_SPANS_PER_CALL)
    while True:
        spans = _search.whitespace_spans(needle, haystack[base:] if base else haystack, batch)
        spans += base
        # only the spans that may cut nothing are checked, and those of a periodic stretch a
        # period at a time (red team 84, F08: a Python check per span made a short quote at
        # every byte of a long run take seconds)
        out += _uncut_spans(haystack, spans[~_surely_cut(haystack, spans)], limit - len(out))
        if len(out) == limit:
            return out
        if len(spans) < batch:
            return out
        last = int(spans[-1, 0])
        run = _search.WHITESPACE_RUN.match(haystack, last)
        base = run.end() if run else last + 1
        batch = min(4 * batch, _MAX_SPANS_PER_CALL)


def _uncut_spans(
    source: bytes, spans: np.ndarray, limit: int, quote: bytes | None = None
) -> list[tuple[int, int]]:
    """The first ``limit`` of ``spans`` (``(k, 2)``, ascending, none empty) that cut no token
    of ``source``, in order: what checking each with :func:`_cuts_a_token` gives. ``quote``,
    when given, is every span's bytes (spans of one exact quote).

    They are checked one by one until they repeat (:func:`_span_period`: :data:`_RUN_STEPS`
    periods of the same length ``d`` in a row, each holding the same number of spans, at
    most :data:`_MAX_SPANS_PER_PERIOD`). From the last period's first span the source is then
    found to repeat with period ``d`` up to some ``hi`` (:func:`_period_end`), and the spans
    whose context (:data:`_CUT_CONTEXT` bytes on either side) lies in that stretch are
    checked in bulk: two of them at the same offset modulo ``d`` and of the same length read
    the same bytes, so one of each such kind answers for all of that kind, whatever the spans
    are (red team 84, F08: ``3\u202f3`` in megabytes of ``3\u202f``, or a digit of another
    script nine times a period, cut a token everywhere but not on an ASCII letter or digit,
    and cost a Python check each: 1.4-6.5 s for 4 MB).

    Spans :func:`_cut_off_a_number` answers for (a block of spans at a time, read from where
    the checks are) are passed over together, not checked, their starts kept for the next look
    for a period (red team 86: spans cutting a number unevenly spaced, which no period
    answers for, cost a check each). The rules read a block only once the checks reach it, so
    a stretch that repeats is passed over in bulk before they read it: a span costs them more
    than the bulk check."""
    out: list[tuple[int, int]] = []
    n = len(spans)
    if not n or limit <= 0:
        return out
    starts, ends = spans[:, 0], spans[:, 1]
    source_bytes = np.frombuffer(source, dtype=np.uint8)
    recent: list[int] = []  # the starts passed one by one (or with their run) since the last stretch
    gap = wait = _RUN_STEPS  # spans passed between two looks for a period (doubling), and until the next
    chunk, s_chunk, e_chunk = -1, [], []
    block_end, block = 0, _NUMBER_BLOCK
    unsure = np.zeros(0, dtype=np.int64)  # the spans of the block the number rules leave to a check
    i = 0
    while i < n:
        if i >= block_end:
            # the spans _cut_off_a_number answers for, a block at a time from where the
            # checks are: a stretch that repeats is passed over before the rules read it
            block_end = min(n, i + block)
            cut = _cut_off_a_number(source_bytes, starts[i:block_end], ends[i:block_end])
            unsure = i + np.flatnonzero(~cut)
            block = min(4 * block, _MAX_NUMBER_BLOCK)
        j = int(unsure[np.searchsorted(unsure, i)]) if unsure.size and unsure[-1] >= i else block_end
        if j > i:
            # spans i..j-1 surely cut a number (red team 86: "3" of "3.5" unevenly spaced, a
            # Python check each): passed over together, their last starts kept for a look
            recent += starts[max(i, j - (_RUN_STEPS + 1) * _MAX_SPANS_PER_PERIOD) : j].tolist()
            wait -= j - i
            i = j
        else:
            if i // 4096 != chunk:  # read a few thousand spans at a time, not all of them
                chunk = i // 4096
                s_chunk = starts[4096 * chunk : 4096 * chunk + 4096].tolist()
                e_chunk = ends[4096 * chunk : 4096 * chunk + 4096].tolist()
            s, e = s_chunk[i % 4096], e_chunk[i % 4096]
            if not _cuts_a_token(source, s, e, quote):
                out.append((s, e))
                if len(out) == limit:
                    return out
            i += 1
            recent.append(s)
            wait -= 1
        if wait > 0:
            continue
        per = _span_period(recent)
        if len(recent) > 4096:
            del recent[: -(_RUN_STEPS + 1) * _MAX_SPANS_PER_PERIOD]
        if not per:  # spans that do not repeat (a digit in a table of numbers) cost few looks
            gap = wait = min(2 * gap, 1024)
            continue
        gap = wait = _RUN_STEPS
        lo, d = recent[-per], recent[-1] - recent[-1 - per]  # the last period's first span, its length
        recent = []
        hi = _period_end(source, lo, d)
        a = i + int(np.searchsorted(starts[i:], lo + _CUT_CONTEXT, side="left"))
        b = i + int(np.searchsorted(ends[i:], hi - _CUT_CONTEXT, side="right"))
        if b - a < 4 * _RUN_STEPS:
            continue  # a short stretch: its spans are checked one by one
        for k in range(i, a):  # those near the stretch's start
            if not _cuts_a_token(source, int(starts[k]), int(ends[k]), quote):
                out.append((int(starts[k]), int(ends[k])))
                if len(out) == limit:
                    return out
        residue, length = (starts[a:b] - lo) % d, ends[a:b] - starts[a:b]
        whole = np.zeros(b - a, dtype=bool)
        pending = np.ones(b - a, dtype=bool)
        for _ in range(2 * per):
            left = np.flatnonzero(pending)
            if not left.size:
                break
            k = int(left[0])
            alike = pending & (residue == residue[k]) & (length == length[k])
            whole[alike] = not _cuts_a_token(source, int(starts[a + k]), int(ends[a + k]), quote)
            pending &= ~alike
        for k in np.flatnonzero(pending).tolist():  # spans unlike the others: one by one
            whole[k] = not _cuts_a_token(source, int(starts[a + k]), int(ends[a + k]), quote)
        for k in np.flatnonzero(whole)[: limit - len(out)].tolist():
            out.append((int(starts[a + k]), int(ends[a + k])))
        if len(out) == limit:
            return out
        i = b
    return out


# spans _cut_off_a_number reads at a time in _uncut_spans: few at first (a stretch that repeats
# is found after a few dozen and passed over in bulk, the rules costing more a span than the
# bulk check), four times more each next block, up to the most
_NUMBER_BLOCK = 1024
_MAX_NUMBER_BLOCK = 1 << 18
# the most spans a period may hold for _uncut_spans to find it (the spans are listed already,
# so a period of many is worth looking for: "٣" nine times a period of "٣٣٣٣٣٣٣٣٣x")
_MAX_SPANS_PER_PERIOD = 64


def _span_period(recent: list[int]) -> int:
    """The least ``per`` (at most :data:`_MAX_SPANS_PER_PERIOD`) such that the starts
    ``recent`` end in :data:`_RUN_STEPS` periods of ``per`` spans, each as long as the one
    before (every one of the last ``_RUN_STEPS * per`` is ``d`` past the one ``per`` before
    it); 0 if there is none."""
    tail = np.array(recent[-(_RUN_STEPS + 1) * _MAX_SPANS_PER_PERIOD :], dtype=np.int64)
    for per in range(1, min(_MAX_SPANS_PER_PERIOD, len(tail) // (_RUN_STEPS + 1)) + 1):
        lag = tail[-_RUN_STEPS * per :] - tail[-_RUN_STEPS * per - per : -per]
        if lag[0] > 0 and (lag == lag[0]).all():
            return per
    return 0


_ASCII_ALNUM_TABLE = np.zeros(256, dtype=bool)
_ASCII_ALNUM_TABLE[list(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")] = True


def _surely_cut(haystack: bytes, spans: np.ndarray) -> np.ndarray:
    """For each ``(start, end)`` of ``spans`` (none empty), whether it opens on an ASCII letter
    or digit right after one, or ends on one right before one: :func:`_cuts_a_token`'s first
    two tests, on which it returns True, for all spans at once."""
    a = np.frombuffer(haystack, dtype=np.uint8)
    start, end = spans[:, 0], spans[:, 1]
    cut = np.zeros(len(spans), dtype=bool)
    inside = start > 0
    cut[inside] = _ASCII_ALNUM_TABLE[a[start[inside]]] & _ASCII_ALNUM_TABLE[a[start[inside] - 1]]
    inside = end < len(a)
    cut[inside] |= _ASCII_ALNUM_TABLE[a[end[inside] - 1]] & _ASCII_ALNUM_TABLE[a[end[inside]]]
    return cut


def _byte_table(chars: bytes) -> np.ndarray:
    table = np.zeros(256, dtype=bool)
    table[list(chars)] = True
    return table


_DIGIT_TABLE = _byte_table(b"0123456789")
_SIGN_OR_POINT = _byte_table(b"+-.")  # a number's own, before a digit: "-5", ".5"
_JOINS_ONE = _byte_table(b".,:/-_'")  # _NUMBER_GOES_ON's joiners of one byte
_JOINED_AFTER_ONE = _byte_table(b"".join(j for j in _JOINED_AFTER if len(j) == 1))
_JOINED_AFTER_WIDE = tuple(j for j in _JOINED_AFTER if len(j) > 1)
_GOES_ON_WIDE = tuple(j for j in (*_DIGIT_GROUP, _EN_DASH, _MINUS_SIGN, *_OTHER_INSIDE, _FULLWIDTH_COMMA)
                      if len(j) > 1)  # fmt: skip
# the first bytes of _NUMBER_INSIDE's joiners and of a thousands comma, and the last bytes of
# those _ends_with_joiner reads but the point
_OPENS_INSIDE = _byte_table(bytes(j[0] for j in _NUMBER_INSIDE) + b",")
_ENDS_JOINED = _byte_table(bytes(j[-1] for j in _NUMBER_INSIDE[1:]))
# the bytes a number may go on with after a span (a digit, a joiner, the first byte of a wide
# one), and those it may open with before one (a digit, a sign or point, a joiner, the last
# byte of a wide one): the rules read no further where the byte is none of these
_MAY_GO_ON = _DIGIT_TABLE | _JOINS_ONE
_MAY_GO_ON[0x80:] = True
_MAY_OPEN_BEFORE = _DIGIT_TABLE | _SIGN_OR_POINT | _JOINED_AFTER_ONE
_MAY_OPEN_BEFORE[0x80:] = True
_DIGIT_BEFORE = _DIGIT_TABLE.copy()
_DIGIT_BEFORE[0x80:] = True
# the most bytes _cut_off_a_number reads before a span or after it (a joiner of three bytes
# after a digit of four, before; a point, an e, a sign and a digit's first byte after)
_NUMBER_READS = 8


def _cut_off_a_number(a: np.ndarray, s: np.ndarray, e: np.ndarray) -> np.ndarray:
    """For the spans ``[s, e)`` of the source ``a``, whether :func:`_cuts_a_token` surely
    returns True because they cut a number: each rule below is one path of it on which it
    returns True, read with numpy (red team 86: a digit cut off ``3.5``, ``3\u202f000``,
    ``-3`` or ``٣٫٥`` where uneven runs of spaces leave no period cost a Python check each:
    0.35-4.0 s for 4 MB). Characters that are not ASCII are told digits or not as
    :func:`_digit_at` and :func:`_decimal_at` tell them (:func:`_chars_are`: a table of code
    points for those of two and three bytes, the tests themselves once per kind for those of
    four). A span no rule answers for is left to the check. Each rule reads only the spans
    the rules before it left, so spans cut in one way pay for one rule."""
    n = len(a)
    if not len(s):
        return np.zeros(0, dtype=bool)
    # the bytes the spans' rules read, with zeros past the source's ends (a byte 0 reads as
    # no byte would: no digit, joiner, sign or continuation byte)
    lo, hi = int(s.min()) - _NUMBER_READS, int(e.max()) + _NUMBER_READS
    window = np.zeros(hi - lo, dtype=np.uint8)
    window[max(0, -lo) : min(n, hi) - lo] = a[max(0, lo) : min(n, hi)]

    def at(p: np.ndarray) -> np.ndarray:
        return window[p - lo]

    def matches(word: bytes, p: np.ndarray) -> np.ndarray:  # does the source hold word at p?
        hit = at(p) == word[0]
        for k in range(1, len(word)):
            hit &= at(p + k) == word[k]
        return hit

    def digit_at(p: np.ndarray, limit: np.ndarray | int) -> np.ndarray:  # _digit_at(data[:limit], p)
        return _chars_are(a, p, limit, _digit_at)

    def char_start(p: np.ndarray, low: np.ndarray | int = 0) -> np.ndarray:
        # _char_start of data[low:], in the source's offsets: back over up to three
        # continuation bytes, not below low
        c = p.copy()
        for _ in range(3):
            c -= (c > low) & ((at(c) & 0xC0) == 0x80)
        return c

    def digit_before(p: np.ndarray, low: np.ndarray | int, limit: np.ndarray | int) -> np.ndarray:
        # _digit_before(data[low:limit], p - low): a digit of any script ends right before p
        b = at(p - 1)
        out = (p > low) & _DIGIT_TABLE[b]
        wide = np.flatnonzero((p > low) & (b >= 0x80))
        if wide.size:
            out[wide] = digit_at(char_start(p[wide] - 1, low if isinstance(low, int) else low[wide]),
                                 limit if isinstance(limit, int) else limit[wide])  # fmt: skip
        return out

    def goes_on(p: np.ndarray) -> np.ndarray:  # _number_goes_on(source, p)
        b0 = at(p)
        on = _DIGIT_TABLE[b0]
        wide = np.flatnonzero(b0 >= 0x80)
        if wide.size:
            q = p[wide]
            hit = digit_at(q, n)
            after = _joined_at(matches, q, _GOES_ON_WIDE, ending=False)
            k = np.flatnonzero(after >= 0)
            hit[k] |= digit_at(after[k], n)
            on[wide] = hit
        one = np.flatnonzero(_JOINS_ONE[b0])
        if one.size:
            q, c0 = p[one], b0[one]
            c1 = at(q + 1)
            # a joiner of one byte then a digit; the alternatives before it ("..", "--",
            # ".e5", ".e+5") match only where a point, hyphen or e follows, and no digit
            hit = digit_at(q + 1, n)
            two = ((c0 == 0x2E) & (c1 == 0x2E)) | ((c0 == 0x2D) & (c1 == 0x2D))
            exp = (c0 == 0x2E) & ((c1 == 0x65) | (c1 == 0x45))
            signed = exp & ((at(q + 2) == 0x2B) | (at(q + 2) == 0x2D))
            hit |= (two | (exp & ~signed)) & digit_at(q + 2, n)
            hit |= signed & digit_at(q + 3, n)
            on[one] = hit
        return on

    def number_before(p: np.ndarray) -> np.ndarray:  # _number_opens_before(source, p), p > 0
        b = at(p - 1)
        out = _SIGN_OR_POINT[b] | _DIGIT_TABLE[b]
        out |= (b == _MINUS_SIGN[-1]) & (p >= 3) & matches(_MINUS_SIGN, p - 3)
        one = np.flatnonzero(_JOINED_AFTER_ONE[b] & (p >= 2))
        if one.size:
            out[one] |= digit_before(p[one] - 1, 0, n)
        wide = np.flatnonzero(b >= 0x80)
        if wide.size:
            q = p[wide]
            hit = digit_at(char_start(q - 1), n)
            j = _joined_at(matches, q, _JOINED_AFTER_WIDE, ending=True)
            k = np.flatnonzero(j >= 1)
            hit[k] |= digit_before(j[k], 0, n)
            out[wide] |= hit
        return out

    def end_on_a_digit(s: np.ndarray, e: np.ndarray) -> np.ndarray:
        # an ASCII digit the source's number goes on after: "3" of "3.5", "3\u202f000", "3٠"
        return _where(_DIGIT_TABLE[at(e - 1)] & (e < n) & _MAY_GO_ON[at(e)], lambda k: goes_on(e[k]))

    def open_on_a_digit(s: np.ndarray, e: np.ndarray) -> np.ndarray:
        # an ASCII digit the source's number opens before: "5" of "3.5" or "3,5", "3" of "-3"
        return _where(_DIGIT_TABLE[at(s)] & (s > 0) & _MAY_OPEN_BEFORE[at(s - 1)], lambda k: number_before(s[k]))

    def open_inside(s: np.ndarray, e: np.ndarray) -> np.ndarray:
        # _opens_inside_a_number after a digit: ".5" of "3.5", ",000" of "3,000"
        def rule(k: np.ndarray) -> np.ndarray:
            p, q = s[k], e[k]
            after = _joined_at(matches, p, _NUMBER_INSIDE, ending=False)  # -1: no joiner
            inside = np.zeros(len(k), dtype=bool)
            j = np.flatnonzero(after >= 0)
            inside[j] = digit_at(after[j], q[j])
            thousands = (at(p) == 0x2C) & (q - p >= 4)
            for j in (1, 2, 3):
                thousands &= _DIGIT_TABLE[at(p + j)]
            thousands &= (q - p == 4) | ~_DIGIT_TABLE[at(p + 4)]
            return (inside | thousands) & digit_before(p, 0, n)

        return _where(_OPENS_INSIDE[at(s)] & (s > 0) & _DIGIT_BEFORE[at(s - 1)], rule)

    def end_on_a_point(s: np.ndarray, e: np.ndarray) -> np.ndarray:
        # a point, comma or colon after a digit, the source's number going on past it:
        # "3." of "3.5", "3," of "3,000", "10:" of "10:30"
        def rule(k: np.ndarray) -> np.ndarray:
            p, q = s[k], e[k]
            last = at(q - 1)
            point = last == 0x2E
            hit = np.zeros(len(k), dtype=bool)
            if point.any():
                hit[point] = goes_on(q[point] - 1)
            d0, d1, d2, d3 = (_DIGIT_TABLE[at(q + j)] for j in range(4))
            hit |= (last == 0x2C) & d0 & d1 & d2 & ~d3
            hit |= (last == 0x3A) & d0 & d1 & ~d2
            return hit & digit_before(q - 1, p, q)

        last = at(e - 1)
        return _where(((last == 0x2E) | (last == 0x2C) | (last == 0x3A)) & (e < n) & (e - s >= 2), rule)

    def end_on_a_joiner(s: np.ndarray, e: np.ndarray) -> np.ndarray:
        # _ends_with_joiner (but the point, answered above) and a digit after it: "3-" of
        # "3-5", "3\u00a0" of "3\u00a0000"
        def rule(k: np.ndarray) -> np.ndarray:
            p, q = s[k], e[k]
            j = _joined_at(matches, q, _NUMBER_INSIDE[1:], ending=True)  # -1: no joiner
            hit = np.zeros(len(k), dtype=bool)
            m = np.flatnonzero(j > p)
            hit[m] = digit_before(j[m], p[m], q[m]) & digit_at(q[m], n)
            return hit

        b = at(e)
        return _where(_ENDS_JOINED[at(e - 1)] & (e < n) & (_DIGIT_TABLE[b] | (b >= 0x80)), rule)

    def open_on_a_wide_digit(s: np.ndarray, e: np.ndarray) -> np.ndarray:
        # a digit of another script, the source's number opening before it: "٠" of "٣٠"
        return _where((at(s) >= 0x80) & (s > 0) & _MAY_OPEN_BEFORE[at(s - 1)],
                      lambda k: _chars_are(a, s[k], e[k], _decimal_at) & number_before(s[k]))  # fmt: skip

    def end_on_a_wide_digit(s: np.ndarray, e: np.ndarray) -> np.ndarray:
        # a digit of another script, the source's number going on after it: "٣" of "٣٠", "٣٫٥"
        return _where((at(e - 1) >= 0x80) & (e < n) & _MAY_GO_ON[at(e)],
                      lambda k: _chars_are(a, char_start(e[k] - 1, s[k]), e[k], _decimal_at) & goes_on(e[k]))

    cut = np.zeros(len(s), dtype=bool)
    left = np.arange(len(s))
    for rule in (end_on_a_digit, open_on_a_digit, open_inside, end_on_a_point, end_on_a_joiner,
                 open_on_a_wide_digit, end_on_a_wide_digit):  # fmt: skip
        hit = rule(s[left], e[left])
        cut[left[hit]] = True
        left = left[~hit]
        if not left.size:
            break
    return cut


def _joined_at(matches: Any, p: np.ndarray, joiners: tuple[bytes, ...], *, ending: bool) -> np.ndarray:
    """For each ``p``, where the one of ``joiners`` that ends at ``p`` starts (``ending``), or
    where what follows the one that starts at ``p`` starts; -1 where none does (they are
    whole characters, so at most one does)."""
    out = np.full(len(p), -1, dtype=np.int64)
    for joiner in joiners:
        at = p - len(joiner) if ending else p
        hit = np.flatnonzero(matches(joiner, at))
        out[hit] = at[hit] if ending else at[hit] + len(joiner)
    return out


_WIDE_TABLES: dict[Any, tuple[np.ndarray, np.ndarray]] = {}


def _wide_tables(test: Any) -> tuple[np.ndarray, np.ndarray]:
    """What ``test`` says of each character of two bytes and of three, indexed by code point;
    False where the bytes are no character of that many (an overlong form, a surrogate), as
    ``test`` says of bytes that do not decode. Made on first use (about 20 ms)."""
    tables = _WIDE_TABLES.get(test)
    if tables is None:
        tables = (np.zeros(1 << 11, dtype=bool), np.zeros(1 << 16, dtype=bool))
        # what test says of the character once decoded (tests/test_reconstruct_cuts.py holds
        # the tables to test itself, character by character)
        says = ((lambda c: unicodedata.category(c) in ("Nd", "No", "Nl")) if test is _digit_at
                else (lambda c: unicodedata.decimal(c, None) is not None))  # fmt: skip
        for cp in range(0x80, 0x10000):
            if not 0xD800 <= cp < 0xE000:
                tables[cp >= 0x800][cp] = says(chr(cp))
        _WIDE_TABLES[test] = tables
    return tables


def _where(may: np.ndarray, rule: Any) -> np.ndarray:
    """``rule(k)`` for the indices ``k`` where ``may`` holds, False elsewhere."""
    out = np.zeros(len(may), dtype=bool)
    k = np.flatnonzero(may)
    if k.size:
        out[k] = rule(k)
    return out


def _chars_are(a: np.ndarray, p: np.ndarray, limit: np.ndarray | int, test: Any) -> np.ndarray:
    """``test(data, p)`` (:func:`_digit_at` or :func:`_decimal_at`) for each ``p``, where
    ``data`` is the source ``a`` up to ``limit`` (the source, or a quote that ends there).
    ASCII bytes are read with numpy, characters of two and three bytes looked up in
    :func:`_wide_tables`, and each kind of character of four bytes found told by ``test``
    itself, once."""
    out = np.zeros(len(p), dtype=bool)
    idx = np.flatnonzero((p >= 0) & (p < limit))
    if not idx.size:
        return out
    q = p[idx]
    lead = a[q]
    out[idx] = _DIGIT_TABLE[lead]
    # a character whose bytes run past limit is told no digit by test (they do not decode)
    width = 2 + (lead >= 0xE0).astype(np.int64) + (lead >= 0xF0)
    room = (limit[idx] if isinstance(limit, np.ndarray) else limit) - q
    wide = np.flatnonzero((lead >= 0x80) & (width <= room))
    if not wide.size:
        return out
    q, width = q[wide], width[wide]
    # characters of two or three bytes (every digit but a few of the rarest scripts): their
    # code point looked up in a table of what test says of each
    if test is _digit_at or test is _decimal_at:
        table2, table3 = _wide_tables(test)
        c1 = a[np.minimum(q + 1, len(a) - 1)]
        c2 = a[np.minimum(q + 2, len(a) - 1)]
        cont = (c1 & 0xC0) == 0x80
        two = np.flatnonzero(width == 2)  # a continuation byte is no lead (it decodes as none)
        cont[two] &= lead[wide][two] >= 0xC0
        told = np.zeros(len(q), dtype=bool)
        told[two] = cont[two] & table2[((lead[wide][two].astype(np.int64) & 0x1F) << 6) | (c1[two] & 0x3F)]
        three = np.flatnonzero(width == 3)
        told[three] = cont[three] & ((c2[three] & 0xC0) == 0x80) & table3[
            ((lead[wide][three].astype(np.int64) & 0x0F) << 12) | ((c1[three].astype(np.int64) & 0x3F) << 6)
            | (c2[three] & 0x3F)]  # fmt: skip
        out[idx[wide]] = told
        four = np.flatnonzero(width == 4)
        if not four.size:
            return out
        wide, q, width = wide[four], q[four], width[four]
    key = lead[wide].astype(np.uint32) << 24
    for k in (1, 2, 3):
        key |= np.where(width > k, a[np.minimum(q + k, len(a) - 1)], 0).astype(np.uint32) << (24 - 8 * k)
    kinds, which = np.unique(key, return_inverse=True)
    told = np.fromiter(
        (test(k.to_bytes(4, "big")[: 2 + (k >> 29 >= 7) + (k >> 28 >= 15)], 0) for k in kinds.tolist()),
        dtype=bool, count=len(kinds),
    )
    out[idx[wide]] = told[which]
    return out


def _sorted_facts(fp: np.ndarray) -> np.ndarray:
    return fp[np.lexsort((fp[:, 1], fp[:, 0]))] if len(fp) else fp


def _facts_difference(needle: bytes, source_table: Any) -> str:
    """Which facts only one side asserts, for a human (at most three of each)."""
    from provgate.facts import extract

    def described(table: Any) -> dict[tuple[int, int], str]:
        out = {}
        for i in range(len(table)):
            span = table.span(i)
            out[(int(table.fp_fact[i, 0]), int(table.fp_fact[i, 1]))] = f"{span.kind.name.lower()} {span.text!r}"
        return out

    quote_side, source_side = described(extract(needle)), described(source_table)
    only_quote = [v for k, v in quote_side.items() if k not in source_side][:3]
    only_source = [v for k, v in source_side.items() if k not in quote_side][:3]
    parts = []
    if only_quote:
        parts.append("quote only: " + ", ".join(only_quote))
    if only_source:
        parts.append("source only: " + ", ".join(only_source))
    return "; ".join(parts) or "the same facts, a different number of times"


# ---------------------------------------------------------------------------------- answers


class _Parsed:
    """The citation structure of an answer (``provgate._citations.scan``), as lists of rows."""

    __slots__ = ("data", "quotes", "markers", "segments", "unmarked")

    def __init__(self, data: bytes) -> None:
        self.data = data
        quotes, markers, segments, unmarked = _citations.scan(data)
        self.quotes: list[list[int]] = quotes.tolist()  # start, end, form, seg_lo, seg_hi
        self.markers: list[list[int]] = markers.tolist()  # quote row or -1, start, end
        self.segments: list[list[int]] = segments.tolist()
        self.unmarked: list[list[int]] = unmarked.tolist()

    def text(self, row: list[int]) -> bytes:
        start, end, _, lo, hi = row
        if hi > lo:  # a blockquote, or an inline quotation over its lines
            # each line joined to the next by its own line ending, as a fenced or inline quote
            # keeps it: CRLF lines quoted verbatim stay exact
            data = self.data
            lines = self.segments[lo:hi]
            parts = []
            for (s, e), _ in zip(lines, lines[1:]):
                parts.append(data[s:e])
                parts.append(b"\r\n" if data[e:e + 2] == b"\r\n" else b"\n")
            parts.append(data[lines[-1][0]:lines[-1][1]] if lines else b"")
            return b"".join(parts)
        return self.data[start:end]

    def quotation(self, row: list[int]) -> Quotation:
        return Quotation(self.text(row).decode("utf-8"), FORMS[row[2]], row[0], row[1])


_UNREADABLE = FORMS.index("unreadable")
_BACKTICK = FORMS.index("backtick")


def _answer_bytes(text: Any) -> bytes:
    if not isinstance(text, (str, bytes, bytearray, memoryview)):
        raise InvalidArgumentError(f"answer must be str or UTF-8 bytes, not {type(text).__name__}", argument="text")
    data = utf8_bytes(text, "answer")
    if len(data) > MAX_ANSWER_BYTES:
        raise LimitExceededError(f"answer is {len(data)} bytes; the limit is {MAX_ANSWER_BYTES} (MAX_ANSWER_BYTES)")
    return data


def _name(data: bytes, start: int, end: int) -> str:
    """The NAME of the marker ``[src:NAME]`` at ``data[start:end]``."""
    return data[start + 5 : end - 1].decode("utf-8")


_MarkerSpan = tuple[str, int, int]  # name, start, end


def parse_citations(
    text: str | bytes,
) -> tuple[list[tuple[Quotation, list[_MarkerSpan]]], list[_MarkerSpan], list[Quotation]]:
    """The citation structure of an answer, without a store: ``(carried, bare, unmarked)``.

    ``carried`` pairs each quotation that carries markers with them (``(name, start, end)``),
    ``bare`` lists the bare markers, ``unmarked`` the quotations without a marker."""
    data = _answer_bytes(text)
    parsed = _Parsed(data)
    carried: list[tuple[Quotation, list[tuple[str, int, int]]]] = [(parsed.quotation(q), []) for q in parsed.quotes]
    bare = []
    for quote, start, end in parsed.markers:
        marker = (_name(data, start, end), start, end)
        if quote < 0:
            bare.append(marker)
        else:
            carried[quote][1].append(marker)
    return carried, bare, [parsed.quotation(u) for u in parsed.unmarked]


def find_malformed_markers(text: str | bytes, store: Any = None) -> tuple[MalformedMarker, ...]:
    """The malformed markers of an answer, as :func:`verify_citations` reports them (red team
    87, F14: :func:`parse_citations` shows none, so a linter built on it showed an answer whose
    every marker is malformed as one with no marker). Without ``store`` the forms that ask it
    (``(src:a)``, ``[source: a]``: see ``_malformed_markers``) are never reported; with it,
    when a name they hold cites a stored source. Reads the store, never writes."""
    data = _answer_bytes(text)
    parsed = _Parsed(data)
    cache = None if store is None else _cache_for(store, None)
    known = None if cache is None else (lambda name: bool(cache.marker_handles(name)))
    return _malformed_markers(data, len({m[1] for m in parsed.markers}), known)


def verify_citations(
    store: Any, text: str | bytes, *, cache: SourceCache | None = None, diagnose: bool = True
) -> CitationReport:
    """Check every quotation of ``text`` that carries a citation marker (module docstring).

    ``cache``, a :class:`SourceCache` of ``store``, is consulted before the store and filled
    from it; without one, each source is read from the store once per call.
    ``diagnose=False`` skips the longest-prefix diagnostic of quotes that were not found (it
    never changes a grade). Reads the store, never writes.
    """
    data = _answer_bytes(text)
    cache = _cache_for(store, cache)
    parsed = _Parsed(data)
    handles: dict[str, tuple[str, ...]] = {}
    needles: list[bytes] = []
    pair_handles: list[str] = []
    slot_of: dict[tuple[bytes, str, bool], int] = {}
    unreadable: set[int] = set()
    quote_needles = [parsed.text(q) for q in parsed.quotes]
    quote_unreadable = [q[2] == _UNREADABLE for q in parsed.quotes]
    # (a code span names a thing and quotes no claim: it is not held to the negation rule, as
    # in the gate's I1)
    quote_code = [q[2] == _BACKTICK for q in parsed.quotes]
    code: set[int] = set()
    rows: list[tuple[int, str, int, int, tuple[int, ...]]] = []
    bare: list[tuple[str, int, int]] = []
    for quote, start, end in parsed.markers:
        name = data[start + 5 : end - 1].decode("utf-8")  # [src:NAME]
        found = handles.get(name)
        if found is None:
            found = handles[name] = cache.marker_handles(name)
        if quote < 0:
            bare.append((name, start, end))
            continue
        slots = []
        for handle in found:
            key = (quote_needles[quote], handle, quote_unreadable[quote], quote_code[quote])
            slot = slot_of.get(key)
            if slot is None:
                slot = slot_of[key] = len(needles)
                needles.append(key[0])
                pair_handles.append(handle)
                if key[2]:
                    unreadable.add(slot)
                if key[3]:
                    code.add(slot)
            slots.append(slot)
        rows.append((quote, name, start, end, tuple(slots)))
    checks = _check_pairs(cache, needles, pair_handles, diagnose=diagnose, unreadable=frozenset(unreadable),
                          code=frozenset(code))
    grade = checks.grade
    # a citation takes the best grade among the handles its marker names
    best = [grade[row[4][0]] if len(row[4]) == 1 else min([grade[s] for s in row[4]], default=_UNKNOWN) for row in rows]
    summaries_only = frozenset(name for name, _, _ in bare if handles[name] and all(
        (x := cache.source(h)) is not None and x.derived for h in handles[name]))
    return CitationReport(parsed, rows, bare, handles, checks, best, _malformed_markers(data, len({m[1] for m in parsed.markers}), lambda name: bool(cache.marker_handles(name))), summaries_only)


# what ends a near-marker's span: a closing bracket (] ］ 】 〕, or ) after a parenthesis, taken
# in), or the line's end or an opening bracket (left out: a marker after it is its own)
_NEAR_MARKER_CLOSE = re.compile(rb"\]|\xef\xbc\xbd|\xe3\x80[\x91\x95]|[\n\[]|\xef\xbc\xbb|\xe3\x80\x90")
_NEAR_MARKER_CLOSE_PAREN = re.compile(rb"\)|[\n\[]|\xef\xbc\xbb|\xe3\x80\x90")
_NEAR_MARKER_ENDS = frozenset((b"]", b")", "\uff3d".encode(), "\u3011".encode(), "\u3015".encode()))
_INDEXED = frozenset(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_)]")


def _malformed_markers(data: bytes, markers: int, known: Callable[[str], bool] | None) -> tuple[MalformedMarker, ...]:
    """The near-markers of an answer outside fenced code (:func:`provgate._citations.near_markers`):
    ``[src: a]``, ``[SRC:a]``, ``［src:a］``, ``【src:a】``, ``[src:a, b]``, ``[src:]``,
    ``[^src:a]``, ``[src=a]``; and ``(src:a)``, ``[source: a]``, ``[Sources: a, b]`` when a
    name they hold cites a stored source (``known``; without a store, never). Each makes the
    report fail: the quotation its author attributed would otherwise go unchecked while
    ``verify`` passes (red team 86, F08; red team 87, F05). The last three ask the store
    because they are also how answers cite what is not in it (``[Source: https://…]``,
    ``(source: census 2020)``), and an answer that cites a web page must not fail for it. A
    bracketed one followed by ``(`` is a link's text (``[Source: the RFC](https://…)``), not a
    marker. A ``[`` or ``(`` right after a letter, a
    digit, ``_``, ``)`` or ``]`` indexes or calls (``data[src : n]``, ``rom[src:]``,
    ``copy(src: Path)``), and one inside an inline code
    span (after an odd number of backticks on its line) is code: neither is a near-marker (red
    team 87, F08; red team 88, F09). Each runs to its closing bracket, when one comes on its
    line before another bracket opens, and a near-marker inside another's span is not reported
    again (red team 87, F10). The markers inside a fence that is never closed are reported too:
    such a fence makes the rest of the answer code, every later quotation and marker with it,
    and a report of no citation would pass (red team 88, F10). ``markers``: how many distinct
    markers the scan found (outside fenced code)."""
    found = _citations.near_markers(data)
    # (a marker a fence swallowed is a "[src:" the scan did not count: only then, or with a
    # near-marker, are the fences worked out)
    swallowed = data.count(b"[src:") != markers
    if not len(found) and not swallowed:
        return ()
    # (only when there is something to report: the fences alone, not a whole scan, red team 87, F09)
    fences = _citations_py.fence_blocks(data)
    fence_ends = [f[3] for f in fences]
    out: list[MalformedMarker] = []
    for start, end in found.tolist():
        if out and start < out[-1].end:
            continue
        if data[start] in b"[(" and start > 0 and data[start - 1] in _INDEXED:
            continue
        k = bisect.bisect_right(fence_ends, start)
        if k < len(fences) and fences[k][0] <= start:
            continue
        if data.count(b"`", data.rfind(b"\n", 0, start) + 1, start) % 2:
            continue
        closing = _NEAR_MARKER_CLOSE_PAREN if data[start] == 0x28 else _NEAR_MARKER_CLOSE
        close = closing.search(data, end, end + _citations_py.MAX_NAME_BYTES + 3)
        closed = close is not None and close.group() in _NEAR_MARKER_ENDS
        if close is not None:
            if closed and close.group() == b"]" and data[close.end() : close.end() + 1] == b"(":
                continue  # a link's text, [Source: the RFC](https://…): not a marker
            if _asks_the_store(data, start) and not (closed and known is not None and _names_a_source(data[end : close.start()], known)):
                continue
            end = close.end() if closed else close.start()
        elif _asks_the_store(data, start):
            continue
        out.append(MalformedMarker(data[start:end].decode("utf-8", "replace"), start, end))
    if swallowed and fences and fences[-1][2] == fences[-1][1] and fences[-1][3] == len(data):  # (never closed)
        unclosed = [
            MalformedMarker(m.group().decode("utf-8", "replace"), m.start(), m.end())
            for m in _citations_py._MARKER.finditer(data, fences[-1][0])
        ]
        out = sorted(out + unclosed, key=lambda m: m.start)
    return tuple(out)


_NEAR_SOURCE_WORD = re.compile(rb"(?:\[\^?|\xef\xbc\xbb|\xe3\x80[\x90\x94])" + _citations_py._NEAR_BLANKS + rb"[sS][oO]")
_NEAR_NAME_SEPARATORS = re.compile(rb"[,;]")


def _asks_the_store(data: bytes, start: int) -> bool:
    """Whether the near-marker at ``start`` is one of those that also cite what is not stored
    (a parenthesis, or the word "source"): reported only when a name it holds is stored."""
    return data[start] == 0x28 or _NEAR_SOURCE_WORD.match(data, start) is not None


def _names_a_source(names: bytes, known: Callable[[str], bool]) -> bool:
    blanks = b" \t" + "\u00a0\u200b\u200c\u200d\u200e\u200f\u202f\u2060\ufeff\u3000".encode()
    for name in _NEAR_NAME_SEPARATORS.split(names):
        name = name.strip(blanks)
        if name and known(name.decode("utf-8", "replace")):
            return True
    return False


def run_verify(store: Any, answer: bytes, *, cache: SourceCache | None = None,
               limit: int | None = None) -> tuple[dict[str, Any], int]:
    """The logic of ``provgate verify --store PATH ANSWER.txt``: ``(report JSON, exit code)``.

    Exit code 0 when every citation is accurate (byte-exact in a source its marker names) and
    every bare marker names a stored handle, else 1. Unusable input raises a
    :class:`~provgate.errors.ProvgateError` (invalid UTF-8: :class:`InvalidContentError` naming
    the byte offset; too large: :class:`LimitExceededError`; not bytes:
    :class:`InvalidArgumentError`), which the command line reports as a JSON error on stderr
    with exit code 2. Nothing is written to the store. ``limit``: how many entries of each list
    the JSON holds (:meth:`CitationReport.to_json`; the command line's ``--max-listed``).
    """
    if not isinstance(answer, (bytes, bytearray, memoryview)):
        raise InvalidArgumentError(f"answer must be the file's bytes, not {type(answer).__name__}", argument="answer")
    report = verify_citations(store, answer, cache=cache)
    return report.to_json(limit=limit), 0 if report.ok else 1


__all__ = [
    "DIAGNOSTIC_AFTER_A_NEGATION",
    "DIAGNOSTIC_CUTS_A_TOKEN",
    "DIAGNOSTIC_FACTS_DIFFER",
    "DIAGNOSTIC_LONGEST_PREFIX",
    "DIAGNOSTIC_UNREADABLE_QUOTATION",
    "FORMS",
    "GRADES",
    "GRADE_EXACT",
    "GRADE_NOT_FOUND",
    "GRADE_NOMINAL",
    "GRADE_UNKNOWN_HANDLE",
    "GRADE_WHITESPACE",
    "MAX_ANSWER_BYTES",
    "Citation",
    "CitationReport",
    "Diagnostic",
    "MalformedMarker",
    "Marker",
    "QuoteCheck",
    "Quotation",
    "SourceCache",
    "find_malformed_markers",
    "parse_citations",
    "run_verify",
    "verify_citations",
    "verify_quote",
]
