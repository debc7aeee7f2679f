"""Where a key=value line sits in a nested config: the keys that enclose it.

A summary of a YAML, JSON, INI or TOML source names a nested value by its path
(``server.port=8080``), which the source never writes as such: it writes ``port: 8080`` under
``server:``. The gate grounds such a dotted key=value fact when the source holds the leaf pair
at a place whose enclosing keys end with the path's other components (red team 14, p07) — and
only there: ``db.port=8080`` is not grounded by the server's port.

The reading is shallow and never fails, and where it cannot tell what encloses a line it says
so — an unknown key (``None``) — rather than guess: a wrong guess would ground a value under
a key that does not hold it (red team 15). What it reads:

- YAML blocks by indentation: a ``key:`` line (quoted or not, with an anchor, a tag or a block
  scalar indicator after it; a dotted key is a path) opens a block that holds the lines
  indented under it; a list item ``- key:`` opens one at the key's column, and a sequence may
  sit at its parent's indentation. A line indented under a line that opens nothing sits under
  an unknown key.
- ``[section]``, ``[a.b]``, ``[[a]]``, ``[a "b"]`` and ``[a."b"]`` headers (INI, TOML, git
  config); a header it cannot split (``[testenv:lint]``) is one key of that name.
- ``{``/``[`` opened after a key (``"a": {``, ``a: {``, ``a = {``, or with the key alone on the
  line before): JSON, JSONC, YAML flow and TOML inline tables; a bracket opened without a key
  (an array's item) adds nothing.
- Comment lines (``#``, ``;``, ``//``) are skipped, and so are comments after a blank and
  ``/* */`` on one line, as far as brackets go.
- YAML merge keys (``<<: *common``) are not followed: a key a block gets through an anchor
  is found under the anchor's block, not the merging one.

Cost: one pass over the source up to the last place asked, however many places are asked.
This is a fallback of I1 for a dotted fact no source holds as written, not a hot path.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["enclosing_keys"]

Path = tuple[bytes | None, ...]

# (each pattern is anchored and has no lazy run before a run of blanks: linear in the line,
# which is also capped, red team 16 g06)
_HEADER = re.compile(rb"^\[\[?[ \t]*([^\[\]\n]*[^\[\]\s])[ \t]*\]\]?[ \t]*(?:[#;].*)?$")
_HEADER_PART = re.compile(rb"""[ \t]*(?:"([^"]*)"|'([^']*)'|([^\s."']+))[ \t]*(\.|(?=["'\s])|$)""")
# a YAML key opening a block: nothing after the colon but anchors, tags, a block scalar
# indicator or a comment
_OPENER = re.compile(rb"""^(-[ \t]+)?(?:"([^"\n]*)"|'([^'\n]*)'|([^\s"'#:{}\[\],&*!|>%@`-](?:[^:#\n]*[^\s:#])?)"""
                     rb"""|(-[^\s:#](?:[^:#\n]*[^\s:#])?))[ \t]*:(?:[ \t]+[&!][^\s#]*)*(?:[ \t]+[|>][-+0-9]*)?[ \t]*(?:#.*)?$""")
_LONG_HEADER = re.compile(rb"\[\[?[ \t]*([^\[\]\n]{0,256}[^\[\]\s])[ \t]*\]\]?[ \t]*(?:[#;]|$)")
_ITEM = re.compile(rb"^-(?:[ \t]+|$)")
_COMMENT = frozenset(b"#;")
_LONGEST_LINE = 4096  # a longer line opens nothing and heads nothing: it sits under an unknown key
# a comment to the end of the line (after a blank: "a#b" is a value), a comment between /* */,
# a string (cut at a line end: JSON strings hold no raw newline; an apostrophe inside a word
# starts none), a bare word, a bracket or separator, or any other byte that is not white space
_TOKEN = re.compile(rb"""(?<![^ \t\n])(?:\#|;|//)()|(?<![^ \t\n])/\*.*?(?:\*/|$)|(")((?:[^"\\\n]|\\.)*)"?|(?<![A-Za-z0-9_])(')([^'\n]*)'?"""
                    rb"""|([A-Za-z0-9_.\-]+)|([{}\[\]:=,])|\S""")
_OPENS_AFTER = frozenset((b":", b"=", b",", b"{", b"[", None))  # a bracket after these is structure


