"""Batch quote search, pure-Python reference: the executable specification.

The native module ``provgate._ext.search`` must return identical arrays and raise the same
exceptions with the same messages for every input; where the two could disagree, this module
decides. Everything works on **bytes**; offsets are byte offsets, ends exclusive. The search is
byte-exact and does not care whether the bytes are valid UTF-8 (callers pass UTF-8, and a valid
UTF-8 needle found in valid UTF-8 always starts and ends on character boundaries).

Item ``i`` of a batch searches ``needles[i]`` in ``haystacks[i]``; callers that search many
quotes in one source pass the same ``bytes`` object several times (it is not copied).

Exact search (``find_exact``)
-----------------------------
``first[i]`` is the offset of the first occurrence of ``needles[i]`` in ``haystacks[i]``, or -1;
``count[i]`` is the number of offsets at which it occurs, overlapping occurrences included
(``b"aa"`` occurs twice in ``b"aaa"``).

Whitespace-normalised search (``find_whitespace``)
--------------------------------------------------
*Whitespace* is the Unicode ``White_Space`` property, as UTF-8 byte sequences
(:data:`WHITESPACE`): ``\\t \\n \\v \\f \\r`` and space, U+0085, U+00A0, U+1680, U+2000-U+200A,
U+2028, U+2029, U+202F, U+205F and U+3000. A sequence is recognised wherever its bytes occur,
scanning left to right (the sequences are prefix-free, so there is one way to read any bytes).
``normalize_whitespace`` replaces every maximal run of whitespace by one space (0x20) and keeps
every other byte. Leading and trailing runs become one space too: nothing is trimmed.

The needle and the haystack are both normalised; ``count[i]`` is the number of (overlapping)
occurrences of the normalised needle in the normalised haystack, and ``start[i]``/``end[i]`` are
the ORIGINAL haystack bytes that the first occurrence covers: a space of the normalised text
stands for its whole run, so a match that begins or ends with a space covers the whole run.
-1, -1 when there is none.

``whitespace_spans(needle, haystack, max_spans)`` gives the original ``(start, end)`` of the
first ``max_spans`` normalised occurrences, as an ``(k, 2)`` array.

``exact_spans(needle, haystack, start, max_spans)`` gives the offsets of the first
``max_spans`` exact occurrences at or after ``start`` (overlapping ones included), as a ``(k,)``
array: a caller that passes over occurrences (those that cut a token) lists them a batch at a
time, each batch resuming after the last, with no search restarted per occurrence.

Longest prefix (``longest_prefix``), a diagnostic
-------------------------------------------------
``length[i]`` is the largest ``L`` such that ``needles[i][:L]`` occurs in ``haystacks[i]``
(``len(needle)`` when the needle occurs; 0 when not even its first byte does), and ``at[i]`` the
first offset of that prefix, or -1 when ``L == 0``. The prefix may end inside a UTF-8 character;
callers cut it back to a character boundary.

Figure-unit leads (``unit_leads``), for the gate's unit rules
-------------------------------------------------------------
``unit_leads(data)`` gives, in order, every offset of an ASCII digit that ends a run of digits
and that a unit follows, as an int64 array: the few places a figure may be written with a
unit after it, found in one pass, so the gate reads the words there only. After the digit:

- a *gap*: 1 to 24 bytes of :data:`UNIT_GAP_BYTES` (blanks, a hyphen, markdown's ``* _ ` ~``,
  a table cell's ``|``, a bracket ``[``, ``;``, ``:`` and ``=``, line breaks) holding at most one ``\n``, and then either a unit's
  ASCII spelling (:data:`UNIT_NAMES`, in any case but :data:`UNIT_LOWER_CASE_ONLY`) that no
  ASCII letter, digit or ``_`` goes on from, or a rate
  (a word of 1 to 16 ASCII letters, then ``/`` or `` per `` with blanks as written, then such
  a spelling), or one word before the unit (a word of 2 to 16 ASCII letters, blanks, then a
  spelling of 2 letters or more: ``30 idle minutes``, ``30 more seconds``), or a byte that
  asks for a closer look (the escape byte of a terminal colour code, any byte from 0x80: a
  micro or degree sign, a look-alike letter, an invisible mark);

or a rate of nothing named: blanks as written, ``/``, blanks, a spelling of letters (``100/h``,
``$5/month``: red team 118, F27).

or a dash or a Unicode hyphen (U+2010 to U+2015), or another of :data:`UNIT_DASHES` (a minus
sign, an arrow, a look-alike of ``;``) right after the digit, which asks for a closer look:
``30\u2014hours``, ``30\u2011minute`` (red team 135, F06), ``30\u2212hours`` (red team 137, F06).

A unit glued to the figure (``30s``, ``26%``, ``30µs``) is part of the number's fact, not one.

Summary leads (``summary_leads``), for the gate's summary rules
----------------------------------------------------------------
``summary_leads(data)`` gives, as flags, which leads a block holds: a full date, a time or a
host:port may stand there (``SUMMARY_LEAD_DATE_TIME``), a run's outcome may (a word of one,
``SUMMARY_LEAD_RUN_OUTCOME``): one pass over each summary, where each rule searched it for its
words itself, so a rule reads only the blocks that hold its lead (see the function).

Diff runs (``diff_runs``), for the gate's diff-direction rule
--------------------------------------------------------------
``diff_runs(lines, line_sides, places, tokens, p, reach, limit, best)`` compares a summary's
``tokens`` around its anchor ``tokens[p]`` with a diff's changed ``lines`` (lists of tokens) at
the first ``limit`` of ``places``, ``(line, place)`` pairs, in order: at each, the run of tokens
equal on both sides reaching at most ``reach`` tokens left and right of the place; where it is
longer than ``best[side]`` holds (``side``: ``line_sides[line]``, 0, 1 or 2), ``best[side]``
becomes ``(length, start, end)``, the run's ends in ``tokens`` (so of runs as long, the first
is kept). Tokens are compared with ``==`` (the gate's are ``str``; the native module compares
those itself, and equals this one wherever comparing changes none of the arguments); the
gate's Python loop over 64 places x 24 tokens each way cost ~1.2 ms per summary token
(red team 140, F12).

Input
-----
``needles`` and ``haystacks`` are lists or tuples of the same length whose items are ``bytes``
(not ``bytearray`` or ``memoryview``: a mutable buffer could change or move while the native
search runs without the GIL). A needle must not be empty (it would occur everywhere).
Wrong types raise ``TypeError``; wrong values raise
:class:`~provgate.errors.InvalidArgumentError`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from provgate._batch import check_byte_items
from provgate.errors import InvalidArgumentError

IMPLEMENTATION = "reference"

# The Unicode White_Space characters (PropList.txt), as code points and as UTF-8.
WHITESPACE_CODEPOINTS: tuple[int, ...] = (
    0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0x85, 0xA0, 0x1680,
    *range(0x2000, 0x200B), 0x2028, 0x2029, 0x202F, 0x205F, 0x3000,
)  # fmt: skip
WHITESPACE: tuple[bytes, ...] = tuple(chr(c).encode("utf-8") for c in WHITESPACE_CODEPOINTS)

# a maximal run of whitespace (also how reconstruct resumes a listing after a run)
WHITESPACE_RUN = re.compile(b"(?:" + b"|".join(re.escape(w) for w in WHITESPACE) + b")+")


# units a figure is read with (the gate's unit rules): each name -> its spellings, lower-case, so
# "30 seconds" -> "30 s" keeps the unit and "30 seconds" -> "30 minutes" changes it
UNIT_NAMES: dict[bytes, tuple[bytes, ...]] = {
    # (and "usec", "µsec", "nsec": a key's suffix, "latency_usec", red team 125, F09)
    b"ns": (b"ns", b"nsec", b"nsecs", b"nanosecond", b"nanoseconds", b"nanos"),
    b"us": (b"us", b"\xc2\xb5s", b"\xce\xbcs", b"usec", b"usecs", b"\xc2\xb5sec", b"\xc2\xb5secs", b"\xce\xbcsec",
            b"\xce\xbcsecs", b"microsecond", b"microseconds", b"micros"),
    b"ms": (b"ms", b"msec", b"msecs", b"millisecond", b"milliseconds", b"millis"),
    b"s": (b"s", b"sec", b"secs", b"second", b"seconds"),
    b"min": (b"min", b"mins", b"minute", b"minutes"),
    b"m": (b"m",),  # (minutes or metres: its own name, so "30 m" -> "30 h" is a change)
    b"h": (b"h", b"hr", b"hrs", b"hour", b"hours"),
    b"d": (b"d", b"day", b"days"),
    b"w": (b"wk", b"wks", b"week", b"weeks"),
    b"mo": (b"month", b"months"),
    b"y": (b"yr", b"yrs", b"year", b"years"),
    b"b": (b"b", b"byte", b"bytes"),
    b"kb": (b"kb", b"kilobyte", b"kilobytes"), b"kib": (b"kib",),
    b"mb": (b"mb", b"megabyte", b"megabytes"), b"mib": (b"mib",),
    b"gb": (b"gb", b"gigabyte", b"gigabytes"), b"gib": (b"gib",),
    b"tb": (b"tb", b"terabyte", b"terabytes"), b"tib": (b"tib",),
    # bits, not bytes: "30 GB" -> "30 gigabits" changed the unit (red team 135, F06; "Gb" and "GB"
    # are one spelling here, any case, and the grammar's names tell them apart)
    b"bit": (b"bit", b"bits"), b"kbit": (b"kbit", b"kbits", b"kilobit", b"kilobits"),
    b"mbit": (b"mbit", b"mbits", b"megabit", b"megabits"), b"gbit": (b"gbit", b"gbits", b"gigabit", b"gigabits"),
    b"tbit": (b"tbit", b"tbits", b"terabit", b"terabits"),
    b"kbps": (b"kbps",), b"mbps": (b"mbps",), b"gbps": (b"gbps",),
    b"%": (b"%", b"percent", b"pct"),
    b"degc": (b"\xc2\xb0c", b"\xe2\x84\x83", b"celsius"), b"degf": (b"\xc2\xb0f", b"\xe2\x84\x89", b"fahrenheit"),  # (and ℃, ℉)
    # (a scale only with the letter or name after it, "30 degrees C": gate._unit_of_match; alone,
    # an angle or a temperature of either scale, no unit)
    b"deg": (b"deg", b"degree", b"degrees"),
    # a count of repeats is a unit too: "Retry 3 times" -> "Retry 3 s" changed it (red team 118, F08)
    b"times": (b"times",),
    b"kelvin": (b"kelvin", b"kelvins"),  # (red team 119, F04: "30 degrees C" -> "30 kelvin")
    b"permille": (b"\xe2\x80\xb0",),
    # a prime and a double prime: minutes or feet, seconds or inches (or of arc), each its own
    # name, as "m" is: "30 minutes" -> "30 \u2033" changed it (red team 135, F06)
    b"prime": (b"\xe2\x80\xb2",), b"dprime": (b"\xe2\x80\xb3",),
    b"km": (b"km", b"kilometer", b"kilometers", b"kilometre", b"kilometres"),
    b"mi": (b"mile", b"miles"),
    # mass, volume and length, each unit its own name: "Weight 30 kg." summarized "Weight 30 mg."
    # (or "30 \u338e", the squared symbol folded) changed the unit (red team 137, F06). "m" stays
    # its own name (minutes or metres: gate._unit_grounded), and "in" is no unit (a preposition
    # far more often: "30 in total"), "inch" is; nor "mi" ("minutes" cut at the end of the bytes
    # gate._unit_at reads would read as miles)
    b"ug": (b"\xc2\xb5g", b"\xce\xbcg", b"mcg", b"microgram", b"micrograms"),
    b"mg": (b"mg", b"milligram", b"milligrams"),
    b"g": (b"g", b"gram", b"grams"),
    b"kg": (b"kg", b"kgs", b"kilo", b"kilos", b"kilogram", b"kilograms"),
    b"t": (b"t", b"tonne", b"tonnes"), b"ton": (b"ton", b"tons"),
    b"lb": (b"lb", b"lbs", b"pound", b"pounds"), b"oz": (b"oz", b"ounce", b"ounces"),
    b"ul": (b"\xc2\xb5l", b"\xce\xbcl", b"microlitre", b"microlitres", b"microliter", b"microliters"),  # (and \u00b5L: red team 139, F09)
    b"ml": (b"ml", b"mL", b"millilitre", b"millilitres", b"milliliter", b"milliliters"),
    b"l": (b"l", b"litre", b"litres", b"liter", b"liters"),
    b"um": (b"\xc2\xb5m", b"\xce\xbcm", b"micron", b"microns", b"micrometre", b"micrometres"),
    b"mm": (b"mm", b"millimetre", b"millimetres", b"millimeter", b"millimeters"),
    b"cm": (b"cm", b"centimetre", b"centimetres", b"centimeter", b"centimeters"),
    b"metre": (b"metre", b"metres", b"meter", b"meters"),
    b"inch": (b"inch", b"inches"), b"ft": (b"ft", b"foot", b"feet"), b"yd": (b"yd", b"yds", b"yard", b"yards"),
    # a rate written as one word: what it counts and its period, as "100 req/s" names them
    # (gate._unit_named, gate._counted): "100 req/min" -> "100 rps" changed the period (red team
    # 118, F27)
    b"req/s": (b"rps",), b"req/min": (b"rpm",), b"query/s": (b"qps",), b"query/min": (b"qpm",),
    b"txn/s": (b"tps",),
}
# the spellings unit_leads matches itself (the others start with a byte that asks a closer look)
UNIT_ASCII_SPELLINGS = tuple(sorted({x for xs in UNIT_NAMES.values() for x in xs if x.isascii()}))
# the spellings read in lower case only: upper-cased they are words ("2 US regions", "a 3 D
# render", "5 M users"; red team 116, F18); the others are read in any case ("12 GB", "30 Sec")
# (and "ml" and "mL" as written: "3 ML models" is machine learning)
UNIT_LOWER_CASE_ONLY = frozenset((b"us", b"d", b"m", b"h", b"s", b"g", b"t", b"ml", b"mL"))
# the bytes unit_leads reads between a figure and its unit
# (and "[": a unit in brackets or a markdown link's text, "Wait 5 [minutes]", red team 118, F09)
# (and ";" and ":": "30 ;; hours", "30 : hours" read as 30 hours; no prose puts either between a
# figure and a unit's word, so a summary that does hides its unit: red team 135, F06. "," and "."
# end a clause or a sentence, "30, hours later", and are no gap)
# (and "=": "30 = hours" hid its unit as "30 : hours" did, red team 137, F06)
UNIT_GAP_BYTES = frozenset(b" \t\r\n-*_`~|[;:=")
# (as a regular expression: the run, as long as the lookahead allows, then at most one line break)
UNIT_GAP_RUN = rb"(?=[ \t\r\n*_`~|\[;:=-]{1,24}(?![ \t\r\n*_`~|\[;:=-]))[ \t\r*_`~|\[;:=-]*\n?[ \t\r*_`~|\[;:=-]*"
# the dashes, minus signs, arrows and look-alikes of ";" and ":" that a reader reads past between a
# figure and its unit as the gap's "-", ";" and ":" (gate._UNIT_SIGNS folds them so): glued to the
# figure they ask a closer look ("30\u2014hours", red team 135, F06; "30 \u2212 hours", "30 \u2192
# hours", "30 \u037e hours", red team 137, F06; apart, their first byte, from 0x80, asks it)
UNIT_DASH_CODEPOINTS: tuple[int, ...] = (
    *range(0x2010, 0x2016), 0x2212, 0x2043, 0x2053, 0x2E17, 0x2E1A, 0x2E3A, 0x2E3B, 0x2E40, 0x301C, 0x3030,
    0xFE31, 0xFE32, 0xFE58, 0xFE63, *range(0x2190, 0x219A), 0x21D2, 0x21D4, 0x27F6, 0x27F9,
)  # fmt: skip
UNIT_SEMICOLON_CODEPOINTS: tuple[int, ...] = (0x037E, 0xFE54, 0xFE55, 0xFE13, 0xFE14, 0x2236, 0xA789)
UNIT_DASHES: tuple[bytes, ...] = tuple(chr(c).encode("utf-8") for c in UNIT_DASH_CODEPOINTS + UNIT_SEMICOLON_CODEPOINTS)


def _spelled(spellings: list[bytes]) -> bytes:
    """A pattern for the spellings, each in any case or in lower case only, as a whole word."""
    any_case = [re.escape(x) for x in spellings if x not in UNIT_LOWER_CASE_ONLY]
    lower = [re.escape(x) for x in spellings if x in UNIT_LOWER_CASE_ONLY]
    return rb"(?:(?i:" + b"|".join(any_case) + rb")|" + b"|".join(lower) + rb")(?![0-9A-Za-z_])"


_UNIT_LEAD = re.compile(
    rb"[0-9](?=(?:" + b"|".join(re.escape(x) for x in UNIT_DASHES) + rb")|" + UNIT_GAP_RUN
    + rb"(?:[\x1b\x80-\xff]|" + _spelled(list(UNIT_ASCII_SPELLINGS))
    + rb"|[A-Za-z]{1,16}(?:[ \t]*/[ \t]*|[ \t]+(?i:per)[ \t]+)" + _spelled([x for x in UNIT_ASCII_SPELLINGS if x.isalpha()])
    + rb"|[A-Za-z]{2,16}[ \t]+" + _spelled([x for x in UNIT_ASCII_SPELLINGS if x.isalpha() and len(x) >= 2])
    + rb")|[ \t]*/[ \t]*" + _spelled([x for x in UNIT_ASCII_SPELLINGS if x.isalpha()]) + rb")")


# -- input -----------------------------------------------------------------------------------


def check_batch(needles: Any, haystacks: Any) -> tuple[tuple[bytes, ...], tuple[bytes, ...]]:
    n = check_byte_items(needles, "needles", non_empty=True)
    h = check_byte_items(haystacks, "haystacks")
    if len(n) != len(h):
        raise InvalidArgumentError(
            f"needles and haystacks must have the same length ({len(n)} != {len(h)})", argument="haystacks"
        )
    return n, h


def check_pair(needle: Any, haystack: Any) -> None:
    for name, value in (("needle", needle), ("haystack", haystack)):
        if type(value) is not bytes:
            raise TypeError(f"{name} must be bytes, not {type(value).__name__}")
    if not needle:
        raise InvalidArgumentError("needle is empty; an empty needle occurs everywhere", argument="needle")


def check_marks(marks: Any) -> None:
    """``marks`` as :func:`marks_held` takes them: a tuple of non-empty bytes."""
    if type(marks) is not tuple:
        raise TypeError(f"marks must be a tuple of bytes, not {type(marks).__name__}")
    for i, mark in enumerate(marks):
        if type(mark) is not bytes:
            raise TypeError(f"marks[{i}] must be bytes, not {type(mark).__name__}")
        if not mark:
            raise InvalidArgumentError(f"marks[{i}] is empty; an empty mark occurs everywhere", argument="marks")


def check_start(start: Any) -> int:
    if isinstance(start, bool) or not isinstance(start, int) or start < 0:
        raise InvalidArgumentError(f"start must be a non-negative int, not {start!r}", argument="start")
    return min(start, (1 << 63) - 1)


def check_max_spans(max_spans: Any) -> int:
    if isinstance(max_spans, bool) or not isinstance(max_spans, int) or max_spans < 1:
        raise InvalidArgumentError(f"max_spans must be a positive int, not {max_spans!r}", argument="max_spans")
    return min(max_spans, (1 << 63) - 1)  # no haystack has more occurrences than that


# -- the definitions ---------------------------------------------------------------------------


def occurrences(needle: bytes, haystack: bytes) -> list[int]:
    """Every offset at which ``needle`` occurs in ``haystack``, overlapping ones included."""
    found = []
    at = haystack.find(needle)
    while at >= 0:
        found.append(at)
        at = haystack.find(needle, at + 1)
    return found


def normalize_whitespace(data: bytes) -> bytes:
    """``data`` with every maximal run of whitespace replaced by one space."""
    if type(data) is not bytes:
        raise TypeError(f"data must be bytes, not {type(data).__name__}")
    return WHITESPACE_RUN.sub(b" ", data)


def unit_leads(data: bytes) -> np.ndarray:
    """Every offset of a digit ending a number that a unit may follow (module doc)."""
    if type(data) is not bytes:
        raise TypeError(f"data must be bytes, not {type(data).__name__}")
    return np.array([m.start() for m in _UNIT_LEAD.finditer(data)], dtype=np.int64)


# the bytes after which (and up to 8 blanks) an aside or a bracket may follow a figure: what may
# open one ( { [ \\ , ; / > " ' ~ * _ a carriage return, a vertical tab, a form feed, $ ), the lead
# bytes of a dash, an ellipsis, a guillemet, an angle or a full-width bracket, a line or ideographic
# space and a currency sign; or "--" or ".." (red team 133, F06)
ASIDE_OPENERS = b"({[\\,;/>\"'~*_\r\x0b\x0c$)\xe2\xe3\xc2\xef"
_ASIDE_LEAD = re.compile(rb"[0-9](?=[ \t]{0,8}(?:[" + re.escape(ASIDE_OPENERS) + rb"]|--|\.\.))")


def aside_leads(data: bytes) -> np.ndarray:
    """Every offset just past an ASCII digit that up to 8 blanks (spaces, tabs) and then one of
    :data:`ASIDE_OPENERS` or ``--`` follow, in order, as an int64 array: the places a figure may
    be followed by a bracket or an aside (the gate reads its units there, a summary's side)."""
    if type(data) is not bytes:
        raise TypeError(f"data must be bytes, not {type(data).__name__}")
    return np.array([m.end() for m in _ASIDE_LEAD.finditer(data)], dtype=np.int64)


# a bare file name's line anchor, "config.py:19": a run of name bytes (ASCII letters, digits,
# "_", ".", "~", "-") that no name byte, "/" or "\\" stands before, ending in a word byte, "."
# and an extension (a letter, then up to 7 letters or digits), then ":" and 1 to 7 digits that
# no digit, and no "." before a digit, follows (red team 142, F04); a zero-width look-ahead, so
# every start is found
_BARE_NAME_LINE_LEAD = re.compile(rb"(?=(?<![\w./\\~-])[\w.~-]*\w\.[A-Za-z][A-Za-z0-9]{0,7}:[0-9]{1,7}(?![0-9]|\.[0-9]))")


def bare_name_line_leads(data: bytes) -> np.ndarray:
    """Every offset where a bare file name's line anchor begins (``config.py:19``, but not the
    ``config.py:19`` of ``src/config.py:19``: a name with a slash before it is a path), in
    order, as an int64 array: the anchors whose name and line a summary's facts hold apart,
    which the gate binds to the places its sources name."""
    if type(data) is not bytes:
        raise TypeError(f"data must be bytes, not {type(data).__name__}")
    return np.array([m.start() for m in _BARE_NAME_LINE_LEAD.finditer(data)], dtype=np.int64)


# a version word (ver, version, rel, release, rev, tag, any case, a whole word) that a number
# follows: past a "." and blanks, one of ":", "=" or "#" and blanks
_VERSION_WORD_LEAD = re.compile(rb"(?<![0-9A-Za-z_])(?:[Vv][Ee][Rr](?:[Ss][Ii][Oo][Nn])?|[Rr][Ee][Ll](?:[Ee][Aa][Ss][Ee])?"
                                rb"|[Rr][Ee][Vv]|[Tt][Aa][Gg])(?![0-9A-Za-z_])\.?[ \t]*[:=#]?[ \t]*[0-9]")


def version_word_leads(data: bytes) -> np.ndarray:
    """Every offset where a version word begins (``ver``, ``version``, ``rel``, ``release``,
    ``rev``, ``tag`` in any case, with no ASCII letter, digit or ``_`` before or after it) that
    a digit follows, past at most a ``.``, blanks (spaces, tabs), one of ``:`` ``=`` ``#`` and
    blanks, in order, as an int64 array: the places a summary may say a number is a version
    (the gate reads the number there)."""
    if type(data) is not bytes:
        raise TypeError(f"data must be bytes, not {type(data).__name__}")
    return np.array([m.start() for m in _VERSION_WORD_LEAD.finditer(data)], dtype=np.int64)


# The shapes paired_leads reads a text in (red team 138, F02: where a summary may pair an exact
# value with a word): an ASCII digit is 0; an ASCII letter or _ is a; a blank, a tab, a backtick,
# *, a quote or a parenthesis is a blank (they stand between a value and its word: "`9f8e7d6`
# fixed", "PROJ-12 (SSO"); a comma, a semicolon and a square bracket end a clause (a line break);
# any other byte is itself (":" and "/" are read)
PAIRED_SHAPES = bytes(
    ord("0") if 48 <= c <= 57 else ord("a") if 65 <= c <= 90 or 97 <= c <= 122 or c == 95
    else ord(" ") if c in b" \t`*\"'()" else ord("\n") if c in b",;[]" else c for c in range(256))
# a token holding a digit next to a word, either way round, past a ":" after it; a route after a word
PAIRED_LEAD_SHAPES = (b"0 a", b"a 0", b"0  a", b"a  0", b"a /", b"a  /", b"0: a", b"0:  a", b"a a0", b"a  a0")


def paired_leads(data: bytes) -> np.ndarray:
    """Every offset where one of :data:`PAIRED_LEAD_SHAPES` begins in ``data`` read in
    :data:`PAIRED_SHAPES` (one that starts with a digit, only where the digits follow a letter,
    ``_`` or one of ``-#:+/.``), in order, as an int64 array: the places a summary may pair an
    exact value with a word or a figure (the gate asks each one's clause for a value)."""
    if type(data) is not bytes:
        raise TypeError(f"data must be bytes, not {type(data).__name__}")
    shape = data.translate(PAIRED_SHAPES)
    found: set[int] = set()
    for lead in PAIRED_LEAD_SHAPES:
        i = shape.find(lead)
        while i >= 0:
            if lead[0] != 48 or _digits_glued(data, i):
                found.add(i)
            i = shape.find(lead, i + 1)
    return np.array(sorted(found), dtype=np.int64)


def _digits_glued(data: bytes, i: int) -> bool:
    """Whether the digits that end at ``i`` follow a letter, ``_`` or one of ``-#:+/.`` (a value
    ending in digits: ``9f8e7d6``, ``#1240``, ``PROJ-12``, ``+01:00``); a token of digits only is
    a count, no value (a list's "`44 replicas`")."""
    while i >= 0 and 48 <= data[i] <= 57:
        i -= 1
    return i >= 0 and PAIRED_SHAPES[data[i]] == 97 or i >= 0 and data[i] in b"-#:+/."

# The tokens identifiers re-paired compares (red team 140, F13: read by a regex and a cached
# function per token, a 0.6 MB summary's tokens cost ~1.5 s): a word, or a token holding a digit
# (a count, a status, a latency: 404, 120ms, 0.84s)
PAIRED_TOKEN = re.compile(rb"[A-Za-z0-9_.]*[0-9][A-Za-z0-9_.]*|[A-Za-z][A-Za-z']*")
# (function words pair nothing)
PAIRED_STOP = frozenset(b"""the and for are was were with from that this these those has have had not but
its into onto than then also all any each every both which who what when where while will would should
can could may might been being there their they them only just via per out now one two our your you
she his her him here see""".split())
_PAIRED_DIGIT = re.compile(rb"[0-9]")


def paired_token(token: bytes) -> bytes | None:
    """A token as compared: a word by its first four letters once a suffix is cut ("fixed" is
    "fix", "retries" "retr", "imported" "impo"), a token holding a digit as written less its
    trailing dots; a function word, a one-byte token or a two-letter word none."""
    if _PAIRED_DIGIT.search(token):
        token = token.rstrip(b".")
        return token if len(token) >= 2 else None
    word = token.lower().rstrip(b"'")
    if len(word) < 3 or word in PAIRED_STOP:
        return None
    for suffix in (b"ing", b"ed", b"es", b"s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word[:4]


def paired_tokens(data: bytes, start: int, end: int, blank: list[tuple[int, int]]) -> list[tuple[int, bytes]]:
    """The compared tokens (:data:`PAIRED_TOKEN` read by :func:`paired_token`) of
    ``data[start:end]`` with their offsets, in order; a token overlapping one of the ``blank``
    spans (sorted (start, end) pairs: the values themselves, citation markers) left out."""
    if type(data) is not bytes:
        raise TypeError(f"data must be bytes, not {type(data).__name__}")
    found: list[tuple[int, bytes]] = []
    b = 0
    for m in PAIRED_TOKEN.finditer(data, start, end):
        s = m.start()
        while b < len(blank) and blank[b][1] <= s:
            b += 1
        if b < len(blank) and blank[b][0] < m.end():
            continue
        t = paired_token(m[0])
        if t is not None:
            found.append((s, t))
    return found

# What a summary may state that the gate's summary rules read (``summary_leads``): flags, one
# pass over a block for every rule, so a rule reads only the blocks holding its lead
SUMMARY_LEAD_DATE_TIME = 1
SUMMARY_LEAD_RUN_OUTCOME = 2
# (a full date, a time or a host:port: its digits read as 0, its letters as a or A)
_SUMMARY_SHAPES = bytes.maketrans(b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
                                  b"0" * 10 + b"a" * 26 + b"A" * 26)
SUMMARY_DATE_TIME_SHAPES = (b"0:0", b"-00-", b"-0-", b"/00/", b"/0/", b"0 0000", b"0, 0000", b"0 A")
# (the words every run outcome's mark holds, in lower case: "12 passed", "exit code 1", "error TS2345")
SUMMARY_RUN_OUTCOME_WORDS = (b"pass", b"fail", b"rror", b"arn", b"skip", b"xit")


def summary_leads(data: bytes) -> int:
    """The leads ``data`` holds, as flags: :data:`SUMMARY_LEAD_DATE_TIME` when, its ASCII digits
    read as ``0`` and its ASCII letters as ``a`` (lower case) or ``A`` (upper case), it holds one of
    :data:`SUMMARY_DATE_TIME_SHAPES` (a full date, a time or an IPv4 host:port may stand there);
    :data:`SUMMARY_LEAD_RUN_OUTCOME` when, in ASCII lower case, it holds one of
    :data:`SUMMARY_RUN_OUTCOME_WORDS`, or holds any byte from 0x80 (a text whose Unicode lower
    case may spell one: the Kelvin sign's is ``k``)."""
    if type(data) is not bytes:
        raise TypeError(f"data must be bytes, not {type(data).__name__}")
    shape = data.translate(_SUMMARY_SHAPES)
    found = SUMMARY_LEAD_DATE_TIME if any(lead in shape for lead in SUMMARY_DATE_TIME_SHAPES) else 0
    lower = data.lower()
    if not data.isascii() or any(word in lower for word in SUMMARY_RUN_OUTCOME_WORDS):
        found |= SUMMARY_LEAD_RUN_OUTCOME
    return found


def marks_held(data: bytes, marks: tuple[bytes, ...]) -> list[bool]:
    """For each of ``marks`` (a tuple of non-empty bytes), does it occur in ``data``? The
    gate asks a few marks (the opening quotation marks, the no-break spaces) of every text it
    reads for them: one call for all, where a search per mark in Python cost more than the
    searches."""
    if type(data) is not bytes:
        raise TypeError(f"data must be bytes, not {type(data).__name__}")
    check_marks(marks)
    return [mark in data for mark in marks]


def _normalized_with_offsets(data: bytes) -> tuple[bytes, list[int]]:
    """The normalised text and, for each of its bytes plus one past the end, the original
    offset at which that byte's source begins."""
    out = bytearray()
    origin: list[int] = []
    pos = 0
    for run in WHITESPACE_RUN.finditer(data):
        out += data[pos : run.start()]
        origin.extend(range(pos, run.start()))
        out += b" "
        origin.append(run.start())
        pos = run.end()
    out += data[pos:]
    origin.extend(range(pos, len(data)))
    origin.append(len(data))
    return bytes(out), origin


# -- the batch API -----------------------------------------------------------------------------


def find_exact(needles: Sequence[bytes], haystacks: Sequence[bytes]) -> tuple[np.ndarray, np.ndarray]:
    """``(first, count)``: int64 arrays, see the module docstring."""
    needles, haystacks = check_batch(needles, haystacks)
    first = np.full(len(needles), -1, dtype=np.int64)
    count = np.zeros(len(needles), dtype=np.int64)
    for i, (needle, haystack) in enumerate(zip(needles, haystacks)):
        found = occurrences(needle, haystack)
        if found:
            first[i] = found[0]
            count[i] = len(found)
    return first, count


def find_whitespace(
    needles: Sequence[bytes], haystacks: Sequence[bytes]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(start, end, count)``: int64 arrays, see the module docstring."""
    needles, haystacks = check_batch(needles, haystacks)
    start = np.full(len(needles), -1, dtype=np.int64)
    end = np.full(len(needles), -1, dtype=np.int64)
    count = np.zeros(len(needles), dtype=np.int64)
    for i, (needle, haystack) in enumerate(zip(needles, haystacks)):
        pattern = normalize_whitespace(needle)
        text, origin = _normalized_with_offsets(haystack)
        found = occurrences(pattern, text)
        if found:
            start[i] = origin[found[0]]
            end[i] = origin[found[0] + len(pattern)]
            count[i] = len(found)
    return start, end, count


def whitespace_spans(needle: bytes, haystack: bytes, max_spans: int) -> np.ndarray:
    """Original ``(start, end)`` of the first ``max_spans`` normalised occurrences, ``(k, 2)``."""
    check_pair(needle, haystack)
    max_spans = check_max_spans(max_spans)
    pattern = normalize_whitespace(needle)
    text, origin = _normalized_with_offsets(haystack)
    found = occurrences(pattern, text)[:max_spans]
    spans = np.empty((len(found), 2), dtype=np.int64)
    for k, at in enumerate(found):
        spans[k, 0] = origin[at]
        spans[k, 1] = origin[at + len(pattern)]
    return spans


def exact_spans(needle: bytes, haystack: bytes, start: int, max_spans: int) -> np.ndarray:
    """Offsets of the first ``max_spans`` occurrences at or after ``start``, ``(k,)``."""
    check_pair(needle, haystack)
    start = check_start(start)
    max_spans = check_max_spans(max_spans)
    found = []
    at = haystack.find(needle, start)
    while at >= 0 and len(found) < max_spans:
        found.append(at)
        at = haystack.find(needle, at + 1)
    return np.array(found, dtype=np.int64)


def longest_prefix(needles: Sequence[bytes], haystacks: Sequence[bytes]) -> tuple[np.ndarray, np.ndarray]:
    """``(length, at)``: int64 arrays, see the module docstring."""
    needles, haystacks = check_batch(needles, haystacks)
    length = np.zeros(len(needles), dtype=np.int64)
    at = np.full(len(needles), -1, dtype=np.int64)
    for i, (needle, haystack) in enumerate(zip(needles, haystacks)):
        # occurring is monotone in the prefix length, so the largest L is found by bisection
        lo, hi = 0, len(needle)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if needle[:mid] in haystack:
                lo = mid
            else:
                hi = mid - 1
        length[i] = lo
        if lo:
            at[i] = haystack.find(needle[:lo])
    return length, at


# -- diff runs (the gate's diff-direction rule) -----------------------------------------------


def check_diff_runs(lines: Any, line_sides: Any, places: Any, tokens: Any, p: Any, reach: Any, limit: Any,
                    best: Any) -> None:
    """The arguments of :func:`diff_runs` but its places (each read as it is compared)."""
    for name, value in (("lines", lines), ("line_sides", line_sides), ("tokens", tokens), ("best", best)):
        if type(value) is not list:
            raise TypeError(f"{name} must be a list, not {type(value).__name__}")
    if type(places) is not list and type(places) is not tuple:
        raise TypeError(f"places must be a list or a tuple, not {type(places).__name__}")
    if len(best) != 3 or not all(type(b) is tuple and len(b) == 3 and all(type(x) is int and 0 <= x < 1 << 62 for x in b)
                                 for b in best):
        raise InvalidArgumentError("best must hold three (length, start, end) tuples of non-negative ints",
                                   argument="best")
    for name, value in (("reach", reach), ("limit", limit)):
        if type(value) is not int or value < 0:
            raise InvalidArgumentError(f"{name} must be a non-negative int, not {value!r}", argument=name)
    if type(p) is not int or not 0 <= p < len(tokens):
        raise InvalidArgumentError(f"p must be a place of tokens, not {p!r}", argument="p")


def check_diff_place(j: int, place: Any, lines: list[Any], line_sides: list[Any]) -> tuple[list[Any], int, int]:
    """``places[j]`` as :func:`diff_runs` reads it: its line's tokens, its place, its side."""
    if type(place) is tuple and len(place) == 2 and type(place[0]) is int and type(place[1]) is int:
        k, at = place
        if 0 <= k < len(lines) and k < len(line_sides) and type(lines[k]) is list and 0 <= at < len(lines[k]) \
                and type(line_sides[k]) is int and 0 <= line_sides[k] <= 2:
            return lines[k], at, line_sides[k]
    raise InvalidArgumentError(f"places[{j}] must be a (line, place) of lines whose side is 0, 1 or 2, not {place!r}",
                               argument="places")


def diff_runs(lines: list[list[str]], line_sides: list[int], places: Sequence[tuple[int, int]], tokens: list[str],
              p: int, reach: int, limit: int, best: list[tuple[int, int, int]]) -> None:
    """See the module's docstring (diff runs); ``best`` is updated in place."""
    check_diff_runs(lines, line_sides, places, tokens, p, reach, limit, best)
    n = len(tokens)
    for j in range(min(limit, len(places))):
        line, at, side = check_diff_place(j, places[j], lines, line_sides)
        size = len(line)
        left = 0
        while left < reach and at - left > 0 and p - left > 0 and line[at - left - 1] == tokens[p - left - 1]:
            left += 1
        right = 0
        while right < reach and at + right + 1 < size and p + right + 1 < n and line[at + right + 1] == tokens[p + right + 1]:
            right += 1
        length = left + right + 1
        if length > best[side][0]:
            best[side] = (length, p - left, p + right + 1)


__all__ = [
    "IMPLEMENTATION",
    "WHITESPACE",
    "WHITESPACE_CODEPOINTS",
    "WHITESPACE_RUN",
    "aside_leads",
    "bare_name_line_leads",
    "diff_runs",
    "exact_spans",
    "find_exact",
    "find_whitespace",
    "longest_prefix",
    "normalize_whitespace",
    "paired_leads",
    "paired_tokens",
    "summary_leads",
    "unit_leads",
    "version_word_leads",
    "whitespace_spans",
]
