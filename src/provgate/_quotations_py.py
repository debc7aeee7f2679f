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
"""

from __future__ import annotations

from typing import Any

import numpy as np

from provgate.errors import InvalidArgumentError

IMPLEMENTATION = "reference"

BACKTICK = 0x60
WORD_BYTES = frozenset(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_'") | frozenset(range(0x80, 0x100))


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