class _Braces:
    """The keys of the open ``{``/``[`` of a JSON-like text, read token by token. A key is
    pending from its ``:`` (or ``=``) to the end of the next non-blank line. A bracket opens
    only where a value or an item may start (after ``:``, ``=``, ``,``, another bracket, or
    first on its line): ``\x1b[32m`` or ``a[0]`` open nothing (red team 16, g03, g05)."""

    def __init__(self) -> None:
        self.stack: list[bytes | None] = []
        self.keyed: list[bytes] = []  # the keys of ``stack``, without its keyless entries
        self.last: bytes | None = None  # the last string or bare word: a key if ':' follows
        self.pending: bytes | None = None  # a key whose ':' was read, waiting for its value
        self.pending_line = -1
        self.before: bytes | None = None  # the mark before the next token (None: a line's start)
        self.comment_line = -1  # the line whose rest is a comment

    def start_line(self, line: int, previous: int) -> None:
        """A new non-blank line ``line`` after non-blank line ``previous``."""
        self.last = self.before = None
        if self.pending_line != previous:
            self.pending = None

    def feed(self, data: bytes, start: int, end: int, line: int) -> None:
        if self.comment_line == line:
            return
        for m in _TOKEN.finditer(data, start, end):
            comment, _, dq, _, sq, bare, mark = m.groups()
            if comment is not None:
                self.comment_line = line
                return
            if mark is None:
                word = dq if dq is not None else sq if sq is not None else bare
                if word is not None:
                    self.last, self.before = word, b"w"
                elif m.group().startswith(b"/*"):
                    continue
                else:  # another byte: no key is pending
                    self.pending = self.last = None
                    self.before = b"x"
                continue
            if mark in (b":", b"="):
                self.pending, self.last, self.pending_line = self.last, None, line
            elif mark in (b"{", b"["):
                if self.before in _OPENS_AFTER:
                    self.stack.append(self.pending)
                    if self.pending is not None:
                        self.keyed.append(self.pending)
                self.pending = self.last = None
            elif mark in (b"}", b"]"):
                if self.stack and self.stack.pop() is not None:
                    self.keyed.pop()
                self.pending = self.last = None
            else:  # ','
                self.pending = self.last = None
            self.before = mark


def enclosing_keys(data: bytes, positions: Iterable[int], depth: int = 8) -> dict[int, Path]:
    """For each byte offset in ``positions``, the innermost ``depth`` keys enclosing it,
    outermost first: the ``[section]`` header above it (split into its parts), the YAML block
    keys it is indented under, then the keys of the JSON-like objects and arrays open around
    it; ``None`` for a key the text does not let it read."""
    wanted = sorted(set(positions))
    out: dict[int, Path] = {}
    if not wanted or depth <= 0:
        return {p: () for p in wanted}
    section: list[bytes | None] = []
    blocks: list[tuple[int, list[bytes | None]]] = []  # (column of the key, its parts) of the open blocks
    braces = _Braces()
    prev_col, prev_opens = 0, True  # the previous non-blank line's key column; does it open a block?
    previous = -1  # the previous non-blank line's number
    k, n = 0, len(data)
    line_start, line_no = 0, 0

    def path() -> Path:
        found: list[bytes | None] = []  # innermost first, no more than asked
        for key in reversed(braces.keyed):
            found.extend(reversed(_parts(key)))
            if len(found) >= depth:
                return tuple(reversed(found[:depth]))
        for _, parts in reversed(blocks):
            found.extend(reversed(parts))
            if len(found) >= depth:
                return tuple(reversed(found[:depth]))
        found.extend(reversed(section))
        return tuple(reversed(found[:depth]))

    unfed: tuple[int, int, int] | None = None  # the previous non-blank line, if its tokens were not read
    closing: bytes | None = None  # what ends the comment or string the lines are in (red team 17, h07, h09)
    unclosed: set[bytes] = set()
    while line_start < n and k < len(wanted):
        nl = data.find(b"\n", line_start)
        line_end = n if nl < 0 else nl
        line = data[line_start:line_end].rstrip(b"\r")
        body = line.lstrip(b" \t")
        skipped = closing is not None
        if skipped and closing in line:  # (the line that closes a comment or string is skipped too)
            closing = None
        if skipped or not body or body[0] in _COMMENT or body[:2] == b"//":
            while k < len(wanted) and wanted[k] <= line_end:
                out[wanted[k]] = path()
                k += 1
            line_start, line_no = line_end + 1, line_no + 1
            continue
        indent = len(line) - len(body)
        item = _ITEM.match(body) if body[0] == 0x2D else None  # "-"
        # a line closes the blocks opened at its column or deeper (a list item only the deeper
        # ones: a sequence may sit at its parent's indentation)
        while blocks and (blocks[-1][0] > indent if item else blocks[-1][0] >= indent):
            blocks.pop()
        if indent > prev_col and not prev_opens and not braces.stack:
            blocks.append((prev_col + 1, [None]))  # under a line that opens nothing: unknown
        # only a line with a bracket changes what is open; the line before it may hold its key
        # (a key is pending to the end of the next non-blank line, no further)
        bracketed = b"{" in line or b"[" in line or b"}" in line or b"]" in line
        if bracketed:
            if unfed is not None:
                braces.pending = braces.last = braces.before = None
                braces.feed(data, unfed[0], unfed[1], unfed[2])
            braces.start_line(line_no, previous)
        fed = line_start
        while k < len(wanted) and wanted[k] <= line_end:
            if bracketed:
                pos = max(wanted[k], line_start)
                braces.feed(data, fed, pos, line_no)
                fed = pos
            out[wanted[k]] = path()
            k += 1
        if bracketed:
            braces.feed(data, fed, line_end, line_no)
            unfed = None
        else:
            unfed = (line_start, line_end, line_no)
        closing = _left_open(body, data, line_end, unclosed)
        key_col = indent + (item.end() if item else 0)
        readable = len(body) <= _LONGEST_LINE
        # a header at any indentation (TOML indents sub-tables: g04), but not inside a YAML
        # block (a flow sequence) or brackets (a JSON array)
        header = (_HEADER.match(body) if readable and body[0] == 0x5B and not blocks and (not braces.stack or indent == 0)
                  else None)  # "["
        opener = _OPENER.match(body) if readable and header is None and b":" in body else None
        prev_col, prev_opens = key_col, True
        if not readable and body[0] == 0x5B and not blocks and not braces.stack:
            # a header with a long comment after it is read by its head; another long line
            # that starts like one is an unknown section (red team 17, h08)
            head = _LONG_HEADER.match(body)
            section, blocks = (_header_parts(head.group(1)) if head else [None]), []
        elif header is not None and braces.stack:
            # a header while a bracket is open: a bracket the reader took for structure was
            # not (a stray "[" in a value), or the header is not one; what follows is unknown
            section, braces.stack, braces.keyed = [None], [], []
            blocks.clear()
        elif header is not None:  # a section holds the lines below it, indented or not
            section = _header_parts(header.group(1))
            blocks.clear()
        elif opener is not None:
            key = next(opener.group(g) for g in (2, 3, 4, 5) if opener.group(g) is not None)
            blocks.append((key_col, _parts(key.strip())))
        elif not (readable and item and item.end() == len(body)):  # (a bare "-": an item whose lines follow)
            prev_opens = False
        previous = line_no
        line_start, line_no = line_end + 1, line_no + 1
    final = path()
    for pos in wanted[k:]:
        out[pos] = final
    return out


