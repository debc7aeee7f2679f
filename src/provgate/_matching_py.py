"""Matching source facts at token boundaries, pure-Python reference: the executable spec.

The result
----------
``collect(automaton, data, pattern_bytes, edges, max_matches)`` returns three int64 arrays
``(start, end, pattern)``: every occurrence ``data[start:end] == patterns[pattern]`` of a
pattern in the UTF-8 bytes ``data`` that lies at token boundaries (below), ordered by ``end``,
then by ``start``. ``automaton, edges = build_automaton(patterns)`` from the UTF-8 bytes of the
patterns; ``pattern_bytes[i]`` is the length of pattern ``i`` in bytes. More than
``max_matches`` matches raise :class:`provgate.errors.LimitExceededError`, as soon as the
count is crossed.

Token boundaries (the rule the extraction grammar uses)
--------------------------------------------------------
A *word byte* is an ASCII letter, a digit, ``_`` or any byte >= 0x80; a *joiner* is one of
``. , - : / @``. A match ``[s, e)`` is at token boundaries iff ``start_ok(s)`` and
``end_ok(e)``:

- ``start_ok(s)``: ``s == 0``, or ``data[s-1]`` is not a word byte and is not a joiner that
  follows a word byte (``data[s-2]``);
- ``end_ok(e)``: ``e == len(data)``, or ``data[e]`` is not a word byte and is not a joiner
  followed by a word byte (``data[e+1]``).

How: boundary markers instead of filtering
------------------------------------------
Running the automaton over the raw text and filtering afterwards examines every hit inside a
longer token (``3`` inside ``30``, ``2026``, ``v3``, …): on an agent window that is most
hits, and pathological input (a million ``a`` against ``a``, ``aa``, ``aaa``, …) makes it
quadratic. Instead the text is rewritten with two marker bytes that never occur in UTF-8, at
each position ``p`` (0 to ``len(data)``):

- ``END`` (0xF9) if a match may end at ``p``: ``end_ok(p)`` and the byte before ``p`` ends some
  pattern (is in the vocabulary's *last-byte* set);
- then ``START`` (0xF8) if a match may begin at ``p``: ``start_ok(p)`` and the byte at ``p``
  begins some pattern (*first-byte* set);
- then the byte ``data[p]`` itself.

Each pattern is rewritten the same way, as if it were a whole text (its own first byte is in
the first-byte set and its last in the last-byte set, so it starts with ``START`` and ends
with ``END``). The marked pattern occurs in the marked text exactly where the pattern occurs at
token boundaries:

- the outer markers match only at positions that pass ``start_ok`` / ``end_ok``;
- a marker inside the pattern depends on the pattern's own bytes, on the two global byte sets,
  and, in the text, possibly on the byte just outside the match (``start_ok(s+1)`` reads
  ``data[s-1]``, ``end_ok(e-1)`` reads ``data[e]``) — but only through "is it a word byte",
  which the outer markers already rule out, which is also what "absent" means in the pattern.
  So inside a boundary-aligned occurrence both agree.

Every automaton hit is then a match to report, in the automaton's order (by end; at one end
the longest pattern first, i.e. by start). The haystack is the marked bytes decoded as latin-1,
so each byte is one character and offsets are recovered by counting the non-marker bytes. The
byte sets only drop markers that no pattern could use (inside runs of spaces, before closing
punctuation, …), which keeps the haystack short.

Literal occurrence (``occurs_at_boundaries``)
---------------------------------------------
``occurs_at_boundaries(needles, haystacks)`` answers, for each needle, whether it occurs in at
least one of the haystacks at token boundaries. How strictly is each needle's *mode*
(``modes``, one per needle, default ``RELAXED`` for all):

- ``RELAXED``: a needle that starts with a byte that is neither a word byte nor a joiner, or
  ends with such a byte or with ``.`` or ``,`` (sentence punctuation), brings its own boundary
  on that side (what a quote quotes, ``(see above)`` or ``Building...``, may touch a word;
  ``rm -rf /`` does not end inside ``rm -rf /tmp``). Occurrence ``[s, e)`` counts iff
  ``(start_ok(s) or needle[0] brings its own) and (end_ok(e) or needle[-1] brings its own)``.
- ``TOKEN``: ``start_ok(s) and end_ok(e)``, whatever the needle's bytes: ``/etc/passwd`` does
  not occur in ``/srv/app/etc/passwd``, nor ``.5`` in ``10.5``, nor ``-5`` in ``GPT-5``.
- ``NUMBER``: ``TOKEN``, and a needle that does not start with a sign does not occur right
  after one that starts a token (``500`` is not in ``-500`` or ``x -500``: the grammar reads
  the sign as part of the number), nor right before ``%`` (``10`` is not in ``10%``).
- ``URL``: ``TOKEN``, and the occurrence is not followed by ``?`` or ``#`` (a URL token runs
  on through its query and fragment: ``…/deploy`` is not in ``…/deploy?dry_run=true``).
- ``QUOTE``: ``RELAXED``, and the occurrence does not follow a negation: the word before it,
  past blanks, emphasis markers, a short bracketed aside and separating dashes, is not
  ``not``, ``no``, ``never``, ``nor``, ``neither``, ``cannot``, ``without`` or a word ending
  in ``n't`` (or ``n’t``), in any case (:func:`after_negation`). "deploy to prod on Friday"
  is no quotation of "Please do not deploy to prod on Friday." (red team 89, F07: a summary
  quoting it so with a marker was grounded), nor of "do **not** deploy…", "*never*
  deploy…", "do not (ever) deploy…" or "do not - deploy…" (red team 94, F08). The gate
  grounds its quotations so, not its code spans (``_factdiff_py.row_mode``).

Each haystack is searched on its own, so no occurrence straddles two of them. An empty needle
occurs nowhere. ``needles`` and
``haystacks`` are lists or tuples of ``bytes`` (``TypeError`` naming the item otherwise). With
``groups`` (lists of haystack indices) and ``needle_group`` (an integer array, the group of each
needle), needle ``i`` is searched only in the haystacks of group ``needle_group[i]``
(``provgate._batch``). The gate grounds the facts of changed blocks that no source asserts
as a fact this way: one call for all blocks of a check, each block's sources its group.
Returns a bool array, one entry per needle.

The native ``provgate._ext.matching.collect`` builds the marked text in C and consumes the
automaton's iterator at C level; it returns identical arrays and raises the same errors.
"""

