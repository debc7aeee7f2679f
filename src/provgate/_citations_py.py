"""Citation scanner, pure-Python reference: the executable specification of how an answer's
quotations, citation markers and unmarked quotes are found.

The rules are written down for humans in ``docs/reconstruction.md`` and in the docstring of
``provgate.reconstruct`` ("Citations in an answer"); this module is those rules as code, and
the native scanner ``provgate._ext.citations`` must return identical arrays for every input.
Where the two could disagree, this module decides.

``scan(data)`` takes the answer's UTF-8 bytes and returns four int64 arrays (offsets are byte
offsets, ends exclusive):

``quotes``    ``(n, 5)``: ``start, end, form, seg_lo, seg_hi`` of each quotation that carries a
              marker group, in the order of the groups. ``form`` indexes :data:`FORMS`. The
              quotation's text is ``data[start:end]``, except when ``seg_lo < seg_hi``
              (blockquotes, and inline quotations over ``>`` lines): then it is the segments
              ``segments[seg_lo:seg_hi]``, each joined to the next by the line ending that
              follows it (``\\n`` or ``\\r\\n``). An ``unreadable`` quotation's span is for
              the report only.
``markers``   ``(m, 3)``: ``quote, start, end`` of every marker that is not inside a fenced code
              block, in text order; ``quote`` is the row of the quotation the marker's group
              carries, or -1 for a bare marker. A group that carries several quotations (those
              of its sentence: ``"X" and "Y" [src:a]``) gives each of its markers one row per
              quotation, the quotations in text order. The name is ``data[start + 5 : end - 1]``.
``segments``  ``(k, 2)``: ``start, end`` of the lines of blockquotes (of ``quotes`` and
              ``unmarked``).
``unmarked``  ``(u, 5)``: quotations without a marker, same columns as ``quotes``, sorted by
              ``(start, end, form)``.

The scanner assumes valid UTF-8 (the caller validates) but terminates and stays in bounds on
any bytes.
"""

from __future__ import annotations

import bisect
import functools
import re
from typing import Any

import numpy as np

from provgate._search_py import WHITESPACE

IMPLEMENTATION = "reference"

FORMS: tuple[str, ...] = (
    "double", "curly", "single", "curly_single", "backtick", "blockquote", "fence", "unreadable",
    "guillemet", "corner",
)  # fmt: skip
DOUBLE, CURLY, SINGLE, CURLY_SINGLE, BACKTICK, BLOCKQUOTE, FENCE, UNREADABLE, GUILLEMET, CORNER = range(10)

MAX_NAME_BYTES = 256

