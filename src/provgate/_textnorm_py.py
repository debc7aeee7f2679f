"""Whitespace-normalised text equality, the pure-Python reference (the executable specification).

The gate's structural fast path treats a post block as unchanged when it equals a pre block
after the documented whitespace normalisation (:func:`normalize_whitespace`, also exported by
``provgate.gate``):

- ``\\r\\n`` line endings become ``\\n`` (a lone ``\\r`` is kept: it is text, not a line break);
- trailing spaces and tabs of every line are removed;
- leading and trailing blank lines are dropped.

Nothing inside a line changes. ``normalised_lines(text)`` gives the lines a text normalises to;
``same_after_normalisation(a, b)`` compares texts pairwise: item ``i`` of the returned bool
array is ``normalised_lines(a[i]) == normalised_lines(b[i])``, which is the same as
``normalize_whitespace(a[i]) == normalize_whitespace(b[i])`` without building either string.
Characters are compared as code points, so lone surrogates are ordinary characters here.

Errors: ``a`` or ``b`` not a list or tuple, or an item not a ``str``: ``TypeError`` naming it;
lists of different lengths: ``InvalidArgumentError``. The native module
``provgate._ext.textnorm`` must agree exactly.
"""

from __future__ import annotations

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


def normalised_lines(text: str) -> list[str]:
    """The lines of ``text`` after the whitespace normalisation (see the module docstring)."""
    if "\r\n" in text:
        text = text.replace("\r\n", "\n")
    lines = [line.rstrip(" \t") for line in text.split("\n")]
    i, j = 0, len(lines)
    while i < j and not lines[i]:
        i += 1
    while j > i and not lines[j - 1]:
        j -= 1
    return lines[i:j]


def normalize_whitespace(text: str) -> str:
    """The documented whitespace normalisation of the gate's structural fast path.

    ``\\r\\n`` line endings become ``\\n`` (a lone ``\\r`` is kept: turning it into a line break
    could start a ``key: value`` line), trailing spaces and tabs of every line are removed, and
    leading and trailing blank lines are dropped. Nothing inside a line changes, so no token is
    split or joined and the grounded spans of the text keep their values.
    """
    return "\n".join(normalised_lines(text))


def same_after_normalisation(a: Any, b: Any) -> np.ndarray:
    """For each pair ``(a[i], b[i])``: are the texts equal after the whitespace normalisation?"""
    check_pairs(a, b)
    return np.array([normalised_lines(x) == normalised_lines(y) for x, y in zip(a, b)], dtype=np.bool_)
