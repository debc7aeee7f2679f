"""Grounded-span scanner, pure-Python reference: the executable specification.

The grammar is written down once, with examples, in ``docs/grammar.md``; this module is that
grammar as code, and the native scanner ``provgate._ext.scanner`` must produce exactly the same
columns, span for span, on every input. Where the two could disagree, this module decides.

Everything works on UTF-8 **bytes**: offsets are byte offsets, ends exclusive. The scanner
assumes valid UTF-8 (``provgate.facts.extract`` validates first); on other bytes it still
terminates and never reads out of bounds, but its spans are then unspecified.

Byte classes
------------
``W`` ("word")  ``0-9 A-Z a-z _`` and every byte >= 0x80 (so a token is never cut inside a
multi-byte character, and no non-ASCII character starts a number).
``SEP``         0x00-0x20 and 0x7F (whitespace, NUL and the other control bytes).
Everything else is punctuation.

Two independent layers, merged at the end
-----------------------------------------
1. **Quote layer** (``_quote_spans``), line by line (lines end at ``\\n``): fenced code blocks
   (CommonMark-style ``` and ~~~ fences, an unclosed fence runs to the end of the text) and inline
   quotes ``"…"``, ``'…'``, `` `…` `` inside one line. Inline quotes are found on every line
   that is not itself a fence line, inside fences too; they do not nest in each other.
2. **Token layer** (``_token_spans``), one left-to-right pass that tries lexemes at each
   position in a fixed priority order and consumes the first that matches. It scans inside
   quotes like anywhere else. Citations, numbers, identifiers, names, paths, URLs, digests and
   ``kv`` facts come from here.

The output is sorted by ``(start, end, kind)``.

The token layer in brief (``_token_spans``; docs/grammar.md has the details and examples)
----------------------------------------------------------------------------------------
A lexeme may start at ``p`` only if the byte before is not W, ``.`` or ``\\`` (``_start_ok``;
not ``@`` either until grammar v4), or if an ANSI CSI sequence ends at ``p``, or (grammar v17) if
``p`` is no ``.`` and a run of two or more dots ends at ``p`` (``4e3c2a1..8b9d0f7``). A full-width at
sign (``＠``, ``﹫``) is read as a blank and an ``@`` (grammar v9, ``_as_token_text``), and a
full-width, Arabic-Indic, Extended Arabic-Indic or Devanagari digit as its ASCII digit (grammar v13,
``_folded_token_text``: the rows' offsets are mapped back to the text's own); a citation
``[src:HANDLE]`` may start anywhere but inside a CSI sequence. At each position, in order:

0. at a ``[`` after ESC: a CSI sequence ``ESC [ params intermediates final`` (``_CSI``), no fact;
   its bytes count as control bytes (SEP), also for the look-backs (``_csi_start``);
1. citation ``[src:HANDLE]`` (1 to 256 handle bytes);
2. at a letter (not after ``+``/``-``): URL ``scheme://…``, trailing punctuation trimmed;
3. at a letter or ``_`` (not after ``-``): kv ``key = value`` anywhere, or ``key: value`` as
   a whole YAML line;
4. at the start of a run of path bytes: a path (needs a separator; absolute, ``./``, two
   ``/``, or a ``stem.ext`` last segment), optional ``:line[:col]``;
5. at an ASCII letter, digit or ``_``: an e-mail address ``local@domain.tld`` (an identifier,
   lower-cased);
6. at a hex digit: UUID, or a digest (7+ hex digits, a digit and a letter);
7. at ``-``: ``--flag value`` / ``--flag=value`` (kv), else the ``--flag`` identifier; at a
   digit, ``+``, ``-`` or ``.``: a number (``_NUMBER``);
8. at ``"``: JSON ``"key": value`` (kv);
9. at a word byte: a hyphenated lower-case ID ``eu-west-1`` (at a lower-case letter), a
   version ``v2.0``, a dotted name ``os.path.join``, else the word is classified by its bytes
   (``_classify_word``: numbers, number words, identifiers, names; a capitalised word is a name
   unless it starts a sentence, ``_sentence_initial``); a plain word (no fact) is an identifier
   as a part of a pin's name, a ref word after its "@", or a mention (``_plain_word_fact``,
   grammar v5 and v6).

Every pattern is possessive (atomic groups, ``*+``/``++``): a part that matched is never
given back, so a greedy hand-written loop gives the same answer. A kv fact absorbs its key and
an unquoted value; with a quoted value the scan resumes inside the quotes.

Output columns (``scan``)
-------------------------
``kind`` (uint8), ``start``, ``end``, ``key_start``, ``key_end``, ``value_start``,
``value_end`` (int64), ``value_kind`` (uint8). ``key_start == key_end == -1`` means the
fact's key is the name of its kind; otherwise the key is ``data[key_start:key_end]`` (kv
facts). The value is ``normalize_value(value_kind, data[value_start:value_end])``.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from typing import Any

import numpy as np

from provgate._batch import bytes_like, check_byte_items
from provgate.errors import InvalidArgumentError, LimitExceededError

IMPLEMENTATION = "reference"

# -- kinds and value classes (the numbering is part of the fact-table format) ----------------

NUMBER, IDENTIFIER, PATH, URL, DIGEST, KV, QUOTE, CITATION, NAME = range(1, 10)
KIND_NAMES = {
    NUMBER: b"number",
    IDENTIFIER: b"identifier",
    PATH: b"path",
    URL: b"url",
    DIGEST: b"digest",
    KV: b"kv",
    QUOTE: b"quote",
    CITATION: b"citation",
    NAME: b"name",
}
# how a value is normalised before it is fingerprinted (see normalize_value)
VALUE_RAW, VALUE_NUMBER, VALUE_HEX = 0, 1, 2

MAX_HANDLE_BYTES = 256  # longest handle inside a citation marker
MAX_JSON_KEY_BYTES = 128  # longest quoted JSON key that can make a kv fact
MAX_EXTENSION_BYTES = 16  # longest file-name extension that makes "dir/name.ext" a path

# -- byte classes ------------------------------------------------------------------------------

_DIGITS = frozenset(b"0123456789")
_UPPER = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_LOWER = frozenset(b"abcdefghijklmnopqrstuvwxyz")
_LETTERS = _UPPER | _LOWER
_HEX = frozenset(b"0123456789abcdefABCDEF")
_KEY_START = _LETTERS | {ord("_")}
_LOCAL_JOINERS = frozenset(b"-+%")  # the bytes of an e-mail local part that may precede a start
W = _DIGITS | _LETTERS | {ord("_")} | frozenset(range(0x80, 0x100))
SEP = frozenset(range(0x00, 0x21)) | {0x7F}
# a lexeme never starts right after one of these (inside a word, a dotted name, an escape). Not
# after "@" either until grammar v4 (stop 40): that kept an e-mail address's domain from being a
# fact, but a matched address is consumed whole anyway, and the rule hid every version or host
# after an "@" that is no address (red team 94 F09: lodash@4.17.21, actions/checkout@v4,
# deploy@10.0.0.12)
_NO_START_AFTER = W | frozenset(b".\\")
_DOT = ord(".")  # but after a run of two or more dots a lexeme may start (grammar v17, _start_ok)
# path bytes besides W; a path starts only at the beginning of a run of path bytes
_PATH_PUNCT = frozenset(b".-~@+%/\\")
_PATH_BYTES = W | _PATH_PUNCT
# skipped (transparent) when looking back for the start of a sentence
_OPENERS = frozenset(b"\"'([{<*#>-|`")
_TERMINATORS = frozenset(b".!?:")

# English number words are numbers too ("three", "fifth", "25 billion"), lower case only, so
# a capitalised "First" starting a sentence is not one
NUMBER_WORDS = frozenset(
    b"zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    b"fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy "
    b"eighty ninety hundred thousand million billion trillion "
    b"first second third fourth fifth sixth seventh eighth ninth tenth".split()
)

# grammar v18 (red team 138 F06): a capitalised cardinal starting a sentence ("Five attempts are
# made") is a number, as "five" is, no longer no fact at all; its value is the lower-case word, so
# "Three" and "three" are one fact; "twenty-one" is one number. What digits a cardinal spells
# (CARDINAL_DIGITS) is the gate's to ask: a summary's "three attempts" is grounded by a tool's
# `attempts=3` there (docs/gate.md, I1). Ordinals and scale words ("First", "Billion") starting a
# sentence stay no fact: "First, ..." starts many an honest sentence and is no count.
_UNITS = b"zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen " \
    b"seventeen eighteen nineteen twenty".split()
_TENS = b"twenty thirty forty fifty sixty seventy eighty ninety".split()
CARDINALS = {w: b"%d" % v for v, w in enumerate(_UNITS)} | {w: b"%d" % (10 * v) for v, w in enumerate(_TENS, 2)}
# "twenty-one" .. "ninety-nine": a tens word, "-", a unit word one..nine (_compound_cardinal_end)
_COMPOUND_UNIT = re.compile(rb"-(?:" + b"|".join(_UNITS[1:10]) + rb")(?![\-.]?[0-9A-Za-z_\x80-\xff])")
_COMPOUNDS = {t + b"-" + u: b"%d" % (int(CARDINALS[t]) + i) for t in _TENS for i, u in enumerate(_UNITS[1:10], 1)}
# a cardinal's value (lower case) -> its digits
CARDINAL_DIGITS = CARDINALS | _COMPOUNDS
# a capitalised cardinal (a number at a sentence start) -> its value, the lower-case word
_CAPITALISED_CARDINALS = {w.capitalize(): w for w in CARDINAL_DIGITS}

# a dot after one of these does not end a sentence: the name after "Mr. " is a name
TITLES = frozenset(b"Mr Mrs Ms Dr Prof".split())
MAX_TITLE_BYTES = 4

_W = rb"0-9A-Za-z_\x80-\xff"
_END = rb"(?![" + _W + rb"])"  # the next byte is not a word byte (or there is none)

# -- lexeme patterns (atomic groups and possessive quantifiers: no backtracking into a part
#    once it matched, exactly like the native scanner's greedy loops) ------------------------

_CITATION = re.compile(rb"\[src:([^\x00-\x20\x7f\[\]]{1,%d}+)\]" % MAX_HANDLE_BYTES)
_CITATION_AT_END = re.compile(rb"\[src:[^\x00-\x20\x7f\[\]]{1,%d}+\]\Z" % MAX_HANDLE_BYTES)
_URL = re.compile(rb"[A-Za-z][A-Za-z0-9+.\-]*+://[^\x00-\x20\x7f\"<>\[\]\\^`{|}?#]*+")
# in a URL's query or fragment (from its first "?" or "#") also [ ] { } ^ | (stop 39, red team
# 94 F03): bytes other than SEP and "<>\` ; a "]" or "}" only while it closes a "[" or "{" of
# the query, and a "[" not when it begins a citation marker "[src:"
_URL_QUERY = re.compile(rb"[^\x00-\x20\x7f\"<>\\`\[\]{}]++")
_URL_TRIM = frozenset(b".,:;!?'*")
_PATH_RUN = re.compile(rb"[" + _W + rb".\-~@+%/\\]*+")
_LINE_COL = re.compile(rb":[0-9]++(?::[0-9]++)?+" + _END)
_EXTENSION = re.compile(rb"[0-9A-Za-z]{0,%d}+\Z" % MAX_EXTENSION_BYTES)
_NUMBER = re.compile(
    rb"""
    [+\-]?+
    (?>
        0[xX][0-9A-Fa-f]++                                   # hex literal
      | [0-9]{1,3}+(?:,[0-9]{3}+(?![0-9]))++(?:\.[0-9]++)?+  # thousands separators
      | [0-9]++(?:\.[0-9]++)*+                               # integer, decimal, 1.2.3
      | \.[0-9]++                                            # .5
    )
    (?>%|[eE][+\-]?[0-9]++|[A-Za-z]++[0-9]*+)?+              # percent, exponent, unit
    (?:\.[a-z]++[0-9]++(?![0-9A-Za-z_\x80-\xff]))*+          # .post3 .dev1 .el9 (stop 39)
    """
    + _END,
    re.X,
)
_VERSION = re.compile(
    rb"[vV][0-9]++(?:\.[0-9]++)*+(?:[A-Za-z]++[0-9]*+)?+(?:\.[a-z]++[0-9]++(?![" + _W + rb"]))*+" + _END
)
_HEX_RUN = re.compile(rb"[0-9A-Fa-f]++" + _END)
_UUID = re.compile(
    rb"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}" + _END
)
_IDPART = rb"[A-Za-z_\x80-\xff][" + _W + rb"]*+"
# later parts may start with a digit (stop 39, red team 94 F01: python3.11, libssl.so.1.1, No.5512)
_DOTTED = re.compile(_IDPART + rb"(?:\.[" + _W + rb"]++)++")
# a dot-file name (stop 39, red team 94 F04): at a "." that no word byte, ".", "\\" or "@"
# precedes, an ASCII letter, then more parts joined by single dots (.env.production, .bashrc)
_DOTFILE = re.compile(rb"\.[A-Za-z][" + _W + rb"]*+(?:\.[" + _W + rb"]++)*+")
# a hyphenated lower-case ID (eu-west-1, req-8f3a2, gpt-4.5): runs of a-z 0-9 joined by single
# "-" or ".", starting with a letter, that are the whole chain (no word byte, nor "-" or "."
# and a word byte, after it); the caller checks it holds a "-" and a digit
_HYPHEN_ID = re.compile(rb"[a-z][a-z0-9]*+(?:[\-.][a-z0-9]++)*+(?![\-.]?[" + _W + rb"])")
# an e-mail address: local@label.label..., labels of letters and digits joined by single "-";
# the caller checks the last label (the TLD) is two or more letters
_EMAIL_LABEL = rb"[A-Za-z0-9]++(?:-[A-Za-z0-9]++)*+"
# grammar v10 (red team 113 F02/F03): an address ends at a non-word byte or before a character at
# U+0380 or above (its UTF-8 lead byte is 0xCE..0xFF: Greek, Cyrillic, CJK, full-width punctuation,
# curly quotes), so "alice@acme.io处理" and "oncall@acme.io。" end at "io"; a Latin letter
# (U+0080..U+037F, lead bytes below 0xCE) still goes on the word ("a@b.cafés" is no address).
# Grammar v12 (red team 116 F08): a character of U+0080..U+037F that is no letter and no combining
# mark is such a boundary too: the no-break space U+00A0, Latin-1 punctuation and symbols
# (« » ¿ ¡ · § × ÷ ...), the spacing modifier symbols, the C1 controls (_is_boundary_char). The
# soft hyphen U+00AD, which stands inside words, is not. (The caller checks the end: _match_email)
_LATIN_BOUNDARY_RANGES = (
    (0x0080, 0x00A9), (0x00AB, 0x00AC), (0x00AE, 0x00B4), (0x00B6, 0x00B9), (0x00BB, 0x00BF),
    (0x00D7, 0x00D7), (0x00F7, 0x00F7), (0x02C2, 0x02C5), (0x02D2, 0x02DF), (0x02E5, 0x02EB),
    (0x02ED, 0x02ED), (0x02EF, 0x02FF), (0x0375, 0x0375), (0x0378, 0x0379), (0x037E, 0x037E),
)
_ASCII_WORD_BYTES = bytes(sorted(_KEY_START | _DIGITS))
_LATIN_BOUNDARY = frozenset(cp for lo, hi in _LATIN_BOUNDARY_RANGES for cp in range(lo, hi + 1))
_EMAIL = re.compile(
    rb"[A-Za-z0-9_][A-Za-z0-9._%+\-]*+@" + _EMAIL_LABEL + rb"(?:\." + _EMAIL_LABEL + rb")++"
)
_WORD = re.compile(rb"[" + _W + rb"]++")
# grammar v5: a plain word right before "@" and a version (4.17.21, v4) or a digest
# (sha256:...) names a package, an action or an image, so it is an identifier; else renaming
# the package of a pin kept its facts (lodash@4.17.21 -> underscore@4.17.21 passed). An e-mail
# address never gets here: it is matched whole before the word, and its TLD is letters.
# Grammar v6: the whole name is read, its parts joined by "/" (owner/name, @scope/name) or "-"
# (left-pad), each "/" part one identifier (_plain_word_fact); a version may have a ^ or ~ range
# sign (lodash@^4.17.21); a ref that is one of these words pins a name too (lodash@latest,
# actions/checkout@main), and is an identifier itself
REF_WORDS = frozenset(
    b"latest next main master stable canary beta alpha rc nightly edge lts head HEAD dev develop trunk".split()
)
_REF_WORD = re.compile(
    rb"(?:" + b"|".join(sorted(REF_WORDS, key=len, reverse=True)) + rb")(?![\-./]?[" + _W + rb"])"
)
_PIN_REF = re.compile(
    rb"(?:(?:[\^~]|[<>]=?+|=)?+[vV]?[0-9]|sha(?:1|256|384|512):[0-9a-fA-F]|" + _REF_WORD.pattern + rb")"
)
# grammar v8 (red team 107 F03): a pip pin name==1.2.3 and an image tag name:1.25, name:latest
# pin a name as name@ref does (what follows "==" or ":" is a version or a ref word; no range sign
# or digest there)
# grammar v9: the comparisons of a requirement (pip's, PEP 440) that may stand between a name
# and a version, the value then holding the comparison
_PIN_COMPARISON = re.compile(rb"!=|~=|>=|<=|>|<")
_TAG_REF = re.compile(rb"(?:[vV]?[0-9]|" + _REF_WORD.pattern + rb")")
# grammar v11 (red team 116 F07): a requirement, PEP 508's name (ASCII letters and digits joined by
# runs of "." "_" "-", here starting with a letter), optional extras "[...]", then "==" or a
# comparison and a version (a digit, or v and a digit), glued: SQLAlchemy==2.0.25, Jinja2>=3.1, zope.interface>=5.0,
# python_dateutil>=2.8, requests[socks]>=2.31. It is a kv fact keyed by the name (the extras are not
# part of the key) whose value is the whole specifier set (_SPEC_MORE), whatever the name's words are
_REQ_NAME = re.compile(rb"[A-Za-z][A-Za-z0-9]*+(?:[._\-]++[A-Za-z0-9]++)*+")
_REQ_EXTRAS = re.compile(rb"\[[A-Za-z0-9._\-, \t]*+\]")
_REQ_OP = re.compile(rb"==|!=|~=|>=|<=|>|<")
# the next clause of a specifier set: after "," (and blanks) or blanks (an npm range: >=4.17.0 <5),
# a comparison and a version (django>=3.2,<4.2; lodash@>=4.17.0 <5)
_REQ_VERSION = re.compile(rb"[vV]?[0-9]")
_SPEC_MORE = re.compile(rb"(?:,[ \t]*+|[ \t]++)(?:==|!=|~=|>=|<=|>|<)(?=[vV]?[0-9])")
# the run of a pin's name: words joined by single "/" or "-" (what follows it decides if it is
# one), and one "-" chain of it, the part that is one identifier
_NAME_RUN = re.compile(rb"[" + _W + rb"]++(?:[/\-][" + _W + rb"]++)*+")
# grammar v8 (red teams 105 F02, 107 F05): a pin is also a kv fact whose key is its name and whose
# value is its ref as written (a range sign, a digest's algorithm and a pre-release included), so
# the name binds the version as a key binds its value: versions traded between two pins, a
# summary pairing one pin's name with another's version, owners traded between two actions and
# hosts traded between two user@host pairs change kv facts. A name of two or more "/" parts keys
# its ref twice: the whole name, and its last part alone (what an honest summary names:
# checkout@v4 of actions/checkout@v4)
_PIN_VALUE = re.compile(
    rb"(?:[\^~]|[<>]=?+|=)?+(?:sha(?:1|256|384|512):)?+[0-9A-Za-z_]++(?:[.+\-][0-9A-Za-z_]++)*+"
)
_CHAIN = re.compile(rb"[" + _W + rb"]++(?:-[" + _W + rb"]++)*+")
# an ANSI CSI escape sequence (grammar v4, stop 40, red team 95 F09): ESC "[", parameter bytes
# 0x30-0x3F, intermediate bytes 0x20-0x2F, one final byte 0x40-0x7E ("\x1b[1;32m", "\x1b[0m",
# "\x1b[2K"). The token layer reads its bytes as control bytes (SEP): no fact, and the byte after
# it starts afresh
_CSI = re.compile(rb"\x1b\[[\x30-\x3f]*+[\x20-\x2f]*+[\x40-\x7e]")
ESC = 0x1B
_KEY = re.compile(rb"[A-Za-z_][0-9A-Za-z_]*+(?:[.\-][0-9A-Za-z_]++)*+")
_EQUALS = re.compile(rb"[ \t]*+=(?![=>])[ \t]*+")
_COLON = re.compile(rb":[ \t]++")
_LINE_END = re.compile(rb"[ \t\r]*+(?:\n|#|\Z)")
_FLAG = re.compile(rb"--([A-Za-z][0-9A-Za-z_]*+(?:-[0-9A-Za-z_]++)*+)" + _END)
_BLANKS = re.compile(rb"[ \t]++")
_NEGATIVE = re.compile(rb"-\.?[0-9]")
_JSON_KEY = re.compile(
    rb'"([^"\\\x00-\x1f\[\]]{1,%d}+)"[ \t]*+:[ \t]*+' % MAX_JSON_KEY_BYTES
)
_QUOTED_VALUE = {
    ord('"'): re.compile(rb'"((?:[^"\\\n]|\\[^\n])*+)"'),
    ord("'"): re.compile(rb"'([^'\n]*+)'"),
    ord("`"): re.compile(rb"`([^`\n]*+)`"),
}
_BARE_VALUE = re.compile(rb"(?:[^\x00-\x20\x7f\"'`,;&|()\[\]{}<>]|,(?=[0-9]{3}(?![0-9])))++")
_BARE_TRIM = frozenset(b".:!?*")

# A shortcut, not part of the grammar: a stretch of bytes at which no lexeme can start or
# match, so the token loop may jump over it. It is blanks, punctuation that starts nothing,
# and lower-case words that cannot begin a URL, path, kv key, dotted name or digest (the next
# byte is not one of ``. - + / \\ ~ @ % : =`` and no ``=`` follows after blanks) and are not
# number words. ``scan(..., shortcut=False)`` runs without it; the tests check both agree. (Not
# before an ESC either, grammar v8: a colour code may stand between a pin's name and its "@".)
_NOTHING_HERE = re.compile(
    rb"(?:[\x00-\x20\x7f(){};,<>=*&|!?^#$:'`%@\]]++"
    rb"|(?<!@)(?!(?:" + b"|".join(sorted(NUMBER_WORDS)) + rb")(?![a-z]))[a-z]++"
    rb"(?=[\x00-\x08\x0a-\x1a\x1c-\x1f\x7f(){};,*&|?^#$'`\"\]]|[ \t]++(?!=)|\Z)"
    rb")*+"
)

# quote layer
# (a tilde fence's info string may hold backticks: red team 126, F05, "~~~" was no fence)
_FENCE_OPEN = re.compile(rb" {0,3}+(?:(`{3,}+)[^`]*+|(~{3,}+).*+)")
_FENCE_CLOSE = re.compile(rb" {0,3}+(`{3,}+|~{3,}+)[ \t\r]*+")
_DOUBLE_QUOTED = re.compile(rb'"((?:[^"\\\n]|\\[^\n])*+)"')
_SINGLE_CLOSE = re.compile(rb"(?<=[^\x00-\x20\x7f])'" + _END)
_INLINE_DELIM = re.compile(rb"[\"'`]")
_BACKTICKS = re.compile(rb"`++")


class _Out:
    """Rows of the output columns, appended one span at a time."""

    def __init__(self, max_spans: int) -> None:
        self.rows: list[tuple[int, int, int, int, int, int, int, int]] = []
        self.max_spans = max_spans

    def add(self, kind: int, start: int, end: int, ks: int, ke: int, vs: int, ve: int, vk: int) -> None:
        if len(self.rows) >= self.max_spans:
            raise LimitExceededError(
                f"text has more than {self.max_spans} grounded spans (max_spans); "
                "split it or raise the limit"
            )
        self.rows.append((kind, start, end, ks, ke, vs, ve, vk))


# -- value normalisation ---------------------------------------------------------------------


def normalize_number(raw: bytes) -> bytes:
    """``1,000`` -> ``1000``; ``+5`` -> ``5``; ``-0``/``-0.0`` -> ``0``/``0.0``; hex literals
    lower-cased; a capitalised cardinal lower-cased (``Three`` -> ``three``, ``Twenty-one`` ->
    ``twenty-one``, grammar v18). Everything else is kept as written (``3.10`` stays ``3.10``,
    ``three`` stays ``three``)."""
    word = _CAPITALISED_CARDINALS.get(raw)
    if word is not None:
        return word
    v = raw.replace(b",", b"")
    if v[:1] == b"+":
        v = v[1:]
    negative = v[:1] == b"-"
    body = v[1:] if negative else v
    if body[:2] in (b"0x", b"0X"):
        body = body.lower()
        mantissa = re.match(rb"0x([0-9a-f]*)", body).group(1)
    else:
        mantissa = re.match(rb"[0-9.]*", body).group(0)
    if negative and not mantissa.strip(b"0."):
        negative = False  # -0 is 0
    return (b"-" if negative else b"") + body


def normalize_value(value_kind: int, raw: bytes) -> bytes:
    """A number's and a digest's (or address's) non-ASCII decimal digits are read as the ASCII
    digits they are (grammar v13, ``fold_digits``); a raw value is kept as written."""
    if value_kind == VALUE_NUMBER:
        return normalize_number(fold_digits(raw))
    if value_kind == VALUE_HEX:
        return fold_digits(raw).lower()
    return raw


def _bare_value_kind(raw: bytes) -> int:
    """How an unquoted kv value is normalised: as the token layer would classify it alone (its
    non-ASCII decimal digits read as ASCII ones, grammar v13)."""
    raw = fold_digits(raw)
    if _UUID.fullmatch(raw) or _is_digest(raw) or _match_email(raw, 0) == len(raw):
        return VALUE_HEX  # lower-cased: a digest, or an e-mail address
    if _NUMBER.fullmatch(raw):
        return VALUE_NUMBER
    return VALUE_RAW


def _is_digest(run: bytes) -> bool:
    return (
        len(run) >= 7
        and _HEX_RUN.fullmatch(run) is not None
        and any(b in _DIGITS for b in run)
        and any(b in _LETTERS for b in run)
    )


# -- token layer -------------------------------------------------------------------------------


def _start_ok(data: bytes, p: int, chains: _DotChains) -> bool:
    if p == 0 or data[p - 1] not in _NO_START_AFTER:
        return True
    # grammar v17 (red team 130a F01): a run of two or more dots is a separator, not the dot of
    # a dotted name, so a lexeme may start right after it (not at a further dot of the run):
    # the end of 4e3c2a1..8b9d0f7, 120..140, v1.2.3...v1.3.0, Downloading...87%; after the last
    # such run of its chain only (the bytes up to the next SEP byte: red team 131, F01, a start
    # after every run of "a..a..a.." read each to the chain's end, in quadratic time)
    return data[p - 1] == _DOT and p >= 2 and data[p - 2] == _DOT and data[p] != _DOT and chains.last_run_before(p)


class _DotChains:
    """Of a text's chains (its maximal runs of bytes that are no SEP byte): is the run of two or
    more dots that ends at ``p`` the chain's last? Each chain read once, from its first such run
    asked about (the token loop only moves forward)."""

    __slots__ = ("_data", "_end", "_last")

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._end = -1  # the end of the chain read last (its first SEP byte, or the text's end)
        self._last = -1  # where its last two dots in a row start, from where it was read on

    def last_run_before(self, p: int) -> bool:
        if p >= self._end:
            m = _CHAIN_REST.match(self._data, p)
            self._end = m.end()
            self._last = self._data.rfind(b"..", p, self._end)
        return self._last < p


# the rest of a chain: the bytes up to the next SEP byte (_DotChains)
_CHAIN_REST = re.compile(rb"[^\x00-\x20\x7f]*")


def _csi_start(data: bytes, j: int) -> int:
    """Start (the ESC) of the CSI sequence whose final byte is ``data[j]``, or -1. A CSI holds no
    ESC but its first byte, so every ESC "[" that the pattern matches at is one, wherever it
    stands, and reading one backwards from its final byte finds the same bytes as ``_CSI``
    forwards. The walk is over the sequence's own bytes only."""
    if not 0x40 <= data[j] <= 0x7E:
        return -1
    k = j - 1
    while k >= 0 and 0x20 <= data[k] <= 0x2F:
        k -= 1
    while k >= 0 and 0x30 <= data[k] <= 0x3F:
        k -= 1
    if k >= 1 and data[k] == ord("[") and data[k - 1] == ESC:
        return k - 1
    return -1


def _match_url(data: bytes, p: int) -> int:
    m = _URL.match(data, p)
    if m is None:
        return -1
    end = m.end()
    body = data.index(b"://", p) + 3
    n = len(data)
    if end < n and data[end] in b"?#":
        square = curly = 0  # "[" and "{" of the query not yet closed
        end += 1
        while end < n:
            q = _URL_QUERY.match(data, end)
            if q is not None:
                end = q.end()
                continue
            c = data[end]
            if c == ord("[") and not data.startswith(b"[src:", end):
                square += 1
            elif c == ord("]") and square:
                square -= 1
            elif c == ord("{"):
                curly += 1
            elif c == ord("}") and curly:
                curly -= 1
            else:
                break
            end += 1
    while end > body:
        last = data[end - 1]
        if last in _URL_TRIM:
            end -= 1
        elif last == ord(")") and data.count(b")", p, end) > data.count(b"(", p, end):
            end -= 1
        else:
            break
    return end if end > body else -1


def _has_extension(segment: bytes) -> bool:
    dot = segment.rfind(b".")
    if dot < 1:
        return False
    ext = segment[dot + 1 :]
    return bool(ext) and _EXTENSION.match(ext) is not None and any(b in _LETTERS for b in ext)


def _match_path(data: bytes, p: int) -> int:
    """End of the path starting at ``p``, or -1. See docs/grammar.md, "path"."""
    n = len(data)
    drive = (
        p + 2 < n
        and data[p] in _LETTERS
        and data[p + 1] == ord(":")
        and data[p + 2] in (ord("/"), ord("\\"))
    )
    run_start = p + 2 if drive else p
    r = _PATH_RUN.match(data, run_start).end()
    if data.find(b"/", run_start, r) < 0 and data.find(b"\\", run_start, r) < 0:
        return -1  # every path has a separator
    m = _LINE_COL.match(data, r)
    suffix_end = m.end() if m else -1
    if suffix_end < 0:
        # sentence punctuation after a path is not part of it, but "." and ".." are segments
        last_sep = max(data.rfind(b"/", run_start, r), data.rfind(b"\\", run_start, r))
        segment = data[max(last_sep + 1, run_start) : r]
        if segment.strip(b"."):
            while r > run_start and data[r - 1] == ord("."):
                r -= 1
    path = data[p:r]
    if not any(b in W for b in path[2 if drive else 0 :]):
        return -1
    if drive:
        ok = True
    elif path[:1] == b"/":
        ok = not (p > 0 and data[p - 1] == ord("<"))  # "</div>" is markup, not a path
    elif path[:2] in (b"~/", b"~\\", b"\\\\", b"./", b".\\") or path[:3] in (b"../", b"..\\"):
        ok = True
    else:
        slashes = path.count(b"/")
        separators = slashes + path.count(b"\\")
        last_sep = max(path.rfind(b"/"), path.rfind(b"\\"))
        ok = slashes >= 2 or (separators >= 1 and _has_extension(path[last_sep + 1 :]))
    if not ok:
        return -1
    return suffix_end if suffix_end >= 0 else r


def _match_value(data: bytes, v: int) -> tuple[int, int, int, int, bool] | None:
    """A kv value at ``v``: ``(end, value_start, value_end, value_kind, quoted)`` or None."""
    if v >= len(data):
        return None
    quoted = _QUOTED_VALUE.get(data[v])
    if quoted is not None:
        m = quoted.match(data, v)
        if m is None:
            return None
        return m.end(), m.start(1), m.end(1), VALUE_RAW, True
    url_end = _match_url(data, v) if data[v] in _LETTERS else -1
    if url_end >= 0:
        return url_end, v, url_end, VALUE_RAW, False
    m = _BARE_VALUE.match(data, v)
    if m is None:
        return None
    end = m.end()
    while end > v and data[end - 1] in _BARE_TRIM:
        end -= 1
    if end == v:
        return None
    return end, v, end, _bare_value_kind(data[v:end]), False


def _match_email(data: bytes, p: int) -> int:
    """End of the e-mail address ``local@domain.tld`` at ``p``, or -1. It starts only where
    its local part does: not right after ``- + %`` (nor, as any lexeme, after a word byte or
    ``.``), so a run without ``@`` is searched once, not again from each of its pieces."""
    if p > 0 and data[p - 1] in _LOCAL_JOINERS:
        return -1
    m = _EMAIL.match(data, p)
    if m is None:
        return -1
    e = m.end()
    # it ends at a non-word byte or before a boundary character (grammar v10, v12)
    if e < len(data) and data[e] in W and not _is_boundary_char(data, e):
        return -1
    tld = m.group()[m.group().rfind(b".") + 1 :]
    return m.end() if len(tld) >= 2 and all(b in _LETTERS for b in tld) else -1


def _is_boundary_char(data: bytes, k: int) -> bool:
    """Is the character whose UTF-8 lead byte is ``data[k]`` one an address may stand right
    after or before inside a run of word bytes: at U+0380 or above (grammar v10), or a character
    of U+0080..U+037F that is no letter and no combining mark (grammar v12, _LATIN_BOUNDARY)?"""
    lead = data[k]
    if lead >= 0xCE:
        return True
    if 0xC2 <= lead <= 0xCD and k + 1 < len(data):
        return ((lead & 0x1F) << 6 | (data[k + 1] & 0x3F)) in _LATIN_BOUNDARY
    return False


def _match_glued_email(data: bytes, p: int) -> tuple[int, int]:
    """Start and end of the e-mail address glued to the non-ASCII character before the ASCII run
    that ends the word at ``p`` (``请联系alice@acme.io``, ``至oncall@acme.io``, ``“ops@acme.io”``,
    ``Contact:\u00a0alice@acme.io``, ``«alice@acme.io»``, ``Owner·alice@acme.io``), or (-1, -1).
    Grammar v10 (red team 113 F02): the address starts at the first ASCII byte of that run only
    when the character right before it is at U+0380 or above (a lead byte 0xCE..0xFF: CJK, kana,
    Hangul, Greek, Cyrillic, full-width and general punctuation), never after a Latin letter
    (``josé`` is one word); grammar v12 (red team 116 F08): or a character of U+0080..U+037F that
    is no letter and no mark (the no-break space, « » ¿ · ...: _is_boundary_char), and the run
    is the one that ends the word (the local part runs to the word's end, as it is ASCII), so a
    word that begins with ASCII letters is tried too. Once per word: a run is read a bounded
    number of times."""
    word = data[p : _WORD.match(data, p).end()]
    if word.isascii():
        return -1, -1
    s = p + len(word.rstrip(_ASCII_WORD_BYTES))
    if s == p + len(word):
        return -1, -1
    k = s - 1
    while k > p and 0x80 <= data[k] < 0xC0:
        k -= 1
    if not _is_boundary_char(data, k):
        return -1, -1
    e = _match_email(data, s)
    return (s, e) if e >= 0 else (-1, -1)


def _match_hyphen_id(data: bytes, p: int) -> int:
    """End of the hyphenated lower-case ID at ``p`` (``eu-west-1``), or -1. It never starts
    inside a chain: not right after a ``-`` that follows a word byte (the final byte of a CSI
    sequence is a control byte, not a word byte)."""
    if p >= 2 and data[p - 1] == ord("-") and data[p - 2] in W and _csi_start(data, p - 2) < 0:
        return -1
    m = _HYPHEN_ID.match(data, p)
    if m is None:
        return -1
    token = m.group()
    if b"-" not in token or not any(b in _DIGITS for b in token):
        return -1
    return m.end()


def _at_line_start(data: bytes, p: int) -> bool:
    """Only blanks, optionally one ``-`` list marker followed by blanks, since the line began."""
    j = p - 1
    blanks = 0
    while j >= 0 and data[j] in (0x20, 0x09):
        j -= 1
        blanks += 1
    if j >= 0 and data[j] == ord("-") and blanks:
        j -= 1
        while j >= 0 and data[j] in (0x20, 0x09):
            j -= 1
    return j < 0 or data[j] == 0x0A


def _match_key_value(data: bytes, p: int) -> tuple[int, int, int, int, int, int, int] | None:
    """``key=value`` anywhere, ``key: value`` as a whole YAML line. Returns
    ``(end, key_start, key_end, value_start, value_end, value_kind, resume)`` or None."""
    key = _KEY.match(data, p)
    if key is None:
        return None
    ke = key.end()
    sep = _EQUALS.match(data, ke)
    yaml = False
    if sep is None:
        sep = _COLON.match(data, ke)
        if sep is None or not _at_line_start(data, p):
            return None
        yaml = True
    value = _match_value(data, sep.end())
    if value is None:
        return None
    end, vs, ve, vk, quoted = value
    if yaml and _LINE_END.match(data, end) is None:
        return None
    return end, p, ke, vs, ve, vk, (vs if quoted else end)


def _match_flag_value(data: bytes, p: int) -> tuple[int, int, int, int, int, int, int] | None:
    """``--key=value`` and ``--key value``; the key is the flag without its dashes."""
    flag = _FLAG.match(data, p)
    if flag is None:
        return None
    fe = flag.end()
    if fe < len(data) and data[fe] == ord("="):
        v = fe + 1
    else:
        blanks = _BLANKS.match(data, fe)
        if blanks is None:
            return None
        v = blanks.end()
        if v < len(data) and data[v] == ord("-") and not _NEGATIVE.match(data, v):
            return None  # a value never looks like another flag; a negative number is fine
    value = _match_value(data, v)
    if value is None:
        return None
    end, vs, ve, vk, quoted = value
    return end, flag.start(1), fe, vs, ve, vk, (vs if quoted else end)


def _match_json_key_value(data: bytes, p: int) -> tuple[int, int, int, int, int, int, int] | None:
    key = _JSON_KEY.match(data, p)
    if key is None:
        return None
    value = _match_value(data, key.end())
    if value is None:
        return None
    end, vs, ve, vk, quoted = value
    return end, key.start(1), key.end(1), vs, ve, vk, (vs if quoted else end)


def _csi_bracket(data: bytes, i: int) -> bool:
    """Is the ``[`` at ``i`` a byte of a CSI sequence (its opening ``[`` or its final byte)?
    Then it begins no citation marker."""
    return (i > 0 and data[i - 1] == ESC) or _csi_start(data, i) >= 0


def _title_before(data: bytes, j: int) -> bool:
    """Is ``data[j]`` the dot of a title abbreviation such as the one in "Mr. Smith"?"""
    k = j
    while k > 0 and j - k <= MAX_TITLE_BYTES and data[k - 1] in W and _csi_start(data, k - 1) < 0:
        k -= 1
    return data[k:j] in TITLES


def _sentence_initial(data: bytes, p: int) -> bool:
    """Does the word at ``p`` begin a sentence? Look back over blanks, opening punctuation and
    whole citation markers: the start of the text, a line break, or one of ``. ! ? :`` means
    yes (but not the dot of a title: "Mr. Smith"); anything else means no."""
    j = p - 1
    while j >= 0:
        b = data[j]
        if b == 0x0A:
            return True
        if 0x40 <= b <= 0x7E:
            k = _csi_start(data, j)
            if k >= 0:  # a CSI sequence is control bytes: passed over like SEP
                j = k - 1
                continue
        if b in SEP or b in _OPENERS:
            j -= 1
            continue
        if b == ord("]"):
            lo = max(0, j - (MAX_HANDLE_BYTES + 5))
            m = _CITATION_AT_END.search(data, lo, j + 1)
            if m is not None and not _csi_bracket(data, m.start()):
                j = m.start() - 1
                continue
            return False
        if b == ord(".") and _title_before(data, j):
            return False
        return b in _TERMINATORS
    return True


def _classify_word(data: bytes, p: int, end: int) -> int:
    """Kind of the plain word ``data[p:end]`` (a maximal run of W bytes), 0 for none."""
    word = data[p:end]
    if word in NUMBER_WORDS or all(b in _DIGITS for b in word):
        return NUMBER
    if any(b in _DIGITS for b in word) or ord("_") in word:
        # Q4, H1N1, x86_64, snake_case, CONSTANT_CASE; but "___" is punctuation
        return IDENTIFIER if any(b != ord("_") for b in word) else 0
    first = word[0]
    uppers = sum(1 for b in word if b in _UPPER)
    lowers = sum(1 for b in word if b in _LOWER)
    if first in _LOWER:
        return IDENTIFIER if uppers else 0  # camelCase, iPhone; else an ordinary word
    if first not in _UPPER or len(word) < 2:
        return 0  # starts with a non-ASCII character, or a lone capital ("I", "A")
    if lowers == 0:
        return NAME  # an acronym: NASA, EEG, CEO (also at the start of a sentence)
    if uppers >= 2:
        return IDENTIFIER  # PascalCase / mixed case: FactTable, YouTube, McDonald, NaN
    if _sentence_initial(data, p):
        # grammar v18: "Three tests fail." states a count as "3 tests fail" does
        return NUMBER if word.lower() in CARDINALS else 0
    return NAME  # a capitalised word


def _compound_cardinal_end(data: bytes, p: int, end: int) -> int:
    """Where the number word ``data[p:end]`` ends when it is a tens word that "-" and a unit
    word one..nine follow, ending the chain (grammar v18: ``twenty-one``, ``Forty-two``); else
    ``end``. (A longer chain, ``twenty-one-year-old``, keeps its words apart, as before.)"""
    if data[p:end].lower() not in _TENS_SET:
        return end
    m = _COMPOUND_UNIT.match(data, end)
    return end if m is None else m.end()


_TENS_SET = frozenset(_TENS)


class _Pins:
    """The last run of words joined by "/" or "-" the scan read for a pin name: where it ends,
    and where its pin's "@" is (-1: no pin). Each run is read once, from its first plain word."""

    __slots__ = ("key_start", "last_start", "name_end", "pin_at", "req_at", "req_end", "value_end", "value_kind",
                 "value_start")

    def __init__(self) -> None:
        self.name_end = 0
        self.pin_at = -1
        self.key_start = -1  # grammar v8: where the pin's kv key starts (its first plain word)
        self.last_start = -1  # where its last "/" part starts (== key_start: one part)
        self.value_start = -1  # where its ref, the kv value, starts (after "@", ":" or "==")
        self.value_end = -1  # and ends
        self.value_kind = VALUE_RAW
        self.req_end = 0  # grammar v11: the end of the last requirement name read (_match_requirement)
        self.req_at = -1  # where the last requirement that matched starts (its kv fact is written)


def _spec_end(data: bytes, e: int) -> int:
    """The end of a specifier set whose first clause's version ends at ``e`` (grammar v11, red
    team 116 F07): the clauses after it, each after "," or blanks, a comparison and a version
    (``django>=3.2,<4.2``, ``lodash@>=4.17.0 <5``), are part of the value."""
    m = _SPEC_MORE.match(data, e)
    while m is not None:
        e = _PIN_VALUE.match(data, m.end()).end()
        m = _SPEC_MORE.match(data, e)
    return e


def _match_requirement(data: bytes, p: int) -> tuple[int, int, int, int]:
    """A requirement at ``p`` (grammar v11, red team 116 F07): ``(name_end, value_start,
    value_end, value_kind)``, the value -1s when there is none. PEP 508's name (ASCII letters and
    digits joined by runs of ``. _ -``, here starting with a letter: ``SQLAlchemy``, ``Jinja2``,
    ``zope.interface``, ``python_dateutil``), optional extras ``[socks]``, then ``==`` or a
    comparison and a version, glued. The value is the specifier set; after ``==`` it starts at the
    version, as a pin's does. The name is read once: the caller tries no requirement inside it."""
    m = _REQ_NAME.match(data, p)
    ne = m.end()
    a = ne
    x = _REQ_EXTRAS.match(data, a)
    if x is not None:
        a = x.end()
    op = _REQ_OP.match(data, a)
    if op is None or _REQ_VERSION.match(data, op.end()) is None:
        return ne, -1, -1, VALUE_RAW
    v = op.end()
    vs = v if op.end() - a == 2 and data[a] == ord("=") else a
    ve = _spec_end(data, _PIN_VALUE.match(data, v).end())
    return ne, vs, ve, _bare_value_kind(data[vs:ve])


def _skip_csis(data: bytes, q: int) -> int:
    """After the ANSI CSI sequences that start at q, if any (grammar v8: a colour code between a
    pin's name, its "@" and its ref, red team 105 F06)."""
    m = _CSI.match(data, q)
    while m is not None:
        q = m.end()
        m = _CSI.match(data, q)
    return q


def _mention_lead(data: bytes, j: int) -> bool:
    """Whether ``data[j]``, the byte right before an "@", leaves the "@" a mention's
    (grammar v7, red team 107 F01): a byte that is no word byte, the final byte of a CSI
    sequence, a non-ASCII byte (``请@张三``, ``“@alice”``, ``—@alice``), or the last digit of
    a run of digits that no ASCII letter or ``_`` precedes (``step 2@alice``). Only an ASCII
    letter or ``_`` before the "@", or a digit ending such a word (``user2@host``), makes it
    the "@" of an address or a pin. The look-back crosses one run of digits, which ends at
    the "@": each byte is looked at from one "@" only, so the scan stays linear."""
    c = data[j]
    if c not in W or c >= 0x80 or _csi_start(data, j) >= 0:
        return True
    if c not in _DIGITS:
        return False
    while j > 0 and data[j - 1] in _DIGITS:
        j -= 1
    return j == 0 or data[j - 1] not in W or data[j - 1] >= 0x80


def _plain_word_fact(data: bytes, p: int, end: int, prev: int, pins: _Pins) -> int:
    """End of the identifier a plain word (no fact by itself) at ``p`` begins, or -1
    (grammar v6, docs/grammar.md "@ pins and mentions"):

    - a part of a pin's name: the run of words joined by "/" or "-" from ``p`` ends right before
      an "@" and a version, digest or ref word (``actions/checkout@v4``, ``@types/node@20``,
      ``left-pad@1.3.0``, ``lodash@latest``); the identifier is the "-" chain at ``p``, so
      ``actions`` and ``checkout``, ``types`` and ``node``, ``left-pad``;
    - a mention: an "@" that follows no word byte (or the final byte of a CSI sequence) is
      right before the word (``@alice``, ``@oncall-team``, ``@property``): the "-" chain;
    - a ref word right after the "@" of a pin (``latest`` of ``lodash@latest``): the word.
    """
    n = len(data)
    if p >= pins.name_end:
        if end < n and data[end] in b"/-@=:\x1b<>!~":
            r = _NAME_RUN.match(data, p).end()
            pins.name_end = r
            v = op = -1  # where the pin's ref starts, and its comparison (grammar v9)
            # (colour codes may stand around the "@": grammar v8, red team 105 F06)
            a = _skip_csis(data, r)
            if a < n:
                if data[a] == ord("@"):
                    v = _skip_csis(data, a + 1)
                    v = v if _PIN_REF.match(data, v) else -1
                elif data[a] == ord(":"):
                    v = _skip_csis(data, a + 1)
                    v = v if _TAG_REF.match(data, v) else -1
                elif data[a : a + 2] == b"==":
                    v = _skip_csis(data, a + 2)
                    v = v if _TAG_REF.match(data, v) else -1
                else:
                    # grammar v9 (red team 115 F01): a requirement's comparison, != ~= >= <= > <,
                    # is part of the pin's value (django<4.2 -> django>=4.2 kept every fact)
                    m = _PIN_COMPARISON.match(data, a)
                    if m is not None and _TAG_REF.match(data, m.end()):
                        v, op = m.end(), a
            pins.pin_at = r if v >= 0 else -1
            if v >= 0:
                pins.key_start = p
                pins.last_start = data.rfind(b"/", p, r) + 1 or p
                pins.value_start = v if op < 0 else op
                pins.value_end = _PIN_VALUE.match(data, v).end()
                if data[a] != ord(":"):  # grammar v11: a specifier set's further clauses
                    pins.value_end = _spec_end(data, pins.value_end)
                pins.value_kind = _bare_value_kind(data[pins.value_start : pins.value_end])
        else:
            pins.name_end, pins.pin_at = end, -1
    if p < pins.pin_at:
        return _CHAIN.match(data, p).end()
    if prev == ord("@"):
        if p < 2 or _mention_lead(data, p - 2):
            return _CHAIN.match(data, p).end()
        m = _REF_WORD.match(data, p)
        if m is not None and m.end() == end:
            return end
    return -1


def _token_spans(data: bytes, out: _Out, shortcut: bool = True) -> None:
    n = len(data)
    p = 0
    pins = _Pins()
    chains = _DotChains(data)
    fresh = 0  # where the last CSI sequence ended: the byte before counts as a control byte
    while p < n:
        if shortcut:
            p = _NOTHING_HERE.match(data, p).end()
            if p >= n:
                break
        c = data[p]
        if c in SEP:
            p += 1
            continue
        if c == ord("["):
            if p and data[p - 1] == ESC:
                m = _CSI.match(data, p - 1)
                if m is not None:  # before a citation: "\x1b[src:x]" is "\x1b[s" and text
                    p = fresh = m.end()
                    continue
            m = _CITATION.match(data, p)
            if m is not None:
                out.add(CITATION, p, m.end(), -1, -1, m.start(1), m.end(1), VALUE_RAW)
                p = m.end()
                continue
        if p != fresh and not _start_ok(data, p, chains):
            p = _WORD.match(data, p).end() if c in W else p + 1
            continue
        prev = data[p - 1] if p and p != fresh else 0x20
        path_ok = prev not in _PATH_PUNCT
        if c in _LETTERS and p >= pins.req_end and not p < pins.pin_at:
            # grammar v11 (red team 116 F07): a requirement's kv fact, whatever the name's words
            # are (the pin of a plain word, read below, gives way to it)
            ne, vs, ve, vk = _match_requirement(data, p)
            pins.req_end = ne
            if vs >= 0:
                out.add(KV, p, ve, p, ne, vs, ve, vk)
                pins.req_at = p

        if c in _LETTERS or c == ord("_"):
            if c in _LETTERS and prev not in b"+-":
                e = _match_url(data, p)
                if e >= 0:
                    out.add(URL, p, e, -1, -1, p, e, VALUE_RAW)
                    p = e
                    continue
            if prev != ord("-"):
                kv = _match_key_value(data, p)
                if kv is not None:
                    end, ks, ke, vs, ve, vk, resume = kv
                    out.add(KV, p, end, ks, ke, vs, ve, vk)
                    p = resume
                    continue
        if (c in W or c in b"./~\\") and path_ok:
            e = _match_path(data, p)
            if e >= 0:
                out.add(PATH, p, e, -1, -1, p, e, VALUE_RAW)
                p = e
                continue
        if c in _KEY_START or c in _DIGITS:
            e = _match_email(data, p)
            if e >= 0:  # the value is lower-cased: e-mail addresses are compared without case
                out.add(IDENTIFIER, p, e, -1, -1, p, e, VALUE_HEX)
                p = e
                continue
        if c in W:
            s, e = _match_glued_email(data, p)
            if e >= 0:  # grammar v10, v12: the run before the address holds no fact
                out.add(IDENTIFIER, s, e, -1, -1, s, e, VALUE_HEX)
                p = e
                continue
        if c in _HEX:
            m = _UUID.match(data, p)
            if m is None:
                m = _HEX_RUN.match(data, p)
                if m is not None and not _is_digest(m.group()):
                    m = None
            if m is not None:
                out.add(DIGEST, p, m.end(), -1, -1, p, m.end(), VALUE_HEX)
                p = m.end()
                continue
        if c in _DIGITS or c in b"+-.":
            if c == ord("-"):
                kv = _match_flag_value(data, p)
                if kv is not None:
                    end, ks, ke, vs, ve, vk, resume = kv
                    out.add(KV, p, end, ks, ke, vs, ve, vk)
                    p = resume
                    continue
                m = _FLAG.match(data, p)
                if m is not None:
                    out.add(IDENTIFIER, p, m.end(), -1, -1, p, m.end(), VALUE_RAW)
                    p = m.end()
                    continue
            m = _NUMBER.match(data, p)
            if m is not None:
                out.add(NUMBER, p, m.end(), -1, -1, p, m.end(), VALUE_NUMBER)
                p = m.end()
                continue
            if c == ord("."):
                m = _DOTFILE.match(data, p)
                if m is not None:
                    out.add(IDENTIFIER, p, m.end(), -1, -1, p, m.end(), VALUE_RAW)
                    p = m.end()
                    continue
        if c == ord('"'):
            kv = _match_json_key_value(data, p)
            if kv is not None:
                end, ks, ke, vs, ve, vk, resume = kv
                out.add(KV, p, end, ks, ke, vs, ve, vk)
                p = resume
                continue
        if c in W:
            if c in _LOWER:
                e = _match_hyphen_id(data, p)
                if e >= 0:
                    out.add(IDENTIFIER, p, e, -1, -1, p, e, VALUE_RAW)
                    p = e
                    continue
            if c in b"vV":
                m = _VERSION.match(data, p)
                if m is not None:
                    out.add(NUMBER, p, m.end(), -1, -1, p, m.end(), VALUE_NUMBER)
                    p = m.end()
                    continue
            if c not in _DIGITS:
                m = _DOTTED.match(data, p)
                if m is not None and any(len(part) >= 2 for part in m.group().split(b".")):
                    out.add(IDENTIFIER, p, m.end(), -1, -1, p, m.end(), VALUE_RAW)
                    p = m.end()
                    continue
            end = _WORD.match(data, p).end()
            kind = _classify_word(data, p, end)
            if not kind:
                e = _plain_word_fact(data, p, end, prev, pins)
                if e >= 0:
                    out.add(IDENTIFIER, p, e, -1, -1, p, e, VALUE_RAW)
                    if p < pins.pin_at and (p == pins.key_start or p == pins.last_start) and p != pins.req_at:
                        # grammar v8: the pin's kv fact, right after the identifier it starts with
                        # (rows stay in (start, end, kind) order: its end is the ref's)
                        out.add(KV, p, pins.value_end, p, pins.pin_at, pins.value_start, pins.value_end,
                                pins.value_kind)
                    p = e
                    continue
            if kind == NUMBER:
                end = _compound_cardinal_end(data, p, end)
            if kind:
                vk = VALUE_NUMBER if kind == NUMBER else VALUE_RAW
                out.add(kind, p, end, -1, -1, p, end, vk)
            p = end
            continue
        p += 1


# -- quote layer -------------------------------------------------------------------------------


_BACKTICK_RUNS: dict[int, re.Pattern] = {}


def _backtick_run(k: int) -> re.Pattern:
    """A run of exactly ``k`` backticks."""
    pattern = _BACKTICK_RUNS.get(k)
    if pattern is None:
        pattern = _BACKTICK_RUNS[k] = re.compile(rb"(?<!`)`{%d}(?!`)" % k)
    return pattern


def _backtick_runs_after(data: bytes, p: int, le: int) -> dict[int, int]:
    """Where the last run of each length of backticks in ``data[p:le]`` starts."""
    return {m.end() - m.start(): m.start() for m in _BACKTICKS.finditer(data, p, le)}


def _inline_quotes(data: bytes, ls: int, le: int, out: list) -> None:
    """Inline quotes of the line ``data[ls:le]`` (``le`` is at its ``\\n`` or the end)."""
    double_dead = single_dead = False  # a failed opener means no later one can close either
    # A failed backtick opener says nothing of other lengths, and a line holds ~sqrt(2n) runs
    # of distinct lengths: searching to the end of the line for each was O(n^1.5) (red team
    # 50, f05). So the first failed search notes where the line's last run of each length
    # starts; an opener of k backticks at i then has a closer iff that of k is after i.
    last_run: dict[int, int] | None = None
    i = ls
    while True:
        m = _INLINE_DELIM.search(data, i, le)
        if m is None:
            return
        i = m.start()
        c = data[i]
        if c == ord("`"):
            k = _BACKTICKS.match(data, i, le).end() - i
            if last_run is not None and last_run.get(k, -1) <= i:
                i += k  # no run of k backticks after this one on the line
                continue
            close = _backtick_run(k).search(data, i + k, le)
            if close is None:  # at most once per line: from now on a search always succeeds
                last_run = _backtick_runs_after(data, i + k, le)
                i += k
                continue
            j = close.start()
            out.append((QUOTE, i, j + k, -1, -1, i + k, j, VALUE_RAW))
            i = j + k
        elif c == ord('"'):
            q = None if double_dead else _DOUBLE_QUOTED.match(data, i, le)
            if q is None:
                double_dead = True
                i += 1
                continue
            if q.end(1) > q.start(1):
                out.append((QUOTE, i, q.end(), -1, -1, q.start(1), q.end(1), VALUE_RAW))
            i = q.end()
        else:  # "'": an apostrophe inside a word never opens, "don't" is not a quote
            opens = (
                not single_dead
                and (i == 0 or data[i - 1] not in W)
                and i + 1 < le
                and data[i + 1] not in SEP
                and data[i + 1] != ord("'")
            )
            if not opens:
                i += 1
                continue
            close = _SINGLE_CLOSE.search(data, i + 2, le) if i + 2 <= le else None
            if close is None:
                single_dead = True
                i += 1
                continue
            j = close.start()
            out.append((QUOTE, i, j + 1, -1, -1, i + 1, j, VALUE_RAW))
            i = j + 1


def _fence_value_end(data: bytes, value_start: int, body_end: int) -> int:
    """The body without the line break before the closing fence (or the end of the text)."""
    e = body_end
    if e > value_start and data[e - 1] == 0x0A:
        e -= 1
        if e > value_start and data[e - 1] == 0x0D:
            e -= 1
    return e


def _tilde_underline(data: bytes, ls: int, after: int, k: int, le: int) -> bool:
    """Is the line of tildes ``data[ls:le]`` (its ``k`` tildes ending at ``after``) a heading's
    underline, no fence: tildes and blanks only, right under a line that holds a character
    other than blanks, backticks and tildes, and no shorter (in characters) than that line
    without its trailing blanks (``Title`` / ``~~~~~``, reStructuredText; red team 128, F13)?"""
    if ls == 0 or data[after:le].strip(b" \t\r"):
        return False
    above = data[data.rfind(b"\n", 0, ls - 1) + 1:ls - 1].rstrip(b" \t\r")
    if above[-1:] in (b":", b".", b"!", b"?"):
        return False  # (a line that ends a sentence or introduces what follows, no title: red team 129, F02)
    return bool(above.strip(b" \t\r`~")) and k >= len(above) - sum(1 for c in above if 0x80 <= c < 0xC0)


def _quote_spans(data: bytes) -> list:
    n = len(data)
    out: list = []
    fence = None  # [slot, backtick count, span start, value start] of the open fence
    ls = 0
    while True:
        le = data.find(b"\n", ls)
        if le < 0:
            le = n
        if fence is None:
            m = _FENCE_OPEN.fullmatch(data, ls, le)
            if m is not None and not (m.group(2) is not None and _tilde_underline(data, ls, m.end(2), len(m.group(2)), le)):
                g = 1 if m.group(1) is not None else 2
                fence = [len(out), len(m.group(g)), m.start(g), min(le + 1, n), m.group(g)[:1]]
                out.append(None)  # the fence starts before the quotes inside it
            else:
                _inline_quotes(data, ls, le, out)
        else:
            m = _FENCE_CLOSE.fullmatch(data, ls, le)
            if m is not None and len(m.group(1)) >= fence[1] and m.group(1)[:1] == fence[4]:
                slot, _, start, vs, _ = fence
                ve = _fence_value_end(data, vs, ls)
                if ve > vs:
                    out[slot] = (QUOTE, start, m.end(1), -1, -1, vs, ve, VALUE_RAW)
                fence = None
            else:
                _inline_quotes(data, ls, le, out)
        if le >= n:
            break
        ls = le + 1
    if fence is not None:  # an unclosed fence runs to the end of the text (CommonMark)
        slot, _, start, vs, _ = fence
        ve = _fence_value_end(data, vs, n)
        if ve > vs:
            out[slot] = (QUOTE, start, n, -1, -1, vs, ve, VALUE_RAW)
    return [row for row in out if row is not None]


# -- entry points ------------------------------------------------------------------------------

_COLUMNS = (
    ("kind", np.uint8),
    ("start", np.int64),
    ("end", np.int64),
    ("key_start", np.int64),
    ("key_end", np.int64),
    ("value_start", np.int64),
    ("value_end", np.int64),
    ("value_kind", np.uint8),
)


# No text has this many spans: a larger limit is this one (and one more row still fits an
# int64, the native module's count).
MAX_SPAN_LIMIT = (1 << 63) - 2


def span_limit(max_spans: Any) -> int:
    """``max_spans`` checked (an int >= 0), at most :data:`MAX_SPAN_LIMIT`."""
    if isinstance(max_spans, bool) or not isinstance(max_spans, int):
        raise TypeError(f"max_spans must be an int, not {type(max_spans).__name__}")
    if max_spans < 0:
        raise ValueError("max_spans must be >= 0")
    return min(max_spans, MAX_SPAN_LIMIT)


# grammar v9 (red team 113 F01): the full-width at signs U+FF20 and U+FE6B, which CJK input
# methods type for "@"; three non-ASCII bytes, so word bytes, which hid the mention after them
WIDE_ATS = (b"\xef\xbc\xa0", b"\xef\xb9\xab")
_AS_AT = b"\x00\x00@"


def _as_token_text(data: bytes) -> bytes:
    """``data`` as the token layer reads it: each full-width at sign as two blank bytes and an
    "@" (the same length, so every span's offsets are the text's own). Its mention then opens as
    after an "@" that follows no word byte (``请＠张三``, ``cc＠alice``); no word, address, pin,
    URL or value runs through it."""
    if b"\xef" not in data:
        return data
    for sign in WIDE_ATS:
        data = data.replace(sign, _AS_AT)
    return data


# grammar v13 (red team 116): the decimal digits of other scripts a number may be written in,
# each read by the token layer as the ASCII digit it is: full-width U+FF10-U+FF19 (EF BC 90-99),
# Arabic-Indic U+0660-U+0669 (D9 A0-A9), Extended Arabic-Indic U+06F0-U+06F9 (DB B0-B9) and
# Devanagari U+0966-U+096F (E0 A5 A6-AF). They were word bytes like every non-ASCII byte, so
# "Wait ４０ seconds" held no number and any figure written in them was grounded by nothing.
_FOREIGN_DIGIT = re.compile(rb"\xef\xbc[\x90-\x99]|\xd9[\xa0-\xa9]|\xdb[\xb0-\xb9]|\xe0\xa5[\xa6-\xaf]")


def _ascii_digit(m: re.Match) -> bytes:
    c = m.group()
    base = {0xEF: 0x90, 0xD9: 0xA0, 0xDB: 0xB0, 0xE0: 0xA6}[c[0]]
    return bytes((0x30 + c[-1] - base,))


def fold_digits(raw: bytes) -> bytes:
    """``raw`` with each non-ASCII decimal digit of grammar v13 as its ASCII digit (``raw`` itself
    when it holds none)."""
    if not _has_foreign_digit(raw):
        return raw
    return _FOREIGN_DIGIT.sub(_ascii_digit, raw)


def _has_foreign_digit(raw: bytes) -> bool:
    # (four byte searches pass over a text that holds no lead byte of one)
    return (b"\xef" in raw or b"\xd9" in raw or b"\xdb" in raw or b"\xe0" in raw) and _FOREIGN_DIGIT.search(raw) is not None


def _folded_token_text(data: bytes) -> tuple[bytes, list[int], list[int]]:
    """``data`` with its non-ASCII decimal digits folded to ASCII (grammar v13), and how to map
    an offset of the folded text back: ``at`` holds the folded offset of each folded digit and
    ``extra[k]`` the bytes the first ``k`` of them lost (see ``_unfold``). Empty lists: no digit
    was folded."""
    at: list[int] = []
    extra: list[int] = [0]
    if not _has_foreign_digit(data):
        return data, at, extra
    parts: list[bytes] = []
    last = 0
    for m in _FOREIGN_DIGIT.finditer(data):
        parts.append(data[last : m.start()])
        at.append(m.start() - extra[-1])
        extra.append(extra[-1] + m.end() - m.start() - 1)
        parts.append(_ascii_digit(m))
        last = m.end()
    if not at:
        return data, at, extra
    parts.append(data[last:])
    return b"".join(parts), at, extra


def _unfold(rows: list[tuple], at: list[int], extra: list[int]) -> list[tuple]:
    """The token rows of the folded text with their offsets in the text itself: an offset ``c``
    of the folded text is ``c`` plus the bytes the folded digits before it lost (a digit at
    ``c`` itself is after it: a span that starts there starts at the digit)."""
    def orig(c: int) -> int:
        return c if c < 0 else c + extra[bisect_left(at, c)]

    return [(k, orig(s), orig(e), orig(ks), orig(ke), orig(vs), orig(ve), vk)
            for k, s, e, ks, ke, vs, ve, vk in rows]


def scan(data: Any, max_spans: int, *, shortcut: bool = True) -> tuple[np.ndarray, ...]:
    """The grounded spans of UTF-8 ``data`` as eight columns (see the module docstring).

    Raises ``LimitExceededError`` when there are more than ``max_spans`` spans.
    """
    data = bytes_like(data)
    max_spans = span_limit(max_spans)
    tokens = _Out(max_spans)
    text, at, extra = _folded_token_text(_as_token_text(data))
    _token_spans(text, tokens, shortcut)
    if at:
        tokens.rows = _unfold(tokens.rows, at, extra)
    quotes = _quote_spans(data)
    rows = sorted(tokens.rows + quotes, key=lambda r: (r[1], r[2], r[0]))
    if len(rows) > max_spans:
        raise LimitExceededError(
            f"text has more than {max_spans} grounded spans (max_spans); split it or raise the limit"
        )
    if not rows:
        return tuple(np.empty(0, dtype=t) for _, t in _COLUMNS)
    cols = list(zip(*rows))
    return tuple(np.array(col, dtype=t) for col, (_, t) in zip(cols, _COLUMNS))


def utf8_error_offset(data: Any) -> int:
    """Offset of the first byte that is not part of valid UTF-8, or -1 if ``data`` is valid.

    Valid means what Python's strict UTF-8 codec accepts: no overlong forms, no surrogates
    (U+D800-U+DFFF), nothing above U+10FFFF, no truncated sequence.
    """
    data = bytes_like(data)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start
    return -1


# -- framing for fingerprints ------------------------------------------------------------------

_LEN = 8  # every length in a frame is an unsigned 64-bit little-endian integer


def _frame_len(length: int) -> bytes:
    return length.to_bytes(_LEN, "little")


def key_bytes(data: bytes, kind: int, key_start: int, key_end: int) -> tuple[bytes, int]:
    """``(key, flag)``: the config key of a kv fact (flag 1), or the kind's name (flag 0). The
    flag keeps ``number=5`` (key "number") apart from the number ``5`` (kind "number")."""
    if key_start < 0:
        return KIND_NAMES[kind], 0
    return data[key_start:key_end], 1


def frame_key(key: bytes, flag: int) -> bytes:
    return b"K" + bytes((flag,)) + _frame_len(len(key)) + key


def frame_keys(keys: list[bytes], flag: int) -> list[bytes]:
    """``frame_key`` of many keys with one flag (the gate frames every leftover identifier)."""
    tag = b"K" + bytes((flag,))
    return [tag + len(k).to_bytes(_LEN, "little") + k for k in keys]


def frame_value(value: bytes) -> bytes:
    return b"V" + _frame_len(len(value)) + value


def frame_fact(key: bytes, flag: int, value: bytes) -> bytes:
    return b"F" + bytes((flag,)) + _frame_len(len(key)) + key + _frame_len(len(value)) + value


def frame_facts(
    data: Any,
    kind: Any,
    key_start: Any,
    key_end: Any,
    value_start: Any,
    value_end: Any,
    value_kind: Any,
    *,
    scratch: Any = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The framed records of every span in one buffer, for one bulk hashing call.

    Spans ``2i`` and ``2i+1`` of the returned ``(buffer, starts, ends)`` are row ``i``'s value
    and fact frames; after the ``2n`` of them come the key frames of the kv rows (the rows
    with a key span), in row order. A row whose key is its kind's name has no key frame: that
    key's fingerprint is a constant of the kind. Frames (lengths are u64 little-endian):

    - key:   ``b"K" + flag + len(key) + key``
    - value: ``b"V" + len(value) + value``  (the normalised value)
    - fact:  ``b"F" + flag + len(key) + key + len(value) + value``

    ``flag`` is 1 for a config key (kv facts) and 0 when the key is the kind's name. The
    buffer holds each row's frames together (value, fact, key), so spans ``2n`` onwards point
    back into it. ``scratch`` is accepted for the native module's sake (it may write into
    it); the reference always returns new arrays.
    """
    from provgate.errors import SpanError

    data = bytes_like(data)
    cols = [np.asarray(c).astype(np.int64).tolist() for c in (kind, key_start, key_end, value_start, value_end, value_kind)]
    rows = len(cols[0])
    if any(len(c) != rows for c in cols):
        raise SpanError("fact columns differ in length")
    size = len(data)
    parts: list[bytes] = []  # in buffer order: value, fact and (kv rows) key frame of each row
    spans: list[tuple[int, int]] = []
    key_spans: list[tuple[int, int]] = []
    pos = 0
    for i, (k, ks, ke, vs, ve, vk) in enumerate(zip(*cols)):
        if k not in KIND_NAMES:
            raise SpanError(f"row {i} has an unknown kind {k}")
        if vk not in (VALUE_RAW, VALUE_NUMBER, VALUE_HEX):
            raise SpanError(f"row {i} has an unknown value kind {vk}")
        if not 0 <= vs <= ve <= size:
            raise SpanError(f"row {i} has a value span [{vs}, {ve}) outside the text")
        if not ((ks == -1 and ke == -1) or 0 <= ks <= ke <= size):
            raise SpanError(f"row {i} has a key span [{ks}, {ke}) outside the text")
        key, flag = key_bytes(data, k, ks, ke)
        value = normalize_value(vk, data[vs:ve])
        for frame, where in (
            (frame_value(value), spans),
            (frame_fact(key, flag, value), spans),
            (frame_key(key, flag) if flag else None, key_spans),
        ):
            if frame is not None:
                parts.append(frame)
                where.append((pos, pos + len(frame)))
                pos += len(frame)
    index = np.array(spans + key_spans, dtype=np.int64).reshape(-1, 2)
    return (
        np.frombuffer(b"".join(parts), dtype=np.uint8),
        np.ascontiguousarray(index[:, 0]),
        np.ascontiguousarray(index[:, 1]),
    )


# -- extraction: columns and fingerprints ------------------------------------------------------


def kind_key_frames() -> list[bytes]:
    """The key frames of the kind names, for kinds 1 to 9: a fact whose key is its kind's name
    has the key fingerprint of one of these."""
    return [frame_key(KIND_NAMES[k], 0) for k in range(1, max(KIND_NAMES) + 1)]


def extract_columns(data: Any, max_spans: int, key: bytes) -> tuple[np.ndarray, ...]:
    """The eleven read-only columns of a fact table: the eight of :func:`scan`, then
    ``fp_key``, ``fp_value``, ``fp_fact`` as ``(n, 2)`` uint64 ``(hi, lo)``: the first 16
    bytes of the keyed BLAKE3 digest (``key``, 32 bytes) of the row's frames (see
    :func:`frame_facts`), read as two big-endian words. ``data`` is not validated as UTF-8.
    """
    from provgate import _hashing_py

    data = bytes_like(data)
    max_spans = span_limit(max_spans)
    if type(key) is not bytes or len(key) != 32:
        raise ValueError("key must be 32 bytes")
    cols = scan(data, max_spans)
    kind, _, _, ks, ke, vs, ve, vk = cols
    n = kind.shape[0]
    buf, starts, ends = frame_facts(data, kind, ks, ke, vs, ve, vk)
    words = _hashing_py.hash_spans(buf, starts, ends, key=key).view(">u8")  # (frames, 4)
    fp_value = words[0 : 2 * n : 2, :2].astype(np.uint64)
    fp_fact = words[1 : 2 * n : 2, :2].astype(np.uint64)
    kind_fps = np.zeros((max(KIND_NAMES) + 1, 2), dtype=np.uint64)
    kind_fps[1:] = _hashing_py.hash_buffers(kind_key_frames(), key=key).view(">u8")[:, :2]
    fp_key = kind_fps[kind]
    fp_key[ks >= 0] = words[2 * n :, :2]
    out = (*cols, fp_key, fp_value, fp_fact)
    for column in out:
        column.flags.writeable = False
    return out


def extract_columns_many(datas: Any, max_spans: int, key: bytes) -> list[tuple[np.ndarray, ...]]:
    """:func:`extract_columns` of each of ``datas`` (a list or tuple of ``bytes``), in order:
    the first text over ``max_spans`` raises, as calling it text by text would. (The native
    module scans the texts in one call and fingerprints their facts together.)"""
    max_spans = span_limit(max_spans)
    if type(key) is not bytes or len(key) != 32:
        raise ValueError("key must be 32 bytes")
    return [extract_columns(data, max_spans, key) for data in check_byte_items(datas, "datas")]


def first_invalid_row(size: int, kind: np.ndarray, start: np.ndarray, end: np.ndarray, key_start: np.ndarray,
                      key_end: np.ndarray, value_start: np.ndarray, value_end: np.ndarray, value_kind: np.ndarray,
                      max_kind: int, max_value_kind: int, kv_kind: int) -> tuple[int, str] | None:
    """The first row no scan of a ``size``-byte text could have produced, as ``(row, what is
    wrong)``, or None. The checks go in this order, and the row is the first that fails the
    first check any row fails: a kind outside 1..``max_kind``; a value kind above
    ``max_value_kind``; a span outside the text (``0 <= start < end <= size``); a value
    outside its span; a key that does not match its kind (a ``kv_kind`` row has its key inside
    its span, any other row none: -1, -1); rows not sorted by (start, end, kind), where the
    row is the first position a stable sort would change. (A fact table read back from the
    store's cache is checked with this before it is used.)"""
    checks = (
        ("unknown kind", (kind < 1) | (kind > max_kind)),
        ("unknown value kind", value_kind > max_value_kind),
        ("span outside the text", (start < 0) | (end <= start) | (end > size)),
        ("value outside its span", (value_start < start) | (value_end < value_start) | (value_end > end)),
    )
    no_key = (key_start == -1) & (key_end == -1)
    is_kv = kind == kv_kind
    checks += (("key does not match its kind",
                np.where(is_kv, no_key | (key_start < start) | (key_end < key_start) | (key_end > end), ~no_key)),)
    for what, bad in checks:
        if bad.any():
            return int(np.flatnonzero(bad)[0]), what
    if kind.shape[0] > 1:
        order = np.lexsort((kind, end, start))
        moved = order != np.arange(kind.shape[0])
        if moved.any():
            return int(np.flatnonzero(moved)[0]), "rows out of order"
    return None


def check_span_columns(data: Any, kind: Any, value_start: Any, value_end: Any, wanted: Any) -> None:
    """The arguments of ``span_values`` (messages shared by both implementations)."""
    if type(data) is not bytes:
        raise TypeError(f"data must be bytes, not {type(data).__name__}")
    if not isinstance(kind, np.ndarray) or kind.dtype != np.uint8 or kind.ndim != 1:
        raise TypeError("kind must be a 1-D uint8 array")
    for column, name in ((value_start, "value_start"), (value_end, "value_end")):
        if not isinstance(column, np.ndarray) or column.dtype != np.int64 or column.ndim != 1:
            raise TypeError(f"{name} must be a 1-D int64 array")
        if column.shape[0] != kind.shape[0]:
            raise InvalidArgumentError(f"{name} has {column.shape[0]} rows for {kind.shape[0]} kinds", argument=name)
    if type(wanted) is not int:
        raise TypeError(f"wanted must be an int, not {type(wanted).__name__}")
    if not 0 <= wanted <= 255:
        raise InvalidArgumentError(f"wanted must be in 0..255, got {wanted}", argument="wanted")


def span_values(data: Any, kind: Any, value_start: Any, value_end: Any, wanted: Any) -> tuple[str, ...]:
    """The distinct value texts of the rows of kind ``wanted``, decoded from UTF-8, in order of
    first appearance (the gate's citation-marker names of a fact table). A value span outside
    ``data`` raises ``InvalidArgumentError`` naming its row; bytes that are not UTF-8 raise
    ``UnicodeDecodeError``."""
    check_span_columns(data, kind, value_start, value_end, wanted)
    names: dict[str, None] = {}
    for row in np.flatnonzero(kind == wanted).tolist():
        a, b = int(value_start[row]), int(value_end[row])
        if not 0 <= a <= b <= len(data):
            raise InvalidArgumentError(f"the value span of row {row}, [{a}, {b}), is outside the {len(data)} bytes of data",
                                       argument="value_start")
        names[data[a:b].decode("utf-8")] = None
    return tuple(names)
