"""Whole texts swapped between block ids under a lossless operator (docs/gate.md, I2 — "texts
swapped between ids"): a text moved under handles, sources, a role or a pin it does not belong
to is refused; a text kept with its own handles, or a swap between blocks whose handles say the
same, is an honest reorder. The suite runs once each way (PROVGATE_NO_EXTENSIONS=1)."""

from __future__ import annotations

import pytest
from gate_helpers import assert_accepted, blk, invariants, store_with

from provgate.gate import Gate

_SRC = {"tool:c1": "db port 5432\n", "tool:c2": "cache port 6543\n",
        "tool:c3": "db port 5432, cache port 6543\n", "tool:c4": "db port 5432, cache port 6543\n",
        "user:u1": "Use port 5432.\n", "user:u2": "Use port 6543.\n"}
_A, _B = "The db listens on port 5432.\n", "The cache listens on port 6543.\n"
_SRC.update({"turn:a": _A, "turn:b": _B})


def _check(pre, post, operator="rewrite"):
    return Gate(store_with(_SRC)).check(pre, post, operator=operator)


@pytest.mark.parametrize("texts, make, refused_by", [
    # tool outputs under their handles
    ((_SRC["tool:c1"], _SRC["tool:c2"]), lambda i, h: ("tool", [f"tool:c{h}"], None), "I1"),
    # turns derived from different sources
    ((_A, _B), lambda i, h: ("assistant", [], [f"tool:c{h}"]), "I1"),
    # turns under their own handles
    ((_A, _B), lambda i, h: ("assistant", ["turn:a" if h == 1 else "turn:b"], None), "I1"),
    # user turns
    ((_SRC["user:u1"], _SRC["user:u2"]), lambda i, h: ("user", [f"user:u{h}"], None), "I1"),
])
def test_a_text_swapped_under_handles_whose_source_does_not_hold_it_is_refused(texts, make, refused_by):
    def block(id_, text_of, holder):
        role, handles, derived = make(id_, 1 if holder == "a" else 2)
        return blk(id_, role, texts[text_of], handles, derived_from=derived)

    pre = [block("a", 0, "a"), block("b", 1, "b")]
    post = [block("a", 1, "a"), block("b", 0, "b")]
    assert refused_by in invariants(_check(pre, post))


def test_a_text_swapped_onto_a_pinned_block_is_refused():
    pre = [blk("a", "assistant", _A, pinned=True), blk("b", "assistant", _B)]
    post = [blk("a", "assistant", _B, pinned=True), blk("b", "assistant", _A)]
    assert not _check(pre, post).accepted


@pytest.mark.parametrize("pre, post, operator", [
    # a reorder: each text with its handles
    ([blk("a", "tool", _SRC["tool:c1"], ["tool:c1"]), blk("b", "tool", _SRC["tool:c2"], ["tool:c2"])],
     [blk("b", "tool", _SRC["tool:c2"], ["tool:c2"]), blk("a", "tool", _SRC["tool:c1"], ["tool:c1"])], "reorder"),
    # each text with its handles, the ids traded
    ([blk("a", "tool", _SRC["tool:c1"], ["tool:c1"]), blk("b", "tool", _SRC["tool:c2"], ["tool:c2"])],
     [blk("a", "tool", _SRC["tool:c2"], ["tool:c2"]), blk("b", "tool", _SRC["tool:c1"], ["tool:c1"])], "rewrite"),
    # blocks whose handles say the same: none, or sources holding both values
    ([blk("a", "assistant", _A), blk("b", "assistant", _B)],
     [blk("a", "assistant", _B), blk("b", "assistant", _A)], "rewrite"),
    ([blk("a", "assistant", _A, derived_from=["tool:c3"]), blk("b", "assistant", _B, derived_from=["tool:c4"])],
     [blk("a", "assistant", _B, derived_from=["tool:c3"]), blk("b", "assistant", _A, derived_from=["tool:c4"])],
     "rewrite"),
])
def test_a_swap_that_keeps_each_text_with_what_holds_it_is_accepted(pre, post, operator):
    assert_accepted(_check(pre, post, operator))
