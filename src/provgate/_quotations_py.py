"""The quotations a polarity rule asks, the pure-Python reference (the executable specification).

The gate asks of a summary's quotations whether they keep the negation their sources put
before them (docs/gate.md, I1 — "quoted polarity"). Not every quotation is asked: a code span
names a thing (``rm -rf /``), a quotation inside one is code too (``API_URL = "https://…"`` in
backticks), and a one-word quotation is left to the quotation rule. :func:`asked_quotations`
finds, for a batch of fact tables, the rows asked:

- the row's kind is ``quote_kind``;
- it is no code span: the byte before its words (``starts``) is not a backtick;
- it stands in no code span: no row of ``quote_kind`` that is a code span, met before it in
  row order (a table's rows are sorted by where they start), holds its words
  (``code start <= start and end <= code end``; code spans do not overlap one another, so the
  last one met is the only one that may);
- its words hold two words or more: two runs of word bytes (``0-9 A-Z a-z _ '`` and every
  byte from 0x80) with a byte of another kind between.

Returns ``(owner, row)``, two int64 arrays: the table each row is of and the row, in order.

Errors: ``datas``, ``kinds``, ``starts`` or ``ends`` not a list or tuple, or of different
lengths: ``TypeError`` / ``InvalidArgumentError`` naming the argument; an item of ``datas``
not bytes, of the others not a one-dimensional C-contiguous numpy array of uint8 (``kinds``)
or int64 (``starts``, ``ends``) of its table's length: ``TypeError``; a start or end outside
its text, or an end before its start: ``InvalidArgumentError``. The native module
``provgate._ext.quotations`` must agree exactly.

:func:`asks_outside_code_spans` says whether a block's words outside its code spans may ask
for one: whether a word of ``words`` (a verb of doing or a word of request, which the gate's
code-span rule needs before it reads any span's clause) stands in ``data`` outside a code span.
Read line by line: a line with an even count of backticks without the bytes between each pair
(its spans), one with an odd count whole (generous: the rule reads it span by span); a word is
a run of ASCII letters, digits and ``_``, compared lower-cased. ``words`` is a frozenset of at
most ``MAX_WORDS`` bytes objects, each 1 to ``MAX_WORD_BYTES`` bytes of ``0-9 a-z _``; ``data``
bytes. Otherwise ``TypeError`` (a type) or ``InvalidArgumentError`` (a word, or too many).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from provgate.errors import InvalidArgumentError

IMPLEMENTATION = "reference"

BACKTICK = 0x60
WORD_BYTES = frozenset(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_'") | frozenset(range(0x80, 0x100))

MAX_WORDS = 1024
MAX_WORD_BYTES = 16
# every byte but an ASCII letter, digit or "_" a blank, and the letters lower-cased: the words
_LOWER_WORD_BYTES = bytes(c if chr(c).isascii() and (chr(c).isalnum() or c == 0x5F) else 0x20
                          for c in range(256)).lower()
_ASKING_WORD = frozenset(b"0123456789abcdefghijklmnopqrstuvwxyz_")


def check_batch(datas: Any, kinds: Any, starts: Any, ends: Any, quote_kind: Any) -> None:
    for value, name in ((datas, "datas"), (kinds, "kinds"), (starts, "starts"), (ends, "ends")):
        if not isinstance(value, (list, tuple)):
            raise TypeError(f"{name} must be a list or tuple, not {type(value).__name__}")
    for value, name in ((kinds, "kinds"), (starts, "starts"), (ends, "ends")):
        if len(value) != len(datas):
            raise InvalidArgumentError(f"{name} must have one item a text, got {len(value)} for {len(datas)}",
                                       argument=name)
    if type(quote_kind) is not int or not 0 <= quote_kind <= 255:
        raise TypeError("quote_kind must be an int in 0..255")
    for t in range(len(datas)):
        if type(datas[t]) is not bytes:
            raise TypeError(f"datas[{t}] must be bytes, not {type(datas[t]).__name__}")
        n = None
        for value, name, dtype in ((kinds, "kinds", np.uint8), (starts, "starts", np.int64), (ends, "ends", np.int64)):
            column = value[t]
            if (not isinstance(column, np.ndarray) or column.dtype != dtype or column.ndim != 1
                    or not column.flags.c_contiguous):
                raise TypeError(f"{name}[{t}] must be a one-dimensional C-contiguous {np.dtype(dtype).name} numpy array")
            if n is None:
                n = column.size
            elif column.size != n:
                raise TypeError(f"{name}[{t}] must have the length of kinds[{t}], {n}")


def _two_words(data: bytes, start: int, end: int) -> bool:
    runs = 0
    inside = False
    for c in data[start:end]:
        if c in WORD_BYTES:
            if not inside:
                runs += 1
                if runs == 2:
                    return True
            inside = True
        else:
            inside = False
    return False


def asked_quotations(datas: Any, kinds: Any, starts: Any, ends: Any, quote_kind: Any) -> tuple[np.ndarray, np.ndarray]:
    check_batch(datas, kinds, starts, ends, quote_kind)
    owners: list[int] = []
    rows: list[int] = []
    for t, data in enumerate(datas):
        code_start = code_end = -1
        for r, (k, s, e) in enumerate(zip(kinds[t].tolist(), starts[t].tolist(), ends[t].tolist())):
            if k != quote_kind:
                continue
            if not 0 <= s <= e <= len(data):
                raise InvalidArgumentError(f"row {r} of text {t}: words {s}..{e} outside its {len(data)} bytes",
                                           argument="starts")
            if s > 0 and data[s - 1] == BACKTICK:
                code_start, code_end = s, e
                continue
            if code_start <= s and e <= code_end:
                continue
            if _two_words(data, s, e):
                owners.append(t)
                rows.append(r)
    return np.array(owners, dtype=np.int64), np.array(rows, dtype=np.int64)


def check_words(words: Any) -> None:
    if type(words) is not frozenset:
        raise TypeError(f"words must be a frozenset of bytes, not {type(words).__name__}")
    if len(words) > MAX_WORDS:
        raise InvalidArgumentError(f"words holds {len(words)} words, more than {MAX_WORDS}", argument="words")
    for word in words:
        if type(word) is not bytes:
            raise TypeError(f"each word must be bytes, not {type(word).__name__}")
        if not 1 <= len(word) <= MAX_WORD_BYTES or not _ASKING_WORD.issuperset(word):
            raise InvalidArgumentError(f"word {word!r} is not 1 to {MAX_WORD_BYTES} bytes of 0-9 a-z _",
                                       argument="words")


def asks_outside_code_spans(data: Any, words: Any) -> bool:
    if type(data) is not bytes:
        raise TypeError(f"data must be bytes, not {type(data).__name__}")
    check_words(words)
    for line in data.split(b"\n"):
        pieces = line.split(b"`")
        kept = b" ".join(pieces[::2]) if len(pieces) % 2 else line
        if not words.isdisjoint(kept.translate(_LOWER_WORD_BYTES).split()):
            return True
    return False