_ENDS_VALUE = frozenset((b",", b";", b")", b"]", b"}", b'"', b"'"))
_STARTS_STRING = frozenset((b"", b"=", b":", b"(", b",", b"[", b"{"))


def _left_open(body: bytes, data: bytes, after: int, unclosed: set[bytes]) -> bytes | None:
    """What ends the block comment or multi-line string that the line ``body`` opens and
    does not close, when something later in ``data`` (from ``after``) ends it: a ``/*`` at
    the line's start or after a blank with no ``*/`` after it (a comment after a value runs
    on too: red team 19, m05), or an odd count of a triple quote (a docstring's first line
    holds text; its lone closing line closes: m04). A region nothing ends is no region (a
    ``path: /*`` value, setup.cfg's ``docstring-quotes = \"\"\"``: red team 18, k06), and
    ``unclosed`` remembers the ends not found, so each is looked for once (k07)."""
    end = None
    star, last_close = body.find(b"/*"), body.rfind(b"*/")
    while star >= 0:  # the first /* that starts a comment (red team 20, n03)
        k = star
        while k > 0 and body[k - 1] in b" \t":
            k -= 1
        # at the line's start, or after a value that ended ('"a": 1, /* ...'); "path: /*" and
        # "- /*" are values (n02); and no */ after it on the line
        if (k == 0 or (k < star and body[k - 1:k] in _ENDS_VALUE)) and last_close < star + 2:
            end = b"*/"
            break
        star = body.find(b"/*", star + 2)
    if end is None:
        for quotes in (b'"""', b"'''"):
            first = body.find(quotes)
            # a string starts where a value may (not inside another string: n04)
            if first >= 0 and body.count(quotes) % 2 and body[:first].rstrip(b" \t")[-1:] in _STARTS_STRING:
                end = quotes
                break
    if end is None or end in unclosed:
        return None
    if data.find(end, after) < 0:
        unclosed.add(end)
        return None
    return end


def _parts(key: bytes) -> list[bytes | None]:
    """A key as path parts: a dotted key (``server.http``) is a path."""
    return [part or None for part in key.split(b".")]


def _header_parts(content: bytes) -> list[bytes | None]:
    """``a.b`` -> a, b; ``remote "origin"`` -> remote, origin; ``servers."alpha"`` -> servers,
    alpha; anything else (``testenv:lint``) is one key of that name."""
    parts: list[bytes | None] = []
    pos = 0
    while pos < len(content):
        m = _HEADER_PART.match(content, pos)
        if m is None or m.end() == pos:
            return [content.strip()]
        parts.append(next(g for g in m.groups()[:3] if g is not None))
        pos = m.end()
    return parts or [None]
