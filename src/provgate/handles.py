"""Handles: the opaque names of sources (``tool:call_8841``, ``doc:doc_7``, ``user:u3``).

A handle is a key, never a path or an SQL identifier: the store binds it as a parameter and
nothing else interprets it. The rules below keep it a well-defined key in every layer it
passes through (SQLite TEXT, JSON, logs): a non-empty ``str`` of at most
:data:`MAX_HANDLE_BYTES` UTF-8 bytes, without NUL (C APIs and many log pipelines truncate at
NUL) and without lone surrogates (they have no UTF-8 encoding, so the handle could not be
stored byte-exactly). Everything else, including spaces, ``/``, ``#`` and quotes, is allowed.
"""

from __future__ import annotations

import re
from typing import Any

from provgate.errors import InvalidHandleError

MAX_HANDLE_BYTES = 1024
# The handle of a window block that has no handle of its own (an assistant turn): its text, as
# the compactor stores it when it summarizes the block, named by the text's BLAKE3.
BLOCK_HANDLE_PREFIX = "block:"


def block_text_handle(text_digest: bytes) -> str:
    """``block:`` + the first 32 hex digits of ``text_digest``, the BLAKE3 of a block's UTF-8 text."""
    return BLOCK_HANDLE_PREFIX + text_digest[:16].hex()


def is_text_handle(handle: str) -> bool:
    """Is ``handle`` a block's text handle (``block:`` + 32 lowercase hex digits)? The store holds
    such a handle only with the bytes it names; another ``block:`` name holds any bytes."""
    return _TEXT_HANDLE.fullmatch(handle) is not None


_TEXT_HANDLE = re.compile(re.escape(BLOCK_HANDLE_PREFIX) + r"[0-9a-f]{32}")


def stored_text_handle(digest: str) -> str | None:
    """The ``block:`` handle of the bytes a store digest (``blake3:<hex>``) names: the handle a
    window block holding those bytes has as its text; None for a digest of another algorithm."""
    return BLOCK_HANDLE_PREFIX + digest[7:39] if digest.startswith("blake3:") else None


def check_handle(handle: Any) -> str:
    """Return ``handle`` as a plain ``str`` if it is a valid handle, else raise InvalidHandleError."""
    if not isinstance(handle, str):
        raise InvalidHandleError(f"a handle must be a str like 'tool:call_8841', not {type(handle).__name__}")
    # A str subclass could override __eq__/__hash__ and behave differently as a dict key than
    # as the SQL parameter; a plain copy behaves the same everywhere.
    handle = str.__str__(handle)
    if not handle:
        raise InvalidHandleError("a handle must not be empty")
    if len(handle) > MAX_HANDLE_BYTES:
        raise InvalidHandleError(
            f"handle {handle[:40]!r}… is {len(handle)} characters long; the limit is {MAX_HANDLE_BYTES} UTF-8 bytes"
        )
    nul = handle.find("\x00")
    if nul >= 0:
        raise InvalidHandleError(f"handle {_preview(handle)!r} contains a NUL character at index {nul}")
    try:
        encoded_length = len(handle.encode("utf-8"))
    except UnicodeEncodeError as exc:
        raise InvalidHandleError(
            f"handle {_preview(handle)!r} contains a lone surrogate U+{ord(handle[exc.start]):04X} "
            f"at index {exc.start}; handles must be encodable as UTF-8"
        ) from None
    if encoded_length > MAX_HANDLE_BYTES:
        raise InvalidHandleError(
            f"handle {_preview(handle)!r} is {encoded_length} UTF-8 bytes long; the limit is {MAX_HANDLE_BYTES}"
        )
    return handle


def _preview(handle: str) -> str:
    return handle if len(handle) <= 60 else handle[:60] + "…"


__all__ = ["MAX_HANDLE_BYTES", "check_handle"]
