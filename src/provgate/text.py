"""Text in, UTF-8 bytes out: the one place every entry point validates its text.

Everything provgate stores, scans or searches is UTF-8 (offsets are UTF-8 byte offsets), so a
``str`` with a lone surrogate and bytes that are not UTF-8 are refused with
:class:`~provgate.errors.InvalidContentError` naming the character index or byte offset, never
replaced or skipped.
"""

from __future__ import annotations

from typing import Any

from provgate.errors import InvalidContentError


def utf8_bytes(text: Any, what: str = "text", *, hint: str = "") -> bytes:
    """The UTF-8 bytes of ``text`` (a ``str`` or a bytes-like object), validated.

    Bytes-like input is copied into ``bytes``, so the result cannot change under a caller's
    later writes. ``hint`` is appended to the error message (what the caller can do about it).
    """
    from provgate import _scanner  # the native UTF-8 check; imported late: the scanner is heavy

    suffix = f"; {hint}" if hint else ""
    if isinstance(text, str):
        try:
            # str.encode, not text.encode: a subclass's own encode() must not decide what is
            # stored (red team 122, F13: put("tool:g", S("x")) stored S.encode's b"zzz")
            return str.encode(text, "utf-8")
        except UnicodeEncodeError as exc:
            raise InvalidContentError(
                f"{what} contains a lone surrogate U+{ord(text[exc.start]):04X} at index {exc.start}{suffix}"
            ) from None
    if type(text) is bytes:
        data = text
    elif isinstance(text, (bytes, bytearray, memoryview)):
        # a bytes subclass too is copied into exact bytes: the native modules take bytes only,
        # and its own methods (__bytes__, __eq__, ...) must not decide what is stored
        view = memoryview(text)
        if not view.c_contiguous:
            raise InvalidContentError(f"{what} must be a contiguous buffer")
        data = view.tobytes()
    else:
        raise InvalidContentError(f"{what} must be str or UTF-8 bytes, not {type(text).__name__}")
    bad = _scanner.utf8_error_offset(data)
    if bad >= 0:
        raise InvalidContentError(f"{what} is not valid UTF-8: byte 0x{data[bad]:02x} at offset {bad}{suffix}")
    return data
