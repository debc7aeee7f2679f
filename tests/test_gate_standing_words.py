"""Names and denied quotations asked of a text all at once (red team 100, F07: a find per name
over the whole pre version made a rewrite adding 32,000 names take 10 s): the answer is the
one the find per needle gives."""

from __future__ import annotations

from gate_helpers import assert_accepted, blk, find, store_with
from hypothesis import given, settings
from hypothesis import strategies as st

from provgate.gate import Gate, _standing_words, _stands_in

_BYTES = st.sampled_from([b"a", b"b", b"Q", b" ", b"_", b".", b"\xc3", b"\xa9", b"1", b"\n"])


@settings(max_examples=400, deadline=None)
@given(text=st.lists(_BYTES, max_size=40).map(b"".join),
       needles=st.sets(st.lists(_BYTES, max_size=4).map(b"".join), max_size=20))
def test_standing_words_is_a_find_per_needle(text, needles):
    assert _standing_words(needles, text) == {n for n in needles if _stands_in(n, text)}


def test_a_rewrite_moving_many_names_keeps_them_and_one_adding_names_is_refused():
    # more names than are asked one by one (_FIND_EACH), each grounded by the words around it
    # in its own pre version (red team 95, F03) or not
    many = [f"Alice{chr(97 + i)}" for i in range(20)]
    pre = "".join(f"The change was approved by {w} on the payments team.\n" for w in many)
    post = "".join(f"The change was approved by\n{w} on the payments team.\n" for w in many)
    gate = Gate(store_with({}))
    assert_accepted(gate.check([blk("a", "assistant", pre)], [blk("a", "assistant", post)], operator="rewrite"),
                    "lossless")
    moved = post.replace("approved by\nAlicet", "approved by\nMark")
    find(gate.check([blk("a", "assistant", pre)], [blk("a", "assistant", moved)], operator="rewrite"), "I2", block="a")
    words = [f"q{chr(97 + i % 26)}{chr(97 + i // 26)}" for i in range(40)]
    pre = "".join(f"the word {w} here.\n" for w in words)
    post = "".join(f"met {w.capitalize()} here.\n" for w in words)  # (names the pre version never had)
    find(gate.check([blk("a", "assistant", pre)], [blk("a", "assistant", post)], operator="rewrite"), "I2", block="a")
