"""Whitespace-normalised text equality, the pure-Python reference (the executable specification).

The gate's structural fast path treats a post block as unchanged when it equals a pre block
after the documented whitespace normalisation (:func:`normalize_whitespace`, also exported by
``provgate.gate``):

- ``\\r\\n`` line endings become ``\\n`` (a lone ``\\r`` is kept: it is text, not a line break);
- trailing spaces and tabs of every line are removed;
- leading and trailing blank lines are dropped;
- except inside a fenced code block: the lines between an opening and a closing fence line (of
  an unclosed fence: every line after the opening one, to the end of the text) are kept
  verbatim, ``\\r`` and trailing blanks included, and are never dropped as blank lines. A
  fence's value is its lines verbatim (docs/grammar.md), so trimming them would change a fact
  (a diff line's trailing blanks, red team 11, y06). Fence lines are found as the scanner's
  quote layer finds them (``provgate._scanner_py._quote_spans``), and the normalisation never
  changes which lines those are: the opening and closing patterns allow trailing blanks and
  ``\\r`` alike.

Nothing inside a line changes. ``normalised_lines(text)`` gives the lines a text normalises to;
``same_after_normalisation(a, b)`` compares texts pairwise: item ``i`` of the returned bool
array is ``normalised_lines(a[i]) == normalised_lines(b[i])``, which is the same as
``normalize_whitespace(a[i]) == normalize_whitespace(b[i])`` without building either string.
Characters are compared as code points, so lone surrogates are ordinary characters here.

Errors: ``a`` or ``b`` not a list or tuple, or an item not a ``str``: ``TypeError`` naming it;
lists of different lengths: ``InvalidArgumentError``. The native module
``provgate._ext.textnorm`` must agree exactly.

``same_without_spaces(a, b)`` compares UTF-8 texts (``bytes``) pairwise with every ASCII space
byte deleted (space, ``\t``, ``\n``, ``\v``, ``\f``, ``\r``: ``bytes.split``'s): a block a
rewrite only re-indented or re-wrapped holds the same words, so the gate's negation rule
(``Gate``'s I2, docs/gate.md "negations") need not read it. The same errors, naming bytes.

``same_words(a, b)`` is ``same_without_spaces`` and the same words: the maximal runs of word
bytes (ASCII letters, digits, ``_`` and every byte from 0x80) of ``a[i]`` and ``b[i]`` are equal
too, so a space put inside a word or taken from between two words (``nowhere`` / ``now here``)
makes the texts differ, while spaces changed beside punctuation (``a , b`` / ``a, b``), a line
re-wrapped or re-indented do not (red team 118, F17). The same errors.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from provgate.errors import InvalidArgumentError

IMPLEMENTATION = "reference"


def check_pairs(a: Any, b: Any) -> None:
    for texts, name in ((a, "a"), (b, "b")):
        if not isinstance(texts, (list, tuple)):
            raise TypeError(f"{name} must be a list or tuple of str, not {type(texts).__name__}")
    if len(a) != len(b):
        raise InvalidArgumentError(f"a and b must have the same length, got {len(a)} and {len(b)}", argument="b")
    for texts, name in ((a, "a"), (b, "b")):
        for i, text in enumerate(texts):
            if not isinstance(text, str):
                raise TypeError(f"{name}[{i}] must be str, not {type(text).__name__}")


def check_byte_pairs(a: Any, b: Any) -> None:
    for texts, name in ((a, "a"), (b, "b")):
        if not isinstance(texts, (list, tuple)):
            raise TypeError(f"{name} must be a list or tuple of bytes, not {type(texts).__name__}")
    if len(a) != len(b):
        raise InvalidArgumentError(f"a and b must have the same length, got {len(a)} and {len(b)}", argument="b")
    for texts, name in ((a, "a"), (b, "b")):
        for i, text in enumerate(texts):
            if type(text) is not bytes:
                raise TypeError(f"{name}[{i}] must be bytes, not {type(text).__name__}")


# The scanner's fence lines (``_scanner_py._FENCE_OPEN`` / ``_FENCE_CLOSE``, there over UTF-8
# bytes, here over characters: the patterns are ASCII, so both find the same lines). A line is
# matched without its ``\n`` and with its ``\r``, as the scanner matches it.
_FENCE_OPEN = re.compile(r" {0,3}+(?:(`{3,}+)[^`]*+|(~{3,}+).*+)")
_FENCE_CLOSE = re.compile(r" {0,3}+(`{3,}+|~{3,}+)[ \t\r]*+")


def _tilde_underline(above: str, tildes: int, rest: str) -> bool:
    """Is a line of ``tildes`` tildes (``rest`` after them) under the line ``above`` a heading's
    underline, no fence (the scanner's ``_tilde_underline``: red team 128, F13)?"""
    if rest.strip(" \t\r"):
        return False
    above = above.rstrip(" \t\r")
    if above[-1:] in (":", ".", "!", "?"):
        return False  # (a line that ends a sentence or introduces what follows: red team 129, F02)
    return bool(above.strip(" \t\r`~")) and tildes >= len(above)


def normalised_lines(text: str) -> list[str]:
    """The lines of ``text`` after the whitespace normalisation (see the module docstring)."""
    lines = text.split("\n")
    last = len(lines) - 1
    out = []
    fence = 0  # backticks (or tildes) of the open fence's opening line; 0 outside a fence
    mark = ""  # the open fence's character
    for k, line in enumerate(lines):
        if fence:
            closing = _FENCE_CLOSE.fullmatch(line)
            if closing is None or len(closing.group(1)) < fence or closing.group(1)[0] != mark:
                out.append(line)  # inside the fence: part of its value, verbatim
                continue
            fence = 0
        else:
            opening = _FENCE_OPEN.fullmatch(line)
            if opening is not None and not (opening.group(2) is not None and k > 0 and _tilde_underline(
                    lines[k - 1], len(opening.group(2)), line[opening.end(2):])):
                run = opening.group(1) or opening.group(2)
                fence, mark = len(run), run[0]
        if k < last and line.endswith("\r"):
            line = line[:-1]  # a \r\n line ending (a \r on the last line is no line ending)
        out.append(line.rstrip(" \t"))
    # a blank line before the first line that is not blank is outside any fence (only a line
    # that is not blank opens one); blank lines at the end are dropped only when no fence is
    # open there: an unclosed fence runs to the end of the text, its blank lines included
    i, j = 0, len(out)
    while i < j and not out[i]:
        i += 1
    if not fence:
        while j > i and not out[j - 1]:
            j -= 1
    return out[i:j]


def normalize_whitespace(text: str) -> str:
    """The documented whitespace normalisation of the gate's structural fast path.

    ``\\r\\n`` line endings become ``\\n`` (a lone ``\\r`` is kept: turning it into a line break
    could start a ``key: value`` line), trailing spaces and tabs of every line are removed, and
    leading and trailing blank lines are dropped; the lines inside a fenced code block are kept
    verbatim. Nothing inside a line changes, so no token is split or joined and the grounded
    spans of the text keep their values (a fence's value is its lines, whitespace and all).
    """
    return "\n".join(normalised_lines(text))


def same_after_normalisation(a: Any, b: Any) -> np.ndarray:
    """For each pair ``(a[i], b[i])``: are the texts equal after the whitespace normalisation?"""
    check_pairs(a, b)
    return np.array([normalised_lines(x) == normalised_lines(y) for x, y in zip(a, b)], dtype=np.bool_)


SPACES = b" \t\n\x0b\x0c\r"


# a word, for same_words
WORD_RUN = re.compile(rb"[0-9A-Za-z_\x80-\xff]+")


def blank_before_line_break(text: str) -> bool:
    """Does a line of ``text`` end in a space, tab or carriage return before its line break
    (``" \\n"``, ``"\\t\\n"`` or ``"\\r\\n"`` in it)? What the gate's pin normalisation
    (``provgate.gate._pin_normalised``) asks before it reads a text line by line. The native
    version finds each line break (memchr) and reads the character before it: three searches
    for the pairs read a next edit's changed turn at ~5 instructions a character each. A str
    subclass is read as its characters (its own ``__contains__`` is not asked). ``text`` not a
    ``str``: ``TypeError``."""
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    return str.__contains__(text, " \n") or str.__contains__(text, "\t\n") or str.__contains__(text, "\r\n")


def same_words(a: Any, b: Any) -> np.ndarray:
    """Item ``i``: ``a[i]`` and ``b[i]`` are equal once every byte of ``SPACES`` is deleted and
    hold the same words (``WORD_RUN``, in order)."""
    check_byte_pairs(a, b)
    return np.array([x.translate(None, SPACES) == y.translate(None, SPACES)
                     and WORD_RUN.findall(x) == WORD_RUN.findall(y) for x, y in zip(a, b)],
                    dtype=np.bool_).reshape(len(a))


def same_without_spaces(a: Any, b: Any) -> np.ndarray:
    """Item ``i``: ``a[i]`` and ``b[i]`` are equal once every byte of ``SPACES`` is deleted."""
    check_byte_pairs(a, b)
    return np.array([x.translate(None, SPACES) == y.translate(None, SPACES) for x, y in zip(a, b)],
                    dtype=np.bool_).reshape(len(a))