_NAME = rb"[^\x00-\x20\x7f\[\]]{1,%d}" % MAX_NAME_BYTES
_MARKER = re.compile(rb"\[src:(" + _NAME + rb")\]")
# a group: markers side by side, or listed with a comma or a semicolon (`[src:a], [src:b]`: red
# team 86, F07, the second marker of such a list was a bare marker, which passes)
_GROUP = re.compile(rb"\[src:" + _NAME + rb"\](?:[ \t]*+(?:[,;][ \t]*+)?\[src:" + _NAME + rb"\])*+")
_BLANK_LINE = re.compile(rb"\n[ \t\r]*\n")
_FENCE_LINE = re.compile(rb"^ {0,3}(`{3,}|~{3,})([^\n]*)$", re.M)
_BLOCKQUOTE_PREFIX = re.compile(rb" {0,3}> ?")
_BLOCKQUOTE_LINE = re.compile(rb"^ {0,3}>", re.M)
_COMPARED = frozenset(b"=<+-.0123456789")  # after a `>`, what makes it a comparison (_prefix_end)
_ONLY_WHITESPACE = re.compile(b"(?:" + b"|".join(re.escape(w) for w in WHITESPACE) + b")*+")
# the openers of _unmarked_pairs: " “ „ 「 『
_OPENER = re.compile(rb'"|\xe2\x80[\x9c\x9e]|\xe3\x80[\x8c\x8e]')
_WHITESPACE_BYTES = frozenset(b" \t\n\r\x0b\x0c")
_ASCII_ALNUM = frozenset(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
# Words that follow a word-initial apostrophe (`'em`, `'til`, `rock 'n' roll`); a `'` or `‘`
# before one of them, or before a digit (`'90s`), may be an apostrophe rather than an opener.
_ELISIONS = (b"em", b"til", b"tis", b"twas", b"cause", b"cos", b"cuz", b"bout", b"n")
# roles of a single quotation mark in a pairing (_single_opener)
_OPENS, _MAY_OPEN, _CLOSES, _MAY_CLOSE = range(4)
_CURLY_OPEN, _CURLY_CLOSE = "\u201c".encode(), "\u201d".encode()
_CURLY_SINGLE_OPEN, _CURLY_SINGLE_CLOSE = "\u2018".encode(), "\u2019".encode()
_BACKTICK_RUN = re.compile(rb"`+")
_LOW_DOUBLE, _LOW_SINGLE = "\u201e".encode(), "\u201a".encode()  # „ ‚
_LEFT_GUILLEMET, _RIGHT_GUILLEMET = "\u00ab".encode(), "\u00bb".encode()  # « »
_LEFT_SINGLE_GUILLEMET, _RIGHT_SINGLE_GUILLEMET = "\u2039".encode(), "\u203a".encode()  # ‹ ›
_LEFT_CORNER, _RIGHT_CORNER = "\u300c".encode(), "\u300d".encode()  # 「 」
_LEFT_WHITE_CORNER, _RIGHT_WHITE_CORNER = "\u300e".encode(), "\u300f".encode()  # 『 』
# What may stand between a closing delimiter and its marker group: blanks, punctuation that
# ends a clause, parentheses, brackets, dashes, emphasis (`*"…"*`), and the spaces and marks a
# keyboard, a model or a bidirectional editor leaves (no-break, zero-width, bidi marks, soft
# hyphen). Each of these made a bare marker, which passes (red team 84, F04; red team 86, F05
# and F06: `「…」。[src:a]`, `“…”，[src:a]` and an RLM were still bare). The clause punctuation
# of CJK (ideographic and fullwidth), Arabic, Greek and Devanagari script counts like ASCII's.
# One line break may be crossed too, unless the line above is a `>` line or a fence line
# (the group then carries the blockquote or the fenced block).
_GAP_BYTES = frozenset(b" \t\r\x0b\x0c()[*_.,;:!?-")
_GAP_CHARS = frozenset(
    c.encode()
    for c in (
        "\u0085\u00a0\u00ad"  # next line, no-break space, soft hyphen
        "\u037e\u0387"  # Greek question mark, ano teleia
        "\u060c\u061b\u061c\u061f\u06d4"  # Arabic comma, semicolon, letter mark, question mark, full stop
        "\u0964\u0965"  # danda, double danda
        "\u1680\u2028\u2029\u202f\u205f\u2060\u3000\ufeff"  # spaces, separators, joiners
        "\u2013\u2014\u2026"  # en dash, em dash, ellipsis
        "\u3001\u3002"  # ideographic comma and full stop
        "\uff01\uff08\uff09\uff0a\uff0c\uff0e\uff1a\uff1b\uff1f\uff3f\uff61\uff64"  # fullwidth and halfwidth
    )
) | frozenset(chr(c).encode() for c in [*range(0x2000, 0x2010), *range(0x202A, 0x202F), *range(0x2066, 0x206A)])
# the gap that leaves a quotation at the end of a blockquote's line its group's (_inline):
# blanks, `( ) * _`, ASCII clause punctuation, and the no-break, Unicode and zero-width spaces
# (red team 88, F05: a no-break space before the group sent the line to the blockquote form)
_PLAIN_GAP_BYTES = b" \t\r()*_.,;:!?"
_PLAIN_GAP_CHARS = frozenset(
    chr(c).encode() for c in (0xA0, 0x1680, *range(0x2000, 0x200E), 0x202F, 0x205F, 0x2060, 0x3000, 0xFEFF)
)
_PLAIN_GAP = re.compile(
    b"(?:[" + re.escape(_PLAIN_GAP_BYTES) + b"]|" + b"|".join(re.escape(c) for c in sorted(_PLAIN_GAP_CHARS)) + b")*+"
)
_GAP_CHARS_2 = frozenset(c for c in _GAP_CHARS if len(c) == 2)
_GAP_CHARS_3 = frozenset(c for c in _GAP_CHARS if len(c) == 3)
# the closing marks a loose claim reads back to (_Scanner._loose): every inline form's but the
# backtick's (code spans name things; they are not quotations of a source), and the single
# marks among them, which are apostrophes too
_CLOSING_MARKS = frozenset(
    c.encode() for c in "\u201d\u201c\u2019\u2018\u203a\u2039\u300d\u300f\u00bb\u00ab"
)  # ” “ ’ ‘ › ‹ 」 』 » «
_SINGLE_MARKS = frozenset(("\u2019".encode(), "\u2018".encode()))
# the rest of a line that introduces a quotation below it, after its group (_Scanner.below)
# (gap only, or words that end in a colon: `[src:a] says:`)
_INTRO_REST = re.compile(rb"[ \t\r:.,;!?)*_\-]*+\n|[^\n]*?(?::|\xef\xbc\x9a)[ \t\r]*+\n")
# how many closing marks after a group the forward claim reads, and before one the loose
# claim reads (_Scanner.forward, _Scanner._loose)
_FORWARD_MARKS = 4
# what ends a sentence, between a group and a quotation it would carry forward (_Scanner.forward)
# (. ! ? before whitespace, so that v1.2 and 3.5 end nothing; 。 ！ ？ always)
_SENTENCE_END = re.compile(rb"[.!?](?=[ \t\r\n\x0b\x0c])|\xe3\x80\x82|\xef\xbc[\x81\x9f]")
# the marks that only open: a group after one (and no closing mark) stands inside a quotation
_OPENING_MARKS = frozenset(c.encode() for c in "\u201e\u201a\u300c\u300e")  # „ ‚ 「 『
# what a guillemet quotation is trimmed of at each end: French sets « and » off by a space
_GUILLEMET_PADDING = (b" ", b"\t", "\u00a0".encode(), "\u202f".encode(), "\u2009".encode())
# openers, for the start of a claim (_before_opener): 2- and 3-byte quotation marks
_OPENERS_2 = frozenset((_LEFT_GUILLEMET, _RIGHT_GUILLEMET))
_OPENERS_3 = frozenset(
    (_CURLY_OPEN, _CURLY_CLOSE, _LOW_DOUBLE, _CURLY_SINGLE_OPEN, _LOW_SINGLE, _LEFT_SINGLE_GUILLEMET,
     _RIGHT_SINGLE_GUILLEMET, _LEFT_CORNER, _LEFT_WHITE_CORNER)
)  # fmt: skip
# an attribution dash before a group (`> — [src:a]`), which is not quoted (red team 86, F09)
_DASHES = ("\u2014".encode(), "\u2013".encode(), b"--", b"-")
# gap bytes that end a clause or close emphasis: quoted at the end of a line's text; and what
# opens a wrapper around a group
_KEPT_BYTES, _WRAP_BYTES = frozenset(b".,;:!?)*_"), frozenset(b"(*_")
# quotation marks in the words before a group below a fenced block: the words may hold the
# quotation the group attributes, so the group claims an unreadable quotation, not the block
# (single quotes are apostrophes too and are left out, as _unmarked_pairs leaves them out)
_DOUBLE_MARK = re.compile(
    b"|".join(re.escape(m) for m in (b'"', _CURLY_OPEN, _CURLY_CLOSE, _LOW_DOUBLE, _LEFT_GUILLEMET,
                                     _RIGHT_GUILLEMET, _LEFT_SINGLE_GUILLEMET, _RIGHT_SINGLE_GUILLEMET,
                                     _LEFT_CORNER, _RIGHT_CORNER, _LEFT_WHITE_CORNER, _RIGHT_WHITE_CORNER))
)  # fmt: skip


def _gap_width_before(data: bytes, lo: int, c: int) -> int:
    """The length of the gap character (``_GAP_BYTES``, ``_GAP_CHARS``) that ends at ``c`` and
    starts at ``lo`` or after, or 0."""
    if c - 1 >= lo and data[c - 1] in _GAP_BYTES:
        return 1
    for width in (2, 3):
        if c - width >= lo and data[c - width : c] in _GAP_CHARS:
            return width
    return 0


def _gap_back(data: bytes, lo: int, c: int) -> int:
    """Where the run of gap characters that ends at ``c`` begins, not before ``lo``."""
    while (width := _gap_width_before(data, lo, c)) > 0:
        c -= width
    return c


def _own_end(data: bytes, text: int, c: int) -> int:
    """Where the text of a line that a group at ``c`` attributes ends, the text starting at
    ``text`` (after the prefixes). Not quoted: what wraps the group or sets it off
    (:func:`_lead_back`: ``> … hour. ([src:a])`` and ``> … hour. *[src:a]*`` quote
    ``… hour.``), then a dash (``—``, ``–``, ``--``, ``-``) at the start of the text or
    after a gap character, with the same before it (``> … hour. — [src:a]``, ``> — [src:a]``);
    and a line whose text is all gap (``([src:a])``) has none. Red team 86, F09: only blanks
    were allowed, so ``> … ([src:a])`` left a bare marker, which passes, and ``> — [src:a]``
    quoted the dash. Clause punctuation and closing emphasis (``. , ; : ! ? ) * _``) stay
    quoted at the end of a line that has other text (``> *… hour.* [src:a]``)."""
    c = _lead_back(data, text, c)
    for dash in _DASHES:
        d = c - len(dash)
        if d >= text and data[d:c] == dash:
            if d == text or _gap_width_before(data, text, d) > 0:
                c = _lead_back(data, text, d)
            break
    return text if _gap_back(data, text, c) == text else c


def _lead_back(data: bytes, lo: int, c: int) -> int:
    """Back from the group at ``c`` (not before ``lo``) over what wraps it and sets it off:
    ``(``, ``*`` and ``_`` right before it (``*[src:a]*``), then the gap characters that are
    not :data:`_KEPT_BYTES`."""
    while c > lo and data[c - 1] in _WRAP_BYTES:
        c -= 1
    while (width := _gap_width_before(data, lo, c)) > 0 and not (width == 1 and data[c - 1] in _KEPT_BYTES):
        c -= width
    return c


def _has_text(data: bytes, start: int, end: int) -> bool:
    """At least one character of ``data[start:end]`` that is not whitespace (the Unicode
    White_Space property, as docs/reconstruction.md defines it: a quotation of no-break
    spaces holds no text; red team 33, 01)."""
    return _ONLY_WHITESPACE.fullmatch(data, start, end) is None


def _prefix_end(data: bytes, start: int, limit: int) -> tuple[int, bool] | None:
    """Where the blockquote prefix (`` {0,3}> ?``) at ``start`` ends within ``[start, limit)``,
    and whether its ``>`` stays in the text; None when there is none. A ``>`` right before
    what makes it a comparison (:data:`_COMPARED`: ``=``, ``<``, a sign, a point or a digit)
    stays in the text, the line still a ``>`` line: ``>= 5 retries [src:a]`` quotes ``>= 5
    retries``, not ``= 5 retries``, which a drifted ``<= 5 retries`` holds (found reviewing
    the mend of red team 84's F07). Any other ``>`` is markup, with the space after it."""
    m = _BLOCKQUOTE_PREFIX.match(data, start, limit)
    if m is None:
        return None
    end = m.end()
    if data[end - 1] == 0x20 or end >= limit or data[end] not in _COMPARED:
        return end, False
    return end - 1, True


def _prefixes(data: bytes, start: int, limit: int) -> tuple[int, int]:
    """``(depth, end)``: how many blockquote prefixes follow one another from ``start``
    within ``[start, limit)`` — one per level of nesting, ``> > x`` has two — and where the
    last one ends (``start`` when there is none; at a ``>`` that stays: :func:`_prefix_end`)."""
    depth, end = 0, start
    while (found := _prefix_end(data, end, limit)) is not None:
        depth, (end, kept) = depth + 1, found
        if kept:
            break
    return depth, end


def _strip_prefixes(data: bytes, start: int, limit: int, levels: int) -> int:
    """Where the first ``levels`` blockquote prefixes from ``start`` end (all of them when the
    line has fewer)."""
    end = start
    for _ in range(levels):
        found = _prefix_end(data, end, limit)
        if found is None:
            break
        end, kept = found
        if kept:
            break
    return end


def _shared_depth(data: bytes, rows: list[tuple[int, int]], depth: int = 0) -> int:
    """The nesting that the lines ``rows`` (``(start, end)`` of each, prefixes included) that
    hold text after all their prefixes share, and ``depth`` unless it is 0: the least depth
    among them, so ``> > a`` / ``> > b`` quotes ``a`` and ``b`` (red team 84, F07: the inner
    ``> `` was quoted) and ``> a`` / ``> > b`` quotes ``a`` and ``> b``, as an answer quoting a
    mail that quotes another does. Lines with no text, and lines with no prefix, do not count;
    1 when none is left."""
    for start, end in rows:
        d, text = _prefixes(data, start, end)
        if d and _has_text(data, text, end) and (depth == 0 or d < depth):
            depth = d
    return depth or 1


def _before_opener(data: bytes, line_start: int, start: int) -> int:
    """Where the opening delimiter of the quotation that starts at ``start`` begins (a claim
    starts at its quotation's first byte): before a curly opener, a run of backticks, or one
    straight quote; never before ``line_start``."""
    if start - 3 >= line_start and data[start - 3:start] in _OPENERS_3:
        return start - 3
    if start - 2 >= line_start and data[start - 2:start] in _OPENERS_2:
        return start - 2
    if start - 1 >= line_start and data[start - 1] == 0x60:
        while start - 1 >= line_start and data[start - 1] == 0x60:
            start -= 1
        return start
    if start - 1 >= line_start and data[start - 1] in (0x22, 0x27):
        return start - 1
    return max(start, line_start)


# Every quotation mark of every form, and those a model may mix in (‛ ‟ 〝 〞 〟 and the
# fullwidth ＂ ＇): a `"` after a digit is a unit (27") only when none of them stands since the
# search bound (red team 86, F02: „…9" and «…9" were inch marks, bare markers that pass). A `'`
# or `’` right after an ASCII letter or digit is an apostrophe or a closer and does not count:
# `It's 27"` stays a unit.
_ANY_QUOTE_MARK = re.compile(
    rb"[\"`]|\xc2[\xab\xbb]|\xe2\x80[\x98\x9a-\x9f\xb9\xba]|\xe3\x80[\x8c-\x8f\x9d-\x9f]|\xef\xbc[\x82\x87]"
    rb"|(?<![0-9A-Za-z])(?:'|\xe2\x80\x99)"
)


# what _Scanner._open_before counts: each mark's counter and step (the corners' openers up,
# their closers down)
_TALLY = {
    b'"': (0, 1), _CURLY_OPEN: (1, 1), _CURLY_CLOSE: (1, 1), _LOW_DOUBLE: (1, 1), _LEFT_GUILLEMET: (2, 1),
    _RIGHT_GUILLEMET: (2, 1), _LEFT_SINGLE_GUILLEMET: (3, 1), _RIGHT_SINGLE_GUILLEMET: (3, 1),
    _LEFT_CORNER: (4, 1), _RIGHT_CORNER: (4, -1), _LEFT_WHITE_CORNER: (5, 1), _RIGHT_WHITE_CORNER: (5, -1),
}  # fmt: skip
_TALLIED = re.compile(b"|".join(re.escape(m) for m in _TALLY))


def _is_measure(data: bytes, lo: int, close: int) -> bool:
    """Is the ``"`` at ``close``, with no ``"`` before it since ``lo``, a unit after a number
    (``27"``) as far as its paragraph tells: right after an ASCII digit, and no quotation mark
    of any kind since ``lo`` (:data:`_ANY_QUOTE_MARK`) that could open a quotation of another
    style (``“… 5"`` and ``„… 5"`` are unreadable)? The text before ``lo`` is asked too
    (:meth:`_Scanner._open_before`)."""
    return close > lo and 0x30 <= data[close - 1] <= 0x39 and _ANY_QUOTE_MARK.search(data, lo, close) is None


# what each opener of _OPENER is closed by, and the form of the pair
_UNMARKED_CLOSERS: dict[bytes, tuple[re.Pattern[bytes], int]] = {
    b'"': (re.compile(b'"'), DOUBLE),
    _CURLY_OPEN: (re.compile(re.escape(_CURLY_CLOSE)), CURLY),
    _LOW_DOUBLE: (re.compile(re.escape(_CURLY_OPEN) + b"|" + re.escape(_CURLY_CLOSE)), CURLY),  # „…“ „…”
    _LEFT_CORNER: (re.compile(re.escape(_RIGHT_CORNER)), CORNER),
    _LEFT_WHITE_CORNER: (re.compile(re.escape(_RIGHT_WHITE_CORNER)), CORNER),
}


def _unmarked_pairs(data: bytes, a: int, b: int) -> list[tuple[int, int, int, int, int]]:
    """The quotations of the paragraph ``[a, b)`` that pair without doubt, paired left to
    right: (start, end, form, match start, match end). A ``"`` opens a quotation closed by the
    next ``"``, a ``“`` one closed by the next ``”``, a ``„`` one closed by the next ``“`` or
    ``”``, a ``「`` or ``『`` one closed by the next ``」`` or ``』`` (guillemets, single quotes
    and backticks are left out: which of their marks opens depends on the language, and
    apostrophes and code spans are everywhere). An opener with no closer ahead quotes nothing,
    and the scan goes on right after it. Once a closer is found missing, the openers after it
    are not searched again: an answer of unclosed openers is read once, not once per opener
    (red team 33, 04: 40,000 unclosed “ took 6 s natively)."""
    out = []
    unclosed: set[bytes] = set()  # the openers with no closer left in the paragraph
    pos = a
    while True:
        m = _OPENER.search(data, pos, b)
        if m is None:
            return out
        i, opener = m.start(), m.group()
        closer, form = _UNMARKED_CLOSERS[opener]
        found = None if opener in unclosed else closer.search(data, m.end(), b)
        if found is None:
            unclosed.add(opener)
            pos = i + 1
            continue
        out.append((m.end(), found.start(), form, i, found.end()))
        pos = found.end()


def _trim_padding(data: bytes, start: int, end: int) -> tuple[int, int]:
    """``[start, end)`` without the spaces that set a guillemet quotation off (``« a »``)."""
    moved = True
    while moved:
        moved = False
        for pad in _GUILLEMET_PADDING:
            if data.startswith(pad, start, end):
                start += len(pad)
                moved = True
            if end - len(pad) >= start and data.endswith(pad, start, end):
                end -= len(pad)
                moved = True
    return start, end


def _word_starting(data: bytes, i: int) -> bool:
    """Whether the character at ``i`` is a word character: an ASCII letter or digit, or a
    character from U+00C0 to U+1FFF other than U+00D7 and U+00F7 (the Latin, Greek, Cyrillic,
    Armenian, Hebrew, Arabic, Indic and the other alphabetic blocks). ``_``, the rest of ASCII,
    U+0080-U+00BF (the no-break space, « », ¡ ¿), everything from U+2000 on (punctuation,
    symbols, CJK, fullwidth forms) and malformed UTF-8 are not: a ``'`` beside them opens or
    closes (red team 86, F01: every byte >= 0x80 and ``_`` counted, so the ``'`` of ``—'…'``,
    ``他说'…'`` or ``_'…'_`` was an apostrophe and the marker bare)."""
    b = data[i:i + 3]
    if not b:
        return False
    x = b[0]
    if x < 0x80:
        return x in _ASCII_ALNUM
    if 0xC3 <= x <= 0xDF:
        return len(b) >= 2 and 0x80 <= b[1] <= 0xBF and not (x == 0xC3 and b[1] in (0x97, 0xB7))
    if x == 0xE0 or x == 0xE1:
        return len(b) == 3 and (0xA0 if x == 0xE0 else 0x80) <= b[1] <= 0xBF and 0x80 <= b[2] <= 0xBF
    return False


def _word_ending(data: bytes, end: int) -> bool:
    """Whether the character that ends at ``end`` is a word character (:func:`_word_starting`)."""
    if end <= 0:
        return False
    x = data[end - 1]
    if x < 0x80:
        return x in _ASCII_ALNUM
    if x > 0xBF or end < 2:
        return False
    y = data[end - 2]
    if 0xC3 <= y <= 0xDF:
        return not (y == 0xC3 and x in (0x97, 0xB7))
    if end < 3 or not 0x80 <= y <= 0xBF:
        return False
    z = data[end - 3]
    return (z == 0xE0 and y >= 0xA0) or z == 0xE1


def _elided(data: bytes, i: int) -> bool:
    """Whether the text at ``i`` (after a ``'`` or ``‘`` that could open) is what a
    word-initial apostrophe elides: a digit (``'90s``) or one of :data:`_ELISIONS`, any case,
    ending the word (``'em``, ``'Tis``, ``'n'``)."""
    x = data[i:i + 1]
    if x.isdigit():
        return True
    for word in _ELISIONS:
        if data[i:i + len(word)].lower() == word and not _word_starting(data, i + len(word)):
            return True
    return False


def _single_opener(roles: list[tuple[int, int]]) -> tuple[int, bool]:
    """The opener of a closing single quote, from the quotation marks before it since the
    bound, each ``(offset, role)``: ``_OPENS``, ``_MAY_OPEN`` (an opener or a word-initial
    apostrophe: ``'90s``), ``_CLOSES``, ``_MAY_CLOSE`` (a closer or a possessive: ``users'``).
    A reading gives each mark one of its roles so that the marks pair (nesting) and the last
    closer pairs with an opener of its own; the opener is the one every reading agrees on.
    Returns ``(opener, False)``; ``(-1, True)`` when readings disagree or none pairs (the
    quotation is unreadable); ``(-1, False)`` when no mark can open.

    An opener ``o`` is possible when the marks before it can all pair (depth 0 reachable)
    and those after it can pair among themselves. The depths a run of marks can reach form
    an interval, so two passes over the marks decide it for every ``o`` (linear). Red team
    86, F04 and F11: left-to-right pairing with a fallback to the earliest opener reached
    back over a closed pair (`It's 'fine' and 'Users' sessions…'`, an honest quote graded
    not_found), or took ``'90s`` after a possessive for the opener (`'The users' limit was 9
    in the '90s'`, only ``90s`` checked)."""
    possible = set()
    lo, hi = 0, 0  # depths the marks so far can leave open
    for at, role in roles:
        if role <= _MAY_OPEN and lo == 0:
            possible.add(at)
        if role == _OPENS:
            lo, hi = lo + 1, hi + 1
        elif role == _MAY_OPEN:
            hi += 1
        elif role == _CLOSES:
            if hi == 0:
                break  # a closer nothing can have opened: no later opener is possible
            lo, hi = max(lo - 1, 0), hi - 1
        else:
            lo = max(lo - 1, 0)
    opener, count = -1, 0
    lo, hi = 0, 0  # closers after a mark that openers before them must pair with
    for at, role in reversed(roles):
        if role <= _MAY_OPEN and lo == 0 and at in possible:
            opener, count = at, count + 1
            if count > 1:
                break
        if role == _CLOSES:
            lo, hi = lo + 1, hi + 1
        elif role == _MAY_CLOSE:
            hi += 1
        elif role == _OPENS:
            if hi == 0:
                break  # an opener nothing after it closes
            lo, hi = max(lo - 1, 0), hi - 1
        else:
            lo = max(lo - 1, 0)
    if count == 1:
        return opener, False
    return -1, any(role <= _MAY_OPEN for _, role in roles)


@functools.cache
def _marks_pattern(closer: bytes, openers: tuple[bytes, ...]) -> re.Pattern[bytes]:
    return re.compile(b"|".join(re.escape(m) for m in (closer, *openers)))


# The closing delimiters of the inline forms that are not ASCII, with the openers each pairs
# with (nesting), whether the closing mark opens too when none of them is there (Swedish
# ”…”, Finnish »…»), and the form. German „…“ and ‚…‘, French « … », German »…«, Swiss ‹…›,
# Japanese and Chinese 「…」 and 『…』 (red team 84, F03: each left a bare marker).
_PAIRS: tuple[tuple[bytes, tuple[bytes, ...], bool, int], ...] = (
    (_CURLY_CLOSE, (_CURLY_OPEN, _LOW_DOUBLE), True, CURLY),
    (_CURLY_OPEN, (_LOW_DOUBLE,), False, CURLY),
    (_CURLY_SINGLE_OPEN, (_LOW_SINGLE,), False, CURLY_SINGLE),
    (_RIGHT_GUILLEMET, (_LEFT_GUILLEMET,), True, GUILLEMET),
    (_LEFT_GUILLEMET, (_RIGHT_GUILLEMET,), False, GUILLEMET),
    (_RIGHT_SINGLE_GUILLEMET, (_LEFT_SINGLE_GUILLEMET,), True, GUILLEMET),
    (_LEFT_SINGLE_GUILLEMET, (_RIGHT_SINGLE_GUILLEMET,), False, GUILLEMET),
    (_RIGHT_CORNER, (_LEFT_CORNER,), False, CORNER),
    (_RIGHT_WHITE_CORNER, (_LEFT_WHITE_CORNER,), False, CORNER),
)


def fence_blocks(data: bytes) -> list[tuple[int, int, int, int]]:
    """``(open_line, content_start, content_end, close_end)`` of each fenced code block of
    ``data``: the offset of the opening fence line, the block's content without its final
    line break (and a ``\\r`` before it), and the end of the closing fence line. Blocks are
    disjoint and in order."""
    fences = []
    opening: tuple[int, int, int, int] | None = None  # line start, content start, char, length
    for m in _FENCE_LINE.finditer(data):
        run, rest = m.group(1), m.group(2)
        if opening is None:
            if run[0] == 0x60 and b"`" in rest:
                continue  # CommonMark: the info string of a backtick fence has no backtick
            opening = (m.start(), min(m.end() + 1, len(data)), run[0], len(run))
        elif run[0] == opening[2] and len(run) >= opening[3] and not rest.strip(b" \t\r"):
            content_start = opening[1]
            content_end = max(m.start() - 1, content_start)
            if content_end > content_start and data[content_end - 1] == 0x0D:
                content_end -= 1
            fences.append((opening[0], content_start, content_end, m.end()))
            opening = None
    if opening is not None:  # an unclosed fence runs to the end of the text, quoting nothing
        fences.append((opening[0], opening[1], opening[1], len(data)))
    return fences


def _mark_width(data: bytes, end: int) -> int:
    """The width of the quotation mark that ends at ``end``: 1 (``"``, ``'``), 2 (``«``,
    ``»``) or 3."""
    if data[end - 1] in (0x22, 0x27):
        return 1
    return 2 if data[end - 2:end] in (_LEFT_GUILLEMET, _RIGHT_GUILLEMET) else 3


class _Scanner:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.segments: list[tuple[int, int]] = []
        self.fences = self._fences()
        # paragraph boundaries: inline quotations never reach back across these offsets
        bounds = [m.start() + 1 for m in _BLANK_LINE.finditer(data)]
        for open_line, _, _, close_end in self.fences:
            bounds.append(open_line)
            bounds.append(close_end)
        self.bounds = sorted(bounds)
        self.fence_ends = [f[3] for f in self.fences]  # fences are disjoint and in order
        self.blockquote_lines = [m.start() for m in _BLOCKQUOTE_LINE.finditer(data)]  # `>` lines
        # the quotations of each paragraph that pair without doubt, paired left to right, in order
        self.pairs: list[tuple[int, int, int, int, int]] = []
        edges = [0, *self.bounds, len(data)]
        for a, b in zip(edges, edges[1:]):
            self.pairs.extend(_unmarked_pairs(data, a, b))
        self.pair_starts = [pair[3] for pair in self.pairs]
        # the quotation marks before an offset, counted once up to where the last group asked
        # (_open_before): the bounds of successive groups never go back
        self.tally_pos = 0
        self.tally = [0] * 6

    # -- structure ---------------------------------------------------------------------------

    def _fences(self) -> list[tuple[int, int, int, int]]:
        return fence_blocks(self.data)

    def in_fence(self, pos: int) -> bool:
        """Whether ``pos`` lies in a fenced block, fence lines included."""
        k = bisect.bisect_right(self.fence_ends, pos)  # the first fence ending after pos
        return k < len(self.fences) and self.fences[k][0] <= pos

    def touches_fence(self, start: int, end: int) -> bool:
        """Whether ``[start, end)`` overlaps a fenced block."""
        k = bisect.bisect_right(self.fence_ends, start)
        return k < len(self.fences) and self.fences[k][0] < end

    def lower_bound(self, pos: int) -> int:
        k = bisect.bisect_right(self.bounds, pos) - 1
        return self.bounds[k] if k >= 0 else 0

    def first_blockquote_line(self, line_start: int) -> int:
        """The start of the first ``>`` line of the paragraph of the line at ``line_start``
        if it is that line or one above it, else -1: the line is then a line of a blockquote,
        a ``>`` line or a lazy continuation (CommonMark; blank lines and fences end a
        paragraph). Any offset of the line may stand for its start."""
        k = bisect.bisect_left(self.blockquote_lines, self.lower_bound(line_start))
        if k < len(self.blockquote_lines) and self.blockquote_lines[k] <= line_start:
            return self.blockquote_lines[k]
        return -1

    def line_start(self, pos: int) -> int:
        return self.data.rfind(b"\n", 0, pos) + 1

    def line_end(self, pos: int) -> int:
        """Offset of the ``\\n`` that ends the line of ``pos``, or the end of the text."""
        end = self.data.find(b"\n", pos)
        return len(self.data) if end < 0 else end

    def groups(self) -> list[tuple[int, int, list[tuple[int, int]]]]:
        """Marker groups: ``(start, end, [(marker start, marker end), ...])``."""
        return [
            (g.start(), g.end(), [m.span() for m in _MARKER.finditer(self.data, g.start(), g.end())])
            for g in _GROUP.finditer(self.data)
        ]

    # -- the quotation a group carries --------------------------------------------------------

    def carried(self, start: int, end: int, previous_end: int) -> tuple[int, int, int, int, int] | None:
        """The quotation carried by the group at ``[start, end)``; ``previous_end`` is the end
        of the group before it (a quotation never contains a marker). A group right after a
        closing delimiter whose quotation cannot be read is carried by an ``unreadable``
        quotation, unless the group also ends a blockquote (whose text, delimiters included,
        is then what it claims)."""
        inline = self._inline(start, previous_end)
        if inline is not None and inline[2] != UNREADABLE:
            return inline
        # (a group right below a fenced block carries it only when no inline quotation claims
        # it: the words before it on its line are not checked with the block; red team 86, F09)
        return (
            self._blockquote(start, end, previous_end)
            or inline
            or self._fenced(start, end, previous_end)
            or self._loose(start, previous_end)
        )

    def _loose(self, group_start: int, previous_end: int) -> tuple[int, int, int, int, int] | None:
        """A group that carries nothing else claims the quotation that the last closing mark
        of its paragraph before it ends, read as if that mark ended the gap (:meth:`_inline_at`,
        every form but the backtick), whatever stands between: ``"…" (see [src:a])``,
        ``« … », selon la documentation [src:a]``, ``「…」と書かれています[src:a]``. Its
        quotation, or ``unreadable``, is then checked, where a bare marker would pass (red
        team 86, F07; red team 87, F01, F03, F12: claiming the last ``"…"`` or ``“…”`` pair
        left other forms bare, and a pairing blind to ``27"`` claimed the text between two
        quotations). A ``'`` or ``’`` between two word characters is an apostrophe and is
        passed over; when the mark read gives nothing (``the users' guide``, ``the '90s``, a
        unit ``27"``), the one before it is read, up to :data:`_FORWARD_MARKS` of them (red team
        88, F07: ``'…', as in the '90s, see [src:a]`` was bare), then the last closing mark
        that is not a single one. Code spans before the group (an even number of backticks, two
        or more, since the bound) are code, not quotations, and are not read past: the read
        starts after their last backtick, and when it gives nothing there but would give a
        quotation before the first, the group carries an ``unreadable`` one (the span may be
        what it quotes, the quotation an earlier term; red team 88, F06: ``The "retry limit":
        `…9…`, the docs say [src:a]`` checked ``retry limit`` and passed; red team 87, F07: the
        ``"users"`` of ``fetch("users")`` was claimed, a false alarm, and a drifted quotation
        before ``retries="3"`` passed)."""
        data = self.data
        c = self._gap_start(group_start)
        lo = max(self.lower_bound(c), previous_end)
        ticks = data.count(b"`", lo, c)
        if ticks >= 2 and ticks % 2 == 0:
            got = self._read_back(data.rfind(b"`", lo, c) + 1, c - 1, previous_end)
            if got is not None:
                return got
            kept = len(self.segments)
            if self._read_back(lo, data.find(b"`", lo, c), previous_end) is None:
                return None
            del self.segments[kept:]  # (what the refused reading left)
            return self._unreadable(lo, c)
        # a mark that ends at c ended the gap, and the inline form read it already
        return self._read_back(lo, c - 1, previous_end)

    def _read_back(self, lo: int, hi: int, previous_end: int) -> tuple[int, int, int, int, int] | None:
        """:meth:`_loose`'s read of the closing marks that end in ``(lo, hi]``, the last first."""
        data = self.data
        end = self._closing_mark_end(lo, hi, True)
        if end < 0:
            return None
        if data[end - 3:end] in _OPENING_MARKS:  # the group stands inside a quotation: „… [src:a]“
            return self._unreadable(lo, end - 3)
        got = self._inline_at(end, previous_end)
        read = end  # (the lowest mark read: none is read twice)
        for _ in range(_FORWARD_MARKS - 1):
            if got is not None:
                break
            # the mark read as nothing (an apostrophe, a unit): the one before it is read
            end = self._closing_mark_end(lo, read - _mark_width(data, read), True)
            if end < 0:
                break
            if data[end - 3:end] in _OPENING_MARKS:
                return self._unreadable(lo, end - 3)
            got = self._inline_at(end, previous_end)
            read = end
        if got is None:  # (past every single mark: the last other closing mark, if not read)
            end = self._closing_mark_end(lo, hi, False)
            if 0 <= end < read:
                got = self._inline_at(end, previous_end)
        return got

    def earlier(self, quote: tuple[int, int, int, int, int], previous_end: int) -> list[tuple[int, int, int, int, int]]:
        """The other quotations a group carries besides ``quote`` (read by form 1 or 4): the
        pairs of its paragraph (:func:`_unmarked_pairs`) that open after the previous group
        and close before ``quote`` opens, in its sentence (no ``.``, ``!``, ``?`` or their
        ideographic and fullwidth forms between the two), a ``"`` that opens one able to open
        (form 1's rule).
        ``"X" and "Y" [src:a]`` and ``“X,” he said, “Y” [src:a]`` claim both quotations from
        ``a`` (red team 87, F02: only ``Y`` was checked, and a drifted ``X`` passed, counted as
        an unmarked quote). None for a blockquote, a fence or an unreadable quotation."""
        if quote[2] in (BLOCKQUOTE, FENCE, UNREADABLE):
            return []
        data = self.data
        lo = max(self.lower_bound(quote[0]), previous_end)
        opener = _before_opener(data, lo, quote[0])
        # the last sentence end before the opener: the pairs that close after it are in the
        # quotation's sentence (one look back, so that many pairs cost no more than one)
        ends = [m.start() for m in _SENTENCE_END.finditer(data, lo, opener)]
        last_end = ends[-1] if ends else -1
        out = []
        k = bisect.bisect_left(self.pair_starts, lo)
        while k < len(self.pairs) and self.pairs[k][4] <= opener:
            start, end, form, opened, closed = self.pairs[k]
            k += 1
            if closed <= last_end:
                continue  # (a quotation of an earlier sentence)
            if data[opened] == 0x22 and not self._can_open(opened):
                continue
            got = self._quoted(start, end, form)
            if got is not None:
                out.append(got)
        return out

    def forward(self, group_end: int, limit: int) -> tuple[tuple[int, int, int, int, int], int] | None:
        """A group that carries nothing, not even by form 4, carries the quotation that opens
        after it in its sentence: ``According to [src:a], "…"``, ``[src:a] states: “…”``,
        ``Selon [src:a], « … »``. The closing marks after the group (:meth:`_next_mark_end`,
        at most :data:`_FORWARD_MARKS` of them, in its paragraph and before the next group,
        ``limit``, or -1) are each read as form 1 reads a closing mark, with the group as the
        bound; the first that gives a quotation gives it, unless a sentence ends between the
        group and its opening mark or the next group stands right after it (whose quotation it
        is by form 1). Returns the quotation and where its closing mark ends (red team 87, F06:
        the next group's form 4 claimed such a quotation and checked it against the wrong
        source, and with no next group it was never checked; red team 88, F02: only the forms
        unmarked quotes pair were read)."""
        data = self.data
        b = bisect.bisect_right(self.bounds, group_end)
        hi = self.bounds[b] if b < len(self.bounds) else len(data)
        if limit >= 0:
            hi = min(hi, limit)
        # what reading leaves behind is undone unless a quotation is claimed: the segments of
        # one refused, and the marks read as units (the next group reads them again)
        kept, tally_pos, tally = len(self.segments), self.tally_pos, list(self.tally)
        e = group_end
        for _ in range(_FORWARD_MARKS):
            e = self._next_mark_end(e, hi)
            if e < 0:
                break
            got = self._inline_at(e, group_end)
            if got is None or got[2] == UNREADABLE:
                continue
            opener = _before_opener(data, group_end, got[0])
            if _SENTENCE_END.search(data, group_end, opener) is None and not (limit >= 0 and self._gap_start(limit) == e):
                return got, e
            break  # (another sentence's, or the next group's by form 1)
        del self.segments[kept:]
        self.tally_pos, self.tally = tally_pos, tally
        return None

    def below(self, group_end: int, limit: int) -> tuple[tuple[int, int, int, int, int], int] | None:
        """A group that carries nothing, not even forward, and ends a line of prose but for gap,
        or with words that end in a colon (``According to [src:a]:``, ``[src:a] says:``), carries the blockquote or fenced block that starts on the
        next line that is not blank: the run of ``>`` lines there (no lazy line), without the
        prefixes its lines share, unless a line of it holds a marker; or the fence's content.
        It must end before the next group (``limit``, or -1). Returns the quotation and where
        the block ends (red team 88, F03: the citation on the line that introduces a quotation
        was bare, and the drifted quotation below it passed)."""
        data = self.data
        # (the line must end before the next group, or the block below it is past that group:
        # bounded so, a line of many groups is read once, not once per group)
        m = _INTRO_REST.match(data, group_end, limit if limit >= 0 else len(data))
        if m is None or self.first_blockquote_line(group_end) >= 0:
            return None  # (a line of a blockquote introduces nothing: it is the blockquote's)
        pos = m.end()
        while True:  # (past blank lines)
            le = self.line_end(pos)
            if data[pos:le].strip(b" \t\r"):
                break
            if le >= len(data):
                return None
            pos = le + 1
        k = bisect.bisect_right(self.fence_ends, pos)
        if k < len(self.fences) and self.fences[k][0] == pos:
            _, content_start, content_end, close_end = self.fences[k]
            if (limit >= 0 and close_end > limit) or not _has_text(data, content_start, content_end):
                return None
            return (content_start, content_end, FENCE, 0, 0), close_end
        if not _BLOCKQUOTE_PREFIX.match(data, pos, le) or self.in_fence(pos):
            return None
        rows, end = self._quote_run(pos)
        if (limit >= 0 and end > limit) or _MARKER.search(data, pos, end):
            return None
        depth = _shared_depth(data, [(row, self.line_end(row)) for row in rows])
        lines = [self._row_text(row, depth) for row in rows]
        if not any(_has_text(data, a, b) for a, b in lines):
            return None
        return self._with_segments(lines), end

    def _quote_run(self, first: int) -> tuple[list[int], int]:
        """The run of ``>`` lines from the line at ``first`` (a ``>`` line): the start of each,
        and the end of the last (no lazy line)."""
        data = self.data
        rows = [first]
        end = self.line_end(first)
        while end < len(data) and _BLOCKQUOTE_PREFIX.match(data, end + 1, self.line_end(end + 1)):
            rows.append(end + 1)
            end = self.line_end(end + 1)
        return rows, end

    def _row_text(self, row: int, depth: int) -> tuple[int, int]:
        """The text of the ``>`` line at ``row`` without ``depth`` prefixes and its ``\\r``."""
        text_end = self.line_end(row)
        text_start = _strip_prefixes(self.data, row, text_end, depth)
        if text_end > text_start and self.data[text_end - 1] == 0x0D:
            text_end -= 1
        return text_start, text_end

    def _next_mark_end(self, lo: int, hi: int) -> int:
        """The end of the first closing mark (``"``, ``'`` not between two word characters, or
        one of :data:`_CLOSING_MARKS`) that starts at ``lo`` or after and ends by ``hi``, or -1."""
        data = self.data
        i = lo
        while i < hi:
            x = data[i]
            if x == 0x22:
                return i + 1
            if x == 0x27:
                if not (_word_ending(data, i) and _word_starting(data, i + 1)):
                    return i + 1
            elif i + 3 <= hi and data[i:i + 3] in _CLOSING_MARKS:
                if data[i:i + 3] not in _SINGLE_MARKS or not (_word_ending(data, i) and _word_starting(data, i + 3)):
                    return i + 3
                i += 3
                continue
            elif i + 2 <= hi and data[i:i + 2] in _CLOSING_MARKS:
                return i + 2
            i += 1
        return -1

    def _closing_mark_end(self, lo: int, hi: int, singles: bool) -> int:
        """The end of the last mark of :data:`_CLOSING_MARKS` or :data:`_OPENING_MARKS` that
        ends in ``(lo, hi]``, or -1; single marks (``'``, ``’``, ``‘``) only when ``singles``, and then not between two
        word characters (``doesn't``)."""
        data = self.data
        e = hi
        while e > lo:
            if data[e - 1] == 0x22:
                return e
            if data[e - 1] == 0x27:
                if singles and not (_word_ending(data, e - 1) and _word_starting(data, e)):
                    return e
            elif e - 3 >= lo and data[e - 3:e] in _OPENING_MARKS:
                return e
            elif e - 3 >= lo and data[e - 3:e] in _CLOSING_MARKS:
                if data[e - 3:e] not in _SINGLE_MARKS:
                    return e
                if singles and not (_word_ending(data, e - 3) and _word_starting(data, e)):
                    return e
            elif e - 2 >= lo and data[e - 2:e] in _CLOSING_MARKS:
                return e
            e -= 1
        return -1

    def _gap_start(self, group_start: int) -> int:
        """Where the gap before the group at ``group_start`` begins: back over the bytes and
        characters of ``_GAP_BYTES`` and ``_GAP_CHARS`` and at most one line break, which is
        not crossed into a ``>`` line or a fence line."""
        data = self.data
        c = group_start
        crossed = False
        while c > 0:
            if data[c - 1] in _GAP_BYTES:
                c -= 1
            elif c >= 2 and data[c - 2:c] in _GAP_CHARS_2:
                c -= 2
            elif c >= 3 and data[c - 3:c] in _GAP_CHARS_3:
                c -= 3
            elif data[c - 1] == 0x0A and not crossed:
                above = self.line_start(c - 1)
                if _BLOCKQUOTE_LINE.match(data, above) or self.in_fence(above):
                    break
                crossed = True
                c -= 1
            else:
                break
        return c

    def _inline(self, group_start: int, previous_end: int) -> tuple[int, int, int, int, int] | None:
        data = self.data
        c = self._gap_start(group_start)
        if _PLAIN_GAP.fullmatch(data, c, group_start) is not None:
            return self._inline_at(c, previous_end)
        first = self.first_blockquote_line(group_start)
        if first < 0:
            return self._inline_at(c, previous_end)
        # On a line of a blockquote, a dash, an ellipsis, the punctuation of other scripts or
        # another line between a quotation and the group attribute the blockquote: it is what
        # the group claims, not the quotation at the end of its line (red team 87, F15:
        # `> drifted … (the "term") — [src:a]` checked the term alone). Unless the quotation
        # is all the blockquote's text since the previous group: `> “…” — [src:a]` checks the
        # text inside the marks (red team 88, F05: the marks were quoted, an honest not_found).
        kept = len(self.segments)
        got = self._inline_at(c, previous_end)
        if got is None or got[2] == UNREADABLE:
            return got
        lo = max(first, previous_end)
        opened = got[0]
        while got[2] == GUILLEMET and (pad := next((p for p in _GUILLEMET_PADDING if data.endswith(p, lo, opened)), None)):
            opened -= len(pad)  # (the spaces French sets inside « »)
        opener = _before_opener(data, lo, opened)
        text = _prefixes(data, lo, opener)[1] if lo == first else lo
        if _has_text(data, text, opener):
            del self.segments[kept:]
            return None
        return got

    def _inline_at(self, c: int, previous_end: int) -> tuple[int, int, int, int, int] | None:
        """The inline quotation whose closing delimiter ends at ``c``."""
        data = self.data
        if c == 0:
            return None
        lo = max(self.lower_bound(c), previous_end)
        if c <= lo:
            return None
        last = data[c - 1]
        if last == 0x22:  # "
            close = c - 1
            opener = data.rfind(b'"', lo, close)
            if opener < 0 and _is_measure(data, lo, close) and not self._open_before(lo):
                # 27" is an inch mark, no quotation (red team 84, F06), and not counted as one
                # when a later group asks what is open before it
                self.tally[0] -= 1
                return None
            if opener < 0 or not self._can_open(opener):
                return self._unreadable(lo, close)  # nested or mixed quotes, or no opener
            return self._between(opener, 1, close, DOUBLE) or self._unreadable(lo, close)
        if last == 0x60:  # `
            return self._backtick(lo, c) or self._unreadable(lo, c - 1)
        if last == 0x27:  # '
            return self._single(lo, c)
        tail3, tail2 = data[c - 3:c], data[c - 2:c]
        if tail3 == _CURLY_SINGLE_CLOSE:
            return self._curly_single(lo, c - 3)
        for closer, openers, same, form in _PAIRS:
            width = len(closer)
            if (tail3 if width == 3 else tail2) != closer:
                continue
            close = c - width
            opener = self._nested_opener(lo, close, closer, openers)
            if opener < 0 and same:
                opener = self._same_mark_opener(lo, close, closer, openers)  # Swedish ”…”, Finnish »…»
            width = 3 if opener >= 0 and data[opener] >= 0xE0 else 2
            return self._between(opener, width, close, form) or self._unreadable(lo, close)
        return None

    def _nested_opener(self, lo: int, close: int, closer: bytes, openers: tuple[bytes, ...]) -> int:
        """The opener that the ``closer`` at ``close`` closes, the pair nesting (``“a “b” c”``):
        back from ``close`` to the opener that brings the depth to zero, or -1."""
        data = self.data
        marks = _marks_pattern(closer, openers)
        depth = 1
        for m in reversed(list(marks.finditer(data, lo, close))):
            depth += 1 if m.group() == closer else -1
            if depth == 0:
                return m.start()
        return -1

    def _same_mark_opener(self, lo: int, close: int, closer: bytes, openers: tuple[bytes, ...]) -> int:
        """The mark that opens the quotation the same mark at ``close`` ends (Swedish ``”…”``,
        Finnish ``»…»`` and ``›…›``) when no opener of the pair is still open before it, or -1.
        The marks since ``lo`` are paired left to right: an opener of the pair and the closer
        that balances it are a quotation of their own (``“A” then ”B” [src:a]`` quotes ``B``:
        red team 86, F04's note; it was unreadable when any ``“`` stood since the bound); each
        other same mark opens when none is open, by the rules of a straight ``"`` (not after an
        ASCII letter or digit, not followed by whitespace), and closes the open one when it
        follows text. A mark that can do neither, or a closing mark with none open, leaves no
        opener: the nearest earlier same mark was taken before, and an inch mark (``27”``) or a
        path (``Menü » Datei``) inside the quotation cut it to its tail, the head unchecked
        (red team 86, F10)."""
        data = self.data
        width = len(closer)
        depth = 0  # openers of the pair still open
        opener = -1  # the same mark that opened, while it is open
        for m in _marks_pattern(closer, openers).finditer(data, lo, close):
            at = m.start()
            if m.group() != closer:
                depth += 1
            elif depth > 0:
                depth -= 1
            elif opener < 0:
                if data[at + width] in _WHITESPACE_BYTES or (at > 0 and data[at - 1] in _ASCII_ALNUM):
                    return -1  # it cannot open, and nothing is open for it to close
                opener = at
            elif at > 0 and data[at - 1] in _WHITESPACE_BYTES:
                return -1  # it cannot close, and a same mark inside one cannot open
            else:
                opener = -1
        return opener

    def _open_before(self, lo: int) -> bool:
        """Whether a quotation is left open before ``lo``, where a ``"`` after a digit with no
        quotation mark since ``lo`` would be a unit: an odd number of ``"``, of ``“ ” „`` (two
        to a quotation in English, German, Polish and Swedish), of ``« »`` or of ``‹ ›``, or
        more ``「`` than ``」`` or ``『`` than ``』`` in the text before it. ``"The retry\\n\\nlimit
        is 9" [src:a]`` (a quotation over a blank line) and ``"The limit [src:b] is 9" [src:a]``
        are unreadable, not a unit (red team 86, F02). A ``"`` read as a unit before an earlier
        group does not count; a unit in the prose or a stray mark, in code too, makes the later
        ``27" [src:a]`` unreadable: it fails closed."""
        if lo < self.tally_pos:  # (a bound never goes back; recounted if it did)
            self.tally_pos, self.tally = 0, [0] * 6
        data, pos, tally = self.data, self.tally_pos, self.tally
        if lo - pos > 256:  # (counted mark by mark: a list of every mark of a long text is not made)
            for mark, (k, step) in _TALLY.items():
                tally[k] += step * data.count(mark, pos, lo)
        else:
            for mark in _TALLIED.findall(data, pos, lo):
                k, step = _TALLY[mark]
                tally[k] += step
        self.tally_pos = lo
        return bool(tally[0] % 2 or tally[1] % 2 or tally[2] % 2 or tally[3] % 2 or tally[4] > 0 or tally[5] > 0)

    def _can_open(self, at: int) -> bool:
        """Whether the ``"`` at ``at`` can open a quotation: it does not follow an ASCII
        letter or digit and is not followed by whitespace. So the
        ``"`` of ``"db.ini" not``, ``"db.ini",`` or ``"db.ini"not`` closes an inner quotation
        and opens nothing (red team 82, F01); ``—"--force"`` and ``："[x]"`` open (red team 84,
        F06: a rule on punctuation after it refused them)."""
        data = self.data
        # (the closing delimiter at the latest follows it)
        return data[at + 1] not in _WHITESPACE_BYTES and not (at > 0 and data[at - 1] in _ASCII_ALNUM)

    def _unreadable(self, lo: int, close: int) -> tuple[int, int, int, int, int]:
        """The quotation of a group right after a closing delimiter at ``close`` whose
        opening delimiter is missing, of the other style, closes an inner quotation, or
        encloses no text: its span runs from the first opening delimiter (``"``, ``“`` or a
        backtick) after ``lo``, or is empty at ``close``. Its citations fail; a claim nobody
        can read is never a bare marker that passes (red team 82, F01)."""
        data = self.data
        starts = [at + len(d) for d in (b'"', _CURLY_OPEN, b"`") if (at := data.find(d, lo, close)) >= 0]
        return (min(starts, default=close), close, UNREADABLE, 0, 0)

    def _between(self, opener: int, opener_len: int, close: int, form: int) -> tuple[int, int, int, int, int] | None:
        if opener < 0:
            return None
        start = opener + opener_len
        if form == GUILLEMET:
            start, close = _trim_padding(self.data, start, close)
        return self._quoted(start, close, form)

    def _quoted(self, start: int, end: int, form: int) -> tuple[int, int, int, int, int] | None:
        """The inline quotation ``[start, end)`` of ``form``, or None if it holds no text. One
        that spans the lines of a blockquote is its lines' text without their ``>`` prefixes,
        as segments (red team 82, F08: the prefixes were quoted and the citation was not
        found)."""
        data = self.data
        lines = self._blockquote_lines(start, end)
        if lines is None:
            return (start, end, form, 0, 0) if _has_text(data, start, end) else None
        if not any(_has_text(data, s, e) for s, e in lines):
            return None
        lo = len(self.segments)
        self.segments.extend(lines)
        return (start, end, form, lo, len(self.segments))

    def _blockquote_lines(self, start: int, end: int) -> list[tuple[int, int]] | None:
        """The text of each line of ``[start, end)`` without its blockquote prefixes, when the
        span crosses a line break and its first line is a ``>`` line; else None. Each later
        line loses the prefixes of the nesting the lines share (:func:`_shared_depth`, the
        first line counting with the prefixes before ``start``); a later line with none is a
        lazy continuation of the quoted paragraph (CommonMark), taken whole (red team 84, F07:
        one such line made the quotation its raw text, the other lines' prefixes and all)."""
        data = self.data
        brk = data.find(b"\n", start, end)
        if brk < 0:
            return None
        first = self.line_start(start)
        depth, _ = _prefixes(data, first, start)
        if depth == 0:
            return None
        rows = []  # the start of each later line
        b = brk
        while b >= 0:
            rows.append(b + 1)
            b = data.find(b"\n", b + 1, end)
        depth = _shared_depth(data, [(row, min(self.line_end(row), end)) for row in rows], depth)
        lines = []
        s = start
        for row in rows:
            e = row - 2 if row - 1 > s and data[row - 2] == 0x0D else row - 1
            lines.append((s, e))
            s = _strip_prefixes(data, row, self.line_end(row), depth)
        lines.append((min(s, end), end))
        return lines

    def _mark_role(self, at: int, width: int) -> int:
        """The role a ``'`` or ``’`` (``width`` bytes) at ``at`` can take: -1 inside a word, an
        apostrophe (``doesn't``, ``don’t``); a closer after a word character, or after text
        and before whitespace, ``_MAY_CLOSE`` after an ``s`` or after the ``n`` that ends a
        longer word (a possessive, ``users'``, or a dropped g, ``goin'``; not the ``n'`` of
        ``rock 'n' roll``); else an opener, ``_MAY_OPEN`` before a digit or an elided word
        (``'90s``, ``'em``: an apostrophe, or an opener)."""
        data = self.data
        after_word = _word_ending(data, at)
        if after_word and _word_starting(data, at + width):
            return -1
        if after_word or (at > 0 and data[at - 1] not in _WHITESPACE_BYTES and data[at + width] in _WHITESPACE_BYTES):
            if data[at - 1] in b"sS" or (data[at - 1] in b"nN" and at > 1 and data[at - 2] in _ASCII_ALNUM):
                return _MAY_CLOSE
            return _CLOSES
        return _MAY_OPEN if _elided(data, at + width) else _OPENS

    def _non_ascii_apostrophe(self, at: int, width: int) -> bool:
        """A mark at ``at`` inside a word only because a character beside it is not ASCII."""
        data = self.data
        return data[at - 1] >= 0x80 or data[at + width] >= 0x80

    def _single(self, lo: int, c: int) -> tuple[int, int, int, int, int] | None:
        """The quotation a closing ``'`` at ``c - 1`` ends: its opener is the one every
        reading of the ``'`` marks since ``lo`` agrees on (:meth:`_mark_role`,
        :func:`_single_opener`); when the readings disagree, or none pairs, it is unreadable.
        With no opener at all the ``'`` is an apostrophe (``the users' [src:a]``: a bare
        marker), unless a quotation of another style is open (:meth:`_unclosed_other`), a
        curly single quote that can open is there (``‘…'``, ``‚…'``; red team 86, F03), or a
        ``'`` was read inside a word only because of a character that is not ASCII (red
        team 86, F01: a fail-safe for scripts the word test does not know)."""
        data = self.data
        close = c - 1
        if close == 0 or data[close - 1] in _WHITESPACE_BYTES:
            return None  # a closing ' follows text
        roles = []
        guessed = False
        at = data.find(b"'", lo, close)
        while at >= 0:
            role = self._mark_role(at, 1)
            if role >= 0:
                roles.append((at, role))
            elif self._non_ascii_apostrophe(at, 1):
                guessed = True
            at = data.find(b"'", at + 1, close)
        return self._paired_single(roles, guessed, lo, close, 1, SINGLE, self._curly_single_opens)

    def _paired_single(self, roles: list[tuple[int, int]], guessed: bool, lo: int, close: int, width: int,
                       form: int, other_opens: Any) -> tuple[int, int, int, int, int] | None:
        """What the roles of the single marks before a closing one at ``close`` give: the
        quotation of the opener every reading agrees on; else ``unreadable`` when the readings
        disagree, a mark was guessed, or a mark of the other single style opens
        (``other_opens``); else what :meth:`_unclosed_other` says."""
        opener, ambiguous = _single_opener(roles)
        if opener >= 0:
            return self._between(opener, width, close, form)
        if ambiguous or guessed or other_opens(lo, close):
            return self._unreadable(lo, close)
        return self._unclosed_other(lo, close)

    def _curly_single_opens(self, lo: int, close: int) -> bool:
        """A ``‘`` or ``‚`` in ``[lo, close)``, or a ``’`` where a mark opens (``’…'``, as
        Swedish writes ``’…’``)."""
        data = self.data
        at = data.find(b"\xe2\x80", lo, close)
        while at >= 0:
            mark = data[at + 2]
            if mark in (0x98, 0x9A) or (mark == 0x99 and self._mark_role(at, 3) in (_OPENS, _MAY_OPEN)):
                return True
            at = data.find(b"\xe2\x80", at + 1, close)
        return False

    def _curly_single(self, lo: int, close: int) -> tuple[int, int, int, int, int] | None:
        """The quotation a ``’`` at ``close`` ends: ``‘`` (or ``‚``, as Polish and Dutch write
        ``‚…’``) opens and ``’`` closes, read as the ``'`` marks are (:meth:`_single`); a
        ``’`` where a mark opens is an apostrophe (``the ’90s``) and pairs with nothing, and
        ``‚`` is always an opener. With no opener the ``’`` is an apostrophe, unless a
        quotation of another style is open, a ``'`` that can open is there (``'…’``; red
        team 86, F03), a ``’`` stands where a mark opens (Swedish ``’…’``), or a ``’`` was
        read inside a word only because of a character that is not ASCII."""
        data = self.data
        roles = []
        guessed = False
        at = data.find(b"\xe2\x80", lo, close)
        while at >= 0:
            mark = data[at + 2]
            if mark == 0x98:
                roles.append((at, _MAY_OPEN if _elided(data, at + 3) else _OPENS))
            elif mark == 0x9A:
                roles.append((at, _OPENS))
            elif mark == 0x99:
                role = self._mark_role(at, 3)
                if role in (_CLOSES, _MAY_CLOSE):
                    roles.append((at, role))
                elif role < 0 and self._non_ascii_apostrophe(at, 3):
                    guessed = True
                elif role >= 0:
                    guessed = True  # a ’ where a mark opens: Swedish ’…’, or ’90s
            at = data.find(b"\xe2\x80", at + 1, close)
        return self._paired_single(roles, guessed, lo, close, 3, CURLY_SINGLE, self._straight_opens)

    def _straight_opens(self, lo: int, close: int) -> bool:
        """A ``'`` in ``[lo, close)`` where a mark opens."""
        at = self.data.find(b"'", lo, close)
        while at >= 0:
            if self._mark_role(at, 1) in (_OPENS, _MAY_OPEN):
                return True
            at = self.data.find(b"'", at + 1, close)
        return False

    def _unclosed_other(self, lo: int, close: int) -> tuple[int, int, int, int, int] | None:
        """A closing single quote with no opener of its own is an apostrophe (``the users'
        [src:a]``: a bare marker), unless a quotation of another style is open before it:
        ``"… 9 times' [src:a]`` or ``«… 9 times’ [src:a]`` is a quotation of mixed delimiters,
        unreadable (red team 84, F02: it was a bare marker, which passes). Open means an odd
        number of ``"``, of guillemets ``«»`` or of ``‹›`` (French, German and Finnish pair
        them differently, but always two to a quotation), or more openers than closers of
        ``“„``/``”``, ``「``/``」`` or ``『``/``』``, or an odd number of ``”`` and no ``“„`` (Swedish
        ``”…'``; red team 86, F03)."""
        data = self.data

        def count(*marks: bytes) -> int:
            return sum(data.count(m, lo, close) for m in marks)

        if (
            count(b'"') % 2
            or count(_LEFT_GUILLEMET, _RIGHT_GUILLEMET) % 2
            or count(_LEFT_SINGLE_GUILLEMET, _RIGHT_SINGLE_GUILLEMET) % 2
            or count(_CURLY_OPEN, _LOW_DOUBLE) > count(_CURLY_CLOSE)
            or (count(_CURLY_OPEN, _LOW_DOUBLE) == 0 and count(_CURLY_CLOSE) % 2)
            or count(_LEFT_CORNER) > count(_RIGHT_CORNER)
            or count(_LEFT_WHITE_CORNER) > count(_RIGHT_WHITE_CORNER)
        ):
            return self._unreadable(lo, close)
        return None

    def _backtick(self, lo: int, c: int) -> tuple[int, int, int, int, int] | None:
        data = self.data
        run_start = c
        while run_start > lo and data[run_start - 1] == 0x60:
            run_start -= 1
        n = c - run_start
        pos = run_start
        while True:
            at = data.rfind(b"`" * n, lo, pos)
            if at < 0:
                return None
            s, e = at, at + n  # widen to the whole run: it must be exactly n long
            while s > lo and data[s - 1] == 0x60:
                s -= 1
            while data[e] == 0x60:
                e += 1
            if e - s == n:
                break
            pos = s
        if sum(1 for r in _BACKTICK_RUN.finditer(data, lo, s) if r.end() - r.start() == n) % 2:
            # paired left to right, as CommonMark pairs them, that run closes an earlier code
            # span: `a` b` [src:x] would check " b" alone (the F01 fail-open of backticks)
            return None
        start, end = e, run_start
        if end - start >= 2 and data[start] == 0x20 and data[end - 1] == 0x20 and data[start:end].strip(b" "):
            start, end = start + 1, end - 1  # CommonMark strips one space from each end
        return self._quoted(start, end, BACKTICK)

    def _line_start_after(self, group_start: int, previous_end: int) -> int:
        """The start of the line of the group at ``group_start``, or -1 when the group before
        it (ending at ``previous_end``) is on the same line: a group after another marker on
        its line carries no blockquote or fenced block. Searched back to ``previous_end`` only,
        so a line of many groups is read once, not once per group."""
        nl = self.data.rfind(b"\n", previous_end, group_start)
        if nl < 0 and previous_end > 0:
            return -1
        return nl + 1

    def _blockquote(self, group_start: int, group_end: int, previous_end: int) -> tuple[int, int, int, int, int] | None:
        """The blockquote a group on one of its lines carries. Whatever follows the group on
        its line is not read (red team 86, F09: ``> … [src:a].``, ``> … ([src:a])`` or
        ``[src:a], as documented.`` below a ``>`` line left a bare marker, which passes)."""
        data = self.data
        line_start = self._line_start_after(group_start, previous_end)
        if line_start < 0:
            return None  # another marker before the group on its line
        first = self.first_blockquote_line(line_start)
        if first < 0:
            return None  # no `>` line in the paragraph up to the group's line: prose
        rows: list[tuple[int, int]] = []  # (start, end) of each line, prefixes included, bottom up
        text = _prefixes(data, line_start, group_start)[1]
        own_end = _own_end(data, text, group_start)
        # (a line of only prefixes, gap, a dash and the group attributes the lines above:
        # `> > [src:a]`, `([src:a])`, `> — [src:a]`)
        if _has_text(data, text, own_end):
            rows.append((line_start, own_end))
        # up to the paragraph's first `>` line: `>` lines and lazy lines, which CommonMark
        # reads as the blockquote's (red team 84, F07: a lazy line made the group a bare
        # marker, which passes, or ended the run, so the lines above it were not checked)
        pos = line_start
        while pos > first:
            prev_start = self.line_start(pos - 1)
            prev = data[prev_start : pos - 1]
            if _MARKER.search(prev):
                break
            m = _BLOCKQUOTE_PREFIX.match(prev)
            end = pos - 1
            if end > prev_start + (0 if m is None else m.end()) and data[end - 1] == 0x0D:
                end -= 1
            rows.append((prev_start, end))
            pos = prev_start
        depth = _shared_depth(data, rows)
        lines = [(_strip_prefixes(data, start, end, depth), end) for start, end in reversed(rows)]
        if not any(_has_text(data, s, e) for s, e in lines):
            return None
        return self._with_segments(lines)

    def _with_segments(self, lines: list[tuple[int, int]]) -> tuple[int, int, int, int, int]:
        lo = len(self.segments)
        self.segments.extend(lines)
        return (lines[0][0], lines[-1][1], BLOCKQUOTE, lo, len(self.segments))

    def _fenced(self, group_start: int, group_end: int, previous_end: int) -> tuple[int, int, int, int, int] | None:
        """The fenced block a group on the line right below its closing line carries, whatever
        else that line holds (red team 86, F09: ``([src:a])``, ``[src:a].`` or ``Source:
        [src:a]`` there left a bare marker, which passes). The words before the group are not
        checked with the block, so when they hold a double quotation mark (they may be the
        quotation the group attributes) the group claims an unreadable quotation instead."""
        data = self.data
        line_start = self._line_start_after(group_start, previous_end)
        if line_start <= 0:
            return None  # another marker before the group on its line, or no line above
        k = bisect.bisect_left(self.fence_ends, line_start - 1)  # a fence closing on the line above
        if k == len(self.fences) or self.fence_ends[k] != line_start - 1:
            return None
        if _DOUBLE_MARK.search(data, line_start, group_start):
            return self._unreadable(line_start, _gap_back(data, line_start, group_start))
        _, content_start, content_end, _ = self.fences[k]
        if _has_text(data, content_start, content_end):
            return (content_start, content_end, FENCE, 0, 0)
        return None

    # -- quotations without a marker ----------------------------------------------------------

    def unmarked(
        self, claimed: list[tuple[int, int]], carried: set[tuple[int, int]]
    ) -> list[tuple[int, int, int, int, int]]:
        """``claimed``: the spans (quotation start, group end) of the citations, in order;
        ``carried``: their quotations' spans."""
        data = self.data
        starts = [s for s, _ in claimed]
        ends = [e for _, e in claimed]

        def free(start: int, end: int) -> bool:
            if self.touches_fence(start, end):
                return False
            # claims are disjoint and in order: only the last one starting before end can overlap
            k = bisect.bisect_left(starts, end) - 1
            return not (k >= 0 and claimed[k][1] > start)

        out = []
        for start, end, form, ms, me in self.pairs:
            if (start, end) not in carried and _has_text(data, start, end) and free(ms, me):
                out.append((start, end, form, 0, 0))
        pos = 0
        for m in _BLOCKQUOTE_LINE.finditer(data):
            if m.start() < pos:
                continue
            first = m.start()
            rows, end = self._quote_run(first)
            pos = end
            depth = _shared_depth(data, [(row, self.line_end(row)) for row in rows])
            whole = free(first, end)
            # the text no citation claims is still quoted (red team 33, 05: a drifted line above
            # `> "per hour" [src:a]`, or before `per hour` on its line, was neither checked nor
            # reported): each run of it is an unmarked blockquote of its own, a line that holds
            # a citation ending the run with its text before the citation
            parts: list[list[tuple[int, int]]] = []
            lines = []
            for row in rows:
                text_start, text_end = self._row_text(row, depth)
                if whole or free(row, self.line_end(row)):
                    lines.append((text_start, text_end))
                    continue
                k = bisect.bisect_right(ends, row)  # the first citation ending after the line starts
                cut = (_before_opener(data, text_start, starts[k]) if k < len(claimed) and starts[k] < text_end
                       else text_start)
                if cut > text_start and not self.touches_fence(row, cut):
                    lines.append((text_start, cut))
                parts.append(lines)
                lines = []
            parts.append(lines)
            for lines in parts:
                if lines and any(_has_text(data, s, e) for s, e in lines):
                    out.append(self._with_segments(lines))
        out.sort(key=lambda q: q[:3])
        return out


def scan(data: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(quotes, markers, segments, unmarked)``: see the module docstring."""
    if type(data) is not bytes:
        raise TypeError(f"data must be bytes, not {type(data).__name__}")
    s = _Scanner(data)
    quotes: list[tuple[int, int, int, int, int]] = []
    markers: list[tuple[int, int, int]] = []
    claimed: list[tuple[int, int]] = []
    previous_end = 0
    groups = s.groups()
    for k, (start, end, spans) in enumerate(groups):
        if s.in_fence(start):
            continue  # fenced code is verbatim text, markers included
        quote = s.carried(start, end, previous_end)
        carried = [] if quote is None else [*s.earlier(quote, previous_end), quote]
        claim = (carried[0][0], end) if carried else None
        previous_end = end
        if quote is None:
            limit = groups[k + 1][0] if k + 1 < len(groups) else -1
            ahead = s.forward(end, limit) or s.below(end, limit)
            if ahead is not None:
                carried = [ahead[0]]
                previous_end = ahead[1]
                claim = (start, previous_end)
        if not carried:
            markers.extend((-1, ms, me) for ms, me in spans)
            continue
        assert claim is not None
        claimed.append(claim)
        for q in carried:  # each marker of the group cites each quotation it carries
            markers.extend((len(quotes), ms, me) for ms, me in spans)
            quotes.append(q)
    unmarked = s.unmarked(claimed, {(q[0], q[1]) for q in quotes})
    return (
        _rows(quotes, 5),
        _rows(markers, 3),
        _rows(s.segments, 2),
        _rows(unmarked, 5),
    )


# What a marker that went wrong looks like: an opening bracket (ASCII, fullwidth, lenticular or
# tortoise-shell, and a footnote's "[^"), blanks, no-break, zero-width or ideographic spaces,
# "src", "source" or "sources" in any case, the same again (French sets a narrow no-break space
# before a colon: red team 87, F05), a colon (ASCII, fullwidth or the ratio sign) or "="; the
# same after a parenthesis; or "[src:" and no name or a name that does not end the marker (red
# team 86, F08). Each of these left an answer whose author attributed a quotation with no
# citation at all, and verify passed it (red team 87, F05). Which of them are reported is the
# caller's (reconstruct._malformed_markers: "(source: census 2020)" is ordinary prose).
_NEAR_BLANKS = rb"(?:[ \t]|\xc2\xa0|\xe2\x80[\x8b-\x8f\xaf]|\xe2\x81\xa0|\xef\xbb\xbf|\xe3\x80\x80)*+"
_NEAR_SEPARATOR = rb"(?::|\xef\xbc\x9a|\xe2\x88\xb6|=)"
_NEAR_MARKER = re.compile(
    rb"\[src:(?!" + _NAME + rb"\])"
    rb"|(?:\[(?!src:)\^?|\(|\xef\xbc\xbb|\xe3\x80\x90|\xe3\x80\x94)"  # [ [^ ( ［ 【 〔
    + _NEAR_BLANKS + rb"[sS](?:[rR][cC]|[oO][uU][rR][cC][eE][sS]?)" + _NEAR_BLANKS + _NEAR_SEPARATOR
)


def near_markers(data: bytes) -> np.ndarray:
    """``(k, 2)`` int64: ``start, end`` of each near-marker of ``data``, in order: the text
    that looks like a marker up to its colon, or ``[src:`` when what follows is no name that
    ends a marker. Fenced code is not told apart (the caller does)."""
    if type(data) is not bytes:
        raise TypeError(f"data must be bytes, not {type(data).__name__}")
    return _rows([m.span() for m in _NEAR_MARKER.finditer(data)], 2)


def _rows(rows: list[Any], width: int) -> np.ndarray:
    return np.array(rows, dtype=np.int64).reshape(len(rows), width)


__all__ = ["FORMS", "IMPLEMENTATION", "MAX_NAME_BYTES", "near_markers", "scan"]
