"""provgate.nesting: the keys enclosing a place in a YAML, JSON, INI or TOML text (the gate's
grounding of dotted key=value facts, red team 14 p07)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from provgate.nesting import enclosing_keys, path_encloses


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


def test_positions_in_one_pass_and_past_the_end():
    text = b"a:\n  b: 1\nc:\n  d: 2\n"
    got = enclosing_keys(text, [text.index(b"d:"), text.index(b"b:"), len(text) + 5, 0])
    assert got[text.index(b"b:")] == (b"a",) and got[text.index(b"d:")] == (b"c",)
    assert got[0] == () and len(got) == 4
    assert enclosing_keys(text, []) == {}


def test_path_encloses_is_a_suffix_of_whole_keys():
    assert path_encloses((b"app", b"server"), [b"server"])
    assert path_encloses((b"app", b"server"), [b"app", b"server"])
    assert not path_encloses((b"server",), [b"app", b"server"])
    assert not path_encloses((b"myserver",), [b"server"])
    assert not path_encloses((b"server",), [])


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300), st.lists(st.integers(min_value=0, max_value=400), max_size=8))
def test_any_bytes_give_an_answer_for_every_position(data, positions):
    # unbalanced braces, NUL bytes, invalid UTF-8: never an exception, one path per position
    got = enclosing_keys(data, positions)
    assert set(got) == set(positions)
    assert all(isinstance(k, bytes) for path in got.values() for k in path)
