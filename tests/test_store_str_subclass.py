"""A str subclass is stored and checked as its characters (red team 122, F13): ``put`` and
``put_many`` stored what a subclass's own ``encode()`` returned (``S("x")`` stored ``b"zzz"``),
where docs/store.md says a ``str`` is stored as its UTF-8 encoding and a subclass's own methods
play no part; a block's text or an edit's source given as one is read as an exact ``str``."""

from __future__ import annotations

import pytest

from provgate.digests import compute_digest
from provgate.store import SourceStore
from provgate.window import Block, Window


class S(str):
    def encode(self, *args, **kwargs):
        return b"zzz"


@pytest.fixture()
def store():
    with SourceStore(":memory:") as st:
        yield st


def test_put_stores_the_characters_not_the_subclass_s_encode(store):
    assert store.put("tool:g", S("x")) == compute_digest(b"x")
    assert store.get("tool:g") == "x"
    store.put_many({"tool:h": S("y")})
    assert store.get("tool:h") == "y"
    assert store.verify() == []


def test_an_honest_str_is_stored_as_before(store):
    assert store.put("tool:g", "x") == compute_digest(b"x") and store.get("tool:g") == "x"
    assert store.put("tool:b", b"bytes\n") == compute_digest(b"bytes\n")


def test_a_block_text_given_as_a_subclass_is_an_exact_str():
    for block in (Block(id="b", role="tool", text=S("x"), handles=("tool:g",)),
                  Window([{"id": "b", "role": "tool", "text": S("x"), "handles": ["tool:g"]}])[0]):
        assert type(block.text) is str and block.text == "x"
        assert block.text.encode("utf-8") == b"x"