from __future__ import annotations

from typing import Any

import ahocorasick
import numpy as np

from provgate._batch import bytes_like, check_byte_items, check_grouping
from provgate.errors import InvalidArgumentError, InvalidContentError, LimitExceededError

IMPLEMENTATION = "reference"

WORD_BYTES = frozenset(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_") | frozenset(range(0x80, 0x100))
JOINERS = frozenset(b".,-:/@")
# literal occurrence modes (occurs_at_boundaries)
RELAXED = 0
TOKEN = 1
NUMBER = 2
URL = 3
QUOTE = 4
SIGNS = frozenset(b"+-")
# the words a quotation may not follow (QUOTE): what it says, its source denies
NEGATIONS = frozenset((b"not", b"no", b"never", b"nor", b"neither", b"cannot", b"without"))
_BLANKS = frozenset(b" \t\r\n")
_NEGATION_ENDS = frozenset(b"tToOrR")
_RIGHT_QUOTE = "\u2019".encode()  # (the apostrophe of "don’t")
# what may stand between a negation and the quotation it denies (after_negation): markdown
# emphasis (``do **not** deploy``, ``_not_``, ``~~not~~``), a short bracketed aside
# (``do not (ever) deploy``) and a dash between blanks (``do not - deploy``, en or em dash):
# red team 94, F08
_EMPHASIS = frozenset(b"*_~")
_INLINE_BLANKS = frozenset(b" \t")
_LINE_BREAKS = frozenset(b"\r\n")
_OPENERS = {ord(")"): ord("("), ord("]"): ord("[")}
# the quotation mark that opens the quoted words (do not "deploy to prod"): a quote fact's text
# starts right after it, and the words a source denies stay denied inside it
_QUOTE_MARKS = frozenset(b"\"'")
_CURLY_OPENERS = ("\u201c".encode(), "\u2018".encode())
_CURLY_CLOSERS = ("\u201d".encode(), "\u2019".encode())
# the words that join quotations into a list a negation before the first governs (red team 100,
# F01: do not "deploy to prod", "drop the users table"; never "A" or "B"), as a comma does
_LIST_WORDS = frozenset((b"or", b"and", b"nor"))
_LIST_FILLERS = frozenset((b"even", b"also", b"else"))
_LIST_SEPARATORS = frozenset(b",;/(")
_DASHES = (b"\xe2\x80\x94", b"\xe2\x80\x93")  # em and en dash
_AMPERSAND = 0x26
# the words that, right after a quotation, make it the subject of a clause of its own: after a
# separator alone (; / ( a dash), a comma, or a separator and a list word, such a quotation
# opens a correction ('not "A"; "B" is the fix', 'not "master" ("main" is)'), no list item
# (red team 104, F01; red team 103, F05: 'not "A", and "B" is required')
_CLAUSE_WORDS = frozenset((b"is", b"are", b"was", b"were", b"will", b"would", b"should", b"shall", b"must",
                           b"can", b"could", b"may", b"might", b"does", b"did", b"has", b"have", b"had",
                           b"instead", b"works", b"worked", b"replaces", b"replaced", b"remains"))
# the bullets of a list set out one item a line (- * + or a bullet sign, or a number and . or ))
_BULLETS = frozenset(b"-*+")
_BULLET_SIGN = "\u2022".encode()
_ORDINAL_ENDS = frozenset(b".)")
_MAX_ORDINAL_DIGITS = 9
# a header line that governs the list under it: a negation among its first words, but not one
# that a verb of omission follows ("Don't forget:", "Never skip:": the items are to be done)
_HEADER_WORDS = 3
_OMISSIONS = frozenset((b"forget", b"skip", b"miss", b"omit", b"neglect", b"fail", b"ignore", b"overlook",
                        b"hesitate", b"leave"))
# words that stress a negation, between it and the verb of omission it may govern ("Don't ever
# forget:"), and the words that make a header a condition ("If you don't have jq, run:")
# the words that make a header's "no" and its noun a report of none found, no prohibition
# ("No issues found in:", "No errors were detected in:"); gate._FINDINGS, the same words
_FINDINGS = frozenset((b"found", b"detected", b"reported", b"seen", b"flagged"))
_STRESS = frozenset((b"ever", b"even", b"just", b"really"))
_CONDITIONS = frozenset((b"if", b"when", b"unless", b"whenever"))
# the negation that, quoted alone, is an answer or an option's value, no negation of the
# quotation after it (red team 100, F08: ["yes", "no", "ask every time"], {"dry_run": "no",
# "target env": …}); a string that is "not" or "Never" alone may be a line cut in two
# (["Never", "rm -rf"]) and still denies, failing closed
_ANSWERS = frozenset((b"no",))
# the look-back's bounds: the stretch between the negation and the quote is at most
# NEGATION_REACH bytes, an aside's text (between its brackets) at most NEGATION_ASIDE
NEGATION_REACH = 256
NEGATION_ASIDE = 40
PERCENT = ord("%")
CLOSERS = frozenset(b".,")  # joiners that may end a quote on their own
URL_CONTINUERS = frozenset(b"?#")
START = 0xF8  # bytes 0xF5-0xFF never occur in UTF-8, so these cannot collide with text
END = 0xF9


def start_ok(data: bytes, s: int) -> bool:
    if s == 0:
        return True
    before = data[s - 1]
    if before in WORD_BYTES:
        return False
    return not (before in JOINERS and s >= 2 and data[s - 2] in WORD_BYTES)


def end_ok(data: bytes, e: int) -> bool:
    if e == len(data):
        return True
    after = data[e]
    if after in WORD_BYTES:
        return False
    return not (after in JOINERS and e + 1 < len(data) and data[e + 1] in WORD_BYTES)


def at_token_boundaries(data: bytes, s: int, e: int) -> bool:
    return start_ok(data, s) and end_ok(data, e)


FIRST = 1  # edges[b] & FIRST: some pattern begins with byte b
LAST = 2  # edges[b] & LAST: some pattern ends with byte b


def edge_bytes(patterns: list[bytes]) -> bytes:
    edges = bytearray(256)
    for pattern in patterns:
        edges[pattern[0]] |= FIRST
        edges[pattern[-1]] |= LAST
    return bytes(edges)


def marked(data: bytes, edges: bytes) -> bytearray:
    """``data`` with END where a match may end, then START where one may begin."""
    out = bytearray()
    for p in range(len(data) + 1):
        if p > 0 and edges[data[p - 1]] & LAST and end_ok(data, p):
            out.append(END)
        if p < len(data) and edges[data[p]] & FIRST and start_ok(data, p):
            out.append(START)
        if p < len(data):
            out.append(data[p])
    return out


def marked_pattern(pattern: bytes, edges: bytes) -> str:
    """The automaton key of a pattern: its marked form, which runs from START to END."""
    key = marked(pattern, edges)
    if not (key and key[0] == START and key[-1] == END):  # cannot happen: its own ends always pass
        raise RuntimeError(f"marking pattern {pattern!r} did not produce START…END")
    return key.decode("latin-1")


def build_automaton(patterns: list[bytes]) -> tuple[Any, bytes]:
    """An automaton whose value for each marked pattern is its index in ``patterns``, and the
    pattern edge-byte table that marking a text for it needs."""
    edges = edge_bytes(patterns)
    automaton = ahocorasick.Automaton(ahocorasick.STORE_INTS)
    for index, pattern in enumerate(patterns):
        automaton.add_word(marked_pattern(pattern, edges), index)
    if patterns:
        automaton.make_automaton()
    return automaton, edges


def too_many_matches(max_matches: int) -> LimitExceededError:
    return LimitExceededError(
        f"the text holds more than max_matches={max_matches} matches of source facts; "
        "raise max_matches or search a smaller text"
    )


def check_max_matches(max_matches: Any) -> None:
    if isinstance(max_matches, bool) or not isinstance(max_matches, int):
        raise TypeError(f"max_matches must be an int, not {type(max_matches).__name__}")
    if not 0 <= max_matches < 1 << 63:
        raise ValueError(f"max_matches must be in 0..2**63-1, got {max_matches!r}")


def check_data(data: bytes) -> None:
    if START in data or END in data:
        raise InvalidContentError("data contains byte 0xF8 or 0xF9, so it is not valid UTF-8")


def collect(
    automaton: Any, data: bytes, pattern_bytes: np.ndarray, edges: bytes, max_matches: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    data = bytes_like(data)
    check_max_matches(max_matches)
    check_data(data)
    lengths = pattern_bytes.tolist()
    haystack = marked(data, edges)
    # offset_of[k]: how many bytes of data precede character k of the haystack
    offset_of = []
    seen = 0
    for c in haystack:
        offset_of.append(seen)
        if c != START and c != END:
            seen += 1
    starts: list[int] = []
    ends: list[int] = []
    patterns: list[int] = []
    if len(automaton) == 0:
        return _arrays(starts, ends, patterns)
    for last, index in automaton.iter(haystack.decode("latin-1")):
        if len(starts) == max_matches:
            raise too_many_matches(max_matches)
        end = offset_of[last]  # last is the pattern's END marker, which precedes byte `end`
        starts.append(end - lengths[index])
        ends.append(end)
        patterns.append(index)
    return _arrays(starts, ends, patterns)


def _arrays(*columns: list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return tuple(np.array(c, dtype=np.int64) for c in columns)  # type: ignore[return-value]


def occurs_at_boundaries(needles: Any, haystacks: Any, *, groups: Any = None, needle_group: Any = None,
                         modes: Any = None) -> np.ndarray:
    """For each needle: does it occur in some haystack (of its group) at token boundaries (as
    strictly as its mode says)?"""
    needles = check_byte_items(needles, "needles")
    haystacks = check_byte_items(haystacks, "haystacks")
    offsets, members, needle_group = check_grouping(groups, needle_group, len(needles), len(haystacks),
                                                    items="needles", members="haystacks", group_name="needle_group")
    modes = check_modes(modes, len(needles))
    found = []
    for n, g, mode in zip(needles, needle_group.tolist(), modes.tolist()):
        found.append(any(occurs_in(haystacks[m], n, mode) for m in members[offsets[g]:offsets[g + 1]].tolist()))
    return np.array(found, dtype=np.bool_)


def check_modes(modes: Any, n: int) -> np.ndarray:
    """``modes`` as a uint8 array of ``n`` modes (None: all RELAXED)."""
    if modes is None:
        return np.zeros(n, dtype=np.uint8)
    if isinstance(modes, (str, bytes)) or not isinstance(modes, (list, tuple, np.ndarray)):
        raise TypeError(f"modes must be a list, tuple or array of ints, not {type(modes).__name__}")
    values = np.asarray(modes)
    if values.ndim != 1 or values.shape[0] != n:
        raise InvalidArgumentError(f"modes must hold one mode per needle ({n}), not {values.shape}", argument="modes")
    if n and (values.dtype.kind not in "iu" or values.min() < RELAXED or values.max() > QUOTE):
        raise InvalidArgumentError(f"modes must be ints in {RELAXED}..{QUOTE}", argument="modes")
    return values.astype(np.uint8)


def occurs_in(haystack: bytes, needle: bytes, mode: int) -> bool:
    """Does ``needle`` occur in ``haystack`` at token boundaries, as strictly as ``mode`` says?"""
    if not needle:
        return False
    relaxed = mode == RELAXED or mode == QUOTE
    own_left = relaxed and needle[0] not in WORD_BYTES and needle[0] not in JOINERS
    # sentence punctuation ends a quote ("Building..." of Building...OK); a path's / does not
    own_right = relaxed and needle[-1] not in WORD_BYTES and (needle[-1] not in JOINERS or needle[-1] in CLOSERS)
    unsigned = needle[0] not in SIGNS
    start = haystack.find(needle)
    misses, period = 0, 0
    while start >= 0:
        end = start + len(needle)
        if ((own_left or start_ok(haystack, start)) and (own_right or end_ok(haystack, end))
                and not (mode == NUMBER and unsigned and start >= 1 and haystack[start - 1] in SIGNS
                         and (start == 1 or haystack[start - 2] not in WORD_BYTES))
                and not (mode == NUMBER and end < len(haystack) and haystack[end] == PERCENT)
                and not (mode == URL and end < len(haystack) and haystack[end] in URL_CONTINUERS)
                and not (mode == QUOTE and after_negation(haystack, start))):
            return True
        start = next_occurrence(haystack, needle, start, period)
        if start < 0:
            return False
        misses += 1
        if misses == PERIOD_AFTER_MISSES:
            period = smallest_period(needle)
    return False


# the occurrences at no boundary a needle's search passes before it reads the needle's period
PERIOD_AFTER_MISSES = 8


def smallest_period(needle: bytes) -> int:
    """The smallest ``p > 0`` with ``needle[p:] == needle[:-p]`` (the needle's length if none):
    from the prefix function (Knuth, Morris and Pratt, 1977)."""
    border = [0] * len(needle)
    k = 0
    for i in range(1, len(needle)):
        while k and needle[i] != needle[k]:
            k = border[k - 1]
        if needle[i] == needle[k]:
            k += 1
        border[i] = k
    return len(needle) - border[-1]


def next_occurrence(haystack: bytes, needle: bytes, start: int, period: int) -> int:
    """The occurrence of ``needle`` after the one at ``start``, or -1. ``period``: the
    needle's smallest period, or 0 when not known (then the next is searched for). Two
    occurrences closer than ``len(needle) - period`` are a multiple of the period apart (Fine
    and Wilf), and the one ``period`` on is there exactly when the text goes on with the
    needle's last ``period`` bytes; else none starts before the run's last one plus
    ``len(needle) - period``: the occurrences of a periodic needle (``1.1.1…`` in ``1.1.1.1…``)
    are read in time linear in the text, where a search from each one's next byte was
    quadratic (red team 116, F10)."""
    m = len(needle)
    if not period or period >= m:
        return haystack.find(needle, start + 1)
    end = start + m
    if haystack[end:end + period] == needle[m - period:]:
        return start + period
    return haystack.find(needle, start + m - period + 1)


def after_negation(haystack: bytes, start: int) -> bool:
    """Is the word before ``haystack[start]`` a negation (``QUOTE``): ``not``, ``no``,
    ``never``, ``nor``, ``neither``, ``cannot``, ``without``, or a word that ends in ``n't`` or
    ``n’t``, of ASCII letters and apostrophes, in any case, standing on its own: no word byte
    before it, or only the emphasis markers that wrap it (``_not_``; ``do**not**`` and
    ``do**n't**`` stand on their own, as ``*`` and ``~`` are no word bytes)?

    Between the word and ``start`` there must be at least one byte, and only (``_separator_start``):
    blanks; emphasis markers (``* _ ~``) that do not begin a line as a list bullet or a rule; a
    bracketed aside ``(…)`` or ``[…]`` of at most ``NEGATION_ASIDE`` bytes on one line, not
    nested; a dash (``-``, ``--``, en or em dash) with a blank after it and a space or tab before
    it that does not begin its line (a list item's dash does). The stretch is at most
    ``NEGATION_REACH`` bytes, so each look-back is bounded (red team 94, F08: ``do **not**
    deploy``, ``*never* deploy``, ``do not (ever) deploy``, ``do not - deploy`` hid the
    negation).

    The negation reaches on (red team 100): through a list of quotations, each joined to the one
    before (:func:`_listed_after`: a comma, ``or``, ``and``, ``nor``, ``&``, ``and/or``, a
    separator; ``do not "deploy", "drop the table"``: every item is denied, F01), or set out one
    item a line under the negation's header or the item before (:func:`_bullet_line`,
    :func:`_negation_heads`: red team 104, F04); and into a quotation, so words that start
    inside a denied quotation are denied too (``"to prod"`` of ``do not "deploy to prod"``,
    F10). A JSON string that is "no" alone (``["yes", "no", "ask every time"]``) is an answer,
    no negation of the string after it (F08)."""
    low = start - NEGATION_REACH if start > NEGATION_REACH else 0
    if _quotation_denied(haystack, start, low):
        return True
    opened = _quotation_around(haystack, start, low)
    return opened >= 0 and _quotation_denied(haystack, opened, opened - NEGATION_REACH if opened > NEGATION_REACH else 0)


def _quotation_denied(haystack: bytes, start: int, low: int) -> bool:
    """Do the words at ``haystack[start]`` follow a negation (:func:`after_negation`), or open a
    quotation listed after one that does (each list step moves back, none below ``low``)?"""
    while True:
        i = _separator_start(haystack, start, low)
        if _negation_before(haystack, i, start):
            return True
        mark = _opening_mark_before(haystack, start, low)
        if mark < 0:
            return False
        closer = _listed_after(haystack, mark, low)
        if closer >= 0:
            start = _words_closed_at(haystack, closer, low)
        else:
            # a list set out one item a line: the item before, or the header line over the list
            line = _bullet_line(haystack, mark, low)
            if line < 0:
                return False
            s, e = _line_before(haystack, line, low)
            if s < 0:
                return False
            t = _bullet_at(haystack, s, e)
            if t < 0:
                return _negation_heads(haystack, s, e)
            start = _item_quotation(haystack, t, e)
        if start < 0:
            return False


def _negation_before(haystack: bytes, i: int, start: int) -> bool:
    """Is the word that ends at ``haystack[i]`` a negation standing on its own (the stretch
    ``haystack[i:start]`` separating it from the words, :func:`after_negation`)? A string that
    is "no" alone, its closing mark in the stretch, is an answer (red team 100, F08)."""
    if i == start or i == 0 or haystack[i - 1] not in _NEGATION_ENDS:
        return False  # (every negation ends in t, o or r: most words are passed here)
    j = i
    while j > 0:
        c = haystack[j - 1]
        if 0x41 <= c <= 0x5A or 0x61 <= c <= 0x7A or c == 0x27:
            j -= 1
        elif j >= 3 and haystack[j - 3 : j] == _RIGHT_QUOTE:
            j -= 3
        else:
            break
    if j == i:
        return False
    if j > 0 and haystack[j - 1] in WORD_BYTES:  # ("_", a word byte, may wrap it: "_not_")
        k = j
        while k > 0 and haystack[k - 1] in _EMPHASIS:
            k -= 1
        if k == j or (k > 0 and haystack[k - 1] in WORD_BYTES):
            return False
    word = haystack[j:i].replace(_RIGHT_QUOTE, b"'").lower()
    if word in _ANSWERS and j > 0 and haystack[j - 1] == 0x22:
        k = i
        while k < start and haystack[k] in _BLANKS:
            k += 1
        if k < start and haystack[k] == 0x22:
            return False  # ("no" of ["yes", "no", "ask every time"]: the string is the answer alone)
    return word in NEGATIONS or word.endswith(b"n't")


def _opening_mark_before(haystack: bytes, start: int, low: int) -> int:
    """Where the quotation mark (``" ' “ ‘``) that opens the words at ``haystack[start]``
    begins, or -1."""
    if start > low and haystack[start - 1] in _QUOTE_MARKS:
        return start - 1
    if start - 3 >= low and haystack[start - 3 : start] in _CURLY_OPENERS:
        return start - 3
    return -1


def _listed_after(haystack: bytes, mark: int, low: int) -> int:
    """Where the closing mark (``" ' ” ’``) of the quotation before the one ``haystack[mark]``
    opens begins, when the two are joined as a list, blanks around the join; else -1. Joins:
    ``or``, ``and``, ``nor``, ``&``, ``and/or`` (``or/and``), each maybe with a filler after it
    (``or even``, ``and also``, ``or else``) and a separator before it (``,`` ``;`` ``/`` ``(``,
    an em or en dash, a spaced hyphen); a comma; a separator alone. Where a comma or a separator
    comes into the join, the quotation at ``mark`` must open no clause of its own
    (:func:`_clause_follows`: 'not "A"; "B" is the fix' is a correction). Red team 100, F01;
    red team 103, F03, F05; red team 104, F01, F04."""
    k = _blanks_before(haystack, mark, low)
    w = _letters_before(haystack, k, low)
    if w < k and haystack[w:k].lower() in _LIST_FILLERS and not (w > 0 and haystack[w - 1] in WORD_BYTES):
        k = _blanks_before(haystack, w, low)
        w = _letters_before(haystack, k, low)
        if w == k and not (k > low and haystack[k - 1] == _AMPERSAND):
            return -1  # (a filler joins only after a list word)
    if w < k:
        if haystack[w:k].lower() not in _LIST_WORDS or (w > 0 and haystack[w - 1] in WORD_BYTES):
            return -1
        if w - 1 > low and haystack[w - 1] == 0x2F:  # (and/or, or/and)
            v = _letters_before(haystack, w - 1, low)
            if v < w - 1 and haystack[v : w - 1].lower() in _LIST_WORDS and not (v > 0 and haystack[v - 1] in WORD_BYTES):
                w = v
        b = _blanks_before(haystack, w, low)
        k = _past_separator(haystack, b, low)
        tested = k != b
    elif k > low and haystack[k - 1] == _AMPERSAND:
        b = _blanks_before(haystack, k - 1, low)
        k = _past_separator(haystack, b, low)
        tested = k != b
    elif k > low and haystack[k - 1] == 0x2C:
        k = _blanks_before(haystack, k - 1, low)
        tested = True
    else:
        b = _past_separator(haystack, k, low)
        if b == k:
            return -1
        k, tested = b, True
    if k > low and haystack[k - 1] in _QUOTE_MARKS:
        closer = k - 1
    elif k - 3 >= low and haystack[k - 3 : k] in _CURLY_CLOSERS:
        closer = k - 3
    else:
        return -1
    return -1 if tested and _clause_follows(haystack, mark) else closer


def _clause_follows(haystack: bytes, mark: int) -> bool:
    """Does the quotation ``haystack[mark]`` opens stand before one of ``_CLAUSE_WORDS``, spaces
    and tabs between (``"B" is the fix``): the subject of a clause of its own? Its closing mark
    is looked for within ``NEGATION_REACH`` bytes; not found, it is no subject (fail closed)."""
    k = _closing_mark_after(haystack, mark)
    if k < 0:
        return False
    n = len(haystack)
    while k < n and haystack[k] in _INLINE_BLANKS:
        k += 1
    j = k
    while j < n and 0x61 <= (haystack[j] | 0x20) <= 0x7A:
        j += 1
    return j > k and haystack[k:j].lower() in _CLAUSE_WORDS and not (j < n and haystack[j] in WORD_BYTES)


def _closing_mark_after(haystack: bytes, mark: int) -> int:
    """Where the quotation ``haystack[mark]`` opens ends, just past its closing mark (``"`` for
    ``"``, ``'`` but an apostrophe for ``'``, ``”`` for ``“``, ``’`` but an apostrophe for
    ``‘``), looked for within ``NEGATION_REACH`` bytes; or -1."""
    c = haystack[mark]
    high = min(len(haystack), mark + 1 + NEGATION_REACH)
    if c in _QUOTE_MARKS:
        k = mark + 1
        while k < high:
            if haystack[k] == c and not (c == 0x27 and _apostrophe(haystack, k)):
                return k + 1
            k += 1
        return -1
    closer = _CURLY_CLOSERS[0] if haystack[mark : mark + 3] == _CURLY_OPENERS[0] else _CURLY_CLOSERS[1]
    k = mark + 3
    while k + 3 <= high:
        if haystack[k : k + 3] == closer and not (closer == _RIGHT_QUOTE and _apostrophe(haystack, k + 2)):
            return k + 3
        k += 1
    return -1


def _bullet_line(haystack: bytes, mark: int, low: int) -> int:
    """Where the line starts when the quotation ``haystack[mark]`` opens is a list item's text:
    spaces or tabs, a bullet (``-`` ``*`` ``+`` ``•``, or up to nine digits and ``.`` or ``)``),
    spaces or tabs (one at least), the mark; else -1 (also when the line starts below ``low``)."""
    k = mark
    while k > low and haystack[k - 1] in _INLINE_BLANKS:
        k -= 1
    if k == mark:
        return -1
    if k > low and haystack[k - 1] in _BULLETS:
        k -= 1
    elif k - 3 >= low and haystack[k - 3 : k] == _BULLET_SIGN:
        k -= 3
    elif k > low and haystack[k - 1] in _ORDINAL_ENDS:
        d = k - 1
        while d > low and 0x30 <= haystack[d - 1] <= 0x39:
            d -= 1
        if d == k - 1 or k - 1 - d > _MAX_ORDINAL_DIGITS:
            return -1
        k = d
    else:
        return -1
    while k > low and haystack[k - 1] in _INLINE_BLANKS:
        k -= 1
    return k if k == 0 or (k > low and haystack[k - 1] in _LINE_BREAKS) else -1


def _line_before(haystack: bytes, line: int, low: int) -> tuple[int, int]:
    """The last line with text before the line that starts at ``haystack[line]`` (blank lines
    passed), as (start, end of its text); (-1, -1) when there is none from ``low`` on."""
    e = _blanks_before(haystack, line, low)
    if e == line or e <= low:
        return -1, -1
    s = e
    while s > low and haystack[s - 1] not in _LINE_BREAKS:
        s -= 1
    if not (s == 0 or (s > low and haystack[s - 1] in _LINE_BREAKS)):
        return -1, -1
    return s, e


def _bullet_at(haystack: bytes, s: int, e: int) -> int:
    """Where a list item's text starts when the line ``haystack[s:e]`` is one (spaces or tabs,
    a bullet, spaces or tabs, one at least); else -1."""
    k = s
    while k < e and haystack[k] in _INLINE_BLANKS:
        k += 1
    if k < e and haystack[k] in _BULLETS:
        k += 1
    elif k + 3 <= e and haystack[k : k + 3] == _BULLET_SIGN:
        k += 3
    else:
        d = k
        while d < e and 0x30 <= haystack[d] <= 0x39:
            d += 1
        if d == k or d - k > _MAX_ORDINAL_DIGITS or d == e or haystack[d] not in _ORDINAL_ENDS:
            return -1
        k = d + 1
    t = k
    while t < e and haystack[t] in _INLINE_BLANKS:
        t += 1
    return t if t > k else -1


def _item_quotation(haystack: bytes, t: int, e: int) -> int:
    """Where the words start of the quotation that opens a list item's text at ``haystack[t]``
    (its line's text ending at ``e``): ``- "A"`` over ``- "B"``; -1 when the item opens with
    no quotation."""
    if haystack[t] in _QUOTE_MARKS:
        return t + 1
    if t + 3 <= e and haystack[t : t + 3] in _CURLY_OPENERS:
        return t + 3
    return -1


def _negation_heads(haystack: bytes, s: int, e: int) -> bool:
    """Is the line whose text is ``haystack[s:e]``, no list item (the last line with text
    before a list's first item), a header over the list that a negation governs: ending in ``:`` (emphasis after it passed) with a
    negation among its first ``_HEADER_WORDS`` words (``Do not run:``, ``**Never**:``) that no
    verb of omission follows (``Don't forget:``, ``_OMISSIONS``), or of
    at most that many words, nothing but letters, apostrophes, blanks and emphasis, the last a
    negation (``Do not``)? Words are runs of word bytes and apostrophes, emphasis ``_`` cut
    from their ends (red team 104, F04: a list one item a line after a negation). Not a line
    that asks (a ``?`` in it: ``Didn't work? Try:``) or sets a condition (its first word one of
    ``_CONDITIONS``: ``If you don't have jq, run:``); a word of ``_STRESS`` after the negation
    is passed before the verb of omission is asked (``Don't ever forget:``): red team 108, F06.
    Nor a ``no`` whose noun a word of ``_FINDINGS`` follows within three words (``No issues
    found in:``, ``No errors were detected in:``): a report of none found (stop 46)."""
    t = e
    while t > s and haystack[t - 1] in _EMPHASIS:
        t -= 1
    colon_end = t > s and haystack[t - 1] == 0x3A
    words = report = 0
    negated_early = last_negated = pending = asks = said_no = False
    plain = True
    k = s
    while k < e:
        c = haystack[k]
        if c in WORD_BYTES or c == 0x27:
            j = k
            while j < e and (haystack[j] in WORD_BYTES or haystack[j] == 0x27):
                j += 1
            words += 1
            word = haystack[k:j].strip(b"_")
            lower = word.lower()
            if words == 1 and lower in _CONDITIONS:
                return False
            if report:
                # ("No issues found in:": a report of none found, no prohibition; the gate's
                # polarity rule reads it as a negation of the quotations under it)
                if lower in _FINDINGS:
                    report = 0
                elif report < 3:
                    report += 1
                else:
                    report = 0
                    negated_early = True
            if pending and lower in _STRESS:
                k = j
                continue  # ("Don't ever forget:": the verb after the stress is asked)
            if pending and lower not in _OMISSIONS:
                if said_no and lower not in _FINDINGS:
                    report = 1  # (its noun: a word of _FINDINGS within three after it reports)
                else:
                    negated_early = True
            last_negated = _negation_word(word)
            said_no = last_negated and lower == b"no"
            pending = words <= _HEADER_WORDS and last_negated
            k = j
        else:
            if c == 0x3F:
                asks = True
            if c not in _BLANKS and c not in _EMPHASIS:
                plain = False
            k += 1
    if asks:
        return False  # ("Didn't work? Try:": a question, no prohibition)
    negated_early = negated_early or report > 0  # (a "no" and its noun, no finding after them)
    return (colon_end and (negated_early or pending)) or (plain and words <= _HEADER_WORDS and last_negated)


def _negation_word(word: bytes) -> bool:
    """Is ``word`` a negation (``NEGATIONS``, or ending in ``n't`` or ``n’t``), in any case?"""
    word = word.replace(_RIGHT_QUOTE, b"'").lower()
    return word in NEGATIONS or word.endswith(b"n't")


def _letters_before(haystack: bytes, at: int, low: int) -> int:
    while at > low and 0x61 <= (haystack[at - 1] | 0x20) <= 0x7A:
        at -= 1
    return at


def _past_separator(haystack: bytes, at: int, low: int) -> int:
    """``at`` moved back over one list separator before it (``,`` ``;`` ``/`` ``(``, an em or en
    dash, a ``-`` or ``--`` with a space or tab before it and a blank after it; no dash that
    begins its line) and the blanks before that, or ``at`` when none is there."""
    if at > low and haystack[at - 1] in _LIST_SEPARATORS:
        return _blanks_before(haystack, at - 1, low)
    if at - 3 >= low and haystack[at - 3 : at] in _DASHES:
        d = at - 3
    elif at > low and haystack[at - 1] == 0x2D and at < len(haystack) and haystack[at] in _BLANKS:
        d = at - 2 if at - 2 > low and haystack[at - 2] == 0x2D else at - 1  # (a spaced - or --)
        if not (d > low and haystack[d - 1] in _INLINE_BLANKS):
            return at
    else:
        return at
    if _starts_a_line(haystack, d, low):
        return at  # (a list item's dash begins its line)
    return _blanks_before(haystack, d, low)


def _blanks_before(haystack: bytes, at: int, low: int) -> int:
    while at > low and haystack[at - 1] in _BLANKS:
        at -= 1
    return at


def _words_closed_at(haystack: bytes, closer: int, low: int) -> int:
    """Where the words of the quotation whose closing mark begins at ``haystack[closer]`` start:
    past the nearest opening mark before it, not below ``low`` (``"`` for ``"``, ``'`` for
    ``'`` but an apostrophe between word bytes, ``“`` for ``”``, ``‘`` for ``’``); or -1."""
    c = haystack[closer]
    if c in _QUOTE_MARKS:
        k = closer - 1
        while k >= low:
            if haystack[k] == c and not (c == 0x27 and _apostrophe(haystack, k)):
                return k + 1
            k -= 1
        return -1
    opener = _CURLY_OPENERS[0] if haystack[closer : closer + 3] == _CURLY_CLOSERS[0] else _CURLY_OPENERS[1]
    k = haystack.rfind(opener, low, closer)
    return k + 3 if k >= 0 else -1


def _apostrophe(haystack: bytes, k: int) -> bool:
    """Is the ``'`` at ``haystack[k]`` (or the ``’`` that ends there) an apostrophe: a word byte
    on both sides (``don't``, ``team's``)?"""
    a = k - 2 if haystack[k] == 0x99 else k
    return a > 0 and haystack[a - 1] in WORD_BYTES and k + 1 < len(haystack) and haystack[k + 1] in WORD_BYTES


def _quotation_around(haystack: bytes, start: int, low: int) -> int:
    """Where the words of the quotation that ``haystack[start]`` lies inside, past its first
    byte, start: past the nearest quotation mark before ``start`` (before the mark that opens
    the words at ``start``, if one does: a quotation inside a denied one is denied with it), not
    below ``low``, when that mark opens a quotation (a ``"`` or ``'`` after no word byte, a
    ``“`` or ``‘``); -1 when it closes one (a ``"`` after a word byte, a ``”``) or when there is
    none (red team 100, F10). Apostrophes between word bytes are passed, and so is a ``'`` or
    ``’`` after a word byte, no apostrophe: with the single quotation it closes, back to its
    opening mark (``do not "set 'retries=5' now"``), or alone when no opening mark comes before
    a double one (a plural possessive, ``do not "drop the users' table"``): red team 103, F06."""
    own = _opening_mark_before(haystack, start, low)
    k = (own if own >= 0 else start) - 1
    while k >= low:
        c = haystack[k]
        if c == 0x22:
            return -1 if k > 0 and haystack[k - 1] in WORD_BYTES else k + 1
        if c == 0x27 and not _apostrophe(haystack, k):
            if not (k > 0 and haystack[k - 1] in WORD_BYTES):
                return k + 1
            k = _single_opened(haystack, k, low) - 1
            continue
        if k - 2 >= low and haystack[k - 2] == 0xE2 and haystack[k - 1] == 0x80:
            if c == 0x9C or c == 0x98:  # (“ ‘)
                return k + 1
            if c == 0x9D:  # (”)
                return -1
            if c == 0x99 and not _apostrophe(haystack, k):  # (’)
                if not (k - 2 > 0 and haystack[k - 3] in WORD_BYTES):
                    return -1
                k = _single_opened(haystack, k - 2, low) - 1
                continue
        k -= 1
    return -1


def _single_opened(haystack: bytes, closer: int, low: int) -> int:
    """Where the opening mark begins of the single quotation whose closing ``'`` (or ``’``,
    from its first byte) is at ``haystack[closer]``, after a word byte: the nearest ``'`` after
    no word byte (``‘`` for ``’``) before it, not below ``low``; ``closer`` itself when a
    double quotation mark (``"`` ``“`` ``”``), another such closing mark, or ``low`` comes first
    (a plural possessive: ``users'``)."""
    curly = haystack[closer] != 0x27
    k = closer - 1
    while k >= low:
        c = haystack[k]
        if c == 0x22:
            return closer
        if c == 0x27 and not _apostrophe(haystack, k):
            if curly or (k > 0 and haystack[k - 1] in WORD_BYTES):
                return closer
            return k
        if k - 2 >= low and haystack[k - 2] == 0xE2 and haystack[k - 1] == 0x80:
            if c == 0x9C or c == 0x9D:  # (“ ”)
                return closer
            if c == 0x98:  # (‘)
                return k - 2 if curly else closer
            if c == 0x99 and not _apostrophe(haystack, k):  # (’)
                return closer
        k -= 1
    return closer


def denied_quotes(data: Any, kind: Any, starts: Any, quote_kind: int) -> np.ndarray:
    """The rows (int64, ascending) whose ``kind`` is ``quote_kind`` and whose words, at
    ``starts`` (a fact table's ``value_start``), follow a negation (:func:`after_negation`):
    the quotations a text denies, found in one call (a grounding set asks of every text)."""
    haystack = bytes_like(data)
    check_quote_columns(kind, starts, quote_kind)
    rows = []
    for i, (k, s) in enumerate(zip(kind.tolist(), starts.tolist())):
        if k != quote_kind:
            continue
        if not 0 <= s <= len(haystack):
            raise starts_error(len(haystack))
        if after_negation(haystack, s):
            rows.append(i)
    return np.array(rows, dtype=np.int64)


def check_quote_columns(kind: Any, starts: Any, quote_kind: Any) -> None:
    """:func:`denied_quotes`' columns: a C-contiguous uint8 ``kind`` and int64 ``starts`` of
    one length, and ``quote_kind`` in 0..255 (both implementations refuse the same)."""
    if not isinstance(kind, np.ndarray) or kind.dtype != np.uint8 or kind.ndim != 1 or not kind.flags.c_contiguous:
        raise TypeError("kind must be a one-dimensional C-contiguous uint8 numpy array")
    if (not isinstance(starts, np.ndarray) or starts.dtype != np.int64 or starts.ndim != 1
            or not starts.flags.c_contiguous):
        raise TypeError("starts must be a one-dimensional C-contiguous int64 numpy array")
    if starts.shape[0] != kind.shape[0]:
        raise InvalidArgumentError(f"starts has {starts.shape[0]} rows for {kind.shape[0]} kinds", argument="starts")
    if type(quote_kind) is not int or not 0 <= quote_kind <= 255:
        raise InvalidArgumentError(f"quote_kind must be an int in 0..255, got {quote_kind!r}", argument="quote_kind")


def starts_error(size: int) -> InvalidArgumentError:
    return InvalidArgumentError(f"starts must lie in 0..{size} (the data's length)", argument="starts")


def _starts_a_line(haystack: bytes, at: int, low: int) -> bool:
    """Are the bytes before ``haystack[at]`` on its line, down to ``low``, spaces and tabs only
    (the start of the haystack or a line break before them)?"""
    while at > low and haystack[at - 1] in _INLINE_BLANKS:
        at -= 1
    return at == 0 or haystack[at - 1] in _LINE_BREAKS


def _json_string_before(haystack: bytes, at: int, low: int) -> int:
    """Where the look-back goes on from the ``"`` at ``haystack[at]`` that opens the quoted
    words: past the ``", "`` that closes a JSON array's string before them, so the negation
    that string ends in is seen (``["Do not", "deploy to prod on Friday"]``: red team 96, F10),
    else just past the mark."""
    k = at
    while k > low and haystack[k - 1] in _BLANKS:
        k -= 1
    if k > low and haystack[k - 1] == 0x2C:  # ,
        k -= 1
        while k > low and haystack[k - 1] in _BLANKS:
            k -= 1
        if k > low and haystack[k - 1] == 0x22:
            return k - 1
    return at


def _separator_start(haystack: bytes, start: int, low: int) -> int:
    """Where the stretch that may separate a negation from ``haystack[start]`` begins
    (:func:`after_negation`): blanks, emphasis markers, a short bracketed aside and separating
    dashes, looked back no further than ``low``."""
    i = start
    while i > low:
        c = haystack[i - 1]
        if c in _BLANKS:
            i -= 1
        elif c in _EMPHASIS:
            k = i - 1
            while k > low and haystack[k - 1] in _EMPHASIS:
                k -= 1
            if i < len(haystack) and haystack[i] in _BLANKS and _starts_a_line(haystack, k, low):
                break  # (a list bullet "* item" or a rule "***" begins a new line's text)
            i = k
        elif c in _OPENERS:
            opener = _OPENERS[c]
            k = i - 2
            bottom = max(low, i - 2 - NEGATION_ASIDE)
            while k >= bottom and haystack[k] != opener and haystack[k] != c and haystack[k] not in _LINE_BREAKS:
                k -= 1
            if k < bottom or haystack[k] != opener:
                break
            i = k
        elif i == start and (c in _QUOTE_MARKS or (i - 3 >= low and haystack[i - 3 : i] in _CURLY_OPENERS)):
            i = _json_string_before(haystack, i - 1, low) if c == 0x22 else i - (1 if c in _QUOTE_MARKS else 3)
        else:
            if c == 0x2D:  # -
                d = i - 2 if i - 2 >= low and haystack[i - 2] == 0x2D else i - 1
            elif i - 3 >= low and haystack[i - 3 : i] in _DASHES:
                d = i - 3
            else:
                break
            if not (i < len(haystack) and haystack[i] in _BLANKS and d > low and haystack[d - 1] in _INLINE_BLANKS) or _starts_a_line(
                    haystack, d, low):
                break  # (a list item's dash begins its line; a dash without blanks joins)
            i = d
    return i
