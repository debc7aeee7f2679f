"""Where a key=value line sits in a nested config: the keys that enclose it.

A summary of a YAML, JSON, INI or TOML source names a nested value by its path
(``server.port=8080``), which the source never writes as such: it writes ``port: 8080`` under
``server:``. The gate grounds such a dotted key=value fact when the source holds the leaf pair
at a place whose enclosing keys end with the path's other components (red team 14, p07) — and
only there: ``db.port=8080`` is not grounded by the server's port.

The reading is deliberately shallow and never fails: indentation (YAML blocks), ``[section]``
and ``[a.b]`` headers (INI, TOML), and braces and brackets after a key (JSON, YAML flow). A
text that is none of these yields paths that match nothing, so a dotted fact stays ungrounded.
This is a rare fallback of I1 (a dotted fact no source holds as written), not a hot path.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["enclosing_keys"]

_SECTION = re.compile(rb"^\s*\[\s*([A-Za-z0-9_.\- ]+?)\s*\]\s*(?:[#;].*)?$")
_BLOCK_KEY = re.compile(rb"""^(?:-\s+)?(?:"([^"\n]+)"|'([^'\n]+)'|([A-Za-z0-9_.\-]+))\s*:\s*(?:#.*)?$""")
_BARE = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.")


class _Braces:
    """The keys of the open ``{``/``[`` of a JSON-like text, read character by character."""

    def __init__(self) -> None:
        self.stack: list[bytes | None] = []
        self.last: bytes | None = None  # the last string or bare word: a key if ':' follows
        self.pending: bytes | None = None  # a key whose ':' was read, waiting for its value
        self.quote = 0  # the quote character of the open string, else 0
        self.escaped = False
        self.buf = bytearray()

    def feed(self, data: bytes, start: int, end: int) -> None:
        for i in range(start, end):
            c = data[i]
            if self.quote:
                if self.escaped:
                    self.escaped = False
                    self.buf.append(c)
                elif c == 0x5C:  # backslash
                    self.escaped = True
                elif c == self.quote:
                    self.quote = 0
                    self.last = bytes(self.buf)
                else:
                    self.buf.append(c)
                continue
            if c in _BARE:
                if not self.buf or self.last is not None:
                    self.buf = bytearray()
                    self.last = None
                self.buf.append(c)
                continue
            if self.buf and self.last is None:
                self.last = bytes(self.buf)  # a bare word ended
            if c in (0x22, 0x27):  # a string starts
                self.quote, self.buf, self.last = c, bytearray(), None
            elif c == 0x3A:  # ':'
                self.pending, self.last, self.buf = self.last, None, bytearray()
            elif c in (0x7B, 0x5B):  # '{' or '['
                self.stack.append(self.pending)
                self.pending, self.last, self.buf = None, None, bytearray()
            elif c in (0x7D, 0x5D):  # '}' or ']'
                if self.stack:
                    self.stack.pop()
                self.pending, self.last, self.buf = None, None, bytearray()
            elif c not in b" \t\r\n":  # ',' or a value's first byte: no key is pending
                self.pending, self.last, self.buf = None, None, bytearray()

    def keys(self) -> list[bytes]:
        return [k for k in self.stack if k is not None]


def enclosing_keys(data: bytes, positions: Iterable[int]) -> dict[int, tuple[bytes, ...]]:
    """For each byte offset in ``positions``, the keys enclosing it, outermost first: the
    ``[section]`` header above it (split at dots), the YAML block keys it is indented under,
    then the keys of the JSON objects and arrays open around it."""
    wanted = sorted(set(positions))
    out: dict[int, tuple[bytes, ...]] = {}
    if not wanted:
        return out
    section: list[bytes] = []
    blocks: list[tuple[int, bytes]] = []  # (indentation, key) of the open YAML blocks
    braces = _Braces()
    k, n = 0, len(data)
    line_start = 0
    while line_start < n and k < len(wanted):
        nl = data.find(b"\n", line_start)
        line_end = n if nl < 0 else nl
        line = data[line_start:line_end]
        body = line.lstrip(b" \t")
        indent = len(line) - len(body)
        if body.strip() and not body.startswith(b"#"):
            # a line at this indentation closes the YAML blocks opened at it or deeper
            while blocks and blocks[-1][0] >= indent:
                blocks.pop()
        fed = line_start
        while k < len(wanted) and wanted[k] < line_end + 1:
            pos = max(wanted[k], line_start)
            braces.feed(data, fed, pos)
            fed = pos
            out[wanted[k]] = (*section, *(key for _, key in blocks), *braces.keys())
            k += 1
        braces.feed(data, fed, line_end + 1 if nl >= 0 else line_end)
        header = _SECTION.match(line)
        if header is not None and not braces.stack:
            section = [part.strip() for part in header.group(1).split(b".")]
            blocks.clear()
        else:
            opened = _BLOCK_KEY.match(body.rstrip(b"\r"))
            if opened is not None:
                blocks.append((indent, next(g for g in opened.groups() if g is not None)))
        line_start = line_end + 1
    for pos in wanted[k:]:
        out[pos] = (*section, *(key for _, key in blocks), *braces.keys())
    return out


def path_encloses(path: tuple[bytes, ...], prefix: list[bytes]) -> bool:
    """Do the enclosing keys ``path`` end with ``prefix`` (the dotted key's outer parts)?"""
    return 0 < len(prefix) <= len(path) and list(path[len(path) - len(prefix):]) == prefix
