"""UTF-8 sizes of many texts, the pure-Python reference (the executable specification).

``utf8_lengths(texts)`` returns, for a list or tuple of ``str``, an ``int64`` numpy array with
the number of bytes each text takes in UTF-8 - what ``len(text.encode("utf-8"))`` gives, without
the caller paying for the encoded copies. The compaction planner counts tokens from it.

Errors: ``texts`` not a list or tuple, or an item not a ``str``: ``TypeError`` naming it; a lone
surrogate (it has no UTF-8 encoding): ``InvalidContentError`` naming the text and the index of
the character. The native module ``provgate._ext.textsize`` must agree exactly.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from provgate.errors import InvalidContentError

IMPLEMENTATION = "reference"


def check_texts(texts: Any) -> None:
    if not isinstance(texts, (list, tuple)):
        raise TypeError(f"texts must be a list or tuple of str, not {type(texts).__name__}")


def surrogate_error(i: int, index: int) -> InvalidContentError:
    return InvalidContentError(f"texts[{i}] contains a lone surrogate at index {index}; it has no UTF-8 encoding")


def utf8_lengths(texts: list[str] | tuple[str, ...]) -> np.ndarray:
    check_texts(texts)
    out = np.empty(len(texts), dtype=np.int64)
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(f"texts[{i}] must be a str, not {type(text).__name__}")
        try:
            out[i] = len(str.encode(text, "utf-8"))
        except UnicodeEncodeError as exc:
            raise surrogate_error(i, exc.start) from None
    return out


__all__ = ["IMPLEMENTATION", "utf8_lengths"]
