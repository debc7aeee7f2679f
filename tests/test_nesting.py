"""provgate.nesting: the keys enclosing a place in a YAML, JSON, INI or TOML text (the gate's
grounding of dotted key=value facts, red team 14 p07)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from provgate.nesting import enclosing_keys


def keys_at(text: bytes, needle: bytes) -> tuple[bytes, ...]:
    pos = text.index(needle)
    return enclosing_keys(text, [pos])[pos]


def test_yaml_blocks_by_indentation():
    text = b"server:\n  http:\n    port: 8080\n  name: web\ndb:\n  port: 5432\n# db:\nroot: 1\n"
    assert keys_at(text, b"port: 8080") == (b"server", b"http")
    assert keys_at(text, b"name: web") == (b"server",)
    assert keys_at(text, b"port: 5432") == (b"db",)
    assert keys_at(text, b"root: 1") == ()


def test_yaml_quoted_keys_comments_and_list_items():
    text = b'"server": # the front\n  - name: a\n    opts:\n      port: 1\n'
    # "- name: a" sets a value and opens nothing; "opts:" under it opens a block
    assert keys_at(text, b"port: 1") == (b"server", b"opts")


def test_json_objects_and_arrays():
    text = b'{"a": {"b": [{"c": 1}, {"d": 2}], "e": 3}, "f": {"g": "}{"}, "h": 4}'
    assert keys_at(text, b'"c"') == (b"a", b"b")
    assert keys_at(text, b'"e"') == (b"a",)
    assert keys_at(text, b'"g"') == (b"f",)
    assert keys_at(text, b'"h"') == ()  # a brace inside a string closes nothing


def test_ini_and_toml_sections():
    text = b"top = 0\n[server]\nport = 8080\n[tool.poetry]\nname = x\n"
    assert keys_at(text, b"top") == ()
    assert keys_at(text, b"port") == (b"server",)
    assert keys_at(text, b"name") == (b"tool", b"poetry")


def test_what_it_cannot_read_is_an_unknown_key():
    # red team 15: a guess grounds a value under a key that does not hold it
    text = b"server:\n  port: 8080\n  note: long text\n    continued: 9\n  admin: &admin\n    port: 9090\n"
    assert keys_at(text, b"continued") == (b"server", None)  # under a line that opens nothing
    assert keys_at(text, b"port: 9090") == (b"server", b"admin")  # an anchor opens a block
    assert keys_at(b"[testenv:lint]\ndeps = ruff\n", b"deps") == (b"testenv:lint",)
    assert keys_at(b'[remote "origin"]\n\turl = x\n', b"url") == (b"remote", b"origin")
    assert keys_at(b'[servers."alpha"]\nport = 1\n', b"port") == (b"servers", b"alpha")
    assert keys_at(b"[[servers]]\nport = 1\n", b"port") == (b"servers",)


def test_yaml_sequences_and_items():
    text = b"jobs:\n  steps:\n  - name: a\n    with:\n      x: 1\n  - web:\n      port: 1\n    port: 2\n  done: 3\n"
    assert keys_at(text, b"x: 1") == (b"jobs", b"steps", b"with")  # a sequence at its parent's column
    assert keys_at(text, b"port: 1") == (b"jobs", b"steps", b"web")
    assert keys_at(text, b"port: 2") == (b"jobs", b"steps")  # the item's own key, not web's
    assert keys_at(text, b"done") == (b"jobs",)


def test_comments_and_apostrophes_open_nothing():
    text = b"[server]\n; NOTE [don't change]\nmotd = [Bob's server]\nport = 1\n[db]\nport = 2\n"
    assert keys_at(text, b"port = 1") == (b"server",)
    assert keys_at(text, b"port = 2") == (b"db",)
    jsonc = b'{\n  // don\'t\n  "a": {"b": 1},\n  "c":\n  {"d": 2}\n}\n'
    assert keys_at(jsonc, b'"b"') == (b"a",)
    assert keys_at(jsonc, b'"d"') == (b"c",)  # the key on the line before its brace


def test_a_bracket_opens_only_where_a_value_may_start():
    # red team 16, g03/g05: an escape sequence or an index opened a bracket that never closed
    text = b"[log]\nline = \x1b[32mok\x1b[0m a[0\nport = 1\n[db]\nport = 2\n"
    assert keys_at(text, b"port = 1") == (b"log",)
    assert keys_at(text, b"port = 2") == (b"db",)
    # a header while a bracket is open: what follows is unknown, not the previous section
    assert keys_at(b"[a]\nx = [1, 2)\n[b]\nport = 3\n", b"port") == (None,)


def test_a_line_too_long_to_read_opens_nothing():
    long_key = b"k" + b" " * 5000 + b"x:"
    text = b"top:\n  " + long_key + b"\n    port: 1\n"
    assert keys_at(text, b"port") == (b"top", None)


def test_toml_inline_tables_and_dotted_keys():
    assert keys_at(b"server = { port = 8080 }\n", b"port") == (b"server",)
    assert keys_at(b"server.http:\n  port: 1\n", b"port") == (b"server", b"http")


def test_only_the_innermost_keys_asked_for():
    deep = b"".join(b" " * i + b"k%d:\n" % i for i in range(2000)) + b" " * 2000 + b"port: 1\n"
    pos = deep.index(b"port")
    assert enclosing_keys(deep, [pos], 3)[pos] == (b"k1997", b"k1998", b"k1999")
    assert enclosing_keys(deep, [pos], 0)[pos] == ()


def test_positions_in_one_pass_and_past_the_end():
    text = b"a:\n  b: 1\nc:\n  d: 2\n"
    got = enclosing_keys(text, [text.index(b"d:"), text.index(b"b:"), len(text) + 5, 0])
    assert got[text.index(b"b:")] == (b"a",) and got[text.index(b"d:")] == (b"c",)
    assert got[0] == () and len(got) == 4
    assert enclosing_keys(text, []) == {}


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300), st.lists(st.integers(min_value=0, max_value=400), max_size=8))
def test_any_bytes_give_an_answer_for_every_position(data, positions):
    # unbalanced braces, NUL bytes, invalid UTF-8: never an exception, one path per position,
    # each key a key or None (unknown: the reader says so rather than guess)
    got = enclosing_keys(data, positions)
    assert set(got) == set(positions)
    assert all(k is None or isinstance(k, bytes) for path in got.values() for k in path)


def test_an_unreadable_bracket_line_is_an_unknown_key():
    # hypothesis found b'["]': a line that may be a header it cannot split encloses what
    # follows under an unknown key, never under no key at all (a value there is not top level)
    assert enclosing_keys(b'["]', [4]) == {4: (None,)}
    assert enclosing_keys(b'["]\nport: 1\n', [4]) == {4: (None,)}


def _fully_read(data: bytes, positions, depth: int = 8):
    """The executable spec of enclosing_keys: the same rules with every line's tokens read
    (enclosing_keys reads only lines with a bracket, and the line before each)."""
    from provgate import nesting as m

    out, section, blocks, braces = {}, [], [], m._Braces()
    prev_col, prev_opens, previous, closing, unclosed = 0, True, -1, None, set()

    def path():
        found = [p for key in braces.stack if key is not None for p in m._parts(key)]
        assert [k for k in braces.stack if k is not None] == braces.keyed
        found = [*section, *(p for _, parts in blocks for p in parts), *found]
        return tuple(found[max(0, len(found) - depth):]) if depth > 0 else ()

    starts = [0] + [i + 1 for i, c in enumerate(data) if c == 0x0A]
    for no, start in enumerate(starts):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        line = data[start:end].rstrip(b"\r")
        body = line.lstrip(b" \t")
        skipped = closing is not None
        if skipped and closing in line:
            closing = None
        live = not skipped and bool(body) and body[:1] not in (b"#", b";") and body[:2] != b"//"
        item = m._ITEM.match(body) if live else None
        indent = len(line) - len(body)
        if live:
            while blocks and (blocks[-1][0] > indent if item else blocks[-1][0] >= indent):
                blocks.pop()
            if indent > prev_col and not prev_opens and not braces.stack:
                blocks.append((prev_col + 1, [None]))
            braces.start_line(no, previous)
        fed = start
        for pos in sorted(p for p in set(positions) if start <= p <= end or (no == 0 and p < start)):
            if live:
                braces.feed(data, fed, pos, no)
                fed = pos
            out[pos] = path()
        if not live:
            continue
        braces.feed(data, fed, end, no)
        closing = m._left_open(body, data, end, unclosed)
        key_col = indent + (item.end() if item else 0)
        readable = len(body) <= m._LONGEST_LINE
        header = (m._HEADER.match(body) if readable and not blocks and (indent == 0 or not braces.stack)
                  else None)
        opener = m._OPENER.match(body) if readable and header is None else None
        prev_col, prev_opens, previous = key_col, True, no
        if not readable and body[:1] == b"[" and not blocks and not braces.stack:
            head = m._LONG_HEADER.match(body)
            section, blocks = (m._header_parts(head.group(1)) if head else [None]), []
        elif header is not None and braces.stack:
            section, blocks, braces.stack, braces.keyed = [None], [], [], []
        elif header is not None:
            section, blocks = m._header_parts(header.group(1)), []
        elif opener is not None:
            key = next(opener.group(g) for g in (2, 3, 4, 5) if opener.group(g) is not None)
            blocks.append((key_col, m._parts(key.strip())))
        elif not (readable and item and item.end() == len(body)):
            prev_opens = False
    for pos in positions:
        out.setdefault(pos, path())
    return out


_PIECES = [b"a", b"b.c", b'"k"', b"'q'", b"don't", b":", b": ", b" = ", b"{", b"}", b"[", b"]", b"[s]", b"[[t]]",
           b" ; c [", b"/* [ */", b" /* [", b"*/", b'"""', b"a/*]", b"\x1b[3m", b"x[0]", b"  [u.v]",
           b"- ", b"-", b"  ", b"\t", b"#x", b"; c", b"// c", b"&anc", b"!!map", b"|", b",", b"1", b"\n", b"\n",
           b"\r\n", b"\n  ", b"\n    ", b"\n- "]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=60), st.data())
def test_reading_only_bracketed_lines_changes_no_answer(pieces, data):
    text = b"".join(pieces)
    positions = data.draw(st.lists(st.integers(min_value=0, max_value=len(text)), max_size=6))
    depth = data.draw(st.integers(min_value=0, max_value=6))
    assert enclosing_keys(text, positions, depth) == _fully_read(text, positions, depth)
